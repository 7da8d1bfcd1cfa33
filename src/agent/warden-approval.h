/* warden-approval.h: a tool call waiting for the user
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "policy/warden-decision.h"
#include "warden-tool-call.h"

G_BEGIN_DECLS

typedef enum
{
  WARDEN_APPROVAL_COMMAND,    /* exec: the policy asked */
  WARDEN_APPROVAL_PATH,       /* a file tool outside the workspace, or writing on the host */
  WARDEN_APPROVAL_QUESTION,   /* ask_user */
  WARDEN_APPROVAL_HOST,       /* a host a running command wants to reach ("host:port") */
} WardenApprovalKind;

#define WARDEN_TYPE_APPROVAL (warden_approval_get_type ())

G_DECLARE_FINAL_TYPE (WardenApproval, warden_approval, WARDEN, APPROVAL, GObject)

/* The id is the tool call's. Everything the user needs to decide: */
const char         *warden_approval_get_id          (WardenApproval *self);
const char         *warden_approval_get_session_id  (WardenApproval *self);
WardenApprovalKind  warden_approval_get_kind        (WardenApproval *self);
const char         *warden_approval_get_tool_name   (WardenApproval *self);
/* The command (exec), the path (file tools) or the question (ask_user). */
const char         *warden_approval_get_subject     (WardenApproval *self);
const char         *warden_approval_get_cwd         (WardenApproval *self);
/* WARDEN_SANDBOX_KIND_AUTO where none is said (a question). */
WardenSandboxKind   warden_approval_get_sandbox     (WardenApproval *self);
/* Why it asks, and the part of the command that made it ask. */
const char         *warden_approval_get_reason      (WardenApproval *self);
const char         *warden_approval_get_part        (WardenApproval *self);
/* Suggested "always allow" patterns (exec), or the choices (ask_user). */
const char * const *warden_approval_get_suggestions (WardenApproval *self);
const char * const *warden_approval_get_choices     (WardenApproval *self);
/* The policy's decision for a command: every part that will run, with its
 * verdict and reason (a view lists them all, the asking ones first). NULL
 * for other kinds, and for a command asked again after a restart before it
 * is checked again. */
WardenDecision     *warden_approval_get_decision    (WardenApproval *self);
void                warden_approval_set_decision    (WardenApproval *self,
                                                     WardenDecision *decision);
/* A write or an edit: what it would change in the file the path leads to
 * now (warden_diff_unified(); a note when it cannot be compared), or NULL. */
const char         *warden_approval_get_diff        (WardenApproval *self);
void                warden_approval_set_diff        (WardenApproval *self,
                                                     const char     *diff);
/* A command under a built-in profile, which is never edited: the name of
 * the user's copy that "Always allow" saves into (made then if it does not
 * exist; the session and new ones use it). NULL: saved in the profile. */
const char         *warden_approval_get_saves_into  (WardenApproval *self);
void                warden_approval_set_saves_into  (WardenApproval *self,
                                                     const char     *profile_name);
/* A program a running command started (the exec guard): the programs that
 * led to it, nearest first, each as a command line — "rm -rf dist" started
 * by "sh -c 'rm -rf dist && jest'" started by "npm test". NULL for the
 * model's own commands. While it waits, only that program waits; answering
 * lets it run or kills it, and the command goes on either way. */
const char * const *warden_approval_get_chain       (WardenApproval *self);
void                warden_approval_set_chain       (WardenApproval     *self,
                                                     const char * const *chain);
/* Asked while a command runs, for something it does (a program it starts,
 * a host it wants to reach): it waits, and the command's end withdraws it. */
gboolean            warden_approval_get_while_running (WardenApproval *self);
/* The one description of a question, which every front end (the dialog,
 * the card, the notification, warden-cli's prompt and its --json events)
 * lays out, none words it itself: the heading ("Command needs approval",
 * translated), what it is about (warden_approval_get_subject()), and where
 * it comes from, one line each ("wanted by npm install" for a host;
 * "started by sh -c …", "started by npm test" for a program, nearest
 * first). @show renders each command line in them as the front end shows
 * code (escaped, marked up); NULL: as it is. Never NULL; empty for the
 * model's own calls. */
typedef char *(*WardenApprovalShowFunc) (const char *command);
const char         *warden_approval_get_heading     (WardenApproval *self);
GStrv               warden_approval_dup_origins     (WardenApproval         *self,
                                                     WardenApprovalShowFunc  show);
/* NAME=VALUE the command would run with (they are why it asks, then). */
const char * const *warden_approval_get_env         (WardenApproval *self);
/* Whether "Always allow" cannot make the command run without asking, and
 * why: a part no pattern covers (@text, @reason), or an environment that
 * loads code, which asks every time whatever the profile allows. */
gboolean            warden_approval_get_uncovered   (WardenApproval  *self,
                                                     const char     **text,
                                                     const char     **reason);

/* What the user is asked about @call comes from the call itself (its
 * command, folder and environment; its question and choices) and from
 * what the agent knows around it, here: the one way an approval is made,
 * when it is first asked and when a session asks it again after a restart,
 * so the two cannot differ. */
typedef struct
{
  WardenSandboxKind sandbox;   /* the session's backend */
  const char     *workspace;   /* the workspace as commands see it: where an exec without
                                * a cwd runs */
  WardenDecision *decision;    /* a command: the policy's, checked with the call's cwd and env */
  const char     *target;      /* a file tool: the file its path leads to now */
  const char     *reason;      /* why it asks; NULL: the call's reason, else the decision's */
  const char     *diff;        /* a write or an edit: what it would change in @target */
  const char     *saves_into;  /* see warden_approval_get_saves_into() */
} WardenApprovalContext;

WardenApproval     *warden_approval_new_for_call    (WardenToolCall              *call,
                                                     const WardenApprovalContext *context);

WardenApproval     *warden_approval_new             (const char          *session_id,
                                                     const char          *id,
                                                     WardenApprovalKind   kind,
                                                     const char          *tool_name,
                                                     const char          *subject);
void                warden_approval_set_details     (WardenApproval      *self,
                                                     const char          *cwd,
                                                     WardenSandboxKind    sandbox,
                                                     const char          *reason,
                                                     const char          *part,
                                                     const char * const  *suggestions,
                                                     const char * const  *choices,
                                                     const char * const  *env);

/* The user's answer. */
typedef struct
{
  gboolean    approved;
  gboolean    allow_always;  /* save @pattern in the profile */
  const char *pattern;       /* NULL: the first suggestion */
  const char *feedback;      /* with a rejection, for the model; may be NULL */
  const char *answer;        /* ask_user */
  const char *via;           /* who answered, for the trace: dialog, card,
                              * notification, cli; NULL: unknown */
} WardenApprovalAnswer;

G_END_DECLS
