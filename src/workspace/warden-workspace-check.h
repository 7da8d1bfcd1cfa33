/* warden-workspace-check.h: which folders may be a workspace
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define WARDEN_WORKSPACE_CHECK_ERROR (warden_workspace_check_error_quark ())

typedef enum
{
  WARDEN_WORKSPACE_CHECK_ERROR_NOT_FOUND,  /* not there, or not a folder */
  WARDEN_WORKSPACE_CHECK_ERROR_REFUSED,    /* it holds Warden's own state or the user's keys */
} WardenWorkspaceCheckError;

GQuark  warden_workspace_check_error_quark        (void);

/* The folders no sandbox may see, symlinks resolved: Warden's settings and
 * profiles ($XDG_CONFIG_HOME/warden), its sessions, approvals and their key
 * ($XDG_DATA_HOME/warden), ~/.ssh, ~/.gnupg (and $GNUPGHOME) and the
 * keyrings (~/.local/share/keyrings, $XDG_DATA_HOME/keyrings). Whether they
 * exist or not; NULL-ended. */
char  **warden_workspace_check_dup_private_paths  (void);

/* Resolves @path to its real folder (symlinks too) and returns it, or fails
 * with REFUSED for "/", the home folder or a folder above it, a folder that
 * contains one of the private paths or lies inside one, and a folder that
 * contains one of @also (the session database's folder, say; may be NULL);
 * with NOT_FOUND when @path is not a folder. The message says why and what to
 * do. Looks at the file system: not for the main thread of a window. */
char   *warden_workspace_check                    (const char          *path,
                                                   const char * const  *also,
                                                   GError             **error);

G_END_DECLS
