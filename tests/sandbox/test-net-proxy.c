/* test-net-proxy.c: the sandbox's way out, host by host, with real curl
 *
 * curl runs on the host against servers of this test on 127.0.0.1 (plain
 * HTTP, and HTTPS with a test CA made by openssl), reached by made-up names
 * from a hosts file the test writes. curl 7.88 speaks SOCKS5 to a unix
 * socket but HTTP proxy only over TCP, so a forwarder of this test stands
 * where the sandbox's relay will: TCP on 127.0.0.1 to the proxy's socket.
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "policy/warden-network.h"
#include "net/warden-net-proxy.h"
#include "warden-test-util.h"

#define BIG_SIZE (8 * 1024 * 1024)

typedef enum
{
  RULE_ALLOW,
  RULE_REFUSE,      /* with a message */
  RULE_DROP,        /* no answer: the last reference goes */
  RULE_LATE,        /* allowed from a timeout, a while later */
  RULE_HOLD,        /* kept in f->held, for the test to answer */
} Rule;

typedef struct
{
  char    *dir;
  char    *socket_path;
  char    *hosts_path;
  char    *ca_path;
  WardenNetProxy *proxy;
  SoupServer *http;
  SoupServer *https;
  guint16  http_port;
  guint16  https_port;
  GSocketService *forwarder;
  guint16  forward_port;
  GHashTable *rules;          /* host → Rule */
  GPtrArray  *seen;           /* "host port protocol" per decision asked */
  GPtrArray  *held;           /* WardenNetRequest */
  GHashTable *hits;           /* host the server was asked for → count */
  char       *last_host_header;
  guint       closed_calls;
} Fixture;

static gboolean
have_program (const char *name)
{
  g_autofree char *path = g_find_program_in_path (name);

  if (path != NULL)
    return TRUE;
  if (g_strcmp0 (g_getenv ("CI"), "true") == 0)
    g_test_fail_printf ("%s is missing, and CI=true", name);
  else
    g_test_skip_printf ("%s is missing", name);
  return FALSE;
}

/* Iterates the main context until *@flag; a hang fails the test rather
 * than the suite's timeout. */
static gboolean
timeout_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
run_until (const gboolean *flag)
{
  gboolean expired = FALSE;
  guint id = g_timeout_add_seconds (90, timeout_cb, &expired);

  while (!*flag && !expired)
    g_main_context_iteration (NULL, TRUE);
  if (!expired)
    g_source_remove (id);
  g_assert_false (expired);
}

/* Lets pending work happen (a refused connection's last bytes). */
static void
spin (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, timeout_cb, &done);
  run_until (&done);
}

/* ------------------------------------------------------------------------ */
/* The decisions */

static gboolean
late_answer_cb (gpointer user_data)
{
  WardenNetRequest *request = user_data;

  warden_net_request_answer (request, TRUE, NULL);
  warden_net_request_unref (request);
  return G_SOURCE_REMOVE;
}

static void
decide (WardenNetRequest *request,
        gpointer          user_data)
{
  Fixture *f = user_data;
  gpointer rule;

  g_ptr_array_add (f->seen, g_strdup_printf ("%s %u %s",
                                             warden_net_request_get_host (request),
                                             warden_net_request_get_port (request),
                                             warden_net_request_get_protocol (request)));
  g_assert_false (warden_net_request_is_closed (request));

  if (!g_hash_table_lookup_extended (f->rules, warden_net_request_get_host (request), NULL, &rule))
    rule = GINT_TO_POINTER (RULE_REFUSE);

  switch (GPOINTER_TO_INT (rule))
    {
    case RULE_ALLOW:
      warden_net_request_answer (request, TRUE, NULL);
      break;
    case RULE_REFUSE:
      warden_net_request_answer (request, FALSE, "not in the profile");
      break;
    case RULE_DROP:
      break;
    case RULE_LATE:
      /* Long enough for curl to sit in its read. */
      g_timeout_add (300, late_answer_cb, warden_net_request_ref (request));
      break;
    case RULE_HOLD:
      g_ptr_array_add (f->held, warden_net_request_ref (request));
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
set_rule (Fixture    *f,
          const char *host,
          Rule        rule)
{
  g_hash_table_insert (f->rules, g_strdup (host), GINT_TO_POINTER (rule));
}

static guint
hits (Fixture    *f,
      const char *host)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (f->hits, host));
}

/* ------------------------------------------------------------------------ */
/* The servers */

static void
server_cb (SoupServer        *server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  Fixture *f = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *host_header = soup_message_headers_get_one (headers, "Host");
  g_autofree char *host = g_strdup (host_header ? host_header : "");
  char *colon = strrchr (host, ':');

  g_free (f->last_host_header);
  f->last_host_header = g_strdup (host_header);
  if (host[0] == '[' && strchr (host, ']') != NULL)
    strchr (host, ']')[1] = '\0';
  else if (colon != NULL)
    *colon = '\0';
  g_hash_table_insert (f->hits, g_strdup (host), GUINT_TO_POINTER (hits (f, host) + 1));

  if (strcmp (path, "/big") == 0)
    {
      char *body = g_malloc (BIG_SIZE);

      for (gsize i = 0; i < BIG_SIZE; i++)
        body[i] = 'a' + i % 26;
      soup_server_message_set_response (msg, "application/octet-stream", SOUP_MEMORY_TAKE,
                                        body, BIG_SIZE);
    }
  else if (strcmp (soup_server_message_get_method (msg), "POST") == 0)
    {
      SoupMessageBody *request_body = soup_server_message_get_request_body (msg);
      g_autofree char *text = g_strdup_printf ("got %" G_GINT64_FORMAT " bytes",
                                               request_body->length);

      soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_COPY, text,
                                        strlen (text));
    }
  else
    {
      g_autofree char *text = g_strdup_printf ("hello from %s%s", host, path);

      soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_COPY, text,
                                        strlen (text));
    }
  soup_server_message_set_status (msg, 200, NULL);
}

/* From the listener: soup_server_get_uris () leaks an address in 3.2. */
static guint16
server_port (SoupServer *server)
{
  GSList *listeners = soup_server_get_listeners (server);
  g_autoptr(GSocketAddress) address = g_socket_get_local_address (listeners->data, NULL);

  g_slist_free (listeners);
  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (address));
}

static void
openssl (const char *dir,
         const char *script)
{
  const char *argv[] = { "/bin/sh", "-c", script, NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_spawn_sync (dir, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("%s: %s%s", script, out, err);
}

/* A CA, and a certificate from it for secure.test. */
static GTlsCertificate *
make_certificate (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *cert = g_build_filename (f->dir, "server.pem", NULL);
  g_autofree char *key = g_build_filename (f->dir, "server.key", NULL);
  GTlsCertificate *certificate;

  openssl (f->dir,
           "printf 'subjectAltName=DNS:secure.test\\n' > ext.cnf && "
           "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
           "  -keyout ca.key -out ca.pem -days 2 -subj '/CN=Warden test CA' && "
           "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
           "  -keyout server.key -out server.csr -subj '/CN=secure.test' && "
           "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial "
           "  -out server.pem -days 2 -extfile ext.cnf");
  certificate = g_tls_certificate_new_from_files (cert, key, &error);
  g_assert_no_error (error);
  f->ca_path = g_build_filename (f->dir, "ca.pem", NULL);
  return certificate;
}

/* ------------------------------------------------------------------------ */
/* The forwarder: TCP on 127.0.0.1 to the proxy's socket, as the relay in
 * the sandbox will be */

typedef struct
{
  GSocketConnection *down;
  Fixture           *f;
} Forward;

static void
forward_spliced_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_io_stream_splice_finish (result, NULL);
}

static void
forward_connected_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  Forward *fw = user_data;
  g_autoptr(GSocketConnection) up =
    g_socket_client_connect_finish (G_SOCKET_CLIENT (object), result, NULL);

  if (up != NULL)
    g_io_stream_splice_async (G_IO_STREAM (fw->down), G_IO_STREAM (up),
                              G_IO_STREAM_SPLICE_CLOSE_STREAM1 | G_IO_STREAM_SPLICE_CLOSE_STREAM2,
                              G_PRIORITY_DEFAULT, NULL, forward_spliced_cb, NULL);
  g_object_unref (fw->down);
  g_free (fw);
}

static gboolean
forward_incoming_cb (GSocketService    *service,
                     GSocketConnection *connection,
                     GObject           *source_object,
                     gpointer           user_data)
{
  Fixture *f = user_data;
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketAddress) address = g_unix_socket_address_new (f->socket_path);
  Forward *fw = g_new0 (Forward, 1);

  fw->down = g_object_ref (connection);
  fw->f = f;
  g_socket_client_connect_async (client, G_SOCKET_CONNECTABLE (address), NULL,
                                 forward_connected_cb, fw);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* A resolver with made-up answers: names that lead into this computer
 * without any traffic going there. Other names go to the system's. */

typedef struct
{
  GResolver  parent_instance;
  GResolver *system;
} FakeResolver;

typedef struct
{
  GResolverClass parent_class;
} FakeResolverClass;

static GType fake_resolver_get_type (void);
G_DEFINE_TYPE (FakeResolver, fake_resolver, G_TYPE_RESOLVER)

static const struct
{
  const char *name;
  const char *addresses;   /* space-separated */
} fake_names[] = {
  { "metadata.test", "169.254.169.254" },
  { "link.test", "fe80::1" },
  { "lan.test", "192.168.77.5" },
  { "mapped.test", "::ffff:192.168.77.5" },
  { "bridge.test", "172.17.0.9" },
};

/* The host's addresses this test makes up (none of them are this
 * machine's): its LAN address and a container bridge's network. */
static const char * const fake_interfaces[] = { "192.168.77.5", "172.17.0.0/16", NULL };

static GList *
fake_lookup (const char *name)
{
  GList *list = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (fake_names); i++)
    if (g_ascii_strcasecmp (name, fake_names[i].name) == 0)
      {
        g_auto(GStrv) addresses = g_strsplit (fake_names[i].addresses, " ", -1);

        for (guint j = 0; addresses[j] != NULL; j++)
          list = g_list_append (list, g_inet_address_new_from_string (addresses[j]));
      }
  return list;
}

static GList *
fake_resolver_lookup_by_name (GResolver     *resolver,
                              const char    *name,
                              GCancellable  *cancellable,
                              GError       **error)
{
  GList *list = fake_lookup (name);

  if (list != NULL)
    return list;
  return g_resolver_lookup_by_name (((FakeResolver *) resolver)->system, name, cancellable,
                                    error);
}

static void
fake_system_done_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  GList *list = g_resolver_lookup_by_name_finish (G_RESOLVER (object), result, &error);

  if (list == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, list, (GDestroyNotify) g_resolver_free_addresses);
}

static void
fake_resolver_lookup_by_name_async (GResolver           *resolver,
                                    const char          *name,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  GTask *task = g_task_new (resolver, cancellable, callback, user_data);
  GList *list = fake_lookup (name);

  if (list != NULL)
    {
      g_task_return_pointer (task, list, (GDestroyNotify) g_resolver_free_addresses);
      g_object_unref (task);
      return;
    }
  g_resolver_lookup_by_name_async (((FakeResolver *) resolver)->system, name, cancellable,
                                   fake_system_done_cb, task);
}

static GList *
fake_resolver_lookup_by_name_finish (GResolver     *resolver,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
fake_resolver_finalize (GObject *object)
{
  g_clear_object (&((FakeResolver *) object)->system);
  G_OBJECT_CLASS (fake_resolver_parent_class)->finalize (object);
}

static void
fake_resolver_class_init (FakeResolverClass *klass)
{
  GResolverClass *resolver_class = G_RESOLVER_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = fake_resolver_finalize;
  resolver_class->lookup_by_name = fake_resolver_lookup_by_name;
  resolver_class->lookup_by_name_async = fake_resolver_lookup_by_name_async;
  resolver_class->lookup_by_name_finish = fake_resolver_lookup_by_name_finish;
}

static void
fake_resolver_init (FakeResolver *self)
{
  self->system = g_resolver_get_default ();
}

/* ------------------------------------------------------------------------ */
/* The fixture */

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GTlsCertificate) certificate = NULL;
  g_autofree char *hosts = NULL;
  g_autofree char *openssl_path = NULL;

  f->dir = g_dir_make_tmp ("warden-test-net-XXXXXX", &error);
  g_assert_no_error (error);
  f->socket_path = g_build_filename (f->dir, "proxy.sock", NULL);
  f->hosts_path = g_build_filename (f->dir, "hosts", NULL);
  f->rules = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  f->hits = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  f->seen = g_ptr_array_new_with_free_func (g_free);
  f->held = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_net_request_unref);

  f->http = soup_server_new (NULL, NULL);
  soup_server_add_handler (f->http, NULL, server_cb, f, NULL);
  soup_server_listen_local (f->http, 0, 0, &error);
  g_assert_no_error (error);
  f->http_port = server_port (f->http);

  openssl_path = g_find_program_in_path ("openssl");
  if (openssl_path != NULL)
    {
      certificate = make_certificate (f);
      f->https = soup_server_new ("tls-certificate", certificate, NULL);
      soup_server_add_handler (f->https, NULL, server_cb, f, NULL);
      soup_server_listen_local (f->https, 0,
                                SOUP_SERVER_LISTEN_IPV4_ONLY | SOUP_SERVER_LISTEN_HTTPS, &error);
      g_assert_no_error (error);
      f->https_port = server_port (f->https);
    }

  hosts = g_strdup ("# made-up names of this test\n"
                    "127.0.0.1\tplain.test secure.test a.test b.test\n"
                    "127.0.0.1 evil.test late.test held.test dropped.test  # comment\n"
                    "::1 six.test\n"
                    "not-an-address bogus.test\n");
  g_file_set_contents (f->hosts_path, hosts, -1, &error);
  g_assert_no_error (error);

  f->proxy = warden_net_proxy_new (f->socket_path, decide, f, NULL, &error);
  g_assert_no_error (error);
  warden_net_proxy_set_hosts_file (f->proxy, f->hosts_path, &error);
  g_assert_no_error (error);

  f->forwarder = g_socket_service_new ();
  f->forward_port = g_socket_listener_add_any_inet_port (G_SOCKET_LISTENER (f->forwarder),
                                                         NULL, &error);
  g_assert_no_error (error);
  g_signal_connect (f->forwarder, "incoming", G_CALLBACK (forward_incoming_cb), f);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_socket_service_stop (f->forwarder);
  g_socket_listener_close (G_SOCKET_LISTENER (f->forwarder));
  g_clear_object (&f->forwarder);
  g_ptr_array_set_size (f->held, 0);
  g_clear_pointer (&f->proxy, warden_net_proxy_free);
  /* Connections still closing let go. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_false (g_file_test (f->socket_path, G_FILE_TEST_EXISTS));
  g_clear_object (&f->http);
  g_clear_object (&f->https);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  warden_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->socket_path);
  g_free (f->hosts_path);
  g_free (f->ca_path);
  g_free (f->last_host_header);
  g_hash_table_unref (f->rules);
  g_hash_table_unref (f->hits);
  g_ptr_array_unref (f->seen);
  g_ptr_array_unref (f->held);
}

/* Until @n requests wait for an answer in f->held. */
static void
run_until_held (Fixture *f,
                guint    n)
{
  gboolean expired = FALSE;
  guint id = g_timeout_add_seconds (90, timeout_cb, &expired);

  while (f->held->len < n && !expired)
    g_main_context_iteration (NULL, TRUE);
  if (!expired)
    g_source_remove (id);
  g_assert_false (expired);
}

/* ------------------------------------------------------------------------ */
/* curl */

typedef struct
{
  GSubprocess *process;
  gboolean     done;
  int          status;
  char        *out;
  char        *err;
} Curl;

static void
curl_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Curl *curl = user_data;
  g_autoptr(GError) error = NULL;

  g_subprocess_communicate_utf8_finish (G_SUBPROCESS (object), result, &curl->out, &curl->err,
                                        &error);
  g_assert_no_error (error);
  curl->status = g_subprocess_get_if_exited (curl->process)
                   ? g_subprocess_get_exit_status (curl->process) : -1;
  curl->done = TRUE;
}

static void
curl_free (Curl *curl)
{
  g_clear_object (&curl->process);
  g_free (curl->out);
  g_free (curl->err);
  g_free (curl);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Curl, curl_free)

/* Starts curl with @args (NULL-terminated), proxy variables unset. */
static Curl *
curl_start (const char *first,
            ...)
{
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  const char *const unset[] = { "http_proxy", "https_proxy", "all_proxy", "no_proxy",
                                "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY" };
  Curl *curl = g_new0 (Curl, 1);
  va_list ap;

  for (guint i = 0; i < G_N_ELEMENTS (unset); i++)
    g_subprocess_launcher_unsetenv (launcher, unset[i]);
  g_ptr_array_add (argv, "curl");
  g_ptr_array_add (argv, "-sSv");
  g_ptr_array_add (argv, "--max-time");
  g_ptr_array_add (argv, "60");
  va_start (ap, first);
  for (const char *arg = first; arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer) arg);
  va_end (ap);
  g_ptr_array_add (argv, NULL);

  curl->process = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata,
                                                &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8_async (curl->process, NULL, NULL, curl_done_cb, curl);
  return curl;
}

static void
curl_wait (Curl *curl)
{
  run_until (&curl->done);
  if (g_test_verbose ())
    g_printerr ("curl exited %d\n--- out\n%s\n--- err\n%s\n", curl->status, curl->out, curl->err);
}

static char *
http_proxy (Fixture *f)
{
  return g_strdup_printf ("http://127.0.0.1:%u", f->forward_port);
}

static char *
socks_unix (Fixture *f)
{
  return g_strdup_printf ("socks5h://localhost%s", f->socket_path);
}

static char *
url (const char *scheme,
     const char *host,
     guint16     port,
     const char *path)
{
  return g_strdup_printf ("%s://%s:%u%s", scheme, host, port, path);
}

static char *
refused_message (const char *host,
                 guint16     port)
{
  return g_strdup_printf ("Warden: the connection to %s:%u was refused: not in the profile",
                          host, port);
}

/* ------------------------------------------------------------------------ */
/* A raw client, in a thread of its own (blocking), for what curl does not
 * send */

typedef struct
{
  Fixture    *f;
  GByteArray *send1;
  GByteArray *send2;        /* after the first answer ended (NULL: none) */
  gboolean    half_close;   /* shut down its sending side after send1 */
  gboolean    piecewise;    /* send1 a byte at a time */
  GString    *received;
  gboolean    send2_failed;
  gboolean    done;
} Raw;

static int
raw_connect (Fixture *f)
{
  struct sockaddr_un sun = { .sun_family = AF_UNIX };
  struct timeval tv = { .tv_sec = 60 };
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  g_assert_cmpint (fd, >=, 0);
  g_strlcpy (sun.sun_path, f->socket_path, sizeof sun.sun_path);
  g_assert_cmpint (connect (fd, (struct sockaddr *) &sun, sizeof sun), ==, 0);
  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

static gboolean
raw_wake_cb (gpointer user_data)
{
  ((Raw *) user_data)->done = TRUE;
  return G_SOURCE_REMOVE;
}

/* Reads until the end of one HTTP answer whose head says Connection:
 * close and whose length is given, or until EOF. */
static void
raw_read_all (int      fd,
              GString *into)
{
  char buffer[4096];
  ssize_t n;

  while ((n = recv (fd, buffer, sizeof buffer, 0)) > 0)
    g_string_append_len (into, buffer, n);
}

static gpointer
raw_thread (gpointer user_data)
{
  Raw *raw = user_data;
  int fd = raw_connect (raw->f);

  if (raw->piecewise)
    {
      for (guint i = 0; i < raw->send1->len; i++)
        {
          if (send (fd, raw->send1->data + i, 1, MSG_NOSIGNAL) != 1)
            raw->send2_failed = TRUE;
          g_usleep (200);
        }
    }
  else if (send (fd, raw->send1->data, raw->send1->len, MSG_NOSIGNAL)
           != (ssize_t) raw->send1->len)
    raw->send2_failed = TRUE;
  if (raw->half_close)
    shutdown (fd, SHUT_WR);
  if (raw->send2 == NULL)
    {
      raw_read_all (fd, raw->received);
    }
  else
    {
      /* An answer with its length: read it, then ask again on the same
       * connection, as a keep-alive client would. */
      char buffer[4096];
      ssize_t n;
      const char *end;
      gsize want = G_MAXSIZE;

      while (raw->received->len < want && (n = recv (fd, buffer, sizeof buffer, 0)) > 0)
        {
          g_string_append_len (raw->received, buffer, n);
          end = strstr (raw->received->str, "\r\n\r\n");
          if (end != NULL)
            {
              const char *cl = strstr (raw->received->str, "Content-Length: ");

              if (cl != NULL && cl < end)
                want = (end + 4 - raw->received->str) + g_ascii_strtoull (cl + 16, NULL, 10);
            }
        }
      if (send (fd, raw->send2->data, raw->send2->len, MSG_NOSIGNAL) != (ssize_t) raw->send2->len)
        raw->send2_failed = TRUE;
      raw_read_all (fd, raw->received);
    }
  close (fd);
  g_idle_add (raw_wake_cb, raw);
  return NULL;
}

/* Sends @data (and @data2 after the first answer; or, with @half_close,
 * nothing more) and returns all that came back until the proxy closed. */
static GString *
raw_exchange_full (Fixture    *f,
                   const void *data,
                   gsize       len,
                   const char *data2,
                   gboolean    half_close,
                   gboolean    piecewise)
{
  Raw raw = { .f = f, .half_close = half_close, .piecewise = piecewise };
  GThread *thread;

  raw.send1 = g_byte_array_new ();
  g_byte_array_append (raw.send1, data, len);
  if (data2 != NULL)
    {
      raw.send2 = g_byte_array_new ();
      g_byte_array_append (raw.send2, (const guint8 *) data2, strlen (data2));
    }
  raw.received = g_string_new (NULL);
  thread = g_thread_new ("raw client", raw_thread, &raw);
  run_until (&raw.done);
  g_thread_join (thread);
  g_byte_array_unref (raw.send1);
  g_clear_pointer (&raw.send2, g_byte_array_unref);
  return raw.received;
}

static GString *
raw_exchange (Fixture    *f,
              const void *data,
              gsize       len,
              const char *data2,
              gboolean    half_close)
{
  return raw_exchange_full (f, data, len, data2, half_close, FALSE);
}

/* All connections gone: nothing leaks open. */
static void
assert_all_closed (Fixture *f)
{
  gboolean done = FALSE;
  guint id = g_timeout_add_seconds (30, timeout_cb, &done);

  while (warden_net_proxy_get_n_connections (f->proxy) > 0 && !done)
    g_main_context_iteration (NULL, TRUE);
  if (!done)
    g_source_remove (id);
  g_assert_cmpuint (warden_net_proxy_get_n_connections (f->proxy), ==, 0);
}

/* ------------------------------------------------------------------------ */
/* CONNECT */

static void
test_connect_allowed (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *proxy = http_proxy (f);
  g_autofree char *target = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(Curl) curl = NULL;

  if (!have_program ("curl") || !have_program ("openssl"))
    return;

  set_rule (f, "secure.test", RULE_ALLOW);
  target = url ("https", "secure.test", f->https_port, "/hello");
  curl = curl_start ("--proxy", proxy, "--cacert", f->ca_path, target, NULL);
  curl_wait (curl);

  g_assert_cmpint (curl->status, ==, 0);
  g_assert_cmpstr (curl->out, ==, "hello from secure.test/hello");
  g_assert_cmpuint (f->seen->len, ==, 1);
  expected = g_strdup_printf ("secure.test %u connect", f->https_port);
  g_assert_cmpstr (g_ptr_array_index (f->seen, 0), ==, expected);
  assert_all_closed (f);
}

static void
test_connect_big (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *proxy = http_proxy (f);
  g_autofree char *target = NULL;
  g_autoptr(Curl) curl = NULL;

  if (!have_program ("curl") || !have_program ("openssl"))
    return;

  /* 8 MiB through the tunnel, whole and in order. */
  set_rule (f, "secure.test", RULE_ALLOW);
  target = url ("https", "secure.test", f->https_port, "/big");
  curl = curl_start ("--proxy", proxy, "--cacert", f->ca_path, target, NULL);
  curl_wait (curl);

  g_assert_cmpint (curl->status, ==, 0);
  g_assert_cmpuint (strlen (curl->out), ==, BIG_SIZE);
  for (gsize i = 0; i < BIG_SIZE; i += 4093)
    g_assert_cmpint (curl->out[i], ==, 'a' + i % 26);
  assert_all_closed (f);
}

static void
test_connect_refused (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *proxy = http_proxy (f);
  g_autofree char *target = NULL;
  g_autofree char *message = NULL;
  g_autoptr(Curl) curl = NULL;

  if (!have_program ("curl") || !have_program ("openssl"))
    return;

  /* evil.test has no rule: refused, with the message in the status line
   * curl -v shows. */
  target = url ("https", "evil.test", f->https_port, "/");
  curl = curl_start ("--proxy", proxy, "--cacert", f->ca_path, target, NULL);
  curl_wait (curl);

  message = refused_message ("evil.test", f->https_port);
  g_assert_cmpint (curl->status, ==, 56);
  g_assert_nonnull (strstr (curl->err, message));
  g_assert_nonnull (strstr (curl->err, "< HTTP/1.1 403 "));
  g_assert_nonnull (strstr (curl->err, "CONNECT tunnel failed, response 403"));
  g_assert_cmpuint (hits (f, "evil.test"), ==, 0);
  assert_all_closed (f);
}

static void
test_connect_dropped (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *proxy = http_proxy (f);
  g_autofree char *target = NULL;
  g_autofree char *message = NULL;
  g_autoptr(Curl) curl = NULL;

  if (!have_program ("curl"))
    return;

  /* The asker let go of the request without answering: refused. */
  set_rule (f, "dropped.test", RULE_DROP);
  target = url ("http", "dropped.test", f->http_port, "/");
  curl = curl_start ("--proxytunnel", "--proxy", proxy, target, NULL);
  curl_wait (curl);

  message = g_strdup_printf ("< HTTP/1.1 403 Warden: the connection to dropped.test:%u "
                             "was refused\r\n", f->http_port);
  g_assert_cmpint (curl->status, ==, 56);
  g_assert_nonnull (strstr (curl->err, message));
  g_assert_cmpuint (hits (f, "dropped.test"), ==, 0);
}

/* ------------------------------------------------------------------------ */
/* Plain HTTP */

static void
test_http_allowed (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *proxy = http_proxy (f);
  g_autofree char *target = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *host_header = NULL;
  g_autoptr(Curl) curl = NULL;

  if (!have_program ("curl"))
    return;

  /* A Host header naming another host does not reach it: the one the
   * URL names, which was decided, goes out. */
  set_rule (f, "plain.test", RULE_ALLOW);
  target = url ("http", "plain.test", f->http_port, "/hello?x=1");
  curl = curl_start ("--proxy", proxy, "-H", "Host: evil.test", target, NULL);
  curl_wait (curl);

  g_assert_cmpint (curl->status, ==, 0);
  g_assert_cmpstr (curl->out, ==, "hello from plain.test/hello");
  host_header = g_strdup_printf ("plain.test:%u", f->http_port);
  g_assert_cmpstr (f->last_host_header, ==, host_header);
  g_assert_cmpuint (hits (f, "evil.test"), ==, 0);
  /* The answer tells the client not to keep the connection. */
  g_assert_nonnull (strstr (curl->err, "< Connection: close"));
  expected = g_strdup_printf ("plain.test %u http", f->http_port);
  g_assert_cmpuint (f->seen->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->seen, 0), ==, expected);
  assert_all_closed (f);
}

static void
test_http_post (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *proxy = http_proxy (f);
  g_autofree char *target = NULL;
  g_autofree char *body_path = g_build_filename (f->dir, "body", NULL);
  g_autofree char *body_arg = g_strconcat ("@", body_path, NULL);
  g_autofree char *body = g_strnfill (300 * 1024, 'x');
  g_autoptr(GError) error = NULL;
  g_autoptr(Curl) curl = NULL;

  if (!have_program ("curl"))
    return;

  /* A body larger than what the proxy reads while the user is asked
   * arrives whole once the answer comes. */
  g_file_set_contents (body_path, body, -1, &error);
  g_assert_no_error (error);
  set_rule (f, "late.test", RULE_LATE);
  target = url ("http", "late.test", f->http_port, "/post");
  curl = curl_start ("--proxy", proxy, "-H", "Expect:", "--data-binary", body_arg, target, NULL);
  curl_wait (curl);

  g_assert_cmpint (curl->status, ==, 0);
  g_assert_cmpstr (curl->out, ==, "got 307200 bytes");
  assert_all_closed (f);
}

static void
test_http_refused (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *proxy = http_proxy (f);
  g_autofree char *target = NULL;
  g_autofree char *message = NULL;
  g_autofree char *body = NULL;
  g_autoptr(Curl) curl = NULL;

  if (!have_program ("curl"))
    return;

  target = url ("http", "evil.test", f->http_port, "/steal");
  curl = curl_start ("--proxy", proxy, "-w", "%{http_code}", target, NULL);
  curl_wait (curl);

  message = refused_message ("evil.test", f->http_port);
  body = g_strdup_printf ("%s\n403", message);
  g_assert_cmpint (curl->status, ==, 0);
  g_assert_cmpstr (curl->out, ==, body);
  g_assert_cmpuint (hits (f, "evil.test"), ==, 0);
  assert_all_closed (f);
}

static void
test_http_keep_alive (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *proxy = http_proxy (f);
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autofree char *message = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(Curl) curl = NULL;

  if (!have_program ("curl"))
    return;

  /* curl would reuse a kept-alive proxy connection for the second URL;
   * the second host is asked about (and refused) all the same. */
  set_rule (f, "a.test", RULE_ALLOW);
  a = url ("http", "a.test", f->http_port, "/one");
  b = url ("http", "b.test", f->http_port, "/two");
  curl = curl_start ("--proxy", proxy, a, b, NULL);
  curl_wait (curl);

  message = refused_message ("b.test", f->http_port);
  expected = g_strdup_printf ("hello from a.test/one%s\n", message);
  g_assert_cmpint (curl->status, ==, 0);
  g_assert_cmpstr (curl->out, ==, expected);
  g_assert_cmpuint (f->seen->len, ==, 2);
  g_assert_cmpuint (hits (f, "a.test"), ==, 1);
  g_assert_cmpuint (hits (f, "b.test"), ==, 0);
  assert_all_closed (f);
}

static void
test_http_keep_alive_raw (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autoptr(GString) reply = NULL;
  const char *answer;

  /* A client that ignores Connection: close and sends its second
   * request, to another host, on the same connection: it is never
   * decided, and reaches neither host. */
  set_rule (f, "a.test", RULE_ALLOW);
  set_rule (f, "b.test", RULE_ALLOW);
  first = g_strdup_printf ("GET http://a.test:%u/one HTTP/1.1\r\nHost: a.test\r\n"
                           "Connection: keep-alive\r\nProxy-Connection: keep-alive\r\n\r\n",
                           f->http_port);
  second = g_strdup_printf ("GET http://b.test:%u/two HTTP/1.1\r\nHost: b.test\r\n\r\n",
                            f->http_port);
  reply = raw_exchange (f, first, strlen (first), second, FALSE);
  answer = reply->str;

  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 200 OK\r\n"));
  g_assert_nonnull (strstr (answer, "\r\nConnection: close\r\n"));
  g_assert_null (strstr (answer, "keep-alive"));
  g_assert_true (g_str_has_suffix (answer, "hello from a.test/one"));
  g_assert_cmpuint (f->seen->len, ==, 1);
  g_assert_cmpuint (hits (f, "a.test"), ==, 1);
  g_assert_cmpuint (hits (f, "b.test"), ==, 0);
  assert_all_closed (f);
}

static void
test_http_piecewise (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *request = NULL;
  g_autoptr(GString) answer = NULL;

  /* A head that comes a byte at a time, its line ends split. */
  set_rule (f, "plain.test", RULE_ALLOW);
  request = g_strdup_printf ("GET http://plain.test:%u/slow HTTP/1.1\r\nAccept: */*\r\n\r\n",
                             f->http_port);
  answer = raw_exchange_full (f, request, strlen (request), NULL, FALSE, TRUE);
  g_assert_true (g_str_has_prefix (answer->str, "HTTP/1.1 200 OK\r\n"));
  g_assert_true (g_str_has_suffix (answer->str, "hello from plain.test/slow"));
  assert_all_closed (f);
}

/* ------------------------------------------------------------------------ */
/* SOCKS5 */

static void
test_socks_allowed (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *proxy = socks_unix (f);
  g_autofree char *target = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(Curl) curl = NULL;

  if (!have_program ("curl"))
    return;

  /* A domain name, straight to the proxy's socket. */
  set_rule (f, "plain.test", RULE_ALLOW);
  target = url ("http", "plain.test", f->http_port, "/socks");
  curl = curl_start ("--proxy", proxy, target, NULL);
  curl_wait (curl);

  g_assert_cmpint (curl->status, ==, 0);
  g_assert_cmpstr (curl->out, ==, "hello from plain.test/socks");
  expected = g_strdup_printf ("plain.test %u socks5", f->http_port);
  g_assert_cmpstr (g_ptr_array_index (f->seen, 0), ==, expected);
  assert_all_closed (f);
}

static void
test_socks_hostname_tcp (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *proxy = g_strdup_printf ("127.0.0.1:%u", f->forward_port);
  g_autofree char *target = NULL;
  g_autoptr(Curl) curl = NULL;

  if (!have_program ("curl") || !have_program ("openssl"))
    return;

  /* --socks5-hostname through the relay's stand-in, TLS inside. */
  set_rule (f, "secure.test", RULE_ALLOW);
  target = url ("https", "secure.test", f->https_port, "/tls");
  curl = curl_start ("--socks5-hostname", proxy, "--cacert", f->ca_path, target, NULL);
  curl_wait (curl);

  g_assert_cmpint (curl->status, ==, 0);
  g_assert_cmpstr (curl->out, ==, "hello from secure.test/tls");
  assert_all_closed (f);
}

static void
test_socks_ipv6 (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *proxy = g_strdup_printf ("socks5://localhost%s", f->socket_path);
  g_autofree char *socks = socks_unix (f);
  g_autofree char *target = NULL;
  g_autofree char *by_name = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(Curl) curl = NULL;
  g_autoptr(Curl) curl2 = NULL;

  if (!have_program ("curl"))
    return;

  /* socks5:// (not socks5h): curl sends the address, IPv6 here. */
  set_rule (f, "::1", RULE_ALLOW);
  target = g_strdup_printf ("http://[::1]:%u/six", f->http_port);
  curl = curl_start ("--proxy", proxy, target, NULL);
  curl_wait (curl);
  g_assert_cmpint (curl->status, ==, 0);
  g_assert_cmpstr (curl->out, ==, "hello from [::1]/six");
  expected = g_strdup_printf ("::1 %u socks5", f->http_port);
  g_assert_cmpstr (g_ptr_array_index (f->seen, 0), ==, expected);

  /* six.test is ::1 in the hosts file. */
  set_rule (f, "six.test", RULE_ALLOW);
  by_name = url ("http", "six.test", f->http_port, "/name");
  curl2 = curl_start ("--proxy", socks, by_name, NULL);
  curl_wait (curl2);
  g_assert_cmpint (curl2->status, ==, 0);
  g_assert_cmpstr (curl2->out, ==, "hello from six.test/name");
}

static void
test_socks_refused (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *proxy = socks_unix (f);
  g_autofree char *target = NULL;
  g_autoptr(Curl) curl = NULL;

  if (!have_program ("curl"))
    return;

  target = url ("http", "evil.test", f->http_port, "/");
  curl = curl_start ("--proxy", proxy, target, NULL);
  curl_wait (curl);

  /* 97: CURLE_PROXY; (2): "connection not allowed by ruleset". */
  g_assert_cmpint (curl->status, ==, 97);
  g_assert_nonnull (strstr (curl->err, "Can't complete SOCKS5 connection to evil.test. (2)"));
  g_assert_cmpuint (hits (f, "evil.test"), ==, 0);
  assert_all_closed (f);
}

static void
test_socks_raw (Fixture       *f,
                gconstpointer  data)
{
  /* Greeting (no auth), then CONNECT to the domain "2130706433" port
   * 80: an address in a name's clothes, asked about as 127.0.0.1. */
  static const guint8 request[] = {
    0x05, 0x01, 0x00,
    0x05, 0x01, 0x00, 0x03, 10, '2', '1', '3', '0', '7', '0', '6', '4', '3', '3', 0x00, 80,
  };
  static const guint8 v6[] = {
    0x05, 0x02, 0x02, 0x00,
    0x05, 0x01, 0x00, 0x04, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x01, 0xbb,
  };
  static const guint8 bind[] = {
    0x05, 0x01, 0x00, 0x05, 0x02, 0x00, 0x01, 127, 0, 0, 1, 0, 80,
  };
  static const guint8 auth_only[] = { 0x05, 0x01, 0x02 };
  static const guint8 refused[] = { 0x05, 0x00, 0x05, 0x02, 0x00, 0x01, 0, 0, 0, 0, 0, 0 };
  static const guint8 not_supported[] = { 0x05, 0x00, 0x05, 0x07, 0x00, 0x01, 0, 0, 0, 0, 0, 0 };
  GString *answer;

  answer = raw_exchange (f, request, sizeof request, NULL, FALSE);
  g_assert_cmpmem (answer->str, answer->len, refused, sizeof refused);
  g_string_free (answer, TRUE);
  g_assert_cmpstr (g_ptr_array_index (f->seen, 0), ==, "127.0.0.1 80 socks5");

  answer = raw_exchange (f, v6, sizeof v6, NULL, FALSE);
  g_assert_cmpmem (answer->str, answer->len, refused, sizeof refused);
  g_string_free (answer, TRUE);
  g_assert_cmpstr (g_ptr_array_index (f->seen, 1), ==, "2001:db8::1 443 socks5");

  /* BIND: "command not supported", not asked. */
  answer = raw_exchange (f, bind, sizeof bind, NULL, FALSE);
  g_assert_cmpmem (answer->str, answer->len, not_supported, sizeof not_supported);
  g_string_free (answer, TRUE);

  /* Only a method the proxy does not offer: "no acceptable methods". */
  answer = raw_exchange (f, auth_only, sizeof auth_only, NULL, FALSE);
  g_assert_cmpmem (answer->str, answer->len, "\x05\xff", 2);
  g_string_free (answer, TRUE);
  g_assert_cmpuint (f->seen->len, ==, 2);
  assert_all_closed (f);
}

/* ------------------------------------------------------------------------ */
/* Waiting */

static void
test_late_answer (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *proxy = http_proxy (f);
  g_autofree char *target = NULL;
  g_autoptr(Curl) curl = NULL;

  if (!have_program ("curl") || !have_program ("openssl"))
    return;

  set_rule (f, "secure.test", RULE_HOLD);
  target = url ("https", "secure.test", f->https_port, "/late");
  curl = curl_start ("--proxy", proxy, "--cacert", f->ca_path, target, NULL);
  run_until_held (f, 1);

  /* The user thinks; the connection waits, nothing out yet. */
  spin (500);
  g_assert_false (curl->done);
  g_assert_cmpuint (hits (f, "secure.test"), ==, 0);
  g_assert_false (warden_net_request_is_closed (g_ptr_array_index (f->held, 0)));

  warden_net_request_answer (g_ptr_array_index (f->held, 0), TRUE, NULL);
  curl_wait (curl);
  g_assert_cmpint (curl->status, ==, 0);
  g_assert_cmpstr (curl->out, ==, "hello from secure.test/late");
  assert_all_closed (f);
}

static void
closed_cb (WardenNetRequest *request,
           gpointer          user_data)
{
  Fixture *f = user_data;

  g_assert_true (warden_net_request_is_closed (request));
  f->closed_calls++;
}

static void
test_client_gone (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *proxy = http_proxy (f);
  g_autofree char *socks = socks_unix (f);
  g_autofree char *target = NULL;
  g_autoptr(Curl) curl = NULL;
  g_autoptr(Curl) curl2 = NULL;
  WardenNetRequest *request;

  if (!have_program ("curl"))
    return;

  /* The client is killed while the user is asked: the question can be
   * withdrawn; a late answer then does nothing. Through the forwarder
   * (HTTP) and straight (SOCKS5). */
  set_rule (f, "held.test", RULE_HOLD);
  target = url ("http", "held.test", f->http_port, "/");
  curl = curl_start ("--proxy", proxy, target, NULL);
  curl2 = curl_start ("--proxy", socks, target, NULL);
  run_until_held (f, 2);
  for (guint i = 0; i < 2; i++)
    warden_net_request_set_closed_func (g_ptr_array_index (f->held, i), closed_cb, f, NULL);

  g_subprocess_force_exit (curl->process);
  g_subprocess_force_exit (curl2->process);
  curl_wait (curl);
  curl_wait (curl2);
  while (f->closed_calls < 2)
    g_main_context_iteration (NULL, TRUE);

  for (guint i = 0; i < 2; i++)
    {
      request = g_ptr_array_index (f->held, i);
      g_assert_true (warden_net_request_is_closed (request));
      warden_net_request_answer (request, TRUE, NULL);
    }
  spin (100);
  g_assert_cmpuint (f->closed_calls, ==, 2);
  g_assert_cmpuint (hits (f, "held.test"), ==, 0);
  assert_all_closed (f);
}

static void
test_free_while_waiting (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *proxy = socks_unix (f);
  g_autofree char *target = NULL;
  g_autoptr(Curl) curl = NULL;

  if (!have_program ("curl"))
    return;

  set_rule (f, "held.test", RULE_HOLD);
  target = url ("http", "held.test", f->http_port, "/");
  curl = curl_start ("--proxy", proxy, target, NULL);
  run_until_held (f, 1);
  warden_net_request_set_closed_func (g_ptr_array_index (f->held, 0), closed_cb, f, NULL);

  g_clear_pointer (&f->proxy, warden_net_proxy_free);
  g_assert_cmpuint (f->closed_calls, ==, 1);
  curl_wait (curl);
  g_assert_cmpint (curl->status, !=, 0);
  g_assert_false (g_file_test (f->socket_path, G_FILE_TEST_EXISTS));
  /* Answering after the proxy is gone does nothing. */
  warden_net_request_answer (g_ptr_array_index (f->held, 0), TRUE, NULL);
}

/* ------------------------------------------------------------------------ */
/* What cannot be reached */

static void
test_unreachable (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *proxy = http_proxy (f);
  g_autofree char *socks = socks_unix (f);
  g_autoptr(GSocket) probe = NULL;
  g_autoptr(GSocketAddress) any = NULL;
  g_autoptr(GSocketAddress) bound = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *closed_url = NULL;
  g_autofree char *expected = NULL;
  guint16 closed_port;
  g_autoptr(Curl) curl = NULL;
  g_autoptr(Curl) curl2 = NULL;
  g_autoptr(Curl) curl3 = NULL;
  g_autoptr(Curl) curl4 = NULL;

  if (!have_program ("curl"))
    return;

  /* A port nobody listens on: bound, never listened. */
  probe = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, 0, &error);
  g_assert_no_error (error);
  any = g_inet_socket_address_new_from_string ("127.0.0.1", 0);
  g_socket_bind (probe, any, FALSE, &error);
  g_assert_no_error (error);
  bound = g_socket_get_local_address (probe, &error);
  closed_port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));

  set_rule (f, "plain.test", RULE_ALLOW);
  set_rule (f, "nowhere.invalid", RULE_ALLOW);
  set_rule (f, "localhost", RULE_ALLOW);
  closed_url = url ("http", "plain.test", closed_port, "/");

  curl = curl_start ("--proxy", proxy, "-w", "%{http_code}", closed_url, NULL);
  curl_wait (curl);
  expected = g_strdup_printf ("Warden: could not connect to plain.test:%u: ", closed_port);
  g_assert_true (g_str_has_prefix (curl->out, expected));
  g_assert_true (g_str_has_suffix (curl->out, "502"));

  /* SOCKS5: 0x05, connection refused. */
  curl2 = curl_start ("--proxy", socks, closed_url, NULL);
  curl_wait (curl2);
  g_assert_cmpint (curl2->status, ==, 97);
  g_assert_nonnull (strstr (curl2->err, "(5)"));

  /* A name nobody knows (a resolver that cannot be reached at all may
   * run into the proxy's time limit instead of failing). */
  curl3 = curl_start ("--proxy", proxy, "-w", "%{http_code}", "http://nowhere.invalid/", NULL);
  curl_wait (curl3);
  g_assert_true (g_str_has_prefix (curl3->out,
                                   "Warden: could not find the address of nowhere.invalid: ")
                 || g_str_has_prefix (curl3->out,
                                      "Warden: could not connect to nowhere.invalid:80: "
                                      "no answer within 30 seconds"));
  g_assert_true (g_str_has_suffix (curl3->out, "502"));

  /* localhost, resolved by the system, leads back into this computer:
   * not followed even when allowed. */
  g_clear_pointer (&closed_url, g_free);
  closed_url = url ("http", "localhost", f->http_port, "/");
  curl4 = curl_start ("--proxy", proxy, "-w", "%{http_code}", closed_url, NULL);
  curl_wait (curl4);
  g_assert_nonnull (strstr (curl4->out, "this computer itself"));
  g_assert_true (g_str_has_suffix (curl4->out, "502"));
  g_assert_cmpuint (hits (f, "localhost"), ==, 0);
  assert_all_closed (f);
}

/* Names that resolve into this computer beyond its loopback (the cloud's
 * metadata service, a link-local address, the host's LAN address and a
 * container bridge's network, from the fake resolver and the fake table of
 * interfaces) are not connected to, though allowed: nothing is sent there.
 * An address allowed by number is another matter (the profile named it). */
static void
test_this_computer (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *proxy = http_proxy (f);
  g_autofree char *socks = socks_unix (f);
  /* link.test first: on a proxy without the rule it fails without a packet
   * leaving (fe80::1 has no interface to go out of). */
  const char *names[] = { "link.test", "metadata.test", "lan.test", "mapped.test",
                          "bridge.test" };

  if (!have_program ("curl"))
    return;

  warden_network_set_interface_addresses (fake_interfaces);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *target = url ("http", names[i], 9, "/");
      g_autoptr(Curl) curl = NULL;
      g_autoptr(Curl) curl2 = NULL;

      g_test_message ("%s", names[i]);
      set_rule (f, names[i], RULE_ALLOW);
      curl = curl_start ("--proxy", proxy, "-w", "%{http_code}", target, NULL);
      curl_wait (curl);
      g_assert_nonnull (strstr (curl->out, "this computer itself"));
      g_assert_true (g_str_has_suffix (curl->out, "502"));

      /* SOCKS5: 0x02, not allowed. */
      curl2 = curl_start ("--proxy", socks, target, NULL);
      curl_wait (curl2);
      g_assert_cmpint (curl2->status, ==, 97);
      g_assert_nonnull (strstr (curl2->err, "(2)"));
    }
  warden_network_set_interface_addresses (NULL);
  assert_all_closed (f);
}

/* ------------------------------------------------------------------------ */
/* Bad input */

typedef struct
{
  const char *name;
  const char *data;
  gsize       len;         /* with the terminating NUL */
  gboolean    half_close;  /* the client says no more after it */
  const char *answer;      /* the answer starts so ("": nothing comes back) */
  gsize       answer_len;  /* with the terminating NUL */
} BadInput;

#define BAD(name, data, half, answer) { name, data, sizeof data, half, answer, sizeof answer }

static void
test_garbage (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(GString) huge = NULL;
  g_autofree char *proxy = http_proxy (f);
  g_autofree char *target = NULL;
  g_autoptr(Curl) curl = NULL;
  GString *big = g_string_new ("GET http://plain.test/ HTTP/1.1\r\n");
  guint8 noise[4096];
  const BadInput inputs[] = {
    BAD ("binary", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", FALSE, ""),
    BAD ("lowercase", "get http://plain.test/ HTTP/1.1\r\n\r\n", FALSE, ""),
    BAD ("origin form", "GET / HTTP/1.1\r\nHost: plain.test\r\n\r\n", FALSE, "HTTP/1.1 400 "),
    BAD ("https absolute", "GET https://plain.test/ HTTP/1.1\r\n\r\n", FALSE, "HTTP/1.1 400 "),
    BAD ("user info", "GET http://u:p@plain.test/ HTTP/1.1\r\n\r\n", FALSE, "HTTP/1.1 400 "),
    BAD ("no port", "CONNECT plain.test HTTP/1.1\r\n\r\n", FALSE, "HTTP/1.1 400 "),
    BAD ("port 0", "CONNECT plain.test:0 HTTP/1.1\r\n\r\n", FALSE, "HTTP/1.1 400 "),
    BAD ("port too big", "CONNECT plain.test:65536 HTTP/1.1\r\n\r\n", FALSE, "HTTP/1.1 400 "),
    BAD ("bad host", "CONNECT pl@in.test:80 HTTP/1.1\r\n\r\n", FALSE, "HTTP/1.1 400 "),
    BAD ("empty label", "CONNECT plain..test:80 HTTP/1.1\r\n\r\n", FALSE, "HTTP/1.1 400 "),
    BAD ("bare v6", "CONNECT ::1:80 HTTP/1.1\r\n\r\n", FALSE, "HTTP/1.1 400 "),
    BAD ("zone id", "CONNECT [fe80::1%25lo]:80 HTTP/1.1\r\n\r\n", FALSE, "HTTP/1.1 400 "),
    BAD ("HTTP/2", "CONNECT plain.test:80 HTTP/2.0\r\n\r\n", FALSE, "HTTP/1.1 400 "),
    BAD ("folded", "GET http://plain.test/ HTTP/1.1\r\nA: b\r\n c\r\n\r\n", FALSE,
         "HTTP/1.1 400 "),
    BAD ("no colon", "GET http://plain.test/ HTTP/1.1\r\nnonsense\r\n\r\n", FALSE,
         "HTTP/1.1 400 "),
    BAD ("nul", "GET http://plain.test/ HTTP/1.1\r\nA: \0\r\n\r\n", FALSE, "HTTP/1.1 400 "),
    BAD ("cut short", "CONNECT plain.te", TRUE, ""),
    BAD ("socks4", "\x04\x01\x00\x50\x7f\x00\x00\x01\x00", FALSE, "\x00\x5b"),
    BAD ("socks5 no methods", "\x05\x00", FALSE, ""),
    BAD ("socks5 cut", "\x05\x01\x00\x05\x01\x00\x03\x20" "abc", TRUE, "\x05\x00"),
    BAD ("socks5 empty name", "\x05\x01\x00\x05\x01\x00\x03\x00\x00\x50", FALSE,
         "\x05\x00\x05\x08"),
    BAD ("socks5 bad type", "\x05\x01\x00\x05\x01\x00\x09\x00\x00\x50", FALSE,
         "\x05\x00\x05\x08"),
    BAD ("socks5 port 0", "\x05\x01\x00\x05\x01\x00\x01\x7f\x00\x00\x01\x00\x00", FALSE,
         "\x05\x00\x05\x08"),
  };

  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
    {
      const BadInput *in = &inputs[i];
      g_autoptr(GString) answer = raw_exchange (f, in->data, in->len - 1, NULL, in->half_close);

      g_test_message ("%s", in->name);
      /* A client that hangs up has left: it may have been answered part
       * of the way, or not at all. */
      if (in->half_close)
        g_assert_cmpmem (answer->str, answer->len,
                         in->answer, MIN (answer->len, in->answer_len - 1));
      else if (in->answer_len == 1)
        g_assert_cmpuint (answer->len, ==, 0);
      else
        g_assert_cmpmem (answer->str, MIN (answer->len, in->answer_len - 1),
                         in->answer, in->answer_len - 1);
    }

  /* A head larger than the limit: 431. */
  while (big->len < 100 * 1024)
    g_string_append (big, "X-Filler: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n");
  huge = raw_exchange (f, big->str, big->len, NULL, FALSE);
  g_string_free (big, TRUE);
  g_assert_true (g_str_has_prefix (huge->str, "HTTP/1.1 431 "));

  /* Noise of every byte, cut anywhere. */
  for (guint round = 0; round < 20; round++)
    {
      g_autoptr(GString) answer = NULL;

      for (gsize i = 0; i < sizeof noise; i++)
        noise[i] = g_random_int_range (0, 256);
      answer = raw_exchange (f, noise, g_random_int_range (1, sizeof noise), NULL, TRUE);
    }

  g_assert_cmpuint (f->seen->len, ==, 0);
  assert_all_closed (f);

  /* And the proxy still works. */
  if (!have_program ("curl"))
    return;
  set_rule (f, "plain.test", RULE_ALLOW);
  target = url ("http", "plain.test", f->http_port, "/after");
  curl = curl_start ("--proxy", proxy, target, NULL);
  curl_wait (curl);
  g_assert_cmpint (curl->status, ==, 0);
  g_assert_cmpstr (curl->out, ==, "hello from plain.test/after");
}

static void
test_socket_mode (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  WardenNetProxy *second;
  GStatBuf st;

  g_assert_cmpint (g_stat (f->socket_path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);

  /* Something there already: not replaced. */
  second = warden_net_proxy_new (f->socket_path, decide, f, NULL, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_assert_null (second);
  g_clear_error (&error);

  /* A hosts file that cannot be read is an error, the old names stay. */
  g_assert_false (warden_net_proxy_set_hosts_file (f->proxy, "/nonexistent/hosts", &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GResolver) resolver = NULL;

  g_test_init (&argc, &argv, NULL);
  resolver = g_object_new (fake_resolver_get_type (), NULL);
  g_resolver_set_default (resolver);

#define ADD(path, func) \
  g_test_add ("/net-proxy/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("connect/allowed", test_connect_allowed);
  ADD ("connect/big", test_connect_big);
  ADD ("connect/refused", test_connect_refused);
  ADD ("connect/dropped", test_connect_dropped);
  ADD ("http/allowed", test_http_allowed);
  ADD ("http/post-late", test_http_post);
  ADD ("http/refused", test_http_refused);
  ADD ("http/keep-alive", test_http_keep_alive);
  ADD ("http/keep-alive-raw", test_http_keep_alive_raw);
  ADD ("http/piecewise", test_http_piecewise);
  ADD ("socks5/allowed", test_socks_allowed);
  ADD ("socks5/hostname-tcp", test_socks_hostname_tcp);
  ADD ("socks5/ipv6", test_socks_ipv6);
  ADD ("socks5/refused", test_socks_refused);
  ADD ("socks5/raw", test_socks_raw);
  ADD ("wait/late-answer", test_late_answer);
  ADD ("wait/client-gone", test_client_gone);
  ADD ("wait/free", test_free_while_waiting);
  ADD ("unreachable", test_unreachable);
  ADD ("this-computer", test_this_computer);
  ADD ("garbage", test_garbage);
  ADD ("socket", test_socket_mode);

  return g_test_run ();
}
