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

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/warden-cgroup.h"
#include "engine/warden-docker-client.h"
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

/* ------------------------------------------------------------------------ */
/* bwrap: nothing Warden starts outlives it */

/* The pids of the processes whose command line holds @marker. */
static GArray *
processes_with (const char *marker)
{
  GArray *pids = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr(GDir) dir = g_dir_open ("/proc", 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autofree char *cmdline = NULL;
      gsize length = 0;
      int pid = atoi (name);

      if (pid <= 0 || pid == getpid ())
        continue;
      path = g_strdup_printf ("/proc/%d/cmdline", pid);
      if (!g_file_get_contents (path, &cmdline, &length, NULL))
        continue;
      for (gsize i = 0; i + 1 < length; i++)
        if (cmdline[i] == '\0')
          cmdline[i] = ' ';
      if (strstr (cmdline, marker) != NULL)
        g_array_append_val (pids, pid);
    }
  return pids;
}

static void
log_processes (GArray *pids)
{
  for (guint i = 0; i < pids->len; i++)
    {
      int pid = g_array_index (pids, int, i);
      g_autofree char *path = g_strdup_printf ("/proc/%d/stat", pid);
      g_autofree char *stat = NULL;

      g_file_get_contents (path, &stat, NULL, NULL);
      g_test_message ("left: %s", stat ? stat : "?");
    }
}

/* warden-cli sandbox exec with bwrap, killed with SIGKILL at moments
 * spread over the sandbox's start and the command's run: whatever it
 * started goes with it (waited for: the kernel delivers the parent-death
 * signals a moment later). */
static void
test_bwrap_killed_leaves_nothing (gconstpointer data)
{
  const char *network = data;
  const char *cli = g_getenv ("WARDEN_CLI");
  g_autofree char *workspace = g_dir_make_tmp ("warden-test-life-XXXXXX", NULL);
  g_autofree char *run = g_strdup_printf ("warden-life-%08x-", g_random_int ());
  g_autoptr(GArray) late = NULL;
  guint left_over = 0;

  if (cli == NULL || !g_file_test ("/usr/bin/bwrap", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("no warden-cli or no bwrap");
      g_rmdir (workspace);
      return;
    }
  for (guint i = 0; i < 30; i++)
    {
      g_autofree char *marker = g_strdup_printf ("%s%u.", run, i);
      g_autofree char *command = g_strdup_printf ("sleep 600; : %s", marker);
      const char *argv[] = { cli, "sandbox", "exec", "--backend", "bwrap", "--network", network,
                             "--workspace", workspace, "--", command, NULL };
      g_autoptr(GSubprocess) proc = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(GArray) pids = NULL;
      gint64 deadline;

      proc = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                      G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error);
      g_assert_no_error (error);
      /* The fault's moment: from right away to well into the command. */
      g_usleep (i * 10000);
      pids = processes_with (marker);
      g_test_message ("killed with %u process(es) of its sandbox running", pids->len);
      g_clear_pointer (&pids, g_array_unref);
      g_subprocess_send_signal (proc, SIGKILL);
      g_subprocess_wait (proc, NULL, NULL);

      deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
      while ((pids = processes_with (marker))->len > 0 && g_get_monotonic_time () < deadline)
        {
          g_array_unref (pids);
          g_usleep (10000);
        }
      if (pids->len > 0)
        {
          g_test_message ("killed after %u ms: %u process(es) outlived warden-cli", i * 10,
                          pids->len);
          log_processes (pids);
          for (guint k = 0; k < pids->len; k++)
            kill (g_array_index (pids, int, k), SIGKILL);
          left_over++;
        }
    }
  /* Once more at the end: a process that showed no command line at its
   * check (caught between clone and exec) shows it now. */
  late = processes_with (run);
  log_processes (late);
  for (guint k = 0; k < late->len; k++)
    kill (g_array_index (late, int, k), SIGKILL);
  warden_test_remove_tree (workspace);
  g_assert_cmpuint (left_over, ==, 0);
  g_assert_cmpuint (late->len, ==, 0);
}

/* ------------------------------------------------------------------------ */
/* bwrap's control groups: a Warden's start removes a dead one's, and what
 * runs in them; not those of a Warden it cannot check */

static char *
group_in (const char *parent,
          const char *name,
          GPid       *inside)
{
  g_autofree char *dir = g_build_filename (parent, name, NULL);
  g_autofree char *procs = g_build_filename (dir, "cgroup.procs", NULL);
  g_autofree char *pid = NULL;
  const char *argv[] = { "sleep", "600", NULL };
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL,
                                G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                inside, &error));
  g_assert_no_error (error);
  pid = g_strdup_printf ("%d", (int) *inside);
  {
    /* One write(2): the kernel takes it as one value. */
    int fd = open (procs, O_WRONLY | O_CLOEXEC);

    g_assert_cmpint (fd, >=, 0);
    g_assert_cmpint (write (fd, pid, strlen (pid)), ==, (gssize) strlen (pid));
    close (fd);
  }
  return g_steal_pointer (&dir);
}

static gboolean
reaped_dead (GPid pid)
{
  int status;

  return waitpid (pid, &status, WNOHANG) == pid;
}

static void
test_cgroup_stale_by_owner (void)
{
  g_autoptr(WardenCgroup) probe = NULL;
  g_autofree char *parent = NULL;
  g_autofree char *dead = dead_record ();
  g_auto(GStrv) f = g_strsplit (dead, "\t", -1);
  guint64 ns = warden_owner_pid_namespace ();
  g_autofree char *stale_name = NULL;
  g_autofree char *other_ns_name = NULL;
  g_autofree char *stale = NULL;
  g_autofree char *other_ns = NULL;
  g_autoptr(WardenCgroup) next = NULL;
  GPid in_stale, in_other;
  gint64 deadline;

  if (!warden_cgroup_supported () || ns == 0)
    {
      g_test_skip ("no control groups of our own here");
      return;
    }
  probe = warden_cgroup_new (16, 0, NULL);
  g_assert_nonnull (probe);
  parent = g_path_get_dirname (warden_cgroup_get_path (probe));

  /* A dead Warden of this PID namespace, its command still running; one of
   * another namespace (pid 1 there: nothing here can say). */
  stale_name = g_strdup_printf ("warden-%s-%s-%" G_GUINT64_FORMAT "-1-%08x", f[1], f[2], ns,
                                g_random_int ());
  other_ns_name = g_strdup_printf ("warden-1-%s-%" G_GUINT64_FORMAT "-1-%08x", f[2], ns + 1,
                                   g_random_int ());
  stale = group_in (parent, stale_name, &in_stale);
  other_ns = group_in (parent, other_ns_name, &in_other);

  next = warden_cgroup_new (16, 0, NULL);
  g_assert_nonnull (next);

  deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (!reaped_dead (in_stale) && g_get_monotonic_time () < deadline)
    g_usleep (1000);
  g_assert_cmpint (kill (in_stale, 0), !=, 0);
  while (g_file_test (stale, G_FILE_TEST_EXISTS) && g_get_monotonic_time () < deadline)
    {
      warden_cgroup_remove (next);
      g_clear_pointer (&next, warden_cgroup_free);
      next = warden_cgroup_new (16, 0, NULL);
    }
  g_assert_false (g_file_test (stale, G_FILE_TEST_EXISTS));
  /* The other namespace's stays, and what runs in it. */
  g_assert_true (g_file_test (other_ns, G_FILE_TEST_IS_DIR));
  g_assert_false (reaped_dead (in_other));

  kill (in_other, SIGKILL);
  waitpid (in_other, NULL, 0);
  while (rmdir (other_ns) != 0 && errno == EBUSY)
    g_usleep (1000);
  warden_cgroup_remove (probe);
  warden_cgroup_remove (next);
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
  g_test_add_func ("/lifecycle/cgroup/stale-by-owner", test_cgroup_stale_by_owner);
  g_test_add_data_func ("/lifecycle/bwrap/killed-leaves-nothing", "none",
                        test_bwrap_killed_leaves_nothing);
  /* With slirp4netns beside the sandbox. */
  g_test_add_data_func ("/lifecycle/bwrap/killed-leaves-nothing-network", "bridge",
                        test_bwrap_killed_leaves_nothing);
  return g_test_run ();
}
