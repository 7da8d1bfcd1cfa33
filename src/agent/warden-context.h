/* warden-context.h: what the model is sent fits in its context window
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "llm/warden-llm-message.h"

G_BEGIN_DECLS

/* Why the conversation was summarised. */
typedef enum
{
  WARDEN_COMPACT_AUTO,      /* the next request would have passed the share of the window */
  WARDEN_COMPACT_MANUAL,    /* the user asked */
  WARDEN_COMPACT_OVERFLOW,  /* the provider said the conversation is too long */
} WardenCompactReason;

const char *warden_compact_reason_to_string (WardenCompactReason reason);

/* A model Warden knows nothing of is given this many tokens: small enough
 * for most local models, and a summary too early costs little. */
#define WARDEN_CONTEXT_DEFAULT_WINDOW 32768
/* Requests are kept under this share of the window: the answer needs room,
 * and the estimate is rough. */
#define WARDEN_CONTEXT_SHARE 0.8

/* The context window of @model (tokens) from a small table of known
 * models; 0 when it is not in the table. */
guint             warden_context_window_for_model (const char        *model);

/* Estimates, in tokens: a token is about 4 bytes of English or code
 * (UTF-8), rounded up; every message and block costs a few more for its
 * framing. No tokenizer: it only has to say when a request nears the limit. */
gint64            warden_context_estimate_text    (const char        *text);
gint64            warden_context_estimate_message (WardenLlmMessage  *message);
gint64            warden_context_estimate_request (const char        *system_prompt,
                                                   GPtrArray         *messages,
                                                   GPtrArray         *tools);

/* Whether what the model is sent may begin at @messages[@index] once the
 * messages before it are summarised: at an assistant message, or a user
 * message without tool results, so a tool call never loses its result. */
gboolean          warden_context_can_start_at     (GPtrArray         *messages,
                                                   guint              index);

/* @message with every tool result longer than @max_bytes cut in the
 * middle, with a note saying so (a new reference when nothing is cut). */
WardenLlmMessage *warden_context_cut_outputs      (WardenLlmMessage  *message,
                                                   gsize              max_bytes);

/* What the model is sent: the messages from @start on, each tool result
 * cut to @max_output_bytes, and @summary (may be NULL) of those before
 * @start at the head, in a user message of its own or in the user message
 * @start is. A GPtrArray of WardenLlmMessage references. */
GPtrArray        *warden_context_view             (GPtrArray         *messages,
                                                   guint              start,
                                                   const char        *summary,
                                                   gsize              max_output_bytes);

/* The text a summary is asked for: @previous (may be NULL) and the
 * messages [@from, @upto) as a plain transcript, at most about @max_bytes. */
char             *warden_context_transcript       (GPtrArray         *messages,
                                                   guint              from,
                                                   guint              upto,
                                                   const char        *previous,
                                                   gsize              max_bytes);

G_END_DECLS
