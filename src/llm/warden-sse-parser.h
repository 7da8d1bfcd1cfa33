/* warden-sse-parser.h: server-sent events, fed as bytes arrive
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Called for each complete event: @event is the "event:" field (NULL when
 * absent), @data the "data:" lines joined by "\n". Return FALSE to stop. */
typedef gboolean (*WardenSseEventFunc) (const char *event,
                                        const char *data,
                                        gpointer    user_data);

typedef struct _WardenSseParser WardenSseParser;

WardenSseParser *warden_sse_parser_new    (WardenSseEventFunc  func,
                                           gpointer            user_data);
void             warden_sse_parser_free   (WardenSseParser    *self);
/* Any split is fine: one byte at a time, CRLF or LF line ends. Returns
 * FALSE when the callback asked to stop. */
gboolean         warden_sse_parser_feed   (WardenSseParser    *self,
                                           const char         *data,
                                           gsize               length);
/* TRUE when a partial event is still buffered (the stream was cut). */
gboolean         warden_sse_parser_has_partial (WardenSseParser *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenSseParser, warden_sse_parser_free)

G_END_DECLS
