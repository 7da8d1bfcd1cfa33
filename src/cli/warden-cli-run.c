/* warden-cli-run.c: warden-cli run and sessions, the agent in a terminal
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-cli"

#include <glib/gi18n.h>
#include <glib-unix.h>
#include <gio/gunixinputstream.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "warden-cli.h"

#include "agent/warden-agent.h"
#include "llm/warden-openai-provider.h"

#define EXIT_MAX_STEPS   3
#define EXIT_PROVIDER    4
#define EXIT_INTERRUPTED 130

typedef struct
{
  GMainLoop        *loop;
  GAsyncResult     *result;
  GCancellable     *cancellable;
  GDataInputStream *input;
  gboolean          in_text;   /* the assistant's text is being streamed */
} Run;

static void
result_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Run *run = user_data;

  run->result = g_object_ref (result);
  g_main_loop_quit (run->loop);
}

static gboolean
sigint_cb (gpointer user_data)
{
  Run *run = user_data;

  g_cancellable_cancel (run->cancellable);
  return G_SOURCE_CONTINUE;
}

static void
end_text (Run *run)
{
  if (run->in_text)
    {
      printf ("\n");
      run->in_text = FALSE;
    }
}

static void
text_delta_cb (WardenAgent *agent,
               const char  *text,
               Run         *run)
{
  run->in_text = TRUE;
  fputs (text, stdout);
  fflush (stdout);
}

static void
tool_call_cb (WardenAgent *agent,
              const char  *id,
              const char  *name,
              const char  *input_json,
              Run         *run)
{
  g_autoptr(JsonNode) node = json_from_string (input_json, NULL);
  JsonObject *input = node && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  const char *what = NULL;

  end_text (run);
  if (input != NULL)
    what = json_object_get_string_member_with_default (input,
                                                       strcmp (name, "exec") == 0 ? "command"
                                                       : strcmp (name, "glob") == 0 ||
                                                         strcmp (name, "grep") == 0 ? "pattern"
                                                       : "path", NULL);
  printf ("[%s] %s\n", name, what ? what : input_json);
  fflush (stdout);
}

static void
retrying_cb (WardenAgent *agent,
             guint        attempt,
             guint        delay_ms,
             const char  *reason,
             Run         *run)
{
  end_text (run);
  fprintf (stderr, "warden-cli: %s; trying again in %.1f s (attempt %u)\n", reason,
           delay_ms / 1000.0, attempt);
}

static void
output_cb (WardenAgent *agent,
           int          stream,
           const char  *data,
           Run         *run)
{
  fputs (data, stdout);
  fflush (stdout);
}

static void
tool_result_cb (WardenAgent *agent,
                const char  *id,
                const char  *name,
                const char  *decision,
                const char  *result,
                gboolean     is_error,
                Run         *run)
{
  end_text (run);
  if (strcmp (name, "exec") == 0 && !is_error)
    {
      g_autoptr(JsonNode) node = json_from_string (result, NULL);
      JsonObject *o = node && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;

      printf ("[exec] exit %" G_GINT64_FORMAT " (%s)\n",
              o ? json_object_get_int_member_with_default (o, "exit_code", -1) : -1, decision);
    }
  else if (is_error)
    printf ("[%s] %s (%s)\n", name, result, decision);
  else
    {
      gsize len = strlen (result);

      printf ("[%s] %.*s%s\n", name, (int) MIN (len, 2000), result, len > 2000 ? " …" : "");
    }
  fflush (stdout);
}

/* One line from standard input, without its end; NULL at the end of input. */
static char *
read_line (Run *run)
{
  g_autoptr(GError) error = NULL;
  char *line = g_data_input_stream_read_line_utf8 (run->input, NULL, NULL, &error);

  /* A script's answers are not echoed: end the prompt's line ourselves. */
  if (!isatty (STDIN_FILENO))
    {
      printf ("%s\n", line ? line : "");
      fflush (stdout);
    }
  if (line == NULL)
    return NULL;
  g_strchomp (line);
  return line;
}

/* Asks on the terminal; end of input is a rejection, never an approval. */
static gboolean
answer_pending (Run         *run,
                WardenAgent *agent)
{
  WardenApproval *approval = warden_agent_get_pending (agent);
  WardenApprovalAnswer answer = { 0 };
  g_autofree char *line = NULL;
  g_autofree char *second = NULL;
  g_autoptr(GError) error = NULL;
  const char * const *suggestions = warden_approval_get_suggestions (approval);

  end_text (run);
  if (warden_approval_get_kind (approval) == WARDEN_APPROVAL_QUESTION)
    {
      const char * const *choices = warden_approval_get_choices (approval);

      printf ("? %s\n", warden_approval_get_subject (approval));
      for (guint i = 0; choices[i]; i++)
        printf ("  - %s\n", choices[i]);
      printf ("answer> ");
      fflush (stdout);
      line = read_line (run);
      answer.answer = line ? line : "(the user gave no answer)";
    }
  else
    {
      printf ("! %s wants to run: %s\n", warden_approval_get_tool_name (approval),
              warden_approval_get_subject (approval));
      if (warden_approval_get_reason (approval))
        printf ("  because %s\n", warden_approval_get_reason (approval));
      for (guint i = 0; warden_approval_get_env (approval)[i]; i++)
        printf ("  with %s\n", warden_approval_get_env (approval)[i]);
      if (suggestions[0])
        printf ("  always allow would save: %s\n", suggestions[0]);
      printf ("[y] approve, [a] always allow, [n] reject> ");
      fflush (stdout);
      line = read_line (run);
      if (line != NULL && (strcmp (line, "y") == 0 || strcmp (line, "a") == 0))
        {
          answer.approved = TRUE;
          if (strcmp (line, "a") == 0)
            {
              answer.allow_always = TRUE;
              printf ("pattern [%s]> ", suggestions[0] ? suggestions[0] : "");
              fflush (stdout);
              second = read_line (run);
              answer.pattern = second && *second ? second : NULL;
            }
        }
      else if (line != NULL)
        {
          printf ("feedback> ");
          fflush (stdout);
          second = read_line (run);
          answer.feedback = second;
        }
    }

  if (!warden_agent_resolve (agent, &answer, &error))
    {
      warden_cli_error ("%s", error->message);
      return FALSE;
    }
  return TRUE;
}

int
warden_cli_run (int    argc,
                char **argv)
{
  g_autofree char *provider_name = NULL;
  g_autofree char *model = NULL;
  g_autofree char *base_url = NULL;
  g_autofree char *profile = NULL;
  g_autofree char *sandbox = NULL;
  g_autofree char *image = NULL;
  g_autofree char *network = NULL;
  g_autofree char *workspace = NULL;
  g_autofree char *resume = NULL;
  int max_steps = 0;
  GOptionEntry entries[] = {
    { "provider", 0, 0, G_OPTION_ARG_STRING, &provider_name, "anthropic or openai", "NAME" },
    { "model", 0, 0, G_OPTION_ARG_STRING, &model, "The model", "MODEL" },
    { "base-url", 0, 0, G_OPTION_ARG_STRING, &base_url, "The API's address", "URL" },
    { "profile", 'p', 0, G_OPTION_ARG_STRING, &profile, "Allowlist profile (default node)", "ID" },
    { "sandbox", 's', 0, G_OPTION_ARG_STRING, &sandbox, "docker, bwrap or host", "BACKEND" },
    { "image", 'i', 0, G_OPTION_ARG_STRING, &image, "Docker image", "IMAGE" },
    { "network", 'n', 0, G_OPTION_ARG_STRING, &network, "none or bridge", "NETWORK" },
    { "workspace", 'w', 0, G_OPTION_ARG_FILENAME, &workspace, "The project (default: here)", "DIR" },
    { "max-steps", 0, 0, G_OPTION_ARG_INT, &max_steps, "Model requests per task (30)", "N" },
    { "resume", 'r', 0, G_OPTION_ARG_STRING, &resume, "Continue a session", "SESSION_ID" },
    { NULL }
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new ("TASK");
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GInputStream) stdin_stream = g_unix_input_stream_new (0, FALSE);
  g_autoptr(WardenLlmProvider) provider = NULL;
  g_autoptr(WardenSessionStore) store = NULL;
  g_autoptr(WardenProfileStore) profiles = NULL;
  g_autoptr(WardenAgent) agent = NULL;
  g_autofree char *task = NULL;
  Run run = { loop, NULL, cancellable, NULL, FALSE };
  guint sigint_id;
  int status = 0;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      warden_cli_error ("%s", error->message);
      return WARDEN_CLI_EXIT_USAGE;
    }
  if ((resume == NULL) == (argc < 2))
    {
      warden_cli_error ("give a TASK, or --resume SESSION_ID");
      return WARDEN_CLI_EXIT_USAGE;
    }
  if (argc >= 2)
    task = g_strjoinv (" ", argv + 1);

  provider = warden_llm_provider_new_from_env (provider_name, model, base_url, &error);
  if (provider == NULL && provider_name == NULL &&
      g_error_matches (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED))
    {
      /* Nothing configured: a local Ollama is better than nothing. */
      g_autofree char *ollama_model = NULL;

      warden_openai_provider_probe_ollama_async (NULL, NULL, result_cb, &run);
      g_main_loop_run (loop);
      ollama_model = warden_openai_provider_probe_ollama_finish (run.result, NULL);
      g_clear_object (&run.result);
      if (ollama_model != NULL)
        {
          fprintf (stderr, "warden-cli: no API key is set; using the Ollama server at %s with "
                   "%s (set ANTHROPIC_API_KEY or OPENAI_API_KEY for another)\n",
                   WARDEN_OLLAMA_BASE_URL, model ? model : ollama_model);
          g_clear_error (&error);
          provider = warden_openai_provider_new (NULL, WARDEN_OLLAMA_BASE_URL,
                                                 model ? model : ollama_model);
        }
    }
  if (provider == NULL)
    {
      warden_cli_error ("%s", error->message);
      return EXIT_PROVIDER;
    }
  store = warden_session_store_new (NULL, &error);
  if (store == NULL)
    {
      warden_cli_error ("%s", error->message);
      return WARDEN_CLI_EXIT_USAGE;
    }
  profiles = warden_profile_store_new (NULL);

  if (resume != NULL)
    {
      WardenAgentConfig overrides = { 0 };

      overrides.profile = profile;
      overrides.sandbox = sandbox;
      overrides.image = image;
      overrides.network = g_strcmp0 (network, "bridge") == 0;
      overrides.max_steps = max_steps > 0 ? (guint) max_steps : 0;
      agent = warden_agent_open (store, profiles, provider, resume, &overrides, &error);
    }
  else
    {
      g_autofree char *here = g_get_current_dir ();
      WardenAgentConfig config = { 0 };

      config.workspace = workspace ? workspace : here;
      config.profile = profile;
      if (sandbox == NULL)
        sandbox = warden_cli_default_backend (loop);
      config.sandbox = sandbox;
      config.image = image;
      config.network = g_strcmp0 (network, "bridge") == 0;
      config.max_steps = max_steps > 0 ? (guint) max_steps : 0;
      agent = warden_agent_new (store, profiles, provider, &config, &error);
    }
  if (agent == NULL)
    {
      warden_cli_error ("%s", error->message);
      return WARDEN_CLI_EXIT_USAGE;
    }
  {
    g_autoptr(WardenSessionInfo) info = warden_session_store_get_session (
      store, warden_agent_get_session_id (agent), NULL);

    /* Every time, new or resumed: nothing else stands between the model and
     * this account but the profile and the user's answers. */
    if (info != NULL && g_strcmp0 (info->sandbox, "host") == 0)
      warden_cli_error ("warning: the host backend runs commands on this computer as you, "
                        "with no sandbox: they can read and change all your files, your keys "
                        "and Warden's own settings. Only the profile and your answers stand "
                        "in the way. Use --sandbox bwrap or --sandbox docker to confine them.");
  }
  fprintf (stderr, "session %s\n", warden_agent_get_session_id (agent));

  run.input = g_data_input_stream_new (stdin_stream);
  g_signal_connect (agent, "text-delta", G_CALLBACK (text_delta_cb), &run);
  g_signal_connect (agent, "tool-call", G_CALLBACK (tool_call_cb), &run);
  g_signal_connect (agent, "tool-result", G_CALLBACK (tool_result_cb), &run);
  g_signal_connect (agent, "output", G_CALLBACK (output_cb), &run);
  g_signal_connect (agent, "retrying", G_CALLBACK (retrying_cb), &run);
  sigint_id = g_unix_signal_add (SIGINT, sigint_cb, &run);

  for (;;)
    {
      WardenAgentOutcome outcome = WARDEN_AGENT_FINISHED;

      warden_agent_run_async (agent, task, cancellable, result_cb, &run);
      g_clear_pointer (&task, g_free);
      g_main_loop_run (loop);
      if (!warden_agent_run_finish (agent, run.result, &outcome, &error))
        {
          end_text (&run);
          if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            {
              warden_cli_error ("interrupted; continue with --resume %s",
                                warden_agent_get_session_id (agent));
              status = EXIT_INTERRUPTED;
            }
          else
            {
              warden_cli_error ("%s", error->message);
              status = error->domain == WARDEN_LLM_ERROR ? EXIT_PROVIDER : 1;
            }
          break;
        }
      g_clear_object (&run.result);
      if (outcome == WARDEN_AGENT_WAITING)
        {
          if (!answer_pending (&run, agent))
            {
              status = 1;
              break;
            }
          continue;
        }
      end_text (&run);
      if (outcome == WARDEN_AGENT_MAX_STEPS)
        {
          warden_cli_error ("stopped after %u steps; continue with --resume %s",
                            warden_agent_get_steps (agent), warden_agent_get_session_id (agent));
          status = EXIT_MAX_STEPS;
        }
      break;
    }

  g_source_remove (sigint_id);
  g_clear_object (&run.result);

  /* The sandbox goes now, not when the process is gone: a container would stay. */
  {
    g_autoptr(GError) close_error = NULL;

    warden_agent_close_async (agent, NULL, result_cb, &run);
    g_main_loop_run (loop);
    if (!warden_agent_close_finish (agent, run.result, &close_error))
      warden_cli_error ("could not remove the sandbox: %s", close_error->message);
    g_clear_object (&run.result);
  }
  g_clear_object (&run.input);
  return status;
}

/* ------------------------------------------------------------------------ */

static int
sessions_list (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSessionStore) store = warden_session_store_new (NULL, &error);
  g_autoptr(GPtrArray) list = NULL;

  if (store == NULL || (list = warden_session_store_list_sessions (store, &error)) == NULL)
    {
      warden_cli_error ("%s", error->message);
      return WARDEN_CLI_EXIT_USAGE;
    }
  for (guint i = 0; i < list->len; i++)
    {
      WardenSessionInfo *s = g_ptr_array_index (list, i);
      g_autoptr(GDateTime) when = g_date_time_new_from_unix_local (s->updated);
      g_autofree char *stamp = when ? g_date_time_format (when, "%Y-%m-%d %H:%M") : g_strdup ("?");

      printf ("%s  %-8s  %s  %s\n", s->id, s->state ? s->state : "?", stamp,
              s->title ? s->title : "");
    }
  return 0;
}

static int
sessions_show (const char *id,
               gboolean    json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSessionStore) store = warden_session_store_new (NULL, &error);
  g_autoptr(WardenSessionInfo) s = NULL;
  g_autoptr(GPtrArray) messages = NULL;
  g_autoptr(GPtrArray) calls = NULL;

  if (store == NULL || (s = warden_session_store_get_session (store, id, &error)) == NULL ||
      (messages = warden_session_store_load_messages (store, id, &error)) == NULL ||
      (calls = warden_session_store_list_tool_calls (store, id, &error)) == NULL)
    {
      warden_cli_error ("%s", error->message);
      return WARDEN_CLI_EXIT_USAGE;
    }

  if (json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autoptr(JsonNode) root = NULL;
      g_autofree char *text = NULL;

      json_builder_begin_object (b);
#define MEMBER(k, v) G_STMT_START { json_builder_set_member_name (b, k); \
  if (v) json_builder_add_string_value (b, v); else json_builder_add_null_value (b); } G_STMT_END
      MEMBER ("id", s->id);
      MEMBER ("title", s->title);
      MEMBER ("state", s->state);
      MEMBER ("workspace", s->workspace);
      MEMBER ("profile", s->profile);
      MEMBER ("provider", s->provider);
      MEMBER ("model", s->model);
      MEMBER ("sandbox", s->sandbox);
      json_builder_set_member_name (b, "input_tokens");
      json_builder_add_int_value (b, s->input_tokens);
      json_builder_set_member_name (b, "output_tokens");
      json_builder_add_int_value (b, s->output_tokens);
      json_builder_set_member_name (b, "messages");
      json_builder_begin_array (b);
      for (guint i = 0; i < messages->len; i++)
        json_builder_add_value (b, json_from_string (g_ptr_array_index (messages, i), NULL));
      json_builder_end_array (b);
      json_builder_set_member_name (b, "tool_calls");
      json_builder_begin_array (b);
      for (guint i = 0; i < calls->len; i++)
        {
          WardenToolCallRecord *r = g_ptr_array_index (calls, i);

          json_builder_begin_object (b);
          MEMBER ("id", r->tool_use_id);
          MEMBER ("name", r->name);
          MEMBER ("input", r->input_json);
          MEMBER ("state", r->state);
          MEMBER ("decision", r->decision);
          MEMBER ("pattern", r->pattern);
          MEMBER ("reason", r->reason);
          MEMBER ("feedback", r->feedback);
          MEMBER ("result", r->result_json);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
#undef MEMBER
      root = json_builder_get_root (b);
      text = json_to_string (root, TRUE);
      printf ("%s\n", text);
      return 0;
    }

  printf ("session %s: %s\n", s->id, s->title ? s->title : "");
  printf ("state %s, workspace %s, profile %s, %s/%s in %s\n", s->state, s->workspace,
          s->profile, s->provider, s->model, s->sandbox);
  printf ("tokens: %" G_GINT64_FORMAT " in, %" G_GINT64_FORMAT " out\n", s->input_tokens,
          s->output_tokens);
  for (guint i = 0; i < calls->len; i++)
    {
      WardenToolCallRecord *r = g_ptr_array_index (calls, i);

      printf ("  %-8s %-9s %-16s %s%s%s\n", r->name, r->state ? r->state : "",
              r->decision ? r->decision : "", r->input_json ? r->input_json : "",
              r->feedback ? "  feedback: " : "", r->feedback ? r->feedback : "");
    }
  return 0;
}

int
warden_cli_sessions (int    argc,
                     char **argv)
{
  if (argc == 2 && strcmp (argv[1], "list") == 0)
    return sessions_list ();
  if ((argc == 3 || argc == 4) && strcmp (argv[1], "show") == 0)
    {
      gboolean json = argc == 4 && strcmp (argv[3], "--json") == 0;

      if (argc == 4 && !json)
        {
          warden_cli_error ("usage: warden-cli sessions show SESSION_ID [--json]");
          return WARDEN_CLI_EXIT_USAGE;
        }
      return sessions_show (argv[2], json);
    }
  warden_cli_error ("usage: warden-cli sessions list | show SESSION_ID [--json]");
  return WARDEN_CLI_EXIT_USAGE;
}
