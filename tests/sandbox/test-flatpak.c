/* test-flatpak.c: which backends and workspaces Warden refuses when it is a Flatpak
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "sandbox/warden-flatpak.h"
#include "sandbox/warden-sandbox.h"

/* A stand-in for / : a directory that holds a .flatpak-info or not. */
typedef struct
{
  char *root;
  char *info_path;
  char *runtime_dir;
} Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  gboolean sandboxed = GPOINTER_TO_INT (data);
  g_autoptr(GError) error = NULL;

  fixture->root = g_dir_make_tmp ("warden-flatpak-XXXXXX", &error);
  g_assert_no_error (error);
  fixture->info_path = g_build_filename (fixture->root, ".flatpak-info", NULL);
  fixture->runtime_dir = g_build_filename (fixture->root, "run", "user", "1000", NULL);
  if (sandboxed)
    {
      g_file_set_contents (fixture->info_path,
                           "[Application]\nname=io.github.wardenapp.Warden\n", -1, &error);
      g_assert_no_error (error);
    }
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_unlink (fixture->info_path);
  g_rmdir (fixture->root);
  g_free (fixture->root);
  g_free (fixture->info_path);
  g_free (fixture->runtime_dir);
}

static void
test_is_sandboxed_inside (Fixture       *fixture,
                          gconstpointer  data)
{
  g_assert_true (warden_flatpak_is_sandboxed_at (fixture->info_path));
}

static void
test_is_sandboxed_outside (Fixture       *fixture,
                           gconstpointer  data)
{
  g_assert_false (warden_flatpak_is_sandboxed_at (fixture->info_path));
}

/* The machines that run these tests are no Flatpak: the real check agrees. */
static void
test_is_sandboxed_here (void)
{
  g_assert_cmpint (warden_flatpak_is_sandboxed (), ==,
                   g_file_test ("/.flatpak-info", G_FILE_TEST_EXISTS));
  if (!warden_flatpak_is_sandboxed ())
    g_assert_true (warden_flatpak_check_backend (WARDEN_SANDBOX_KIND_BWRAP, NULL));
}

static void
test_bwrap_inside (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  g_assert_false (warden_flatpak_check_backend_at (fixture->info_path, WARDEN_SANDBOX_KIND_BWRAP,
                                                   &error));
  g_assert_error (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_UNAVAILABLE);
  /* What the user reads: why, and the two ways on. */
  g_assert_nonnull (strstr (error->message, "bubblewrap cannot run inside the Flatpak sandbox"));
  g_assert_nonnull (strstr (error->message, "Docker"));
  g_assert_nonnull (strstr (error->message, "distribution"));
}

static void
test_others_inside (Fixture       *fixture,
                    gconstpointer  data)
{
  const WardenSandboxKind backends[] = { WARDEN_SANDBOX_KIND_DOCKER, WARDEN_SANDBOX_KIND_HOST,
                                          WARDEN_SANDBOX_KIND_AUTO };

  for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_true (warden_flatpak_check_backend_at (fixture->info_path, backends[i], &error));
      g_assert_no_error (error);
    }
}

static void
test_all_outside (Fixture       *fixture,
                  gconstpointer  data)
{
  const WardenSandboxKind backends[] = { WARDEN_SANDBOX_KIND_BWRAP, WARDEN_SANDBOX_KIND_DOCKER,
                                          WARDEN_SANDBOX_KIND_HOST, WARDEN_SANDBOX_KIND_AUTO };

  for (guint i = 0; i < G_N_ELEMENTS (backends); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_true (warden_flatpak_check_backend_at (fixture->info_path, backends[i], &error));
      g_assert_no_error (error);
    }
}

static void
test_workspace_portal_inside (Fixture       *fixture,
                              gconstpointer  data)
{
  g_autofree char *doc = g_build_filename (fixture->runtime_dir, "doc", "3f9a1c2b", "project",
                                           NULL);
  g_autoptr(GError) error = NULL;

  g_assert_false (warden_flatpak_check_workspace_at (fixture->info_path, fixture->runtime_dir,
                                                     doc, &error));
  g_assert_error (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_UNAVAILABLE);
  g_assert_nonnull (strstr (error->message, doc));
  g_assert_nonnull (strstr (error->message, "flatpak override --user --filesystem="));
  g_clear_error (&error);

  g_assert_false (warden_flatpak_check_workspace_at (fixture->info_path, NULL,
                                                     "/run/flatpak/doc/3f9a1c2b/project",
                                                     &error));
  g_assert_error (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_UNAVAILABLE);
}

static void
test_workspace_real_inside (Fixture       *fixture,
                            gconstpointer  data)
{
  g_autofree char *docs = g_build_filename (fixture->runtime_dir, "docs", "project", NULL);
  g_autofree char *doc_prefix = g_build_filename (fixture->runtime_dir, "doc", NULL);
  const char *paths[] = { "/home/ada/src/project", docs, "/run/flatpak/documents" };
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_assert_true (warden_flatpak_check_workspace_at (fixture->info_path, fixture->runtime_dir,
                                                        paths[i], &error));
      g_assert_no_error (error);
    }

  /* The portal's mount point itself holds no folder of the user's. */
  g_assert_false (warden_flatpak_check_workspace_at (fixture->info_path, fixture->runtime_dir,
                                                     doc_prefix, &error));
  g_assert_error (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_UNAVAILABLE);
}

/* Outside Flatpak a path under the runtime dir is a real folder like any other. */
static void
test_workspace_outside (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autofree char *doc = g_build_filename (fixture->runtime_dir, "doc", "3f9a1c2b", "project",
                                           NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (warden_flatpak_check_workspace_at (fixture->info_path, fixture->runtime_dir,
                                                    doc, &error));
  g_assert_no_error (error);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, sandboxed, func) \
  g_test_add ("/sandbox/flatpak/" path, Fixture, GINT_TO_POINTER (sandboxed), \
              fixture_setup, func, fixture_teardown)
  ADD ("is-sandboxed/inside", TRUE, test_is_sandboxed_inside);
  ADD ("is-sandboxed/outside", FALSE, test_is_sandboxed_outside);
  g_test_add_func ("/sandbox/flatpak/is-sandboxed/here", test_is_sandboxed_here);
  ADD ("backend/bwrap-inside", TRUE, test_bwrap_inside);
  ADD ("backend/others-inside", TRUE, test_others_inside);
  ADD ("backend/all-outside", FALSE, test_all_outside);
  ADD ("workspace/portal-inside", TRUE, test_workspace_portal_inside);
  ADD ("workspace/real-inside", TRUE, test_workspace_real_inside);
  ADD ("workspace/outside", FALSE, test_workspace_outside);
#undef ADD

  return g_test_run ();
}
