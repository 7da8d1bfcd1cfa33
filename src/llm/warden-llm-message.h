/* warden-llm-message.h: a conversation as the models see it
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "warden-llm-usage.h"

G_BEGIN_DECLS

typedef enum
{
  WARDEN_LLM_ROLE_USER,
  WARDEN_LLM_ROLE_ASSISTANT,
} WardenLlmRole;

typedef enum
{
  WARDEN_LLM_BLOCK_TEXT,
  WARDEN_LLM_BLOCK_TOOL_USE,     /* the model calls a tool */
  WARDEN_LLM_BLOCK_TOOL_RESULT,  /* what the tool gave back (in a user message) */
} WardenLlmBlockType;

typedef struct
{
  WardenLlmBlockType  type;
  char               *text;              /* TEXT; TOOL_RESULT: the result text */
  char               *tool_use_id;       /* TOOL_USE and TOOL_RESULT */
  char               *tool_name;         /* TOOL_USE */
  JsonNode           *tool_input;        /* TOOL_USE: an object; NULL exactly when
                                          * tool_input_error is set */
  gboolean            is_error;          /* TOOL_RESULT */
  /* TOOL_USE whose input cannot be used: why, in words to show the user and
   * to send back to the model as the call's error result ("the arguments
   * are not valid JSON: …", "the arguments were cut off: …"). NULL when the
   * input is good. Nothing may run such a call. */
  char               *tool_input_error;
  /* With tool_input_error: the input as the model wrote it (may be NULL). */
  char               *tool_input_text;
} WardenLlmBlock;

/* A message: a role and its blocks. Reference-counted, immutable once built. */
typedef struct _WardenLlmMessage WardenLlmMessage;

#define WARDEN_TYPE_LLM_MESSAGE (warden_llm_message_get_type ())
GType             warden_llm_message_get_type        (void) G_GNUC_CONST;
WardenLlmMessage *warden_llm_message_new             (WardenLlmRole           role);
WardenLlmMessage *warden_llm_message_ref             (WardenLlmMessage       *self);
void              warden_llm_message_unref           (WardenLlmMessage       *self);
WardenLlmRole     warden_llm_message_get_role        (WardenLlmMessage       *self);
guint             warden_llm_message_get_n_blocks    (WardenLlmMessage       *self);
const WardenLlmBlock *warden_llm_message_get_block   (WardenLlmMessage       *self,
                                                      guint                   index);
void              warden_llm_message_add_text        (WardenLlmMessage       *self,
                                                      const char             *text);
/* Takes a reference on @input (a JSON object). */
void              warden_llm_message_add_tool_use    (WardenLlmMessage       *self,
                                                      const char             *id,
                                                      const char             *name,
                                                      JsonNode               *input);
/* A tool call whose input could not be read: tool_input stays NULL,
 * @input_error says why, @input_text (may be NULL) is what the model wrote.
 * Sent back to the API it carries an empty input, so the conversation stays
 * valid; the tool's result should tell the model what was wrong. */
void              warden_llm_message_add_bad_tool_use (WardenLlmMessage      *self,
                                                       const char            *id,
                                                       const char            *name,
                                                       const char            *input_text,
                                                       const char            *input_error);
void              warden_llm_message_add_tool_result (WardenLlmMessage       *self,
                                                      const char             *tool_use_id,
                                                      const char             *content,
                                                      gboolean                is_error);
/* All the text blocks, joined. */
char             *warden_llm_message_dup_text        (WardenLlmMessage       *self);
gboolean          warden_llm_message_has_tool_use    (WardenLlmMessage       *self);

/* Warden's own JSON form, for the session store:
 * {"role":"user|assistant","content":[{"type":"text","text":…},
 *  {"type":"tool_use","id":…,"name":…,"input":{…}},
 *  {"type":"tool_result","tool_use_id":…,"content":…,"is_error":bool}]}
 * (the Anthropic shape). A tool use whose input could not be read has
 * "input":{} and also "input_error":… and, when known, "input_text":…,
 * which the Anthropic API does not take: the provider leaves them out.
 * from_json fails with G_IO_ERROR_INVALID_DATA. */
JsonNode         *warden_llm_message_to_json         (WardenLlmMessage       *self);
WardenLlmMessage *warden_llm_message_new_from_json   (JsonNode               *node,
                                                      GError                **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenLlmMessage, warden_llm_message_unref)

/* A tool as the model sees it. */
typedef struct
{
  char     *name;
  char     *description;
  JsonNode *input_schema;   /* a JSON Schema object */
} WardenLlmTool;

WardenLlmTool *warden_llm_tool_new  (const char    *name,
                                     const char    *description,
                                     const char    *input_schema_json);
void           warden_llm_tool_free (WardenLlmTool *tool);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenLlmTool, warden_llm_tool_free)

/* What one request gave back. */
typedef struct
{
  WardenLlmMessage *message;        /* the assistant's message */
  char             *stop_reason;    /* "end_turn", "tool_use", "max_tokens", "stop_sequence" */
  gint64            input_tokens;   /* all the input, cached or not (0: not said) */
  gint64            output_tokens;
  /* What the provider said it used (requests 1; unreported 1 when it said
   * nothing), and its own cost when it sent one (else unpriced 1). */
  WardenLlmUsage    usage;
} WardenLlmResponse;

/* Takes a reference on @message. The usage has the counts given, reported
 * and without a cost: a provider that was told nothing sets unreported. */
WardenLlmResponse *warden_llm_response_new  (WardenLlmMessage  *message,
                                             const char        *stop_reason,
                                             gint64             input_tokens,
                                             gint64             output_tokens);
void               warden_llm_response_free (WardenLlmResponse *response);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenLlmResponse, warden_llm_response_free)

G_END_DECLS
