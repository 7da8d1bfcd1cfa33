/* oracle.c: a differential oracle for the policy engine, against real shells
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The engine promises that no command runs unless the profile allows it. This
 * program holds it to that with bash, dash and busybox sh: it generates
 * command lines (oracle-gen.c), asks the engine about each under a small
 * profile in allowlist and in allow-always mode, and runs every line the
 * engine allows under the three shells in a sandbox whose PATH holds only
 * stubs that log what ran (oracle-runner.c, oracle-stub.c). A line fails when
 *
 *  - a program ran whose name and arguments, joined by single spaces, no
 *    allow pattern matches (allowlist mode), or a deny pattern matches (both
 *    modes; also by the program's base name);
 *  - it wrote outside the workspace (the sibling "outside" directory, the
 *    home directory, /tmp, /dev), or into a protected path of the workspace
 *    (.git/…), unless a program that writes files by itself ran (find,
 *    flock, busybox applets): patterns allow those on purpose.
 *
 * A line that a shell cannot parse runs nothing there, and passes. Each
 * failure is shrunk (bytes removed while it still fails the same way),
 * printed with the line as a C string, the shell, the profile and what ran,
 * and appended to the failures file in the format of found.txt, which is
 * read back as regression rows.
 *
 * Usage: oracle [--tap] [--seconds N] [--seed N] [--seeds-only] …; see --help.
 * scripts/fuzz-shells runs it for longer.
 */

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-glib/json-glib.h>

#include "policy/warden-pattern.h"
#include "policy/warden-policy.h"

#include "oracle-common.h"
#include "oracle-gen.h"
#include "oracle-runner.h"

#ifndef ORACLE_SRCDIR
#define ORACLE_SRCDIR "tests/oracle"
#endif
#ifndef FUZZ_CORPUS
#define FUZZ_CORPUS "tests/fuzz/corpus"
#endif

#define DERIVED_CONFIGS 4      /* profiles tried per seed line */
#define MINIMIZE_TRIES  400    /* shell runs spent shrinking one failure */
#define SLOW_CHECK_USEC (500 * 1000)

/* Programs that write files by themselves: a change outside the workspace
 * after one of them ran is the program's doing, which patterns allow. (The
 * files time -o and script name are judged as redirections are.) */
static const char * const writers[] = {
  "find", "flock", "busybox", "ash", NULL
};

/* busybox sh runs its applets without looking at PATH, so they are not
 * logged: under busybox, a change is only the line's doing when none of
 * these stands in command position in it. */
static const char * const busybox_writers[] = {
  "rm", "cp", "mv", "touch", "mkdir", "tee", "sed", "dd", "ln", "chmod", "chown", "tar",
  "truncate", "install", "patch", "sort", "gzip", "gunzip", "unzip", "mktemp", "find",
  "shred", "rmdir", "mkfifo", "mknod", "cpio", "unlink", "link", "wget", "uudecode", "awk",
  "flock", "script", "time", "xz", "unxz", "bunzip2", "lzma", "crontab", "split", NULL
};

typedef struct
{
  char      *line;
  GPtrArray *allow;
  GPtrArray *deny;
  /* Regression rows replay one mode; -1: both. */
  int        only_mode;
} Case;

typedef struct
{
  guint64 tried;
  guint64 allowed[3];              /* by WardenMode */
  guint64 executed[ORACLE_N_SHELLS];
  guint64 shell_syntax_errors;
  guint64 timeouts;
  guint64 unattributed_writes;
  guint64 runner_errors;
  guint64 failures;                /* every failing (line, shell, mode) */
  guint64 distinct;                /* after shrinking, not seen before */
  gint64  run_usec;                /* time spent running lines, summed over workers */
  gint64  wall_usec;               /* time the phase took */
  gint64  check_usec;              /* time spent in the engine */
  guint64 slow_checks;
} Stats;

/* What the workers share. While they run, @lock guards the tables, the
 * report and the failures file; the stats are merged after they are done. */
typedef struct
{
  gboolean       shells[ORACLE_N_SHELLS];
  gboolean       minimize;
  gboolean       verbose;
  gboolean       tap;
  GMutex         lock;
  FILE          *failures_file;
  GHashTable    *known;            /* failure keys already reported or in found.txt */
  GHashTable    *signatures;       /* kind, culprit, class, shell, mode → failures seen */
  GPtrArray     *slow;             /* lines the engine took long on */
  GString       *report;           /* diagnostics of the current phase */
  Stats          stats;            /* of the current phase, merged from the workers */
  Stats          total;
} Shared;

/* One per sandbox: the workers run cases side by side. */
typedef struct
{
  Shared        *shared;
  guint          index;
  OracleSandbox *sandbox;
  const char    *workspace;
  Stats          stats;
  gboolean       harness_ok;
} Oracle;

/* What went wrong, for shrinking: a smaller line must fail the same way. */
typedef struct
{
  const char *kind;      /* "ran", "denied", "wrote-outside", "wrote-protected", "log" */
  char       *culprit;   /* the program's name, or the path written */
  char       *detail;    /* a sentence */
} Verdict;

static void
verdict_clear (Verdict *v)
{
  g_clear_pointer (&v->culprit, g_free);
  g_clear_pointer (&v->detail, g_free);
  v->kind = NULL;
}

static void
case_free (Case *c)
{
  g_free (c->line);
  g_ptr_array_unref (c->allow);
  g_ptr_array_unref (c->deny);
  g_free (c);
}

static Case *
case_new (const char *line)
{
  Case *c = g_new0 (Case, 1);

  c->line = g_strdup (line);
  c->allow = g_ptr_array_new_with_free_func (g_free);
  c->deny = g_ptr_array_new_with_free_func (g_free);
  c->only_mode = -1;
  return c;
}

static gboolean
in_list (const char         *s,
         const char * const *list)
{
  for (; *list != NULL; list++)
    if (strcmp (s, *list) == 0)
      return TRUE;
  return FALSE;
}

/* A C string literal: what found.txt and the reports hold. */
static char *
c_string (const char *s)
{
  g_autofree char *escaped = g_strescape (s, NULL);

  return g_strdup_printf ("\"%s\"", escaped);
}

static char *
json_list (GPtrArray *list)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_array (b);
  for (guint i = 0; i < list->len; i++)
    json_builder_add_string_value (b, list->pdata[i]);
  json_builder_end_array (b);
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  return json_generator_to_data (gen, NULL);
}

static const char *
mode_name (WardenMode mode)
{
  return mode == WARDEN_MODE_ALLOWLIST ? "allowlist" : "allow-always";
}

static WardenVerdict
engine_check (Oracle     *o,
              Case       *c,
              const char *line,
              WardenMode  mode)
{
  const WardenCheckContext context = { .workspace = o->workspace };
  g_autoptr(WardenPolicy) policy = NULL;
  g_autoptr(WardenDecision) decision = NULL;
  gint64 start = g_get_monotonic_time (), took;

  g_ptr_array_add (c->allow, NULL);
  g_ptr_array_add (c->deny, NULL);
  policy = warden_policy_new (mode, (const char * const *) c->allow->pdata,
                              (const char * const *) c->deny->pdata);
  g_ptr_array_remove_index (c->allow, c->allow->len - 1);
  g_ptr_array_remove_index (c->deny, c->deny->len - 1);
  /* No exec guard here: the engine alone must keep the promise, so the
   * script files it leaves to the guard ("sh x.sh") ask. */
  warden_policy_set_check_nested (policy, FALSE);
  decision = warden_policy_check (policy, line, -1, &context);
  took = g_get_monotonic_time () - start;
  o->stats.check_usec += took;
  if (took > SLOW_CHECK_USEC)
    {
      o->stats.slow_checks++;
      g_mutex_lock (&o->shared->lock);
      if (o->shared->slow->len < 20)
        g_ptr_array_add (o->shared->slow, g_strdup_printf ("%.1f s: %s", took / 1e6, line));
      g_mutex_unlock (&o->shared->lock);
    }
  return warden_decision_get_verdict (decision);
}

static gboolean
matches_any (GPtrArray  *patterns,
             const char *text,
             const char **which)
{
  for (guint i = 0; i < patterns->len; i++)
    if (warden_pattern_match (patterns->pdata[i], text, strlen (text)))
      {
        if (which != NULL)
          *which = patterns->pdata[i];
        return TRUE;
      }
  return FALSE;
}

/* The engine matches patterns against a command's words and redirections,
 * and a program sees only its words: "cat <<EOF" is the text "cat << EOF",
 * which "cat *" matches, but runs as plain "cat". When the line has a
 * redirection anywhere, an invocation also counts as allowed when some
 * redirections after its words would make a pattern match. */
static gboolean
allowed_with_redirections (GPtrArray  *patterns,
                           const char *text)
{
  g_autofree char *holed = g_strdup_printf ("%s %c", text, WARDEN_PATTERN_HOLE);

  for (guint i = 0; i < patterns->len; i++)
    if (warden_pattern_match_any (patterns->pdata[i], holed, strlen (holed)))
      return TRUE;
  return FALSE;
}

/* What the engine allows without a pattern of the program's own: a program
 * that runs nothing when bare ("echo", from "echo $x"), under a pattern that
 * takes it with any arguments ("echo *"); and xargs, which does nothing but
 * start its command, logged and judged in turn. */
static gboolean
allowed_without_own_pattern (GPtrArray              *patterns,
                             const OracleInvocation *inv)
{
  g_autofree char *holed = NULL;

  if (strcmp (inv->name, "xargs") == 0)
    return TRUE;
  if ((inv->argv != NULL && inv->argv[0] != NULL) ||
      !warden_policy_program_runs_nothing (inv->name))
    return FALSE;
  holed = g_strdup_printf ("%s %c", inv->name, WARDEN_PATTERN_HOLE);
  return matches_any (patterns, holed, NULL);
}

/* Whether a busybox applet that writes files may have run: a word of @line,
 * after a rough quote removal, in command position (at the start, after an
 * operator or keyword, or after a wrapper) that names one. */
static gboolean
mentions_busybox_writer (const char *line)
{
  static const char * const leaders[] = {
    "then", "do", "else", "elif", "if", "while", "until", "!", "time", "xargs", "env", "sudo",
    "doas", "nice", "nohup", "timeout", "busybox", "command", "exec", "builtin", "setsid",
    "stdbuf", "ionice", "taskset", "chroot", "flock", "-exec", "-execdir", "-ok", "-okdir",
    "unshare", "nsenter", "setpriv", "runuser", NULL
  };
  g_autoptr(GString) word = g_string_new (NULL);
  gboolean command_position = TRUE;

  for (const char *p = line;; p++)
    {
      if (*p == '\'' || *p == '"' || *p == '\\')
        continue;
      if (*p != '\0' && !g_ascii_isspace (*p) && strchr (";&|(){}`$", *p) == NULL)
        {
          g_string_append_c (word, *p);
          continue;
        }
      if (word->len > 0)
        {
          if (command_position && in_list (word->str, busybox_writers))
            return TRUE;
          /* options, numbers (timeout 5, nice -n 5) and assignments keep a
           * wrapper's command position */
          if (!(command_position && (word->str[0] == '-' || g_ascii_isdigit (word->str[0]) ||
                                     strchr (word->str, '=') != NULL)))
            command_position = in_list (word->str, leaders);
          g_string_truncate (word, 0);
        }
      if (*p == '\0')
        return FALSE;
      if (strchr (";&|(){}`$\n", *p) != NULL)
        command_position = TRUE;
    }
}

/* The oracle proper: did this run keep the engine's promise for @mode? */
static gboolean
judge (Oracle      *o,
       Case        *c,
       const char  *line,
       WardenMode   mode,
       OracleShell  shell,
       OracleRun   *run,
       Verdict     *v)
{
  gboolean attributable = TRUE;
  gboolean redirections = strpbrk (line, "<>") != NULL;

  for (guint i = 0; i < run->ran->len; i++)
    {
      OracleInvocation *inv = run->ran->pdata[i];
      const char *base = strrchr (inv->name, '/');
      g_autofree char *base_text = NULL;
      const char *pattern = NULL;

      if (in_list (inv->name, writers))
        attributable = FALSE;
      if (base != NULL)
        base_text = g_strconcat (base + 1, inv->text + strlen (inv->name), NULL);

      if (matches_any (c->deny, inv->text, &pattern) ||
          (base_text != NULL && matches_any (c->deny, base_text, &pattern)))
        {
          v->kind = "denied";
          v->culprit = g_strdup (inv->name);
          v->detail = g_strdup_printf ("ran \"%s\", which the deny pattern \"%s\" matches",
                                       inv->text, pattern);
          return TRUE;
        }
      if (mode == WARDEN_MODE_ALLOWLIST && !matches_any (c->allow, inv->text, NULL) &&
          !(redirections && allowed_with_redirections (c->allow, inv->text)) &&
          !allowed_without_own_pattern (c->allow, inv))
        {
          v->kind = "ran";
          v->culprit = g_strdup (inv->name);
          v->detail = g_strdup_printf ("ran \"%s\", which no allow pattern matches", inv->text);
          return TRUE;
        }
    }

  if (run->log_tampered)
    {
      v->kind = "log";
      v->culprit = g_strdup (ORACLE_LOG);
      v->detail = g_strdup ("wrote into the stub log, outside the workspace");
      return TRUE;
    }

  if (run->changes->len == 0 && run->protected_changes->len == 0)
    return FALSE;
  if (shell == ORACLE_SHELL_BUSYBOX && mentions_busybox_writer (line))
    attributable = FALSE;
  if (!attributable)
    {
      o->stats.unattributed_writes++;
      return FALSE;
    }
  {
    GPtrArray *changes = run->changes->len > 0 ? run->changes : run->protected_changes;
    const char *first = changes->pdata[0];
    const char *path = strchr (first, ' ');
    g_autoptr(GString) all = g_string_new (NULL);

    for (guint i = 0; i < changes->len && i < 5; i++)
      g_string_append_printf (all, "%s%s", i > 0 ? ", " : "", (const char *) changes->pdata[i]);
    v->kind = run->changes->len > 0 ? "wrote-outside" : "wrote-protected";
    v->culprit = g_strdup (path != NULL ? path + 1 : first);
    v->detail = g_strdup_printf ("%s: %s", run->changes->len > 0 ?
                                 "wrote outside the workspace" :
                                 "wrote a protected path of the workspace", all->str);
  }
  return TRUE;
}

static OracleRun *
run_line (Oracle      *o,
          OracleShell  shell,
          const char  *line)
{
  g_autoptr(GError) error = NULL;
  gint64 start = g_get_monotonic_time ();
  OracleRun *run = oracle_sandbox_run (o->sandbox, shell, line, strlen (line), &error);

  o->stats.run_usec += g_get_monotonic_time () - start;
  if (run == NULL)
    {
      o->stats.runner_errors++;
      g_printerr ("oracle: %s (line %s); restarting it\n", error->message, line);
      return NULL;
    }
  o->stats.executed[shell]++;
  if (run->timed_out)
    {
      o->stats.timeouts++;
      if (o->stats.timeouts <= 3)
        {
          g_autofree char *q = c_string (line);

          g_mutex_lock (&o->shared->lock);
          g_string_append_printf (o->shared->report, "timed out under %s: %s\n",
                                  oracle_shell_name (shell), q);
          g_mutex_unlock (&o->shared->lock);
        }
    }
  if (WIFEXITED (run->status) && WEXITSTATUS (run->status) == 2 &&
      (strstr (run->err, "yntax error") != NULL))
    o->stats.shell_syntax_errors++;
  return run;
}

/* Does @line still fail under @shell in @mode the way @want did? */
static gboolean
still_fails (Oracle        *o,
             Case          *c,
             const char    *line,
             WardenMode     mode,
             OracleShell    shell,
             const Verdict *want)
{
  g_autoptr(OracleRun) run = NULL;
  Verdict v = { 0 };
  gboolean same;

  if (engine_check (o, c, line, mode) != WARDEN_VERDICT_ALLOW)
    return FALSE;
  run = run_line (o, shell, line);
  if (run == NULL || !judge (o, c, line, mode, shell, run, &v))
    return FALSE;
  same = strcmp (v.kind, want->kind) == 0 && strcmp (v.culprit, want->culprit) == 0;
  verdict_clear (&v);
  return same;
}

/* Removes bytes, then patterns, as long as the line fails the same way. */
static char *
shrink (Oracle        *o,
        Case          *c,
        WardenMode     mode,
        OracleShell    shell,
        const Verdict *want)
{
  g_autoptr(GString) cur = g_string_new (c->line);
  int budget = MINIMIZE_TRIES;
  gsize chunk = MAX (cur->len / 2, 1);

  while (budget > 0)
    {
      gboolean progress = FALSE;

      for (gsize i = 0; i < cur->len && budget > 0;)
        {
          g_autoptr(GString) cand = g_string_new_len (cur->str, (gssize) i);

          if (i + chunk < cur->len)
            g_string_append (cand, cur->str + i + chunk);
          budget--;
          if (cand->len > 0 && still_fails (o, c, cand->str, mode, shell, want))
            {
              g_string_assign (cur, cand->str);
              progress = TRUE;
            }
          else
            i += chunk;
        }
      if (!progress)
        {
          if (chunk == 1)
            break;
          chunk = MAX (chunk / 2, 1);
        }
    }

  /* Patterns the failure does not need: the row reads better without. */
  for (int list = 0; list < 2; list++)
    {
      GPtrArray *patterns = list == 0 ? c->allow : c->deny;

      for (guint i = 0; i < patterns->len && budget > 0;)
        {
          char *removed = g_ptr_array_steal_index (patterns, i);

          budget--;
          if (still_fails (o, c, cur->str, mode, shell, want))
            g_free (removed);
          else
            {
              g_ptr_array_insert (patterns, (gint) i, removed);
              i++;
            }
        }
    }
  return g_string_free (g_steal_pointer (&cur), FALSE);
}

/* A rough name for the kind of mistake, to group failures in reports. */
static const char *
classify (const char    *line,
          const Verdict *v)
{
  if (strcmp (v->kind, "wrote-protected") == 0)
    return "protected-path";
  if (strcmp (v->kind, "wrote-outside") == 0 || strcmp (v->kind, "log") == 0)
    return "write-outside";
  if (g_str_has_prefix (v->culprit, "$ROOT/"))
    return "command-word-or-PATH";
  if (strstr (line, "<<") != NULL)
    return "here-document";
  if (strstr (line, "$[") != NULL)
    return "dollar-bracket";
  if (strstr (line, "&>") != NULL || strstr (line, ">&") != NULL)
    return "bash-redirection";
  if (strstr (line, "$'") != NULL)
    return "ansi-c-quoting";
  if (strstr (line, "${") != NULL)
    return "parameter-expansion";
  if (strstr (line, "$((") != NULL || strstr (line, "((") != NULL)
    return "arithmetic";
  if (strchr (line, '#') != NULL)
    return "comment";
  if (strstr (line, "\\\n") != NULL)
    return "line-continuation";
  if (strstr (line, "xargs") != NULL || strstr (line, "find") != NULL)
    return "wrapper-xargs-find";
  {
    static const char * const wrapper_words[] = {
      "sudo", "env", "su", "doas", "runuser", "setpriv", "timeout", "nice", "nohup", "flock",
      "unshare", "nsenter", "chroot", "script", "systemd-run", "stdbuf", "setsid", "ionice",
      "taskset", "command", "exec", "time", "busybox", "-c", "sh", NULL
    };

    for (guint i = 0; wrapper_words[i] != NULL; i++)
      if (strstr (line, wrapper_words[i]) != NULL)
        return "wrapper";
  }
  return "other";
}

static void
report_failure (Oracle      *o,
                Case        *c,
                WardenMode   mode,
                OracleShell  shell,
                OracleRun   *run,
                Verdict     *v)
{
  Shared *sh = o->shared;
  g_autofree char *shrunk = NULL;
  g_autofree char *key = NULL;
  g_autofree char *quoted = NULL;
  g_autofree char *original = NULL;
  g_autofree char *allow = NULL;
  g_autofree char *deny = NULL;
  g_autofree char *signature = NULL;
  g_autoptr(GString) ran = g_string_new (NULL);
  g_autoptr(GString) text = g_string_new (NULL);
  Case *work;
  const char *class;
  gboolean known;
  guint seen;

  o->stats.failures++;
  for (guint i = 0; i < run->ran->len && i < 8; i++)
    g_string_append_printf (ran, "%s%s", i > 0 ? " | " : "",
                            ((OracleInvocation *) run->ran->pdata[i])->text);
  original = c_string (c->line);

  /* Shrinking costs hundreds of runs: only the first few failures of each
   * kind are shrunk and recorded; the rest are counted, and shown briefly. */
  signature = g_strdup_printf ("%s %s %s %s %s", v->kind, v->culprit, classify (c->line, v),
                               oracle_shell_name (shell), mode_name (mode));
  key = g_strdup_printf ("%s\t%s", mode_name (mode), c->line);
  g_mutex_lock (&sh->lock);
  seen = GPOINTER_TO_UINT (g_hash_table_lookup (sh->signatures, signature));
  g_hash_table_replace (sh->signatures, g_strdup (signature), GUINT_TO_POINTER (seen + 1));
  known = g_hash_table_contains (sh->known, key);
  /* Regression rows are shown in full every time; anything else once. */
  if ((known && c->only_mode < 0) || seen >= 3)
    {
      if (seen < 6)
        g_string_append_printf (sh->report, "FAIL (again: %s) %s\n", signature, original);
      g_mutex_unlock (&sh->lock);
      return;
    }
  if (!known)
    g_hash_table_add (sh->known, g_strdup (key));
  g_mutex_unlock (&sh->lock);

  /* Shrink a copy: the case goes on to the other shells as it was. */
  work = case_new (c->line);
  for (guint i = 0; i < c->allow->len; i++)
    g_ptr_array_add (work->allow, g_strdup (c->allow->pdata[i]));
  for (guint i = 0; i < c->deny->len; i++)
    g_ptr_array_add (work->deny, g_strdup (c->deny->pdata[i]));
  if (!known && sh->minimize)
    shrunk = shrink (o, work, mode, shell, v);
  else
    shrunk = g_strdup (c->line);

  class = classify (shrunk, v);
  quoted = c_string (shrunk);
  allow = json_list (work->allow);
  deny = json_list (work->deny);
  case_free (work);

  g_string_append_printf (text, "FAIL [%s] %s, %s: %s\n  line:  %s\n", class,
                          oracle_shell_name (shell), mode_name (mode), v->detail, original);
  if (strcmp (shrunk, c->line) != 0)
    g_string_append_printf (text, "  small: %s\n", quoted);
  g_string_append_printf (text, "  allow: %s  deny: %s\n  ran:   %s\n", allow, deny,
                          ran->len > 0 ? ran->str : "(nothing)");
  if (run->err[0] != '\0' && sh->verbose)
    g_string_append_printf (text, "  stderr: %s\n", run->err);

  g_mutex_lock (&sh->lock);
  g_string_append (sh->report, text->str);
  g_free (key);
  key = g_strdup_printf ("%s\t%s", mode_name (mode), shrunk);
  /* The line itself went into @known above, so that no other worker shrinks
   * it too: a line that did not shrink is new all the same. */
  if (!known && (strcmp (shrunk, c->line) == 0 || !g_hash_table_contains (sh->known, key)))
    {
      o->stats.distinct++;
      if (sh->failures_file != NULL)
        {
          fprintf (sh->failures_file, "# [%s] %s, %s: %s\n", class, oracle_shell_name (shell),
                   mode_name (mode), v->detail);
          if (strcmp (shrunk, c->line) != 0)
            fprintf (sh->failures_file, "#   from %s\n", original);
          fprintf (sh->failures_file, "%s\t%s\t%s\t%s\n", quoted, mode_name (mode), allow, deny);
          fflush (sh->failures_file);
        }
      g_hash_table_add (sh->known, g_steal_pointer (&key));
    }
  g_mutex_unlock (&sh->lock);
}

/* Checks @c with the engine and runs it if allowed; TRUE if it was allowed. */
static gboolean
try_case (Oracle *o,
          Case   *c)
{
  gboolean allowed[2] = { FALSE, FALSE };
  const WardenMode modes[2] = { WARDEN_MODE_ALLOWLIST, WARDEN_MODE_ALLOW_ALWAYS };

  o->stats.tried++;
  for (int m = 0; m < 2; m++)
    if (c->only_mode < 0 || c->only_mode == (int) modes[m])
      {
        allowed[m] = engine_check (o, c, c->line, modes[m]) == WARDEN_VERDICT_ALLOW;
        if (allowed[m])
          o->stats.allowed[modes[m]]++;
      }
  if (!allowed[0] && !allowed[1])
    return FALSE;

  for (int s = 0; s < ORACLE_N_SHELLS; s++)
    {
      g_autoptr(OracleRun) run = NULL;

      if (!o->shared->shells[s])
        continue;
      if (o->shared->verbose)
        {
          g_autofree char *q = c_string (c->line);

          g_print ("# run %s: %s\n", oracle_shell_name (s), q);
        }
      run = run_line (o, s, c->line);
      if (run == NULL)
        continue;
      for (int m = 0; m < 2; m++)
        {
          Verdict v = { 0 };

          if (allowed[m] && judge (o, c, c->line, modes[m], s, run, &v))
            {
              report_failure (o, c, modes[m], s, run, &v);
              verdict_clear (&v);
              break;   /* allowlist fails whenever allow-always does */
            }
        }
    }
  return TRUE;
}

/* ---- Seeds and regression rows --------------------------------------------------- */

static GPtrArray *
load_seeds (const char *seeds_file,
            const char *corpus_dir)
{
  GPtrArray *seeds = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;

  if (seeds_file != NULL)
    {
      if (!g_file_get_contents (seeds_file, &text, NULL, &error))
        g_printerr ("oracle: %s\n", error->message);
      else
        {
          g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

          for (guint i = 0; lines[i] != NULL; i++)
            if (lines[i][0] != '\0' && lines[i][0] != '#')
              g_ptr_array_add (seeds, g_strcompress (lines[i]));
        }
    }
  if (corpus_dir != NULL)
    {
      g_autoptr(GDir) dir = g_dir_open (corpus_dir, 0, &error);
      g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      const char *name;

      if (dir == NULL)
        g_printerr ("oracle: %s\n", error->message);
      else
        {
          while ((name = g_dir_read_name (dir)) != NULL)
            g_ptr_array_add (names, g_strdup (name));
          /* Directory order differs between machines; the runs must not. */
          g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
          for (guint i = 0; i < names->len; i++)
            {
              g_autofree char *path = g_build_filename (corpus_dir, names->pdata[i], NULL);
              char *data = NULL;
              gsize length;

              if (g_file_get_contents (path, &data, &length, NULL))
                {
                  /* NUL bytes stop here; the engine asks for them anyway. */
                  g_ptr_array_add (seeds, data);
                }
            }
        }
    }
  return seeds;
}

static GPtrArray *
parse_string_list (const char *json)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  GPtrArray *list;
  JsonNode *root;

  if (!json_parser_load_from_data (parser, json, -1, NULL))
    return NULL;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_ARRAY (root))
    return NULL;
  list = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < json_array_get_length (json_node_get_array (root)); i++)
    g_ptr_array_add (list, g_strdup (json_array_get_string_element (json_node_get_array (root), i)));
  return list;
}

/* found.txt: '#' comments, and rows "C-STRING<TAB>MODE<TAB>ALLOW-JSON<TAB>DENY-JSON". */
static GPtrArray *
load_rows (const char *path,
           GHashTable *known)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) case_free);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  if (path == NULL || !g_file_get_contents (path, &text, NULL, NULL))
    return rows;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = NULL;
      g_autofree char *inner = NULL;
      g_autoptr(GPtrArray) allow = NULL;
      g_autoptr(GPtrArray) deny = NULL;
      gsize len;
      Case *c;

      if (lines[i][0] != '"')
        continue;
      fields = g_strsplit (lines[i], "\t", 4);
      len = strlen (fields[0]);
      if (g_strv_length (fields) != 4 || len < 2 || fields[0][len - 1] != '"' ||
          (strcmp (fields[1], "allowlist") != 0 && strcmp (fields[1], "allow-always") != 0) ||
          (allow = parse_string_list (fields[2])) == NULL ||
          (deny = parse_string_list (fields[3])) == NULL)
        {
          g_printerr ("oracle: %s:%u: not a row\n", path, i + 1);
          continue;
        }
      inner = g_strndup (fields[0] + 1, len - 2);
      c = case_new (NULL);
      g_free (c->line);
      c->line = g_strcompress (inner);
      g_ptr_array_extend_and_steal (c->allow, g_steal_pointer (&allow));
      g_ptr_array_extend_and_steal (c->deny, g_steal_pointer (&deny));
      c->only_mode = strcmp (fields[1], "allowlist") == 0 ? WARDEN_MODE_ALLOWLIST
                                                          : WARDEN_MODE_ALLOW_ALWAYS;
      g_hash_table_add (known, g_strdup_printf ("%s\t%s", fields[1], c->line));
      g_ptr_array_add (rows, c);
    }
  return rows;
}

/* ---- Phases -------------------------------------------------------------------- */

static int tap_number;

static void
stats_add (Stats       *to,
           const Stats *from)
{
  to->tried += from->tried;
  for (int i = 0; i < 3; i++)
    to->allowed[i] += from->allowed[i];
  for (int i = 0; i < ORACLE_N_SHELLS; i++)
    to->executed[i] += from->executed[i];
  to->shell_syntax_errors += from->shell_syntax_errors;
  to->timeouts += from->timeouts;
  to->unattributed_writes += from->unattributed_writes;
  to->runner_errors += from->runner_errors;
  to->failures += from->failures;
  to->distinct += from->distinct;
  to->run_usec += from->run_usec;
  to->wall_usec += from->wall_usec;
  to->check_usec += from->check_usec;
  to->slow_checks += from->slow_checks;
}

static char *
stats_line (const Stats *s)
{
  guint64 runs = s->executed[0] + s->executed[1] + s->executed[2];

  return g_strdup_printf ("%" G_GUINT64_FORMAT " lines tried, %" G_GUINT64_FORMAT
                          " allowed in allowlist mode and %" G_GUINT64_FORMAT
                          " in allow-always; executed bash %" G_GUINT64_FORMAT
                          ", dash %" G_GUINT64_FORMAT ", busybox %" G_GUINT64_FORMAT
                          " (%.0f/s); %" G_GUINT64_FORMAT " shell syntax errors, %"
                          G_GUINT64_FORMAT " timeouts, %" G_GUINT64_FORMAT
                          " writes by file-writing programs; %" G_GUINT64_FORMAT
                          " failing runs, %" G_GUINT64_FORMAT " new distinct failures",
                          s->tried, s->allowed[WARDEN_MODE_ALLOWLIST],
                          s->allowed[WARDEN_MODE_ALLOW_ALWAYS], s->executed[0], s->executed[1],
                          s->executed[2], s->wall_usec > 0 ? runs / (s->wall_usec / 1e6) : 0.0,
                          s->shell_syntax_errors,
                          s->timeouts, s->unattributed_writes, s->failures, s->distinct);
}

/* Prints the phase's result; TRUE when it passed. */
static gboolean
phase_end (Shared     *sh,
           const char *name,
           gboolean    passed)
{
  g_autofree char *line = stats_line (&sh->stats);
  gboolean ok = passed && sh->stats.failures == 0 && sh->stats.runner_errors == 0;
  g_auto(GStrv) report = g_strsplit (sh->report->str, "\n", -1);

  stats_add (&sh->total, &sh->stats);
  for (guint i = 0; report[i] != NULL; i++)
    if (report[i][0] != '\0')
      g_print ("# %s\n", report[i]);
  if (sh->stats.runner_errors > 0)
    g_print ("# the sandbox's runner failed %" G_GUINT64_FORMAT " times\n",
             sh->stats.runner_errors);
  g_print ("# %s: %s\n", name, line);
  if (sh->tap)
    g_print ("%s %d - %s\n", ok ? "ok" : "not ok", ++tap_number, name);
  return ok;
}

/* The harness must see what runs, or the oracle could never fail. */
static gboolean
self_test (Oracle *o)
{
  /* A program that must be logged; "/" for a trap in the workspace. */
  static const struct
  {
    const char *line;
    const char *expect;
    int         changes;  /* 1: outside, 2: protected, 0: none at all */
    gboolean    posix;    /* also under dash and busybox */
  } checks[] = {
    { "evil x", "evil x", 0, TRUE },
    { "ls; cat a.txt > out.txt; git status", "git status", 0, TRUE },
    { "cat <<EOF\nhi\nEOF\necho $(cat <<X\nx\nX\n) > out.txt; git diff", "git diff", 0, TRUE },
    { "env evil 1", "evil 1", 0, TRUE },
    { "echo a | xargs evil", "evil a", 0, TRUE },
    { "find . -name a.txt -exec evil {} \\;", "evil ./a.txt", 0, TRUE },
    { "sh -c 'evil 2'", "evil 2", 0, TRUE },
    { "busybox sh -c 'evil 3'", "evil 3", 0, TRUE },
    { "sudo -u root evil 4", "evil 4", 0, TRUE },
    { "timeout -s KILL 5 nice -n 1 evil 5", "evil 5", 0, TRUE },
    { "evil 6 &", "evil 6", 0, TRUE },
    { "cat <<EOF | sh\nevil 7\nEOF", "evil 7", 0, TRUE },
    { "sh run.sh", "evil from-run.sh", 0, TRUE },
    { "PATH=. ls", "/", 0, FALSE },
    { "'ls ./x'", "/", 0, FALSE },
    { "echo x > ../outside/x", NULL, 1, TRUE },
    { "echo x >> ../outside/o.txt", NULL, 1, TRUE },
    { "echo x > link/y", NULL, 1, TRUE },
    { "echo x > /tmp/x", NULL, 1, TRUE },
    { "echo x > ~/x", NULL, 1, TRUE },
    { "echo x > .git/config", NULL, 2, TRUE },
  };
  gboolean ok = TRUE;

  for (guint i = 0; i < G_N_ELEMENTS (checks); i++)
    for (int s = 0; s < ORACLE_N_SHELLS; s++)
      {
        g_autoptr(OracleRun) run = NULL;
        const char *expect = checks[i].expect;
        gboolean seen = expect == NULL;

        if (!o->shared->shells[s] || (!checks[i].posix && s != ORACLE_SHELL_BASH))
          continue;
        run = run_line (o, s, checks[i].line);
        if (run == NULL)
          {
            ok = FALSE;
            continue;
          }
        for (guint k = 0; k < run->ran->len && !seen; k++)
          {
            OracleInvocation *inv = run->ran->pdata[k];

            seen = strcmp (expect, "/") == 0 ? g_str_has_prefix (inv->name, "$ROOT/") : strcmp (inv->text, expect) == 0;
          }
        if (!seen)
          {
            g_print ("# harness: %s under %s did not log \"%s\" (ran %u programs) %s\n",
                     checks[i].line, oracle_shell_name (s), expect, run->ran->len, run->err);
            ok = FALSE;
          }
        /* and the judge must call it what it is: only the two lines that run
         * git and ls are fine under this profile */
        {
          Case *c = case_new (checks[i].line);
          Verdict v = { 0 };
          gboolean fine = strcmp (checks[i].line, checks[1].line) == 0 ||
                          strcmp (checks[i].line, checks[2].line) == 0;

          for (const char * const *a = (const char * const []) { "ls", "ls *", "cat *", "echo *",
                                                                 "git status", "git diff", NULL };
               *a != NULL; a++)
            g_ptr_array_add (c->allow, g_strdup (*a));
          if (judge (o, c, c->line, WARDEN_MODE_ALLOWLIST, s, run, &v) == fine)
            {
              g_print ("# harness: the judge calls %s under %s %s\n", checks[i].line,
                       oracle_shell_name (s), fine ? "a failure" : "fine");
              ok = FALSE;
            }
          verdict_clear (&v);
          case_free (c);
        }
        if ((checks[i].changes == 1) != (run->changes->len > 0) ||
            (checks[i].changes == 2) != (run->protected_changes->len > 0) ||
            run->log_tampered || run->timed_out)
          {
            g_print ("# harness: %s under %s: %u changes outside, %u protected%s%s %s%s\n",
                     checks[i].line, oracle_shell_name (s), run->changes->len,
                     run->protected_changes->len, run->log_tampered ? ", log tampered" : "",
                     run->timed_out ? ", timed out" : "",
                     run->changes->len > 0 ? (char *) run->changes->pdata[0] : "",
                     run->err);
            ok = FALSE;
          }
      }
  return ok;
}

typedef enum
{
  PHASE_HARNESS,
  PHASE_ROWS,
  PHASE_SEEDS,
  PHASE_GENERATED,
} PhaseKind;

typedef struct
{
  PhaseKind  kind;
  GPtrArray *items;      /* rows (Case *) or seed lines (char *) */
  GPtrArray *seeds;      /* for mutation in generated phases */
  guint32    seed;
  gint64     deadline;   /* monotonic µs; 0: none */
  gint       next;       /* the next item, taken atomically */
} Phase;

typedef struct
{
  Oracle *o;
  Phase  *phase;
} Task;

static gboolean
before_deadline (Phase *p)
{
  return p->deadline == 0 || g_get_monotonic_time () < p->deadline;
}

static void
run_seed (Oracle     *o,
          const char *line,
          guint       k)
{
  /* The same profiles every run: seeded by the line. */
  g_autoptr(GRand) rand = g_rand_new_with_seed (g_str_hash (line) + k * 7919);
  Case *c = case_new (line);

  oracle_gen_config (rand, line, c->allow, c->deny);
  try_case (o, c);
  case_free (c);
}

static void
run_generated (Oracle *o,
               Phase  *p)
{
  /* Each worker its own stream: seed, seed + 1, … */
  g_autoptr(OracleGen) gen = oracle_gen_new (p->seed + o->index);
  g_autoptr(GRand) rand = g_rand_new_with_seed ((p->seed + o->index) ^ 0x5eed);

  for (guint i = 0; i < p->seeds->len; i++)
    oracle_gen_add_seed (gen, p->seeds->pdata[i]);
  while (before_deadline (p))
    {
      g_autofree char *line = oracle_gen_line (gen);
      Case *c = case_new (line);

      oracle_gen_config (rand, line, c->allow, c->deny);
      if (try_case (o, c))
        oracle_gen_add_parent (gen, line);
      case_free (c);
    }
}

static gpointer
worker_main (gpointer data)
{
  Task *task = data;
  Oracle *o = task->o;
  Phase *p = task->phase;
  guint n;

  switch (p->kind)
    {
    case PHASE_HARNESS:
      o->harness_ok = self_test (o);
      break;
    case PHASE_ROWS:
      while ((n = (guint) g_atomic_int_add (&p->next, 1)) < p->items->len)
        try_case (o, p->items->pdata[n]);
      break;
    case PHASE_SEEDS:
      while (before_deadline (p) &&
             (n = (guint) g_atomic_int_add (&p->next, 1)) < p->items->len * DERIVED_CONFIGS)
        run_seed (o, p->items->pdata[n / DERIVED_CONFIGS], n % DERIVED_CONFIGS);
      break;
    case PHASE_GENERATED:
    default:
      run_generated (o, p);
      break;
    }
  return NULL;
}

/* Runs @p on every worker at once; TRUE when it passed. */
static gboolean
run_phase (Shared     *sh,
           Oracle     *workers,
           guint       n_workers,
           Phase      *p,
           const char *name)
{
  g_autofree GThread **threads = g_new0 (GThread *, n_workers);
  g_autofree Task *tasks = g_new0 (Task, n_workers);
  gboolean passed = TRUE;
  gint64 start = g_get_monotonic_time ();

  memset (&sh->stats, 0, sizeof sh->stats);
  g_string_truncate (sh->report, 0);
  for (guint i = 0; i < n_workers; i++)
    {
      memset (&workers[i].stats, 0, sizeof workers[i].stats);
      tasks[i].o = &workers[i];
      tasks[i].phase = p;
      threads[i] = g_thread_new ("oracle-worker", worker_main, &tasks[i]);
    }
  for (guint i = 0; i < n_workers; i++)
    {
      g_thread_join (threads[i]);
      stats_add (&sh->stats, &workers[i].stats);
      if (p->kind == PHASE_HARNESS && !workers[i].harness_ok)
        passed = FALSE;
    }
  sh->stats.wall_usec = g_get_monotonic_time () - start;
  if (!passed)
    g_string_append (sh->report, "the harness does not see what runs: fix the oracle first\n");
  if (p->kind == PHASE_SEEDS && p->deadline != 0 &&
      (guint) p->next < p->items->len * DERIVED_CONFIGS)
    g_string_append_printf (sh->report, "time was up after %u of %u seed lines\n",
                            (guint) p->next / DERIVED_CONFIGS, p->items->len);
  return phase_end (sh, name, passed);
}

static char *
program_dir (void)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);

  return self != NULL ? g_path_get_dirname (self) : g_strdup (".");
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *runner = NULL;
  g_autofree char *seeds_file = NULL;
  g_autofree char *corpus_dir = NULL;
  g_autofree char *found_file = NULL;
  g_autofree char *failures_path = NULL;
  g_autofree char *shells = NULL;
  g_autofree char *self_exe = NULL;
  g_autofree char *stub = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *why = NULL;
  gint64 seed = -1;
  double seconds = 60;
  int timeout_ms = 2000;
  int jobs = (int) MIN (g_get_num_processors (), 4);
  gboolean seeds_only = FALSE, rows_only = FALSE, no_minimize = FALSE, verbose = FALSE;
  gboolean tap = FALSE;
  gboolean ci = g_strcmp0 (g_getenv ("CI"), "true") == 0;
  GOptionEntry entries[] = {
    { "runner", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &runner, NULL, NULL },
    { "seconds", 's', 0, G_OPTION_ARG_DOUBLE, &seconds,
      "Spend this long on the seeds and generated lines (default 60)", "N" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed,
      "Generate from this seed only (default: seed 1, then a random one)", "N" },
    { "seeds-only", 0, 0, G_OPTION_ARG_NONE, &seeds_only,
      "Only the regression rows and every seed, with no time limit", NULL },
    { "rows-only", 0, 0, G_OPTION_ARG_NONE, &rows_only,
      "Only the regression rows of found.txt: a few seconds", NULL },
    { "seeds", 0, 0, G_OPTION_ARG_FILENAME, &seeds_file, "Seed lines (default seeds.txt)", "FILE" },
    { "corpus", 0, 0, G_OPTION_ARG_FILENAME, &corpus_dir,
      "More seeds, a line per file (default tests/fuzz/corpus)", "DIR" },
    { "found", 0, 0, G_OPTION_ARG_FILENAME, &found_file,
      "Regression rows (default found.txt)", "FILE" },
    { "failures", 0, 0, G_OPTION_ARG_FILENAME, &failures_path,
      "Append new failures here, as rows", "FILE" },
    { "shells", 0, 0, G_OPTION_ARG_STRING, &shells,
      "Comma-separated: bash,dash,busybox (default all)", "LIST" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
      "Sandboxes running side by side (default: the processors, at most 4)", "N" },
    { "timeout-ms", 0, 0, G_OPTION_ARG_INT, &timeout_ms,
      "Kill a line after this long (default 2000)", "MS" },
    { "no-minimize", 0, 0, G_OPTION_ARG_NONE, &no_minimize, "Do not shrink failures", NULL },
    { "tap", 0, 0, G_OPTION_ARG_NONE, &tap, "TAP output", NULL },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose, "Print every line run", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- run allowed lines under real shells");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) seeds = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autofree Oracle *workers = NULL;
  Shared sh = { 0 };
  gboolean ok = TRUE;
  gint64 start;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("oracle: %s\n", error->message);
      return 2;
    }
  if (runner != NULL)
    return oracle_runner_main (runner);
  jobs = CLAMP (jobs, 1, 64);

  setvbuf (stdout, NULL, _IOLBF, 0);
  /* A runner that died shows as a failed write, not as our death. */
  signal (SIGPIPE, SIG_IGN);

  sh.tap = tap;
  sh.verbose = verbose;
  sh.minimize = !no_minimize;
  g_mutex_init (&sh.lock);
  sh.known = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sh.signatures = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sh.slow = g_ptr_array_new_with_free_func (g_free);
  sh.report = g_string_new (NULL);
  for (int s = 0; s < ORACLE_N_SHELLS; s++)
    sh.shells[s] = shells == NULL || strstr (shells, oracle_shell_name (s)) != NULL;

  why = oracle_sandbox_check ();
  if (why != NULL)
    {
      /* Under CI a missing shell must fail the suite, not skip the oracle. */
      if (tap)
        g_print (ci ? "1..1\nnot ok 1 - %s\n" : "1..0 # SKIP %s\n", why);
      else
        g_printerr ("oracle: %s\n", why);
      return ci ? 1 : (tap ? 0 : 77);
    }

  dir = program_dir ();
  self_exe = g_file_read_link ("/proc/self/exe", NULL);
  stub = g_build_filename (dir, "oracle-stub", NULL);
  workers = g_new0 (Oracle, jobs);
  for (int i = 0; i < jobs; i++)
    {
      workers[i].shared = &sh;
      workers[i].index = (guint) i;
      workers[i].sandbox = oracle_sandbox_new (self_exe, stub, (guint) timeout_ms, &error);
      if (workers[i].sandbox == NULL)
        {
          if (tap)
            g_print (ci ? "1..1\nnot ok 1 - %s\n" : "1..0 # SKIP %s\n", error->message);
          else
            g_printerr ("oracle: %s\n", error->message);
          for (int k = 0; k < i; k++)
            oracle_sandbox_free (workers[k].sandbox);
          return ci ? 1 : (tap ? 0 : 77);
        }
      workers[i].workspace = oracle_sandbox_workspace (workers[i].sandbox);
    }

  if (seeds_file == NULL)
    seeds_file = g_build_filename (ORACLE_SRCDIR, "seeds.txt", NULL);
  if (corpus_dir == NULL)
    corpus_dir = g_strdup (FUZZ_CORPUS);
  if (found_file == NULL)
    found_file = g_build_filename (ORACLE_SRCDIR, "found.txt", NULL);
  seeds = load_seeds (seeds_file, corpus_dir);
  rows = load_rows (found_file, sh.known);
  if (failures_path != NULL)
    {
      sh.failures_file = fopen (failures_path, "a");
      if (sh.failures_file == NULL)
        {
          g_printerr ("oracle: %s: %s\n", failures_path, g_strerror (errno));
          return 2;
        }
    }

  if (tap)
    g_print ("1..%d\n", rows_only ? 2 : seeds_only ? 3 : (seed >= 0 ? 4 : 5));
  g_print ("# %d sandboxes; %u seed lines, %u regression rows\n", jobs, seeds->len, rows->len);

  {
    Phase harness = { .kind = PHASE_HARNESS };
    Phase regression = { .kind = PHASE_ROWS, .items = rows };

    ok &= run_phase (&sh, workers, (guint) jobs, &harness,
                     "harness: the sandbox logs what runs and sees what is written");
    ok &= run_phase (&sh, workers, (guint) jobs, &regression, "regression rows (found.txt)");
  }

  /* --seconds bounds the seeds and the generated lines: the seeds get at most
   * 40% of it (they all run with --seeds-only), the generated phases the rest. */
  start = g_get_monotonic_time ();
  if (!rows_only)
    {
      Phase seeding = { .kind = PHASE_SEEDS, .items = seeds };

      if (!seeds_only)
        seeding.deadline = start + (gint64) (0.4 * seconds * G_USEC_PER_SEC);
      ok &= run_phase (&sh, workers, (guint) jobs, &seeding,
                       "seed corpus (seeds.txt, tests/fuzz/corpus)");
    }

  if (!seeds_only && !rows_only)
    {
      gint64 end = start + (gint64) (seconds * G_USEC_PER_SEC);
      gint64 now = g_get_monotonic_time ();
      gint64 share = seed >= 0 ? end - now : (end - now) / 2;
      Phase fixed = {
        .kind = PHASE_GENERATED, .seeds = seeds, .seed = seed >= 0 ? (guint32) seed : 1,
        .deadline = now + MAX (share, 0),
      };
      g_autofree char *name = g_strdup_printf ("generated lines, seed %u (rerun: --seed %u --jobs %d)",
                                               fixed.seed, fixed.seed, jobs);

      ok &= run_phase (&sh, workers, (guint) jobs, &fixed, name);
      if (seed < 0)
        {
          Phase random = {
            .kind = PHASE_GENERATED, .seeds = seeds, .seed = g_random_int (), .deadline = end,
          };
          g_autofree char *rname = g_strdup_printf ("generated lines, random seed %u "
                                                    "(rerun: --seed %u --jobs %d)",
                                                    random.seed, random.seed, jobs);

          ok &= run_phase (&sh, workers, (guint) jobs, &random, rname);
        }
    }

  {
    g_autofree char *total = stats_line (&sh.total);

    g_print ("# total: %s; %.0f s in the engine\n", total, sh.total.check_usec / 1e6);
    for (guint i = 0; i < sh.slow->len; i++)
      g_print ("# slow engine check: %s\n", (const char *) sh.slow->pdata[i]);
  }
  for (int i = 0; i < jobs; i++)
    oracle_sandbox_free (workers[i].sandbox);
  if (sh.failures_file != NULL)
    fclose (sh.failures_file);
  g_hash_table_unref (sh.known);
  g_hash_table_unref (sh.signatures);
  g_ptr_array_unref (sh.slow);
  g_string_free (sh.report, TRUE);
  g_mutex_clear (&sh.lock);
  return ok ? 0 : 1;
}
