/* warden-restore.h: a session's checkpoints, as the front ends name and show them
 *
 * One owner for what a step number means, what a restore tells the model,
 * and how a list of changed files reads: the window, warden-cli and the
 * agent all use these.
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "warden-session-store.h"
#include "workspace/warden-checkpoints.h"

G_BEGIN_DECLS

/* The checkpoint @step names in the session: a step number ("3", as
 * "sessions show" prints it) or the id of the tool call it comes before.
 * NOT_FOUND (WARDEN_STORE_ERROR) says which steps there are. */
WardenCheckpointRecord *warden_restore_find_step   (WardenSessionStore  *store,
                                                    const char          *session_id,
                                                    const char          *step,
                                                    GError             **error);

/* WardenFileChange list <-> the JSON the store keeps, and the array
 * "sessions show --json" and the JSON Lines events give:
 * [{"kind": "created"|"changed"|"deleted", "path", "binary", "skipped"?}]. */
void                    warden_restore_add_changes       (JsonBuilder *b,
                                                          GPtrArray   *changes);
char                   *warden_restore_changes_to_json   (GPtrArray   *changes);
GPtrArray              *warden_restore_changes_from_json (const char  *json);

/* "created a.txt", "deleted b (binary)", one a line with @indent before
 * it, paths escaped (warden_printable()); a protected path that a restore
 * left as it is says so. "" for none. */
char                   *warden_restore_describe_changes  (GPtrArray   *changes,
                                                          const char  *indent);

/* Puts session @session_id's workspace back as it was before @step (a
 * record from warden_restore_find_step()) and records the restore as a
 * checkpoint of its own, to undo it. The caller holds the session's lease
 * and knows that nothing of the session runs. Blocking; the store is used
 * only after the files were restored (the thread question is the
 * caller's: the agent restores in a thread, then calls
 * warden_restore_record() on its own). @new_step: the restore's step. */
gboolean                warden_restore_run               (WardenSessionStore     *store,
                                                          const char             *session_id,
                                                          const char             *workspace,
                                                          WardenCheckpointRecord *step,
                                                          gint64                 *new_step,
                                                          GPtrArray             **changes,
                                                          GError                **error);
/* The restore's checkpoint in the store (@undo: the files before it). */
gint64                  warden_restore_record            (WardenSessionStore     *store,
                                                          const char             *session_id,
                                                          const char             *undo,
                                                          gint64                  restored_to,
                                                          GError                **error);

/* What the model reads in its next turn about restores it was not told of
 * yet (and marks them told); NULL with no error if there are none. */
char                   *warden_restore_take_note         (WardenSessionStore     *store,
                                                          const char             *session_id,
                                                          GError                **error);

G_END_DECLS
