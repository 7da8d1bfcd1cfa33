/* warden-checkpoints.c: the workspace's files before each step, and putting them back
 *
 * A shadow repository per workspace, bare, in Warden's data folder, driven
 * through libgit2 with the workspace as its work tree for the time of a
 * call. libgit2 runs no hooks, no fsmonitor and no external filter; the
 * user's and the system's git configuration are not read (see
 * class_init), and the shadow's own info/attributes turns every text and
 * filter attribute off, so a file is kept byte for byte whatever the
 * project's .gitattributes says. The project's .git is never opened: the
 * work tree walk skips every ".git".
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-workspace"

#include <glib/gi18n.h>

#include "warden-checkpoints.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>
#include <glib/gstdio.h>

#include "policy/warden-protected-path.h"

/* The branch the checkpoints of a workspace follow each other on: the
 * history keeps every one reachable. */
#define CHECKPOINT_REF "refs/heads/checkpoints"

/* Left out of every checkpoint besides the project's .gitignore rules:
 * package folders are big, and are made again by their package manager. */
static const char excludes[] =
  "# Written by Warden: what checkpoints leave out besides the project's .gitignore\n"
  "node_modules/\n";

/* Bytes as they are: no end-of-line conversion, no filter, whatever the
 * project's .gitattributes says (info/attributes takes precedence). */
static const char attributes[] =
  "# Written by Warden: files are kept as they are\n"
  "* -text -filter -ident -crlf\n";

struct _WardenCheckpoints
{
  GObject        parent_instance;

  char          *workspace;
  char          *path;
  git_repository *repo;

  /* The last checkpoint this object wrote, and its index file as it left
   * it: while both hold and no file differs from the index, the workspace
   * is that checkpoint (see unchanged()). */
  char          *last;
  struct stat    index_stat;
};

G_DEFINE_FINAL_TYPE (WardenCheckpoints, warden_checkpoints, G_TYPE_OBJECT)

G_DEFINE_QUARK (warden-checkpoint-error-quark, warden_checkpoint_error)

void
warden_file_change_free (WardenFileChange *change)
{
  if (change == NULL)
    return;
  g_free (change->path);
  g_free (change);
}

static const char *change_names[] = {
  [WARDEN_FILE_CREATED] = "created",
  [WARDEN_FILE_CHANGED] = "changed",
  [WARDEN_FILE_DELETED] = "deleted",
};

const char *
warden_file_change_kind_to_string (WardenFileChangeKind kind)
{
  g_return_val_if_fail (kind <= WARDEN_FILE_DELETED, NULL);
  return change_names[kind];
}

gboolean
warden_file_change_kind_from_string (const char           *text,
                                     WardenFileChangeKind *kind)
{
  for (guint i = 0; i < G_N_ELEMENTS (change_names); i++)
    if (g_strcmp0 (text, change_names[i]) == 0)
      {
        *kind = i;
        return TRUE;
      }
  return FALSE;
}

/* libgit2's last error, for a message that says what Warden was doing. */
static gboolean
git_failed (GError     **error,
            const char  *what,
            const char  *where)
{
  const git_error *e = git_error_last ();

  g_set_error (error, WARDEN_CHECKPOINT_ERROR, WARDEN_CHECKPOINT_ERROR_FAILED,
               _("Could not %s in the checkpoint repository %s: %s. Checkpoints can be made "
                 "again from scratch by deleting that folder (earlier ones are then lost)"),
               what, where, e != NULL && e->message != NULL ? e->message : _("unknown error"));
  return FALSE;
}

static void
warden_checkpoints_finalize (GObject *object)
{
  WardenCheckpoints *self = WARDEN_CHECKPOINTS (object);

  g_clear_pointer (&self->repo, git_repository_free);
  g_free (self->workspace);
  g_free (self->path);
  g_free (self->last);
  git_libgit2_shutdown ();

  G_OBJECT_CLASS (warden_checkpoints_parent_class)->finalize (object);
}

static void
warden_checkpoints_class_init (WardenCheckpointsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = warden_checkpoints_finalize;

  /* Process-wide, and Warden is libgit2's only user: no configuration but
   * the shadow repository's own, whatever ~/.gitconfig or /etc/gitconfig
   * say (core.excludesFile, core.autocrlf, safe.directory …). */
  git_libgit2_init ();
  git_libgit2_opts (GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_SYSTEM, "");
  git_libgit2_opts (GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_XDG, "");
  git_libgit2_opts (GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_GLOBAL, "");
  git_libgit2_opts (GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_PROGRAMDATA, "");
}

static void
warden_checkpoints_init (WardenCheckpoints *self)
{
  git_libgit2_init ();
}

static gboolean
write_rules (WardenCheckpoints  *self,
             GError            **error)
{
  g_autofree char *info = g_build_filename (self->path, "info", NULL);
  g_autofree char *exclude = g_build_filename (info, "exclude", NULL);
  g_autofree char *attrs = g_build_filename (info, "attributes", NULL);

  if (g_mkdir_with_parents (info, 0700) != 0)
    {
      int saved = errno;

      g_set_error (error, WARDEN_CHECKPOINT_ERROR, WARDEN_CHECKPOINT_ERROR_FAILED,
                   _("Could not create %s: %s"), info, g_strerror (saved));
      return FALSE;
    }
  return g_file_set_contents (exclude, excludes, -1, error) &&
         g_file_set_contents (attrs, attributes, -1, error);
}

static gboolean
configure (WardenCheckpoints  *self,
           GError            **error)
{
  git_config *config = NULL;
  gboolean ok;

  if (git_repository_config (&config, self->repo) != 0)
    return git_failed (error, "read the configuration", self->path);
  ok = git_config_set_bool (config, "core.filemode", 1) == 0 &&
       git_config_set_bool (config, "core.symlinks", 1) == 0 &&
       git_config_set_bool (config, "core.ignorecase", 0) == 0 &&
       git_config_set_string (config, "core.autocrlf", "false") == 0;
  git_config_free (config);
  if (!ok)
    return git_failed (error, "write the configuration", self->path);
  return TRUE;
}

WardenCheckpoints *
warden_checkpoints_new (const char  *workspace,
                        const char  *folder,
                        GError     **error)
{
  g_autoptr(WardenCheckpoints) self = NULL;
  g_autofree char *hash = NULL;
  g_autofree char *base = NULL;
  gboolean fresh;

  g_return_val_if_fail (workspace != NULL && g_path_is_absolute (workspace), NULL);

  self = g_object_new (WARDEN_TYPE_CHECKPOINTS, NULL);
  self->workspace = g_canonicalize_filename (workspace, NULL);
  hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, self->workspace, -1);
  base = folder != NULL ? g_strdup (folder)
                        : g_build_filename (g_get_user_data_dir (), "warden", "checkpoints", NULL);
  self->path = g_build_filename (base, hash, NULL);

  fresh = !g_file_test (self->path, G_FILE_TEST_IS_DIR);
  if (fresh)
    {
      git_repository_init_options opts = GIT_REPOSITORY_INIT_OPTIONS_INIT;

      if (g_mkdir_with_parents (base, 0700) != 0)
        {
          int saved = errno;

          g_set_error (error, WARDEN_CHECKPOINT_ERROR, WARDEN_CHECKPOINT_ERROR_FAILED,
                       _("Could not create %s for the checkpoints: %s"), base,
                       g_strerror (saved));
          return NULL;
        }
      opts.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_MKPATH |
                   GIT_REPOSITORY_INIT_NO_REINIT;
      opts.mode = GIT_REPOSITORY_INIT_SHARED_UMASK;
      opts.initial_head = "checkpoints";
      opts.description = "Warden's checkpoints of one workspace";
      if (git_repository_init_ext (&self->repo, self->path, &opts) != 0)
        return (git_failed (error, "create the repository", self->path), NULL);
      if (!configure (self, error))
        return NULL;
    }
  else if (git_repository_open_ext (&self->repo, self->path,
                                    GIT_REPOSITORY_OPEN_NO_SEARCH | GIT_REPOSITORY_OPEN_BARE,
                                    NULL) != 0)
    return (git_failed (error, "open the repository", self->path), NULL);

  if (!write_rules (self, error))
    return NULL;
  /* In memory only: the shadow's config keeps saying bare. */
  if (git_repository_set_workdir (self->repo, self->workspace, 0) != 0)
    return (git_failed (error, "use the workspace", self->path), NULL);
  return g_steal_pointer (&self);
}

const char *
warden_checkpoints_get_path (WardenCheckpoints *self)
{
  g_return_val_if_fail (WARDEN_IS_CHECKPOINTS (self), NULL);
  return self->path;
}

/* record ------------------------------------------------------------------*/

static gboolean
too_big (WardenCheckpoints *self,
         const char        *rel)
{
  g_autofree char *full = g_build_filename (self->workspace, rel, NULL);
  struct stat st;

  return lstat (full, &st) == 0 && S_ISREG (st.st_mode) &&
         st.st_size > WARDEN_CHECKPOINT_MAX_FILE_SIZE;
}

/* As "git add -A", in one walk of the workspace: new and changed files
 * are added, deleted ones removed, and the stat data of files touched but
 * not changed is brought up to date (GIT_DIFF_UPDATE_INDEX), which is what
 * lets unchanged() answer next time. A file that cannot be read is left
 * out (a restore would not put an old version over it). */
static gboolean
update_index (WardenCheckpoints *self,
              git_index         *index)
{
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  git_diff *diff = NULL;
  size_t n;

  opts.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS |
               GIT_DIFF_INCLUDE_TYPECHANGE | GIT_DIFF_UPDATE_INDEX;
  if (git_diff_index_to_workdir (&diff, self->repo, index, &opts) != 0)
    return FALSE;
  n = git_diff_num_deltas (diff);
  for (size_t i = 0; i < n; i++)
    {
      const git_diff_delta *delta = git_diff_get_delta (diff, i);
      const char *path = delta->new_file.path ? delta->new_file.path : delta->old_file.path;

      /* A folder that holds a repository of its own: not walked into. */
      if (g_str_has_suffix (path, "/"))
        continue;
      if (delta->status == GIT_DELTA_DELETED || too_big (self, path) ||
          git_index_add_bypath (index, path) != 0)
        {
          git_error_clear ();
          git_index_remove_bypath (index, path);
        }
    }
  git_diff_free (diff);
  return TRUE;
}

/* The quick answer for the common step, one whose files did not change:
 * one walk with a stat relative to each folder (cheaper than libgit2's
 * full paths) against the index's stat data. Any doubt says "changed" and
 * the full record runs: a file the index lacks that is not ignored, a
 * stat that differs, a racily clean entry (written in the index's own
 * time stamp), an index written by another object or process. */
typedef struct
{
  WardenCheckpoints *self;
  git_index         *index;
  struct timespec    index_mtime;
  gsize              seen;
} Walk;

static gboolean
is_ignored (Walk       *walk,
            const char *rel)
{
  int ignored = 0;

  return git_ignore_path_is_ignored (&ignored, walk->self->repo, rel) == 0 && ignored;
}

static gboolean
same_as_entry (Walk                  *walk,
               const git_index_entry *e,
               const struct stat     *st)
{
  gboolean link = S_ISLNK (st->st_mode);
  guint32 mode = link ? GIT_FILEMODE_LINK
                      : (st->st_mode & 0100) ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;

  if (e->mode != mode || e->file_size != (guint32) st->st_size ||
      e->ino != (guint32) st->st_ino ||
      e->mtime.seconds != (gint32) st->st_mtim.tv_sec ||
      e->mtime.nanoseconds != (guint32) st->st_mtim.tv_nsec ||
      e->ctime.seconds != (gint32) st->st_ctim.tv_sec ||
      e->ctime.nanoseconds != (guint32) st->st_ctim.tv_nsec)
    return FALSE;
  /* Racily clean: changed in the same instant the index was written. */
  return st->st_mtim.tv_sec < walk->index_mtime.tv_sec ||
         (st->st_mtim.tv_sec == walk->index_mtime.tv_sec &&
          st->st_mtim.tv_nsec < walk->index_mtime.tv_nsec);
}

static gboolean
walk_same (Walk       *walk,
           int         dir_fd,
           GString    *rel)
{
  DIR *dir = fdopendir (dir_fd);
  struct dirent *d;
  gsize len = rel->len;
  gboolean same = TRUE;

  if (dir == NULL)
    {
      close (dir_fd);
      return FALSE;
    }
  while (same && (d = readdir (dir)) != NULL)
    {
      struct stat st;

      if (strcmp (d->d_name, ".") == 0 || strcmp (d->d_name, "..") == 0 ||
          strcmp (d->d_name, ".git") == 0)
        continue;
      g_string_truncate (rel, len);
      g_string_append (rel, d->d_name);
      if (fstatat (dirfd (dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        {
          same = FALSE;
          break;
        }
      if (S_ISDIR (st.st_mode))
        {
          g_autofree char *dotgit = g_strconcat (d->d_name, "/.git", NULL);
          size_t at;
          int sub;

          /* As the record leaves them out: node_modules, a repository of its own. */
          if (strcmp (d->d_name, "node_modules") == 0 ||
              faccessat (dirfd (dir), dotgit, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
            continue;
          g_string_append_c (rel, '/');
          /* A folder the index has nothing of: ignored, or new files. */
          if (git_index_find_prefix (&at, walk->index, rel->str) != 0 &&
              is_ignored (walk, rel->str))
            continue;
          sub = openat (dirfd (dir), d->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          same = sub >= 0 && walk_same (walk, sub, rel);
        }
      else if (S_ISREG (st.st_mode) || S_ISLNK (st.st_mode))
        {
          const git_index_entry *e = git_index_get_bypath (walk->index, rel->str, 0);

          if (e != NULL)
            {
              same = same_as_entry (walk, e, &st);
              walk->seen++;
            }
          else
            same = (S_ISREG (st.st_mode) && st.st_size > WARDEN_CHECKPOINT_MAX_FILE_SIZE) ||
                   is_ignored (walk, rel->str);
        }
    }
  closedir (dir);
  g_string_truncate (rel, len);
  return same;
}

static gboolean
unchanged (WardenCheckpoints *self,
           git_index         *index)
{
  g_autofree char *index_path = g_build_filename (self->path, "index", NULL);
  g_autoptr(GString) rel = g_string_new (NULL);
  Walk walk = { self, index, { 0, 0 }, 0 };
  struct stat st;
  int root;

  if (self->last == NULL || stat (index_path, &st) != 0 ||
      st.st_ino != self->index_stat.st_ino || st.st_size != self->index_stat.st_size ||
      st.st_mtim.tv_sec != self->index_stat.st_mtim.tv_sec ||
      st.st_mtim.tv_nsec != self->index_stat.st_mtim.tv_nsec)
    return FALSE;
  walk.index_mtime = st.st_mtim;
  root = open (self->workspace, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root < 0 || !walk_same (&walk, root, rel))
    return FALSE;
  /* And nothing the index has is gone. */
  return walk.seen == git_index_entrycount (index);
}

char *
warden_checkpoints_record (WardenCheckpoints  *self,
                           const char         *message,
                           GError            **error)
{
  git_index *index = NULL;
  git_tree *tree = NULL;
  git_signature *sig = NULL;
  git_reference *head = NULL;
  git_commit *parent = NULL;
  git_oid tree_oid, commit_oid;
  char hex[GIT_OID_HEXSZ + 1];
  gboolean ok = FALSE;

  g_return_val_if_fail (WARDEN_IS_CHECKPOINTS (self), NULL);

  if (git_repository_index (&index, self->repo) != 0 || git_index_read (index, 0) != 0)
    {
      git_failed (error, "read the index", self->path);
      goto out;
    }
  if (unchanged (self, index))
    {
      git_index_free (index);
      return g_strdup (self->last);
    }
  if (!update_index (self, index))
    {
      git_failed (error, "record the workspace's files", self->path);
      goto out;
    }
  if (git_index_write (index) != 0 || git_index_write_tree (&tree_oid, index) != 0 ||
      git_tree_lookup (&tree, self->repo, &tree_oid) != 0)
    {
      git_failed (error, "write the checkpoint", self->path);
      goto out;
    }
  if (git_reference_lookup (&head, self->repo, CHECKPOINT_REF) == 0)
    git_commit_lookup (&parent, self->repo, git_reference_target (head));
  if (git_signature_now (&sig, "Warden", "warden@localhost") != 0 ||
      git_commit_create (&commit_oid, self->repo, CHECKPOINT_REF, sig, sig, NULL,
                         message != NULL ? message : "checkpoint", tree, parent ? 1 : 0,
                         (const git_commit **) &parent) != 0)
    {
      git_failed (error, "write the checkpoint", self->path);
      goto out;
    }
  ok = TRUE;

out:
  if (sig != NULL)
    git_signature_free (sig);
  if (parent != NULL)
    git_commit_free (parent);
  if (head != NULL)
    git_reference_free (head);
  if (tree != NULL)
    git_tree_free (tree);
  if (index != NULL)
    git_index_free (index);
  if (!ok)
    return NULL;
  git_oid_tostr (hex, sizeof hex, &commit_oid);
  /* What unchanged() compares against next time. */
  {
    g_autofree char *index_path = g_build_filename (self->path, "index", NULL);

    g_free (self->last);
    self->last = stat (index_path, &self->index_stat) == 0 ? g_strdup (hex) : NULL;
  }
  return g_strdup (hex);
}

/* diff --------------------------------------------------------------------*/

static git_tree *
lookup_tree (WardenCheckpoints  *self,
             const char         *id,
             GError            **error)
{
  git_oid oid;
  git_commit *commit = NULL;
  git_tree *tree = NULL;

  if (id == NULL || strlen (id) != GIT_OID_HEXSZ || git_oid_fromstr (&oid, id) != 0 ||
      git_commit_lookup (&commit, self->repo, &oid) != 0)
    {
      g_set_error (error, WARDEN_CHECKPOINT_ERROR, WARDEN_CHECKPOINT_ERROR_NOT_FOUND,
                   _("The checkpoint %s is not in %s (the folder was deleted or replaced): "
                     "the files of that moment cannot be put back"),
                   id != NULL ? id : "(none)", self->path);
      return NULL;
    }
  if (git_commit_tree (&tree, commit) != 0)
    git_failed (error, "read a checkpoint", self->path);
  git_commit_free (commit);
  return tree;
}

static git_diff *
diff_trees (WardenCheckpoints  *self,
            const char         *from,
            const char         *to,
            GError            **error)
{
  git_tree *a = NULL, *b = NULL;
  git_diff *diff = NULL;
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;

  if ((a = lookup_tree (self, from, error)) == NULL ||
      (b = lookup_tree (self, to, error)) == NULL)
    goto out;
  opts.flags = GIT_DIFF_INCLUDE_TYPECHANGE;
  if (git_diff_tree_to_tree (&diff, self->repo, a, b, &opts) != 0)
    git_failed (error, "compare two checkpoints", self->path);

out:
  if (a != NULL)
    git_tree_free (a);
  if (b != NULL)
    git_tree_free (b);
  return diff;
}

static WardenFileChangeKind
kind_of (git_delta_t status)
{
  switch (status)
    {
    case GIT_DELTA_ADDED:
      return WARDEN_FILE_CREATED;
    case GIT_DELTA_DELETED:
      return WARDEN_FILE_DELETED;
    default:
      return WARDEN_FILE_CHANGED;
    }
}

static GPtrArray *
changes_of (git_diff *diff)
{
  GPtrArray *changes = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_file_change_free);
  size_t n = git_diff_num_deltas (diff);

  for (size_t i = 0; i < n; i++)
    {
      const git_diff_delta *delta = git_diff_get_delta (diff, i);
      WardenFileChange *change = g_new0 (WardenFileChange, 1);
      git_patch *patch = NULL;

      change->kind = kind_of (delta->status);
      change->path = g_strdup (delta->new_file.path ? delta->new_file.path
                                                    : delta->old_file.path);
      /* Whether it is binary is known once its content is looked at. */
      if (git_patch_from_diff (&patch, diff, i) == 0 && patch != NULL)
        {
          change->binary = (git_patch_get_delta (patch)->flags & GIT_DIFF_FLAG_BINARY) != 0;
          git_patch_free (patch);
        }
      g_ptr_array_add (changes, change);
    }
  return changes;
}

GPtrArray *
warden_checkpoints_diff (WardenCheckpoints  *self,
                         const char         *from,
                         const char         *to,
                         GError            **error)
{
  git_diff *diff;
  GPtrArray *changes;

  g_return_val_if_fail (WARDEN_IS_CHECKPOINTS (self), NULL);

  if ((diff = diff_trees (self, from, to, error)) == NULL)
    return NULL;
  changes = changes_of (diff);
  git_diff_free (diff);
  return changes;
}

/* As warden_diff_unified() writes them, one file after another: each
 * begins with a note line that names it ("\ a.txt"), no git headers
 * that a view would take for removed and added lines. */
static int
print_line_cb (const git_diff_delta *delta,
               const git_diff_hunk  *hunk,
               const git_diff_line  *line,
               void                 *payload)
{
  GString *out = payload;

  switch (line->origin)
    {
    case GIT_DIFF_LINE_FILE_HDR:
      g_string_append_printf (out, "\\ %s\n", delta->new_file.path ? delta->new_file.path
                                                                   : delta->old_file.path);
      break;
    case GIT_DIFF_LINE_HUNK_HDR:
      g_string_append_len (out, line->content, (gssize) line->content_len);
      break;
    case GIT_DIFF_LINE_BINARY:
      g_string_append (out, "\\ binary, not shown\n");
      break;
    case GIT_DIFF_LINE_CONTEXT_EOFNL:
    case GIT_DIFF_LINE_ADD_EOFNL:
    case GIT_DIFF_LINE_DEL_EOFNL:
      g_string_append (out, "\\ No newline at end of file\n");
      break;
    case GIT_DIFF_LINE_CONTEXT:
    case GIT_DIFF_LINE_ADDITION:
    case GIT_DIFF_LINE_DELETION:
      g_string_append_c (out, line->origin);
      g_string_append_len (out, line->content, (gssize) line->content_len);
      if (line->content_len == 0 || line->content[line->content_len - 1] != '\n')
        g_string_append_c (out, '\n');
      break;
    default:
      break;
    }
  return 0;
}

char *
warden_checkpoints_diff_text (WardenCheckpoints  *self,
                              const char         *from,
                              const char         *to,
                              GError            **error)
{
  git_diff *diff;
  GString *out;

  g_return_val_if_fail (WARDEN_IS_CHECKPOINTS (self), NULL);

  if ((diff = diff_trees (self, from, to, error)) == NULL)
    return NULL;
  out = g_string_new (NULL);
  if (git_diff_print (diff, GIT_DIFF_FORMAT_PATCH, print_line_cb, out) != 0)
    {
      git_failed (error, "compare two checkpoints", self->path);
      g_string_free (out, TRUE);
      git_diff_free (diff);
      return NULL;
    }
  git_diff_free (diff);
  return g_string_free (out, FALSE);
}

gboolean
warden_checkpoints_preview (WardenCheckpoints  *self,
                            const char         *to,
                            GPtrArray         **changes,
                            char              **diff,
                            GError            **error)
{
  g_autofree char *now = NULL;
  g_autoptr(GPtrArray) list = NULL;
  g_autofree char *text = NULL;
  git_tree *tree;

  g_return_val_if_fail (WARDEN_IS_CHECKPOINTS (self), FALSE);

  if ((tree = lookup_tree (self, to, error)) == NULL)
    return FALSE;
  git_tree_free (tree);
  if ((now = warden_checkpoints_record (self, "preview of a restore", error)) == NULL ||
      (list = warden_checkpoints_diff (self, now, to, error)) == NULL ||
      (diff != NULL && (text = warden_checkpoints_diff_text (self, now, to, error)) == NULL))
    return FALSE;
  for (guint i = 0; i < list->len; i++)
    {
      WardenFileChange *c = g_ptr_array_index (list, i);

      c->skipped = warden_path_is_protected (c->path);
    }
  if (changes != NULL)
    *changes = g_steal_pointer (&list);
  if (diff != NULL)
    *diff = g_steal_pointer (&text);
  return TRUE;
}

/* restore -----------------------------------------------------------------*/

/* The folder that holds @rel, opened one name at a time with no link
 * followed; with @create, missing folders are made. @name: the last name. */
static int
open_parent (int          root_fd,
             const char  *rel,
             gboolean     create,
             const char **name,
             GError     **error)
{
  g_auto(GStrv) parts = g_strsplit (rel, "/", -1);
  guint n = g_strv_length (parts);
  int fd = dup (root_fd);

  for (guint i = 0; fd >= 0 && i + 1 < n; i++)
    {
      int next = openat (fd, parts[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

      if (next < 0 && errno == ENOENT && create)
        {
          if (mkdirat (fd, parts[i], 0777) != 0 && errno != EEXIST)
            {
              int saved = errno;

              g_set_error (error, WARDEN_CHECKPOINT_ERROR, WARDEN_CHECKPOINT_ERROR_FAILED,
                           _("Could not create the folder of “%s”: %s"), rel,
                           g_strerror (saved));
              close (fd);
              return -1;
            }
          next = openat (fd, parts[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
      if (next < 0)
        {
          int saved = errno;

          if (saved == ELOOP || saved == ENOTDIR)
            g_set_error (error, WARDEN_CHECKPOINT_ERROR, WARDEN_CHECKPOINT_ERROR_OUTSIDE,
                         _("“%s” is not restored: “%s” on its way is a symbolic link or a file "
                           "now, and Warden does not write through it; move it away and "
                           "restore again"), rel, parts[i]);
          else if (saved == ENOENT)
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s", g_strerror (saved));
          else
            g_set_error (error, WARDEN_CHECKPOINT_ERROR, WARDEN_CHECKPOINT_ERROR_FAILED,
                         _("Could not open the folder of “%s”: %s"), rel, g_strerror (saved));
          close (fd);
          return -1;
        }
      close (fd);
      fd = next;
    }
  *name = rel + (strrchr (rel, '/') ? strrchr (rel, '/') - rel + 1 : 0);
  return fd;
}

static gboolean
remove_file (int          root_fd,
             const char  *rel,
             GError     **error)
{
  g_autoptr(GError) local = NULL;
  const char *name;
  int dir = open_parent (root_fd, rel, FALSE, &name, &local);

  if (dir < 0)
    {
      /* Gone already, with its folder: nothing to delete. */
      if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  if (unlinkat (dir, name, 0) != 0 && errno != ENOENT)
    {
      int saved = errno;

      /* A folder now where the file was: its files were not in the
       * checkpoint (ignored, or too big), so it stays. */
      if (saved != EISDIR)
        g_set_error (error, WARDEN_CHECKPOINT_ERROR, WARDEN_CHECKPOINT_ERROR_FAILED,
                     _("Could not delete “%s”: %s"), rel, g_strerror (saved));
      close (dir);
      return saved == EISDIR;
    }
  close (dir);
  return TRUE;
}

/* Folders left empty by deleted files go too, unless @tree has them. */
static void
remove_empty_folders (int         root_fd,
                      git_tree   *tree,
                      const char *rel)
{
  g_autofree char *folder = g_path_get_dirname (rel);

  while (strcmp (folder, ".") != 0)
    {
      git_tree_entry *entry = NULL;
      const char *name;
      g_autofree char *up = NULL;
      int dir;

      if (git_tree_entry_bypath (&entry, tree, folder) == 0)
        {
          git_tree_entry_free (entry);
          return;
        }
      dir = open_parent (root_fd, folder, FALSE, &name, NULL);
      if (dir < 0)
        return;
      if (unlinkat (dir, name, AT_REMOVEDIR) != 0)
        {
          close (dir);
          return;
        }
      close (dir);
      up = g_path_get_dirname (folder);
      g_free (folder);
      folder = g_steal_pointer (&up);
    }
}

static gboolean
write_file (WardenCheckpoints  *self,
            int                 root_fd,
            const git_diff_file *file,
            GError            **error)
{
  const char *rel = file->path;
  const char *name;
  git_blob *blob = NULL;
  const char *data;
  gsize size;
  int dir, fd = -1;
  g_autofree char *tmp = NULL;
  gboolean ok = FALSE;

  if (git_blob_lookup (&blob, self->repo, &file->id) != 0)
    return git_failed (error, "read a file of the checkpoint", self->path);
  data = git_blob_rawcontent (blob);
  size = (gsize) git_blob_rawsize (blob);
  if ((dir = open_parent (root_fd, rel, TRUE, &name, error)) < 0)
    {
      git_blob_free (blob);
      return FALSE;
    }

  tmp = g_strdup_printf (".%s.warden-restore-%u", name, g_random_int ());
  if (file->mode == GIT_FILEMODE_LINK)
    {
      g_autofree char *target = g_strndup (data, size);

      if (symlinkat (target, dir, tmp) != 0)
        goto failed;
    }
  else
    {
      gsize done = 0;

      fd = openat (dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                   file->mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0777 : 0666);
      if (fd < 0)
        goto failed;
      while (done < size)
        {
          ssize_t n = write (fd, data + done, size - done);

          if (n < 0 && errno == EINTR)
            continue;
          if (n < 0)
            goto failed;
          done += (gsize) n;
        }
      if (close (fd) != 0)
        {
          fd = -1;
          goto failed;
        }
      fd = -1;
    }
  if (renameat (dir, tmp, dir, name) != 0)
    {
      /* An empty folder where the file goes (its files deleted above). */
      if ((errno != EISDIR && errno != ENOTEMPTY && errno != EEXIST) ||
          unlinkat (dir, name, AT_REMOVEDIR) != 0 || renameat (dir, tmp, dir, name) != 0)
        goto failed;
    }
  ok = TRUE;
  goto out;

failed:
  {
    int saved = errno;

    g_set_error (error, WARDEN_CHECKPOINT_ERROR, WARDEN_CHECKPOINT_ERROR_FAILED,
                 _("Could not write “%s”: %s"), rel, g_strerror (saved));
    if (fd >= 0)
      close (fd);
    unlinkat (dir, tmp, 0);
  }

out:
  close (dir);
  git_blob_free (blob);
  return ok;
}

gboolean
warden_checkpoints_restore (WardenCheckpoints  *self,
                            const char         *to,
                            char              **undo,
                            GPtrArray         **changes,
                            GError            **error)
{
  g_autofree char *now = NULL;
  g_autofree char *message = NULL;
  g_autoptr(GPtrArray) done = NULL;
  git_diff *diff = NULL;
  git_tree *tree = NULL;
  size_t n;
  int root_fd = -1;
  gboolean ok = FALSE;

  g_return_val_if_fail (WARDEN_IS_CHECKPOINTS (self), FALSE);

  /* Refused before anything is recorded: a restore to nothing. */
  if ((tree = lookup_tree (self, to, error)) == NULL)
    return FALSE;
  message = g_strdup_printf ("before restoring %s", to);
  if ((now = warden_checkpoints_record (self, message, error)) == NULL ||
      (diff = diff_trees (self, now, to, error)) == NULL)
    goto out;
  root_fd = open (self->workspace, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0)
    {
      int saved = errno;

      g_set_error (error, WARDEN_CHECKPOINT_ERROR, WARDEN_CHECKPOINT_ERROR_FAILED,
                   _("Could not open the workspace %s: %s"), self->workspace,
                   g_strerror (saved));
      goto out;
    }

  done = changes_of (diff);
  n = git_diff_num_deltas (diff);
  for (size_t i = 0; i < n; i++)
    {
      WardenFileChange *change = g_ptr_array_index (done, i);

      change->skipped = warden_path_is_protected (change->path);
    }

  /* What goes first, so that a file can take the place of a folder and a
   * folder the place of a file or link. */
  for (size_t i = 0; i < n; i++)
    {
      const git_diff_delta *delta = git_diff_get_delta (diff, i);
      WardenFileChange *change = g_ptr_array_index (done, i);

      if (change->skipped)
        continue;
      if ((delta->status == GIT_DELTA_DELETED || delta->status == GIT_DELTA_TYPECHANGE) &&
          !remove_file (root_fd, delta->old_file.path, error))
        goto out;
      if (delta->status == GIT_DELTA_DELETED)
        remove_empty_folders (root_fd, tree, delta->old_file.path);
    }
  for (size_t i = 0; i < n; i++)
    {
      const git_diff_delta *delta = git_diff_get_delta (diff, i);
      WardenFileChange *change = g_ptr_array_index (done, i);

      if (change->skipped || delta->status == GIT_DELTA_DELETED)
        continue;
      if (!write_file (self, root_fd, &delta->new_file, error))
        goto out;
    }
  ok = TRUE;

out:
  if (root_fd >= 0)
    close (root_fd);
  if (diff != NULL)
    git_diff_free (diff);
  git_tree_free (tree);
  /* The way back holds even when the restore stopped half-way. */
  if (undo != NULL)
    *undo = g_steal_pointer (&now);
  if (ok && changes != NULL)
    *changes = g_steal_pointer (&done);
  return ok;
}
