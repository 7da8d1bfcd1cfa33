/* warden-relay.c: the sandbox's one way out, to Warden's network proxy
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   warden-guard --relay PORT PATH -- PROGRAM [ARG…]
 *
 * A sandbox whose profile allows hosts one by one has a network namespace
 * of its own with loopback only: no route out, no resolver. Its programs
 * find the proxy at http://127.0.0.1:PORT (HTTP_PROXY, HTTPS_PROXY,
 * ALL_PROXY): this relay listens there and carries each connection, byte
 * for byte, to Warden's proxy on the unix socket PATH, bind-mounted from
 * the host. The proxy decides host by host, and resolves the names.
 *
 * PROGRAM runs as its child (the command, the exec guard, or the warm
 * runner); the relay ends when it does, with its status, so that whatever
 * waits for PROGRAM sees it as if the relay were not there. The relay itself
 * is neither traced nor asked about: it is Warden's, started before
 * anything of the command.
 */

#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "warden-relay.h"

#define MAX_PAIRS 256
#define BUF_SIZE  (64 * 1024)

/* One direction of a connection: what was read from @from and not yet
 * written to @to. */
typedef struct
{
  int    from;
  int    to;
  char  *buf;
  size_t len;
  size_t off;
  int    eof;      /* @from ended: @to's write side is shut once @buf is out */
  int    done;     /* ended and written out */
} Half;

typedef struct
{
  int  used;
  int  tcp;
  int  unix_fd;
  Half up;        /* program → proxy */
  Half down;      /* proxy → program */
  int  unix_hup;  /* the proxy closed: what it sent is read once there is room */
} Pair;

static Pair pairs[MAX_PAIRS];

static void
pair_close (Pair *p)
{
  close (p->tcp);
  close (p->unix_fd);
  free (p->up.buf);
  free (p->down.buf);
  memset (p, 0, sizeof *p);
}

static int
connect_proxy (const char *path)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  int fd;

  if (strlen (path) >= sizeof addr.sun_path)
    return -1;
  strcpy (addr.sun_path, path);
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  if (connect (fd, (struct sockaddr *) &addr, sizeof addr) != 0)
    {
      close (fd);
      return -1;
    }
  fcntl (fd, F_SETFL, O_NONBLOCK);
  return fd;
}

static void
accept_one (int         listen_fd,
            const char *path)
{
  int tcp = accept4 (listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
  Pair *p = NULL;
  int unix_fd;

  if (tcp < 0)
    return;
  for (unsigned i = 0; i < MAX_PAIRS && p == NULL; i++)
    if (!pairs[i].used)
      p = &pairs[i];
  /* Too many at once, or Warden gone: the program sees a closed connection. */
  if (p == NULL || (unix_fd = connect_proxy (path)) < 0)
    {
      close (tcp);
      return;
    }
  p->used = 1;
  p->tcp = tcp;
  p->unix_fd = unix_fd;
  p->up = (Half) { tcp, unix_fd, malloc (BUF_SIZE), 0, 0, 0, 0 };
  p->down = (Half) { unix_fd, tcp, malloc (BUF_SIZE), 0, 0, 0, 0 };
  if (p->up.buf == NULL || p->down.buf == NULL)
    pair_close (p);
}

/* Moves what it can; returns -1 when the connection is broken. */
static int
half_pump (Half *h)
{
  if (!h->eof && h->len == 0)
    {
      ssize_t n = read (h->from, h->buf, BUF_SIZE);

      if (n > 0)
        {
          h->len = (size_t) n;
          h->off = 0;
        }
      else if (n == 0)
        h->eof = 1;
      else if (errno != EAGAIN && errno != EINTR)
        return -1;
    }
  while (h->len > h->off)
    {
      ssize_t n = write (h->to, h->buf + h->off, h->len - h->off);

      if (n < 0)
        {
          if (errno == EAGAIN || errno == EINTR)
            return 0;
          return -1;
        }
      h->off += (size_t) n;
    }
  h->len = h->off = 0;
  if (h->eof && !h->done)
    {
      shutdown (h->to, SHUT_WR);
      h->done = 1;
    }
  return 0;
}

static short
half_events_from (const Half *h)
{
  return !h->eof && h->len == 0 ? POLLIN : 0;
}

static short
half_events_to (const Half *h)
{
  return h->len > h->off ? POLLOUT : 0;
}

static int
listen_on (int port)
{
  struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
  int one = 1;
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

  if (fd < 0)
    return -1;
  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  /* A relay started after another ended binds at once, past the old one's
   * closing connections. Never SO_REUSEPORT: a program in the sandbox
   * could then bind the port beside the relay and be handed other
   * programs' connections to the proxy (with SO_REUSEADDR alone, Linux
   * refuses a second socket on a port one is listening on). */
  setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind (fd, (struct sockaddr *) &addr, sizeof addr) != 0 || listen (fd, 128) != 0)
    {
      close (fd);
      return -1;
    }
  return fd;
}

/* Ends as @status says: the same exit code, or the same signal. */
static int
end_like (int status)
{
  if (WIFSIGNALED (status))
    {
      int sig = WTERMSIG (status);

      signal (sig, SIG_DFL);
      prctl (PR_SET_DUMPABLE, 0);
      kill (getpid (), sig);
      return 128 + sig;
    }
  return WIFEXITED (status) ? WEXITSTATUS (status) : 125;
}

int
warden_relay_main (int         port,
                   const char *path,
                   char      **program)
{
  sigset_t mask;
  int sfd, listen_fd;
  pid_t child;

  signal (SIGPIPE, SIG_IGN);
  listen_fd = listen_on (port);
  if (listen_fd < 0)
    {
      fprintf (stderr, "warden-guard: the network relay cannot listen on 127.0.0.1:%d: %s\n",
               port, strerror (errno));
      return 125;
    }
  sigemptyset (&mask);
  sigaddset (&mask, SIGCHLD);
  sigprocmask (SIG_BLOCK, &mask, NULL);
  sfd = signalfd (-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0)
    {
      perror ("warden-guard: signalfd");
      return 125;
    }

  child = fork ();
  if (child < 0)
    {
      perror ("warden-guard: fork");
      return 125;
    }
  if (child == 0)
    {
      sigprocmask (SIG_UNBLOCK, &mask, NULL);
      signal (SIGPIPE, SIG_DFL);
      execvp (program[0], program);
      fprintf (stderr, "warden-guard: %s: %s\n", program[0], strerror (errno));
      _exit (errno == ENOENT ? 127 : 126);
    }

  /* The program's input and output are its own: the relay keeps none open,
   * so an output ends when the program's does. */
  {
    int null_fd = open ("/dev/null", O_RDWR | O_CLOEXEC);

    if (null_fd >= 0)
      {
        dup2 (null_fd, 0);
        dup2 (null_fd, 1);
        dup2 (null_fd, 2);
        if (null_fd > 2)
          close (null_fd);
      }
  }

  for (;;)
    {
      struct pollfd fds[2 + 2 * MAX_PAIRS];
      Pair *owner[2 + 2 * MAX_PAIRS];
      nfds_t n = 0;
      int status;

      fds[n] = (struct pollfd) { sfd, POLLIN, 0 };
      owner[n++] = NULL;
      fds[n] = (struct pollfd) { listen_fd, POLLIN, 0 };
      owner[n++] = NULL;
      for (unsigned i = 0; i < MAX_PAIRS; i++)
        {
          Pair *p = &pairs[i];

          if (!p->used)
            continue;
          fds[n] = (struct pollfd) { p->tcp, half_events_from (&p->up) |
                                               half_events_to (&p->down), 0 };
          owner[n++] = p;
          /* A hung-up socket is always ready: not asked about while there
           * is no room to read what is left on it. */
          fds[n] = (struct pollfd) { p->unix_hup && p->down.len > 0 ? -1 : p->unix_fd,
                                     half_events_from (&p->down) | half_events_to (&p->up), 0 };
          owner[n++] = p;
        }
      if (poll (fds, n, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          return 125;
        }
      if (fds[0].revents & POLLIN)
        {
          struct signalfd_siginfo info;

          while (read (sfd, &info, sizeof info) > 0)
            ;
          if (waitpid (child, &status, WNOHANG) == child)
            return end_like (status);
        }
      if (fds[1].revents & POLLIN)
        accept_one (listen_fd, path);
      for (nfds_t i = 2; i < n; i += 2)
        {
          Pair *p = owner[i];

          if (!p->used || (fds[i].revents == 0 && fds[i + 1].revents == 0))
            continue;
          /* The program's side is gone both ways: nothing can reach it. */
          if ((fds[i].revents & (POLLHUP | POLLERR)) || (fds[i + 1].revents & POLLERR))
            {
              pair_close (p);
              continue;
            }
          if (fds[i + 1].revents & POLLHUP)
            p->unix_hup = 1;
          if (half_pump (&p->up) < 0 || half_pump (&p->down) < 0 ||
              (p->up.done && p->down.done))
            pair_close (p);
        }
    }
}
