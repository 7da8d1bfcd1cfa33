/* warden-approval-dialog.h: asks the user about a command, a path or a question
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "agent/warden-approval.h"
#include "policy/warden-profile.h"

G_BEGIN_DECLS

#define WARDEN_TYPE_APPROVAL_DIALOG (warden_approval_dialog_get_type ())

G_DECLARE_FINAL_TYPE (WardenApprovalDialog, warden_approval_dialog, WARDEN, APPROVAL_DIALOG,
                      AdwMessageDialog)

/* @profile is the session's (it may be NULL); @workspace is the workspace as
 * the policy sees it (NULL: "/workspace"); @earlier_commands are this
 * session's earlier exec commands, for "this pattern would also have allowed".
 * Emits "answered" (gboolean approved, gboolean allow_always, const char *text)
 * once, then closes: text is the feedback (rejected), the pattern (always),
 * "" (once) or the answer (a question). Closed without an answer, it emits nothing. */
WardenApprovalDialog *warden_approval_dialog_new               (GtkWindow            *parent,
                                                                WardenApproval       *approval,
                                                                WardenProfile        *profile,
                                                                const char           *workspace,
                                                                const char * const   *earlier_commands);
/* What the agent said just before the call, shown as context (NULL: none). */
void                  warden_approval_dialog_set_context       (WardenApprovalDialog *self,
                                                                const char           *text);
const char           *warden_approval_dialog_get_approval_id   (WardenApprovalDialog *self);
GtkEditable          *warden_approval_dialog_get_pattern_entry (WardenApprovalDialog *self);
const char        *warden_approval_dialog_get_keys_text      (WardenApprovalDialog *self);
GtkEditable          *warden_approval_dialog_get_feedback_entry (WardenApprovalDialog *self);
/* The free-text answer to a question. */
GtkEditable          *warden_approval_dialog_get_answer_entry  (WardenApprovalDialog *self);
/* As if the user had clicked the response's button: nothing when it is
 * disabled or the dialog has no such response. */
void                  warden_approval_dialog_respond           (WardenApprovalDialog *self,
                                                                const char           *response_id);

/* Of @commands, those that @profile with @pattern added allows and @profile
 * alone does not, without repeats, in order: a GPtrArray of strings. */
GPtrArray            *warden_approval_dialog_would_allow       (WardenProfile        *profile,
                                                                const char           *pattern,
                                                                const char           *workspace,
                                                                const char           *cwd,
                                                                const char * const   *commands);

G_END_DECLS
