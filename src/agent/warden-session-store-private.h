/* warden-session-store-private.h: for the tests that inject faults
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "warden-session-store.h"

G_BEGIN_DECLS

/* Runs @sql on the store's own connection: a test makes it read-only
 * (PRAGMA query_only) or full (PRAGMA max_page_count) the way a disk would,
 * where root's permissions make the real thing impossible to arrange. */
gboolean warden_session_store_run_sql (WardenSessionStore  *self,
                                       const char          *sql,
                                       GError             **error);

/* The lease record a process would write (the tests write others' leases). */
char    *warden_session_store_owner_of_process (GPid                 pid,
                                                const char          *program);

/* A lock file of the kind a lease names, held by @fd: its name. */
char    *warden_session_store_take_lock        (WardenSessionStore  *self,
                                                int                 *fd);

G_END_DECLS
