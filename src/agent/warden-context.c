/* warden-context.c: what the model is sent fits in its context window
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-agent"

#include <glib/gi18n.h>

#include "warden-context.h"

#include <string.h>

#include "common/warden-json.h"

/* Framing of one message and one block, in tokens: roughly what the APIs
 * count for roles and block types. */
#define MESSAGE_OVERHEAD 4
#define BLOCK_OVERHEAD   3
/* A tool result in a summary's transcript keeps this much. */
#define TRANSCRIPT_OUTPUT_BYTES 2000

const char *
warden_compact_reason_to_string (WardenCompactReason reason)
{
  switch (reason)
    {
    case WARDEN_COMPACT_MANUAL:
      return "manual";
    case WARDEN_COMPACT_OVERFLOW:
      return "overflow";
    case WARDEN_COMPACT_AUTO:
    default:
      return "auto";
    }
}

/* Prefixes, most specific first: the providers' own figures, in tokens. */
static const struct { const char *prefix; guint tokens; } known_models[] = {
  { .prefix = "claude-",        .tokens = 200000 },
  { .prefix = "gpt-4.1",        .tokens = 1047576 },
  { .prefix = "gpt-5",          .tokens = 400000 },
  { .prefix = "gpt-4o",         .tokens = 128000 },
  { .prefix = "gpt-4-turbo",    .tokens = 128000 },
  { .prefix = "gpt-4",          .tokens = 8192 },
  { .prefix = "gpt-3.5-turbo",  .tokens = 16385 },
  { .prefix = "o1",             .tokens = 200000 },
  { .prefix = "o3",             .tokens = 200000 },
  { .prefix = "o4-mini",        .tokens = 200000 },
  { .prefix = "qwen2.5-coder",  .tokens = 32768 },
  { .prefix = "llama3.1",       .tokens = 131072 },
  { .prefix = "llama3.2",       .tokens = 131072 },
  { .prefix = "llama3.3",       .tokens = 131072 },
};

guint
warden_context_window_for_model (const char *model)
{
  if (model == NULL)
    return 0;
  for (guint i = 0; i < G_N_ELEMENTS (known_models); i++)
    if (g_str_has_prefix (model, known_models[i].prefix))
      return known_models[i].tokens;
  return 0;
}

gint64
warden_context_estimate_text (const char *text)
{
  return text != NULL ? (gint64) (strlen (text) + 3) / 4 : 0;
}

gint64
warden_context_estimate_message (WardenLlmMessage *message)
{
  gint64 tokens = MESSAGE_OVERHEAD;

  for (guint b = 0; b < warden_llm_message_get_n_blocks (message); b++)
    {
      const WardenLlmBlock *block = warden_llm_message_get_block (message, b);

      tokens += BLOCK_OVERHEAD + warden_context_estimate_text (block->text) +
                warden_context_estimate_text (block->tool_use_id) +
                warden_context_estimate_text (block->tool_name);
      if (block->tool_input != NULL)
        {
          g_autofree char *input = warden_json_to_string (block->tool_input, FALSE);

          tokens += warden_context_estimate_text (input);
        }
    }
  return tokens;
}

gint64
warden_context_estimate_request (const char *system_prompt,
                                 GPtrArray  *messages,
                                 GPtrArray  *tools)
{
  gint64 tokens = warden_context_estimate_text (system_prompt);

  for (guint i = 0; messages && i < messages->len; i++)
    tokens += warden_context_estimate_message (g_ptr_array_index (messages, i));
  for (guint i = 0; tools && i < tools->len; i++)
    {
      WardenLlmTool *tool = g_ptr_array_index (tools, i);
      g_autofree char *schema = warden_json_to_string (tool->input_schema, FALSE);

      tokens += BLOCK_OVERHEAD + warden_context_estimate_text (tool->name) +
                warden_context_estimate_text (tool->description) +
                warden_context_estimate_text (schema);
    }
  return tokens;
}

static gboolean
has_tool_result (WardenLlmMessage *message)
{
  for (guint b = 0; b < warden_llm_message_get_n_blocks (message); b++)
    if (warden_llm_message_get_block (message, b)->type == WARDEN_LLM_BLOCK_TOOL_RESULT)
      return TRUE;
  return FALSE;
}

gboolean
warden_context_can_start_at (GPtrArray *messages,
                             guint      index)
{
  WardenLlmMessage *message;

  if (index >= messages->len)
    return FALSE;
  message = g_ptr_array_index (messages, index);
  return warden_llm_message_get_role (message) == WARDEN_LLM_ROLE_ASSISTANT ||
         !has_tool_result (message);
}

/* @text without its middle, at most about @max_bytes, cut at characters. */
static char *
cut_middle (const char *text,
            gsize       max_bytes,
            const char *why)
{
  gsize length = strlen (text);
  gsize keep = max_bytes / 2;
  const char *head_end, *tail_start;
  g_autofree char *head = NULL;

  if (length <= max_bytes)
    return g_strdup (text);
  head_end = text + keep;
  while (head_end > text && (*head_end & 0xc0) == 0x80)
    head_end--;
  tail_start = text + length - keep;
  while (*tail_start != '\0' && (*tail_start & 0xc0) == 0x80)
    tail_start++;
  head = g_strndup (text, head_end - text);
  return g_strdup_printf ("%s\n[… %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " bytes cut by "
                          "Warden %s …]\n%s", head, (gsize) (tail_start - head_end), length,
                          why, tail_start);
}

static void
copy_block (WardenLlmMessage     *to,
            const WardenLlmBlock *block,
            gsize                 max_output_bytes)
{
  switch (block->type)
    {
    case WARDEN_LLM_BLOCK_TEXT:
      warden_llm_message_add_text (to, block->text);
      break;
    case WARDEN_LLM_BLOCK_TOOL_USE:
      if (block->tool_input != NULL)
        warden_llm_message_add_tool_use (to, block->tool_use_id, block->tool_name,
                                         block->tool_input);
      else
        warden_llm_message_add_bad_tool_use (to, block->tool_use_id, block->tool_name,
                                             block->tool_input_text, block->tool_input_error);
      break;
    case WARDEN_LLM_BLOCK_TOOL_RESULT:
      {
        g_autofree char *text = cut_middle (block->text ? block->text : "", max_output_bytes,
                                            "to fit the model's context; the whole output is "
                                            "in the session's record");

        warden_llm_message_add_tool_result (to, block->tool_use_id, text, block->is_error);
      }
      break;
    default:
      g_assert_not_reached ();
    }
}

WardenLlmMessage *
warden_context_cut_outputs (WardenLlmMessage *message,
                            gsize             max_bytes)
{
  gboolean long_output = FALSE;
  WardenLlmMessage *copy;

  for (guint b = 0; b < warden_llm_message_get_n_blocks (message); b++)
    {
      const WardenLlmBlock *block = warden_llm_message_get_block (message, b);

      long_output |= block->type == WARDEN_LLM_BLOCK_TOOL_RESULT && block->text != NULL &&
                     strlen (block->text) > max_bytes;
    }
  if (!long_output)
    return warden_llm_message_ref (message);
  copy = warden_llm_message_new (warden_llm_message_get_role (message));
  for (guint b = 0; b < warden_llm_message_get_n_blocks (message); b++)
    copy_block (copy, warden_llm_message_get_block (message, b), max_bytes);
  return copy;
}

static char *
summary_text (const char *summary)
{
  return g_strdup_printf ("[Warden: the earlier part of this conversation was summarised to fit "
                          "your context window. The summary follows; the messages after it "
                          "are as they were.]\n<summary>\n%s\n</summary>", summary);
}

GPtrArray *
warden_context_view (GPtrArray  *messages,
                     guint       start,
                     const char *summary,
                     gsize       max_output_bytes)
{
  GPtrArray *view = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_llm_message_unref);
  guint i = start;

  if (summary != NULL && start < messages->len)
    {
      WardenLlmMessage *first = g_ptr_array_index (messages, start);
      g_autofree char *text = summary_text (summary);
      WardenLlmMessage *head = warden_llm_message_new (WARDEN_LLM_ROLE_USER);

      warden_llm_message_add_text (head, text);
      /* Two user messages in a row: one, the summary first. */
      if (warden_llm_message_get_role (first) == WARDEN_LLM_ROLE_USER)
        {
          for (guint b = 0; b < warden_llm_message_get_n_blocks (first); b++)
            copy_block (head, warden_llm_message_get_block (first, b), max_output_bytes);
          i++;
        }
      g_ptr_array_add (view, head);
    }
  for (; i < messages->len; i++)
    g_ptr_array_add (view, warden_context_cut_outputs (g_ptr_array_index (messages, i),
                                                       max_output_bytes));
  return view;
}

char *
warden_context_transcript (GPtrArray  *messages,
                           guint       from,
                           guint       upto,
                           const char *previous,
                           gsize       max_bytes)
{
  g_autoptr(GString) out = g_string_new (NULL);

  if (previous != NULL)
    g_string_append_printf (out, "Summary of what came before:\n%s\n\n", previous);
  for (guint i = from; i < upto && i < messages->len; i++)
    {
      WardenLlmMessage *message = g_ptr_array_index (messages, i);
      gboolean user = warden_llm_message_get_role (message) == WARDEN_LLM_ROLE_USER;

      for (guint b = 0; b < warden_llm_message_get_n_blocks (message); b++)
        {
          const WardenLlmBlock *block = warden_llm_message_get_block (message, b);

          switch (block->type)
            {
            case WARDEN_LLM_BLOCK_TEXT:
              g_string_append_printf (out, "%s: %s\n\n", user ? "User" : "Assistant",
                                      block->text);
              break;
            case WARDEN_LLM_BLOCK_TOOL_USE:
              {
                g_autofree char *input = block->tool_input
                                         ? warden_json_to_string (block->tool_input, FALSE)
                                         : g_strdup (block->tool_input_text ?: "");

                g_string_append_printf (out, "Assistant called %s %s\n\n", block->tool_name,
                                        input);
              }
              break;
            case WARDEN_LLM_BLOCK_TOOL_RESULT:
              {
                g_autofree char *text = cut_middle (block->text ? block->text : "",
                                                    TRANSCRIPT_OUTPUT_BYTES, "for the summary");

                g_string_append_printf (out, "Result%s:\n%s\n\n",
                                        block->is_error ? " (error)" : "", text);
              }
              break;
            default:
              break;
            }
        }
    }
  return cut_middle (out->str, max_bytes, "for the summary");
}
