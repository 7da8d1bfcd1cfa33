/* warden-utf8.h: UTF-8 validation for the policy engine's hot path
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The answer of g_utf8_validate_len (@s, @n, NULL) — well-formed UTF-8 with
 * no surrogates, nothing above U+10FFFF, no NUL byte — found eight ASCII
 * bytes at a time: every decision validates its line and what it shows,
 * and GLib 2.74 takes one byte at a time. */
gboolean warden_utf8_validate (const char *s,
                               gsize       n);

G_END_DECLS
