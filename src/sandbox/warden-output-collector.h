/* warden-output-collector.h: keeps the start and the end of a command's output
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _WardenOutputCollector WardenOutputCollector;

/* Keeps the first 20% and the last 80% of @max_chars characters, however
 * much arrives: memory stays bounded by about 4 × @max_chars bytes. */
WardenOutputCollector *warden_output_collector_new    (gsize                  max_chars);
void                   warden_output_collector_free   (WardenOutputCollector *self);
void                   warden_output_collector_append (WardenOutputCollector *self,
                                                       const char            *data,
                                                       gsize                  length);
guint64                warden_output_collector_get_total (WardenOutputCollector *self);
/* Valid UTF-8 (invalid bytes replaced); when output was left out, a marker
 * line stands where it was and @truncated is set. */
char                  *warden_output_collector_finish (WardenOutputCollector *self,
                                                       gboolean              *truncated);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenOutputCollector, warden_output_collector_free)

G_END_DECLS
