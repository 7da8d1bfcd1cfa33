/* warden-new-session-dialog.h: choose a workspace, a profile and a sandbox
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "policy/warden-profile-store.h"

#include "sandbox/warden-sandbox-kind.h"

G_BEGIN_DECLS

#define WARDEN_TYPE_NEW_SESSION_DIALOG (warden_new_session_dialog_get_type ())

G_DECLARE_FINAL_TYPE (WardenNewSessionDialog, warden_new_session_dialog, WARDEN,
                      NEW_SESSION_DIALOG, AdwWindow)

/* @workspace and @profile (an id) may be NULL; @sandbox AUTO is
 * Automatic. Emits "create" (const char *workspace, const char *profile,
 * WardenSandboxKind sandbox, const char *title; title is "" when none was
 * given), then closes. */
WardenNewSessionDialog *warden_new_session_dialog_new             (GtkWindow              *parent,
                                                                   WardenProfileStore     *profiles,
                                                                   const char             *workspace,
                                                                   const char             *profile,
                                                                   WardenSandboxKind       sandbox);
const char             *warden_new_session_dialog_get_workspace   (WardenNewSessionDialog *self);
/* Checks, without blocking, that @path is a folder that can be a workspace
 * (warden_workspace_check(): not $HOME, nothing holding Warden's own state
 * or the user's keys); Create waits for that, and the row says why not. */
void                    warden_new_session_dialog_set_workspace   (WardenNewSessionDialog *self,
                                                                   const char             *path);
/* Whether Create is enabled: a folder that can be a workspace is chosen. */
gboolean                warden_new_session_dialog_get_can_create  (WardenNewSessionDialog *self);
/* As clicking Create: nothing while it is disabled. */
void                    warden_new_session_dialog_activate_create (WardenNewSessionDialog *self);

G_END_DECLS
