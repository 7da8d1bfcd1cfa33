/* warden-tool-call.h: one tool call of the model and what became of it
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "sandbox/warden-sandbox.h"
#include "warden-session-store.h"

G_BEGIN_DECLS

typedef enum
{
  WARDEN_TOOL_KIND_UNKNOWN,   /* a name the model made up */
  WARDEN_TOOL_KIND_EXEC,
  WARDEN_TOOL_KIND_READ,
  WARDEN_TOOL_KIND_WRITE,
  WARDEN_TOOL_KIND_EDIT,
  WARDEN_TOOL_KIND_GLOB,
  WARDEN_TOOL_KIND_GREP,
  WARDEN_TOOL_KIND_ASK_USER,
  /* Not the model's: asked while one of its commands runs (a parent). */
  WARDEN_TOOL_KIND_PROGRAM,   /* a program the command started (the exec guard) */
  WARDEN_TOOL_KIND_HOST,      /* a host the command wants to reach (the network proxy) */
} WardenToolKind;

/* The life of a call. Stored as text (warden_tool_call_state_to_string()). */
typedef enum
{
  WARDEN_TOOL_CALL_NEW,                  /* seen, not yet decided */
  WARDEN_TOOL_CALL_PENDING,              /* waits for the user */
  WARDEN_TOOL_CALL_APPROVED,             /* the user said yes; not started */
  WARDEN_TOOL_CALL_ANSWERED,             /* ask_user: answered, not yet given to the model */
  WARDEN_TOOL_CALL_RUNNING,              /* started: on disk before it starts */
  WARDEN_TOOL_CALL_FINISHED,             /* ran; its result went to the model */
  WARDEN_TOOL_CALL_REJECTED_UNREPORTED,  /* the user said no; the model not yet told */
  WARDEN_TOOL_CALL_REJECTED,             /* the user said no; the model was told */
  WARDEN_TOOL_CALL_DENIED,               /* the profile refused it */
  WARDEN_TOOL_CALL_INTERRUPTED,          /* started or waiting when stopped; never run again */
} WardenToolCallState;

/* Why a call ended, or why its run was cut before it started (the call is
 * then still approved, or new, and runs when the session goes on). Stored
 * as text (warden_tool_end_to_string()); what the model reads of a call
 * that did not run to its end says this cause, and only USER says the user
 * stopped it. */
typedef enum
{
  WARDEN_TOOL_END_NONE,            /* not ended, or a row from before it was kept */
  WARDEN_TOOL_END_FINISHED,        /* it ran to its end (its result may be an error) */
  WARDEN_TOOL_END_TIMED_OUT,       /* its time limit */
  WARDEN_TOOL_END_DENIED,          /* the profile refused it */
  WARDEN_TOOL_END_REJECTED,        /* the user refused it */
  WARDEN_TOOL_END_USER,            /* the user pressed Stop (Ctrl+C) */
  WARDEN_TOOL_END_CLOSED,          /* the user closed the session's window */
  WARDEN_TOOL_END_SIGNAL,          /* Warden was told to stop by a signal (SIGTERM, SIGHUP) */
  WARDEN_TOOL_END_OUTPUT_FAILED,   /* Warden's output could not be written (a reader that
                                    * went away, a full disk) */
  WARDEN_TOOL_END_INPUT_ENDED,     /* input ended where an answer was needed */
  WARDEN_TOOL_END_LOST,            /* another Warden took the session */
  WARDEN_TOOL_END_FAILED,          /* Warden could not record an answer */
  WARDEN_TOOL_END_WARDEN_STOPPED,  /* Warden stopped (a crash, a kill) before it finished */
  WARDEN_TOOL_END_NEW_TASK,        /* the user went on with a new message instead */
} WardenToolEnd;

/* What decided it. */
typedef enum
{
  WARDEN_TOOL_DECISION_NONE,             /* needed no decision (a read in the workspace) */
  WARDEN_TOOL_DECISION_AUTO_ALLOWED,     /* the profile allowed it */
  WARDEN_TOOL_DECISION_ASKED,            /* the user is asked */
  WARDEN_TOOL_DECISION_APPROVED,
  WARDEN_TOOL_DECISION_APPROVED_ALWAYS,  /* and the pattern was saved */
  WARDEN_TOOL_DECISION_REJECTED,
  WARDEN_TOOL_DECISION_DENIED,
  WARDEN_TOOL_DECISION_ANSWERED,         /* ask_user */
} WardenToolDecision;

/* Who decided it. Stored as text; a row from before it was stored says it
 * by its decision. */
typedef enum
{
  WARDEN_DECIDED_BY_NONE,     /* nobody yet, or it needed no decision */
  WARDEN_DECIDED_BY_PROFILE,  /* the profile's rules */
  WARDEN_DECIDED_BY_USER,     /* the user, asked now */
  WARDEN_DECIDED_BY_SESSION,  /* the user's earlier answer in this session */
} WardenDecidedBy;

#define WARDEN_TYPE_TOOL_CALL (warden_tool_call_get_type ())

G_DECLARE_FINAL_TYPE (WardenToolCall, warden_tool_call, WARDEN, TOOL_CALL, GObject)

/* A call as the model made it; @input may be NULL (arguments that were not
 * a JSON object: the model is told). */
WardenToolCall     *warden_tool_call_new            (const char           *session_id,
                                                     const char           *id,
                                                     const char           *name,
                                                     JsonNode             *input);
/* A question asked while the command @parent_id runs (@kind PROGRAM or
 * HOST), as a call of its own. @input: for a program {"command", "argv",
 * "cwd", "env" (the variables that load code), "chain"}; for a host
 * {"host" ("name:port", "[v6]:port"), "name", "port", "by_command"}. */
WardenToolCall     *warden_tool_call_new_question   (const char           *session_id,
                                                     const char           *id,
                                                     WardenToolKind        kind,
                                                     const char           *parent_id,
                                                     JsonNode             *input);
/* As the store has it; an exec's stored result is read into its fields. */
WardenToolCall     *warden_tool_call_new_from_record (const WardenToolCallRecord *record);
/* The row to store. */
WardenToolCallRecord *warden_tool_call_to_record    (WardenToolCall       *self);

const char         *warden_tool_call_get_id         (WardenToolCall       *self);
const char         *warden_tool_call_get_session_id (WardenToolCall       *self);
const char         *warden_tool_call_get_name       (WardenToolCall       *self);
WardenToolKind      warden_tool_call_get_kind       (WardenToolCall       *self);
/* The model's command that a program or a host question belongs to, or NULL. */
const char         *warden_tool_call_get_parent_id  (WardenToolCall       *self);
/* The arguments (NULL if they were not an object); their text as stored. */
JsonObject         *warden_tool_call_get_input      (WardenToolCall       *self);
const char         *warden_tool_call_get_input_json (WardenToolCall       *self);
/* What a view shows of it: the command, the path, the question, the pattern
 * ("PATTERN in PATH" for grep with a path); "" if none. */
const char         *warden_tool_call_get_subject    (WardenToolCall       *self);
/* A string argument, or NULL. */
const char         *warden_tool_call_get_arg        (WardenToolCall       *self,
                                                     const char           *name);

/* exec: the "env" argument as NAME=VALUE, in the model's order (empty if none). */
GStrv               warden_tool_call_dup_env        (WardenToolCall       *self);
/* ask_user: the "choices" that are strings, in the model's order (empty if none). */
GStrv               warden_tool_call_dup_choices    (WardenToolCall       *self);
/* A program: what started it, nearest first, each as a command line; NULL
 * for any other call. */
GStrv               warden_tool_call_dup_chain      (WardenToolCall       *self);

/* Where the model made it: the assistant message (its number in the
 * conversation) and which of its tool calls, from 0; -1 when not known
 * (rows stored before Warden kept it). */
gint64              warden_tool_call_get_message_seq (WardenToolCall      *self);
int                 warden_tool_call_get_block      (WardenToolCall       *self);
void                warden_tool_call_set_position   (WardenToolCall       *self,
                                                     gint64                message_seq,
                                                     int                   block);

WardenToolCallState warden_tool_call_get_state      (WardenToolCall       *self);
void                warden_tool_call_set_state      (WardenToolCall       *self,
                                                     WardenToolCallState   state);
/* Why it ended (or why its last run was cut before it started), and
 * whether it started: a command handed to the sandbox, a file tool begun.
 * A call that never started is not ended: it runs when the session goes on. */
WardenToolEnd       warden_tool_call_get_ended_by   (WardenToolCall       *self);
gboolean            warden_tool_call_get_began      (WardenToolCall       *self);
void                warden_tool_call_set_end        (WardenToolCall       *self,
                                                     WardenToolEnd         ended_by,
                                                     gboolean              began);
/* What the model reads of a command or a file tool cut by @ended_by
 * (after it began: @began), as "Error: …". */
char               *warden_tool_end_dup_message     (WardenToolEnd        ended_by,
                                                     gboolean             began);
/* Settled: its result is final (finished, rejected, denied, interrupted). */
gboolean            warden_tool_call_is_settled     (WardenToolCall       *self);

WardenToolDecision  warden_tool_call_get_decision   (WardenToolCall       *self);
/* The pattern that allowed or denied it, or that was saved. */
const char         *warden_tool_call_get_pattern    (WardenToolCall       *self);
const char         *warden_tool_call_get_reason     (WardenToolCall       *self);
void                warden_tool_call_set_decision   (WardenToolCall       *self,
                                                     WardenToolDecision    decision,
                                                     const char           *pattern,
                                                     const char           *reason);
/* Who decided: set_decision() sets what its decision says (the profile
 * for auto-allowed and denied, the user for the answers); a host allowed by
 * an earlier answer is set to SESSION after it. */
WardenDecidedBy     warden_tool_call_get_decided_by (WardenToolCall       *self);
void                warden_tool_call_set_decided_by (WardenToolCall       *self,
                                                     WardenDecidedBy       decided_by);
/* The user's words with a rejection, or the answer to ask_user. */
const char         *warden_tool_call_get_feedback   (WardenToolCall       *self);
void                warden_tool_call_set_feedback   (WardenToolCall       *self,
                                                     const char           *feedback);

/* What a write or an edit changed (asked: would change) in its file, as a
 * unified diff from warden_diff_unified(), as the user saw it then: stored
 * with the call. NULL for other tools. (A question asked again after a
 * restart compares the file as it is then, see WardenApproval.) */
const char         *warden_tool_call_get_diff       (WardenToolCall       *self);
void                warden_tool_call_set_diff       (WardenToolCall       *self,
                                                     const char           *diff);

/* The checkpoint of the workspace taken before it (a write, an edit, a
 * command), as the session numbers them from 1; 0: none. Restoring to it
 * puts the files back as they were before the call. */
gint64              warden_tool_call_get_step       (WardenToolCall       *self);
void                warden_tool_call_set_step       (WardenToolCall       *self,
                                                     gint64                step);
/* What its command created, changed and deleted (WardenFileChange, from
 * workspace/warden-checkpoints.h), from the checkpoints before and after
 * it; NULL when not known (not a command, it did not run, no checkpoint).
 * A new reference is kept. */
GPtrArray          *warden_tool_call_get_changes    (WardenToolCall       *self);
void                warden_tool_call_set_changes    (WardenToolCall       *self,
                                                     GPtrArray            *changes);

/* What the model was given, as it was given. */
const char         *warden_tool_call_get_result     (WardenToolCall       *self);
gboolean            warden_tool_call_get_is_error   (WardenToolCall       *self);
/* A command's exit code (-1 if it did not run to an end), the time it took
 * (-1 unknown), its output, and whether the output was cut or the command
 * timed out. For other tools the output is the result. */
int                 warden_tool_call_get_exit_code  (WardenToolCall       *self);
gint64              warden_tool_call_get_duration_ms (WardenToolCall      *self);
const char         *warden_tool_call_get_output     (WardenToolCall       *self);
gboolean            warden_tool_call_get_truncated  (WardenToolCall       *self);
gboolean            warden_tool_call_get_timed_out  (WardenToolCall       *self);
/* Records what the model is given. For exec, @result is the JSON the agent
 * built and the typed fields are set alongside with set_exec_result(). */
void                warden_tool_call_set_result     (WardenToolCall       *self,
                                                     const char           *result,
                                                     gboolean              is_error);
void                warden_tool_call_set_exec_result (WardenToolCall      *self,
                                                      int                  exit_code,
                                                      const char          *stdout_text,
                                                      const char          *stderr_text,
                                                      gint64               duration_ms,
                                                      gboolean             truncated,
                                                      gboolean             timed_out);

/* What the model is given of a command that ran (@res) and of what it
 * asked while it ran (@questions: its program and host rows, in order):
 * {"exit_code", "stdout", "stderr", "duration_ms", "truncated",
 * "timed_out"?, "nested_programs"? (what was refused, and why),
 * "network"? (every host decision)}. The one writer of that JSON. */
char               *warden_tool_call_exec_result_json (const WardenExecResult *res,
                                                       GPtrArray              *questions);

/* Unix milliseconds, 0 if not (yet). */
gint64              warden_tool_call_get_started    (WardenToolCall       *self);
gint64              warden_tool_call_get_finished   (WardenToolCall       *self);
gint64              warden_tool_call_get_asked      (WardenToolCall       *self);
gint64              warden_tool_call_get_answered   (WardenToolCall       *self);
void                warden_tool_call_set_times      (WardenToolCall       *self,
                                                     gint64                started,
                                                     gint64                finished);
void                warden_tool_call_mark_asked     (WardenToolCall       *self);
/* Where the user answered: dialog, card, notification, cli; NULL if not asked. */
const char         *warden_tool_call_get_answered_via (WardenToolCall     *self);
void                warden_tool_call_mark_answered  (WardenToolCall       *self,
                                                     const char           *via);

/* The text the store keeps for each value, and back (unknown text: NEW / NONE). */
const char         *warden_tool_call_state_to_string    (WardenToolCallState  state);
WardenToolCallState warden_tool_call_state_from_string  (const char          *text);
const char         *warden_tool_decision_to_string      (WardenToolDecision   decision);
WardenToolDecision  warden_tool_decision_from_string    (const char          *text);
/* A tool the model can call by @name (never PROGRAM or HOST). */
WardenToolKind      warden_tool_kind_from_name          (const char          *name);
const char         *warden_tool_kind_to_string          (WardenToolKind       kind);
const char         *warden_decided_by_to_string         (WardenDecidedBy      decided_by);
/* NULL for NONE. */
const char         *warden_tool_end_to_string           (WardenToolEnd        ended_by);
WardenToolEnd       warden_tool_end_from_string         (const char          *text);
WardenDecidedBy     warden_decided_by_from_string       (const char          *text);

/* Signals:
 *   "output" (int stream, const char *text)  a running command's output as it arrives
 * Every property ("state", "decision", "result", "output", …) is notified when it changes. */
void                warden_tool_call_append_output  (WardenToolCall       *self,
                                                     int                   stream,
                                                     const char           *text);

G_END_DECLS
