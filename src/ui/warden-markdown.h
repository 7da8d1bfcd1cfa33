/* warden-markdown.h: the model's Markdown as Pango markup for a label
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Any input, including half a document while it streams, gives markup that
 * GtkLabel accepts (links are <a href>, which GtkLabel handles before
 * Pango sees the rest). Free with g_free(). */
char *warden_markdown_to_pango (const char *markdown);

G_END_DECLS
