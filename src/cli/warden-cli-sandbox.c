/* warden-cli-sandbox.c: warden-cli sandbox exec, cleanup and bench
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-cli"

#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "warden-cli.h"

#include "engine/warden-docker-client.h"
#include "sandbox/warden-docker-sandbox.h"
#include "workspace/warden-workspace-check.h"

#define EXIT_TIMEOUT 124
#define EXIT_SANDBOX 125

/* Waits for one async result on the default main context. */
typedef struct
{
  GMainLoop    *loop;
  GAsyncResult *result;
} Waiter;

static void
waiter_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Waiter *w = user_data;

  w->result = g_object_ref (result);
  g_main_loop_quit (w->loop);
}

static GAsyncResult *
waiter_run (Waiter *w)
{
  g_main_loop_run (w->loop);
  return w->result;
}

static void
waiter_clear (Waiter *w)
{
  g_clear_object (&w->result);
}

static void
progress_cb (WardenSandbox *sandbox,
             double         fraction,
             const char    *message,
             gpointer       user_data)
{
  if (fraction >= 0)
    fprintf (stderr, "warden-cli: %s (%.0f%%)\n", message, fraction * 100);
  else
    fprintf (stderr, "warden-cli: %s\n", message);
}

static void
output_cb (WardenStream  stream,
           const char   *data,
           gsize         length,
           gpointer      user_data)
{
  FILE *f = stream == WARDEN_STREAM_STDERR ? stderr : stdout;

  fwrite (data, 1, length, f);
  fflush (f);
}

/* Docker if an engine answers, otherwise bubblewrap. */
WardenSandboxKind
warden_cli_default_backend (GMainLoop *loop)
{
  g_autoptr(WardenDockerClient) client = warden_docker_client_new_from_env (NULL);
  Waiter w = { loop, NULL };
  gboolean ok;

  if (client == NULL)
    return WARDEN_SANDBOX_KIND_BWRAP;
  warden_docker_client_ping_async (client, NULL, waiter_cb, &w);
  ok = warden_docker_client_ping_finish (client, waiter_run (&w), NULL);
  waiter_clear (&w);
  return ok ? WARDEN_SANDBOX_KIND_DOCKER : WARDEN_SANDBOX_KIND_BWRAP;
}

gboolean
warden_cli_parse_backend (const char        *text,
                          GMainLoop         *loop,
                          WardenSandboxKind *kind)
{
  *kind = WARDEN_SANDBOX_KIND_AUTO;
  if (text != NULL && !warden_sandbox_kind_from_string (text, kind))
    {
      warden_cli_error ("unknown backend “%s”: use docker, bwrap, host or auto", text);
      return FALSE;
    }
  if (*kind == WARDEN_SANDBOX_KIND_AUTO)
    *kind = warden_cli_default_backend (loop);
  return TRUE;
}

static int
sandbox_exec (int    argc,
              char **argv)
{
  g_autofree char *backend = NULL;
  g_autofree char *image = NULL;
  g_autofree char *network = NULL;
  g_autofree char *workspace = NULL;
  g_autofree char *cwd = NULL;
  WardenSandboxKind kind;
  WardenNetworkMode network_mode = WARDEN_NETWORK_NONE;
  g_auto(GStrv) env = NULL;
  int timeout = 0;
  GOptionEntry entries[] = {
    { "backend", 'b', 0, G_OPTION_ARG_STRING, &backend, "docker, bwrap, host or auto",
      "BACKEND" },
    { "image", 'i', 0, G_OPTION_ARG_STRING, &image, "The Docker image", "IMAGE" },
    { "network", 'n', 0, G_OPTION_ARG_STRING, &network, "none (default) or bridge", "NETWORK" },
    { "workspace", 'w', 0, G_OPTION_ARG_FILENAME, &workspace,
      "The project folder (default: the current one)", "DIR" },
    { "cwd", 0, 0, G_OPTION_ARG_STRING, &cwd, "Where the command runs, inside", "DIR" },
    { "env", 'e', 0, G_OPTION_ARG_STRING_ARRAY, &env, "An extra variable", "NAME=VALUE" },
    { "timeout", 't', 0, G_OPTION_ARG_INT, &timeout, "Seconds (default 300)", "SECONDS" },
    { NULL }
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new ("-- COMMAND | -- PROGRAM ARG…");
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(WardenSandboxConfig) config = NULL;
  g_autoptr(WardenSandbox) sandbox = NULL;
  g_autoptr(WardenExecResult) result = NULL;
  g_autoptr(GString) command = g_string_new (NULL);
  WardenExecRequest request = { 0 };
  Waiter w = { loop, NULL };
  int dashdash = -1;
  int status;

  for (int i = 0; i < argc; i++)
    if (strcmp (argv[i], "--") == 0)
      {
        dashdash = i;
        break;
      }
  /* One word is a command line, as the agent sends it ("make test"); several
   * are an argument vector, as docker exec and podman exec take it: each is
   * quoted, so "sh -c 'echo a; echo b'" runs sh with that script. */
  if (dashdash >= 0 && dashdash + 2 == argc)
    g_string_append (command, argv[dashdash + 1]);
  else if (dashdash >= 0)
    for (int i = dashdash + 1; i < argc; i++)
      {
        g_autofree char *quoted = g_shell_quote (argv[i]);

        g_string_append_printf (command, "%s%s", i > dashdash + 1 ? " " : "", quoted);
      }

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx,
    "One word after \"--\" is a command line, run as /bin/sh -c WORD, as the agent's\n"
    "commands are: -- 'npm test && npm run lint'. Several words are a program and its\n"
    "arguments, each passed as it is, as with docker exec: -- sh -c 'echo a; echo b'.");
  {
    /* Without "--", the options are parsed anyway: --help answers. */
    int opt_argc = dashdash < 0 ? argc : dashdash;

    if (!g_option_context_parse (ctx, &opt_argc, &argv, &error))
      {
        warden_cli_error ("%s", error->message);
        return WARDEN_CLI_EXIT_USAGE;
      }
    if (opt_argc > 1)
      {
        warden_cli_error ("unexpected argument “%s”; put the command after “--”", argv[1]);
        return WARDEN_CLI_EXIT_USAGE;
      }
  }
  if (command->len == 0)
    {
      warden_cli_error ("give the command after “--”");
      return WARDEN_CLI_EXIT_USAGE;
    }
  /* No proxy runs here: an allowlist would be no network at all. */
  if (network != NULL && (!warden_network_mode_from_string (network, &network_mode) ||
                          network_mode == WARDEN_NETWORK_ALLOWLIST))
    {
      warden_cli_error ("--network is none or bridge, not “%s”", network);
      return WARDEN_CLI_EXIT_USAGE;
    }
  if (timeout < 0)
    {
      warden_cli_error ("--timeout must be positive");
      return WARDEN_CLI_EXIT_USAGE;
    }

  {
    g_autofree char *here = g_get_current_dir ();
    g_autoptr(GFile) file = g_file_new_for_commandline_arg (workspace ? workspace : here);
    g_autofree char *real = warden_workspace_check (g_file_peek_path (file), NULL, &error);

    if (real == NULL)
      {
        warden_cli_error ("%s", error->message);
        /* A folder that is not there fails as the sandbox would; a refused
         * one is the caller's to change. */
        return g_error_matches (error, WARDEN_WORKSPACE_CHECK_ERROR,
                                WARDEN_WORKSPACE_CHECK_ERROR_NOT_FOUND)
               ? EXIT_SANDBOX : WARDEN_CLI_EXIT_USAGE;
      }
    config = warden_sandbox_config_new (real);
  }
  config->image = g_strdup (image ? image : (g_getenv ("WARDEN_IMAGE") ? g_getenv ("WARDEN_IMAGE")
                                                                       : WARDEN_DEFAULT_IMAGE));
  config->network = network_mode;

  if (!warden_cli_parse_backend (backend, loop, &kind))
    return WARDEN_CLI_EXIT_USAGE;
  sandbox = warden_sandbox_new_for_kind (kind, config);
  if (!warden_sandbox_get_confined (sandbox))
    warden_cli_error ("note: the host backend does not confine the command");
  g_signal_connect (sandbox, "progress", G_CALLBACK (progress_cb), NULL);

  warden_sandbox_prepare_async (sandbox, NULL, waiter_cb, &w);
  if (!warden_sandbox_prepare_finish (sandbox, waiter_run (&w), &error))
    {
      warden_cli_error ("%s", error->message);
      /* The result holds the sandbox, which holds the engine's connection:
       * an ssh bridge removes its socket only once that is let go. */
      waiter_clear (&w);
      return EXIT_SANDBOX;
    }
  waiter_clear (&w);
  /* Which of the engines there may be took the command: on stderr, so that
   * the command's output stays its own. */
  {
    g_autofree char *engine = warden_sandbox_dup_engine_description (sandbox);

    if (engine != NULL)
      warden_cli_error ("engine: %s", engine);
  }

  request.command = command->str;
  request.cwd = cwd;
  request.env = (const char * const *) env;
  request.timeout_ms = timeout > 0 ? (guint) timeout * 1000 : 0;
  request.output_func = output_cb;
  warden_sandbox_exec_async (sandbox, &request, NULL, waiter_cb, &w);
  result = warden_sandbox_exec_finish (sandbox, waiter_run (&w), &error);
  waiter_clear (&w);

  if (result == NULL)
    status = EXIT_SANDBOX;
  else if (result->timed_out)
    status = EXIT_TIMEOUT;
  else
    status = result->exit_code >= 0 ? result->exit_code : EXIT_SANDBOX;

  {
    g_autoptr(GError) destroy_error = NULL;

    warden_sandbox_destroy_async (sandbox, NULL, waiter_cb, &w);
    if (!warden_sandbox_destroy_finish (sandbox, waiter_run (&w), &destroy_error))
      warden_cli_error ("could not remove the sandbox: %s", destroy_error->message);
    waiter_clear (&w);
  }

  if (result == NULL)
    warden_cli_error ("%s", error->message);
  else if (result->timed_out)
    warden_cli_error ("the command timed out after %d seconds and was killed",
                      timeout > 0 ? timeout : WARDEN_EXEC_DEFAULT_TIMEOUT_MS / 1000);
  return status;
}

static int
sandbox_cleanup (void)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenDockerClient) client = warden_docker_client_new_from_env (&error);
  Waiter w = { loop, NULL };
  g_auto(GStrv) removed = NULL;
  g_auto(GStrv) kept = NULL;

  if (client == NULL)
    {
      warden_cli_error ("%s", error->message);
      return EXIT_SANDBOX;
    }
  warden_docker_sandbox_cleanup_async (client, NULL, waiter_cb, &w);
  removed = warden_docker_sandbox_cleanup_finish_full (client, waiter_run (&w), &kept, &error);
  waiter_clear (&w);
  if (removed == NULL)
    {
      warden_cli_error ("%s", error->message);
      return EXIT_SANDBOX;
    }
  for (guint i = 0; removed[i]; i++)
    printf ("removed %s\n", removed[i]);
  /* Not provably left over: said, with why, and left alone. */
  for (guint i = 0; kept != NULL && kept[i]; i++)
    printf ("kept %s\n", kept[i]);
  printf ("%u container(s) removed\n", g_strv_length (removed));
  return 0;
}

int
warden_cli_sandbox (int    argc,
                    char **argv)
{
  const char *sub = argc > 1 ? argv[1] : NULL;

  if (g_strcmp0 (sub, "exec") == 0)
    return sandbox_exec (argc - 1, argv + 1);
  if (g_strcmp0 (sub, "cleanup") == 0 && argc == 2)
    return sandbox_cleanup ();
  if (g_strcmp0 (sub, "bench") == 0)
    return warden_cli_sandbox_bench (argc - 1, argv + 1);

  warden_cli_error ("usage: warden-cli sandbox exec [OPTIONS] -- COMMAND | cleanup | "
                    "bench [--image IMAGE] [-n N]");
  return WARDEN_CLI_EXIT_USAGE;
}
