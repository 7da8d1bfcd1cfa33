/* warden-highlight.h: code in the chat coloured as GNOME's editors colour it
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Code shown as elsewhere (warden_printable: what hides or turns text
 * around is escaped; tabs stay tabs), as Pango markup coloured by
 * GtkSourceView 5's highlighter for @language (a fence's info string:
 * "c", "python", "py", "sh", "diff", …; matched by id, then as a file
 * extension) in the Adwaita style scheme, dark or light. NULL when the
 * language is not known, or the code is too long to colour on the main
 * thread: then the caller shows it plain. */
char *warden_highlight_markup (const char *code,
                               const char *language,
                               gboolean    dark);

/* The same for @lines, one markup string per line, coloured as the file
 * @path names (its name chooses the language: "main.c", "Makefile"): for
 * the lines of a diff. NULL as above. */
GStrv warden_highlight_lines  (const char *lines,
                               const char *path,
                               gboolean    dark);

G_END_DECLS
