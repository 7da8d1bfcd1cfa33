/* test-preferences.c: the preferences window, the profile editor and the keyring
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>
#include <sys/wait.h>

#include <gdk/x11/gdkx.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "fake-model.h"
#include "policy/warden-profile-store.h"
#include "engine/warden-docker-client.h"
#include "llm/warden-credentials.h"
#include "warden-preferences-window.h"
#include "warden-profile-editor.h"
#include "warden-renderer.h"
#include "warden-trace-window.h"
#include "warden-test-util.h"
#include "x-input.h"

#define SCHEMA_ID "io.github.wardenapp.Warden"
#define WAIT_SECONDS 30

/* The exit statuses of `warden-cli policy check`. */
#define EXIT_ALLOW 0
#define EXIT_ASK   10
#define EXIT_DENY  20

typedef struct
{
  char               *dir;
  char               *user_dir;
  WardenProfileStore *store;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fixture->dir = g_dir_make_tmp ("warden-test-preferences-XXXXXX", &error);
  g_assert_no_error (error);
  fixture->user_dir = g_build_filename (fixture->dir, "profiles", NULL);
  fixture->store = warden_profile_store_new (fixture->user_dir);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_object (&fixture->store);
  warden_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
  g_free (fixture->user_dir);
}

#define ADD_TEST(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

static gboolean
wake_cb (gpointer user_data)
{
  return G_SOURCE_CONTINUE;
}

/* Runs the main loop until @done says so; fails the test after a while
 * rather than hanging the suite. */
static void
wait_for (gboolean (*done) (gpointer),
          gpointer   data)
{
  gint64 deadline = g_get_monotonic_time () + WAIT_SECONDS * G_USEC_PER_SEC;
  guint wake = g_timeout_add (20, wake_cb, NULL);

  while (!done (data))
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("timed out after %d seconds", WAIT_SECONDS);
      g_main_context_iteration (NULL, TRUE);
    }
  g_source_remove (wake);
}

static gboolean
result_arrived (gpointer data)
{
  return *(GAsyncResult **) data != NULL;
}

static GAsyncResult *
wait_for_result (GAsyncResult **result)
{
  wait_for (result_arrived, result);
  return *result;
}

static gboolean
editor_idle (gpointer data)
{
  return !warden_profile_editor_get_busy (data);
}

static gboolean
window_idle (gpointer data)
{
  return !warden_preferences_window_get_busy (data);
}

/* Lets idles (the editor rebuilds its rows in one) run. */
static void
flush_main_context (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* What is on disk, read as the CLI or a new window would. */
static WardenProfile *
reload (Fixture    *fixture,
        const char *id)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (fixture->user_dir);
  g_autoptr(GError) error = NULL;
  WardenProfile *profile = warden_profile_store_lookup (store, id, &error);

  g_assert_no_error (error);
  return profile;
}

static WardenProfile *
save_user_profile (Fixture            *fixture,
                   const char         *id,
                   const char * const *allow)
{
  g_autoptr(GError) error = NULL;
  WardenProfile *profile = warden_profile_new (id);

  g_assert_true (warden_profile_set_allow (profile, allow, &error));
  g_assert_true (warden_profile_store_save (fixture->store, profile, &error));
  g_assert_no_error (error);
  return profile;
}

/* The editor in a window, as the user sees it. */
static GtkWidget *
show_editor (Fixture       *fixture,
             WardenProfile *profile,
             GtkWidget    **window)
{
  GtkWidget *editor = warden_profile_editor_new (fixture->store, profile);

  *window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (*window), 640, 760);
  gtk_window_set_child (GTK_WINDOW (*window), editor);
  gtk_window_present (GTK_WINDOW (*window));
  flush_main_context ();
  return editor;
}

static void
close_window (GtkWidget *window)
{
  flush_main_context ();
  gtk_window_destroy (GTK_WINDOW (window));
  flush_main_context ();
}

/* Every value in GSettings, printed, so a test can look for a secret. */
static char *
dump_settings (GSettings *settings)
{
  g_autoptr(GSettingsSchema) schema = NULL;
  g_auto(GStrv) keys = NULL;
  GString *out = g_string_new (NULL);

  g_object_get (settings, "settings-schema", &schema, NULL);
  keys = g_settings_schema_list_keys (schema);
  for (guint i = 0; keys[i] != NULL; i++)
    {
      g_autoptr(GVariant) value = g_settings_get_value (settings, keys[i]);
      g_autofree char *printed = g_variant_print (value, FALSE);

      g_string_append_printf (out, "%s=%s\n", keys[i], printed);
    }
  return g_string_free (out, FALSE);
}

/* Credentials */

static char *
lookup_key (WardenCredentials  *credentials,
            const char         *provider,
            GError            **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  warden_credentials_lookup_async (credentials, provider, NULL, warden_test_keep_result_cb, &result);
  return warden_credentials_lookup_finish (credentials, wait_for_result (&result), error);
}

static void
clear_key (WardenCredentials *credentials,
           const char        *provider)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  warden_credentials_clear_async (credentials, provider, NULL, warden_test_keep_result_cb, &result);
  g_assert_true (warden_credentials_clear_finish (credentials, wait_for_result (&result),
                                                  &error));
  g_assert_no_error (error);
}

static void
test_credentials_round_trip (void)
{
  g_autoptr(WardenCredentials) credentials = warden_credentials_new ();
  g_autoptr(GSettings) settings = g_settings_new (SCHEMA_ID);
  g_autoptr(GAsyncResult) stored = NULL;
  g_autoptr(GAsyncResult) other = NULL;
  g_autoptr(GAsyncResult) cleared = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;
  g_autofree char *openai_key = NULL;
  g_autofree char *after_clear = NULL;
  g_autofree char *dump = NULL;
  const char *secret = "sk-ant-test-5f1c0d9e-round-trip";

  warden_credentials_store_async (credentials, "anthropic", secret, NULL, warden_test_keep_result_cb, &stored);
  g_assert_true (warden_credentials_store_finish (credentials, wait_for_result (&stored), &error));
  g_assert_no_error (error);
  warden_credentials_store_async (credentials, "openai", "sk-openai-other", NULL, warden_test_keep_result_cb,
                                  &other);
  g_assert_true (warden_credentials_store_finish (credentials, wait_for_result (&other), &error));

  key = lookup_key (credentials, "anthropic", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (key, ==, secret);
  /* Each provider has its own key. */
  openai_key = lookup_key (credentials, "openai", &error);
  g_assert_cmpstr (openai_key, ==, "sk-openai-other");

  /* The key is in the keyring and nowhere in the settings. */
  dump = dump_settings (settings);
  g_assert_null (strstr (dump, secret));

  warden_credentials_clear_async (credentials, "anthropic", NULL, warden_test_keep_result_cb, &cleared);
  g_assert_true (warden_credentials_clear_finish (credentials, wait_for_result (&cleared),
                                                  &error));
  g_assert_no_error (error);
  after_clear = lookup_key (credentials, "anthropic", &error);
  g_assert_no_error (error);
  g_assert_null (after_clear);

  /* Clearing one provider's key left the other's. */
  g_free (openai_key);
  openai_key = lookup_key (credentials, "openai", &error);
  g_assert_cmpstr (openai_key, ==, "sk-openai-other");
  clear_key (credentials, "openai");
}

static void
cli_done_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* A key saved in Preferences reaches warden-cli through the keyring: the
 * environment has none, and the model hears the keyring's. */
static void
test_credentials_reach_cli (void)
{
  g_autoptr(WardenCredentials) credentials = warden_credentials_new ();
  g_autoptr(FakeModel) fake = fake_model_new ();
  g_autoptr(GAsyncResult) stored = NULL;
  g_autoptr(GAsyncResult) done = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("warden-test-cli-key-XXXXXX", NULL);
  g_autofree char *data = g_build_filename (dir, "data", NULL);
  g_autofree char *project = g_build_filename (dir, "project", NULL);
  g_autofree char *stderr_text = NULL;
  const char *secret = "sk-ant-from-the-keyring-31";

  g_assert_cmpint (g_mkdir (project, 0700), ==, 0);
  warden_credentials_store_async (credentials, "anthropic", secret, NULL,
                                  warden_test_keep_result_cb, &stored);
  g_assert_true (warden_credentials_store_finish (credentials, wait_for_result (&stored),
                                                  &error));
  g_queue_push_tail (&fake->script, fake_reply ("Hello from the keyring.", NULL));

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_unsetenv (launcher, "ANTHROPIC_API_KEY");
  g_subprocess_launcher_unsetenv (launcher, "OPENAI_API_KEY");
  g_subprocess_launcher_unsetenv (launcher, "OPENAI_BASE_URL");
  g_subprocess_launcher_setenv (launcher, "ANTHROPIC_BASE_URL", fake->url, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_DATA_HOME", data, TRUE);
  g_subprocess_launcher_set_cwd (launcher, project);
  proc = g_subprocess_launcher_spawn (launcher, &error, g_getenv ("WARDEN_CLI"), "run",
                                      "--sandbox", "bwrap", "say hello", NULL);
  g_assert_no_error (error);
  /* The fake model answers from this main context while the CLI runs. */
  g_subprocess_communicate_utf8_async (proc, NULL, NULL, cli_done_cb, &done);
  wait_for_result (&done);
  g_assert_true (g_subprocess_communicate_utf8_finish (proc, done, NULL, &stderr_text, &error));
  g_test_message ("warden-cli: %s", stderr_text);
  g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 0);
  g_assert_cmpuint (fake->requests->len, ==, 1);
  g_assert_cmpstr (fake->api_key, ==, secret);
  g_assert_nonnull (strstr (stderr_text, "keyring"));

  clear_key (credentials, "anthropic");
  warden_test_remove_tree (dir);
}

static void
test_credentials_env_var (void)
{
  g_assert_cmpstr (warden_credentials_env_var ("anthropic"), ==, "ANTHROPIC_API_KEY");
  g_assert_cmpstr (warden_credentials_env_var ("openai"), ==, "OPENAI_API_KEY");
  g_assert_null (warden_credentials_env_var ("ollama"));
  g_assert_null (warden_credentials_env_var ("auto"));
}

static void
test_credentials_no_service (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *self_exe = NULL;
  g_autofree char *err = NULL;
  g_auto(GStrv) envp = NULL;
  const char *argv[] = { NULL, "-p", "/ui/preferences/credentials/no-service", NULL };
  int wait_status;

  if (g_getenv ("WARDEN_TEST_NO_BUS") != NULL)
    {
      g_autoptr(WardenCredentials) credentials = warden_credentials_new ();
      g_autofree char *key = NULL;

      key = lookup_key (credentials, "anthropic", &error);
      g_assert_null (key);
      g_assert_error (error, WARDEN_CREDENTIALS_ERROR, WARDEN_CREDENTIALS_ERROR_UNAVAILABLE);
      g_assert_true (g_str_has_prefix (error->message, "The keyring is not available: "));
      g_assert_nonnull (strstr (error->message, "set ANTHROPIC_API_KEY in the environment"));
      return;
    }

  /* GTK may have connected to the session bus already, so the test runs
   * again in a process that never had one: what a bare SSH session or a
   * broken desktop gives. */
  self_exe = g_file_read_link ("/proc/self/exe", &error);
  g_assert_no_error (error);
  argv[0] = self_exe;
  envp = g_get_environ ();
  envp = g_environ_setenv (envp, "DBUS_SESSION_BUS_ADDRESS",
                           "unix:path=/nonexistent/warden-test-bus", TRUE);
  envp = g_environ_setenv (envp, "WARDEN_TEST_NO_BUS", "1", TRUE);

  g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
                &wait_status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (wait_status, NULL))
    g_error ("the check without a session bus failed: %s", err);
}

/* The profile editor */

static void
test_editor_validates_as_you_type (Fixture       *fixture,
                                   gconstpointer  data)
{
  g_autoptr(WardenProfile) profile = save_user_profile (fixture, "typing",
                                                        (const char *[]) { "ls", NULL });
  g_autoptr(WardenProfile) on_disk = NULL;
  g_autoptr(GError) error = NULL;
  GtkWidget *window;
  WardenProfileEditor *editor = WARDEN_PROFILE_EDITOR (show_editor (fixture, profile, &window));
  GtkEditable *entry = warden_profile_editor_get_add_entry (editor, WARDEN_VERDICT_ALLOW);

  /* A tab cannot be in a pattern: marked while typing, with the reason. */
  gtk_editable_set_text (entry, "ls\t-la");
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (entry), "error"));
  g_assert_nonnull (warden_profile_editor_get_add_error (editor, WARDEN_VERDICT_ALLOW));
  g_assert_nonnull (strstr (warden_profile_editor_get_add_error (editor, WARDEN_VERDICT_ALLOW),
                            "control character"));

  /* And it cannot be added. */
  g_assert_false (warden_profile_editor_add_allow (editor, "ls\t-la", &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_cmpstrv (warden_profile_get_allow (profile), ((const char *[]) { "ls", NULL }));

  /* Fixing it clears the mark. */
  gtk_editable_set_text (entry, "ls -la");
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (entry), "error"));
  g_assert_null (warden_profile_editor_get_add_error (editor, WARDEN_VERDICT_ALLOW));

  /* The deny list checks the same way. */
  gtk_editable_set_text (warden_profile_editor_get_add_entry (editor, WARDEN_VERDICT_DENY),
                         "rm\x01");
  g_assert_nonnull (warden_profile_editor_get_add_error (editor, WARDEN_VERDICT_DENY));

  wait_for (editor_idle, editor);
  on_disk = reload (fixture, "typing");
  g_assert_cmpstrv (warden_profile_get_allow (on_disk), ((const char *[]) { "ls", NULL }));
  close_window (window);
}

/* Issue 30: the image a profile's sessions run in is edited with it; what is
 * no image name is marked and not saved. */
static void
test_editor_image (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(WardenProfile) profile = save_user_profile (fixture, "imaged",
                                                        (const char *[]) { "ls", NULL });
  g_autoptr(WardenProfile) on_disk = NULL;
  g_autoptr(WardenProfile) cleared = NULL;
  GtkWidget *window;
  WardenProfileEditor *editor = WARDEN_PROFILE_EDITOR (show_editor (fixture, profile, &window));
  GtkEditable *entry = warden_profile_editor_get_image_entry (editor);

  g_assert_cmpstr (gtk_editable_get_text (entry), ==, "");
  gtk_editable_set_text (entry, "node:20 --privileged");
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (entry), "error"));
  gtk_editable_set_text (entry, "node:22-slim");
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (entry), "error"));
  wait_for (editor_idle, editor);
  on_disk = reload (fixture, "imaged");
  g_assert_cmpstr (warden_profile_get_image (on_disk), ==, "node:22-slim");

  /* Emptied: Warden's default again. */
  gtk_editable_set_text (entry, "");
  wait_for (editor_idle, editor);
  cleared = reload (fixture, "imaged");
  g_assert_null (warden_profile_get_image (cleared));
  close_window (window);
}

static void
test_editor_add_saves (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(WardenProfile) profile = save_user_profile (fixture, "adding",
                                                        (const char *[]) { "ls", NULL });
  g_autoptr(WardenProfile) on_disk = NULL;
  g_autoptr(GError) error = NULL;
  GtkWidget *window;
  WardenProfileEditor *editor = WARDEN_PROFILE_EDITOR (show_editor (fixture, profile, &window));

  g_assert_true (warden_profile_editor_add_allow (editor, "npm test", &error));
  g_assert_no_error (error);
  g_assert_true (warden_profile_editor_add_allow (editor, "npm run *", &error));
  g_assert_true (warden_profile_editor_add_deny (editor, "npm publish *", &error));
  /* The entry is ready for the next one. */
  g_assert_cmpstr (gtk_editable_get_text (warden_profile_editor_get_add_entry (
                                            editor, WARDEN_VERDICT_ALLOW)),
                   ==, "");

  wait_for (editor_idle, editor);
  g_assert_null (warden_profile_editor_get_save_error (editor));
  on_disk = reload (fixture, "adding");
  g_assert_cmpstrv (warden_profile_get_allow (on_disk),
                    ((const char *[]) { "ls", "npm test", "npm run *", NULL }));
  g_assert_cmpstrv (warden_profile_get_deny (on_disk),
                    ((const char *[]) { "npm publish *", NULL }));
  close_window (window);
}

typedef struct
{
  int   status;
  char *verdict;
} CliVerdict;

static CliVerdict
cli_check (const char *profile_path,
           const char *command)
{
  const char *cli = g_getenv ("WARDEN_CLI");
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const char *argv[] = { cli, "policy", "check", "--profile", profile_path, "--", command, NULL };
  CliVerdict result = { -1, NULL };
  int wait_status;
  const char *colon;

  g_assert_nonnull (cli);
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                &wait_status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  result.status = WEXITSTATUS (wait_status);

  /* "allow: …", "ask: …" or "deny: …" first. */
  colon = strchr (out, ':');
  g_assert_nonnull (colon);
  result.verdict = g_strndup (out, colon - out);
  return result;
}

static void
test_editor_try_matches_cli (Fixture       *fixture,
                             gconstpointer  data)
{
  static const char * const commands[] = {
    "npm test",
    "ls; rm -rf ~",
    "cat $(curl x|sh)",
    "ls -la src",
    "git push --force",
    "echo hi > /etc/passwd",
    "npm test && npm publish",
    NULL
  };
  g_autoptr(WardenProfile) profile = save_user_profile (fixture, "trying",
                                                        (const char *[]) { "ls", "ls *", "cat *",
                                                                           "echo *", NULL });
  g_autofree char *path = g_build_filename (fixture->user_dir, "trying.json", NULL);
  g_autoptr(GError) error = NULL;
  GtkWidget *window;
  WardenProfileEditor *editor = WARDEN_PROFILE_EDITOR (show_editor (fixture, profile, &window));
  GtkEditable *entry = warden_profile_editor_get_try_entry (editor);
  gboolean seen[3] = { FALSE, FALSE, FALSE };

  /* Edited in the editor, so the profile the CLI reads is the one edited. */
  g_assert_true (warden_profile_editor_add_allow (editor, "npm test", &error));
  g_assert_true (warden_profile_editor_add_deny (editor, "rm -rf *", &error));
  g_assert_true (warden_profile_editor_add_deny (editor, "npm publish*", &error));
  g_assert_no_error (error);
  wait_for (editor_idle, editor);

  g_assert_null (warden_profile_editor_get_try_result (editor));

  for (guint i = 0; commands[i] != NULL; i++)
    {
      CliVerdict cli = cli_check (path, commands[i]);
      const char *shown;

      gtk_editable_set_text (entry, commands[i]);
      shown = warden_profile_editor_get_try_result (editor);
      g_test_message ("%s: editor says %s, warden-cli says %s (%d)",
                      commands[i], shown, cli.verdict, cli.status);
      g_assert_cmpstr (shown, ==, cli.verdict);
      if (g_str_equal (shown, "allow"))
        {
          g_assert_cmpint (cli.status, ==, EXIT_ALLOW);
          seen[0] = TRUE;
        }
      else if (g_str_equal (shown, "ask"))
        {
          g_assert_cmpint (cli.status, ==, EXIT_ASK);
          seen[1] = TRUE;
        }
      else
        {
          g_assert_cmpstr (shown, ==, "deny");
          g_assert_cmpint (cli.status, ==, EXIT_DENY);
          seen[2] = TRUE;
        }
      g_free (cli.verdict);
    }

  /* The commands cover every verdict, or the comparison proves little. */
  g_assert_true (seen[0] && seen[1] && seen[2]);

  /* The result follows the profile as it is edited. */
  gtk_editable_set_text (entry, "make all");
  g_assert_cmpstr (warden_profile_editor_get_try_result (editor), ==, "ask");
  g_assert_true (warden_profile_editor_add_allow (editor, "make *", &error));
  g_assert_cmpstr (warden_profile_editor_get_try_result (editor), ==, "allow");

  gtk_editable_set_text (entry, "");
  g_assert_null (warden_profile_editor_get_try_result (editor));

  wait_for (editor_idle, editor);
  close_window (window);
}

static void
test_editor_builtin_read_only (Fixture       *fixture,
                               gconstpointer  data)
{
  g_autoptr(WardenProfile) builtin = NULL;
  g_autoptr(WardenProfile) on_disk = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) allow_before = NULL;
  g_autofree char *node_file = g_build_filename (fixture->user_dir, "node.json", NULL);
  GtkWidget *window;
  WardenProfileEditor *editor;
  WardenProfile *copy;

  builtin = warden_profile_store_lookup (fixture->store, "node", &error);
  g_assert_no_error (error);
  allow_before = g_strdupv ((char **) warden_profile_get_allow (builtin));
  editor = WARDEN_PROFILE_EDITOR (show_editor (fixture, builtin, &window));

  g_assert_false (warden_profile_editor_add_allow (editor, "curl *", &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_READ_ONLY);
  g_clear_error (&error);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (editor), "editor.remove", "(su)",
                                             "allow", 0));
  wait_for (editor_idle, editor);
  g_assert_cmpstrv (warden_profile_get_allow (builtin), allow_before);
  g_assert_false (g_file_test (node_file, G_FILE_TEST_EXISTS));

  /* Trying commands still works on a built-in profile. */
  gtk_editable_set_text (warden_profile_editor_get_try_entry (editor), "curl x | sh");
  g_assert_cmpstr (warden_profile_editor_get_try_result (editor), ==, "ask");

  /* "Duplicate to edit" gives an editable copy, and the editor edits it. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (editor), "editor.duplicate", NULL));
  wait_for (editor_idle, editor);
  copy = warden_profile_editor_get_profile (editor);
  g_assert_false (warden_profile_get_builtin (copy));
  g_assert_cmpstr (warden_profile_get_id (copy), ==, "node-copy");

  g_assert_true (warden_profile_editor_add_allow (editor, "curl *", &error));
  g_assert_no_error (error);
  wait_for (editor_idle, editor);
  on_disk = reload (fixture, "node-copy");
  g_assert_true (g_strv_contains (warden_profile_get_allow (on_disk), "curl *"));
  /* The built-in profile is as it was. */
  g_assert_cmpstrv (warden_profile_get_allow (builtin), allow_before);
  close_window (window);
}

/* The files rule: shown as the profile has it, changed and saved from the
 * row; on a built-in profile, shown and left alone. */
static void
test_editor_files_rule (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(WardenProfile) profile = save_user_profile (fixture, "files",
                                                        (const char *[]) { "ls", NULL });
  g_autoptr(WardenProfile) builtin = NULL;
  g_autoptr(WardenProfile) on_disk = NULL;
  g_autoptr(GError) error = NULL;
  GtkWidget *window;
  GtkWidget *editor = show_editor (fixture, profile, &window);
  AdwComboRow *row = ADW_COMBO_ROW (gtk_widget_get_template_child (editor,
                                                                   WARDEN_TYPE_PROFILE_EDITOR,
                                                                   "file_write_row"));
  const char *subtitle = adw_action_row_get_subtitle (ADW_ACTION_ROW (row));

  g_assert_cmpuint (adw_combo_row_get_selected (row), ==, WARDEN_FILE_WRITE_ALLOW);
  /* The protected paths are named where the rule is chosen. */
  g_assert_nonnull (strstr (subtitle, ".git"));
  g_assert_nonnull (strstr (subtitle, ".envrc"));
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (row)));

  adw_combo_row_set_selected (row, WARDEN_FILE_WRITE_NEVER);
  wait_for (editor_idle, editor);
  on_disk = reload (fixture, "files");
  g_assert_cmpint (warden_profile_get_file_write (on_disk), ==, WARDEN_FILE_WRITE_NEVER);

  /* A change made elsewhere shows. */
  warden_profile_set_file_write (profile, WARDEN_FILE_WRITE_ASK);
  g_assert_cmpuint (adw_combo_row_get_selected (row), ==, WARDEN_FILE_WRITE_ASK);
  close_window (window);

  builtin = warden_profile_store_lookup (fixture->store, "read-only", &error);
  g_assert_no_error (error);
  editor = show_editor (fixture, builtin, &window);
  row = ADW_COMBO_ROW (gtk_widget_get_template_child (editor, WARDEN_TYPE_PROFILE_EDITOR,
                                                      "file_write_row"));
  g_assert_cmpuint (adw_combo_row_get_selected (row), ==, WARDEN_FILE_WRITE_ASK);
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (row)));
  close_window (window);
}

static gboolean
set_true_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* The label in @row that shows @text, or NULL. */
static GtkLabel *
label_showing (GtkWidget  *widget,
               const char *text)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
      g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0)
    return GTK_LABEL (widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkLabel *found = label_showing (c, text);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The choice @row shows, whole: not cut to "Allowlist: ask for anyt…". */
static void
assert_row_choice_whole (AdwComboRow *row,
                         const char  *row_name)
{
  GtkStringObject *item = adw_combo_row_get_selected_item (row);
  const char *text = gtk_string_object_get_string (item);
  GtkLabel *label;
  gboolean drawn = FALSE;

  /* Laid out at the window's size: a frame or two after the last change. */
  g_timeout_add (300, set_true_cb, &drawn);
  while (!drawn)
    g_main_context_iteration (NULL, TRUE);
  label = label_showing (GTK_WIDGET (row), text);
  g_test_message ("%s shows “%s”; subtitle “%s”", row_name, text,
                  adw_action_row_get_subtitle (ADW_ACTION_ROW (row)));
  g_assert_nonnull (label);
  g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (label)));
  /* What the choice means is said beside it. */
  g_assert_nonnull (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)));
  g_assert_cmpuint (strlen (adw_action_row_get_subtitle (ADW_ACTION_ROW (row))), >, 0);
}

/* Issue 32, item 7: in a narrow window the choices show whole (short
 * labels), and the subtitle says what the chosen one means. */
static void
assert_choice_whole (GtkWidget  *editor,
                     const char *row_name)
{
  assert_row_choice_whole (ADW_COMBO_ROW (gtk_widget_get_template_child (
                             editor, WARDEN_TYPE_PROFILE_EDITOR, row_name)), row_name);
}

static void
test_editor_short_choices (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autoptr(WardenProfile) profile = save_user_profile (fixture, "short",
                                                        (const char *[]) { "ls", NULL });
  GtkWidget *window;
  GtkWidget *editor;
  AdwComboRow *mode;
  g_autofree char *before = NULL;

  warden_profile_set_network_mode (profile, WARDEN_NETWORK_ALLOWLIST);
  editor = show_editor (fixture, profile, &window);
  gtk_window_set_default_size (GTK_WINDOW (window), 420, 760);
  flush_main_context ();
  assert_choice_whole (editor, "mode_row");
  assert_choice_whole (editor, "file_write_row");
  assert_choice_whole (editor, "network_mode_row");
  x_screenshot ("prefs-short-choices.png");

  /* Another choice, another explanation. */
  mode = ADW_COMBO_ROW (gtk_widget_get_template_child (editor, WARDEN_TYPE_PROFILE_EDITOR,
                                                       "mode_row"));
  before = g_strdup (adw_action_row_get_subtitle (ADW_ACTION_ROW (mode)));
  adw_combo_row_set_selected (mode, 1);
  flush_main_context ();
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (mode)), !=, before);
  assert_choice_whole (editor, "mode_row");
  wait_for (editor_idle, editor);
  close_window (window);
}

static void
test_editor_save_failure_keeps_changes (Fixture       *fixture,
                                        gconstpointer  data)
{
  g_autoptr(WardenProfile) profile = save_user_profile (fixture, "unlucky",
                                                        (const char *[]) { "ls", NULL });
  g_autoptr(WardenProfileStore) broken = NULL;
  g_autofree char *blocker = g_build_filename (fixture->dir, "not-a-folder", NULL);
  g_autofree char *broken_dir = g_build_filename (blocker, "profiles", NULL);
  g_autoptr(GError) error = NULL;
  GtkWidget *window;
  GtkWidget *editor;

  /* A profile folder that cannot be made: its parent is a file. */
  g_assert_true (g_file_set_contents (blocker, "", 0, &error));
  broken = warden_profile_store_new (broken_dir);
  editor = warden_profile_editor_new (broken, profile);
  window = gtk_window_new ();
  gtk_window_set_child (GTK_WINDOW (window), editor);
  gtk_window_present (GTK_WINDOW (window));

  g_assert_true (warden_profile_editor_add_allow (WARDEN_PROFILE_EDITOR (editor), "make", &error));
  wait_for (editor_idle, editor);

  /* The user is told, and the change is still there to save again. */
  g_assert_nonnull (warden_profile_editor_get_save_error (WARDEN_PROFILE_EDITOR (editor)));
  g_assert_true (g_strv_contains (warden_profile_get_allow (profile), "make"));
  close_window (window);
}

/* The preferences window */

static WardenPreferencesWindow *
new_window (Fixture            *fixture,
            GSettings          *settings,
            WardenCredentials  *credentials)
{
  WardenPreferencesWindow *window;

  window = WARDEN_PREFERENCES_WINDOW (warden_preferences_window_new (NULL, settings,
                                                                     fixture->store,
                                                                     credentials));
  gtk_window_present (GTK_WINDOW (window));
  wait_for (window_idle, window);
  return window;
}

static gpointer
template_child (WardenPreferencesWindow *window,
                const char              *name)
{
  GObject *child = gtk_widget_get_template_child (GTK_WIDGET (window),
                                                  WARDEN_TYPE_PREFERENCES_WINDOW, name);

  g_assert_nonnull (child);
  return child;
}

static void
test_window_pages (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(GSettings) settings = g_settings_new (SCHEMA_ID);
  g_autoptr(WardenCredentials) credentials = warden_credentials_new ();
  WardenPreferencesWindow *window = new_window (fixture, settings, credentials);
  static const char * const pages[] = { "profiles", "sandbox", "model", NULL };

  for (guint i = 0; pages[i] != NULL; i++)
    {
      warden_preferences_window_show_page (window, pages[i]);
      flush_main_context ();
      g_assert_cmpstr (adw_preferences_window_get_visible_page_name (ADW_PREFERENCES_WINDOW (window)),
                       ==, pages[i]);
    }

  close_window (GTK_WIDGET (window));
}

static void
test_window_binds_settings (Fixture       *fixture,
                            gconstpointer  data)
{
  g_autoptr(GSettings) settings = g_settings_new (SCHEMA_ID);
  g_autoptr(WardenCredentials) credentials = warden_credentials_new ();
  WardenPreferencesWindow *window = new_window (fixture, settings, credentials);
  g_autofree char *model = NULL;
  g_autofree char *provider = NULL;
  g_autofree char *sandbox = NULL;
  g_autofree char *default_profile = NULL;
  g_auto(GStrv) ids = NULL;
  guint python_index = G_MAXUINT;

  /* Opening the window changes nothing by itself. */
  default_profile = g_settings_get_string (settings, "default-profile");
  g_assert_cmpstr (default_profile, ==, "node");
  g_clear_pointer (&default_profile, g_free);

  /* From the window to GSettings. */
  gtk_editable_set_text (template_child (window, "model_row"), "claude-test-model");
  model = g_settings_get_string (settings, "model");
  g_assert_cmpstr (model, ==, "claude-test-model");

  adw_combo_row_set_selected (template_child (window, "provider_row"), 2);
  provider = g_settings_get_string (settings, "provider");
  g_assert_cmpstr (provider, ==, "openai");

  gtk_spin_button_set_value (template_child (window, "max_steps_spin"), 42);
  g_assert_cmpuint (g_settings_get_uint (settings, "max-steps"), ==, 42);
  /* 0 by default: the model's own figure. */
  g_assert_cmpint (gtk_spin_button_get_value_as_int (template_child (window,
                                                                     "context_window_spin")),
                   ==, 0);
  gtk_spin_button_set_value (template_child (window, "context_window_spin"), 64000);
  g_assert_cmpuint (g_settings_get_uint (settings, "context-window"), ==, 64000);

  adw_combo_row_set_selected (template_child (window, "sandbox_row"), 2);
  sandbox = g_settings_get_string (settings, "sandbox");
  g_assert_cmpstr (sandbox, ==, "bwrap");

  gtk_switch_set_active (template_child (window, "network_switch"), TRUE);
  g_assert_true (g_settings_get_boolean (settings, "network"));

  gtk_spin_button_set_value (template_child (window, "memory_spin"), 4096);
  g_assert_cmpuint (g_settings_get_uint (settings, "memory-limit-mb"), ==, 4096);

  gtk_spin_button_set_value (template_child (window, "cpu_spin"), 1.5);
  g_assert_cmpfloat (g_settings_get_double (settings, "cpu-limit"), ==, 1.5);

  /* And from GSettings to the window. */
  g_settings_set_string (settings, "image", "node:20-bookworm");
  g_assert_cmpstr (gtk_editable_get_text (template_child (window, "image_row")), ==,
                   "node:20-bookworm");
  g_settings_set_string (settings, "default-workspace", "/srv/projects/demo");
  g_assert_cmpstr (adw_action_row_get_subtitle (template_child (window, "workspace_row")), ==,
                   "/srv/projects/demo");

  /* The default profile row lists the profiles and picks by id. */
  ids = warden_preferences_window_dup_profile_ids (window);
  for (guint i = 0; ids[i] != NULL; i++)
    if (g_str_equal (ids[i], "python"))
      python_index = i;
  g_assert_cmpuint (python_index, !=, G_MAXUINT);
  adw_combo_row_set_selected (template_child (window, "default_profile_row"), python_index);
  default_profile = g_settings_get_string (settings, "default-profile");
  g_assert_cmpstr (default_profile, ==, "python");

  /* A default profile that is not listed any more stays as it is until
   * the user picks another. */
  g_settings_set_string (settings, "default-profile", "deleted-meanwhile");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "prefs.duplicate", "s",
                                             "strict"));
  wait_for (window_idle, window);
  g_clear_pointer (&default_profile, g_free);
  default_profile = g_settings_get_string (settings, "default-profile");
  g_assert_cmpstr (default_profile, ==, "deleted-meanwhile");

  close_window (GTK_WIDGET (window));
  g_settings_reset (settings, "model");
  g_settings_reset (settings, "provider");
  g_settings_reset (settings, "max-steps");
  g_settings_reset (settings, "context-window");
  g_settings_reset (settings, "sandbox");
  g_settings_reset (settings, "network");
  g_settings_reset (settings, "memory-limit-mb");
  g_settings_reset (settings, "cpu-limit");
  g_settings_reset (settings, "image");
  g_settings_reset (settings, "default-workspace");
  g_settings_reset (settings, "default-profile");
}

static void
test_window_key_goes_to_keyring (Fixture       *fixture,
                                 gconstpointer  data)
{
  g_autoptr(GSettings) settings = g_settings_new (SCHEMA_ID);
  g_autoptr(WardenCredentials) credentials = warden_credentials_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;
  g_autofree char *dump = NULL;
  g_autofree char *after_clear = NULL;
  const char *secret = "sk-ant-typed-into-the-window-77";
  WardenPreferencesWindow *window;
  GtkEditable *entry;

  g_unsetenv ("ANTHROPIC_API_KEY");
  window = new_window (fixture, settings, credentials);
  entry = warden_preferences_window_get_key_entry (window);

  gtk_editable_set_text (entry, secret);
  g_signal_emit_by_name (entry, "apply");
  wait_for (window_idle, window);

  key = lookup_key (credentials, "anthropic", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (key, ==, secret);
  dump = dump_settings (settings);
  g_assert_null (strstr (dump, secret));
  /* Once saved, the key does not linger on screen. */
  g_assert_cmpstr (gtk_editable_get_text (entry), ==, "");
  g_assert_cmpstr (warden_preferences_window_get_key_status (window), ==,
                   "A key is stored in the keyring");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "prefs.clear-key", NULL));
  wait_for (window_idle, window);
  after_clear = lookup_key (credentials, "anthropic", &error);
  g_assert_null (after_clear);
  g_assert_nonnull (strstr (warden_preferences_window_get_key_status (window), "No key stored"));

  close_window (GTK_WIDGET (window));
}

static void
test_window_env_var_status (Fixture       *fixture,
                            gconstpointer  data)
{
  g_autoptr(GSettings) settings = g_settings_new (SCHEMA_ID);
  g_autoptr(WardenCredentials) credentials = warden_credentials_new ();
  WardenPreferencesWindow *window;

  clear_key (credentials, "openai");
  g_setenv ("OPENAI_API_KEY", "sk-from-the-environment", TRUE);
  g_settings_set_string (settings, "provider", "openai");
  window = new_window (fixture, settings, credentials);

  g_assert_cmpstr (warden_preferences_window_get_key_status (window), ==,
                   "Using OPENAI_API_KEY from the environment");

  close_window (GTK_WIDGET (window));
  g_unsetenv ("OPENAI_API_KEY");
  g_settings_reset (settings, "provider");
}

static gboolean
strv_has (GStrv       strv,
          const char *s)
{
  return strv != NULL && g_strv_contains ((const char * const *) strv, s);
}

static void
test_window_delete_undo (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autoptr(GSettings) settings = g_settings_new (SCHEMA_ID);
  g_autoptr(WardenCredentials) credentials = warden_credentials_new ();
  g_autoptr(WardenProfile) mine = save_user_profile (fixture, "mine",
                                                     (const char *[]) { "make *", "ls", NULL });
  g_autoptr(WardenProfile) restored = NULL;
  g_autoptr(WardenProfile) gone = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) before = NULL;
  g_auto(GStrv) during = NULL;
  g_auto(GStrv) after = NULL;
  WardenPreferencesWindow *window = new_window (fixture, settings, credentials);

  before = warden_preferences_window_dup_profile_ids (window);
  g_assert_true (strv_has (before, "mine"));
  g_assert_true (strv_has (before, "strict"));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "prefs.delete", "s", "mine"));
  wait_for (window_idle, window);
  during = warden_preferences_window_dup_profile_ids (window);
  g_assert_false (strv_has (during, "mine"));
  gone = warden_profile_store_lookup (fixture->store, "mine", &error);
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* What the toast's Undo button activates. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "prefs.undo-delete", "s",
                                             "mine"));
  wait_for (window_idle, window);
  after = warden_preferences_window_dup_profile_ids (window);
  g_assert_true (strv_has (after, "mine"));
  restored = reload (fixture, "mine");
  g_assert_cmpstrv (warden_profile_get_allow (restored),
                    ((const char *[]) { "make *", "ls", NULL }));

  /* Built-in profiles cannot be deleted. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "prefs.delete", "s", "strict"));
  wait_for (window_idle, window);
  g_strfreev (after);
  after = warden_preferences_window_dup_profile_ids (window);
  g_assert_true (strv_has (after, "strict"));

  close_window (GTK_WIDGET (window));
}

static void
test_window_duplicate_opens_editor (Fixture       *fixture,
                                    gconstpointer  data)
{
  g_autoptr(GSettings) settings = g_settings_new (SCHEMA_ID);
  g_autoptr(WardenCredentials) credentials = warden_credentials_new ();
  g_auto(GStrv) ids = NULL;
  WardenPreferencesWindow *window = new_window (fixture, settings, credentials);
  WardenProfileEditor *editor;

  g_assert_null (warden_preferences_window_get_editor (window));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "prefs.duplicate", "s",
                                             "python"));
  wait_for (window_idle, window);

  ids = warden_preferences_window_dup_profile_ids (window);
  g_assert_true (strv_has (ids, "python-copy"));
  editor = warden_preferences_window_get_editor (window);
  g_assert_nonnull (editor);
  g_assert_cmpstr (warden_profile_get_id (warden_profile_editor_get_profile (editor)), ==,
                   "python-copy");
  g_assert_false (warden_profile_get_builtin (warden_profile_editor_get_profile (editor)));

  close_window (GTK_WIDGET (window));
}

/* Real input, through the X server (XTEST), as a user gives it */

static gulong
xid_of (GtkWidget *widget)
{
  GtkNative *native = gtk_widget_get_native (widget);

  return (gulong) gdk_x11_surface_get_xid (gtk_native_get_surface (native));
}

static void
spin (guint ms)
{
  gint64 until = g_get_monotonic_time () + ms * 1000;
  guint wake = g_timeout_add (10, wake_cb, NULL);

  while (g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (wake);
}

/* Gives the X focus to @widget's window, then the keyboard focus to @widget. */
static void
x_focus (GtkWidget *widget)
{
  g_autofree char *args = g_strdup_printf ("windowfocus --sync %lu", xid_of (widget));

  x_xdotool (args);
  spin (200);
  gtk_widget_grab_focus (widget);
  spin (100);
}

/* Types @text with the keyboard into what has the focus. */
static void
x_type (const char *text)
{
  g_autofree char *quoted = g_shell_quote (text);
  g_autofree char *args = g_strdup_printf ("type --delay 5 -- %s", quoted);

  x_xdotool (args);
  spin (300);
}

static GtkWidget *
find_descendant (GtkWidget *widget,
                 GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_descendant (c, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
has_icon_button (GtkWidget  *widget,
                 const char *icon_name)
{
  if (GTK_IS_BUTTON (widget) &&
      g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (widget)), icon_name) == 0 &&
      gtk_widget_get_visible (widget))
    return TRUE;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    if (has_icon_button (c, icon_name))
      return TRUE;
  return FALSE;
}

/* The family the text of @widget is drawn in, as the style sheet sets it. */
static const char *
font_family_of (GtkWidget *widget)
{
  GtkWidget *text = find_descendant (widget, GTK_TYPE_TEXT);
  PangoFontDescription *font;

  g_assert_nonnull (text);
  font = pango_context_get_font_description (gtk_widget_get_pango_context (text));
  return pango_font_description_get_family (font);
}

static void
load_style (void)
{
  static gboolean loaded;

  if (!loaded)
    {
      GtkCssProvider *provider = gtk_css_provider_new ();

      gtk_css_provider_load_from_resource (provider, RESOURCE_PREFIX "/style.css");
      gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                                  GTK_STYLE_PROVIDER (provider),
                                                  GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
      g_object_unref (provider);
      loaded = TRUE;
    }
}

/* The profile editor: the way it looks and speaks */

/* No up and down arrows: the order of patterns decides nothing. Patterns
 * are typed in monospace. Removing a pattern saves. */
static void
test_editor_rows_remove_save (Fixture       *fixture,
                              gconstpointer  data)
{
  g_autoptr(WardenProfile) profile = save_user_profile (fixture, "ordering",
                                                        (const char *[]) { "a", "b", "c", NULL });
  g_autoptr(WardenProfile) removed = NULL;
  GtkWidget *window;
  WardenProfileEditor *editor;

  load_style ();
  editor = WARDEN_PROFILE_EDITOR (show_editor (fixture, profile, &window));
  flush_main_context ();

  g_assert_false (has_icon_button (GTK_WIDGET (editor), "go-up-symbolic"));
  g_assert_false (has_icon_button (GTK_WIDGET (editor), "go-down-symbolic"));
  g_assert_true (has_icon_button (GTK_WIDGET (editor), "user-trash-symbolic"));
  g_assert_false (gtk_widget_activate_action (GTK_WIDGET (editor), "editor.move-up", "(su)",
                                              "allow", 1));

  /* The add entry and the patterns' rows draw in monospace. */
  g_assert_cmpstr (font_family_of (GTK_WIDGET (warden_profile_editor_get_add_entry (
                                                 editor, WARDEN_VERDICT_ALLOW))),
                   ==, "monospace");
  g_assert_cmpstr (font_family_of (GTK_WIDGET (warden_profile_editor_get_try_entry (editor))),
                   ==, "monospace");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (editor), "editor.remove", "(su)",
                                             "allow", 1));
  wait_for (editor_idle, editor);
  flush_main_context ();

  removed = reload (fixture, "ordering");
  g_assert_cmpstrv (warden_profile_get_allow (removed), ((const char *[]) { "a", "c", NULL }));
  close_window (window);
}

/* Scrolls the page so that @widget is at its top (for a screenshot). */
static void
scroll_to_top (GtkWidget *widget)
{
  GtkWidget *scrolled = gtk_widget_get_ancestor (widget, GTK_TYPE_SCROLLED_WINDOW);
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled));
  graphene_point_t at;

  g_assert_true (gtk_widget_compute_point (widget, scrolled, &GRAPHENE_POINT_INIT (0, 0), &at));
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_value (adjustment) + at.y - 12);
  spin (300);
}

/* Ask rules are edited like the other lists: typed, checked as typed,
 * saved, shown in rows that can be removed; a command they name asks in
 * Try a command as in warden-cli, whatever allows it. */
static void
test_editor_ask_rules (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(WardenProfile) profile = save_user_profile (fixture, "asking",
                                                        (const char *[]) { "git *", NULL });
  g_autofree char *path = g_build_filename (fixture->user_dir, "asking.json", NULL);
  g_autoptr(WardenProfile) on_disk = NULL;
  g_autoptr(WardenProfile) removed = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  GtkWidget *window;
  WardenProfileEditor *editor;
  GtkEditable *entry;
  GtkEditable *try_entry;
  CliVerdict cli;

  load_style ();
  editor = WARDEN_PROFILE_EDITOR (show_editor (fixture, profile, &window));
  entry = warden_profile_editor_get_add_entry (editor, WARDEN_VERDICT_ASK);
  g_assert_true (entry != warden_profile_editor_get_add_entry (editor, WARDEN_VERDICT_ALLOW));
  g_assert_true (entry != warden_profile_editor_get_add_entry (editor, WARDEN_VERDICT_DENY));
  g_assert_cmpstr (font_family_of (GTK_WIDGET (entry)), ==, "monospace");

  /* Checked as it is typed, as the other lists are. */
  x_focus (GTK_WIDGET (entry));
  x_type ("git push && npm publish");
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (entry), "warning"));
  g_assert_nonnull (strstr (warden_profile_editor_get_add_error (editor, WARDEN_VERDICT_ASK),
                            "“&&” separates commands"));
  g_assert_false (warden_profile_editor_add_ask (editor, "git\x01push", &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID);
  g_clear_error (&error);

  gtk_editable_set_text (entry, "");
  x_type ("git push *");
  g_assert_null (warden_profile_editor_get_add_error (editor, WARDEN_VERDICT_ASK));
  /* Enter adds it, as the Add button does. */
  x_xdotool ("key Return");
  spin (300);
  g_assert_cmpstr (gtk_editable_get_text (entry), ==, "");
  g_assert_true (warden_profile_editor_add_ask (editor, "npm publish*", &error));
  g_assert_no_error (error);
  wait_for (editor_idle, editor);
  on_disk = reload (fixture, "asking");
  g_assert_cmpstrv (warden_profile_get_ask (on_disk),
                    ((const char *[]) { "git push *", "npm publish*", NULL }));
  g_assert_cmpstrv (warden_profile_get_allow (on_disk), ((const char *[]) { "git *", NULL }));
  scroll_to_top (gtk_widget_get_ancestor (GTK_WIDGET (entry), ADW_TYPE_PREFERENCES_GROUP));
  x_screenshot ("editor-ask-list.png");

  /* Try a command says why it asks, and agrees with warden-cli. */
  try_entry = warden_profile_editor_get_try_entry (editor);
  x_focus (GTK_WIDGET (try_entry));
  x_type ("git status && git push origin main");
  g_assert_cmpstr (warden_profile_editor_get_try_result (editor), ==, "ask");
  lines = warden_profile_editor_dup_try_lines (editor);
  g_assert_cmpstrv (lines, ((const char *[]) {
                      "git status — allowed by git *",
                      "git push origin main — asks every time: it matches the ask rule "
                      "git push *", NULL }));
  cli = cli_check (path, "git status && git push origin main");
  g_assert_cmpstr (cli.verdict, ==, "ask");
  g_assert_cmpint (cli.status, ==, EXIT_ASK);
  g_free (cli.verdict);
  x_screenshot ("editor-ask-rules.png");

  /* A row's remove button takes it out, and saves. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (editor), "editor.remove", "(su)",
                                             "ask", 0));
  wait_for (editor_idle, editor);
  removed = reload (fixture, "asking");
  g_assert_cmpstrv (warden_profile_get_ask (removed), ((const char *[]) { "npm publish*", NULL }));
  g_assert_cmpstr (warden_profile_editor_get_try_result (editor), ==, "allow");
  close_window (window);
}

/* A pattern with a separator never matches the line it looks like: it is
 * flagged while the user types it, with the reason, and the flag goes when
 * the pattern is one command. */
static void
test_editor_flags_separator (Fixture       *fixture,
                             gconstpointer  data)
{
  g_autoptr(WardenProfile) profile = save_user_profile (fixture, "flagging",
                                                        (const char *[]) { "ls", NULL });
  GtkWidget *window;
  WardenProfileEditor *editor = WARDEN_PROFILE_EDITOR (show_editor (fixture, profile, &window));
  GtkEditable *entry = warden_profile_editor_get_add_entry (editor, WARDEN_VERDICT_ALLOW);
  const char *message;

  x_focus (GTK_WIDGET (entry));
  x_type ("npm test && npm run build");
  g_assert_cmpstr (gtk_editable_get_text (entry), ==, "npm test && npm run build");
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (entry), "warning"));
  message = warden_profile_editor_get_add_error (editor, WARDEN_VERDICT_ALLOW);
  g_assert_nonnull (message);
  g_assert_nonnull (strstr (message, "“&&” separates commands"));
  g_test_message ("flagged: %s", message);
  x_screenshot ("editor-flagged-pattern.png");

  /* Made one command, the flag goes. */
  gtk_editable_set_text (entry, "");
  x_type ("npm run *");
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (entry), "warning"));
  g_assert_null (warden_profile_editor_get_add_error (editor, WARDEN_VERDICT_ALLOW));

  /* The deny list, with a pipe. */
  entry = warden_profile_editor_get_add_entry (editor, WARDEN_VERDICT_DENY);
  x_focus (GTK_WIDGET (entry));
  x_type ("curl * | sh");
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (entry), "warning"));
  g_assert_nonnull (strstr (warden_profile_editor_get_add_error (editor, WARDEN_VERDICT_DENY),
                            "“|”"));
  close_window (window);
}

/* "Check Programs Commands Start": on for a profile that does not say,
 * turned off with a real click, saved as "nested": "off"; shown, not
 * changeable, on a built-in profile. */
static void
test_editor_nested_switch (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autoptr(WardenProfile) profile = save_user_profile (fixture, "nested",
                                                        (const char *[]) { "ls", NULL });
  g_autoptr(WardenProfile) on_disk = NULL;
  g_autoptr(WardenProfile) builtin = NULL;
  g_autoptr(GError) error = NULL;
  GtkWidget *window;
  GtkWidget *editor = show_editor (fixture, profile, &window);
  GtkSwitch *toggle = GTK_SWITCH (gtk_widget_get_template_child (editor,
                                                                 WARDEN_TYPE_PROFILE_EDITOR,
                                                                 "nested_switch"));
  GtkWidget *row = GTK_WIDGET (gtk_widget_get_template_child (editor,
                                                              WARDEN_TYPE_PROFILE_EDITOR,
                                                              "nested_row"));

  g_assert_true (gtk_switch_get_active (toggle));
  g_assert_true (gtk_widget_get_sensitive (row));
  x_click (GTK_WIDGET (toggle));
  wait_for (editor_idle, editor);
  g_assert_false (gtk_switch_get_active (toggle));
  on_disk = reload (fixture, "nested");
  g_assert_false (warden_profile_get_check_nested (on_disk));
  close_window (window);

  builtin = warden_profile_store_lookup (fixture->store, "node", &error);
  g_assert_no_error (error);
  editor = show_editor (fixture, builtin, &window);
  toggle = GTK_SWITCH (gtk_widget_get_template_child (editor, WARDEN_TYPE_PROFILE_EDITOR,
                                                      "nested_switch"));
  row = GTK_WIDGET (gtk_widget_get_template_child (editor, WARDEN_TYPE_PROFILE_EDITOR,
                                                   "nested_row"));
  g_assert_true (gtk_switch_get_active (toggle));
  g_assert_false (gtk_widget_get_sensitive (row));
  close_window (window);
}

static gboolean
network_mode_is (gpointer data)
{
  gpointer *args = data;

  return (int) warden_profile_get_network_mode (args[0]) == GPOINTER_TO_INT (args[1]);
}

/* The network section, edited as a user does: a host typed into "New
 * allowed host" and added with Enter (kept lowercase, saved); a typo
 * flagged; the mode chosen from its list with the keyboard; "Try a host"
 * says what the sandbox would do. */
static void
test_editor_network (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(WardenProfile) profile = save_user_profile (fixture, "net",
                                                        (const char *[]) { "ls", NULL });
  g_autoptr(WardenProfile) on_disk = NULL;
  g_autoptr(WardenProfile) builtin = NULL;
  g_autoptr(GError) error = NULL;
  GtkWidget *window;
  GtkWidget *editor = show_editor (fixture, profile, &window);
  GtkWidget *add = GTK_WIDGET (gtk_widget_get_template_child (editor, WARDEN_TYPE_PROFILE_EDITOR,
                                                              "net_allow_add_row"));
  GtkWidget *deny_add = GTK_WIDGET (gtk_widget_get_template_child (editor,
                                                                   WARDEN_TYPE_PROFILE_EDITOR,
                                                                   "net_deny_add_row"));
  AdwComboRow *mode = ADW_COMBO_ROW (gtk_widget_get_template_child (editor,
                                                                    WARDEN_TYPE_PROFILE_EDITOR,
                                                                    "network_mode_row"));
  GtkLabel *error_label = GTK_LABEL (gtk_widget_get_template_child (editor,
                                                                    WARDEN_TYPE_PROFILE_EDITOR,
                                                                    "net_allow_error_label"));
  GtkEditable *try = warden_profile_editor_get_try_host_entry (WARDEN_PROFILE_EDITOR (editor));
  gpointer args[2] = { profile, GINT_TO_POINTER (WARDEN_NETWORK_ALLOWLIST) };

  /* A profile without a section: the switch decides, and it says so. */
  g_assert_false (warden_profile_has_network (profile));
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (mode)), "Not set"));

  x_focus (add);
  x_type ("Registry.NPMJS.org:443");
  x_xdotool ("key Return");
  spin (300);
  wait_for (editor_idle, editor);
  g_assert_cmpstr (warden_profile_get_network_allow (profile)[0], ==, "registry.npmjs.org:443");
  on_disk = reload (fixture, "net");
  g_assert_true (warden_profile_has_network (on_disk));
  g_assert_cmpstr (warden_profile_get_network_allow (on_disk)[0], ==, "registry.npmjs.org:443");
  g_clear_object (&on_disk);

  /* A path is no host: flagged as typed, not added. */
  x_focus (add);
  x_type ("pypi.org/simple");
  g_assert_true (gtk_widget_has_css_class (add, "error"));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (error_label)));
  g_assert_nonnull (strstr (gtk_label_get_text (error_label), "not a host pattern"));
  x_xdotool ("key Return");
  spin (200);
  g_assert_null (warden_profile_get_network_allow (profile)[1]);
  gtk_editable_set_text (GTK_EDITABLE (add), "");

  x_focus (deny_add);
  x_type ("*.evil.example");
  x_xdotool ("key Return");
  spin (300);
  wait_for (editor_idle, editor);
  g_assert_cmpstr (warden_profile_get_network_deny (profile)[0], ==, "*.evil.example");

  /* Still "none": the try row says the sandbox has no network. */
  x_focus (GTK_WIDGET (try));
  x_type ("registry.npmjs.org");
  g_assert_cmpstr (warden_profile_editor_get_try_host_result (WARDEN_PROFILE_EDITOR (editor)),
                   ==, "deny");

  /* The mode from its list: open it with Enter, one down, Enter. */
  x_focus (GTK_WIDGET (mode));
  x_xdotool ("key Return");
  spin (400);
  x_xdotool ("key Down");
  spin (200);
  x_xdotool ("key Return");
  spin (400);
  wait_for (network_mode_is, args);
  wait_for (editor_idle, editor);
  on_disk = reload (fixture, "net");
  g_assert_cmpint (warden_profile_get_network_mode (on_disk), ==, WARDEN_NETWORK_ALLOWLIST);

  g_assert_cmpstr (warden_profile_editor_get_try_host_result (WARDEN_PROFILE_EDITOR (editor)),
                   ==, "allow");
  gtk_editable_set_text (try, "");
  x_focus (GTK_WIDGET (try));
  x_type ("registry.npmjs.org:80");
  g_assert_cmpstr (warden_profile_editor_get_try_host_result (WARDEN_PROFILE_EDITOR (editor)),
                   ==, "ask");
  gtk_editable_set_text (try, "");
  x_type ("cdn.evil.example");
  g_assert_cmpstr (warden_profile_editor_get_try_host_result (WARDEN_PROFILE_EDITOR (editor)),
                   ==, "deny");
  x_screenshot ("editor-network.png");
  close_window (window);

  /* A built-in profile shows its hosts, not changeable. */
  builtin = warden_profile_store_lookup (fixture->store, "node", &error);
  g_assert_no_error (error);
  editor = show_editor (fixture, builtin, &window);
  mode = ADW_COMBO_ROW (gtk_widget_get_template_child (editor, WARDEN_TYPE_PROFILE_EDITOR,
                                                       "network_mode_row"));
  g_assert_cmpuint (adw_combo_row_get_selected (mode), ==, 1);
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (mode)));
  close_window (window);
}

static gboolean
strv_has_prefix (GStrv       strv,
                 const char *prefix)
{
  for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
    if (g_str_has_prefix (strv[i], prefix))
      return TRUE;
  return FALSE;
}

/* "Try a command" sits first and says what happens in plain words, not in
 * the engine's terms (origins, verdict names). */
static void
test_editor_try_speaks_plainly (Fixture       *fixture,
                                gconstpointer  data)
{
  g_autoptr(WardenProfile) profile = save_user_profile (fixture, "plain",
                                                        (const char *[]) { "ls *", "ls", NULL });
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  GtkWidget *window;
  WardenProfileEditor *editor;
  GtkEditable *entry;
  AdwPreferencesPage *page;
  GtkWidget *first_group;

  g_assert_true (warden_profile_set_deny (profile, (const char *[]) { "rm -rf /*", NULL },
                                          &error));
  editor = WARDEN_PROFILE_EDITOR (show_editor (fixture, profile, &window));
  entry = warden_profile_editor_get_try_entry (editor);

  /* The first group of the page is the one with the entry. */
  page = ADW_PREFERENCES_PAGE (find_descendant (GTK_WIDGET (editor), ADW_TYPE_PREFERENCES_PAGE));
  first_group = find_descendant (GTK_WIDGET (page), ADW_TYPE_PREFERENCES_GROUP);
  g_assert_true (gtk_widget_is_ancestor (GTK_WIDGET (entry), first_group));

  x_focus (GTK_WIDGET (entry));
  x_type ("ls -la");
  lines = warden_profile_editor_dup_try_lines (editor);
  g_assert_cmpstrv (lines, ((const char *[]) { "ls -la — allowed by ls *", NULL }));
  g_clear_pointer (&lines, g_strfreev);

  gtk_editable_set_text (entry, "");
  x_type ("find / -execdir rm {} +");
  g_assert_cmpstr (warden_profile_editor_get_try_result (editor), ==, "ask");
  lines = warden_profile_editor_dup_try_lines (editor);
  g_assert_cmpuint (g_strv_length (lines), ==, 2);
  g_assert_true (g_str_has_prefix (lines[0], "find / -execdir rm {} + — asks: "));
  g_assert_true (g_str_has_prefix (lines[1], "rm {} (run by find for each file) — asks: the file "
                                             "names are only known when it runs"));
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_test_message ("%s", lines[i]);
      g_assert_null (strstr (lines[i], "wrapper"));
      g_assert_null (strstr (lines[i], "top-level"));
    }
  x_screenshot ("editor-try-find.png");
  g_clear_pointer (&lines, g_strfreev);

  gtk_editable_set_text (entry, "");
  x_type ("echo $(rm -rf /tmp)");
  lines = warden_profile_editor_dup_try_lines (editor);
  g_assert_true (strv_has_prefix (lines, "rm -rf /tmp (its output becomes part of the command) — "
                                         "refused: it matches the deny pattern rm -rf /*"));
  g_assert_cmpstr (warden_profile_editor_get_try_result (editor), ==, "deny");
  close_window (window);
}

/* The preferences window: Test Connection and what Automatic means */

static gboolean
has_result (gpointer data)
{
  WardenPreferencesWindow *window = data;

  return !warden_preferences_window_get_busy (window) &&
         gtk_widget_get_sensitive (warden_preferences_window_get_test_button (window));
}

static void
test_window_test_connection (Fixture       *fixture,
                             gconstpointer  data)
{
  g_autoptr(GSettings) settings = g_settings_new (SCHEMA_ID);
  g_autoptr(WardenCredentials) credentials = warden_credentials_new ();
  g_autoptr(FakeModel) fake = fake_model_new ();
  WardenPreferencesWindow *window;
  GtkWidget *button;
  const char *result;

  g_setenv ("ANTHROPIC_API_KEY", "test-key", TRUE);
  g_setenv ("ANTHROPIC_BASE_URL", fake->url, TRUE);
  g_settings_set_string (settings, "provider", "anthropic");
  g_settings_set_string (settings, "model", "claude-test-model");

  window = new_window (fixture, settings, credentials);
  warden_preferences_window_show_page (window, "model");
  flush_main_context ();
  button = warden_preferences_window_get_test_button (window);

  /* The model answers: its name and the time it took. */
  g_queue_push_tail (&fake->script, fake_reply ("OK", NULL));
  x_focus (button);
  x_click (button);
  wait_for (has_result, window);
  result = warden_preferences_window_get_connection_result (window);
  g_test_message ("test connection: %s", result);
  g_assert_cmpuint (fake->requests->len, ==, 1);
  g_assert_true (g_str_has_prefix (result, "Anthropic: claude-test-model answered in "));
  g_assert_true (g_str_has_suffix (result, " ms"));
  x_screenshot ("prefs-test-connection.png");

  /* Issue 32, item 7: another model, and the result of the old one goes. */
  g_settings_set_string (settings, "model", "claude-other-model");
  flush_main_context ();
  g_assert_cmpstr (warden_preferences_window_get_connection_result (window), ==,
                   "Send the model a short request, with the provider, key and model set above");
  g_assert_cmpstr (adw_preferences_row_get_title (template_child (window, "test_row")), ==,
                   "Connection");
  g_settings_set_string (settings, "model", "claude-test-model");

  /* The key is refused: said in the API's words, with the model. */
  g_queue_push_tail (&fake->script,
                     g_strdup ("event: error\n"
                               "data: {\"type\":\"error\",\"error\":{\"type\":"
                               "\"authentication_error\",\"message\":\"invalid x-api-key\"}}\n\n"));
  x_click (button);
  wait_for (has_result, window);
  result = warden_preferences_window_get_connection_result (window);
  g_test_message ("test connection: %s", result);
  g_assert_cmpuint (fake->requests->len, ==, 2);
  g_assert_true (g_str_has_prefix (result, "Anthropic, model claude-test-model: "));
  g_assert_nonnull (strstr (result, "invalid x-api-key"));
  g_assert_cmpstr (adw_preferences_row_get_title (template_child (window, "test_row")), ==,
                   "Not connected");
  x_screenshot ("prefs-test-connection-failed.png");

  /* Nothing set up: it says what to set, and asks no server. */
  g_unsetenv ("ANTHROPIC_API_KEY");
  g_settings_set_string (settings, "provider", "openai");
  x_click (button);
  wait_for (has_result, window);
  result = warden_preferences_window_get_connection_result (window);
  g_test_message ("test connection: %s", result);
  g_assert_cmpuint (fake->requests->len, ==, 2);
  g_assert_nonnull (strstr (result, "API key"));
  /* Said once: the row's title does not repeat the message's words. */
  g_assert_null (strstr (result, adw_preferences_row_get_title (template_child (window,
                                                                                "test_row"))));

  g_unsetenv ("ANTHROPIC_BASE_URL");
  g_settings_reset (settings, "provider");
  g_settings_reset (settings, "model");
  close_window (GTK_WIDGET (window));
}

/* The Sandbox page says what Automatic is now, as new sessions get it. */
static void
test_window_sandbox_automatic (Fixture       *fixture,
                               gconstpointer  data)
{
  g_autoptr(GSettings) settings = g_settings_new (SCHEMA_ID);
  g_autoptr(WardenCredentials) credentials = warden_credentials_new ();
  WardenPreferencesWindow *window = new_window (fixture, settings, credentials);
  AdwActionRow *row = template_child (window, "sandbox_row");
  WardenSandboxKind expected = WARDEN_SANDBOX_KIND_BWRAP;
  g_autoptr(WardenDockerClient) docker = warden_docker_client_new_from_env (NULL);

  /* The engine, asked the same way. */
  if (docker != NULL)
    {
      g_autoptr(GAsyncResult) ping = NULL;

      warden_docker_client_ping_async (docker, NULL, warden_test_keep_result_cb, &ping);
      if (warden_docker_client_ping_finish (docker, wait_for_result (&ping), NULL))
        expected = WARDEN_SANDBOX_KIND_DOCKER;
    }

  g_assert_cmpint (warden_preferences_window_get_sandbox_auto (window), ==, expected);
  g_test_message ("Automatic: %s", adw_action_row_get_subtitle (row));
  warden_preferences_window_show_page (window, "sandbox");
  x_screenshot ("prefs-sandbox.png");
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (row),
                            expected == WARDEN_SANDBOX_KIND_DOCKER
                            ? "Now: Docker" : "Now: bubblewrap"));
  /* The engine found is named, with where it answers. */
  if (expected == WARDEN_SANDBOX_KIND_DOCKER)
    g_assert_nonnull (strstr (adw_action_row_get_subtitle (row),
                              warden_docker_client_get_host (docker)));
  /* Issue 32, item 7: narrow, "Automatic" shows whole, not "Auto…"; the
   * provider's choice too. */
  gtk_window_set_default_size (GTK_WINDOW (window), 400, 700);
  assert_row_choice_whole (ADW_COMBO_ROW (row), "sandbox_row");
  warden_preferences_window_show_page (window, "model");
  assert_row_choice_whole (ADW_COMBO_ROW (template_child (window, "provider_row")),
                           "provider_row");
  close_window (GTK_WIDGET (window));
}

/* The trace export (the trace window) */

static GtkWidget *
find_labelled_button (GtkWidget  *widget,
                      const char *label)
{
  if (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_labelled_button (c, label);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *
file_chooser_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) w = g_list_model_get_item (toplevels, i);

      if (GTK_IS_FILE_CHOOSER_DIALOG (w) && gtk_widget_get_mapped (w))
        return w;
    }
  return NULL;
}

static gboolean
chooser_shown (gpointer data)
{
  return file_chooser_dialog () != NULL;
}

static gboolean
file_exists (gpointer data)
{
  return g_file_test (data, G_FILE_TEST_EXISTS);
}

static gboolean
button_mapped (gpointer data)
{
  GtkWidget *button = find_labelled_button (data, "_Open");

  return button != NULL && gtk_widget_get_mapped (button) &&
         gtk_widget_get_width (button) > 0;
}

static char *
make_trace_session (const char *db,
                    const char *workspace,
                    WardenSessionStore **store)
{
  g_autoptr(WardenSessionRecord) info = warden_session_record_new ();
  g_autoptr(GError) error = NULL;

  *store = warden_session_store_new (db, &error);
  g_assert_no_error (error);
  info->title = g_strdup ("Fix: the <login> bug / part 2\n");
  info->workspace = g_strdup (workspace);
  info->profile = g_strdup ("node");
  info->sandbox = g_strdup ("bwrap");
  info->provider = g_strdup ("anthropic");
  info->model = g_strdup ("claude-test");
  info->state = g_strdup ("idle");
  info->created = 1700000000;
  warden_session_store_save_session (*store, info, &error);
  g_assert_no_error (error);
  warden_session_store_append_message (*store, info->id, 0,
                                       "{\"role\":\"user\",\"content\":\"fix it\"}", 0, 0, &error);
  g_assert_no_error (error);
  return g_strdup (info->id);
}

/* Ctrl+S suggests "<title>-trace.json" in Documents; Return saves it there;
 * the toast's Open hands the file to the desktop's JSON application. */
static void
test_trace_export (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autofree char *docs = g_build_filename (g_get_home_dir (), "Documents-test", NULL);
  g_autofree char *dirs = g_build_filename (g_get_user_config_dir (), "user-dirs.dirs", NULL);
  g_autofree char *dirs_text = g_strdup_printf ("XDG_DOCUMENTS_DIR=\"%s\"\n", docs);
  g_autofree char *apps = g_build_filename (g_get_user_data_dir (), "applications", NULL);
  g_autofree char *desktop = g_build_filename (apps, "warden-test-open.desktop", NULL);
  g_autofree char *script = g_build_filename (fixture->dir, "open.sh", NULL);
  g_autofree char *marker = g_build_filename (fixture->dir, "opened", NULL);
  g_autofree char *script_text = g_strdup_printf ("#!/bin/sh\necho \"$1\" > '%s'\n", marker);
  g_autofree char *desktop_text = g_strdup_printf ("[Desktop Entry]\nType=Application\n"
                                                   "Name=Open Test\nExec=%s %%u\n"
                                                   "MimeType=application/json;\n", script);
  g_autofree char *mimeapps = g_build_filename (g_get_user_config_dir (), "mimeapps.list", NULL);
  g_autofree char *db = g_build_filename (fixture->dir, "warden.db", NULL);
  g_autofree char *project = g_build_filename (fixture->dir, "project", NULL);
  g_autofree char *expected = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *opened = NULL;
  g_autoptr(WardenSessionStore) store = NULL;
  g_autoptr(GFile) folder = NULL;
  g_autoptr(GFile) docs_file = g_file_new_for_path (docs);
  g_autoptr(GError) error = NULL;
  GtkWidget *window, *chooser;
  g_autofree char *name = NULL;

  g_mkdir_with_parents (docs, 0700);
  g_mkdir_with_parents (apps, 0700);
  g_mkdir_with_parents (project, 0700);
  g_assert_true (g_file_set_contents (dirs, dirs_text, -1, NULL));
  g_reload_user_special_dirs_cache ();
  g_assert_true (g_file_set_contents (script, script_text, -1, NULL));
  g_chmod (script, 0755);
  g_assert_true (g_file_set_contents (desktop, desktop_text, -1, NULL));
  g_assert_true (g_file_set_contents (mimeapps, "[Default Applications]\n"
                                      "application/json=warden-test-open.desktop\n", -1, NULL));

  session_id = make_trace_session (db, project, &store);
  window = warden_trace_window_new (NULL, store, session_id);
  gtk_window_present (GTK_WINDOW (window));
  spin (300);

  /* The user presses Ctrl+S. */
  x_focus (window);
  x_xdotool ("key ctrl+s");
  wait_for (chooser_shown, NULL);
  chooser = file_chooser_dialog ();
  /* The dialog loads its folder after it shows. */
  spin (500);
  folder = gtk_file_chooser_get_current_folder (GTK_FILE_CHOOSER (chooser));
  name = gtk_file_chooser_get_current_name (GTK_FILE_CHOOSER (chooser));
  g_assert_nonnull (folder);
  g_assert_true (g_file_equal (folder, docs_file));
  g_assert_cmpstr (name, ==, "Fix the login bug part 2-trace.json");
  x_screenshot ("trace-export-chooser.png");

  /* Return saves it. */
  x_focus (chooser);
  x_xdotool ("key Return");
  expected = g_build_filename (docs, name, NULL);
  wait_for (file_exists, expected);
  {
    g_autoptr(JsonParser) parser = json_parser_new ();

    spin (300);
    g_assert_true (json_parser_load_from_file (parser, expected, &error));
    g_assert_no_error (error);
  }

  /* The toast's Open, clicked. */
  wait_for (button_mapped, window);
  x_screenshot ("trace-export-toast.png");
  x_focus (window);
  x_click (find_labelled_button (window, "_Open"));
  wait_for (file_exists, marker);
  spin (200);
  g_assert_true (g_file_get_contents (marker, &opened, NULL, NULL));
  g_strstrip (opened);
  {
    g_autoptr(GFile) saved = g_file_new_for_path (expected);
    g_autoptr(GFile) launched = g_file_new_for_commandline_arg (opened);

    g_assert_true (g_file_equal (saved, launched));
  }
  close_window (window);
}

/* A project that is the Documents folder: the home folder is suggested,
 * never the project. */
static void
test_trace_export_not_in_project (Fixture       *fixture,
                                  gconstpointer  data)
{
  g_autofree char *docs = g_build_filename (g_get_home_dir (), "Documents-test", NULL);
  g_autofree char *dirs = g_build_filename (g_get_user_config_dir (), "user-dirs.dirs", NULL);
  g_autofree char *dirs_text = g_strdup_printf ("XDG_DOCUMENTS_DIR=\"%s\"\n", docs);
  g_autofree char *db = g_build_filename (fixture->dir, "warden.db", NULL);
  g_autofree char *session_id = NULL;
  g_autoptr(WardenSessionStore) store = NULL;
  g_autoptr(GFile) folder = NULL;
  g_autoptr(GFile) home = g_file_new_for_path (g_get_home_dir ());
  GtkWidget *window;

  g_mkdir_with_parents (docs, 0700);
  g_assert_true (g_file_set_contents (dirs, dirs_text, -1, NULL));
  g_reload_user_special_dirs_cache ();

  session_id = make_trace_session (db, docs, &store);
  window = warden_trace_window_new (NULL, store, session_id);
  folder = warden_trace_window_dup_export_folder (WARDEN_TRACE_WINDOW (window));
  g_assert_nonnull (folder);
  g_assert_true (g_file_equal (folder, home));
  gtk_window_destroy (GTK_WINDOW (window));

  /* Names: what a file name cannot hold goes, and a name stays short. */
  {
    g_autofree char *dots = warden_trace_window_file_name_for_title ("../../etc/passwd");
    g_autofree char *empty = warden_trace_window_file_name_for_title ("\n\t");
    g_autofree char *bidi = warden_trace_window_file_name_for_title ("a\u202eb");

    g_assert_cmpstr (dots, ==, "etc passwd-trace.json");
    g_assert_cmpstr (empty, ==, "session-trace.json");
    g_assert_cmpstr (bidi, ==, "a b-trace.json");
  }
}

int
main (int   argc,
      char *argv[])
{
  /* As main.c: the renderer a user of this machine gets. */
  warden_renderer_choose ();
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/ui/preferences/credentials/round-trip", test_credentials_round_trip);
  g_test_add_func ("/ui/preferences/credentials/env-var", test_credentials_env_var);
  g_test_add_func ("/ui/preferences/credentials/reach-cli", test_credentials_reach_cli);
  g_test_add_func ("/ui/preferences/credentials/no-service", test_credentials_no_service);

  ADD_TEST ("/ui/preferences/editor/validates-as-you-type", test_editor_validates_as_you_type);
  ADD_TEST ("/ui/preferences/editor/image", test_editor_image);
  ADD_TEST ("/ui/preferences/editor/add-saves", test_editor_add_saves);
  ADD_TEST ("/ui/preferences/editor/rows-remove-save", test_editor_rows_remove_save);
  ADD_TEST ("/ui/preferences/editor/flags-separator", test_editor_flags_separator);
  ADD_TEST ("/ui/preferences/editor/ask-rules", test_editor_ask_rules);
  ADD_TEST ("/ui/preferences/editor/try-speaks-plainly", test_editor_try_speaks_plainly);
  ADD_TEST ("/ui/preferences/editor/try-matches-cli", test_editor_try_matches_cli);
  ADD_TEST ("/ui/preferences/editor/builtin-read-only", test_editor_builtin_read_only);
  ADD_TEST ("/ui/preferences/editor/save-failure", test_editor_save_failure_keeps_changes);
  ADD_TEST ("/ui/preferences/editor/files-rule", test_editor_files_rule);
  ADD_TEST ("/ui/preferences/editor/nested-switch", test_editor_nested_switch);
  ADD_TEST ("/ui/preferences/editor/network", test_editor_network);
  ADD_TEST ("/ui/preferences/editor/short-choices", test_editor_short_choices);

  ADD_TEST ("/ui/preferences/window/pages", test_window_pages);
  ADD_TEST ("/ui/preferences/window/test-connection", test_window_test_connection);
  ADD_TEST ("/ui/preferences/window/sandbox-automatic", test_window_sandbox_automatic);
  ADD_TEST ("/ui/preferences/window/binds-settings", test_window_binds_settings);
  ADD_TEST ("/ui/preferences/window/key-goes-to-keyring", test_window_key_goes_to_keyring);
  ADD_TEST ("/ui/preferences/window/env-var-status", test_window_env_var_status);
  ADD_TEST ("/ui/preferences/window/delete-undo", test_window_delete_undo);
  ADD_TEST ("/ui/preferences/window/duplicate-opens-editor", test_window_duplicate_opens_editor);

  ADD_TEST ("/ui/trace-window/export", test_trace_export);
  ADD_TEST ("/ui/trace-window/export-not-in-project", test_trace_export_not_in_project);

  return g_test_run ();
}
