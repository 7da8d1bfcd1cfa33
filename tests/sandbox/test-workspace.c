/* test-workspace.c: the agent's file tools, and the ways out they refuse
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

/* O_PATH, renameat2 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "workspace/warden-workspace.h"

#ifndef SYS_openat2
# define SYS_openat2 437
#endif

/* Every test runs twice: once as the kernel allows (openat2), once with
 * the user-space walk that older kernels and seccomp filters get. */
enum {
  MODE_DEFAULT,
  MODE_WALK,
};

typedef struct
{
  char            *tmp;      /* holds ws/ and outside/ */
  char            *root;     /* tmp/ws: the workspace */
  char            *outside;  /* tmp/outside: must never change */
  GHashTable      *planted;  /* path under outside → content, NULL for a folder */
  WardenWorkspace *ws;
} Fixture;

/* Helpers */

static char *
ws_path (Fixture    *f,
         const char *rel)
{
  return g_build_filename (f->root, rel, NULL);
}

static void
put (Fixture    *f,
     const char *rel,
     const char *content)
{
  g_autofree char *path = ws_path (f, rel);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_file_set_contents (path, content, -1, &error);
  g_assert_no_error (error);
}

static void
put_len (Fixture    *f,
         const char *rel,
         const char *content,
         gssize      length)
{
  g_autofree char *path = ws_path (f, rel);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, content, length, &error);
  g_assert_no_error (error);
}

static char *
get (Fixture    *f,
     const char *rel)
{
  g_autofree char *path = ws_path (f, rel);
  char *content = NULL;

  if (!g_file_get_contents (path, &content, NULL, NULL))
    return NULL;
  return content;
}

static void
make_dir (Fixture    *f,
          const char *rel)
{
  g_autofree char *path = ws_path (f, rel);

  g_assert_cmpint (g_mkdir_with_parents (path, 0755), ==, 0);
}

static void
make_link (Fixture    *f,
           const char *rel,
           const char *target)
{
  g_autofree char *path = ws_path (f, rel);

  g_assert_cmpint (symlink (target, path), ==, 0);
}

static gboolean
is_link (Fixture    *f,
         const char *rel)
{
  g_autofree char *path = ws_path (f, rel);

  return g_file_test (path, G_FILE_TEST_IS_SYMLINK);
}

static guint
file_mode (Fixture    *f,
           const char *rel)
{
  g_autofree char *path = ws_path (f, rel);
  struct stat st;

  g_assert_cmpint (lstat (path, &st), ==, 0);
  return st.st_mode & 07777;
}

/* Something outside the workspace that the tests try to reach. */
static void
plant_outside (Fixture    *f,
               const char *rel,
               const char *content)
{
  g_autofree char *path = g_build_filename (f->outside, rel, NULL);
  g_autoptr(GError) error = NULL;

  if (content == NULL)
    g_assert_cmpint (g_mkdir_with_parents (path, 0755), ==, 0);
  else
    {
      g_file_set_contents (path, content, -1, &error);
      g_assert_no_error (error);
    }
  g_hash_table_insert (f->planted, g_strdup (rel), g_strdup (content));
}

static void
list_tree (const char *dir,
           const char *prefix,
           GPtrArray  *out)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      char *rel = prefix != NULL ? g_build_filename (prefix, name, NULL) : g_strdup (name);

      g_ptr_array_add (out, rel);
      if (!g_file_test (path, G_FILE_TEST_IS_SYMLINK) && g_file_test (path, G_FILE_TEST_IS_DIR))
        list_tree (path, rel, out);
    }
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Names in @dir (not recursive), sorted, joined with spaces. */
static char *
listing (const char *dir)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_strings);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

static int
remove_cb (const char        *path,
           const struct stat *st,
           int                flag,
           struct FTW        *ftw)
{
  return remove (path);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->tmp = g_dir_make_tmp ("warden-workspace-XXXXXX", &error);
  g_assert_no_error (error);
  f->root = g_build_filename (f->tmp, "ws", NULL);
  f->outside = g_build_filename (f->tmp, "outside", NULL);
  g_assert_cmpint (g_mkdir (f->root, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (f->outside, 0755), ==, 0);
  f->planted = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  plant_outside (f, "canary", "canary: must never change\n");
  plant_outside (f, "secret.txt", "SECRET outside the workspace\n");

  f->ws = g_initable_new (WARDEN_TYPE_WORKSPACE, NULL, &error,
                          "root", f->root,
                          "inside", "/workspace",
                          "use-openat2", GPOINTER_TO_INT (data) != MODE_WALK,
                          NULL);
  g_assert_no_error (error);
  g_assert_nonnull (f->ws);
  if (GPOINTER_TO_INT (data) == MODE_WALK)
    g_assert_false (warden_workspace_uses_openat2 (f->ws));
}

/* Whatever a test did, nothing outside the workspace was read into it,
 * written or created: the outside folder holds what was planted, as it was. */
static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) expected = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key, value;

  list_tree (f->outside, NULL, found);
  g_ptr_array_sort (found, compare_strings);
  g_hash_table_iter_init (&iter, f->planted);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_ptr_array_add (expected, key);
  g_ptr_array_sort (expected, compare_strings);
  g_assert_cmpuint (found->len, ==, expected->len);
  for (guint i = 0; i < found->len; i++)
    g_assert_cmpstr (g_ptr_array_index (found, i), ==, g_ptr_array_index (expected, i));

  g_hash_table_iter_init (&iter, f->planted);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (value != NULL)
      {
        g_autofree char *path = g_build_filename (f->outside, key, NULL);
        g_autofree char *content = NULL;

        g_assert_true (g_file_get_contents (path, &content, NULL, NULL));
        g_assert_cmpstr (content, ==, value);
      }

  g_clear_object (&f->ws);
  g_assert_cmpint (nftw (f->tmp, remove_cb, 16, FTW_DEPTH | FTW_PHYS), ==, 0);
  g_clear_pointer (&f->planted, g_hash_table_unref);
  g_clear_pointer (&f->tmp, g_free);
  g_clear_pointer (&f->root, g_free);
  g_clear_pointer (&f->outside, g_free);
}

static void
assert_strv (char       **got,
             const char  *expected)
{
  g_autofree char *joined = NULL;

  g_assert_nonnull (got);
  joined = g_strjoinv (" ", got);
  g_assert_cmpstr (joined, ==, expected);
}

/* Construction */

static void
test_new_errors (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *missing = g_build_filename (f->tmp, "missing", NULL);
  g_autofree char *file = g_build_filename (f->root, "file", NULL);
  WardenWorkspace *ws;

  ws = warden_workspace_new (missing, NULL, &error);
  g_assert_null (ws);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, missing));
  g_clear_error (&error);

  put (f, "file", "x");
  ws = warden_workspace_new (file, NULL, &error);
  g_assert_null (ws);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID);
  g_clear_error (&error);

  ws = warden_workspace_new (f->root, "workspace", &error);
  g_assert_null (ws);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID);
  g_clear_error (&error);

  ws = warden_workspace_new ("", NULL, &error);
  g_assert_null (ws);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID);
}

static void
test_new_paths (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenWorkspace) ws = NULL;
  g_autofree char *via_link = g_build_filename (f->tmp, "ws-link", NULL);
  g_autofree char *real_path = g_build_filename (f->root, "a.txt", NULL);
  g_autofree char *link_path = g_build_filename (via_link, "a.txt", NULL);
  g_autofree char *text = NULL;

  g_assert_cmpstr (warden_workspace_get_root (f->ws), ==, f->root);
  g_assert_cmpstr (warden_workspace_get_inside (f->ws), ==, "/workspace");

  /* The root may be given through a link; absolute paths through either
   * spelling, or the sandbox's, are inside. */
  put (f, "a.txt", "hello\n");
  g_assert_cmpint (symlink (f->root, via_link), ==, 0);
  ws = warden_workspace_new (via_link, "/workspace/", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (warden_workspace_get_inside (ws), ==, "/workspace");

  text = warden_workspace_read (ws, real_path, 0, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "hello\n");
  g_clear_pointer (&text, g_free);
  text = warden_workspace_read (ws, link_path, 0, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "hello\n");
  g_clear_pointer (&text, g_free);
  text = warden_workspace_read (ws, "/workspace/a.txt", 0, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "hello\n");
}

static void
test_new_openat2_probe (Fixture       *f,
                        gconstpointer  data)
{
  struct open_how how = { 0 };
  int fd;

  if (GPOINTER_TO_INT (data) == MODE_WALK)
    {
      g_assert_false (warden_workspace_uses_openat2 (f->ws));
      return;
    }
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH;
  fd = (int) syscall (SYS_openat2, AT_FDCWD, ".", &how, sizeof how);
  if (fd >= 0)
    close (fd);
  if (g_getenv ("WARDEN_WORKSPACE_NO_OPENAT2") != NULL)
    {
      g_assert_false (warden_workspace_uses_openat2 (f->ws));
      g_test_skip ("WARDEN_WORKSPACE_NO_OPENAT2 is set: only the walk is tested");
      return;
    }
  g_assert_cmpint (warden_workspace_uses_openat2 (f->ws), ==, fd >= 0);
  if (fd < 0)
    g_test_skip ("openat2 is not available here; only the walk is tested");
}

/* The environment switch, in a fresh process: setenv() is only safe before
 * threads start, and it is read once, by the first workspace. */
static void
test_env_switch (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(WardenWorkspace) ws = NULL;
      g_autofree char *tmp = g_dir_make_tmp ("warden-workspace-XXXXXX", &error);
      char *text;

      g_assert_no_error (error);
      g_setenv ("WARDEN_WORKSPACE_NO_OPENAT2", "1", TRUE);
      ws = warden_workspace_new (tmp, NULL, &error);
      g_assert_no_error (error);
      g_assert_false (warden_workspace_uses_openat2 (ws));
      text = warden_workspace_read (ws, "../x", 0, 0, &error);
      g_assert_null (text);
      g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE);
      g_rmdir (tmp);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* Read */

static void
test_read_whole (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *abs = ws_path (f, "src/a.txt");
  const char *paths[] = { "src/a.txt", "./src//a.txt", "src/../src/a.txt", "/workspace/src/a.txt",
                          "/workspace//src/./a.txt", abs };

  put (f, "src/a.txt", "one\ntwo\ncafé ✓\n");
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autofree char *text = warden_workspace_read (f->ws, paths[i], 0, 0, &error);

      g_assert_no_error (error);
      g_assert_cmpstr (text, ==, "one\ntwo\ncafé ✓\n");
    }
}

static void
test_read_offset_limit (Fixture       *f,
                        gconstpointer  data)
{
  static const struct { guint offset, limit; const char *expected; } cases[] = {
    { 0, 0, "1\n2\n3\n4\n5" },
    { 0, 1, "1\n" },
    { 1, 2, "2\n3\n" },
    { 3, 0, "4\n5" },
    { 4, 10, "5" },
    { 5, 0, "" },
    { 100, 3, "" },
  };

  put (f, "lines.txt", "1\n2\n3\n4\n5");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *text = warden_workspace_read (f->ws, "lines.txt", cases[i].offset,
                                                     cases[i].limit, &error);

      g_assert_no_error (error);
      g_assert_cmpstr (text, ==, cases[i].expected);
    }
}

static void
test_read_empty (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  put (f, "empty", "");
  text = warden_workspace_read (f->ws, "empty", 0, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "");
}

static void
test_read_binary (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *late = g_malloc (20000);
  char *text;

  put_len (f, "blob.bin", "ELF\0\1\2text", 11);
  text = warden_workspace_read (f->ws, "blob.bin", 0, 0, &error);
  g_assert_null (text);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_BINARY);
  g_assert_nonnull (strstr (error->message, "blob.bin"));
  g_clear_error (&error);

  /* A NUL past the first 8 KB is not UTF-8 text either. */
  memset (late, 'a', 20000);
  late[15000] = '\0';
  put_len (f, "late.txt", late, 20000);
  text = warden_workspace_read (f->ws, "late.txt", 0, 0, &error);
  g_assert_null (text);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_BINARY);
}

static void
test_read_invalid_utf8 (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  char *text;

  put (f, "latin1.txt", "caf\xe9 au lait\n");
  text = warden_workspace_read (f->ws, "latin1.txt", 0, 0, &error);
  g_assert_null (text);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_BINARY);
  g_assert_nonnull (strstr (error->message, "UTF-8"));
}

static void
test_read_directory (Fixture       *f,
                     gconstpointer  data)
{
  const char *paths[] = { "src", "src/", "", ".", "/workspace", "/workspace/src" };

  make_dir (f, "src");
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autoptr(GError) error = NULL;
      char *text = warden_workspace_read (f->ws, paths[i], 0, 0, &error);

      g_assert_null (text);
      g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_IS_DIRECTORY);
    }
}

static void
test_read_missing (Fixture       *f,
                   gconstpointer  data)
{
  const char *paths[] = { "nope.txt", "no/such/dir.txt", "file.txt/below" };

  put (f, "file.txt", "x");
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autoptr(GError) error = NULL;
      char *text = warden_workspace_read (f->ws, paths[i], 0, 0, &error);

      g_assert_null (text);
      g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_NOT_FOUND);
      g_assert_nonnull (strstr (error->message, paths[i]));
    }
}

static void
test_read_too_large (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = ws_path (f, "huge.log");
  char *text;
  int fd;

  /* Sparse: 11 MB on paper, nothing on disk. */
  fd = open (path, O_WRONLY | O_CREAT, 0644);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, 11 * 1024 * 1024), ==, 0);
  close (fd);

  text = warden_workspace_read (f->ws, "huge.log", 0, 10, &error);
  g_assert_null (text);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "huge.log"));
}

static void
test_read_fifo (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = ws_path (f, "pipe");
  char *text;

  /* Planted by a command; opening it must not hang waiting for a writer. */
  g_assert_cmpint (mkfifo (path, 0644), ==, 0);
  text = warden_workspace_read (f->ws, "pipe", 0, 0, &error);
  g_assert_null (text);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID);
}

/* Write */

static void
test_write_new_parents (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *content = NULL;

  g_assert_true (warden_workspace_write (f->ws, "new/deep/folder/file.txt", "hi\n", 3, &error));
  g_assert_no_error (error);
  content = get (f, "new/deep/folder/file.txt");
  g_assert_cmpstr (content, ==, "hi\n");
  /* A new file gets 0666 less the umask (022, set in main). */
  g_assert_cmpuint (file_mode (f, "new/deep/folder/file.txt"), ==, 0644);
  g_clear_pointer (&content, g_free);

  g_assert_true (warden_workspace_write (f->ws, "/workspace/x/y.txt", "y", 1, &error));
  g_assert_no_error (error);
  content = get (f, "x/y.txt");
  g_assert_cmpstr (content, ==, "y");
  g_clear_pointer (&content, g_free);

  g_assert_true (warden_workspace_write (f->ws, "empty.txt", NULL, 0, &error));
  g_assert_no_error (error);
  content = get (f, "empty.txt");
  g_assert_cmpstr (content, ==, "");
}

static void
test_write_overwrite_keeps_mode (Fixture       *f,
                                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = ws_path (f, "run.sh");
  g_autofree char *content = NULL;
  g_autofree char *names = NULL;

  put (f, "run.sh", "#!/bin/sh\necho old\n");
  g_assert_cmpint (chmod (path, 0751), ==, 0);
  g_assert_true (warden_workspace_write (f->ws, "run.sh", "#!/bin/sh\necho new\n", 19, &error));
  g_assert_no_error (error);
  content = get (f, "run.sh");
  g_assert_cmpstr (content, ==, "#!/bin/sh\necho new\n");
  g_assert_cmpuint (file_mode (f, "run.sh"), ==, 0751);

  /* No temporary file stays behind. */
  names = listing (f->root);
  g_assert_cmpstr (names, ==, "run.sh");
}

static void
test_write_atomic_on_failure (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = ws_path (f, "keep.txt");
  g_autofree char *big = g_malloc (1024 * 1024);
  g_autofree char *content = NULL;
  g_autofree char *names = NULL;
  struct rlimit old, small;
  gboolean ok, ok_new;

  put (f, "keep.txt", "original\n");
  g_assert_cmpint (chmod (path, 0640), ==, 0);
  memset (big, 'x', 1024 * 1024);

  /* The disk "fills up" after 4 KB: write() fails with EFBIG. */
  signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &old), ==, 0);
  small = old;
  small.rlim_cur = 4096;
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &small), ==, 0);
  ok = warden_workspace_write (f->ws, "keep.txt", big, 1024 * 1024, &error);
  ok_new = warden_workspace_write (f->ws, "fresh.txt", big, 1024 * 1024, NULL);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &old), ==, 0);

  g_assert_false (ok);
  g_assert_false (ok_new);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "keep.txt"));
  content = get (f, "keep.txt");
  g_assert_cmpstr (content, ==, "original\n");
  g_assert_cmpuint (file_mode (f, "keep.txt"), ==, 0640);
  names = listing (f->root);
  g_assert_cmpstr (names, ==, "keep.txt");
}

static void
test_write_directory (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *inner = NULL;

  put (f, "src/inner.c", "int x;\n");
  g_assert_false (warden_workspace_write (f->ws, "src", "oops", 4, &error));
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_IS_DIRECTORY);
  inner = get (f, "src/inner.c");
  g_assert_cmpstr (inner, ==, "int x;\n");
}

static void
test_write_invalid_paths (Fixture       *f,
                          gconstpointer  data)
{
  const char *paths[] = { "", ".", "/workspace", "dir/", "a/..", "/workspace/" };
  g_autofree char *names = NULL;

  make_dir (f, "a");
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_false (warden_workspace_write (f->ws, paths[i], "x", 1, &error));
      g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID);
    }
  names = listing (f->root);
  g_assert_cmpstr (names, ==, "a");
}

static void
test_write_parent_is_file (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *content = NULL;

  put (f, "notes", "plain file\n");
  g_assert_false (warden_workspace_write (f->ws, "notes/todo.txt", "x", 1, &error));
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_NOT_FOUND);
  content = get (f, "notes");
  g_assert_cmpstr (content, ==, "plain file\n");
}

static void
test_write_symlink_inside_refused (Fixture       *f,
                                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *content = NULL;

  put (f, "AGENTS.md", "real\n");
  make_link (f, "CLAUDE.md", "AGENTS.md");
  g_assert_false (warden_workspace_write (f->ws, "CLAUDE.md", "new\n", 4, &error));
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "AGENTS.md"));
  content = get (f, "AGENTS.md");
  g_assert_cmpstr (content, ==, "real\n");
  g_assert_true (is_link (f, "CLAUDE.md"));
}

static void
test_write_through_folder_link_inside (Fixture       *f,
                                       gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *content = NULL;

  /* A link among the folders that stays inside is followed. */
  make_dir (f, "real");
  make_link (f, "alias", "real");
  make_dir (f, "sub");
  make_link (f, "sub/up", "../real");
  g_assert_true (warden_workspace_write (f->ws, "alias/a.txt", "a", 1, &error));
  g_assert_no_error (error);
  g_assert_true (warden_workspace_write (f->ws, "sub/up/new/b.txt", "b", 1, &error));
  g_assert_no_error (error);
  content = get (f, "real/a.txt");
  g_assert_cmpstr (content, ==, "a");
  g_clear_pointer (&content, g_free);
  content = get (f, "real/new/b.txt");
  g_assert_cmpstr (content, ==, "b");
}

/* Edit */

static void
test_edit_unique (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *content = NULL;

  put (f, "hello.c", "int main (void)\n{\n  return 1;\n}\n");
  g_assert_cmpuint (warden_workspace_edit (f->ws, "hello.c", "return 1;", "return 0;", FALSE,
                                           &error), ==, 1);
  g_assert_no_error (error);
  content = get (f, "hello.c");
  g_assert_cmpstr (content, ==, "int main (void)\n{\n  return 0;\n}\n");
  g_clear_pointer (&content, g_free);

  /* Deleting is replacing with nothing. */
  g_assert_cmpuint (warden_workspace_edit (f->ws, "/workspace/hello.c", "  return 0;\n", "",
                                           FALSE, &error), ==, 1);
  g_assert_no_error (error);
  content = get (f, "hello.c");
  g_assert_cmpstr (content, ==, "int main (void)\n{\n}\n");
}

static void
test_edit_not_unique (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *content = NULL;

  put (f, "x.txt", "foo bar foo baz foo\n");
  g_assert_cmpuint (warden_workspace_edit (f->ws, "x.txt", "foo", "qux", FALSE, &error), ==, 0);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_NOT_UNIQUE);
  g_assert_nonnull (strstr (error->message, "3"));
  content = get (f, "x.txt");
  g_assert_cmpstr (content, ==, "foo bar foo baz foo\n");
}

static void
test_edit_replace_all (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *content = NULL;

  put (f, "x.txt", "foo bar foo baz foo\n");
  g_assert_cmpuint (warden_workspace_edit (f->ws, "x.txt", "foo", "qux", TRUE, &error), ==, 3);
  g_assert_no_error (error);
  content = get (f, "x.txt");
  g_assert_cmpstr (content, ==, "qux bar qux baz qux\n");
  g_clear_pointer (&content, g_free);

  /* Non-overlapping, left to right; the replacement is not searched again. */
  put (f, "y.txt", "aaaa");
  g_assert_cmpuint (warden_workspace_edit (f->ws, "y.txt", "aa", "a", TRUE, &error), ==, 2);
  g_assert_no_error (error);
  content = get (f, "y.txt");
  g_assert_cmpstr (content, ==, "aa");
}

static void
test_edit_no_match (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *content = NULL;

  put (f, "x.txt", "hello\n");
  g_assert_cmpuint (warden_workspace_edit (f->ws, "x.txt", "Hello", "bye", TRUE, &error), ==, 0);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_NO_MATCH);
  g_assert_nonnull (strstr (error->message, "x.txt"));
  content = get (f, "x.txt");
  g_assert_cmpstr (content, ==, "hello\n");
}

static void
test_edit_invalid (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *content = NULL;
  g_autofree char *names = NULL;

  put (f, "x.txt", "hello\n");
  g_assert_cmpuint (warden_workspace_edit (f->ws, "x.txt", "", "bye", FALSE, &error), ==, 0);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_cmpuint (warden_workspace_edit (f->ws, "x.txt", "hello", "hello", FALSE, &error), ==, 0);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_cmpuint (warden_workspace_edit (f->ws, "missing.txt", "a", "b", FALSE, &error), ==, 0);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_NOT_FOUND);
  g_clear_error (&error);
  make_dir (f, "dir");
  g_assert_cmpuint (warden_workspace_edit (f->ws, "dir", "a", "b", FALSE, &error), ==, 0);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_IS_DIRECTORY);
  g_clear_error (&error);
  /* Edit never creates a file or its folders. */
  g_assert_cmpuint (warden_workspace_edit (f->ws, "new/x.txt", "a", "b", FALSE, &error), ==, 0);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_NOT_FOUND);
  names = listing (f->root);
  g_assert_cmpstr (names, ==, "dir x.txt");
  content = get (f, "x.txt");
  g_assert_cmpstr (content, ==, "hello\n");
}

static void
test_edit_keeps_mode (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = ws_path (f, "tool");
  g_autofree char *names = NULL;

  put (f, "tool", "#!/bin/sh\nexit 1\n");
  g_assert_cmpint (chmod (path, 0700), ==, 0);
  g_assert_cmpuint (warden_workspace_edit (f->ws, "tool", "exit 1", "exit 0", FALSE, &error),
                    ==, 1);
  g_assert_no_error (error);
  g_assert_cmpuint (file_mode (f, "tool"), ==, 0700);
  names = listing (f->root);
  g_assert_cmpstr (names, ==, "tool");
}

static void
test_edit_binary_and_links (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *content = NULL;

  put_len (f, "blob", "ab\0cd", 5);
  g_assert_cmpuint (warden_workspace_edit (f->ws, "blob", "ab", "xy", FALSE, &error), ==, 0);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_BINARY);
  g_clear_error (&error);

  put (f, "target.txt", "abc\n");
  make_link (f, "link.txt", "target.txt");
  g_assert_cmpuint (warden_workspace_edit (f->ws, "link.txt", "abc", "xyz", FALSE, &error), ==, 0);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID);
  content = get (f, "target.txt");
  g_assert_cmpstr (content, ==, "abc\n");
  g_assert_true (is_link (f, "link.txt"));
}

/* Glob */

static void
make_tree (Fixture *f)
{
  const char *files[] = {
    "README.md", "a.c", "b.c", "ab.h", "a-b.c", "a/z.c", "src/main.c", "src/util.c",
    "src/util.h", "src/deep/x/y.c", "docs/guide.md", ".hidden/c.c", ".git/config",
    ".git/hooks/pre-commit.c", "data1.txt", "data2.txt", "datax.txt", "src/.env",
  };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    put (f, files[i], "x\n");
  make_dir (f, "empty-dir");
}

static char *
glob_joined (Fixture    *f,
             const char *pattern,
             const char *base,
             guint       max)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) paths = warden_workspace_glob (f->ws, pattern, base, max, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (paths);
  return g_strjoinv (" ", paths);
}

#define assert_glob(f, pattern, base, max, expected)                    \
  G_STMT_START {                                                        \
    g_autofree char *joined_ = glob_joined (f, pattern, base, max);     \
    g_assert_cmpstr (joined_, ==, expected);                            \
  } G_STMT_END

static void
test_glob_star (Fixture       *f,
                gconstpointer  data)
{
  make_tree (f);
  assert_glob (f, "*.c", NULL, 0, "a-b.c a.c b.c");
  assert_glob (f, "src/*", NULL, 0, "src/.env src/main.c src/util.c src/util.h");
  assert_glob (f, "*/*.md", NULL, 0, "docs/guide.md");
  assert_glob (f, "*.nothing", NULL, 0, "");
  assert_glob (f, "README.md", NULL, 0, "README.md");
}

static void
test_glob_doublestar (Fixture       *f,
                      gconstpointer  data)
{
  make_tree (f);
  assert_glob (f, "**/*.c", NULL, 0,
               ".hidden/c.c a-b.c a.c a/z.c b.c src/deep/x/y.c src/main.c src/util.c");
  assert_glob (f, "src/**", NULL, 0,
               "src/.env src/deep/x/y.c src/main.c src/util.c src/util.h");
  assert_glob (f, "**/x/*.c", NULL, 0, "src/deep/x/y.c");
  assert_glob (f, "src/**/y.c", NULL, 0, "src/deep/x/y.c");
  assert_glob (f, "**/**/*.h", NULL, 0, "ab.h src/util.h");
  /* Folders are not listed, only files. */
  assert_glob (f, "**/deep", NULL, 0, "");
}

static void
test_glob_question_and_classes (Fixture       *f,
                                gconstpointer  data)
{
  make_tree (f);
  assert_glob (f, "data?.txt", NULL, 0, "data1.txt data2.txt datax.txt");
  assert_glob (f, "data[0-9].txt", NULL, 0, "data1.txt data2.txt");
  assert_glob (f, "data[!0-9].txt", NULL, 0, "datax.txt");
  assert_glob (f, "data[^12].txt", NULL, 0, "datax.txt");
  assert_glob (f, "[ab].c", NULL, 0, "a.c b.c");
  assert_glob (f, "a?b.c", NULL, 0, "a-b.c");
  assert_glob (f, "??.h", NULL, 0, "ab.h");
}

static void
test_glob_braces (Fixture       *f,
                  gconstpointer  data)
{
  make_tree (f);
  assert_glob (f, "*.{c,h}", NULL, 0, "a-b.c a.c ab.h b.c");
  assert_glob (f, "{src,docs}/*.{h,md}", NULL, 0, "docs/guide.md src/util.h");
  assert_glob (f, "src/{main,util}.c", NULL, 0, "src/main.c src/util.c");
}

static void
test_glob_sorted_and_max (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) all = NULL;
  g_auto(GStrv) copy = NULL;

  make_tree (f);
  all = warden_workspace_glob (f->ws, "**", NULL, 0, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (all), ==, 16);
  copy = g_strdupv (all);
  qsort (copy, g_strv_length (copy), sizeof (char *), compare_strings);
  for (guint i = 0; all[i] != NULL; i++)
    g_assert_cmpstr (all[i], ==, copy[i]);

  /* "a-b.c" < "a.c" < "a/z.c" < "ab.h" in byte order, across folders. */
  assert_glob (f, "**/*.c", NULL, 3, ".hidden/c.c a-b.c a.c");
  assert_glob (f, "**/*.c", NULL, 4, ".hidden/c.c a-b.c a.c a/z.c");
  assert_glob (f, "**", NULL, 1, ".hidden/c.c");
}

static void
test_glob_base (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  GStrv paths;

  make_tree (f);
  assert_glob (f, "*.c", "src", 0, "src/main.c src/util.c");
  assert_glob (f, "*.c", "/workspace/src", 0, "src/main.c src/util.c");
  assert_glob (f, "**/*.c", "src/deep", 0, "src/deep/x/y.c");
  assert_glob (f, "/workspace/src/*.h", NULL, 0, "src/util.h");
  assert_glob (f, "*", "empty-dir", 0, "");

  paths = warden_workspace_glob (f->ws, "*", "nope", 0, NULL, &error);
  g_assert_null (paths);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_NOT_FOUND);
  g_clear_error (&error);
  paths = warden_workspace_glob (f->ws, "*", "a.c", 0, NULL, &error);
  g_assert_null (paths);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID);
}

static void
test_glob_git (Fixture       *f,
               gconstpointer  data)
{
  make_tree (f);
  assert_glob (f, "**/config", NULL, 0, "");
  assert_glob (f, "**/*.c", ".git", 0, ".git/hooks/pre-commit.c");
  assert_glob (f, ".git/*", NULL, 0, ".git/config");
  assert_glob (f, ".git/**/*.c", NULL, 0, ".git/hooks/pre-commit.c");
  assert_glob (f, "*/config", NULL, 0, "");
}

static void
test_glob_invalid (Fixture       *f,
                   gconstpointer  data)
{
  const char *patterns[] = { "", "[ab", "src/[a-", "../*", "src/../../x", "{a,b", "x\\" };

  make_tree (f);
  for (guint i = 0; i < G_N_ELEMENTS (patterns); i++)
    {
      g_autoptr(GError) error = NULL;
      GStrv paths = warden_workspace_glob (f->ws, patterns[i], NULL, 0, NULL, &error);

      g_assert_null (paths);
      g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID);
    }
}

static void
test_glob_links_not_followed (Fixture       *f,
                              gconstpointer  data)
{
  make_tree (f);
  make_link (f, "alias.c", "a.c");
  make_link (f, "srclink", "src");
  assert_glob (f, "*.c", NULL, 0, "a-b.c a.c b.c");
  assert_glob (f, "srclink/*", NULL, 0, "");
  /* Named as the base, a link inside is resolved like any path. */
  assert_glob (f, "*.h", "srclink", 0, "srclink/util.h");
}

/* Grep */

static void
make_grep_tree (Fixture *f)
{
  put (f, "src/main.c",
       "#include <stdio.h>\n"
       "int\n"
       "main (void)\n"
       "{\n"
       "  puts (\"needle\");\n"
       "  return 0;\n"
       "}\n");
  put (f, "src/util.py", "def needle():\n    return 'NEEDLE'\n");
  put (f, "notes.txt", "no match here\r\nneedle in CRLF\r\n");
  put (f, "lib/deep/x.c", "/* needle */\n");
}

static GPtrArray *
grep (Fixture    *f,
      const char *regex,
      const char *base,
      const char *include,
      guint       max,
      guint       context,
      gboolean    ignore_case)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *matches = warden_workspace_grep (f->ws, regex, base, include, max, context,
                                              ignore_case, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (matches);
  return matches;
}

/* "path:line" for each match, joined with spaces. */
static char *
where (GPtrArray *matches)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < matches->len; i++)
    {
      WardenGrepMatch *m = g_ptr_array_index (matches, i);

      g_string_append_printf (s, "%s%s:%u", i > 0 ? " " : "", m->path, m->line_number);
    }
  return g_string_free (s, FALSE);
}

#define assert_grep(f, regex, base, include, max, icase, expected)                      \
  G_STMT_START {                                                                        \
    g_autoptr(GPtrArray) matches_ = grep (f, regex, base, include, max, 0, icase);      \
    g_autofree char *where_ = where (matches_);                                         \
    g_assert_cmpstr (where_, ==, expected);                                             \
  } G_STMT_END

static void
test_grep_regex (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(GPtrArray) matches = NULL;
  WardenGrepMatch *m;

  make_grep_tree (f);
  matches = grep (f, "needle", NULL, NULL, 0, 0, FALSE);
  g_assert_cmpuint (matches->len, ==, 4);
  m = g_ptr_array_index (matches, 0);
  g_assert_cmpstr (m->path, ==, "lib/deep/x.c");
  g_assert_cmpuint (m->line_number, ==, 1);
  g_assert_cmpstr (m->line, ==, "/* needle */");
  g_assert_nonnull (m->before);
  g_assert_cmpuint (g_strv_length (m->before), ==, 0);
  g_assert_cmpuint (g_strv_length (m->after), ==, 0);
  m = g_ptr_array_index (matches, 1);
  g_assert_cmpstr (m->path, ==, "notes.txt");
  g_assert_cmpuint (m->line_number, ==, 2);
  g_assert_cmpstr (m->line, ==, "needle in CRLF");

  assert_grep (f, "needle", NULL, NULL, 0, FALSE,
               "lib/deep/x.c:1 notes.txt:2 src/main.c:5 src/util.py:1");
  assert_grep (f, "^(int|main)\\b", NULL, NULL, 0, FALSE, "src/main.c:2 src/main.c:3");
  assert_grep (f, "return \\d;$", NULL, NULL, 0, FALSE, "src/main.c:6");
  assert_grep (f, "nothing-like-this", NULL, NULL, 0, FALSE, "");
}

static void
test_grep_ignore_case (Fixture       *f,
                       gconstpointer  data)
{
  make_grep_tree (f);
  assert_grep (f, "NEEDLE", NULL, NULL, 0, FALSE, "src/util.py:2");
  assert_grep (f, "NEEDLE", "src", NULL, 0, TRUE, "src/main.c:5 src/util.py:1 src/util.py:2");
}

static void
test_grep_include (Fixture       *f,
                   gconstpointer  data)
{
  make_grep_tree (f);
  assert_grep (f, "needle", NULL, "*.c", 0, FALSE, "lib/deep/x.c:1 src/main.c:5");
  assert_grep (f, "needle", NULL, "**/*.py", 0, FALSE, "src/util.py:1");
  assert_grep (f, "needle", NULL, "src/*.c", 0, FALSE, "src/main.c:5");
  assert_grep (f, "needle", NULL, "*.{py,txt}", 0, FALSE, "notes.txt:2 src/util.py:1");
  assert_grep (f, "needle", "src", "*.c", 0, FALSE, "src/main.c:5");
}

static void
test_grep_context (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GPtrArray) matches = NULL;
  WardenGrepMatch *m;

  put (f, "ctx.txt", "l1 hit\nl2\nl3\nl4\nl5 hit\nl6\n");
  matches = grep (f, "hit", NULL, NULL, 0, 2, FALSE);
  g_assert_cmpuint (matches->len, ==, 2);
  m = g_ptr_array_index (matches, 0);
  g_assert_cmpuint (m->line_number, ==, 1);
  g_assert_cmpuint (g_strv_length (m->before), ==, 0);
  assert_strv (m->after, "l2 l3");
  m = g_ptr_array_index (matches, 1);
  g_assert_cmpuint (m->line_number, ==, 5);
  assert_strv (m->before, "l3 l4");
  assert_strv (m->after, "l6");
}

static void
test_grep_max (Fixture       *f,
               gconstpointer  data)
{
  make_grep_tree (f);
  assert_grep (f, "needle", NULL, NULL, 2, FALSE, "lib/deep/x.c:1 notes.txt:2");
  assert_grep (f, "e", "src/main.c", NULL, 1, FALSE, "src/main.c:1");
}

static void
test_grep_skips_binary_and_large (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *path = ws_path (f, "big.txt");
  FILE *file;

  make_grep_tree (f);
  put_len (f, "image.png", "needle\0\x89PNG", 11);
  put (f, "latin1.txt", "needle caf\xe9\n");
  file = fopen (path, "w");
  g_assert_nonnull (file);
  fputs ("needle at the start of a file too large to search\n", file);
  g_assert_cmpint (ftruncate (fileno (file), 11 * 1024 * 1024), ==, 0);
  fclose (file);

  assert_grep (f, "needle", NULL, NULL, 0, FALSE,
               "lib/deep/x.c:1 notes.txt:2 src/main.c:5 src/util.py:1");
  /* Named as the base, a binary file gives no matches rather than an error. */
  assert_grep (f, "needle", "image.png", NULL, 0, FALSE, "");
}

static void
test_grep_invalid (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *matches;

  make_grep_tree (f);
  matches = warden_workspace_grep (f->ws, "needle(", NULL, NULL, 0, 0, FALSE, NULL, &error);
  g_assert_null (matches);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "needle("));
  g_clear_error (&error);

  matches = warden_workspace_grep (f->ws, "", NULL, NULL, 0, 0, FALSE, NULL, &error);
  g_assert_null (matches);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID);
  g_clear_error (&error);

  matches = warden_workspace_grep (f->ws, "x", NULL, "[a", 0, 0, FALSE, NULL, &error);
  g_assert_null (matches);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID);
  g_clear_error (&error);

  matches = warden_workspace_grep (f->ws, "x", "missing", NULL, 0, 0, FALSE, NULL, &error);
  g_assert_null (matches);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_NOT_FOUND);
}

/* Several calls */

/* The calls one after the other on one file, through both path forms. */
static void
test_file_ops_round_trip (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  g_assert_true (warden_workspace_write (f->ws, "a/b.txt", "one two\n", 8, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (warden_workspace_edit (f->ws, "a/b.txt", "two", "three", FALSE, &error),
                    ==, 1);
  g_assert_no_error (error);
  text = warden_workspace_read (f->ws, "/workspace/a/b.txt", 0, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "one three\n");

  g_assert_cmpuint (warden_workspace_edit (f->ws, "a/b.txt", "four", "five", FALSE, &error),
                    ==, 0);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_NO_MATCH);
  g_clear_error (&error);
  g_assert_null (warden_workspace_read (f->ws, "../outside/canary", 0, 0, &error));
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE);
}

/* A glob, then a search with every option at once. */
static void
test_glob_then_grep (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) matches = NULL;
  g_auto(GStrv) paths = NULL;

  make_grep_tree (f);
  paths = warden_workspace_glob (f->ws, "**/*.c", NULL, 0, NULL, &error);
  g_assert_no_error (error);
  assert_strv (paths, "lib/deep/x.c src/main.c");

  matches = warden_workspace_grep (f->ws, "NEEDLE", "src", "*.py", 0, 1, TRUE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (matches->len, ==, 2);
  assert_strv (((WardenGrepMatch *) g_ptr_array_index (matches, 0))->after,
               "    return 'NEEDLE'");
}

/* Escapes: each must fail with OUTSIDE and touch nothing outside (the
 * teardown checks the outside folder). */

static void
assert_read_outside (Fixture    *f,
                     const char *path)
{
  g_autoptr(GError) error = NULL;
  char *text = warden_workspace_read (f->ws, path, 0, 0, &error);

  if (text != NULL)
    g_error ("read “%s” escaped the workspace: “%s”", path, text);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE);
  g_assert_nonnull (strstr (error->message, path));
}

static void
assert_write_outside (Fixture    *f,
                      const char *path)
{
  g_autoptr(GError) error = NULL;

  if (warden_workspace_write (f->ws, path, "PWNED\n", 6, &error))
    g_error ("write “%s” escaped the workspace", path);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE);
  g_assert_nonnull (strstr (error->message, path));
}

static void
assert_edit_outside (Fixture    *f,
                     const char *path)
{
  g_autoptr(GError) error = NULL;

  if (warden_workspace_edit (f->ws, path, "SECRET", "PWNED", TRUE, &error) != 0)
    g_error ("edit “%s” escaped the workspace", path);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE);
}

static void
assert_all_outside (Fixture    *f,
                    const char *path)
{
  assert_read_outside (f, path);
  assert_write_outside (f, path);
  assert_edit_outside (f, path);
}

static void
test_escape_dotdot (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *names = NULL;

  make_dir (f, "a/b");
  assert_all_outside (f, "../outside/secret.txt");
  assert_all_outside (f, "../x");
  assert_all_outside (f, "a/../../x");
  assert_all_outside (f, "a/b/../../../outside/secret.txt");
  assert_all_outside (f, "missing/../../x");
  assert_write_outside (f, "../outside/new/file.txt");
  assert_write_outside (f, "new/../../outside/new.txt");
  /* Refused before anything is created inside either. */
  names = listing (f->root);
  g_assert_cmpstr (names, ==, "a");
}

static void
test_escape_absolute (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *secret = g_build_filename (f->outside, "secret.txt", NULL);
  g_autofree char *fresh = g_build_filename (f->outside, "fresh.txt", NULL);
  g_autofree char *sibling = g_strconcat (f->root, "-sibling/x", NULL);
  g_autoptr(GError) error = NULL;

  assert_all_outside (f, "/etc/passwd");
  assert_all_outside (f, secret);
  assert_write_outside (f, fresh);
  assert_write_outside (f, "/etc/warden-workspace-test");
  g_assert_false (g_file_test ("/etc/warden-workspace-test", G_FILE_TEST_EXISTS));
  /* A prefix of the root's name is not the root. */
  assert_read_outside (f, sibling);
  assert_read_outside (f, "/workspacex/a.txt");
  assert_read_outside (f, "/proc/self/root/etc/passwd");

  g_assert_null (warden_workspace_glob (f->ws, "*", "/etc", 0, NULL, &error));
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE);
  g_clear_error (&error);
  g_assert_null (warden_workspace_glob (f->ws, "/etc/*", NULL, 0, NULL, &error));
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE);
  g_clear_error (&error);
  g_assert_null (warden_workspace_grep (f->ws, "root", "/etc", NULL, 0, 0, FALSE, NULL,
                                        &error));
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE);
}

static void
test_escape_inside_dotdot (Fixture       *f,
                           gconstpointer  data)
{
  put (f, "a.txt", "a\n");
  assert_all_outside (f, "/workspace/../etc/passwd");
  assert_all_outside (f, "/workspace/src/../../etc/passwd");
  /* Lexically out and back in: refused too, as the kernel would. */
  assert_read_outside (f, "/workspace/../ws/a.txt");
}

static void
test_escape_symlink_to_etc (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *content = NULL;

  make_link (f, "etc", "/etc");
  make_link (f, "out", f->outside);
  assert_all_outside (f, "etc/passwd");
  assert_write_outside (f, "etc/warden-workspace-test");
  assert_write_outside (f, "etc/warden-workspace-dir/file");
  g_assert_false (g_file_test ("/etc/warden-workspace-test", G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test ("/etc/warden-workspace-dir", G_FILE_TEST_EXISTS));
  assert_all_outside (f, "out/secret.txt");
  assert_all_outside (f, "/workspace/out/canary");
  assert_write_outside (f, "out/new.txt");
  /* Nor the links themselves as files. */
  assert_write_outside (f, "etc");
  g_assert_true (is_link (f, "etc"));
  assert_write_outside (f, "out");
  g_assert_true (is_link (f, "out"));
}

static void
test_escape_symlink_chain (Fixture       *f,
                           gconstpointer  data)
{
  make_dir (f, "sub/deeper");
  make_link (f, "l1", "l2");
  make_link (f, "l2", "sub/l3");
  make_link (f, "sub/l3", "deeper/l4");
  make_link (f, "sub/deeper/l4", "../../../outside");
  make_link (f, "sub/deeper/back", "../../l1");
  make_link (f, "f1", "sub/f2");
  make_link (f, "sub/f2", "../../outside/secret.txt");

  assert_all_outside (f, "l1/secret.txt");
  assert_all_outside (f, "sub/deeper/back/secret.txt");
  assert_write_outside (f, "l1/new.txt");
  assert_write_outside (f, "l1/newdir/new.txt");
  assert_all_outside (f, "f1");
  g_assert_true (is_link (f, "f1"));
}

static void
test_escape_symlink_to_file (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *secret = g_build_filename (f->outside, "secret.txt", NULL);

  make_link (f, "rel-secret.txt", "../outside/secret.txt");
  make_link (f, "abs-secret.txt", secret);
  make_link (f, "proc-link", "/proc/self/root/etc/passwd");
  assert_all_outside (f, "rel-secret.txt");
  assert_all_outside (f, "abs-secret.txt");
  assert_all_outside (f, "/workspace/abs-secret.txt");
  assert_read_outside (f, "proc-link");
  g_assert_true (is_link (f, "rel-secret.txt"));
  g_assert_true (is_link (f, "abs-secret.txt"));
}

static void
test_escape_parent_link (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *names = NULL;

  make_link (f, "abs-out", f->outside);
  make_link (f, "rel-out", "../outside");
  make_link (f, "dangling", "../outside/not-yet");
  make_dir (f, "sub");
  make_link (f, "sub/up-out", "../../outside");

  /* Missing folders under a link that leads out are never created. */
  assert_write_outside (f, "abs-out/newdir/file.txt");
  assert_write_outside (f, "rel-out/newdir/deeper/file.txt");
  assert_write_outside (f, "dangling/file.txt");
  assert_write_outside (f, "dangling/x/y/file.txt");
  assert_write_outside (f, "sub/up-out/new.txt");
  assert_write_outside (f, "/workspace/rel-out/newdir/file.txt");
  names = listing (f->root);
  g_assert_cmpstr (names, ==, "abs-out dangling rel-out sub");
}

static void
test_escape_absolute_link_inside (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *target = ws_path (f, "a.txt");

  /* An absolute link is refused even when it points back inside: in the
   * sandbox it would mean something else anyway. */
  put (f, "a.txt", "a\n");
  make_link (f, "abs-inside", target);
  make_link (f, "sandbox-abs", "/workspace/a.txt");
  assert_read_outside (f, "abs-inside");
  assert_read_outside (f, "sandbox-abs");
}

static void
test_escape_glob_grep (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  put (f, "inside.txt", "SECRET? no, inside\n");
  make_link (f, "out", f->outside);
  make_link (f, "rel-out", "../outside");
  make_link (f, "secret.txt", "../outside/secret.txt");
  make_dir (f, "sub");
  make_link (f, "sub/up", "../../outside");

  assert_glob (f, "**", NULL, 0, "inside.txt");
  assert_glob (f, "**/secret.txt", NULL, 0, "");
  assert_glob (f, "out/*", NULL, 0, "");
  assert_grep (f, "SECRET", NULL, NULL, 0, FALSE, "inside.txt:1");
  assert_grep (f, "canary", NULL, NULL, 0, TRUE, "");

  g_assert_null (warden_workspace_glob (f->ws, "*", "out", 0, NULL, &error));
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE);
  g_clear_error (&error);
  g_assert_null (warden_workspace_glob (f->ws, "*", "sub/up", 0, NULL, &error));
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE);
  g_clear_error (&error);
  g_assert_null (warden_workspace_grep (f->ws, "SECRET", "rel-out", NULL, 0, 0, FALSE, NULL,
                                        &error));
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE);
  g_clear_error (&error);
  g_assert_null (warden_workspace_grep (f->ws, "SECRET", "secret.txt", NULL, 0, 0, FALSE, NULL,
                                        &error));
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE);
}

static void
test_escape_inside_links_allowed (Fixture       *f,
                                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  const char *paths[] = { "alias.txt", "dirlink/b.txt", "sub/up.txt", "sub/../a.txt",
                          "dirlink/../a.txt", "chain.txt", "sub/dot/up.txt" };
  char *text;

  put (f, "a.txt", "A\n");
  put (f, "real/b.txt", "A\n");
  make_dir (f, "sub");
  make_link (f, "alias.txt", "a.txt");
  make_link (f, "dirlink", "real");
  make_link (f, "sub/up.txt", "../a.txt");
  make_link (f, "chain.txt", "sub/up.txt");
  make_link (f, "sub/dot", ".");
  make_link (f, "loop", "loop");

  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      text = warden_workspace_read (f->ws, paths[i], 0, 0, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (text, ==, "A\n");
      g_free (text);
    }

  text = warden_workspace_read (f->ws, "loop", 0, 0, &error);
  g_assert_null (text);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_FAILED);
}

/* The race: a command keeps swapping a real folder with a link that leads
 * out (renameat2 RENAME_EXCHANGE, so one of the two is always there) while
 * the agent reads, writes, edits, globs and greps through the folder. */

typedef struct
{
  char *a;
  char *b;
  gint  stop;
  guint swaps;
} Swapper;

static gpointer
swap_thread (gpointer data)
{
  Swapper *s = data;

  while (!g_atomic_int_get (&s->stop))
    {
      if (renameat2 (AT_FDCWD, s->a, AT_FDCWD, s->b, RENAME_EXCHANGE) == 0)
        s->swaps++;
      else if (errno == EINVAL || errno == ENOSYS)
        {
          /* No exchange on this file system: two renames, with a gap. */
          g_autofree char *tmp = g_strconcat (s->a, ".tmp", NULL);

          if (rename (s->a, tmp) == 0 && rename (s->b, s->a) == 0 && rename (tmp, s->b) == 0)
            s->swaps++;
        }
    }
  return NULL;
}

static void
race (Fixture    *f,
      const char *link_target)
{
  g_autoptr(GThread) thread = NULL;
  g_autofree char *link_path = ws_path (f, "swap");
  Swapper s = { 0 };
  guint ok = 0, outside = 0;
  gint64 deadline;

  put (f, "d/f", "inside 0\n");
  make_dir (f, "d/sub");
  g_assert_cmpint (symlink (link_target, link_path), ==, 0);

  s.a = ws_path (f, "d");
  s.b = g_strdup (link_path);
  thread = g_thread_new ("swap", swap_thread, &s);

  deadline = g_get_monotonic_time () + 700 * G_TIME_SPAN_MILLISECOND;
  for (guint i = 0; i < 5000 && g_get_monotonic_time () < deadline; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *content = g_strdup_printf ("inside %u\n", i);
      g_autofree char *deep = g_strdup_printf ("d/new%u/file.txt", i % 50);
      g_autofree char *text = NULL;
      g_auto(GStrv) paths = NULL;
      g_autoptr(GPtrArray) matches = NULL;

      text = warden_workspace_read (f->ws, "d/f", 0, 0, &error);
      if (text != NULL)
        {
          g_assert_true (g_str_has_prefix (text, "inside "));
          ok++;
        }
      else
        {
          g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE);
          outside++;
        }
      g_clear_error (&error);

      if (!warden_workspace_write (f->ws, "d/f", content, strlen (content), &error))
        g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE);
      g_clear_error (&error);

      if (!warden_workspace_write (f->ws, deep, content, strlen (content), &error))
        g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE);
      g_clear_error (&error);

      if (!warden_workspace_write (f->ws, "d/sub/g", content, strlen (content), &error))
        g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE);
      g_clear_error (&error);

      /* Only the outside copy has "SECRET" in it. */
      g_assert_cmpuint (warden_workspace_edit (f->ws, "d/secret.txt", "SECRET", "PWNED", TRUE,
                                               &error), ==, 0);
      g_assert_true (g_error_matches (error, WARDEN_WORKSPACE_ERROR,
                                      WARDEN_WORKSPACE_ERROR_OUTSIDE) ||
                     g_error_matches (error, WARDEN_WORKSPACE_ERROR,
                                      WARDEN_WORKSPACE_ERROR_NOT_FOUND));
      g_clear_error (&error);

      if (i % 10 == 0)
        {
          paths = warden_workspace_glob (f->ws, "**", "d", 0, NULL, &error);
          if (paths != NULL)
            for (guint j = 0; paths[j] != NULL; j++)
              g_assert_false (g_str_has_suffix (paths[j], "canary"));
          else
            g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE);
          g_clear_error (&error);

          matches = warden_workspace_grep (f->ws, "SECRET|canary", "d", NULL, 0, 0, FALSE, NULL,
                                           &error);
          if (matches != NULL)
            g_assert_cmpuint (matches->len, ==, 0);
          else
            g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE);
        }
    }

  g_atomic_int_set (&s.stop, 1);
  g_thread_join (g_steal_pointer (&thread));
  g_test_message ("%u swaps, %u reads inside, %u refused", s.swaps, ok, outside);
  g_assert_cmpuint (s.swaps, >, 0);
  g_assert_cmpuint (ok + outside, >, 0);
  g_free (s.a);
  g_free (s.b);
}

static void
test_escape_race_absolute (Fixture       *f,
                           gconstpointer  data)
{
  plant_outside (f, "f", "OUTSIDE f\n");
  plant_outside (f, "sub", NULL);
  race (f, f->outside);
}

static void
test_escape_race_relative (Fixture       *f,
                           gconstpointer  data)
{
  plant_outside (f, "f", "OUTSIDE f\n");
  plant_outside (f, "sub", NULL);
  race (f, "../outside");
}

/* Protected paths: write and edit refuse them with PROTECTED (the agent
 * asks), wherever the path really leads, and make no folder on the way. */

static void
assert_write_protected (Fixture    *f,
                        const char *path)
{
  g_autoptr(GError) error = NULL;

  if (warden_workspace_write (f->ws, path, "[core]\n\tfsmonitor = x\n", 23, &error))
    g_error ("write “%s” went through", path);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_PROTECTED);
  g_assert_nonnull (strstr (error->message, path));
}

static void
test_protected_names (Fixture       *f,
                      gconstpointer  data)
{
  static const char * const paths[] = {
    ".git/config", ".git/hooks/pre-commit", ".GIT/config", "sub/.git/config", ".gitmodules",
    ".envrc", ".vscode/tasks.json", ".idea/workspace.xml", ".devcontainer/devcontainer.json",
    ".bashrc", "home/.profile", ".zshrc", "warden.db", "/workspace/.git/info/attributes",
  };
  g_autoptr(GError) error = NULL;

  put (f, ".git/config", "[core]\n");
  put (f, ".envrc", "export A=1\n");
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    assert_write_protected (f, paths[i]);
  g_assert_cmpuint (warden_workspace_edit (f->ws, ".envrc", "A=1", "A=2", FALSE, &error), ==, 0);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_PROTECTED);

  {
    g_autofree char *config = get (f, ".git/config");
    g_autofree char *envrc = get (f, ".envrc");
    g_autofree char *git = ws_path (f, ".git");
    g_autofree char *sub = ws_path (f, "sub");
    g_autofree char *listing_git = listing (git);

    g_assert_cmpstr (config, ==, "[core]\n");
    g_assert_cmpstr (envrc, ==, "export A=1\n");
    /* Nothing made on the way to a refusal. */
    g_assert_cmpstr (listing_git, ==, "config");
    g_assert_false (g_file_test (sub, G_FILE_TEST_EXISTS));
  }

  /* Names that only look alike are the project's own files. */
  g_clear_error (&error);
  g_assert_true (warden_workspace_write (f->ws, ".gitignore", "*.o\n", 4, &error));
  g_assert_true (warden_workspace_write (f->ws, ".github/workflows/ci.yml", "on: push\n", 9,
                                         &error));
  g_assert_true (warden_workspace_write (f->ws, "docs/git/config.md", "x\n", 2, &error));
  g_assert_no_error (error);
}

/* A link inside the workspace to .git is .git: the folder that is really
 * opened decides, not the spelling. */
static void
test_protected_through_link (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  put (f, ".git/config", "[core]\n");
  make_dir (f, ".git/hooks");
  make_link (f, "tools", ".git/hooks");
  make_link (f, "cfg", ".git");
  make_dir (f, "deep/er");
  make_link (f, "deep/er/up", "../..");

  assert_write_protected (f, "tools/pre-commit");
  assert_write_protected (f, "tools/new/pre-push");
  assert_write_protected (f, "cfg/config");
  assert_write_protected (f, "deep/er/up/.git/config");
  assert_write_protected (f, "/workspace/cfg/hooks/post-checkout");
  g_assert_cmpuint (warden_workspace_edit (f->ws, "cfg/config", "core", "x", FALSE, &error), ==,
                    0);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_PROTECTED);
  g_assert_nonnull (strstr (error->message, ".git/config"));

  {
    g_autofree char *hooks_path = ws_path (f, ".git/hooks");
    g_autofree char *hooks = listing (hooks_path);
    g_autofree char *config = get (f, ".git/config");

    g_assert_cmpstr (hooks, ==, "");
    g_assert_cmpstr (config, ==, "[core]\n");
  }
}

/* Targets: what the user approves outside the workspace. */

static char *
real_outside (Fixture    *f,
              const char *rel)
{
  g_autofree char *path = g_build_filename (f->outside, rel, NULL);
  char *real = realpath (path, NULL);
  char *copy = g_strdup (real);

  free (real);
  return copy;
}

static WardenWorkspaceTarget *
resolve (Fixture               *f,
         const char            *path,
         WardenWorkspaceAccess  access)
{
  g_autoptr(GError) error = NULL;
  WardenWorkspaceTarget *target = warden_workspace_resolve (f->ws, path, access, &error);

  g_assert_no_error (error);
  g_assert_nonnull (target);
  return target;
}

/* A relative path leads from the workspace, whatever Warden's own folder;
 * links are followed to the file that will be opened. */
static void
test_target_resolve (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(WardenWorkspaceTarget) plain = NULL;
  g_autoptr(WardenWorkspaceTarget) linked = NULL;
  g_autoptr(WardenWorkspaceTarget) inside = NULL;
  g_autofree char *secret = real_outside (f, "secret.txt");
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;

  make_link (f, "NOTES.md", "../outside/secret.txt");
  put (f, "a.txt", "inside\n");
  g_assert_cmpint (chdir ("/"), ==, 0);

  plain = resolve (f, "../outside/secret.txt", WARDEN_WORKSPACE_ACCESS_READ);
  g_assert_cmpstr (plain->path, ==, secret);
  g_assert_false (plain->inside);
  g_assert_false (plain->through_link);
  g_assert_true (plain->exists);

  linked = resolve (f, "NOTES.md", WARDEN_WORKSPACE_ACCESS_READ);
  g_assert_cmpstr (linked->path, ==, secret);
  g_assert_true (linked->through_link);
  text = warden_workspace_read_target (f->ws, linked, 0, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "SECRET outside the workspace\n");

  inside = resolve (f, "/workspace/a.txt", WARDEN_WORKSPACE_ACCESS_EDIT);
  g_assert_true (inside->inside);
  g_assert_true (g_str_has_suffix (inside->path, "/ws/a.txt"));
  g_assert_cmpint (chdir (cwd), ==, 0);
}

/* After the prompt, the link is pointed elsewhere: the approved file is
 * read all the same; the file itself replaced: refused, not read. */
static void
test_target_swapped (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(WardenWorkspaceTarget) target = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *canary = g_build_filename (f->outside, "canary", NULL);
  g_autofree char *other = g_build_filename (f->outside, "other", NULL);
  g_autofree char *notes = ws_path (f, "NOTES.md");

  make_link (f, "NOTES.md", "../outside/canary");
  target = resolve (f, "NOTES.md", WARDEN_WORKSPACE_ACCESS_READ);
  g_assert_cmpint (unlink (notes), ==, 0);
  make_link (f, "NOTES.md", "../outside/secret.txt");
  text = warden_workspace_read_target (f->ws, target, 0, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "canary: must never change\n");

  /* Another file renamed over the approved one. */
  plant_outside (f, "other", "OTHER\n");
  g_assert_cmpint (rename (other, canary), ==, 0);
  g_hash_table_remove (f->planted, "other");
  g_hash_table_insert (f->planted, g_strdup ("canary"), g_strdup ("OTHER\n"));
  g_clear_pointer (&text, g_free);
  text = warden_workspace_read_target (f->ws, target, 0, 0, &error);
  g_assert_null (text);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_CHANGED);
  g_clear_error (&error);
  g_assert_false (warden_workspace_write_target (f->ws, target, "PWNED", 5, &error));
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_CHANGED);
  g_clear_error (&error);
  g_assert_cmpuint (warden_workspace_edit_target (f->ws, target, "OTHER", "PWNED", FALSE, &error),
                    ==, 0);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_CHANGED);
}

/* A folder on the approved path becomes a link: nothing is followed. */
static void
test_target_link_in_path (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(WardenWorkspaceTarget) target = NULL;
  g_autoptr(WardenWorkspaceTarget) by_name = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_build_filename (f->outside, "dir", NULL);
  g_autofree char *moved = g_build_filename (f->outside, "moved", NULL);
  g_autofree char *path = NULL;
  char *text;

  plant_outside (f, "dir", NULL);
  plant_outside (f, "dir/notes", "notes\n");
  plant_outside (f, "evil", NULL);
  plant_outside (f, "evil/notes", "SECRET evil\n");
  target = resolve (f, "../outside/dir/notes", WARDEN_WORKSPACE_ACCESS_READ);
  path = g_strdup (target->path);
  by_name = warden_workspace_target_new (path);

  g_assert_cmpint (rename (dir, moved), ==, 0);
  g_assert_cmpint (symlink ("evil", dir), ==, 0);
  text = warden_workspace_read_target (f->ws, target, 0, 0, &error);
  g_assert_null (text);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_CHANGED);
  g_clear_error (&error);
  /* Known by name only (a session opened again), the same. */
  text = warden_workspace_read_target (f->ws, by_name, 0, 0, &error);
  g_assert_null (text);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_CHANGED);
  g_clear_error (&error);
  g_assert_false (warden_workspace_write_target (f->ws, by_name, "PWNED", 5, &error));
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_CHANGED);

  g_assert_cmpint (unlink (dir), ==, 0);
  g_assert_cmpint (rename (moved, dir), ==, 0);
}

/* What cannot be approved fails when resolved, and never blocks: devices,
 * pipes, folders, files of the kernel, missing and oversized files. */
static void
test_target_refused (Fixture       *f,
                     gconstpointer  data)
{
  static const struct { const char *path; WardenWorkspaceAccess access; int code; } rows[] = {
    { "/dev/zero", WARDEN_WORKSPACE_ACCESS_READ, WARDEN_WORKSPACE_ERROR_INVALID },
    { "/dev/null", WARDEN_WORKSPACE_ACCESS_WRITE, WARDEN_WORKSPACE_ERROR_INVALID },
    { "../pipe", WARDEN_WORKSPACE_ACCESS_READ, WARDEN_WORKSPACE_ERROR_INVALID },
    { "../pipe", WARDEN_WORKSPACE_ACCESS_WRITE, WARDEN_WORKSPACE_ERROR_INVALID },
    { "pipe-link", WARDEN_WORKSPACE_ACCESS_READ, WARDEN_WORKSPACE_ERROR_INVALID },
    { "/proc/self/environ", WARDEN_WORKSPACE_ACCESS_READ, WARDEN_WORKSPACE_ERROR_INVALID },
    { "/proc/self/root/etc/hostname", WARDEN_WORKSPACE_ACCESS_READ, -1 },
    { "../outside", WARDEN_WORKSPACE_ACCESS_READ, WARDEN_WORKSPACE_ERROR_IS_DIRECTORY },
    { "../outside/missing", WARDEN_WORKSPACE_ACCESS_READ, WARDEN_WORKSPACE_ERROR_NOT_FOUND },
    { "../outside/missing", WARDEN_WORKSPACE_ACCESS_EDIT, WARDEN_WORKSPACE_ERROR_NOT_FOUND },
    { "../outside/big", WARDEN_WORKSPACE_ACCESS_READ, WARDEN_WORKSPACE_ERROR_TOO_LARGE },
    { "../outside/", WARDEN_WORKSPACE_ACCESS_WRITE, WARDEN_WORKSPACE_ERROR_INVALID },
  };
  g_autofree char *fifo = g_build_filename (f->tmp, "pipe", NULL);
  g_autofree char *big = g_build_filename (f->outside, "big", NULL);
  int fd;

  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);
  make_link (f, "pipe-link", "../pipe");
  fd = open (big, O_WRONLY | O_CREAT, 0644);
  g_assert_cmpint (ftruncate (fd, 11 * 1024 * 1024), ==, 0);
  close (fd);
  g_hash_table_insert (f->planted, g_strdup ("big"), NULL);

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(WardenWorkspaceTarget) target = warden_workspace_resolve (f->ws, rows[i].path,
                                                                         rows[i].access, &error);

      if (rows[i].code < 0)
        {
          /* A magic link is followed by name only; what it names is shown. */
          g_assert_no_error (error);
          g_assert_cmpstr (target->path, !=, "/proc/self/root/etc/hostname");
          continue;
        }
      if (target != NULL)
        g_error ("“%s” resolved to “%s”", rows[i].path, target->path);
      g_assert_error (error, WARDEN_WORKSPACE_ERROR, rows[i].code);
    }

  /* Swapped in after the prompt: refused, and opened without waiting for a
   * writer (O_NONBLOCK). */
  {
    g_autoptr(WardenWorkspaceTarget) target = NULL;
    g_autoptr(WardenWorkspaceTarget) by_name = NULL;
    g_autoptr(GError) error = NULL;
    g_autofree char *swap = g_build_filename (f->tmp, "swap", NULL);

    g_assert_true (g_file_set_contents (swap, "x\n", -1, NULL));
    target = resolve (f, "../swap", WARDEN_WORKSPACE_ACCESS_READ);
    by_name = warden_workspace_target_new (target->path);
    g_assert_cmpint (unlink (swap), ==, 0);
    g_assert_cmpint (mkfifo (swap, 0644), ==, 0);
    g_assert_null (warden_workspace_read_target (f->ws, target, 0, 0, &error));
    /* CHANGED, or INVALID where the file system gave the pipe the inode
     * number the file had. */
    g_assert_true (error != NULL && error->domain == WARDEN_WORKSPACE_ERROR &&
                   (error->code == WARDEN_WORKSPACE_ERROR_CHANGED ||
                    error->code == WARDEN_WORKSPACE_ERROR_INVALID));
    g_clear_error (&error);
    g_assert_null (warden_workspace_read_target (f->ws, by_name, 0, 0, &error));
    g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID);
    g_clear_error (&error);
    g_assert_false (warden_workspace_write_target (f->ws, by_name, "x", 1, &error));
    g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID);
  }
}

/* An approved write: exactly the target, folders made, atomic; an edit. */
static void
test_target_write_edit (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(WardenWorkspaceTarget) fresh = NULL;
  g_autoptr(WardenWorkspaceTarget) existing = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *written = NULL;
  g_autofree char *path = g_build_filename (f->outside, "new", "dir", "file.txt", NULL);

  fresh = resolve (f, "../outside/new/dir/file.txt", WARDEN_WORKSPACE_ACCESS_WRITE);
  g_assert_false (fresh->exists);
  g_assert_true (warden_workspace_write_target (f->ws, fresh, "hello\n", 6, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &written, NULL, NULL));
  g_assert_cmpstr (written, ==, "hello\n");
  g_hash_table_insert (f->planted, g_strdup ("new"), NULL);
  g_hash_table_insert (f->planted, g_strdup ("new/dir"), NULL);
  g_hash_table_insert (f->planted, g_strdup ("new/dir/file.txt"), g_strdup ("hello\n"));

  existing = resolve (f, "../outside/new/dir/file.txt", WARDEN_WORKSPACE_ACCESS_EDIT);
  g_assert_cmpuint (warden_workspace_edit_target (f->ws, existing, "hello", "bye", FALSE, &error),
                    ==, 1);
  g_assert_no_error (error);
  g_hash_table_insert (f->planted, g_strdup ("new/dir/file.txt"), g_strdup ("bye\n"));

  /* ".." after a folder still to be made is not guessed at. */
  g_assert_null (warden_workspace_resolve (f->ws, "../outside/nope/../x",
                                           WARDEN_WORKSPACE_ACCESS_WRITE, &error));
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_NOT_FOUND);
}

/* Grep runs in Warden's process: its work is bounded and it stops. */

static void
test_grep_catastrophic (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(GString) lines = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  GPtrArray *matches;
  gint64 start;

  for (guint i = 0; i < 200; i++)
    g_string_append (lines, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\n");
  put (f, "b.txt", "aaa\n");
  put (f, "c.txt", lines->str);

  start = g_get_monotonic_time ();
  matches = warden_workspace_grep (f->ws, "^(a+)+$", NULL, NULL, 0, 0, FALSE, NULL, &error);
  /* Unbounded: seconds (5.9 s, most of it in one thread of Warden). The
   * time is a figure, not a verdict: what is checked is that it gave up. */
  g_test_message ("catastrophic grep gave up after %.0f ms",
                  (g_get_monotonic_time () - start) / 1000.0);
  g_assert_null (matches);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_TOO_COSTLY);
  g_assert_nonnull (strstr (error->message, "line 1 of “c.txt”"));
  g_clear_error (&error);

  /* The model cannot lift the limit. */
  matches = warden_workspace_grep (f->ws, "(*LIMIT_MATCH=10000000)^(a+)+$", NULL, NULL, 0, 0,
                                   FALSE, NULL, &error);
  g_assert_null (matches);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID);
  g_clear_error (&error);

  /* A sound pattern on the same lines is unaffected. */
  matches = warden_workspace_grep (f->ws, "^a+$", NULL, NULL, 0, 0, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (matches->len, ==, 1);
  g_ptr_array_unref (matches);
}

static void
put_many_lines (Fixture    *f,
                const char *rel,
                guint       n)
{
  g_autoptr(GString) lines = g_string_sized_new (n * 48);

  for (guint i = 0; i < n; i++)
    g_string_append_printf (lines, "line %u: the quick brown fox jumps over it\n", i);
  put (f, rel, lines->str);
}

/* Past its time budget, a search stops, saying where it was. */
static void
test_grep_budget (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(WardenWorkspace) ws = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *matches;

  put_many_lines (f, "big.txt", 200000);
  ws = g_initable_new (WARDEN_TYPE_WORKSPACE, NULL, &error, "root", f->root,
                       "grep-budget", 1, NULL);
  g_assert_no_error (error);
  g_assert_cmpuint (({ guint b; g_object_get (ws, "grep-budget", &b, NULL); b; }), ==, 1);
  matches = warden_workspace_grep (ws, "(fox|dog)+ jumps", NULL, NULL, 1000000, 0, FALSE, NULL,
                                   &error);
  g_assert_null (matches);
  g_assert_error (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_TOO_COSTLY);
  g_assert_nonnull (strstr (error->message, "“big.txt”"));
}

/* Cancelled, a search ends between two lines of one file, not after it. */
static void
test_grep_cancelled_in_file (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;

  put_many_lines (f, "big.txt", 1000);
  g_cancellable_cancel (cancellable);
  g_assert_null (warden_workspace_grep (f->ws, "fox", "big.txt", NULL, 0, 0, FALSE, cancellable,
                                        &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_assert_null (warden_workspace_glob (f->ws, "**", NULL, 0, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

typedef struct
{
  WardenWorkspace *ws;
  GCancellable    *cancellable;
  GPtrArray       *matches;
  GError          *error;
} Search;

static gpointer
search_thread (gpointer data)
{
  Search *search = data;

  search->matches = warden_workspace_grep (search->ws, "(quick|slow) (brown|red) fox", NULL,
                                           NULL, 1000000, 0, TRUE, search->cancellable,
                                           &search->error);
  return NULL;
}

/* Stopped during a search of a large tree, run in a thread of its own as
 * the agent runs it: the search ends without its results. */
static void
test_grep_cancelled_tree (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Search search = { f->ws, cancellable, NULL, NULL };
  GThread *thread;
  gint64 cancelled_at;

  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *rel = g_strdup_printf ("tree/d%u/file%u.txt", i % 20, i);

      put_many_lines (f, rel, 5000);
    }
  thread = g_thread_new ("grep", search_thread, &search);
  g_usleep (20 * 1000);
  g_cancellable_cancel (cancellable);
  cancelled_at = g_get_monotonic_time ();
  g_thread_join (thread);
  g_test_message ("the search returned %.0f ms after it was cancelled",
                  (g_get_monotonic_time () - cancelled_at) / 1000.0);
  g_assert_null (search.matches);
  g_assert_error (search.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&search.error);
}

typedef void (*TestFunc) (Fixture *f, gconstpointer data);

static const struct
{
  const char *name;
  TestFunc    func;
} tests[] = {
  { "new/errors", test_new_errors },
  { "new/paths", test_new_paths },
  { "new/openat2-probe", test_new_openat2_probe },
  { "read/whole", test_read_whole },
  { "read/offset-limit", test_read_offset_limit },
  { "read/empty", test_read_empty },
  { "read/binary", test_read_binary },
  { "read/invalid-utf8", test_read_invalid_utf8 },
  { "read/directory", test_read_directory },
  { "read/missing", test_read_missing },
  { "read/too-large", test_read_too_large },
  { "read/fifo", test_read_fifo },
  { "write/new-parents", test_write_new_parents },
  { "write/overwrite-keeps-mode", test_write_overwrite_keeps_mode },
  { "write/atomic-on-failure", test_write_atomic_on_failure },
  { "write/directory", test_write_directory },
  { "write/invalid-paths", test_write_invalid_paths },
  { "write/parent-is-file", test_write_parent_is_file },
  { "write/symlink-inside-refused", test_write_symlink_inside_refused },
  { "write/through-folder-link-inside", test_write_through_folder_link_inside },
  { "edit/unique", test_edit_unique },
  { "edit/not-unique", test_edit_not_unique },
  { "edit/replace-all", test_edit_replace_all },
  { "edit/no-match", test_edit_no_match },
  { "edit/invalid", test_edit_invalid },
  { "edit/keeps-mode", test_edit_keeps_mode },
  { "edit/binary-and-links", test_edit_binary_and_links },
  { "glob/star", test_glob_star },
  { "glob/doublestar", test_glob_doublestar },
  { "glob/question-and-classes", test_glob_question_and_classes },
  { "glob/braces", test_glob_braces },
  { "glob/sorted-and-max", test_glob_sorted_and_max },
  { "glob/base", test_glob_base },
  { "glob/git", test_glob_git },
  { "glob/invalid", test_glob_invalid },
  { "glob/links-not-followed", test_glob_links_not_followed },
  { "grep/regex", test_grep_regex },
  { "grep/ignore-case", test_grep_ignore_case },
  { "grep/include", test_grep_include },
  { "grep/context", test_grep_context },
  { "grep/max", test_grep_max },
  { "grep/skips-binary-and-large", test_grep_skips_binary_and_large },
  { "grep/invalid", test_grep_invalid },
  { "ops/round-trip", test_file_ops_round_trip },
  { "ops/glob-then-grep", test_glob_then_grep },
  { "escape/dotdot", test_escape_dotdot },
  { "escape/absolute", test_escape_absolute },
  { "escape/inside-dotdot", test_escape_inside_dotdot },
  { "escape/symlink-to-etc", test_escape_symlink_to_etc },
  { "escape/symlink-chain", test_escape_symlink_chain },
  { "escape/symlink-to-file", test_escape_symlink_to_file },
  { "escape/parent-link", test_escape_parent_link },
  { "escape/absolute-link-inside", test_escape_absolute_link_inside },
  { "escape/glob-grep", test_escape_glob_grep },
  { "escape/inside-links-allowed", test_escape_inside_links_allowed },
  { "escape/race-absolute-link", test_escape_race_absolute },
  { "escape/race-relative-link", test_escape_race_relative },
  { "protected/names", test_protected_names },
  { "protected/through-link", test_protected_through_link },
  { "target/resolve", test_target_resolve },
  { "target/swapped", test_target_swapped },
  { "target/link-in-path", test_target_link_in_path },
  { "target/refused", test_target_refused },
  { "target/write-edit", test_target_write_edit },
  { "grep/catastrophic", test_grep_catastrophic },
  { "grep/budget", test_grep_budget },
  { "grep/cancelled-in-file", test_grep_cancelled_in_file },
  { "grep/cancelled-tree", test_grep_cancelled_tree },
};

int
main (int   argc,
      char *argv[])
{
  static const struct { const char *name; int mode; } modes[] = {
    { "openat2", MODE_DEFAULT },
    { "walk", MODE_WALK },
  };

  g_test_init (&argc, &argv, NULL);
  umask (022);

  g_test_add_func ("/workspace/new/env-switch", test_env_switch);

  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    for (guint i = 0; i < G_N_ELEMENTS (tests); i++)
      {
        g_autofree char *path = g_strdup_printf ("/workspace/%s/%s", modes[m].name, tests[i].name);

        g_test_add (path, Fixture, GINT_TO_POINTER (modes[m].mode), fixture_setup, tests[i].func,
                    fixture_teardown);
      }

  return g_test_run ();
}
