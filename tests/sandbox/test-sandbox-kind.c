/* test-sandbox-kind.c: the backend's name as settings, session rows and the command line spell it
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>

#include "sandbox/warden-sandbox.h"

static const struct
{
  const char        *text;
  WardenSandboxKind  kind;
} kinds[] = {
  { .text = "auto", .kind = WARDEN_SANDBOX_KIND_AUTO },
  { .text = "docker", .kind = WARDEN_SANDBOX_KIND_DOCKER },
  { .text = "bwrap", .kind = WARDEN_SANDBOX_KIND_BWRAP },
  { .text = "host", .kind = WARDEN_SANDBOX_KIND_HOST },
};

/* What a stored row or a setting says is read back as the kind it was. */
static void
test_kind_round_trip (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      WardenSandboxKind kind = WARDEN_SANDBOX_KIND_AUTO;

      g_assert_cmpstr (warden_sandbox_kind_to_string (kinds[i].kind), ==, kinds[i].text);
      g_assert_true (warden_sandbox_kind_from_string (kinds[i].text, &kind));
      g_assert_cmpint (kind, ==, kinds[i].kind);
    }
}

/* A name that is no backend (a typo on the command line, an engine's name)
 * is refused, and the kind is left as it was. */
static void
test_kind_unknown (void)
{
  static const char * const unknown[] = { "Docker", "podman", "bubblewrap", "none", "", " host",
                                          "host ", NULL };

  for (guint i = 0; unknown[i] != NULL; i++)
    {
      WardenSandboxKind kind = WARDEN_SANDBOX_KIND_HOST;

      g_assert_false (warden_sandbox_kind_from_string (unknown[i], &kind));
      g_assert_cmpint (kind, ==, WARDEN_SANDBOX_KIND_HOST);
    }
  {
    WardenSandboxKind kind = WARDEN_SANDBOX_KIND_DOCKER;

    g_assert_false (warden_sandbox_kind_from_string (NULL, &kind));
    g_assert_cmpint (kind, ==, WARDEN_SANDBOX_KIND_DOCKER);
  }
}

/* One constructor: each kind makes its backend, which says what it is and
 * whether it confines; nothing is started before prepare. */
static void
test_new_for_kind (void)
{
  g_autofree char *dir = g_dir_make_tmp ("warden-kind-XXXXXX", NULL);
  g_autoptr(WardenSandboxConfig) config = warden_sandbox_config_new (dir);

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      g_autoptr(WardenSandbox) sandbox = NULL;

      if (kinds[i].kind == WARDEN_SANDBOX_KIND_AUTO)
        continue;
      sandbox = warden_sandbox_new_for_kind (kinds[i].kind, config);
      g_assert_nonnull (sandbox);
      g_assert_cmpint (warden_sandbox_get_kind (sandbox), ==, kinds[i].kind);
      g_assert_cmpint (warden_sandbox_get_confined (sandbox), ==,
                       kinds[i].kind != WARDEN_SANDBOX_KIND_HOST);
      /* Commands see the workspace where it is only without a sandbox. */
      g_assert_cmpstr (warden_sandbox_get_workspace_inside (sandbox), ==,
                       kinds[i].kind == WARDEN_SANDBOX_KIND_HOST ? dir : "/workspace");
    }
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/sandbox/kind/round-trip", test_kind_round_trip);
  g_test_add_func ("/sandbox/kind/unknown", test_kind_unknown);
  g_test_add_func ("/sandbox/kind/new-for-kind", test_new_for_kind);

  return g_test_run ();
}
