/* warden-llm-settings.h: the model the user chose, for the window and warden-cli alike
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "warden-credentials.h"
#include "warden-llm-provider.h"

G_BEGIN_DECLS

/* The application's settings (provider, model, base-url, default-profile),
 * or NULL when the schema is not installed (a build tree without
 * GSETTINGS_SCHEMA_DIR): callers then use the defaults. */
GSettings         *warden_llm_settings_new                      (void);

/* The provider @settings name ("auto" when @settings is NULL), @model and
 * @base_url (non-NULL ones win over the settings'), with its key from the
 * environment or, failing that, @credentials (NULL: no keyring); for "auto"
 * or "ollama" with no key a local Ollama is probed.
 * WARDEN_LLM_ERROR_NOT_CONFIGURED, saying what to set, when none is. */
void               warden_llm_provider_new_for_settings_async  (GSettings           *settings,
                                                                WardenCredentials   *credentials,
                                                                const char          *model,
                                                                const char          *base_url,
                                                                GCancellable        *cancellable,
                                                                GAsyncReadyCallback  callback,
                                                                gpointer             user_data);
WardenLlmProvider *warden_llm_provider_new_for_settings_finish (GAsyncResult        *result,
                                                                GError             **error);

G_END_DECLS
