/* warden-terminal.c: the read-only terminal pane that shows sandbox commands
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Nothing runs in this terminal: there is no pty. Warden feeds it what the
 * sandbox printed, so the feed functions play the part of a line
 * discipline (the "\n" to "\r\n" a tty would do) and of a shell's prompt.
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-ui"

#include <glib/gi18n.h>

#include "warden-terminal.h"

#include "common/warden-printable.h"

#include <adwaita.h>
#include <string.h>

/* From pcre2.h, which needs PCRE2_CODE_UNIT_WIDTH and is not otherwise
 * needed here. VteRegex adds PCRE2_UTF itself. */
#define WARDEN_PCRE2_CASELESS  0x00000008u
#define WARDEN_PCRE2_MULTILINE 0x00000400u

#define SGR_RESET  "\033[0m"
#define SGR_PROMPT "\033[1;32m"
#define SGR_DIM    "\033[2m"
#define SGR_NOTICE "\033[2;3m"
#define SGR_FAILED "\033[2;31m"

struct _WardenTerminal
{
  GtkWidget       parent_instance;

  GtkWidget      *box;
  GtkWidget      *search_bar;
  GtkWidget      *search_entry;
  VteTerminal    *vte;
  GtkWidget      *placeholder;    /* says what the pane is until something shows */
  GtkWidget      *menu;
  GSettings      *interface_settings;

  /* Output waits here and reaches VTE a slice at a time, so a command that
   * prints faster than VTE can parse never holds up a frame. */
  GByteArray     *queue;
  gsize           queue_start;    /* bytes of @queue already fed */
  guint           drain_id;
  guint64         skipped;        /* bytes dropped since the last notice */

  /* Output state across chunks: an escape sequence (or the first byte of
   * a C1 control) whose end has not come yet. */
  GString        *held;
  guint           last_was_cr : 1;
  guint           at_line_start : 1;
};

G_DEFINE_FINAL_TYPE (WardenTerminal, warden_terminal, GTK_TYPE_WIDGET)

/* Readable on both backgrounds: the light palette darkens the colours that
 * would vanish on white (yellow, "white", bright green). */
static const char *dark_palette[16] = {
  "#241f31", "#e01b24", "#2ec27e", "#f5c211", "#3584e4", "#c061cb", "#33c7de", "#c0bfbc",
  "#77767b", "#ff7b63", "#8ff0a4", "#f8e45c", "#99c1f1", "#dc8add", "#93ddeb", "#ffffff",
};
static const char *light_palette[16] = {
  "#241f31", "#c01c28", "#26a269", "#986a00", "#1a5fb4", "#813d9c", "#1c7a8c", "#77767b",
  "#5e5c64", "#e01b24", "#2a8a5a", "#b5830a", "#3584e4", "#9141ac", "#2190a4", "#3d3846",
};

static void
update_colors (WardenTerminal *self)
{
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  const char **names = dark ? dark_palette : light_palette;
  GdkRGBA palette[16];
  GdkRGBA fg;
  GdkRGBA bg;

  for (guint i = 0; i < G_N_ELEMENTS (palette); i++)
    gdk_rgba_parse (&palette[i], names[i]);
  gdk_rgba_parse (&fg, dark ? "#ffffff" : "#1e1e1e");
  gdk_rgba_parse (&bg, dark ? "#1e1e1e" : "#ffffff");
  vte_terminal_set_colors (self->vte, &fg, &bg, palette, G_N_ELEMENTS (palette));
}

static void
dark_changed_cb (WardenTerminal  *self,
                 GParamSpec      *pspec,
                 AdwStyleManager *manager)
{
  update_colors (self);
}

static void
update_font (WardenTerminal *self)
{
  g_autofree char *name = NULL;
  PangoFontDescription *desc = NULL;

  if (self->interface_settings != NULL)
    name = g_settings_get_string (self->interface_settings, "monospace-font-name");
  if (name != NULL && *name != '\0')
    desc = pango_font_description_from_string (name);
  /* NULL is VTE's own default: the monospace family. */
  vte_terminal_set_font (self->vte, desc);
  g_clear_pointer (&desc, pango_font_description_free);
}

static void
font_changed_cb (WardenTerminal *self,
                 const char     *key,
                 GSettings      *settings)
{
  update_font (self);
}

static void
hide_cursor (WardenTerminal *self)
{
  /* DECTCEM: nobody types here, a cursor would only suggest they could. */
  vte_terminal_feed (self->vte, "\033[?25l", -1);
}

static void
update_search (WardenTerminal *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  g_autoptr(GError) error = NULL;
  g_autofree char *pattern = NULL;
  VteRegex *regex = NULL;

  gtk_widget_remove_css_class (self->search_entry, "error");
  if (text == NULL || *text == '\0')
    {
      vte_terminal_search_set_regex (self->vte, NULL, 0);
      return;
    }

  /* The user searches for text, not for a regular expression. */
  pattern = g_regex_escape_string (text, -1);
  regex = vte_regex_new_for_search (pattern, -1,
                                    WARDEN_PCRE2_MULTILINE | WARDEN_PCRE2_CASELESS,
                                    &error);
  if (regex == NULL)
    {
      g_debug ("Cannot search for “%s”: %s", text, error->message);
      gtk_widget_add_css_class (self->search_entry, "error");
      return;
    }
  vte_terminal_search_set_regex (self->vte, regex, 0);
  vte_regex_unref (regex);
}

static void
show_match (WardenTerminal *self,
            gboolean        found)
{
  if (found)
    gtk_widget_remove_css_class (self->search_entry, "error");
  else
    gtk_widget_add_css_class (self->search_entry, "error");
}

/* VTE does not wrap around onto the match it is showing: with one match,
 * every other search fails. A second try finds it again. */
static gboolean
find (WardenTerminal *self,
      gboolean        backwards)
{
  for (guint i = 0; i < 2; i++)
    if (backwards ? vte_terminal_search_find_previous (self->vte)
                  : vte_terminal_search_find_next (self->vte))
      return TRUE;
  return FALSE;
}

static void
search_changed_cb (WardenTerminal *self,
                   GtkSearchEntry *entry)
{
  update_search (self);
  if (vte_terminal_search_get_regex (self->vte) != NULL)
    show_match (self, find (self, TRUE));
}

static void
find_next_cb (WardenTerminal *self)
{
  if (vte_terminal_search_get_regex (self->vte) != NULL)
    show_match (self, find (self, FALSE));
}

static void
find_previous_cb (WardenTerminal *self)
{
  if (vte_terminal_search_get_regex (self->vte) != NULL)
    show_match (self, find (self, TRUE));
}

static void
search_mode_cb (WardenTerminal *self,
                GParamSpec     *pspec,
                GtkSearchBar   *bar)
{
  if (!gtk_search_bar_get_search_mode (bar))
    {
      vte_terminal_search_set_regex (self->vte, NULL, 0);
      gtk_widget_grab_focus (GTK_WIDGET (self->vte));
    }
}

static void
selection_changed_cb (WardenTerminal *self,
                      VteTerminal    *vte)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "terminal.copy",
                                 vte_terminal_get_has_selection (vte));
}

static void
context_click_cb (WardenTerminal  *self,
                  int              n_press,
                  double           x,
                  double           y,
                  GtkGestureClick *gesture)
{
  graphene_point_t point;

  if (!gtk_widget_compute_point (GTK_WIDGET (self->vte), GTK_WIDGET (self),
                                 &GRAPHENE_POINT_INIT (x, y), &point))
    return;
  gtk_popover_set_pointing_to (GTK_POPOVER (self->menu),
                               &(GdkRectangle) { (int) point.x, (int) point.y, 1, 1 });
  gtk_popover_popup (GTK_POPOVER (self->menu));
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
}

static void
copy_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  WardenTerminal *self = WARDEN_TERMINAL (widget);

  if (vte_terminal_get_has_selection (self->vte))
    vte_terminal_copy_clipboard_format (self->vte, VTE_FORMAT_TEXT);
}

static void
select_all_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  vte_terminal_select_all (WARDEN_TERMINAL (widget)->vte);
}

static void
find_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  warden_terminal_show_search (WARDEN_TERMINAL (widget));
}

static void
warden_terminal_measure (GtkWidget      *widget,
                         GtkOrientation  orientation,
                         int             for_size,
                         int            *minimum,
                         int            *natural,
                         int            *minimum_baseline,
                         int            *natural_baseline)
{
  gtk_widget_measure (WARDEN_TERMINAL (widget)->box, orientation, for_size,
                      minimum, natural, minimum_baseline, natural_baseline);
}

/* A plain GtkWidget with its own allocation, because the context menu is
 * our child and a popover must be presented by its parent. */
static void
warden_terminal_size_allocate (GtkWidget *widget,
                               int        width,
                               int        height,
                               int        baseline)
{
  WardenTerminal *self = WARDEN_TERMINAL (widget);

  gtk_widget_allocate (self->box, width, height, baseline, NULL);
  gtk_popover_present (GTK_POPOVER (self->menu));
}

static gboolean
warden_terminal_grab_focus (GtkWidget *widget)
{
  return gtk_widget_grab_focus (GTK_WIDGET (WARDEN_TERMINAL (widget)->vte));
}

static void
warden_terminal_dispose (GObject *object)
{
  WardenTerminal *self = WARDEN_TERMINAL (object);

  g_clear_handle_id (&self->drain_id, g_source_remove);
  g_clear_pointer (&self->queue, g_byte_array_unref);
  if (self->held != NULL)
    g_string_free (g_steal_pointer (&self->held), TRUE);
  g_clear_object (&self->interface_settings);
  g_clear_pointer (&self->menu, gtk_widget_unparent);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  self->vte = NULL;
  self->search_bar = NULL;
  self->search_entry = NULL;
  G_OBJECT_CLASS (warden_terminal_parent_class)->dispose (object);
}

static void
warden_terminal_class_init (WardenTerminalClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = warden_terminal_dispose;
  widget_class->measure = warden_terminal_measure;
  widget_class->size_allocate = warden_terminal_size_allocate;
  widget_class->grab_focus = warden_terminal_grab_focus;

  gtk_widget_class_install_action (widget_class, "terminal.copy", NULL, copy_action);
  gtk_widget_class_install_action (widget_class, "terminal.select-all", NULL, select_all_action);
  gtk_widget_class_install_action (widget_class, "terminal.find", NULL, find_action);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_c,
                                       GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "terminal.copy", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_a,
                                       GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "terminal.select-all", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f,
                                       GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "terminal.find", NULL);

  gtk_widget_class_set_css_name (widget_class, "warden-terminal");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static GtkWidget *
search_button_new (const char *icon_name,
                   const char *label)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon_name);

  gtk_widget_set_tooltip_text (button, label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, label,
                                  -1);
  return button;
}

static void
warden_terminal_init (WardenTerminal *self)
{
  g_autoptr(GMenu) menu = g_menu_new ();
  g_autoptr(GMenu) section = g_menu_new ();
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;
  GtkWidget *search_box;

  self->queue = g_byte_array_new ();
  self->held = g_string_new (NULL);
  GtkWidget *previous;
  GtkWidget *next;
  GtkWidget *terminal_box;
  GtkWidget *scrollbar;
  GtkGesture *click;

  self->at_line_start = TRUE;

  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));

  self->search_entry = gtk_search_entry_new ();
  gtk_widget_set_hexpand (self->search_entry, TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->search_entry),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Find in terminal"),
                                  -1);
  previous = search_button_new ("go-up-symbolic", _("Previous match"));
  next = search_button_new ("go-down-symbolic", _("Next match"));
  search_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_add_css_class (search_box, "linked");
  gtk_box_append (GTK_BOX (search_box), self->search_entry);
  gtk_box_append (GTK_BOX (search_box), previous);
  gtk_box_append (GTK_BOX (search_box), next);

  self->search_bar = gtk_search_bar_new ();
  gtk_search_bar_set_child (GTK_SEARCH_BAR (self->search_bar), search_box);
  gtk_search_bar_connect_entry (GTK_SEARCH_BAR (self->search_bar),
                                GTK_EDITABLE (self->search_entry));
  gtk_search_bar_set_show_close_button (GTK_SEARCH_BAR (self->search_bar), TRUE);
  gtk_box_append (GTK_BOX (self->box), self->search_bar);

  self->vte = VTE_TERMINAL (vte_terminal_new ());
  gtk_widget_set_hexpand (GTK_WIDGET (self->vte), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self->vte), TRUE);
  vte_terminal_set_scrollback_lines (self->vte, WARDEN_TERMINAL_SCROLLBACK_LINES);
  vte_terminal_set_input_enabled (self->vte, FALSE);
  vte_terminal_set_cursor_blink_mode (self->vte, VTE_CURSOR_BLINK_OFF);
  vte_terminal_set_scroll_on_output (self->vte, TRUE);
  vte_terminal_set_scroll_on_keystroke (self->vte, FALSE);
  vte_terminal_set_mouse_autohide (self->vte, FALSE);
  vte_terminal_search_set_wrap_around (self->vte, TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->vte),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Sandbox commands and their output"),
                                  -1);

  scrollbar = gtk_scrollbar_new (GTK_ORIENTATION_VERTICAL,
                                 gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (self->vte)));
  terminal_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_box_append (GTK_BOX (terminal_box), GTK_WIDGET (self->vte));
  gtk_box_append (GTK_BOX (terminal_box), scrollbar);
  /* It looks like a shell but takes no keys (issue 32): it says so until
   * the first command shows. */
  self->placeholder = gtk_label_new (_("The commands the agent runs and their output show "
                                       "here. This is not a shell: it takes no input."));
  gtk_label_set_wrap (GTK_LABEL (self->placeholder), TRUE);
  gtk_label_set_justify (GTK_LABEL (self->placeholder), GTK_JUSTIFY_CENTER);
  gtk_widget_set_halign (self->placeholder, GTK_ALIGN_CENTER);
  gtk_widget_set_valign (self->placeholder, GTK_ALIGN_CENTER);
  gtk_widget_set_can_target (self->placeholder, FALSE);
  gtk_widget_set_margin_start (self->placeholder, 12);
  gtk_widget_set_margin_end (self->placeholder, 12);
  gtk_widget_add_css_class (self->placeholder, "dim-label");
  gtk_widget_add_css_class (self->placeholder, "terminal-placeholder");
  {
    GtkWidget *overlay = gtk_overlay_new ();

    gtk_overlay_set_child (GTK_OVERLAY (overlay), terminal_box);
    gtk_overlay_add_overlay (GTK_OVERLAY (overlay), self->placeholder);
    gtk_widget_set_vexpand (overlay, TRUE);
    gtk_box_append (GTK_BOX (self->box), overlay);
  }

  g_menu_append (section, _("_Copy"), "terminal.copy");
  g_menu_append (section, _("Select _All"), "terminal.select-all");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (section));
  g_menu_append (menu, _("_Find…"), "terminal.find");
  self->menu = gtk_popover_menu_new_from_model (G_MENU_MODEL (menu));
  gtk_popover_set_has_arrow (GTK_POPOVER (self->menu), FALSE);
  gtk_widget_set_halign (self->menu, GTK_ALIGN_START);
  gtk_widget_set_parent (self->menu, GTK_WIDGET (self));

  click = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_SECONDARY);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (click), GTK_PHASE_CAPTURE);
  g_signal_connect_object (click, "pressed", G_CALLBACK (context_click_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self->vte), GTK_EVENT_CONTROLLER (click));

  g_signal_connect_object (self->search_entry, "search-changed",
                           G_CALLBACK (search_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->search_entry, "activate",
                           G_CALLBACK (find_next_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->search_entry, "next-match",
                           G_CALLBACK (find_next_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->search_entry, "previous-match",
                           G_CALLBACK (find_previous_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (next, "clicked", G_CALLBACK (find_next_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (previous, "clicked",
                           G_CALLBACK (find_previous_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->search_bar, "notify::search-mode-enabled",
                           G_CALLBACK (search_mode_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->vte, "selection-changed",
                           G_CALLBACK (selection_changed_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "terminal.copy", FALSE);

  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (dark_changed_cb), self, G_CONNECT_SWAPPED);
  update_colors (self);

  /* The desktop's monospace font, when there is a desktop to ask. */
  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, "org.gnome.desktop.interface", TRUE);
  if (schema != NULL && g_settings_schema_has_key (schema, "monospace-font-name"))
    {
      self->interface_settings = g_settings_new ("org.gnome.desktop.interface");
      g_signal_connect_object (self->interface_settings, "changed::monospace-font-name",
                               G_CALLBACK (font_changed_cb), self, G_CONNECT_SWAPPED);
    }
  update_font (self);

  hide_cursor (self);
}

GtkWidget *
warden_terminal_new (void)
{
  return g_object_new (WARDEN_TYPE_TERMINAL, NULL);
}

VteTerminal *
warden_terminal_get_vte (WardenTerminal *self)
{
  g_return_val_if_fail (WARDEN_IS_TERMINAL (self), NULL);

  return self->vte;
}

/* Per slice: VTE parses about this much in a few milliseconds. */
#define DRAIN_SLICE      (32 * 1024)
#define DRAIN_INTERVAL   8
/* More waiting than this is more than the scrollback can show: the oldest
 * part goes, and a line says so. */
#define QUEUE_LIMIT      (4 * 1024 * 1024)

static gboolean
drain_cb (gpointer user_data)
{
  WardenTerminal *self = user_data;
  gsize left = self->queue->len - self->queue_start;
  gsize n = MIN (left, DRAIN_SLICE);

  if (self->skipped > 0)
    {
      g_autofree char *what =
        g_strdup_printf (_("%.1f MB of output not shown here: more than the scrollback holds"),
                         self->skipped / 1e6);
      g_autofree char *notice = g_strdup_printf ("\r\n\033[2m[%s]\033[0m\r\n", what);

      vte_terminal_feed (self->vte, notice, -1);
      self->skipped = 0;
    }
  if (n > 0)
    {
      /* Don't split a line if a newline is near: fewer partial redraws. */
      const guint8 *start = self->queue->data + self->queue_start;
      gsize cut = n;

      if (n < left)
        while (cut > n / 2 && start[cut - 1] != '\n')
          cut--;
      if (cut > n / 2)
        n = cut;
      vte_terminal_feed (self->vte, (const char *) start, n);
      self->queue_start += n;
    }
  if (self->queue_start >= self->queue->len)
    {
      g_byte_array_set_size (self->queue, 0);
      self->queue_start = 0;
      self->drain_id = 0;
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static void
queue_feed (WardenTerminal *self,
            const char     *data,
            gsize           length)
{
  if (length > 0)
    gtk_widget_set_visible (self->placeholder, FALSE);
  if (self->queue_start > 0 && self->queue_start * 2 > self->queue->len)
    {
      g_byte_array_remove_range (self->queue, 0, self->queue_start);
      self->queue_start = 0;
    }
  g_byte_array_append (self->queue, (const guint8 *) data, length);

  if (self->queue->len - self->queue_start > QUEUE_LIMIT)
    {
      /* Keep the newest half, from a line start. */
      gsize drop = self->queue->len - self->queue_start - QUEUE_LIMIT / 2;
      const guint8 *from = self->queue->data + self->queue_start + drop;
      const guint8 *nl = memchr (from, '\n', self->queue->len - self->queue_start - drop);

      if (nl != NULL)
        drop = nl + 1 - (self->queue->data + self->queue_start);
      self->skipped += drop;
      self->queue_start += drop;
    }

  if (self->drain_id == 0)
    {
      /* A short burst goes at once; the rest at a priority below redraws,
       * so frames come first. drain_cb() clears drain_id when done. */
      self->drain_id = G_MAXUINT;
      if (drain_cb (self) == G_SOURCE_CONTINUE)
        self->drain_id = g_timeout_add_full (G_PRIORITY_DEFAULT_IDLE, DRAIN_INTERVAL, drain_cb,
                                             self, NULL);
    }
}

/* Output is drawn below its command's prompt line and must not reach it:
 * the only sequences VTE gets from it are SGR (colours) and EL (erase in
 * the cursor's line, as progress bars use after "\r"). Everything else that
 * could move the cursor up, erase or scroll the screen, switch to the
 * alternate screen, save and restore the cursor, change the character set
 * or start a string (OSC, DCS…) is shown as text, its introducer escaped as
 * warden_printable() does: "\x1b[1A", "\u009b2K". Of the C0 controls only
 * "\t", "\b", "\r" and "\n" act; they stay on the cursor's line or go down. */
#define HELD_MAX 64

static void
append_escape (GString    *out,
               const char *bytes,
               gsize       len)
{
  g_autofree char *escape = warden_printable (bytes, len, WARDEN_PRINTABLE_ONE_LINE);

  g_string_append (out, escape);
}

/* A held sequence that will not be passed on: its first character
 * escaped, the rest (printable ASCII) as text. */
static void
release_held (WardenTerminal *self,
              GString        *out)
{
  if (self->held->len == 0)
    return;
  if ((guchar) self->held->str[0] == 0xc2)
    append_escape (out, self->held->str, self->held->len);
  else
    {
      append_escape (out, self->held->str, 1);
      g_string_append_len (out, self->held->str + 1, self->held->len - 1);
    }
  g_string_truncate (self->held, 0);
}

static gboolean
is_passed_csi (const char *seq,
               gsize       len,
               char        final)
{
  /* ESC [ digits, ';' or ':' only: no private marker, no intermediate. */
  if (final != 'm' && final != 'K')
    return FALSE;
  for (gsize k = 2; k < len; k++)
    if (!g_ascii_isdigit (seq[k]) && seq[k] != ';' && seq[k] != ':')
      return FALSE;
  return TRUE;
}

/* Whether @c ends or continues the held sequence (TRUE), or is not part
 * of it and has to be looked at on its own (FALSE) once it is released. */
static gboolean
continue_held (WardenTerminal *self,
               GString        *out,
               guchar          c)
{
  GString *held = self->held;

  if ((guchar) held->str[0] == 0xc2)
    {
      if (c >= 0x80 && c < 0xa0)
        {
          g_string_append_c (held, c);
          release_held (self, out);
          return TRUE;
        }
      /* Not a C1 control: the 0xc2 starts an ordinary character. */
      g_string_append_c (out, held->str[0]);
      g_string_truncate (held, 0);
      return FALSE;
    }
  if (held->len == 1)
    {
      if (c == '[')
        {
          g_string_append_c (held, c);
          return TRUE;
        }
      release_held (self, out);
      return FALSE;
    }
  if (c >= 0x20 && c < 0x40 && held->len < HELD_MAX)
    {
      g_string_append_c (held, c);
      return TRUE;
    }
  if (c >= 0x40 && c < 0x7f)
    {
      if (is_passed_csi (held->str, held->len, c))
        {
          g_string_append_len (out, held->str, held->len);
          g_string_append_c (out, c);
          g_string_truncate (held, 0);
        }
      else
        {
          release_held (self, out);
          g_string_append_c (out, c);
        }
      return TRUE;
    }
  /* A control inside the sequence: VTE would obey it and go on. */
  release_held (self, out);
  return FALSE;
}

static void
feed_string (WardenTerminal *self,
             GString        *out)
{
  if (out->len == 0)
    return;
  queue_feed (self, out->str, out->len);
  self->last_was_cr = out->str[out->len - 1] == '\r';
  self->at_line_start = out->str[out->len - 1] == '\n';
}

static void
ensure_line_start (WardenTerminal *self,
                   GString        *out)
{
  gboolean at_start = out->len > 0 ? out->str[out->len - 1] == '\n' : self->at_line_start;

  if (!at_start)
    g_string_append (out, "\r\n");
}

/* @text's lines, each after @prefix (which applies from the second line
 * on when @first_prefix is NULL), in @sgr, each ending in "\r\n". The text
 * is a model's command or a message: through warden_printable(), so no
 * control, C1 (VTE obeys U+009B as CSI), bidi or format character in it can
 * move the cursor or reorder what the line reads. */
static void
append_lines (GString    *out,
              const char *text,
              const char *sgr,
              const char *first_prefix,
              const char *prefix)
{
  g_autofree char *printable = warden_printable (text, -1, WARDEN_PRINTABLE_KEEP_LINES);
  g_auto(GStrv) lines = g_strsplit (printable, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      /* A final newline does not start another line. */
      if (lines[i + 1] == NULL && lines[i][0] == '\0' && i > 0)
        break;
      /* Whatever colours the output left set stop here. */
      g_string_append (out, SGR_RESET);
      if (i == 0 && first_prefix != NULL)
        g_string_append (out, first_prefix);
      else if (i > 0 && prefix != NULL)
        g_string_append (out, prefix);
      g_string_append (out, sgr);
      g_string_append (out, lines[i]);
      g_string_append (out, SGR_RESET "\r\n");
    }
}

void
warden_terminal_feed_command (WardenTerminal *self,
                              const char     *where,
                              const char     *command)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GString) prompt = g_string_new (SGR_PROMPT);

  g_return_if_fail (WARDEN_IS_TERMINAL (self));

  release_held (self, out);
  ensure_line_start (self, out);
  if (where != NULL && *where != '\0')
    {
      g_autofree char *printable = warden_printable (where, -1, WARDEN_PRINTABLE_ONE_LINE);

      g_string_append (prompt, printable);
      g_string_append_c (prompt, ' ');
    }
  g_string_append (prompt, "$" SGR_RESET " ");
  append_lines (out, command, "", prompt->str, SGR_DIM ">" SGR_RESET " ");
  feed_string (self, out);
}

void
warden_terminal_feed_output (WardenTerminal *self,
                             const char     *data,
                             gssize          length)
{
  g_autoptr(GString) out = NULL;
  const guchar *p = (const guchar *) data;
  gsize len;
  gsize run = 0;

  g_return_if_fail (WARDEN_IS_TERMINAL (self));

  if (data == NULL)
    return;
  len = length < 0 ? strlen (data) : (gsize) length;
  if (len == 0)
    return;

  /* One pass that copies runs of text: output can be tens of megabytes,
   * and VTE parses it incrementally on its own. */
  out = g_string_sized_new (len + len / 16 + 2);
  for (gsize i = 0; i < len;)
    {
      guchar c = p[i];
      gboolean had_cr;

      if (self->held->len > 0)
        {
          if (continue_held (self, out, c))
            i++;
          run = i;
          continue;
        }
      if (c >= 0x20 && c != 0x7f && c != 0xc2)
        {
          i++;
          continue;
        }
      g_string_append_len (out, (const char *) p + run, i - run);
      switch (c)
        {
        case '\n':
          had_cr = out->len > 0 ? out->str[out->len - 1] == '\r' : self->last_was_cr;
          g_string_append (out, had_cr ? "\n" : "\r\n");
          break;

        case '\r':
        case '\t':
        case '\b':
          g_string_append_c (out, c);
          break;

        case 0x1b:
        case 0xc2:
          g_string_append_c (self->held, c);
          break;

        default:
          append_escape (out, (const char *) p + i, 1);
          break;
        }
      i++;
      run = i;
    }
  g_string_append_len (out, (const char *) p + run, len - run);
  feed_string (self, out);
}

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

void
warden_terminal_feed_status (WardenTerminal *self,
                             int             exit_status,
                             gint64          duration_ms)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_autofree char *duration = duration_ms >= 0 ? format_duration (duration_ms) : NULL;
  g_autofree char *status = NULL;

  g_return_if_fail (WARDEN_IS_TERMINAL (self));

  release_held (self, out);
  ensure_line_start (self, out);
  if (exit_status > 0)
    status = g_strdup_printf (_("exit %d"), exit_status);
  else if (exit_status < 0)
    status = g_strdup (_("no exit status"));

  /* A quick success needs no comment: the next prompt follows. */
  if (status != NULL && duration != NULL)
    g_string_append_printf (out, SGR_RESET SGR_FAILED "[%s · %s]" SGR_RESET "\r\n",
                            status, duration);
  else if (status != NULL)
    g_string_append_printf (out, SGR_RESET SGR_FAILED "[%s]" SGR_RESET "\r\n", status);
  else if (duration != NULL && duration_ms >= 1000)
    g_string_append_printf (out, SGR_RESET SGR_DIM "[%s]" SGR_RESET "\r\n", duration);
  feed_string (self, out);
  self->at_line_start = TRUE;
}

void
warden_terminal_feed_interrupted (WardenTerminal *self,
                                  gint64          duration_ms)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_autofree char *duration = duration_ms >= 0 ? format_duration (duration_ms) : NULL;

  g_return_if_fail (WARDEN_IS_TERMINAL (self));

  release_held (self, out);
  ensure_line_start (self, out);
  if (duration != NULL)
    /* Translators: the end of a command's output in the terminal pane when
     * the user stopped it: "[interrupted · 1.3 s]" */
    g_string_append_printf (out, SGR_RESET SGR_FAILED "[%s · %s]" SGR_RESET "\r\n",
                            _("interrupted"), duration);
  else
    g_string_append_printf (out, SGR_RESET SGR_FAILED "[%s]" SGR_RESET "\r\n",
                            _("interrupted"));
  feed_string (self, out);
  self->at_line_start = TRUE;
}

void
warden_terminal_feed_notice (WardenTerminal *self,
                             const char     *text)
{
  g_autoptr(GString) out = g_string_new (NULL);

  g_return_if_fail (WARDEN_IS_TERMINAL (self));

  release_held (self, out);
  ensure_line_start (self, out);
  append_lines (out, text, SGR_NOTICE, NULL, NULL);
  feed_string (self, out);
}

void
warden_terminal_reset (WardenTerminal *self)
{
  g_return_if_fail (WARDEN_IS_TERMINAL (self));

  g_clear_handle_id (&self->drain_id, g_source_remove);
  g_byte_array_set_size (self->queue, 0);
  self->queue_start = 0;
  self->skipped = 0;
  g_string_truncate (self->held, 0);
  vte_terminal_reset (self->vte, TRUE, TRUE);
  /* The reset shows the cursor again and may leave the old screen's rows
   * in place: clear them and go home. */
  vte_terminal_feed (self->vte, "\033[2J\033[3J\033[H", -1);
  hide_cursor (self);
  self->last_was_cr = FALSE;
  self->at_line_start = TRUE;
  gtk_widget_set_visible (self->placeholder, TRUE);
}

void
warden_terminal_show_search (WardenTerminal *self)
{
  g_return_if_fail (WARDEN_IS_TERMINAL (self));

  gtk_search_bar_set_search_mode (GTK_SEARCH_BAR (self->search_bar), TRUE);
  gtk_widget_grab_focus (self->search_entry);
  gtk_editable_select_region (GTK_EDITABLE (self->search_entry), 0, -1);
}
