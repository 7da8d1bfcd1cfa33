/* test-cli-lifecycle.c: a session's sandbox under faults, as warden-cli shows them
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Issue 29: the container removed or stopped under a session, Warden
 * killed with its container running, a sandbox that cannot be prepared.
 * Real Docker; only the test's own containers are touched.
 */

#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "cli-harness.h"
#include "engine/warden-docker-client.h"
#include "sandbox/warden-docker-sandbox.h"
#include "warden-test-util.h"

#define WAIT_COMMAND "{\"command\": \"touch started.txt; while [ ! -e stop.txt ]; do sleep 0.05; done\"}"

static const char *
test_image (void)
{
  const char *image = g_getenv ("WARDEN_TEST_IMAGE");

  return image ? image : "warden-test-busybox:latest";
}

/* Waits, serving the fake model meanwhile, until @done says so; fails
 * after two minutes (a condition, not a time: it normally comes at once). */
static void
wait_until (gboolean (*done) (gpointer),
            gpointer  data,
            const char *what)
{
  gint64 deadline = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;

  while (!done (data))
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("gave up waiting for %s", what);
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (10000);
    }
}

static gboolean
started (gpointer data)
{
  return workspace_has (data, "started.txt");
}

/* The container whose owner record names process @pid. */
static char *
container_of (GPid pid)
{
  g_autoptr(WardenDockerClient) client = warden_docker_client_new_from_env (NULL);
  g_autoptr(GHashTable) owners = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *field = g_strdup_printf ("\t%d\t", (int) pid);
  GAsyncResult *res = NULL;
  GHashTableIter iter;
  gpointer id, owner;

  warden_docker_client_container_labels_async (client, WARDEN_DOCKER_LABEL,
                                               WARDEN_DOCKER_OWNER_LABEL, NULL,
                                               warden_test_keep_result_cb, &res);
  warden_test_wait_result (&res);
  owners = warden_docker_client_container_labels_finish (client, res, &error);
  g_object_unref (res);
  g_assert_no_error (error);
  g_hash_table_iter_init (&iter, owners);
  while (g_hash_table_iter_next (&iter, &id, &owner))
    if (strstr (owner, field) != NULL)
      return g_strdup (id);
  return NULL;
}

static gboolean
container_gone (gpointer data)
{
  g_autoptr(WardenDockerClient) client = warden_docker_client_new_from_env (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  GAsyncResult *res = NULL;

  warden_docker_client_container_inspect_async (client, data, NULL, warden_test_keep_result_cb,
                                                &res);
  warden_test_wait_result (&res);
  node = warden_docker_client_container_inspect_finish (client, res, &error);
  g_object_unref (res);
  return g_error_matches (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_NOT_FOUND);
}

/* docker rm -f ID (@removed), else docker kill ID: as a user would. */
static void
docker_cli (gboolean    removed,
            const char *id)
{
  const char *rm[] = { "docker", "rm", "-f", id, NULL };
  const char *kill_argv[] = { "docker", "kill", id, NULL };
  g_autoptr(GError) error = NULL;
  int status;

  g_assert_true (g_spawn_sync (NULL, (char **) (removed ? rm : kill_argv), NULL,
                               G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                               NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

/* ------------------------------------------------------------------------ */

/* The container goes under a running session (removed, or stopped): the
 * next command runs in a new sandbox, and the session says what happened. */
static void
test_container_lost (gconstpointer data)
{
  const char *how = data;
  Env env;
  Proc *p;
  Result r;
  g_autofree char *id = NULL;
  g_autofree char *two = NULL;

  if (warden_test_skip_without_docker ())
    return;
  env_set_up (&env);
  g_queue_push_tail (&env.fake->script, fake_reply (NULL, "exec", WAIT_COMMAND, NULL));
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"echo two > two.txt\"}", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Done.", NULL));

  if (g_str_has_suffix (how, "-json"))
    p = PROC_START (&env, "run", "--json", "--sandbox", "docker", "--image", test_image (),
                    "--profile", "trusted", "wait, then write two");
  else
    p = PROC_START (&env, "run", "--sandbox", "docker", "--image", test_image (), "--profile",
                    "trusted", "wait, then write two");
  wait_until (started, &env, "the first command");
  id = container_of ((GPid) atoi (g_subprocess_get_identifier (p->proc)));
  g_assert_nonnull (id);
  docker_cli (g_str_has_prefix (how, "removed"), id);

  r = proc_finish (p);
  g_assert_cmpint (r.status, ==, 0);
  two = workspace_file (&env, "two.txt");
  g_assert_cmpstr (two, ==, "two\n");
  /* Said to the user… */
  g_assert_nonnull (strstr (r.err, "removed or stopped outside Warden"));
  g_assert_nonnull (strstr (r.err, "new sandbox"));
  /* In --json, as a notice event. */
  if (g_str_has_suffix (how, "-json"))
    {
      g_assert_nonnull (strstr (r.out, "\"type\":\"notice\""));
      g_assert_nonnull (strstr (r.out, "A new sandbox was made"));
    }
  /* …and to the model, with the first command's result. */
  g_assert_nonnull (strstr (fake_model_last_message (env.fake, 1), "outside Warden"));

  /* Its own container it removes at the end; the lost one is gone too. */
  g_assert_true (container_gone (id));
  result_clear (&r);
  env_tear_down (&env);
}

/* The container goes between two commands, while the second waits for the
 * user: that command did not run, and runs in a new sandbox. */
static void
test_container_gone_between (void)
{
  Env env;
  Proc *p;
  Result r;
  g_autofree char *id = NULL;

  if (warden_test_skip_without_docker ())
    return;
  env_set_up (&env);
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"ls\"}", NULL));
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"touch two.txt\"}", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Done.", NULL));

  p = PROC_START (&env, "run", "--sandbox", "docker", "--image", test_image (), "list, then touch");
  proc_wait_out (p, "needs approval: touch two.txt");
  proc_wait_out (p, "reject>");
  id = container_of ((GPid) atoi (g_subprocess_get_identifier (p->proc)));
  g_assert_nonnull (id);
  docker_cli (TRUE, id);
  proc_send (p, "y\n");

  r = proc_finish (p);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (workspace_has (&env, "two.txt"));
  g_assert_nonnull (strstr (r.err, "A new sandbox was made"));
  g_assert_nonnull (strstr (r.err, "before the command started"));
  /* Announced once, run once. */
  {
    const char *first = strstr (r.out, "[exec] touch two.txt");

    g_assert_nonnull (first);
    g_assert_null (strstr (first + 1, "[exec] touch two.txt"));
  }
  /* The model reads that it ran, not an error. */
  g_assert_null (strstr (fake_model_last_message (env.fake, 2), "Error"));
  result_clear (&r);
  env_tear_down (&env);
}

/* Warden is killed (kill -9) while its container runs a command: the next
 * start removes what it left. */
static void
test_killed_owner_cleaned (void)
{
  Env env;
  Proc *p;
  Result r;
  g_autofree char *id = NULL;

  if (warden_test_skip_without_docker ())
    return;
  env_set_up (&env);
  g_queue_push_tail (&env.fake->script, fake_reply (NULL, "exec", WAIT_COMMAND, NULL));

  p = PROC_START (&env, "run", "--sandbox", "docker", "--image", test_image (), "--profile",
                  "trusted", "wait");
  wait_until (started, &env, "the command");
  id = container_of ((GPid) atoi (g_subprocess_get_identifier (p->proc)));
  g_assert_nonnull (id);
  g_subprocess_send_signal (p->proc, SIGKILL);
  r = proc_finish (p);
  result_clear (&r);
  g_assert_false (container_gone (id));

  /* The next start that prepares a sandbox. */
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"true\"}", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Done.", NULL));
  r = RUN (&env, "", "run", "--sandbox", "docker", "--image", test_image (), "--profile",
           "trusted", "again");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (container_gone (id));
  result_clear (&r);
  env_tear_down (&env);
}

/* No sandbox can be made: the turn stops with one clear error, nothing more
 * is asked or run, and the status says so. */
static void
test_prepare_fails (gconstpointer data)
{
  gboolean json = GPOINTER_TO_INT (data);
  Env env;
  Result r;

  env_set_up (&env);
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"touch a.txt\"}", NULL));
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"touch b.txt\"}", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Done.", NULL));

  g_setenv ("DOCKER_HOST", "unix:///nonexistent/warden-test.sock", TRUE);
  if (json)
    r = RUN (&env, "", "run", "--json", "--sandbox", "docker", "--image", test_image (), "make a");
  else
    r = RUN (&env, "", "run", "--sandbox", "docker", "--image", test_image (), "make a");
  g_unsetenv ("DOCKER_HOST");

  g_assert_cmpint (r.status, ==, 2);
  /* The model was asked once: nothing went on after the failure. */
  g_assert_cmpuint (env.fake->requests->len, ==, 1);
  g_assert_false (workspace_has (&env, "a.txt"));
  if (json)
    {
      g_assert_nonnull (strstr (r.out, "\"code\":\"sandbox\""));
      g_assert_nonnull (strstr (r.out, "\"reason\":\"error\""));
      g_assert_null (strstr (r.out, "approval_required"));
    }
  else
    {
      g_autofree char *id = session_id_of (r.err);

      g_assert_nonnull (strstr (r.err, "sandbox could not be prepared"));
      g_assert_null (strstr (r.out, "reject>"));

      /* Once a sandbox can be made, the session goes on with that command. */
      if (!warden_test_skip_without_docker ())
        {
          result_clear (&r);
          r = RUN (&env, "y\ny\n", "run", "--resume", id, "--sandbox", "docker", "--image",
                   test_image ());
          g_assert_cmpint (r.status, ==, 0);
          g_assert_true (workspace_has (&env, "a.txt"));
          g_assert_true (workspace_has (&env, "b.txt"));
        }
    }
  result_clear (&r);
  env_tear_down (&env);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_data_func ("/cli/lifecycle/container-removed", "removed", test_container_lost);
  g_test_add_data_func ("/cli/lifecycle/container-stopped", "stopped", test_container_lost);
  g_test_add_data_func ("/cli/lifecycle/container-removed-json", "removed-json",
                        test_container_lost);
  g_test_add_func ("/cli/lifecycle/container-gone-between", test_container_gone_between);
  g_test_add_func ("/cli/lifecycle/killed-owner-cleaned", test_killed_owner_cleaned);
  g_test_add_data_func ("/cli/lifecycle/prepare-fails", GINT_TO_POINTER (FALSE),
                        test_prepare_fails);
  g_test_add_data_func ("/cli/lifecycle/prepare-fails-json", GINT_TO_POINTER (TRUE),
                        test_prepare_fails);
  return g_test_run ();
}
