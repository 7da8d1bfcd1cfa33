/* warden-shell-commands.c: what the shell parser knows of commands: wrappers,
 * shells, builtins and where redirections write
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Each simple command the grammar reads is judged here by its name and words:
 * what it wraps is emitted as a command of its own, what the engine cannot
 * follow asks. */

#include "config.h"

#define G_LOG_DOMAIN "warden-policy"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "warden-env-vars.h"
#include "warden-pattern.h"
#include "warden-protected-path.h"
#include "warden-shell-private.h"

static gboolean names_dangerous_var (const char *arg);
static void     emit_words          (Lexer *L, const WordRef *words, guint n_words,
                                     WardenOrigin origin, const char *hole_token,
                                     gboolean append_hole, const char *hole_prefix,
                                     const char *runner);

/* ------------------------------------------------------------------------ */
/* Judging redirections */

/* Resolves "." and ".." in an absolute path, lexically. */
char *
normalize_path (const char *path)
{
  gsize n = strlen (path);
  char *out = g_malloc (n + 2);
  gsize len = 0;
  const char *p = path;

  while (*p)
    {
      const char *end;
      gsize clen;

      while (*p == '/')
        p++;
      if (*p == '\0')
        break;
      end = strchr (p, '/');
      clen = end ? (gsize) (end - p) : strlen (p);

      if (clen == 1 && p[0] == '.')
        ;
      else if (clen == 2 && p[0] == '.' && p[1] == '.')
        {
          while (len > 0 && out[len - 1] != '/')
            len--;
          if (len > 0)
            len--;
        }
      else
        {
          out[len++] = '/';
          memcpy (out + len, p, clen);
          len += clen;
        }
      p += clen;
    }

  if (len == 0)
    out[len++] = '/';
  out[len] = '\0';
  return out;
}

/* The real path of a workspace root, by the root as given. The sandbox binds
 * the root when its session starts, and nothing inside can re-point the root
 * itself, only what is under it: so the root's realpath() (a readlink() for
 * each of its components, a microsecond or more each) is looked up once per
 * policy, not once per decision. What is under the root is looked at every
 * time (lstat() of each component of a target). A root that does not exist
 * is not remembered: it may be made later, and then its symlinks count.
 * Policies are used from several threads. */
#define ROOT_CACHE_SIZE 4

struct _WardenShellRootCache
{
  GMutex lock;
  guint  next;
  struct { char *given; char *real; } roots[ROOT_CACHE_SIZE];
};

WardenShellRootCache *
warden_shell_root_cache_new (void)
{
  WardenShellRootCache *cache = g_new0 (WardenShellRootCache, 1);

  g_mutex_init (&cache->lock);
  return cache;
}

void
warden_shell_root_cache_free (WardenShellRootCache *cache)
{
  if (cache == NULL)
    return;
  for (guint i = 0; i < ROOT_CACHE_SIZE; i++)
    {
      g_free (cache->roots[i].given);
      free (cache->roots[i].real);
    }
  g_mutex_clear (&cache->lock);
  g_free (cache);
}

/* realpath (@given), from @cache when it has it; free() the answer. */
static char *
root_realpath (WardenShellRootCache *cache,
               const char           *given)
{
  char *real = NULL;

  if (cache == NULL)
    return realpath (given, NULL);

  g_mutex_lock (&cache->lock);
  for (guint i = 0; i < ROOT_CACHE_SIZE && real == NULL; i++)
    if (cache->roots[i].given != NULL && strcmp (cache->roots[i].given, given) == 0)
      real = strdup (cache->roots[i].real);
  g_mutex_unlock (&cache->lock);
  if (real != NULL)
    return real;

  real = realpath (given, NULL);
  if (real != NULL)
    {
      guint slot;

      g_mutex_lock (&cache->lock);
      slot = cache->next++ % ROOT_CACHE_SIZE;
      g_free (cache->roots[slot].given);
      free (cache->roots[slot].real);
      cache->roots[slot].given = g_strdup (given);
      cache->roots[slot].real = strdup (real);
      g_mutex_unlock (&cache->lock);
    }
  return real;
}

/* When the workspace exists here, a target inside it may still lead
 * elsewhere through a symlink on its way: say why, or NULL. @rel is the
 * target as written, relative to the workspace: "out/../x" with out -> /etc
 * is /x, whatever "x" alone would be. */
static char *
symlink_leaves_workspace (State      *st,
                          const char *rel)
{
  g_autoptr(GString) path = NULL;
  const char *host = st->options != NULL && st->options->host_workspace != NULL
                     ? st->options->host_workspace : st->workspace;
  const char *p = rel;
  gsize root_len;

  if (!st->workspace_checked)
    {
      st->workspace_checked = TRUE;
      st->workspace_real = root_realpath (st->options != NULL ? st->options->root_cache : NULL,
                                          host);
    }
  if (st->workspace_real == NULL)
    return NULL;

  path = g_string_new (st->workspace_real);
  root_len = path->len;
  while (*p != '\0')
    {
      gsize len = strcspn (p, "/");
      struct stat sb;

      if ((len == 1 && p[0] == '.') || len == 0)
        ;
      else if (len == 2 && p[0] == '.' && p[1] == '.')
        {
          /* Every component so far is a real directory: ".." is its parent. */
          if (path->len <= root_len)
            return g_strdup ("output redirection that climbs out of the workspace");
          while (path->len > root_len && path->str[path->len - 1] != '/')
            g_string_truncate (path, path->len - 1);
          g_string_truncate (path, MAX (path->len - 1, root_len));
        }
      else
        {
          g_string_append_c (path, '/');
          g_string_append_len (path, p, len);
          if (lstat (path->str, &sb) != 0)
            return NULL;  /* what does not exist yet is created inside */
          if (S_ISLNK (sb.st_mode))
            {
              g_autofree char *real = realpath (path->str, NULL);

              if (real == NULL || strncmp (real, st->workspace_real, root_len) != 0 ||
                  (real[root_len] != '/' && real[root_len] != '\0') ||
                  warden_path_is_protected (real + root_len))
                return g_strdup_printf ("output redirection through the symlink “%s”, which "
                                        "leads to %s", path->str,
                                        real != NULL ? real : "a file that does not exist");
              g_string_assign (path, real);
            }
        }
      p += len;
      p += strspn (p, "/");
    }
  return NULL;
}

/* NULL when writing to @target is fine; otherwise why it asks. Sets
 * @relative when the answer depends on no cd coming later. */
static char *
judge_output_target (State      *st,
                     const char *target,
                     guint       flags,
                     gboolean   *relative)
{
  g_autofree char *full = NULL;
  g_autofree char *norm = NULL;

  *relative = FALSE;

  if (flags & W_NONLITERAL)
    return g_strdup_printf ("output redirection to “%s”, which is not a literal path", target);
  if (strcmp (target, "/dev/null") == 0 || strcmp (target, "/dev/stdout") == 0 ||
      strcmp (target, "/dev/stderr") == 0)
    return NULL;
  if (target[0] == '\0')
    return g_strdup ("output redirection to an empty file name");

  if (target[0] == '/')
    full = g_strdup (target);
  else
    {
      if (st->options && st->options->cwd_outside_workspace)
        return g_strdup_printf ("output redirection to “%s”, relative to a working directory "
                                "outside the workspace", target);
      if (st->cd_seen)
        return g_strdup_printf ("output redirection to “%s”, relative to a directory changed "
                                "earlier by cd, chdir, pushd, popd or a wrapper's option",
                                target);
      *relative = TRUE;
      full = g_strconcat (st->workspace, "/", target, NULL);
    }

  norm = normalize_path (full);
  if (strncmp (norm, st->workspace, st->workspace_len) == 0 &&
      (st->workspace_len == 1 || norm[st->workspace_len] == '/') &&
      norm[st->workspace_len == 1 ? 0 : st->workspace_len] != '\0' &&
      strcmp (norm, st->workspace) != 0)
    {
      const char *rel = norm + st->workspace_len + (st->workspace_len == 1 ? 0 : 1);
      char *why = NULL;

      /* .git/config, .git/hooks, .envrc … make a program on the host run
       * something: writing them asks in every mode. */
      if (warden_path_is_protected (rel))
        why = g_strdup_printf ("output redirection to “%s”, a protected path (%s)", target,
                               "git, direnv and editors run what it says");
      else if (target[0] != '/')
        why = symlink_leaves_workspace (st, target);
      else if (g_str_has_prefix (target, st->workspace) && target[st->workspace_len] == '/')
        why = symlink_leaves_workspace (st, target + st->workspace_len + 1);
      else
        why = symlink_leaves_workspace (st, rel);
      if (why != NULL)
        *relative = FALSE;
      return why;
    }

  *relative = FALSE;
  return g_strdup_printf ("output redirection to “%s”, outside the workspace %s",
                          target, st->workspace);
}

/* Judges the redirections of @items for @p; appends their text to @text. */
void
judge_redirections (Lexer   *L,
                    Part    *p,
                    Item    *it)
{
  const char *op = it->text->str;
  const char *target = it->target->str;
  gboolean dup = FALSE, output = FALSE;
  const char *bare = op + strspn (op, "0123456789");

  if (strcmp (bare, ">&") == 0 || strcmp (bare, "<&") == 0)
    {
      gsize tl = strlen (target);

      dup = (it->flags & W_NONLITERAL) == 0 && tl > 0 &&
            (strspn (target, "0123456789") == tl ||
             (strspn (target, "0123456789") == tl - 1 && target[tl - 1] == '-'));
      output = !dup && bare[0] == '>';
    }
  else
    output = strchr (bare, '>') != NULL;

  if (output)
    {
      gboolean relative = FALSE;
      g_autofree char *why = judge_output_target (L->st, target, it->flags, &relative);

      if (why != NULL)
        force_ask (p, FALSE, why);
      if (relative)
        p->relative_redirect = TRUE;
    }
}

void
append_redirection_text (GString *text,
                         Item    *it)
{
  const char *bare = it->text->str + strspn (it->text->str, "0123456789");
  gboolean dup_form = (strcmp (bare, ">&") == 0 || strcmp (bare, "<&") == 0) &&
                      it->target->len > 0 &&
                      strspn (it->target->str, "0123456789-") == it->target->len;

  g_string_append (text, it->text->str);
  if (!dup_form)
    g_string_append_c (text, ' ');
  g_string_append (text, it->target->str);
}

/* ------------------------------------------------------------------------ */
/* Simple commands and wrappers */

static char *
join_words_with_prefix (const WordRef *words,
                        guint          n,
                        const char    *hole_token,
                        const char    *hole_prefix,
                        gboolean       append_hole,
                        gboolean       basename_first)
{
  GString *s;

  /* Most often the words as they are: measured, then copied once. */
  if (hole_token == NULL && n > 0)
    {
      const char *first = words[0].text;
      gsize size = append_hole ? 3 : 1;
      char *out, *o;

      if (basename_first && strrchr (first, '/') != NULL && strrchr (first, '/')[1] != '\0')
        first = strrchr (first, '/') + 1;
      for (guint i = 0; i < n; i++)
        size += strlen (i == 0 ? first : words[i].text) + 1;
      o = out = g_malloc (size);
      for (guint i = 0; i < n; i++)
        {
          const char *w = i == 0 ? first : words[i].text;
          gsize len = strlen (w);

          if (i > 0)
            *o++ = ' ';
          memcpy (o, w, len);
          o += len;
        }
      if (append_hole)
        {
          *o++ = ' ';
          *o++ = WARDEN_PATTERN_HOLE;
        }
      *o = '\0';
      return out;
    }

  s = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    {
      const char *w = words[i].text;

      if (i > 0)
        g_string_append_c (s, ' ');
      if (i == 0 && basename_first && strrchr (w, '/') != NULL && strrchr (w, '/')[1] != '\0')
        w = strrchr (w, '/') + 1;
      /* find puts each file's path, which starts with where it searched. */
      if (hole_token != NULL && hole_prefix != NULL && i > 0 && strcmp (w, hole_token) == 0)
        {
          g_string_append (s, hole_prefix);
          g_string_append_c (s, WARDEN_PATTERN_HOLE);
        }
      else if (hole_token != NULL && i > 0)
        {
          const char *p = w, *m;
          gsize tl = strlen (hole_token);

          while ((m = strstr (p, hole_token)) != NULL)
            {
              g_string_append_len (s, p, m - p);
              g_string_append_c (s, WARDEN_PATTERN_HOLE);
              p = m + tl;
            }
          g_string_append (s, p);
        }
      else
        g_string_append (s, w);
    }
  if (append_hole)
    {
      g_string_append_c (s, ' ');
      g_string_append_c (s, WARDEN_PATTERN_HOLE);
    }
  return g_string_free (s, FALSE);
}

char *
join_words (const WordRef *words,
            guint          n,
            const char    *hole_token,
            gboolean       append_hole,
            gboolean       basename_first)
{
  return join_words_with_prefix (words, n, hole_token, NULL, append_hole, basename_first);
}

/* The words with each one that expands as a hole, the name by its basename;
 * NULL when no argument expands (a name that expands asks anyway). */
char *
join_expanded (const WordRef *words,
               guint          n)
{
  const char *first;
  gsize size = 1;
  char *out, *o;

  for (guint i = 1; i < n; i++)
    if (words[i].flags & W_NONLITERAL)
      break;
    else if (i + 1 == n)
      return NULL;
  if (n < 2)
    return NULL;

  /* Measured, then copied once. */
  first = words[0].text;
  if (strrchr (first, '/') != NULL && strrchr (first, '/')[1] != '\0')
    first = strrchr (first, '/') + 1;
  for (guint i = 0; i < n; i++)
    size += (i == 0 ? strlen (first)
             : (words[i].flags & W_NONLITERAL) ? 1 : strlen (words[i].text)) + 1;
  o = out = g_malloc (size);
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        *o++ = ' ';
      if (i > 0 && (words[i].flags & W_NONLITERAL))
        *o++ = WARDEN_PATTERN_HOLE;
      else
        {
          const char *w = i == 0 ? first : words[i].text;
          gsize len = strlen (w);

          memcpy (o, w, len);
          o += len;
        }
    }
  *o = '\0';
  return out;
}

/* The text with the arguments that may expand to nothing left out, and the
 * redirections of @items (when given) in their places; NULL when no argument
 * may vanish. */
char *
join_without_vanishing (const WordRef *words,
                        guint          n,
                        Items         *items)
{
  GString *s;
  gboolean any = FALSE;

  for (guint i = 1; i < n; i++)
    if (words[i].flags & W_VANISH)
      any = TRUE;
  if (!any)
    return NULL;

  s = g_string_new (NULL);
  if (items == NULL)
    {
      for (guint i = 0; i < n; i++)
        if (i == 0 || (words[i].flags & W_VANISH) == 0)
          {
            if (s->len > 0)
              g_string_append_c (s, ' ');
            g_string_append (s, words[i].text);
          }
      return g_string_free (s, FALSE);
    }

  for (guint i = 0, word = 0; i < items->len; i++)
    {
      Item *it = &items->v[i];

      if (it->kind == ITEM_WORD && word++ > 0 && (it->flags & W_VANISH))
        continue;
      if (s->len > 0)
        g_string_append_c (s, ' ');
      if (it->kind == ITEM_REDIR)
        append_redirection_text (s, it);
      else
        g_string_append (s, it->text->str);
    }
  return g_string_free (s, FALSE);
}

static const char *
basename_of (const char *name)
{
  const char *slash = strrchr (name, '/');

  return slash != NULL && slash[1] != '\0' ? slash + 1 : name;
}

/* TRUE when @list (NULL-terminated, or NULL for none) holds @s. */
static gboolean
str_in (const char  *s,
        const char **list)
{
  for (guint i = 0; list != NULL && list[i] != NULL; i++)
    if (strcmp (s, list[i]) == 0)
      return TRUE;
  return FALSE;
}

/* TRUE when the option letters @opts (or NULL for none) hold @o. */
static gboolean
opt_in (const char *opts,
        char        o)
{
  return opts != NULL && strchr (opts, o) != NULL;
}

/* How a wrapper's options are laid out; a field left out (NULL) holds no
 * option. Each option has one argument rule (args, optional or flags; one
 * the table does not know asks), and may have effects besides. The tables
 * follow the programs' getopt strings and --help (GNU and util-linux as in
 * Debian 12; busybox's applets take a subset, read alike). */
typedef struct
{
  const char *name;
  const char *short_args;     /* short options that take an argument */
  const char *short_flags;    /* short options without one */
  const char **long_args;     /* long options that take an argument (without "--") */
  const char **long_flags;
  /* Options whose argument is optional: it is attached (-dSTR, --eof=STR)
   * or absent, and the next word is not theirs. */
  const char  *short_optional;
  const char **long_optional;
  /* Options that change what the started program is or loads (another
   * root, a library, a variable of its environment): the line asks, and
   * the command is still read for the deny patterns. */
  const char  *short_ask;
  const char **long_ask;
  /* Options that change the directory the command runs in. */
  const char  *short_chdir;
  const char **long_chdir;
  /* Options whose argument is a file the program writes. */
  const char  *short_writes;
  const char **long_writes;
  gboolean     positional_writes;  /* its positional is a file it writes (script) */
  gboolean     positional_root;    /* its positional is the root the command runs in */
  const char **shell_long;    /* long options that make it run a shell (sudo --shell) */
  /* Options that make it run no command (command -v, taskset -p, sudo -l). */
  const char  *short_no_command;
  const char **long_no_command;
  guint        positionals;   /* words between the options and the command */
  gboolean     assignments;   /* NAME=VALUE words before the command (env) */
  gboolean     numeric_opt;   /* -N is an option (nice -10) */
  gboolean     bare_shell;    /* with no command, it starts a shell reading stdin */
  const char  *shell_opts;    /* short options that make it run a shell (sudo -s) */
  /* Short options whose argument is a shell script (su -c); set, even to "",
   * for the wrappers whose options analyze_script_wrapper () reads. */
  const char  *script_opts;
  const char **script_long;   /* long options whose argument is a shell script */
  gboolean     lax_order;     /* options may follow the positionals (su USER -c CMD) */
} WrapperSpec;

static const char *env_long_args[] = { "unset", "chdir", "split-string", NULL };
static const char *env_long_optional[] = { "block-signal", "default-signal", "ignore-signal",
                                           NULL };
static const char *chdir_long[] = { "chdir", NULL };
static const char *env_long_flags[] = { "ignore-environment", "null", "debug",
                                        "list-signal-handling", NULL };
static const char *nice_long_args[] = { "adjustment", NULL };
static const char *timeout_long_args[] = { "signal", "kill-after", NULL };
static const char *timeout_long_flags[] = { "preserve-status", "foreground", "verbose", NULL };
static const char *time_long_args[] = { "format", "output", NULL };
static const char *output_long[] = { "output", NULL };
static const char *time_long_flags[] = { "append", "portability", "verbose", "quiet", NULL };
static const char *stdbuf_long_args[] = { "input", "output", "error", NULL };
static const char *setsid_long_flags[] = { "ctty", "fork", "wait", NULL };
static const char *ionice_long_args[] = { "class", "classdata", "uid", "pid", "pgid", NULL };
static const char *ionice_long_flags[] = { "ignore", NULL };
static const char *taskset_long_flags[] = { "all-tasks", "cpu-list", NULL };
static const char *pid_long[] = { "pid", NULL };
static const char *ionice_no_command[] = { "pid", "pgid", "uid", NULL };
static const char *chroot_long_args[] = { "userspec", "groups", NULL };
static const char *chroot_long_flags[] = { "skip-chdir", NULL };
static const char *sudo_long_args[] = { "user", "group", "close-from", "chdir", "host", "prompt",
                                        "role", "type", "command-timeout", "other-user", "chroot",
                                        NULL };
static const char *sudo_long_flags[] = { "askpass", "background", "preserve-env", "set-home",
                                         "non-interactive", "preserve-groups", "stdin", NULL };
/* -h is "-hHOST" or help, and "-h HOST" too: which one, sudo decides. */
static const char *sudo_long_ask[] = { "chroot", "host", NULL };
static const char *sudo_shell_long[] = { "shell", "login", "edit", NULL };
static const char *sudo_no_command[] = { "list", "validate", "version", "help",
                                         "remove-timestamp", NULL };
static const char *xargs_long_args[] = { "arg-file", "delimiter", "max-args", "max-procs",
                                         "max-chars", "process-slot-var", NULL };
static const char *xargs_long_optional[] = { "eof", "replace", "max-lines", NULL };
/* It puts a variable of that name in every command's environment. */
static const char *xargs_long_ask[] = { "process-slot-var", NULL };
static const char *xargs_long_flags[] = { "null", "interactive", "no-run-if-empty", "verbose",
                                          "exit", "open-tty", "show-limits", NULL };

static const char *su_long_args[] = { "command", "session-command", "group", "supp-group",
                                      "whitelist-environment", "shell", "user", NULL };
static const char *su_long_flags[] = { "login", "preserve-environment", "pty", "fast", NULL };
static const char *su_script_long[] = { "command", "session-command", NULL };
static const char *flock_long_args[] = { "timeout", "wait", "conflict-exit-code", "command",
                                         NULL };
static const char *flock_long_flags[] = { "shared", "exclusive", "unlock", "nonblock", "nb",
                                          "close", "no-fork", "verbose", NULL };
static const char *flock_script_long[] = { "command", NULL };
static const char *unshare_long_args[] = { "propagation", "setgroups", "setuid", "setgid",
                                           "map-user", "map-group", "map-users", "map-groups",
                                           "root", "wd", "load-interp", "monotonic", "boottime",
                                           NULL };
static const char *unshare_long_optional[] = { "mount", "uts", "ipc", "net", "pid", "user",
                                               "cgroup", "time", "kill-child", "mount-proc",
                                               NULL };
static const char *unshare_long_flags[] = { "fork", "map-root-user", "map-current-user",
                                            "map-auto", "keep-caps", "mount-binfmt", NULL };
static const char *root_long[] = { "root", NULL };
static const char *wd_long[] = { "wd", "wdns", NULL };
static const char *nsenter_long_args[] = { "target", "setuid", "setgid", "wdns", NULL };
static const char *nsenter_long_optional[] = { "mount", "uts", "ipc", "net", "pid", "user",
                                               "cgroup", "time", "root", "wd", NULL };
static const char *nsenter_long_flags[] = { "all", "preserve-credentials", "no-fork",
                                            "follow-context", NULL };
static const char *script_long_args[] = { "command", "echo", "log-in", "log-out", "log-io",
                                          "log-timing", "logging-format", "output-limit", NULL };
static const char *script_long_optional[] = { "timing", NULL };
static const char *script_long_writes[] = { "log-in", "log-out", "log-io", "log-timing",
                                            "timing", NULL };
static const char *script_long_flags[] = { "append", "return", "flush", "force", "quiet",
                                           NULL };
static const char *script_script_long[] = { "command", NULL };
static const char *setpriv_long_args[] = { "ruid", "euid", "rgid", "egid", "reuid", "regid",
                                           "groups", "inh-caps", "ambient-caps", "bounding-set",
                                           "securebits", "pdeathsig", "selinux-label",
                                           "apparmor-profile", "landlock-access", "landlock-rule",
                                           "ptracer", NULL };
static const char *setpriv_long_flags[] = { "clear-groups", "keep-groups", "init-groups",
                                            "no-new-privs", "nnp", "reset-env", "dump", NULL };
static const char *dump_long[] = { "dump", NULL };
/* --property, -p, --setenv and -E are left out on purpose: ExecStartPre=
 * and LD_PRELOAD= run other programs, so they ask as unknown options. */
static const char *sdrun_long_args[] = { "unit", "description", "slice",
                                         "service-type", "uid", "gid", "nice",
                                         "working-directory", "on-active", "on-boot",
                                         "on-startup", "on-unit-active", "on-unit-inactive",
                                         "on-calendar", "on-clock-change", "on-timezone-change",
                                         NULL };
static const char *sdrun_long_chdir[] = { "working-directory", NULL };
static const char *sdrun_long_flags[] = { "user", "system", "scope", "remain-after-exit",
                                          "send-sighup", "pty", "pipe", "quiet", "wait",
                                          "collect", "same-dir", "no-block", "no-ask-password",
                                          NULL };

static const char *setarch_long_flags[] = { "addr-no-randomize", "fdpic-funcptrs",
                                            "whole-seconds", "addr-compat-layout",
                                            "read-implies-exec", "32bit", "mmap-page-zero",
                                            "short-inode", "sticky-timeouts", "uname-2.6",
                                            "verbose", "3gb", "4gb", NULL };
static const char *chrt_long_args[] = { "sched-runtime", "sched-period", "sched-deadline",
                                        NULL };
static const char *chrt_long_flags[] = { "batch", "fifo", "other", "rr", "idle", "deadline",
                                         "all-tasks", "max", "verbose", "reset-on-fork", NULL };
static const char *pkexec_long_args[] = { "user", NULL };
static const char *pkexec_long_flags[] = { "disable-internal-agent", "keep-cwd", NULL };
/* fakeroot -f and --faked name a program it runs: left out, so they ask. */
static const char *fakeroot_long_args[] = { "lib", NULL };
static const char *lib_long[] = { "lib", NULL };
static const char *fakeroot_long_flags[] = { "unknown-is-real", NULL };
/* dbus-run-session --dbus-daemon names a program it runs: left out. */
static const char *dbus_run_long_args[] = { "config-file", NULL };
static const char *xvfb_long_args[] = { "server-num", "server-args", "auth-file", "error-file",
                                        "wait", "xauth-protocol", NULL };
static const char *xvfb_long_flags[] = { "auto-servernum", "listen-tcp", NULL };
static const char *xvfb_long_writes[] = { "error-file", "auth-file", NULL };
/* procps-ng's watch (+bced::ghq:n:pvtwx); busybox's takes -n and -t. */
static const char *watch_long_args[] = { "interval", "equexit", NULL };
static const char *watch_long_optional[] = { "differences", NULL };
static const char *watch_long_flags[] = { "no-title", "beep", "errexit", "chgexit", "color",
                                          "precise", "no-wrap", "exec", "no-linewrap", NULL };

/* With no command, chroot, unshare, nsenter and su start a shell that reads
 * its script from standard input: nobody can see what it runs. */
static const WrapperSpec wrappers[] = {
  { .name = "env", .short_args = "uCS", .short_flags = "i0v", .long_args = env_long_args,
    .long_flags = env_long_flags, .long_optional = env_long_optional, .short_chdir = "C",
    .long_chdir = chdir_long, .assignments = TRUE },
  { .name = "nice", .short_args = "n", .long_args = nice_long_args, .numeric_opt = TRUE },
  { .name = "nohup" },
  { .name = "timeout", .short_args = "sk", .short_flags = "v", .long_args = timeout_long_args,
    .long_flags = timeout_long_flags, .positionals = 1 },
  { .name = "time", .short_args = "fo", .short_flags = "apqv", .long_args = time_long_args,
    .long_flags = time_long_flags, .short_writes = "o", .long_writes = output_long },
  { .name = "stdbuf", .short_args = "ioe", .long_args = stdbuf_long_args },
  { .name = "setsid", .short_flags = "cfw", .long_flags = setsid_long_flags },
  { .name = "ionice", .short_args = "cnupP", .short_flags = "t", .long_args = ionice_long_args,
    .long_flags = ionice_long_flags, .short_no_command = "pPu",
    .long_no_command = ionice_no_command },
  { .name = "taskset", .short_flags = "acp", .long_flags = taskset_long_flags, .positionals = 1,
    .short_no_command = "p", .long_no_command = pid_long },
  { .name = "chroot", .long_args = chroot_long_args, .long_flags = chroot_long_flags,
    .positionals = 1, .positional_root = TRUE, .bare_shell = TRUE },
  { .name = "sudo", .short_args = "ugCDprtTUR", .short_flags = "AbBEHknNPSsie",
    .long_args = sudo_long_args, .long_flags = sudo_long_flags, .short_optional = "h",
    .short_ask = "hR", .long_ask = sudo_long_ask, .short_chdir = "D", .long_chdir = chdir_long,
    .assignments = TRUE, .shell_opts = "sie", .shell_long = sudo_shell_long,
    .short_no_command = "lvKV", .long_no_command = sudo_no_command },
  { .name = "doas", .short_args = "uC", .short_flags = "ns", .shell_opts = "s" },
  { .name = "command", .short_flags = "pvV", .short_no_command = "vV" },
  { .name = "builtin" },
  /* exec -a NAME is bash's; busybox reads "exec -ax e" as running x (found by
   * the oracle): exec with options asks, though what it wraps is still read. */
  { .name = "exec", .short_args = "a", .short_flags = "cl" },
  { .name = "xargs", .short_args = "adEILnPs", .short_flags = "0prtxo",
    .long_args = xargs_long_args, .long_flags = xargs_long_flags, .short_optional = "eil",
    .long_optional = xargs_long_optional, .long_ask = xargs_long_ask },
  { .name = "busybox" },
  { .name = "su", .short_args = "cgGsw", .short_flags = "lmpfP", .long_args = su_long_args,
    .long_flags = su_long_flags, .positionals = 1, .bare_shell = TRUE, .shell_opts = "s",
    .script_opts = "c", .script_long = su_script_long, .lax_order = TRUE },
  { .name = "runuser", .short_args = "cgGsuw", .short_flags = "lmpfP", .long_args = su_long_args,
    .long_flags = su_long_flags, .positionals = 1, .bare_shell = TRUE, .shell_opts = "s",
    .script_opts = "c", .script_long = su_script_long, .lax_order = TRUE },
  { .name = "flock", .short_args = "wEc", .short_flags = "sexunoF", .long_args = flock_long_args,
    .long_flags = flock_long_flags, .positionals = 1, .script_opts = "c",
    .script_long = flock_script_long, .lax_order = TRUE },
  { .name = "unshare", .short_args = "SGRw", .short_flags = "muinpUCTfrc",
    .long_args = unshare_long_args, .long_flags = unshare_long_flags,
    .long_optional = unshare_long_optional, .short_ask = "R", .long_ask = root_long,
    .short_chdir = "w", .long_chdir = wd_long, .bare_shell = TRUE },
  { .name = "nsenter", .short_args = "tSGW", .short_flags = "aFZ",
    .long_args = nsenter_long_args, .long_flags = nsenter_long_flags,
    .short_optional = "muinpCUTrw", .long_optional = nsenter_long_optional, .short_ask = "r",
    .long_ask = root_long, .short_chdir = "wW", .long_chdir = wd_long, .bare_shell = TRUE },
  { .name = "script", .short_args = "cEIOBTmo", .short_flags = "aefq",
    .long_args = script_long_args, .long_flags = script_long_flags, .short_optional = "t",
    .long_optional = script_long_optional, .short_writes = "IOBTt",
    .long_writes = script_long_writes, .positionals = 1, .positional_writes = TRUE,
    .bare_shell = TRUE, .script_opts = "c", .script_long = script_script_long, .lax_order = TRUE },
  { .name = "setpriv", .short_flags = "d", .long_args = setpriv_long_args,
    .long_flags = setpriv_long_flags, .short_no_command = "d", .long_no_command = dump_long },
  { .name = "systemd-run", .short_args = "u", .short_flags = "rGPtqdS",
    .long_args = sdrun_long_args, .long_flags = sdrun_long_flags, .long_chdir = sdrun_long_chdir,
    .shell_opts = "S" },
  { .name = "setarch", .short_flags = "RFLBXSTZ3v", .long_flags = setarch_long_flags,
    .positionals = 1, .bare_shell = TRUE },
  { .name = "linux32", .short_flags = "RFLBXSTZ3v", .long_flags = setarch_long_flags,
    .bare_shell = TRUE },
  { .name = "linux64", .short_flags = "RFLBXSTZ3v", .long_flags = setarch_long_flags,
    .bare_shell = TRUE },
  { .name = "chrt", .short_args = "TPD", .short_flags = "bforidamvRp",
    .long_args = chrt_long_args, .long_flags = chrt_long_flags, .positionals = 1,
    .short_no_command = "p", .long_no_command = pid_long },
  { .name = "pkexec", .long_args = pkexec_long_args, .long_flags = pkexec_long_flags,
    .bare_shell = TRUE },
  { .name = "fakeroot", .short_args = "lsib", .short_flags = "uhv",
    .long_args = fakeroot_long_args, .long_flags = fakeroot_long_flags, .short_ask = "l",
    .long_ask = lib_long, .short_writes = "s", .bare_shell = TRUE },
  { .name = "eatmydata" },
  { .name = "nocache", .short_args = "n" },
  { .name = "catchsegv" },
  { .name = "dbus-run-session", .long_args = dbus_run_long_args, .bare_shell = TRUE },
  { .name = "xvfb-run", .short_args = "nsfepw", .short_flags = "al", .long_args = xvfb_long_args,
    .long_flags = xvfb_long_flags, .short_writes = "ef", .long_writes = xvfb_long_writes },
  { .name = "sg", .positionals = 1, .bare_shell = TRUE, .script_opts = "c", .lax_order = TRUE },
  { .name = "newgrp", .positionals = 1, .bare_shell = TRUE, .script_opts = "", .lax_order = TRUE },
  { .name = "watch", .short_args = "nq", .short_flags = "bcegptwx", .short_optional = "d",
    .long_args = watch_long_args, .long_flags = watch_long_flags,
    .long_optional = watch_long_optional },
};

/* The shells of the sh family, which the engine reads as sh: the POSIX shells
 * a sandbox may have as /bin/sh or beside it (dash, bash, busybox's ash and
 * hush, the Korn shells, yash, posh), and zsh, whose -c scripts the line's
 * tests read as sh's. */
static const char *shells[] = { "sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "rbash",
                                "rksh", "lksh", "pdksh", "oksh", "loksh", "yash", "posh",
                                "ksh93", "hush", NULL };
/* Shells whose language is not sh's: their -c scripts cannot be read. */
static const char *foreign_shells[] = { "csh", "tcsh", "fish", "rc", "es", "xonsh", "nu",
                                        "elvish", "ion", "pwsh", "osh", "ysh", "oil", "nush",
                                        NULL };

/* A shell with a version or a build in its name: bash5.2, ksh93, mksh-static,
 * zsh-5.9. Returns the list its shell is in, or NULL. */
static const char **
shell_version_kind (const char *base)
{
  const char **lists[] = { shells, foreign_shells };

  for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
    for (guint i = 0; lists[l][i] != NULL; i++)
      {
        gsize len;

        /* Most names share no first letter with any shell. */
        if (lists[l][i][0] != base[0])
          continue;
        len = strlen (lists[l][i]);
        if (strncmp (base, lists[l][i], len) == 0 &&
            (g_ascii_isdigit (base[len]) || base[len] == '.' || base[len] == '-' ||
             base[len] == '_'))
          return lists[l];
      }
  return NULL;
}

/* What reading a wrapper's options found besides where its command starts. */
typedef struct
{
  const char *replace;      /* xargs -I's string, or NULL */
  gboolean    changes_dir;
  char       *ask;          /* why the line asks though the command is read */
  WordRef     writes[4];    /* files an option makes the program write */
  guint       n_writes;
} WrapperRead;

static void
wrapper_read_clear (WrapperRead *r)
{
  g_clear_pointer (&r->ask, g_free);
}

/* The effects of the option @spelled ("-l", "--lib") besides its argument
 * rule; @arg is its argument, or NULL. */
static void
option_effects (const WrapperSpec *spec,
                WrapperRead       *r,
                gboolean           asks,
                gboolean           chdirs,
                gboolean           writes,
                const char        *spelled,
                const char        *arg,
                guint              arg_flags)
{
  if (asks && r->ask == NULL)
    r->ask = g_strdup_printf ("“%s” of %s changes what the program it starts is or loads (its "
                              "root, its libraries or its environment), which no pattern for "
                              "that program describes", spelled, spec->name);
  if (chdirs)
    r->changes_dir = TRUE;
  if (writes && arg != NULL)
    {
      if (r->n_writes < G_N_ELEMENTS (r->writes))
        {
          r->writes[r->n_writes].text = arg;
          r->writes[r->n_writes++].flags = arg_flags;
        }
      else if (r->ask == NULL)
        r->ask = g_strdup_printf ("%s writes more files than the engine follows", spec->name);
    }
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (WrapperRead, wrapper_read_clear)

/* A file a program writes because an option or operand names it (time -o
 * FILE, script FILE) is judged like an output redirection to it. */
static void
judge_written_file (Lexer         *L,
                    Part          *p,
                    const char    *program,
                    const WordRef *file)
{
  gboolean relative = FALSE;
  g_autofree char *why = judge_output_target (L->st, file->text, file->flags, &relative);

  if (why != NULL)
    {
      g_autofree char *msg = g_strdup_printf ("%s writes the file it is given: %s", program, why);

      force_ask (p, FALSE, msg);
    }
  if (relative)
    p->relative_redirect = TRUE;
}

/* A long option of @spec, with its argument and effects. Returns -1 when
 * it makes the wrapper run no command, -2 (with @why) when the line asks,
 * else how many words it took after @w[@i] (0 or 1). */
static int
read_long_option (const WrapperSpec *spec,
                  const WordRef     *w,
                  guint              n,
                  guint              i,
                  WrapperRead       *r,
                  char             **why)
{
  const char *a = w[i].text;
  const char *eq = strchr (a, '=');
  gsize len = eq ? (gsize) (eq - a - 2) : strlen (a + 2);
  char stack_name[64];
  g_autofree char *heap_name = NULL;
  char *lname = len < sizeof stack_name ? stack_name : (heap_name = g_malloc (len + 1));
  const char *arg = NULL;
  guint arg_flags = w[i].flags;
  int took = 0;

  memcpy (lname, a + 2, len);
  lname[len] = '\0';

  if (str_in (lname, spec->long_no_command))
    return -1;
  if (str_in (lname, spec->shell_long))
    {
      *why = g_strdup_printf ("%s %s runs a shell, which reads what to run from its arguments "
                              "or standard input", spec->name, a);
      return -2;
    }
  if (str_in (lname, spec->long_args))
    {
      if (strcmp (lname, "split-string") == 0)
        {
          *why = g_strdup ("env --split-string builds a command from a string");
          return -2;
        }
      if (eq != NULL)
        arg = eq + 1;
      else if (i + 1 < n)
        {
          arg = w[i + 1].text;
          arg_flags = w[i + 1].flags;
          took = 1;
        }
      else
        took = 1;
    }
  else if (str_in (lname, spec->long_optional))
    arg = eq != NULL ? eq + 1 : NULL;
  else if (!str_in (lname, spec->long_flags))
    {
      *why = g_strdup_printf ("unknown option “%s” of %s", a, spec->name);
      return -2;
    }

  /* --replace alone is --replace={}. */
  if (strcmp (lname, "replace") == 0 && strcmp (spec->name, "xargs") == 0)
    r->replace = arg != NULL ? arg : "{}";
  option_effects (spec, r, str_in (lname, spec->long_ask), str_in (lname, spec->long_chdir),
                  str_in (lname, spec->long_writes), a, arg, arg_flags);
  return took;
}

/* A cluster of short options, -abc or -oFILE; returns as read_long_option (). */
static int
read_short_options (const WrapperSpec *spec,
                    const WordRef     *w,
                    guint              n,
                    guint              i,
                    WrapperRead       *r,
                    char             **why)
{
  const char *a = w[i].text;

  for (const char *o = a + 1; *o; o++)
    {
      char spelled[3] = { '-', *o, '\0' };
      const char *arg = NULL;
      guint arg_flags = w[i].flags;
      int took = 0;

      if (opt_in (spec->short_no_command, *o))
        return -1;
      if (opt_in (spec->shell_opts, *o))
        {
          *why = g_strdup_printf ("%s -%c runs a shell or an editor, which reads what to "
                                  "run from its arguments, files or standard input",
                                  spec->name, *o);
          return -2;
        }
      if (opt_in (spec->short_args, *o))
        {
          if (strcmp (spec->name, "env") == 0 && *o == 'S')
            {
              *why = g_strdup ("env -S builds a command from a string");
              return -2;
            }
          if (o[1] != '\0')
            arg = o + 1;
          else if (i + 1 < n)
            {
              arg = w[i + 1].text;
              arg_flags = w[i + 1].flags;
              took = 1;
            }
          else
            took = 1;
        }
      else if (opt_in (spec->short_optional, *o))
        arg = o[1] != '\0' ? o + 1 : NULL;
      else if (!opt_in (spec->short_flags, *o))
        {
          *why = g_strdup_printf ("unknown option “-%c” of %s", *o, spec->name);
          return -2;
        }

      if (strcmp (spec->name, "xargs") == 0 && (*o == 'I' || *o == 'i'))
        r->replace = arg != NULL ? arg : "{}";
      option_effects (spec, r, opt_in (spec->short_ask, *o), opt_in (spec->short_chdir, *o),
                      opt_in (spec->short_writes, *o), spelled, arg, arg_flags);
      /* An argument ends the cluster. */
      if (arg != NULL || took > 0)
        return took;
    }
  return 0;
}

/* Finds where the wrapped command starts. Returns -1 when the wrapper runs
 * no command, -2 (with @why set) when that cannot be known. */
static int
wrapper_command_start (const WrapperSpec *spec,
                       const WordRef     *w,
                       guint              n,
                       char             **why,
                       WrapperRead       *r)
{
  guint i = 1;
  guint positionals = spec->positionals;

  for (; i < n; i++)
    {
      const char *a = w[i].text;
      int took;

      if (w[i].flags & W_NONLITERAL)
        {
          *why = g_strdup_printf ("“%s” runs a command, but “%s” may expand to anything, so "
                                  "which command cannot be known", spec->name, a);
          return -2;
        }
      if (strcmp (a, "--") == 0)
        {
          i++;
          break;
        }
      if (strcmp (a, "-") == 0 && spec->assignments && spec->name[0] == 'e')
        continue;  /* env - is env -i */
      if (a[0] != '-' || a[1] == '\0')
        break;
      if (spec->numeric_opt && g_ascii_isdigit (a[1]))
        continue;
      took = a[1] == '-' ? read_long_option (spec, w, n, i, r, why)
                         : read_short_options (spec, w, n, i, r, why);
      if (took < 0)
        return took;
      i += took;
    }

  /* env takes every word with a "=" for a setting, "=x" included. */
  if (spec->assignments)
    while (i < n && ((w[i].flags & W_ASSIGN) ||
                     (spec->name[0] == 'e' && strchr (w[i].text, '=') != NULL)))
      {
        /* env LD_PRELOAD=x.so ls is not ls. */
        if (names_dangerous_var (w[i].text))
          {
            *why = g_strdup_printf ("%s sets %.*s for the command it runs, which changes what "
                                    "that command runs", spec->name,
                                    (int) strcspn (w[i].text, "=+["), w[i].text);
            return -2;
          }
        i++;
      }

  for (; positionals > 0 && i < n; positionals--)
    {
      if (w[i].flags & W_NONLITERAL)
        {
          *why = g_strdup_printf ("“%s” may expand to anything, so the command %s runs cannot "
                                  "be known", w[i].text, spec->name);
          return -2;
        }
      /* chroot DIR: "ls" there is DIR's ls, and it starts in DIR's "/". */
      if (spec->positional_root)
        {
          r->changes_dir = TRUE;
          if (strcmp (w[i].text, "/") != 0 && r->ask == NULL)
            r->ask = g_strdup_printf ("%s runs the command in another root, “%s”, where its "
                                      "name leads to another program", spec->name, w[i].text);
        }
      i++;
    }

  return i < n ? (int) i : -1;
}

/* sh -c STRING: returns the index of STRING, -1 when no -c (@file is then
 * the index of the script file), -2 on doubt. */
static int
shell_script_index (const WordRef  *w,
                    guint           n,
                    guint          *file,
                    char          **why)
{
  gboolean has_c = FALSE, has_s = FALSE;
  guint i;

  for (i = 1; i < n; i++)
    {
      const char *a = w[i].text;

      if (w[i].flags & W_NONLITERAL)
        {
          if (has_c)
            break;
          *why = g_strdup_printf ("“%s” may expand to shell options such as -c", a);
          return -2;
        }
      if (strcmp (a, "--") == 0 || strcmp (a, "-") == 0)
        {
          i++;
          break;
        }
      if (a[0] == '-' && a[1] == '-')
        {
          if (strcmp (a, "--rcfile") == 0 || strcmp (a, "--init-file") == 0 ||
              strcmp (a, "--login") == 0)
            {
              *why = g_strdup_printf ("“%s” makes the shell read startup files, which run "
                                      "commands no pattern covers", a);
              return -2;
            }
          continue;
        }
      if ((a[0] == '-' || a[0] == '+') && a[1] != '\0')
        {
          gboolean takes_arg = FALSE;

          for (const char *o = a + 1; *o; o++)
            {
              /* An interactive or login shell reads ~/.bashrc, $ENV or
               * /etc/profile first: commands no pattern covers. */
              if ((*o == 'i' || *o == 'l') && a[0] == '-')
                {
                  *why = g_strdup_printf ("“%s” makes the shell read startup files, which run "
                                          "commands no pattern covers", a);
                  return -2;
                }
              if (*o == 'c' && a[0] == '-')
                has_c = TRUE;
              if (*o == 's' && a[0] == '-')
                has_s = TRUE;
              if (*o == 'o' || *o == 'O')
                takes_arg = TRUE;
            }
          if (takes_arg)
            i++;
          continue;
        }
      break;
    }

  *file = i;
  if (!has_c)
    /* "sh - FILE" and "sh -- FILE" run FILE: "-" only ends the options. */
    return has_s || i >= n ? -3 : -1;  /* -3: the script comes on stdin */
  if (i >= n)
    return -1;
  return (int) i;
}

/* The builtins that set variables from their arguments. */
static const char *var_setters[] = { "declare", "typeset", "local", "export", "readonly", NULL };
/* unset 'a[$(cmd)]' evaluates the subscript too, so its words name variables. */
static const char *var_readers[] = { "read", "mapfile", "readarray", "printf", "getopts", "unset",
                                     NULL };
/* Variables that change what later commands run or read, beyond the shell's
 * own: besides these, any name without a lower-case letter, since it may
 * name a variable already in the sandbox's environment. */
static const char *sensitive_lower[] = { "http_proxy", "https_proxy", "ftp_proxy", "all_proxy",
                                         "no_proxy", NULL };
static const char *sensitive_lower_prefixes[] = { "npm_config_", "yarn_", "pnpm_", NULL };
static const char *always_ask[] = { "eval", "source", ".", "alias", "unalias", "trap", "enable",
                                    "hash", "let", "coproc", "select", "function", "complete",
                                    "compgen", "bind", "fc", NULL };

/* The variables that make a program run or load something else. */
static const char *dangerous_vars[] = { "PATH", "HOME", "IFS", "ENV", "BASH_ENV", "CDPATH",
                                        "SHELLOPTS", "BASHOPTS", "PS4", "GLOBIGNORE",
                                        "NODE_OPTIONS", "NODE_PATH", "SHELL", "EDITOR", "VISUAL",
                                        "PAGER", "MANPAGER", "LESSOPEN", "LESSCLOSE", "BROWSER",
                                        "GCONV_PATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
                                        "JDK_JAVA_OPTIONS", "CLASSPATH", "RUSTC_WRAPPER",
                                        "MAKEFLAGS", "PROMPT_COMMAND", "TMPDIR", "ZDOTDIR",
                                        "LUA_INIT", "LUA_PATH", "VIMINIT", "EXINIT", NULL };
static const char *dangerous_prefixes[] = { "LD_", "GIT_", "PYTHON", "PERL5", "PERL_", "RUBY",
                                            "BASH_", "DYLD_", "NPM_CONFIG_", "npm_config_",
                                            "XDG_", "CARGO_", "GEM_", "BUNDLE_", "PIP_",
                                            "DOTNET_", "SSH_", "SUDO_", NULL };

static gboolean
names_dangerous_var (const char *arg)
{
  gsize len = strspn (arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");

  for (guint i = 0; dangerous_vars[i] != NULL; i++)
    if (strlen (dangerous_vars[i]) == len && strncmp (arg, dangerous_vars[i], len) == 0)
      return TRUE;
  for (guint i = 0; dangerous_prefixes[i] != NULL; i++)
    if (g_str_has_prefix (arg, dangerous_prefixes[i]) && strlen (dangerous_prefixes[i]) <= len)
      return TRUE;
  /* And every one the exec guard asks about in a started program's
   * environment: one list of what loads code. */
  if (arg[len] == '\0' || arg[len] == '=')
    return warden_policy_env_loads_code (arg);
  return FALSE;
}

gboolean
names_sensitive_var (const char *arg)
{
  gsize len = 0;
  gboolean lower = FALSE;

  /* A number is an option's argument (mapfile -u 3 lines), not a name. */
  if (!is_name_start ((guchar) arg[0]))
    return FALSE;
  while (is_name_char ((guchar) arg[len]))
    {
      if (g_ascii_islower (arg[len]))
        lower = TRUE;
      len++;
    }
  if (len == 0)
    return FALSE;
  if (!lower)
    return TRUE;
  for (guint i = 0; sensitive_lower[i] != NULL; i++)
    if (strlen (sensitive_lower[i]) == len && strncmp (arg, sensitive_lower[i], len) == 0)
      return TRUE;
  for (guint i = 0; sensitive_lower_prefixes[i] != NULL; i++)
    if (g_str_has_prefix (arg, sensitive_lower_prefixes[i]))
      return TRUE;
  return FALSE;
}

static gboolean
has_token (const WordRef *w,
           guint          n,
           const char    *token)
{
  for (guint i = 0; token != NULL && i < n; i++)
    if (strstr (w[i].text, token) != NULL)
      return TRUE;
  return FALSE;
}

static void parse_script_word (Lexer *L, Part *p, const char *base, const WordRef *word);

/* su, runuser, flock and script: a -c STRING is a script for a shell, and
 * options may come after the user or lock file they take. With no script:
 * flock FILE CMD… and runuser -u USER CMD… run CMD; su, runuser and script
 * start a shell that reads standard input, which nobody can see. */
static void
analyze_script_wrapper (Lexer             *L,
                        Part              *p,
                        const WrapperSpec *spec,
                        const WordRef     *w,
                        guint              n,
                        gboolean           holes)
{
  const WordRef *script = NULL;
  WordRef attached[8];
  guint n_attached = 0;
  const WordRef *scripts[8];
  guint n_scripts = 0;
  guint positionals = spec->positionals, seen = 0;
  int cmd_start = -1;
  gboolean have_args = FALSE;
  g_autofree char *why = NULL;

  if (holes)
    {
      force_ask (p, FALSE, "the command it runs is filled in at run time");
      return;
    }

  for (guint i = 1; i < n && why == NULL && cmd_start < 0; i++)
    {
      const char *a = w[i].text;

      if (w[i].flags & W_NONLITERAL)
        {
          why = g_strdup_printf ("“%s” runs a command, but “%s” may expand to anything, so "
                                 "which command cannot be known", spec->name, a);
          break;
        }
      if (strcmp (a, "--") == 0)
        {
          if (i + 1 < n && script == NULL)
            cmd_start = i + 1;
          break;
        }
      if (strcmp (a, "-") == 0 && spec->script_long == su_script_long)
        continue;  /* su - is su --login */
      if (a[0] == '-' && a[1] == '-')
        {
          const char *eq = strchr (a, '=');
          g_autofree char *lname = g_strndup (a + 2, eq ? (gsize) (eq - a - 2)
                                                        : strlen (a + 2));

          if (str_in (lname, spec->script_long))
            {
              if (eq != NULL && n_attached < G_N_ELEMENTS (attached))
                {
                  attached[n_attached].text = eq + 1;
                  attached[n_attached].flags = w[i].flags;
                  script = &attached[n_attached++];
                }
              else if (eq == NULL && i + 1 < n)
                script = &w[++i];
              if (script != NULL && n_scripts < G_N_ELEMENTS (scripts))
                scripts[n_scripts++] = script;
              else
                why = g_strdup_printf ("%s has more scripts than the engine follows", spec->name);
              continue;
            }
          if (strcmp (lname, "shell") == 0)
            why = g_strdup_printf ("%s --shell runs a shell the engine does not know", spec->name);
          else if (str_in (lname, spec->long_args))
            {
              const WordRef *arg = eq != NULL ? NULL : (i + 1 < n ? &w[i + 1] : NULL);
              WordRef attached_arg = { eq != NULL ? eq + 1 : "", w[i].flags };

              if (str_in (lname, spec->long_writes) && (eq != NULL || arg != NULL))
                judge_written_file (L, p, spec->name, eq != NULL ? &attached_arg : arg);
              if (eq == NULL)
                i++;
            }
          else if (str_in (lname, spec->long_optional))
            {
              WordRef attached_arg = { eq != NULL ? eq + 1 : "", w[i].flags };

              if (eq != NULL && str_in (lname, spec->long_writes))
                judge_written_file (L, p, spec->name, &attached_arg);
            }
          else if (!str_in (lname, spec->long_flags))
            why = g_strdup_printf ("unknown option “%s” of %s", a, spec->name);
          continue;
        }
      if (a[0] == '-' && a[1] != '\0')
        {
          for (const char *o = a + 1; *o && why == NULL; o++)
            {
              if (opt_in (spec->shell_opts, *o))
                why = g_strdup_printf ("%s -%c runs a shell the engine does not know",
                                       spec->name, *o);
              else if (opt_in (spec->script_opts, *o))
                {
                  /* su -c A -c B runs B, but every one is checked. */
                  if (o[1] != '\0' && n_attached < G_N_ELEMENTS (attached))
                    {
                      attached[n_attached].text = o + 1;
                      attached[n_attached].flags = w[i].flags;
                      script = &attached[n_attached++];
                    }
                  else if (o[1] == '\0' && i + 1 < n)
                    script = &w[++i];
                  if (script != NULL && n_scripts < G_N_ELEMENTS (scripts))
                    scripts[n_scripts++] = script;
                  else
                    why = g_strdup_printf ("%s has more scripts than the engine follows",
                                           spec->name);
                  break;
                }
              else if (opt_in (spec->short_args, *o))
                {
                  WordRef attached_arg = { o + 1, w[i].flags };

                  /* runuser -u USER CMD…: the command follows the options. */
                  if (*o == 'u' && strcmp (spec->name, "runuser") == 0)
                    positionals = 0;
                  if (opt_in (spec->short_writes, *o) && (o[1] != '\0' || i + 1 < n))
                    judge_written_file (L, p, spec->name, o[1] != '\0' ? &attached_arg : &w[i + 1]);
                  if (o[1] == '\0')
                    i++;
                  break;
                }
              else if (opt_in (spec->short_optional, *o))
                {
                  /* script -t[FILE]: the next word is not its. */
                  WordRef attached_arg = { o + 1, w[i].flags };

                  if (o[1] != '\0' && opt_in (spec->short_writes, *o))
                    judge_written_file (L, p, spec->name, &attached_arg);
                  break;
                }
              else if (!opt_in (spec->short_flags, *o))
                why = g_strdup_printf ("unknown option “-%c” of %s", *o, spec->name);
            }
          continue;
        }
      /* A user, a lock file or a typescript file; then a command. */
      if (seen < positionals)
        {
          if (spec->positional_writes)
            judge_written_file (L, p, spec->name, &w[i]);
          seen++;
          continue;
        }
      /* su and script take options anywhere (su USER -c A ARG -c B): the
       * words around them are the script's $0, $1 …, or with no script a
       * command for flock and runuser -u. */
      if (script != NULL || (strcmp (spec->name, "flock") != 0 &&
                             strcmp (spec->name, "runuser") != 0))
        {
          if (script == NULL && !spec->bare_shell)
            cmd_start = i;
          else if (script == NULL)
            have_args = TRUE;
          continue;
        }
      cmd_start = i;
    }

  /* script with no file writes "typescript" where it runs. */
  if (spec->positional_writes && seen == 0 && why == NULL)
    {
      static const WordRef typescript = { "typescript", 0 };

      judge_written_file (L, p, spec->name, &typescript);
    }
  if (why != NULL)
    force_ask (p, FALSE, why);
  else if (n_scripts > 0)
    for (guint k = 0; k < n_scripts; k++)
      parse_script_word (L, p, spec->name, scripts[k]);
  else if (cmd_start >= 0 && (strcmp (spec->name, "flock") == 0 ||
                              strcmp (spec->name, "runuser") == 0))
    emit_words (L, w + cmd_start, n - cmd_start, WARDEN_ORIGIN_WRAPPER, NULL, FALSE, NULL,
                spec->name);
  else if (cmd_start >= 0 || spec->bare_shell || have_args)
    {
      g_autofree char *msg = g_strdup_printf ("%s starts a shell that reads its script from "
                                              "its arguments or standard input", spec->name);

      force_ask (p, FALSE, msg);
    }
}

/* sh -c STRING and su -c STRING: the string is a script of its own. */
static void
parse_script_word (Lexer         *L,
                   Part          *p,
                   const char    *base,
                   const WordRef *word)
{
  if (word->flags & W_NONLITERAL)
    {
      g_autofree char *msg = g_strdup_printf ("the script of %s -c is not a literal string", base);

      force_ask (p, FALSE, msg);
    }
  else if (enter (L))
    {
      parse_string (L->st, word->text, strlen (word->text), WARDEN_ORIGIN_SCRIPT,
                    " in a sh -c script");
      leave (L);
    }
}

/* TRUE when a short option @c or long option --@name comes before @end. */
static gboolean
has_option (const WordRef *w,
            int            end,
            char           c,
            const char    *name)
{
  for (int i = 1; i < end; i++)
    {
      const char *a = w[i].text;

      if (a[0] == '-' && a[1] == '-' && strcmp (a + 2, name) == 0)
        return TRUE;
      if (a[0] == '-' && a[1] != '-' && strchr (a + 1, c) != NULL)
        return TRUE;
    }
  return FALSE;
}

/* What every path find passes for a lone {} to -exec or -ok starts with: the
 * longest common prefix of its starting points. NULL when that is not known:
 * options before them (-H, -D …), or names read from a file. */
static char *
find_path_prefix (const WordRef *w,
                  guint          n)
{
  g_autofree char *prefix = NULL;
  guint i;

  for (i = 1; i < n; i++)
    if (strcmp (w[i].text, "-files0-from") == 0)
      return NULL;
  for (i = 1; i < n; i++)
    {
      const char *a = w[i].text;
      gsize k = 0;

      if (a[0] == '-' || a[0] == '(' || a[0] == '!' || a[0] == ',' || a[0] == '\0')
        break;
      if (w[i].flags & W_NONLITERAL)
        return NULL;
      if (prefix == NULL)
        {
          prefix = g_strdup (a);
          continue;
        }
      while (prefix[k] != '\0' && prefix[k] == a[k])
        k++;
      prefix[k] = '\0';
    }
  /* With no starting point GNU find searches ".", busybox may not: unknown. */
  if (i == 1)
    return NULL;
  return g_steal_pointer (&prefix);
}

/* A simple command as analyze () hands it to the analyser of its name. */
typedef struct
{
  const WordRef     *w;
  guint              n;
  const char        *base;         /* the name's last path component */
  const char        *hole_token;   /* as analyze ()'s */
  gboolean           append_hole;
  gboolean           holes;        /* either: words are filled in at run time */
  const WrapperSpec *spec;         /* wrappers only */
} Command;

/* eval, source, trap …: they run code the engine cannot see. */
static void
analyze_always_ask (Lexer         *L,
                    Part          *p,
                    const Command *c)
{
  g_autofree char *why = g_strdup_printf ("“%s” runs code the engine cannot see", c->base);

  force_ask (p, FALSE, why);
}

/* cd, pushd and popd: relative paths after them lead elsewhere. */
static void
analyze_cd (Lexer         *L,
            Part          *p,
            const Command *c)
{
  L->st->cd_seen = TRUE;
  /* A relative redirection earlier in the same loop runs again after this cd. */
  if (L->st->loop_id != 0)
    for (guint i = 0; i < L->st->parts->len; i++)
      {
        Part *q = g_ptr_array_index (L->st->parts, i);

        if (q->loop_id == L->st->loop_id && q->relative_redirect)
          force_ask (q, FALSE, "a relative output redirection runs again after a cd in the "
                               "same loop");
      }
}

/* bash's "jobs -x CMD ARG…" runs CMD, with job specifications (%1) among
 * the arguments replaced by process group IDs; dash and busybox refuse -x. */
static void
analyze_jobs (Lexer         *L,
              Part          *p,
              const Command *c)
{
  const WordRef *w = c->w;
  gboolean execute = FALSE;
  guint i;

  for (i = 1; i < c->n; i++)
    {
      const char *a = w[i].text;

      if (w[i].flags & W_NONLITERAL)
        {
          force_ask (p, FALSE, "“jobs” runs a command with -x, and a word of it may expand to "
                               "-x");
          return;
        }
      if (strcmp (a, "--") == 0)
        {
          i++;
          break;
        }
      if (a[0] != '-' || a[1] == '\0')
        break;
      if (strchr (a, 'x') != NULL)
        execute = TRUE;
    }
  if (!execute || i >= c->n)
    return;
  for (guint k = i; k < c->n; k++)
    if (strchr (w[k].text, '%') != NULL)
      force_ask (p, FALSE, "jobs -x puts process IDs where its command names jobs");
  emit_words (L, w + i, c->n - i, WARDEN_ORIGIN_WRAPPER, c->hole_token, c->append_hole, NULL,
              "jobs");
}

/* bash's history -w and -a write the history, which history -s fills with
 * any text, to the file they name, or to $HISTFILE. */
static void
analyze_history (Lexer         *L,
                 Part          *p,
                 const Command *c)
{
  const WordRef *w = c->w;
  gboolean writes = FALSE;
  guint i;

  for (i = 1; i < c->n; i++)
    {
      const char *a = w[i].text;

      if (w[i].flags & W_NONLITERAL)
        {
          force_ask (p, FALSE, "“history” writes a file with -w or -a, and a word of it may "
                               "expand to those");
          return;
        }
      if (strcmp (a, "--") == 0)
        {
          i++;
          break;
        }
      if (a[0] != '-' || a[1] == '\0')
        break;
      if (strpbrk (a + 1, "aw") != NULL)
        writes = TRUE;
      /* -s and -p take every other word as text, -d an offset. */
      if (strpbrk (a + 1, "sp") != NULL)
        {
          if (writes)
            force_ask (p, FALSE, "history writes a file, and which one the engine cannot tell");
          return;
        }
    }
  if (!writes)
    return;
  if (i < c->n)
    judge_written_file (L, p, "history", &w[i]);
  else
    force_ask (p, FALSE, "history -w and -a write the file $HISTFILE names, which the engine "
                         "cannot see");
}

static void
analyze_set (Lexer         *L,
             Part          *p,
             const Command *c)
{
  const WordRef *w = c->w;

  /* set -k puts "NAME=VALUE" arguments of later commands in their
   * environment: "ls LD_PRELOAD=x.so". */
  for (guint i = 1; i < c->n; i++)
    if ((w[i].text[0] == '-' && w[i].text[1] != '-' && strchr (w[i].text, 'k') != NULL) ||
        (strcmp (w[i].text, "keyword") == 0 && i > 1 && strcmp (w[i - 1].text, "-o") == 0) ||
        (w[i].flags & W_NONLITERAL))
      force_ask (p, FALSE, "set -k makes assignments among later commands' arguments "
                           "part of their environment");
}

static void
analyze_wait (Lexer         *L,
              Part          *p,
              const Command *c)
{
  for (guint i = 1; i < c->n; i++)
    if (g_str_has_prefix (c->w[i].text, "-") && strchr (c->w[i].text, 'p') != NULL)
      force_ask (p, FALSE, "wait -p sets a variable");
}

static void
analyze_test (Lexer         *L,
              Part          *p,
              const Command *c)
{
  const WordRef *w = c->w;

  /* test -v 'a[$(cmd)]' evaluates the subscript. */
  for (guint i = 1; i + 1 < c->n; i++)
    if (strcmp (w[i].text, "-v") == 0 &&
        (strchr (w[i + 1].text, '[') != NULL || (w[i + 1].flags & W_NONLITERAL)))
      force_ask (p, FALSE, "an array subscript is evaluated as arithmetic, which can run "
                           "commands in bash");
}

/* The builtins that set or read the variables their words name. */
static void
analyze_variables (Lexer         *L,
                   Part          *p,
                   const Command *c)
{
  const WordRef *w = c->w;
  const char *base = c->base;
  gboolean is_printf = strcmp (base, "printf") == 0;
  gboolean setter = str_in (base, var_setters);

  for (guint i = 1; i < c->n; i++)
    {
      const char *a = w[i].text;
      /* The words that name variables: all of read's, mapfile's and
       * declare's, only the one after printf -v. */
      gboolean names_var = is_printf ? (i > 1 && strcmp (w[i - 1].text, "-v") == 0)
                                     : a[0] != '-';

      /* An option's name attached to it: printf -vPATH, read -aPATH. */
      if (a[0] == '-' && a[1] != '\0' && a[2] != '\0' &&
          ((is_printf && a[1] == 'v') ||
           (strcmp (base, "read") == 0 && strchr (a + 1, 'a') != NULL)))
        {
          a = is_printf ? a + 2 : strchr (a + 1, 'a') + 1;
          names_var = *a != '\0';
        }

      if ((strcmp (base, "mapfile") == 0 || strcmp (base, "readarray") == 0) &&
          a[0] == '-' && strchr (a, 'C') != NULL)
        {
          force_ask (p, FALSE, "mapfile -C runs its callback as a command");
          return;
        }
      if (setter && strcmp (base, "export") != 0 && a[0] == '-' && strchr (a, 'n') != NULL)
        {
          force_ask (p, FALSE, "a name reference makes later assignments set another "
                               "variable");
          return;
        }
      if (setter && a[0] == '-' && strchr (a, 'i') != NULL)
        {
          force_ask (p, FALSE, "an integer variable's value is evaluated as arithmetic, "
                               "which can run commands in bash");
          return;
        }
      if (!names_var)
        continue;
      if (strchr (a, '[') != NULL)
        {
          force_ask (p, FALSE, "an array subscript is evaluated as arithmetic, which can run "
                               "commands in bash");
          return;
        }
      if (w[i].flags & W_NONLITERAL)
        {
          g_autofree char *why = g_strdup_printf ("“%s” sets a variable whose name is not a "
                                                  "literal word", base);
          force_ask (p, FALSE, why);
          return;
        }
      if (names_sensitive_var (a))
        {
          g_autofree char *why = g_strdup_printf ("“%s” sets %.*s, which changes what later "
                                                  "commands run", base,
                                                  (int) strcspn (a, "="), a);
          force_ask (p, FALSE, why);
          return;
        }
      if (setter && strchr (a, '=') != NULL)
        force_ask (p, TRUE, "the command sets shell variables");
    }
}

static void
analyze_foreign_shell (Lexer         *L,
                       Part          *p,
                       const Command *c)
{
  g_autofree char *why = g_strdup_printf ("%s is a shell whose language the engine does not "
                                          "read", c->base);

  force_ask (p, FALSE, why);
}

/* sh, bash, dash …: a -c script is read as part of the line. */
static void
analyze_shell (Lexer         *L,
               Part          *p,
               const Command *c)
{
  const WordRef *w = c->w;
  g_autofree char *why = NULL;
  guint file = 0;
  int idx = shell_script_index (w, c->n, &file, &why);

  if (idx == -2)
    force_ask (p, FALSE, why);
  else if (idx == -3)
    p->shell_reads_stdin = TRUE;
  else if (c->holes && (idx < 0 || has_token (w + idx, 1, c->hole_token)))
    force_ask (p, FALSE, "the shell script is filled in at run time");
  else if (idx >= 0)
    {
      parse_script_word (L, p, c->base, &w[idx]);
      /* Read as sh to find what the deny list refuses, never to allow:
       * zsh's ${(e)x} evaluates a value, $~x globs it with qualifiers such
       * as *(e:cmd:), and every zsh reads ~/.zshenv first. */
      if (strncmp (c->base, "zsh", 3) == 0)
        force_ask (p, FALSE, "zsh's language is not sh's: the engine cannot tell what its "
                             "script runs");
    }
  /* Only an option before the file: "sh x.sh -n" runs x.sh with $1 = -n. */
  else if (!has_option (w, MIN (file, c->n), 'n', "noexec"))
    {
      /* bash build.sh: the file may say anything, and it can change
       * between this check and the run. The exec guard checks what it
       * starts, as for "node app.js", so the shell's pattern may allow it
       * when the guard runs; not when the name is an expansion ("sh -- $f"
       * reads standard input when $f is empty). */
      force_ask (p, FALSE, "the shell runs a script file, whose commands the engine cannot "
                           "see");
      p->pub.guard_sees = file < c->n && (w[file].flags & (W_NONLITERAL | W_VANISH)) == 0;
    }
}

/* find -exec, -execdir, -ok and -okdir run a command for each file. */
static void
analyze_find (Lexer         *L,
              Part          *p,
              const Command *c)
{
  const WordRef *w = c->w;
  guint n = c->n;
  g_autofree char *prefix = NULL;

  if (c->append_hole || has_token (w + 1, n - 1, c->hole_token))
    {
      force_ask (p, FALSE, "find's arguments are filled in at run time");
      return;
    }
  prefix = find_path_prefix (w, n);
  for (guint i = 1; i < n; i++)
    {
      const char *a = w[i].text;

      if (w[i].flags & W_NONLITERAL)
        {
          g_autofree char *why = g_strdup_printf ("“%s” may expand to find actions such as "
                                                  "-exec", a);
          force_ask (p, FALSE, why);
          return;
        }
      if (a[0] == '-' &&
          (strcmp (a, "-exec") == 0 || strcmp (a, "-execdir") == 0 ||
           strcmp (a, "-ok") == 0 || strcmp (a, "-okdir") == 0))
        {
          guint start = i + 1, end = start;

          while (end < n && strcmp (w[end].text, ";") != 0 &&
                 !(strcmp (w[end].text, "+") == 0 && strcmp (w[end - 1].text, "{}") == 0))
            end++;
          gboolean dir_action = strcmp (a, "-execdir") == 0 || strcmp (a, "-okdir") == 0;

          if (dir_action)
            L->st->cd_seen = TRUE;
          if (end > start)
            emit_words (L, w + start, end - start, WARDEN_ORIGIN_WRAPPER, "{}", FALSE,
                        dir_action || end == n ? NULL : prefix, "find");
          else
            force_ask (p, FALSE, "find -exec without a command");
          i = end;
        }
    }
}

/* Whether xargs' words before its command (@w[1] … @w[end - 1]) are only
 * options that cut its input into arguments, read alike by GNU and busybox
 * xargs: then xargs does nothing of its own but start the command. Not so
 * with one that sets the child's environment (--process-slot-var), an
 * optional argument given apart (--eof, -e: is the next word the command?),
 * the terminal (-o, -p) or anything else. */
static gboolean
xargs_only_starts (const WordRef *w,
                   guint          end)
{
  static const char *flags[] = { "null", "no-run-if-empty", "verbose", "exit", NULL };
  static const char *with_value[] = { "arg-file", "delimiter", "max-args", "max-procs",
                                      "max-chars", NULL };
  static const char *attached_only[] = { "eof", "replace", "max-lines", NULL };

  for (guint i = 1; i < end; i++)
    {
      const char *a = w[i].text;

      if ((w[i].flags & (W_NONLITERAL | W_VANISH)) || a[0] != '-' || a[1] == '\0')
        return FALSE;
      if (strcmp (a, "--") == 0)
        return i + 1 == end;
      if (a[1] == '-')
        {
          const char *eq = strchr (a, '=');
          char name[32];
          gsize len = eq ? (gsize) (eq - a - 2) : strlen (a + 2);

          if (len >= sizeof name)
            return FALSE;
          memcpy (name, a + 2, len);
          name[len] = '\0';
          if (str_in (name, with_value) && eq == NULL)
            i++;
          else if (!(str_in (name, with_value) || (str_in (name, flags) && eq == NULL) ||
                     (str_in (name, attached_only) && eq != NULL)))
            return FALSE;
        }
      else
        for (const char *o = a + 1; *o != '\0'; o++)
          {
            if (strchr ("0rtx", *o) != NULL)
              continue;
            if (strchr ("adEILnPs", *o) == NULL)
              return FALSE;
            if (o[1] == '\0')
              i++;
            break;
          }
      if (i >= end)
        return FALSE;
    }
  return TRUE;
}

/* env, sudo, xargs, timeout …: what a wrapper runs is a command of its own. */
static void
analyze_wrapper (Lexer         *L,
                 Part          *p,
                 const Command *c)
{
  const WrapperSpec *spec = c->spec;
  const WordRef *w = c->w;
  guint n = c->n;
  g_autofree char *why = NULL;
  g_auto(WrapperRead) r = { 0 };
  const char *replace;
  int start;

  if (spec->script_opts != NULL)
    {
      analyze_script_wrapper (L, p, spec, w, n, c->holes);
      return;
    }

  start = wrapper_command_start (spec, w, n, &why, &r);
  replace = r.replace;
  if (r.ask != NULL)
    force_ask (p, FALSE, r.ask);
  for (guint k = 0; k < r.n_writes; k++)
    judge_written_file (L, p, spec->name, &r.writes[k]);
  if (strcmp (spec->name, "exec") == 0 && n > 1 && w[1].text[0] == '-')
    force_ask (p, FALSE, "exec's options are read differently by bash and busybox");
  if (start == -1 && spec->bare_shell)
    {
      why = g_strdup_printf ("%s with no command starts a shell that reads its script from "
                             "standard input", spec->name);
      start = -2;
    }
  if (r.changes_dir)
    L->st->cd_seen = TRUE;
  if (start == -2)
    force_ask (p, FALSE, why);
  else if (c->holes && (start < 0 || has_token (w + 1, start - 1, c->hole_token)))
    force_ask (p, FALSE, "the command it runs is filled in at run time");
  else if (start >= 0 && strcmp (spec->name, "watch") == 0 &&
           !has_option (w, start, 'x', "exec"))
    {
      /* watch runs "sh -c" on its arguments joined by spaces: that shell
       * is a program it starts, judged as one typed so would be (the
       * oracle saw busybox's watch start it). */
      g_autofree char *joined = join_words (w + start, n - start, NULL, FALSE, FALSE);
      WordRef sh[3] = { { "sh", 0 }, { "-c", 0 }, { joined, 0 } };

      for (int i = start; i < (int) n; i++)
        sh[2].flags |= w[i].flags & W_NONLITERAL;
      emit_words (L, sh, 3, WARDEN_ORIGIN_WRAPPER, NULL, FALSE, NULL, spec->name);
    }
  else if (strcmp (spec->name, "xargs") == 0)
    {
      /* No command: xargs runs echo. With no input and no -r, it runs
       * the command once with no argument added, which a pattern such as
       * "echo *" does not match. */
      static const WordRef echo = { "echo", 0 };
      const WordRef *cmd = start >= 0 ? w + start : &echo;
      guint n_cmd = start >= 0 ? n - start : 1;

      emit_words (L, cmd, n_cmd, WARDEN_ORIGIN_WRAPPER, replace, replace == NULL, NULL,
                  spec->name);
      if (replace == NULL && !has_option (w, start >= 0 ? start : (int) n, 'r',
                                          "no-run-if-empty"))
        emit_words (L, cmd, n_cmd, WARDEN_ORIGIN_WRAPPER, NULL, FALSE, NULL, spec->name);
      /* Past its options xargs only starts that command: the system's
       * xargs, not a program of the workspace that is named so. */
      p->pub.only_runs = p->pub.force_ask == NULL &&
                         (strchr (w[0].text, '/') == NULL ||
                          strcmp (w[0].text, "/usr/bin/xargs") == 0 ||
                          strcmp (w[0].text, "/bin/xargs") == 0) &&
                         xargs_only_starts (w, start >= 0 ? (guint) start : n);
    }
  else if (start >= 0)
    emit_words (L, w + start, n - start, WARDEN_ORIGIN_WRAPPER, c->hole_token, c->append_hole,
                NULL, spec->name);
}

typedef void (*Analyser) (Lexer *L, Part *p, const Command *c);

typedef struct
{
  Analyser           analyse;
  const WrapperSpec *spec;       /* for analyze_wrapper () */
} Analysis;

static const Analysis always_ask_analysis = { .analyse = analyze_always_ask };
static const Analysis variables_analysis = { .analyse = analyze_variables };
static const Analysis shell_analysis = { .analyse = analyze_shell };
static const Analysis foreign_shell_analysis = { .analyse = analyze_foreign_shell };

/* The commands with an analyser of their own, besides the lists above. */
static const struct
{
  const char     *name;
  const Analysis  analysis;
} named_analyses[] = {
  { "cd",    { .analyse = analyze_cd } },
  { "chdir", { .analyse = analyze_cd } },   /* dash's and busybox's */
  { "pushd", { .analyse = analyze_cd } },
  { "popd",  { .analyse = analyze_cd } },
  { "jobs",  { .analyse = analyze_jobs } },
  { "history", { .analyse = analyze_history } },
  { "set",   { .analyse = analyze_set } },
  { "wait",  { .analyse = analyze_wait } },
  { "test",  { .analyse = analyze_test } },
  { "[",     { .analyse = analyze_test } },
  { "find",  { .analyse = analyze_find } },
};

/* The names with an analysis, in an open-addressing table of their own:
 * every command is looked up (twice, with the policy's question whether it
 * is a shell), and GHashTable's lookup, with g_str_hash() called through a
 * pointer, cost more than the rest of deciding about most commands. */
typedef struct
{
  const char     *name;   /* NULL: an empty slot */
  guint32         hash;
  const Analysis *analysis;
} AnalysisSlot;

typedef struct
{
  AnalysisSlot *slots;
  guint32       mask;
} AnalysisTable;

/* A hash of the length and the first, second and last bytes, which tell
 * the names of the table apart well enough (a probe compares the whole
 * name): a multiply for every byte, as FNV has, made it the slow part of
 * the lookup. Also says whether @name holds a byte of a version or a build
 * ("0123456789.-_"), for which shell_version_kind() has to look. */
static inline guint32
name_hash (const char *name,
           gboolean   *versioned)
{
  static const guchar version_byte[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1, ['.'] = 1, ['-'] = 1, ['_'] = 1,
  };
  const guchar *c = (const guchar *) name;
  gboolean v = FALSE;
  gsize n = 0;
  guint32 h;

  for (; c[n] != '\0'; n++)
    v |= version_byte[c[n]];
  *versioned = v;
  if (n == 0)
    return 0;
  h = ((guint32) n ^ (guint32) c[0] << 8 ^ (guint32) c[1] << 16 ^ (guint32) c[n - 1] << 24) *
      2654435761u;
  /* The table takes the low bits: bring the high ones, mixed best, down. */
  return h ^ (h >> 16);
}

static void
analysis_table_add (AnalysisTable  *t,
                    const char     *name,
                    const Analysis *analysis)
{
  gboolean versioned;
  guint32 h = name_hash (name, &versioned);
  guint32 i = h & t->mask;

  /* No name is in two lists; were one, the first would win. */
  for (; t->slots[i].name != NULL; i = (i + 1) & t->mask)
    if (t->slots[i].hash == h && strcmp (t->slots[i].name, name) == 0)
      return;
  t->slots[i].name = name;
  t->slots[i].hash = h;
  t->slots[i].analysis = analysis;
}

/* The analysis of the command named @base, or NULL for the many commands
 * that need none. Every command is looked up: one probe of the table, and a
 * scan of the shells' names only for a name with a version in it. */
static const Analysis *
analysis_of (const char *base)
{
  static AnalysisTable *table;
  const char **kind;
  gboolean versioned;
  guint32 h;

  if (g_once_init_enter (&table))
    {
      AnalysisTable *t = g_new0 (AnalysisTable, 1);
      static Analysis wrapper_analyses[G_N_ELEMENTS (wrappers)];
      const struct { const char **names; const Analysis *analysis; } lists[] = {
        { always_ask, &always_ask_analysis },
        { var_setters, &variables_analysis },
        { var_readers, &variables_analysis },
        { shells, &shell_analysis },
        { foreign_shells, &foreign_shell_analysis },
      };
      guint n = G_N_ELEMENTS (named_analyses) + G_N_ELEMENTS (wrappers);
      guint size = 16;

      for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
        n += g_strv_length ((char **) lists[l].names);
      /* At most a quarter full: a name no command has meets an empty slot
       * at once. */
      while (size < 4 * n)
        size *= 2;
      t->slots = g_new0 (AnalysisSlot, size);
      t->mask = size - 1;

      for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
        for (guint i = 0; lists[l].names[i] != NULL; i++)
          analysis_table_add (t, lists[l].names[i], lists[l].analysis);
      for (guint i = 0; i < G_N_ELEMENTS (named_analyses); i++)
        analysis_table_add (t, named_analyses[i].name, &named_analyses[i].analysis);
      for (guint i = 0; i < G_N_ELEMENTS (wrappers); i++)
        {
          wrapper_analyses[i].analyse = analyze_wrapper;
          wrapper_analyses[i].spec = &wrappers[i];
          analysis_table_add (t, wrappers[i].name, &wrapper_analyses[i]);
        }
      g_once_init_leave (&table, t);
    }

  h = name_hash (base, &versioned);
  for (guint32 i = h & table->mask; table->slots[i].name != NULL; i = (i + 1) & table->mask)
    if (table->slots[i].hash == h && strcmp (table->slots[i].name, base) == 0)
      return table->slots[i].analysis;
  if (!versioned)
    return NULL;
  kind = shell_version_kind (base);
  return kind == shells ? &shell_analysis : kind == foreign_shells ? &foreign_shell_analysis
                                                                   : NULL;
}

/* Judges a command by its name and words, and emits what it wraps. When the
 * command runs under xargs or find -exec, @hole_token marks the words filled
 * in at run time and @append_hole says more words are appended: neither may
 * decide which command runs. */
void
analyze (Lexer         *L,
         Part          *p,
         const WordRef *w,
         guint          n,
         const char    *hole_token,
         gboolean       append_hole)
{
  const char *name = w[0].text;
  const Analysis *analysis;
  Command c;

  if (w[0].flags & W_NONLITERAL)
    {
      g_autofree char *why = g_strdup_printf ("the command name “%s” is not a literal word", name);

      force_ask (p, FALSE, why);
      return;
    }
  if (name[0] == '\0')
    {
      force_ask (p, FALSE, "the command name is empty");
      return;
    }

  /* 'ls ./x' is the file x in a directory named "ls .", not ls. */
  if (strpbrk (name, " \t\n") != NULL)
    {
      force_ask (p, FALSE, "the command name contains white space, so it is not the program "
                           "its text names");
      return;
    }

  if (hole_token != NULL && strstr (name, hole_token) != NULL)
    {
      force_ask (p, FALSE, "the command name is filled in at run time");
      return;
    }

  c.base = basename_of (name);
  analysis = analysis_of (c.base);
  /* The policy asks again whether it is a shell: it need not look it up. */
  p->pub.name_checked = TRUE;
  p->pub.name_is_sh = analysis == &shell_analysis;
  if (analysis == NULL)
    return;
  c.w = w;
  c.n = n;
  c.hole_token = hole_token;
  c.append_hole = append_hole;
  c.holes = hole_token != NULL || append_hole;
  c.spec = analysis->spec;
  analysis->analyse (L, p, &c);
}

/* A command made of bare words (what a wrapper runs). */
static void
emit_words (Lexer         *L,
            const WordRef *words,
            guint          n_words,
            WardenOrigin   origin,
            const char    *hole_token,
            gboolean       append_hole,
            const char    *hole_prefix,
            const char    *runner)
{
  Part *p;

  if (failed (L) || n_words == 0 || !enter (L))
    return;

  p = new_part (L, WARDEN_PART_COMMAND, origin);
  if (p != NULL)
    {
      p->pub.runner = runner;
      p->pub.text = join_words (words, n_words, NULL, FALSE, FALSE);
      if (hole_token != NULL || append_hole)
        p->pub.match_text = join_words_with_prefix (words, n_words, hole_token, hole_prefix,
                                                    append_hole, FALSE);
      if (strchr (words[0].text, '/') != NULL)
        p->pub.base_text = join_words_with_prefix (words, n_words, hole_token, hole_prefix,
                                                   append_hole, TRUE);
      p->pub.expanded_text = join_expanded (words, n_words);
      p->pub.min_text = join_without_vanishing (words, n_words, NULL);
      p->pub.argv = make_argv (words, n_words);
      p->pub.name = p->pub.argv[0];
      analyze (L, p, words, n_words, hole_token, append_hole);
      if (p->shell_reads_stdin)
        force_ask (p, FALSE, "the shell reads its script from standard input");
    }
  leave (L);
}

/* sh with no -c reads its script from standard input: a literal here-string
 * or here-document is parsed as that script; anything else cannot be seen. */
void
shell_script_from_stdin (Lexer  *L,
                         Part   *p,
                         Items  *items)
{
  Item *input = NULL;

  for (guint i = 0; i < items->len; i++)
    {
      Item *it = &items->v[i];

      if (it->kind == ITEM_REDIR && (it->text->str[0] == '<' || it->text->str[0] == '0'))
        input = it;
    }

  if (input != NULL && strcmp (input->text->str + strspn (input->text->str, "0"), "<<<") == 0 &&
      (input->flags & W_NONLITERAL) == 0)
    {
      if (enter (L))
        {
          parse_string (L->st, input->target->str, input->target->len, WARDEN_ORIGIN_SCRIPT,
                        " in a here-string script");
          leave (L);
        }
      return;
    }
  if (input != NULL && input->heredoc != NULL)
    {
      /* The body is read at the end of the line, which may be behind us. */
      input->heredoc->script_of = p;
      if (input->heredoc->read)
        parse_heredoc_script (L, input->heredoc);
      return;
    }
  force_ask (p, FALSE, "the shell reads its script from standard input");
}

/**
 * warden_shell_name_is_sh:
 * @name: a program's basename
 *
 * Whether @name is a shell of the sh family, whose scripts the engine reads
 * as sh: sh, bash, dash, ash, hush, ksh and its kin, yash, posh, zsh …,
 * versions and builds included (bash5.2, ksh93, mksh-static). The parser,
 * the policy and the agent all ask this one function.
 *
 * Returns: %TRUE for a shell of the sh family
 */
gboolean
warden_shell_name_is_sh (const char *name)
{
  g_return_val_if_fail (name != NULL, FALSE);

  return analysis_of (name) == &shell_analysis;
}
