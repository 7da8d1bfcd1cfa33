/* warden-test-util.c: what several test programs need alike
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "warden-test-util.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/warden-docker-client.h"
#include "sandbox/warden-docker-sandbox.h"

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

WardenSandbox *
warden_test_docker_sandbox_new (const WardenSandboxConfig *config)
{
  static WardenDockerClient *client;

  if (client == NULL)
    client = warden_docker_client_new_from_env (NULL);
  /* No client to share: the sandbox makes its own, and says why not. */
  if (client == NULL)
    return warden_docker_sandbox_new (config);
  return warden_docker_sandbox_new_for_client (config, client);
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

static void
assert_same_strv (const char         *field,
                  const char * const *a,
                  const char * const *b)
{
  g_autofree char *ja = a ? g_strjoinv ("\n", (char **) a) : g_strdup ("(null)");
  g_autofree char *jb = b ? g_strjoinv ("\n", (char **) b) : g_strdup ("(null)");

  if (g_strcmp0 (ja, jb) != 0)
    g_error ("approvals differ in %s: [%s] and [%s]", field, ja, jb);
}

#define SAME_STR(field) \
  G_STMT_START { \
    if (g_strcmp0 (warden_approval_get_##field (a), warden_approval_get_##field (b)) != 0) \
      g_error ("approvals differ in " #field ": “%s” and “%s”", \
               warden_approval_get_##field (a), warden_approval_get_##field (b)); \
  } G_STMT_END

void
warden_test_assert_same_approval (WardenApproval *a,
                                  WardenApproval *b)
{
  WardenDecision *da = warden_approval_get_decision (a);
  WardenDecision *db = warden_approval_get_decision (b);

  SAME_STR (id);
  SAME_STR (session_id);
  g_assert_cmpint (warden_approval_get_kind (a), ==, warden_approval_get_kind (b));
  SAME_STR (tool_name);
  SAME_STR (subject);
  SAME_STR (cwd);
  g_assert_cmpint (warden_approval_get_sandbox (a), ==, warden_approval_get_sandbox (b));
  SAME_STR (reason);
  SAME_STR (part);
  SAME_STR (diff);
  SAME_STR (saves_into);
  assert_same_strv ("suggestions", warden_approval_get_suggestions (a),
                    warden_approval_get_suggestions (b));
  assert_same_strv ("choices", warden_approval_get_choices (a), warden_approval_get_choices (b));
  assert_same_strv ("env", warden_approval_get_env (a), warden_approval_get_env (b));
  assert_same_strv ("chain", warden_approval_get_chain (a), warden_approval_get_chain (b));
  g_assert_cmpint (warden_approval_get_while_running (a), ==,
                   warden_approval_get_while_running (b));
  g_assert_cmpint (da == NULL, ==, db == NULL);
  if (da == NULL)
    return;
  g_assert_cmpint (warden_decision_get_verdict (da), ==, warden_decision_get_verdict (db));
  g_assert_cmpstr (warden_decision_get_reason (da), ==, warden_decision_get_reason (db));
  g_assert_cmpuint (warden_decision_get_n_parts (da), ==, warden_decision_get_n_parts (db));
  for (guint i = 0; i < warden_decision_get_n_parts (da); i++)
    {
      const WardenDecisionPart *pa = warden_decision_get_part (da, i);
      const WardenDecisionPart *pb = warden_decision_get_part (db, i);

      g_assert_cmpstr (pa->text, ==, pb->text);
      g_assert_cmpint (pa->verdict, ==, pb->verdict);
      g_assert_cmpstr (pa->reason, ==, pb->reason);
      g_assert_cmpstr (pa->pattern, ==, pb->pattern);
      g_assert_cmpstr (pa->suggestion, ==, pb->suggestion);
    }
}

static int
by_name (gconstpointer a,
         gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static void
describe_into (GString    *out,
               const char *dir,
               const char *rel,
               gboolean    with_git)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    if (with_git || strcmp (name, ".git") != 0)
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, by_name);
  for (guint i = 0; i < names->len; i++)
    {
      const char *n = g_ptr_array_index (names, i);
      g_autofree char *path = g_build_filename (dir, n, NULL);
      g_autofree char *sub = *rel ? g_strconcat (rel, "/", n, NULL) : g_strdup (n);
      struct stat st;

      g_assert_cmpint (lstat (path, &st), ==, 0);
      if (S_ISLNK (st.st_mode))
        {
          g_autofree char *target = g_file_read_link (path, NULL);

          g_string_append_printf (out, "%s -> %s\n", sub, target);
        }
      else if (S_ISDIR (st.st_mode))
        {
          g_string_append_printf (out, "%s/\n", sub);
          describe_into (out, path, sub, with_git);
        }
      else
        {
          g_autofree char *data = NULL;
          gsize len = 0;
          g_autofree char *sum = NULL;

          g_assert_true (g_file_get_contents (path, &data, &len, NULL));
          sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (guchar *) data, len);
          g_string_append_printf (out, "%s %s %s\n", sub,
                                  (st.st_mode & 0100) ? "x" : "-", sum);
        }
    }
}

char *
warden_test_describe_tree (const char *dir,
                           gboolean    with_git)
{
  GString *out = g_string_new (NULL);

  describe_into (out, dir, "", with_git);
  return g_string_free (out, FALSE);
}
