/* warden-profile-store.c: built-in and user profiles, by id
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-policy"

#include <glib/gi18n.h>

#include "warden-profile-store.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

/* As in warden-profile.c: the longest id a profile may have. */
#define PROFILE_ID_MAX_LENGTH 64

struct _WardenProfileStore
{
  GObject  parent_instance;

  char    *user_dir;
};

G_DEFINE_FINAL_TYPE (WardenProfileStore, warden_profile_store, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_USER_DIR,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* In display order: from the profile that asks most to the one that asks least. */
static const char * const builtin_ids[] = {
  "strict",
  "read-only",
  "node",
  "python",
  "trusted",
  NULL
};

static gboolean
is_builtin_id (const char *id)
{
  return g_strv_contains (builtin_ids, id);
}

static void
warden_profile_store_finalize (GObject *object)
{
  WardenProfileStore *self = (WardenProfileStore *)object;

  g_clear_pointer (&self->user_dir, g_free);

  G_OBJECT_CLASS (warden_profile_store_parent_class)->finalize (object);
}

static void
warden_profile_store_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  WardenProfileStore *self = WARDEN_PROFILE_STORE (object);

  switch (prop_id)
    {
    case PROP_USER_DIR:
      g_value_set_string (value, self->user_dir);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
warden_profile_store_set_property (GObject      *object,
                                   guint         prop_id,
                                   const GValue *value,
                                   GParamSpec   *pspec)
{
  WardenProfileStore *self = WARDEN_PROFILE_STORE (object);

  switch (prop_id)
    {
    case PROP_USER_DIR:
      if (g_value_get_string (value) != NULL)
        self->user_dir = g_value_dup_string (value);
      else
        self->user_dir = g_build_filename (g_get_user_config_dir (), "warden", "profiles", NULL);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
warden_profile_store_class_init (WardenProfileStoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = warden_profile_store_finalize;
  object_class->get_property = warden_profile_store_get_property;
  object_class->set_property = warden_profile_store_set_property;

  properties[PROP_USER_DIR] =
    g_param_spec_string ("user-dir", NULL, NULL,
                         NULL,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
warden_profile_store_init (WardenProfileStore *self)
{
}

/* Takes group and other permissions away from a file or folder of ours; a
 * symlink or someone else's file is left alone. */
static void
make_private (const char *path,
              int         mode)
{
  GStatBuf st;

  if (g_lstat (path, &st) != 0 || S_ISLNK (st.st_mode) || st.st_uid != getuid () ||
      (st.st_mode & 077) == 0)
    return;
  if (g_chmod (path, mode) != 0)
    g_warning ("Could not make %s private: %s", path, g_strerror (errno));
}

/* Profiles say what runs without asking, so only the user may read or change
 * them: an older Warden made 0755 folders and 0644 files. New ones are
 * created private (warden_profile_save_to_file()). */
static void
make_user_dir_private (WardenProfileStore *self,
                       gboolean            own_parent)
{
  g_autoptr(GDir) dir = g_dir_open (self->user_dir, 0, NULL);
  const char *name;

  if (dir == NULL)
    return;
  if (own_parent)
    {
      g_autofree char *parent = g_path_get_dirname (self->user_dir);

      make_private (parent, 0700);
    }
  make_private (self->user_dir, 0700);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (self->user_dir, name, NULL);

      make_private (path, 0600);
    }
}

WardenProfileStore *
warden_profile_store_new (const char *user_dir)
{
  WardenProfileStore *self = g_object_new (WARDEN_TYPE_PROFILE_STORE,
                                           "user-dir", user_dir,
                                           NULL);

  /* $XDG_CONFIG_HOME/warden is Warden's own; a folder given is only its own. */
  make_user_dir_private (self, user_dir == NULL);
  return self;
}

const char *
warden_profile_store_get_user_dir (WardenProfileStore *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE_STORE (self), NULL);

  return self->user_dir;
}

const char * const *
warden_profile_store_builtin_ids (void)
{
  return builtin_ids;
}

static char *
user_path (WardenProfileStore *self,
           const char         *id)
{
  g_autofree char *basename = g_strconcat (id, ".json", NULL);

  return g_build_filename (self->user_dir, basename, NULL);
}

/* What a file that is no profile is, for the message. */
static const char *
file_kind (mode_t mode)
{
  if (S_ISDIR (mode))
    return _("a folder");
  if (S_ISFIFO (mode))
    return _("a FIFO");
  if (S_ISSOCK (mode))
    return _("a socket");
  if (S_ISCHR (mode) || S_ISBLK (mode))
    return _("a device");
  return _("not a file");
}

/* A user profile, read only from a regular file (a symlink to one too). The
 * open does not block: a FIFO there would hang whoever lists the profiles
 * until something wrote to it, and a device could be anything. NOT_FOUND
 * when there is no file. */
static WardenProfile *
load_user_file (const char  *path,
                const char  *id,
                GError     **error)
{
  g_autoptr(GByteArray) contents = g_byte_array_new ();
  g_autofree char *shown = g_filename_display_name (path);
  int fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0);
  struct stat st;

  if (fd < 0 || fstat (fd, &st) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, WARDEN_POLICY_ERROR,
                   saved_errno == ENOENT ? WARDEN_POLICY_ERROR_NOT_FOUND : WARDEN_POLICY_ERROR_IO,
                   _("Could not read profile “%s”: %s"), shown, g_strerror (saved_errno));
      if (fd >= 0)
        close (fd);
      return NULL;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_IO,
                   /* Translators: a path, and what it is: "a FIFO", "a folder" */
                   _("profile “%s”: it is %s, not a regular file, so it is not read"), shown,
                   file_kind (st.st_mode));
      close (fd);
      return NULL;
    }
  for (;;)
    {
      guint8 buffer[8192];
      gssize n = read (fd, buffer, sizeof buffer);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved_errno = errno;

          g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_IO,
                       _("Could not read profile “%s”: %s"), shown, g_strerror (saved_errno));
          close (fd);
          return NULL;
        }
      if (n == 0)
        break;
      g_byte_array_append (contents, buffer, n);
    }
  close (fd);
  return warden_profile_new_from_data (id, (const char *) contents->data, contents->len, shown,
                                       error);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

GPtrArray *
warden_profile_store_list (WardenProfileStore  *self,
                           GPtrArray          **errors)
{
  g_autoptr(GPtrArray) profiles = NULL;
  g_autoptr(GPtrArray) local_errors = NULL;
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GError) dir_error = NULL;
  g_autoptr(GDir) dir = NULL;
  const char *name;

  g_return_val_if_fail (WARDEN_IS_PROFILE_STORE (self), NULL);

  profiles = g_ptr_array_new_with_free_func (g_object_unref);
  local_errors = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  names = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; builtin_ids[i] != NULL; i++)
    {
      GError *error = NULL;
      WardenProfile *profile = warden_profile_new_builtin (builtin_ids[i], &error);

      if (profile != NULL)
        g_ptr_array_add (profiles, profile);
      else
        g_ptr_array_add (local_errors, error);
    }

  dir = g_dir_open (self->user_dir, 0, &dir_error);
  if (dir == NULL)
    {
      /* No folder yet just means no user profiles yet. */
      if (!g_error_matches (dir_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        g_ptr_array_add (local_errors,
                         g_error_new (WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_IO,
                                      _("Could not list the profiles in “%s”: %s"),
                                      self->user_dir, dir_error->message));
    }
  else
    {
      /* Backups ("x.json.bak") and the temporary files of a save that
       * did not finish ("x.json.A1B2C3") do not end in ".json". */
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          if (name[0] != '.' && g_str_has_suffix (name, ".json"))
            g_ptr_array_add (names, g_strdup (name));
        }
    }

  g_ptr_array_sort (names, compare_strings);

  for (guint i = 0; i < names->len; i++)
    {
      const char *basename = g_ptr_array_index (names, i);
      g_autofree char *id = g_strndup (basename, strlen (basename) - strlen (".json"));
      g_autofree char *path = g_build_filename (self->user_dir, basename, NULL);
      GError *error = NULL;
      WardenProfile *profile;

      if (!warden_profile_id_is_valid (id))
        {
          g_ptr_array_add (local_errors,
                           g_error_new (WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID,
                                        _("profile “%s”: “%s” is not a valid profile id, so "
                                          "this file is not used; rename it using lower-case "
                                          "letters, digits, “.”, “_” and “-”"),
                                        path, id));
          continue;
        }

      if (is_builtin_id (id))
        {
          g_ptr_array_add (local_errors,
                           g_error_new (WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_EXISTS,
                                        _("profile “%s”: “%s” is the id of a built-in "
                                          "profile, so this file is not used; rename it"),
                                        path, id));
          continue;
        }

      profile = load_user_file (path, id, &error);
      if (profile != NULL)
        g_ptr_array_add (profiles, profile);
      else
        g_ptr_array_add (local_errors, error);
    }

  if (errors != NULL)
    *errors = g_steal_pointer (&local_errors);

  return g_steal_pointer (&profiles);
}

WardenProfile *
warden_profile_store_lookup (WardenProfileStore  *self,
                             const char          *id,
                             GError             **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(WardenProfile) profile = NULL;
  g_autofree char *path = NULL;

  g_return_val_if_fail (WARDEN_IS_PROFILE_STORE (self), NULL);
  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!warden_profile_id_is_valid (id))
    {
      g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_NOT_FOUND,
                   _("There is no profile “%s”: profile ids use lower-case letters, digits, "
                     "“.”, “_” and “-”"),
                   id);
      return NULL;
    }

  if (is_builtin_id (id))
    return warden_profile_new_builtin (id, error);

  path = user_path (self, id);
  profile = load_user_file (path, id, &local_error);
  if (profile == NULL)
    {
      if (g_error_matches (local_error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_NOT_FOUND))
        g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_NOT_FOUND,
                     _("There is no profile “%s”: it is not built in and there is no file "
                       "“%s”"),
                     id, path);
      else
        g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  return g_steal_pointer (&profile);
}

static gboolean
check_can_save (WardenProfile  *profile,
                GError        **error)
{
  const char *id = warden_profile_get_id (profile);

  if (warden_profile_get_builtin (profile))
    {
      g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_READ_ONLY,
                   _("“%s” is a built-in profile and cannot be changed; copy it under "
                     "another id and change the copy"),
                   id);
      return FALSE;
    }

  if (is_builtin_id (id))
    {
      g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_READ_ONLY,
                   _("“%s” is the id of a built-in profile, which cannot be changed; save "
                     "the profile under another id"),
                   id);
      return FALSE;
    }

  /* A profile read from a file of any name can have any id; it names the
   * file here, so it must be one. */
  if (!warden_profile_id_is_valid (id))
    {
      g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID,
                   _("“%s” is not a valid profile id; save the profile under an id of "
                     "lower-case letters, digits, “.”, “_” and “-”"),
                   id);
      return FALSE;
    }

  return TRUE;
}

gboolean
warden_profile_store_save (WardenProfileStore  *self,
                           WardenProfile       *profile,
                           GError             **error)
{
  g_autoptr(GFile) file = NULL;
  g_autofree char *path = NULL;

  g_return_val_if_fail (WARDEN_IS_PROFILE_STORE (self), FALSE);
  g_return_val_if_fail (WARDEN_IS_PROFILE (profile), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_can_save (profile, error))
    return FALSE;

  path = user_path (self, warden_profile_get_id (profile));

  /* The file there is kept as the previous version, read first: a FIFO
   * would block that read, and none of the others is a profile to keep. */
  {
    GStatBuf st;

    if (g_stat (path, &st) == 0 && !S_ISREG (st.st_mode))
      {
        g_autofree char *shown = g_filename_display_name (path);

        g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_IO,
                     /* Translators: a path, and what it is: "a FIFO", "a folder" */
                     _("Could not save profile “%s”: it is %s, not a regular file; move it "
                       "away and save again"),
                     shown, file_kind (st.st_mode));
        return FALSE;
      }
  }

  file = g_file_new_for_path (path);
  return warden_profile_save_to_file (profile, file, error);
}

gboolean
warden_profile_store_delete (WardenProfileStore  *self,
                             const char          *id,
                             GError             **error)
{
  g_autofree char *path = NULL;
  g_autofree char *backup = NULL;

  g_return_val_if_fail (WARDEN_IS_PROFILE_STORE (self), FALSE);
  g_return_val_if_fail (id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (is_builtin_id (id))
    {
      g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_READ_ONLY,
                   _("“%s” is a built-in profile and cannot be deleted"), id);
      return FALSE;
    }

  if (!warden_profile_id_is_valid (id))
    {
      g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_NOT_FOUND,
                   _("There is no profile “%s”: profile ids use lower-case letters, digits, "
                     "“.”, “_” and “-”"),
                   id);
      return FALSE;
    }

  path = user_path (self, id);
  backup = g_strconcat (path, ".bak", NULL);

  /* Moved aside rather than unlinked, so a deletion by mistake can be undone. */
  if (g_rename (path, backup) != 0)
    {
      int saved_errno = errno;

      if (saved_errno == ENOENT)
        g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_NOT_FOUND,
                     _("There is no profile “%s”: there is no file “%s”"), id, path);
      else
        g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_IO,
                     _("Could not delete profile “%s”: %s"), path, g_strerror (saved_errno));
      return FALSE;
    }

  return TRUE;
}

static void
lookup_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  WardenProfileStore *self = source_object;
  const char *id = task_data;
  WardenProfile *profile;
  GError *error = NULL;

  if (g_task_return_error_if_cancelled (task))
    return;

  profile = warden_profile_store_lookup (self, id, &error);
  if (profile == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, profile, g_object_unref);
}

void
warden_profile_store_lookup_async (WardenProfileStore  *self,
                                   const char          *id,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (WARDEN_IS_PROFILE_STORE (self));
  g_return_if_fail (id != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, warden_profile_store_lookup_async);
  g_task_set_task_data (task, g_strdup (id), g_free);
  g_task_run_in_thread (task, lookup_thread);
}

WardenProfile *
warden_profile_store_lookup_finish (WardenProfileStore  *self,
                                    GAsyncResult        *result,
                                    GError             **error)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE_STORE (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        warden_profile_store_lookup_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
save_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  WardenProfileStore *self = source_object;
  WardenProfile *profile = task_data;
  GError *error = NULL;

  if (g_task_return_error_if_cancelled (task))
    return;

  if (!warden_profile_store_save (self, profile, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

void
warden_profile_store_save_async (WardenProfileStore  *self,
                                 WardenProfile       *profile,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;

  g_return_if_fail (WARDEN_IS_PROFILE_STORE (self));
  g_return_if_fail (WARDEN_IS_PROFILE (profile));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, warden_profile_store_save_async);

  if (!check_can_save (profile, &error))
    {
      g_task_return_error (task, error);
      return;
    }

  /* The caller may go on changing @profile while the thread writes; the
   * thread writes a copy taken now, which shares nothing with it. */
  g_task_set_task_data (task,
                        warden_profile_copy (profile, warden_profile_get_id (profile)),
                        g_object_unref);
  g_task_run_in_thread (task, save_thread);
}

gboolean
warden_profile_store_save_finish (WardenProfileStore  *self,
                                  GAsyncResult        *result,
                                  GError             **error)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE_STORE (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        warden_profile_store_save_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

gboolean
warden_profile_store_rename (WardenProfileStore  *self,
                             const char          *id,
                             const char          *new_id,
                             GError             **error)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(WardenProfile) renamed = NULL;
  g_autofree char *new_path = NULL;

  g_return_val_if_fail (WARDEN_IS_PROFILE_STORE (self), FALSE);
  g_return_val_if_fail (id != NULL, FALSE);
  g_return_val_if_fail (new_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (is_builtin_id (id))
    {
      g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_READ_ONLY,
                   _("“%s” is a built-in profile and cannot be renamed; duplicate it instead"),
                   id);
      return FALSE;
    }

  if (!warden_profile_id_is_valid (new_id))
    {
      g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID,
                   _("“%s” is not a valid profile id; ids use lower-case letters, digits, "
                     "“.”, “_” and “-”, and start with a letter or digit"),
                   new_id);
      return FALSE;
    }

  if (strcmp (id, new_id) == 0)
    {
      profile = warden_profile_store_lookup (self, id, error);
      return profile != NULL;
    }

  new_path = user_path (self, new_id);
  if (is_builtin_id (new_id) || g_file_test (new_path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_EXISTS,
                   _("There is a profile “%s” already; choose another id"), new_id);
      return FALSE;
    }

  profile = warden_profile_store_lookup (self, id, error);
  if (profile == NULL)
    return FALSE;

  renamed = warden_profile_copy (profile, new_id);
  if (!warden_profile_store_save (self, renamed, error))
    return FALSE;

  if (!warden_profile_store_delete (self, id, error))
    {
      /* Two copies would be a surprise; one under the old id is what was there. */
      g_remove (new_path);
      return FALSE;
    }

  return TRUE;
}

static gboolean
id_is_taken (WardenProfileStore *self,
             const char         *id)
{
  g_autofree char *path = user_path (self, id);

  return is_builtin_id (id) || g_file_test (path, G_FILE_TEST_EXISTS);
}

char *
warden_profile_store_dup_unused_id (WardenProfileStore *self,
                                    const char         *base)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE_STORE (self), NULL);
  g_return_val_if_fail (warden_profile_id_is_valid (base), NULL);

  if (!id_is_taken (self, base))
    return g_strdup (base);

  for (guint n = 2; n < G_MAXUINT; n++)
    {
      g_autofree char *suffix = g_strdup_printf ("-%u", n);
      gsize keep = MIN (strlen (base), PROFILE_ID_MAX_LENGTH - strlen (suffix));
      g_autofree char *candidate = g_strdup_printf ("%.*s%s", (int) keep, base, suffix);

      if (!id_is_taken (self, candidate))
        return g_steal_pointer (&candidate);
    }

  g_return_val_if_reached (NULL);
}

WardenProfile *
warden_profile_store_duplicate (WardenProfileStore  *self,
                                WardenProfile       *profile,
                                GError             **error)
{
  g_autoptr(WardenProfile) copy = NULL;
  g_autofree char *base = NULL;
  g_autofree char *id = NULL;
  g_autofree char *name = NULL;
  const char *old_id;

  g_return_val_if_fail (WARDEN_IS_PROFILE_STORE (self), NULL);
  g_return_val_if_fail (WARDEN_IS_PROFILE (profile), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* A file read from anywhere may carry an id that is not one. */
  old_id = warden_profile_get_id (profile);
  if (warden_profile_id_is_valid (old_id) && strlen (old_id) <= PROFILE_ID_MAX_LENGTH - 5)
    base = g_strconcat (old_id, "-copy", NULL);
  else
    base = g_strdup ("profile-copy");

  id = warden_profile_store_dup_unused_id (self, base);
  copy = warden_profile_copy (profile, id);
  name = g_strdup_printf (_("%s (copy)"), warden_profile_get_name (profile));
  warden_profile_set_name (copy, name);

  if (!warden_profile_store_save (self, copy, error))
    return NULL;

  return g_steal_pointer (&copy);
}
