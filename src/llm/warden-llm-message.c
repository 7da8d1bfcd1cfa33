/* warden-llm-message.c: a conversation as the models see it
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-llm"

#include <glib/gi18n.h>

#include "warden-llm-message.h"

#include <string.h>

#include "common/warden-json.h"

struct _WardenLlmMessage
{
  gatomicrefcount  ref_count;
  WardenLlmRole    role;
  GArray          *blocks;   /* of WardenLlmBlock */
};

G_DEFINE_BOXED_TYPE (WardenLlmMessage, warden_llm_message,
                     warden_llm_message_ref, warden_llm_message_unref)

static void
block_clear (gpointer data)
{
  WardenLlmBlock *block = data;

  g_clear_pointer (&block->text, g_free);
  g_clear_pointer (&block->tool_use_id, g_free);
  g_clear_pointer (&block->tool_name, g_free);
  g_clear_pointer (&block->tool_input, json_node_unref);
  g_clear_pointer (&block->tool_input_error, g_free);
  g_clear_pointer (&block->tool_input_text, g_free);
}

WardenLlmMessage *
warden_llm_message_new (WardenLlmRole role)
{
  WardenLlmMessage *self;

  g_return_val_if_fail (role == WARDEN_LLM_ROLE_USER || role == WARDEN_LLM_ROLE_ASSISTANT, NULL);

  self = g_new0 (WardenLlmMessage, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->role = role;
  self->blocks = g_array_new (FALSE, TRUE, sizeof (WardenLlmBlock));
  g_array_set_clear_func (self->blocks, block_clear);

  return self;
}

WardenLlmMessage *
warden_llm_message_ref (WardenLlmMessage *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
warden_llm_message_unref (WardenLlmMessage *self)
{
  g_return_if_fail (self != NULL);

  if (g_atomic_ref_count_dec (&self->ref_count))
    {
      g_array_unref (self->blocks);
      g_free (self);
    }
}

WardenLlmRole
warden_llm_message_get_role (WardenLlmMessage *self)
{
  g_return_val_if_fail (self != NULL, WARDEN_LLM_ROLE_USER);

  return self->role;
}

guint
warden_llm_message_get_n_blocks (WardenLlmMessage *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->blocks->len;
}

const WardenLlmBlock *
warden_llm_message_get_block (WardenLlmMessage *self,
                              guint             index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->blocks->len, NULL);

  return &g_array_index (self->blocks, WardenLlmBlock, index);
}

void
warden_llm_message_add_text (WardenLlmMessage *self,
                             const char       *text)
{
  WardenLlmBlock block = { WARDEN_LLM_BLOCK_TEXT, };

  g_return_if_fail (self != NULL);

  block.text = g_strdup (text ? text : "");
  g_array_append_val (self->blocks, block);
}

void
warden_llm_message_add_tool_use (WardenLlmMessage *self,
                                 const char       *id,
                                 const char       *name,
                                 JsonNode         *input)
{
  WardenLlmBlock block = { WARDEN_LLM_BLOCK_TOOL_USE, };

  g_return_if_fail (self != NULL);
  g_return_if_fail (id != NULL);
  g_return_if_fail (name != NULL);
  g_return_if_fail (input == NULL || JSON_NODE_HOLDS_OBJECT (input));

  block.tool_use_id = g_strdup (id);
  block.tool_name = g_strdup (name);
  if (input != NULL)
    {
      block.tool_input = json_node_ref (input);
    }
  else
    {
      block.tool_input = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (block.tool_input, json_object_new ());
    }
  g_array_append_val (self->blocks, block);
}

void
warden_llm_message_add_bad_tool_use (WardenLlmMessage *self,
                                     const char       *id,
                                     const char       *name,
                                     const char       *input_text,
                                     const char       *input_error)
{
  WardenLlmBlock block = { WARDEN_LLM_BLOCK_TOOL_USE, };

  g_return_if_fail (self != NULL);
  g_return_if_fail (id != NULL);
  g_return_if_fail (name != NULL);
  g_return_if_fail (input_error != NULL);

  block.tool_use_id = g_strdup (id);
  block.tool_name = g_strdup (name);
  block.tool_input_error = g_strdup (input_error);
  block.tool_input_text = g_strdup (input_text);
  g_array_append_val (self->blocks, block);
}

void
warden_llm_message_add_tool_result (WardenLlmMessage *self,
                                    const char       *tool_use_id,
                                    const char       *content,
                                    gboolean          is_error)
{
  WardenLlmBlock block = { WARDEN_LLM_BLOCK_TOOL_RESULT, };

  g_return_if_fail (self != NULL);
  g_return_if_fail (tool_use_id != NULL);

  block.tool_use_id = g_strdup (tool_use_id);
  block.text = g_strdup (content ? content : "");
  block.is_error = !!is_error;
  g_array_append_val (self->blocks, block);
}

char *
warden_llm_message_dup_text (WardenLlmMessage *self)
{
  GString *text;

  g_return_val_if_fail (self != NULL, NULL);

  /* No separator: this is what the text-delta signals showed, end to end. */
  text = g_string_new (NULL);
  for (guint i = 0; i < self->blocks->len; i++)
    {
      const WardenLlmBlock *block = &g_array_index (self->blocks, WardenLlmBlock, i);

      if (block->type == WARDEN_LLM_BLOCK_TEXT)
        g_string_append (text, block->text);
    }

  return g_string_free (text, FALSE);
}

gboolean
warden_llm_message_has_tool_use (WardenLlmMessage *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  for (guint i = 0; i < self->blocks->len; i++)
    if (g_array_index (self->blocks, WardenLlmBlock, i).type == WARDEN_LLM_BLOCK_TOOL_USE)
      return TRUE;

  return FALSE;
}

/* JSON */

JsonNode *
warden_llm_message_to_json (WardenLlmMessage *self)
{
  g_autoptr(JsonBuilder) builder = NULL;

  g_return_val_if_fail (self != NULL, NULL);

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "role");
  json_builder_add_string_value (builder,
                                 self->role == WARDEN_LLM_ROLE_USER ? "user" : "assistant");
  json_builder_set_member_name (builder, "content");
  json_builder_begin_array (builder);

  for (guint i = 0; i < self->blocks->len; i++)
    {
      const WardenLlmBlock *block = &g_array_index (self->blocks, WardenLlmBlock, i);

      json_builder_begin_object (builder);
      switch (block->type)
        {
        case WARDEN_LLM_BLOCK_TEXT:
          json_builder_set_member_name (builder, "type");
          json_builder_add_string_value (builder, "text");
          json_builder_set_member_name (builder, "text");
          json_builder_add_string_value (builder, block->text);
          break;

        case WARDEN_LLM_BLOCK_TOOL_USE:
          json_builder_set_member_name (builder, "type");
          json_builder_add_string_value (builder, "tool_use");
          json_builder_set_member_name (builder, "id");
          json_builder_add_string_value (builder, block->tool_use_id);
          json_builder_set_member_name (builder, "name");
          json_builder_add_string_value (builder, block->tool_name);
          json_builder_set_member_name (builder, "input");
          if (block->tool_input != NULL)
            {
              json_builder_add_value (builder, json_node_copy (block->tool_input));
            }
          else
            {
              json_builder_begin_object (builder);
              json_builder_end_object (builder);
            }
          if (block->tool_input_error != NULL)
            {
              json_builder_set_member_name (builder, "input_error");
              json_builder_add_string_value (builder, block->tool_input_error);
              if (block->tool_input_text != NULL)
                {
                  json_builder_set_member_name (builder, "input_text");
                  json_builder_add_string_value (builder, block->tool_input_text);
                }
            }
          break;

        case WARDEN_LLM_BLOCK_TOOL_RESULT:
          json_builder_set_member_name (builder, "type");
          json_builder_add_string_value (builder, "tool_result");
          json_builder_set_member_name (builder, "tool_use_id");
          json_builder_add_string_value (builder, block->tool_use_id);
          json_builder_set_member_name (builder, "content");
          json_builder_add_string_value (builder, block->text);
          json_builder_set_member_name (builder, "is_error");
          json_builder_add_boolean_value (builder, block->is_error);
          break;

        default:
          g_assert_not_reached ();
        }
      json_builder_end_object (builder);
    }

  json_builder_end_array (builder);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

/* A tool result's content is a string, or (as the API also allows) an array
 * of text blocks. */
static char *
dup_tool_result_content (JsonNode *node)
{
  GString *text;
  JsonArray *array;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_strdup ("");

  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node));

  if (!JSON_NODE_HOLDS_ARRAY (node))
    return NULL;

  array = json_node_get_array (node);
  text = g_string_new (NULL);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      const char *part;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      part = warden_json_get_string (json_node_get_object (element), "text");
      if (part != NULL)
        g_string_append (text, part);
    }

  return g_string_free (text, FALSE);
}

static gboolean
add_block_from_json (WardenLlmMessage  *self,
                     JsonNode          *node,
                     guint              index,
                     GError           **error)
{
  JsonObject *object;
  const char *type;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("Content block %u of the message is not a JSON object"), index);
      return FALSE;
    }

  object = json_node_get_object (node);
  type = warden_json_get_string (object, "type");

  if (g_strcmp0 (type, "text") == 0)
    {
      const char *text = warden_json_get_string (object, "text");

      if (text == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("Text block %u of the message has no “text” string"), index);
          return FALSE;
        }
      warden_llm_message_add_text (self, text);
    }
  else if (g_strcmp0 (type, "tool_use") == 0)
    {
      const char *id = warden_json_get_string (object, "id");
      const char *name = warden_json_get_string (object, "name");
      JsonNode *input = json_object_get_member (object, "input");

      if (id == NULL || name == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("Tool use block %u of the message needs “id” and “name” strings"),
                       index);
          return FALSE;
        }
      if (input != NULL && !JSON_NODE_HOLDS_OBJECT (input) && !JSON_NODE_HOLDS_NULL (input))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("The input of tool use block %u (%s) is not a JSON object"),
                       index, name);
          return FALSE;
        }

      if (warden_json_get_string (object, "input_error") != NULL)
        {
          warden_llm_message_add_bad_tool_use (self, id, name,
                                               warden_json_get_string (object, "input_text"),
                                               warden_json_get_string (object, "input_error"));
        }
      else if (input != NULL && JSON_NODE_HOLDS_OBJECT (input))
        {
          g_autoptr(JsonNode) copy = json_node_copy (input);

          warden_llm_message_add_tool_use (self, id, name, copy);
        }
      else
        {
          warden_llm_message_add_tool_use (self, id, name, NULL);
        }
    }
  else if (g_strcmp0 (type, "tool_result") == 0)
    {
      const char *tool_use_id = warden_json_get_string (object, "tool_use_id");
      g_autofree char *content = NULL;
      gboolean is_error = FALSE;

      if (tool_use_id == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("Tool result block %u of the message has no “tool_use_id” string"),
                       index);
          return FALSE;
        }

      content = dup_tool_result_content (json_object_get_member (object, "content"));
      if (content == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("The content of tool result block %u is neither a string nor "
                         "a list of text blocks"), index);
          return FALSE;
        }

      if (json_object_has_member (object, "is_error"))
        {
          JsonNode *flag = json_object_get_member (object, "is_error");

          if (JSON_NODE_HOLDS_VALUE (flag) && json_node_get_value_type (flag) == G_TYPE_BOOLEAN)
            is_error = json_node_get_boolean (flag);
          else if (!JSON_NODE_HOLDS_NULL (flag))
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           _("“is_error” of tool result block %u is not a boolean"), index);
              return FALSE;
            }
        }

      warden_llm_message_add_tool_result (self, tool_use_id, content, is_error);
    }
  else
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("Content block %u of the message has the unknown type “%s”"),
                   index, type ? type : "(none)");
      return FALSE;
    }

  return TRUE;
}

WardenLlmMessage *
warden_llm_message_new_from_json (JsonNode  *node,
                                  GError   **error)
{
  g_autoptr(WardenLlmMessage) self = NULL;
  JsonObject *object;
  JsonNode *content;
  const char *role;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           _("A message must be a JSON object"));
      return NULL;
    }

  object = json_node_get_object (node);
  role = warden_json_get_string (object, "role");
  if (g_strcmp0 (role, "user") == 0)
    self = warden_llm_message_new (WARDEN_LLM_ROLE_USER);
  else if (g_strcmp0 (role, "assistant") == 0)
    self = warden_llm_message_new (WARDEN_LLM_ROLE_ASSISTANT);
  else
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("A message’s role must be “user” or “assistant”, not “%s”"),
                   role ? role : "(none)");
      return NULL;
    }

  content = json_object_get_member (object, "content");

  /* The API's shorthand: content as one string. */
  if (content != NULL && JSON_NODE_HOLDS_VALUE (content) &&
      json_node_get_value_type (content) == G_TYPE_STRING)
    {
      warden_llm_message_add_text (self, json_node_get_string (content));
      return g_steal_pointer (&self);
    }

  if (content == NULL || !JSON_NODE_HOLDS_ARRAY (content))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           _("A message’s “content” must be a list of blocks"));
      return NULL;
    }

  for (guint i = 0; i < json_array_get_length (json_node_get_array (content)); i++)
    {
      JsonNode *block = json_array_get_element (json_node_get_array (content), i);

      if (!add_block_from_json (self, block, i, error))
        return NULL;
    }

  return g_steal_pointer (&self);
}

/* Tools */

WardenLlmTool *
warden_llm_tool_new (const char *name,
                     const char *description,
                     const char *input_schema_json)
{
  g_autoptr(WardenLlmTool) tool = NULL;
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) error = NULL;

  g_return_val_if_fail (name != NULL, NULL);

  tool = g_new0 (WardenLlmTool, 1);
  tool->name = g_strdup (name);
  tool->description = g_strdup (description ? description : "");

  if (input_schema_json != NULL)
    {
      parser = json_parser_new ();
      if (json_parser_load_from_data (parser, input_schema_json, -1, &error) &&
          JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
        tool->input_schema = json_node_copy (json_parser_get_root (parser));
      else
        /* The schemas are Warden's own: a bad one is a bug, not bad input. */
        g_critical ("The input schema of the tool %s is not a JSON object: %s",
                    name, error ? error->message : "not an object");
    }

  if (tool->input_schema == NULL)
    {
      g_autoptr(JsonParser) fallback = json_parser_new ();

      json_parser_load_from_data (fallback, "{\"type\":\"object\",\"properties\":{}}", -1, NULL);
      tool->input_schema = json_node_copy (json_parser_get_root (fallback));
    }

  return g_steal_pointer (&tool);
}

void
warden_llm_tool_free (WardenLlmTool *tool)
{
  if (tool == NULL)
    return;

  g_free (tool->name);
  g_free (tool->description);
  g_clear_pointer (&tool->input_schema, json_node_unref);
  g_free (tool);
}

/* Responses */

WardenLlmResponse *
warden_llm_response_new (WardenLlmMessage *message,
                         const char       *stop_reason,
                         gint64            input_tokens,
                         gint64            output_tokens)
{
  WardenLlmResponse *response;

  g_return_val_if_fail (message != NULL, NULL);

  response = g_new0 (WardenLlmResponse, 1);
  response->message = warden_llm_message_ref (message);
  response->stop_reason = g_strdup (stop_reason);
  response->input_tokens = input_tokens;
  response->output_tokens = output_tokens;
  response->usage.input_tokens = input_tokens;
  response->usage.output_tokens = output_tokens;
  response->usage.requests = 1;
  response->usage.unpriced = 1;

  return response;
}

void
warden_llm_response_free (WardenLlmResponse *response)
{
  if (response == NULL)
    return;

  g_clear_pointer (&response->message, warden_llm_message_unref);
  g_free (response->stop_reason);
  g_free (response);
}
