/* warden-agent.h: the agent loop that drives one stored session (WardenSessionStore)
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "llm/warden-llm-provider.h"
#include "policy/warden-network.h"
#include "policy/warden-profile-store.h"
#include "sandbox/warden-sandbox-kind.h"
#include "warden-approval.h"
#include "warden-context.h"
#include "warden-instructions.h"
#include "warden-session-store.h"
#include "warden-tool-call.h"
#include "workspace/warden-checkpoints.h"
#include "agent/warden-agent-enums.h"

G_BEGIN_DECLS

#define WARDEN_AGENT_ERROR (warden_agent_error_quark ())

typedef enum
{
  WARDEN_AGENT_ERROR_FAILED,
  WARDEN_AGENT_ERROR_BUSY,        /* run while running */
  WARDEN_AGENT_ERROR_NO_PENDING,  /* resolve with nothing waiting */
  WARDEN_AGENT_ERROR_NOT_RECORDED, /* a command not started: its start could not be saved */
  WARDEN_AGENT_ERROR_SANDBOX,     /* no sandbox could be made: the turn stopped */
} WardenAgentError;

typedef enum
{
  WARDEN_AGENT_FINISHED,      /* the model ended its turn */
  WARDEN_AGENT_WAITING,       /* an approval or a question waits for the user */
  WARDEN_AGENT_MAX_STEPS,     /* stopped after the configured number of steps */
} WardenAgentOutcome;

/* Why a run ended with an error, beyond the store's and the provider's own
 * errors: WARDEN_AGENT_ERROR_NOT_RECORDED when a command was not started
 * because Warden could not record that it starts (it would run again after
 * a crash otherwise); WARDEN_AGENT_ERROR_SANDBOX when the sandbox could not
 * be prepared (no command of the turn could run; the command waits for a
 * resume). */

typedef struct
{
  char     *workspace;         /* the project folder on the host */
  char     *profile;           /* profile id (default "node") */
  /* AUTO: bwrap for a new session; in overrides, the stored one. */
  WardenSandboxKind  sandbox;
  /* The front end chose docker by itself (Automatic): when its image is
   * not here and cannot be pulled, the session goes on in bwrap. */
  gboolean  sandbox_fallback;
  char     *image;             /* docker */
  /* The network: with @network_override, @network over the profile's
   * (warden-cli --network; not stored); else the profile's, and @network
   * only for a profile without a network section (the settings' switch). */
  WardenNetworkMode  network;
  gboolean  network_override;
  guint     max_steps;         /* 0: 30 */
  guint     history;           /* messages sent to the model; 0: all that fit (older
                                * ones are summarised: docs/context.md) */
  guint     context_window;    /* the model's, in tokens; 0: Warden's table's figure
                                * for the model, else 32768 */
  gboolean  host_writes_free;  /* host backend: write and edit do not ask */
  guint     idle_seconds;      /* the sandbox goes after this long unused; 0: 3600 */
  guint64   memory_bytes;      /* docker: 0 means 2 GiB */
  double    cpus;              /* docker: 0 means 2 */
} WardenAgentConfig;

#define WARDEN_TYPE_AGENT (warden_agent_get_type ())

G_DECLARE_FINAL_TYPE (WardenAgent, warden_agent, WARDEN, AGENT, GObject)

GQuark             warden_agent_error_quark (void);

/* A new session, saved in @store at once. */
WardenAgent       *warden_agent_new        (WardenSessionStore       *store,
                                            WardenProfileStore       *profiles,
                                            WardenLlmProvider        *provider,
                                            const WardenAgentConfig  *config,
                                            GError                  **error);
/* A session from @store, as it was left: pending approvals pending again,
 * a command that started but never finished reported as interrupted. It
 * keeps its stored profile, sandbox and image unless @overrides (may be
 * NULL) sets them (non-NULL strings); the run limits (max_steps, history …)
 * are the overrides' (0: the defaults), as they are not stored. A @provider
 * other than the stored one (name, model, base URL) is recorded, as are the
 * overrides.
 *
 * Both calls take the session's lease (warden_session_store_acquire()): one
 * process drives a session at a time, and a second opener gets
 * WARDEN_STORE_ERROR_IN_USE naming the first. It is given back when the
 * agent is finalized. */
WardenAgent       *warden_agent_open       (WardenSessionStore       *store,
                                            WardenProfileStore       *profiles,
                                            WardenLlmProvider        *provider,
                                            const char               *session_id,
                                            const WardenAgentConfig  *overrides,
                                            GError                  **error);

const char        *warden_agent_get_session_id (WardenAgent *self);
/* The approval or question waiting for the user, or NULL. */
WardenApproval    *warden_agent_get_pending    (WardenAgent *self);
/* The container engine of the ready sandbox, as its user knows it ("Podman
 * 4.3.1, rootless", "Docker 20.10.24"); NULL for bwrap and host, or before
 * the sandbox is ready. */
char              *warden_agent_dup_engine_description (WardenAgent *self);
/* The backend the session's commands run in (never AUTO). */
WardenSandboxKind  warden_agent_get_sandbox_kind     (WardenAgent *self);
/* Where the session's sandbox stands, how far it is made (a fraction in
 * [0, 1], or -1 when not known) and what it says: while preparing, what
 * it does; when ready, what it cannot hold to; when failed, why. The
 * properties of the same names notify their changes. */
WardenSandboxState warden_agent_get_sandbox_state    (WardenAgent *self);
double             warden_agent_get_sandbox_fraction (WardenAgent *self);
const char        *warden_agent_get_sandbox_message  (WardenAgent *self);
/* What the ready sandbox cannot hold to, for a view's header (the
 * "sandbox-message" says why): programs its commands start are not
 * checked; the profile's hosts cannot be reached one by one, so it has no
 * network. */
gboolean           warden_agent_get_programs_unchecked  (WardenAgent *self);
gboolean           warden_agent_get_network_unavailable (WardenAgent *self);
guint              warden_agent_get_steps      (WardenAgent *self);
/* What the turn's requests used and cost (since the last task given to
 * warden_agent_run_async(), in this process), and the whole session's,
 * earlier runs included; "usage" says when they change. */
const WardenLlmUsage *warden_agent_get_turn_usage    (WardenAgent *self);
const WardenLlmUsage *warden_agent_get_session_usage (WardenAgent *self);
const char        *warden_agent_get_profile    (WardenAgent *self);
/* Checks later commands against another profile; saved with the session. */
gboolean           warden_agent_set_profile    (WardenAgent  *self,
                                                const char   *profile_id,
                                                GError      **error);
/* The session's name in lists; saved at once. */
gboolean           warden_agent_set_title      (WardenAgent  *self,
                                                const char   *title,
                                                GError      **error);
/* Reads the profile again, after it was edited. */
gboolean           warden_agent_reload_policy  (WardenAgent  *self,
                                                GError      **error);

/* Sends @task (NULL: just continue, after resolve or on a reopened session)
 * and runs the loop until the model ends its turn, the user is needed, or
 * the steps run out. Cancelling stops the request or the running command. */
void               warden_agent_run_async   (WardenAgent             *self,
                                             const char              *task,
                                             GCancellable            *cancellable,
                                             GAsyncReadyCallback      callback,
                                             gpointer                 user_data);
gboolean           warden_agent_run_finish  (WardenAgent             *self,
                                             GAsyncResult            *result,
                                             WardenAgentOutcome      *outcome,
                                             GError                 **error);
/* Why the caller cancels the run's GCancellable, said just before it does:
 * what a call the cancel stops records, and what the model reads of it (a
 * command stopped before it started stays approved and runs when the
 * session goes on). The first cause of a run holds; a cancel without one
 * is the user's Stop (WARDEN_TOOL_END_USER). */
void               warden_agent_set_stop_cause (WardenAgent          *self,
                                                WardenToolEnd         cause);

/* Records the user's answer to the pending approval (durably, before the
 * loop goes on); then call warden_agent_run_async() with no task. */
gboolean           warden_agent_resolve     (WardenAgent                *self,
                                             const WardenApprovalAnswer *answer,
                                             GError                    **error);

/* Puts the workspace's files back as they were before @step (a number of
 * the session's checkpoints: warden_tool_call_get_step(), or a restore's),
 * or with @preview only says what that would change. The restore is a
 * checkpoint of its own, so it can be undone; the model is told in its next
 * turn. Refused (WARDEN_AGENT_ERROR_BUSY) while the agent runs. finish:
 * the files it changes or changed (WardenFileChange, a protected path left
 * as it is marked skipped), with @preview the diff, else @new_step: the
 * restore's own step, to undo it (WardenCheckpointError,
 * WARDEN_STORE_ERROR_NOT_FOUND for no such step). */
void               warden_agent_restore_async  (WardenAgent          *self,
                                                gint64                step,
                                                gboolean              preview,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
GPtrArray         *warden_agent_restore_finish (WardenAgent          *self,
                                                GAsyncResult         *result,
                                                char                **diff,
                                                gint64               *new_step,
                                                GError              **error);

/* Takes the session's sandbox down (its container, with docker); the
 * session stays in the store and can be opened again. */
void               warden_agent_close_async  (WardenAgent          *self,
                                              GCancellable         *cancellable,
                                              GAsyncReadyCallback   callback,
                                              gpointer              user_data);
gboolean           warden_agent_close_finish (WardenAgent          *self,
                                              GAsyncResult         *result,
                                              GError              **error);

/* The context window requests are kept inside (a share of it, 80%), in
 * tokens: the configured one, else the known figure for the model, else
 * WARDEN_CONTEXT_DEFAULT_WINDOW. */
guint              warden_agent_get_context_window (WardenAgent *self);
/* From the next request on (0: the model's figure); not stored, like the
 * other run limits. */
void               warden_agent_set_context_window (WardenAgent *self,
                                                    guint        tokens);
/* The project's instructions the current turn gave the model (AGENTS.md,
 * else CLAUDE.md), or NULL; and why such a file was not read (a link out
 * of the workspace, not text), or NULL. The property "instructions"
 * notifies a change of either. */
const WardenInstructions *warden_agent_get_instructions         (WardenAgent *self);
const char        *warden_agent_get_instructions_problem (WardenAgent *self);
/* The summary that stands for the older messages in what the model is
 * sent, or NULL; and how many messages it stands for. */
const char        *warden_agent_get_summary    (WardenAgent *self);
guint              warden_agent_get_summarised (WardenAgent *self);

/* Summarises the older messages now (the window's menu item, the
 * terminal's /compact): a request without tools asks the model for a
 * summary, which replaces them in what it is sent from then on; the last
 * turns, pending tool calls and the instructions stay as they are. The
 * record keeps every message. BUSY while a run goes; FAILED when there is
 * nothing to summarise yet. "compacted" is emitted before it returns. */
void               warden_agent_compact_async  (WardenAgent          *self,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
gboolean           warden_agent_compact_finish (WardenAgent          *self,
                                                GAsyncResult         *result,
                                                GError              **error);

/* Signals:
 *   "text-delta"  (const char *text)                 the assistant's words as they stream
 *   "tool-use-start" (const char *id, const char *name) the model began a tool call
 *   "tool-call"   (WardenToolCall *call)             a tool call starts; bind to its properties
 *   "tool-result" (WardenToolCall *call)             it is settled; its result went to the model
 *   "waiting"     (guint seconds)                    the model has sent nothing for this
 *                 long (a notice every 30 s by default); 0 when it goes on
 *   "approval"    (WardenApproval *approval)         the loop waits for the user; or, with
 *                 a chain (warden_approval_get_chain()), a program a running
 *                 command started waits, and the run goes on: answer it with
 *                 warden_agent_resolve(), without a new run
 *   "approval-withdrawn" ()                          that program's command ended first
 *   "profile-copied" (const char *from, const char *to, const char *path)
 *                 Always allow copied the built-in profile (or file) @from to the
 *                 user's profile @to, saved at @path, which the session uses now;
 *                 a front end makes @to the default where @from was
 *   "output"      (int stream, const char *data)     a command's output as it arrives
 *   "usage"       ()                                 a request's usage was added to the
 *                 turn's and the session's (warden_agent_get_turn_usage())
 *   "retrying"    (guint attempt, guint delay_ms, const char *reason)
 *                 the request goes again: its text will stream again from the start
 *   "compacted"   (guint summarised, gint64 tokens_before, gint64 tokens_after,
 *                  WardenCompactReason reason, const char *summary)
 *                 the first @summarised messages are replaced by @summary in what
 *                 the model is sent; the request's estimated size went from
 *                 @tokens_before to @tokens_after
 *
 * Properties (read-only, notified):
 *   "sandbox-state"    (WardenSandboxState)
 *   "sandbox-fraction" (double)
 *   "sandbox-message"  (const char *)
 *   "instructions"     (WardenInstructions, boxed)
 */

G_END_DECLS
