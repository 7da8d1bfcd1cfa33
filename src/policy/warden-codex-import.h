/* warden-codex-import.h: profiles from Codex execution policy rules
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "warden-profile.h"

G_BEGIN_DECLS

/* Reads a Codex rules file (~/.codex/rules/default.rules): its
 * prefix_rule(pattern = […], decision = …, match = […], not_match = […],
 * justification = …) calls, in the Starlark subset Codex documents. A
 * pattern's words become the patterns "WORDS" and "WORDS *" (Codex matches a
 * prefix of the program's words); a list inside the pattern is a choice of
 * words. "allow" goes to the allow list, "prompt" to the ask rules,
 * "forbidden" to the deny list; the profile is an allowlist.
 *
 * Every match and not_match example is then decided by the imported
 * profile and compared with what Codex decides for it (the strictest rule
 * that matches, or asking when none does). An example Warden lets through
 * more easily than Codex, or one that does not hold for its own rule (Codex
 * refuses such a file too), fails the import: @error lists every one, with
 * its line and column. Where Warden is stricter (it asks where Codex
 * allows), the import goes on and @notes (may be NULL) says so; it also
 * lists what was not imported (network_rule() calls; allow rules whose
 * words a pattern cannot name exactly).
 *
 * Syntax errors are WARDEN_POLICY_ERROR_PARSE, wrong rules and failed
 * examples WARDEN_POLICY_ERROR_INVALID; messages start with
 * "@source_name:LINE:COLUMN: ". */
WardenProfile *warden_profile_new_from_codex_data (const char  *id,
                                                   const char  *data,
                                                   gssize       length,
                                                   const char  *source_name,
                                                   GStrv       *notes,
                                                   GError     **error);

G_END_DECLS
