/* warden-session.c: one session as the window shows it
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "warden-session.h"

#include "agent/warden-restore.h"

#include <json-glib/json-glib.h>

#include "llm/warden-llm-message.h"

struct _WardenSession
{
  GObject             parent_instance;

  WardenSessionStore *store;
  WardenProfileStore *profiles;
  WardenAgent        *agent;         /* NULL without a model */
  WardenSessionRecord  *info;

  GListStore         *items;
  GHashTable         *tools;         /* tool_use_id → WardenChatItem (borrowed from items) */
  WardenChatItem     *assistant;     /* the text item the model's words go to, or NULL */
  WardenChatItem     *running;       /* the exec whose output arrives now */
  GCancellable       *cancellable;   /* of the running step */
  gboolean            go_on;         /* answered while the step was still ending */

  char               *state;
  char               *nested_id;     /* the started program asked about now */
  gboolean            unguarded_said; /* the chat says programs are not checked */
  guint               model_silent;  /* seconds the model has sent nothing; 0: it answers */
  char               *derived_title; /* from the first task, while no title is stored */
};

G_DEFINE_FINAL_TYPE (WardenSession, warden_session, G_TYPE_OBJECT)

G_DEFINE_QUARK (warden-session-error-quark, warden_session_error)

enum
{
  PROP_0,
  PROP_TITLE,
  PROP_PROFILE,
  PROP_STATE,
  PROP_BUSY,
  PROP_PENDING,
  PROP_AGENT,
  PROP_MODEL_SILENT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  COMMAND_STARTED,
  COMMAND_OUTPUT,
  COMMAND_FINISHED,
  APPROVAL,
  APPROVAL_RESOLVED,
  FAILED,
  FINISHED,
  PROFILE_COPIED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ------------------------------------------------------------------------ */

static void
set_state (WardenSession *self,
           const char    *state)
{
  if (g_strcmp0 (self->state, state) == 0)
    return;
  g_free (self->state);
  self->state = g_strdup (state);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static WardenChatItem *
append_item (WardenSession  *self,
             WardenChatItem *item)
{
  g_list_store_append (self->items, item);
  g_object_unref (item);
  return item;
}

static WardenChatItem *
add_tool_item (WardenSession  *self,
               WardenChatItem *item)
{
  append_item (self, item);
  g_hash_table_insert (self->tools, g_strdup (warden_chat_item_get_tool_id (item)), item);
  /* Words after a tool call start a new bubble below its card. */
  self->assistant = NULL;
  return item;
}

/* The card of @call: it follows @call from now on, or is new. */
static WardenChatItem *
item_for_call (WardenSession  *self,
               WardenToolCall *call)
{
  WardenChatItem *item = g_hash_table_lookup (self->tools, warden_tool_call_get_id (call));

  if (item == NULL)
    return add_tool_item (self, warden_chat_item_new_for_call (call));
  warden_chat_item_set_call (item, call);
  return item;
}

/* The host backend confines nothing: each time a session on it is started or
 * opened, the chat says so where the user reads. */
static void
warn_if_host (WardenSession *self)
{
  if (warden_session_get_sandbox (self) != WARDEN_SANDBOX_KIND_HOST)
    return;
  append_item (self, warden_chat_item_new (WARDEN_CHAT_ITEM_NOTICE,
                                           _("This session has no sandbox: it runs commands on "
                                             "this computer as you (the host backend). They "
                                             "can read and change all your files, your keys "
                                             "and Warden’s own settings; only the profile and "
                                             "your approvals stand in the way.")));
}

/* ------------------------------------------------------------------------ */
/* The history, from the store: it does not need a model. */

static void
load_history (WardenSession *self)
{
  g_autoptr(GPtrArray) messages = NULL;
  g_autoptr(GPtrArray) records = NULL;
  g_autoptr(GHashTable) calls = NULL;
  g_autoptr(GPtrArray) summaries = NULL;
  g_autoptr(GError) error = NULL;
  guint summary = 0;

  messages = warden_session_store_load_messages (self->store, self->info->id, &error);
  if (messages == NULL)
    {
      append_item (self, warden_chat_item_new (WARDEN_CHAT_ITEM_NOTICE, error->message));
      return;
    }

  /* The audit log has each call as it ended: how it was decided, its output,
   * and the calls the model has not been told about yet (a pending
   * approval, an interrupted run). The messages give the order. */
  calls = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_object_unref);
  records = warden_session_store_list_tool_calls (self->store, self->info->id, NULL);
  for (guint i = 0; records != NULL && i < records->len; i++)
    {
      WardenToolCall *call = warden_tool_call_new_from_record (g_ptr_array_index (records, i));

      g_hash_table_replace (calls, (gpointer) warden_tool_call_get_id (call), call);
    }
  /* The checkpoint before each call, and what its command changed. */
  {
    g_autoptr(GPtrArray) steps = warden_session_store_list_checkpoints (self->store,
                                                                        self->info->id, NULL);

    for (guint i = 0; steps != NULL && i < steps->len; i++)
      {
        WardenCheckpointRecord *c = g_ptr_array_index (steps, i);
        WardenToolCall *call = c->tool_use_id ? g_hash_table_lookup (calls, c->tool_use_id)
                                              : NULL;
        g_autoptr(GPtrArray) changes = NULL;

        if (call == NULL)
          continue;
        warden_tool_call_set_step (call, c->step);
        if ((changes = warden_restore_changes_from_json (c->changes_json)) != NULL)
          warden_tool_call_set_changes (call, changes);
      }
  }
  /* Each summary stands below what it summarises. */
  summaries = warden_session_store_list_compactions (self->store, self->info->id, NULL);

  for (guint i = 0; i < messages->len; i++)
    {
      g_autoptr(JsonNode) node = json_from_string (g_ptr_array_index (messages, i), NULL);
      g_autoptr(WardenLlmMessage) message = NULL;
      gboolean user;

      for (; summaries != NULL && summary < summaries->len; summary++)
        {
          WardenCompactionRecord *c = g_ptr_array_index (summaries, summary);

          if (c->upto > i)
            break;
          append_item (self, warden_chat_item_new (WARDEN_CHAT_ITEM_SUMMARY, c->summary));
        }

      if (node != NULL)
        message = warden_llm_message_new_from_json (node, NULL);
      if (message == NULL)
        continue;
      user = warden_llm_message_get_role (message) == WARDEN_LLM_ROLE_USER;
      for (guint b = 0; b < warden_llm_message_get_n_blocks (message); b++)
        {
          const WardenLlmBlock *block = warden_llm_message_get_block (message, b);

          switch (block->type)
            {
            case WARDEN_LLM_BLOCK_TEXT:
              if (block->text == NULL || *block->text == '\0')
                break;
              append_item (self, warden_chat_item_new (user ? WARDEN_CHAT_ITEM_USER
                                                            : WARDEN_CHAT_ITEM_ASSISTANT,
                                                       block->text));
              break;

            case WARDEN_LLM_BLOCK_TOOL_USE:
              {
                WardenToolCall *call = g_hash_table_lookup (calls, block->tool_use_id);
                g_autoptr(WardenToolCall) unlogged = NULL;

                if (g_hash_table_contains (self->tools, block->tool_use_id))
                  break;
                /* Not in the audit log (its save failed): the call as the
                 * model made it, and its result below. */
                if (call == NULL)
                  call = unlogged = warden_tool_call_new (self->info->id, block->tool_use_id,
                                                          block->tool_name, block->tool_input);
                add_tool_item (self, warden_chat_item_new_for_call (call));
              }
              break;

            case WARDEN_LLM_BLOCK_TOOL_RESULT:
              {
                WardenChatItem *item = g_hash_table_lookup (self->tools, block->tool_use_id);

                if (item != NULL && !g_hash_table_contains (calls, block->tool_use_id))
                  warden_tool_call_set_result (warden_chat_item_get_call (item), block->text,
                                               block->is_error);
              }
              break;

            default:
              break;
            }
        }
    }
  self->assistant = NULL;

  for (guint i = 0; records != NULL && i < records->len; i++)
    {
      WardenToolCallRecord *r = g_ptr_array_index (records, i);

      /* What a command asked while it ran is its command's, in the trace. */
      if (r->parent_id != NULL)
        continue;
      if (!g_hash_table_contains (self->tools, r->tool_use_id))
        add_tool_item (self, warden_chat_item_new_for_call (g_hash_table_lookup (calls,
                                                                                 r->tool_use_id)));
    }
}

/* ------------------------------------------------------------------------ */
/* The agent, live. */

static void
text_delta_cb (WardenAgent   *agent,
               const char    *text,
               WardenSession *self)
{
  if (self->assistant == NULL)
    self->assistant = append_item (self, warden_chat_item_new (WARDEN_CHAT_ITEM_ASSISTANT, ""));
  warden_chat_item_append_text (self->assistant, text);
}

static void
retrying_cb (WardenAgent   *agent,
             guint          attempt,
             guint          delay_ms,
             const char    *reason,
             WardenSession *self)
{
  /* The answer streams again from its start. */
  if (self->assistant != NULL)
    warden_chat_item_set_text (self->assistant, "");
}

static void
tool_call_cb (WardenAgent    *agent,
              WardenToolCall *call,
              WardenSession  *self)
{
  WardenChatItem *item = item_for_call (self, call);

  /* It runs now. A file tool's call stays as it was decided while its
   * thread works; the card says it runs until the call changes. */
  warden_chat_item_set_state (item, WARDEN_TOOL_CALL_RUNNING);
  if (warden_tool_call_get_kind (call) == WARDEN_TOOL_KIND_EXEC)
    {
      self->running = item;
      g_signal_emit (self, signals[COMMAND_STARTED], 0, item);
    }
}

static void
output_cb (WardenAgent   *agent,
           int            stream,
           const char    *data,
           WardenSession *self)
{
  /* The card follows its call's output itself; the terminal pane is fed here. */
  g_signal_emit (self, signals[COMMAND_OUTPUT], 0, data);
}

static void
tool_result_cb (WardenAgent    *agent,
                WardenToolCall *call,
                WardenSession  *self)
{
  WardenChatItem *item = item_for_call (self, call);

  /* Settled: the call's state is the last word, whatever the card said. */
  warden_chat_item_set_state (item, warden_tool_call_get_state (call));
  warden_chat_item_set_approval (item, NULL);
  if (item == self->running)
    {
      self->running = NULL;
      g_signal_emit (self, signals[COMMAND_FINISHED], 0, item);
    }
}

static void
approval_cb (WardenAgent    *agent,
             WardenApproval *approval,
             WardenSession  *self)
{
  WardenChatItem *item = g_hash_table_lookup (self->tools, warden_approval_get_id (approval));

  /* The agent asks before it hands the call over: the card shows the question. */
  if (item == NULL)
    item = add_tool_item (self, warden_chat_item_new_tool (warden_approval_get_id (approval),
                                                           warden_approval_get_tool_name (approval),
                                                           warden_approval_get_subject (approval)));
  warden_chat_item_set_decision (item, WARDEN_TOOL_DECISION_ASKED, NULL,
                                 warden_approval_get_reason (approval), NULL);
  warden_chat_item_set_state (item, WARDEN_TOOL_CALL_PENDING);
  warden_chat_item_set_approval (item, approval);
  if (warden_approval_get_while_running (approval))
    {
      g_free (self->nested_id);
      self->nested_id = g_strdup (warden_approval_get_id (approval));
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING]);
  g_signal_emit (self, signals[APPROVAL], 0, approval);
}

/* The command of a program that waited ended first: its question goes. */
static void
approval_withdrawn_cb (WardenAgent   *agent,
                       WardenSession *self)
{
  g_autofree char *id = g_steal_pointer (&self->nested_id);
  WardenChatItem *item = id ? g_hash_table_lookup (self->tools, id) : NULL;

  if (id == NULL)
    return;
  if (item != NULL)
    {
      warden_chat_item_set_approval (item, NULL);
      warden_chat_item_set_state (item, WARDEN_TOOL_CALL_INTERRUPTED);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING]);
  g_signal_emit (self, signals[APPROVAL_RESOLVED], 0, id);
}

/* Ready, with a gap in what is checked (no exec guard there): said in the
 * chat once, as the host warning is. The header follows the agent's
 * sandbox properties itself. */
static void
profile_copied_cb (WardenAgent   *agent,
                   const char    *from,
                   const char    *to,
                   const char    *path,
                   WardenSession *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROFILE]);
  g_signal_emit (self, signals[PROFILE_COPIED], 0, from, to);
}

static void
sandbox_state_cb (WardenAgent   *agent,
                  GParamSpec    *pspec,
                  WardenSession *self)
{
  const char *message = warden_agent_get_sandbox_message (agent);

  if (warden_agent_get_sandbox_state (agent) == WARDEN_SANDBOX_STATE_READY && message != NULL &&
      !self->unguarded_said)
    {
      self->unguarded_said = TRUE;
      append_item (self, warden_chat_item_new (WARDEN_CHAT_ITEM_NOTICE, message));
    }
}

static gboolean start_run (WardenSession  *self,
                           const char     *task,
                           GError        **error);

static void
set_model_silent (WardenSession *self,
                  guint          seconds)
{
  if (self->model_silent == seconds)
    return;
  self->model_silent = seconds;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODEL_SILENT]);
}

static void
waiting_cb (WardenAgent   *agent,
            guint          seconds,
            WardenSession *self)
{
  set_model_silent (self, seconds);
}

static void
compacted_cb (WardenAgent         *agent,
              guint                summarised,
              gint64               before,
              gint64               after,
              WardenCompactReason  reason,
              const char          *summary,
              WardenSession       *self)
{
  self->assistant = NULL;
  append_item (self, warden_chat_item_new (WARDEN_CHAT_ITEM_SUMMARY, summary));
}

static void
compact_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(WardenSession) self = user_data;
  g_autoptr(GError) error = NULL;

  g_clear_object (&self->cancellable);
  set_state (self, warden_agent_get_pending (WARDEN_AGENT (object)) ? "waiting" : "idle");
  if (!warden_agent_compact_finish (WARDEN_AGENT (object), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    append_item (self, warden_chat_item_new (WARDEN_CHAT_ITEM_NOTICE, error->message));
}

gboolean
warden_session_compact (WardenSession  *self,
                        GError        **error)
{
  g_return_val_if_fail (WARDEN_IS_SESSION (self), FALSE);

  if (self->agent == NULL)
    {
      g_set_error (error, WARDEN_SESSION_ERROR, WARDEN_SESSION_ERROR_NO_MODEL,
                   _("No model is set up: add an API key or start a local model server in "
                     "Preferences"));
      return FALSE;
    }
  if (self->cancellable != NULL)
    {
      g_set_error (error, WARDEN_SESSION_ERROR, WARDEN_SESSION_ERROR_BUSY,
                   _("The agent is still working: wait, or press Stop"));
      return FALSE;
    }
  /* Busy like a step: Stop cancels it, and nothing else starts meanwhile. */
  self->cancellable = g_cancellable_new ();
  set_state (self, "running");
  warden_agent_compact_async (self->agent, self->cancellable, compact_cb, g_object_ref (self));
  return TRUE;
}

static void
run_cb (GObject      *object,
        GAsyncResult *result,
        gpointer      user_data)
{
  g_autoptr(WardenSession) self = user_data;
  g_autoptr(GError) error = NULL;
  WardenAgentOutcome outcome = WARDEN_AGENT_FINISHED;

  g_clear_object (&self->cancellable);
  set_model_silent (self, 0);
  self->assistant = NULL;
  if (self->go_on)
    {
      /* The user answered as soon as the question showed, before the step
       * that asked had quite ended: go on with the answer now. */
      g_autoptr(GError) ignored = NULL;

      self->go_on = FALSE;
      warden_agent_run_finish (WARDEN_AGENT (object), result, &outcome, &ignored);
      if (!start_run (self, NULL, &error))
        {
          set_state (self, "idle");
          append_item (self, warden_chat_item_new (WARDEN_CHAT_ITEM_NOTICE, error->message));
          g_signal_emit (self, signals[FAILED], 0, error);
        }
      return;
    }
  if (!warden_agent_run_finish (WARDEN_AGENT (object), result, &outcome, &error))
    {
      GHashTableIter iter;
      WardenChatItem *item;

      /* A file tool stopped in its thread stays open until the next run
       * reports it; its card says what happened now. */
      g_hash_table_iter_init (&iter, self->tools);
      while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &item))
        if (warden_chat_item_get_state (item) == WARDEN_TOOL_CALL_RUNNING)
          warden_chat_item_set_state (item, WARDEN_TOOL_CALL_INTERRUPTED);
      /* A command stopped before it reported: its block in the terminal ends. */
      if (self->running != NULL)
        {
          item = g_steal_pointer (&self->running);
          g_signal_emit (self, signals[COMMAND_FINISHED], 0, item);
        }
      set_state (self, "idle");
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        append_item (self, warden_chat_item_new (WARDEN_CHAT_ITEM_NOTICE, _("Stopped")));
      else
        {
          append_item (self, warden_chat_item_new (WARDEN_CHAT_ITEM_NOTICE, error->message));
          g_signal_emit (self, signals[FAILED], 0, error);
        }
      return;
    }

  if (outcome == WARDEN_AGENT_WAITING)
    set_state (self, "waiting");
  else
    set_state (self, "idle");
  if (outcome == WARDEN_AGENT_MAX_STEPS)
    append_item (self, warden_chat_item_new (WARDEN_CHAT_ITEM_NOTICE,
                                             _("The agent used all its steps; send a message "
                                               "to let it go on")));
  g_signal_emit (self, signals[FINISHED], 0, (int) outcome);
}

static gboolean
start_run (WardenSession  *self,
           const char     *task,
           GError        **error)
{
  if (self->agent == NULL)
    {
      g_set_error (error, WARDEN_SESSION_ERROR, WARDEN_SESSION_ERROR_NO_MODEL,
                   _("No model is set up: add an API key or start a local model server in "
                     "Preferences"));
      return FALSE;
    }
  if (self->cancellable != NULL)
    {
      g_set_error (error, WARDEN_SESSION_ERROR, WARDEN_SESSION_ERROR_BUSY,
                   _("The agent is still working: wait, or press Stop"));
      return FALSE;
    }
  self->cancellable = g_cancellable_new ();
  self->assistant = NULL;
  set_state (self, "running");
  warden_agent_run_async (self->agent, task, self->cancellable, run_cb, g_object_ref (self));
  return TRUE;
}

/* ------------------------------------------------------------------------ */

static void
connect_agent (WardenSession *self)
{
  g_signal_connect_object (self->agent, "text-delta", G_CALLBACK (text_delta_cb), self, 0);
  g_signal_connect_object (self->agent, "retrying", G_CALLBACK (retrying_cb), self, 0);
  g_signal_connect_object (self->agent, "waiting", G_CALLBACK (waiting_cb), self, 0);
  g_signal_connect_object (self->agent, "tool-call", G_CALLBACK (tool_call_cb), self, 0);
  g_signal_connect_object (self->agent, "tool-result", G_CALLBACK (tool_result_cb), self, 0);
  g_signal_connect_object (self->agent, "approval", G_CALLBACK (approval_cb), self, 0);
  g_signal_connect_object (self->agent, "approval-withdrawn", G_CALLBACK (approval_withdrawn_cb),
                           self, 0);
  g_signal_connect_object (self->agent, "output", G_CALLBACK (output_cb), self, 0);
  g_signal_connect_object (self->agent, "notify::sandbox-state", G_CALLBACK (sandbox_state_cb),
                           self, 0);
  g_signal_connect_object (self->agent, "profile-copied", G_CALLBACK (profile_copied_cb), self, 0);
  g_signal_connect_object (self->agent, "compacted", G_CALLBACK (compacted_cb), self, 0);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AGENT]);
}

static void
restore_pending (WardenSession *self)
{
  WardenApproval *pending = self->agent ? warden_agent_get_pending (self->agent) : NULL;

  if (pending != NULL)
    {
      approval_cb (self->agent, pending, self);
      set_state (self, "waiting");
    }
}

static WardenSession *
session_new (WardenSessionStore *store,
             WardenProfileStore *profiles)
{
  WardenSession *self = g_object_new (WARDEN_TYPE_SESSION, NULL);

  self->store = g_object_ref (store);
  self->profiles = g_object_ref (profiles);
  return self;
}

WardenSession *
warden_session_new (WardenSessionStore       *store,
                    WardenProfileStore       *profiles,
                    WardenLlmProvider        *provider,
                    const WardenAgentConfig  *config,
                    const char               *title,
                    GError                  **error)
{
  g_autoptr(WardenSession) self = session_new (store, profiles);

  g_return_val_if_fail (WARDEN_IS_LLM_PROVIDER (provider), NULL);

  self->agent = warden_agent_new (store, profiles, provider, config, error);
  if (self->agent == NULL)
    return NULL;
  self->info = warden_session_store_get_session (store, warden_agent_get_session_id (self->agent),
                                                 error);
  if (self->info == NULL)
    return NULL;
  if (title != NULL && *title != '\0' && !warden_session_rename (self, title, error))
    return NULL;
  connect_agent (self);
  warn_if_host (self);
  return g_steal_pointer (&self);
}

WardenSession *
warden_session_open (WardenSessionStore  *store,
                     WardenProfileStore  *profiles,
                     WardenLlmProvider   *provider,
                     const char          *id,
                     GError             **error)
{
  g_autoptr(WardenSession) self = session_new (store, profiles);

  self->info = warden_session_store_get_session (store, id, error);
  if (self->info == NULL)
    return NULL;
  load_history (self);
  warn_if_host (self);
  if (provider != NULL && !warden_session_set_provider (self, provider, error))
    return NULL;
  return g_steal_pointer (&self);
}

gboolean
warden_session_set_provider (WardenSession      *self,
                             WardenLlmProvider  *provider,
                             GError            **error)
{
  g_return_val_if_fail (WARDEN_IS_SESSION (self), FALSE);

  if (self->agent != NULL)
    return TRUE;
  self->agent = warden_agent_open (self->store, self->profiles, provider, self->info->id,
                                   NULL, error);
  if (self->agent == NULL)
    return FALSE;
  connect_agent (self);
  {
    GHashTableIter iter;
    WardenChatItem *item;
    gboolean waiting = FALSE;

    /* The cards are the history just read, with the calls as stored. */
    g_hash_table_iter_init (&iter, self->tools);
    while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &item))
      waiting |= warden_chat_item_get_state (item) == WARDEN_TOOL_CALL_PENDING;
    /* An approval that waited when Warden stopped: the agent brings it back
     * when it goes on, and stops again at once to ask. Nothing runs. */
    if (waiting)
      return start_run (self, NULL, error);
  }
  restore_pending (self);
  return TRUE;
}

/* ------------------------------------------------------------------------ */

const char *
warden_session_get_id (WardenSession *self)
{
  return self->info->id;
}

/* The first task the user gave, as the agent makes a title of it. */
static const char *
first_task (WardenSession *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->items));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(WardenChatItem) item = g_list_model_get_item (G_LIST_MODEL (self->items), i);

      if (warden_chat_item_get_kind (item) == WARDEN_CHAT_ITEM_USER)
        return warden_chat_item_get_text (item);  /* the list keeps it */
    }
  return NULL;
}

/* One title everywhere: the stored one, else the first task (the agent
 * stores that as the title, but into its own copy of the row), and "New
 * session" only while there is no task. */
const char *
warden_session_get_title (WardenSession *self)
{
  const char *task;

  if (self->info->title != NULL && *self->info->title != '\0')
    return self->info->title;
  /* The first task never changes: made once, the pointer stays valid. */
  if (self->derived_title != NULL)
    return self->derived_title;
  task = first_task (self);
  if (task == NULL || *task == '\0')
    return _("New session");
  self->derived_title = g_utf8_substring (task, 0, MIN (g_utf8_strlen (task, -1), 80));
  g_strdelimit (self->derived_title, "\n\r\t", ' ');
  g_strstrip (self->derived_title);
  return self->derived_title;
}

gboolean
warden_session_has_task (WardenSession *self)
{
  g_return_val_if_fail (WARDEN_IS_SESSION (self), FALSE);

  return first_task (self) != NULL;
}

gboolean
warden_session_rename (WardenSession  *self,
                       const char     *title,
                       GError        **error)
{
  /* The agent saves its own copy of the row; without one, ours is the copy. */
  if (self->agent != NULL)
    {
      if (!warden_agent_set_title (self->agent, title, error))
        return FALSE;
    }
  else
    {
      g_autoptr(WardenSessionRecord) fresh = warden_session_store_get_session (self->store,
                                                                             self->info->id,
                                                                             error);

      if (fresh == NULL)
        return FALSE;
      g_free (fresh->title);
      fresh->title = g_strdup (title);
      if (!warden_session_store_save_session (self->store, fresh, error))
        return FALSE;
    }
  g_free (self->info->title);
  self->info->title = g_strdup (title);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
  return TRUE;
}

const char *
warden_session_get_workspace (WardenSession *self)
{
  return self->info->workspace;
}

const char *
warden_session_get_profile (WardenSession *self)
{
  return self->agent ? warden_agent_get_profile (self->agent) : self->info->profile;
}

gboolean
warden_session_set_profile (WardenSession  *self,
                            const char     *profile_id,
                            GError        **error)
{
  if (g_strcmp0 (profile_id, warden_session_get_profile (self)) == 0)
    return TRUE;
  if (self->agent != NULL)
    {
      if (!warden_agent_set_profile (self->agent, profile_id, error))
        return FALSE;
    }
  else
    {
      g_autoptr(WardenProfile) profile = warden_profile_store_lookup (self->profiles, profile_id,
                                                                      error);

      if (profile == NULL)
        return FALSE;
      g_free (self->info->profile);
      self->info->profile = g_strdup (profile_id);
      if (!warden_session_store_save_session (self->store, self->info, error))
        return FALSE;
    }
  g_free (self->info->profile);
  self->info->profile = g_strdup (profile_id);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROFILE]);
  return TRUE;
}

WardenSandboxKind
warden_session_get_sandbox (WardenSession *self)
{
  WardenSandboxKind kind = WARDEN_SANDBOX_KIND_BWRAP;

  g_return_val_if_fail (WARDEN_IS_SESSION (self), kind);

  if (self->agent != NULL)
    return warden_agent_get_sandbox_kind (self->agent);
  /* Not opened yet (no model): the stored row's, as the agent would read it. */
  if (!warden_sandbox_kind_from_string (self->info->sandbox, &kind) ||
      kind == WARDEN_SANDBOX_KIND_AUTO)
    kind = WARDEN_SANDBOX_KIND_BWRAP;
  return kind;
}

const WardenLlmUsage *
warden_session_get_usage (WardenSession *self)
{
  g_return_val_if_fail (WARDEN_IS_SESSION (self), NULL);

  /* The agent's goes on from the stored total; without one, the stored total. */
  return self->agent ? warden_agent_get_session_usage (self->agent) : &self->info->usage;
}

const char *
warden_session_get_model (WardenSession *self)
{
  return self->info->model;
}

void
warden_session_add_notice (WardenSession *self,
                           const char    *text)
{
  g_return_if_fail (WARDEN_IS_SESSION (self));
  append_item (self, warden_chat_item_new (WARDEN_CHAT_ITEM_NOTICE, text));
  self->assistant = NULL;
}

WardenAgent *
warden_session_get_agent (WardenSession *self)
{
  return self->agent;
}

GListModel *
warden_session_get_items (WardenSession *self)
{
  return G_LIST_MODEL (self->items);
}

WardenChatItem *
warden_session_find_item (WardenSession *self,
                          const char    *tool_id)
{
  return g_hash_table_lookup (self->tools, tool_id);
}

GStrv
warden_session_dup_commands (WardenSession *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->items));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(WardenChatItem) item = g_list_model_get_item (G_LIST_MODEL (self->items), i);

      if (warden_chat_item_get_kind (item) == WARDEN_CHAT_ITEM_TOOL &&
          warden_chat_item_get_tool_kind (item) == WARDEN_TOOL_KIND_EXEC &&
          warden_chat_item_get_approval (item) == NULL)
        g_strv_builder_add (builder, warden_chat_item_get_subject (item));
    }
  return g_strv_builder_end (builder);
}

const char *
warden_session_get_state (WardenSession *self)
{
  return self->state;
}

gboolean
warden_session_get_busy (WardenSession *self)
{
  return g_strcmp0 (self->state, "running") == 0;
}

WardenApproval *
warden_session_get_pending (WardenSession *self)
{
  return self->agent ? warden_agent_get_pending (self->agent) : NULL;
}



guint
warden_session_get_model_silent (WardenSession *self)
{
  g_return_val_if_fail (WARDEN_IS_SESSION (self), 0);
  return self->model_silent;
}


gboolean
warden_session_send (WardenSession  *self,
                     const char     *text,
                     GError        **error)
{
  g_return_val_if_fail (text != NULL, FALSE);

  if (warden_session_get_pending (self) != NULL)
    {
      g_set_error (error, WARDEN_SESSION_ERROR, WARDEN_SESSION_ERROR_BUSY,
                   _("The agent waits for your answer to its last request first"));
      return FALSE;
    }
  if (!start_run (self, text, error))
    return FALSE;
  /* After start_run: the agent has stored it; a refused send shows nothing. */
  append_item (self, warden_chat_item_new (WARDEN_CHAT_ITEM_USER, text));
  /* The first task names the session from now on. */
  if (self->info->title == NULL || *self->info->title == '\0')
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
  return TRUE;
}

gboolean
warden_session_continue (WardenSession  *self,
                         GError        **error)
{
  return start_run (self, NULL, error);
}

/* @cause: what the call it stops records, and the model reads. */
static void
stop_for (WardenSession *self,
          WardenToolEnd  cause)
{
  if (self->cancellable == NULL)
    return;
  if (self->agent != NULL)
    warden_agent_set_stop_cause (self->agent, cause);
  g_cancellable_cancel (self->cancellable);
}

void
warden_session_stop (WardenSession *self)
{
  stop_for (self, WARDEN_TOOL_END_USER);
}

gboolean
warden_session_answer (WardenSession  *self,
                       const char     *approval_id,
                       gboolean        approved,
                       gboolean        allow_always,
                       const char     *text,
                       const char     *via,
                       GError        **error)
{
  WardenApproval *pending = warden_session_get_pending (self);
  WardenApprovalAnswer answer = { 0 };
  g_autofree char *id = g_strdup (approval_id);
  g_autofree char *profile = g_strdup (warden_session_get_profile (self));
  WardenChatItem *item;
  gboolean nested;

  if (pending == NULL || g_strcmp0 (warden_approval_get_id (pending), approval_id) != 0)
    {
      g_set_error (error, WARDEN_SESSION_ERROR, WARDEN_SESSION_ERROR_STALE,
                   _("That request was answered already"));
      return FALSE;
    }

  answer.approved = approved;
  answer.allow_always = approved && allow_always;
  answer.via = via;
  if (warden_approval_get_kind (pending) == WARDEN_APPROVAL_QUESTION)
    {
      answer.approved = TRUE;
      answer.answer = text ? text : "";
    }
  else if (!approved)
    answer.feedback = text && *text ? text : NULL;
  else if (allow_always)
    answer.pattern = text && *text ? text : NULL;

  nested = warden_approval_get_while_running (pending);
  if (!warden_agent_resolve (self->agent, &answer, error))
    return FALSE;
  /* "Always allow" on a built-in profile moves the session to its own copy. */
  if (g_strcmp0 (profile, warden_session_get_profile (self)) != 0)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROFILE]);

  item = g_hash_table_lookup (self->tools, id);
  if (item != NULL)
    {
      /* The agent keeps the answer in its record and hands the call over
       * again only when the loop goes on: until then the card shows the
       * answered call as the agent recorded it. */
      g_autoptr(WardenToolCallRecord) r = warden_session_store_get_tool_call (self->store,
                                                                              self->info->id,
                                                                              id, NULL);

      warden_chat_item_set_approval (item, NULL);
      if (r != NULL)
        {
          g_autoptr(WardenToolCall) answered = warden_tool_call_new_from_record (r);

          warden_chat_item_set_call (item, answered);
        }
      else if (nested)
        {
          /* A started program has no record: its card says the answer. */
          warden_chat_item_set_decision (item, approved ? allow_always
                                                          ? WARDEN_TOOL_DECISION_APPROVED_ALWAYS
                                                          : WARDEN_TOOL_DECISION_APPROVED
                                                        : WARDEN_TOOL_DECISION_REJECTED,
                                         NULL, NULL, approved ? NULL : text);
          warden_chat_item_set_state (item, approved ? WARDEN_TOOL_CALL_APPROVED
                                                     : WARDEN_TOOL_CALL_REJECTED);
        }
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING]);
  g_signal_emit (self, signals[APPROVAL_RESOLVED], 0, id);
  /* A program a running command started: the command went on meanwhile
   * and goes on now; the run is not over. */
  if (self->cancellable != NULL && nested)
    return TRUE;
  if (self->cancellable != NULL)
    {
      self->go_on = TRUE;
      set_state (self, "running");
      return TRUE;
    }
  set_state (self, "idle");
  return start_run (self, NULL, error);
}

static void
close_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;

  if (!warden_agent_close_finish (WARDEN_AGENT (object), result, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

void
warden_session_close_async (WardenSession       *self,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, warden_session_close_async);
  stop_for (self, WARDEN_TOOL_END_CLOSED);
  if (self->agent == NULL)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  warden_agent_close_async (self->agent, cancellable, close_cb, g_steal_pointer (&task));
}

gboolean
warden_session_close_finish (WardenSession  *self,
                             GAsyncResult   *result,
                             GError        **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ------------------------------------------------------------------------ */

static void
warden_session_dispose (GObject *object)
{
  WardenSession *self = WARDEN_SESSION (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->agent != NULL)
    g_signal_handlers_disconnect_by_data (self->agent, self);
  g_clear_object (&self->agent);
  self->assistant = NULL;
  self->running = NULL;
  if (self->tools != NULL)
    g_hash_table_remove_all (self->tools);
  if (self->items != NULL)
    g_list_store_remove_all (self->items);
  G_OBJECT_CLASS (warden_session_parent_class)->dispose (object);
}

static void
warden_session_finalize (GObject *object)
{
  WardenSession *self = WARDEN_SESSION (object);

  g_clear_pointer (&self->tools, g_hash_table_unref);
  g_clear_object (&self->items);
  g_clear_object (&self->store);
  g_clear_object (&self->profiles);
  g_clear_pointer (&self->info, warden_session_record_free);
  g_free (self->state);
  g_free (self->nested_id);
  g_free (self->derived_title);
  G_OBJECT_CLASS (warden_session_parent_class)->finalize (object);
}

static void
warden_session_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  WardenSession *self = WARDEN_SESSION (object);

  switch (prop_id)
    {
    case PROP_TITLE:
      g_value_set_string (value, warden_session_get_title (self));
      break;
    case PROP_PROFILE:
      g_value_set_string (value, warden_session_get_profile (self));
      break;
    case PROP_STATE:
      g_value_set_string (value, self->state);
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, warden_session_get_busy (self));
      break;
    case PROP_PENDING:
      g_value_set_object (value, warden_session_get_pending (self));
      break;
    case PROP_AGENT:
      g_value_set_object (value, self->agent);
      break;
    case PROP_MODEL_SILENT:
      g_value_set_uint (value, self->model_silent);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
warden_session_class_init (WardenSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = warden_session_dispose;
  object_class->finalize = warden_session_finalize;
  object_class->get_property = warden_session_get_property;

  properties[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, flags);
  properties[PROP_PROFILE] = g_param_spec_string ("profile", NULL, NULL, NULL, flags);
  properties[PROP_STATE] = g_param_spec_string ("state", NULL, NULL, NULL, flags);
  properties[PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE, flags);
  properties[PROP_PENDING] = g_param_spec_object ("pending", NULL, NULL, WARDEN_TYPE_APPROVAL,
                                                  flags);
  /* Set once, when the session gets a model: views bind to its sandbox
   * properties through it. */
  properties[PROP_AGENT] = g_param_spec_object ("agent", NULL, NULL, WARDEN_TYPE_AGENT, flags);
  /* Seconds the model has sent nothing of its answer (a notice each 30 s); 0 once it answers. */
  properties[PROP_MODEL_SILENT] = g_param_spec_uint ("model-silent", NULL, NULL, 0, G_MAXUINT, 0,
                                                     flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[COMMAND_STARTED] = g_signal_new ("command-started", G_TYPE_FROM_CLASS (klass),
                                           G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                           1, WARDEN_TYPE_CHAT_ITEM);
  signals[COMMAND_OUTPUT] = g_signal_new ("command-output", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                          1, G_TYPE_STRING);
  signals[COMMAND_FINISHED] = g_signal_new ("command-finished", G_TYPE_FROM_CLASS (klass),
                                            G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                            1, WARDEN_TYPE_CHAT_ITEM);
  signals[APPROVAL] = g_signal_new ("approval", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                    NULL, NULL, NULL, G_TYPE_NONE, 1, WARDEN_TYPE_APPROVAL);
  signals[APPROVAL_RESOLVED] = g_signal_new ("approval-resolved", G_TYPE_FROM_CLASS (klass),
                                             G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                             1, G_TYPE_STRING);
  signals[FAILED] = g_signal_new ("failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);
  signals[FINISHED] = g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                    NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
  /* The agent's "profile-copied": Always allow moved the session to the
   * user's copy of a built-in profile (from, to). */
  signals[PROFILE_COPIED] = g_signal_new ("profile-copied", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                          2, G_TYPE_STRING, G_TYPE_STRING);
}

static void
warden_session_init (WardenSession *self)
{
  self->items = g_list_store_new (WARDEN_TYPE_CHAT_ITEM);
  self->tools = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->state = g_strdup ("idle");
}
