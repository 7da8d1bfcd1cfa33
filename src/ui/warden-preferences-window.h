/* warden-preferences-window.h: the model, the sandbox and the profiles
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "policy/warden-profile-store.h"
#include "llm/warden-credentials.h"
#include "sandbox/warden-sandbox-kind.h"
#include "warden-profile-editor.h"

G_BEGIN_DECLS

#define WARDEN_TYPE_PREFERENCES_WINDOW (warden_preferences_window_get_type ())

G_DECLARE_FINAL_TYPE (WardenPreferencesWindow, warden_preferences_window, WARDEN,
                      PREFERENCES_WINDOW, AdwPreferencesWindow)

GtkWidget           *warden_preferences_window_new             (GtkWindow               *parent,
                                                                GSettings               *settings,
                                                                WardenProfileStore      *profiles,
                                                                WardenCredentials       *credentials);
/* @page: "model", "sandbox" or "profiles". */
void                 warden_preferences_window_show_page       (WardenPreferencesWindow *self,
                                                                const char              *page);

/* For tests: TRUE while the profile list is being read or changed, or a key
 * stored or looked up. */
gboolean             warden_preferences_window_get_busy        (WardenPreferencesWindow *self);
/* The ids of the profiles listed, in order. */
GStrv                warden_preferences_window_dup_profile_ids (WardenPreferencesWindow *self);
/* The editor shown as a subpage, or NULL. */
WardenProfileEditor *warden_preferences_window_get_editor      (WardenPreferencesWindow *self);
/* The API key entry, and the line saying where the key comes from. */
GtkEditable         *warden_preferences_window_get_key_entry   (WardenPreferencesWindow *self);
const char          *warden_preferences_window_get_key_status  (WardenPreferencesWindow *self);
/* The Test Connection button, and the line under it: the provider, the
 * model and how long it took to answer, or why it failed. */
GtkWidget           *warden_preferences_window_get_test_button (WardenPreferencesWindow *self);
const char          *warden_preferences_window_get_connection_result
                                                               (WardenPreferencesWindow *self);
/* What Automatic resolves to now (docker or bwrap), or AUTO while the
 * Docker engine has not answered yet (get_busy() is TRUE then). */
WardenSandboxKind    warden_preferences_window_get_sandbox_auto (WardenPreferencesWindow *self);

G_END_DECLS
