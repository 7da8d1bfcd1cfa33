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

/* Reads @length bytes as exactly one JSON text (RFC 8259), for what a
 * program sends Warden: whitespace around it and nothing else. Refused,
 * with the byte offset in the message, where json-glib 1.6 alone would read
 * something or drop the rest: a NUL byte, a second value or anything after
 * the first, comments, single quotes, bytes that are not UTF-8, raw control
 * characters, U+0000 or a lone surrogate in a string (a C string would end
 * there), a member named twice (which one counts?), nesting deeper than
 * 64. G_IO_ERROR_INVALID_DATA. */
JsonNode    *warden_json_parse_exact    (const char *data,
                                         gsize       length,
                                         GError    **error);

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
