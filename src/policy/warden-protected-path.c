/* warden-protected-path.c: workspace paths that nobody writes without asking
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* One list for the parser (redirection targets), the file tools (write and
 * edit) and the sandboxes (read-only mounts), so the three cannot drift.
 * A folder protects everything below it: ".vscode/tasks.json" runs a
 * task when the folder opens, ".git/hooks/pre-commit" on the next commit,
 * ".git/config" with core.fsmonitor on the next "git status", in the
 * workspace's repository or any repository nested in it. */

#include "config.h"

#include <string.h>

#include "warden-protected-path.h"

/* The one list: every name, what it protects, and which program on the
 * host would act on it. Where each kind is handled is in docs/policy.md. */
typedef struct
{
  const char          *name;
  WardenProtectedKind  kind;
  const char * const  *parts;  /* WARDEN_PROTECTED_SOME: the paths below it */
} Entry;

static const char * const hg_parts[] = {
  "hgrc",        /* [hooks] and [extensions] run on the next hg status */
  "sharedpath",  /* names the repository whose hgrc is read */
  NULL,
};
static const char * const config_parts[] = {
  "mise", "mise.toml", "mise.local.toml",  /* mise: [env] _.source, tasks, hooks */
  NULL,
};
static const char * const mise_parts[] = { "config.toml", "config.local.toml", NULL };

static const Entry entries[] = {
  { .name = ".git", .kind = WARDEN_PROTECTED_REPO },
  { .name = ".hg", .kind = WARDEN_PROTECTED_SOME, .parts = hg_parts },
  { .name = ".config", .kind = WARDEN_PROTECTED_SOME, .parts = config_parts },
  { .name = "mise", .kind = WARDEN_PROTECTED_SOME, .parts = mise_parts },
  /* Editors run tasks and launch configurations when the folder opens. */
  { .name = ".vscode", .kind = WARDEN_PROTECTED_TREE },
  { .name = ".idea", .kind = WARDEN_PROTECTED_TREE },
  /* initializeCommand runs on the host before any container starts. */
  { .name = ".devcontainer", .kind = WARDEN_PROTECTED_TREE },
  { .name = ".devcontainer.json", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".direnv", .kind = WARDEN_PROTECTED_TREE },
  /* Other agents on the host: hooks in their settings, MCP servers they start. */
  { .name = ".claude", .kind = WARDEN_PROTECTED_TREE },
  { .name = ".mcp.json", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".envrc", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".gitmodules", .kind = WARDEN_PROTECTED_FILE },
  /* Version managers: env directives, plugins and hooks run on cd. */
  { .name = ".mise", .kind = WARDEN_PROTECTED_TREE },
  { .name = ".mise.toml", .kind = WARDEN_PROTECTED_FILE },
  { .name = "mise.toml", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".mise.local.toml", .kind = WARDEN_PROTECTED_FILE },
  { .name = "mise.local.toml", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".rtx.toml", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".tool-versions", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".asdfrc", .kind = WARDEN_PROTECTED_FILE },
  /* Shells and tools that read their settings from the folder they run in. */
  { .name = ".bashrc", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".bash_profile", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".bash_login", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".bash_logout", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".profile", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".zshrc", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".zshenv", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".zprofile", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".zlogin", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".zlogout", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".kshrc", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".mkshrc", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".cshrc", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".tcshrc", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".login", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".logout", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".inputrc", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".gitconfig", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".hgrc", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".npmrc", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".pypirc", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".netrc", .kind = WARDEN_PROTECTED_FILE },
  { .name = ".ripgreprc", .kind = WARDEN_PROTECTED_FILE },  /* --pre=COMMAND */
  /* Warden's own state. */
  { .name = ".warden", .kind = WARDEN_PROTECTED_TREE },
  { .name = "warden.db", .kind = WARDEN_PROTECTED_FILE },
  { .name = "warden.db-wal", .kind = WARDEN_PROTECTED_FILE },
  { .name = "warden.db-shm", .kind = WARDEN_PROTECTED_FILE },
};

static const char * const globs[] = {
  ".git/**", "**/.git/**", ".gitmodules", ".envrc", ".vscode/**", ".idea/**",
  ".devcontainer/**", ".devcontainer.json", ".direnv/**", ".hg/hgrc", ".hg/sharedpath",
  ".mise/**", ".mise.toml", "mise.toml", ".mise.*.toml", "mise.*.toml", ".rtx.toml",
  ".config/mise/**", ".config/mise*.toml", "mise/config*.toml", ".tool-versions", ".asdfrc",
  ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
  ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout",
  ".kshrc", ".mkshrc", ".cshrc", ".tcshrc", ".login", ".logout", ".inputrc",
  ".gitconfig", ".hgrc", ".npmrc", ".pypirc", ".netrc", ".ripgreprc", ".claude/**", ".mcp.json",
  ".warden/**", "warden.db*",
  NULL,
};

static const char * const git_read_only[] = {
  ".git/config", ".git/hooks", ".git/info", NULL,
};

static gboolean
name_is (const char *c,
         gsize       len,
         const char *name)
{
  return strlen (name) == len && g_ascii_strncasecmp (c, name, len) == 0;
}

static gboolean
has_prefix (const char *c,
            gsize       len,
            const char *prefix)
{
  gsize n = strlen (prefix);

  return len >= n && g_ascii_strncasecmp (c, prefix, n) == 0;
}

/* mise.ENV.toml and .mise.ENV.toml: the settings of one MISE_ENV. */
static gboolean
is_mise_env_file (const char *c,
                  gsize       len)
{
  return (has_prefix (c, len, "mise.") || has_prefix (c, len, ".mise.")) &&
         len > 5 && g_ascii_strncasecmp (c + len - 5, ".toml", 5) == 0;
}

/* Names profiles added (files.protect), lower case, in every layer. */
static GRWLock added_lock;
static GHashTable *added;
static const Entry added_entry = { .name = "", .kind = WARDEN_PROTECTED_TREE };

static const Entry *
entry_of (const char *c,
          gsize       len)
{
  gboolean found = FALSE;
  /* The names are lower case; most path components start with a letter
   * none of them does, and this runs for every component of every
   * redirection's target. */
  char first = len > 0 ? g_ascii_tolower (c[0]) : '\0';

  for (gsize k = 0; k < G_N_ELEMENTS (entries); k++)
    if (entries[k].name[0] == first && name_is (c, len, entries[k].name))
      return &entries[k];
  /* Profiles that add names are rare: no lock while none has. */
  if (g_atomic_pointer_get (&added) == NULL)
    return NULL;
  g_rw_lock_reader_lock (&added_lock);
  if (added != NULL && len > 0 && len <= 255)
    {
      char lower[256];

      for (gsize i = 0; i < len; i++)
        lower[i] = g_ascii_tolower (c[i]);
      lower[len] = '\0';
      found = g_hash_table_contains (added, lower);
    }
  g_rw_lock_reader_unlock (&added_lock);
  return found ? &added_entry : NULL;
}

gboolean
warden_protected_name_is_valid (const char *name)
{
  return name != NULL && *name != '\0' && strlen (name) <= 255 && strchr (name, '/') == NULL &&
         strcmp (name, ".") != 0 && strcmp (name, "..") != 0;
}

void
warden_protected_path_add_names (const char * const *names)
{
  g_rw_lock_writer_lock (&added_lock);
  if (added == NULL)
    g_atomic_pointer_set (&added, g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL));
  for (guint i = 0; names != NULL && names[i]; i++)
    if (warden_protected_name_is_valid (names[i]))
      g_hash_table_add (added, g_ascii_strdown (names[i], -1));
  g_rw_lock_writer_unlock (&added_lock);
}

WardenProtectedKind
warden_protected_name_kind (const char *name)
{
  gsize len = name ? strlen (name) : 0;
  const Entry *entry = entry_of (name, len);

  if (entry != NULL)
    return entry->kind;
  if (len > 0 && is_mise_env_file (name, len))
    return WARDEN_PROTECTED_FILE;
  return WARDEN_PROTECTED_NONE;
}

const char * const *
warden_protected_name_parts (const char *name)
{
  const Entry *entry = name ? entry_of (name, strlen (name)) : NULL;
  static const char * const none[] = { NULL };

  return entry != NULL && entry->parts != NULL ? entry->parts : none;
}

/* Whether @rest, the path after a folder of kind SOME, starts with one of
 * its @parts (the part itself or anything below it). */
static gboolean
rest_in_parts (const char         *rest,
               const char * const *parts)
{
  rest += strspn (rest, "/");
  for (guint k = 0; parts[k]; k++)
    {
      gsize n = strlen (parts[k]);

      if (g_ascii_strncasecmp (rest, parts[k], n) == 0 &&
          (rest[n] == '\0' || rest[n] == '/'))
        return TRUE;
    }
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
      const Entry *entry;
      const char *end;
      gboolean last;
      gsize len;

      while (*p == '/')
        p++;
      if (*p == '\0')
        break;
      end = strchr (p, '/');
      len = end != NULL ? (gsize) (end - p) : strlen (p);

      entry = entry_of (p, len);
      last = end == NULL || end[strspn (end, "/")] == '\0';
      if (entry != NULL && (entry->kind == WARDEN_PROTECTED_TREE ||
                            entry->kind == WARDEN_PROTECTED_REPO))
        return TRUE;
      if (entry != NULL && entry->kind == WARDEN_PROTECTED_SOME && end != NULL &&
          rest_in_parts (end, entry->parts))
        return TRUE;
      /* git also reads ".git " and "GIT~1" on some filesystems; names that
       * differ from .git only by trailing dots or spaces count as it. */
      if (len > 4 && g_ascii_strncasecmp (p, ".git", 4) == 0 &&
          strspn (p + 4, ". ") >= len - 4)
        return TRUE;
      if (last && ((entry != NULL && entry->kind == WARDEN_PROTECTED_FILE) ||
                   is_mise_env_file (p, len)))
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
