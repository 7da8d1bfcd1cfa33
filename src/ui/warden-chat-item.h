/* warden-chat-item.h: one entry of a session's conversation, as the chat shows it
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "agent/warden-approval.h"

G_BEGIN_DECLS

typedef enum
{
  WARDEN_CHAT_ITEM_USER,       /* the user's task or follow-up */
  WARDEN_CHAT_ITEM_ASSISTANT,  /* the model's words (Markdown), growing while they stream */
  WARDEN_CHAT_ITEM_TOOL,       /* a tool call: its card */
  WARDEN_CHAT_ITEM_NOTICE,     /* a line from Warden itself: an error, "stopped", … */
} WardenChatItemKind;

#define WARDEN_TYPE_CHAT_ITEM (warden_chat_item_get_type ())

G_DECLARE_FINAL_TYPE (WardenChatItem, warden_chat_item, WARDEN, CHAT_ITEM, GObject)

WardenChatItem     *warden_chat_item_new              (WardenChatItemKind  kind,
                                                       const char         *text);
/* A tool call; @subject is the command (exec), the path (file tools) or the
 * question (ask_user). */
WardenChatItem     *warden_chat_item_new_tool         (const char         *tool_id,
                                                       const char         *tool_name,
                                                       const char         *subject);

WardenChatItemKind  warden_chat_item_get_kind         (WardenChatItem     *self);

/* Every setter notifies its property ("text", "state", …) only on a change,
 * so a row can bind to them while the item is live. */
const char         *warden_chat_item_get_text         (WardenChatItem     *self);
void                warden_chat_item_set_text         (WardenChatItem     *self,
                                                       const char         *text);
void                warden_chat_item_append_text      (WardenChatItem     *self,
                                                       const char         *text);

/* Tool calls. */
const char         *warden_chat_item_get_tool_id      (WardenChatItem     *self);
const char         *warden_chat_item_get_tool_name    (WardenChatItem     *self);
const char         *warden_chat_item_get_subject      (WardenChatItem     *self);
/* As in the store: pending, approved, running, finished, interrupted,
 * rejected, denied. */
const char         *warden_chat_item_get_state        (WardenChatItem     *self);
void                warden_chat_item_set_state        (WardenChatItem     *self,
                                                       const char         *state);
/* As in the store: auto-allowed, approved, approved-always, rejected,
 * denied, asked, none; with the pattern that decided and the user's
 * feedback when rejected. Notifies "decision". */
const char         *warden_chat_item_get_decision     (WardenChatItem     *self);
const char         *warden_chat_item_get_pattern      (WardenChatItem     *self);
const char         *warden_chat_item_get_reason       (WardenChatItem     *self);
const char         *warden_chat_item_get_feedback     (WardenChatItem     *self);
void                warden_chat_item_set_decision     (WardenChatItem     *self,
                                                       const char         *decision,
                                                       const char         *pattern,
                                                       const char         *reason,
                                                       const char         *feedback);
/* -1 until known. */
int                 warden_chat_item_get_exit_status  (WardenChatItem     *self);
gint64              warden_chat_item_get_duration_ms  (WardenChatItem     *self);
void                warden_chat_item_set_finished     (WardenChatItem     *self,
                                                       int                 exit_status,
                                                       gint64              duration_ms,
                                                       gboolean            is_error);
gboolean            warden_chat_item_get_is_error     (WardenChatItem     *self);
/* The command's output (or the tool's result); the first 64 KiB are kept
 * in the card, the terminal pane has the rest. Notifies "output". */
const char         *warden_chat_item_get_output       (WardenChatItem     *self);
void                warden_chat_item_append_output    (WardenChatItem     *self,
                                                       const char         *data);
void                warden_chat_item_set_output       (WardenChatItem     *self,
                                                       const char         *output);
/* The approval or question waiting on this call, or NULL once answered.
 * Notifies "approval". */
WardenApproval     *warden_chat_item_get_approval     (WardenChatItem     *self);
void                warden_chat_item_set_approval     (WardenChatItem     *self,
                                                       WardenApproval     *approval);

G_END_DECLS
