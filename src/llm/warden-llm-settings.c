/* warden-llm-settings.c: the model the user chose, for the window and warden-cli alike
 *
 * The settings (Preferences) say which provider, model and address; the key
 * comes from the environment or the keyring (never from a file); with
 * nothing set, a local Ollama. One decision for both front ends, so that
 * what the user set in the window is what warden-cli uses.
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-llm"

#include <glib/gi18n.h>

#include "warden-llm-settings.h"

#include "warden-anthropic-provider.h"
#include "warden-env-keys.h"
#include "warden-openai-provider.h"

typedef struct
{
  WardenCredentials *credentials;  /* NULL: no keyring */
  char              *name;
  char              *model;         /* the caller's, else the settings' */
  char              *base_url;
  char              *anthropic_key;
  gboolean           anthropic_done;
  char              *openai_key;
} ProviderLookup;

static void
provider_lookup_free (ProviderLookup *lookup)
{
  g_clear_object (&lookup->credentials);
  g_free (lookup->model);
  g_free (lookup->base_url);
  g_free (lookup->name);
  g_free (lookup->anthropic_key);
  g_free (lookup->openai_key);
  g_free (lookup);
}

static const char *
nonempty (const char *s)
{
  return s && *s ? s : NULL;
}

static void
ollama_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ProviderLookup *lookup = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autofree char *model = warden_openai_provider_probe_ollama_finish (result, &error);

  if (model == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_task_return_error (task, g_steal_pointer (&error));
      else
        g_task_return_new_error (task, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED,
                                 _("No API key was found, and no Ollama server answers (%s)"),
                                 error ? error->message : _("it has no model"));
      return;
    }
  g_task_return_pointer (task,
                         warden_openai_provider_new (NULL,
                                                     nonempty (lookup->base_url)
                                                     ? lookup->base_url : WARDEN_OLLAMA_BASE_URL,
                                                     nonempty (lookup->model)
                                                     ? lookup->model : model),
                         g_object_unref);
}

static void
decide_provider (GTask *task)
{
  ProviderLookup *lookup = g_task_get_task_data (task);
  const char *name = lookup->name;
  const char *model = lookup->model;
  const char *base_url = lookup->base_url;
  /* Taken out of the environment in main(): commands cannot read them there. */
  const char *anthropic = warden_env_keys_get ("ANTHROPIC_API_KEY");
  const char *openai = warden_env_keys_get ("OPENAI_API_KEY");
  WardenLlmProvider *provider = NULL;
  gboolean is_auto = g_strcmp0 (name, "auto") == 0;

  if (anthropic == NULL)
    anthropic = nonempty (lookup->anthropic_key);
  if (openai == NULL)
    openai = nonempty (lookup->openai_key);

  if (g_strcmp0 (name, "anthropic") == 0 || (is_auto && anthropic != NULL))
    {
      if (anthropic != NULL)
        provider = warden_anthropic_provider_new (anthropic,
                                                  nonempty (base_url)
                                                  ? base_url
                                                  : nonempty (g_getenv ("ANTHROPIC_BASE_URL")),
                                                  nonempty (model));
    }
  else if (g_strcmp0 (name, "openai") == 0 ||
           (is_auto && (openai != NULL || nonempty (g_getenv ("OPENAI_BASE_URL")))))
    {
      const char *url = nonempty (base_url) ? base_url : nonempty (g_getenv ("OPENAI_BASE_URL"));

      if (openai != NULL || url != NULL)
        provider = warden_openai_provider_new (openai, url, nonempty (model));
    }
  else if (is_auto || g_strcmp0 (name, "ollama") == 0)
    {
      warden_openai_provider_probe_ollama_async (nonempty (base_url),
                                                 g_task_get_cancellable (task),
                                                 ollama_cb, g_object_ref (task));
      return;
    }

  if (provider != NULL)
    g_task_return_pointer (task, provider, g_object_unref);
  else
    g_task_return_new_error (task, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED,
                             _("No API key is set for this provider: enter one under API Key"));
}

/* The keys are looked up one provider after the other: anthropic, openai. */
static void
key_cb (GObject      *object,
        GAsyncResult *result,
        gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ProviderLookup *lookup = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  char *key = warden_credentials_lookup_finish (WARDEN_CREDENTIALS (object), result, &error);
  gboolean first = !lookup->anthropic_done;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* No keyring: the environment may still have a key. */
  if (error != NULL)
    g_message ("%s", error->message);
  if (first)
    {
      lookup->anthropic_key = key;
      lookup->anthropic_done = TRUE;
      GCancellable *cancellable = g_task_get_cancellable (task);

      warden_credentials_lookup_async (lookup->credentials, "openai", cancellable, key_cb,
                                       g_steal_pointer (&task));
      return;
    }
  lookup->openai_key = key;
  decide_provider (task);
}

GSettings *
warden_llm_settings_new (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  if (schema == NULL)
    return NULL;
  return g_settings_new_full (schema, NULL, NULL);
}

void
warden_llm_provider_new_for_settings_async (GSettings           *settings,
                                            WardenCredentials   *credentials,
                                            const char          *model,
                                            const char          *base_url,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  ProviderLookup *lookup = g_new0 (ProviderLookup, 1);

  g_return_if_fail (settings == NULL || G_IS_SETTINGS (settings));
  g_return_if_fail (credentials == NULL || WARDEN_IS_CREDENTIALS (credentials));

  lookup->credentials = credentials ? g_object_ref (credentials) : NULL;
  lookup->name = settings ? g_settings_get_string (settings, "provider") : g_strdup ("auto");
  lookup->model = model ? g_strdup (model)
                        : settings ? g_settings_get_string (settings, "model") : NULL;
  lookup->base_url = base_url ? g_strdup (base_url)
                              : settings ? g_settings_get_string (settings, "base-url") : NULL;
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, warden_llm_provider_new_for_settings_async);
  g_task_set_task_data (task, lookup, (GDestroyNotify) provider_lookup_free);
  if (credentials == NULL)
    {
      lookup->anthropic_done = TRUE;
      decide_provider (task);
      return;
    }
  warden_credentials_lookup_async (credentials, "anthropic", cancellable, key_cb,
                                   g_steal_pointer (&task));
}

WardenLlmProvider *
warden_llm_provider_new_for_settings_finish (GAsyncResult  *result,
                                             GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
