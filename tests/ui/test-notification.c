/* test-notification.c: the desktop notifications: approvals, and tasks that
 * end while the user is in another window
 *
 * The notification goes over a private session bus (tests/ui/gui-session) to
 * python3-dbusmock's notification daemon, which records each Notify call;
 * the buttons are pressed as any process on the bus can press them, with
 * org.gtk.Actions.Activate on the application's object path. Against the
 * scripted model server and a real bubblewrap sandbox, with no window open.
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <gdk/x11/gdkx.h>
#include <glib/gstdio.h>
#include <string.h>

#include "fake-model.h"
#include "warden-application.h"
#include "warden-test-util.h"
#include "warden-renderer.h"
#include "warden-window.h"

static WardenApplication *app;
static FakeModel *fake;
static char *root;
/* Another peer on the session bus: what a process other than Warden sees. */
static GDBusConnection *other;

/* ------------------------------------------------------------------------ */

typedef gboolean (*Predicate) (gpointer data);

static gboolean
timeout_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
wait_until (Predicate   pred,
            gpointer    data,
            guint       seconds,
            const char *what)
{
  gboolean expired = FALSE;
  guint id = g_timeout_add_seconds (seconds, timeout_cb, &expired);

  while (!pred (data) && !expired)
    g_main_context_iteration (NULL, TRUE);
  if (!expired)
    g_source_remove (id);
  if (!pred (data))
    g_error ("Timed out after %u s waiting for %s", seconds, what);
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
has_pending (gpointer data)
{
  return warden_session_get_pending (data) != NULL;
}

static gboolean
is_idle (gpointer data)
{
  return g_strcmp0 (warden_session_get_state (data), "idle") == 0;
}

static gboolean
file_exists (gpointer data)
{
  return g_file_test (data, G_FILE_TEST_EXISTS);
}

static char *
exec_input (const char *command)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) node = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "command");
  json_builder_add_string_value (builder, command);
  json_builder_end_object (builder);
  node = json_builder_get_root (builder);
  return json_to_string (node, FALSE);
}

/* A session of its own whose model runs @commands, one turn after the other. */
static WardenSession *
start_session (const char  *name,
               const char **commands)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *workspace = g_build_filename (root, name, NULL);
  WardenSession *session;

  g_mkdir_with_parents (workspace, 0777);
  g_chmod (workspace, 0777);
  session = warden_application_create_session (app, workspace, "node",
                                               WARDEN_SANDBOX_KIND_BWRAP, name, &error);
  g_assert_no_error (error);
  for (guint i = 0; commands[i] != NULL; i++)
    {
      g_autofree char *input = exec_input (commands[i]);

      g_queue_push_tail (&fake->script, fake_reply (NULL, "exec", input, NULL));
    }
  g_queue_push_tail (&fake->script, fake_reply ("Done.", NULL));
  g_assert_true (warden_session_send (session, "go on", &error));
  g_assert_no_error (error);
  return session;
}

/* ------------------------------------------------------------------------ */
/* The notification as the daemon received it */

typedef struct
{
  const char *marker;   /* a word of the command, to find its Notify call */
  char       *summary;
  char       *body;
  GStrv       actions;  /* key, label, key, label… */
} Notified;

static void
notified_clear (Notified *n)
{
  g_clear_pointer (&n->summary, g_free);
  g_clear_pointer (&n->body, g_free);
  g_clear_pointer (&n->actions, g_strfreev);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Notified, notified_clear)

static GVariant *
unbox (GVariant *args,
       gsize     index)
{
  g_autoptr(GVariant) v = g_variant_get_child_value (args, index);

  return g_variant_get_variant (v);
}

static gboolean
find_notify (gpointer data)
{
  Notified *n = data;
  g_autoptr(GVariant) calls = NULL;
  g_autoptr(GVariant) list = NULL;

  calls = g_dbus_connection_call_sync (other, "org.freedesktop.Notifications",
                                       "/org/freedesktop/Notifications",
                                       "org.freedesktop.DBus.Mock", "GetCalls", NULL,
                                       G_VARIANT_TYPE ("(a(tsav))"), G_DBUS_CALL_FLAGS_NONE, -1,
                                       NULL, NULL);
  if (calls == NULL)
    return FALSE;
  list = g_variant_get_child_value (calls, 0);
  for (gsize i = g_variant_n_children (list); i > 0; i--)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (list, i - 1);
      g_autoptr(GVariant) args = g_variant_get_child_value (entry, 2);
      g_autoptr(GVariant) summary = NULL;
      g_autoptr(GVariant) body = NULL;
      g_autoptr(GVariant) actions = NULL;
      const char *method;

      g_variant_get_child (entry, 1, "&s", &method);
      if (g_strcmp0 (method, "Notify") != 0)
        continue;
      body = unbox (args, 4);
      if (strstr (g_variant_get_string (body, NULL), n->marker) == NULL)
        continue;
      summary = unbox (args, 3);
      actions = unbox (args, 5);
      notified_clear (n);
      n->summary = g_variant_dup_string (summary, NULL);
      n->body = g_variant_dup_string (body, NULL);
      n->actions = g_variant_dup_strv (actions, NULL);
      return TRUE;
    }
  return FALSE;
}

static void
wait_notified (Notified   *n,
               const char *marker)
{
  notified_clear (n);
  n->marker = marker;
  wait_until (find_notify, n, 10, marker);
}

/* The target of the button for @action ("app.approve") labelled @label, or
 * NULL without one. */
static char *
button_target (Notified   *n,
               const char *action,
               const char *label)
{
  for (guint i = 0; n->actions[i] != NULL && n->actions[i + 1] != NULL; i += 2)
    {
      g_autofree char *name = NULL;
      g_autoptr(GVariant) target = NULL;

      if (!g_action_parse_detailed_name (n->actions[i], &name, &target, NULL) ||
          g_strcmp0 (name, action) != 0 || g_strcmp0 (n->actions[i + 1], label) != 0)
        continue;
      g_assert_nonnull (target);
      return g_variant_dup_string (target, NULL);
    }
  return NULL;
}

static gboolean
has_action (Notified   *n,
            const char *action)
{
  for (guint i = 0; n->actions[i] != NULL; i += 2)
    if (g_str_has_prefix (n->actions[i], action))
      return TRUE;
  return FALSE;
}

/* ------------------------------------------------------------------------ */
/* Pressing a button as any process on the bus can */

static void
activated_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (object), result,
                                                             &error);

  g_assert_no_error (error);
  *(gboolean *) user_data = TRUE;
}

static gboolean
is_true (gpointer data)
{
  return *(gboolean *) data;
}

static void
activate_over_bus (const char *action,
                   const char *target)
{
  GDBusConnection *bus = g_application_get_dbus_connection (G_APPLICATION (app));
  gboolean done = FALSE;

  g_dbus_connection_call (other, g_dbus_connection_get_unique_name (bus),
                          g_application_get_dbus_object_path (G_APPLICATION (app)),
                          "org.gtk.Actions", "Activate",
                          g_variant_new ("(s@ava{sv})", action,
                                         g_variant_new_parsed ("[<%s>]", target), NULL),
                          NULL, G_DBUS_CALL_FLAGS_NONE, -1, NULL, activated_cb, &done);
  wait_until (is_true, &done, 10, "the activation");
  /* An answer would start the command at once; give it the chance. */
  spin (300);
}

/* ------------------------------------------------------------------------ */

typedef struct
{
  const char *name;
  const char *command;
  const char *marker;
  const char *shown;     /* must appear in the body, escaped as the daemon reads it */
} ReviewRow;

static const ReviewRow review_rows[] = {
  { "newline", "touch mark-newline\ntouch other", "mark-newline", "mark-newline\\ntouch" },
  { "markup", "touch '<b>mark-markup</b><img src=x>'", "mark-markup",
    "&lt;b&gt;mark-markup&lt;/b&gt;&lt;img src=x&gt;" },
  { "bidi", "touch mark-bidi\u202etxt.sh", "mark-bidi", "mark-bidi\\u202etxt.sh" },
  { "two-parts", "touch mark-two; touch other", "mark-two", "touch mark-two; touch other" },
  { "long", "touch mark-long-"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "mark-long", "touch mark-long-xxx" },
};

/* Issue 32, item 7: a question's notification names its session in the
 * title, after what waits, so that two sessions can be told apart. */
static void
assert_titled (Notified      *n,
               const char    *heading,
               WardenSession *session)
{
  g_autofree char *expected = g_strdup_printf ("%s — %s", heading,
                                               warden_session_get_title (session));

  g_assert_cmpstr (n->summary, ==, expected);
}

/* A command the notification cannot show whole: no Approve, only Review and
 * Reject, and a body a daemon shows as the text it is. */
static void
test_review_only (gconstpointer data)
{
  const ReviewRow *row = data;
  const char *commands[] = { row->command, NULL };
  WardenSession *session = start_session (row->name, commands);
  g_auto(Notified) n = { 0 };
  WardenApproval *approval;
  g_autofree char *token = NULL;
  g_autofree char *reject = NULL;

  wait_until (has_pending, session, 60, "the approval");
  approval = warden_session_get_pending (session);
  wait_notified (&n, row->marker);

  assert_titled (&n, "Command needs approval", session);
  g_assert_false (has_action (&n, "app.approve"));
  token = button_target (&n, "app.show-approval", "Review");
  g_assert_nonnull (token);
  reject = button_target (&n, "app.reject", "Reject");
  g_assert_cmpstr (reject, ==, token);

  /* One line, markup escaped, nothing hidden, 200 characters at most. */
  g_assert_null (strchr (n.body, '\n'));
  g_assert_null (strstr (n.body, "\u202e"));
  g_assert_nonnull (strstr (n.body, row->shown));
  {
    g_autoptr(GMarkupParseContext) context = NULL;
    static const GMarkupParser parser = { 0 };
    g_autofree char *wrapped = g_strdup_printf ("<body>%s</body>", n.body);
    g_autoptr(GError) error = NULL;

    /* As a body-markup daemon parses it: no element but ours. */
    g_assert_null (strchr (n.body, '<'));
    context = g_markup_parse_context_new (&parser, 0, NULL, NULL);
    g_assert_true (g_markup_parse_context_parse (context, wrapped, -1, &error));
    g_assert_no_error (error);
  }
  g_assert_cmpuint (g_utf8_strlen (n.body, -1), <=, 200);
  if (g_str_equal (row->name, "long"))
    {
      g_assert_true (g_str_has_suffix (n.body, "…"));
      g_assert_cmpuint (g_utf8_strlen (n.body, -1), ==, 200);
    }

  /* Approve with the notification's own token: it offered no Approve. */
  activate_over_bus ("approve", token);
  g_assert_true (warden_session_get_pending (session) == approval);

  /* Reject works, once. */
  activate_over_bus ("reject", token);
  g_assert_true (warden_session_get_pending (session) != approval);
  wait_until (is_idle, session, 60, "the end of the turn");
}

/* One simple command on one short line: Approve, on a target nobody can
 * guess from the session or the tool call. */
static void
test_one_part_approve (void)
{
  const char *commands[] = { "touch mark-approve", NULL };
  WardenSession *session = start_session ("approve", commands);
  g_autofree char *made = g_build_filename (root, "approve", "mark-approve", NULL);
  g_auto(Notified) n = { 0 };
  WardenApproval *approval;
  g_autofree char *token = NULL;
  g_autofree char *reject = NULL;

  wait_until (has_pending, session, 60, "the approval");
  approval = warden_session_get_pending (session);
  wait_notified (&n, "mark-approve");
  assert_titled (&n, "Command needs approval", session);
  g_assert_cmpstr (n.body, ==, "touch mark-approve");
  token = button_target (&n, "app.approve", "Approve");
  g_assert_nonnull (token);
  reject = button_target (&n, "app.reject", "Reject");
  g_assert_cmpstr (reject, ==, token);
  g_assert_null (strstr (token, warden_session_get_id (session)));
  g_assert_null (strstr (token, warden_approval_get_id (approval)));
  g_assert_cmpuint (strlen (token), >=, 32);

  g_assert_false (g_file_test (made, G_FILE_TEST_EXISTS));
  activate_over_bus ("approve", token);
  wait_until (file_exists, made, 60, "the approved command");
  wait_until (is_idle, session, 60, "the end of the turn");
}

/* Another process on the bus presses Approve with a target it made up,
 * guessed from the session and tool call, or saw used: nothing runs. The
 * real token approves once. */
/* A program an allowed command started (node's execSync) asks from the
 * desktop too, naming what started it; it is not approved from there (the
 * window shows the whole chain); rejected, it does not run, and the command
 * goes on. */
static void
test_started_program (void)
{
  const char *commands[] = { "node -e \"require('child_process').execSync('touch mark-nested')\"",
                             NULL };
  WardenSession *session = start_session ("nested", commands);
  g_autofree char *made = g_build_filename (root, "nested", "mark-nested", NULL);
  g_auto(Notified) n = { 0 };
  g_autofree char *token = NULL;

  wait_until (has_pending, session, 60, "the approval");
  g_assert_nonnull (warden_approval_get_chain (warden_session_get_pending (session)));
  wait_notified (&n, "mark-nested");
  assert_titled (&n, "A program the command started needs approval", session);
  g_test_message ("body: %s", n.body);
  /* Escaped for a daemon that reads body markup. */
  g_assert_true (g_str_has_prefix (n.body, "sh -c &apos;touch mark-nested&apos; — started by "
                                           "node -e &apos;require("));
  g_assert_null (button_target (&n, "app.approve", "Approve"));
  token = button_target (&n, "app.reject", "Reject");
  g_assert_nonnull (token);
  activate_over_bus ("reject", token);
  wait_until (is_idle, session, 60, "the end of the turn");
  g_assert_false (g_file_test (made, G_FILE_TEST_EXISTS));
}

static void
test_forged_targets (void)
{
  const char *commands[] = { "touch mark-first", "touch mark-second", NULL };
  WardenSession *session = start_session ("forged", commands);
  g_autofree char *first = g_build_filename (root, "forged", "mark-first", NULL);
  g_autofree char *second = g_build_filename (root, "forged", "mark-second", NULL);
  g_autofree char *forged = g_uuid_string_random ();
  g_autofree char *guessed = NULL;
  g_autofree char *used = NULL;
  g_auto(Notified) n = { 0 };
  WardenApproval *approval;

  wait_until (has_pending, session, 60, "the first approval");
  approval = warden_session_get_pending (session);
  wait_notified (&n, "mark-first");
  used = button_target (&n, "app.approve", "Approve");
  g_assert_nonnull (used);

  activate_over_bus ("approve", forged);
  activate_over_bus ("approve", "");
  guessed = g_strdup_printf ("%s/%s", warden_session_get_id (session),
                             warden_approval_get_id (approval));
  activate_over_bus ("approve", guessed);
  g_assert_true (warden_session_get_pending (session) == approval);
  g_assert_false (g_file_test (first, G_FILE_TEST_EXISTS));

  activate_over_bus ("approve", used);
  wait_until (file_exists, first, 60, "the first command");

  /* The second command waits; the first token, and a guess, do nothing. */
  wait_until (has_pending, session, 60, "the second approval");
  approval = warden_session_get_pending (session);
  wait_notified (&n, "mark-second");
  activate_over_bus ("approve", used);
  activate_over_bus ("reject", used);
  g_free (guessed);
  guessed = g_strdup_printf ("%s/%s", warden_session_get_id (session),
                             warden_approval_get_id (approval));
  activate_over_bus ("approve", guessed);
  g_assert_true (warden_session_get_pending (session) == approval);
  g_assert_false (g_file_test (second, G_FILE_TEST_EXISTS));

  /* Its own token approves it, once. */
  g_free (used);
  used = button_target (&n, "app.approve", "Approve");
  g_assert_nonnull (used);
  activate_over_bus ("approve", used);
  wait_until (file_exists, second, 60, "the second command");
  wait_until (is_idle, session, 60, "the end of the turn");
  g_assert_cmpstr (warden_session_get_state (session), ==, "idle");
}

/* ------------------------------------------------------------------------ */
/* Tasks that end while the user looks elsewhere */

/* The daemon's id of the last notification whose body holds @marker: the
 * template numbers new ones from 1; a replacement keeps its id. */
static guint32
notification_id_of (const char *marker)
{
  g_autoptr(GVariant) calls = NULL;
  g_autoptr(GVariant) list = NULL;
  guint32 next = 0, found = 0;

  calls = g_dbus_connection_call_sync (other, "org.freedesktop.Notifications",
                                       "/org/freedesktop/Notifications",
                                       "org.freedesktop.DBus.Mock", "GetCalls", NULL,
                                       G_VARIANT_TYPE ("(a(tsav))"), G_DBUS_CALL_FLAGS_NONE, -1,
                                       NULL, NULL);
  g_assert_nonnull (calls);
  list = g_variant_get_child_value (calls, 0);
  for (gsize i = 0; i < g_variant_n_children (list); i++)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (list, i);
      g_autoptr(GVariant) args = g_variant_get_child_value (entry, 2);
      g_autoptr(GVariant) replaces = NULL;
      g_autoptr(GVariant) body = NULL;
      const char *method;
      guint32 id;

      g_variant_get_child (entry, 1, "&s", &method);
      if (g_strcmp0 (method, "Notify") != 0)
        continue;
      replaces = unbox (args, 1);
      id = g_variant_get_uint32 (replaces) != 0 ? g_variant_get_uint32 (replaces) : ++next;
      body = unbox (args, 4);
      if (strstr (g_variant_get_string (body, NULL), marker) != NULL)
        found = id;
    }
  return found;
}

/* A session with its own project folder @name whose model says @sse. */
static WardenSession *
start_scripted (const char *name,
                char       *sse)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *workspace = g_build_filename (root, name, NULL);
  WardenSession *session;

  g_mkdir_with_parents (workspace, 0777);
  session = warden_application_create_session (app, workspace, "node",
                                               WARDEN_SANDBOX_KIND_BWRAP, "a task", &error);
  g_assert_no_error (error);
  g_queue_push_tail (&fake->script, sse);
  g_assert_true (warden_session_send (session, "go on", &error));
  g_assert_no_error (error);
  return session;
}

/* No window at all: the task's end goes to the desktop, naming the project,
 * and clicking it opens the window on the session. */
static void
test_task_finished (void)
{
  WardenSession *session = start_scripted ("proj-finished", fake_reply ("All done.", NULL));
  g_auto(Notified) n = { 0 };

  wait_until (is_idle, session, 60, "the end of the turn");
  wait_notified (&n, "proj-finished");
  g_assert_cmpstr (n.summary, ==, "Task finished");
  g_assert_true (g_str_has_prefix (n.body, "proj-finished: "));
  /* Only the default action (a click): nothing to answer. */
  g_assert_false (has_action (&n, "app.approve"));
}

static void
test_task_failed (void)
{
  static const char error_event[] =
    "event: error\n"
    "data: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
    "\"message\":\"the-scripted-failure\"}}\n\n";
  WardenSession *session = start_scripted ("proj-failed", g_strdup (error_event));
  g_auto(Notified) n = { 0 };

  wait_until (is_idle, session, 60, "the failed turn");
  wait_notified (&n, "proj-failed");
  g_assert_cmpstr (n.summary, ==, "Task failed");
  g_assert_true (g_str_has_prefix (n.body, "proj-failed: "));
  g_assert_nonnull (strstr (n.body, "the-scripted-failure"));
}

static void
test_task_question (void)
{
  WardenSession *session =
    start_scripted ("proj-question",
                    fake_reply (NULL, "ask_user", "{\"question\":\"Which branch?\"}", NULL));
  g_auto(Notified) n = { 0 };
  g_autoptr(GError) error = NULL;

  wait_until (has_pending, session, 60, "the question");
  wait_notified (&n, "proj-question");
  assert_titled (&n, "The agent asks", session);
  g_assert_cmpstr (n.body, ==, "proj-question: Which branch?");

  g_queue_push_tail (&fake->script, fake_reply ("Thanks.", NULL));
  g_assert_true (warden_session_answer (session,
                                        warden_approval_get_id (warden_session_get_pending (session)),
                                        TRUE, FALSE, "main", "card", &error));
  g_assert_no_error (error);
  wait_until (is_idle, session, 60, "the end of the turn");
}

/* Real X focus, as a window manager gives it when the user clicks a window. */
static void
x_focus (GtkWidget *toplevel)
{
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (toplevel));
  g_autofree char *command = g_strdup_printf ("xdotool windowfocus --sync %lu",
                                              (gulong) gdk_x11_surface_get_xid (surface));
  g_autoptr(GError) error = NULL;
  int status;

  g_spawn_command_line_sync (command, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  spin (300);
}

static gboolean
window_shows (gpointer data)
{
  WardenWindow *window = WARDEN_WINDOW (gtk_application_get_windows (GTK_APPLICATION (app))->data);

  return warden_window_get_session (window) == data;
}

/* While the window has the focus nothing reaches the desktop; once the user
 * is in another window, the task's end does, and its click brings the
 * window back on that session. */
static void
test_task_focus (void)
{
  WardenWindow *window = warden_window_new (app);
  GtkWidget *elsewhere = gtk_window_new ();
  WardenSession *session;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  guint32 id;

  gtk_window_present (GTK_WINDOW (window));
  spin (300);
  x_focus (GTK_WIDGET (window));
  g_assert_true (gtk_window_is_active (GTK_WINDOW (window)));

  session = start_scripted ("proj-focused", fake_reply ("Seen.", NULL));
  wait_until (is_idle, session, 60, "the end of the turn");
  spin (500);
  g_assert_cmpuint (notification_id_of ("proj-focused"), ==, 0);

  /* The user goes to another application's window. */
  gtk_window_set_title (GTK_WINDOW (elsewhere), "Another application");
  gtk_window_present (GTK_WINDOW (elsewhere));
  spin (300);
  x_focus (elsewhere);
  g_assert_false (gtk_window_is_active (GTK_WINDOW (window)));

  session = start_scripted ("proj-away", fake_reply ("Unseen.", NULL));
  wait_until (is_idle, session, 60, "the end of the turn");
  {
    g_auto(Notified) n = { 0 };

    wait_notified (&n, "proj-away");
    g_assert_cmpstr (n.summary, ==, "Task finished");
  }
  g_assert_false (window_shows (session));

  /* The user clicks the notification. */
  id = notification_id_of ("proj-away");
  g_assert_cmpuint (id, >, 0);
  reply = g_dbus_connection_call_sync (other, "org.freedesktop.Notifications",
                                       "/org/freedesktop/Notifications",
                                       "org.freedesktop.DBus.Mock", "EmitSignal",
                                       g_variant_new ("(sss@av)", "org.freedesktop.Notifications",
                                                      "ActionInvoked", "us",
                                                      g_variant_new_parsed ("[<%u>, <%s>]",
                                                                            id, "default")),
                                       NULL, G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
  g_assert_no_error (error);
  wait_until (window_shows, session, 10, "the window on the session");
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window)));

  gtk_window_destroy (GTK_WINDOW (elsewhere));
  gtk_window_destroy (GTK_WINDOW (window));
  spin (200);
}

/* ------------------------------------------------------------------------ */

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *address = NULL;
  int ret;

  g_unsetenv ("OPENAI_API_KEY");
  g_unsetenv ("OPENAI_BASE_URL");
  /* As main.c: the renderer a user of this machine gets. */
  warden_renderer_choose ();
  gtk_test_init (&argc, &argv, NULL);

  root = g_dir_make_tmp ("warden-test-notification-XXXXXX", &error);
  g_assert_no_error (error);
  fake = fake_model_new ();
  g_setenv ("ANTHROPIC_API_KEY", "test-key", TRUE);
  g_setenv ("ANTHROPIC_BASE_URL", fake->url, TRUE);

  address = g_dbus_address_get_for_bus_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_assert_no_error (error);
  other = g_dbus_connection_new_for_address_sync (address,
                                                  G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                  G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                  NULL, NULL, &error);
  g_assert_no_error (error);

  app = warden_application_new (G_APPLICATION_NON_UNIQUE);
  {
    g_autoptr(GSettings) settings = g_settings_new (APP_ID);

    g_settings_set_string (settings, "provider", "anthropic");
    g_settings_set_string (settings, "sandbox", "bwrap");
  }
  /* Registered, never activated: no window, so every approval goes to the desktop. */
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  wait_until (has_provider, NULL, 10, "the provider");

  for (guint i = 0; i < G_N_ELEMENTS (review_rows); i++)
    {
      g_autofree char *path = g_strdup_printf ("/ui/notification/review-only/%s",
                                               review_rows[i].name);

      g_test_add_data_func (path, &review_rows[i], test_review_only);
    }
  g_test_add_func ("/ui/notification/one-part-approve", test_one_part_approve);
  g_test_add_func ("/ui/notification/forged-targets", test_forged_targets);
  g_test_add_func ("/ui/notification/started-program", test_started_program);
  g_test_add_func ("/ui/notification/task/finished", test_task_finished);
  g_test_add_func ("/ui/notification/task/failed", test_task_failed);
  g_test_add_func ("/ui/notification/task/question", test_task_question);
  /* Last: it opens a window. */
  g_test_add_func ("/ui/notification/task/focus", test_task_focus);
  ret = g_test_run ();

  g_object_unref (app);
  g_object_unref (other);
  fake_model_free (fake);
  warden_test_remove_tree (root);
  return ret;
}
