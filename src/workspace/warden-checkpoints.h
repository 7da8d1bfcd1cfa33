/* warden-checkpoints.h: the workspace's files before each step, and putting them back
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define WARDEN_CHECKPOINT_ERROR (warden_checkpoint_error_quark ())

typedef enum
{
  WARDEN_CHECKPOINT_ERROR_FAILED,     /* the shadow repository could not be read or written;
                                         the message names it and says why */
  WARDEN_CHECKPOINT_ERROR_NOT_FOUND,  /* no such checkpoint in the shadow repository */
  WARDEN_CHECKPOINT_ERROR_OUTSIDE,    /* a restore would write through a symbolic link */
} WardenCheckpointError;

/* Files larger than this are left out of a checkpoint (and so never
 * restored): a build's output or a dataset must not make each step slow. */
#define WARDEN_CHECKPOINT_MAX_FILE_SIZE (10 * 1024 * 1024)

typedef enum
{
  WARDEN_FILE_CREATED,
  WARDEN_FILE_CHANGED,
  WARDEN_FILE_DELETED,
} WardenFileChangeKind;

/* One file that differs between two checkpoints (or that a restore changes). */
typedef struct
{
  WardenFileChangeKind  kind;
  char                 *path;       /* relative to the workspace */
  gboolean              binary;
  gboolean              skipped;    /* a restore left it as it is: a protected path */
} WardenFileChange;

void warden_file_change_free (WardenFileChange *change);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenFileChange, warden_file_change_free)

/* "created", "changed", "deleted": what the store and JSON keep. */
const char          *warden_file_change_kind_to_string   (WardenFileChangeKind  kind);
gboolean             warden_file_change_kind_from_string (const char           *text,
                                                          WardenFileChangeKind *kind);

#define WARDEN_TYPE_CHECKPOINTS (warden_checkpoints_get_type ())

G_DECLARE_FINAL_TYPE (WardenCheckpoints, warden_checkpoints, WARDEN, CHECKPOINTS, GObject)

GQuark             warden_checkpoint_error_quark (void);

/* The shadow repository of @workspace (an absolute path): under @folder, or
 * NULL for $XDG_DATA_HOME/warden/checkpoints, in a folder named by the
 * SHA-256 of the workspace's path; made on first use. Nothing of it is in
 * the workspace, and the project's own .git is never opened: no hook, no
 * filter, no git configuration of the user or the project is run or read.
 * Calls block (file I/O): run them in a thread where that matters. One
 * object is used by one thread at a time. */
WardenCheckpoints *warden_checkpoints_new            (const char         *workspace,
                                                      const char         *folder,
                                                      GError            **error);
const char        *warden_checkpoints_get_path       (WardenCheckpoints  *self);

/* Records the workspace's files as they are now; returns the checkpoint's
 * id (a commit, 40 hex digits). Left out: .git (everywhere), a folder that
 * holds a repository of its own, node_modules, what the project's
 * .gitignore files ignore, files over WARDEN_CHECKPOINT_MAX_FILE_SIZE. Unchanged files cost a stat each. */
char              *warden_checkpoints_record         (WardenCheckpoints  *self,
                                                      const char         *message,
                                                      GError            **error);

/* The files that differ from checkpoint @from to checkpoint @to, sorted by
 * path; a GPtrArray of WardenFileChange. */
GPtrArray         *warden_checkpoints_diff           (WardenCheckpoints  *self,
                                                      const char         *from,
                                                      const char         *to,
                                                      GError            **error);
/* The same as unified diffs, one file after another, each under a note
 * line that names it ("\ path"; a binary file is named, not shown). */
char              *warden_checkpoints_diff_text      (WardenCheckpoints  *self,
                                                      const char         *from,
                                                      const char         *to,
                                                      GError            **error);

/* What a restore to @to would do now: records the workspace as it is
 * (a checkpoint nobody names, cheap) and compares; @changes as
 * warden_checkpoints_diff(), @diff as warden_checkpoints_diff_text(). */
gboolean           warden_checkpoints_preview        (WardenCheckpoints  *self,
                                                      const char         *to,
                                                      GPtrArray         **changes,
                                                      char              **diff,
                                                      GError            **error);

/* Puts the files back as checkpoint @to has them: first records the
 * workspace as it is (@undo: that checkpoint's id, the way back), then
 * writes, creates and deletes what differs from it. Files that checkpoints
 * leave out (ignored, too big) are not touched. Never follows a symbolic
 * link: a folder on the way that is a link now is replaced by the folder it
 * was, a link that is in the checkpoint is made again as a link. A
 * protected path (warden-protected-path.h) is neither written nor deleted:
 * it is in @changes with skipped set. @changes: what it did. */
gboolean           warden_checkpoints_restore        (WardenCheckpoints  *self,
                                                      const char         *to,
                                                      char              **undo,
                                                      GPtrArray         **changes,
                                                      GError            **error);

G_END_DECLS
