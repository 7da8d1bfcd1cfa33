/* test-git-doors.c: what a command leaves for git on the host, closed
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/warden-git-doors-private.h"
#include "warden-test-util.h"

/* ------------------------------------------------------------------------ */
/* Helpers */

static gboolean
have_git (void)
{
  g_autofree char *git = g_find_program_in_path ("git");

  if (git != NULL)
    return TRUE;
  if (g_strcmp0 (g_getenv ("CI"), "true") == 0)
    g_test_fail_printf ("git is missing, and CI=true");
  else
    g_test_skip ("git is missing");
  return FALSE;
}

static char *git_global;

/* Runs @script with sh in @dir, git configured for tests only. */
static void
sh (const char *dir,
    const char *script)
{
  const char *argv[] = { "/bin/sh", "-c", script, NULL };
  g_auto(GStrv) env = g_get_environ ();
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  env = g_environ_setenv (env, "GIT_CONFIG_NOSYSTEM", "1", TRUE);
  env = g_environ_setenv (env, "GIT_CONFIG_GLOBAL", git_global, TRUE);
  env = g_environ_unsetenv (env, "GIT_DIR");
  env = g_environ_unsetenv (env, "GIT_INDEX_FILE");
  g_spawn_sync (dir, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("%s: %s%s", script, out, err);
}

static char *
make_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("warden-test-doors-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static gboolean
exists (const char *dir,
        const char *rel)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);
  struct stat st;

  return lstat (path, &st) == 0;
}

static char *
read_file (const char *dir,
           const char *rel)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);
  char *text = NULL;

  g_file_get_contents (path, &text, NULL, NULL);
  return text;
}

/* Whether one command's quarantine holds @rel. */
static gboolean
quarantined (const char *dir,
             const char *rel)
{
  g_autofree char *root = g_build_filename (dir, ".git", "warden-quarantine", NULL);
  g_autoptr(GDir) d = g_dir_open (root, 0, NULL);
  const char *stamp;

  while (d != NULL && (stamp = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (root, stamp, rel, NULL);
      struct stat st;

      if (lstat (path, &st) == 0)
        return TRUE;
    }
  return FALSE;
}

/* Snapshot, @script as the command would run it, close: the note. */
static char *
run_command (WardenGitDoors *doors,
             const char     *dir,
             const char     *script)
{
  g_autoptr(WardenGitSnapshot) before = warden_git_doors_snapshot (doors);

  sh (dir, script);
  return warden_git_doors_close (doors, before);
}

/* ------------------------------------------------------------------------ */
/* Config */

static void
test_config_settings (void)
{
  const struct {
    const char *name;
    const char *before;
    const char *after;
    const char *unsafe;   /* NULL: safe; "": not readable */
  } rows[] = {
    { "git-init", NULL,
      "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
      "\tlogallrefupdates = true\n", NULL },
    { "submodule-clone", NULL,
      "[core]\n\trepositoryformatversion = 0\n\tworktree = ../../../lib\n"
      "[remote \"origin\"]\n\turl = https://example.com/filter-repo.git\n"
      "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
      "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n", NULL },
    { "fsmonitor", NULL, "[core]\n\tfsmonitor = touch /tmp/x\n", "core.fsmonitor" },
    { "case", NULL, "[CORE]\n\tFSMonitor = x\n", "core.fsmonitor" },
    { "hooks-path", NULL, "[core]\n\thooksPath = evil\n", "core.hookspath" },
    { "pager", NULL, "[core]\npager = less\n", "core.pager" },
    { "ssh-command", NULL, "[core]\n\tsshCommand = x\n", "core.sshcommand" },
    { "include", NULL, "[include]\n\tpath = ../x\n", "include.path" },
    { "include-if", NULL, "[includeIf \"gitdir:/\"]\n\tpath = ../x\n",
      "includeif.gitdir:/.path" },
    { "filter", NULL, "[filter \"lfs\"]\n\tprocess = git-lfs filter-process\n",
      "filter.lfs.process" },
    { "textconv", NULL, "[diff \"x\"]\n\ttextconv = sh\n", "diff.x.textconv" },
    { "alias", NULL, "[alias]\n\tst = !sh -c x\n", "alias.st" },
    { "credential", NULL, "[credential]\n\thelper = !x\n", "credential.helper" },
    { "remote-vcs", NULL, "[remote \"o\"]\n\tvcs = evil\n", "remote.o.vcs" },
    { "submodule-update", NULL, "[submodule \"s\"]\n\tupdate = !sh\n", "submodule.s.update" },
    { "old-subsection", NULL, "[remote.origin]\n\tuploadpack = x\n", "remote.origin.uploadpack" },
    { "bool-key", NULL, "[core]\n\tfsmonitor\n", "core.fsmonitor" },
    /* What the user had stays: only what the command adds counts. */
    { "kept", "[core]\n\tpager = less\n", "[core]\n\tpager = less\n[user]\n\tname = x\n", NULL },
    { "changed-value", "[core]\n\tpager = less\n", "[core]\n\tpager = evil\n", "core.pager" },
    { "moved-section", "[core]\n\tpager = less\n", "[core]\n[core]\n\tpager = less\n", NULL },
    /* Outside the plain syntax: git may see what this does not. */
    { "on-header-line", NULL, "[core] fsmonitor = x\n", "" },
    { "continued", NULL, "[user]\n\tname = a\\\n\tfsmonitor = x\n", "" },
    { "escaped-subsection", NULL, "[remote \"a\\\"b\"]\n\turl = x\n", "" },
    { "open-quote", NULL, "[user]\n\tname = \"a\n", "" },
    { "no-section", NULL, "fsmonitor = x\n", "" },
    { "nul", NULL, "[core]\n\tbare = false\n\0[core]\n", "" },
    { "comment-after-key", NULL, "[user]\n\tname # x\n", "" },
    { "bom", NULL, "\xef\xbb\xbf[core]\n\tbare = false\n", NULL },
    { "crlf", NULL, "[core]\r\n\tbare = false\r\n", NULL },
    { "comments", NULL, "# [core] fsmonitor = x\n; x\n[core] # c\n\tbare = false ; c\n", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      gsize after_len = strlen (rows[i].after);
      g_autofree char *unsafe = NULL;

      /* The row with a NUL: its length is past it. */
      if (strcmp (rows[i].name, "nul") == 0)
        after_len += 1 + strlen (rows[i].after + after_len + 1);
      unsafe = warden_git_config_find_unsafe (rows[i].before,
                                              rows[i].before ? strlen (rows[i].before) : 0,
                                              rows[i].after, after_len);
      g_test_message ("%s: %s", rows[i].name, unsafe ? unsafe : "(safe)");
      g_assert_cmpstr (unsafe, ==, rows[i].unsafe);
    }
}

/* ------------------------------------------------------------------------ */
/* Index */

static void
assert_gitlinks (const char *dir,
                 const char *index,
                 const char *expected)
{
  g_autofree char *path = g_build_filename (dir, index, NULL);
  g_autofree char *data = NULL;
  g_autofree char *shared = NULL;
  gsize len = 0;
  gboolean all_shared = FALSE;
  g_autoptr(GPtrArray) paths = NULL;
  g_autoptr(GString) got = g_string_new (NULL);

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  paths = warden_git_index_list_gitlinks ((const guint8 *) data, len, FALSE, &shared,
                                          &all_shared);
  g_assert_nonnull (paths);
  for (guint i = 0; i < paths->len; i++)
    g_string_append_printf (got, "%s%s", i ? " " : "", (char *) g_ptr_array_index (paths, i));
  g_assert_cmpstr (got->str, ==, expected);
}

#define GITLINKS "git init -q && git commit -q --allow-empty -m a && " \
                 "echo x > file && git add file && " \
                 "git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),sub/one && " \
                 "git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),zz"

static void
test_index_versions (void)
{
  const struct {
    const char *name;
    const char *script;
  } rows[] = {
    { "v2", GITLINKS },
    { "v3", GITLINKS " && echo y > new && git add -N new" },
    { "v4", GITLINKS " && git update-index --index-version 4" },
    { "sha256", "git init -q --object-format=sha256 && git commit -q --allow-empty -m a && "
                "echo x > file && git add file && "
                "git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),sub/one && "
                "git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),zz" },
  };

  if (!have_git ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *dir = make_dir ();

      g_test_message ("%s", rows[i].name);
      sh (dir, rows[i].script);
      assert_gitlinks (dir, ".git/index", "sub/one zz");
      warden_test_remove_tree (dir);
    }
}

/* Not an index: NULL; any prefix of a real one reads as git would (it
 * does not check the checksum), never past its end. */
static void
test_index_garbage (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *data = NULL;
  gsize len = 0;

  g_assert_null (warden_git_index_list_gitlinks ((const guint8 *) "i\n", 2, FALSE, NULL, NULL));
  if (!have_git ())
    return;
  dir = make_dir ();
  sh (dir, GITLINKS);
  path = g_build_filename (dir, ".git", "index", NULL);
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  for (gsize n = 0; n < len; n++)
    {
      g_autofree guint8 *copy = g_memdup2 (data, n);
      g_autoptr(GPtrArray) paths = warden_git_index_list_gitlinks (copy, n, FALSE, NULL, NULL);

      for (guint i = 0; paths != NULL && i < paths->len; i++)
        g_assert_true (g_strv_contains ((const char * const[]) { "sub/one", "zz", NULL },
                                        g_ptr_array_index (paths, i)));
    }
  warden_test_remove_tree (dir);
}

/* A split index keeps most entries in sharedindex.HASH: a gitlink there,
 * or one that replaces an entry there, is found all the same. */
static void
test_index_split (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(WardenGitDoors) doors = NULL;
  g_autofree char *note = NULL;

  if (!have_git ())
    return;
  dir = make_dir ();
  sh (dir, GITLINKS " && git update-index --split-index && "
           "echo z > later && git add later && "
           "git update-index --cacheinfo 160000,$(git rev-parse HEAD),file && "
           "ls .git/sharedindex.* && rm file && mkdir file zz");
  doors = warden_git_doors_new (dir);
  /* A gitlink of the shared index. */
  note = run_command (doors, dir, "printf 'gitdir: ../evil\\n' > zz/.git");
  g_assert_nonnull (note);
  g_assert_true (quarantined (dir, "zz/.git~"));
  g_clear_pointer (&note, g_free);
  /* One that replaced a file of the shared index in the split index. */
  note = run_command (doors, dir, "printf 'gitdir: ../evil\\n' > file/.git");
  g_assert_nonnull (note);
  g_assert_true (quarantined (dir, "file/.git~"));
  warden_test_remove_tree (dir);
}

/* ------------------------------------------------------------------------ */
/* Doors */

static void
test_doors_nothing_changed (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(WardenGitDoors) doors = NULL;
  g_autofree char *note = NULL;

  if (!have_git ())
    return;
  dir = make_dir ();
  sh (dir, "git init -q && git commit -q --allow-empty -m a");
  doors = warden_git_doors_new (dir);
  note = run_command (doors, dir, "echo x > a && git add a && git commit -q -m a && git status");
  g_assert_null (note);
  g_assert_false (exists (dir, ".git/warden-quarantine"));
  warden_test_remove_tree (dir);
}

static void
test_doors_created (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(WardenGitDoors) doors = NULL;
  const struct {
    const char *script;
    const char *moved;
    const char *says;
  } rows[] = {
    { "printf '../evil\\n' > .git/commondir", "commondir", "another configuration" },
    { "printf '#!/bin/sh\\n' > .git/hooks/pre-push && chmod +x .git/hooks/pre-push",
      "hooks/pre-push", "as a hook" },
    { "ln -s /bin/true .git/hooks/pre-commit", "hooks/pre-commit", "symbolic link" },
    { "mkfifo .git/config.worktree", "config.worktree", "not a regular file" },
    { "echo '*.c diff=evil' > .git/info/attributes", "info/attributes", "would have read it" },
    { "mkdir -p .git/worktrees/w && printf '../../../evil\\n' > .git/worktrees/w/commondir",
      "worktrees/w/commondir", "another configuration" },
    { "mkdir -p .git/modules/a/b/hooks && echo x > .git/modules/a/b/HEAD && "
      "printf '#!/bin/sh\\n' > .git/modules/a/b/hooks/post-checkout",
      "modules/a/b/hooks/post-checkout", "as a hook" },
    { "mkdir -p .git/modules/m && echo x > .git/modules/m/HEAD && "
      "printf '[core]\\n\\teditor = x\\n' > .git/modules/m/config",
      "modules/m/config", "core.editor" },
    { "ln -s ../../evil .git/modules/s", "modules/s", "symbolic link" },
  };

  if (!have_git ())
    return;
  dir = make_dir ();
  sh (dir, "git init -q && git commit -q --allow-empty -m a && mkdir evil");
  doors = warden_git_doors_new (dir);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *note = run_command (doors, dir, rows[i].script);
      g_autofree char *where = g_build_filename (".git", rows[i].moved, NULL);

      g_test_message ("%s", note);
      g_assert_nonnull (note);
      g_assert_nonnull (strstr (note, "which the command created"));
      g_assert_nonnull (strstr (note, rows[i].says));
      g_assert_false (exists (dir, where));
      g_assert_true (quarantined (dir, rows[i].moved));
    }
  warden_test_remove_tree (dir);
}

/* What git itself does in a workspace opens no door. */
static void
test_doors_git_at_work (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(WardenGitDoors) doors = NULL;
  const char *commands[] = {
    "git init -q",
    "echo a > a && git add a && git commit -q -m a",
    "git init -q ../$(basename $PWD)-lib && git -C ../$(basename $PWD)-lib commit -q "
    "--allow-empty -m lib && git submodule add -q ../$(basename $PWD)-lib lib && "
    "git commit -q -m lib",
    "git worktree add -q wt && git -C wt status --short",
    "git clone -q ../$(basename $PWD)-lib vendor 2>/dev/null && git add vendor 2>/dev/null && "
    "git commit -q -m vendor",
    "git -C lib checkout -q --detach && git submodule update -q && git status --short",
    "git -C vendor config user.name me && git -C vendor remote set-url origin x",
    "git gc -q && git status --short",
  };

  if (!have_git ())
    return;
  dir = make_dir ();
  doors = warden_git_doors_new (dir);
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autofree char *note = run_command (doors, dir, commands[i]);

      g_test_message ("%s: %s", commands[i], note ? note : "(nothing moved)");
      g_assert_null (note);
    }
  sh (dir, "git worktree remove --force wt; rm -rf ../$(basename $PWD)-lib");
  warden_test_remove_tree (dir);
}

/* A door that was there and changed: moved, and the old one put back. */
static void
test_doors_changed_restored (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(WardenGitDoors) doors = NULL;
  g_autofree char *note = NULL;
  g_autofree char *config = NULL;
  g_autofree char *before = NULL;
  g_autofree char *hook = NULL;
  g_autofree char *hook_path = NULL;
  struct stat st;

  if (!have_git ())
    return;
  dir = make_dir ();
  sh (dir, "git init -q && git commit -q --allow-empty -m a && git init -q lib && "
           "git -C lib commit -q --allow-empty -m lib && git submodule add -q ./lib sub && "
           "printf '#!/bin/sh\\necho mine\\n' > .git/modules/sub/hooks/pre-commit && "
           "chmod 755 .git/modules/sub/hooks/pre-commit");
  before = read_file (dir, ".git/modules/sub/config");
  doors = warden_git_doors_new (dir);

  note = run_command (doors, dir, "printf '[core]\\n\\tfsmonitor = x\\n' >> "
                                  ".git/modules/sub/config && "
                                  "echo evil >> .git/modules/sub/hooks/pre-commit");
  g_test_message ("%s", note);
  g_assert_nonnull (strstr (note, "put back the version from before"));
  g_assert_nonnull (strstr (note, "core.fsmonitor"));
  config = read_file (dir, ".git/modules/sub/config");
  g_assert_cmpstr (config, ==, before);
  hook = read_file (dir, ".git/modules/sub/hooks/pre-commit");
  g_assert_cmpstr (hook, ==, "#!/bin/sh\necho mine\n");
  hook_path = g_build_filename (dir, ".git/modules/sub/hooks/pre-commit", NULL);
  g_assert_cmpint (lstat (hook_path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0755);
  g_assert_true (quarantined (dir, "modules/sub/config"));

  /* What git itself writes there stays: a branch, a remote's url. */
  g_clear_pointer (&note, g_free);
  note = run_command (doors, dir, "git -C sub config user.name me && "
                                  "git -C sub remote set-url origin https://example.com/x");
  g_assert_null (note);
  warden_test_remove_tree (dir);
}

/* Between two commands (a process the first left behind, or the user):
 * the check before the next command starts from where the last one
 * ended, moves what was opened meanwhile and says how to keep it; what
 * Warden put back itself is not reported again. */
static void
test_doors_between_commands (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(WardenGitDoors) doors = NULL;
  g_autoptr(WardenGitDoors) next_session = NULL;
  g_autoptr(WardenGitSnapshot) first = NULL;
  g_autoptr(WardenGitSnapshot) baseline = NULL;
  g_autoptr(WardenGitSnapshot) before = NULL;
  g_autoptr(WardenGitSnapshot) again = NULL;
  g_autoptr(WardenGitSnapshot) fresh = NULL;
  g_autofree char *note = NULL;
  g_autofree char *left = NULL;
  g_autofree char *config = NULL;
  g_autofree char *hook = NULL;
  g_autofree char *keep = NULL;

  if (!have_git ())
    return;
  dir = make_dir ();
  sh (dir, "git init -q && git commit -q --allow-empty -m a && "
           "printf '#!/bin/sh\necho mine\n' > .git/hooks/pre-commit && "
           "chmod 755 .git/hooks/pre-commit");
  doors = warden_git_doors_new (dir);

  /* A command changes the user's hook: put back, and that is its end. */
  first = warden_git_doors_snapshot (doors);
  sh (dir, "echo evil >> .git/hooks/pre-commit");
  baseline = warden_git_doors_check (doors, first, WARDEN_GIT_DOORS_AFTER_COMMAND, &note);
  g_assert_nonnull (note);
  g_assert_nonnull (strstr (note, "which the command changed"));
  g_assert_null (strchr (note, '\n'));
  hook = read_file (dir, ".git/hooks/pre-commit");
  g_assert_cmpstr (hook, ==, "#!/bin/sh\necho mine\n");
  left = read_file (dir, ".git/config");

  /* Nothing happened since: nothing to say, the hook Warden put back included. */
  g_clear_pointer (&note, g_free);
  before = warden_git_doors_check (doors, baseline, WARDEN_GIT_DOORS_BETWEEN_COMMANDS, &note);
  g_assert_null (note);
  g_clear_pointer (&baseline, warden_git_snapshot_free);
  baseline = warden_git_doors_check (doors, before, WARDEN_GIT_DOORS_AFTER_COMMAND, &note);
  g_assert_null (note);

  /* Then something writes core.pager into the config. */
  sh (dir, "git config core.pager 'touch pwned; cat'");
  again = warden_git_doors_check (doors, baseline, WARDEN_GIT_DOORS_BETWEEN_COMMANDS, &note);
  g_test_message ("%s", note);
  g_assert_nonnull (note);
  g_assert_nonnull (strstr (note, "Warden moved .git/config, which changed while no command ran"));
  g_assert_nonnull (strstr (note, "core.pager"));
  g_assert_nonnull (strstr (note, "copy them back from .git/warden-quarantine/"));
  config = read_file (dir, ".git/config");
  g_assert_cmpstr (config, ==, left);
  g_assert_true (quarantined (dir, "config"));

  /* Said once. */
  g_clear_pointer (&note, g_free);
  g_clear_pointer (&before, warden_git_snapshot_free);
  before = warden_git_doors_check (doors, again, WARDEN_GIT_DOORS_BETWEEN_COMMANDS, &note);
  g_assert_null (note);

  /* The way to keep it, as the note says: back once this Warden is done
   * with the folder; the next one starts from the files as they are. */
  sh (dir, "cp .git/warden-quarantine/*/config .git/config");
  next_session = warden_git_doors_new (dir);
  fresh = warden_git_doors_snapshot (next_session);
  keep = warden_git_doors_close (next_session, fresh);
  g_assert_null (keep);
  g_clear_pointer (&config, g_free);
  config = read_file (dir, ".git/config");
  g_assert_nonnull (strstr (config, "pager"));
  warden_test_remove_tree (dir);
}

/* A repository the command makes a gitlink of, that was there before: its
 * doors are the user's, as old as they are. One it makes now is its own. */
static void
test_doors_new_gitlink (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(WardenGitDoors) doors = NULL;
  g_autofree char *note = NULL;

  if (!have_git ())
    return;
  dir = make_dir ();
  sh (dir, "git init -q && git commit -q --allow-empty -m a && git init -q old && "
           "git -C old config core.pager less && git -C old commit -q --allow-empty -m o");
  /* Older than the command by more than the margin. */
  g_usleep (2500 * G_TIME_SPAN_MILLISECOND);
  doors = warden_git_doors_new (dir);
  note = run_command (doors, dir, "git add old 2>/dev/null");
  g_assert_null (note);
  g_assert_true (exists (dir, "old/.git/config"));

  note = run_command (doors, dir, "git init -q new && git -C new config core.pager evil && "
                                  "git -C new commit -q --allow-empty -m n && "
                                  "git add new 2>/dev/null");
  g_test_message ("%s", note);
  g_assert_nonnull (note);
  g_assert_nonnull (strstr (note, "core.pager"));
  /* Renamed in the quarantine: git there finds no live repository. */
  g_assert_true (quarantined (dir, "new/.git~/config"));
  warden_test_remove_tree (dir);
}

/* A workspace that is a folder of a larger repository: the gitlinks of that
 * one's index in the workspace are entered from above. */
static void
test_doors_enclosing (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *workspace = NULL;
  g_autoptr(WardenGitDoors) doors = NULL;
  g_autofree char *note = NULL;

  if (!have_git ())
    return;
  dir = make_dir ();
  sh (dir, "git init -q && git commit -q --allow-empty -m a && mkdir -p packages/app/lib && "
           "git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),packages/app/lib");
  workspace = g_build_filename (dir, "packages", "app", NULL);
  doors = warden_git_doors_new (workspace);
  note = run_command (doors, workspace, "printf 'gitdir: ../../../evil\\n' > lib/.git");
  g_test_message ("%s", note);
  g_assert_nonnull (note);
  g_assert_false (exists (workspace, "lib/.git"));
  g_assert_true (exists (workspace, ".warden-quarantine"));
  warden_test_remove_tree (dir);
}

/* An interactive rebase the command leaves with exec lines: they would run
 * when the user continues it. */
static void
test_doors_rebase_todo (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(WardenGitDoors) doors = NULL;
  g_autofree char *note = NULL;

  if (!have_git ())
    return;
  dir = make_dir ();
  sh (dir, "git init -q && git commit -q --allow-empty -m a && git commit -q --allow-empty -m b");
  doors = warden_git_doors_new (dir);
  note = run_command (doors, dir, "GIT_SEQUENCE_EDITOR=\"sed -i '1i break'\" "
                                  "git rebase -q -i --exec 'touch x' HEAD~1 2>/dev/null; "
                                  "test -d .git/rebase-merge");
  g_test_message ("%s", note);
  g_assert_nonnull (note);
  g_assert_nonnull (strstr (note, "exec lines"));
  g_assert_true (quarantined (dir, "rebase-merge/git-rebase-todo"));
  g_clear_pointer (&note, g_free);
  note = run_command (doors, dir, "git rebase --abort && "
                                  "GIT_SEQUENCE_EDITOR=\"sed -i '1i break'\" "
                                  "git rebase -q -i HEAD~1 2>/dev/null; test -d .git/rebase-merge");
  g_assert_null (note);
  warden_test_remove_tree (dir);
}

/* A file a config includes, or links to, inside the workspace is a door too. */
static void
test_doors_include (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(WardenGitDoors) doors = NULL;
  g_autofree char *note = NULL;

  if (!have_git ())
    return;
  dir = make_dir ();
  sh (dir, "git init -q && git config include.path ../shared.gitconfig && "
           "git config --file shared.gitconfig user.name me");
  doors = warden_git_doors_new (dir);
  note = run_command (doors, dir, "git config --file shared.gitconfig core.fsmonitor x");
  g_test_message ("%s", note);
  g_assert_nonnull (note);
  g_assert_nonnull (strstr (note, "shared.gitconfig"));
  g_assert_nonnull (strstr (note, "core.fsmonitor"));
  g_clear_pointer (&note, g_free);

  /* A config that is a link into the workspace: what it links to. */
  sh (dir, "mkdir -p .git/worktrees/w && echo ../.. > .git/worktrees/w/commondir && "
           "printf '[core]\\n\\tbare = false\\n' > linked.gitconfig && "
           "ln -s ../../../linked.gitconfig .git/worktrees/w/config.worktree");
  g_clear_pointer (&doors, warden_git_doors_free);
  doors = warden_git_doors_new (dir);
  note = run_command (doors, dir, "printf '\\tpager = x\\n' >> linked.gitconfig");
  g_test_message ("%s", note);
  g_assert_nonnull (note);
  g_assert_nonnull (strstr (note, "linked.gitconfig"));
  g_assert_nonnull (strstr (note, "core.pager"));
  warden_test_remove_tree (dir);
}

/* A .git the command makes: what git init writes stays, a .git file does not. */
static void
test_doors_new_dotgit (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *dir2 = NULL;
  g_autoptr(WardenGitDoors) doors = NULL;
  g_autoptr(WardenGitDoors) doors2 = NULL;
  g_autofree char *note = NULL;
  g_autofree char *note2 = NULL;

  if (!have_git ())
    return;
  dir = make_dir ();
  doors = warden_git_doors_new (dir);
  note = run_command (doors, dir, "git init -q && git commit -q --allow-empty -m a");
  g_assert_null (note);
  g_assert_true (exists (dir, ".git/config"));
  g_assert_true (exists (dir, ".git/info/exclude"));

  dir2 = make_dir ();
  doors2 = warden_git_doors_new (dir2);
  note2 = run_command (doors2, dir2, "git init -q --separate-git-dir=.real");
  g_test_message ("%s", note2);
  g_assert_nonnull (note2);
  g_assert_false (exists (dir2, ".git"));
  g_assert_nonnull (strstr (note2, ".warden-quarantine/"));
  warden_test_remove_tree (dir);
  warden_test_remove_tree (dir2);
}

/* A quarantine the command planted, as a link out of the workspace, is not
 * where anything goes. */
static void
test_doors_planted_quarantine (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *outside = NULL;
  g_autofree char *script = NULL;
  g_autoptr(WardenGitDoors) doors = NULL;
  g_autofree char *note = NULL;
  g_autoptr(GDir) d = NULL;

  if (!have_git ())
    return;
  dir = make_dir ();
  outside = make_dir ();
  sh (dir, "git init -q");
  doors = warden_git_doors_new (dir);
  script = g_strdup_printf ("ln -s %s .git/warden-quarantine && "
                            "printf '../evil\\n' > .git/commondir", outside);
  note = run_command (doors, dir, script);
  g_test_message ("%s", note);
  g_assert_nonnull (note);
  g_assert_nonnull (strstr (note, ".git/warden-quarantine-"));
  g_assert_false (exists (dir, ".git/commondir"));
  d = g_dir_open (outside, 0, NULL);
  g_assert_null (g_dir_read_name (d));
  warden_test_remove_tree (dir);
  warden_test_remove_tree (outside);
}

/* ------------------------------------------------------------------------ */
/* The other protected paths (policy/warden-protected-path.h) */

/* Whether one quarantine (in .git or beside it) holds @rel. */
static gboolean
quarantined_anywhere (const char *dir,
                      const char *rel)
{
  const char *bases[] = { ".git/warden-quarantine", ".warden-quarantine" };

  for (guint b = 0; b < G_N_ELEMENTS (bases); b++)
    {
      g_autofree char *root = g_build_filename (dir, bases[b], NULL);
      g_autoptr(GDir) d = g_dir_open (root, 0, NULL);
      const char *stamp;

      while (d != NULL && (stamp = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *path = g_build_filename (root, stamp, rel, NULL);
          struct stat st;

          if (lstat (path, &st) == 0)
            return TRUE;
        }
    }
  return FALSE;
}

/* Where @rel is in a quarantine: each protected name in it with a "~", so
 * that nothing on the host takes it for a live one. */
static char *
quarantine_name (const char *rel)
{
  g_auto(GStrv) parts = g_strsplit (rel, "/", -1);

  for (guint i = 0; parts[i]; i++)
    if (g_str_has_prefix (parts[i], ".") || strcmp (parts[i], "mise.toml") == 0)
      {
        char *longer = g_strconcat (parts[i], "~", NULL);

        g_free (parts[i]);
        parts[i] = longer;
      }
  return g_strjoinv ("/", parts);
}

typedef struct
{
  const char *script;
  const char *moved;   /* relative to the workspace */
  const char *kept;    /* for one that existed: what is there again, or NULL */
} ProtectedRow;

/* What the host runs from a folder it opens, enters or checks: each kind,
 * made new by a command, is moved aside and named in the note. */
static const ProtectedRow protected_created[] = {
  { "mkdir -p .hg && printf '[hooks]\\npre-status = touch /tmp/pwned\\n' > .hg/hgrc",
    ".hg/hgrc" },
  { "mkdir -p .devcontainer && echo '{\"initializeCommand\": \"id\"}' > "
    ".devcontainer/devcontainer.json", ".devcontainer/devcontainer.json" },
  { "mkdir -p .vscode && echo '{\"tasks\": [{\"runOptions\": {\"runOn\": \"folderOpen\"}}]}' > "
    ".vscode/tasks.json", ".vscode/tasks.json" },
  { "echo 'id > /tmp/pwned' > .envrc", ".envrc" },
  { "printf '[submodule \"x\"]\\n\\tupdate = !id\\n' > .gitmodules", ".gitmodules" },
  { "mkdir -p .idea && echo '<project/>' > .idea/workspace.xml", ".idea/workspace.xml" },
  { "git init -q sub && printf '#!/bin/sh\\nid\\n' > sub/.git/hooks/pre-commit && "
    "chmod +x sub/.git/hooks/pre-commit", "sub/.git/hooks/pre-commit" },
  { "git init -q sub2 && printf '[core]\\n\\tfsmonitor = id\\n' >> sub2/.git/config",
    "sub2/.git/config" },
  { "printf '[env]\\n_.source = \"./x.sh\"\\n' > .mise.toml", ".mise.toml" },
  { "echo 'nodejs 20.0.0' > .tool-versions", ".tool-versions" },
  { "mkdir -p deep/er/still && echo 'id' > deep/er/still/.envrc", "deep/er/still/.envrc" },
  /* .vscode is there by now (empty): swapped for a link to a folder of the command's. */
  { "mkdir -p elsewhere && echo '{}' > elsewhere/tasks.json && rm -rf .vscode && "
    "ln -s elsewhere .vscode", ".vscode" },
};

static void
check_protected_rows (const char         *dir,
                      const ProtectedRow *rows,
                      guint               n_rows)
{
  g_autoptr(WardenGitDoors) doors = warden_git_doors_new (dir);

  for (guint i = 0; i < n_rows; i++)
    {
      g_autofree char *note = run_command (doors, dir, rows[i].script);
      g_autofree char *aside = quarantine_name (rows[i].moved);

      g_test_message ("%s: %s", rows[i].script, note ? note : "(nothing moved)");
      g_assert_nonnull (note);
      g_assert_nonnull (strstr (note, rows[i].moved));
      g_assert_true (quarantined_anywhere (dir, aside));
      g_assert_false (quarantined_anywhere (dir, rows[i].moved));
      if (rows[i].kept == NULL)
        g_assert_false (exists (dir, rows[i].moved));
      else
        {
          g_autofree char *text = read_file (dir, rows[i].moved);

          g_assert_nonnull (strstr (note, "put back the version from before"));
          g_assert_cmpstr (text, ==, rows[i].kept);
        }
    }
}

static void
test_protected_created (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *bare = NULL;

  if (!have_git ())
    return;
  /* In a repository, and in a folder that is none (the quarantine is beside). */
  dir = make_dir ();
  sh (dir, "git init -q && git commit -q --allow-empty -m a");
  check_protected_rows (dir, protected_created, G_N_ELEMENTS (protected_created));
  bare = make_dir ();
  check_protected_rows (bare, protected_created, G_N_ELEMENTS (protected_created));
  warden_test_remove_tree (dir);
  warden_test_remove_tree (bare);
}

/* Each kind that was there and changed: moved, the user's version back. */
static void
test_protected_changed (void)
{
  const ProtectedRow rows[] = {
    { "printf '[hooks]\\nupdate = id\\n' >> .hg/hgrc", ".hg/hgrc", "[ui]\n" },
    { "echo '{\"initializeCommand\": \"id\"}' > .devcontainer/devcontainer.json",
      ".devcontainer/devcontainer.json", "{}\n" },
    { "echo '{\"tasks\": []}' > .vscode/tasks.json", ".vscode/tasks.json", "{}\n" },
    { "echo 'id' >> .envrc", ".envrc", "export A=1\n" },
    { "printf '[submodule \"x\"]\\n\\tupdate = !id\\n' >> .gitmodules", ".gitmodules", "\n" },
    { "echo '<evil/>' > .idea/workspace.xml", ".idea/workspace.xml", "<project/>\n" },
    { "printf '#!/bin/sh\\nid\\n' > sub/.git/hooks/pre-commit",
      "sub/.git/hooks/pre-commit", "#!/bin/sh\nexit 0\n" },
  };
  g_autofree char *dir = NULL;

  if (!have_git ())
    return;
  dir = make_dir ();
  sh (dir, "git init -q && mkdir -p .hg .devcontainer .vscode .idea && "
           "echo '[ui]' > .hg/hgrc && echo '{}' > .devcontainer/devcontainer.json && "
           "echo '{}' > .vscode/tasks.json && echo 'export A=1' > .envrc && echo > .gitmodules && "
           "echo '<project/>' > .idea/workspace.xml && git init -q sub && "
           "printf '#!/bin/sh\\nexit 0\\n' > sub/.git/hooks/pre-commit");
  check_protected_rows (dir, rows, G_N_ELEMENTS (rows));
  warden_test_remove_tree (dir);
}

/* What ordinary work makes near protected names opens nothing: a nested
 * repository git init made, hg's store, a folder named mise. */
static void
test_protected_at_work (void)
{
  const char *commands[] = {
    "git init -q sub && git -C sub commit -q --allow-empty -m a",
    "mkdir -p .hg/store/data && echo x > .hg/store/data/a.i",
    "mkdir -p mise src/.config && echo x > mise/notes.txt && echo x > src/.config/other",
    "mkdir -p .vscode && rmdir .vscode",
  };
  g_autofree char *dir = NULL;
  g_autoptr(WardenGitDoors) doors = NULL;

  if (!have_git ())
    return;
  dir = make_dir ();
  sh (dir, "git init -q");
  doors = warden_git_doors_new (dir);
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autofree char *note = run_command (doors, dir, commands[i]);

      g_test_message ("%s: %s", commands[i], note ? note : "(nothing moved)");
      g_assert_null (note);
    }
  warden_test_remove_tree (dir);
}

/* Folders the walk read before and that did not change are not read again:
 * a name added in one is found all the same, even when the command sets
 * the folder's times back, or swaps the folder for another. */
static void
test_protected_memo (void)
{
  /* The times as they were, to the nanosecond (touch -r): only ctime tells. */
  const char *commands[] = {
    "r=$(mktemp) && touch -r a/b/c $r && echo id > a/b/c/.envrc && touch -r $r a/b/c && rm $r",
    "r=$(mktemp) && touch -r a/b $r && mkdir x && echo id > x/.tool-versions && rm -rf a/b/c && "
    "mv x a/b/c && touch -r $r a/b a && rm $r",
    "r=$(mktemp) && touch -r a/b/c $r && mkdir -p a/b/c/.vscode && "
    "echo '{}' > a/b/c/.vscode/tasks.json && touch -r $r a/b/c && rm $r",
  };
  const char *moved[] = { "a/b/c/.envrc", "a/b/c/.tool-versions", "a/b/c/.vscode/tasks.json" };
  g_autofree char *dir = make_dir ();
  g_autoptr(WardenGitDoors) doors = warden_git_doors_new (dir);

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autofree char *note = NULL;

      sh (dir, "mkdir -p a/b/c/d e/f && touch a/b/c/d/x e/f/y");
      /* Older than the clock's margin, so that the walk trusts them. */
      g_usleep (2500 * G_TIME_SPAN_MILLISECOND);
      g_clear_pointer (&note, g_free);
      note = run_command (doors, dir, "true");
      g_assert_null (note);
      note = run_command (doors, dir, commands[i]);
      g_test_message ("%s: %s", commands[i], note ? note : "(nothing moved)");
      g_assert_nonnull (note);
      g_assert_nonnull (strstr (note, moved[i]));
      g_assert_false (exists (dir, moved[i]));
    }
  warden_test_remove_tree (dir);
}

/* A name a profile adds (files.protect) is a door like the built-in ones. */
static void
test_protected_added_name (void)
{
  const char *names[] = { "Justfile-doors", NULL };
  g_autofree char *dir = make_dir ();
  g_autoptr(WardenGitDoors) doors = warden_git_doors_new (dir);
  g_autofree char *before = NULL;
  g_autofree char *note = NULL;

  before = run_command (doors, dir, "mkdir -p sub && echo x > sub/Justfile-doors");
  g_assert_null (before);
  warden_protected_path_add_names (names);
  note = run_command (doors, dir, "echo y > other && echo 'id' > Justfile-doors");
  g_test_message ("%s", note);
  g_assert_nonnull (note);
  g_assert_nonnull (strstr (note, "Justfile-doors"));
  g_assert_false (exists (dir, "Justfile-doors"));
  g_assert_true (exists (dir, "other"));
  warden_test_remove_tree (dir);
}

/* What a command costs when it leaves the doors alone: printed, not asserted. */
static void
test_doors_cost (void)
{
  const struct {
    const char *name;
    const char *script;
  } repos[] = {
    { "a repository", "git init -q && git commit -q --allow-empty -m a" },
    { "a repository with a submodule",
      "git init -q && git commit -q --allow-empty -m a && git init -q lib && "
      "git -C lib commit -q --allow-empty -m lib && git submodule add -q ./lib sub && "
      "git commit -q -m sub" },
  };
  const guint rounds = 500;

  if (!have_git ())
    return;
  for (guint k = 0; k < G_N_ELEMENTS (repos); k++)
    {
      g_autofree char *dir = make_dir ();
      g_autoptr(WardenGitDoors) doors = NULL;
      gint64 start, snap_us = 0, close_us = 0;

      sh (dir, repos[k].script);
      doors = warden_git_doors_new (dir);
      for (guint i = 0; i < rounds; i++)
        {
          g_autoptr(WardenGitSnapshot) before = NULL;
          g_autofree char *note = NULL;

          start = g_get_monotonic_time ();
          before = warden_git_doors_snapshot (doors);
          snap_us += g_get_monotonic_time () - start;
          start = g_get_monotonic_time ();
          note = warden_git_doors_close (doors, before);
          close_us += g_get_monotonic_time () - start;
          g_assert_null (note);
        }
      g_test_message ("%s: snapshot %.0f us, close %.0f us a command", repos[k].name,
                      (double) snap_us / rounds, (double) close_us / rounds);

      /* As a sandbox runs them: each check starts where the last ended. */
      {
        g_autoptr(WardenGitSnapshot) end = warden_git_doors_snapshot (doors);
        gint64 chain_us = 0;

        for (guint i = 0; i < rounds; i++)
          {
            g_autoptr(WardenGitSnapshot) before = NULL;
            g_autofree char *between = NULL;
            g_autofree char *after = NULL;

            start = g_get_monotonic_time ();
            before = warden_git_doors_check (doors, end, WARDEN_GIT_DOORS_BETWEEN_COMMANDS,
                                             &between);
            warden_git_snapshot_free (end);
            end = warden_git_doors_check (doors, before, WARDEN_GIT_DOORS_AFTER_COMMAND, &after);
            chain_us += g_get_monotonic_time () - start;
            g_assert_null (between);
            g_assert_null (after);
          }
        g_test_message ("%s: check before and after %.0f us a command", repos[k].name,
                        (double) chain_us / rounds);
      }
      warden_test_remove_tree (dir);
    }
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *global_dir = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);

  global_dir = make_dir ();
  git_global = g_build_filename (global_dir, "gitconfig", NULL);
  g_assert_true (g_file_set_contents (git_global,
                                      "[user]\n\tname = Warden Test\n\temail = t@example.com\n"
                                      "[init]\n\tdefaultBranch = main\n"
                                      "[protocol \"file\"]\n\tallow = always\n"
                                      "[safe]\n\tdirectory = *\n", -1, NULL));

  g_test_add_func ("/git-doors/config/settings", test_config_settings);
  g_test_add_func ("/git-doors/index/versions", test_index_versions);
  g_test_add_func ("/git-doors/index/garbage", test_index_garbage);
  g_test_add_func ("/git-doors/index/split", test_index_split);
  g_test_add_func ("/git-doors/nothing-changed", test_doors_nothing_changed);
  g_test_add_func ("/git-doors/git-at-work", test_doors_git_at_work);
  g_test_add_func ("/git-doors/created", test_doors_created);
  g_test_add_func ("/git-doors/changed-restored", test_doors_changed_restored);
  g_test_add_func ("/git-doors/new-gitlink", test_doors_new_gitlink);
  g_test_add_func ("/git-doors/include", test_doors_include);
  g_test_add_func ("/git-doors/enclosing", test_doors_enclosing);
  g_test_add_func ("/git-doors/rebase-todo", test_doors_rebase_todo);
  g_test_add_func ("/git-doors/new-dotgit", test_doors_new_dotgit);
  g_test_add_func ("/git-doors/planted-quarantine", test_doors_planted_quarantine);
  g_test_add_func ("/git-doors/between-commands", test_doors_between_commands);
  g_test_add_func ("/git-doors/protected/created", test_protected_created);
  g_test_add_func ("/git-doors/protected/changed", test_protected_changed);
  g_test_add_func ("/git-doors/protected/at-work", test_protected_at_work);
  g_test_add_func ("/git-doors/protected/memo", test_protected_memo);
  g_test_add_func ("/git-doors/protected/added-name", test_protected_added_name);
  g_test_add_func ("/git-doors/cost", test_doors_cost);

  status = g_test_run ();
  warden_test_remove_tree (global_dir);
  g_free (git_global);
  return status;
}
