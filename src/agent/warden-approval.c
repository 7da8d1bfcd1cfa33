/* warden-approval.c: a tool call waiting for the user
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-agent"

#include <glib/gi18n.h>

#include "warden-approval.h"

struct _WardenApproval
{
  GObject             parent_instance;
  char               *session_id;
  char               *id;
  WardenApprovalKind  kind;
  char               *tool_name;
  char               *subject;
  char               *cwd;
  WardenSandboxKind   sandbox;
  char               *reason;
  char               *part;
  GStrv               suggestions;
  GStrv               choices;
  GStrv               env;
  WardenDecision     *decision;
  char               *diff;
  char               *saves_into;
  GStrv               chain;
};

G_DEFINE_FINAL_TYPE (WardenApproval, warden_approval, G_TYPE_OBJECT)

static const char *empty[] = { NULL };

static void
warden_approval_finalize (GObject *object)
{
  WardenApproval *self = WARDEN_APPROVAL (object);

  g_free (self->session_id);
  g_free (self->id);
  g_free (self->tool_name);
  g_free (self->subject);
  g_free (self->cwd);
  g_free (self->reason);
  g_free (self->part);
  g_strfreev (self->suggestions);
  g_strfreev (self->choices);
  g_strfreev (self->env);
  g_strfreev (self->chain);
  g_clear_pointer (&self->decision, warden_decision_unref);
  g_free (self->diff);
  g_free (self->saves_into);
  G_OBJECT_CLASS (warden_approval_parent_class)->finalize (object);
}

static void
warden_approval_class_init (WardenApprovalClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = warden_approval_finalize;
}

static void
warden_approval_init (WardenApproval *self)
{
}

WardenApproval *
warden_approval_new (const char         *session_id,
                     const char         *id,
                     WardenApprovalKind  kind,
                     const char         *tool_name,
                     const char         *subject)
{
  WardenApproval *self = g_object_new (WARDEN_TYPE_APPROVAL, NULL);

  self->session_id = g_strdup (session_id);
  self->id = g_strdup (id);
  self->kind = kind;
  self->tool_name = g_strdup (tool_name);
  self->subject = g_strdup (subject);
  return self;
}

WardenApproval *
warden_approval_new_for_call (WardenToolCall              *call,
                              const WardenApprovalContext *context)
{
  WardenToolKind kind = warden_tool_call_get_kind (call);
  WardenApproval *self = g_object_new (WARDEN_TYPE_APPROVAL, NULL);
  const char *reason = context->reason ? context->reason : warden_tool_call_get_reason (call);

  self->session_id = g_strdup (warden_tool_call_get_session_id (call));
  self->id = g_strdup (warden_tool_call_get_id (call));
  self->tool_name = g_strdup (warden_tool_call_get_name (call));
  if (context->decision != NULL)
    self->decision = warden_decision_ref (context->decision);
  if (reason == NULL && context->decision != NULL)
    reason = warden_decision_get_reason (context->decision);
  self->reason = g_strdup (reason);
  self->diff = g_strdup (context->diff);

  switch (kind)
    {
    case WARDEN_TOOL_KIND_ASK_USER:
      self->kind = WARDEN_APPROVAL_QUESTION;
      self->subject = g_strdup (warden_tool_call_get_arg (call, "question"));
      self->choices = warden_tool_call_dup_choices (call);
      break;

    case WARDEN_TOOL_KIND_HOST:
      self->kind = WARDEN_APPROVAL_HOST;
      self->subject = g_strdup (warden_tool_call_get_subject (call));
      self->sandbox = context->sandbox;
      /* The part is what wants it: the command that runs. */
      self->part = g_strdup (warden_tool_call_get_arg (call, "by_command"));
      self->suggestions = g_new0 (char *, 2);
      self->suggestions[0] = g_strdup (self->subject);
      break;

    case WARDEN_TOOL_KIND_EXEC:
    case WARDEN_TOOL_KIND_PROGRAM:
      self->kind = WARDEN_APPROVAL_COMMAND;
      self->subject = g_strdup (warden_tool_call_get_arg (call, "command"));
      self->sandbox = context->sandbox;
      self->cwd = g_strdup (warden_tool_call_get_arg (call, "cwd") ?: context->workspace);
      self->env = warden_tool_call_dup_env (call);
      self->chain = warden_tool_call_dup_chain (call);
      self->saves_into = g_strdup (context->saves_into);
      for (guint i = 0; self->decision != NULL &&
                        i < warden_decision_get_n_parts (self->decision); i++)
        if (warden_decision_get_part (self->decision, i)->verdict == WARDEN_VERDICT_ASK)
          {
            self->part = g_strdup (warden_decision_get_part (self->decision, i)->text);
            break;
          }
      if (self->decision != NULL)
        self->suggestions = g_strdupv ((char **) warden_decision_get_suggestions (self->decision));
      break;

    case WARDEN_TOOL_KIND_READ:
    case WARDEN_TOOL_KIND_WRITE:
    case WARDEN_TOOL_KIND_EDIT:
    case WARDEN_TOOL_KIND_GLOB:
    case WARDEN_TOOL_KIND_GREP:
    case WARDEN_TOOL_KIND_UNKNOWN:
    default:
      self->kind = WARDEN_APPROVAL_PATH;
      self->subject = g_strdup (context->target ? context->target
                                                : warden_tool_call_get_arg (call, "path"));
      self->sandbox = context->sandbox;
      break;
    }
  return self;
}

void
warden_approval_set_details (WardenApproval     *self,
                             const char         *cwd,
                             WardenSandboxKind   sandbox,
                             const char         *reason,
                             const char         *part,
                             const char * const *suggestions,
                             const char * const *choices,
                             const char * const *env)
{
  g_free (self->cwd);
  self->cwd = g_strdup (cwd);
  self->sandbox = sandbox;
  g_free (self->reason);
  self->reason = g_strdup (reason);
  g_free (self->part);
  self->part = g_strdup (part);
  g_strfreev (self->suggestions);
  self->suggestions = g_strdupv ((char **) suggestions);
  g_strfreev (self->choices);
  self->choices = g_strdupv ((char **) choices);
  g_strfreev (self->env);
  self->env = g_strdupv ((char **) env);
}

const char *warden_approval_get_id (WardenApproval *self) { return self->id; }
const char *warden_approval_get_session_id (WardenApproval *self) { return self->session_id; }
WardenApprovalKind warden_approval_get_kind (WardenApproval *self) { return self->kind; }
const char *warden_approval_get_tool_name (WardenApproval *self) { return self->tool_name; }
const char *warden_approval_get_subject (WardenApproval *self) { return self->subject; }
const char *warden_approval_get_cwd (WardenApproval *self) { return self->cwd; }
WardenSandboxKind warden_approval_get_sandbox (WardenApproval *self) { return self->sandbox; }
const char *warden_approval_get_reason (WardenApproval *self) { return self->reason; }
const char *warden_approval_get_part (WardenApproval *self) { return self->part; }

const char * const *
warden_approval_get_suggestions (WardenApproval *self)
{
  return self->suggestions ? (const char * const *) self->suggestions : empty;
}

const char * const *
warden_approval_get_choices (WardenApproval *self)
{
  return self->choices ? (const char * const *) self->choices : empty;
}

const char * const *
warden_approval_get_env (WardenApproval *self)
{
  return self->env ? (const char * const *) self->env : empty;
}

gboolean
warden_approval_get_uncovered (WardenApproval  *self,
                               const char     **text,
                               const char     **reason)
{
  const WardenDecisionPart *part;

  g_return_val_if_fail (WARDEN_IS_APPROVAL (self), FALSE);

  part = self->decision ? warden_decision_get_uncovered (self->decision) : NULL;
  if (part != NULL)
    {
      if (text)
        *text = part->text;
      if (reason)
        *reason = part->reason ? part->reason : "";
      return TRUE;
    }
  /* A line that asks as a whole (unparsed, a construct that asks, run with
   * environment variables) asks again whatever pattern is saved. */
  if (self->decision != NULL && warden_decision_get_line_asks (self->decision))
    {
      if (text)
        *text = self->subject;
      if (reason)
        *reason = warden_decision_get_reason (self->decision);
      return TRUE;
    }
  /* LD_PRELOAD=… asks each time: a pattern is about the words alone. */
  if (self->kind == WARDEN_APPROVAL_COMMAND && self->env != NULL && self->env[0] != NULL)
    {
      if (text)
        *text = self->env[0];
      if (reason)
        *reason = _("a command run with a variable that loads code asks every time");
      return TRUE;
    }
  return FALSE;
}

WardenDecision *
warden_approval_get_decision (WardenApproval *self)
{
  g_return_val_if_fail (WARDEN_IS_APPROVAL (self), NULL);
  return self->decision;
}

void
warden_approval_set_decision (WardenApproval *self,
                              WardenDecision *decision)
{
  g_return_if_fail (WARDEN_IS_APPROVAL (self));
  if (decision != NULL)
    warden_decision_ref (decision);
  g_clear_pointer (&self->decision, warden_decision_unref);
  self->decision = decision;
}

const char *
warden_approval_get_diff (WardenApproval *self)
{
  g_return_val_if_fail (WARDEN_IS_APPROVAL (self), NULL);
  return self->diff;
}

void
warden_approval_set_diff (WardenApproval *self,
                          const char     *diff)
{
  g_return_if_fail (WARDEN_IS_APPROVAL (self));
  g_free (self->diff);
  self->diff = g_strdup (diff);
}

const char * const *
warden_approval_get_chain (WardenApproval *self)
{
  g_return_val_if_fail (WARDEN_IS_APPROVAL (self), NULL);
  return (const char * const *) self->chain;
}

gboolean
warden_approval_get_while_running (WardenApproval *self)
{
  g_return_val_if_fail (WARDEN_IS_APPROVAL (self), FALSE);
  return self->chain != NULL || self->kind == WARDEN_APPROVAL_HOST;
}

void
warden_approval_set_chain (WardenApproval     *self,
                           const char * const *chain)
{
  g_return_if_fail (WARDEN_IS_APPROVAL (self));
  g_strfreev (self->chain);
  self->chain = g_strdupv ((char **) chain);
}

const char *
warden_approval_get_saves_into (WardenApproval *self)
{
  g_return_val_if_fail (WARDEN_IS_APPROVAL (self), NULL);
  return self->saves_into;
}

void
warden_approval_set_saves_into (WardenApproval *self,
                                const char     *profile_name)
{
  g_return_if_fail (WARDEN_IS_APPROVAL (self));
  g_free (self->saves_into);
  self->saves_into = g_strdup (profile_name);
}

const char *
warden_approval_get_heading (WardenApproval *self)
{
  g_return_val_if_fail (WARDEN_IS_APPROVAL (self), NULL);

  switch (self->kind)
    {
    case WARDEN_APPROVAL_QUESTION:
      return _("The agent asks");
    case WARDEN_APPROVAL_PATH:
      return _("File access needs approval");
    case WARDEN_APPROVAL_HOST:
      return _("A command wants to reach a host");
    case WARDEN_APPROVAL_COMMAND:
    default:
      return self->chain != NULL ? _("A program the command started needs approval")
                                 : _("Command needs approval");
    }
}

static void
add_origin (GStrvBuilder           *b,
            const char             *format,
            const char             *command,
            WardenApprovalShowFunc  show)
{
  g_autofree char *shown = show != NULL ? show (command) : g_strdup (command);
  g_autofree char *line = g_strdup_printf (format, shown);

  g_strv_builder_add (b, line);
}

GStrv
warden_approval_dup_origins (WardenApproval         *self,
                             WardenApprovalShowFunc  show)
{
  g_autoptr(GStrvBuilder) b = g_strv_builder_new ();

  g_return_val_if_fail (WARDEN_IS_APPROVAL (self), NULL);

  /* A host: the command that wants it, which waits only in that connection. */
  if (self->kind == WARDEN_APPROVAL_HOST && self->part != NULL)
    add_origin (b, _("wanted by %s"), self->part, show);
  /* Translators: one line per program that led to the one asked about:
   * "started by npm test" */
  for (guint i = 0; self->chain != NULL && self->chain[i] != NULL; i++)
    add_origin (b, _("started by %s"), self->chain[i], show);
  return g_strv_builder_end (b);
}
