/* warden-agent-checkpoints.c: the workspace's files before each step, and the user's restores
 *
 * Before a write, an edit or a command, the workspace is recorded in its
 * shadow repository (workspace/warden-checkpoints.h) and the store notes
 * which step the checkpoint comes before; after a command, what it
 * created, changed and deleted is computed from the checkpoints around it.
 * The git work runs in a thread, the store's writes in the main thread.
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-agent"

#include <glib/gi18n.h>

#include "warden-agent-private.h"

#include "warden-restore.h"

/* In the thread that uses them: the file tools' thread or a job of ours;
 * never two at once, as one step of a session runs at a time. */
char *
_warden_agent_record_checkpoint (WardenAgent *self,
                                 const char  *message)
{
  g_autoptr(GError) error = NULL;
  char *id;

  if (self->checkpoints == NULL)
    self->checkpoints = warden_checkpoints_new (self->config.workspace, NULL, &error);
  if (self->checkpoints == NULL ||
      (id = warden_checkpoints_record (self->checkpoints, message, &error)) == NULL)
    {
      /* The step runs: without its checkpoint it cannot be undone, which
       * its card and "sessions show" tell by having no step number. A
       * message, not a warning: a full disk is the user's, not a bug. */
      g_message ("No checkpoint before a step of session %s: %s",
                 warden_agent_get_session_id (self), error->message);
      return NULL;
    }
  return id;
}

void
_warden_agent_note_checkpoint (WardenAgent    *self,
                               WardenToolCall *call,
                               const char     *commit)
{
  g_autoptr(GError) error = NULL;
  gint64 step;

  if (commit == NULL)
    return;
  step = warden_session_store_add_checkpoint (self->store, warden_agent_get_session_id (self),
                                              warden_tool_call_get_id (call), commit, 0, &error);
  /* As above; a store that cannot be written (locked, the lease lost)
   * stops the step when its call is saved, with the store's error. */
  if (step == 0)
    g_message ("Could not save the checkpoint before %s: %s", warden_tool_call_get_id (call),
               error->message);
  warden_tool_call_set_step (call, step);
}

/* before and after a command ------------------------------------------------*/

typedef struct
{
  WardenAgent            *self;
  WardenToolCall         *call;
  char                   *before;   /* after a command: its checkpoint before */
  char                   *commit;
  GPtrArray              *changes;
  WardenAgentStepDone     done;
  gpointer                data;
} Job;

static void
job_free (Job *job)
{
  g_object_unref (job->self);
  g_object_unref (job->call);
  g_free (job->before);
  g_free (job->commit);
  g_clear_pointer (&job->changes, g_ptr_array_unref);
  g_free (job);
}

static void
before_thread (GTask        *task,
               gpointer      source,
               gpointer      data,
               GCancellable *cancellable)
{
  Job *job = data;
  g_autofree char *message = g_strdup_printf ("before %s",
                                              warden_tool_call_get_id (job->call));

  job->commit = _warden_agent_record_checkpoint (job->self, message);
  g_task_return_boolean (task, TRUE);
}

static void
before_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Job *job = g_task_get_task_data (G_TASK (result));
  WardenAgent *self = job->self;

  _warden_agent_note_checkpoint (self, job->call, job->commit);
  g_free (self->exec_checkpoint);
  self->exec_checkpoint = g_strdup (job->commit);
  job->done (self, job->data);
}

void
_warden_agent_checkpoint_before (WardenAgent         *self,
                                 WardenToolCall      *call,
                                 WardenAgentStepDone  done,
                                 gpointer             data)
{
  g_autoptr(GTask) task = g_task_new (self, NULL, before_done_cb, NULL);
  Job *job = g_new0 (Job, 1);

  job->self = g_object_ref (self);
  job->call = g_object_ref (call);
  job->done = done;
  job->data = data;
  g_task_set_source_tag (task, _warden_agent_checkpoint_before);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  g_task_run_in_thread (task, before_thread);
}

static void
after_thread (GTask        *task,
              gpointer      source,
              gpointer      data,
              GCancellable *cancellable)
{
  Job *job = data;
  g_autofree char *message = g_strdup_printf ("after %s", warden_tool_call_get_id (job->call));
  g_autoptr(GError) error = NULL;

  job->commit = _warden_agent_record_checkpoint (job->self, message);
  if (job->commit != NULL &&
      (job->changes = warden_checkpoints_diff (job->self->checkpoints, job->before, job->commit,
                                               &error)) == NULL)
    g_message ("What %s changed is not known: %s", warden_tool_call_get_id (job->call),
               error->message);
  g_task_return_boolean (task, TRUE);
}

static void
after_done_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  Job *job = g_task_get_task_data (G_TASK (result));
  WardenAgent *self = job->self;

  if (job->changes != NULL)
    {
      g_autofree char *json = warden_restore_changes_to_json (job->changes);
      g_autoptr(GError) error = NULL;

      if (!warden_session_store_set_checkpoint_after (self->store,
                                                      warden_agent_get_session_id (self),
                                                      warden_tool_call_get_step (job->call),
                                                      job->commit, json, &error))
        g_message ("Could not save what %s changed: %s", warden_tool_call_get_id (job->call),
                   error->message);
      warden_tool_call_set_changes (job->call, job->changes);
    }
  job->done (self, job->data);
}

void
_warden_agent_checkpoint_after (WardenAgent         *self,
                                WardenToolCall      *call,
                                WardenAgentStepDone  done,
                                gpointer             data)
{
  g_autoptr(GTask) task = NULL;
  Job *job;

  if (self->exec_checkpoint == NULL || warden_tool_call_get_step (call) == 0)
    {
      done (self, data);
      return;
    }
  task = g_task_new (self, NULL, after_done_cb, NULL);
  job = g_new0 (Job, 1);
  job->self = g_object_ref (self);
  job->call = g_object_ref (call);
  job->before = g_steal_pointer (&self->exec_checkpoint);
  job->done = done;
  job->data = data;
  g_task_set_source_tag (task, _warden_agent_checkpoint_after);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  g_task_run_in_thread (task, after_thread);
}

/* restore -------------------------------------------------------------------*/

typedef struct
{
  WardenCheckpointRecord *step;
  gboolean                preview;
  char                   *undo;
  char                   *diff;
  GPtrArray              *changes;
  GError                 *failed;    /* a restore that stopped half-way */
  gint64                  new_step;  /* the restore's own step */
} Restore;

static void
restore_free (Restore *r)
{
  warden_checkpoint_record_free (r->step);
  g_free (r->undo);
  g_free (r->diff);
  g_clear_pointer (&r->changes, g_ptr_array_unref);
  g_clear_error (&r->failed);
  g_free (r);
}

static void
restore_thread (GTask        *task,
                gpointer      source,
                gpointer      data,
                GCancellable *cancellable)
{
  WardenAgent *self = source;
  Restore *r = data;
  GError *error = NULL;

  if (self->checkpoints == NULL &&
      (self->checkpoints = warden_checkpoints_new (self->config.workspace, NULL, &error)) == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (r->preview)
    {
      if (!warden_checkpoints_preview (self->checkpoints, r->step->commit, &r->changes, &r->diff,
                                       &error))
        g_task_return_error (task, error);
      else
        g_task_return_boolean (task, TRUE);
      return;
    }
  warden_checkpoints_restore (self->checkpoints, r->step->commit, &r->undo, &r->changes,
                              &r->failed);
  if (r->undo == NULL)
    g_task_return_error (task, g_steal_pointer (&r->failed));
  else
    g_task_return_boolean (task, TRUE);
}

static void
restore_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WardenAgent *self = WARDEN_AGENT (object);
  Restore *r = g_task_get_task_data (task);
  GError *error = NULL;
  gint64 step;

  self->restoring = FALSE;
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (r->preview)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  step = warden_restore_record (self->store, warden_agent_get_session_id (self), r->undo,
                                r->step->step, &error);
  r->new_step = step;
  if (r->failed != NULL)
    {
      g_clear_error (&error);
      g_task_return_error (task, g_steal_pointer (&r->failed));
      return;
    }
  if (step == 0)
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_boolean (task, TRUE);
}

void
warden_agent_restore_async (WardenAgent         *self,
                            gint64               step,
                            gboolean             preview,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GTask) work = NULL;
  g_autofree char *number = g_strdup_printf ("%" G_GINT64_FORMAT, step);
  GError *error = NULL;
  Restore *r;

  g_return_if_fail (WARDEN_IS_AGENT (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, warden_agent_restore_async);
  /* Not under a command's feet, nor under a write or another restore. */
  if (self->run != NULL || self->command != NULL || self->restoring)
    {
      g_task_return_new_error (task, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_BUSY,
                               _("The files cannot be restored while the agent works (a "
                                 "command may be running): stop it or wait until it "
                                 "finishes, then restore"));
      return;
    }
  r = g_new0 (Restore, 1);
  r->preview = preview;
  r->step = warden_restore_find_step (self->store, warden_agent_get_session_id (self), number,
                                      &error);
  g_task_set_task_data (task, r, (GDestroyNotify) restore_free);
  if (r->step == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  self->restoring = TRUE;
  work = g_task_new (self, cancellable, restore_done_cb, g_object_ref (task));
  g_task_set_source_tag (work, warden_agent_restore_async);
  g_task_set_task_data (work, r, NULL);
  g_task_run_in_thread (work, restore_thread);
}

GPtrArray *
warden_agent_restore_finish (WardenAgent   *self,
                             GAsyncResult  *result,
                             char         **diff,
                             gint64        *new_step,
                             GError       **error)
{
  Restore *r;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  if (!g_task_propagate_boolean (G_TASK (result), error))
    return NULL;
  r = g_task_get_task_data (G_TASK (result));
  if (diff != NULL)
    *diff = g_steal_pointer (&r->diff);
  if (new_step != NULL)
    *new_step = r->new_step;
  return r->changes != NULL ? g_ptr_array_ref (r->changes)
                            : g_ptr_array_new_with_free_func ((GDestroyNotify) warden_file_change_free);
}
