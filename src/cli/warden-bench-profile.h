/* warden-bench-profile.h: the allowlist that "warden-cli policy bench" matches against
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define WARDEN_BENCH_PROFILE_N_PATTERNS 200

/* A NULL-terminated static array of WARDEN_BENCH_PROFILE_N_PATTERNS allow
 * patterns, the size of a developer's real allowlist. Do not free. */
const char * const *warden_bench_profile_patterns (void);

G_END_DECLS
