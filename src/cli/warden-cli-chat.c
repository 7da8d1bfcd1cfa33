/* warden-cli-chat.c: warden-cli chat, a conversation at the terminal
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A prompt, the agent's turn, the next prompt. Approvals and questions are
 * asked inline, as in "run". Ctrl+C stops the running step and comes back
 * to the prompt; at the prompt a second Ctrl+C in a row, Ctrl+D or /exit
 * leaves, and the session stays there to be resumed. The terminal's own
 * line editing (cooked mode) is the editor: nothing is linked for it.
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-cli"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "warden-cli.h"
#include "warden-cli-run-private.h"

#include "agent/warden-trace.h"
#include "common/warden-printable.h"

static const char chat_help[] =
  "  /help             these commands\n"
  "  /profile          the allowlist profile later commands are checked against\n"
  "  /profile ID       switch to profile ID (warden-cli profile list shows them)\n"
  "  /trace            the session's timeline: model calls, tool calls, approvals\n"
  "  /trace FILE       save it as JSON in FILE (as the window's trace export)\n"
  "  /compact          summarise the earlier conversation for the model now (the\n"
  "                    session keeps every message)\n"
  "  /exit             leave; the session stays and can be resumed\n"
  "  //TEXT            the message /TEXT\n"
  "Ctrl+C stops what runs and comes back here; Ctrl+C again (or Ctrl+D) leaves.\n";

typedef enum
{
  CHAT_GO_ON,
  CHAT_LEAVE,
} ChatNext;

/* A fresh cancel for each turn and each prompt: Ctrl+C stops one of them,
 * not the conversation. */
void
_warden_cli_chat_rearm (Run           *run,
            GCancellable **turn)
{
  g_clear_object (turn);
  *turn = g_cancellable_new ();
  run->cancellable = *turn;
  run->signum = 0;
  run->nested_unanswered = FALSE;
}

static void
chat_profile (Run         *run,
              WardenAgent *agent,
              const char  *arg)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *shown = NULL;

  if (*arg == '\0')
    {
      shown = warden_printable (warden_agent_get_profile (agent), -1, WARDEN_PRINTABLE_ONE_LINE);
      _warden_cli_run_printf (run, "  profile %s (/profile ID switches)\n", shown);
      return;
    }
  shown = warden_printable (arg, -1, WARDEN_PRINTABLE_ONE_LINE);
  if (!warden_agent_set_profile (agent, arg, &error))
    {
      warden_cli_error ("%s; the profile stays %s", error->message,
                        warden_agent_get_profile (agent));
      return;
    }
  _warden_cli_run_printf (run, "  profile %s: later commands are checked against it\n", shown);
}

/* One line for each event: when, what, and what became of it. */
static void
chat_trace_print (Run        *run,
                  GPtrArray  *events)
{
  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = g_ptr_array_index (events, i);
      const char *type = json_object_get_string_member_with_default (event, "type", "?");
      gint64 time = json_object_get_int_member_with_default (event, "time", 0);
      g_autoptr(GDateTime) when = g_date_time_new_from_unix_local (time / 1000);
      g_autofree char *stamp = when ? g_date_time_format (when, "%H:%M:%S") : g_strdup ("?");
      const char *what = NULL;
      const char *how = NULL;
      g_autofree char *shown = NULL;

      if (strcmp (type, "model_call") == 0)
        {
          gint64 ms = json_object_get_int_member_with_default (event, "latency_ms", 0);
          gint64 in = json_object_get_int_member_with_default (event, "input_tokens", 0);
          gint64 out = json_object_get_int_member_with_default (event, "output_tokens", 0);

          _warden_cli_run_printf (run, "  %s  model     %" G_GINT64_FORMAT " ms, %"
                                  G_GINT64_FORMAT " tokens in, %" G_GINT64_FORMAT " out\n",
                                  stamp, ms, in, out);
          continue;
        }
      for (guint k = 0; what == NULL && k < 5; k++)
        {
          static const char * const keys[] = { "command", "path", "question", "query", "host" };

          if (json_object_has_member (event, keys[k]) &&
              JSON_NODE_HOLDS_VALUE (json_object_get_member (event, keys[k])))
            what = json_object_get_string_member (event, keys[k]);
        }
      if (json_object_has_member (event, "answer"))
        how = json_object_get_string_member_with_default (event, "answer", NULL);
      else if (json_object_has_member (event, "decision"))
        how = json_object_get_string_member_with_default (event, "decision", NULL);
      if (what == NULL)
        what = json_object_get_string_member_with_default (event, "name", "");
      shown = warden_printable (what ? what : "", -1, WARDEN_PRINTABLE_ONE_LINE);
      _warden_cli_run_printf (run, "  %s  %-9s %s%s%s\n", stamp, type, shown,
                              how ? "  → " : "", how ? how : "");
    }
}

static void
chat_trace (Run         *run,
            WardenAgent *agent,
            const char  *arg)
{
  g_autoptr(GError) error = NULL;
  const char *id = warden_agent_get_session_id (agent);

  if (*arg == '\0')
    {
      g_autoptr(GPtrArray) events = warden_trace_list_events (run->store, id, &error);

      if (events == NULL)
        {
          warden_cli_error ("%s", error->message);
          return;
        }
      g_ptr_array_set_free_func (events, (GDestroyNotify) json_object_unref);
      _warden_cli_run_printf (run, "  trace of session %s, %u event%s (/trace FILE saves it "
                              "as JSON; warden-cli sessions show %s --json has every record)\n",
                              id, events->len, events->len == 1 ? "" : "s", id);
      chat_trace_print (run, events);
    }
  else
    {
      g_autofree char *json = warden_trace_to_json (run->store, id, &error);
      g_autofree char *shown = warden_printable (arg, -1, WARDEN_PRINTABLE_ONE_LINE);

      if (json == NULL || !g_file_set_contents (arg, json, -1, &error))
        {
          warden_cli_error ("could not save the trace to %s: %s", shown, error->message);
          return;
        }
      _warden_cli_run_printf (run, "  trace saved to %s\n", shown);
    }
}

static void
compact_done_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* The earlier conversation summarised now; the agent says so ("compacted")
 * as it does when it summarises by itself. Ctrl+C stops the request. */
static void
chat_compact (Run         *run,
              WardenAgent *agent)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) result = NULL;

  _warden_cli_run_write (run, "  summarising the earlier conversation…\n");
  warden_agent_compact_async (agent, run->cancellable, compact_done_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  if (!warden_agent_compact_finish (agent, result, &error))
    warden_cli_error ("%s", error->message);
}

static ChatNext
chat_command (Run         *run,
              WardenAgent *agent,
              const char  *line)
{
  g_autofree char *name = NULL;
  const char *arg = line + strcspn (line, " \t");

  name = g_strndup (line, arg - line);
  arg += strspn (arg, " \t");
  if (strcmp (name, "/exit") == 0 || strcmp (name, "/quit") == 0)
    return CHAT_LEAVE;
  if (strcmp (name, "/help") == 0)
    _warden_cli_run_write (run, chat_help);
  else if (strcmp (name, "/profile") == 0)
    chat_profile (run, agent, arg);
  else if (strcmp (name, "/trace") == 0)
    chat_trace (run, agent, arg);
  else if (strcmp (name, "/compact") == 0)
    chat_compact (run, agent);
  else
    {
      g_autofree char *shown = warden_printable (name, -1, WARDEN_PRINTABLE_ONE_LINE);

      _warden_cli_run_printf (run, "  no command %s; /help lists them (type // for a message "
                              "that starts with /)\n", shown);
    }
  return CHAT_GO_ON;
}

/* The person's next message, NULL when they leave; @status_out set when a
 * signal other than Ctrl+C, or a failed write, ends the conversation. */
static char *
chat_prompt (Run           *run,
             WardenAgent   *agent,
             GCancellable **turn,
             int           *status_out)
{
  gboolean interrupted = FALSE;

  for (;;)
    {
      g_autofree char *line = NULL;
      PromptResult result;

      _warden_cli_chat_rearm (run, turn);
      if (!_warden_cli_run_write (run, run->colour ? "\033[1;36m>\033[0m " : "> "))
        {
          *status_out = EXIT_FAILED;
          return NULL;
        }
      result = _warden_cli_run_read_line (run, &line);
      if (result == PROMPT_NO_ANSWER)
        {
          /* Ctrl+D: the prompt's line ends here, not on the shell's. */
          if (isatty (STDIN_FILENO))
            _warden_cli_run_write (run, "\n");
          return NULL;
        }
      if (result != PROMPT_ANSWERED)
        {
          if (run->write_errno != 0)
            *status_out = EXIT_FAILED;
          else if (run->signum != SIGINT)
            *status_out = EXIT_SIGNAL_BASE + run->signum;
          else if (!interrupted)
            {
              /* The terminal dropped what was typed; a second one leaves. */
              interrupted = TRUE;
              _warden_cli_run_write (run, "\n  (Ctrl+C again or Ctrl+D leaves; /help)\n");
              continue;
            }
          else
            _warden_cli_run_write (run, "\n");
          return NULL;
        }
      interrupted = FALSE;
      if (*line == '\0')
        continue;
      if (line[0] == '/' && line[1] == '/')
        return g_strdup (line + 1);
      if (line[0] == '/')
        {
          if (chat_command (run, agent, line) == CHAT_LEAVE)
            return NULL;
          continue;
        }
      return g_steal_pointer (&line);
    }
}

int
_warden_cli_chat (Run          *run,
                  WardenAgent  *agent,
                  char         *task,
                  const char  **reason,
                  const char  **pending)
{
  g_autoptr(GCancellable) turn = NULL;
  GCancellable *outer = run->cancellable;
  const char *id = warden_agent_get_session_id (agent);
  int status = 0;

  *reason = "done";
  *pending = NULL;
  if (!run->json)
    fprintf (stderr, "warden-cli: type a task; /help for commands, Ctrl+D leaves\n");
  for (;;)
    {
      if (task == NULL)
        {
          int left = 0;

          task = run->json ? _warden_cli_json_next_message (run, agent, &turn, &left)
                           : chat_prompt (run, agent, &turn, &left);
          if (task == NULL)
            {
              status = left;
              if (left != 0)
                *reason = run->write_errno != 0 ? "error" : "interrupted";
              break;
            }
        }
      else
        _warden_cli_chat_rearm (run, &turn);
      status = _warden_cli_run_turn (run, agent, g_steal_pointer (&task), reason, pending);
      /* Ctrl+C stopped the step: back to the prompt. A question it
       * interrupted waits, and is asked again before the next message. */
      if (run->signum == SIGINT && run->write_errno == 0)
        continue;
      if (status == 0 || status == EXIT_MAX_STEPS || status == EXIT_PROVIDER)
        continue;
      break;
    }
  run->cancellable = outer;
  if (status == 0)
    {
      *reason = "done";
      *pending = warden_agent_get_pending (agent)
                 ? warden_approval_get_id (warden_agent_get_pending (agent)) : NULL;
      status = 0;
    }
  /* Left before a first message, a new session is not kept (warden-cli-run.c). */
  if (run->turns == 0 && !run->resumed && status == 0)
    warden_cli_error ("nothing was said; no session is kept");
  else if (status == 0 || status >= EXIT_SIGNAL_BASE)
    warden_cli_error ("session %s stays: continue with warden-cli chat --resume %s, or "
                      "warden-cli run --resume %s TASK", id, id, id);
  return status;
}
