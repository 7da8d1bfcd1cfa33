/* test-markdown.c: the chat's Markdown and the rows that show it
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <string.h>

#include "common/warden-diff.h"

#include "warden-chat-item.h"
#include "warden-chat-row.h"
#include "warden-markdown.h"
#include "warden-renderer.h"
#include "x-input.h"

/* A call as the agent makes one: @input_json is its arguments. */
static WardenToolCall *
call_new (const char *id,
          const char *name,
          const char *input_json)
{
  g_autoptr(JsonNode) input = json_from_string (input_json, NULL);

  g_assert_nonnull (input);
  return warden_tool_call_new ("s1", id, name, input);
}

typedef struct
{
  const char *markdown;
  const char *markup;
} Case;

static const Case cases[] = {
  { "", "" },
  { "plain & <simple>", "plain &amp; &lt;simple&gt;" },
  { "Hello **world**", "Hello <b>world</b>" },
  { "__bold__ too", "<b>bold</b> too" },
  { "*italic* and _also_", "<i>italic</i> and <i>also</i>" },
  { "snake_case_name and __init__", "snake_case_name and <b>init</b>" },
  { "a * b * c", "a * b * c" },
  { "2*3*4", "2*3*4" },
  { "_a_b_", "<i>a_b</i>" },
  { "***both***", "<b><i>both</i></b>" },
  { "**bold *it* bold**", "<b>bold <i>it</i> bold</b>" },
  { "*it **b** it*", "<i>it <b>b</b> it</i>" },
  { "**a** and **b**", "<b>a</b> and <b>b</b>" },
  { "\\*not\\*", "*not*" },
  { "`code` here", "" WARDEN_MARKDOWN_CODE_OPEN "code" WARDEN_MARKDOWN_CODE_CLOSE " here" },
  { "`a <b> & **c**`", "" WARDEN_MARKDOWN_CODE_OPEN "a &lt;b&gt; &amp; **c**" WARDEN_MARKDOWN_CODE_CLOSE "" },
  { "``a ` b``", "" WARDEN_MARKDOWN_CODE_OPEN "a ` b" WARDEN_MARKDOWN_CODE_CLOSE "" },
  { "`my_var_name`", "" WARDEN_MARKDOWN_CODE_OPEN "my_var_name" WARDEN_MARKDOWN_CODE_CLOSE "" },
  /* Unfinished, as while streaming: shown as typed so far. */
  { "**unclosed", "**unclosed" },
  { "`unclosed", "`unclosed" },
  { "[half](https://exa", "[half](https://exa" },
  { "```\nint x = 1 < 2;\n", "<tt>int x = 1 &lt; 2;</tt>" },
  { "```c\nint *p;\n```\nafter", "<tt>int *p;</tt>\nafter" },
  { "```\n  keep   spacing\n\n**not bold**\n```", "<tt>  keep   spacing\n\n**not bold**</tt>" },
  { "# Title\n## Sub\n### Small ###",
    "<span size=\"x-large\" weight=\"bold\">Title</span>\n"
    "<span size=\"large\" weight=\"bold\">Sub</span>\n"
    "<span weight=\"bold\">Small</span>" },
  { "#hashtag", "#hashtag" },
  { "- one\n* two\n  + three", "• one\n• two\n  • three" },
  { "- [ ] todo\n- [x] done", "☐ todo\n☑ done" },
  { "1. first\n2. second", "1. first\n2. second" },
  { "> quote **x**", "▎ quote <b>x</b>" },
  { "---", "──────────" },
  { "| a | b |\n|---|---|", "<tt>| a | b |</tt>\n<tt>|---|---|</tt>" },
  { "[site](https://example.com/a?b=1&c=\"2\")",
    "<a href=\"https://example.com/a?b=1&amp;c=&quot;2&quot;\">site</a> (example.com)" },
  { "[**bold** link](http://x.org)", "<a href=\"http://x.org\"><b>bold</b> link</a> (x.org)" },
  { "[bad](javascript:alert(1))", "bad" },
  { "[file](file:///etc/passwd)", "file" },
  { "![img](https://i.example/p.png)", "<a href=\"https://i.example/p.png\">img</a> (i.example)" },
  /* A label that is not where the link goes is followed by the real host. */
  { "[docs.gtk.org](https://evil.example/x)",
    "<a href=\"https://evil.example/x\">docs.gtk.org</a> (evil.example)" },
  { "[https://docs.gtk.org/](https://evil.example/)",
    "<a href=\"https://evil.example/\">https://docs.gtk.org/</a> (evil.example)" },
  { "[`docs.gtk.org`](https://docs.gtk.org.evil.example)",
    "<a href=\"https://docs.gtk.org.evil.example\">" WARDEN_MARKDOWN_CODE_OPEN "docs.gtk.org" WARDEN_MARKDOWN_CODE_CLOSE "</a> "
    "(docs.gtk.org.evil.example)" },
  { "[paypal.com](https://p\xd0\xb0ypal.com/)",
    "<a href=\"https://p\xd0\xb0ypal.com/\">paypal.com</a> (xn--pypal-4ve.com)" },
  { "<https://docs.gtk.org@evil.example/>",
    "<a href=\"https://docs.gtk.org@evil.example/\">https://docs.gtk.org@evil.example/</a> "
    "(evil.example)" },
  /* A label that says where the link goes needs nothing more. */
  { "[docs.gtk.org](https://docs.gtk.org/gtk4/)",
    "<a href=\"https://docs.gtk.org/gtk4/\">docs.gtk.org</a>" },
  { "[https://x.org](https://x.org/) [x.org/](https://x.org)",
    "<a href=\"https://x.org/\">https://x.org</a> <a href=\"https://x.org\">x.org/</a>" },
  { "[https://x.org/a/](https://x.org/b/)",
    "<a href=\"https://x.org/b/\">https://x.org/a/</a> (x.org)" },
  { "[https://x.org/a](https://x.org/a) [x.org/a](https://x.org/a)",
    "<a href=\"https://x.org/a\">https://x.org/a</a> <a href=\"https://x.org/a\">x.org/a</a>" },
  /* Only the web is a link. */
  { "[mail](mailto:a@b.example) <mailto:a@b.example>", "mail &lt;mailto:a@b.example&gt;" },
  { "[nohost](https:///path)", "nohost" },
  { "see https://example.com/x_y. ok",
    "see <a href=\"https://example.com/x_y\">https://example.com/x_y</a>. ok" },
  { "(https://e.com/a_(b))", "(<a href=\"https://e.com/a_(b)\">https://e.com/a_(b)</a>)" },
  { "<https://x.org>", "<a href=\"https://x.org\">https://x.org</a>" },
  { "a\n\n\n\nb\n", "a\n\nb" },
  { "line\r\nnext\rlast", "line\nnext\nlast" },
  { "bell\a and esc\033[31m", "bell and esc[31m" },
  { "bad \xff utf8", "bad \xef\xbf\xbd utf8" },
};

static void
test_cases (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *markup = warden_markdown_to_pango (cases[i].markdown);
      g_autofree char *escaped = g_strescape (cases[i].markdown, "\u2022");

      g_test_message ("case %u: %s", i, escaped);
      g_assert_cmpstr (markup, ==, cases[i].markup);
    }
}

/* pango_parse_markup does not know <a>: GtkLabel takes links out first. */
static void
assert_valid_markup (const char *markup,
                     const char *source)
{
  static GRegex *open_link;
  g_autoptr(GError) error = NULL;
  g_autofree char *without_links = NULL;
  g_autofree char *pango = NULL;
  g_autofree char *plain = NULL;
  g_auto(GStrv) parts = NULL;

  if (open_link == NULL)
    open_link = g_regex_new ("<a href=\"[^\"<>]*\">", 0, 0, NULL);
  without_links = g_regex_replace_literal (open_link, markup, -1, 0, "<span>", 0, NULL);
  parts = g_strsplit (without_links, "</a>", -1);
  pango = g_strjoinv ("</span>", parts);

  if (!pango_parse_markup (pango, -1, 0, NULL, &plain, NULL, &error))
    g_error ("markup for %s is not valid: %s\n%s", g_strescape (source, NULL), error->message,
             markup);
}

static const char *documents[] = {
  "# Plan\n\nI'll **fix** the `parse_args` function in [main.c](https://example.com/main.c):\n\n"
  "```c\nint main (int argc, char **argv)\n{\n  return argc < 2 ? 1 : 0; /* <&> */\n}\n```\n\n"
  "- first *step* with snake_case_name\n- second __step__\n  1. nested\n\n> quoted **text**\n",
  "***a** b* _c __d__ e_ `f **g` h** [i *j](k) l](http://m.n/o_(p)) <https://q.r> https://s.t/u.",
  "**bold *it `co**de` x* y** [a](b \"c\") ![d](https://e) \\*esc\\* ~~~\ncode\n~~~",
  "| col | `x` |\n|---|---|\n| **1** | [l](http://a) |\n---\n* * *\n- [ ] t\n- [x] d\n#### h ####",
  "ünïcödé **fëtt** _kürsiv_ `cödé` [lïnk](https://ü.example/ä?ö=1&ü=2) 😀 **😀** *😀*",
};

static void
test_prefixes (void)
{
  for (guint d = 0; d < G_N_ELEMENTS (documents); d++)
    {
      gsize len = strlen (documents[d]);

      /* Every prefix, as the text streams in, including ones that end in
       * the middle of a UTF-8 character. */
      for (gsize n = 0; n <= len; n++)
        {
          g_autofree char *prefix = g_strndup (documents[d], n);
          g_autofree char *markup = warden_markdown_to_pango (prefix);

          assert_valid_markup (markup, prefix);
        }
    }
}

static void
test_garbage (void)
{
  static const char alphabet[] = "*_`[]()<>&#-!\\\n h:/|~\"'+.1x\t>\r";
  GRand *rand = g_rand_new_with_seed (20260101);

  for (guint i = 0; i < 5000; i++)
    {
      guint len = g_rand_int_range (rand, 0, 120);
      g_autofree char *text = g_malloc (len + 1);
      g_autofree char *markup = NULL;

      for (guint j = 0; j < len; j++)
        {
          int r = g_rand_int_range (rand, 0, 100);

          if (r < 5)
            text[j] = (char) g_rand_int_range (rand, 1, 256);
          else if (r < 10)
            memcpy (text + j, "http", MIN (4, len - j)), j += MIN (4, len - j) - 1;
          else
            text[j] = alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)];
        }
      text[len] = '\0';
      markup = warden_markdown_to_pango (text);
      assert_valid_markup (markup, text);
    }
  g_rand_free (rand);
}

static void
test_label_accepts (void)
{
  GtkWidget *label = g_object_ref_sink (gtk_label_new (NULL));

  /* GtkLabel warns (fatal here) on markup it cannot parse, links included. */
  for (guint d = 0; d < G_N_ELEMENTS (documents); d++)
    {
      gsize len = strlen (documents[d]);

      for (gsize n = 0; n <= len; n += 3)
        {
          g_autofree char *prefix = g_strndup (documents[d], n);
          g_autofree char *markup = warden_markdown_to_pango (prefix);

          gtk_label_set_markup (GTK_LABEL (label), markup);
        }
    }
  gtk_label_set_markup (GTK_LABEL (label), "<a href=\"https://x.org\"><b>x</b></a>");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "x");
  g_object_unref (label);
}

static void
test_long_line_is_fast (void)
{
  g_autoptr(GString) s = g_string_new (NULL);
  g_autofree char *markup = NULL;
  gint64 start;

  /* Unmatched delimiters must not make rendering quadratic. */
  for (guint i = 0; i < 20000; i++)
    g_string_append (s, "a* _b ** [c ");
  start = g_get_monotonic_time ();
  markup = warden_markdown_to_pango (s->str);
  g_test_message ("240 KB of unmatched delimiters rendered in %.1f ms",
                  (g_get_monotonic_time () - start) / 1000.0);
  assert_valid_markup (markup, "long line");
}

static GtkWidget *
find_message_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) window = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (window) && gtk_widget_get_visible (GTK_WIDGET (window)))
        return GTK_WIDGET (window);
    }
  return NULL;
}

static gboolean
activate_link (GtkWidget  *label,
               const char *uri)
{
  gboolean handled = FALSE;

  g_signal_emit_by_name (label, "activate-link", uri, &handled);
  return handled;
}

static void
test_link_asks_first (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *label = gtk_label_new (NULL);
  g_autofree char *markup =
    warden_markdown_to_pango ("[docs.gtk.org](https://evil.example/x\xe2\x80\xae" "fdp.exe)");
  GtkWidget *dialog;
  gint64 deadline;

  gtk_label_set_markup (GTK_LABEL (label), markup);
  g_signal_connect (label, "activate-link", G_CALLBACK (warden_markdown_activate_link), NULL);
  gtk_window_set_child (GTK_WINDOW (window), label);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "docs.gtk.org (evil.example)");

  /* Handled (GtkLabel must not open it itself), and only after a question
   * that names the whole URL, its hidden override made visible. */
  g_assert_true (activate_link (label, "https://evil.example/x\xe2\x80\xae" "fdp.exe"));
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (dialog)) == GTK_WINDOW (window));
  g_assert_cmpstr (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (dialog)), ==, "Open Link?");
  g_assert_cmpstr (adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)), ==,
                   "The link goes to evil.example:\n\nhttps://evil.example/x\\u202efdp.exe");
  g_assert_cmpstr (adw_message_dialog_get_default_response (ADW_MESSAGE_DIALOG (dialog)), ==,
                   "cancel");
  g_assert_cmpstr (adw_message_dialog_get_close_response (ADW_MESSAGE_DIALOG (dialog)), ==,
                   "cancel");
  g_assert_true (adw_message_dialog_has_response (ADW_MESSAGE_DIALOG (dialog), "open"));
  /* Escape: the dialog goes, nothing else happens. */
  gtk_window_close (GTK_WINDOW (dialog));
  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (find_message_dialog () != NULL && g_get_monotonic_time () < deadline)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_null (find_message_dialog ());

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_link_other_schemes (void)
{
  static const char *uris[] = {
    "file:///etc/passwd", "mailto:a@b.example", "javascript:alert(1)", "ssh://host",
    "vscode://open?x", "https:///no-host", "",
  };
  GtkWidget *window = gtk_window_new ();
  GtkWidget *label = gtk_label_new (NULL);

  g_signal_connect (label, "activate-link", G_CALLBACK (warden_markdown_activate_link), NULL);
  gtk_window_set_child (GTK_WINDOW (window), label);
  gtk_window_present (GTK_WINDOW (window));
  /* Not opened, not even asked about: handled, so GtkLabel does not try. */
  for (guint i = 0; i < G_N_ELEMENTS (uris); i++)
    {
      g_test_message ("%s", uris[i]);
      g_assert_false (warden_markdown_link_can_open (uris[i]));
      g_assert_true (activate_link (label, uris[i]));
      g_assert_null (find_message_dialog ());
    }
  g_assert_true (warden_markdown_link_can_open ("HTTP://x.org"));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Chat rows */

typedef struct
{
  GtkWidget     *window;
  WardenChatRow *row;
  char          *last_action;
  GVariant      *last_parameter;
  guint          activations;
} RowFixture;

static void
action_cb (GSimpleAction *action,
           GVariant      *parameter,
           gpointer       user_data)
{
  RowFixture *f = user_data;

  g_free (f->last_action);
  f->last_action = g_strdup (g_action_get_name (G_ACTION (action)));
  g_clear_pointer (&f->last_parameter, g_variant_unref);
  f->last_parameter = parameter != NULL ? g_variant_ref (parameter) : NULL;
  f->activations++;
}

static void
row_set_up (RowFixture    *f,
            gconstpointer  data)
{
  g_autoptr(GSimpleActionGroup) group = g_simple_action_group_new ();
  g_autoptr(GSimpleAction) answer =
    g_simple_action_new ("approval-answer", G_VARIANT_TYPE ("(sbbs)"));
  g_autoptr(GSimpleAction) show = g_simple_action_new ("approval-show", G_VARIANT_TYPE_STRING);

  g_signal_connect (answer, "activate", G_CALLBACK (action_cb), f);
  g_signal_connect (show, "activate", G_CALLBACK (action_cb), f);
  g_action_map_add_action (G_ACTION_MAP (group), G_ACTION (answer));
  g_action_map_add_action (G_ACTION_MAP (group), G_ACTION (show));

  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 600, 400);
  gtk_widget_insert_action_group (f->window, "win", G_ACTION_GROUP (group));
  f->row = WARDEN_CHAT_ROW (warden_chat_row_new ());
  gtk_window_set_child (GTK_WINDOW (f->window), GTK_WIDGET (f->row));
  gtk_window_present (GTK_WINDOW (f->window));
}

static void
row_tear_down (RowFixture    *f,
               gconstpointer  data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  g_free (f->last_action);
  g_clear_pointer (&f->last_parameter, g_variant_unref);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static GtkWidget *
find_css (GtkWidget  *root,
          const char *css_class)
{
  if (gtk_widget_has_css_class (root, css_class))
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_css (child, css_class);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *
find_type (GtkWidget *root,
           GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_type (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* A visible button showing @label (mnemonics taken out). */
static GtkWidget *
find_button (GtkWidget  *root,
             const char *label)
{
  if (!gtk_widget_get_visible (root))
    return NULL;
  if (GTK_IS_BUTTON (root) && gtk_button_get_label (GTK_BUTTON (root)) != NULL)
    {
      g_autoptr(GString) plain = g_string_new (gtk_button_get_label (GTK_BUTTON (root)));

      g_string_replace (plain, "_", "", 0);
      if (g_str_equal (plain->str, label))
        return root;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_button (child, label);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* gtk_widget_activate() would only click after an animation. */
static void
click (GtkWidget *button)
{
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_is_sensitive (button));
  g_signal_emit_by_name (button, "clicked");
}

static const char *
label_text (RowFixture *f,
            const char *css_class)
{
  GtkWidget *label = find_css (GTK_WIDGET (f->row), css_class);

  g_assert_nonnull (label);
  return gtk_label_get_text (GTK_LABEL (label));
}

static void
test_row_user (RowFixture    *f,
               gconstpointer  data)
{
  g_autoptr(WardenChatItem) item = warden_chat_item_new (WARDEN_CHAT_ITEM_USER, "Fix **the** <bug>");
  GtkWidget *label;

  warden_chat_row_set_item (f->row, item);
  g_assert_true (warden_chat_row_get_item (f->row) == item);
  label = find_css (GTK_WIDGET (f->row), "user-message");
  g_assert_nonnull (label);
  /* The user's words are shown as typed, not as Markdown. */
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "Fix **the** <bug>");
  g_assert_true (gtk_label_get_selectable (GTK_LABEL (label)));
  g_assert_cmpint (gtk_widget_get_halign (label), ==, GTK_ALIGN_END);
}

static void
test_row_assistant_streams (RowFixture    *f,
                            gconstpointer  data)
{
  g_autoptr(WardenChatItem) item = warden_chat_item_new (WARDEN_CHAT_ITEM_ASSISTANT, "Hello");
  GtkWidget *label;
  gint64 deadline;

  warden_chat_row_set_item (f->row, item);
  label = find_css (GTK_WIDGET (f->row), "assistant-message");
  g_assert_nonnull (label);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "Hello");

  warden_chat_item_append_text (item, " **wor");
  warden_chat_item_append_text (item, "ld** and `co");
  warden_chat_item_append_text (item, "de`");
  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (!g_str_equal (gtk_label_get_text (GTK_LABEL (label)), "Hello world and code")
         && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "Hello world and code");
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (label)), ==,
                   "Hello <b>world</b> and " WARDEN_MARKDOWN_CODE_OPEN "code" WARDEN_MARKDOWN_CODE_CLOSE "");
}

static void
test_row_notice (RowFixture    *f,
                 gconstpointer  data)
{
  g_autoptr(WardenChatItem) item = warden_chat_item_new (WARDEN_CHAT_ITEM_NOTICE, "Stopped.");

  warden_chat_row_set_item (f->row, item);
  g_assert_cmpstr (label_text (f, "dim-label"), ==, "Stopped.");
}

typedef struct
{
  WardenToolDecision   decision;
  const char          *pattern;
  const char          *reason;
  WardenToolCallState  state;
  const char          *text;
  const char          *css;
} BadgeCase;

/* A card whose call has not come yet shows what the view sets on it. */
static void
test_row_badges (RowFixture    *f,
                 gconstpointer  data)
{
  static const BadgeCase badges[] = {
    { WARDEN_TOOL_DECISION_AUTO_ALLOWED, "git status*", NULL, WARDEN_TOOL_CALL_FINISHED,
      "allowed by git status*", "allowed" },
    { WARDEN_TOOL_DECISION_AUTO_ALLOWED, NULL, NULL, WARDEN_TOOL_CALL_FINISHED,
      "allowed", "allowed" },
    { WARDEN_TOOL_DECISION_APPROVED, NULL, NULL, WARDEN_TOOL_CALL_FINISHED,
      "approved", "approved" },
    { WARDEN_TOOL_DECISION_APPROVED_ALWAYS, "make *", NULL, WARDEN_TOOL_CALL_FINISHED,
      "always allowed · make *", "approved" },
    { WARDEN_TOOL_DECISION_REJECTED, NULL, NULL, WARDEN_TOOL_CALL_REJECTED,
      "rejected", "rejected" },
    { WARDEN_TOOL_DECISION_DENIED, "rm -rf *", NULL, WARDEN_TOOL_CALL_DENIED,
      "denied by rm -rf *", "denied" },
    { WARDEN_TOOL_DECISION_DENIED, NULL, "network is off", WARDEN_TOOL_CALL_DENIED,
      "denied: network is off", "denied" },
    { WARDEN_TOOL_DECISION_ASKED, NULL, NULL, WARDEN_TOOL_CALL_PENDING,
      "waiting for you", "pending" },
    { WARDEN_TOOL_DECISION_NONE, NULL, NULL, WARDEN_TOOL_CALL_PENDING,
      "waiting for you", "pending" },
  };
  g_autoptr(WardenChatItem) item = warden_chat_item_new_tool ("call-1", "exec", "git status");
  GtkWidget *badge;

  warden_chat_row_set_item (f->row, item);
  badge = find_css (GTK_WIDGET (f->row), "badge");
  g_assert_nonnull (badge);
  /* No decision yet, nothing pending: no badge. */
  g_assert_false (gtk_widget_get_visible (badge));
  g_assert_cmpstr (label_text (f, "tool-name"), ==, "exec");
  g_assert_cmpstr (label_text (f, "tool-subject"), ==, "git status");

  /* The item changes under a bound row, as while a call runs. */
  for (guint i = 0; i < G_N_ELEMENTS (badges); i++)
    {
      g_test_message ("badge %u: %s", i, badges[i].text);
      warden_chat_item_set_state (item, badges[i].state);
      warden_chat_item_set_decision (item, badges[i].decision, badges[i].pattern,
                                     badges[i].reason, NULL);
      g_assert_true (gtk_widget_get_visible (badge));
      g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (badge)), ==, badges[i].text);
      g_assert_true (gtk_widget_has_css_class (badge, badges[i].css));
      for (guint j = 0; j < G_N_ELEMENTS (badges); j++)
        if (!g_str_equal (badges[j].css, badges[i].css))
          g_assert_false (gtk_widget_has_css_class (badge, badges[j].css));
    }

  /* An answered question has no badge. */
  warden_chat_item_set_state (item, WARDEN_TOOL_CALL_FINISHED);
  warden_chat_item_set_decision (item, WARDEN_TOOL_DECISION_ANSWERED, NULL, NULL, "SQLite");
  g_assert_false (gtk_widget_get_visible (badge));

  /* The pattern is shown in monospace. */
  warden_chat_item_set_decision (item, WARDEN_TOOL_DECISION_DENIED, "a<b", NULL, NULL);
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (badge)), ==, "denied by <tt>a&lt;b</tt>");

  /* A rejection shows the user's words for the agent. */
  g_assert_false (gtk_widget_get_visible (find_css (GTK_WIDGET (f->row), "feedback")));
  warden_chat_item_set_decision (item, WARDEN_TOOL_DECISION_REJECTED, NULL, NULL,
                                 "use ripgrep instead");
  g_assert_true (gtk_widget_get_visible (find_css (GTK_WIDGET (f->row), "feedback")));
  g_assert_cmpstr (label_text (f, "feedback"), ==, "use ripgrep instead");
}

/* The card of a call shows the call as the agent changes it. */
static void
test_row_follows_call (RowFixture    *f,
                       gconstpointer  data)
{
  g_autoptr(WardenToolCall) call = call_new ("call-1", "exec", "{\"command\":\"rm -rf build\"}");
  g_autoptr(WardenChatItem) item = warden_chat_item_new_for_call (call);
  GtkWidget *badge;

  warden_chat_row_set_item (f->row, item);
  g_assert_cmpstr (label_text (f, "tool-name"), ==, "exec");
  g_assert_cmpstr (label_text (f, "tool-subject"), ==, "rm -rf build");
  badge = find_css (GTK_WIDGET (f->row), "badge");
  g_assert_false (gtk_widget_get_visible (badge));

  warden_tool_call_set_state (call, WARDEN_TOOL_CALL_PENDING);
  warden_tool_call_set_decision (call, WARDEN_TOOL_DECISION_ASKED, NULL, "not allowed");
  g_assert_cmpint (warden_chat_item_get_state (item), ==, WARDEN_TOOL_CALL_PENDING);
  g_assert_cmpint (warden_chat_item_get_decision (item), ==, WARDEN_TOOL_DECISION_ASKED);
  g_assert_cmpstr (warden_chat_item_get_reason (item), ==, "not allowed");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (badge)), ==, "waiting for you");

  warden_tool_call_set_state (call, WARDEN_TOOL_CALL_REJECTED);
  warden_tool_call_set_decision (call, WARDEN_TOOL_DECISION_REJECTED, NULL, NULL);
  warden_tool_call_set_feedback (call, "use make clean");
  warden_tool_call_set_result (call, "Command rejected by user: rm -rf build", TRUE);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (badge)), ==, "rejected");
  g_assert_true (gtk_widget_has_css_class (badge, "rejected"));
  g_assert_cmpstr (label_text (f, "feedback"), ==, "use make clean");
  /* It never ran: it did not fail. */
  g_assert_cmpstr (label_text (f, "tool-status"), ==, "not run");
  g_assert_false (gtk_widget_has_css_class (find_css (GTK_WIDGET (f->row), "tool-status"),
                                            "error"));
  g_assert_cmpstr (warden_chat_item_get_output (item), ==,
                   "Command rejected by user: rm -rf build");
}

/* A call the profile refused says so, and that it did not run. */
static void
test_row_denied (RowFixture    *f,
                 gconstpointer  data)
{
  g_autoptr(WardenToolCall) call = call_new ("call-1", "exec", "{\"command\":\"rm -rf /\"}");
  g_autoptr(WardenChatItem) item = warden_chat_item_new_for_call (call);

  warden_chat_row_set_item (f->row, item);
  warden_tool_call_set_decision (call, WARDEN_TOOL_DECISION_DENIED, "rm -rf /*", "denied");
  warden_tool_call_set_result (call, "Command denied by the user's profile: denied", TRUE);
  warden_tool_call_set_state (call, WARDEN_TOOL_CALL_DENIED);
  g_assert_cmpstr (label_text (f, "badge"), ==, "denied by rm -rf /*");
  g_assert_cmpstr (label_text (f, "tool-status"), ==, "denied, not run");
  g_assert_false (gtk_widget_has_css_class (find_css (GTK_WIDGET (f->row), "tool-status"),
                                            "error"));
}

static void
test_row_status (RowFixture    *f,
                 gconstpointer  data)
{
  g_autoptr(WardenToolCall) call = call_new ("call-1", "exec", "{\"command\":\"make\"}");
  g_autoptr(WardenChatItem) item = warden_chat_item_new_for_call (call);
  GtkWidget *status;

  warden_chat_row_set_item (f->row, item);
  status = find_css (GTK_WIDGET (f->row), "tool-status");
  g_assert_false (gtk_widget_get_visible (status));

  g_assert_false (gtk_widget_get_visible (find_css (GTK_WIDGET (f->row), "warden-busy")));
  warden_tool_call_set_state (call, WARDEN_TOOL_CALL_RUNNING);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (status)), ==, "running…");
  /* A running call turns its "working" icon, a step at a time (no
   * GtkSpinner: it would ask for every frame). */
  {
    GtkWidget *spinner = find_css (GTK_WIDGET (f->row), "warden-busy");
    gint64 until = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;  /* a bound, not a speed */

    g_assert_nonnull (spinner);
    g_assert_true (gtk_widget_get_visible (spinner));
    g_assert_null (find_type (GTK_WIDGET (f->row), GTK_TYPE_SPINNER));
    while (!gtk_widget_has_css_class (spinner, "warden-step-2") &&
           g_get_monotonic_time () < until)
      g_main_context_iteration (NULL, TRUE);
    g_assert_true (gtk_widget_has_css_class (spinner, "warden-step-2"));
  }

  warden_tool_call_set_exec_result (call, 0, "", "", 1200, FALSE, FALSE);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (status)), ==, "exit 0 · 1.2 s");
  g_assert_false (gtk_widget_has_css_class (status, "error"));

  warden_tool_call_set_exec_result (call, 2, "", "", 350, FALSE, FALSE);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (status)), ==, "exit 2 · 350 ms");
  g_assert_true (gtk_widget_has_css_class (status, "error"));

  /* Stopped: the view says so while the call still says "running". */
  warden_chat_item_set_state (item, WARDEN_TOOL_CALL_INTERRUPTED);
  warden_tool_call_set_exec_result (call, -1, "", "", -1, FALSE, FALSE);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (status)), ==, "interrupted");

  warden_tool_call_set_exec_result (call, -1, "", "", 10, FALSE, FALSE);
  warden_tool_call_set_result (call, "Error: the engine went away", TRUE);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (status)), ==, "interrupted · 10 ms");
  warden_tool_call_set_state (call, WARDEN_TOOL_CALL_FINISHED);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (status)), ==, "failed · 10 ms");
  g_assert_true (gtk_widget_has_css_class (status, "error"));
  g_assert_false (gtk_widget_get_visible (find_css (GTK_WIDGET (f->row), "warden-busy")));
}

static void
test_row_output (RowFixture    *f,
                 gconstpointer  data)
{
  g_autoptr(WardenToolCall) call = call_new ("call-1", "exec", "{\"command\":\"ls\"}");
  g_autoptr(WardenChatItem) item = warden_chat_item_new_for_call (call);
  GtkWidget *expander;
  GtkWidget *output;

  warden_chat_row_set_item (f->row, item);
  expander = find_type (GTK_WIDGET (f->row), GTK_TYPE_EXPANDER);
  g_assert_nonnull (expander);
  g_assert_false (gtk_widget_get_visible (expander));

  warden_tool_call_append_output (call, 1, "a.txt\n");
  g_assert_true (gtk_widget_get_visible (expander));
  g_assert_false (gtk_expander_get_expanded (GTK_EXPANDER (expander)));
  /* Collapsed: the output's label is not made yet. */
  g_assert_null (gtk_expander_get_child (GTK_EXPANDER (expander)));

  gtk_expander_set_expanded (GTK_EXPANDER (expander), TRUE);
  output = gtk_expander_get_child (GTK_EXPANDER (expander));
  g_assert_nonnull (output);
  g_assert_true (gtk_widget_has_css_class (output, "monospace"));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (output)), ==, "a.txt\n");

  warden_tool_call_append_output (call, 2, "b.txt\n");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (output)), ==, "a.txt\nb.txt\n");

  /* The end: what streamed stays the output. */
  warden_tool_call_set_exec_result (call, 0, "a.txt\n", "b.txt\n", 4, FALSE, FALSE);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (output)), ==, "a.txt\nb.txt\n");
}

/* The card of a program a running command started names what started it,
 * escaped like the command. */
static void
test_row_approval_chain (RowFixture    *f,
                         gconstpointer  data)
{
  static const char * const chain[] = { "sh -c 'rm -rf dist'", "npm test\u202e", NULL };
  g_autoptr(WardenChatItem) item = warden_chat_item_new_tool ("call-8/1", "exec", "rm -rf dist");
  g_autoptr(WardenApproval) approval =
    warden_approval_new ("s1", "call-8/1", WARDEN_APPROVAL_COMMAND, "exec", "rm -rf dist");

  warden_approval_set_details (approval, "/work", WARDEN_SANDBOX_KIND_BWRAP,
                               "no allow pattern matches “rm -rf dist”",
                               "rm -rf dist", NULL, NULL, NULL);
  warden_approval_set_chain (approval, chain);
  warden_chat_row_set_item (f->row, item);
  warden_chat_item_set_approval (item, approval);
  g_assert_cmpstr (label_text (f, "approval-chain"), ==,
                   "started by sh -c 'rm -rf dist'\nstarted by npm test\\u202e");
  g_assert_nonnull (find_button (GTK_WIDGET (f->row), "Allow Once"));
}

/* Issue 32, item 7: a reason that names its one part says it once; a
 * command no pattern can allow (it loads code through its environment) is
 * not offered Always Allow in the card either. */
static void
test_row_approval_once_said (RowFixture    *f,
                             gconstpointer  data)
{
  static const char * const env[] = { "NODE_OPTIONS=--inspect", NULL };
  g_autoptr(WardenChatItem) item = warden_chat_item_new_tool ("call-9", "exec", "npm test");
  g_autoptr(WardenApproval) approval =
    warden_approval_new ("s1", "call-9", WARDEN_APPROVAL_COMMAND, "exec", "npm test");
  g_autoptr(WardenChatItem) loads = warden_chat_item_new_tool ("call-10", "exec", "node x.js");
  g_autoptr(WardenApproval) loading =
    warden_approval_new ("s1", "call-10", WARDEN_APPROVAL_COMMAND, "exec", "node x.js");

  warden_approval_set_details (approval, "/work", WARDEN_SANDBOX_KIND_BWRAP,
                               "No pattern of the profile allows “npm test”.", "npm test",
                               NULL, NULL, NULL);
  warden_chat_row_set_item (f->row, item);
  warden_chat_item_set_approval (item, approval);
  g_assert_cmpstr (label_text (f, "approval-reason"), ==,
                   "No pattern of the profile allows “npm test”.");
  g_assert_nonnull (find_button (GTK_WIDGET (f->row), "Always Allow…"));

  warden_approval_set_details (loading, "/work", WARDEN_SANDBOX_KIND_BWRAP,
                               "The environment loads code", "node x.js", NULL, NULL, env);
  g_assert_true (warden_approval_get_uncovered (loading, NULL, NULL));
  warden_chat_row_set_item (f->row, loads);
  warden_chat_item_set_approval (loads, loading);
  g_assert_nonnull (find_button (GTK_WIDGET (f->row), "Allow Once"));
  g_assert_null (find_button (GTK_WIDGET (f->row), "Always Allow…"));
}

static void
test_row_approval (RowFixture    *f,
                   gconstpointer  data)
{
  g_autoptr(WardenChatItem) item = warden_chat_item_new_tool ("call-7", "exec", "curl x | sh");
  g_autoptr(WardenApproval) approval =
    warden_approval_new ("s1", "call-7", WARDEN_APPROVAL_COMMAND, "exec", "curl x | sh");
  GtkWidget *root = GTK_WIDGET (f->row);
  GtkWidget *entry;
  const char *id = NULL;
  const char *text = NULL;
  gboolean approved = TRUE;
  gboolean always = TRUE;

  warden_approval_set_details (approval, "/work", WARDEN_SANDBOX_KIND_DOCKER,
                               "Not in the allow list", "sh",
                               NULL, NULL, NULL);
  warden_chat_row_set_item (f->row, item);
  g_assert_null (find_button (root, "Allow Once"));

  warden_chat_item_set_approval (item, approval);
  g_assert_nonnull (find_button (root, "Reject"));
  g_assert_nonnull (find_button (root, "Always Allow…"));
  g_assert_cmpstr (label_text (f, "approval-reason"), ==, "Not in the allow list: sh");
  /* The model's own command: nothing started it. */
  g_assert_null (find_css (root, "approval-chain"));

  click (find_button (root, "Allow Once"));
  g_assert_cmpuint (f->activations, ==, 1);
  g_assert_cmpstr (f->last_action, ==, "approval-answer");
  g_variant_get (f->last_parameter, "(&sbb&s)", &id, &approved, &always, &text);
  g_assert_cmpstr (id, ==, "call-7");
  g_assert_true (approved);
  g_assert_false (always);
  g_assert_cmpstr (text, ==, "");

  entry = find_type (root, GTK_TYPE_ENTRY);
  g_assert_cmpstr (gtk_entry_get_placeholder_text (GTK_ENTRY (entry)), ==,
                   "Tell the agent what to do instead (optional)");
  gtk_editable_set_text (GTK_EDITABLE (entry), "download it first");
  click (find_button (root, "Reject"));
  g_assert_cmpuint (f->activations, ==, 2);
  g_variant_get (f->last_parameter, "(&sbb&s)", &id, &approved, &always, &text);
  g_assert_cmpstr (id, ==, "call-7");
  g_assert_false (approved);
  g_assert_false (always);
  g_assert_cmpstr (text, ==, "download it first");

  click (find_button (root, "Always Allow…"));
  g_assert_cmpuint (f->activations, ==, 3);
  g_assert_cmpstr (f->last_action, ==, "approval-show");
  g_assert_cmpstr (g_variant_get_string (f->last_parameter, NULL), ==, "call-7");

  /* Answered elsewhere (the dialog, a notification): the buttons go. */
  warden_chat_item_set_approval (item, NULL);
  g_assert_null (find_button (root, "Allow Once"));
  g_assert_null (find_button (root, "Reject"));
  g_assert_null (find_type (root, GTK_TYPE_ENTRY));
}

static void
test_row_question (RowFixture    *f,
                   gconstpointer  data)
{
  static const char *choices[] = { "Postgres", "SQLite", NULL };
  g_autoptr(WardenChatItem) item = warden_chat_item_new_tool ("q-1", "ask_user", "Which database?");
  g_autoptr(WardenApproval) approval =
    warden_approval_new ("s1", "q-1", WARDEN_APPROVAL_QUESTION, "ask_user", "Which database?");
  GtkWidget *root = GTK_WIDGET (f->row);
  GtkWidget *answer;
  GtkWidget *entry;
  const char *id = NULL;
  const char *text = NULL;
  gboolean approved = FALSE;
  gboolean always = TRUE;

  warden_approval_set_details (approval, NULL, WARDEN_SANDBOX_KIND_AUTO,
                               NULL, NULL, NULL, choices, NULL);
  warden_chat_item_set_approval (item, approval);
  warden_chat_row_set_item (f->row, item);

  g_assert_cmpstr (label_text (f, "approval-question"), ==, "Which database?");
  g_assert_null (find_button (root, "Allow Once"));
  click (find_button (root, "SQLite"));
  g_variant_get (f->last_parameter, "(&sbb&s)", &id, &approved, &always, &text);
  g_assert_cmpstr (id, ==, "q-1");
  g_assert_true (approved);
  g_assert_false (always);
  g_assert_cmpstr (text, ==, "SQLite");

  answer = find_button (root, "Answer");
  g_assert_false (gtk_widget_get_sensitive (answer));
  entry = find_type (root, GTK_TYPE_ENTRY);
  gtk_editable_set_text (GTK_EDITABLE (entry), "DuckDB");
  g_assert_true (gtk_widget_get_sensitive (answer));
  click (answer);
  g_assert_cmpuint (f->activations, ==, 2);
  g_variant_get (f->last_parameter, "(&sbb&s)", &id, &approved, &always, &text);
  g_assert_cmpstr (text, ==, "DuckDB");
}

static void
test_row_recycled (RowFixture    *f,
                   gconstpointer  data)
{
  g_autoptr(WardenToolCall) call = call_new ("call-1", "exec", "{\"command\":\"ls\"}");
  g_autoptr(WardenChatItem) tool = warden_chat_item_new_for_call (call);
  g_autoptr(WardenChatItem) user = warden_chat_item_new (WARDEN_CHAT_ITEM_USER, "hi");
  g_autoptr(WardenApproval) approval =
    warden_approval_new ("s1", "call-1", WARDEN_APPROVAL_COMMAND, "exec", "ls");

  warden_chat_row_set_item (f->row, tool);
  g_assert_nonnull (find_css (GTK_WIDGET (f->row), "tool-card"));

  /* Bound to another item, the row forgets the first one. */
  warden_chat_row_set_item (f->row, user);
  g_assert_null (find_css (GTK_WIDGET (f->row), "tool-card"));
  warden_chat_item_set_approval (tool, approval);
  warden_tool_call_set_exec_result (call, 1, "", "", 5, FALSE, FALSE);
  g_assert_null (find_button (GTK_WIDGET (f->row), "Allow Once"));
  g_assert_cmpstr (label_text (f, "user-message"), ==, "hi");

  warden_chat_row_set_item (f->row, NULL);
  g_assert_null (warden_chat_row_get_item (f->row));
  g_assert_null (gtk_widget_get_first_child (GTK_WIDGET (f->row)));

  /* And back: the card shows the item as it is now. */
  warden_chat_row_set_item (f->row, tool);
  g_assert_nonnull (find_button (GTK_WIDGET (f->row), "Allow Once"));
  g_assert_cmpstr (label_text (f, "tool-status"), ==, "exit 1 · 5 ms");
}

static void
count_cb (guint *count)
{
  (*count)++;
}

static void
test_item_output_limit (void)
{
  g_autoptr(WardenToolCall) call = call_new ("call-1", "exec", "{\"command\":\"yes\"}");
  g_autoptr(WardenToolCall) again = NULL;
  g_autoptr(WardenChatItem) item = warden_chat_item_new_for_call (call);
  g_autofree char *chunk = g_strnfill (1000, 'y');
  g_autofree char *kept = NULL;
  const char *marker = "\n… (the terminal pane has the rest)";

  for (guint i = 0; i < 100; i++)
    warden_tool_call_append_output (call, 1, chunk);
  kept = g_strdup (warden_chat_item_get_output (item));
  g_assert_true (g_str_has_suffix (kept, marker));
  g_assert_cmpuint (strlen (kept), ==, 64 * 1024 + strlen (marker));

  /* Past the limit nothing more is kept, and the marker comes once. */
  warden_tool_call_append_output (call, 1, chunk);
  g_assert_cmpstr (warden_chat_item_get_output (item), ==, kept);

  /* Another object for the call (the agent's next one) gives the output
   * again; a cut never splits a character. */
  again = call_new ("call-1", "exec", "{\"command\":\"yes\"}");
  warden_chat_item_set_call (item, again);
  g_assert_cmpstr (warden_chat_item_get_output (item), ==, "");
  for (guint i = 0; i < 40000; i++)
    warden_tool_call_append_output (again, 1, "é");
  g_assert_true (g_utf8_validate (warden_chat_item_get_output (item), -1, NULL));
  g_assert_true (g_str_has_suffix (warden_chat_item_get_output (item), marker));
}

/* A card made before its call (an approval) follows the call it is given,
 * and the next object for the same call after that. */
static void
test_item_gets_call_later (void)
{
  g_autoptr(WardenChatItem) item = warden_chat_item_new_tool ("call-1", "read", NULL);
  g_autoptr(WardenToolCall) answered = call_new ("call-1", "read", "{\"path\":\"/etc/hosts\"}");
  g_autoptr(WardenToolCall) live = call_new ("call-1", "read", "{\"path\":\"/etc/hosts\"}");
  guint subject = 0;

  g_signal_connect_swapped (item, "notify::subject", G_CALLBACK (count_cb), &subject);
  g_assert_null (warden_chat_item_get_call (item));
  g_assert_cmpint (warden_chat_item_get_tool_kind (item), ==, WARDEN_TOOL_KIND_READ);
  g_assert_cmpint (warden_chat_item_get_exit_status (item), ==, -1);
  warden_chat_item_set_state (item, WARDEN_TOOL_CALL_PENDING);
  warden_chat_item_set_decision (item, WARDEN_TOOL_DECISION_ASKED, NULL, "outside", NULL);

  warden_tool_call_set_state (answered, WARDEN_TOOL_CALL_APPROVED);
  warden_tool_call_set_decision (answered, WARDEN_TOOL_DECISION_APPROVED, NULL, NULL);
  warden_chat_item_set_call (item, answered);
  g_assert_true (warden_chat_item_get_call (item) == answered);
  g_assert_cmpint (warden_chat_item_get_state (item), ==, WARDEN_TOOL_CALL_APPROVED);
  g_assert_cmpint (warden_chat_item_get_decision (item), ==, WARDEN_TOOL_DECISION_APPROVED);
  /* It had no subject: the call's is shown. */
  g_assert_cmpstr (warden_chat_item_get_subject (item), ==, "/etc/hosts");
  g_assert_cmpuint (subject, ==, 1);

  /* The agent's live object for the call: the card follows it, not the old one. */
  warden_tool_call_set_decision (live, WARDEN_TOOL_DECISION_APPROVED, NULL, NULL);
  warden_chat_item_set_call (item, live);
  warden_tool_call_set_state (answered, WARDEN_TOOL_CALL_REJECTED);
  g_assert_cmpint (warden_chat_item_get_state (item), ==, WARDEN_TOOL_CALL_NEW);
  warden_tool_call_set_result (live, "127.0.0.1 localhost\n", FALSE);
  warden_tool_call_set_times (live, 1000, 1012);
  warden_tool_call_set_state (live, WARDEN_TOOL_CALL_FINISHED);
  g_assert_cmpint (warden_chat_item_get_state (item), ==, WARDEN_TOOL_CALL_FINISHED);
  g_assert_cmpstr (warden_chat_item_get_output (item), ==, "127.0.0.1 localhost\n");
  g_assert_cmpint (warden_chat_item_get_duration_ms (item), ==, 12);
  g_assert_false (warden_chat_item_get_is_error (item));
}

static void
css_error_cb (GtkCssProvider *provider,
              GtkCssSection  *section,
              GError         *error,
              gpointer        user_data)
{
  g_autofree char *where = gtk_css_section_to_string (section);

  g_error ("style.css: %s: %s", where, error->message);
}

static void
test_style_parses (void)
{
  g_autoptr(GtkCssProvider) provider = gtk_css_provider_new ();

  if (!g_resources_get_info ("/io/github/wardenapp/Warden/style.css", 0, NULL, NULL, NULL))
    {
      g_test_skip ("style.css is not in this test's resources");
      return;
    }
  g_signal_connect (provider, "parsing-error", G_CALLBACK (css_error_cb), NULL);
  gtk_css_provider_load_from_resource (provider, "/io/github/wardenapp/Warden/style.css");
}

static void
test_item_notifies_on_change (void)
{
  g_autoptr(WardenChatItem) item = warden_chat_item_new_tool ("call-1", "exec", "ls");
  g_autoptr(WardenToolCall) call = call_new ("call-1", "exec", "{\"command\":\"ls\"}");
  guint state = 0;
  guint decision = 0;
  guint exit_status = 0;
  guint output = 0;

  g_signal_connect_swapped (item, "notify::state", G_CALLBACK (count_cb), &state);
  g_signal_connect_swapped (item, "notify::decision", G_CALLBACK (count_cb), &decision);
  g_signal_connect_swapped (item, "notify::exit-status", G_CALLBACK (count_cb), &exit_status);
  g_signal_connect_swapped (item, "notify::output", G_CALLBACK (count_cb), &output);

  warden_chat_item_set_state (item, WARDEN_TOOL_CALL_RUNNING);
  warden_chat_item_set_state (item, WARDEN_TOOL_CALL_RUNNING);
  g_assert_cmpuint (state, ==, 1);
  warden_chat_item_set_decision (item, WARDEN_TOOL_DECISION_APPROVED, NULL, NULL, NULL);
  warden_chat_item_set_decision (item, WARDEN_TOOL_DECISION_APPROVED, NULL, NULL, NULL);
  g_assert_cmpuint (decision, ==, 1);
  g_assert_cmpint (warden_chat_item_get_kind (item), ==, WARDEN_CHAT_ITEM_TOOL);
  g_assert_cmpstr (warden_chat_item_get_tool_id (item), ==, "call-1");

  /* Given its call, the card takes the call's state and decision. */
  warden_tool_call_set_state (call, WARDEN_TOOL_CALL_RUNNING);
  warden_tool_call_set_decision (call, WARDEN_TOOL_DECISION_AUTO_ALLOWED, "ls", NULL);
  warden_chat_item_set_call (item, call);
  warden_chat_item_set_call (item, call);
  g_assert_cmpuint (state, ==, 1);
  g_assert_cmpuint (decision, ==, 2);
  g_assert_cmpuint (exit_status, ==, 1);
  g_assert_cmpuint (output, ==, 0);
  g_assert_cmpstr (warden_chat_item_get_pattern (item), ==, "ls");

  warden_tool_call_append_output (call, 1, "a\n");
  warden_tool_call_set_exec_result (call, 0, "a\n", "", 10, FALSE, FALSE);
  g_assert_cmpuint (output, ==, 1);
  g_assert_cmpuint (exit_status, ==, 2);
  g_assert_cmpint (warden_chat_item_get_exit_status (item), ==, 0);
  g_assert_cmpint (warden_chat_item_get_duration_ms (item), ==, 10);
}


/* An answered question shows the answer on its card, not behind "Output". */
static void
test_row_question_answered (RowFixture    *f,
                            gconstpointer  data)
{
  g_autoptr(WardenToolCall) call = call_new ("call-3", "ask_user",
                                             "{\"question\":\"Which runner?\","
                                             "\"choices\":[\"jest\",\"vitest\"]}");
  g_autoptr(WardenChatItem) item = warden_chat_item_new_for_call (call);
  GtkWidget *feedback;

  warden_chat_row_set_item (f->row, item);
  warden_tool_call_set_feedback (call, "vitest");
  warden_tool_call_set_state (call, WARDEN_TOOL_CALL_ANSWERED);
  feedback = find_css (GTK_WIDGET (f->row), "feedback");
  g_assert_true (gtk_widget_get_visible (feedback));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (feedback)), ==, "You answered: vitest");

  warden_tool_call_set_decision (call, WARDEN_TOOL_DECISION_ANSWERED, NULL, NULL);
  warden_tool_call_set_result (call, "vitest", FALSE);
  warden_tool_call_set_state (call, WARDEN_TOOL_CALL_FINISHED);
  g_assert_true (gtk_widget_get_visible (feedback));
  g_assert_false (gtk_widget_get_visible (find_type (GTK_WIDGET (f->row), GTK_TYPE_EXPANDER)));
}

/* Code blocks, diffs: what a user clicks, clicked through the X server */

static void
test_split (void)
{
  g_autoptr(GPtrArray) blocks =
    warden_markdown_split ("Run this:\n\n```sh\nls -l\tx\n```\nThen `make`.");
  g_autoptr(GPtrArray) streaming = warden_markdown_split ("Try\n~~~\nint x;\n");
  WardenMarkdownBlock *b;

  g_assert_cmpuint (blocks->len, ==, 3);
  b = g_ptr_array_index (blocks, 0);
  g_assert_cmpint (b->kind, ==, WARDEN_MARKDOWN_BLOCK_TEXT);
  g_assert_cmpstr (b->content, ==, "Run this:");
  b = g_ptr_array_index (blocks, 1);
  g_assert_cmpint (b->kind, ==, WARDEN_MARKDOWN_BLOCK_CODE);
  g_assert_cmpstr (b->content, ==, "ls -l\tx");
  g_assert_cmpstr (b->info, ==, "sh");
  g_assert_false (b->open);
  b = g_ptr_array_index (blocks, 2);
  g_assert_cmpstr (b->content, ==,
                   "Then " WARDEN_MARKDOWN_CODE_OPEN "make" WARDEN_MARKDOWN_CODE_CLOSE ".");

  g_assert_cmpuint (streaming->len, ==, 2);
  b = g_ptr_array_index (streaming, 1);
  g_assert_cmpstr (b->content, ==, "int x;");
  g_assert_null (b->info);
  g_assert_true (b->open);
}

static void
text_read_cb (GObject      *clipboard,
              GAsyncResult *result,
              gpointer      user_data)
{
  char **text = user_data;

  *text = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (clipboard), result, NULL);
  if (*text == NULL)
    *text = g_strdup ("");
}

/* A code block: monospace on its own background, one line that scrolls
 * sideways rather than wraps, and a copy button that copies the code
 * exactly (a tab, a direction override) while the view escapes it. */
static void
test_row_code_block (RowFixture    *f,
                     gconstpointer  data)
{
  static const char code[] = "printf '%s\\n' \"$HOME\"\t# a very long line that goes on "
                             "and on and on "
                             "past the right edge of any chat window \xe2\x80\xae end";
  g_autofree char *markdown = g_strdup_printf ("Run:\n\n```sh\n%s\n```\n\nThen `make`.", code);
  g_autoptr(WardenChatItem) item = warden_chat_item_new (WARDEN_CHAT_ITEM_ASSISTANT, markdown);
  GtkWidget *block, *copy, *scroller, *label;
  g_autofree char *copied = NULL;
  GtkPolicyType hpolicy, vpolicy;

  warden_chat_row_set_item (f->row, item);
  block = find_css (GTK_WIDGET (f->row), "code-block");
  g_assert_nonnull (block);
  label = find_css (block, "code-text");
  g_assert_true (gtk_widget_has_css_class (label, "monospace"));
  g_assert_false (gtk_label_get_wrap (GTK_LABEL (label)));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (label)), "\\u202e end"));
  scroller = find_type (block, GTK_TYPE_SCROLLED_WINDOW);
  gtk_scrolled_window_get_policy (GTK_SCROLLED_WINDOW (scroller), &hpolicy, &vpolicy);
  g_assert_cmpint (hpolicy, ==, GTK_POLICY_AUTOMATIC);
  g_assert_cmpint (vpolicy, ==, GTK_POLICY_NEVER);
  /* The text around it stays text; inline code is styled. */
  g_assert_cmpstr (label_text (f, "assistant-message"), ==, "Run:");

  copy = find_css (block, "code-copy");
  g_assert_nonnull (copy);
  gdk_clipboard_set_text (gtk_widget_get_clipboard (copy), "before");
  x_click (copy);
  {
    /* Within the window's width: the long line scrolls, it does not widen the row. */
    g_assert_cmpint (gtk_widget_get_width (block), <=, gtk_widget_get_width (f->window));
  }
  gdk_clipboard_read_text_async (gtk_widget_get_clipboard (copy), NULL, text_read_cb, &copied);
  while (copied == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpstr (copied, ==, code);
}

/* Issue 32, item 6: a fenced block is coloured by GtkSourceView's
 * highlighter for its language, in the light or the dark scheme as the
 * window is; its copy button sits in the block's corner, over the code,
 * not in a row of its own. A language nobody knows stays plain. */
static void
test_row_code_colours (RowFixture    *f,
                       gconstpointer  data)
{
  g_autoptr(WardenChatItem) item =
    warden_chat_item_new (WARDEN_CHAT_ITEM_ASSISTANT,
                          "```c\nint main (void)\n{\n  return 0; /* done */\n}\n```");
  g_autoptr(WardenChatItem) plain =
    warden_chat_item_new (WARDEN_CHAT_ITEM_ASSISTANT, "```nosuchlanguage\nint x;\n```");
  AdwStyleManager *style = adw_style_manager_get_default ();
  GtkWidget *block, *label, *copy, *scroller;
  g_autofree char *light = NULL;
  graphene_rect_t copy_bounds, code_bounds;

  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_LIGHT);
  warden_chat_row_set_item (f->row, item);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  block = find_css (GTK_WIDGET (f->row), "code-block");
  label = find_css (block, "code-text");
  light = g_strdup (gtk_label_get_label (GTK_LABEL (label)));
  g_test_message ("light: %s", light);
  /* "int" and the comment have colours of their own; the text is intact. */
  g_assert_nonnull (strstr (light, "foreground=\"#"));
  g_assert_null (strstr (light, "<span foreground=\"#000000\">int</span>"));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==,
                   "int main (void)\n{\n  return 0; /* done */\n}");

  /* Dark: other colours for the same code. */
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_DARK);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_test_message ("dark: %s", gtk_label_get_label (GTK_LABEL (label)));
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (label)), "foreground=\"#"));
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (label)), !=, light);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);

  /* The copy button in the code's top right corner. */
  copy = find_css (block, "code-copy");
  scroller = find_type (block, GTK_TYPE_SCROLLED_WINDOW);
  g_assert_true (gtk_widget_compute_bounds (copy, block, &copy_bounds));
  g_assert_true (gtk_widget_compute_bounds (scroller, block, &code_bounds));
  g_test_message ("copy at %.0f,%.0f; code from y %.0f", copy_bounds.origin.x,
                  copy_bounds.origin.y, code_bounds.origin.y);
  g_assert_cmpfloat (copy_bounds.origin.y, >=, code_bounds.origin.y);
  g_assert_cmpfloat (copy_bounds.origin.x + copy_bounds.size.width, >,
                     gtk_widget_get_width (block) - 48);

  warden_chat_row_set_item (f->row, plain);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  label = find_css (find_css (GTK_WIDGET (f->row), "code-block"), "code-text");
  g_assert_null (strstr (gtk_label_get_label (GTK_LABEL (label)), "foreground"));
}

static char *
numbered (guint n,
          guint changed)
{
  GString *out = g_string_new (NULL);

  for (guint i = 1; i <= n; i++)
    if (i == changed)
      g_string_append_printf (out, "line %u changed \xe2\x80\xae\n", i);
    else
      g_string_append_printf (out, "line %u\n", i);
  return g_string_free (out, FALSE);
}

/* A write card: the diff coloured, a few lines until the user asks for
 * all of them, every line escaped. */
static void
test_row_diff_card (RowFixture    *f,
                    gconstpointer  data)
{
  g_autofree char *before = g_strdup ("");
  g_autofree char *after = numbered (20, 5);
  g_autofree char *diff = warden_diff_unified (NULL, -1, after, -1, NULL);
  g_autoptr(WardenToolCall) call = call_new ("call-1", "write", "{\"path\":\"src/app.c\"}");
  g_autoptr(WardenChatItem) item = warden_chat_item_new_for_call (call);
  GtkWidget *view, *lines, *more;
  g_auto(GStrv) shown = NULL;

  warden_chat_row_set_item (f->row, item);
  view = find_css (GTK_WIDGET (f->row), "diff-view");
  g_assert_nonnull (view);
  g_assert_false (gtk_widget_get_visible (view));

  warden_tool_call_set_diff (call, diff);
  g_assert_cmpstr (warden_chat_item_get_diff (item), ==, diff);
  g_assert_true (gtk_widget_get_visible (view));
  g_assert_cmpstr (label_text (f, "diff-summary"), ==, "+20 −0");
  lines = find_css (view, "diff-lines");
  shown = g_strsplit (gtk_label_get_text (GTK_LABEL (lines)), "\n", -1);
  g_assert_cmpuint (g_strv_length (shown), ==, 12);
  g_assert_cmpstr (shown[0], ==, "@@ -0,0 +1,20 @@");
  g_assert_true (g_str_has_prefix (shown[1], "+line 1"));
  /* Coloured: an added line on a green tint. */
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (lines)), "#2ec27e"));
  /* Escaped: the override shows as its code, it does not turn the line. */
  g_assert_true (g_str_has_prefix (shown[5], "+line 5 changed \\u202e"));

  more = find_css (view, "diff-more");
  g_assert_true (gtk_widget_get_visible (more));
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (more)), ==, "Show all 21 lines");
  x_click (more);
  g_clear_pointer (&shown, g_strfreev);
  shown = g_strsplit (gtk_label_get_text (GTK_LABEL (lines)), "\n", -1);
  g_assert_cmpuint (g_strv_length (shown), ==, 21);
  /* (Padded with spaces, so the tint runs to the longest line.) */
  g_assert_cmpstr (g_strchomp (shown[20]), ==, "+line 20");
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (more)), ==, "Show fewer lines");

  /* The stored call read back after the live one has no diff: the card keeps it. */
  {
    g_autoptr(WardenToolCall) stored = call_new ("call-1", "write", "{\"path\":\"src/app.c\"}");

    warden_chat_item_set_call (item, stored);
    g_assert_cmpstr (warden_chat_item_get_diff (item), ==, diff);
  }
}

/* For screenshots: the style as the application has it (AdwApplication
 * loads it from its resources), once. */
static void
load_style (void)
{
  static gboolean loaded;

  if (!loaded &&
      g_resources_get_info ("/io/github/wardenapp/Warden/style.css", 0, NULL, NULL, NULL))
    {
      g_autoptr(GtkCssProvider) provider = gtk_css_provider_new ();

      gtk_css_provider_load_from_resource (provider, "/io/github/wardenapp/Warden/style.css");
      gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                                  GTK_STYLE_PROVIDER (provider),
                                                  GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
      loaded = TRUE;
    }
}

/* Issue 32, item 6: a diff's code is coloured as its file's language is,
 * its text unchanged; a file GtkSourceView does not know stays plain. */
static void
test_row_diff_colours (RowFixture    *f,
                       gconstpointer  data)
{
  g_autoptr(WardenChatItem) item = warden_chat_item_new_tool ("call-11", "edit", "/p/main.c");
  g_autoptr(WardenApproval) approval =
    warden_approval_new ("s1", "call-11", WARDEN_APPROVAL_PATH, "edit", "/p/main.c");
  g_autoptr(WardenChatItem) plain = warden_chat_item_new_tool ("call-12", "edit", "/p/notes.zzz");
  g_autoptr(WardenApproval) plain_approval =
    warden_approval_new ("s1", "call-12", WARDEN_APPROVAL_PATH, "edit", "/p/notes.zzz");
  const char *diff = "@@ -1,2 +1,2 @@\n int a;\n-int b = 1; /* old */\n+int b = 2; /* new */\n";
  GtkWidget *lines;

  warden_chat_row_set_item (f->row, item);
  warden_approval_set_diff (approval, diff);
  warden_chat_item_set_approval (item, approval);
  lines = find_css (GTK_WIDGET (f->row), "diff-lines");
  g_test_message ("%s", gtk_label_get_label (GTK_LABEL (lines)));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (lines)), ==,
                   "@@ -1,2 +1,2 @@\n int a;\n-int b = 1; /* old */\n+int b = 2; /* new */");
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (lines)), "foreground=\"#"));
  /* The added line keeps its tint around the colours. */
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (lines)),
                            "<span background=\"#2ec27e\" bgalpha=\"22%\">+<span"));

  warden_chat_row_set_item (f->row, plain);
  warden_approval_set_diff (plain_approval, diff);
  warden_chat_item_set_approval (plain, plain_approval);
  lines = find_css (GTK_WIDGET (f->row), "diff-lines");
  {
    g_autofree char *uncoloured = warden_chat_row_diff_markup (diff, 12, NULL);

    g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (lines)), ==, uncoloured);
  }
}

/* An asked write: its card shows the approval's diff before the call has one. */
static void
test_row_diff_from_approval (RowFixture    *f,
                             gconstpointer  data)
{
  g_autoptr(WardenChatItem) item = warden_chat_item_new_tool ("call-9", "edit", "/p/notes.txt");
  g_autoptr(WardenApproval) approval =
    warden_approval_new ("s1", "call-9", WARDEN_APPROVAL_PATH, "edit", "/p/notes.txt");
  GtkWidget *view;

  warden_chat_row_set_item (f->row, item);
  warden_approval_set_diff (approval, "@@ -1 +1 @@\n-old\n+new\n");
  warden_chat_item_set_approval (item, approval);
  view = find_css (GTK_WIDGET (f->row), "diff-view");
  g_assert_true (gtk_widget_get_visible (view));
  g_assert_cmpstr (label_text (f, "diff-lines"), ==, "@@ -1 +1 @@\n-old       \n+new       ");
  g_assert_cmpstr (label_text (f, "tool-subject"), ==, "/p/notes.txt");
  g_assert_false (gtk_widget_get_visible (find_css (view, "diff-more")));
  /* Approved once or not at all: a file has no pattern to always allow. */
  g_assert_nonnull (find_button (GTK_WIDGET (f->row), "Allow Once"));
  g_assert_null (find_button (GTK_WIDGET (f->row), "Always Allow…"));
  if (g_getenv ("WARDEN_SCREENSHOT_DIR") != NULL)
    {
      load_style ();
      warden_approval_set_details (approval, NULL, WARDEN_SANDBOX_KIND_BWRAP,
                                   "the profile asks before every write or edit", NULL, NULL,
                                   NULL, NULL);
      warden_chat_item_set_approval (item, NULL);
      warden_chat_item_set_approval (item, approval);
      x_screenshot ("approval-card.png");
    }
}

/* For the README: a chat mid-session with a write card's coloured diff. */
static void
test_diff_card_screenshot (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(WardenToolCall) edit = call_new ("c1", "edit", "{\"path\":\"src/greet.c\"}");
  g_autoptr(WardenToolCall) run = call_new ("c2", "exec", "{\"command\":\"make test\"}");
  const char *old_text = "#include <stdio.h>\n\nint\nmain (void)\n{\n  printf (\"Hello\\n\");\n"
                         "  return 0;\n}\n";
  const char *new_text = "#include <stdio.h>\n\nint\nmain (int argc, char **argv)\n{\n"
                         "  const char *who = argc > 1 ? argv[1] : \"world\";\n\n"
                         "  printf (\"Hello, %s\\n\", who);\n  return 0;\n}\n";
  g_autofree char *diff = warden_diff_unified (old_text, -1, new_text, -1, NULL);

  g_ptr_array_add (items, warden_chat_item_new (WARDEN_CHAT_ITEM_USER,
                                                "Let greet take a name on the command line"));
  g_ptr_array_add (items, warden_chat_item_new (WARDEN_CHAT_ITEM_ASSISTANT,
                                                "I'll change `main` to read the name from "
                                                "`argv`:"));
  warden_tool_call_set_decision (edit, WARDEN_TOOL_DECISION_AUTO_ALLOWED, NULL, NULL);
  warden_tool_call_set_diff (edit, diff);
  warden_tool_call_set_result (edit, "Replaced 1 occurrence in src/greet.c", FALSE);
  warden_tool_call_set_state (edit, WARDEN_TOOL_CALL_FINISHED);
  g_ptr_array_add (items, warden_chat_item_new_for_call (edit));
  warden_tool_call_set_decision (run, WARDEN_TOOL_DECISION_AUTO_ALLOWED, "make *", NULL);
  warden_tool_call_set_state (run, WARDEN_TOOL_CALL_RUNNING);
  g_ptr_array_add (items, warden_chat_item_new_for_call (run));
  g_ptr_array_add (items, warden_chat_item_new (WARDEN_CHAT_ITEM_ASSISTANT,
                                                "Try it with:\n\n```sh\n./greet Ada\n```"));

  load_style ();
  gtk_widget_set_margin_start (box, 24);
  gtk_widget_set_margin_end (box, 24);
  gtk_widget_set_margin_top (box, 16);
  for (guint i = 0; i < items->len; i++)
    {
      GtkWidget *row = warden_chat_row_new ();

      warden_chat_row_set_item (WARDEN_CHAT_ROW (row), g_ptr_array_index (items, i));
      gtk_box_append (GTK_BOX (box), row);
    }
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), box);
  gtk_window_set_child (GTK_WINDOW (window), scroller);
  gtk_window_set_title (GTK_WINDOW (window), "Warden");
  gtk_window_set_default_size (GTK_WINDOW (window), 760, 640);
  gtk_window_present (GTK_WINDOW (window));
  x_spin (500);
  /* Every card kept its diff, the edit's in colour. */
  g_assert_nonnull (find_css (box, "diff-view"));
  g_assert_true (gtk_widget_get_visible (find_css (box, "diff-view")));
  x_screenshot ("diff-card.png");
  /* The tints read on a dark background too. */
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (),
                                      ADW_COLOR_SCHEME_FORCE_DARK);
  x_screenshot ("diff-card-dark.png");
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);
  for (guint i = 0; i < items->len; i++)
    warden_chat_row_set_item (WARDEN_CHAT_ROW (gtk_widget_get_first_child (box)), NULL);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  /* As main.c: the renderer a user of this machine gets. */
  warden_renderer_choose ();
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/markdown/cases", test_cases);
  g_test_add_func ("/markdown/every-prefix-is-valid", test_prefixes);
  g_test_add_func ("/markdown/garbage-is-valid", test_garbage);
  g_test_add_func ("/markdown/label-accepts", test_label_accepts);
  g_test_add_func ("/markdown/long-line-is-fast", test_long_line_is_fast);
  g_test_add_func ("/markdown/link-asks-first", test_link_asks_first);
  g_test_add_func ("/markdown/link-other-schemes", test_link_other_schemes);
  g_test_add_func ("/markdown/split", test_split);
  g_test_add_func ("/chat-row/diff-card-screenshot", test_diff_card_screenshot);

  g_test_add_func ("/style/parses", test_style_parses);
  g_test_add_func ("/chat-item/output-limit", test_item_output_limit);
  g_test_add_func ("/chat-item/notifies-on-change", test_item_notifies_on_change);
  g_test_add_func ("/chat-item/gets-call-later", test_item_gets_call_later);

#define ADD(path, func) \
  g_test_add ("/chat-row/" path, RowFixture, NULL, row_set_up, func, row_tear_down)
  ADD ("user", test_row_user);
  ADD ("assistant-streams", test_row_assistant_streams);
  ADD ("notice", test_row_notice);
  ADD ("badges", test_row_badges);
  ADD ("follows-call", test_row_follows_call);
  ADD ("status", test_row_status);
  ADD ("output", test_row_output);
  ADD ("approval", test_row_approval);
  ADD ("approval-once-said", test_row_approval_once_said);
  ADD ("approval-chain", test_row_approval_chain);
  ADD ("question", test_row_question);
  ADD ("recycled", test_row_recycled);
  ADD ("denied", test_row_denied);
  ADD ("question-answered", test_row_question_answered);
  ADD ("code-block", test_row_code_block);
  ADD ("code-colours", test_row_code_colours);
  ADD ("diff-colours", test_row_diff_colours);
  ADD ("diff-card", test_row_diff_card);
  ADD ("diff-from-approval", test_row_diff_from_approval);
#undef ADD

  return g_test_run ();
}
