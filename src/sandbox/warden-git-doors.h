/* warden-git-doors.h: what a sandboxed command leaves for git on the host
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>
#include <sys/stat.h>

#include "policy/warden-protected-path.h"

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
 * has in it. A snapshot is taken before a sandbox's first command; the
 * check after each command moves whatever the command created or changed
 * there, that could make git run something, into
 * .git/warden-quarantine/STAMP/, putting back what was there before, and
 * its result is where the check before the next command starts from. */
typedef struct _WardenGitDoors    WardenGitDoors;
typedef struct _WardenGitSnapshot WardenGitSnapshot;

/* For the workspace @workspace (an absolute path). Thread-safe. */
WardenGitDoors    *warden_git_doors_new      (const char        *workspace);
void               warden_git_doors_free     (WardenGitDoors    *doors);

/* The doors as they are now: a few lstat calls when nothing changed since
 * the last snapshot. May block: call it from a worker thread. */
WardenGitSnapshot *warden_git_doors_snapshot (WardenGitDoors    *doors);
void               warden_git_snapshot_free  (WardenGitSnapshot *snapshot);

/* When the doors changed: the wording of what is said about them. */
typedef enum
{
  WARDEN_GIT_DOORS_AFTER_COMMAND,     /* by the command that just ended */
  WARDEN_GIT_DOORS_BETWEEN_COMMANDS,  /* while no command ran */
} WardenGitDoorsWhen;

/* Compares the doors with @before and moves what was opened since,
 * putting back @before's version. After a command, @before is the
 * snapshot taken before it, and this runs once all its processes are gone.
 * Before the next command, @before is what the last check returned: a
 * change made in between is as suspect as a command's (a process an
 * earlier command left behind can make it) and is moved the same way. The
 * user's own edits on the host are moved too, for Warden cannot tell them
 * apart: the note says where they went and how to keep them (copy them
 * back once Warden no longer runs commands in the folder; a sandbox's
 * first command takes the doors as they are). Harmless changes (a remote,
 * user.name, a commit) are not doors and stay.
 * Sets @note to what was moved, for the user and the model, one line
 * each, or NULL when nothing was. Returns the doors as they are now, all
 * of them passable: the @before of the next check. May block. */
WardenGitSnapshot *warden_git_doors_check    (WardenGitDoors     *doors,
                                              WardenGitSnapshot  *before,
                                              WardenGitDoorsWhen  when,
                                              char              **note);
/* warden_git_doors_check() after a command, for its note alone. */
char              *warden_git_doors_close    (WardenGitDoors    *doors,
                                              WardenGitSnapshot *before);

/* The other protected paths (policy/warden-protected-path.h) are doors
 * too: whatever a command makes or changes in .vscode/, .idea/,
 * .devcontainer/, .hg/hgrc, .envrc, mise's and asdf's files … in any
 * folder, and a nested repository's git files, are moved the same way
 * (.gitmodules only when it adds a setting that is not known to be
 * harmless, as for a config). In a quarantine each protected name ends in
 * "~", so nothing on the host takes it for a live one. */
typedef void (*WardenProtectedPathFunc) (const char          *rel,
                                         WardenProtectedKind  kind,
                                         const struct stat   *st,
                                         gpointer             user_data);

/* Calls @func for each protected path that exists in @workspace (a real
 * path), as lstat sees it, relative to it: a protected folder once (not
 * what it holds), the protected parts of a folder of kind SOME as TREE or
 * FILE, a nested .git (not the workspace's own) as REPO. Follows no
 * symbolic link; looks WALK_DEPTH folders deep. May block. */
void               warden_protected_paths_walk (const char              *workspace,
                                                WardenProtectedPathFunc  func,
                                                gpointer                 user_data);

typedef struct
{
  char                *path;   /* relative to the workspace */
  WardenProtectedKind  kind;
  struct stat          st;     /* lstat, when the walk found it */
} WardenProtectedPath;

/* What the walk of @snapshot found, in its order, as
 * warden_protected_paths_walk() gives it: a new array of
 * WardenProtectedPath. A sandbox mounts these without walking again. */
GPtrArray         *warden_git_snapshot_list_protected (WardenGitSnapshot *snapshot);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenGitDoors, warden_git_doors_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenGitSnapshot, warden_git_snapshot_free)

G_END_DECLS
