/* warden-git-doors-private.h: the readers inside warden-git-doors.c, for tests
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "warden-git-doors.h"

G_BEGIN_DECLS

/* The first setting that @after (a git config file's text) adds to
 * @before (NULL: an empty file) and that is not known to be harmless:
 * "core.fsmonitor", "include.path", "filter.lfs.process"… NULL when there
 * is none. Only a plain subset of git's syntax is read: anything else
 * (continued lines, a setting on a section's line, escapes in a subsection
 * name) gives "" (not readable: treat as unsafe). */
char      *warden_git_config_find_unsafe (const char  *before,
                                          gsize        before_len,
                                          const char  *after,
                                          gsize        after_len);

/* The paths of the gitlinks (submodules) in the git index @data (every
 * path with @all), versions 2 to 4, SHA-1 or SHA-256. A split index sets
 * @shared_hash to the hex name of its shared index (sharedindex.HASH),
 * which holds more entries; when one of its gitlinks replaces an entry of
 * the shared index by position (its path is not written), @all_shared is
 * set: any path of the shared index may be a gitlink. NULL when @data is
 * not an index this reads. */
GPtrArray *warden_git_index_list_gitlinks (const guint8  *data,
                                           gsize          length,
                                           gboolean       all,
                                           char         **shared_hash,
                                           gboolean      *all_shared);

G_END_DECLS
