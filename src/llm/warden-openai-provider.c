/* warden-openai-provider.c: OpenAI-compatible Chat Completions, streamed
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-llm"

#include <glib/gi18n.h>

#include "warden-openai-provider.h"

#include <string.h>

#include <libsoup/soup.h>

#include "common/warden-json.h"
#include "warden-llm-provider-private.h"

#define USER_AGENT         "warden/" PACKAGE_VERSION
#define OLLAMA_ROOT        "http://localhost:11434"
#define PROBE_TIMEOUT_MS   1500

struct _WardenOpenaiProvider
{
  WardenLlmProvider  parent_instance;
};

G_DEFINE_FINAL_TYPE (WardenOpenaiProvider, warden_openai_provider, WARDEN_TYPE_LLM_PROVIDER)

/* ------------------------------------------------------------------------ */
/* The request */

/* The text blocks of @message, joined by @separator; NULL when there are none. */
static GString *
join_text (WardenLlmMessage *message,
           const char       *separator)
{
  GString *text = NULL;

  for (guint i = 0; i < warden_llm_message_get_n_blocks (message); i++)
    {
      const WardenLlmBlock *block = warden_llm_message_get_block (message, i);

      if (block->type != WARDEN_LLM_BLOCK_TEXT)
        continue;

      if (text == NULL)
        text = g_string_new (NULL);
      else
        g_string_append (text, separator);
      g_string_append (text, block->text ? block->text : "");
    }

  return text;
}

static void
add_user_message (JsonBuilder      *builder,
                  WardenLlmMessage *message)
{
  g_autoptr(GString) text = join_text (message, "\n\n");
  guint n_blocks = warden_llm_message_get_n_blocks (message);
  gboolean has_result = FALSE;

  /* Tool results go first, as "tool" messages: the API wants them right
   * after the assistant message that made the calls. */
  for (guint i = 0; i < n_blocks; i++)
    {
      const WardenLlmBlock *block = warden_llm_message_get_block (message, i);
      g_autofree char *content = NULL;

      if (block->type != WARDEN_LLM_BLOCK_TOOL_RESULT)
        continue;

      has_result = TRUE;
      content = g_strconcat (block->is_error ? "Error: " : "",
                             block->text ? block->text : "", NULL);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "role");
      json_builder_add_string_value (builder, "tool");
      json_builder_set_member_name (builder, "tool_call_id");
      json_builder_add_string_value (builder, block->tool_use_id ? block->tool_use_id : "");
      json_builder_set_member_name (builder, "content");
      json_builder_add_string_value (builder, content);
      json_builder_end_object (builder);
    }

  if (text == NULL && has_result)
    return;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "role");
  json_builder_add_string_value (builder, "user");
  json_builder_set_member_name (builder, "content");
  json_builder_add_string_value (builder, text ? text->str : "");
  json_builder_end_object (builder);
}

static void
add_assistant_message (JsonBuilder      *builder,
                       WardenLlmMessage *message)
{
  /* Joined as the text-delta signals showed them, end to end. */
  g_autoptr(GString) text = join_text (message, "");
  guint n_blocks = warden_llm_message_get_n_blocks (message);
  gboolean has_calls = warden_llm_message_has_tool_use (message);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "role");
  json_builder_add_string_value (builder, "assistant");
  json_builder_set_member_name (builder, "content");
  /* null is only allowed, and expected, next to tool calls. */
  if (text != NULL)
    json_builder_add_string_value (builder, text->str);
  else if (has_calls)
    json_builder_add_null_value (builder);
  else
    json_builder_add_string_value (builder, "");

  if (has_calls)
    {
      json_builder_set_member_name (builder, "tool_calls");
      json_builder_begin_array (builder);
      for (guint i = 0; i < n_blocks; i++)
        {
          const WardenLlmBlock *block = warden_llm_message_get_block (message, i);
          g_autofree char *arguments = NULL;

          if (block->type != WARDEN_LLM_BLOCK_TOOL_USE)
            continue;

          /* The API wants the arguments as a string of JSON, not as JSON. */
          arguments = block->tool_input ? warden_json_to_string (block->tool_input, FALSE)
                                        : g_strdup ("{}");

          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "id");
          json_builder_add_string_value (builder, block->tool_use_id);
          json_builder_set_member_name (builder, "type");
          json_builder_add_string_value (builder, "function");
          json_builder_set_member_name (builder, "function");
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "name");
          json_builder_add_string_value (builder, block->tool_name);
          json_builder_set_member_name (builder, "arguments");
          json_builder_add_string_value (builder, arguments);
          json_builder_end_object (builder);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
    }

  json_builder_end_object (builder);
}

static void
add_tool (JsonBuilder   *builder,
          WardenLlmTool *tool)
{
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "function");
  json_builder_set_member_name (builder, "function");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, tool->name);
  if (tool->description != NULL)
    {
      json_builder_set_member_name (builder, "description");
      json_builder_add_string_value (builder, tool->description);
    }
  json_builder_set_member_name (builder, "parameters");
  if (tool->input_schema != NULL)
    {
      json_builder_add_value (builder, json_node_copy (tool->input_schema));
    }
  else
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, "object");
      json_builder_set_member_name (builder, "properties");
      json_builder_begin_object (builder);
      json_builder_end_object (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);
  json_builder_end_object (builder);
}

static JsonNode *
warden_openai_provider_build_body (WardenLlmProvider *provider,
                                   const char        *system_prompt,
                                   GPtrArray         *messages,
                                   GPtrArray         *tools)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "model");
  json_builder_add_string_value (builder,
                                 warden_llm_provider_get_model (provider));
  json_builder_set_member_name (builder, "stream");
  json_builder_add_boolean_value (builder, TRUE);
  /* Without it the stream carries no token counts. */
  json_builder_set_member_name (builder, "stream_options");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "include_usage");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "messages");
  json_builder_begin_array (builder);
  if (system_prompt != NULL && system_prompt[0] != '\0')
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "role");
      json_builder_add_string_value (builder, "system");
      json_builder_set_member_name (builder, "content");
      json_builder_add_string_value (builder, system_prompt);
      json_builder_end_object (builder);
    }
  for (guint i = 0; messages != NULL && i < messages->len; i++)
    {
      WardenLlmMessage *message = g_ptr_array_index (messages, i);

      if (warden_llm_message_get_role (message) == WARDEN_LLM_ROLE_ASSISTANT)
        add_assistant_message (builder, message);
      else
        add_user_message (builder, message);
    }
  json_builder_end_array (builder);

  if (tools != NULL && tools->len > 0)
    {
      json_builder_set_member_name (builder, "tools");
      json_builder_begin_array (builder);
      for (guint i = 0; i < tools->len; i++)
        add_tool (builder, g_ptr_array_index (tools, i));
      json_builder_end_array (builder);
    }

  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

static void
warden_openai_provider_add_headers (WardenLlmProvider  *provider,
                                    SoupMessageHeaders *headers)
{
  const char *api_key = warden_llm_provider_get_api_key (provider);

  if (api_key != NULL)
    {
      g_autofree char *authorization = g_strconcat ("Bearer ", api_key, NULL);

      soup_message_headers_replace (headers, "Authorization", authorization);
    }
}

/* ------------------------------------------------------------------------ */
/* Error answers */

typedef struct
{
  char *message;   /* the API's own words, with the key scrubbed; may be NULL */
  char *type;
  char *code;
} ApiError;

static void
api_error_clear (ApiError *api_error)
{
  g_clear_pointer (&api_error->message, g_free);
  g_clear_pointer (&api_error->type, g_free);
  g_clear_pointer (&api_error->code, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ApiError, api_error_clear)

/* "code" is a string at OpenAI, a number at vLLM. */
static char *
dup_code (JsonObject *object)
{
  const char *code = warden_json_get_string (object, "code");
  gint64 number = warden_json_get_int (object, "code", G_MININT64);

  if (code != NULL)
    return g_strdup (code);
  if (number != G_MININT64)
    return g_strdup_printf ("%" G_GINT64_FORMAT, number);
  return NULL;
}

/* Reads what the servers put in an error: OpenAI's {"error":{"message",
 * "type","code"}}, Ollama's {"error":"…"}, vLLM's top-level {"message",
 * "type","code"}, or plain text. */
static void
api_error_init_from_object (ApiError             *api_error,
                            WardenOpenaiProvider *self,
                            JsonObject           *object)
{
  JsonObject *inner = warden_llm_json_get_object (object, "error");
  const char *message = NULL;

  if (inner != NULL)
    {
      message = warden_json_get_string (inner, "message");
      api_error->type = g_strdup (warden_json_get_string (inner, "type"));
      api_error->code = dup_code (inner);
    }
  else if (warden_json_get_string (object, "error") != NULL)
    {
      message = warden_json_get_string (object, "error");
    }
  else if (warden_json_get_string (object, "message") != NULL)
    {
      message = warden_json_get_string (object, "message");
      api_error->type = g_strdup (warden_json_get_string (object, "type"));
      api_error->code = dup_code (object);
    }

  api_error->message = warden_llm_provider_tidy_message (WARDEN_LLM_PROVIDER (self), message);
}

static void
api_error_init_from_body (ApiError             *api_error,
                          WardenOpenaiProvider *self,
                          GBytes               *body)
{
  g_autoptr(JsonNode) root = NULL;
  gsize size = 0;
  const char *data = body ? g_bytes_get_data (body, &size) : NULL;

  if (data == NULL || size == 0)
    return;

  root = warden_llm_parse_json (data, size, NULL);
  if (root != NULL && JSON_NODE_HOLDS_OBJECT (root))
    {
      api_error_init_from_object (api_error, self, json_node_get_object (root));
    }
  else if (root == NULL && g_utf8_validate (data, size, NULL) && memchr (data, '<', size) == NULL)
    {
      /* Text, but not an HTML error page: worth showing. */
      g_autofree char *text = g_strndup (data, size);

      api_error->message = warden_llm_provider_tidy_message (WARDEN_LLM_PROVIDER (self), text);
    }
}

static gboolean
api_error_is_context_too_long (const ApiError *api_error)
{
  static const char * const phrases[] = {
    "maximum context length",
    "context_length_exceeded",
    "context length exceeded",
    "exceeds the available context",
    "exceeds the context window",
  };
  g_autofree char *lower = NULL;

  if (g_strcmp0 (api_error->code, "context_length_exceeded") == 0 ||
      g_strcmp0 (api_error->type, "exceed_context_size_error") == 0)
    return TRUE;

  if (api_error->message == NULL)
    return FALSE;

  lower = g_utf8_strdown (api_error->message, -1);
  for (guint i = 0; i < G_N_ELEMENTS (phrases); i++)
    if (strstr (lower, phrases[i]) != NULL)
      return TRUE;

  return FALSE;
}

/* @status 0: an error event inside a stream that had begun well. */
static GError *
error_from_api (WardenOpenaiProvider *self,
                guint                 status,
                const ApiError       *api_error)
{
  WardenLlmProvider *provider = WARDEN_LLM_PROVIDER (self);
  const char *base_url = warden_llm_provider_get_base_url (provider);
  const char *model = warden_llm_provider_get_model (provider);
  g_autofree char *said = NULL;

  if (api_error->message != NULL)
    said = g_strdup (api_error->message);
  else if (status != 0)
    said = g_strdup_printf ("HTTP %u %s", status, soup_status_get_phrase (status));
  else
    said = g_strdup (_("no reason given"));

  if (api_error_is_context_too_long (api_error))
    return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_CONTEXT_TOO_LONG,
                        _("The conversation no longer fits in the context of %s: %s "
                          "(start a new session or shorten it)"),
                        model, said);

  /* The server's message is left out on purpose: some echo the key. */
  if (status == SOUP_STATUS_UNAUTHORIZED || status == SOUP_STATUS_FORBIDDEN)
    {
      if (warden_llm_provider_get_api_key (provider) == NULL)
        return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_AUTH,
                            _("The server at %s wants an API key (HTTP %u): set OPENAI_API_KEY"),
                            base_url, status);
      return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_AUTH,
                          _("The server at %s answered HTTP %u: the API key was rejected "
                            "(check OPENAI_API_KEY)"),
                          base_url, status);
    }

  if (status == SOUP_STATUS_NOT_FOUND || g_strcmp0 (api_error->code, "model_not_found") == 0)
    return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_UNKNOWN_MODEL,
                        _("The model “%s” was not found at %s: %s (check the model name, "
                          "and that the base URL ends in /v1)"),
                        model, base_url, said);

  if (g_strcmp0 (api_error->code, "insufficient_quota") == 0)
    return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_FAILED,
                        _("The account at %s has run out of quota: %s (check the plan "
                          "and billing)"),
                        base_url, said);

  if (status == 429 ||
      (status == 0 && (g_strcmp0 (api_error->code, "rate_limit_exceeded") == 0 ||
                       g_strcmp0 (api_error->type, "rate_limit_error") == 0)))
    return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_RATE_LIMITED,
                        _("The server at %s is limiting the rate of requests: %s"),
                        base_url, said);

  if (status == SOUP_STATUS_REQUEST_TIMEOUT ||
      status == SOUP_STATUS_INTERNAL_SERVER_ERROR ||
      status == SOUP_STATUS_BAD_GATEWAY ||
      status == SOUP_STATUS_SERVICE_UNAVAILABLE ||
      status == SOUP_STATUS_GATEWAY_TIMEOUT ||
      status == 529 ||
      (status == 0 && (g_strcmp0 (api_error->type, "server_error") == 0 ||
                       g_strcmp0 (api_error->type, "overloaded_error") == 0)))
    return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_OVERLOADED,
                        _("The server at %s is overloaded or failing: %s"),
                        base_url, said);

  if (status == 0)
    return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_FAILED,
                        _("The server at %s stopped the answer with an error: %s"),
                        base_url, said);

  return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_FAILED,
                      _("The server at %s refused the request (HTTP %u): %s"),
                      base_url, status, said);
}

/* ------------------------------------------------------------------------ */
/* The stream */

typedef struct
{
  gint64   index;
  char    *id;
  char    *name;
  GString *arguments;
  gboolean started;   /* tool-use-start was emitted */
} ToolCall;

static void
tool_call_free (ToolCall *call)
{
  g_free (call->id);
  g_free (call->name);
  g_string_free (call->arguments, TRUE);
  g_free (call);
}

/* The answer of one attempt. */
typedef struct
{
  WardenOpenaiProvider *self;          /* borrowed: the attempt holds it */
  GString              *text;
  GPtrArray            *tool_calls;    /* ToolCall, in the order they began */
  char                 *finish_reason;
  gint64                input_tokens;
  gint64                output_tokens;
  gint64                cache_read_tokens;
  gboolean              usage_reported;  /* a usage came: else it is unknown, not 0 */
  double                cost;            /* the server's own figure (OpenRouter), < 0: none */
  GError               *error;         /* what the stream itself said went wrong */
} Request;

static gpointer
warden_openai_provider_answer_new (WardenLlmProvider *provider)
{
  Request *request = g_new0 (Request, 1);

  request->self = WARDEN_OPENAI_PROVIDER (provider);
  request->cost = -1;
  request->text = g_string_new (NULL);
  request->tool_calls = g_ptr_array_new_with_free_func ((GDestroyNotify) tool_call_free);

  return request;
}

static void
warden_openai_provider_answer_free (gpointer answer)
{
  Request *request = answer;

  g_string_free (request->text, TRUE);
  g_ptr_array_unref (request->tool_calls);
  g_free (request->finish_reason);
  g_clear_error (&request->error);
  g_free (request);
}

static ToolCall *
request_get_tool_call (Request *request,
                       gint64   index)
{
  ToolCall *call;

  for (guint i = 0; i < request->tool_calls->len; i++)
    {
      call = g_ptr_array_index (request->tool_calls, i);
      if (call->index == index)
        return call;
    }

  call = g_new0 (ToolCall, 1);
  call->index = index;
  call->arguments = g_string_new (NULL);
  g_ptr_array_add (request->tool_calls, call);
  return call;
}

static void
handle_tool_call_delta (Request    *request,
                        guint       position,
                        JsonObject *delta)
{
  JsonObject *function = warden_llm_json_get_object (delta, "function");
  JsonNode *arguments = function ? json_object_get_member (function, "arguments") : NULL;
  const char *id = warden_json_get_string (delta, "id");
  const char *name = warden_json_get_string (function, "name");
  ToolCall *call;
  gint64 index;

  /* Some servers leave out the index when they send each call whole. */
  index = warden_json_get_int (delta, "index", position);
  call = request_get_tool_call (request, index);

  if (call->id == NULL && id != NULL && id[0] != '\0')
    call->id = g_strdup (id);
  if (call->name == NULL && name != NULL && name[0] != '\0')
    call->name = g_strdup (name);

  if (arguments != NULL && JSON_NODE_HOLDS_VALUE (arguments) &&
      json_node_get_value_type (arguments) == G_TYPE_STRING)
    {
      g_string_append (call->arguments, json_node_get_string (arguments));
    }
  else if (arguments != NULL && (JSON_NODE_HOLDS_OBJECT (arguments) ||
                                 JSON_NODE_HOLDS_ARRAY (arguments)))
    {
      /* Not the API, but some servers send the arguments as JSON. */
      g_autofree char *json = warden_json_to_string (arguments, FALSE);

      g_string_assign (call->arguments, json);
    }

  if (!call->started && call->id != NULL && call->name != NULL)
    {
      call->started = TRUE;
      warden_llm_provider_emit_tool_use_start (WARDEN_LLM_PROVIDER (request->self),
                                               call->id, call->name);
    }
}

/* The usage of the last chunk (with stream_options.include_usage). Cached
 * tokens are part of prompt_tokens: OpenAI says them in
 * prompt_tokens_details, DeepSeek as prompt_cache_hit_tokens. OpenRouter
 * adds what the request cost. */
static void
read_usage (Request    *request,
            JsonObject *usage)
{
  JsonObject *details = warden_llm_json_get_object (usage, "prompt_tokens_details");
  JsonNode *cost = json_object_get_member (usage, "cost");

  if (!json_object_has_member (usage, "prompt_tokens") &&
      !json_object_has_member (usage, "completion_tokens"))
    return;
  request->usage_reported = TRUE;
  request->input_tokens = warden_json_get_int (usage, "prompt_tokens", request->input_tokens);
  request->output_tokens = warden_json_get_int (usage, "completion_tokens",
                                                request->output_tokens);
  request->cache_read_tokens = warden_json_get_int (details, "cached_tokens",
                                                    warden_json_get_int (usage,
                                                                         "prompt_cache_hit_tokens",
                                                                         0));
  request->cache_read_tokens = CLAMP (request->cache_read_tokens, 0, request->input_tokens);
  if (cost != NULL && JSON_NODE_HOLDS_VALUE (cost) &&
      (json_node_get_value_type (cost) == G_TYPE_DOUBLE ||
       json_node_get_value_type (cost) == G_TYPE_INT64) &&
      json_node_get_double (cost) >= 0)
    request->cost = json_node_get_double (cost);
}

/* One chunk of the stream, or a whole non-streamed answer (@whole): the
 * same object but with "message" where a chunk has "delta". Returns FALSE
 * to stop, with request->error set. */
static gboolean
handle_chunk (Request    *request,
              JsonObject *chunk,
              gboolean    whole)
{
  JsonObject *usage = warden_llm_json_get_object (chunk, "usage");
  JsonArray *choices = warden_llm_json_get_array (chunk, "choices");

  if (json_object_has_member (chunk, "error"))
    {
      g_auto(ApiError) api_error = { 0 };

      api_error_init_from_object (&api_error, request->self, chunk);
      request->error = error_from_api (request->self, 0, &api_error);
      return FALSE;
    }

  if (usage != NULL)
    read_usage (request, usage);

  if (choices != NULL && json_array_get_length (choices) > 0)
    {
      JsonNode *node = json_array_get_element (choices, 0);
      JsonObject *choice = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      JsonObject *delta = warden_llm_json_get_object (choice, whole ? "message" : "delta");
      const char *content = warden_json_get_string (delta, "content");
      const char *finish_reason = warden_json_get_string (choice, "finish_reason");
      JsonArray *tool_calls = warden_llm_json_get_array (delta, "tool_calls");

      if (content != NULL && content[0] != '\0')
        {
          g_string_append (request->text, content);
          warden_llm_provider_emit_text_delta (WARDEN_LLM_PROVIDER (request->self), content);
        }

      for (guint i = 0; tool_calls != NULL && i < json_array_get_length (tool_calls); i++)
        {
          JsonNode *call = json_array_get_element (tool_calls, i);

          if (JSON_NODE_HOLDS_OBJECT (call))
            handle_tool_call_delta (request, i, json_node_get_object (call));
        }

      if (finish_reason != NULL && finish_reason[0] != '\0')
        {
          g_free (request->finish_reason);
          request->finish_reason = g_strdup (finish_reason);
        }
    }

  return TRUE;
}

static WardenLlmEvent
warden_openai_provider_handle_event (WardenLlmProvider  *provider,
                                     gpointer            answer,
                                     const char         *event,
                                     JsonObject         *object,
                                     GError            **error)
{
  Request *request = answer;

  if (!handle_chunk (request, object, FALSE))
    {
      g_propagate_error (error, g_steal_pointer (&request->error));
      return WARDEN_LLM_EVENT_FAILED;
    }

  return WARDEN_LLM_EVENT_CONTENT;
}

/* A server that ignores "stream": true answers with one JSON object. */
static gboolean
warden_openai_provider_handle_whole (WardenLlmProvider  *provider,
                                     gpointer            answer,
                                     JsonObject         *object,
                                     GError            **error)
{
  Request *request = answer;

  if (!handle_chunk (request, object, TRUE))
    {
      g_propagate_error (error, g_steal_pointer (&request->error));
      return FALSE;
    }

  return TRUE;
}

/* Some servers close without [DONE]; a finish_reason shows the answer was
 * whole. */
static gboolean
warden_openai_provider_is_complete (WardenLlmProvider *provider,
                                    gpointer           answer)
{
  Request *request = answer;

  return request->finish_reason != NULL;
}

static const char *
stop_reason_from_finish_reason (const char *finish_reason,
                                gboolean    has_tool_calls)
{
  /* Some local servers say "stop" even when the model called tools. */
  if (has_tool_calls && g_strcmp0 (finish_reason, "length") != 0)
    return "tool_use";

  if (finish_reason == NULL || strcmp (finish_reason, "stop") == 0)
    return "end_turn";
  if (strcmp (finish_reason, "tool_calls") == 0 || strcmp (finish_reason, "function_call") == 0)
    return "tool_use";
  if (strcmp (finish_reason, "length") == 0)
    return "max_tokens";

  return finish_reason;
}

static gint
compare_tool_calls (gconstpointer a,
                    gconstpointer b)
{
  const ToolCall *call_a = *(ToolCall * const *) a;
  const ToolCall *call_b = *(ToolCall * const *) b;

  return (call_a->index > call_b->index) - (call_a->index < call_b->index);
}

static WardenLlmResponse *
warden_openai_provider_build_response (WardenLlmProvider  *provider,
                                       gpointer            answer,
                                       GError            **error)
{
  Request *request = answer;
  g_autoptr(WardenLlmMessage) message = warden_llm_message_new (WARDEN_LLM_ROLE_ASSISTANT);
  WardenLlmResponse *response;

  if (request->text->len > 0)
    warden_llm_message_add_text (message, request->text->str);

  g_ptr_array_sort (request->tool_calls, compare_tool_calls);
  for (guint i = 0; i < request->tool_calls->len; i++)
    {
      ToolCall *call = g_ptr_array_index (request->tool_calls, i);

      if (call->name == NULL)
        {
          g_set_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_BAD_RESPONSE,
                       _("The server at %s sent a tool call without the tool’s name"),
                       warden_llm_provider_get_base_url (WARDEN_LLM_PROVIDER (request->self)));
          return NULL;
        }

      /* Some local servers send no ids; the next request needs one to
       * pair the call with its result. */
      if (call->id == NULL)
        {
          g_autofree char *random = g_uuid_string_random ();

          call->id = g_strdup_printf ("call_%.8s", random);
        }

      if (!call->started)
        {
          call->started = TRUE;
          warden_llm_provider_emit_tool_use_start (WARDEN_LLM_PROVIDER (request->self),
                                                   call->id, call->name);
        }

      warden_llm_add_tool_call (message, call->id, call->name, call->arguments->str,
                                g_strcmp0 (request->finish_reason, "length") == 0);
    }

  response = warden_llm_response_new (message,
                                      stop_reason_from_finish_reason (request->finish_reason,
                                                                      request->tool_calls->len > 0),
                                      request->input_tokens, request->output_tokens);
  response->usage.cache_read_tokens = request->cache_read_tokens;
  response->usage.unreported = request->usage_reported ? 0 : 1;
  if (request->usage_reported && request->cost >= 0)
    {
      response->usage.cost = request->cost;
      response->usage.unpriced = 0;
    }
  return response;
}

static GError *
warden_openai_provider_http_error (WardenLlmProvider *provider,
                                   guint              status,
                                   GBytes            *body)
{
  WardenOpenaiProvider *self = WARDEN_OPENAI_PROVIDER (provider);
  g_auto(ApiError) api_error = { 0 };

  api_error_init_from_body (&api_error, self, body);
  return error_from_api (self, status, &api_error);
}

static void
warden_openai_provider_class_init (WardenOpenaiProviderClass *klass)
{
  WardenLlmProviderClass *provider_class = WARDEN_LLM_PROVIDER_CLASS (klass);

  provider_class->request_path = "/chat/completions";
  provider_class->base_url_variable = "OPENAI_BASE_URL";
  /* Servers that stream say so in many ways, some not at all. */
  provider_class->any_stream_type = TRUE;
  provider_class->done_data = "[DONE]";
  provider_class->add_headers = warden_openai_provider_add_headers;
  provider_class->build_body = warden_openai_provider_build_body;
  provider_class->answer_new = warden_openai_provider_answer_new;
  provider_class->answer_free = warden_openai_provider_answer_free;
  provider_class->handle_event = warden_openai_provider_handle_event;
  provider_class->handle_whole = warden_openai_provider_handle_whole;
  provider_class->is_complete = warden_openai_provider_is_complete;
  provider_class->build_response = warden_openai_provider_build_response;
  provider_class->http_error = warden_openai_provider_http_error;
}

static void
warden_openai_provider_init (WardenOpenaiProvider *self)
{
}

/* "https://host/v1/" → "https://host/v1" */
static char *
strip_trailing_slashes (const char *url)
{
  char *copy = g_strdup (url);
  gsize length = strlen (copy);

  while (length > 0 && copy[length - 1] == '/')
    copy[--length] = '\0';

  return copy;
}

WardenLlmProvider *
warden_openai_provider_new (const char *api_key,
                            const char *base_url,
                            const char *model)
{
  if (base_url == NULL || base_url[0] == '\0')
    base_url = WARDEN_OPENAI_DEFAULT_BASE_URL;
  if (model == NULL || model[0] == '\0')
    model = WARDEN_OPENAI_DEFAULT_MODEL;

  return g_object_new (WARDEN_TYPE_OPENAI_PROVIDER,
                       "name", "openai",
                       "model", model,
                       "base-url", base_url,
                       "api-key", api_key,
                       NULL);
}

/* ------------------------------------------------------------------------ */
/* Finding Ollama */

typedef struct
{
  SoupSession  *session;
  char         *root;          /* "http://localhost:11434" */
  GCancellable *cancellable;   /* cancelled by the caller's, or by the timeout */
  GSource      *caller_source; /* watches the caller's cancellable */
  GSource      *timeout_source;
  gboolean      timed_out;
} Probe;

static void
probe_free (Probe *probe)
{
  warden_llm_clear_source (&probe->timeout_source);
  warden_llm_clear_source (&probe->caller_source);
  g_clear_object (&probe->cancellable);
  g_clear_object (&probe->session);
  g_free (probe->root);
  g_free (probe);
}

static gboolean
probe_timeout_cb (gpointer user_data)
{
  Probe *probe = user_data;

  probe->timed_out = TRUE;
  g_cancellable_cancel (probe->cancellable);

  return G_SOURCE_REMOVE;
}

static void
probe_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Probe *probe = g_task_get_task_data (task);
  SoupMessage *msg = soup_session_get_async_result_message (SOUP_SESSION (object), result);
  g_autoptr(GBytes) body = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonArray *models = NULL;
  guint status;

  body = soup_session_send_and_read_finish (SOUP_SESSION (object), result, &error);
  warden_llm_clear_source (&probe->timeout_source);
  warden_llm_clear_source (&probe->caller_source);

  if (body == NULL)
    {
      if (probe->timed_out)
        g_task_return_new_error (task, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED,
                                 _("No Ollama server answered at %s within %.1f s"),
                                 probe->root, PROBE_TIMEOUT_MS / 1000.0);
      else if (!g_task_return_error_if_cancelled (task))
        g_task_return_new_error (task, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED,
                                 _("No Ollama server answers at %s (%s): start one with "
                                   "“ollama serve”"),
                                 probe->root, error->message);
      return;
    }

  status = soup_message_get_status (msg);
  if (status == SOUP_STATUS_OK)
    {
      gsize size;
      const char *data = g_bytes_get_data (body, &size);

      root = size > 0 ? warden_llm_parse_json (data, size, NULL) : NULL;
      if (root != NULL && JSON_NODE_HOLDS_OBJECT (root))
        models = warden_llm_json_get_array (json_node_get_object (root), "models");
    }

  if (models == NULL)
    {
      g_task_return_new_error (task, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED,
                               _("The server at %s does not look like Ollama: "
                                 "GET /api/tags answered HTTP %u without a list of models"),
                               probe->root, status);
      return;
    }

  for (guint i = 0; i < json_array_get_length (models); i++)
    {
      JsonNode *node = json_array_get_element (models, i);
      const char *name;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;

      name = warden_json_get_string (json_node_get_object (node), "name");
      if (name == NULL)
        name = warden_json_get_string (json_node_get_object (node), "model");
      if (name != NULL && name[0] != '\0')
        {
          g_debug ("Ollama at %s has %s", probe->root, name);
          g_task_return_pointer (task, g_strdup (name), g_free);
          return;
        }
    }

  g_task_return_new_error (task, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED,
                           _("Ollama runs at %s but has no models: pull one, for example "
                             "with “ollama pull qwen2.5-coder”"),
                           probe->root);
}

void
warden_openai_provider_probe_ollama_async (const char          *base_url,
                                           GCancellable        *cancellable,
                                           GAsyncReadyCallback  callback,
                                           gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  g_autofree char *url = NULL;
  Probe *probe;

  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, warden_openai_provider_probe_ollama_async);

  probe = g_new0 (Probe, 1);
  g_task_set_task_data (task, probe, (GDestroyNotify) probe_free);

  /* The native API lives beside the OpenAI one: drop the /v1. */
  probe->root = strip_trailing_slashes (base_url != NULL && base_url[0] != '\0'
                                        ? base_url : OLLAMA_ROOT);
  if (g_str_has_suffix (probe->root, "/v1"))
    probe->root[strlen (probe->root) - strlen ("/v1")] = '\0';

  url = g_strconcat (probe->root, "/api/tags", NULL);
  msg = soup_message_new (SOUP_METHOD_GET, url);
  if (msg == NULL)
    {
      g_task_return_new_error (task, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED,
                               _("“%s” is not an http or https URL"), probe->root);
      return;
    }

  /* Ollama is local: a proxy from the environment would only be in the way. */
  probe->session = soup_session_new_with_options ("user-agent", USER_AGENT, NULL);
  soup_session_set_proxy_resolver (probe->session, NULL);

  probe->cancellable = g_cancellable_new ();
  if (cancellable != NULL)
    probe->caller_source = warden_llm_forward_cancel (cancellable, probe->cancellable,
                                                      g_task_get_context (task));
  probe->timeout_source = g_timeout_source_new (PROBE_TIMEOUT_MS);
  g_source_set_callback (probe->timeout_source, probe_timeout_cb, probe, NULL);
  g_source_set_static_name (probe->timeout_source, "[warden] ollama probe timeout");
  g_source_attach (probe->timeout_source, g_task_get_context (task));

  soup_session_send_and_read_async (probe->session, msg, G_PRIORITY_DEFAULT, probe->cancellable,
                                    probe_cb, g_steal_pointer (&task));
}

char *
warden_openai_provider_probe_ollama_finish (GAsyncResult  *result,
                                            GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        warden_openai_provider_probe_ollama_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
