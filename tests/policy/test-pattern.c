/* test-pattern.c: glob patterns and pattern sets
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "policy/warden-pattern.h"
#include "policy/warden-policy-types.h"
#include "policy/warden-policy.h"
#include "policy/warden-spelling.h"

typedef struct
{
  const char *pattern;
  const char *text;
  gboolean    match;
} MatchCase;

/* The seed's glob: '*' is any run, everything else literal, anchored. */
static const MatchCase match_cases[] = {
  { "ls *", "ls -la", TRUE },
  { "ls *", "ls", FALSE },
  { "ls", "ls", TRUE },
  { "ls", "ls -la", FALSE },
  { "ls *", "ls ", TRUE },
  { "node *", "node app.js", TRUE },
  { "node *", "node_modules/.bin/x", FALSE },
  { "*", "anything at all; really", TRUE },
  { "*", "", TRUE },
  { "git status", "git status", TRUE },
  { "git status", "git  status", FALSE },
  { "npm run test *", "npm run test --watch", TRUE },
  { "npm run test *", "npm run test", FALSE },
  { "npm run test *", "npm run tests x", FALSE },
  { "*.py", "python3 x.py", TRUE },
  { "rm -rf /*", "rm -rf /", TRUE },
  { "rm -rf /*", "rm -rf /home/me", TRUE },
  { "rm -rf /*", "rm -rf ./build", FALSE },
  { "a*b*c", "abc", TRUE },
  { "a*b*c", "a-b-x-c", TRUE },
  { "a*b*c", "a-c-b", FALSE },
  { "**", "x", TRUE },
  { "?", "?", TRUE },
  { "?", "x", FALSE },
  { "[ab]", "a", FALSE },
  { "[ab]", "[ab]", TRUE },
  { "git log *", "git log --oneline -5", TRUE },
  { "echo *", "echo", FALSE },
  { "LS *", "ls x", FALSE },
  { "cat *", "cat\ta", FALSE },
  { "x*", "xyz", TRUE },
  { "*z", "xyz", TRUE },
  { "*y*", "xyz", TRUE },
  { "*q*", "xyz", FALSE },
  /* A last '*' takes the rest at once; the ones before it still backtrack. */
  { "a*b*", "a-x-b-y", TRUE },
  { "a*b*", "a-x-c-y", FALSE },
  { "a*b *", "a-b-b x", TRUE },
  { "a*b *", "a-b-bx", FALSE },
  { "*b*", "b", TRUE },
  { "rm -rf /*", "rm -rf", FALSE },
};

static void
test_match (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (match_cases); i++)
    {
      const MatchCase *c = &match_cases[i];
      gboolean got = warden_pattern_match (c->pattern, c->text, strlen (c->text));

      if (got != c->match)
        g_error ("pattern “%s” on “%s”: expected %s", c->pattern, c->text,
                 c->match ? "a match" : "no match");
      /* Without holes, "some filling" and "every filling" agree. */
      g_assert_cmpint (warden_pattern_match_any (c->pattern, c->text, strlen (c->text)), ==, got);
    }
}

/* The table "some filling matches" fills, written plainly: a hole stands
 * for any run of the pattern's literals. warden_pattern_match_any() must
 * answer as this does, with its shortcuts. */
static gboolean
reference_match_any (const char *pattern,
                     const char *text,
                     gsize       n)
{
  gsize m = strlen (pattern);
  g_autofree gboolean *cur = g_new0 (gboolean, m + 1);
  g_autofree gboolean *next = g_new0 (gboolean, m + 1);

  cur[0] = TRUE;
  for (gsize t = 0; ; t++)
    {
      gssize first = -1;

      for (gsize i = 0; i < m; i++)
        if (cur[i] && pattern[i] == '*')
          cur[i + 1] = TRUE;
      if (t == n)
        break;
      memset (next, 0, (m + 1) * sizeof (gboolean));
      for (gsize i = 0; i <= m; i++)
        {
          if (!cur[i])
            continue;
          if (first < 0)
            first = i;
          if (i < m && pattern[i] == '*')
            next[i] = TRUE;
          else if (i < m && pattern[i] == text[t])
            next[i + 1] = TRUE;
        }
      if (first < 0)
        return FALSE;
      if (text[t] == '\001')
        for (gsize j = first; j <= m; j++)
          next[j] = TRUE;
      memcpy (cur, next, (m + 1) * sizeof (gboolean));
    }
  return cur[m];
}

static void
test_holes_agree (void)
{
  static const char pattern_bytes[] = "ab *";
  static const char text_bytes[] = "ab \001";
  GRand *rand = g_rand_new_with_seed (26);

  for (guint round = 0; round < 30000; round++)
    {
      /* Some patterns longer than the 255 bytes kept on the stack. */
      gsize pn = round % 100 == 0 ? 300 : (gsize) g_rand_int_range (rand, 0, 9);
      gsize tn = round % 100 == 0 ? 310 : (gsize) g_rand_int_range (rand, 0, 9);
      g_autofree char *pattern = g_malloc (pn + 1);
      g_autofree char *text = g_malloc (tn + 1);

      for (gsize i = 0; i < pn; i++)
        pattern[i] = pattern_bytes[g_rand_int_range (rand, 0, 4)];
      pattern[pn] = '\0';
      for (gsize i = 0; i < tn; i++)
        text[i] = text_bytes[g_rand_int_range (rand, 0, 4)];
      text[tn] = '\0';
      if (warden_pattern_match_any (pattern, text, tn) != reference_match_any (pattern, text, tn))
        g_error ("pattern “%s” on “%s” (\\001 a hole): expected %s", pattern, text,
                 reference_match_any (pattern, text, tn) ? "a match" : "no match");
    }
  g_rand_free (rand);
}

/* A hole is text the sandbox fills in later (xargs arguments, find's {}). */
static void
test_holes (void)
{
  const char *rm_hole = "rm \001";        /* xargs rm */
  const char *rm_rf_hole = "rm -rf \001";  /* find -exec rm -rf {} */

  /* Allow needs every filling to match. */
  g_assert_true (warden_pattern_match ("rm *", rm_hole, strlen (rm_hole)));
  g_assert_false (warden_pattern_match ("rm", rm_hole, strlen (rm_hole)));
  g_assert_false (warden_pattern_match ("rm x", rm_hole, strlen (rm_hole)));
  g_assert_false (warden_pattern_match ("rm * *", rm_hole, strlen (rm_hole)));
  g_assert_true (warden_pattern_match ("*", rm_hole, strlen (rm_hole)));
  g_assert_false (warden_pattern_match ("rm *.txt", rm_hole, strlen (rm_hole)));

  /* Deny needs one filling to match. */
  g_assert_true (warden_pattern_match_any ("rm -rf /*", rm_rf_hole, strlen (rm_rf_hole)));
  g_assert_true (warden_pattern_match_any ("rm -rf *", rm_rf_hole, strlen (rm_rf_hole)));
  g_assert_true (warden_pattern_match_any ("rm -rf /home", rm_rf_hole, strlen (rm_rf_hole)));
  g_assert_true (warden_pattern_match_any ("rm x", rm_hole, strlen (rm_hole)));
  g_assert_false (warden_pattern_match_any ("rmdir *", rm_hole, strlen (rm_hole)));
  g_assert_false (warden_pattern_match_any ("rm -f *", rm_rf_hole, strlen (rm_rf_hole)));
  g_assert_false (warden_pattern_match_any ("rm", rm_hole, strlen (rm_hole)));
}

static void
test_validate (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *long_pattern = g_strnfill (WARDEN_PATTERN_MAX_LENGTH + 1, 'a');

  g_assert_true (warden_pattern_validate ("npm run test *", NULL));
  g_assert_true (warden_pattern_validate ("*", NULL));
  g_assert_true (warden_pattern_validate ("écho *", NULL));

  g_assert_false (warden_pattern_validate ("", &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (warden_pattern_validate ("ls\001", &error));
  g_assert_nonnull (strstr (error->message, "control character"));
  g_clear_error (&error);
  g_assert_false (warden_pattern_validate ("ls\n", NULL));
  g_assert_false (warden_pattern_validate ("ls \xff", NULL));
  g_assert_false (warden_pattern_validate (long_pattern, NULL));
}

static void
test_set_order_and_index (void)
{
  g_autoptr(WardenPatternSet) set = warden_pattern_set_new ();
  const char *text = "git status --short";

  warden_pattern_set_add (set, "ls");
  warden_pattern_set_add (set, "git st*");     /* first word holds no star: indexed */
  warden_pattern_set_add (set, "*--short");    /* unindexed */
  warden_pattern_set_add (set, "git status *");
  warden_pattern_set_add (set, "gi* *");

  g_assert_cmpuint (warden_pattern_set_get_size (set), ==, 5);
  /* The first pattern added wins, wherever it is kept. */
  g_assert_cmpstr (warden_pattern_set_lookup (set, text, strlen (text), FALSE), ==, "git st*");
  g_assert_cmpstr (warden_pattern_set_lookup (set, "ls", 2, FALSE), ==, "ls");
  g_assert_null (warden_pattern_set_lookup (set, "lsblk", 5, FALSE));
  g_assert_cmpstr (warden_pattern_set_lookup (set, "gist x", 6, FALSE), ==, "gi* *");
  g_assert_null (warden_pattern_set_lookup (set, "cat x", 5, FALSE));
}

/* A set skips its index for a text whose first byte starts none of its
 * keys: the unindexed patterns still answer, and every byte value and the
 * empty first word (a text that starts with a space) are keys like others. */
static void
test_set_first_byte (void)
{
  g_autoptr(WardenPatternSet) set = warden_pattern_set_new ();
  const char *high = "\xc3\xa9" "cho x";   /* écho */

  warden_pattern_set_add (set, "rm -rf /*");
  warden_pattern_set_add (set, "*:(){*");
  warden_pattern_set_add (set, "\xc3\xa9" "cho *");
  warden_pattern_set_add (set, " x");

  g_assert_cmpstr (warden_pattern_set_lookup (set, "rm -rf /", 8, FALSE), ==, "rm -rf /*");
  g_assert_null (warden_pattern_set_lookup (set, "ls -la", 6, FALSE));
  g_assert_cmpstr (warden_pattern_set_lookup (set, "f :(){ f; }", 11, FALSE), ==, "*:(){*");
  g_assert_cmpstr (warden_pattern_set_lookup (set, high, strlen (high), FALSE), ==,
                   "\xc3\xa9" "cho *");
  g_assert_cmpstr (warden_pattern_set_lookup (set, " x", 2, FALSE), ==, " x");
  g_assert_null (warden_pattern_set_lookup (set, "x", 1, FALSE));
  /* A text that is empty, and a set whose only patterns are unindexed. */
  g_assert_null (warden_pattern_set_lookup (set, "", 0, FALSE));
  {
    g_autoptr(WardenPatternSet) wild = warden_pattern_set_new ();

    warden_pattern_set_add (wild, "*");
    g_assert_cmpstr (warden_pattern_set_lookup (wild, "anything", 8, FALSE), ==, "*");
    g_assert_cmpstr (warden_pattern_set_lookup (wild, "", 0, FALSE), ==, "*");
  }
}

/* Patterns whose first word holds a '*' are tried only for a text that
 * starts with their first byte: one of another first byte, a high byte, a
 * hole where any filling counts, and a pattern that starts with '*' among
 * them still get the answers a try of every pattern gives. */
static void
test_set_wild_first_byte (void)
{
  g_autoptr(WardenPatternSet) set = warden_pattern_set_new ();
  const char hole_text[] = { WARDEN_PATTERN_HOLE, ' ', '/', 'd', 'e', 'v', '\0' };
  const char hole_inside[] = { 'm', 'k', WARDEN_PATTERN_HOLE, ' ', 'x', '\0' };

  warden_pattern_set_add (set, "mkfs*");
  warden_pattern_set_add (set, "\xc3\xa9" "c*o x");
  warden_pattern_set_add (set, "dd *of=/dev/sd*");

  g_assert_cmpstr (warden_pattern_set_lookup (set, "mkfs.ext4 /dev/sda", 18, FALSE), ==, "mkfs*");
  g_assert_null (warden_pattern_set_lookup (set, "nkfs.ext4", 9, FALSE));
  g_assert_null (warden_pattern_set_lookup (set, "m", 1, FALSE));
  g_assert_null (warden_pattern_set_lookup (set, "", 0, FALSE));
  g_assert_null (warden_pattern_set_lookup (set, "", 0, TRUE));
  g_assert_cmpstr (warden_pattern_set_lookup (set, "\xc3\xa9" "cho x", 7, FALSE), ==,
                   "\xc3\xa9" "c*o x");
  /* A hole first may be any command: every pattern may match. */
  g_assert_cmpstr (warden_pattern_set_lookup (set, hole_text, strlen (hole_text), TRUE), ==,
                   "mkfs*");
  g_assert_null (warden_pattern_set_lookup (set, hole_text, strlen (hole_text), FALSE));
  g_assert_cmpstr (warden_pattern_set_lookup (set, hole_inside, strlen (hole_inside), TRUE), ==,
                   "mkfs*");
  g_assert_null (warden_pattern_set_lookup (set, hole_inside + 1, strlen (hole_inside) - 1, TRUE));

  warden_pattern_set_add (set, "*--force*");
  g_assert_cmpstr (warden_pattern_set_lookup (set, "git push --force", 16, FALSE), ==,
                   "*--force*");
  g_assert_cmpstr (warden_pattern_set_lookup (set, "mkfs --force", 12, FALSE), ==, "mkfs*");
}

/* Many first words: the index grows while patterns are added, and each
 * still finds its own, the first added winning. */
static void
test_set_many_words (void)
{
  g_autoptr(WardenPatternSet) set = warden_pattern_set_new ();

  for (guint i = 0; i < 300; i++)
    {
      g_autofree char *exact = g_strdup_printf ("cmd%u sub", i);
      g_autofree char *any = g_strdup_printf ("cmd%u *", i);

      warden_pattern_set_add (set, exact);
      warden_pattern_set_add (set, any);
    }
  g_assert_cmpuint (warden_pattern_set_get_size (set), ==, 600);
  for (guint i = 0; i < 300; i++)
    {
      g_autofree char *sub = g_strdup_printf ("cmd%u sub", i);
      g_autofree char *other = g_strdup_printf ("cmd%u other", i);
      g_autofree char *bare = g_strdup_printf ("cmd%u", i);
      g_autofree char *any = g_strdup_printf ("cmd%u *", i);

      g_assert_cmpstr (warden_pattern_set_lookup (set, sub, strlen (sub), FALSE), ==, sub);
      g_assert_cmpstr (warden_pattern_set_lookup (set, other, strlen (other), FALSE), ==, any);
      g_assert_null (warden_pattern_set_lookup (set, bare, strlen (bare), FALSE));
    }
  g_assert_null (warden_pattern_set_lookup (set, "cmd300 sub", 10, FALSE));
  g_assert_null (warden_pattern_set_lookup (set, "cmd1x sub", 9, FALSE));
}

static void
test_set_long_first_word (void)
{
  g_autoptr(WardenPatternSet) set = warden_pattern_set_new ();
  g_autofree char *word = g_strnfill (300, 'x');
  g_autofree char *pattern = g_strconcat (word, " *", NULL);
  g_autofree char *text = g_strconcat (word, " arg", NULL);

  warden_pattern_set_add (set, pattern);
  g_assert_cmpstr (warden_pattern_set_lookup (set, text, strlen (text), FALSE), ==, pattern);
}

/* Flagged patterns: the command line they look like is split into commands,
 * so the pattern does not allow it. Unflagged ones are single commands. */
static void
test_separator_problem (void)
{
  static const char * const flagged[] = {
    "npm test && npm run build", "make || true", "cd src; make", "cat x | sh", "ls\nrm x",
    "git status;",
  };
  static const char * const fine[] = {
    "ls *", "node app.js > /dev/null 2>&1", "echo hi >| out.txt", "npm run *", "*",
  };

  for (guint i = 0; i < G_N_ELEMENTS (flagged); i++)
    {
      const char * const allow[] = { flagged[i], NULL };
      g_autoptr(WardenPolicy) policy = warden_policy_new (WARDEN_MODE_ALLOWLIST, allow, NULL);
      g_autoptr(WardenDecision) decision = warden_policy_check (policy, flagged[i], -1, NULL);
      g_autofree char *problem = warden_pattern_dup_separator_problem (flagged[i]);

      g_assert_nonnull (problem);
      g_assert_cmpint (warden_decision_get_verdict (decision), !=, WARDEN_VERDICT_ALLOW);
    }
  for (guint i = 0; i < G_N_ELEMENTS (fine); i++)
    {
      g_autofree char *problem = warden_pattern_dup_separator_problem (fine[i]);

      g_assert_null (problem);
    }
}

/* Deny patterns against other spellings of options: "=" denies, the set
 * reading may. The first pattern in the order added wins. */
static void
test_spelling (void)
{
  static const char * const patterns[] = {
    "tree *-o *", "rm -rf /*", "git push --force*", "git diff *--output=*", "find *-delete*",
    "*> /dev/sd*", "/usr/bin/dd *of=/dev/sd*", "git fetch *", NULL
  };
  static const struct { const char *text; const char *denied; const char *maybe; } cases[] = {
    { "git diff --output x", "git diff *--output=*", "git diff *--output=*" },
    { "git diff --output=x", "git diff *--output=*", "git diff *--output=*" },
    { "tree -ao out.txt .", NULL, "tree *-o *" },
    { "/usr/bin/tree -a -oout.txt", NULL, "tree *-o *" },
    { "tree -aL 2", NULL, NULL },
    { "rm / -rf", NULL, "rm -rf /*" },
    { "rm -r -f -v -- /", NULL, "rm -rf /*" },
    { "rm -rf build dist", NULL, NULL },
    { "rm -rf \x01", NULL, "rm -rf /*" },
    { "rm -f ./\x01", NULL, NULL },
    { "git -c a=b push --forc", NULL, "git push --force*" },
    { "git push --follow-tags", NULL, NULL },
    { "find . -type d -newer x -ls", NULL, NULL },
    { "find . -deleted", NULL, "find *-delete*" },
    { "ls -la > /dev/sda", NULL, NULL },       /* a wild first word: literal matching only */
    { "/usr/bin/dd --x of=/dev/sda", NULL, "/usr/bin/dd *of=/dev/sd*" },
    /* No option on either side: no other spelling, the glob alone decides. */
    { "/usr/bin/dd of=/dev/sda if=x", NULL, NULL },
    { "git fetch", NULL, NULL },
    { "git -v fetch", NULL, "git fetch *" },
    { "dd of=/dev/sda", NULL, NULL },          /* the pattern names /usr/bin/dd only */
  };
  g_autoptr(WardenSpellingSet) set = warden_spelling_set_new ();
  g_autoptr(GString) long_text = g_string_new ("rm");

  for (guint i = 0; patterns[i] != NULL; i++)
    warden_spelling_set_add (set, patterns[i]);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strcompress (cases[i].text);

      g_test_message ("%s", cases[i].text);
      g_assert_cmpstr (warden_spelling_set_lookup (set, text, strlen (text)), ==,
                       cases[i].denied);
      g_assert_cmpstr (warden_spelling_set_lookup_any (set, text, strlen (text)), ==,
                       cases[i].maybe);
      if (cases[i].denied != NULL || cases[i].maybe != NULL)
        g_assert_true (warden_spelling_set_may_hold (set, text, strlen (text)));
    }

  /* Past the words and options a frame holds, the answer is the same. */
  for (guint i = 0; i < 200; i++)
    g_string_append_printf (long_text, " -v%u f%u", i, i);
  g_string_append (long_text, " -rf /");
  g_assert_cmpstr (warden_spelling_set_lookup_any (set, long_text->str, long_text->len), ==,
                   "rm -rf /*");
  g_string_truncate (long_text, long_text->len - strlen (" -rf /"));
  g_assert_null (warden_spelling_set_lookup_any (set, long_text->str, long_text->len));
}

/* warden_spelling_set_may_hold() says no only where both lookups find
 * nothing: a text is looked up no further then. The seed's deny list, whose
 * wild patterns do not start with '*' and none of which reads "=" as a
 * space itself. */
static void
test_spelling_may_hold (void)
{
  static const char * const patterns[] = {
    "rm -rf /*", "rm -fr /*", "rm -rf ~*", "rm -rf $HOME*", "mkfs*", "dd *of=/dev/sd*",
    ":(){*", NULL
  };
  static const struct { const char *text; gboolean may; } cases[] = {
    { "rm / -rf", TRUE },
    { "/bin/rm -r -f /", TRUE },           /* by the name's last component */
    { "./x/rm -rf /", TRUE },
    { "rm x", TRUE },
    { "dd if=x of=/dev/sda", TRUE },
    /* A wild pattern holds a text of its first byte only in the "=" reading. */
    { "mkfs.ext4 --label=x /dev/sda", TRUE },
    { ":(){ :|:& };:", FALSE },
    { "mkfs.ext4 /dev/sda", FALSE },
    { "rmdir x", FALSE },                  /* no name of that length */
    { "git push --force=yes", FALSE },
    { "ls -la /", FALSE },
    { "cat rm -rf /", FALSE },             /* rm is an argument here */
    { "node --x=/bin/rm", FALSE },
    { "\x01 -rf /", FALSE },
    { " rm -rf /", FALSE },
  };
  g_autoptr(WardenSpellingSet) set = warden_spelling_set_new ();
  g_autoptr(WardenSpellingSet) empty = warden_spelling_set_new ();

  for (guint i = 0; patterns[i] != NULL; i++)
    warden_spelling_set_add (set, patterns[i]);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strcompress (cases[i].text);
      gsize len = strlen (text);
      gboolean found = warden_spelling_set_lookup (set, text, len) != NULL ||
                       warden_spelling_set_lookup_any (set, text, len) != NULL;

      g_test_message ("%s", cases[i].text);
      g_assert_cmpint (warden_spelling_set_may_hold (set, text, len), ==, cases[i].may);
      if (found)
        g_assert_true (cases[i].may);
      g_assert_false (warden_spelling_set_may_hold (empty, text, len));
    }
  g_assert_false (warden_spelling_set_may_hold (NULL, "rm -rf /", 8));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/policy/pattern/match", test_match);
  g_test_add_func ("/policy/pattern/holes", test_holes);
  g_test_add_func ("/policy/pattern/holes-agree", test_holes_agree);
  g_test_add_func ("/policy/pattern/validate", test_validate);
  g_test_add_func ("/policy/pattern/separator-problem", test_separator_problem);
  g_test_add_func ("/policy/pattern/set-order-and-index", test_set_order_and_index);
  g_test_add_func ("/policy/pattern/set-wild-first-byte", test_set_wild_first_byte);
  g_test_add_func ("/policy/pattern/set-first-byte", test_set_first_byte);
  g_test_add_func ("/policy/pattern/set-many-words", test_set_many_words);
  g_test_add_func ("/policy/pattern/set-long-first-word", test_set_long_first_word);
  g_test_add_func ("/policy/pattern/spelling", test_spelling);
  g_test_add_func ("/policy/pattern/spelling-may-hold", test_spelling_may_hold);

  return g_test_run ();
}
