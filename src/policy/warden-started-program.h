/* warden-started-program.h: what decides about a program a command starts
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The exec guard stops every program a command starts and Warden judges it
 * by the profile, as a command line: its words (argv quoted as the parser
 * reads them). These are the rules it adds for started programs, beside
 * the profile's patterns; a profile's deny rules come first, and its ask
 * rules over the lists below.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* @text (a started program's words) only reports on the system or the
 * repository and changes nothing (uname, git status, node --version …):
 * it runs whenever a command starts it. */
gboolean     warden_started_program_is_quiet         (const char         *text);
/* @text is a compiler pass (cc1, as, ld, collect2 …) started by a compiler
 * driver (cc, gcc, clang …), the first of @chain (the programs that led to
 * it, nearest first), both the system's: what an allowed cc starts to
 * compile. A program named as the guard names it: bare when it is the one
 * in a system directory, else by its path (gcc's own directories count). */
gboolean     warden_started_program_is_compiler_pass (const char         *text,
                                                      const char * const *chain);
/* The name the system program @exe (its real path) runs as, with a version
 * cut off (python3.11 is python; busybox runs as its @argv0 says); NULL
 * when @exe is not in a system directory (/bin, /usr/bin, /sbin,
 * /usr/sbin, /usr/local/bin: read-only in every sandbox), as a program
 * the command made could be anything. */
char        *warden_started_program_system_name      (const char         *exe,
                                                      const char         *argv0);
/* The SCRIPT of "SHELL -c SCRIPT [NAME ARGS…]" when @exe is a system shell
 * of the sh family (warden_shell_name_is_sh()), whose script's commands
 * decide as if the model had sent them; NULL otherwise (a file merely
 * named ./sh is judged by its own words). Points into @argv. */
const char  *warden_started_program_shell_script     (const char         *exe,
                                                      const char * const *argv);
/* @exe is a system interpreter that runs a script file named in its
 * arguments (a shell of the sh family, python, node, perl, ruby, php, or
 * env of "#!/usr/bin/env node"): a "#!" script it runs may be judged as
 * it was started (./test.sh ARGS). */
gboolean     warden_started_program_runs_scripts     (const char         *exe,
                                                      const char         *argv0);
/* Of @env (NAME=VALUE), the variables that load code into a program without
 * it starting another (warden_policy_env_loads_code()), sorted: with them,
 * a program's allowed words are no allow, and an approval covers them too. */
GStrv        warden_started_program_loading_env      (const char * const *env);

G_END_DECLS
