/* warden-new-session-dialog.c: choose a workspace, a profile and a sandbox
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-ui"

#include <glib/gi18n.h>

#include "warden-new-session-dialog.h"

#include "workspace/warden-workspace-check.h"

/* In the order of the sandbox row's items. */
static const WardenSandboxKind sandbox_kinds[] = {
  WARDEN_SANDBOX_KIND_AUTO, WARDEN_SANDBOX_KIND_DOCKER, WARDEN_SANDBOX_KIND_BWRAP,
  WARDEN_SANDBOX_KIND_HOST,
};

struct _WardenNewSessionDialog
{
  AdwWindow      parent_instance;

  GCancellable  *cancellable;    /* the check of the current workspace; cancelled in dispose */
  char          *workspace;
  gboolean       workspace_ok;
  gboolean       checking;        /* the workspace check has not answered yet */
  gboolean       create_when_ok;  /* Enter came before the check's answer */
  GPtrArray     *profile_ids;

  AdwActionRow  *workspace_row;
  AdwComboRow   *profile_row;
  AdwComboRow   *sandbox_row;
  AdwEntryRow   *title_row;
  GtkButton     *create_button;
};

G_DEFINE_FINAL_TYPE (WardenNewSessionDialog, warden_new_session_dialog, ADW_TYPE_WINDOW)

enum {
  CREATE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
set_workspace_ok (WardenNewSessionDialog *self,
                  gboolean                ok)
{
  self->workspace_ok = ok;
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "new-session.create", ok);

}

static void
check_thread (GTask        *task,
              gpointer      source,
              gpointer      data,
              GCancellable *cancellable)
{
  GError *error = NULL;
  char *real = warden_workspace_check (data, NULL, &error);

  if (real != NULL)
    g_task_return_pointer (task, real, g_free);
  else
    g_task_return_error (task, error);
}

static void
check_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *real = g_task_propagate_pointer (G_TASK (result), &error);
  WardenNewSessionDialog *self = WARDEN_NEW_SESSION_DIALOG (object);

  /* A newer workspace was chosen, or the dialog went away. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  self->checking = FALSE;
  if (real != NULL)
    {
      set_workspace_ok (self, TRUE);
      /* Ctrl+N, Enter: the user asked before the folder was looked at. */
      if (self->create_when_ok)
        warden_new_session_dialog_activate_create (self);
      return;
    }
  self->create_when_ok = FALSE;

  /* Why this folder cannot be one (not there, $HOME, it holds ~/.ssh …) and
   * what to do, where the folder is shown. */
  adw_action_row_set_subtitle (self->workspace_row, error->message);
  gtk_widget_add_css_class (GTK_WIDGET (self->workspace_row), "error");
  set_workspace_ok (self, FALSE);
}

void
warden_new_session_dialog_set_workspace (WardenNewSessionDialog *self,
                                         const char             *path)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (WARDEN_IS_NEW_SESSION_DIALOG (self));

  g_free (self->workspace);
  self->workspace = path != NULL && path[0] != '\0' ? g_strdup (path) : NULL;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  set_workspace_ok (self, FALSE);
  self->checking = FALSE;
  self->create_when_ok = FALSE;
  gtk_widget_remove_css_class (GTK_WIDGET (self->workspace_row), "error");

  if (self->workspace == NULL)
    {
      adw_action_row_set_subtitle (self->workspace_row, _("None chosen"));
      return;
    }

  adw_action_row_set_subtitle (self->workspace_row, self->workspace);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->workspace_row), self->workspace);

  /* The folder may be on a slow or gone network mount: look without blocking.
   * The agent checks again when the session starts; this is so Create is
   * never offered for a folder it would refuse. */
  self->cancellable = g_cancellable_new ();
  self->checking = TRUE;
  task = g_task_new (self, self->cancellable, check_cb, NULL);
  g_task_set_source_tag (task, warden_new_session_dialog_set_workspace);
  g_task_set_task_data (task, g_strdup (self->workspace), g_free);
  g_task_run_in_thread (task, check_thread);
}

const char *
warden_new_session_dialog_get_workspace (WardenNewSessionDialog *self)
{
  g_return_val_if_fail (WARDEN_IS_NEW_SESSION_DIALOG (self), NULL);

  return self->workspace;
}

gboolean
warden_new_session_dialog_get_can_create (WardenNewSessionDialog *self)
{
  g_return_val_if_fail (WARDEN_IS_NEW_SESSION_DIALOG (self), FALSE);

  return self->workspace_ok;
}

static void
create_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  WardenNewSessionDialog *self = WARDEN_NEW_SESSION_DIALOG (widget);
  guint profile_index = adw_combo_row_get_selected (self->profile_row);
  guint sandbox_index = adw_combo_row_get_selected (self->sandbox_row);
  const char *profile = profile_index < self->profile_ids->len
                        ? g_ptr_array_index (self->profile_ids, profile_index) : "";
  WardenSandboxKind sandbox = sandbox_index < G_N_ELEMENTS (sandbox_kinds)
                              ? sandbox_kinds[sandbox_index] : WARDEN_SANDBOX_KIND_AUTO;
  g_autofree char *title = NULL;

  if (!self->workspace_ok)
    return;

  title = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->title_row))));
  g_object_ref (self);
  g_signal_emit (self, signals[CREATE], 0, self->workspace, profile, sandbox, title);
  gtk_window_destroy (GTK_WINDOW (self));
  g_object_unref (self);
}

void
warden_new_session_dialog_activate_create (WardenNewSessionDialog *self)
{
  g_return_if_fail (WARDEN_IS_NEW_SESSION_DIALOG (self));

  /* Goes through the action, so a disabled Create does nothing here either. */
  gtk_widget_activate_action (GTK_WIDGET (self), "new-session.create", NULL);
}

static void
title_activated_cb (WardenNewSessionDialog *self)
{
  /* Enter is Create, also while the folder is still being looked at. */
  if (self->checking)
    self->create_when_ok = TRUE;
  else
    warden_new_session_dialog_activate_create (self);
}

static void
chooser_response_cb (GtkNativeDialog        *chooser,
                     int                     response,
                     WardenNewSessionDialog *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;

      /* A folder without a local path (a remote location) cannot be mounted
       * in a sandbox; the row then says nothing was chosen. */
      warden_new_session_dialog_set_workspace (self, path);
    }

  g_object_unref (chooser);
  g_object_unref (self);
}

static void
choose_clicked_cb (WardenNewSessionDialog *self)
{
  GtkFileChooserNative *chooser;

  chooser = gtk_file_chooser_native_new (_("Choose the Workspace Folder"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                         _("_Select"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  if (self->workspace != NULL)
    {
      g_autoptr(GFile) folder = g_file_new_for_path (self->workspace);

      gtk_file_chooser_set_file (GTK_FILE_CHOOSER (chooser), folder, NULL);
    }

  /* The references end in the response handler. */
  g_signal_connect (chooser, "response", G_CALLBACK (chooser_response_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
fill_profiles (WardenNewSessionDialog *self,
               WardenProfileStore     *profiles,
               const char             *selected)
{
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);
  g_autoptr(GPtrArray) list = NULL;
  guint selected_index = 0;

  if (profiles != NULL)
    list = warden_profile_store_list (profiles, NULL);

  for (guint i = 0; list != NULL && i < list->len; i++)
    {
      WardenProfile *profile = g_ptr_array_index (list, i);
      const char *id = warden_profile_get_id (profile);
      const char *name = warden_profile_get_name (profile);

      g_ptr_array_add (self->profile_ids, g_strdup (id));
      gtk_string_list_append (names, name != NULL && name[0] != '\0' ? name : id);
      if (g_strcmp0 (id, selected) == 0)
        selected_index = i;
    }

  adw_combo_row_set_model (self->profile_row, G_LIST_MODEL (names));
  if (self->profile_ids->len > 0)
    adw_combo_row_set_selected (self->profile_row, selected_index);
}

WardenNewSessionDialog *
warden_new_session_dialog_new (GtkWindow          *parent,
                               WardenProfileStore *profiles,
                               const char         *workspace,
                               const char         *profile,
                               WardenSandboxKind   sandbox)
{
  WardenNewSessionDialog *self;

  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (profiles == NULL || WARDEN_IS_PROFILE_STORE (profiles), NULL);

  self = g_object_new (WARDEN_TYPE_NEW_SESSION_DIALOG,
                       "transient-for", parent,
                       NULL);

  fill_profiles (self, profiles, profile);
  for (guint i = 0; i < G_N_ELEMENTS (sandbox_kinds); i++)
    if (sandbox_kinds[i] == sandbox)
      adw_combo_row_set_selected (self->sandbox_row, i);
  warden_new_session_dialog_set_workspace (self, workspace);
  /* The keys go to the title, not to Cancel: Ctrl+N, then Enter creates. */
  gtk_window_set_default_widget (GTK_WINDOW (self), GTK_WIDGET (self->create_button));
  gtk_window_set_focus (GTK_WINDOW (self), GTK_WIDGET (self->title_row));

  return self;
}

static void
warden_new_session_dialog_dispose (GObject *object)
{
  WardenNewSessionDialog *self = WARDEN_NEW_SESSION_DIALOG (object);

  /* check_cb() then returns without touching @self. */
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), WARDEN_TYPE_NEW_SESSION_DIALOG);

  G_OBJECT_CLASS (warden_new_session_dialog_parent_class)->dispose (object);
}

static void
warden_new_session_dialog_finalize (GObject *object)
{
  WardenNewSessionDialog *self = WARDEN_NEW_SESSION_DIALOG (object);

  g_free (self->workspace);
  g_ptr_array_unref (self->profile_ids);

  G_OBJECT_CLASS (warden_new_session_dialog_parent_class)->finalize (object);
}

static void
warden_new_session_dialog_class_init (WardenNewSessionDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = warden_new_session_dialog_dispose;
  object_class->finalize = warden_new_session_dialog_finalize;

  /**
   * WardenNewSessionDialog::create:
   * @workspace: the folder, a local path
   * @profile: the profile's id
   * @sandbox: a #WardenSandboxKind, AUTO for Automatic
   * @title: the title, "" for none
   */
  signals[CREATE] = g_signal_new ("create",
                                  G_TYPE_FROM_CLASS (klass),
                                  G_SIGNAL_RUN_LAST,
                                  0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 4,
                                  G_TYPE_STRING, G_TYPE_STRING, WARDEN_TYPE_SANDBOX_KIND,
                                  G_TYPE_STRING);

  gtk_widget_class_install_action (widget_class, "new-session.create", NULL, create_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Return, GDK_CONTROL_MASK,
                                       "new-session.create", NULL);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RESOURCE_PREFIX "/warden-new-session-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, WardenNewSessionDialog, workspace_row);
  gtk_widget_class_bind_template_child (widget_class, WardenNewSessionDialog, profile_row);
  gtk_widget_class_bind_template_child (widget_class, WardenNewSessionDialog, sandbox_row);
  gtk_widget_class_bind_template_child (widget_class, WardenNewSessionDialog, title_row);
  gtk_widget_class_bind_template_child (widget_class, WardenNewSessionDialog, create_button);
  gtk_widget_class_bind_template_callback (widget_class, choose_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, title_activated_cb);
}

static void
warden_new_session_dialog_init (WardenNewSessionDialog *self)
{
  self->profile_ids = g_ptr_array_new_with_free_func (g_free);

  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "new-session.create", FALSE);
}
