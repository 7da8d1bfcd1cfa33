/* warden-net-proxy.c: the one way out of a sandbox, host by host
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-sandbox"

/* splice(2), F_SETPIPE_SZ */
#define _GNU_SOURCE 1

#include <glib/gi18n.h>

#include "net/warden-net-proxy.h"

#include "policy/warden-network.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* A request's head (HTTP request line and headers, or a whole SOCKS5
 * handshake) larger than this is refused: nothing legitimate comes close. */
#define HEAD_MAX          (32 * 1024)
/* A server's answer head, likewise. */
#define RESPONSE_HEAD_MAX (64 * 1024)
/* What a client sends after its head, while it waits, is kept up to this
 * much (a POST body, a TLS hello sent early); then it is not read on. */
#define EARLY_MAX         (256 * 1024)
/* The whole head must arrive within this; a slow or silent client is let
 * go. Waiting for the user has no limit. */
#define HEAD_TIMEOUT_S    30
/* Resolving and connecting, every address together. */
#define CONNECT_TIMEOUT_S 30
/* After a refusal, how long the client may take to read it and hang up
 * before the connection is closed under it. */
#define LINGER_TIMEOUT_S  5
/* The kernel pipe each direction's bytes go through starts at the
 * system's size (64 KiB) and grows to this once it carries a bulk
 * transfer: a third of the CPU time per byte in the benchmark. */
#define PIPE_GROWN        (1024 * 1024)
/* What all grown pipes together may add: pipe capacity counts against a
 * per-user limit (pipe-user-pages-soft, 64 MiB), past which every new
 * pipe of the user's session, not only Warden's, gets two pages. */
#define PIPE_BUDGET       (16 * 1024 * 1024)
/* What the client's socket may hold on its way to the client. */
#define CLIENT_SNDBUF     (1024 * 1024)
/* One wake-up moves at most this many pipe loads per direction, so that
 * one busy connection cannot starve the others. */
#define PUMP_ROUNDS       16
/* Beyond this many open connections new ones are closed at once: a
 * sandbox cannot make the host run out of descriptors. */
#define CONNECTIONS_MAX   1024

typedef enum
{
  PROTOCOL_NONE,
  PROTOCOL_CONNECT,
  PROTOCOL_HTTP,
  PROTOCOL_SOCKS5,
} Protocol;

typedef enum
{
  STATE_HEAD,        /* reading what the client wants */
  STATE_WAITING,     /* asked; no answer yet */
  STATE_CONNECTING,  /* allowed: resolving and connecting */
  STATE_SPLICING,    /* bytes both ways */
  STATE_CLOSING,     /* a last answer to the client, then its hang-up */
  STATE_CLOSED,
} State;

/* SOCKS5 reply codes (RFC 1928). */
enum
{
  SOCKS_OK           = 0x00,
  SOCKS_FAILURE      = 0x01,
  SOCKS_NOT_ALLOWED  = 0x02,
  SOCKS_UNREACHABLE  = 0x04,
  SOCKS_REFUSED      = 0x05,
  SOCKS_BAD_COMMAND  = 0x07,
  SOCKS_BAD_ADDRESS  = 0x08,
};

/* One direction of a connection: user-space bytes first (a reply, a
 * rewritten head, what arrived early), then the kernel pipe. */
typedef struct
{
  int         from;          /* -1 until there is a source */
  int         to;
  int         pipe_r;
  int         pipe_w;
  gsize       pipe_size;
  gsize       pipe_extra;    /* taken from the proxy's budget */
  gboolean    grow_failed;
  gsize       in_pipe;
  GByteArray *pending;
  gsize       pending_off;
  gboolean    eof;           /* @from said it sends no more */
  gboolean    shut;          /* and @to was told so */
  gboolean    want_read;
  gboolean    want_write;
  gboolean    head_mode;     /* plain HTTP: the server's answer head is read, to be rewritten */
  GByteArray *head;
} Pump;

typedef struct _Conn Conn;

struct _WardenNetProxy
{
  GMainContext       *context;
  GSocket            *listener;
  GSource            *listen_source;
  char               *socket_path;
  WardenNetDecideFunc decide;
  gpointer            decide_data;
  GDestroyNotify      decide_destroy;
  GHashTable         *hosts;        /* name → GPtrArray of GInetAddress */
  GHashTable         *conns;        /* Conn set */
  GResolver          *resolver;
  gsize               pipe_extra;   /* grown pipes, together */
};

struct _WardenNetRequest
{
  gint                ref_count;
  Conn               *conn;         /* weak: cleared when either goes */
  char               *host;
  guint16             port;
  Protocol            protocol;
  gboolean            answered;
  gboolean            closed;
  WardenNetClosedFunc closed_func;
  gpointer            closed_data;
  GDestroyNotify      closed_destroy;
};

typedef struct
{
  GSource  source;
  Conn    *conn;
} ConnSource;

struct _Conn
{
  gint              ref_count;
  WardenNetProxy   *proxy;
  State             state;
  Protocol          protocol;
  GSocket          *client;
  GSocket          *upstream;
  int               cfd;
  int               ufd;
  GSource          *source;
  gpointer          ctag;
  gpointer          utag;
  GIOCondition      cevents;
  GIOCondition      uevents;
  GByteArray       *in;             /* from the client, not yet used */
  guint             socks_step;     /* 0: greeting, 1: request */
  gsize             head_scanned;   /* of c->in, for the end of an HTTP head */
  char             *host;
  guint16           port;
  gboolean          host_from_file;
  gboolean          host_literal;
  WardenNetRequest *request;        /* weak */
  gboolean          allowed;
  char             *refusal;
  GSource          *answer_source;
  GCancellable     *cancellable;
  GPtrArray        *addresses;      /* GInetAddress to try, in order */
  guint             next_address;
  char             *connect_error;
  guint8            connect_code;   /* SOCKS code for @connect_error */
  GByteArray       *forward_head;   /* plain HTTP: the request as it goes out */
  gboolean          client_gone;    /* hung up both ways: reads nothing more */
  gboolean          upstream_gone;
  Pump              c2u;
  Pump              u2c;
};

static void     conn_close           (Conn       *c);
static void     conn_try_next        (Conn       *c);
static void     conn_refuse          (Conn       *c,
                                      int         status,
                                      guint8      socks_code,
                                      const char *message);
static void     conn_update_events   (Conn       *c);
static void     request_detach       (WardenNetRequest *request);

/* Text */

static char *
format_endpoint (const char *host,
                 guint16     port)
{
  if (strchr (host, ':') != NULL)
    return g_strdup_printf ("[%s]:%u", host, port);
  return g_strdup_printf ("%s:%u", host, port);
}

/* A message as it can stand in a status line: one line of valid UTF-8,
 * not too long. */
static char *
reason_phrase (const char *message)
{
  g_autofree char *valid = g_utf8_make_valid (message, -1);
  GString *s = g_string_new (NULL);

  for (const char *p = valid; *p != '\0'; p++)
    g_string_append_c (s, ((guchar) *p < 0x20 || *p == 0x7f) ? ' ' : *p);
  if (s->len > 400)
    {
      const char *end = g_utf8_find_prev_char (s->str, s->str + 400);

      g_string_truncate (s, end ? (gsize) (end - s->str) : 0);
      g_string_append (s, "…");
    }
  return g_string_free (s, FALSE);
}

static gboolean
is_host_char (char ch)
{
  return g_ascii_isalnum (ch) || ch == '-' || ch == '_' || ch == '.';
}

/* The host as a request and the patterns see it: lowercase, ASCII, no
 * trailing dot, an IP literal in its usual form. NULL when it is no host.
 * @literal is set for an IP literal. */
static char *
normalize_host (const char *raw,
                gsize       len,
                gboolean   *literal)
{
  g_autofree char *copy = NULL;
  g_autofree char *ascii = NULL;
  struct in_addr v4;
  gsize n;

  *literal = FALSE;
  if (len == 0 || len > 512 || memchr (raw, '\0', len) != NULL)
    return NULL;
  copy = g_strndup (raw, len);

  if (strchr (copy, ':') != NULL)
    {
      g_autoptr(GInetAddress) address = NULL;

      /* Zone ids (fe80::1%eth0) name the host's own interfaces: no. */
      if (strchr (copy, '%') != NULL)
        return NULL;
      address = g_inet_address_new_from_string (copy);
      if (address == NULL || g_inet_address_get_family (address) != G_SOCKET_FAMILY_IPV6)
        return NULL;
      *literal = TRUE;
      return g_inet_address_to_string (address);
    }

  if (!g_str_is_ascii (copy))
    {
      ascii = g_hostname_to_ascii (copy);
      if (ascii == NULL)
        return NULL;
    }
  else
    ascii = g_steal_pointer (&copy);

  n = strlen (ascii);
  if (n > 0 && ascii[n - 1] == '.')
    ascii[--n] = '\0';
  if (n == 0 || n > 253)
    return NULL;
  for (gsize i = 0; i < n; i++)
    if (!is_host_char (ascii[i]))
      return NULL;

  /* inet_aton reads what getaddrinfo would (127.1, 0x7f.0.0.1,
   * 2130706433): such a name is an address, shown as one. */
  if (inet_aton (ascii, &v4))
    {
      char text[INET_ADDRSTRLEN];

      *literal = TRUE;
      return g_strdup (inet_ntop (AF_INET, &v4, text, sizeof text));
    }

  for (const char *label = ascii; *label != '\0';)
    {
      const char *dot = strchr (label, '.');
      gsize label_len = dot ? (gsize) (dot - label) : strlen (label);

      if (label_len == 0 || label_len > 63)
        return NULL;
      label += label_len + (dot ? 1 : 0);
      if (dot && *label == '\0')
        return NULL;
    }
  return g_ascii_strdown (ascii, -1);
}

/* Pumps: bytes from one socket to the other */

static void
pump_init (Pump *p)
{
  p->from = p->to = p->pipe_r = p->pipe_w = -1;
  p->pending = g_byte_array_new ();
}

static void
pump_clear (Pump *p)
{
  if (p->pipe_r >= 0)
    close (p->pipe_r);
  if (p->pipe_w >= 0)
    close (p->pipe_w);
  p->pipe_r = p->pipe_w = -1;
  g_clear_pointer (&p->pending, g_byte_array_unref);
  g_clear_pointer (&p->head, g_byte_array_unref);
}

static gboolean
pump_open_pipe (Pump *p)
{
  int fds[2];
  int size;

  if (pipe2 (fds, O_CLOEXEC | O_NONBLOCK) < 0)
    return FALSE;
  size = fcntl (fds[1], F_GETPIPE_SZ);
  p->pipe_size = size > 0 ? (gsize) size : 65536;
  p->pipe_r = fds[0];
  p->pipe_w = fds[1];
  return TRUE;
}

/* Best effort: a pipe that cannot grow works, only slower. */
static void
pump_grow_pipe (WardenNetProxy *proxy,
                Pump           *p)
{
  int size;

  if (p->grow_failed || p->pipe_size >= PIPE_GROWN
      || proxy->pipe_extra + (PIPE_GROWN - p->pipe_size) > PIPE_BUDGET)
    return;
  size = fcntl (p->pipe_w, F_SETPIPE_SZ, PIPE_GROWN);
  if (size <= 0 || (gsize) size <= p->pipe_size)
    {
      p->grow_failed = TRUE;
      return;
    }
  proxy->pipe_extra += size - p->pipe_size;
  p->pipe_extra += size - p->pipe_size;
  p->pipe_size = size;
}

/* While the proxy is there to take its budget back. */
static void
pump_close_pipe (WardenNetProxy *proxy,
                 Pump           *p)
{
  if (p->pipe_r >= 0)
    close (p->pipe_r);
  if (p->pipe_w >= 0)
    close (p->pipe_w);
  p->pipe_r = p->pipe_w = -1;
  proxy->pipe_extra -= p->pipe_extra;
  p->pipe_extra = 0;
}

static gboolean
pump_has_pending (Pump *p)
{
  return p->pending_off < p->pending->len;
}

static void
pump_queue (Pump       *p,
            const void *data,
            gsize       len)
{
  g_byte_array_append (p->pending, data, len);
}

static gboolean
pump_done (Pump *p)
{
  return p->shut;
}

static gboolean http_response_take (Conn *c);

/* Moves what it can without blocking. FALSE: the connection broke. */
static gboolean
pump_run (Conn *c,
          Pump *p)
{
  p->want_read = p->want_write = FALSE;

  for (guint round = 0; round < PUMP_ROUNDS; round++)
    {
      ssize_t n;

      if (pump_has_pending (p))
        {
          n = send (p->to, p->pending->data + p->pending_off,
                    p->pending->len - p->pending_off, MSG_NOSIGNAL | MSG_DONTWAIT);
          if (n < 0 && errno == EINTR)
            continue;
          if (n < 0 && errno == EAGAIN)
            {
              p->want_write = TRUE;
              return TRUE;
            }
          if (n < 0)
            return FALSE;
          p->pending_off += n;
          if (!pump_has_pending (p))
            {
              g_byte_array_set_size (p->pending, 0);
              p->pending_off = 0;
            }
          continue;
        }

      if (p->in_pipe > 0)
        {
          n = splice (p->pipe_r, NULL, p->to, NULL, p->in_pipe,
                      SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
          if (n < 0 && errno == EINTR)
            continue;
          if (n < 0 && errno == EAGAIN)
            {
              p->want_write = TRUE;
              return TRUE;
            }
          if (n <= 0)
            return FALSE;
          p->in_pipe -= n;
          continue;
        }

      if (p->from < 0 || p->shut)
        return TRUE;

      if (p->eof)
        {
          /* Half-closes travel: a client that has sent its request may
           * still read the answer. */
          shutdown (p->to, SHUT_WR);
          p->shut = TRUE;
          return TRUE;
        }

      if (p->head_mode)
        {
          guint8 buffer[16384];

          n = recv (p->from, buffer, sizeof buffer, MSG_DONTWAIT);
          if (n < 0 && errno == EINTR)
            continue;
          if (n < 0 && errno == EAGAIN)
            {
              p->want_read = TRUE;
              return TRUE;
            }
          if (n < 0)
            return FALSE;
          if (n == 0)
            {
              /* An answer cut short: what came is passed on as it is. */
              g_byte_array_append (p->pending, p->head->data, p->head->len);
              g_byte_array_set_size (p->head, 0);
              p->head_mode = FALSE;
              p->eof = TRUE;
              continue;
            }
          g_byte_array_append (p->head, buffer, n);
          if (!http_response_take (c))
            return FALSE;
          continue;
        }

      n = splice (p->from, NULL, p->pipe_w, NULL, PIPE_GROWN,
                  SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && errno == EAGAIN)
        {
          p->want_read = TRUE;
          return TRUE;
        }
      if (n < 0)
        return FALSE;
      if (n == 0)
        p->eof = TRUE;
      else
        p->in_pipe += n;
      if ((gsize) n >= p->pipe_size / 2)
        pump_grow_pipe (c->proxy, p);
    }

  /* Out of rounds with work left: come back when the poll says so, which
   * is at once. */
  if (pump_has_pending (p) || p->in_pipe > 0)
    p->want_write = TRUE;
  else
    p->want_read = TRUE;
  return TRUE;
}

/* Requests */

static WardenNetRequest *
request_new (Conn *c)
{
  WardenNetRequest *request = g_new0 (WardenNetRequest, 1);

  request->ref_count = 1;
  request->conn = c;
  request->host = g_strdup (c->host);
  request->port = c->port;
  request->protocol = c->protocol;
  return request;
}

WardenNetRequest *
warden_net_request_ref (WardenNetRequest *request)
{
  g_return_val_if_fail (request != NULL, NULL);

  g_atomic_int_inc (&request->ref_count);
  return request;
}

static void conn_answer (Conn       *c,
                         gboolean    allowed,
                         const char *message);

void
warden_net_request_unref (WardenNetRequest *request)
{
  g_return_if_fail (request != NULL);

  if (!g_atomic_int_dec_and_test (&request->ref_count))
    return;

  if (request->conn != NULL && !request->answered)
    {
      Conn *c = request->conn;

      request_detach (request);
      conn_answer (c, FALSE, NULL);
    }
  if (request->closed_destroy != NULL)
    request->closed_destroy (request->closed_data);
  g_free (request->host);
  g_free (request);
}

const char *
warden_net_request_get_host (WardenNetRequest *request)
{
  g_return_val_if_fail (request != NULL, NULL);

  return request->host;
}

guint16
warden_net_request_get_port (WardenNetRequest *request)
{
  g_return_val_if_fail (request != NULL, 0);

  return request->port;
}

const char *
warden_net_request_get_protocol (WardenNetRequest *request)
{
  g_return_val_if_fail (request != NULL, NULL);

  switch (request->protocol)
    {
    case PROTOCOL_CONNECT:
      return "connect";
    case PROTOCOL_HTTP:
      return "http";
    case PROTOCOL_SOCKS5:
      return "socks5";
    case PROTOCOL_NONE:
    default:
      g_return_val_if_reached (NULL);
    }
}

gboolean
warden_net_request_is_closed (WardenNetRequest *request)
{
  g_return_val_if_fail (request != NULL, FALSE);

  return request->closed;
}

void
warden_net_request_set_closed_func (WardenNetRequest   *request,
                                    WardenNetClosedFunc func,
                                    gpointer            user_data,
                                    GDestroyNotify      destroy)
{
  GDestroyNotify old_destroy;
  gpointer old_data;

  g_return_if_fail (request != NULL);

  old_destroy = request->closed_destroy;
  old_data = request->closed_data;
  request->closed_func = func;
  request->closed_data = user_data;
  request->closed_destroy = destroy;
  if (old_destroy != NULL)
    old_destroy (old_data);
}

void
warden_net_request_answer (WardenNetRequest *request,
                           gboolean          allowed,
                           const char       *message)
{
  Conn *c;

  g_return_if_fail (request != NULL);
  g_return_if_fail (!request->answered);

  request->answered = TRUE;
  c = request->conn;
  if (c == NULL)
    return;
  request_detach (request);
  conn_answer (c, allowed, message);
}

static void
request_detach (WardenNetRequest *request)
{
  if (request->conn != NULL)
    request->conn->request = NULL;
  request->conn = NULL;
}

/* The client went away before the answer. */
static void
request_close (WardenNetRequest *request)
{
  request_detach (request);
  if (request->answered || request->closed)
    return;
  request->closed = TRUE;
  if (request->closed_func != NULL)
    {
      warden_net_request_ref (request);
      request->closed_func (request, request->closed_data);
      warden_net_request_unref (request);
    }
}

/* Connections */

static Conn *
conn_ref (Conn *c)
{
  c->ref_count++;
  return c;
}

static void
conn_unref (Conn *c)
{
  if (--c->ref_count > 0)
    return;
  g_assert (c->state == STATE_CLOSED);
  pump_clear (&c->c2u);
  pump_clear (&c->u2c);
  g_clear_pointer (&c->in, g_byte_array_unref);
  g_clear_pointer (&c->forward_head, g_byte_array_unref);
  g_clear_pointer (&c->addresses, g_ptr_array_unref);
  g_clear_object (&c->cancellable);
  g_clear_object (&c->client);
  g_clear_object (&c->upstream);
  g_free (c->host);
  g_free (c->refusal);
  g_free (c->connect_error);
  g_free (c);
}

static void
conn_set_deadline (Conn *c,
                   int   seconds)
{
  if (c->source == NULL)
    return;
  g_source_set_ready_time (c->source,
                           seconds < 0 ? -1
                                       : g_get_monotonic_time () + seconds * G_USEC_PER_SEC);
}

static void
conn_close (Conn *c)
{
  if (c->state == STATE_CLOSED)
    return;
  c->state = STATE_CLOSED;

  if (c->request != NULL)
    request_close (c->request);
  g_cancellable_cancel (c->cancellable);
  if (c->answer_source != NULL)
    {
      g_source_destroy (c->answer_source);
      g_clear_pointer (&c->answer_source, g_source_unref);
    }
  if (c->source != NULL)
    {
      ((ConnSource *) c->source)->conn = NULL;
      g_source_destroy (c->source);
      g_clear_pointer (&c->source, g_source_unref);
    }
  c->ctag = c->utag = NULL;
  if (c->client != NULL)
    g_socket_close (c->client, NULL);
  if (c->upstream != NULL)
    g_socket_close (c->upstream, NULL);
  c->cfd = c->ufd = -1;
  pump_close_pipe (c->proxy, &c->c2u);
  pump_close_pipe (c->proxy, &c->u2c);
  /* The set's reference goes last. */
  g_hash_table_remove (c->proxy->conns, c);
}

/* Reads what the client sent into c->in. FALSE: it went away (or broke). */
static gboolean
conn_read_client (Conn *c)
{
  while (c->in->len < EARLY_MAX + HEAD_MAX)
    {
      guint8 buffer[8192];
      ssize_t n = recv (c->cfd, buffer, sizeof buffer, MSG_DONTWAIT);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && errno == EAGAIN)
        return TRUE;
      /* A half-close counts as gone, as for Squid (half_closed_clients
       * off): one that has asked something waits for the answer. */
      if (n <= 0)
        return FALSE;
      g_byte_array_append (c->in, buffer, n);
    }
  return TRUE;
}

static void
conn_queue_client (Conn       *c,
                   const void *data,
                   gsize       len)
{
  pump_queue (&c->u2c, data, len);
}

static void
conn_queue_socks_reply (Conn   *c,
                        guint8  code)
{
  /* The bound address is nobody's business inside the sandbox. */
  const guint8 reply[] = { 0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0 };

  conn_queue_client (c, reply, sizeof reply);
}

/* Ends the connection with @status (HTTP) or @socks_code and @message. */
static void
conn_refuse (Conn       *c,
             int         status,
             guint8      socks_code,
             const char *message)
{
  if (c->state == STATE_CLOSED || c->state == STATE_CLOSING)
    return;

  if (c->protocol == PROTOCOL_SOCKS5)
    {
      if (c->socks_step == 1)
        conn_queue_socks_reply (c, socks_code);
    }
  else if (c->protocol == PROTOCOL_CONNECT || c->protocol == PROTOCOL_HTTP)
    {
      g_autofree char *reason = reason_phrase (message);
      g_autofree char *head = NULL;
      g_autofree char *body = g_strconcat (message, "\n", NULL);

      head = g_strdup_printf ("HTTP/1.1 %d %s\r\n"
                              "Content-Type: text/plain; charset=utf-8\r\n"
                              "Content-Length: %zu\r\n"
                              "Connection: close\r\n"
                              "Proxy-Connection: close\r\n"
                              "\r\n",
                              status, reason, strlen (body));
      conn_queue_client (c, head, strlen (head));
      conn_queue_client (c, body, strlen (body));
    }

  if (c->request != NULL)
    {
      /* Refused before asking (a bad head), or the proxy's end. */
      c->request->answered = TRUE;
      request_detach (c->request);
    }
  g_cancellable_cancel (c->cancellable);
  if (c->upstream != NULL)
    {
      if (c->utag != NULL)
        g_source_remove_unix_fd (c->source, c->utag);
      c->utag = NULL;
      g_socket_close (c->upstream, NULL);
      c->ufd = -1;
    }
  c->u2c.from = -1;
  c->u2c.head_mode = FALSE;
  c->state = STATE_CLOSING;
  conn_set_deadline (c, LINGER_TIMEOUT_S);
}

static void
conn_refuse_bad (Conn       *c,
                 int         status,
                 guint8      socks_code,
                 const char *what)
{
  g_autofree char *message = NULL;

  /* TRANSLATORS: told to a program in the sandbox that spoke to the proxy
   * in a way it does not understand; %s says what was wrong */
  message = g_strdup_printf (_("Warden: the proxy could not read this request: %s"), what);
  conn_refuse (c, status, socks_code, message);
}

/* The head has been read: ask. */
static void
conn_ask (Conn *c)
{
  WardenNetProxy *proxy = c->proxy;
  WardenNetRequest *request;

  c->state = STATE_WAITING;
  conn_set_deadline (c, -1);
  request = request_new (c);
  c->request = request;
  conn_ref (c);
  proxy->decide (request, proxy->decide_data);
  warden_net_request_unref (request);
  conn_unref (c);
}

/* Plain HTTP */

/* The length of the head at the start of @data, terminator included; 0
 * while it is incomplete. Bare LF line ends are read too. The search
 * starts at @from: what an earlier search saw (a client sending its head a
 * byte at a time must not make each byte cost the whole head again). */
static gsize
http_head_length (const guint8 *data,
                  gsize         len,
                  gsize         from)
{
  for (gsize i = from; i + 1 < len; i++)
    {
      if (data[i] != '\n')
        continue;
      if (data[i + 1] == '\n')
        return i + 2;
      if (data[i + 1] == '\r' && i + 2 < len && data[i + 2] == '\n')
        return i + 3;
    }
  return 0;
}

/* The head's lines, without their ends. */
static char **
http_head_lines (const guint8 *data,
                 gsize         head_len)
{
  g_autofree char *text = g_strndup ((const char *) data, head_len);
  char **lines = g_strsplit (text, "\n", -1);
  guint n = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      gsize l = strlen (lines[i]);

      if (l > 0 && lines[i][l - 1] == '\r')
        lines[i][l - 1] = '\0';
      if (lines[i][0] != '\0')
        lines[n++] = lines[i];
      else
        g_free (lines[i]);
    }
  lines[n] = NULL;
  return lines;
}

static gboolean
is_token (const char *s,
          gsize       len)
{
  if (len == 0)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isalnum (s[i]) && strchr ("!#$%&'*+-.^_`|~", s[i]) == NULL)
      return FALSE;
  return TRUE;
}

/* Splits "host:port" or "[v6]:port"; FALSE when it is not that. */
static gboolean
split_authority (const char  *authority,
                 guint16      default_port,
                 char       **host,
                 gsize       *host_len,
                 guint16     *port)
{
  const char *colon;
  const char *end = authority + strlen (authority);
  guint64 value;

  if (authority[0] == '[')
    {
      const char *close = strchr (authority, ']');

      if (close == NULL)
        return FALSE;
      *host = (char *) authority + 1;
      *host_len = close - authority - 1;
      colon = close + 1 < end ? close + 1 : NULL;
      if (colon != NULL && *colon != ':')
        return FALSE;
    }
  else
    {
      colon = strrchr (authority, ':');
      *host = (char *) authority;
      *host_len = colon ? (gsize) (colon - authority) : strlen (authority);
      if (colon != NULL && memchr (authority, ':', colon - authority) != NULL)
        return FALSE;
    }

  if (colon == NULL)
    {
      if (default_port == 0)
        return FALSE;
      *port = default_port;
      return TRUE;
    }
  if (!g_ascii_string_to_unsigned (colon + 1, 10, 1, 65535, &value, NULL))
    return FALSE;
  *port = value;
  return TRUE;
}

static gboolean
conn_set_target (Conn       *c,
                 const char *authority,
                 guint16     default_port)
{
  char *host;
  gsize host_len;
  guint16 port;

  if (!split_authority (authority, default_port, &host, &host_len, &port))
    return FALSE;
  if (authority[0] != '[' && memchr (host, ':', host_len) != NULL)
    return FALSE;
  c->host = normalize_host (host, host_len, &c->host_literal);
  c->port = port;
  return c->host != NULL;
}

/* Hop-by-hop headers: the proxy's own, never passed on. */
static gboolean
is_hop_header (const char *name,
               gsize       len)
{
  static const char *const hop[] = {
    "connection", "proxy-connection", "keep-alive", "proxy-authorization",
    "proxy-authenticate", "upgrade", "host",
  };

  for (guint i = 0; i < G_N_ELEMENTS (hop); i++)
    if (strlen (hop[i]) == len && g_ascii_strncasecmp (name, hop[i], len) == 0)
      return TRUE;
  return FALSE;
}

/* The headers about the connection itself, in an answer: the proxy says
 * its own. */
static gboolean
is_connection_header (const char *name,
                      gsize       len)
{
  static const char *const own[] = { "connection", "proxy-connection", "keep-alive" };

  for (guint i = 0; i < G_N_ELEMENTS (own); i++)
    if (strlen (own[i]) == len && g_ascii_strncasecmp (name, own[i], len) == 0)
      return TRUE;
  return FALSE;
}

/* "GET http://host:port/path HTTP/1.1": the target, and the head as it
 * goes to the host, in origin form, with the Host the URL names (a Host
 * that names another host would reach it behind a shared address). */
static gboolean
conn_parse_http (Conn        *c,
                 char       **lines,
                 const char **what)
{
  g_auto(GStrv) parts = g_strsplit (lines[0], " ", -1);
  const char *target;
  const char *path;
  g_autofree char *authority = NULL;
  g_autofree char *host_header = NULL;
  GString *head;

  if (g_strv_length (parts) != 3 || !is_token (parts[0], strlen (parts[0])))
    {
      *what = _("not an HTTP request line");
      return FALSE;
    }
  if (strcmp (parts[2], "HTTP/1.1") != 0 && strcmp (parts[2], "HTTP/1.0") != 0)
    {
      *what = _("only HTTP/1.0 and HTTP/1.1 are spoken");
      return FALSE;
    }

  if (strcmp (parts[0], "CONNECT") == 0)
    {
      c->protocol = PROTOCOL_CONNECT;
      if (!conn_set_target (c, parts[1], 0))
        {
          *what = _("CONNECT needs a host and a port");
          return FALSE;
        }
      return TRUE;
    }

  target = parts[1];
  if (g_ascii_strncasecmp (target, "https://", 8) == 0)
    {
      *what = _("https:// addresses go through CONNECT (set HTTPS_PROXY)");
      return FALSE;
    }
  if (g_ascii_strncasecmp (target, "http://", 7) != 0)
    {
      *what = _("a proxy request names its host: GET http://host/path");
      return FALSE;
    }
  target += 7;
  path = target + strcspn (target, "/?#");
  authority = g_strndup (target, path - target);
  if (strchr (authority, '@') != NULL)
    {
      *what = _("user names in addresses are not passed on");
      return FALSE;
    }
  if (!conn_set_target (c, authority, 80))
    {
      *what = _("the address names no host");
      return FALSE;
    }

  head = g_string_new (parts[0]);
  g_string_append_c (head, ' ');
  if (*path == '\0' || *path == '#')
    g_string_append_c (head, '/');
  else
    {
      if (*path == '?')
        g_string_append_c (head, '/');
      g_string_append_len (head, path, strcspn (path, "#"));
    }
  g_string_append_printf (head, " %s\r\n", parts[2]);

  host_header = c->port == 80 ? (strchr (c->host, ':') ? g_strdup_printf ("[%s]", c->host)
                                                       : g_strdup (c->host))
                              : format_endpoint (c->host, c->port);
  g_string_append_printf (head, "Host: %s\r\n", host_header);

  for (guint i = 1; lines[i] != NULL; i++)
    {
      const char *line = lines[i];
      const char *colon = strchr (line, ':');

      if (line[0] == ' ' || line[0] == '\t' || colon == NULL || !is_token (line, colon - line))
        {
          g_string_free (head, TRUE);
          *what = _("a header line is malformed");
          return FALSE;
        }
      if (is_hop_header (line, colon - line))
        continue;
      g_string_append (head, line);
      g_string_append (head, "\r\n");
    }
  /* One request per connection: the next one, maybe to another host,
   * comes on a new connection and is asked about. */
  g_string_append (head, "Connection: close\r\n\r\n");

  c->protocol = PROTOCOL_HTTP;
  c->forward_head = g_byte_array_new_take ((guint8 *) head->str, head->len);
  g_string_free (head, FALSE);
  return TRUE;
}

/* The server's answer heads in u2c.head, rewritten to close the
 * connection after them; 1xx heads pass first as they are. FALSE: not an
 * answer. */
static gboolean
http_response_take (Conn *c)
{
  Pump *p = &c->u2c;

  while (p->head_mode)
    {
      gsize head_len = http_head_length (p->head->data, p->head->len, 0);
      g_auto(GStrv) lines = NULL;
      guint status;
      GString *head;

      if (head_len == 0)
        return p->head->len <= RESPONSE_HEAD_MAX;

      if (memchr (p->head->data, '\0', head_len) != NULL)
        return FALSE;
      lines = http_head_lines (p->head->data, head_len);
      if (lines[0] == NULL || !g_str_has_prefix (lines[0], "HTTP/1.")
          || strlen (lines[0]) < 12 || lines[0][8] != ' '
          || !g_ascii_isdigit (lines[0][9]) || !g_ascii_isdigit (lines[0][10])
          || !g_ascii_isdigit (lines[0][11]))
        return FALSE;
      status = (lines[0][9] - '0') * 100 + (lines[0][10] - '0') * 10 + (lines[0][11] - '0');

      if (status < 200 && status != 101)
        {
          pump_queue (p, p->head->data, head_len);
          g_byte_array_remove_range (p->head, 0, head_len);
          continue;
        }

      head = g_string_new (NULL);
      g_string_append_printf (head, "%s\r\n", lines[0]);
      for (guint i = 1; lines[i] != NULL; i++)
        {
          const char *colon = strchr (lines[i], ':');
          gsize name_len = colon ? (gsize) (colon - lines[i]) : strlen (lines[i]);

          if (status != 101 && is_connection_header (lines[i], name_len))
            continue;
          g_string_append_printf (head, "%s\r\n", lines[i]);
        }
      if (status != 101)
        g_string_append (head, "Connection: close\r\n");
      g_string_append (head, "\r\n");
      pump_queue (p, head->str, head->len);
      g_string_free (head, TRUE);
      pump_queue (p, p->head->data + head_len, p->head->len - head_len);
      g_byte_array_set_size (p->head, 0);
      p->head_mode = FALSE;
    }
  return TRUE;
}

/* SOCKS5 */

/* Consumes what it can of c->in. SOCKS5 has room for a reply code only:
 * the reasons here are never shown, so not translated. */
static void
conn_parse_socks (Conn *c)
{
  const guint8 *d = c->in->data;
  gsize len = c->in->len;

  if (c->socks_step == 0)
    {
      gboolean no_auth = FALSE;
      gsize need;

      if (len < 2)
        return;
      need = 2 + d[1];
      if (d[1] == 0)
        {
          conn_refuse_bad (c, 0, 0, "a SOCKS5 greeting offers no method");
          return;
        }
      if (len < need)
        return;
      for (gsize i = 2; i < need; i++)
        no_auth |= d[i] == 0x00;
      if (!no_auth)
        {
          const guint8 none[] = { 0x05, 0xff };

          conn_queue_client (c, none, sizeof none);
          conn_refuse (c, 0, 0, "");
          return;
        }
      {
        const guint8 chosen[] = { 0x05, 0x00 };

        conn_queue_client (c, chosen, sizeof chosen);
      }
      g_byte_array_remove_range (c->in, 0, need);
      c->socks_step = 1;
      d = c->in->data;
      len = c->in->len;
    }

  if (c->socks_step == 1)
    {
      gsize need;
      gsize addr_len;

      if (len < 5)
        return;
      if (d[0] != 0x05)
        {
          conn_refuse_bad (c, 0, SOCKS_FAILURE, "not a SOCKS5 request");
          return;
        }
      if (d[1] != 0x01)
        {
          conn_refuse_bad (c, 0, SOCKS_BAD_COMMAND, "only SOCKS5 CONNECT is offered");
          return;
        }
      switch (d[3])
        {
        case 0x01:
          addr_len = 4;
          need = 4 + 4 + 2;
          break;
        case 0x03:
          addr_len = d[4];
          need = 4 + 1 + addr_len + 2;
          break;
        case 0x04:
          addr_len = 16;
          need = 4 + 16 + 2;
          break;
        default:
          conn_refuse_bad (c, 0, SOCKS_BAD_ADDRESS, "unknown SOCKS5 address type");
          return;
        }
      if (len < need)
        return;

      if (d[3] == 0x03)
        c->host = normalize_host ((const char *) d + 5, addr_len, &c->host_literal);
      else
        {
          g_autoptr(GInetAddress) address =
            g_inet_address_new_from_bytes (d + 4, d[3] == 0x01 ? G_SOCKET_FAMILY_IPV4
                                                                : G_SOCKET_FAMILY_IPV6);

          c->host = g_inet_address_to_string (address);
          c->host_literal = TRUE;
        }
      c->port = (d[need - 2] << 8) | d[need - 1];
      g_byte_array_remove_range (c->in, 0, need);
      if (c->host == NULL || c->port == 0)
        {
          conn_refuse_bad (c, 0, SOCKS_BAD_ADDRESS, "the address names no host");
          return;
        }
      conn_ask (c);
    }
}

/* Reading the head */

static void
conn_parse_head (Conn *c)
{
  if (c->in->len == 0)
    return;

  if (c->protocol == PROTOCOL_NONE)
    {
      guint8 first = c->in->data[0];

      if (first == 0x05)
        c->protocol = PROTOCOL_SOCKS5;
      else if (first >= 'A' && first <= 'Z')
        c->protocol = PROTOCOL_HTTP;
      else if (first == 0x04)
        {
          /* SOCKS4: "request rejected", which clients print. */
          const guint8 rejected[] = { 0x00, 0x5b, 0, 0, 0, 0, 0, 0 };

          conn_queue_client (c, rejected, sizeof rejected);
          conn_refuse (c, 0, 0, "");
          return;
        }
      else
        {
          conn_refuse (c, 0, 0, "");
          return;
        }
    }

  if (c->protocol == PROTOCOL_SOCKS5)
    {
      conn_parse_socks (c);
      return;
    }

  {
    gsize head_len = http_head_length (c->in->data, c->in->len, c->head_scanned);
    g_auto(GStrv) lines = NULL;
    const char *what = NULL;

    if (head_len > HEAD_MAX || (head_len == 0 && c->in->len > HEAD_MAX))
      {
        g_autofree char *message = NULL;

        /* TRANSLATORS: %d is a size in bytes */
        message = g_strdup_printf (_("Warden: the request's head is larger than %d bytes"),
                                   HEAD_MAX);
        conn_refuse (c, 431, 0, message);
        return;
      }
    if (head_len == 0)
      {
        /* A terminator may start in the last two bytes. */
        c->head_scanned = c->in->len >= 2 ? c->in->len - 2 : 0;
        return;
      }

    lines = http_head_lines (c->in->data, head_len);
    if (memchr (c->in->data, '\0', head_len) != NULL || lines[0] == NULL
        || !conn_parse_http (c, lines, &what))
      {
        conn_refuse_bad (c, 400, 0, what ? what : _("not an HTTP request line"));
        return;
      }
    g_byte_array_remove_range (c->in, 0, head_len);
    conn_ask (c);
  }
}

/* Connecting */

static void
conn_fail_connect (Conn *c)
{
  g_autofree char *endpoint = format_endpoint (c->host, c->port);
  g_autofree char *message = NULL;

  /* TRANSLATORS: the first %s is host:port, the second what failed */
  message = g_strdup_printf (_("Warden: could not connect to %s: %s"), endpoint,
                             c->connect_error ? c->connect_error : _("no address to try"));
  conn_refuse (c, 502, c->connect_code ? c->connect_code : SOCKS_UNREACHABLE, message);
}

static void
conn_start_splicing (Conn *c)
{
  if (!pump_open_pipe (&c->c2u) || !pump_open_pipe (&c->u2c))
    {
      g_free (c->connect_error);
      c->connect_error = g_strdup (g_strerror (errno));
      c->connect_code = SOCKS_FAILURE;
      conn_fail_connect (c);
      return;
    }

  switch (c->protocol)
    {
    case PROTOCOL_CONNECT:
      {
        static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";

        conn_queue_client (c, ok, strlen (ok));
      }
      break;
    case PROTOCOL_SOCKS5:
      conn_queue_socks_reply (c, SOCKS_OK);
      break;
    case PROTOCOL_HTTP:
      pump_queue (&c->c2u, c->forward_head->data, c->forward_head->len);
      c->u2c.head_mode = TRUE;
      c->u2c.head = g_byte_array_new ();
      break;
    case PROTOCOL_NONE:
    default:
      g_assert_not_reached ();
    }
  /* What arrived while the client waited goes first. */
  pump_queue (&c->c2u, c->in->data, c->in->len);
  g_byte_array_set_size (c->in, 0);

  /* More queued towards the client per wake-up than the default 208 KiB
   * (in the benchmark, less CPU time per byte). A limit, not an
   * allocation. */
  g_socket_set_option (c->client, SOL_SOCKET, SO_SNDBUF, CLIENT_SNDBUF, NULL);
  c->c2u.from = c->cfd;
  c->c2u.to = c->ufd;
  c->u2c.from = c->ufd;
  c->u2c.to = c->cfd;
  c->state = STATE_SPLICING;
  conn_set_deadline (c, -1);
}

static void
conn_connected (Conn *c)
{
  GError *error = NULL;

  if (!g_socket_check_connect_result (c->upstream, &error))
    {
      g_free (c->connect_error);
      c->connect_error = g_strdup (error->message);
      c->connect_code = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED)
                          ? SOCKS_REFUSED : SOCKS_UNREACHABLE;
      g_error_free (error);
      g_source_remove_unix_fd (c->source, c->utag);
      c->utag = NULL;
      g_socket_close (c->upstream, NULL);
      g_clear_object (&c->upstream);
      c->ufd = -1;
      conn_try_next (c);
      return;
    }
  /* The proxy passes on each read at once; Nagle would only hold small
   * writes back. */
  g_socket_set_option (c->upstream, IPPROTO_TCP, TCP_NODELAY, 1, NULL);
  conn_start_splicing (c);
}

/* This computer, as the profile's rules see it: its interfaces' addresses,
 * the bridges' networks, loopback, unspecified and link-local. */
static gboolean
is_own_address (GInetAddress *address)
{
  g_autofree char *text = g_inet_address_to_string (address);

  return warden_network_is_this_computer (text);
}

static void
conn_try_next (Conn *c)
{
  GError *error = NULL;
  g_autoptr(GSocketAddress) address = NULL;
  GInetAddress *inet;

  if (c->addresses == NULL || c->next_address >= c->addresses->len)
    {
      conn_fail_connect (c);
      return;
    }
  inet = g_ptr_array_index (c->addresses, c->next_address++);

  if (!c->host_literal && !c->host_from_file && is_own_address (inet))
    {
      g_autofree char *text = g_inet_address_to_string (inet);

      g_free (c->connect_error);
      /* TRANSLATORS: %s is an IP address; a name the user allowed turned
       * out to lead back into the user's own computer */
      c->connect_error = g_strdup_printf (_("its name resolves to %s, this computer itself; "
                                            "allow that address by number to reach it"), text);
      c->connect_code = SOCKS_NOT_ALLOWED;
      conn_try_next (c);
      return;
    }

  address = g_inet_socket_address_new (inet, c->port);
  c->upstream = g_socket_new (g_inet_address_get_family (inet), G_SOCKET_TYPE_STREAM,
                              G_SOCKET_PROTOCOL_TCP, &error);
  if (c->upstream == NULL)
    {
      g_free (c->connect_error);
      c->connect_error = g_strdup (error->message);
      c->connect_code = SOCKS_FAILURE;
      g_error_free (error);
      conn_try_next (c);
      return;
    }
  g_socket_set_blocking (c->upstream, FALSE);
  c->ufd = g_socket_get_fd (c->upstream);
  if (!g_socket_connect (c->upstream, address, NULL, &error)
      && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PENDING))
    {
      g_free (c->connect_error);
      c->connect_error = g_strdup (error->message);
      c->connect_code = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED)
                          ? SOCKS_REFUSED : SOCKS_UNREACHABLE;
      g_error_free (error);
      g_socket_close (c->upstream, NULL);
      g_clear_object (&c->upstream);
      c->ufd = -1;
      conn_try_next (c);
      return;
    }
  g_clear_error (&error);
  c->uevents = G_IO_OUT;
  c->utag = g_source_add_unix_fd (c->source, c->ufd, G_IO_OUT);
}

static void
conn_resolved_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Conn *c = user_data;
  GError *error = NULL;
  GList *list = g_resolver_lookup_by_name_finish (G_RESOLVER (object), result, &error);

  if (c->state == STATE_CONNECTING)
    {
      if (list == NULL)
        {
          g_autofree char *message = NULL;

          /* TRANSLATORS: the first %s is a host name, the second why it has no address */
          message = g_strdup_printf (_("Warden: could not find the address of %s: %s"),
                                     c->host, error->message);
          conn_refuse (c, 502, SOCKS_UNREACHABLE, message);
        }
      else
        {
          c->addresses = g_ptr_array_new_with_free_func (g_object_unref);
          for (GList *l = list; l != NULL; l = l->next)
            g_ptr_array_add (c->addresses, g_object_ref (l->data));
          conn_try_next (c);
        }
      if (c->state != STATE_CLOSED)
        conn_update_events (c);
    }
  g_clear_error (&error);
  g_resolver_free_addresses (list);
  conn_unref (c);
}

static void
conn_start_connect (Conn *c)
{
  GPtrArray *listed;

  c->state = STATE_CONNECTING;
  conn_set_deadline (c, CONNECT_TIMEOUT_S);

  if (c->host_literal)
    {
      c->addresses = g_ptr_array_new_with_free_func (g_object_unref);
      g_ptr_array_add (c->addresses, g_inet_address_new_from_string (c->host));
      conn_try_next (c);
      return;
    }

  listed = c->proxy->hosts ? g_hash_table_lookup (c->proxy->hosts, c->host) : NULL;
  if (listed != NULL)
    {
      c->host_from_file = TRUE;
      c->addresses = g_ptr_array_new_with_free_func (g_object_unref);
      for (guint i = 0; i < listed->len; i++)
        g_ptr_array_add (c->addresses, g_object_ref (g_ptr_array_index (listed, i)));
      conn_try_next (c);
      return;
    }

  /* Its answer comes on the thread-default context of the call: the
   * proxy's, whichever thread runs it. */
  c->cancellable = g_cancellable_new ();
  g_main_context_push_thread_default (c->proxy->context);
  g_resolver_lookup_by_name_async (c->proxy->resolver, c->host, c->cancellable,
                                   conn_resolved_cb, conn_ref (c));
  g_main_context_pop_thread_default (c->proxy->context);
}

/* Answers */

static gboolean
conn_answered_cb (gpointer user_data)
{
  Conn *c = user_data;

  g_clear_pointer (&c->answer_source, g_source_unref);
  if (c->state != STATE_WAITING)
    return G_SOURCE_REMOVE;

  conn_ref (c);
  if (c->allowed)
    conn_start_connect (c);
  else
    {
      g_autofree char *endpoint = format_endpoint (c->host, c->port);
      g_autofree char *message = NULL;

      if (c->refusal != NULL && *c->refusal != '\0')
        /* TRANSLATORS: told to a program in the sandbox; the first %s is
         * host:port, the second the reason the user or the profile gave */
        message = g_strdup_printf (_("Warden: the connection to %s was refused: %s"),
                                   endpoint, c->refusal);
      else
        /* TRANSLATORS: told to a program in the sandbox; %s is host:port */
        message = g_strdup_printf (_("Warden: the connection to %s was refused"), endpoint);
      conn_refuse (c, 403, SOCKS_NOT_ALLOWED, message);
    }
  if (c->state != STATE_CLOSED)
    conn_update_events (c);
  conn_unref (c);
  return G_SOURCE_REMOVE;
}

/* Carried on from the main loop rather than from inside the caller's
 * answer, which may come from inside decide. */
static void
conn_answer (Conn       *c,
             gboolean    allowed,
             const char *message)
{
  if (c->state != STATE_WAITING || c->answer_source != NULL)
    return;
  c->allowed = allowed;
  c->refusal = g_strdup (message);
  c->answer_source = g_idle_source_new ();
  g_source_set_priority (c->answer_source, G_PRIORITY_DEFAULT);
  g_source_set_callback (c->answer_source, conn_answered_cb, conn_ref (c),
                         (GDestroyNotify) conn_unref);
  g_source_attach (c->answer_source, c->proxy->context);
}

/* The main loop's side */

static void
set_tag_events (GSource      *source,
                gpointer     *tag,
                int           fd,
                GIOCondition *current,
                GIOCondition  events,
                gboolean      keep)
{
  /* A descriptor polled for nothing still reports a hang-up, at once
   * and again: one that is not waited on is taken out of the poll. */
  if (events == 0 && !keep)
    {
      if (*tag != NULL)
        g_source_remove_unix_fd (source, *tag);
      *tag = NULL;
      return;
    }
  if (*tag == NULL)
    *tag = g_source_add_unix_fd (source, fd, events);
  else if (*current != events)
    g_source_modify_unix_fd (source, *tag, events);
  *current = events;
}

static void
conn_update_events (Conn *c)
{
  GIOCondition cev = 0;
  GIOCondition uev = 0;
  gboolean keep_client = FALSE;
  gboolean keep_upstream = FALSE;

  switch (c->state)
    {
    case STATE_HEAD:
    case STATE_WAITING:
    case STATE_CONNECTING:
      /* Waiting, the client is watched for its hang-up even when what it
       * sent early is not read on. */
      keep_client = TRUE;
      if (c->in->len < EARLY_MAX)
        cev |= G_IO_IN;
      if (pump_has_pending (&c->u2c))
        cev |= G_IO_OUT;
      if (c->state == STATE_CONNECTING && c->upstream != NULL)
        uev |= G_IO_OUT;
      break;
    case STATE_SPLICING:
      /* One that said all is watched for its full hang-up. */
      keep_client = pump_done (&c->c2u);
      keep_upstream = pump_done (&c->u2c);
      if (c->c2u.want_read)
        cev |= G_IO_IN;
      if (c->u2c.want_write)
        cev |= G_IO_OUT;
      if (c->u2c.want_read)
        uev |= G_IO_IN;
      if (c->c2u.want_write)
        uev |= G_IO_OUT;
      break;
    case STATE_CLOSING:
      cev = pump_has_pending (&c->u2c) ? G_IO_OUT : G_IO_IN;
      break;
    case STATE_CLOSED:
    default:
      return;
    }
  set_tag_events (c->source, &c->ctag, c->cfd, &c->cevents, cev, keep_client);
  if (c->ufd >= 0)
    set_tag_events (c->source, &c->utag, c->ufd, &c->uevents, uev, keep_upstream);
}

static void
conn_timed_out (Conn *c)
{
  switch (c->state)
    {
    case STATE_HEAD:
      conn_close (c);
      break;
    case STATE_CONNECTING:
      g_free (c->connect_error);
      /* TRANSLATORS: %d is a number of seconds */
      c->connect_error = g_strdup_printf (_("no answer within %d seconds"), CONNECT_TIMEOUT_S);
      c->connect_code = SOCKS_UNREACHABLE;
      conn_fail_connect (c);
      break;
    case STATE_CLOSING:
    case STATE_WAITING:
    case STATE_SPLICING:
    case STATE_CLOSED:
    default:
      conn_close (c);
      break;
    }
}

static void
conn_step (Conn        *c,
           GIOCondition crev,
           GIOCondition urev)
{
  gint64 ready = g_source_get_ready_time (c->source);

  if (ready >= 0 && g_get_monotonic_time () >= ready)
    {
      conn_timed_out (c);
      return;
    }

  switch (c->state)
    {
    case STATE_HEAD:
    case STATE_WAITING:
    case STATE_CONNECTING:
      /* A full hang-up: nobody is left to answer. */
      if ((crev & (G_IO_HUP | G_IO_ERR))
          || ((crev & G_IO_OUT) && !pump_run (c, &c->u2c))
          || ((crev & G_IO_IN) && !conn_read_client (c)))
        {
          conn_close (c);
          return;
        }
      if (c->state == STATE_HEAD)
        conn_parse_head (c);
      /* The SOCKS method choice, at once rather than a poll later. */
      if ((c->state == STATE_HEAD || c->state == STATE_WAITING) && pump_has_pending (&c->u2c)
          && !pump_run (c, &c->u2c))
        {
          conn_close (c);
          return;
        }
      if (c->state == STATE_CONNECTING && urev != 0 && c->utag != NULL)
        conn_connected (c);
      if (c->state != STATE_CLOSED && c->state != STATE_SPLICING)
        break;
      G_GNUC_FALLTHROUGH;
    case STATE_SPLICING:
      if (c->state != STATE_SPLICING)
        break;
      c->client_gone |= (crev & (G_IO_HUP | G_IO_ERR)) != 0;
      c->upstream_gone |= (urev & (G_IO_HUP | G_IO_ERR)) != 0;
      if (!pump_run (c, &c->c2u) || !pump_run (c, &c->u2c))
        {
          conn_close (c);
          return;
        }
      /* Done when both sides said all, or when one that said all cannot
       * hear any more: servers that wait for the next request do not
       * close on a half-close. A plain-HTTP connection is done with its
       * one answer. */
      if ((pump_done (&c->c2u) && pump_done (&c->u2c))
          || (c->client_gone && pump_done (&c->c2u))
          || (c->upstream_gone && pump_done (&c->u2c))
          || (c->protocol == PROTOCOL_HTTP && pump_done (&c->u2c)))
        {
          conn_close (c);
          return;
        }
      break;
    case STATE_CLOSING:
      break;
    case STATE_CLOSED:
    default:
      return;
    }

  if (c->state == STATE_CLOSING)
    {
      if (!pump_run (c, &c->u2c))
        {
          conn_close (c);
          return;
        }
      if (!pump_has_pending (&c->u2c))
        {
          /* Said; now the client's hang-up, read to its end, so that
           * closing under unread bytes does not reset what was said. */
          if (!c->u2c.shut)
            {
              shutdown (c->cfd, SHUT_WR);
              c->u2c.shut = TRUE;
            }
          for (guint round = 0; round < PUMP_ROUNDS; round++)
            {
              guint8 buffer[4096];
              ssize_t n = recv (c->cfd, buffer, sizeof buffer, MSG_DONTWAIT);

              if (n > 0 || (n < 0 && errno == EINTR))
                continue;
              if (n < 0 && errno == EAGAIN)
                break;
              conn_close (c);
              return;
            }
        }
    }
}

static gboolean
conn_source_dispatch (GSource     *source,
                      GSourceFunc  callback,
                      gpointer     user_data)
{
  Conn *c = ((ConnSource *) source)->conn;
  GIOCondition crev = 0;
  GIOCondition urev = 0;

  if (c == NULL)
    return G_SOURCE_REMOVE;
  if (c->ctag != NULL)
    crev = g_source_query_unix_fd (source, c->ctag);
  if (c->utag != NULL)
    urev = g_source_query_unix_fd (source, c->utag);

  conn_ref (c);
  conn_step (c, crev, urev);
  if (c->state != STATE_CLOSED)
    conn_update_events (c);
  conn_unref (c);
  return G_SOURCE_CONTINUE;
}

static GSourceFuncs conn_source_funcs = {
  .dispatch = conn_source_dispatch,
};

static void
proxy_accept_one (WardenNetProxy *self,
                  GSocket        *client)
{
  Conn *c;

  if (g_hash_table_size (self->conns) >= CONNECTIONS_MAX)
    {
      g_socket_close (client, NULL);
      g_object_unref (client);
      return;
    }

  c = g_new0 (Conn, 1);
  c->ref_count = 1;
  c->proxy = self;
  c->state = STATE_HEAD;
  c->client = client;
  c->cfd = g_socket_get_fd (client);
  c->ufd = -1;
  c->in = g_byte_array_new ();
  pump_init (&c->c2u);
  pump_init (&c->u2c);
  c->u2c.to = c->cfd;
  g_hash_table_add (self->conns, c);

  c->source = g_source_new (&conn_source_funcs, sizeof (ConnSource));
  ((ConnSource *) c->source)->conn = c;
  g_source_set_static_name (c->source, "[warden] net proxy connection");
  g_source_attach (c->source, self->context);
  conn_set_deadline (c, HEAD_TIMEOUT_S);
  conn_update_events (c);
}

static gboolean
proxy_incoming_cb (GSocket      *listener,
                   GIOCondition  condition,
                   gpointer      user_data)
{
  WardenNetProxy *self = user_data;

  /* A few at a time, so that a flood of connections cannot starve the
   * connections already open. */
  for (guint i = 0; i < 32; i++)
    {
      GSocket *client = g_socket_accept (listener, NULL, NULL);

      if (client == NULL)
        break;
      g_socket_set_blocking (client, FALSE);
      proxy_accept_one (self, client);
    }
  return G_SOURCE_CONTINUE;
}

/* The proxy */

static void
conn_set_remove (gpointer data)
{
  conn_unref (data);
}

WardenNetProxy *
warden_net_proxy_new (const char          *socket_path,
                      WardenNetDecideFunc  decide,
                      gpointer             user_data,
                      GDestroyNotify       destroy,
                      GError             **error)
{
  g_autoptr(GSocket) listener = NULL;
  g_autoptr(GSocketAddress) address = NULL;
  WardenNetProxy *self;

  g_return_val_if_fail (socket_path != NULL, NULL);
  g_return_val_if_fail (decide != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_file_test (socket_path, G_FILE_TEST_EXISTS)
      || g_file_test (socket_path, G_FILE_TEST_IS_SYMLINK))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   /* TRANSLATORS: %s is a file path */
                   _("Cannot start the network proxy: %s already exists"), socket_path);
      return NULL;
    }

  listener = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM,
                           G_SOCKET_PROTOCOL_DEFAULT, error);
  if (listener == NULL)
    return NULL;
  address = g_unix_socket_address_new (socket_path);
  if (!g_socket_bind (listener, address, FALSE, error))
    return NULL;
  if (g_chmod (socket_path, 0600) < 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Cannot start the network proxy: %s: %s"), socket_path, g_strerror (saved));
      g_unlink (socket_path);
      return NULL;
    }
  g_socket_set_listen_backlog (listener, 128);
  if (!g_socket_listen (listener, error))
    {
      g_unlink (socket_path);
      return NULL;
    }
  g_socket_set_blocking (listener, FALSE);

  self = g_new0 (WardenNetProxy, 1);
  self->context = g_main_context_ref_thread_default ();
  self->listener = g_steal_pointer (&listener);
  self->socket_path = g_strdup (socket_path);
  self->decide = decide;
  self->decide_data = user_data;
  self->decide_destroy = destroy;
  self->conns = g_hash_table_new_full (NULL, NULL, conn_set_remove, NULL);
  self->resolver = g_resolver_get_default ();

  self->listen_source = g_socket_create_source (self->listener, G_IO_IN, NULL);
  g_source_set_callback (self->listen_source, G_SOURCE_FUNC (proxy_incoming_cb), self, NULL);
  g_source_set_static_name (self->listen_source, "[warden] net proxy");
  g_source_attach (self->listen_source, self->context);
  return self;
}

static void
address_list_free (gpointer data)
{
  g_ptr_array_unref (data);
}

gboolean
warden_net_proxy_set_hosts_file (WardenNetProxy *self,
                                 const char     *path,
                                 GError        **error)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  GHashTable *hosts;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (path == NULL)
    {
      g_clear_pointer (&self->hosts, g_hash_table_unref);
      return TRUE;
    }
  if (!g_file_get_contents (path, &contents, NULL, error))
    return FALSE;

  hosts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, address_list_free);
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = NULL;
      g_autoptr(GInetAddress) address = NULL;
      char *hash = strchr (lines[i], '#');

      if (hash != NULL)
        *hash = '\0';
      g_strdelimit (lines[i], "\t\r", ' ');
      fields = g_strsplit (lines[i], " ", -1);
      address = NULL;
      for (guint j = 0; fields[j] != NULL; j++)
        {
          GPtrArray *list;
          g_autofree char *name = NULL;
          gboolean literal;

          if (fields[j][0] == '\0')
            continue;
          if (address == NULL)
            {
              address = g_inet_address_new_from_string (fields[j]);
              if (address == NULL)
                break;
              continue;
            }
          name = normalize_host (fields[j], strlen (fields[j]), &literal);
          if (name == NULL || literal)
            continue;
          list = g_hash_table_lookup (hosts, name);
          if (list == NULL)
            {
              list = g_ptr_array_new_with_free_func (g_object_unref);
              g_hash_table_insert (hosts, g_steal_pointer (&name), list);
            }
          g_ptr_array_add (list, g_object_ref (address));
        }
    }

  g_clear_pointer (&self->hosts, g_hash_table_unref);
  self->hosts = hosts;
  return TRUE;
}

guint
warden_net_proxy_get_n_connections (WardenNetProxy *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return g_hash_table_size (self->conns);
}

void
warden_net_proxy_free (WardenNetProxy *self)
{
  GHashTableIter iter;
  gpointer key;
  g_autoptr(GPtrArray) conns = g_ptr_array_new ();

  if (self == NULL)
    return;

  g_source_destroy (self->listen_source);
  g_source_unref (self->listen_source);
  g_socket_close (self->listener, NULL);
  g_object_unref (self->listener);
  g_unlink (self->socket_path);

  /* Closing one runs its request's closed function, which may do
   * anything but free the proxy; each is held meanwhile. */
  g_hash_table_iter_init (&iter, self->conns);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (conns, conn_ref (key));
  for (guint i = 0; i < conns->len; i++)
    {
      Conn *c = g_ptr_array_index (conns, i);

      conn_close (c);
      conn_unref (c);
    }

  /* Every grown pipe gave its growth back. */
  g_warn_if_fail (self->pipe_extra == 0);
  g_hash_table_unref (self->conns);
  g_clear_pointer (&self->hosts, g_hash_table_unref);
  g_object_unref (self->resolver);
  if (self->decide_destroy != NULL)
    self->decide_destroy (self->decide_data);
  g_main_context_unref (self->context);
  g_free (self->socket_path);
  g_free (self);
}
