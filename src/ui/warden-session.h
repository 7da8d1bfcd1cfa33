/* warden-session.h: one session as the window shows it
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "agent/warden-agent.h"
#include "warden-chat-item.h"

G_BEGIN_DECLS

#define WARDEN_SESSION_ERROR (warden_session_error_quark ())

typedef enum
{
  WARDEN_SESSION_ERROR_NO_MODEL,   /* no provider: the session can be read, not run */
  WARDEN_SESSION_ERROR_BUSY,       /* a step is running */
  WARDEN_SESSION_ERROR_STALE,      /* the approval was answered already, or is not this one */
} WardenSessionError;

#define WARDEN_TYPE_SESSION (warden_session_get_type ())

G_DECLARE_FINAL_TYPE (WardenSession, warden_session, WARDEN, SESSION, GObject)

GQuark              warden_session_error_quark   (void);

/* A new session, saved at once. @provider may not be NULL. */
WardenSession      *warden_session_new           (WardenSessionStore      *store,
                                                  WardenProfileStore      *profiles,
                                                  WardenLlmProvider       *provider,
                                                  const WardenAgentConfig *config,
                                                  const char              *title,
                                                  GError                 **error);
/* A stored session with its whole history. With @provider NULL it can be
 * read but not run (no model is configured); set_provider() later. */
WardenSession      *warden_session_open          (WardenSessionStore      *store,
                                                  WardenProfileStore      *profiles,
                                                  WardenLlmProvider       *provider,
                                                  const char              *id,
                                                  GError                 **error);
gboolean            warden_session_set_provider  (WardenSession           *self,
                                                  WardenLlmProvider       *provider,
                                                  GError                 **error);

const char         *warden_session_get_id        (WardenSession           *self);
/* The stored title, else the first task; "New session" only before any task. */
const char         *warden_session_get_title     (WardenSession           *self);
/* Whether the user ever gave this session a task. */
gboolean            warden_session_has_task      (WardenSession           *self);
gboolean            warden_session_rename        (WardenSession           *self,
                                                  const char              *title,
                                                  GError                 **error);
const char         *warden_session_get_workspace (WardenSession           *self);
const char         *warden_session_get_profile   (WardenSession           *self);
gboolean            warden_session_set_profile   (WardenSession           *self,
                                                  const char              *profile_id,
                                                  GError                 **error);
/* The backend its commands run in: the agent's, or the stored row's before it has one. */
WardenSandboxKind   warden_session_get_sandbox   (WardenSession           *self);
const char         *warden_session_get_model     (WardenSession           *self);
/* What the session's requests used and cost, all its runs included. */
const WardenLlmUsage *warden_session_get_usage   (WardenSession           *self);
WardenAgent        *warden_session_get_agent     (WardenSession           *self);
/* A line from Warden in the chat ("Restored the files …"). */
void                warden_session_add_notice    (WardenSession           *self,
                                                  const char              *text);
/* The conversation: a GListModel of WardenChatItem. */
GListModel         *warden_session_get_items     (WardenSession           *self);
WardenChatItem     *warden_session_find_item     (WardenSession           *self,
                                                  const char              *tool_id);
/* The commands run so far, oldest first (for "would also allow"). */
GStrv               warden_session_dup_commands  (WardenSession           *self);

/* "running" while a step runs, "waiting" for the user, else "idle". */
const char         *warden_session_get_state     (WardenSession           *self);
gboolean            warden_session_get_busy      (WardenSession           *self);
/* The approval or question waiting for the user, or NULL. */
WardenApproval     *warden_session_get_pending   (WardenSession           *self);
/* Seconds the model has sent nothing of its answer; 0 when it answers. */
guint               warden_session_get_model_silent    (WardenSession *self);

/* Sends @text and runs until the model ends its turn or needs the user. */
gboolean            warden_session_send          (WardenSession           *self,
                                                  const char              *text,
                                                  GError                 **error);
/* Goes on after an error, max steps, or a restart. */
gboolean            warden_session_continue      (WardenSession           *self,
                                                  GError                 **error);
/* Cancels the running step: the request, or the running command. */
void                warden_session_stop          (WardenSession           *self);
/* Summarises the older turns now (warden_agent_compact_async()); busy
 * while it runs, a notice in the chat if it cannot. */
gboolean            warden_session_compact       (WardenSession           *self,
                                                  GError                 **error);
/* Answers the pending approval @approval_id; STALE if it is not pending.
 * @text: the feedback with a rejection, the pattern with allow_always, the
 * answer to a question. @via: dialog, card or notification. */
gboolean            warden_session_answer        (WardenSession           *self,
                                                  const char              *approval_id,
                                                  gboolean                 approved,
                                                  gboolean                 allow_always,
                                                  const char              *text,
                                                  const char              *via,
                                                  GError                 **error);
/* Takes the sandbox down; the session stays stored. */
void                warden_session_close_async   (WardenSession           *self,
                                                  GCancellable            *cancellable,
                                                  GAsyncReadyCallback      callback,
                                                  gpointer                 user_data);
gboolean            warden_session_close_finish  (WardenSession           *self,
                                                  GAsyncResult            *result,
                                                  GError                 **error);

/* Properties: "title", "profile", "state", "busy", "pending", "agent" (the
 * sandbox's state, progress and message are the agent's), "model-silent".
 * Signals:
 *   "command-started"  (WardenChatItem *item)   an exec began: its prompt line
 *   "command-output"   (const char *data)       its output as it arrives
 *   "command-finished" (WardenChatItem *item)   exit status and duration are set
 *   "approval"         (WardenApproval *approval)
 *   "approval-resolved" (const char *approval_id)
 *   "failed"           (GError *error)          a step ended with an error
 *   "finished"         (WardenAgentOutcome outcome)
 */

G_END_DECLS
