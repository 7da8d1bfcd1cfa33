/* warden-restore-dialog.c: "Restore files to before this step", with a preview
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-ui"

#include <glib/gi18n.h>

#include "warden-restore-dialog.h"

#include "agent/warden-restore.h"
#include "warden-chat-row.h"
#include "warden-window.h"

typedef struct
{
  GtkWindow     *parent;
  WardenSession *session;
  gint64         step;
} Restore;

static void
restore_free (Restore *r)
{
  g_clear_object (&r->parent);
  g_clear_object (&r->session);
  g_free (r);
}

static void
show_error (GtkWindow    *parent,
            const GError *error)
{
  GtkWidget *dialog = adw_message_dialog_new (parent, _("Files Not Restored"), error->message);

  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
restored_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Restore *r = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) changes = NULL;
  g_autofree char *text = NULL;
  gint64 new_step = 0;

  changes = warden_agent_restore_finish (WARDEN_AGENT (object), result, NULL, &new_step, &error);
  if (changes == NULL)
    show_error (r->parent, error);
  else
    {
      text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                           "Restored the files to before step %lld: %u file "
                                           "changed. The agent is told in its next turn; "
                                           "“warden-cli sessions restore %s --before %lld” "
                                           "undoes it.",
                                           "Restored the files to before step %lld: %u files "
                                           "changed. The agent is told in its next turn; "
                                           "“warden-cli sessions restore %s --before %lld” "
                                           "undoes it.", changes->len),
                              (long long) r->step, changes->len,
                              warden_session_get_id (r->session), (long long) new_step);
      warden_session_add_notice (r->session, text);
      if (WARDEN_IS_WINDOW (r->parent))
        warden_window_toast_restored (WARDEN_WINDOW (r->parent), r->step, new_step);
    }
  restore_free (r);
}

static void
response_cb (AdwMessageDialog *dialog,
             const char       *response,
             gpointer          user_data)
{
  Restore *r = user_data;
  WardenAgent *agent = warden_session_get_agent (r->session);

  if (g_strcmp0 (response, "restore") != 0 || agent == NULL)
    {
      restore_free (r);
      return;
    }
  warden_agent_restore_async (agent, r->step, FALSE, NULL, restored_cb, r);
}

static GtkWidget *
preview_widget (GPtrArray  *changes,
                const char *diff)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *list = gtk_label_new (NULL);
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *view = warden_chat_row_diff_view_new (FALSE);
  g_autofree char *lines = warden_restore_describe_changes (changes, NULL);

  g_strchomp (lines);
  gtk_label_set_text (GTK_LABEL (list), lines);
  gtk_label_set_xalign (GTK_LABEL (list), 0);
  gtk_label_set_selectable (GTK_LABEL (list), TRUE);
  gtk_widget_add_css_class (list, "monospace");
  gtk_widget_add_css_class (list, "restore-changes");
  gtk_box_append (GTK_BOX (box), list);

  warden_chat_row_diff_view_set_diff (view, diff);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), view);
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scroller), 160);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scroller), 360);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_widget_set_visible (scroller, diff != NULL && *diff != '\0');
  gtk_box_append (GTK_BOX (box), scroller);
  return box;
}

static void
previewed_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Restore *r = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) changes = NULL;
  g_autofree char *diff = NULL;
  g_autofree char *heading = NULL;
  const char *body;
  GtkWidget *dialog;

  changes = warden_agent_restore_finish (WARDEN_AGENT (object), result, &diff, NULL, &error);
  if (changes == NULL)
    {
      show_error (r->parent, error);
      restore_free (r);
      return;
    }
  heading = g_strdup_printf (_("Restore Files to Before Step %lld?"), (long long) r->step);
  body = changes->len == 0
         ? _("The files are as they were then: nothing changes.")
         : _("These files are put back as they were before this step. Files that checkpoints "
             "leave out (ignored, over 10 MiB, node_modules) and protected paths stay as they "
             "are. The restore can be undone.");
  dialog = adw_message_dialog_new (r->parent, heading, body);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "restore", _("_Restore Files"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "restore",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_enabled (ADW_MESSAGE_DIALOG (dialog), "restore",
                                           changes->len > 0);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  if (changes->len > 0)
    adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog),
                                        preview_widget (changes, diff));
  gtk_widget_add_css_class (dialog, "restore-dialog");
  g_signal_connect (dialog, "response", G_CALLBACK (response_cb), r);
  gtk_window_present (GTK_WINDOW (dialog));
}

void
warden_restore_dialog_present (GtkWindow     *parent,
                               WardenSession *session,
                               gint64         step)
{
  WardenAgent *agent = warden_session_get_agent (session);
  Restore *r;

  if (agent == NULL)
    {
      g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED,
                                                     _("Choose a model for this session first: "
                                                       "restoring tells the agent what "
                                                       "changed."));
      show_error (parent, error);
      return;
    }
  r = g_new0 (Restore, 1);
  r->parent = g_object_ref (parent);
  r->session = g_object_ref (session);
  r->step = step;
  warden_agent_restore_async (agent, step, TRUE, NULL, previewed_cb, r);
}
