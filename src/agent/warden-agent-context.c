/* warden-agent-context.c: what the model is sent — the project's
 * instructions, and a conversation kept inside the context window
 *
 * The stored session keeps every message: a summary changes only what
 * the model is sent (docs/context.md).
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-agent"

#include <glib/gi18n.h>

#include "warden-agent-private.h"

#include "llm/warden-llm-prices.h"

#include <string.h>

/* The last messages a summary leaves as they are: at least this many… */
#define KEEP_MESSAGES       4
#define KEEP_MESSAGES_HARD  2
/* …and more while they fit in this share of the window. */
#define KEEP_SHARE          0.30
#define KEEP_SHARE_HARD     0.15
/* One tool output may take this share of the window (bytes: 4 a token). */
#define OUTPUT_SHARE        0.20
#define OUTPUT_SHARE_HARD   0.10
#define OUTPUT_MIN_BYTES    1024
/* The transcript a summary is made from takes at most this share. */
#define TRANSCRIPT_SHARE    0.50

static const char summary_prompt[] =
  "You summarise the earlier part of a coding session for the coding agent that continues "
  "it: the agent will see your summary instead of those messages. Keep what it needs to go "
  "on: the user's requests and decisions (word for word where they matter), what was done "
  "and found (files changed, commands run and their results, errors), what was refused or "
  "rejected and why, and what is still to do. Be concise and factual; use short lists. Do "
  "not call tools and do not continue the task.";

/* ------------------------------------------------------------------------ */
/* The project's instructions */

/* Takes @read. */
static void
set_instructions (WardenAgent        *self,
                  WardenInstructions *read,
                  const GError       *error)
{
  const char *problem = error ? error->message : NULL;
  gboolean same = (read == NULL) == (self->instructions == NULL) &&
                  (read == NULL || g_strcmp0 (read->sha256, self->instructions->sha256) == 0) &&
                  g_strcmp0 (problem, self->instructions_problem) == 0;

  if (error != NULL)
    g_debug ("%s", error->message);
  g_clear_pointer (&self->instructions, warden_instructions_free);
  self->instructions = read;
  g_free (self->instructions_problem);
  self->instructions_problem = g_strdup (problem);
  if (!same)
    g_object_notify (G_OBJECT (self), "instructions");
}

void
_warden_agent_read_instructions (WardenAgent *self)
{
  g_autoptr(GError) error = NULL;
  WardenInstructions *read = warden_instructions_read (self->workspace, &error);

  set_instructions (self, read, error);
}

static void
read_in_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  GError *error = NULL;
  WardenInstructions *read = warden_instructions_read (task_data, &error);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, read, (GDestroyNotify) warden_instructions_free);
}

static void
read_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  WardenAgent *self = WARDEN_AGENT (object);
  g_autoptr(GError) error = NULL;
  WardenInstructions *read = g_task_propagate_pointer (G_TASK (result), &error);

  self->reading_instructions = FALSE;
  set_instructions (self, read, error);
  if (self->request_waits)
    {
      self->request_waits = FALSE;
      _warden_agent_request_model (self);
    }
}

void
_warden_agent_read_instructions_async (WardenAgent *self)
{
  g_autoptr(GTask) task = g_task_new (self, NULL, read_cb, NULL);

  g_task_set_source_tag (task, _warden_agent_read_instructions_async);
  g_task_set_task_data (task, g_object_ref (self->workspace), g_object_unref);
  self->reading_instructions = TRUE;
  g_task_run_in_thread (task, read_in_thread);
}

const WardenInstructions *
warden_agent_get_instructions (WardenAgent *self)
{
  g_return_val_if_fail (WARDEN_IS_AGENT (self), NULL);
  return self->instructions;
}

const char *
warden_agent_get_instructions_problem (WardenAgent *self)
{
  g_return_val_if_fail (WARDEN_IS_AGENT (self), NULL);
  return self->instructions_problem;
}

/* ------------------------------------------------------------------------ */
/* The window and what is sent */

guint
warden_agent_get_context_window (WardenAgent *self)
{
  guint known;

  g_return_val_if_fail (WARDEN_IS_AGENT (self), WARDEN_CONTEXT_DEFAULT_WINDOW);

  if (self->config.context_window > 0)
    return self->config.context_window;
  known = warden_context_window_for_model (warden_llm_provider_get_model (self->provider));
  return known > 0 ? known : WARDEN_CONTEXT_DEFAULT_WINDOW;
}

void
warden_agent_set_context_window (WardenAgent *self,
                                 guint        tokens)
{
  g_return_if_fail (WARDEN_IS_AGENT (self));
  self->config.context_window = tokens;
}

const char *
warden_agent_get_summary (WardenAgent *self)
{
  g_return_val_if_fail (WARDEN_IS_AGENT (self), NULL);
  return self->summary;
}

guint
warden_agent_get_summarised (WardenAgent *self)
{
  g_return_val_if_fail (WARDEN_IS_AGENT (self), 0);
  return self->summarised;
}

static gsize
max_output_bytes (WardenAgent *self,
                  gboolean     hard)
{
  double bytes = warden_agent_get_context_window (self) * 4.0 *
                 (hard ? OUTPUT_SHARE_HARD : OUTPUT_SHARE);

  return MAX ((gsize) bytes, OUTPUT_MIN_BYTES);
}

/* Where the messages sent begin: after the summary, or later with an
 * explicit history limit (a start where no tool call loses its result). */
static guint
view_start (WardenAgent *self)
{
  guint start = self->summarised;

  if (self->config.history > 0 && self->messages->len > self->config.history)
    {
      guint limited = self->messages->len - self->config.history;

      while (limited < self->messages->len &&
             !(warden_context_can_start_at (self->messages, limited) &&
               warden_llm_message_get_role (g_ptr_array_index (self->messages, limited)) ==
               WARDEN_LLM_ROLE_USER))
        limited++;
      if (limited < self->messages->len)
        start = MAX (start, limited);
    }
  return MIN (start, self->messages->len);
}

GPtrArray *
_warden_agent_view (WardenAgent *self,
                    gboolean     hard)
{
  return warden_context_view (self->messages, view_start (self), self->summary,
                              max_output_bytes (self, hard));
}

static gint64
estimate_view (WardenAgent *self,
               gboolean     hard)
{
  g_autoptr(GPtrArray) view = _warden_agent_view (self, hard);
  g_autofree char *prompt = _warden_agent_system_prompt (self);

  return warden_context_estimate_request (prompt, view, self->tools);
}

gboolean
_warden_agent_over_share (WardenAgent *self)
{
  return estimate_view (self, FALSE) >
         warden_agent_get_context_window (self) * WARDEN_CONTEXT_SHARE;
}

/* Where the messages kept as they are begin: 0 when no message can be
 * summarised. The last ones stay, at least KEEP_MESSAGES, more while they
 * fit in their share (not when the user asks: then all that can go does);
 * never between a tool call and its result. */
static guint
choose_split (WardenAgent         *self,
              WardenCompactReason  reason,
              gboolean             hard)
{
  guint len = self->messages->len;
  guint keep = hard ? KEEP_MESSAGES_HARD : KEEP_MESSAGES;
  double budget = reason == WARDEN_COMPACT_MANUAL
                  ? 0 : warden_agent_get_context_window (self) * (hard ? KEEP_SHARE_HARD
                                                                       : KEEP_SHARE);
  gsize max_output = max_output_bytes (self, hard);
  guint from = self->summarised;
  guint last = len > keep ? len - keep : 0;
  guint best = 0;
  gint64 tail = 0;

  for (guint i = last; i < len; i++)
    {
      g_autoptr(WardenLlmMessage) cut = warden_context_cut_outputs (
        g_ptr_array_index (self->messages, i), max_output);

      tail += warden_context_estimate_message (cut);
    }
  for (guint s = last; s > from; s--)
    {
      if (s < last)
        {
          g_autoptr(WardenLlmMessage) cut = warden_context_cut_outputs (
            g_ptr_array_index (self->messages, s), max_output);

          tail += warden_context_estimate_message (cut);
        }
      if (best != 0 && tail > budget)
        break;
      if (warden_context_can_start_at (self->messages, s))
        best = s;
    }
  return best;
}

gboolean
_warden_agent_load_summary (WardenAgent  *self,
                            GError      **error)
{
  g_autoptr(GPtrArray) list = warden_session_store_list_compactions (self->store, self->info->id,
                                                                     error);
  WardenCompactionRecord *last;

  if (list == NULL)
    return FALSE;
  if (list->len == 0)
    return TRUE;
  last = g_ptr_array_index (list, list->len - 1);
  /* A row that names more messages than there are is not ours to trust. */
  if (last->upto > self->messages->len ||
      !warden_context_can_start_at (self->messages, last->upto))
    {
      g_warning ("The stored summary of session %s does not fit its messages: all are sent",
                 self->info->id);
      return TRUE;
    }
  self->summarised = last->upto;
  g_free (self->summary);
  self->summary = g_strdup (last->summary);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Summarising */

typedef struct
{
  WardenCompactReason  reason;
  gboolean             hard;
  guint                upto;
  gint64               before;
} Compaction;

static void
summary_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WardenAgent *self = g_task_get_source_object (task);
  Compaction *c = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autofree char *text = NULL;
  WardenCompactionRecord record = { 0 };

  self->summarising = FALSE;
  response = warden_llm_provider_complete_finish (WARDEN_LLM_PROVIDER (object), result, &error);
  if (response == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_prefix_error (&error, _("The earlier conversation could not be summarised: "));
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* A summary is a request like the others: it counts, and costs. */
  warden_llm_prices_apply (warden_llm_prices_get_default (NULL),
                           warden_llm_provider_get_model (self->provider), &response->usage);
  _warden_agent_add_usage (self, &response->usage);
  text = warden_llm_message_dup_text (response->message);
  g_strstrip (text);
  if (*text == '\0')
    {
      g_task_return_new_error (task, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_FAILED,
                               _("The earlier conversation could not be summarised: the model "
                                 "gave an empty summary. Try again, or start a new session"));
      return;
    }

  record.upto = c->upto;
  record.summary = text;
  record.tokens_before = c->before;
  record.reason = (char *) warden_compact_reason_to_string (c->reason);
  {
    /* Its size after, as it will be sent: known once it is in place. */
    guint old_summarised = self->summarised;
    char *old_summary = self->summary;

    self->summarised = c->upto;
    self->summary = text;
    record.tokens_after = estimate_view (self, c->hard);
    self->summarised = old_summarised;
    self->summary = old_summary;
  }
  if (!warden_session_store_add_compaction (self->store, self->info->id, &record, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  self->summarised = c->upto;
  g_free (self->summary);
  self->summary = g_steal_pointer (&text);
  g_signal_emit (self, AGENT_SIGNAL (COMPACTED), 0, self->summarised, record.tokens_before,
                 record.tokens_after, c->reason, self->summary);
  g_task_return_boolean (task, TRUE);
}

void
_warden_agent_compact_async (WardenAgent         *self,
                             WardenCompactReason  reason,
                             gboolean             hard,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  Compaction *c = g_new0 (Compaction, 1);
  g_autoptr(GPtrArray) request = NULL;
  g_autoptr(WardenLlmMessage) message = NULL;
  g_autofree char *transcript = NULL;
  g_autofree char *text = NULL;
  gsize max_bytes = (gsize) (warden_agent_get_context_window (self) * 4.0 * TRANSCRIPT_SHARE);

  g_task_set_source_tag (task, _warden_agent_compact_async);
  g_task_set_task_data (task, c, g_free);
  c->reason = reason;
  c->hard = hard;
  c->upto = choose_split (self, reason, hard);
  c->before = estimate_view (self, FALSE);
  if (c->upto <= self->summarised)
    {
      if (reason == WARDEN_COMPACT_MANUAL)
        g_task_return_new_error (task, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_FAILED,
                                 _("There is nothing to summarise yet: the model is sent only "
                                   "the last turns, which stay as they are"));
      else
        g_task_return_boolean (task, TRUE);
      return;
    }

  transcript = warden_context_transcript (self->messages, self->summarised, c->upto,
                                          self->summary, max_bytes);
  text = g_strdup_printf ("Summarise this earlier part of the session:\n\n%s", transcript);
  message = warden_llm_message_new (WARDEN_LLM_ROLE_USER);
  warden_llm_message_add_text (message, text);
  request = g_ptr_array_new ();
  g_ptr_array_add (request, message);
  self->summarising = TRUE;
  warden_llm_provider_complete_async (self->provider, summary_prompt, request, NULL, cancellable,
                                      summary_cb, g_steal_pointer (&task));
}

gboolean
_warden_agent_compact_finish (WardenAgent   *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
manual_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WardenAgent *self = WARDEN_AGENT (object);
  g_autoptr(GError) error = NULL;

  self->compacting = FALSE;
  if (!_warden_agent_compact_finish (self, result, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

void
warden_agent_compact_async (WardenAgent         *self,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_return_if_fail (WARDEN_IS_AGENT (self));

  g_task_set_source_tag (task, warden_agent_compact_async);
  if (self->run != NULL || self->compacting)
    {
      g_task_return_new_error (task, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_BUSY,
                               _("The conversation can be summarised when the agent is not "
                                 "running"));
      return;
    }
  self->compacting = TRUE;
  _warden_agent_compact_async (self, WARDEN_COMPACT_MANUAL, FALSE, cancellable, manual_cb,
                               g_steal_pointer (&task));
}

gboolean
warden_agent_compact_finish (WardenAgent   *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}
