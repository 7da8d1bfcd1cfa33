/* warden-chat-row.c: how one entry of the conversation looks
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A row is recycled by the list view for items of any kind, so it builds
 * its widgets when it is given an item and throws them away with it. Only
 * the rows on screen exist, which keeps that cheap.
 */

#include "config.h"

#include <math.h>

#define G_LOG_DOMAIN "warden-ui"

#include <glib/gi18n.h>

#include "warden-chat-row.h"

#include <adwaita.h>

#include <string.h>

#include "common/warden-diff.h"
#include "warden-highlight.h"
#include "common/warden-printable.h"
#include "agent/warden-restore.h"
#include "warden-markdown.h"

struct _WardenChatRow
{
  GtkWidget       parent_instance;

  WardenChatItem *item;
  GSignalGroup   *item_signals;   /* on item, whatever it is now */
  GtkWidget      *content;
  guint           render_tick;

  /* Parts of the content, when the item's kind has them. */
  GtkWidget      *text_label;
  GtkWidget      *subject;
  GtkWidget      *badge;
  GtkWidget      *status;
  GtkWidget      *feedback;
  GtkWidget      *spinner;        /* an image turned by spinner_step_cb() */
  guint           spinner_id;
  guint           spinner_step;
  GtkWidget      *diff_view;
  GtkWidget      *changes;        /* what a command created, changed, deleted */
  GtkWidget      *restore;        /* "Restore files to before this step" */
  GtkWidget      *expander;
  GtkWidget      *output_label;
  GtkWidget      *approval_slot;
  GtkWidget      *approval_box;
  GtkWidget      *entry;
};

G_DEFINE_FINAL_TYPE (WardenChatRow, warden_chat_row, GTK_TYPE_WIDGET)

static const char *badge_classes[] = { "allowed", "approved", "rejected", "denied", "pending" };

static char *
format_duration (gint64 ms)
{
  if (ms < 1000)
    return g_strdup_printf (_("%lld ms"), (long long) ms);
  if (ms < 60 * 1000)
    return g_strdup_printf (_("%.1f s"), ms / 1000.0);
  return g_strdup_printf (_("%lld min %lld s"),
                          (long long) (ms / 60000), (long long) ((ms / 1000) % 60));
}

static GtkWidget *
label_new (const char *css_class)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  return label;
}

/* ------------------------------------------------------------------------ */
/* A diff: each line escaped (warden_printable), coloured by what it is */

/* A card shows this many lines until the user asks for all. */
#define DIFF_COLLAPSED_LINES 12
/* Even all is bounded: a label of many thousand lines would stall the chat. */
#define DIFF_MAX_SHOWN_LINES 2000

/* Tabs are shown as the spaces they stand for: an escape for each would
 * bury a Makefile in red. Everything else goes through warden_printable. */
static char *
diff_line_shown (const char *line,
                 gsize       len,
                 glong      *width,
                 char      **plain_out)
{
  g_autoptr(GString) expanded = g_string_new (NULL);
  g_autofree char *escaped = NULL;
  guint column = 0;

  for (gsize i = 0; i < len; i++)
    {
      if (line[i] == '\t')
        {
          do
            g_string_append_c (expanded, ' ');
          while (++column % 4 != 0);
          continue;
        }
      g_string_append_c (expanded, line[i]);
      if (((guchar) line[i] & 0xC0) != 0x80)
        column++;
    }
  escaped = warden_printable_markup (expanded->str, expanded->len, WARDEN_PRINTABLE_ONE_LINE);
  *plain_out = g_strndup (expanded->str, expanded->len);
  {
    /* The width as the user sees it, for tinted lines of one length. */
    g_autofree char *plain = warden_printable (expanded->str, expanded->len,
                                               WARDEN_PRINTABLE_ONE_LINE);

    *width = g_utf8_strlen (plain, -1);
  }
  return g_steal_pointer (&escaped);
}

/* A line of code in a diff: its first character says what it is. */
static gboolean
is_code_line (WardenDiffLineKind kind)
{
  return kind == WARDEN_DIFF_LINE_ADDED || kind == WARDEN_DIFF_LINE_REMOVED ||
         kind == WARDEN_DIFF_LINE_CONTEXT;
}

char *
warden_chat_row_diff_markup (const char *diff,
                             guint       max_lines,
                             guint      *n_lines)
{
  return warden_chat_row_diff_markup_for (diff, NULL, FALSE, max_lines, n_lines);
}

/* With @path, the code in the lines is coloured as the file's language is
 * (issue 32): the whole shown text at once, so that a line knows it is
 * inside a comment or a string begun above it. */
char *
warden_chat_row_diff_markup_for (const char *diff,
                                 const char *path,
                                 gboolean    dark,
                                 guint       max_lines,
                                 guint      *n_lines)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GString) code = g_string_new (NULL);
  g_auto(GStrv) coloured = NULL;
  g_autoptr(GPtrArray) shown = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) kinds = g_array_new (FALSE, FALSE, sizeof (WardenDiffLineKind));
  g_autoptr(GArray) widths = g_array_new (FALSE, FALSE, sizeof (glong));
  guint total = 0;
  glong widest = 0;

  for (const char *p = diff != NULL ? diff : ""; *p != '\0';)
    {
      const char *nl = strchr (p, '\n');
      gsize len = nl != NULL ? (gsize) (nl - p) : strlen (p);

      if (total < max_lines)
        {
          g_autofree char *line = g_strndup (p, len);
          WardenDiffLineKind kind = warden_diff_line_kind (line);
          glong width = 0;
          g_autofree char *plain = NULL;
          char *markup = diff_line_shown (line, len, &width, &plain);

          if (total > 0)
            g_string_append_c (code, '\n');
          if (is_code_line (kind) && plain[0] != '\0')
            g_string_append (code, plain + 1);
          widest = MAX (widest, width);
          g_ptr_array_add (shown, markup);
          g_array_append_val (kinds, kind);
          g_array_append_val (widths, width);
        }
      total++;
      p = nl != NULL ? nl + 1 : p + len;
    }

  if (path != NULL)
    coloured = warden_highlight_lines (code->str, path, dark);
  if (coloured != NULL && g_strv_length (coloured) == shown->len)
    for (guint i = 0; i < shown->len; i++)
      {
        WardenDiffLineKind kind = g_array_index (kinds, WardenDiffLineKind, i);
        const char *line = g_ptr_array_index (shown, i);

        /* The sign as it was, the code in its colours. */
        if (is_code_line (kind) && *line != '\0' && *line != '&' && *line != '<')
          {
            char *both = g_strdup_printf ("%c%s", *line, coloured[i]);

            g_ptr_array_index (shown, i) = both;
            g_free ((char *) line);
          }
      }

  for (guint i = 0; i < shown->len; i++)
    {
      WardenDiffLineKind kind = g_array_index (kinds, WardenDiffLineKind, i);
      glong pad = MAX (0, widest - g_array_index (widths, glong, i));
      g_autofree char *spaces = g_strnfill (pad, ' ');
      const char *open = "", *close = "";

      switch (kind)
        {
        case WARDEN_DIFF_LINE_ADDED:
          open = "<span background=\"#2ec27e\" bgalpha=\"22%\">";
          close = "</span>";
          break;
        case WARDEN_DIFF_LINE_REMOVED:
          open = "<span background=\"#e01b24\" bgalpha=\"20%\">";
          close = "</span>";
          break;
        case WARDEN_DIFF_LINE_HUNK:
          open = "<span foreground=\"#3584e4\" alpha=\"65%\">";
          close = "</span>";
          break;
        case WARDEN_DIFF_LINE_NOTE:
          open = "<span alpha=\"60%\"><i>";
          close = "</i></span>";
          break;
        case WARDEN_DIFF_LINE_CONTEXT:
        default:
          break;
        }
      g_string_append_printf (out, "%s%s%s%s%s", i > 0 ? "\n" : "", open,
                              (char *) g_ptr_array_index (shown, i),
                              kind == WARDEN_DIFF_LINE_ADDED || kind == WARDEN_DIFF_LINE_REMOVED
                              ? spaces : "", close);
    }
  if (n_lines != NULL)
    *n_lines = total;
  return g_string_free (g_steal_pointer (&out), FALSE);
}

typedef struct
{
  GtkWidget *summary;
  GtkWidget *scroller;
  GtkWidget *label;
  GtkWidget *more;
  char      *diff;
  char      *path;      /* the file: its name chooses the colours */
  guint      n_lines;
  gboolean   collapsible;
  gboolean   expanded;
} DiffView;

/* A vertical wheel over a block that only scrolls sideways (code, a diff)
 * moves the chat, as over any other text: GtkScrolledWindow would turn it
 * into a sideways scroll of the block and the chat would stop under the
 * pointer. Shift+wheel and a touchpad's sideways swipe still scroll it. */
static gboolean
sideways_scroll_cb (GtkEventControllerScroll *controller,
                    double                    dx,
                    double                    dy,
                    gpointer                  user_data)
{
  GtkWidget *scroller = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller));
  GdkModifierType state = gtk_event_controller_get_current_event_state (
    GTK_EVENT_CONTROLLER (controller));
  GtkWidget *parent = gtk_widget_get_parent (scroller);
  GtkWidget *outer = parent ? gtk_widget_get_ancestor (parent, GTK_TYPE_SCROLLED_WINDOW) : NULL;
  GtkAdjustment *adj;
  double step;

  if (dy == 0 || dx != 0 || (state & GDK_SHIFT_MASK) != 0 || outer == NULL)
    return GDK_EVENT_PROPAGATE;
  adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (outer));
  /* A wheel's notch moves as GtkScrolledWindow moves it; a touchpad's
   * pixels move by themselves. */
  step = gtk_event_controller_scroll_get_unit (controller) == GDK_SCROLL_UNIT_WHEEL
         ? pow (gtk_adjustment_get_page_size (adj), 2.0 / 3.0) : 1.0;
  gtk_adjustment_set_value (adj, gtk_adjustment_get_value (adj) + dy * step);
  return GDK_EVENT_STOP;
}

static void
pass_vertical_wheel (GtkWidget *scroller)
{
  GtkEventController *scroll =
    gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);

  gtk_event_controller_set_propagation_phase (scroll, GTK_PHASE_CAPTURE);
  g_signal_connect (scroll, "scroll", G_CALLBACK (sideways_scroll_cb), NULL);
  gtk_widget_add_controller (scroller, scroll);
}

static void
diff_view_free (DiffView *view)
{
  g_free (view->path);
  g_free (view->diff);
  g_free (view);
}

static void
diff_view_render (DiffView *view)
{
  guint limit = view->collapsible && !view->expanded ? DIFF_COLLAPSED_LINES
                                                     : DIFF_MAX_SHOWN_LINES;
  g_autofree char *markup =
    warden_chat_row_diff_markup_for (view->diff, view->path,
                                     adw_style_manager_get_dark (adw_style_manager_get_default ()),
                                     limit, &view->n_lines);
  guint added = 0, removed = 0;
  g_autofree char *summary = NULL;

  if (view->n_lines > limit)
    {
      g_autofree char *rest = NULL;
      guint more = view->n_lines - limit;

      rest = g_strdup_printf (ngettext ("… %u more line", "… %u more lines", more), more);
      if (!view->collapsible || view->expanded)
        {
          g_autofree char *escaped = g_markup_escape_text (rest, -1);
          char *longer = g_strdup_printf ("%s\n<span alpha=\"60%%\"><i>%s</i></span>",
                                          markup, escaped);

          g_free (markup);
          markup = longer;
        }
    }
  gtk_label_set_markup (GTK_LABEL (view->label), markup);
  if (!view->collapsible)
    {
      PangoLayout *layout = gtk_label_get_layout (GTK_LABEL (view->label));
      int height = 0;

      /* Up to ten lines, always shown whole; more scroll. */
      pango_layout_get_pixel_size (layout, NULL, &height);
      if (view->n_lines > 0)
        height = height / MAX (1, pango_layout_get_line_count (layout)) * MIN (view->n_lines, 10);
      gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (view->scroller),
                                                  MIN (height + 12, 240));
    }

  warden_diff_count (view->diff, &added, &removed);
  /* Translators: lines added and removed by a file change, "+3 −1" */
  summary = g_strdup_printf (_("+%u −%u"), added, removed);
  gtk_label_set_text (GTK_LABEL (view->summary), summary);
  gtk_widget_set_visible (view->summary, added + removed > 0);

  gtk_widget_set_visible (view->more, view->collapsible && view->n_lines > DIFF_COLLAPSED_LINES);
  if (view->expanded)
    gtk_button_set_label (GTK_BUTTON (view->more), _("Show fewer lines"));
  else
    {
      g_autofree char *label = g_strdup_printf (ngettext ("Show all %u line",
                                                          "Show all %u lines", view->n_lines),
                                                view->n_lines);

      gtk_button_set_label (GTK_BUTTON (view->more), label);
    }
}

static void
diff_more_clicked_cb (GtkButton *button,
                      DiffView  *view)
{
  view->expanded = !view->expanded;
  diff_view_render (view);
}

static void
diff_view_restyle (GtkWidget *box)
{
  DiffView *view = g_object_get_data (G_OBJECT (box), "warden-diff-view");

  if (view != NULL && view->diff != NULL && view->path != NULL)
    diff_view_render (view);
}

GtkWidget *
warden_chat_row_diff_view_new (gboolean collapsible)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *top = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  DiffView *view = g_new0 (DiffView, 1);

  gtk_widget_add_css_class (box, "diff-view");
  view->collapsible = collapsible;
  view->summary = label_new ("diff-summary");
  gtk_widget_add_css_class (view->summary, "caption");
  gtk_widget_add_css_class (view->summary, "numeric");
  gtk_widget_set_hexpand (view->summary, TRUE);
  gtk_box_append (GTK_BOX (top), view->summary);
  view->more = gtk_button_new ();
  gtk_widget_add_css_class (view->more, "flat");
  gtk_widget_add_css_class (view->more, "diff-more");
  g_signal_connect (view->more, "clicked", G_CALLBACK (diff_more_clicked_cb), view);
  gtk_box_append (GTK_BOX (top), view->more);
  gtk_box_append (GTK_BOX (box), top);

  view->label = label_new ("monospace");
  gtk_widget_add_css_class (view->label, "diff-lines");
  gtk_label_set_selectable (GTK_LABEL (view->label), TRUE);
  gtk_label_set_yalign (GTK_LABEL (view->label), 0);
  gtk_widget_set_valign (view->label, GTK_ALIGN_START);
  gtk_accessible_update_property (GTK_ACCESSIBLE (view->label),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Changes to the file"), -1);
  view->scroller = gtk_scrolled_window_new ();
  /* Long lines scroll sideways, as in an editor, rather than wrap. */
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (view->scroller), GTK_POLICY_AUTOMATIC,
                                  collapsible ? GTK_POLICY_NEVER : GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (view->scroller), TRUE);
  if (!collapsible)
    {
      /* In a dialog: as wide as the lines up to a bound, and never crushed
       * to a line or two by the rest of the dialog (see diff_view_render). */
      gtk_scrolled_window_set_propagate_natural_width (GTK_SCROLLED_WINDOW (view->scroller),
                                                       TRUE);
      gtk_scrolled_window_set_max_content_width (GTK_SCROLLED_WINDOW (view->scroller), 640);
      gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (view->scroller), 260);
    }
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (view->scroller), view->label);
  gtk_widget_add_css_class (view->scroller, "diff-scroller");
  if (collapsible)
    pass_vertical_wheel (view->scroller);
  gtk_box_append (GTK_BOX (box), view->scroller);

  g_object_set_data_full (G_OBJECT (box), "warden-diff-view", view,
                          (GDestroyNotify) diff_view_free);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (diff_view_restyle), box, G_CONNECT_SWAPPED);
  return box;
}

void
warden_chat_row_diff_view_set_path (GtkWidget  *widget,
                                    const char *path)
{
  DiffView *view = g_object_get_data (G_OBJECT (widget), "warden-diff-view");

  g_return_if_fail (view != NULL);
  if (g_strcmp0 (view->path, path) == 0)
    return;
  g_free (view->path);
  view->path = g_strdup (path);
  if (view->diff != NULL)
    diff_view_render (view);
}

void
warden_chat_row_diff_view_set_diff (GtkWidget  *widget,
                                    const char *diff)
{
  DiffView *view = g_object_get_data (G_OBJECT (widget), "warden-diff-view");

  g_return_if_fail (view != NULL);
  if (g_strcmp0 (view->diff, diff) == 0)
    return;
  g_free (view->diff);
  view->diff = g_strdup (diff);
  diff_view_render (view);
  gtk_widget_set_visible (widget, diff != NULL && *diff != '\0');
}

/* ------------------------------------------------------------------------ */
/* The model's words: text blocks, and code blocks that scroll sideways
 * with a button that copies exactly the code */

static GtkWidget *
text_block_new (void)
{
  GtkWidget *label = label_new ("assistant-message");

  /* A link asks before it opens, naming where it really goes. */
  g_signal_connect (label, "activate-link", G_CALLBACK (warden_markdown_activate_link), NULL);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_set_halign (label, GTK_ALIGN_FILL);
  return label;
}

static void
copy_clicked_cb (GtkButton *button,
                 GtkWidget *block)
{
  const char *code = g_object_get_data (G_OBJECT (block), "code");

  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (button)), code ? code : "");
  gtk_button_set_icon_name (button, "object-select-symbolic");
  gtk_widget_set_tooltip_text (GTK_WIDGET (button), _("Copied"));
}

static void code_block_render (GtkWidget *block);

static GtkWidget *
code_block_new (void)
{
  GtkWidget *block = gtk_overlay_new ();
  GtkWidget *corner = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  GtkWidget *lang = label_new ("code-lang");
  GtkWidget *copy = gtk_button_new_from_icon_name ("edit-copy-symbolic");
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *code = label_new ("monospace");

  gtk_widget_add_css_class (block, "code-block");
  /* The language and the copy button in the block's top right corner,
   * over the code, as GNOME's documentation shows code: no row of their
   * own (issue 32). */
  gtk_widget_add_css_class (corner, "code-corner");
  gtk_widget_set_halign (corner, GTK_ALIGN_END);
  gtk_widget_set_valign (corner, GTK_ALIGN_START);
  gtk_widget_add_css_class (lang, "caption");
  gtk_widget_add_css_class (lang, "dim-label");
  gtk_widget_set_valign (lang, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (corner), lang);
  gtk_widget_add_css_class (copy, "flat");
  gtk_widget_add_css_class (copy, "code-copy");
  gtk_widget_set_tooltip_text (copy, _("Copy"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (copy), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Copy the code"), -1);
  g_signal_connect (copy, "clicked", G_CALLBACK (copy_clicked_cb), block);
  gtk_box_append (GTK_BOX (corner), copy);

  gtk_widget_add_css_class (code, "code-text");
  gtk_label_set_selectable (GTK_LABEL (code), TRUE);
  gtk_label_set_yalign (GTK_LABEL (code), 0);
  /* Code keeps its lines: it scrolls sideways instead of wrapping. */
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_AUTOMATIC,
                                  GTK_POLICY_NEVER);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), code);
  gtk_widget_add_css_class (scroller, "code-scroller");
  pass_vertical_wheel (scroller);
  gtk_overlay_set_child (GTK_OVERLAY (block), scroller);
  gtk_overlay_add_overlay (GTK_OVERLAY (block), corner);
  /* Colours for the light or the dark style, as the window changes. */
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (code_block_render), block, G_CONNECT_SWAPPED);
  g_object_set_data (G_OBJECT (block), "code-label", code);
  g_object_set_data (G_OBJECT (block), "lang-label", lang);
  g_object_set_data (G_OBJECT (block), "copy-button", copy);
  return block;
}

/* Code as it is: what hides or turns text around is escaped as everywhere
 * else (warden_printable); tabs stay tabs. */
static char *
code_markup (const char *code)
{
  g_auto(GStrv) pieces = g_strsplit (code, "\t", -1);
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint i = 0; pieces[i] != NULL; i++)
    {
      g_autofree char *piece = warden_printable_markup (pieces[i], -1,
                                                        WARDEN_PRINTABLE_KEEP_LINES);

      if (i > 0)
        g_string_append_c (out, '\t');
      g_string_append (out, piece);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static void
code_block_update (GtkWidget                 *block,
                   const WardenMarkdownBlock *md)
{
  GtkWidget *lang = g_object_get_data (G_OBJECT (block), "lang-label");
  GtkWidget *copy = g_object_get_data (G_OBJECT (block), "copy-button");
  const char *old = g_object_get_data (G_OBJECT (block), "code");

  if (g_strcmp0 (old, md->content) == 0 &&
      g_strcmp0 (g_object_get_data (G_OBJECT (block), "lang"), md->info) == 0)
    return;
  gtk_label_set_text (GTK_LABEL (lang), md->info != NULL ? md->info : "");
  gtk_widget_set_visible (lang, md->info != NULL && *md->info != '\0');
  g_object_set_data_full (G_OBJECT (block), "code", g_strdup (md->content), g_free);
  g_object_set_data_full (G_OBJECT (block), "lang", g_strdup (md->info), g_free);
  code_block_render (block);
  gtk_button_set_icon_name (GTK_BUTTON (copy), "edit-copy-symbolic");
  gtk_widget_set_tooltip_text (copy, _("Copy"));
}

/* Coloured by GtkSourceView's highlighter for the fence's language, in the
 * scheme of the window's style; plain where the language is unknown. */
static void
code_block_render (GtkWidget *block)
{
  GtkWidget *code = g_object_get_data (G_OBJECT (block), "code-label");
  const char *text = g_object_get_data (G_OBJECT (block), "code");
  g_autofree char *markup = NULL;

  if (text == NULL)
    return;
  markup = warden_highlight_markup (text, g_object_get_data (G_OBJECT (block), "lang"),
                                    adw_style_manager_get_dark (adw_style_manager_get_default ()));
  if (markup == NULL)
    markup = code_markup (text);
  gtk_label_set_markup (GTK_LABEL (code), markup);
}

static void
render_blocks (WardenChatRow *self,
               const char    *text)
{
  g_autoptr(GPtrArray) blocks = warden_markdown_split (text);
  GtkWidget *child = gtk_widget_get_first_child (self->text_label);

  /* Streaming appends: the blocks there stay, only the last one grows. */
  for (guint i = 0; i < blocks->len; i++)
    {
      WardenMarkdownBlock *md = g_ptr_array_index (blocks, i);
      gboolean is_code = md->kind == WARDEN_MARKDOWN_BLOCK_CODE;
      GtkWidget *next;

      if (child != NULL && gtk_widget_has_css_class (child, "code-block") != is_code)
        {
          /* Different from here on: start again from this block. */
          while (child != NULL)
            {
              next = gtk_widget_get_next_sibling (child);
              gtk_box_remove (GTK_BOX (self->text_label), child);
              child = next;
            }
        }
      if (child == NULL)
        {
          child = is_code ? code_block_new () : text_block_new ();
          gtk_box_append (GTK_BOX (self->text_label), child);
        }
      if (is_code)
        code_block_update (child, md);
      else if (g_strcmp0 (gtk_label_get_label (GTK_LABEL (child)), md->content) != 0)
        gtk_label_set_markup (GTK_LABEL (child), md->content);
      child = gtk_widget_get_next_sibling (child);
    }
  while (child != NULL)
    {
      GtkWidget *next = gtk_widget_get_next_sibling (child);

      gtk_box_remove (GTK_BOX (self->text_label), child);
      child = next;
    }
}

static void
render_text (WardenChatRow *self)
{
  const char *text = warden_chat_item_get_text (self->item);

  if (warden_chat_item_get_kind (self->item) == WARDEN_CHAT_ITEM_ASSISTANT)
    render_blocks (self, text);
  else if (warden_chat_item_get_kind (self->item) == WARDEN_CHAT_ITEM_SUMMARY)
    {
      /* The model's words: shown, never interpreted. */
      g_autofree char *shown = warden_printable (text, -1, WARDEN_PRINTABLE_KEEP_LINES);

      gtk_label_set_text (GTK_LABEL (self->text_label), shown);
    }
  else
    gtk_label_set_text (GTK_LABEL (self->text_label), text);
}

static gboolean
render_tick_cb (GtkWidget     *widget,
                GdkFrameClock *clock,
                gpointer       user_data)
{
  WardenChatRow *self = WARDEN_CHAT_ROW (widget);

  self->render_tick = 0;
  if (self->item != NULL && self->text_label != NULL)
    render_text (self);
  return G_SOURCE_REMOVE;
}

static void
text_changed_cb (WardenChatRow *self)
{
  if (self->text_label == NULL)
    return;
  /* A streamed answer notifies for every few words; rendering the whole
   * Markdown each time would be quadratic. Once per frame is enough. */
  if (self->render_tick == 0)
    self->render_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self), render_tick_cb,
                                                      NULL, NULL);
}

static void
update_badge (WardenChatRow *self)
{
  WardenToolDecision decision = warden_chat_item_get_decision (self->item);
  WardenToolCallState state = warden_chat_item_get_state (self->item);
  const char *pattern = warden_chat_item_get_pattern (self->item);
  const char *reason = warden_chat_item_get_reason (self->item);
  const char *feedback = warden_chat_item_get_feedback (self->item);
  g_autofree char *escaped = g_markup_escape_text (pattern != NULL ? pattern : "", -1);
  g_autofree char *markup = NULL;
  const char *css = NULL;
  gboolean question;

  switch (decision)
    {
    case WARDEN_TOOL_DECISION_AUTO_ALLOWED:
      markup = pattern != NULL ? g_strdup_printf (_("allowed by <tt>%s</tt>"), escaped)
                               : g_markup_escape_text (_("allowed"), -1);
      css = "allowed";
      break;

    case WARDEN_TOOL_DECISION_APPROVED:
      markup = g_markup_escape_text (_("approved"), -1);
      css = "approved";
      break;

    case WARDEN_TOOL_DECISION_APPROVED_ALWAYS:
      markup = pattern != NULL ? g_strdup_printf (_("always allowed · <tt>%s</tt>"), escaped)
                               : g_markup_escape_text (_("always allowed"), -1);
      css = "approved";
      break;

    case WARDEN_TOOL_DECISION_REJECTED:
      markup = g_markup_escape_text (_("rejected"), -1);
      css = "rejected";
      break;

    case WARDEN_TOOL_DECISION_DENIED:
      if (pattern != NULL)
        markup = g_strdup_printf (_("denied by <tt>%s</tt>"), escaped);
      else if (reason != NULL)
        {
          g_autofree char *text = g_strdup_printf (_("denied: %s"), reason);

          markup = g_markup_escape_text (text, -1);
        }
      else
        markup = g_markup_escape_text (_("denied"), -1);
      css = "denied";
      break;

    case WARDEN_TOOL_DECISION_NONE:
      if (state != WARDEN_TOOL_CALL_PENDING)
        break;
      G_GNUC_FALLTHROUGH;
    case WARDEN_TOOL_DECISION_ASKED:
      markup = g_markup_escape_text (_("waiting for you"), -1);
      css = "pending";
      break;

    case WARDEN_TOOL_DECISION_ANSWERED:
    default:
      break;
    }

  for (guint i = 0; i < G_N_ELEMENTS (badge_classes); i++)
    gtk_widget_remove_css_class (self->badge, badge_classes[i]);
  gtk_widget_set_visible (self->badge, markup != NULL);
  if (markup != NULL)
    {
      gtk_label_set_markup (GTK_LABEL (self->badge), markup);
      gtk_widget_add_css_class (self->badge, css);
    }

  /* A question's answer is shown on the card itself, not in its output. */
  question = warden_chat_item_get_tool_kind (self->item) == WARDEN_TOOL_KIND_ASK_USER;
  gtk_widget_set_visible (self->feedback,
                          (decision == WARDEN_TOOL_DECISION_REJECTED || question)
                          && feedback != NULL && *feedback != '\0');
  if (question)
    {
      g_autofree char *text = g_strdup_printf (_("You answered: %s"),
                                               feedback != NULL ? feedback : "");

      gtk_label_set_text (GTK_LABEL (self->feedback), text);
      gtk_widget_add_css_class (self->feedback, "answer");
    }
  else
    {
      gtk_label_set_text (GTK_LABEL (self->feedback), feedback != NULL ? feedback : "");
      gtk_widget_remove_css_class (self->feedback, "answer");
    }
}


/* "Running" turns in eight steps a second, from a timer, as the window's
 * spinners do: a GtkSpinner asks for a frame every frame, and on a slow
 * renderer that leaves nothing for lower-priority work (the terminal pane's
 * output among it). */
static gboolean
spinner_step_cb (gpointer user_data)
{
  WardenChatRow *self = user_data;
  char step_class[] = "warden-step-0";

  if (self->spinner == NULL)
    {
      self->spinner_id = 0;
      return G_SOURCE_REMOVE;
    }
  self->spinner_step = (self->spinner_step + 1) % 8;
  step_class[sizeof step_class - 2] = '0' + self->spinner_step;
  gtk_widget_set_css_classes (self->spinner, (const char *[]) { "warden-busy", step_class, NULL });
  return G_SOURCE_CONTINUE;
}

static void
update_status (WardenChatRow *self)
{
  int exit_status = warden_chat_item_get_exit_status (self->item);
  gint64 duration_ms = warden_chat_item_get_duration_ms (self->item);
  gboolean is_error = warden_chat_item_get_is_error (self->item);
  WardenToolCallState state = warden_chat_item_get_state (self->item);
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *text = NULL;

  gboolean not_run = state == WARDEN_TOOL_CALL_REJECTED ||
                     state == WARDEN_TOOL_CALL_REJECTED_UNREPORTED ||
                     state == WARDEN_TOOL_CALL_DENIED;

  /* A call the user or the profile refused never ran: it did not fail.
   * The badge says who refused it. */
  if (not_run)
    g_ptr_array_add (parts, g_strdup (state == WARDEN_TOOL_CALL_DENIED
                                      ? _("denied, not run") : _("not run")));
  else if (exit_status >= 0)
    g_ptr_array_add (parts, g_strdup_printf (_("exit %d"), exit_status));
  else if (state == WARDEN_TOOL_CALL_INTERRUPTED)
    g_ptr_array_add (parts, g_strdup (_("interrupted")));
  else if (is_error)
    g_ptr_array_add (parts, g_strdup (_("failed")));
  else if (state == WARDEN_TOOL_CALL_RUNNING)
    g_ptr_array_add (parts, g_strdup (_("running…")));
  if (duration_ms >= 0)
    g_ptr_array_add (parts, format_duration (duration_ms));
  g_ptr_array_add (parts, NULL);

  text = g_strjoinv (" · ", (char **) parts->pdata);
  gtk_label_set_text (GTK_LABEL (self->status), text);
  gtk_widget_set_visible (self->status, *text != '\0');
  if (!not_run && (is_error || exit_status > 0))
    gtk_widget_add_css_class (self->status, "error");
  else
    gtk_widget_remove_css_class (self->status, "error");
  if (self->spinner != NULL)
    {
      gboolean running = state == WARDEN_TOOL_CALL_RUNNING;

      gtk_widget_set_visible (self->spinner, running);
      if (running && self->spinner_id == 0)
        self->spinner_id = g_timeout_add (125, spinner_step_cb, self);
      else if (!running)
        g_clear_handle_id (&self->spinner_id, g_source_remove);
    }
}

static void
update_output (WardenChatRow *self)
{
  const char *output = warden_chat_item_get_output (self->item);

  /* A question's output is its answer, which the card shows already. */
  gtk_widget_set_visible (self->expander,
                          output != NULL && *output != '\0' &&
                          warden_chat_item_get_tool_kind (self->item) != WARDEN_TOOL_KIND_ASK_USER);
  if (self->output_label != NULL)
    {
      g_autofree char *valid = g_utf8_make_valid (output != NULL ? output : "", -1);

      gtk_label_set_text (GTK_LABEL (self->output_label), valid);
    }
}

static void
expanded_cb (WardenChatRow *self,
             GParamSpec    *pspec,
             GtkExpander   *expander)
{
  /* Most outputs are never opened: make their label only when one is. */
  if (self->output_label != NULL || !gtk_expander_get_expanded (expander))
    return;
  self->output_label = label_new ("monospace");
  gtk_widget_add_css_class (self->output_label, "tool-output");
  gtk_label_set_selectable (GTK_LABEL (self->output_label), TRUE);
  gtk_label_set_wrap (GTK_LABEL (self->output_label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (self->output_label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_yalign (GTK_LABEL (self->output_label), 0);
  gtk_expander_set_child (expander, self->output_label);
  update_output (self);
}

static void
activate_answer (WardenChatRow *self,
                 gboolean       approved,
                 const char    *text)
{
  WardenApproval *approval = warden_chat_item_get_approval (self->item);

  if (approval == NULL)
    return;
  gtk_widget_activate_action (GTK_WIDGET (self), "win.approval-answer", "(sbbs)",
                              warden_approval_get_id (approval), approved, FALSE,
                              text != NULL ? text : "");
}

static void
reject_clicked_cb (WardenChatRow *self)
{
  activate_answer (self, FALSE, gtk_editable_get_text (GTK_EDITABLE (self->entry)));
}

static void
allow_once_clicked_cb (WardenChatRow *self)
{
  activate_answer (self, TRUE, "");
}

static void
always_clicked_cb (WardenChatRow *self)
{
  WardenApproval *approval = warden_chat_item_get_approval (self->item);

  if (approval != NULL)
    gtk_widget_activate_action (GTK_WIDGET (self), "win.approval-show", "s",
                                warden_approval_get_id (approval));
}

static void
choice_clicked_cb (WardenChatRow *self,
                   GtkButton     *button)
{
  activate_answer (self, TRUE, g_object_get_data (G_OBJECT (button), "choice"));
}

static void
answer_cb (WardenChatRow *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->entry));

  if (*text != '\0')
    activate_answer (self, TRUE, text);
}

static void
answer_changed_cb (GtkEditable *entry,
                   GtkWidget   *button)
{
  gtk_widget_set_sensitive (button, *gtk_editable_get_text (entry) != '\0');
}

static GtkWidget *
button_new (WardenChatRow *self,
            const char    *label,
            const char    *css_class,
            GCallback      callback)
{
  GtkWidget *button = gtk_button_new_with_mnemonic (label);

  if (css_class != NULL)
    gtk_widget_add_css_class (button, css_class);
  g_signal_connect_object (button, "clicked", callback, self, G_CONNECT_SWAPPED);
  return button;
}

/* The card's answers: one row where there is room, wrapped under each
 * other in a narrow window (issue 32: three buttons in one row held the
 * window at 418 px). GTK 4.8 has no breakpoints; a flow box is one. */
static GtkWidget *
button_row_new (void)
{
  GtkWidget *row = gtk_flow_box_new ();

  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (row), GTK_SELECTION_NONE);
  /* Cells of one width: lines of buttons that line up. */
  gtk_flow_box_set_homogeneous (GTK_FLOW_BOX (row), TRUE);
  gtk_flow_box_set_min_children_per_line (GTK_FLOW_BOX (row), 1);
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (row), 8);
  gtk_flow_box_set_column_spacing (GTK_FLOW_BOX (row), 6);
  gtk_flow_box_set_row_spacing (GTK_FLOW_BOX (row), 6);
  gtk_widget_add_css_class (row, "approval-buttons");
  return row;
}

static void
button_row_append (GtkWidget *row,
                   GtkWidget *button)
{
  gtk_flow_box_append (GTK_FLOW_BOX (row), button);
  /* Tab goes to the buttons, not to the boxes around them. */
  gtk_widget_set_focusable (gtk_widget_get_parent (button), FALSE);
}

/* A command line in a label's markup, as code, on one line. */
static char *
command_markup (const char *text)
{
  g_autofree char *escaped = warden_printable_markup (text, -1, WARDEN_PRINTABLE_ONE_LINE);

  return g_strdup_printf ("<tt>%s</tt>", escaped);
}

static GtkWidget *
approval_box_new (WardenChatRow  *self,
                  WardenApproval *approval)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *buttons = button_row_new ();
  const char *reason = warden_approval_get_reason (approval);
  /* A host's part is the command that wants it, shown as such below. */
  const char *part = warden_approval_get_kind (approval) == WARDEN_APPROVAL_HOST
                     ? NULL : warden_approval_get_part (approval);
  GtkWidget *why;

  gtk_widget_add_css_class (box, "approval");
  gtk_widget_set_halign (buttons, GTK_ALIGN_END);

  if (warden_approval_get_kind (approval) == WARDEN_APPROVAL_QUESTION)
    {
      const char * const *choices = warden_approval_get_choices (approval);
      GtkWidget *answer_row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
      GtkWidget *answer;
      GtkWidget *question = label_new ("approval-question");

      gtk_label_set_text (GTK_LABEL (question), warden_approval_get_subject (approval));
      gtk_label_set_wrap (GTK_LABEL (question), TRUE);
      gtk_label_set_selectable (GTK_LABEL (question), TRUE);
      gtk_box_append (GTK_BOX (box), question);

      gtk_widget_set_halign (buttons, GTK_ALIGN_START);
      gtk_box_append (GTK_BOX (box), buttons);
      for (guint i = 0; choices != NULL && choices[i] != NULL; i++)
        {
          GtkWidget *choice = gtk_button_new_with_label (choices[i]);

          g_object_set_data_full (G_OBJECT (choice), "choice", g_strdup (choices[i]), g_free);
          g_signal_connect_object (choice, "clicked", G_CALLBACK (choice_clicked_cb), self,
                                   G_CONNECT_SWAPPED);
          button_row_append (buttons, choice);
        }
      gtk_widget_set_visible (buttons, choices != NULL && choices[0] != NULL);

      self->entry = gtk_entry_new ();
      gtk_widget_set_hexpand (self->entry, TRUE);
      gtk_entry_set_placeholder_text (GTK_ENTRY (self->entry), _("Your answer"));
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->entry),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, _("Your answer"),
                                      -1);
      answer = button_new (self, _("_Answer"), "suggested-action", G_CALLBACK (answer_cb));
      gtk_widget_set_sensitive (answer, FALSE);
      g_signal_connect_object (self->entry, "changed", G_CALLBACK (answer_changed_cb),
                               answer, 0);
      g_signal_connect_object (self->entry, "activate", G_CALLBACK (answer_cb), self,
                               G_CONNECT_SWAPPED);
      gtk_box_append (GTK_BOX (answer_row), self->entry);
      gtk_box_append (GTK_BOX (answer_row), answer);
      gtk_box_append (GTK_BOX (box), answer_row);
      return box;
    }

  why = label_new ("approval-reason");
  gtk_label_set_wrap (GTK_LABEL (why), TRUE);
  if (reason != NULL || part != NULL)
    {
      g_autofree char *reason_markup = g_markup_escape_text (reason != NULL ? reason : "", -1);
      g_autofree char *part_markup = warden_printable_markup (part, -1,
                                                              WARDEN_PRINTABLE_ONE_LINE);
      g_autofree char *markup = NULL;

      /* A reason that names its part says it once (issue 32). */
      if (reason != NULL && part != NULL && strstr (reason, part) != NULL)
        markup = g_strdup (reason_markup);
      else if (reason != NULL && part != NULL)
        markup = g_strdup_printf ("%s: <tt>%s</tt>", reason_markup, part_markup);
      else if (part != NULL)
        markup = g_strdup_printf (_("Asks because of <tt>%s</tt>"), part_markup);
      else
        markup = g_strdup (reason_markup);
      gtk_label_set_markup (GTK_LABEL (why), markup);
    }
  else
    gtk_label_set_text (GTK_LABEL (why), _("This needs your approval."));
  gtk_box_append (GTK_BOX (box), why);

  /* Where it comes from: the command that wants a host, what started a
   * program, worded as every front end words it. */
  {
    g_auto(GStrv) origins = warden_approval_dup_origins (approval, command_markup);

    if (origins[0] != NULL)
      {
        GtkWidget *from = label_new ("approval-chain");
        g_autofree char *markup = g_strjoinv ("\n", origins);

        gtk_label_set_markup (GTK_LABEL (from), markup);
        gtk_label_set_wrap (GTK_LABEL (from), TRUE);
        gtk_label_set_wrap_mode (GTK_LABEL (from), PANGO_WRAP_WORD_CHAR);
        gtk_box_append (GTK_BOX (box), from);
      }
  }

  self->entry = gtk_entry_new ();
  gtk_entry_set_placeholder_text (GTK_ENTRY (self->entry),
                                  _("Tell the agent what to do instead (optional)"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->entry),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("What the agent should do instead"),
                                  -1);
  /* Enter in the feedback means "no, do this instead". */
  g_signal_connect_object (self->entry, "activate", G_CALLBACK (reject_clicked_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_box_append (GTK_BOX (box), self->entry);

  button_row_append (buttons, button_new (self, _("_Reject"), "destructive-action",
                                          G_CALLBACK (reject_clicked_cb)));
  button_row_append (buttons, button_new (self, _("Allow _Once"), "suggested-action",
                                          G_CALLBACK (allow_once_clicked_cb)));
  /* A file is approved one call at a time: there is no pattern to save;
   * nor for a command no pattern can stop asking. */
  if ((warden_approval_get_kind (approval) == WARDEN_APPROVAL_COMMAND &&
       !warden_approval_get_uncovered (approval, NULL, NULL)) ||
      warden_approval_get_kind (approval) == WARDEN_APPROVAL_HOST)
    button_row_append (buttons, button_new (self, _("Always _Allow…"), NULL,
                                            G_CALLBACK (always_clicked_cb)));
  gtk_box_append (GTK_BOX (box), buttons);
  return box;
}

/* Nothing to do: its destroy notify drops the last reference. */
static gboolean
release_later_cb (gpointer data)
{
  return G_SOURCE_REMOVE;
}

static void
update_approval (WardenChatRow *self)
{
  WardenApproval *approval = warden_chat_item_get_approval (self->item);

  if (self->approval_box != NULL)
    {
      GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
      GtkWidget *focus = root ? gtk_root_get_focus (root) : NULL;

      /* The button just clicked goes with its box: the keyboard focus must
       * not stay on it (the list would look for it in its next layout), and
       * the box lives until the click that answered has run its course. */
      if (focus != NULL && gtk_widget_is_ancestor (focus, self->approval_box))
        gtk_root_set_focus (root, NULL);
      g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, release_later_cb,
                       g_object_ref (self->approval_box), g_object_unref);
      gtk_box_remove (GTK_BOX (self->approval_slot), self->approval_box);
      self->approval_box = NULL;
      self->entry = NULL;
    }
  if (approval != NULL)
    {
      self->approval_box = approval_box_new (self, approval);
      gtk_box_append (GTK_BOX (self->approval_slot), self->approval_box);
    }
  gtk_widget_set_visible (self->approval_slot, approval != NULL);
}

static void
update_subject (WardenChatRow *self)
{
  const char *subject = warden_chat_item_get_subject (self->item);
  /* As it is, not as it reads: controls, bidi overrides and line breaks
   * shown as escapes, here as in the approval dialog. */
  g_autofree char *markup = warden_printable_markup (subject, -1, WARDEN_PRINTABLE_ONE_LINE);
  g_autofree char *tooltip = subject != NULL
                             ? warden_printable (subject, -1, WARDEN_PRINTABLE_KEEP_LINES)
                             : NULL;

  gtk_label_set_markup (GTK_LABEL (self->subject), markup);
  gtk_widget_set_tooltip_text (self->subject, tooltip);
}

static void
update_diff (WardenChatRow *self)
{
  warden_chat_row_diff_view_set_path (self->diff_view, warden_chat_item_get_subject (self->item));
  warden_chat_row_diff_view_set_diff (self->diff_view, warden_chat_item_get_diff (self->item));
}

/* What a command did to the files, from the checkpoints around it: one
 * line a file, escaped. */
static void
update_changes (WardenChatRow *self)
{
  GPtrArray *changes = warden_chat_item_get_changes (self->item);
  g_autofree char *lines = NULL;

  gtk_widget_set_visible (self->changes, changes != NULL);
  if (changes == NULL)
    return;
  lines = changes->len > 0 ? warden_restore_describe_changes (changes, NULL)
                           : g_strdup (_("changed no file"));
  g_strchomp (lines);
  gtk_label_set_text (GTK_LABEL (self->changes), lines);
}

/* Offered once the step is over and the files before it were recorded. */
static void
update_restore (WardenChatRow *self)
{
  WardenToolCallState state = warden_chat_item_get_state (self->item);

  gtk_widget_set_visible (self->restore,
                          warden_chat_item_get_step (self->item) > 0 &&
                          state != WARDEN_TOOL_CALL_RUNNING &&
                          state != WARDEN_TOOL_CALL_PENDING);
}

static void
restore_clicked_cb (WardenChatRow *self)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "win.restore-step", "x",
                              warden_chat_item_get_step (self->item));
}

/* The item's notifications, for whichever parts its card has. */

static void
step_changed_cb (WardenChatRow *self)
{
  if (self->restore != NULL)
    update_restore (self);
}

static void
changes_changed_cb (WardenChatRow *self)
{
  if (self->changes != NULL)
    update_changes (self);
}

static void
diff_changed_cb (WardenChatRow *self)
{
  if (self->diff_view != NULL)
    update_diff (self);
}


static void
badge_changed_cb (WardenChatRow *self)
{
  if (self->badge != NULL)
    update_badge (self);
}

static void
status_changed_cb (WardenChatRow *self)
{
  if (self->status != NULL)
    update_status (self);
}

static void
state_changed_cb (WardenChatRow *self)
{
  badge_changed_cb (self);
  status_changed_cb (self);
  step_changed_cb (self);
}

static void
output_changed_cb (WardenChatRow *self)
{
  if (self->expander != NULL)
    update_output (self);
}

static void
approval_changed_cb (WardenChatRow *self)
{
  if (self->approval_slot != NULL)
    update_approval (self);
}

static void
subject_changed_cb (WardenChatRow *self)
{
  if (self->subject != NULL)
    update_subject (self);
}

static GtkWidget *
tool_card_new (WardenChatRow *self)
{
  GtkWidget *card = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *footer = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *name = label_new ("tool-name");

  gtk_widget_add_css_class (card, "card");
  gtk_widget_add_css_class (card, "tool-card");

  gtk_widget_add_css_class (name, "caption-heading");
  gtk_widget_add_css_class (name, "dim-label");
  gtk_label_set_text (GTK_LABEL (name), warden_chat_item_get_tool_name (self->item));
  gtk_box_append (GTK_BOX (header), name);

  self->subject = label_new ("monospace");
  gtk_widget_add_css_class (self->subject, "tool-subject");
  gtk_label_set_single_line_mode (GTK_LABEL (self->subject), TRUE);
  gtk_label_set_ellipsize (GTK_LABEL (self->subject), PANGO_ELLIPSIZE_END);
  gtk_label_set_selectable (GTK_LABEL (self->subject), TRUE);
  gtk_widget_set_hexpand (self->subject, TRUE);
  gtk_box_append (GTK_BOX (header), self->subject);
  gtk_box_append (GTK_BOX (card), header);

  self->diff_view = warden_chat_row_diff_view_new (TRUE);
  gtk_widget_set_visible (self->diff_view, FALSE);
  gtk_box_append (GTK_BOX (card), self->diff_view);

  self->changes = label_new ("tool-changes");
  gtk_widget_add_css_class (self->changes, "monospace");
  gtk_widget_add_css_class (self->changes, "dim-label");
  gtk_label_set_wrap (GTK_LABEL (self->changes), TRUE);
  gtk_label_set_selectable (GTK_LABEL (self->changes), TRUE);
  gtk_box_append (GTK_BOX (card), self->changes);

  self->badge = label_new ("badge");
  gtk_widget_set_valign (self->badge, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (footer), self->badge);
  self->status = label_new ("tool-status");
  gtk_widget_add_css_class (self->status, "dim-label");
  gtk_widget_add_css_class (self->status, "numeric");
  gtk_widget_set_hexpand (self->status, TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->status), 1);
  gtk_box_append (GTK_BOX (footer), self->status);
  self->spinner = gtk_image_new_from_icon_name ("process-working-symbolic");
  gtk_widget_add_css_class (self->spinner, "warden-busy");
  gtk_widget_set_visible (self->spinner, FALSE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->spinner),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Running"), -1);
  gtk_box_append (GTK_BOX (footer), self->spinner);
  self->restore = gtk_button_new_from_icon_name ("edit-undo-symbolic");
  gtk_widget_add_css_class (self->restore, "flat");
  gtk_widget_add_css_class (self->restore, "tool-restore");
  gtk_widget_set_valign (self->restore, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (self->restore, _("Restore files to before this step"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->restore),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Restore files to before this step"), -1);
  g_signal_connect_object (self->restore, "clicked", G_CALLBACK (restore_clicked_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_box_append (GTK_BOX (footer), self->restore);
  gtk_box_append (GTK_BOX (card), footer);

  self->feedback = label_new ("feedback");
  gtk_label_set_wrap (GTK_LABEL (self->feedback), TRUE);
  gtk_label_set_selectable (GTK_LABEL (self->feedback), TRUE);
  gtk_box_append (GTK_BOX (card), self->feedback);

  self->approval_slot = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append (GTK_BOX (card), self->approval_slot);

  self->expander = gtk_expander_new_with_mnemonic (_("_Output"));
  gtk_widget_add_css_class (self->expander, "tool-output-expander");
  g_signal_connect_object (self->expander, "notify::expanded", G_CALLBACK (expanded_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_box_append (GTK_BOX (card), self->expander);

  update_subject (self);
  update_diff (self);
  update_changes (self);
  update_restore (self);
  update_badge (self);
  update_status (self);
  update_output (self);
  update_approval (self);
  return card;
}

static GtkWidget *
content_new (WardenChatRow *self)
{
  GtkWidget *label;

  switch (warden_chat_item_get_kind (self->item))
    {
    case WARDEN_CHAT_ITEM_USER:
      label = label_new ("user-message");
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
      gtk_label_set_selectable (GTK_LABEL (label), TRUE);
      gtk_widget_set_halign (label, GTK_ALIGN_END);
      /* Leave the bubble room to look like one on a wide window. */
      gtk_widget_set_margin_start (label, 48);
      break;

    case WARDEN_CHAT_ITEM_ASSISTANT:
      /* A box of text and code blocks (text_label is the box then). */
      label = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
      gtk_widget_add_css_class (label, "assistant-blocks");
      gtk_widget_set_halign (label, GTK_ALIGN_FILL);
      break;

    case WARDEN_CHAT_ITEM_NOTICE:
      label = label_new ("dim-label");
      gtk_widget_add_css_class (label, "notice");
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_selectable (GTK_LABEL (label), TRUE);
      gtk_label_set_xalign (GTK_LABEL (label), 0.5);
      gtk_label_set_justify (GTK_LABEL (label), GTK_JUSTIFY_CENTER);
      gtk_widget_set_halign (label, GTK_ALIGN_CENTER);
      break;

    case WARDEN_CHAT_ITEM_SUMMARY:
      {
        /* Closed: a line that says so; open: the summary the model reads. */
        GtkWidget *expander = gtk_expander_new (NULL);
        GtkWidget *title = label_new ("dim-label");

        gtk_label_set_text (GTK_LABEL (title), _("Earlier conversation summarised"));
        gtk_widget_add_css_class (title, "notice");
        gtk_expander_set_label_widget (GTK_EXPANDER (expander), title);
        gtk_widget_set_halign (expander, GTK_ALIGN_CENTER);
        gtk_widget_set_tooltip_text (expander,
                                     _("To fit the model’s context, it is sent this summary "
                                       "instead of the conversation above; the session keeps "
                                       "all of it"));
        label = label_new ("summary-text");
        gtk_label_set_wrap (GTK_LABEL (label), TRUE);
        gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
        gtk_label_set_selectable (GTK_LABEL (label), TRUE);
        gtk_expander_set_child (GTK_EXPANDER (expander), label);
        self->text_label = label;
        render_text (self);
        return expander;
      }

    case WARDEN_CHAT_ITEM_TOOL:
    default:
      return tool_card_new (self);
    }

  self->text_label = label;
  render_text (self);
  return label;
}

static void
clear_content (WardenChatRow *self)
{
  if (self->render_tick != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->render_tick);
      self->render_tick = 0;
    }
  g_clear_pointer (&self->content, gtk_widget_unparent);
  self->text_label = NULL;
  self->subject = NULL;
  self->badge = NULL;
  self->status = NULL;
  self->feedback = NULL;
  self->spinner = NULL;
  g_clear_handle_id (&self->spinner_id, g_source_remove);
  self->diff_view = NULL;
  self->changes = NULL;
  self->restore = NULL;
  self->expander = NULL;
  self->output_label = NULL;
  self->approval_slot = NULL;
  self->approval_box = NULL;
  self->entry = NULL;
}

static void
warden_chat_row_dispose (GObject *object)
{
  WardenChatRow *self = WARDEN_CHAT_ROW (object);

  clear_content (self);
  if (self->item_signals != NULL)
    g_signal_group_set_target (self->item_signals, NULL);
  g_clear_object (&self->item_signals);
  g_clear_object (&self->item);
  G_OBJECT_CLASS (warden_chat_row_parent_class)->dispose (object);
}

static void
warden_chat_row_class_init (WardenChatRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = warden_chat_row_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "warden-chat-row");
}

static void
warden_chat_row_init (WardenChatRow *self)
{
  GSignalGroup *group = g_signal_group_new (WARDEN_TYPE_CHAT_ITEM);

  self->item_signals = group;
  g_signal_group_connect_swapped (group, "notify::text", G_CALLBACK (text_changed_cb), self);
  g_signal_group_connect_swapped (group, "notify::subject", G_CALLBACK (subject_changed_cb),
                                  self);
  g_signal_group_connect_swapped (group, "notify::state", G_CALLBACK (state_changed_cb), self);
  g_signal_group_connect_swapped (group, "notify::decision", G_CALLBACK (badge_changed_cb),
                                  self);
  g_signal_group_connect_swapped (group, "notify::pattern", G_CALLBACK (badge_changed_cb), self);
  g_signal_group_connect_swapped (group, "notify::reason", G_CALLBACK (badge_changed_cb), self);
  g_signal_group_connect_swapped (group, "notify::feedback", G_CALLBACK (badge_changed_cb),
                                  self);
  g_signal_group_connect_swapped (group, "notify::exit-status", G_CALLBACK (status_changed_cb),
                                  self);
  g_signal_group_connect_swapped (group, "notify::duration-ms", G_CALLBACK (status_changed_cb),
                                  self);
  g_signal_group_connect_swapped (group, "notify::is-error", G_CALLBACK (status_changed_cb),
                                  self);
  g_signal_group_connect_swapped (group, "notify::output", G_CALLBACK (output_changed_cb), self);
  g_signal_group_connect_swapped (group, "notify::approval", G_CALLBACK (approval_changed_cb),
                                  self);
  g_signal_group_connect_swapped (group, "notify::diff", G_CALLBACK (diff_changed_cb), self);
  g_signal_group_connect_swapped (group, "notify::step", G_CALLBACK (step_changed_cb), self);
  g_signal_group_connect_swapped (group, "notify::changes", G_CALLBACK (changes_changed_cb),
                                  self);
}

GtkWidget *
warden_chat_row_new (void)
{
  return g_object_new (WARDEN_TYPE_CHAT_ROW, NULL);
}

WardenChatItem *
warden_chat_row_get_item (WardenChatRow *self)
{
  g_return_val_if_fail (WARDEN_IS_CHAT_ROW (self), NULL);

  return self->item;
}

void
warden_chat_row_set_item (WardenChatRow  *self,
                          WardenChatItem *item)
{
  g_return_if_fail (WARDEN_IS_CHAT_ROW (self));
  g_return_if_fail (item == NULL || WARDEN_IS_CHAT_ITEM (item));

  if (self->item == item)
    return;

  clear_content (self);
  g_set_object (&self->item, item);
  g_signal_group_set_target (self->item_signals, item);
  if (item == NULL)
    return;

  self->content = content_new (self);
  gtk_widget_set_parent (self->content, GTK_WIDGET (self));
}
