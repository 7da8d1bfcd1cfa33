/* warden-credentials.c: API keys in the user's keyring
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-llm"

#include <glib/gi18n.h>

#include "warden-credentials.h"

#include <string.h>

#include <libsecret/secret.h>

/* Long enough to type a password into an unlock prompt; short enough that a
 * secret service that never answers does not leave the window waiting. */
#define KEYRING_TIMEOUT_SECONDS 60

struct _WardenCredentials
{
  GObject parent_instance;
};

G_DEFINE_FINAL_TYPE (WardenCredentials, warden_credentials, G_TYPE_OBJECT)

G_DEFINE_QUARK (warden-credentials-error-quark, warden_credentials_error)

static const SecretSchema api_key_schema = {
  "io.github.wardenapp.Warden.ApiKey", SECRET_SCHEMA_NONE,
  {
    { "provider", SECRET_SCHEMA_ATTRIBUTE_STRING },
    { NULL, 0 },
  }
};

/* One keyring call. libsecret has no timeout of its own, so the call gets
 * a cancellable of ours, cancelled by the caller's or by the timeout. */
typedef struct
{
  char         *provider;
  GCancellable *inner;
  GCancellable *outer;
  gulong        outer_handler;
  guint         timeout_id;
  gboolean      timed_out;
} Call;

static void
call_free (Call *call)
{
  if (call->outer_handler != 0)
    g_cancellable_disconnect (call->outer, call->outer_handler);
  g_clear_handle_id (&call->timeout_id, g_source_remove);
  g_clear_object (&call->outer);
  g_clear_object (&call->inner);
  g_free (call->provider);
  g_free (call);
}

static void
outer_cancelled_cb (GCancellable *cancellable,
                    GCancellable *inner)
{
  g_cancellable_cancel (inner);
}

static gboolean
call_timeout_cb (gpointer user_data)
{
  Call *call = user_data;

  call->timeout_id = 0;
  call->timed_out = TRUE;
  g_cancellable_cancel (call->inner);

  return G_SOURCE_REMOVE;
}

static GTask *
call_new (WardenCredentials   *self,
          const char          *provider,
          GCancellable        *cancellable,
          GAsyncReadyCallback  callback,
          gpointer             user_data,
          gpointer             source_tag)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Call *call = g_new0 (Call, 1);

  g_task_set_source_tag (task, source_tag);
  call->provider = g_strdup (provider);
  call->inner = g_cancellable_new ();
  if (cancellable != NULL)
    {
      call->outer = g_object_ref (cancellable);
      call->outer_handler = g_cancellable_connect (cancellable, G_CALLBACK (outer_cancelled_cb),
                                                   call->inner, NULL);
    }
  call->timeout_id = g_timeout_add_seconds (KEYRING_TIMEOUT_SECONDS, call_timeout_cb, call);
  g_task_set_task_data (task, call, (GDestroyNotify) call_free);

  return task;
}

/* Turns what libsecret says into what the user can act on. */
static void
call_return_error (GTask  *task,
                   GError *error)
{
  Call *call = g_task_get_task_data (task);
  const char *env_var = warden_credentials_env_var (call->provider);

  if (call->timed_out)
    {
      if (env_var != NULL)
        g_task_return_new_error (task, WARDEN_CREDENTIALS_ERROR,
                                 WARDEN_CREDENTIALS_ERROR_TIMED_OUT,
                                 _("The keyring did not answer within %d seconds; if it asked "
                                   "for a password, try again, or set %s in the environment "
                                   "instead"),
                                 KEYRING_TIMEOUT_SECONDS, env_var);
      else
        g_task_return_new_error (task, WARDEN_CREDENTIALS_ERROR,
                                 WARDEN_CREDENTIALS_ERROR_TIMED_OUT,
                                 _("The keyring did not answer within %d seconds; if it asked "
                                   "for a password, try again"),
                                 KEYRING_TIMEOUT_SECONDS);
    }
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  else if (env_var != NULL)
    {
      g_task_return_new_error (task, WARDEN_CREDENTIALS_ERROR,
                               WARDEN_CREDENTIALS_ERROR_UNAVAILABLE,
                               _("The keyring is not available: %s; set %s in the "
                                 "environment instead"),
                               error->message, env_var);
    }
  else
    {
      g_task_return_new_error (task, WARDEN_CREDENTIALS_ERROR,
                               WARDEN_CREDENTIALS_ERROR_UNAVAILABLE,
                               _("The keyring is not available: %s"), error->message);
    }

  g_error_free (error);
}

static gboolean
check_provider (GTask      *task,
                const char *provider)
{
  if (provider != NULL && provider[0] != '\0')
    return TRUE;

  g_task_return_new_error (task, WARDEN_CREDENTIALS_ERROR, WARDEN_CREDENTIALS_ERROR_INVALID,
                           _("No provider was given for the API key"));
  return FALSE;
}

static void
warden_credentials_class_init (WardenCredentialsClass *klass)
{
}

static void
warden_credentials_init (WardenCredentials *self)
{
}

WardenCredentials *
warden_credentials_new (void)
{
  return g_object_new (WARDEN_TYPE_CREDENTIALS, NULL);
}

const char *
warden_credentials_env_var (const char *provider)
{
  if (g_strcmp0 (provider, "anthropic") == 0)
    return "ANTHROPIC_API_KEY";
  if (g_strcmp0 (provider, "openai") == 0)
    return "OPENAI_API_KEY";
  return NULL;
}

static void
lookup_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  char *key;

  key = secret_password_lookup_finish (result, &error);
  if (error != NULL)
    call_return_error (task, error);
  else if (key == NULL || key[0] == '\0')
    {
      secret_password_free (key);
      g_task_return_pointer (task, NULL, NULL);
    }
  else
    {
      /* Handed on in plain memory: the caller frees it with g_free(). */
      char *copy = g_strdup (key);

      secret_password_free (key);
      g_task_return_pointer (task, copy, g_free);
    }
}

void
warden_credentials_lookup_async (WardenCredentials   *self,
                                 const char          *provider,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  Call *call;

  g_return_if_fail (WARDEN_IS_CREDENTIALS (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = call_new (self, provider, cancellable, callback, user_data,
                   warden_credentials_lookup_async);
  if (!check_provider (task, provider))
    return;

  call = g_task_get_task_data (task);
  secret_password_lookup (&api_key_schema, call->inner, lookup_cb, g_steal_pointer (&task),
                          "provider", provider,
                          NULL);
}

char *
warden_credentials_lookup_finish (WardenCredentials  *self,
                                  GAsyncResult       *result,
                                  GError            **error)
{
  g_return_val_if_fail (WARDEN_IS_CREDENTIALS (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        warden_credentials_lookup_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
store_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  if (!secret_password_store_finish (result, &error))
    {
      if (error == NULL)
        error = g_error_new (G_IO_ERROR, G_IO_ERROR_FAILED, _("the key was not saved"));
      call_return_error (task, error);
    }
  else
    g_task_return_boolean (task, TRUE);
}

void
warden_credentials_store_async (WardenCredentials   *self,
                                const char          *provider,
                                const char          *key,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *label = NULL;
  Call *call;

  g_return_if_fail (WARDEN_IS_CREDENTIALS (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = call_new (self, provider, cancellable, callback, user_data,
                   warden_credentials_store_async);
  if (!check_provider (task, provider))
    return;
  if (key == NULL || key[0] == '\0')
    {
      g_task_return_new_error (task, WARDEN_CREDENTIALS_ERROR, WARDEN_CREDENTIALS_ERROR_INVALID,
                               _("The API key is empty; paste the key, or clear the stored "
                                 "one instead"));
      return;
    }

  call = g_task_get_task_data (task);
  /* Shown in Passwords and Keys (Seahorse), so it says whose key it is. */
  label = g_strdup_printf (_("Warden API key for %s"), provider);
  secret_password_store (&api_key_schema, SECRET_COLLECTION_DEFAULT, label, key,
                         call->inner, store_cb, g_steal_pointer (&task),
                         "provider", provider,
                         NULL);
}

gboolean
warden_credentials_store_finish (WardenCredentials  *self,
                                 GAsyncResult       *result,
                                 GError            **error)
{
  g_return_val_if_fail (WARDEN_IS_CREDENTIALS (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        warden_credentials_store_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
clear_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  /* FALSE without an error means there was nothing to clear. */
  if (!secret_password_clear_finish (result, &error) && error != NULL)
    call_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

void
warden_credentials_clear_async (WardenCredentials   *self,
                                const char          *provider,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  Call *call;

  g_return_if_fail (WARDEN_IS_CREDENTIALS (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = call_new (self, provider, cancellable, callback, user_data,
                   warden_credentials_clear_async);
  if (!check_provider (task, provider))
    return;

  call = g_task_get_task_data (task);
  secret_password_clear (&api_key_schema, call->inner, clear_cb, g_steal_pointer (&task),
                         "provider", provider,
                         NULL);
}

gboolean
warden_credentials_clear_finish (WardenCredentials  *self,
                                 GAsyncResult       *result,
                                 GError            **error)
{
  g_return_val_if_fail (WARDEN_IS_CREDENTIALS (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        warden_credentials_clear_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
