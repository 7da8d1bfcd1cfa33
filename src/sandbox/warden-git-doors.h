/* warden-git-doors.h: what a sandboxed command leaves for git on the host
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Git on the host reads configuration from, and runs hooks out of, files a
 * command inside the sandbox can write: the read-only mounts cover only
 * those that exist when it starts. The doors of a workspace are, for its
 * .git and every repository git enters from there (submodules: every
 * gitlink of an index, .git/modules/NAME; linked worktrees; a commondir):
 * config, config.worktree, commondir, hooks/, info/attributes, a .git
 * file, the files a config's include.path names inside the workspace, a
 * rebase's todo list (its exec lines), and symbolic links or FIFOs in any
 * of these places; also the gitlinks a repository around the workspace
 * has in it. A snapshot is taken before each command, and
 * closing after it moves whatever the command created or changed there,
 * that could make git run something, into .git/warden-quarantine/STAMP/,
 * putting back what was there before. */
typedef struct _WardenGitDoors    WardenGitDoors;
typedef struct _WardenGitSnapshot WardenGitSnapshot;

/* For the workspace @workspace (an absolute path). Thread-safe. */
WardenGitDoors    *warden_git_doors_new      (const char        *workspace);
void               warden_git_doors_free     (WardenGitDoors    *doors);

/* The doors as they are now: a few lstat calls when nothing changed since
 * the last snapshot. May block: call it from a worker thread. */
WardenGitSnapshot *warden_git_doors_snapshot (WardenGitDoors    *doors);
void               warden_git_snapshot_free  (WardenGitSnapshot *snapshot);

/* Compares the doors with @before, taken before the command, once all its
 * processes are gone, and moves what it opened. Returns what was moved,
 * for the user and the model, one line each; NULL when nothing was. */
char              *warden_git_doors_close    (WardenGitDoors    *doors,
                                              WardenGitSnapshot *before);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenGitDoors, warden_git_doors_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenGitSnapshot, warden_git_snapshot_free)

G_END_DECLS
