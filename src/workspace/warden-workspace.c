/* warden-workspace.c: the agent's file tools, confined to the workspace
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

/* O_PATH, strchrnul; must come before the first system header. */
#define _GNU_SOURCE 1

#define G_LOG_DOMAIN "warden-sandbox"

#include <glib/gi18n.h>

#include "workspace/warden-workspace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "policy/warden-protected-path.h"

/* The sandboxed commands write into the same folder, so they can plant
 * symbolic links (and swap them in between two of our calls) to make the
 * host follow them. Every open here therefore starts from root_fd and goes
 * either through openat2 (RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS), or,
 * where the kernel or a seccomp filter refuses openat2, through walk_open(),
 * which does the same resolution in user space one name at a time with
 * O_NOFOLLOW and keeps its own stack of folder fds for "..". Both follow a
 * relative link that stays beneath the root, and refuse (EXDEV) an absolute
 * link or a ".." that climbs above it, even if it would come back.
 *
 * Writes never go through a link in the last name: write and edit refuse
 * it, with OUTSIDE when it leads out and INVALID (naming the target) when it
 * stays inside, rather than replacing the link with a file or guessing
 * which file the agent meant. Glob and grep never follow links at all, to
 * folders or to files (like ripgrep by default), and do not enter folders
 * named ".git" unless the pattern names ".git" literally. */

#ifndef SYS_openat2
# define SYS_openat2 437
#endif

#define MAX_FILE_SIZE      (10 * 1024 * 1024)
#define BINARY_PROBE_SIZE  8192
#define MAX_SYMLINKS       40
#define MAX_WALK_DEPTH     256
#define MAX_ALTERNATIVES   256
#define MAX_PATTERN_LENGTH 4096
#define MAX_PATTERN_NAMES  256
#define DEFAULT_GLOB_MAX   1000
#define DEFAULT_GREP_MAX   200
/* Backtracking steps per line: a tenth of PCRE2's default, about 10 ms of
 * the worst kind of pattern; a line that needs more ends the search. */
#define GREP_MATCH_LIMIT   1000000
#define DEFAULT_GREP_BUDGET_MS 5000

struct _WardenWorkspace
{
  GObject   parent_instance;

  char     *root;
  char     *root_real;
  char     *root_canonical;  /* root_real, or root when that is real already */
  char     *inside;
  int       root_fd;
  gboolean  use_openat2;
  guint     grep_budget_ms;
};

static void warden_workspace_initable_iface_init (GInitableIface *iface);

G_DEFINE_TYPE_WITH_CODE (WardenWorkspace, warden_workspace, G_TYPE_OBJECT,
                         G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE,
                                                warden_workspace_initable_iface_init))

G_DEFINE_QUARK (warden-workspace-error-quark, warden_workspace_error)

enum {
  PROP_0,
  PROP_ROOT,
  PROP_INSIDE,
  PROP_USE_OPENAT2,
  PROP_GREP_BUDGET,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

WardenWorkspaceTarget *
warden_workspace_target_new (const char *path)
{
  WardenWorkspaceTarget *target;

  g_return_val_if_fail (path != NULL && g_path_is_absolute (path), NULL);

  target = g_new0 (WardenWorkspaceTarget, 1);
  target->path = g_canonicalize_filename (path, NULL);
  return target;
}

WardenWorkspaceTarget *
warden_workspace_target_copy (const WardenWorkspaceTarget *target)
{
  WardenWorkspaceTarget *copy;

  if (target == NULL)
    return NULL;
  copy = g_memdup2 (target, sizeof *target);
  copy->path = g_strdup (target->path);
  return copy;
}

void
warden_workspace_target_free (WardenWorkspaceTarget *target)
{
  if (target == NULL)
    return;
  g_free (target->path);
  g_free (target);
}

void
warden_grep_match_free (WardenGrepMatch *match)
{
  if (match == NULL)
    return;
  g_free (match->path);
  g_free (match->line);
  g_strfreev (match->before);
  g_strfreev (match->after);
  g_free (match);
}

/* Paths */

/* The names in @path, without empty ones and "."; ".." is kept. */
static GPtrArray *
split_path (const char *path)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  const char *p = path;

  while (*p != '\0')
    {
      const char *end = strchrnul (p, '/');
      gsize len = end - p;

      if (len > 0 && !(len == 1 && p[0] == '.'))
        g_ptr_array_add (names, g_strndup (p, len));
      p = *end != '\0' ? end + 1 : end;
    }
  return names;
}

static char *
join_names (GPtrArray *names,
            guint      from,
            guint      to)
{
  GString *s = g_string_new (NULL);

  for (guint i = from; i < to; i++)
    {
      if (s->len > 0)
        g_string_append_c (s, '/');
      g_string_append (s, g_ptr_array_index (names, i));
    }
  return g_string_free (s, FALSE);
}

static gboolean
has_prefix (GPtrArray  *names,
            const char *prefix,
            guint      *n_prefix)
{
  g_autoptr(GPtrArray) prefix_names = NULL;

  if (prefix == NULL)
    return FALSE;
  prefix_names = split_path (prefix);
  if (prefix_names->len > names->len)
    return FALSE;
  for (guint i = 0; i < prefix_names->len; i++)
    if (strcmp (g_ptr_array_index (names, i), g_ptr_array_index (prefix_names, i)) != 0)
      return FALSE;
  *n_prefix = prefix_names->len;
  return TRUE;
}

static void set_resolve_error (GError **error, int err, const char *path);

/* @path relative to the root ("" for the root itself). Lexical: a ".."
 * that climbs above the root is refused here already (so a write does not
 * create folders before failing, and "missing/../../x" is OUTSIDE rather
 * than NOT_FOUND); other ".." are left for the kernel (or walk_open). */
static char *
workspace_relative (WardenWorkspace  *self,
                    const char       *path,
                    GError          **error)
{
  g_autoptr(GPtrArray) names = NULL;
  guint skip = 0;

  if (path == NULL)
    {
      g_set_error_literal (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                           _("No path was given"));
      return NULL;
    }

  names = split_path (path);
  if (g_path_is_absolute (path) &&
      !has_prefix (names, self->root, &skip) &&
      !has_prefix (names, self->root_real, &skip) &&
      !has_prefix (names, self->inside, &skip))
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE,
                   _("“%s” is outside the workspace; use a path under “%s”"),
                   path, self->inside != NULL ? self->inside : self->root);
      return NULL;
    }
  for (guint i = skip, depth = 0; i < names->len; i++)
    {
      if (strcmp (g_ptr_array_index (names, i), "..") != 0)
        depth++;
      else if (depth-- == 0)
        {
          set_resolve_error (error, EXDEV, path);
          return NULL;
        }
    }
  return join_names (names, skip, names->len);
}

/* Resolution */

static void
push_names (GPtrArray  *todo,
            const char *path)
{
  g_autoptr(GPtrArray) names = split_path (path);

  /* The next name to resolve is the last element. */
  for (guint i = names->len; i > 0; i--)
    g_ptr_array_add (todo, g_steal_pointer (&names->pdata[i - 1]));
}

/* openat2's RESOLVE_BENEATH in user space: one name at a time with
 * O_NOFOLLOW from fds we hold, links read through the fd we opened (so a
 * link swapped in afterwards is never read), ".." from our own stack of
 * folders (never from the file system, whose ".." a rename could move).
 * Returns an fd or -errno; -EXDEV when the path leads out. */
static int
walk_open (int         root_fd,
           const char *rel,
           int         flags)
{
  g_autoptr(GArray) dirs = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr(GPtrArray) todo = g_ptr_array_new_with_free_func (g_free);
  guint links = 0;
  int ret;

  push_names (todo, rel);
  while (todo->len > 0)
    {
      g_autofree char *name = g_ptr_array_steal_index (todo, todo->len - 1);
      int cur = dirs->len > 0 ? g_array_index (dirs, int, dirs->len - 1) : root_fd;
      gboolean last = todo->len == 0;
      struct stat st;
      int fd;

      if (strcmp (name, "..") == 0)
        {
          if (dirs->len == 0)
            {
              ret = -EXDEV;
              goto out;
            }
          close (cur);
          g_array_set_size (dirs, dirs->len - 1);
          continue;
        }

      /* The last name is opened as asked right away: O_NOFOLLOW guarantees
       * it is no link, with no window between a check and the open. Only
       * if it fails as a link would (ELOOP, or ENOTDIR with O_DIRECTORY)
       * do we look at what is there. */
      if (last && !(flags & O_PATH))
        {
          int err;

          ret = openat (cur, name, flags | O_NOFOLLOW | O_CLOEXEC);
          if (ret >= 0)
            goto out;
          err = errno;
          if (err != ELOOP && err != ENOTDIR)
            {
              ret = -err;
              goto out;
            }
          fd = openat (cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
          if (fd < 0 || fstat (fd, &st) < 0)
            {
              ret = -errno;
              if (fd >= 0)
                close (fd);
              goto out;
            }
          if (!S_ISLNK (st.st_mode))
            {
              close (fd);
              if (err == ENOTDIR || ++links > MAX_SYMLINKS)
                {
                  ret = -err;
                  goto out;
                }
              /* A link was there a moment ago and is gone: again. */
              g_ptr_array_add (todo, g_steal_pointer (&name));
              continue;
            }
        }
      else
        {
          fd = openat (cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
          if (fd < 0 || fstat (fd, &st) < 0)
            {
              ret = -errno;
              if (fd >= 0)
                close (fd);
              goto out;
            }
        }

      if (S_ISLNK (st.st_mode))
        {
          char target[4096];
          ssize_t n;

          if (++links > MAX_SYMLINKS)
            {
              close (fd);
              ret = -ELOOP;
              goto out;
            }
          /* Through the fd: the link we looked at, not one swapped in since. */
          n = readlinkat (fd, "", target, sizeof target);
          ret = -errno;
          close (fd);
          if (n < 0)
            goto out;
          if ((gsize) n >= sizeof target)
            {
              ret = -ENAMETOOLONG;
              goto out;
            }
          target[n] = '\0';
          if (target[0] == '/')
            {
              ret = -EXDEV;
              goto out;
            }
          push_names (todo, target);
          continue;
        }

      if (last)
        {
          /* O_PATH: the fd we have is the answer. */
          if ((flags & O_DIRECTORY) && !S_ISDIR (st.st_mode))
            {
              close (fd);
              ret = -ENOTDIR;
            }
          else
            ret = fd;
          goto out;
        }

      if (!S_ISDIR (st.st_mode))
        {
          close (fd);
          ret = -ENOTDIR;
          goto out;
        }
      g_array_append_val (dirs, fd);
    }

  /* The path ended on a folder: "", "a/..", or a link to ".". */
  ret = openat (dirs->len > 0 ? g_array_index (dirs, int, dirs->len - 1) : root_fd,
                ".", flags | O_CLOEXEC);
  if (ret < 0)
    ret = -errno;

out:
  for (guint i = 0; i < dirs->len; i++)
    close (g_array_index (dirs, int, i));
  return ret;
}

/* Opens @rel (relative to the root) with @flags, following links that stay
 * beneath the root. Returns an fd or -errno; -EXDEV when it leads out. */
static int
resolve_open (WardenWorkspace *self,
              const char      *rel,
              int              flags)
{
  if (self->use_openat2)
    {
      struct open_how how = { 0 };

      how.flags = flags | O_CLOEXEC;
      how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;

      /* EAGAIN: a rename raced with a ".." in the path; the kernel asks us
       * to try again rather than risk a wrong answer. */
      for (guint i = 0; i < 64; i++)
        {
          int fd = (int) syscall (SYS_openat2, self->root_fd, rel[0] != '\0' ? rel : ".",
                                  &how, sizeof how);

          if (fd >= 0)
            return fd;
          if (errno != EAGAIN && errno != EINTR)
            return -errno;
        }
      return -EAGAIN;
    }

  return walk_open (self->root_fd, rel, flags);
}

static void
set_resolve_error (GError     **error,
                   int          err,
                   const char  *path)
{
  switch (err)
    {
    case EXDEV:
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE,
                   _("“%s” leads outside the workspace (through “..” or a symbolic link); "
                     "Warden only reaches files inside it"), path);
      break;

    case ENOENT:
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_NOT_FOUND,
                   _("“%s” does not exist"), path);
      break;

    case ENOTDIR:
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_NOT_FOUND,
                   _("“%s” does not exist: part of it is a file, not a folder"), path);
      break;

    case ELOOP:
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_FAILED,
                   _("Could not open “%s”: too many levels of symbolic links"), path);
      break;

    case EAGAIN:
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_FAILED,
                   _("Could not open “%s”: it kept changing while being opened; try again"),
                   path);
      break;

    default:
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_FAILED,
                   _("Could not open “%s”: %s"), path, g_strerror (err));
      break;
    }
}

/* Protected paths */

/* The folder @dir_fd holds, relative to the root, as the kernel names it
 * (not as the path spelled it: links are behind us). NULL when it cannot
 * tell, /proc missing, or the folder is not under the root any more. */
static char *
dir_fd_relative (WardenWorkspace *self,
                 int              dir_fd)
{
  char proc[64];
  char buf[PATH_MAX];
  gsize root_len = strlen (self->root_canonical);
  ssize_t n;

  g_snprintf (proc, sizeof proc, "/proc/self/fd/%d", dir_fd);
  n = readlink (proc, buf, sizeof buf);
  if (n <= 0 || (gsize) n >= sizeof buf || buf[0] != '/')
    return NULL;
  buf[n] = '\0';

  if (strcmp (self->root_canonical, "/") == 0)
    return g_strdup (buf + 1);
  if (strncmp (buf, self->root_canonical, root_len) != 0)
    return NULL;
  if (buf[root_len] == '\0')
    return g_strdup ("");
  if (buf[root_len] != '/')
    return NULL;
  return g_strdup (buf + root_len + 1);
}

static void
set_protected_error (GError     **error,
                     const char  *path,
                     const char  *real)
{
  if (real != NULL && strcmp (real, path) != 0)
    g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_PROTECTED,
                 _("“%s” leads to “%s”, a protected path: writing it can make git, a shell or "
                   "an editor run something on the computer, so the user must approve it"),
                 path, real);
  else
    g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_PROTECTED,
                 _("“%s” is a protected path: writing it can make git, a shell or an editor "
                   "run something on the computer, so the user must approve it"), path);
}

/* FALSE with PROTECTED when @name in the folder @dir_fd is protected, or
 * when where that folder is cannot be told (then asking is the safe way). */
static gboolean
check_not_protected (WardenWorkspace  *self,
                     int               dir_fd,
                     const char       *name,
                     const char       *path,
                     GError          **error)
{
  g_autofree char *dir = dir_fd_relative (self, dir_fd);
  g_autofree char *rel = NULL;

  if (dir == NULL)
    {
      set_protected_error (error, path, NULL);
      return FALSE;
    }
  rel = dir[0] != '\0' ? g_strconcat (dir, "/", name, NULL) : g_strdup (name);
  if (!warden_path_is_protected (rel))
    return TRUE;
  set_protected_error (error, path, rel);
  return FALSE;
}

/* Reading */

/* The text in @fd, which must be a regular file of valid UTF-8 without NUL
 * bytes and at most MAX_FILE_SIZE bytes. */
static char *
read_fd_text (int           fd,
              const char   *path,
              gsize        *length,
              struct stat  *out_st,
              GError      **error)
{
  g_autoptr(GByteArray) buf = NULL;
  struct stat st;
  gboolean probed = FALSE;

  if (fstat (fd, &st) < 0)
    {
      int err = errno;

      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_FAILED,
                   _("Could not read “%s”: %s"), path, g_strerror (err));
      return NULL;
    }
  if (S_ISDIR (st.st_mode))
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_IS_DIRECTORY,
                   _("“%s” is a folder, not a file; use glob to list it"), path);
      return NULL;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                   _("“%s” is not a regular file (a pipe, socket or device)"), path);
      return NULL;
    }
  if (st.st_size > MAX_FILE_SIZE)
    {
      g_autofree char *size = g_format_size (st.st_size);
      g_autofree char *max = g_format_size (MAX_FILE_SIZE);

      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_TOO_LARGE,
                   _("“%s” is too large (%s); Warden reads files up to %s"), path, size, max);
      return NULL;
    }

  buf = g_byte_array_sized_new (st.st_size + 1);
  for (;;)
    {
      gsize len = buf->len;
      ssize_t n;

      g_byte_array_set_size (buf, len + 65536);
      n = read (fd, buf->data + len, 65536);
      if (n < 0)
        {
          int err = errno;

          g_byte_array_set_size (buf, len);
          if (err == EINTR)
            continue;
          g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_FAILED,
                       _("Could not read “%s”: %s"), path, g_strerror (err));
          return NULL;
        }
      g_byte_array_set_size (buf, len + n);
      if (n == 0)
        break;

      /* It may have grown since the fstat. */
      if (buf->len > MAX_FILE_SIZE)
        {
          g_autofree char *max = g_format_size (MAX_FILE_SIZE);

          g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_TOO_LARGE,
                       _("“%s” is too large; Warden reads files up to %s"), path, max);
          return NULL;
        }
      if (!probed && buf->len >= BINARY_PROBE_SIZE)
        {
          probed = TRUE;
          if (memchr (buf->data, '\0', BINARY_PROBE_SIZE) != NULL)
            goto binary;
        }
    }
  if (!probed && memchr (buf->data, '\0', buf->len) != NULL)
    goto binary;

  if (!g_utf8_validate_len ((const char *) buf->data, buf->len, NULL))
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_BINARY,
                   _("“%s” is not valid UTF-8 text; Warden reads text files only"), path);
      return NULL;
    }

  *length = buf->len;
  if (out_st != NULL)
    *out_st = st;
  g_byte_array_append (buf, (const guint8 *) "", 1);
  return (char *) g_byte_array_free (g_steal_pointer (&buf), FALSE);

binary:
  g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_BINARY,
               _("“%s” is a binary file (it contains NUL bytes); Warden reads text files only"),
               path);
  return NULL;
}

static char *
slice_lines (const char *text,
             gsize       length,
             guint       offset,
             guint       limit)
{
  const char *end = text + length;
  const char *start = text;
  const char *stop;

  for (guint i = 0; i < offset && start < end; i++)
    {
      const char *nl = memchr (start, '\n', end - start);
      start = nl != NULL ? nl + 1 : end;
    }
  if (limit == 0)
    return g_strndup (start, end - start);

  stop = start;
  for (guint i = 0; i < limit && stop < end; i++)
    {
      const char *nl = memchr (stop, '\n', end - stop);
      stop = nl != NULL ? nl + 1 : end;
    }
  return g_strndup (start, stop - start);
}

static char *
workspace_read (WardenWorkspace  *self,
                const char       *path,
                guint             offset,
                guint             limit,
                GError          **error)
{
  g_autofree char *rel = NULL;
  g_autofree char *text = NULL;
  gsize length;
  int fd;

  if (!(rel = workspace_relative (self, path, error)))
    return NULL;

  /* O_NONBLOCK: a fifo planted by a command must not hang us in open(). */
  fd = resolve_open (self, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    {
      set_resolve_error (error, -fd, path);
      return NULL;
    }
  text = read_fd_text (fd, path, &length, NULL, error);
  close (fd);
  if (text == NULL)
    return NULL;

  if (offset == 0 && limit == 0)
    return g_steal_pointer (&text);
  return slice_lines (text, length, offset, limit);
}

/* Writing */

/* The folder that holds @rel's last name, confined, created if @create;
 * returns an O_PATH fd or -1. */
static int
open_parent (WardenWorkspace  *self,
             const char       *path,
             const char       *rel,
             gboolean          create,
             char            **name,
             GError          **error)
{
  g_autoptr(GPtrArray) names = split_path (rel);
  g_autofree char *parent = NULL;
  const char *last;
  int dir_fd;

  if (names->len == 0)
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                   _("“%s” is the workspace folder itself, not a file"), path);
      return -1;
    }
  last = g_ptr_array_index (names, names->len - 1);
  if (strcmp (last, "..") == 0)
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                   _("“%s” does not name a file"), path);
      return -1;
    }

  parent = join_names (names, 0, names->len - 1);
  dir_fd = resolve_open (self, parent, O_PATH | O_DIRECTORY);

  /* Create the missing folders one at a time, each with mkdirat in a folder
   * fd that was itself resolved beneath the root; mkdirat never follows a
   * link in its last name, and the reopen goes through resolve_open again. */
  if (dir_fd == -ENOENT && create)
    {
      int prev = -1;

      for (guint i = 0; i + 1 < names->len; i++)
        {
          g_autofree char *prefix = join_names (names, 0, i + 1);
          int fd = resolve_open (self, prefix, O_PATH | O_DIRECTORY);

          /* No folder is made inside a protected one (a link to .git/hooks
           * included) before the write is refused. */
          if (fd == -ENOENT &&
              !check_not_protected (self, prev >= 0 ? prev : self->root_fd,
                                    g_ptr_array_index (names, i), path, error))
            {
              if (prev >= 0)
                close (prev);
              return -1;
            }
          if (fd == -ENOENT &&
              mkdirat (prev >= 0 ? prev : self->root_fd, g_ptr_array_index (names, i), 0777) < 0 &&
              errno != EEXIST)
            {
              int err = errno;

              g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_FAILED,
                           _("Could not create the folder “%s” for “%s”: %s"),
                           prefix, path, g_strerror (err));
              if (prev >= 0)
                close (prev);
              return -1;
            }
          if (fd == -ENOENT)
            fd = resolve_open (self, prefix, O_PATH | O_DIRECTORY);
          if (prev >= 0)
            close (prev);
          prev = -1;
          if (fd < 0)
            {
              set_resolve_error (error, -fd, path);
              return -1;
            }
          prev = fd;
        }
      dir_fd = prev;
    }

  if (dir_fd < 0)
    {
      set_resolve_error (error, -dir_fd, path);
      return -1;
    }

  *name = g_strdup (last);
  return dir_fd;
}

/* FALSE with an error when @name in @dir_fd is something a write must not
 * replace: a symbolic link, a folder, a fifo... */
static gboolean
check_target (WardenWorkspace  *self,
              int               dir_fd,
              const char       *name,
              const char       *rel,
              const char       *path,
              gboolean          must_exist,
              struct stat      *st,
              gboolean         *exists,
              GError          **error)
{
  *exists = FALSE;
  if (fstatat (dir_fd, name, st, AT_SYMLINK_NOFOLLOW) < 0)
    {
      int err = errno;

      if (err == ENOENT && !must_exist)
        return TRUE;
      if (err == ENOENT)
        g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_NOT_FOUND,
                     _("“%s” does not exist"), path);
      else
        g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_FAILED,
                     _("Could not look at “%s”: %s"), path, g_strerror (err));
      return FALSE;
    }
  *exists = TRUE;

  if (S_ISLNK (st->st_mode))
    {
      char target[4096];
      ssize_t n;
      int fd = resolve_open (self, rel, O_PATH);

      if (fd >= 0)
        close (fd);
      if (fd == -EXDEV)
        {
          g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE,
                       _("“%s” is a symbolic link that leads outside the workspace; "
                         "Warden only writes files inside it"), path);
          return FALSE;
        }
      n = readlinkat (dir_fd, name, target, sizeof target - 1);
      target[MAX (n, 0)] = '\0';
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                   _("“%s” is a symbolic link (to “%s”); Warden does not write through "
                     "links, so write to the file it points to instead"), path, target);
      return FALSE;
    }
  if (S_ISDIR (st->st_mode))
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_IS_DIRECTORY,
                   _("“%s” is a folder, not a file"), path);
      return FALSE;
    }
  if (!S_ISREG (st->st_mode))
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                   _("“%s” is not a regular file (a pipe, socket or device)"), path);
      return FALSE;
    }
  return TRUE;
}

static gboolean
write_all (int         fd,
           const char *content,
           gsize       length)
{
  while (length > 0)
    {
      ssize_t n = write (fd, content, MIN (length, (gsize) G_MAXSSIZE));

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return FALSE;
      content += n;
      length -= n;
    }
  return TRUE;
}

/* Writes a temporary file next to @name and renames it over @name, so
 * readers see the old file or the new one, never a half-written one. */
static gboolean
replace_file (int                dir_fd,
              const char        *name,
              const char        *path,
              const char        *content,
              gsize              length,
              const struct stat *old,
              GError           **error)
{
  g_autofree char *tmp = NULL;
  const char *step;
  int fd = -1;
  int err;

  for (guint i = 0; i < 100 && fd < 0; i++)
    {
      g_clear_pointer (&tmp, g_free);
      tmp = g_strdup_printf (".warden-%08x%08x.tmp", g_random_int (), g_random_int ());
      fd = openat (dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                   old != NULL ? 0600 : 0666);
      if (fd < 0 && errno != EEXIST)
        break;
    }
  if (fd < 0)
    {
      err = errno;
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_FAILED,
                   _("Could not write “%s”: could not create a temporary file next to it: %s"),
                   path, g_strerror (err));
      return FALSE;
    }

  step = "write";
  if (!write_all (fd, content, length))
    goto fail;
  if (old != NULL)
    {
      /* Best effort: only root (or the owner, for the group) may do this;
       * before fchmod, as fchown clears set-user-ID bits. */
      if (fchown (fd, old->st_uid, old->st_gid) < 0)
        g_debug ("Could not keep the owner of %s: %s", path, g_strerror (errno));
      step = "chmod";
      if (fchmod (fd, old->st_mode & 07777) < 0)
        goto fail;
    }
  step = "fsync";
  if (fsync (fd) < 0)
    goto fail;
  step = "close";
  err = close (fd);
  fd = -1;
  if (err < 0)
    goto fail;
  step = "rename";
  if (renameat (dir_fd, tmp, dir_fd, name) < 0)
    goto fail;

  /* Best effort, so the rename itself survives a crash. */
  fd = openat (dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0)
    {
      fsync (fd);
      close (fd);
    }
  return TRUE;

fail:
  err = errno;
  if (fd >= 0)
    close (fd);
  unlinkat (dir_fd, tmp, 0);
  g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_FAILED,
               _("Could not write “%s” (%s failed: %s); the file was left as it was"),
               path, step, g_strerror (err));
  return FALSE;
}

static gboolean
workspace_write (WardenWorkspace  *self,
                 const char       *path,
                 const char       *content,
                 gsize             length,
                 GError          **error)
{
  g_autofree char *rel = NULL;
  g_autofree char *name = NULL;
  struct stat st;
  gboolean exists;
  gboolean ret;
  int dir_fd;

  if (!(rel = workspace_relative (self, path, error)))
    return FALSE;
  if (g_str_has_suffix (path, "/"))
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                   _("“%s” names a folder; give the path of a file"), path);
      return FALSE;
    }
  if (warden_path_is_protected (rel))
    {
      set_protected_error (error, path, NULL);
      return FALSE;
    }
  dir_fd = open_parent (self, path, rel, TRUE, &name, error);
  if (dir_fd < 0)
    return FALSE;

  ret = check_not_protected (self, dir_fd, name, path, error) &&
        check_target (self, dir_fd, name, rel, path, FALSE, &st, &exists, error) &&
        replace_file (dir_fd, name, path, content, length, exists ? &st : NULL, error);
  close (dir_fd);
  return ret;
}

static gboolean
check_edit_args (const char  *old_text,
                 const char  *new_text,
                 GError     **error)
{
  if (old_text == NULL || old_text[0] == '\0')
    {
      g_set_error_literal (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                           _("The text to replace is empty; give the exact text to change"));
      return FALSE;
    }
  if (g_strcmp0 (old_text, new_text) == 0)
    {
      g_set_error_literal (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                           _("The old and the new text are the same; there is nothing to change"));
      return FALSE;
    }
  return TRUE;
}

static gboolean
same_file (const struct stat           *st,
           const WardenWorkspaceTarget *expect)
{
  return expect == NULL || !expect->exists ||
         ((guint64) st->st_dev == expect->device && (guint64) st->st_ino == expect->inode);
}

static void
set_changed_error (GError     **error,
                   const char  *path)
{
  g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_CHANGED,
               _("“%s” is no longer the file that was approved (it was replaced, or a "
                 "symbolic link now stands in its path); nothing was done: ask again"), path);
}

/* Pseudo file systems: their "regular" files are views of processes and of
 * the kernel (/proc/self/environ holds Warden's API keys). */
static gboolean
check_real_fs (int          fd,
               const char  *path,
               GError     **error)
{
  struct statfs sfs;

  if (fstatfs (fd, &sfs) < 0)
    return TRUE;
  switch ((unsigned long) sfs.f_type)
    {
    case PROC_SUPER_MAGIC:
    case SYSFS_MAGIC:
    case DEBUGFS_MAGIC:
    case TRACEFS_MAGIC:
    case SECURITYFS_MAGIC:
    case CGROUP_SUPER_MAGIC:
    case CGROUP2_SUPER_MAGIC:
    case BPF_FS_MAGIC:
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                   _("“%s” is a file of the kernel (/proc, /sys), not a regular file; Warden "
                     "reads and writes regular files only"), path);
      return FALSE;
    default:
      return TRUE;
    }
}

/* Replaces @old_text in @name of the folder @dir_fd, which the caller has
 * found to be a regular file, not a link; @expect, if set, must be it. */
static guint
edit_in_folder (int                          dir_fd,
                const char                  *name,
                const char                  *path,
                const char                  *old_text,
                const char                  *new_text,
                gboolean                     replace_all,
                const WardenWorkspaceTarget *expect,
                GError                     **error)
{
  g_autofree char *text = NULL;
  g_autoptr(GString) result = NULL;
  const char *p;
  gsize old_len;
  gsize length;
  struct stat st;
  guint count = 0;
  int fd;

  if (new_text == NULL)
    new_text = "";

  fd = openat (dir_fd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    {
      int err = errno;

      if (expect != NULL && err == ELOOP)
        set_changed_error (error, path);
      else
        set_resolve_error (error, err, path);
      return 0;
    }
  if (fstat (fd, &st) == 0 && !same_file (&st, expect))
    {
      close (fd);
      set_changed_error (error, path);
      return 0;
    }
  text = read_fd_text (fd, path, &length, &st, error);
  close (fd);
  if (text == NULL)
    return 0;

  old_len = strlen (old_text);
  result = g_string_sized_new (length);
  p = text;
  for (const char *hit; (hit = strstr (p, old_text)) != NULL; p = hit + old_len)
    {
      g_string_append_len (result, p, hit - p);
      g_string_append (result, new_text);
      count++;
    }
  g_string_append (result, p);

  if (count == 0)
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_NO_MATCH,
                   _("The text to replace is not in “%s”; read the file again and copy the "
                     "text exactly, with its spaces and line breaks"), path);
      return 0;
    }
  if (count > 1 && !replace_all)
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_NOT_UNIQUE,
                   _("The text to replace is in “%s” %u times; include more of the text "
                     "around it to pick one, or replace all of them"), path, count);
      return 0;
    }
  if (!replace_file (dir_fd, name, path, result->str, result->len, &st, error))
    return 0;
  return count;
}

static guint
workspace_edit (WardenWorkspace  *self,
                const char       *path,
                const char       *old_text,
                const char       *new_text,
                gboolean          replace_all,
                GError          **error)
{
  g_autofree char *rel = NULL;
  g_autofree char *name = NULL;
  struct stat st;
  gboolean exists;
  guint count = 0;
  int dir_fd;

  if (!check_edit_args (old_text, new_text, error))
    return 0;
  if (!(rel = workspace_relative (self, path, error)))
    return 0;
  if (warden_path_is_protected (rel))
    {
      set_protected_error (error, path, NULL);
      return 0;
    }
  dir_fd = open_parent (self, path, rel, FALSE, &name, error);
  if (dir_fd < 0)
    return 0;
  if (check_not_protected (self, dir_fd, name, path, error) &&
      check_target (self, dir_fd, name, rel, path, TRUE, &st, &exists, error))
    count = edit_in_folder (dir_fd, name, path, old_text, new_text, replace_all, NULL, error);
  close (dir_fd);
  return count;
}

/* Targets: what the user approves, opened exactly */

static void
set_target_errno_error (GError     **error,
                        int          err,
                        const char  *path,
                        const char  *target)
{
  switch (err)
    {
    case ENOENT:
      if (strcmp (path, target) != 0)
        g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_NOT_FOUND,
                     _("“%s” does not exist (it leads to “%s”)"), path, target);
      else
        g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_NOT_FOUND,
                     _("“%s” does not exist"), path);
      break;

    case ENOTDIR:
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_NOT_FOUND,
                   _("“%s” does not exist: part of “%s” is a file, not a folder"), path, target);
      break;

    case ELOOP:
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_FAILED,
                   _("Could not open “%s”: too many levels of symbolic links"), path);
      break;

    default:
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_FAILED,
                   _("Could not open “%s”: %s"), target, g_strerror (err));
      break;
    }
}

WardenWorkspaceTarget *
warden_workspace_resolve (WardenWorkspace        *self,
                          const char             *path,
                          WardenWorkspaceAccess   access,
                          GError                **error)
{
  g_autoptr(WardenWorkspaceTarget) target = NULL;
  g_autoptr(GPtrArray) given = NULL;
  g_autoptr(GPtrArray) resolved = NULL;
  g_autoptr(GPtrArray) todo = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *joined = NULL;
  gboolean through_link = FALSE;
  gboolean missing = FALSE;
  guint links = 0;
  guint skip = 0;
  struct stat st = { 0 };

  g_return_val_if_fail (WARDEN_IS_WORKSPACE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (path == NULL || path[0] == '\0')
    {
      g_set_error_literal (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                           _("No path was given"));
      return NULL;
    }
  if (access == WARDEN_WORKSPACE_ACCESS_WRITE && g_str_has_suffix (path, "/"))
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                   _("“%s” names a folder; give the path of a file"), path);
      return NULL;
    }

  /* Relative: from the workspace, as the model sees it from its sandbox;
   * under the sandbox's view of the workspace: from the root too. */
  given = split_path (path);
  if (!g_path_is_absolute (path) ||
      has_prefix (given, self->root, &skip) ||
      has_prefix (given, self->root_real, &skip) ||
      has_prefix (given, self->inside, &skip))
    resolved = split_path (self->root_canonical);
  else
    resolved = g_ptr_array_new_with_free_func (g_free);
  for (guint i = given->len; i > skip; i--)
    g_ptr_array_add (todo, g_steal_pointer (&given->pdata[i - 1]));

  /* realpath(), but a write may name a file (and folders) yet to be made,
   * and the type of each name is known for the errors. The answer is only
   * a name: the *_target() calls open it refusing any link, so a link
   * planted after this cannot take them elsewhere. */
  while (todo->len > 0)
    {
      g_autofree char *name = g_ptr_array_steal_index (todo, todo->len - 1);
      g_autofree char *so_far = NULL;
      g_autofree char *candidate = NULL;
      gboolean last = todo->len == 0;

      if (strcmp (name, "..") == 0)
        {
          if (missing)
            {
              so_far = join_names (resolved, 0, resolved->len);
              candidate = g_strconcat ("/", so_far, NULL);
              set_target_errno_error (error, ENOENT, path, candidate);
              return NULL;
            }
          if (resolved->len > 0)
            g_ptr_array_set_size (resolved, resolved->len - 1);
          continue;
        }
      g_ptr_array_add (resolved, g_steal_pointer (&name));
      if (missing)
        continue;

      so_far = join_names (resolved, 0, resolved->len);
      candidate = g_strconcat ("/", so_far, NULL);
      if (lstat (candidate, &st) < 0)
        {
          int err = errno;

          if (err == ENOENT && access == WARDEN_WORKSPACE_ACCESS_WRITE)
            {
              missing = TRUE;
              continue;
            }
          set_target_errno_error (error, err, path, candidate);
          return NULL;
        }
      if (S_ISLNK (st.st_mode))
        {
          char link_target[PATH_MAX];
          ssize_t n;

          if (++links > MAX_SYMLINKS)
            {
              set_target_errno_error (error, ELOOP, path, candidate);
              return NULL;
            }
          n = readlink (candidate, link_target, sizeof link_target);
          if (n < 0 || (gsize) n >= sizeof link_target)
            {
              set_target_errno_error (error, n < 0 ? errno : ENAMETOOLONG, path, candidate);
              return NULL;
            }
          link_target[n] = '\0';
          g_ptr_array_set_size (resolved, resolved->len - 1);
          if (link_target[0] == '/')
            g_ptr_array_set_size (resolved, 0);
          push_names (todo, link_target);
          through_link = TRUE;
          continue;
        }
      if (!last && !S_ISDIR (st.st_mode))
        {
          set_target_errno_error (error, ENOTDIR, path, candidate);
          return NULL;
        }
    }

  joined = join_names (resolved, 0, resolved->len);
  target = g_new0 (WardenWorkspaceTarget, 1);
  target->path = g_strconcat ("/", joined, NULL);
  /* What is there now, whichever name came last ("dir/.." ends on dir). */
  if (!missing && lstat (target->path, &st) < 0)
    {
      set_target_errno_error (error, errno, path, target->path);
      return NULL;
    }
  target->through_link = through_link;
  target->inside = g_str_has_prefix (target->path, self->root_canonical) &&
                   (strcmp (self->root_canonical, "/") == 0 ||
                    target->path[strlen (self->root_canonical)] == '/');

  if (!missing)
    {
      if (S_ISDIR (st.st_mode))
        {
          g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_IS_DIRECTORY,
                       _("“%s” is a folder, not a file"), target->path);
          return NULL;
        }
      if (!S_ISREG (st.st_mode))
        {
          g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                       _("“%s” is not a regular file (a pipe, socket or device); Warden reads "
                         "and writes regular files only"), target->path);
          return NULL;
        }
      {
        int fd = open (target->path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        gboolean real_fs = fd < 0 || check_real_fs (fd, target->path, error);

        if (fd >= 0)
          close (fd);
        if (!real_fs)
          return NULL;
      }
      if (access != WARDEN_WORKSPACE_ACCESS_WRITE && st.st_size > MAX_FILE_SIZE)
        {
          g_autofree char *size = g_format_size (st.st_size);
          g_autofree char *max = g_format_size (MAX_FILE_SIZE);

          g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_TOO_LARGE,
                       _("“%s” is too large (%s); Warden reads files up to %s"),
                       target->path, size, max);
          return NULL;
        }
      target->exists = TRUE;
      target->device = st.st_dev;
      target->inode = st.st_ino;
    }

  return g_steal_pointer (&target);
}

/* Opens the folder @dir (absolute, no "..") refusing every symbolic link
 * on the way; with @create, missing folders are made, each with mkdirat in
 * a folder opened so (mkdirat follows no link in its last name). Returns
 * an O_PATH fd or -errno; -ELOOP when a link stands in the way. */
static int
open_folder_no_links (WardenWorkspace *self,
                      const char      *dir,
                      gboolean         create)
{
  g_autoptr(GPtrArray) names = NULL;
  int fd;

  if (self->use_openat2)
    {
      struct open_how how = { 0 };

      how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
      how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
      for (guint i = 0; i < 64; i++)
        {
          fd = (int) syscall (SYS_openat2, AT_FDCWD, dir, &how, sizeof how);
          if (fd >= 0)
            return fd;
          if (errno != EAGAIN && errno != EINTR)
            break;
        }
      if (fd < 0 && !(errno == ENOENT && create))
        return -errno;
    }

  names = split_path (dir);
  fd = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      struct stat st;
      int next;

      if (strcmp (name, "..") == 0)
        {
          close (fd);
          return -EINVAL;
        }
      next = openat (fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
      if (next < 0 && errno == ENOENT && create)
        {
          if (mkdirat (fd, name, 0777) < 0 && errno != EEXIST)
            {
              int err = errno;

              close (fd);
              return -err;
            }
          next = openat (fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        }
      if (next < 0 || fstat (next, &st) < 0)
        {
          int err = errno;

          if (next >= 0)
            close (next);
          close (fd);
          return -err;
        }
      close (fd);
      fd = next;
      if (S_ISLNK (st.st_mode) || !S_ISDIR (st.st_mode))
        {
          close (fd);
          return S_ISLNK (st.st_mode) ? -ELOOP : -ENOTDIR;
        }
    }
  return fd;
}

/* The folder of @target, opened with no link followed; -1 with @error. */
static int
open_target_folder (WardenWorkspace              *self,
                    const WardenWorkspaceTarget  *target,
                    gboolean                      create,
                    char                        **name,
                    GError                      **error)
{
  g_autofree char *dir = NULL;
  int fd;

  if (target->path == NULL || !g_path_is_absolute (target->path) ||
      strcmp (target->path, "/") == 0)
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                   _("“%s” is not the path of a file"), target->path ? target->path : "");
      return -1;
    }
  dir = g_path_get_dirname (target->path);
  fd = open_folder_no_links (self, dir, create);
  if (fd == -ELOOP || (fd == -ENOTDIR && target->exists))
    {
      set_changed_error (error, target->path);
      return -1;
    }
  if (fd < 0)
    {
      set_target_errno_error (error, -fd, target->path, target->path);
      return -1;
    }
  if (!check_real_fs (fd, target->path, error))
    {
      close (fd);
      return -1;
    }
  *name = g_path_get_basename (target->path);
  return fd;
}

/* What is at @name in @dir_fd must be a regular file (not a link), or
 * nothing when @may_be_missing; and the approved one if it existed. */
static gboolean
check_target_file (int                          dir_fd,
                   const char                  *name,
                   const WardenWorkspaceTarget *target,
                   gboolean                     may_be_missing,
                   struct stat                 *st,
                   gboolean                    *exists,
                   GError                     **error)
{
  *exists = FALSE;
  if (fstatat (dir_fd, name, st, AT_SYMLINK_NOFOLLOW) < 0)
    {
      int err = errno;

      if (err == ENOENT && may_be_missing)
        return TRUE;
      if (err == ENOENT && target->exists)
        set_changed_error (error, target->path);
      else
        set_target_errno_error (error, err, target->path, target->path);
      return FALSE;
    }
  *exists = TRUE;
  if (S_ISLNK (st->st_mode) || !same_file (st, target))
    {
      set_changed_error (error, target->path);
      return FALSE;
    }
  if (S_ISDIR (st->st_mode))
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_IS_DIRECTORY,
                   _("“%s” is a folder, not a file"), target->path);
      return FALSE;
    }
  if (!S_ISREG (st->st_mode))
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                   _("“%s” is not a regular file (a pipe, socket or device); Warden reads "
                     "and writes regular files only"), target->path);
      return FALSE;
    }
  return TRUE;
}

char *
warden_workspace_read_target (WardenWorkspace              *self,
                              const WardenWorkspaceTarget  *target,
                              guint                         offset,
                              guint                         limit,
                              GError                      **error)
{
  g_autofree char *name = NULL;
  g_autofree char *text = NULL;
  struct stat st;
  gsize length;
  int dir_fd;
  int fd;

  g_return_val_if_fail (WARDEN_IS_WORKSPACE (self), NULL);
  g_return_val_if_fail (target != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  dir_fd = open_target_folder (self, target, FALSE, &name, error);
  if (dir_fd < 0)
    return NULL;
  /* O_NONBLOCK: a fifo swapped in since must not hang us in open(). */
  fd = openat (dir_fd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
  close (dir_fd);
  if (fd < 0)
    {
      int err = errno;

      if (err == ELOOP || (err == ENOENT && target->exists))
        set_changed_error (error, target->path);
      else
        set_target_errno_error (error, err, target->path, target->path);
      return NULL;
    }
  if (fstat (fd, &st) == 0 && !same_file (&st, target))
    {
      close (fd);
      set_changed_error (error, target->path);
      return NULL;
    }
  text = read_fd_text (fd, target->path, &length, NULL, error);
  close (fd);
  if (text == NULL)
    return NULL;
  if (offset == 0 && limit == 0)
    return g_steal_pointer (&text);
  return slice_lines (text, length, offset, limit);
}

gboolean
warden_workspace_write_target (WardenWorkspace              *self,
                               const WardenWorkspaceTarget  *target,
                               const char                   *content,
                               gsize                         length,
                               GError                      **error)
{
  g_autofree char *name = NULL;
  struct stat st;
  gboolean exists;
  gboolean ret;
  int dir_fd;

  g_return_val_if_fail (WARDEN_IS_WORKSPACE (self), FALSE);
  g_return_val_if_fail (target != NULL, FALSE);
  g_return_val_if_fail (content != NULL || length == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  dir_fd = open_target_folder (self, target, TRUE, &name, error);
  if (dir_fd < 0)
    return FALSE;
  ret = check_target_file (dir_fd, name, target, TRUE, &st, &exists, error) &&
        replace_file (dir_fd, name, target->path, content != NULL ? content : "", length,
                      exists ? &st : NULL, error);
  close (dir_fd);
  return ret;
}

guint
warden_workspace_edit_target (WardenWorkspace              *self,
                              const WardenWorkspaceTarget  *target,
                              const char                   *old_text,
                              const char                   *new_text,
                              gboolean                      replace_all,
                              GError                      **error)
{
  g_autofree char *name = NULL;
  struct stat st;
  gboolean exists;
  guint count = 0;
  int dir_fd;

  g_return_val_if_fail (WARDEN_IS_WORKSPACE (self), 0);
  g_return_val_if_fail (target != NULL, 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  if (!check_edit_args (old_text, new_text, error))
    return 0;
  dir_fd = open_target_folder (self, target, FALSE, &name, error);
  if (dir_fd < 0)
    return 0;
  if (check_target_file (dir_fd, name, target, FALSE, &st, &exists, error))
    count = edit_in_folder (dir_fd, name, target->path, old_text, new_text, replace_all, target,
                            error);
  close (dir_fd);
  return count;
}

/* Glob patterns */

/* Past the ']' of the class starting after @p's '[', or NULL if unclosed. */
static const char *
class_end (const char *p)
{
  if (*p == '!' || *p == '^')
    p++;
  if (*p == ']')
    p++;
  while (*p != '\0' && *p != ']')
    p += (*p == '\\' && p[1] != '\0') ? 2 : 1;
  return *p == ']' ? p + 1 : NULL;
}

static gunichar
next_char (const char **s)
{
  gunichar c = g_utf8_get_char_validated (*s, -1);

  /* File names need not be UTF-8: take a stray byte as it is. */
  if (c == (gunichar) -1 || c == (gunichar) -2)
    return (guchar) *(*s)++;
  *s = g_utf8_next_char (*s);
  return c;
}

static gboolean
class_match (const char **pattern,
             gunichar     c)
{
  const char *p = *pattern;
  gboolean negate = FALSE;
  gboolean found = FALSE;
  gboolean first = TRUE;

  if (*p == '!' || *p == '^')
    {
      negate = TRUE;
      p++;
    }
  while (*p != '\0' && (first || *p != ']'))
    {
      gunichar lo, hi;

      first = FALSE;
      if (*p == '\\' && p[1] != '\0')
        p++;
      lo = hi = next_char (&p);
      if (p[0] == '-' && p[1] != '\0' && p[1] != ']')
        {
          p++;
          if (*p == '\\' && p[1] != '\0')
            p++;
          hi = next_char (&p);
        }
      if (lo <= c && c <= hi)
        found = TRUE;
    }
  if (*p == ']')
    p++;
  *pattern = p;
  return found != negate;
}

/* One name against one pattern name: '*', '?', "[a-z]", "[!abc]", "\\x". */
static gboolean
name_match (const char *pattern,
            const char *name)
{
  const char *p = pattern;
  const char *n = name;
  const char *star_p = NULL;
  const char *star_n = NULL;

  while (*n != '\0')
    {
      if (*p == '*')
        {
          while (*p == '*')
            p++;
          star_p = p;
          star_n = n;
          continue;
        }
      if (*p != '\0')
        {
          const char *n_next = n;
          const char *p_next = p;
          gunichar c = next_char (&n_next);
          gboolean ok;

          if (*p == '?')
            {
              p_next = p + 1;
              ok = TRUE;
            }
          else if (*p == '[')
            {
              p_next = p + 1;
              ok = class_match (&p_next, c);
            }
          else
            {
              if (*p == '\\' && p[1] != '\0')
                p_next++;
              ok = next_char (&p_next) == c;
            }
          if (ok)
            {
              p = p_next;
              n = n_next;
              continue;
            }
        }
      if (star_p == NULL)
        return FALSE;
      /* Let the last '*' eat one more character and try again. */
      next_char (&star_n);
      p = star_p;
      n = star_n;
    }
  while (*p == '*')
    p++;
  return *p == '\0';
}

static gboolean
expand_braces (const char  *pattern,
               GPtrArray   *out,
               GError     **error)
{
  for (const char *p = pattern; *p != '\0'; p++)
    {
      g_autoptr(GArray) commas = NULL;
      const char *q;
      int level = 0;

      if (*p == '\\' && p[1] != '\0')
        {
          p++;
          continue;
        }
      if (*p != '{')
        continue;

      commas = g_array_new (FALSE, FALSE, sizeof (const char *));
      for (q = p; *q != '\0'; q++)
        {
          if (*q == '\\' && q[1] != '\0')
            q++;
          else if (*q == '{')
            level++;
          else if (*q == '}' && --level == 0)
            break;
          else if (*q == ',' && level == 1)
            g_array_append_val (commas, q);
        }
      if (*q == '\0')
        {
          g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                       _("The pattern “%s” has a “{” without its “}”"), pattern);
          return FALSE;
        }
      if (commas->len == 0)
        continue; /* "{x}" is literal, as in the shell */

      g_array_append_val (commas, q);
      for (guint i = 0; i < commas->len; i++)
        {
          const char *from = i == 0 ? p + 1 : g_array_index (commas, const char *, i - 1) + 1;
          const char *to = g_array_index (commas, const char *, i);
          g_autofree char *alt = g_strdup_printf ("%.*s%.*s%s", (int) (p - pattern), pattern,
                                                  (int) (to - from), from, q + 1);

          if (!expand_braces (alt, out, error))
            return FALSE;
        }
      return TRUE;
    }

  if (out->len >= MAX_ALTERNATIVES)
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                   _("The pattern has too many “{a,b}” alternatives (at most %d)"),
                   MAX_ALTERNATIVES);
      return FALSE;
    }
  g_ptr_array_add (out, g_strdup (pattern));
  return TRUE;
}

/* @pattern as a list of alternatives, each a GStrv of names. */
static GPtrArray *
glob_compile (const char  *pattern,
              GError     **error)
{
  g_autoptr(GPtrArray) expanded = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) globs = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);

  if (pattern == NULL || pattern[0] == '\0')
    {
      g_set_error_literal (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                           _("The glob pattern is empty"));
      return NULL;
    }
  if (strlen (pattern) > MAX_PATTERN_LENGTH)
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                   _("The glob pattern is too long (at most %d bytes)"), MAX_PATTERN_LENGTH);
      return NULL;
    }
  if (!expand_braces (pattern, expanded, error))
    return NULL;

  for (guint i = 0; i < expanded->len; i++)
    {
      g_autoptr(GPtrArray) names = split_path (g_ptr_array_index (expanded, i));

      if (names->len == 0 || names->len > MAX_PATTERN_NAMES)
        {
          g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                       _("The glob pattern “%s” names no files, or too many folders"), pattern);
          return NULL;
        }
      for (guint j = 0; j < names->len; j++)
        {
          const char *name = g_ptr_array_index (names, j);

          if (strcmp (name, "..") == 0)
            {
              g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                           _("The glob pattern “%s” contains “..”; give a base folder instead"),
                           pattern);
              return NULL;
            }
          for (const char *p = name; p != NULL && *p != '\0';)
            {
              if (*p == '\\')
                p = p[1] != '\0' ? p + 2 : NULL;
              else if (*p == '[')
                p = class_end (p + 1);
              else
                p++;
              if (p == NULL)
                {
                  g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                               _("The glob pattern “%s” has a “[” without its “]”, or a "
                                 "“\\” at the end of a name"), pattern);
                  return NULL;
                }
            }
        }
      g_ptr_array_add (names, NULL);
      g_ptr_array_add (globs, g_ptr_array_free (g_steal_pointer (&names), FALSE));
    }
  return g_steal_pointer (&globs);
}

/* Walking: the glob is matched as the tree is walked, with the set of
 * (alternative, name index) positions still alive in each folder. */

#define STATE(alt, pos) (((guint32) (alt) << 16) | (guint32) (pos))
#define STATE_ALT(s)    ((s) >> 16)
#define STATE_POS(s)    ((s) & 0xffff)

static void
add_state (GArray    *states,
           GPtrArray *globs,
           guint      alt,
           guint      pos)
{
  char **names = g_ptr_array_index (globs, alt);
  guint32 s = STATE (alt, pos);

  for (guint i = 0; i < states->len; i++)
    if (g_array_index (states, guint32, i) == s)
      return;
  g_array_append_val (states, s);
  /* "**" may match no folder at all. */
  if (names[pos] != NULL && strcmp (names[pos], "**") == 0)
    add_state (states, globs, alt, pos + 1);
}

static gboolean
is_literal (const char *name)
{
  return strpbrk (name, "*?[\\") == NULL;
}

static GArray *
step_states (GPtrArray  *globs,
             GArray     *states,
             const char *name,
             gboolean    is_dir)
{
  GArray *next = g_array_new (FALSE, FALSE, sizeof (guint32));
  /* Wildcards do not enter .git; a pattern that names it does. */
  gboolean only_literal = is_dir && strcmp (name, ".git") == 0;

  for (guint i = 0; i < states->len; i++)
    {
      guint32 s = g_array_index (states, guint32, i);
      char **names = g_ptr_array_index (globs, STATE_ALT (s));
      const char *pattern = names[STATE_POS (s)];

      if (pattern == NULL)
        continue;
      if (strcmp (pattern, "**") == 0)
        {
          /* It eats any name, a file's too: "src/" + "**" matches src/a.c. */
          if (!only_literal)
            add_state (next, globs, STATE_ALT (s), STATE_POS (s));
        }
      else if ((!only_literal || is_literal (pattern)) && name_match (pattern, name))
        add_state (next, globs, STATE_ALT (s), STATE_POS (s) + 1);
    }
  return next;
}

static gboolean
states_accept (GPtrArray *globs,
               GArray    *states)
{
  for (guint i = 0; i < states->len; i++)
    {
      guint32 s = g_array_index (states, guint32, i);
      char **names = g_ptr_array_index (globs, STATE_ALT (s));

      if (names[STATE_POS (s)] == NULL)
        return TRUE;
    }
  return FALSE;
}

static gboolean
states_continue (GPtrArray *globs,
                 GArray    *states)
{
  for (guint i = 0; i < states->len; i++)
    {
      guint32 s = g_array_index (states, guint32, i);
      char **names = g_ptr_array_index (globs, STATE_ALT (s));

      if (names[STATE_POS (s)] != NULL)
        return TRUE;
    }
  return FALSE;
}

typedef struct _Walk Walk;

struct _Walk
{
  GPtrArray    *globs;
  GCancellable *cancellable;
  gboolean      stop;
  /* Called for each matching regular file; FALSE with @error to fail. */
  gboolean    (*visit) (Walk *walk, int dir_fd, const char *name, const char *path,
                        GError **error);
  gpointer      data;
};

typedef struct
{
  char     *name;
  gboolean  is_dir;
} Entry;

static void
entry_clear (Entry *entry)
{
  g_free (entry->name);
}

/* Sorting a folder's entries with "/" after each folder name walks the
 * tree in the byte order of the whole paths, so the first @max found are
 * the first @max of the sorted list. */
static int
entry_compare (gconstpointer a,
               gconstpointer b)
{
  const Entry *ea = a;
  const Entry *eb = b;
  const guchar *x = (const guchar *) ea->name;
  const guchar *y = (const guchar *) eb->name;

  for (;; x++, y++)
    {
      int cx = *x != '\0' ? *x : ea->is_dir ? '/' : 0;
      int cy = *y != '\0' ? *y : eb->is_dir ? '/' : 0;

      if (cx != cy)
        return cx - cy;
      if (cx == 0 || cx == '/')
        return 0;
    }
}

/* The folders and regular files in @dir_fd; links and others are left out. */
static GArray *
list_entries (int dir_fd)
{
  GArray *entries = g_array_new (FALSE, FALSE, sizeof (Entry));
  struct dirent *de;
  DIR *dir;
  int fd;

  g_array_set_clear_func (entries, (GDestroyNotify) entry_clear);
  fd = dup (dir_fd);
  if (fd < 0)
    return entries;
  dir = fdopendir (fd);
  if (dir == NULL)
    {
      close (fd);
      return entries;
    }
  while ((de = readdir (dir)) != NULL)
    {
      unsigned char type = de->d_type;
      Entry entry;

      if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
        continue;
      if (type == DT_UNKNOWN)
        {
          struct stat st;

          if (fstatat (dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
          type = S_ISDIR (st.st_mode) ? DT_DIR : S_ISREG (st.st_mode) ? DT_REG : DT_UNKNOWN;
        }
      if (type != DT_DIR && type != DT_REG)
        continue;
      entry.name = g_strdup (de->d_name);
      entry.is_dir = type == DT_DIR;
      g_array_append_val (entries, entry);
    }
  closedir (dir);
  g_array_sort (entries, entry_compare);
  return entries;
}

static gboolean
walk_dir (Walk        *walk,
          int          dir_fd,
          const char  *prefix,
          GArray      *states,
          guint        depth,
          GError     **error)
{
  g_autoptr(GArray) entries = list_entries (dir_fd);

  for (guint i = 0; i < entries->len && !walk->stop; i++)
    {
      const Entry *entry = &g_array_index (entries, Entry, i);
      g_autoptr(GArray) next = NULL;
      g_autofree char *path = NULL;

      if (g_cancellable_set_error_if_cancelled (walk->cancellable, error))
        return FALSE;

      next = step_states (walk->globs, states, entry->name, entry->is_dir);
      if (next->len == 0)
        continue;
      path = prefix[0] != '\0' ? g_strconcat (prefix, "/", entry->name, NULL)
                               : g_strdup (entry->name);

      if (entry->is_dir)
        {
          gboolean ok;
          int fd;

          if (depth >= MAX_WALK_DEPTH || !states_continue (walk->globs, next))
            continue;
          /* O_NOFOLLOW: a folder swapped for a link since readdir is skipped. */
          fd = openat (dir_fd, entry->name,
                       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
          if (fd < 0)
            continue;
          ok = walk_dir (walk, fd, path, next, depth + 1, error);
          close (fd);
          if (!ok)
            return FALSE;
        }
      else if (states_accept (walk->globs, next) &&
               !walk->visit (walk, dir_fd, entry->name, path, error))
        return FALSE;
    }
  return TRUE;
}

/* Opens @base (NULL: the root) confined, for reading; -1 with @error. */
static int
open_base (WardenWorkspace  *self,
           const char       *base,
           char            **rel,
           struct stat      *st,
           GError          **error)
{
  int fd;

  if (base == NULL)
    base = ".";
  if (!(*rel = workspace_relative (self, base, error)))
    return -1;
  fd = resolve_open (self, *rel, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    {
      set_resolve_error (error, -fd, base);
      return -1;
    }
  if (fstat (fd, st) < 0)
    {
      int err = errno;

      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_FAILED,
                   _("Could not look at “%s”: %s"), base, g_strerror (err));
      close (fd);
      return -1;
    }
  return fd;
}

static gboolean
walk_tree (Walk        *walk,
           int          dir_fd,
           const char  *prefix,
           GError     **error)
{
  g_autoptr(GArray) states = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (guint i = 0; i < walk->globs->len; i++)
    add_state (states, walk->globs, i, 0);
  return walk_dir (walk, dir_fd, prefix, states, 0, error);
}

typedef struct
{
  GPtrArray *paths;
  guint      max;
} GlobData;

static gboolean
glob_visit (Walk        *walk,
            int          dir_fd,
            const char  *name,
            const char  *path,
            GError     **error)
{
  GlobData *data = walk->data;

  g_ptr_array_add (data->paths, g_strdup (path));
  if (data->paths->len >= data->max)
    walk->stop = TRUE;
  return TRUE;
}

static GStrv
workspace_glob (WardenWorkspace  *self,
                const char       *pattern,
                const char       *base,
                guint             max,
                GCancellable     *cancellable,
                GError          **error)
{
  g_autoptr(GPtrArray) globs = NULL;
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *rel_pattern = NULL;
  g_autofree char *rel = NULL;
  GlobData data = { paths, max > 0 ? max : DEFAULT_GLOB_MAX };
  Walk walk = { 0 };
  struct stat st;
  gboolean ok;
  int fd;

  /* An absolute pattern (under the root or @inside) is taken from the root. */
  if (pattern != NULL && g_path_is_absolute (pattern))
    {
      if (!(rel_pattern = workspace_relative (self, pattern, error)))
        return NULL;
      pattern = rel_pattern;
      base = NULL;
    }
  if (!(globs = glob_compile (pattern, error)))
    return NULL;

  fd = open_base (self, base, &rel, &st, error);
  if (fd < 0)
    return NULL;
  if (!S_ISDIR (st.st_mode))
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                   _("The base “%s” is not a folder"), base != NULL ? base : ".");
      close (fd);
      return NULL;
    }

  walk.globs = globs;
  walk.cancellable = cancellable;
  walk.visit = glob_visit;
  walk.data = &data;
  ok = walk_tree (&walk, fd, rel, error);
  close (fd);
  if (!ok)
    return NULL;

  g_ptr_array_add (paths, NULL);
  return (GStrv) g_ptr_array_free (g_steal_pointer (&paths), FALSE);
}

/* Grep */

typedef struct
{
  GRegex     *regex;
  const char *source;     /* the regex as the model gave it, for messages */
  GPtrArray  *matches;
  guint       max;
  guint       context;
  gint64      deadline;   /* monotonic µs */
  guint       budget_ms;
} GrepData;

static GStrv
copy_lines (const char *text,
            GArray     *starts,
            GArray     *ends,
            guint       from,
            guint       to)
{
  GStrv lines = g_new0 (char *, to - from + 1);

  for (guint i = from; i < to; i++)
    {
      gsize s = g_array_index (starts, gsize, i);
      lines[i - from] = g_strndup (text + s, g_array_index (ends, gsize, i) - s);
    }
  return lines;
}

/* FALSE with @error when the search must end: cancelled, a line that
 * backtracks past the limit, or past the time budget. Both are checked
 * between lines, as one line's cost is bounded by the match limit. */
static gboolean
grep_text (Walk        *walk,
           const char  *path,
           const char  *text,
           gsize        length,
           GError     **error)
{
  GrepData *data = walk->data;
  g_autoptr(GArray) starts = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_autoptr(GArray) ends = g_array_new (FALSE, FALSE, sizeof (gsize));
  gsize pos = 0;

  while (pos < length)
    {
      const char *nl = memchr (text + pos, '\n', length - pos);
      gsize end = nl != NULL ? (gsize) (nl - text) : length;
      gsize next = nl != NULL ? end + 1 : length;

      g_array_append_val (starts, pos);
      if (end > pos && text[end - 1] == '\r')
        end--;
      g_array_append_val (ends, end);
      pos = next;
    }

  for (guint i = 0; i < starts->len; i++)
    {
      g_autoptr(GError) match_error = NULL;
      gsize s = g_array_index (starts, gsize, i);
      gsize e = g_array_index (ends, gsize, i);
      WardenGrepMatch *match;

      if (g_cancellable_set_error_if_cancelled (walk->cancellable, error))
        return FALSE;
      if (g_get_monotonic_time () > data->deadline)
        {
          g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_TOO_COSTLY,
                       _("The search for “%s” was stopped after %u ms, in “%s” at line %u, "
                         "with %u matches so far; search fewer files (a folder, or an include "
                         "pattern) or a simpler expression"),
                       data->source, data->budget_ms, path, i + 1, data->matches->len);
          return FALSE;
        }

      if (!g_regex_match_full (data->regex, text + s, e - s, 0, 0, NULL, &match_error))
        {
          if (match_error == NULL)
            continue;
          /* PCRE2's match limit (or its JIT stack): the pattern backtracks
           * exponentially on this line, and would on the next ones. */
          g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_TOO_COSTLY,
                       _("The regular expression “%s” needs too much backtracking on line %u "
                         "of “%s”, so the search was stopped; nested repetition such as "
                         "“(a+)+” takes exponential time: write it without (“a+”)"),
                       data->source, i + 1, path);
          return FALSE;
        }

      match = g_new0 (WardenGrepMatch, 1);
      match->path = g_strdup (path);
      match->line_number = i + 1;
      match->line = g_strndup (text + s, e - s);
      match->before = copy_lines (text, starts, ends, i - MIN (i, data->context), i);
      match->after = copy_lines (text, starts, ends, i + 1,
                                 MIN ((gsize) starts->len, (gsize) i + 1 + data->context));
      g_ptr_array_add (data->matches, match);
      if (data->matches->len >= data->max)
        {
          walk->stop = TRUE;
          return TRUE;
        }
    }
  return TRUE;
}

static gboolean
grep_visit (Walk        *walk,
            int          dir_fd,
            const char  *name,
            const char  *path,
            GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *text = NULL;
  gsize length;
  int fd;

  fd = openat (dir_fd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return TRUE;
  /* Binary, too large or unreadable files are skipped, not errors. */
  text = read_fd_text (fd, path, &length, NULL, &local_error);
  close (fd);
  if (text != NULL)
    return grep_text (walk, path, text, length, error);
  return TRUE;
}

static GPtrArray *
workspace_grep (WardenWorkspace  *self,
                const char       *regex,
                const char       *base,
                const char       *include,
                guint             max_results,
                guint             context,
                gboolean          ignore_case,
                GCancellable     *cancellable,
                GError          **error)
{
  g_autoptr(GError) regex_error = NULL;
  g_autoptr(GRegex) compiled = NULL;
  g_autoptr(GPtrArray) globs = NULL;
  g_autoptr(GPtrArray) matches = NULL;
  g_autofree char *include_pattern = NULL;
  g_autofree char *rel = NULL;
  GrepData data = { 0 };
  Walk walk = { 0 };
  struct stat st;
  gboolean ok = TRUE;
  int fd;

  if (regex == NULL || regex[0] == '\0')
    {
      g_set_error_literal (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                           _("The regular expression is empty"));
      return NULL;
    }
  /* PCRE2 takes the last of several limits at the start of a pattern, up to
   * its default: the model's own would undo ours. */
  if (strstr (regex, "(*LIMIT_") != NULL)
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                   _("The regular expression “%s” sets a match limit; leave “(*LIMIT_…)” out"),
                   regex);
      return NULL;
    }
  /* Compiled as given first, so that an error points into the model's
   * pattern rather than into the limit put in front of it. */
  compiled = g_regex_new (regex, ignore_case ? G_REGEX_CASELESS : 0, 0, &regex_error);
  if (compiled == NULL)
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                   _("The regular expression “%s” is not valid: %s"), regex,
                   regex_error->message);
      return NULL;
    }
  g_clear_pointer (&compiled, g_regex_unref);
  {
    g_autofree char *limited = g_strdup_printf ("(*LIMIT_MATCH=%d)%s", GREP_MATCH_LIMIT, regex);

    compiled = g_regex_new (limited, G_REGEX_OPTIMIZE | (ignore_case ? G_REGEX_CASELESS : 0), 0,
                            &regex_error);
    if (compiled == NULL)
      {
        g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                     _("The regular expression “%s” is not valid: %s"), regex,
                     regex_error->message);
        return NULL;
      }
  }

  /* A name pattern ("*.c") matches in any folder; one with a '/' is
   * matched against the path under the base. */
  if (include == NULL || include[0] == '\0')
    include_pattern = g_strdup ("**");
  else if (strchr (include, '/') == NULL)
    include_pattern = g_strconcat ("**/", include, NULL);
  else
    include_pattern = g_strdup (include);
  if (!(globs = glob_compile (include_pattern, error)))
    return NULL;

  fd = open_base (self, base, &rel, &st, error);
  if (fd < 0)
    return NULL;

  matches = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_grep_match_free);
  data.regex = compiled;
  data.source = regex;
  data.budget_ms = self->grep_budget_ms;
  data.deadline = g_get_monotonic_time () + (gint64) self->grep_budget_ms * 1000;
  data.matches = matches;
  data.max = max_results > 0 ? max_results : DEFAULT_GREP_MAX;
  data.context = context;
  walk.globs = globs;
  walk.cancellable = cancellable;
  walk.visit = grep_visit;
  walk.data = &data;

  if (S_ISDIR (st.st_mode))
    ok = walk_tree (&walk, fd, rel, error);
  else if (S_ISREG (st.st_mode))
    {
      /* A file named as the base is searched whatever @include says. */
      g_autoptr(GError) local_error = NULL;
      g_autofree char *text = NULL;
      gsize length;

      text = read_fd_text (fd, rel, &length, NULL, &local_error);
      if (text != NULL)
        ok = grep_text (&walk, rel, text, length, error);
    }
  else
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                   _("“%s” is not a regular file (a pipe, socket or device)"),
                   base != NULL ? base : ".");
      ok = FALSE;
    }
  close (fd);

  return ok ? g_steal_pointer (&matches) : NULL;
}

/* GObject */

static gboolean
openat2_usable (int root_fd)
{
  static gsize disabled = 0;
  struct open_how how = { 0 };
  int fd;

  /* For tests and bug reports: exercise the walk on kernels that have
   * openat2. Read once: setenv() is not safe once threads run. */
  if (g_once_init_enter (&disabled))
    {
      const char *env = g_getenv ("WARDEN_WORKSPACE_NO_OPENAT2");

      g_once_init_leave (&disabled, env != NULL && env[0] != '\0' && strcmp (env, "0") != 0
                                    ? 2 : 1);
    }
  if (disabled == 2)
    return FALSE;

  /* ENOSYS before Linux 5.6; EPERM or ENOSYS from a seccomp filter (older
   * container runtimes). Whatever the reason, the walk is as safe. */
  how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  fd = (int) syscall (SYS_openat2, root_fd, ".", &how, sizeof how);
  if (fd < 0)
    {
      g_debug ("openat2 is not usable (%s): resolving paths one name at a time",
               g_strerror (errno));
      return FALSE;
    }
  close (fd);
  return TRUE;
}

static gboolean
warden_workspace_initable_init (GInitable     *initable,
                                GCancellable  *cancellable,
                                GError       **error)
{
  WardenWorkspace *self = WARDEN_WORKSPACE (initable);
  char *real;

  if (self->root == NULL || self->root[0] == '\0')
    {
      g_set_error_literal (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                           _("The workspace needs a folder"));
      return FALSE;
    }
  if (self->inside != NULL && !g_path_is_absolute (self->inside))
    {
      g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                   _("The path of the workspace in the sandbox, “%s”, must be absolute"),
                   self->inside);
      return FALSE;
    }

  /* The root itself may be a link: the user chose it. */
  self->root_fd = open (self->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (self->root_fd < 0)
    {
      int err = errno;

      if (err == ENOENT)
        g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_NOT_FOUND,
                     _("The workspace folder “%s” does not exist"), self->root);
      else if (err == ENOTDIR)
        g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID,
                     _("The workspace “%s” is not a folder"), self->root);
      else
        g_set_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_FAILED,
                     _("Could not open the workspace folder “%s”: %s"), self->root,
                     g_strerror (err));
      return FALSE;
    }

  /* Only to recognize absolute paths spelled through the real location;
   * nothing is ever opened by this name. */
  real = realpath (self->root, NULL);
  if (real != NULL && strcmp (real, self->root) != 0)
    self->root_real = g_strdup (real);
  free (real);
  /* Approved targets are named from here, and protected paths are judged
   * against it; the kernel names the folders Warden opens this way too. */
  self->root_canonical = g_strdup (self->root_real != NULL ? self->root_real : self->root);

  if (self->use_openat2)
    self->use_openat2 = openat2_usable (self->root_fd);
  return TRUE;
}

static void
warden_workspace_initable_iface_init (GInitableIface *iface)
{
  iface->init = warden_workspace_initable_init;
}

static void
warden_workspace_finalize (GObject *object)
{
  WardenWorkspace *self = (WardenWorkspace *) object;

  if (self->root_fd >= 0)
    close (self->root_fd);
  g_clear_pointer (&self->root, g_free);
  g_clear_pointer (&self->root_real, g_free);
  g_clear_pointer (&self->root_canonical, g_free);
  g_clear_pointer (&self->inside, g_free);

  G_OBJECT_CLASS (warden_workspace_parent_class)->finalize (object);
}

static void
warden_workspace_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  WardenWorkspace *self = WARDEN_WORKSPACE (object);

  switch (prop_id)
    {
    case PROP_ROOT:
      g_value_set_string (value, self->root);
      break;

    case PROP_INSIDE:
      g_value_set_string (value, self->inside);
      break;

    case PROP_USE_OPENAT2:
      g_value_set_boolean (value, self->use_openat2);
      break;

    case PROP_GREP_BUDGET:
      g_value_set_uint (value, self->grep_budget_ms);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
warden_workspace_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  WardenWorkspace *self = WARDEN_WORKSPACE (object);
  const char *str;

  switch (prop_id)
    {
    case PROP_ROOT:
      str = g_value_get_string (value);
      g_free (self->root);
      self->root = str != NULL && str[0] != '\0' ? g_canonicalize_filename (str, NULL) : NULL;
      break;

    case PROP_INSIDE:
      str = g_value_get_string (value);
      g_free (self->inside);
      self->inside = str != NULL && g_path_is_absolute (str) ? g_canonicalize_filename (str, NULL)
                                                             : g_strdup (str);
      break;

    case PROP_USE_OPENAT2:
      self->use_openat2 = g_value_get_boolean (value);
      break;

    case PROP_GREP_BUDGET:
      self->grep_budget_ms = g_value_get_uint (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
warden_workspace_class_init (WardenWorkspaceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = warden_workspace_finalize;
  object_class->get_property = warden_workspace_get_property;
  object_class->set_property = warden_workspace_set_property;

  properties[PROP_ROOT] =
    g_param_spec_string ("root", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                         G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_INSIDE] =
    g_param_spec_string ("inside", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                         G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* FALSE walks paths in user space even where openat2 works: for tests. */
  properties[PROP_USE_OPENAT2] =
    g_param_spec_boolean ("use-openat2", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                          G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Milliseconds one grep may take before it stops with TOO_COSTLY: it
   * runs in Warden's own process, not in the sandbox. */
  properties[PROP_GREP_BUDGET] =
    g_param_spec_uint ("grep-budget", NULL, NULL, 1, G_MAXUINT, DEFAULT_GREP_BUDGET_MS,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                       G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
warden_workspace_init (WardenWorkspace *self)
{
  self->root_fd = -1;
}

WardenWorkspace *
warden_workspace_new (const char  *root,
                      const char  *inside,
                      GError     **error)
{
  return g_initable_new (WARDEN_TYPE_WORKSPACE, NULL, error,
                         "root", root,
                         "inside", inside,
                         NULL);
}

const char *
warden_workspace_get_root (WardenWorkspace *self)
{
  g_return_val_if_fail (WARDEN_IS_WORKSPACE (self), NULL);

  return self->root;
}

const char *
warden_workspace_get_inside (WardenWorkspace *self)
{
  g_return_val_if_fail (WARDEN_IS_WORKSPACE (self), NULL);

  return self->inside;
}

gboolean
warden_workspace_uses_openat2 (WardenWorkspace *self)
{
  g_return_val_if_fail (WARDEN_IS_WORKSPACE (self), FALSE);

  return self->use_openat2;
}

/* Synchronous API */

char *
warden_workspace_read (WardenWorkspace  *self,
                       const char       *path,
                       guint             offset,
                       guint             limit,
                       GError          **error)
{
  g_return_val_if_fail (WARDEN_IS_WORKSPACE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return workspace_read (self, path, offset, limit, error);
}

gboolean
warden_workspace_write (WardenWorkspace  *self,
                        const char       *path,
                        const char       *content,
                        gsize             length,
                        GError          **error)
{
  g_return_val_if_fail (WARDEN_IS_WORKSPACE (self), FALSE);
  g_return_val_if_fail (content != NULL || length == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return workspace_write (self, path, content != NULL ? content : "", length, error);
}

guint
warden_workspace_edit (WardenWorkspace  *self,
                       const char       *path,
                       const char       *old_text,
                       const char       *new_text,
                       gboolean          replace_all,
                       GError          **error)
{
  g_return_val_if_fail (WARDEN_IS_WORKSPACE (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  return workspace_edit (self, path, old_text, new_text, replace_all, error);
}

GStrv
warden_workspace_glob (WardenWorkspace  *self,
                       const char       *pattern,
                       const char       *base,
                       guint             max,
                       GCancellable     *cancellable,
                       GError          **error)
{
  g_return_val_if_fail (WARDEN_IS_WORKSPACE (self), NULL);
  g_return_val_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return workspace_glob (self, pattern, base, max, cancellable, error);
}

GPtrArray *
warden_workspace_grep (WardenWorkspace  *self,
                       const char       *regex,
                       const char       *base,
                       const char       *include,
                       guint             max_results,
                       guint             context,
                       gboolean          ignore_case,
                       GCancellable     *cancellable,
                       GError          **error)
{
  g_return_val_if_fail (WARDEN_IS_WORKSPACE (self), NULL);
  g_return_val_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return workspace_grep (self, regex, base, include, max_results, context, ignore_case,
                         cancellable, error);
}
