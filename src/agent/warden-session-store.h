/* warden-session-store.h: sessions, messages, tool calls and approvals in SQLite
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "llm/warden-llm-usage.h"

G_BEGIN_DECLS

#define WARDEN_STORE_ERROR (warden_store_error_quark ())

typedef enum
{
  WARDEN_STORE_ERROR_OPEN,       /* the database cannot be opened or is not ours */
  WARDEN_STORE_ERROR_NEWER,      /* written by a newer Warden */
  WARDEN_STORE_ERROR_NOT_FOUND,
  WARDEN_STORE_ERROR_FAILED,     /* an SQL error; the message has SQLite's words */
  WARDEN_STORE_ERROR_IN_USE,     /* the session is open in another live Warden process */
  WARDEN_STORE_ERROR_BUSY,       /* the database stayed locked past the busy timeout */
  WARDEN_STORE_ERROR_READ_ONLY,  /* the file or its folder cannot be written */
  WARDEN_STORE_ERROR_FULL,       /* the disk (or the user's quota) is full */
  WARDEN_STORE_ERROR_CORRUPT,    /* damaged, or not a database: warden_session_store_move_aside() */
  WARDEN_STORE_ERROR_LOST,       /* this store held the session; its lease went elsewhere */
  WARDEN_STORE_ERROR_AMBIGUOUS,  /* an id prefix that more than one session starts with */
} WardenStoreError;

typedef struct
{
  char   *id;
  char   *title;
  gint64  created;      /* unix seconds */
  gint64  updated;
  char   *workspace;
  char   *profile;
  char   *provider;
  char   *model;
  char   *base_url;     /* the provider's endpoint; NULL: its default */
  char   *sandbox;      /* docker, bwrap, host */
  char   *image;
  /* idle, running, waiting, finished, stopped (by the user, or by a crash),
   * max-steps, failed */
  char   *state;
  /* What all the session's requests used and cost (sessions from before
   * schema 8: their tokens as counted then, their cost unknown). */
  WardenLlmUsage usage;
} WardenSessionRecord;

WardenSessionRecord *warden_session_record_new  (void);
void               warden_session_record_free (WardenSessionRecord *info);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenSessionRecord, warden_session_record_free)

/* A tool call and what became of it: the audit log. Every question is a
 * row: the model's calls, and what their commands asked while they ran. */
typedef struct
{
  char   *session_id;
  char   *tool_use_id;
  char   *name;
  char   *input_json;
  /* pending (waiting for the user), approved, running, finished,
   * interrupted (started, never finished: not run again), rejected, denied */
  char   *state;
  /* auto-allowed, approved, approved-always, rejected, denied, asked, none */
  char   *decision;
  char   *pattern;      /* the pattern that allowed or denied, or was saved */
  char   *reason;
  char   *feedback;     /* the user's words with a rejection */
  char   *result_json;  /* what the model was given */
  gint64  started;      /* unix milliseconds, 0 if not */
  gint64  finished;
  gint64  asked;        /* when it began to wait for the user, unix ms, 0 if it did not */
  gint64  answered;     /* when the user answered, unix ms */
  char   *answered_via; /* where: dialog, card, notification, cli; NULL if not asked */
  gboolean is_error;    /* the model was given its result as an error */
  gint64  seq;          /* the assistant message that made it, -1 unknown (rows before
                         * schema 6) */
  int     block;        /* which of its tool calls, from 0; -1 unknown */
  char   *diff;         /* a write or an edit: what it changed (or would, asked) as the user
                         * saw it; NULL for other tools */
  char   *kind;         /* a question asked while a command runs: "program" or "host";
                         * NULL for the model's own calls (their name says) */
  char   *parent_id;    /* that command's tool_use_id */
  char   *decided_by;   /* profile, user, session, none; NULL in rows before schema 6 */
  char   *ended_by;     /* why it ended, or why its run was cut before it started
                         * (warden_tool_end_to_string()); NULL: not, or a row before schema 7 */
  int     began;        /* 1 it started (a command handed to the sandbox), 0 it did not,
                         * -1 not known (rows before schema 7) */
} WardenToolCallRecord;

/* The reason a record read back carries when its row was not written by
 * Warden (its seal does not match): it is "pending" again, the user is asked. */
#define WARDEN_STORE_UNVERIFIED_REASON \
  "Warden cannot vouch for what its database says of this call (it was changed outside " \
  "Warden, or saved by an older version), so it asks again"

WardenToolCallRecord *warden_tool_call_record_new  (void);
void                  warden_tool_call_record_free (WardenToolCallRecord *record);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenToolCallRecord, warden_tool_call_record_free)

/* One request to the model: what the trace shows of it. */
typedef struct
{
  guint   seq;            /* the assistant message it produced */
  gint64  created;        /* unix milliseconds, when the answer was complete */
  gint64  latency_ms;     /* from request to complete answer, retries included */
  /* What it used and cost (rows from before schema 8: their tokens, the cost unknown) */
  WardenLlmUsage usage;
  /* The SHA-256 (hex) of the project instructions the request carried;
   * empty when it carried none, or in rows before schema 9. */
  char    instructions[65];
} WardenModelCallRecord;

/* A summary that replaces messages [0, upto) in what the model is sent
 * from then on. The messages themselves stay in the store. */
typedef struct
{
  guint   upto;
  char   *summary;
  gint64  created;        /* unix milliseconds */
  gint64  tokens_before;  /* the request's estimated size before, and after */
  gint64  tokens_after;
  char   *reason;         /* "auto", "manual", "overflow" (the provider said too long) */
} WardenCompactionRecord;

void warden_compaction_record_free (WardenCompactionRecord *record);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenCompactionRecord, warden_compaction_record_free)

#define WARDEN_TYPE_SESSION_STORE (warden_session_store_get_type ())

G_DECLARE_FINAL_TYPE (WardenSessionStore, warden_session_store, WARDEN, SESSION_STORE, GObject)

GQuark              warden_store_error_quark          (void);

/* @path NULL: $XDG_DATA_HOME/warden/warden.db. Creates or migrates the
 * schema; WAL journal. Writes are small and local: they run on the caller's
 * thread, each in its own transaction, durable before the call returns. */
WardenSessionStore *warden_session_store_new          (const char          *path,
                                                       GError             **error);
const char         *warden_session_store_get_path     (WardenSessionStore  *self);
/* A number that changes when another connection (warden-cli, another
 * window) commits to the database; this store's own writes leave it as it
 * is. Cheap: in WAL mode it reads shared memory, not the file. -1 on error. */
gint64              warden_session_store_get_data_version (WardenSessionStore *self);
/* How long a write waits for another process's lock before it fails with
 * WARDEN_STORE_ERROR_BUSY (default 5000 ms). */
void                warden_session_store_set_busy_timeout (WardenSessionStore *self,
                                                           guint               ms);

/* Renames a damaged database (and its -wal and -shm files) to
 * PATH.broken-DATE so that Warden starts with a new one; the old one stays
 * for recovery. @moved_to: the new name of the database file. */
gboolean            warden_session_store_move_aside   (const char          *path,
                                                       char               **moved_to,
                                                       GError             **error);

/* One process at a time drives a session. Takes the session's lease for this
 * process (host, boot id, PID namespace, pid and its start time; @program
 * names it in messages), atomically; a lease whose owner is known to be
 * gone (the same PID namespace of this boot without that process, or this
 * machine booted since) is taken over. Fails with WARDEN_STORE_ERROR_IN_USE,
 * saying who has it, while that owner lives or cannot be checked from here.
 * From then on each write of this store for the session (messages, tool
 * calls, the session row, host answers) is fenced: it fails with
 * WARDEN_STORE_ERROR_LOST, writing nothing, once the lease names another
 * owner or none. */
gboolean            warden_session_store_acquire      (WardenSessionStore  *self,
                                                       const char          *session_id,
                                                       const char          *program,
                                                       gboolean            *taken_over,
                                                       GError             **error);
/* Gives the lease back, if this process holds it. */
void                warden_session_store_release      (WardenSessionStore  *self,
                                                       const char          *session_id);
/* Frees the session whatever holds it: the way out when the owner is gone
 * but cannot be checked from here. An owner seen running here is not
 * released without @force (WARDEN_STORE_ERROR_IN_USE). @was_owner: who held
 * it, NULL if nobody; @maybe_alive: whether that owner may still run (it
 * then stops at its next write). */
gboolean            warden_session_store_release_any  (WardenSessionStore  *self,
                                                       const char          *session_id,
                                                       gboolean             force,
                                                       char               **was_owner,
                                                       gboolean            *maybe_alive,
                                                       GError             **error);
/* Who holds the lease ("warden-cli, process 123 on host"), or NULL. */
char               *warden_session_store_dup_owner    (WardenSessionStore  *self,
                                                       const char          *session_id);

/* A new id (a UUID) is set in @info when it has none. */
gboolean            warden_session_store_save_session (WardenSessionStore  *self,
                                                       WardenSessionRecord   *info,
                                                       GError             **error);
WardenSessionRecord  *warden_session_store_get_session  (WardenSessionStore  *self,
                                                       const char          *id,
                                                       GError             **error);
/* The whole id of the session @spec names: "last" (the one updated most
 * recently), an id, or the start of exactly one id. NOT_FOUND when none
 * matches; AMBIGUOUS, listing the candidates, when several do. */
char               *warden_session_store_resolve_id   (WardenSessionStore  *self,
                                                       const char          *spec,
                                                       GError             **error);
/* Newest first; a GPtrArray of WardenSessionRecord. */
GPtrArray          *warden_session_store_list_sessions (WardenSessionStore *self,
                                                        GError            **error);

/* The session and everything recorded of it. */
gboolean            warden_session_store_delete_session (WardenSessionStore *self,
                                                         const char         *id,
                                                         GError            **error);

/* Messages in their JSON form (warden_llm_message_to_json), numbered from 0. */
gboolean            warden_session_store_append_message (WardenSessionStore *self,
                                                         const char         *session_id,
                                                         guint               seq,
                                                         const char         *json,
                                                         gint64              input_tokens,
                                                         gint64              output_tokens,
                                                         GError            **error);
/* As append_message, with what the request used (@usage: requests 1), how
 * long the model took to give it and the SHA-256 of the project
 * instructions its request carried (NULL: none). */
gboolean            warden_session_store_append_model_message (WardenSessionStore *self,
                                                               const char         *session_id,
                                                               guint               seq,
                                                               const char         *json,
                                                               const WardenLlmUsage *usage,
                                                               gint64              latency_ms,
                                                               const char         *instructions,
                                                               GError            **error);
/* The model's answers, in order; a GPtrArray of WardenModelCallRecord (g_free). */
GPtrArray          *warden_session_store_list_model_calls (WardenSessionStore *self,
                                                           const char         *session_id,
                                                           GError            **error);
/* In order; a GPtrArray of strings. */
GPtrArray          *warden_session_store_load_messages  (WardenSessionStore *self,
                                                         const char         *session_id,
                                                         GError            **error);
/* The seq of each message load_messages() gives, in its order (a GArray of
 * gint64): the key of its row, for a message that names one. */
GArray             *warden_session_store_list_message_seqs (WardenSessionStore *self,
                                                            const char         *session_id,
                                                            GError            **error);

/* Summaries of the conversation (see WardenCompactionRecord), in the order
 * they were made; a GPtrArray of WardenCompactionRecord. The last one is
 * what a resumed session sends. */
gboolean            warden_session_store_add_compaction   (WardenSessionStore           *self,
                                                           const char                   *session_id,
                                                           const WardenCompactionRecord *record,
                                                           GError                      **error);
GPtrArray          *warden_session_store_list_compactions (WardenSessionStore           *self,
                                                           const char                   *session_id,
                                                           GError                      **error);

/* Inserts or replaces the record with the same session and tool_use_id. */
gboolean            warden_session_store_save_tool_call (WardenSessionStore        *self,
                                                         const WardenToolCallRecord *record,
                                                         GError                   **error);
WardenToolCallRecord *warden_session_store_get_tool_call (WardenSessionStore *self,
                                                          const char         *session_id,
                                                          const char         *tool_use_id,
                                                          GError            **error);
/* In the order they were first saved; a GPtrArray of WardenToolCallRecord. */
GPtrArray          *warden_session_store_list_tool_calls (WardenSessionStore *self,
                                                          const char         *session_id,
                                                          GError            **error);

/* The user's answer about a host a command of the session wanted (sealed
 * like a tool call, see above), and all of them: "host:port" ("[v6]:port")
 * → 1 allowed, 2 refused. A row not sealed by this Warden is left out. */
gboolean            warden_session_store_save_host_answer  (WardenSessionStore  *self,
                                                            const char          *session_id,
                                                            const char          *host,
                                                            guint                port,
                                                            gboolean             allowed,
                                                            GError             **error);
GHashTable         *warden_session_store_load_host_answers (WardenSessionStore  *self,
                                                            const char          *session_id,
                                                            GError             **error);

/* The workspace's files before a step that may change them (a write, an
 * edit, a command) or before a restore: a checkpoint of the workspace's
 * shadow repository (workspace/warden-checkpoints.h). Steps are numbered
 * from 1 per session, restores included, so that a restore can be undone
 * like a step. */
typedef struct
{
  char     *session_id;
  gint64    step;          /* from 1, in order */
  char     *tool_use_id;   /* the call it comes before; NULL: a restore */
  char     *commit;        /* the checkpoint: the files before it */
  char     *after;         /* a command's: the files after it ran; NULL before it ended */
  char     *changes_json;  /* what the command changed, from the two checkpoints:
                            * [{"kind": "created"|"changed"|"deleted", "path", "binary"}] */
  gint64    restored_to;   /* a restore: the step whose checkpoint it put back; else 0 */
  gboolean  told;          /* a restore: the model was told in a turn */
  gint64    created;       /* unix ms */
} WardenCheckpointRecord;

void warden_checkpoint_record_free (WardenCheckpointRecord *record);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenCheckpointRecord, warden_checkpoint_record_free)

/* Adds a checkpoint after the session's last; returns its step number, 0
 * on error. @restored_to: 0, or the step a restore put back. Fenced by
 * the lease, like a tool call. */
gint64              warden_session_store_add_checkpoint (WardenSessionStore  *self,
                                                         const char          *session_id,
                                                         const char          *tool_use_id,
                                                         const char          *commit,
                                                         gint64               restored_to,
                                                         GError             **error);
gboolean            warden_session_store_set_checkpoint_after (WardenSessionStore *self,
                                                               const char         *session_id,
                                                               gint64              step,
                                                               const char         *after,
                                                               const char         *changes_json,
                                                               GError            **error);
gboolean            warden_session_store_set_checkpoint_told (WardenSessionStore *self,
                                                              const char         *session_id,
                                                              gint64              step,
                                                              GError            **error);
/* In step order; a GPtrArray of WardenCheckpointRecord. Empty for a
 * session of a database from before checkpoints. */
GPtrArray          *warden_session_store_list_checkpoints (WardenSessionStore *self,
                                                           const char         *session_id,
                                                           GError            **error);

G_END_DECLS
