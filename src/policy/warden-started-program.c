/* warden-started-program.c: what decides about a program a command starts
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-policy"

#include "warden-started-program.h"

#include <string.h>

#include "warden-pattern.h"
#include "warden-policy.h"
#include "warden-shell-parser.h"

/* Programs that are fine whenever a command starts them: they report on
 * the system or the repository and change nothing. */
static const char * const quiet_patterns[] = {
  "uname", "uname *", "nproc", "getconf *", "id", "id *", "whoami", "hostname", "locale",
  "locale *", "tput *", "which *", "basename *", "dirname *", "realpath *", "readlink *",
  "pwd", "true", "false", "date", "date +*", "sleep *", "test *", "[ *",
  "git rev-parse *", "git --version", "git config --get *", "git describe *",
  "git symbolic-ref *", "git status *", "git ls-files *", "node --version", "node -v",
  "npm --version", "python3 --version", "python3 -V", "cc --version", "gcc --version",
  "gcc -dumpversion", "gcc -dumpmachine", "pkg-config --*", NULL
};

/* A compiler driver's own passes: what an allowed cc starts to compile. */
static const char * const drivers[] = { "cc", "gcc", "g++", "c++", "clang", "clang++",
                                        "collect2", "gcc-12", "g++-12", NULL };
static const char * const passes[] = { "cc1", "cc1plus", "cc1obj", "as", "collect2", "ld",
                                       "ld.bfd", "ld.gold", "lto-wrapper", "lto1", NULL };

/* Programs that run a script file named in their arguments (versions cut:
 * python3.11 is python), besides the shells of the sh family. env runs none
 * itself: "#!/usr/bin/env node" makes it start node, which the guard checks
 * in its turn. */
static const char * const interpreters[] = { "python", "node", "nodejs", "perl", "ruby", "php",
                                             "env", NULL };

/* Read-only in every sandbox: what is there is the system's, not a file the
 * command wrote. */
static const char * const system_dirs[] = { "/bin", "/usr/bin", "/sbin", "/usr/sbin",
                                            "/usr/local/bin", NULL };

gboolean
warden_started_program_is_quiet (const char *text)
{
  g_return_val_if_fail (text != NULL, FALSE);

  for (guint i = 0; quiet_patterns[i] != NULL; i++)
    if (warden_pattern_match (quiet_patterns[i], text, strlen (text)))
      return TRUE;
  return FALSE;
}

/* The program of @text when it is a system one: a bare name (the guard names
 * a program by its name only when it is the one in a system directory) or
 * one of gcc's own directories; NULL for any other path, such as a program
 * the command made in the workspace. */
static char *
system_program (const char *text)
{
  static const char * const gcc_dirs[] = { "/usr/lib/gcc/", "/usr/libexec/gcc/", NULL };
  g_autofree char *word = g_strndup (text, strcspn (text, " "));

  if (strchr (word, '/') == NULL)
    return g_steal_pointer (&word);
  for (guint i = 0; gcc_dirs[i] != NULL; i++)
    if (g_str_has_prefix (word, gcc_dirs[i]) && strstr (word, "/../") == NULL)
      return g_path_get_basename (word);
  return NULL;
}

gboolean
warden_started_program_is_compiler_pass (const char         *text,
                                         const char * const *chain)
{
  g_autofree char *program = NULL;
  g_autofree char *parent = NULL;

  g_return_val_if_fail (text != NULL, FALSE);

  program = system_program (text);
  parent = chain && chain[0] ? system_program (chain[0]) : NULL;
  return program != NULL && parent != NULL && g_strv_contains (drivers, parent) &&
         g_strv_contains (passes, program);
}

char *
warden_started_program_system_name (const char *exe,
                                    const char *argv0)
{
  g_autofree char *dir = NULL;
  g_autofree char *name = NULL;
  gsize len;

  g_return_val_if_fail (exe != NULL, NULL);

  dir = g_path_get_dirname (exe);
  if (!g_strv_contains (system_dirs, dir) || strstr (exe, "/../") != NULL)
    return NULL;
  name = g_path_get_basename (exe);
  if (strcmp (name, "busybox") == 0 && argv0 != NULL)
    {
      g_free (name);
      name = g_path_get_basename (argv0);
    }
  len = strlen (name);
  while (len > 0 && (g_ascii_isdigit (name[len - 1]) || name[len - 1] == '.'))
    len--;
  name[len] = '\0';
  return g_steal_pointer (&name);
}

const char *
warden_started_program_shell_script (const char         *exe,
                                     const char * const *argv)
{
  g_autofree char *name = NULL;

  g_return_val_if_fail (exe != NULL && argv != NULL, NULL);

  if (argv[0] == NULL || argv[1] == NULL || argv[2] == NULL || strcmp (argv[1], "-c") != 0)
    return NULL;
  name = warden_started_program_system_name (exe, argv[0]);
  return name != NULL && warden_shell_name_is_sh (name) ? argv[2] : NULL;
}

gboolean
warden_started_program_runs_scripts (const char *exe,
                                     const char *argv0)
{
  g_autofree char *name = NULL;

  g_return_val_if_fail (exe != NULL, FALSE);

  name = warden_started_program_system_name (exe, argv0);
  return name != NULL && (warden_shell_name_is_sh (name) || g_strv_contains (interpreters, name));
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

GStrv
warden_started_program_loading_env (const char * const *env)
{
  GPtrArray *loading = g_ptr_array_new ();

  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    if (warden_policy_env_loads_code (env[i]))
      g_ptr_array_add (loading, g_strdup (env[i]));
  g_ptr_array_sort (loading, compare_strings);
  g_ptr_array_add (loading, NULL);
  return (GStrv) g_ptr_array_free (loading, FALSE);
}
