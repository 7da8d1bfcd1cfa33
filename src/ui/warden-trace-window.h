/* warden-trace-window.h: a session's timeline, and its export as JSON
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "agent/warden-session-store.h"

G_BEGIN_DECLS

#define WARDEN_TYPE_TRACE_WINDOW (warden_trace_window_get_type ())

G_DECLARE_FINAL_TYPE (WardenTraceWindow, warden_trace_window, WARDEN, TRACE_WINDOW, AdwWindow)

GtkWidget *warden_trace_window_new          (GtkWindow          *parent,
                                             WardenSessionStore *store,
                                             const char         *session_id);
/* Reads the session's events again (the "Refresh" button). */
void       warden_trace_window_refresh      (WardenTraceWindow  *self);
/* The rows of the timeline: one per model call, tool call and approval. */
guint      warden_trace_window_get_n_events (WardenTraceWindow  *self);
/* The summary line above the timeline. */
const char *warden_trace_window_get_summary (WardenTraceWindow  *self);
/* Where the export is suggested: Documents, else the home folder, never
 * inside the session's project; NULL when neither will do. */
GFile      *warden_trace_window_dup_export_folder   (WardenTraceWindow *self);
/* "<title>-trace.json", the title made a file name. */
char       *warden_trace_window_file_name_for_title (const char        *title);

G_END_DECLS
