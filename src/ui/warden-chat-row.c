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

#define G_LOG_DOMAIN "warden-ui"

#include <glib/gi18n.h>

#include "warden-chat-row.h"

#include "common/warden-printable.h"
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

static void
render_text (WardenChatRow *self)
{
  const char *text = warden_chat_item_get_text (self->item);

  if (warden_chat_item_get_kind (self->item) == WARDEN_CHAT_ITEM_ASSISTANT)
    {
      g_autofree char *markup = warden_markdown_to_pango (text);

      gtk_label_set_markup (GTK_LABEL (self->text_label), markup);
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

  gtk_widget_set_visible (self->feedback,
                          decision == WARDEN_TOOL_DECISION_REJECTED
                          && feedback != NULL && *feedback != '\0');
  gtk_label_set_text (GTK_LABEL (self->feedback), feedback != NULL ? feedback : "");
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

  if (exit_status >= 0)
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
  if (is_error || exit_status > 0)
    gtk_widget_add_css_class (self->status, "error");
  else
    gtk_widget_remove_css_class (self->status, "error");
}

static void
update_output (WardenChatRow *self)
{
  const char *output = warden_chat_item_get_output (self->item);

  gtk_widget_set_visible (self->expander, output != NULL && *output != '\0');
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

static GtkWidget *
approval_box_new (WardenChatRow  *self,
                  WardenApproval *approval)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  const char *reason = warden_approval_get_reason (approval);
  const char *part = warden_approval_get_part (approval);
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
          gtk_box_append (GTK_BOX (buttons), choice);
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

      if (reason != NULL && part != NULL)
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

  gtk_box_append (GTK_BOX (buttons),
                  button_new (self, _("_Reject"), "destructive-action",
                              G_CALLBACK (reject_clicked_cb)));
  gtk_box_append (GTK_BOX (buttons),
                  button_new (self, _("Allow _Once"), "suggested-action",
                              G_CALLBACK (allow_once_clicked_cb)));
  gtk_box_append (GTK_BOX (buttons),
                  button_new (self, _("Always _Allow…"), NULL, G_CALLBACK (always_clicked_cb)));
  gtk_box_append (GTK_BOX (box), buttons);
  return box;
}

static void
update_approval (WardenChatRow *self)
{
  WardenApproval *approval = warden_chat_item_get_approval (self->item);

  if (self->approval_box != NULL)
    {
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

/* The item's notifications, for whichever parts its card has. */

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

  self->badge = label_new ("badge");
  gtk_widget_set_valign (self->badge, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (footer), self->badge);
  self->status = label_new ("tool-status");
  gtk_widget_add_css_class (self->status, "dim-label");
  gtk_widget_add_css_class (self->status, "numeric");
  gtk_widget_set_hexpand (self->status, TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->status), 1);
  gtk_box_append (GTK_BOX (footer), self->status);
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
      label = label_new ("assistant-message");
      /* A link asks before it opens, naming where it really goes. */
      g_signal_connect (label, "activate-link", G_CALLBACK (warden_markdown_activate_link), NULL);
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
      gtk_label_set_selectable (GTK_LABEL (label), TRUE);
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
