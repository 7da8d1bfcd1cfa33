/* warden-trace-window.c: a session's timeline, and its export as JSON
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-ui"

#include <glib/gi18n.h>

#include "warden-trace-window.h"

#include "common/warden-json.h"

#include <string.h>

#include "agent/warden-agent-enums.h"
#include "agent/warden-tool-call.h"
#include "agent/warden-trace.h"

struct _WardenTraceWindow
{
  AdwWindow           parent_instance;

  WardenSessionStore *store;
  char               *session_id;
  char               *session_title;
  char               *workspace;       /* the project: no export is suggested in it */
  GCancellable       *cancellable;
  guint               n_events;

  AdwToastOverlay    *toast_overlay;
  AdwWindowTitle     *window_title;
  GtkLabel           *summary_label;
  GtkListBox         *list_box;
};

G_DEFINE_FINAL_TYPE (WardenTraceWindow, warden_trace_window, ADW_TYPE_WINDOW)

/* With the locale's thousands separator: 1,203 */
static char *
format_count (gint64 n)
{
  return g_strdup_printf ("%'" G_GINT64_FORMAT, n);
}

static char *
format_duration (gint64 ms)
{
  if (ms < 1000)
    return g_strdup_printf (_("%d ms"), (int) ms);
  if (ms < 10 * 1000)
    return g_strdup_printf (_("%.1f s"), ms / 1000.0);
  if (ms < 60 * 1000)
    return g_strdup_printf (_("%d s"), (int) (ms / 1000));
  if (ms < 60 * 60 * 1000)
    return g_strdup_printf (_("%d min %d s"), (int) (ms / 60000), (int) (ms / 1000 % 60));
  return g_strdup_printf (_("%d h %d min"), (int) (ms / 3600000), (int) (ms / 60000 % 60));
}

static char *
format_time (gint64 ms)
{
  g_autoptr(GDateTime) time = g_date_time_new_from_unix_local (ms / 1000);

  return time ? g_date_time_format (time, "%X") : g_strdup ("");
}

static char *
describe_decision (WardenToolCall *call)
{
  const char *pattern = warden_tool_call_get_pattern (call);

  switch (warden_tool_call_get_decision (call))
    {
    case WARDEN_TOOL_DECISION_AUTO_ALLOWED:
      return pattern ? g_strdup_printf (_("Allowed by “%s”"), pattern) : g_strdup (_("Allowed"));
    case WARDEN_TOOL_DECISION_APPROVED:
      return g_strdup (_("Approved once"));
    case WARDEN_TOOL_DECISION_APPROVED_ALWAYS:
      return pattern ? g_strdup_printf (_("Approved; “%s” is now always allowed"), pattern)
                     : g_strdup (_("Approved, always"));
    case WARDEN_TOOL_DECISION_REJECTED:
      return g_strdup (_("Rejected"));
    case WARDEN_TOOL_DECISION_DENIED:
      return pattern ? g_strdup_printf (_("Denied by “%s”"), pattern) : g_strdup (_("Denied"));
    case WARDEN_TOOL_DECISION_ASKED:
      return g_strdup (_("Waiting for approval"));
    case WARDEN_TOOL_DECISION_ANSWERED:
      return g_strdup (_("Answered"));
    case WARDEN_TOOL_DECISION_NONE:
    default:
      return NULL;
    }
}

static const char *
describe_via (const char *via)
{
  if (g_strcmp0 (via, "dialog") == 0)
    return _("answered from the dialog");
  if (g_strcmp0 (via, "card") == 0)
    return _("answered in the chat");
  if (g_strcmp0 (via, "notification") == 0)
    return _("answered from a notification");
  if (g_strcmp0 (via, "cli") == 0)
    return _("answered in the terminal");
  if (g_strcmp0 (via, "script") == 0)
    return _("answered by a program (warden-cli run --json)");
  if (g_strcmp0 (via, "program") == 0)
    return _("answered by the decision program (warden-cli run --approve-with)");
  if (g_strcmp0 (via, "unattended") == 0)
    return _("answered for nobody: an unattended run (warden-cli run --on-question reject, "
             "or no one to hand it to)");
  return NULL;
}

static const char *
describe_answer (const char *answer)
{
  if (g_strcmp0 (answer, "approved") == 0)
    return _("approved once");
  if (g_strcmp0 (answer, "always") == 0)
    return _("approved, always");
  if (g_strcmp0 (answer, "rejected") == 0)
    return _("rejected");
  if (g_strcmp0 (answer, "answered") == 0)
    return _("answered");
  return NULL;
}

static GtkWidget *
make_label (const char *text,
            const char *css_class)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  return label;
}

/* "Allowed by the profile (pattern)", "by you", "as you answered before":
 * who decided about a program or a host. */
static char *
describe_by (WardenToolCall *call)
{
  const char *pattern = warden_tool_call_get_pattern (call);

  switch (warden_tool_call_get_decided_by (call))
    {
    case WARDEN_DECIDED_BY_PROFILE:
      return pattern ? g_strdup_printf (_("by the profile (%s)"), pattern)
                     : g_strdup (_("by the profile"));
    case WARDEN_DECIDED_BY_USER:
      return g_strdup (_("by you"));
    case WARDEN_DECIDED_BY_SESSION:
      return g_strdup (_("as you answered before in this session"));
    case WARDEN_DECIDED_BY_NONE:
    default:
      return NULL;
    }
}

static gboolean
was_allowed (WardenToolCall *call)
{
  WardenToolDecision decision = warden_tool_call_get_decision (call);

  return decision == WARDEN_TOOL_DECISION_AUTO_ALLOWED ||
         decision == WARDEN_TOOL_DECISION_APPROVED ||
         decision == WARDEN_TOOL_DECISION_APPROVED_ALWAYS;
}

static const char *
approval_answer (WardenToolCall *call)
{
  if (warden_tool_call_get_answered (call) == 0)
    return NULL;
  switch (warden_tool_call_get_decision (call))
    {
    case WARDEN_TOOL_DECISION_APPROVED_ALWAYS:
      return "always";
    case WARDEN_TOOL_DECISION_APPROVED:
      return "approved";
    case WARDEN_TOOL_DECISION_REJECTED:
      return "rejected";
    default:
      return "answered";
    }
}

static GtkWidget *
make_row (const WardenTraceEvent *event)
{
  WardenToolCall *call = event->call;
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *top = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  g_autofree char *time = format_time (event->time);
  g_autoptr(GPtrArray) details = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *title = NULL;
  const char *code = NULL;
  GtkWidget *label;

  gtk_widget_set_margin_top (box, 10);
  gtk_widget_set_margin_bottom (box, 10);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);

  switch (event->kind)
    {
    case WARDEN_TRACE_MODEL_CALL:
      {
        const WardenLlmUsage *usage = &event->model.usage;
        g_autofree char *latency = format_duration (event->model.latency_ms);
        g_autofree char *in = format_count (usage->input_tokens);
        g_autofree char *out = format_count (usage->output_tokens);

        if (!warden_llm_usage_tokens_known (usage))
          {
            /* Translators: "Model · 1.8 s · usage unknown": the provider did not say */
            title = g_strdup_printf (_("Model · %s · usage unknown"), latency);
            break;
          }
        /* Translators: "Model · 1.8 s · 1,203 in / 310 out tokens" */
        title = g_strdup_printf (_("Model · %s · %s in / %s out tokens"), latency, in, out);
        if (usage->cache_read_tokens > 0)
          {
            g_autofree char *n = format_count (usage->cache_read_tokens);

            /* Translators: tokens of the input read from the provider's prompt cache */
            g_ptr_array_add (details, g_strdup_printf (_("%s from the cache"), n));
          }
        if (usage->cache_write_tokens > 0)
          {
            g_autofree char *n = format_count (usage->cache_write_tokens);

            /* Translators: tokens of the input written to the provider's prompt cache */
            g_ptr_array_add (details, g_strdup_printf (_("%s written to the cache"), n));
          }
        g_ptr_array_add (details, warden_llm_usage_cost_known (usage)
                                  ? warden_llm_usage_format_cost (usage->cost)
                                  : g_strdup (_("cost unknown")));
        if (event->model.instructions[0] != '\0')
          /* Translators: which version of AGENTS.md the request carried */
          g_ptr_array_add (details, g_strdup_printf (_("project instructions %.12s"),
                                                     event->model.instructions));
      }
      break;

    case WARDEN_TRACE_COMPACTED:
      {
        g_autofree char *before = format_count (event->compaction->tokens_before);
        g_autofree char *after = format_count (event->compaction->tokens_after);

        title = g_strdup (_("Earlier conversation summarised"));
        g_ptr_array_add (details, g_strdup_printf (ngettext ("%u message", "%u messages",
                                                             event->compaction->upto),
                                                   event->compaction->upto));
        /* Translators: estimated tokens of the request, before and after */
        g_ptr_array_add (details, g_strdup_printf (_("about %s → %s tokens"), before, after));
        code = event->compaction->summary;
      }
      break;

    case WARDEN_TRACE_TOOL_CALL:
      {
        const char *feedback = warden_tool_call_get_feedback (call);
        char *decision = describe_decision (call);
        gint64 started = warden_tool_call_get_started (call);
        gint64 finished = warden_tool_call_get_finished (call);

        title = g_strdup (warden_tool_call_get_name (call) ? warden_tool_call_get_name (call)
                                                          : _("Tool"));
        code = warden_tool_call_get_subject (call);
        if (code != NULL && *code == '\0')
          code = NULL;
        if (decision != NULL)
          g_ptr_array_add (details, decision);
        if (started > 0 && finished >= started)
          g_ptr_array_add (details, format_duration (finished - started));
        if (warden_tool_call_get_kind (call) == WARDEN_TOOL_KIND_EXEC &&
            warden_tool_call_get_exit_code (call) >= 0)
          g_ptr_array_add (details, g_strdup_printf (_("exit status %d"),
                                                     warden_tool_call_get_exit_code (call)));
        if (warden_tool_call_get_timed_out (call))
          g_ptr_array_add (details, g_strdup (_("timed out")));
        if (warden_tool_call_get_state (call) == WARDEN_TOOL_CALL_INTERRUPTED)
          g_ptr_array_add (details, g_strdup (_("interrupted")));
        if (feedback != NULL && feedback[0] != '\0')
          g_ptr_array_add (details, g_strdup_printf (_("“%s”"), feedback));
      }
      break;

    case WARDEN_TRACE_APPROVAL:
      {
        const char *via = describe_via (warden_tool_call_get_answered_via (call));
        const char *answer = describe_answer (approval_answer (call));

        title = g_strdup (_("Approval"));
        if (warden_tool_call_get_answered (call) > 0)
          {
            g_autofree char *duration =
              format_duration (MAX (warden_tool_call_get_answered (call) -
                                    warden_tool_call_get_asked (call), 0));

            g_ptr_array_add (details, g_strdup_printf (_("waited %s"), duration));
          }
        else
          g_ptr_array_add (details, g_strdup (_("waiting for an answer")));
        if (via != NULL)
          g_ptr_array_add (details, g_strdup (via));
        if (answer != NULL)
          g_ptr_array_add (details, g_strdup (answer));
      }
      break;

    case WARDEN_TRACE_PROGRAM:
    case WARDEN_TRACE_HOST:
      {
        gboolean host = event->kind == WARDEN_TRACE_HOST;
        const char *feedback = warden_tool_call_get_feedback (call);
        char *by = describe_by (call);

        if (warden_tool_call_get_decided_by (call) == WARDEN_DECIDED_BY_NONE)
          title = g_strdup (host ? _("Host not answered") : _("Program not answered"));
        else if (was_allowed (call))
          title = g_strdup (host ? _("Host reached") : _("Program allowed"));
        else
          title = g_strdup (host ? _("Host refused") : _("Program refused"));
        code = host ? warden_tool_call_get_arg (call, "name")
                    : warden_tool_call_get_arg (call, "command");
        if (host && code != NULL)
          g_ptr_array_add (details,
                           g_strdup_printf (_("port %d"),
                                            (int) warden_json_get_int (warden_tool_call_get_input (call),
                                                                       "port", 0)));
        if (by != NULL)
          g_ptr_array_add (details, by);
        if (feedback != NULL && feedback[0] != '\0')
          g_ptr_array_add (details, g_strdup_printf (_("“%s”"), feedback));
      }
      break;

    default:
      title = g_strdup ("");
      break;
    }

  label = make_label (title, "heading");
  gtk_widget_set_hexpand (label, TRUE);
  gtk_box_append (GTK_BOX (top), label);
  label = make_label (time, "dim-label");
  gtk_widget_add_css_class (label, "caption");
  gtk_label_set_wrap (GTK_LABEL (label), FALSE);
  gtk_widget_set_valign (label, GTK_ALIGN_START);
  gtk_box_append (GTK_BOX (top), label);
  gtk_box_append (GTK_BOX (box), top);

  if (code != NULL)
    {
      label = make_label (code, "monospace");
      gtk_label_set_selectable (GTK_LABEL (label), TRUE);
      gtk_box_append (GTK_BOX (box), label);
    }

  if (details->len > 0)
    {
      g_autofree char *text = NULL;

      g_ptr_array_add (details, NULL);
      text = g_strjoinv (" · ", (GStrv) details->pdata);
      label = make_label (text, "dim-label");
      gtk_box_append (GTK_BOX (box), label);
    }

  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  return row;
}

static void
set_summary (WardenTraceWindow *self,
             GPtrArray         *events)
{
  guint model_calls = 0, tool_calls = 0, approvals = 0;
  gint64 waited = 0;
  WardenLlmUsage usage = { 0 };
  g_autofree char *used = NULL;
  g_autofree char *waited_text = NULL;
  g_autofree char *models = NULL;
  g_autofree char *tools = NULL;
  g_autofree char *asks = NULL;
  g_autofree char *text = NULL;

  for (guint i = 0; i < events->len; i++)
    {
      const WardenTraceEvent *event = g_ptr_array_index (events, i);

      switch (event->kind)
        {
        case WARDEN_TRACE_MODEL_CALL:
          model_calls++;
          warden_llm_usage_add (&usage, &event->model.usage);
          break;
        case WARDEN_TRACE_TOOL_CALL:
          tool_calls++;
          break;
        case WARDEN_TRACE_APPROVAL:
          approvals++;
          if (warden_tool_call_get_answered (event->call) > 0)
            waited += MAX (warden_tool_call_get_answered (event->call) -
                           warden_tool_call_get_asked (event->call), 0);
          break;
        case WARDEN_TRACE_PROGRAM:
        case WARDEN_TRACE_HOST:
        default:
          break;
        }
    }

  used = warden_llm_usage_format (&usage);
  waited_text = format_duration (waited);
  models = g_strdup_printf (ngettext ("%u model call", "%u model calls", model_calls), model_calls);
  tools = g_strdup_printf (ngettext ("%u tool call", "%u tool calls", tool_calls), tool_calls);
  asks = g_strdup_printf (ngettext ("%u approval", "%u approvals", approvals), approvals);
  /* Translators: "3 model calls · 1.5k in · 420 out · $0.01 · 4 tool calls · 2 approvals · 14 s
   * waiting" */
  text = g_strdup_printf (_("%s · %s · %s · %s · %s waiting for you"),
                          models, used, tools, asks, waited_text);
  gtk_label_set_text (self->summary_label, text);
}

void
warden_trace_window_refresh (WardenTraceWindow *self)
{
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) error = NULL;
  GtkWidget *child;

  g_return_if_fail (WARDEN_IS_TRACE_WINDOW (self));

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->list_box))) != NULL)
    gtk_list_box_remove (self->list_box, child);
  self->n_events = 0;

  /* The store's connection belongs to the main thread (SQLite without its
   * mutex), and a trace is a few small indexed reads: read it here. */
  events = warden_trace_list (self->store, self->session_id, &error);
  if (events == NULL)
    {
      g_autofree char *text = g_strdup_printf (_("Could not read the session’s trace: %s"),
                                               error->message);

      gtk_label_set_text (self->summary_label, text);
      return;
    }

  for (guint i = 0; i < events->len; i++)
    gtk_list_box_append (self->list_box, make_row (g_ptr_array_index (events, i)));
  self->n_events = events->len;
  set_summary (self, events);
}

guint
warden_trace_window_get_n_events (WardenTraceWindow *self)
{
  g_return_val_if_fail (WARDEN_IS_TRACE_WINDOW (self), 0);

  return self->n_events;
}

const char *
warden_trace_window_get_summary (WardenTraceWindow *self)
{
  g_return_val_if_fail (WARDEN_IS_TRACE_WINDOW (self), NULL);

  return gtk_label_get_text (self->summary_label);
}

static void
refresh_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  warden_trace_window_refresh (WARDEN_TRACE_WINDOW (widget));
}

static void
toast (WardenTraceWindow *self,
       const char        *text)
{
  /* A toast's title is markup (libadwaita 1.2): error messages and file
   * names are shown as the text they are. */
  g_autofree char *escaped = g_markup_escape_text (text, -1);

  /* An export can end after the window was closed and disposed. */
  if (self->toast_overlay != NULL)
    adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (escaped));
}

static void
replace_contents_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(WardenTraceWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_file_replace_contents_finish (G_FILE (object), result, NULL, &error))
    {
      g_autofree char *text = NULL;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      text = g_strdup_printf (_("Could not export the trace: %s"), error->message);
      toast (self, text);
      return;
    }

  {
    g_autofree char *uri = g_file_get_uri (G_FILE (object));
    g_autofree char *name = g_file_get_basename (G_FILE (object));
    /* Translators: %s is the name of the file the trace was saved to */
    g_autofree char *text = g_strdup_printf (_("Trace saved as %s"), name);
    g_autofree char *escaped = g_markup_escape_text (text, -1);
    AdwToast *saved = adw_toast_new (escaped);

    adw_toast_set_button_label (saved, _("_Open"));
    adw_toast_set_action_name (saved, "trace.open-export");
    adw_toast_set_action_target_value (saved, g_variant_new_string (uri));
    adw_toast_set_timeout (saved, 10);
    if (self->toast_overlay != NULL)
      adw_toast_overlay_add_toast (self->toast_overlay, saved);
    else
      g_object_unref (g_object_ref_sink (saved));
  }
}

static void
open_export_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(WardenTraceWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_app_info_launch_default_for_uri_finish (result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *text = g_strdup_printf (_("Could not open the trace: %s"),
                                               error->message);

      toast (self, text);
    }
}

/* The toast's Open: the saved file, in the application the desktop picks
 * for JSON (GtkFileLauncher is GTK 4.10). */
static void
open_export_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  WardenTraceWindow *self = WARDEN_TRACE_WINDOW (widget);
  g_autoptr(GdkAppLaunchContext) context =
    gdk_display_get_app_launch_context (gtk_widget_get_display (widget));

  g_app_info_launch_default_for_uri_async (g_variant_get_string (parameter, NULL),
                                           G_APP_LAUNCH_CONTEXT (context), self->cancellable,
                                           open_export_cb, g_object_ref (self));
}

/* @title as a file name: no path separators, control characters or
 * characters other systems refuse; no leading dot (a hidden file); not too
 * long to show. */
char *
warden_trace_window_file_name_for_title (const char *title)
{
  g_autoptr(GString) name = g_string_new (NULL);
  gboolean gap = FALSE;

  for (const char *p = title ? title : ""; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char_validated (p, -1);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        break;
      if (g_unichar_isspace (c) || g_unichar_iscntrl (c) ||
          g_unichar_type (c) == G_UNICODE_FORMAT ||
          (c < 0x80 && strchr ("/\\:*?\"<>|", (int) c) != NULL))
        {
          gap = name->len > 0;
          continue;
        }
      if (name->len == 0 && c == '.')
        continue;
      if (g_utf8_strlen (name->str, -1) >= 60)
        break;
      if (gap)
        g_string_append_c (name, ' ');
      gap = FALSE;
      g_string_append_unichar (name, c);
    }
  if (name->len == 0)
    g_string_append (name, "session");
  g_string_append (name, "-trace.json");
  return g_string_free (g_steal_pointer (&name), FALSE);
}

static gboolean
is_inside (GFile      *file,
           const char *dir)
{
  g_autoptr(GFile) d = NULL;

  if (dir == NULL || *dir == '\0')
    return FALSE;
  d = g_file_new_for_path (dir);
  return g_file_equal (file, d) || g_file_has_prefix (file, d);
}

/* Documents, else the home folder: never the project, where the agent
 * reads (a trace holds the whole conversation). NULL when neither will do. */
GFile *
warden_trace_window_dup_export_folder (WardenTraceWindow *self)
{
  const char *candidates[] = { g_get_user_special_dir (G_USER_DIRECTORY_DOCUMENTS),
                               g_get_home_dir () };

  g_return_val_if_fail (WARDEN_IS_TRACE_WINDOW (self), NULL);

  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      g_autoptr(GFile) folder = NULL;

      if (candidates[i] == NULL || !g_file_test (candidates[i], G_FILE_TEST_IS_DIR))
        continue;
      folder = g_file_new_for_path (candidates[i]);
      if (!is_inside (folder, self->workspace))
        return g_steal_pointer (&folder);
    }
  return NULL;
}

static void
export_response_cb (GtkNativeDialog   *chooser,
                    int                response,
                    WardenTraceWindow *self)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  char *json;

  if (response != GTK_RESPONSE_ACCEPT)
    goto out;

  file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
  json = warden_trace_to_json (self->store, self->session_id, &error);
  if (json == NULL)
    {
      g_autofree char *text = g_strdup_printf (_("Could not export the trace: %s"),
                                               error->message);

      toast (self, text);
      goto out;
    }

  bytes = g_bytes_new_take (json, strlen (json));
  g_file_replace_contents_bytes_async (file, bytes, NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION,
                                       self->cancellable, replace_contents_cb,
                                       g_object_ref (self));

out:
  g_object_unref (chooser);
  g_object_unref (self);
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  WardenTraceWindow *self = WARDEN_TRACE_WINDOW (widget);
  GtkFileChooserNative *chooser;
  g_autofree char *name = NULL;
  g_autoptr(GFile) folder = NULL;
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  chooser = gtk_file_chooser_native_new (_("Export the Trace"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SAVE,
                                         _("_Export"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);

  gtk_file_filter_set_name (filter, _("JSON"));
  gtk_file_filter_add_mime_type (filter, "application/json");
  gtk_file_filter_add_suffix (filter, "json");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);

  name = warden_trace_window_file_name_for_title (self->session_title && self->session_title[0]
                                                  ? self->session_title : self->session_id);
  folder = warden_trace_window_dup_export_folder (self);
  if (folder != NULL)
    gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), folder, NULL);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), name);

  /* The references end in the response handler. */
  g_signal_connect (chooser, "response", G_CALLBACK (export_response_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

GtkWidget *
warden_trace_window_new (GtkWindow          *parent,
                         WardenSessionStore *store,
                         const char         *session_id)
{
  WardenTraceWindow *self;
  g_autoptr(WardenSessionRecord) info = NULL;

  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (WARDEN_IS_SESSION_STORE (store), NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  self = g_object_new (WARDEN_TYPE_TRACE_WINDOW,
                       "transient-for", parent,
                       NULL);
  self->store = g_object_ref (store);
  self->session_id = g_strdup (session_id);

  info = warden_session_store_get_session (store, session_id, NULL);
  if (info != NULL)
    self->workspace = g_strdup (info->workspace);
  if (info != NULL && info->title != NULL && info->title[0] != '\0')
    {
      self->session_title = g_strdup (info->title);
      adw_window_title_set_subtitle (self->window_title, info->title);
    }

  warden_trace_window_refresh (self);

  return GTK_WIDGET (self);
}

static void
warden_trace_window_dispose (GObject *object)
{
  WardenTraceWindow *self = WARDEN_TRACE_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), WARDEN_TYPE_TRACE_WINDOW);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->store);

  G_OBJECT_CLASS (warden_trace_window_parent_class)->dispose (object);
}

static void
warden_trace_window_finalize (GObject *object)
{
  WardenTraceWindow *self = WARDEN_TRACE_WINDOW (object);

  g_free (self->session_id);
  g_free (self->session_title);
  g_free (self->workspace);

  G_OBJECT_CLASS (warden_trace_window_parent_class)->finalize (object);
}

static void
warden_trace_window_class_init (WardenTraceWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = warden_trace_window_dispose;
  object_class->finalize = warden_trace_window_finalize;

  gtk_widget_class_install_action (widget_class, "trace.refresh", NULL, refresh_action);
  gtk_widget_class_install_action (widget_class, "trace.export", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "trace.open-export", "s", open_export_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_r, GDK_CONTROL_MASK,
                                       "trace.refresh", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK,
                                       "trace.export", NULL);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RESOURCE_PREFIX "/warden-trace-window.ui");
  gtk_widget_class_bind_template_child (widget_class, WardenTraceWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, WardenTraceWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, WardenTraceWindow, summary_label);
  gtk_widget_class_bind_template_child (widget_class, WardenTraceWindow, list_box);
}

static void
warden_trace_window_init (WardenTraceWindow *self)
{
  self->cancellable = g_cancellable_new ();

  gtk_widget_init_template (GTK_WIDGET (self));

  gtk_list_box_set_placeholder (self->list_box,
                                make_label (_("Nothing has happened in this session yet."),
                                            "dim-label"));
}
