/* warden-test-util.c: what several test programs need alike
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "warden-test-util.h"

#include <glib/gstdio.h>
#include <sys/stat.h>

#include "sandbox/warden-docker-client.h"

void
warden_test_remove_tree (const char *path)
{
  GStatBuf st;

  if (g_lstat (path, &st) != 0)
    return;
  if (S_ISDIR (st.st_mode))
    {
      g_autoptr(GDir) dir = NULL;
      const char *name;

      /* A test may have left it read-only. */
      g_chmod (path, 0700);
      dir = g_dir_open (path, 0, NULL);
      while (dir && (name = g_dir_read_name (dir)))
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          warden_test_remove_tree (child);
        }
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

void
warden_test_keep_result_cb (GObject      *object,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

void
warden_test_wait_result (GAsyncResult **result)
{
  while (*result == NULL)
    g_main_context_iteration (NULL, TRUE);
}

gboolean
warden_test_docker_usable (void)
{
  g_autoptr(WardenDockerClient) client = warden_docker_client_new_from_env (NULL);
  GAsyncResult *res = NULL;
  gboolean ok;

  if (client == NULL)
    return FALSE;
  warden_docker_client_ping_async (client, NULL, warden_test_keep_result_cb, &res);
  warden_test_wait_result (&res);
  ok = warden_docker_client_ping_finish (client, res, NULL);
  g_object_unref (res);
  return ok;
}

gboolean
warden_test_skip_without_docker (void)
{
  if (warden_test_docker_usable ())
    return FALSE;
  if (g_strcmp0 (g_getenv ("CI"), "true") == 0)
    g_test_fail_printf ("no Docker engine, and CI=true");
  else
    g_test_skip ("no Docker engine");
  return TRUE;
}

WardenDockerEngineKind
warden_test_expected_engine (void)
{
  return g_strcmp0 (g_getenv ("WARDEN_TEST_ENGINE"), "podman") == 0 ? WARDEN_DOCKER_ENGINE_PODMAN
                                                                    : WARDEN_DOCKER_ENGINE_DOCKER;
}

gboolean
warden_test_expected_rootless (void)
{
  return g_strcmp0 (g_getenv ("WARDEN_TEST_ROOTLESS"), "1") == 0;
}
