/* warden-cli-decide.c: decisions by program (--approve-with) and for runs
 * nobody attends (--on-question)
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Before a person is asked, the user's decision program gets the question:
 * the approval_required event of --json on its standard input, one decision
 * object (the answer --json takes, or {"ask": true}) on its standard output.
 * It is the user's own policy, run as the user, outside the sandbox, with
 * the environment Warden was started with less the API keys
 * (warden_env_keys_take() took them out before anything ran). What it does
 * not decide goes to the person; with --on-question, to nobody.
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-cli"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "warden-cli.h"
#include "warden-cli-run-private.h"

#include "common/warden-json.h"
#include "common/warden-printable.h"

/* What the decision program made of a question. */
typedef enum
{
  CONSULT_ANSWER,    /* its standard output, to be read */
  CONSULT_IGNORED,   /* no decision: why says why */
  CONSULT_STOPPED,   /* a signal stopped the run while it decided */
  CONSULT_WITHDRAWN, /* the started program's command ended first */
} Consult;

typedef struct
{
  GMainLoop    *loop;
  GAsyncResult *result;
  GCancellable *cancellable;
  gboolean      timed_out;
} Waiting;

gboolean
_warden_cli_decide_setup (Run         *run,
                          const char  *approve_with,
                          int          timeout,
                          const char  *on_question,
                          GError     **error)
{
  if (on_question == NULL)
    run->on_question = ON_QUESTION_ASK;
  else if (strcmp (on_question, "reject") == 0)
    run->on_question = ON_QUESTION_REJECT;
  else if (strcmp (on_question, "pending") == 0)
    run->on_question = ON_QUESTION_PENDING;
  else
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--on-question is reject or pending");
      return FALSE;
    }
  if (timeout < 1)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--approve-timeout takes a number of seconds, 1 or more");
      return FALSE;
    }
  run->approve_timeout = (guint) timeout;
  if (approve_with != NULL)
    {
      /* Found now, once: a program missing is a usage error, not a
       * question after a question handed to the person. */
      run->approve_with = g_find_program_in_path (approve_with);
      if (run->approve_with == NULL)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--approve-with: no program “%s” (a path, or a name in PATH)",
                       approve_with);
          return FALSE;
        }
    }
  return TRUE;
}

/* On standard error, and as a notice for a --json client. */
static void
say (Run        *run,
     const char *message)
{
  warden_cli_error ("%s", message);
  if (run->json)
    _warden_cli_json_notice (run, message);
}

static void
communicated_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Waiting *waiting = user_data;

  waiting->result = g_object_ref (result);
  g_main_loop_quit (waiting->loop);
}

static gboolean
timed_out_cb (gpointer user_data)
{
  Waiting *waiting = user_data;

  waiting->timed_out = TRUE;
  g_cancellable_cancel (waiting->cancellable);
  return G_SOURCE_REMOVE;
}

static void
stop_waiting_cb (GCancellable *cancellable,
                 gpointer      user_data)
{
  g_cancellable_cancel (user_data);
}

/* Its own process group: what it started goes with it. */
static void
child_setup (gpointer user_data)
{
  setpgid (0, 0);
}

/* The event on standard input, from a file: a program that does not read
 * it cannot make the write fail (or raise SIGPIPE here). */
static int
event_file (const char  *event,
            GError     **error)
{
  g_autofree char *path = NULL;
  g_autofree char *line = g_strconcat (event, "\n", NULL);
  int fd = g_file_open_tmp ("warden-question-XXXXXX", &path, error);
  gsize length = strlen (line);
  gsize done = 0;

  if (fd < 0)
    return -1;
  g_unlink (path);
  while (done < length)
    {
      gssize n = write (fd, line + done, length - done);

      if (n < 0 && errno != EINTR)
        break;
      if (n > 0)
        done += (gsize) n;
    }
  if (done < length || lseek (fd, 0, SEEK_SET) != 0)
    {
      int saved = errno;

      close (fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "could not write the question: %s", g_strerror (saved));
      return -1;
    }
  return fd;
}

/* Runs the decision program on @approval's event and waits for it, the
 * main loop running (a signal or the command's end stops the wait). */
static Consult
consult (Run             *run,
         WardenApproval  *approval,
         GBytes         **out,
         char           **why)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *event = _warden_cli_json_pending_text (run, approval);
  const char *argv[] = { run->approve_with, NULL };
  Waiting waiting = { loop, NULL, cancellable, FALSE };
  gulong on_signal, on_withdrawn = 0;
  guint timer;
  int fd;

  *out = NULL;
  *why = NULL;
  fd = event_file (event, &error);
  if (fd < 0)
    {
      *why = g_strdup (error->message);
      return CONSULT_IGNORED;
    }
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_subprocess_launcher_take_stdin_fd (launcher, fd);
  g_subprocess_launcher_set_child_setup (launcher, child_setup, NULL, NULL);
  /* Gone from the environment already; said again, for what else may
   * have set them since. */
  g_subprocess_launcher_unsetenv (launcher, "ANTHROPIC_API_KEY");
  g_subprocess_launcher_unsetenv (launcher, "OPENAI_API_KEY");
  g_subprocess_launcher_setenv (launcher, "WARDEN_SESSION", run->session_id, TRUE);
  proc = g_subprocess_launcher_spawnv (launcher, argv, &error);
  if (proc == NULL)
    {
      *why = g_strdup_printf ("it could not be started: %s", error->message);
      return CONSULT_IGNORED;
    }

  on_signal = g_cancellable_connect (run->cancellable, G_CALLBACK (stop_waiting_cb),
                                     cancellable, NULL);
  if (run->prompt_cancellable != NULL)
    on_withdrawn = g_cancellable_connect (run->prompt_cancellable,
                                          G_CALLBACK (stop_waiting_cb), cancellable, NULL);
  timer = g_timeout_add_seconds (run->approve_timeout, timed_out_cb, &waiting);
  g_subprocess_communicate_async (proc, NULL, cancellable, communicated_cb, &waiting);
  g_main_loop_run (loop);
  if (!waiting.timed_out)
    g_source_remove (timer);
  g_cancellable_disconnect (run->cancellable, on_signal);
  if (on_withdrawn != 0)
    g_cancellable_disconnect (run->prompt_cancellable, on_withdrawn);

  if (!g_subprocess_communicate_finish (proc, waiting.result, out, NULL, &error))
    {
      const char *pid = g_subprocess_get_identifier (proc);

      g_clear_object (&waiting.result);
      g_clear_pointer (out, g_bytes_unref);
      /* Not waited for: it and what it started go now. */
      if (pid != NULL)
        kill (-(pid_t) g_ascii_strtoll (pid, NULL, 10), SIGKILL);
      g_subprocess_force_exit (proc);
      if (g_cancellable_is_cancelled (run->cancellable))
        return CONSULT_STOPPED;
      if (run->prompt_cancellable != NULL && g_cancellable_is_cancelled (run->prompt_cancellable))
        return CONSULT_WITHDRAWN;
      if (waiting.timed_out)
        *why = g_strdup_printf ("it did not answer within %u s (--approve-timeout)",
                                run->approve_timeout);
      else
        *why = g_strdup_printf ("its answer could not be read: %s", error->message);
      return CONSULT_IGNORED;
    }
  g_clear_object (&waiting.result);
  if (g_subprocess_get_if_signaled (proc))
    *why = g_strdup_printf ("it crashed (%s)", g_strsignal (g_subprocess_get_term_sig (proc)));
  else if (g_subprocess_get_exit_status (proc) != 0)
    *why = g_strdup_printf ("it exited with status %d", g_subprocess_get_exit_status (proc));
  if (*why != NULL)
    {
      g_clear_pointer (out, g_bytes_unref);
      return CONSULT_IGNORED;
    }
  return CONSULT_ANSWER;
}

/* Reads what the program printed: TRUE with @answer filled (its strings
 * are @root's), or with @ask set for {"ask": true}; FALSE with why. */
static gboolean
read_decision (Run                  *run,
               WardenApproval       *approval,
               GBytes               *bytes,
               JsonNode            **root,
               WardenApprovalAnswer *answer,
               gboolean             *ask,
               char                **why)
{
  gsize length = 0;
  const char *data = g_bytes_get_data (bytes, &length);
  g_autofree char *line = NULL;
  g_autoptr(JsonNode) node = NULL;
  const char *nul = memchr (data ? data : "", '\0', length);

  *ask = FALSE;
  if (nul != NULL)
    {
      *why = g_strdup_printf ("its answer holds a NUL byte (at byte %" G_GSIZE_FORMAT ")",
                              (gsize) (nul - data) + 1);
      return FALSE;
    }
  line = g_strndup (data ? data : "", length);
  if (line[strspn (line, " \t\r\n")] == '\0')
    {
      *why = g_strdup ("it printed no answer");
      return FALSE;
    }
  /* {"ask": true}, and nothing else, hands it over. */
  node = warden_json_parse_exact (line, strlen (line), NULL);
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node) &&
      json_object_has_member (json_node_get_object (node), "ask"))
    {
      JsonObject *object = json_node_get_object (node);
      JsonNode *value = json_object_get_member (object, "ask");

      if (json_object_get_size (object) == 1 && JSON_NODE_HOLDS_VALUE (value) &&
          json_node_get_value_type (value) == G_TYPE_BOOLEAN && json_node_get_boolean (value))
        {
          *ask = TRUE;
          return TRUE;
        }
      *why = g_strdup ("its answer is not one: “ask” stands alone, as {\"ask\": true}");
      return FALSE;
    }
  if (!_warden_cli_json_parse_answer (run, approval, root, line, answer, why))
    {
      g_autofree char *reason = g_steal_pointer (why);

      *why = g_strdup_printf ("its answer is not one: %s", reason);
      return FALSE;
    }
  return TRUE;
}

/* Records @answer. PROMPT_ANSWERED, PROMPT_FAILED (the store), or
 * PROMPT_NO_ANSWER with why when the profile refused it (a pattern it
 * cannot take): that one is the person's then. */
static PromptResult
resolve (Run                  *run,
         WardenAgent          *agent,
         WardenApproval       *approval,
         WardenApprovalAnswer *answer,
         char                **why)
{
  g_autoptr(GError) error = NULL;

  if (warden_agent_resolve (agent, answer, &error))
    return PROMPT_ANSWERED;
  /* Its command ended meanwhile. */
  if (g_error_matches (error, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_NO_PENDING) &&
      warden_approval_get_while_running (approval))
    return PROMPT_ANSWERED;
  if (why != NULL && (g_error_matches (error, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_FAILED) ||
                      error->domain == WARDEN_POLICY_ERROR))
    {
      *why = g_strdup_printf ("its answer was refused: %s", error->message);
      return PROMPT_NO_ANSWER;
    }
  warden_cli_error ("%s", error->message);
  run->lease_lost = g_error_matches (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_LOST);
  if (run->json)
    _warden_cli_json_error (run, run->lease_lost ? "lost" : "store", error->message,
                            run->lease_lost ? "Another Warden has the session now; nothing "
                                              "more runs here."
                                            : "Nothing was recorded; resume the session when "
                                              "the database is writable.");
  return PROMPT_FAILED;
}

/* The program decides @approval, or says why not (why). */
static PromptResult
ask_program (Run            *run,
             WardenAgent    *agent,
             WardenApproval *approval,
             char          **why)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *subject = warden_printable (warden_approval_get_subject (approval), -1,
                                               WARDEN_PRINTABLE_ONE_LINE);
  g_autofree char *message = NULL;
  WardenApprovalAnswer answer = { 0 };
  gboolean ask = FALSE;
  PromptResult result;

  switch (consult (run, approval, &bytes, why))
    {
    case CONSULT_STOPPED:
      return PROMPT_STOPPED;
    case CONSULT_WITHDRAWN:
      return PROMPT_WITHDRAWN;
    case CONSULT_IGNORED:
      return PROMPT_NO_ANSWER;
    case CONSULT_ANSWER:
    default:
      break;
    }
  if (!read_decision (run, approval, bytes, &root, &answer, &ask, why))
    return PROMPT_NO_ANSWER;
  if (ask)
    {
      *why = g_strdup ("it handed it to a person");
      return PROMPT_NO_ANSWER;
    }
  answer.via = "program";
  result = resolve (run, agent, approval, &answer, why);
  if (result != PROMPT_ANSWERED)
    return result;
  if (!answer.approved)
    {
      g_autofree char *feedback = answer.feedback
                                  ? warden_printable (answer.feedback, -1,
                                                      WARDEN_PRINTABLE_ONE_LINE) : NULL;

      message = g_strdup_printf ("the decision program rejected: %s%s%s", subject,
                                 feedback ? "; feedback: " : "", feedback ? feedback : "");
    }
  else if (answer.allow_always)
    message = g_strdup_printf ("the decision program always allowed: %s", subject);
  else
    message = g_strdup_printf ("the decision program approved: %s", subject);
  say (run, message);
  return PROMPT_ANSWERED;
}

/* Rejects @approval (or answers a question) for nobody: @feedback goes to
 * the model. */
static PromptResult
reject_for_nobody (Run            *run,
                   WardenAgent    *agent,
                   WardenApproval *approval,
                   const char     *feedback)
{
  WardenApprovalAnswer answer = { 0 };

  if (warden_approval_get_kind (approval) == WARDEN_APPROVAL_QUESTION)
    answer.answer = feedback;
  else
    answer.feedback = feedback;
  answer.via = "unattended";
  return resolve (run, agent, approval, &answer, NULL);
}

PromptResult
_warden_cli_decide (Run         *run,
                    WardenAgent *agent,
                    AskPerson    ask_person)
{
  WardenApproval *approval = warden_agent_get_pending (agent);
  gboolean question = warden_approval_get_kind (approval) == WARDEN_APPROVAL_QUESTION;
  g_autofree char *why = NULL;
  g_autofree char *subject = warden_printable (warden_approval_get_subject (approval), -1,
                                               WARDEN_PRINTABLE_ONE_LINE);

  if (run->session_id == NULL)
    run->session_id = warden_agent_get_session_id (agent);
  /* The program decides approvals; the model's questions are for a person. */
  if (run->approve_with != NULL && !question)
    {
      PromptResult result = ask_program (run, agent, approval, &why);
      g_autofree char *message = NULL;

      if (result != PROMPT_NO_ANSWER)
        return result;
      message = strcmp (why, "it handed it to a person") == 0
                ? g_strdup_printf ("the decision program handed it to you: %s", subject)
                : g_strdup_printf ("the decision program was ignored, as %s: %s", why, subject);
      say (run, message);
    }

  if (run->on_question == ON_QUESTION_REJECT)
    {
      g_autofree char *feedback = NULL;
      g_autofree char *message = NULL;

      feedback = question
                 ? g_strdup ("No one can answer: this is an unattended run (--on-question "
                             "reject). Decide without it, or stop and say what you need.")
                 : why != NULL
                 ? g_strdup_printf ("Not approved: the user's decision program did not decide, "
                                    "as %s, and this is an unattended run (--on-question "
                                    "reject). Do without it, or stop and say what you need.",
                                    why)
                 : g_strdup ("Not approved: this is an unattended run (--on-question reject); "
                             "no one can approve it. Do without it, or stop and say what you "
                             "need.");
      message = g_strdup_printf ("rejected, as no one attends this run (--on-question reject): "
                                 "%s", subject);
      say (run, message);
      return reject_for_nobody (run, agent, approval, feedback);
    }
  if (run->on_question == ON_QUESTION_PENDING)
    {
      run->left_pending = TRUE;
      return PROMPT_NO_ANSWER;
    }
  /* Handed over, and no one to hand it to. */
  if (why != NULL && !run->json && !isatty (STDIN_FILENO))
    {
      g_autofree char *feedback = g_strdup_printf ("Not approved: the user's decision program "
                                                   "did not decide, as %s, and there is no one "
                                                   "at a terminal to ask.", why);
      g_autofree char *message = g_strdup_printf ("rejected, as no one is at a terminal to "
                                                  "ask: %s", subject);

      say (run, message);
      return reject_for_nobody (run, agent, approval, feedback);
    }
  return ask_person (run, agent);
}
