/* warden-printable.h: text from a model or a sandbox, made safe to show
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  WARDEN_PRINTABLE_ONE_LINE   = 0,
  /* A newline stays a line break (a view that numbers lines); a carriage
   * return or any other line separator is still escaped. */
  WARDEN_PRINTABLE_KEEP_LINES = 1 << 0,
} WardenPrintableFlags;

/* Every surface that shows a command, a path or a question shows it through
 * this: what could hide or rewrite part of it is made visible, never
 * interpreted. Escaped: newline (\n, unless KEEP_LINES), tab (\t), carriage
 * return (\r), the other C0 controls and DEL (\xNN), the C1 controls
 * (\u009b), format characters — bidi overrides and isolates, zero-width
 * characters, the BOM — and line/paragraph separators (\u202e), spaces other
 * than U+0020 (\u00a0), and bytes that are not UTF-8 (\xff). NULL gives "". */
char      *warden_printable        (const char           *text,
                                    gssize                length,
                                    WardenPrintableFlags  flags);
/* The same as Pango markup, each escape in a span of its own (class-like
 * colours a view can count on), the rest markup-escaped. */
char      *warden_printable_markup (const char           *text,
                                    gssize                length,
                                    WardenPrintableFlags  flags);
/* Whether anything in @text is escaped by warden_printable() (so a view can
 * say "this command contains hidden characters"). */
gboolean   warden_printable_hides  (const char           *text,
                                    gssize                length,
                                    WardenPrintableFlags  flags);

G_END_DECLS
