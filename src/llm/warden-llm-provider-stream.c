/* warden-llm-provider-stream.c: one attempt of a provider, sent and read
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-llm"

#include <glib/gi18n.h>

#include "warden-llm-provider-private.h"

#include <string.h>

#include "common/warden-json.h"
#include "warden-sse-parser.h"

#define READ_SIZE          (16 * 1024)
#define MAX_ERROR_BODY     (64 * 1024)
#define MAX_WHOLE_ANSWER   (16 * 1024 * 1024)
#define DRAIN_TIMEOUT_S    5

typedef struct
{
  WardenLlmProvider *self;          /* borrowed: the task holds it until it is freed */
  gpointer           answer;        /* the provider's */
  GDestroyNotify     answer_free;
  SoupMessage       *msg;
  GInputStream      *body;
  WardenSseParser   *parser;        /* reading events */
  GByteArray        *whole;         /* reading the body whole: an error, or a JSON answer */
  gsize              whole_limit;
  GError            *event_error;   /* what an event said went wrong */
  gint64             retry_after_ms;
  gboolean           sent;          /* the whole request went out: the server was reached */
  gboolean           done;          /* the answer said it was complete */
  gboolean           eof;           /* the body was read to its end */

  /* The caller's cancel, or the watch's: what every operation is given. */
  GCancellable      *cancellable;
  GSource           *caller_source; /* passes the caller's cancel on */
  GSource           *watch_source;  /* the notices and the idle timeout */
  gint64             last_content;  /* monotonic: the start, or the last of the answer */
  guint              notices;       /* "waiting" emitted since then */
  guint              notice_s;      /* "waiting-notice" when the attempt began */
  guint              idle_timeout_s;
  gboolean           timed_out;     /* the watch cancelled */
} Attempt;

/* Closing a response body reads the rest of it, blocking, so that the
 * connection can serve again. An answer left before its end (an error in
 * the middle, a cancel) is closed with a cancelled GCancellable instead:
 * libsoup then drops the connection at once rather than block the main
 * loop on the server. */
static void
attempt_abandon_body (Attempt *attempt)
{
  g_autoptr(GCancellable) cancelled = NULL;

  if (attempt->body == NULL || attempt->eof || g_input_stream_is_closed (attempt->body))
    return;

  cancelled = g_cancellable_new ();
  g_cancellable_cancel (cancelled);
  g_input_stream_close (attempt->body, cancelled, NULL);
}

void
warden_llm_clear_source (GSource **source)
{
  if (*source != NULL)
    {
      g_source_destroy (*source);
      g_clear_pointer (source, g_source_unref);
    }
}

static gboolean
forward_cancel_cb (GCancellable *cancellable,
                   gpointer      user_data)
{
  g_cancellable_cancel (G_CANCELLABLE (user_data));

  return G_SOURCE_REMOVE;
}

GSource *
warden_llm_forward_cancel (GCancellable *cancellable,
                           GCancellable *target,
                           GMainContext *context)
{
  GSource *source = g_cancellable_source_new (cancellable);

  g_source_set_callback (source, G_SOURCE_FUNC (forward_cancel_cb),
                         g_object_ref (target), g_object_unref);
  g_source_set_static_name (source, "[warden] llm cancel forwarded");
  g_source_attach (source, context);

  return source;
}

static void
attempt_free (gpointer data)
{
  Attempt *attempt = data;

  warden_llm_clear_source (&attempt->watch_source);
  warden_llm_clear_source (&attempt->caller_source);
  attempt_abandon_body (attempt);
  g_clear_object (&attempt->cancellable);
  if (attempt->msg != NULL)
    g_signal_handlers_disconnect_by_data (attempt->msg, attempt);
  /* Not through attempt->self: the task may have dropped it already. */
  if (attempt->answer != NULL)
    attempt->answer_free (attempt->answer);
  g_clear_object (&attempt->msg);
  g_clear_object (&attempt->body);
  g_clear_pointer (&attempt->parser, warden_sse_parser_free);
  g_clear_pointer (&attempt->whole, g_byte_array_unref);
  g_clear_error (&attempt->event_error);
  g_free (attempt);
}

/* After the end of the answer only the end of the body is left. Reading it
 * lets the connection serve the next request (closing the stream early
 * would drop it), without making the answer wait: it is read in the
 * background, for DRAIN_TIMEOUT_S at most, for a server that keeps the
 * answer open after its end. */
typedef struct
{
  GInputStream *body;
  GCancellable *cancellable;
  GSource      *timeout_source;
} Drain;

static void
drain_free (Drain *drain)
{
  g_source_destroy (drain->timeout_source);
  g_source_unref (drain->timeout_source);
  g_object_unref (drain->cancellable);
  g_object_unref (drain->body);
  g_free (drain);
}

static gboolean
drain_timeout_cb (gpointer user_data)
{
  Drain *drain = user_data;

  g_cancellable_cancel (drain->cancellable);

  return G_SOURCE_REMOVE;
}

static void
drain_skipped_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Drain *drain = user_data;
  gssize skipped;

  skipped = g_input_stream_skip_finish (drain->body, result, NULL);
  if (skipped > 0)
    {
      g_input_stream_skip_async (drain->body, READ_SIZE, G_PRIORITY_DEFAULT, drain->cancellable,
                                 drain_skipped_cb, drain);
      return;
    }

  /* At the end, or given up on: a cancelled close drops the connection. */
  if (skipped < 0)
    {
      g_cancellable_cancel (drain->cancellable);
      g_input_stream_close (drain->body, drain->cancellable, NULL);
    }
  drain_free (drain);
}

static void
attempt_drain_body (Attempt *attempt)
{
  Drain *drain;

  if (attempt->body == NULL || attempt->eof || g_input_stream_is_closed (attempt->body))
    return;

  drain = g_new0 (Drain, 1);
  drain->body = g_steal_pointer (&attempt->body);
  drain->cancellable = g_cancellable_new ();
  drain->timeout_source = g_timeout_source_new_seconds (DRAIN_TIMEOUT_S);
  g_source_set_callback (drain->timeout_source, drain_timeout_cb, drain, NULL);
  g_source_set_static_name (drain->timeout_source, "[warden] llm drain timeout");
  g_source_attach (drain->timeout_source, g_main_context_get_thread_default ());

  g_input_stream_skip_async (drain->body, READ_SIZE, G_PRIORITY_DEFAULT, drain->cancellable,
                             drain_skipped_cb, drain);
}

/* retry-after-ms (the APIs' own), else retry-after in seconds or as an
 * HTTP date; -1 when the server does not say, or says nonsense. */
static gint64
parse_retry_after (SoupMessageHeaders *headers)
{
  const char *value;
  char *end = NULL;
  double number;

  value = soup_message_headers_get_one (headers, "retry-after-ms");
  if (value != NULL)
    {
      number = g_ascii_strtod (value, &end);
      if (end != value && *end == '\0' && number >= 0)
        return (gint64) MIN (number, (double) G_MAXINT32);
    }

  value = soup_message_headers_get_one (headers, "retry-after");
  if (value != NULL)
    {
      g_autoptr(GDateTime) date = NULL;

      number = g_ascii_strtod (value, &end);
      if (end != value && *end == '\0' && number >= 0)
        return (gint64) MIN (number * 1000, (double) G_MAXINT32);

      date = soup_date_time_new_from_http_string (value);
      if (date != NULL)
        {
          g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
          GTimeSpan span = g_date_time_difference (date, now);

          return CLAMP (span / 1000, 0, G_MAXINT32);
        }
    }

  return -1;
}

/* The watch: nothing of the answer for a while */

static void
attempt_schedule_watch (Attempt *attempt)
{
  gint64 next = G_MAXINT64;

  if (attempt->idle_timeout_s > 0)
    next = attempt->last_content + (gint64) attempt->idle_timeout_s * G_USEC_PER_SEC;
  if (attempt->notice_s > 0)
    next = MIN (next, attempt->last_content +
                      (gint64) (attempt->notices + 1) * attempt->notice_s * G_USEC_PER_SEC);

  g_source_set_ready_time (attempt->watch_source, next == G_MAXINT64 ? -1 : next);
}

static gboolean
watch_cb (gpointer user_data)
{
  /* A handler may end the attempt: keep it until this returns. */
  g_autoptr(GTask) task = g_object_ref (user_data);
  Attempt *attempt = g_task_get_task_data (task);
  gint64 quiet = g_get_monotonic_time () - attempt->last_content;
  guint64 quiet_s = quiet / G_USEC_PER_SEC;

  g_source_set_ready_time (attempt->watch_source, -1);

  /* Told first, even when the timer comes late on a busy machine. */
  if (attempt->notice_s > 0 && quiet_s >= (guint64) (attempt->notices + 1) * attempt->notice_s &&
      (attempt->idle_timeout_s == 0 || attempt->notices == 0 || quiet_s < attempt->idle_timeout_s))
    {
      attempt->notices = MIN (quiet_s / attempt->notice_s, G_MAXUINT);
      warden_llm_provider_emit_waiting (attempt->self,
                                        MIN ((guint64) attempt->notices * attempt->notice_s,
                                             G_MAXUINT));
      if (attempt->watch_source == NULL || g_cancellable_is_cancelled (attempt->cancellable))
        return G_SOURCE_CONTINUE;
    }

  if (attempt->idle_timeout_s > 0 && quiet_s >= attempt->idle_timeout_s)
    {
      g_debug ("%s: nothing for %u s: the attempt is given up on",
               warden_llm_provider_get_base_url (attempt->self), attempt->idle_timeout_s);
      attempt->timed_out = TRUE;
      g_cancellable_cancel (attempt->cancellable);
      return G_SOURCE_CONTINUE;
    }

  attempt_schedule_watch (attempt);
  return G_SOURCE_CONTINUE;
}

static gboolean
watch_dispatch (GSource     *source,
                GSourceFunc  callback,
                gpointer     user_data)
{
  return callback (user_data);
}

static GSourceFuncs watch_funcs = { NULL, NULL, watch_dispatch, NULL, NULL, NULL };

/* Part of the answer came: the model is at work. */
static void
attempt_note_content (Attempt *attempt)
{
  gboolean was_waiting = attempt->notices > 0;

  attempt->last_content = g_get_monotonic_time ();
  attempt->notices = 0;
  if (attempt->watch_source != NULL)
    attempt_schedule_watch (attempt);

  /* The front ends can take the notice down. */
  if (was_waiting)
    warden_llm_provider_emit_waiting (attempt->self, 0);
}

static void
attempt_start_watch (GTask *task)
{
  Attempt *attempt = g_task_get_task_data (task);
  GCancellable *caller = g_task_get_cancellable (task);

  attempt->cancellable = g_cancellable_new ();
  if (caller != NULL)
    attempt->caller_source = warden_llm_forward_cancel (caller, attempt->cancellable,
                                                        g_task_get_context (task));

  attempt->notice_s = warden_llm_provider_get_waiting_notice (attempt->self);
  attempt->idle_timeout_s = warden_llm_provider_get_idle_timeout (attempt->self);
  attempt->last_content = g_get_monotonic_time ();
  attempt->watch_source = g_source_new (&watch_funcs, sizeof (GSource));
  g_source_set_callback (attempt->watch_source, watch_cb, task, NULL);
  g_source_set_static_name (attempt->watch_source, "[warden] llm attempt watch");
  g_source_attach (attempt->watch_source, g_task_get_context (task));
  attempt_schedule_watch (attempt);
}

static void
wrote_body_cb (SoupMessage *msg,
               Attempt     *attempt)
{
  attempt->sent = TRUE;
}

/* Before any answer: @sent says whether the request had gone out whole,
 * which a model that could not be reached never takes. */
static GError *
transport_error (WardenLlmProvider *self,
                 const GError      *error,
                 gboolean           sent)
{
  const char *base_url = warden_llm_provider_get_base_url (self);

  /* A certificate problem does not go away by trying again. */
  if (error->domain == G_TLS_ERROR)
    return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_FAILED,
                        _("Could not make a secure connection to %s: %s"),
                        base_url, error->message);

  if (sent)
    return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_STREAM_CUT,
                        /* Translators: a URL, and what went wrong */
                        _("The model at %s took the request, but the connection broke "
                          "before it answered: %s"),
                        base_url, error->message);

  return g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NETWORK,
                      /* Translators: a URL, what went wrong, and the environment
                       * variable that sets the URL (ANTHROPIC_BASE_URL) */
                      _("Could not reach the model at %s: %s (check the network, or %s)"),
                      base_url, error->message,
                      WARDEN_LLM_PROVIDER_GET_CLASS (self)->base_url_variable);
}

/* Every end of an attempt comes through here or attempt_return_response(). */
static void
attempt_return_error (GTask  *task,
                      GError *error)
{
  Attempt *attempt = g_task_get_task_data (task);

  warden_llm_clear_source (&attempt->watch_source);
  warden_llm_clear_source (&attempt->caller_source);

  /* Cancelled by the watch, not by the caller: a model that stopped
   * answering, which is worth another try. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) && attempt->timed_out &&
      !g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    {
      g_clear_error (&error);
      error = g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_TIMED_OUT,
                           /* Translators: a URL, and a number of seconds */
                           _("The model stopped answering: nothing came from %s for %u s"),
                           warden_llm_provider_get_base_url (attempt->self),
                           attempt->idle_timeout_s);
    }

  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_debug ("%s: the attempt failed: %s",
             warden_llm_provider_get_base_url (attempt->self), error->message);
  g_task_return_error (task, error);
}

static void
attempt_return_response (GTask             *task,
                         WardenLlmResponse *response)
{
  Attempt *attempt = g_task_get_task_data (task);

  warden_llm_clear_source (&attempt->watch_source);
  warden_llm_clear_source (&attempt->caller_source);
  g_task_return_pointer (task, response, (GDestroyNotify) warden_llm_response_free);
}

/* A signal handler may have cancelled. */
static gboolean
attempt_return_if_cancelled (GTask *task)
{
  GError *error = NULL;

  if (!g_cancellable_set_error_if_cancelled (g_task_get_cancellable (task), &error))
    return FALSE;

  attempt_return_error (task, error);
  return TRUE;
}

/* The answer is in, or the body ended: build the answer, or say it was cut. */
static void
attempt_complete (GTask        *task,
                  const GError *read_error)
{
  Attempt *attempt = g_task_get_task_data (task);
  WardenLlmProvider *self = attempt->self;
  WardenLlmProviderClass *klass = WARDEN_LLM_PROVIDER_GET_CLASS (self);
  const char *base_url = warden_llm_provider_get_base_url (self);
  WardenLlmResponse *response;
  GError *error = NULL;

  if (!attempt->done && !klass->is_complete (self, attempt->answer))
    {
      if (read_error != NULL)
        error = g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_STREAM_CUT,
                             _("The answer from %s was cut off before its end: %s"),
                             base_url, read_error->message);
      else
        error = g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_STREAM_CUT,
                             _("The answer from %s was cut off before its end (the connection "
                               "closed early)"),
                             base_url);
      attempt_return_error (task, error);
      return;
    }

  response = klass->build_response (self, attempt->answer, &error);
  if (response == NULL)
    {
      attempt_return_error (task, error);
      return;
    }

  attempt_drain_body (attempt);

  g_debug ("%s answered: %s, %u blocks, %" G_GINT64_FORMAT " + %" G_GINT64_FORMAT " tokens",
           base_url, response->stop_reason, warden_llm_message_get_n_blocks (response->message),
           response->input_tokens, response->output_tokens);
  attempt_return_response (task, response);
}

static gboolean
is_json (SoupMessage *msg)
{
  SoupMessageHeaders *headers = soup_message_get_response_headers (msg);

  return g_strcmp0 (soup_message_headers_get_content_type (headers, NULL),
                    "application/json") == 0;
}

/* The whole body is in (or broke, @read_error): an error answer, or an
 * answer that came as one JSON object because the server does not stream. */
static void
attempt_complete_whole (GTask        *task,
                        const GError *read_error)
{
  Attempt *attempt = g_task_get_task_data (task);
  WardenLlmProvider *self = attempt->self;
  WardenLlmProviderClass *klass = WARDEN_LLM_PROVIDER_GET_CLASS (self);
  guint status = soup_message_get_status (attempt->msg);
  g_autoptr(GBytes) body = g_byte_array_free_to_bytes (g_steal_pointer (&attempt->whole));
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  const char *data;
  gsize size;

  /* An error, or neither events nor a JSON answer: for the provider to
   * say what it was. A broken error answer still tells its status. */
  if (!SOUP_STATUS_IS_SUCCESSFUL (status) || !is_json (attempt->msg) || klass->handle_whole == NULL)
    {
      attempt_return_error (task, klass->http_error (self, status, body));
      return;
    }

  if (read_error != NULL)
    {
      attempt_complete (task, read_error);
      return;
    }

  data = g_bytes_get_data (body, &size);
  root = size > 0 ? warden_llm_parse_json (data, size, &error) : NULL;
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      attempt_return_error (task,
                            g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_BAD_RESPONSE,
                                         _("The answer from %s is not a JSON object: %s"),
                                         warden_llm_provider_get_base_url (self),
                                         error ? error->message : _("not an object")));
      return;
    }

  if (!klass->handle_whole (self, attempt->answer, json_node_get_object (root), &error))
    {
      attempt_return_error (task, g_steal_pointer (&error));
      return;
    }

  attempt->done = TRUE;
  attempt_complete (task, NULL);
}

static gboolean
event_cb (const char *event,
          const char *data,
          gpointer    user_data)
{
  GTask *task = user_data;
  Attempt *attempt = g_task_get_task_data (task);
  WardenLlmProvider *self = attempt->self;
  WardenLlmProviderClass *klass = WARDEN_LLM_PROVIDER_GET_CLASS (self);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  WardenLlmEvent kind;

  /* Stop at once: no more signals once the user has pressed stop. */
  if (g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    return FALSE;

  if (data[0] == '\0')
    return TRUE;

  if (klass->done_data != NULL && strcmp (data, klass->done_data) == 0)
    {
      attempt_note_content (attempt);
      attempt->done = TRUE;
      return FALSE;
    }

  root = warden_llm_parse_json (data, -1, &error);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      attempt->event_error = g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_BAD_RESPONSE,
                                          /* Translators: a URL, the name of an event,
                                           * and what json-glib found */
                                          _("The server at %s sent a “%s” event that is not a "
                                            "JSON object: %s"),
                                          warden_llm_provider_get_base_url (self),
                                          event ? event : "message",
                                          error ? error->message : _("not an object"));
      return FALSE;
    }

  kind = klass->handle_event (self, attempt->answer, event, json_node_get_object (root),
                              &attempt->event_error);
  /* Pings and comments keep a connection open, and say nothing of the model. */
  if (kind != WARDEN_LLM_EVENT_KEEP_ALIVE)
    attempt_note_content (attempt);

  switch (kind)
    {
    case WARDEN_LLM_EVENT_CONTENT:
    case WARDEN_LLM_EVENT_KEEP_ALIVE:
      return TRUE;

    case WARDEN_LLM_EVENT_DONE:
      attempt->done = TRUE;
      return FALSE;

    case WARDEN_LLM_EVENT_FAILED:
    default:
      if (attempt->event_error == NULL)
        attempt->event_error = g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_BAD_RESPONSE,
                                            _("The server at %s sent an event that cannot be "
                                              "read"),
                                            warden_llm_provider_get_base_url (self));
      return FALSE;
    }
}

static void read_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data);

static void
read_next (GTask *task)
{
  Attempt *attempt = g_task_get_task_data (task);

  g_input_stream_read_bytes_async (attempt->body, READ_SIZE, G_PRIORITY_DEFAULT,
                                   attempt->cancellable, read_cb, task);
}

static void
read_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Attempt *attempt = g_task_get_task_data (task);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  const char *data;
  gsize size;

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &error);
  if (bytes == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        attempt_return_error (task, g_steal_pointer (&error));
      else if (attempt->whole != NULL)
        attempt_complete_whole (task, error);
      else
        attempt_complete (task, error);
      return;
    }

  data = g_bytes_get_data (bytes, &size);
  if (size == 0)
    attempt->eof = TRUE;

  if (attempt->whole != NULL)
    {
      attempt_note_content (attempt);
      if (size == 0 || attempt->whole->len + size > attempt->whole_limit)
        {
          attempt_complete_whole (task, NULL);
          return;
        }
      g_byte_array_append (attempt->whole, (const guint8 *) data, size);
      read_next (g_steal_pointer (&task));
      return;
    }

  if (size == 0)
    {
      attempt_complete (task, NULL);
      return;
    }

  /* The event handlers emit signals, whose handlers may cancel. */
  if (!warden_sse_parser_feed (attempt->parser, data, size))
    {
      if (attempt_return_if_cancelled (task))
        return;
      if (attempt->event_error != NULL)
        attempt_return_error (task, g_steal_pointer (&attempt->event_error));
      else
        attempt_complete (task, NULL);
      return;
    }

  if (attempt_return_if_cancelled (task))
    return;

  read_next (g_steal_pointer (&task));
}

static void
send_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Attempt *attempt = g_task_get_task_data (task);
  WardenLlmProvider *self = attempt->self;
  const char *base_url = warden_llm_provider_get_base_url (self);
  g_autoptr(GError) error = NULL;
  SoupMessageHeaders *headers;
  const char *content_type;
  guint status;

  attempt->body = soup_session_send_finish (SOUP_SESSION (object), result, &error);
  if (attempt->body == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        attempt_return_error (task, g_steal_pointer (&error));
      else
        attempt_return_error (task, transport_error (self, error, attempt->sent));
      return;
    }

  status = soup_message_get_status (attempt->msg);
  headers = soup_message_get_response_headers (attempt->msg);
  content_type = soup_message_headers_get_content_type (headers, NULL);
  attempt->retry_after_ms = parse_retry_after (headers);

  if (SOUP_STATUS_IS_SUCCESSFUL (status) &&
      (g_strcmp0 (content_type, "text/event-stream") == 0 ||
       (WARDEN_LLM_PROVIDER_GET_CLASS (self)->any_stream_type &&
        g_strcmp0 (content_type, "application/json") != 0)))
    {
      g_debug ("%s streams its answer (%s)", base_url, content_type ? content_type : "no type");
      attempt->parser = warden_sse_parser_new (event_cb, task);
    }
  else
    {
      /* An error, a JSON answer, or a 200 that is neither (a proxy's page). */
      attempt->whole = g_byte_array_new ();
      attempt->whole_limit = SOUP_STATUS_IS_SUCCESSFUL (status) && is_json (attempt->msg)
                             ? MAX_WHOLE_ANSWER : MAX_ERROR_BODY;
      g_debug ("%s answered HTTP %u (%s)", base_url, status,
               content_type ? content_type : "no type");
    }

  read_next (g_steal_pointer (&task));
}

void
warden_llm_provider_attempt_async (WardenLlmProvider   *self,
                                   const char          *system_prompt,
                                   GPtrArray           *messages,
                                   GPtrArray           *tools,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  WardenLlmProviderClass *klass = WARDEN_LLM_PROVIDER_GET_CLASS (self);
  const char *base_url = warden_llm_provider_get_base_url (self);
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GBytes) body = NULL;
  g_autoptr(GUri) uri = NULL;
  g_autofree char *url = NULL;
  char *json;
  Attempt *attempt;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, warden_llm_provider_attempt_async);

  attempt = g_new0 (Attempt, 1);
  attempt->self = self;
  attempt->retry_after_ms = -1;
  attempt->answer = klass->answer_new (self);
  attempt->answer_free = klass->answer_free;
  g_task_set_task_data (task, attempt, attempt_free);

  url = g_strconcat (base_url, klass->request_path, NULL);
  uri = g_uri_parse (url, SOUP_HTTP_URI_FLAGS, NULL);
  if (uri == NULL ||
      (g_strcmp0 (g_uri_get_scheme (uri), "https") != 0 &&
       g_strcmp0 (g_uri_get_scheme (uri), "http") != 0))
    {
      attempt_return_error (task,
                            g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED,
                                         /* Translators: a URL, and the environment
                                          * variable that sets it */
                                         _("The base URL “%s” is not an http or https URL: "
                                           "check %s"),
                                         base_url, klass->base_url_variable));
      return;
    }

  attempt->msg = soup_message_new_from_uri (SOUP_METHOD_POST, uri);
  /* libsoup opens a new connection for each POST unless told it may be
   * sent again; it may: the base class repeats failed requests anyway, and
   * reusing the connection saves a TLS handshake per turn of the agent. */
  soup_message_add_flags (attempt->msg, SOUP_MESSAGE_IDEMPOTENT);
  g_signal_connect (attempt->msg, "wrote-body", G_CALLBACK (wrote_body_cb), attempt);
  soup_message_headers_replace (soup_message_get_request_headers (attempt->msg),
                                "accept", "text/event-stream");
  klass->add_headers (self, soup_message_get_request_headers (attempt->msg));

  /* A tool's output may hold any bytes: the body must be JSON whatever they are. */
  root = klass->build_body (self, system_prompt, messages, tools);
  json = warden_json_to_string (root, FALSE);
  body = g_bytes_new_take (json, strlen (json));
  soup_message_set_request_body_from_bytes (attempt->msg, "application/json", body);

  g_debug ("POST %s: %s, %u messages, %u tools", url, warden_llm_provider_get_model (self),
           messages ? messages->len : 0, tools ? tools->len : 0);

  /* From here on the model has idle-timeout seconds to start answering. */
  attempt_start_watch (task);
  soup_session_send_async (warden_llm_provider_get_session (self), attempt->msg,
                           G_PRIORITY_DEFAULT, attempt->cancellable,
                           send_cb, g_steal_pointer (&task));
}

WardenLlmResponse *
warden_llm_provider_attempt_finish (WardenLlmProvider  *self,
                                    GAsyncResult       *result,
                                    gint64             *retry_after_ms,
                                    GError            **error)
{
  Attempt *attempt;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        warden_llm_provider_attempt_async, NULL);

  attempt = g_task_get_task_data (G_TASK (result));
  if (retry_after_ms != NULL)
    *retry_after_ms = attempt->retry_after_ms;

  return g_task_propagate_pointer (G_TASK (result), error);
}
