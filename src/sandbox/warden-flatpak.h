/* warden-flatpak.h: what the sandbox backends can do when Warden itself is a Flatpak
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "warden-sandbox-kind.h"

G_BEGIN_DECLS

/* TRUE when this process runs inside a Flatpak sandbox (/.flatpak-info exists). */
gboolean warden_flatpak_is_sandboxed        (void);

/* FALSE with WARDEN_SANDBOX_ERROR_UNAVAILABLE when @kind cannot run here:
 * inside Flatpak, bubblewrap cannot. */
gboolean warden_flatpak_check_backend       (WardenSandboxKind   kind,
                                             GError            **error);

/* FALSE with WARDEN_SANDBOX_ERROR_UNAVAILABLE when @workspace is a path the
 * document portal made up (…/doc/XXXXXXXX/…): Warden can read it, but the
 * Docker engine on the host cannot mount it. */
gboolean warden_flatpak_check_workspace     (const char  *workspace,
                                             GError     **error);

/* The same, with the places to look given, for tests. @info_path stands for
 * /.flatpak-info, @runtime_dir for $XDG_RUNTIME_DIR. */
gboolean warden_flatpak_is_sandboxed_at     (const char  *info_path);
gboolean warden_flatpak_check_backend_at    (const char         *info_path,
                                             WardenSandboxKind   kind,
                                             GError            **error);
gboolean warden_flatpak_check_workspace_at  (const char  *info_path,
                                             const char  *runtime_dir,
                                             const char  *workspace,
                                             GError     **error);

G_END_DECLS
