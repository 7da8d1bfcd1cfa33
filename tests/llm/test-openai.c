/* test-openai.c: the OpenAI-compatible provider against an in-process
 * server that answers as OpenAI, Ollama and vLLM do, in pieces as small as
 * one byte, and fails in the ways they fail.
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "llm/warden-openai-provider.h"
#include "warden-test-util.h"

#define TEST_KEY   "sk-test-Secr3tKey-0123456789"
#define TEST_MODEL "gpt-test"
#define TIMEOUT_S  30

/* ------------------------------------------------------------------------ */
/* The fake server */

typedef struct
{
  guint       status;
  const char *content_type;   /* NULL: text/event-stream */
  const char *header_name;    /* one extra response header, or NULL */
  const char *header_value;
  const char *body;
  gsize       piece_size;     /* 0: all at once; else chunked, this many bytes a piece */
  gboolean    stall;          /* send the body, then never end it */
  gboolean    cut;            /* send the body, then close the connection mid-chunk */
  gboolean    pings;          /* send the body, then a comment line every 100 ms, forever */
  gboolean    silent;         /* no answer at all, not even the status line */
} Reply;

typedef struct
{
  SoupServerMessage *msg;
  const Reply       *reply;
  gsize              offset;
  guint              source_id;
  gboolean           finished;     /* the server is done with it */
} Streaming;

typedef struct
{
  SoupServer  *server;
  char        *base_url;          /* http://127.0.0.1:PORT/v1/, with the slash */
  guint        port;
  const Reply *replies;
  guint        n_replies;         /* the last one repeats */
  guint        n_requests;
  GPtrArray   *paths;             /* "METHOD /path", one per request */
  GPtrArray   *bodies;            /* char * */
  GPtrArray   *authorizations;    /* char *, NULL when absent */
  GArray      *client_ports;      /* guint16: the client's end of each request's connection */
  GPtrArray   *streamings;        /* Streaming * */
  GPtrArray   *silent;            /* SoupServerMessage *, never answered */
  gsize        bytes_sent;        /* of streamed bodies, as handed to the server */
} Fake;

static void
streaming_free (Streaming *streaming)
{
  g_clear_handle_id (&streaming->source_id, g_source_remove);
  g_clear_object (&streaming->msg);
  g_free (streaming);
}

/* All written, or the client went away: stop writing to it. */
static void
streaming_finished_cb (SoupServerMessage *msg,
                       Streaming         *streaming)
{
  streaming->finished = TRUE;
  g_clear_handle_id (&streaming->source_id, g_source_remove);
}

static gboolean
write_keep_alive_cb (gpointer user_data)
{
  Streaming *streaming = user_data;
  static const char comment[] = ": keep-alive\n\n";

  soup_message_body_append (soup_server_message_get_response_body (streaming->msg),
                            SOUP_MEMORY_STATIC, comment, strlen (comment));
  soup_server_message_unpause (streaming->msg);

  return G_SOURCE_CONTINUE;
}

static gboolean
write_piece_cb (gpointer user_data)
{
  Streaming *streaming = user_data;
  Fake *fake = g_object_get_data (G_OBJECT (streaming->msg), "fake");
  SoupMessageBody *body = soup_server_message_get_response_body (streaming->msg);
  gsize length = strlen (streaming->reply->body);
  gsize size = MIN (streaming->reply->piece_size, length - streaming->offset);

  soup_message_body_append (body, SOUP_MEMORY_COPY,
                            streaming->reply->body + streaming->offset, size);
  streaming->offset += size;
  fake->bytes_sent += size;

  if (streaming->offset < length)
    {
      soup_server_message_unpause (streaming->msg);
      return G_SOURCE_CONTINUE;
    }

  streaming->source_id = 0;
  /* A stalled answer stays paused after its last piece: the client waits. */
  if (!streaming->reply->stall && !streaming->reply->pings)
    soup_message_body_complete (body);
  soup_server_message_unpause (streaming->msg);
  if (streaming->reply->pings)
    streaming->source_id = g_timeout_add (100, write_keep_alive_cb, streaming);

  return G_SOURCE_REMOVE;
}

/* Writes a response by hand, then closes the connection inside the
 * chunked body: what a proxy that dies mid-answer looks like. */
static void
write_cut_response (SoupServerMessage *msg,
                    const Reply       *reply)
{
  g_autoptr(GIOStream) stream = soup_server_message_steal_connection (msg);
  g_autoptr(GString) raw = g_string_new (NULL);
  GOutputStream *output = g_io_stream_get_output_stream (stream);
  gsize length = strlen (reply->body);

  g_string_append (raw, "HTTP/1.1 200 OK\r\n"
                        "Content-Type: text/event-stream\r\n"
                        "Transfer-Encoding: chunked\r\n\r\n");
  g_string_append_printf (raw, "%zx\r\n", length);
  g_string_append (raw, reply->body);
  g_string_append (raw, "\r\n");
  /* A chunk announced, and never sent. */
  g_string_append (raw, "40\r\ndata: {\"choices\"");

  g_assert_true (g_output_stream_write_all (output, raw->str, raw->len, NULL, NULL, NULL));
  g_io_stream_close (stream, NULL, NULL);
}

static void
server_cb (SoupServer        *server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  Fake *fake = user_data;
  SoupMessageHeaders *request_headers = soup_server_message_get_request_headers (msg);
  SoupMessageHeaders *response_headers = soup_server_message_get_response_headers (msg);
  g_autoptr(GBytes) request_body = NULL;
  const Reply *reply;
  guint16 client_port;

  request_body = soup_message_body_flatten (soup_server_message_get_request_body (msg));
  g_ptr_array_add (fake->paths, g_strdup_printf ("%s %s", soup_server_message_get_method (msg),
                                                 path));
  g_ptr_array_add (fake->bodies, g_strndup (g_bytes_get_data (request_body, NULL),
                                            g_bytes_get_size (request_body)));
  g_ptr_array_add (fake->authorizations,
                   g_strdup (soup_message_headers_get_one (request_headers, "Authorization")));
  client_port = g_inet_socket_address_get_port (
    G_INET_SOCKET_ADDRESS (soup_server_message_get_remote_address (msg)));
  g_array_append_val (fake->client_ports, client_port);

  g_assert_cmpuint (fake->n_replies, >, 0);
  reply = &fake->replies[MIN (fake->n_requests, fake->n_replies - 1)];
  fake->n_requests++;

  if (reply->cut)
    {
      write_cut_response (msg, reply);
      return;
    }

  if (reply->silent)
    {
      g_ptr_array_add (fake->silent, g_object_ref (msg));
      soup_server_message_pause (msg);
      return;
    }

  soup_server_message_set_status (msg, reply->status, NULL);
  if (reply->header_name != NULL)
    soup_message_headers_replace (response_headers, reply->header_name, reply->header_value);

  if (reply->piece_size == 0 && !reply->stall && !reply->pings)
    {
      soup_server_message_set_response (msg,
                                        reply->content_type ? reply->content_type
                                                            : "text/event-stream",
                                        SOUP_MEMORY_COPY, reply->body, strlen (reply->body));
    }
  else
    {
      Streaming *streaming = g_new0 (Streaming, 1);

      streaming->msg = g_object_ref (msg);
      streaming->reply = reply;
      g_object_set_data (G_OBJECT (msg), "fake", fake);
      g_ptr_array_add (fake->streamings, streaming);

      soup_message_headers_set_content_type (response_headers,
                                             reply->content_type ? reply->content_type
                                                                 : "text/event-stream",
                                             NULL);
      soup_message_headers_set_encoding (response_headers, SOUP_ENCODING_CHUNKED);
      g_signal_connect (msg, "finished", G_CALLBACK (streaming_finished_cb), streaming);
      soup_server_message_pause (msg);
      /* Idle, so that the client reads what came before the next piece. */
      streaming->source_id = g_idle_add_full (G_PRIORITY_LOW, write_piece_cb, streaming, NULL);
    }
}

static Fake *
fake_new (const Reply *replies,
          guint        n_replies)
{
  g_autoptr(GError) error = NULL;
  Fake *fake = g_new0 (Fake, 1);
  GSList *uris;

  fake->replies = replies;
  fake->n_replies = n_replies;
  fake->paths = g_ptr_array_new_with_free_func (g_free);
  fake->bodies = g_ptr_array_new_with_free_func (g_free);
  fake->authorizations = g_ptr_array_new_with_free_func (g_free);
  fake->client_ports = g_array_new (FALSE, FALSE, sizeof (guint16));
  fake->streamings = g_ptr_array_new_with_free_func ((GDestroyNotify) streaming_free);
  fake->silent = g_ptr_array_new_with_free_func (g_object_unref);

  fake->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (fake->server, NULL, server_cb, fake, NULL);
  soup_server_listen_local (fake->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);

  uris = soup_server_get_uris (fake->server);
  g_assert_nonnull (uris);
  fake->port = g_uri_get_port (uris->data);
  fake->base_url = g_strdup_printf ("http://127.0.0.1:%u/v1/", fake->port);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);

  return fake;
}

static void
fake_free (Fake *fake)
{
  for (guint i = 0; i < fake->streamings->len; i++)
    {
      Streaming *streaming = g_ptr_array_index (fake->streamings, i);

      g_signal_handlers_disconnect_by_data (streaming->msg, streaming);
      g_clear_handle_id (&streaming->source_id, g_source_remove);
    }
  soup_server_disconnect (fake->server);
  g_object_unref (fake->server);

  g_ptr_array_unref (fake->silent);
  g_ptr_array_unref (fake->streamings);
  g_ptr_array_unref (fake->paths);
  g_ptr_array_unref (fake->bodies);
  g_ptr_array_unref (fake->authorizations);
  g_array_unref (fake->client_ports);
  g_free (fake->base_url);
  g_free (fake);

  /* Let the closed connections finish closing. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Fake, fake_free)

/* Until the server has written every streamed answer to its end, and the
 * client has taken in all there is to read. */
static void
fake_wait_written (Fake *fake)
{
  for (guint i = 0; i < fake->streamings->len; i++)
    {
      Streaming *streaming = g_ptr_array_index (fake->streamings, i);

      while (!streaming->finished)
        g_main_context_iteration (NULL, TRUE);
    }

  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* A port that nothing listens on. */
static guint
closed_port (void)
{
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  guint port;

  socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
  g_assert_nonnull (socket);
  g_assert_true (g_socket_bind (socket, address, FALSE, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  g_socket_close (socket, NULL);

  return port;
}

/* ------------------------------------------------------------------------ */
/* The client side */

typedef struct
{
  Fake         *fake;
  GString      *text;             /* the text-delta signals, end to end */
  guint         n_text_deltas;
  gssize        sent_at_first_delta;
  GPtrArray    *starts;           /* "id name" per tool-use-start */
  GArray       *retry_delays;     /* guint ms per "retrying" */
  GPtrArray    *retry_reasons;    /* char * per "retrying" */
  GCancellable *cancel_on_delta;
  GCancellable *cancel_on_retry;  /* cancelled as the first wait begins */
  guint         idle_timeout_on_retry;  /* "idle-timeout" from the first retry on */
  GArray       *waitings;         /* guint seconds per "waiting" */
} Observed;

static void
text_delta_cb (WardenLlmProvider *provider,
               const char        *text,
               Observed          *observed)
{
  if (observed->n_text_deltas++ == 0)
    observed->sent_at_first_delta = observed->fake ? (gssize) observed->fake->bytes_sent : -1;
  g_string_append (observed->text, text);

  if (observed->cancel_on_delta != NULL)
    g_cancellable_cancel (observed->cancel_on_delta);
}

static void
tool_use_start_cb (WardenLlmProvider *provider,
                   const char        *id,
                   const char        *name,
                   Observed          *observed)
{
  g_ptr_array_add (observed->starts, g_strdup_printf ("%s %s", id, name));
}

static void
retrying_cb (WardenLlmProvider *provider,
             guint              attempt,
             guint              delay_ms,
             const char        *reason,
             Observed          *observed)
{
  g_assert_cmpuint (attempt, ==, observed->retry_delays->len + 1);
  g_assert_nonnull (reason);
  g_array_append_val (observed->retry_delays, delay_ms);
  g_ptr_array_add (observed->retry_reasons, g_strdup (reason));

  if (observed->idle_timeout_on_retry != 0)
    g_object_set (provider, "idle-timeout", observed->idle_timeout_on_retry, NULL);

  if (observed->cancel_on_retry != NULL)
    g_cancellable_cancel (observed->cancel_on_retry);
}

static void
waiting_cb (WardenLlmProvider *provider,
            guint              seconds,
            Observed          *observed)
{
  g_array_append_val (observed->waitings, seconds);
}

static Observed *
observed_new (WardenLlmProvider *provider,
              Fake              *fake)
{
  Observed *observed = g_new0 (Observed, 1);

  observed->fake = fake;
  observed->text = g_string_new (NULL);
  observed->sent_at_first_delta = -1;
  observed->starts = g_ptr_array_new_with_free_func (g_free);
  observed->retry_delays = g_array_new (FALSE, FALSE, sizeof (guint));
  observed->retry_reasons = g_ptr_array_new_with_free_func (g_free);
  observed->waitings = g_array_new (FALSE, FALSE, sizeof (guint));
  g_signal_connect (provider, "text-delta", G_CALLBACK (text_delta_cb), observed);
  g_signal_connect (provider, "tool-use-start", G_CALLBACK (tool_use_start_cb), observed);
  g_signal_connect (provider, "retrying", G_CALLBACK (retrying_cb), observed);
  g_signal_connect (provider, "waiting", G_CALLBACK (waiting_cb), observed);

  return observed;
}

static void
observed_free (Observed *observed)
{
  g_string_free (observed->text, TRUE);
  g_ptr_array_unref (observed->starts);
  g_array_unref (observed->retry_delays);
  g_ptr_array_unref (observed->retry_reasons);
  g_array_unref (observed->waitings);
  g_free (observed);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Observed, observed_free)

static gboolean
timeout_cb (gpointer user_data)
{
  g_error ("An operation did not finish within %d s: the provider hangs", TIMEOUT_S);
  return G_SOURCE_REMOVE;
}

static GAsyncResult *
wait_for (GAsyncResult **result)
{
  guint timeout_id = g_timeout_add_seconds (TIMEOUT_S, timeout_cb, NULL);

  while (*result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout_id);

  return *result;
}

static WardenLlmResponse *
complete (WardenLlmProvider  *provider,
          const char         *system_prompt,
          GPtrArray          *messages,
          GPtrArray          *tools,
          GCancellable       *cancellable,
          GError            **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  warden_llm_provider_complete_async (provider, system_prompt, messages, tools, cancellable,
                                      warden_test_keep_result_cb, &result);
  wait_for (&result);

  return warden_llm_provider_complete_finish (provider, result, error);
}

static GPtrArray *
one_question (const char *text)
{
  GPtrArray *messages = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_llm_message_unref);
  WardenLlmMessage *message = warden_llm_message_new (WARDEN_LLM_ROLE_USER);

  warden_llm_message_add_text (message, text);
  g_ptr_array_add (messages, message);

  return messages;
}

static JsonNode *
parse (const char *json)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, json, -1, &error);
  g_assert_no_error (error);

  return json_node_copy (json_parser_get_root (parser));
}

static void
assert_json_equal (const char *actual,
                   const char *expected)
{
  g_autoptr(JsonNode) actual_node = parse (actual);
  g_autoptr(JsonNode) expected_node = parse (expected);

  if (!json_node_equal (actual_node, expected_node))
    {
      g_autofree char *pretty_actual = json_to_string (actual_node, TRUE);
      g_autofree char *pretty_expected = json_to_string (expected_node, TRUE);

      g_test_message ("expected:\n%s\nactual:\n%s", pretty_expected, pretty_actual);
      g_test_fail_printf ("The JSON differs from what was expected: %s", actual);
    }
}

static void
assert_tool_use (const WardenLlmBlock *block,
                 const char           *id,
                 const char           *name,
                 const char           *input_json)
{
  g_autofree char *input = NULL;

  g_assert_nonnull (block);
  g_assert_cmpint (block->type, ==, WARDEN_LLM_BLOCK_TOOL_USE);
  g_assert_cmpstr (block->tool_use_id, ==, id);
  g_assert_cmpstr (block->tool_name, ==, name);
  g_assert_nonnull (block->tool_input);
  input = json_to_string (block->tool_input, FALSE);
  assert_json_equal (input, input_json);
}

/* ------------------------------------------------------------------------ */
/* Streams */

#define SSE(json) "data: " json "\n\n"

/* What OpenAI sends for "read both files", with the two calls interleaved
 * and their arguments split inside strings. */
static const char parallel_tools_stream[] =
  SSE ("{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,"
       "\"model\":\"gpt-test\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
       "\"content\":\"\",\"refusal\":null},\"logprobs\":null,\"finish_reason\":null}],"
       "\"usage\":null}")
  SSE ("{\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"I'll read \"},"
       "\"finish_reason\":null}],\"usage\":null}")
  SSE ("{\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":"
       "\"both files \\u2713 \\u00e9t\\u00e9.\"},\"finish_reason\":null}],\"usage\":null}")
  SSE ("{\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
       "\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"read_file\","
       "\"arguments\":\"\"}}]},\"finish_reason\":null}],\"usage\":null}")
  SSE ("{\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
       "\"function\":{\"arguments\":\"{\\\"pa\"}}]},\"finish_reason\":null}],\"usage\":null}")
  SSE ("{\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,"
       "\"id\":\"call_b\",\"type\":\"function\",\"function\":{\"name\":\"read_file\","
       "\"arguments\":\"\"}}]},\"finish_reason\":null}],\"usage\":null}")
  SSE ("{\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
       "\"function\":{\"arguments\":\"th\\\": \\\"a.t\"}}]},\"finish_reason\":null}],"
       "\"usage\":null}")
  SSE ("{\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,"
       "\"function\":{\"arguments\":\"{\\\"path\\\": \\\"b\\u00e9\"}}]},\"finish_reason\":null}],"
       "\"usage\":null}")
  SSE ("{\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
       "\"function\":{\"arguments\":\"xt\\\"}\"}}]},\"finish_reason\":null}],\"usage\":null}")
  SSE ("{\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,"
       "\"function\":{\"arguments\":\".txt\\\", \\\"lines\\\": 20}\"}}]},\"finish_reason\":null}],"
       "\"usage\":null}")
  SSE ("{\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{},"
       "\"finish_reason\":\"tool_calls\"}],\"usage\":null}")
  SSE ("{\"id\":\"chatcmpl-1\",\"choices\":[],\"usage\":{\"prompt_tokens\":120,"
       "\"completion_tokens\":45,\"total_tokens\":165}}")
  "data: [DONE]\n\n";

static const char hello_stream[] =
  SSE ("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"},"
       "\"finish_reason\":null}]}")
  SSE ("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo.\"},\"finish_reason\":null}]}")
  SSE ("{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}")
  SSE ("{\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":2}}")
  "data: [DONE]\n\n";

static void
assert_hello (WardenLlmResponse *response)
{
  g_autofree char *text = NULL;

  g_assert_nonnull (response);
  text = warden_llm_message_dup_text (response->message);
  g_assert_cmpstr (text, ==, "Hello.");
  g_assert_cmpstr (response->stop_reason, ==, "end_turn");
  g_assert_cmpint (response->input_tokens, ==, 7);
  g_assert_cmpint (response->output_tokens, ==, 2);
}

static void
test_stream_parallel_tools (void)
{
  static const Reply replies[] = {
    { 200, .body = parallel_tools_stream, .piece_size = 1 },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(Observed) observed = observed_new (provider, fake);
  g_autoptr(GPtrArray) messages = one_question ("What is in a.txt and bé.txt?");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  WardenLlmMessage *message;

  response = complete (provider, "You are Warden.", messages, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (response);
  g_assert_cmpuint (fake->n_requests, ==, 1);

  /* Streamed: the text showed while the server had more to send. */
  g_assert_cmpstr (observed->text->str, ==, "I'll read both files ✓ été.");
  g_assert_cmpuint (observed->n_text_deltas, ==, 2);
  g_assert_cmpint (observed->sent_at_first_delta, >, 0);
  g_assert_cmpint (observed->sent_at_first_delta, <, (gssize) strlen (parallel_tools_stream) / 2);

  g_assert_cmpuint (observed->starts->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (observed->starts, 0), ==, "call_a read_file");
  g_assert_cmpstr (g_ptr_array_index (observed->starts, 1), ==, "call_b read_file");

  message = response->message;
  g_assert_cmpint (warden_llm_message_get_role (message), ==, WARDEN_LLM_ROLE_ASSISTANT);
  g_assert_cmpuint (warden_llm_message_get_n_blocks (message), ==, 3);
  g_assert_cmpint (warden_llm_message_get_block (message, 0)->type, ==, WARDEN_LLM_BLOCK_TEXT);
  g_assert_cmpstr (warden_llm_message_get_block (message, 0)->text, ==,
                   "I'll read both files ✓ été.");
  assert_tool_use (warden_llm_message_get_block (message, 1),
                   "call_a", "read_file", "{\"path\":\"a.txt\"}");
  assert_tool_use (warden_llm_message_get_block (message, 2),
                   "call_b", "read_file", "{\"path\":\"bé.txt\",\"lines\":20}");

  g_assert_cmpstr (response->stop_reason, ==, "tool_use");
  g_assert_cmpint (response->input_tokens, ==, 120);
  g_assert_cmpint (response->output_tokens, ==, 45);
}

/* Usage, as each kind of server says it: the final chunk's, with the cached
 * part of the prompt; OpenRouter's own cost; and a server that says nothing,
 * whose usage is unknown rather than 0. */
typedef struct
{
  const char *usage;        /* the last chunk's "usage", NULL: no such chunk */
  gint64      input, output, cache_read;
  gboolean    reported;
  double      cost;         /* < 0: none sent */
} UsageRow;

static const UsageRow usage_rows[] = {
  { "{\"prompt_tokens\":1200,\"completion_tokens\":45,\"total_tokens\":1245,"
    "\"prompt_tokens_details\":{\"cached_tokens\":1024}}", 1200, 45, 1024, TRUE, -1 },
  { "{\"prompt_tokens\":900,\"completion_tokens\":10,\"prompt_cache_hit_tokens\":512,"
    "\"prompt_cache_miss_tokens\":388}", 900, 10, 512, TRUE, -1 },
  { "{\"prompt_tokens\":30,\"completion_tokens\":4,\"cost\":0.00125}", 30, 4, 0, TRUE,
    0.00125 },
  { "{\"prompt_tokens\":30,\"completion_tokens\":4}", 30, 4, 0, TRUE, -1 },
  { NULL, 0, 0, 0, FALSE, -1 },
};

static void
test_stream_usage (gconstpointer data)
{
  const UsageRow *row = data;
  g_autofree char *body = g_strconcat (
    SSE ("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"ok\"},"
         "\"finish_reason\":null}]}")
    SSE ("{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],"
         "\"usage\":null}"),
    row->usage ? "data: {\"choices\":[],\"usage\":" : "",
    row->usage ? row->usage : "",
    row->usage ? "}\n\n" : "",
    "data: [DONE]\n\n", NULL);
  Reply replies[] = { { 200, .body = body } };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(GPtrArray) messages = one_question ("Hi");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;

  response = complete (provider, NULL, messages, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (response->usage.requests, ==, 1);
  g_assert_cmpuint (response->usage.unreported, ==, row->reported ? 0 : 1);
  g_assert_cmpint (response->usage.input_tokens, ==, row->input);
  g_assert_cmpint (response->usage.output_tokens, ==, row->output);
  g_assert_cmpint (response->usage.cache_read_tokens, ==, row->cache_read);
  g_assert_cmpint (response->usage.cache_write_tokens, ==, 0);
  g_assert_cmpint (response->input_tokens, ==, row->input);
  if (row->cost >= 0)
    {
      g_assert_cmpuint (response->usage.unpriced, ==, 0);
      g_assert_cmpfloat_with_epsilon (response->usage.cost, row->cost, 1e-9);
    }
  else
    g_assert_cmpuint (response->usage.unpriced, ==, 1);
  g_assert_false (warden_llm_usage_cost_known (&response->usage) && !row->reported);
  g_assert_true (warden_llm_usage_tokens_known (&response->usage) == row->reported);
}

/* Servers that differ from OpenAI: CRLF lines and comments (OpenRouter),
 * no [DONE] after the finish_reason, a call sent whole without index or id
 * and with its arguments as JSON, "stop" although the model called a tool. */
static void
test_stream_compatible_servers (void)
{
  static const Reply replies[] = {
    { 200, .piece_size = 7, .body =
      ": OPENROUTER PROCESSING\r\n\r\n"
      "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":"
      "[{\"function\":{\"name\":\"list_dir\",\"arguments\":{\"path\":\"src\"}}}]},"
      "\"finish_reason\":null}]}\r\n\r\n"
      "data: {\"choices\":[{\"delta\":{\"content\":\"\"},\"finish_reason\":\"stop\"}],"
      "\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":3}}\r\n\r\n" },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (NULL, fake->base_url,
                                                                      "qwen2.5-coder");
  g_autoptr(Observed) observed = observed_new (provider, fake);
  g_autoptr(GPtrArray) messages = one_question ("List src");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  const WardenLlmBlock *block;

  response = complete (provider, NULL, messages, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (warden_llm_message_get_n_blocks (response->message), ==, 1);
  block = warden_llm_message_get_block (response->message, 0);
  g_assert_true (g_str_has_prefix (block->tool_use_id, "call_"));
  assert_tool_use (block, block->tool_use_id, "list_dir", "{\"path\":\"src\"}");
  g_assert_cmpuint (observed->starts->len, ==, 1);
  g_assert_cmpstr (response->stop_reason, ==, "tool_use");
  g_assert_cmpint (response->input_tokens, ==, 11);
  g_assert_cmpint (response->output_tokens, ==, 3);
}

/* A server that ignores "stream": true answers with one JSON object. */
static void
test_stream_whole_answer (void)
{
  static const Reply replies[] = {
    { 200, .content_type = "application/json", .body =
      "{\"id\":\"chatcmpl-2\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
      "\"message\":{\"role\":\"assistant\",\"content\":\"Done, it is\"},"
      "\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":4}}" },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (NULL, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(Observed) observed = observed_new (provider, fake);
  g_autoptr(GPtrArray) messages = one_question ("Go");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;

  response = complete (provider, NULL, messages, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (observed->text->str, ==, "Done, it is");
  g_assert_cmpstr (response->stop_reason, ==, "max_tokens");
  g_assert_cmpint (response->output_tokens, ==, 4);
}

/* [DONE] ends the answer, even when the server keeps the connection open
 * and sent no finish_reason. */
static void
test_stream_done_ends_it (void)
{
  static const Reply replies[] = {
    { 200, .piece_size = 2, .stall = TRUE, .body =
      SSE ("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello.\"}}]}")
      "data: [DONE]\n\n" },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (NULL, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(GPtrArray) messages = one_question ("Hi");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  response = complete (provider, NULL, messages, NULL, NULL, &error);
  g_assert_no_error (error);
  text = warden_llm_message_dup_text (response->message);
  g_assert_cmpstr (text, ==, "Hello.");
  g_assert_cmpstr (response->stop_reason, ==, "end_turn");
  g_assert_cmpint (response->input_tokens, ==, 0);
}

/* The end of the body after [DONE] is read in the background, so the next
 * request goes out on the same connection. */
static void
test_stream_connection_reused (void)
{
  static const Reply replies[] = {
    { 200, .body = hello_stream, .piece_size = 64 },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (NULL, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(GPtrArray) messages = one_question ("Hi");

  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(WardenLlmResponse) response = NULL;
      g_autoptr(GError) error = NULL;

      response = complete (provider, NULL, messages, NULL, NULL, &error);
      g_assert_no_error (error);
      assert_hello (response);

      /* The agent runs tools between two requests: time enough for that. */
      fake_wait_written (fake);
    }

  g_assert_cmpuint (fake->client_ports->len, ==, 2);
  g_assert_cmpuint (g_array_index (fake->client_ports, guint16, 0), ==,
                    g_array_index (fake->client_ports, guint16, 1));
}

/* ------------------------------------------------------------------------ */
/* Requests */

static void
test_request_body (void)
{
  static const Reply replies[] = {
    { 200, .body = hello_stream },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(GPtrArray) messages = NULL;
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) input = NULL;
  WardenLlmMessage *message;

  messages = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_llm_message_unref);

  message = warden_llm_message_new (WARDEN_LLM_ROLE_USER);
  warden_llm_message_add_text (message, "What is in a.txt?");
  g_ptr_array_add (messages, message);

  message = warden_llm_message_new (WARDEN_LLM_ROLE_ASSISTANT);
  warden_llm_message_add_text (message, "Let me read it.");
  input = parse ("{\"path\": \"a.txt\"}");
  warden_llm_message_add_tool_use (message, "call_1", "read_file", input);
  g_clear_pointer (&input, json_node_unref);
  input = parse ("{\"command\": \"rm -rf /\"}");
  warden_llm_message_add_tool_use (message, "call_2", "run_command", input);
  g_clear_pointer (&input, json_node_unref);
  g_ptr_array_add (messages, message);

  message = warden_llm_message_new (WARDEN_LLM_ROLE_USER);
  warden_llm_message_add_tool_result (message, "call_1", "hello\n", FALSE);
  warden_llm_message_add_tool_result (message, "call_2", "the policy denies rm -rf", TRUE);
  warden_llm_message_add_text (message, "Then list the folder.");
  g_ptr_array_add (messages, message);

  message = warden_llm_message_new (WARDEN_LLM_ROLE_ASSISTANT);
  input = parse ("{}");
  warden_llm_message_add_tool_use (message, "call_3", "list_dir", input);
  g_ptr_array_add (messages, message);

  message = warden_llm_message_new (WARDEN_LLM_ROLE_USER);
  warden_llm_message_add_tool_result (message, "call_3", "a.txt\nb.txt", FALSE);
  g_ptr_array_add (messages, message);

  tools = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_llm_tool_free);
  g_ptr_array_add (tools, warden_llm_tool_new ("read_file", "Read a file of the workspace",
                                               "{\"type\":\"object\",\"properties\":{\"path\":"
                                               "{\"type\":\"string\"}},\"required\":[\"path\"]}"));
  g_ptr_array_add (tools, warden_llm_tool_new ("list_dir", "List a folder",
                                               "{\"type\":\"object\",\"properties\":{}}"));

  response = complete (provider, "You are Warden.", messages, tools, NULL, &error);
  g_assert_no_error (error);
  assert_hello (response);

  g_assert_cmpuint (fake->n_requests, ==, 1);
  /* The trailing slash of the base URL is not doubled. */
  g_assert_cmpstr (g_ptr_array_index (fake->paths, 0), ==, "POST /v1/chat/completions");
  g_assert_cmpstr (g_ptr_array_index (fake->authorizations, 0), ==, "Bearer " TEST_KEY);
  assert_json_equal (g_ptr_array_index (fake->bodies, 0),
    "{\"model\":\"gpt-test\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
    "\"messages\":["
    "{\"role\":\"system\",\"content\":\"You are Warden.\"},"
    "{\"role\":\"user\",\"content\":\"What is in a.txt?\"},"
    "{\"role\":\"assistant\",\"content\":\"Let me read it.\",\"tool_calls\":["
    "{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"read_file\","
    "\"arguments\":\"{\\\"path\\\":\\\"a.txt\\\"}\"}},"
    "{\"id\":\"call_2\",\"type\":\"function\",\"function\":{\"name\":\"run_command\","
    "\"arguments\":\"{\\\"command\\\":\\\"rm -rf /\\\"}\"}}]},"
    "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"hello\\n\"},"
    "{\"role\":\"tool\",\"tool_call_id\":\"call_2\","
    "\"content\":\"Error: the policy denies rm -rf\"},"
    "{\"role\":\"user\",\"content\":\"Then list the folder.\"},"
    "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
    "{\"id\":\"call_3\",\"type\":\"function\",\"function\":{\"name\":\"list_dir\","
    "\"arguments\":\"{}\"}}]},"
    "{\"role\":\"tool\",\"tool_call_id\":\"call_3\",\"content\":\"a.txt\\nb.txt\"}],"
    "\"tools\":["
    "{\"type\":\"function\",\"function\":{\"name\":\"read_file\","
    "\"description\":\"Read a file of the workspace\",\"parameters\":{\"type\":\"object\","
    "\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}}},"
    "{\"type\":\"function\",\"function\":{\"name\":\"list_dir\",\"description\":\"List a folder\","
    "\"parameters\":{\"type\":\"object\",\"properties\":{}}}}]}");
}

/* A tool read a gzip file: its header (1f 8b) and a byte that is no UTF-8
 * went into the conversation. Every later request must still be JSON that a
 * strict server takes: UTF-8, with no raw control character. */
static void
test_request_binary_result (void)
{
  static const Reply replies[] = {
    { 200, .body = hello_stream },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(GPtrArray) messages = one_question ("Read a.gz");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) input = parse ("{\"path\": \"a.gz\\u001f\"}");
  g_autoptr(JsonNode) body = NULL;
  WardenLlmMessage *message;
  JsonArray *sent;
  JsonObject *call;
  const char *sent_body;
  const char *content;

  message = warden_llm_message_new (WARDEN_LLM_ROLE_ASSISTANT);
  warden_llm_message_add_tool_use (message, "call_1", "read_file", input);
  g_ptr_array_add (messages, message);
  message = warden_llm_message_new (WARDEN_LLM_ROLE_USER);
  warden_llm_message_add_tool_result (message, "call_1", "\x1f\x8b\x08\x08gz\xff tail", FALSE);
  g_ptr_array_add (messages, message);

  response = complete (provider, NULL, messages, NULL, NULL, &error);
  g_assert_no_error (error);
  assert_hello (response);

  sent_body = g_ptr_array_index (fake->bodies, 0);
  g_assert_true (g_utf8_validate (sent_body, -1, NULL));
  for (const char *p = sent_body; *p != '\0'; p++)
    g_assert_cmpint ((guchar) *p, >=, 0x20);

  body = parse (sent_body);
  sent = json_object_get_array_member (json_node_get_object (body), "messages");
  g_assert_cmpuint (json_array_get_length (sent), ==, 3);
  content = json_object_get_string_member (json_array_get_object_element (sent, 2), "content");
  g_assert_true (g_str_has_prefix (content, "\x1f"));
  g_assert_true (g_str_has_suffix (content, "gz\xef\xbf\xbd tail"));

  /* The arguments are JSON inside a string: they must parse too. */
  call = json_array_get_object_element (
    json_object_get_array_member (json_array_get_object_element (sent, 1), "tool_calls"), 0);
  assert_json_equal (json_object_get_string_member (json_object_get_object_member (call,
                                                                                   "function"),
                                                    "arguments"),
                     "{\"path\": \"a.gz\\u001f\"}");
}

/* A call whose input could not be read goes back with arguments the API
 * takes: an empty object. */
static void
test_request_bad_tool_use (void)
{
  static const Reply replies[] = {
    { 200, .body = hello_stream },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(GPtrArray) messages = one_question ("Write a.txt");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  WardenLlmMessage *message;

  message = warden_llm_message_new (WARDEN_LLM_ROLE_ASSISTANT);
  warden_llm_message_add_bad_tool_use (message, "call_1", "write_file", "{\"path\": \"a.t",
                                       "the arguments were cut off");
  g_ptr_array_add (messages, message);
  message = warden_llm_message_new (WARDEN_LLM_ROLE_USER);
  warden_llm_message_add_tool_result (message, "call_1", "the arguments were cut off", TRUE);
  g_ptr_array_add (messages, message);

  response = complete (provider, NULL, messages, NULL, NULL, &error);
  g_assert_no_error (error);
  assert_hello (response);

  assert_json_equal (g_ptr_array_index (fake->bodies, 0),
    "{\"model\":\"gpt-test\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
    "\"messages\":["
    "{\"role\":\"user\",\"content\":\"Write a.txt\"},"
    "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
    "{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"write_file\","
    "\"arguments\":\"{}\"}}]},"
    "{\"role\":\"tool\",\"tool_call_id\":\"call_1\","
    "\"content\":\"Error: the arguments were cut off\"}]}");
}

static void
test_request_without_key (void)
{
  static const Reply replies[] = {
    { 200, .body = hello_stream },
  };
  const char *keys[] = { NULL, "" };

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
      g_autofree char *base_url = g_strdup_printf ("http://127.0.0.1:%u/v1", fake->port);
      g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (keys[i], base_url,
                                                                          "llama3.2");
      g_autoptr(GPtrArray) messages = one_question ("Hi");
      g_autoptr(GPtrArray) tools = g_ptr_array_new ();
      g_autoptr(WardenLlmResponse) response = NULL;
      g_autoptr(GError) error = NULL;

      response = complete (provider, "", messages, tools, NULL, &error);
      g_assert_no_error (error);
      assert_hello (response);

      g_assert_cmpstr (g_ptr_array_index (fake->paths, 0), ==, "POST /v1/chat/completions");
      g_assert_null (g_ptr_array_index (fake->authorizations, 0));
      /* No system message when there is no prompt, no tools when there are none. */
      assert_json_equal (g_ptr_array_index (fake->bodies, 0),
                         "{\"model\":\"llama3.2\",\"stream\":true,"
                         "\"stream_options\":{\"include_usage\":true},"
                         "\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}");
    }
}

static void
test_defaults (void)
{
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY, NULL, NULL);
  g_autoptr(WardenLlmProvider) ollama = warden_openai_provider_new (NULL,
                                                                    WARDEN_OLLAMA_BASE_URL "//",
                                                                    "llama3.2");

  g_assert_cmpstr (warden_llm_provider_get_name (provider), ==, "openai");
  g_assert_cmpstr (warden_llm_provider_get_model (provider), ==, WARDEN_OPENAI_DEFAULT_MODEL);
  g_assert_cmpstr (warden_llm_provider_get_base_url (provider), ==,
                   WARDEN_OPENAI_DEFAULT_BASE_URL);
  g_assert_cmpstr (warden_llm_provider_get_base_url (ollama), ==, WARDEN_OLLAMA_BASE_URL);
  g_assert_cmpstr (warden_llm_provider_get_model (ollama), ==, "llama3.2");
}

/* ------------------------------------------------------------------------ */
/* Retries and errors */

static void
test_retry_rate_limited (void)
{
  static const Reply replies[] = {
    { 429, .content_type = "application/json", .header_name = "retry-after", .header_value = "0",
      .body = "{\"error\":{\"message\":\"Rate limit reached for gpt-test\","
              "\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}" },
    { 429, .content_type = "application/json", .header_name = "retry-after-ms",
      .header_value = "25",
      .body = "{\"error\":{\"message\":\"Rate limit reached for gpt-test\","
              "\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}" },
    { 200, .body = hello_stream, .piece_size = 16 },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(Observed) observed = observed_new (provider, fake);
  g_autoptr(GPtrArray) messages = one_question ("Hi");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;

  response = complete (provider, NULL, messages, NULL, NULL, &error);
  g_assert_no_error (error);
  assert_hello (response);
  g_assert_cmpuint (fake->n_requests, ==, 3);
  g_assert_cmpuint (observed->retry_delays->len, ==, 2);
  /* retry-after-ms is honoured to the millisecond. */
  g_assert_cmpuint (g_array_index (observed->retry_delays, guint, 1), ==, 25);
  g_assert_cmpstr (observed->text->str, ==, "Hello.");
}

/* How long the server asks to wait, in every form it may say it. */
typedef struct
{
  const char *header;
  const char *value;         /* NULL: an HTTP date @date_in s from now */
  gint        date_in;
  guint       cap;           /* "retry-after-cap"; 0: the default */
  guint       min_delay_ms;  /* the wait signalled; with a cap it is given up on instead */
  guint       max_delay_ms;
} RetryAfterRow;

static const RetryAfterRow retry_after_rows[] = {
  { "retry-after", "90", 0, 0, 90000, 90000 },
  { "retry-after-ms", "90000", 0, 0, 90000, 90000 },
  /* A date has a resolution of a second; the rest is margin for a slow machine. */
  { "retry-after", NULL, 120, 0, 60000, 120000 },
  { "retry-after", NULL, -30, 0, 0, 0 },
  { "retry-after", "90", 0, 60, 0, 0 },
  { "retry-after", NULL, 3600, 60, 0, 0 },
};

/* A 429 that asks for more than the backoff would wait: the retry waits
 * what the server said, and says so; past "retry-after-cap" Warden does
 * not wait but gives up, saying when the server would take it again. */
static void
test_retry_after_row (gconstpointer user_data)
{
  const RetryAfterRow *row = user_data;
  Reply replies[] = {
    { 429, .content_type = "application/json", .header_name = row->header,
      .header_value = row->value,
      .body = "{\"error\":{\"message\":\"Rate limit reached for gpt-test\","
              "\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}" },
    { 200, .body = hello_stream },
  };
  g_autofree char *date = NULL;
  g_autoptr(Fake) fake = NULL;
  g_autoptr(WardenLlmProvider) provider = NULL;
  g_autoptr(Observed) observed = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GPtrArray) messages = one_question ("Hi");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;

  if (row->value == NULL)
    {
      g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
      g_autoptr(GDateTime) then = g_date_time_add_seconds (now, row->date_in);

      date = soup_date_time_to_string (then, SOUP_DATE_HTTP);
      replies[0].header_value = date;
    }

  fake = fake_new (replies, G_N_ELEMENTS (replies));
  provider = warden_openai_provider_new (TEST_KEY, fake->base_url, TEST_MODEL);
  observed = observed_new (provider, fake);
  if (row->cap != 0)
    g_object_set (provider, "retry-after-cap", row->cap, NULL);

  if (row->cap == 0 && row->max_delay_ms == 0)
    {
      /* A time that has passed: at once. */
      response = complete (provider, NULL, messages, NULL, NULL, &error);
      g_assert_no_error (error);
      assert_hello (response);
      g_assert_cmpuint (observed->retry_delays->len, ==, 1);
      g_assert_cmpuint (g_array_index (observed->retry_delays, guint, 0), ==, 0);
      g_assert_cmpuint (fake->n_requests, ==, 2);
      return;
    }

  observed->cancel_on_retry = cancellable;
  response = complete (provider, NULL, messages, NULL, cancellable, &error);
  g_assert_null (response);
  g_assert_cmpuint (fake->n_requests, ==, 1);

  if (row->cap == 0)
    {
      guint delay_ms;

      /* Cancelled in the wait: the server's, not the backoff's. */
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
      g_assert_cmpuint (observed->retry_delays->len, ==, 1);
      delay_ms = g_array_index (observed->retry_delays, guint, 0);
      g_test_message ("%s: %s: retry in %u ms", row->header, replies[0].header_value, delay_ms);
      g_assert_cmpuint (delay_ms, >=, row->min_delay_ms);
      g_assert_cmpuint (delay_ms, <=, row->max_delay_ms);
      g_assert_nonnull (strstr (g_ptr_array_index (observed->retry_reasons, 0), "Rate limit"));
    }
  else
    {
      g_test_message ("%s", error->message);
      g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_RATE_LIMITED);
      g_assert_cmpuint (observed->retry_delays->len, ==, 0);
      g_assert_nonnull (strstr (error->message, "Rate limit reached"));
      g_assert_nonnull (strstr (error->message, "try again in"));
      if (row->value != NULL)
        g_assert_nonnull (strstr (error->message, "try again in 90 s"));
    }
}

static void
test_retry_server_error (void)
{
  static const Reply replies[] = {
    { 500, .content_type = "application/json",
      .body = "{\"error\":{\"message\":\"The server had an error while processing your "
              "request.\",\"type\":\"server_error\",\"code\":null}}" },
    { 200, .body = hello_stream, .piece_size = 3 },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(Observed) observed = observed_new (provider, fake);
  g_autoptr(GPtrArray) messages = one_question ("Hi");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;

  response = complete (provider, NULL, messages, NULL, NULL, &error);
  g_assert_no_error (error);
  assert_hello (response);
  g_assert_cmpuint (fake->n_requests, ==, 2);
  g_assert_cmpuint (observed->retry_delays->len, ==, 1);
}

/* Overloaded on every attempt: OVERLOADED once the retries are spent. */
static void
test_overloaded (void)
{
  static const Reply replies[] = {
    { 503, .content_type = "text/html",
      .body = "<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>" },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(Observed) observed = observed_new (provider, fake);
  g_autoptr(GPtrArray) messages = one_question ("Hi");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;

  response = complete (provider, NULL, messages, NULL, NULL, &error);
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_OVERLOADED);
  g_assert_null (response);
  g_assert_cmpuint (observed->retry_delays->len, >, 0);
  g_assert_cmpuint (fake->n_requests, ==, observed->retry_delays->len + 1);
  /* The status, not the HTML page. */
  g_assert_nonnull (strstr (error->message, "503"));
  g_assert_null (strstr (error->message, "<html>"));
}

/* ------------------------------------------------------------------------ */
/* A model that stops answering */

/* Small times, so that the test takes seconds; what is asserted does not
 * depend on how fast the machine is. */
static void
set_short_times (WardenLlmProvider *provider)
{
  g_object_set (provider,
                "waiting-notice", 1,
                "idle-timeout", 2,
                "max-retries", 1,
                NULL);
}

static void
assert_waited (Observed *observed,
               guint     at_least)
{
  g_assert_cmpuint (observed->waitings->len, >=, at_least);
  for (guint i = 0; i < observed->waitings->len; i++)
    g_assert_cmpuint (g_array_index (observed->waitings, guint, i), >=, 1);
}

/* The server takes the request and never says a word (a local server busy
 * loading a model, a proxy that lost its upstream): the user hears it is
 * waiting, the request goes again, then Warden gives up saying why. And a
 * server whose keep-alive comments are all it sends is no better. */
static void
test_hang (gconstpointer user_data)
{
  static const Reply silent[] = {
    { 0, .silent = TRUE },
  };
  static const Reply comments[] = {
    { 200, .piece_size = 64, .pings = TRUE, .body = ": OPENROUTER PROCESSING\n\n" },
  };
  const Reply *replies = GPOINTER_TO_INT (user_data) ? comments : silent;
  g_autoptr(Fake) fake = fake_new (replies, 1);
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(Observed) observed = observed_new (provider, fake);
  g_autoptr(GPtrArray) messages = one_question ("Hi");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;

  set_short_times (provider);
  response = complete (provider, NULL, messages, NULL, NULL, &error);
  g_test_message ("%s", error ? error->message : "(no error)");
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_TIMED_OUT);
  g_assert_null (response);
  g_assert_nonnull (strstr (error->message, "stopped answering"));
  g_assert_nonnull (strstr (error->message, "127.0.0.1"));
  g_assert_cmpuint (fake->n_requests, ==, 2);
  g_assert_cmpuint (observed->retry_delays->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (observed->retry_reasons, 0), "stopped answering"));
  /* Told at each attempt, before it was given up on. */
  assert_waited (observed, 2);
}

/* The request that hung is sent again, and that one is answered. */
static void
test_hang_answered_on_retry (void)
{
  static const Reply replies[] = {
    { 0, .silent = TRUE },
    { 200, .body = hello_stream, .piece_size = 16 },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(Observed) observed = observed_new (provider, fake);
  g_autoptr(GPtrArray) messages = one_question ("Hi");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;

  set_short_times (provider);
  /* However slow the machine, the answer is not cut short. */
  observed->idle_timeout_on_retry = 60;
  response = complete (provider, NULL, messages, NULL, NULL, &error);
  g_assert_no_error (error);
  assert_hello (response);
  g_assert_cmpuint (fake->n_requests, ==, 2);
  g_assert_cmpuint (observed->retry_delays->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (observed->retry_reasons, 0), "stopped answering"));
  assert_waited (observed, 1);
}

static void
test_error_auth (void)
{
  static const Reply replies[] = {
    { 401, .content_type = "application/json",
      .body = "{\"error\":{\"message\":\"Incorrect API key provided: " TEST_KEY ". You can find "
              "your API key at https://platform.openai.com/account/api-keys.\","
              "\"type\":\"invalid_request_error\",\"param\":null,"
              "\"code\":\"invalid_api_key\"}}" },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(Observed) observed = observed_new (provider, fake);
  g_autoptr(GPtrArray) messages = one_question ("Hi");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;

  response = complete (provider, NULL, messages, NULL, NULL, &error);
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_AUTH);
  g_assert_null (response);
  g_assert_cmpuint (fake->n_requests, ==, 1);
  g_assert_cmpuint (observed->retry_delays->len, ==, 0);
  g_assert_nonnull (strstr (error->message, "the API key was rejected (check OPENAI_API_KEY)"));
  g_assert_null (strstr (error->message, TEST_KEY));
  g_assert_null (strstr (error->message, "Secr3t"));
}

/* Whatever else the server says, an echoed key is redacted. */
static void
test_error_redacts_key (void)
{
  static const Reply replies[] = {
    { 400, .content_type = "application/json",
      .body = "{\"error\":{\"message\":\"Invalid header: Bearer " TEST_KEY " is malformed\","
              "\"type\":\"invalid_request_error\",\"code\":null}}" },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(GPtrArray) messages = one_question ("Hi");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;

  response = complete (provider, NULL, messages, NULL, NULL, &error);
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_FAILED);
  g_assert_null (strstr (error->message, TEST_KEY));
  g_assert_nonnull (strstr (error->message, "Invalid header: Bearer [redacted] is malformed"));
  g_assert_nonnull (strstr (error->message, "400"));
}

static void
test_error_unknown_model (void)
{
  static const Reply openai[] = {
    { 404, .content_type = "application/json",
      .body = "{\"error\":{\"message\":\"The model `gpt-test` does not exist or you do not "
              "have access to it.\",\"type\":\"invalid_request_error\",\"param\":null,"
              "\"code\":\"model_not_found\"}}" },
  };
  static const Reply ollama[] = {
    { 404, .content_type = "application/json",
      .body = "{\"error\":{\"message\":\"model \\\"gpt-test\\\" not found, try pulling it "
              "first\",\"type\":\"api_error\",\"param\":null,\"code\":null}}" },
  };
  const Reply *scripts[] = { openai, ollama };
  const char *said[] = { "does not exist", "try pulling it first" };

  for (guint i = 0; i < G_N_ELEMENTS (scripts); i++)
    {
      g_autoptr(Fake) fake = fake_new (scripts[i], 1);
      g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY,
                                                                          fake->base_url,
                                                                          TEST_MODEL);
      g_autoptr(GPtrArray) messages = one_question ("Hi");
      g_autoptr(WardenLlmResponse) response = NULL;
      g_autoptr(GError) error = NULL;

      response = complete (provider, NULL, messages, NULL, NULL, &error);
      g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_UNKNOWN_MODEL);
      g_assert_cmpuint (fake->n_requests, ==, 1);
      g_assert_nonnull (strstr (error->message, "“" TEST_MODEL "”"));
      g_assert_nonnull (strstr (error->message, said[i]));
    }
}

static void
test_error_context_too_long (void)
{
  static const Reply openai[] = {
    { 400, .content_type = "application/json",
      .body = "{\"error\":{\"message\":\"This model's maximum context length is 128000 tokens. "
              "However, your messages resulted in 130213 tokens. Please reduce the length of "
              "the messages.\",\"type\":\"invalid_request_error\",\"param\":\"messages\","
              "\"code\":\"context_length_exceeded\"}}" },
  };
  /* vLLM: the fields at the top level, and no code to go by. */
  static const Reply vllm[] = {
    { 400, .content_type = "application/json",
      .body = "{\"object\":\"error\",\"message\":\"This model's maximum context length is 4096 "
              "tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the "
              "completion). Please reduce the length of the messages or completion.\","
              "\"type\":\"BadRequestError\",\"param\":null,\"code\":400}" },
  };
  const Reply *scripts[] = { openai, vllm };

  for (guint i = 0; i < G_N_ELEMENTS (scripts); i++)
    {
      g_autoptr(Fake) fake = fake_new (scripts[i], 1);
      g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY,
                                                                          fake->base_url,
                                                                          TEST_MODEL);
      g_autoptr(GPtrArray) messages = one_question ("Hi");
      g_autoptr(WardenLlmResponse) response = NULL;
      g_autoptr(GError) error = NULL;

      response = complete (provider, NULL, messages, NULL, NULL, &error);
      g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_CONTEXT_TOO_LONG);
      g_assert_cmpuint (fake->n_requests, ==, 1);
      g_assert_nonnull (strstr (error->message, "maximum context length"));
    }
}

/* The stream ends cleanly, but before the answer did. */
static void
test_error_stream_cut (void)
{
  static const Reply ended[] = {
    { 200, .piece_size = 5, .body =
      SSE ("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Half an ans\"},"
           "\"finish_reason\":null}]}") },
  };
  static const Reply broken[] = {
    { 200, .cut = TRUE, .body =
      SSE ("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Half an ans\"},"
           "\"finish_reason\":null}]}") },
  };
  const Reply *scripts[] = { ended, broken };

  for (guint i = 0; i < G_N_ELEMENTS (scripts); i++)
    {
      g_autoptr(Fake) fake = fake_new (scripts[i], 1);
      g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY,
                                                                          fake->base_url,
                                                                          TEST_MODEL);
      g_autoptr(Observed) observed = observed_new (provider, fake);
      g_autoptr(GPtrArray) messages = one_question ("Hi");
      g_autoptr(WardenLlmResponse) response = NULL;
      g_autoptr(GError) error = NULL;

      response = complete (provider, NULL, messages, NULL, NULL, &error);
      g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_STREAM_CUT);
      g_assert_null (response);
      g_assert_nonnull (strstr (error->message, "cut off"));
      g_assert_true (g_str_has_prefix (observed->text->str, "Half an ans"));
      /* Text alone may be asked for again. */
      g_assert_cmpuint (fake->n_requests, ==, observed->retry_delays->len + 1);
    }
}

/* A tool call cut short has run nothing yet: the request goes again, and
 * the retry's answer is taken. */
static void
test_retry_cut_in_tool_call (void)
{
  static const Reply replies[] = {
    { 200, .piece_size = 1, .body =
      SSE ("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_x\","
           "\"type\":\"function\",\"function\":{\"name\":\"run_command\",\"arguments\":\"\"}}]},"
           "\"finish_reason\":null}]}")
      SSE ("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
           "\"function\":{\"arguments\":\"{\\\"comm\"}}]},\"finish_reason\":null}]}") },
    { 200, .piece_size = 7, .body =
      SSE ("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_y\","
           "\"type\":\"function\",\"function\":{\"name\":\"run_command\",\"arguments\":"
           "\"{\\\"command\\\": \\\"make\\\"}\"}}]},\"finish_reason\":null}]}")
      SSE ("{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}")
      "data: [DONE]\n\n" },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(Observed) observed = observed_new (provider, fake);
  g_autoptr(GPtrArray) messages = one_question ("Hi");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;

  response = complete (provider, NULL, messages, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fake->n_requests, ==, 2);
  g_assert_cmpuint (observed->retry_delays->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (observed->retry_reasons, 0), "cut off"));
  /* The cut attempt's call was shown, then the retry's. */
  g_assert_cmpuint (observed->starts->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (observed->starts, 0), ==, "call_x run_command");
  g_assert_cmpuint (warden_llm_message_get_n_blocks (response->message), ==, 1);
  assert_tool_use (warden_llm_message_get_block (response->message, 0),
                   "call_y", "run_command", "{\"command\":\"make\"}");
}

/* The model wrote arguments that are not JSON, or not an object: the answer
 * comes back all the same, with the calls marked, so that it can be told. */
static void
test_stream_bad_arguments (void)
{
  static const Reply replies[] = {
    { 200, .piece_size = 9, .body =
      SSE ("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\","
           "\"type\":\"function\",\"function\":{\"name\":\"write_file\",\"arguments\":"
           "\"{\\\"path\\\": \\\"a.txt\\\", \"}}]},\"finish_reason\":null}]}")
      SSE ("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
           "\"function\":{\"arguments\":\"\\\"content\\\": }\"}}]},\"finish_reason\":null}]}")
      SSE ("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_2\","
           "\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":"
           "\"[\\\"a.txt\\\"]\"}}]},\"finish_reason\":null}]}")
      SSE ("{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}")
      "data: [DONE]\n\n" },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(Observed) observed = observed_new (provider, fake);
  g_autoptr(GPtrArray) messages = one_question ("Hi");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  const WardenLlmBlock *block;

  response = complete (provider, NULL, messages, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (response);
  g_assert_cmpstr (response->stop_reason, ==, "tool_use");
  g_assert_cmpuint (fake->n_requests, ==, 1);
  g_assert_cmpuint (observed->retry_delays->len, ==, 0);
  g_assert_cmpuint (warden_llm_message_get_n_blocks (response->message), ==, 2);

  block = warden_llm_message_get_block (response->message, 0);
  g_test_message ("%s", block->tool_input_error);
  g_assert_cmpstr (block->tool_use_id, ==, "call_1");
  g_assert_cmpstr (block->tool_name, ==, "write_file");
  g_assert_null (block->tool_input);
  g_assert_cmpstr (block->tool_input_text, ==, "{\"path\": \"a.txt\", \"content\": }");
  g_assert_true (g_str_has_prefix (block->tool_input_error, "the arguments are not valid JSON: "));
  /* json-glib's line:column of the fault: {"path": "a.txt", "content": } */
  g_assert_nonnull (strstr (block->tool_input_error, ":1:30:"));

  block = warden_llm_message_get_block (response->message, 1);
  g_assert_cmpstr (block->tool_use_id, ==, "call_2");
  g_assert_null (block->tool_input);
  g_assert_cmpstr (block->tool_input_text, ==, "[\"a.txt\"]");
  g_assert_true (g_str_has_prefix (block->tool_input_error, "the arguments are not a JSON object"));
}

/* The answer reached its length limit in the middle of the arguments. */
static void
test_stream_arguments_cut_by_length (void)
{
  static const Reply replies[] = {
    { 200, .piece_size = 11, .body =
      SSE ("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Writing it.\"},"
           "\"finish_reason\":null}]}")
      SSE ("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\","
           "\"type\":\"function\",\"function\":{\"name\":\"write_file\",\"arguments\":"
           "\"{\\\"path\\\": \\\"big.txt\\\", \\\"content\\\": \\\"line\"}}]},"
           "\"finish_reason\":null}]}")
      SSE ("{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}")
      "data: [DONE]\n\n" },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(GPtrArray) messages = one_question ("Hi");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  const WardenLlmBlock *block;

  response = complete (provider, NULL, messages, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (response->stop_reason, ==, "max_tokens");
  g_assert_cmpuint (warden_llm_message_get_n_blocks (response->message), ==, 2);
  block = warden_llm_message_get_block (response->message, 1);
  g_assert_cmpstr (block->tool_use_id, ==, "call_1");
  g_assert_null (block->tool_input);
  g_assert_cmpstr (block->tool_input_error, ==,
                   "the arguments were cut off: the answer reached max_tokens");
  g_assert_cmpstr (block->tool_input_text, ==, "{\"path\": \"big.txt\", \"content\": \"line");
}

/* An error event in the middle of a stream (OpenRouter, vLLM), on a
 * connection the server then keeps open. */
static void
test_error_in_stream (void)
{
  static const Reply replies[] = {
    { 200, .piece_size = 4, .stall = TRUE, .body =
      SSE ("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Thinking\"},"
           "\"finish_reason\":null}]}")
      SSE ("{\"error\":{\"message\":\"Upstream provider returned an invalid tool schema\","
           "\"code\":502}}") },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(GPtrArray) messages = one_question ("Hi");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;

  response = complete (provider, NULL, messages, NULL, NULL, &error);
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "invalid tool schema"));
  g_assert_cmpuint (fake->n_requests, ==, 1);
}

static void
test_error_network (void)
{
  g_autofree char *base_url = g_strdup_printf ("http://127.0.0.1:%u/v1", closed_port ());
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY, base_url,
                                                                      TEST_MODEL);
  g_autoptr(Observed) observed = observed_new (provider, NULL);
  g_autoptr(GPtrArray) messages = one_question ("Hi");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;

  response = complete (provider, NULL, messages, NULL, NULL, &error);
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NETWORK);
  g_assert_cmpuint (observed->retry_delays->len, >, 0);
  g_assert_nonnull (strstr (error->message, base_url));
  g_assert_null (strstr (error->message, TEST_KEY));
}

static void
test_cancel (void)
{
  static const Reply replies[] = {
    { 200, .piece_size = 8, .stall = TRUE, .body =
      SSE ("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Let me think about it\"},"
           "\"finish_reason\":null}]}") },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(Observed) observed = observed_new (provider, fake);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GPtrArray) messages = one_question ("Hi");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;

  observed->cancel_on_delta = cancellable;
  response = complete (provider, NULL, messages, NULL, cancellable, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (response);
  g_assert_cmpstr (observed->text->str, ==, "Let me think about it");
  g_assert_cmpuint (fake->n_requests, ==, 1);
  g_assert_cmpuint (observed->retry_delays->len, ==, 0);
}

/* Cancelled while the server has not even answered. */
static void
test_cancel_before_answer (void)
{
  static const Reply replies[] = {
    { 200, .piece_size = 1, .stall = TRUE, .body = ": still loading the model\n" },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (NULL, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GPtrArray) messages = one_question ("Hi");
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;

  warden_llm_provider_complete_async (provider, NULL, messages, NULL, cancellable,
                                      warden_test_keep_result_cb, &result);
  while (fake->n_requests == 0)
    g_main_context_iteration (NULL, TRUE);
  g_cancellable_cancel (cancellable);
  wait_for (&result);

  response = warden_llm_provider_complete_finish (provider, result, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (response);
}

/* ------------------------------------------------------------------------ */
/* Finding Ollama */

static char *
probe (const char    *base_url,
       GCancellable  *cancellable,
       GError       **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  warden_openai_provider_probe_ollama_async (base_url, cancellable, warden_test_keep_result_cb, &result);
  wait_for (&result);

  return warden_openai_provider_probe_ollama_finish (result, error);
}

static void
test_ollama_probe (void)
{
  static const Reply replies[] = {
    { 200, .content_type = "application/json", .body =
      "{\"models\":[{\"name\":\"qwen2.5-coder:7b\",\"model\":\"qwen2.5-coder:7b\","
      "\"modified_at\":\"2025-01-01T00:00:00Z\",\"size\":4683087332,\"details\":"
      "{\"family\":\"qwen2\"}},{\"name\":\"llama3.2:latest\",\"model\":\"llama3.2:latest\"}]}" },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autofree char *root = g_strdup_printf ("http://127.0.0.1:%u", fake->port);
  g_autofree char *name = NULL;
  g_autoptr(GError) error = NULL;

  /* The /v1 of the OpenAI API is dropped to reach Ollama's own. */
  name = probe (fake->base_url, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (name, ==, "qwen2.5-coder:7b");
  g_assert_cmpstr (g_ptr_array_index (fake->paths, 0), ==, "GET /api/tags");

  g_clear_pointer (&name, g_free);
  name = probe (root, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (name, ==, "qwen2.5-coder:7b");
  g_assert_cmpstr (g_ptr_array_index (fake->paths, 1), ==, "GET /api/tags");
}

static void
test_ollama_no_models (void)
{
  static const Reply empty[] = {
    { 200, .content_type = "application/json", .body = "{\"models\":[]}" },
  };
  static const Reply other[] = {
    { 404, .content_type = "text/plain", .body = "404 page not found" },
  };
  const Reply *scripts[] = { empty, other };
  const char *said[] = { "no models", "does not look like Ollama" };

  for (guint i = 0; i < G_N_ELEMENTS (scripts); i++)
    {
      g_autoptr(Fake) fake = fake_new (scripts[i], 1);
      g_autofree char *name = NULL;
      g_autoptr(GError) error = NULL;

      name = probe (fake->base_url, NULL, &error);
      g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED);
      g_assert_null (name);
      g_assert_nonnull (strstr (error->message, said[i]));
    }
}

static void
test_ollama_closed_port (void)
{
  g_autofree char *base_url = g_strdup_printf ("http://127.0.0.1:%u/v1", closed_port ());
  g_autofree char *root = g_strdup_printf ("http://127.0.0.1:%u", closed_port ());
  g_autofree char *name = NULL;
  g_autoptr(GError) error = NULL;
  gint64 start = g_get_monotonic_time ();

  name = probe (base_url, NULL, &error);
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED);
  g_assert_null (name);
  /* Refused, which is said at once: not the timeout's message. */
  g_assert_nonnull (strstr (error->message, "ollama serve"));
  g_test_message ("Refused after %.3f s",
                  (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC);
}

/* Something listens but never answers. */
static void
test_ollama_timeout (void)
{
  static const Reply replies[] = {
    { 200, .piece_size = 1, .stall = TRUE, .content_type = "application/json", .body = "{" },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autofree char *name = NULL;
  g_autoptr(GError) error = NULL;
  gint64 start = g_get_monotonic_time ();
  gint64 elapsed;

  name = probe (fake->base_url, NULL, &error);
  elapsed = g_get_monotonic_time () - start;
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED);
  g_assert_null (name);
  /* Given up on: the timeout's message. */
  g_assert_nonnull (strstr (error->message, "within"));
  g_test_message ("Gave up after %.3f s", elapsed / (double) G_USEC_PER_SEC);
}

static void
test_ollama_cancel (void)
{
  static const Reply replies[] = {
    { 200, .piece_size = 1, .stall = TRUE, .content_type = "application/json", .body = "{" },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autofree char *name = NULL;
  g_autoptr(GError) error = NULL;

  warden_openai_provider_probe_ollama_async (fake->base_url, cancellable, warden_test_keep_result_cb, &result);
  while (fake->n_requests == 0)
    g_main_context_iteration (NULL, TRUE);
  g_cancellable_cancel (cancellable);
  wait_for (&result);

  name = warden_openai_provider_probe_ollama_finish (result, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (name);
}

/* ------------------------------------------------------------------------ */

static guint n_debug_messages;

/* Every test runs with this writer: the key must never reach a log. */
static GLogWriterOutput
log_writer (GLogLevelFlags   log_level,
            const GLogField *fields,
            gsize            n_fields,
            gpointer         user_data)
{
  for (gsize i = 0; i < n_fields; i++)
    {
      if (g_strcmp0 (fields[i].key, "MESSAGE") == 0 && fields[i].length == -1 &&
          strstr (fields[i].value, "Secr3t") != NULL)
        g_error ("The API key reached a log: %s", (const char *) fields[i].value);
    }

  /* Counted, but only shown when G_MESSAGES_DEBUG asks. */
  if (log_level & G_LOG_LEVEL_DEBUG)
    {
      const char *wanted = g_getenv ("G_MESSAGES_DEBUG");

      n_debug_messages++;
      if (wanted == NULL || wanted[0] == '\0')
        return G_LOG_WRITER_HANDLED;
    }

  return g_log_writer_default (log_level, fields, n_fields, user_data);
}

/* Guards the writer above: the provider's debug messages do go through it. */
static void
test_logs_seen (void)
{
  static const Reply replies[] = {
    { 401, .content_type = "application/json",
      .body = "{\"error\":{\"message\":\"Incorrect API key provided: " TEST_KEY "\","
              "\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}" },
  };
  g_autoptr(Fake) fake = fake_new (replies, G_N_ELEMENTS (replies));
  g_autoptr(WardenLlmProvider) provider = warden_openai_provider_new (TEST_KEY, fake->base_url,
                                                                      TEST_MODEL);
  g_autoptr(GPtrArray) messages = one_question ("Hi");
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  guint before = n_debug_messages;

  response = complete (provider, NULL, messages, NULL, NULL, &error);
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_AUTH);
  g_assert_cmpuint (n_debug_messages, >=, before + 2);
}

int
main (int   argc,
      char *argv[])
{
  /* Before anything reads them: retries in milliseconds, no proxy. */
  g_setenv ("WARDEN_LLM_RETRY_BASE_MS", "1", TRUE);
  g_unsetenv ("http_proxy");
  g_unsetenv ("HTTP_PROXY");
  g_unsetenv ("no_proxy");
  g_setenv ("GIO_USE_PROXY_RESOLVER", "dummy", TRUE);

  g_test_init (&argc, &argv, NULL);
  /* Every message, GTest's own handler bypassed, goes through log_writer. */
  g_log_set_default_handler (g_log_default_handler, NULL);
  g_log_set_writer_func (log_writer, NULL, NULL);

  g_test_add_func ("/llm/openai/defaults", test_defaults);
  g_test_add_func ("/llm/openai/stream/parallel-tools", test_stream_parallel_tools);
  g_test_add_func ("/llm/openai/stream/compatible-servers", test_stream_compatible_servers);
  g_test_add_func ("/llm/openai/stream/whole-answer", test_stream_whole_answer);
  g_test_add_data_func ("/llm/openai/stream/usage/cached", &usage_rows[0], test_stream_usage);
  g_test_add_data_func ("/llm/openai/stream/usage/cache-hit", &usage_rows[1], test_stream_usage);
  g_test_add_data_func ("/llm/openai/stream/usage/server-cost", &usage_rows[2],
                        test_stream_usage);
  g_test_add_data_func ("/llm/openai/stream/usage/plain", &usage_rows[3], test_stream_usage);
  g_test_add_data_func ("/llm/openai/stream/usage/none", &usage_rows[4], test_stream_usage);
  g_test_add_func ("/llm/openai/stream/done-ends-it", test_stream_done_ends_it);
  g_test_add_func ("/llm/openai/stream/connection-reused", test_stream_connection_reused);
  g_test_add_func ("/llm/openai/request/body", test_request_body);
  g_test_add_func ("/llm/openai/request/without-key", test_request_without_key);
  g_test_add_func ("/llm/openai/request/binary-result", test_request_binary_result);
  g_test_add_func ("/llm/openai/request/bad-tool-use", test_request_bad_tool_use);
  g_test_add_func ("/llm/openai/retry/rate-limited", test_retry_rate_limited);
  g_test_add_data_func ("/llm/openai/retry/retry-after/seconds", &retry_after_rows[0],
                        test_retry_after_row);
  g_test_add_data_func ("/llm/openai/retry/retry-after/milliseconds", &retry_after_rows[1],
                        test_retry_after_row);
  g_test_add_data_func ("/llm/openai/retry/retry-after/date", &retry_after_rows[2],
                        test_retry_after_row);
  g_test_add_data_func ("/llm/openai/retry/retry-after/past-date", &retry_after_rows[3],
                        test_retry_after_row);
  g_test_add_data_func ("/llm/openai/retry/retry-after/over-cap", &retry_after_rows[4],
                        test_retry_after_row);
  g_test_add_data_func ("/llm/openai/retry/retry-after/date-over-cap", &retry_after_rows[5],
                        test_retry_after_row);
  g_test_add_func ("/llm/openai/retry/server-error", test_retry_server_error);
  g_test_add_data_func ("/llm/openai/hang/never-answers", GINT_TO_POINTER (FALSE), test_hang);
  g_test_add_data_func ("/llm/openai/hang/comments-only", GINT_TO_POINTER (TRUE), test_hang);
  g_test_add_func ("/llm/openai/hang/answered-on-retry", test_hang_answered_on_retry);
  g_test_add_func ("/llm/openai/error/overloaded", test_overloaded);
  g_test_add_func ("/llm/openai/error/auth", test_error_auth);
  g_test_add_func ("/llm/openai/error/redacts-key", test_error_redacts_key);
  g_test_add_func ("/llm/openai/error/unknown-model", test_error_unknown_model);
  g_test_add_func ("/llm/openai/error/context-too-long", test_error_context_too_long);
  g_test_add_func ("/llm/openai/error/stream-cut", test_error_stream_cut);
  g_test_add_func ("/llm/openai/retry/cut-in-tool-call", test_retry_cut_in_tool_call);
  g_test_add_func ("/llm/openai/stream/bad-arguments", test_stream_bad_arguments);
  g_test_add_func ("/llm/openai/stream/arguments-cut-by-length",
                   test_stream_arguments_cut_by_length);
  g_test_add_func ("/llm/openai/error/in-stream", test_error_in_stream);
  g_test_add_func ("/llm/openai/error/network", test_error_network);
  g_test_add_func ("/llm/openai/cancel/streaming", test_cancel);
  g_test_add_func ("/llm/openai/cancel/before-answer", test_cancel_before_answer);
  g_test_add_func ("/llm/openai/ollama/probe", test_ollama_probe);
  g_test_add_func ("/llm/openai/ollama/no-models", test_ollama_no_models);
  g_test_add_func ("/llm/openai/ollama/closed-port", test_ollama_closed_port);
  g_test_add_func ("/llm/openai/ollama/timeout", test_ollama_timeout);
  g_test_add_func ("/llm/openai/ollama/cancel", test_ollama_cancel);
  g_test_add_func ("/llm/openai/logs/never-the-key", test_logs_seen);

  return g_test_run ();
}
