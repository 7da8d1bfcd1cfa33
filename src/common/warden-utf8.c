/* warden-utf8.c: UTF-8 validation for the policy engine's hot path
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "warden-utf8.h"

#define HIGH_BITS G_GUINT64_CONSTANT (0x8080808080808080)
#define LOW_BITS  G_GUINT64_CONSTANT (0x0101010101010101)

gboolean
warden_utf8_validate (const char *s,
                      gsize       n)
{
  const guchar *p = (const guchar *) s;
  gsize i = 0;

  while (i < n)
    {
      guchar c;

      /* Eight ASCII bytes, none of them NUL, at a time. */
      while (i + 8 <= n)
        {
          guint64 w, special;

          memcpy (&w, p + i, 8);
          /* A high bit for each byte of 0x80 or more, and for the first NUL
           * (a borrow can mark bytes after it, never before). */
          special = (w & HIGH_BITS) | ((w - LOW_BITS) & ~w & HIGH_BITS);
          if (special == 0)
            {
              i += 8;
              continue;
            }
#if G_BYTE_ORDER == G_LITTLE_ENDIAN && defined(__GNUC__)
          /* Straight to the first byte that is not plain ASCII. */
          i += (gsize) __builtin_ctzll (special) / 8;
#endif
          break;
        }
      if (i >= n)
        break;

      c = p[i];
      if (c == 0)
        return FALSE;
      if (c < 0x80)
        {
          i++;
          continue;
        }

      /* The well-formed sequences of the Unicode Standard, table 3-7: no
       * overlong forms, no surrogates (ED A0..BF), nothing past F4 8F. */
      if (c >= 0xc2 && c <= 0xdf)
        {
          if (i + 1 >= n || (p[i + 1] & 0xc0) != 0x80)
            return FALSE;
          i += 2;
        }
      else if (c >= 0xe0 && c <= 0xef)
        {
          guchar lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;

          if (i + 2 >= n || p[i + 1] < lo || p[i + 1] > hi || (p[i + 2] & 0xc0) != 0x80)
            return FALSE;
          i += 3;
        }
      else if (c >= 0xf0 && c <= 0xf4)
        {
          guchar lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;

          if (i + 3 >= n || p[i + 1] < lo || p[i + 1] > hi || (p[i + 2] & 0xc0) != 0x80 ||
              (p[i + 3] & 0xc0) != 0x80)
            return FALSE;
          i += 4;
        }
      else
        return FALSE;
    }
  return TRUE;
}
