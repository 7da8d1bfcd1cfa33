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
  GObject             parent_instance;

  WardenChatItemKind  kind;
  GString            *text;
  char               *tool_id;
  char               *tool_name;
  char               *subject;
  char               *state;
  char               *decision;
  char               *pattern;
  char               *reason;
  char               *feedback;
  int                 exit_status;
  gint64              duration_ms;
  gboolean            is_error;
  GString            *output;
  gboolean            output_truncated;
  WardenApproval     *approval;
};

G_DEFINE_FINAL_TYPE (WardenChatItem, warden_chat_item, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_KIND,
  PROP_TEXT,
  PROP_TOOL_ID,
  PROP_TOOL_NAME,
  PROP_SUBJECT,
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
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

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
warden_chat_item_dispose (GObject *object)
{
  WardenChatItem *self = WARDEN_CHAT_ITEM (object);

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
  g_free (self->state);
  g_free (self->decision);
  g_free (self->pattern);
  g_free (self->reason);
  g_free (self->feedback);
  g_string_free (self->output, TRUE);
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
      g_value_set_string (value, self->subject);
      break;
    case PROP_STATE:
      g_value_set_string (value, self->state);
      break;
    case PROP_DECISION:
      g_value_set_string (value, self->decision);
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
      g_value_set_int (value, self->exit_status);
      break;
    case PROP_DURATION_MS:
      g_value_set_int64 (value, self->duration_ms);
      break;
    case PROP_IS_ERROR:
      g_value_set_boolean (value, self->is_error);
      break;
    case PROP_OUTPUT:
      g_value_set_string (value, self->output->str);
      break;
    case PROP_APPROVAL:
      g_value_set_object (value, self->approval);
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
    case PROP_STATE:
      warden_chat_item_set_state (self, g_value_get_string (value));
      break;
    case PROP_OUTPUT:
      warden_chat_item_set_output (self, g_value_get_string (value));
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
                      WARDEN_CHAT_ITEM_USER, WARDEN_CHAT_ITEM_NOTICE, WARDEN_CHAT_ITEM_USER,
                      construct);
  properties[PROP_TEXT] = g_param_spec_string ("text", NULL, NULL, "", rw);
  properties[PROP_TOOL_ID] = g_param_spec_string ("tool-id", NULL, NULL, NULL, construct);
  properties[PROP_TOOL_NAME] = g_param_spec_string ("tool-name", NULL, NULL, NULL, construct);
  properties[PROP_SUBJECT] = g_param_spec_string ("subject", NULL, NULL, NULL, construct);
  properties[PROP_STATE] = g_param_spec_string ("state", NULL, NULL, NULL, rw);
  properties[PROP_DECISION] = g_param_spec_string ("decision", NULL, NULL, NULL, ro);
  properties[PROP_PATTERN] = g_param_spec_string ("pattern", NULL, NULL, NULL, ro);
  properties[PROP_REASON] = g_param_spec_string ("reason", NULL, NULL, NULL, ro);
  properties[PROP_FEEDBACK] = g_param_spec_string ("feedback", NULL, NULL, NULL, ro);
  properties[PROP_EXIT_STATUS] =
    g_param_spec_int ("exit-status", NULL, NULL, -1, G_MAXINT, -1, ro);
  properties[PROP_DURATION_MS] =
    g_param_spec_int64 ("duration-ms", NULL, NULL, -1, G_MAXINT64, -1, ro);
  properties[PROP_IS_ERROR] = g_param_spec_boolean ("is-error", NULL, NULL, FALSE, ro);
  properties[PROP_OUTPUT] = g_param_spec_string ("output", NULL, NULL, "", rw);
  properties[PROP_APPROVAL] =
    g_param_spec_object ("approval", NULL, NULL, WARDEN_TYPE_APPROVAL, rw);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
warden_chat_item_init (WardenChatItem *self)
{
  self->text = g_string_new (NULL);
  self->output = g_string_new (NULL);
  self->exit_status = -1;
  self->duration_ms = -1;
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
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TEXT]);
}

void
warden_chat_item_append_text (WardenChatItem *self,
                              const char     *text)
{
  g_return_if_fail (WARDEN_IS_CHAT_ITEM (self));

  if (text == NULL || *text == '\0')
    return;
  g_string_append (self->text, text);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TEXT]);
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

const char *
warden_chat_item_get_subject (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), NULL);

  return self->subject;
}

const char *
warden_chat_item_get_state (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), NULL);

  return self->state;
}

void
warden_chat_item_set_state (WardenChatItem *self,
                            const char     *state)
{
  g_return_if_fail (WARDEN_IS_CHAT_ITEM (self));

  if (replace_string (&self->state, state))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

const char *
warden_chat_item_get_decision (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), NULL);

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
warden_chat_item_set_decision (WardenChatItem *self,
                               const char     *decision,
                               const char     *pattern,
                               const char     *reason,
                               const char     *feedback)
{
  g_return_if_fail (WARDEN_IS_CHAT_ITEM (self));

  /* A row redraws its badge on "decision"; freezing makes the four
   * notifications arrive together, after every field is set. */
  g_object_freeze_notify (G_OBJECT (self));
  if (replace_string (&self->pattern, pattern))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PATTERN]);
  if (replace_string (&self->reason, reason))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_REASON]);
  if (replace_string (&self->feedback, feedback))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FEEDBACK]);
  if (replace_string (&self->decision, decision))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DECISION]);
  g_object_thaw_notify (G_OBJECT (self));
}

int
warden_chat_item_get_exit_status (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), -1);

  return self->exit_status;
}

gint64
warden_chat_item_get_duration_ms (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), -1);

  return self->duration_ms;
}

gboolean
warden_chat_item_get_is_error (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), FALSE);

  return self->is_error;
}

void
warden_chat_item_set_finished (WardenChatItem *self,
                               int             exit_status,
                               gint64          duration_ms,
                               gboolean        is_error)
{
  g_return_if_fail (WARDEN_IS_CHAT_ITEM (self));

  is_error = !!is_error;
  g_object_freeze_notify (G_OBJECT (self));
  if (self->exit_status != exit_status)
    {
      self->exit_status = exit_status;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EXIT_STATUS]);
    }
  if (self->duration_ms != duration_ms)
    {
      self->duration_ms = duration_ms;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DURATION_MS]);
    }
  if (self->is_error != is_error)
    {
      self->is_error = is_error;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_IS_ERROR]);
    }
  g_object_thaw_notify (G_OBJECT (self));
}

const char *
warden_chat_item_get_output (WardenChatItem *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ITEM (self), NULL);

  return self->output->str;
}

/* Appends @data up to the limit; TRUE when the output changed. */
static gboolean
add_output (WardenChatItem *self,
            const char     *data)
{
  gsize room;
  gsize len;

  if (data == NULL || *data == '\0' || self->output_truncated)
    return FALSE;

  room = OUTPUT_LIMIT - MIN (self->output->len, OUTPUT_LIMIT);
  len = strlen (data);
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

void
warden_chat_item_append_output (WardenChatItem *self,
                                const char     *data)
{
  g_return_if_fail (WARDEN_IS_CHAT_ITEM (self));

  if (add_output (self, data))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OUTPUT]);
}

void
warden_chat_item_set_output (WardenChatItem *self,
                             const char     *output)
{
  g_autofree char *old = NULL;

  g_return_if_fail (WARDEN_IS_CHAT_ITEM (self));

  old = g_string_free (self->output, FALSE);
  self->output = g_string_new (NULL);
  self->output_truncated = FALSE;
  add_output (self, output);
  if (strcmp (old, self->output->str) != 0)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OUTPUT]);
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

  if (g_set_object (&self->approval, approval))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_APPROVAL]);
}
