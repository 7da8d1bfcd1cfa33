/* warden-highlight.c: code in the chat coloured as GNOME's editors colour it
 *
 * GtkSourceView's highlighter runs on a buffer of its own; its tags (the
 * style scheme's colours) become Pango spans in the code block's label, so
 * the block keeps its label: selectable, scrolling sideways, its wheel
 * passed on to the chat.
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "warden-highlight.h"

#include <gtksourceview/gtksource.h>
#include <string.h>

#include "common/warden-printable.h"

/* Past this the code is shown plain: colouring runs on the main thread and
 * a block is coloured again with each piece of a streamed answer. */
#define HIGHLIGHT_MAX_BYTES (64 * 1024)

/* Fence names that are neither a language id nor an extension. */
static const struct
{
  const char *fence;
  const char *id;
} aliases[] = {
  { .fence = "shell",      .id = "sh" },
  { .fence = "bash",       .id = "sh" },
  { .fence = "zsh",        .id = "sh" },
  { .fence = "console",    .id = "sh" },
  { .fence = "javascript", .id = "js" },
  { .fence = "patch",      .id = "diff" },
  { .fence = "c++",        .id = "cpp" },
  { .fence = "dockerfile", .id = "docker" },
};

static GtkSourceLanguage *
find_language (const char *fence)
{
  GtkSourceLanguageManager *manager = gtk_source_language_manager_get_default ();
  g_autofree char *name = NULL;
  g_autofree char *file = NULL;
  GtkSourceLanguage *language;

  if (fence == NULL || *fence == '\0')
    return NULL;
  /* "python title=x.py": the first word names it. */
  name = g_ascii_strdown (fence, strcspn (fence, " \t{"));
  for (guint i = 0; i < G_N_ELEMENTS (aliases); i++)
    if (strcmp (name, aliases[i].fence) == 0)
      return gtk_source_language_manager_get_language (manager, aliases[i].id);
  language = gtk_source_language_manager_get_language (manager, name);
  if (language != NULL)
    return language;
  file = g_strconcat ("code.", name, NULL);
  return gtk_source_language_manager_guess_language (manager, file, NULL);
}

/* The text as the chat shows it: escaped, tabs kept. */
static char *
printable_code (const char *code)
{
  g_auto(GStrv) pieces = g_strsplit (code, "\t", -1);
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint i = 0; pieces[i] != NULL; i++)
    {
      g_autofree char *piece = warden_printable (pieces[i], -1, WARDEN_PRINTABLE_KEEP_LINES);

      if (i > 0)
        g_string_append_c (out, '\t');
      g_string_append (out, piece);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* What the tags on a run say, the highest priority last (as GTK applies them). */
static void
append_run (GString           *out,
            const GtkTextIter *start,
            const GtkTextIter *end)
{
  g_autofree char *text = gtk_text_iter_get_text (start, end);
  g_autofree char *escaped = g_markup_escape_text (text, -1);
  g_autoptr(GSList) tags = gtk_text_iter_get_tags (start);
  g_autoptr(GString) attrs = g_string_new (NULL);
  GdkRGBA *colour = NULL;
  gboolean bold = FALSE, italic = FALSE;

  for (GSList *l = tags; l != NULL; l = l->next)
    {
      gboolean fg_set = FALSE, weight_set = FALSE, style_set = FALSE;
      GdkRGBA *fg = NULL;
      int weight = PANGO_WEIGHT_NORMAL;
      PangoStyle style = PANGO_STYLE_NORMAL;

      g_object_get (l->data, "foreground-set", &fg_set, "foreground-rgba", &fg,
                    "weight-set", &weight_set, "weight", &weight,
                    "style-set", &style_set, "style", &style, NULL);
      if (fg_set && fg != NULL)
        {
          g_clear_pointer (&colour, gdk_rgba_free);
          colour = g_steal_pointer (&fg);
        }
      g_clear_pointer (&fg, gdk_rgba_free);
      if (weight_set)
        bold = weight >= PANGO_WEIGHT_BOLD;
      if (style_set)
        italic = style == PANGO_STYLE_ITALIC;
    }
  if (colour != NULL)
    g_string_append_printf (attrs, " foreground=\"#%02x%02x%02x\"",
                            (guint) (colour->red * 255 + 0.5),
                            (guint) (colour->green * 255 + 0.5),
                            (guint) (colour->blue * 255 + 0.5));
  if (bold)
    g_string_append (attrs, " weight=\"bold\"");
  if (italic)
    g_string_append (attrs, " style=\"italic\"");
  if (attrs->len > 0)
    g_string_append_printf (out, "<span%s>%s</span>", attrs->str, escaped);
  else
    g_string_append (out, escaped);
  g_clear_pointer (&colour, gdk_rgba_free);
}

/* Runs end at line ends, so that a line break is never inside a span and
 * the markup splits into lines. */
static char *
highlight (const char        *code,
           GtkSourceLanguage *lang,
           gboolean           dark)
{
  g_autoptr(GtkSourceBuffer) buffer = NULL;
  g_autoptr(GString) out = NULL;
  g_autofree char *text = NULL;
  GtkSourceStyleScheme *scheme;
  GtkTextIter start, end, iter;

  scheme = gtk_source_style_scheme_manager_get_scheme (
    gtk_source_style_scheme_manager_get_default (), dark ? "Adwaita-dark" : "Adwaita");
  buffer = gtk_source_buffer_new_with_language (lang);
  if (scheme != NULL)
    gtk_source_buffer_set_style_scheme (buffer, scheme);
  gtk_source_buffer_set_highlight_syntax (buffer, TRUE);
  text = printable_code (code);
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (buffer), text, -1);
  gtk_text_buffer_get_bounds (GTK_TEXT_BUFFER (buffer), &start, &end);
  gtk_source_buffer_ensure_highlight (buffer, &start, &end);

  out = g_string_sized_new (strlen (text) * 2);
  iter = start;
  while (!gtk_text_iter_is_end (&iter))
    {
      GtkTextIter next = iter;
      GtkTextIter eol = iter;

      if (gtk_text_iter_ends_line (&iter))
        {
          g_string_append_c (out, '\n');
          gtk_text_iter_forward_char (&iter);
          continue;
        }
      if (!gtk_text_iter_forward_to_tag_toggle (&next, NULL))
        next = end;
      gtk_text_iter_forward_to_line_end (&eol);
      if (gtk_text_iter_compare (&eol, &next) < 0)
        next = eol;
      append_run (out, &iter, &next);
      iter = next;
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

char *
warden_highlight_markup (const char *code,
                         const char *language,
                         gboolean    dark)
{
  GtkSourceLanguage *lang;

  if (code == NULL || strlen (code) > HIGHLIGHT_MAX_BYTES)
    return NULL;
  gtk_source_init ();
  lang = find_language (language);
  return lang != NULL ? highlight (code, lang, dark) : NULL;
}

GStrv
warden_highlight_lines (const char *lines,
                        const char *path,
                        gboolean    dark)
{
  g_autofree char *name = NULL;
  g_autofree char *markup = NULL;
  GtkSourceLanguage *lang;

  if (lines == NULL || path == NULL || strlen (lines) > HIGHLIGHT_MAX_BYTES)
    return NULL;
  gtk_source_init ();
  name = g_path_get_basename (path);
  lang = gtk_source_language_manager_guess_language (gtk_source_language_manager_get_default (),
                                                     name, NULL);
  if (lang == NULL)
    return NULL;
  markup = highlight (lines, lang, dark);
  return g_strsplit (markup, "\n", -1);
}
