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

/* A write's or an edit's diff (warden-diff.h), each line escaped through
 * warden_printable and coloured by what it is: Pango markup of at most
 * @max_lines lines; @n_lines gets how many the diff has. */
char           *warden_chat_row_diff_markup        (const char     *diff,
                                                    guint           max_lines,
                                                    guint          *n_lines);
/* The view of a diff that a card and the approval dialog show: "+3 −1",
 * the lines scrolling sideways, and (@collapsible) the first few with a
 * "Show all N lines" button; otherwise all of them in a bounded height.
 * Hidden while it has no diff. */
GtkWidget      *warden_chat_row_diff_view_new      (gboolean        collapsible);
void            warden_chat_row_diff_view_set_diff (GtkWidget      *view,
                                                    const char     *diff);
/* The file the diff changes: its name chooses the code's colours. */
void            warden_chat_row_diff_view_set_path (GtkWidget      *view,
                                                    const char     *path);
/* As warden_chat_row_diff_markup, the code coloured as @path's language is
 * in the light or dark scheme (NULL @path: not coloured). */
char           *warden_chat_row_diff_markup_for    (const char     *diff,
                                                    const char     *path,
                                                    gboolean        dark,
                                                    guint           max_lines,
                                                    guint          *n_lines);

G_END_DECLS
