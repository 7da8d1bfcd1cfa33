/* warden-chat-item.c: one entry of a session's conversation, as the chat shows it
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-ui"

#include <glib/gi18n.h>

#include "warden-chat-item.h"

#include <string.h>

/* A card is no place for megabytes: the terminal pane holds all of it. */
#define OUTPUT_LIMIT (64 * 1024)
#define OUTPUT_MARKER N_("\n… (the terminal pane has the rest)")

struct _WardenChatItem
{
  GObject              parent_instance;

  WardenChatItemKind   kind;
  GString             *text;
  char                *tool_id;
  char                *tool_name;
  char                *subject;

  /* The call and what follows it: its state and decision are bound into the
   * fields below (a card without a call has only those); exit status,
   * duration and error are read from it; its output is followed into a copy
   * cut at OUTPUT_LIMIT. */
  WardenToolCall      *call;
  GBindingGroup       *bindings;
  GSignalGroup        *call_signals;
  WardenToolCallState  state;
  WardenToolDecision   decision;
  char                *pattern;
  char                *reason;
  char                *feedback;
  GString             *output;
  gsize                output_seen;   /* bytes of the call's output taken */
  gboolean             output_truncated;

  WardenApproval      *approval;
  /* The last diff a call or an approval gave: a stored call read back
   * after the live one has none, and the card keeps what it showed. */
  char                *diff;
};

G_DEFINE_FINAL_TYPE (WardenChatItem, warden_chat_item, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_KIND,
  PROP_TEXT,
  PROP_TOOL_ID,
  PROP_TOOL_NAME,
  PROP_SUBJECT,
  PROP_CALL,
  PROP_STATE,
  PROP_DECISION,
  PROP_PATTERN,
  PROP_REASON,
  PROP_FEEDBACK,
  PROP_EXIT_STATUS,
  PROP_DURATION_MS,
  PROP_IS_ERROR,
  PROP_OUTPUT,
  PROP_APPROVAL,
  PROP_DIFF,
  PROP_STEP,
  PROP_CHANGES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
notify (WardenChatItem *self,
        guint           prop)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

/* Replaces *@field with a copy of @value; TRUE when that changed it. */
static gboolean
replace_string (char       **field,
                const char  *value)
{
  if (g_strcmp0 (*field, value) == 0)
    return FALSE;
  g_free (*field);
  *field = g_strdup (value);
  return TRUE;
}

static void
set_string (WardenChatItem  *self,
            char           **field,
            const char      *value,
            guint            prop)
{
  if (replace_string (field, value))
    notify (self, prop);
}

/* ------------------------------------------------------------------------ */
/* The output: the call's, cut for a card */

/* Appends @len bytes of @data up to the limit; TRUE when the output changed. */
static gboolean
add_output (WardenChatItem *self,
            const char     *data,
            gsize           len)
{
  gsize room;

  if (len == 0 || self->output_truncated)
    return FALSE;

  room = OUTPUT_LIMIT - MIN (self->output->len, OUTPUT_LIMIT);
  if (len <= room)
    {
      g_string_append_len (self->output, data, len);
      return TRUE;
    }

  /* Cut on a character boundary, so the kept part stays valid UTF-8
   * where the output was. */
  len = room;
  while (len > 0 && ((guchar) data[len] & 0xC0) == 0x80)
    len--;
  g_string_append_len (self->output, data, len);
  g_string_append (self->output, _(OUTPUT_MARKER));
  self->output_truncated = TRUE;
  return TRUE;
}

/* The call's output only grows while it runs, or is given whole once (a
 * result, a stored call): take what is new, or start again if it shrank. */
static void
follow_output (WardenChatItem *self)
{
  const char *output = self->call ? warden_tool_call_get_output (self->call) : "";
  gsize len = strlen (output);
  gboolean changed = FALSE;

  if (len < self->output_seen)
    {
      changed = self->output->len > 0;
      g_string_truncate (self->output, 0);
      self->output_truncated = FALSE;
      self->output_seen = 0;
    }
  changed |= add_output (self, output + self->output_seen, len - self->output_seen);
  self->output_seen = len;
  if (changed)
    notify (self, PROP_OUTPUT);
}

static void
call_output_cb (WardenChatItem *self)
{
  follow_output (self);
}

static void
call_exit_code_cb (WardenChatItem *self)
{
  notify (self, PROP_EXIT_STATUS);
}

static void
call_duration_cb (WardenChatItem *self)
{
  notify (self, PROP_DURATION_MS);
}

static void
call_is_error_cb (WardenChatItem *self)
{
  notify (self, PROP_IS_ERROR);
}

static void
take_diff (WardenChatItem *self,
           const char     *diff)
{
  if (diff != NULL)
    set_string (self, &self->diff, diff, PROP_DIFF);
}

static void
call_diff_cb (WardenChatItem *self)
{
  take_diff (self, warden_tool_call_get_diff (self->call));
}

/* ------------------------------------------------------------------------ */

static void
warden_chat_item_dispose (GObject *object)
{
  WardenChatItem *self = WARDEN_CHAT_ITEM (object);

  if (self->bindings != NULL)
    g_binding_group_set_source (self->bindings, NULL);
  if (self->call_signals != NULL)
    g_signal_group_set_target (self->call_signals, NULL);
  g_clear_object (&self->bindings);
  g_clear_object (&self->call_signals);
  g_clear_object (&self->call);
  g_clear_object (&self->approval);
  G_OBJECT_CLASS (warden_chat_item_parent_class)->dispose (object);
}

static void
warden_chat_item_finalize (GObject *object)
{
  WardenChatItem *self = WARDEN_CHAT_ITEM (object);

  g_string_free (self->text, TRUE);
  g_free (self->tool_id);
  g_free (self->tool_name);
  g_free (self->subject);
  g_free (self->pattern);
  g_free (self->reason);
  g_free (self->feedback);
  g_string_free (self->output, TRUE);
  g_free (self->diff);
  G_OBJECT_CLASS (warden_chat_item_parent_class)->finalize (object);
}

static void
warden_chat_item_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  WardenChatItem *self = WARDEN_CHAT_ITEM (object);

  switch (prop_id)
    {
    case PROP_KIND:
      g_value_set_int (value, self->kind);
      break;
    case PROP_TEXT:
      g_value_set_string (value, self->text->str);
      break;
    case PROP_TOOL_ID:
      g_value_set_string (value, self->tool_id);
      break;
    case PROP_TOOL_NAME:
      g_value_set_string (value, self->tool_name);
      break;
    case PROP_SUBJECT:
      g_value_set_string (value, warden_chat_item_get_subject (self));
      break;
    case PROP_CALL:
      g_value_set_object (value, self->call);
      break;
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;
    case PROP_DECISION:
      g_value_set_enum (value, self->decision);
      break;
    case PROP_PATTERN:
      g_value_set_string (value, self->pattern);
      break;
    case PROP_REASON:
      g_value_set_string (value, self->reason);
      break;
    case PROP_FEEDBACK:
      g_value_set_string (value, self->feedback);
      break;
    case PROP_EXIT_STATUS:
      g_value_set_int (value, warden_chat_item_get_exit_status (self));
      break;
    case PROP_DURATION_MS:
      g_value_set_int64 (value, warden_chat_item_get_duration_ms (self));
      break;
    case PROP_IS_ERROR:
      g_value_set_boolean (value, warden_chat_item_get_is_error (self));
      break;
    case PROP_OUTPUT:
      g_value_set_string (value, self->output->str);
      break;
    case PROP_APPROVAL:
      g_value_set_object (value, self->approval);
      break;
    case PROP_DIFF:
      g_value_set_string (value, self->diff);
      break;
    case PROP_STEP:
      g_value_set_int64 (value, warden_chat_item_get_step (self));
      break;
    case PROP_CHANGES:
      g_value_set_boxed (value, warden_chat_item_get_changes (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
warden_chat_item_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  WardenChatItem *self = WARDEN_CHAT_ITEM (object);

  switch (prop_id)
    {
    case PROP_KIND:
      self->kind = g_value_get_int (value);
      break;
    case PROP_TEXT:
      warden_chat_item_set_text (self, g_value_get_string (value));
      break;
    case PROP_TOOL_ID:
      replace_string (&self->tool_id, g_value_get_string (value));
      break;
    case PROP_TOOL_NAME:
      replace_string (&self->tool_name, g_value_get_string (value));
      break;
    case PROP_SUBJECT:
      replace_string (&self->subject, g_value_get_string (value));
      break;
    case PROP_CALL:
      warden_chat_item_set_call (self, g_value_get_object (value));
      break;
    case PROP_STATE:
      warden_chat_item_set_state (self, g_value_get_enum (value));
      break;
    case PROP_DECISION:
      if (self->decision != (WardenToolDecision) g_value_get_enum (value))
        {
          self->decision = g_value_get_enum (value);
          notify (self, PROP_DECISION);
        }
      break;
    case PROP_PATTERN:
      set_string (self, &self->pattern, g_value_get_string (value), PROP_PATTERN);
      break;
    case PROP_REASON:
      set_string (self, &self->reason, g_value_get_string (value), PROP_REASON);
      break;
    case PROP_FEEDBACK:
      set_string (self, &self->feedback, g_value_get_string (value), PROP_FEEDBACK);
      break;
    case PROP_APPROVAL:
      warden_chat_item_set_approval (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
warden_chat_item_class_init (WardenChatItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  GParamFlags construct = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = warden_chat_item_dispose;
  object_class->finalize = warden_chat_item_finalize;
  object_class->get_property = warden_chat_item_get_property;
  object_class->set_property = warden_chat_item_set_property;

  /* A plain int: the kind enum has no registered GType, and a row only
   * compares it. */
  properties[PROP_KIND] =
    g_param_spec_int ("kind", NULL, NULL,
                      WARDEN_CHAT_ITEM_USER, WARDEN_CHAT_ITEM_SUMMARY, WARDEN_CHAT_ITEM_USER,
                      construct);
  properties[PROP_TEXT] = g_param_spec_string ("text", NULL, NULL, "", rw);
  properties[PROP_TOOL_ID] = g_param_spec_string ("tool-id", NULL, NULL, NULL, construct);
  properties[PROP_TOOL_NAME] = g_param_spec_string ("tool-name", NULL, NULL, NULL, construct);
  /* Given, or the call's when none was. */
  properties[PROP_SUBJECT] = g_param_spec_string ("subject", NULL, NULL, NULL,
                                                  construct | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_CALL] = g_param_spec_object ("call", NULL, NULL, WARDEN_TYPE_TOOL_CALL, rw);
  /* Writable for the bindings to the call. */
  properties[PROP_STATE] = g_param_spec_enum ("state", NULL, NULL, WARDEN_TYPE_TOOL_CALL_STATE,
                                              WARDEN_TOOL_CALL_NEW, rw);
  properties[PROP_DECISION] = g_param_spec_enum ("decision", NULL, NULL,
                                                 WARDEN_TYPE_TOOL_DECISION,
                                                 WARDEN_TOOL_DECISION_NONE, rw);
  properties[PROP_PATTERN] = g_param_spec_string ("pattern", NULL, NULL, NULL, rw);
  properties[PROP_REASON] = g_param_spec_string ("reason", NULL, NULL, NULL, rw);
  properties[PROP_FEEDBACK] = g_param_spec_string ("feedback", NULL, NULL, NULL, rw);
  properties[PROP_EXIT_STATUS] =
    g_param_spec_int ("exit-status", NULL, NULL, -1, G_MAXINT, -1, ro);
  properties[PROP_DURATION_MS] =
    g_param_spec_int64 ("duration-ms", NULL, NULL, -1, G_MAXINT64, -1, ro);
  properties[PROP_IS_ERROR] = g_param_spec_boolean ("is-error", NULL, NULL, FALSE, ro);
  properties[PROP_OUTPUT] = g_param_spec_string ("output", NULL, NULL, "", ro);
  properties[PROP_APPROVAL] =
    g_param_spec_object ("approval", NULL, NULL, WARDEN_TYPE_APPROVAL, rw);
  properties[PROP_DIFF] = g_param_spec_string ("diff", NULL, NULL, NULL, ro);
  properties[PROP_STEP] = g_param_spec_int64 ("step", NULL, NULL, 0, G_MAXINT64, 0, ro);
  properties[PROP_CHANGES] = g_param_spec_boxed ("changes", NULL, NULL, G_TYPE_PTR_ARRAY, ro);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
warden_chat_item_init (WardenChatItem *self)
{
  self->text = g_string_new (NULL);
  self->output = g_string_new (NULL);
}

WardenChatItem *
warden_chat_item_new (WardenChatItemKind  kind,
                      const char         *text)
{
  return g_object_new (WARDEN_TYPE_CHAT_ITEM,
                       "kind", (int) kind,
                       "text", text,
                       NULL);
}

WardenChatItem *
warden_chat_item_new_tool (const char *tool_id,
                           const char *tool_name,
                           const char *subject)
{
  return g_object_new (WARDEN_TYPE_CHAT_ITEM,
                       "kind", (int) WARDEN_CHAT_ITEM_TOOL,
                       "tool-id", tool_id,
                       "tool-name", tool_name,
                       "subject", subject,
                       NULL);
}

WardenChatItem *
warden_chat_item_new_for_call (WardenToolCall *call)
{
  g_return_val_if_fail (WARDEN_IS_TOOL_CALL (call), NULL);

  return g_object_new (WARDEN_TYPE_CHAT_ITEM,
                       "kind", (int) WARDEN_CHAT_ITEM_TOOL,
                       "tool-id", warden_tool_call_get_id (call),
                       "tool-name", warden_tool_call_get_name (call),
                       "call", call,
                       NULL);
}

WardenChatItemKind
warden_chat_item_get_kind (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), WARDEN_CHAT_ITEM_NOTICE);

  return self->kind;
}

const char *
warden_chat_item_get_text (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), NULL);

  return self->text->str;
}

void
warden_chat_item_set_text (WardenChatItem *self,
                           const char     *text)
{
  g_return_if_fail (WARDEN_IS_CHAT_ITEM (self));

  if (text == NULL)
    text = "";
  if (strcmp (self->text->str, text) == 0)
    return;
  g_string_assign (self->text, text);
  notify (self, PROP_TEXT);
}

void
warden_chat_item_append_text (WardenChatItem *self,
                              const char     *text)
{
  g_return_if_fail (WARDEN_IS_CHAT_ITEM (self));

  if (text == NULL || *text == '\0')
    return;
  g_string_append (self->text, text);
  notify (self, PROP_TEXT);
}

const char *
warden_chat_item_get_tool_id (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), NULL);

  return self->tool_id;
}

const char *
warden_chat_item_get_tool_name (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), NULL);

  return self->tool_name;
}

WardenToolKind
warden_chat_item_get_tool_kind (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), WARDEN_TOOL_KIND_UNKNOWN);

  if (self->call != NULL)
    return warden_tool_call_get_kind (self->call);
  return warden_tool_kind_from_name (self->tool_name);
}

const char *
warden_chat_item_get_subject (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), NULL);

  if ((self->subject == NULL || *self->subject == '\0') && self->call != NULL)
    return warden_tool_call_get_subject (self->call);
  return self->subject;
}

WardenToolCall *
warden_chat_item_get_call (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), NULL);

  return self->call;
}

static void
call_step_cb (WardenChatItem *self)
{
  notify (self, PROP_STEP);
}

static void
call_changes_cb (WardenChatItem *self)
{
  notify (self, PROP_CHANGES);
}

static void
ensure_groups (WardenChatItem *self)
{
  if (self->bindings != NULL)
    return;

  self->bindings = g_binding_group_new ();
  g_binding_group_bind (self->bindings, "state", self, "state", G_BINDING_SYNC_CREATE);
  g_binding_group_bind (self->bindings, "decision", self, "decision", G_BINDING_SYNC_CREATE);
  g_binding_group_bind (self->bindings, "pattern", self, "pattern", G_BINDING_SYNC_CREATE);
  g_binding_group_bind (self->bindings, "reason", self, "reason", G_BINDING_SYNC_CREATE);
  g_binding_group_bind (self->bindings, "feedback", self, "feedback", G_BINDING_SYNC_CREATE);

  self->call_signals = g_signal_group_new (WARDEN_TYPE_TOOL_CALL);
  g_signal_group_connect_swapped (self->call_signals, "notify::output",
                                  G_CALLBACK (call_output_cb), self);
  g_signal_group_connect_swapped (self->call_signals, "notify::exit-code",
                                  G_CALLBACK (call_exit_code_cb), self);
  g_signal_group_connect_swapped (self->call_signals, "notify::duration-ms",
                                  G_CALLBACK (call_duration_cb), self);
  g_signal_group_connect_swapped (self->call_signals, "notify::is-error",
                                  G_CALLBACK (call_is_error_cb), self);
  g_signal_group_connect_swapped (self->call_signals, "notify::diff",
                                  G_CALLBACK (call_diff_cb), self);
  g_signal_group_connect_swapped (self->call_signals, "notify::step",
                                  G_CALLBACK (call_step_cb), self);
  g_signal_group_connect_swapped (self->call_signals, "notify::changes",
                                  G_CALLBACK (call_changes_cb), self);
}

void
warden_chat_item_set_call (WardenChatItem *self,
                           WardenToolCall *call)
{
  g_autoptr(WardenToolCall) old = NULL;
  g_autofree char *subject = NULL;

  g_return_if_fail (WARDEN_IS_CHAT_ITEM (self));
  g_return_if_fail (call == NULL || WARDEN_IS_TOOL_CALL (call));
  g_return_if_fail (call == NULL || self->tool_id == NULL ||
                    g_strcmp0 (self->tool_id, warden_tool_call_get_id (call)) == 0);

  if (self->call == call)
    return;

  old = g_steal_pointer (&self->call);
  subject = g_strdup (warden_chat_item_get_subject (self));
  self->call = call ? g_object_ref (call) : NULL;

  g_object_freeze_notify (G_OBJECT (self));
  ensure_groups (self);
  /* Syncs state and decision from the new call at once. */
  g_binding_group_set_source (self->bindings, call);
  g_signal_group_set_target (self->call_signals, call);

  /* Another call object for the same call gives its output whole. */
  self->output_seen = G_MAXSIZE;
  follow_output (self);
  if (old == NULL || call == NULL ||
      warden_tool_call_get_exit_code (old) != warden_tool_call_get_exit_code (call))
    notify (self, PROP_EXIT_STATUS);
  if (old == NULL || call == NULL ||
      warden_tool_call_get_duration_ms (old) != warden_tool_call_get_duration_ms (call))
    notify (self, PROP_DURATION_MS);
  if (old == NULL || call == NULL ||
      warden_tool_call_get_is_error (old) != warden_tool_call_get_is_error (call))
    notify (self, PROP_IS_ERROR);
  if (g_strcmp0 (subject, warden_chat_item_get_subject (self)) != 0)
    notify (self, PROP_SUBJECT);
  if (call != NULL)
    take_diff (self, warden_tool_call_get_diff (call));
  notify (self, PROP_STEP);
  notify (self, PROP_CHANGES);
  notify (self, PROP_CALL);
  g_object_thaw_notify (G_OBJECT (self));
}

WardenToolCallState
warden_chat_item_get_state (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), WARDEN_TOOL_CALL_NEW);

  return self->state;
}

void
warden_chat_item_set_state (WardenChatItem      *self,
                            WardenToolCallState  state)
{
  g_return_if_fail (WARDEN_IS_CHAT_ITEM (self));

  if (self->state == state)
    return;
  self->state = state;
  notify (self, PROP_STATE);
}

WardenToolDecision
warden_chat_item_get_decision (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), WARDEN_TOOL_DECISION_NONE);

  return self->decision;
}

const char *
warden_chat_item_get_pattern (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), NULL);

  return self->pattern;
}

const char *
warden_chat_item_get_reason (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), NULL);

  return self->reason;
}

const char *
warden_chat_item_get_feedback (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), NULL);

  return self->feedback;
}

void
warden_chat_item_set_decision (WardenChatItem     *self,
                               WardenToolDecision  decision,
                               const char         *pattern,
                               const char         *reason,
                               const char         *feedback)
{
  g_return_if_fail (WARDEN_IS_CHAT_ITEM (self));

  /* A row redraws its badge on "decision"; freezing makes the four
   * notifications arrive together, after every field is set. */
  g_object_freeze_notify (G_OBJECT (self));
  set_string (self, &self->pattern, pattern, PROP_PATTERN);
  set_string (self, &self->reason, reason, PROP_REASON);
  set_string (self, &self->feedback, feedback, PROP_FEEDBACK);
  if (self->decision != decision)
    {
      self->decision = decision;
      notify (self, PROP_DECISION);
    }
  g_object_thaw_notify (G_OBJECT (self));
}

int
warden_chat_item_get_exit_status (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), -1);

  return self->call ? warden_tool_call_get_exit_code (self->call) : -1;
}

gint64
warden_chat_item_get_duration_ms (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), -1);

  return self->call ? warden_tool_call_get_duration_ms (self->call) : -1;
}

gboolean
warden_chat_item_get_is_error (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), FALSE);

  return self->call ? warden_tool_call_get_is_error (self->call) : FALSE;
}

const char *
warden_chat_item_get_output (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), NULL);

  return self->output->str;
}

WardenApproval *
warden_chat_item_get_approval (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), NULL);

  return self->approval;
}

void
warden_chat_item_set_approval (WardenChatItem *self,
                               WardenApproval *approval)
{
  g_return_if_fail (WARDEN_IS_CHAT_ITEM (self));
  g_return_if_fail (approval == NULL || WARDEN_IS_APPROVAL (approval));

  if (!g_set_object (&self->approval, approval))
    return;
  if (approval != NULL)
    take_diff (self, warden_approval_get_diff (approval));
  notify (self, PROP_APPROVAL);
}

const char *
warden_chat_item_get_diff (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), NULL);

  return self->diff;
}

gint64
warden_chat_item_get_step (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), 0);
  return self->call != NULL ? warden_tool_call_get_step (self->call) : 0;
}

GPtrArray *
warden_chat_item_get_changes (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), NULL);
  return self->call != NULL ? warden_tool_call_get_changes (self->call) : NULL;
}
