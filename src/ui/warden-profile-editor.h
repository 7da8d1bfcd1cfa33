/* warden-profile-editor.h: edits one profile, with a live "try a command"
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "policy/warden-profile-store.h"

G_BEGIN_DECLS

#define WARDEN_TYPE_PROFILE_EDITOR (warden_profile_editor_get_type ())

G_DECLARE_FINAL_TYPE (WardenProfileEditor, warden_profile_editor, WARDEN, PROFILE_EDITOR, AdwBin)

/* Built-in profiles are shown read-only, with a button that duplicates them
 * into an editable user profile (and then edits that). Every change is saved
 * to @store as it is made. */
GtkWidget     *warden_profile_editor_new             (WardenProfileStore   *store,
                                                      WardenProfile        *profile);
/* The profile being edited: after "Duplicate to edit", the copy. */
WardenProfile *warden_profile_editor_get_profile     (WardenProfileEditor  *self);
/* TRUE while a save (or a duplication) has not finished. */
gboolean       warden_profile_editor_get_busy        (WardenProfileEditor  *self);
/* The last save error, or NULL when the profile on disk is up to date. */
const GError  *warden_profile_editor_get_save_error  (WardenProfileEditor  *self);

/* For tests: what the user types into, and what they see. */
GtkEditable   *warden_profile_editor_get_try_entry   (WardenProfileEditor  *self);
/* The container image row: what the profile's sessions run in. */
GtkEditable   *warden_profile_editor_get_image_entry (WardenProfileEditor  *self);
/* The verdict shown for the command in the try entry, as `warden-cli policy
 * check` prints it ("allow", "ask" or "deny"), or NULL when it is empty. */
const char    *warden_profile_editor_get_try_result  (WardenProfileEditor  *self);
/* What the user reads for each command of the line, without markup:
 * "ls — allowed by ls *", "rm {} (run by find for each file) — asks: …". */
GStrv          warden_profile_editor_dup_try_lines   (WardenProfileEditor  *self);
/* The "add a pattern" entry of a list, named by the verdict its patterns
 * give (WARDEN_VERDICT_ALLOW: allowed, _ASK: the ask rules, _DENY: denied),
 * and the validation message shown under it (NULL when there is none). */
GtkEditable   *warden_profile_editor_get_add_entry   (WardenProfileEditor  *self,
                                                      WardenVerdict         list);
const char    *warden_profile_editor_get_add_error   (WardenProfileEditor  *self,
                                                      WardenVerdict         list);
/* Types @pattern into the add entry and presses Add. */
gboolean       warden_profile_editor_add_allow       (WardenProfileEditor  *self,
                                                      const char           *pattern,
                                                      GError              **error);
gboolean       warden_profile_editor_add_deny        (WardenProfileEditor  *self,
                                                      const char           *pattern,
                                                      GError              **error);
gboolean       warden_profile_editor_add_ask         (WardenProfileEditor  *self,
                                                      const char           *pattern,
                                                      GError              **error);

/* The "try a host" entry, and its verdict ("allow", "ask", "deny") or NULL. */
GtkEditable   *warden_profile_editor_get_try_host_entry  (WardenProfileEditor *self);
const char    *warden_profile_editor_get_try_host_result (WardenProfileEditor *self);

G_END_DECLS
