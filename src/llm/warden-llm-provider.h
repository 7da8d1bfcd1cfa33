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
  WARDEN_LLM_ERROR_RATE_LIMITED,      /* 429 after the retries, or a retry-after past the cap */
  WARDEN_LLM_ERROR_OVERLOADED,        /* 5xx / 529 / overloaded_error after the retries, or a
                                       * retry-after past the cap */
  WARDEN_LLM_ERROR_CONTEXT_TOO_LONG,  /* the conversation no longer fits */
  WARDEN_LLM_ERROR_BAD_RESPONSE,      /* invalid JSON (the message gives the position) */
  WARDEN_LLM_ERROR_STREAM_CUT,        /* the stream ended before the message did, or the
                                       * connection broke after the request went out and
                                       * before any answer, after the retries */
  WARDEN_LLM_ERROR_NETWORK,           /* could not connect, after the retries */
  WARDEN_LLM_ERROR_NOT_CONFIGURED,    /* no API key, no server */
  WARDEN_LLM_ERROR_FAILED,            /* anything else, with the API's own message */
  WARDEN_LLM_ERROR_TIMED_OUT,         /* the model sent nothing for "idle-timeout" seconds,
                                       * after the retries */
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
  const char         *done_data;          /* the data of an event that ends the answer */

  void               (*add_headers)    (WardenLlmProvider   *self,
                                        SoupMessageHeaders  *headers);
  /* Written with warden_json_to_string(), so any bytes in it make JSON. */
  JsonNode          *(*build_body)     (WardenLlmProvider   *self,
                                        const char          *system_prompt,
                                        GPtrArray           *messages,
                                        GPtrArray           *tools);
  gpointer           (*answer_new)     (WardenLlmProvider   *self);
  void               (*answer_free)    (gpointer             answer);
  /* One event, its data a JSON object (@event NULL when it has no name);
   * FAILED sets @error. Events without data are keep-alives, and data that
   * is no JSON object fails the answer, before this is called. */
  WardenLlmEvent     (*handle_event)   (WardenLlmProvider   *self,
                                        gpointer             answer,
                                        const char          *event,
                                        JsonObject          *object,
                                        GError             **error);
  /* A 200 application/json body: the whole answer at once (NULL: such a
   * body goes to http_error). */
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

/* The limits, in seconds but for max-retries, read as each attempt starts. */
guint              warden_llm_provider_get_waiting_notice  (WardenLlmProvider *self);
void               warden_llm_provider_set_waiting_notice  (WardenLlmProvider *self,
                                                            guint              seconds);
guint              warden_llm_provider_get_idle_timeout    (WardenLlmProvider *self);
void               warden_llm_provider_set_idle_timeout    (WardenLlmProvider *self,
                                                            guint              seconds);
guint              warden_llm_provider_get_retry_after_cap (WardenLlmProvider *self);
void               warden_llm_provider_set_retry_after_cap (WardenLlmProvider *self,
                                                            guint              seconds);
guint              warden_llm_provider_get_max_retries     (WardenLlmProvider *self);
void               warden_llm_provider_set_max_retries     (WardenLlmProvider *self,
                                                            guint              retries);

/* Sends the conversation (@messages: WardenLlmMessage, @tools: WardenLlmTool,
 * may be NULL) and streams the answer: "text-delta" and "tool-use-start"
 * signals fire as it arrives. A tool call whose input is not a JSON object
 * (not JSON, or cut off by max_tokens) does not fail the request: its block
 * has tool_input NULL and tool_input_error saying why (see
 * warden-llm-message.h), for the caller to answer with an error result.
 *
 * Retries. An attempt that fails before the answer is whole is made again,
 * up to "max-retries" (5) times, never after a cancel, with "retrying"
 * before each wait: connection errors, 408/429/5xx/529 and overloaded
 * errors, a stream cut short (inside a tool call too: nothing has run
 * yet), and a model that stopped answering (TIMED_OUT). The wait is what
 * the server said (retry-after-ms; retry-after in seconds or as an HTTP
 * date) when it said, else exponential backoff with full jitter: uniform
 * in [0, min(30 s, 1 s × 2^n)] before retry n + 1 (31 s in all for 5). A
 * server that asks for more than "retry-after-cap" (600 s) is not waited
 * for: its error comes back at once, saying when it asked to be tried.
 *
 * Time. While the model sends nothing of the answer (no response, or only
 * pings and comments), "waiting" is emitted each
 * "waiting-notice" (30) seconds, and after "idle-timeout" (120) seconds
 * the attempt is abandoned, to be retried. That is the only limit: the
 * session has no socket timeout (0 means the model is waited for as long
 * as it takes). An answer that keeps coming is
 * never cut, however long it takes. So a model that never answers is given
 * up on, with TIMED_OUT, after at most
 *   (max-retries + 1) × idle-timeout + the backoff (31 s)
 * (12.5 minutes with the defaults); a server that answers each attempt
 * with an error, after the backoff or after what it asked for, at most
 * max-retries × retry-after-cap (50 minutes when it asks for 600 s each
 * time) plus the time of the attempts themselves. */
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
 *   "waiting"        (guint seconds) the model has sent nothing of the
 *                    answer for @seconds (each multiple of "waiting-notice");
 *                    0 when it goes on after such a notice
 * Properties: "name", "model", "base-url" (read-only after construction;
 * trailing slashes of the base URL are dropped); "waiting-notice",
 * "idle-timeout", "retry-after-cap" (guint seconds: 0 turns the notice and
 * the timeout off, and waits for no retry-after) and "max-retries",
 * settable at any time; the API key is construct-only and write-only: it
 * is never logged, stored or put in an error message. */

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
