/* warden-flatpak.c: what the sandbox backends can do when Warden itself is a Flatpak
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-sandbox"

#include <glib/gi18n.h>

#include "warden-flatpak.h"

#include <string.h>

#include "warden-sandbox.h"

/* Flatpak writes this file into every sandbox it makes; GLib's portal code
 * and libsecret look for the same one. */
#define FLATPAK_INFO_PATH "/.flatpak-info"

gboolean
warden_flatpak_is_sandboxed_at (const char *info_path)
{
  g_return_val_if_fail (info_path != NULL, FALSE);

  return g_file_test (info_path, G_FILE_TEST_EXISTS);
}

gboolean
warden_flatpak_is_sandboxed (void)
{
  return warden_flatpak_is_sandboxed_at (FLATPAK_INFO_PATH);
}

gboolean
warden_flatpak_check_backend_at (const char         *info_path,
                                 WardenSandboxKind   kind,
                                 GError            **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* Flatpak's seccomp filter refuses the user namespaces bwrap needs, and the
   * way around it (flatpak-spawn --host) would hand Warden the whole host. */
  if (kind == WARDEN_SANDBOX_KIND_BWRAP && warden_flatpak_is_sandboxed_at (info_path))
    {
      g_set_error_literal (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_UNAVAILABLE,
                           _("bubblewrap cannot run inside the Flatpak sandbox; use Docker "
                             "(Preferences → Sandbox) or install Warden from your distribution"));
      return FALSE;
    }

  return TRUE;
}

gboolean
warden_flatpak_check_backend (WardenSandboxKind   kind,
                              GError            **error)
{
  return warden_flatpak_check_backend_at (FLATPAK_INFO_PATH, kind, error);
}

static gboolean
path_is_under (const char *path,
               const char *dir)
{
  gsize len = strlen (dir);

  return len > 0 && strncmp (path, dir, len) == 0 && (path[len] == '/' || path[len] == '\0');
}

gboolean
warden_flatpak_check_workspace_at (const char  *info_path,
                                   const char  *runtime_dir,
                                   const char  *workspace,
                                   GError     **error)
{
  g_autofree char *doc_dir = NULL;

  g_return_val_if_fail (workspace != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!warden_flatpak_is_sandboxed_at (info_path))
    return TRUE;

  /* The file chooser portal answers with such a path only for folders the
   * app has no permission for; the FUSE mount behind it is the user's own,
   * so the engine (root) gets "permission denied" when it binds it. */
  if (runtime_dir != NULL)
    doc_dir = g_build_filename (runtime_dir, "doc", NULL);
  if ((doc_dir != NULL && path_is_under (workspace, doc_dir))
      || path_is_under (workspace, "/run/flatpak/doc"))
    {
      g_set_error (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_UNAVAILABLE,
                   _("The folder “%s” was shared through the document portal, which "
                     "Docker cannot mount; give Warden access to where the folder really "
                     "is (flatpak override --user --filesystem=/path/to/folder %s) "
                     "and choose it again"),
                   workspace, APP_ID);
      return FALSE;
    }

  return TRUE;
}

gboolean
warden_flatpak_check_workspace (const char  *workspace,
                                GError     **error)
{
  return warden_flatpak_check_workspace_at (FLATPAK_INFO_PATH, g_get_user_runtime_dir (),
                                            workspace, error);
}
