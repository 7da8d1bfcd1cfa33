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

#include <libsoup/soup.h>

#include "common/warden-json.h"
#include "warden-sse-parser.h"

#define API_VERSION      "2023-06-01"
#define MAX_TOKENS       8192
#define USER_AGENT       "warden/" PACKAGE_VERSION
#define READ_SIZE        (16 * 1024)
#define MAX_ERROR_BODY   (64 * 1024)
/* Far more content blocks than any answer has: a bigger index is garbage. */
#define MAX_BLOCKS       4096
/* Seconds without a byte before a connection counts as dead. The API sends
 * pings while the model thinks, so this only has to outlast the wait for
 * the first byte of a long prompt. */
#define IO_TIMEOUT_S     600

struct _WardenAnthropicProvider
{
  WardenLlmProvider  parent_instance;

  SoupSession       *session;
};

G_DEFINE_FINAL_TYPE (WardenAnthropicProvider, warden_anthropic_provider, WARDEN_TYPE_LLM_PROVIDER)

/* One content block of the answer, as it streams. */
typedef struct
{
  char     *type;        /* "text", "tool_use", or one Warden does not keep */
  GString  *text;        /* text: the text; tool_use: the input JSON so far */
  char     *id;
  char     *name;
  JsonNode *input;       /* tool_use: from content_block_start, then parsed */
  gboolean  stopped;
} Block;

typedef struct
{
  WardenAnthropicProvider *self;            /* the task's source object */
  SoupMessage             *msg;
  GInputStream            *body;
  WardenSseParser         *parser;
  GByteArray              *error_body;      /* non-NULL: reading an error answer */
  guint                    status;
  GPtrArray               *blocks;          /* of Block, by index; NULL gaps */
  char                    *stop_reason;
  gint64                   input_tokens;
  gint64                   output_tokens;
  GError                  *error;           /* what an event said went wrong */
  guint                    retry_after_ms;
  gboolean                 streamed_tool_use;
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

static void
stream_free (gpointer data)
{
  Stream *stream = data;

  g_clear_object (&stream->msg);
  g_clear_object (&stream->body);
  g_clear_pointer (&stream->parser, warden_sse_parser_free);
  g_clear_pointer (&stream->error_body, g_byte_array_unref);
  g_clear_pointer (&stream->blocks, g_ptr_array_unref);
  g_free (stream->stop_reason);
  g_clear_error (&stream->error);
  g_free (stream);
}

/* Reading the JSON of events and error answers */

static JsonNode *
parse_json (const char  *data,
            gssize       length,
            GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();

  if (!json_parser_load_from_data (parser, data, length, error))
    return NULL;

  if (json_parser_get_root (parser) == NULL)
    {
      g_set_error_literal (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE, "empty document");
      return NULL;
    }

  return json_node_ref (json_parser_get_root (parser));
}

static JsonObject *
get_object_member (JsonObject *object,
                   const char *name)
{
  JsonNode *node = object ? json_object_get_member (object, name) : NULL;

  return (node != NULL && JSON_NODE_HOLDS_OBJECT (node)) ? json_node_get_object (node) : NULL;
}

static const char *
get_string_member (JsonObject *object,
                   const char *name)
{
  JsonNode *node = object ? json_object_get_member (object, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;

  return json_node_get_string (node);
}

/* -1 when absent or not a number. */
static gint64
get_int_member (JsonObject *object,
                const char *name)
{
  JsonNode *node = object ? json_object_get_member (object, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return -1;

  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      return json_node_get_int (node);
    case G_TYPE_DOUBLE:
      return (gint64) json_node_get_double (node);
    default:
      return -1;
    }
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
  if (api_message != NULL && api_message[0] != '\0')
    message = warden_llm_provider_redact (provider, api_message);
  else if (status != 0)
    message = g_strdup_printf ("HTTP %u %s", status, soup_status_get_phrase (status));
  else
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
http_error (WardenAnthropicProvider *self,
            guint                    status,
            GByteArray              *body)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *error_object = NULL;

  if (body != NULL && body->len > 0)
    root = parse_json ((const char *) body->data, body->len, NULL);

  if (root != NULL && JSON_NODE_HOLDS_OBJECT (root))
    error_object = get_object_member (json_node_get_object (root), "error");

  /* A 200 that is no event stream: a captive portal, or a base URL that
   * points at something else. */
  if (SOUP_STATUS_IS_SUCCESSFUL (status) && get_string_member (error_object, "type") == NULL)
    return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_BAD_RESPONSE,
                        _("The server at %s did not answer with an event stream: check "
                          "ANTHROPIC_BASE_URL"),
                        warden_llm_provider_get_base_url (WARDEN_LLM_PROVIDER (self)));

  return api_error (self, status,
                    get_string_member (error_object, "type"),
                    get_string_member (error_object, "message"));
}

static GError *
transport_error (WardenAnthropicProvider *self,
                 GError                  *error)
{
  const char *base_url = warden_llm_provider_get_base_url (WARDEN_LLM_PROVIDER (self));

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return g_error_copy (error);

  /* A certificate problem does not go away by trying again. */
  if (error->domain == G_TLS_ERROR)
    return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_FAILED,
                        _("Could not make a secure connection to %s: %s"),
                        base_url, error->message);

  return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NETWORK,
                      _("Could not reach Anthropic at %s: %s (check the network, or "
                        "ANTHROPIC_BASE_URL)"), base_url, error->message);
}

/* retry-after-ms (the API's own), or retry-after in seconds or as a date;
 * 0 when absent. */
static guint
parse_retry_after (SoupMessageHeaders *headers)
{
  const char *value;
  char *end = NULL;

  value = soup_message_headers_get_one (headers, "retry-after-ms");
  if (value != NULL)
    {
      double ms = g_ascii_strtod (value, &end);

      if (end != value && *end == '\0' && ms >= 0 && ms < G_MAXUINT)
        return (guint) ms;
    }

  value = soup_message_headers_get_one (headers, "retry-after");
  if (value != NULL)
    {
      guint64 seconds;
      g_autoptr(GDateTime) date = NULL;

      if (g_ascii_string_to_unsigned (value, 10, 0, G_MAXUINT / 1000, &seconds, NULL))
        return (guint) seconds * 1000;

      date = soup_date_time_new_from_http_string (value);
      if (date != NULL)
        {
          g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
          GTimeSpan span = g_date_time_difference (date, now);

          if (span > 0)
            return (guint) MIN (span / 1000, G_MAXUINT);
        }
    }

  return 0;
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
  gint64 index = get_int_member (object, "index");
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
finish_tool_input (Stream *stream,
                   Block  *block)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) input = NULL;

  /* No input_json_delta at all: the input from content_block_start stands. */
  if (block->text->len == 0 && block->input != NULL)
    return TRUE;

  /* A tool without parameters streams "": that is {}. */
  if (block->text->len == 0)
    {
      block->input = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (block->input, json_object_new ());
      return TRUE;
    }

  input = parse_json (block->text->str, block->text->len, &error);
  if (input == NULL || !JSON_NODE_HOLDS_OBJECT (input))
    {
      g_clear_error (&stream->error);
      stream->error = g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_BAD_RESPONSE,
                                   _("The input the model wrote for the tool %s is not a "
                                     "JSON object: %s"),
                                   block->name,
                                   error ? error->message : _("not an object"));
      return FALSE;
    }

  g_clear_pointer (&block->input, json_node_unref);
  block->input = g_steal_pointer (&input);
  return TRUE;
}

static gboolean
handle_content_block_start (Stream     *stream,
                            JsonObject *object)
{
  WardenLlmProvider *provider = WARDEN_LLM_PROVIDER (stream->self);
  JsonObject *content_block = get_object_member (object, "content_block");
  gint64 index = get_int_member (object, "index");
  const char *type = get_string_member (content_block, "type");
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
      const char *text = get_string_member (content_block, "text");

      if (text != NULL && text[0] != '\0')
        {
          g_string_append (block->text, text);
          warden_llm_provider_emit_text_delta (provider, text);
        }
    }
  else if (g_str_equal (type, "tool_use"))
    {
      const char *id = get_string_member (content_block, "id");
      const char *name = get_string_member (content_block, "name");
      JsonObject *input = get_object_member (content_block, "input");

      if (id == NULL || name == NULL)
        return set_bad_event (stream, "content_block_start", _("a tool use without id or name"));

      block->id = g_strdup (id);
      block->name = g_strdup (name);
      if (input != NULL && json_object_get_size (input) > 0)
        block->input = json_node_copy (json_object_get_member (content_block, "input"));

      /* From here on a failure must not be retried: the tool call was seen. */
      stream->streamed_tool_use = TRUE;
      warden_llm_provider_emit_tool_use_start (provider, id, name);
    }
  /* Other blocks (thinking, server tools) are not part of Warden's messages. */

  return TRUE;
}

static gboolean
handle_content_block_delta (Stream     *stream,
                            JsonObject *object)
{
  JsonObject *delta = get_object_member (object, "delta");
  const char *type = get_string_member (delta, "type");
  Block *block;

  block = lookup_block (stream, object, "content_block_delta");
  if (block == NULL)
    return FALSE;

  if (block->stopped)
    return set_bad_event (stream, "content_block_delta", _("a delta after the block stopped"));

  if (g_strcmp0 (type, "text_delta") == 0 && g_str_equal (block->type, "text"))
    {
      const char *text = get_string_member (delta, "text");

      if (text == NULL)
        return set_bad_event (stream, "content_block_delta", _("a text delta without text"));

      g_string_append (block->text, text);
      warden_llm_provider_emit_text_delta (WARDEN_LLM_PROVIDER (stream->self), text);
    }
  else if (g_strcmp0 (type, "input_json_delta") == 0 && g_str_equal (block->type, "tool_use"))
    {
      const char *partial = get_string_member (delta, "partial_json");

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
  if (g_str_equal (block->type, "tool_use"))
    return finish_tool_input (stream, block);

  return TRUE;
}

/* Usage: what the context holds is the input, cached or not. */
static void
update_usage (Stream     *stream,
              JsonObject *usage)
{
  gint64 input = get_int_member (usage, "input_tokens");
  gint64 cache_creation = get_int_member (usage, "cache_creation_input_tokens");
  gint64 cache_read = get_int_member (usage, "cache_read_input_tokens");
  gint64 output = get_int_member (usage, "output_tokens");

  if (input >= 0)
    stream->input_tokens = input + MAX (cache_creation, 0) + MAX (cache_read, 0);
  if (output >= 0)
    stream->output_tokens = output;
}

static gboolean
handle_error_event (Stream     *stream,
                    JsonObject *object)
{
  JsonObject *error = get_object_member (object, "error");

  g_clear_error (&stream->error);
  stream->error = api_error (stream->self, 0,
                             get_string_member (error, "type"),
                             get_string_member (error, "message"));
  return FALSE;
}

static gboolean
event_cb (const char *event,
          const char *data,
          gpointer    user_data)
{
  Stream *stream = user_data;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *object;
  const char *type;

  /* After message_stop nothing more belongs to the answer. */
  if (stream->message_stopped)
    return TRUE;

  root = parse_json (data, -1, &error);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_clear_error (&stream->error);
      stream->error = g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_BAD_RESPONSE,
                                   _("Anthropic sent a “%s” event that is not a JSON "
                                     "object: %s"),
                                   event ? event : "message",
                                   error ? error->message : _("not an object"));
      return FALSE;
    }

  object = json_node_get_object (root);
  type = get_string_member (object, "type");
  if (type == NULL)
    type = event;
  if (type == NULL)
    return TRUE;

  if (g_str_equal (type, "ping"))
    return TRUE;

  if (g_str_equal (type, "error"))
    return handle_error_event (stream, object);

  if (g_str_equal (type, "message_start"))
    {
      JsonObject *message = get_object_member (object, "message");

      stream->message_started = TRUE;
      update_usage (stream, get_object_member (message, "usage"));
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
      JsonObject *delta = get_object_member (object, "delta");
      const char *stop_reason = get_string_member (delta, "stop_reason");

      if (stop_reason != NULL)
        {
          g_free (stream->stop_reason);
          stream->stop_reason = g_strdup (stop_reason);
        }
      update_usage (stream, get_object_member (object, "usage"));
      return TRUE;
    }

  if (g_str_equal (type, "message_stop"))
    {
      stream->message_stopped = TRUE;
      return TRUE;
    }

  /* New event types may appear; the API's versioning policy says to ignore them. */
  return TRUE;
}

/* The answer, once message_stop came. */
static WardenLlmResponse *
build_response (Stream  *stream,
                GError **error)
{
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
          if (!block->stopped && !finish_tool_input (stream, block))
            {
              g_propagate_error (error, g_steal_pointer (&stream->error));
              return NULL;
            }
          warden_llm_message_add_tool_use (message, block->id, block->name, block->input);
        }
    }

  response = g_new0 (WardenLlmResponse, 1);
  response->message = g_steal_pointer (&message);
  response->stop_reason = g_strdup (stream->stop_reason ? stream->stop_reason : "end_turn");
  response->input_tokens = stream->input_tokens;
  response->output_tokens = stream->output_tokens;

  return response;
}

/* Reading the answer */

static void read_next (GTask *task);

static void
return_stream_end (GTask *task)
{
  Stream *stream = g_task_get_task_data (task);
  GError *error = NULL;
  WardenLlmResponse *response;

  if (!stream->message_stopped)
    {
      g_task_return_new_error (task, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_STREAM_CUT,
                               _("The answer from Anthropic stopped before it was complete "
                                 "(the connection closed early)"));
      return;
    }

  response = build_response (stream, &error);
  if (response == NULL)
    {
      g_task_return_error (task, error);
      return;
    }

  g_task_return_pointer (task, response, (GDestroyNotify) warden_llm_response_free);
}

static void
read_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Stream *stream = g_task_get_task_data (task);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  const char *data;
  gsize length;

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &error);
  if (bytes == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_task_return_error (task, g_steal_pointer (&error));
      else if (stream->error_body != NULL)
        g_task_return_error (task, http_error (stream->self, stream->status, NULL));
      else if (stream->message_stopped)
        /* The whole answer is in: a connection that dies now loses nothing. */
        return_stream_end (task);
      else
        g_task_return_new_error (task, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_STREAM_CUT,
                                 _("The connection to Anthropic broke before the answer was "
                                   "complete: %s"), error->message);
      return;
    }

  data = g_bytes_get_data (bytes, &length);

  if (stream->error_body != NULL)
    {
      g_byte_array_append (stream->error_body, (const guint8 *) data,
                           MIN (length, MAX_ERROR_BODY - stream->error_body->len));
      if (length == 0 || stream->error_body->len >= MAX_ERROR_BODY)
        {
          g_task_return_error (task, http_error (stream->self, stream->status,
                                                 stream->error_body));
          return;
        }
      read_next (g_steal_pointer (&task));
      return;
    }

  if (length == 0)
    {
      return_stream_end (task);
      return;
    }

  if (!warden_sse_parser_feed (stream->parser, data, length))
    {
      g_assert (stream->error != NULL);
      g_task_return_error (task, g_steal_pointer (&stream->error));
      return;
    }

  /* A signal handler may have cancelled. */
  if (g_task_return_error_if_cancelled (task))
    return;

  read_next (g_steal_pointer (&task));
}

static void
read_next (GTask *task)
{
  Stream *stream = g_task_get_task_data (task);

  g_input_stream_read_bytes_async (stream->body, READ_SIZE, G_PRIORITY_DEFAULT,
                                   g_task_get_cancellable (task),
                                   read_cb, task);
}

static gboolean
is_event_stream (SoupMessage *msg)
{
  const char *content_type;

  content_type = soup_message_headers_get_content_type (soup_message_get_response_headers (msg),
                                                        NULL);
  return g_strcmp0 (content_type, "text/event-stream") == 0;
}

static void
send_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Stream *stream = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  stream->body = soup_session_send_finish (SOUP_SESSION (object), result, &error);
  if (stream->body == NULL)
    {
      g_task_return_error (task, transport_error (stream->self, error));
      return;
    }

  stream->status = soup_message_get_status (stream->msg);
  stream->retry_after_ms = parse_retry_after (soup_message_get_response_headers (stream->msg));

  /* An error, or a 200 that is no stream (a proxy's page): read it whole. */
  if (stream->status != SOUP_STATUS_OK || !is_event_stream (stream->msg))
    stream->error_body = g_byte_array_new ();

  read_next (g_steal_pointer (&task));
}

/* The request */

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

static GBytes *
build_request_body (WardenAnthropicProvider *self,
                    const char              *system_prompt,
                    GPtrArray               *messages,
                    GPtrArray               *tools)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  char *data;

  json_builder_begin_object (builder);

  json_builder_set_member_name (builder, "model");
  json_builder_add_string_value (builder,
                                 warden_llm_provider_get_model (WARDEN_LLM_PROVIDER (self)));
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

  /* A tool's output may hold any bytes: the body must be JSON whatever they are. */
  data = warden_json_builder_to_string (builder, FALSE);

  return g_bytes_new_take (data, strlen (data));
}

static void
warden_anthropic_provider_stream_async (WardenLlmProvider   *provider,
                                        const char          *system_prompt,
                                        GPtrArray           *messages,
                                        GPtrArray           *tools,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data)
{
  WardenAnthropicProvider *self = WARDEN_ANTHROPIC_PROVIDER (provider);
  const char *base_url = warden_llm_provider_get_base_url (provider);
  const char *api_key = warden_llm_provider_get_api_key (provider);
  g_autoptr(GTask) task = NULL;
  g_autoptr(GBytes) body = NULL;
  g_autoptr(GUri) uri = NULL;
  g_autofree char *url = NULL;
  SoupMessageHeaders *headers;
  Stream *stream;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, warden_anthropic_provider_stream_async);

  stream = g_new0 (Stream, 1);
  stream->self = self;
  stream->blocks = g_ptr_array_new_with_free_func (block_free);
  stream->parser = warden_sse_parser_new (event_cb, stream);
  g_task_set_task_data (task, stream, stream_free);

  url = g_strconcat (base_url, "/v1/messages", NULL);
  uri = g_uri_parse (url, SOUP_HTTP_URI_FLAGS, NULL);
  if (uri == NULL ||
      (g_strcmp0 (g_uri_get_scheme (uri), "https") != 0 &&
       g_strcmp0 (g_uri_get_scheme (uri), "http") != 0))
    {
      g_task_return_new_error (task, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED,
                               _("The Anthropic base URL “%s” is not an http or https URL: "
                                 "check ANTHROPIC_BASE_URL"), base_url);
      return;
    }

  stream->msg = soup_message_new_from_uri (SOUP_METHOD_POST, uri);
  headers = soup_message_get_request_headers (stream->msg);
  if (api_key != NULL)
    soup_message_headers_replace (headers, "x-api-key", api_key);
  soup_message_headers_replace (headers, "anthropic-version", API_VERSION);
  soup_message_headers_replace (headers, "accept", "text/event-stream");

  body = build_request_body (self, system_prompt, messages, tools);
  soup_message_set_request_body_from_bytes (stream->msg, "application/json", body);

  soup_session_send_async (self->session, stream->msg, G_PRIORITY_DEFAULT, cancellable,
                           send_cb, g_steal_pointer (&task));
}

static WardenLlmResponse *
warden_anthropic_provider_stream_finish (WardenLlmProvider  *provider,
                                         GAsyncResult       *result,
                                         gboolean           *streamed_tool_use,
                                         guint              *retry_after_ms,
                                         GError            **error)
{
  Stream *stream;

  g_return_val_if_fail (g_task_is_valid (result, provider), NULL);

  stream = g_task_get_task_data (G_TASK (result));
  if (streamed_tool_use != NULL)
    *streamed_tool_use = stream->streamed_tool_use;
  if (retry_after_ms != NULL)
    *retry_after_ms = stream->retry_after_ms;

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* The object */

static void
warden_anthropic_provider_dispose (GObject *object)
{
  WardenAnthropicProvider *self = WARDEN_ANTHROPIC_PROVIDER (object);

  g_clear_object (&self->session);

  G_OBJECT_CLASS (warden_anthropic_provider_parent_class)->dispose (object);
}

static void
warden_anthropic_provider_class_init (WardenAnthropicProviderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  WardenLlmProviderClass *provider_class = WARDEN_LLM_PROVIDER_CLASS (klass);

  object_class->dispose = warden_anthropic_provider_dispose;

  provider_class->stream_async = warden_anthropic_provider_stream_async;
  provider_class->stream_finish = warden_anthropic_provider_stream_finish;
}

static void
warden_anthropic_provider_init (WardenAnthropicProvider *self)
{
  self->session = soup_session_new_with_options ("user-agent", USER_AGENT,
                                                 "timeout", IO_TIMEOUT_S,
                                                 NULL);
}

WardenLlmProvider *
warden_anthropic_provider_new (const char *api_key,
                               const char *base_url,
                               const char *model)
{
  g_autofree char *url = NULL;
  gsize length;

  /* As the SDK takes ANTHROPIC_BASE_URL: the root, without /v1. */
  url = g_strdup (base_url != NULL && base_url[0] != '\0' ? base_url
                                                          : WARDEN_ANTHROPIC_DEFAULT_BASE_URL);
  length = strlen (url);
  while (length > 0 && url[length - 1] == '/')
    url[--length] = '\0';

  if (model == NULL || model[0] == '\0')
    model = WARDEN_ANTHROPIC_DEFAULT_MODEL;

  return g_object_new (WARDEN_TYPE_ANTHROPIC_PROVIDER,
                       "name", "anthropic",
                       "api-key", api_key,
                       "base-url", url,
                       "model", model,
                       NULL);
}
