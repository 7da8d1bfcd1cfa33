/* warden-llm-provider.h: a model behind an HTTP API, streamed
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "warden-llm-message.h"

G_BEGIN_DECLS

#define WARDEN_LLM_ERROR (warden_llm_error_quark ())

typedef enum
{
  WARDEN_LLM_ERROR_AUTH,              /* 401/403: the API key was rejected */
  WARDEN_LLM_ERROR_UNKNOWN_MODEL,     /* 404 or the API says the model does not exist */
  WARDEN_LLM_ERROR_RATE_LIMITED,      /* 429 after the retries */
  WARDEN_LLM_ERROR_OVERLOADED,        /* 5xx / 529 / overloaded_error after the retries */
  WARDEN_LLM_ERROR_CONTEXT_TOO_LONG,  /* the conversation no longer fits */
  WARDEN_LLM_ERROR_BAD_RESPONSE,      /* invalid JSON (the message gives the position) */
  WARDEN_LLM_ERROR_STREAM_CUT,        /* the stream ended before the message did */
  WARDEN_LLM_ERROR_NETWORK,           /* could not connect, after the retries */
  WARDEN_LLM_ERROR_NOT_CONFIGURED,    /* no API key, no server */
  WARDEN_LLM_ERROR_FAILED,            /* anything else, with the API's own message */
} WardenLlmError;

#define WARDEN_TYPE_LLM_PROVIDER (warden_llm_provider_get_type ())

G_DECLARE_DERIVABLE_TYPE (WardenLlmProvider, warden_llm_provider, WARDEN, LLM_PROVIDER, GObject)

struct _WardenLlmProviderClass
{
  GObjectClass parent_class;

  /* One attempt; the base class retries. Sets *@streamed_tool_use when a
   * tool call had begun to stream before a failure (then no retry), and
   * *@retry_after_ms to what the server asked for (retry-after), leaving it
   * 0 when it did not say. Both are set to FALSE and 0 before the call.
   * The base class retries NETWORK, RATE_LIMITED, OVERLOADED and
   * STREAM_CUT errors, never G_IO_ERROR_CANCELLED. */
  void               (*stream_async)  (WardenLlmProvider   *self,
                                       const char          *system_prompt,
                                       GPtrArray           *messages,
                                       GPtrArray           *tools,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data);
  WardenLlmResponse *(*stream_finish) (WardenLlmProvider   *self,
                                       GAsyncResult        *result,
                                       gboolean            *streamed_tool_use,
                                       guint               *retry_after_ms,
                                       GError             **error);
};

GQuark             warden_llm_error_quark          (void);

/* "anthropic" or "openai". */
const char        *warden_llm_provider_get_name     (WardenLlmProvider   *self);
const char        *warden_llm_provider_get_model    (WardenLlmProvider   *self);
const char        *warden_llm_provider_get_base_url (WardenLlmProvider   *self);

/* Sends the conversation (@messages: WardenLlmMessage, @tools: WardenLlmTool,
 * may be NULL) and streams the answer: "text-delta" and "tool-use-start"
 * signals fire as it arrives. Connection errors and 408/429/500/502/503/529
 * are retried up to 5 times with exponential backoff and jitter, honouring
 * retry-after, but never once a tool call has started to stream. */
void               warden_llm_provider_complete_async  (WardenLlmProvider   *self,
                                                        const char          *system_prompt,
                                                        GPtrArray           *messages,
                                                        GPtrArray           *tools,
                                                        GCancellable        *cancellable,
                                                        GAsyncReadyCallback  callback,
                                                        gpointer             user_data);
WardenLlmResponse *warden_llm_provider_complete_finish (WardenLlmProvider   *self,
                                                        GAsyncResult        *result,
                                                        GError             **error);

/* For subclasses: emit as the stream arrives. */
void               warden_llm_provider_emit_text_delta     (WardenLlmProvider *self,
                                                            const char        *text);
void               warden_llm_provider_emit_tool_use_start (WardenLlmProvider *self,
                                                            const char        *id,
                                                            const char        *name);
/* For subclasses: the key to send (NULL when none was given). Never log it
 * or put it in an error message. */
const char        *warden_llm_provider_get_api_key         (WardenLlmProvider *self);
/* For subclasses: @text with every occurrence of the API key replaced by
 * "[redacted]", for server messages that end up in a GError. */
char              *warden_llm_provider_redact              (WardenLlmProvider *self,
                                                            const char        *text);

/* Signals:
 *   "text-delta"     (const char *text)
 *   "tool-use-start" (const char *id, const char *name)
 *   "retrying"       (guint attempt, guint delay_ms, const char *reason)
 * Properties: "name", "model", "base-url" (read-only after construction);
 * the API key is construct-only and write-only: it is never logged, stored
 * or put in an error message. */

/* Builds the provider @name ("anthropic", "openai", or NULL: anthropic when
 * ANTHROPIC_API_KEY is set, else openai when OPENAI_API_KEY or
 * OPENAI_BASE_URL is set) from the environment: ANTHROPIC_API_KEY,
 * ANTHROPIC_BASE_URL, OPENAI_API_KEY, OPENAI_BASE_URL. @model and
 * @base_url override (NULL: the defaults, claude-sonnet-4-5 for anthropic).
 * NOT_CONFIGURED, saying what to set, when nothing is. */
WardenLlmProvider *warden_llm_provider_new_from_env (const char  *name,
                                                     const char  *model,
                                                     const char  *base_url,
                                                     GError     **error);

G_END_DECLS
