/* warden-copy.h: memcpy() of the short strings of the policy engine's hot path
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>
#include <string.h>

G_BEGIN_DECLS

/* memcpy (@dst, @src, @n) for regions that do not overlap. A decision copies
 * some twenty words, names and reasons of a few bytes each, and a call to
 * libc's memcpy() (through the PLT, then its dispatch on the size) costs
 * more than the copy: up to 16 bytes are copied here with two loads and two
 * stores, which read and write nothing outside the @n bytes. */
static inline void *
warden_copy (void       *dst,
             const void *src,
             gsize       n)
{
  guchar *d = dst;
  const guchar *s = src;

  if (n >= 8 && n <= 16)
    {
      guint64 a, b;

      memcpy (&a, s, 8);
      memcpy (&b, s + n - 8, 8);
      memcpy (d, &a, 8);
      memcpy (d + n - 8, &b, 8);
    }
  else if (n >= 4 && n < 8)
    {
      guint32 a, b;

      memcpy (&a, s, 4);
      memcpy (&b, s + n - 4, 4);
      memcpy (d, &a, 4);
      memcpy (d + n - 4, &b, 4);
    }
  else if (n > 16)
    memcpy (d, s, n);
  else if (n > 0)
    {
      /* 1 to 3 bytes: the first, the last and the middle one. */
      guchar first = s[0], mid = s[n / 2], last = s[n - 1];

      d[0] = first;
      d[n / 2] = mid;
      d[n - 1] = last;
    }
  return dst;
}

G_END_DECLS
