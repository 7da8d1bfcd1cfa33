/* warden-profile.h: an allowlist profile, loaded from and saved to JSON
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "warden-network.h"
#include "warden-policy-types.h"

G_BEGIN_DECLS

/* What the write and edit tools may do: "files": {"write": "…"} in the
 * JSON. Whatever the rule, a protected path (.git, .envrc, …) and a path
 * outside the workspace ask, and nothing is written without an answer. */
typedef enum
{
  WARDEN_FILE_WRITE_ALLOW,   /* "allow": inside the workspace without asking; the default,
                                and what profiles without the section keep */
  WARDEN_FILE_WRITE_ASK,     /* "ask": every write and edit asks */
  WARDEN_FILE_WRITE_NEVER,   /* "never": refused, and the model is told why */
} WardenFileWrite;

const char         *warden_file_write_to_string      (WardenFileWrite  rule);
gboolean            warden_file_write_from_string    (const char      *str,
                                                      WardenFileWrite *rule);

#define WARDEN_TYPE_PROFILE (warden_profile_get_type ())

G_DECLARE_FINAL_TYPE (WardenProfile, warden_profile, WARDEN, PROFILE, GObject)

/* A profile id names its file: [a-z0-9][a-z0-9._-]*, at most 64 bytes. */
gboolean            warden_profile_id_is_valid       (const char     *id);

WardenProfile      *warden_profile_new               (const char     *id);
/* @source_name names the file in error messages. Fails (never half-loads) on
 * malformed JSON or a wrong key, with a message naming @source_name, the key
 * and what is wrong. Keys it does not know are kept for warden_profile_to_data(). */
WardenProfile      *warden_profile_new_from_data     (const char     *id,
                                                      const char     *data,
                                                      gssize          length,
                                                      const char     *source_name,
                                                      GError        **error);
/* The id is the file's basename without ".json"; it need not be a valid id
 * (the store refuses to save a profile whose id is not). */
WardenProfile      *warden_profile_new_from_file     (GFile          *file,
                                                      GError        **error);
/* A built-in profile, from the GResource; NOT_FOUND if there is none. */
WardenProfile      *warden_profile_new_builtin       (const char     *id,
                                                      GError        **error);
/* A writable copy (of a built-in profile, say) under a new id. */
WardenProfile      *warden_profile_copy              (WardenProfile  *self,
                                                      const char     *new_id);
/* Pretty-printed JSON with a trailing newline; unknown keys kept. */
char               *warden_profile_to_data           (WardenProfile  *self,
                                                      gsize          *length);
/* Atomic: writes a temporary file and renames it over @file; the previous
 * content of @file, if any, is kept as "@file.bak". */
gboolean            warden_profile_save_to_file      (WardenProfile  *self,
                                                      GFile          *file,
                                                      GError        **error);

const char         *warden_profile_get_id            (WardenProfile  *self);
const char         *warden_profile_get_name          (WardenProfile  *self);
void                warden_profile_set_name          (WardenProfile  *self,
                                                      const char     *name);
/* The container image the profile's sessions run in, or NULL for Warden's
 * default; a name such as "node:20-slim" (warden_profile_image_is_valid()). */
const char         *warden_profile_get_image         (WardenProfile  *self);
gboolean            warden_profile_set_image         (WardenProfile  *self,
                                                      const char     *image);
gboolean            warden_profile_image_is_valid    (const char     *image);
const char         *warden_profile_get_description   (WardenProfile  *self);
void                warden_profile_set_description   (WardenProfile  *self,
                                                      const char     *description);
WardenMode          warden_profile_get_mode          (WardenProfile  *self);
void                warden_profile_set_mode          (WardenProfile  *self,
                                                      WardenMode      mode);
/* The "file-write" property, a WardenFileWrite. */
WardenFileWrite     warden_profile_get_file_write    (WardenProfile  *self);
void                warden_profile_set_file_write    (WardenProfile  *self,
                                                      WardenFileWrite rule);
/* The "check-nested" property: every program a command starts, at any
 * depth, is checked against the profile before it runs (the exec guard);
 * "nested": "off" in the file turns it off. */
gboolean            warden_profile_get_check_nested  (WardenProfile  *self);
void                warden_profile_set_check_nested  (WardenProfile  *self,
                                                      gboolean        check);
const char * const *warden_profile_get_allow         (WardenProfile  *self);
const char * const *warden_profile_get_deny          (WardenProfile  *self);
/* The "ask" list (the "ask" property): a command that matches one of these
 * asks even where an allow pattern matches and in allow-always mode; a deny
 * pattern still beats it. Empty for profiles without the key. */
const char * const *warden_profile_get_ask           (WardenProfile  *self);
/* Returns FALSE and sets @error for an invalid pattern; adding a pattern
 * that is there already is not an error and changes nothing. */
gboolean            warden_profile_add_allow         (WardenProfile  *self,
                                                      const char     *pattern,
                                                      GError        **error);
gboolean            warden_profile_add_deny          (WardenProfile  *self,
                                                      const char     *pattern,
                                                      GError        **error);
gboolean            warden_profile_add_ask           (WardenProfile  *self,
                                                      const char     *pattern,
                                                      GError        **error);
gboolean            warden_profile_remove_allow      (WardenProfile  *self,
                                                      const char     *pattern);
gboolean            warden_profile_remove_deny       (WardenProfile  *self,
                                                      const char     *pattern);
gboolean            warden_profile_remove_ask        (WardenProfile  *self,
                                                      const char     *pattern);
/* Replaces the whole list, in the order given (the order is the order they
 * are matched and shown in). Validates every pattern first: on an invalid
 * one, returns FALSE with @error naming it and changes nothing. Repeated
 * patterns keep their first place. */
gboolean            warden_profile_set_allow         (WardenProfile       *self,
                                                      const char * const  *patterns,
                                                      GError             **error);
gboolean            warden_profile_set_deny          (WardenProfile       *self,
                                                      const char * const  *patterns,
                                                      GError             **error);
gboolean            warden_profile_set_ask           (WardenProfile       *self,
                                                      const char * const  *patterns,
                                                      GError             **error);
/* The "network" section: which hosts the sandbox may reach (see
 * warden-network.h). A profile without one says nothing, and the
 * application's own setting decides (warden_profile_has_network()); setting
 * any of it makes one. The patterns are kept normalized (lowercase). */
gboolean            warden_profile_has_network       (WardenProfile  *self);
WardenNetworkMode   warden_profile_get_network_mode  (WardenProfile  *self);
void                warden_profile_set_network_mode  (WardenProfile     *self,
                                                      WardenNetworkMode  mode);
const char * const *warden_profile_get_network_allow (WardenProfile  *self);
const char * const *warden_profile_get_network_deny  (WardenProfile  *self);
gboolean            warden_profile_set_network_allow (WardenProfile       *self,
                                                      const char * const  *patterns,
                                                      GError             **error);
gboolean            warden_profile_set_network_deny  (WardenProfile       *self,
                                                      const char * const  *patterns,
                                                      GError             **error);
/* "Always allow" for a host; a pattern there already changes nothing. */
gboolean            warden_profile_add_network_allow (WardenProfile  *self,
                                                      const char     *pattern,
                                                      GError        **error);

/* Built-in profiles come from the GResource; the store refuses to save them
 * (warden_profile_save_to_file() can still export one). */
gboolean            warden_profile_get_builtin       (WardenProfile  *self);

G_END_DECLS
