/* warden-window.c: the main window: sessions, chat, terminal
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "warden-window.h"

#include "llm/warden-llm-provider.h"
#include "sandbox/warden-sandbox.h"
#include "warden-application.h"
#include "warden-approval-dialog.h"
#include "warden-chat-row.h"
#include "warden-new-session-dialog.h"
#include "warden-trace-window.h"

typedef enum
{
  BANNER_NONE,
  BANNER_PREFERENCES,   /* the button opens the model preferences */
  BANNER_RETRY,         /* the button lets the session go on */
  BANNER_SILENT,        /* the model has not answered; no button, goes when it does */
  BANNER_MOVE_ASIDE,    /* the database is damaged: the button starts a new one */
} BannerAction;

struct _WardenWindow
{
  AdwApplicationWindow  parent_instance;

  /* template */
  AdwToastOverlay      *toast_overlay;
  AdwLeaflet           *leaflet;
  GtkStack             *sidebar_stack;
  GtkListBox           *session_list;
  GtkBox               *content;
  AdwWindowTitle       *window_title;
  GtkDropDown          *profile_dropdown;
  GtkMenuButton        *session_menu_button;
  GtkToggleButton      *terminal_toggle;
  GtkProgressBar       *sandbox_progress;
  GtkLabel             *sandbox_label;
  GtkButton            *sandbox_retry;
  GtkRevealer          *banner_revealer;
  GtkLabel             *banner_label;
  GtkButton            *banner_button;
  GtkRevealer          *review_revealer;
  GtkLabel             *review_label;
  GtkPaned             *paned;
  GtkStack             *chat_stack;
  GtkScrolledWindow    *chat_scroller;
  GtkListView          *chat_view;
  GtkTextView          *composer;
  GtkBox               *composer_box;
  GtkButton            *send_button;
  GtkButton            *stop_button;
  WardenTerminal       *terminal;

  WardenApplication    *app;
  GSettings            *settings;
  WardenSession        *session;
  GSignalGroup         *session_signals;   /* on session, whichever it is */
  GtkStringList        *profile_ids;
  GtkWidget            *approval_dialog;
  GHashTable           *dismissed;         /* approval ids closed unanswered */
  GtkWidget            *new_session_dialog;
  BannerAction          banner_action;
  gboolean              terminal_visible;
  gboolean              stick_to_bottom;
  gboolean              assume_active;
  gboolean              updating_profiles;
  guint                 scroll_id;
};

G_DEFINE_FINAL_TYPE (WardenWindow, warden_window, ADW_TYPE_APPLICATION_WINDOW)

enum
{
  PROP_0,
  PROP_TERMINAL_VISIBLE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void update_session_state (WardenWindow *self);
static void show_approval_dialog (WardenWindow   *self,
                                  WardenApproval *approval);

static void setup (WardenWindow *self);

WardenWindow *
warden_window_new (WardenApplication *app)
{
  WardenWindow *self = g_object_new (WARDEN_TYPE_WINDOW, "application", app, NULL);

  /* "application" is not a construct property: it is set after constructed(). */
  setup (self);
  return self;
}

static void
toast (WardenWindow *self,
       const char   *text)
{
  AdwToast *t = adw_toast_new (text);

  adw_toast_set_timeout (t, 6);
  adw_toast_overlay_add_toast (self->toast_overlay, t);
}

static void
show_banner (WardenWindow *self,
             const char   *text,
             BannerAction  action)
{
  self->banner_action = action;
  gtk_label_set_text (self->banner_label, text);
  if (action == BANNER_PREFERENCES)
    gtk_button_set_label (self->banner_button, _("_Preferences"));
  else if (action == BANNER_RETRY)
    gtk_button_set_label (self->banner_button, _("_Retry"));
  else if (action == BANNER_MOVE_ASIDE)
    gtk_button_set_label (self->banner_button, _("_Start a New Database"));
  gtk_widget_set_visible (GTK_WIDGET (self->banner_button),
                          action != BANNER_NONE && action != BANNER_SILENT);
  gtk_button_set_use_underline (self->banner_button, TRUE);
  gtk_revealer_set_reveal_child (self->banner_revealer, text != NULL);
}

static void
hide_banner (WardenWindow *self)
{
  self->banner_action = BANNER_NONE;
  gtk_revealer_set_reveal_child (self->banner_revealer, FALSE);
}

/* ------------------------------------------------------------------------ */
/* The session list */

static const char *
row_session_id (GtkListBoxRow *row)
{
  return g_object_get_data (G_OBJECT (row), "session-id");
}

static void
reload_sessions (WardenWindow *self)
{
  WardenSessionStore *store = warden_application_get_store (self->app);
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GError) error = NULL;
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->session_list))) != NULL)
    gtk_list_box_remove (self->session_list, child);

  if (store == NULL)
    {
      gtk_stack_set_visible_child_name (self->sidebar_stack, "empty");
      return;
    }
  list = warden_session_store_list_sessions (store, &error);
  if (list == NULL)
    {
      toast (self, error->message);
      return;
    }

  for (guint i = 0; i < list->len; i++)
    {
      WardenSessionRecord *info = g_ptr_array_index (list, i);
      GtkWidget *row = adw_action_row_new ();
      g_autofree char *base = info->workspace ? g_path_get_basename (info->workspace) : NULL;
      const char *title = info->title && *info->title ? info->title : _("New session");
      g_autofree char *escaped = g_markup_escape_text (title, -1);

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), escaped);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), base ? base : "");
      adw_action_row_set_title_lines (ADW_ACTION_ROW (row), 1);
      adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 1);
      /* An action row does not activate by default: a click would only select it. */
      gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
      gtk_widget_set_tooltip_text (row, info->workspace);
      g_object_set_data_full (G_OBJECT (row), "session-id", g_strdup (info->id), g_free);

      if (g_strcmp0 (info->state, "waiting") == 0)
        {
          GtkWidget *badge = gtk_label_new (_("Waiting"));

          gtk_widget_add_css_class (badge, "badge");
          gtk_widget_add_css_class (badge, "pending");
          gtk_widget_set_valign (badge, GTK_ALIGN_CENTER);
          gtk_widget_set_tooltip_text (badge, _("Waiting for your approval"));
          adw_action_row_add_suffix (ADW_ACTION_ROW (row), badge);
        }
      gtk_list_box_append (self->session_list, row);
      if (self->session != NULL && g_strcmp0 (info->id, warden_session_get_id (self->session)) == 0)
        gtk_list_box_select_row (self->session_list, GTK_LIST_BOX_ROW (row));
    }
  gtk_stack_set_visible_child_name (self->sidebar_stack, list->len ? "list" : "empty");
}

static void
sessions_changed_cb (WardenApplication *app,
                     WardenWindow      *self)
{
  reload_sessions (self);
}

/* ------------------------------------------------------------------------ */
/* The chat */

static void
scroll_to_bottom (WardenWindow *self)
{
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (self->chat_scroller);

  gtk_adjustment_set_value (adj, gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj));
}

static gboolean
scroll_idle_cb (gpointer user_data)
{
  WardenWindow *self = user_data;

  self->scroll_id = 0;
  scroll_to_bottom (self);
  return G_SOURCE_REMOVE;
}

static void
vadjustment_changed_cb (GtkAdjustment *adj,
                        WardenWindow  *self)
{
  /* New content: follow it if the user was at the end. */
  if (self->stick_to_bottom)
    scroll_to_bottom (self);
}

static void
vadjustment_value_cb (GtkAdjustment *adj,
                      WardenWindow  *self)
{
  self->stick_to_bottom = gtk_adjustment_get_value (adj) + gtk_adjustment_get_page_size (adj)
                          >= gtk_adjustment_get_upper (adj) - 40;
}

static void
setup_row_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *list_item,
              WardenWindow             *self)
{
  gtk_list_item_set_activatable (list_item, FALSE);
  gtk_list_item_set_selectable (list_item, FALSE);
  gtk_list_item_set_child (list_item, warden_chat_row_new ());
}

static void
bind_row_cb (GtkSignalListItemFactory *factory,
             GtkListItem              *list_item,
             WardenWindow             *self)
{
  warden_chat_row_set_item (WARDEN_CHAT_ROW (gtk_list_item_get_child (list_item)),
                            gtk_list_item_get_item (list_item));
}

static void
unbind_row_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *list_item,
               WardenWindow             *self)
{
  warden_chat_row_set_item (WARDEN_CHAT_ROW (gtk_list_item_get_child (list_item)), NULL);
}

/* ------------------------------------------------------------------------ */
/* The terminal follows the session's commands */

static const char *
workspace_label (WardenWindow *self)
{
  const char *workspace = self->session ? warden_session_get_workspace (self->session) : NULL;
  const char *slash = workspace ? strrchr (workspace, '/') : NULL;

  return slash && slash[1] ? slash + 1 : (workspace ? workspace : "workspace");
}

static void
command_started_cb (WardenSession  *session,
                    WardenChatItem *item,
                    WardenWindow   *self)
{
  warden_terminal_feed_command (self->terminal, workspace_label (self),
                                warden_chat_item_get_subject (item));
}

static void
command_output_cb (WardenSession *session,
                   const char    *data,
                   WardenWindow  *self)
{
  warden_terminal_feed_output (self->terminal, data, -1);
}

static void
command_finished_cb (WardenSession  *session,
                     WardenChatItem *item,
                     WardenWindow   *self)
{
  warden_terminal_feed_status (self->terminal, warden_chat_item_get_exit_status (item),
                               warden_chat_item_get_duration_ms (item));
}

/* An old session's commands, as they ran. */
static void
replay_terminal (WardenWindow *self)
{
  GListModel *items;
  guint n;

  warden_terminal_reset (self->terminal);
  if (self->session == NULL)
    return;
  items = warden_session_get_items (self->session);
  n = g_list_model_get_n_items (items);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(WardenChatItem) item = g_list_model_get_item (items, i);
      const char *output;

      if (warden_chat_item_get_kind (item) != WARDEN_CHAT_ITEM_TOOL ||
          warden_chat_item_get_tool_kind (item) != WARDEN_TOOL_KIND_EXEC ||
          warden_chat_item_get_exit_status (item) < 0)
        continue;
      warden_terminal_feed_command (self->terminal, workspace_label (self),
                                    warden_chat_item_get_subject (item));
      output = warden_chat_item_get_output (item);
      if (output != NULL)
        warden_terminal_feed_output (self->terminal, output, -1);
      warden_terminal_feed_status (self->terminal, warden_chat_item_get_exit_status (item),
                                   warden_chat_item_get_duration_ms (item));
    }
}

/* ------------------------------------------------------------------------ */
/* The header: profile, sandbox, model */

static void
update_title (WardenWindow *self)
{
  g_autofree char *title = NULL;
  g_autofree char *subtitle = NULL;
  WardenLlmProvider *provider = warden_application_get_provider (self->app);
  const char *model = provider ? warden_llm_provider_get_model (provider) : NULL;

  if (self->session == NULL)
    {
      gtk_window_set_title (GTK_WINDOW (self), _("Warden"));
      adw_window_title_set_title (self->window_title, _("Warden"));
      adw_window_title_set_subtitle (self->window_title, model ? model : "");
      return;
    }
  if (warden_session_get_model (self->session) != NULL)
    model = warden_session_get_model (self->session);
  /* Translators: the window title, "<session> — Warden" */
  title = g_strdup_printf (_("%s — Warden"), warden_session_get_title (self->session));
  gtk_window_set_title (GTK_WINDOW (self), title);
  adw_window_title_set_title (self->window_title, warden_session_get_title (self->session));
  subtitle = g_strdup_printf ("%s · %s · %s", workspace_label (self),
                              warden_session_get_sandbox (self->session),
                              model ? model : _("no model"));
  adw_window_title_set_subtitle (self->window_title, subtitle);
}

static void
reload_profiles (WardenWindow *self)
{
  g_autoptr(GPtrArray) list = warden_profile_store_list (warden_application_get_profiles (self->app),
                                                         NULL);
  const char *current = self->session ? warden_session_get_profile (self->session) : NULL;
  guint selected = GTK_INVALID_LIST_POSITION;
  g_autoptr(GStrvBuilder) ids = g_strv_builder_new ();
  g_auto(GStrv) strv = NULL;
  guint n = 0;

  for (guint i = 0; list != NULL && i < list->len; i++)
    {
      const char *id = warden_profile_get_id (g_ptr_array_index (list, i));

      g_strv_builder_add (ids, id);
      if (g_strcmp0 (id, current) == 0)
        selected = n;
      n++;
    }
  if (current != NULL && selected == GTK_INVALID_LIST_POSITION)
    {
      /* A profile that no longer loads still shows what the session uses. */
      g_strv_builder_add (ids, current);
      selected = n;
    }
  strv = g_strv_builder_end (ids);

  self->updating_profiles = TRUE;
  gtk_string_list_splice (self->profile_ids, 0,
                          g_list_model_get_n_items (G_LIST_MODEL (self->profile_ids)),
                          (const char * const *) strv);
  gtk_drop_down_set_selected (self->profile_dropdown, selected);
  self->updating_profiles = FALSE;
}

static void
profile_selected_cb (GtkDropDown  *dropdown,
                     GParamSpec   *pspec,
                     WardenWindow *self)
{
  g_autoptr(GError) error = NULL;
  guint selected = gtk_drop_down_get_selected (dropdown);
  const char *id;

  if (self->updating_profiles || self->session == NULL || selected == GTK_INVALID_LIST_POSITION)
    return;
  id = gtk_string_list_get_string (self->profile_ids, selected);
  if (!warden_session_set_profile (self->session, id, &error))
    {
      toast (self, error->message);
      reload_profiles (self);
      return;
    }
  {
    g_autofree char *text = g_strdup_printf (_("Commands are now checked against “%s”"), id);

    toast (self, text);
  }
}

static void
update_sandbox (WardenWindow *self)
{
  const char *state = self->session ? warden_session_get_sandbox_state (self->session) : "none";
  const char *message = self->session ? warden_session_get_sandbox_message (self->session) : NULL;
  gboolean preparing = g_strcmp0 (state, "preparing") == 0;
  gboolean failed = g_strcmp0 (state, "failed") == 0;
  const char *label = "";

  if (preparing)
    label = _("Preparing sandbox…");
  else if (g_strcmp0 (state, "ready") == 0)
    label = _("Sandbox ready");
  else if (g_strcmp0 (state, "stopped") == 0)
    label = _("Sandbox stopped");
  else if (failed)
    label = _("Sandbox failed");

  gtk_label_set_text (self->sandbox_label, label);
  gtk_widget_set_visible (GTK_WIDGET (self->sandbox_progress), preparing);
  if (preparing)
    {
      gtk_progress_bar_set_fraction (self->sandbox_progress,
                                     warden_session_get_sandbox_fraction (self->session));
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->sandbox_progress), message);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->sandbox_retry), failed);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->sandbox_label), message);
  if (failed && message != NULL)
    {
      g_autofree char *text = g_strdup_printf (_("The sandbox could not start: %s"), message);

      show_banner (self, text, BANNER_RETRY);
    }
}

/* ------------------------------------------------------------------------ */
/* Errors: each says what to do */

static void
session_failed_cb (WardenSession *session,
                   GError        *error,
                   WardenWindow  *self)
{
  if (error->domain == WARDEN_LLM_ERROR)
    {
      switch (error->code)
        {
        case WARDEN_LLM_ERROR_AUTH:
        case WARDEN_LLM_ERROR_NOT_CONFIGURED:
        case WARDEN_LLM_ERROR_UNKNOWN_MODEL:
          show_banner (self, error->message, BANNER_PREFERENCES);
          return;
        default:
          show_banner (self, error->message, BANNER_RETRY);
          return;
        }
    }
  show_banner (self, error->message, BANNER_RETRY);
}

static void
banner_button_clicked_cb (GtkButton    *button,
                          WardenWindow *self)
{
  BannerAction action = self->banner_action;

  hide_banner (self);
  if (action == BANNER_PREFERENCES)
    gtk_widget_activate_action (GTK_WIDGET (self), "app.preferences-page", "s", "model");
  else if (action == BANNER_RETRY)
    gtk_widget_activate_action (GTK_WIDGET (self), "win.retry", NULL);
  else if (action == BANNER_MOVE_ASIDE)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *moved = NULL;

      if (!warden_application_move_store_aside (self->app, &moved, &error))
        show_banner (self, error->message, BANNER_NONE);
      else
        {
          g_autofree char *text = g_strdup_printf (_("The damaged database was kept as %s"),
                                                   moved);

          toast (self, text);
          reload_sessions (self);
        }
    }
}

/* The model has sent nothing for a while: said where the user looks, and
 * taken back as soon as it answers (or the step ends). */
static void
session_model_silent_cb (WardenSession *session,
                         GParamSpec    *pspec,
                         WardenWindow  *self)
{
  guint seconds = warden_session_get_model_silent (session);

  if (seconds > 0)
    {
      g_autofree char *text = g_strdup_printf (_("The model has not answered for %u s; "
                                                 "still waiting"), seconds);

      show_banner (self, text, BANNER_SILENT);
    }
  else if (self->banner_action == BANNER_SILENT)
    hide_banner (self);
}

static void
banner_close_clicked_cb (GtkButton    *button,
                         WardenWindow *self)
{
  hide_banner (self);
}

/* ------------------------------------------------------------------------ */
/* Approvals */

gboolean
warden_window_is_showing (WardenWindow  *self,
                          WardenSession *session)
{
  g_return_val_if_fail (WARDEN_IS_WINDOW (self), FALSE);

  return self->session == session && gtk_widget_get_visible (GTK_WIDGET (self)) &&
         (self->assume_active || gtk_window_is_active (GTK_WINDOW (self)) ||
          (self->approval_dialog != NULL &&
           gtk_window_is_active (GTK_WINDOW (self->approval_dialog))));
}

void
warden_window_set_assume_active (WardenWindow *self,
                                 gboolean      assume_active)
{
  self->assume_active = assume_active;
}

static void
approval_answered_cb (WardenApprovalDialog *dialog,
                      gboolean              approved,
                      gboolean              allow_always,
                      const char           *text,
                      WardenWindow         *self)
{
  g_autoptr(GError) error = NULL;
  const char *id = warden_approval_dialog_get_approval_id (dialog);

  if (self->session == NULL)
    return;
  if (!warden_session_answer (self->session, id, approved, allow_always, text, "dialog", &error))
    toast (self, error->message);
}

/* A pending approval without its dialog is said in the window, with a way
 * back to it: the dialog itself never comes back unasked. */
static void
update_review (WardenWindow *self)
{
  WardenApproval *pending = self->session ? warden_session_get_pending (self->session) : NULL;
  const char *text = NULL;

  if (pending != NULL)
    {
      switch (warden_approval_get_kind (pending))
        {
        case WARDEN_APPROVAL_COMMAND:
          text = _("1 command waits for you");
          break;
        case WARDEN_APPROVAL_PATH:
          text = _("1 file access waits for you");
          break;
        case WARDEN_APPROVAL_QUESTION:
        default:
          text = _("1 question waits for you");
          break;
        }
      gtk_label_set_text (self->review_label, text);
    }
  gtk_revealer_set_reveal_child (self->review_revealer,
                                 pending != NULL && self->approval_dialog == NULL);
}

static void
approval_dialog_destroy_cb (GtkWidget    *dialog,
                            WardenWindow *self)
{
  const char *id = warden_approval_dialog_get_approval_id (WARDEN_APPROVAL_DIALOG (dialog));

  if (self->approval_dialog != dialog)
    return;
  self->approval_dialog = NULL;
  /* Closed by the user (Escape, the close button) and not answered. */
  if (id != NULL)
    g_hash_table_add (self->dismissed, g_strdup (id));
  update_review (self);
}

static void
close_approval_dialog (WardenWindow *self)
{
  GtkWidget *dialog = g_steal_pointer (&self->approval_dialog);

  if (dialog != NULL)
    {
      g_signal_handlers_disconnect_by_data (dialog, self);
      gtk_window_destroy (GTK_WINDOW (dialog));
    }
}

/* What the agent said just before it asked: the last words of the model
 * before the call in this turn (none once the user spoke after them). */
static const char *
context_for (WardenWindow   *self,
             WardenApproval *approval)
{
  GListModel *items = warden_session_get_items (self->session);
  gboolean before_call = FALSE;

  for (guint i = g_list_model_get_n_items (items); i > 0; i--)
    {
      g_autoptr(WardenChatItem) item = g_list_model_get_item (items, i - 1);
      WardenChatItemKind kind = warden_chat_item_get_kind (item);

      if (!before_call)
        {
          before_call = kind == WARDEN_CHAT_ITEM_TOOL &&
                        g_strcmp0 (warden_chat_item_get_tool_id (item),
                                   warden_approval_get_id (approval)) == 0;
          continue;
        }
      if (kind == WARDEN_CHAT_ITEM_USER)
        return NULL;
      if (kind == WARDEN_CHAT_ITEM_ASSISTANT)
        return warden_chat_item_get_text (item);  /* the list keeps it */
    }
  return NULL;
}

/* Keys the user is typing are meant for what they type in: a dialog that
 * appeared under them would take them. */
static gboolean
user_is_typing (WardenWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->composer);

  if (focus == NULL)
    return FALSE;
  if (gtk_widget_is_ancestor (focus, GTK_WIDGET (self->terminal)))
    return TRUE;
  return focus == GTK_WIDGET (self->composer) && gtk_text_buffer_get_char_count (buffer) > 0;
}

/* Opened on its own only when nothing speaks against it: not dismissed
 * before, and not under a user typing elsewhere. */
static void
offer_approval (WardenWindow   *self,
                WardenApproval *approval)
{
  if (!g_hash_table_contains (self->dismissed, warden_approval_get_id (approval)) &&
      !user_is_typing (self))
    show_approval_dialog (self, approval);
  update_review (self);
}

static void
show_approval_dialog (WardenWindow   *self,
                      WardenApproval *approval)
{
  WardenProfileStore *profiles = warden_application_get_profiles (self->app);
  g_autoptr(WardenProfile) profile = NULL;
  g_auto(GStrv) commands = NULL;
  WardenApprovalDialog *dialog;

  if (self->approval_dialog != NULL &&
      g_strcmp0 (warden_approval_dialog_get_approval_id (WARDEN_APPROVAL_DIALOG (self->approval_dialog)),
                 warden_approval_get_id (approval)) == 0)
    {
      gtk_window_present (GTK_WINDOW (self->approval_dialog));
      return;
    }
  close_approval_dialog (self);

  profile = warden_profile_store_lookup (profiles, warden_session_get_profile (self->session), NULL);
  commands = warden_session_dup_commands (self->session);
  dialog = warden_approval_dialog_new (GTK_WINDOW (self), approval, profile,
                                       warden_session_get_workspace (self->session),
                                       (const char * const *) commands);
  warden_approval_dialog_set_context (dialog, context_for (self, approval));
  self->approval_dialog = GTK_WIDGET (dialog);
  g_signal_connect_object (dialog, "answered", G_CALLBACK (approval_answered_cb), self, 0);
  g_signal_connect (dialog, "destroy", G_CALLBACK (approval_dialog_destroy_cb), self);
  g_hash_table_remove (self->dismissed, warden_approval_get_id (approval));
  gtk_window_present (GTK_WINDOW (dialog));
  update_review (self);
}

static void
session_approval_cb (WardenSession  *session,
                     WardenApproval *approval,
                     WardenWindow   *self)
{
  /* Elsewhere, the application sends a notification instead. */
  if (warden_window_is_showing (self, session))
    offer_approval (self, approval);
  update_review (self);
  reload_sessions (self);
}

static void
session_approval_resolved_cb (WardenSession *session,
                              const char    *approval_id,
                              WardenWindow  *self)
{
  if (self->approval_dialog != NULL &&
      g_strcmp0 (warden_approval_dialog_get_approval_id (WARDEN_APPROVAL_DIALOG (self->approval_dialog)),
                 approval_id) == 0)
    close_approval_dialog (self);
  g_hash_table_remove (self->dismissed, approval_id);
  update_review (self);
}

void
warden_window_show_approval (WardenWindow  *self,
                             WardenSession *session,
                             const char    *approval_id)
{
  WardenApproval *pending;

  warden_window_select_session (self, warden_session_get_id (session));
  pending = warden_session_get_pending (session);
  if (pending == NULL || g_strcmp0 (warden_approval_get_id (pending), approval_id) != 0)
    {
      toast (self, _("That request was answered already"));
      return;
    }
  show_approval_dialog (self, pending);
}

static void
approval_answer_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  WardenWindow *self = WARDEN_WINDOW (widget);
  g_autoptr(GError) error = NULL;
  const char *id, *text;
  gboolean approved, allow_always;

  if (self->session == NULL)
    return;
  g_variant_get (parameter, "(&sbb&s)", &id, &approved, &allow_always, &text);
  if (!warden_session_answer (self->session, id, approved, allow_always, text, "card", &error))
    toast (self, error->message);
}

static void
approval_review_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  WardenWindow *self = WARDEN_WINDOW (widget);
  WardenApproval *pending = self->session ? warden_session_get_pending (self->session) : NULL;

  if (pending != NULL)
    show_approval_dialog (self, pending);
  else
    update_review (self);
}

static void
approval_show_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  WardenWindow *self = WARDEN_WINDOW (widget);

  if (self->session != NULL)
    warden_window_show_approval (self, self->session, g_variant_get_string (parameter, NULL));
}

/* ------------------------------------------------------------------------ */
/* Switching sessions */

static void
session_notify_cb (WardenSession *session,
                   GParamSpec    *pspec,
                   WardenWindow  *self)
{
  update_session_state (self);
}

/* Changed elsewhere too: "always allow" moves a session to its own copy of
 * a built-in profile. */
static void
session_profile_cb (WardenSession *session,
                    GParamSpec    *pspec,
                    WardenWindow  *self)
{
  reload_profiles (self);
}

static void
update_page (WardenWindow *self)
{
  if (self->session != NULL)
    gtk_stack_set_visible_child_name (self->chat_stack, "chat");
  else if (warden_application_get_provider (self->app) == NULL)
    gtk_stack_set_visible_child_name (self->chat_stack, "setup");
  else
    gtk_stack_set_visible_child_name (self->chat_stack, "welcome");
}

static void
update_session_state (WardenWindow *self)
{
  gboolean busy = self->session != NULL && warden_session_get_busy (self->session);
  gboolean has_model = warden_application_get_provider (self->app) != NULL &&
                       (self->session == NULL || warden_session_get_agent (self->session) != NULL);

  gtk_widget_set_visible (GTK_WIDGET (self->stop_button), busy);
  gtk_widget_set_visible (GTK_WIDGET (self->send_button), !busy);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.stop", busy);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.send", !busy && has_model);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.retry", !busy && self->session != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->profile_dropdown), self->session != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->composer_box), self->session != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->terminal_toggle), self->session != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->terminal),
                          self->session != NULL && self->terminal_visible);
  gtk_widget_set_sensitive (GTK_WIDGET (self->session_menu_button), self->session != NULL);
  update_title (self);
  update_sandbox (self);
  update_page (self);
}

static void
set_session (WardenWindow  *self,
             WardenSession *session)
{
  g_autoptr(GtkNoSelection) selection = NULL;

  if (self->session == session)
    return;
  close_approval_dialog (self);
  hide_banner (self);
  g_set_object (&self->session, session);
  g_signal_group_set_target (self->session_signals, session);

  if (session != NULL)
    selection = gtk_no_selection_new (g_object_ref (warden_session_get_items (session)));
  gtk_list_view_set_model (self->chat_view, GTK_SELECTION_MODEL (selection));
  self->stick_to_bottom = TRUE;
  replay_terminal (self);
  reload_profiles (self);
  update_session_state (self);
  if (session != NULL)
    {
      g_clear_handle_id (&self->scroll_id, g_source_remove);
      self->scroll_id = g_idle_add (scroll_idle_cb, self);
      gtk_widget_grab_focus (GTK_WIDGET (self->composer));
      if (warden_session_get_pending (session) != NULL && warden_window_is_showing (self, session))
        offer_approval (self, warden_session_get_pending (session));
    }
  update_review (self);
}

WardenSession *
warden_window_get_session (WardenWindow *self)
{
  return self->session;
}

gboolean
warden_window_select_session (WardenWindow *self,
                              const char   *id)
{
  g_autoptr(GError) error = NULL;
  WardenSession *session;

  if (self->session != NULL && g_strcmp0 (warden_session_get_id (self->session), id) == 0)
    return TRUE;
  session = warden_application_open_session (self->app, id, &error);
  if (session == NULL)
    {
      toast (self, error->message);
      return FALSE;
    }
  set_session (self, session);
  reload_sessions (self);
  adw_leaflet_navigate (self->leaflet, ADW_NAVIGATION_DIRECTION_FORWARD);
  return TRUE;
}

static void
session_row_activated_cb (GtkListBox    *box,
                          GtkListBoxRow *row,
                          WardenWindow  *self)
{
  warden_window_select_session (self, row_session_id (row));
}

static void
back_clicked_cb (GtkButton    *button,
                 WardenWindow *self)
{
  adw_leaflet_navigate (self->leaflet, ADW_NAVIGATION_DIRECTION_BACK);
}

/* ------------------------------------------------------------------------ */
/* New, rename, delete */

static void
new_session_create_cb (WardenNewSessionDialog *dialog,
                       const char             *workspace,
                       const char             *profile,
                       const char             *sandbox,
                       const char             *title,
                       WardenWindow           *self)
{
  g_autoptr(GError) error = NULL;
  WardenSession *session;

  session = warden_application_create_session (self->app, workspace, profile, sandbox, title,
                                               &error);
  if (session == NULL)
    {
      if (g_error_matches (error, WARDEN_SESSION_ERROR, WARDEN_SESSION_ERROR_NO_MODEL))
        show_banner (self, error->message, BANNER_PREFERENCES);
      else
        toast (self, error->message);
      return;
    }
  g_settings_set_string (self->settings, "default-workspace", workspace);
  set_session (self, session);
  reload_sessions (self);
}

static void
new_session_dialog_destroy_cb (GtkWidget    *dialog,
                               WardenWindow *self)
{
  if (self->new_session_dialog == dialog)
    self->new_session_dialog = NULL;
}

void
warden_window_new_session (WardenWindow *self)
{
  g_autofree char *workspace = g_settings_get_string (self->settings, "default-workspace");
  g_autofree char *profile = g_settings_get_string (self->settings, "default-profile");
  g_autofree char *sandbox = g_settings_get_string (self->settings, "sandbox");
  WardenNewSessionDialog *dialog;

  if (self->new_session_dialog != NULL)
    {
      gtk_window_present (GTK_WINDOW (self->new_session_dialog));
      return;
    }
  if (*workspace == '\0')
    {
      g_free (workspace);
      workspace = g_get_current_dir ();
    }
  dialog = warden_new_session_dialog_new (GTK_WINDOW (self),
                                          warden_application_get_profiles (self->app),
                                          workspace, profile, sandbox);
  self->new_session_dialog = GTK_WIDGET (dialog);
  g_signal_connect_object (dialog, "create", G_CALLBACK (new_session_create_cb), self, 0);
  g_signal_connect (dialog, "destroy", G_CALLBACK (new_session_dialog_destroy_cb), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
rename_response_cb (AdwMessageDialog *dialog,
                    const char       *response,
                    WardenWindow     *self)
{
  GtkEditable *entry = g_object_get_data (G_OBJECT (dialog), "entry");
  g_autoptr(GError) error = NULL;

  if (g_strcmp0 (response, "rename") != 0 || self->session == NULL)
    return;
  if (!warden_session_rename (self->session, gtk_editable_get_text (entry), &error))
    toast (self, error->message);
}

static void
rename_session_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  WardenWindow *self = WARDEN_WINDOW (widget);
  GtkWidget *dialog, *entry;

  if (self->session == NULL)
    return;
  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Rename Session"), NULL);
  entry = gtk_entry_new ();
  gtk_editable_set_text (GTK_EDITABLE (entry), warden_session_get_title (self->session));
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Session name"), -1);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), entry);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"), "rename", _("_Rename"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "rename",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "rename");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data (G_OBJECT (dialog), "entry", entry);
  g_signal_connect_object (dialog, "response", G_CALLBACK (rename_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
delete_response_cb (AdwMessageDialog *dialog,
                    const char       *response,
                    WardenWindow     *self)
{
  g_autoptr(GError) error = NULL;
  const char *id = g_object_get_data (G_OBJECT (dialog), "session-id");

  if (g_strcmp0 (response, "delete") != 0)
    return;
  if (self->session != NULL && g_strcmp0 (warden_session_get_id (self->session), id) == 0)
    set_session (self, NULL);
  if (!warden_application_delete_session (self->app, id, &error))
    toast (self, error->message);
}

static void
delete_session_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  WardenWindow *self = WARDEN_WINDOW (widget);
  GtkWidget *dialog;

  if (self->session == NULL)
    return;
  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Delete Session?"), NULL);
  adw_message_dialog_format_body (ADW_MESSAGE_DIALOG (dialog),
                                  _("“%s” and its whole history will be deleted. The files in "
                                    "the workspace stay as they are."),
                                  warden_session_get_title (self->session));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"), "delete", _("_Delete"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "delete",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "session-id",
                          g_strdup (warden_session_get_id (self->session)), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (delete_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ------------------------------------------------------------------------ */
/* Sending */

static void
send_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  WardenWindow *self = WARDEN_WINDOW (widget);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->composer);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *stripped = NULL;
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  stripped = g_strstrip (g_strdup (text));
  if (*stripped == '\0')
    return;
  if (self->session == NULL)
    {
      /* The text stays in the composer for the new session. */
      warden_window_new_session (self);
      return;
    }
  if (!warden_session_send (self->session, stripped, &error))
    {
      if (g_error_matches (error, WARDEN_SESSION_ERROR, WARDEN_SESSION_ERROR_NO_MODEL))
        show_banner (self, error->message, BANNER_PREFERENCES);
      else
        toast (self, error->message);
      return;
    }
  hide_banner (self);
  gtk_text_buffer_set_text (buffer, "", 0);
  self->stick_to_bottom = TRUE;
}

static void
stop_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  WardenWindow *self = WARDEN_WINDOW (widget);

  if (self->session != NULL)
    warden_session_stop (self->session);
}

static void
retry_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  WardenWindow *self = WARDEN_WINDOW (widget);
  g_autoptr(GError) error = NULL;

  if (self->session == NULL)
    return;
  hide_banner (self);
  if (!warden_session_continue (self->session, &error))
    {
      if (g_error_matches (error, WARDEN_SESSION_ERROR, WARDEN_SESSION_ERROR_NO_MODEL))
        show_banner (self, error->message, BANNER_PREFERENCES);
      else
        toast (self, error->message);
    }
}

static void
show_trace_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  WardenWindow *self = WARDEN_WINDOW (widget);
  GtkWidget *trace;

  if (self->session == NULL || warden_application_get_store (self->app) == NULL)
    return;
  trace = warden_trace_window_new (GTK_WINDOW (self), warden_application_get_store (self->app),
                                   warden_session_get_id (self->session));
  gtk_window_present (GTK_WINDOW (trace));
}

static void
find_in_terminal_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  WardenWindow *self = WARDEN_WINDOW (widget);

  if (!self->terminal_visible)
    g_object_set (self, "terminal-visible", TRUE, NULL);
  warden_terminal_show_search (self->terminal);
}

static gboolean
composer_key_pressed_cb (GtkEventControllerKey *controller,
                         guint                  keyval,
                         guint                  keycode,
                         GdkModifierType        state,
                         WardenWindow          *self)
{
  if ((keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter) &&
      (state & GDK_CONTROL_MASK) != 0)
    {
      gtk_widget_activate_action (GTK_WIDGET (self), "win.send", NULL);
      return TRUE;
    }
  if (keyval == GDK_KEY_Escape && self->session != NULL && warden_session_get_busy (self->session))
    {
      warden_session_stop (self->session);
      return TRUE;
    }
  return FALSE;
}

/* ------------------------------------------------------------------------ */

static void
provider_changed_cb (WardenApplication *app,
                     GParamSpec        *pspec,
                     WardenWindow      *self)
{
  update_session_state (self);
  if (warden_application_get_provider (app) != NULL &&
      self->banner_action == BANNER_PREFERENCES)
    hide_banner (self);
}

static void
profiles_changed_cb (WardenApplication *app,
                     WardenWindow      *self)
{
  reload_profiles (self);
}

static void
is_active_cb (WardenWindow *self,
              GParamSpec   *pspec,
              gpointer      user_data)
{
  WardenApproval *pending;

  if (!gtk_window_is_active (GTK_WINDOW (self)))
    return;
  /* Back from elsewhere: the question waiting here is said in the window,
   * not asked in a dialog that would take the keys the user came to type. */
  pending = self->session ? warden_session_get_pending (self->session) : NULL;
  if (pending != NULL && self->approval_dialog == NULL)
    {
      g_autofree char *id = g_strdup_printf ("approval-%s", warden_approval_get_id (pending));

      g_application_withdraw_notification (G_APPLICATION (self->app), id);
    }
  update_review (self);
}

WardenTerminal *
warden_window_get_terminal (WardenWindow *self)
{
  return self->terminal;
}

GtkWidget *
warden_window_get_approval_dialog (WardenWindow *self)
{
  return self->approval_dialog;
}

GtkWidget *
warden_window_get_new_session_dialog (WardenWindow *self)
{
  return self->new_session_dialog;
}

GtkTextView *
warden_window_get_composer (WardenWindow *self)
{
  return self->composer;
}

GtkListView *
warden_window_get_chat_view (WardenWindow *self)
{
  return self->chat_view;
}

const char *
warden_window_get_banner (WardenWindow *self)
{
  return gtk_revealer_get_reveal_child (self->banner_revealer)
         ? gtk_label_get_text (self->banner_label) : NULL;
}

const char *
warden_window_get_sandbox_status (WardenWindow *self)
{
  return gtk_label_get_text (self->sandbox_label);
}

const char *
warden_window_get_page (WardenWindow *self)
{
  return gtk_stack_get_visible_child_name (self->chat_stack);
}

static void
set_terminal_visible (WardenWindow *self,
                      gboolean      visible)
{
  if (self->terminal_visible == visible)
    return;
  self->terminal_visible = visible;
  gtk_widget_set_visible (GTK_WIDGET (self->terminal), visible && self->session != NULL);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TERMINAL_VISIBLE]);
}

static void
setup (WardenWindow *self)
{
  GtkAdjustment *adj;
  GtkListItemFactory *factory;
  GtkEventController *keys;

  self->app = WARDEN_APPLICATION (gtk_window_get_application (GTK_WINDOW (self)));
  self->settings = g_object_ref (warden_application_get_settings (self->app));

  g_settings_bind (self->settings, "window-width", self, "default-width", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "window-height", self, "default-height",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "window-maximized", self, "maximized", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "terminal-visible", self, "terminal-visible",
                   G_SETTINGS_BIND_DEFAULT);
  if (g_settings_get_int (self->settings, "terminal-position") > 0)
    gtk_paned_set_position (self->paned, g_settings_get_int (self->settings, "terminal-position"));
  g_settings_bind (self->settings, "terminal-position", self->paned, "position",
                   G_SETTINGS_BIND_SET);

  factory = gtk_signal_list_item_factory_new ();
  g_signal_connect (factory, "setup", G_CALLBACK (setup_row_cb), self);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_row_cb), self);
  g_signal_connect (factory, "unbind", G_CALLBACK (unbind_row_cb), self);
  gtk_list_view_set_factory (self->chat_view, factory);
  g_object_unref (factory);

  adj = gtk_scrolled_window_get_vadjustment (self->chat_scroller);
  g_signal_connect_object (adj, "changed", G_CALLBACK (vadjustment_changed_cb), self, 0);
  g_signal_connect_object (adj, "value-changed", G_CALLBACK (vadjustment_value_cb), self, 0);

  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (composer_key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->composer), keys);

  self->profile_ids = gtk_string_list_new (NULL);
  gtk_drop_down_set_model (self->profile_dropdown, G_LIST_MODEL (self->profile_ids));
  g_signal_connect (self->profile_dropdown, "notify::selected", G_CALLBACK (profile_selected_cb),
                    self);

  g_signal_connect_object (self->app, "sessions-changed", G_CALLBACK (sessions_changed_cb), self, 0);
  g_signal_connect_object (self->app, "notify::provider", G_CALLBACK (provider_changed_cb), self, 0);
  g_signal_connect_object (self->app, "profiles-changed", G_CALLBACK (profiles_changed_cb), self,
                           0);
  g_signal_connect (self, "notify::is-active", G_CALLBACK (is_active_cb), NULL);

  if (warden_application_get_store (self->app) == NULL)
    {
      const GError *error = warden_application_get_store_error (self->app);
      g_autofree char *text = g_strdup_printf (_("Sessions cannot be saved: %s"),
                                               error ? error->message : "?");

      /* A damaged file is moved aside here, not only with warden-cli. */
      show_banner (self, text, g_error_matches (error, WARDEN_STORE_ERROR,
                                                WARDEN_STORE_ERROR_CORRUPT)
                               ? BANNER_MOVE_ASIDE : BANNER_NONE);
    }

  reload_sessions (self);
  reload_profiles (self);
  update_session_state (self);
}

static void
warden_window_dispose (GObject *object)
{
  WardenWindow *self = WARDEN_WINDOW (object);

  g_clear_handle_id (&self->scroll_id, g_source_remove);
  close_approval_dialog (self);
  if (self->session_signals != NULL)
    g_signal_group_set_target (self->session_signals, NULL);
  g_clear_object (&self->session_signals);
  g_clear_object (&self->session);
  g_clear_object (&self->settings);
  g_clear_object (&self->profile_ids);
  g_clear_pointer (&self->dismissed, g_hash_table_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), WARDEN_TYPE_WINDOW);
  G_OBJECT_CLASS (warden_window_parent_class)->dispose (object);
}

static void
warden_window_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  WardenWindow *self = WARDEN_WINDOW (object);

  switch (prop_id)
    {
    case PROP_TERMINAL_VISIBLE:
      g_value_set_boolean (value, self->terminal_visible);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
warden_window_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  WardenWindow *self = WARDEN_WINDOW (object);

  switch (prop_id)
    {
    case PROP_TERMINAL_VISIBLE:
      set_terminal_visible (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
warden_window_class_init (WardenWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = warden_window_dispose;
  object_class->get_property = warden_window_get_property;
  object_class->set_property = warden_window_set_property;

  properties[PROP_TERMINAL_VISIBLE] =
    g_param_spec_boolean ("terminal-visible", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (WARDEN_TYPE_TERMINAL);
  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/warden-window.ui");
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, leaflet);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, sidebar_stack);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, session_list);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, content);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, profile_dropdown);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, session_menu_button);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, terminal_toggle);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, sandbox_progress);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, sandbox_label);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, sandbox_retry);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, banner_revealer);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, banner_label);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, banner_button);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, review_revealer);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, review_label);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, paned);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, chat_stack);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, chat_scroller);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, chat_view);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, composer);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, composer_box);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, send_button);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, stop_button);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, terminal);
  gtk_widget_class_bind_template_callback (widget_class, session_row_activated_cb);
  gtk_widget_class_bind_template_callback (widget_class, back_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, banner_button_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, banner_close_clicked_cb);

  gtk_widget_class_install_action (widget_class, "win.send", NULL, send_action);
  gtk_widget_class_install_action (widget_class, "win.stop", NULL, stop_action);
  gtk_widget_class_install_action (widget_class, "win.retry", NULL, retry_action);
  gtk_widget_class_install_action (widget_class, "win.approval-answer", "(sbbs)",
                                   approval_answer_action);
  gtk_widget_class_install_action (widget_class, "win.approval-show", "s", approval_show_action);
  gtk_widget_class_install_action (widget_class, "win.approval-review", NULL,
                                   approval_review_action);
  gtk_widget_class_install_action (widget_class, "win.show-trace", NULL, show_trace_action);
  gtk_widget_class_install_action (widget_class, "win.rename-session", NULL,
                                   rename_session_action);
  gtk_widget_class_install_action (widget_class, "win.delete-session", NULL,
                                   delete_session_action);
  gtk_widget_class_install_action (widget_class, "win.find-in-terminal", NULL,
                                   find_in_terminal_action);
  gtk_widget_class_install_property_action (widget_class, "win.terminal-visible",
                                            "terminal-visible");
}

static void
warden_window_init (WardenWindow *self)
{
  GSignalGroup *group;

  self->terminal_visible = TRUE;
  self->stick_to_bottom = TRUE;
  self->dismissed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gtk_widget_init_template (GTK_WIDGET (self));

  /* Connected once; set_session() points them at the session shown. */
  group = self->session_signals = g_signal_group_new (WARDEN_TYPE_SESSION);
  g_signal_group_connect (group, "command-started", G_CALLBACK (command_started_cb), self);
  g_signal_group_connect (group, "command-output", G_CALLBACK (command_output_cb), self);
  g_signal_group_connect (group, "command-finished", G_CALLBACK (command_finished_cb), self);
  g_signal_group_connect (group, "approval", G_CALLBACK (session_approval_cb), self);
  g_signal_group_connect (group, "approval-resolved", G_CALLBACK (session_approval_resolved_cb),
                          self);
  g_signal_group_connect (group, "failed", G_CALLBACK (session_failed_cb), self);
  g_signal_group_connect (group, "notify", G_CALLBACK (session_notify_cb), self);
  g_signal_group_connect (group, "notify::profile", G_CALLBACK (session_profile_cb), self);
  g_signal_group_connect (group, "notify::model-silent", G_CALLBACK (session_model_silent_cb),
                          self);
}
