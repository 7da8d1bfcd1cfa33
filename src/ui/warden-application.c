/* warden-application.c: the Warden desktop application
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "warden-application.h"

#include <errno.h>
#include <sys/random.h>

#include "common/warden-printable.h"
#include "llm/warden-anthropic-provider.h"
#include "llm/warden-env-keys.h"
#include "llm/warden-openai-provider.h"
#include "engine/warden-docker-client.h"
#include "sandbox/warden-docker-sandbox.h"
#include "sandbox/warden-flatpak.h"
#include "warden-preferences-window.h"
#include "warden-window.h"

struct _WardenApplication
{
  AdwApplication      parent_instance;

  GSettings          *settings;
  WardenSessionStore *store;
  GError             *store_error;
  WardenProfileStore *profiles;
  WardenCredentials  *credentials;
  WardenLlmProvider  *provider;
  GCancellable       *provider_cancellable;
  WardenSandboxKind   default_sandbox;   /* docker or bwrap once probed, else AUTO */
  GHashTable         *sessions;          /* id → WardenSession */
  GHashTable         *tickets;           /* notification token → Ticket */
  GCancellable       *cancellable;
  guint               store_watch_id;
  gint64              store_version;
};

G_DEFINE_FINAL_TYPE (WardenApplication, warden_application, ADW_TYPE_APPLICATION)

enum
{
  PROP_0,
  PROP_PROVIDER,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  SESSIONS_CHANGED,
  PROFILES_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

WardenApplication *
warden_application_new (GApplicationFlags flags)
{
  return g_object_new (WARDEN_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", flags,
                       "resource-base-path", RESOURCE_PREFIX,
                       NULL);
}

GSettings *
warden_application_get_settings (WardenApplication *self)
{
  return self->settings;
}

WardenSessionStore *
warden_application_get_store (WardenApplication *self)
{
  return self->store;
}

const GError *
warden_application_get_store_error (WardenApplication *self)
{
  return self->store_error;
}

gboolean
warden_application_move_store_aside (WardenApplication  *self,
                                     char              **moved_to,
                                     GError            **error)
{
  g_return_val_if_fail (WARDEN_IS_APPLICATION (self), FALSE);
  g_return_val_if_fail (self->store == NULL, FALSE);

  if (!warden_session_store_move_aside (NULL, moved_to, error))
    return FALSE;
  g_clear_error (&self->store_error);
  self->store = warden_session_store_new (NULL, &self->store_error);
  if (self->store == NULL)
    {
      g_propagate_error (error, g_error_copy (self->store_error));
      return FALSE;
    }
  self->store_version = warden_session_store_get_data_version (self->store);
  g_signal_emit (self, signals[SESSIONS_CHANGED], 0);
  return TRUE;
}

WardenProfileStore *
warden_application_get_profiles (WardenApplication *self)
{
  return self->profiles;
}

WardenCredentials *
warden_application_get_credentials (WardenApplication *self)
{
  return self->credentials;
}

WardenLlmProvider *
warden_application_get_provider (WardenApplication *self)
{
  return self->provider;
}

WardenSandboxKind
warden_application_default_sandbox (WardenApplication *self)
{
  return self->default_sandbox != WARDEN_SANDBOX_KIND_AUTO ? self->default_sandbox
                                                           : WARDEN_SANDBOX_KIND_BWRAP;
}

/* ------------------------------------------------------------------------ */
/* The model: warden_llm_provider_new_for_settings_async() decides which. */

static void
set_provider (WardenApplication *self,
              WardenLlmProvider *provider)
{
  GHashTableIter iter;
  gpointer value;

  if (!g_set_object (&self->provider, provider))
    return;
  if (provider != NULL)
    {
      /* Sessions opened to be read can run now. */
      g_hash_table_iter_init (&iter, self->sessions);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        {
          g_autoptr(GError) error = NULL;

          if (warden_session_get_agent (value) == NULL &&
              !warden_session_set_provider (value, provider, &error))
            g_warning ("Could not reopen session %s: %s", warden_session_get_id (value),
                       error->message);
        }
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROVIDER]);
}

static void
reload_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(WardenApplication) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenLlmProvider) provider =
    warden_llm_provider_new_for_settings_finish (result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  set_provider (self, provider);
}

void
warden_application_reload_provider (WardenApplication *self)
{
  g_cancellable_cancel (self->provider_cancellable);
  g_clear_object (&self->provider_cancellable);
  self->provider_cancellable = g_cancellable_new ();

  /* A new model applies to new sessions and to sessions opened later;
   * running ones keep theirs. */
  warden_llm_provider_new_for_settings_async (self->settings, self->credentials, NULL, NULL,
                                              self->provider_cancellable, reload_cb,
                                              g_object_ref (self));
}

static void
model_setting_changed_cb (GSettings         *settings,
                          const char        *key,
                          WardenApplication *self)
{
  warden_application_reload_provider (self);
}

/* ------------------------------------------------------------------------ */
/* Sessions */

static void
session_approval_cb (WardenSession     *session,
                     WardenApproval    *approval,
                     WardenApplication *self);

static void
forget_tickets (WardenApplication *self,
                WardenSession     *session);

static void
session_approval_resolved_cb (WardenSession     *session,
                              const char        *approval_id,
                              WardenApplication *self)
{
  g_autofree char *id = g_strdup_printf ("approval-%s", approval_id);

  /* Answered anywhere: the notification has nothing left to do. */
  g_application_withdraw_notification (G_APPLICATION (self), id);
  forget_tickets (self, session);
}

static void
session_title_cb (WardenSession     *session,
                  GParamSpec        *pspec,
                  WardenApplication *self)
{
  g_signal_emit (self, signals[SESSIONS_CHANGED], 0);
}

static void session_finished_cb (WardenSession     *session,
                                 int                outcome,
                                 WardenApplication *self);
static void session_failed_cb   (WardenSession     *session,
                                 const GError      *error,
                                 WardenApplication *self);

/* Always allow copied the built-in default profile: new sessions start
 * on the copy, in the window and in warden-cli, as the dialog said. */
static void
session_profile_copied_cb (WardenSession     *session,
                           const char        *from,
                           const char        *to,
                           WardenApplication *self)
{
  g_autofree char *current = g_settings_get_string (self->settings, "default-profile");

  if (g_strcmp0 (current, from) == 0)
    g_settings_set_string (self->settings, "default-profile", to);
}

/* The window's context-window setting, for the session's agent once it has
 * one, and again whenever it changes. */
static void
apply_context_window (WardenApplication *self,
                      WardenSession     *session)
{
  WardenAgent *agent = warden_session_get_agent (session);

  if (agent != NULL)
    warden_agent_set_context_window (agent, g_settings_get_uint (self->settings,
                                                                 "context-window"));
}

static void
session_agent_cb (WardenSession     *session,
                  GParamSpec        *pspec,
                  WardenApplication *self)
{
  apply_context_window (self, session);
}

static void
context_window_changed_cb (GSettings         *settings,
                           const char        *key,
                           WardenApplication *self)
{
  GHashTableIter iter;
  WardenSession *session;

  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &session))
    apply_context_window (self, session);
}

static WardenSession *
adopt_session (WardenApplication *self,
               WardenSession     *session)
{
  g_signal_connect_object (session, "profile-copied", G_CALLBACK (session_profile_copied_cb),
                           self, 0);
  g_signal_connect_object (session, "approval", G_CALLBACK (session_approval_cb), self, 0);
  g_signal_connect_object (session, "approval-resolved",
                           G_CALLBACK (session_approval_resolved_cb), self, 0);
  g_signal_connect_object (session, "notify::title", G_CALLBACK (session_title_cb), self, 0);
  g_signal_connect_object (session, "notify::state", G_CALLBACK (session_title_cb), self, 0);
  g_signal_connect_object (session, "finished", G_CALLBACK (session_finished_cb), self, 0);
  g_signal_connect_object (session, "failed", G_CALLBACK (session_failed_cb), self, 0);
  g_signal_connect_object (session, "notify::agent", G_CALLBACK (session_agent_cb), self, 0);
  apply_context_window (self, session);
  g_hash_table_insert (self->sessions, g_strdup (warden_session_get_id (session)), session);
  return session;
}

static gboolean
check_store (WardenApplication  *self,
             GError            **error)
{
  if (self->store != NULL)
    return TRUE;
  if (self->store_error != NULL)
    g_propagate_error (error, g_error_copy (self->store_error));
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED, _("Warden is not started"));
  return FALSE;
}

WardenSession *
warden_application_open_session (WardenApplication  *self,
                                 const char         *id,
                                 GError            **error)
{
  WardenSession *session = g_hash_table_lookup (self->sessions, id);

  if (session != NULL)
    return session;
  if (!check_store (self, error))
    return NULL;
  session = warden_session_open (self->store, self->profiles, self->provider, id, error);
  if (session == NULL)
    return NULL;
  adopt_session (self, session);
  /* A pending approval restored after a crash is announced like a new one. */
  if (warden_session_get_pending (session) != NULL)
    session_approval_cb (session, warden_session_get_pending (session), self);
  return session;
}

WardenSession *
warden_application_create_session (WardenApplication  *self,
                                   const char         *workspace,
                                   const char         *profile,
                                   WardenSandboxKind   sandbox,
                                   const char         *title,
                                   GError            **error)
{
  WardenAgentConfig config = { 0 };
  g_autofree char *image = g_settings_get_string (self->settings, "image");
  WardenSession *session;

  if (!check_store (self, error))
    return NULL;
  if (self->provider == NULL)
    {
      g_set_error (error, WARDEN_SESSION_ERROR, WARDEN_SESSION_ERROR_NO_MODEL,
                   _("No model is set up: add an API key or start a local model server in "
                     "Preferences"));
      return NULL;
    }
  /* Automatic: the engine that answers, and bwrap after all when its image
   * cannot be had. */
  config.sandbox_fallback = sandbox == WARDEN_SANDBOX_KIND_AUTO;
  if (sandbox == WARDEN_SANDBOX_KIND_AUTO)
    sandbox = warden_application_default_sandbox (self);
  /* Inside Flatpak bubblewrap cannot run: say so now, not at the first command. */
  if (!warden_flatpak_check_backend (sandbox, error) ||
      !warden_flatpak_check_workspace (workspace, error))
    return NULL;

  config.workspace = (char *) workspace;
  config.profile = (char *) profile;
  config.sandbox = sandbox;
  /* Empty: the image the session's profile names. */
  config.image = image[0] != '\0' ? image : NULL;
  /* The old switch: for a profile without a network section. */
  config.network = g_settings_get_boolean (self->settings, "network") ? WARDEN_NETWORK_OPEN
                                                                      : WARDEN_NETWORK_NONE;
  config.max_steps = g_settings_get_uint (self->settings, "max-steps");
  config.memory_bytes = (guint64) g_settings_get_uint (self->settings, "memory-limit-mb")
                        * 1024 * 1024;
  config.cpus = g_settings_get_double (self->settings, "cpu-limit");
  session = warden_session_new (self->store, self->profiles, self->provider, &config, title,
                                error);
  if (session == NULL)
    return NULL;
  adopt_session (self, session);
  g_signal_emit (self, signals[SESSIONS_CHANGED], 0);
  return session;
}

static void
delete_close_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!warden_session_close_finish (WARDEN_SESSION (object), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_warning ("Could not take the sandbox down: %s", error->message);
}

gboolean
warden_application_delete_session (WardenApplication  *self,
                                   const char         *id,
                                   GError            **error)
{
  g_autoptr(WardenSession) session = NULL;
  g_autofree char *key = NULL;

  if (!check_store (self, error))
    return FALSE;
  if (g_hash_table_steal_extended (self->sessions, id, (gpointer *) &key, (gpointer *) &session))
    {
      WardenApproval *pending = warden_session_get_pending (session);

      if (pending != NULL)
        session_approval_resolved_cb (session, warden_approval_get_id (pending), self);
      g_signal_handlers_disconnect_by_data (session, self);
      warden_session_close_async (session, NULL, delete_close_cb, NULL);
    }
  if (!warden_session_store_delete_session (self->store, id, error))
    return FALSE;
  g_signal_emit (self, signals[SESSIONS_CHANGED], 0);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Approvals from notifications */

static WardenWindow *
main_window (WardenApplication *self)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (WARDEN_IS_WINDOW (window))
    return WARDEN_WINDOW (window);
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l; l = l->next)
    if (WARDEN_IS_WINDOW (l->data))
      return l->data;
  return NULL;
}

typedef struct
{
  WardenApplication *self;
  WardenSession     *session;
  WardenApproval    *approval;
} Announce;

/* What a notification's buttons may do. Their targets go over the session
 * bus, where any process can activate app.approve: a target is a random
 * token that answers only the approval it was made for, once. */
typedef struct
{
  WardenSession  *session;
  WardenApproval *approval;
  gboolean        can_approve;
} Ticket;

static void
ticket_free (Ticket *ticket)
{
  g_object_unref (ticket->session);
  g_object_unref (ticket->approval);
  g_free (ticket);
}

/* 128 bits from the kernel: GLib's g_random is not meant to be unguessable. */
static char *
new_token (void)
{
  guint8 bytes[16];
  gsize got = 0;
  GString *hex = g_string_sized_new (2 * sizeof bytes);

  while (got < sizeof bytes)
    {
      ssize_t n = getrandom (bytes + got, sizeof bytes - got, 0);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          g_string_free (hex, TRUE);
          return g_uuid_string_random ();
        }
      got += n;
    }
  for (gsize i = 0; i < sizeof bytes; i++)
    g_string_append_printf (hex, "%02x", bytes[i]);
  return g_string_free (hex, FALSE);
}

static gboolean
ticket_of_session (gpointer key,
                   gpointer value,
                   gpointer user_data)
{
  return ((Ticket *) value)->session == user_data;
}

static void
forget_tickets (WardenApplication *self,
                WardenSession     *session)
{
  if (self->tickets != NULL)
    g_hash_table_foreach_remove (self->tickets, ticket_of_session, session);
}

/* The pending approval @token was made for, or NULL (logged at debug level)
 * for a token never made, used already, or whose approval is no longer the
 * one waiting. */
static Ticket *
find_ticket (WardenApplication *self,
             const char        *token)
{
  Ticket *ticket = g_hash_table_lookup (self->tickets, token);

  if (ticket == NULL)
    {
      g_debug ("Ignoring a notification action with an unknown target");
      return NULL;
    }
  if (warden_session_get_pending (ticket->session) != ticket->approval)
    {
      g_debug ("Ignoring a notification action for approval %s: it is not pending",
               warden_approval_get_id (ticket->approval));
      g_hash_table_remove (self->tickets, token);
      return NULL;
    }
  return ticket;
}

#define NOTIFICATION_BODY_MAX 200   /* characters, with the "…" */
#define NOTIFICATION_APPROVE_MAX 80 /* a command longer than a banner's line is reviewed */

/* Daemons with body-markup read <b>, <a> and <img>; a banner shows the
 * first line. What the model wrote is shown, never interpreted. */
static char *
notification_body (const char *subject)
{
  g_autofree char *printable = warden_printable (subject, -1, WARDEN_PRINTABLE_ONE_LINE);

  if (g_utf8_strlen (printable, -1) > NOTIFICATION_BODY_MAX)
    {
      g_autofree char *cut = g_utf8_substring (printable, 0, NOTIFICATION_BODY_MAX - 1);

      g_free (printable);
      printable = g_strconcat (cut, "…", NULL);
    }
  return g_markup_escape_text (printable, -1);
}

/* A notification's title names the session it comes from (issue 32: two
 * sessions that wait could not be told apart): "Command needs approval —
 * Fix the failing test". The title is plain text for every daemon; what the
 * model or the user wrote in it is shown escaped and cut short. */
#define NOTIFICATION_TITLE_SESSION_MAX 48

static char *
notification_title (const char    *heading,
                    WardenSession *session)
{
  g_autofree char *title = warden_printable (warden_session_get_title (session), -1,
                                             WARDEN_PRINTABLE_ONE_LINE);

  if (g_utf8_strlen (title, -1) > NOTIFICATION_TITLE_SESSION_MAX)
    {
      g_autofree char *cut = g_utf8_substring (title, 0, NOTIFICATION_TITLE_SESSION_MAX - 1);

      g_free (title);
      title = g_strconcat (cut, "…", NULL);
    }
  /* Translators: a notification's title: what waits, then the session's title */
  return g_strdup_printf (_("%s — %s"), heading, title);
}

/* Approve from the desktop only when the notification shows all that will
 * run: one simple command on one short line, nothing hidden or escaped, no
 * environment. Anything else is reviewed in the window. */
static gboolean
can_approve_from_notification (WardenApproval *approval)
{
  const char *subject = warden_approval_get_subject (approval);
  const char * const *env = warden_approval_get_env (approval);
  WardenDecision *decision = warden_approval_get_decision (approval);
  g_autofree char *escaped = NULL;

  /* A started program's notification names what started it as well: the
   * window shows the whole chain. */
  if (warden_approval_get_kind (approval) != WARDEN_APPROVAL_COMMAND ||
      warden_approval_get_chain (approval) != NULL ||
      decision == NULL || warden_decision_get_n_parts (decision) != 1 ||
      subject == NULL || *subject == '\0' || (env != NULL && env[0] != NULL))
    return FALSE;
  if (strchr (subject, '\n') != NULL ||
      warden_printable_hides (subject, -1, WARDEN_PRINTABLE_ONE_LINE) ||
      g_utf8_strlen (subject, -1) > NOTIFICATION_APPROVE_MAX)
    return FALSE;
  escaped = g_markup_escape_text (subject, -1);
  return g_strcmp0 (escaped, subject) == 0;
}

/* The project a session works on, as its folder is named. */
static char *
project_name (WardenSession *session)
{
  const char *workspace = warden_session_get_workspace (session);

  return workspace != NULL && *workspace != '\0' ? g_path_get_basename (workspace)
                                                  : g_strdup (_("No project"));
}

/* "project: text", one line, escaped for a body-markup daemon. */
static char *
project_body (WardenSession *session,
              const char    *text)
{
  g_autofree char *project = project_name (session);
  g_autofree char *joined = NULL;

  if (text == NULL || *text == '\0')
    return notification_body (project);
  /* Translators: a notification's body: the project (a folder name), then
   * what happened in it */
  joined = g_strdup_printf (_("%s: %s"), project, text);
  return notification_body (joined);
}

/* Whether the user is in one of Warden's windows now. */
static gboolean
user_is_looking (WardenApplication *self)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l; l = l->next)
    if (gtk_widget_get_visible (l->data) && gtk_window_is_active (l->data))
      return TRUE;
  return FALSE;
}

/* A task ended while the user looked elsewhere: say so, naming the project;
 * clicking opens the window on its session. */
static void
announce_task (WardenApplication *self,
               WardenSession     *session,
               const char        *title,
               const char        *text)
{
  g_autoptr(GNotification) notification = NULL;
  g_autofree char *id = NULL;
  g_autofree char *body = NULL;

  if (user_is_looking (self))
    return;

  id = g_strdup_printf ("task-%s", warden_session_get_id (session));
  body = project_body (session, text);
  notification = g_notification_new (title);
  g_notification_set_body (notification, body);
  g_notification_set_default_action_and_target (notification, "app.show-session", "s",
                                                 warden_session_get_id (session));
  g_application_send_notification (G_APPLICATION (self), id, notification);
}

static void
session_finished_cb (WardenSession     *session,
                     int                outcome,
                     WardenApplication *self)
{
  /* Waiting: the approval or the question has a notification of its own. */
  if (outcome == WARDEN_AGENT_FINISHED)
    announce_task (self, session, _("Task finished"), warden_session_get_title (session));
  else if (outcome == WARDEN_AGENT_MAX_STEPS)
    announce_task (self, session, _("Task paused"),
                   _("the agent used all its steps; send a message to let it go on"));
}

static void
session_failed_cb (WardenSession     *session,
                   const GError      *error,
                   WardenApplication *self)
{
  announce_task (self, session, _("Task failed"), error ? error->message : NULL);
}

static void
announce_approval (WardenApplication *self,
                   WardenSession     *session,
                   WardenApproval    *approval)
{
  WardenWindow *window = main_window (self);
  g_autoptr(GNotification) notification = NULL;
  g_autofree char *id = NULL;
  g_autofree char *body = NULL;
  g_autofree char *title = NULL;
  g_auto(GStrv) origins = warden_approval_dup_origins (approval, NULL);
  char *token;
  Ticket *ticket;

  /* The user is looking: the window asks (dialog or card), not the desktop. */
  if (window != NULL && warden_window_is_showing (window, session))
    return;

  /* Worded as the dialog and the card word it, and which session asks. */
  title = notification_title (warden_approval_get_heading (approval), session);

  /* Buttons of an earlier notification of this session answer nothing now. */
  forget_tickets (self, session);
  ticket = g_new0 (Ticket, 1);
  ticket->session = g_object_ref (session);
  ticket->approval = g_object_ref (approval);
  ticket->can_approve = can_approve_from_notification (approval);
  token = new_token ();
  g_hash_table_insert (self->tickets, token, ticket);

  id = g_strdup_printf ("approval-%s", warden_approval_get_id (approval));
  /* A question names its project; a command is shown alone, as it will run. */
  if (warden_approval_get_kind (approval) == WARDEN_APPROVAL_QUESTION)
    body = project_body (session, warden_approval_get_subject (approval));
  else if (origins[0] != NULL)
    {
      /* Where it comes from too, the nearest: "registry.npmjs.org:443 —
       * wanted by npm install", "rm -rf dist — started by npm test". */
      g_autofree char *both = g_strconcat (warden_approval_get_subject (approval), " — ",
                                           origins[0], NULL);

      body = notification_body (both);
    }
  else
    body = notification_body (warden_approval_get_subject (approval));
  notification = g_notification_new (title);
  g_notification_set_body (notification, body);
  g_notification_set_priority (notification, G_NOTIFICATION_PRIORITY_HIGH);
  g_notification_set_default_action_and_target (notification, "app.show-approval", "s", token);
  if (warden_approval_get_kind (approval) != WARDEN_APPROVAL_QUESTION)
    {
      g_notification_add_button_with_target (notification, _("Reject"), "app.reject", "s",
                                             token);
      if (ticket->can_approve)
        g_notification_add_button_with_target (notification, _("Approve"), "app.approve", "s",
                                               token);
      else
        /* Translators: a notification button that opens the window at a
         * command too long or too complex to approve from a notification */
        g_notification_add_button_with_target (notification, _("Review"), "app.show-approval",
                                               "s", token);
    }
  g_application_send_notification (G_APPLICATION (self), id, notification);
}

static gboolean
announce_cb (gpointer user_data)
{
  Announce *a = user_data;

  /* Still waiting, and not already in front of the user. */
  if (warden_session_get_pending (a->session) == a->approval)
    announce_approval (a->self, a->session, a->approval);
  g_object_unref (a->self);
  g_object_unref (a->session);
  g_object_unref (a->approval);
  g_free (a);
  return G_SOURCE_REMOVE;
}

static void
session_approval_cb (WardenSession     *session,
                     WardenApproval    *approval,
                     WardenApplication *self)
{
  Announce *a = g_new0 (Announce, 1);

  /* Decided after the window had its turn: a session the user is opening
   * asks in the window, not on the desktop. */
  a->self = g_object_ref (self);
  a->session = g_object_ref (session);
  a->approval = g_object_ref (approval);
  g_idle_add (announce_cb, a);
}

static void
answer_from_notification (WardenApplication *self,
                          GVariant          *parameter,
                          gboolean           approved)
{
  const char *token = g_variant_get_string (parameter, NULL);
  Ticket *ticket = find_ticket (self, token);
  g_autoptr(WardenSession) session = NULL;
  g_autoptr(WardenApproval) approval = NULL;
  g_autoptr(GError) error = NULL;

  if (ticket == NULL)
    return;
  if (approved && !ticket->can_approve)
    {
      g_debug ("Ignoring Approve for %s: the notification offered only Review",
               warden_approval_get_id (ticket->approval));
      return;
    }
  session = g_object_ref (ticket->session);
  approval = g_object_ref (ticket->approval);
  /* Used once, whatever the answer does next. */
  g_hash_table_remove (self->tickets, token);
  if (!warden_session_answer (session, warden_approval_get_id (approval), approved, FALSE, NULL,
                              "notification", &error))
    g_debug ("Notification answer ignored: %s", error->message);
}

static void
approve_action_cb (GSimpleAction *action,
                   GVariant      *parameter,
                   gpointer       user_data)
{
  answer_from_notification (user_data, parameter, TRUE);
}

static void
reject_action_cb (GSimpleAction *action,
                  GVariant      *parameter,
                  gpointer       user_data)
{
  answer_from_notification (user_data, parameter, FALSE);
}

static WardenWindow *
ensure_window (WardenApplication *self)
{
  WardenWindow *window = main_window (self);

  if (window == NULL)
    window = warden_window_new (self);
  return window;
}

static void
show_approval_action_cb (GSimpleAction *action,
                         GVariant      *parameter,
                         gpointer       user_data)
{
  WardenApplication *self = user_data;
  Ticket *ticket = find_ticket (self, g_variant_get_string (parameter, NULL));
  WardenWindow *window = ensure_window (self);

  /* Showing is no answer: the token stays for the notification's Reject. */
  gtk_window_present (GTK_WINDOW (window));
  if (ticket != NULL)
    warden_window_show_approval (window, ticket->session,
                                 warden_approval_get_id (ticket->approval));
}

/* A session id is no secret: showing a session answers nothing. */
static void
show_session_action_cb (GSimpleAction *action,
                        GVariant      *parameter,
                        gpointer       user_data)
{
  WardenApplication *self = user_data;
  WardenWindow *window = ensure_window (self);
  const char *id = g_variant_get_string (parameter, NULL);

  gtk_window_present (GTK_WINDOW (window));
  if (*id != '\0')
    warden_window_select_session (window, id);
}

/* ------------------------------------------------------------------------ */
/* Application actions */

/* Preferences closed: the model and the profiles may have changed. Every
 * open session checks against its profile as saved now. */
static gboolean
preferences_close_request_cb (GtkWindow         *prefs,
                              WardenApplication *self)
{
  GHashTableIter iter;
  gpointer value;

  warden_application_reload_provider (self);
  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      WardenAgent *agent = warden_session_get_agent (value);
      g_autoptr(GError) error = NULL;

      if (agent != NULL && !warden_agent_reload_policy (agent, &error))
        g_warning ("Session %s keeps its previous profile: %s",
                   warden_session_get_id (value), error->message);
    }
  g_signal_emit (self, signals[PROFILES_CHANGED], 0);
  return FALSE;
}

static GtkWindow *
show_preferences (WardenApplication *self,
                  const char        *page)
{
  GtkWindow *parent = GTK_WINDOW (main_window (self));
  GtkWidget *prefs = warden_preferences_window_new (parent, self->settings, self->profiles,
                                                    self->credentials);

  gtk_window_set_application (GTK_WINDOW (prefs), GTK_APPLICATION (self));
  g_signal_connect_object (prefs, "close-request", G_CALLBACK (preferences_close_request_cb),
                           self, 0);
  if (page != NULL)
    warden_preferences_window_show_page (WARDEN_PREFERENCES_WINDOW (prefs), page);
  gtk_window_present (GTK_WINDOW (prefs));
  return GTK_WINDOW (prefs);
}

static void
preferences_action_cb (GSimpleAction *action,
                       GVariant      *parameter,
                       gpointer       user_data)
{
  show_preferences (user_data, NULL);
}

static void
preferences_page_action_cb (GSimpleAction *action,
                            GVariant      *parameter,
                            gpointer       user_data)
{
  show_preferences (user_data, g_variant_get_string (parameter, NULL));
}

static void
new_session_action_cb (GSimpleAction *action,
                       GVariant      *parameter,
                       gpointer       user_data)
{
  WardenWindow *window = ensure_window (user_data);

  gtk_window_present (GTK_WINDOW (window));
  warden_window_new_session (window);
}

static void
about_action_cb (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       user_data)
{
  WardenApplication *self = user_data;
  static const char *developers[] = { "The Warden authors", NULL };
  GtkWidget *about;

  about = g_object_new (ADW_TYPE_ABOUT_WINDOW,
                        "transient-for", main_window (self),
                        "application-name", "Warden",
                        "application-icon", APP_ID,
                        "developer-name", _("The Warden authors"),
                        "version", PACKAGE_VERSION,
                        "comments", _("A coding agent that runs only the commands you allow"),
                        "website", "https://github.com/wardenapp/warden",
                        "issue-url", "https://github.com/wardenapp/warden/issues",
                        "license-type", GTK_LICENSE_GPL_3_0,
                        "developers", developers,
                        "copyright", "© 2026 The Warden authors",
                        /* Translators: your names, one per line */
                        "translator-credits", _("translator-credits"),
                        NULL);
  gtk_window_present (GTK_WINDOW (about));
}

static void
quit_action_cb (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  WardenApplication *self = user_data;

  /* Closing each window lets it save its state and take sandboxes down. */
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l != NULL;)
    {
      GtkWindow *window = l->data;

      l = l->next;
      gtk_window_close (window);
    }
  g_application_quit (G_APPLICATION (self));
}

static const GActionEntry app_actions[] = {
  { "preferences", preferences_action_cb },
  { "preferences-page", preferences_page_action_cb, "s" },
  { "new-session", new_session_action_cb },
  { "about", about_action_cb },
  { "quit", quit_action_cb },
  { "approve", approve_action_cb, "s" },
  { "reject", reject_action_cb, "s" },
  { "show-approval", show_approval_action_cb, "s" },
  { "show-session", show_session_action_cb, "s" },
};

/* ------------------------------------------------------------------------ */

static void
ping_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(WardenApplication) self = user_data;
  WardenDockerClient *client = WARDEN_DOCKER_CLIENT (object);

  if (warden_docker_client_ping_finish (client, result, NULL))
    {
      self->default_sandbox = WARDEN_SANDBOX_KIND_DOCKER;
      /* Containers of a Warden that crashed: only at start, when none of ours run. */
      warden_docker_sandbox_cleanup_async (client, self->cancellable, NULL, NULL);
    }
}

/* Sessions that warden-cli (or another Warden) writes while this one runs
 * appear without a restart. SQLite's data_version changes exactly when
 * another connection commits, and reading it costs a look at the WAL's
 * shared memory: a poll of it every two seconds is cheaper and surer than a
 * file monitor on the database, whose WAL file changes with each of this
 * process's own writes and is truncated by checkpoints. */
#define STORE_WATCH_SECONDS 2

static gboolean
store_watch_cb (gpointer user_data)
{
  WardenApplication *self = user_data;
  gint64 version;

  if (self->store == NULL)
    return G_SOURCE_CONTINUE;
  version = warden_session_store_get_data_version (self->store);
  if (version != self->store_version)
    {
      self->store_version = version;
      g_signal_emit (self, signals[SESSIONS_CHANGED], 0);
    }
  return G_SOURCE_CONTINUE;
}

static void
watch_store (WardenApplication *self)
{
  if (self->store != NULL)
    self->store_version = warden_session_store_get_data_version (self->store);
  if (self->store_watch_id == 0)
    self->store_watch_id = g_timeout_add_seconds (STORE_WATCH_SECONDS, store_watch_cb, self);
}

/* Light, dark or the system's style, from the main menu (as GNOME Text
 * Editor and Console offer it); the code in the chat follows it. */
static void
style_variant_cb (GSettings         *settings,
                  const char        *key,
                  WardenApplication *self)
{
  g_autofree char *variant = g_settings_get_string (settings, "style-variant");
  AdwColorScheme scheme = ADW_COLOR_SCHEME_DEFAULT;

  if (g_strcmp0 (variant, "light") == 0)
    scheme = ADW_COLOR_SCHEME_FORCE_LIGHT;
  else if (g_strcmp0 (variant, "dark") == 0)
    scheme = ADW_COLOR_SCHEME_FORCE_DARK;
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), scheme);
}

static void
warden_application_startup (GApplication *app)
{
  WardenApplication *self = WARDEN_APPLICATION (app);
  g_autoptr(WardenDockerClient) docker = NULL;

  G_APPLICATION_CLASS (warden_application_parent_class)->startup (app);

  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions, G_N_ELEMENTS (app_actions),
                                   self);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "app.quit",
                                         (const char *[]) { "<Control>q", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "app.preferences",
                                         (const char *[]) { "<Control>comma", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "app.new-session",
                                         (const char *[]) { "<Control>n", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.search-sessions",
                                         (const char *[]) { "<Control>f", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.send",
                                         (const char *[]) { "<Control>Return", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.find-in-terminal",
                                         (const char *[]) { "<Control><Shift>f", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.show-trace",
                                         (const char *[]) { "<Control><Shift>t", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.terminal-visible",
                                         (const char *[]) { "<Control>grave", NULL });

  self->settings = g_settings_new (APP_ID);
  {
    g_autoptr(GAction) style = g_settings_create_action (self->settings, "style-variant");

    g_action_map_add_action (G_ACTION_MAP (self), style);
  }
  g_signal_connect_object (self->settings, "changed::style-variant",
                           G_CALLBACK (style_variant_cb), self, 0);
  style_variant_cb (self->settings, "style-variant", self);
  self->profiles = warden_profile_store_new (NULL);
  self->credentials = warden_credentials_new ();
  self->store = warden_session_store_new (NULL, &self->store_error);
  if (self->store == NULL)
    g_warning ("%s", self->store_error->message);
  watch_store (self);

  g_signal_connect_object (self->settings, "changed::provider",
                           G_CALLBACK (model_setting_changed_cb), self, 0);
  g_signal_connect_object (self->settings, "changed::model",
                           G_CALLBACK (model_setting_changed_cb), self, 0);
  g_signal_connect_object (self->settings, "changed::base-url",
                           G_CALLBACK (model_setting_changed_cb), self, 0);
  g_signal_connect_object (self->settings, "changed::context-window",
                           G_CALLBACK (context_window_changed_cb), self, 0);
  warden_application_reload_provider (self);

  docker = warden_docker_client_new_from_env (NULL);
  if (docker != NULL)
    warden_docker_client_ping_async (docker, self->cancellable, ping_cb, g_object_ref (self));
}

static void
warden_application_activate (GApplication *app)
{
  WardenApplication *self = WARDEN_APPLICATION (app);
  WardenWindow *window = ensure_window (self);

  gtk_window_present (GTK_WINDOW (window));
}

static int
warden_application_handle_local_options (GApplication *app,
                                         GVariantDict *options)
{
  if (g_variant_dict_contains (options, "new-session"))
    {
      g_autoptr(GError) error = NULL;

      /* The desktop file's "New Session": in the running Warden, if there is one. */
      if (!g_application_register (app, NULL, &error))
        {
          g_printerr ("%s\n", error->message);
          return 1;
        }
      g_action_group_activate_action (G_ACTION_GROUP (app), "new-session", NULL);
      return 0;
    }
  return -1;
}

static void
shutdown_close_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  guint *left = user_data;
  g_autoptr(GError) error = NULL;

  if (!warden_session_close_finish (WARDEN_SESSION (object), result, &error))
    g_warning ("Could not take a sandbox down: %s", error->message);
  (*left)--;
}

static gboolean
shutdown_timeout_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
warden_application_shutdown (GApplication *app)
{
  WardenApplication *self = WARDEN_APPLICATION (app);
  GHashTableIter iter;
  gpointer value;
  guint left = 0;
  gboolean expired = FALSE;
  guint timeout_id;

  /* Containers and sandboxes go with Warden; a crash leaves them to the
   * cleanup at the next start. Five seconds at most. */
  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      left++;
      warden_session_close_async (value, NULL, shutdown_close_cb, &left);
    }
  timeout_id = g_timeout_add_seconds (5, shutdown_timeout_cb, &expired);
  while (left > 0 && !expired)
    g_main_context_iteration (NULL, TRUE);
  if (!expired)
    g_source_remove (timeout_id);

  g_clear_handle_id (&self->store_watch_id, g_source_remove);
  g_cancellable_cancel (self->cancellable);
  g_cancellable_cancel (self->provider_cancellable);
  G_APPLICATION_CLASS (warden_application_parent_class)->shutdown (app);
}

static void
warden_application_dispose (GObject *object)
{
  WardenApplication *self = WARDEN_APPLICATION (object);

  g_clear_handle_id (&self->store_watch_id, g_source_remove);
  g_clear_pointer (&self->tickets, g_hash_table_unref);
  g_clear_pointer (&self->sessions, g_hash_table_unref);
  g_clear_object (&self->provider);
  g_clear_object (&self->provider_cancellable);
  g_clear_object (&self->credentials);
  g_clear_object (&self->store);
  g_clear_object (&self->profiles);
  g_clear_object (&self->settings);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (warden_application_parent_class)->dispose (object);
}

static void
warden_application_finalize (GObject *object)
{
  WardenApplication *self = WARDEN_APPLICATION (object);

  g_clear_error (&self->store_error);
  G_OBJECT_CLASS (warden_application_parent_class)->finalize (object);
}

static void
warden_application_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  WardenApplication *self = WARDEN_APPLICATION (object);

  switch (prop_id)
    {
    case PROP_PROVIDER:
      g_value_set_object (value, self->provider);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
warden_application_class_init (WardenApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = warden_application_dispose;
  object_class->finalize = warden_application_finalize;
  object_class->get_property = warden_application_get_property;
  app_class->startup = warden_application_startup;
  app_class->activate = warden_application_activate;
  app_class->shutdown = warden_application_shutdown;
  app_class->handle_local_options = warden_application_handle_local_options;

  properties[PROP_PROVIDER] =
    g_param_spec_object ("provider", NULL, NULL, WARDEN_TYPE_LLM_PROVIDER,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SESSIONS_CHANGED] = g_signal_new ("sessions-changed", G_TYPE_FROM_CLASS (klass),
                                            G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                            G_TYPE_NONE, 0);
  signals[PROFILES_CHANGED] = g_signal_new ("profiles-changed", G_TYPE_FROM_CLASS (klass),
                                            G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                            G_TYPE_NONE, 0);
}

static void
warden_application_init (WardenApplication *self)
{
  self->sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->tickets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify) ticket_free);
  self->cancellable = g_cancellable_new ();
  self->provider_cancellable = g_cancellable_new ();
  g_application_add_main_option (G_APPLICATION (self), "new-session", 0, 0, G_OPTION_ARG_NONE,
                                 _("Start a new session"), NULL);
}
