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
/* The program's argv as the kernel runs it (from /proc, after the exec: no
 * other thread can change it any more). For a "#!" script that is the
 * interpreter's: "/bin/sh ./test.sh ARGS", "/bin/rm -rf ./ls victim". Word
 * 0 is the file that runs (get_exe()) unless it names that file already. */
const char * const  *warden_guard_question_get_argv  (WardenGuardQuestion *self);
/* The file that really runs (/proc/PID/exe): /usr/bin/dash for "sh". */
const char          *warden_guard_question_get_exe   (WardenGuardQuestion *self);
/* NAME=VALUE entries of its environment that were not, verbatim, in the
 * environment its command started with (new or changed); empty, never NULL. */
const char * const  *warden_guard_question_get_env   (WardenGuardQuestion *self);
/* Bytes the guard left out of the question (argv past 256 KiB, the
 * environment past 32 KiB, long or many links of the chain): the text is
 * then incomplete. 0 when nothing was cut. */
guint64              warden_guard_question_get_cut   (WardenGuardQuestion *self);
/* For a "#!" script, the index in get_argv() of the script's path (so
 * argv[script…] is the command as it was started: "./test.sh ARGS"); 0 when
 * the program is no script. */
guint                warden_guard_question_get_script (WardenGuardQuestion *self);
/* The programs that led to it, nearest first, each as a command line
 * (warden_guard_quote_argv()); a forked copy of its parent is not repeated. */
const char * const  *warden_guard_question_get_chain (WardenGuardQuestion *self);
const char          *warden_guard_question_get_cwd   (WardenGuardQuestion *self);
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
