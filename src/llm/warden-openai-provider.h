/* warden-openai-provider.h: OpenAI-compatible Chat Completions
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "warden-llm-provider.h"

G_BEGIN_DECLS

#define WARDEN_OPENAI_DEFAULT_BASE_URL "https://api.openai.com/v1"
#define WARDEN_OPENAI_DEFAULT_MODEL    "gpt-4o"
#define WARDEN_OLLAMA_BASE_URL         "http://localhost:11434/v1"

#define WARDEN_TYPE_OPENAI_PROVIDER (warden_openai_provider_get_type ())

G_DECLARE_FINAL_TYPE (WardenOpenaiProvider, warden_openai_provider, WARDEN, OPENAI_PROVIDER, WardenLlmProvider)

/* One provider for OpenAI, Ollama, llama.cpp's server, vLLM, LM Studio and
 * OpenRouter: they differ by @base_url (…/v1). @api_key may be NULL for
 * local servers. */
WardenLlmProvider *warden_openai_provider_new (const char *api_key,
                                               const char *base_url,
                                               const char *model);

/* Whether an Ollama server answers at @base_url (NULL: localhost:11434),
 * and the name of its first model (GET /api/tags), for offering it when
 * nothing else is configured. */
void               warden_openai_provider_probe_ollama_async  (const char          *base_url,
                                                               GCancellable        *cancellable,
                                                               GAsyncReadyCallback  callback,
                                                               gpointer             user_data);
char              *warden_openai_provider_probe_ollama_finish (GAsyncResult        *result,
                                                               GError             **error);

G_END_DECLS
