/* warden-window.h: the main window: sessions, chat, terminal
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "warden-session.h"
#include "warden-terminal.h"

G_BEGIN_DECLS

typedef struct _WardenApplication WardenApplication;

#define WARDEN_TYPE_WINDOW (warden_window_get_type ())

G_DECLARE_FINAL_TYPE (WardenWindow, warden_window, WARDEN, WINDOW, AdwApplicationWindow)

WardenWindow   *warden_window_new             (WardenApplication *app);

/* The session shown, or NULL. */
WardenSession  *warden_window_get_session     (WardenWindow      *self);
/* "Files restored to before step N", with Undo: the preview of restoring
 * to before @undo_step, the restore's own checkpoint. */
void            warden_window_toast_restored  (WardenWindow      *self,
                                               gint64             step,
                                               gint64             undo_step);
gboolean        warden_window_select_session  (WardenWindow      *self,
                                               const char        *id);
/* Whether the user sees @session now: the window is active and shows it. */
gboolean        warden_window_is_showing      (WardenWindow      *self,
                                               WardenSession     *session);
/* Shows @session and asks about @approval_id in a dialog, if it still waits. */
void            warden_window_show_approval   (WardenWindow      *self,
                                               WardenSession     *session,
                                               const char        *approval_id);
void            warden_window_new_session     (WardenWindow      *self);
/* Narrow: the leaflet shows one side at a time. */
gboolean        warden_window_get_folded      (WardenWindow      *self);
/* Whether the chat side is on screen (always, unless folded to the sidebar). */
gboolean        warden_window_get_showing_chat (WardenWindow     *self);

/* For tests and the benchmark. */
WardenTerminal *warden_window_get_terminal    (WardenWindow      *self);
GtkWidget      *warden_window_get_approval_dialog (WardenWindow  *self);
GtkWidget      *warden_window_get_new_session_dialog (WardenWindow *self);
GtkTextView    *warden_window_get_composer    (WardenWindow      *self);
GtkListView    *warden_window_get_chat_view   (WardenWindow      *self);
const char     *warden_window_get_banner      (WardenWindow      *self);
const char     *warden_window_get_page        (WardenWindow      *self);
/* What the header says of the sandbox ("Sandbox ready", …). */
const char     *warden_window_get_sandbox_status (WardenWindow   *self);
/* What the header says the session used ("24 in · 14 out · $0.01"), NULL
 * when it says nothing. */
const char     *warden_window_get_usage       (WardenWindow      *self);
/* Treat the window as focused (an X server without a window manager never
 * gives it focus). */
void            warden_window_set_assume_active (WardenWindow    *self,
                                                 gboolean         assume_active);

G_END_DECLS
