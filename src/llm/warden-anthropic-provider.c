/* warden-anthropic-provider.c: the Anthropic Messages API
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-llm"

#include <glib/gi18n.h>

#include "warden-anthropic-provider.h"

#include <string.h>

#include "common/warden-json.h"
#include "warden-llm-provider-private.h"

#define API_VERSION      "2023-06-01"
#define MAX_TOKENS       8192
/* Far more content blocks than any answer has: a bigger index is garbage. */
#define MAX_BLOCKS       4096

struct _WardenAnthropicProvider
{
  WardenLlmProvider  parent_instance;
};

G_DEFINE_FINAL_TYPE (WardenAnthropicProvider, warden_anthropic_provider, WARDEN_TYPE_LLM_PROVIDER)

/* One content block of the answer, as it streams. */
typedef struct
{
  char     *type;        /* "text", "tool_use", or one Warden does not keep */
  GString  *text;        /* text: the text; tool_use: the input JSON so far */
  char     *id;
  char     *name;
  JsonNode *input;       /* tool_use: from content_block_start */
  gboolean  stopped;
} Block;

/* The answer of one attempt. */
typedef struct
{
  WardenAnthropicProvider *self;
  GPtrArray               *blocks;          /* of Block, by index; NULL gaps */
  char                    *stop_reason;
  gint64                   input_tokens;
  gint64                   output_tokens;
  gint64                   cache_read_tokens;
  gint64                   cache_write_tokens;
  gboolean                 usage_reported;  /* some usage came: else it is unknown, not 0 */
  GError                  *error;           /* what an event said went wrong */
  gboolean                 message_started;
  gboolean                 message_stopped;
} Stream;

static void
block_free (gpointer data)
{
  Block *block = data;

  if (block == NULL)
    return;

  g_free (block->type);
  g_string_free (block->text, TRUE);
  g_free (block->id);
  g_free (block->name);
  g_clear_pointer (&block->input, json_node_unref);
  g_free (block);
}

static gpointer
warden_anthropic_provider_answer_new (WardenLlmProvider *provider)
{
  Stream *stream = g_new0 (Stream, 1);

  stream->self = WARDEN_ANTHROPIC_PROVIDER (provider);
  stream->blocks = g_ptr_array_new_with_free_func (block_free);

  return stream;
}

static void
warden_anthropic_provider_answer_free (gpointer data)
{
  Stream *stream = data;

  g_clear_pointer (&stream->blocks, g_ptr_array_unref);
  g_free (stream->stop_reason);
  g_clear_error (&stream->error);
  g_free (stream);
}

/* Errors */

static gboolean
says_prompt_too_long (const char *message)
{
  g_autofree char *lower = message ? g_utf8_strdown (message, -1) : NULL;

  return lower != NULL && strstr (lower, "prompt is too long") != NULL;
}

/* The API's errors, from an HTTP answer (@status) or an "error" event (@status 0):
 * https://docs.anthropic.com/en/api/errors */
static GError *
api_error (WardenAnthropicProvider *self,
           guint                    status,
           const char              *type,
           const char              *api_message)
{
  WardenLlmProvider *provider = WARDEN_LLM_PROVIDER (self);
  const char *model = warden_llm_provider_get_model (provider);
  const char *base_url = warden_llm_provider_get_base_url (provider);
  g_autofree char *message = NULL;

  /* The API does not echo keys, but a proxy might: keep it out of errors. */
  message = warden_llm_provider_tidy_message (provider, api_message);
  if (message == NULL && status != 0)
    message = g_strdup_printf ("HTTP %u %s", status, soup_status_get_phrase (status));
  if (message == NULL)
    message = g_strdup (type ? type : _("no details given"));

  if (status == 401 || status == 403 ||
      g_strcmp0 (type, "authentication_error") == 0 ||
      g_strcmp0 (type, "permission_error") == 0)
    return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_AUTH,
                        _("The API key was rejected (check ANTHROPIC_API_KEY): %s"), message);

  if (status == 404 || g_strcmp0 (type, "not_found_error") == 0)
    return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_UNKNOWN_MODEL,
                        _("Unknown model %s at %s: %s (check the model name)"),
                        model, base_url, message);

  if (status == 413 || g_strcmp0 (type, "request_too_large") == 0 ||
      ((status == 400 || g_strcmp0 (type, "invalid_request_error") == 0) &&
       says_prompt_too_long (api_message)))
    return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_CONTEXT_TOO_LONG,
                        _("The conversation is too long for %s: %s"), model, message);

  if (status == 429 || g_strcmp0 (type, "rate_limit_error") == 0)
    return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_RATE_LIMITED,
                        _("Anthropic’s rate limit was reached: %s"), message);

  if (status == 408 || status >= 500 ||
      g_strcmp0 (type, "overloaded_error") == 0 ||
      g_strcmp0 (type, "api_error") == 0 ||
      g_strcmp0 (type, "timeout_error") == 0)
    {
      if (status != 0)
        return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_OVERLOADED,
                            _("Anthropic is overloaded or failing (HTTP %u): %s"),
                            status, message);
      return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_OVERLOADED,
                          _("Anthropic is overloaded or failing: %s"), message);
    }

  if (status != 0)
    return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_FAILED,
                        _("Anthropic refused the request (HTTP %u): %s"), status, message);

  return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_FAILED,
                      _("Anthropic stopped the answer: %s"), message);
}

/* An HTTP error answer: {"type":"error","error":{"type":…,"message":…}}, or
 * whatever a proxy on the way put there. */
static GError *
warden_anthropic_provider_http_error (WardenLlmProvider *provider,
                                      guint              status,
                                      GBytes            *body)
{
  WardenAnthropicProvider *self = WARDEN_ANTHROPIC_PROVIDER (provider);
  g_autoptr(JsonNode) root = NULL;
  JsonObject *error_object = NULL;
  gsize size = 0;
  const char *data = body ? g_bytes_get_data (body, &size) : NULL;

  if (data != NULL && size > 0)
    root = warden_llm_parse_json (data, size, NULL);

  if (root != NULL && JSON_NODE_HOLDS_OBJECT (root))
    error_object = warden_llm_json_get_object (json_node_get_object (root), "error");

  /* A 200 that is no event stream: a captive portal, or a base URL that
   * points at something else. */
  if (SOUP_STATUS_IS_SUCCESSFUL (status) && warden_json_get_string (error_object, "type") == NULL)
    return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_BAD_RESPONSE,
                        _("The server at %s did not answer with an event stream: check "
                          "ANTHROPIC_BASE_URL"),
                        warden_llm_provider_get_base_url (provider));

  return api_error (self, status,
                    warden_json_get_string (error_object, "type"),
                    warden_json_get_string (error_object, "message"));
}

/* The events */

static gboolean
set_bad_event (Stream     *stream,
               const char *type,
               const char *what)
{
  g_clear_error (&stream->error);
  stream->error = g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_BAD_RESPONSE,
                               _("Anthropic sent a malformed %s event: %s"), type, what);
  return FALSE;
}

static Block *
lookup_block (Stream     *stream,
              JsonObject *object,
              const char *type)
{
  gint64 index = warden_json_get_int (object, "index", -1);
  Block *block;

  if (index < 0 || index >= (gint64) stream->blocks->len ||
      (block = g_ptr_array_index (stream->blocks, index)) == NULL)
    {
      g_autofree char *what = NULL;

      what = g_strdup_printf (_("content block %lld never started"), (long long) index);

      set_bad_event (stream, type, what);
      return NULL;
    }

  return block;
}

static gboolean
handle_content_block_start (Stream     *stream,
                            JsonObject *object)
{
  WardenLlmProvider *provider = WARDEN_LLM_PROVIDER (stream->self);
  JsonObject *content_block = warden_llm_json_get_object (object, "content_block");
  gint64 index = warden_json_get_int (object, "index", -1);
  const char *type = warden_json_get_string (content_block, "type");
  Block *block;

  if (type == NULL || index < 0 || index >= MAX_BLOCKS)
    return set_bad_event (stream, "content_block_start", _("no content block type or index"));

  if (index < (gint64) stream->blocks->len && g_ptr_array_index (stream->blocks, index) != NULL)
    return set_bad_event (stream, "content_block_start", _("a content block started twice"));

  if (index >= (gint64) stream->blocks->len)
    g_ptr_array_set_size (stream->blocks, index + 1);

  block = g_new0 (Block, 1);
  block->type = g_strdup (type);
  block->text = g_string_new (NULL);
  g_ptr_array_index (stream->blocks, index) = block;

  if (g_str_equal (type, "text"))
    {
      const char *text = warden_json_get_string (content_block, "text");

      if (text != NULL && text[0] != '\0')
        {
          g_string_append (block->text, text);
          warden_llm_provider_emit_text_delta (provider, text);
        }
    }
  else if (g_str_equal (type, "tool_use"))
    {
      const char *id = warden_json_get_string (content_block, "id");
      const char *name = warden_json_get_string (content_block, "name");
      JsonObject *input = warden_llm_json_get_object (content_block, "input");

      if (id == NULL || name == NULL)
        return set_bad_event (stream, "content_block_start", _("a tool use without id or name"));

      block->id = g_strdup (id);
      block->name = g_strdup (name);
      if (input != NULL && json_object_get_size (input) > 0)
        block->input = json_node_copy (json_object_get_member (content_block, "input"));

      warden_llm_provider_emit_tool_use_start (provider, id, name);
    }
  /* Other blocks (thinking, server tools) are not part of Warden's messages. */

  return TRUE;
}

static gboolean
handle_content_block_delta (Stream     *stream,
                            JsonObject *object)
{
  JsonObject *delta = warden_llm_json_get_object (object, "delta");
  const char *type = warden_json_get_string (delta, "type");
  Block *block;

  block = lookup_block (stream, object, "content_block_delta");
  if (block == NULL)
    return FALSE;

  if (block->stopped)
    return set_bad_event (stream, "content_block_delta", _("a delta after the block stopped"));

  if (g_strcmp0 (type, "text_delta") == 0 && g_str_equal (block->type, "text"))
    {
      const char *text = warden_json_get_string (delta, "text");

      if (text == NULL)
        return set_bad_event (stream, "content_block_delta", _("a text delta without text"));

      g_string_append (block->text, text);
      warden_llm_provider_emit_text_delta (WARDEN_LLM_PROVIDER (stream->self), text);
    }
  else if (g_strcmp0 (type, "input_json_delta") == 0 && g_str_equal (block->type, "tool_use"))
    {
      const char *partial = warden_json_get_string (delta, "partial_json");

      if (partial == NULL)
        return set_bad_event (stream, "content_block_delta",
                              _("an input delta without partial_json"));

      g_string_append (block->text, partial);
    }
  /* thinking_delta, signature_delta, citations_delta: not kept. */

  return TRUE;
}

static gboolean
handle_content_block_stop (Stream     *stream,
                           JsonObject *object)
{
  Block *block = lookup_block (stream, object, "content_block_stop");

  if (block == NULL)
    return FALSE;

  block->stopped = TRUE;

  return TRUE;
}

/* Usage: what the context holds is the input, cached or not. */
static void
update_usage (Stream     *stream,
              JsonObject *usage)
{
  gint64 input = warden_json_get_int (usage, "input_tokens", -1);
  gint64 cache_creation = warden_json_get_int (usage, "cache_creation_input_tokens", -1);
  gint64 cache_read = warden_json_get_int (usage, "cache_read_input_tokens", -1);
  gint64 output = warden_json_get_int (usage, "output_tokens", -1);

  /* message_delta may say the cache again, or only the output. */
  if (cache_creation >= 0)
    stream->cache_write_tokens = cache_creation;
  if (cache_read >= 0)
    stream->cache_read_tokens = cache_read;
  if (input >= 0)
    stream->input_tokens = input + stream->cache_write_tokens + stream->cache_read_tokens;
  if (output >= 0)
    stream->output_tokens = output;
  if (input >= 0 || output >= 0)
    stream->usage_reported = TRUE;
}

static gboolean
handle_error_event (Stream     *stream,
                    JsonObject *object)
{
  JsonObject *error = warden_llm_json_get_object (object, "error");

  g_clear_error (&stream->error);
  stream->error = api_error (stream->self, 0,
                             warden_json_get_string (error, "type"),
                             warden_json_get_string (error, "message"));
  return FALSE;
}

/* Returns FALSE, with stream->error set, when the answer cannot go on. */
static gboolean
handle_event (Stream     *stream,
              const char *event,
              JsonObject *object)
{
  const char *type = warden_json_get_string (object, "type");

  if (type == NULL)
    type = event;
  if (type == NULL)
    return TRUE;

  if (g_str_equal (type, "error"))
    return handle_error_event (stream, object);

  if (g_str_equal (type, "message_start"))
    {
      JsonObject *message = warden_llm_json_get_object (object, "message");

      stream->message_started = TRUE;
      update_usage (stream, warden_llm_json_get_object (message, "usage"));
      return TRUE;
    }

  if (!stream->message_started)
    return set_bad_event (stream, type, _("it came before message_start"));

  if (g_str_equal (type, "content_block_start"))
    return handle_content_block_start (stream, object);

  if (g_str_equal (type, "content_block_delta"))
    return handle_content_block_delta (stream, object);

  if (g_str_equal (type, "content_block_stop"))
    return handle_content_block_stop (stream, object);

  if (g_str_equal (type, "message_delta"))
    {
      JsonObject *delta = warden_llm_json_get_object (object, "delta");
      const char *stop_reason = warden_json_get_string (delta, "stop_reason");

      if (stop_reason != NULL)
        {
          g_free (stream->stop_reason);
          stream->stop_reason = g_strdup (stop_reason);
        }
      update_usage (stream, warden_llm_json_get_object (object, "usage"));
      return TRUE;
    }

  if (g_str_equal (type, "message_stop"))
    stream->message_stopped = TRUE;

  /* New event types may appear; the API's versioning policy says to ignore them. */
  return TRUE;
}

static WardenLlmEvent
warden_anthropic_provider_handle_event (WardenLlmProvider  *provider,
                                        gpointer            answer,
                                        const char         *event,
                                        JsonObject         *object,
                                        GError            **error)
{
  Stream *stream = answer;

  /* While the model thinks: the connection is alive, the model may not be. */
  if (g_strcmp0 (warden_json_get_string (object, "type"), "ping") == 0 ||
      (warden_json_get_string (object, "type") == NULL && g_strcmp0 (event, "ping") == 0))
    return WARDEN_LLM_EVENT_KEEP_ALIVE;

  if (!handle_event (stream, event, object))
    {
      g_propagate_error (error, g_steal_pointer (&stream->error));
      return WARDEN_LLM_EVENT_FAILED;
    }

  return stream->message_stopped ? WARDEN_LLM_EVENT_DONE : WARDEN_LLM_EVENT_CONTENT;
}

static gboolean
warden_anthropic_provider_is_complete (WardenLlmProvider *provider,
                                       gpointer           answer)
{
  Stream *stream = answer;

  return stream->message_stopped;
}

/* The answer, once message_stop came. */
static WardenLlmResponse *
warden_anthropic_provider_build_response (WardenLlmProvider  *provider,
                                          gpointer            answer,
                                          GError            **error)
{
  Stream *stream = answer;
  g_autoptr(WardenLlmMessage) message = warden_llm_message_new (WARDEN_LLM_ROLE_ASSISTANT);
  WardenLlmResponse *response;

  for (guint i = 0; i < stream->blocks->len; i++)
    {
      Block *block = g_ptr_array_index (stream->blocks, i);

      if (block == NULL)
        continue;

      if (g_str_equal (block->type, "text"))
        {
          /* The API refuses empty text blocks when they are sent back. */
          if (block->text->len > 0)
            warden_llm_message_add_text (message, block->text->str);
        }
      else if (g_str_equal (block->type, "tool_use"))
        {
          /* No input_json_delta at all: the input from content_block_start stands. */
          if (block->text->len == 0 && block->input != NULL)
            warden_llm_message_add_tool_use (message, block->id, block->name, block->input);
          else
            warden_llm_add_tool_call (message, block->id, block->name, block->text->str,
                                      g_strcmp0 (stream->stop_reason, "max_tokens") == 0);
        }
    }

  response = warden_llm_response_new (message,
                                      stream->stop_reason ? stream->stop_reason : "end_turn",
                                      stream->input_tokens, stream->output_tokens);
  response->usage.cache_read_tokens = stream->cache_read_tokens;
  response->usage.cache_write_tokens = stream->cache_write_tokens;
  response->usage.unreported = stream->usage_reported ? 0 : 1;
  return response;
}

/* The request */

static void
warden_anthropic_provider_add_headers (WardenLlmProvider  *provider,
                                       SoupMessageHeaders *headers)
{
  const char *api_key = warden_llm_provider_get_api_key (provider);

  if (api_key != NULL)
    soup_message_headers_replace (headers, "x-api-key", api_key);
  soup_message_headers_replace (headers, "anthropic-version", API_VERSION);
}

/* The stored form is the API's, but for what the API refuses: empty text
 * blocks, which an interrupted turn may leave, and Warden's own notes on a
 * tool call whose input could not be read (its input is {} already). */
static JsonNode *
message_to_request_json (WardenLlmMessage *message)
{
  JsonNode *node = warden_llm_message_to_json (message);
  JsonArray *content = json_object_get_array_member (json_node_get_object (node), "content");

  for (guint i = json_array_get_length (content); i > 0; i--)
    {
      JsonObject *block = json_array_get_object_element (content, i - 1);

      if (g_strcmp0 (warden_json_get_string (block, "type"), "text") == 0 &&
          g_strcmp0 (warden_json_get_string (block, "text"), "") == 0)
        json_array_remove_element (content, i - 1);
      else if (json_object_has_member (block, "input_error"))
        {
          json_object_remove_member (block, "input_error");
          if (json_object_has_member (block, "input_text"))
            json_object_remove_member (block, "input_text");
        }
    }

  return node;
}

static JsonNode *
warden_anthropic_provider_build_body (WardenLlmProvider *provider,
                                      const char        *system_prompt,
                                      GPtrArray         *messages,
                                      GPtrArray         *tools)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);

  json_builder_set_member_name (builder, "model");
  json_builder_add_string_value (builder, warden_llm_provider_get_model (provider));
  json_builder_set_member_name (builder, "max_tokens");
  json_builder_add_int_value (builder, MAX_TOKENS);

  if (system_prompt != NULL && system_prompt[0] != '\0')
    {
      json_builder_set_member_name (builder, "system");
      json_builder_add_string_value (builder, system_prompt);
    }

  json_builder_set_member_name (builder, "messages");
  json_builder_begin_array (builder);
  for (guint i = 0; i < messages->len; i++)
    json_builder_add_value (builder, message_to_request_json (g_ptr_array_index (messages, i)));
  json_builder_end_array (builder);

  if (tools != NULL && tools->len > 0)
    {
      json_builder_set_member_name (builder, "tools");
      json_builder_begin_array (builder);
      for (guint i = 0; i < tools->len; i++)
        {
          WardenLlmTool *tool = g_ptr_array_index (tools, i);

          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "name");
          json_builder_add_string_value (builder, tool->name);
          json_builder_set_member_name (builder, "description");
          json_builder_add_string_value (builder, tool->description);
          json_builder_set_member_name (builder, "input_schema");
          json_builder_add_value (builder, json_node_copy (tool->input_schema));
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
    }

  json_builder_set_member_name (builder, "stream");
  json_builder_add_boolean_value (builder, TRUE);

  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

/* The object */

static void
warden_anthropic_provider_class_init (WardenAnthropicProviderClass *klass)
{
  WardenLlmProviderClass *provider_class = WARDEN_LLM_PROVIDER_CLASS (klass);

  provider_class->request_path = "/v1/messages";
  provider_class->base_url_variable = "ANTHROPIC_BASE_URL";
  provider_class->add_headers = warden_anthropic_provider_add_headers;
  provider_class->build_body = warden_anthropic_provider_build_body;
  provider_class->answer_new = warden_anthropic_provider_answer_new;
  provider_class->answer_free = warden_anthropic_provider_answer_free;
  provider_class->handle_event = warden_anthropic_provider_handle_event;
  provider_class->is_complete = warden_anthropic_provider_is_complete;
  provider_class->build_response = warden_anthropic_provider_build_response;
  provider_class->http_error = warden_anthropic_provider_http_error;
}

static void
warden_anthropic_provider_init (WardenAnthropicProvider *self)
{
}

WardenLlmProvider *
warden_anthropic_provider_new (const char *api_key,
                               const char *base_url,
                               const char *model)
{
  /* As the SDK takes ANTHROPIC_BASE_URL: the root, without /v1. */
  if (base_url == NULL || base_url[0] == '\0')
    base_url = WARDEN_ANTHROPIC_DEFAULT_BASE_URL;
  if (model == NULL || model[0] == '\0')
    model = WARDEN_ANTHROPIC_DEFAULT_MODEL;

  return g_object_new (WARDEN_TYPE_ANTHROPIC_PROVIDER,
                       "name", "anthropic",
                       "api-key", api_key,
                       "base-url", base_url,
                       "model", model,
                       NULL);
}
