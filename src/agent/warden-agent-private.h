/* warden-agent-private.h: what the agent's files share
 *
 * The agent is split by job, as GNOME Text Editor splits its window:
 *   warden-agent.c            the object, the loop over model requests and tool calls
 *   warden-agent-tools.c      running each tool: exec in the sandbox, the file tools
 *   warden-agent-approvals.c  asking the user, their answers, and what a resumed
 *                             session does with calls it finds half-done
 *   warden-agent-checkpoints.c  the workspace's files before each step, restores
 *   warden-agent-context.c    what the model is sent: the project's instructions,
 *                             and a conversation kept inside the context window
 *
 * A command that runs is a WardenCommandRun of its own (what it starts,
 * what it asks), the session's network a WardenHostGate: the agent hears
 * from them through their signals only.
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "warden-agent.h"

#include <json-glib/json-glib.h>

#include "policy/warden-policy.h"
#include "sandbox/warden-sandbox.h"
#include "workspace/warden-checkpoints.h"
#include "workspace/warden-workspace.h"
#include "warden-command-run.h"
#include "warden-context.h"
#include "warden-host-gate.h"
#include "warden-instructions.h"
#include "warden-tool-call.h"

G_BEGIN_DECLS

struct _WardenAgent
{
  GObject             parent_instance;

  WardenSessionStore *store;
  WardenProfileStore *profiles;
  WardenLlmProvider  *provider;
  WardenSessionRecord  *info;
  WardenAgentConfig   config;

  GPtrArray          *messages;     /* WardenLlmMessage, the whole conversation */
  GPtrArray          *tools;        /* WardenLlmTool */
  WardenProfile      *profile;      /* the session's, as last loaded */
  WardenPolicy       *policy;
  WardenWorkspace    *workspace;
  WardenSandbox      *sandbox;
  gboolean            sandbox_ready;
  gboolean            sandbox_given_up;  /* the engine went away mid-command */
  WardenSandboxState  sandbox_state;     /* and its fraction and message: properties */
  double              sandbox_fraction;
  char               *sandbox_message;
  char               *sandbox_lost;   /* why the sandbox is made again: said when ready */
  char               *fell_back;      /* why it is bwrap, not docker: said when ready */
  char               *gone_retried;   /* the call run again after its container went */
  guint               idle_id;

  WardenApproval     *pending;        /* the loop's own question */
  WardenCommandRun   *command;        /* the command that runs, and what it asks */
  WardenHostGate     *hosts;          /* the session's network */
  gboolean            leased;         /* this process holds the session's lease */
  guint               steps;
  WardenFileWrite     file_write;     /* the profile's rule for write and edit */
  WardenWorkspaceTarget *asked_target;  /* what the pending file approval opens */
  char               *asked_id;       /* its tool call */
  WardenCheckpoints  *checkpoints;    /* made on first use, in the thread that uses it */
  char               *exec_checkpoint;  /* the running command's checkpoint before it */
  gboolean            restoring;      /* a restore is under way: nothing starts */

  GTask              *run;          /* the run in progress */
  WardenToolEnd       stop_cause;   /* why its cancellable is cancelled; NONE: the user */
  WardenLlmMessage   *results;      /* tool results of the current assistant message */
  guint               tool_index;
  gint64              request_started;  /* monotonic µs, for the trace's latency */
  WardenLlmUsage      turn_usage;   /* the requests since the last task; the session's is info's */
  gulong              text_delta_id;
  gulong              retrying_id;
  gulong              tool_use_start_id;
  gulong              waiting_id;

  /* warden-agent-context.c */
  WardenInstructions *instructions;        /* as this turn read them; NULL: none */
  char               *instructions_problem; /* why the file there was not read */
  guint               summarised;          /* messages before this one are in… */
  char               *summary;             /* …this summary, in what the model is sent */
  gboolean            summarising;         /* a summary streams: its words are no answer */
  gboolean            compacting;          /* a summary the user asked for is on its way */
  gboolean            overflow_retried;    /* this request went again after "too long" */
  gboolean            reading_instructions; /* the turn's read of them is not in yet… */
  gboolean            request_waits;       /* …and the next request waits for it */
};

enum
{
  WARDEN_AGENT_SIGNAL_TEXT_DELTA,
  WARDEN_AGENT_SIGNAL_TOOL_CALL,
  WARDEN_AGENT_SIGNAL_TOOL_RESULT,
  WARDEN_AGENT_SIGNAL_APPROVAL,
  WARDEN_AGENT_SIGNAL_OUTPUT,
  WARDEN_AGENT_SIGNAL_RETRYING,
  WARDEN_AGENT_SIGNAL_TOOL_USE_START,
  WARDEN_AGENT_SIGNAL_WAITING,
  WARDEN_AGENT_SIGNAL_APPROVAL_WITHDRAWN,
  WARDEN_AGENT_SIGNAL_PROFILE_COPIED,
  WARDEN_AGENT_SIGNAL_USAGE,
  WARDEN_AGENT_SIGNAL_COMPACTED,
  WARDEN_AGENT_N_SIGNALS
};

extern guint _warden_agent_signals[WARDEN_AGENT_N_SIGNALS];
#define AGENT_SIGNAL(name) (_warden_agent_signals[WARDEN_AGENT_SIGNAL_##name])

/* warden-agent-approvals.c */
gboolean      _warden_agent_allow_always  (WardenAgent                *self,
                                           const char                 *pattern,
                                           GError                    **error);
/* Saves @pattern (several, one per line) into the profile's allow list, or
 * with @host its network allow list; a built-in profile is copied first. */
gboolean      _warden_agent_save_pattern  (WardenAgent                *self,
                                           const char                 *pattern,
                                           gboolean                    host,
                                           GError                    **error);

/* warden-agent.c */
void        _warden_agent_run_return        (WardenAgent         *self,
                                             WardenAgentOutcome   outcome,
                                             GError              *error);
WardenProfile *_warden_agent_lookup_profile (WardenAgent       *self,
                                             GError           **error);
gboolean    _warden_agent_load_policy       (WardenAgent         *self,
                                             GError             **error);
/* Adds a request's @usage (priced) to the turn's and the session's, saves
 * the session's, and emits "usage". */
void        _warden_agent_add_usage         (WardenAgent          *self,
                                             const WardenLlmUsage *usage);
gboolean    _warden_agent_append_message    (WardenAgent         *self,
                                             WardenLlmMessage    *message,
                                             GError             **error);
const char *_warden_agent_workspace_inside  (WardenAgent         *self);
void        _warden_agent_set_sandbox_state (WardenAgent        *self,
                                             WardenSandboxState  state,
                                             double              fraction,
                                             const char         *message);
/* Gives the model the call's result, records it, and goes on with the next
 * call. Takes @call. */
void        _warden_agent_tool_done         (WardenAgent         *self,
                                             WardenToolCall      *call,
                                             WardenToolCallState  state,
                                             const char          *result,
                                             gboolean             is_error);
/* Why the run was cancelled (never NONE). */
WardenToolEnd _warden_agent_stop_cause      (WardenAgent         *self);
/* Durable before anything acts on it; a failure is only logged where the
 * caller has nothing better to do (see run_exec() for where it matters). */
void        _warden_agent_save_call         (WardenAgent         *self,
                                             WardenToolCall      *call);

/* The system prompt, with the project's instructions as this turn read them. */
char       *_warden_agent_system_prompt     (WardenAgent         *self);
/* The next step: a request, or the end of the run when the steps are out. */
void        _warden_agent_request_model     (WardenAgent         *self);
/* Sends the next request as it stands (see _warden_agent_view()). */
void        _warden_agent_send_request      (WardenAgent         *self);

/* warden-agent-context.c */
/* Reads AGENTS.md (or CLAUDE.md) again; "instructions" is notified when
 * what the model gets changes. */
void        _warden_agent_read_instructions (WardenAgent         *self);
/* The same in a thread, at the start of a turn: a request waits for it
 * (reading_instructions), and is made when it is in (request_waits). */
void        _warden_agent_read_instructions_async (WardenAgent   *self);
/* The stored summary a resumed session goes on with. */
gboolean    _warden_agent_load_summary      (WardenAgent         *self,
                                             GError             **error);
/* What the model is sent of the conversation: the summary, then the
 * messages after it, long tool outputs cut (@hard: cut shorter). A
 * GPtrArray of WardenLlmMessage. */
GPtrArray  *_warden_agent_view              (WardenAgent         *self,
                                             gboolean             hard);
/* Whether the next request would pass the share of the window it may use. */
gboolean    _warden_agent_over_share        (WardenAgent         *self);
/* Asks the model, without tools, to summarise the older messages; the
 * summary is stored and replaces them in what the model is sent. @hard
 * keeps fewer of the last messages. Returns TRUE too when there was
 * nothing to summarise and @reason is not MANUAL. */
void        _warden_agent_compact_async     (WardenAgent         *self,
                                             WardenCompactReason  reason,
                                             gboolean             hard,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
gboolean    _warden_agent_compact_finish    (WardenAgent         *self,
                                             GAsyncResult        *result,
                                             GError             **error);

/* warden-agent-tools.c */
/* The policy's decision about @call's command where it runs: its cwd, its
 * environment, the workspace. */
WardenDecision *_warden_agent_check_command (WardenAgent         *self,
                                             WardenToolCall      *call);
/* The running command goes (it ended, or the agent does). */
void        _warden_agent_clear_command     (WardenAgent         *self);
/* Each takes @call. */
void        _warden_agent_start_exec        (WardenAgent         *self,
                                             WardenToolCall      *call);
void        _warden_agent_start_file_tool   (WardenAgent         *self,
                                             WardenToolCall      *call,
                                             gboolean             waiting);

/* warden-agent-checkpoints.c */
typedef void (*WardenAgentStepDone) (WardenAgent *self,
                                     gpointer     data);
/* In a thread: the workspace now, in its shadow repository; NULL (logged)
 * if it cannot be recorded, and the step runs without. */
char       *_warden_agent_record_checkpoint (WardenAgent         *self,
                                             const char          *message);
/* In the main thread: @commit comes before @call, in the store and on the call. */
void        _warden_agent_note_checkpoint   (WardenAgent         *self,
                                             WardenToolCall      *call,
                                             const char          *commit);
/* Around a command: the checkpoint before it, and after it what it
 * changed (on the call and in the store); then @done. */
void        _warden_agent_checkpoint_before (WardenAgent         *self,
                                             WardenToolCall      *call,
                                             WardenAgentStepDone  done,
                                             gpointer             data);
void        _warden_agent_checkpoint_after  (WardenAgent         *self,
                                             WardenToolCall      *call,
                                             WardenAgentStepDone  done,
                                             gpointer             data);

/* warden-agent-approvals.c */
/* The call of @block, tool call @index of message @seq: as the store has
 * it, or new. Each place has its own record: a call that repeats an id used
 * elsewhere in the conversation gets an id of its own, "ID#SEQ.INDEX". */
WardenToolCall *_warden_agent_call_for      (WardenAgent          *self,
                                             gint64                seq,
                                             int                   index,
                                             const WardenLlmBlock *block);
/* Asks the user about @call, and suspends the loop until they answer: the
 * one way a question is made, fresh or after a restart (see
 * warden_approval_new_for_call() for the arguments). Takes @call. */
void        _warden_agent_ask               (WardenAgent         *self,
                                             WardenToolCall      *call,
                                             WardenDecision      *decision,
                                             const char          *target,
                                             const char          *reason,
                                             const char          *diff);
/* A call a resumed session finds settled, started, waiting or rejected:
 * handles it (taking @call) and returns TRUE; FALSE for a call to run. */
gboolean    _warden_agent_resume_call       (WardenAgent         *self,
                                             WardenToolCall      *call);
/* After a stop, every tool call of the last answer gets a result. */
gboolean    _warden_agent_close_open_calls  (WardenAgent         *self,
                                             GError             **error);
/* What the model reads of a rejection, so it changes course. */
char       *_warden_agent_rejection_text    (WardenToolCall      *call);

G_END_DECLS
