/* warden-workspace-check.c: which folders may be a workspace
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-sandbox"

#include <glib/gi18n.h>

#include "workspace/warden-workspace-check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK (warden-workspace-check-error-quark, warden_workspace_check_error)

typedef struct
{
  char       *path;
  const char *what;
} Private;

static void
private_clear (Private *p)
{
  g_free (p->path);
}

/* @path with its symlinks resolved as far as it exists: a folder not made yet
 * (~/.gnupg before the first key) must still be found where it will be. */
static char *
resolve (const char *path)
{
  g_autofree char *canon = g_canonicalize_filename (path, NULL);
  g_autofree char *dir = g_strdup (canon);
  g_autoptr(GString) rest = g_string_new (NULL);

  for (;;)
    {
      char *real = realpath (dir, NULL);

      if (real != NULL)
        {
          char *result = rest->len > 0 ? g_strconcat (strcmp (real, "/") == 0 ? "" : real,
                                                      rest->str, NULL)
                                       : g_strdup (real);

          free (real);
          return result;
        }
      if (strcmp (dir, "/") == 0)
        return g_steal_pointer (&canon);
      {
        g_autofree char *base = g_path_get_basename (dir);
        g_autofree char *parent = g_path_get_dirname (dir);

        g_string_prepend (rest, base);
        g_string_prepend_c (rest, '/');
        g_free (dir);
        dir = g_steal_pointer (&parent);
      }
    }
}

/* TRUE when @inner is @outer or lies below it; both resolved. */
static gboolean
is_within (const char *inner,
           const char *outer)
{
  gsize n = strlen (outer);

  if (strcmp (outer, "/") == 0)
    return TRUE;
  return strncmp (inner, outer, n) == 0 && (inner[n] == '\0' || inner[n] == '/');
}

static void
add (GArray     *list,
     const char *path,
     const char *what)
{
  Private p = { resolve (path), what };

  for (guint i = 0; i < list->len; i++)
    if (strcmp (g_array_index (list, Private, i).path, p.path) == 0)
      {
        g_free (p.path);
        return;
      }
  g_array_append_val (list, p);
}

static GArray *
private_paths (void)
{
  GArray *list = g_array_new (FALSE, TRUE, sizeof (Private));
  const char *home = g_get_home_dir ();
  const char *gnupg_home = g_getenv ("GNUPGHOME");
  g_autofree char *config = g_build_filename (g_get_user_config_dir (), "warden", NULL);
  g_autofree char *data = g_build_filename (g_get_user_data_dir (), "warden", NULL);
  g_autofree char *ssh = g_build_filename (home, ".ssh", NULL);
  g_autofree char *gnupg = g_build_filename (home, ".gnupg", NULL);
  g_autofree char *keyrings = g_build_filename (home, ".local", "share", "keyrings", NULL);
  g_autofree char *data_keyrings = g_build_filename (g_get_user_data_dir (), "keyrings", NULL);

  g_array_set_clear_func (list, (GDestroyNotify) private_clear);
  /* Translators: what a folder holds, in "it contains %s (%s)" */
  add (list, config, _("Warden’s settings and profiles"));
  add (list, data, _("Warden’s sessions and approvals"));
  add (list, ssh, _("your SSH keys"));
  add (list, gnupg, _("your GnuPG keys"));
  if (gnupg_home != NULL && g_path_is_absolute (gnupg_home))
    add (list, gnupg_home, _("your GnuPG keys"));
  add (list, keyrings, _("your keyrings"));
  add (list, data_keyrings, _("your keyrings"));
  return list;
}

char **
warden_workspace_check_dup_private_paths (void)
{
  g_autoptr(GArray) list = private_paths ();
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; i < list->len; i++)
    g_strv_builder_add (builder, g_array_index (list, Private, i).path);
  return g_strv_builder_end (builder);
}

char *
warden_workspace_check (const char          *path,
                        const char * const  *also,
                        GError             **error)
{
  g_autoptr(GArray) list = NULL;
  g_autofree char *canon = NULL;
  g_autofree char *real = NULL;
  g_autofree char *shown = NULL;
  g_autofree char *home = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  canon = g_canonicalize_filename (path, NULL);
  {
    /* realpath() gives malloc()'d memory; GLib frees with g_free(). */
    char *r = realpath (canon, NULL);
    int saved = errno;

    real = g_strdup (r);
    free (r);
    if (real != NULL && !g_file_test (real, G_FILE_TEST_IS_DIR))
      saved = ENOTDIR;
    else if (real != NULL)
      saved = 0;
    if (saved == ENOENT)
      g_set_error (error, WARDEN_WORKSPACE_CHECK_ERROR, WARDEN_WORKSPACE_CHECK_ERROR_NOT_FOUND,
                   _("The workspace %s does not exist: choose a project folder"), path);
    else if (saved == ENOTDIR)
      g_set_error (error, WARDEN_WORKSPACE_CHECK_ERROR, WARDEN_WORKSPACE_CHECK_ERROR_NOT_FOUND,
                   _("The workspace %s is not a folder: choose a project folder"), path);
    else if (saved != 0)
      g_set_error (error, WARDEN_WORKSPACE_CHECK_ERROR, WARDEN_WORKSPACE_CHECK_ERROR_NOT_FOUND,
                   _("Could not open the workspace %s: %s"), path, g_strerror (saved));
    if (saved != 0)
      return NULL;
  }

  /* Name the link the user chose and where it leads: "~/work" may be $HOME. */
  shown = strcmp (canon, real) != 0
          /* Translators: a workspace path that is a symbolic link, and its target */
          ? g_strdup_printf (_("%s (a link to %s)"), path, real)
          : g_strdup (path);

  if (strcmp (real, "/") == 0)
    {
      g_set_error (error, WARDEN_WORKSPACE_CHECK_ERROR, WARDEN_WORKSPACE_CHECK_ERROR_REFUSED,
                   _("%s cannot be a workspace: it is the whole file system, with your home "
                     "folder and Warden’s own settings in it. Choose a project folder instead."),
                   shown);
      return NULL;
    }

  home = resolve (g_get_home_dir ());
  if (strcmp (real, home) == 0)
    {
      g_set_error (error, WARDEN_WORKSPACE_CHECK_ERROR, WARDEN_WORKSPACE_CHECK_ERROR_REFUSED,
                   _("%s cannot be a workspace: it is your home folder, with your keys and "
                     "Warden’s own settings in it. Choose a project folder inside it instead."),
                   shown);
      return NULL;
    }
  if (is_within (home, real))
    {
      g_set_error (error, WARDEN_WORKSPACE_CHECK_ERROR, WARDEN_WORKSPACE_CHECK_ERROR_REFUSED,
                   _("%s cannot be a workspace: it contains your home folder (%s). Choose a "
                     "project folder instead."),
                   shown, home);
      return NULL;
    }

  list = private_paths ();
  for (guint i = 0; i < list->len; i++)
    {
      const Private *p = &g_array_index (list, Private, i);

      if (is_within (p->path, real))
        {
          g_set_error (error, WARDEN_WORKSPACE_CHECK_ERROR, WARDEN_WORKSPACE_CHECK_ERROR_REFUSED,
                       /* Translators: "<folder> cannot be a workspace: it contains <your SSH
                        * keys> (<~/.ssh>), …" */
                       _("%s cannot be a workspace: it contains %s (%s), which a command in the "
                         "sandbox could read or change. Choose a project folder instead."),
                       shown, p->what, p->path);
          return NULL;
        }
      /* Every file in these folders is private: no part of one is a project. */
      if (is_within (real, p->path))
        {
          g_set_error (error, WARDEN_WORKSPACE_CHECK_ERROR, WARDEN_WORKSPACE_CHECK_ERROR_REFUSED,
                       _("%s cannot be a workspace: it is inside %s (%s). Choose a project "
                         "folder instead."),
                       shown, p->what, p->path);
          return NULL;
        }
    }

  for (guint i = 0; also != NULL && also[i] != NULL; i++)
    {
      g_autofree char *resolved = resolve (also[i]);

      /* Only what is inside the workspace is at risk here: a project folder
       * next to the database is fine. */
      if (is_within (resolved, real))
        {
          g_set_error (error, WARDEN_WORKSPACE_CHECK_ERROR, WARDEN_WORKSPACE_CHECK_ERROR_REFUSED,
                       _("%s cannot be a workspace: it contains %s (%s), which a command in the "
                         "sandbox could read or change. Choose a project folder instead."),
                       shown, _("Warden’s own state"), resolved);
          return NULL;
        }
    }

  return g_steal_pointer (&real);
}
