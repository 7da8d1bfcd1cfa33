/* warden-application.h: the Warden desktop application
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "agent/warden-session-store.h"
#include "llm/warden-llm-provider.h"
#include "policy/warden-profile-store.h"
#include "llm/warden-credentials.h"
#include "llm/warden-llm-settings.h"
#include "warden-session.h"

G_BEGIN_DECLS

#define WARDEN_TYPE_APPLICATION (warden_application_get_type ())

G_DECLARE_FINAL_TYPE (WardenApplication, warden_application, WARDEN, APPLICATION, AdwApplication)

WardenApplication  *warden_application_new                 (GApplicationFlags   flags);

GSettings          *warden_application_get_settings        (WardenApplication  *self);
/* NULL when the database cannot be opened: get_store_error() says why. */
WardenSessionStore *warden_application_get_store           (WardenApplication  *self);
const GError       *warden_application_get_store_error     (WardenApplication  *self);
/* When the database could not be opened: moves it aside (kept as @moved_to)
 * and opens a new one. */
gboolean            warden_application_move_store_aside    (WardenApplication  *self,
                                                            char              **moved_to,
                                                            GError            **error);
WardenProfileStore *warden_application_get_profiles        (WardenApplication  *self);
WardenCredentials  *warden_application_get_credentials     (WardenApplication  *self);
/* The model, or NULL while none is configured (notify::provider). */
WardenLlmProvider  *warden_application_get_provider        (WardenApplication  *self);
/* Builds the provider again from the settings, the environment and the keyring. */
void                warden_application_reload_provider     (WardenApplication  *self);
/* Open sessions live in the application, so an approval from a
 * notification reaches its session whatever the windows show. */
WardenSession      *warden_application_open_session        (WardenApplication  *self,
                                                            const char         *id,
                                                            GError            **error);
WardenSession      *warden_application_create_session      (WardenApplication  *self,
                                                            const char         *workspace,
                                                            const char         *profile,
                                                            WardenSandboxKind   sandbox,
                                                            const char         *title,
                                                            GError            **error);
gboolean            warden_application_delete_session      (WardenApplication  *self,
                                                            const char         *id,
                                                            GError            **error);
/* Automatic resolved: docker when an engine answers, else bwrap. */
WardenSandboxKind   warden_application_default_sandbox     (WardenApplication  *self);

/* Signals: "sessions-changed" — a session was created, renamed or deleted;
 *          "profiles-changed" — Preferences closed, profiles may differ. */

G_END_DECLS
