/* net-proxy-bench.c: the sandbox's way out against a direct connection
 *
 * Three threads, as in use: a server (blocking sockets on 127.0.0.1), the
 * proxy on the main loop of the main thread, exactly as Warden runs it,
 * and a client. The client measures, interleaved, a large transfer
 * (server to client, as a download) directly over TCP and through the
 * proxy's unix socket with CONNECT, and many short connections until
 * their first byte: connect, (CONNECT and its answer,) first byte.
 * The sandbox's relay (TCP inside the sandbox to the unix socket) is not
 * in the path.
 *
 * Prints one line of figures; exits 1 if something failed to run.
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

/* accept4 */
#define _GNU_SOURCE 1

#include <arpa/inet.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "net/warden-net-proxy.h"

#define CHUNK (1024 * 1024)

static int      size_mib = 200;
static int      rounds = 9;
static int      connections = 1000;

typedef struct
{
  int        bulk_fd;       /* sends size_mib MiB to whoever connects */
  int        ping_fd;       /* sends one byte */
  guint16    bulk_port;
  guint16    ping_port;
  char      *socket_path;
  gboolean   failed;
  GString   *report;
  GMainLoop *loop;
} Bench;

static void
die (const char *what)
{
  g_printerr ("net-proxy-bench: %s: %s\n", what, g_strerror (errno));
  exit (1);
}

static int
listen_tcp (guint16 *port)
{
  struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof sin;
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  if (fd < 0 || bind (fd, (struct sockaddr *) &sin, sizeof sin) < 0 || listen (fd, 128) < 0
      || getsockname (fd, (struct sockaddr *) &sin, &len) < 0)
    die ("listen");
  *port = ntohs (sin.sin_port);
  return fd;
}

static gpointer
server_thread (gpointer user_data)
{
  Bench *b = user_data;
  char *data = g_malloc (CHUNK);

  memset (data, 'x', CHUNK);
  for (;;)
    {
      struct pollfd fds[2] = { { b->bulk_fd, POLLIN, 0 }, { b->ping_fd, POLLIN, 0 } };
      int one = 1;
      int fd;

      if (poll (fds, 2, -1) < 0)
        continue;
      if (fds[1].revents & POLLIN)
        {
          fd = accept4 (b->ping_fd, NULL, NULL, SOCK_CLOEXEC);
          if (fd < 0)
            break;
          setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          (void) !send (fd, "x", 1, MSG_NOSIGNAL);
          close (fd);
        }
      if (fds[0].revents & POLLIN)
        {
          fd = accept4 (b->bulk_fd, NULL, NULL, SOCK_CLOEXEC);
          if (fd < 0)
            break;
          for (int i = 0; i < size_mib; i++)
            if (send (fd, data, CHUNK, MSG_NOSIGNAL) != CHUNK)
              break;
          close (fd);
        }
    }
  g_free (data);
  return NULL;
}

/* The client's side */

static int
connect_direct (guint16 port)
{
  struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK),
                             .sin_port = htons (port) };
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;

  if (fd < 0 || connect (fd, (struct sockaddr *) &sin, sizeof sin) < 0)
    die ("connect");
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

/* Connected through the proxy, its answer read; what came after the
 * answer's head, in the same read, counted in @extra. */
static int
connect_proxied (Bench  *b,
                 guint16 port,
                 gsize  *extra)
{
  struct sockaddr_un sun = { .sun_family = AF_UNIX };
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  char request[128];
  char answer[4096];
  gsize got = 0;
  int len;

  g_strlcpy (sun.sun_path, b->socket_path, sizeof sun.sun_path);
  if (fd < 0 || connect (fd, (struct sockaddr *) &sun, sizeof sun) < 0)
    die ("connect to the proxy");
  len = g_snprintf (request, sizeof request,
                    "CONNECT bench.test:%u HTTP/1.1\r\nHost: bench.test:%u\r\n\r\n", port, port);
  if (send (fd, request, len, MSG_NOSIGNAL) != len)
    die ("send CONNECT");
  for (;;)
    {
      ssize_t n = recv (fd, answer + got, sizeof answer - 1 - got, 0);
      char *end;

      if (n <= 0)
        die ("the proxy's answer");
      got += n;
      answer[got] = '\0';
      end = strstr (answer, "\r\n\r\n");
      if (end != NULL)
        {
          if (!g_str_has_prefix (answer, "HTTP/1.1 200 "))
            {
              g_printerr ("net-proxy-bench: the proxy answered: %s\n", answer);
              exit (1);
            }
          *extra = got - (end + 4 - answer);
          return fd;
        }
    }
}

/* The whole process's, every thread: server, proxy and client. */
static double
cpu_seconds (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec
         + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* MiB/s; the CPU time it took, per GiB, in @cpu_per_gib. */
static double
download (Bench   *b,
          gboolean proxied,
          double  *cpu_per_gib)
{
  char *buffer = g_malloc (CHUNK);
  gsize total = 0;
  gint64 start = g_get_monotonic_time ();
  double cpu = cpu_seconds ();
  double seconds;
  int fd;

  fd = proxied ? connect_proxied (b, b->bulk_port, &total) : connect_direct (b->bulk_port);
  for (;;)
    {
      ssize_t n = recv (fd, buffer, CHUNK, 0);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      total += n;
    }
  seconds = (g_get_monotonic_time () - start) / 1e6;
  if (cpu_per_gib != NULL)
    *cpu_per_gib = (cpu_seconds () - cpu) * 1024 / size_mib;
  close (fd);
  g_free (buffer);
  if (total != (gsize) size_mib * CHUNK)
    {
      g_printerr ("net-proxy-bench: %zu bytes arrived %s, not %d MiB\n", total,
                  proxied ? "through the proxy" : "directly", size_mib);
      exit (1);
    }
  return size_mib / seconds;
}

static double
first_byte_us (Bench   *b,
               gboolean proxied)
{
  gint64 start = g_get_monotonic_time ();
  gsize extra = 0;
  char byte;
  int fd;

  fd = proxied ? connect_proxied (b, b->ping_port, &extra) : connect_direct (b->ping_port);
  if (extra == 0 && recv (fd, &byte, 1, 0) != 1)
    die ("first byte");
  start = g_get_monotonic_time () - start;
  close (fd);
  return (double) start;
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (GArray *values)
{
  g_array_sort (values, compare_doubles);
  return g_array_index (values, double, values->len / 2);
}

static gboolean
quit_cb (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_REMOVE;
}

static gpointer
client_thread (gpointer user_data)
{
  Bench *b = user_data;
  g_autoptr(GArray) direct_rate = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) proxy_rate = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) direct_us = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) proxy_us = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) direct_cpu = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) proxy_cpu = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) ratios = g_array_new (FALSE, FALSE, sizeof (double));
  double d, p, dc, pc, r;

  /* Warm-up: page cache, the first decision, the resolver's table. */
  download (b, FALSE, NULL);
  download (b, TRUE, NULL);
  for (int i = 0; i < 20; i++)
    {
      first_byte_us (b, FALSE);
      first_byte_us (b, TRUE);
    }

  for (int i = 0; i < rounds; i++)
    {
      d = download (b, FALSE, &dc);
      p = download (b, TRUE, &pc);
      g_array_append_val (direct_rate, d);
      g_array_append_val (proxy_rate, p);
      g_array_append_val (direct_cpu, dc);
      g_array_append_val (proxy_cpu, pc);
      /* Each pair ran back to back, under the same load from elsewhere. */
      r = p / d;
      g_array_append_val (ratios, r);
    }
  for (int i = 0; i < connections; i++)
    {
      d = first_byte_us (b, FALSE);
      p = first_byte_us (b, TRUE);
      g_array_append_val (direct_us, d);
      g_array_append_val (proxy_us, p);
    }

  d = median (direct_rate);
  p = median (proxy_rate);
  g_string_append_printf (b->report,
                          "throughput (%d MiB, median of %d): direct %.0f MiB/s, "
                          "proxy %.0f MiB/s, ratio %.2f (median of the rounds' ratios)\n",
                          size_mib, rounds, d, p, median (ratios));
  dc = median (direct_cpu);
  pc = median (proxy_cpu);
  g_string_append_printf (b->report,
                          "CPU time per GiB, all threads (median): direct %.2f s, "
                          "proxy %.2f s, ratio %.2f\n", dc, pc, pc / dc);
  d = median (direct_us);
  p = median (proxy_us);
  g_string_append_printf (b->report,
                          "connection to first byte (median of %d): direct %.0f us, "
                          "proxy %.0f us, added %.0f us\n",
                          connections, d, p, p - d);
  g_idle_add (quit_cb, b->loop);
  return NULL;
}

static void
decide (WardenNetRequest *request,
        gpointer          user_data)
{
  warden_net_request_answer (request, TRUE, NULL);
}

int
main (int   argc,
      char *argv[])
{
  GOptionEntry entries[] = {
    { "size", 0, 0, G_OPTION_ARG_INT, &size_mib, "MiB per transfer (200)", "MIB" },
    { "rounds", 0, 0, G_OPTION_ARG_INT, &rounds, "Transfers each way (9)", "N" },
    { "connections", 0, 0, G_OPTION_ARG_INT, &connections, "Short connections each way (1000)",
      "N" },
    { NULL }
  };
  g_autoptr(GOptionContext) options = g_option_context_new ("- the network proxy's figures");
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *hosts = NULL;
  WardenNetProxy *proxy;
  Bench b = { 0 };
  GThread *server;
  GThread *client;

  g_option_context_add_main_entries (options, entries, NULL);
  if (!g_option_context_parse (options, &argc, &argv, &error))
    {
      g_printerr ("net-proxy-bench: %s\n", error->message);
      return 2;
    }
  if (size_mib < 1 || rounds < 1 || connections < 1)
    {
      g_printerr ("net-proxy-bench: --size, --rounds and --connections must be positive\n");
      return 2;
    }

  dir = g_dir_make_tmp ("warden-net-bench-XXXXXX", &error);
  if (dir == NULL)
    {
      g_printerr ("net-proxy-bench: %s\n", error->message);
      return 1;
    }
  b.socket_path = g_build_filename (dir, "proxy.sock", NULL);
  hosts = g_build_filename (dir, "hosts", NULL);
  b.report = g_string_new (NULL);
  b.loop = g_main_loop_new (NULL, FALSE);
  b.bulk_fd = listen_tcp (&b.bulk_port);
  b.ping_fd = listen_tcp (&b.ping_port);

  if (!g_file_set_contents (hosts, "127.0.0.1 bench.test\n", -1, &error)
      || (proxy = warden_net_proxy_new (b.socket_path, decide, NULL, NULL, &error)) == NULL
      || !warden_net_proxy_set_hosts_file (proxy, hosts, &error))
    {
      g_printerr ("net-proxy-bench: %s\n", error->message);
      return 1;
    }

  server = g_thread_new ("server", server_thread, &b);
  client = g_thread_new ("client", client_thread, &b);
  g_main_loop_run (b.loop);
  g_thread_join (client);
  g_thread_unref (server);   /* blocked in poll; ends with the process */

  g_print ("%s", b.report->str);
  warden_net_proxy_free (proxy);
  g_unlink (hosts);
  g_rmdir (dir);
  return 0;
}
