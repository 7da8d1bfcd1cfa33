/* warden-agent-approvals.c: asking the user, their answers, and what a
 * resumed session does with the calls it finds half-done
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-agent"

#include <glib/gi18n.h>

#include "warden-agent-private.h"

#include <string.h>

#include "common/warden-json.h"

/* The record of a call as the store has it, or NULL; an id the model used
 * for a call elsewhere in the conversation gives the record of its own
 * place instead (@own: its id). */
static WardenToolCallRecord *
record_for (WardenAgent          *self,
            gint64                seq,
            int                   index,
            const WardenLlmBlock *block,
            char                **own)
{
  g_autoptr(WardenToolCallRecord) r = warden_session_store_get_tool_call (self->store,
                                                                          self->info->id,
                                                                          block->tool_use_id,
                                                                          NULL);

  /* Rows stored before their place was kept are taken as this place. */
  if (r == NULL || r->seq < 0 || (r->seq == seq && r->block == index))
    {
      *own = g_strdup (block->tool_use_id);
      return g_steal_pointer (&r);
    }
  *own = g_strdup_printf ("%s#%" G_GINT64_FORMAT ".%d", block->tool_use_id, seq, index);
  return warden_session_store_get_tool_call (self->store, self->info->id, *own, NULL);
}

WardenToolCall *
_warden_agent_call_for (WardenAgent          *self,
                        gint64                seq,
                        int                   index,
                        const WardenLlmBlock *block)
{
  g_autofree char *id = NULL;
  g_autoptr(WardenToolCallRecord) r = record_for (self, seq, index, block, &id);
  WardenToolCall *call;

  if (r == NULL)
    {
      call = warden_tool_call_new (self->info->id, id, block->tool_name, block->tool_input);
      warden_tool_call_set_position (call, seq, index);
      return call;
    }

  call = warden_tool_call_new_from_record (r);
  warden_tool_call_set_position (call, seq, index);
  if (warden_tool_call_get_state (call) == WARDEN_TOOL_CALL_APPROVED ||
      warden_tool_call_get_state (call) == WARDEN_TOOL_CALL_ANSWERED)
    {
      /* The user approved r->input_json (the store checks its seal); what
       * runs is the stored conversation's block. They must be the same. */
      g_autoptr(JsonNode) approved = r->input_json ? json_from_string (r->input_json, NULL) : NULL;

      if (approved == NULL || block->tool_input == NULL ||
          !json_node_equal (approved, block->tool_input))
        {
          /* What the user answers next is about this input. */
          g_object_unref (call);
          call = warden_tool_call_new (self->info->id, id, block->tool_name, block->tool_input);
          warden_tool_call_set_position (call, seq, index);
          warden_tool_call_set_state (call, WARDEN_TOOL_CALL_PENDING);
          warden_tool_call_set_decision (call, WARDEN_TOOL_DECISION_ASKED, NULL,
                                         WARDEN_STORE_UNVERIFIED_REASON);
          _warden_agent_save_call (self, call);
        }
    }
  return call;
}

/* The id and name of the copy "Always allow" saves into when the session's
 * profile is built in or a file; FALSE when it saves into the profile itself. The
 * name is the copy's if it exists, else the one it will be given. */
static gboolean
custom_copy (WardenAgent  *self,
             char        **id,
             char        **name)
{
  g_autoptr(WardenProfile) profile = _warden_agent_lookup_profile (self, NULL);
  g_autoptr(WardenProfile) existing = NULL;

  /* A profile file (run --profile FILE) is not Warden's to write either. */
  if (profile == NULL ||
      !(warden_profile_get_builtin (profile) || g_path_is_absolute (self->config.profile)))
    return FALSE;
  *id = g_strdup_printf ("%s-custom", warden_profile_get_id (profile));
  existing = warden_profile_store_lookup (self->profiles, *id, NULL);
  if (existing != NULL)
    *name = g_strdup (warden_profile_get_name (existing));
  else
    *name = g_strdup_printf (_("%s (yours)"), warden_profile_get_name (profile)
                                              ? warden_profile_get_name (profile)
                                              : warden_profile_get_id (profile));
  return TRUE;
}

void
_warden_agent_ask (WardenAgent    *self,
                   WardenToolCall *call,
                   WardenDecision *decision,
                   const char     *target,
                   const char     *reason,
                   const char     *diff)
{
  /* Takes @call: dropped on every way out. */
  G_GNUC_UNUSED g_autoptr(WardenToolCall) asked = call;
  g_autoptr(WardenApproval) approval = NULL;
  g_autofree char *copy_id = NULL;
  g_autofree char *copy_name = NULL;
  WardenApprovalContext context = {
    .sandbox = self->config.sandbox,
    .workspace = _warden_agent_workspace_inside (self),
    .decision = decision,
    .target = target,
    .reason = reason,
    .diff = diff,
  };

  /* The dialog says where "Always allow" saves before the user presses it. */
  if (warden_tool_call_get_kind (call) == WARDEN_TOOL_KIND_EXEC &&
      custom_copy (self, &copy_id, &copy_name))
    context.saves_into = copy_name;
  approval = warden_approval_new_for_call (call, &context);

  /* Asked again after a restart, it has waited since it was first asked. */
  if (warden_tool_call_get_state (call) != WARDEN_TOOL_CALL_PENDING)
    {
      warden_tool_call_set_state (call, WARDEN_TOOL_CALL_PENDING);
      warden_tool_call_mark_asked (call);
    }
  warden_tool_call_set_decision (call, WARDEN_TOOL_DECISION_ASKED, NULL, reason);
  if (diff != NULL)
    warden_tool_call_set_diff (call, diff);
  _warden_agent_save_call (self, call);  /* durable before the loop suspends */

  g_set_object (&self->pending, approval);
  g_signal_emit (self, AGENT_SIGNAL (APPROVAL), 0, approval);
  _warden_agent_run_return (self, WARDEN_AGENT_WAITING, NULL);
}

char *
_warden_agent_rejection_text (WardenToolCall *call)
{
  gboolean exec = warden_tool_call_get_kind (call) == WARDEN_TOOL_KIND_EXEC;
  const char *what = exec ? "Command" : "File access";
  const char *subject = warden_tool_call_get_arg (call, exec ? "command" : "path");
  const char *feedback = warden_tool_call_get_feedback (call);

  if (feedback && *feedback)
    return g_strdup_printf ("%s rejected by user: %s\nUser feedback: %s", what,
                            subject ? subject : "", feedback);
  return g_strdup_printf ("%s rejected by user: %s", what, subject ? subject : "");
}

/* The questions a command left waiting when Warden stopped with it. */
static void
interrupt_questions (WardenAgent *self,
                     const char  *parent_id)
{
  g_autoptr(GPtrArray) records = warden_session_store_list_tool_calls (self->store,
                                                                       self->info->id, NULL);

  for (guint i = 0; records != NULL && i < records->len; i++)
    {
      WardenToolCallRecord *r = g_ptr_array_index (records, i);
      g_autoptr(WardenToolCall) row = NULL;

      if (g_strcmp0 (r->parent_id, parent_id) != 0 || g_strcmp0 (r->state, "pending") != 0)
        continue;
      row = warden_tool_call_new_from_record (r);
      warden_tool_call_set_state (row, WARDEN_TOOL_CALL_INTERRUPTED);
      _warden_agent_save_call (self, row);
    }
}

gboolean
_warden_agent_resume_call (WardenAgent    *self,
                           WardenToolCall *call)
{
  WardenToolKind kind = warden_tool_call_get_kind (call);

  switch (warden_tool_call_get_state (call))
    {
    case WARDEN_TOOL_CALL_FINISHED:
    case WARDEN_TOOL_CALL_DENIED:
    case WARDEN_TOOL_CALL_REJECTED:
    case WARDEN_TOOL_CALL_INTERRUPTED:
      {
        /* Already settled in an earlier run of this session. */
        g_autofree char *result = g_strdup (warden_tool_call_get_result (call) ?: "");

        _warden_agent_tool_done (self, call, warden_tool_call_get_state (call), result,
                                 warden_tool_call_get_is_error (call));
        return TRUE;
      }

    case WARDEN_TOOL_CALL_RUNNING:
      /* Started, never finished: the process died around it. Not again;
       * what it asked then was never answered. */
      {
        g_autofree char *text = warden_tool_end_dup_message (WARDEN_TOOL_END_WARDEN_STOPPED,
                                                             TRUE);

        interrupt_questions (self, warden_tool_call_get_id (call));
        warden_tool_call_set_end (call, WARDEN_TOOL_END_WARDEN_STOPPED, TRUE);
        _warden_agent_tool_done (self, call, WARDEN_TOOL_CALL_INTERRUPTED, text, TRUE);
        return TRUE;
      }

    case WARDEN_TOOL_CALL_REJECTED_UNREPORTED:
      {
        g_autofree char *text = _warden_agent_rejection_text (call);

        _warden_agent_tool_done (self, call, WARDEN_TOOL_CALL_REJECTED, text, TRUE);
        return TRUE;
      }

    case WARDEN_TOOL_CALL_PENDING:
      /* A file call left waiting: the path is looked up again, and the
       * prompt names the file it leads to now (nothing of it is on disk). */
      if (warden_tool_call_get_input (call) != NULL &&
          (kind == WARDEN_TOOL_KIND_READ || kind == WARDEN_TOOL_KIND_WRITE ||
           kind == WARDEN_TOOL_KIND_EDIT))
        _warden_agent_start_file_tool (self, call, TRUE);
      else if (kind == WARDEN_TOOL_KIND_EXEC && warden_tool_call_get_arg (call, "command"))
        {
          /* Checked again as it will run: in its folder, with its variables. */
          g_autoptr(WardenDecision) decision = _warden_agent_check_command (self, call);

          _warden_agent_ask (self, call, decision, NULL, NULL, NULL);
        }
      else
        _warden_agent_ask (self, call, NULL, NULL, NULL, NULL);
      return TRUE;

    case WARDEN_TOOL_CALL_NEW:
    case WARDEN_TOOL_CALL_APPROVED:
    case WARDEN_TOOL_CALL_ANSWERED:
    default:
      return FALSE;
    }
}

gboolean
_warden_agent_close_open_calls (WardenAgent  *self,
                                GError      **error)
{
  WardenLlmMessage *last = self->messages->len
                           ? g_ptr_array_index (self->messages, self->messages->len - 1) : NULL;
  g_autoptr(WardenLlmMessage) results = NULL;

  if (last == NULL || warden_llm_message_get_role (last) != WARDEN_LLM_ROLE_ASSISTANT ||
      !warden_llm_message_has_tool_use (last))
    return TRUE;

  results = warden_llm_message_new (WARDEN_LLM_ROLE_USER);
  for (guint b = 0, index = 0; b < warden_llm_message_get_n_blocks (last); b++)
    {
      const WardenLlmBlock *block = warden_llm_message_get_block (last, b);
      g_autoptr(WardenToolCall) call = NULL;

      if (block->type != WARDEN_LLM_BLOCK_TOOL_USE)
        continue;
      call = _warden_agent_call_for (self, self->messages->len - 1, index++, block);
      if (warden_tool_call_get_state (call) == WARDEN_TOOL_CALL_REJECTED_UNREPORTED)
        {
          g_autofree char *text = _warden_agent_rejection_text (call);

          warden_tool_call_set_result (call, text, TRUE);
          warden_tool_call_set_state (call, WARDEN_TOOL_CALL_REJECTED);
          _warden_agent_save_call (self, call);
        }
      else if (!warden_tool_call_is_settled (call))
        {
          /* Started, never finished: Warden stopped around it. Else it
           * waited, or never started: the user went on without it. */
          gboolean ran = warden_tool_call_get_state (call) == WARDEN_TOOL_CALL_RUNNING;
          WardenToolEnd cause = ran ? WARDEN_TOOL_END_WARDEN_STOPPED : WARDEN_TOOL_END_NEW_TASK;
          g_autofree char *text = warden_tool_end_dup_message (cause, ran);

          warden_tool_call_set_result (call, text, TRUE);
          warden_tool_call_set_end (call, cause, ran);
          warden_tool_call_set_state (call, WARDEN_TOOL_CALL_INTERRUPTED);
          _warden_agent_save_call (self, call);
        }
      warden_llm_message_add_tool_result (results, block->tool_use_id,
                                          warden_tool_call_get_result (call) ?: "",
                                          warden_tool_call_get_state (call)
                                          != WARDEN_TOOL_CALL_FINISHED);
    }
  return _warden_agent_append_message (self, results, error);
}

/* Adds @pattern to the session's profile; a built-in one is copied to a
 * user profile first, which the session then uses. */
gboolean
_warden_agent_allow_always (WardenAgent  *self,
                            const char   *pattern,
                            GError      **error)
{
  return _warden_agent_save_pattern (self, pattern, FALSE, error);
}

gboolean
_warden_agent_save_pattern (WardenAgent  *self,
                            const char   *pattern,
                            gboolean      host,
                            GError      **error)
{
  g_autoptr(WardenProfile) profile = _warden_agent_lookup_profile (self, error);
  g_autofree char *from = NULL;   /* the built-in profile (or file) it leaves */

  if (profile == NULL)
    return FALSE;
  if (warden_profile_get_builtin (profile) || g_path_is_absolute (self->config.profile))
    {
      g_autofree char *id = NULL;
      g_autofree char *name = NULL;
      g_autoptr(WardenProfile) existing = NULL;
      gboolean fresh;
      g_autoptr(WardenProfile) builtin = g_steal_pointer (&profile);

      /* The name the dialog announced. */
      custom_copy (self, &id, &name);
      existing = warden_profile_store_lookup (self->profiles, id, NULL);
      fresh = existing == NULL;
      profile = fresh ? warden_profile_copy (builtin, id) : g_steal_pointer (&existing);
      if (fresh)
        warden_profile_set_name (profile, name);
      from = g_steal_pointer (&self->config.profile);
      self->config.profile = g_strdup (id);
      g_free (self->info->profile);
      self->info->profile = g_strdup (id);
    }
  {
    /* One pattern, or several, one per line (every asking part's). */
    g_auto(GStrv) patterns = g_strsplit (pattern, "\n", -1);

    for (guint i = 0; patterns[i] != NULL; i++)
      if (*patterns[i] != '\0' &&
          !(host ? warden_profile_add_network_allow (profile, patterns[i], error)
                 : warden_profile_add_allow (profile, patterns[i], error)))
        return FALSE;
  }
  if (!warden_profile_store_save (self->profiles, profile, error))
    return FALSE;
  if (!_warden_agent_load_policy (self, error))
    return FALSE;
  if (from != NULL)
    {
      g_autofree char *path = g_build_filename (warden_profile_store_get_user_dir (self->profiles),
                                                self->config.profile, NULL);
      g_autofree char *file = g_strconcat (path, ".json", NULL);

      g_signal_emit (self, AGENT_SIGNAL (PROFILE_COPIED), 0, from, self->config.profile, file);
    }
  return TRUE;
}

gboolean
warden_agent_resolve (WardenAgent                 *self,
                      const WardenApprovalAnswer  *answer,
                      GError                     **error)
{
  g_autoptr(WardenToolCallRecord) r = NULL;
  g_autoptr(WardenToolCallRecord) row = NULL;
  g_autoptr(WardenToolCall) call = NULL;
  WardenApproval *approval = self->pending;

  /* What a running command asked: the command goes on meanwhile. */
  if (approval == NULL && self->command != NULL &&
      warden_command_run_get_pending (self->command) != NULL)
    {
      g_autoptr(GError) local = NULL;

      if (warden_command_run_resolve (self->command, answer, &local))
        return TRUE;
      /* The agent's errors are the API: no pattern can do it is a failure
       * to answer that way, the question still waits. */
      if (local->domain == WARDEN_COMMAND_RUN_ERROR)
        g_set_error_literal (error, WARDEN_AGENT_ERROR,
                             local->code == WARDEN_COMMAND_RUN_ERROR_NO_PENDING
                             ? WARDEN_AGENT_ERROR_NO_PENDING : WARDEN_AGENT_ERROR_FAILED,
                             local->message);
      else
        g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  if (approval == NULL)
    {
      g_set_error (error, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_NO_PENDING,
                   _("Nothing is waiting for an answer"));
      return FALSE;
    }

  r = warden_session_store_get_tool_call (self->store, self->info->id,
                                          warden_approval_get_id (approval), error);
  if (r == NULL)
    return FALSE;
  call = warden_tool_call_new_from_record (r);

  if (warden_approval_get_kind (approval) == WARDEN_APPROVAL_QUESTION)
    {
      warden_tool_call_set_state (call, WARDEN_TOOL_CALL_ANSWERED);
      warden_tool_call_set_feedback (call, answer->answer ? answer->answer : "");
    }
  else if (answer->approved)
    {
      g_autofree char *pattern = NULL;

      if (answer->allow_always && warden_approval_get_kind (approval) == WARDEN_APPROVAL_COMMAND)
        {
          const char *uncovered_text = NULL, *uncovered_reason = NULL;
          const char * const *suggestions = warden_approval_get_suggestions (approval);

          /* Saving a pattern that would not make the command run without
           * asking only pretends: say so, and nothing is saved. */
          if (warden_approval_get_uncovered (approval, &uncovered_text, &uncovered_reason) &&
              (answer->pattern == NULL || *answer->pattern == '\0'))
            {
              g_set_error (error, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_FAILED,
                           _("No pattern can allow “%s” (%s): allow the command once, "
                             "or reject it"), uncovered_text, uncovered_reason);
              return FALSE;
            }
          if (answer->pattern && *answer->pattern)
            pattern = g_strdup (answer->pattern);
          else if (suggestions[0] != NULL)
            /* Every asking part's pattern, so the same command runs next time. */
            pattern = g_strjoinv ("\n", (char **) suggestions);
          if (pattern == NULL)
            {
              g_set_error (error, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_FAILED,
                           _("No pattern to save: give one"));
              return FALSE;
            }
          if (!_warden_agent_allow_always (self, pattern, error))
            return FALSE;
        }
      warden_tool_call_set_state (call, WARDEN_TOOL_CALL_APPROVED);
      warden_tool_call_set_decision (call, answer->allow_always
                                           ? WARDEN_TOOL_DECISION_APPROVED_ALWAYS
                                           : WARDEN_TOOL_DECISION_APPROVED, pattern, NULL);
    }
  else
    {
      /* Reported to the model when the loop goes on. */
      warden_tool_call_set_state (call, WARDEN_TOOL_CALL_REJECTED_UNREPORTED);
      warden_tool_call_set_decision (call, WARDEN_TOOL_DECISION_REJECTED, NULL, NULL);
      warden_tool_call_set_feedback (call, answer->feedback);
    }
  warden_tool_call_mark_answered (call, answer->via);

  /* Durable before anything runs. */
  row = warden_tool_call_to_record (call);
  if (!warden_session_store_save_tool_call (self->store, row, error))
    return FALSE;
  g_clear_object (&self->pending);
  return warden_session_store_save_session (self->store, self->info, error);
}
