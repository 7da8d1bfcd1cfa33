/* test-lifecycle.c: what the sandboxes leave behind, and who removes it
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Faults as an injector makes them (issue 29): a container removed or
 * stopped under a session, an owner that died, an owner that cannot be
 * checked from here. Real Docker and bwrap; only the test's own containers
 * are touched.
 */

#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/warden-docker-client.h"
#include "sandbox/warden-docker-sandbox.h"
#include "sandbox/warden-owner.h"
#include "warden-test-util.h"

static const char *
test_image (void)
{
  const char *image = g_getenv ("WARDEN_TEST_IMAGE");

  return image ? image : "warden-test-busybox:latest";
}

static GAsyncResult *
wait_result (GAsyncResult **slot)
{
  warden_test_wait_result (slot);
  return *slot;
}

static gboolean
need_docker (void)
{
  return !warden_test_skip_without_docker ();
}

/* A process that is gone, and its record: a child, reaped. */
static char *
dead_record (void)
{
  const char *argv[] = { "true", NULL };
  g_autoptr(GError) error = NULL;
  char *record;
  GPid child;
  int status;

  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL,
                                G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                &child, &error));
  g_assert_no_error (error);
  /* Read while it is a zombie: its start time is still there. */
  while (warden_owner_start_time (child) == 0 || kill (child, 0) != 0)
    g_usleep (1000);
  record = warden_owner_record_of_process (child, "warden-cli");
  waitpid (child, &status, 0);
  g_spawn_close_pid (child);
  return record;
}

/* @record with field @i replaced. */
static char *
with_field (const char *record,
            guint       i,
            const char *value)
{
  g_auto(GStrv) f = g_strsplit (record, "\t", -1);

  g_free (f[i]);
  f[i] = g_strdup (value);
  return g_strjoinv ("\t", f);
}

/* ------------------------------------------------------------------------ */
/* Owner records */

static void
test_owner_records (void)
{
  g_autofree char *me = warden_owner_record_self ();
  g_autofree char *dead = dead_record ();
  g_autofree char *rebooted = with_field (dead, 4, "00000000-1111-2222-3333-444444444444");
  g_autofree char *other_boot = with_field (rebooted, 6, "another-machine-id");
  g_autofree char *other_ns = with_field (dead, 5, "pid:[1]");
  g_autofree char *other_host_here = with_field (me, 0, "elsewhere.example");
  g_autofree char *reused = NULL;
  g_autofree char *legacy = g_strdup_printf ("%s:%d", g_get_host_name (), 999999999);
  g_autofree char *why = NULL;
  g_autofree char *start = NULL;

  g_assert_cmpint (warden_owner_life (me), ==, WARDEN_OWNER_ALIVE);
  g_assert_true (warden_owner_same (me, me));
  g_assert_cmpint (warden_owner_life (dead), ==, WARDEN_OWNER_GONE);
  /* Another machine on the same engine, or the same kernel seen from
   * another PID namespace: its pids are not ours to look up. */
  g_assert_cmpint (warden_owner_life (other_boot), ==, WARDEN_OWNER_UNKNOWN);
  g_assert_cmpint (warden_owner_life (other_ns), ==, WARDEN_OWNER_UNKNOWN);
  /* This machine (host name and machine id) booted since: that boot's
   * processes are gone. */
  g_assert_cmpint (warden_owner_life (rebooted), ==, WARDEN_OWNER_GONE);
  /* The host name alone says nothing: a container with a name of its own
   * that shares this PID namespace is checked as one of ours. */
  g_assert_cmpint (warden_owner_life (other_host_here), ==, WARDEN_OWNER_ALIVE);
  /* An older Warden's "host:pid": where it ran is not known. */
  g_assert_cmpint (warden_owner_life (legacy), ==, WARDEN_OWNER_UNKNOWN);
  g_assert_cmpint (warden_owner_life (""), ==, WARDEN_OWNER_UNKNOWN);
  /* Our pid, another start time: a process that got the pid of a dead one. */
  start = g_strdup_printf ("%" G_GUINT64_FORMAT, warden_owner_start_time (getpid ()) + 1);
  reused = with_field (me, 2, start);
  g_assert_cmpint (warden_owner_life (reused), ==, WARDEN_OWNER_GONE);

  /* What the user reads when something is left alone. */
  why = warden_owner_why_kept (other_ns);
  g_assert_nonnull (strstr (why, "cannot be checked from here"));
  g_clear_pointer (&why, g_free);
  why = warden_owner_why_kept (legacy);
  g_assert_nonnull (strstr (why, "older Warden"));
  g_assert_null (warden_owner_why_kept (dead));
}

/* ------------------------------------------------------------------------ */
/* Docker: what cleanup removes */

static char *
create_labelled (WardenDockerClient *client,
                 const char         *owner_record,
                 const char         *legacy_owner)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) config = NULL;
  g_autoptr(GError) error = NULL;
  GAsyncResult *res = NULL;
  char *id;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "Image");
  json_builder_add_string_value (b, test_image ());
  json_builder_set_member_name (b, "Cmd");
  json_builder_begin_array (b);
  json_builder_add_string_value (b, "true");
  json_builder_end_array (b);
  json_builder_set_member_name (b, "Labels");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, WARDEN_DOCKER_LABEL);
  json_builder_add_string_value (b, "1");
  if (legacy_owner != NULL)
    {
      json_builder_set_member_name (b, WARDEN_DOCKER_LABEL ".owner");
      json_builder_add_string_value (b, legacy_owner);
    }
  if (owner_record != NULL)
    {
      json_builder_set_member_name (b, WARDEN_DOCKER_OWNER_LABEL);
      json_builder_add_string_value (b, owner_record);
    }
  json_builder_end_object (b);
  json_builder_end_object (b);
  config = json_builder_get_root (b);
  warden_docker_client_container_create_async (client, NULL, config, NULL,
                                               warden_test_keep_result_cb, &res);
  id = warden_docker_client_container_create_finish (client, wait_result (&res), &error);
  g_assert_no_error (error);
  g_clear_object (&res);
  return id;
}

static GStrv
cleanup (WardenDockerClient *client,
         GStrv              *kept)
{
  g_autoptr(GError) error = NULL;
  GAsyncResult *res = NULL;
  GStrv removed;

  warden_docker_sandbox_cleanup_async (client, NULL, warden_test_keep_result_cb, &res);
  removed = warden_docker_sandbox_cleanup_finish_full (client, wait_result (&res), kept, &error);
  g_clear_object (&res);
  g_assert_no_error (error);
  return removed;
}

static void
remove_container (WardenDockerClient *client,
                  const char         *id)
{
  GAsyncResult *res = NULL;

  warden_docker_client_container_remove_async (client, id, NULL, warden_test_keep_result_cb,
                                               &res);
  g_assert_true (warden_docker_client_container_remove_finish (client, wait_result (&res), NULL));
  g_clear_object (&res);
}

static gboolean
kept_says (GStrv       kept,
           const char *id,
           const char *words)
{
  for (guint i = 0; kept != NULL && kept[i] != NULL; i++)
    if (strncmp (kept[i], id, 12) == 0 && strstr (kept[i], words) != NULL)
      return TRUE;
  return FALSE;
}

/* Two machines on one engine, a second Warden in a container, an older
 * Warden: cleanup cannot tell whether they run, so their containers stay,
 * and it says why. Only a provably dead owner's go. */
static void
test_docker_cleanup_only_provably_dead (void)
{
  g_autoptr(WardenDockerClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dead = NULL;
  g_autofree char *other_machine = NULL;
  g_autofree char *other_ns = NULL;
  g_autofree char *me = warden_owner_record_self ();
  g_autofree char *legacy_dead = g_strdup_printf ("%s:%d", g_get_host_name (), 999999999);
  g_autofree char *legacy_other = g_strdup_printf ("another-host:%d", (int) getpid () + 1);
  g_auto(GStrv) removed = NULL;
  g_auto(GStrv) kept = NULL;
  char *ids[6];

  if (!need_docker ())
    return;
  client = warden_docker_client_new_from_env (&error);
  g_assert_no_error (error);

  dead = dead_record ();
  {
    g_autofree char *booted = with_field (dead, 4, "00000000-1111-2222-3333-444444444444");
    g_autofree char *machine = with_field (booted, 6, "another-machine-id");

    other_machine = with_field (machine, 0, "another-host");
  }
  other_ns = with_field (dead, 5, "pid:[1]");

  ids[0] = create_labelled (client, dead, legacy_dead);
  ids[1] = create_labelled (client, other_machine, legacy_other);
  ids[2] = create_labelled (client, other_ns, legacy_dead);
  ids[3] = create_labelled (client, NULL, legacy_dead);      /* an older Warden's */
  ids[4] = create_labelled (client, NULL, legacy_other);
  ids[5] = create_labelled (client, me, NULL);               /* this live process's */

  removed = cleanup (client, &kept);
  for (guint i = 0; kept != NULL && kept[i] != NULL; i++)
    g_test_message ("kept %s", kept[i]);
  g_assert_true (g_strv_contains ((const char * const *) removed, ids[0]));
  for (guint i = 1; i < G_N_ELEMENTS (ids); i++)
    g_assert_false (g_strv_contains ((const char * const *) removed, ids[i]));
  g_assert_true (kept_says (kept, ids[1], "cannot be checked from here"));
  g_assert_true (kept_says (kept, ids[2], "cannot be checked from here"));
  g_assert_true (kept_says (kept, ids[3], "older Warden"));
  g_assert_true (kept_says (kept, ids[5], "still runs"));

  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      remove_container (client, ids[i]);
      g_free (ids[i]);
    }
}

/* A sandbox's container names its owner as precisely as the records above. */
static void
test_docker_container_names_owner (void)
{
  g_autofree char *workspace = g_dir_make_tmp ("warden-test-life-XXXXXX", NULL);
  g_autoptr(WardenSandboxConfig) config = warden_sandbox_config_new (workspace);
  g_autoptr(WardenDockerClient) client = NULL;
  g_autoptr(WardenSandbox) sandbox = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) inspected = NULL;
  g_autofree char *me = warden_owner_record_self ();
  JsonObject *labels;
  GAsyncResult *res = NULL;

  if (!need_docker ())
    {
      g_rmdir (workspace);
      return;
    }
  client = warden_docker_client_new_from_env (&error);
  g_assert_no_error (error);
  config->image = g_strdup (test_image ());
  sandbox = warden_docker_sandbox_new_for_client (config, client);
  warden_sandbox_prepare_async (sandbox, NULL, warden_test_keep_result_cb, &res);
  warden_sandbox_prepare_finish (sandbox, wait_result (&res), &error);
  g_assert_no_error (error);
  g_clear_object (&res);

  warden_docker_client_container_inspect_async (client, warden_sandbox_get_container_id (sandbox),
                                                NULL, warden_test_keep_result_cb, &res);
  inspected = warden_docker_client_container_inspect_finish (client, wait_result (&res), &error);
  g_assert_no_error (error);
  g_clear_object (&res);
  labels = json_object_get_object_member (json_object_get_object_member (
                                            json_node_get_object (inspected), "Config"),
                                          "Labels");
  g_assert_true (warden_owner_same (json_object_get_string_member (labels,
                                                                   WARDEN_DOCKER_OWNER_LABEL),
                                    me));

  warden_sandbox_destroy_async (sandbox, NULL, warden_test_keep_result_cb, &res);
  g_assert_true (warden_sandbox_destroy_finish (sandbox, wait_result (&res), NULL));
  g_clear_object (&res);
  warden_test_remove_tree (workspace);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/lifecycle/owner/records", test_owner_records);
  g_test_add_func ("/lifecycle/docker/cleanup-only-provably-dead",
                   test_docker_cleanup_only_provably_dead);
  g_test_add_func ("/lifecycle/docker/container-names-owner", test_docker_container_names_owner);
  return g_test_run ();
}
