/* warden-bench.c: measurements for tests/bench/gui-bench
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "warden-bench.h"

#include <time.h>
#include <unistd.h>

#include "sandbox/warden-host-sandbox.h"

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

static void
after_paint_cb (GdkFrameClock *clock,
                GtkWindow     *window)
{
  g_print ("first_frame_ms=%.0f\n", ms_since_process_start ());
  g_signal_handlers_disconnect_by_func (clock, after_paint_cb, window);
}

static void
realize_cb (GtkWidget *widget,
            gpointer   user_data)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (widget);

  g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint_cb), widget);
}

void
warden_bench_watch_first_frame (GtkWindow *window)
{
  g_signal_connect (window, "realize", G_CALLBACK (realize_cb), NULL);
}

/* ------------------------------------------------------------------------ */

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
  gboolean        running;
} Bench;

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

  bench->running = FALSE;
  /* No frames means the pane was not on screen: no figure, not a good one. */
  if (bench->frames < 2)
    {
      g_printerr ("bench: the terminal pane drew %u frames; it is not on screen\n",
                  bench->frames);
      g_application_quit (bench->app);
      return G_SOURCE_REMOVE;
    }
  g_print ("max_frame_gap_ms=%.1f rss_growth_mb=%.1f bytes=%" G_GUINT64_FORMAT " frames=%u\n",
           bench->max_gap / 1000.0, rss_mb () - bench->rss_before, bench->bytes, bench->frames);
  gtk_widget_remove_tick_callback (GTK_WIDGET (bench->terminal), bench->tick_id);
  g_application_quit (bench->app);
  g_object_unref (bench->sandbox);
  g_free (bench);
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
    g_printerr ("bench: the command failed: %s\n", error->message);
  warden_terminal_feed_status (bench->terminal, res ? res->exit_code : -1,
                               res ? res->duration_us / 1000 : 0);
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
      g_printerr ("bench: %s\n", error->message);
      g_application_quit (bench->app);
      return;
    }
  command = g_strdup_printf ("head -c %u /dev/urandom | base64", bench->megabytes * 3 / 4 * 1024 * 1024);
  request.command = command;
  request.output_func = output_cb;
  request.output_data = bench;
  request.timeout_ms = 600 * 1000;
  warden_terminal_feed_command (bench->terminal, "bench", command);
  bench->rss_before = rss_mb ();
  bench->running = TRUE;
  warden_sandbox_exec_async (bench->sandbox, &request, NULL, exec_cb, bench);
}

void
warden_bench_terminal (GApplication   *app,
                       WardenTerminal *terminal,
                       guint           megabytes)
{
  Bench *bench = g_new0 (Bench, 1);
  g_autofree char *dir = g_get_current_dir ();
  g_autoptr(WardenSandboxConfig) config = warden_sandbox_config_new (dir);

  bench->app = app;
  bench->terminal = terminal;
  bench->megabytes = megabytes;
  bench->sandbox = warden_host_sandbox_new (config);
  /* The pane shows with a session; the benchmark has none, so show it. */
  gtk_widget_set_visible (GTK_WIDGET (terminal), TRUE);
  bench->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (terminal), tick_cb, bench, NULL);
  warden_sandbox_prepare_async (bench->sandbox, NULL, prepare_cb, bench);
}
