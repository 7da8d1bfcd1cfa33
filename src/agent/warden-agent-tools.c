/* warden-agent-tools.c: running each tool: exec in the sandbox, the file tools
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-agent"

#include <glib/gi18n.h>

#include "warden-agent-private.h"

#include <string.h>

#include "common/warden-diff.h"
#include "common/warden-json.h"
#include "policy/warden-protected-path.h"
#include "engine/warden-docker-client.h"
#include "sandbox/warden-flatpak.h"

/* exec ---------------------------------------------------------------------*/

/* An exec on its way to the sandbox, while the sandbox is prepared. */
typedef struct
{
  WardenAgent    *self;
  WardenToolCall *call;
  gboolean        decide;  /* the profile's decision comes once the sandbox is ready */
  gboolean        again;   /* run once more (its container went first): announced already */
  gboolean        checkpointed;  /* the workspace was recorded before it */
} ExecCall;

static void
exec_call_free (ExecCall *exec)
{
  g_object_unref (exec->self);
  g_clear_object (&exec->call);
  g_free (exec);
}

static gboolean
idle_destroy_cb (gpointer user_data)
{
  WardenAgent *self = user_data;

  self->idle_id = 0;
  if (self->sandbox != NULL && self->sandbox_ready && self->run == NULL)
    {
      warden_sandbox_destroy_async (self->sandbox, NULL, NULL, NULL);
      g_clear_object (&self->sandbox);
      self->sandbox_ready = FALSE;
      _warden_agent_set_sandbox_state (self, WARDEN_SANDBOX_STATE_STOPPED, 0, NULL);
    }
  return G_SOURCE_REMOVE;
}

/* The running command's, passed on. */
static void
command_output_cb (WardenCommandRun *command,
                   int               stream,
                   const char       *text,
                   WardenAgent      *self)
{
  g_signal_emit (self, AGENT_SIGNAL (OUTPUT), 0, stream, text);
}

static void
command_question_cb (WardenCommandRun *command,
                     WardenApproval   *approval,
                     WardenAgent      *self)
{
  g_signal_emit (self, AGENT_SIGNAL (APPROVAL), 0, approval);
}

static void
command_question_withdrawn_cb (WardenCommandRun *command,
                               WardenAgent      *self)
{
  g_signal_emit (self, AGENT_SIGNAL (APPROVAL_WITHDRAWN), 0);
}

static gboolean
command_always_allow_cb (WardenCommandRun  *command,
                         const char        *pattern,
                         gboolean           host,
                         GError           **error,
                         WardenAgent       *self)
{
  return _warden_agent_save_pattern (self, pattern, host, error);
}

void
_warden_agent_clear_command (WardenAgent *self)
{
  if (self->command == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->command, self);
  if (self->hosts != NULL)
    warden_host_gate_set_command (self->hosts, NULL);
  g_clear_object (&self->command);
}

/* What a command was before it was to start: approved by the user, or new
 * (the profile allows it, and is asked again when it runs). */
static WardenToolCallState
state_before_start (WardenToolCall *call)
{
  WardenToolDecision decision = warden_tool_call_get_decision (call);

  return decision == WARDEN_TOOL_DECISION_APPROVED ||
         decision == WARDEN_TOOL_DECISION_APPROVED_ALWAYS ? WARDEN_TOOL_CALL_APPROVED
                                                          : WARDEN_TOOL_CALL_NEW;
}

/* The run was stopped (@cause) before @call's command started: it stays to
 * run, with why its run was cut. If that cannot be written, the record says
 * "running" and a resume takes it for started: never run twice. */
static void
not_started (WardenAgent    *self,
             WardenToolCall *call,
             WardenToolEnd   cause)
{
  warden_tool_call_set_state (call, state_before_start (call));
  warden_tool_call_set_times (call, 0, 0);
  warden_tool_call_set_end (call, cause, FALSE);
  _warden_agent_save_call (self, call);
}

static void ensure_sandbox_and_run (ExecCall *exec);
static void decide_exec            (ExecCall *exec);

/* A command that ended, while what it changed is computed. */
typedef struct
{
  WardenCommandRun *done;
  GError           *error;
} Finished;

static void command_finished (WardenAgent *self, gpointer data);

static void
command_finished_cb (WardenCommandRun *command,
                     const GError     *error,
                     WardenAgent      *self)
{
  Finished *finished = g_new0 (Finished, 1);

  finished->done = g_object_ref (command);
  finished->error = error != NULL ? g_error_copy (error) : NULL;
  _warden_agent_clear_command (self);
  g_clear_handle_id (&self->idle_id, g_source_remove);
  self->idle_id = g_timeout_add_seconds (self->config.idle_seconds, idle_destroy_cb, self);
  /* What it created, changed and deleted, from the files after it; a
   * command that never started changed nothing. */
  if (warden_command_run_get_started (command))
    _warden_agent_checkpoint_after (self, warden_command_run_get_call (command),
                                    command_finished, finished);
  else
    command_finished (self, finished);
}

static void
command_finished (WardenAgent *self,
                  gpointer     data)
{
  Finished *finished = data;
  g_autoptr(WardenCommandRun) done = finished->done;
  g_autoptr(GError) own_error = finished->error;
  const GError *error = own_error;
  g_autoptr(WardenToolCall) call = g_object_ref (warden_command_run_get_call (done));

  g_free (finished);

  if (error != NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      WardenToolEnd cause = _warden_agent_stop_cause (self);

      if (!warden_command_run_get_started (done))
        {
          /* Stopped before the sandbox had it: nothing of it ran. It is
           * what it was before it was to start (approved, or allowed by the
           * profile), and runs when the session goes on. */
          not_started (self, call, cause);
          _warden_agent_run_return (self, 0, g_error_copy (error));
          return;
        }
      /* Stopped while it ran: the record says so now, and why, not
       * "running" until a resume; the model reads it before the next words. */
      {
        g_autofree char *text = warden_tool_end_dup_message (cause, TRUE);

        warden_tool_call_set_result (call, text, TRUE);
      }
      warden_tool_call_set_times (call, warden_tool_call_get_started (call),
                                  g_get_real_time () / 1000);
      warden_tool_call_set_end (call, cause, TRUE);
      warden_tool_call_set_state (call, WARDEN_TOOL_CALL_INTERRUPTED);
      _warden_agent_save_call (self, call);
      _warden_agent_run_return (self, 0, g_error_copy (error));
      return;
    }
  /* The container went before the command started: the command did not
   * run, and runs once more in a new sandbox, which says why it is new. */
  if (error != NULL &&
      g_error_matches (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_CONTAINER_GONE) &&
      g_strcmp0 (self->gone_retried, warden_tool_call_get_id (call)) != 0)
    {
      ExecCall *exec = g_new0 (ExecCall, 1);

      g_free (self->gone_retried);
      self->gone_retried = g_strdup (warden_tool_call_get_id (call));
      self->sandbox_ready = FALSE;
      self->sandbox_given_up = TRUE;
      g_free (self->sandbox_lost);
      self->sandbox_lost = g_strdup (_("the sandbox’s container was removed or stopped "
                                       "outside Warden (docker rm, docker kill, a restart of "
                                       "the engine) before the command started; the command "
                                       "runs in the new one"));
      _warden_agent_set_sandbox_state (self, WARDEN_SANDBOX_STATE_STOPPED, 0, error->message);
      exec->self = g_object_ref (self);
      exec->call = g_steal_pointer (&call);
      exec->again = TRUE;
      ensure_sandbox_and_run (exec);
      return;
    }
  if (error != NULL)
    {
      g_autofree char *msg = g_strdup_printf ("Error: %s", error->message);

      /* The container went while the command ran: the command was stopped
       * with it; the next one prepares a new sandbox, which says why. */
      if (g_error_matches (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_CONTAINER_LOST) ||
          g_error_matches (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_CONTAINER_GONE))
        {
          self->sandbox_ready = FALSE;
          self->sandbox_given_up = TRUE;
          g_free (self->sandbox_lost);
          self->sandbox_lost = g_strdup (_("the sandbox’s container was removed or stopped "
                                           "outside Warden (docker rm, docker kill, a restart "
                                           "of the engine) while a command ran, and the "
                                           "command with it"));
          _warden_agent_set_sandbox_state (self, WARDEN_SANDBOX_STATE_STOPPED, 0, error->message);
        }
      /* A lost engine may have run it to the end: the model must not take
       * it for a command that failed (the sandbox's message says so). The
       * sandbox gave its container up; the next command prepares it again. */
      if (g_error_matches (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_RESULT_UNKNOWN))
        {
          self->sandbox_ready = FALSE;
          self->sandbox_given_up = TRUE;
          _warden_agent_set_sandbox_state (self, WARDEN_SANDBOX_STATE_STOPPED, 0, error->message);
        }
      _warden_agent_tool_done (self, g_steal_pointer (&call), WARDEN_TOOL_CALL_FINISHED, msg,
                               TRUE);
      return;
    }
  _warden_agent_tool_done (self, g_steal_pointer (&call), WARDEN_TOOL_CALL_FINISHED,
                           warden_command_run_get_result (done), FALSE);
}

static void run_exec (ExecCall *exec);

static void
exec_checkpointed (WardenAgent *self,
                   gpointer     data)
{
  ExecCall *exec = data;

  exec->checkpointed = TRUE;
  run_exec (exec);
}

static void
run_exec (ExecCall *exec)
{
  WardenAgent *self = exec->self;
  WardenToolCallState before = warden_tool_call_get_state (exec->call);
  g_autoptr(WardenToolCallRecord) record = NULL;
  g_autoptr(GError) error = NULL;
  WardenCommandRunConfig config = {
    .store = self->store,
    .policy = self->policy,
    .sandbox = self->sandbox,
    .sandbox_kind = self->config.sandbox,
    .workspace = _warden_agent_workspace_inside (self),
    .host_workspace = self->config.workspace,
    .check_programs = warden_profile_get_check_nested (self->profile),
    .host_answers = warden_host_gate_get_answers (self->hosts),
  };

  /* Stopped already (a signal, a closed output while the sandbox was
   * prepared): it does not start, and stays to run. */
  if (g_cancellable_set_error_if_cancelled (g_task_get_cancellable (self->run), &error))
    {
      if (before == WARDEN_TOOL_CALL_APPROVED)
        not_started (self, exec->call, _warden_agent_stop_cause (self));
      _warden_agent_run_return (self, 0, g_steal_pointer (&error));
      exec_call_free (exec);
      return;
    }

  /* The files as they were before it, so that it can be undone; a command
   * run once more (its container went) keeps its first checkpoint. */
  if (!exec->checkpointed && !exec->again)
    {
      _warden_agent_checkpoint_before (self, exec->call, exec_checkpointed, exec);
      return;
    }

  /* Exactly once: "running" is on disk before the command starts. If it
   * cannot be written, the command does not start: after a crash it would
   * look as if it never ran, and run again. */
  warden_tool_call_set_end (exec->call, WARDEN_TOOL_END_NONE, TRUE);
  warden_tool_call_set_state (exec->call, WARDEN_TOOL_CALL_RUNNING);
  warden_tool_call_set_times (exec->call, g_get_real_time () / 1000, 0);
  record = warden_tool_call_to_record (exec->call);
  if (!warden_session_store_save_tool_call (self->store, record, &error))
    {
      warden_tool_call_set_state (exec->call, before);
      warden_tool_call_set_times (exec->call, 0, 0);
      warden_tool_call_set_end (exec->call, WARDEN_TOOL_END_NONE, FALSE);
      /* Another Warden has the session: it runs the command, not this one. */
      if (g_error_matches (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_LOST))
        _warden_agent_run_return (self, 0, g_steal_pointer (&error));
      else
        _warden_agent_run_return (self, 0,
                                  g_error_new (WARDEN_AGENT_ERROR,
                                               WARDEN_AGENT_ERROR_NOT_RECORDED,
                                               _("The command was not started, because Warden "
                                                 "could not record that it starts: %s. Continue "
                                                 "the session when this is solved; the command "
                                                 "runs then."), error->message));
      exec_call_free (exec);
      return;
    }

  if (!exec->again)
    g_signal_emit (self, AGENT_SIGNAL (TOOL_CALL), 0, exec->call);
  _warden_agent_clear_command (self);
  self->command = warden_command_run_new (exec->call, &config);
  g_signal_connect (self->command, "output", G_CALLBACK (command_output_cb), self);
  g_signal_connect (self->command, "question", G_CALLBACK (command_question_cb), self);
  g_signal_connect (self->command, "question-withdrawn",
                    G_CALLBACK (command_question_withdrawn_cb), self);
  g_signal_connect (self->command, "always-allow", G_CALLBACK (command_always_allow_cb), self);
  g_signal_connect (self->command, "finished", G_CALLBACK (command_finished_cb), self);
  warden_host_gate_set_command (self->hosts, self->command);
  warden_command_run_start (self->command, g_task_get_cancellable (self->run));
  exec_call_free (exec);
}

static void
sandbox_progress_cb (WardenSandbox *sandbox,
                     double         fraction,
                     const char    *message,
                     WardenAgent   *self)
{
  _warden_agent_set_sandbox_state (self, WARDEN_SANDBOX_STATE_PREPARING, fraction, message);
}

/* No sandbox can be made: no command of this turn can run, so the turn
 * stops here with one error that says what failed and what to do, rather
 * than asking the model (and the user, to approve) for commands that cannot
 * run. The command stays unsettled: --resume runs it once the sandbox can
 * be made. One that had started (made again after its container went)
 * is settled as interrupted. */
static void
sandbox_failed (ExecCall     *exec,
                const GError *error)
{
  WardenAgent *self = exec->self;
  WardenToolCall *call = exec->call;

  if (warden_tool_call_get_state (call) == WARDEN_TOOL_CALL_RUNNING)
    {
      g_autofree char *msg = g_strdup_printf ("Error: the sandbox could not be prepared: %s",
                                              error->message);

      warden_tool_call_set_result (call, msg, TRUE);
      warden_tool_call_set_times (call, warden_tool_call_get_started (call),
                                  g_get_real_time () / 1000);
      warden_tool_call_set_state (call, WARDEN_TOOL_CALL_INTERRUPTED);
      _warden_agent_save_call (self, call);
    }
  _warden_agent_run_return (self, 0,
                            g_error_new (WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_SANDBOX,
                                         _("The sandbox could not be prepared, so no command "
                                           "can run: %s. Solve that (or choose another "
                                           "sandbox), then continue the session; the command "
                                           "runs then."), error->message));
  exec_call_free (exec);
}

static void
prepare_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  ExecCall *exec = user_data;
  WardenAgent *self = exec->self;
  g_autoptr(GError) error = NULL;

  if (!warden_sandbox_prepare_finish (WARDEN_SANDBOX (object), result, &error))
    {
      /* One that was given up may still hold a container: destroy removes
       * it once the engine answers. */
      if (self->sandbox_given_up)
        warden_sandbox_destroy_async (self->sandbox, NULL, NULL, NULL);
      self->sandbox_given_up = FALSE;
      g_clear_object (&self->sandbox);
      _warden_agent_set_sandbox_state (self, g_error_matches (error, G_IO_ERROR,
                                                              G_IO_ERROR_CANCELLED)
                                             ? WARDEN_SANDBOX_STATE_STOPPED
                                             : WARDEN_SANDBOX_STATE_FAILED, 0, error->message);
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          /* An approved command that waited for its sandbox did not start. */
          if (warden_tool_call_get_state (exec->call) == WARDEN_TOOL_CALL_APPROVED)
            not_started (self, exec->call, _warden_agent_stop_cause (self));
          _warden_agent_run_return (self, 0, g_steal_pointer (&error));
          exec_call_free (exec);
          return;
        }
      /* Automatic chose docker, and the image is not to be had (offline,
       * a registry down): bubblewrap needs no image, and says so. */
      if (self->config.sandbox_fallback && self->config.sandbox == WARDEN_SANDBOX_KIND_DOCKER &&
          (g_error_matches (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_PULL_FAILED) ||
           g_error_matches (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_NOT_FOUND)))
        {
          g_autoptr(GError) saved = NULL;

          self->config.sandbox = WARDEN_SANDBOX_KIND_BWRAP;
          g_free (self->info->sandbox);
          self->info->sandbox = g_strdup (warden_sandbox_kind_to_string (self->config.sandbox));
          if (!warden_session_store_save_session (self->store, self->info, &saved))
            g_warning ("Could not record the session's sandbox: %s", saved->message);
          g_free (self->fell_back);
          /* Translators: %s says why the image could not be had */
          self->fell_back = g_strdup_printf (_("Automatic chose Docker, but its image could not "
                                               "be had (%s): this session runs in bubblewrap "
                                               "instead."), error->message);
          ensure_sandbox_and_run (exec);
          return;
        }
      sandbox_failed (exec, error);
      return;
    }
  self->sandbox_ready = TRUE;
  self->sandbox_given_up = FALSE;
  /* Never a silent gap: the profile asks for every program to be checked,
   * and this sandbox cannot. */
  {
    g_autofree char *guard = NULL;
    g_autofree char *network = warden_host_gate_dup_notice (self->hosts, self->sandbox);
    g_autofree char *notice = NULL;
    g_autofree char *lost = g_steal_pointer (&self->sandbox_lost);

    if (warden_profile_get_check_nested (self->profile) &&
        warden_sandbox_get_guard_unavailable (self->sandbox) != NULL)
      guard = g_strdup_printf (_("Programs that commands start are not checked in this sandbox "
                                 "(%s): only the commands the model sends are checked against "
                                 "the profile."),
                               warden_sandbox_get_guard_unavailable (self->sandbox));
    if (guard != NULL && network != NULL)
      notice = g_strconcat (guard, " ", network, NULL);
    else
      notice = g_strdup (guard ? guard : network);
    /* A new sandbox for one that went: the user learns why, and what of it
     * is gone. */
    if (lost != NULL)
      {
        g_autofree char *both = notice;

        /* Translators: %s says why, "the sandbox's container was removed…" */
        notice = g_strdup_printf (_("A new sandbox was made, as %s. What was installed "
                                    "outside the workspace is gone.%s%s"), lost,
                                  both ? " " : "", both ? both : "");
      }
    if (self->fell_back != NULL)
      {
        g_autofree char *rest = notice;
        g_autofree char *why = g_steal_pointer (&self->fell_back);

        notice = rest ? g_strconcat (why, " ", rest, NULL) : g_steal_pointer (&why);
      }
    _warden_agent_set_sandbox_state (self, WARDEN_SANDBOX_STATE_READY, 1, notice);
  }
  if (exec->decide)
    decide_exec (exec);
  else
    run_exec (exec);
}

/* One sandbox per session, made at the first command. */
static void
ensure_sandbox_and_run (ExecCall *exec)
{
  WardenAgent *self = exec->self;
  g_autoptr(WardenSandboxConfig) config = NULL;
  g_autoptr(GError) error = NULL;

  if (self->hosts == NULL)
    {
      self->hosts = warden_host_gate_new (self->store, self->info->id);
      warden_host_gate_set_profile (self->hosts, self->profile);
    }

  if (self->sandbox != NULL && self->sandbox_ready)
    {
      if (exec->decide)
        decide_exec (exec);
      else
        run_exec (exec);
      return;
    }
  /* Given up (the engine went away mid-command): the same sandbox prepares
   * again, and removes what it left behind first. */
  if (self->sandbox != NULL)
    {
      _warden_agent_set_sandbox_state (self, WARDEN_SANDBOX_STATE_PREPARING, 0, NULL);
      warden_sandbox_prepare_async (self->sandbox, g_task_get_cancellable (self->run),
                                    prepare_cb, exec);
      return;
    }

  config = warden_sandbox_config_new (self->config.workspace);
  /* The image the user chose for this session, else the one its profile
   * names (node:20-slim for the built-in Node.js one), else Debian. */
  config->image = g_strdup (self->config.image ? self->config.image
                            : self->profile && warden_profile_get_image (self->profile)
                            ? warden_profile_get_image (self->profile)
                            : WARDEN_DEFAULT_IMAGE);
  config->memory_bytes = self->config.memory_bytes;
  config->cpus = self->config.cpus;
  /* Then the network, which makes the proxy of an allowlist. */
  if (!warden_flatpak_check_backend (self->config.sandbox, &error) ||
      !warden_flatpak_check_workspace (self->config.workspace, &error) ||
      !warden_host_gate_setup (self->hosts, self->config.sandbox, self->config.network,
                               self->config.network_override, config, &error))
    {
      _warden_agent_set_sandbox_state (self, WARDEN_SANDBOX_STATE_FAILED, 0, error->message);
      sandbox_failed (exec, error);
      return;
    }
  self->sandbox = warden_sandbox_new_for_kind (self->config.sandbox, config);
  g_signal_connect_object (self->sandbox, "progress", G_CALLBACK (sandbox_progress_cb), self, 0);
  _warden_agent_set_sandbox_state (self, WARDEN_SANDBOX_STATE_PREPARING, 0, NULL);
  warden_sandbox_prepare_async (self->sandbox, g_task_get_cancellable (self->run), prepare_cb,
                                exec);
}

WardenDecision *
_warden_agent_check_command (WardenAgent    *self,
                             WardenToolCall *call)
{
  g_auto(GStrv) env = warden_tool_call_dup_env (call);
  WardenCheckContext ctx = {
    .workspace = _warden_agent_workspace_inside (self),
    .host_workspace = self->config.workspace,
    .cwd = warden_tool_call_get_arg (call, "cwd"),
    .env = (const char * const *) env,
  };

  return warden_policy_check (self->policy, warden_tool_call_get_arg (call, "command"), -1, &ctx);
}

void
_warden_agent_start_exec (WardenAgent    *self,
                          WardenToolCall *call)
{
  const char *command = warden_tool_call_get_arg (call, "command");
  ExecCall *exec;

  if (command == NULL || *command == '\0')
    {
      _warden_agent_tool_done (self, call, WARDEN_TOOL_CALL_FINISHED,
                               "Error: exec needs a non-empty \"command\" string", TRUE);
      return;
    }

  exec = g_new0 (ExecCall, 1);
  exec->self = g_object_ref (self);
  exec->call = call;

  /* The sandbox first: nobody is asked to approve a command that cannot
   * run. */
  if (self->sandbox == NULL || !self->sandbox_ready)
    {
      exec->decide = TRUE;
      ensure_sandbox_and_run (exec);
      return;
    }
  decide_exec (exec);
}

static void
decide_exec (ExecCall *exec)
{
  WardenAgent *self = exec->self;
  WardenToolCall *call = exec->call;
  g_autoptr(WardenDecision) decision = NULL;

  exec->decide = FALSE;
  /* Approved by the user already (a resumed session, or just now). */
  if (warden_tool_call_get_state (call) == WARDEN_TOOL_CALL_APPROVED)
    {
      ensure_sandbox_and_run (exec);
      return;
    }

  decision = _warden_agent_check_command (self, call);

  switch (warden_decision_get_verdict (decision))
    {
    case WARDEN_VERDICT_ALLOW:
      {
        const char *pattern = NULL;

        for (guint i = 0; i < warden_decision_get_n_parts (decision) && pattern == NULL; i++)
          pattern = warden_decision_get_part (decision, i)->pattern;
        warden_tool_call_set_decision (call, WARDEN_TOOL_DECISION_AUTO_ALLOWED, pattern,
                                       warden_decision_get_reason (decision));
        ensure_sandbox_and_run (exec);
        return;
      }

    case WARDEN_VERDICT_DENY:
      {
        g_autofree char *msg = g_strdup_printf ("Command denied by the user's profile: %s",
                                                warden_decision_get_reason (decision));
        const char *pattern = NULL;

        for (guint i = 0; i < warden_decision_get_n_parts (decision); i++)
          if (warden_decision_get_part (decision, i)->verdict == WARDEN_VERDICT_DENY)
            {
              pattern = warden_decision_get_part (decision, i)->pattern;
              break;
            }
        warden_tool_call_set_decision (call, WARDEN_TOOL_DECISION_DENIED, pattern,
                                       warden_decision_get_reason (decision));
        exec->call = NULL;
        exec_call_free (exec);
        _warden_agent_tool_done (self, call, WARDEN_TOOL_CALL_DENIED, msg, TRUE);
        return;
      }

    case WARDEN_VERDICT_ASK:
    default:
      {
        warden_tool_call_set_decision (call, WARDEN_TOOL_DECISION_ASKED, NULL,
                                       warden_decision_get_reason (decision));
        exec->call = NULL;
        exec_call_free (exec);
        _warden_agent_ask (self, call, decision, NULL, NULL, NULL);
        return;
      }
    }
}

/* file tools ---------------------------------------------------------------*/

static char *
number_lines (const char *text,
              guint       first)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  GString *out = g_string_new (NULL);
  guint n = g_strv_length (lines);

  /* A final newline does not make a line. */
  if (n > 0 && lines[n - 1][0] == '\0')
    n--;
  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "%6u\t%s\n", first + i, lines[i]);
  if (out->len == 0)
    g_string_append (out, "(empty)\n");
  return g_string_free (out, FALSE);
}

/* The arguments each file tool needs; FALSE with a message for the model. */
static gboolean
file_args_valid (const char  *name,
                 JsonObject  *input,
                 GError     **error)
{
  const char *path = warden_json_get_string (input, "path");
  const char *message = NULL;

  if (strcmp (name, "read") == 0 && path == NULL)
    message = "read needs a \"path\"";
  else if (strcmp (name, "write") == 0 &&
           (path == NULL || warden_json_get_string (input, "content") == NULL))
    message = "write needs \"path\" and \"content\"";
  else if (strcmp (name, "edit") == 0 &&
           (path == NULL || warden_json_get_string (input, "old_string") == NULL ||
            warden_json_get_string (input, "new_string") == NULL))
    message = "edit needs \"path\", \"old_string\" and \"new_string\"";
  else if ((strcmp (name, "glob") == 0 || strcmp (name, "grep") == 0) &&
           warden_json_get_string (input, "pattern") == NULL)
    message = strcmp (name, "glob") == 0 ? "glob needs a \"pattern\"" : "grep needs a \"pattern\"";

  if (message == NULL)
    return TRUE;
  g_set_error_literal (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID, message);
  return FALSE;
}

/* Runs a file tool confined to the workspace, or, for a read, write or edit
 * the user approved, on exactly the @target they were shown. OUTSIDE and
 * PROTECTED errors come back for the caller to ask. */
/* What an edit would make of @old, or NULL where the edit itself fails
 * (the text is not there, or more than once without replace_all). */
static char *
edited_text (const char *old,
             const char *old_text,
             const char *new_text,
             gboolean    replace_all)
{
  g_autoptr(GString) out = NULL;
  const char *p = old;
  const char *hit;
  guint n = 0;

  if (old == NULL || old_text == NULL || *old_text == '\0' || new_text == NULL)
    return NULL;
  out = g_string_new (NULL);
  while ((hit = strstr (p, old_text)) != NULL)
    {
      n++;
      if (n > 1 && !replace_all)
        return NULL;
      g_string_append_len (out, p, hit - p);
      g_string_append (out, new_text);
      p = hit + strlen (old_text);
    }
  if (n == 0)
    return NULL;
  g_string_append (out, p);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* The diff a write or an edit makes (or would make) of the file @target
 * (or @path, confined to the workspace) holds now, for the user's eyes
 * only: the model is never given it. NULL for other tools, and when the
 * file cannot be read as the tool would open it. Runs in the tool thread. */
static char *
file_diff (WardenAgent                 *self,
           const char                  *name,
           JsonObject                  *input,
           const WardenWorkspaceTarget *target)
{
  const char *path = warden_json_get_string (input, "path");
  g_autoptr(GError) error = NULL;
  g_autofree char *old = NULL;
  g_autofree char *changed = NULL;
  gboolean writes = strcmp (name, "write") == 0;

  if (!writes && strcmp (name, "edit") != 0)
    return NULL;
  if (target != NULL && !target->exists)
    old = NULL;
  else
    {
      old = target != NULL
            ? warden_workspace_read_target (self->workspace, target, 0, 0, &error)
            : path != NULL ? warden_workspace_read (self->workspace, path, 0, 0, &error) : NULL;
      if (old == NULL)
        {
          if (g_error_matches (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_BINARY))
            return warden_diff_note (WARDEN_DIFF_BINARY);
          if (g_error_matches (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_TOO_LARGE))
            return warden_diff_note (WARDEN_DIFF_TOO_LARGE);
          /* A write makes a missing file; anything else fails the tool too. */
          if (!writes ||
              !g_error_matches (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_NOT_FOUND))
            return NULL;
        }
    }

  if (writes)
    {
      const char *content = warden_json_get_string (input, "content");

      if (content == NULL)
        return NULL;
      return warden_diff_unified (old, -1, content, -1, NULL);
    }
  {
    JsonNode *all = json_object_get_member (input, "replace_all");

    changed = edited_text (old, warden_json_get_string (input, "old_string"),
                           warden_json_get_string (input, "new_string"),
                           all && JSON_NODE_HOLDS_VALUE (all) && json_node_get_boolean (all));
  }
  return changed != NULL ? warden_diff_unified (old, -1, changed, -1, NULL) : NULL;
}

static char *
run_file_tool (WardenAgent                  *self,
               const char                   *name,
               JsonObject                   *input,
               const WardenWorkspaceTarget  *target,
               GCancellable                 *cancellable,
               GError                      **error)
{
  const char *path = warden_json_get_string (input, "path");
  const char *shown = target != NULL ? target->path : path;

  if (!file_args_valid (name, input, error))
    return NULL;

  if (strcmp (name, "read") == 0)
    {
      guint offset = (guint) MAX (warden_json_get_int (input, "offset", 1), 1);
      guint limit = (guint) MAX (warden_json_get_int (input, "limit", 0), 0);
      g_autofree char *text = NULL;

      text = target != NULL
             ? warden_workspace_read_target (self->workspace, target, offset - 1, limit, error)
             : warden_workspace_read (self->workspace, path, offset - 1, limit, error);
      return text ? number_lines (text, offset) : NULL;
    }

  if (strcmp (name, "write") == 0)
    {
      const char *content = warden_json_get_string (input, "content");

      if (target != NULL
          ? !warden_workspace_write_target (self->workspace, target, content, strlen (content),
                                            error)
          : !warden_workspace_write (self->workspace, path, content, strlen (content), error))
        return NULL;
      return g_strdup_printf ("Wrote %zu bytes to %s", strlen (content), shown);
    }

  if (strcmp (name, "edit") == 0)
    {
      const char *old_text = warden_json_get_string (input, "old_string");
      const char *new_text = warden_json_get_string (input, "new_string");
      JsonNode *all = json_object_get_member (input, "replace_all");
      gboolean replace_all = all && JSON_NODE_HOLDS_VALUE (all) && json_node_get_boolean (all);
      guint n;

      n = target != NULL
          ? warden_workspace_edit_target (self->workspace, target, old_text, new_text,
                                          replace_all, error)
          : warden_workspace_edit (self->workspace, path, old_text, new_text, replace_all, error);
      return n ? g_strdup_printf ("Replaced %u occurrence%s in %s", n, n == 1 ? "" : "s", shown)
               : NULL;
    }

  if (strcmp (name, "glob") == 0)
    {
      g_auto(GStrv) files = NULL;

      files = warden_workspace_glob (self->workspace, warden_json_get_string (input, "pattern"),
                                     warden_json_get_string (input, "cwd"), 0, cancellable, error);
      if (files == NULL)
        return NULL;
      return files[0] ? g_strjoinv ("\n", files) : g_strdup ("No files match.");
    }

  if (strcmp (name, "grep") == 0)
    {
      g_autoptr(GPtrArray) matches = NULL;
      GString *out;

      guint max_results = (guint) MAX (warden_json_get_int (input, "max_results", 0), 0);
      guint context = (guint) MAX (warden_json_get_int (input, "context_lines", 0), 0);

      matches = warden_workspace_grep (self->workspace, warden_json_get_string (input, "pattern"),
                                       NULL, warden_json_get_string (input, "include"),
                                       max_results, context,
                                       FALSE, cancellable, error);
      if (matches == NULL)
        return NULL;
      out = g_string_new (NULL);
      for (guint i = 0; i < matches->len; i++)
        {
          WardenGrepMatch *m = g_ptr_array_index (matches, i);

          for (guint k = 0; m->before && m->before[k]; k++)
            g_string_append_printf (out, "%s-%u- %s\n", m->path,
                                    m->line_number - g_strv_length (m->before) + k, m->before[k]);
          g_string_append_printf (out, "%s:%u: %s\n", m->path, m->line_number, m->line);
          for (guint k = 0; m->after && m->after[k]; k++)
            g_string_append_printf (out, "%s-%u- %s\n", m->path, m->line_number + 1 + k,
                                    m->after[k]);
        }
      if (out->len == 0)
        g_string_append (out, "No matches.");
      return g_string_free (out, FALSE);
    }

  g_set_error (error, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_FAILED, "unknown tool %s", name);
  return NULL;
}

/* File tools run in a thread: a grep over a big tree must not freeze a window. */
typedef struct
{
  WardenAgent           *self;
  WardenToolCall        *call;
  char                  *name;
  JsonNode              *input;
  /* Before the thread: the target the user approved, if any. After it, with
   * @ask: the target to ask about, the file the path leads to now. */
  WardenWorkspaceTarget *target;
  /* Before the thread: ask whatever the path (the profile, the host
   * backend). After it, with @ask: why it asks, as the prompt says it. */
  char                  *reason;
  gboolean               again;   /* ask whatever the path: it waited, or was approved, when
                                     Warden stopped */
  gboolean               ask;
  /* A write's or an edit's diff: what it would change (@ask), or what it
   * changed; handed to the call and the approval in the main thread. */
  char                  *diff;
  char                  *checkpoint;  /* a write's or an edit's: the files before it */
} FileCall;

static void
file_call_free (FileCall *call)
{
  g_object_unref (call->self);
  g_clear_object (&call->call);
  g_free (call->name);
  json_node_unref (call->input);
  warden_workspace_target_free (call->target);
  g_free (call->reason);
  g_free (call->diff);
  g_free (call->checkpoint);
  g_free (call);
}

static WardenWorkspaceAccess
access_for (const char *name)
{
  return strcmp (name, "write") == 0 ? WARDEN_WORKSPACE_ACCESS_WRITE
         : strcmp (name, "edit") == 0 ? WARDEN_WORKSPACE_ACCESS_EDIT
         : WARDEN_WORKSPACE_ACCESS_READ;
}

/* Why a prompt asks, and how the path the model gave led to its target:
 * named here too, as a view may show the model's path beside the reason. */
static char *
ask_reason (const char                  *why,
            const char                  *path,
            const WardenWorkspaceTarget *target)
{
  if (target->through_link)
    return g_strdup_printf ("%s; the agent asked for “%s”, which leads through a symbolic link "
                            "to “%s”", why, path, target->path);
  if (strcmp (path, target->path) != 0)
    return g_strdup_printf ("%s; the agent asked for “%s”, which is “%s”", why, path,
                            target->path);
  return g_strdup (why);
}

/* Why a file asks, from the refusal (@is_protected) or from where it is. */
static const char *
target_reason (WardenAgent                 *self,
               const WardenWorkspaceTarget *target,
               gboolean                     is_protected,
               gboolean                     writes)
{
  gsize len = strlen (self->config.workspace);

  if (!is_protected && writes && target->inside &&
      strncmp (target->path, self->config.workspace, len) == 0 && target->path[len] == '/')
    is_protected = warden_path_is_protected (target->path + len + 1);
  if (is_protected)
    return "it is a protected path: writing it can make git, a shell or an editor run "
           "something on this computer";
  if (!target->inside)
    return "it is outside the workspace";
  return "it waited for an answer when Warden stopped";
}

static void
file_tool_thread (GTask        *task,
                  gpointer      source,
                  gpointer      data,
                  GCancellable *cancellable)
{
  FileCall *call = data;
  JsonObject *input = json_node_get_object (call->input);
  const char *path = warden_json_get_string (input, "path");
  g_autoptr(GError) why = NULL;
  GError *error = NULL;
  char *result = NULL;

  if (g_cancellable_set_error_if_cancelled (cancellable, &error))
    {
      g_task_return_error (task, error);
      return;
    }

  if (call->target != NULL || (call->reason == NULL && !call->again))
    {
      /* Read before it changes: the diff of what the tool does. */
      g_autofree char *diff = file_diff (call->self, call->name, input, call->target);

      /* The files before a write or an edit, so that it can be undone. */
      if (access_for (call->name) != WARDEN_WORKSPACE_ACCESS_READ)
        {
          g_autofree char *message = g_strdup_printf ("before %s",
                                                      warden_tool_call_get_id (call->call));

          call->checkpoint = _warden_agent_record_checkpoint (call->self, message);
        }

      result = run_file_tool (call->self, call->name, input, call->target, cancellable, &error);
      if (result != NULL)
        call->diff = g_steal_pointer (&diff);
    }
  else
    file_args_valid (call->name, input, &error);

  if (call->target == NULL &&
      ((call->reason != NULL && error == NULL) || (call->again && error == NULL) ||
       g_error_matches (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE) ||
       g_error_matches (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_PROTECTED)))
    {
      const char *because = call->reason;

      /* The user is asked about the file the path leads to now, which is
       * what an approval opens; what could not be approved (a device, a
       * missing file) is the model's error at once. */
      why = g_steal_pointer (&error);
      call->target = warden_workspace_resolve (call->self->workspace, path,
                                               access_for (call->name), &error);
      if (call->target != NULL)
        {
          g_autofree char *reason = NULL;

          if (because == NULL)
            because = target_reason (call->self, call->target,
                                     g_error_matches (why, WARDEN_WORKSPACE_ERROR,
                                                      WARDEN_WORKSPACE_ERROR_PROTECTED),
                                     access_for (call->name) != WARDEN_WORKSPACE_ACCESS_READ);
          reason = ask_reason (because, path, call->target);
          g_free (call->reason);
          call->reason = g_steal_pointer (&reason);
          call->ask = TRUE;
          /* Of the file the approval opens, as it is now. */
          g_clear_pointer (&call->diff, g_free);
          call->diff = file_diff (call->self, call->name, input, call->target);
          g_task_return_pointer (task, NULL, NULL);
          return;
        }
    }

  if (result != NULL)
    g_task_return_pointer (task, result, g_free);
  else
    g_task_return_error (task, error);
}

static void
file_tool_done_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  FileCall *fc = g_task_get_task_data (G_TASK (result));
  WardenAgent *self = WARDEN_AGENT (object);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = g_task_propagate_pointer (G_TASK (result), &error);
  g_autoptr(WardenToolCall) call = g_steal_pointer (&fc->call);

  if (self->run == NULL)
    return;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      /* Stop: the call stays open, and is reported as stopped later. */
      _warden_agent_run_return (self, 0, g_steal_pointer (&error));
      return;
    }
  if (error == NULL && text == NULL && fc->ask)
    {
      /* In memory only: the database is not trusted to say which file an
       * approval opens (a resumed session looks the path up and asks again). */
      g_clear_pointer (&self->asked_target, warden_workspace_target_free);
      self->asked_target = g_steal_pointer (&fc->target);
      g_free (self->asked_id);
      self->asked_id = g_strdup (warden_tool_call_get_id (call));
      _warden_agent_ask (self, g_steal_pointer (&call), NULL, self->asked_target->path,
                         fc->reason, fc->diff);
      return;
    }
  if (text == NULL)
    {
      g_autofree char *msg = g_strdup_printf ("Error: %s", error->message);

      _warden_agent_tool_done (self, g_steal_pointer (&call), WARDEN_TOOL_CALL_FINISHED, msg,
                               TRUE);
      return;
    }
  if (warden_tool_call_get_decision (call) == WARDEN_TOOL_DECISION_NONE && fc->target != NULL)
    warden_tool_call_set_decision (call, WARDEN_TOOL_DECISION_APPROVED, NULL, NULL);
  /* A step to restore to only when it wrote: one that asks first records
   * its checkpoint again once approved, one that failed changed nothing. */
  _warden_agent_note_checkpoint (self, call, fc->checkpoint);
  if (fc->diff != NULL)
    warden_tool_call_set_diff (call, fc->diff);
  _warden_agent_tool_done (self, g_steal_pointer (&call), WARDEN_TOOL_CALL_FINISHED, text, FALSE);
}

/* @waiting: the call waited for the user when the session was left; it
 * asks again whatever the rules say now, about where the path leads now. */
void
_warden_agent_start_file_tool (WardenAgent    *self,
                               WardenToolCall *call,
                               gboolean        waiting)
{
  g_autoptr(GTask) task = NULL;
  WardenToolKind kind = warden_tool_call_get_kind (call);
  const char *name = warden_tool_call_get_name (call);
  gboolean approved = warden_tool_call_get_state (call) == WARDEN_TOOL_CALL_APPROVED;
  gboolean writes = kind == WARDEN_TOOL_KIND_WRITE || kind == WARDEN_TOOL_KIND_EDIT;
  gboolean opens = writes || kind == WARDEN_TOOL_KIND_READ;
  FileCall *fc;

  fc = g_new0 (FileCall, 1);
  fc->self = g_object_ref (self);
  fc->name = g_strdup (name);
  fc->input = json_node_init_object (json_node_alloc (), warden_tool_call_get_input (call));

  if (approved && opens)
    {
      if (self->asked_target != NULL &&
          g_strcmp0 (self->asked_id, warden_tool_call_get_id (call)) == 0)
        fc->target = g_steal_pointer (&self->asked_target);
      else
        fc->again = TRUE;
      g_clear_pointer (&self->asked_id, g_free);
    }
  else if (writes && self->file_write == WARDEN_FILE_WRITE_NEVER)
    {
      g_autofree char *msg = NULL;
      const char *path = warden_tool_call_get_arg (call, "path");

      msg = g_strdup_printf ("Error: the user's profile does not let the write and edit tools "
                             "change files (its files.write rule is “never”), so “%s” was not "
                             "changed. Tell the user what you would change instead.",
                             path ? path : "");
      warden_tool_call_set_decision (call, WARDEN_TOOL_DECISION_DENIED, NULL,
                                     "the profile's files.write rule is “never”");
      file_call_free (fc);
      _warden_agent_tool_done (self, call, WARDEN_TOOL_CALL_DENIED, msg, TRUE);
      return;
    }
  else
    {
      /* Left waiting, it asks again whatever the rules say now; the rule
       * that asks now is still the reason given, as it was the first time. */
      fc->again = waiting;
      if (writes && self->file_write == WARDEN_FILE_WRITE_ASK)
        fc->reason = g_strdup ("the profile asks before every write or edit "
                               "(its files.write rule is “ask”)");
      /* On the host, writing is as dangerous as a command: ask, as the seed does. */
      else if (writes && self->config.sandbox == WARDEN_SANDBOX_KIND_HOST &&
               !self->config.host_writes_free)
        fc->reason = g_strdup ("the host backend does not confine writes");
    }

  g_signal_emit (self, AGENT_SIGNAL (TOOL_CALL), 0, call);
  fc->call = call;

  /* Stopped already: no thread to start (the call is reported as stopped). */
  {
    GError *error = NULL;

    if (g_cancellable_set_error_if_cancelled (g_task_get_cancellable (self->run), &error))
      {
        file_call_free (fc);
        _warden_agent_run_return (self, 0, error);
        return;
      }
  }

  task = g_task_new (self, g_task_get_cancellable (self->run), file_tool_done_cb, NULL);
  g_task_set_source_tag (task, _warden_agent_start_file_tool);
  g_task_set_task_data (task, fc, (GDestroyNotify) file_call_free);
  /* Stop ends a read or a search at once (the thread stops at its next
   * check); a write or edit that began is reported as it went. */
  if (writes)
    g_task_set_check_cancellable (task, FALSE);
  else
    g_task_set_return_on_cancel (task, TRUE);
  g_task_run_in_thread (task, file_tool_thread);
}
