/* test-workspace-check.c: folders that can be a workspace, and those that cannot
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "workspace/warden-workspace-check.h"

/* Each test has its own $HOME, $XDG_CONFIG_HOME and $XDG_DATA_HOME side by
 * side in one folder, "base" below (G_TEST_OPTION_ISOLATE_DIRS). Paths in
 * the rows are relative to it; "/" is itself. */
typedef struct
{
  const char *name;
  const char *workspace;
  const char *also;       /* another folder of Warden's, as the database's */
  const char *refused;    /* words of the message, or NULL when accepted */
  const char *resolved;   /* where an accepted workspace really is */
  gboolean    missing;    /* NOT_FOUND rather than REFUSED */
} Row;

static const Row rows[] = {
  { "home", "home", NULL, "it is your home folder", NULL, FALSE },
  { "root", "/", NULL, "the whole file system", NULL, FALSE },
  { "above-home", ".", NULL, "it contains your home folder", NULL, FALSE },
  { "link-to-home", "link-to-home", NULL, "(a link to ", NULL, FALSE },
  { "home-by-dots", "home/src/project/../..", NULL, "it is your home folder", NULL, FALSE },
  { "config", "config", NULL, "Warden’s settings and profiles", NULL, FALSE },
  { "data", "data", NULL, "Warden’s sessions and approvals", NULL, FALSE },
  { "inside-data", "data/warden/sessions", NULL, "it is inside Warden’s sessions", NULL, FALSE },
  { "inside-ssh", "home/.ssh/old", NULL, "it is inside your SSH keys", NULL, FALSE },
  { "ssh-linked-elsewhere", "keys", NULL, "your SSH keys", NULL, FALSE },
  { "keyrings", "home/.local/share", NULL, "your keyrings", NULL, FALSE },
  { "gnupg-not-made-yet", "keys/gpg", NULL, "your GnuPG keys", NULL, FALSE },
  { "project", "home/src/project", NULL, NULL, "home/src/project", FALSE },
  { "link-to-project", "link-to-project", NULL, NULL, "home/src/project", FALSE },
  { "holds-database", "home/src", "home/src/state", "Warden’s own state", NULL, FALSE },
  { "next-to-database", "home/src/project", "home/src/state", NULL, "home/src/project", FALSE },
  { "missing", "home/nope", NULL, "does not exist", NULL, TRUE },
  { "a-file", "home/notes.txt", NULL, "is not a folder", NULL, TRUE },
};

static char *
base_dir (void)
{
  return g_path_get_dirname (g_get_home_dir ());
}

static char *
at (const char *base,
    const char *relative)
{
  return strcmp (relative, "/") == 0 ? g_strdup ("/") : g_build_filename (base, relative, NULL);
}

static void
make_tree (const char *base)
{
  const char *dirs[] = { "home/src/project", "home/src/state", "home/.local/share/keyrings",
                         "config/warden/profiles", "data/warden/sessions", "keys/ssh/old",
                         "keys/gpg" };
  g_autofree char *ssh = at (base, "home/.ssh");
  g_autofree char *ssh_target = at (base, "keys/ssh");
  g_autofree char *home = at (base, "home");
  g_autofree char *project = at (base, "home/src/project");
  g_autofree char *link_home = at (base, "link-to-home");
  g_autofree char *link_project = at (base, "link-to-project");
  g_autofree char *notes = at (base, "home/notes.txt");
  g_autofree char *gnupg_home = at (base, "keys/gpg/not-made-yet");

  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autofree char *path = at (base, dirs[i]);

      g_assert_cmpint (g_mkdir_with_parents (path, 0700), ==, 0);
    }
  /* ~/.ssh is a link to a folder elsewhere: what counts is where it leads. */
  g_assert_cmpint (symlink (ssh_target, ssh), ==, 0);
  g_assert_cmpint (symlink (home, link_home), ==, 0);
  g_assert_cmpint (symlink (project, link_project), ==, 0);
  g_assert_true (g_file_set_contents (notes, "x", 1, NULL));
  /* A $GNUPGHOME that gpg has not made yet is still where the keys will be. */
  g_setenv ("GNUPGHOME", gnupg_home, TRUE);
}

static void
test_row (gconstpointer data)
{
  const Row *row = data;
  g_autofree char *base = base_dir ();
  g_autofree char *workspace = at (base, row->workspace);
  g_autofree char *also_path = row->also ? at (base, row->also) : NULL;
  const char *also[] = { also_path, NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *real = NULL;

  make_tree (base);
  real = warden_workspace_check (workspace, also, &error);
  if (row->refused == NULL)
    {
      g_autofree char *expected = at (base, row->resolved);

      g_assert_no_error (error);
      g_assert_cmpstr (real, ==, expected);
      return;
    }

  g_assert_null (real);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_true (g_error_matches (error, WARDEN_WORKSPACE_CHECK_ERROR,
                                  row->missing ? WARDEN_WORKSPACE_CHECK_ERROR_NOT_FOUND
                                               : WARDEN_WORKSPACE_CHECK_ERROR_REFUSED));
  g_assert_nonnull (strstr (error->message, row->refused));
  /* It names the folder it was given, and says what to do. */
  g_assert_nonnull (strstr (error->message, workspace));
  g_assert_nonnull (strstr (error->message, row->missing ? "choose a project folder"
                                                         : "Choose a project folder"));
}

/* The sandbox backends mask these: they are where the check says. */
static void
test_private_paths (void)
{
  g_auto(GStrv) paths = NULL;
  g_autofree char *base = base_dir ();
  g_autofree char *config = at (base, "config/warden");
  g_autofree char *data = at (base, "data/warden");
  g_autofree char *ssh = at (base, "keys/ssh");
  g_autofree char *gnupg = at (base, "home/.gnupg");
  g_autofree char *keyrings = at (base, "home/.local/share/keyrings");
  g_autofree char *gnupg_home = at (base, "keys/gpg/not-made-yet");

  make_tree (base);
  paths = warden_workspace_check_dup_private_paths ();
  g_assert_true (g_strv_contains ((const char * const *) paths, config));
  g_assert_true (g_strv_contains ((const char * const *) paths, data));
  g_assert_true (g_strv_contains ((const char * const *) paths, ssh));
  g_assert_true (g_strv_contains ((const char * const *) paths, gnupg));
  g_assert_true (g_strv_contains ((const char * const *) paths, keyrings));
  g_assert_true (g_strv_contains ((const char * const *) paths, gnupg_home));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *name = g_strdup_printf ("/agent/workspace-check/%s", rows[i].name);

      g_test_add_data_func (name, &rows[i], test_row);
    }
  g_test_add_func ("/agent/workspace-check/private-paths", test_private_paths);

  return g_test_run ();
}
