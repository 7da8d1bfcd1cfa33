/* test-started-program.c: what decides about a program a command starts
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The exec guard stops every program a command starts; these are the
 * rules Warden adds to the profile's for them: the programs that run
 * unasked because they only report, the passes an allowed compiler driver
 * starts, which started program is a system shell whose -c script decides,
 * and which runs a script file. Each row names what it guards against.
 */

#include "config.h"

#include "policy/warden-started-program.h"

#define CHAIN(...) ((const char * const []) { __VA_ARGS__, NULL })
#define ARGV(...) ((const char * const []) { __VA_ARGS__, NULL })

static void
test_quiet (void)
{
  static const struct { const char *name; const char *text; gboolean quiet; } rows[] = {
    { "uname", "uname -a", TRUE },
    { "git-status", "git status --porcelain", TRUE },
    { "git-rev-parse", "git rev-parse HEAD", TRUE },
    { "node-version", "node --version", TRUE },
    { "pkg-config-flags", "pkg-config --cflags glib-2.0", TRUE },
    { "sleep", "sleep 1", TRUE },
    /* Changes something, or runs anything: asks as the profile says. */
    { "git-push", "git push origin main", FALSE },
    { "git-config-set", "git config user.email x", FALSE },
    { "rm", "rm -rf dist", FALSE },
    { "node-script", "node app.js", FALSE },
    { "date-set", "date -s 2020-01-01", FALSE },
    { "pkg-config-no-option", "pkg-config glib-2.0", FALSE },
    { "empty", "", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_test_message ("%s: %s", rows[i].name, rows[i].text);
      g_assert_cmpint (warden_started_program_is_quiet (rows[i].text), ==, rows[i].quiet);
    }
}

static void
test_compiler_pass (void)
{
  const struct
  {
    const char         *name;
    const char         *text;
    const char * const *chain;
    gboolean            pass;
  } rows[] = {
    { "cc1-by-cc", "cc1 -quiet hello.c", CHAIN ("cc -c hello.c", "make"), TRUE },
    { "as-by-gcc", "as --64 -o hello.o /tmp/x.s", CHAIN ("gcc -c hello.c"), TRUE },
    { "collect2-by-gcc-12", "collect2 -o hello", CHAIN ("gcc-12 -o hello hello.o"), TRUE },
    { "ld-by-collect2", "ld -o hello", CHAIN ("collect2 -o hello", "gcc -o hello"), TRUE },
    { "gcc-dir", "/usr/lib/gcc/x86_64-linux-gnu/12/cc1 -quiet x.c", CHAIN ("gcc -c x.c"), TRUE },
    { "libexec-dir", "/usr/libexec/gcc/x86_64-linux-gnu/12/cc1plus x.cc", CHAIN ("g++ x.cc"),
      TRUE },
    /* A pass the command made, or a driver it made, is no system pass. */
    { "workspace-pass", "./as x.s", CHAIN ("cc x.c"), FALSE },
    { "workspace-driver", "as x.s", CHAIN ("./cc x.c"), FALSE },
    { "climbing-out", "/usr/lib/gcc/../../../workspace/cc1 x.c", CHAIN ("cc x.c"), FALSE },
    /* Not a pass, or not started by a driver. */
    { "rm-by-cc", "rm -f x.o", CHAIN ("cc x.c"), FALSE },
    { "ld-by-make", "ld -o x", CHAIN ("make"), FALSE },
    { "no-chain", "cc1 x.c", NULL, FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_test_message ("%s: %s", rows[i].name, rows[i].text);
      g_assert_cmpint (warden_started_program_is_compiler_pass (rows[i].text, rows[i].chain), ==,
                       rows[i].pass);
    }
}

static void
test_system_name (void)
{
  static const struct { const char *exe; const char *argv0; const char *name; } rows[] = {
    { "/usr/bin/python3.11", "python3", "python" },
    { "/bin/bash", "bash", "bash" },
    { "/usr/local/bin/node", "node", "node" },
    { "/usr/bin/mksh-static", "mksh", "mksh-static" },
    /* busybox runs as its argv[0] says. */
    { "/bin/busybox", "sh", "sh" },
    { "/bin/busybox", "/bin/ash", "ash" },
    /* Anything the command could have written is no system program. */
    { "/workspace/sh", "sh", NULL },
    { "/tmp/bin/sh", "sh", NULL },
    { "/usr/bin/../../workspace/sh", "sh", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *name = warden_started_program_system_name (rows[i].exe, rows[i].argv0);

      g_test_message ("%s (%s)", rows[i].exe, rows[i].argv0);
      g_assert_cmpstr (name, ==, rows[i].name);
    }
}

static void
test_shell_script (void)
{
  const struct
  {
    const char         *name;
    const char         *exe;
    const char * const *argv;
    const char         *script;
  } rows[] = {
    { "sh", "/bin/sh", ARGV ("sh", "-c", "rm -rf dist && jest"), "rm -rf dist && jest" },
    { "bash-args", "/usr/bin/bash", ARGV ("bash", "-c", "ls $1", "name", "x"), "ls $1" },
    { "dash", "/usr/bin/dash", ARGV ("/bin/sh", "-c", "ls"), "ls" },
    { "busybox-sh", "/bin/busybox", ARGV ("sh", "-c", "ls"), "ls" },
    { "zsh", "/usr/bin/zsh", ARGV ("zsh", "-c", "ls"), "ls" },
    /* A file merely named sh is judged by its own words. */
    { "workspace-sh", "/workspace/sh", ARGV ("./sh", "-c", "ls victim"), NULL },
    { "busybox-rm", "/bin/busybox", ARGV ("rm", "-c", "x"), NULL },
    { "python-c", "/usr/bin/python3", ARGV ("python3", "-c", "print(1)"), NULL },
    { "no-c", "/bin/sh", ARGV ("sh", "./build.sh"), NULL },
    { "c-alone", "/bin/sh", ARGV ("sh", "-c"), NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_test_message ("%s", rows[i].name);
      g_assert_cmpstr (warden_started_program_shell_script (rows[i].exe, rows[i].argv), ==,
                       rows[i].script);
    }
}

static void
test_interpreter (void)
{
  static const struct { const char *exe; const char *argv0; gboolean runs; } rows[] = {
    { "/usr/bin/node", "node", TRUE },
    { "/usr/bin/python3.11", "python3", TRUE },
    { "/bin/sh", "sh", TRUE },
    { "/usr/bin/bash", "bash", TRUE },
    { "/usr/bin/env", "env", TRUE },
    { "/bin/busybox", "ash", TRUE },
    { "/usr/bin/rm", "rm", FALSE },
    { "/usr/bin/make", "make", FALSE },
    { "/workspace/node", "node", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_test_message ("%s", rows[i].exe);
      g_assert_cmpint (warden_started_program_runs_scripts (rows[i].exe, rows[i].argv0), ==,
                       rows[i].runs);
    }
}

static void
test_loading_env (void)
{
  const char * const env[] = { "PATH=/usr/bin", "NODE_OPTIONS=--require /w/x.js", "HOME=/root",
                               "LD_PRELOAD=/w/evil.so", "GIT_DIR=/w/.git", NULL };
  g_auto(GStrv) loading = warden_started_program_loading_env (env);
  g_auto(GStrv) none = warden_started_program_loading_env (NULL);

  /* Sorted: the same variables in another order are the same approval. */
  g_assert_cmpuint (g_strv_length (loading), ==, 2);
  g_assert_cmpstr (loading[0], ==, "LD_PRELOAD=/w/evil.so");
  g_assert_cmpstr (loading[1], ==, "NODE_OPTIONS=--require /w/x.js");
  g_assert_nonnull (none);
  g_assert_null (none[0]);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/policy/started-program/quiet", test_quiet);
  g_test_add_func ("/policy/started-program/compiler-pass", test_compiler_pass);
  g_test_add_func ("/policy/started-program/system-name", test_system_name);
  g_test_add_func ("/policy/started-program/shell-script", test_shell_script);
  g_test_add_func ("/policy/started-program/interpreter", test_interpreter);
  g_test_add_func ("/policy/started-program/loading-env", test_loading_env);
  return g_test_run ();
}
