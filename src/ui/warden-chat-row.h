/* warden-chat-row.h: how one entry of the conversation looks
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "warden-chat-item.h"

G_BEGIN_DECLS

#define WARDEN_TYPE_CHAT_ROW (warden_chat_row_get_type ())

G_DECLARE_FINAL_TYPE (WardenChatRow, warden_chat_row, WARDEN, CHAT_ROW, GtkWidget)

/* For a GtkSignalListItemFactory: new in setup, set_item in bind, and
 * set_item (NULL) in unbind, since rows are recycled.
 *
 * An approval card's buttons activate "win.approval-answer" with
 * "(sbbs)": (approval id, approved, allow always, text), where text is the
 * feedback with a rejection, "" to allow once, the answer to a question;
 * "Always allow…" activates "win.approval-show" with the approval id. */
GtkWidget      *warden_chat_row_new      (void);
WardenChatItem *warden_chat_row_get_item (WardenChatRow  *self);
void            warden_chat_row_set_item (WardenChatRow  *self,
                                          WardenChatItem *item);

G_END_DECLS
