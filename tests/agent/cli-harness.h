/* cli-harness.h: warden-cli run in a test, with a scripted model
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shared by test-cli-run.c (the terminal prompts) and test-cli-json.c (the
 * JSON Lines client loop), which run the same scenarios.
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "fake-model.h"

G_BEGIN_DECLS

typedef struct
{
  FakeModel *fake;
  char      *root;
  char      *workspace;
  char      *home;
  char      *key;         /* the API key, different in every test */
} Env;

typedef struct
{
  int    status;
  char  *out;      /* NUL added; the bytes as they came, valid UTF-8 or not */
  gsize  out_len;
  char  *err;
} Result;

typedef struct
{
  GSubprocess *proc;
  GString     *out;
  GString     *err;
} Proc;

/* A scripted model, a workspace, a home and a key of their own. */
void                 env_set_up      (Env                *env);
void                 env_tear_down   (Env                *env);
GSubprocessLauncher *launcher_with   (Env                *env,
                                      GSubprocessFlags    flags);
GSubprocessLauncher *launcher_for    (Env                *env);
GPtrArray           *cli_argv        (const char * const *args);
/* When set, the words that run_cli() and proc_start() put before
 * warden-cli: unshare and its options, for a Warden in namespaces of its own. */
extern const char * const *cli_wrapper;
/* When set, what launcher_with() changes in warden-cli's environment last:
 * "NAME=VALUE" sets, a bare "NAME" removes. */
extern const char * const *cli_env;
/* The exit status, or -1 when a signal ended the process. */
int                  exit_status_of  (GSubprocess        *proc);
void                 result_clear    (Result             *r);
char                *bytes_to_str    (GBytes             *bytes,
                                      gsize              *length);
/* Runs warden-cli with @input on its standard input, to its end. */
Result               run_cli         (Env                *env,
                                      const char         *input,
                                      const char * const *args);
Result               run_cli_len     (Env                *env,
                                      const char         *input,
                                      gsize               length,
                                      const char * const *args);
char                *session_id_of   (const char         *err);
/* What "sessions show --json" says of the session. */
JsonNode            *show_session    (Env                *env,
                                      const char         *id);
JsonObject          *tool_call       (JsonNode           *session,
                                      guint               i);
const char          *member          (JsonNode           *session,
                                      const char         *name);
gboolean             workspace_has   (Env                *env,
                                      const char         *name);
char                *workspace_file  (Env                *env,
                                      const char         *name);
gboolean             has_resume_hint (const char         *err,
                                      const char         *id);
/* Whether a process whose command line holds the word @word lives. */
gboolean             process_with_arg (const char        *word);

/* A warden-cli that runs while the test talks to it. */
Proc                *proc_start      (Env                *env,
                                      const char * const *args);
gboolean             read_more       (GInputStream       *stream,
                                      GString            *seen);
/* Reads standard output until @needle shows. */
void                 proc_wait_out   (Proc               *p,
                                      const char         *needle);
char                *proc_session_id (Proc               *p);
void                 proc_send       (Proc               *p,
                                      const char         *text);
void                 proc_send_len   (Proc               *p,
                                      const char         *data,
                                      gsize               length);
/* Reads the rest of both outputs, waits for the end and frees @p. */
Result               proc_finish     (Proc               *p);

#define RUN(env, input, ...) run_cli ((env), (input), (const char * const []) { __VA_ARGS__, NULL })
/* @input a string literal, NUL bytes and all. */
#define RUN_BYTES(env, input, ...) \
  run_cli_len ((env), (input), sizeof (input) - 1, (const char * const []) { __VA_ARGS__, NULL })
#define PROC_START(env, ...) proc_start ((env), (const char * const []) { __VA_ARGS__, NULL })

/* Logs what a run printed, each line cut at 4 KiB. */
void     cli_log_streams (const char *out,
                          const char *err);

G_END_DECLS
