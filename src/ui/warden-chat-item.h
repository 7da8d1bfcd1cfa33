/* warden-chat-item.h: one entry of a session's conversation, as the chat shows it
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "agent/warden-agent-enums.h"
#include "agent/warden-approval.h"
#include "agent/warden-tool-call.h"

G_BEGIN_DECLS

typedef enum
{
  WARDEN_CHAT_ITEM_USER,       /* the user's task or follow-up */
  WARDEN_CHAT_ITEM_ASSISTANT,  /* the model's words (Markdown), growing while they stream */
  WARDEN_CHAT_ITEM_TOOL,       /* a tool call: its card */
  WARDEN_CHAT_ITEM_NOTICE,     /* a line from Warden itself: an error, "stopped", … */
  WARDEN_CHAT_ITEM_SUMMARY,    /* the model is sent this summary instead of what is above */
} WardenChatItemKind;

#define WARDEN_TYPE_CHAT_ITEM (warden_chat_item_get_type ())

G_DECLARE_FINAL_TYPE (WardenChatItem, warden_chat_item, WARDEN, CHAT_ITEM, GObject)

WardenChatItem     *warden_chat_item_new              (WardenChatItemKind  kind,
                                                       const char         *text);
/* The card of a tool call: it follows @call ("state", "decision", "output",
 * exit status and duration are the call's, as they change). */
WardenChatItem     *warden_chat_item_new_for_call     (WardenToolCall     *call);
/* A card whose call the view does not have yet (a question or an approval
 * the agent asks before it hands the call over); @subject is the command
 * (exec), the path (file tools) or the question (ask_user). */
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
WardenToolKind      warden_chat_item_get_tool_kind    (WardenChatItem     *self);
const char         *warden_chat_item_get_subject      (WardenChatItem     *self);
/* The call the card follows, or NULL before the agent handed it over. A
 * later call object for the same tool call (the agent's live one after the
 * stored one, say) replaces it: the card then follows that. Notifies "call". */
WardenToolCall     *warden_chat_item_get_call         (WardenChatItem     *self);
void                warden_chat_item_set_call         (WardenChatItem     *self,
                                                       WardenToolCall     *call);
/* The call's state and how it was decided, with the pattern that decided,
 * why, and the user's words (a rejection's feedback, an answer). The
 * setters are for what the view knows before or beyond the call: a card
 * still without one, or a command the user stopped (its call stays
 * "running" until the agent reports it). A later change of the call wins. */
WardenToolCallState warden_chat_item_get_state        (WardenChatItem     *self);
void                warden_chat_item_set_state        (WardenChatItem     *self,
                                                       WardenToolCallState state);
WardenToolDecision  warden_chat_item_get_decision     (WardenChatItem     *self);
const char         *warden_chat_item_get_pattern      (WardenChatItem     *self);
const char         *warden_chat_item_get_reason       (WardenChatItem     *self);
const char         *warden_chat_item_get_feedback     (WardenChatItem     *self);
void                warden_chat_item_set_decision     (WardenChatItem     *self,
                                                       WardenToolDecision  decision,
                                                       const char         *pattern,
                                                       const char         *reason,
                                                       const char         *feedback);
/* The call's exit code and duration: -1 until known. */
int                 warden_chat_item_get_exit_status  (WardenChatItem     *self);
gint64              warden_chat_item_get_duration_ms  (WardenChatItem     *self);
gboolean            warden_chat_item_get_is_error     (WardenChatItem     *self);
/* The call's output (a command's, as it arrives, or the tool's result); the
 * first 64 KiB are kept in the card, the terminal pane has the rest.
 * Notifies "output". */
const char         *warden_chat_item_get_output       (WardenChatItem     *self);
/* The approval or question waiting on this call, or NULL once answered.
 * Notifies "approval". */
WardenApproval     *warden_chat_item_get_approval     (WardenChatItem     *self);
void                warden_chat_item_set_approval     (WardenChatItem     *self,
                                                       WardenApproval     *approval);
/* A write's or an edit's diff (warden-diff.h): the call's, or the
 * approval's while it asks; the last one given stays when a later call
 * object has none. NULL if there never was one. Notifies "diff". */
const char         *warden_chat_item_get_diff         (WardenChatItem     *self);

/* The call's checkpoint ("step"): the files before it can be put back;
 * 0 when it has none. And what its command changed ("changes", a GPtrArray
 * of WardenFileChange), NULL when not known. */
gint64              warden_chat_item_get_step         (WardenChatItem     *self);
GPtrArray          *warden_chat_item_get_changes      (WardenChatItem     *self);

G_END_DECLS
