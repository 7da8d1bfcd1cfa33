/* cli-harness.c: warden-cli run in a test, with a scripted model
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "cli-harness.h"
#include "warden-test-util.h"

/* What a run printed, for the test's log: each line cut at 4 KiB (a line of
 * hundreds of KiB, a question about a long command, is more than a TAP
 * reader takes as one line). */
void
cli_log_streams (const char *out,
                 const char *err)
{
  const char *names[] = { "stdout", "stderr" };
  const char *texts[] = { out, err };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_auto(GStrv) lines = g_strsplit (texts[i] ? texts[i] : "", "\n", -1);
      GString *shown = g_string_new (NULL);

      for (guint n = 0; lines[n] != NULL; n++)
        {
          gsize len = strlen (lines[n]);

          if (len > 4096)
            g_string_append_printf (shown, "%.4096s… (%" G_GSIZE_FORMAT " bytes)\n", lines[n], len);
          else
            g_string_append_printf (shown, "%s\n", lines[n]);
        }
      g_test_message ("%s:\n%s", names[i], shown->str);
      g_string_free (shown, TRUE);
    }
}

void
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

void
env_tear_down (Env *env)
{
  fake_model_free (env->fake);
  warden_test_remove_tree (env->root);
  g_free (env->root);
  g_free (env->workspace);
  g_free (env->home);
  g_free (env->key);
}

GSubprocessLauncher *
launcher_with (Env             *env,
               GSubprocessFlags flags)
{
  GSubprocessLauncher *launcher = g_subprocess_launcher_new (flags);
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
  for (guint i = 0; cli_env != NULL && cli_env[i] != NULL; i++)
    {
      g_auto(GStrv) pair = g_strsplit (cli_env[i], "=", 2);

      if (pair[1] != NULL)
        g_subprocess_launcher_setenv (launcher, pair[0], pair[1], TRUE);
      else
        g_subprocess_launcher_unsetenv (launcher, pair[0]);
    }
  return launcher;
}

GSubprocessLauncher *
launcher_for (Env *env)
{
  return launcher_with (env, G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                             G_SUBPROCESS_FLAGS_STDERR_PIPE);
}

const char * const *cli_wrapper = NULL;
const char * const *cli_env = NULL;

GPtrArray *
cli_argv (const char * const *args)
{
  GPtrArray *argv = g_ptr_array_new ();

  for (guint i = 0; cli_wrapper != NULL && cli_wrapper[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) cli_wrapper[i]);
  g_ptr_array_add (argv, (gpointer) g_getenv ("WARDEN_CLI"));
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  return argv;
}

/* The exit status, or -1 when a signal ended the process. */
int
exit_status_of (GSubprocess *proc)
{
  if (g_subprocess_get_if_signaled (proc))
    g_test_message ("killed by signal %d", g_subprocess_get_term_sig (proc));
  return g_subprocess_get_if_exited (proc) ? g_subprocess_get_exit_status (proc) : -1;
}

void
result_clear (Result *r)
{
  g_free (r->out);
  g_free (r->err);
}

char *
bytes_to_str (GBytes *bytes,
              gsize  *length)
{
  gsize n = 0;
  const char *data = bytes ? g_bytes_get_data (bytes, &n) : NULL;

  if (length != NULL)
    *length = n;
  return g_strndup (data ? data : "", n);
}

/* Runs warden-cli with @input on its standard input; the fake model keeps
 * answering on this process's main context meanwhile. */
Result
run_cli (Env                *env,
         const char         *input,
         const char * const *args)
{
  return run_cli_len (env, input, strlen (input), args);
}

/* The same with @input of @length bytes, NUL among them. */
Result
run_cli_len (Env                *env,
             const char         *input,
             gsize               length,
             const char * const *args)
{
  g_autoptr(GSubprocessLauncher) launcher = launcher_for (env);
  g_autoptr(GPtrArray) argv = cli_argv (args);
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GBytes) in = g_bytes_new (input, length);
  g_autoptr(GBytes) out = NULL;
  g_autoptr(GBytes) err = NULL;
  g_autoptr(GError) error = NULL;
  GAsyncResult *res = NULL;
  Result r = { -1, NULL, 0, NULL };

  proc = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_async (proc, in, NULL, warden_test_keep_result_cb, &res);
  warden_test_wait_result (&res);
  g_subprocess_communicate_finish (proc, res, &out, &err, &error);
  g_object_unref (res);
  g_assert_no_error (error);
  g_subprocess_wait (proc, NULL, NULL);
  r.status = exit_status_of (proc);
  r.out = bytes_to_str (out, &r.out_len);
  r.err = bytes_to_str (err, NULL);
  cli_log_streams (r.out, r.err);
  return r;
}

char *
session_id_of (const char *err)
{
  const char *s = strstr (err, "session ");

  g_assert_nonnull (s);
  return g_strndup (s + 8, 36);
}

/* What "sessions show --json" says of the session (and that it says it). */
JsonNode *
show_session (Env        *env,
              const char *id)
{
  Result r = run_cli (env, "", (const char * const []) { "sessions", "show", id, "--json",
                                                          NULL });
  g_autoptr(GError) error = NULL;
  JsonNode *node;

  g_assert_cmpint (r.status, ==, 0);
  node = json_from_string (r.out, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  result_clear (&r);
  return node;
}

JsonObject *
tool_call (JsonNode *session,
           guint     i)
{
  JsonArray *calls = json_object_get_array_member (json_node_get_object (session), "tool_calls");

  g_assert_cmpuint (i, <, json_array_get_length (calls));
  return json_array_get_object_element (calls, i);
}

const char *
member (JsonNode   *session,
        const char *name)
{
  return json_object_get_string_member_with_default (json_node_get_object (session), name, NULL);
}

gboolean
workspace_has (Env        *env,
               const char *name)
{
  g_autofree char *path = g_build_filename (env->workspace, name, NULL);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}

/* What a file of the workspace holds ("" when there is none). */
char *
workspace_file (Env        *env,
                const char *name)
{
  g_autofree char *path = g_build_filename (env->workspace, name, NULL);
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return g_strdup ("");
  return contents;
}

gboolean
has_resume_hint (const char *err,
                 const char *id)
{
  g_autofree char *hint = g_strdup_printf ("continue with warden-cli run --resume %s", id);

  return strstr (err, hint) != NULL;
}

gboolean
process_with_arg (const char *word)
{
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *name;

  while (proc && (name = g_dir_read_name (proc)))
    {
      g_autofree char *path = g_build_filename ("/proc", name, "cmdline", NULL);
      g_autofree char *cmdline = NULL;
      gsize length = 0;

      if (!g_ascii_isdigit (name[0]) || !g_file_get_contents (path, &cmdline, &length, NULL))
        continue;
      for (gsize i = 0; i < length; i += strlen (cmdline + i) + 1)
        if (strcmp (cmdline + i, word) == 0)
          return TRUE;
    }
  return FALSE;
}

/* ------------------------------------------------------------------------ */
/* A warden-cli that runs while the test talks to it */

Proc *
proc_start (Env                *env,
            const char * const *args)
{
  g_autoptr(GSubprocessLauncher) launcher = launcher_for (env);
  g_autoptr(GPtrArray) argv = cli_argv (args);
  g_autoptr(GError) error = NULL;
  Proc *p = g_new0 (Proc, 1);

  p->proc = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  p->out = g_string_new (NULL);
  p->err = g_string_new (NULL);
  return p;
}

/* Appends what @stream has next to @seen; FALSE at its end. */
gboolean
read_more (GInputStream *stream,
           GString      *seen)
{
  char buf[512];
  GAsyncResult *res = NULL;
  gssize n;

  g_input_stream_read_async (stream, buf, sizeof buf, G_PRIORITY_DEFAULT, NULL, warden_test_keep_result_cb,
                             &res);
  warden_test_wait_result (&res);
  n = g_input_stream_read_finish (stream, res, NULL);
  g_object_unref (res);
  if (n <= 0)
    return FALSE;
  g_string_append_len (seen, buf, n);
  return TRUE;
}

/* Reads standard output until @needle shows. */
void
proc_wait_out (Proc       *p,
               const char *needle)
{
  GInputStream *out = g_subprocess_get_stdout_pipe (p->proc);

  while (strstr (p->out->str, needle) == NULL)
    if (!read_more (out, p->out))
      {
        g_test_message ("waited for “%s”; stdout:\n%s", needle, p->out->str);
        g_assert_not_reached ();
      }
}

/* The id of the session, from standard error. */
char *
proc_session_id (Proc *p)
{
  GInputStream *err = g_subprocess_get_stderr_pipe (p->proc);
  const char *s;

  while ((s = strstr (p->err->str, "session ")) == NULL || strlen (s) < 8 + 36)
    g_assert_true (read_more (err, p->err));
  return g_strndup (s + 8, 36);
}

/* Writes @text to its standard input; it may be gone already. */
void
proc_send (Proc       *p,
           const char *text)
{
  proc_send_len (p, text, strlen (text));
}

/* The same for bytes that may hold NUL. */
void
proc_send_len (Proc       *p,
               const char *data,
               gsize       length)
{
  g_output_stream_write_all (g_subprocess_get_stdin_pipe (p->proc), data, length, NULL, NULL,
                             NULL);
}

static void
splice_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  /* A source the test closed itself (a client that stopped reading) fails
   * the splice: what was read stays. */
  if (g_output_stream_splice_finish (G_OUTPUT_STREAM (object), result, NULL) < 0)
    g_output_stream_close (G_OUTPUT_STREAM (object), NULL, NULL);
  *(guint *) user_data += 1;
}

/* Reads the rest of both outputs, waits for the end and frees @p. Its
 * standard input stays open until then: the end of input is an answer of
 * its own. */
Result
proc_finish (Proc *p)
{
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(GOutputStream) err = g_memory_output_stream_new_resizable ();
  g_autoptr(GBytes) out_bytes = NULL;
  g_autoptr(GBytes) err_bytes = NULL;
  Result r = { -1, NULL, 0, NULL };
  guint done = 0;

  g_output_stream_splice_async (out, g_subprocess_get_stdout_pipe (p->proc),
                                G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, G_PRIORITY_DEFAULT, NULL,
                                splice_cb, &done);
  g_output_stream_splice_async (err, g_subprocess_get_stderr_pipe (p->proc),
                                G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, G_PRIORITY_DEFAULT, NULL,
                                splice_cb, &done);
  while (done < 2)
    g_main_context_iteration (NULL, TRUE);
  g_subprocess_wait (p->proc, NULL, NULL);
  g_output_stream_close (g_subprocess_get_stdin_pipe (p->proc), NULL, NULL);
  r.status = exit_status_of (p->proc);
  out_bytes = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
  err_bytes = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (err));
  g_string_append_len (p->out, g_bytes_get_data (out_bytes, NULL), g_bytes_get_size (out_bytes));
  g_string_append_len (p->err, g_bytes_get_data (err_bytes, NULL), g_bytes_get_size (err_bytes));
  r.out_len = p->out->len;
  r.out = g_string_free (p->out, FALSE);
  r.err = g_string_free (p->err, FALSE);
  cli_log_streams (r.out, r.err);
  g_object_unref (p->proc);
  g_free (p);
  return r;
}
