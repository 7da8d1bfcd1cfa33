/* warden-approval-dialog.c: asks the user about a command, a path or a question
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-ui"

#include <glib/gi18n.h>

#include "warden-approval-dialog.h"

#include <string.h>

#include "common/warden-printable.h"
#include "policy/warden-network.h"
#include "policy/warden-pattern.h"
#include "warden-chat-row.h"
#include "policy/warden-policy.h"

/* More would push the buttons off a small screen; the count says the rest. */
#define MAX_SHOWN_WOULD_ALLOW 8

/* A dialog that appears under a typing user must not take the keys meant
 * for the window as an answer: the approving buttons wait this long. */
#define ARM_DELAY_MS 500

struct _WardenApprovalDialog
{
  AdwMessageDialog  parent_instance;

  WardenApproval   *approval;
  WardenProfile    *profile;
  char             *workspace;
  GStrv             earlier_commands;
  gboolean          answered;
  gboolean          armed;
  guint             arm_id;

  GtkWidget        *context_box;
  GtkLabel         *context_label;
  GtkWidget        *command_box;
  GtkScrolledWindow *command_scroller;
  char             *command;       /* as it will run, for wrapping again */
  guint             wrap_columns;  /* characters a row of it holds */
  guint             rewrap_id;
  GtkLabel         *lines_label;
  GtkLabel         *line_numbers;
  GtkLabel         *subject_label;
  GtkLabel         *hidden_label;
  GtkLabel         *where_label;
  GtkLabel         *reason_label;
  GtkWidget        *part_box;
  GtkLabel         *part_title;
  GtkWidget        *parts_scroller;
  GtkBox           *parts_list;
  GtkLabel         *part_label;
  GtkWidget        *env_box;
  GtkLabel         *env_label;
  GtkWidget        *always_box;
  GtkEditable      *pattern_entry;
  GtkLabel         *pattern_message;
  GtkWidget        *would_allow_title;
  GtkBox           *would_allow_box;
  GtkEditable      *feedback_entry;
  GtkLabel         *keys_label;
  GtkEditable      *answer_entry;
  GtkWidget        *diff_slot;
  GtkWidget        *choices_box;
  GtkLabel         *saves_into_label;
};

G_DEFINE_FINAL_TYPE (WardenApprovalDialog, warden_approval_dialog, ADW_TYPE_MESSAGE_DIALOG)

enum {
  ANSWERED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

GPtrArray *
warden_approval_dialog_would_allow (WardenProfile      *profile,
                                    const char         *pattern,
                                    const char         *workspace,
                                    const char         *cwd,
                                    const char * const *commands)
{
  g_autoptr(GPtrArray) result = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(WardenProfile) base = NULL;
  g_autoptr(WardenProfile) extended = NULL;
  g_autoptr(WardenPolicy) before = NULL;
  g_autoptr(WardenPolicy) after = NULL;
  WardenCheckContext context = { workspace, cwd, NULL };

  g_return_val_if_fail (profile == NULL || WARDEN_IS_PROFILE (profile), NULL);

  if (commands == NULL || !warden_pattern_validate (pattern, NULL))
    return g_steal_pointer (&result);

  /* Without a profile, nothing was allowed: an empty allowlist is the same. */
  base = profile != NULL ? g_object_ref (profile) : warden_profile_new ("none");
  extended = warden_profile_copy (base, warden_profile_get_id (base));
  if (!warden_profile_add_allow (extended, pattern, NULL))
    return g_steal_pointer (&result);

  before = warden_policy_new_for_profile (base);
  after = warden_policy_new_for_profile (extended);

  for (guint i = 0; commands[i] != NULL; i++)
    {
      g_autoptr(WardenDecision) was = NULL;
      g_autoptr(WardenDecision) would = NULL;

      if (g_hash_table_contains (seen, commands[i]))
        continue;
      g_hash_table_add (seen, (gpointer) commands[i]);

      would = warden_policy_check (after, commands[i], -1, &context);
      if (warden_decision_get_verdict (would) != WARDEN_VERDICT_ALLOW)
        continue;
      was = warden_policy_check (before, commands[i], -1, &context);
      if (warden_decision_get_verdict (was) == WARDEN_VERDICT_ALLOW)
        continue;

      g_ptr_array_add (result, g_strdup (commands[i]));
    }

  return g_steal_pointer (&result);
}

static void
update_would_allow (WardenApprovalDialog *self,
                    const char           *pattern,
                    gboolean              valid)
{
  g_autoptr(GPtrArray) list = NULL;
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->would_allow_box))) != NULL)
    gtk_box_remove (self->would_allow_box, child);

  if (!valid || self->earlier_commands == NULL || self->earlier_commands[0] == NULL)
    {
      gtk_widget_set_visible (self->would_allow_title, FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->would_allow_box), FALSE);
      return;
    }

  list = warden_approval_dialog_would_allow (self->profile, pattern, self->workspace,
                                             warden_approval_get_cwd (self->approval),
                                             (const char * const *) self->earlier_commands);

  for (guint i = 0; i < list->len && i < MAX_SHOWN_WOULD_ALLOW; i++)
    {
      GtkWidget *label = gtk_label_new (g_ptr_array_index (list, i));

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_widget_set_tooltip_text (label, g_ptr_array_index (list, i));
      gtk_widget_add_css_class (label, "monospace");
      gtk_widget_add_css_class (label, "caption");
      gtk_box_append (self->would_allow_box, label);
    }
  if (list->len > MAX_SHOWN_WOULD_ALLOW)
    {
      guint more = list->len - MAX_SHOWN_WOULD_ALLOW;
      g_autofree char *text = g_strdup_printf (ngettext ("and %u more", "and %u more", more),
                                               more);
      GtkWidget *label = gtk_label_new (text);

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_widget_add_css_class (label, "dim-label");
      gtk_widget_add_css_class (label, "caption");
      gtk_box_append (self->would_allow_box, label);
    }

  /* Saying "none" matters too: it tells the user the pattern is narrow. */
  gtk_label_set_text (GTK_LABEL (self->would_allow_title),
                      list->len > 0
                      ? _("This pattern would also have allowed:")
                      : _("This pattern would not have allowed any earlier command of this session."));
  gtk_widget_set_visible (self->would_allow_title, TRUE);
  gtk_widget_set_visible (GTK_WIDGET (self->would_allow_box), list->len > 0);
}

/* When @pattern is the first suggestion and there are more: the others,
 * escaped, for the user to read; else NULL. */
static char *
also_saved (WardenApprovalDialog *self,
            const char           *pattern)
{
  const char * const *suggestions = warden_approval_get_suggestions (self->approval);
  g_autoptr(GString) out = NULL;

  if (suggestions == NULL || suggestions[0] == NULL || suggestions[1] == NULL ||
      g_strcmp0 (pattern, suggestions[0]) != 0)
    return NULL;
  out = g_string_new (NULL);
  for (guint i = 1; suggestions[i] != NULL; i++)
    {
      g_autofree char *shown = warden_printable (suggestions[i], -1, WARDEN_PRINTABLE_ONE_LINE);

      g_string_append_printf (out, "%s“%s”", i > 1 ? ", " : "", shown);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Where what is asked about comes from ("started by …", "wanted by …"),
 * under it. */
/* A command line in a label's markup, as code. */
static char *
code_markup (const char *text)
{
  g_autofree char *escaped = warden_printable_markup (text, -1, WARDEN_PRINTABLE_ONE_LINE);

  return g_strdup_printf ("<tt>%s</tt>", escaped);
}

static void
add_origin_label (WardenApprovalDialog *self,
                  const char           *markup)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_markup (GTK_LABEL (label), markup);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "warden-chain");
  gtk_box_append (GTK_BOX (self->diff_slot), label);
  gtk_widget_set_visible (self->diff_slot, TRUE);
}

/* A command pattern, or for a host a host pattern. */
static gboolean
pattern_is_valid (WardenApprovalDialog  *self,
                  const char            *pattern,
                  GError               **error)
{
  if (self->approval != NULL && warden_approval_get_kind (self->approval) == WARDEN_APPROVAL_HOST)
    return warden_host_pattern_validate (pattern, error);
  return warden_pattern_validate (pattern, error);
}

static void
pattern_changed_cb (WardenApprovalDialog *self)
{
  g_autoptr(GError) error = NULL;
  const char *pattern = gtk_editable_get_text (self->pattern_entry);
  gboolean valid;

  gboolean host;

  if (self->approval == NULL ||
      (warden_approval_get_kind (self->approval) != WARDEN_APPROVAL_COMMAND &&
       warden_approval_get_kind (self->approval) != WARDEN_APPROVAL_HOST) ||
      !adw_message_dialog_has_response (ADW_MESSAGE_DIALOG (self), "always"))
    return;

  host = warden_approval_get_kind (self->approval) == WARDEN_APPROVAL_HOST;
  valid = pattern_is_valid (self, pattern, &error);

  if (valid)
    gtk_widget_remove_css_class (GTK_WIDGET (self->pattern_entry), "error");
  else
    gtk_widget_add_css_class (GTK_WIDGET (self->pattern_entry), "error");
  adw_message_dialog_set_response_enabled (ADW_MESSAGE_DIALOG (self), "always",
                                           valid && self->armed);

  gtk_widget_remove_css_class (GTK_WIDGET (self->pattern_message), "error");
  gtk_widget_remove_css_class (GTK_WIDGET (self->pattern_message), "warning");
  if (!valid)
    {
      g_autofree char *text = g_strdup_printf (_("Not a valid pattern: %s"), error->message);

      gtk_label_set_text (self->pattern_message, text);
      gtk_widget_add_css_class (GTK_WIDGET (self->pattern_message), "error");
      gtk_widget_set_visible (GTK_WIDGET (self->pattern_message), TRUE);
    }
  else if (g_strcmp0 (pattern, "*") == 0)
    {
      /* Valid, and the user's call, but it turns the profile off. */
      gtk_label_set_text (self->pattern_message, host ? _("This pattern allows every host.")
                                                      : _("This pattern allows every command."));
      gtk_widget_add_css_class (GTK_WIDGET (self->pattern_message), "warning");
      gtk_widget_set_visible (GTK_WIDGET (self->pattern_message), TRUE);
    }
  else if (also_saved (self, pattern) != NULL)
    {
      /* Unchanged, it is one of several: every asking part's pattern is
       * saved, so the same command runs next time. */
      g_autofree char *others = also_saved (self, pattern);
      g_autofree char *text = g_strdup_printf (_("Also saves: %s"), others);

      gtk_label_set_text (self->pattern_message, text);
      gtk_widget_set_visible (GTK_WIDGET (self->pattern_message), TRUE);
    }
  else
    gtk_widget_set_visible (GTK_WIDGET (self->pattern_message), FALSE);

  /* Earlier commands say nothing of hosts. */
  update_would_allow (self, pattern, valid && !host);
}

/* What the keys do, under the feedback field.
 * Translators: Alt+O and Alt+R are the mnemonics of “Allow _once” and
 * “_Reject”: name the keys your translations of those underline. */
#define KEYS_TEXT N_("Alt+O allows once · Alt+R rejects · Ctrl+Return rejects with your words")

/* Return alone answers nothing: a person who typed "yes" and pressed it
 * meant to approve, and one who pressed it by habit meant nothing. The
 * label says which keys answer. */
static void
feedback_activate_cb (WardenApprovalDialog *self)
{
  const char *text = gtk_editable_get_text (self->feedback_entry);

  /* Translators: the keys are the mnemonics of “Allow _once” and “_Reject”. */
  gtk_label_set_text (self->keys_label,
                      text[0] != '\0'
                      ? _("Return does not answer: Ctrl+Return rejects with these words, "
                          "Alt+O allows once")
                      : _("Return does not answer: Alt+O allows once, Alt+R rejects"));
  gtk_widget_remove_css_class (GTK_WIDGET (self->keys_label), "dim-label");
  gtk_widget_add_css_class (GTK_WIDGET (self->keys_label), "warning");
}

/* Ctrl+Return in the feedback field: a rejection, with its words. */
static gboolean
feedback_key_pressed_cb (WardenApprovalDialog  *self,
                         guint                  keyval,
                         guint                  keycode,
                         GdkModifierType        state)
{
  if ((keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter || keyval == GDK_KEY_ISO_Enter) &&
      (state & GDK_CONTROL_MASK) != 0)
    {
      warden_approval_dialog_respond (self, "reject");
      return GDK_EVENT_STOP;
    }
  return GDK_EVENT_PROPAGATE;
}

static void
answer_changed_cb (WardenApprovalDialog *self)
{
  const char *text = gtk_editable_get_text (self->answer_entry);

  if (adw_message_dialog_has_response (ADW_MESSAGE_DIALOG (self), "answer"))
    adw_message_dialog_set_response_enabled (ADW_MESSAGE_DIALOG (self), "answer",
                                             text[0] != '\0');
}

static void
answer_activate_cb (WardenApprovalDialog *self)
{
  warden_approval_dialog_respond (self, "answer");
}

static void
set_approving_enabled (WardenApprovalDialog *self)
{
  AdwMessageDialog *dialog = ADW_MESSAGE_DIALOG (self);

  if (adw_message_dialog_has_response (dialog, "once"))
    adw_message_dialog_set_response_enabled (dialog, "once", self->armed);
  if (adw_message_dialog_has_response (dialog, "always"))
    adw_message_dialog_set_response_enabled (dialog, "always",
                                             self->armed &&
                                             pattern_is_valid (self,
                                                               gtk_editable_get_text (self->pattern_entry),
                                                               NULL));
}

static gboolean
arm_cb (gpointer user_data)
{
  WardenApprovalDialog *self = user_data;

  self->arm_id = 0;
  self->armed = TRUE;
  set_approving_enabled (self);
  return G_SOURCE_REMOVE;
}

/* Each time it appears, not once: a dialog shown again is as sudden. */
static void
warden_approval_dialog_map (GtkWidget *widget)
{
  WardenApprovalDialog *self = WARDEN_APPROVAL_DIALOG (widget);

  GTK_WIDGET_CLASS (warden_approval_dialog_parent_class)->map (widget);

  self->armed = FALSE;
  set_approving_enabled (self);
  g_clear_handle_id (&self->arm_id, g_source_remove);
  self->arm_id = g_timeout_add (ARM_DELAY_MS, arm_cb, self);
}

static void
emit_answered (WardenApprovalDialog *self,
               gboolean              approved,
               gboolean              allow_always,
               const char           *text)
{
  if (self->answered)
    return;
  self->answered = TRUE;
  g_signal_emit (self, signals[ANSWERED], 0, approved, allow_always, text ? text : "");
}

/* The class handler of "response": it runs whether a button was clicked,
 * warden_approval_dialog_respond() was called or the window was closed. */
static void
warden_approval_dialog_response (AdwMessageDialog *dialog,
                                 const char       *response)
{
  WardenApprovalDialog *self = WARDEN_APPROVAL_DIALOG (dialog);
  g_autofree char *text = NULL;

  if (self->answered || self->approval == NULL)
    return;

  if (g_strcmp0 (response, "reject") == 0)
    {
      text = g_strstrip (g_strdup (gtk_editable_get_text (self->feedback_entry)));
      emit_answered (self, FALSE, FALSE, text);
    }
  else if (g_strcmp0 (response, "once") == 0)
    emit_answered (self, TRUE, FALSE, "");
  else if (g_strcmp0 (response, "always") == 0)
    {
      g_autofree char *others = NULL;

      text = g_strdup (gtk_editable_get_text (self->pattern_entry));
      /* The button is disabled then; this guards a programmatic response. */
      if (!pattern_is_valid (self, text, NULL))
        return;
      /* The suggestion as offered: no pattern given, the agent saves every
       * asking part's. An edited one is saved as it is. */
      others = also_saved (self, text);
      emit_answered (self, TRUE, TRUE, others != NULL ? "" : text);
    }
  else if (g_strcmp0 (response, "answer") == 0)
    {
      text = g_strdup (gtk_editable_get_text (self->answer_entry));
      emit_answered (self, TRUE, FALSE, text);
    }
  /* Anything else is "close": the dialog went away unanswered, and the
   * approval still waits in the chat and the notification. */
}

static void
close_dialog (WardenApprovalDialog *self)
{
  g_object_ref (self);
  /* An unrealized window ignores gtk_window_close(). */
  if (gtk_widget_get_realized (GTK_WIDGET (self)))
    gtk_window_close (GTK_WINDOW (self));
  else
    gtk_window_destroy (GTK_WINDOW (self));
  g_object_unref (self);
}

static void
answer_choice (WardenApprovalDialog *self,
               guint                 index)
{
  const char * const *choices = warden_approval_get_choices (self->approval);
  g_autofree char *choice = NULL;

  if (self->answered || choices == NULL || index >= g_strv_length ((GStrv) choices))
    return;
  choice = g_strdup (choices[index]);

  /* Whoever hears "answered" may destroy the dialog, and its approval. */
  g_object_ref (self);
  emit_answered (self, TRUE, FALSE, choice);
  close_dialog (self);
  g_object_unref (self);
}

static void
choice_clicked_cb (WardenApprovalDialog *self,
                   GtkButton            *button)
{
  answer_choice (self, GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "choice-index")));
}

void
warden_approval_dialog_respond (WardenApprovalDialog *self,
                                const char           *response_id)
{
  AdwMessageDialog *dialog = ADW_MESSAGE_DIALOG (self);

  g_return_if_fail (WARDEN_IS_APPROVAL_DIALOG (self));
  g_return_if_fail (response_id != NULL);

  /* The choices are buttons of the dialog's own, not responses. */
  if (g_str_has_prefix (response_id, "choice-") && self->approval != NULL &&
      warden_approval_get_kind (self->approval) == WARDEN_APPROVAL_QUESTION)
    {
      guint64 n = 0;

      if (g_ascii_string_to_unsigned (response_id + strlen ("choice-"), 10, 0, G_MAXUINT, &n,
                                      NULL))
        answer_choice (self, (guint) n);
      return;
    }

  if (!adw_message_dialog_has_response (dialog, response_id) ||
      !adw_message_dialog_get_response_enabled (dialog, response_id))
    return;

  g_object_ref (self);
  adw_message_dialog_response (dialog, response_id);
  /* A clicked button closes the dialog; adw_message_dialog_response() does not.
   * An unrealized window ignores gtk_window_close(). */
  if (gtk_widget_get_realized (GTK_WIDGET (self)))
    gtk_window_close (GTK_WINDOW (self));
  else
    gtk_window_destroy (GTK_WINDOW (self));
  g_object_unref (self);
}

void
warden_approval_dialog_set_context (WardenApprovalDialog *self,
                                    const char           *text)
{
  g_autofree char *stripped = NULL;
  g_autofree char *markup = NULL;

  g_return_if_fail (WARDEN_IS_APPROVAL_DIALOG (self));

  stripped = g_strstrip (g_strdup (text != NULL ? text : ""));
  /* The model's words can hide things as well as its commands can. */
  markup = warden_printable_markup (stripped, -1, WARDEN_PRINTABLE_KEEP_LINES);
  gtk_label_set_markup (self->context_label, markup);
  gtk_widget_set_visible (self->context_box, stripped[0] != '\0');
}

const char *
warden_approval_dialog_get_approval_id (WardenApprovalDialog *self)
{
  g_return_val_if_fail (WARDEN_IS_APPROVAL_DIALOG (self), NULL);

  return self->approval ? warden_approval_get_id (self->approval) : NULL;
}

GtkEditable *
warden_approval_dialog_get_pattern_entry (WardenApprovalDialog *self)
{
  g_return_val_if_fail (WARDEN_IS_APPROVAL_DIALOG (self), NULL);

  return self->pattern_entry;
}

/* What the dialog says the keys do (it changes after a stray Return). */
const char *
warden_approval_dialog_get_keys_text (WardenApprovalDialog *self)
{
  g_return_val_if_fail (WARDEN_IS_APPROVAL_DIALOG (self), NULL);

  return gtk_label_get_text (self->keys_label);
}

GtkEditable *
warden_approval_dialog_get_feedback_entry (WardenApprovalDialog *self)
{
  g_return_val_if_fail (WARDEN_IS_APPROVAL_DIALOG (self), NULL);

  return self->feedback_entry;
}

GtkEditable *
warden_approval_dialog_get_answer_entry (WardenApprovalDialog *self)
{
  g_return_val_if_fail (WARDEN_IS_APPROVAL_DIALOG (self), NULL);

  return self->answer_entry;
}

static void
set_label_or_hide (GtkLabel   *label,
                   GtkWidget  *container,
                   const char *text)
{
  gboolean shown = text != NULL && text[0] != '\0';
  /* The reason, the part, the environment and the directory all quote what
   * the model wrote: what hides in them is escaped as in the command. */
  g_autofree char *markup = warden_printable_markup (shown ? text : "", -1,
                                                     WARDEN_PRINTABLE_KEEP_LINES);

  gtk_label_set_markup (label, markup);
  gtk_widget_set_visible (container ? container : GTK_WIDGET (label), shown);
}

static char *
describe_where (WardenApproval *approval)
{
  const char *cwd = warden_approval_get_cwd (approval);
  const char *sandbox_name = NULL;

  switch (warden_approval_get_sandbox (approval))
    {
    case WARDEN_SANDBOX_KIND_DOCKER:
      sandbox_name = _("Docker container");
      break;
    case WARDEN_SANDBOX_KIND_BWRAP:
      sandbox_name = _("Bubblewrap sandbox");
      break;
    case WARDEN_SANDBOX_KIND_HOST:
      sandbox_name = _("host, without a sandbox");
      break;
    case WARDEN_SANDBOX_KIND_AUTO:    /* none said */
    default:
      break;
    }

  if (cwd != NULL && cwd[0] != '\0' && sandbox_name != NULL)
    /* Translators: "In /workspace/src · Docker container" */
    return g_strdup_printf (_("In %s · %s"), cwd, sandbox_name);
  if (cwd != NULL && cwd[0] != '\0')
    return g_strdup_printf (_("In %s"), cwd);
  if (sandbox_name != NULL)
    return g_strdup_printf (_("On the %s"), sandbox_name);
  return NULL;
}

/* The command as it is, not as it reads: every hidden or direction-changing
 * character escaped, each line numbered, in a view of bounded height so a
 * long command cannot push the rest of the dialog off the screen. */
/* Where a long line wraps before the dialog knows its width: the end of a
 * line, where a second command usually sits, must not be hidden behind a
 * scrollbar. Once laid out, rows are as wide as the view (rewrap_cb). */
#define WRAP_COLUMNS 64
#define MIN_WRAP_COLUMNS 16

static void
render_command (WardenApprovalDialog *self,
                const char           *subject)
{
  guint columns = self->wrap_columns ? self->wrap_columns : WRAP_COLUMNS;
  g_autoptr(GString) markup = g_string_new (NULL);
  g_autoptr(GString) numbers = g_string_new (NULL);
  guint lines = 0, rows = 0;

  if (subject == NULL)
    subject = "";

  /* Each line cut in rows of @columns characters, each row escaped on
   * its own. The gutter numbers the lines and marks a row that goes on
   * from the one above with ↪: the mark is outside the text, so a command
   * cannot draw one where a new line starts. */
  for (const char *line = subject; ; )
    {
      const char *end = strchr (line, '\n');
      const char *row = line;

      if (end == NULL)
        end = line + strlen (line);
      lines++;
      do
        {
          const char *cut = row;
          g_autofree char *escaped = NULL;

          for (guint n = 0; n < columns && cut < end; n++)
            cut = g_utf8_find_next_char (cut, end) ? g_utf8_find_next_char (cut, end) : end;
          escaped = warden_printable_markup (row, cut - row, WARDEN_PRINTABLE_ONE_LINE);
          if (rows > 0)
            {
              g_string_append_c (markup, '\n');
              g_string_append_c (numbers, '\n');
            }
          g_string_append (markup, escaped);
          if (row == line)
            g_string_append_printf (numbers, "%u", lines);
          else
            g_string_append (numbers, "↪");
          rows++;
          row = cut;
        }
      while (row < end);
      if (*end == '\0')
        break;
      line = end + 1;
    }
  gtk_label_set_markup (self->subject_label, markup->str);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->subject_label), NULL);
  gtk_label_set_text (self->line_numbers, numbers->str);
  gtk_widget_set_visible (GTK_WIDGET (self->line_numbers), rows > 1);
}

/* The view's width is known (or changed): as many characters to a row as
 * it shows, at least MIN_WRAP_COLUMNS (narrower, it scrolls sideways). */
static gboolean
rewrap_cb (gpointer user_data)
{
  WardenApprovalDialog *self = user_data;
  GtkAdjustment *h = gtk_scrolled_window_get_hadjustment (self->command_scroller);
  g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (GTK_WIDGET (self->subject_label),
                                                                  "0000000000");
  double page = gtk_adjustment_get_page_size (h);
  int gutter = gtk_widget_get_visible (GTK_WIDGET (self->line_numbers))
               ? gtk_widget_get_width (GTK_WIDGET (self->line_numbers)) + 8 : 0;
  int ten = 0;
  guint columns;

  self->rewrap_id = 0;
  pango_layout_get_pixel_size (layout, &ten, NULL);
  if (ten <= 0 || page <= 0 || self->command == NULL)
    return G_SOURCE_REMOVE;
  /* A gutter may appear with the first wrap: leave room for three digits. */
  if (gutter == 0)
    gutter = 3 * ten / 10 + 8;
  columns = MAX (MIN_WRAP_COLUMNS, (guint) ((page - gutter - 4) * 10 / ten));
  if (columns != self->wrap_columns)
    {
      self->wrap_columns = columns;
      render_command (self, self->command);
    }
  return G_SOURCE_REMOVE;
}

static void
command_width_cb (WardenApprovalDialog *self)
{
  if (self->rewrap_id == 0)
    self->rewrap_id = g_idle_add (rewrap_cb, self);
}

static void
show_command (WardenApprovalDialog *self,
              const char           *subject)
{
  guint lines = 1, empty = 0;

  if (subject == NULL)
    subject = "";
  g_free (self->command);
  self->command = g_strdup (subject);
  render_command (self, subject);
  for (const char *line = subject; ; )
    {
      const char *end = strchr (line, '\n');
      gboolean line_empty = TRUE;

      if (end == NULL)
        end = line + strlen (line);
      for (const char *p = line; p < end; p++)
        if (*p != ' ' && *p != '\t')
          line_empty = FALSE;
      if (line_empty)
        empty++;
      if (*end == '\0')
        break;
      lines++;
      line = end + 1;
    }

  if (lines > 1)
    {
      g_autoptr(GString) text = g_string_new (NULL);

      g_string_append_printf (text, ngettext ("This command has %u line.",
                                              "This command has %u lines.", lines), lines);
      if (empty > 0)
        {
          g_string_append_c (text, ' ');
          g_string_append_printf (text, ngettext ("%u of them is empty.",
                                                  "%u of them are empty.", empty), empty);
        }
      gtk_label_set_text (self->lines_label, text->str);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->lines_label), lines > 1);
  gtk_widget_set_visible (GTK_WIDGET (self->hidden_label),
                          warden_printable_hides (subject, -1, WARDEN_PRINTABLE_KEEP_LINES));
  gtk_widget_set_visible (self->command_box, TRUE);
}

static const char *
verdict_text (WardenVerdict verdict)
{
  switch (verdict)
    {
    case WARDEN_VERDICT_ALLOW:
      return _("allowed");
    case WARDEN_VERDICT_DENY:
      return _("denied");
    case WARDEN_VERDICT_ASK:
    default:
      return _("asks");
    }
}

static void
append_part (WardenApprovalDialog     *self,
             const WardenDecisionPart *part)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *texts = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *verdict = gtk_label_new (verdict_text (part->verdict));
  GtkWidget *text = gtk_label_new (NULL);
  g_autofree char *markup = warden_printable_markup (part->text, -1, WARDEN_PRINTABLE_ONE_LINE);

  gtk_widget_add_css_class (row, "warden-part");
  if (part->verdict != WARDEN_VERDICT_ALLOW)
    gtk_widget_add_css_class (row, "warden-part-asks");
  gtk_widget_set_valign (verdict, GTK_ALIGN_START);
  gtk_widget_add_css_class (verdict, "warden-verdict");
  gtk_widget_add_css_class (verdict, "caption-heading");
  gtk_box_append (GTK_BOX (row), verdict);

  gtk_label_set_markup (GTK_LABEL (text), markup);
  gtk_label_set_xalign (GTK_LABEL (text), 0);
  gtk_label_set_wrap (GTK_LABEL (text), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (text), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (text), TRUE);
  gtk_widget_add_css_class (text, "monospace");
  gtk_box_append (GTK_BOX (texts), text);
  if (part->reason != NULL && part->reason[0] != '\0')
    {
      /* A reason quotes the part: escaped as the part is. */
      g_autofree char *reason_markup = warden_printable_markup (part->reason, -1,
                                                                WARDEN_PRINTABLE_ONE_LINE);
      GtkWidget *reason = gtk_label_new (NULL);

      gtk_label_set_markup (GTK_LABEL (reason), reason_markup);

      gtk_label_set_xalign (GTK_LABEL (reason), 0);
      gtk_label_set_wrap (GTK_LABEL (reason), TRUE);
      gtk_widget_add_css_class (reason, "dim-label");
      gtk_widget_add_css_class (reason, "caption");
      gtk_box_append (GTK_BOX (texts), reason);
    }
  gtk_widget_set_hexpand (texts, TRUE);
  gtk_box_append (GTK_BOX (row), texts);
  gtk_box_append (self->parts_list, row);
}

/* Every part that will run, with what the profile says of it: the ones
 * that ask first, highlighted. FALSE when there is no decision to list. */
static gboolean
show_parts (WardenApprovalDialog *self,
            WardenDecision       *decision)
{
  guint n = decision != NULL ? warden_decision_get_n_parts (decision) : 0;

  if (n == 0)
    return FALSE;
  for (int pass = 0; pass < 2; pass++)
    for (guint i = 0; i < n; i++)
      {
        const WardenDecisionPart *part = warden_decision_get_part (decision, i);
        gboolean asks = part->verdict != WARDEN_VERDICT_ALLOW;

        if (asks == (pass == 0))
          append_part (self, part);
      }
  gtk_label_set_text (self->part_title, _("What would run, and what the profile says of each part:"));
  gtk_widget_set_visible (GTK_WIDGET (self->part_label), FALSE);
  gtk_widget_set_visible (self->parts_scroller, TRUE);
  gtk_widget_set_visible (self->part_box, TRUE);
  return TRUE;
}

/* A built-in profile is never edited: say, before the button is pressed,
 * which copy the pattern goes into. */
static void
show_saves_into (WardenApprovalDialog *self)
{
  const char *into = warden_approval_get_saves_into (self->approval);
  g_autofree char *fallback = NULL;
  g_autofree char *shown = NULL;
  g_autofree char *text = NULL;

  if (into == NULL && self->profile != NULL && warden_profile_get_builtin (self->profile))
    into = fallback = g_strdup_printf (_("%s (yours)"),
                                       warden_profile_get_name (self->profile)
                                       ? warden_profile_get_name (self->profile)
                                       : warden_profile_get_id (self->profile));
  gtk_widget_set_visible (GTK_WIDGET (self->saves_into_label), into != NULL);
  if (into == NULL)
    return;
  shown = warden_printable (into, -1, WARDEN_PRINTABLE_ONE_LINE);
  text = g_strdup_printf (_("Saves into your copy “%s”, as a built-in profile is never "
                            "changed; this session and new sessions use it."), shown);
  gtk_label_set_text (self->saves_into_label, text);
}

static void
setup (WardenApprovalDialog *self)
{
  AdwMessageDialog *dialog = ADW_MESSAGE_DIALOG (self);
  WardenApprovalKind kind = warden_approval_get_kind (self->approval);
  const char *subject = warden_approval_get_subject (self->approval);
  g_autofree char *where = describe_where (self->approval);

  if (kind == WARDEN_APPROVAL_QUESTION)
    {
      const char * const *choices = warden_approval_get_choices (self->approval);

      adw_message_dialog_set_heading (dialog, warden_approval_get_heading (self->approval));
      adw_message_dialog_set_body (dialog, subject ? subject : "");
      gtk_widget_set_visible (self->command_box, FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->where_label), FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->reason_label), FALSE);
      gtk_widget_set_visible (self->part_box, FALSE);
      gtk_widget_set_visible (self->always_box, FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->feedback_entry), FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->keys_label), FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->answer_entry), TRUE);

      /* Buttons of their own, not responses: a message dialog stacks its
       * responses bottom-up when they do not fit side by side, which put
       * the agent's choices in reverse order. */
      for (guint i = 0; choices != NULL && choices[i] != NULL; i++)
        {
          g_autofree char *shown = warden_printable (choices[i], -1, WARDEN_PRINTABLE_ONE_LINE);
          GtkWidget *button = gtk_button_new_with_label (shown);
          GtkWidget *label = gtk_button_get_child (GTK_BUTTON (button));

          if (GTK_IS_LABEL (label))
            {
              gtk_label_set_wrap (GTK_LABEL (label), TRUE);
              gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
            }
          gtk_widget_add_css_class (button, "warden-choice");
          g_object_set_data (G_OBJECT (button), "choice-index", GUINT_TO_POINTER (i));
          g_signal_connect_object (button, "clicked", G_CALLBACK (choice_clicked_cb), self,
                                   G_CONNECT_SWAPPED);
          gtk_box_append (GTK_BOX (self->choices_box), button);
        }
      gtk_widget_set_visible (self->choices_box, choices != NULL && choices[0] != NULL);
      adw_message_dialog_add_response (dialog, "answer", _("_Answer"));
      adw_message_dialog_set_response_appearance (dialog, "answer", ADW_RESPONSE_SUGGESTED);
      adw_message_dialog_set_response_enabled (dialog, "answer", FALSE);
      return;
    }

  adw_message_dialog_set_heading (dialog, warden_approval_get_heading (self->approval));
  show_command (self, subject);
  {
    /* Where it comes from: the command that wants a host (it waits
     * meanwhile), what started a program (only it waits; the command goes on). */
    g_auto(GStrv) origins = warden_approval_dup_origins (self->approval, code_markup);

    if (origins[0] != NULL)
      {
        g_autofree char *markup = g_strjoinv ("\n", origins);

        add_origin_label (self, markup);
      }
  }
  {
    /* A write or an edit shows what it would change, under its path. */
    const char *diff = warden_approval_get_diff (self->approval);

    if (kind == WARDEN_APPROVAL_PATH && diff != NULL && diff[0] != '\0')
      {
        GtkWidget *view = warden_chat_row_diff_view_new (FALSE);

        warden_chat_row_diff_view_set_path (view, warden_approval_get_subject (self->approval));
        warden_chat_row_diff_view_set_diff (view, diff);
        gtk_box_append (GTK_BOX (self->diff_slot), view);
        gtk_widget_set_visible (self->diff_slot, TRUE);
      }
  }
  set_label_or_hide (self->where_label, NULL, where);
  set_label_or_hide (self->reason_label, NULL, warden_approval_get_reason (self->approval));
  if (!show_parts (self, warden_approval_get_decision (self->approval)))
    set_label_or_hide (self->part_label, self->part_box,
                       kind == WARDEN_APPROVAL_HOST ? NULL
                                                    : warden_approval_get_part (self->approval));

  {
    const char * const *env = warden_approval_get_env (self->approval);
    g_autofree char *text = env ? g_strjoinv ("\n", (GStrv) env) : NULL;

    set_label_or_hide (self->env_label, self->env_box, text);
  }

  adw_message_dialog_add_response (dialog, "reject", _("_Reject"));
  adw_message_dialog_set_response_appearance (dialog, "reject", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_add_response (dialog, "once", _("Allow _once"));
  adw_message_dialog_set_response_appearance (dialog, "once", ADW_RESPONSE_SUGGESTED);
  /* No default response: Enter must never approve, nor reject. The keyboard
   * starts in the feedback entry, where Ctrl+Return rejects with its words. */
  gtk_label_set_text (self->keys_label, _(KEYS_TEXT));
  gtk_window_set_focus (GTK_WINDOW (self), GTK_WIDGET (self->feedback_entry));

  if (kind == WARDEN_APPROVAL_COMMAND)
    {
      const char * const *suggestions = warden_approval_get_suggestions (self->approval);
      WardenDecision *decision = warden_approval_get_decision (self->approval);
      const char *uncovered_text = NULL, *uncovered_reason = NULL;

      if (warden_approval_get_uncovered (self->approval, &uncovered_text, &uncovered_reason))
        {
          /* Saving a pattern would only pretend: the command would still ask. */
          const WardenDecisionPart *ruled = decision ? warden_decision_get_asked_by_rule (decision)
                                                     : NULL;
          g_autofree char *part = warden_printable (ruled ? ruled->text : uncovered_text, -1,
                                                    WARDEN_PRINTABLE_ONE_LINE);
          g_autofree char *why = warden_printable (ruled ? ruled->pattern : uncovered_reason,
                                                   -1, WARDEN_PRINTABLE_ONE_LINE);
          /* Translators: the first %s is a pattern of the profile, the second a command */
          g_autofree char *text = ruled != NULL
                                  ? g_strdup_printf (_("Always allow is not offered: the "
                                                       "profile’s ask rule “%s” asks before "
                                                       "“%s” every time, whatever allows it."),
                                                     why, part)
                                  : g_strdup_printf (_("Always allow cannot make this command "
                                                       "run without asking: no pattern can "
                                                       "allow “%s” (%s)."), part, why);

          /* No field for a pattern that could not be saved (issue 32). */
          gtk_editable_set_text (self->pattern_entry, "");
          gtk_widget_set_sensitive (GTK_WIDGET (self->pattern_entry), FALSE);
          gtk_widget_set_visible (GTK_WIDGET (self->pattern_entry), FALSE);
          gtk_label_set_text (self->pattern_message, text);
          gtk_widget_remove_css_class (GTK_WIDGET (self->pattern_entry), "error");
          gtk_widget_remove_css_class (GTK_WIDGET (self->pattern_message), "error");
          gtk_widget_add_css_class (GTK_WIDGET (self->pattern_message), "warning");
          gtk_widget_set_visible (GTK_WIDGET (self->pattern_message), TRUE);
          gtk_widget_set_visible (self->would_allow_title, FALSE);
          gtk_widget_set_visible (GTK_WIDGET (self->would_allow_box), FALSE);
        }
      else
        {
          adw_message_dialog_add_response (dialog, "always", _("_Always allow"));
          show_saves_into (self);
          gtk_widget_set_sensitive (GTK_WIDGET (self->pattern_entry), TRUE);
          gtk_editable_set_text (self->pattern_entry,
                                 suggestions && suggestions[0] ? suggestions[0] : "");
          /* set_text() of the same text emits nothing: validate the first one here. */
          pattern_changed_cb (self);
        }
    }
  else if (kind == WARDEN_APPROVAL_HOST)
    {
      const char * const *suggestions = warden_approval_get_suggestions (self->approval);

      /* Saved into the profile's network allow list. */
      adw_message_dialog_add_response (dialog, "always", _("_Always allow"));
      show_saves_into (self);
      gtk_widget_set_sensitive (GTK_WIDGET (self->pattern_entry), TRUE);
      gtk_editable_set_text (self->pattern_entry,
                             suggestions && suggestions[0] ? suggestions[0] : "");
      pattern_changed_cb (self);
    }
  else
    {
      /* File access has no pattern to save: it is approved one call at a time. */
      gtk_widget_set_visible (self->always_box, FALSE);
    }
}

/* The scrolled parts share what a small window leaves, so the buttons stay
 * on screen there too. */
static void
fit_to (WardenApprovalDialog *self,
        GtkWindow            *parent)
{
  int height = parent != NULL ? gtk_widget_get_height (GTK_WIDGET (parent)) : 0;

  if (height <= 0)
    return;
  gtk_scrolled_window_set_max_content_height (self->command_scroller, CLAMP (height / 4, 72, 240));
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (self->parts_scroller),
                                              CLAMP (height / 6, 48, 160));
}

WardenApprovalDialog *
warden_approval_dialog_new (GtkWindow          *parent,
                            WardenApproval     *approval,
                            WardenProfile      *profile,
                            const char         *workspace,
                            const char * const *earlier_commands)
{
  WardenApprovalDialog *self;

  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (WARDEN_IS_APPROVAL (approval), NULL);
  g_return_val_if_fail (profile == NULL || WARDEN_IS_PROFILE (profile), NULL);

  self = g_object_new (WARDEN_TYPE_APPROVAL_DIALOG,
                       "transient-for", parent,
                       "modal", parent != NULL,
                       NULL);
  self->approval = g_object_ref (approval);
  g_set_object (&self->profile, profile);
  self->workspace = g_strdup (workspace);
  self->earlier_commands = g_strdupv ((GStrv) earlier_commands);

  setup (self);
  fit_to (self, parent);

  return self;
}

static void
warden_approval_dialog_dispose (GObject *object)
{
  WardenApprovalDialog *self = WARDEN_APPROVAL_DIALOG (object);

  g_clear_handle_id (&self->arm_id, g_source_remove);
  g_clear_handle_id (&self->rewrap_id, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (self), WARDEN_TYPE_APPROVAL_DIALOG);
  g_clear_object (&self->approval);
  g_clear_object (&self->profile);

  G_OBJECT_CLASS (warden_approval_dialog_parent_class)->dispose (object);
}

static void
warden_approval_dialog_finalize (GObject *object)
{
  WardenApprovalDialog *self = WARDEN_APPROVAL_DIALOG (object);

  g_free (self->workspace);
  g_free (self->command);
  g_strfreev (self->earlier_commands);

  G_OBJECT_CLASS (warden_approval_dialog_parent_class)->finalize (object);
}

static void
warden_approval_dialog_class_init (WardenApprovalDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  AdwMessageDialogClass *dialog_class = ADW_MESSAGE_DIALOG_CLASS (klass);

  object_class->dispose = warden_approval_dialog_dispose;
  object_class->finalize = warden_approval_dialog_finalize;
  dialog_class->response = warden_approval_dialog_response;
  widget_class->map = warden_approval_dialog_map;

  /**
   * WardenApprovalDialog::answered:
   * @approved: allowed (or, for a question, answered)
   * @allow_always: save the pattern in the profile
   * @text: the feedback (rejected), the pattern (always), "" (once) or the answer
   */
  signals[ANSWERED] = g_signal_new ("answered",
                                    G_TYPE_FROM_CLASS (klass),
                                    G_SIGNAL_RUN_LAST,
                                    0, NULL, NULL, NULL,
                                    G_TYPE_NONE, 3,
                                    G_TYPE_BOOLEAN, G_TYPE_BOOLEAN, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RESOURCE_PREFIX "/warden-approval-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, subject_label);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, command_scroller);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, context_label);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, context_box);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, parts_list);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, parts_scroller);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, part_title);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, hidden_label);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, line_numbers);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, lines_label);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, command_box);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, where_label);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, reason_label);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, part_box);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, part_label);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, env_box);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, env_label);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, always_box);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, pattern_entry);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, pattern_message);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, would_allow_title);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, would_allow_box);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, feedback_entry);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, keys_label);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, answer_entry);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, diff_slot);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, choices_box);
  gtk_widget_class_bind_template_child (widget_class, WardenApprovalDialog, saves_into_label);
  gtk_widget_class_bind_template_callback (widget_class, pattern_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, feedback_activate_cb);
  gtk_widget_class_bind_template_callback (widget_class, feedback_key_pressed_cb);
  gtk_widget_class_bind_template_callback (widget_class, answer_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, answer_activate_cb);
}

static void
warden_approval_dialog_init (WardenApprovalDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect_object (gtk_scrolled_window_get_hadjustment (self->command_scroller),
                           "notify::page-size", G_CALLBACK (command_width_cb), self,
                           G_CONNECT_SWAPPED);
  /* Until it is shown, nothing can be pressed by accident: armed. */
  self->armed = TRUE;
}
