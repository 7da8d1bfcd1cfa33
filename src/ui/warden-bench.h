/* warden-bench.h: measurements for tests/bench/gui-bench
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "warden-terminal.h"

G_BEGIN_DECLS

/* Prints "first_frame_ms=N" (since the process started) after @window's
 * first frame is drawn. */
void warden_bench_watch_first_frame (GtkWindow      *window);

/* Runs a command printing @megabytes MiB through the host sandbox into
 * @terminal, as the agent's commands reach it; prints "max_frame_gap_ms=…
 * rss_growth_mb=… bytes=…" and quits @app. */
void warden_bench_terminal          (GApplication   *app,
                                     WardenTerminal *terminal,
                                     guint           megabytes);

G_END_DECLS
