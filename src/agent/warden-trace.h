/* warden-trace.h: a session's timeline of model calls, tool calls and approvals
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "warden-session-store.h"
#include "warden-tool-call.h"

G_BEGIN_DECLS

typedef enum
{
  WARDEN_TRACE_MODEL_CALL,  /* a request to the model */
  WARDEN_TRACE_TOOL_CALL,   /* a call of the model's */
  WARDEN_TRACE_PROGRAM,     /* a program a command started: refused, or asked about */
  WARDEN_TRACE_HOST,        /* a host a command wanted to reach */
  WARDEN_TRACE_APPROVAL,    /* the user was asked about a call, a program or a host */
  WARDEN_TRACE_COMPACTED,   /* older messages were summarised for the model */
} WardenTraceKind;

/* One event of the timeline, read from the store's rows. */
typedef struct
{
  WardenTraceKind        kind;
  gint64                 time;   /* unix milliseconds */
  WardenModelCallRecord  model;  /* MODEL_CALL */
  WardenToolCall        *call;   /* the others but COMPACTED: the row it is about */
  WardenCompactionRecord *compaction;  /* COMPACTED */
} WardenTraceEvent;

void       warden_trace_event_free  (WardenTraceEvent    *event);

/* The events of @session_id in time order, a GPtrArray of WardenTraceEvent. */
GPtrArray *warden_trace_list        (WardenSessionStore  *store,
                                     const char          *session_id,
                                     GError             **error);
/* The same as JSON objects (json_object_unref), each with "type"
 * ("model_call", "tool_call", "program", "host", "approval" or "compacted"), "time" and
 * the members that warden_trace_to_json() documents. */
GPtrArray *warden_trace_list_events (WardenSessionStore  *store,
                                     const char          *session_id,
                                     GError             **error);
/* A pretty-printed JSON document:
 * {"version": 1,
 *  "session": {id, title, workspace, profile, sandbox, model, provider,
 *              created (unix ms), input_tokens, output_tokens, cache_read_tokens,
 *              cache_write_tokens, cost_usd, requests (warden_llm_usage_to_json())},
 *  "events": [
 *    {"type": "model_call", "time", "seq", "latency_ms", "input_tokens", "output_tokens",
 *     "cache_read_tokens", "cache_write_tokens", "cost_usd",
 *     "instructions" (the SHA-256 of the AGENTS.md or CLAUDE.md the request carried, or null)},
 *    {"type": "compacted", "time", "summarised" (messages the summary stands for),
 *     "reason": "auto" | "manual" | "overflow", "tokens_before", "tokens_after" (estimates),
 *     "summary"},
 *    {"type": "tool_call", "time", "id", "name", "command" | "path" | "question" | "query",
 *     "cwd"?, "decision", "pattern", "state", "exit_status"?, "timed_out"?, "duration_ms"?,
 *     "feedback", "diff" (a write or an edit: what it changed, as the user saw it)},
 *    {"type": "program", "time", "id" (the command's), "question" (its own), "command",
 *     "cwd", "decision": "allowed" | "refused" | null (never answered), "by": "profile" |
 *     "user" | null, "pattern", "reason", "feedback"},
 *    {"type": "host", "time", "id" (the command's), "question", "host", "port", "decision",
 *     "by": "profile" | "user" | "session" | null, "pattern", "feedback"},
 *    {"type": "approval", "time", "id", "name", "waited_ms", "answered_via",
 *     "answer": "approved" | "always" | "rejected" | "answered" | null (still waiting)}]}
 * Times are unix milliseconds; absent values are null. */
char      *warden_trace_to_json     (WardenSessionStore  *store,
                                     const char          *session_id,
                                     GError             **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenTraceEvent, warden_trace_event_free)

G_END_DECLS
