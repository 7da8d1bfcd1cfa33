/* fake-model.c: a scripted Anthropic Messages API for the tests
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fake-model.h"

/* ------------------------------------------------------------------------ */
/* A fake Anthropic API that answers from a script and keeps what it was sent */


static void
append_event (GString    *out,
              const char *type,
              const char *data)
{
  g_string_append_printf (out, "event: %s\ndata: %s\n\n", type, data);
}

/* A reply: optional text, then tool calls given as "name", "json input" pairs. */
char *
fake_reply (const char *text,
       ...)
{
  GString *out = g_string_new (NULL);
  static guint next_id = 0;
  guint index = 0;
  gboolean tools = FALSE;
  va_list args;
  const char *name;

  append_event (out, "message_start",
                "{\"type\":\"message_start\",\"message\":{\"id\":\"msg\",\"type\":\"message\","
                "\"role\":\"assistant\",\"content\":[],\"model\":\"fake\",\"stop_reason\":null,"
                "\"usage\":{\"input_tokens\":12,\"output_tokens\":1}}}");
  append_event (out, "ping", "{\"type\":\"ping\"}");
  if (text != NULL)
    {
      g_autoptr(JsonNode) s = json_node_new (JSON_NODE_VALUE);
      g_autofree char *quoted = NULL;
      g_autofree char *delta = NULL;

      json_node_set_string (s, text);
      quoted = json_to_string (s, FALSE);
      append_event (out, "content_block_start",
                    "{\"type\":\"content_block_start\",\"index\":0,"
                    "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
      delta = g_strdup_printf ("{\"type\":\"content_block_delta\",\"index\":0,"
                               "\"delta\":{\"type\":\"text_delta\",\"text\":%s}}", quoted);
      append_event (out, "content_block_delta", delta);
      append_event (out, "content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}");
      index++;
    }

  va_start (args, text);
  while ((name = va_arg (args, const char *)) != NULL)
    {
      const char *input = va_arg (args, const char *);
      g_autoptr(JsonNode) s = json_node_new (JSON_NODE_VALUE);
      g_autofree char *quoted = NULL;
      g_autofree char *start = NULL;
      g_autofree char *delta = NULL;
      g_autofree char *stop = NULL;

      json_node_set_string (s, input);
      quoted = json_to_string (s, FALSE);
      start = g_strdup_printf ("{\"type\":\"content_block_start\",\"index\":%u,\"content_block\":"
                               "{\"type\":\"tool_use\",\"id\":\"toolu_%u\",\"name\":\"%s\","
                               "\"input\":{}}}", index, ++next_id, name);
      delta = g_strdup_printf ("{\"type\":\"content_block_delta\",\"index\":%u,\"delta\":"
                               "{\"type\":\"input_json_delta\",\"partial_json\":%s}}", index,
                               quoted);
      stop = g_strdup_printf ("{\"type\":\"content_block_stop\",\"index\":%u}", index);
      append_event (out, "content_block_start", start);
      append_event (out, "content_block_delta", delta);
      append_event (out, "content_block_stop", stop);
      index++;
      tools = TRUE;
    }
  va_end (args);

  append_event (out, "message_delta", tools
                ? "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},"
                  "\"usage\":{\"output_tokens\":7}}"
                : "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
                  "\"usage\":{\"output_tokens\":7}}");
  append_event (out, "message_stop", "{\"type\":\"message_stop\"}");
  return g_string_free (out, FALSE);
}

/* A model that thinks before it answers (issue 28: longer than libsoup's
 * own socket timeout). */
typedef struct
{
  SoupServerMessage *msg;
  char              *sse;
} Delayed;

static void
delayed_free (gpointer data)
{
  Delayed *delayed = data;

  g_object_unref (delayed->msg);
  g_free (delayed->sse);
  g_free (delayed);
}

static gboolean
delayed_answer_cb (gpointer user_data)
{
  Delayed *delayed = user_data;
  SoupMessageBody *body = soup_server_message_get_response_body (delayed->msg);

  if (delayed->sse != NULL)
    {
      soup_message_body_append (body, SOUP_MEMORY_COPY, delayed->sse, strlen (delayed->sse));
      soup_message_body_complete (body);
    }
  soup_server_message_unpause (delayed->msg);
  return G_SOURCE_REMOVE;
}

static gboolean
headers_now_cb (gpointer user_data)
{
  soup_server_message_unpause (user_data);
  return G_SOURCE_REMOVE;
}

static void
answer_later (FakeModel         *fake,
              SoupServerMessage *msg,
              char              *sse)
{
  Delayed *delayed = g_new0 (Delayed, 1);

  delayed->msg = g_object_ref (msg);
  soup_server_message_set_status (msg, 200, NULL);
  if (fake->headers_first)
    {
      SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);

      soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
      soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
      delayed->sse = sse;
      g_idle_add_full (G_PRIORITY_DEFAULT, headers_now_cb, g_object_ref (msg), g_object_unref);
    }
  else
    {
      soup_server_message_set_response (msg, "text/event-stream", SOUP_MEMORY_COPY, sse,
                                        strlen (sse));
      g_free (sse);
    }
  soup_server_message_pause (msg);
  g_timeout_add_full (G_PRIORITY_DEFAULT, fake->delay_ms, delayed_answer_cb, delayed,
                      delayed_free);
}

static void
fake_handler (SoupServer        *server,
              SoupServerMessage *msg,
              const char        *path,
              GHashTable        *query,
              gpointer           user_data)
{
  FakeModel *fake = user_data;
  SoupMessageBody *body = soup_server_message_get_request_body (msg);
  g_autoptr(GBytes) bytes = soup_message_body_flatten (body);
  g_autofree char *sse = NULL;
  gsize length = 0;
  const char *data = g_bytes_get_data (bytes, &length);
  JsonNode *node;

  /* As strict as the real API (RFC 8259): no raw control character, only
   * UTF-8. json-glib's own parser lets a raw U+001F through. */
  gboolean valid = g_utf8_validate (data, length, NULL);

  for (gsize i = 0; valid && i < length; i++)
    valid = (guchar) data[i] >= 0x20 || data[i] == '\n' || data[i] == '\t' || data[i] == '\r';
  if (!valid)
    {
      static const char error[] = "{\"type\":\"error\",\"error\":{\"type\":"
                                  "\"invalid_request_error\",\"message\":\"The request body "
                                  "is not valid JSON\"}}";

      soup_server_message_set_status (msg, 400, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, error,
                                        strlen (error));
      return;
    }
  node = json_from_string (data, NULL);
  if (fake->no_tools_reply != NULL && node != NULL && JSON_NODE_HOLDS_OBJECT (node) &&
      !json_object_has_member (json_node_get_object (node), "tools"))
    sse = g_strdup (fake->no_tools_reply);
  else
    sse = g_queue_pop_head (&fake->script);
  g_ptr_array_add (fake->requests, node);
  g_free (fake->api_key);
  fake->api_key = g_strdup (soup_message_headers_get_one (
    soup_server_message_get_request_headers (msg), "x-api-key"));
  if (sse == NULL)
    sse = fake_reply ("I am out of script.", NULL);
  if (g_str_has_prefix (sse, "HTTP "))
    {
      const char *error_body = strchr (sse + 5, ' ');

      soup_server_message_set_status (msg, atoi (sse + 5), NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY,
                                        error_body + 1, strlen (error_body + 1));
      return;
    }
  if (fake->delay_ms > 0)
    {
      answer_later (fake, msg, g_steal_pointer (&sse));
      return;
    }
  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "text/event-stream", SOUP_MEMORY_COPY, sse,
                                    strlen (sse));
}

FakeModel *
fake_model_new (void)
{
  FakeModel *fake = g_new0 (FakeModel, 1);
  g_autoptr(GError) error = NULL;
  GSList *uris;

  g_queue_init (&fake->script);
  fake->requests = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  fake->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (fake->server, "/v1/messages", fake_handler, fake, NULL);
  soup_server_listen_local (fake->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (fake->server);
  fake->url = g_uri_to_string (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  /* No trailing slash: the base URL the SDKs take. */
  if (g_str_has_suffix (fake->url, "/"))
    fake->url[strlen (fake->url) - 1] = '\0';
  return fake;
}

void
fake_model_free (FakeModel *fake)
{
  g_queue_clear_full (&fake->script, g_free);
  g_ptr_array_unref (fake->requests);
  soup_server_disconnect (fake->server);
  g_object_unref (fake->server);
  g_free (fake->url);
  g_free (fake->api_key);
  g_free (fake->no_tools_reply);
  g_free (fake);
}


/* The last message of request @i, as JSON text, to look for words in it. */
char *
fake_model_last_message (FakeModel *fake,
                         guint      i)
{
  JsonObject *body;
  JsonArray *messages;

  g_assert_cmpuint (i, <, fake->requests->len);
  body = json_node_get_object (g_ptr_array_index (fake->requests, i));
  messages = json_object_get_array_member (body, "messages");
  return json_to_string (json_array_get_element (messages, json_array_get_length (messages) - 1),
                         FALSE);
}

