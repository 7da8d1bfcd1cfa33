/* warden-ssh-bridge.c: a container engine on another machine, through ssh
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-sandbox"

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "engine/warden-ssh-bridge.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include <gio/gunixsocketaddress.h>

/* The docker CLI's own timeout for ssh; without one, a host that drops
 * packets would hold a request for minutes. */
#define CONNECT_TIMEOUT   "ConnectTimeout=30"
/* How often the forwarded socket is looked for while ssh logs in. */
#define TUNNEL_POLL_MS    20
/* ssh says why a forwarded connection failed on its stderr, a pipe of its
 * own: how long a connection that ended empty waits for those words. */
#define REASON_WAIT_MS    500
#define MAX_LINE          1024
/* dial-stdio: how soon a master connection that ended may start again. */
#define MASTER_RETRY_US   (10 * G_USEC_PER_SEC)
/* dial-stdio: ssh logins kept ready, so that a new connection does not
 * wait for one (each costs a login and the docker CLI starting there). */
#define SPARES            2

struct _WardenSshBridge
{
  GObject             parent_instance;

  char               *uri;
  char               *host;
  char               *user;           /* NULL: ssh's choice */
  int                 port;           /* 0: ssh's choice */
  char               *remote_socket;  /* NULL: docker system dial-stdio */
  GStrv               command;        /* "ssh" or WARDEN_SSH_COMMAND */
  char               *identity;       /* CONTAINER_SSHKEY, for CONTAINER_HOST */

  char               *dir;            /* 0700, ours */
  char               *path;           /* where clients connect */
  GSocketConnectable *connectable;
  GSocketService     *service;
  GCancellable       *cancellable;
  GPtrArray          *links;          /* the Link of each connection */
  GQueue              spares;         /* Links of ssh ready, without a client yet */
  char               *failure;

  /* Without: one ssh logged in, whose connection the others share. */
  GSubprocess        *master;
  char               *control_path;
  gint64              master_started;

  /* With a remote socket: the one ssh that forwards it. */
  GSubprocess        *tunnel;
  char               *tunnel_path;
  gboolean            tunnel_ready;
  guint               tunnel_poll;
  GPtrArray          *tunnel_waiting; /* Links waiting for it */
  char               *tunnel_said;    /* its latest line on stderr */
  guint               tunnel_lines;   /* how many it wrote */
};

G_DEFINE_FINAL_TYPE (WardenSshBridge, warden_ssh_bridge, G_TYPE_OBJECT)

/* One connection of a client, carried to the engine. */
typedef struct
{
  gint                ref_count;
  WardenSshBridge    *bridge;         /* NULL once the bridge is gone */
  GCancellable       *cancellable;
  GSocketConnection  *downstream;     /* the client's */
  GIOStream          *upstream;       /* ssh's stdio, or the forwarded socket */
  GSubprocess        *ssh;            /* dial-stdio: this connection's own */
  GDataInputStream   *err;
  char               *said;           /* ssh's latest line on stderr */
  int                 exit_status;    /* -1 until known */
  gboolean            exited;
  gboolean            err_done;
  gboolean            down_done;
  gssize              down_bytes;
  guint               lines_at_start; /* of the tunnel's stderr */
  guint               reason_wait;
  guint               reason_tries;
  gboolean            judged;         /* the failure is set already */
  gboolean            finished;
} Link;

static Link *
link_ref (Link *link)
{
  g_atomic_int_inc (&link->ref_count);
  return link;
}

static void
link_unref (Link *link)
{
  if (!g_atomic_int_dec_and_test (&link->ref_count))
    return;
  g_clear_handle_id (&link->reason_wait, g_source_remove);
  g_clear_object (&link->cancellable);
  g_clear_object (&link->downstream);
  g_clear_object (&link->upstream);
  g_clear_object (&link->ssh);
  g_clear_object (&link->err);
  g_free (link->said);
  g_free (link);
}

static void
close_stream (GIOStream *stream)
{
  if (stream != NULL && !g_io_stream_is_closed (stream))
    g_io_stream_close (stream, NULL, NULL);
}

/* The end of one direction: the other side reads EOF, the other direction
 * goes on (the exec's input ends, its output still comes). */
static void
half_close (GIOStream *stream)
{
  if (G_IS_SOCKET_CONNECTION (stream))
    g_socket_shutdown (g_socket_connection_get_socket (G_SOCKET_CONNECTION (stream)),
                       FALSE, TRUE, NULL);
  else
    g_output_stream_close (g_io_stream_get_output_stream (stream), NULL, NULL);
}

/* ------------------------------------------------------------------------ */
/* Messages */

/* "ssh -p 2222 me@host", as the user would type it to try. */
static char *
describe_login (WardenSshBridge *self)
{
  GString *s = g_string_new ("ssh");

  if (self->port > 0)
    g_string_append_printf (s, " -p %d", self->port);
  g_string_append_c (s, ' ');
  if (self->user != NULL)
    g_string_append_printf (s, "%s@", self->user);
  g_string_append (s, self->host);
  return g_string_free (s, FALSE);
}

static char *
describe_failure (WardenSshBridge *self,
                  const char      *said,
                  int              exit_status)
{
  g_autofree char *login = describe_login (self);

  if (said == NULL)
    return g_strdup_printf (_("ssh ended with status %d and said nothing: check that “%s” "
                              "works in a terminal"),
                            exit_status, login);

  /* The shell on the other side did not find the command. */
  if (exit_status == 127 || strstr (said, "command not found") != NULL)
    return g_strdup_printf (_("ssh says “%s”: install Docker’s command line tool (docker) on %s, "
                              "or name the engine’s socket there in the address "
                              "(%s/run/podman/podman.sock for Podman)"),
                            said, self->host, self->uri);

  /* A forwarded socket that is not there, or that nothing listens on. */
  if (self->remote_socket != NULL && strstr (said, "open failed") != NULL)
    return g_strdup_printf (_("ssh says “%s”: check that the engine listens on %s on %s "
                              "(for Podman: systemctl --user enable --now podman.socket)"),
                            said, self->remote_socket, self->host);

  return g_strdup_printf (_("ssh says “%s”: check that “%s” works in a terminal without a "
                            "question: the host known in ~/.ssh/known_hosts, your key in the "
                            "ssh agent (ssh-add) or named in ~/.ssh/config"),
                          said, login);
}

static void
set_failure (WardenSshBridge *self,
             char            *failure)
{
  g_free (self->failure);
  self->failure = failure;
}

/* ------------------------------------------------------------------------ */
/* Running ssh */

static GPtrArray *
ssh_argv (WardenSshBridge *self)
{
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; self->command[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (self->command[i]));
  /* No terminal to answer in: a question would wait forever. */
  g_ptr_array_add (argv, g_strdup ("-T"));
  g_ptr_array_add (argv, g_strdup ("-o"));
  g_ptr_array_add (argv, g_strdup ("BatchMode=yes"));
  g_ptr_array_add (argv, g_strdup ("-o"));
  g_ptr_array_add (argv, g_strdup (CONNECT_TIMEOUT));
  if (self->user != NULL)
    {
      g_ptr_array_add (argv, g_strdup ("-l"));
      g_ptr_array_add (argv, g_strdup (self->user));
    }
  if (self->port > 0)
    {
      g_ptr_array_add (argv, g_strdup ("-p"));
      g_ptr_array_add (argv, g_strdup_printf ("%d", self->port));
    }
  if (self->identity != NULL)
    {
      g_ptr_array_add (argv, g_strdup ("-i"));
      g_ptr_array_add (argv, g_strdup (self->identity));
    }
  return argv;
}

/* In the child: Warden gone, its ssh go too, the shared login above all,
 * which would otherwise stay logged in with nobody to use it. */
static void
die_with_warden (gpointer user_data)
{
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

static GSubprocess *
spawn_ssh (WardenSshBridge  *self,
           GPtrArray        *argv,
           GSubprocessFlags  flags,
           GError          **error)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (flags);
  g_autoptr(GError) local_error = NULL;
  GSubprocess *ssh;

  g_subprocess_launcher_set_child_setup (launcher, die_with_warden, NULL, NULL);
  g_ptr_array_add (argv, NULL);
  {
    g_autofree char *line = g_strjoinv (" ", (char **) argv->pdata);

    g_debug ("Running %s", line);
  }
  ssh = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata,
                                      &local_error);
  if (ssh == NULL)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                 _("Could not run %s to reach the engine at %s (%s): install OpenSSH’s client "
                   "(openssh-client), or set WARDEN_SSH_COMMAND to your ssh"),
                 self->command[0], self->uri, local_error->message);
  return ssh;
}

/* A line of ssh's stderr as a message can hold it: valid, trimmed, short. */
static char *
clean_line (char  *line,
            gsize  length)
{
  g_autofree char *valid = g_utf8_make_valid (line, length);
  const char *end;

  g_free (line);
  g_strstrip (valid);
  if (strlen (valid) > MAX_LINE)
    {
      valid[MAX_LINE] = '\0';
      g_utf8_validate (valid, -1, &end);
      valid[end - valid] = '\0';
    }
  return g_steal_pointer (&valid);
}

/* ------------------------------------------------------------------------ */
/* One connection */

static void
link_finish (Link *link)
{
  WardenSshBridge *self = link->bridge;

  if (link->finished)
    return;
  link->finished = TRUE;
  link_ref (link);

  if (self != NULL && !link->judged)
    {
      gboolean failed;
      const char *said;

      if (link->ssh != NULL)
        {
          /* 255 is ssh's own failure, at any time; another status after
           * the engine answered is the end of a connection, not news. */
          failed = link->exit_status != 0 &&
                   (link->down_bytes == 0 || link->exit_status == 255);
          said = link->said;
        }
      else
        {
          /* The forward: a connection that ssh closed at once, and said why. */
          failed = link->down_bytes == 0 &&
                   (self->tunnel_lines > link->lines_at_start || self->tunnel == NULL);
          said = self->tunnel_said;
        }

      if (failed)
        {
          set_failure (self, describe_failure (self, said, link->exit_status));
          g_debug ("ssh to %s failed: %s", self->uri, self->failure);
        }
      else if (link->down_bytes > 0)
        g_clear_pointer (&self->failure, g_free);
    }
  if (self != NULL)
    {
      g_queue_remove (&self->spares, link);
      g_ptr_array_remove (self->links, link);
    }

  /* Only now does the client read EOF: the failure is known by then. */
  close_stream (G_IO_STREAM (link->downstream));
  close_stream (link->upstream);
  g_cancellable_cancel (link->cancellable);
  link_unref (link);
}

static void
link_check (Link *link)
{
  /* A spare that ended before a client came: a failure, told to the next
   * client, as its own ssh would fail alike. */
  if (link->downstream == NULL)
    {
      if (link->exited && link->err_done)
        link_finish (link);
      return;
    }
  if (!link->down_done)
    return;
  if (link->ssh != NULL && !(link->exited && link->err_done))
    return;
  link_finish (link);
}

static gboolean
reason_wait_cb (gpointer user_data)
{
  Link *link = user_data;
  WardenSshBridge *self = link->bridge;

  if (self != NULL && self->tunnel_lines <= link->lines_at_start &&
      self->tunnel != NULL && ++link->reason_tries < REASON_WAIT_MS / TUNNEL_POLL_MS)
    return G_SOURCE_CONTINUE;
  link->reason_wait = 0;
  link_finish (link);
  return G_SOURCE_REMOVE;
}

static void
down_spliced_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Link *link = user_data;
  g_autoptr(GError) error = NULL;

  link->down_bytes = g_output_stream_splice_finish (G_OUTPUT_STREAM (object), result, &error);
  if (link->down_bytes < 0)
    {
      /* The client went away: ssh gets EOF and ends. */
      g_debug ("ssh bridge: to the client: %s", error->message);
      link->down_bytes = 0;
      if (link->ssh != NULL)
        close_stream (link->upstream);
    }
  link->down_done = TRUE;

  if (link->ssh == NULL && link->down_bytes == 0 && link->bridge != NULL && !link->finished)
    link->reason_wait = g_timeout_add (TUNNEL_POLL_MS, reason_wait_cb, link_ref (link));
  else
    link_check (link);
  link_unref (link);
}

static void
up_spliced_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  Link *link = user_data;
  g_autoptr(GError) error = NULL;

  if (g_output_stream_splice_finish (G_OUTPUT_STREAM (object), result, &error) < 0)
    g_debug ("ssh bridge: to the engine: %s", error->message);
  else if (!g_io_stream_is_closed (link->upstream))
    half_close (link->upstream);
  link_unref (link);
}

static void
link_splice (Link *link)
{
  g_output_stream_splice_async (g_io_stream_get_output_stream (link->upstream),
                                g_io_stream_get_input_stream (G_IO_STREAM (link->downstream)),
                                G_OUTPUT_STREAM_SPLICE_NONE, G_PRIORITY_DEFAULT,
                                link->cancellable, up_spliced_cb, link_ref (link));
  g_output_stream_splice_async (g_io_stream_get_output_stream (G_IO_STREAM (link->downstream)),
                                g_io_stream_get_input_stream (link->upstream),
                                G_OUTPUT_STREAM_SPLICE_NONE, G_PRIORITY_DEFAULT,
                                link->cancellable, down_spliced_cb, link_ref (link));
}

static void
link_err_line_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Link *link = user_data;
  g_autofree char *line = NULL;
  gsize length;

  line = g_data_input_stream_read_line_finish (link->err, result, &length, NULL);
  if (line == NULL)
    {
      link->err_done = TRUE;
      link_check (link);
      link_unref (link);
      return;
    }
  line = clean_line (line, length);
  if (line[0] != '\0')
    {
      g_debug ("ssh to %s: %s", link->bridge ? link->bridge->uri : "?", line);
      g_free (link->said);
      link->said = g_steal_pointer (&line);
    }
  g_data_input_stream_read_line_async (link->err, G_PRIORITY_DEFAULT, link->cancellable,
                                       link_err_line_cb, link);
}

static void
link_exited_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Link *link = user_data;
  GSubprocess *ssh = G_SUBPROCESS (object);

  if (g_subprocess_wait_finish (ssh, result, NULL))
    {
      link->exited = TRUE;
      link->exit_status = g_subprocess_get_if_exited (ssh) ? g_subprocess_get_exit_status (ssh)
                                                           : 255;
    }
  else
    link->exited = TRUE;
  link_check (link);
  link_unref (link);
}

typedef struct
{
  GWeakRef     self;
  GSubprocess *master;
} MasterWatch;

static void
master_exited_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  MasterWatch *watch = user_data;
  g_autoptr(WardenSshBridge) self = g_weak_ref_get (&watch->self);

  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  if (self != NULL && self->master == watch->master)
    {
      g_debug ("ssh master connection to %s ended", self->uri);
      g_clear_object (&self->master);
    }
  g_weak_ref_clear (&watch->self);
  g_object_unref (watch->master);
  g_free (watch);
}

/* One login that later ssh runs share (OpenSSH's connection sharing): each
 * connection then costs a channel and the docker CLI starting, not a login.
 * Until it is there, and if it fails, they log in on their own and say why
 * themselves. */
static void
master_ensure (WardenSshBridge *self)
{
  g_autoptr(GPtrArray) argv = NULL;
  MasterWatch *watch;

  if (self->master != NULL || self->failure != NULL ||
      (self->master_started != 0 &&
       g_get_monotonic_time () - self->master_started < MASTER_RETRY_US))
    return;

  argv = ssh_argv (self);
  g_ptr_array_add (argv, g_strdup ("-n"));
  g_ptr_array_add (argv, g_strdup ("-N"));
  g_ptr_array_add (argv, g_strdup ("-o"));
  g_ptr_array_add (argv, g_strdup ("ControlMaster=yes"));
  g_ptr_array_add (argv, g_strdup ("-o"));
  g_ptr_array_add (argv, g_strdup ("ControlPersist=no"));
  g_ptr_array_add (argv, g_strdup ("-S"));
  g_ptr_array_add (argv, g_strdup (self->control_path));
  g_ptr_array_add (argv, g_strdup ("--"));
  g_ptr_array_add (argv, g_strdup (self->host));

  self->master_started = g_get_monotonic_time ();
  self->master = spawn_ssh (self, argv, G_SUBPROCESS_FLAGS_STDERR_SILENCE, NULL);
  if (self->master == NULL)
    return;
  watch = g_new0 (MasterWatch, 1);
  g_weak_ref_init (&watch->self, self);
  watch->master = g_object_ref (self->master);
  g_subprocess_wait_async (self->master, NULL, master_exited_cb, watch);
}

/* Without a remote socket: this connection's own ssh, its stdio carrying
 * the bytes. */
static void
link_start_dial_stdio (WardenSshBridge *self,
                       Link            *link)
{
  g_autoptr(GPtrArray) argv = ssh_argv (self);
  g_autoptr(GError) error = NULL;

  master_ensure (self);
  g_ptr_array_add (argv, g_strdup ("-o"));
  g_ptr_array_add (argv, g_strdup ("ControlMaster=no"));
  g_ptr_array_add (argv, g_strdup ("-S"));
  g_ptr_array_add (argv, g_strdup (self->control_path));
  g_ptr_array_add (argv, g_strdup ("--"));
  g_ptr_array_add (argv, g_strdup (self->host));
  g_ptr_array_add (argv, g_strdup ("docker"));
  g_ptr_array_add (argv, g_strdup ("system"));
  g_ptr_array_add (argv, g_strdup ("dial-stdio"));

  link->ssh = spawn_ssh (self, argv,
                         G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                         G_SUBPROCESS_FLAGS_STDERR_PIPE,
                         &error);
  if (link->ssh == NULL)
    {
      set_failure (self, g_strdup (error->message));
      link->judged = TRUE;
      link_finish (link);
      return;
    }
  g_debug ("ssh to %s started", self->uri);

  link->upstream = g_simple_io_stream_new (g_subprocess_get_stdout_pipe (link->ssh),
                                           g_subprocess_get_stdin_pipe (link->ssh));
  link->err = g_data_input_stream_new (g_subprocess_get_stderr_pipe (link->ssh));
  g_data_input_stream_read_line_async (link->err, G_PRIORITY_DEFAULT, link->cancellable,
                                       link_err_line_cb, link_ref (link));
  g_subprocess_wait_async (link->ssh, NULL, link_exited_cb, link_ref (link));
}

/* ------------------------------------------------------------------------ */
/* With a remote socket: one ssh forwards it for every connection. */

static void tunnel_fail_waiting (WardenSshBridge *self);

static void
tunnel_connected_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  Link *link = user_data;
  g_autoptr(GError) error = NULL;
  GSocketConnection *connection;

  connection = g_socket_client_connect_finish (G_SOCKET_CLIENT (object), result, &error);
  if (connection == NULL)
    {
      if (link->bridge != NULL)
        set_failure (link->bridge, describe_failure (link->bridge, error->message, -1));
      link->judged = TRUE;
      link_finish (link);
      link_unref (link);
      return;
    }
  link->upstream = G_IO_STREAM (connection);
  link_splice (link);
  link_unref (link);
}

static void
link_connect_tunnel (WardenSshBridge *self,
                     Link            *link)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketAddress) address = g_unix_socket_address_new (self->tunnel_path);

  link->lines_at_start = self->tunnel_lines;
  g_socket_client_connect_async (client, G_SOCKET_CONNECTABLE (address), link->cancellable,
                                 tunnel_connected_cb, link_ref (link));
}

static gboolean
is_socket (const char *path)
{
  GStatBuf st;

  return g_stat (path, &st) == 0 && S_ISSOCK (st.st_mode);
}

static gboolean
tunnel_poll_cb (gpointer user_data)
{
  WardenSshBridge *self = user_data;

  if (!is_socket (self->tunnel_path))
    return G_SOURCE_CONTINUE;

  self->tunnel_poll = 0;
  self->tunnel_ready = TRUE;
  while (self->tunnel_waiting->len > 0)
    {
      Link *link = g_ptr_array_steal_index (self->tunnel_waiting, 0);

      link_connect_tunnel (self, link);
      link_unref (link);
    }
  return G_SOURCE_REMOVE;
}

typedef struct
{
  GWeakRef          self;
  GSubprocess      *tunnel;
  GDataInputStream *err;
  gboolean          exited;
  gboolean          err_done;
} TunnelWatch;

static void
tunnel_watch_check (TunnelWatch *watch)
{
  g_autoptr(WardenSshBridge) self = NULL;

  if (!watch->exited || !watch->err_done)
    return;

  /* This ssh is over; the next connection starts another. */
  self = g_weak_ref_get (&watch->self);
  if (self != NULL && self->tunnel == watch->tunnel)
    {
      g_debug ("ssh forwarding %s ended", self->uri);
      g_clear_handle_id (&self->tunnel_poll, g_source_remove);
      g_clear_object (&self->tunnel);
      self->tunnel_ready = FALSE;
      if (self->tunnel_waiting->len > 0)
        {
          int status = g_subprocess_get_if_exited (watch->tunnel)
                       ? g_subprocess_get_exit_status (watch->tunnel) : 255;

          set_failure (self, describe_failure (self, self->tunnel_said, status));
          tunnel_fail_waiting (self);
        }
    }
  g_object_unref (watch->tunnel);
  g_object_unref (watch->err);
  g_weak_ref_clear (&watch->self);
  g_free (watch);
}

static void
tunnel_err_line_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  TunnelWatch *watch = user_data;
  g_autoptr(WardenSshBridge) self = g_weak_ref_get (&watch->self);
  g_autofree char *line = NULL;
  gsize length;

  line = g_data_input_stream_read_line_finish (watch->err, result, &length, NULL);
  if (line == NULL)
    {
      watch->err_done = TRUE;
      tunnel_watch_check (watch);
      return;
    }
  line = clean_line (line, length);
  if (line[0] != '\0' && self != NULL && self->tunnel == watch->tunnel)
    {
      g_debug ("ssh forwarding %s: %s", self->uri, line);
      g_free (self->tunnel_said);
      self->tunnel_said = g_steal_pointer (&line);
      self->tunnel_lines++;
    }
  g_data_input_stream_read_line_async (watch->err, G_PRIORITY_DEFAULT, NULL,
                                       tunnel_err_line_cb, watch);
}

static void
tunnel_exited_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  TunnelWatch *watch = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  watch->exited = TRUE;
  tunnel_watch_check (watch);
}

static void
tunnel_fail_waiting (WardenSshBridge *self)
{
  while (self->tunnel_waiting->len > 0)
    {
      Link *link = g_ptr_array_steal_index (self->tunnel_waiting, 0);

      link->judged = TRUE;
      link_finish (link);
      link_unref (link);
    }
}

static void
tunnel_start (WardenSshBridge *self)
{
  g_autoptr(GPtrArray) argv = ssh_argv (self);
  g_autoptr(GError) error = NULL;
  TunnelWatch *watch;

  g_unlink (self->tunnel_path);
  g_clear_pointer (&self->tunnel_said, g_free);
  /* -n -N: no command, no input; the forward is all. */
  g_ptr_array_add (argv, g_strdup ("-n"));
  g_ptr_array_add (argv, g_strdup ("-N"));
  g_ptr_array_add (argv, g_strdup ("-o"));
  g_ptr_array_add (argv, g_strdup ("ExitOnForwardFailure=yes"));
  g_ptr_array_add (argv, g_strdup ("-L"));
  g_ptr_array_add (argv, g_strdup_printf ("%s:%s", self->tunnel_path, self->remote_socket));
  g_ptr_array_add (argv, g_strdup ("--"));
  g_ptr_array_add (argv, g_strdup (self->host));

  self->tunnel = spawn_ssh (self, argv, G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  if (self->tunnel == NULL)
    {
      set_failure (self, g_strdup (error->message));
      tunnel_fail_waiting (self);
      return;
    }

  watch = g_new0 (TunnelWatch, 1);
  g_weak_ref_init (&watch->self, self);
  watch->tunnel = g_object_ref (self->tunnel);
  watch->err = g_data_input_stream_new (g_subprocess_get_stderr_pipe (self->tunnel));
  g_data_input_stream_read_line_async (watch->err, G_PRIORITY_DEFAULT, NULL,
                                       tunnel_err_line_cb, watch);
  g_subprocess_wait_async (self->tunnel, NULL, tunnel_exited_cb, watch);
  self->tunnel_poll = g_timeout_add (TUNNEL_POLL_MS, tunnel_poll_cb, self);
}

static void
link_start_tunnel (WardenSshBridge *self,
                   Link            *link)
{
  if (self->tunnel_ready)
    {
      link_connect_tunnel (self, link);
      return;
    }
  g_ptr_array_add (self->tunnel_waiting, link_ref (link));
  if (self->tunnel == NULL)
    tunnel_start (self);
}

/* ------------------------------------------------------------------------ */

static Link *
link_new (WardenSshBridge *self)
{
  Link *link = g_new0 (Link, 1);

  link->ref_count = 1;
  link->bridge = self;
  link->cancellable = g_cancellable_new ();
  link->exit_status = -1;
  g_ptr_array_add (self->links, link);   /* owns the first reference */
  return link;
}

static gboolean is_socket (const char *path);

/* Once the shared login is there, so that a spare costs a channel and not
 * a login of its own competing with the client's; not while ssh fails. */
static void
spares_fill (WardenSshBridge *self)
{
  if (!is_socket (self->control_path))
    return;
  while (self->spares.length < SPARES && self->failure == NULL)
    {
      Link *link = link_new (self);

      g_queue_push_tail (&self->spares, link);
      link_start_dial_stdio (self, link);
    }
}

static gboolean
incoming_cb (GSocketService    *service,
             GSocketConnection *connection,
             GObject           *source_object,
             gpointer           user_data)
{
  WardenSshBridge *self = user_data;
  Link *link;

  if (self->remote_socket != NULL)
    {
      link = link_new (self);
      link->downstream = g_object_ref (connection);
      link_start_tunnel (self, link);
      return TRUE;
    }

  link = g_queue_pop_head (&self->spares);
  if (link == NULL)
    {
      link = link_new (self);
      link_start_dial_stdio (self, link);
    }
  if (!link->finished)
    {
      link->downstream = g_object_ref (connection);
      link_splice (link);
    }
  spares_fill (self);
  return TRUE;
}

static void
link_detach (gpointer data)
{
  Link *link = data;

  link->bridge = NULL;
  if (!link->finished)
    {
      link->finished = TRUE;
      close_stream (G_IO_STREAM (link->downstream));
      close_stream (link->upstream);
      g_cancellable_cancel (link->cancellable);
      if (link->ssh != NULL)
        g_subprocess_send_signal (link->ssh, SIGTERM);
    }
  link_unref (link);
}

static void
warden_ssh_bridge_dispose (GObject *object)
{
  WardenSshBridge *self = WARDEN_SSH_BRIDGE (object);

  if (self->service != NULL)
    {
      g_socket_service_stop (self->service);
      g_socket_listener_close (G_SOCKET_LISTENER (self->service));
      g_clear_object (&self->service);
    }
  g_clear_handle_id (&self->tunnel_poll, g_source_remove);
  if (self->tunnel_waiting != NULL)
    tunnel_fail_waiting (self);
  g_queue_clear (&self->spares);
  g_clear_pointer (&self->links, g_ptr_array_unref);
  g_clear_pointer (&self->tunnel_waiting, g_ptr_array_unref);
  if (self->tunnel != NULL)
    {
      g_subprocess_send_signal (self->tunnel, SIGTERM);
      g_clear_object (&self->tunnel);
    }
  if (self->master != NULL)
    {
      g_subprocess_send_signal (self->master, SIGTERM);
      g_clear_object (&self->master);
    }
  g_clear_object (&self->connectable);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (warden_ssh_bridge_parent_class)->dispose (object);
}

static void
warden_ssh_bridge_finalize (GObject *object)
{
  WardenSshBridge *self = WARDEN_SSH_BRIDGE (object);

  if (self->path != NULL)
    g_unlink (self->path);
  if (self->tunnel_path != NULL)
    g_unlink (self->tunnel_path);
  if (self->control_path != NULL)
    g_unlink (self->control_path);
  if (self->dir != NULL)
    g_rmdir (self->dir);
  g_free (self->uri);
  g_free (self->host);
  g_free (self->user);
  g_free (self->remote_socket);
  g_strfreev (self->command);
  g_free (self->identity);
  g_free (self->dir);
  g_free (self->path);
  g_free (self->failure);
  g_free (self->tunnel_path);
  g_free (self->tunnel_said);
  g_free (self->control_path);

  G_OBJECT_CLASS (warden_ssh_bridge_parent_class)->finalize (object);
}

static void
warden_ssh_bridge_class_init (WardenSshBridgeClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = warden_ssh_bridge_dispose;
  object_class->finalize = warden_ssh_bridge_finalize;
}

static void
warden_ssh_bridge_init (WardenSshBridge *self)
{
  self->links = g_ptr_array_new_with_free_func (link_detach);
  g_queue_init (&self->spares);
  self->tunnel_waiting = g_ptr_array_new ();
}

static gboolean
parse_uri (WardenSshBridge  *self,
           const char       *uri,
           GError          **error)
{
  g_autoptr(GUri) parsed = g_uri_parse (uri, G_URI_FLAGS_NONE, NULL);
  const char *host = NULL;
  const char *user = NULL;
  const char *path = NULL;

  if (parsed != NULL)
    {
      host = g_uri_get_host (parsed);
      user = g_uri_get_userinfo (parsed);
      path = g_uri_get_path (parsed);
    }
  if (parsed == NULL || g_strcmp0 (g_uri_get_scheme (parsed), "ssh") != 0 ||
      host == NULL || host[0] == '\0' || host[0] == '-' ||
      (user != NULL && (user[0] == '\0' || user[0] == '-' || strchr (user, ':') != NULL)) ||
      g_uri_get_query (parsed) != NULL || g_uri_get_fragment (parsed) != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("“%s” is not an ssh address: write ssh://[USER@]HOST[:PORT], or "
                     "ssh://[USER@]HOST[:PORT]/PATH/TO/ENGINE.sock for the engine’s socket "
                     "there (no password: ssh asks your agent)"),
                   uri);
      return FALSE;
    }

  self->host = g_strdup (host);
  self->user = g_strdup (user);
  self->port = MAX (g_uri_get_port (parsed), 0);
  if (path != NULL && path[0] != '\0' && strcmp (path, "/") != 0)
    self->remote_socket = g_strdup (path);
  self->uri = g_strdup (uri);
  if (self->remote_socket == NULL && g_str_has_suffix (self->uri, "/"))
    self->uri[strlen (self->uri) - 1] = '\0';
  return TRUE;
}

WardenSshBridge *
warden_ssh_bridge_new (const char  *uri,
                       GError     **error)
{
  g_autoptr(WardenSshBridge) self = g_object_new (WARDEN_TYPE_SSH_BRIDGE, NULL);
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *base = NULL;
  const char *command = g_getenv ("WARDEN_SSH_COMMAND");

  g_return_val_if_fail (uri != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!parse_uri (self, uri, error))
    return NULL;

  /* An ssh that ended makes a write to its input fail: an error to handle,
   * not the end of Warden. */
  {
    struct sigaction action;

    if (sigaction (SIGPIPE, NULL, &action) == 0 && action.sa_handler == SIG_DFL)
      signal (SIGPIPE, SIG_IGN);
  }

  if (command != NULL && command[0] != '\0')
    {
      if (!g_shell_parse_argv (command, NULL, &self->command, &local_error))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       _("WARDEN_SSH_COMMAND “%s” is not a command line (%s): set it to ssh "
                         "and its options, such as “ssh -F ~/.ssh/build_config”"),
                       command, local_error->message);
          return NULL;
        }
    }
  else
    self->command = g_strdupv ((char *[]) { "ssh", NULL });

  /* Podman's key for the engine CONTAINER_HOST names, as Podman takes it. */
  if (g_strcmp0 (uri, g_getenv ("CONTAINER_HOST")) == 0 &&
      g_getenv ("CONTAINER_SSHKEY") != NULL && g_getenv ("CONTAINER_SSHKEY")[0] != '\0')
    self->identity = g_strdup (g_getenv ("CONTAINER_SSHKEY"));

  /* Only this user may connect: whoever can, commands the engine. */
  base = g_build_filename (g_get_user_runtime_dir (), "warden-ssh-XXXXXX", NULL);
  self->dir = g_mkdtemp_full (g_steal_pointer (&base), 0700);
  if (self->dir == NULL)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Could not make a private folder in %s for the connection to %s: %s"),
                   g_get_user_runtime_dir (), uri, g_strerror (saved));
      return NULL;
    }
  self->path = g_build_filename (self->dir, "engine.sock", NULL);
  self->tunnel_path = g_build_filename (self->dir, "forward.sock", NULL);
  self->control_path = g_build_filename (self->dir, "master.sock", NULL);

  address = g_unix_socket_address_new (self->path);
  self->service = g_socket_service_new ();
  if (!g_socket_listener_add_address (G_SOCKET_LISTENER (self->service), address,
                                      G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT,
                                      NULL, NULL, &local_error))
    {
      g_set_error (error, local_error->domain, local_error->code,
                   _("Could not listen on %s for the connection to %s: %s"),
                   self->path, uri, local_error->message);
      return NULL;
    }
  g_signal_connect_object (self->service, "incoming", G_CALLBACK (incoming_cb), self, 0);
  g_socket_service_start (self->service);
  self->connectable = G_SOCKET_CONNECTABLE (g_object_ref (address));

  return g_steal_pointer (&self);
}

const char *
warden_ssh_bridge_get_uri (WardenSshBridge *self)
{
  g_return_val_if_fail (WARDEN_IS_SSH_BRIDGE (self), NULL);

  return self->uri;
}

GSocketConnectable *
warden_ssh_bridge_get_connectable (WardenSshBridge *self)
{
  g_return_val_if_fail (WARDEN_IS_SSH_BRIDGE (self), NULL);

  return self->connectable;
}

char *
warden_ssh_bridge_dup_failure (WardenSshBridge *self)
{
  g_return_val_if_fail (WARDEN_IS_SSH_BRIDGE (self), NULL);

  return g_strdup (self->failure);
}
