/* test-anthropic.c: the Anthropic provider against a scripted in-process
 * server that streams its answers in pieces, fails on demand and drops
 * connections mid-stream; the retry policy of the base class; the message
 * JSON form; building a provider from the environment.
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "llm/warden-anthropic-provider.h"
#include "llm/warden-llm-provider.h"

#define TEST_KEY    "sk-ant-test-0123456789-secret"
#define TEST_MODEL  "claude-test-model"
#define TIMEOUT_S   60

/* ------------------------------------------------------------------------ */
/* Recorded streams */

/* A real answer's shape: text, then a tool call whose input arrives in
 * fragments split inside a string, inside a \n escape and inside a \u
 * escape. */
static const char tool_use_stream[] =
  "event: message_start\n"
  "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_01XFDUDYJgAACzvnptvVoYEL\","
  "\"type\":\"message\",\"role\":\"assistant\",\"content\":[],"
  "\"model\":\"claude-sonnet-4-5-20250929\","
  "\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":472,"
  "\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,\"output_tokens\":2}}}\n"
  "\n"
  "event: content_block_start\n"
  "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\","
  "\"text\":\"\"}}\n"
  "\n"
  "event: ping\n"
  "data: {\"type\": \"ping\"}\n"
  "\n"
  "event: content_block_delta\n"
  "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\","
  "\"text\":\"I'll read\"}}\n"
  "\n"
  "event: content_block_delta\n"
  "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\","
  "\"text\":\" the file first.\"}}\n"
  "\n"
  "event: content_block_stop\n"
  "data: {\"type\":\"content_block_stop\",\"index\":0}\n"
  "\n"
  "event: content_block_start\n"
  "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\","
  "\"id\":\"toolu_01T1x1fJ34qAmk2tNTrN7Up6\",\"name\":\"read_file\",\"input\":{}}}\n"
  "\n"
  "event: content_block_delta\n"
  "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\","
  "\"partial_json\":\"\"}}\n"
  "\n"
  "event: content_block_delta\n"
  "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\","
  "\"partial_json\":\"{\\\"path\\\": \\\"src/ma\"}}\n"
  "\n"
  "event: content_block_delta\n"
  "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\","
  "\"partial_json\":\"in.c\\\", \\\"note\\\": \\\"line1\\\\\"}}\n"
  "\n"
  "event: content_block_delta\n"
  "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\","
  "\"partial_json\":\"nline2 \\\\\\\"quo\"}}\n"
  "\n"
  "event: content_block_delta\n"
  "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\","
  "\"partial_json\":\"ted\\\\\\\" caf\\\\u00\"}}\n"
  "\n"
  "event: content_block_delta\n"
  "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\","
  "\"partial_json\":\"e9\\\"}\"}}\n"
  "\n"
  "event: content_block_stop\n"
  "data: {\"type\":\"content_block_stop\",\"index\":1}\n"
  "\n"
  "event: message_delta\n"
  "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\","
  "\"stop_sequence\":null},\"usage\":{\"output_tokens\":89}}\n"
  "\n"
  "event: message_stop\n"
  "data: {\"type\":\"message_stop\"}\n"
  "\n";

#define MESSAGE_START(input_tokens) \
  "event: message_start\n" \
  "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\"," \
  "\"role\":\"assistant\",\"content\":[],\"model\":\"" TEST_MODEL "\",\"usage\":" \
  "{\"input_tokens\":" #input_tokens ",\"output_tokens\":1}}}\n\n"

#define TEXT_START(index) \
  "event: content_block_start\n" \
  "data: {\"type\":\"content_block_start\",\"index\":" #index "," \
  "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"

#define TEXT_DELTA(index, text) \
  "event: content_block_delta\n" \
  "data: {\"type\":\"content_block_delta\",\"index\":" #index "," \
  "\"delta\":{\"type\":\"text_delta\",\"text\":\"" text "\"}}\n\n"

#define TOOL_START(index, id, name) \
  "event: content_block_start\n" \
  "data: {\"type\":\"content_block_start\",\"index\":" #index "," \
  "\"content_block\":{\"type\":\"tool_use\",\"id\":\"" id "\",\"name\":\"" name "\"," \
  "\"input\":{}}}\n\n"

/* @json: the fragment as it appears inside the JSON string, escaped. */
#define TOOL_DELTA(index, json) \
  "event: content_block_delta\n" \
  "data: {\"type\":\"content_block_delta\",\"index\":" #index "," \
  "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"" json "\"}}\n\n"

#define BLOCK_STOP(index) \
  "event: content_block_stop\n" \
  "data: {\"type\":\"content_block_stop\",\"index\":" #index "}\n\n"

#define MESSAGE_END(stop_reason, output_tokens) \
  "event: message_delta\n" \
  "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"" stop_reason "\"," \
  "\"stop_sequence\":null},\"usage\":{\"output_tokens\":" #output_tokens "}}\n\n" \
  "event: message_stop\n" \
  "data: {\"type\":\"message_stop\"}\n\n"

#define PING \
  "event: ping\n" \
  "data: {\"type\": \"ping\"}\n\n"

static const char hello_stream[] =
  MESSAGE_START (12)
  TEXT_START (0)
  TEXT_DELTA (0, "Hello")
  TEXT_DELTA (0, ", world")
  BLOCK_STOP (0)
  MESSAGE_END ("end_turn", 7);

#define ERROR_BODY(type, message) \
  "{\"type\":\"error\",\"error\":{\"type\":\"" type "\",\"message\":\"" message "\"}}"

/* ------------------------------------------------------------------------ */
/* The scripted server */

typedef enum
{
  END_COMPLETE,   /* the whole body, then the end of the chunked body */
  END_DROP,       /* the connection is closed after @stop_at bytes */
  END_STALL,      /* nothing more after @stop_at bytes, connection open */
  END_PINGS,      /* the whole body, then a ping every PING_INTERVAL_MS, forever */
  END_PAUSE,      /* nothing more after @stop_at bytes until fixture_resume() */
  END_SILENT,     /* no answer at all, not even the status line */
} ReplyEnd;

#define PING_INTERVAL_MS 100

typedef struct
{
  guint       status;
  const char *content_type;   /* NULL: text/event-stream */
  const char *header_name;    /* one extra response header, or NULL */
  const char *header_value;
  const char *body;
  gsize       chunk_size;     /* 0: the body in one piece */
  ReplyEnd    end;
  gsize       stop_at;
} Reply;

typedef struct
{
  char               *method;
  char               *path;
  SoupMessageHeaders *headers;
  GBytes             *body;
} Request;

typedef struct _Fixture Fixture;

/* Writes one streamed answer, a piece per main loop idle, so the client
 * reads each piece on its own before the next is written. */
typedef struct
{
  Fixture           *fixture;
  SoupServerMessage *msg;
  const Reply       *reply;
  gsize              offset;
  guint              source_id;
  gboolean           paused;     /* END_PAUSE: at @stop_at */
  gboolean           resumed;    /* END_PAUSE: past @stop_at */
  gboolean           finished;   /* all written, or the client went away */
} Writer;

struct _Fixture
{
  SoupServer        *server;
  char              *base_url;
  GQueue             replies;    /* of const Reply *, one per request */
  GPtrArray         *requests;   /* of Request */
  GPtrArray         *writers;
  GPtrArray         *silent;     /* of SoupServerMessage, never answered */
  WardenLlmProvider *provider;
};

static void
request_free (gpointer data)
{
  Request *request = data;

  g_free (request->method);
  g_free (request->path);
  soup_message_headers_unref (request->headers);
  g_bytes_unref (request->body);
  g_free (request);
}

static void
writer_free (gpointer data)
{
  Writer *writer = data;

  g_clear_handle_id (&writer->source_id, g_source_remove);
  g_signal_handlers_disconnect_by_data (writer->msg, writer);
  g_clear_object (&writer->msg);
  g_free (writer);
}

static void
writer_finished_cb (SoupServerMessage *msg,
                    Writer            *writer)
{
  writer->finished = TRUE;
  g_clear_handle_id (&writer->source_id, g_source_remove);
}

static gboolean
write_ping_cb (gpointer user_data)
{
  Writer *writer = user_data;

  soup_message_body_append (soup_server_message_get_response_body (writer->msg),
                            SOUP_MEMORY_STATIC, PING, strlen (PING));
  soup_server_message_unpause (writer->msg);

  return G_SOURCE_CONTINUE;
}

static gboolean
write_next_cb (gpointer user_data)
{
  Writer *writer = user_data;
  const Reply *reply = writer->reply;
  SoupMessageBody *body = soup_server_message_get_response_body (writer->msg);
  gsize length = strlen (reply->body);
  gsize limit = reply->end == END_COMPLETE || reply->end == END_PINGS || writer->resumed
                ? length : MIN (reply->stop_at, length);
  gsize piece = MIN (MAX (reply->chunk_size, 1), limit - writer->offset);

  if (piece > 0)
    {
      soup_message_body_append (body, SOUP_MEMORY_COPY, reply->body + writer->offset, piece);
      writer->offset += piece;
      soup_server_message_unpause (writer->msg);
      return G_SOURCE_CONTINUE;
    }

  writer->source_id = 0;

  switch (reply->end)
    {
    case END_COMPLETE:
      soup_message_body_complete (body);
      soup_server_message_unpause (writer->msg);
      break;

    case END_DROP:
      {
        g_autoptr(GIOStream) connection = soup_server_message_steal_connection (writer->msg);

        g_io_stream_close (connection, NULL, NULL);
      }
      break;

    case END_STALL:
      break;

    case END_PINGS:
      writer->source_id = g_timeout_add (PING_INTERVAL_MS, write_ping_cb, writer);
      break;

    case END_PAUSE:
      if (!writer->resumed)
        {
          writer->paused = TRUE;
          break;
        }
      soup_message_body_complete (body);
      soup_server_message_unpause (writer->msg);
      break;

    default:
      g_assert_not_reached ();
    }

  return G_SOURCE_REMOVE;
}

/* The paused answers go on. */
static void
fixture_resume (Fixture *fixture)
{
  for (guint i = 0; i < fixture->writers->len; i++)
    {
      Writer *writer = g_ptr_array_index (fixture->writers, i);

      if (writer->paused && !writer->finished)
        {
          writer->paused = FALSE;
          writer->resumed = TRUE;
          writer->source_id = g_idle_add (write_next_cb, writer);
        }
    }
}

static void
server_cb (SoupServer        *server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  Fixture *fixture = user_data;
  SoupMessageBody *request_body = soup_server_message_get_request_body (msg);
  SoupMessageHeaders *response_headers = soup_server_message_get_response_headers (msg);
  g_autoptr(GBytes) flattened = soup_message_body_flatten (request_body);
  const Reply *reply;
  Request *request;
  Writer *writer;

  request = g_new0 (Request, 1);
  request->method = g_strdup (soup_server_message_get_method (msg));
  request->path = g_strdup (path);
  request->headers = soup_message_headers_ref (soup_server_message_get_request_headers (msg));
  request->body = g_bytes_ref (flattened);
  g_ptr_array_add (fixture->requests, request);

  reply = g_queue_pop_head (&fixture->replies);
  if (reply == NULL)
    {
      soup_server_message_set_status (msg, 500, "No reply scripted");
      return;
    }

  if (reply->end == END_SILENT)
    {
      g_ptr_array_add (fixture->silent, g_object_ref (msg));
      soup_server_message_pause (msg);
      return;
    }

  soup_server_message_set_status (msg, reply->status, NULL);
  if (reply->header_name != NULL)
    soup_message_headers_replace (response_headers, reply->header_name, reply->header_value);

  if (reply->chunk_size == 0 && reply->end == END_COMPLETE)
    {
      soup_server_message_set_response (msg,
                                        reply->content_type ? reply->content_type
                                                            : "text/event-stream",
                                        SOUP_MEMORY_STATIC, reply->body, strlen (reply->body));
      return;
    }

  soup_message_headers_set_content_type (response_headers,
                                         reply->content_type ? reply->content_type
                                                             : "text/event-stream",
                                         NULL);
  soup_message_headers_set_encoding (response_headers, SOUP_ENCODING_CHUNKED);

  writer = g_new0 (Writer, 1);
  writer->fixture = fixture;
  writer->msg = g_object_ref (msg);
  writer->reply = reply;
  writer->source_id = g_idle_add (write_next_cb, writer);
  g_signal_connect (msg, "finished", G_CALLBACK (writer_finished_cb), writer);
  g_ptr_array_add (fixture->writers, writer);

  soup_server_message_pause (msg);
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  GSList *uris;

  fixture->server = soup_server_new ("server-header", "warden-test ", NULL);
  soup_server_add_handler (fixture->server, NULL, server_cb, fixture, NULL);
  soup_server_listen_local (fixture->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);

  uris = soup_server_get_uris (fixture->server);
  g_assert_nonnull (uris);
  /* "http://127.0.0.1:PORT/": the trailing slash must not matter. */
  fixture->base_url = g_uri_to_string (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);

  g_queue_init (&fixture->replies);
  fixture->requests = g_ptr_array_new_with_free_func (request_free);
  fixture->writers = g_ptr_array_new_with_free_func (writer_free);
  fixture->silent = g_ptr_array_new_with_free_func (g_object_unref);
  fixture->provider = warden_anthropic_provider_new (TEST_KEY, fixture->base_url, TEST_MODEL);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  user_data)
{
  /* libsoup 3.2's server leaks the GSocket of each connection it accepts
   * and the address of each listener, whatever the order here: valgrind
   * needs the soup-server-accept suppressions for this program. */
  soup_server_disconnect (fixture->server);
  g_clear_pointer (&fixture->writers, g_ptr_array_unref);
  g_clear_pointer (&fixture->silent, g_ptr_array_unref);
  g_clear_object (&fixture->server);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_clear_object (&fixture->provider);
  g_clear_pointer (&fixture->requests, g_ptr_array_unref);
  g_queue_clear (&fixture->replies);
  g_free (fixture->base_url);

  /* Let closed connections and finished messages go. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static void
fixture_script (Fixture     *fixture,
                const Reply *reply)
{
  g_queue_push_tail (&fixture->replies, (gpointer) reply);
}

static Request *
fixture_get_request (Fixture *fixture,
                     guint    index)
{
  g_assert_cmpuint (index, <, fixture->requests->len);
  return g_ptr_array_index (fixture->requests, index);
}

/* ------------------------------------------------------------------------ */
/* Running a completion */

typedef struct
{
  guint attempt;
  guint delay_ms;
  char *reason;
} Retry;

typedef struct
{
  GAsyncResult *result;
  GString      *text;           /* the text-delta signals, joined */
  guint         n_deltas;
  guint         n_deltas_before_result;
  GPtrArray    *tool_starts;    /* "id name" */
  GArray       *retries;        /* of Retry */
  GCancellable *cancel_on_delta;   /* cancelled at the first text delta */
  GCancellable *cancel_on_retry;   /* cancelled soon after the first retry */
  gint64        cancelled_at;
  gint64        completed_at;
  GArray       *waitings;          /* guint seconds per "waiting" */
  Fixture      *resume_on_waiting; /* its paused answers go on at the first "waiting" */
  guint         idle_timeout_on_retry;  /* "idle-timeout" from the first retry on */
} Run;

static void
retry_clear (gpointer data)
{
  Retry *retry = data;

  g_free (retry->reason);
}

static void
run_init (Run *run)
{
  memset (run, 0, sizeof *run);
  run->text = g_string_new (NULL);
  run->tool_starts = g_ptr_array_new_with_free_func (g_free);
  run->retries = g_array_new (FALSE, TRUE, sizeof (Retry));
  g_array_set_clear_func (run->retries, retry_clear);
  run->waitings = g_array_new (FALSE, FALSE, sizeof (guint));
}

static void
run_clear (Run *run)
{
  g_clear_object (&run->result);
  g_string_free (run->text, TRUE);
  g_ptr_array_unref (run->tool_starts);
  g_array_unref (run->retries);
  g_array_unref (run->waitings);
}

static void
text_delta_cb (WardenLlmProvider *provider,
               const char        *text,
               gpointer           user_data)
{
  Run *run = user_data;

  g_string_append (run->text, text);
  run->n_deltas++;
  if (run->result == NULL)
    run->n_deltas_before_result++;

  if (run->cancel_on_delta != NULL && !g_cancellable_is_cancelled (run->cancel_on_delta))
    {
      run->cancelled_at = g_get_monotonic_time ();
      g_cancellable_cancel (run->cancel_on_delta);
    }
}

static void
tool_use_start_cb (WardenLlmProvider *provider,
                   const char        *id,
                   const char        *name,
                   gpointer           user_data)
{
  Run *run = user_data;

  /* Text deltas are all in by now in these streams: check the order. */
  g_ptr_array_add (run->tool_starts, g_strdup_printf ("%s %s (after %u deltas)",
                                                      id, name, run->n_deltas));
}

static gboolean
cancel_later_cb (gpointer user_data)
{
  Run *run = user_data;

  run->cancelled_at = g_get_monotonic_time ();
  g_cancellable_cancel (run->cancel_on_retry);
  return G_SOURCE_REMOVE;
}

static void
retrying_cb (WardenLlmProvider *provider,
             guint              attempt,
             guint              delay_ms,
             const char        *reason,
             gpointer           user_data)
{
  Run *run = user_data;
  Retry retry = { attempt, delay_ms, g_strdup (reason) };

  g_array_append_val (run->retries, retry);

  if (run->idle_timeout_on_retry != 0)
    g_object_set (provider, "idle-timeout", run->idle_timeout_on_retry, NULL);

  /* Later, so that the wait for the next attempt is what gets cancelled. */
  if (run->cancel_on_retry != NULL && attempt == 1)
    g_timeout_add (20, cancel_later_cb, run);
}

static void
waiting_cb (WardenLlmProvider *provider,
            guint              seconds,
            gpointer           user_data)
{
  Run *run = user_data;

  g_array_append_val (run->waitings, seconds);
  if (run->resume_on_waiting != NULL)
    fixture_resume (g_steal_pointer (&run->resume_on_waiting));
}

static void
complete_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Run *run = user_data;

  run->result = g_object_ref (result);
  run->completed_at = g_get_monotonic_time ();
}

static gboolean
timeout_cb (gpointer user_data)
{
  gboolean *timed_out = user_data;

  *timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

static GPtrArray *
make_conversation (void)
{
  GPtrArray *messages = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_llm_message_unref);
  WardenLlmMessage *message;
  g_autoptr(JsonNode) input = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();

  g_assert_true (json_parser_load_from_data (parser, "{\"path\":\"README.md\"}", -1, NULL));
  input = json_node_copy (json_parser_get_root (parser));

  message = warden_llm_message_new (WARDEN_LLM_ROLE_USER);
  warden_llm_message_add_text (message, "What does this project do?");
  g_ptr_array_add (messages, message);

  message = warden_llm_message_new (WARDEN_LLM_ROLE_ASSISTANT);
  warden_llm_message_add_text (message, "Let me look.");
  warden_llm_message_add_tool_use (message, "toolu_1", "read_file", input);
  g_ptr_array_add (messages, message);

  message = warden_llm_message_new (WARDEN_LLM_ROLE_USER);
  warden_llm_message_add_tool_result (message, "toolu_1", "# Warden\nA coding agent.", FALSE);
  g_ptr_array_add (messages, message);

  return messages;
}

static GPtrArray *
make_tools (void)
{
  GPtrArray *tools = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_llm_tool_free);

  g_ptr_array_add (tools, warden_llm_tool_new ("read_file", "Reads a file of the workspace.",
                                               "{\"type\":\"object\",\"properties\":"
                                               "{\"path\":{\"type\":\"string\"}},"
                                               "\"required\":[\"path\"]}"));
  return tools;
}

/* Sends @messages and runs the main loop until it completes. */
static WardenLlmResponse *
run_complete_messages (Fixture       *fixture,
                       Run           *run,
                       GPtrArray     *messages,
                       GCancellable  *cancellable,
                       GError       **error)
{
  g_autoptr(GPtrArray) tools = make_tools ();
  gboolean timed_out = FALSE;
  gulong handlers[4];
  guint timeout_id;

  handlers[0] = g_signal_connect (fixture->provider, "text-delta",
                                  G_CALLBACK (text_delta_cb), run);
  handlers[1] = g_signal_connect (fixture->provider, "tool-use-start",
                                  G_CALLBACK (tool_use_start_cb), run);
  handlers[2] = g_signal_connect (fixture->provider, "retrying",
                                  G_CALLBACK (retrying_cb), run);
  handlers[3] = g_signal_connect (fixture->provider, "waiting",
                                  G_CALLBACK (waiting_cb), run);

  warden_llm_provider_complete_async (fixture->provider, "You are a test.", messages, tools,
                                      cancellable, complete_cb, run);

  timeout_id = g_timeout_add_seconds (TIMEOUT_S, timeout_cb, &timed_out);
  while (run->result == NULL && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (timed_out)
    g_error ("The completion did not finish within %d s", TIMEOUT_S);
  g_source_remove (timeout_id);

  for (guint i = 0; i < G_N_ELEMENTS (handlers); i++)
    g_signal_handler_disconnect (fixture->provider, handlers[i]);

  return warden_llm_provider_complete_finish (fixture->provider, run->result, error);
}

/* Sends the standard conversation and runs the main loop until it completes. */
static WardenLlmResponse *
run_complete (Fixture       *fixture,
              Run           *run,
              GCancellable  *cancellable,
              GError       **error)
{
  g_autoptr(GPtrArray) messages = make_conversation ();

  return run_complete_messages (fixture, run, messages, cancellable, error);
}

static JsonNode *
parse_json (GBytes *bytes)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  gsize length;
  const char *data = g_bytes_get_data (bytes, &length);

  json_parser_load_from_data (parser, data, length, &error);
  g_assert_no_error (error);

  return json_node_copy (json_parser_get_root (parser));
}

static char *
to_string (JsonNode *node)
{
  return json_to_string (node, FALSE);
}

/* ------------------------------------------------------------------------ */
/* Streaming */

static void
assert_tool_use_response (WardenLlmResponse *response)
{
  const WardenLlmBlock *block;
  JsonObject *input;
  g_autofree char *text = NULL;

  g_assert_nonnull (response);
  g_assert_cmpstr (response->stop_reason, ==, "tool_use");
  g_assert_cmpint (response->input_tokens, ==, 472);
  g_assert_cmpint (response->output_tokens, ==, 89);

  g_assert_cmpint (warden_llm_message_get_role (response->message), ==,
                   WARDEN_LLM_ROLE_ASSISTANT);
  g_assert_cmpuint (warden_llm_message_get_n_blocks (response->message), ==, 2);
  g_assert_true (warden_llm_message_has_tool_use (response->message));

  text = warden_llm_message_dup_text (response->message);
  g_assert_cmpstr (text, ==, "I'll read the file first.");

  block = warden_llm_message_get_block (response->message, 1);
  g_assert_cmpint (block->type, ==, WARDEN_LLM_BLOCK_TOOL_USE);
  g_assert_cmpstr (block->tool_use_id, ==, "toolu_01T1x1fJ34qAmk2tNTrN7Up6");
  g_assert_cmpstr (block->tool_name, ==, "read_file");
  g_assert_true (JSON_NODE_HOLDS_OBJECT (block->tool_input));
  input = json_node_get_object (block->tool_input);
  g_assert_cmpuint (json_object_get_size (input), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (input, "path"), ==, "src/main.c");
  g_assert_cmpstr (json_object_get_string_member (input, "note"), ==,
                   "line1\nline2 \"quoted\" caf\xc3\xa9");
}

static void
test_stream_one_byte_chunks (Fixture       *fixture,
                             gconstpointer  user_data)
{
  static const Reply reply = { 200, NULL, NULL, NULL, tool_use_stream, 1, END_COMPLETE, 0 };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  Run run;

  fixture_script (fixture, &reply);
  run_init (&run);

  response = run_complete (fixture, &run, NULL, &error);
  g_assert_no_error (error);
  assert_tool_use_response (response);

  /* The text arrived as it streamed, before the answer was complete. */
  g_assert_cmpstr (run.text->str, ==, "I'll read the file first.");
  g_assert_cmpuint (run.n_deltas, ==, 2);
  g_assert_cmpuint (run.n_deltas_before_result, ==, 2);
  g_assert_cmpuint (run.tool_starts->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (run.tool_starts, 0), ==,
                   "toolu_01T1x1fJ34qAmk2tNTrN7Up6 read_file (after 2 deltas)");
  g_assert_cmpuint (run.retries->len, ==, 0);
  g_assert_cmpuint (fixture->requests->len, ==, 1);

  run_clear (&run);
}

static gboolean
busy_frame_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

/* One request after the other while something on screen redraws at every
 * frame (a spinner under a software renderer: a source at redraw priority
 * that is always ready): each answer's rest is still read, its connection
 * goes back, and the next request is sent. The rest used to be read at low
 * priority, which such a frame clock never lets run: after two requests the
 * connections were all held, and the third waited for ever. */
static void
test_stream_requests_while_redrawing (Fixture       *fixture,
                                      gconstpointer  user_data)
{
  static const Reply reply = { 200, NULL, NULL, NULL, hello_stream, 0, END_COMPLETE, 0 };
  guint busy = g_idle_add_full (G_PRIORITY_HIGH_IDLE + 20, busy_frame_cb, NULL, NULL);

  for (guint i = 0; i < 5; i++)
    {
      g_autoptr(WardenLlmResponse) response = NULL;
      g_autoptr(GError) error = NULL;
      Run run;

      fixture_script (fixture, &reply);
      run_init (&run);
      response = run_complete (fixture, &run, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (response);
      run_clear (&run);
    }
  g_source_remove (busy);
}

static void
test_stream_request (Fixture       *fixture,
                     gconstpointer  user_data)
{
  static const Reply reply = { 200, NULL, NULL, NULL, hello_stream, 0, END_COMPLETE, 0 };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GPtrArray) conversation = make_conversation ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) body = NULL;
  g_autoptr(JsonArray) expected_messages = json_array_new ();
  g_autofree char *messages_json = NULL;
  g_autofree char *expected_json = NULL;
  JsonObject *object;
  JsonObject *schema;
  JsonObject *tool;
  JsonArray *tools;
  Request *request;
  Run run;

  fixture_script (fixture, &reply);
  run_init (&run);

  response = run_complete (fixture, &run, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (response);

  request = fixture_get_request (fixture, 0);
  g_assert_cmpstr (request->method, ==, "POST");
  g_assert_cmpstr (request->path, ==, "/v1/messages");
  g_assert_cmpstr (soup_message_headers_get_one (request->headers, "x-api-key"), ==, TEST_KEY);
  g_assert_cmpstr (soup_message_headers_get_one (request->headers, "anthropic-version"), ==,
                   "2023-06-01");
  g_assert_cmpstr (soup_message_headers_get_content_type (request->headers, NULL), ==,
                   "application/json");

  body = parse_json (request->body);
  object = json_node_get_object (body);
  g_assert_cmpstr (json_object_get_string_member (object, "model"), ==, TEST_MODEL);
  g_assert_cmpint (json_object_get_int_member (object, "max_tokens"), ==, 8192);
  g_assert_cmpstr (json_object_get_string_member (object, "system"), ==, "You are a test.");
  g_assert_true (json_object_get_boolean_member (object, "stream"));

  /* The messages go as their JSON form, which is the API's. */
  for (guint i = 0; i < conversation->len; i++)
    json_array_add_element (expected_messages,
                            warden_llm_message_to_json (g_ptr_array_index (conversation, i)));
  messages_json = to_string (json_object_get_member (object, "messages"));
  {
    g_autoptr(JsonNode) expected = json_node_new (JSON_NODE_ARRAY);

    json_node_set_array (expected, expected_messages);
    expected_json = to_string (expected);
  }
  g_assert_cmpstr (messages_json, ==, expected_json);
  g_assert_nonnull (strstr (messages_json, "\"tool_result\""));

  tools = json_object_get_array_member (object, "tools");
  g_assert_cmpuint (json_array_get_length (tools), ==, 1);
  tool = json_array_get_object_element (tools, 0);
  g_assert_cmpstr (json_object_get_string_member (tool, "name"), ==, "read_file");
  g_assert_cmpstr (json_object_get_string_member (tool, "description"), ==,
                   "Reads a file of the workspace.");
  schema = json_object_get_object_member (tool, "input_schema");
  g_assert_cmpstr (json_object_get_string_member (schema, "type"), ==, "object");
  g_assert_cmpuint (json_object_get_size (tool), ==, 3);

  run_clear (&run);
}

/* What a strict server takes: UTF-8 with no raw control character, and JSON. */
static JsonNode *
parse_strict_json (GBytes *bytes)
{
  gsize length;
  const char *data = g_bytes_get_data (bytes, &length);

  g_assert_true (g_utf8_validate (data, length, NULL));
  for (gsize i = 0; i < length; i++)
    g_assert_cmpint ((guchar) data[i], >=, 0x20);

  return parse_json (bytes);
}

/* A tool read a gzip file: its header (1f 8b) and a byte that is no UTF-8
 * went into the conversation. Every later request must still be JSON. */
static void
test_stream_request_binary_result (Fixture       *fixture,
                                   gconstpointer  user_data)
{
  static const Reply reply = { 200, NULL, NULL, NULL, hello_stream, 0, END_COMPLETE, 0 };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GPtrArray) messages = make_conversation ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) body = NULL;
  WardenLlmMessage *message;
  JsonArray *sent;
  JsonObject *result;
  const char *content;
  Run run;

  message = warden_llm_message_new (WARDEN_LLM_ROLE_ASSISTANT);
  warden_llm_message_add_tool_use (message, "toolu_2", "read_file", NULL);
  g_ptr_array_add (messages, message);
  message = warden_llm_message_new (WARDEN_LLM_ROLE_USER);
  warden_llm_message_add_tool_result (message, "toolu_2", "\x1f\x8b\x08\x08gz\xff tail", FALSE);
  g_ptr_array_add (messages, message);

  fixture_script (fixture, &reply);
  run_init (&run);

  response = run_complete_messages (fixture, &run, messages, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (response);

  body = parse_strict_json (fixture_get_request (fixture, 0)->body);
  sent = json_object_get_array_member (json_node_get_object (body), "messages");
  g_assert_cmpuint (json_array_get_length (sent), ==, 5);
  result = json_array_get_object_element (
    json_object_get_array_member (json_array_get_object_element (sent, 4), "content"), 0);
  content = json_object_get_string_member (result, "content");
  g_assert_true (g_str_has_prefix (content, "\x1f"));
  g_assert_true (g_str_has_suffix (content, "gz\xef\xbf\xbd tail"));

  run_clear (&run);
}

/* A call whose input could not be read goes back as the API takes it: an
 * empty input, none of Warden's notes. */
static void
test_stream_request_bad_tool_use (Fixture       *fixture,
                                  gconstpointer  user_data)
{
  static const Reply reply = { 200, NULL, NULL, NULL, hello_stream, 0, END_COMPLETE, 0 };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GPtrArray) messages = make_conversation ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) body = NULL;
  g_autofree char *sent_call = NULL;
  WardenLlmMessage *message;
  JsonArray *sent;
  Run run;

  message = warden_llm_message_new (WARDEN_LLM_ROLE_ASSISTANT);
  warden_llm_message_add_bad_tool_use (message, "toolu_2", "read_file", "{\"path\": tr",
                                       "the arguments are not valid JSON");
  g_ptr_array_add (messages, message);
  message = warden_llm_message_new (WARDEN_LLM_ROLE_USER);
  warden_llm_message_add_tool_result (message, "toolu_2", "the arguments are not valid JSON",
                                      TRUE);
  g_ptr_array_add (messages, message);

  fixture_script (fixture, &reply);
  run_init (&run);

  response = run_complete_messages (fixture, &run, messages, NULL, &error);
  g_assert_no_error (error);

  body = parse_strict_json (fixture_get_request (fixture, 0)->body);
  sent = json_object_get_array_member (json_node_get_object (body), "messages");
  sent_call = to_string (json_array_get_element (
    json_object_get_array_member (json_array_get_object_element (sent, 3), "content"), 0));
  g_assert_cmpstr (sent_call, ==,
                   "{\"type\":\"tool_use\",\"id\":\"toolu_2\",\"name\":\"read_file\","
                   "\"input\":{}}");

  run_clear (&run);
}

static void
test_stream_pings (Fixture       *fixture,
                   gconstpointer  user_data)
{
  static const Reply reply = {
    200, NULL, NULL, NULL,
    PING
    ": a comment\n"
    MESSAGE_START (30)
    PING
    TEXT_START (0)
    PING
    TEXT_DELTA (0, "one")
    PING PING
    TEXT_DELTA (0, " two")
    BLOCK_STOP (0)
    PING
    MESSAGE_END ("end_turn", 4)
    PING,
    7, END_COMPLETE, 0
  };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  Run run;

  fixture_script (fixture, &reply);
  run_init (&run);

  response = run_complete (fixture, &run, NULL, &error);
  g_assert_no_error (error);
  text = warden_llm_message_dup_text (response->message);
  g_assert_cmpstr (text, ==, "one two");
  g_assert_cmpuint (warden_llm_message_get_n_blocks (response->message), ==, 1);
  g_assert_cmpstr (response->stop_reason, ==, "end_turn");
  g_assert_cmpint (response->input_tokens, ==, 30);
  g_assert_cmpint (response->output_tokens, ==, 4);
  g_assert_cmpstr (run.text->str, ==, "one two");

  run_clear (&run);
}

static void
test_stream_usage (Fixture       *fixture,
                   gconstpointer  user_data)
{
  /* Cached input still fills the context. */
  static const Reply reply = {
    200, NULL, NULL, NULL,
    "event: message_start\n"
    "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_2\",\"usage\":{\"input_tokens\":5,"
    "\"cache_creation_input_tokens\":100,\"cache_read_input_tokens\":2000,"
    "\"output_tokens\":1}}}\n\n"
    TEXT_START (0)
    TEXT_DELTA (0, "ok")
    BLOCK_STOP (0)
    MESSAGE_END ("max_tokens", 8192),
    0, END_COMPLETE, 0
  };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  Run run;

  fixture_script (fixture, &reply);
  run_init (&run);

  response = run_complete (fixture, &run, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (response->input_tokens, ==, 2105);
  g_assert_cmpint (response->output_tokens, ==, 8192);
  g_assert_cmpstr (response->stop_reason, ==, "max_tokens");
  /* What the cache did, for the cost: reads and writes are priced apart. */
  g_assert_cmpuint (response->usage.requests, ==, 1);
  g_assert_cmpuint (response->usage.unreported, ==, 0);
  g_assert_cmpint (response->usage.input_tokens, ==, 2105);
  g_assert_cmpint (response->usage.cache_read_tokens, ==, 2000);
  g_assert_cmpint (response->usage.cache_write_tokens, ==, 100);
  g_assert_cmpint (response->usage.output_tokens, ==, 8192);
  /* Anthropic sends no cost: the price table gives it, or nothing does. */
  g_assert_cmpuint (response->usage.unpriced, ==, 1);

  run_clear (&run);
}

/* A server (a proxy, a look-alike) that says nothing of usage: unknown,
 * never 0 tokens shown as a fact. */
static void
test_stream_no_usage (Fixture       *fixture,
                      gconstpointer  user_data)
{
  static const Reply reply = {
    200, NULL, NULL, NULL,
    "event: message_start\n"
    "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_3\",\"role\":\"assistant\","
    "\"content\":[]}}\n\n"
    TEXT_START (0)
    TEXT_DELTA (0, "ok")
    BLOCK_STOP (0)
    "event: message_delta\n"
    "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n"
    "event: message_stop\n"
    "data: {\"type\":\"message_stop\"}\n\n",
    0, END_COMPLETE, 0
  };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *shown = NULL;
  Run run;

  fixture_script (fixture, &reply);
  run_init (&run);

  response = run_complete (fixture, &run, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (response->usage.requests, ==, 1);
  g_assert_cmpuint (response->usage.unreported, ==, 1);
  g_assert_false (warden_llm_usage_tokens_known (&response->usage));
  g_assert_false (warden_llm_usage_cost_known (&response->usage));
  shown = warden_llm_usage_format (&response->usage);
  g_assert_cmpstr (shown, ==, "usage unknown");

  run_clear (&run);
}

static void
test_stream_empty_tool_input (Fixture       *fixture,
                              gconstpointer  user_data)
{
  static const Reply reply = {
    200, NULL, NULL, NULL,
    MESSAGE_START (9)
    TEXT_START (0)
    BLOCK_STOP (0)
    TOOL_START (1, "toolu_a", "list_files")
    TOOL_DELTA (1, "")
    BLOCK_STOP (1)
    TOOL_START (2, "toolu_b", "git_status")
    BLOCK_STOP (2)
    MESSAGE_END ("tool_use", 20),
    3, END_COMPLETE, 0
  };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  const WardenLlmBlock *block;
  Run run;

  fixture_script (fixture, &reply);
  run_init (&run);

  response = run_complete (fixture, &run, NULL, &error);
  g_assert_no_error (error);

  /* The empty text block is dropped: the API would refuse it sent back. */
  g_assert_cmpuint (warden_llm_message_get_n_blocks (response->message), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      block = warden_llm_message_get_block (response->message, i);
      g_assert_cmpint (block->type, ==, WARDEN_LLM_BLOCK_TOOL_USE);
      g_assert_true (JSON_NODE_HOLDS_OBJECT (block->tool_input));
      g_assert_cmpuint (json_object_get_size (json_node_get_object (block->tool_input)), ==, 0);
    }
  g_assert_cmpstr (warden_llm_message_get_block (response->message, 1)->tool_name, ==,
                   "git_status");
  g_assert_cmpuint (run.tool_starts->len, ==, 2);

  run_clear (&run);
}

/* ------------------------------------------------------------------------ */
/* Retries */

static void
test_retry_overloaded_event (Fixture       *fixture,
                             gconstpointer  user_data)
{
  static const Reply overloaded = {
    200, NULL, NULL, NULL,
    MESSAGE_START (10)
    TEXT_START (0)
    TEXT_DELTA (0, "Partial")
    "event: error\n"
    "data: " ERROR_BODY ("overloaded_error", "Overloaded") "\n\n",
    5, END_COMPLETE, 0
  };
  static const Reply good = { 200, NULL, NULL, NULL, hello_stream, 0, END_COMPLETE, 0 };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  Retry *retry;
  Run run;

  fixture_script (fixture, &overloaded);
  fixture_script (fixture, &good);
  run_init (&run);

  response = run_complete (fixture, &run, NULL, &error);
  g_assert_no_error (error);
  text = warden_llm_message_dup_text (response->message);
  g_assert_cmpstr (text, ==, "Hello, world");

  g_assert_cmpuint (fixture->requests->len, ==, 2);
  g_assert_cmpuint (run.retries->len, ==, 1);
  retry = &g_array_index (run.retries, Retry, 0);
  g_assert_cmpuint (retry->attempt, ==, 1);
  /* Full jitter on a base of 1 ms (WARDEN_LLM_RETRY_BASE_MS). */
  g_assert_cmpuint (retry->delay_ms, <=, 1);
  g_assert_nonnull (strstr (retry->reason, "Overloaded"));

  /* The retry's text follows the abandoned attempt's in the signals. */
  g_assert_cmpstr (run.text->str, ==, "PartialHello, world");

  run_clear (&run);
}

static void
test_retry_rate_limited (Fixture       *fixture,
                         gconstpointer  user_data)
{
  static const Reply limited = {
    429, "application/json", "retry-after", "0",
    ERROR_BODY ("rate_limit_error", "Number of request tokens has exceeded your rate limit"),
    0, END_COMPLETE, 0
  };
  static const Reply good = { 200, NULL, NULL, NULL, hello_stream, 0, END_COMPLETE, 0 };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  Run run;

  fixture_script (fixture, &limited);
  fixture_script (fixture, &good);
  run_init (&run);

  response = run_complete (fixture, &run, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (response);
  g_assert_cmpuint (fixture->requests->len, ==, 2);
  g_assert_cmpuint (run.retries->len, ==, 1);
  g_assert_nonnull (strstr (g_array_index (run.retries, Retry, 0).reason, "rate limit"));

  run_clear (&run);
}

static void
test_retry_after_honoured (Fixture       *fixture,
                           gconstpointer  user_data)
{
  static const Reply busy = {
    529, "application/json", "retry-after-ms", "120",
    ERROR_BODY ("overloaded_error", "Overloaded"),
    0, END_COMPLETE, 0
  };
  static const Reply good = { 200, NULL, NULL, NULL, hello_stream, 0, END_COMPLETE, 0 };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  Run run;

  fixture_script (fixture, &busy);
  fixture_script (fixture, &good);
  run_init (&run);

  response = run_complete (fixture, &run, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (run.retries->len, ==, 1);
  g_assert_cmpuint (g_array_index (run.retries, Retry, 0).delay_ms, ==, 120);

  run_clear (&run);
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
test_retry_after_row (Fixture       *fixture,
                      gconstpointer  user_data)
{
  const RetryAfterRow *row = user_data;
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *date = NULL;
  Reply limited = {
    429, "application/json", row->header, row->value,
    ERROR_BODY ("rate_limit_error", "Number of requests has exceeded your rate limit"),
    0, END_COMPLETE, 0
  };
  static const Reply good = { 200, NULL, NULL, NULL, hello_stream, 0, END_COMPLETE, 0 };
  Run run;

  if (row->value == NULL)
    {
      g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
      g_autoptr(GDateTime) then = g_date_time_add_seconds (now, row->date_in);

      date = soup_date_time_to_string (then, SOUP_DATE_HTTP);
      limited.header_value = date;
    }
  if (row->cap != 0)
    g_object_set (fixture->provider, "retry-after-cap", row->cap, NULL);

  fixture_script (fixture, &limited);
  fixture_script (fixture, &good);
  run_init (&run);
  /* Cancelled in the wait, when there is one to cancel. */
  if (row->cap != 0 || row->max_delay_ms != 0)
    run.cancel_on_retry = cancellable;

  response = run_complete (fixture, &run, cancellable, &error);

  if (row->cap == 0 && row->max_delay_ms == 0)
    {
      /* A time that has passed: at once. */
      g_assert_no_error (error);
      g_assert_nonnull (response);
      g_assert_cmpuint (run.retries->len, ==, 1);
      g_assert_cmpuint (g_array_index (run.retries, Retry, 0).delay_ms, ==, 0);
      g_assert_cmpuint (fixture->requests->len, ==, 2);
      run_clear (&run);
      return;
    }

  g_assert_null (response);
  g_assert_cmpuint (fixture->requests->len, ==, 1);

  if (row->cap == 0)
    {
      Retry *retry;

      /* Cancelled in the wait: the server's, not the backoff's. */
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
      g_assert_cmpuint (run.retries->len, ==, 1);
      retry = &g_array_index (run.retries, Retry, 0);
      g_test_message ("%s: %s: retry in %u ms", row->header, limited.header_value,
                      retry->delay_ms);
      g_assert_cmpuint (retry->delay_ms, >=, row->min_delay_ms);
      g_assert_cmpuint (retry->delay_ms, <=, row->max_delay_ms);
      g_assert_nonnull (strstr (retry->reason, "rate limit"));
    }
  else
    {
      g_test_message ("%s", error->message);
      g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_RATE_LIMITED);
      g_assert_cmpuint (run.retries->len, ==, 0);
      g_assert_nonnull (strstr (error->message, "rate limit"));
      g_assert_nonnull (strstr (error->message, "try again in"));
      if (row->value != NULL)
        g_assert_nonnull (strstr (error->message, "try again in 90 s"));
    }

  run_clear (&run);
}

static void
test_retry_exhausted (Fixture       *fixture,
                      gconstpointer  user_data)
{
  static const Reply busy = {
    503, "application/json", NULL, NULL,
    ERROR_BODY ("api_error", "Internal server error"),
    0, END_COMPLETE, 0
  };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  Run run;

  for (guint i = 0; i < 7; i++)
    fixture_script (fixture, &busy);
  run_init (&run);

  response = run_complete (fixture, &run, NULL, &error);
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_OVERLOADED);
  g_assert_null (response);
  g_assert_nonnull (strstr (error->message, "503"));

  /* One try and five retries, each backing off at most twice as long. */
  g_assert_cmpuint (fixture->requests->len, ==, 6);
  g_assert_cmpuint (run.retries->len, ==, 5);
  for (guint i = 0; i < run.retries->len; i++)
    {
      Retry *retry = &g_array_index (run.retries, Retry, i);

      g_assert_cmpuint (retry->attempt, ==, i + 1);
      g_assert_cmpuint (retry->delay_ms, <=, 1u << i);
    }

  run_clear (&run);
}

static void
test_retry_network (Fixture       *fixture,
                    gconstpointer  user_data)
{
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = g_strdup (fixture->base_url);
  Run run;

  /* Nobody listens there any more. */
  g_clear_object (&fixture->provider);
  soup_server_disconnect (fixture->server);
  fixture->provider = warden_anthropic_provider_new (TEST_KEY, url, TEST_MODEL);
  run_init (&run);

  response = run_complete (fixture, &run, NULL, &error);
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NETWORK);
  g_assert_nonnull (strstr (error->message, "127.0.0.1"));
  g_assert_cmpuint (run.retries->len, ==, 5);

  run_clear (&run);
}

static void
test_retry_stream_cut (Fixture       *fixture,
                       gconstpointer  user_data)
{
  static const Reply good = { 200, NULL, NULL, NULL, hello_stream, 0, END_COMPLETE, 0 };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  Reply cut = { 200, NULL, NULL, NULL, hello_stream, 9, END_DROP, 0 };
  Run run;

  cut.stop_at = strstr (hello_stream, ", world") - hello_stream + 3;

  /* A cut before any tool call started is tried again. */
  fixture_script (fixture, &cut);
  fixture_script (fixture, &good);
  run_init (&run);

  response = run_complete (fixture, &run, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (response);
  g_assert_cmpuint (fixture->requests->len, ==, 2);
  g_assert_cmpuint (run.retries->len, ==, 1);

  run_clear (&run);
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
assert_waited (Run *run,
               guint at_least)
{
  g_assert_cmpuint (run->waitings->len, >=, at_least);
  for (guint i = 0; i < run->waitings->len; i++)
    g_assert_cmpuint (g_array_index (run->waitings, guint, i), >=, 1);
}

/* The server takes the request and never says a word: the user hears it
 * is waiting, the request goes again, and then Warden gives up saying why. */
static void
test_hang_never_answers (Fixture       *fixture,
                         gconstpointer  user_data)
{
  static const Reply silent = { 0, NULL, NULL, NULL, "", 0, END_SILENT, 0 };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  Run run;

  set_short_times (fixture->provider);
  fixture_script (fixture, &silent);
  fixture_script (fixture, &silent);
  run_init (&run);

  response = run_complete (fixture, &run, NULL, &error);
  g_test_message ("%s", error ? error->message : "(no error)");
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_TIMED_OUT);
  g_assert_null (response);
  g_assert_nonnull (strstr (error->message, "stopped answering"));
  g_assert_cmpuint (fixture->requests->len, ==, 2);
  g_assert_cmpuint (run.retries->len, ==, 1);
  g_assert_nonnull (strstr (g_array_index (run.retries, Retry, 0).reason, "stopped answering"));
  /* Told at each attempt, before it was given up on. */
  assert_waited (&run, 2);

  run_clear (&run);
}

/* Pings say the connection lives, not that the model works. */
static void
test_hang_pings_only (Fixture       *fixture,
                      gconstpointer  user_data)
{
  static const Reply pings = {
    200, NULL, NULL, NULL, MESSAGE_START (10) PING, 64, END_PINGS, 0
  };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  Run run;

  set_short_times (fixture->provider);
  fixture_script (fixture, &pings);
  fixture_script (fixture, &pings);
  run_init (&run);

  response = run_complete (fixture, &run, NULL, &error);
  g_test_message ("%s", error ? error->message : "(no error)");
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_TIMED_OUT);
  g_assert_null (response);
  g_assert_nonnull (strstr (error->message, "stopped answering"));
  g_assert_cmpuint (fixture->requests->len, ==, 2);
  g_assert_cmpuint (run.retries->len, ==, 1);
  assert_waited (&run, 2);

  run_clear (&run);
}

/* The request that hung is sent again, and that one is answered. */
static void
test_hang_answered_on_retry (Fixture       *fixture,
                             gconstpointer  user_data)
{
  static const Reply silent = { 0, NULL, NULL, NULL, "", 0, END_SILENT, 0 };
  static const Reply good = { 200, NULL, NULL, NULL, hello_stream, 0, END_COMPLETE, 0 };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  Run run;

  set_short_times (fixture->provider);
  fixture_script (fixture, &silent);
  fixture_script (fixture, &good);
  run_init (&run);
  /* However slow the machine, the answer is not cut short. */
  run.idle_timeout_on_retry = 60;

  response = run_complete (fixture, &run, NULL, &error);
  g_assert_no_error (error);
  text = warden_llm_message_dup_text (response->message);
  g_assert_cmpstr (text, ==, "Hello, world");
  g_assert_cmpuint (fixture->requests->len, ==, 2);
  g_assert_cmpuint (run.retries->len, ==, 1);
  g_assert_nonnull (strstr (g_array_index (run.retries, Retry, 0).reason, "stopped answering"));
  assert_waited (&run, 1);

  run_clear (&run);
}

/* A pause in the middle of the answer: the notice, then the all-clear (0)
 * when the model goes on; nothing is retried. */
static void
test_hang_pause_mid_answer (Fixture       *fixture,
                            gconstpointer  user_data)
{
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  Reply paused = { 200, NULL, NULL, NULL, hello_stream, 16, END_PAUSE, 0 };
  Run run;

  paused.stop_at = strstr (hello_stream, ", world") - hello_stream;
  g_object_set (fixture->provider, "waiting-notice", 1, "idle-timeout", 60, NULL);
  fixture_script (fixture, &paused);
  run_init (&run);
  run.resume_on_waiting = fixture;

  response = run_complete (fixture, &run, NULL, &error);
  g_assert_no_error (error);
  text = warden_llm_message_dup_text (response->message);
  g_assert_cmpstr (text, ==, "Hello, world");
  g_assert_cmpuint (run.retries->len, ==, 0);
  g_assert_cmpuint (run.waitings->len, ==, 2);
  g_assert_cmpuint (g_array_index (run.waitings, guint, 0), >=, 1);
  g_assert_cmpuint (g_array_index (run.waitings, guint, 1), ==, 0);

  run_clear (&run);
}

/* The defaults, as the header documents them. */
static void
test_hang_defaults (Fixture       *fixture,
                    gconstpointer  user_data)
{
  g_assert_cmpuint (warden_llm_provider_get_waiting_notice (fixture->provider), ==, 30);
  g_assert_cmpuint (warden_llm_provider_get_idle_timeout (fixture->provider), ==, 120);
  g_assert_cmpuint (warden_llm_provider_get_retry_after_cap (fixture->provider), ==, 600);
  g_assert_cmpuint (warden_llm_provider_get_max_retries (fixture->provider), ==, 5);
}

/* ------------------------------------------------------------------------ */
/* Errors */

static void
test_error_auth (Fixture       *fixture,
                 gconstpointer  user_data)
{
  /* A proxy that echoes the key must not get it into the message. */
  static const Reply denied = {
    401, "application/json", NULL, NULL,
    ERROR_BODY ("authentication_error", "invalid x-api-key " TEST_KEY),
    0, END_COMPLETE, 0
  };
  static const Reply good = { 200, NULL, NULL, NULL, hello_stream, 0, END_COMPLETE, 0 };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  Run run;

  fixture_script (fixture, &denied);
  fixture_script (fixture, &good);
  run_init (&run);

  response = run_complete (fixture, &run, NULL, &error);
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_AUTH);
  g_assert_nonnull (strstr (error->message, "ANTHROPIC_API_KEY"));
  g_assert_nonnull (strstr (error->message, "invalid x-api-key"));
  g_assert_null (strstr (error->message, TEST_KEY));
  g_assert_null (strstr (error->message, "0123456789"));
  g_assert_cmpuint (fixture->requests->len, ==, 1);
  g_assert_cmpuint (run.retries->len, ==, 0);

  run_clear (&run);
}

static void
test_error_unknown_model (Fixture       *fixture,
                          gconstpointer  user_data)
{
  static const Reply missing = {
    404, "application/json", NULL, NULL,
    ERROR_BODY ("not_found_error", "model: " TEST_MODEL),
    0, END_COMPLETE, 0
  };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  Run run;

  fixture_script (fixture, &missing);
  run_init (&run);

  response = run_complete (fixture, &run, NULL, &error);
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_UNKNOWN_MODEL);
  g_assert_nonnull (strstr (error->message, "Unknown model " TEST_MODEL));
  g_assert_cmpuint (fixture->requests->len, ==, 1);
  g_assert_cmpuint (run.retries->len, ==, 0);

  run_clear (&run);
}

static void
test_error_context_too_long (Fixture       *fixture,
                             gconstpointer  user_data)
{
  static const Reply too_long = {
    400, "application/json", NULL, NULL,
    ERROR_BODY ("invalid_request_error", "prompt is too long: 212345 tokens > 200000 maximum"),
    0, END_COMPLETE, 0
  };
  static const Reply too_long_event = {
    200, NULL, NULL, NULL,
    MESSAGE_START (10)
    "event: error\n"
    "data: " ERROR_BODY ("invalid_request_error", "Prompt is too long") "\n\n",
    0, END_COMPLETE, 0
  };
  static const Reply bad_request = {
    400, "application/json", NULL, NULL,
    ERROR_BODY ("invalid_request_error", "messages: roles must alternate"),
    0, END_COMPLETE, 0
  };
  const Reply *replies[] = { &too_long, &too_long_event, &bad_request };
  const gint codes[] = {
    WARDEN_LLM_ERROR_CONTEXT_TOO_LONG,
    WARDEN_LLM_ERROR_CONTEXT_TOO_LONG,
    WARDEN_LLM_ERROR_FAILED
  };

  for (guint i = 0; i < G_N_ELEMENTS (replies); i++)
    {
      g_autoptr(WardenLlmResponse) response = NULL;
      g_autoptr(GError) error = NULL;
      Run run;

      fixture_script (fixture, replies[i]);
      run_init (&run);

      response = run_complete (fixture, &run, NULL, &error);
      g_assert_error (error, WARDEN_LLM_ERROR, codes[i]);
      g_assert_cmpuint (run.retries->len, ==, 0);
      g_assert_cmpuint (fixture->requests->len, ==, i + 1);

      run_clear (&run);
    }
}

static void
test_error_stream_cut (Fixture       *fixture,
                       gconstpointer  user_data)
{
  /* Dropped mid-event, and ended cleanly but before message_stop. */
  static const Reply ended = {
    200, NULL, NULL, NULL,
    MESSAGE_START (10)
    TEXT_START (0)
    TEXT_DELTA (0, "Hel"),
    0, END_COMPLETE, 0
  };
  Reply dropped = { 200, NULL, NULL, NULL, hello_stream, 11, END_DROP, 0 };
  const Reply *replies[] = { &dropped, &ended };

  dropped.stop_at = strstr (hello_stream, "event: message_stop") - hello_stream + 4;

  for (guint i = 0; i < G_N_ELEMENTS (replies); i++)
    {
      g_autoptr(WardenLlmResponse) response = NULL;
      g_autoptr(GError) error = NULL;
      Run run;

      for (guint j = 0; j < 6; j++)
        fixture_script (fixture, replies[i]);
      run_init (&run);
      g_ptr_array_set_size (fixture->requests, 0);

      response = run_complete (fixture, &run, NULL, &error);
      g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_STREAM_CUT);
      g_assert_null (response);
      g_assert_cmpuint (fixture->requests->len, ==, 6);
      g_assert_cmpuint (run.retries->len, ==, 5);

      run_clear (&run);
    }
}

/* A tool call cut short, by the connection or by an error event, has run
 * nothing yet: the request goes again, and the retry's answer is taken. */
static void
test_retry_cut_in_tool_use (Fixture       *fixture,
                            gconstpointer  user_data)
{
  static const char stream[] =
    MESSAGE_START (10)
    TEXT_START (0)
    TEXT_DELTA (0, "Writing it.")
    BLOCK_STOP (0)
    TOOL_START (1, "toolu_w", "write_file")
    TOOL_DELTA (1, "{\\\"path\\\": \\\"a.txt\\\", \\\"content\\\": \\\"par")
    TOOL_DELTA (1, "tial\\\"}")
    BLOCK_STOP (1)
    MESSAGE_END ("tool_use", 30);
  static const Reply dropped = { 200, NULL, NULL, NULL, stream, 13, END_DROP, 0 };
  static const Reply overloaded = {
    200, NULL, NULL, NULL,
    MESSAGE_START (10)
    TOOL_START (0, "toolu_w", "write_file")
    TOOL_DELTA (0, "{\\\"pa")
    "event: error\n"
    "data: " ERROR_BODY ("overloaded_error", "Overloaded") "\n\n",
    0, END_COMPLETE, 0
  };
  /* Ended cleanly, but inside the tool call: no message_stop. */
  static const Reply ended = {
    200, NULL, NULL, NULL,
    MESSAGE_START (10)
    TOOL_START (0, "toolu_w", "write_file")
    TOOL_DELTA (0, "{\\\"pa"),
    5, END_COMPLETE, 0
  };
  static const Reply good = { 200, NULL, NULL, NULL, stream, 0, END_COMPLETE, 0 };
  const Reply *replies[] = { &dropped, &overloaded, &ended };
  Reply cut_in_tool = dropped;

  /* Cut inside the first input fragment, after tool-use-start went out. */
  cut_in_tool.stop_at = strstr (stream, "\\\"par") - stream;
  replies[0] = &cut_in_tool;

  for (guint i = 0; i < G_N_ELEMENTS (replies); i++)
    {
      g_autoptr(WardenLlmResponse) response = NULL;
      g_autoptr(GError) error = NULL;
      const WardenLlmBlock *block;
      Run run;

      g_queue_clear (&fixture->replies);
      g_ptr_array_set_size (fixture->requests, 0);
      fixture_script (fixture, replies[i]);
      fixture_script (fixture, &good);
      run_init (&run);

      response = run_complete (fixture, &run, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (fixture->requests->len, ==, 2);
      g_assert_cmpuint (run.retries->len, ==, 1);
      /* The cut attempt's call was shown, then the retry's. */
      g_assert_cmpuint (run.tool_starts->len, ==, 2);
      block = warden_llm_message_get_block (response->message, 1);
      g_assert_cmpstr (block->tool_name, ==, "write_file");
      g_assert_null (block->tool_input_error);
      g_assert_cmpstr (json_object_get_string_member (json_node_get_object (block->tool_input),
                                                      "content"), ==, "partial");

      run_clear (&run);
    }
}

/* The model wrote input that is not JSON: the answer comes back all the
 * same, with the call marked, so that the model can be told. */
static void
test_stream_bad_tool_json (Fixture       *fixture,
                           gconstpointer  user_data)
{
  static const Reply reply = {
    200, NULL, NULL, NULL,
    MESSAGE_START (10)
    TOOL_START (0, "toolu_x", "run_command")
    TOOL_DELTA (0, "{\\\"command\\\": \\\"ls\\\" ")
    TOOL_DELTA (0, "\\\"-la\\\"}")
    BLOCK_STOP (0)
    TOOL_START (1, "toolu_y", "read_file")
    TOOL_DELTA (1, "[\\\"README.md\\\"]")
    BLOCK_STOP (1)
    MESSAGE_END ("tool_use", 30),
    2, END_COMPLETE, 0
  };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  const WardenLlmBlock *block;
  Run run;

  fixture_script (fixture, &reply);
  run_init (&run);

  response = run_complete (fixture, &run, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (response);
  g_assert_cmpstr (response->stop_reason, ==, "tool_use");
  g_assert_cmpuint (fixture->requests->len, ==, 1);
  g_assert_cmpuint (run.retries->len, ==, 0);
  g_assert_true (warden_llm_message_has_tool_use (response->message));
  g_assert_cmpuint (warden_llm_message_get_n_blocks (response->message), ==, 2);

  block = warden_llm_message_get_block (response->message, 0);
  g_test_message ("%s", block->tool_input_error);
  g_assert_cmpstr (block->tool_use_id, ==, "toolu_x");
  g_assert_null (block->tool_input);
  g_assert_cmpstr (block->tool_input_text, ==, "{\"command\": \"ls\" \"-la\"}");
  g_assert_true (g_str_has_prefix (block->tool_input_error, "the arguments are not valid JSON: "));
  /* json-glib's line and column of the mistake. */
  g_assert_nonnull (strstr (block->tool_input_error, ":1:"));

  block = warden_llm_message_get_block (response->message, 1);
  g_assert_null (block->tool_input);
  g_assert_cmpstr (block->tool_input_text, ==, "[\"README.md\"]");
  g_assert_true (g_str_has_prefix (block->tool_input_error, "the arguments are not a JSON object"));

  run_clear (&run);
}

/* max_tokens came in the middle of the input: the call says it was cut. */
static void
test_stream_tool_input_cut_by_max_tokens (Fixture       *fixture,
                                          gconstpointer  user_data)
{
  static const Reply reply = {
    200, NULL, NULL, NULL,
    MESSAGE_START (10)
    TEXT_START (0)
    TEXT_DELTA (0, "Here is the file.")
    BLOCK_STOP (0)
    TOOL_START (1, "toolu_m", "write_file")
    TOOL_DELTA (1, "{\\\"path\\\": \\\"big.txt\\\", \\\"content\\\": \\\"line 1\\\\n")
    BLOCK_STOP (1)
    MESSAGE_END ("max_tokens", 8192),
    3, END_COMPLETE, 0
  };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  const WardenLlmBlock *block;
  Run run;

  fixture_script (fixture, &reply);
  run_init (&run);

  response = run_complete (fixture, &run, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (response->stop_reason, ==, "max_tokens");
  g_assert_cmpuint (run.retries->len, ==, 0);

  block = warden_llm_message_get_block (response->message, 1);
  g_assert_cmpint (block->type, ==, WARDEN_LLM_BLOCK_TOOL_USE);
  g_assert_cmpstr (block->tool_use_id, ==, "toolu_m");
  g_assert_null (block->tool_input);
  g_assert_cmpstr (block->tool_input_error, ==,
                   "the arguments were cut off: the answer reached max_tokens");
  g_assert_cmpstr (block->tool_input_text, ==,
                   "{\"path\": \"big.txt\", \"content\": \"line 1\\n");

  run_clear (&run);
}

static void
test_error_bad_event_json (Fixture       *fixture,
                           gconstpointer  user_data)
{
  static const Reply reply = {
    200, NULL, NULL, NULL,
    MESSAGE_START (10)
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":0,\n\n",
    0, END_COMPLETE, 0
  };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  Run run;

  fixture_script (fixture, &reply);
  run_init (&run);

  response = run_complete (fixture, &run, NULL, &error);
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_BAD_RESPONSE);
  g_assert_nonnull (strstr (error->message, "content_block_start"));
  g_assert_cmpuint (run.retries->len, ==, 0);

  run_clear (&run);
}

static void
test_error_not_a_stream (Fixture       *fixture,
                         gconstpointer  user_data)
{
  static const Reply portal = {
    200, "text/html", NULL, NULL, "<html><body>Sign in to the Wi-Fi</body></html>",
    0, END_COMPLETE, 0
  };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GError) error = NULL;
  Run run;

  fixture_script (fixture, &portal);
  run_init (&run);

  response = run_complete (fixture, &run, NULL, &error);
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_BAD_RESPONSE);
  g_assert_nonnull (strstr (error->message, "ANTHROPIC_BASE_URL"));
  g_assert_cmpuint (run.retries->len, ==, 0);

  run_clear (&run);
}

/* ------------------------------------------------------------------------ */
/* Cancellation */

static void
test_cancel_mid_stream (Fixture       *fixture,
                        gconstpointer  user_data)
{
  /* The server stops sending after the first delta and never ends. */
  static const Reply stall = {
    200, NULL, NULL, NULL, hello_stream, 16, END_STALL, 0
  };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  Reply reply = stall;
  Run run;

  reply.stop_at = strstr (hello_stream, ", world") - hello_stream;
  fixture_script (fixture, &reply);
  run_init (&run);
  run.cancel_on_delta = cancellable;

  response = run_complete (fixture, &run, cancellable, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (response);
  g_assert_cmpstr (run.text->str, ==, "Hello");
  g_test_message ("Stopped %.3f s after the cancel",
                  (run.completed_at - run.cancelled_at) / (double) G_USEC_PER_SEC);
  g_assert_cmpuint (run.retries->len, ==, 0);

  run_clear (&run);
}

static void
test_cancel_during_backoff (Fixture       *fixture,
                            gconstpointer  user_data)
{
  static const Reply busy = {
    529, "application/json", "retry-after", "30",
    ERROR_BODY ("overloaded_error", "Overloaded"),
    0, END_COMPLETE, 0
  };
  g_autoptr(WardenLlmResponse) response = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  Run run;

  fixture_script (fixture, &busy);
  run_init (&run);
  run.cancel_on_retry = cancellable;

  response = run_complete (fixture, &run, cancellable, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (run.retries->len, ==, 1);
  g_assert_cmpuint (g_array_index (run.retries, Retry, 0).delay_ms, ==, 30000);
  /* Without the cancel the wait would last 30 s, and a second request follow. */
  g_test_message ("Stopped %.3f s after the cancel",
                  (run.completed_at - run.cancelled_at) / (double) G_USEC_PER_SEC);
  g_assert_cmpuint (fixture->requests->len, ==, 1);

  run_clear (&run);
}

/* ------------------------------------------------------------------------ */
/* Messages */

static void
test_message_round_trip (void)
{
  g_autoptr(WardenLlmMessage) assistant = warden_llm_message_new (WARDEN_LLM_ROLE_ASSISTANT);
  g_autoptr(WardenLlmMessage) user = warden_llm_message_new (WARDEN_LLM_ROLE_USER);
  g_autoptr(WardenLlmMessage) copy = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonNode) copy_node = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  g_autofree char *copy_json = NULL;
  g_autofree char *text = NULL;
  const WardenLlmBlock *block;

  g_assert_true (json_parser_load_from_data (parser,
                                             "{\"command\":\"ls -la\",\"env\":{\"A\":\"é\\n\"},"
                                             "\"n\":[1,2.5,true,null]}", -1, NULL));
  warden_llm_message_add_text (assistant, "Listing ");
  warden_llm_message_add_tool_use (assistant, "toolu_9", "run_command",
                                   json_parser_get_root (parser));
  warden_llm_message_add_text (assistant, "the files.");
  g_assert_true (warden_llm_message_has_tool_use (assistant));
  text = warden_llm_message_dup_text (assistant);
  g_assert_cmpstr (text, ==, "Listing the files.");

  node = warden_llm_message_to_json (assistant);
  json = json_to_string (node, FALSE);
  g_assert_cmpstr (json, ==,
                   "{\"role\":\"assistant\",\"content\":["
                   "{\"type\":\"text\",\"text\":\"Listing \"},"
                   "{\"type\":\"tool_use\",\"id\":\"toolu_9\",\"name\":\"run_command\","
                   "\"input\":{\"command\":\"ls -la\",\"env\":{\"A\":\"é\\n\"},"
                   "\"n\":[1,2.5,true,null]}},"
                   "{\"type\":\"text\",\"text\":\"the files.\"}]}");

  /* Through text, as the session store keeps it. */
  g_assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  copy = warden_llm_message_new_from_json (json_parser_get_root (parser), &error);
  g_assert_no_error (error);
  copy_node = warden_llm_message_to_json (copy);
  copy_json = json_to_string (copy_node, FALSE);
  g_assert_cmpstr (copy_json, ==, json);
  g_assert_cmpint (warden_llm_message_get_role (copy), ==, WARDEN_LLM_ROLE_ASSISTANT);
  g_assert_cmpuint (warden_llm_message_get_n_blocks (copy), ==, 3);
  block = warden_llm_message_get_block (copy, 1);
  g_assert_cmpstr (block->tool_name, ==, "run_command");
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (block->tool_input),
                                                  "command"), ==, "ls -la");

  warden_llm_message_add_tool_result (user, "toolu_9", "total 0\n", TRUE);
  warden_llm_message_add_tool_result (user, "toolu_8", "", FALSE);
  g_clear_pointer (&node, json_node_unref);
  g_clear_pointer (&json, g_free);
  node = warden_llm_message_to_json (user);
  json = json_to_string (node, FALSE);
  g_assert_cmpstr (json, ==,
                   "{\"role\":\"user\",\"content\":["
                   "{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_9\","
                   "\"content\":\"total 0\\n\","
                   "\"is_error\":true},"
                   "{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_8\",\"content\":\"\","
                   "\"is_error\":false}]}");
  g_clear_pointer (&copy, warden_llm_message_unref);
  copy = warden_llm_message_new_from_json (node, &error);
  g_assert_no_error (error);
  block = warden_llm_message_get_block (copy, 0);
  g_assert_cmpint (block->type, ==, WARDEN_LLM_BLOCK_TOOL_RESULT);
  g_assert_cmpstr (block->tool_use_id, ==, "toolu_9");
  g_assert_cmpstr (block->text, ==, "total 0\n");
  g_assert_true (block->is_error);
  g_assert_false (warden_llm_message_get_block (copy, 1)->is_error);
  g_assert_false (warden_llm_message_has_tool_use (copy));

  /* The boxed type refcounts. */
  g_assert_true (g_boxed_copy (WARDEN_TYPE_LLM_MESSAGE, copy) == copy);
  g_boxed_free (WARDEN_TYPE_LLM_MESSAGE, copy);
}

/* A call whose input could not be read keeps saying so once stored. */
static void
test_message_bad_tool_use_round_trip (void)
{
  g_autoptr(WardenLlmMessage) message = warden_llm_message_new (WARDEN_LLM_ROLE_ASSISTANT);
  g_autoptr(WardenLlmMessage) copy = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  const WardenLlmBlock *block;
  JsonObject *object;

  warden_llm_message_add_bad_tool_use (message, "toolu_c", "write_file",
                                       "{\"path\": \"a.txt\", \"content\": \"hal",
                                       "the arguments were cut off");
  block = warden_llm_message_get_block (message, 0);
  g_assert_true (warden_llm_message_has_tool_use (message));
  g_assert_cmpint (block->type, ==, WARDEN_LLM_BLOCK_TOOL_USE);
  g_assert_null (block->tool_input);
  g_assert_cmpstr (block->tool_input_error, ==, "the arguments were cut off");

  /* Still the API's shape: an input object, empty. */
  node = warden_llm_message_to_json (message);
  object = json_array_get_object_element (
    json_object_get_array_member (json_node_get_object (node), "content"), 0);
  g_assert_cmpuint (json_object_get_size (json_object_get_object_member (object, "input")), ==, 0);

  /* Through text, as the session store keeps it. */
  json = json_to_string (node, FALSE);
  g_assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  copy = warden_llm_message_new_from_json (json_parser_get_root (parser), &error);
  g_assert_no_error (error);
  block = warden_llm_message_get_block (copy, 0);
  g_assert_cmpstr (block->tool_use_id, ==, "toolu_c");
  g_assert_cmpstr (block->tool_name, ==, "write_file");
  g_assert_null (block->tool_input);
  g_assert_cmpstr (block->tool_input_error, ==, "the arguments were cut off");
  g_assert_cmpstr (block->tool_input_text, ==, "{\"path\": \"a.txt\", \"content\": \"hal");

  /* A good call has no error. */
  g_clear_pointer (&copy, warden_llm_message_unref);
  g_assert_true (json_parser_load_from_data (parser,
                                             "{\"role\":\"assistant\",\"content\":[{\"type\":"
                                             "\"tool_use\",\"id\":\"t\",\"name\":\"n\","
                                             "\"input\":{\"a\":1}}]}", -1, NULL));
  copy = warden_llm_message_new_from_json (json_parser_get_root (parser), &error);
  g_assert_no_error (error);
  block = warden_llm_message_get_block (copy, 0);
  g_assert_nonnull (block->tool_input);
  g_assert_null (block->tool_input_error);
  g_assert_null (block->tool_input_text);
}

static void
test_message_from_json_forms (void)
{
  static const char *good[] = {
    /* The API's shorthand and forms the session store may meet. */
    "{\"role\":\"user\",\"content\":\"plain text\"}",
    "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t\","
    "\"content\":[{\"type\":\"text\",\"text\":\"a\"},{\"type\":\"text\",\"text\":\"b\"}]}]}",
    "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"n\"}]}",
  };
  static const char *bad[] = {
    "[]",
    "{\"role\":\"system\",\"content\":[]}",
    "{\"content\":[]}",
    "{\"role\":\"user\"}",
    "{\"role\":\"user\",\"content\":[{\"type\":\"image\"}]}",
    "{\"role\":\"user\",\"content\":[{\"type\":\"text\"}]}",
    "{\"role\":\"user\",\"content\":[42]}",
    "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t\"}]}",
    "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"n\","
    "\"input\":[1]}]}",
    "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"content\":\"x\"}]}",
    "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t\","
    "\"is_error\":\"yes\"}]}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(WardenLlmMessage) message = NULL;
      g_autoptr(GError) error = NULL;

      g_assert_true (json_parser_load_from_data (parser, good[i], -1, NULL));
      message = warden_llm_message_new_from_json (json_parser_get_root (parser), &error);
      g_assert_no_error (error);
      g_assert_cmpuint (warden_llm_message_get_n_blocks (message), ==, 1);
    }

  {
    g_autoptr(JsonParser) parser = json_parser_new ();
    g_autoptr(WardenLlmMessage) message = NULL;
    const WardenLlmBlock *block;

    g_assert_true (json_parser_load_from_data (parser, good[1], -1, NULL));
    message = warden_llm_message_new_from_json (json_parser_get_root (parser), NULL);
    g_assert_cmpstr (warden_llm_message_get_block (message, 0)->text, ==, "ab");

    g_assert_true (json_parser_load_from_data (parser, good[2], -1, NULL));
    g_clear_pointer (&message, warden_llm_message_unref);
    message = warden_llm_message_new_from_json (json_parser_get_root (parser), NULL);
    block = warden_llm_message_get_block (message, 0);
    /* A tool use always has an input object. */
    g_assert_true (JSON_NODE_HOLDS_OBJECT (block->tool_input));
  }

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(WardenLlmMessage) message = NULL;
      g_autoptr(GError) error = NULL;

      g_assert_true (json_parser_load_from_data (parser, bad[i], -1, NULL));
      message = warden_llm_message_new_from_json (json_parser_get_root (parser), &error);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      g_assert_null (message);
    }
}

/* ------------------------------------------------------------------------ */
/* From the environment. These run first: g_setenv() is only safe before
 * libsoup and GTask have started threads. */

static void
unset_provider_env (void)
{
  g_unsetenv ("ANTHROPIC_API_KEY");
  g_unsetenv ("ANTHROPIC_BASE_URL");
  g_unsetenv ("OPENAI_API_KEY");
  g_unsetenv ("OPENAI_BASE_URL");
}

static void
test_env_not_configured (void)
{
  g_autoptr(WardenLlmProvider) provider = NULL;
  g_autoptr(GError) error = NULL;

  unset_provider_env ();

  provider = warden_llm_provider_new_from_env (NULL, NULL, NULL, &error);
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED);
  g_assert_null (provider);
  g_assert_nonnull (strstr (error->message, "ANTHROPIC_API_KEY"));
  g_assert_nonnull (strstr (error->message, "OPENAI_API_KEY"));
  g_clear_error (&error);

  provider = warden_llm_provider_new_from_env ("anthropic", NULL, NULL, &error);
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED);
  g_assert_nonnull (strstr (error->message, "ANTHROPIC_API_KEY"));
  g_clear_error (&error);

  provider = warden_llm_provider_new_from_env ("openai", NULL, NULL, &error);
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED);
  g_assert_nonnull (strstr (error->message, "OPENAI_API_KEY"));
  g_clear_error (&error);

  /* An empty variable is an unset one. */
  g_setenv ("ANTHROPIC_API_KEY", "", TRUE);
  provider = warden_llm_provider_new_from_env (NULL, NULL, NULL, &error);
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED);
  g_clear_error (&error);

  provider = warden_llm_provider_new_from_env ("gemini", NULL, NULL, &error);
  g_assert_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED);
  g_assert_nonnull (strstr (error->message, "gemini"));

  unset_provider_env ();
}

static void
test_env_anthropic (void)
{
  g_autoptr(WardenLlmProvider) provider = NULL;
  g_autoptr(WardenLlmProvider) other = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  GParamSpec *pspec;

  unset_provider_env ();
  g_setenv ("ANTHROPIC_API_KEY", TEST_KEY, TRUE);
  g_setenv ("ANTHROPIC_BASE_URL", "http://proxy.example:8080/", TRUE);
  /* Anthropic wins when both are there. */
  g_setenv ("OPENAI_API_KEY", "sk-openai-test", TRUE);

  provider = warden_llm_provider_new_from_env (NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (WARDEN_IS_ANTHROPIC_PROVIDER (provider));
  g_assert_cmpstr (warden_llm_provider_get_name (provider), ==, "anthropic");
  g_assert_cmpstr (warden_llm_provider_get_model (provider), ==, WARDEN_ANTHROPIC_DEFAULT_MODEL);
  g_assert_cmpstr (warden_llm_provider_get_base_url (provider), ==, "http://proxy.example:8080");
  g_object_get (provider, "name", &name, NULL);
  g_assert_cmpstr (name, ==, "anthropic");

  /* The key can be given but never read back. */
  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (provider), "api-key");
  g_assert_nonnull (pspec);
  g_assert_false (pspec->flags & G_PARAM_READABLE);
  g_assert_true (pspec->flags & G_PARAM_CONSTRUCT_ONLY);

  /* Overrides win over the environment. */
  other = warden_llm_provider_new_from_env ("anthropic", "claude-opus-4-1",
                                            "https://other.example", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (warden_llm_provider_get_model (other), ==, "claude-opus-4-1");
  g_assert_cmpstr (warden_llm_provider_get_base_url (other), ==, "https://other.example");
  g_clear_object (&other);

  /* Without ANTHROPIC_BASE_URL, the API itself. */
  g_unsetenv ("ANTHROPIC_BASE_URL");
  other = warden_llm_provider_new_from_env (NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (warden_llm_provider_get_base_url (other), ==,
                   WARDEN_ANTHROPIC_DEFAULT_BASE_URL);
  g_clear_object (&other);

  /* Only OpenAI-compatible settings: the openai provider. */
  unset_provider_env ();
  g_setenv ("OPENAI_BASE_URL", "http://localhost:11434/v1", TRUE);
  other = warden_llm_provider_new_from_env (NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (warden_llm_provider_get_name (other), ==, "openai");

  unset_provider_env ();
}

int
main (int   argc,
      char *argv[])
{
  /* Before anything can start a thread, and before the first retry reads it. */
  g_setenv ("WARDEN_LLM_RETRY_BASE_MS", "1", TRUE);
  unset_provider_env ();

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/llm/anthropic/env/not-configured", test_env_not_configured);
  g_test_add_func ("/llm/anthropic/env/anthropic", test_env_anthropic);

  g_test_add_func ("/llm/message/round-trip", test_message_round_trip);
  g_test_add_func ("/llm/message/from-json-forms", test_message_from_json_forms);
  g_test_add_func ("/llm/message/bad-tool-use-round-trip", test_message_bad_tool_use_round_trip);

#define ADD(path, func) \
  g_test_add ("/llm/anthropic/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("stream/one-byte-chunks", test_stream_one_byte_chunks);
  ADD ("stream/request", test_stream_request);
  ADD ("stream/requests-while-redrawing", test_stream_requests_while_redrawing);
  ADD ("stream/request-binary-result", test_stream_request_binary_result);
  ADD ("stream/request-bad-tool-use", test_stream_request_bad_tool_use);
  ADD ("stream/pings", test_stream_pings);
  ADD ("stream/usage", test_stream_usage);
  ADD ("stream/no-usage", test_stream_no_usage);
  ADD ("stream/empty-tool-input", test_stream_empty_tool_input);
  ADD ("retry/overloaded-event", test_retry_overloaded_event);
  ADD ("retry/rate-limited", test_retry_rate_limited);
  ADD ("retry/retry-after", test_retry_after_honoured);
  g_test_add ("/llm/anthropic/retry/retry-after/seconds", Fixture, &retry_after_rows[0],
              fixture_set_up, test_retry_after_row, fixture_tear_down);
  g_test_add ("/llm/anthropic/retry/retry-after/milliseconds", Fixture, &retry_after_rows[1],
              fixture_set_up, test_retry_after_row, fixture_tear_down);
  g_test_add ("/llm/anthropic/retry/retry-after/date", Fixture, &retry_after_rows[2],
              fixture_set_up, test_retry_after_row, fixture_tear_down);
  g_test_add ("/llm/anthropic/retry/retry-after/past-date", Fixture, &retry_after_rows[3],
              fixture_set_up, test_retry_after_row, fixture_tear_down);
  g_test_add ("/llm/anthropic/retry/retry-after/over-cap", Fixture, &retry_after_rows[4],
              fixture_set_up, test_retry_after_row, fixture_tear_down);
  g_test_add ("/llm/anthropic/retry/retry-after/date-over-cap", Fixture, &retry_after_rows[5],
              fixture_set_up, test_retry_after_row, fixture_tear_down);
  ADD ("retry/exhausted", test_retry_exhausted);
  ADD ("retry/network", test_retry_network);
  ADD ("retry/stream-cut", test_retry_stream_cut);
  ADD ("hang/never-answers", test_hang_never_answers);
  ADD ("hang/pings-only", test_hang_pings_only);
  ADD ("hang/answered-on-retry", test_hang_answered_on_retry);
  ADD ("hang/pause-mid-answer", test_hang_pause_mid_answer);
  ADD ("hang/defaults", test_hang_defaults);
  ADD ("error/auth", test_error_auth);
  ADD ("error/unknown-model", test_error_unknown_model);
  ADD ("error/context-too-long", test_error_context_too_long);
  ADD ("error/stream-cut", test_error_stream_cut);
  ADD ("retry/cut-in-tool-use", test_retry_cut_in_tool_use);
  ADD ("stream/bad-tool-json", test_stream_bad_tool_json);
  ADD ("stream/tool-input-cut-by-max-tokens", test_stream_tool_input_cut_by_max_tokens);
  ADD ("error/bad-event-json", test_error_bad_event_json);
  ADD ("error/not-a-stream", test_error_not_a_stream);
  ADD ("cancel/mid-stream", test_cancel_mid_stream);
  ADD ("cancel/during-backoff", test_cancel_during_backoff);

#undef ADD

  return g_test_run ();
}
