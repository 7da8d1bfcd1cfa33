/* warden-cli-sandbox-bench.c: exec through the Engine API against the engine's CLI
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-cli"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warden-cli.h"

#include "sandbox/warden-docker-sandbox.h"

/* Warm runner round trips in each round, one after the other. */
#define WARM_PER_ROUND 5

static void
done_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

/* Iterates the default context until the call completes. */
static GAsyncResult *
wait_for (GAsyncResult **slot)
{
  while (*slot == NULL)
    g_main_context_iteration (NULL, TRUE);
  return *slot;
}

static int
compare_double (gconstpointer a,
                gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (GArray *values)
{
  g_array_sort (values, compare_double);
  if (values->len % 2)
    return g_array_index (values, double, values->len / 2);
  return (g_array_index (values, double, values->len / 2 - 1) +
          g_array_index (values, double, values->len / 2)) / 2;
}

static gboolean
prepare (WardenSandbox  *sandbox,
         GError        **error)
{
  GAsyncResult *res = NULL;
  gboolean ok;

  warden_sandbox_prepare_async (sandbox, NULL, done_cb, &res);
  ok = warden_sandbox_prepare_finish (sandbox, wait_for (&res), error);
  g_clear_object (&res);
  return ok;
}

static void
destroy (WardenSandbox *sandbox)
{
  GAsyncResult *res = NULL;

  warden_sandbox_destroy_async (sandbox, NULL, done_cb, &res);
  warden_sandbox_destroy_finish (sandbox, wait_for (&res), NULL);
  g_clear_object (&res);
}

/* The engines there are: the one Warden would use first, then the first
 * Docker and the first Podman of the usual sockets that answer; one of
 * each kind. */
static GPtrArray *
find_engines (void)
{
  g_autoptr(GPtrArray) engines = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) hosts = g_ptr_array_new_with_free_func (g_free);
  const char *container_host = g_getenv ("CONTAINER_HOST");
  gboolean seen[WARDEN_DOCKER_ENGINE_PODMAN + 1] = { FALSE, };

  g_ptr_array_add (hosts, warden_docker_client_find_host ());
  if (container_host != NULL && container_host[0] != '\0')
    g_ptr_array_add (hosts, g_strdup (container_host));
  g_ptr_array_add (hosts, g_strdup ("unix:///var/run/docker.sock"));
  g_ptr_array_add (hosts, g_strconcat ("unix://", g_get_user_runtime_dir (),
                                       "/podman/podman.sock", NULL));
  g_ptr_array_add (hosts, g_strdup ("unix:///run/podman/podman.sock"));

  for (guint i = 0; i < hosts->len; i++)
    {
      const char *host = g_ptr_array_index (hosts, i);
      g_autoptr(WardenDockerClient) client = NULL;
      g_autoptr(GError) error = NULL;
      GAsyncResult *res = NULL;
      WardenDockerEngineKind kind;

      if (g_str_has_prefix (host, "unix://") &&
          !g_file_test (host + strlen ("unix://"), G_FILE_TEST_EXISTS))
        continue;
      client = warden_docker_client_new (host, NULL, &error);
      if (client == NULL)
        continue;
      warden_docker_client_query_engine_async (client, NULL, done_cb, &res);
      if (!warden_docker_client_query_engine_finish (client, wait_for (&res), &error))
        {
          /* The first is the one the user asked for: say why it is left out. */
          if (i == 0)
            warden_cli_error ("%s", error->message);
          g_clear_object (&res);
          continue;
        }
      g_clear_object (&res);
      kind = warden_docker_client_get_engine_kind (client);
      if (seen[kind])
        continue;
      seen[kind] = TRUE;
      g_ptr_array_add (engines, g_steal_pointer (&client));
    }
  return g_steal_pointer (&engines);
}

/* Times one engine: @n rounds, each one command through the Engine API,
 * WARM_PER_ROUND through the warm runner, one through the engine's own CLI
 * (when it is installed), interleaved so that all see the same load.
 * Prints its figures; FALSE when a command failed. */
static gboolean
bench_engine (WardenDockerClient        *client,
              const WardenSandboxConfig *config,
              int                        n)
{
  const char *command = warden_docker_client_get_engine_command (client);
  g_autofree char *program = g_find_program_in_path (command);
  g_autofree char *engine = warden_docker_client_dup_engine_description (client);
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSandbox) sandbox = NULL;
  g_autoptr(WardenSandbox) warm_sandbox = NULL;
  g_autoptr(GArray) api = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) warm = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) cli = g_array_new (FALSE, FALSE, sizeof (double));
  GAsyncResult *res = NULL;
  double a, w;

  /* One container whose commands go through the Engine API, one where the
   * warm runner starts them. */
  sandbox = warden_docker_sandbox_new_for_client (config, client);
  g_setenv ("WARDEN_NO_WARM_RUNNER", "1", TRUE);
  if (!prepare (sandbox, &error))
    {
      g_unsetenv ("WARDEN_NO_WARM_RUNNER");
      warden_cli_error ("%s: %s", engine, error->message);
      return FALSE;
    }
  g_unsetenv ("WARDEN_NO_WARM_RUNNER");
  warm_sandbox = warden_docker_sandbox_new_for_client (config, client);
  if (!prepare (warm_sandbox, &error))
    {
      warden_cli_error ("%s: %s", engine, error->message);
      destroy (sandbox);
      return FALSE;
    }
  if (program == NULL)
    warden_cli_error ("%s: the %s command is not installed: no CLI figure for it", engine,
                      command);

  for (int i = 0; i < n; i++)
    {
      WardenExecRequest request = { .command = "true" };
      g_autoptr(WardenExecResult) result = NULL;
      /* The CLI through the same socket: `docker -H HOST` and
       * `podman --url HOST` take the same argument. */
      const char *cli_argv[] = { program, strcmp (command, "podman") == 0 ? "--url" : "-H",
                                 warden_docker_client_get_host (client), "exec",
                                 warden_sandbox_get_container_id (sandbox), "sh", "-c", "true",
                                 NULL };
      gint64 t0 = g_get_monotonic_time ();
      double ms;
      int status = 0;

      warden_sandbox_exec_async (sandbox, &request, NULL, done_cb, &res);
      result = warden_sandbox_exec_finish (sandbox, wait_for (&res), &error);
      g_clear_object (&res);
      if (result == NULL || result->exit_code != 0)
        {
          warden_cli_error ("exec through the API failed: %s",
                            error ? error->message : "non-zero exit");
          break;
        }
      ms = (g_get_monotonic_time () - t0) / 1000.0;
      g_array_append_val (api, ms);

      /* A few in a row, as an agent's commands come: the first after a
       * CLI run pays for the caches that run emptied. */
      for (int k = 0; k < WARM_PER_ROUND; k++)
        {
          g_autoptr(WardenExecResult) warm_result = NULL;

          t0 = g_get_monotonic_time ();
          warden_sandbox_exec_async (warm_sandbox, &request, NULL, done_cb, &res);
          warm_result = warden_sandbox_exec_finish (warm_sandbox, wait_for (&res), &error);
          g_clear_object (&res);
          if (warm_result == NULL || warm_result->exit_code != 0)
            {
              warden_cli_error ("exec through the warm runner failed: %s",
                                error ? error->message : "non-zero exit");
              break;
            }
          ms = (g_get_monotonic_time () - t0) / 1000.0;
          g_array_append_val (warm, ms);
        }

      if (program == NULL)
        continue;
      t0 = g_get_monotonic_time ();
      if (!g_spawn_sync (NULL, (char **) cli_argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL |
                         G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error) ||
          status != 0)
        {
          warden_cli_error ("%s exec failed: %s", command,
                            error ? error->message : "non-zero exit");
          break;
        }
      ms = (g_get_monotonic_time () - t0) / 1000.0;
      g_array_append_val (cli, ms);
    }

  destroy (sandbox);
  destroy (warm_sandbox);

  if (api->len < (guint) n || warm->len < (guint) n * WARM_PER_ROUND ||
      (program != NULL && cli->len < (guint) n))
    return FALSE;

  a = median (api);
  w = median (warm);
  printf ("engine=\"%s\" host=%s\n", engine, warden_docker_client_get_host (client));
  if (program != NULL)
    {
      double c = median (cli);

      printf ("api_median_ms=%.1f cli_median_ms=%.1f ratio=%.2f\n", a, c, c / a);
      /* The warm runner against the engine's CLI and the Engine API. */
      printf ("warm_median_ms=%.2f warm_ratio=%.1f warm_api_ratio=%.1f (%u warm round trips)\n",
              w, c / w, a / w, warm->len);
    }
  else
    {
      printf ("api_median_ms=%.1f\n", a);
      printf ("warm_median_ms=%.2f warm_api_ratio=%.1f (%u warm round trips)\n",
              w, a / w, warm->len);
    }
  return TRUE;
}

int
warden_cli_sandbox_bench (int    argc,
                          char **argv)
{
  g_autofree char *image = NULL;
  int n = 30;
  GOptionEntry entries[] = {
    { "image", 'i', 0, G_OPTION_ARG_STRING, &image, "The container image", "IMAGE" },
    { "n", 'n', 0, G_OPTION_ARG_INT, &n, "Round trips of each kind (default 30)", "N" },
    { NULL }
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSandboxConfig) config = NULL;
  g_autoptr(GPtrArray) engines = NULL;
  g_autofree char *workspace = NULL;
  gboolean ok = TRUE;

  g_option_context_set_summary (ctx, "Times a command's round trip in each container engine "
                                     "there is (Docker, Podman): through the Engine API, the "
                                     "warm runner and the engine's own CLI.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc > 1 || n < 1)
    {
      warden_cli_error ("%s", error ? error->message : "usage: sandbox bench [--image IMG] [-n N]");
      return WARDEN_CLI_EXIT_USAGE;
    }
  engines = find_engines ();
  if (engines->len == 0)
    {
      warden_cli_error ("no container engine answers: start Docker (sudo systemctl start "
                        "docker) or Podman's socket (systemctl --user enable --now "
                        "podman.socket)");
      return 125;
    }

  workspace = g_dir_make_tmp ("warden-bench-XXXXXX", NULL);
  config = warden_sandbox_config_new (workspace);
  config->image = g_strdup (image ? image : (g_getenv ("WARDEN_IMAGE") ? g_getenv ("WARDEN_IMAGE")
                                                                       : WARDEN_DEFAULT_IMAGE));
  printf ("image=%s rounds=%d\n", config->image, n);
  fflush (stdout);
  /* One engine after the other: two at once would share the machine. */
  for (guint i = 0; i < engines->len; i++)
    {
      ok = bench_engine (g_ptr_array_index (engines, i), config, n) && ok;
      fflush (stdout);
    }
  g_rmdir (workspace);
  return ok ? 0 : 125;
}
