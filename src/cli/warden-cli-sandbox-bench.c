/* warden-cli-sandbox-bench.c: exec through the Engine API against docker exec
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

int
warden_cli_sandbox_bench (int    argc,
                          char **argv)
{
  g_autofree char *image = NULL;
  int n = 30;
  GOptionEntry entries[] = {
    { "image", 'i', 0, G_OPTION_ARG_STRING, &image, "The Docker image", "IMAGE" },
    { "n", 'n', 0, G_OPTION_ARG_INT, &n, "Round trips of each kind (default 30)", "N" },
    { NULL }
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSandboxConfig) config = NULL;
  g_autoptr(WardenSandbox) sandbox = NULL;
  g_autoptr(WardenSandbox) warm_sandbox = NULL;
  g_autoptr(GArray) api = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) warm = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) cli = g_array_new (FALSE, FALSE, sizeof (double));
  g_autofree char *docker = g_find_program_in_path ("docker");
  g_autofree char *workspace = g_dir_make_tmp ("warden-bench-XXXXXX", NULL);
  GAsyncResult *res = NULL;
  double a, c, w;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc > 1 || n < 1)
    {
      warden_cli_error ("%s", error ? error->message : "usage: sandbox bench [--image IMG] [-n N]");
      return WARDEN_CLI_EXIT_USAGE;
    }
  if (docker == NULL)
    {
      warden_cli_error ("the docker command is not installed: it is what the benchmark "
                        "compares with (install docker.io)");
      return 125;
    }

  config = warden_sandbox_config_new (workspace);
  config->image = g_strdup (image ? image : (g_getenv ("WARDEN_IMAGE") ? g_getenv ("WARDEN_IMAGE")
                                                                       : "debian:bookworm-slim"));
  /* One container whose commands go through the Engine API, one where the
   * warm runner starts them. */
  sandbox = warden_docker_sandbox_new (config);
  g_setenv ("WARDEN_NO_WARM_RUNNER", "1", TRUE);
  warden_sandbox_prepare_async (sandbox, NULL, done_cb, &res);
  if (!warden_sandbox_prepare_finish (sandbox, wait_for (&res), &error))
    {
      warden_cli_error ("%s", error->message);
      g_clear_object (&res);
      g_rmdir (workspace);
      return 125;
    }
  g_clear_object (&res);
  g_unsetenv ("WARDEN_NO_WARM_RUNNER");
  warm_sandbox = warden_docker_sandbox_new (config);
  warden_sandbox_prepare_async (warm_sandbox, NULL, done_cb, &res);
  if (!warden_sandbox_prepare_finish (warm_sandbox, wait_for (&res), &error))
    {
      warden_cli_error ("%s", error->message);
      g_clear_object (&res);
      g_rmdir (workspace);
      return 125;
    }
  g_clear_object (&res);

  /* Interleaved, so both see the same machine load. */
  for (int i = 0; i < n; i++)
    {
      WardenExecRequest request = { .command = "true" };
      g_autoptr(WardenExecResult) result = NULL;
      const char *cli_argv[] = { docker, "exec", warden_sandbox_get_container_id (sandbox),
                                 "sh", "-c", "true", NULL };
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
       * docker CLI run pays for the caches that run emptied. */
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

      t0 = g_get_monotonic_time ();
      if (!g_spawn_sync (NULL, (char **) cli_argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL |
                         G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error) ||
          status != 0)
        {
          warden_cli_error ("docker exec failed: %s", error ? error->message : "non-zero exit");
          break;
        }
      ms = (g_get_monotonic_time () - t0) / 1000.0;
      g_array_append_val (cli, ms);
    }

  warden_sandbox_destroy_async (sandbox, NULL, done_cb, &res);
  warden_sandbox_destroy_finish (sandbox, wait_for (&res), NULL);
  g_clear_object (&res);
  warden_sandbox_destroy_async (warm_sandbox, NULL, done_cb, &res);
  warden_sandbox_destroy_finish (warm_sandbox, wait_for (&res), NULL);
  g_clear_object (&res);
  g_rmdir (workspace);

  if (api->len < (guint) n || cli->len < (guint) n || warm->len < (guint) n * WARM_PER_ROUND)
    return 125;

  a = median (api);
  c = median (cli);
  w = median (warm);
  printf ("image=%s rounds=%d\n", config->image, n);
  printf ("api_median_ms=%.1f cli_median_ms=%.1f ratio=%.2f\n", a, c, c / a);
  /* The warm runner against the docker CLI and the Engine API. */
  printf ("warm_median_ms=%.2f warm_ratio=%.1f warm_api_ratio=%.1f (%u warm round trips)\n", w,
          c / w, a / w, warm->len);
  return 0;
}
