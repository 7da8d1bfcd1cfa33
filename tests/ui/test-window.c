/* test-window.c: the main window driving whole sessions, as a user would
 *
 * Against the scripted model server and a real bubblewrap sandbox, in Xvfb
 * with a private session bus (tests/ui/gui-session): what the terminal pane
 * shows, the approval dialog and its three answers, the inline card, the
 * desktop notification and its buttons, and the first-run page.
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <gdk/x11/gdkx.h>
#include <glib/gstdio.h>
#include <string.h>
#include <vte/vte.h>

#include "fake-model.h"
#include "agent/warden-session-store-private.h"
#include "llm/warden-anthropic-provider.h"
#include "engine/warden-docker-client.h"
#include "warden-application.h"
#include "warden-approval-dialog.h"
#include "warden-chat-row.h"
#include "warden-new-session-dialog.h"
#include "warden-renderer.h"
#include "warden-trace-window.h"
#include "warden-window.h"
#include "warden-test-util.h"
#include "x-input.h"

static WardenApplication *app;
static WardenWindow *window;
static FakeModel *fake;
static char *root;

/* ------------------------------------------------------------------------ */

typedef gboolean (*Predicate) (gpointer data);

static gboolean
timeout_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static char *terminal_text (void);
static const char *shown_profile (void);
static GtkWidget *find_mapped_css (GtkWidget  *widget,
                                   const char *css_class);
static GtkWidget *find_css (GtkWidget  *widget,
                            const char *css_class);
static gboolean label_shows (GtkWidget  *widget,
                             const char *text);
static void render_card (WardenChatItem  *item,
                         char           **status,
                         char           **output);

static const char *
nick (GType type,
      int   value)
{
  g_autoptr(GEnumClass) klass = g_type_class_ref (type);
  GEnumValue *v = g_enum_get_value (klass, value);

  return v != NULL ? v->value_nick : "?";
}

/* What the user would see, for a failed wait. */
static void
dump_state (void)
{
  WardenSession *session = warden_window_get_session (window);
  g_autofree char *text = terminal_text ();

  g_printerr ("--- terminal:\n%s\n--- banner: %s\n", text, warden_window_get_banner (window));
  if (session == NULL)
    return;
  if (warden_session_get_agent (session) != NULL)
    g_printerr ("--- session state %s, sandbox %d (%s)\n", warden_session_get_state (session),
                warden_agent_get_sandbox_state (warden_session_get_agent (session)),
                warden_agent_get_sandbox_message (warden_session_get_agent (session)));
  for (guint i = 0; i < g_list_model_get_n_items (warden_session_get_items (session)); i++)
    {
      g_autoptr(WardenChatItem) item = g_list_model_get_item (warden_session_get_items (session), i);

      g_printerr ("--- item %d: %s %s [%s/%s] %s\n", warden_chat_item_get_kind (item),
                  warden_chat_item_get_text (item), warden_chat_item_get_subject (item),
                  nick (WARDEN_TYPE_TOOL_DECISION, warden_chat_item_get_decision (item)),
                  nick (WARDEN_TYPE_TOOL_CALL_STATE, warden_chat_item_get_state (item)),
                  warden_chat_item_get_output (item));
    }
}

/* Runs the main loop until @pred holds; fails the test after @seconds. */
static void
wait_until (Predicate    pred,
            gpointer     data,
            guint        seconds,
            const char  *what)
{
  gboolean expired = FALSE;
  guint id = g_timeout_add_seconds (seconds, timeout_cb, &expired);

  while (!pred (data) && !expired)
    g_main_context_iteration (NULL, TRUE);
  if (!expired)
    g_source_remove (id);
  if (!pred (data))
    {
      dump_state ();
      /* What the screen showed, with WARDEN_SCREENSHOT_DIR set. */
      x_screenshot ("timed-out.png");
      g_error ("Timed out after %u s waiting for %s", seconds, what);
    }
}

static void
spin (guint ms)
{
  gboolean expired = FALSE;

  g_timeout_add (ms, timeout_cb, &expired);
  while (!expired)
    g_main_context_iteration (NULL, TRUE);
}

static gboolean
has_provider (gpointer data)
{
  return warden_application_get_provider (app) != NULL;
}

static gboolean
has_dialog (gpointer data)
{
  return warden_window_get_approval_dialog (window) != NULL;
}

static gboolean
session_idle (gpointer data)
{
  WardenSession *session = warden_window_get_session (window);

  return session != NULL && g_strcmp0 (warden_session_get_state (session), "idle") == 0;
}

static gboolean
session_waiting (gpointer data)
{
  WardenSession *session = warden_window_get_session (window);

  return session != NULL && warden_session_get_pending (session) != NULL;
}

static char *
terminal_text (void)
{
  VteTerminal *vte = warden_terminal_get_vte (warden_window_get_terminal (window));

  return vte_terminal_get_text (vte, NULL, NULL, NULL);
}

static gboolean
terminal_has (gpointer data)
{
  g_autofree char *text = terminal_text ();

  return text != NULL && strstr (text, data) != NULL;
}

static char *
new_workspace (const char *name)
{
  char *path = g_build_filename (root, name, NULL);

  g_mkdir_with_parents (path, 0777);
  g_chmod (path, 0777);
  return path;
}

static WardenSession *
start_session (const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *workspace = new_workspace (name);
  WardenSession *session;

  session = warden_application_create_session (app, workspace, "node",
                                               WARDEN_SANDBOX_KIND_BWRAP, name, &error);
  g_assert_no_error (error);
  g_assert_true (warden_window_select_session (window, warden_session_get_id (session)));
  g_assert_true (warden_window_get_session (window) == session);
  return session;
}

static void
type_and_send (const char *text)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (warden_window_get_composer (window));

  gtk_text_buffer_set_text (buffer, text, -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.send", NULL));
}

/* ------------------------------------------------------------------------ */

/* How many labels on screen say exactly @text. */
static guint
count_mapped_labels (GtkWidget  *widget,
                     const char *text)
{
  guint n = 0;

  if (!gtk_widget_get_mapped (widget))
    return 0;
  if (GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0)
    n++;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    n += count_mapped_labels (c, text);
  return n;
}

static void
test_first_run (void)
{
  /* No key anywhere: the window explains and offers the model preferences;
   * sessions and profiles stay usable. */
  g_assert_null (warden_application_get_provider (app));
  g_assert_cmpstr (warden_window_get_page (window), ==, "setup");
  /* Issue 32, item 7: the name once in the headers, not twice. */
  g_assert_cmpuint (count_mapped_labels (GTK_WIDGET (window), "Warden"), ==, 1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "app.preferences-page", "s",
                                             "model"));
  spin (300);
  {
    gboolean prefs = FALSE;

    for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l; l = l->next)
      if (g_type_is_a (G_OBJECT_TYPE (l->data), ADW_TYPE_PREFERENCES_WINDOW))
        {
          prefs = TRUE;
          x_screenshot ("preferences.png");
          gtk_window_destroy (l->data);
          break;
        }
    g_assert_true (prefs);
  }

  /* Then a key arrives: the window is ready for a task. */
  g_setenv ("ANTHROPIC_API_KEY", "test-key", TRUE);
  g_setenv ("ANTHROPIC_BASE_URL", fake->url, TRUE);
  warden_application_reload_provider (app);
  wait_until (has_provider, NULL, 10, "the provider");
  g_assert_cmpstr (warden_window_get_page (window), ==, "welcome");
}

static void
test_allowed_runs_in_terminal (void)
{
  g_autofree char *text = NULL;

  start_session ("allowed");
  g_queue_push_tail (&fake->script, fake_reply ("Listing.", "exec",
                                                "{\"command\":\"echo hello from the sandbox\"}",
                                                NULL));
  g_queue_push_tail (&fake->script, fake_reply ("It printed a greeting.", NULL));
  type_and_send ("say hello");

  wait_until (terminal_has, "\nhello from the sandbox\n", 60, "the command's output");
  wait_until (session_idle, NULL, 30, "the end of the turn");
  text = terminal_text ();
  /* The prompt line, then the output on its own line. */
  g_assert_nonnull (strstr (text, "allowed $ echo hello from the sandbox"));
  if (strstr (text, "\nhello from the sandbox\n") == NULL)
    dump_state ();
  g_assert_nonnull (strstr (text, "\nhello from the sandbox\n"));
  g_assert_null (warden_window_get_approval_dialog (window));
  g_assert_cmpstr (warden_window_get_page (window), ==, "chat");
}

static GtkWidget *find_by_tooltip (GtkWidget  *widget,
                                   const char *tooltip);
static void       resize_window   (int         width,
                                   int         height);

/* Whether a small-print label (the header's status is one) inside a header
 * bar under @widget shows less than its text. */
static gboolean
has_cut_caption (GtkWidget *widget,
                 gboolean   in_header)
{
  if (!gtk_widget_get_mapped (widget))
    return FALSE;
  in_header |= ADW_IS_HEADER_BAR (widget);
  if (in_header && GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "caption"))
    {
      int natural = 0;

      gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
      if (gtk_widget_get_width (widget) < natural)
        {
          g_test_message ("cut: “%s”, %d of %d px", gtk_label_get_text (GTK_LABEL (widget)),
                          gtk_widget_get_width (widget), natural);
          return TRUE;
        }
    }
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    if (has_cut_caption (c, in_header))
      return TRUE;
  return FALSE;
}

/* Whether no label of the header's status is cut short. */
static gboolean
header_status_whole (gpointer data)
{
  return !has_cut_caption (GTK_WIDGET (window), FALSE);
}

/* The header says what the session used and cost: nothing before the first
 * request, then the sum of its requests, in the header the user sees. */
static void
test_usage_in_header (void)
{
  start_session ("usage");
  g_assert_null (warden_window_get_usage (window));
  g_queue_push_tail (&fake->script, fake_reply ("Listing.", "exec",
                                                "{\"command\":\"echo counted\"}", NULL));
  g_queue_push_tail (&fake->script, fake_reply ("Done.", NULL));
  type_and_send ("count");
  wait_until (session_idle, NULL, 60, "the end of the turn");

  /* Two requests of 12 in and 7 out, at claude-sonnet-4-5's price. */
  g_assert_cmpstr (warden_window_get_usage (window), ==, "24 in · 14 out · <$0.01");

  /* The header's status is read whole, in short, or not at all ("Sand…",
   * "24 i…" say nothing): at the window's default width the cost shows, the
   * whole line in its tooltip; as wide as the screen (1280 px), the
   * sandbox's state too. */
  g_assert_true (header_status_whole (NULL));
  g_assert_true (label_shows (GTK_WIDGET (window), "<$0.01"));
  g_assert_nonnull (find_by_tooltip (GTK_WIDGET (window),
                                     "24 in · 14 out · <$0.01\nTokens this session’s model "
                                     "read and wrote, and what they cost where the model’s "
                                     "price is known"));
  {
    int width = gtk_widget_get_width (GTK_WIDGET (window));
    int height = gtk_widget_get_height (GTK_WIDGET (window));

    resize_window (1280, height);
    wait_until (header_status_whole, NULL, 10, "the header's status whole or in short");
    g_assert_true (label_shows (GTK_WIDGET (window), "Sandbox ready"));
    g_assert_true (label_shows (GTK_WIDGET (window), "<$0.01"));
    resize_window (width, height);
    wait_until (header_status_whole, NULL, 10, "the header's status whole or in short");
  }
}

static void
ping_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  *(int *) user_data = warden_docker_client_ping_finish (WARDEN_DOCKER_CLIENT (object), result,
                                                         NULL) ? 1 : 0;
}

static gboolean
ping_done (gpointer data)
{
  return *(int *) data >= 0;
}

/* The same session in a Docker container, through the Engine API. */
static void
test_docker_session (void)
{
  g_autoptr(WardenDockerClient) client = warden_docker_client_new_from_env (NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *workspace = NULL;
  WardenSession *session;
  int usable = -1;

  if (client != NULL)
    {
      warden_docker_client_ping_async (client, NULL, ping_cb, &usable);
      wait_until (ping_done, &usable, 30, "the Docker engine's answer");
    }
  if (usable != 1)
    {
      if (g_strcmp0 (g_getenv ("CI"), "true") == 0)
        g_test_fail_printf ("no Docker engine, and CI=true");
      else
        g_test_skip ("no Docker engine");
      return;
    }

  workspace = new_workspace ("docker");
  session = warden_application_create_session (app, workspace, "node",
                                               WARDEN_SANDBOX_KIND_DOCKER, "docker", &error);
  g_assert_no_error (error);
  g_assert_true (warden_window_select_session (window, warden_session_get_id (session)));
  g_assert_cmpint (warden_session_get_sandbox (session), ==, WARDEN_SANDBOX_KIND_DOCKER);

  g_queue_push_tail (&fake->script, fake_reply ("Hello.", "exec",
                                                "{\"command\":\"echo from the container\"}",
                                                NULL));
  g_queue_push_tail (&fake->script, fake_reply ("Done.", NULL));
  type_and_send ("say hello");
  wait_until (terminal_has, "\nfrom the container\n", 120, "the container's output");
  wait_until (session_idle, NULL, 30, "the end of the turn");
  g_assert_cmpint (warden_agent_get_sandbox_state (warden_session_get_agent (session)), ==,
                   WARDEN_SANDBOX_STATE_READY);
  /* The header names the engine that runs it. */
  g_assert_true (g_str_has_prefix (warden_window_get_sandbox_status (window),
                                   "Sandbox ready · Docker "));
  x_screenshot ("docker-session.png");

  /* Closed, the container goes, and the header says so. */
  {
    GAsyncResult *result = NULL;

    warden_session_close_async (session, NULL, warden_test_keep_result_cb, &result);
    while (result == NULL)
      g_main_context_iteration (NULL, TRUE);
    g_assert_true (warden_session_close_finish (session, result, &error));
    g_assert_no_error (error);
    g_object_unref (result);
  }
  g_assert_cmpstr (warden_window_get_sandbox_status (window), ==, "Sandbox stopped");
}

static gboolean
dialog_armed (gpointer data)
{
  GtkWidget *dialog = warden_window_get_approval_dialog (window);

  /* A question has no approving button to wait for. */
  return dialog != NULL &&
         (!adw_message_dialog_has_response (ADW_MESSAGE_DIALOG (dialog), "once") ||
          adw_message_dialog_get_response_enabled (ADW_MESSAGE_DIALOG (dialog), "once"));
}

/* As the user gets it: shown, and past the moment its approving buttons sleep. */
static WardenApprovalDialog *
wait_for_dialog (void)
{
  wait_until (has_dialog, NULL, 30, "the approval dialog");
  wait_until (dialog_armed, NULL, 10, "the approval dialog's buttons");
  return WARDEN_APPROVAL_DIALOG (warden_window_get_approval_dialog (window));
}

static void
test_allow_once (void)
{
  WardenSession *session = start_session ("once");
  g_autofree char *made = g_build_filename (root, "once", "made-by-agent", NULL);
  WardenApprovalDialog *dialog;

  g_autofree char *notes = g_build_filename (root, "once", "NOTES.md", NULL);

  /* An edit after the command, for the main window's screenshot: its card
   * shows the change as a coloured diff. */
  g_assert_true (g_file_set_contents (notes, "# Notes\n\nThe build runs `make`.\n"
                                      "Tests: none yet.\n", -1, NULL));
  g_queue_push_tail (&fake->script, fake_reply ("Creating it.", "exec",
                                                "{\"command\":\"touch made-by-agent && echo touched\"}",
                                                NULL));
  g_queue_push_tail (&fake->script,
                     fake_reply ("And noting it.", "edit",
                                 "{\"path\":\"NOTES.md\",\"old_string\":\"Tests: none yet.\\n\","
                                 "\"new_string\":\"Tests: none yet.\\nmade-by-agent marks a "
                                 "finished build.\\n\"}", NULL));
  /* A fenced block, so that the screenshot shows code in its colours. */
  g_queue_push_tail (&fake->script, fake_reply ("Done: the file is there, and NOTES.md says "
                                                "what it is for. To check it:\n\n```sh\n"
                                                "test -f made-by-agent && echo \"built\"  "
                                                "# $? is 0\n```", NULL));
  type_and_send ("make a file");

  dialog = wait_for_dialog ();
  /* Nothing ran before the user answered. */
  g_assert_false (g_file_test (made, G_FILE_TEST_EXISTS));
  g_assert_cmpstr (warden_approval_get_subject (warden_session_get_pending (session)), ==,
                   "touch made-by-agent && echo touched");
  x_screenshot ("approval-dialog.png");

  warden_approval_dialog_respond (dialog, "once");
  wait_until (terminal_has, "\ntouched\n", 30, "the approved command's output");
  wait_until (session_idle, NULL, 30, "the end of the turn");
  g_assert_true (g_file_test (made, G_FILE_TEST_EXISTS));
  g_assert_null (warden_window_get_approval_dialog (window));
  {
    g_autofree char *edited = NULL;

    g_assert_true (g_file_get_contents (notes, &edited, NULL, NULL));
    g_assert_nonnull (strstr (edited, "made-by-agent marks a finished build."));
  }
  x_screenshot ("main-window.png");
}

static void
test_reject_with_feedback (void)
{
  g_autofree char *last = NULL;
  WardenApprovalDialog *dialog;
  guint requests;

  start_session ("reject");
  g_queue_push_tail (&fake->script, fake_reply ("Cleaning.", "exec",
                                                "{\"command\":\"rm -rf build\"}", NULL));
  g_queue_push_tail (&fake->script, fake_reply ("I will use make clean.", NULL));
  type_and_send ("clean up");

  dialog = wait_for_dialog ();
  requests = fake->requests->len;
  gtk_editable_set_text (warden_approval_dialog_get_feedback_entry (dialog),
                         "use make clean instead");
  warden_approval_dialog_respond (dialog, "reject");
  wait_until (session_idle, NULL, 30, "the end of the turn");

  /* The model heard the user's words. */
  g_assert_cmpuint (fake->requests->len, ==, requests + 1);
  last = fake_model_last_message (fake, fake->requests->len - 1);
  g_assert_nonnull (strstr (last, "use make clean instead"));
  g_assert_false (terminal_has ("$ rm -rf build"));
}

static GtkWidget *find_labelled_button (GtkWidget  *widget,
                                       const char *label);
static void       click_widget         (GtkWidget  *widget,
                                       int         button,
                                       int         repeat);

static gboolean
widget_sensitive (gpointer data)
{
  return gtk_widget_is_sensitive (data);
}

static void
test_always_allow_saves_pattern (void)
{
  g_autofree char *custom = g_build_filename (g_get_user_config_dir (), "warden", "profiles",
                                              "node-custom.json", NULL);
  g_autofree char *contents = NULL;
  WardenSession *session;
  WardenApprovalDialog *dialog;

  session = start_session ("always");
  g_queue_push_tail (&fake->script, fake_reply ("Counting.", "exec",
                                                "{\"command\":\"sort /etc/hostname\"}", NULL));
  g_queue_push_tail (&fake->script, fake_reply ("Counted.", NULL));
  type_and_send ("count");

  dialog = wait_for_dialog ();
  /* As the user does it: the pattern typed over, then the button clicked. */
  {
    GtkWidget *entry = GTK_WIDGET (warden_approval_dialog_get_pattern_entry (dialog));
    GtkWidget *always = find_labelled_button (GTK_WIDGET (dialog), "_Always allow");

    g_assert_nonnull (always);
    click_widget (entry, 1, 1);
    x_xdotool ("key ctrl+a");
    x_xdotool ("type --delay 20 'sort *'");
    wait_until (widget_sensitive, always, 10, "Always allow to wake up");
    g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry)), ==, "sort *");
    click_widget (always, 1, 1);
  }
  wait_until (session_idle, NULL, 30, "the end of the turn");

  g_assert_true (g_file_get_contents (custom, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "\"sort *\""));
  g_assert_cmpstr (warden_session_get_profile (session), ==, "node-custom");
  /* Issue 14, item 4: the header shows the session's new profile by its name. */
  g_assert_cmpstr (shown_profile (), ==, "Node.js (yours)");
  /* Issue 30, item 1: the copy is where new sessions start, here and in
   * warden-cli (which reads the same setting). */
  {
    g_autofree char *default_profile =
      g_settings_get_string (warden_application_get_settings (app), "default-profile");

    g_assert_cmpstr (default_profile, ==, "node-custom");
    g_settings_reset (warden_application_get_settings (app), "default-profile");
  }
  wait_until (terminal_has, "always $ sort /etc/hostname", 5, "the command's prompt line");

  /* The same kind of command now runs without asking. */
  g_queue_push_tail (&fake->script, fake_reply ("Again.", "exec",
                                                "{\"command\":\"sort -r /etc/hostname\"}", NULL));
  g_queue_push_tail (&fake->script, fake_reply ("Done.", NULL));
  type_and_send ("count lines");
  wait_until (terminal_has, "always $ sort -r /etc/hostname", 30, "the second command");
  wait_until (session_idle, NULL, 30, "the end of the turn");
  g_assert_null (warden_window_get_approval_dialog (window));
}

static void
test_inline_card (void)
{
  WardenSession *session = start_session ("card");
  WardenApproval *pending;
  WardenChatItem *item;

  g_queue_push_tail (&fake->script, fake_reply (NULL, "exec", "{\"command\":\"id\"}", NULL));
  g_queue_push_tail (&fake->script, fake_reply ("There.", NULL));
  type_and_send ("where am I");

  wait_for_dialog ();
  /* Dismissed, the question stays in the chat as a card. */
  gtk_window_close (GTK_WINDOW (warden_window_get_approval_dialog (window)));
  spin (200);
  pending = warden_session_get_pending (session);
  g_assert_nonnull (pending);
  item = warden_session_find_item (session, warden_approval_get_id (pending));
  g_assert_true (warden_chat_item_get_approval (item) == pending);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.approval-answer",
                                             "(sbbs)", warden_approval_get_id (pending),
                                             TRUE, FALSE, ""));
  wait_until (terminal_has, "card $ id", 30, "the command");
  wait_until (session_idle, NULL, 30, "the end of the turn");
  g_assert_null (warden_chat_item_get_approval (item));
  g_assert_cmpint (warden_chat_item_get_decision (item), ==, WARDEN_TOOL_DECISION_APPROVED);
  g_assert_cmpint (warden_chat_item_get_exit_status (item), ==, 0);
}

static void
x_focus (GtkWidget *toplevel)
{
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (toplevel));
  g_autofree char *args = g_strdup_printf ("windowfocus --sync %lu",
                                           (gulong) gdk_x11_surface_get_xid (surface));

  x_xdotool (args);
  spin (200);
}

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

static gboolean
review_shown (gpointer data)
{
  GtkWidget *button = find_labelled_button (GTK_WIDGET (window), "_Review");
  GtkWidget *revealer = button ? gtk_widget_get_ancestor (button, GTK_TYPE_REVEALER) : NULL;

  return revealer != NULL && gtk_revealer_get_child_revealed (GTK_REVEALER (revealer)) &&
         gtk_widget_get_mapped (button);
}

static gboolean
review_gone (gpointer data)
{
  GtkWidget *button = find_labelled_button (GTK_WIDGET (window), "_Review");

  return button == NULL || !gtk_widget_get_mapped (button);
}

static gboolean
no_dialog (gpointer data)
{
  return !has_dialog (data);
}

/* Issue 13: closed with Escape, the dialog came back as soon as the window
 * was active again, took the keys meant for the window, and Return ran the
 * command. Dismissed, it stays dismissed: a bar in the window says what waits,
 * and Review brings the dialog back. */
static void
test_dismissed_stays_dismissed (void)
{
  WardenSession *session = start_session ("dismissed");
  g_autofree char *made = g_build_filename (root, "dismissed", "stray", NULL);
  g_autofree char *id = NULL;
  WardenChatItem *item;
  GtkWidget *review;

  g_queue_push_tail (&fake->script, fake_reply (NULL, "exec", "{\"command\":\"touch stray\"}",
                                                NULL));
  g_queue_push_tail (&fake->script, fake_reply ("Not run.", NULL));
  type_and_send ("make it");

  wait_for_dialog ();
  id = g_strdup (warden_approval_get_id (warden_session_get_pending (session)));
  g_assert_false (review_shown (NULL));

  x_focus (warden_window_get_approval_dialog (window));
  x_xdotool ("key Escape");
  wait_until (no_dialog, NULL, 10, "the dialog to close on Escape");
  wait_until (review_shown, NULL, 10, "the Review bar");
  x_screenshot ("approval-review-bar.png");

  /* The user comes back to the window and types what they meant for it. */
  x_focus (GTK_WIDGET (window));
  g_assert_true (gtk_window_is_active (GTK_WINDOW (window)));
  g_assert_null (warden_window_get_approval_dialog (window));
  x_xdotool ("key Tab Return ctrl+n");
  spin (500);
  /* New Session opened (Ctrl+N): closed unused. It is not an application
   * window, so it is looked for among all toplevels. */
  g_assert_nonnull (warden_window_get_new_session_dialog (window));
  for (guint i = g_list_model_get_n_items (gtk_window_get_toplevels ()); i > 0; i--)
    {
      g_autoptr(GtkWindow) other = g_list_model_get_item (gtk_window_get_toplevels (), i - 1);

      /* Shown ones only: the shortcuts window waits hidden for Ctrl+?. */
      if (other != GTK_WINDOW (window) && gtk_widget_get_visible (GTK_WIDGET (other)))
        gtk_window_destroy (other);
    }
  g_assert_null (warden_window_get_new_session_dialog (window));
  x_focus (GTK_WIDGET (window));
  x_xdotool ("key Return Tab Return");
  spin (500);

  /* Nothing approved, nothing opened on its own. */
  g_assert_true (warden_window_get_session (window) == session);
  g_assert_nonnull (warden_session_get_pending (session));
  g_assert_cmpstr (warden_approval_get_id (warden_session_get_pending (session)), ==, id);
  item = warden_session_find_item (session, id);
  g_assert_nonnull (warden_chat_item_get_approval (item));
  g_assert_null (warden_window_get_approval_dialog (window));
  g_assert_false (g_file_test (made, G_FILE_TEST_EXISTS));
  g_assert_true (review_shown (NULL));

  /* Asked for, it comes back. */
  review = find_labelled_button (GTK_WIDGET (window), "_Review");
  g_signal_emit_by_name (review, "clicked");
  wait_for_dialog ();
  g_assert_cmpstr (warden_approval_dialog_get_approval_id (WARDEN_APPROVAL_DIALOG (warden_window_get_approval_dialog (window))),
                   ==, id);
  wait_until (review_gone, NULL, 10, "the Review bar to go");
  warden_approval_dialog_respond (WARDEN_APPROVAL_DIALOG (warden_window_get_approval_dialog (window)),
                                  "reject");
  wait_until (session_idle, NULL, 30, "the end of the turn");
  g_assert_false (g_file_test (made, G_FILE_TEST_EXISTS));
  g_assert_false (review_shown (NULL));
}

/* Issue 13, item 2, as the user meets it: a command that hides its real
 * part below 40 empty lines and behind a direction override. The dialog
 * keeps its buttons on screen; the card in the chat shows escapes, not a
 * command that reads otherwise. */
static void
test_spoofed_command (void)
{
  WardenSession *session = start_session ("spoofed");
  g_autoptr(GString) json = g_string_new ("{\"command\":\"npm test");
  g_autofree char *made = g_build_filename (root, "spoofed", "spoofed", NULL);
  WardenApprovalDialog *dialog;
  GtkWidget *subject, *reject;
  graphene_rect_t bounds;
  const char *shown;

  for (guint i = 0; i < 40; i++)
    g_string_append (json, "\\n");
  g_string_append (json, "echo hi \\u202e; touch spoofed \\u202c #\\u202c\"}");
  g_queue_push_tail (&fake->script, fake_reply ("Running the tests \u202eafter all.", "exec",
                                                json->str, NULL));
  g_queue_push_tail (&fake->script, fake_reply ("Fine.", NULL));
  type_and_send ("test it");

  dialog = wait_for_dialog ();
  spin (300);
  x_screenshot ("approval-spoofed.png");
  /* What the agent said before it asked, as context, hidden characters shown. */
  g_assert_true (label_shows (GTK_WIDGET (dialog), "The agent said before asking:"));
  g_assert_true (label_shows (GTK_WIDGET (dialog), "Running the tests \\u202eafter all."));
  g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (dialog)), <=,
                   gtk_widget_get_height (GTK_WIDGET (window)));
  reject = find_labelled_button (GTK_WIDGET (dialog), "_Reject");
  g_assert_true (gtk_widget_get_mapped (reject));
  g_assert_true (gtk_widget_compute_bounds (reject, GTK_WIDGET (dialog), &bounds));
  g_assert_cmpfloat (bounds.origin.y + bounds.size.height, <=,
                     gtk_widget_get_height (GTK_WIDGET (dialog)));

  subject = find_css (GTK_WIDGET (window), "tool-subject");
  g_assert_nonnull (subject);
  shown = gtk_label_get_text (GTK_LABEL (subject));
  g_assert_null (strchr (shown, '\n'));
  g_assert_null (strstr (shown, "\u202e"));
  g_assert_nonnull (strstr (shown, "npm test\\n\\n"));
  g_assert_nonnull (strstr (shown, "echo hi \\u202e; touch spoofed \\u202c #\\u202c"));

  warden_approval_dialog_respond (dialog, "reject");
  wait_until (session_idle, NULL, 30, "the end of the turn");
  g_assert_false (g_file_test (made, G_FILE_TEST_EXISTS));
  g_assert_null (warden_session_get_pending (session));
}


/* A 200-line command as the user meets it: the dialog stays within the
 * window, the command scrolls with its line numbers, the buttons stay. */
static void
test_long_command (void)
{
  WardenSession *session = start_session ("long");
  g_autoptr(GString) json = g_string_new ("{\"command\":\"");
  WardenApprovalDialog *dialog;
  GtkWidget *reject;
  graphene_rect_t bounds;

  for (guint i = 1; i <= 200; i++)
    g_string_append_printf (json, "mkdir -p build/step-%u/of-a-long-script%s", i,
                            i < 200 ? "\\n" : "");
  g_string_append (json, "\"}");
  g_queue_push_tail (&fake->script, fake_reply ("A long one.", "exec", json->str, NULL));
  g_queue_push_tail (&fake->script, fake_reply ("Fine.", NULL));
  type_and_send ("run the long script");

  dialog = wait_for_dialog ();
  spin (300);
  x_screenshot ("approval-long.png");
  g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (dialog)), <=,
                   gtk_widget_get_height (GTK_WIDGET (window)));
  g_assert_true (label_shows (GTK_WIDGET (dialog), "This command has 200 lines."));
  reject = find_labelled_button (GTK_WIDGET (dialog), "_Reject");
  g_assert_true (gtk_widget_get_mapped (reject));
  g_assert_true (gtk_widget_compute_bounds (reject, GTK_WIDGET (dialog), &bounds));
  g_assert_cmpfloat (bounds.origin.y + bounds.size.height, <=,
                     gtk_widget_get_height (GTK_WIDGET (dialog)));
  warden_approval_dialog_respond (dialog, "reject");
  wait_until (session_idle, NULL, 30, "the end of the turn");
  g_assert_null (warden_session_get_pending (session));
}


/* An approval that arrives while the user is typing does not take the
 * keyboard: no dialog, the Review bar, and what was typed stays. */
static void
test_approval_while_typing (void)
{
  WardenSession *session = start_session ("typing");
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (warden_window_get_composer (window));
  g_autofree char *made = g_build_filename (root, "typing", "typed", NULL);
  g_autofree char *kept = NULL;
  GtkTextIter start, end;

  g_queue_push_tail (&fake->script,
                     fake_reply (NULL, "exec", "{\"command\":\"touch typed\"}", NULL));
  g_queue_push_tail (&fake->script, fake_reply ("Fine.", NULL));
  type_and_send ("make it");
  /* The next thought, typed before the model answers. */
  gtk_text_buffer_set_text (buffer, "and then also", -1);
  gtk_widget_grab_focus (GTK_WIDGET (warden_window_get_composer (window)));
  wait_until (session_waiting, NULL, 30, "the approval");
  spin (300);
  g_assert_null (warden_window_get_approval_dialog (window));
  wait_until (review_shown, NULL, 10, "the Review bar");
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  kept = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  g_assert_cmpstr (kept, ==, "and then also");
  g_assert_false (g_file_test (made, G_FILE_TEST_EXISTS));

  gtk_text_buffer_set_text (buffer, "", -1);
  g_signal_emit_by_name (find_labelled_button (GTK_WIDGET (window), "_Review"), "clicked");
  warden_approval_dialog_respond (wait_for_dialog (), "reject");
  wait_until (session_idle, NULL, 30, "the end of the turn");
  g_assert_null (warden_session_get_pending (session));
}

static void
test_question (void)
{
  g_autofree char *last = NULL;
  WardenApprovalDialog *dialog;
  WardenSession *session;

  session = start_session ("question");
  g_queue_push_tail (&fake->script,
                     fake_reply ("One thing first.", "ask_user",
                                 "{\"question\":\"Which test runner?\","
                                 "\"choices\":[\"jest\",\"vitest\"]}", NULL));
  g_queue_push_tail (&fake->script, fake_reply ("Vitest it is.", NULL));
  type_and_send ("add tests");

  dialog = wait_for_dialog ();
  g_assert_cmpint (warden_approval_get_kind (warden_session_get_pending (session)), ==,
                   WARDEN_APPROVAL_QUESTION);
  warden_approval_dialog_respond (dialog, "choice-1");
  wait_until (session_idle, NULL, 30, "the end of the turn");
  last = fake_model_last_message (fake, fake->requests->len - 1);
  g_assert_nonnull (strstr (last, "vitest"));
}

/* The header's dropdown of profiles, by name. */
static GtkDropDown *
profile_dropdown (void)
{
  for (GtkWidget *w = gtk_widget_get_first_child (GTK_WIDGET (window)); w != NULL;)
    {
      if (GTK_IS_DROP_DOWN (w))
        return GTK_DROP_DOWN (w);
      if (gtk_widget_get_first_child (w) != NULL)
        w = gtk_widget_get_first_child (w);
      else
        {
          while (w != NULL && gtk_widget_get_next_sibling (w) == NULL)
            w = gtk_widget_get_parent (w);
          if (w != NULL)
            w = gtk_widget_get_next_sibling (w);
        }
    }
  return NULL;
}

/* The profile the header's dropdown shows. */
static const char *
shown_profile (void)
{
  GtkDropDown *dropdown = profile_dropdown ();
  guint selected = gtk_drop_down_get_selected (dropdown);

  if (selected == GTK_INVALID_LIST_POSITION)
    return NULL;
  return gtk_string_list_get_string (GTK_STRING_LIST (gtk_drop_down_get_model (dropdown)),
                                     selected);
}

static void
test_switch_profile (void)
{
  WardenSession *session = start_session ("switch");
  GtkDropDown *dropdown = profile_dropdown ();
  GListModel *model;
  guint strict = GTK_INVALID_LIST_POSITION;

  g_assert_nonnull (dropdown);
  model = gtk_drop_down_get_model (dropdown);
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    if (g_strcmp0 (gtk_string_list_get_string (GTK_STRING_LIST (model), i), "Strict") == 0)
      strict = i;
  g_assert_cmpuint (strict, !=, GTK_INVALID_LIST_POSITION);
  gtk_drop_down_set_selected (dropdown, strict);
  g_assert_cmpstr (warden_session_get_profile (session), ==, "strict");

  /* strict allows no echo: the command now asks. */
  g_queue_push_tail (&fake->script, fake_reply (NULL, "exec", "{\"command\":\"echo hi\"}",
                                                NULL));
  g_queue_push_tail (&fake->script, fake_reply ("Ok.", NULL));
  type_and_send ("greet");
  warden_approval_dialog_respond (wait_for_dialog (), "reject");
  wait_until (session_idle, NULL, 30, "the end of the turn");
}

static gboolean provider_at (gpointer data);

/* The model is unreachable: the window says so and offers to retry. */
static void
test_network_error_banner (void)
{
  g_autofree char *url = g_strdup (fake->url);
  WardenSession *session;

  g_setenv ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9", TRUE);
  warden_application_reload_provider (app);
  wait_until (provider_at, "http://127.0.0.1:9", 30, "the unreachable model to be set up");
  session = start_session ("offline");
  type_and_send ("anything");
  wait_until (session_idle, NULL, 60, "the failed turn");
  g_assert_nonnull (warden_window_get_banner (window));
  g_test_message ("banner: %s", warden_window_get_banner (window));

  g_setenv ("ANTHROPIC_BASE_URL", url, TRUE);
  warden_application_reload_provider (app);
  wait_until (provider_at, url, 30, "the model to be set up again");
  (void) session;
}


/* A model server that takes the request and never answers. */
static void
silent_handler (SoupServer        *server,
                SoupServerMessage *msg,
                const char        *path,
                GHashTable        *query,
                gpointer           user_data)
{
  soup_server_message_pause (msg);
}

static gboolean
provider_at (gpointer data)
{
  WardenLlmProvider *provider = warden_application_get_provider (app);
  g_autofree char *want = g_strdup (data);

  /* The provider may drop a trailing slash. */
  if (g_str_has_suffix (want, "/"))
    want[strlen (want) - 1] = '\0';
  return provider != NULL && g_strcmp0 (warden_llm_provider_get_base_url (provider), want) == 0;
}

static gboolean
banner_says_silent (gpointer data)
{
  const char *banner = warden_window_get_banner (window);

  return banner != NULL && strstr (banner, "has not answered") != NULL;
}

/* The model says nothing: the window tells the user, keeps waiting, and takes
 * the notice back when the step ends (here: Stop). */
static void
test_silent_model_banner (void)
{
  g_autofree char *url = g_strdup (fake->url);
  g_autoptr(SoupServer) server = soup_server_new (NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoslist(GUri) uris = NULL;
  g_autofree char *silent_url = NULL;
  WardenSession *session;

  soup_server_add_handler (server, NULL, silent_handler, NULL, NULL);
  g_assert_true (soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  uris = soup_server_get_uris (server);
  silent_url = g_uri_to_string (uris->data);
  g_setenv ("ANTHROPIC_BASE_URL", silent_url, TRUE);
  warden_application_reload_provider (app);
  wait_until (provider_at, silent_url, 30, "the silent model to be set up");
  warden_llm_provider_set_waiting_notice (warden_application_get_provider (app), 1);
  session = start_session ("silent");
  type_and_send ("anything");
  wait_until (banner_says_silent, NULL, 60, "the notice that the model is silent");
  g_test_message ("banner: %s", warden_window_get_banner (window));
  warden_session_stop (session);
  wait_until (session_idle, NULL, 60, "the stopped turn");
  g_assert_false (banner_says_silent (NULL));

  g_setenv ("ANTHROPIC_BASE_URL", url, TRUE);
  warden_application_reload_provider (app);
  wait_until (provider_at, url, 30, "the model to be set up again");
}

/* Warden died while a command waited: the approval is asked again. */
static void
test_pending_survives_restart (void)
{
  g_autofree char *workspace = new_workspace ("restart");
  g_autofree char *made = g_build_filename (workspace, "after-restart", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSessionStore) store = NULL;
  g_autoptr(WardenProfileStore) profiles = NULL;
  g_autoptr(WardenLlmProvider) provider = NULL;
  g_autoptr(WardenAgent) agent = NULL;
  g_autofree char *id = NULL;
  WardenAgentConfig config = { 0 };
  WardenAgentOutcome outcome = WARDEN_AGENT_FINISHED;
  GAsyncResult *result = NULL;

  /* Another Warden (same database) runs until it waits, then is gone. */
  store = warden_session_store_new (NULL, &error);
  g_assert_no_error (error);
  profiles = warden_profile_store_new (NULL);
  provider = warden_anthropic_provider_new ("test-key", fake->url, "fake-model");
  config.workspace = workspace;
  config.profile = (char *) "node";
  config.sandbox = WARDEN_SANDBOX_KIND_BWRAP;
  agent = warden_agent_new (store, profiles, provider, &config, &error);
  g_assert_no_error (error);
  g_queue_push_tail (&fake->script, fake_reply (NULL, "exec",
                                                "{\"command\":\"touch after-restart\"}", NULL));
  warden_agent_run_async (agent, "make it", NULL, warden_test_keep_result_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (warden_agent_run_finish (agent, result, &outcome, &error));
  g_assert_cmpint (outcome, ==, WARDEN_AGENT_WAITING);
  g_object_unref (result);
  id = g_strdup (warden_agent_get_session_id (agent));
  g_clear_object (&agent);

  /* This Warden opens it: the dialog asks again, and approving runs it once. */
  g_queue_push_tail (&fake->script, fake_reply ("Made.", NULL));
  g_assert_true (warden_window_select_session (window, id));
  warden_approval_dialog_respond (wait_for_dialog (), "once");
  wait_until (session_idle, NULL, 30, "the end of the turn");
  g_assert_true (g_file_test (made, G_FILE_TEST_EXISTS));
}

/* A command that waited when Warden stopped is asked again in the window
 * as it was asked the first time: the folder it runs in and the
 * environment it runs with show, as they did then. */
static void
test_resumed_approval_same (void)
{
  g_autofree char *workspace = new_workspace ("resumed-same");
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSessionStore) store = NULL;
  g_autoptr(WardenProfileStore) profiles = NULL;
  g_autoptr(WardenLlmProvider) provider = NULL;
  g_autoptr(WardenAgent) agent = NULL;
  g_autoptr(WardenApproval) fresh = NULL;
  g_autofree char *id = NULL;
  WardenAgentConfig config = { 0 };
  WardenAgentOutcome outcome = WARDEN_AGENT_FINISHED;
  GAsyncResult *result = NULL;
  WardenApprovalDialog *dialog;

  store = warden_session_store_new (NULL, &error);
  g_assert_no_error (error);
  profiles = warden_profile_store_new (NULL);
  provider = warden_anthropic_provider_new ("test-key", fake->url, "fake-model");
  config.workspace = workspace;
  config.profile = (char *) "node";
  config.sandbox = WARDEN_SANDBOX_KIND_BWRAP;
  agent = warden_agent_new (store, profiles, provider, &config, &error);
  g_assert_no_error (error);
  g_queue_push_tail (&fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"echo hi\", \"cwd\": "
                                 "\"/workspace/sub\", \"env\": {\"LD_PRELOAD\": "
                                 "\"/workspace/evil.so\"}}", NULL));
  warden_agent_run_async (agent, "greet", NULL, warden_test_keep_result_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (warden_agent_run_finish (agent, result, &outcome, &error));
  g_assert_cmpint (outcome, ==, WARDEN_AGENT_WAITING);
  g_object_unref (result);
  fresh = g_object_ref (warden_agent_get_pending (agent));
  id = g_strdup (warden_agent_get_session_id (agent));
  g_clear_object (&agent);

  g_queue_push_tail (&fake->script, fake_reply ("Not then.", NULL));
  g_assert_true (warden_window_select_session (window, id));
  dialog = wait_for_dialog ();
  warden_test_assert_same_approval (fresh,
                                    warden_session_get_pending (warden_window_get_session (window)));
  g_assert_true (label_shows (GTK_WIDGET (dialog), "/workspace/sub"));
  g_assert_true (label_shows (GTK_WIDGET (dialog), "LD_PRELOAD=/workspace/evil.so"));
  x_screenshot ("approval-resumed.png");
  warden_approval_dialog_respond (dialog, "reject");
  wait_until (session_idle, NULL, 30, "the end of the turn");
}

/* A session opened again shows what its writes and edits changed, as the
 * user saw it when they ran. */
static void
test_reopened_diff (void)
{
  g_autofree char *workspace = new_workspace ("reopened-diff");
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSessionStore) store = NULL;
  g_autoptr(WardenProfileStore) profiles = NULL;
  g_autoptr(WardenLlmProvider) provider = NULL;
  g_autoptr(WardenAgent) agent = NULL;
  g_autofree char *id = NULL;
  WardenAgentConfig config = { 0 };
  WardenAgentOutcome outcome = WARDEN_AGENT_WAITING;
  GAsyncResult *result = NULL;
  GListModel *items;
  guint diffs = 0;

  store = warden_session_store_new (NULL, &error);
  g_assert_no_error (error);
  profiles = warden_profile_store_new (NULL);
  provider = warden_anthropic_provider_new ("test-key", fake->url, "fake-model");
  config.workspace = workspace;
  config.profile = (char *) "node";
  config.sandbox = WARDEN_SANDBOX_KIND_BWRAP;
  agent = warden_agent_new (store, profiles, provider, &config, &error);
  g_assert_no_error (error);
  g_queue_push_tail (&fake->script,
                     fake_reply (NULL, "write", "{\"path\": \"hello.txt\", \"content\": "
                                 "\"hello\\n\"}", NULL));
  g_queue_push_tail (&fake->script, fake_reply ("Written.", NULL));
  warden_agent_run_async (agent, "write", NULL, warden_test_keep_result_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (warden_agent_run_finish (agent, result, &outcome, &error));
  g_assert_cmpint (outcome, ==, WARDEN_AGENT_FINISHED);
  g_object_unref (result);
  id = g_strdup (warden_agent_get_session_id (agent));
  g_clear_object (&agent);

  g_assert_true (warden_window_select_session (window, id));
  items = warden_session_get_items (warden_window_get_session (window));
  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr(WardenChatItem) item = g_list_model_get_item (items, i);

      if (warden_chat_item_get_kind (item) != WARDEN_CHAT_ITEM_TOOL)
        continue;
      g_assert_cmpstr (warden_chat_item_get_diff (item), ==, "@@ -0,0 +1 @@\n+hello\n");
      /* And its checkpoint, to restore to, read back from the store. */
      g_assert_cmpint (warden_chat_item_get_step (item), ==, 1);
      diffs++;
    }
  g_assert_cmpuint (diffs, ==, 1);
}

static gboolean
label_shows (GtkWidget  *widget,
             const char *text)
{
  if (!gtk_widget_get_mapped (widget))
    return FALSE;
  if (GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), text) != NULL)
    return TRUE;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    if (label_shows (c, text))
      return TRUE;
  return FALSE;
}

static guint
count_notices (WardenSession *session,
               const char    *text)
{
  GListModel *items = warden_session_get_items (session);
  guint n = 0;

  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr(WardenChatItem) item = g_list_model_get_item (items, i);

      n += warden_chat_item_get_kind (item) == WARDEN_CHAT_ITEM_NOTICE &&
           strstr (warden_chat_item_get_text (item), text) != NULL;
    }
  return n;
}

static gboolean
window_shows_host_warning (gpointer data)
{
  return label_shows (GTK_WIDGET (window), "This session has no sandbox");
}

/* A session on the host backend says, in the chat, that nothing confines
 * its commands: when it starts, and when it is opened again later. */
static void
test_host_warning (void)
{
  g_autofree char *workspace = new_workspace ("host");
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSessionStore) store = NULL;
  g_autoptr(WardenProfileStore) profiles = NULL;
  g_autoptr(WardenLlmProvider) provider = NULL;
  g_autoptr(WardenAgent) agent = NULL;
  g_autofree char *id = NULL;
  WardenAgentConfig config = { 0 };
  WardenSession *session;

  session = warden_application_create_session (app, workspace, "node",
                                               WARDEN_SANDBOX_KIND_HOST, "on the host", &error);
  g_assert_no_error (error);
  g_assert_true (warden_window_select_session (window, warden_session_get_id (session)));
  g_assert_cmpuint (count_notices (session, "no sandbox"), ==, 1);
  wait_until (window_shows_host_warning, NULL, 10, "the host warning in the chat");

  /* Started by another Warden (the CLI, say), opened here. */
  store = warden_session_store_new (NULL, &error);
  g_assert_no_error (error);
  profiles = warden_profile_store_new (NULL);
  provider = warden_anthropic_provider_new ("test-key", fake->url, "fake-model");
  config.workspace = workspace;
  config.profile = (char *) "node";
  config.sandbox = WARDEN_SANDBOX_KIND_HOST;
  agent = warden_agent_new (store, profiles, provider, &config, &error);
  g_assert_no_error (error);
  id = g_strdup (warden_agent_get_session_id (agent));
  g_clear_object (&agent);
  g_assert_true (warden_window_select_session (window, id));
  session = warden_window_get_session (window);
  g_assert_cmpuint (count_notices (session, "no sandbox"), ==, 1);
  wait_until (window_shows_host_warning, NULL, 10, "the host warning in the opened session");

  /* A sandboxed session has none. */
  session = start_session ("sandboxed");
  g_assert_cmpuint (count_notices (session, "no sandbox"), ==, 0);
}

/* The window cannot start a session in $HOME either, whatever the dialog did. */
static void
test_refused_workspace (void)
{
  g_autoptr(GError) error = NULL;

  g_assert_null (warden_application_create_session (app, g_get_home_dir (), "node",
                                                    WARDEN_SANDBOX_KIND_BWRAP, "home", &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "cannot be a workspace"));
}

/* 10,000 messages: the list makes widgets for what is on screen only. */
static void
test_long_session (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSessionStore) store = warden_session_store_new (NULL, &error);
  g_autoptr(WardenSessionRecord) info = warden_session_record_new ();
  g_autofree char *workspace = new_workspace ("long");
  GtkListView *view;
  guint rows = 0;
  gint64 start;

  info->title = g_strdup ("long");
  info->workspace = g_strdup (workspace);
  info->profile = g_strdup ("node");
  info->sandbox = g_strdup ("bwrap");
  g_assert_true (warden_session_store_save_session (store, info, &error));
  for (guint i = 0; i < 10000; i++)
    {
      g_autofree char *json = g_strdup_printf ("{\"role\":\"%s\",\"content\":[{\"type\":"
                                               "\"text\",\"text\":\"message %u with **bold** "
                                               "and `code`\"}]}",
                                               i % 2 ? "assistant" : "user", i);

      g_assert_true (warden_session_store_append_message (store, info->id, i, json, 0, 0, &error));
    }

  start = g_get_monotonic_time ();
  g_assert_true (warden_window_select_session (window, info->id));
  spin (500);
  g_test_message ("opened 10,000 messages in %.0f ms",
                  (g_get_monotonic_time () - start) / 1000.0 - 500);
  g_assert_cmpuint (g_list_model_get_n_items (warden_session_get_items (warden_window_get_session (window))),
                    ==, 10000);
  view = warden_window_get_chat_view (window);
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (view)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    rows++;
  g_test_message ("rows realized: %u", rows);
  g_assert_cmpuint (rows, <, 300);
}

static gboolean
toplevel_of_type (GType type)
{
  gboolean found = FALSE;
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) w = g_list_model_get_item (toplevels, i);

      if (g_type_is_a (G_OBJECT_TYPE (w), type) && gtk_widget_get_visible (GTK_WIDGET (w)))
        {
          found = TRUE;
          gtk_window_destroy (w);
        }
    }
  return found;
}

static GtkWindow *
find_toplevel (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) w = g_list_model_get_item (toplevels, i);

      if (g_type_is_a (G_OBJECT_TYPE (w), type) && gtk_widget_get_visible (GTK_WIDGET (w)))
        return w;
    }
  return NULL;
}

static gboolean
restore_button_shown (gpointer data)
{
  return find_mapped_css (GTK_WIDGET (window), "tool-restore") != NULL;
}

static gboolean
restore_dialog_shown (gpointer data)
{
  GtkWindow *dialog = find_toplevel (ADW_TYPE_MESSAGE_DIALOG);

  return dialog != NULL && gtk_widget_has_css_class (GTK_WIDGET (dialog), "restore-dialog") &&
         gtk_widget_get_mapped (GTK_WIDGET (dialog));
}

static gboolean
undo_shown (gpointer data)
{
  GtkWidget *button = find_labelled_button (GTK_WIDGET (window), "_Undo");

  return button != NULL && gtk_widget_get_mapped (button);
}

static gboolean
file_is (gpointer data)
{
  const char * const *expect = data;
  g_autofree char *content = NULL;

  g_file_get_contents (expect[0], &content, NULL, NULL);
  return g_strcmp0 (content, expect[1]) == 0;
}

/* A write over the user's file, then "Restore files to before this step"
 * on its card, through real clicks: the dialog names the file and shows the
 * diff; Restore Files puts the file back, and the chat says so. */
static void
test_restore_step (void)
{
  WardenSession *session = start_session ("restore");
  g_autofree char *path = g_build_filename (root, "restore", "notes.txt", NULL);
  const char *theirs[] = { path, "theirs\n" };
  const char *mine[] = { path, "mine\n" };
  GtkWindow *dialog;
  GtkWidget *button;

  g_assert_true (g_file_set_contents (path, "mine\n", -1, NULL));
  g_queue_push_tail (&fake->script,
                     fake_reply (NULL, "write", "{\"path\": \"notes.txt\", \"content\": "
                                 "\"theirs\\n\"}", NULL));
  g_queue_push_tail (&fake->script, fake_reply ("Written.", NULL));
  type_and_send ("write the notes");
  wait_until (session_idle, NULL, 60, "the end of the turn");
  g_assert_true (file_is ((gpointer) theirs));

  wait_until (restore_button_shown, NULL, 10, "the card's restore button");
  x_click (find_mapped_css (GTK_WIDGET (window), "tool-restore"));
  wait_until (restore_dialog_shown, NULL, 20, "the restore preview");
  dialog = find_toplevel (ADW_TYPE_MESSAGE_DIALOG);
  x_screenshot ("restore-dialog.png");
  g_assert_true (label_shows (GTK_WIDGET (dialog), "Restore Files to Before Step 1?"));
  g_assert_true (label_shows (GTK_WIDGET (dialog), "changed notes.txt"));
  g_assert_true (label_shows (GTK_WIDGET (dialog), "+mine"));
  /* Nothing is restored before the user says so. */
  g_assert_true (file_is ((gpointer) theirs));

  button = find_labelled_button (GTK_WIDGET (dialog), "_Restore Files");
  g_assert_nonnull (button);
  x_click (button);
  wait_until (file_is, (gpointer) mine, 20, "the file restored");
  g_assert_cmpuint (count_notices (session, "Restored the files to before step 1"), ==, 1);

  /* The toast's Undo previews the way back (the restore's own step, 2),
   * and restores it. */
  wait_until (undo_shown, NULL, 10, "the toast's Undo");
  x_screenshot ("restore-toast.png");
  x_click (find_labelled_button (GTK_WIDGET (window), "_Undo"));
  wait_until (restore_dialog_shown, NULL, 20, "the undo preview");
  dialog = find_toplevel (ADW_TYPE_MESSAGE_DIALOG);
  g_assert_true (label_shows (GTK_WIDGET (dialog), "Restore Files to Before Step 2?"));
  x_click (find_labelled_button (GTK_WIDGET (dialog), "_Restore Files"));
  wait_until (file_is, (gpointer) theirs, 20, "the restore undone");
}

static gboolean
card_shows_change (gpointer data)
{
  return label_shows (GTK_WIDGET (window), data);
}

/* A command's card lists the files it created, changed and deleted, from
 * the checkpoints before and after it. */
static void
test_command_changes (void)
{
  start_session ("changes");
  g_queue_push_tail (&fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"echo made > made.txt\"}", NULL));
  g_queue_push_tail (&fake->script, fake_reply ("Made.", NULL));
  type_and_send ("make a file");
  wait_until (session_idle, NULL, 60, "the end of the turn");
  wait_until (card_shows_change, (gpointer) "created made.txt", 10, "the card's changes");
}

/* Stop cancels the running command: the pane and the card say so, the
 * session can go on. */
static void
test_stop (void)
{
  WardenSession *session = start_session ("stop");
  WardenChatItem *item = NULL;
  g_autofree char *status = NULL;
  g_autofree char *output = NULL;
  gint64 start;

  g_assert_true (warden_session_set_profile (session, "trusted", NULL));
  g_queue_push_tail (&fake->script, fake_reply ("Waiting.", "exec",
                                                "{\"command\":\"echo waiting; sleep 60\"}",
                                                NULL));
  type_and_send ("wait a minute");
  wait_until (terminal_has, "\nwaiting\n", 30, "the command to start");

  start = g_get_monotonic_time ();
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.stop", NULL));
  /* A minute's sleep: stopped long before it would have ended by itself. */
  wait_until (session_idle, NULL, 45, "the stop");
  g_test_message ("stopped in %.0f ms", (g_get_monotonic_time () - start) / 1000.0);

  for (guint i = 0; i < g_list_model_get_n_items (warden_session_get_items (session)); i++)
    {
      g_autoptr(WardenChatItem) it = g_list_model_get_item (warden_session_get_items (session), i);

      if (warden_chat_item_get_kind (it) == WARDEN_CHAT_ITEM_TOOL)
        item = it;
    }
  g_assert_nonnull (item);
  g_assert_cmpint (warden_chat_item_get_state (item), ==, WARDEN_TOOL_CALL_INTERRUPTED);
  render_card (item, &status, &output);
  g_test_message ("card: %s", status);
  g_assert_true (g_str_has_prefix (status, "interrupted"));
  g_assert_cmpstr (output, ==, "waiting\n");
  /* Issue 14, item 6: the terminal pane's block ends as stopped. */
  wait_until (terminal_has, "[interrupted", 5, "the terminal's [interrupted] line");
  /* Issue 28, item 3: the record says the user stopped it after it started. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(WardenSessionStore) store = warden_session_store_new (NULL, &error);
    g_autoptr(GPtrArray) calls = NULL;
    WardenToolCallRecord *r;

    g_assert_no_error (error);
    calls = warden_session_store_list_tool_calls (store, warden_session_get_id (session), &error);
    g_assert_no_error (error);
    g_assert_cmpuint (calls->len, ==, 1);
    r = g_ptr_array_index (calls, 0);
    g_assert_cmpstr (r->state, ==, "interrupted");
    g_assert_cmpstr (r->ended_by, ==, "user");
    g_assert_cmpint (r->began, ==, 1);
    g_assert_cmpstr (r->result_json, ==, "Error: stopped by the user while it ran");
  }
}

/* The trace from the header menu, and rename and delete from the session menu. */
static void
test_trace_rename_delete (void)
{
  WardenSession *session = start_session ("traced");
  g_autofree char *id = g_strdup (warden_session_get_id (session));
  GtkWindow *w;

  g_queue_push_tail (&fake->script, fake_reply ("Listing.", "exec", "{\"command\":\"ls\"}", NULL));
  g_queue_push_tail (&fake->script, fake_reply ("Done.", NULL));
  type_and_send ("list");
  wait_until (session_idle, NULL, 30, "the end of the turn");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-trace", NULL));
  spin (200);
  w = find_toplevel (WARDEN_TYPE_TRACE_WINDOW);
  g_assert_nonnull (w);
  /* Two model calls and one tool call, at least. */
  g_assert_cmpuint (warden_trace_window_get_n_events (WARDEN_TRACE_WINDOW (w)), >=, 3);
  gtk_window_destroy (w);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.rename-session", NULL));
  spin (200);
  w = find_toplevel (ADW_TYPE_MESSAGE_DIALOG);
  g_assert_nonnull (w);
  gtk_editable_set_text (GTK_EDITABLE (adw_message_dialog_get_extra_child (ADW_MESSAGE_DIALOG (w))),
                         "Renamed session");
  /* The response alone, as a click gives it; the click also closes. */
  adw_message_dialog_response (ADW_MESSAGE_DIALOG (w), "rename");
  gtk_window_destroy (w);
  spin (200);
  g_assert_cmpstr (warden_session_get_title (session), ==, "Renamed session");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "Renamed session — Warden");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", NULL));
  spin (200);
  w = find_toplevel (ADW_TYPE_MESSAGE_DIALOG);
  g_assert_nonnull (w);
  g_assert_cmpstr (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (w)), ==, "Delete Session?");
  adw_message_dialog_response (ADW_MESSAGE_DIALOG (w), "delete");
  gtk_window_destroy (w);
  spin (500);
  g_assert_null (warden_window_get_session (window));
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(WardenSessionStore) store = warden_session_store_new (NULL, &error);
    g_autoptr(WardenSessionRecord) gone = warden_session_store_get_session (store, id, &error);

    g_assert_null (gone);
    g_assert_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_NOT_FOUND);
  }
}

static WardenChatItem *
last_tool_item (WardenSession *session)
{
  GListModel *items = warden_session_get_items (session);

  for (guint i = g_list_model_get_n_items (items); i > 0; i--)
    {
      g_autoptr(WardenChatItem) item = g_list_model_get_item (items, i - 1);

      if (warden_chat_item_get_kind (item) == WARDEN_CHAT_ITEM_TOOL)
        return item;  /* the list keeps it */
    }
  return NULL;
}

static GtkWidget *
find_css (GtkWidget  *widget,
          const char *css_class)
{
  if (gtk_widget_has_css_class (widget, css_class))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_css (c, css_class);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The first widget of @css_class on screen (the list keeps unmapped rows). */
static GtkWidget *
find_mapped_css (GtkWidget  *widget,
                 const char *css_class)
{
  if (!gtk_widget_get_mapped (widget))
    return NULL;
  if (gtk_widget_has_css_class (widget, css_class))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_mapped_css (c, css_class);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* What a card shows for @item: its status line and, opened, its output. */
static void
render_card (WardenChatItem  *item,
             char           **status,
             char           **output)
{
  GtkWidget *row = g_object_ref_sink (warden_chat_row_new ());
  GtkWidget *expander;

  warden_chat_row_set_item (WARDEN_CHAT_ROW (row), item);
  *status = g_strdup (gtk_label_get_text (GTK_LABEL (find_css (row, "tool-status"))));
  expander = find_css (row, "tool-output-expander");
  g_assert_true (gtk_widget_get_visible (expander));
  gtk_expander_set_expanded (GTK_EXPANDER (expander), TRUE);
  *output = g_strdup (gtk_label_get_text (GTK_LABEL (gtk_expander_get_child (GTK_EXPANDER (expander)))));
  warden_chat_row_set_item (WARDEN_CHAT_ROW (row), NULL);
  g_object_unref (row);
}

static gboolean
window_shows (gpointer text)
{
  return label_shows (GTK_WIDGET (window), text);
}

/* A command's card shows its call as the agent typed it: output, exit
 * status, time taken. The session read back from the store shows the
 * same card. */
static void
test_card_from_call (void)
{
  WardenSession *session = start_session ("typed");
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSessionStore) store = NULL;
  g_autoptr(WardenProfileStore) profiles = NULL;
  g_autoptr(WardenSession) reopened = NULL;
  g_autofree char *status = NULL;
  g_autofree char *output = NULL;
  g_autofree char *status_again = NULL;
  g_autofree char *output_again = NULL;
  g_autofree char *line = NULL;
  WardenChatItem *item;
  WardenChatItem *again;
  WardenToolCall *call;

  g_assert_cmpstr (shown_profile (), ==, "Node.js");
  g_assert_true (warden_session_set_profile (session, "trusted", NULL));
  /* The header follows the session's profile, whoever changed it. */
  g_assert_cmpstr (shown_profile (), ==, "Trusted");
  g_queue_push_tail (&fake->script,
                     fake_reply ("Checking.", "exec",
                                 "{\"command\":\"echo first line; echo second line; exit 3\"}",
                                 NULL));
  g_queue_push_tail (&fake->script, fake_reply ("It exits with 3.", NULL));
  type_and_send ("check it");
  wait_until (terminal_has, "[exit 3 · ", 60, "the command's status in the terminal");
  wait_until (session_idle, NULL, 30, "the end of the turn");

  item = last_tool_item (session);
  g_assert_nonnull (item);
  call = warden_chat_item_get_call (item);
  g_assert_nonnull (call);
  g_assert_cmpint (warden_tool_call_get_kind (call), ==, WARDEN_TOOL_KIND_EXEC);
  g_assert_cmpstr (warden_chat_item_get_subject (item), ==,
                   "echo first line; echo second line; exit 3");
  g_assert_cmpint (warden_chat_item_get_state (item), ==, WARDEN_TOOL_CALL_FINISHED);
  g_assert_cmpint (warden_chat_item_get_decision (item), ==, WARDEN_TOOL_DECISION_AUTO_ALLOWED);
  /* The card's figures are the call's. */
  g_assert_cmpstr (warden_chat_item_get_output (item), ==, "first line\nsecond line\n");
  g_assert_cmpstr (warden_tool_call_get_output (call), ==, "first line\nsecond line\n");
  g_assert_cmpint (warden_chat_item_get_exit_status (item), ==, 3);
  g_assert_cmpint (warden_tool_call_get_exit_code (call), ==, 3);
  g_assert_cmpint (warden_chat_item_get_duration_ms (item), >=, 0);
  g_assert_cmpint (warden_chat_item_get_duration_ms (item), ==,
                   warden_tool_call_get_duration_ms (call));
  g_assert_false (warden_chat_item_get_is_error (item));

  /* On screen: "exit 3 · 12 ms" under the command, and its output. */
  render_card (item, &status, &output);
  g_assert_true (g_str_has_prefix (status, "exit 3 · "));
  g_assert_cmpstr (output, ==, "first line\nsecond line\n");
  wait_until (window_shows, status, 10, "the card's status line in the chat");
  x_screenshot ("command-card.png");
  line = g_strdup_printf ("[%s]", status);
  g_assert_true (terminal_has (line));

  /* Read back from the store, as Warden does when it starts again. */
  store = warden_session_store_new (NULL, &error);
  g_assert_no_error (error);
  profiles = warden_profile_store_new (NULL);
  reopened = warden_session_open (store, profiles, NULL, warden_session_get_id (session), &error);
  g_assert_no_error (error);
  again = warden_session_find_item (reopened, warden_chat_item_get_tool_id (item));
  g_assert_nonnull (again);
  g_assert_nonnull (warden_chat_item_get_call (again));
  g_assert_false (warden_chat_item_get_call (again) == call);
  g_assert_cmpstr (warden_chat_item_get_subject (again), ==, warden_chat_item_get_subject (item));
  g_assert_cmpint (warden_chat_item_get_state (again), ==, WARDEN_TOOL_CALL_FINISHED);
  g_assert_cmpint (warden_chat_item_get_decision (again), ==, WARDEN_TOOL_DECISION_AUTO_ALLOWED);
  g_assert_cmpstr (warden_chat_item_get_output (again), ==, warden_chat_item_get_output (item));
  g_assert_cmpint (warden_chat_item_get_exit_status (again), ==, 3);
  g_assert_cmpint (warden_chat_item_get_duration_ms (again), ==,
                   warden_chat_item_get_duration_ms (item));
  render_card (again, &status_again, &output_again);
  g_assert_cmpstr (status_again, ==, status);
  g_assert_cmpstr (output_again, ==, output);
}

/* ------------------------------------------------------------------------ */
/* Issue 14: the window as a daily tool, through real input */

static GtkWidget *
find_leaflet (GtkWidget *widget)
{
  if (ADW_IS_LEAFLET (widget))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_leaflet (c);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
leaflet_still (gpointer leaflet)
{
  return !adw_leaflet_get_child_transition_running (leaflet);
}

/* A real click (XTEST) at the middle of @widget. */
static void
click_widget (GtkWidget *widget,
              int        button,
              int        repeat)
{
  GtkNative *native = gtk_widget_get_native (widget);
  GdkSurface *surface = gtk_native_get_surface (native);
  graphene_point_t middle, p;
  g_autofree char *args = NULL;
  double sx, sy;

  /* Narrow, the sides slide: where a widget is mid-slide is not where the
   * click lands. */
  wait_until (leaflet_still, find_leaflet (GTK_WIDGET (window)), 10, "the leaflet to settle");
  g_assert_true (gtk_widget_get_mapped (widget));
  /* A row made in this very iteration has no size until the next frame. */
  for (guint i = 0; i < 100 && gtk_widget_get_width (widget) == 0; i++)
    spin (20);
  /* Scrolled into view first, as the user would. */
  {
    GtkWidget *scroller = gtk_widget_get_ancestor (widget, GTK_TYPE_SCROLLED_WINDOW);
    graphene_rect_t bounds;

    if (scroller != NULL &&
        gtk_widget_compute_bounds (widget, scroller, &bounds) &&
        (bounds.origin.y < 0 ||
         bounds.origin.y + bounds.size.height > gtk_widget_get_height (scroller)))
      {
        GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));

        gtk_adjustment_set_value (adj, gtk_adjustment_get_value (adj) + bounds.origin.y);
        spin (200);
      }
  }
  middle = GRAPHENE_POINT_INIT (gtk_widget_get_width (widget) / 2.0,
                                gtk_widget_get_height (widget) / 2.0);
  g_assert_true (gtk_widget_compute_point (widget, GTK_WIDGET (native), &middle, &p));
  gtk_native_get_surface_transform (native, &sx, &sy);
  /* The pointer first, and a moment for the window to see it arrive: a
   * press without it is not taken for one on the widget under it. */
  args = g_strdup_printf ("mousemove --sync --window %lu %d %d",
                          (gulong) gdk_x11_surface_get_xid (surface), (int) (p.x + sx),
                          (int) (p.y + sy));
  x_xdotool (args);
  spin (150);
  g_free (args);
  args = g_strdup_printf ("click --repeat %d --delay 80 %d", repeat, button);
  x_xdotool (args);
  spin (300);
}

static GtkWidget *
find_mapped_label (GtkWidget  *widget,
                   const char *text)
{
  if (!gtk_widget_get_mapped (widget))
    return NULL;
  if (GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_mapped_label (c, text);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *
find_by_tooltip (GtkWidget  *widget,
                 const char *tooltip)
{
  if (gtk_widget_get_mapped (widget) &&
      g_strcmp0 (gtk_widget_get_tooltip_text (widget), tooltip) == 0)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_by_tooltip (c, tooltip);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *
find_session_row (GtkWidget  *widget,
                  const char *id)
{
  if (GTK_IS_LIST_BOX_ROW (widget) &&
      g_strcmp0 (g_object_get_data (G_OBJECT (widget), "session-id"), id) == 0)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_session_row (c, id);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
showing_session (gpointer id)
{
  WardenSession *session = warden_window_get_session (window);

  return session != NULL && g_strcmp0 (warden_session_get_id (session), id) == 0 &&
         warden_window_get_showing_chat (window);
}

/* A session with one finished turn, so that the sidebar lists it. */
static WardenSession *
start_session_with_task (const char *name,
                         const char *task)
{
  WardenSession *session = start_session (name);

  g_queue_push_tail (&fake->script, fake_reply ("Done.", NULL));
  type_and_send (task);
  wait_until (session_idle, NULL, 30, "the end of the turn");
  return session;
}

/* The message dialog headed @heading, once it shows. */
static GtkWindow *
message_dialog (const char *heading)
{
  for (guint i = 0; i < 50; i++)
    {
      GListModel *toplevels = gtk_window_get_toplevels ();

      for (guint j = 0; j < g_list_model_get_n_items (toplevels); j++)
        {
          g_autoptr(GtkWindow) w = g_list_model_get_item (toplevels, j);

          if (ADW_IS_MESSAGE_DIALOG (w) && gtk_widget_get_mapped (GTK_WIDGET (w)) &&
              g_strcmp0 (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (w)), heading) == 0)
            return w;
        }
      spin (100);
    }
  g_error ("no dialog “%s”", heading);
}

/* What the Rename dialog's field holds. */
static const char *
dialog_entry_text (GtkWindow *dialog)
{
  GtkWidget *entry = adw_message_dialog_get_extra_child (ADW_MESSAGE_DIALOG (dialog));

  return gtk_editable_get_text (GTK_EDITABLE (entry));
}

/* The menu a row opens: a right click on it, then a click on the item. */
static void
row_menu_item (GtkWidget  *row,
               const char *item)
{
  GtkWidget *list = gtk_widget_get_ancestor (row, GTK_TYPE_LIST_BOX);
  GtkWidget *label = NULL;

  /* The menu hangs under the session list. A busy machine maps it late,
   * and a click that lands while a dialog is still going away is lost: the
   * user clicks again. */
  for (guint attempt = 0; attempt < 3 && label == NULL; attempt++)
    {
      click_widget (row, 3, 1);
      for (guint i = 0; i < 200 && label == NULL; i++)
        {
          for (GtkWidget *c = gtk_widget_get_first_child (list); c;
               c = gtk_widget_get_next_sibling (c))
            if (GTK_IS_POPOVER_MENU (c) && gtk_widget_get_mapped (c))
              label = find_mapped_label (c, item);
          if (label == NULL)
            spin (50);
        }
      if (label == NULL)
        g_test_message ("no menu after right click %u on the row", attempt + 1);
    }
  g_assert_nonnull (label);
  click_widget (label, 1, 1);
}

/* Item 1: old sessions open by a click, a double click and the keyboard;
 * a row's menu renames and deletes the session it is on, shown or not. */
static void
test_sidebar_opens_session (void)
{
  WardenSession *first = start_session_with_task ("sidebar-first", "first task");
  g_autofree char *first_id = g_strdup (warden_session_get_id (first));
  WardenSession *second = start_session_with_task ("sidebar-second", "second task");
  g_autofree char *second_id = g_strdup (warden_session_get_id (second));
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSessionStore) store = NULL;
  g_autoptr(WardenSessionRecord) gone = NULL;
  GtkWidget *row, *other;
  GtkWindow *dialog;

  g_assert_true (showing_session (second_id));
  row = find_session_row (GTK_WIDGET (window), first_id);
  g_assert_nonnull (row);

  /* A click. */
  click_widget (row, 1, 1);
  wait_until (showing_session, first_id, 10, "the first session after a click");

  /* A double click. */
  click_widget (find_session_row (GTK_WIDGET (window), second_id), 1, 2);
  wait_until (showing_session, second_id, 10, "the second session after a double click");

  /* The keyboard: from the second's row to the first's, then Enter. */
  x_focus (GTK_WIDGET (window));
  row = find_session_row (GTK_WIDGET (window), first_id);
  other = find_session_row (GTK_WIDGET (window), second_id);
  gtk_widget_grab_focus (other);
  x_xdotool (gtk_list_box_row_get_index (GTK_LIST_BOX_ROW (row)) >
           gtk_list_box_row_get_index (GTK_LIST_BOX_ROW (other)) ? "key Down Return"
                                                                 : "key Up Return");
  wait_until (showing_session, first_id, 10, "the first session after Enter");

  /* The menu of a row not shown: Rename names it as the sidebar does. */
  row_menu_item (find_session_row (GTK_WIDGET (window), second_id), "Rename…");
  dialog = message_dialog ("Rename Session");
  g_assert_cmpstr (dialog_entry_text (dialog), ==, "sidebar-second");
  x_focus (GTK_WIDGET (dialog));
  x_xdotool ("key ctrl+a");
  x_xdotool ("type --delay 20 'Renamed from its row'");
  x_xdotool ("key Return");
  spin (500);
  g_assert_cmpstr (warden_session_get_title (second), ==, "Renamed from its row");
  g_assert_true (label_shows (find_session_row (GTK_WIDGET (window), second_id),
                              "Renamed from its row"));
  g_assert_true (showing_session (first_id));

  /* Delete from its menu: the dialog names it; the shown session stays. */
  row_menu_item (find_session_row (GTK_WIDGET (window), second_id), "Delete");
  dialog = message_dialog ("Delete Session?");
  g_assert_nonnull (strstr (adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)),
                            "“Renamed from its row”"));
  adw_message_dialog_response (ADW_MESSAGE_DIALOG (dialog), "delete");
  gtk_window_destroy (dialog);
  spin (300);
  g_assert_null (find_session_row (GTK_WIDGET (window), second_id));
  g_assert_true (showing_session (first_id));
  store = warden_session_store_new (NULL, &error);
  g_assert_no_error (error);
  gone = warden_session_store_get_session (store, second_id, &error);
  g_assert_null (gone);
  g_assert_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_NOT_FOUND);
}

static gboolean row_waits (gpointer id);

typedef struct
{
  const char *id;
  const char *text;
} RowText;

static gboolean
row_says (gpointer data)
{
  RowText *rt = data;
  GtkWidget *row = find_session_row (GTK_WIDGET (window), rt->id);

  return row != NULL && label_shows (row, rt->text);
}

/* The listed row whose title says @title, or NULL. */
static GtkWidget *
row_titled (const char *title)
{
  /* The session list is the list box styled as a navigation sidebar. */
  GtkWidget *list = find_css (GTK_WIDGET (window), "navigation-sidebar");

  for (GtkWidget *c = gtk_widget_get_first_child (list); c; c = gtk_widget_get_next_sibling (c))
    if (GTK_IS_LIST_BOX_ROW (c) &&
        g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (c)), title) == 0)
      return c;
  return NULL;
}

static gboolean
row_titled_shown (gpointer title)
{
  GtkWidget *row = row_titled (title);

  return row != NULL && gtk_widget_get_mapped (row);
}

static gboolean
row_hidden (gpointer id)
{
  GtkWidget *row = find_session_row (GTK_WIDGET (window), id);

  return row != NULL && !gtk_widget_get_mapped (row);
}

static gboolean
row_mapped (gpointer id)
{
  GtkWidget *row = find_session_row (GTK_WIDGET (window), id);

  return row != NULL && gtk_widget_get_mapped (row);
}

static void
cli_done_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* warden-cli runs @task in @workspace against the scripted model, as a user
 * would in a terminal while the window is open. */
static void
cli_run (const char *workspace,
         const char *task)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  GAsyncResult *done = NULL;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_setenv (launcher, "ANTHROPIC_API_KEY", "test-key", TRUE);
  g_subprocess_launcher_setenv (launcher, "ANTHROPIC_BASE_URL", fake->url, TRUE);
  g_subprocess_launcher_set_cwd (launcher, workspace);
  proc = g_subprocess_launcher_spawn (launcher, &error, g_getenv ("WARDEN_CLI"), "run",
                                      "--provider", "anthropic", "--sandbox", "bwrap", task,
                                      NULL);
  g_assert_no_error (error);
  /* The scripted model answers from this main context while the CLI runs. */
  g_subprocess_communicate_utf8_async (proc, NULL, NULL, cli_done_cb, &done);
  while (done == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (g_subprocess_communicate_utf8_finish (proc, done, NULL, &err, &error));
  g_object_unref (done);
  g_test_message ("warden-cli: %s", err);
  g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 0);
}

/* The search field shows and has the keys, as the user sees before typing. */
static gboolean
search_focused (gpointer data)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));

  return focus != NULL && gtk_widget_get_mapped (focus) &&
         (GTK_IS_SEARCH_ENTRY (focus) || gtk_widget_get_ancestor (focus, GTK_TYPE_SEARCH_ENTRY));
}

static gboolean
search_shown (GtkWidget *widget)
{
  if (GTK_IS_SEARCH_ENTRY (widget))
    return gtk_widget_get_mapped (widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    if (search_shown (c))
      return TRUE;
  return FALSE;
}

static gboolean
search_closed (gpointer data)
{
  return !search_shown (GTK_WIDGET (window));
}

static gboolean
other_shows (gpointer data)
{
  WardenWindow *other = ((gpointer *) data)[0];
  WardenSession *session = warden_window_get_session (other);

  return session != NULL && g_strcmp0 (warden_session_get_id (session),
                                       ((gpointer *) data)[1]) == 0;
}

/* Issue 32, item 5: a row says its title, its project and when it last
 * changed; Ctrl+F searches; sessions that warden-cli or another Warden
 * makes appear while the window is open; opening a waiting one leaves it
 * where the pointer is; a new window opens the last session shown. */
static void
test_sidebar_daily (void)
{
  g_autofree char *alpha_id = g_strdup (warden_session_get_id (
    start_session_with_task ("daily-alpha", "alpha task")));
  g_autofree char *beta_id = g_strdup (warden_session_get_id (
    start_session_with_task ("daily-beta", "beta task")));
  g_autofree char *waiting_ws = new_workspace ("daily-waiting");
  g_autofree char *cli_ws = new_workspace ("daily-cli");
  g_autofree char *sql = NULL;
  g_autofree char *waiting_id = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSessionStore) store = NULL;
  g_autoptr(WardenProfileStore) profiles = NULL;
  g_autoptr(WardenLlmProvider) provider = NULL;
  g_autoptr(WardenAgent) agent = NULL;
  WardenAgentConfig config = { 0 };
  WardenAgentOutcome outcome = WARDEN_AGENT_FINISHED;
  GAsyncResult *result = NULL;
  RowText alpha_says = { alpha_id, "daily-alpha · 5 min ago" };
  RowText beta_says = { beta_id, "daily-beta · just now" };
  GtkWidget *row;
  int index_before;
  graphene_rect_t before, after;

  /* Project and time, and a change made by another process shows. */
  wait_until (row_says, &beta_says, 10, "the beta row's project and time");
  store = warden_session_store_new (NULL, &error);
  g_assert_no_error (error);
  sql = g_strdup_printf ("UPDATE sessions SET updated = updated - 300 WHERE id = '%s'", alpha_id);
  g_assert_true (warden_session_store_run_sql (store, sql, &error));
  g_assert_no_error (error);
  wait_until (row_says, &alpha_says, 10, "the alpha row to say 5 min ago");

  /* Another Warden runs a task until it waits for the user. */
  profiles = warden_profile_store_new (NULL);
  provider = warden_anthropic_provider_new ("test-key", fake->url, "fake-model");
  config.workspace = waiting_ws;
  config.profile = (char *) "node";
  config.sandbox = WARDEN_SANDBOX_KIND_BWRAP;
  agent = warden_agent_new (store, profiles, provider, &config, &error);
  g_assert_no_error (error);
  g_queue_push_tail (&fake->script, fake_reply (NULL, "exec",
                                                "{\"command\":\"touch waited\"}", NULL));
  warden_agent_run_async (agent, "waiting task", NULL, warden_test_keep_result_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (warden_agent_run_finish (agent, result, &outcome, &error));
  g_assert_cmpint (outcome, ==, WARDEN_AGENT_WAITING);
  g_clear_object (&result);
  waiting_id = g_strdup (warden_agent_get_session_id (agent));
  g_clear_object (&agent);
  wait_until (row_waits, waiting_id, 10, "the other Warden's waiting session");

  /* warden-cli, in a terminal beside the window: its session appears. */
  g_queue_push_tail (&fake->script, fake_reply ("Done from the terminal.", NULL));
  cli_run (cli_ws, "terminal task");
  wait_until (row_titled_shown, (gpointer) "terminal task", 10, "warden-cli's session");
  g_assert_true (label_shows (row_titled ("terminal task"), "daily-cli · "));

  /* Ctrl+F, a word: only the sessions it names; Escape: all again. */
  x_focus (GTK_WIDGET (window));
  x_xdotool ("key ctrl+f");
  wait_until (search_focused, NULL, 10, "the search field");
  x_xdotool ("type --delay 20 'beta'");
  wait_until (row_hidden, alpha_id, 10, "the search to hide the alpha session");
  g_assert_true (row_mapped (beta_id));
  g_assert_false (row_titled_shown ((gpointer) "terminal task"));
  x_screenshot ("sidebar-search.png");
  x_xdotool ("key Escape");
  wait_until (row_mapped, alpha_id, 10, "the alpha session back after Escape");
  g_assert_true (row_titled_shown ((gpointer) "terminal task"));
  /* A project's name finds its sessions too. */
  x_xdotool ("key ctrl+f");
  wait_until (search_focused, NULL, 10, "the search field again");
  x_xdotool ("type --delay 20 'daily-waiting'");
  wait_until (row_hidden, beta_id, 10, "the search by project");
  g_assert_true (row_mapped (waiting_id));
  /* Words no session has: the list says so. */
  x_xdotool ("type --delay 20 'zzz'");
  wait_until (row_hidden, waiting_id, 10, "the search to keep no row");
  g_assert_true (label_shows (GTK_WIDGET (window),
                              "No session’s title or project has these words"));
  x_xdotool ("key Escape");
  wait_until (row_mapped, beta_id, 10, "the beta session back after Escape");
  wait_until (search_closed, NULL, 10, "the search bar to close");

  /* A click opens the waiting session where it is: the row stays under
   * the pointer. */
  row = find_session_row (GTK_WIDGET (window), waiting_id);
  index_before = gtk_list_box_row_get_index (GTK_LIST_BOX_ROW (row));
  g_assert_cmpint (index_before, >, 0);
  g_assert_true (gtk_widget_compute_bounds (row, GTK_WIDGET (window), &before));
  g_queue_push_tail (&fake->script, fake_reply ("Not made.", NULL));
  click_widget (row, 1, 1);
  wait_until (showing_session, waiting_id, 10, "the waiting session");
  wait_for_dialog ();
  spin (2500);  /* past one look at the store */
  row = find_session_row (GTK_WIDGET (window), waiting_id);
  g_assert_cmpint (gtk_list_box_row_get_index (GTK_LIST_BOX_ROW (row)), ==, index_before);
  g_assert_true (gtk_widget_compute_bounds (row, GTK_WIDGET (window), &after));
  g_assert_cmpfloat (after.origin.y, ==, before.origin.y);

  /* A new window (as at the next start) opens the session last shown. */
  {
    WardenWindow *other = warden_window_new (app);
    gpointer data[2] = { other, waiting_id };

    gtk_window_present (GTK_WINDOW (other));
    wait_until (other_shows, data, 10, "the last session in a new window");
    gtk_window_destroy (GTK_WINDOW (other));
    spin (300);
  }

  warden_approval_dialog_respond (wait_for_dialog (), "reject");
  wait_until (session_idle, NULL, 30, "the end of the turn");
}

static gboolean
row_waits (gpointer id)
{
  GtkWidget *row = find_session_row (GTK_WIDGET (window), id);

  return row != NULL && find_mapped_label (row, "Waiting") != NULL;
}

static gboolean
row_spins (gpointer id)
{
  GtkWidget *row = find_session_row (GTK_WIDGET (window), id);

  for (GtkWidget *w = row; w != NULL; )
    {
      if (gtk_widget_has_css_class (w, "warden-busy") && gtk_widget_get_mapped (w))
        return TRUE;
      if (gtk_widget_get_first_child (w) != NULL)
        w = gtk_widget_get_first_child (w);
      else
        {
          while (w != NULL && w != row && gtk_widget_get_next_sibling (w) == NULL)
            w = gtk_widget_get_parent (w);
          w = w != NULL && w != row ? gtk_widget_get_next_sibling (w) : NULL;
        }
    }
  return FALSE;
}

static gboolean
command_running (gpointer data)
{
  WardenSession *session = warden_window_get_session (window);
  WardenChatItem *item = session ? last_tool_item (session) : NULL;

  return item != NULL && warden_session_get_busy (session) &&
         warden_chat_item_get_state (item) == WARDEN_TOOL_CALL_RUNNING;
}

/* Item 5: one title everywhere, derived from the first task; "Waiting" only
 * while the user is needed, a spinner while the agent runs; a session that
 * never got a task is neither listed nor kept. */
static void
test_one_title (void)
{
  g_autofree char *workspace = new_workspace ("titled");
  g_autofree char *empty_workspace = new_workspace ("never-tasked");
  const char *task = "Count the files here\nand say how many";
  const char *title = "Count the files here and say how many";
  g_autofree char *window_title = g_strdup_printf ("%s — Warden", title);
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSessionStore) store = NULL;
  g_autoptr(WardenSessionRecord) gone = NULL;
  g_autofree char *id = NULL;
  g_autofree char *empty_id = NULL;
  WardenSession *session;
  GtkWindow *dialog;

  session = warden_application_create_session (app, workspace, "node",
                                               WARDEN_SANDBOX_KIND_BWRAP, NULL, &error);
  g_assert_no_error (error);
  id = g_strdup (warden_session_get_id (session));
  g_assert_true (warden_window_select_session (window, id));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "New session — Warden");
  g_assert_null (find_session_row (GTK_WIDGET (window), id));

  g_queue_push_tail (&fake->script, fake_reply ("Counting.", "exec",
                                                "{\"command\":\"echo started; sleep 4\"}", NULL));
  g_queue_push_tail (&fake->script, fake_reply ("There are none.", NULL));
  type_and_send (task);
  wait_for_dialog ();

  /* The header, the sidebar and both dialogs say the task. */
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, window_title);
  g_assert_cmpstr (warden_session_get_title (session), ==, title);
  g_assert_nonnull (find_session_row (GTK_WIDGET (window), id));
  g_assert_true (label_shows (find_session_row (GTK_WIDGET (window), id), title));
  g_assert_true (row_waits (id));
  g_assert_true (label_shows (GTK_WIDGET (window), "Waiting for you"));
  g_assert_false (row_spins (id));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.rename-session", NULL));
  dialog = message_dialog ("Rename Session");
  g_assert_cmpstr (dialog_entry_text (dialog), ==, title);
  gtk_window_destroy (dialog);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", NULL));
  dialog = message_dialog ("Delete Session?");
  g_assert_nonnull (strstr (adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)), title));
  gtk_window_destroy (dialog);
  spin (200);

  /* Approved, the command runs: a spinner, and no "Waiting". */
  warden_approval_dialog_respond (wait_for_dialog (), "once");
  wait_until (command_running, NULL, 30, "the approved command to start");
  g_assert_false (row_waits (id));
  g_assert_false (label_shows (GTK_WIDGET (window), "Waiting for you"));
  wait_until (row_spins, id, 5, "the sidebar's spinner");
  wait_until (session_idle, NULL, 30, "the end of the turn");
  spin (200);
  g_assert_false (row_spins (id));
  g_assert_false (row_waits (id));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, window_title);

  /* A session left without a task is not kept. */
  session = warden_application_create_session (app, empty_workspace, "node",
                                               WARDEN_SANDBOX_KIND_BWRAP, NULL, &error);
  g_assert_no_error (error);
  empty_id = g_strdup (warden_session_get_id (session));
  g_assert_true (warden_window_select_session (window, empty_id));
  g_assert_cmpstr (warden_window_get_page (window), ==, "empty");
  g_assert_null (find_session_row (GTK_WIDGET (window), empty_id));
  click_widget (find_session_row (GTK_WIDGET (window), id), 1, 1);
  wait_until (showing_session, id, 10, "the titled session");
  store = warden_session_store_new (NULL, &error);
  g_assert_no_error (error);
  gone = warden_session_store_get_session (store, empty_id, &error);
  g_assert_null (gone);
  g_assert_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_NOT_FOUND);
}

static gboolean
new_session_dialog_shown (gpointer data)
{
  GtkWidget *dialog = warden_window_get_new_session_dialog (window);

  return dialog != NULL && gtk_widget_get_mapped (dialog);
}

static gboolean
new_session_created (gpointer before)
{
  return warden_window_get_new_session_dialog (window) == NULL &&
         warden_window_get_session (window) != NULL &&
         warden_window_get_session (window) != before;
}

/* Ctrl+N, then Enter: a session in the default folder, not Cancel. */
static WardenSession *
new_session_by_keys (const char *name)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autofree char *workspace = new_workspace (name);
  WardenSession *before = warden_window_get_session (window);
  GtkWidget *dialog, *focus;

  g_settings_set_string (settings, "default-workspace", workspace);
  x_focus (GTK_WIDGET (window));
  x_xdotool ("key ctrl+n");
  wait_until (new_session_dialog_shown, NULL, 10, "the New Session dialog");
  dialog = warden_window_get_new_session_dialog (window);
  x_focus (dialog);
  focus = gtk_root_get_focus (GTK_ROOT (dialog));
  g_test_message ("focus in New Session: %s", focus ? G_OBJECT_TYPE_NAME (focus) : "none");
  g_assert_nonnull (focus);
  g_assert_nonnull (gtk_widget_get_ancestor (focus, ADW_TYPE_ENTRY_ROW));
  x_xdotool ("key Return");
  wait_until (new_session_created, before, 10, "the session Enter creates");
  g_assert_cmpstr (warden_session_get_workspace (warden_window_get_session (window)), ==,
                   workspace);
  return warden_window_get_session (window);
}

/* Item 6, New Session: it opens with the keys in its field; Enter creates. */
static void
test_new_session_keyboard (void)
{
  new_session_by_keys ("by-keys");
  g_assert_cmpstr (warden_window_get_page (window), ==, "empty");
}

static gboolean
can_create (gpointer dialog)
{
  return warden_new_session_dialog_get_can_create (dialog);
}

/* Issue 32, item 7: with no default folder set, New Session offers no
 * folder rather than the process's own (home, refused); a folder picked
 * there is offered next time and does not become Preferences' default. */
static void
test_new_session_last_folder (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autofree char *picked = new_workspace ("picked-folder");
  g_autofree char *home = g_strdup (g_get_home_dir ());
  g_autofree char *default_workspace = NULL;
  WardenSession *before = warden_window_get_session (window);
  WardenNewSessionDialog *dialog;

  g_settings_reset (settings, "default-workspace");
  g_settings_reset (settings, "last-workspace");
  x_focus (GTK_WIDGET (window));
  x_xdotool ("key ctrl+n");
  wait_until (new_session_dialog_shown, NULL, 10, "the New Session dialog");
  dialog = WARDEN_NEW_SESSION_DIALOG (warden_window_get_new_session_dialog (window));
  g_assert_null (warden_new_session_dialog_get_workspace (dialog));
  g_assert_true (label_shows (GTK_WIDGET (dialog), "None chosen"));
  g_assert_false (label_shows (GTK_WIDGET (dialog), home));

  /* As the folder chooser hands it back. */
  warden_new_session_dialog_set_workspace (dialog, picked);
  wait_until (can_create, dialog, 10, "the picked folder to be checked");
  x_focus (GTK_WIDGET (dialog));
  x_xdotool ("key Return");
  wait_until (new_session_created, before, 10, "the session Enter creates");
  g_assert_cmpstr (warden_session_get_workspace (warden_window_get_session (window)), ==, picked);
  default_workspace = g_settings_get_string (settings, "default-workspace");
  g_assert_cmpstr (default_workspace, ==, "");

  /* Next time: the folder just used. */
  x_focus (GTK_WIDGET (window));
  x_xdotool ("key ctrl+n");
  wait_until (new_session_dialog_shown, NULL, 10, "the New Session dialog again");
  dialog = WARDEN_NEW_SESSION_DIALOG (warden_window_get_new_session_dialog (window));
  g_assert_cmpstr (warden_new_session_dialog_get_workspace (dialog), ==, picked);
  gtk_window_destroy (GTK_WINDOW (dialog));
  spin (200);
}

static gboolean
style_is_dark (gpointer data)
{
  return adw_style_manager_get_dark (adw_style_manager_get_default ()) == GPOINTER_TO_INT (data);
}

/* The main menu's item labelled @label, clicked as the user does. */
static void
main_menu_item (const char *label)
{
  GtkWidget *button = find_by_tooltip (GTK_WIDGET (window), "Main Menu");
  GtkWidget *item = NULL;

  g_assert_nonnull (button);
  for (guint attempt = 0; attempt < 3 && item == NULL; attempt++)
    {
      click_widget (button, 1, 1);
      for (guint i = 0; i < 100 && item == NULL; i++)
        {
          GtkPopover *popover = gtk_menu_button_get_popover (GTK_MENU_BUTTON (button));

          if (popover != NULL && gtk_widget_get_mapped (GTK_WIDGET (popover)))
            item = find_mapped_label (GTK_WIDGET (popover), label);
          if (item == NULL)
            spin (50);
        }
    }
  g_assert_nonnull (item);
  click_widget (item, 1, 1);
}

/* Issue 32, item 6: the main menu switches between the light and the dark
 * style and back to the system's; the choice is kept; code in the chat is
 * coloured for it. */
static void
test_style_switch (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autofree char *variant = NULL;

  start_session_with_task ("styled", "show code");
  g_queue_push_tail (&fake->script, fake_reply ("Here:\n\n```python\ndef greet(name):\n"
                                                "    # say hello\n    return f\"Hello, {name}\"\n"
                                                "```\n\nAnd a diff:\n\n```diff\n- old line\n"
                                                "+ new line\n```", NULL));
  type_and_send ("write a greeting");
  wait_until (session_idle, NULL, 30, "the end of the turn");
  x_focus (GTK_WIDGET (window));

  main_menu_item ("Dark Style");
  wait_until (style_is_dark, GINT_TO_POINTER (TRUE), 10, "the dark style");
  variant = g_settings_get_string (settings, "style-variant");
  g_assert_cmpstr (variant, ==, "dark");
  x_screenshot ("code-dark.png");

  main_menu_item ("Light Style");
  wait_until (style_is_dark, GINT_TO_POINTER (FALSE), 10, "the light style");
  x_screenshot ("code-light.png");

  main_menu_item ("Follow System Style");
  spin (300);
  g_free (variant);
  variant = g_settings_get_string (settings, "style-variant");
  g_assert_cmpstr (variant, ==, "default");
  g_assert_cmpint (adw_style_manager_get_color_scheme (adw_style_manager_get_default ()), ==,
                   ADW_COLOR_SCHEME_DEFAULT);
}

static gboolean
chat_shown (gpointer data)
{
  return g_strcmp0 (warden_window_get_page (window), "chat") == 0;
}

/* Item 9: an empty session says where it works and offers tasks; one goes
 * into the composer, which says how to send, and Ctrl+Enter sends it. */
static void
test_empty_session (void)
{
  g_autofree char *workspace = new_workspace ("empty-state");
  const char *example = "Run the tests and fix the first one that fails";
  g_autoptr(GError) error = NULL;
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (warden_window_get_composer (window));
  g_autofree char *text = NULL;
  WardenSession *session;
  GtkTextIter start, end;

  session = warden_application_create_session (app, workspace, "node",
                                               WARDEN_SANDBOX_KIND_BWRAP, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (warden_window_select_session (window, warden_session_get_id (session)));
  gtk_text_buffer_set_text (buffer, "", 0);
  spin (300);
  g_assert_cmpstr (warden_window_get_page (window), ==, "empty");
  g_assert_true (label_shows (GTK_WIDGET (window), workspace));
  g_assert_true (label_shows (GTK_WIDGET (window), "Bubblewrap"));
  g_assert_true (label_shows (GTK_WIDGET (window), "Node.js"));
  g_assert_true (label_shows (GTK_WIDGET (window), "Describe a task — Ctrl+Enter to send"));

  click_widget (find_mapped_label (GTK_WIDGET (window), example), 1, 1);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  g_assert_cmpstr (text, ==, example);
  g_assert_false (label_shows (GTK_WIDGET (window), "Describe a task — Ctrl+Enter to send"));

  /* What the placeholder says is what sends. */
  g_queue_push_tail (&fake->script, fake_reply ("All tests pass.", NULL));
  x_focus (GTK_WIDGET (window));
  x_xdotool ("key ctrl+Return");
  wait_until (chat_shown, NULL, 10, "the task sent by Ctrl+Enter");
  wait_until (session_idle, NULL, 30, "the end of the turn");
  g_assert_cmpstr (warden_session_get_title (session), ==, example);
  g_assert_true (label_shows (GTK_WIDGET (window), "Describe a task — Ctrl+Enter to send"));
}

static gboolean
folded (gpointer data)
{
  return warden_window_get_folded (window);
}

static gboolean
unfolded (gpointer data)
{
  return !warden_window_get_folded (window);
}

static gboolean
showing_sidebar (gpointer data)
{
  return !warden_window_get_showing_chat (window);
}

static void
resize_window (int width,
               int height)
{
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (window));
  g_autofree char *args = g_strdup_printf ("windowsize --sync %lu %d %d",
                                           (gulong) gdk_x11_surface_get_xid (surface),
                                           width, height);

  x_xdotool (args);
  spin (300);
}

static gboolean
folded_minimum_fits (gpointer data)
{
  int minimum = 0;

  gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL,
                      NULL, NULL);
  return minimum <= 360;
}

/* Item 2: at 360 px the window folds; a new or chosen session shows its
 * chat, the back button the sessions. */
static void
test_narrow_window (void)
{
  WardenSession *listed = start_session_with_task ("narrow-listed", "a task to list it");
  g_autofree char *listed_id = g_strdup (warden_session_get_id (listed));
  WardenSession *session;
  int minimum = 0;

  gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL,
                      NULL, NULL);
  /* Wide, the header also shows what a narrow one drops (the usage, the
   * profile, the window's buttons): this minimum only says where a hand
   * that narrows the window makes it fold. */
  g_test_message ("minimum width with a session, unfolded: %d px", minimum);
  g_assert_cmpint (minimum, <=, 500);

  /* Made narrower as a hand does it: it folds on the way, and then drops
   * what a narrow header has no room for; it gets to 360 px. */
  resize_window (500, 700);
  wait_until (folded, NULL, 10, "the window to fold at 500 px");
  wait_until (folded_minimum_fits, NULL, 10, "the folded header to drop what does not fit");
  {
    GtkWidget *content = adw_application_window_get_content (ADW_APPLICATION_WINDOW (window));

    /* The window manager learns the new minimum at the next frame: a hand
     * that drags on gets there, and so do a few tries. */
    for (guint i = 0; i < 5 && (i == 0 || gtk_widget_get_width (content) > 360); i++)
      resize_window (360, 700);
    g_test_message ("window %d px wide (with its frame), its content %d px, at 360 px",
                    gtk_widget_get_width (GTK_WIDGET (window)), gtk_widget_get_width (content));
    g_assert_cmpint (gtk_widget_get_width (content), <=, 360);
  }

  /* Created: its chat shows. */
  session = new_session_by_keys ("narrow");
  g_assert_true (warden_window_get_showing_chat (window));
  g_queue_push_tail (&fake->script, fake_reply ("Here it is: the project has **one** file, "
                                                "`README`, and nothing else.", NULL));
  type_and_send ("What is in this project?");
  wait_until (session_idle, NULL, 30, "the end of the turn");
  spin (300);
  /* Folded, with a session and its chat, it still fits. */
  gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL,
                      NULL, NULL);
  g_test_message ("minimum width folded: %d px", minimum);
  g_assert_cmpint (minimum, <=, 360);
  x_screenshot ("narrow-window.png");

  /* Back: the sessions. */
  click_widget (find_by_tooltip (GTK_WIDGET (window), "Sessions"), 1, 1);
  wait_until (showing_sidebar, NULL, 10, "the sidebar after Back");

  /* Chosen: its chat. */
  click_widget (find_session_row (GTK_WIDGET (window), listed_id), 1, 1);
  wait_until (showing_session, listed_id, 10, "the chosen session's chat");

  /* And back to the one just made, from the list. */
  click_widget (find_by_tooltip (GTK_WIDGET (window), "Sessions"), 1, 1);
  wait_until (showing_sidebar, NULL, 10, "the sidebar after Back");
  click_widget (find_session_row (GTK_WIDGET (window), warden_session_get_id (session)), 1, 1);
  wait_until (showing_session, (gpointer) warden_session_get_id (session), 10,
              "the new session's chat");

  resize_window (1100, 760);
  wait_until (unfolded, NULL, 10, "the window to unfold");
}

/* A widget lies within the window's width: not cut at its right edge. */
static void
assert_within_window (GtkWidget  *widget,
                      const char *what)
{
  graphene_rect_t bounds;

  g_assert_true (gtk_widget_get_mapped (widget));
  g_assert_true (gtk_widget_compute_bounds (widget, GTK_WIDGET (window), &bounds));
  g_test_message ("%s: x %.0f to %.0f of %d px", what, bounds.origin.x,
                  bounds.origin.x + bounds.size.width, gtk_widget_get_width (GTK_WIDGET (window)));
  g_assert_cmpfloat (bounds.origin.x, >=, 0);
  g_assert_cmpfloat (bounds.origin.x + bounds.size.width, <=,
                     gtk_widget_get_width (GTK_WIDGET (window)));
}

/* Issue 32, item 4: at 360 px a command that waits keeps the window at
 * 360 px (its card's three buttons wrap), and the New Session dialog fits
 * over it. */
static void
test_narrow_waiting (void)
{
  WardenSession *session;
  GtkWidget *dialog, *card, *button;
  int minimum = 0;

  resize_window (500, 700);
  wait_until (folded, NULL, 10, "the window to fold at 500 px");
  resize_window (360, 700);
  session = start_session ("narrow-waiting");
  g_queue_push_tail (&fake->script, fake_reply ("Fetching.", "exec",
                                                "{\"command\":\"curl -o page.html "
                                                "http://registry.example/a/long/path\"}", NULL));
  g_queue_push_tail (&fake->script, fake_reply ("Not fetched.", NULL));
  type_and_send ("fetch the page");
  wait_for_dialog ();

  /* The dialog fits the narrow window too. */
  dialog = warden_window_get_approval_dialog (window);
  spin (300);
  g_test_message ("approval dialog %d px wide", gtk_widget_get_width (dialog));
  g_assert_cmpint (gtk_widget_get_width (dialog), <=, 360);

  /* Dismissed with Escape: the card waits in the chat. */
  x_focus (dialog);
  x_xdotool ("key Escape");
  wait_until (no_dialog, NULL, 10, "the dialog to close on Escape");
  spin (500);
  g_assert_nonnull (warden_session_get_pending (session));
  gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL,
                      NULL, NULL);
  g_test_message ("minimum width with a waiting card: %d px", minimum);
  g_assert_cmpint (minimum, <=, 360);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), <=, 360);
  card = find_mapped_css (GTK_WIDGET (window), "approval");
  g_assert_nonnull (card);
  x_screenshot ("narrow-waiting.png");
  for (guint i = 0; i < 3; i++)
    {
      const char *labels[] = { "_Reject", "Allow _Once", "Always _Allow…" };

      button = find_labelled_button (card, labels[i]);
      g_assert_nonnull (button);
      assert_within_window (button, labels[i]);
    }

  /* The card's button, clicked, answers. */
  click_widget (find_labelled_button (card, "_Reject"), 1, 1);
  wait_until (session_idle, NULL, 30, "the end of the turn");
  g_assert_null (warden_session_get_pending (session));

  /* New Session over the narrow window: no wider than it. */
  x_focus (GTK_WIDGET (window));
  x_xdotool ("key ctrl+n");
  wait_until (new_session_dialog_shown, NULL, 10, "the New Session dialog");
  dialog = warden_window_get_new_session_dialog (window);
  spin (500);
  gtk_widget_measure (dialog, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
  g_test_message ("New Session: %d px wide, minimum %d px", gtk_widget_get_width (dialog),
                  minimum);
  x_screenshot ("narrow-new-session.png");
  g_assert_cmpint (minimum, <=, 360);
  g_assert_cmpint (gtk_widget_get_width (dialog), <=, 360);
  x_focus (dialog);
  x_xdotool ("key Escape");
  spin (300);
  g_assert_null (warden_window_get_new_session_dialog (window));

  resize_window (1100, 760);
  wait_until (unfolded, NULL, 10, "the window to unfold");
}

static WardenChatRow *
find_chat_row (GtkWidget      *widget,
               WardenChatItem *item)
{
  if (WARDEN_IS_CHAT_ROW (widget) && warden_chat_row_get_item (WARDEN_CHAT_ROW (widget)) == item)
    return WARDEN_CHAT_ROW (widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      WardenChatRow *found = find_chat_row (c, item);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The newest row of the chat is on screen, its bottom edge too. */
static gboolean
last_row_shown (gpointer data)
{
  GtkWidget *view = GTK_WIDGET (warden_window_get_chat_view (window));
  GtkWidget *scroller = gtk_widget_get_ancestor (view, GTK_TYPE_SCROLLED_WINDOW);
  GListModel *items = warden_session_get_items (warden_window_get_session (window));
  guint n = g_list_model_get_n_items (items);
  g_autoptr(WardenChatItem) last = n > 0 ? g_list_model_get_item (items, n - 1) : NULL;
  WardenChatRow *row = last ? find_chat_row (view, last) : NULL;
  graphene_rect_t bounds;

  if (row == NULL || !gtk_widget_get_mapped (GTK_WIDGET (row)) ||
      !gtk_widget_compute_bounds (GTK_WIDGET (row), scroller, &bounds))
    return FALSE;
  return bounds.origin.y + bounds.size.height <= gtk_widget_get_height (scroller) + 2 &&
         bounds.origin.y + bounds.size.height > 0;
}

/* Issue 32, item 3: the wheel over a code block (which scrolls sideways)
 * moves the chat, through a real wheel under the pointer. */
static void
test_wheel_over_code (void)
{
  GtkWidget *view, *scroller, *code = NULL;
  GtkAdjustment *adj;
  g_autoptr(GString) text = g_string_new ("Here is the fix.\n\n```js\n");
  g_autofree char *args = NULL;
  GdkSurface *surface;
  graphene_point_t middle, p;
  double sx, sy, before;

  start_session ("wheel");
  for (guint i = 0; i < 12; i++)
    g_string_append_printf (text, "const line%02u = 'a long line of code that goes on and on "
                            "past the width of the chat column, so that it scrolls sideways';\n",
                            i);
  g_string_append (text, "```\n");
  g_queue_push_tail (&fake->script, fake_reply (text->str, "exec",
                                                "{\"command\":\"echo step 0\"}", NULL));
  /* More of the turn below it, so that the chat has somewhere to go. */
  for (guint i = 1; i < 8; i++)
    {
      g_autofree char *json = g_strdup_printf ("{\"command\":\"echo step %u\"}", i);

      g_queue_push_tail (&fake->script, fake_reply ("And one more step, said at some length so "
                                                    "that the row is taller than one line.",
                                                    "exec", json, NULL));
    }
  g_queue_push_tail (&fake->script, fake_reply ("Done.", NULL));
  type_and_send ("show me");
  wait_until (session_idle, NULL, 60, "the end of the turn");

  view = GTK_WIDGET (warden_window_get_chat_view (window));
  scroller = gtk_widget_get_ancestor (view, GTK_TYPE_SCROLLED_WINDOW);
  adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
  /* Up to the top as the user goes there, with the wheel over the chat:
   * the view follows a turn while it is at the bottom, so setting its
   * position would be taken back. */
  {
    GdkSurface *window_surface = gtk_native_get_surface (GTK_NATIVE (window));
    graphene_point_t at = GRAPHENE_POINT_INIT (gtk_widget_get_width (scroller) - 30,
                                               gtk_widget_get_height (scroller) / 2.0);
    graphene_point_t q;
    g_autofree char *move = NULL;

    g_assert_true (gtk_widget_compute_point (scroller, GTK_WIDGET (window), &at, &q));
    gtk_native_get_surface_transform (GTK_NATIVE (window), &sx, &sy);
    move = g_strdup_printf ("mousemove --sync --window %lu %d %d",
                            (gulong) gdk_x11_surface_get_xid (window_surface),
                            (int) (q.x + sx), (int) (q.y + sy));
    x_xdotool (move);
    spin (150);
    for (guint i = 0; i < 10 && gtk_adjustment_get_value (adj) > 0; i++)
      {
        x_xdotool ("click --repeat 10 --delay 30 4");
        spin (100);
      }
  }
  for (guint i = 0; i < 100 && code == NULL; i++)
    {
      code = find_mapped_css (view, "code-scroller");
      if (code == NULL)
        spin (50);
    }
  if (code == NULL)
    {
      GtkWidget *any = find_css (view, "code-block");

      g_test_message ("no code block on screen: one %s; chat at %.0f of %.0f",
                      any ? (gtk_widget_get_mapped (any) ? "mapped" : "unmapped") : "nowhere",
                      gtk_adjustment_get_value (adj), gtk_adjustment_get_upper (adj));
      x_screenshot ("wheel-no-code.png");
    }
  g_assert_nonnull (code);
  before = gtk_adjustment_get_value (adj);
  g_assert_cmpfloat (before + gtk_adjustment_get_page_size (adj), <, gtk_adjustment_get_upper (adj));

  surface = gtk_native_get_surface (gtk_widget_get_native (code));
  middle = GRAPHENE_POINT_INIT (gtk_widget_get_width (code) / 2.0, 30);
  g_assert_true (gtk_widget_compute_point (code, GTK_WIDGET (gtk_widget_get_native (code)),
                                           &middle, &p));
  gtk_native_get_surface_transform (gtk_widget_get_native (code), &sx, &sy);
  args = g_strdup_printf ("mousemove --sync --window %lu %d %d",
                          (gulong) gdk_x11_surface_get_xid (surface), (int) (p.x + sx),
                          (int) (p.y + sy));
  x_xdotool (args);
  spin (150);
  x_xdotool ("click --repeat 3 --delay 80 5");
  for (guint i = 0; i < 200 && gtk_adjustment_get_value (adj) <= before + 20; i++)
    spin (25);
  g_test_message ("chat moved from %.0f to %.0f", before, gtk_adjustment_get_value (adj));
  g_assert_cmpfloat (gtk_adjustment_get_value (adj), >, before + 20);

  /* Back where the next test expects the window: at the end of the chat,
   * the keyboard in the composer. */
  gtk_adjustment_set_value (adj, gtk_adjustment_get_upper (adj));
  gtk_widget_grab_focus (GTK_WIDGET (warden_window_get_composer (window)));
  spin (200);
}

/* Item 3: a long turn stays followed to its end; scrolled up, new activity
 * does not move the view and a button offers it; the button follows again.
 * And item 8's clamp: the column is at most 800 px wide. */
static void
test_scroll_follow (void)
{
  WardenSession *session = start_session ("follow");
  GtkWidget *view = GTK_WIDGET (warden_window_get_chat_view (window));
  GtkWidget *scroller = gtk_widget_get_ancestor (view, GTK_TYPE_SCROLLED_WINDOW);
  GtkWidget *button;
  g_autofree char *id = NULL;
  g_autofree char *args = NULL;

  for (guint i = 0; i < 12; i++)
    {
      g_autofree char *text = g_strdup_printf ("Step %u of the work.\n\nIt checks one more "
                                               "thing, and says so at some length so that "
                                               "the row is taller than one line.", i);
      g_autofree char *json = g_strdup_printf ("{\"command\":\"echo step %u\"}", i);

      g_queue_push_tail (&fake->script, fake_reply (text, "exec", json, NULL));
    }
  g_queue_push_tail (&fake->script, fake_reply ("All twelve steps are done.\n\n- one\n- two\n"
                                                "- three", NULL));
  type_and_send ("work through the steps");
  wait_until (session_idle, NULL, 120, "the end of the long turn");
  wait_until (last_row_shown, NULL, 10, "the newest row in view after a long turn");
  g_test_message ("chat column %d px in a scroller of %d px", gtk_widget_get_width (view),
                  gtk_widget_get_width (scroller));
  g_assert_cmpint (gtk_widget_get_width (view), <=, 800);
  g_assert_cmpint (gtk_widget_get_width (scroller), >, 800);

  /* A command that asks; its dialog is closed, the question stays in view. */
  g_queue_push_tail (&fake->script, fake_reply ("One more file.", "exec",
                                                "{\"command\":\"touch follow-made\"}", NULL));
  g_queue_push_tail (&fake->script, fake_reply ("Made follow-made.\n\nThat was the last "
                                                "thing to do.", NULL));
  type_and_send ("make a file");
  wait_for_dialog ();
  id = g_strdup (warden_approval_get_id (warden_session_get_pending (session)));
  gtk_window_close (GTK_WINDOW (warden_window_get_approval_dialog (window)));
  wait_until (no_dialog, NULL, 10, "the dialog to close");
  wait_until (last_row_shown, NULL, 10, "the question in view");

  /* The user scrolls up with the wheel, over the chat. */
  x_focus (GTK_WIDGET (window));
  {
    GtkNative *native = gtk_widget_get_native (scroller);
    graphene_point_t middle = GRAPHENE_POINT_INIT (gtk_widget_get_width (scroller) / 2.0,
                                                   gtk_widget_get_height (scroller) / 2.0);
    graphene_point_t p;
    double sx, sy;

    g_assert_true (gtk_widget_compute_point (scroller, GTK_WIDGET (native), &middle, &p));
    gtk_native_get_surface_transform (native, &sx, &sy);
    args = g_strdup_printf ("mousemove --sync --window %lu %d %d click --repeat 12 --delay 30 4",
                            (gulong) gdk_x11_surface_get_xid (gtk_native_get_surface (native)),
                            (int) (p.x + sx), (int) (p.y + sy));
    x_xdotool (args);
  }
  spin (500);
  g_assert_false (last_row_shown (NULL));

  /* Approved from its card: the command runs and the agent answers below. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.approval-answer",
                                             "(sbbs)", id, TRUE, FALSE, ""));
  wait_until (session_idle, NULL, 30, "the end of the turn");
  spin (500);
  g_assert_false (last_row_shown (NULL));
  button = find_labelled_button (GTK_WIDGET (window), "New activity ↓");
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_get_mapped (button));

  click_widget (button, 1, 1);
  wait_until (last_row_shown, NULL, 10, "the newest row after New activity");
  g_assert_false (gtk_widget_get_visible (button));

  adw_style_manager_set_color_scheme (adw_style_manager_get_default (),
                                      ADW_COLOR_SCHEME_FORCE_DARK);
  spin (300);
  x_screenshot ("dark-style.png");
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (),
                                      ADW_COLOR_SCHEME_DEFAULT);
}

static void
test_about_and_shortcuts (void)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "app.about", NULL));
  spin (200);
  g_assert_true (toplevel_of_type (ADW_TYPE_ABOUT_WINDOW));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-help-overlay", NULL));
  spin (200);
  g_assert_true (toplevel_of_type (GTK_TYPE_SHORTCUTS_WINDOW));
}

/* ------------------------------------------------------------------------ */
/* Notifications, through python3-dbusmock's notification daemon */

static GVariant *
mock_calls (void)
{
  g_autoptr(GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);

  return g_dbus_connection_call_sync (bus, "org.freedesktop.Notifications",
                                      "/org/freedesktop/Notifications",
                                      "org.freedesktop.DBus.Mock", "GetCalls", NULL,
                                      G_VARIANT_TYPE ("(a(tsav))"), G_DBUS_CALL_FLAGS_NONE, -1,
                                      NULL, NULL);
}

typedef struct
{
  guint32  id;
  const char *want;   /* the body to look for */
  char    *approve;   /* the action key of the Approve button */
  char    *summary;
  char    *body;
} NotifyCall;

static gboolean
find_notify (gpointer data)
{
  NotifyCall *call = data;
  g_autoptr(GVariant) calls = mock_calls ();
  g_autoptr(GVariant) list = g_variant_get_child_value (calls, 0);
  gsize n = g_variant_n_children (list);

  for (gsize i = 0; i < n; i++)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (list, i);
      g_autoptr(GVariant) args = g_variant_get_child_value (entry, 2);
      g_autoptr(GVariant) actions = NULL;
      const char *method;
      g_autofree const char **strv = NULL;

      g_variant_get_child (entry, 1, "&s", &method);
      if (g_strcmp0 (method, "Notify") != 0)
        continue;
      {
        g_autoptr(GVariant) v = g_variant_get_child_value (args, 5);
        actions = g_variant_get_variant (v);
      }
      strv = g_variant_get_strv (actions, NULL);
      for (guint a = 0; strv[a] != NULL && strv[a + 1] != NULL; a += 2)
        if (g_str_has_prefix (strv[a], "app.approve"))
          {
            g_autoptr(GVariant) summary = g_variant_get_child_value (args, 3);
            g_autoptr(GVariant) body = g_variant_get_child_value (args, 4);
            g_autoptr(GVariant) s = g_variant_get_variant (summary);
            g_autoptr(GVariant) b = g_variant_get_variant (body);

            if (g_strcmp0 (g_variant_get_string (b, NULL), call->want) != 0)
              continue;
            g_free (call->approve);
            g_free (call->summary);
            g_free (call->body);
            call->approve = g_strdup (strv[a]);
            call->summary = g_variant_dup_string (s, NULL);
            call->body = g_variant_dup_string (b, NULL);
            /* The id the daemon gave: the template numbers them from 1. */
            call->id = (guint32) i + 1;
          }
      for (guint a = 0; strv[a] != NULL && strv[a + 1] != NULL; a += 2)
        if (call->approve != NULL && g_str_has_prefix (strv[a], "app.reject"))
          return TRUE;
    }
  return FALSE;
}

static guint32
notification_id_for (const char *approve_key)
{
  /* The daemon's own ids: count Notify calls up to ours. */
  g_autoptr(GVariant) calls = mock_calls ();
  g_autoptr(GVariant) list = g_variant_get_child_value (calls, 0);
  gsize n = g_variant_n_children (list);
  guint32 id = 0;

  for (gsize i = 0; i < n; i++)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (list, i);
      g_autoptr(GVariant) args = g_variant_get_child_value (entry, 2);
      const char *method;

      g_variant_get_child (entry, 1, "&s", &method);
      if (g_strcmp0 (method, "Notify") != 0)
        continue;
      {
        g_autoptr(GVariant) v = g_variant_get_child_value (args, 1);
        g_autoptr(GVariant) replaces = g_variant_get_variant (v);

        if (g_variant_get_uint32 (replaces) == 0)
          id++;
      }
      {
        g_autoptr(GVariant) v = g_variant_get_child_value (args, 5);
        g_autoptr(GVariant) actions = g_variant_get_variant (v);
        g_autofree const char **strv = g_variant_get_strv (actions, NULL);

        for (guint a = 0; strv[a] != NULL; a += 2)
          if (g_strcmp0 (strv[a], approve_key) == 0)
            return id;
      }
    }
  return id;
}

static gboolean
closed_notification (gpointer data)
{
  g_autoptr(GVariant) calls = mock_calls ();
  g_autoptr(GVariant) list = g_variant_get_child_value (calls, 0);
  gsize n = g_variant_n_children (list);

  for (gsize i = 0; i < n; i++)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (list, i);
      g_autoptr(GVariant) args = g_variant_get_child_value (entry, 2);
      const char *method;

      g_variant_get_child (entry, 1, "&s", &method);
      if (g_strcmp0 (method, "CloseNotification") == 0)
        {
          g_autoptr(GVariant) v = g_variant_get_child_value (args, 0);
          g_autoptr(GVariant) idv = g_variant_get_variant (v);

          /* dbusmock hands the arguments back with its own integer types. */
          guint64 got = g_variant_is_of_type (idv, G_VARIANT_TYPE_UINT32)
                        ? g_variant_get_uint32 (idv)
                        : g_variant_is_of_type (idv, G_VARIANT_TYPE_INT32)
                        ? (guint64) g_variant_get_int32 (idv)
                        : g_variant_is_of_type (idv, G_VARIANT_TYPE_INT64)
                        ? (guint64) g_variant_get_int64 (idv) : G_MAXUINT64;

          if (got == GPOINTER_TO_UINT (data))
            return TRUE;
        }
    }
  return FALSE;
}

static gboolean
window_inactive (gpointer data)
{
  return !gtk_window_is_active (GTK_WINDOW (window));
}

static void
test_notification_approve (void)
{
  GtkWidget *elsewhere;
  g_autoptr(GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  g_autofree char *made = g_build_filename (root, "notified", "from-notification", NULL);
  NotifyCall call = { 0, "touch from-notification" };
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  guint32 id;

  start_session ("notified");
  /* The user is elsewhere: another window in front, no dialog, a
   * notification. */
  elsewhere = gtk_window_new ();
  gtk_window_set_title (GTK_WINDOW (elsewhere), "Elsewhere");
  gtk_window_present (GTK_WINDOW (elsewhere));
  wait_until (window_inactive, NULL, 10, "another window in front");
  warden_window_set_assume_active (window, FALSE);
  g_assert_false (gtk_window_is_active (GTK_WINDOW (window)));

  g_queue_push_tail (&fake->script, fake_reply (NULL, "exec",
                                                "{\"command\":\"touch from-notification\"}",
                                                NULL));
  g_queue_push_tail (&fake->script, fake_reply ("Made.", NULL));
  type_and_send ("make it");

  wait_until (session_waiting, NULL, 30, "the approval");
  wait_until (find_notify, &call, 10, "the Notify call with Approve and Reject");
  g_assert_null (warden_window_get_approval_dialog (window));
  /* Issue 32, item 7: which session asks, in the title. */
  g_assert_cmpstr (call.summary, ==, "Command needs approval — notified");
  g_assert_cmpstr (call.body, ==, "touch from-notification");
  g_assert_false (g_file_test (made, G_FILE_TEST_EXISTS));

  /* The user presses Approve on the notification. */
  id = notification_id_for (call.approve);
  g_assert_cmpuint (id, >, 0);
  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.Notifications",
                                       "/org/freedesktop/Notifications",
                                       "org.freedesktop.DBus.Mock", "EmitSignal",
                                       g_variant_new ("(sss@av)", "org.freedesktop.Notifications",
                                                      "ActionInvoked", "us",
                                                      g_variant_new_parsed ("[<%u>, <%s>]",
                                                                            id, call.approve)),
                                       NULL, G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
  g_assert_no_error (error);

  wait_until (terminal_has, "notified $ touch from-notification", 30, "the approved command");
  wait_until (session_idle, NULL, 30, "the end of the turn");
  g_assert_true (g_file_test (made, G_FILE_TEST_EXISTS));
  /* Answered: the notification is withdrawn from the desktop. */
  wait_until (closed_notification, GUINT_TO_POINTER (id), 10, "CloseNotification");

  /* Pressed again (a stale button): nothing happens, nothing runs twice. */
  g_clear_pointer (&reply, g_variant_unref);
  g_assert_true (g_action_group_has_action (G_ACTION_GROUP (app), "approve"));
  g_action_group_activate_action (G_ACTION_GROUP (app), "approve",
                                  g_variant_new_string ("nope/nothing"));
  spin (200);
  g_assert_true (session_idle (NULL));

  warden_window_set_assume_active (window, TRUE);
  gtk_window_destroy (GTK_WINDOW (elsewhere));
  g_free (call.approve);
  g_free (call.summary);
  g_free (call.body);
}

/* ------------------------------------------------------------------------ */

/* node, allowed, starts a program the profile does not allow: the dialog
 * says so and names what started it; a real click on Reject, and it never
 * runs while node goes on. */
static void
test_started_program (void)
{
  WardenSession *session = start_session ("started");
  g_autofree char *made = g_build_filename (root, "started", "made-by-node", NULL);
  WardenApprovalDialog *dialog;
  WardenApproval *pending;
  GtkWidget *reject;

  g_queue_push_tail (&fake->script,
                     fake_reply ("Running the script.", "exec",
                                 "{\"command\":\"node -e \\\"require('child_process')"
                                 ".execSync('touch made-by-node')\\\"\"}", NULL));
  g_queue_push_tail (&fake->script, fake_reply ("It did not run.", NULL));
  type_and_send ("run the script");

  dialog = wait_for_dialog ();
  pending = warden_session_get_pending (session);
  g_assert_nonnull (warden_approval_get_chain (pending));
  g_assert_cmpstr (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (dialog)), ==,
                   "A program the command started needs approval");
  g_assert_cmpstr (warden_approval_get_subject (pending), ==, "sh -c 'touch made-by-node'");
  g_assert_false (g_file_test (made, G_FILE_TEST_EXISTS));
  x_screenshot ("approval-started-program.png");

  reject = find_labelled_button (GTK_WIDGET (dialog), "_Reject");
  g_assert_nonnull (reject);
  click_widget (reject, 1, 1);
  wait_until (session_idle, NULL, 60, "the end of the turn");
  g_assert_false (g_file_test (made, G_FILE_TEST_EXISTS));
  g_assert_null (warden_window_get_approval_dialog (window));
  /* Its card says so: not run, nothing left to answer. */
  g_assert_nonnull (find_mapped_label (GTK_WIDGET (window), "not run"));
  g_assert_null (warden_session_get_pending (session));
  x_screenshot ("started-program-rejected.png");
}

static GtkWidget *
find_menu_button (GtkWidget  *widget,
                  const char *tooltip)
{
  if (GTK_IS_MENU_BUTTON (widget) &&
      g_strcmp0 (gtk_widget_get_tooltip_text (widget), tooltip) == 0)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_menu_button (c, tooltip);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
has_summary_item (gpointer data)
{
  GListModel *items = warden_session_get_items (data);

  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr(WardenChatItem) item = g_list_model_get_item (items, i);

      if (warden_chat_item_get_kind (item) == WARDEN_CHAT_ITEM_SUMMARY)
        return TRUE;
    }
  return FALSE;
}

static gboolean
shows_summary_text (gpointer data)
{
  return label_shows (GTK_WIDGET (window), "SUMMARY of three tasks.");
}

static gboolean
shows_summary_row (gpointer data)
{
  return label_shows (GTK_WIDGET (window), "Earlier conversation summarised");
}

/* Issue 33: the header shows the project's instructions file; the session
 * menu's item, clicked, summarises the older turns, and the chat says so
 * with the summary to read. */
static void
test_summarise_from_menu (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *workspace = new_workspace ("summarise");
  g_autofree char *agents = g_build_filename (workspace, "AGENTS.md", NULL);
  WardenSession *session;
  GtkWidget *button, *popover, *label = NULL;
  JsonObject *body;

  g_assert_true (g_file_set_contents (agents, "Keep the tests green.\n", -1, NULL));
  session = warden_application_create_session (app, workspace, "node",
                                               WARDEN_SANDBOX_KIND_BWRAP, "summarise", &error);
  g_assert_no_error (error);
  g_assert_true (warden_window_select_session (window, warden_session_get_id (session)));
  spin (200);
  g_assert_nonnull (find_mapped_label (GTK_WIDGET (window), "AGENTS.md"));

  for (guint i = 0; i < 3; i++)
    {
      g_queue_push_tail (&fake->script, fake_reply ("Done.", NULL));
      type_and_send ("a task");
      wait_until (session_idle, NULL, 30, "the end of the turn");
    }
  body = json_node_get_object (g_ptr_array_index (fake->requests, fake->requests->len - 1));
  g_assert_nonnull (strstr (json_object_get_string_member (body, "system"),
                            "Keep the tests green."));

  fake->no_tools_reply = fake_reply ("SUMMARY of three tasks.", NULL);
  button = find_menu_button (GTK_WIDGET (window), "Session Menu");
  g_assert_nonnull (button);
  for (guint attempt = 0; attempt < 3 && label == NULL; attempt++)
    {
      click_widget (button, 1, 1);
      popover = GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (button)));
      for (guint i = 0; i < 200 && label == NULL; i++)
        {
          if (popover != NULL)
            label = find_mapped_label (popover, "Summarise Earlier Conversation");
          if (label == NULL)
            spin (50);
        }
    }
  g_assert_nonnull (label);
  x_screenshot ("session-menu-summarise.png");
  click_widget (label, 1, 1);
  wait_until (has_summary_item, session, 30, "the summary in the chat");
  wait_until (session_idle, NULL, 30, "the end of the summary");
  wait_until (shows_summary_row, NULL, 10, "the summary's row");
  /* Closed, it is a line; a click opens the summary the model reads. */
  g_assert_false (label_shows (GTK_WIDGET (window), "SUMMARY of three tasks."));
  click_widget (find_mapped_label (GTK_WIDGET (window), "Earlier conversation summarised"), 1, 1);
  wait_until (shows_summary_text, NULL, 10, "the summary's text");
  x_screenshot ("summarised.png");
  g_assert_cmpstr (warden_agent_get_summary (warden_session_get_agent (session)), ==,
                   "SUMMARY of three tasks.");
  g_assert_false (json_object_has_member (
    json_node_get_object (g_ptr_array_index (fake->requests, fake->requests->len - 1)), "tools"));
  g_clear_pointer (&fake->no_tools_reply, g_free);

  /* Reopened, the chat has the summary below the turn it stands for: the
   * first of the three (the last two stay as they are). */
  {
    g_autoptr(WardenSession) reopened = NULL;
    GListModel *items;

    reopened = warden_session_open (warden_application_get_store (app),
                                    warden_application_get_profiles (app), NULL,
                                    warden_session_get_id (session), &error);
    g_assert_no_error (error);
    items = warden_session_get_items (reopened);
    g_assert_cmpuint (g_list_model_get_n_items (items), ==, 7);
    for (guint i = 0; i < 7; i++)
      {
        g_autoptr(WardenChatItem) item = g_list_model_get_item (items, i);

        g_assert_cmpint (warden_chat_item_get_kind (item) == WARDEN_CHAT_ITEM_SUMMARY, ==, i == 2);
      }
  }
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  int ret;

  g_unsetenv ("ANTHROPIC_API_KEY");
  g_unsetenv ("OPENAI_API_KEY");
  g_unsetenv ("OPENAI_BASE_URL");
  /* As main.c: the renderer a user of this machine gets. */
  warden_renderer_choose ();
  gtk_test_init (&argc, &argv, NULL);

  root = g_dir_make_tmp ("warden-test-window-XXXXXX", &error);
  g_assert_no_error (error);
  fake = fake_model_new ();

  app = warden_application_new (G_APPLICATION_NON_UNIQUE);
  {
    g_autoptr(GSettings) settings = g_settings_new (APP_ID);

    /* No local Ollama to find: "anthropic" and no key is "no model". */
    g_settings_set_string (settings, "provider", "anthropic");
    g_settings_set_string (settings, "sandbox", "bwrap");
    /* Built by scripts/docker-test-setup: no registry is reachable. */
    g_settings_set_string (settings, "image",
                           g_getenv ("WARDEN_TEST_IMAGE") ? g_getenv ("WARDEN_TEST_IMAGE")
                                                          : "warden-test-busybox:latest");
  }
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  g_application_activate (G_APPLICATION (app));
  window = WARDEN_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (app)));
  if (window == NULL)
    window = gtk_application_get_windows (GTK_APPLICATION (app))->data;
  g_assert_nonnull (window);
  warden_window_set_assume_active (window, TRUE);
  spin (300);

  g_test_add_func ("/ui/window/first-run", test_first_run);
  g_test_add_func ("/ui/window/allowed-runs-in-terminal", test_allowed_runs_in_terminal);
  g_test_add_func ("/ui/window/usage-in-header", test_usage_in_header);
  g_test_add_func ("/ui/window/card-from-call", test_card_from_call);
  g_test_add_func ("/ui/window/allow-once", test_allow_once);
  g_test_add_func ("/ui/window/reject-with-feedback", test_reject_with_feedback);
  g_test_add_func ("/ui/window/always-allow", test_always_allow_saves_pattern);
  g_test_add_func ("/ui/window/inline-card", test_inline_card);
  g_test_add_func ("/ui/window/dismissed-stays-dismissed", test_dismissed_stays_dismissed);
  g_test_add_func ("/ui/window/spoofed-command", test_spoofed_command);
  g_test_add_func ("/ui/window/long-command", test_long_command);
  g_test_add_func ("/ui/window/approval-while-typing", test_approval_while_typing);
  g_test_add_func ("/ui/window/docker-session", test_docker_session);
  g_test_add_func ("/ui/window/question", test_question);
  g_test_add_func ("/ui/window/switch-profile", test_switch_profile);
  g_test_add_func ("/ui/window/network-error-banner", test_network_error_banner);
  g_test_add_func ("/ui/window/silent-model-banner", test_silent_model_banner);
  g_test_add_func ("/ui/window/pending-survives-restart", test_pending_survives_restart);
  g_test_add_func ("/ui/window/resumed-approval-same", test_resumed_approval_same);
  g_test_add_func ("/ui/window/reopened-diff", test_reopened_diff);
  g_test_add_func ("/ui/window/host-warning", test_host_warning);
  g_test_add_func ("/ui/window/refused-workspace", test_refused_workspace);
  g_test_add_func ("/ui/window/long-session", test_long_session);
  g_test_add_func ("/ui/window/about-and-shortcuts", test_about_and_shortcuts);
  g_test_add_func ("/ui/window/sidebar-opens-session", test_sidebar_opens_session);
  g_test_add_func ("/ui/window/one-title", test_one_title);
  g_test_add_func ("/ui/window/sidebar-daily", test_sidebar_daily);
  g_test_add_func ("/ui/window/new-session-keyboard", test_new_session_keyboard);
  g_test_add_func ("/ui/window/new-session-last-folder", test_new_session_last_folder);
  g_test_add_func ("/ui/window/empty-session", test_empty_session);
  g_test_add_func ("/ui/window/narrow-window", test_narrow_window);
  g_test_add_func ("/ui/window/narrow-waiting", test_narrow_waiting);
  g_test_add_func ("/ui/window/scroll-follow", test_scroll_follow);
  g_test_add_func ("/ui/window/wheel-over-code", test_wheel_over_code);
  g_test_add_func ("/ui/window/style-switch", test_style_switch);
  g_test_add_func ("/ui/window/stop", test_stop);
  g_test_add_func ("/ui/window/restore-step", test_restore_step);
  g_test_add_func ("/ui/window/command-changes", test_command_changes);
  g_test_add_func ("/ui/window/started-program", test_started_program);
  g_test_add_func ("/ui/window/trace-rename-delete", test_trace_rename_delete);
  g_test_add_func ("/ui/window/summarise-from-menu", test_summarise_from_menu);
  g_test_add_func ("/ui/window/notification-approve", test_notification_approve);
  ret = g_test_run ();

  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (app);
  fake_model_free (fake);
  return ret;
}
