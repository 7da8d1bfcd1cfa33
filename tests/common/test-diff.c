/* test-diff.c: the diff a write or an edit card shows
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/warden-diff.h"

static const struct
{
  const char       *name;
  const char       *old_text;  /* NULL: no file yet */
  const char       *new_text;
  WardenDiffResult  result;
  const char       *diff;
} rows[] = {
  { "same", "a\nb\n", "a\nb\n", WARDEN_DIFF_SAME, "" },
  { "both-empty", NULL, "", WARDEN_DIFF_SAME, "" },
  { "new-file", NULL, "a\nb\n", WARDEN_DIFF_CHANGED, "@@ -0,0 +1,2 @@\n+a\n+b\n" },
  { "emptied", "a\n", "", WARDEN_DIFF_CHANGED, "@@ -1 +0,0 @@\n-a\n" },
  { "one-line", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
    WARDEN_DIFF_CHANGED, "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n" },
  { "at-start", "1\n2\n3\n4\n5\n6\n", "0\n1\n2\n3\n4\n5\n6\n",
    WARDEN_DIFF_CHANGED, "@@ -1,3 +1,4 @@\n+0\n 1\n 2\n 3\n" },
  { "at-end", "1\n2\n3\n4\n5\n6\n", "1\n2\n3\n4\n5\n",
    WARDEN_DIFF_CHANGED, "@@ -3,4 +3,3 @@\n 3\n 4\n 5\n-6\n" },
  /* Six unchanged lines between two changes: the contexts touch, one hunk. */
  { "close-changes", "a\n1\n2\n3\n4\n5\n6\nb\n", "A\n1\n2\n3\n4\n5\n6\nB\n",
    WARDEN_DIFF_CHANGED,
    "@@ -1,8 +1,8 @@\n-a\n+A\n 1\n 2\n 3\n 4\n 5\n 6\n-b\n+B\n" },
  /* Seven: two hunks. */
  { "far-changes", "a\n1\n2\n3\n4\n5\n6\n7\nb\n", "A\n1\n2\n3\n4\n5\n6\n7\nB\n",
    WARDEN_DIFF_CHANGED,
    "@@ -1,4 +1,4 @@\n-a\n+A\n 1\n 2\n 3\n@@ -6,4 +6,4 @@\n 5\n 6\n 7\n-b\n+B\n" },
  { "no-newline-added", "a", "a\n", WARDEN_DIFF_CHANGED,
    "@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n" },
  { "no-newline-both", "x\na", "y\na", WARDEN_DIFF_CHANGED,
    "@@ -1,2 +1,2 @@\n-x\n+y\n a\n\\ No newline at end of file\n" },
  /* The diff holds the text as it is; escaping is the view's job. */
  { "controls-kept", "ok\n", "ok\n\x1b[2Kevil\n", WARDEN_DIFF_CHANGED,
    "@@ -1 +1,2 @@\n ok\n+\x1b[2Kevil\n" },
  { "not-utf8", "a\n", "a\n\xff\n", WARDEN_DIFF_BINARY,
    "\\ Not text (binary, or not UTF-8): not compared\n" },
};

/* Rebuilds the new text from the old one and the diff, as patch would. */
static char *
apply (const char *old_text,
       const char *diff)
{
  g_autoptr(GPtrArray) old_lines = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) lines = g_strsplit (diff, "\n", -1);
  GString *out = g_string_new (NULL);
  guint at = 0;

  /* Each line with its newline, if it has one. */
  for (const char *p = old_text; *p != '\0';)
    {
      const char *nl = strchr (p, '\n');
      gsize len = nl != NULL ? (gsize) (nl - p) + 1 : strlen (p);

      g_ptr_array_add (old_lines, g_strndup (p, len));
      p += len;
    }
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      const char *l = lines[i];
      gboolean open = lines[i + 1] != NULL && lines[i + 1][0] == '\\';

      switch (warden_diff_line_kind (l))
        {
        case WARDEN_DIFF_LINE_HUNK:
          {
            guint start = 0, count = 1;

            g_assert_cmpint (sscanf (l, "@@ -%u,%u", &start, &count), >=, 1);
            for (guint target = count == 0 ? start : start - 1; at < target; at++)
              g_string_append (out, g_ptr_array_index (old_lines, at));
          }
          break;
        case WARDEN_DIFF_LINE_CONTEXT:
          g_assert_cmpuint (at, <, old_lines->len);
          g_assert_true (g_str_has_prefix (g_ptr_array_index (old_lines, at), l + 1));
          g_string_append (out, g_ptr_array_index (old_lines, at++));
          break;
        case WARDEN_DIFF_LINE_REMOVED:
          g_assert_cmpuint (at, <, old_lines->len);
          g_assert_true (g_str_has_prefix (g_ptr_array_index (old_lines, at), l + 1));
          at++;
          break;
        case WARDEN_DIFF_LINE_ADDED:
          g_string_append (out, l + 1);
          if (!open)
            g_string_append_c (out, '\n');
          break;
        case WARDEN_DIFF_LINE_NOTE:
        default:
          break;
        }
    }
  for (; at < old_lines->len; at++)
    g_string_append (out, g_ptr_array_index (old_lines, at));
  return g_string_free (out, FALSE);
}

static void
test_row (gconstpointer data)
{
  guint i = GPOINTER_TO_UINT (data);
  WardenDiffResult result = -1;
  g_autofree char *diff = warden_diff_unified (rows[i].old_text, -1, rows[i].new_text, -1,
                                               &result);

  g_assert_cmpstr (diff, ==, rows[i].diff);
  g_assert_cmpint (result, ==, rows[i].result);
  if (result == WARDEN_DIFF_CHANGED)
    {
      g_autofree char *rebuilt = apply (rows[i].old_text ? rows[i].old_text : "", diff);

      g_assert_cmpstr (rebuilt, ==, rows[i].new_text);
    }
}

static void
test_binary (void)
{
  WardenDiffResult result = -1;
  g_autofree char *diff = warden_diff_unified ("a\n", -1, "a\0b\n", 4, &result);

  g_assert_cmpint (result, ==, WARDEN_DIFF_BINARY);
  g_assert_cmpint (warden_diff_line_kind (diff), ==, WARDEN_DIFF_LINE_NOTE);
}

static void
test_too_large (void)
{
  g_autoptr(GString) many = g_string_new (NULL);
  g_autofree char *big = g_strnfill (WARDEN_DIFF_MAX_BYTES + 1, 'x');
  WardenDiffResult result = -1;
  g_autofree char *by_lines = NULL;
  g_autofree char *by_bytes = NULL;

  for (guint i = 0; i <= WARDEN_DIFF_MAX_LINES; i++)
    g_string_append (many, "l\n");
  by_lines = warden_diff_unified ("l\n", -1, many->str, -1, &result);
  g_assert_cmpint (result, ==, WARDEN_DIFF_TOO_LARGE);
  g_assert_cmpstr (by_lines, ==, "\\ Too large to compare (over 20000 lines)\n");

  by_bytes = warden_diff_unified (big, -1, "x\n", -1, &result);
  g_assert_cmpint (result, ==, WARDEN_DIFF_TOO_LARGE);
  g_assert_cmpstr (by_bytes, ==, "\\ Too large to compare (over 1 MiB)\n");
}

/* Random files and random edits: applying the diff gives the new file, and
 * the counts are those of a shortest edit for a single change. */
static void
test_random (void)
{
  static const char *words[] = { "a", "b", "c", "{", "}", "", "return 0;" };

  for (guint round = 0; round < 300; round++)
    {
      g_autoptr(GString) old_text = g_string_new (NULL);
      g_autoptr(GString) new_text = g_string_new (NULL);
      guint n = g_test_rand_int_range (0, 60);
      WardenDiffResult result;
      g_autofree char *diff = NULL;

      for (guint i = 0; i < n; i++)
        {
          const char *w = words[g_test_rand_int_range (0, G_N_ELEMENTS (words))];
          guint what = g_test_rand_int_range (0, 10);

          g_string_append_printf (old_text, "%s\n", w);
          if (what == 0)
            continue;                                       /* removed */
          if (what == 1)
            g_string_append_printf (new_text, "new %u\n", i); /* added before */
          g_string_append_printf (new_text, "%s\n", what == 2 ? "changed" : w);
        }
      diff = warden_diff_unified (old_text->str, -1, new_text->str, -1, &result);
      if (g_strcmp0 (old_text->str, new_text->str) == 0)
        {
          g_assert_cmpint (result, ==, WARDEN_DIFF_SAME);
          continue;
        }
      g_assert_cmpint (result, ==, WARDEN_DIFF_CHANGED);
      {
        g_autofree char *rebuilt = apply (old_text->str, diff);

        g_assert_cmpstr (rebuilt, ==, new_text->str);
      }
    }
}

/* Past the bounded number of differences, still a diff that applies. */
static void
test_many_differences (void)
{
  g_autoptr(GString) old_text = g_string_new (NULL);
  g_autoptr(GString) new_text = g_string_new (NULL);
  WardenDiffResult result;
  g_autofree char *diff = NULL;
  g_autofree char *rebuilt = NULL;
  guint added, removed;

  for (guint i = 0; i < 3000; i++)
    {
      g_string_append_printf (old_text, "old %u\n", i);
      g_string_append_printf (new_text, "new %u\n", i);
    }
  diff = warden_diff_unified (old_text->str, -1, new_text->str, -1, &result);
  g_assert_cmpint (result, ==, WARDEN_DIFF_CHANGED);
  rebuilt = apply (old_text->str, diff);
  g_assert_cmpstr (rebuilt, ==, new_text->str);
  warden_diff_count (diff, &added, &removed);
  g_assert_cmpuint (added, ==, 3000);
  g_assert_cmpuint (removed, ==, 3000);
}

static void
test_count_and_kinds (void)
{
  guint added = 0, removed = 0;

  warden_diff_count ("@@ -1,2 +1,3 @@\n-a\n+b\n+c\n d\n\\ No newline at end of file\n",
                     &added, &removed);
  g_assert_cmpuint (added, ==, 2);
  g_assert_cmpuint (removed, ==, 1);
  g_assert_cmpint (warden_diff_line_kind ("@@ -1 +1 @@"), ==, WARDEN_DIFF_LINE_HUNK);
  g_assert_cmpint (warden_diff_line_kind ("+x"), ==, WARDEN_DIFF_LINE_ADDED);
  g_assert_cmpint (warden_diff_line_kind ("-x"), ==, WARDEN_DIFF_LINE_REMOVED);
  g_assert_cmpint (warden_diff_line_kind (" x"), ==, WARDEN_DIFF_LINE_CONTEXT);
  g_assert_cmpint (warden_diff_line_kind ("\\ x"), ==, WARDEN_DIFF_LINE_NOTE);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *path = g_strdup_printf ("/common/diff/%s", rows[i].name);

      g_test_add_data_func (path, GUINT_TO_POINTER (i), test_row);
    }
  g_test_add_func ("/common/diff/binary", test_binary);
  g_test_add_func ("/common/diff/too-large", test_too_large);
  g_test_add_func ("/common/diff/random", test_random);
  g_test_add_func ("/common/diff/many-differences", test_many_differences);
  g_test_add_func ("/common/diff/count-and-kinds", test_count_and_kinds);

  return g_test_run ();
}
