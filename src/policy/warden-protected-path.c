/* warden-protected-path.c: workspace paths that nobody writes without asking
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* One list for the parser (redirection targets), the file tools (write and
 * edit) and the sandboxes (read-only mounts), so the three cannot drift.
 * A component protects everything below it: ".vscode/tasks.json" runs a
 * task when the folder opens, ".git/hooks/pre-commit" on the next commit,
 * ".git/config" with core.fsmonitor on the next "git status". */

#include "config.h"

#include <string.h>

#include "warden-protected-path.h"

/* Any path with one of these as a component. */
static const char * const protected_dirs[] = {
  ".git", ".vscode", ".idea", ".devcontainer", ".direnv", ".warden",
};

/* Any path whose last component is one of these. */
static const char * const protected_files[] = {
  ".gitmodules", ".envrc",
  ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
  ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout",
  ".kshrc", ".mkshrc", ".cshrc", ".tcshrc", ".login", ".logout", ".inputrc",
  ".gitconfig", ".npmrc", ".pypirc", ".netrc",
  "warden.db", "warden.db-wal", "warden.db-shm",
};

static const char * const globs[] = {
  ".git/**", ".gitmodules", ".envrc", ".vscode/**", ".idea/**", ".devcontainer/**",
  ".direnv/**", ".warden/**",
  ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
  ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout",
  ".kshrc", ".mkshrc", ".cshrc", ".tcshrc", ".login", ".logout", ".inputrc",
  ".gitconfig", ".npmrc", ".pypirc", ".netrc", "warden.db*",
  NULL,
};

static const char * const git_read_only[] = {
  ".git/config", ".git/hooks", ".git/info", NULL,
};

static gboolean
component_in (const char         *c,
              gsize               len,
              const char * const *list,
              gsize               n)
{
  for (gsize k = 0; k < n; k++)
    if (strlen (list[k]) == len && g_ascii_strncasecmp (c, list[k], len) == 0)
      return TRUE;
  return FALSE;
}

gboolean
warden_path_is_protected (const char *path)
{
  const char *p = path;

  if (path == NULL)
    return FALSE;

  while (*p != '\0')
    {
      const char *end;
      gsize len;

      while (*p == '/')
        p++;
      if (*p == '\0')
        break;
      end = strchr (p, '/');
      len = end != NULL ? (gsize) (end - p) : strlen (p);

      if (component_in (p, len, protected_dirs, G_N_ELEMENTS (protected_dirs)))
        return TRUE;
      /* git also reads ".git " and "GIT~1" on some filesystems; names that
       * differ from .git only by trailing dots or spaces count as it. */
      if (len > 4 && g_ascii_strncasecmp (p, ".git", 4) == 0 &&
          strspn (p + 4, ". ") >= len - 4)
        return TRUE;
      if ((end == NULL || end[strspn (end, "/")] == '\0') &&
          component_in (p, len, protected_files, G_N_ELEMENTS (protected_files)))
        return TRUE;

      p += len;
    }
  return FALSE;
}

const char * const *
warden_protected_path_globs (void)
{
  return globs;
}

const char * const *
warden_git_read_only_paths (void)
{
  return git_read_only;
}
