/* warden-protected-path.h: workspace paths that nobody writes without asking
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* TRUE when writing @path can make a program on the host (git, direnv, an
 * editor, a login shell) run something, or touches Warden's own state: a
 * redirection into it asks, and the write and edit tools ask for it, in every
 * mode. @path is relative to the workspace (or absolute; every component is
 * looked at), with "." and ".." already resolved. Names are compared without
 * regard to ASCII case, as case-insensitive filesystems would open them. */
gboolean            warden_path_is_protected    (const char *path);

/* The protected paths as globs, for documentation and the UI; NULL-ended. */
const char * const *warden_protected_path_globs (void);

/* The directories inside .git that a sandbox keeps read-only (config, hooks,
 * info), relative to the workspace; NULL-ended. */
const char * const *warden_git_read_only_paths  (void);

G_END_DECLS
