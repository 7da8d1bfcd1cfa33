/* warden-env-keys.h: API keys taken out of the process environment
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Moves the API keys Warden reads from the environment (ANTHROPIC_API_KEY,
 * OPENAI_API_KEY, and any WARDEN_…_KEY or WARDEN_…_TOKEN) into this
 * process's memory: they are removed from the environment, so no command
 * inherits them, and their bytes in the block the kernel shows as
 * /proc/PID/environ are overwritten (unsetenv() leaves that block as it
 * was, and any process of the user can read it). Call it first thing in
 * main(), before a thread starts: the environment is not thread-safe.
 * Returns how many were taken. */
guint       warden_env_keys_take (void);

/* The value the variable @name had when it was taken, or g_getenv (@name)
 * if it was not; NULL when it is not set or empty. */
const char *warden_env_keys_get  (const char *name);

G_END_DECLS
