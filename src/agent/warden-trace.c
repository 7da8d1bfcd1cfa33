/* warden-trace.c: a session's timeline of model calls, tool calls and approvals
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Read from the store's rows: every question is one, a program a command
 * started and a host it wanted too, so nothing is parsed back out of what
 * the model was given.
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-agent"

#include <glib/gi18n.h>

#include "warden-trace.h"

#include "common/warden-json.h"

void
warden_trace_event_free (WardenTraceEvent *event)
{
  if (event == NULL)
    return;
  g_clear_object (&event->call);
  g_clear_pointer (&event->compaction, warden_compaction_record_free);
  g_free (event);
}

typedef struct
{
  WardenTraceEvent *event;
  guint             index;  /* keeps events of the same millisecond in the order they were added */
} Slot;

static void
add (GPtrArray        *events,
     WardenTraceKind   kind,
     gint64            time,
     WardenToolCall   *call)
{
  WardenTraceEvent *event = g_new0 (WardenTraceEvent, 1);

  event->kind = kind;
  event->time = time;
  event->call = call ? g_object_ref (call) : NULL;
  g_ptr_array_add (events, event);
}

static int
slot_compare (gconstpointer a,
              gconstpointer b)
{
  const Slot *sa = a;
  const Slot *sb = b;

  if (sa->event->time != sb->event->time)
    return sa->event->time < sb->event->time ? -1 : 1;
  return sa->index < sb->index ? -1 : sa->index > sb->index;
}

GPtrArray *
warden_trace_list (WardenSessionStore  *store,
                   const char          *session_id,
                   GError             **error)
{
  g_autoptr(GPtrArray) model_calls = NULL;
  g_autoptr(GPtrArray) tool_calls = NULL;
  g_autoptr(GPtrArray) compactions = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GArray) slots = NULL;
  GPtrArray *result;
  gint64 last_time = 0;

  g_return_val_if_fail (WARDEN_IS_SESSION_STORE (store), NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  model_calls = warden_session_store_list_model_calls (store, session_id, error);
  if (model_calls == NULL)
    return NULL;
  tool_calls = warden_session_store_list_tool_calls (store, session_id, error);
  if (tool_calls == NULL)
    return NULL;
  compactions = warden_session_store_list_compactions (store, session_id, error);
  if (compactions == NULL)
    return NULL;

  events = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_trace_event_free);
  for (guint i = 0; i < model_calls->len; i++)
    {
      const WardenModelCallRecord *m = g_ptr_array_index (model_calls, i);
      WardenTraceEvent *event;

      /* The store has when the answer was complete; a timeline starts an
       * event when it began, which puts the call before the tools it asked for. */
      add (events, WARDEN_TRACE_MODEL_CALL, m->created - MAX (m->latency_ms, 0), NULL);
      event = g_ptr_array_index (events, events->len - 1);
      event->model = *m;
    }

  for (guint i = 0; i < tool_calls->len; i++)
    {
      g_autoptr(WardenToolCall) call = warden_tool_call_new_from_record (g_ptr_array_index (tool_calls, i));
      WardenToolKind kind = warden_tool_call_get_kind (call);
      gint64 started = warden_tool_call_get_started (call);
      gint64 asked = warden_tool_call_get_asked (call);
      gint64 answered = warden_tool_call_get_answered (call);
      gint64 time = started ? started : asked ? asked : warden_tool_call_get_finished (call);

      /* A program or a host is where it was decided: its answer, if asked. */
      if (kind == WARDEN_TOOL_KIND_PROGRAM || kind == WARDEN_TOOL_KIND_HOST)
        time = answered ? answered : time;
      /* A call with no time at all (cut short before anything happened)
       * stays where it was saved, after the call before it. */
      if (time == 0)
        time = last_time;
      last_time = time;

      add (events, kind == WARDEN_TOOL_KIND_PROGRAM ? WARDEN_TRACE_PROGRAM
                   : kind == WARDEN_TOOL_KIND_HOST ? WARDEN_TRACE_HOST : WARDEN_TRACE_TOOL_CALL,
           time, call);
      if (asked > 0)
        add (events, WARDEN_TRACE_APPROVAL, asked, call);
    }

  for (guint i = 0; i < compactions->len; i++)
    {
      WardenCompactionRecord *c = g_ptr_array_index (compactions, i);

      add (events, WARDEN_TRACE_COMPACTED, c->created, NULL);
      ((WardenTraceEvent *) g_ptr_array_index (events, events->len - 1))->compaction =
        g_ptr_array_steal_index (compactions, i--);
    }

  /* In time order; stable, as g_ptr_array_sort is not. */
  slots = g_array_sized_new (FALSE, FALSE, sizeof (Slot), events->len);
  for (guint i = 0; i < events->len; i++)
    {
      Slot slot = { g_ptr_array_index (events, i), i };

      g_array_append_val (slots, slot);
    }
  g_array_sort (slots, slot_compare);
  result = g_ptr_array_new_full (events->len, (GDestroyNotify) warden_trace_event_free);
  for (guint i = 0; i < slots->len; i++)
    g_ptr_array_add (result, g_array_index (slots, Slot, i).event);
  /* The events moved to @result. */
  g_ptr_array_set_free_func (events, NULL);
  return result;
}

/* ------------------------------------------------------------------------ */
/* As JSON */

static void
set_string_or_null (JsonObject *object,
                    const char *name,
                    const char *value)
{
  if (value != NULL)
    json_object_set_string_member (object, name, value);
  else
    json_object_set_null_member (object, name);
}

/* The member of the tool's input that says what it acts on. A glob or grep
 * pattern goes under "query" so that it is not read as the policy pattern. */
static void
set_subject (JsonObject     *event,
             WardenToolCall *call)
{
  static const struct { const char *input; const char *output; } fields[] = {
    { "command", "command" },
    { "path", "path" },
    { "question", "question" },
    { "pattern", "query" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      const char *value = warden_tool_call_get_arg (call, fields[i].input);

      if (value != NULL)
        {
          json_object_set_string_member (event, fields[i].output, value);
          break;
        }
    }
  if (warden_tool_call_get_kind (call) == WARDEN_TOOL_KIND_EXEC &&
      warden_tool_call_get_arg (call, "cwd") != NULL)
    json_object_set_string_member (event, "cwd", warden_tool_call_get_arg (call, "cwd"));
}

static const char *
approval_answer (WardenToolCall *call)
{
  if (warden_tool_call_get_answered (call) == 0)
    return NULL;
  switch (warden_tool_call_get_decision (call))
    {
    case WARDEN_TOOL_DECISION_APPROVED_ALWAYS:
      return "always";
    case WARDEN_TOOL_DECISION_APPROVED:
      return "approved";
    case WARDEN_TOOL_DECISION_REJECTED:
      return "rejected";
    default:
      /* ask_user: the answer itself is in "feedback" of the tool call. */
      return "answered";
    }
}

/* What became of a program or a host: allowed, refused, or nothing yet. */
static const char *
outcome (WardenToolCall *call)
{
  switch (warden_tool_call_get_decision (call))
    {
    case WARDEN_TOOL_DECISION_AUTO_ALLOWED:
    case WARDEN_TOOL_DECISION_APPROVED:
    case WARDEN_TOOL_DECISION_APPROVED_ALWAYS:
      return "allowed";
    case WARDEN_TOOL_DECISION_DENIED:
    case WARDEN_TOOL_DECISION_REJECTED:
      return "refused";
    default:
      return NULL;
    }
}

static const char *
decided_by (WardenToolCall *call)
{
  WardenDecidedBy by = warden_tool_call_get_decided_by (call);

  return by == WARDEN_DECIDED_BY_NONE ? NULL : warden_decided_by_to_string (by);
}

static JsonObject *
event_to_json (const WardenTraceEvent *e)
{
  JsonObject *event = json_object_new ();
  WardenToolCall *call = e->call;

  switch (e->kind)
    {
    case WARDEN_TRACE_MODEL_CALL:
      json_object_set_string_member (event, "type", "model_call");
      json_object_set_int_member (event, "seq", e->model.seq);
      json_object_set_int_member (event, "latency_ms", e->model.latency_ms);
      warden_llm_usage_to_json (&e->model.usage, event);
      json_object_remove_member (event, "requests");
      set_string_or_null (event, "instructions",
                          e->model.instructions[0] ? e->model.instructions : NULL);
      break;

    case WARDEN_TRACE_COMPACTED:
      json_object_set_string_member (event, "type", "compacted");
      json_object_set_int_member (event, "summarised", e->compaction->upto);
      set_string_or_null (event, "reason", e->compaction->reason);
      json_object_set_int_member (event, "tokens_before", e->compaction->tokens_before);
      json_object_set_int_member (event, "tokens_after", e->compaction->tokens_after);
      set_string_or_null (event, "summary", e->compaction->summary);
      break;

    case WARDEN_TRACE_TOOL_CALL:
      json_object_set_string_member (event, "type", "tool_call");
      set_string_or_null (event, "id", warden_tool_call_get_id (call));
      set_string_or_null (event, "name", warden_tool_call_get_name (call));
      set_subject (event, call);
      json_object_set_string_member (event, "decision",
                                     warden_tool_decision_to_string (warden_tool_call_get_decision (call)));
      set_string_or_null (event, "pattern", warden_tool_call_get_pattern (call));
      json_object_set_string_member (event, "state",
                                     warden_tool_call_state_to_string (warden_tool_call_get_state (call)));
      if (warden_tool_call_get_kind (call) == WARDEN_TOOL_KIND_EXEC &&
          warden_tool_call_get_exit_code (call) >= 0)
        json_object_set_int_member (event, "exit_status", warden_tool_call_get_exit_code (call));
      if (warden_tool_call_get_timed_out (call))
        json_object_set_boolean_member (event, "timed_out", TRUE);
      if (warden_tool_call_get_started (call) > 0 &&
          warden_tool_call_get_finished (call) >= warden_tool_call_get_started (call))
        json_object_set_int_member (event, "duration_ms", warden_tool_call_get_finished (call) -
                                                          warden_tool_call_get_started (call));
      set_string_or_null (event, "feedback", warden_tool_call_get_feedback (call));
      set_string_or_null (event, "diff", warden_tool_call_get_diff (call));
      break;

    case WARDEN_TRACE_PROGRAM:
    case WARDEN_TRACE_HOST:
      json_object_set_string_member (event, "type",
                                     e->kind == WARDEN_TRACE_PROGRAM ? "program" : "host");
      set_string_or_null (event, "id", warden_tool_call_get_parent_id (call));
      set_string_or_null (event, "question", warden_tool_call_get_id (call));
      if (e->kind == WARDEN_TRACE_PROGRAM)
        {
          set_string_or_null (event, "command", warden_tool_call_get_arg (call, "command"));
          set_string_or_null (event, "cwd", warden_tool_call_get_arg (call, "cwd"));
        }
      else
        {
          set_string_or_null (event, "host", warden_tool_call_get_arg (call, "name"));
          json_object_set_int_member (event, "port",
                                      warden_json_get_int (warden_tool_call_get_input (call),
                                                           "port", 0));
        }
      set_string_or_null (event, "decision", outcome (call));
      set_string_or_null (event, "by", decided_by (call));
      set_string_or_null (event, "pattern", warden_tool_call_get_pattern (call));
      if (e->kind == WARDEN_TRACE_PROGRAM)
        set_string_or_null (event, "reason", warden_tool_call_get_reason (call));
      set_string_or_null (event, "feedback", warden_tool_call_get_feedback (call));
      break;

    case WARDEN_TRACE_APPROVAL:
    default:
      json_object_set_string_member (event, "type", "approval");
      set_string_or_null (event, "id", warden_tool_call_get_id (call));
      set_string_or_null (event, "name", warden_tool_call_get_name (call));
      if (warden_tool_call_get_answered (call) > 0)
        json_object_set_int_member (event, "waited_ms",
                                    MAX (warden_tool_call_get_answered (call) -
                                         warden_tool_call_get_asked (call), 0));
      else
        json_object_set_null_member (event, "waited_ms");
      set_string_or_null (event, "answered_via", warden_tool_call_get_answered_via (call));
      set_string_or_null (event, "answer", approval_answer (call));
      break;
    }
  json_object_set_int_member (event, "time", e->time);
  return event;
}

GPtrArray *
warden_trace_list_events (WardenSessionStore  *store,
                          const char          *session_id,
                          GError             **error)
{
  g_autoptr(GPtrArray) events = warden_trace_list (store, session_id, error);
  GPtrArray *result;

  if (events == NULL)
    return NULL;
  result = g_ptr_array_new_full (events->len, (GDestroyNotify) json_object_unref);
  for (guint i = 0; i < events->len; i++)
    g_ptr_array_add (result, event_to_json (g_ptr_array_index (events, i)));
  return result;
}

char *
warden_trace_to_json (WardenSessionStore  *store,
                      const char          *session_id,
                      GError             **error)
{
  g_autoptr(WardenSessionRecord) info = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonObject *document;
  JsonObject *session;
  JsonArray *array;

  g_return_val_if_fail (WARDEN_IS_SESSION_STORE (store), NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  info = warden_session_store_get_session (store, session_id, error);
  if (info == NULL)
    return NULL;
  events = warden_trace_list_events (store, session_id, error);
  if (events == NULL)
    return NULL;

  session = json_object_new ();
  set_string_or_null (session, "id", info->id);
  set_string_or_null (session, "title", info->title);
  set_string_or_null (session, "workspace", info->workspace);
  set_string_or_null (session, "profile", info->profile);
  set_string_or_null (session, "sandbox", info->sandbox);
  set_string_or_null (session, "model", info->model);
  set_string_or_null (session, "provider", info->provider);
  /* Seconds in the store; milliseconds here, like every time of the events. */
  json_object_set_int_member (session, "created", info->created * 1000);
  warden_llm_usage_to_json (&info->usage, session);

  array = json_array_sized_new (events->len);
  for (guint i = 0; i < events->len; i++)
    json_array_add_object_element (array, json_object_ref (g_ptr_array_index (events, i)));

  document = json_object_new ();
  json_object_set_int_member (document, "version", 1);
  json_object_set_object_member (document, "session", session);
  json_object_set_array_member (document, "events", array);

  root = json_node_init_object (json_node_alloc (), document);
  json_object_unref (document);
  return warden_json_to_string (root, TRUE);
}
