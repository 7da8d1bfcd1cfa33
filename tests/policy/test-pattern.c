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

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/policy/pattern/match", test_match);
  g_test_add_func ("/policy/pattern/holes", test_holes);
  g_test_add_func ("/policy/pattern/validate", test_validate);
  g_test_add_func ("/policy/pattern/separator-problem", test_separator_problem);
  g_test_add_func ("/policy/pattern/set-order-and-index", test_set_order_and_index);
  g_test_add_func ("/policy/pattern/set-long-first-word", test_set_long_first_word);
  g_test_add_func ("/policy/pattern/spelling", test_spelling);

  return g_test_run ();
}
