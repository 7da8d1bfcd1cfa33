/* warden-llm-provider-private.h: what the providers and the base class share
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "warden-llm-provider.h"

G_BEGIN_DECLS

/* One attempt, without retries (warden-llm-provider-stream.c): sent on the
 * provider's session, its answer read and built. *@retry_after_ms is what
 * the server asked for (retry-after-ms, retry-after), -1 when it did not. */
void               warden_llm_provider_attempt_async  (WardenLlmProvider    *self,
                                                       const char           *system_prompt,
                                                       GPtrArray            *messages,
                                                       GPtrArray            *tools,
                                                       GCancellable         *cancellable,
                                                       GAsyncReadyCallback   callback,
                                                       gpointer              user_data);
WardenLlmResponse *warden_llm_provider_attempt_finish (WardenLlmProvider    *self,
                                                       GAsyncResult         *result,
                                                       gint64               *retry_after_ms,
                                                       GError              **error);

SoupSession       *warden_llm_provider_get_session    (WardenLlmProvider    *self);
/* A server's message for a GError: valid UTF-8, the key redacted, trimmed,
 * shortened to fit in a dialog; NULL when it says nothing. */
char              *warden_llm_provider_tidy_message   (WardenLlmProvider    *self,
                                                       const char           *text);
void               warden_llm_provider_emit_waiting   (WardenLlmProvider    *self,
                                                       guint                 seconds);

/* Removes *@source from its context and drops it, if there is one. */
void               warden_llm_clear_source            (GSource             **source);
/* A source attached to @context that cancels @target once @cancellable is
 * cancelled: from the main loop rather than inside the "cancelled"
 * emission, so that what the cancel ends cannot disconnect a handler that
 * is running. */
GSource           *warden_llm_forward_cancel          (GCancellable         *cancellable,
                                                       GCancellable         *target,
                                                       GMainContext         *context);

/* Adds the call of the tool @name to @message with the input the model
 * wrote, @input_text ("" or null: {}). When that is no JSON object the
 * call is added all the same, with tool_input_error saying why (cut off
 * when @cut_off, the answer having reached max_tokens), for the model to
 * be told: a model's mistake does not end the run. */
void               warden_llm_add_tool_call           (WardenLlmMessage     *message,
                                                       const char           *id,
                                                       const char           *name,
                                                       const char           *input_text,
                                                       gboolean              cut_off);

/* The JSON that servers send, read without trusting its shape. */
JsonNode          *warden_llm_parse_json              (const char           *data,
                                                       gssize                length,
                                                       GError              **error);
/* @member of @object if it is an object (an array), else NULL; @object may be NULL. */
JsonObject        *warden_llm_json_get_object         (JsonObject           *object,
                                                       const char           *member);
JsonArray         *warden_llm_json_get_array          (JsonObject           *object,
                                                       const char           *member);

G_END_DECLS
