/* warden-warm-runner.c: commands started by a helper already inside the sandbox
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The exec guard's helper in --serve mode (guard/warden-guard.c) runs in the
 * container for as long as the sandbox lives and starts each command itself:
 * a fork and an exec, about a millisecond, where a Docker exec takes tens.
 * One connection carries every command's output, its end, and the exec
 * guard's questions; a time limit or Stop kills every process of the command
 * the guard follows, wherever it went (a setsid does not take a process out
 * of reach), and its process group.
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-sandbox"
#define _GNU_SOURCE  /* accept4 */

#include <glib/gi18n.h>

#include <errno.h>
#include <gio/gunixinputstream.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "warden-warm-runner.h"

/* A runner must answer a "ping" within this many ticks of RUNNER_TICK_MS,
 * or it counts as stopped (SIGSTOP, a paused container, a runner that hangs):
 * generous, as the suite runs under valgrind on a busy machine. Ticks, not
 * a clock: a main loop that was busy elsewhere has not seen the answer yet. */
#define RUNNER_TICK_MS      1000
#define RUNNER_ANSWER_TICKS 10
/* While commands run, a ping every this many ticks (none for a command
 * that returns before: a round trip costs about a millisecond). */
#define RUNNER_PING_TICKS   2

struct _WardenWarmRunner
{
  int               listen_fd;
  char             *listen_path;
  guint             accept_id;
  int               fd;          /* the runner's connection, or -1 */
  GDataInputStream *in;
  GCancellable     *cancellable;
  GHashTable       *runs;        /* id → GTask (a reference) of each command not returned;
                                  * its data is the WarmRun */
  guint             next_id;
  gboolean          dead;        /* the connection ended */
  GString          *out;         /* lines the runner has not taken yet */
  guint             out_id;      /* waits until it can take more */
  guint             ping_seq;    /* the last "ping N" sent */
  gboolean          ping_waits;  /* its "pong N" has not come yet */
  guint             ticks;       /* since that ping was sent */
  guint             tick_id;
  WardenWarmRunnerStoppedFunc stopped_func;
  gpointer          stopped_data;
};

typedef struct
{
  WardenWarmRunner        *runner;   /* NULL once the runner is gone */
  guint                    id;
  GTask                   *task;     /* not a reference: the task holds us */
  WardenExecWatch         *watch;
  WardenExecGuard         *guard;    /* the watch's */
  gboolean                 exited;
  int                      exit_code;
  gboolean                 eof;
  guint                    wait_pong;  /* returns once the runner answers this ping */
} WarmRun;

static void read_next_line (WardenWarmRunner *self);
static void watch_runner (WardenWarmRunner *self);
static void send_ping (WardenWarmRunner *self);

static gboolean flush_cb (int fd, GIOCondition condition, gpointer user_data);

/* Writes what the runner takes now, and the rest when it can take it:
 * never blocking, as the runner may itself be waiting for us to read its
 * output (a command with a large input while another floods its output). */
static void
flush_out (WardenWarmRunner *self)
{
  gsize done = 0;

  while (self->fd >= 0 && done < self->out->len)
    {
      ssize_t n = send (self->fd, self->out->str + done, self->out->len - done,
                        MSG_DONTWAIT | MSG_NOSIGNAL);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        break;
      if (n <= 0)
        {
          /* The read side sees the end. */
          g_string_truncate (self->out, 0);
          done = 0;
          break;
        }
      done += (gsize) n;
    }
  g_string_erase (self->out, 0, done);
  if (self->out->len > 0 && self->fd >= 0 && self->out_id == 0)
    self->out_id = g_unix_fd_add (self->fd, G_IO_OUT, flush_cb, self);
}

static gboolean
flush_cb (int          fd,
          GIOCondition condition,
          gpointer     user_data)
{
  WardenWarmRunner *self = user_data;

  self->out_id = 0;
  flush_out (self);
  return G_SOURCE_REMOVE;
}

static void
send_line (WardenWarmRunner *self,
           const char       *text)
{
  if (self->fd < 0)
    return;
  g_string_append (self->out, text);
  if (self->out_id == 0)
    flush_out (self);
}

static void
warm_run_free (gpointer data)
{
  WarmRun *run = data;

  warden_exec_watch_free (run->watch);
  g_free (run);
}

/* Done when the command has exited and its output ended (or we stopped
 * waiting for it). */
static void
maybe_done (WarmRun *run)
{
  g_autoptr(GTask) task = NULL;

  if (!run->exited || !run->eof || run->wait_pong != 0 ||
      warden_exec_watch_get_returned (run->watch))
    return;
  task = g_object_ref (run->task);
  if (run->runner != NULL)
    g_hash_table_remove (run->runner->runs, GUINT_TO_POINTER (run->id));
  warden_exec_watch_return (run->watch, run->exit_code, NULL);
}

static gboolean
warm_kill (GTask *task)
{
  WarmRun *run = g_task_get_task_data (task);
  g_autofree char *line = g_strdup_printf ("kill %u\n", run->id);

  if (run->runner == NULL)
    return FALSE;
  send_line (run->runner, line);
  return TRUE;
}

static void
warm_grace_expired (GTask *task)
{
  WarmRun *run = g_task_get_task_data (task);

  /* Something escaped and holds the output: stop waiting for it. */
  if (run->runner != NULL)
    {
      g_autofree char *line = g_strdup_printf ("forget %u\n", run->id);

      send_line (run->runner, line);
    }
  run->eof = TRUE;
  /* Its end was not seen: not a success (a time limit says 128 + 9). */
  if (!run->exited)
    {
      run->exit_code = -1;
      /* It returns once the runner shows it still answers (it took the
       * kill), or fails with the runner. */
      if (run->runner != NULL && !run->runner->dead)
        {
          send_ping (run->runner);
          watch_runner (run->runner);
          run->wait_pong = run->runner->ping_seq;
        }
    }
  run->exited = TRUE;
  maybe_done (run);
}

static const WardenExecWatchFuncs warm_funcs = {
  .kill = warm_kill,
  .grace_expired = warm_grace_expired,
};

/* ------------------------------------------------------------------------ */

static WarmRun *
lookup (WardenWarmRunner *self,
        guint             id)
{
  GTask *task = g_hash_table_lookup (self->runs, GUINT_TO_POINTER (id));

  return task != NULL ? g_task_get_task_data (task) : NULL;
}

/* Every command still out there ends with a copy of @error (taken). */
static void
fail_runs (WardenWarmRunner *self,
           GError           *error)
{
  GHashTableIter iter;
  GTask *task;
  g_autoptr(GPtrArray) orphans = g_ptr_array_new_with_free_func (g_object_unref);

  self->dead = TRUE;
  g_clear_handle_id (&self->tick_id, g_source_remove);
  g_hash_table_iter_init (&iter, self->runs);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &task))
    g_ptr_array_add (orphans, g_object_ref (task));
  g_hash_table_remove_all (self->runs);
  for (guint i = 0; i < orphans->len; i++)
    {
      WarmRun *run = g_task_get_task_data (g_ptr_array_index (orphans, i));

      run->runner = NULL;
      if (!warden_exec_watch_get_returned (run->watch))
        warden_exec_watch_return (run->watch, -1, g_error_copy (error));
    }
  g_error_free (error);
}

/* The connection ended: every command still out there may have run, in
 * part or to the end. */
static void
runner_lost (WardenWarmRunner *self)
{
  fail_runs (self, g_error_new (WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_RESULT_UNKNOWN,
                                _("The helper that ran the command in the sandbox went away "
                                  "while it ran: it may have run in part or to the end. Check "
                                  "its effects before running it again.")));
}

/* The runner took no "ping" for RUNNER_ANSWER_TICKS: stopped, or its
 * container paused. Its commands fail (their outcome is not known: they may
 * have run in part); the connection closes, so that a runner that comes
 * back kills what it started; the sandbox gets a new one. */
static void
runner_stopped (WardenWarmRunner *self)
{
  g_debug ("the warm runner did not answer for %u s", RUNNER_ANSWER_TICKS * RUNNER_TICK_MS / 1000);
  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->out_id, g_source_remove);
  if (self->fd >= 0)
    {
      /* Both ways, whatever else holds the socket (our reads): a runner
       * that comes back reads its end at once. */
      shutdown (self->fd, SHUT_RDWR);
      close (self->fd);
      self->fd = -1;
    }
  if (self->stopped_func != NULL)
    self->stopped_func (self->stopped_data);
  fail_runs (self, g_error_new (WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_FAILED,
                                _("The sandbox’s command runner stopped answering for %u s (it "
                                  "was stopped, or its container paused): the command may have "
                                  "run in part. Warden ended what ran in the container and "
                                  "starts a new runner; check the command’s effects before "
                                  "running it again."),
                                RUNNER_ANSWER_TICKS * RUNNER_TICK_MS / 1000));
}

static void
send_ping (WardenWarmRunner *self)
{
  g_autofree char *line = NULL;

  if (self->ping_waits || self->fd < 0)
    return;
  line = g_strdup_printf ("ping %u\n", ++self->ping_seq);
  self->ping_waits = TRUE;
  self->ticks = 0;
  send_line (self, line);
}

static gboolean
tick_cb (gpointer user_data)
{
  WardenWarmRunner *self = user_data;

  self->ticks++;
  if (self->ping_waits && self->ticks >= RUNNER_ANSWER_TICKS)
    {
      self->tick_id = 0;
      runner_stopped (self);
      return G_SOURCE_REMOVE;
    }
  if (!self->ping_waits && g_hash_table_size (self->runs) == 0)
    {
      self->tick_id = 0;
      return G_SOURCE_REMOVE;
    }
  if (!self->ping_waits && self->ticks >= RUNNER_PING_TICKS)
    send_ping (self);
  return G_SOURCE_CONTINUE;
}

/* A command was sent: while commands run, the runner answers a ping every
 * few seconds. */
static void
watch_runner (WardenWarmRunner *self)
{
  if (self->tick_id != 0)
    return;
  if (!self->ping_waits)
    self->ticks = 0;
  self->tick_id = g_timeout_add (RUNNER_TICK_MS, tick_cb, self);
}

typedef struct
{
  WardenWarmRunner *self;
  guint             id;
  WardenStream      stream;
  char             *data;
  gsize             len;
} OutRead;

static void
out_read_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  OutRead *out = user_data;
  WardenWarmRunner *self = out->self;
  g_autoptr(GError) error = NULL;
  gsize got = 0;

  if (!g_input_stream_read_all_finish (G_INPUT_STREAM (object), result, &got, &error) ||
      got != out->len)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        runner_lost (self);
      g_free (out->data);
      g_free (out);
      return;
    }
  {
    WarmRun *run = lookup (self, out->id);

    if (run != NULL && !warden_exec_watch_get_returned (run->watch))
      warden_exec_watch_output (run->watch, out->stream, out->data, out->len);
  }
  g_free (out->data);
  g_free (out);
  read_next_line (self);
}

static int
exit_code_of (int status)
{
  if (WIFEXITED (status))
    return WEXITSTATUS (status);
  if (WIFSIGNALED (status))
    return 128 + WTERMSIG (status);
  return -1;
}

static void
line_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  WardenWarmRunner *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (object),
                                                                result, NULL, &error);
  guint id, stream, len;
  int status;
  WarmRun *run;

  if (line == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        runner_lost (self);
      return;
    }
  if (sscanf (line, "out %u %u %u", &id, &stream, &len) == 3)
    {
      OutRead *out = g_new0 (OutRead, 1);

      out->self = self;
      out->id = id;
      out->stream = stream == 2 ? WARDEN_STREAM_STDERR : WARDEN_STREAM_STDOUT;
      out->len = len;
      out->data = g_malloc (len + 1);
      g_input_stream_read_all_async (G_INPUT_STREAM (self->in), out->data, len,
                                     G_PRIORITY_DEFAULT, self->cancellable, out_read_cb, out);
      return;
    }
  if (sscanf (line, "exit %u %d", &id, &status) == 2 && (run = lookup (self, id)) != NULL)
    {
      run->exited = TRUE;
      run->exit_code = exit_code_of (status);
      /* Children of the command may keep its output open: a moment. */
      if (!run->eof)
        warden_exec_watch_linger (run->watch);
      maybe_done (run);
    }
  else if (sscanf (line, "pong %u", &id) == 1)
    {
      GHashTableIter iter;
      GTask *task;
      g_autoptr(GPtrArray) answered = g_ptr_array_new_with_free_func (g_object_unref);

      if (id == self->ping_seq && self->ping_waits)
        {
          self->ping_waits = FALSE;
          self->ticks = 0;
        }
      g_hash_table_iter_init (&iter, self->runs);
      while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &task))
        {
          run = g_task_get_task_data (task);
          if (run->wait_pong != 0 && run->wait_pong <= id)
            g_ptr_array_add (answered, g_object_ref (task));
        }
      for (guint i = 0; i < answered->len; i++)
        {
          run = g_task_get_task_data (g_ptr_array_index (answered, i));
          run->wait_pong = 0;
          maybe_done (run);
        }
    }
  else if (sscanf (line, "eof %u", &id) == 1 && (run = lookup (self, id)) != NULL)
    {
      run->eof = TRUE;
      maybe_done (run);
    }
  else if (g_str_has_prefix (line, "exec "))
    {
      guint question = 0, pid;

      /* "exec N PID RUN": the command's own guard asks. */
      if (sscanf (line, "exec %u %u %u", &question, &pid, &id) == 3 &&
          (run = lookup (self, id)) != NULL && run->guard != NULL)
        warden_exec_guard_take_line (run->guard, line);
      else if (question != 0)
        {
          g_autofree char *deny = g_strdup_printf ("deny %u\n", question);

          send_line (self, deny);
        }
    }
  read_next_line (self);
}

static void
read_next_line (WardenWarmRunner *self)
{
  g_data_input_stream_read_line_async (self->in, G_PRIORITY_DEFAULT, self->cancellable, line_cb,
                                       self);
}

static void
stop_listening (WardenWarmRunner *self)
{
  g_clear_handle_id (&self->accept_id, g_source_remove);
  if (self->listen_fd >= 0)
    close (self->listen_fd);
  self->listen_fd = -1;
  if (self->listen_path != NULL)
    g_unlink (self->listen_path);
  g_clear_pointer (&self->listen_path, g_free);
}

static gboolean
accept_cb (int          fd,
           GIOCondition condition,
           gpointer     user_data)
{
  WardenWarmRunner *self = user_data;
  int conn = accept4 (fd, NULL, NULL, SOCK_CLOEXEC);

  if (conn < 0)
    return errno == EAGAIN || errno == EINTR ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
  self->accept_id = 0;
  stop_listening (self);
  self->fd = conn;
  {
    g_autoptr(GInputStream) raw = g_unix_input_stream_new (dup (conn), TRUE);

    self->in = g_data_input_stream_new (raw);
    /* Output is read by length after its line: the buffer never holds a
     * partial line's worth more than it should. */
    g_buffered_input_stream_set_buffer_size (G_BUFFERED_INPUT_STREAM (self->in), 65536);
  }
  read_next_line (self);
  return G_SOURCE_REMOVE;
}

WardenWarmRunner *
warden_warm_runner_new (const char                  *path,
                        WardenWarmRunnerStoppedFunc  stopped_func,
                        gpointer                     stopped_data,
                        GError                     **error)
{
  WardenWarmRunner *self;
  int fd = _warden_guard_listen (path, error);

  if (fd < 0)
    return NULL;
  self = g_new0 (WardenWarmRunner, 1);
  self->listen_fd = fd;
  self->listen_path = g_strdup (path);
  self->fd = -1;
  self->cancellable = g_cancellable_new ();
  self->out = g_string_new (NULL);
  self->runs = g_hash_table_new_full (NULL, NULL, NULL, g_object_unref);
  self->accept_id = g_unix_fd_add (fd, G_IO_IN, accept_cb, self);
  self->stopped_func = stopped_func;
  self->stopped_data = stopped_data;
  return self;
}

gboolean
warden_warm_runner_is_ready (WardenWarmRunner *self)
{
  return self != NULL && self->fd >= 0 && !self->dead;
}

void
warden_warm_runner_free (WardenWarmRunner *self)
{
  if (self == NULL)
    return;
  g_cancellable_cancel (self->cancellable);
  stop_listening (self);
  g_clear_handle_id (&self->out_id, g_source_remove);
  g_clear_handle_id (&self->tick_id, g_source_remove);
  /* The runner reads the end of its connection and kills what it started;
   * commands still out there end as lost. */
  if (self->fd >= 0)
    {
      close (self->fd);
      self->fd = -1;
    }
  runner_lost (self);
  g_clear_object (&self->in);
  g_clear_object (&self->cancellable);
  g_hash_table_unref (self->runs);
  g_string_free (self->out, TRUE);
  g_free (self);
}

/* One field of a "run" line: \, tab, newline and NUL as two characters. */
static void
append_field (GString    *line,
              const char *data,
              gsize       len)
{
  g_string_append_c (line, '\t');
  for (gsize i = 0; i < len; i++)
    switch (data[i])
      {
      case '\\': g_string_append (line, "\\\\"); break;
      case '\t': g_string_append (line, "\\t"); break;
      case '\n': g_string_append (line, "\\n"); break;
      case '\0': g_string_append (line, "\\0"); break;
      default:   g_string_append_c (line, data[i]); break;
      }
}

void
warden_warm_runner_exec_async (WardenWarmRunner        *self,
                               const WardenExecRequest *request,
                               const char              *cwd,
                               const char * const      *env,
                               GCancellable            *cancellable,
                               GAsyncReadyCallback      callback,
                               gpointer                 user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_autoptr(GString) line = g_string_new (NULL);
  WarmRun *run = g_new0 (WarmRun, 1);
  guint n_env = env ? g_strv_length ((char **) env) : 0;

  g_task_set_source_tag (task, warden_warm_runner_exec_async);
  g_task_set_task_data (task, run, warm_run_free);
  run->runner = self;
  run->id = ++self->next_id;
  run->task = task;
  run->watch = warden_exec_watch_new (task, request, cancellable, &warm_funcs);
  if (request->guard_func != NULL)
    {
      run->guard = warden_exec_guard_new_shared (request->guard_func, request->guard_data,
                                                 self->fd);
      /* Through the watch: the time limit stops while a question waits. */
      warden_exec_watch_adopt_guard (run->watch, g_steal_pointer (&run->guard));
      run->guard = warden_exec_watch_peek_guard (run->watch);
    }
  g_hash_table_insert (self->runs, GUINT_TO_POINTER (run->id), g_object_ref (task));

  g_string_printf (line, "run %u %d", run->id, request->guard_func != NULL);
  append_field (line, cwd, strlen (cwd));
  g_string_append_printf (line, "\t%u", n_env);
  for (guint i = 0; i < n_env; i++)
    append_field (line, env[i], strlen (env[i]));
  append_field (line, request->command, strlen (request->command));
  if (request->stdin_data != NULL)
    {
      gsize len;
      const char *data = g_bytes_get_data (request->stdin_data, &len);

      append_field (line, data, len);
    }
  else
    append_field (line, "", 0);
  g_string_append_c (line, '\n');
  warden_exec_watch_start_timer (run->watch);
  send_line (self, line->str);
  watch_runner (self);
}

gboolean
warden_warm_runner_is_gone (WardenWarmRunner *self)
{
  return self->dead;
}

WardenExecResult *
warden_warm_runner_exec_finish (GAsyncResult  *result,
                                GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}
