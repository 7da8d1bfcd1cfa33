/* warden-workspace.h: the agent's file tools, confined to the workspace
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define WARDEN_WORKSPACE_ERROR (warden_workspace_error_quark ())

typedef enum
{
  WARDEN_WORKSPACE_ERROR_OUTSIDE,       /* the path leads out of the workspace: the agent
                                           layer turns this into a question for the user */
  WARDEN_WORKSPACE_ERROR_NOT_FOUND,
  WARDEN_WORKSPACE_ERROR_IS_DIRECTORY,
  WARDEN_WORKSPACE_ERROR_BINARY,        /* read: the file is not text */
  WARDEN_WORKSPACE_ERROR_TOO_LARGE,
  WARDEN_WORKSPACE_ERROR_NO_MATCH,      /* edit: the old string is not in the file */
  WARDEN_WORKSPACE_ERROR_NOT_UNIQUE,    /* edit: it is there more than once */
  WARDEN_WORKSPACE_ERROR_INVALID,       /* a bad argument: empty string, bad regex or glob */
  WARDEN_WORKSPACE_ERROR_FAILED,        /* an I/O error; the message names the path */
  WARDEN_WORKSPACE_ERROR_PROTECTED,     /* write, edit: a protected path (.git, .envrc, …; see
                                           warden-protected-path.h): the agent layer asks */
  WARDEN_WORKSPACE_ERROR_TOO_COSTLY,    /* grep: the regex backtracks too much, or the search
                                           ran past its time budget */
  WARDEN_WORKSPACE_ERROR_CHANGED,       /* an approved target is no longer the file that was
                                           approved (replaced, or a link in its path) */
} WardenWorkspaceError;

/* What a file tool means to do with a path, for warden_workspace_resolve(). */
typedef enum
{
  WARDEN_WORKSPACE_ACCESS_READ,
  WARDEN_WORKSPACE_ACCESS_WRITE,        /* the file and its folders may not exist yet */
  WARDEN_WORKSPACE_ACCESS_EDIT,
} WardenWorkspaceAccess;

/* A file the user is asked about, as the tools will open it: the answer is
 * about this path, and the *_target() calls open exactly it. */
typedef struct
{
  char     *path;          /* absolute, on the host, with no symbolic link, "." or ".." */
  gboolean  inside;        /* under the workspace folder */
  gboolean  through_link;  /* a symbolic link was followed to find it */
  gboolean  exists;        /* it existed when resolved, and device and inode say which
                              file it was: the *_target() calls refuse another one */
  guint64   device;
  guint64   inode;
} WardenWorkspaceTarget;

/* A target known by its path alone (a session opened again from disk): it
 * is opened with no link followed, and any file there counts. */
WardenWorkspaceTarget *warden_workspace_target_new  (const char                  *path);
WardenWorkspaceTarget *warden_workspace_target_copy (const WardenWorkspaceTarget *target);
void                   warden_workspace_target_free (WardenWorkspaceTarget       *target);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenWorkspaceTarget, warden_workspace_target_free)

typedef struct
{
  char  *path;           /* relative to the workspace */
  guint  line_number;    /* 1-based */
  char  *line;
  GStrv  before;         /* context lines, may be empty */
  GStrv  after;
} WardenGrepMatch;

void warden_grep_match_free (WardenGrepMatch *match);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenGrepMatch, warden_grep_match_free)

#define WARDEN_TYPE_WORKSPACE (warden_workspace_get_type ())

G_DECLARE_FINAL_TYPE (WardenWorkspace, warden_workspace, WARDEN, WORKSPACE, GObject)

GQuark           warden_workspace_error_quark (void);

/* @root is the project folder on the host. @inside is where the sandbox
 * mounts it ("/workspace"): absolute paths under it are accepted too, so the
 * agent can use the paths its commands see. Relative paths are relative to
 * the root. Every path is resolved beneath the root without following
 * symbolic links out of it (openat2 RESOLVE_BENEATH, or a walk with
 * O_NOFOLLOW where openat2 is missing). The object does not change once
 * made: its calls, all blocking, may run in several threads at once. */
WardenWorkspace *warden_workspace_new         (const char       *root,
                                               const char       *inside,
                                               GError          **error);
const char      *warden_workspace_get_root    (WardenWorkspace  *self);
const char      *warden_workspace_get_inside  (WardenWorkspace  *self);
/* TRUE when the kernel resolves paths (openat2), FALSE when Warden walks
 * them one name at a time: Linux < 5.6, a seccomp filter, the construct
 * property "use-openat2" set to FALSE, or WARDEN_WORKSPACE_NO_OPENAT2=1 in
 * the environment (read once per process). Both follow relative links that
 * stay inside and refuse the rest. */
gboolean         warden_workspace_uses_openat2 (WardenWorkspace *self);

/* Text of the file, from line @offset (0-based) for @limit lines (0: all).
 * Regular files of UTF-8 text only, at most 10 MiB (the same for targets). */
char            *warden_workspace_read        (WardenWorkspace  *self,
                                               const char       *path,
                                               guint             offset,
                                               guint             limit,
                                               GError          **error);
/* Creates parent folders; atomic (temporary file and rename); an existing
 * file keeps its mode. A symbolic link as the last name is refused, never
 * written through or replaced: OUTSIDE if it leads out, INVALID otherwise.
 * A protected path is refused with PROTECTED before anything is created,
 * judged by where the path really leads (a link to .git counts as .git);
 * only an approved target writes one. The same for edit. */
gboolean         warden_workspace_write       (WardenWorkspace  *self,
                                               const char       *path,
                                               const char       *content,
                                               gsize             length,
                                               GError          **error);
/* Replaces @old_text with @new_text; returns how many times, 0 on error. */
guint            warden_workspace_edit        (WardenWorkspace  *self,
                                               const char       *path,
                                               const char       *old_text,
                                               const char       *new_text,
                                               gboolean          replace_all,
                                               GError          **error);
/* Paths (relative to the workspace) of files matching @pattern ("**" spans
 * folders), under @base (NULL: the root), sorted, at most @max (0: 1000).
 * "*", "?", "[a-z]", "[!a]" match within a name, dot files included;
 * "{a,b}" gives alternatives. Symbolic links are neither listed nor
 * followed, and wildcards do not enter ".git" folders (a pattern naming
 * ".git" does). */
GStrv            warden_workspace_glob        (WardenWorkspace  *self,
                                               const char       *pattern,
                                               const char       *base,
                                               guint             max,
                                               GCancellable     *cancellable,
                                               GError          **error);
/* Lines matching the GRegex @regex in the files under @base (a file or a
 * folder; NULL: the root) whose names match @include (a glob, may be NULL),
 * at most @max_results (0: 200), with @context lines around each. Binary
 * files are skipped. Returns a GPtrArray of WardenGrepMatch.
 * The work is bounded, as grep runs in Warden's own process: a line whose
 * match backtracks past a limit, or a search longer than the time budget
 * (the "grep-budget" property), stops it with TOO_COSTLY, naming where.
 * Cancelling stops it between two lines. */
GPtrArray       *warden_workspace_grep        (WardenWorkspace  *self,
                                               const char       *regex,
                                               const char       *base,
                                               const char       *include,
                                               guint             max_results,
                                               guint             context,
                                               gboolean          ignore_case,
                                               GCancellable     *cancellable,
                                               GError          **error);

/* Where @path leads, for asking the user before a read, write or edit that
 * the calls above refuse (OUTSIDE, PROTECTED) or that the profile wants
 * asked. A relative path is relative to the workspace (never to Warden's
 * current folder), a path under the sandbox's view of it ("/workspace")
 * maps to the root, and every symbolic link is followed, now, to the file
 * it leads to. What cannot be approved fails here, so nobody is asked about
 * it: a missing file (read, edit), a folder, a device, pipe or socket, a
 * file of /proc or /sys, a file over the size limit (read, edit). */
WardenWorkspaceTarget *warden_workspace_resolve      (WardenWorkspace              *self,
                                                      const char                   *path,
                                                      WardenWorkspaceAccess         access,
                                                      GError                      **error);
/* Read, write and edit exactly @target: its folder is opened with no
 * symbolic link followed (openat2 RESOLVE_NO_SYMLINKS, or one name at a
 * time with O_NOFOLLOW), the file must be a regular one within the size
 * limit, and, if it existed when resolved, the same file (device and
 * inode), else CHANGED. Writing creates missing folders and replaces the
 * file atomically, like warden_workspace_write(). */
char                  *warden_workspace_read_target  (WardenWorkspace              *self,
                                                      const WardenWorkspaceTarget  *target,
                                                      guint                         offset,
                                                      guint                         limit,
                                                      GError                      **error);
gboolean               warden_workspace_write_target (WardenWorkspace              *self,
                                                      const WardenWorkspaceTarget  *target,
                                                      const char                   *content,
                                                      gsize                         length,
                                                      GError                      **error);
guint                  warden_workspace_edit_target  (WardenWorkspace              *self,
                                                      const WardenWorkspaceTarget  *target,
                                                      const char                   *old_text,
                                                      const char                   *new_text,
                                                      gboolean                      replace_all,
                                                      GError                      **error);

G_END_DECLS
