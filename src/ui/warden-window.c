/* warden-window.c: the main window: sessions, chat, terminal
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "warden-window.h"
#include "warden-restore-dialog.h"

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
  GtkSearchBar         *search_bar;
  GtkSearchEntry       *search_entry;
  GtkToggleButton      *search_toggle;
  GtkBox               *sidebar;
  GtkBox               *content;
  AdwWindowTitle       *window_title;
  GtkDropDown          *profile_dropdown;
  GtkMenuButton        *session_menu_button;
  GtkToggleButton      *terminal_toggle;
  GtkImage             *busy_spinner;      /* turned by busy_step_cb(), as the rows' */
  GtkProgressBar       *sandbox_progress;
  GtkLabel             *sandbox_label;
  GtkLabel             *usage_label;
  AdwSqueezer          *status_squeezer;
  GPtrArray            *status_copies;    /* the shorter pages' labels */
  AdwSqueezerPage      *sandbox_alone;    /* the page of the sandbox's state only */
  char                 *sandbox_short;    /* its state without the engine */
  gboolean              sandbox_notable;  /* more to say than "Sandbox ready" */
  char                 *usage_short;      /* the cost, or the tokens */
  GtkLabel             *instructions_label;
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
  GtkButton            *new_activity_button;
  GtkLabel             *empty_notice;
  AdwActionRow         *empty_workspace;
  AdwActionRow         *empty_sandbox;
  AdwActionRow         *empty_profile;
  AdwPreferencesGroup  *examples_group;
  GtkTextView          *composer;
  GtkLabel             *composer_placeholder;
  GtkBox               *composer_box;
  GtkButton            *send_button;
  GtkButton            *stop_button;
  WardenTerminal       *terminal;

  WardenApplication    *app;
  GSettings            *settings;
  WardenSession        *session;
  GSignalGroup         *session_signals;   /* on session, whichever it is */
  GSignalGroup         *items_signals;     /* on its chat items */
  GBindingGroup        *session_bindings;  /* from the session: its agent, to the two below */
  GSignalGroup         *agent_signals;     /* on the session's agent: its sandbox state */
  GBindingGroup        *agent_bindings;    /* from it: the sandbox's progress and message */
  GHashTable           *opened;            /* id → WardenSession this window opened */
  GtkStringList        *profile_names;     /* what the header's dropdown shows */
  GPtrArray            *profile_ids;       /* the id of each */
  GtkWidget            *row_menu;          /* a sidebar row's context menu */
  GMenu                *profile_section;   /* the profiles in the session menu */
  GtkWidget            *approval_dialog;
  GHashTable           *dismissed;         /* approval ids closed unanswered */
  GtkWidget            *new_session_dialog;
  BannerAction          banner_action;
  gboolean              terminal_visible;
  gboolean              following;         /* the chat keeps its newest row in view */
  gboolean              assume_active;
  gboolean              updating_profiles;
  guint                 follow_tick_id;
  guint                 follow_settled;    /* frames the end has stayed in view */
  guint                 scrolling;         /* >0 while the window moves the chat itself */
  guint                 busy_timer_id;
  guint                 clock_id;          /* the rows' "5 min ago" go on with time */
  guint                 restore_id;        /* the last session, opened after the first frame */
  gint64                command_started;   /* monotonic µs, of the command running now */
  guint                 busy_step;
};

G_DEFINE_FINAL_TYPE (WardenWindow, warden_window, ADW_TYPE_APPLICATION_WINDOW)

enum
{
  PROP_0,
  PROP_TERMINAL_VISIBLE,
  PROP_PROFILE,
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

/* The session object if this window has it open: its live state, not the
 * store's, is what the sidebar shows. */
static WardenSession *
live_session (WardenWindow *self,
              const char   *id)
{
  if (self->session != NULL && g_strcmp0 (warden_session_get_id (self->session), id) == 0)
    return self->session;
  return g_hash_table_lookup (self->opened, id);
}

/* The one title of a session, as the header and the dialogs say it too. */
static char *
dup_session_title (WardenWindow *self,
                   const char   *id)
{
  WardenSession *live = live_session (self, id);
  WardenSessionStore *store = warden_application_get_store (self->app);
  g_autoptr(WardenSessionRecord) info = NULL;

  if (live != NULL)
    return g_strdup (warden_session_get_title (live));
  if (store != NULL)
    info = warden_session_store_get_session (store, id, NULL);
  if (info != NULL && info->title != NULL && *info->title != '\0')
    return g_strdup (info->title);
  return g_strdup (_("New session"));
}

/* When a session last changed, as a person says it: "5 min ago". */
static char *
dup_relative_time (gint64 then,
                   gint64 now)
{
  gint64 ago = MAX (now - then, 0);
  g_autoptr(GDateTime) date = NULL;

  if (ago < 60)
    return g_strdup (_("just now"));
  if (ago < 3600)
    return g_strdup_printf (ngettext ("%d min ago", "%d min ago", ago / 60), (int) (ago / 60));
  if (ago < 24 * 3600)
    return g_strdup_printf (ngettext ("%d hour ago", "%d hours ago", ago / 3600),
                            (int) (ago / 3600));
  if (ago < 7 * 24 * 3600)
    return g_strdup_printf (ngettext ("%d day ago", "%d days ago", ago / (24 * 3600)),
                            (int) (ago / (24 * 3600)));
  date = g_date_time_new_from_unix_local (then);
  /* Translators: a date in the session list, strftime format */
  return date ? g_date_time_format (date, _("%e %b %Y")) : g_strdup ("");
}

static GtkWidget *
session_row_new (const char *id)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *spinner = gtk_image_new_from_icon_name ("process-working-symbolic");
  GtkWidget *badge = gtk_label_new (_("Waiting"));

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_action_row_set_title_lines (ADW_ACTION_ROW (row), 1);
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 1);
  /* An action row does not activate by default: a click would only select it. */
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);

  gtk_widget_set_visible (spinner, FALSE);
  gtk_widget_add_css_class (spinner, "warden-busy");
  gtk_widget_set_valign (spinner, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (spinner, _("The agent is working"));
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), spinner);

  gtk_widget_set_visible (badge, FALSE);
  gtk_widget_add_css_class (badge, "badge");
  gtk_widget_add_css_class (badge, "pending");
  gtk_widget_set_valign (badge, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (badge, _("Waiting for your answer"));
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), badge);

  g_object_set_data_full (G_OBJECT (row), "session-id", g_strdup (id), g_free);
  g_object_set_data (G_OBJECT (row), "spinner", spinner);
  g_object_set_data (G_OBJECT (row), "badge", badge);
  return row;
}

/* The "working" spinners turn in eight steps a second from a timer rather
 * than with every frame, as GtkSpinner does: a window redrawn without pause
 * on a slow (software) renderer leaves no turn to low-priority sources, and
 * the model's connections are given back by one of those. */
static gboolean
step_busy_image (GtkWidget *image,
                 guint      step)
{
  char step_class[] = "warden-step-0";

  if (image == NULL || !gtk_widget_get_visible (image))
    return FALSE;
  step_class[sizeof step_class - 2] = '0' + step;
  gtk_widget_set_css_classes (image, (const char *[]) { "warden-busy", step_class, NULL });
  return TRUE;
}

static gboolean
busy_step_cb (gpointer user_data)
{
  WardenWindow *self = user_data;
  GtkListBoxRow *row;
  gboolean turning;

  self->busy_step = (self->busy_step + 1) % 8;
  turning = step_busy_image (GTK_WIDGET (self->busy_spinner), self->busy_step);
  for (guint i = 0; (row = gtk_list_box_get_row_at_index (self->session_list, i)) != NULL; i++)
    turning |= step_busy_image (g_object_get_data (G_OBJECT (row), "spinner"), self->busy_step);
  if (!turning)
    {
      self->busy_timer_id = 0;
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static void
busy_turn (WardenWindow *self)
{
  if (self->busy_timer_id == 0)
    self->busy_timer_id = g_timeout_add (125, busy_step_cb, self);
}

static void
session_row_update (GtkWidget           *row,
                    WardenSessionRecord *info,
                    WardenSession       *live)
{
  GtkWidget *spinner = g_object_get_data (G_OBJECT (row), "spinner");
  GtkWidget *badge = g_object_get_data (G_OBJECT (row), "badge");
  g_autofree char *base = info->workspace ? g_path_get_basename (info->workspace) : NULL;
  const char *title;
  gboolean waiting, running;

  if (live != NULL)
    {
      title = warden_session_get_title (live);
      /* "Waiting" is for the user: an approval or a question, nothing else. */
      waiting = warden_session_get_pending (live) != NULL;
      running = !waiting && warden_session_get_busy (live);
    }
  else
    {
      title = info->title && *info->title ? info->title : _("New session");
      waiting = g_strcmp0 (info->state, "waiting") == 0;
      running = FALSE;
    }
  if (g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), title) != 0)
    adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  {
    g_autofree char *when = dup_relative_time (info->updated,
                                               g_get_real_time () / G_USEC_PER_SEC);
    /* Translators: a session's project folder and when it last changed */
    g_autofree char *subtitle = g_strdup_printf (_("%s · %s"), base ? base : "", when);
    g_autofree char *key = g_strdup_printf ("%s\n%s", title, base ? base : "");

    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
    /* What a search looks in: the title and the project. */
    g_object_set_data_full (G_OBJECT (row), "search-key", g_utf8_casefold (key, -1), g_free);
  }
  gtk_widget_set_tooltip_text (row, info->workspace);
  gtk_widget_set_visible (badge, waiting);
  gtk_widget_set_visible (spinner, running);
}

/* Sessions that never got a task are not listed: there is nothing in them
 * to come back to. The agent stores "idle" only until the first task. */
static gboolean
session_has_task (WardenSessionRecord *info,
                  WardenSession       *live)
{
  if (live != NULL)
    return warden_session_has_task (live);
  return g_strcmp0 (info->state, "idle") != 0;
}

static int
compare_created (gconstpointer a,
                 gconstpointer b)
{
  const WardenSessionRecord *x = *(WardenSessionRecord * const *) a;
  const WardenSessionRecord *y = *(WardenSessionRecord * const *) b;

  if (x->created != y->created)
    return x->created > y->created ? -1 : 1;
  return g_strcmp0 (x->id, y->id);
}

static void
reload_sessions (WardenWindow *self)
{
  WardenSessionStore *store = warden_application_get_store (self->app);
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GPtrArray) shown = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *focused_id = NULL;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  GtkListBoxRow *row;
  gboolean same = TRUE;
  guint n_rows = 0;

  if (store != NULL)
    {
      list = warden_session_store_list_sessions (store, &error);
      if (list == NULL)
        toast (self, error->message);
    }
  for (guint i = 0; list != NULL && i < list->len; i++)
    {
      WardenSessionRecord *info = g_ptr_array_index (list, i);

      if (session_has_task (info, live_session (self, info->id)))
        g_ptr_array_add (shown, info);
    }
  /* Newest first by when they were made, not by when they last changed: a
   * session opened, answered or busy stays where it is, under the pointer
   * (issue 32); its row says when it last changed. */
  g_ptr_array_sort (shown, compare_created);

  /* The rows stay when the sessions do, so that a click, the keyboard
   * focus or an open menu is not lost to every change of state. */
  while ((row = gtk_list_box_get_row_at_index (self->session_list, n_rows)) != NULL)
    {
      if (n_rows >= shown->len ||
          g_strcmp0 (row_session_id (row),
                     ((WardenSessionRecord *) g_ptr_array_index (shown, n_rows))->id) != 0)
        same = FALSE;
      n_rows++;
    }
  if (n_rows != shown->len)
    same = FALSE;

  if (!same)
    {
      if (focus != NULL && gtk_widget_is_ancestor (focus, GTK_WIDGET (self->session_list)))
        {
          GtkWidget *had = gtk_widget_get_ancestor (focus, GTK_TYPE_LIST_BOX_ROW);

          focused_id = had ? g_strdup (row_session_id (GTK_LIST_BOX_ROW (had))) : NULL;
        }
      while ((row = gtk_list_box_get_row_at_index (self->session_list, 0)) != NULL)
        gtk_list_box_remove (self->session_list, GTK_WIDGET (row));
      for (guint i = 0; i < shown->len; i++)
        {
          WardenSessionRecord *info = g_ptr_array_index (shown, i);

          gtk_list_box_append (self->session_list, session_row_new (info->id));
        }
    }

  gtk_list_box_unselect_all (self->session_list);
  for (guint i = 0; i < shown->len; i++)
    {
      WardenSessionRecord *info = g_ptr_array_index (shown, i);
      GtkWidget *w = GTK_WIDGET (gtk_list_box_get_row_at_index (self->session_list, i));

      session_row_update (w, info, live_session (self, info->id));
      if (self->session != NULL && g_strcmp0 (info->id, warden_session_get_id (self->session)) == 0)
        gtk_list_box_select_row (self->session_list, GTK_LIST_BOX_ROW (w));
      if (focused_id != NULL && g_strcmp0 (focused_id, info->id) == 0)
        gtk_widget_grab_focus (w);
    }
  gtk_stack_set_visible_child_name (self->sidebar_stack, shown->len ? "list" : "empty");
  gtk_list_box_invalidate_filter (self->session_list);
  busy_turn (self);
}

static gboolean
clock_cb (gpointer user_data)
{
  reload_sessions (user_data);
  return G_SOURCE_CONTINUE;
}

/* ------------------------------------------------------------------------ */
/* Searching the sessions */

static gboolean
session_filter_cb (GtkListBoxRow *row,
                   gpointer       user_data)
{
  WardenWindow *self = user_data;
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  const char *key = g_object_get_data (G_OBJECT (row), "search-key");
  g_autofree char *folded = NULL;

  if (!gtk_search_bar_get_search_mode (self->search_bar) || *text == '\0')
    return TRUE;
  folded = g_utf8_casefold (text, -1);
  return key != NULL && strstr (key, folded) != NULL;
}

static void
search_changed_cb (GtkSearchEntry *entry,
                   WardenWindow   *self)
{
  gtk_list_box_invalidate_filter (self->session_list);
}

static void
stop_search_cb (GtkSearchEntry *entry,
                WardenWindow   *self)
{
  gtk_search_bar_set_search_mode (self->search_bar, FALSE);
}

static void
search_mode_cb (WardenWindow *self)
{
  if (!gtk_search_bar_get_search_mode (self->search_bar))
    gtk_editable_set_text (GTK_EDITABLE (self->search_entry), "");
  gtk_list_box_invalidate_filter (self->session_list);
}

static void
search_sessions_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  WardenWindow *self = WARDEN_WINDOW (widget);

  /* Narrow, the list is on the other side. */
  adw_leaflet_set_visible_child (self->leaflet, GTK_WIDGET (self->sidebar));
  gtk_search_bar_set_search_mode (self->search_bar, TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

static void
sessions_changed_cb (WardenApplication *app,
                     WardenWindow      *self)
{
  reload_sessions (self);
}

/* A row's menu: by right click, a long press, or the Menu key. */
static void
popup_row_menu (WardenWindow  *self,
                GtkListBoxRow *row,
                double         x,
                double         y)
{
  g_autoptr(GMenu) menu = g_menu_new ();
  g_autoptr(GMenuItem) rename = g_menu_item_new (_("_Rename…"), NULL);
  g_autoptr(GMenuItem) delete = g_menu_item_new (_("_Delete"), NULL);
  const char *id = row_session_id (row);
  GdkRectangle rect = { (int) x, (int) y, 1, 1 };

  g_menu_item_set_action_and_target_value (rename, "win.rename-row", g_variant_new_string (id));
  g_menu_item_set_action_and_target_value (delete, "win.delete-row", g_variant_new_string (id));
  g_menu_append_item (menu, rename);
  g_menu_append_item (menu, delete);

  if (self->row_menu == NULL)
    {
      self->row_menu = gtk_popover_menu_new_from_model (NULL);
      gtk_popover_set_has_arrow (GTK_POPOVER (self->row_menu), FALSE);
      gtk_widget_set_halign (self->row_menu, GTK_ALIGN_START);
      gtk_widget_set_parent (self->row_menu, GTK_WIDGET (self->session_list));
    }
  gtk_popover_menu_set_menu_model (GTK_POPOVER_MENU (self->row_menu), G_MENU_MODEL (menu));
  if (x < 0)
    {
      graphene_rect_t bounds;

      if (gtk_widget_compute_bounds (GTK_WIDGET (row), GTK_WIDGET (self->session_list), &bounds))
        {
          rect.x = (int) (bounds.origin.x + bounds.size.width / 2);
          rect.y = (int) (bounds.origin.y + bounds.size.height / 2);
        }
    }
  gtk_popover_set_pointing_to (GTK_POPOVER (self->row_menu), &rect);
  gtk_popover_popup (GTK_POPOVER (self->row_menu));
}

static void
row_menu_at (WardenWindow *self,
             double        x,
             double        y)
{
  GtkListBoxRow *row = gtk_list_box_get_row_at_y (self->session_list, (int) y);

  if (row != NULL)
    popup_row_menu (self, row, x, y);
}

static void
list_right_click_cb (GtkGestureClick *gesture,
                     int              n_press,
                     double           x,
                     double           y,
                     WardenWindow    *self)
{
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
  row_menu_at (self, x, y);
}

static void
list_long_press_cb (GtkGestureLongPress *gesture,
                    double               x,
                    double               y,
                    WardenWindow        *self)
{
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
  row_menu_at (self, x, y);
}

static gboolean
list_key_pressed_cb (GtkEventControllerKey *controller,
                     guint                  keyval,
                     guint                  keycode,
                     GdkModifierType        state,
                     WardenWindow          *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  GtkWidget *row;

  if (keyval != GDK_KEY_Menu &&
      !(keyval == GDK_KEY_F10 && (state & GDK_SHIFT_MASK) != 0))
    return FALSE;
  row = focus ? gtk_widget_get_ancestor (focus, GTK_TYPE_LIST_BOX_ROW) : NULL;
  if (row == NULL)
    return FALSE;
  popup_row_menu (self, GTK_LIST_BOX_ROW (row), -1, -1);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* The chat */

/* Following: the chat keeps its newest row in view until the user scrolls
 * up, and again once they come back to the end. Only the user's own input
 * stops it: the list estimates the heights of rows it has not measured yet,
 * and moves the view itself as it measures them. */

static gboolean
chat_at_end (WardenWindow *self)
{
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (self->chat_scroller);

  return gtk_adjustment_get_value (adj) + gtk_adjustment_get_page_size (adj)
         >= gtk_adjustment_get_upper (adj) - 2;
}

static void
set_following (WardenWindow *self,
               gboolean      following)
{
  self->following = following;
  if (following)
    gtk_widget_set_visible (GTK_WIDGET (self->new_activity_button), FALSE);
}

/* Each frame, to the end, until it stays there for a few frames: the first
 * jump lands short when the rows below turn out taller than estimated. */
static gboolean
follow_tick_cb (GtkWidget     *widget,
                GdkFrameClock *clock,
                gpointer       user_data)
{
  WardenWindow *self = user_data;
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (self->chat_scroller);
  double end = gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj);

  if (!self->following)
    {
      self->follow_tick_id = 0;
      return G_SOURCE_REMOVE;
    }
  if (gtk_adjustment_get_value (adj) < end - 0.5)
    {
      self->scrolling++;
      gtk_adjustment_set_value (adj, end);
      self->scrolling--;
      self->follow_settled = 0;
      return G_SOURCE_CONTINUE;
    }
  if (++self->follow_settled < 5)
    return G_SOURCE_CONTINUE;
  self->follow_tick_id = 0;
  return G_SOURCE_REMOVE;
}

static void
follow (WardenWindow *self)
{
  self->follow_settled = 0;
  if (self->follow_tick_id == 0)
    self->follow_tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self->chat_scroller),
                                                         follow_tick_cb, self, NULL);
}

/* Something new in the chat: followed, or offered with a button. */
static void
new_activity (WardenWindow *self)
{
  if (self->following)
    follow (self);
  else
    gtk_widget_set_visible (GTK_WIDGET (self->new_activity_button), TRUE);
}

static void
new_activity_clicked_cb (GtkButton    *button,
                         WardenWindow *self)
{
  set_following (self, TRUE);
  follow (self);
}

static void
vadjustment_changed_cb (GtkAdjustment *adj,
                        WardenWindow  *self)
{
  /* Taller rows, a resized window: the end moved. */
  if (self->following)
    follow (self);
}

static void
vadjustment_value_cb (GtkAdjustment *adj,
                      WardenWindow  *self)
{
  /* Back at the end, by any means: follow again. */
  if (self->scrolling == 0 && !self->following && chat_at_end (self))
    set_following (self, TRUE);
}

/* The user's hand: the wheel or touchpad, keys, the scrollbar, a finger. */
static void
user_scrolls_up (WardenWindow *self)
{
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (self->chat_scroller);

  if (gtk_adjustment_get_value (adj) > gtk_adjustment_get_lower (adj) ||
      gtk_adjustment_get_upper (adj) > gtk_adjustment_get_page_size (adj))
    set_following (self, FALSE);
}

static gboolean
chat_scroll_cb (GtkEventControllerScroll *controller,
                double                    dx,
                double                    dy,
                WardenWindow             *self)
{
  if (dy < 0)
    user_scrolls_up (self);
  return FALSE;
}

static gboolean
chat_key_cb (GtkEventControllerKey *controller,
             guint                  keyval,
             guint                  keycode,
             GdkModifierType        state,
             WardenWindow          *self)
{
  switch (keyval)
    {
    case GDK_KEY_Page_Up:
    case GDK_KEY_KP_Page_Up:
    case GDK_KEY_Up:
    case GDK_KEY_KP_Up:
    case GDK_KEY_Home:
    case GDK_KEY_KP_Home:
      user_scrolls_up (self);
      break;
    default:
      break;
    }
  return FALSE;
}

static void
scrollbar_pressed_cb (GtkGestureClick *gesture,
                      int              n_press,
                      double           x,
                      double           y,
                      WardenWindow    *self)
{
  user_scrolls_up (self);
}

static void
chat_drag_cb (GtkGestureDrag *gesture,
              double          x,
              double          y,
              WardenWindow   *self)
{
  /* A finger moving down pulls the older rows into view. */
  if (y > 0)
    user_scrolls_up (self);
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
  self->command_started = g_get_monotonic_time ();
  warden_terminal_feed_command (self->terminal, workspace_label (self),
                                warden_chat_item_get_subject (item));
}

static void
command_output_cb (WardenSession *session,
                   const char    *data,
                   WardenWindow  *self)
{
  warden_terminal_feed_output (self->terminal, data, -1);
  new_activity (self);
}

static void
command_finished_cb (WardenSession  *session,
                     WardenChatItem *item,
                     WardenWindow   *self)
{
  /* Stopped: its block says so, not "no exit status". */
  if (warden_chat_item_get_state (item) == WARDEN_TOOL_CALL_INTERRUPTED)
    {
      gint64 ms = warden_chat_item_get_duration_ms (item);

      if (ms <= 0 && self->command_started > 0)
        ms = (g_get_monotonic_time () - self->command_started) / 1000;
      warden_terminal_feed_interrupted (self->terminal, ms);
      return;
    }
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

      gboolean interrupted;

      if (warden_chat_item_get_kind (item) != WARDEN_CHAT_ITEM_TOOL ||
          warden_chat_item_get_tool_kind (item) != WARDEN_TOOL_KIND_EXEC)
        continue;
      interrupted = warden_chat_item_get_state (item) == WARDEN_TOOL_CALL_INTERRUPTED;
      if (warden_chat_item_get_exit_status (item) < 0 && !interrupted)
        continue;
      warden_terminal_feed_command (self->terminal, workspace_label (self),
                                    warden_chat_item_get_subject (item));
      output = warden_chat_item_get_output (item);
      if (output != NULL)
        warden_terminal_feed_output (self->terminal, output, -1);
      if (interrupted)
        warden_terminal_feed_interrupted (self->terminal,
                                          warden_chat_item_get_duration_ms (item) > 0
                                          ? warden_chat_item_get_duration_ms (item) : -1);
      else
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
      /* The sidebar's header says "Warden" already (issue 32: twice side
       * by side at the first start). */
      adw_window_title_set_title (self->window_title, "");
      adw_window_title_set_subtitle (self->window_title, model ? model : "");
      return;
    }
  if (warden_session_get_model (self->session) != NULL)
    model = warden_session_get_model (self->session);
  /* Translators: the window title, "<session> — Warden" */
  title = g_strdup_printf (_("%s — Warden"), warden_session_get_title (self->session));
  gtk_window_set_title (GTK_WINDOW (self), title);
  adw_window_title_set_title (self->window_title, warden_session_get_title (self->session));
  if (warden_session_get_pending (self->session) != NULL)
    /* Translators: the header's subtitle while an approval or a question
     * waits: "Waiting for you · <folder> · <sandbox>" */
    subtitle = g_strdup_printf (_("Waiting for you · %s · %s"), workspace_label (self),
                                warden_sandbox_kind_to_string (
                                  warden_session_get_sandbox (self->session)));
  else
    subtitle = g_strdup_printf ("%s · %s · %s", workspace_label (self),
                                warden_sandbox_kind_to_string (
                                  warden_session_get_sandbox (self->session)),
                                model ? model : _("no model"));
  adw_window_title_set_subtitle (self->window_title, subtitle);
}

/* The profile's name as the user gave it, or its id. */
static char *
dup_profile_name (WardenWindow *self,
                  const char   *id)
{
  g_autoptr(WardenProfile) profile = NULL;

  if (id == NULL)
    return NULL;
  profile = warden_profile_store_lookup (warden_application_get_profiles (self->app), id, NULL);
  if (profile != NULL && warden_profile_get_name (profile) != NULL &&
      *warden_profile_get_name (profile) != '\0')
    return g_strdup (warden_profile_get_name (profile));
  return g_strdup (id);
}

/* Every profile by name, the user's own ones too ("Node.js (yours)"), the
 * session's selected. */
static void
reload_profiles (WardenWindow *self)
{
  g_autoptr(GPtrArray) list = warden_profile_store_list (warden_application_get_profiles (self->app),
                                                         NULL);
  const char *current = self->session ? warden_session_get_profile (self->session) : NULL;
  guint selected = GTK_INVALID_LIST_POSITION;
  g_autoptr(GStrvBuilder) names = g_strv_builder_new ();
  g_auto(GStrv) strv = NULL;

  g_ptr_array_set_size (self->profile_ids, 0);
  for (guint i = 0; list != NULL && i < list->len; i++)
    {
      WardenProfile *profile = g_ptr_array_index (list, i);
      const char *id = warden_profile_get_id (profile);
      const char *name = warden_profile_get_name (profile);

      g_ptr_array_add (self->profile_ids, g_strdup (id));
      g_strv_builder_add (names, name != NULL && *name != '\0' ? name : id);
      if (g_strcmp0 (id, current) == 0)
        selected = self->profile_ids->len - 1;
    }
  if (current != NULL && selected == GTK_INVALID_LIST_POSITION)
    {
      /* A profile that no longer loads still shows what the session uses. */
      g_ptr_array_add (self->profile_ids, g_strdup (current));
      g_strv_builder_add (names, current);
      selected = self->profile_ids->len - 1;
    }
  strv = g_strv_builder_end (names);

  g_menu_remove_all (self->profile_section);
  for (guint i = 0; strv[i] != NULL; i++)
    {
      g_autoptr(GMenuItem) item = g_menu_item_new (strv[i], NULL);

      g_menu_item_set_action_and_target_value (item, "win.profile",
                                               g_variant_new_string (g_ptr_array_index (self->profile_ids, i)));
      g_menu_append_item (self->profile_section, item);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROFILE]);

  self->updating_profiles = TRUE;
  gtk_string_list_splice (self->profile_names, 0,
                          g_list_model_get_n_items (G_LIST_MODEL (self->profile_names)),
                          (const char * const *) strv);
  gtk_drop_down_set_selected (self->profile_dropdown, selected);
  self->updating_profiles = FALSE;
}

static const char profile_button_ui[] =
  "<interface><template class=\"GtkListItem\"><property name=\"child\">"
  "<object class=\"GtkLabel\"><property name=\"ellipsize\">end</property>"
  "<property name=\"xalign\">0</property>"
  "<binding name=\"label\"><lookup name=\"string\" type=\"GtkStringObject\">"
  "<lookup name=\"item\">GtkListItem</lookup></lookup></binding>"
  "</object></property></template></interface>";

static const char profile_list_ui[] =
  "<interface><template class=\"GtkListItem\"><property name=\"child\">"
  "<object class=\"GtkBox\"><property name=\"spacing\">6</property>"
  "<child><object class=\"GtkLabel\"><property name=\"xalign\">0</property>"
  "<property name=\"hexpand\">1</property>"
  "<binding name=\"label\"><lookup name=\"string\" type=\"GtkStringObject\">"
  "<lookup name=\"item\">GtkListItem</lookup></lookup></binding></object></child>"
  "<child><object class=\"GtkImage\"><property name=\"icon-name\">object-select-symbolic</property>"
  "<binding name=\"visible\"><lookup name=\"selected\">GtkListItem</lookup></binding>"
  "</object></child></object></property></template></interface>";

/* From the header's dropdown or the session menu's Profile list. */
static void
switch_profile (WardenWindow *self,
                const char   *id)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *name = NULL;

  if (self->session == NULL || id == NULL ||
      g_strcmp0 (id, warden_session_get_profile (self->session)) == 0)
    return;
  if (!warden_session_set_profile (self->session, id, &error))
    {
      toast (self, error->message);
      reload_profiles (self);
      return;
    }
  name = dup_profile_name (self, id);
  text = g_strdup_printf (_("Commands are now checked against “%s”"), name);
  toast (self, text);
}

static void
profile_selected_cb (GtkDropDown  *dropdown,
                     GParamSpec   *pspec,
                     WardenWindow *self)
{
  guint selected = gtk_drop_down_get_selected (dropdown);

  if (self->updating_profiles || selected >= self->profile_ids->len)
    return;
  switch_profile (self, g_ptr_array_index (self->profile_ids, selected));
}

/* -1 is "not known": an empty bar. */
static gboolean
fraction_to_bar (GBinding     *binding,
                 const GValue *from,
                 GValue       *to,
                 gpointer      user_data)
{
  g_value_set_double (to, CLAMP (g_value_get_double (from), 0, 1));
  return TRUE;
}

/* The progress bar and the tooltips are bound to the agent's properties;
 * this says the state in words. */
/* Which project instructions the model gets: a chip beside the sandbox's. */
static void
update_instructions (WardenWindow *self)
{
  WardenAgent *agent = self->session ? warden_session_get_agent (self->session) : NULL;
  const WardenInstructions *instructions = agent ? warden_agent_get_instructions (agent) : NULL;
  const char *problem = agent ? warden_agent_get_instructions_problem (agent) : NULL;
  g_autofree char *tooltip = NULL;

  if (instructions != NULL)
    {
      g_autofree char *size = g_format_size (instructions->size);

      gtk_label_set_text (self->instructions_label, instructions->file);
      tooltip = g_strdup_printf (instructions->truncated
                                 /* Translators: "AGENTS.md", a size ("40.1 kB") */
                                 ? _("The project’s instructions in %s (%s) are given to the "
                                     "model each turn, only their first 32 KiB. They cannot "
                                     "change the profile, the sandbox or an approval.")
                                 : _("The project’s instructions in %s (%s) are given to the "
                                     "model each turn. They cannot change the profile, the "
                                     "sandbox or an approval."),
                                 instructions->file, size);
    }
  else if (problem != NULL)
    {
      gtk_label_set_text (self->instructions_label, _("Instructions not read"));
      tooltip = g_strdup (problem);
    }
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->instructions_label), tooltip);
  gtk_widget_set_visible (GTK_WIDGET (self->instructions_label),
                          tooltip != NULL && !adw_leaflet_get_folded (self->leaflet));
}

/* What each label of the status's shorter pages shows. */
typedef enum
{
  STATUS_SANDBOX,
  STATUS_SANDBOX_SHORT,
  STATUS_USAGE,
  STATUS_USAGE_SHORT,
} StatusKind;

/* The shorter pages say what the first page says, as its labels stand. */
static void
sync_status (WardenWindow *self)
{
  WardenAgent *agent = self->session ? warden_session_get_agent (self->session) : NULL;
  /* The agent's own: the label's tooltip, bound to it, may not have it yet. */
  const char *sandbox_tooltip = agent ? warden_agent_get_sandbox_message (agent) : NULL;

  for (guint i = 0; self->status_copies != NULL && i < self->status_copies->len; i++)
    {
      GtkLabel *copy = g_ptr_array_index (self->status_copies, i);
      StatusKind kind = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (copy), "status-kind"));
      gboolean sandbox = kind == STATUS_SANDBOX || kind == STATUS_SANDBOX_SHORT;
      GtkLabel *whole = sandbox ? self->sandbox_label : self->usage_label;
      const char *text = kind == STATUS_SANDBOX_SHORT ? self->sandbox_short
                         : kind == STATUS_USAGE_SHORT ? self->usage_short
                         : gtk_label_get_text (whole);
      const char *tooltip = sandbox ? sandbox_tooltip
                                    : gtk_widget_get_tooltip_text (GTK_WIDGET (whole));

      gtk_label_set_text (copy, text != NULL ? text : "");
      /* In short, the whole text is a pointer's rest away. */
      if (kind == STATUS_SANDBOX_SHORT || kind == STATUS_USAGE_SHORT)
        {
          g_autofree char *both = tooltip != NULL
                                  ? g_strdup_printf ("%s\n%s", gtk_label_get_text (whole), tooltip)
                                  : g_strdup (gtk_label_get_text (whole));

          gtk_widget_set_tooltip_text (GTK_WIDGET (copy), both);
        }
      else
        gtk_widget_set_tooltip_text (GTK_WIDGET (copy), tooltip);
      gtk_widget_set_visible (GTK_WIDGET (copy), gtk_widget_get_visible (GTK_WIDGET (whole)) &&
                                                 text != NULL && text[0] != '\0');
    }
  /* Alone, the sandbox's state only where it says more than "ready". */
  if (self->sandbox_alone != NULL)
    adw_squeezer_page_set_enabled (self->sandbox_alone, self->sandbox_notable);
}

static GtkWidget *
status_page (WardenWindow *self,
             StatusKind    first,
             StatusKind    second)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  StatusKind kinds[] = { first, second };

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      GtkWidget *label;

      if ((int) kinds[i] < 0)
        continue;
      label = gtk_label_new (NULL);
      gtk_widget_add_css_class (label, "caption");
      gtk_widget_add_css_class (label, "dim-label");
      if (kinds[i] == STATUS_USAGE || kinds[i] == STATUS_USAGE_SHORT)
        gtk_widget_add_css_class (label, "numeric");
      g_object_set_data (G_OBJECT (label), "status-kind", GINT_TO_POINTER (kinds[i]));
      g_ptr_array_add (self->status_copies, label);
      gtk_box_append (GTK_BOX (box), label);
    }
  return box;
}

/* After the whole state and usage: the same in short (the sandbox's state
 * without its engine, the cost alone), then each alone. */
static void
add_status_pages (WardenWindow *self)
{
  self->status_copies = g_ptr_array_new ();
  adw_squeezer_add (self->status_squeezer, status_page (self, STATUS_SANDBOX_SHORT, STATUS_USAGE));
  adw_squeezer_add (self->status_squeezer,
                    status_page (self, STATUS_SANDBOX_SHORT, STATUS_USAGE_SHORT));
  self->sandbox_alone = adw_squeezer_add (self->status_squeezer,
                                          status_page (self, STATUS_SANDBOX_SHORT, -1));
  adw_squeezer_add (self->status_squeezer, status_page (self, STATUS_USAGE_SHORT, -1));
  sync_status (self);
}

static void
update_sandbox (WardenWindow *self)
{
  WardenAgent *agent = self->session ? warden_session_get_agent (self->session) : NULL;
  WardenSandboxState state = agent ? warden_agent_get_sandbox_state (agent)
                                   : WARDEN_SANDBOX_STATE_NONE;
  const char *message = agent ? warden_agent_get_sandbox_message (agent) : NULL;
  gboolean preparing = state == WARDEN_SANDBOX_STATE_PREPARING;
  gboolean failed = state == WARDEN_SANDBOX_STATE_FAILED;
  g_autofree char *engine = agent ? warden_agent_dup_engine_description (agent) : NULL;
  g_autofree char *ready = NULL;
  const char *label = "";
  const char *base = NULL;

  if (preparing)
    label = _("Preparing sandbox…");
  else if (state == WARDEN_SANDBOX_STATE_READY)
    {
      /* The tooltip says why, for a gap in what it holds to. */
      base = agent && warden_agent_get_programs_unchecked (agent)
             ? _("Sandbox ready, started programs unchecked")
             : agent && warden_agent_get_network_unavailable (agent)
             ? _("Sandbox ready, no network")
             : _("Sandbox ready");

      /* And which engine runs it, where there is one: "Podman 4.3.1, rootless". */
      ready = engine ? g_strdup_printf ("%s · %s", base, engine) : g_strdup (base);
      label = ready;
    }
  else if (state == WARDEN_SANDBOX_STATE_STOPPED)
    label = _("Sandbox stopped");
  else if (failed)
    label = _("Sandbox failed");

  gtk_label_set_text (self->sandbox_label, label);
  g_free (self->sandbox_short);
  self->sandbox_short = g_strdup (base != NULL ? base : label);
  self->sandbox_notable = label[0] != '\0' && g_strcmp0 (base, _("Sandbox ready")) != 0;
  sync_status (self);
  update_instructions (self);
  /* Narrow, the header has no room for the bar; the banner says what fails. */
  gtk_widget_set_visible (GTK_WIDGET (self->sandbox_progress),
                          preparing && !adw_leaflet_get_folded (self->leaflet));
  gtk_widget_set_visible (GTK_WIDGET (self->sandbox_retry), failed);
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
        case WARDEN_APPROVAL_HOST:
          text = _("1 host waits for you");
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

static const char *
sandbox_name (WardenSandboxKind kind)
{
  switch (kind)
    {
    case WARDEN_SANDBOX_KIND_DOCKER:
      return _("Docker container");
    case WARDEN_SANDBOX_KIND_HOST:
      return _("None: commands run on this computer");
    case WARDEN_SANDBOX_KIND_BWRAP:
    case WARDEN_SANDBOX_KIND_AUTO:
    default:
      return _("Bubblewrap");
    }
}

/* A session without a task yet: where it works, in what, under which
 * profile, and a few tasks to start from. Notices (the host warning) are
 * said here too, as the chat is not shown. */
static void
update_empty (WardenWindow *self)
{
  g_autofree char *profile = dup_profile_name (self, warden_session_get_profile (self->session));
  GListModel *items = warden_session_get_items (self->session);
  g_autoptr(GString) notices = g_string_new (NULL);

  adw_action_row_set_subtitle (self->empty_workspace, warden_session_get_workspace (self->session));
  adw_action_row_set_subtitle (self->empty_sandbox,
                               sandbox_name (warden_session_get_sandbox (self->session)));
  adw_action_row_set_subtitle (self->empty_profile, profile ? profile : "");
  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr(WardenChatItem) item = g_list_model_get_item (items, i);

      if (warden_chat_item_get_kind (item) != WARDEN_CHAT_ITEM_NOTICE)
        continue;
      if (notices->len > 0)
        g_string_append (notices, "\n\n");
      g_string_append (notices, warden_chat_item_get_text (item));
    }
  gtk_label_set_text (self->empty_notice, notices->str);
  gtk_widget_set_visible (GTK_WIDGET (self->empty_notice), notices->len > 0);
}

static void
update_page (WardenWindow *self)
{
  if (self->session != NULL && warden_session_has_task (self->session))
    gtk_stack_set_visible_child_name (self->chat_stack, "chat");
  else if (self->session != NULL)
    {
      update_empty (self);
      gtk_stack_set_visible_child_name (self->chat_stack, "empty");
    }
  else if (warden_application_get_provider (self->app) == NULL)
    gtk_stack_set_visible_child_name (self->chat_stack, "setup");
  else
    gtk_stack_set_visible_child_name (self->chat_stack, "welcome");
}

/* What the session has used so far: nothing before its first request. */
static void
update_usage (WardenWindow *self)
{
  const WardenLlmUsage *usage = self->session ? warden_session_get_usage (self->session) : NULL;
  g_autofree char *text = NULL;

  g_clear_pointer (&self->usage_short, g_free);
  if (usage == NULL || usage->requests == 0)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->usage_label), FALSE);
      sync_status (self);
      return;
    }
  text = warden_llm_usage_format (usage);
  gtk_label_set_text (self->usage_label, text);
  if (warden_llm_usage_cost_known (usage))
    self->usage_short = warden_llm_usage_format_cost (usage->cost);
  else
    self->usage_short = g_strdup (text);
  /* Narrow, the title and the buttons come first. */
  gtk_widget_set_visible (GTK_WIDGET (self->usage_label), !adw_leaflet_get_folded (self->leaflet));
  sync_status (self);
}

static void
update_session_state (WardenWindow *self)
{
  gboolean busy = self->session != NULL && warden_session_get_busy (self->session);
  gboolean has_model = warden_application_get_provider (self->app) != NULL &&
                       (self->session == NULL || warden_session_get_agent (self->session) != NULL);

  gtk_widget_set_visible (GTK_WIDGET (self->stop_button), busy);
  gtk_widget_set_visible (GTK_WIDGET (self->send_button), !busy);
  gtk_widget_set_visible (GTK_WIDGET (self->busy_spinner), busy);
  busy_turn (self);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.stop", busy);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.send", !busy && has_model);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.retry", !busy && self->session != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.compact",
                                 !busy && has_model && self->session != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->profile_dropdown),
                          self->session != NULL && !adw_leaflet_get_folded (self->leaflet));
  gtk_widget_set_visible (GTK_WIDGET (self->composer_box), self->session != NULL);
  /* Narrow, the header keeps what fits in 360 px; the terminal is in the
   * session menu too. */
  gtk_widget_set_visible (GTK_WIDGET (self->terminal_toggle),
                          self->session != NULL && !adw_leaflet_get_folded (self->leaflet));
  gtk_widget_set_visible (GTK_WIDGET (self->sandbox_label), !adw_leaflet_get_folded (self->leaflet));
  gtk_widget_set_visible (GTK_WIDGET (self->terminal),
                          self->session != NULL && self->terminal_visible);
  gtk_widget_set_sensitive (GTK_WIDGET (self->session_menu_button), self->session != NULL);
  update_title (self);
  update_usage (self);
  update_sandbox (self);
  update_page (self);
}

static void
items_changed_cb (GListModel   *items,
                  guint         position,
                  guint         removed,
                  guint         added,
                  WardenWindow *self)
{
  update_page (self);
  if (added > 0)
    new_activity (self);
}

/* A session left without ever getting a task has nothing to come back to:
 * it goes from the store too. */
static void
drop_if_empty (WardenWindow  *self,
               WardenSession *session)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;

  if (warden_session_has_task (session) || warden_session_get_busy (session) ||
      warden_session_get_pending (session) != NULL)
    return;
  id = g_strdup (warden_session_get_id (session));
  g_hash_table_remove (self->opened, id);
  if (!warden_application_delete_session (self->app, id, &error))
    g_debug ("Empty session %s not deleted: %s", id, error->message);
}

static void
set_session_full (WardenWindow  *self,
                  WardenSession *session,
                  gboolean       drop_left)
{
  g_autoptr(GtkNoSelection) selection = NULL;
  g_autoptr(WardenSession) left = NULL;

  if (self->session == session)
    return;
  close_approval_dialog (self);
  hide_banner (self);
  left = self->session ? g_object_ref (self->session) : NULL;
  g_set_object (&self->session, session);
  /* First: the agent is the one of this session when its handlers run. */
  g_binding_group_set_source (self->session_bindings, session);
  g_signal_group_set_target (self->session_signals, session);
  g_signal_group_set_target (self->items_signals,
                             session ? warden_session_get_items (session) : NULL);
  if (session != NULL)
    {
      g_hash_table_replace (self->opened, g_strdup (warden_session_get_id (session)),
                            g_object_ref (session));
      /* Opened again at the next start, as Text Editor reopens documents. */
      g_settings_set_string (self->settings, "last-session", warden_session_get_id (session));
    }

  if (session != NULL)
    selection = gtk_no_selection_new (g_object_ref (warden_session_get_items (session)));
  gtk_list_view_set_model (self->chat_view, GTK_SELECTION_MODEL (selection));
  replay_terminal (self);
  reload_profiles (self);
  update_session_state (self);
  set_following (self, TRUE);
  if (session != NULL)
    {
      follow (self);
      gtk_widget_grab_focus (GTK_WIDGET (self->composer));
      if (warden_session_get_pending (session) != NULL && warden_window_is_showing (self, session))
        offer_approval (self, warden_session_get_pending (session));
    }
  update_review (self);
  if (left != NULL && drop_left)
    drop_if_empty (self, left);
}

static void
set_session (WardenWindow  *self,
             WardenSession *session)
{
  set_session_full (self, session, TRUE);
}

void
warden_window_toast_restored (WardenWindow *self,
                              gint64        step,
                              gint64        undo_step)
{
  g_autofree char *text = NULL;
  AdwToast *t;

  g_return_if_fail (WARDEN_IS_WINDOW (self));

  text = g_strdup_printf (_("Files restored to before step %lld"), (long long) step);
  t = adw_toast_new (text);
  adw_toast_set_timeout (t, 10);
  if (undo_step > 0)
    {
      adw_toast_set_button_label (t, _("_Undo"));
      adw_toast_set_action_name (t, "win.restore-step");
      adw_toast_set_action_target_value (t, g_variant_new_int64 (undo_step));
    }
  adw_toast_overlay_add_toast (self->toast_overlay, t);
}

WardenSession *
warden_window_get_session (WardenWindow *self)
{
  return self->session;
}

/* Narrow, the leaflet shows one side: the chat, once a session is chosen. */
static void
show_content (WardenWindow *self)
{
  adw_leaflet_set_visible_child (self->leaflet, GTK_WIDGET (self->content));
}

gboolean
warden_window_select_session (WardenWindow *self,
                              const char   *id)
{
  g_autoptr(GError) error = NULL;
  WardenSession *session;

  if (self->session != NULL && g_strcmp0 (warden_session_get_id (self->session), id) == 0)
    {
      show_content (self);
      return TRUE;
    }
  session = warden_application_open_session (self->app, id, &error);
  if (session == NULL)
    {
      toast (self, error->message);
      return FALSE;
    }
  set_session (self, session);
  reload_sessions (self);
  show_content (self);
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
  adw_leaflet_set_visible_child (self->leaflet, GTK_WIDGET (self->sidebar));
}

gboolean
warden_window_get_folded (WardenWindow *self)
{
  g_return_val_if_fail (WARDEN_IS_WINDOW (self), FALSE);

  return adw_leaflet_get_folded (self->leaflet);
}

gboolean
warden_window_get_showing_chat (WardenWindow *self)
{
  g_return_val_if_fail (WARDEN_IS_WINDOW (self), FALSE);

  return !adw_leaflet_get_folded (self->leaflet) ||
         adw_leaflet_get_visible_child (self->leaflet) == GTK_WIDGET (self->content);
}

/* ------------------------------------------------------------------------ */
/* New, rename, delete */

static void
new_session_create_cb (WardenNewSessionDialog *dialog,
                       const char             *workspace,
                       const char             *profile,
                       WardenSandboxKind       sandbox,
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
  /* Offered next time; Preferences' "Default workspace" is the user's to
   * set, not rewritten by a pick here (issue 32). */
  g_settings_set_string (self->settings, "last-workspace", workspace);
  set_session (self, session);
  reload_sessions (self);
  show_content (self);
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
  g_autofree char *setting = g_settings_get_string (self->settings, "sandbox");
  WardenSandboxKind sandbox = WARDEN_SANDBOX_KIND_AUTO;
  WardenNewSessionDialog *dialog;

  if (self->new_session_dialog != NULL)
    {
      gtk_window_present (GTK_WINDOW (self->new_session_dialog));
      return;
    }
  /* Else the folder of the last session made: the process's own folder is
   * most often home, which is refused as a workspace. */
  if (*workspace == '\0')
    {
      g_free (workspace);
      workspace = g_settings_get_string (self->settings, "last-workspace");
    }
  /* A setting this Warden does not know is Automatic. */
  warden_sandbox_kind_from_string (setting, &sandbox);
  dialog = warden_new_session_dialog_new (GTK_WINDOW (self),
                                          warden_application_get_profiles (self->app),
                                          workspace, profile, sandbox);
  self->new_session_dialog = GTK_WIDGET (dialog);
  g_signal_connect_object (dialog, "create", G_CALLBACK (new_session_create_cb), self, 0);
  g_signal_connect (dialog, "destroy", G_CALLBACK (new_session_dialog_destroy_cb), self);
  /* Over a narrow window, no wider than it (issue 32: 510 px over 360). */
  if (gtk_widget_get_width (GTK_WIDGET (self)) > 0)
    {
      int width, height;

      gtk_window_get_default_size (GTK_WINDOW (dialog), &width, &height);
      gtk_window_set_default_size (GTK_WINDOW (dialog),
                                   MIN (width, gtk_widget_get_width (GTK_WIDGET (self))), -1);
    }
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
rename_response_cb (AdwMessageDialog *dialog,
                    const char       *response,
                    WardenWindow     *self)
{
  GtkEditable *entry = g_object_get_data (G_OBJECT (dialog), "entry");
  const char *id = g_object_get_data (G_OBJECT (dialog), "session-id");
  WardenSessionStore *store = warden_application_get_store (self->app);
  g_autoptr(WardenSessionRecord) info = NULL;
  g_autoptr(GError) error = NULL;
  WardenSession *live;

  if (g_strcmp0 (response, "rename") != 0)
    return;
  live = live_session (self, id);
  if (live != NULL)
    {
      if (!warden_session_rename (live, gtk_editable_get_text (entry), &error))
        toast (self, error->message);
      return;
    }
  /* Not open here: its row in the store is the only copy. */
  if (store == NULL || (info = warden_session_store_get_session (store, id, &error)) == NULL)
    {
      if (error != NULL)
        toast (self, error->message);
      return;
    }
  g_free (info->title);
  info->title = g_strdup (gtk_editable_get_text (entry));
  if (!warden_session_store_save_session (store, info, &error))
    toast (self, error->message);
  reload_sessions (self);
}

static void
rename_dialog (WardenWindow *self,
               const char   *id)
{
  g_autofree char *title = dup_session_title (self, id);
  GtkWidget *dialog, *entry;

  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Rename Session"), NULL);
  entry = gtk_entry_new ();
  gtk_editable_set_text (GTK_EDITABLE (entry), title);
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
  g_object_set_data_full (G_OBJECT (dialog), "session-id", g_strdup (id), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (rename_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
rename_session_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  WardenWindow *self = WARDEN_WINDOW (widget);

  if (self->session != NULL)
    rename_dialog (self, warden_session_get_id (self->session));
}

static void
rename_row_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  rename_dialog (WARDEN_WINDOW (widget), g_variant_get_string (parameter, NULL));
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
    {
      set_session_full (self, NULL, FALSE);
      adw_leaflet_set_visible_child (self->leaflet, GTK_WIDGET (self->sidebar));
    }
  g_hash_table_remove (self->opened, id);
  if (!warden_application_delete_session (self->app, id, &error))
    toast (self, error->message);
}

static void
delete_dialog (WardenWindow *self,
               const char   *id)
{
  g_autofree char *title = dup_session_title (self, id);
  GtkWidget *dialog;

  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Delete Session?"), NULL);
  adw_message_dialog_format_body (ADW_MESSAGE_DIALOG (dialog),
                                  _("“%s” and its whole history will be deleted. The files in "
                                    "the workspace stay as they are."),
                                  title);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"), "delete", _("_Delete"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "delete",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "session-id", g_strdup (id), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (delete_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
delete_session_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  WardenWindow *self = WARDEN_WINDOW (widget);

  if (self->session != NULL)
    delete_dialog (self, warden_session_get_id (self->session));
}

static void
delete_row_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  delete_dialog (WARDEN_WINDOW (widget), g_variant_get_string (parameter, NULL));
}

/* An example task goes into the composer, to be edited and sent. */
static void
example_activated_cb (AdwActionRow *row,
                      WardenWindow *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->composer);
  GtkTextIter end;

  gtk_text_buffer_set_text (buffer, adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)),
                            -1);
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_place_cursor (buffer, &end);
  gtk_widget_grab_focus (GTK_WIDGET (self->composer));
}

static void
add_examples (WardenWindow *self)
{
  const char *examples[] = {
    N_("Explain how this project is laid out and how to build it"),
    N_("Run the tests and fix the first one that fails"),
    N_("Find the TODO comments and say which are worth doing first"),
  };

  for (guint i = 0; i < G_N_ELEMENTS (examples); i++)
    {
      GtkWidget *row = adw_action_row_new ();

      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _(examples[i]));
      gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row),
                                 gtk_image_new_from_icon_name ("document-edit-symbolic"));
      gtk_widget_set_tooltip_text (row, _("Put this task in the message box"));
      g_signal_connect (row, "activated", G_CALLBACK (example_activated_cb), self);
      adw_preferences_group_add (self->examples_group, row);
    }
}

static void
composer_changed_cb (GtkTextBuffer *buffer,
                     WardenWindow  *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self->composer_placeholder),
                          gtk_text_buffer_get_char_count (buffer) == 0);
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
  /* What the user sent is what they want to see the answer to. */
  set_following (self, TRUE);
  follow (self);
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

/* A tool card's "Restore files to before this step". */
static void
restore_step_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  WardenWindow *self = WARDEN_WINDOW (widget);

  if (self->session != NULL)
    warden_restore_dialog_present (GTK_WINDOW (self), self->session,
                                   g_variant_get_int64 (parameter));
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
compact_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  WardenWindow *self = WARDEN_WINDOW (widget);
  g_autoptr(GError) error = NULL;

  if (self->session != NULL && !warden_session_compact (self->session, &error))
    toast (self, error->message);
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

static void
folded_cb (WardenWindow *self)
{
  update_session_state (self);
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
warden_window_get_usage (WardenWindow *self)
{
  return gtk_widget_get_visible (GTK_WIDGET (self->usage_label))
         ? gtk_label_get_text (self->usage_label) : NULL;
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

/* The session shown when Warden last ran, if it is still listed: a session
 * gone or never given a task is not brought back, nor one that warden-cli
 * drives now (its lease is taken: no message for what the user did not
 * ask). After the first frame: reading a long session's messages must not
 * hold the window back (issue 32, item 8). */
static gboolean
restore_last_session_cb (gpointer user_data)
{
  WardenWindow *self = user_data;
  g_autofree char *id = g_settings_get_string (self->settings, "last-session");
  g_autoptr(GError) error = NULL;
  GtkListBoxRow *row;

  self->restore_id = 0;
  if (self->session != NULL || *id == '\0')
    return G_SOURCE_REMOVE;
  for (guint i = 0; (row = gtk_list_box_get_row_at_index (self->session_list, i)) != NULL; i++)
    if (g_strcmp0 (row_session_id (row), id) == 0)
      {
        WardenSession *session = warden_application_open_session (self->app, id, &error);

        if (session == NULL)
          {
            g_debug ("The last session is not opened again: %s", error->message);
            return G_SOURCE_REMOVE;
          }
        set_session (self, session);
        reload_sessions (self);
        show_content (self);
        break;
      }
  return G_SOURCE_REMOVE;
}

static void
setup (WardenWindow *self)
{
  GtkAdjustment *adj;
  GtkListItemFactory *factory;
  GtkEventController *keys;
  GtkEventController *controller;

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

  /* What the user does to the chat, seen before the scrolled window acts on it. */
  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
  g_signal_connect (controller, "scroll", G_CALLBACK (chat_scroll_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->chat_scroller), controller);
  controller = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
  g_signal_connect (controller, "key-pressed", G_CALLBACK (chat_key_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->chat_scroller), controller);
  controller = GTK_EVENT_CONTROLLER (gtk_gesture_click_new ());
  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
  g_signal_connect (controller, "pressed", G_CALLBACK (scrollbar_pressed_cb), self);
  gtk_widget_add_controller (gtk_scrolled_window_get_vscrollbar (self->chat_scroller), controller);
  controller = GTK_EVENT_CONTROLLER (gtk_gesture_drag_new ());
  gtk_gesture_single_set_touch_only (GTK_GESTURE_SINGLE (controller), TRUE);
  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
  g_signal_connect (controller, "drag-update", G_CALLBACK (chat_drag_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->chat_scroller), controller);

  /* The sidebar rows' menu. */
  controller = GTK_EVENT_CONTROLLER (gtk_gesture_click_new ());
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (controller), GDK_BUTTON_SECONDARY);
  g_signal_connect (controller, "pressed", G_CALLBACK (list_right_click_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->session_list), controller);
  controller = GTK_EVENT_CONTROLLER (gtk_gesture_long_press_new ());
  gtk_gesture_single_set_touch_only (GTK_GESTURE_SINGLE (controller), TRUE);
  g_signal_connect (controller, "pressed", G_CALLBACK (list_long_press_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->session_list), controller);
  controller = gtk_event_controller_key_new ();
  g_signal_connect (controller, "key-pressed", G_CALLBACK (list_key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->session_list), controller);

  g_signal_connect_object (gtk_text_view_get_buffer (self->composer), "changed",
                           G_CALLBACK (composer_changed_cb), self, 0);
  add_examples (self);

  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (composer_key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->composer), keys);

  self->profile_names = gtk_string_list_new (NULL);
  gtk_drop_down_set_model (self->profile_dropdown, G_LIST_MODEL (self->profile_names));
  /* A long name ("Node.js (yours)") shortens in a narrow header; the list
   * that opens shows it whole. */
  {
    g_autoptr(GBytes) button = g_bytes_new_static (profile_button_ui, strlen (profile_button_ui));
    g_autoptr(GBytes) list = g_bytes_new_static (profile_list_ui, strlen (profile_list_ui));
    g_autoptr(GtkListItemFactory) button_factory = gtk_builder_list_item_factory_new_from_bytes (NULL, button);
    g_autoptr(GtkListItemFactory) list_factory = gtk_builder_list_item_factory_new_from_bytes (NULL, list);

    gtk_drop_down_set_factory (self->profile_dropdown, button_factory);
    gtk_drop_down_set_list_factory (self->profile_dropdown, list_factory);
  }
  g_signal_connect (self->profile_dropdown, "notify::selected", G_CALLBACK (profile_selected_cb),
                    self);

  g_signal_connect_object (self->app, "sessions-changed", G_CALLBACK (sessions_changed_cb), self, 0);
  g_signal_connect_object (self->app, "notify::provider", G_CALLBACK (provider_changed_cb), self, 0);
  g_signal_connect_object (self->app, "profiles-changed", G_CALLBACK (profiles_changed_cb), self,
                           0);
  g_signal_connect (self, "notify::is-active", G_CALLBACK (is_active_cb), NULL);
  g_signal_connect_object (self->leaflet, "notify::folded", G_CALLBACK (folded_cb), self,
                           G_CONNECT_SWAPPED);

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

  gtk_list_box_set_filter_func (self->session_list, session_filter_cb, self, NULL);
  {
    /* A search that keeps no row says so, rather than showing nothing. */
    GtkWidget *none = gtk_label_new (_("No session’s title or project has these words"));

    gtk_label_set_wrap (GTK_LABEL (none), TRUE);
    gtk_label_set_justify (GTK_LABEL (none), GTK_JUSTIFY_CENTER);
    gtk_widget_add_css_class (none, "dim-label");
    gtk_widget_set_margin_top (none, 18);
    gtk_widget_set_margin_start (none, 12);
    gtk_widget_set_margin_end (none, 12);
    gtk_list_box_set_placeholder (self->session_list, none);
  }
  g_object_bind_property (self->search_toggle, "active", self->search_bar, "search-mode-enabled",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  g_signal_connect_object (self->search_bar, "notify::search-mode-enabled",
                           G_CALLBACK (search_mode_cb), self, G_CONNECT_SWAPPED);
  self->clock_id = g_timeout_add_seconds (60, clock_cb, self);

  reload_sessions (self);
  reload_profiles (self);
  update_session_state (self);
  self->restore_id = g_idle_add_full (G_PRIORITY_LOW, restore_last_session_cb, self, NULL);
}

static void
warden_window_dispose (GObject *object)
{
  WardenWindow *self = WARDEN_WINDOW (object);

  /* The application outlives the window and goes on emitting. */
  if (self->app != NULL)
    g_signal_handlers_disconnect_by_data (self->app, self);
  if (self->follow_tick_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self->chat_scroller), self->follow_tick_id);
  self->follow_tick_id = 0;
  g_clear_handle_id (&self->busy_timer_id, g_source_remove);
  g_clear_handle_id (&self->clock_id, g_source_remove);
  g_clear_handle_id (&self->restore_id, g_source_remove);
  close_approval_dialog (self);
  if (self->row_menu != NULL)
    gtk_widget_unparent (self->row_menu);
  self->row_menu = NULL;
  if (self->session_signals != NULL)
    g_signal_group_set_target (self->session_signals, NULL);
  g_clear_object (&self->session_signals);
  if (self->items_signals != NULL)
    g_signal_group_set_target (self->items_signals, NULL);
  g_clear_object (&self->items_signals);
  if (self->session_bindings != NULL)
    g_binding_group_set_source (self->session_bindings, NULL);
  g_clear_object (&self->session_bindings);
  if (self->agent_signals != NULL)
    g_signal_group_set_target (self->agent_signals, NULL);
  g_clear_object (&self->agent_signals);
  if (self->agent_bindings != NULL)
    g_binding_group_set_source (self->agent_bindings, NULL);
  g_clear_object (&self->agent_bindings);
  g_clear_object (&self->session);
  g_clear_pointer (&self->opened, g_hash_table_unref);
  g_clear_object (&self->settings);
  g_clear_object (&self->profile_names);
  g_clear_pointer (&self->profile_ids, g_ptr_array_unref);
  g_clear_pointer (&self->dismissed, g_hash_table_unref);
  g_clear_pointer (&self->status_copies, g_ptr_array_unref);
  self->sandbox_alone = NULL;
  g_clear_pointer (&self->sandbox_short, g_free);
  g_clear_pointer (&self->usage_short, g_free);
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
    case PROP_PROFILE:
      g_value_set_string (value, self->session ? warden_session_get_profile (self->session) : "");
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
    case PROP_PROFILE:
      switch_profile (self, g_value_get_string (value));
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
  /* The session's profile id, for the session menu's Profile list. */
  properties[PROP_PROFILE] =
    g_param_spec_string ("profile", NULL, NULL, "",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (WARDEN_TYPE_TERMINAL);
  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/warden-window.ui");
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, leaflet);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, sidebar_stack);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, session_list);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, search_bar);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, search_entry);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, search_toggle);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, sidebar);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, content);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, profile_dropdown);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, session_menu_button);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, profile_section);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, terminal_toggle);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, busy_spinner);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, sandbox_progress);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, sandbox_label);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, usage_label);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, status_squeezer);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, instructions_label);
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
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, new_activity_button);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, empty_notice);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, empty_workspace);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, empty_sandbox);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, empty_profile);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, examples_group);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, composer_placeholder);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, composer);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, composer_box);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, send_button);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, stop_button);
  gtk_widget_class_bind_template_child (widget_class, WardenWindow, terminal);
  gtk_widget_class_bind_template_callback (widget_class, session_row_activated_cb);
  gtk_widget_class_bind_template_callback (widget_class, back_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, stop_search_cb);
  gtk_widget_class_bind_template_callback (widget_class, banner_button_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, banner_close_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, new_activity_clicked_cb);

  gtk_widget_class_install_action (widget_class, "win.send", NULL, send_action);
  gtk_widget_class_install_action (widget_class, "win.search-sessions", NULL,
                                   search_sessions_action);
  gtk_widget_class_install_action (widget_class, "win.stop", NULL, stop_action);
  gtk_widget_class_install_action (widget_class, "win.retry", NULL, retry_action);
  gtk_widget_class_install_action (widget_class, "win.restore-step", "x", restore_step_action);
  gtk_widget_class_install_action (widget_class, "win.approval-answer", "(sbbs)",
                                   approval_answer_action);
  gtk_widget_class_install_action (widget_class, "win.approval-show", "s", approval_show_action);
  gtk_widget_class_install_action (widget_class, "win.approval-review", NULL,
                                   approval_review_action);
  gtk_widget_class_install_action (widget_class, "win.show-trace", NULL, show_trace_action);
  gtk_widget_class_install_action (widget_class, "win.compact", NULL, compact_action);
  gtk_widget_class_install_action (widget_class, "win.rename-session", NULL,
                                   rename_session_action);
  gtk_widget_class_install_action (widget_class, "win.delete-session", NULL,
                                   delete_session_action);
  gtk_widget_class_install_action (widget_class, "win.rename-row", "s", rename_row_action);
  gtk_widget_class_install_action (widget_class, "win.delete-row", "s", delete_row_action);
  gtk_widget_class_install_action (widget_class, "win.find-in-terminal", NULL,
                                   find_in_terminal_action);
  gtk_widget_class_install_property_action (widget_class, "win.terminal-visible",
                                            "terminal-visible");
  gtk_widget_class_install_property_action (widget_class, "win.profile", "profile");
}

static void
warden_window_init (WardenWindow *self)
{
  GSignalGroup *group;

  self->terminal_visible = TRUE;
  self->following = TRUE;
  self->opened = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->profile_ids = g_ptr_array_new_with_free_func (g_free);
  self->dismissed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gtk_widget_init_template (GTK_WIDGET (self));
  add_status_pages (self);

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

  self->items_signals = g_signal_group_new (G_TYPE_LIST_MODEL);
  g_signal_group_connect (self->items_signals, "items-changed", G_CALLBACK (items_changed_cb),
                          self);

  /* The sandbox's state, progress and message are the agent's: a session
   * gets its agent when it gets a model, so both follow its "agent". */
  self->agent_signals = g_signal_group_new (WARDEN_TYPE_AGENT);
  g_signal_group_connect_swapped (self->agent_signals, "usage", G_CALLBACK (update_usage), self);
  g_signal_group_connect_swapped (self->agent_signals, "notify::sandbox-state",
                                  G_CALLBACK (update_sandbox), self);
  /* A second failure for another reason is no new state: its banner is new. */
  g_signal_group_connect_swapped (self->agent_signals, "notify::sandbox-message",
                                  G_CALLBACK (update_sandbox), self);
  g_signal_group_connect_swapped (self->agent_signals, "notify::instructions",
                                  G_CALLBACK (update_instructions), self);
  self->agent_bindings = g_binding_group_new ();
  g_binding_group_bind_full (self->agent_bindings, "sandbox-fraction",
                             self->sandbox_progress, "fraction", G_BINDING_SYNC_CREATE,
                             fraction_to_bar, NULL, NULL, NULL);
  g_binding_group_bind (self->agent_bindings, "sandbox-message",
                        self->sandbox_progress, "tooltip-text", G_BINDING_SYNC_CREATE);
  g_binding_group_bind (self->agent_bindings, "sandbox-message",
                        self->sandbox_label, "tooltip-text", G_BINDING_SYNC_CREATE);
  self->session_bindings = g_binding_group_new ();
  g_binding_group_bind (self->session_bindings, "agent", self->agent_signals, "target",
                        G_BINDING_SYNC_CREATE);
  g_binding_group_bind (self->session_bindings, "agent", self->agent_bindings, "source",
                        G_BINDING_SYNC_CREATE);
}
