/* warden-command-run.h: one command of the model's, from its start to its result
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "policy/warden-policy.h"
#include "net/warden-net-proxy.h"
#include "sandbox/warden-sandbox.h"
#include "warden-approval.h"
#include "warden-session-store.h"
#include "warden-tool-call.h"

G_BEGIN_DECLS

#define WARDEN_COMMAND_RUN_ERROR (warden_command_run_error_quark ())

typedef enum
{
  WARDEN_COMMAND_RUN_ERROR_NO_PENDING,  /* an answer with nothing waiting */
  WARDEN_COMMAND_RUN_ERROR_NO_PATTERN,  /* "Always allow" where no pattern can allow it */
} WardenCommandRunError;

GQuark            warden_command_run_error_quark (void);

/* What a command runs with; borrowed for the call to _new(), which keeps
 * what it needs. */
typedef struct
{
  WardenSessionStore *store;           /* where its rows go, durable as they change */
  WardenPolicy       *policy;          /* what decides about the programs it starts */
  WardenSandbox      *sandbox;         /* ready */
  WardenSandboxKind   sandbox_kind;    /* @sandbox's, as approvals name it */
  const char         *workspace;       /* the workspace as the command sees it */
  const char         *host_workspace;  /* the workspace on this computer */
  gboolean            check_programs;  /* the exec guard asks about every program it starts */
  GHashTable         *host_answers;    /* the session's answers about hosts, "host:port" →
                                        * 1 allowed, 2 refused: read, and added to */
} WardenCommandRunConfig;

#define WARDEN_TYPE_COMMAND_RUN (warden_command_run_get_type ())

G_DECLARE_FINAL_TYPE (WardenCommandRun, warden_command_run, WARDEN, COMMAND_RUN, GObject)

/* @call: an exec the profile allowed or the user approved, recorded as
 * running. */
WardenCommandRun *warden_command_run_new        (WardenToolCall                *call,
                                                 const WardenCommandRunConfig  *config);
WardenToolCall   *warden_command_run_get_call   (WardenCommandRun              *self);
/* Runs it in the sandbox; "finished" says when it ended. Cancelling stops it. */
void              warden_command_run_start      (WardenCommandRun              *self,
                                                 GCancellable                  *cancellable);
/* After "finished": what the model is given (warden_tool_call_exec_result_json()),
 * or NULL when it did not run to an end (the error said why). */
const char       *warden_command_run_get_result (WardenCommandRun              *self);
/* After "finished": whether it was handed to the sandbox to start; FALSE
 * when it was stopped before (nothing of it ran). */
gboolean          warden_command_run_get_started (WardenCommandRun             *self);
/* What it asked about, and the programs and hosts refused or allowed on
 * the way (WardenToolCall rows, in order). */
GPtrArray        *warden_command_run_get_rows   (WardenCommandRun              *self);

/* The question before the user now (a program it started, a host it
 * wants), or NULL. */
WardenApproval   *warden_command_run_get_pending (WardenCommandRun             *self);
/* The user's answer to it: recorded, and the program runs or is killed,
 * the connection goes through or is refused. WARDEN_AGENT_ERROR_NO_PENDING
 * when nothing waits (its command ended first). */
gboolean          warden_command_run_resolve    (WardenCommandRun              *self,
                                                 const WardenApprovalAnswer    *answer,
                                                 GError                       **error);
/* The profile changed ("Always allow"): later programs are judged by @policy. */
void              warden_command_run_set_policy (WardenCommandRun              *self,
                                                 WardenPolicy                  *policy);

/* The network gate's word about a connection the command opened: a
 * decision made without the user (@by: the profile or an earlier answer),
 * recorded; or a question for the user, the connection waiting meanwhile
 * and the command's time limit stopped. */
void              warden_command_run_note_host  (WardenCommandRun              *self,
                                                 const char                    *host,
                                                 guint                          port,
                                                 gboolean                       allowed,
                                                 WardenDecidedBy                by,
                                                 const char                    *pattern);
void              warden_command_run_ask_host   (WardenCommandRun              *self,
                                                 WardenNetRequest              *request,
                                                 const char                    *host,
                                                 guint                          port);

/* Signals:
 *   "output"   (int stream, const char *text)   what it prints, as it comes (and
 *              Warden's own lines about refused connections)
 *   "question" (WardenApproval *approval)       something waits for the user: answer
 *              with warden_command_run_resolve(); the command goes on meanwhile
 *   "question-withdrawn" ()                     that question cannot be answered any more:
 *              its connection or its command ended
 *   "always-allow" (const char *pattern, gboolean host, gpointer error) → gboolean
 *              the user chose "Always allow": the handler saves @pattern (several,
 *              one per line; @host: into the network allow list) and returns TRUE,
 *              or sets the GError ** @error and returns FALSE
 *   "finished" (const GError *error)            it ended: error NULL, see get_result();
 *              else why not (G_IO_ERROR_CANCELLED: stopped)
 */

G_END_DECLS
