/* warden-json.h: JSON that is valid whatever bytes it carries, and typed reads
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* What Warden writes anywhere (requests to the model, stored rows, CLI
 * output) goes through this, not json_to_string(): json-glib 1.6 leaves
 * U+001F raw and copies invalid UTF-8 through, and a command's output or a
 * file (a gzip header starts 1f 8b) carries both. Here every string comes out
 * as UTF-8 (a bad byte becomes U+FFFD) with every control character escaped,
 * so the text always parses back. */
char        *warden_json_to_string      (JsonNode   *node,
                                         gboolean    pretty);
/* The same for a builder's result. */
char        *warden_json_builder_to_string (JsonBuilder *builder,
                                            gboolean     pretty);
/* Makes a json-glib generator's output valid: escapes raw control characters
 * inside strings and replaces invalid UTF-8. */
char        *warden_json_fix            (const char *text,
                                         gssize      length);

/* @member of @object if it is a string, else NULL (also for a NULL object). */
const char  *warden_json_get_string     (JsonObject *object,
                                         const char *member);
/* @member of @object if it is a number, else @fallback. */
gint64       warden_json_get_int        (JsonObject *object,
                                         const char *member,
                                         gint64      fallback);
/* @member of @object if it is a boolean, else @fallback. */
gboolean     warden_json_get_boolean    (JsonObject *object,
                                         const char *member,
                                         gboolean    fallback);

G_END_DECLS
