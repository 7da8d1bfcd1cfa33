/* warden-policy.c: a profile compiled for fast decisions
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-policy"

#include <glib/gi18n.h>
#include <string.h>

#include "warden-pattern.h"
#include "warden-policy.h"
#include "warden-shell-parser.h"
#include "warden-spelling.h"

struct _WardenPolicy
{
  gatomicrefcount   ref_count;
  WardenMode        mode;
  WardenPatternSet *allow;
  WardenPatternSet *deny;
  /* The deny patterns again, for the other spellings of their options. */
  WardenSpellingSet *deny_spelling;
};

WardenPolicy *
warden_policy_new (WardenMode          mode,
                   const char * const *allow,
                   const char * const *deny)
{
  WardenPolicy *self = g_new0 (WardenPolicy, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->mode = mode;
  self->allow = warden_pattern_set_new ();
  self->deny = warden_pattern_set_new ();
  self->deny_spelling = warden_spelling_set_new ();
  for (guint i = 0; allow && allow[i]; i++)
    if (warden_pattern_validate (allow[i], NULL))
      warden_pattern_set_add (self->allow, allow[i]);
  for (guint i = 0; deny && deny[i]; i++)
    if (warden_pattern_validate (deny[i], NULL))
      {
        warden_pattern_set_add (self->deny, deny[i]);
        warden_spelling_set_add (self->deny_spelling, deny[i]);
      }
  return self;
}

WardenPolicy *
warden_policy_new_for_profile (WardenProfile *profile)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (profile), NULL);

  return warden_policy_new (warden_profile_get_mode (profile),
                            warden_profile_get_allow (profile),
                            warden_profile_get_deny (profile));
}

WardenPolicy *
warden_policy_ref (WardenPolicy *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
warden_policy_unref (WardenPolicy *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  warden_pattern_set_free (self->allow);
  warden_pattern_set_free (self->deny);
  warden_spelling_set_free (self->deny_spelling);
  g_free (self);
}

WardenMode
warden_policy_get_mode (WardenPolicy *self)
{
  return self->mode;
}

static gboolean
is_subcommand (const char *word)
{
  if (word == NULL || !(word[0] >= 'a' && word[0] <= 'z'))
    return FALSE;
  for (const char *c = word + 1; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-'))
      return FALSE;
  return TRUE;
}

/* The command name, its subcommand if the first argument looks like one,
 * and " *" when more follows; NULL when such a pattern would not match. */
static char *
suggest (const WardenCommandPart *part)
{
  const char *text = part->match_text ? part->match_text : part->text;
  g_autoptr(GString) s = NULL;

  if (part->argv == NULL || part->argv[0] == NULL || strchr (part->argv[0], '*') != NULL)
    return NULL;

  s = g_string_new (part->argv[0]);
  if (is_subcommand (part->argv[1]))
    g_string_append_printf (s, " %s", part->argv[1]);
  if (strcmp (s->str, text) != 0)
    g_string_append (s, " *");

  if (!warden_pattern_match (s->str, text, strlen (text)))
    return NULL;
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* A shell with no script operand and no -c: it reads its script from its
 * standard input (in a pipeline, whatever the command before it prints). */
static gboolean
reads_script_from_stdin (const WardenCommandPart *part)
{
  /* Besides the shells of the sh family: "busybox sh", fish, interpreters. */
  static const char * const readers[] = { "busybox", "fish", "python", "python3", "perl", "ruby",
                                          "node", "php", NULL };
  const char *name;
  gboolean options_done = FALSE;
  guint first = 1;

  if (part->argv == NULL || part->argv[0] == NULL)
    return FALSE;
  name = strrchr (part->argv[0], '/') ? strrchr (part->argv[0], '/') + 1 : part->argv[0];
  if (!warden_shell_name_is_sh (name) && !g_strv_contains (readers, name))
    return FALSE;
  /* "busybox sh" is the shell. */
  if (strcmp (name, "busybox") == 0)
    {
      if (part->argv[1] == NULL || (strcmp (part->argv[1], "sh") != 0 &&
                                    strcmp (part->argv[1], "ash") != 0))
        return FALSE;
      first = 2;
    }
  for (guint i = first; part->argv[i] != NULL; i++)
    {
      const char *a = part->argv[i];

      if (!options_done && strcmp (a, "--") == 0)
        {
          options_done = TRUE;
          continue;
        }
      if (!options_done && a[0] == '-' && a[1] != '\0')
        {
          /* -c, -e (perl, ruby, node's -e/-p): the script is an argument. */
          if (strcmp (a, "-s") == 0 || strcmp (a, "-") == 0)
            return TRUE;
          /* Long options (--rcfile, --norc) hold no -c; "--eval" is node's -e. */
          if ((a[1] != '-' && strchr (a + 1, 'c') != NULL) || strcmp (a, "-e") == 0 ||
              strcmp (a, "-E") == 0 || strcmp (a, "-p") == 0 || strcmp (a, "--eval") == 0 ||
              strcmp (a, "-m") == 0)
            return FALSE;
          continue;
        }
      /* A script file (or, after -s, arguments: handled above). */
      return strcmp (a, "-") == 0;
    }
  return TRUE;
}

static gboolean
inside (const char *path,
        const char *dir)
{
  gsize n = strlen (dir);

  return strcmp (path, dir) == 0 ||
         (strncmp (path, dir, n) == 0 && (path[n] == '/' || (n > 0 && dir[n - 1] == '/')));
}

/* Translated once: gettext is too slow to call for every decision. */
typedef struct
{
  const char *allowed_by;
  const char *no_match;
  const char *denied_by;
  const char *may_be_denied;
  const char *spelling_may_be_denied;
  const char *files_may_be_denied;
  const char *args_may_be_denied;
  const char *allows_every;
  const char *asks_every;
  const char *redirections_only;
  const char *unparsed;
  const char *env;
  const char *empty;
  const char *all_match;
  const char *runs_stdin;
} Texts;

static const Texts *
texts (void)
{
  static Texts t;
  static gsize done;

  if (g_once_init_enter (&done))
    {
      t.allowed_by = _("allowed by “%s”");
      t.no_match = _("no allow pattern matches “%s”");
      t.denied_by = _("“%s” matches the deny pattern “%s”");
      t.may_be_denied = _("“%s” could expand to a command that the deny pattern “%s” names");
      t.spelling_may_be_denied = _("“%s” may be, in another spelling of its options, what the "
                                   "deny pattern “%s” names");
      t.files_may_be_denied = _("the file names are only known when it runs, and some names "
                                "would make it match the deny pattern “%s”");
      t.args_may_be_denied = _("its arguments are only known when it runs, and some would make "
                               "it match the deny pattern “%s”");
      t.allows_every = _("the profile allows every command");
      t.asks_every = _("the profile asks before every command");
      t.redirections_only = _("redirections only: no command runs");
      t.unparsed = _("the command could not be fully parsed: %s");
      t.env = _("the command is run with environment variables (%s), which can change what "
                "any command does");
      t.empty = _("the command is empty: nothing runs");
      t.all_match = _("every command matches an allow pattern");
      t.runs_stdin = _("“%s” runs whatever is piped into it, which nobody can check before it "
                       "runs: no pattern can allow that");
      g_once_init_leave (&done, 1);
    }
  return &t;
}

/* Judges one part; returns its verdict and fills @reason, @pattern and
 * @suggestion (the last two may stay NULL). */
static WardenVerdict
judge_part (WardenPolicy            *self,
            const WardenCommandPart *part,
            const char             **pattern,
            char                   **reason,
            char                   **suggestion)
{
  const Texts *t = texts ();
  const char *text = part->match_text ? part->match_text : part->text;
  gsize text_len = strlen (text);
  const char *allow = NULL;
  const char *deny;
  gboolean min_unmatched = FALSE;

  /* Denied only when every filling of the holes matches: "rm {}" under "rm *". */
  deny = warden_pattern_set_lookup (self->deny, text, text_len, FALSE);
  if (deny == NULL && part->base_text != NULL)
    deny = warden_pattern_set_lookup (self->deny, part->base_text, strlen (part->base_text),
                                      FALSE);
  if (deny != NULL)
    {
      *pattern = deny;
      *reason = g_strdup_printf (t->denied_by, part->text, deny);
      return WARDEN_VERDICT_DENY;
    }

  /* "rm {}" under "rm -rf /…": some file names would make it match and others
   * not, and they are only known when it runs. Denying would name a command
   * that may never run; allowing could run one the profile refuses: it asks,
   * in every mode. */
  if (part->match_text != NULL || part->base_text != NULL)
    {
      deny = warden_pattern_set_lookup (self->deny, text, text_len, TRUE);
      if (deny == NULL && part->base_text != NULL)
        deny = warden_pattern_set_lookup (self->deny, part->base_text,
                                          strlen (part->base_text), TRUE);
      if (deny != NULL)
        {
          if (g_strcmp0 (part->runner, "find") == 0)
            *reason = g_strdup_printf (t->files_may_be_denied, deny);
          else if (part->match_text != NULL)
            *reason = g_strdup_printf (t->args_may_be_denied, deny);
          else
            *reason = g_strdup_printf (t->may_be_denied, part->text, deny);
          *suggestion = NULL;
          return WARDEN_VERDICT_ASK;
        }
    }

  /* "rm -rf $d" is not what a deny pattern for "rm -rf /" names as written,
   * but $d may be "/": nobody can know before it runs, so it asks, in every
   * mode. */
  if (part->expanded_text != NULL)
    {
      deny = warden_pattern_set_lookup (self->deny, part->expanded_text,
                                        strlen (part->expanded_text), TRUE);
      if (deny != NULL)
        {
          *reason = g_strdup_printf (t->may_be_denied, part->text, deny);
          return WARDEN_VERDICT_ASK;
        }
    }

  /* "git diff --output=x" is "git diff --output x" to every program. */
  deny = warden_spelling_set_lookup (self->deny_spelling, text, text_len);
  if (deny == NULL && part->base_text != NULL)
    deny = warden_spelling_set_lookup (self->deny_spelling, part->base_text,
                                       strlen (part->base_text));
  if (deny != NULL)
    {
      *pattern = deny;
      *reason = g_strdup_printf (t->denied_by, part->text, deny);
      return WARDEN_VERDICT_DENY;
    }
  /* "tree -ao out.txt ." may be "tree -a -o out.txt .": without the
   * program's option table nobody can say, so it asks, in every mode. */
  deny = warden_spelling_set_lookup_any (self->deny_spelling, text, text_len);
  if (deny == NULL && part->expanded_text != NULL)
    deny = warden_spelling_set_lookup_any (self->deny_spelling, part->expanded_text,
                                           strlen (part->expanded_text));
  if (deny != NULL)
    {
      *reason = g_strdup_printf (t->spelling_may_be_denied, part->text, deny);
      return WARDEN_VERDICT_ASK;
    }

  if (part->kind != WARDEN_PART_REDIRECTION)
    allow = warden_pattern_set_lookup (self->allow, text, text_len, FALSE);
  /* "cat $f" runs "cat" when $f is empty: that command must be allowed too. */
  if (allow != NULL && part->min_text != NULL &&
      warden_pattern_set_lookup (self->allow, part->min_text, strlen (part->min_text),
                                 FALSE) == NULL)
    {
      allow = NULL;
      min_unmatched = TRUE;
    }

  if (part->force_ask != NULL && !(part->liftable && allow != NULL))
    {
      *reason = g_strdup (part->force_ask);
      if (!part->no_suggestion && self->mode == WARDEN_MODE_ALLOWLIST)
        *suggestion = suggest (part);
      return WARDEN_VERDICT_ASK;
    }
  if (part->kind == WARDEN_PART_REDIRECTION)
    {
      *reason = g_strdup (t->redirections_only);
      return WARDEN_VERDICT_ALLOW;
    }
  if (self->mode == WARDEN_MODE_ALLOW_ALWAYS)
    {
      *reason = g_strdup (t->allows_every);
      return WARDEN_VERDICT_ALLOW;
    }
  if (self->mode == WARDEN_MODE_APPROVAL_ALWAYS)
    {
      *reason = g_strdup (t->asks_every);
      return WARDEN_VERDICT_ASK;
    }
  if (allow != NULL)
    {
      *pattern = allow;
      *reason = g_strdup_printf (t->allowed_by, allow);
      return WARDEN_VERDICT_ALLOW;
    }

  /* "sh" would allow every script a download pipes into it. */
  if (reads_script_from_stdin (part))
    {
      *reason = g_strdup_printf (t->runs_stdin, part->text);
      return WARDEN_VERDICT_ASK;
    }
  *reason = g_strdup_printf (t->no_match, min_unmatched ? part->min_text : part->text);
  if (!part->no_suggestion)
    *suggestion = min_unmatched ? g_strdup (part->min_text) : suggest (part);
  return WARDEN_VERDICT_ASK;
}

WardenDecision *
warden_policy_check (WardenPolicy             *self,
                     const char               *command,
                     gssize                    length,
                     const WardenCheckContext *context)
{
  const Texts *t = texts ();
  WardenDecision *decision = warden_decision_new ();
  g_autoptr(WardenShellParse) parse = NULL;
  g_autofree char *env_reason = NULL;
  WardenShellOptions options = { 0 };
  gint first_ask = -1, first_deny = -1;

  g_return_val_if_fail (self != NULL, decision);
  g_return_val_if_fail (command != NULL || length == 0, decision);

  /* The parser resolves "." and ".." in the workspace itself. */
  options.workspace = context && context->workspace ? context->workspace : "/workspace";
  options.host_workspace = context ? context->host_workspace : NULL;
  if (context && context->cwd)
    {
      g_autofree char *workspace = g_canonicalize_filename (options.workspace, "/");
      g_autofree char *cwd = g_canonicalize_filename (context->cwd, workspace);

      options.cwd_outside_workspace = !inside (cwd, workspace);
    }

  parse = warden_shell_parse (command ? command : "", length, &options);

  if (context && context->env && context->env[0])
    {
      g_autoptr(GString) names = g_string_new (NULL);

      for (guint i = 0; context->env[i]; i++)
        {
          const char *eq = strchr (context->env[i], '=');

          if (i > 0)
            g_string_append (names, ", ");
          g_string_append_len (names, context->env[i],
                               eq ? (gssize) (eq - context->env[i]) : -1);
        }
      env_reason = g_strdup_printf (t->env, names->str);
    }

  for (guint i = 0; i < parse->parts->len; i++)
    {
      WardenCommandPart *part = g_ptr_array_index (parse->parts, i);
      const char *pattern = NULL;
      char *reason = NULL;
      char *suggestion = NULL;
      WardenVerdict verdict = judge_part (self, part, &pattern, &reason, &suggestion);

      if (verdict == WARDEN_VERDICT_DENY && first_deny < 0)
        first_deny = i;
      if (verdict == WARDEN_VERDICT_ASK && first_ask < 0)
        first_ask = i;
      warden_decision_take_part (decision, g_steal_pointer (&part->text), part->origin, verdict,
                                 pattern, reason, suggestion);
      if (part->runner != NULL)
        warden_decision_set_part_runner (decision, i, part->runner);
      /* @name points into the block, and goes with it. */
      part->name = NULL;
      warden_decision_take_part_argv (decision, i, g_steal_pointer (&part->argv));
    }

#define REASON_OF(i) (warden_decision_get_part (decision, (i))->reason)
  if (first_deny >= 0)
    warden_decision_set_result (decision, WARDEN_VERDICT_DENY, REASON_OF (first_deny));
  else if (parse->error != NULL)
    {
      g_autofree char *reason = g_strdup_printf (t->unparsed, parse->error);

      warden_decision_set_result (decision, WARDEN_VERDICT_ASK, reason);
    }
  else if (parse->ask != NULL)
    warden_decision_set_result (decision, WARDEN_VERDICT_ASK, parse->ask);
  else if (env_reason != NULL)
    warden_decision_set_result (decision, WARDEN_VERDICT_ASK, env_reason);
  else if (first_ask >= 0)
    warden_decision_set_result (decision, WARDEN_VERDICT_ASK, REASON_OF (first_ask));
  else if (parse->parts->len == 0 && self->mode == WARDEN_MODE_APPROVAL_ALWAYS)
    warden_decision_set_result (decision, WARDEN_VERDICT_ASK, t->asks_every);
  else if (parse->parts->len == 0)
    warden_decision_set_result (decision, WARDEN_VERDICT_ALLOW, t->empty);
  else if (self->mode == WARDEN_MODE_ALLOW_ALWAYS)
    warden_decision_set_result (decision, WARDEN_VERDICT_ALLOW, t->allows_every);
  else
    warden_decision_set_result (decision, WARDEN_VERDICT_ALLOW, t->all_match);
#undef REASON_OF

  return decision;
}

/* ------------------------------------------------------------------------ */
/* Variables that load code into the program that receives them */

/* Each names code a program runs or loads at its start (or at a point
 * where it runs no other program): the dynamic loader's, the shells'
 * startup files and exported functions, the interpreters' module paths and
 * startup options, glibc's and OpenSSL's modules, the JVM's agents. */
static const char * const code_prefixes[] = {
  "LD_", "DYLD_", "BASH_FUNC_", "LUA_INIT", "LUA_PATH", "LUA_CPATH", NULL
};
static const char * const code_names[] = {
  "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "ZDOTDIR",
  "NODE_OPTIONS", "NODE_PATH",
  "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONWARNINGS",
  "PYTHONBREAKPOINT",
  "PERL5LIB", "PERL5OPT", "PERLLIB", "PERL5DB",
  "RUBYOPT", "RUBYLIB",
  "GCONV_PATH", "GLIBC_TUNABLES", "OPENSSL_CONF", "OPENSSL_ENGINES", "OPENSSL_MODULES",
  "GIO_EXTRA_MODULES", "GTK_MODULES", "GTK3_MODULES",
  "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", NULL
};

gboolean
warden_policy_env_loads_code (const char *name)
{
  gsize len;

  g_return_val_if_fail (name != NULL, FALSE);

  len = strcspn (name, "=");
  for (guint i = 0; code_prefixes[i] != NULL; i++)
    if (strncmp (name, code_prefixes[i], MIN (len, strlen (code_prefixes[i]))) == 0 &&
        len >= strlen (code_prefixes[i]))
      return TRUE;
  for (guint i = 0; code_names[i] != NULL; i++)
    if (strlen (code_names[i]) == len && strncmp (name, code_names[i], len) == 0)
      return TRUE;
  return FALSE;
}
