/* warden-sandbox-kind.c: the backend's name where it is stored or typed
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "warden-sandbox-kind.h"

/* As settings, session rows and warden-cli --sandbox spell them. */
static const char * const kind_names[] = {
  [WARDEN_SANDBOX_KIND_AUTO] = "auto",
  [WARDEN_SANDBOX_KIND_DOCKER] = "docker",
  [WARDEN_SANDBOX_KIND_BWRAP] = "bwrap",
  [WARDEN_SANDBOX_KIND_HOST] = "host",
};

const char *
warden_sandbox_kind_to_string (WardenSandboxKind kind)
{
  g_return_val_if_fail (kind <= WARDEN_SANDBOX_KIND_HOST, NULL);
  return kind_names[kind];
}

gboolean
warden_sandbox_kind_from_string (const char        *str,
                                 WardenSandboxKind *kind)
{
  for (guint i = 0; i < G_N_ELEMENTS (kind_names); i++)
    if (g_strcmp0 (str, kind_names[i]) == 0)
      {
        *kind = (WardenSandboxKind) i;
        return TRUE;
      }
  return FALSE;
}
