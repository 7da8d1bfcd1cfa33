/* warden-preferences-window.c: the model, the sandbox and the profiles
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-ui"

#include <glib/gi18n.h>

#include "warden-preferences-window.h"

#include <string.h>

#include "llm/warden-env-keys.h"
#include "policy/warden-claude-import.h"
#include "engine/warden-docker-client.h"
#include "warden-application.h"

struct _WardenPreferencesWindow
{
  AdwPreferencesWindow  parent_instance;

  GSettings            *settings;
  WardenProfileStore   *store;
  WardenCredentials    *credentials;
  GCancellable         *cancellable;
  GCancellable         *key_cancellable;    /* the key lookup under way */
  GtkNativeDialog      *chooser;
  GHashTable           *deleted;            /* id → WardenProfile, for undo */
  GStrv                 profile_ids;        /* as listed, for the default profile row */
  GPtrArray            *profile_rows;
  GPtrArray            *problem_rows;
  WardenProfileEditor  *editor;             /* weak */
  GtkWidget            *pending_editor;     /* to present once the last one is gone */
  guint                 pending;            /* operations under way */
  guint                 list_generation;

  /* Template widgets */
  AdwComboRow          *provider_row;
  AdwEntryRow          *model_row;
  AdwEntryRow          *base_url_row;
  AdwPreferencesGroup  *key_group;
  AdwEntryRow          *key_row;
  AdwActionRow         *key_status_row;
  GtkWidget            *clear_key_button;
  GtkSpinButton        *max_steps_spin;
  GtkSpinButton        *context_window_spin;
  AdwActionRow         *test_row;
  GtkImage             *test_icon;
  GtkSpinner           *test_spinner;
  GtkWidget            *test_button;
  GCancellable         *test_cancellable;   /* the connection test under way */
  WardenSandboxKind     sandbox_auto;       /* what Automatic is now: docker, bwrap, or AUTO
                                             * while not known */
  AdwComboRow          *sandbox_row;
  AdwEntryRow          *image_row;
  GtkSwitch            *network_switch;
  GtkSpinButton        *memory_spin;
  GtkSpinButton        *cpu_spin;
  AdwActionRow         *workspace_row;
  AdwComboRow          *default_profile_row;
  AdwPreferencesGroup  *profiles_group;
  AdwPreferencesGroup  *problems_group;
};

G_DEFINE_FINAL_TYPE (WardenPreferencesWindow, warden_preferences_window,
                     ADW_TYPE_PREFERENCES_WINDOW)

enum {
  PROP_0,
  PROP_SETTINGS,
  PROP_STORE,
  PROP_CREDENTIALS,
  PROP_BUSY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* In the order of the combo rows' items. */
static const char * const provider_choices[] = { "auto", "anthropic", "openai", "ollama", NULL };
/* In the order of the sandbox row's items. */
static const WardenSandboxKind sandbox_kinds[] = {
  WARDEN_SANDBOX_KIND_AUTO, WARDEN_SANDBOX_KIND_DOCKER, WARDEN_SANDBOX_KIND_BWRAP,
  WARDEN_SANDBOX_KIND_HOST,
};
static const char * const page_names[] = { "model", "sandbox", "profiles", NULL };

static void refresh_profiles (WardenPreferencesWindow *self);
static void refresh_key      (WardenPreferencesWindow *self);

static void
toast (WardenPreferencesWindow *self,
       const char              *message)
{
  adw_preferences_window_add_toast (ADW_PREFERENCES_WINDOW (self), adw_toast_new (message));
}

static void
hold (WardenPreferencesWindow *self)
{
  if (self->pending++ == 0)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static void
release (WardenPreferencesWindow *self)
{
  g_return_if_fail (self->pending > 0);

  if (--self->pending == 0)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

/* Settings mappings */

static gboolean
choice_get_mapping (GValue   *value,
                    GVariant *variant,
                    gpointer  user_data)
{
  const char * const *choices = user_data;
  const char *str = g_variant_get_string (variant, NULL);

  for (guint i = 0; choices[i] != NULL; i++)
    if (g_strcmp0 (choices[i], str) == 0)
      {
        g_value_set_uint (value, i);
        return TRUE;
      }

  g_value_set_uint (value, 0);
  return TRUE;
}

static GVariant *
choice_set_mapping (const GValue       *value,
                    const GVariantType *expected_type,
                    gpointer            user_data)
{
  const char * const *choices = user_data;
  guint index = g_value_get_uint (value);

  if (index >= g_strv_length ((char **) choices))
    return NULL;
  return g_variant_new_string (choices[index]);
}

/* The setting's text is read and written as the kind's, nowhere else: one
 * this Warden does not know is Automatic. */
static gboolean
sandbox_get_mapping (GValue   *value,
                     GVariant *variant,
                     gpointer  user_data)
{
  WardenSandboxKind kind = WARDEN_SANDBOX_KIND_AUTO;

  warden_sandbox_kind_from_string (g_variant_get_string (variant, NULL), &kind);
  g_value_set_uint (value, 0);
  for (guint i = 0; i < G_N_ELEMENTS (sandbox_kinds); i++)
    if (sandbox_kinds[i] == kind)
      g_value_set_uint (value, i);
  return TRUE;
}

static GVariant *
sandbox_set_mapping (const GValue       *value,
                     const GVariantType *expected_type,
                     gpointer            user_data)
{
  guint index = g_value_get_uint (value);

  if (index >= G_N_ELEMENTS (sandbox_kinds))
    return NULL;
  return g_variant_new_string (warden_sandbox_kind_to_string (sandbox_kinds[index]));
}

/* Must always succeed: GSettings aborts when a mapping rejects the default,
 * and the default profile may not be listed (yet, or any more). */
static gboolean
profile_get_mapping (GValue   *value,
                     GVariant *variant,
                     gpointer  user_data)
{
  WardenPreferencesWindow *self = user_data;
  const char *id = g_variant_get_string (variant, NULL);

  g_value_set_uint (value, GTK_INVALID_LIST_POSITION);
  for (guint i = 0; self->profile_ids != NULL && self->profile_ids[i] != NULL; i++)
    if (g_strcmp0 (self->profile_ids[i], id) == 0)
      g_value_set_uint (value, i);

  return TRUE;
}

static GVariant *
profile_set_mapping (const GValue       *value,
                     const GVariantType *expected_type,
                     gpointer            user_data)
{
  WardenPreferencesWindow *self = user_data;
  guint index = g_value_get_uint (value);

  if (self->profile_ids == NULL || index >= g_strv_length (self->profile_ids))
    return NULL;
  return g_variant_new_string (self->profile_ids[index]);
}

static gboolean
workspace_get_mapping (GValue   *value,
                       GVariant *variant,
                       gpointer  user_data)
{
  const char *path = g_variant_get_string (variant, NULL);

  if (path[0] == '\0')
    g_value_set_string (value, _("Not set: each new session asks for a folder"));
  else
    g_value_take_string (value, g_filename_display_name (path));
  return TRUE;
}

/* The API key */

/* The provider whose key the key row edits, or NULL when it needs none.
 * "auto" tries Anthropic first, so that is the key it edits. */
static const char *
key_provider (WardenPreferencesWindow *self)
{
  g_autofree char *provider = g_settings_get_string (self->settings, "provider");

  if (g_strcmp0 (provider, "openai") == 0)
    return "openai";
  if (g_strcmp0 (provider, "ollama") == 0)
    return NULL;
  return "anthropic";
}

static const char *
provider_display_name (const char *provider)
{
  if (g_strcmp0 (provider, "openai") == 0)
    return _("OpenAI");
  return _("Anthropic");
}

static gboolean
env_var_is_set (const char *name)
{
  const char *value = name != NULL ? warden_env_keys_get (name) : NULL;

  return value != NULL && value[0] != '\0';
}

static void
set_key_status (WardenPreferencesWindow *self,
                const char              *provider,
                gboolean                 stored,
                const GError            *error)
{
  const char *env_var = warden_credentials_env_var (provider);
  g_autofree char *status = NULL;

  if (error != NULL)
    status = g_strdup (error->message);
  else if (env_var_is_set (env_var) && stored)
    status = g_strdup_printf (_("Using %s from the environment; a key is also stored in the "
                                "keyring"), env_var);
  else if (env_var_is_set (env_var))
    status = g_strdup_printf (_("Using %s from the environment"), env_var);
  else if (stored)
    status = g_strdup (_("A key is stored in the keyring"));
  else
    status = g_strdup_printf (_("No key stored: paste one above, or set %s in the environment"),
                              env_var);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->key_status_row), status);
  gtk_widget_set_visible (self->clear_key_button, stored);
}

typedef struct
{
  WardenPreferencesWindow *self;
  char                    *provider;
} KeyCall;

static KeyCall *
key_call_new (WardenPreferencesWindow *self,
              const char              *provider)
{
  KeyCall *call = g_new0 (KeyCall, 1);

  call->self = g_object_ref (self);
  call->provider = g_strdup (provider);
  hold (self);
  return call;
}

static void
key_call_free (KeyCall *call)
{
  release (call->self);
  g_object_unref (call->self);
  g_free (call->provider);
  g_free (call);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KeyCall, key_call_free)

static void
key_lookup_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(KeyCall) call = user_data;
  g_autoptr(GError) error = NULL;
  char *key;

  key = warden_credentials_lookup_finish (WARDEN_CREDENTIALS (object), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  /* Only whether there is one matters here; it leaves memory at once. */
  if (key != NULL)
    memset (key, 0, strlen (key));
  set_key_status (call->self, call->provider, key != NULL, error);
  g_free (key);
}

static void
refresh_key (WardenPreferencesWindow *self)
{
  const char *provider = key_provider (self);
  g_autofree char *title = NULL;

  g_cancellable_cancel (self->key_cancellable);
  g_clear_object (&self->key_cancellable);

  gtk_widget_set_sensitive (GTK_WIDGET (self->key_group), provider != NULL);
  if (provider == NULL)
    {
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->key_row), _("API key"));
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->key_status_row),
                                     _("Ollama runs on your computer and needs no key"));
      gtk_widget_set_visible (self->clear_key_button, FALSE);
      return;
    }

  title = g_strdup_printf (_("%s API key"), provider_display_name (provider));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->key_row), title);

  self->key_cancellable = g_cancellable_new ();
  warden_credentials_lookup_async (self->credentials, provider, self->key_cancellable,
                                   key_lookup_cb, key_call_new (self, provider));
}

static void test_result_stale (WardenPreferencesWindow *self);

static void
key_store_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(KeyCall) call = user_data;
  g_autoptr(GError) error = NULL;
  WardenPreferencesWindow *self = call->self;

  if (!warden_credentials_store_finish (WARDEN_CREDENTIALS (object), result, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      /* The key stays in the entry, so saving again needs no new paste. */
      set_key_status (self, call->provider, FALSE, error);
      toast (self, error->message);
      return;
    }

  gtk_editable_set_text (GTK_EDITABLE (self->key_row), "");
  toast (self, _("The API key is saved in the keyring"));
  test_result_stale (self);
  if (g_strcmp0 (call->provider, key_provider (self)) == 0)
    refresh_key (self);
}

static void
key_apply_cb (WardenPreferencesWindow *self,
              AdwEntryRow             *row)
{
  const char *provider = key_provider (self);
  const char *key = gtk_editable_get_text (GTK_EDITABLE (row));

  if (provider == NULL || key[0] == '\0')
    return;

  warden_credentials_store_async (self->credentials, provider, key, self->cancellable,
                                  key_store_cb, key_call_new (self, provider));
}

static void
key_clear_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(KeyCall) call = user_data;
  g_autoptr(GError) error = NULL;

  if (!warden_credentials_clear_finish (WARDEN_CREDENTIALS (object), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        toast (call->self, error->message);
      return;
    }

  toast (call->self, _("The API key is removed from the keyring"));
  test_result_stale (call->self);
  refresh_key (call->self);
}

static void
clear_key_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
  WardenPreferencesWindow *self = WARDEN_PREFERENCES_WINDOW (widget);
  const char *provider = key_provider (self);

  if (provider == NULL)
    return;

  warden_credentials_clear_async (self->credentials, provider, self->cancellable,
                                  key_clear_cb, key_call_new (self, provider));
}

static void
provider_changed_cb (WardenPreferencesWindow *self,
                     const char              *key,
                     GSettings               *settings)
{
  refresh_key (self);
}

/* The default workspace */

static void
chooser_response_cb (WardenPreferencesWindow *self,
                     int                      response,
                     GtkNativeDialog         *chooser)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;

      if (path != NULL)
        g_settings_set_string (self->settings, "default-workspace", path);
      else if (file != NULL)
        toast (self, _("Choose a folder on this computer: the sandbox can only use local folders"));
    }

  gtk_native_dialog_destroy (chooser);
  if (self->chooser == chooser)
    g_clear_object (&self->chooser);
}

static void
choose_workspace_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *param)
{
  WardenPreferencesWindow *self = WARDEN_PREFERENCES_WINDOW (widget);
  g_autofree char *current = g_settings_get_string (self->settings, "default-workspace");
  GtkFileChooserNative *chooser;

  if (self->chooser != NULL)
    gtk_native_dialog_destroy (self->chooser);
  g_clear_object (&self->chooser);

  chooser = gtk_file_chooser_native_new (_("Default Workspace"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                         _("_Select"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  if (current[0] != '\0')
    {
      g_autoptr(GFile) folder = g_file_new_for_path (current);

      gtk_file_chooser_set_file (GTK_FILE_CHOOSER (chooser), folder, NULL);
    }
  g_signal_connect_object (chooser, "response", G_CALLBACK (chooser_response_cb), self,
                           G_CONNECT_SWAPPED);
  self->chooser = GTK_NATIVE_DIALOG (chooser);
  gtk_native_dialog_show (self->chooser);
}

static void
clear_workspace_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *param)
{
  WardenPreferencesWindow *self = WARDEN_PREFERENCES_WINDOW (widget);

  g_settings_set_string (self->settings, "default-workspace", "");
}

/* Profile operations, each in a thread: they read and write files. */

typedef enum
{
  OP_LIST,
  OP_CREATE,
  OP_DUPLICATE,
  OP_RENAME,
  OP_DELETE,
  OP_RESTORE,
  OP_IMPORT,
  OP_IMPORT_CLAUDE,
  OP_EXPORT,
} OpKind;

typedef struct
{
  OpKind         kind;
  char          *id;
  char          *new_id;
  char          *name;
  GFile         *file;
  WardenProfile *profile;    /* in: a copy for the thread alone; out: the result */
  GPtrArray     *profiles;   /* OP_LIST */
  GPtrArray     *errors;     /* OP_LIST */
  GStrv          skipped;    /* OP_IMPORT_CLAUDE */
  guint          generation;
} Op;

static void
op_free (Op *op)
{
  g_free (op->id);
  g_free (op->new_id);
  g_free (op->name);
  g_clear_object (&op->file);
  g_clear_object (&op->profile);
  g_clear_pointer (&op->profiles, g_ptr_array_unref);
  g_clear_pointer (&op->errors, g_ptr_array_unref);
  g_strfreev (op->skipped);
  g_free (op);
}

/* Something to name a new profile's file after: "My Rust Tools" gives
 * "my-rust-tools". */
static char *
id_from_name (const char *name)
{
  GString *id = g_string_new (NULL);

  for (const char *p = name; *p != '\0' && id->len < 48; p++)
    {
      if (g_ascii_isalnum (*p))
        g_string_append_c (id, g_ascii_tolower (*p));
      else if (id->len > 0 && id->str[id->len - 1] != '-')
        g_string_append_c (id, '-');
    }
  while (id->len > 0 && id->str[id->len - 1] == '-')
    g_string_truncate (id, id->len - 1);
  if (id->len == 0)
    g_string_append (id, "profile");

  return g_string_free (id, FALSE);
}

static WardenProfile *
save_as_new (WardenProfileStore  *store,
             WardenProfile       *profile,
             const char          *base,
             GError             **error)
{
  g_autofree char *fallback = NULL;
  g_autofree char *id = NULL;
  g_autoptr(WardenProfile) copy = NULL;

  if (!warden_profile_id_is_valid (base))
    base = fallback = id_from_name (base);
  id = warden_profile_store_dup_unused_id (store, base);
  copy = warden_profile_copy (profile, id);
  if (!warden_profile_store_save (store, copy, error))
    return NULL;
  return g_steal_pointer (&copy);
}

static gboolean
op_run (WardenProfileStore  *store,
        Op                  *op,
        GError             **error)
{
  switch (op->kind)
    {
    case OP_LIST:
      op->profiles = warden_profile_store_list (store, &op->errors);
      return TRUE;

    case OP_CREATE:
      {
        g_autofree char *base = id_from_name (op->name);
        g_autoptr(WardenProfile) blank = warden_profile_new (base);

        warden_profile_set_name (blank, op->name);
        op->profile = save_as_new (store, blank, base, error);
        return op->profile != NULL;
      }

    case OP_DUPLICATE:
      {
        g_autoptr(WardenProfile) original = warden_profile_store_lookup (store, op->id, error);

        if (original == NULL)
          return FALSE;
        op->profile = warden_profile_store_duplicate (store, original, error);
        return op->profile != NULL;
      }

    case OP_RENAME:
      if (!warden_profile_store_rename (store, op->id, op->new_id, error))
        return FALSE;
      op->profile = warden_profile_store_lookup (store, op->new_id, error);
      return op->profile != NULL;

    case OP_DELETE:
      g_clear_object (&op->profile);
      op->profile = warden_profile_store_lookup (store, op->id, error);
      if (op->profile == NULL)
        return FALSE;
      return warden_profile_store_delete (store, op->id, error);

    case OP_RESTORE:
      return warden_profile_store_save (store, op->profile, error);

    case OP_IMPORT:
      {
        g_autoptr(WardenProfile) loaded = warden_profile_new_from_file (op->file, error);

        if (loaded == NULL)
          return FALSE;
        op->profile = save_as_new (store, loaded, warden_profile_get_id (loaded), error);
        return op->profile != NULL;
      }

    case OP_IMPORT_CLAUDE:
      {
        g_autoptr(WardenProfile) loaded = NULL;
        g_autofree char *contents = NULL;
        g_autofree char *source_name = g_file_get_parse_name (op->file);
        gsize length;

        if (!g_file_load_contents (op->file, NULL, &contents, &length, NULL, error))
          return FALSE;
        loaded = warden_profile_new_from_claude_data ("claude-code", contents, length,
                                                      source_name, &op->skipped, error);
        if (loaded == NULL)
          return FALSE;
        op->profile = save_as_new (store, loaded, "claude-code", error);
        return op->profile != NULL;
      }

    case OP_EXPORT:
      {
        g_autoptr(WardenProfile) profile = warden_profile_store_lookup (store, op->id, error);

        return profile != NULL && warden_profile_save_to_file (profile, op->file, error);
      }

    default:
      g_return_val_if_reached (FALSE);
    }
}

static void
op_thread (GTask        *task,
           gpointer      source_object,
           gpointer      task_data,
           GCancellable *cancellable)
{
  WardenProfileStore *store = g_object_get_data (source_object, "warden-op-store");
  GError *error = NULL;

  if (op_run (store, task_data, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void op_done_cb (GObject      *object,
                        GAsyncResult *result,
                        gpointer      user_data);

static void
op_start (WardenPreferencesWindow *self,
          Op                      *op)
{
  g_autoptr(GTask) task = g_task_new (self, self->cancellable, op_done_cb, NULL);

  g_task_set_source_tag (task, op_start);
  g_task_set_task_data (task, op, (GDestroyNotify) op_free);
  hold (self);
  g_task_run_in_thread (task, op_thread);
}

static Op *
op_new (OpKind      kind,
        const char *id)
{
  Op *op = g_new0 (Op, 1);

  op->kind = kind;
  op->id = g_strdup (id);
  return op;
}

static void old_editor_parent_cb (WardenPreferencesWindow *self,
                                  GParamSpec              *pspec,
                                  GtkWidget               *old_editor);

static void
editor_changed_cb (WardenPreferencesWindow *self)
{
  refresh_profiles (self);
}

static void
present_pending_editor (WardenPreferencesWindow *self)
{
  g_autoptr(GtkWidget) editor = g_steal_pointer (&self->pending_editor);

  if (self->editor != NULL)
    g_signal_handlers_disconnect_by_func (self->editor, old_editor_parent_cb, self);
  g_set_weak_pointer (&self->editor, WARDEN_PROFILE_EDITOR (editor));
  adw_preferences_window_present_subpage (ADW_PREFERENCES_WINDOW (self), editor);
}

static gboolean
present_pending_editor_cb (gpointer user_data)
{
  WardenPreferencesWindow *self = user_data;

  if (self->pending_editor != NULL)
    present_pending_editor (self);
  return G_SOURCE_REMOVE;
}

static void
old_editor_parent_cb (WardenPreferencesWindow *self,
                      GParamSpec              *pspec,
                      GtkWidget               *old_editor)
{
  /* From an idle: the old editor goes while libadwaita walks its pages. */
  if (gtk_widget_get_parent (old_editor) == NULL && self->pending_editor != NULL)
    g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, present_pending_editor_cb, g_object_ref (self),
                     g_object_unref);
}

/* libadwaita 1.2 loses track of its subpages when one is presented while
 * another is still sliding out, so the new editor waits for the old one
 * to be gone. */
static void
present_editor (WardenPreferencesWindow *self,
                WardenProfile           *profile)
{
  GtkWidget *editor = warden_profile_editor_new (self->store, profile);
  gboolean waiting = self->pending_editor != NULL;

  g_signal_connect_object (editor, "saved", G_CALLBACK (editor_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (editor, "duplicated", G_CALLBACK (editor_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_clear_object (&self->pending_editor);
  self->pending_editor = g_object_ref_sink (editor);

  if (self->editor == NULL || gtk_widget_get_parent (GTK_WIDGET (self->editor)) == NULL)
    {
      present_pending_editor (self);
      return;
    }

  if (!waiting)
    g_signal_connect_object (self->editor, "notify::parent", G_CALLBACK (old_editor_parent_cb),
                             self, G_CONNECT_SWAPPED);
  adw_preferences_window_close_subpage (ADW_PREFERENCES_WINDOW (self));
  if (self->editor != NULL && gtk_widget_get_parent (GTK_WIDGET (self->editor)) == NULL)
    present_pending_editor (self);
}

static void
append_item (GMenu      *menu,
             const char *label,
             const char *action,
             const char *id)
{
  g_autoptr(GMenuItem) item = g_menu_item_new (label, NULL);

  g_menu_item_set_action_and_target (item, action, "s", id);
  g_menu_append_item (menu, item);
}

static GtkWidget *
profile_menu_button_new (WardenProfile *profile)
{
  const char *id = warden_profile_get_id (profile);
  gboolean builtin = warden_profile_get_builtin (profile);
  g_autoptr(GMenu) menu = g_menu_new ();
  g_autoptr(GMenu) danger = g_menu_new ();
  g_autofree char *label = g_strdup_printf (_("Actions for profile “%s”"),
                                            warden_profile_get_name (profile));
  GtkWidget *button = gtk_menu_button_new ();

  append_item (menu, _("_Duplicate"), "prefs.duplicate", id);
  if (!builtin)
    append_item (menu, _("_Rename…"), "prefs.rename", id);
  append_item (menu, _("_Export JSON…"), "prefs.export", id);
  if (!builtin)
    {
      append_item (danger, _("De_lete"), "prefs.delete", id);
      g_menu_append_section (menu, NULL, G_MENU_MODEL (danger));
    }

  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (button), "view-more-symbolic");
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (button), G_MENU_MODEL (menu));
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_tooltip_text (button, _("More"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, label,
                                  -1);
  return button;
}

static void
profile_row_activated_cb (WardenPreferencesWindow *self,
                          AdwActionRow            *row)
{
  WardenProfile *profile = g_object_get_data (G_OBJECT (row), "warden-profile");

  present_editor (self, profile);
}

static GtkWidget *
profile_row_new (WardenPreferencesWindow *self,
                 WardenProfile           *profile)
{
  GtkWidget *row = adw_action_row_new ();
  const char *description = warden_profile_get_description (profile);
  g_autofree char *subtitle = NULL;

  if (description[0] != '\0')
    subtitle = g_strdup_printf ("%s — %s", warden_profile_get_id (profile), description);
  else
    subtitle = g_strdup (warden_profile_get_id (profile));

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), warden_profile_get_name (profile));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 2);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
  g_object_set_data_full (G_OBJECT (row), "warden-profile", g_object_ref (profile),
                          g_object_unref);
  g_signal_connect_object (row, "activated", G_CALLBACK (profile_row_activated_cb), self,
                           G_CONNECT_SWAPPED);

  if (warden_profile_get_builtin (profile))
    {
      GtkWidget *label = gtk_label_new (_("Built-in"));

      gtk_widget_set_valign (label, GTK_ALIGN_CENTER);
      gtk_widget_add_css_class (label, "dim-label");
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), label);
    }
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), profile_menu_button_new (profile));
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), gtk_image_new_from_icon_name ("go-next-symbolic"));

  return row;
}

static void
show_profiles (WardenPreferencesWindow *self,
               GPtrArray               *profiles,
               GPtrArray               *errors)
{
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);
  g_autoptr(GStrvBuilder) ids = g_strv_builder_new ();

  for (guint i = 0; i < self->profile_rows->len; i++)
    adw_preferences_group_remove (self->profiles_group, g_ptr_array_index (self->profile_rows, i));
  g_ptr_array_set_size (self->profile_rows, 0);
  for (guint i = 0; i < self->problem_rows->len; i++)
    adw_preferences_group_remove (self->problems_group, g_ptr_array_index (self->problem_rows, i));
  g_ptr_array_set_size (self->problem_rows, 0);

  for (guint i = 0; i < profiles->len; i++)
    {
      WardenProfile *profile = g_ptr_array_index (profiles, i);
      GtkWidget *row = profile_row_new (self, profile);

      adw_preferences_group_add (self->profiles_group, row);
      g_ptr_array_add (self->profile_rows, row);
      gtk_string_list_append (names, warden_profile_get_name (profile));
      g_strv_builder_add (ids, warden_profile_get_id (profile));
    }

  /* One bad file never hides the rest, and is not hidden either. */
  for (guint i = 0; errors != NULL && i < errors->len; i++)
    {
      const GError *error = g_ptr_array_index (errors, i);
      GtkWidget *row = adw_action_row_new ();

      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), error->message);
      adw_preferences_row_set_title_selectable (ADW_PREFERENCES_ROW (row), TRUE);
      adw_action_row_set_title_lines (ADW_ACTION_ROW (row), 0);
      adw_preferences_group_add (self->problems_group, row);
      g_ptr_array_add (self->problem_rows, row);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->problems_group), self->problem_rows->len > 0);

  /* The binding is made again around the new list, so that swapping the
   * model (which moves the selection) is not taken for a choice. */
  g_settings_unbind (self->default_profile_row, "selected");
  g_strfreev (self->profile_ids);
  self->profile_ids = g_strv_builder_end (ids);
  adw_combo_row_set_model (self->default_profile_row, G_LIST_MODEL (names));
  g_settings_bind_with_mapping (self->settings, "default-profile",
                                self->default_profile_row, "selected",
                                G_SETTINGS_BIND_DEFAULT,
                                profile_get_mapping, profile_set_mapping, self, NULL);
}

static void
undo_toast (WardenPreferencesWindow *self,
            WardenProfile           *profile)
{
  g_autofree char *title = g_strdup_printf (_("Profile “%s” deleted"),
                                            warden_profile_get_name (profile));
  AdwToast *t = adw_toast_new (title);

  adw_toast_set_button_label (t, _("_Undo"));
  adw_toast_set_action_name (t, "prefs.undo-delete");
  adw_toast_set_action_target_value (t, g_variant_new_string (warden_profile_get_id (profile)));
  adw_toast_set_priority (t, ADW_TOAST_PRIORITY_HIGH);
  adw_preferences_window_add_toast (ADW_PREFERENCES_WINDOW (self), t);
}

static void
op_done_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  WardenPreferencesWindow *self = WARDEN_PREFERENCES_WINDOW (object);
  Op *op = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        toast (self, error->message);
      release (self);
      return;
    }

  switch (op->kind)
    {
    case OP_LIST:
      /* An older listing that finished late says nothing new. */
      if (op->generation == self->list_generation)
        show_profiles (self, op->profiles, op->errors);
      break;

    case OP_CREATE:
    case OP_DUPLICATE:
      refresh_profiles (self);
      present_editor (self, op->profile);
      break;

    case OP_RENAME:
      {
        g_autofree char *default_id = g_settings_get_string (self->settings, "default-profile");

        /* New sessions keep the profile they had, under its new id. */
        if (g_strcmp0 (default_id, op->id) == 0)
          g_settings_set_string (self->settings, "default-profile", op->new_id);
        refresh_profiles (self);
      }
      break;

    case OP_DELETE:
      g_hash_table_insert (self->deleted, g_strdup (op->id), g_object_ref (op->profile));
      undo_toast (self, op->profile);
      refresh_profiles (self);
      break;

    case OP_RESTORE:
      message = g_strdup_printf (_("Profile “%s” restored"), warden_profile_get_name (op->profile));
      toast (self, message);
      refresh_profiles (self);
      break;

    case OP_IMPORT:
      message = g_strdup_printf (_("Imported profile “%s”"), warden_profile_get_name (op->profile));
      toast (self, message);
      refresh_profiles (self);
      break;

    case OP_IMPORT_CLAUDE:
      {
        guint n_skipped = op->skipped ? g_strv_length (op->skipped) : 0;

        if (n_skipped > 0)
          message = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                  "Imported “%s”; %u rule was not about shell "
                                                  "commands and was skipped",
                                                  "Imported “%s”; %u rules were not about shell "
                                                  "commands and were skipped",
                                                  n_skipped),
                                     warden_profile_get_id (op->profile), n_skipped);
        else
          message = g_strdup_printf (_("Imported “%s”"), warden_profile_get_id (op->profile));
        toast (self, message);
        refresh_profiles (self);
        present_editor (self, op->profile);
      }
      break;

    case OP_EXPORT:
      {
        g_autofree char *where = g_file_get_parse_name (op->file);

        message = g_strdup_printf (_("Exported to %s"), where);
        toast (self, message);
      }
      break;

    default:
      g_assert_not_reached ();
    }

  release (self);
}

static void
refresh_profiles (WardenPreferencesWindow *self)
{
  Op *op = op_new (OP_LIST, NULL);

  op->generation = ++self->list_generation;
  op_start (self, op);
}

/* Profile actions */

static void
delete_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  op_start (WARDEN_PREFERENCES_WINDOW (widget),
            op_new (OP_DELETE, g_variant_get_string (param, NULL)));
}

static void
undo_delete_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  WardenPreferencesWindow *self = WARDEN_PREFERENCES_WINDOW (widget);
  const char *id = g_variant_get_string (param, NULL);
  WardenProfile *profile = g_hash_table_lookup (self->deleted, id);
  Op *op;

  if (profile == NULL)
    return;

  op = op_new (OP_RESTORE, id);
  op->profile = warden_profile_copy (profile, id);
  g_hash_table_remove (self->deleted, id);
  op_start (self, op);
}

static void
duplicate_profile_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *param)
{
  op_start (WARDEN_PREFERENCES_WINDOW (widget),
            op_new (OP_DUPLICATE, g_variant_get_string (param, NULL)));
}

static void
edit_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  WardenPreferencesWindow *self = WARDEN_PREFERENCES_WINDOW (widget);
  const char *id = g_variant_get_string (param, NULL);

  for (guint i = 0; i < self->profile_rows->len; i++)
    {
      WardenProfile *profile = g_object_get_data (g_ptr_array_index (self->profile_rows, i),
                                                  "warden-profile");

      if (g_strcmp0 (warden_profile_get_id (profile), id) == 0)
        {
          present_editor (self, profile);
          return;
        }
    }
}

/* A dialog with one entry, for New and Rename. */

typedef gboolean (*EntryCheck) (WardenPreferencesWindow *self,
                                const char              *text,
                                const char              *context);

static void
entry_dialog_changed_cb (GtkEditable      *entry,
                         AdwMessageDialog *dialog)
{
  EntryCheck check = g_object_get_data (G_OBJECT (dialog), "warden-check");
  WardenPreferencesWindow *self = g_object_get_data (G_OBJECT (dialog), "warden-window");
  const char *context = g_object_get_data (G_OBJECT (dialog), "warden-context");
  gboolean ok = check (self, gtk_editable_get_text (entry), context);

  adw_message_dialog_set_response_enabled (dialog, "ok", ok);
  if (ok)
    gtk_widget_remove_css_class (GTK_WIDGET (entry), "error");
  else
    gtk_widget_add_css_class (GTK_WIDGET (entry), "error");
}

static void
entry_dialog_activate_cb (GtkEntry         *entry,
                          AdwMessageDialog *dialog)
{
  if (adw_message_dialog_get_response_enabled (dialog, "ok"))
    adw_message_dialog_response (dialog, "ok");
}

static AdwMessageDialog *
entry_dialog_new (WardenPreferencesWindow *self,
                  const char              *heading,
                  const char              *body,
                  const char              *ok_label,
                  const char              *text,
                  const char              *context,
                  EntryCheck               check)
{
  AdwMessageDialog *dialog;
  GtkWidget *entry = gtk_entry_new ();

  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), heading, body));
  adw_message_dialog_add_responses (dialog,
                                    "cancel", _("_Cancel"),
                                    "ok", ok_label,
                                    NULL);
  adw_message_dialog_set_response_appearance (dialog, "ok", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, "ok");
  adw_message_dialog_set_close_response (dialog, "cancel");

  gtk_editable_set_text (GTK_EDITABLE (entry), text);
  gtk_accessible_update_property (GTK_ACCESSIBLE (entry),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, heading,
                                  -1);
  adw_message_dialog_set_extra_child (dialog, entry);

  g_object_set_data (G_OBJECT (dialog), "warden-check", check);
  g_object_set_data (G_OBJECT (dialog), "warden-window", self);
  g_object_set_data_full (G_OBJECT (dialog), "warden-context", g_strdup (context), g_free);
  g_object_set_data (G_OBJECT (dialog), "warden-entry", entry);
  g_signal_connect (entry, "changed", G_CALLBACK (entry_dialog_changed_cb), dialog);
  g_signal_connect (entry, "activate", G_CALLBACK (entry_dialog_activate_cb), dialog);
  entry_dialog_changed_cb (GTK_EDITABLE (entry), dialog);

  return dialog;
}

static const char *
entry_dialog_get_text (AdwMessageDialog *dialog)
{
  return gtk_editable_get_text (g_object_get_data (G_OBJECT (dialog), "warden-entry"));
}

static gboolean
name_is_usable (WardenPreferencesWindow *self,
                const char              *text,
                const char              *context)
{
  g_autofree char *stripped = g_strstrip (g_strdup (text));

  return stripped[0] != '\0';
}

static gboolean
new_id_is_usable (WardenPreferencesWindow *self,
                  const char              *text,
                  const char              *context)
{
  if (!warden_profile_id_is_valid (text))
    return FALSE;
  if (g_strcmp0 (text, context) == 0)
    return TRUE;
  return self->profile_ids == NULL || !g_strv_contains ((const char * const *) self->profile_ids,
                                                        text);
}

static void
new_response_cb (AdwMessageDialog        *dialog,
                 const char              *response,
                 WardenPreferencesWindow *self)
{
  Op *op;

  if (g_strcmp0 (response, "ok") != 0)
    return;

  op = op_new (OP_CREATE, NULL);
  op->name = g_strstrip (g_strdup (entry_dialog_get_text (dialog)));
  op_start (self, op);
}

static void
new_action (GtkWidget  *widget,
            const char *action_name,
            GVariant   *param)
{
  WardenPreferencesWindow *self = WARDEN_PREFERENCES_WINDOW (widget);
  AdwMessageDialog *dialog;

  dialog = entry_dialog_new (self, _("New Profile"),
                             _("Give the profile a name. It starts empty: every command asks "
                               "until you allow it."),
                             _("C_reate"), "", NULL, name_is_usable);
  g_signal_connect_object (dialog, "response", G_CALLBACK (new_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
rename_response_cb (AdwMessageDialog        *dialog,
                    const char              *response,
                    WardenPreferencesWindow *self)
{
  const char *old_id = g_object_get_data (G_OBJECT (dialog), "warden-context");
  const char *new_id = entry_dialog_get_text (dialog);
  Op *op;

  if (g_strcmp0 (response, "ok") != 0 || g_strcmp0 (old_id, new_id) == 0)
    return;

  op = op_new (OP_RENAME, old_id);
  op->new_id = g_strdup (new_id);
  op_start (self, op);
}

static void
rename_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  WardenPreferencesWindow *self = WARDEN_PREFERENCES_WINDOW (widget);
  const char *id = g_variant_get_string (param, NULL);
  AdwMessageDialog *dialog;

  dialog = entry_dialog_new (self, _("Rename Profile"),
                             _("The id names the profile’s file and is what warden-cli "
                               "--profile takes: lower-case letters, digits, “.”, “_” and “-”."),
                             _("_Rename"), id, id, new_id_is_usable);
  g_signal_connect_object (dialog, "response", G_CALLBACK (rename_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* Import and export */

static void
file_op_response_cb (WardenPreferencesWindow *self,
                     int                      response,
                     GtkNativeDialog         *chooser)
{
  Op *op = g_object_steal_data (G_OBJECT (chooser), "warden-op");

  if (response == GTK_RESPONSE_ACCEPT && op != NULL)
    {
      op->file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      if (op->file != NULL)
        op_start (self, g_steal_pointer (&op));
    }
  g_clear_pointer (&op, op_free);

  gtk_native_dialog_destroy (chooser);
  if (self->chooser == chooser)
    g_clear_object (&self->chooser);
}

static void
run_file_chooser (WardenPreferencesWindow *self,
                  Op                      *op,
                  const char              *title,
                  GtkFileChooserAction     action,
                  const char              *accept_label,
                  const char              *current_name)
{
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();
  GtkFileChooserNative *chooser;

  if (self->chooser != NULL)
    gtk_native_dialog_destroy (self->chooser);
  g_clear_object (&self->chooser);

  chooser = gtk_file_chooser_native_new (title, GTK_WINDOW (self), action, accept_label,
                                         _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  gtk_file_filter_set_name (filter, _("JSON files"));
  gtk_file_filter_add_suffix (filter, "json");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
  if (current_name != NULL)
    gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), current_name);

  g_object_set_data_full (G_OBJECT (chooser), "warden-op", op, (GDestroyNotify) op_free);
  g_signal_connect_object (chooser, "response", G_CALLBACK (file_op_response_cb), self,
                           G_CONNECT_SWAPPED);
  self->chooser = GTK_NATIVE_DIALOG (chooser);
  gtk_native_dialog_show (self->chooser);
}

static void
import_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  run_file_chooser (WARDEN_PREFERENCES_WINDOW (widget), op_new (OP_IMPORT, NULL),
                    _("Import Profile"), GTK_FILE_CHOOSER_ACTION_OPEN, _("_Import"), NULL);
}

static void
import_claude_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  run_file_chooser (WARDEN_PREFERENCES_WINDOW (widget), op_new (OP_IMPORT_CLAUDE, NULL),
                    _("Import Claude Code Settings (settings.json)"),
                    GTK_FILE_CHOOSER_ACTION_OPEN, _("_Import"), NULL);
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  const char *id = g_variant_get_string (param, NULL);
  g_autofree char *name = g_strconcat (id, ".json", NULL);

  run_file_chooser (WARDEN_PREFERENCES_WINDOW (widget), op_new (OP_EXPORT, id),
                    _("Export Profile"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), name);
}

/* Test connection: the provider as set now, one short request. */

typedef struct
{
  WardenPreferencesWindow *self;
  WardenLlmProvider       *provider;
  gint64                   started;
} TestCall;

static void
test_call_free (TestCall *call)
{
  g_object_unref (call->self);
  g_clear_object (&call->provider);
  g_free (call);
}

static void
set_test_result (WardenPreferencesWindow *self,
                 gboolean                 ok,
                 const char              *title,
                 const char              *subtitle)
{
  gtk_widget_set_visible (GTK_WIDGET (self->test_spinner), FALSE);
  gtk_spinner_stop (self->test_spinner);
  gtk_widget_set_sensitive (self->test_button, TRUE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->test_row), title);
  adw_action_row_set_subtitle (self->test_row, subtitle);
  gtk_image_set_from_icon_name (self->test_icon,
                                 ok ? "object-select-symbolic" : "dialog-error-symbolic");
  gtk_widget_remove_css_class (GTK_WIDGET (self->test_icon), ok ? "error" : "success");
  gtk_widget_add_css_class (GTK_WIDGET (self->test_icon), ok ? "success" : "error");
  gtk_widget_set_visible (GTK_WIDGET (self->test_icon), TRUE);
}

/* A result says how the model answered with the settings of then: after a
 * change it would mislead (issue 32), so the row goes back to saying what
 * the button does. A test under way is cancelled: it asks with the old ones. */
static void
test_result_stale (WardenPreferencesWindow *self)
{
  if (!gtk_widget_get_visible (GTK_WIDGET (self->test_icon)) &&
      !gtk_widget_get_visible (GTK_WIDGET (self->test_spinner)))
    return;
  g_cancellable_cancel (self->test_cancellable);
  gtk_widget_set_visible (GTK_WIDGET (self->test_spinner), FALSE);
  gtk_spinner_stop (self->test_spinner);
  gtk_widget_set_sensitive (self->test_button, TRUE);
  gtk_widget_set_visible (GTK_WIDGET (self->test_icon), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->test_row), _("Connection"));
  adw_action_row_set_subtitle (self->test_row, _("Send the model a short request, with the "
                                                 "provider, key and model set above"));
}

static const char *
provider_title (WardenLlmProvider *provider)
{
  const char *base_url = warden_llm_provider_get_base_url (provider);

  if (g_strcmp0 (warden_llm_provider_get_name (provider), "anthropic") == 0)
    return "Anthropic";
  /* Ollama speaks the OpenAI API too: its port tells them apart. */
  if (base_url != NULL && strstr (base_url, ":11434") != NULL)
    return "Ollama";
  return _("OpenAI-compatible server");
}

static void
test_complete_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  TestCall *call = user_data;
  WardenPreferencesWindow *self = call->self;
  g_autoptr(GError) error = NULL;
  WardenLlmResponse *response = warden_llm_provider_complete_finish (call->provider, result,
                                                                     &error);
  guint ms = (guint) ((g_get_monotonic_time () - call->started) / 1000);

  if (response != NULL)
    {
      /* Translators: "Anthropic: claude-sonnet-4-5 answered in 412 ms" */
      g_autofree char *text = g_strdup_printf (_("%s: %s answered in %u ms"),
                                               provider_title (call->provider),
                                               warden_llm_provider_get_model (call->provider), ms);

      set_test_result (self, TRUE, _("Connected"), text);
      warden_llm_response_free (response);
    }
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      /* Translators: the provider and the model, then why the test request failed */
      g_autofree char *text = g_strdup_printf (_("%s, model %s: %s"),
                                               provider_title (call->provider),
                                               warden_llm_provider_get_model (call->provider),
                                               error->message);

      /* A title of its own: the error says how it failed, often in the
       * words "could not reach" (issue 32: said twice). */
      set_test_result (self, FALSE, _("Not connected"), text);
    }
  release (self);
  test_call_free (call);
}

static void
test_provider_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  TestCall *call = user_data;
  WardenPreferencesWindow *self = call->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) messages = NULL;
  WardenLlmMessage *message;

  call->provider = warden_llm_provider_new_for_settings_finish (result, &error);
  if (call->provider == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        /* The message says "No model is set up: …" itself. */
        set_test_result (self, FALSE, _("Not connected"), error->message);
      release (self);
      test_call_free (call);
      return;
    }

  /* One try, and no long wait: the user is watching the button. */
  warden_llm_provider_set_max_retries (call->provider, 0);
  warden_llm_provider_set_idle_timeout (call->provider, 30);
  messages = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_llm_message_unref);
  message = warden_llm_message_new (WARDEN_LLM_ROLE_USER);
  warden_llm_message_add_text (message, "Reply with the word OK.");
  g_ptr_array_add (messages, message);
  call->started = g_get_monotonic_time ();
  warden_llm_provider_complete_async (call->provider, "This request tests the connection.",
                                      messages, NULL, self->test_cancellable, test_complete_cb,
                                      call);
}

static void
test_connection_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *param)
{
  WardenPreferencesWindow *self = WARDEN_PREFERENCES_WINDOW (widget);
  TestCall *call = g_new0 (TestCall, 1);

  g_cancellable_cancel (self->test_cancellable);
  g_clear_object (&self->test_cancellable);
  self->test_cancellable = g_cancellable_new ();

  gtk_widget_set_sensitive (self->test_button, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->test_spinner), TRUE);
  gtk_spinner_start (self->test_spinner);
  gtk_widget_set_visible (GTK_WIDGET (self->test_icon), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->test_row), _("Connection"));
  adw_action_row_set_subtitle (self->test_row, _("Asking the model…"));

  hold (self);
  call->self = g_object_ref (self);
  warden_llm_provider_new_for_settings_async (self->settings, self->credentials, NULL, NULL,
                                              self->test_cancellable, test_provider_cb, call);
}

/* What "Automatic" is now: docker when an engine answers, else bwrap (as
 * the application decides it for new sessions). */

/* @engine: which one answers ("Podman 4.3.1, rootless") and where. */
static void
set_sandbox_auto (WardenPreferencesWindow *self,
                  WardenSandboxKind        kind,
                  const char              *engine,
                  const char              *host)
{
  g_autofree char *subtitle = NULL;

  self->sandbox_auto = kind;
  if (kind == WARDEN_SANDBOX_KIND_DOCKER && engine != NULL)
    /* Translators: "… Now: Podman 4.3.1, rootless, at unix:///run/user/1000/podman/podman.sock." */
    subtitle = g_strdup_printf (_("Automatic uses a container engine (Docker or Podman) when one "
                                  "answers, else bubblewrap. Now: %s, at %s."), engine, host);
  else if (kind == WARDEN_SANDBOX_KIND_DOCKER)
    subtitle = g_strdup (_("Automatic uses a container engine (Docker or Podman) when one "
                           "answers, else bubblewrap. Now: an engine answers."));
  else
    subtitle = g_strdup (_("Automatic uses a container engine (Docker or Podman) when one "
                           "answers, else bubblewrap. Now: bubblewrap, no engine answers."));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->sandbox_row), subtitle);
}

static void
sandbox_engine_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(WardenPreferencesWindow) self = user_data;
  WardenDockerClient *docker = WARDEN_DOCKER_CLIENT (object);
  g_autoptr(GError) error = NULL;
  g_autofree char *engine = NULL;

  if (warden_docker_client_query_engine_finish (docker, result, &error))
    engine = warden_docker_client_dup_engine_description (docker);
  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    set_sandbox_auto (self, WARDEN_SANDBOX_KIND_DOCKER, engine,
                      warden_docker_client_get_host (docker));
  release (self);
}

static void
sandbox_ping_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(WardenPreferencesWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  gboolean answers = warden_docker_client_ping_finish (WARDEN_DOCKER_CLIENT (object), result,
                                                       &error);

  if (answers)
    {
      /* Which engine it is: the user may have both. */
      hold (self);
      warden_docker_client_query_engine_async (WARDEN_DOCKER_CLIENT (object), self->cancellable,
                                               sandbox_engine_cb, g_object_ref (self));
    }
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    set_sandbox_auto (self, WARDEN_SANDBOX_KIND_BWRAP, NULL, NULL);
  release (self);
}

static void
probe_sandbox (WardenPreferencesWindow *self)
{
  g_autoptr(WardenDockerClient) docker = warden_docker_client_new_from_env (NULL);

  if (docker == NULL)
    {
      set_sandbox_auto (self, WARDEN_SANDBOX_KIND_BWRAP, NULL, NULL);
      return;
    }
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->sandbox_row),
                               _("Automatic uses a container engine (Docker or Podman) when one "
                                 "answers, else bubblewrap. Looking for one…"));
  hold (self);
  warden_docker_client_ping_async (docker, self->cancellable, sandbox_ping_cb,
                                   g_object_ref (self));
}

/* GObject */

static void
warden_preferences_window_constructed (GObject *object)
{
  WardenPreferencesWindow *self = (WardenPreferencesWindow *)object;

  G_OBJECT_CLASS (warden_preferences_window_parent_class)->constructed (object);

  g_object_set_data (object, "warden-op-store", self->store);

  g_settings_bind_with_mapping (self->settings, "provider", self->provider_row, "selected",
                                G_SETTINGS_BIND_DEFAULT, choice_get_mapping, choice_set_mapping,
                                (gpointer) provider_choices, NULL);
  g_settings_bind (self->settings, "model", self->model_row, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "base-url", self->base_url_row, "text",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "max-steps", self->max_steps_spin, "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "context-window", self->context_window_spin, "value",
                   G_SETTINGS_BIND_DEFAULT);

  g_settings_bind_with_mapping (self->settings, "sandbox", self->sandbox_row, "selected",
                                G_SETTINGS_BIND_DEFAULT, sandbox_get_mapping, sandbox_set_mapping,
                                NULL, NULL);
  g_settings_bind (self->settings, "image", self->image_row, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "network", self->network_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "memory-limit-mb", self->memory_spin, "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "cpu-limit", self->cpu_spin, "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind_with_mapping (self->settings, "default-workspace", self->workspace_row,
                                "subtitle", G_SETTINGS_BIND_GET, workspace_get_mapping, NULL,
                                NULL, NULL);
  g_settings_bind_with_mapping (self->settings, "default-profile",
                                self->default_profile_row, "selected",
                                G_SETTINGS_BIND_DEFAULT,
                                profile_get_mapping, profile_set_mapping, self, NULL);

  g_signal_connect_object (self->settings, "changed::provider",
                           G_CALLBACK (provider_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "changed::provider",
                           G_CALLBACK (test_result_stale), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "changed::model",
                           G_CALLBACK (test_result_stale), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "changed::base-url",
                           G_CALLBACK (test_result_stale), self, G_CONNECT_SWAPPED);
  refresh_key (self);
  refresh_profiles (self);
  probe_sandbox (self);
}

static void
warden_preferences_window_dispose (GObject *object)
{
  WardenPreferencesWindow *self = (WardenPreferencesWindow *)object;

  g_cancellable_cancel (self->cancellable);
  g_cancellable_cancel (self->key_cancellable);
  g_cancellable_cancel (self->test_cancellable);
  if (self->chooser != NULL)
    gtk_native_dialog_destroy (self->chooser);
  g_clear_object (&self->chooser);
  g_clear_weak_pointer (&self->editor);
  g_clear_object (&self->pending_editor);
  /* Its mapping reads this window: a row that outlives it (a page's
   * transition may hold it) must not call into a finalized window. */
  if (self->default_profile_row != NULL)
    g_settings_unbind (self->default_profile_row, "selected");

  gtk_widget_dispose_template (GTK_WIDGET (self), WARDEN_TYPE_PREFERENCES_WINDOW);

  g_clear_object (&self->settings);
  g_clear_object (&self->store);
  g_clear_object (&self->credentials);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->key_cancellable);
  g_clear_object (&self->test_cancellable);
  g_clear_pointer (&self->deleted, g_hash_table_unref);

  G_OBJECT_CLASS (warden_preferences_window_parent_class)->dispose (object);
}

static void
warden_preferences_window_finalize (GObject *object)
{
  WardenPreferencesWindow *self = (WardenPreferencesWindow *)object;

  g_clear_pointer (&self->profile_ids, g_strfreev);
  g_clear_pointer (&self->profile_rows, g_ptr_array_unref);
  g_clear_pointer (&self->problem_rows, g_ptr_array_unref);

  G_OBJECT_CLASS (warden_preferences_window_parent_class)->finalize (object);
}

static void
warden_preferences_window_get_property (GObject    *object,
                                        guint       prop_id,
                                        GValue     *value,
                                        GParamSpec *pspec)
{
  WardenPreferencesWindow *self = WARDEN_PREFERENCES_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      g_value_set_object (value, self->settings);
      break;

    case PROP_STORE:
      g_value_set_object (value, self->store);
      break;

    case PROP_CREDENTIALS:
      g_value_set_object (value, self->credentials);
      break;

    case PROP_BUSY:
      g_value_set_boolean (value, self->pending > 0);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
warden_preferences_window_set_property (GObject      *object,
                                        guint         prop_id,
                                        const GValue *value,
                                        GParamSpec   *pspec)
{
  WardenPreferencesWindow *self = WARDEN_PREFERENCES_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      self->settings = g_value_dup_object (value);
      break;

    case PROP_STORE:
      self->store = g_value_dup_object (value);
      break;

    case PROP_CREDENTIALS:
      self->credentials = g_value_dup_object (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
warden_preferences_window_class_init (WardenPreferencesWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = warden_preferences_window_constructed;
  object_class->dispose = warden_preferences_window_dispose;
  object_class->finalize = warden_preferences_window_finalize;
  object_class->get_property = warden_preferences_window_get_property;
  object_class->set_property = warden_preferences_window_set_property;

  properties[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL,
                         G_TYPE_SETTINGS,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  properties[PROP_STORE] =
    g_param_spec_object ("store", NULL, NULL,
                         WARDEN_TYPE_PROFILE_STORE,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  properties[PROP_CREDENTIALS] =
    g_param_spec_object ("credentials", NULL, NULL,
                         WARDEN_TYPE_CREDENTIALS,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL,
                          FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RESOURCE_PREFIX "/warden-preferences-window.ui");
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow, provider_row);
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow, model_row);
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow, base_url_row);
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow, key_group);
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow, key_row);
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow, key_status_row);
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow, clear_key_button);
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow, max_steps_spin);
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow,
                                        context_window_spin);
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow, test_row);
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow, test_spinner);
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow, test_icon);
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow, test_button);
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow, sandbox_row);
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow, image_row);
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow, network_switch);
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow, memory_spin);
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow, cpu_spin);
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow, workspace_row);
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow, default_profile_row);
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow, profiles_group);
  gtk_widget_class_bind_template_child (widget_class, WardenPreferencesWindow, problems_group);
  gtk_widget_class_bind_template_callback (widget_class, key_apply_cb);

  gtk_widget_class_install_action (widget_class, "prefs.clear-key", NULL, clear_key_action);
  gtk_widget_class_install_action (widget_class, "prefs.test-connection", NULL,
                                   test_connection_action);
  gtk_widget_class_install_action (widget_class, "prefs.choose-workspace", NULL,
                                   choose_workspace_action);
  gtk_widget_class_install_action (widget_class, "prefs.clear-workspace", NULL,
                                   clear_workspace_action);
  gtk_widget_class_install_action (widget_class, "prefs.new", NULL, new_action);
  gtk_widget_class_install_action (widget_class, "prefs.import", NULL, import_action);
  gtk_widget_class_install_action (widget_class, "prefs.import-claude", NULL,
                                   import_claude_action);
  gtk_widget_class_install_action (widget_class, "prefs.edit", "s", edit_action);
  gtk_widget_class_install_action (widget_class, "prefs.duplicate", "s", duplicate_profile_action);
  gtk_widget_class_install_action (widget_class, "prefs.rename", "s", rename_action);
  gtk_widget_class_install_action (widget_class, "prefs.export", "s", export_action);
  gtk_widget_class_install_action (widget_class, "prefs.delete", "s", delete_action);
  gtk_widget_class_install_action (widget_class, "prefs.undo-delete", "s", undo_delete_action);
}

static const char whole_choice_ui[] =
  "<interface><template class=\"GtkListItem\"><property name=\"child\">"
  "<object class=\"GtkLabel\"><property name=\"xalign\">0</property>"
  "<binding name=\"label\"><lookup name=\"string\" type=\"GtkStringObject\">"
  "<lookup name=\"item\">GtkListItem</lookup></lookup></binding>"
  "</object></property></template></interface>";

static void
warden_preferences_window_init (WardenPreferencesWindow *self)
{
  g_type_ensure (WARDEN_TYPE_PROFILE_EDITOR);

  gtk_widget_init_template (GTK_WIDGET (self));

  /* The chosen value is never cut to "Auto…": the default factory's label
   * ellipsizes beside a long subtitle; whole, the subtitle wraps instead. */
  {
    g_autoptr(GBytes) bytes = g_bytes_new_static (whole_choice_ui, strlen (whole_choice_ui));
    g_autoptr(GtkListItemFactory) factory = gtk_builder_list_item_factory_new_from_bytes (NULL,
                                                                                        bytes);

    adw_combo_row_set_factory (self->provider_row, factory);
    adw_combo_row_set_factory (self->sandbox_row, factory);
  }

  self->cancellable = g_cancellable_new ();
  self->deleted = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->profile_rows = g_ptr_array_new ();
  self->problem_rows = g_ptr_array_new ();
}

GtkWidget *
warden_preferences_window_new (GtkWindow          *parent,
                               GSettings          *settings,
                               WardenProfileStore *profiles,
                               WardenCredentials  *credentials)
{
  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);
  g_return_val_if_fail (WARDEN_IS_PROFILE_STORE (profiles), NULL);
  g_return_val_if_fail (WARDEN_IS_CREDENTIALS (credentials), NULL);

  return g_object_new (WARDEN_TYPE_PREFERENCES_WINDOW,
                       "transient-for", parent,
                       "modal", parent != NULL,
                       "settings", settings,
                       "store", profiles,
                       "credentials", credentials,
                       NULL);
}

void
warden_preferences_window_show_page (WardenPreferencesWindow *self,
                                     const char              *page)
{
  g_return_if_fail (WARDEN_IS_PREFERENCES_WINDOW (self));

  if (page == NULL || !g_strv_contains (page_names, page))
    {
      g_warning ("There is no preferences page “%s”; use model, sandbox or profiles",
                 page ? page : "(null)");
      return;
    }
  adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (self), page);
}

gboolean
warden_preferences_window_get_busy (WardenPreferencesWindow *self)
{
  g_return_val_if_fail (WARDEN_IS_PREFERENCES_WINDOW (self), FALSE);

  return self->pending > 0;
}

GStrv
warden_preferences_window_dup_profile_ids (WardenPreferencesWindow *self)
{
  g_return_val_if_fail (WARDEN_IS_PREFERENCES_WINDOW (self), NULL);

  return g_strdupv (self->profile_ids);
}

WardenProfileEditor *
warden_preferences_window_get_editor (WardenPreferencesWindow *self)
{
  g_return_val_if_fail (WARDEN_IS_PREFERENCES_WINDOW (self), NULL);

  return self->editor;
}

GtkEditable *
warden_preferences_window_get_key_entry (WardenPreferencesWindow *self)
{
  g_return_val_if_fail (WARDEN_IS_PREFERENCES_WINDOW (self), NULL);

  return GTK_EDITABLE (self->key_row);
}

const char *
warden_preferences_window_get_key_status (WardenPreferencesWindow *self)
{
  g_return_val_if_fail (WARDEN_IS_PREFERENCES_WINDOW (self), NULL);

  return adw_preferences_row_get_title (ADW_PREFERENCES_ROW (self->key_status_row));
}

const char *
warden_preferences_window_get_connection_result (WardenPreferencesWindow *self)
{
  g_return_val_if_fail (WARDEN_IS_PREFERENCES_WINDOW (self), NULL);

  return adw_action_row_get_subtitle (self->test_row);
}

GtkWidget *
warden_preferences_window_get_test_button (WardenPreferencesWindow *self)
{
  g_return_val_if_fail (WARDEN_IS_PREFERENCES_WINDOW (self), NULL);

  return self->test_button;
}

WardenSandboxKind
warden_preferences_window_get_sandbox_auto (WardenPreferencesWindow *self)
{
  g_return_val_if_fail (WARDEN_IS_PREFERENCES_WINDOW (self), WARDEN_SANDBOX_KIND_AUTO);

  return self->sandbox_auto;
}
