/* warden-policy.c: a profile compiled for fast decisions
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-policy"

#include <glib/gi18n.h>
#include <string.h>

#include "common/warden-copy.h"
#include "common/warden-sandbox-paths.h"
#include "warden-pattern.h"
#include "warden-policy.h"
#include "warden-shell-parser.h"
#include "warden-spelling.h"

struct _WardenPolicy
{
  gatomicrefcount   ref_count;
  WardenMode        mode;
  gboolean          check_nested;
  WardenPatternSet *allow;
  WardenPatternSet *ask;
  WardenPatternSet *deny;
  /* The ask and deny patterns again, for other spellings of options. */
  WardenSpellingSet *ask_spelling;
  WardenSpellingSet *deny_spelling;
  /* Whether @ask and @deny hold patterns, which every part asks: the sets
   * never change after warden_policy_new(). */
  gboolean          has_ask;
  gboolean          has_deny;
  /* The workspace roots' real paths, looked up once for the policy's life. */
  WardenShellRootCache *roots;
};

static WardenPatternSet *
pattern_set_new (const char * const *patterns)
{
  WardenPatternSet *set = warden_pattern_set_new ();

  for (guint i = 0; patterns && patterns[i]; i++)
    if (warden_pattern_validate (patterns[i], NULL))
      warden_pattern_set_add (set, patterns[i]);
  return set;
}

static WardenSpellingSet *
spelling_set_new (const char * const *patterns)
{
  WardenSpellingSet *set = warden_spelling_set_new ();

  for (guint i = 0; patterns && patterns[i]; i++)
    if (warden_pattern_validate (patterns[i], NULL))
      warden_spelling_set_add (set, patterns[i]);
  return set;
}

WardenPolicy *
warden_policy_new_full (WardenMode          mode,
                        const char * const *allow,
                        const char * const *ask,
                        const char * const *deny)
{
  WardenPolicy *self = g_new0 (WardenPolicy, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->mode = mode;
  self->check_nested = TRUE;
  self->allow = pattern_set_new (allow);
  self->ask = pattern_set_new (ask);
  self->deny = pattern_set_new (deny);
  self->ask_spelling = spelling_set_new (ask);
  self->deny_spelling = spelling_set_new (deny);
  self->has_ask = warden_pattern_set_get_size (self->ask) > 0;
  self->has_deny = warden_pattern_set_get_size (self->deny) > 0;
  self->roots = warden_shell_root_cache_new ();
  return self;
}

WardenPolicy *
warden_policy_new (WardenMode          mode,
                   const char * const *allow,
                   const char * const *deny)
{
  return warden_policy_new_full (mode, allow, NULL, deny);
}

WardenPolicy *
warden_policy_new_for_profile (WardenProfile *profile)
{
  WardenPolicy *self;

  g_return_val_if_fail (WARDEN_IS_PROFILE (profile), NULL);

  self = warden_policy_new_full (warden_profile_get_mode (profile),
                                 warden_profile_get_allow (profile),
                                 warden_profile_get_ask (profile),
                                 warden_profile_get_deny (profile));
  self->check_nested = warden_profile_get_check_nested (profile);
  return self;
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
  warden_pattern_set_free (self->ask);
  warden_pattern_set_free (self->deny);
  warden_spelling_set_free (self->ask_spelling);
  warden_spelling_set_free (self->deny_spelling);
  warden_shell_root_cache_free (self->roots);
  g_free (self);
}

WardenMode
warden_policy_get_mode (WardenPolicy *self)
{
  return self->mode;
}

void
warden_policy_set_check_nested (WardenPolicy *self,
                                gboolean      check_nested)
{
  self->check_nested = !!check_nested;
}

/* The bytes of a subcommand after its first (a lowercase letter): one load
 * each, not three ranges. */
static const guchar subcommand_byte[256] = {
  ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1,
  ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1,
  ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
  ['y'] = 1, ['z'] = 1,
  ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
  ['8'] = 1, ['9'] = 1, ['-'] = 1,
};

/* The length of @word when it looks like a subcommand, else 0. */
static gsize
subcommand_len (const char *word)
{
  gsize n = 1;

  if (word == NULL || !(word[0] >= 'a' && word[0] <= 'z'))
    return 0;
  while (subcommand_byte[(guchar) word[n]])
    n++;
  return word[n] == '\0' ? n : 0;
}

/* The command name, its subcommand if the first argument looks like one,
 * and " *" when more follows; NULL when such a pattern would not match. */
static char *
suggest (WardenDecision          *d,
         const WardenCommandPart *part,
         const char              *text,
         gsize                    text_len)
{
  const char *name;
  gsize name_len, sub_len = 0, len;
  char *s;

  if (part->argv == NULL || part->argv[0] == NULL)
    return NULL;

  /* The name and subcommand must be how the text starts: then the text is
   * all of them, or the pattern is they and " *", whose only '*' is its last
   * byte (the name has none, nor has a subcommand), so it matches exactly
   * the texts that start with what comes before: warden_pattern_match()
   * would say the same. A name with a '*' makes no pattern: NULL as well.
   * One pass over the name does both: this runs for every part that asks. */
  name = part->argv[0];
  for (name_len = 0; name[name_len] != '\0'; name_len++)
    if (name_len >= text_len || text[name_len] != name[name_len] || name[name_len] == '*')
      return NULL;
  sub_len = subcommand_len (part->argv[1]);
  if (sub_len > 0)
    sub_len++;
  len = name_len + sub_len;
  if (text_len < len ||
      (sub_len > 0 && (text[name_len] != ' ' ||
                       memcmp (text + name_len + 1, part->argv[1], sub_len - 1) != 0)))
    return NULL;
  if (text_len != len && text[len] != ' ')
    return NULL;

  /* In the decision's own room: this runs for every part that asks. */
  s = warden_decision_alloc (d, len + 3);
  warden_copy (s, text, len);
  if (text_len == len)
    s[len] = '\0';
  else
    memcpy (s + len, " *", 3);
  return s;
}

/* Whether @name is one of @list's, which this runs for every part that asks:
 * @firsts (the list's first bytes, as a bit set of byte % 64) rules out most
 * names at once. */
static gboolean
name_in (const char * const *list,
         guint64             firsts,
         const char         *name)
{
  if (!(firsts & (G_GUINT64_CONSTANT (1) << ((guchar) name[0] % 64))))
    return FALSE;
  for (guint i = 0; list[i] != NULL; i++)
    if (list[i][0] == name[0] && strcmp (list[i], name) == 0)
      return TRUE;
  return FALSE;
}

#define FIRST_BIT(c) (G_GUINT64_CONSTANT (1) << ((guchar) (c) % 64))

/* A shell with no script operand and no -c: it reads its script from its
 * standard input (in a pipeline, whatever the command before it prints). */
static gboolean
reads_script_from_stdin (const WardenCommandPart *part)
{
  /* Besides the shells of the sh family: "busybox sh", fish, interpreters. */
  static const char * const readers[] = { "busybox", "fish", "python", "python3", "perl", "ruby",
                                          "node", "php", NULL };
  static const guint64 reader_firsts = FIRST_BIT ('b') | FIRST_BIT ('f') | FIRST_BIT ('p') |
                                       FIRST_BIT ('r') | FIRST_BIT ('n');
  const char *name;
  gboolean options_done = FALSE;
  guint first = 1;

  if (part->argv == NULL || part->argv[0] == NULL)
    return FALSE;
  name = strrchr (part->argv[0], '/') ? strrchr (part->argv[0], '/') + 1 : part->argv[0];
  if (!name_in (readers, reader_firsts, name) &&
      !(part->name_checked ? part->name_is_sh : warden_shell_name_is_sh (name)))
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

/* Programs that, run with no argument at all, start nothing and read no
 * script: they print, or filter standard input to standard output, or fail
 * for want of an operand. A word that may expand to nothing leaves such a
 * program bare ("echo $HOME" runs "echo"), and "X *" covers that. Shells,
 * interpreters (node, python3: a script from standard input), programs that
 * run others (xargs, find, env and every wrapper) and programs that read
 * commands from standard input (dc, ed, gdb, sqlite3, all with a "!") are not
 * here: bare, they run what nobody checked. A closed list: a program not on
 * it asks. Sorted (strcmp), for bsearch. */
static const char * const runs_nothing_bare[] = {
  "[", "b2sum", "base32", "base64", "basename", "basenc", "cat", "cksum", "cmp", "column",
  "comm", "cut", "date", "df", "diff", "dir", "dirname", "du", "echo", "egrep", "expand",
  "false", "fgrep", "file", "fmt", "fold", "grep", "groups", "head", "hexdump", "hostname",
  "id", "join", "ls", "md5sum", "nl", "nproc", "od", "paste", "printenv", "printf", "pwd",
  "readlink", "realpath", "rev", "sha1sum", "sha224sum", "sha256sum", "sha384sum",
  "sha512sum", "sort", "stat", "strings", "sum", "tac", "tail", "tee", "test", "tr", "tree",
  "true", "tty", "uname", "unexpand", "uniq", "vdir", "wc", "whoami", "xxd",
};

static int
compare_name (const void *key,
              const void *item)
{
  return strcmp (key, *(const char * const *) item);
}

gboolean
warden_policy_program_runs_nothing (const char *name)
{
  g_return_val_if_fail (name != NULL, FALSE);

  /* By its name, or in a system folder: ./cat is the workspace's own. */
  if (g_str_has_prefix (name, "/usr/bin/"))
    name += strlen ("/usr/bin/");
  else if (g_str_has_prefix (name, "/bin/"))
    name += strlen ("/bin/");
  if (strchr (name, '/') != NULL)
    return FALSE;
  return bsearch (name, runs_nothing_bare, G_N_ELEMENTS (runs_nothing_bare),
                  sizeof runs_nothing_bare[0], compare_name) != NULL;
}

/* The allow pattern that covers @part's program bare, or NULL: the part
 * runs the program with no argument (as written, or once the words that
 * may vanish did), the program runs nothing then, and a pattern matches it
 * followed by any arguments ("echo *" for "echo"). */
static const char *
bare_covered_by (WardenPolicy            *self,
                 const WardenCommandPart *part)
{
  const char *bare = part->min_text ? part->min_text : part->match_text ? NULL : part->text;
  char text[256];
  gsize len;

  if (bare == NULL || part->argv == NULL || part->argv[0] == NULL ||
      /* A text with an argument is more than the name (min_text may not be). */
      (bare == part->text && part->argv[1] != NULL) ||
      strcmp (bare, part->argv[0]) != 0 || !warden_policy_program_runs_nothing (bare))
    return NULL;
  len = strlen (bare);
  if (len + 2 >= sizeof text)
    return NULL;
  memcpy (text, bare, len);
  text[len++] = ' ';
  text[len++] = WARDEN_PATTERN_HOLE;
  return warden_pattern_set_lookup (self->allow, text, len, FALSE);
}

/* The deny pattern that @part's min_text matches, by the name as written or
 * by its last path component (/bin/rm is rm), or NULL. */
static const char *
min_text_rule (WardenPatternSet        *rules,
               const WardenCommandPart *part)
{
  const char *deny = warden_pattern_set_lookup (rules, part->min_text,
                                                strlen (part->min_text), FALSE);
  const char *name = part->argv ? part->argv[0] : NULL;
  const char *slash = name ? strrchr (name, '/') : NULL;

  if (deny == NULL && slash != NULL && slash[1] != '\0' &&
      g_str_has_prefix (part->min_text, name))
    {
      g_autofree char *base = g_strconcat (slash + 1, part->min_text + strlen (name), NULL);

      deny = warden_pattern_set_lookup (rules, base, strlen (base), FALSE);
    }
  return deny;
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
  const char *ask_rule;
  const char *may_ask_rule;
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
  const char *only_runs;
} Texts;

/* A text's directives, found once: the literal runs around them and which
 * argument each takes. */
typedef struct
{
  gboolean    printf_only;   /* a directive fill_keeping() does not do itself */
  guint       n_args;        /* 0 to 2 directives */
  guint       arg[2];        /* the argument (0 or 1) of each */
  const char *lit[3];        /* the literal text before each, and after the last */
  gsize       lit_len[3];
} Format;

#define N_TEXTS (sizeof (Texts) / sizeof (const char *))
static Format formats[N_TEXTS];
/* texts()'s own, once made: a text's Format is found by its place there. */
static const char * const *texts_base;

static void
format_compile (Format     *f,
                const char *format)
{
  const char *l = format, *pct;
  gboolean used[2] = { FALSE, FALSE };
  guint plain = 0;  /* %s directives so far: the next takes argument @plain */

  memset (f, 0, sizeof *f);
  while ((pct = strchr (l, '%')) != NULL)
    {
      guint arg;
      const char *next;

      if (pct[1] == 's' && plain < 2)
        {
          arg = plain++;
          next = pct + 2;
        }
      else if ((pct[1] == '1' || pct[1] == '2') && pct[2] == '$' && pct[3] == 's')
        {
          arg = pct[1] - '1';
          next = pct + 4;
        }
      else
        arg = 2;
      if (arg > 1 || used[arg] || f->n_args == 2)
        {
          f->printf_only = TRUE;
          return;
        }
      used[arg] = TRUE;
      f->lit[f->n_args] = l;
      f->lit_len[f->n_args] = pct - l;
      f->arg[f->n_args++] = arg;
      l = next;
    }
  f->lit[f->n_args] = l;
  f->lit_len[f->n_args] = strlen (l);
}

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
      t.ask_rule = _("“%s” matches the ask rule “%s”: it asks every time, whatever allows it");
      t.may_ask_rule = _("“%s” may run as a command that the ask rule “%s” names: it asks "
                         "every time, whatever allows it");
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
      t.only_runs = _("“%s” does nothing but start the commands after it, each checked on "
                      "its own");
      /* A broken translation must not put bytes that are not text on
       * screen: some are a decision's reason as they are
       * (set_result_static), the others are filled with valid text and
       * patterns, whose reasons are then not checked again
       * (warden_decision_take_part_derived). */
      {
        const char **all[] = {
          &t.allowed_by, &t.no_match, &t.denied_by, &t.ask_rule, &t.may_ask_rule,
          &t.may_be_denied, &t.spelling_may_be_denied, &t.files_may_be_denied,
          &t.args_may_be_denied, &t.allows_every, &t.asks_every, &t.redirections_only,
          &t.unparsed, &t.env, &t.empty, &t.all_match, &t.runs_stdin, &t.only_runs,
        };

        G_STATIC_ASSERT (G_N_ELEMENTS (all) == sizeof (Texts) / sizeof (const char *));
        for (guint i = 0; i < G_N_ELEMENTS (all); i++)
          if (!g_utf8_validate (*all[i], -1, NULL))
            *all[i] = g_utf8_make_valid (*all[i], -1);  /* kept for the process */
        for (guint i = 0; i < G_N_ELEMENTS (all); i++)
          format_compile (&formats[(const char **) all[i] - (const char **) &t], *all[i]);
        texts_base = (const char * const *) &t;
      }
      g_once_init_leave (&done, 1);
    }
  return &t;
}

/* The text *@field (of texts()) with its %s (or %1$s, %2$s) replaced by @a
 * and @b: a reason is made for every part of every decision, and
 * vasprintf() costs more than matching the patterns did; the text's
 * directives were found once (format_compile()). Any other directive goes to
 * g_strdup_printf(). With @keep, a copy of it follows the reason's NUL in the
 * same block, and @kept points at it: the part's pattern, which the decision
 * keeps there rather than in an allocation of its own. @a_len: @a's length,
 * or -1 when not known. */
static char *
fill_keeping_len (WardenDecision     *d,
                  const char * const *field,
                  const char         *a,
                  gssize              a_len,
                  const char         *b,
                  const char         *keep,
                  const char        **kept)
{
  /* @field is one of texts(), which the caller has called. */
  const Format *f = &formats[field - texts_base];
  const char *format = *field;
  const char *args[2] = { a, b };
  gsize lens[2] = { 0, 0 };
  gsize keep_len = keep ? strlen (keep) + 1 : 0;
  gsize room = f->lit_len[f->n_args] + 1;
  char *out;
  char *o;

  if (f->printf_only)
    goto use_printf;
  /* Most texts have one directive: "allowed by “%s”", "no allow pattern
   * matches “%s”". */
  if (f->n_args == 1 && args[f->arg[0]] != NULL)
    {
      const char *arg = args[f->arg[0]];
      gsize len = arg == keep ? keep_len - 1
                  : arg == a && a_len >= 0 ? (gsize) a_len : strlen (arg);

      room += f->lit_len[0] + len;
      o = out = warden_decision_alloc (d, room + keep_len);
      warden_copy (o, f->lit[0], f->lit_len[0]);
      o += f->lit_len[0];
      warden_copy (o, arg, len);
      o += len;
      warden_copy (o, f->lit[1], f->lit_len[1]);
      o[f->lit_len[1]] = '\0';
      if (keep != NULL)
        *kept = warden_copy (out + room, keep, keep_len);
      return out;
    }
  for (guint k = 0; k < f->n_args; k++)
    {
      if (args[f->arg[k]] == NULL)
        goto use_printf;
      /* The pattern kept is often the argument too ("allowed by “%s”"). */
      lens[f->arg[k]] = args[f->arg[k]] == keep ? keep_len - 1
                        : args[f->arg[k]] == a && a_len >= 0 ? (gsize) a_len
                        : strlen (args[f->arg[k]]);
      room += f->lit_len[k] + lens[f->arg[k]];
    }
  o = out = warden_decision_alloc (d, room + keep_len);
  for (guint k = 0; k < f->n_args; k++)
    {
      warden_copy (o, f->lit[k], f->lit_len[k]);
      o += f->lit_len[k];
      warden_copy (o, args[f->arg[k]], lens[f->arg[k]]);
      o += lens[f->arg[k]];
    }
  warden_copy (o, f->lit[f->n_args], f->lit_len[f->n_args]);
  o[f->lit_len[f->n_args]] = '\0';
  if (keep != NULL)
    *kept = warden_copy (out + room, keep, keep_len);
  return out;

use_printf:
  out = g_strdup_printf (format, a, b);
  if (keep != NULL)
    {
      room = strlen (out) + 1;
      out = g_realloc (out, room + keep_len);
      *kept = memcpy (out + room, keep, keep_len);
    }
  return out;
}

static inline char *
fill_keeping (WardenDecision     *d,
              const char * const *field,
              const char         *a,
              const char         *b,
              const char         *keep,
              const char        **kept)
{
  return fill_keeping_len (d, field, a, -1, b, keep, kept);
}

static char *
fill (WardenDecision     *d,
      const char * const *field,
      const char         *a,
      const char         *b)
{
  return fill_keeping_len (d, field, a, -1, b, NULL, NULL);
}

/* How a rule list (deny or ask) holds a part. */
typedef enum
{
  RULE_NONE,
  RULE_MATCHES,     /* the text as it runs, or with the name's basename (/bin/rm is rm) */
  RULE_MAY_FILL,    /* some filling of its holes: xargs's arguments, find's file names */
  RULE_MAY_EXPAND,  /* some expansion of its words: "rm -rf $d" */
  RULE_MAY_SPELL,   /* some reading of its options: "tree -ao x" may hold "-o" */
} RuleHit;

/* The first pattern of @set that holds @part, and how; deny patterns and ask
 * rules see the same spellings of a command. @set holds patterns (the caller
 * looks at has_deny or has_ask). */
static RuleHit
lookup_rule (WardenPatternSet        *set,
             const WardenCommandPart *part,
             const char              *text,
             gsize                    text_len,
             const char             **pattern)
{
  /* Held only when every filling of the holes matches: "rm {}" under "rm *". */
  *pattern = warden_pattern_set_lookup (set, text, text_len, FALSE);
  if (*pattern == NULL && part->base_text != NULL)
    *pattern = warden_pattern_set_lookup (set, part->base_text, strlen (part->base_text), FALSE);
  if (*pattern != NULL)
    return RULE_MATCHES;

  if (part->match_text != NULL || part->base_text != NULL)
    {
      *pattern = warden_pattern_set_lookup (set, text, text_len, TRUE);
      if (*pattern == NULL && part->base_text != NULL)
        *pattern = warden_pattern_set_lookup (set, part->base_text, strlen (part->base_text),
                                              TRUE);
      if (*pattern != NULL)
        return RULE_MAY_FILL;
    }

  if (part->expanded_text != NULL)
    {
      *pattern = warden_pattern_set_lookup (set, part->expanded_text,
                                            strlen (part->expanded_text), TRUE);
      if (*pattern != NULL)
        return RULE_MAY_EXPAND;
    }
  return RULE_NONE;
}

/* The first pattern of @set that holds @part in another spelling of its
 * options (warden-spelling.h): "--opt=value" read as "--opt value" holds as
 * a match does; the options read as a set only may. */
static RuleHit
lookup_spelling (WardenSpellingSet       *set,
                 const WardenCommandPart *part,
                 const char              *text,
                 gsize                    text_len,
                 const char             **pattern)
{
  /* Most parts' commands are no pattern's: one test for both lookups. */
  gboolean text_may = warden_spelling_set_may_hold (set, text, text_len);

  *pattern = text_may ? warden_spelling_set_lookup (set, text, text_len) : NULL;
  if (*pattern == NULL && part->base_text != NULL)
    *pattern = warden_spelling_set_lookup (set, part->base_text, strlen (part->base_text));
  if (*pattern != NULL)
    return RULE_MATCHES;

  *pattern = text_may ? warden_spelling_set_lookup_any (set, text, text_len) : NULL;
  if (*pattern == NULL && part->expanded_text != NULL)
    *pattern = warden_spelling_set_lookup_any (set, part->expanded_text,
                                               strlen (part->expanded_text));
  return *pattern != NULL ? RULE_MAY_SPELL : RULE_NONE;
}

/* Judges one part; returns its verdict and fills @reason, @pattern and
 * @suggestion (the last two may stay NULL). A pattern is a copy that lies in
 * the reason's block (fill_keeping()). Clears @derived when the reason holds
 * more than the part's words, patterns and the texts above. */
static WardenVerdict
judge_part (WardenPolicy            *self,
            WardenDecision          *d,
            const WardenCommandPart *part,
            const char             **pattern,
            char                   **reason,
            char                   **suggestion,
            gboolean                *derived)
{
  const Texts *t = texts ();
  const char *text = part->match_text ? part->match_text : part->text;
  gsize text_len = part->match_text == NULL && part->text_in_argv ? part->text_len
                                                                   : strlen (text);
  const char *allow = NULL;
  const char *rule = NULL;
  gboolean min_unmatched = FALSE;
  gboolean has_deny = self->has_deny;
  gboolean has_ask = self->has_ask;

  switch (has_deny ? lookup_rule (self->deny, part, text, text_len, &rule) : RULE_NONE)
    {
    case RULE_MATCHES:
      *reason = fill_keeping (d, &t->denied_by, part->text, rule, rule, pattern);
      return WARDEN_VERDICT_DENY;

    /* "rm {}" under "rm -rf /…": some file names would make it match and
     * others not, and they are only known when it runs. Denying would name a
     * command that may never run; allowing could run one the profile
     * refuses: it asks, in every mode. */
    case RULE_MAY_FILL:
      if (g_strcmp0 (part->runner, "find") == 0)
        *reason = fill (d, &t->files_may_be_denied, rule, NULL);
      else if (part->match_text != NULL)
        *reason = fill (d, &t->args_may_be_denied, rule, NULL);
      else
        *reason = fill (d, &t->may_be_denied, part->text, rule);
      return WARDEN_VERDICT_ASK;

    /* "rm -rf $d" is not what a deny pattern for "rm -rf /" names as
     * written, but $d may be "/": nobody can know before it runs. */
    case RULE_MAY_EXPAND:
      *reason = fill (d, &t->may_be_denied, part->text, rule);
      return WARDEN_VERDICT_ASK;

    case RULE_MAY_SPELL:
    case RULE_NONE:
    default:
      break;
    }

  /* "git diff --output=x" is "git diff --output x" to every program, while
   * "tree -ao out.txt ." may be "tree -a -o out.txt .": without the
   * program's option table nobody can say, so that asks, in every mode. */
  /* (The spelling sets hold the same patterns as the lists: none, no lookup.) */
  switch (has_deny ? lookup_spelling (self->deny_spelling, part, text, text_len, &rule)
                   : RULE_NONE)
    {
    case RULE_MATCHES:
      *reason = fill_keeping (d, &t->denied_by, part->text, rule, rule, pattern);
      return WARDEN_VERDICT_DENY;

    case RULE_MAY_SPELL:
      *reason = fill (d, &t->spelling_may_be_denied, part->text, rule);
      return WARDEN_VERDICT_ASK;

    default:
      break;
    }

  /* The profile's ask rules: whatever allows it, in every mode, and with no
   * suggestion, as no allow pattern can make it run without asking. */
  switch (has_ask ? lookup_rule (self->ask, part, text, text_len, &rule) : RULE_NONE)
    {
    case RULE_MATCHES:
      *reason = fill_keeping (d, &t->ask_rule, part->text, rule, rule, pattern);
      return WARDEN_VERDICT_ASK;

    case RULE_MAY_FILL:
    case RULE_MAY_EXPAND:
      *reason = fill_keeping (d, &t->may_ask_rule, part->text, rule, rule, pattern);
      return WARDEN_VERDICT_ASK;

    case RULE_MAY_SPELL:
    case RULE_NONE:
    default:
      break;
    }
  switch (has_ask ? lookup_spelling (self->ask_spelling, part, text, text_len, &rule)
                  : RULE_NONE)
    {
    case RULE_MATCHES:
      *reason = fill_keeping (d, &t->ask_rule, part->text, rule, rule, pattern);
      return WARDEN_VERDICT_ASK;

    case RULE_MAY_SPELL:
      *reason = fill_keeping (d, &t->may_ask_rule, part->text, rule, rule, pattern);
      return WARDEN_VERDICT_ASK;

    default:
      break;
    }

  /* "git push $r" runs "git push" when $r is empty, which a deny pattern
   * may name though an allow pattern covers the line: it asks, in every mode. */
  if (has_deny && part->min_text != NULL && (rule = min_text_rule (self->deny, part)) != NULL)
    {
      *reason = fill (d, &t->may_be_denied, part->text, rule);
      return WARDEN_VERDICT_ASK;
    }
  if (has_ask && part->min_text != NULL && (rule = min_text_rule (self->ask, part)) != NULL)
    {
      *reason = fill_keeping (d, &t->may_ask_rule, part->text, rule, rule, pattern);
      return WARDEN_VERDICT_ASK;
    }

  if (part->kind != WARDEN_PART_REDIRECTION)
    allow = warden_pattern_set_lookup (self->allow, text, text_len, FALSE);
  if (allow == NULL && part->kind == WARDEN_PART_COMMAND && part->min_text == NULL)
    allow = bare_covered_by (self, part);
  /* "node $f" runs "node" when $f is empty: that command must be allowed
   * too, or be one that "X *" covers bare ("echo $f" under "echo *"). */
  if (allow != NULL && part->min_text != NULL &&
      warden_pattern_set_lookup (self->allow, part->min_text, strlen (part->min_text),
                                 FALSE) == NULL &&
      bare_covered_by (self, part) == NULL)
    {
      allow = NULL;
      min_unmatched = TRUE;
    }

  if (part->force_ask != NULL && !(part->liftable && allow != NULL) &&
      !(part->guard_sees && self->check_nested))
    {
      /* The parser's words for it may quote anything. */
      *derived = FALSE;
      *reason = g_strdup (part->force_ask);
      if (!part->no_suggestion && self->mode == WARDEN_MODE_ALLOWLIST)
        *suggestion = suggest (d, part, text, text_len);
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
      *reason = fill_keeping (d, &t->allowed_by, allow, NULL, allow, pattern);
      return WARDEN_VERDICT_ALLOW;
    }
  if (part->only_runs)
    {
      *reason = fill (d, &t->only_runs, part->argv[0], NULL);
      return WARDEN_VERDICT_ALLOW;
    }

  /* "sh" would allow every script a download pipes into it. */
  if (reads_script_from_stdin (part))
    {
      *reason = fill (d, &t->runs_stdin, part->text, NULL);
      return WARDEN_VERDICT_ASK;
    }
  /* The part's text's length is known when it is @text. */
  *reason = min_unmatched ? fill (d, &t->no_match, part->min_text, NULL)
            : fill_keeping_len (d, &t->no_match, part->text,
                                text == part->text ? (gssize) text_len : -1, NULL, NULL, NULL);
  /* A pattern lifts a script file's ask only while the guard runs. */
  if (!part->no_suggestion || (part->guard_sees && self->check_nested))
    *suggestion = min_unmatched ? g_strdup (part->min_text) : suggest (d, part, text, text_len);
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
  /* NULL is WARDEN_SANDBOX_WORKSPACE, which the parser need not normalize. */
  options.workspace = context ? context->workspace : NULL;
  options.host_workspace = context ? context->host_workspace : NULL;
  options.root_cache = self->roots;
  if (context && context->cwd)
    {
      g_autofree char *workspace = g_canonicalize_filename (options.workspace != NULL
                                                            ? options.workspace
                                                            : WARDEN_SANDBOX_WORKSPACE, "/");
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
      gboolean derived = TRUE;
      WardenVerdict verdict = judge_part (self, decision, part, &pattern, &reason, &suggestion,
                                          &derived);

      if (verdict == WARDEN_VERDICT_DENY && first_deny < 0)
        first_deny = i;
      if (verdict == WARDEN_VERDICT_ASK && first_ask < 0)
        first_ask = i;
      if (derived)
        warden_decision_take_part_derived (decision, g_steal_pointer (&part->text), part->origin,
                                           verdict, pattern, reason, suggestion,
                                           pattern != NULL, parse->texts_valid,
                                           part->text_in_argv);
      else
        warden_decision_take_part (decision,
                                   part->text_in_argv ? g_strdup (part->text)
                                                      : g_steal_pointer (&part->text),
                                   part->origin, verdict, pattern, reason, suggestion);
      /* A text in the argv's block goes with the argv. */
      part->text = NULL;
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
      warden_decision_set_line_asks (decision);
    }
  else if (parse->ask != NULL)
    {
      warden_decision_set_result (decision, WARDEN_VERDICT_ASK, parse->ask);
      warden_decision_set_line_asks (decision);
    }
  else if (env_reason != NULL)
    {
      warden_decision_set_result (decision, WARDEN_VERDICT_ASK, env_reason);
      warden_decision_set_line_asks (decision);
    }
  else if (first_ask >= 0)
    warden_decision_set_result (decision, WARDEN_VERDICT_ASK, REASON_OF (first_ask));
  else if (parse->parts->len == 0 && self->mode == WARDEN_MODE_APPROVAL_ALWAYS)
    warden_decision_set_result_static (decision, WARDEN_VERDICT_ASK, t->asks_every);
  else if (parse->parts->len == 0)
    warden_decision_set_result_static (decision, WARDEN_VERDICT_ALLOW, t->empty);
  else if (self->mode == WARDEN_MODE_ALLOW_ALWAYS)
    warden_decision_set_result_static (decision, WARDEN_VERDICT_ALLOW, t->allows_every);
  else
    warden_decision_set_result_static (decision, WARDEN_VERDICT_ALLOW, t->all_match);
#undef REASON_OF

  return decision;
}

