/* warden-tool-call.c: one tool call of the model and what became of it
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-agent"

#include <glib/gi18n.h>

#include "warden-tool-call.h"

#include <string.h>

#include "common/warden-json.h"
#include "agent/warden-agent-enums.h"

/* What a call keeps of a command's output for views; the model's copy is
 * the result, cut by the sandbox. */
#define OUTPUT_KEPT (256 * 1024)

struct _WardenToolCall
{
  GObject              parent_instance;

  char                *session_id;
  char                *id;
  char                *name;
  WardenToolKind       kind;
  JsonNode            *input;
  char                *input_json;
  char                *subject;

  WardenToolCallState  state;
  WardenToolDecision   decision;
  char                *pattern;
  char                *reason;
  char                *feedback;

  char                *result;
  gboolean             is_error;
  int                  exit_code;
  gint64               duration_ms;
  GString             *output;
  gboolean             truncated;
  gboolean             timed_out;

  gint64               started;
  gint64               finished;
  gint64               asked;
  gint64               answered;
  char                *answered_via;

  char                *diff;
  gint64               message_seq;
  int                  block;
  char                *parent_id;
  WardenDecidedBy      decided_by;
  WardenToolEnd        ended_by;
  gboolean             began;
  gint64               step;      /* the checkpoint before it, 0: none */
  GPtrArray           *changes;   /* WardenFileChange: what its command changed */
};

G_DEFINE_FINAL_TYPE (WardenToolCall, warden_tool_call, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_ID,
  PROP_NAME,
  PROP_KIND,
  PROP_SUBJECT,
  PROP_STATE,
  PROP_DECISION,
  PROP_PATTERN,
  PROP_REASON,
  PROP_FEEDBACK,
  PROP_RESULT,
  PROP_IS_ERROR,
  PROP_EXIT_CODE,
  PROP_DURATION_MS,
  PROP_OUTPUT,
  PROP_TRUNCATED,
  PROP_TIMED_OUT,
  PROP_STARTED,
  PROP_FINISHED,
  PROP_ASKED,
  PROP_ANSWERED,
  PROP_ANSWERED_VIA,
  PROP_DIFF,
  PROP_STEP,
  PROP_CHANGES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  OUTPUT,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* The store's words: they shipped, so they never change. */
static const char *state_names[] = {
  [WARDEN_TOOL_CALL_NEW] = "new",
  [WARDEN_TOOL_CALL_PENDING] = "pending",
  [WARDEN_TOOL_CALL_APPROVED] = "approved",
  [WARDEN_TOOL_CALL_ANSWERED] = "answered",
  [WARDEN_TOOL_CALL_RUNNING] = "running",
  [WARDEN_TOOL_CALL_FINISHED] = "finished",
  [WARDEN_TOOL_CALL_REJECTED_UNREPORTED] = "rejected_unreported",
  [WARDEN_TOOL_CALL_REJECTED] = "rejected",
  [WARDEN_TOOL_CALL_DENIED] = "denied",
  [WARDEN_TOOL_CALL_INTERRUPTED] = "interrupted",
};

static const char *decision_names[] = {
  [WARDEN_TOOL_DECISION_NONE] = "none",
  [WARDEN_TOOL_DECISION_AUTO_ALLOWED] = "auto-allowed",
  [WARDEN_TOOL_DECISION_ASKED] = "asked",
  [WARDEN_TOOL_DECISION_APPROVED] = "approved",
  [WARDEN_TOOL_DECISION_APPROVED_ALWAYS] = "approved-always",
  [WARDEN_TOOL_DECISION_REJECTED] = "rejected",
  [WARDEN_TOOL_DECISION_DENIED] = "denied",
  [WARDEN_TOOL_DECISION_ANSWERED] = "answered",
};

static const char *kind_names[] = {
  [WARDEN_TOOL_KIND_UNKNOWN] = "",
  [WARDEN_TOOL_KIND_EXEC] = "exec",
  [WARDEN_TOOL_KIND_READ] = "read",
  [WARDEN_TOOL_KIND_WRITE] = "write",
  [WARDEN_TOOL_KIND_EDIT] = "edit",
  [WARDEN_TOOL_KIND_GLOB] = "glob",
  [WARDEN_TOOL_KIND_GREP] = "grep",
  [WARDEN_TOOL_KIND_ASK_USER] = "ask_user",
  [WARDEN_TOOL_KIND_PROGRAM] = "program",
  [WARDEN_TOOL_KIND_HOST] = "host",
};

static const char *end_names[] = {
  [WARDEN_TOOL_END_NONE] = NULL,
  [WARDEN_TOOL_END_FINISHED] = "finished",
  [WARDEN_TOOL_END_TIMED_OUT] = "timed_out",
  [WARDEN_TOOL_END_DENIED] = "denied",
  [WARDEN_TOOL_END_REJECTED] = "rejected",
  [WARDEN_TOOL_END_USER] = "user",
  [WARDEN_TOOL_END_CLOSED] = "closed",
  [WARDEN_TOOL_END_SIGNAL] = "signal",
  [WARDEN_TOOL_END_OUTPUT_FAILED] = "output_failed",
  [WARDEN_TOOL_END_INPUT_ENDED] = "input_ended",
  [WARDEN_TOOL_END_LOST] = "lost",
  [WARDEN_TOOL_END_FAILED] = "failed",
  [WARDEN_TOOL_END_WARDEN_STOPPED] = "warden_stopped",
  [WARDEN_TOOL_END_NEW_TASK] = "new_task",
};

static const char *decided_by_names[] = {
  [WARDEN_DECIDED_BY_NONE] = "none",
  [WARDEN_DECIDED_BY_PROFILE] = "profile",
  [WARDEN_DECIDED_BY_USER] = "user",
  [WARDEN_DECIDED_BY_SESSION] = "session",
};

const char *
warden_tool_call_state_to_string (WardenToolCallState state)
{
  g_return_val_if_fail (state < G_N_ELEMENTS (state_names), "new");
  return state_names[state];
}

WardenToolCallState
warden_tool_call_state_from_string (const char *text)
{
  for (guint i = 0; text != NULL && i < G_N_ELEMENTS (state_names); i++)
    if (strcmp (text, state_names[i]) == 0)
      return (WardenToolCallState) i;
  return WARDEN_TOOL_CALL_NEW;
}

const char *
warden_tool_decision_to_string (WardenToolDecision decision)
{
  g_return_val_if_fail (decision < G_N_ELEMENTS (decision_names), "none");
  return decision_names[decision];
}

WardenToolDecision
warden_tool_decision_from_string (const char *text)
{
  for (guint i = 0; text != NULL && i < G_N_ELEMENTS (decision_names); i++)
    if (strcmp (text, decision_names[i]) == 0)
      return (WardenToolDecision) i;
  return WARDEN_TOOL_DECISION_NONE;
}

WardenToolKind
warden_tool_kind_from_name (const char *name)
{
  for (guint i = 1; name != NULL && i < WARDEN_TOOL_KIND_PROGRAM; i++)
    if (strcmp (name, kind_names[i]) == 0)
      return (WardenToolKind) i;
  return WARDEN_TOOL_KIND_UNKNOWN;
}

const char *
warden_tool_kind_to_string (WardenToolKind kind)
{
  g_return_val_if_fail (kind < G_N_ELEMENTS (kind_names), "");
  return kind_names[kind];
}

const char *
warden_decided_by_to_string (WardenDecidedBy decided_by)
{
  g_return_val_if_fail (decided_by < G_N_ELEMENTS (decided_by_names), "none");
  return decided_by_names[decided_by];
}

WardenDecidedBy
warden_decided_by_from_string (const char *text)
{
  for (guint i = 0; text != NULL && i < G_N_ELEMENTS (decided_by_names); i++)
    if (strcmp (text, decided_by_names[i]) == 0)
      return (WardenDecidedBy) i;
  return WARDEN_DECIDED_BY_NONE;
}

const char *
warden_tool_end_to_string (WardenToolEnd ended_by)
{
  g_return_val_if_fail (ended_by < G_N_ELEMENTS (end_names), NULL);
  return end_names[ended_by];
}

WardenToolEnd
warden_tool_end_from_string (const char *text)
{
  for (guint i = 1; text != NULL && i < G_N_ELEMENTS (end_names); i++)
    if (strcmp (text, end_names[i]) == 0)
      return (WardenToolEnd) i;
  return WARDEN_TOOL_END_NONE;
}

char *
warden_tool_end_dup_message (WardenToolEnd ended_by,
                             gboolean      began)
{
  const char *when = began ? "while it ran" : "before it ran";
  const char *why;

  switch (ended_by)
    {
    case WARDEN_TOOL_END_CLOSED:
      why = "the user closed Warden";
      break;
    case WARDEN_TOOL_END_SIGNAL:
      why = "Warden was ended by a signal (such as SIGTERM), not with its Stop button or Ctrl+C";
      break;
    case WARDEN_TOOL_END_OUTPUT_FAILED:
      why = "Warden could not write its output (the program reading it went away, or the "
            "disk is full)";
      break;
    case WARDEN_TOOL_END_INPUT_ENDED:
      why = "a program it started needed the user's approval, and no answer could come "
            "(the input ended)";
      break;
    case WARDEN_TOOL_END_LOST:
      why = "another Warden took over the session";
      break;
    case WARDEN_TOOL_END_FAILED:
      why = "Warden could not record an answer";
      break;
    case WARDEN_TOOL_END_WARDEN_STOPPED:
      return g_strdup ("Error: this command was started but Warden stopped before it "
                       "finished; it was not run again. Check its effects before repeating it.");
    case WARDEN_TOOL_END_NEW_TASK:
      return g_strdup_printf ("Error: not run: the user went on with a new message %s", when);
    case WARDEN_TOOL_END_USER:
    default:
      return g_strdup_printf ("Error: stopped by the user %s", when);
    }
  if (began)
    return g_strdup_printf ("Error: stopped while it ran: %s. It was not run again; check its "
                            "effects before repeating it.", why);
  return g_strdup_printf ("Error: stopped before it ran: %s", why);
}

/* What a decision says of who made it, for rows that do not say. */
static WardenDecidedBy
decided_by_of (WardenToolDecision decision)
{
  switch (decision)
    {
    case WARDEN_TOOL_DECISION_AUTO_ALLOWED:
    case WARDEN_TOOL_DECISION_DENIED:
      return WARDEN_DECIDED_BY_PROFILE;
    case WARDEN_TOOL_DECISION_APPROVED:
    case WARDEN_TOOL_DECISION_APPROVED_ALWAYS:
    case WARDEN_TOOL_DECISION_REJECTED:
    case WARDEN_TOOL_DECISION_ANSWERED:
      return WARDEN_DECIDED_BY_USER;
    case WARDEN_TOOL_DECISION_NONE:
    case WARDEN_TOOL_DECISION_ASKED:
    default:
      return WARDEN_DECIDED_BY_NONE;
    }
}

/* ------------------------------------------------------------------------ */

static void
warden_tool_call_finalize (GObject *object)
{
  WardenToolCall *self = WARDEN_TOOL_CALL (object);

  g_free (self->session_id);
  g_free (self->id);
  g_free (self->name);
  g_clear_pointer (&self->input, json_node_unref);
  g_free (self->input_json);
  g_free (self->subject);
  g_free (self->pattern);
  g_free (self->reason);
  g_free (self->feedback);
  g_free (self->result);
  g_string_free (self->output, TRUE);
  g_free (self->answered_via);
  g_free (self->diff);
  g_free (self->parent_id);
  g_clear_pointer (&self->changes, g_ptr_array_unref);
  G_OBJECT_CLASS (warden_tool_call_parent_class)->finalize (object);
}

static void
warden_tool_call_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  WardenToolCall *self = WARDEN_TOOL_CALL (object);

  switch (prop_id)
    {
    case PROP_ID: g_value_set_string (value, self->id); break;
    case PROP_NAME: g_value_set_string (value, self->name); break;
    case PROP_KIND: g_value_set_enum (value, self->kind); break;
    case PROP_SUBJECT: g_value_set_string (value, self->subject); break;
    case PROP_STATE: g_value_set_enum (value, self->state); break;
    case PROP_DECISION: g_value_set_enum (value, self->decision); break;
    case PROP_PATTERN: g_value_set_string (value, self->pattern); break;
    case PROP_REASON: g_value_set_string (value, self->reason); break;
    case PROP_FEEDBACK: g_value_set_string (value, self->feedback); break;
    case PROP_RESULT: g_value_set_string (value, self->result); break;
    case PROP_IS_ERROR: g_value_set_boolean (value, self->is_error); break;
    case PROP_EXIT_CODE: g_value_set_int (value, self->exit_code); break;
    case PROP_DURATION_MS: g_value_set_int64 (value, self->duration_ms); break;
    case PROP_OUTPUT: g_value_set_string (value, self->output->str); break;
    case PROP_TRUNCATED: g_value_set_boolean (value, self->truncated); break;
    case PROP_TIMED_OUT: g_value_set_boolean (value, self->timed_out); break;
    case PROP_STARTED: g_value_set_int64 (value, self->started); break;
    case PROP_FINISHED: g_value_set_int64 (value, self->finished); break;
    case PROP_ASKED: g_value_set_int64 (value, self->asked); break;
    case PROP_ANSWERED: g_value_set_int64 (value, self->answered); break;
    case PROP_ANSWERED_VIA: g_value_set_string (value, self->answered_via); break;
    case PROP_DIFF: g_value_set_string (value, self->diff); break;
    case PROP_STEP: g_value_set_int64 (value, self->step); break;
    case PROP_CHANGES: g_value_set_boxed (value, self->changes); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

#define FLAGS (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS)

static void
warden_tool_call_class_init (WardenToolCallClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = warden_tool_call_finalize;
  object_class->get_property = warden_tool_call_get_property;

  properties[PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL, FLAGS);
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, FLAGS);
  properties[PROP_KIND] = g_param_spec_enum ("kind", NULL, NULL, WARDEN_TYPE_TOOL_KIND,
                                             WARDEN_TOOL_KIND_UNKNOWN, FLAGS);
  properties[PROP_SUBJECT] = g_param_spec_string ("subject", NULL, NULL, NULL, FLAGS);
  properties[PROP_STATE] = g_param_spec_enum ("state", NULL, NULL, WARDEN_TYPE_TOOL_CALL_STATE,
                                              WARDEN_TOOL_CALL_NEW, FLAGS);
  properties[PROP_DECISION] = g_param_spec_enum ("decision", NULL, NULL,
                                                 WARDEN_TYPE_TOOL_DECISION,
                                                 WARDEN_TOOL_DECISION_NONE, FLAGS);
  properties[PROP_PATTERN] = g_param_spec_string ("pattern", NULL, NULL, NULL, FLAGS);
  properties[PROP_REASON] = g_param_spec_string ("reason", NULL, NULL, NULL, FLAGS);
  properties[PROP_FEEDBACK] = g_param_spec_string ("feedback", NULL, NULL, NULL, FLAGS);
  properties[PROP_RESULT] = g_param_spec_string ("result", NULL, NULL, NULL, FLAGS);
  properties[PROP_IS_ERROR] = g_param_spec_boolean ("is-error", NULL, NULL, FALSE, FLAGS);
  properties[PROP_EXIT_CODE] = g_param_spec_int ("exit-code", NULL, NULL, -1, G_MAXINT, -1,
                                                 FLAGS);
  properties[PROP_DURATION_MS] = g_param_spec_int64 ("duration-ms", NULL, NULL, -1, G_MAXINT64,
                                                     -1, FLAGS);
  properties[PROP_OUTPUT] = g_param_spec_string ("output", NULL, NULL, NULL, FLAGS);
  properties[PROP_TRUNCATED] = g_param_spec_boolean ("truncated", NULL, NULL, FALSE, FLAGS);
  properties[PROP_TIMED_OUT] = g_param_spec_boolean ("timed-out", NULL, NULL, FALSE, FLAGS);
  properties[PROP_STARTED] = g_param_spec_int64 ("started", NULL, NULL, 0, G_MAXINT64, 0, FLAGS);
  properties[PROP_FINISHED] = g_param_spec_int64 ("finished", NULL, NULL, 0, G_MAXINT64, 0,
                                                  FLAGS);
  properties[PROP_ASKED] = g_param_spec_int64 ("asked", NULL, NULL, 0, G_MAXINT64, 0, FLAGS);
  properties[PROP_ANSWERED] = g_param_spec_int64 ("answered", NULL, NULL, 0, G_MAXINT64, 0,
                                                  FLAGS);
  properties[PROP_ANSWERED_VIA] = g_param_spec_string ("answered-via", NULL, NULL, NULL, FLAGS);
  properties[PROP_DIFF] = g_param_spec_string ("diff", NULL, NULL, NULL, FLAGS);
  properties[PROP_STEP] = g_param_spec_int64 ("step", NULL, NULL, 0, G_MAXINT64, 0, FLAGS);
  properties[PROP_CHANGES] = g_param_spec_boxed ("changes", NULL, NULL, G_TYPE_PTR_ARRAY, FLAGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[OUTPUT] = g_signal_new ("output", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                  NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_STRING);
}

static void
warden_tool_call_init (WardenToolCall *self)
{
  self->exit_code = -1;
  self->duration_ms = -1;
  self->message_seq = -1;
  self->block = -1;
  self->output = g_string_new (NULL);
}

static void
notify (WardenToolCall *self,
        guint           prop)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

static gboolean
replace (char       **field,
         const char  *value)
{
  if (g_strcmp0 (*field, value) == 0)
    return FALSE;
  g_free (*field);
  *field = g_strdup (value);
  return TRUE;
}

static char *
make_subject (WardenToolCall *self)
{
  static const char *members[] = { "command", "path", "question", "pattern", NULL };
  JsonObject *input = warden_tool_call_get_input (self);

  if (self->kind == WARDEN_TOOL_KIND_HOST)
    return g_strdup (warden_json_get_string (input, "host") ?: "");

  for (guint i = 0; members[i] != NULL; i++)
    {
      const char *value = warden_json_get_string (input, members[i]);

      if (value == NULL)
        continue;
      if (self->kind == WARDEN_TOOL_KIND_GREP && strcmp (members[i], "pattern") == 0 &&
          warden_json_get_string (input, "path") != NULL)
        /* Translators: what a grep card shows: the pattern, then the path searched */
        return g_strdup_printf (_("%s in %s"), value, warden_json_get_string (input, "path"));
      return g_strdup (value);
    }
  return g_strdup ("");
}

WardenToolCall *
warden_tool_call_new (const char *session_id,
                      const char *id,
                      const char *name,
                      JsonNode   *input)
{
  WardenToolCall *self = g_object_new (WARDEN_TYPE_TOOL_CALL, NULL);

  self->session_id = g_strdup (session_id);
  self->id = g_strdup (id);
  self->name = g_strdup (name);
  self->kind = warden_tool_kind_from_name (name);
  self->input = input ? json_node_ref (input) : NULL;
  self->input_json = input ? warden_json_to_string (input, FALSE) : NULL;
  self->subject = make_subject (self);
  return self;
}

WardenToolCall *
warden_tool_call_new_question (const char     *session_id,
                               const char     *id,
                               WardenToolKind  kind,
                               const char     *parent_id,
                               JsonNode       *input)
{
  WardenToolCall *self;

  g_return_val_if_fail (kind == WARDEN_TOOL_KIND_PROGRAM || kind == WARDEN_TOOL_KIND_HOST, NULL);

  /* Named as the tool a view shows it under: the command ran it, the
   * network wants it. */
  self = warden_tool_call_new (session_id, id,
                               kind == WARDEN_TOOL_KIND_PROGRAM ? "exec" : "network", input);
  self->kind = kind;
  self->parent_id = g_strdup (parent_id);
  g_free (self->subject);
  self->subject = make_subject (self);
  return self;
}

/* An exec's result as the agent built it: {"exit_code", "stdout", …}. */
static void
read_exec_result (WardenToolCall *self)
{
  g_autoptr(JsonNode) node = NULL;
  JsonObject *o;

  if (self->result == NULL || self->result[0] != '{')
    return;
  node = json_from_string (self->result, NULL);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return;
  o = json_node_get_object (node);
  if (!json_object_has_member (o, "exit_code"))
    return;
  self->exit_code = (int) warden_json_get_int (o, "exit_code", -1);
  self->duration_ms = warden_json_get_int (o, "duration_ms", -1);
  self->truncated = warden_json_get_boolean (o, "truncated", FALSE);
  self->timed_out = warden_json_get_boolean (o, "timed_out", FALSE);
  g_string_truncate (self->output, 0);
  g_string_append (self->output, warden_json_get_string (o, "stdout") ?: "");
  g_string_append (self->output, warden_json_get_string (o, "stderr") ?: "");
}

WardenToolCall *
warden_tool_call_new_from_record (const WardenToolCallRecord *r)
{
  g_autoptr(JsonNode) input = r->input_json ? json_from_string (r->input_json, NULL) : NULL;
  WardenToolCall *self;

  if (input != NULL && !JSON_NODE_HOLDS_OBJECT (input))
    g_clear_pointer (&input, json_node_unref);
  if (r->kind != NULL && (strcmp (r->kind, "program") == 0 || strcmp (r->kind, "host") == 0))
    self = warden_tool_call_new_question (r->session_id, r->tool_use_id,
                                          strcmp (r->kind, "program") == 0
                                          ? WARDEN_TOOL_KIND_PROGRAM : WARDEN_TOOL_KIND_HOST,
                                          r->parent_id, input);
  else
    self = warden_tool_call_new (r->session_id, r->tool_use_id, r->name, input);
  /* The text the store holds is what a seal covers: kept as it is. */
  replace (&self->input_json, r->input_json);
  self->state = warden_tool_call_state_from_string (r->state);
  self->decision = warden_tool_decision_from_string (r->decision);
  self->decided_by = r->decided_by != NULL ? warden_decided_by_from_string (r->decided_by)
                                           : decided_by_of (self->decision);
  self->pattern = g_strdup (r->pattern);
  self->reason = g_strdup (r->reason);
  self->feedback = g_strdup (r->feedback);
  self->result = g_strdup (r->result_json);
  /* Rows from before schema 4 do not say: a result that was not a finish is one. */
  self->is_error = r->is_error ||
                   (self->state != WARDEN_TOOL_CALL_FINISHED && self->result != NULL);
  self->started = r->started;
  self->finished = r->finished;
  self->asked = r->asked;
  self->answered = r->answered;
  self->answered_via = g_strdup (r->answered_via);
  self->message_seq = r->seq;
  self->block = r->block;
  self->diff = g_strdup (r->diff);
  self->ended_by = warden_tool_end_from_string (r->ended_by);
  /* Rows before schema 7 do not say: what was running or has ended counts
   * as started, so that nothing is taken for a call to run again. */
  self->began = r->began >= 0 ? r->began != 0
                              : self->state == WARDEN_TOOL_CALL_RUNNING ||
                                self->state == WARDEN_TOOL_CALL_FINISHED ||
                                self->state == WARDEN_TOOL_CALL_INTERRUPTED;
  if (self->kind == WARDEN_TOOL_KIND_EXEC && self->state == WARDEN_TOOL_CALL_FINISHED)
    read_exec_result (self);
  else if (self->result != NULL)
    g_string_assign (self->output, self->result);
  if (self->duration_ms < 0 && self->started && self->finished)
    self->duration_ms = self->finished - self->started;
  return self;
}

WardenToolCallRecord *
warden_tool_call_to_record (WardenToolCall *self)
{
  WardenToolCallRecord *r = warden_tool_call_record_new ();

  r->session_id = g_strdup (self->session_id);
  r->tool_use_id = g_strdup (self->id);
  r->name = g_strdup (self->name);
  r->input_json = g_strdup (self->input_json);
  r->state = g_strdup (warden_tool_call_state_to_string (self->state));
  r->decision = g_strdup (warden_tool_decision_to_string (self->decision));
  r->pattern = g_strdup (self->pattern);
  r->reason = g_strdup (self->reason);
  r->feedback = g_strdup (self->feedback);
  r->result_json = g_strdup (self->result);
  r->started = self->started;
  r->finished = self->finished;
  r->asked = self->asked;
  r->answered = self->answered;
  r->answered_via = g_strdup (self->answered_via);
  r->is_error = self->is_error;
  r->ended_by = g_strdup (warden_tool_end_to_string (self->ended_by));
  r->began = self->began ? 1 : 0;
  r->seq = self->message_seq;
  r->block = self->block;
  r->diff = g_strdup (self->diff);
  if (self->kind == WARDEN_TOOL_KIND_PROGRAM || self->kind == WARDEN_TOOL_KIND_HOST)
    r->kind = g_strdup (kind_names[self->kind]);
  r->parent_id = g_strdup (self->parent_id);
  r->decided_by = g_strdup (decided_by_names[self->decided_by]);
  return r;
}

/* ------------------------------------------------------------------------ */

const char *
warden_tool_call_get_id (WardenToolCall *self)
{
  return self->id;
}

const char *
warden_tool_call_get_session_id (WardenToolCall *self)
{
  return self->session_id;
}

const char *
warden_tool_call_get_name (WardenToolCall *self)
{
  return self->name;
}

WardenToolKind
warden_tool_call_get_kind (WardenToolCall *self)
{
  return self->kind;
}

const char *
warden_tool_call_get_parent_id (WardenToolCall *self)
{
  return self->parent_id;
}

JsonObject *
warden_tool_call_get_input (WardenToolCall *self)
{
  return self->input && JSON_NODE_HOLDS_OBJECT (self->input) ? json_node_get_object (self->input)
                                                               : NULL;
}

const char *
warden_tool_call_get_input_json (WardenToolCall *self)
{
  return self->input_json;
}

const char *
warden_tool_call_get_subject (WardenToolCall *self)
{
  return self->subject;
}

const char *
warden_tool_call_get_arg (WardenToolCall *self,
                          const char     *name)
{
  return warden_json_get_string (warden_tool_call_get_input (self), name);
}

GStrv
warden_tool_call_dup_env (WardenToolCall *self)
{
  JsonObject *input = warden_tool_call_get_input (self);
  JsonNode *node = input ? json_object_get_member (input, "env") : NULL;
  g_autoptr(GStrvBuilder) b = g_strv_builder_new ();

  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *env = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (env);

      for (GList *l = members; l; l = l->next)
        {
          JsonNode *value = json_object_get_member (env, l->data);

          if (JSON_NODE_HOLDS_VALUE (value))
            {
              g_autofree char *pair = g_strdup_printf ("%s=%s", (char *) l->data,
                                                       json_node_get_string (value)
                                                       ? json_node_get_string (value) : "");

              g_strv_builder_add (b, pair);
            }
        }
    }
  return g_strv_builder_end (b);
}

GStrv
warden_tool_call_dup_choices (WardenToolCall *self)
{
  JsonObject *input = warden_tool_call_get_input (self);
  JsonNode *node = input ? json_object_get_member (input, "choices") : NULL;
  g_autoptr(GStrvBuilder) b = g_strv_builder_new ();

  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *a = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (a); i++)
        {
          JsonNode *element = json_array_get_element (a, i);

          if (JSON_NODE_HOLDS_VALUE (element) &&
              json_node_get_value_type (element) == G_TYPE_STRING)
            g_strv_builder_add (b, json_node_get_string (element));
        }
    }
  return g_strv_builder_end (b);
}

gint64
warden_tool_call_get_message_seq (WardenToolCall *self)
{
  return self->message_seq;
}

int
warden_tool_call_get_block (WardenToolCall *self)
{
  return self->block;
}

void
warden_tool_call_set_position (WardenToolCall *self,
                               gint64          message_seq,
                               int             block)
{
  self->message_seq = message_seq;
  self->block = block;
}

GStrv
warden_tool_call_dup_chain (WardenToolCall *self)
{
  JsonObject *input = warden_tool_call_get_input (self);
  JsonNode *node = input ? json_object_get_member (input, "chain") : NULL;
  g_autoptr(GStrvBuilder) b = NULL;

  if (self->kind != WARDEN_TOOL_KIND_PROGRAM)
    return NULL;
  b = g_strv_builder_new ();
  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *a = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (a); i++)
        {
          JsonNode *element = json_array_get_element (a, i);

          if (JSON_NODE_HOLDS_VALUE (element) &&
              json_node_get_value_type (element) == G_TYPE_STRING)
            g_strv_builder_add (b, json_node_get_string (element));
        }
    }
  return g_strv_builder_end (b);
}

WardenToolCallState
warden_tool_call_get_state (WardenToolCall *self)
{
  return self->state;
}

void
warden_tool_call_set_state (WardenToolCall      *self,
                            WardenToolCallState  state)
{
  if (self->state == state)
    return;
  self->state = state;
  notify (self, PROP_STATE);
}

WardenToolEnd
warden_tool_call_get_ended_by (WardenToolCall *self)
{
  return self->ended_by;
}

gboolean
warden_tool_call_get_began (WardenToolCall *self)
{
  return self->began;
}

void
warden_tool_call_set_end (WardenToolCall *self,
                          WardenToolEnd   ended_by,
                          gboolean        began)
{
  self->ended_by = ended_by;
  self->began = began;
}

gboolean
warden_tool_call_is_settled (WardenToolCall *self)
{
  return self->state == WARDEN_TOOL_CALL_FINISHED || self->state == WARDEN_TOOL_CALL_REJECTED ||
         self->state == WARDEN_TOOL_CALL_DENIED || self->state == WARDEN_TOOL_CALL_INTERRUPTED;
}

WardenToolDecision
warden_tool_call_get_decision (WardenToolCall *self)
{
  return self->decision;
}

const char *
warden_tool_call_get_pattern (WardenToolCall *self)
{
  return self->pattern;
}

const char *
warden_tool_call_get_reason (WardenToolCall *self)
{
  return self->reason;
}

void
warden_tool_call_set_decision (WardenToolCall     *self,
                               WardenToolDecision  decision,
                               const char         *pattern,
                               const char         *reason)
{
  g_object_freeze_notify (G_OBJECT (self));
  if (pattern != NULL && replace (&self->pattern, pattern))
    notify (self, PROP_PATTERN);
  if (reason != NULL && replace (&self->reason, reason))
    notify (self, PROP_REASON);
  if (self->decision != decision)
    {
      self->decision = decision;
      notify (self, PROP_DECISION);
    }
  self->decided_by = decided_by_of (decision);
  g_object_thaw_notify (G_OBJECT (self));
}

WardenDecidedBy
warden_tool_call_get_decided_by (WardenToolCall *self)
{
  return self->decided_by;
}

void
warden_tool_call_set_decided_by (WardenToolCall  *self,
                                 WardenDecidedBy  decided_by)
{
  self->decided_by = decided_by;
}

const char *
warden_tool_call_get_feedback (WardenToolCall *self)
{
  return self->feedback;
}

void
warden_tool_call_set_feedback (WardenToolCall *self,
                               const char     *feedback)
{
  if (replace (&self->feedback, feedback))
    notify (self, PROP_FEEDBACK);
}

const char *
warden_tool_call_get_diff (WardenToolCall *self)
{
  return self->diff;
}

void
warden_tool_call_set_diff (WardenToolCall *self,
                           const char     *diff)
{
  if (replace (&self->diff, diff))
    notify (self, PROP_DIFF);
}

gint64
warden_tool_call_get_step (WardenToolCall *self)
{
  return self->step;
}

void
warden_tool_call_set_step (WardenToolCall *self,
                           gint64          step)
{
  if (self->step == step)
    return;
  self->step = step;
  notify (self, PROP_STEP);
}

GPtrArray *
warden_tool_call_get_changes (WardenToolCall *self)
{
  return self->changes;
}

void
warden_tool_call_set_changes (WardenToolCall *self,
                              GPtrArray      *changes)
{
  if (self->changes == changes)
    return;
  g_clear_pointer (&self->changes, g_ptr_array_unref);
  self->changes = changes != NULL ? g_ptr_array_ref (changes) : NULL;
  notify (self, PROP_CHANGES);
}

const char *
warden_tool_call_get_result (WardenToolCall *self)
{
  return self->result;
}

gboolean
warden_tool_call_get_is_error (WardenToolCall *self)
{
  return self->is_error;
}

int
warden_tool_call_get_exit_code (WardenToolCall *self)
{
  return self->exit_code;
}

gint64
warden_tool_call_get_duration_ms (WardenToolCall *self)
{
  return self->duration_ms;
}

const char *
warden_tool_call_get_output (WardenToolCall *self)
{
  return self->output->str;
}

gboolean
warden_tool_call_get_truncated (WardenToolCall *self)
{
  return self->truncated;
}

gboolean
warden_tool_call_get_timed_out (WardenToolCall *self)
{
  return self->timed_out;
}

void
warden_tool_call_set_result (WardenToolCall *self,
                             const char     *result,
                             gboolean        is_error)
{
  g_object_freeze_notify (G_OBJECT (self));
  if (replace (&self->result, result))
    notify (self, PROP_RESULT);
  if (self->is_error != is_error)
    {
      self->is_error = is_error;
      notify (self, PROP_IS_ERROR);
    }
  /* Anything but a command that ran shows its result as its output. */
  if (self->kind != WARDEN_TOOL_KIND_EXEC || self->exit_code < 0)
    {
      if (self->output->len == 0 || self->kind != WARDEN_TOOL_KIND_EXEC)
        {
          g_string_assign (self->output, result ? result : "");
          notify (self, PROP_OUTPUT);
        }
    }
  g_object_thaw_notify (G_OBJECT (self));
}

void
warden_tool_call_set_exec_result (WardenToolCall *self,
                                  int             exit_code,
                                  const char     *stdout_text,
                                  const char     *stderr_text,
                                  gint64          duration_ms,
                                  gboolean        truncated,
                                  gboolean        timed_out)
{
  g_object_freeze_notify (G_OBJECT (self));
  self->exit_code = exit_code;
  notify (self, PROP_EXIT_CODE);
  self->duration_ms = duration_ms;
  notify (self, PROP_DURATION_MS);
  self->truncated = truncated;
  notify (self, PROP_TRUNCATED);
  self->timed_out = timed_out;
  notify (self, PROP_TIMED_OUT);
  /* What streamed is the output; without a stream (a resumed view), the result's. */
  if (self->output->len == 0)
    {
      g_string_append (self->output, stdout_text ? stdout_text : "");
      g_string_append (self->output, stderr_text ? stderr_text : "");
      notify (self, PROP_OUTPUT);
    }
  g_object_thaw_notify (G_OBJECT (self));
}

void
warden_tool_call_append_output (WardenToolCall *self,
                                int             stream,
                                const char     *text)
{
  if (self->output->len < OUTPUT_KEPT)
    {
      gsize room = OUTPUT_KEPT - self->output->len;
      gsize len = strlen (text);

      if (len > room)
        {
          /* Whole characters only. */
          const char *end = g_utf8_find_prev_char (text, text + room + 1);

          len = end ? (gsize) (end - text) : 0;
        }
      g_string_append_len (self->output, text, len);
      notify (self, PROP_OUTPUT);
    }
  g_signal_emit (self, signals[OUTPUT], 0, stream, text);
}

gint64
warden_tool_call_get_started (WardenToolCall *self)
{
  return self->started;
}

gint64
warden_tool_call_get_finished (WardenToolCall *self)
{
  return self->finished;
}

gint64
warden_tool_call_get_asked (WardenToolCall *self)
{
  return self->asked;
}

gint64
warden_tool_call_get_answered (WardenToolCall *self)
{
  return self->answered;
}

void
warden_tool_call_set_times (WardenToolCall *self,
                            gint64          started,
                            gint64          finished)
{
  g_object_freeze_notify (G_OBJECT (self));
  if (self->started != started)
    {
      self->started = started;
      notify (self, PROP_STARTED);
    }
  if (self->finished != finished)
    {
      self->finished = finished;
      notify (self, PROP_FINISHED);
    }
  if (self->duration_ms < 0 && started && finished)
    {
      self->duration_ms = finished - started;
      notify (self, PROP_DURATION_MS);
    }
  g_object_thaw_notify (G_OBJECT (self));
}

void
warden_tool_call_mark_asked (WardenToolCall *self)
{
  self->asked = g_get_real_time () / 1000;
  notify (self, PROP_ASKED);
}

const char *
warden_tool_call_get_answered_via (WardenToolCall *self)
{
  return self->answered_via;
}

void
warden_tool_call_mark_answered (WardenToolCall *self,
                                const char     *via)
{
  g_object_freeze_notify (G_OBJECT (self));
  self->answered = g_get_real_time () / 1000;
  notify (self, PROP_ANSWERED);
  if (replace (&self->answered_via, via))
    notify (self, PROP_ANSWERED_VIA);
  g_object_thaw_notify (G_OBJECT (self));
}

/* ------------------------------------------------------------------------ */
/* What the model reads */

/* "started by “a”, started by “b”" */
static char *
chain_text (WardenToolCall *row)
{
  g_auto(GStrv) chain = warden_tool_call_dup_chain (row);
  GString *text = g_string_new (NULL);

  for (guint i = 0; chain != NULL && chain[i] != NULL; i++)
    g_string_append_printf (text, "%s “%s”", i == 0 ? "started by" : ", started by", chain[i]);
  return g_string_free (text, FALSE);
}

/* Why what @row asked about did not happen, for the model; nothing for what
 * was allowed, or never decided. */
static void
report_row (GString        *report,
            WardenToolCall *row)
{
  const char *subject = warden_tool_call_get_subject (row);
  const char *feedback = row->feedback;

  if (row->kind == WARDEN_TOOL_KIND_PROGRAM)
    {
      g_autofree char *chain = chain_text (row);

      if (row->decision == WARDEN_TOOL_DECISION_DENIED)
        g_string_append_printf (report, "A program this command started was denied by the "
                                "user's profile and did not run: “%s” (%s): %s\n", subject,
                                chain, row->reason ? row->reason : "");
      else if (row->decision == WARDEN_TOOL_DECISION_REJECTED)
        g_string_append_printf (report, "A program this command started was rejected by the "
                                "user and did not run: “%s” (%s)\n", subject, chain);
      else
        return;
    }
  else if (row->decision == WARDEN_TOOL_DECISION_DENIED)
    g_string_append_printf (report, "A connection this command opened to %s was refused by the "
                            "user's profile (%s)\n", subject, row->pattern ? row->pattern : "");
  else if (row->decision == WARDEN_TOOL_DECISION_REJECTED &&
           row->decided_by == WARDEN_DECIDED_BY_SESSION)
    g_string_append_printf (report, "A connection this command opened to %s was refused\n",
                            subject);
  else if (row->decision == WARDEN_TOOL_DECISION_REJECTED)
    g_string_append_printf (report, "A connection this command opened to %s was refused by the "
                            "user\n", subject);
  else
    return;
  if (row->decision == WARDEN_TOOL_DECISION_REJECTED && feedback != NULL && *feedback != '\0')
    g_string_append_printf (report, "User feedback: %s\n", feedback);
}

static void
add_host_entry (JsonBuilder    *b,
                WardenToolCall *row)
{
  JsonObject *input = warden_tool_call_get_input (row);
  gboolean allowed = row->decision == WARDEN_TOOL_DECISION_AUTO_ALLOWED ||
                     row->decision == WARDEN_TOOL_DECISION_APPROVED ||
                     row->decision == WARDEN_TOOL_DECISION_APPROVED_ALWAYS;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "host");
  json_builder_add_string_value (b, warden_json_get_string (input, "name"));
  json_builder_set_member_name (b, "port");
  json_builder_add_int_value (b, warden_json_get_int (input, "port", 0));
  json_builder_set_member_name (b, "decision");
  json_builder_add_string_value (b, allowed ? "allowed" : "refused");
  json_builder_set_member_name (b, "by");
  json_builder_add_string_value (b, decided_by_names[row->decided_by]);
  if (row->pattern != NULL)
    {
      json_builder_set_member_name (b, "pattern");
      json_builder_add_string_value (b, row->pattern);
    }
  if (!allowed && row->feedback != NULL && *row->feedback != '\0')
    {
      json_builder_set_member_name (b, "feedback");
      json_builder_add_string_value (b, row->feedback);
    }
  json_builder_set_member_name (b, "time");
  json_builder_add_int_value (b, row->answered ? row->answered : row->started);
  json_builder_end_object (b);
}

char *
warden_tool_call_exec_result_json (const WardenExecResult *res,
                                   GPtrArray              *questions)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(GString) report = g_string_new (NULL);
  guint hosts = 0;

  for (guint i = 0; questions != NULL && i < questions->len; i++)
    {
      WardenToolCall *row = g_ptr_array_index (questions, i);

      report_row (report, row);
      hosts += row->kind == WARDEN_TOOL_KIND_HOST && row->decided_by != WARDEN_DECIDED_BY_NONE;
    }

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "exit_code");
  json_builder_add_int_value (b, res->exit_code);
  json_builder_set_member_name (b, "stdout");
  json_builder_add_string_value (b, res->stdout_text);
  json_builder_set_member_name (b, "stderr");
  json_builder_add_string_value (b, res->stderr_text);
  json_builder_set_member_name (b, "duration_ms");
  json_builder_add_int_value (b, res->duration_us / 1000);
  json_builder_set_member_name (b, "truncated");
  json_builder_add_boolean_value (b, res->truncated);
  if (res->timed_out)
    {
      json_builder_set_member_name (b, "timed_out");
      json_builder_add_boolean_value (b, TRUE);
    }
  if (report->len > 0)
    {
      /* Why a program it started failed: the user's answer, or the rule. */
      json_builder_set_member_name (b, "nested_programs");
      json_builder_add_string_value (b, report->str);
    }
  if (hosts > 0)
    {
      /* Every host it reached or was refused, and who decided. */
      json_builder_set_member_name (b, "network");
      json_builder_begin_array (b);
      for (guint i = 0; i < questions->len; i++)
        {
          WardenToolCall *row = g_ptr_array_index (questions, i);

          if (row->kind == WARDEN_TOOL_KIND_HOST && row->decided_by != WARDEN_DECIDED_BY_NONE)
            add_host_entry (b, row);
        }
      json_builder_end_array (b);
    }
  json_builder_end_object (b);
  return warden_json_builder_to_string (b, FALSE);
}
