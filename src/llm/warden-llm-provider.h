/* warden-llm-provider.h: a model behind an HTTP API, streamed
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <libsoup/soup.h>

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
  WARDEN_LLM_ERROR_STREAM_CUT,        /* the stream ended before the message did, after the
                                       * retries */
  WARDEN_LLM_ERROR_NETWORK,           /* could not connect, after the retries */
  WARDEN_LLM_ERROR_NOT_CONFIGURED,    /* no API key, no server */
  WARDEN_LLM_ERROR_FAILED,            /* anything else, with the API's own message */
} WardenLlmError;

/* What one server-sent event was to the answer. */
typedef enum
{
  WARDEN_LLM_EVENT_CONTENT,     /* part of the answer: the model is at work */
  WARDEN_LLM_EVENT_KEEP_ALIVE,  /* a ping: the connection lives, which says nothing of the model */
  WARDEN_LLM_EVENT_DONE,        /* the answer is complete; nothing after it is read */
  WARDEN_LLM_EVENT_FAILED,      /* the event says the answer failed, or cannot be read */
} WardenLlmEvent;

#define WARDEN_TYPE_LLM_PROVIDER (warden_llm_provider_get_type ())

G_DECLARE_DERIVABLE_TYPE (WardenLlmProvider, warden_llm_provider, WARDEN, LLM_PROVIDER, GObject)

/* The base class sends each attempt, reads its answer (server-sent events,
 * or one JSON body from a server that does not stream), watches the time,
 * and retries; a provider says how its API is spoken. Each attempt has an
 * answer of the provider's own (answer_new()), which the events fill. */
struct _WardenLlmProviderClass
{
  GObjectClass parent_class;

  const char         *request_path;       /* after the base URL: "/v1/messages" */
  const char         *base_url_variable;  /* where users set the base URL, for messages */
  gboolean            any_stream_type;    /* a 200 of another type than JSON is events too */

  void               (*add_headers)    (WardenLlmProvider   *self,
                                        SoupMessageHeaders  *headers);
  /* Written with warden_json_to_string(), so any bytes in it make JSON. */
  JsonNode          *(*build_body)     (WardenLlmProvider   *self,
                                        const char          *system_prompt,
                                        GPtrArray           *messages,
                                        GPtrArray           *tools);
  gpointer           (*answer_new)     (WardenLlmProvider   *self);
  void               (*answer_free)    (gpointer             answer);
  /* One event (@event NULL when it has no name); FAILED sets @error. */
  WardenLlmEvent     (*handle_event)   (WardenLlmProvider   *self,
                                        gpointer             answer,
                                        const char          *event,
                                        const char          *data,
                                        GError             **error);
  /* A 200 application/json body: the whole answer at once. NULL: an error. */
  gboolean           (*handle_whole)   (WardenLlmProvider   *self,
                                        gpointer             answer,
                                        JsonObject          *object,
                                        GError             **error);
  /* Whether what came is the whole answer, when the body ends without DONE. */
  gboolean           (*is_complete)    (WardenLlmProvider   *self,
                                        gpointer             answer);
  WardenLlmResponse *(*build_response) (WardenLlmProvider   *self,
                                        gpointer             answer,
                                        GError             **error);
  /* An answer that is not the model's: an HTTP error, or a 200 that is
   * neither events nor JSON. @body may be cut short or NULL. */
  GError            *(*http_error)     (WardenLlmProvider   *self,
                                        guint                status,
                                        GBytes              *body);
};

GQuark             warden_llm_error_quark          (void);

/* "anthropic" or "openai". */
const char        *warden_llm_provider_get_name     (WardenLlmProvider   *self);
const char        *warden_llm_provider_get_model    (WardenLlmProvider   *self);
const char        *warden_llm_provider_get_base_url (WardenLlmProvider   *self);

/* Seconds: the longest wait a server may ask for (retry-after) that Warden
 * waits; a longer one ends the request with the server's error, which then
 * says when it asked to be tried again. 600 by default; 0 waits for none. */
guint              warden_llm_provider_get_retry_after_cap (WardenLlmProvider *self);
void               warden_llm_provider_set_retry_after_cap (WardenLlmProvider *self,
                                                            guint              seconds);

/* Sends the conversation (@messages: WardenLlmMessage, @tools: WardenLlmTool,
 * may be NULL) and streams the answer: "text-delta" and "tool-use-start"
 * signals fire as it arrives. Connection errors and 408/429/500/502/503/529
 * are retried up to 5 times, but never once a tool call has started to
 * stream, with "retrying" before each wait. The wait is what the server
 * said (retry-after-ms; retry-after in seconds or as an HTTP date) when it
 * said, up to "retry-after-cap"; else exponential backoff with full
 * jitter: uniform in [0, min(30 s, 1 s × 2^n)]. */
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
 *                    before each wait: the answer streams again from its
 *                    start; @delay_ms is the wait, as long as it will be
 * Properties: "name", "model", "base-url" (read-only after construction);
 * "retry-after-cap" (guint seconds); the API key is construct-only and write-only: it is never logged, stored
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
