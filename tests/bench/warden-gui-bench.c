/* warden-gui-bench.c: the Warden window measured from outside it, for tests/bench/gui-bench
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include <time.h>
#include <unistd.h>

#include "llm/warden-env-keys.h"
#include "sandbox/warden-host-sandbox.h"
#include "warden-application.h"
#include "warden-renderer.h"
#include "warden-terminal.h"
#include "warden-window.h"

/* Starts Warden as src/ui/main.c does, from the same library, and watches it
 * through the application's own signals, so that nothing in the shipped
 * program exists for the benchmark (STYLE.md, rule 16):
 *
 *   --first-frame  prints "first_frame_ms=N" (since the process started) after
 *                  the first window's first frame, and "renderer=TYPE" (GSK's);
 *                  runs until it is killed.
 *   --terminal=MB  its own instance: runs a command printing MB MiB through the
 *                  host sandbox into the terminal pane, as an agent's commands
 *                  reach it; prints "max_frame_gap_ms=… rss_growth_mb=… bytes=…
 *                  frames=…" and quits. */

/* Milliseconds since this process started, from /proc (so the time before
 * main, the dynamic linker and library constructors, counts too). */
static double
ms_since_process_start (void)
{
  g_autofree char *stat = NULL;
  const char *p;
  unsigned long long start_ticks = 0;
  struct timespec now;

  if (!g_file_get_contents ("/proc/self/stat", &stat, NULL, NULL) ||
      (p = strrchr (stat, ')')) == NULL)
    return -1;
  /* Field 22 (starttime); the fields after ")" start at 3. */
  p++;
  for (int field = 2; field < 22 && *p; p++)
    if (*p == ' ')
      field++;
  start_ticks = g_ascii_strtoull (p, NULL, 10);
  clock_gettime (CLOCK_BOOTTIME, &now);
  return (now.tv_sec * 1000.0 + now.tv_nsec / 1e6) -
         (double) start_ticks * 1000.0 / sysconf (_SC_CLK_TCK);
}

static double
rss_mb (void)
{
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL) ||
      (line = strstr (status, "VmRSS:")) == NULL)
    return -1;
  return g_ascii_strtod (line + 6, NULL) / 1024.0;
}

/* --- first frame -------------------------------------------------------- */

static void
after_paint_cb (GdkFrameClock *clock,
                GtkNative     *native)
{
  GskRenderer *renderer = gtk_native_get_renderer (native);

  g_print ("first_frame_ms=%.0f\n", ms_since_process_start ());
  /* Which one warden-renderer.c left GTK to use. */
  g_print ("renderer=%s\n", renderer != NULL ? G_OBJECT_TYPE_NAME (renderer) : "none");
  g_signal_handlers_disconnect_by_func (clock, after_paint_cb, native);
}

static void
realize_cb (GtkWidget *widget,
            gpointer   user_data)
{
  g_signal_connect (gtk_widget_get_frame_clock (widget), "after-paint",
                    G_CALLBACK (after_paint_cb), GTK_NATIVE (widget));
  g_signal_handlers_disconnect_by_func (widget, realize_cb, user_data);
}

/* The window is added to the application while it is built, before it is
 * shown: the moment warden-application.c would have hooked it. */
static void
window_added_cb (GtkApplication *app,
                 GtkWindow      *window,
                 gpointer        user_data)
{
  g_signal_connect (window, "realize", G_CALLBACK (realize_cb), NULL);
  g_signal_handlers_disconnect_by_func (app, window_added_cb, user_data);
}

/* --- terminal throughput ------------------------------------------------ */

typedef struct
{
  GApplication   *app;
  WardenTerminal *terminal;
  WardenSandbox  *sandbox;
  guint           megabytes;
  guint           tick_id;
  gint64          last_frame;    /* µs */
  gint64          max_gap;       /* µs */
  double          rss_before;
  guint64         bytes;
  guint           frames;
  gboolean        started;
  gboolean        running;
  gboolean        printed;
} Bench;

static void
bench_finish (Bench *bench)
{
  bench->running = FALSE;
  if (bench->tick_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (bench->terminal), bench->tick_id);
  bench->tick_id = 0;
  g_application_quit (bench->app);
}

static gboolean
tick_cb (GtkWidget     *widget,
         GdkFrameClock *clock,
         gpointer       user_data)
{
  Bench *bench = user_data;
  gint64 now = gdk_frame_clock_get_frame_time (clock);

  if (bench->running && bench->last_frame != 0 && now - bench->last_frame > bench->max_gap)
    bench->max_gap = now - bench->last_frame;
  if (bench->running)
    bench->frames++;
  bench->last_frame = now;
  return G_SOURCE_CONTINUE;
}

static void
output_cb (WardenStream  stream,
           const char   *data,
           gsize         length,
           gpointer      user_data)
{
  Bench *bench = user_data;

  bench->bytes += length;
  warden_terminal_feed_output (bench->terminal, data, length);
}

static gboolean
finish_cb (gpointer user_data)
{
  Bench *bench = user_data;

  /* No frames means the pane was not on screen: no figure, not a good one. */
  if (bench->frames < 2)
    g_printerr ("warden-gui-bench: the terminal pane drew %u frames; it is not on screen\n",
                bench->frames);
  else
    {
      g_print ("max_frame_gap_ms=%.1f rss_growth_mb=%.1f bytes=%" G_GUINT64_FORMAT " frames=%u\n",
               bench->max_gap / 1000.0, rss_mb () - bench->rss_before, bench->bytes,
               bench->frames);
      bench->printed = TRUE;
    }
  bench_finish (bench);
  return G_SOURCE_REMOVE;
}

static void
exec_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Bench *bench = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenExecResult) res = warden_sandbox_exec_finish (WARDEN_SANDBOX (object), result,
                                                                &error);

  if (res == NULL)
    {
      g_printerr ("warden-gui-bench: the command failed: %s\n", error->message);
      bench_finish (bench);
      return;
    }
  warden_terminal_feed_status (bench->terminal, res->exit_code, res->duration_us / 1000);
  /* Let the terminal draw what it still holds: that is part of the cost. */
  g_timeout_add (1000, finish_cb, bench);
}

static void
prepare_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Bench *bench = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *command = NULL;
  WardenExecRequest request = { 0 };

  if (!warden_sandbox_prepare_finish (WARDEN_SANDBOX (object), result, &error))
    {
      g_printerr ("warden-gui-bench: the host sandbox did not start: %s\n", error->message);
      bench_finish (bench);
      return;
    }
  /* base64 makes 4 bytes of 3, so this prints MB MiB (and its newlines). */
  command = g_strdup_printf ("head -c %" G_GUINT64_FORMAT " /dev/urandom | base64",
                             (guint64) bench->megabytes * 1024 * 1024 * 3 / 4);
  request.command = command;
  request.output_func = output_cb;
  request.output_data = bench;
  request.timeout_ms = 600 * 1000;
  warden_terminal_feed_command (bench->terminal, "bench", command);
  bench->rss_before = rss_mb ();
  bench->running = TRUE;
  warden_sandbox_exec_async (bench->sandbox, &request, NULL, exec_cb, bench);
}

/* After the application's own activate: its window is built and presented. */
static void
activate_cb (GApplication *app,
             gpointer      user_data)
{
  Bench *bench = user_data;
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (app));
  g_autofree char *dir = NULL;
  g_autoptr(WardenSandboxConfig) config = NULL;

  if (bench->started)
    return;
  bench->started = TRUE;
  if (windows == NULL || !WARDEN_IS_WINDOW (windows->data))
    {
      g_printerr ("warden-gui-bench: Warden opened no window\n");
      g_application_quit (app);
      return;
    }

  dir = g_get_current_dir ();
  config = warden_sandbox_config_new (dir);
  bench->app = app;
  bench->terminal = warden_window_get_terminal (windows->data);
  bench->sandbox = warden_host_sandbox_new (config);
  /* The pane shows with a session; the benchmark has none, so show it. */
  gtk_widget_set_visible (GTK_WIDGET (bench->terminal), TRUE);
  bench->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (bench->terminal), tick_cb, bench,
                                                 NULL);
  warden_sandbox_prepare_async (bench->sandbox, NULL, prepare_cb, bench);
}

/* ------------------------------------------------------------------------ */

int
main (int    argc,
      char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenApplication) app = NULL;
  gboolean first_frame = FALSE;
  int terminal_mb = 0;
  Bench bench = { 0 };
  int status;
  const GOptionEntry entries[] = {
    { "first-frame", 0, 0, G_OPTION_ARG_NONE, &first_frame,
      "Print first_frame_ms once the window has drawn its first frame", NULL },
    { "terminal", 0, 0, G_OPTION_ARG_INT, &terminal_mb,
      "Print MB MiB into the terminal pane, print the figures, quit", "MB" },
    { NULL }
  };

  /* As main.c, before any thread. */
  warden_env_keys_take ();
  warden_renderer_choose ();

  context = g_option_context_new (NULL);
  g_option_context_set_summary (context, "Starts Warden and measures its window "
                                "(for tests/bench/gui-bench).");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("warden-gui-bench: %s\n", error->message);
      return 2;
    }
  if (first_frame == (terminal_mb > 0) || terminal_mb < 0 || argc > 1)
    {
      g_printerr ("warden-gui-bench: give either --first-frame or --terminal=MB (MB > 0)\n");
      return 2;
    }

  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  g_set_application_name (_("Warden"));

  if (first_frame)
    {
      app = warden_application_new (G_APPLICATION_DEFAULT_FLAGS);
      g_signal_connect (app, "window-added", G_CALLBACK (window_added_cb), NULL);
      return g_application_run (G_APPLICATION (app), argc, argv);
    }

  /* Its own instance: a running Warden must not take the benchmark. */
  app = warden_application_new (G_APPLICATION_NON_UNIQUE);
  bench.megabytes = (guint) terminal_mb;
  g_signal_connect_after (app, "activate", G_CALLBACK (activate_cb), &bench);
  status = g_application_run (G_APPLICATION (app), argc, argv);
  g_clear_object (&bench.sandbox);
  return status != 0 ? status : (bench.printed ? 0 : 1);
}
