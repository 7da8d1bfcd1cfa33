/* warden-trace.c: a session's timeline of model calls, tool calls and approvals
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-agent"

#include <glib/gi18n.h>

#include "warden-trace.h"

#include "common/warden-json.h"

typedef struct
{
  JsonObject *object;
  gint64      time;
  guint       index;  /* keeps events of the same millisecond in the order they were added */
} Event;

static void
event_free (gpointer data)
{
  Event *event = data;

  json_object_unref (event->object);
  g_free (event);
}

static void
add_event (GPtrArray  *events,
           JsonObject *object,
           gint64      time)
{
  Event *event = g_new0 (Event, 1);

  event->object = object;
  event->time = time;
  event->index = events->len;
  json_object_set_int_member (object, "time", time);
  g_ptr_array_add (events, event);
}

static int
event_compare (gconstpointer a,
               gconstpointer b)
{
  const Event *ea = *(const Event * const *) a;
  const Event *eb = *(const Event * const *) b;

  if (ea->time != eb->time)
    return ea->time < eb->time ? -1 : 1;
  return ea->index < eb->index ? -1 : ea->index > eb->index;
}

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
set_subject (JsonObject *event,
             const char *tool_name,
             const char *input_json)
{
  static const struct { const char *input; const char *output; } fields[] = {
    { "command", "command" },
    { "path", "path" },
    { "question", "question" },
    { "pattern", "query" },
  };
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *input;

  if (input_json == NULL || !json_parser_load_from_data (parser, input_json, -1, NULL))
    return;
  if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return;
  input = json_node_get_object (json_parser_get_root (parser));

  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      const char *value = warden_json_get_string (input, fields[i].input);

      if (value != NULL)
        {
          json_object_set_string_member (event, fields[i].output, value);
          break;
        }
    }

  if (g_strcmp0 (tool_name, "exec") == 0)
    {
      JsonNode *cwd = json_object_get_member (input, "cwd");

      if (cwd != NULL && JSON_NODE_HOLDS_VALUE (cwd) &&
          json_node_get_value_type (cwd) == G_TYPE_STRING)
        json_object_set_string_member (event, "cwd", json_node_get_string (cwd));
    }
}

/* An exec result is {"exit_code", "stdout", "stderr", "duration_ms", "truncated",
 * "timed_out"?}; any other tool's result, or an error, is plain text. */
static void
set_exit_status (JsonObject *event,
                 const char *result_json)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *result;
  JsonNode *node;

  if (result_json == NULL || result_json[0] != '{' ||
      !json_parser_load_from_data (parser, result_json, -1, NULL) ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return;
  result = json_node_get_object (json_parser_get_root (parser));

  node = json_object_get_member (result, "exit_code");
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
      json_node_get_value_type (node) == G_TYPE_INT64)
    json_object_set_int_member (event, "exit_status", json_node_get_int (node));

  node = json_object_get_member (result, "timed_out");
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
      json_node_get_value_type (node) == G_TYPE_BOOLEAN && json_node_get_boolean (node))
    json_object_set_boolean_member (event, "timed_out", TRUE);
}

/* Every host a command reached or was refused ("network" of its result),
 * as events of their own: {"type": "host", "id", "host", "port",
 * "decision": "allowed"/"refused", "by": "profile"/"user"/"session",
 * "pattern"?, "feedback"?}. */
static void
add_host_events (GPtrArray                  *events,
                 const WardenToolCallRecord *r,
                 gint64                      fallback_time);

static const char *
approval_answer (const WardenToolCallRecord *r)
{
  if (r->answered == 0)
    return NULL;
  if (g_strcmp0 (r->decision, "approved-always") == 0)
    return "always";
  if (g_strcmp0 (r->decision, "approved") == 0)
    return "approved";
  if (g_strcmp0 (r->decision, "rejected") == 0)
    return "rejected";
  /* ask_user: the answer itself is in "feedback" of the tool call. */
  return "answered";
}

GPtrArray *
warden_trace_list_events (WardenSessionStore  *store,
                          const char          *session_id,
                          GError             **error)
{
  g_autoptr(GPtrArray) model_calls = NULL;
  g_autoptr(GPtrArray) tool_calls = NULL;
  g_autoptr(GPtrArray) events = NULL;
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

  events = g_ptr_array_new_with_free_func (event_free);

  for (guint i = 0; i < model_calls->len; i++)
    {
      const WardenModelCallRecord *m = g_ptr_array_index (model_calls, i);
      JsonObject *event = json_object_new ();

      json_object_set_string_member (event, "type", "model_call");
      json_object_set_int_member (event, "seq", m->seq);
      json_object_set_int_member (event, "latency_ms", m->latency_ms);
      json_object_set_int_member (event, "input_tokens", m->input_tokens);
      json_object_set_int_member (event, "output_tokens", m->output_tokens);
      /* The store has when the answer was complete; a timeline starts an
       * event when it began, which puts the call before the tools it asked for. */
      add_event (events, event, m->created - MAX (m->latency_ms, 0));
    }

  for (guint i = 0; i < tool_calls->len; i++)
    {
      const WardenToolCallRecord *r = g_ptr_array_index (tool_calls, i);
      JsonObject *event = json_object_new ();
      gint64 time = r->started ? r->started : r->asked ? r->asked : r->finished;

      /* A call with no time at all (cut short before anything happened)
       * stays where it was saved, after the call before it. */
      if (time == 0)
        time = last_time;
      last_time = time;

      json_object_set_string_member (event, "type", "tool_call");
      set_string_or_null (event, "id", r->tool_use_id);
      set_string_or_null (event, "name", r->name);
      set_subject (event, r->name, r->input_json);
      set_string_or_null (event, "decision", r->decision);
      set_string_or_null (event, "pattern", r->pattern);
      set_string_or_null (event, "state", r->state);
      set_exit_status (event, r->result_json);
      if (r->started > 0 && r->finished >= r->started)
        json_object_set_int_member (event, "duration_ms", r->finished - r->started);
      set_string_or_null (event, "feedback", r->feedback);
      set_string_or_null (event, "diff", r->diff);
      add_event (events, event, time);
      add_host_events (events, r, time);

      if (r->asked > 0)
        {
          JsonObject *approval = json_object_new ();

          json_object_set_string_member (approval, "type", "approval");
          set_string_or_null (approval, "id", r->tool_use_id);
          set_string_or_null (approval, "name", r->name);
          if (r->answered > 0)
            json_object_set_int_member (approval, "waited_ms", MAX (r->answered - r->asked, 0));
          else
            json_object_set_null_member (approval, "waited_ms");
          set_string_or_null (approval, "answered_via", r->answered_via);
          set_string_or_null (approval, "answer", approval_answer (r));
          add_event (events, approval, r->asked);
        }
    }

  g_ptr_array_sort (events, event_compare);

  result = g_ptr_array_new_full (events->len, (GDestroyNotify) json_object_unref);
  for (guint i = 0; i < events->len; i++)
    {
      Event *event = g_ptr_array_index (events, i);

      g_ptr_array_add (result, json_object_ref (event->object));
    }
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
  char *text;

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
  json_object_set_int_member (session, "input_tokens", info->input_tokens);
  json_object_set_int_member (session, "output_tokens", info->output_tokens);

  array = json_array_sized_new (events->len);
  for (guint i = 0; i < events->len; i++)
    json_array_add_object_element (array, json_object_ref (g_ptr_array_index (events, i)));

  document = json_object_new ();
  json_object_set_int_member (document, "version", 1);
  json_object_set_object_member (document, "session", session);
  json_object_set_array_member (document, "events", array);

  root = json_node_init_object (json_node_alloc (), document);
  json_object_unref (document);

  text = warden_json_to_string (root, TRUE);

  return text;
}

static void
add_host_events (GPtrArray                  *events,
                 const WardenToolCallRecord *r,
                 gint64                      fallback_time)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *result;
  JsonNode *node;
  JsonArray *hosts;

  if (r->result_json == NULL || r->result_json[0] != '{' ||
      !json_parser_load_from_data (parser, r->result_json, -1, NULL) ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return;
  result = json_node_get_object (json_parser_get_root (parser));
  node = json_object_get_member (result, "network");
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return;
  hosts = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (hosts); i++)
    {
      JsonNode *element = json_array_get_element (hosts, i);
      JsonObject *entry;
      JsonObject *event;
      gint64 time;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      entry = json_node_get_object (element);
      event = json_object_new ();
      json_object_set_string_member (event, "type", "host");
      set_string_or_null (event, "id", r->tool_use_id);
      set_string_or_null (event, "host", json_object_get_string_member_with_default (entry, "host", NULL));
      json_object_set_int_member (event, "port", json_object_get_int_member_with_default (entry, "port", 0));
      set_string_or_null (event, "decision", json_object_get_string_member_with_default (entry, "decision", NULL));
      set_string_or_null (event, "by", json_object_get_string_member_with_default (entry, "by", NULL));
      set_string_or_null (event, "pattern", json_object_get_string_member_with_default (entry, "pattern", NULL));
      set_string_or_null (event, "feedback", json_object_get_string_member_with_default (entry, "feedback", NULL));
      time = json_object_get_int_member_with_default (entry, "time", fallback_time);
      add_event (events, event, time);
    }
}
