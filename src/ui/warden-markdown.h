/* warden-markdown.h: the model's Markdown as Pango markup for a label
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Any input, including half a document while it streams, gives markup that
 * GtkLabel accepts (links are <a href>, which GtkLabel handles before
 * Pango sees the rest). Free with g_free(). */
char     *warden_markdown_to_pango              (const char *markdown);

/* Inline code: monospace on a faint background (Pango markup). */
#define WARDEN_MARKDOWN_CODE_OPEN \
  "<span font_family=\"monospace\" background=\"#808080\" bgalpha=\"20%\">"
#define WARDEN_MARKDOWN_CODE_CLOSE "</span>"

typedef enum
{
  WARDEN_MARKDOWN_BLOCK_TEXT,  /* content: Pango markup, as warden_markdown_to_pango() */
  WARDEN_MARKDOWN_BLOCK_CODE,  /* content: the code between the fences, as written */
} WardenMarkdownBlockKind;

typedef struct
{
  WardenMarkdownBlockKind  kind;
  char                    *content;
  char                    *info;   /* CODE: the fence's info string ("sh"), or NULL */
  gboolean                 open;   /* CODE: no closing fence (yet, while it streams) */
} WardenMarkdownBlock;

void       warden_markdown_block_free (WardenMarkdownBlock *block);
/* The document cut into text and fenced code blocks, in order, for a view
 * that shows code apart (scrolling, with a copy button). A GPtrArray of
 * WardenMarkdownBlock; blank text between blocks gives no block. */
GPtrArray *warden_markdown_split      (const char          *markdown);

/* Whether a link may be opened at all: http and https with a host only. */
gboolean  warden_markdown_link_can_open         (const char *uri);
/* The confirmation's text for a link that can be opened: its host and the
 * whole URL, escaped by warden_printable(). */
char     *warden_markdown_dup_link_confirmation (const char *uri);
/* A GtkLabel::activate-link handler for a label showing
 * warden_markdown_to_pango(): asks first (an AdwMessageDialog over the
 * label's window, "Cancel" the default) and opens only http(s). Always
 * returns TRUE, so GtkLabel never opens a link on its own. */
gboolean  warden_markdown_activate_link         (GtkLabel   *label,
                                                 const char *uri,
                                                 gpointer    user_data);

G_END_DECLS
