/* warden-credentials.h: API keys in the user's keyring
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define WARDEN_CREDENTIALS_ERROR (warden_credentials_error_quark ())

typedef enum
{
  WARDEN_CREDENTIALS_ERROR_UNAVAILABLE,  /* no secret service, or it failed */
  WARDEN_CREDENTIALS_ERROR_TIMED_OUT,    /* the secret service did not answer */
  WARDEN_CREDENTIALS_ERROR_INVALID,      /* an empty key or provider */
} WardenCredentialsError;

#define WARDEN_TYPE_CREDENTIALS (warden_credentials_get_type ())

G_DECLARE_FINAL_TYPE (WardenCredentials, warden_credentials, WARDEN, CREDENTIALS, GObject)

GQuark             warden_credentials_error_quark   (void);

/* The environment variable that holds @provider's key ("ANTHROPIC_API_KEY"
 * for "anthropic"), or NULL when the provider has none. */
const char        *warden_credentials_env_var       (const char           *provider);

WardenCredentials *warden_credentials_new           (void);
/* Gives NULL, without an error, when no key is stored for @provider. */
void               warden_credentials_lookup_async  (WardenCredentials    *self,
                                                     const char           *provider,
                                                     GCancellable         *cancellable,
                                                     GAsyncReadyCallback   callback,
                                                     gpointer              user_data);
char              *warden_credentials_lookup_finish (WardenCredentials    *self,
                                                     GAsyncResult         *result,
                                                     GError              **error);
void               warden_credentials_store_async   (WardenCredentials    *self,
                                                     const char           *provider,
                                                     const char           *key,
                                                     GCancellable         *cancellable,
                                                     GAsyncReadyCallback   callback,
                                                     gpointer              user_data);
gboolean           warden_credentials_store_finish  (WardenCredentials    *self,
                                                     GAsyncResult         *result,
                                                     GError              **error);
/* Succeeds when there was no key to clear. */
void               warden_credentials_clear_async   (WardenCredentials    *self,
                                                     const char           *provider,
                                                     GCancellable         *cancellable,
                                                     GAsyncReadyCallback   callback,
                                                     gpointer              user_data);
gboolean           warden_credentials_clear_finish  (WardenCredentials    *self,
                                                     GAsyncResult         *result,
                                                     GError              **error);

G_END_DECLS
