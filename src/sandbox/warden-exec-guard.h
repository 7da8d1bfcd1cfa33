/* warden-exec-guard.h: programs started inside a sandbox, asked about before they run
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* A program a command started, stopped before its first instruction until
 * it is answered. Its caller's other processes go on meanwhile, and the
 * command's time limit does not run while any question waits. */
typedef struct _WardenGuardQuestion WardenGuardQuestion;

#define WARDEN_TYPE_GUARD_QUESTION (warden_guard_question_get_type ())
GType                warden_guard_question_get_type  (void) G_GNUC_CONST;
WardenGuardQuestion *warden_guard_question_ref       (WardenGuardQuestion *self);
void                 warden_guard_question_unref     (WardenGuardQuestion *self);
/* The program's argv as it will run (from /proc, after the exec: no other
 * thread can change it any more). */
const char * const  *warden_guard_question_get_argv  (WardenGuardQuestion *self);
/* The programs that led to it, nearest first, each as a command line
 * (warden_guard_quote_argv()); a forked copy of its parent is not repeated. */
const char * const  *warden_guard_question_get_chain (WardenGuardQuestion *self);
const char          *warden_guard_question_get_cwd   (WardenGuardQuestion *self);
/* The file that really runs (/proc/PID/exe): a script's interpreter, never
 * a name the caller chose. */
const char          *warden_guard_question_get_exe   (WardenGuardQuestion *self);
/* NAME=VALUE entries the program's environment gained since its command
 * started (new or changed), empty when none. */
const char * const  *warden_guard_question_get_env   (WardenGuardQuestion *self);
/* Bytes of the program's words, environment or chain the guard left out
 * (a question is bounded); 0 when nothing was cut. */
guint64              warden_guard_question_get_cut   (WardenGuardQuestion *self);
/* When the kernel ran a "#!" script: the index in argv of the script's
 * path (argv is then the interpreter, its argument, the script, its
 * arguments); 0 otherwise. */
guint                warden_guard_question_get_script (WardenGuardQuestion *self);
/* Lets it run, or kills it before it runs (its caller sees a child killed
 * by SIGKILL). Once; later calls, and calls after the command ended, do
 * nothing. */
void                 warden_guard_question_answer    (WardenGuardQuestion *self,
                                                      gboolean             allow);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenGuardQuestion, warden_guard_question_unref)

/* Called on the exec call's main context for each program a command starts
 * (after the command itself); answer now or later. */
typedef void (*WardenGuardFunc) (WardenGuardQuestion *question,
                                 gpointer             user_data);

/* The text a profile pattern sees for @argv: the words joined by spaces,
 * each quoted as the shell would need it ('…'), so that the policy engine
 * parses it back into exactly these words. A program named by its path in a
 * system directory (/usr/bin/rm) is named as the shell would find it (rm). */
char                *warden_guard_quote_argv         (const char * const  *argv);

/* The helper that runs inside the sandbox: $WARDEN_GUARD, the installed one,
 * or the one next to this program in a build tree; NULL when there is none. */
const char          *warden_guard_get_helper_path    (void);

G_END_DECLS
