/* warden-claude-import.h: profiles from Claude Code permission settings
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "warden-profile.h"

G_BEGIN_DECLS

/* Converts one Claude Code permission rule to Warden patterns:
 * "Bash(npm run test:*)" gives "npm run test" and "npm run test *" (Claude's
 * ":*" is a prefix match, which also matches the bare command); "Bash(ls)"
 * gives "ls"; "Bash" and "Bash(*)" give "*". Returns NULL, with @error set,
 * for rules that are not about shell commands (Read(…), WebFetch, …). */
GStrv          warden_claude_rule_to_patterns      (const char  *rule,
                                                    GError     **error);
/* Reads a Claude Code settings file (settings.json, settings.local.json):
 * its "permissions": {"allow": […], "ask": […], "deny": […]}, each list
 * into the profile's list of that name (Claude's ask rules ask even where
 * an allow rule matches, as Warden's do). Rules that are not Bash rules are
 * skipped and listed in @skipped (may be NULL). */
WardenProfile *warden_profile_new_from_claude_data (const char  *id,
                                                    const char  *data,
                                                    gssize       length,
                                                    const char  *source_name,
                                                    GStrv       *skipped,
                                                    GError     **error);

G_END_DECLS
