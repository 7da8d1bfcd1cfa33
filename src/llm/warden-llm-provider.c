/* warden-llm-provider.c: a model behind an HTTP API, streamed
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-llm"

#include <glib/gi18n.h>

#include "warden-llm-provider.h"

#include <stdlib.h>
#include <string.h>

#include "warden-anthropic-provider.h"
#include "warden-env-keys.h"
#include "warden-llm-provider-private.h"
#include "warden-openai-provider.h"

#define USER_AGENT             "warden/" PACKAGE_VERSION
/* Characters of a server's error message that fit in a dialog. */
#define MAX_SERVER_MESSAGE     400
#define DEFAULT_MAX_RETRIES    5
#define MAX_MAX_RETRIES        100
/* Long enough for a model that reads a long prompt before its first word;
 * the notice tells the user long before. */
#define DEFAULT_WAITING_NOTICE_S  30
#define DEFAULT_IDLE_TIMEOUT_S    120
#define DEFAULT_RETRY_BASE_MS  1000
#define MAX_RETRY_DELAY_MS     30000
/* Waiting longer than the server asked for would hammer it, shorter would
 * be refused again; longer than this is a server saying "not today". */
#define DEFAULT_RETRY_AFTER_CAP_S  600
#define MAX_RETRY_AFTER_CAP_S      (G_MAXUINT / 1000)

typedef struct
{
  char        *name;
  char        *model;
  char        *base_url;
  char        *api_key;
  SoupSession *session;
  guint        waiting_notice_s;
  guint        idle_timeout_s;
  guint        retry_after_cap_s;
  guint        max_retries;
} WardenLlmProviderPrivate;

enum {
  PROP_0,
  PROP_NAME,
  PROP_MODEL,
  PROP_BASE_URL,
  PROP_API_KEY,
  PROP_WAITING_NOTICE,
  PROP_IDLE_TIMEOUT,
  PROP_RETRY_AFTER_CAP,
  PROP_MAX_RETRIES,
  N_PROPS
};

enum {
  TEXT_DELTA,
  TOOL_USE_START,
  RETRYING,
  WAITING,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (WardenLlmProvider, warden_llm_provider, G_TYPE_OBJECT)

G_DEFINE_QUARK (warden-llm-error-quark, warden_llm_error)

static void
warden_llm_provider_dispose (GObject *object)
{
  WardenLlmProvider *self = WARDEN_LLM_PROVIDER (object);
  WardenLlmProviderPrivate *priv = warden_llm_provider_get_instance_private (self);

  g_clear_object (&priv->session);

  G_OBJECT_CLASS (warden_llm_provider_parent_class)->dispose (object);
}

static void
warden_llm_provider_finalize (GObject *object)
{
  WardenLlmProvider *self = WARDEN_LLM_PROVIDER (object);
  WardenLlmProviderPrivate *priv = warden_llm_provider_get_instance_private (self);

  g_free (priv->name);
  g_free (priv->model);
  g_free (priv->base_url);
  if (priv->api_key != NULL)
    {
      /* Do not leave the key lying around in freed memory. */
      memset (priv->api_key, 0, strlen (priv->api_key));
      g_free (priv->api_key);
    }

  G_OBJECT_CLASS (warden_llm_provider_parent_class)->finalize (object);
}

static void
warden_llm_provider_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  WardenLlmProvider *self = WARDEN_LLM_PROVIDER (object);
  WardenLlmProviderPrivate *priv = warden_llm_provider_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, priv->name);
      break;

    case PROP_MODEL:
      g_value_set_string (value, priv->model);
      break;

    case PROP_BASE_URL:
      g_value_set_string (value, priv->base_url);
      break;

    case PROP_WAITING_NOTICE:
      g_value_set_uint (value, priv->waiting_notice_s);
      break;

    case PROP_IDLE_TIMEOUT:
      g_value_set_uint (value, priv->idle_timeout_s);
      break;

    case PROP_RETRY_AFTER_CAP:
      g_value_set_uint (value, priv->retry_after_cap_s);
      break;

    case PROP_MAX_RETRIES:
      g_value_set_uint (value, priv->max_retries);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
warden_llm_provider_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  WardenLlmProvider *self = WARDEN_LLM_PROVIDER (object);
  WardenLlmProviderPrivate *priv = warden_llm_provider_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_NAME:
      priv->name = g_value_dup_string (value);
      break;

    case PROP_MODEL:
      priv->model = g_value_dup_string (value);
      break;

    case PROP_BASE_URL:
      {
        gsize length;

        /* "https://host/v1/" is "https://host/v1": the paths are added after it. */
        priv->base_url = g_value_dup_string (value);
        length = priv->base_url ? strlen (priv->base_url) : 0;
        while (length > 0 && priv->base_url[length - 1] == '/')
          priv->base_url[--length] = '\0';
      }
      break;

    case PROP_API_KEY:
      {
        const char *key = g_value_get_string (value);

        /* An empty key is no key: local servers take none. */
        priv->api_key = (key != NULL && key[0] != '\0') ? g_strdup (key) : NULL;
      }
      break;

    case PROP_WAITING_NOTICE:
      warden_llm_provider_set_waiting_notice (self, g_value_get_uint (value));
      break;

    case PROP_IDLE_TIMEOUT:
      warden_llm_provider_set_idle_timeout (self, g_value_get_uint (value));
      break;

    case PROP_RETRY_AFTER_CAP:
      warden_llm_provider_set_retry_after_cap (self, g_value_get_uint (value));
      break;

    case PROP_MAX_RETRIES:
      warden_llm_provider_set_max_retries (self, g_value_get_uint (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
warden_llm_provider_class_init (WardenLlmProviderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = warden_llm_provider_dispose;
  object_class->finalize = warden_llm_provider_finalize;
  object_class->get_property = warden_llm_provider_get_property;
  object_class->set_property = warden_llm_provider_set_property;

  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL,
                         NULL,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  properties[PROP_MODEL] =
    g_param_spec_string ("model", NULL, NULL,
                         NULL,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  properties[PROP_BASE_URL] =
    g_param_spec_string ("base-url", NULL, NULL,
                         NULL,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  /* Write-only, so that no generic property dump can show it. */
  properties[PROP_API_KEY] =
    g_param_spec_string ("api-key", NULL, NULL,
                         NULL,
                         (G_PARAM_WRITABLE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  /* Seconds without the answer before "waiting"; 0: never. */
  properties[PROP_WAITING_NOTICE] =
    g_param_spec_uint ("waiting-notice", NULL, NULL,
                       0, G_MAXUINT, DEFAULT_WAITING_NOTICE_S,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /* Seconds without the answer before an attempt is given up on; 0: never. */
  properties[PROP_IDLE_TIMEOUT] =
    g_param_spec_uint ("idle-timeout", NULL, NULL,
                       0, G_MAXUINT, DEFAULT_IDLE_TIMEOUT_S,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties[PROP_MAX_RETRIES] =
    g_param_spec_uint ("max-retries", NULL, NULL,
                       0, MAX_MAX_RETRIES, DEFAULT_MAX_RETRIES,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /* Seconds: the longest retry-after Warden waits for; past it, it gives up. */
  properties[PROP_RETRY_AFTER_CAP] =
    g_param_spec_uint ("retry-after-cap", NULL, NULL,
                       0, MAX_RETRY_AFTER_CAP_S, DEFAULT_RETRY_AFTER_CAP_S,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[TEXT_DELTA] =
    g_signal_new ("text-delta",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1,
                  G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);

  signals[TOOL_USE_START] =
    g_signal_new ("tool-use-start",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2,
                  G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE,
                  G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);

  signals[RETRYING] =
    g_signal_new ("retrying",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3,
                  G_TYPE_UINT,
                  G_TYPE_UINT,
                  G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);

  signals[WAITING] =
    g_signal_new ("waiting",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1,
                  G_TYPE_UINT);
}

static void
warden_llm_provider_init (WardenLlmProvider *self)
{
  WardenLlmProviderPrivate *priv = warden_llm_provider_get_instance_private (self);

  priv->waiting_notice_s = DEFAULT_WAITING_NOTICE_S;
  priv->idle_timeout_s = DEFAULT_IDLE_TIMEOUT_S;
  priv->retry_after_cap_s = DEFAULT_RETRY_AFTER_CAP_S;
  priv->max_retries = DEFAULT_MAX_RETRIES;
  /* No socket timeout: "idle-timeout" is the one limit, on what the model
   * sends rather than on bytes, which pings keep flowing. libsoup's own
   * default is 60 s, which cut a model that thinks longer before its first
   * byte whatever the user chose (issue 28); its "idle-timeout" only closes
   * pooled connections that wait for no answer. */
  priv->session = soup_session_new_with_options ("user-agent", USER_AGENT,
                                                 "timeout", 0,
                                                 NULL);
}

const char *
warden_llm_provider_get_name (WardenLlmProvider *self)
{
  WardenLlmProviderPrivate *priv;

  g_return_val_if_fail (WARDEN_IS_LLM_PROVIDER (self), NULL);

  priv = warden_llm_provider_get_instance_private (self);
  return priv->name;
}

const char *
warden_llm_provider_get_model (WardenLlmProvider *self)
{
  WardenLlmProviderPrivate *priv;

  g_return_val_if_fail (WARDEN_IS_LLM_PROVIDER (self), NULL);

  priv = warden_llm_provider_get_instance_private (self);
  return priv->model;
}

const char *
warden_llm_provider_get_base_url (WardenLlmProvider *self)
{
  WardenLlmProviderPrivate *priv;

  g_return_val_if_fail (WARDEN_IS_LLM_PROVIDER (self), NULL);

  priv = warden_llm_provider_get_instance_private (self);
  return priv->base_url;
}

/* The setters of the guint properties */
static void
set_uint_property (WardenLlmProvider *self,
                   guint             *field,
                   guint              value,
                   guint              prop_id)
{
  if (*field == value)
    return;

  *field = value;
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop_id]);
}

guint
warden_llm_provider_get_waiting_notice (WardenLlmProvider *self)
{
  WardenLlmProviderPrivate *priv;

  g_return_val_if_fail (WARDEN_IS_LLM_PROVIDER (self), 0);

  priv = warden_llm_provider_get_instance_private (self);
  return priv->waiting_notice_s;
}

void
warden_llm_provider_set_waiting_notice (WardenLlmProvider *self,
                                        guint              seconds)
{
  WardenLlmProviderPrivate *priv;

  g_return_if_fail (WARDEN_IS_LLM_PROVIDER (self));

  priv = warden_llm_provider_get_instance_private (self);
  set_uint_property (self, &priv->waiting_notice_s, seconds, PROP_WAITING_NOTICE);
}

guint
warden_llm_provider_get_idle_timeout (WardenLlmProvider *self)
{
  WardenLlmProviderPrivate *priv;

  g_return_val_if_fail (WARDEN_IS_LLM_PROVIDER (self), 0);

  priv = warden_llm_provider_get_instance_private (self);
  return priv->idle_timeout_s;
}

void
warden_llm_provider_set_idle_timeout (WardenLlmProvider *self,
                                      guint              seconds)
{
  WardenLlmProviderPrivate *priv;

  g_return_if_fail (WARDEN_IS_LLM_PROVIDER (self));

  priv = warden_llm_provider_get_instance_private (self);
  set_uint_property (self, &priv->idle_timeout_s, seconds, PROP_IDLE_TIMEOUT);
}

guint
warden_llm_provider_get_max_retries (WardenLlmProvider *self)
{
  WardenLlmProviderPrivate *priv;

  g_return_val_if_fail (WARDEN_IS_LLM_PROVIDER (self), 0);

  priv = warden_llm_provider_get_instance_private (self);
  return priv->max_retries;
}

void
warden_llm_provider_set_max_retries (WardenLlmProvider *self,
                                     guint              retries)
{
  WardenLlmProviderPrivate *priv;

  g_return_if_fail (WARDEN_IS_LLM_PROVIDER (self));

  priv = warden_llm_provider_get_instance_private (self);
  set_uint_property (self, &priv->max_retries, MIN (retries, MAX_MAX_RETRIES), PROP_MAX_RETRIES);
}

guint
warden_llm_provider_get_retry_after_cap (WardenLlmProvider *self)
{
  WardenLlmProviderPrivate *priv;

  g_return_val_if_fail (WARDEN_IS_LLM_PROVIDER (self), 0);

  priv = warden_llm_provider_get_instance_private (self);
  return priv->retry_after_cap_s;
}

void
warden_llm_provider_set_retry_after_cap (WardenLlmProvider *self,
                                         guint              seconds)
{
  WardenLlmProviderPrivate *priv;

  g_return_if_fail (WARDEN_IS_LLM_PROVIDER (self));

  priv = warden_llm_provider_get_instance_private (self);
  set_uint_property (self, &priv->retry_after_cap_s, MIN (seconds, MAX_RETRY_AFTER_CAP_S),
                     PROP_RETRY_AFTER_CAP);
}

SoupSession *
warden_llm_provider_get_session (WardenLlmProvider *self)
{
  WardenLlmProviderPrivate *priv;

  g_return_val_if_fail (WARDEN_IS_LLM_PROVIDER (self), NULL);

  priv = warden_llm_provider_get_instance_private (self);
  return priv->session;
}

const char *
warden_llm_provider_get_api_key (WardenLlmProvider *self)
{
  WardenLlmProviderPrivate *priv;

  g_return_val_if_fail (WARDEN_IS_LLM_PROVIDER (self), NULL);

  priv = warden_llm_provider_get_instance_private (self);
  return priv->api_key;
}

char *
warden_llm_provider_redact (WardenLlmProvider *self,
                            const char        *text)
{
  WardenLlmProviderPrivate *priv;
  GString *redacted;

  g_return_val_if_fail (WARDEN_IS_LLM_PROVIDER (self), NULL);

  priv = warden_llm_provider_get_instance_private (self);

  if (text == NULL)
    return NULL;

  redacted = g_string_new (text);
  if (priv->api_key != NULL)
    g_string_replace (redacted, priv->api_key, "[redacted]", 0);

  return g_string_free (redacted, FALSE);
}

char *
warden_llm_provider_tidy_message (WardenLlmProvider *self,
                                  const char        *text)
{
  g_autofree char *valid = NULL;
  g_autofree char *redacted = NULL;
  char *stripped;

  g_return_val_if_fail (WARDEN_IS_LLM_PROVIDER (self), NULL);

  if (text == NULL)
    return NULL;

  valid = g_utf8_make_valid (text, -1);
  redacted = warden_llm_provider_redact (self, valid);
  stripped = g_strstrip (redacted);
  if (stripped[0] == '\0')
    return NULL;

  if (g_utf8_strlen (stripped, -1) > MAX_SERVER_MESSAGE)
    {
      g_autofree char *head = g_utf8_substring (stripped, 0, MAX_SERVER_MESSAGE);

      return g_strconcat (head, "…", NULL);
    }

  return g_strdup (stripped);
}

void
warden_llm_provider_emit_text_delta (WardenLlmProvider *self,
                                     const char        *text)
{
  g_return_if_fail (WARDEN_IS_LLM_PROVIDER (self));

  if (text != NULL && text[0] != '\0')
    g_signal_emit (self, signals[TEXT_DELTA], 0, text);
}

void
warden_llm_provider_emit_tool_use_start (WardenLlmProvider *self,
                                         const char        *id,
                                         const char        *name)
{
  g_return_if_fail (WARDEN_IS_LLM_PROVIDER (self));

  g_signal_emit (self, signals[TOOL_USE_START], 0, id, name);
}

void
warden_llm_provider_emit_waiting (WardenLlmProvider *self,
                                  guint              seconds)
{
  g_return_if_fail (WARDEN_IS_LLM_PROVIDER (self));

  g_signal_emit (self, signals[WAITING], 0, seconds);
}

/* JSON from servers */

JsonNode *
warden_llm_parse_json (const char  *data,
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

void
warden_llm_add_tool_call (WardenLlmMessage *message,
                          const char       *id,
                          const char       *name,
                          const char       *input_text,
                          gboolean          cut_off)
{
  g_autofree char *text = g_strstrip (g_strdup (input_text ? input_text : ""));
  g_autoptr(JsonNode) input = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *why = NULL;

  /* Models call a tool without parameters with "", and some with null. */
  if (text[0] == '\0')
    {
      warden_llm_message_add_tool_use (message, id, name, NULL);
      return;
    }

  input = warden_llm_parse_json (text, -1, &error);
  if (input != NULL && JSON_NODE_HOLDS_NULL (input))
    {
      warden_llm_message_add_tool_use (message, id, name, NULL);
      return;
    }
  if (input != NULL && JSON_NODE_HOLDS_OBJECT (input))
    {
      warden_llm_message_add_tool_use (message, id, name, input);
      return;
    }

  /* The model is told this, as the call's result, and can write it again. */
  if (input == NULL && cut_off)
    why = g_strdup (_("the arguments were cut off: the answer reached max_tokens"));
  else if (input == NULL)
    /* Translators: %s is where and why json-glib could not read them */
    why = g_strdup_printf (_("the arguments are not valid JSON: %s"), error->message);
  else
    why = g_strdup (_("the arguments are not a JSON object"));

  g_debug ("The call %s of %s cannot run: %s", id, name, why);
  warden_llm_message_add_bad_tool_use (message, id, name, input_text, why);
}

JsonObject *
warden_llm_json_get_object (JsonObject *object,
                            const char *member)
{
  JsonNode *node = object ? json_object_get_member (object, member) : NULL;

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

JsonArray *
warden_llm_json_get_array (JsonObject *object,
                           const char *member)
{
  JsonNode *node = object ? json_object_get_member (object, member) : NULL;

  return node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

/* Completing, with retries */

typedef struct
{
  char      *system_prompt;
  GPtrArray *messages;
  GPtrArray *tools;
  guint      retries;       /* done so far */
  GSource   *wait_source;
} Complete;

static void
complete_free (gpointer data)
{
  Complete *complete = data;

  if (complete->wait_source != NULL)
    {
      g_source_destroy (complete->wait_source);
      g_source_unref (complete->wait_source);
    }
  g_free (complete->system_prompt);
  g_clear_pointer (&complete->messages, g_ptr_array_unref);
  g_clear_pointer (&complete->tools, g_ptr_array_unref);
  g_free (complete);
}

/* Tests set WARDEN_LLM_RETRY_BASE_MS so that five retries take milliseconds. */
static guint
get_retry_base_ms (void)
{
  static gsize base_ms;

  if (g_once_init_enter (&base_ms))
    {
      const char *env = g_getenv ("WARDEN_LLM_RETRY_BASE_MS");
      guint64 value = DEFAULT_RETRY_BASE_MS;

      if (env != NULL && env[0] != '\0' &&
          !g_ascii_string_to_unsigned (env, 10, 0, MAX_RETRY_DELAY_MS, &value, NULL))
        {
          g_warning ("WARDEN_LLM_RETRY_BASE_MS=%s is not a number of milliseconds up to %d; "
                     "using %d", env, MAX_RETRY_DELAY_MS, DEFAULT_RETRY_BASE_MS);
          value = DEFAULT_RETRY_BASE_MS;
        }

      /* g_once_init_leave() takes no 0: keep 0 as 1 past the gate. */
      g_once_init_leave (&base_ms, (gsize) value + 1);
    }

  return (guint) (base_ms - 1);
}

/* Exponential backoff with full jitter: uniform in [0, min(cap, base·2^n)]. */
static guint
compute_backoff_ms (guint retry)
{
  guint64 ceiling;

  ceiling = (guint64) get_retry_base_ms () << MIN (retry, 16);
  ceiling = MIN (ceiling, MAX_RETRY_DELAY_MS);

  return (guint) g_random_int_range (0, (gint32) ceiling + 1);
}

/* The server asked for more than Warden waits: @error, saying when it may
 * be tried again, so that the user can decide. */
static void
add_retry_after_to_error (GError **error,
                    gint64   retry_after_ms,
                    guint    cap_s)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autoptr(GDateTime) then = g_date_time_add_seconds (now, retry_after_ms / 1000.0);
  g_autofree char *when = NULL;
  g_autofree char *message = NULL;
  guint seconds = MIN ((retry_after_ms + 999) / 1000, G_MAXUINT);

  /* A time of day: the date too when it is not today. */
  when = g_date_time_get_day_of_year (then) == g_date_time_get_day_of_year (now) &&
         g_date_time_get_year (then) == g_date_time_get_year (now)
         ? g_date_time_format (then, "%X") : g_date_time_format (then, "%x %X");

  /* Translators: the first %s is what the server said went wrong; then a
   * number of seconds, a time (of day, or a date and time), and seconds */
  message = g_strdup_printf (_("%s (the server asks to try again in %u s, at %s: longer than "
                               "Warden waits, %u s)"),
                             (*error)->message, seconds, when, cap_s);
  g_free ((*error)->message);
  (*error)->message = g_steal_pointer (&message);
}

static gboolean
is_retriable (const GError *error)
{
  return g_error_matches (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NETWORK) ||
         g_error_matches (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_RATE_LIMITED) ||
         g_error_matches (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_OVERLOADED) ||
         g_error_matches (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_STREAM_CUT) ||
         g_error_matches (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_TIMED_OUT);
}

static void complete_attempt (GTask *task);

static gboolean
wait_done_cb (GCancellable *cancellable,
              gpointer      user_data)
{
  GTask *task = user_data;
  Complete *complete = g_task_get_task_data (task);

  g_clear_pointer (&complete->wait_source, g_source_unref);

  if (g_task_return_error_if_cancelled (task))
    return G_SOURCE_REMOVE;

  complete_attempt (g_object_ref (task));

  return G_SOURCE_REMOVE;
}

static void
attempt_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WardenLlmProvider *self = WARDEN_LLM_PROVIDER (object);
  WardenLlmProviderPrivate *priv = warden_llm_provider_get_instance_private (self);
  Complete *complete = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);
  g_autoptr(GError) error = NULL;
  WardenLlmResponse *response;
  gint64 retry_after_ms = -1;
  guint delay_ms;

  response = warden_llm_provider_attempt_finish (self, result, &retry_after_ms, &error);
  if (response != NULL)
    {
      g_task_return_pointer (task, response, (GDestroyNotify) warden_llm_response_free);
      return;
    }

  if (error == NULL)
    error = g_error_new (WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_FAILED,
                         _("The %s provider failed without saying why"),
                         warden_llm_provider_get_name (self));

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      g_cancellable_is_cancelled (cancellable) ||
      !is_retriable (error) ||
      complete->retries >= priv->max_retries)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  /* The server knows when it will take the request: that, or nothing. */
  if (retry_after_ms > (gint64) priv->retry_after_cap_s * 1000)
    {
      add_retry_after_to_error (&error, retry_after_ms, priv->retry_after_cap_s);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  delay_ms = retry_after_ms >= 0 ? (guint) retry_after_ms
                                 : compute_backoff_ms (complete->retries);
  complete->retries++;

  g_debug ("%s: retry %u of %u in %u ms: %s",
           warden_llm_provider_get_name (self), complete->retries, priv->max_retries,
           delay_ms, error->message);
  g_signal_emit (self, signals[RETRYING], 0, complete->retries, delay_ms, error->message);

  /* A handler may have cancelled. */
  if (g_task_return_error_if_cancelled (task))
    return;

  /* Fires at the deadline, or at once when cancelled. */
  complete->wait_source = g_cancellable_source_new (cancellable);
  g_source_set_ready_time (complete->wait_source,
                           g_get_monotonic_time () + (gint64) delay_ms * 1000);
  g_source_set_priority (complete->wait_source, g_task_get_priority (task));
  g_source_set_static_name (complete->wait_source, "[warden] llm retry backoff");
  g_source_set_callback (complete->wait_source, G_SOURCE_FUNC (wait_done_cb),
                         g_object_ref (task), g_object_unref);
  g_source_attach (complete->wait_source, g_task_get_context (task));
}

static void
complete_attempt (GTask *task)
{
  WardenLlmProvider *self = g_task_get_source_object (task);
  Complete *complete = g_task_get_task_data (task);

  /* A tool call cut short is tried again too: nothing has run yet. */
  warden_llm_provider_attempt_async (self,
                                     complete->system_prompt,
                                     complete->messages,
                                     complete->tools,
                                     g_task_get_cancellable (task),
                                     attempt_cb,
                                     task);
}

void
warden_llm_provider_complete_async (WardenLlmProvider   *self,
                                    const char          *system_prompt,
                                    GPtrArray           *messages,
                                    GPtrArray           *tools,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  Complete *complete;

  g_return_if_fail (WARDEN_IS_LLM_PROVIDER (self));
  g_return_if_fail (messages != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));
  g_return_if_fail (WARDEN_LLM_PROVIDER_GET_CLASS (self)->handle_event != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, warden_llm_provider_complete_async);

  complete = g_new0 (Complete, 1);
  complete->system_prompt = g_strdup (system_prompt);
  complete->messages = g_ptr_array_ref (messages);
  complete->tools = tools ? g_ptr_array_ref (tools) : NULL;
  g_task_set_task_data (task, complete, complete_free);

  if (g_task_return_error_if_cancelled (task))
    return;

  complete_attempt (g_steal_pointer (&task));
}

WardenLlmResponse *
warden_llm_provider_complete_finish (WardenLlmProvider  *self,
                                     GAsyncResult       *result,
                                     GError            **error)
{
  g_return_val_if_fail (WARDEN_IS_LLM_PROVIDER (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* From the environment */

static const char *
getenv_nonempty (const char *name)
{
  const char *value = g_getenv (name);

  return (value != NULL && value[0] != '\0') ? value : NULL;
}

WardenLlmProvider *
warden_llm_provider_new_from_env (const char  *name,
                                  const char  *model,
                                  const char  *base_url,
                                  GError     **error)
{
  /* Taken out of the environment at start (warden_env_keys_take()). */
  const char *anthropic_key = warden_env_keys_get ("ANTHROPIC_API_KEY");
  const char *openai_key = warden_env_keys_get ("OPENAI_API_KEY");
  const char *openai_base_url = getenv_nonempty ("OPENAI_BASE_URL");

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (name == NULL)
    {
      if (anthropic_key != NULL)
        name = "anthropic";
      else if (openai_key != NULL || openai_base_url != NULL)
        name = "openai";
      else
        {
          /* Translators: %s is the address of a local Ollama server */
          g_set_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED,
                       _("No model is configured: set ANTHROPIC_API_KEY for Claude, "
                         "or OPENAI_API_KEY for OpenAI, or OPENAI_BASE_URL for an "
                         "OpenAI-compatible server such as Ollama (%s)"),
                       WARDEN_OLLAMA_BASE_URL);
          return NULL;
        }
    }

  if (g_strcmp0 (name, "anthropic") == 0)
    {
      if (anthropic_key == NULL)
        {
          g_set_error_literal (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED,
                               _("Anthropic needs an API key: set ANTHROPIC_API_KEY"));
          return NULL;
        }

      return warden_anthropic_provider_new (anthropic_key,
                                            base_url ? base_url
                                                     : getenv_nonempty ("ANTHROPIC_BASE_URL"),
                                            model);
    }

  if (g_strcmp0 (name, "openai") == 0)
    {
      if (base_url == NULL)
        base_url = openai_base_url;

      /* OpenAI itself wants a key; a local server at another URL may not. */
      if (openai_key == NULL && base_url == NULL)
        {
          /* Translators: %s is the address of a local Ollama server */
          g_set_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED,
                       _("OpenAI needs an API key: set OPENAI_API_KEY, or set "
                         "OPENAI_BASE_URL to an OpenAI-compatible server such as "
                         "Ollama (%s)"),
                       WARDEN_OLLAMA_BASE_URL);
          return NULL;
        }

      return warden_openai_provider_new (openai_key, base_url, model);
    }

  g_set_error (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED,
               _("There is no model provider called “%s”: use anthropic or openai"), name);
  return NULL;
}
