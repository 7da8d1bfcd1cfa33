/* warden-profile-store.h: built-in and user profiles, by id
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "warden-profile.h"

G_BEGIN_DECLS

#define WARDEN_TYPE_PROFILE_STORE (warden_profile_store_get_type ())

G_DECLARE_FINAL_TYPE (WardenProfileStore, warden_profile_store, WARDEN, PROFILE_STORE, GObject)

/* @user_dir NULL means $XDG_CONFIG_HOME/warden/profiles. */
WardenProfileStore *warden_profile_store_new            (const char          *user_dir);
const char         *warden_profile_store_get_user_dir   (WardenProfileStore  *self);
/* The ids of the built-in profiles, in display order. */
const char * const *warden_profile_store_builtin_ids    (void);
/* Built-in profiles first, then the user's sorted by id. A user file that
 * does not load is left out of the list and reported in @errors (a
 * GPtrArray of GError*, may be NULL) so one bad file never hides the rest. */
GPtrArray          *warden_profile_store_list           (WardenProfileStore  *self,
                                                         GPtrArray          **errors);
WardenProfile      *warden_profile_store_lookup         (WardenProfileStore  *self,
                                                         const char          *id,
                                                         GError             **error);
/* Saves a user profile atomically (see warden_profile_save_to_file()).
 * Refuses built-in profiles and ids of built-in profiles (READ_ONLY). */
gboolean            warden_profile_store_save           (WardenProfileStore  *self,
                                                         WardenProfile       *profile,
                                                         GError             **error);
/* Moves the file aside to "<id>.json.bak", so a deletion can be undone. */
gboolean            warden_profile_store_delete         (WardenProfileStore  *self,
                                                         const char          *id,
                                                         GError             **error);

/* Gives a user profile a new id: saves it under @new_id, then deletes @id
 * as warden_profile_store_delete() does. EXISTS if @new_id is taken,
 * READ_ONLY for built-in ids, INVALID for a bad @new_id; on failure the
 * profile stays under @id. */
gboolean            warden_profile_store_rename         (WardenProfileStore  *self,
                                                         const char          *id,
                                                         const char          *new_id,
                                                         GError             **error);

/* @base if no profile has that id, else "@base-2", "@base-3", …: an id for
 * a new profile (a copy, an import) that overwrites nothing. @base must be a
 * valid id. */
char               *warden_profile_store_dup_unused_id  (WardenProfileStore  *self,
                                                         const char          *base);

/* Saves a copy of @profile (built-in or not) under an unused id based on
 * its own, named "… (copy)", and returns the copy. */
WardenProfile      *warden_profile_store_duplicate      (WardenProfileStore  *self,
                                                         WardenProfile       *profile,
                                                         GError             **error);

/* The same, off the main thread, for the GUI. */
void                warden_profile_store_lookup_async   (WardenProfileStore  *self,
                                                         const char          *id,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
WardenProfile      *warden_profile_store_lookup_finish  (WardenProfileStore  *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);
void                warden_profile_store_save_async     (WardenProfileStore  *self,
                                                         WardenProfile       *profile,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
gboolean            warden_profile_store_save_finish    (WardenProfileStore  *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);

G_END_DECLS
