/* warden-protected-path.h: workspace paths that nobody writes without asking
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* What a name found in a workspace folder is to the protected list. */
typedef enum
{
  WARDEN_PROTECTED_NONE,
  WARDEN_PROTECTED_TREE,   /* a folder protected with all it holds: .vscode, .idea, .mise … */
  WARDEN_PROTECTED_FILE,   /* a file (or whatever has the name): .envrc, .gitmodules, mise.toml … */
  WARDEN_PROTECTED_REPO,   /* .git: a repository's doors (sandbox/warden-git-doors.h) */
  WARDEN_PROTECTED_SOME,   /* a folder of which some files are protected: .hg, .config */
} WardenProtectedKind;

/* TRUE when writing @path can make a program on the host (git, hg, direnv,
 * mise, an editor, a login shell) run something, or touches Warden's own
 * state: a redirection into it asks, the write and edit tools ask for it,
 * in every mode, and inside a sandbox it is read-only or caught after the
 * command. @path is relative to the workspace (or absolute; every
 * component is looked at), with "." and ".." already resolved. Names are
 * compared without regard to ASCII case, as case-insensitive filesystems
 * would open them. */
gboolean            warden_path_is_protected    (const char *path);

/* What the name @name, met in any folder of a workspace, is; for a walk
 * that finds the protected paths that exist. */
WardenProtectedKind warden_protected_name_kind  (const char *name);

/* For a name of kind WARDEN_PROTECTED_SOME: its protected paths below it
 * ("hgrc" for .hg, "mise" for .config), NULL-ended. */
const char * const *warden_protected_name_parts (const char *name);

/* Whether @name can be added: one file or folder name ("Justfile",
 * ".tox"), not "." or "..", no "/", at most 255 bytes. */
gboolean            warden_protected_name_is_valid (const char *name);

/* Adds @names (a profile's files.protect; each valid) to the list, as
 * folders protected with all they hold, in any folder, for this process:
 * every layer asks, mounts and checks them from now on. Names are only
 * ever added: a profile that stops naming one does not make it writable
 * until Warden restarts, which fails closed. Thread-safe. */
void                warden_protected_path_add_names (const char * const *names);

/* The protected paths as globs, for documentation and the UI; NULL-ended. */
const char * const *warden_protected_path_globs (void);

/* The directories inside .git that a sandbox keeps read-only (config, hooks,
 * info), relative to the git folder's parent; NULL-ended. */
const char * const *warden_git_read_only_paths  (void);

G_END_DECLS
