/* test-cli-run.c: warden-cli run and sessions, driven line by line
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>

#include "fake-model.h"

#include "agent/warden-session-store.h"

typedef struct
{
  FakeModel *fake;
  char      *root;
  char      *workspace;
  char      *home;
  char      *key;         /* the API key, different in every test */
} Env;

static void
env_set_up (Env *env)
{
  env->fake = fake_model_new ();
  env->root = g_dir_make_tmp ("warden-test-run-XXXXXX", NULL);
  env->workspace = g_build_filename (env->root, "project", NULL);
  g_mkdir (env->workspace, 0777);
  env->home = g_build_filename (env->root, "home", NULL);
  g_mkdir (env->home, 0700);
  env->key = g_strdup_printf ("sk-test-%08x%08x", g_random_int (), g_random_int ());
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir && (name = g_dir_read_name (dir)))
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

static void
env_tear_down (Env *env)
{
  fake_model_free (env->fake);
  remove_tree (env->root);
  g_free (env->root);
  g_free (env->workspace);
  g_free (env->home);
  g_free (env->key);
}

static GSubprocessLauncher *
launcher_for (Env *env)
{
  GSubprocessLauncher *launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                                             G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                                             G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autofree char *config = g_build_filename (env->root, "config", NULL);
  g_autofree char *data = g_build_filename (env->root, "data", NULL);

  g_subprocess_launcher_setenv (launcher, "HOME", env->home, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_CONFIG_HOME", config, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_DATA_HOME", data, TRUE);
  g_subprocess_launcher_setenv (launcher, "ANTHROPIC_API_KEY", env->key, TRUE);
  g_subprocess_launcher_setenv (launcher, "ANTHROPIC_BASE_URL", env->fake->url, TRUE);
  g_subprocess_launcher_setenv (launcher, "WARDEN_LLM_RETRY_BASE_MS", "1", TRUE);
  g_subprocess_launcher_setenv (launcher, "LC_ALL", "C.UTF-8", TRUE);
  g_subprocess_launcher_unsetenv (launcher, "OPENAI_API_KEY");
  g_subprocess_launcher_unsetenv (launcher, "OPENAI_BASE_URL");
  g_subprocess_launcher_set_cwd (launcher, env->workspace);
  return launcher;
}

typedef struct
{
  int   status;
  char *out;
  char *err;
} Result;

static void
result_clear (Result *r)
{
  g_free (r->out);
  g_free (r->err);
}

static void
communicate_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* Runs warden-cli with @input on its standard input; the fake model keeps
 * answering on this process's main context meanwhile. */
static Result
run_cli (Env                *env,
         const char         *input,
         const char * const *args)
{
  g_autoptr(GSubprocessLauncher) launcher = launcher_for (env);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GBytes) in = g_bytes_new (input, strlen (input));
  g_autoptr(GError) error = NULL;
  GAsyncResult *res = NULL;
  Result r = { -1, NULL, NULL };

  g_ptr_array_add (argv, (gpointer) g_getenv ("WARDEN_CLI"));
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  proc = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8_async (proc, input, NULL, communicate_cb, &res);
  while (res == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_subprocess_communicate_utf8_finish (proc, res, &r.out, &r.err, &error);
  g_object_unref (res);
  g_assert_no_error (error);
  g_subprocess_wait (proc, NULL, NULL);
  r.status = g_subprocess_get_if_exited (proc) ? g_subprocess_get_exit_status (proc) : -1;
  g_test_message ("stdout:\n%s\nstderr:\n%s", r.out, r.err);
  (void) in;
  return r;
}

#define RUN(env, input, ...) run_cli ((env), (input), (const char * const []) { __VA_ARGS__, NULL })

static char *
session_id_of (const char *err)
{
  const char *s = strstr (err, "session ");

  g_assert_nonnull (s);
  return g_strndup (s + 8, 36);
}

static void
test_reject_with_feedback (void)
{
  Env env = { 0 };
  Result r;
  g_autofree char *second = NULL;

  env_set_up (&env);
  g_queue_push_tail (&env.fake->script,
                     fake_reply ("Installing.", "exec", "{\"command\": \"npm install chalk\"}",
                                 NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("OK, pnpm then.", NULL));

  r = RUN (&env, "n\nuse pnpm\n", "run", "--sandbox", "bwrap", "add chalk");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "wants to run: npm install chalk"));
  g_assert_nonnull (strstr (r.out, "always allow would save: npm install *"));
  g_assert_nonnull (strstr (r.out, "OK, pnpm then."));
  second = fake_model_last_message (env.fake, 1);
  g_assert_nonnull (strstr (second, "User feedback: use pnpm"));
  /* The key never shows. */
  g_assert_null (strstr (r.out, env.key));
  g_assert_null (strstr (r.err, env.key));
  result_clear (&r);
  env_tear_down (&env);
}

/* End of input at a prompt is a rejection, never an approval. */
static void
test_end_of_input_rejects (void)
{
  Env env = { 0 };
  Result r;
  g_autofree char *second = NULL;
  g_autofree char *made = NULL;

  env_set_up (&env);
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"touch made.txt\"}", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Understood.", NULL));

  r = RUN (&env, "", "run", "--sandbox", "bwrap", "make a file");
  g_assert_cmpint (r.status, ==, 0);
  second = fake_model_last_message (env.fake, 1);
  g_assert_nonnull (strstr (second, "Command rejected by user: touch made.txt"));
  g_assert_null (strstr (second, "User feedback"));
  made = g_build_filename (env.workspace, "made.txt", NULL);
  g_assert_false (g_file_test (made, G_FILE_TEST_EXISTS));
  result_clear (&r);
  env_tear_down (&env);
}

/* "a" and an empty line: the suggestion is saved; the session list and its
 * JSON show what happened. */
static void
test_always_allow_and_sessions (void)
{
  Env env = { 0 };
  Result r, list, show;
  g_autofree char *id = NULL;
  g_autofree char *profile = NULL;
  g_autofree char *profile_path = NULL;

  env_set_up (&env);
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"touch a.txt\"}", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Made.", NULL));

  r = RUN (&env, "a\n\n", "run", "--sandbox", "bwrap", "make a.txt");
  g_assert_cmpint (r.status, ==, 0);
  id = session_id_of (r.err);
  profile_path = g_build_filename (env.root, "config", "warden", "profiles", "node-custom.json",
                                   NULL);
  g_assert_true (g_file_get_contents (profile_path, &profile, NULL, NULL));
  g_assert_nonnull (strstr (profile, "\"touch *\""));

  list = RUN (&env, "", "sessions", "list");
  g_assert_cmpint (list.status, ==, 0);
  g_assert_nonnull (strstr (list.out, id));
  g_assert_nonnull (strstr (list.out, "make a.txt"));

  show = RUN (&env, "", "sessions", "show", id, "--json");
  g_assert_cmpint (show.status, ==, 0);
  g_assert_nonnull (strstr (show.out, "\"decision\" : \"approved-always\""));
  g_assert_nonnull (strstr (show.out, "\"pattern\" : \"touch *\""));
  g_assert_null (strstr (show.out, env.key));
  result_clear (&r);
  result_clear (&list);
  result_clear (&show);
  env_tear_down (&env);
}

static void
test_max_steps_status (void)
{
  Env env = { 0 };
  Result r;

  env_set_up (&env);
  for (guint i = 0; i < 5; i++)
    g_queue_push_tail (&env.fake->script, fake_reply (NULL, "exec", "{\"command\": \"ls\"}", NULL));
  r = RUN (&env, "", "run", "--sandbox", "bwrap", "--max-steps", "2", "loop");
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (strstr (r.err, "--resume"));
  result_clear (&r);
  env_tear_down (&env);
}

static void
test_provider_error_status (void)
{
  Env env = { 0 };
  Result r;

  env_set_up (&env);
  /* Nothing listens here. */
  g_free (env.fake->url);
  env.fake->url = g_strdup ("http://127.0.0.1:9");
  r = RUN (&env, "", "run", "--sandbox", "bwrap", "hello");
  g_assert_cmpint (r.status, ==, 4);
  result_clear (&r);
  env_tear_down (&env);
}

/* Starts "run" with @args and kills it while its first approval waits, as a
 * crash or a closed terminal would; returns the session's id. */
static char *
run_until_prompt (Env                *env,
                  const char * const *args,
                  GBytes            **environ_out)
{
  g_autoptr(GSubprocessLauncher) launcher = launcher_for (env);
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) seen = g_string_new (NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  GInputStream *out;
  char *id;

  g_ptr_array_add (argv, (gpointer) g_getenv ("WARDEN_CLI"));
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  proc = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  out = g_subprocess_get_stdout_pipe (proc);
  while (strstr (seen->str, "reject>") == NULL)
    {
      char buf[256];
      GAsyncResult *res = NULL;
      gssize n;

      g_input_stream_read_async (out, buf, sizeof buf, G_PRIORITY_DEFAULT, NULL, communicate_cb,
                                 &res);
      while (res == NULL)
        g_main_context_iteration (NULL, TRUE);
      n = g_input_stream_read_finish (out, res, NULL);
      g_object_unref (res);
      g_assert_cmpint (n, >, 0);
      g_string_append_len (seen, buf, n);
    }
  {
    GInputStream *err_pipe = g_subprocess_get_stderr_pipe (proc);
    char buf[2048] = { 0 };
    gssize n = g_input_stream_read (err_pipe, buf, sizeof buf - 1, NULL, NULL);

    g_assert_cmpint (n, >, 0);
    id = session_id_of (buf);
  }
  if (environ_out != NULL)
    {
      /* What any process of the user can read of it, as it waits. */
      g_autofree char *path = g_strdup_printf ("/proc/%s/environ",
                                               g_subprocess_get_identifier (proc));
      char *contents = NULL;
      gsize length = 0;

      g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
      *environ_out = g_bytes_new_take (contents, length);
    }
  g_subprocess_force_exit (proc);
  g_subprocess_wait (proc, NULL, NULL);
  return id;
}

#define RUN_UNTIL_PROMPT(env, ...) \
  run_until_prompt ((env), (const char * const []) { __VA_ARGS__, NULL }, NULL)

/* Killed while an approval waits; --resume shows it again, and the approved
 * command runs exactly once. */
static void
test_resume_after_kill (void)
{
  Env env = { 0 };
  g_autofree char *id = NULL;
  g_autofree char *count = NULL;
  g_autofree char *count_path = NULL;
  Result resumed;

  env_set_up (&env);
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"printf 'ran\\\\n' >> count.txt\"}",
                                 NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Counted once.", NULL));

  id = RUN_UNTIL_PROMPT (&env, "run", "--sandbox", "bwrap", "count");

  resumed = RUN (&env, "y\n", "run", "--resume", id);
  g_assert_cmpint (resumed.status, ==, 0);
  g_assert_nonnull (strstr (resumed.out, "wants to run: printf 'ran\\n' >> count.txt"));
  g_assert_nonnull (strstr (resumed.out, "Counted once."));
  count_path = g_build_filename (env.workspace, "count.txt", NULL);
  g_assert_true (g_file_get_contents (count_path, &count, NULL, NULL));
  g_assert_cmpstr (count, ==, "ran\n");
  result_clear (&resumed);
  env_tear_down (&env);
}

static char *
db_path (Env *env)
{
  return g_build_filename (env->root, "data", "warden", "warden.db", NULL);
}

static void
sql (Env        *env,
     const char *text)
{
  g_autofree char *path = db_path (env);
  sqlite3 *db = NULL;
  char *msg = NULL;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  sqlite3_busy_timeout (db, 5000);
  if (sqlite3_exec (db, text, NULL, NULL, &msg) != SQLITE_OK)
    g_error ("%s: %s", text, msg);
  g_assert_cmpint (sqlite3_changes (db), >, 0);
  sqlite3_close (db);
}

static gboolean
workspace_has (Env        *env,
               const char *name)
{
  g_autofree char *path = g_build_filename (env->workspace, name, NULL);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}

/* A command that can write warden.db marks the waiting call approved, as
 * with the database in the workspace it once could: the resumed session
 * asks all the same, and end of input rejects it. */
static void
test_forged_approval_asks (void)
{
  Env env = { 0 };
  g_autofree char *id = NULL;
  g_autofree char *update = NULL;
  Result resumed;

  env_set_up (&env);
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"touch forged.txt\"}", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Understood.", NULL));

  id = RUN_UNTIL_PROMPT (&env, "run", "--sandbox", "bwrap", "make a file");
  update = g_strdup_printf ("UPDATE tool_calls SET state = 'approved', decision = 'approved', "
                           "answered_via = 'cli' WHERE session_id = '%s'", id);
  sql (&env, update);

  resumed = RUN (&env, "", "run", "--resume", id);
  g_assert_cmpint (resumed.status, ==, 0);
  g_assert_nonnull (strstr (resumed.out, "wants to run: touch forged.txt"));
  g_assert_nonnull (strstr (resumed.out, "because Warden cannot vouch"));
  g_assert_false (workspace_has (&env, "forged.txt"));
  result_clear (&resumed);
  env_tear_down (&env);
}

/* Approved by the user, then Warden stopped before it ran: that resumes
 * without asking. But the command the stored conversation holds is what
 * runs, so changing it there must not ride on the approval. */
static void
test_approval_bound_to_command (void)
{
  const gboolean edit[] = { FALSE, TRUE };

  for (guint i = 0; i < G_N_ELEMENTS (edit); i++)
    {
      Env env = { 0 };
      g_autofree char *id = NULL;
      g_autofree char *db = NULL;
      g_autoptr(GError) error = NULL;
      Result resumed;

      env_set_up (&env);
      g_queue_push_tail (&env.fake->script,
                         fake_reply (NULL, "exec", "{\"command\": \"touch approved.txt\"}", NULL));
      g_queue_push_tail (&env.fake->script, fake_reply ("Understood.", NULL));

      id = RUN_UNTIL_PROMPT (&env, "run", "--sandbox", "bwrap", "make a file");
      db = db_path (&env);
      {
        /* What warden_agent_resolve() saves, with Warden's own key. */
        g_autoptr(WardenSessionStore) store = warden_session_store_new (db, &error);
        g_autoptr(GPtrArray) calls = NULL;
        WardenToolCallRecord *r;

        g_assert_no_error (error);
        calls = warden_session_store_list_tool_calls (store, id, &error);
        g_assert_no_error (error);
        g_assert_cmpuint (calls->len, ==, 1);
        r = g_ptr_array_index (calls, 0);
        g_free (r->state);
        r->state = g_strdup ("approved");
        g_free (r->decision);
        r->decision = g_strdup ("approved");
        g_assert_true (warden_session_store_save_tool_call (store, r, &error));
      }
      if (edit[i])
        {
          g_autofree char *update =
            g_strdup_printf ("UPDATE messages SET json = replace (json, 'approved.txt', "
                             "'other.txt') WHERE session_id = '%s'", id);

          sql (&env, update);
        }

      resumed = RUN (&env, "", "run", "--resume", id);
      g_assert_cmpint (resumed.status, ==, 0);
      g_assert_false (workspace_has (&env, "other.txt"));
      if (edit[i])
        {
          g_assert_nonnull (strstr (resumed.out, "wants to run: touch other.txt"));
          g_assert_false (workspace_has (&env, "approved.txt"));
        }
      else
        {
          g_assert_null (strstr (resumed.out, "wants to run"));
          g_assert_true (workspace_has (&env, "approved.txt"));
        }
      result_clear (&resumed);
      env_tear_down (&env);
    }
}

/* $HOME, /, a link to $HOME and folders holding Warden's state or the
 * user's keys are refused, with the reason and what to do; nothing starts. */
static void
test_refused_workspaces (void)
{
  Env env = { 0 };
  g_autofree char *link = NULL;
  g_autofree char *data_parent = NULL;
  g_autofree char *config_parent = NULL;
  g_autofree char *ssh = NULL;
  g_autofree char *keys = NULL;

  env_set_up (&env);
  link = g_build_filename (env.root, "work-link", NULL);
  g_assert_cmpint (symlink (env.home, link), ==, 0);
  ssh = g_build_filename (env.home, ".ssh", NULL);
  g_mkdir (ssh, 0700);
  keys = g_build_filename (env.home, ".ssh", "keys", NULL);
  g_mkdir (keys, 0700);
  /* $XDG_DATA_HOME and $XDG_CONFIG_HOME hold Warden's folders. */
  data_parent = g_build_filename (env.root, "data", NULL);
  config_parent = g_build_filename (env.root, "config", NULL);
  g_assert_cmpint (g_mkdir_with_parents (data_parent, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (config_parent, 0700), ==, 0);

  {
    const struct { const char *workspace; const char *says; } rows[] = {
      { env.home, "your home folder" },
      { link, "your home folder" },
      { "/", "whole file system" },
      { data_parent, "Warden’s sessions and approvals" },
      { config_parent, "Warden’s settings and profiles" },
      { env.root, "contains your home folder" },
      { keys, "your SSH keys" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
      {
        Result r = RUN (&env, "", "run", "--sandbox", "bwrap", "--workspace", rows[i].workspace,
                        "look around");

        g_test_message ("workspace %s", rows[i].workspace);
        g_assert_cmpint (r.status, ==, 2);
        g_assert_nonnull (strstr (r.err, "cannot be a workspace"));
        g_assert_nonnull (strstr (r.err, rows[i].says));
        g_assert_nonnull (strstr (r.err, "Choose a project folder"));
        g_assert_null (strstr (r.err, "session "));
        result_clear (&r);

        r = RUN (&env, "", "sandbox", "exec", "--backend", "bwrap", "--workspace",
                 rows[i].workspace, "--", "ls");
        g_assert_cmpint (r.status, ==, 2);
        g_assert_nonnull (strstr (r.err, "cannot be a workspace"));
        g_assert_cmpstr (r.out, ==, "");
        result_clear (&r);
      }
  }
  /* Nobody asked the model anything. */
  g_assert_cmpuint (env.fake->requests->len, ==, 0);
  env_tear_down (&env);
}

/* A session from before the check, in $HOME: it does not resume there. */
static void
test_refused_on_resume (void)
{
  Env env = { 0 };
  g_autofree char *id = NULL;
  g_autofree char *update = NULL;
  Result r;

  env_set_up (&env);
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"touch x.txt\"}", NULL));
  id = RUN_UNTIL_PROMPT (&env, "run", "--sandbox", "bwrap", "make a file");
  update = g_strdup_printf ("UPDATE sessions SET workspace = '%s' WHERE id = '%s'", env.home, id);
  sql (&env, update);

  r = RUN (&env, "y\n", "run", "--resume", id);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "your home folder"));
  g_assert_null (strstr (r.out, "wants to run"));
  result_clear (&r);
  env_tear_down (&env);
}

static gboolean
bytes_contain (GBytes     *bytes,
               const char *needle)
{
  gsize length;
  const char *data = g_bytes_get_data (bytes, &length);
  gsize n = strlen (needle);

  /* NUL-separated: strstr() would stop at the first variable. */
  for (gsize i = 0; i + n <= length; i++)
    if (memcmp (data + i, needle, n) == 0)
      return TRUE;
  return FALSE;
}

/* The host backend confines nothing: every session on it says so, new or
 * resumed, before anything runs. */
static void
test_host_warns (void)
{
  Env env = { 0 };
  g_autofree char *id = NULL;
  Result r;

  env_set_up (&env);
  g_queue_push_tail (&env.fake->script, fake_reply ("Hello.", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Again.", NULL));

  r = RUN (&env, "", "run", "--sandbox", "host", "say hello");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "warning: the host backend"));
  g_assert_nonnull (strstr (r.err, "no sandbox"));
  /* Before the session, not after the work is done. */
  g_assert_true (strstr (r.err, "warning: the host backend") < strstr (r.err, "session "));
  id = session_id_of (r.err);
  result_clear (&r);

  r = RUN (&env, "", "run", "--resume", id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "warning: the host backend"));
  result_clear (&r);

  /* A sandbox says nothing of the kind. */
  r = RUN (&env, "", "run", "--sandbox", "bwrap", "say hello");
  g_assert_null (strstr (r.err, "host backend"));
  result_clear (&r);
  env_tear_down (&env);
}

/* A command on the host reads its parent's environment, /proc/$PPID/environ:
 * Warden's API key is gone from it once read. */
static void
test_key_not_in_environ (void)
{
  Env env = { 0 };
  g_autoptr(GBytes) waiting = NULL;
  g_autofree char *id = NULL;
  Result r;

  env_set_up (&env);
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec",
                                 "{\"command\": \"tr '\\\\0' '\\\\n' < /proc/$PPID/environ\"}",
                                 NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Read it.", NULL));

  r = RUN (&env, "y\n", "run", "--sandbox", "host", "read the environment");
  g_assert_cmpint (r.status, ==, 0);
  /* It did read warden-cli's environment… */
  g_assert_nonnull (strstr (r.out, "ANTHROPIC_BASE_URL="));
  g_assert_nonnull (strstr (r.out, "Read it."));
  /* …and the key was not in it. */
  g_assert_null (strstr (r.out, env.key));
  result_clear (&r);

  /* Any process of the user, while Warden waits at a prompt. */
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"touch x.txt\"}", NULL));
  id = run_until_prompt (&env, (const char * const []) { "run", "--sandbox", "bwrap", "wait",
                                                         NULL }, &waiting);
  g_assert_true (bytes_contain (waiting, "ANTHROPIC_BASE_URL="));
  g_assert_false (bytes_contain (waiting, env.key));
  env_tear_down (&env);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cli/run/reject-with-feedback", test_reject_with_feedback);
  g_test_add_func ("/cli/run/end-of-input-rejects", test_end_of_input_rejects);
  g_test_add_func ("/cli/run/always-allow-and-sessions", test_always_allow_and_sessions);
  g_test_add_func ("/cli/run/max-steps-status", test_max_steps_status);
  g_test_add_func ("/cli/run/provider-error-status", test_provider_error_status);
  g_test_add_func ("/cli/run/resume-after-kill", test_resume_after_kill);
  g_test_add_func ("/cli/run/forged-approval-asks", test_forged_approval_asks);
  g_test_add_func ("/cli/run/approval-bound-to-command", test_approval_bound_to_command);
  g_test_add_func ("/cli/run/refused-workspaces", test_refused_workspaces);
  g_test_add_func ("/cli/run/refused-on-resume", test_refused_on_resume);
  g_test_add_func ("/cli/run/host-warns", test_host_warns);
  g_test_add_func ("/cli/run/key-not-in-environ", test_key_not_in_environ);

  return g_test_run ();
}
