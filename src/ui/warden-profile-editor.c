/* warden-profile-editor.c: edits one profile, with a live "try a command"
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-ui"

#include <glib/gi18n.h>

#include "warden-profile-editor.h"

#include "policy/warden-network.h"
#include "policy/warden-pattern.h"
#include "policy/warden-policy.h"
#include "policy/warden-protected-path.h"

typedef struct
{
  AdwPreferencesGroup *group;
  AdwEntryRow         *add_row;
  GtkButton           *add_button;
  GtkLabel            *error_label;
  GPtrArray           *rows;  /* the pattern rows, in the profile's order */
  gboolean             hosts; /* host patterns (the network section), not commands */
} PatternList;

enum { LIST_ALLOW, LIST_ASK, LIST_DENY, LIST_NET_ALLOW, LIST_NET_DENY, N_LISTS };

/* The action target of each list's rows. */
static const char * const list_names[N_LISTS] = { "allow", "ask", "deny", "net-allow",
                                                  "net-deny" };

struct _WardenProfileEditor
{
  AdwBin               parent_instance;

  WardenProfileStore  *store;
  WardenProfile       *profile;
  WardenPolicy        *policy;       /* compiled when first needed, dropped on a change */
  GError              *save_error;
  const char          *try_result;   /* static: warden_verdict_to_string() */
  GCancellable        *cancellable;
  GPtrArray           *part_rows;
  PatternList          lists[N_LISTS];
  const char          *try_host_result; /* static: warden_verdict_to_string(), "none" */
  guint                rebuild_id;

  guint                saving : 1;
  guint                save_again : 1;
  guint                duplicating : 1;
  guint                updating : 1;   /* the UI is being filled from the profile */

  /* Template widgets */
  AdwWindowTitle      *window_title;
  GtkRevealer         *save_error_revealer;
  GtkLabel            *save_error_label;
  AdwPreferencesGroup *builtin_group;
  AdwEntryRow         *name_row;
  AdwEntryRow         *description_row;
  AdwEntryRow         *image_row;
  AdwComboRow         *mode_row;
  AdwComboRow         *file_write_row;
  AdwActionRow        *nested_row;
  GtkSwitch           *nested_switch;
  AdwPreferencesGroup *allow_group;
  AdwEntryRow         *allow_add_row;
  GtkButton           *allow_add_button;
  GtkLabel            *allow_error_label;
  AdwPreferencesGroup *ask_group;
  AdwEntryRow         *ask_add_row;
  GtkButton           *ask_add_button;
  GtkLabel            *ask_error_label;
  AdwPreferencesGroup *deny_group;
  AdwEntryRow         *deny_add_row;
  GtkButton           *deny_add_button;
  GtkLabel            *deny_error_label;
  AdwEntryRow         *try_row;
  AdwActionRow        *try_verdict_row;
  GtkLabel            *try_verdict_label;
  AdwPreferencesGroup *try_group;
  AdwComboRow         *network_mode_row;
  AdwEntryRow         *try_host_row;
  AdwActionRow        *try_host_verdict_row;
  GtkLabel            *try_host_verdict_label;
  AdwPreferencesGroup *net_allow_group;
  AdwEntryRow         *net_allow_add_row;
  GtkButton           *net_allow_add_button;
  GtkLabel            *net_allow_error_label;
  AdwPreferencesGroup *net_deny_group;
  AdwEntryRow         *net_deny_add_row;
  GtkButton           *net_deny_add_button;
  GtkLabel            *net_deny_error_label;
};

G_DEFINE_FINAL_TYPE (WardenProfileEditor, warden_profile_editor, ADW_TYPE_BIN)

enum {
  PROP_0,
  PROP_STORE,
  PROP_PROFILE,
  PROP_BUSY,
  N_PROPS
};

enum {
  SAVED,
  DUPLICATED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* In the order of the mode row's items. */
static const WardenMode modes[] = {
  WARDEN_MODE_ALLOWLIST,
  WARDEN_MODE_APPROVAL_ALWAYS,
  WARDEN_MODE_ALLOW_ALWAYS,
};

/* In the order of the file row's items. */
static const WardenFileWrite file_writes[] = {
  WARDEN_FILE_WRITE_ALLOW,
  WARDEN_FILE_WRITE_ASK,
  WARDEN_FILE_WRITE_NEVER,
};

/* In the order of the network row's items. */
static const char whole_choice_ui[] =
  "<interface><template class=\"GtkListItem\"><property name=\"child\">"
  "<object class=\"GtkLabel\"><property name=\"xalign\">0</property>"
  "<binding name=\"label\"><lookup name=\"string\" type=\"GtkStringObject\">"
  "<lookup name=\"item\">GtkListItem</lookup></lookup></binding>"
  "</object></property></template></interface>";

static const WardenNetworkMode network_modes[] = {
  WARDEN_NETWORK_NONE,
  WARDEN_NETWORK_ALLOWLIST,
  WARDEN_NETWORK_OPEN,
};

/* The choices are one or two words, so that a narrow window shows them
 * whole (issue 32: "Allowlist: ask for anyt…"); what the chosen one means
 * is the row's subtitle, in the order of the arrays above. */
static const char * const mode_meanings[] = {
  N_("Commands the profile does not allow wait for you"),
  N_("Every command waits for you"),
  N_("Every command runs unless the profile denies it"),
};

static const char * const network_meanings[] = {
  N_("The sandbox reaches no host"),
  N_("The hosts below; one the profile does not name waits for you like a command"),
  N_("Every host"),
};

static void
explain_choice (AdwComboRow        *row,
                const char * const *meanings,
                guint               n)
{
  guint selected = adw_combo_row_get_selected (row);

  adw_combo_row_set_use_subtitle (row, FALSE);
  if (selected < n)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _(meanings[selected]));
}

static void queue_save     (WardenProfileEditor *self);
static void update_try     (WardenProfileEditor *self);
static void update_try_host (WardenProfileEditor *self);
static void queue_rebuild  (WardenProfileEditor *self);

static gboolean
is_read_only (WardenProfileEditor *self)
{
  return self->profile == NULL || warden_profile_get_builtin (self->profile);
}

static gboolean
get_busy (WardenProfileEditor *self)
{
  return self->saving || self->save_again || self->duplicating;
}

static void
show_toast (WardenProfileEditor *self,
            const char          *message)
{
  GtkWidget *window = gtk_widget_get_ancestor (GTK_WIDGET (self), ADW_TYPE_PREFERENCES_WINDOW);

  if (window != NULL)
    adw_preferences_window_add_toast (ADW_PREFERENCES_WINDOW (window), adw_toast_new (message));
}

static void
set_busy_changed (WardenProfileEditor *self,
                  gboolean             was_busy)
{
  if (was_busy != get_busy (self))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

/* Patterns */

static const char * const *
list_patterns (WardenProfileEditor *self,
               guint                which)
{
  switch (which)
    {
    case LIST_ASK:       return warden_profile_get_ask (self->profile);
    case LIST_DENY:      return warden_profile_get_deny (self->profile);
    case LIST_NET_ALLOW: return warden_profile_get_network_allow (self->profile);
    case LIST_NET_DENY:  return warden_profile_get_network_deny (self->profile);
    case LIST_ALLOW:
    default:             return warden_profile_get_allow (self->profile);
    }
}

static gboolean
list_set_patterns (WardenProfileEditor  *self,
                   guint                 which,
                   const char * const   *patterns,
                   GError              **error)
{
  switch (which)
    {
    case LIST_ASK:       return warden_profile_set_ask (self->profile, patterns, error);
    case LIST_DENY:      return warden_profile_set_deny (self->profile, patterns, error);
    case LIST_NET_ALLOW: return warden_profile_set_network_allow (self->profile, patterns, error);
    case LIST_NET_DENY:  return warden_profile_set_network_deny (self->profile, patterns, error);
    case LIST_ALLOW:
    default:             return warden_profile_set_allow (self->profile, patterns, error);
    }
}

/* @warning: the pattern works, but not as it looks. */
static void
list_show_message (PatternList *list,
                   const char  *message,
                   gboolean     warning)
{
  gtk_label_set_text (list->error_label, message ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (list->error_label), message != NULL);
  gtk_widget_remove_css_class (GTK_WIDGET (list->error_label), warning ? "error" : "warning");
  gtk_widget_add_css_class (GTK_WIDGET (list->error_label), warning ? "warning" : "error");
}

static void
list_show_error (PatternList *list,
                 const char  *message)
{
  list_show_message (list, message, FALSE);
}

/* TRUE if @widget's text is a pattern; otherwise it is marked and the
 * compiler's message is shown under the list. A pattern holding a separator
 * ("npm test && npm run build") is flagged as it is typed: it is matched
 * against one command at a time, so it never allows the line it looks like. */
static gboolean
validate_entry (PatternList *list,
                GtkWidget   *widget,
                GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  const char *text = gtk_editable_get_text (GTK_EDITABLE (widget));
  g_autofree char *problem = list->hosts ? NULL : warden_pattern_dup_separator_problem (text);
  gboolean valid = list->hosts ? warden_host_pattern_validate (text, &local_error)
                               : warden_pattern_validate (text, &local_error);

  gtk_widget_set_tooltip_text (widget, problem);
  if (valid)
    {
      gtk_widget_remove_css_class (widget, "error");
      if (problem != NULL)
        gtk_widget_add_css_class (widget, "warning");
      else
        gtk_widget_remove_css_class (widget, "warning");
      list_show_message (list, problem, TRUE);
      return TRUE;
    }

  gtk_widget_remove_css_class (widget, "warning");
  gtk_widget_add_css_class (widget, "error");
  list_show_error (list, problem ? problem : local_error->message);
  g_propagate_error (error, g_steal_pointer (&local_error));
  return FALSE;
}

static guint
list_of_widget (WardenProfileEditor *self,
                gpointer             widget)
{
  guint which = GPOINTER_TO_UINT (g_object_get_data (widget, "warden-list"));

  for (guint i = 0; i < N_LISTS; i++)
    if (widget == (gpointer) self->lists[i].add_row ||
        widget == (gpointer) self->lists[i].add_button)
      return i;
  return which > 0 && which <= N_LISTS ? which - 1 : LIST_ALLOW;
}

static void
pattern_row_changed_cb (WardenProfileEditor *self,
                        GtkEditable         *editable)
{
  PatternList *list = &self->lists[list_of_widget (self, editable)];

  validate_entry (list, GTK_WIDGET (editable), NULL);
}

static void
pattern_row_apply_cb (WardenProfileEditor *self,
                      AdwEntryRow         *row)
{
  guint which = list_of_widget (self, row);
  guint index = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (row), "warden-index"));
  PatternList *list = &self->lists[which];
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) patterns = NULL;

  if (is_read_only (self) || !validate_entry (list, GTK_WIDGET (row), NULL))
    return;

  patterns = g_strdupv ((char **) list_patterns (self, which));
  if (index >= g_strv_length (patterns))
    return;

  g_free (patterns[index]);
  patterns[index] = g_strdup (gtk_editable_get_text (GTK_EDITABLE (row)));
  if (!list_set_patterns (self, which, (const char * const *) patterns, &error))
    {
      list_show_error (list, error->message);
      return;
    }
  queue_save (self);
}

static GtkWidget *
icon_button_new (const char *icon_name,
                 const char *tooltip,
                 const char *action_name,
                 guint       which,
                 guint       index)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon_name);

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_widget_add_css_class (button, "flat");
  gtk_accessible_update_property (GTK_ACCESSIBLE (button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, tooltip,
                                  -1);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), action_name);
  gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "(su)", list_names[which], index);
  return button;
}

static GtkWidget *
pattern_row_new (WardenProfileEditor *self,
                 guint                which,
                 guint                index,
                 const char          *pattern)
{
  g_autofree char *label = g_strdup_printf (which == LIST_DENY ? _("Denied pattern %u")
                                            : which == LIST_ASK ? _("Ask pattern %u")
                                            : which == LIST_NET_ALLOW ? _("Allowed host %u")
                                            : which == LIST_NET_DENY ? _("Denied host %u")
                                            : _("Allowed pattern %u"),
                                            index + 1);
  GtkWidget *row;
  GtkWidget *button;

  if (is_read_only (self))
    {
      row = adw_action_row_new ();
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), pattern);
      gtk_widget_add_css_class (row, "monospace");
      return row;
    }

  row = adw_entry_row_new ();
  gtk_editable_set_text (GTK_EDITABLE (row), pattern);
  adw_entry_row_set_show_apply_button (ADW_ENTRY_ROW (row), TRUE);
  /* Monospace (style.css): "ls *" and "ls  *" must look different. */
  gtk_widget_add_css_class (row, "pattern");
  {
    g_autofree char *problem = self->lists[which].hosts
                               ? NULL : warden_pattern_dup_separator_problem (pattern);

    if (problem != NULL)
      {
        gtk_widget_add_css_class (row, "warning");
        gtk_widget_set_tooltip_text (row, problem);
      }
  }
  gtk_accessible_update_property (GTK_ACCESSIBLE (row),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, label,
                                  -1);
  g_object_set_data (G_OBJECT (row), "warden-list", GUINT_TO_POINTER (which + 1));
  g_object_set_data (G_OBJECT (row), "warden-index", GUINT_TO_POINTER (index));
  g_signal_connect_swapped (row, "changed", G_CALLBACK (pattern_row_changed_cb), self);
  g_signal_connect_swapped (row, "apply", G_CALLBACK (pattern_row_apply_cb), self);

  /* No up and down: the order of patterns decides nothing. */
  button = icon_button_new ("user-trash-symbolic", _("Remove"), "editor.remove", which, index);
  adw_entry_row_add_suffix (ADW_ENTRY_ROW (row), button);

  return row;
}

static void
rebuild_list (WardenProfileEditor *self,
              guint                which)
{
  PatternList *list = &self->lists[which];
  const char * const *patterns;
  guint n;

  for (guint i = 0; i < list->rows->len; i++)
    adw_preferences_group_remove (list->group, g_ptr_array_index (list->rows, i));
  g_ptr_array_set_size (list->rows, 0);

  if (self->profile == NULL)
    return;

  patterns = list_patterns (self, which);
  n = g_strv_length ((char **) patterns);
  for (guint i = 0; i < n; i++)
    {
      GtkWidget *row = pattern_row_new (self, which, i, patterns[i]);

      adw_preferences_group_add (list->group, row);
      g_ptr_array_add (list->rows, row);
    }
}

static gboolean
rebuild_cb (gpointer user_data)
{
  WardenProfileEditor *self = user_data;

  self->rebuild_id = 0;
  for (guint i = 0; i < N_LISTS; i++)
    rebuild_list (self, i);

  return G_SOURCE_REMOVE;
}

/* Rows are rebuilt from an idle: the change may come from a row's own
 * signal, and a row must not be destroyed while it emits. */
static void
queue_rebuild (WardenProfileEditor *self)
{
  if (self->rebuild_id == 0)
    self->rebuild_id = g_idle_add (rebuild_cb, self);
}

static gboolean
add_from_entry (WardenProfileEditor  *self,
                guint                 which,
                GError              **error)
{
  PatternList *list = &self->lists[which];
  g_autofree char *pattern = NULL;
  gboolean added;

  if (is_read_only (self))
    {
      g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_READ_ONLY,
                   _("“%s” is a built-in profile and cannot be changed; duplicate it to edit"),
                   self->profile ? warden_profile_get_id (self->profile) : "");
      return FALSE;
    }

  if (!validate_entry (list, GTK_WIDGET (list->add_row), error))
    return FALSE;

  pattern = g_strdup (gtk_editable_get_text (GTK_EDITABLE (list->add_row)));
  switch (which)
    {
    case LIST_DENY:
      added = warden_profile_add_deny (self->profile, pattern, error);
      break;
    case LIST_ASK:
      added = warden_profile_add_ask (self->profile, pattern, error);
      break;
    case LIST_NET_ALLOW:
      added = warden_profile_add_network_allow (self->profile, pattern, error);
      break;
    case LIST_NET_DENY:
      {
        g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
        g_auto(GStrv) patterns = NULL;

        g_strv_builder_addv (builder, (const char **) list_patterns (self, which));
        g_strv_builder_add (builder, pattern);
        patterns = g_strv_builder_end (builder);
        added = list_set_patterns (self, which, (const char * const *) patterns, error);
      }
      break;
    case LIST_ALLOW:
    default:
      added = warden_profile_add_allow (self->profile, pattern, error);
      break;
    }
  if (!added)
    return FALSE;

  gtk_editable_set_text (GTK_EDITABLE (list->add_row), "");
  queue_save (self);
  return TRUE;
}

static void
add_changed_cb (WardenProfileEditor *self,
                GtkEditable         *editable)
{
  PatternList *list = &self->lists[list_of_widget (self, editable)];
  const char *text = gtk_editable_get_text (editable);

  if (text[0] == '\0')
    {
      gtk_widget_remove_css_class (GTK_WIDGET (editable), "error");
      list_show_error (list, NULL);
      gtk_widget_set_sensitive (GTK_WIDGET (list->add_button), FALSE);
      return;
    }

  gtk_widget_set_sensitive (GTK_WIDGET (list->add_button),
                            validate_entry (list, GTK_WIDGET (editable), NULL));
}

static void
add_activated_cb (WardenProfileEditor *self,
                  AdwEntryRow         *row)
{
  add_from_entry (self, list_of_widget (self, row), NULL);
}

static void
add_clicked_cb (WardenProfileEditor *self,
                GtkButton           *button)
{
  add_from_entry (self, list_of_widget (self, button), NULL);
}

static gboolean
parse_list_target (GVariant *param,
                   guint    *which,
                   guint    *index)
{
  const char *name;

  g_variant_get (param, "(&su)", &name, index);
  for (guint i = 0; i < N_LISTS; i++)
    if (g_strcmp0 (name, list_names[i]) == 0)
      {
        *which = i;
        return TRUE;
      }
  return FALSE;
}

static void
remove_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  WardenProfileEditor *self = WARDEN_PROFILE_EDITOR (widget);
  const char * const *patterns;
  g_autofree char *pattern = NULL;
  guint which, index;

  if (is_read_only (self) || !parse_list_target (param, &which, &index))
    return;

  patterns = list_patterns (self, which);
  if (index >= g_strv_length ((char **) patterns))
    return;

  pattern = g_strdup (patterns[index]);
  if (which == LIST_DENY)
    warden_profile_remove_deny (self->profile, pattern);
  else if (which == LIST_ASK)
    warden_profile_remove_ask (self->profile, pattern);
  else if (which == LIST_ALLOW)
    warden_profile_remove_allow (self->profile, pattern);
  else
    {
      g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
      g_auto(GStrv) rest = NULL;

      for (guint i = 0; patterns[i] != NULL; i++)
        if (i != index)
          g_strv_builder_add (builder, patterns[i]);
      rest = g_strv_builder_end (builder);
      list_set_patterns (self, which, (const char * const *) rest, NULL);
    }
  queue_save (self);
}

/* Try a command */

static void
clear_part_rows (WardenProfileEditor *self)
{
  for (guint i = 0; i < self->part_rows->len; i++)
    adw_preferences_group_remove (self->try_group, g_ptr_array_index (self->part_rows, i));
  g_ptr_array_set_size (self->part_rows, 0);
}

static void
set_verdict_label (GtkLabel      *label,
                   WardenVerdict  verdict)
{
  static const char * const classes[] = { "success", "warning", "error" };
  const char *css_class, *text;

  switch (verdict)
    {
    case WARDEN_VERDICT_ALLOW:
      css_class = "success";
      text = _("Runs without asking");
      break;
    case WARDEN_VERDICT_DENY:
      css_class = "error";
      text = _("Refused");
      break;
    case WARDEN_VERDICT_ASK:
    default:
      css_class = "warning";
      text = _("Asks you first");
      break;
    }
  for (guint i = 0; i < G_N_ELEMENTS (classes); i++)
    gtk_widget_remove_css_class (GTK_WIDGET (label), classes[i]);
  gtk_widget_add_css_class (GTK_WIDGET (label), css_class);
  gtk_label_set_text (label, text);
}

/* Where a command of the line comes from, in the user's words; "" for one
 * the line runs itself. */
static char *
part_origin (const WardenDecisionPart *part)
{
  switch (part->origin)
    {
    case WARDEN_ORIGIN_SUBSTITUTION:
      return g_strdup (_(" (its output becomes part of the command)"));
    case WARDEN_ORIGIN_PROCESS_SUBSTITUTION:
      return g_strdup (_(" (run alongside, connected to the command like a file)"));
    case WARDEN_ORIGIN_SCRIPT:
      return g_strdup (_(" (in the script a shell runs)"));
    case WARDEN_ORIGIN_REDIRECTION:
      return g_strdup (_(" (redirections of a group: nothing runs)"));
    case WARDEN_ORIGIN_WRAPPER:
      if (g_strcmp0 (part->runner, "find") == 0)
        return g_strdup (_(" (run by find for each file)"));
      if (g_strcmp0 (part->runner, "xargs") == 0)
        return g_strdup (_(" (run by xargs with what it reads)"));
      if (part->runner != NULL)
        /* Translators: %s is a program that runs another: env, nice, timeout, sudo… */
        return g_strdup_printf (_(" (run by %s)"), part->runner);
      return g_strdup (_(" (run by another command)"));
    case WARDEN_ORIGIN_TOP_LEVEL:
    default:
      return g_strdup ("");
    }
}

/* @format (one "%s") as markup, with @arg in monospace. */
static char *
format_monospace (const char *format,
                  const char *arg)
{
  g_auto(GStrv) halves = g_strsplit (format, "%s", 2);
  g_autofree char *before = g_markup_escape_text (halves[0], -1);
  g_autofree char *after = g_markup_escape_text (halves[1] ? halves[1] : "", -1);
  g_autofree char *tt = g_markup_printf_escaped ("<tt>%s</tt>", arg);

  return g_strconcat (before, tt, after, NULL);
}

/* One command of the line, as a sentence: "ls — allowed by ls *", with the
 * commands and patterns in monospace; @plain gets the same without markup. */
static char *
part_sentence (const WardenDecisionPart  *part,
               char                     **plain)
{
  g_autofree char *text = warden_decision_printable (part->text);
  g_autofree char *reason = warden_decision_printable (part->reason);
  g_autofree char *pattern = part->pattern ? warden_decision_printable (part->pattern) : NULL;
  g_autofree char *origin = part_origin (part);
  g_autofree char *verdict = NULL;
  g_autofree char *verdict_markup = NULL;
  g_autofree char *text_markup = g_markup_printf_escaped ("<tt>%s</tt>%s", text, origin);

  if (part->verdict == WARDEN_VERDICT_ALLOW && pattern != NULL)
    {
      /* Translators: %s is the allow pattern that matched */
      verdict = g_strdup_printf (_("allowed by %s"), pattern);
      verdict_markup = format_monospace (_("allowed by %s"), pattern);
    }
  else if (part->verdict == WARDEN_VERDICT_DENY && pattern != NULL)
    {
      /* Translators: %s is the deny pattern that matched */
      verdict = g_strdup_printf (_("refused: it matches the deny pattern %s"), pattern);
      verdict_markup = format_monospace (_("refused: it matches the deny pattern %s"), pattern);
    }
  else if (part->verdict == WARDEN_VERDICT_ASK && pattern != NULL)
    {
      /* Translators: %s is the profile's ask rule that matched */
      verdict = g_strdup_printf (_("asks every time: it matches the ask rule %s"), pattern);
      verdict_markup = format_monospace (_("asks every time: it matches the ask rule %s"),
                                         pattern);
    }
  else
    {
      const char *format = part->verdict == WARDEN_VERDICT_ALLOW ? _("runs: %s")
                         : part->verdict == WARDEN_VERDICT_DENY ? _("refused: %s")
                                                                : _("asks: %s");

      verdict = g_strdup_printf (format, reason);
      verdict_markup = g_markup_printf_escaped (format, reason);
    }

  *plain = g_strdup_printf ("%s%s — %s", text, origin, verdict);
  return g_strdup_printf ("%s — %s", text_markup, verdict_markup);
}

static void
update_try (WardenProfileEditor *self)
{
  g_autoptr(WardenDecision) decision = NULL;
  g_autofree char *reason = NULL;
  const char *command = gtk_editable_get_text (GTK_EDITABLE (self->try_row));
  WardenVerdict verdict;

  clear_part_rows (self);

  if (self->profile == NULL || command[0] == '\0')
    {
      self->try_result = NULL;
      gtk_widget_set_visible (GTK_WIDGET (self->try_verdict_row), FALSE);
      return;
    }

  if (self->policy == NULL)
    self->policy = warden_policy_new_for_profile (self->profile);

  /* No context: the workspace is "/workspace", as for `warden-cli policy check`. */
  decision = warden_policy_check (self->policy, command, -1, NULL);
  verdict = warden_decision_get_verdict (decision);
  self->try_result = warden_verdict_to_string (verdict);

  reason = warden_decision_printable (warden_decision_get_reason (decision));
  /* A sentence of its own here: it starts with a capital. */
  if (g_ascii_islower (reason[0]))
    reason[0] = g_ascii_toupper (reason[0]);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->try_verdict_row), reason);
  set_verdict_label (self->try_verdict_label, verdict);
  gtk_widget_set_visible (GTK_WIDGET (self->try_verdict_row), TRUE);

  for (guint i = 0; i < warden_decision_get_n_parts (decision); i++)
    {
      const WardenDecisionPart *part = warden_decision_get_part (decision, i);
      g_autofree char *plain = NULL;
      g_autofree char *markup = part_sentence (part, &plain);
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *icon;

      switch (part->verdict)
        {
        case WARDEN_VERDICT_ALLOW:
          icon = gtk_image_new_from_icon_name ("object-select-symbolic");
          gtk_widget_add_css_class (icon, "success");
          break;
        case WARDEN_VERDICT_DENY:
          icon = gtk_image_new_from_icon_name ("action-unavailable-symbolic");
          gtk_widget_add_css_class (icon, "error");
          break;
        case WARDEN_VERDICT_ASK:
        default:
          icon = gtk_image_new_from_icon_name ("dialog-question-symbolic");
          gtk_widget_add_css_class (icon, "warning");
          break;
        }
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), icon);
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), TRUE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), markup);
      gtk_widget_add_css_class (row, "try-part");
      gtk_accessible_update_property (GTK_ACCESSIBLE (row),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, plain,
                                      -1);
      g_object_set_data_full (G_OBJECT (row), "warden-plain", g_steal_pointer (&plain), g_free);
      adw_preferences_group_add (self->try_group, row);
      g_ptr_array_add (self->part_rows, row);
    }
}

static void
try_changed_cb (WardenProfileEditor *self,
                GtkEditable         *editable)
{
  update_try (self);
}

static void
update_try_host (WardenProfileEditor *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->try_host_row));
  g_autofree char *host = NULL;
  g_autofree char *title = NULL;
  WardenVerdict verdict = WARDEN_VERDICT_ASK;
  const char *pattern = NULL;
  guint port;

  if (self->profile == NULL || text[0] == '\0')
    {
      self->try_host_result = NULL;
      gtk_widget_set_visible (GTK_WIDGET (self->try_host_verdict_row), FALSE);
      return;
    }
  host = warden_network_parse_target (text, &port);
  if (host == NULL)
    {
      self->try_host_result = NULL;
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->try_host_verdict_row),
                                     _("Not a host: type a name or an address, and a port "
                                       "after “:” if it is not 443"));
      gtk_label_set_text (self->try_host_verdict_label, "");
      gtk_widget_set_visible (GTK_WIDGET (self->try_host_verdict_row), TRUE);
      return;
    }
  switch (warden_profile_get_network_mode (self->profile))
    {
    case WARDEN_NETWORK_NONE:
      verdict = WARDEN_VERDICT_DENY;
      title = g_strdup (_("The sandbox has no network"));
      break;
    case WARDEN_NETWORK_OPEN:
      verdict = WARDEN_VERDICT_ALLOW;
      title = g_strdup (_("The sandbox reaches every host"));
      break;
    case WARDEN_NETWORK_ALLOWLIST:
    default:
      verdict = warden_network_check (warden_profile_get_network_allow (self->profile),
                                      warden_profile_get_network_deny (self->profile),
                                      host, port, &pattern);
      if (verdict == WARDEN_VERDICT_ALLOW)
        title = g_strdup_printf (_("%s:%u is allowed by %s"), host, port, pattern);
      else if (verdict == WARDEN_VERDICT_DENY)
        title = g_strdup_printf (_("%s:%u matches the denied host %s"), host, port, pattern);
      else
        title = g_strdup_printf (_("No host pattern matches %s:%u"), host, port);
      break;
    }
  self->try_host_result = warden_verdict_to_string (verdict);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->try_host_verdict_row), title);
  set_verdict_label (self->try_host_verdict_label, verdict);
  if (verdict == WARDEN_VERDICT_ALLOW)
    gtk_label_set_text (self->try_host_verdict_label, _("Reached without asking"));
  gtk_widget_set_visible (GTK_WIDGET (self->try_host_verdict_row), TRUE);
}

static void
try_host_changed_cb (WardenProfileEditor *self,
                     GtkEditable         *editable)
{
  update_try_host (self);
}

/* The profile, in and out */

static void
update_title (WardenProfileEditor *self)
{
  adw_window_title_set_title (self->window_title, warden_profile_get_name (self->profile));
  adw_window_title_set_subtitle (self->window_title, warden_profile_get_id (self->profile));
}

static void
profile_patterns_notify_cb (WardenProfileEditor *self,
                            GParamSpec          *pspec,
                            WardenProfile       *profile)
{
  g_clear_pointer (&self->policy, warden_policy_unref);
  queue_rebuild (self);
  update_try (self);
}

static void
profile_mode_notify_cb (WardenProfileEditor *self,
                        GParamSpec          *pspec,
                        WardenProfile       *profile)
{
  WardenMode mode = warden_profile_get_mode (profile);

  g_clear_pointer (&self->policy, warden_policy_unref);
  self->updating = TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    if (modes[i] == mode)
      adw_combo_row_set_selected (self->mode_row, i);
  explain_choice (self->mode_row, mode_meanings, G_N_ELEMENTS (mode_meanings));
  self->updating = FALSE;
  update_try (self);
}

static void
profile_network_notify_cb (WardenProfileEditor *self,
                           GParamSpec          *pspec,
                           WardenProfile       *profile)
{
  WardenNetworkMode mode = warden_profile_get_network_mode (profile);

  self->updating = TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (network_modes); i++)
    if (network_modes[i] == mode)
      adw_combo_row_set_selected (self->network_mode_row, i);
  /* Without a section of its own, the Network switch decides. */
  adw_combo_row_set_use_subtitle (self->network_mode_row, FALSE);
  if (warden_profile_has_network (profile))
    explain_choice (self->network_mode_row, network_meanings, G_N_ELEMENTS (network_meanings));
  else
    adw_action_row_set_subtitle (ADW_ACTION_ROW (self->network_mode_row),
                                 _("Not set: the Network switch of the sandbox preferences "
                                   "decides (off: none, on: open)"));
  self->updating = FALSE;
  queue_rebuild (self);
  update_try_host (self);
}

static void
profile_file_write_notify_cb (WardenProfileEditor *self,
                              GParamSpec          *pspec,
                              WardenProfile       *profile)
{
  WardenFileWrite rule = warden_profile_get_file_write (profile);

  self->updating = TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (file_writes); i++)
    if (file_writes[i] == rule)
      adw_combo_row_set_selected (self->file_write_row, i);
  self->updating = FALSE;
}

static void
profile_nested_notify_cb (WardenProfileEditor *self,
                          GParamSpec          *pspec,
                          WardenProfile       *profile)
{
  self->updating = TRUE;
  gtk_switch_set_active (self->nested_switch, warden_profile_get_check_nested (profile));
  self->updating = FALSE;
}

static void
profile_name_notify_cb (WardenProfileEditor *self,
                        GParamSpec          *pspec,
                        WardenProfile       *profile)
{
  update_title (self);
}

static void
sync_from_profile (WardenProfileEditor *self)
{
  gboolean read_only = is_read_only (self);
  const char *name = warden_profile_get_name (self->profile);

  self->updating = TRUE;

  update_title (self);
  gtk_widget_set_visible (GTK_WIDGET (self->builtin_group), read_only);

  /* A name that is only the id stands for "no name": the row shows it empty. */
  gtk_editable_set_text (GTK_EDITABLE (self->name_row),
                         g_strcmp0 (name, warden_profile_get_id (self->profile)) == 0 ? "" : name);
  gtk_editable_set_text (GTK_EDITABLE (self->description_row),
                         warden_profile_get_description (self->profile));
  gtk_editable_set_text (GTK_EDITABLE (self->image_row),
                         warden_profile_get_image (self->profile)
                         ? warden_profile_get_image (self->profile) : "");
  gtk_editable_set_editable (GTK_EDITABLE (self->image_row), !read_only);
  gtk_editable_set_editable (GTK_EDITABLE (self->name_row), !read_only);
  gtk_editable_set_editable (GTK_EDITABLE (self->description_row), !read_only);
  gtk_widget_set_sensitive (GTK_WIDGET (self->mode_row), !read_only);
  gtk_widget_set_sensitive (GTK_WIDGET (self->file_write_row), !read_only);
  gtk_widget_set_sensitive (GTK_WIDGET (self->nested_row), !read_only);
  gtk_widget_set_sensitive (GTK_WIDGET (self->network_mode_row), !read_only);
  for (guint i = 0; i < G_N_ELEMENTS (self->lists); i++)
    gtk_widget_set_visible (gtk_widget_get_parent (GTK_WIDGET (self->lists[i].add_row)),
                            !read_only);

  self->updating = FALSE;

  profile_mode_notify_cb (self, NULL, self->profile);
  profile_file_write_notify_cb (self, NULL, self->profile);
  profile_nested_notify_cb (self, NULL, self->profile);
  profile_network_notify_cb (self, NULL, self->profile);
  g_clear_handle_id (&self->rebuild_id, g_source_remove);
  for (guint i = 0; i < N_LISTS; i++)
    rebuild_list (self, i);
  g_clear_pointer (&self->policy, warden_policy_unref);
  update_try (self);
}

static void
set_profile (WardenProfileEditor *self,
             WardenProfile       *profile)
{
  if (self->profile != NULL)
    g_signal_handlers_disconnect_by_data (self->profile, self);
  g_set_object (&self->profile, profile);
  g_clear_pointer (&self->policy, warden_policy_unref);

  if (profile == NULL)
    return;

  g_signal_connect_object (profile, "notify::allow", G_CALLBACK (profile_patterns_notify_cb),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (profile, "notify::deny", G_CALLBACK (profile_patterns_notify_cb),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (profile, "notify::ask", G_CALLBACK (profile_patterns_notify_cb),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (profile, "notify::mode", G_CALLBACK (profile_mode_notify_cb),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (profile, "notify::name", G_CALLBACK (profile_name_notify_cb),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (profile, "notify::file-write",
                           G_CALLBACK (profile_file_write_notify_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (profile, "notify::check-nested",
                           G_CALLBACK (profile_nested_notify_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (profile, "notify::network-mode",
                           G_CALLBACK (profile_network_notify_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (profile, "notify::network-allow",
                           G_CALLBACK (profile_network_notify_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (profile, "notify::network-deny",
                           G_CALLBACK (profile_network_notify_cb), self, G_CONNECT_SWAPPED);

  sync_from_profile (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROFILE]);
}

static void
name_changed_cb (WardenProfileEditor *self,
                 GtkEditable         *editable)
{
  if (self->updating || is_read_only (self))
    return;

  warden_profile_set_name (self->profile, gtk_editable_get_text (editable));
  queue_save (self);
}

static void
description_changed_cb (WardenProfileEditor *self,
                        GtkEditable         *editable)
{
  const char *text = gtk_editable_get_text (editable);

  if (self->updating || is_read_only (self))
    return;

  warden_profile_set_description (self->profile, text[0] != '\0' ? text : NULL);
  queue_save (self);
}

/* Saved as it is typed, once it is an image name; until then the row says
 * it is not one and the profile keeps the last good one. */
static void
image_changed_cb (WardenProfileEditor *self,
                  GtkEditable         *editable)
{
  const char *text = gtk_editable_get_text (editable);
  gboolean valid = text[0] == '\0' || warden_profile_image_is_valid (text);

  if (valid)
    gtk_widget_remove_css_class (GTK_WIDGET (editable), "error");
  else
    gtk_widget_add_css_class (GTK_WIDGET (editable), "error");
  if (self->updating || is_read_only (self) || !valid)
    return;

  warden_profile_set_image (self->profile, text);
  queue_save (self);
}

static void
mode_selected_cb (WardenProfileEditor *self,
                  GParamSpec          *pspec,
                  AdwComboRow         *row)
{
  guint selected = adw_combo_row_get_selected (row);

  explain_choice (row, mode_meanings, G_N_ELEMENTS (mode_meanings));
  if (self->updating || is_read_only (self) || selected >= G_N_ELEMENTS (modes))
    return;

  warden_profile_set_mode (self->profile, modes[selected]);
  queue_save (self);
}

static void
file_write_selected_cb (WardenProfileEditor *self,
                        GParamSpec          *pspec,
                        AdwComboRow         *row)
{
  guint selected = adw_combo_row_get_selected (row);

  if (self->updating || is_read_only (self) || selected >= G_N_ELEMENTS (file_writes))
    return;

  warden_profile_set_file_write (self->profile, file_writes[selected]);
  queue_save (self);
}

static void
network_mode_selected_cb (WardenProfileEditor *self,
                          GParamSpec          *pspec,
                          AdwComboRow         *row)
{
  guint selected = adw_combo_row_get_selected (row);

  if (self->updating || is_read_only (self) || selected >= G_N_ELEMENTS (network_modes))
    return;
  explain_choice (row, network_meanings, G_N_ELEMENTS (network_meanings));
  warden_profile_set_network_mode (self->profile, network_modes[selected]);
  queue_save (self);
}

static void
nested_switch_cb (WardenProfileEditor *self,
                  GParamSpec          *pspec,
                  GtkSwitch           *toggle)
{
  if (self->updating || is_read_only (self))
    return;
  warden_profile_set_check_nested (self->profile, gtk_switch_get_active (toggle));
  queue_save (self);
}

/* Saving */

static void
save_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(WardenProfileEditor) self = user_data;
  g_autoptr(GError) error = NULL;
  gboolean was_busy = get_busy (self);

  self->saving = FALSE;

  if (!warden_profile_store_save_finish (WARDEN_PROFILE_STORE (object), result, &error))
    {
      g_autofree char *message = NULL;

      /* The change stays in the editor: the next change, or Save Again,
       * writes it all. */
      message = g_strdup_printf (_("Not saved: %s"), error->message);
      gtk_label_set_text (self->save_error_label, message);
      gtk_revealer_set_reveal_child (self->save_error_revealer, TRUE);
      if (self->save_error == NULL)
        show_toast (self, _("The profile could not be saved"));
      g_clear_error (&self->save_error);
      self->save_error = g_steal_pointer (&error);
    }
  else
    {
      g_clear_error (&self->save_error);
      gtk_revealer_set_reveal_child (self->save_error_revealer, FALSE);
      if (!self->save_again)
        g_signal_emit (self, signals[SAVED], 0);
    }

  if (self->save_again)
    {
      self->save_again = FALSE;
      queue_save (self);
    }

  set_busy_changed (self, was_busy);
}

/* One save at a time: saves run in threads, and two of them could finish
 * in either order, leaving the older profile on disk. Changes made during
 * a save are written by one more save after it. */
static void
queue_save (WardenProfileEditor *self)
{
  gboolean was_busy = get_busy (self);

  if (is_read_only (self))
    return;

  if (self->saving)
    self->save_again = TRUE;
  else
    {
      self->saving = TRUE;
      /* Not cancelled when the editor goes away: the user's last change
       * must still reach the disk. The reference keeps the editor alive
       * until it has. */
      warden_profile_store_save_async (self->store, self->profile, NULL, save_cb,
                                       g_object_ref (self));
    }

  set_busy_changed (self, was_busy);
}

static void
save_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  queue_save (WARDEN_PROFILE_EDITOR (widget));
}

/* Duplicating a built-in profile */

static void
duplicate_thread (GTask        *task,
                  gpointer      source_object,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  WardenProfileEditor *self = source_object;
  WardenProfile *copy;
  GError *error = NULL;

  copy = warden_profile_store_duplicate (self->store, task_data, &error);
  if (copy == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, copy, g_object_unref);
}

static void
duplicate_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  WardenProfileEditor *self = WARDEN_PROFILE_EDITOR (object);
  g_autoptr(WardenProfile) copy = NULL;
  g_autoptr(GError) error = NULL;
  gboolean was_busy = get_busy (self);

  copy = g_task_propagate_pointer (G_TASK (result), &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  self->duplicating = FALSE;
  if (copy == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Could not duplicate the profile: %s"),
                                                  error->message);

      gtk_label_set_text (self->save_error_label, message);
      gtk_revealer_set_reveal_child (self->save_error_revealer, TRUE);
      show_toast (self, message);
    }
  else
    {
      set_profile (self, copy);
      g_signal_emit (self, signals[DUPLICATED], 0, copy);
    }
  set_busy_changed (self, was_busy);
}

static void
duplicate_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
  WardenProfileEditor *self = WARDEN_PROFILE_EDITOR (widget);
  g_autoptr(GTask) task = NULL;
  gboolean was_busy = get_busy (self);

  if (self->profile == NULL || self->duplicating)
    return;

  self->duplicating = TRUE;
  task = g_task_new (self, self->cancellable, duplicate_cb, NULL);
  g_task_set_source_tag (task, duplicate_action);
  /* The thread gets a copy of its own: the profile is not thread-safe. */
  g_task_set_task_data (task,
                        warden_profile_copy (self->profile, warden_profile_get_id (self->profile)),
                        g_object_unref);
  g_task_run_in_thread (task, duplicate_thread);
  set_busy_changed (self, was_busy);
}

static void
back_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  GtkWidget *window = gtk_widget_get_ancestor (widget, ADW_TYPE_PREFERENCES_WINDOW);

  if (window != NULL)
    adw_preferences_window_close_subpage (ADW_PREFERENCES_WINDOW (window));
}

/* GObject */

static void
warden_profile_editor_constructed (GObject *object)
{
  WardenProfileEditor *self = (WardenProfileEditor *)object;
  WardenProfile *profile = g_steal_pointer (&self->profile);

  G_OBJECT_CLASS (warden_profile_editor_parent_class)->constructed (object);

  set_profile (self, profile);
  g_clear_object (&profile);
}

static void
warden_profile_editor_dispose (GObject *object)
{
  WardenProfileEditor *self = (WardenProfileEditor *)object;

  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->rebuild_id, g_source_remove);
  if (self->profile != NULL)
    g_signal_handlers_disconnect_by_data (self->profile, self);

  gtk_widget_dispose_template (GTK_WIDGET (self), WARDEN_TYPE_PROFILE_EDITOR);

  g_clear_pointer (&self->policy, warden_policy_unref);
  g_clear_object (&self->profile);
  g_clear_object (&self->store);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (warden_profile_editor_parent_class)->dispose (object);
}

static void
warden_profile_editor_finalize (GObject *object)
{
  WardenProfileEditor *self = (WardenProfileEditor *)object;

  g_clear_error (&self->save_error);
  for (guint i = 0; i < G_N_ELEMENTS (self->lists); i++)
    g_clear_pointer (&self->lists[i].rows, g_ptr_array_unref);
  g_clear_pointer (&self->part_rows, g_ptr_array_unref);

  G_OBJECT_CLASS (warden_profile_editor_parent_class)->finalize (object);
}

static void
warden_profile_editor_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  WardenProfileEditor *self = WARDEN_PROFILE_EDITOR (object);

  switch (prop_id)
    {
    case PROP_STORE:
      g_value_set_object (value, self->store);
      break;

    case PROP_PROFILE:
      g_value_set_object (value, self->profile);
      break;

    case PROP_BUSY:
      g_value_set_boolean (value, get_busy (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
warden_profile_editor_set_property (GObject      *object,
                                    guint         prop_id,
                                    const GValue *value,
                                    GParamSpec   *pspec)
{
  WardenProfileEditor *self = WARDEN_PROFILE_EDITOR (object);

  switch (prop_id)
    {
    case PROP_STORE:
      self->store = g_value_dup_object (value);
      break;

    case PROP_PROFILE:
      /* Taken up in constructed(), once the store is there too. */
      self->profile = g_value_dup_object (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
warden_profile_editor_class_init (WardenProfileEditorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = warden_profile_editor_constructed;
  object_class->dispose = warden_profile_editor_dispose;
  object_class->finalize = warden_profile_editor_finalize;
  object_class->get_property = warden_profile_editor_get_property;
  object_class->set_property = warden_profile_editor_set_property;

  properties[PROP_STORE] =
    g_param_spec_object ("store", NULL, NULL,
                         WARDEN_TYPE_PROFILE_STORE,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  properties[PROP_PROFILE] =
    g_param_spec_object ("profile", NULL, NULL,
                         WARDEN_TYPE_PROFILE,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_EXPLICIT_NOTIFY |
                          G_PARAM_STATIC_STRINGS));

  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL,
                          FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* After the profile on disk caught up with the editor. */
  signals[SAVED] =
    g_signal_new ("saved",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  /* A built-in profile was copied; the editor now edits the copy. */
  signals[DUPLICATED] =
    g_signal_new ("duplicated",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, WARDEN_TYPE_PROFILE);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RESOURCE_PREFIX "/warden-profile-editor.ui");
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, window_title);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, save_error_revealer);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, save_error_label);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, builtin_group);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, name_row);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, description_row);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, image_row);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, mode_row);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, file_write_row);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, nested_row);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, nested_switch);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, allow_group);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, allow_add_row);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, allow_add_button);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, allow_error_label);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, ask_group);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, ask_add_row);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, ask_add_button);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, ask_error_label);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, deny_group);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, deny_add_row);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, deny_add_button);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, deny_error_label);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, try_row);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, try_verdict_row);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, try_verdict_label);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, try_group);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, network_mode_row);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, try_host_row);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, try_host_verdict_row);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, try_host_verdict_label);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, net_allow_group);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, net_allow_add_row);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, net_allow_add_button);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, net_allow_error_label);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, net_deny_group);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, net_deny_add_row);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, net_deny_add_button);
  gtk_widget_class_bind_template_child (widget_class, WardenProfileEditor, net_deny_error_label);
  gtk_widget_class_bind_template_callback (widget_class, name_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, description_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, image_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, mode_selected_cb);
  gtk_widget_class_bind_template_callback (widget_class, file_write_selected_cb);
  gtk_widget_class_bind_template_callback (widget_class, nested_switch_cb);
  gtk_widget_class_bind_template_callback (widget_class, add_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, add_activated_cb);
  gtk_widget_class_bind_template_callback (widget_class, add_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, try_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, try_host_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, network_mode_selected_cb);

  gtk_widget_class_install_action (widget_class, "editor.back", NULL, back_action);
  gtk_widget_class_install_action (widget_class, "editor.save", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "editor.duplicate", NULL, duplicate_action);
  gtk_widget_class_install_action (widget_class, "editor.remove", "(su)", remove_action);
}

static void
warden_profile_editor_init (WardenProfileEditor *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  /* The chosen value is never cut: the default factory's label ellipsizes,
   * and a row with a subtitle left it a few letters. Whole, it takes its
   * room and the subtitle wraps instead. */
  {
    g_autoptr(GBytes) bytes = g_bytes_new_static (whole_choice_ui, strlen (whole_choice_ui));
    g_autoptr(GtkListItemFactory) factory = gtk_builder_list_item_factory_new_from_bytes (NULL,
                                                                                        bytes);

    adw_combo_row_set_factory (self->mode_row, factory);
    adw_combo_row_set_factory (self->file_write_row, factory);
    adw_combo_row_set_factory (self->network_mode_row, factory);
  }

  self->cancellable = g_cancellable_new ();
  self->part_rows = g_ptr_array_new ();
  self->lists[LIST_ALLOW] = (PatternList) {
    self->allow_group, self->allow_add_row, self->allow_add_button, self->allow_error_label,
    g_ptr_array_new ()
  };
  self->lists[LIST_ASK] = (PatternList) {
    self->ask_group, self->ask_add_row, self->ask_add_button, self->ask_error_label,
    g_ptr_array_new ()
  };
  self->lists[LIST_DENY] = (PatternList) {
    self->deny_group, self->deny_add_row, self->deny_add_button, self->deny_error_label,
    g_ptr_array_new ()
  };
  self->lists[LIST_NET_ALLOW] = (PatternList) {
    self->net_allow_group, self->net_allow_add_row, self->net_allow_add_button,
    self->net_allow_error_label, g_ptr_array_new (), TRUE
  };
  self->lists[LIST_NET_DENY] = (PatternList) {
    self->net_deny_group, self->net_deny_add_row, self->net_deny_add_button,
    self->net_deny_error_label, g_ptr_array_new (), TRUE
  };

  /* The list the tools use, so the two cannot drift. */
  {
    g_autofree char *globs = g_strjoinv (", ", (char **) warden_protected_path_globs ());
    g_autofree char *tooltip = g_strdup_printf (_("Protected paths: %s"), globs);

    /* A short subtitle: the whole list squeezed the choice out of sight. */
    adw_action_row_set_subtitle (ADW_ACTION_ROW (self->file_write_row),
                                 _("Writing outside the project or to a protected path (.git, "
                                   ".envrc, editor and shell settings) always asks"));
    gtk_widget_set_tooltip_text (GTK_WIDGET (self->file_write_row), tooltip);
  }
}

GtkWidget *
warden_profile_editor_new (WardenProfileStore *store,
                           WardenProfile      *profile)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE_STORE (store), NULL);
  g_return_val_if_fail (WARDEN_IS_PROFILE (profile), NULL);

  return g_object_new (WARDEN_TYPE_PROFILE_EDITOR,
                       "store", store,
                       "profile", profile,
                       NULL);
}

WardenProfile *
warden_profile_editor_get_profile (WardenProfileEditor *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE_EDITOR (self), NULL);

  return self->profile;
}

gboolean
warden_profile_editor_get_busy (WardenProfileEditor *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE_EDITOR (self), FALSE);

  return get_busy (self);
}

const GError *
warden_profile_editor_get_save_error (WardenProfileEditor *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE_EDITOR (self), NULL);

  return self->save_error;
}

GtkEditable *
warden_profile_editor_get_image_entry (WardenProfileEditor *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE_EDITOR (self), NULL);

  return GTK_EDITABLE (self->image_row);
}

GtkEditable *
warden_profile_editor_get_try_entry (WardenProfileEditor *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE_EDITOR (self), NULL);

  return GTK_EDITABLE (self->try_row);
}

const char *
warden_profile_editor_get_try_result (WardenProfileEditor *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE_EDITOR (self), NULL);

  return self->try_result;
}

GStrv
warden_profile_editor_dup_try_lines (WardenProfileEditor *self)
{
  g_autoptr(GStrvBuilder) lines = g_strv_builder_new ();

  g_return_val_if_fail (WARDEN_IS_PROFILE_EDITOR (self), NULL);

  for (guint i = 0; i < self->part_rows->len; i++)
    g_strv_builder_add (lines, g_object_get_data (g_ptr_array_index (self->part_rows, i),
                                                  "warden-plain"));
  return g_strv_builder_end (lines);
}

static guint
list_of_verdict (WardenVerdict verdict)
{
  switch (verdict)
    {
    case WARDEN_VERDICT_ASK:   return LIST_ASK;
    case WARDEN_VERDICT_DENY:  return LIST_DENY;
    case WARDEN_VERDICT_ALLOW:
    default:                   return LIST_ALLOW;
    }
}

GtkEditable *
warden_profile_editor_get_add_entry (WardenProfileEditor *self,
                                     WardenVerdict        list)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE_EDITOR (self), NULL);

  return GTK_EDITABLE (self->lists[list_of_verdict (list)].add_row);
}

const char *
warden_profile_editor_get_add_error (WardenProfileEditor *self,
                                     WardenVerdict        list)
{
  PatternList *patterns;

  g_return_val_if_fail (WARDEN_IS_PROFILE_EDITOR (self), NULL);

  patterns = &self->lists[list_of_verdict (list)];
  if (!gtk_widget_get_visible (GTK_WIDGET (patterns->error_label)))
    return NULL;
  return gtk_label_get_text (patterns->error_label);
}

gboolean
warden_profile_editor_add_allow (WardenProfileEditor  *self,
                                 const char           *pattern,
                                 GError              **error)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE_EDITOR (self), FALSE);
  g_return_val_if_fail (pattern != NULL, FALSE);

  gtk_editable_set_text (GTK_EDITABLE (self->allow_add_row), pattern);
  return add_from_entry (self, LIST_ALLOW, error);
}

gboolean
warden_profile_editor_add_deny (WardenProfileEditor  *self,
                                const char           *pattern,
                                GError              **error)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE_EDITOR (self), FALSE);
  g_return_val_if_fail (pattern != NULL, FALSE);

  gtk_editable_set_text (GTK_EDITABLE (self->deny_add_row), pattern);
  return add_from_entry (self, LIST_DENY, error);
}

gboolean
warden_profile_editor_add_ask (WardenProfileEditor  *self,
                               const char           *pattern,
                               GError              **error)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE_EDITOR (self), FALSE);
  g_return_val_if_fail (pattern != NULL, FALSE);

  gtk_editable_set_text (GTK_EDITABLE (self->ask_add_row), pattern);
  return add_from_entry (self, LIST_ASK, error);
}

GtkEditable *
warden_profile_editor_get_try_host_entry (WardenProfileEditor *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE_EDITOR (self), NULL);

  return GTK_EDITABLE (self->try_host_row);
}

const char *
warden_profile_editor_get_try_host_result (WardenProfileEditor *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE_EDITOR (self), NULL);

  return self->try_host_result;
}
