/* test-terminal.c: the terminal pane shows what a shell would have shown
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <string.h>

#include "warden-renderer.h"
#include "warden-terminal.h"

typedef struct
{
  GtkWidget      *window;
  WardenTerminal *terminal;
  VteTerminal    *vte;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 800, 400);
  f->terminal = WARDEN_TERMINAL (warden_terminal_new ());
  gtk_window_set_child (GTK_WINDOW (f->window), GTK_WIDGET (f->terminal));
  f->vte = warden_terminal_get_vte (f->terminal);
  gtk_window_present (GTK_WINDOW (f->window));
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static char *
screen_text (Fixture *f)
{
  return vte_terminal_get_text (f->vte, NULL, NULL, NULL);
}

static gboolean
has_line (const char *text,
          const char *line)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  return g_strv_contains ((const char * const *) lines, line);
}

/* VTE parses what it is fed in its own time: wait until @line is on the
 * screen (or 5 s pass) and return the screen. */
static char *
wait_for_line (Fixture    *f,
               const char *line)
{
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  char *text = NULL;

  for (;;)
    {
      g_free (text);
      text = screen_text (f);
      if (has_line (text, line) || g_get_monotonic_time () > deadline)
        return text;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

/* The lines from the one equal to @first on, as many as @n. */
static GStrv
lines_from (const char *text,
            const char *first,
            guint       n)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_equal (lines[i], first))
      {
        for (guint j = i; lines[j] != NULL && j < i + n; j++)
          g_ptr_array_add (out, g_strdup (lines[j]));
        break;
      }
  g_ptr_array_add (out, NULL);
  return (GStrv) g_ptr_array_free (out, FALSE);
}

static void
test_prompt (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  warden_terminal_feed_command (f->terminal, "proj", "ls -la");
  text = wait_for_line (f, "proj $ ls -la");
  g_assert_true (has_line (text, "proj $ ls -la"));

  warden_terminal_feed_command (f->terminal, "proj", "cat <<EOF\nhello\nEOF");
  g_free (text);
  text = wait_for_line (f, "> EOF");
  lines = lines_from (text, "proj $ cat <<EOF", 3);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_cmpstr (lines[1], ==, "> hello");
  g_assert_cmpstr (lines[2], ==, "> EOF");
}

static void
test_prompt_control_characters (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *text = NULL;

  /* An escape sequence in a command would clear the screen if fed raw. */
  warden_terminal_feed_output (f->terminal, "before\n", -1);
  warden_terminal_feed_command (f->terminal, "proj", "echo \033[2Jx");
  text = wait_for_line (f, "proj $ echo \\x1b[2Jx");
  g_assert_true (has_line (text, "proj $ echo \\x1b[2Jx"));
  g_assert_true (has_line (text, "before"));
}

typedef struct
{
  const char *command;
  const char *shown;
} PromptCase;

/* What VTE would obey, or what would make the line read otherwise, shows
 * as the escape warden_printable() gives it. */
static const PromptCase prompt_cases[] = {
  /* U+009B is CSI to VTE: "2K" would erase this very line. */
  { "echo safe\xc2\x9b" "2K", "proj $ echo safe\\u009b2K" },
  /* OSC 52 (clipboard), introduced and ended by C1 controls. */
  { "printf \xc2\x9d" "52;c;cm0gLXJm\xc2\x9c", "proj $ printf \\u009d52;c;cm0gLXJm\\u009c" },
  { "true\033[1A\033[2K", "proj $ true\\x1b[1A\\x1b[2K" },
  { "rm -rf ~/.ssh\rnpm test", "proj $ rm -rf ~/.ssh\\rnpm test" },
  /* A right-to-left override would show "exe.txt" for "txt.exe". */
  { "open \xe2\x80\xaetxt.exe", "proj $ open \\u202etxt.exe" },
  { "ls\xe2\x80\x8b -a\xc2\xa0" "b", "proj $ ls\\u200b -a\\u00a0b" },
};

static void
test_prompt_hidden_characters (Fixture       *f,
                               gconstpointer  data)
{
  for (guint i = 0; i < G_N_ELEMENTS (prompt_cases); i++)
    {
      g_autofree char *text = NULL;
      g_autofree char *end = g_strdup_printf ("end of case %u", i);

      g_test_message ("case %u: %s", i, prompt_cases[i].shown);
      warden_terminal_reset (f->terminal);
      warden_terminal_feed_command (f->terminal, "proj", prompt_cases[i].command);
      /* Not on the screen yet: the reset's old text is no proof. */
      warden_terminal_feed_notice (f->terminal, end);
      text = wait_for_line (f, end);
      g_test_message ("%s", text);
      g_assert_true (has_line (text, prompt_cases[i].shown));
    }
}

typedef struct
{
  const char *name;
  const char *before;      /* output of an earlier command, or NULL */
  const char *chunks[6];   /* the attack, as the stream splits it */
  const char *shown;       /* the line after the prompt, or NULL */
} RewriteCase;

static const RewriteCase rewrite_cases[] = {
  { "up and erase", NULL, { "\033[1A\033[2K\rproj $ npm test\n" }, NULL },
  { "split sequence", NULL, { "\033", "[", "1", "A\033[2", "K\rproj $ npm test\n" }, NULL },
  { "previous line", NULL, { "\033[F\033[Kproj $ npm test\n" }, NULL },
  { "newline inside", NULL, { "x\033[2", "\n", "A\033[2K\rproj $ npm test\n" }, NULL },
  { "c1 csi", NULL, { "\xc2", "\x9b" "1A\xc2\x9b" "2Kproj $ npm test\n" },
    "\\u009b1A\\u009b2Kproj $ npm test" },
  { "c1 reverse index", NULL, { "\xc2\x8d" "proj $ npm test\n" }, "\\u008d" "proj $ npm test" },
  { "osc", NULL, { "\xc2\x9d" "52;c;Zm9v\xc2\x9c\033]0;t\a\n" },
    "\\u009d52;c;Zm9v\\u009c\\x1b]0;t\\x07" },
  { "reverse index", NULL, { "\033M\033Mproj $ npm test\n" }, "\\x1bM\\x1bMproj $ npm test" },
  { "home", NULL, { "\033[H\033[2Jproj $ npm test\n" }, NULL },
  { "restore cursor", "\0337", { "\0338proj $ npm test\n" }, NULL },
  { "full reset", NULL, { "\033cproj $ npm test\n" }, "\\x1bcproj $ npm test" },
  { "alternate screen", NULL, { "\033[?1049hproj $ npm test\n" }, NULL },
  { "scroll down", NULL, { "\033[5T\n" }, "\\x1b[5T" },
};

static void
test_output_cannot_rewrite_prompt (Fixture       *f,
                                   gconstpointer  data)
{
  for (guint i = 0; i < G_N_ELEMENTS (rewrite_cases); i++)
    {
      const RewriteCase *c = &rewrite_cases[i];
      g_autofree char *text = NULL;
      g_autofree char *end = g_strdup_printf ("end of case %u", i);
      g_auto(GStrv) lines = NULL;

      g_test_message ("case %s", c->name);
      warden_terminal_reset (f->terminal);
      warden_terminal_feed_command (f->terminal, "proj", "ls");
      if (c->before != NULL)
        warden_terminal_feed_output (f->terminal, c->before, -1);
      warden_terminal_feed_command (f->terminal, "proj", "rm -rf ~/.ssh");
      for (guint k = 0; c->chunks[k] != NULL; k++)
        warden_terminal_feed_output (f->terminal, c->chunks[k], -1);
      /* Not on the screen yet: the reset's old text is no proof. */
      warden_terminal_feed_notice (f->terminal, end);
      text = wait_for_line (f, end);
      g_test_message ("%s", text);
      lines = lines_from (text, "proj $ rm -rf ~/.ssh", 2);
      g_assert_cmpuint (g_strv_length (lines), ==, 2);
      if (c->shown != NULL)
        g_assert_cmpstr (lines[1], ==, c->shown);
      g_assert_true (has_line (text, "proj $ ls"));
    }
}

static void
test_output_keeps_progress (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  /* What a progress bar does stays in its line: "\r", erase, colours. */
  warden_terminal_feed_command (f->terminal, "proj", "fetch");
  warden_terminal_feed_output (f->terminal, "10% \033[32m###\033[0m\r\033[", -1);
  warden_terminal_feed_output (f->terminal, "K\033[1;32mdone\033[0m\n", -1);
  warden_terminal_feed_output (f->terminal, "\xc2\xa0" "caf\xc3\xa9\n", -1);
  text = wait_for_line (f, "done");
  lines = lines_from (text, "proj $ fetch", 3);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_cmpstr (lines[1], ==, "done");
  g_assert_cmpstr (lines[2], ==, "\xc2\xa0" "caf\xc3\xa9");
}

static void
test_newlines (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  warden_terminal_feed_output (f->terminal, "a\nb\nc\n", -1);
  text = wait_for_line (f, "c");
  /* Lone "\n" fed raw would staircase: "b" would be "  b"... */
  lines = lines_from (text, "a", 3);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_cmpstr (lines[1], ==, "b");
  g_assert_cmpstr (lines[2], ==, "c");
}

static void
test_crlf_across_chunks (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  warden_terminal_feed_output (f->terminal, "x\r", -1);
  warden_terminal_feed_output (f->terminal, "\ny\r\n", -1);
  warden_terminal_feed_output (f->terminal, "z\n", 2);
  warden_terminal_feed_output (f->terminal, "", 0);
  warden_terminal_feed_output (f->terminal, "w\n", -1);
  text = wait_for_line (f, "w");
  lines = lines_from (text, "x", 4);
  g_assert_cmpuint (g_strv_length (lines), ==, 4);
  g_assert_cmpstr (lines[1], ==, "y");
  g_assert_cmpstr (lines[2], ==, "z");
  g_assert_cmpstr (lines[3], ==, "w");
}

static void
test_lone_cr_overwrites (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *text = NULL;

  /* A progress bar redraws its line with "\r": it must stay one line. */
  warden_terminal_feed_output (f->terminal, "10%\r", -1);
  warden_terminal_feed_output (f->terminal, "99%\rdone\n", -1);
  text = wait_for_line (f, "done");
  g_assert_true (has_line (text, "done"));
  g_assert_null (strstr (text, "10%"));
}

static void
test_colors (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *text = NULL;

  warden_terminal_feed_output (f->terminal, "\033[31mred\033[0m and \033[1;32mgreen\033[0m\n", -1);
  text = wait_for_line (f, "red and green");
  g_assert_true (has_line (text, "red and green"));
  g_assert_null (strstr (text, "[31m"));
}

static void
test_status (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  warden_terminal_feed_command (f->terminal, "proj", "false");
  warden_terminal_feed_output (f->terminal, "no newline", -1);
  warden_terminal_feed_status (f->terminal, 2, 1300);
  text = wait_for_line (f, "[exit 2 · 1.3 s]");
  lines = lines_from (text, "proj $ false", 3);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_cmpstr (lines[1], ==, "no newline");
  g_assert_cmpstr (lines[2], ==, "[exit 2 · 1.3 s]");

  /* A quick success adds nothing between its output and the next prompt. */
  warden_terminal_feed_command (f->terminal, "proj", "true");
  warden_terminal_feed_output (f->terminal, "fine\n", -1);
  warden_terminal_feed_status (f->terminal, 0, 20);
  warden_terminal_feed_command (f->terminal, "proj", "next");
  g_free (text);
  text = wait_for_line (f, "proj $ next");
  g_strfreev (lines);
  lines = lines_from (text, "proj $ true", 3);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_cmpstr (lines[1], ==, "fine");
  g_assert_cmpstr (lines[2], ==, "proj $ next");
}

/* A stopped command's block ends with "[interrupted]", on a line of its
 * own even when its output had no newline. */
static void
test_interrupted (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  warden_terminal_feed_command (f->terminal, "proj", "sleep 100");
  warden_terminal_feed_output (f->terminal, "waiting", -1);
  warden_terminal_feed_interrupted (f->terminal, 4200);
  text = wait_for_line (f, "[interrupted · 4.2 s]");
  lines = lines_from (text, "proj $ sleep 100", 3);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_cmpstr (lines[1], ==, "waiting");
  g_assert_cmpstr (lines[2], ==, "[interrupted · 4.2 s]");
}

static void
test_notice (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *text = NULL;

  warden_terminal_feed_output (f->terminal, "partial", -1);
  warden_terminal_feed_notice (f->terminal, "Sandbox ready");
  text = wait_for_line (f, "Sandbox ready");
  g_assert_true (has_line (text, "partial"));
  g_assert_true (has_line (text, "Sandbox ready"));
}

static GtkWidget *
find_widget (GtkWidget *root,
             GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_widget (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_search (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *text = NULL;
  GtkWidget *entry = find_widget (GTK_WIDGET (f->terminal), GTK_TYPE_SEARCH_ENTRY);
  GtkWidget *bar = find_widget (GTK_WIDGET (f->terminal), GTK_TYPE_SEARCH_BAR);
  gint64 deadline;

  warden_terminal_feed_output (f->terminal, "a needle in the haystack\n", -1);
  text = wait_for_line (f, "a needle in the haystack");

  g_assert_nonnull (entry);
  g_assert_false (gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (bar)));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->terminal), "terminal.find", NULL));
  g_assert_true (gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (bar)));

  /* Case-insensitive, and the text is literal, not a pattern. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "NEEDLE");
  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (vte_terminal_search_get_regex (f->vte) == NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (vte_terminal_search_get_regex (f->vte));
  g_assert_false (gtk_widget_has_css_class (entry, "error"));
  /* VTE does not wrap onto the match it already shows: with a single
   * match every other search fails. Enter must find it each time. */
  for (guint i = 0; i < 3; i++)
    {
      g_signal_emit_by_name (entry, "activate");
      g_assert_false (gtk_widget_has_css_class (entry, "error"));
      g_assert_true (vte_terminal_get_has_selection (f->vte));
    }
  warden_terminal_feed_output (f->terminal, "another needle\n", -1);
  g_free (text);
  text = wait_for_line (f, "another needle");
  g_assert_true (vte_terminal_search_find_next (f->vte));
  g_assert_true (vte_terminal_search_find_previous (f->vte));

  gtk_editable_set_text (GTK_EDITABLE (entry), "zebra.*");
  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (!gtk_widget_has_css_class (entry, "error") && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (gtk_widget_has_css_class (entry, "error"));
  g_assert_false (vte_terminal_search_find_next (f->vte));

  gtk_search_bar_set_search_mode (GTK_SEARCH_BAR (bar), FALSE);
  g_assert_null (vte_terminal_search_get_regex (f->vte));
}

static void
test_scrollback_bounded (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GString) chunk = g_string_new (NULL);
  GtkAdjustment *adjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (f->vte));
  g_autofree char *text = NULL;
  glong rows;

  for (guint i = 1; i <= 20000; i++)
    {
      g_string_append_printf (chunk, "line %u\n", i);
      if (i % 1000 == 0)
        {
          warden_terminal_feed_output (f->terminal, chunk->str, chunk->len);
          g_string_truncate (chunk, 0);
        }
    }
  text = wait_for_line (f, "line 20000");
  g_assert_true (has_line (text, "line 20000"));

  rows = vte_terminal_get_row_count (f->vte);
  g_test_message ("rows %ld, adjustment %g..%g", rows,
                  gtk_adjustment_get_lower (adjustment), gtk_adjustment_get_upper (adjustment));
  /* All 20,000 lines would be 20,000 + rows; the bound keeps 10,000. */
  g_assert_cmpfloat (gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_lower (adjustment),
                     <=, WARDEN_TERMINAL_SCROLLBACK_LINES + rows);
  g_assert_cmpfloat (gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_lower (adjustment),
                     >=, WARDEN_TERMINAL_SCROLLBACK_LINES);
}

static void
test_big_output (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *chunk = g_malloc (64 * 1024);
  g_autofree char *text = NULL;
  gint64 start;
  gint64 longest = 0;

  /* 16 MiB in 64 KiB chunks, as a sandbox stream delivers them: no
   * single call may hold the main loop for long. */
  for (gsize i = 0; i < 64 * 1024; i++)
    chunk[i] = (i % 80 == 79) ? '\n' : 'a' + (i % 26);
  for (guint i = 0; i < 256; i++)
    {
      start = g_get_monotonic_time ();
      warden_terminal_feed_output (f->terminal, chunk, 64 * 1024);
      longest = MAX (longest, g_get_monotonic_time () - start);
      g_main_context_iteration (NULL, FALSE);
    }
  warden_terminal_feed_output (f->terminal, "\nthe end\n", -1);
  text = wait_for_line (f, "the end");
  g_test_message ("longest feed: %" G_GINT64_FORMAT " µs", longest);
  g_assert_true (has_line (text, "the end"));
  g_assert_cmpint (longest, <, 250 * 1000);
}

static void
test_reset (Fixture       *f,
            gconstpointer  data)
{
  GtkAdjustment *adjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (f->vte));
  g_autofree char *text = NULL;
  gint64 deadline;

  for (guint i = 0; i < 200; i++)
    warden_terminal_feed_output (f->terminal, "old output\n", -1);
  warden_terminal_feed_output (f->terminal, "last old\n", -1);
  text = wait_for_line (f, "last old");
  g_assert_true (has_line (text, "last old"));

  warden_terminal_reset (f->terminal);
  warden_terminal_feed_notice (f->terminal, "fresh");
  g_free (text);
  text = wait_for_line (f, "fresh");
  g_assert_true (has_line (text, "fresh"));
  g_assert_false (has_line (text, "last old"));
  g_assert_false (has_line (text, "old output"));

  /* The scrollback went too: nothing above the screen. */
  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_lower (adjustment)
         > vte_terminal_get_row_count (f->vte)
         && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpfloat (gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_lower (adjustment),
                     <=, vte_terminal_get_row_count (f->vte));
}

static void
read_text_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  char **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (source), result, &error);
  g_assert_no_error (error);
}

static void
test_copy (Fixture       *f,
           gconstpointer  data)
{
  GdkClipboard *clipboard = gtk_widget_get_clipboard (GTK_WIDGET (f->vte));
  g_autofree char *text = NULL;
  g_autofree char *copied = NULL;
  gint64 deadline;

  /* Nothing selected: the clipboard keeps what it had. */
  gdk_clipboard_set_text (clipboard, "previous");
  gtk_widget_activate_action (GTK_WIDGET (f->terminal), "terminal.copy", NULL);
  gdk_clipboard_read_text_async (clipboard, NULL, read_text_cb, &copied);
  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (copied == NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpstr (copied, ==, "previous");
  g_clear_pointer (&copied, g_free);

  warden_terminal_feed_output (f->terminal, "copy me\n", -1);
  text = wait_for_line (f, "copy me");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->terminal),
                                             "terminal.select-all", NULL));
  g_assert_true (vte_terminal_get_has_selection (f->vte));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->terminal), "terminal.copy", NULL));

  gdk_clipboard_read_text_async (clipboard, NULL, read_text_cb, &copied);
  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (copied == NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (copied);
  g_assert_nonnull (strstr (copied, "copy me"));
}

static void
read_html_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  char **out = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GBytes) bytes = NULL;
  const guchar *data;
  gsize size;

  stream = gdk_clipboard_read_finish (GDK_CLIPBOARD (source), result, NULL, &error);
  g_assert_no_error (error);
  bytes = g_input_stream_read_bytes (stream, 1 << 20, NULL, &error);
  g_assert_no_error (error);
  data = g_bytes_get_data (bytes, &size);
  /* VTE exports HTML as UTF-16 with a byte order mark. */
  if (size >= 2 && data[0] == 0xff && data[1] == 0xfe)
    *out = g_convert ((const char *) data + 2, size - 2, "UTF-8", "UTF-16LE", NULL, NULL, NULL);
  else
    *out = g_strndup ((const char *) data, size);
  g_assert_nonnull (*out);
}

/* The screen as VTE exports it with its colours, one line per line. */
static char *
screen_html (Fixture *f)
{
  static const char *mime_types[] = { "text/html", NULL };
  GdkClipboard *clipboard = gtk_widget_get_clipboard (GTK_WIDGET (f->vte));
  char *html = NULL;
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  vte_terminal_select_all (f->vte);
  vte_terminal_copy_clipboard_format (f->vte, VTE_FORMAT_HTML);
  gdk_clipboard_read_async (clipboard, mime_types, G_PRIORITY_DEFAULT, NULL, read_html_cb, &html);
  while (html == NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (html);
  return html;
}

static void
test_prompt_keeps_its_colours (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *text = NULL;
  g_autofree char *html = NULL;
  g_auto(GStrv) lines = NULL;
  guint found = 0;

  /* Output that sets a background (or conceal, reverse…) and never resets
   * it must not paint the next prompt line: it starts from plain. */
  warden_terminal_feed_command (f->terminal, "proj", "make");
  warden_terminal_feed_output (f->terminal, "\033[45mmagenta\n", -1);
  warden_terminal_feed_status (f->terminal, 2, -1);
  warden_terminal_feed_command (f->terminal, "proj", "ls");
  warden_terminal_feed_notice (f->terminal, "Sandbox ready");
  text = wait_for_line (f, "Sandbox ready");
  g_assert_true (has_line (text, "proj $ ls"));
  html = screen_html (f);
  g_test_message ("%s", html);
  lines = g_strsplit (html, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], "ls") != NULL || strstr (lines[i], "exit 2") != NULL
        || strstr (lines[i], "Sandbox ready") != NULL)
      {
        g_assert_null (strstr (lines[i], "background-color"));
        found++;
      }
  g_assert_cmpuint (found, ==, 3);
}

static gboolean
label_mapped (GtkWidget  *widget,
              const char *text)
{
  if (!gtk_widget_get_mapped (widget))
    return FALSE;
  if (GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), text) != NULL)
    return TRUE;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    if (label_mapped (c, text))
      return TRUE;
  return FALSE;
}

/* Issue 32, item 7: the empty pane says what it is for and that it takes
 * no input; the first command replaces the words, a reset brings them back. */
static void
test_placeholder (Fixture       *f,
                  gconstpointer  data)
{
  const char *says = "This is not a shell: it takes no input.";

  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_true (label_mapped (f->window, says));
  warden_terminal_feed_command (f->terminal, "app", "ls");
  g_free (wait_for_line (f, "app $ ls"));
  g_assert_false (label_mapped (f->window, says));
  warden_terminal_reset (f->terminal);
  g_assert_true (label_mapped (f->window, says));
}

int
main (int    argc,
      char **argv)
{
  /* As main.c: the renderer a user of this machine gets. */
  warden_renderer_choose ();
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

#define ADD(path, func) \
  g_test_add ("/terminal/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("prompt", test_prompt);
  ADD ("prompt-control-characters", test_prompt_control_characters);
  ADD ("prompt-hidden-characters", test_prompt_hidden_characters);
  ADD ("output-cannot-rewrite-prompt", test_output_cannot_rewrite_prompt);
  ADD ("output-keeps-progress", test_output_keeps_progress);
  ADD ("prompt-keeps-its-colours", test_prompt_keeps_its_colours);
  ADD ("newlines", test_newlines);
  ADD ("crlf-across-chunks", test_crlf_across_chunks);
  ADD ("lone-cr-overwrites", test_lone_cr_overwrites);
  ADD ("colors", test_colors);
  ADD ("status", test_status);
  ADD ("interrupted", test_interrupted);
  ADD ("notice", test_notice);
  ADD ("search", test_search);
  ADD ("scrollback-bounded", test_scrollback_bounded);
  ADD ("big-output", test_big_output);
  ADD ("reset", test_reset);
  ADD ("copy", test_copy);
  ADD ("placeholder", test_placeholder);
#undef ADD

  return g_test_run ();
}
