/* oracle-runner.h: runs command lines under real shells in a sandbox
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  ORACLE_SHELL_BASH,
  ORACLE_SHELL_DASH,
  ORACLE_SHELL_BUSYBOX,
  ORACLE_N_SHELLS,
} OracleShell;

const char *oracle_shell_name (OracleShell shell);

/* Every command name on the sandbox's PATH, NULL-ended. */
extern const char * const oracle_stub_names[];

/* One program a stub saw run. */
typedef struct
{
  char  *name;   /* the stub's name, or a trap's whole path */
  char **argv;   /* the arguments after the name */
  char  *text;   /* name and arguments joined by single spaces */
} OracleInvocation;

typedef struct
{
  int        status;       /* the shell's wait status */
  gboolean   timed_out;    /* the deadline passed and everything was killed */
  gboolean   log_tampered; /* the stub log holds bytes no stub wrote */
  GPtrArray *ran;          /* of OracleInvocation, in the order logged */
  GPtrArray *changes;      /* of char *: "created PATH", "modified PATH", … outside the workspace */
  GPtrArray *protected_changes; /* the same for protected paths in the workspace */
  char      *err;          /* the start of the shells' standard error */
} OracleRun;

void oracle_run_free (OracleRun *run);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OracleRun, oracle_run_free)

typedef struct _OracleSandbox OracleSandbox;

/* Why the sandbox cannot start (a missing shell, bwrap, …), or NULL. */
char          *oracle_sandbox_check     (void);
/* Starts the sandbox: @self_exe is this program (run again inside with
 * --runner), @stub the stub program. */
OracleSandbox *oracle_sandbox_new       (const char    *self_exe,
                                         const char    *stub,
                                         guint          timeout_ms,
                                         GError       **error);
void           oracle_sandbox_free      (OracleSandbox *self);
/* The workspace the commands run in: give it to the engine. */
const char    *oracle_sandbox_workspace (OracleSandbox *self);
/* Runs @line under @shell; NULL with @error when the sandbox failed (it is
 * restarted on the next call). */
OracleRun     *oracle_sandbox_run       (OracleSandbox *self,
                                         OracleShell    shell,
                                         const char    *line,
                                         gsize          length,
                                         GError       **error);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (OracleSandbox, oracle_sandbox_free)

/* The part of the program that runs inside the sandbox, as its PID 1. */
int            oracle_runner_main       (const char    *root);

G_END_DECLS
