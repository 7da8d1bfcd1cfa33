/* test-utf8.c: warden_utf8_validate answers as g_utf8_validate_len does
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "common/warden-utf8.h"

static void
check (const guchar *bytes,
       gsize         n)
{
  gboolean want = g_utf8_validate_len ((const char *) bytes, n, NULL);

  if (warden_utf8_validate ((const char *) bytes, n) != want)
    {
      g_autoptr(GString) shown = g_string_new (NULL);

      for (gsize i = 0; i < n; i++)
        g_string_append_printf (shown, "%02x ", bytes[i]);
      g_error ("%s: GLib says %s", shown->str, want ? "valid" : "not valid");
    }
}

/* Every pair of bytes, behind ASCII of each length up to nine (so that the
 * pair starts at each position of the eight-byte loop); then every lead
 * byte of a longer sequence with bytes after it at the edges of the ranges
 * the standard's table has. */
static void
test_sequences (void)
{
  static const guchar edges[] = { 0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0,
                                  0xf4, 0xff };
  static const guint long_pads[] = { 0, 7, 8 };
  guchar buf[32];

  for (guint pad = 0; pad <= 9; pad++)
    {
      memset (buf, 'a', pad);
      for (guint a = 0; a < 256; a++)
        {
          buf[pad] = a;
          check (buf, pad + 1);
          for (guint b = 0; b < 256; b++)
            {
              buf[pad + 1] = b;
              check (buf, pad + 2);
            }
        }
    }

  for (guint k = 0; k < G_N_ELEMENTS (long_pads); k++)
    {
      guint pad = long_pads[k];

      memset (buf, 'a', pad);
      for (guint a = 0xc0; a < 256; a++)
        for (guint b = 0; b < G_N_ELEMENTS (edges); b++)
          for (guint c = 0; c < G_N_ELEMENTS (edges); c++)
            for (guint d = 0; d < G_N_ELEMENTS (edges); d++)
              {
                buf[pad] = a;
                buf[pad + 1] = edges[b];
                buf[pad + 2] = edges[c];
                check (buf, pad + 3);
                buf[pad + 3] = edges[d];
                check (buf, pad + 4);
                buf[pad + 4] = 'z';
                check (buf, pad + 5);
              }
    }
}

/* Strings as commands hold them: mostly ASCII, some multibyte, now and
 * then a stray byte or a NUL. */
static void
test_random (void)
{
  static const char * const pieces[] = { "ls -la ", "é", "日本", "\xf0\x9f\x98\x80", "\xff",
                                         "\xc3", "\xe2\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                                         "\xc0\xaf", "x", "        ", "\x00" };
  GRand *rand = g_rand_new_with_seed (26);

  for (guint i = 0; i < 20000; i++)
    {
      guchar buf[256];
      gsize n = 0;
      guint count = g_rand_int_range (rand, 0, 24);

      for (guint j = 0; j < count; j++)
        {
          guint k = g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces));
          gsize len = k == G_N_ELEMENTS (pieces) - 1 ? 1 : strlen (pieces[k]);

          /* Stray bytes and NULs are rare, as in real lines. */
          if (k >= 4 && k != 10 && k != 11 && g_rand_int_range (rand, 0, 8) != 0)
            continue;
          memcpy (buf + n, pieces[k], len);
          n += len;
        }
      check (buf, n);
    }
  g_rand_free (rand);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/common/utf8/sequences", test_sequences);
  g_test_add_func ("/common/utf8/random", test_random);
  return g_test_run ();
}
