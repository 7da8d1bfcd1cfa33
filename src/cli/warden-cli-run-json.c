/* warden-cli-run-json.c: warden-cli run --json, events out and answers in
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Standard output carries one JSON object per line and nothing else; every
 * object has "v" (the schema version), "type", "session" and "seq". Standard
 * input takes one JSON object per line when a question waits. The schema is
 * docs/events.md; tests/agent/test-cli-json.c checks every event of its
 * scenarios against the schema written there.
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-cli"

#include <signal.h>
#include <string.h>

#include "warden-cli.h"
#include "agent/warden-restore.h"
#include "warden-cli-run-private.h"

#include "common/warden-json.h"
#include "common/warden-printable.h"
#include "sandbox/warden-sandbox.h"

#define EVENTS_VERSION 1

/* What an answer looks like: the hint of every bad_input event. */
static const char answer_hint[] =
  "Send one JSON object on a line: {\"approval\": ID, \"approved\": true or false, "
  "\"allow_always\": false, \"pattern\": \"…\", \"feedback\": \"…\"} or "
  "{\"answer\": ID, \"text\": \"…\"}. The question is still pending.";

/* ------------------------------------------------------------------------ */
/* Writing events */

static JsonBuilder *
event_begin (Run        *run,
             const char *type)
{
  JsonBuilder *b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "v");
  json_builder_add_int_value (b, EVENTS_VERSION);
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, type);
  json_builder_set_member_name (b, "session");
  if (run->session_id != NULL)
    json_builder_add_string_value (b, run->session_id);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "seq");
  json_builder_add_int_value (b, ++run->seq);
  return b;
}

/* One line: the JSON writer escapes every control character (a newline in
 * a command's output too) and makes any byte valid UTF-8. */
static void
event_end (Run         *run,
           JsonBuilder *b)
{
  g_autofree char *text = NULL;
  g_autofree char *line = NULL;

  json_builder_end_object (b);
  text = warden_json_builder_to_string (b, FALSE);
  line = g_strconcat (text, "\n", NULL);
  _warden_cli_run_write (run, line);
  g_object_unref (b);
}

static void
add_string (JsonBuilder *b,
            const char  *name,
            const char  *value)
{
  json_builder_set_member_name (b, name);
  if (value != NULL)
    json_builder_add_string_value (b, value);
  else
    json_builder_add_null_value (b);
}

static void
add_int (JsonBuilder *b,
         const char  *name,
         gint64       value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, value);
}

static void
add_bool (JsonBuilder *b,
          const char  *name,
          gboolean     value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_boolean_value (b, value);
}

static void
add_strv (JsonBuilder        *b,
          const char         *name,
          const char * const *values)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (guint i = 0; values != NULL && values[i] != NULL; i++)
    json_builder_add_string_value (b, values[i]);
  json_builder_end_array (b);
}

/* What the approval surfaces show of model text: every control, bidi or
 * invisible character escaped, lines kept. */
static char *
shown (const char *text)
{
  return warden_printable (text, -1, WARDEN_PRINTABLE_KEEP_LINES);
}

/* ------------------------------------------------------------------------ */
/* The agent's signals */

static void
text_delta_cb (WardenAgent *agent,
               const char  *text,
               Run         *run)
{
  JsonBuilder *b = event_begin (run, "text");

  add_string (b, "text", text);
  event_end (run, b);
}

static void
announce (Run            *run,
          WardenToolCall *call)
{
  JsonBuilder *b = event_begin (run, "tool_call");
  JsonObject *input = warden_tool_call_get_input (call);
  WardenToolDecision decision = warden_tool_call_get_decision (call);

  g_hash_table_add (run->announced, g_strdup (warden_tool_call_get_id (call)));
  add_string (b, "id", warden_tool_call_get_id (call));
  add_string (b, "tool", warden_tool_call_get_name (call));
  json_builder_set_member_name (b, "input");
  if (input != NULL)
    json_builder_add_value (b, json_node_init_object (json_node_alloc (), input));
  else
    json_builder_add_null_value (b);
  add_string (b, "decision", warden_tool_decision_to_string (decision));
  add_string (b, "decided_by",
              warden_tool_call_get_decided_by (call) == WARDEN_DECIDED_BY_NONE
              ? NULL : warden_decided_by_to_string (warden_tool_call_get_decided_by (call)));
  add_string (b, "pattern", warden_tool_call_get_pattern (call));
  add_string (b, "reason", warden_tool_call_get_reason (call));
  event_end (run, b);
}

static void
tool_call_cb (WardenAgent    *agent,
              WardenToolCall *call,
              Run            *run)
{
  announce (run, call);
  if (warden_tool_call_get_kind (call) == WARDEN_TOOL_KIND_EXEC)
    {
      g_free (run->exec_id);
      run->exec_id = g_strdup (warden_tool_call_get_id (call));
    }
}

static void
output_cb (WardenAgent *agent,
           int          stream,
           const char  *data,
           Run         *run)
{
  JsonBuilder *b = event_begin (run, "output");

  add_string (b, "id", run->exec_id);
  add_string (b, "stream", stream == WARDEN_STREAM_STDERR ? "stderr" : "stdout");
  add_string (b, "chunk", data);
  event_end (run, b);
}

static void
tool_result_cb (WardenAgent    *agent,
                WardenToolCall *call,
                Run            *run)
{
  JsonBuilder *b;
  gboolean ran = warden_tool_call_get_kind (call) == WARDEN_TOOL_KIND_EXEC &&
                 warden_tool_call_get_state (call) == WARDEN_TOOL_CALL_FINISHED &&
                 !warden_tool_call_get_is_error (call);

  /* Denied, rejected, answered or settled in an earlier run: every result
   * follows a tool_call event that says how it was decided. */
  if (!g_hash_table_contains (run->announced, warden_tool_call_get_id (call)))
    announce (run, call);
  if (g_strcmp0 (run->exec_id, warden_tool_call_get_id (call)) == 0)
    g_clear_pointer (&run->exec_id, g_free);

  b = event_begin (run, "tool_result");
  add_string (b, "id", warden_tool_call_get_id (call));
  add_string (b, "tool", warden_tool_call_get_name (call));
  add_string (b, "state", warden_tool_call_state_to_string (warden_tool_call_get_state (call)));
  add_string (b, "decision",
              warden_tool_decision_to_string (warden_tool_call_get_decision (call)));
  add_bool (b, "is_error", warden_tool_call_get_is_error (call));
  json_builder_set_member_name (b, "exit_code");
  if (ran)
    json_builder_add_int_value (b, warden_tool_call_get_exit_code (call));
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "duration_ms");
  if (ran)
    json_builder_add_int_value (b, warden_tool_call_get_duration_ms (call));
  else
    json_builder_add_null_value (b);
  add_bool (b, "truncated", warden_tool_call_get_truncated (call));
  add_bool (b, "timed_out", warden_tool_call_get_timed_out (call));
  add_string (b, "feedback", warden_tool_call_get_feedback (call));
  add_string (b, "diff", warden_tool_call_get_diff (call));
  /* The checkpoint before it, and what its command created, changed and
   * deleted (docs/checkpoints.md). */
  json_builder_set_member_name (b, "step");
  if (warden_tool_call_get_step (call) > 0)
    json_builder_add_int_value (b, warden_tool_call_get_step (call));
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "changes");
  if (warden_tool_call_get_changes (call) != NULL)
    warden_restore_add_changes (b, warden_tool_call_get_changes (call));
  else
    json_builder_add_null_value (b);
  add_string (b, "result", warden_tool_call_get_result (call) ?: "");
  /* Why it ended (what the result says to the model), and whether it
   * started: a command stopped before it started is not settled, it runs
   * when the session goes on. */
  add_string (b, "ended_by", warden_tool_end_to_string (warden_tool_call_get_ended_by (call)));
  add_bool (b, "started", warden_tool_call_get_began (call));
  event_end (run, b);
}

static void
retrying_cb (WardenAgent *agent,
             guint        attempt,
             guint        delay_ms,
             const char  *reason,
             Run         *run)
{
  JsonBuilder *b = event_begin (run, "retrying");

  add_int (b, "attempt", attempt);
  add_int (b, "delay_ms", delay_ms);
  add_string (b, "reason", reason);
  event_end (run, b);
}

/* Progress: a person watching reads it on standard error, a program gets
 * the same at the same moment as an event. */
static void
waiting_cb (WardenAgent *agent,
            guint        seconds,
            Run         *run)
{
  JsonBuilder *b;

  if (seconds == 0)
    return;
  g_printerr ("warden-cli: the model has not answered for %u s; still waiting\n", seconds);
  b = event_begin (run, "waiting");
  add_int (b, "seconds", seconds);
  add_string (b, "awaiting", "model");
  event_end (run, b);
}

static void
compacted_cb (WardenAgent         *agent,
              guint                summarised,
              gint64               before,
              gint64               after,
              WardenCompactReason  reason,
              const char          *summary,
              Run                 *run)
{
  JsonBuilder *b = event_begin (run, "compacted");

  add_int (b, "summarised", summarised);
  add_string (b, "reason", warden_compact_reason_to_string (reason));
  add_int (b, "tokens_before", before);
  add_int (b, "tokens_after", after);
  add_int (b, "context_window", warden_agent_get_context_window (agent));
  add_string (b, "summary", summary);
  event_end (run, b);
}

void
_warden_cli_json_connect (Run         *run,
                          WardenAgent *agent)
{
  run->announced = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_signal_connect (agent, "text-delta", G_CALLBACK (text_delta_cb), run);
  g_signal_connect (agent, "tool-call", G_CALLBACK (tool_call_cb), run);
  g_signal_connect (agent, "tool-result", G_CALLBACK (tool_result_cb), run);
  g_signal_connect (agent, "output", G_CALLBACK (output_cb), run);
  g_signal_connect (agent, "retrying", G_CALLBACK (retrying_cb), run);
  g_signal_connect (agent, "waiting", G_CALLBACK (waiting_cb), run);
  g_signal_connect (agent, "compacted", G_CALLBACK (compacted_cb), run);
}

void
_warden_cli_json_notice (Run        *run,
                         const char *message)
{
  JsonBuilder *b = event_begin (run, "notice");

  add_string (b, "message", message);
  event_end (run, b);
}

void
_warden_cli_json_bad_line (Run        *run,
                           const char *message)
{
  _warden_cli_json_error (run, "bad_input", message, answer_hint);
}

void
_warden_cli_json_withdrawn (Run *run)
{
  JsonBuilder *b;

  /* Only the decision program was asked. */
  if (run->asking_id == NULL)
    return;
  b = event_begin (run, "approval_withdrawn");

  add_string (b, "id", run->asking_id);
  event_end (run, b);
}

void
_warden_cli_json_clear (Run *run)
{
  g_clear_pointer (&run->asking_id, g_free);
  g_clear_pointer (&run->announced, g_hash_table_unref);
  g_clear_pointer (&run->exec_id, g_free);
}

/* What the session gives the model of the project's instructions file. */
static void
add_instructions (JsonBuilder *b,
                  WardenAgent *agent)
{
  const WardenInstructions *instructions = warden_agent_get_instructions (agent);

  json_builder_set_member_name (b, "instructions");
  if (instructions == NULL)
    {
      json_builder_add_null_value (b);
      add_string (b, "instructions_problem", warden_agent_get_instructions_problem (agent));
      return;
    }
  json_builder_begin_object (b);
  add_string (b, "file", instructions->file);
  add_int (b, "bytes", instructions->size);
  add_bool (b, "truncated", instructions->truncated);
  add_string (b, "sha256", instructions->sha256);
  json_builder_end_object (b);
  add_string (b, "instructions_problem", NULL);
}

void
_warden_cli_json_session (Run                       *run,
                          WardenAgent               *agent,
                          const WardenSessionRecord *info,
                          const char                *task,
                          gboolean                   resumed)
{
  JsonBuilder *b;

  run->session_id = warden_agent_get_session_id (agent);
  b = event_begin (run, "session");
  add_string (b, "id", run->session_id);
  add_bool (b, "resumed", resumed);
  /* A new session is named after its task when the task is sent. */
  add_string (b, "title", info && info->title ? info->title : task);
  add_string (b, "workspace", info ? info->workspace : NULL);
  add_string (b, "profile", warden_agent_get_profile (agent));
  add_string (b, "provider", info ? info->provider : NULL);
  add_string (b, "model", info ? info->model : NULL);
  add_string (b, "base_url", info ? info->base_url : NULL);
  add_string (b, "sandbox", info ? info->sandbox : NULL);
  add_instructions (b, agent);
  add_int (b, "context_window", warden_agent_get_context_window (agent));
  event_end (run, b);
}

void
_warden_cli_json_error (Run        *run,
                        const char *code,
                        const char *message,
                        const char *hint)
{
  JsonBuilder *b = event_begin (run, "error");

  add_string (b, "code", code);
  add_string (b, "message", message);
  add_string (b, "hint", hint);
  event_end (run, b);
}

static void
add_usage (JsonBuilder          *b,
           const char           *name,
           const WardenLlmUsage *usage)
{
  JsonObject *object;

  json_builder_set_member_name (b, name);
  if (usage == NULL)
    {
      json_builder_add_null_value (b);
      return;
    }
  object = json_object_new ();
  warden_llm_usage_to_json (usage, object);
  json_builder_add_value (b, json_node_init_object (json_node_alloc (), object));
  json_object_unref (object);
}

void
_warden_cli_json_finished (Run                  *run,
                           const char           *reason,
                           guint                 steps,
                           const char           *pending,
                           int                   status,
                           const WardenLlmUsage *turn,
                           const WardenLlmUsage *session)
{
  JsonBuilder *b = event_begin (run, "finished");

  add_string (b, "reason", reason);
  add_int (b, "steps", steps);
  add_string (b, "pending", pending);
  add_int (b, "exit_code", status);
  add_usage (b, "usage", turn);
  add_usage (b, "session_usage", session);
  event_end (run, b);
}

/* ------------------------------------------------------------------------ */
/* A question waits: its event, then answers until one is whole */

static void
add_part (JsonBuilder              *b,
          const WardenDecisionPart *part)
{
  g_autofree char *text = shown (part->text);

  json_builder_begin_object (b);
  add_string (b, "text", part->text);
  add_string (b, "shown", text);
  add_string (b, "verdict", warden_verdict_to_string (part->verdict));
  add_string (b, "origin", warden_origin_to_string (part->origin));
  add_string (b, "reason", part->reason);
  add_string (b, "pattern", part->pattern);
  add_string (b, "suggestion", part->suggestion);
  json_builder_end_object (b);
}

/* The approval_required or ask_user event of @approval, not yet ended. */
static JsonBuilder *
pending_event (Run            *run,
               WardenApproval *approval)
{
  WardenApprovalKind kind = warden_approval_get_kind (approval);
  const char *subject = warden_approval_get_subject (approval);
  g_autofree char *subject_shown = shown (subject);
  JsonBuilder *b;

  if (kind == WARDEN_APPROVAL_QUESTION)
    {
      b = event_begin (run, "ask_user");
      add_string (b, "id", warden_approval_get_id (approval));
      add_string (b, "heading", warden_approval_get_heading (approval));
      add_string (b, "question", subject);
      add_string (b, "shown", subject_shown);
      add_strv (b, "choices", warden_approval_get_choices (approval));
      return b;
    }

  b = event_begin (run, "approval_required");
  add_string (b, "id", warden_approval_get_id (approval));
  /* Worded as every front end words it (warden_approval_get_heading()). */
  add_string (b, "heading", warden_approval_get_heading (approval));
  {
    g_auto(GStrv) origins = warden_approval_dup_origins (approval, NULL);

    add_strv (b, "origins", (const char * const *) origins);
  }
  add_string (b, "kind", kind == WARDEN_APPROVAL_COMMAND ? "command"
                         : kind == WARDEN_APPROVAL_HOST ? "host" : "file");
  add_string (b, "tool", warden_approval_get_tool_name (approval));
  add_string (b, kind == WARDEN_APPROVAL_COMMAND ? "command"
                 : kind == WARDEN_APPROVAL_HOST ? "host" : "path", subject);
  /* A host: the command that wants to reach it. */
  if (kind == WARDEN_APPROVAL_HOST)
    add_string (b, "by_command", warden_approval_get_part (approval));
  if (warden_approval_get_while_running (approval))
    {
      g_free (run->asking_id);
      run->asking_id = g_strdup (warden_approval_get_id (approval));
    }
  add_string (b, "shown", subject_shown);
  add_string (b, "cwd", warden_approval_get_cwd (approval));
  add_strv (b, "env", warden_approval_get_env (approval));
  /* A program a running command started: what started it, nearest first. */
  json_builder_set_member_name (b, "chain");
  if (warden_approval_get_chain (approval) != NULL)
    {
      const char * const *chain = warden_approval_get_chain (approval);

      json_builder_begin_array (b);
      for (guint i = 0; chain[i] != NULL; i++)
        json_builder_add_string_value (b, chain[i]);
      json_builder_end_array (b);
    }
  else
    json_builder_add_null_value (b);
  /* Not said for a question. */
  if (warden_approval_get_sandbox (approval) != WARDEN_SANDBOX_KIND_AUTO)
    add_string (b, "sandbox", warden_sandbox_kind_to_string (warden_approval_get_sandbox (approval)));
  else
    add_string (b, "sandbox", NULL);
  add_string (b, "reason", warden_approval_get_reason (approval));
  json_builder_set_member_name (b, "parts");
  json_builder_begin_array (b);
  {
    WardenDecision *decision = warden_approval_get_decision (approval);

    for (guint i = 0; decision != NULL && i < warden_decision_get_n_parts (decision); i++)
      add_part (b, warden_decision_get_part (decision, i));
  }
  json_builder_end_array (b);
  if (kind == WARDEN_APPROVAL_HOST)
    {
      add_strv (b, "suggestions", warden_approval_get_suggestions (approval));
      add_bool (b, "always_allow", TRUE);
      add_string (b, "uncovered", NULL);
    }
  else if (kind == WARDEN_APPROVAL_COMMAND)
    {
      const char *uncovered_text = NULL, *uncovered_reason = NULL;
      gboolean uncovered = warden_approval_get_uncovered (approval, &uncovered_text,
                                                          &uncovered_reason);

      add_strv (b, "suggestions", warden_approval_get_suggestions (approval));
      add_bool (b, "always_allow", !uncovered);
      json_builder_set_member_name (b, "uncovered");
      if (uncovered)
        {
          json_builder_begin_object (b);
          add_string (b, "text", uncovered_text);
          add_string (b, "reason", uncovered_reason);
          json_builder_end_object (b);
        }
      else
        json_builder_add_null_value (b);
    }
  else
    {
      add_strv (b, "suggestions", NULL);
      add_bool (b, "always_allow", FALSE);
      add_string (b, "uncovered", NULL);
    }
  /* A write or an edit: what it changes in the file as it is now. */
  add_string (b, "diff", warden_approval_get_diff (approval));
  return b;
}

static void
announce_pending (Run            *run,
                  WardenApproval *approval)
{
  event_end (run, pending_event (run, approval));
}

char *
_warden_cli_json_pending_text (Run            *run,
                               WardenApproval *approval)
{
  JsonBuilder *b = pending_event (run, approval);
  char *text;

  /* Not an event of this stream: its seq is the next event's, and the
   * client is not asked about it (an approval_withdrawn would name what it
   * never saw). */
  run->seq--;
  g_clear_pointer (&run->asking_id, g_free);
  json_builder_end_object (b);
  text = warden_json_builder_to_string (b, FALSE);
  g_object_unref (b);
  return text;
}

/* Why a line is no answer: an error event, or with @why_out (a decision
 * program's answer) the message there and no event. */
static void
answer_error (Run         *run,
              char       **why_out,
              const char  *code,
              const char  *message,
              const char  *hint)
{
  if (why_out != NULL)
    {
      if (*why_out == NULL)
        *why_out = g_strdup (message);
    }
  else
    _warden_cli_json_error (run, code, message, hint);
}

/* Reads a member that must be of @type when it is there; FALSE (and an
 * error event) when it is something else. */
static gboolean
optional_member (Run         *run,
                 char       **why_out,
                 JsonObject  *object,
                 const char  *name,
                 GType        type,
                 JsonNode   **node_out)
{
  JsonNode *node = json_object_get_member (object, name);

  *node_out = NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != type)
    {
      g_autofree char *message = g_strdup_printf ("“%s” must be %s", name,
                                                  type == G_TYPE_BOOLEAN ? "true or false"
                                                  : "a string");

      answer_error (run, why_out, "bad_input", message, answer_hint);
      return FALSE;
    }
  *node_out = node;
  return TRUE;
}

/* Takes one line of input as an answer to @approval: TRUE with @answer
 * filled (its strings are @root's), or FALSE after an error event (the
 * question still waits) — or, with @why_out, with the reason there. */
gboolean
_warden_cli_json_parse_answer (Run                  *run,
                               WardenApproval       *approval,
                               JsonNode            **root,
                               const char           *line,
                               WardenApprovalAnswer *answer,
                               char                **why_out)
{
  g_autoptr(GError) error = NULL;
  JsonObject *object;
  JsonNode *id_node, *approved, *always, *pattern, *feedback, *text;
  const char *id_member;
  gboolean question = warden_approval_get_kind (approval) == WARDEN_APPROVAL_QUESTION;
  const char *id;

  /* The whole line is one JSON text, or it is no answer: what json-glib
   * alone reads past (a second value, a comment, a member twice) would make
   * a line that says two things mean one of them. */
  *root = warden_json_parse_exact (line, strlen (line), &error);
  if (*root == NULL)
    {
      g_autofree char *message = g_strdup_printf ("the line is not one JSON text: %s",
                                                  error->message);

      answer_error (run, why_out, "bad_input", message, answer_hint);
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (*root))
    {
      answer_error (run, why_out, "bad_input", "the line is not a JSON object", answer_hint);
      return FALSE;
    }
  object = json_node_get_object (*root);
  if (json_object_has_member (object, "message"))
    {
      g_autofree char *message = g_strdup_printf ("the agent is busy: %s “%s” waits for its "
                                                  "answer, and a message is taken only when the "
                                                  "agent is idle (after an idle event)",
                                                  question ? "the question" : "the approval",
                                                  warden_approval_get_id (approval));

      answer_error (run, why_out, "bad_input", message, answer_hint);
      return FALSE;
    }
  id_member = json_object_has_member (object, "approval") ? "approval"
              : json_object_has_member (object, "answer") ? "answer" : NULL;
  if (id_member == NULL)
    {
      answer_error (run, why_out, "bad_input",
                    "the object has neither “approval” nor “answer”", answer_hint);
      return FALSE;
    }
  id_node = json_object_get_member (object, id_member);
  id = JSON_NODE_HOLDS_VALUE (id_node) && json_node_get_value_type (id_node) == G_TYPE_STRING
       ? json_node_get_string (id_node) : NULL;
  if (id == NULL || strcmp (id, warden_approval_get_id (approval)) != 0)
    {
      g_autofree char *message = g_strdup_printf ("nothing with this id waits; %s “%s” does",
                                                  question ? "the question" : "the approval",
                                                  warden_approval_get_id (approval));

      answer_error (run, why_out, "unknown_id", message,
                    "Answer the id of the last approval_required or ask_user event.");
      return FALSE;
    }
  if (question != (strcmp (id_member, "answer") == 0))
    {
      answer_error (run, why_out, "bad_input",
                    question ? "this is a question: answer it with {\"answer\": ID, "
                               "\"text\": \"…\"}"
                             : "this is an approval: answer it with {\"approval\": ID, "
                               "\"approved\": true or false}",
                    answer_hint);
      return FALSE;
    }

  if (question)
    {
      if (!optional_member (run, why_out, object, "text", G_TYPE_STRING, &text))
        return FALSE;
      if (text == NULL)
        {
          answer_error (run, why_out, "bad_input", "the answer has no “text”", answer_hint);
          return FALSE;
        }
      answer->answer = json_node_get_string (text);
      return TRUE;
    }

  /* Nothing approves by default: "approved" must be said. */
  if (!optional_member (run, why_out, object, "approved", G_TYPE_BOOLEAN, &approved) ||
      !optional_member (run, why_out, object, "allow_always", G_TYPE_BOOLEAN, &always) ||
      !optional_member (run, why_out, object, "pattern", G_TYPE_STRING, &pattern) ||
      !optional_member (run, why_out, object, "feedback", G_TYPE_STRING, &feedback))
    return FALSE;
  if (approved == NULL)
    {
      answer_error (run, why_out, "bad_input", "the answer has no “approved”: true or false",
                    answer_hint);
      return FALSE;
    }
  answer->approved = json_node_get_boolean (approved);
  answer->allow_always = always != NULL && json_node_get_boolean (always);
  answer->pattern = pattern ? json_node_get_string (pattern) : NULL;
  answer->feedback = feedback ? json_node_get_string (feedback) : NULL;
  if (answer->allow_always && !answer->approved)
    {
      answer_error (run, why_out, "bad_input", "“allow_always” goes with “approved”: true",
                    answer_hint);
      return FALSE;
    }
  if (answer->allow_always)
    {
      const char *uncovered_text = NULL, *uncovered_reason = NULL;
      g_autofree char *message = NULL;

      if (warden_approval_get_kind (approval) == WARDEN_APPROVAL_PATH)
        message = g_strdup ("a file approval cannot be always allowed; approve it once");
      else if (warden_approval_get_uncovered (approval, &uncovered_text, &uncovered_reason))
        message = g_strdup_printf ("no pattern can always allow “%s” (%s); approve it once",
                                   uncovered_text, uncovered_reason);
      if (message != NULL)
        {
          answer_error (run, why_out, "not_allowed", message,
                        "Answer with \"allow_always\": false, or reject it.");
          return FALSE;
        }
    }
  if (answer->pattern != NULL && !answer->allow_always)
    {
      answer_error (run, why_out, "bad_input", "“pattern” goes with “allow_always”: true",
                    answer_hint);
      return FALSE;
    }
  if (answer->feedback != NULL && answer->approved)
    {
      answer_error (run, why_out, "bad_input", "“feedback” goes with “approved”: false",
                    answer_hint);
      return FALSE;
    }
  return TRUE;
}

PromptResult
_warden_cli_json_answer (Run         *run,
                         WardenAgent *agent)
{
  WardenApproval *approval = warden_agent_get_pending (agent);

  announce_pending (run, approval);
  for (;;)
    {
      g_autofree char *line = NULL;
      g_autoptr(JsonNode) root = NULL;
      g_autoptr(GError) error = NULL;
      WardenApprovalAnswer answer = { 0 };
      PromptResult result;

      if (run->write_errno != 0)
        return PROMPT_STOPPED;
      if ((result = _warden_cli_run_read_line (run, &line)) != PROMPT_ANSWERED)
        return result;
      /* Blank lines are skipped (JSON's own white space). */
      if (line[strspn (line, " \t\r")] == '\0')
        continue;
      if (!_warden_cli_json_parse_answer (run, approval, &root, line, &answer, NULL))
        continue;
      answer.via = "script";
      if (!warden_agent_resolve (agent, &answer, &error))
        {
          /* Its command ended first (an approval_withdrawn event said so). */
          if (g_error_matches (error, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_NO_PENDING) &&
              warden_approval_get_while_running (approval))
            return PROMPT_ANSWERED;
          /* A pattern the profile cannot take, say: the question waits. */
          if (g_error_matches (error, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_FAILED) ||
              error->domain == WARDEN_POLICY_ERROR)
            {
              _warden_cli_json_error (run, "not_allowed", error->message, answer_hint);
              continue;
            }
          warden_cli_error ("%s", error->message);
          run->lease_lost = g_error_matches (error, WARDEN_STORE_ERROR,
                                             WARDEN_STORE_ERROR_LOST);
          if (run->lease_lost)
            _warden_cli_json_error (run, "lost", error->message,
                                    "Another Warden has the session now; nothing more runs "
                                    "here.");
          else
            _warden_cli_json_error (run, "store", error->message,
                                    "Nothing was recorded; resume the session when the "
                                    "database is writable.");
          return PROMPT_FAILED;
        }
      return PROMPT_ANSWERED;
    }
}

/* ------------------------------------------------------------------------ */
/* chat --json: the agent is idle, and a line may start the next turn */

/* What a message looks like: the hint of a bad_input event while idle. */
static const char message_hint[] =
  "Send one JSON object on a line: {\"message\": \"…\"} starts the next turn; the end of "
  "input ends the session (it can be resumed).";

static void
idle_event (Run         *run,
            WardenAgent *agent)
{
  JsonBuilder *b = event_begin (run, "idle");

  add_int (b, "steps", warden_agent_get_steps (agent));
  event_end (run, b);
}

/* The text of a {"message": "…"} line, or NULL after a bad_input event. */
static char *
parse_message (Run        *run,
               const char *line)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = warden_json_parse_exact (line, strlen (line), &error);
  JsonObject *object;
  JsonNode *text;

  if (root == NULL)
    {
      g_autofree char *message = g_strdup_printf ("the line is not one JSON text: %s",
                                                  error->message);

      _warden_cli_json_error (run, "bad_input", message, message_hint);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      _warden_cli_json_error (run, "bad_input", "the line is not a JSON object", message_hint);
      return NULL;
    }
  object = json_node_get_object (root);
  if (json_object_has_member (object, "approval") || json_object_has_member (object, "answer"))
    {
      _warden_cli_json_error (run, "unknown_id", "nothing waits for an answer: the agent is "
                              "idle", message_hint);
      return NULL;
    }
  text = json_object_get_member (object, "message");
  if (text == NULL || !JSON_NODE_HOLDS_VALUE (text) ||
      json_node_get_value_type (text) != G_TYPE_STRING || json_object_get_size (object) != 1)
    {
      _warden_cli_json_error (run, "bad_input", "a message is an object with one member, "
                              "“message”, a string", message_hint);
      return NULL;
    }
  if (json_node_get_string (text)[strspn (json_node_get_string (text), " \t\r\n")] == '\0')
    {
      _warden_cli_json_error (run, "bad_input", "the message is empty", message_hint);
      return NULL;
    }
  return g_strdup (json_node_get_string (text));
}

char *
_warden_cli_json_next_message (Run           *run,
                               WardenAgent   *agent,
                               GCancellable **turn,
                               int           *status_out)
{
  *status_out = 0;
  _warden_cli_chat_rearm (run, turn);
  idle_event (run, agent);
  for (;;)
    {
      g_autofree char *line = NULL;
      char *task;
      PromptResult result;

      if (run->write_errno != 0)
        {
          *status_out = EXIT_FAILED;
          return NULL;
        }
      result = _warden_cli_run_read_line (run, &line);
      if (result == PROMPT_NO_ANSWER)
        return NULL;
      if (result != PROMPT_ANSWERED)
        {
          *status_out = run->write_errno != 0 ? EXIT_FAILED
                        : EXIT_SIGNAL_BASE + (run->signum ? run->signum : SIGINT);
          return NULL;
        }
      if (line[strspn (line, " \t\r")] == '\0')
        continue;
      if ((task = parse_message (run, line)) != NULL)
        return task;
    }
}
