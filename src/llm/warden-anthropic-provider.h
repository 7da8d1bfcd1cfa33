/* warden-anthropic-provider.h: the Anthropic Messages API
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "warden-llm-provider.h"

G_BEGIN_DECLS

#define WARDEN_ANTHROPIC_DEFAULT_MODEL    "claude-sonnet-4-5"
#define WARDEN_ANTHROPIC_DEFAULT_BASE_URL "https://api.anthropic.com"

#define WARDEN_TYPE_ANTHROPIC_PROVIDER (warden_anthropic_provider_get_type ())

G_DECLARE_FINAL_TYPE (WardenAnthropicProvider, warden_anthropic_provider, WARDEN, ANTHROPIC_PROVIDER, WardenLlmProvider)

/* @base_url and @model NULL: the defaults. */
WardenLlmProvider *warden_anthropic_provider_new (const char *api_key,
                                                  const char *base_url,
                                                  const char *model);

G_END_DECLS
