/* warden-exec-watch.c: the time limit, cancellation and end of a running command
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-sandbox"

#include <glib/gi18n.h>

#include "warden-sandbox-private.h"

#include "warden-output-collector.h"

/* How long a killed command may keep its output open before we stop waiting. */
#define KILL_GRACE_MS 1500

struct _WardenExecWatch
{
  GTask                      *task;            /* not a reference: the task holds us */
  const WardenExecRequest    *request;         /* kept alive by the caller's task */
  const WardenExecWatchFuncs *funcs;
  WardenOutputCollector      *out;
  WardenOutputCollector      *err;
  GCancellable               *io_cancellable;  /* ours: ends the reads at the very end */
  GCancellable               *cancellable;     /* the caller's */
  gulong                      cancelled_id;
  GSource                    *timeout_source;
  GSource                    *grace_source;
  gint64                      start;
  gboolean                    timed_out;
  gboolean                    cancelled;
  gboolean                    killed;
  gboolean                    returned;
};

/* What a timer or the cancellable's handler holds: the task, alive until
 * it is gone, and the watch in the task's data. */
typedef struct
{
  GTask           *task;
  WardenExecWatch *watch;
} Hold;

static Hold *
hold_new (WardenExecWatch *watch)
{
  Hold *hold = g_new0 (Hold, 1);

  hold->task = g_object_ref (watch->task);
  hold->watch = watch;
  return hold;
}

static void
hold_free (gpointer data)
{
  Hold *hold = data;

  g_object_unref (hold->task);
  g_free (hold);
}

/* Drops what holds the task: the timers and the cancellable's handler. */
static void
watch_release (WardenExecWatch *watch)
{
  if (watch->timeout_source)
    {
      g_source_destroy (watch->timeout_source);
      g_clear_pointer (&watch->timeout_source, g_source_unref);
    }
  if (watch->grace_source)
    {
      g_source_destroy (watch->grace_source);
      g_clear_pointer (&watch->grace_source, g_source_unref);
    }
  if (watch->cancelled_id)
    {
      g_cancellable_disconnect (watch->cancellable, watch->cancelled_id);
      watch->cancelled_id = 0;
    }
}

static gboolean
cancelled_idle_cb (gpointer user_data)
{
  WardenExecWatch *watch = ((Hold *) user_data)->watch;

  /* The handler may have been queued just before the command returned. */
  if (watch->returned)
    return G_SOURCE_REMOVE;
  watch->cancelled = TRUE;
  warden_exec_watch_kill (watch);
  return G_SOURCE_REMOVE;
}

static void
cancelled_cb (GCancellable *cancellable,
              gpointer      user_data)
{
  Hold *hold = user_data;

  /* May run in another thread: kill from the task's context. */
  g_main_context_invoke_full (g_task_get_context (hold->task), G_PRIORITY_DEFAULT,
                              cancelled_idle_cb, hold_new (hold->watch), hold_free);
}

WardenExecWatch *
warden_exec_watch_new (GTask                      *task,
                       const WardenExecRequest    *request,
                       GCancellable               *cancellable,
                       const WardenExecWatchFuncs *funcs)
{
  WardenExecWatch *watch = g_new0 (WardenExecWatch, 1);

  watch->task = task;
  watch->request = request;
  watch->funcs = funcs;
  watch->out = warden_output_collector_new (request->max_output);
  watch->err = warden_output_collector_new (request->max_output);
  watch->io_cancellable = g_cancellable_new ();
  watch->start = g_get_monotonic_time ();
  if (cancellable != NULL)
    {
      watch->cancellable = g_object_ref (cancellable);
      watch->cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (cancelled_cb),
                                                   hold_new (watch), hold_free);
    }
  return watch;
}

void
warden_exec_watch_free (WardenExecWatch *watch)
{
  if (watch == NULL)
    return;
  watch_release (watch);
  g_clear_object (&watch->cancellable);
  g_clear_object (&watch->io_cancellable);
  warden_output_collector_free (watch->out);
  warden_output_collector_free (watch->err);
  g_free (watch);
}

static gboolean
timeout_cb (gpointer user_data)
{
  WardenExecWatch *watch = ((Hold *) user_data)->watch;

  g_clear_pointer (&watch->timeout_source, g_source_unref);
  watch->timed_out = TRUE;
  warden_exec_watch_kill (watch);
  return G_SOURCE_REMOVE;
}

static GSource *
watch_add_timeout (WardenExecWatch *watch,
                   guint            interval_ms,
                   GSourceFunc      func)
{
  GSource *source = g_timeout_source_new (interval_ms);

  g_source_set_callback (source, func, hold_new (watch), hold_free);
  g_source_attach (source, g_task_get_context (watch->task));
  return source;
}

void
warden_exec_watch_start_timer (WardenExecWatch *watch)
{
  g_return_if_fail (watch->timeout_source == NULL);

  watch->start = g_get_monotonic_time ();
  watch->timeout_source = watch_add_timeout (watch, watch->request->timeout_ms, timeout_cb);
}

static gboolean
grace_expired_cb (gpointer user_data)
{
  WardenExecWatch *watch = ((Hold *) user_data)->watch;

  g_clear_pointer (&watch->grace_source, g_source_unref);
  watch->funcs->grace_expired (watch->task);
  return G_SOURCE_REMOVE;
}

void
warden_exec_watch_linger (WardenExecWatch *watch)
{
  if (watch->returned || watch->grace_source != NULL)
    return;
  watch->grace_source = watch_add_timeout (watch, KILL_GRACE_MS, grace_expired_cb);
}

void
warden_exec_watch_kill (WardenExecWatch *watch)
{
  if (watch->killed || watch->returned)
    return;
  watch->killed = TRUE;
  if (watch->funcs->kill (watch->task))
    warden_exec_watch_linger (watch);
}

void
warden_exec_watch_output (WardenExecWatch *watch,
                          WardenStream     stream,
                          const char      *data,
                          gsize            length)
{
  warden_output_collector_append (stream == WARDEN_STREAM_STDERR ? watch->err : watch->out, data,
                                  length);
  if (watch->request->output_func != NULL)
    watch->request->output_func (stream, data, length, watch->request->output_data);
}

GCancellable *
warden_exec_watch_get_io_cancellable (WardenExecWatch *watch)
{
  return watch->io_cancellable;
}

gboolean
warden_exec_watch_get_timed_out (WardenExecWatch *watch)
{
  return watch->timed_out;
}

gboolean
warden_exec_watch_get_cancelled (WardenExecWatch *watch)
{
  return watch->cancelled;
}

gboolean
warden_exec_watch_get_returned (WardenExecWatch *watch)
{
  return watch->returned;
}

void
warden_exec_watch_return (WardenExecWatch *watch,
                          int              exit_code,
                          GError          *error)
{
  g_autoptr(GTask) task = g_object_ref (watch->task);  /* the release may drop the last */
  WardenExecResult *result;
  gboolean t1 = FALSE, t2 = FALSE;

  if (watch->returned)
    {
      g_clear_error (&error);
      return;
    }
  watch->returned = TRUE;
  watch_release (watch);
  g_cancellable_cancel (watch->io_cancellable);

  if (watch->cancelled)
    {
      g_clear_error (&error);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                               _("The command was cancelled"));
      return;
    }
  if (error != NULL)
    {
      g_task_return_error (task, error);
      return;
    }

  result = g_new0 (WardenExecResult, 1);
  /* Killed at the time limit before its status was known: as SIGKILL says it. */
  result->exit_code = watch->timed_out && exit_code < 0 ? 128 + 9 : exit_code;
  result->timed_out = watch->timed_out;
  result->duration_us = g_get_monotonic_time () - watch->start;
  result->stdout_text = warden_output_collector_finish (watch->out, &t1);
  result->stderr_text = warden_output_collector_finish (watch->err, &t2);
  result->truncated = t1 || t2;
  g_task_return_pointer (task, result, (GDestroyNotify) warden_exec_result_free);
}
