/* warden-terminal.h: the read-only terminal pane that shows sandbox commands
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>
#include <vte/vte.h>

G_BEGIN_DECLS

#define WARDEN_TYPE_TERMINAL (warden_terminal_get_type ())

G_DECLARE_FINAL_TYPE (WardenTerminal, warden_terminal, WARDEN, TERMINAL, GtkWidget)

#define WARDEN_TERMINAL_SCROLLBACK_LINES 10000

GtkWidget   *warden_terminal_new            (void);
VteTerminal *warden_terminal_get_vte        (WardenTerminal *self);

/* "where $ command", like a shell's prompt; continuation lines get "> ".
 * Both go through warden_printable(): controls (C0 and C1), bidi and format
 * characters and odd spaces show as escapes ("\u009b", "\x1b", "\r"). */
void         warden_terminal_feed_command   (WardenTerminal *self,
                                             const char     *where,
                                             const char     *command);
/* The command's output as it arrives, in chunks split anywhere; lone "\n"
 * become "\r\n". Only colours (SGR), erase-in-line, "\r", "\b" and "\t" act;
 * every other control sequence and C1 control shows as an escape, so the
 * output cannot reach the prompt line above it. */
void         warden_terminal_feed_output    (WardenTerminal *self,
                                             const char     *data,
                                             gssize          length);
/* Ends the command's block: "[exit 2 · 1.3 s]" when it failed, "[4.2 s]"
 * when it succeeded but took a second or more, nothing otherwise.
 * A negative @duration_ms is unknown and left out. */
void         warden_terminal_feed_status    (WardenTerminal *self,
                                             int             exit_status,
                                             gint64          duration_ms);
/* Ends the command's block when it was stopped (Stop, or the time limit):
 * "[interrupted · 1.3 s]" in the failure colour. */
void         warden_terminal_feed_interrupted (WardenTerminal *self,
                                               gint64          duration_ms);
/* A dim, italic line from Warden itself ("Sandbox ready"). */
void         warden_terminal_feed_notice    (WardenTerminal *self,
                                             const char     *text);
/* Clears the screen and the scrollback. */
void         warden_terminal_reset          (WardenTerminal *self);
void         warden_terminal_show_search    (WardenTerminal *self);

G_END_DECLS
