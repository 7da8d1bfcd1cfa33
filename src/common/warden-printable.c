/* warden-printable.c: text from a model or a sandbox, made safe to show
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "warden-printable.h"

#include <string.h>

/* The escape for the character at @p (of @avail bytes), or NULL when it is
 * shown as it is; *@used is set to the bytes it takes. */
static char *
escape_at (const char            *p,
           gsize                  avail,
           WardenPrintableFlags   flags,
           gsize                 *used)
{
  gunichar c = g_utf8_get_char_validated (p, avail);

  if (c == (gunichar) -1 || c == (gunichar) -2)
    {
      *used = 1;
      return g_strdup_printf ("\\x%02x", (guchar) *p);
    }
  *used = g_utf8_next_char (p) - p;
  if (c == '\n')
    return (flags & WARDEN_PRINTABLE_KEEP_LINES) ? NULL : g_strdup ("\\n");
  if (c == '\t')
    return g_strdup ("\\t");
  if (c == '\r')
    return g_strdup ("\\r");
  if (c < 0x20 || c == 0x7f)
    return g_strdup_printf ("\\x%02x", c);
  if ((c >= 0x80 && c < 0xa0) || g_unichar_type (c) == G_UNICODE_FORMAT ||
      c == 0x2028 || c == 0x2029 ||
      (c != ' ' && g_unichar_type (c) == G_UNICODE_SPACE_SEPARATOR))
    return g_strdup_printf (c > 0xffff ? "\\U%08x" : "\\u%04x", c);
  return NULL;
}

static char *
render (const char           *text,
        gssize                length,
        WardenPrintableFlags  flags,
        gboolean              markup,
        gboolean             *hides)
{
  GString *out = g_string_new (NULL);
  gsize len;

  if (text == NULL)
    text = "";
  len = length < 0 ? strlen (text) : (gsize) length;
  for (gsize i = 0; i < len;)
    {
      gsize used = 1;
      g_autofree char *escape = escape_at (text + i, len - i, flags, &used);

      if (escape != NULL)
        {
          if (hides != NULL)
            *hides = TRUE;
          if (markup)
            /* Inverted, so it cannot pass for text the command holds. */
            g_string_append_printf (out, "<span background=\"#c01c28\" foreground=\"#ffffff\">"
                                         "%s</span>", escape);
          else
            g_string_append (out, escape);
        }
      else if (markup)
        {
          g_autofree char *escaped = g_markup_escape_text (text + i, used);

          g_string_append (out, escaped);
        }
      else
        g_string_append_len (out, text + i, used);
      i += used;
    }
  return g_string_free (out, FALSE);
}

char *
warden_printable (const char           *text,
                  gssize                length,
                  WardenPrintableFlags  flags)
{
  return render (text, length, flags, FALSE, NULL);
}

char *
warden_printable_markup (const char           *text,
                         gssize                length,
                         WardenPrintableFlags  flags)
{
  return render (text, length, flags, TRUE, NULL);
}

gboolean
warden_printable_hides (const char           *text,
                        gssize                length,
                        WardenPrintableFlags  flags)
{
  gboolean hides = FALSE;
  g_autofree char *ignored = render (text, length, flags, FALSE, &hides);

  return hides;
}
