/* warden-cli-run-private.h: what "run" and its JSON Lines mode share
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "agent/warden-agent.h"

G_BEGIN_DECLS

/* Exit statuses of "run"; 2 is a usage, workspace or setup error, and a
 * signal N that stops it gives 128 + N. */
#define EXIT_FAILED      1  /* the store or the output failed; the message says which */
#define EXIT_MAX_STEPS   3
#define EXIT_PROVIDER    4
#define EXIT_IN_USE      5  /* another process drives the session */
#define EXIT_NO_ANSWER   6  /* input ended with a question pending; it still waits */
#define EXIT_SIGNAL_BASE 128

/* Where a filter of terminal text is: a sequence, or a carriage return, may
 * be cut between two chunks, and only its end says what it is. */
typedef enum
{
  FILTER_TEXT,
  FILTER_ESC,   /* after ESC */
  FILTER_CSI,   /* after ESC [, in its parameters */
  FILTER_CR,    /* after \r: a line end if \n follows */
} FilterState;

typedef struct
{
  FilterState  state;
  gboolean     keep_colour;  /* SGR (ESC [ … m) passes: it can colour, not move or rewrite */
  GString     *held;         /* the bytes of the sequence so far */
} TermFilter;

/* The model's markdown as it streams (warden-cli-style.c). */
typedef struct
{
  GString  *held;      /* the start of a line that does not yet say what it is */
  gboolean  deciding;  /* at the start of a line */
  gboolean  in_fence;  /* in a ``` code block */
  gboolean  styled;    /* a style is open until the line ends */
  gboolean  swallow;   /* the line is a fence: not shown */
} Markdown;

typedef enum
{
  CLI_STYLE_RESET,
  CLI_STYLE_BOLD,      /* a heading */
  CLI_STYLE_PROMPT,    /* where the person types */
  CLI_STYLE_WARNING,   /* a question to the person */
  CLI_STYLE_GOOD,      /* approved, allowed, a line added */
  CLI_STYLE_BAD,       /* rejected, denied, a line removed */
  CLI_STYLE_CODE,      /* code, a diff's hunk header */
  CLI_STYLE_DIM,       /* a note */
} CliStyle;

/* What --on-question does with a question no program decided. */
typedef enum
{
  ON_QUESTION_ASK,      /* the person: the terminal or the --json client */
  ON_QUESTION_REJECT,   /* rejected, the model told the run is unattended */
  ON_QUESTION_PENDING,  /* left waiting; the run exits EXIT_NO_ANSWER */
} OnQuestion;

typedef struct
{
  GMainLoop        *loop;
  GAsyncResult     *result;
  GCancellable     *cancellable;
  GDataInputStream *input;
  WardenAgent      *agent;       /* once made; not owned */
  gboolean          in_text;     /* the assistant's text is being streamed */
  int               signum;      /* the first of SIGINT, SIGTERM, SIGHUP that came, or 0 */
  int               write_errno; /* standard output failed with this, or 0 */
  gboolean          lease_lost;  /* an answer was not saved: another Warden has the session */
  gboolean          raw_output;  /* --raw-output: command output as it comes */
  gboolean          chat;        /* warden-cli chat: prompts for turns until the person leaves */
  gboolean          waiting_at_open; /* the resumed session was left with a question */
  guint             turns;       /* _warden_cli_run_turn() calls so far */
  gboolean          resumed;     /* --resume: the session was there before */
  gboolean          colour;      /* standard output is a terminal, and NO_COLOR is not set */
  WardenSessionStore *store;     /* not owned */
  TermFilter        text_filter; /* the model's words */
  Markdown          markdown;    /* …laid out, on a terminal in colour */
  TermFilter        out_filter[2]; /* a command's standard output and error, each on its own */

  /* --json: standard output carries events, one JSON object per line. */
  gboolean          json;
  gint64            seq;         /* of the last event written */
  const char       *session_id;  /* once known (NULL: a setup error before it); not owned */
  GHashTable       *announced;   /* ids of the tool calls a tool_call event named */
  char             *exec_id;     /* the command running now, for output events */

  gboolean          nested_unanswered; /* input ended at a started program's prompt */
  char             *asking_id;   /* --json: the started program asked about now */
  GCancellable     *prompt_cancellable; /* ends that program's prompt when it is withdrawn */
  GSettings        *settings;          /* the window's settings; NULL without the schema */

  /* warden-cli-decide.c */
  char             *approve_with;      /* --approve-with: the program's path (not owned) */
  guint             approve_timeout;   /* --approve-timeout, seconds */
  OnQuestion        on_question;
  gboolean          left_pending;      /* --on-question pending left the question waiting */
} Run;

/* What became of a prompt. */
typedef enum
{
  PROMPT_ANSWERED,   /* the answer is recorded */
  PROMPT_NO_ANSWER,  /* end of input: nothing recorded, it waits */
  PROMPT_STOPPED,    /* a signal, or the output failed: nothing recorded */
  PROMPT_FAILED,     /* the answer could not be recorded */
  PROMPT_WITHDRAWN,  /* a started program's command ended: nothing to answer */
} PromptResult;

/* Cancels the run for @cause (what a command it stops records and the
 * model reads); the first cause holds. */
void          _warden_cli_run_stop      (Run          *run,
                                         WardenToolEnd cause);
/* Writes @text to standard output and flushes; a failed write cancels the
 * run (WARDEN_TOOL_END_OUTPUT_FAILED) and is remembered in write_errno. */
gboolean      _warden_cli_run_write     (Run          *run,
                                         const char   *text);
gboolean      _warden_cli_run_printf    (Run          *run,
                                         const char   *format,
                                         ...) G_GNUC_PRINTF (2, 3);
/* One line of standard input, without its end, read while the main loop
 * runs (a signal stops the wait). Never a line with a NUL byte: that one
 * is said to be no answer, and the next is read. */
PromptResult  _warden_cli_run_read_line (Run          *run,
                                         char        **line_out);

/* Runs @task (NULL: goes on as the session was left) until the model ends
 * its turn, then @task's follow-up when a question had to be answered
 * first. Takes @task; sets @reason (the finished event's) and @pending (the
 * id that still waits, or NULL); returns the exit status. */
int           _warden_cli_run_turn      (Run          *run,
                                         WardenAgent  *agent,
                                         char         *task,
                                         const char  **reason,
                                         const char  **pending);

/* warden-cli-chat.c */
/* The conversation: @task (may be NULL) first, then a prompt for each
 * turn until the person leaves. Takes @task; as _warden_cli_run_turn(). */
int           _warden_cli_chat          (Run          *run,
                                         WardenAgent  *agent,
                                         char         *task,
                                         const char  **reason,
                                         const char  **pending);

/* A new GCancellable in @turn, which run->cancellable is from now on; the
 * signal that stopped the last turn is forgotten. */
void          _warden_cli_chat_rearm    (Run           *run,
                                         GCancellable **turn);

/* warden-cli-style.c */
/* The escape sequence of @style, "" without colour. */
const char   *_warden_cli_style         (Run          *run,
                                         CliStyle      style);
/* @text in @style (a copy of it without colour). */
char         *_warden_cli_styled        (Run          *run,
                                         CliStyle      style,
                                         const char   *text);
/* Appends @diff to @shown, escaped, each line after @indent, coloured by
 * what it does. */
void          _warden_cli_style_diff    (Run          *run,
                                         GString      *shown,
                                         const char   *diff,
                                         const char   *indent);
void          _warden_cli_markdown_init  (Markdown    *md);
void          _warden_cli_markdown_clear (Markdown    *md);
/* Appends what escaped text @text shows, laid out, to @shown; the start of
 * a line is held until it says what it is. */
void          _warden_cli_markdown_feed  (Run         *run,
                                          Markdown    *md,
                                          const char  *text,
                                          GString     *shown);
/* The text ended: what is held shows, a style open is closed. */
void          _warden_cli_markdown_flush (Run         *run,
                                          Markdown    *md,
                                          GString     *shown);

/* warden-cli-decide.c */
typedef PromptResult (*AskPerson) (Run         *run,
                                   WardenAgent *agent);

/* Reads the options; FALSE with a usage error. run->approve_with is the
 * caller's to free. */
gboolean      _warden_cli_decide_setup  (Run          *run,
                                         const char   *approve_with,
                                         int           timeout,
                                         const char   *on_question,
                                         GError      **error);
/* The question that waits: the decision program's, else --on-question's,
 * else @ask_person's (the terminal prompt or the --json client).
 * PROMPT_NO_ANSWER when --on-question pending leaves it waiting. */
PromptResult  _warden_cli_decide        (Run          *run,
                                         WardenAgent  *agent,
                                         AskPerson     ask_person);

/* warden-cli-run-json.c */
/* The approval_required (or ask_user) event of @approval as one line of
 * JSON without its end, not written: seq is the next event's. */
char         *_warden_cli_json_pending_text (Run            *run,
                                             WardenApproval *approval);
/* Takes @line as an answer to @approval (see docs/events.md, Answers):
 * FALSE when it is none, with an error event, or with @why_out (not NULL)
 * the reason there and no event. */
gboolean      _warden_cli_json_parse_answer (Run                  *run,
                                             WardenApproval       *approval,
                                             JsonNode            **root,
                                             const char           *line,
                                             WardenApprovalAnswer *answer,
                                             char                **why_out);
void          _warden_cli_json_connect  (Run          *run,
                                         WardenAgent  *agent);
void          _warden_cli_json_session  (Run          *run,
                                         WardenAgent  *agent,
                                         const WardenSessionRecord *info,
                                         const char   *task,
                                         gboolean      resumed);
PromptResult  _warden_cli_json_answer   (Run          *run,
                                         WardenAgent  *agent);
/* An error event: @code a short word a script can test, @message the
 * sentence, @hint what to do (may be NULL). */
void          _warden_cli_json_error    (Run          *run,
                                         const char   *code,
                                         const char   *message,
                                         const char   *hint);
/* @turn and @session: what the turn and the whole session used (NULL: no
 * session yet). */
void          _warden_cli_json_finished (Run                  *run,
                                         const char           *reason,
                                         guint                 steps,
                                         const char           *pending,
                                         int                   status,
                                         const WardenLlmUsage *turn,
                                         const WardenLlmUsage *session);
void          _warden_cli_json_withdrawn (Run         *run);
/* A line of input that is no answer: a bad_input error event, with what an
 * answer looks like; the question still waits. */
void          _warden_cli_json_bad_line (Run          *run,
                                         const char   *message);
void          _warden_cli_json_notice   (Run          *run,
                                         const char   *message);
void          _warden_cli_json_clear    (Run          *run);
/* chat --json: an idle event, then lines until a {"message"} one (its text
 * returned) or the end of input (NULL, @status_out 0); a signal or a failed
 * write gives NULL with @status_out set. */
char         *_warden_cli_json_next_message (Run           *run,
                                             WardenAgent   *agent,
                                             GCancellable **turn,
                                             int           *status_out);

G_END_DECLS
