/* warden-trace.h: a session's timeline of model calls, tool calls and approvals
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "warden-session-store.h"

G_BEGIN_DECLS

/* The events of @session_id in time order, a GPtrArray of JsonObject
 * (json_object_unref): each has "type" ("model_call", "tool_call" or
 * "approval") and "time" (unix milliseconds), and the members that
 * warden_trace_to_json() documents. */
GPtrArray *warden_trace_list_events (WardenSessionStore  *store,
                                     const char          *session_id,
                                     GError             **error);
/* A pretty-printed JSON document:
 * {"version": 1,
 *  "session": {id, title, workspace, profile, sandbox, model, provider,
 *              created (unix ms), input_tokens, output_tokens},
 *  "events": [
 *    {"type": "model_call", "time", "seq", "latency_ms", "input_tokens", "output_tokens"},
 *    {"type": "tool_call", "time", "id", "name", "command" | "path" | "question" | "query",
 *     "cwd"?, "decision", "pattern", "state", "exit_status"?, "timed_out"?, "duration_ms"?,
 *     "feedback", "diff" (a write or an edit: what it changed, as the user saw it)},
 *    {"type": "approval", "time", "id", "name", "waited_ms", "answered_via",
 *     "answer": "approved" | "always" | "rejected" | "answered" | null (still waiting)}]}
 * Times are unix milliseconds; absent values are null. */
char      *warden_trace_to_json     (WardenSessionStore  *store,
                                     const char          *session_id,
                                     GError             **error);

G_END_DECLS
