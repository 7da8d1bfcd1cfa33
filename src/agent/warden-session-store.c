/* warden-session-store.c: sessions, messages, tool calls and approvals in SQLite
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define _GNU_SOURCE 1  /* F_OFD_SETLK, F_OFD_GETLK */

#include "config.h"

#define G_LOG_DOMAIN "warden-agent"

#include <glib/gi18n.h>

#include "warden-session-store.h"
#include "warden-session-store-private.h"

#include <glib/gstdio.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/warden-json.h"
#include "policy/warden-network.h"
#include "sandbox/warden-owner.h"

#define KEY_NAME "approvals.key"
#define BUSY_TIMEOUT_MS 5000
#define KEY_SIZE 32
/* What the fence's triggers raise: the lease went elsewhere. */
#define LEASE_LOST_WORDS "warden-lease-lost"

struct _WardenSessionStore
{
  GObject  parent_instance;
  sqlite3 *db;
  char    *path;
  guint8   key[KEY_SIZE];  /* seals approvals and answers; see load_key() */
  char    *me;             /* this process as a lease owner: see owner_record() */
  GHashTable *held;        /* session id -> the lease record it was taken with */
  char    *lost_id;        /* the session whose fence held last, for the message */
  char    *lost_to;
};

G_DEFINE_FINAL_TYPE (WardenSessionStore, warden_session_store, G_TYPE_OBJECT)

G_DEFINE_QUARK (warden-store-error-quark, warden_store_error)

static gboolean install_fence   (WardenSessionStore  *self,
                                 GError             **error);
static void     held_lease_free (gpointer             held);

/* Each entry takes the schema one version further; never edit one that shipped. */
static const char *migrations[] = {
  /* 1 */
  "CREATE TABLE sessions ("
  "  id TEXT PRIMARY KEY, title TEXT, created INTEGER, updated INTEGER,"
  "  workspace TEXT, profile TEXT, provider TEXT, model TEXT, sandbox TEXT, image TEXT,"
  "  state TEXT, input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0);"
  "CREATE TABLE messages ("
  "  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
  "  seq INTEGER NOT NULL, json TEXT NOT NULL, input_tokens INTEGER, output_tokens INTEGER,"
  "  created INTEGER, PRIMARY KEY (session_id, seq));"
  "CREATE TABLE tool_calls ("
  "  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
  "  tool_use_id TEXT NOT NULL, ord INTEGER, name TEXT, input_json TEXT, state TEXT,"
  "  decision TEXT, pattern TEXT, reason TEXT, feedback TEXT, result_json TEXT,"
  "  started INTEGER, finished INTEGER, PRIMARY KEY (session_id, tool_use_id));",
  /* 2: what the trace shows: the model's latency, how long approvals waited and
   * who answered them. */
  "ALTER TABLE messages ADD COLUMN latency_ms INTEGER;"
  "ALTER TABLE tool_calls ADD COLUMN asked INTEGER DEFAULT 0;"
  "ALTER TABLE tool_calls ADD COLUMN answered INTEGER DEFAULT 0;"
  "ALTER TABLE tool_calls ADD COLUMN answered_via TEXT;",
  /* 3: an HMAC over what a resumed session would act on without asking. */
  "ALTER TABLE tool_calls ADD COLUMN seal TEXT;",
  /* 4: a resume talks to the same endpoint; one process drives a session. */
  "ALTER TABLE sessions ADD COLUMN base_url TEXT;"
  "ALTER TABLE sessions ADD COLUMN owner TEXT;"
  "ALTER TABLE tool_calls ADD COLUMN is_error INTEGER DEFAULT 0;",
  /* 5: the user's answers about hosts hold for the whole session, resumed too. */
  "CREATE TABLE host_answers ("
  "  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
  "  host TEXT NOT NULL, port INTEGER NOT NULL, allowed INTEGER NOT NULL, seal TEXT,"
  "  PRIMARY KEY (session_id, host, port));",
  /* 6: every question is a row. Where a call stands in the conversation
   * (the assistant message and its tool call), so that a model repeating an
   * id does not take over the earlier call's record; what a write or an
   * edit changed, as the user saw it; the programs and hosts a command
   * asked about, with their command (parent_id) and who decided. The host
   * decisions that older rows kept inside their result become rows of their
   * own (see migrate_hosts ()). */
  "ALTER TABLE tool_calls ADD COLUMN seq INTEGER;"
  "ALTER TABLE tool_calls ADD COLUMN block INTEGER;"
  "ALTER TABLE tool_calls ADD COLUMN diff TEXT;"
  "ALTER TABLE tool_calls ADD COLUMN kind TEXT;"
  "ALTER TABLE tool_calls ADD COLUMN parent_id TEXT;"
  "ALTER TABLE tool_calls ADD COLUMN decided_by TEXT;",
  /* 7: why a call ended, and whether it started: an approved command whose
   * run was cut before it started is still approved, and runs on resume. */
  ("ALTER TABLE tool_calls ADD COLUMN ended_by TEXT;"
   "ALTER TABLE tool_calls ADD COLUMN began INTEGER;"),
  /* 8: what each request and each session used and cost: cache reads and
   * writes, the cost where it is known, and how many requests said nothing
   * (unknown, not 0). Earlier requests count as they were counted, their
   * cost unknown: a message row with NULL cost and unpriced. */
  ("ALTER TABLE sessions ADD COLUMN cache_read_tokens INTEGER DEFAULT 0;"
   "ALTER TABLE sessions ADD COLUMN cache_write_tokens INTEGER DEFAULT 0;"
   "ALTER TABLE sessions ADD COLUMN cost REAL DEFAULT 0;"
   "ALTER TABLE sessions ADD COLUMN requests INTEGER DEFAULT 0;"
   "ALTER TABLE sessions ADD COLUMN unreported INTEGER DEFAULT 0;"
   "ALTER TABLE sessions ADD COLUMN unpriced INTEGER DEFAULT 0;"
   "ALTER TABLE messages ADD COLUMN cache_read_tokens INTEGER;"
   "ALTER TABLE messages ADD COLUMN cache_write_tokens INTEGER;"
   "ALTER TABLE messages ADD COLUMN cost REAL;"
   "ALTER TABLE messages ADD COLUMN unreported INTEGER;"
   "UPDATE sessions SET requests = MAX ((SELECT count(*) FROM messages m "
   "  WHERE m.session_id = sessions.id AND m.latency_ms IS NOT NULL), "
   "  CASE WHEN input_tokens > 0 OR output_tokens > 0 THEN 1 ELSE 0 END);"
   "UPDATE sessions SET unpriced = requests;"),
  /* 9: long sessions. Which version of the project's instructions each
   * request carried (their SHA-256), and the summaries that replace older
   * messages in what the model is sent: the messages themselves stay. */
  ("ALTER TABLE messages ADD COLUMN instructions TEXT;"
   "CREATE TABLE compactions ("
   "  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
   "  ord INTEGER NOT NULL, upto INTEGER NOT NULL, summary TEXT NOT NULL, created INTEGER,"
   "  tokens_before INTEGER, tokens_after INTEGER, reason TEXT,"
   "  PRIMARY KEY (session_id, ord));"),
  /* 10: the workspace's files before each step that may change them (a
   * commit of the workspace's shadow repository, see warden-checkpoints.h),
   * numbered per session; after a command, what it changed; the user's
   * restores, which the model is told of once. */
  ("CREATE TABLE checkpoints ("
   "  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
   "  step INTEGER NOT NULL, tool_use_id TEXT, commit_id TEXT NOT NULL, after_id TEXT,"
   "  changes TEXT, restored_to INTEGER DEFAULT 0, told INTEGER DEFAULT 0, created INTEGER,"
   "  PRIMARY KEY (session_id, step));"),
};

/* What SQLite's answer means for the user, and what they can do. */
static void
set_store_error (WardenSessionStore  *self,
                 GError             **error,
                 int                  code,
                 const char          *what,
                 const char          *words)
{
  if (code == SQLITE_CONSTRAINT_TRIGGER && g_strcmp0 (words, LEASE_LOST_WORDS) == 0)
    {
      if (self->lost_to != NULL)
        g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_LOST,
                     /* Translators: "Could not <save a message>: this Warden no longer holds
                      * session <id>: <warden-cli, process 12 on laptop> has it now; …" */
                     _("Could not %s: this Warden no longer holds session “%s”: %s has it now; "
                       "this Warden stops here and runs nothing more of it"),
                     what, self->lost_id, self->lost_to);
      else
        g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_LOST,
                     _("Could not %s: this Warden no longer holds session “%s” (it was released "
                       "with “warden-cli sessions release”); this Warden stops here and runs "
                       "nothing more of it"), what, self->lost_id);
      return;
    }
  switch (code & 0xff)
    {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_BUSY,
                   /* Translators: "Could not <save the session>: <file> …" */
                   _("Could not %s: %s stayed locked by another Warden process; try again, and "
                     "if it stays locked close the other Warden windows and warden-cli runs"),
                   what, self->path);
      break;
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_CANTOPEN:
      g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_READ_ONLY,
                   _("Could not %s: %s cannot be written (%s); check that its disk is not "
                     "mounted read-only and that the file and its folder belong to you"),
                   what, self->path, words);
      break;
    case SQLITE_FULL:
      g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_FULL,
                   _("Could not %s: the disk that holds %s is full; free some space and try "
                     "again (what was saved before is kept)"),
                   what, self->path);
      break;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_CORRUPT,
                   _("Could not %s: %s is damaged or is not a Warden database (%s); move it "
                     "aside with “warden-cli sessions move-aside” to start with a new one "
                     "(the old file is kept)"),
                   what, self->path, words);
      break;
    default:
      g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_FAILED,
                   /* Translators: "Could not <save the session> in <file>: <SQLite's words>" */
                   _("Could not %s in %s: %s"), what, self->path, words);
      break;
    }
}

static gboolean
set_sql_error (WardenSessionStore  *self,
               GError             **error,
               const char          *what)
{
  set_store_error (self, error, sqlite3_extended_errcode (self->db), what,
                   sqlite3_errmsg (self->db));
  return FALSE;
}

static gboolean
exec_sql (WardenSessionStore  *self,
          const char          *sql,
          GError             **error)
{
  char *msg = NULL;
  int rc = sqlite3_exec (self->db, sql, NULL, NULL, &msg);

  if (rc != SQLITE_OK)
    {
      set_store_error (self, error, sqlite3_extended_errcode (self->db), _("update the database"),
                       msg ? msg : sqlite3_errstr (rc));
      sqlite3_free (msg);
      return FALSE;
    }
  return TRUE;
}

static char *compute_seal (WardenSessionStore         *self,
                           const WardenToolCallRecord *r);
static gboolean insert_host_rows (WardenSessionStore  *self,
                                  const char          *session_id,
                                  const char          *parent_id,
                                  gint64               ord,
                                  const char          *input_json,
                                  const char          *result_json,
                                  gint64               time,
                                  GError             **error);

/* Schema 6: a command's host decisions were kept inside its result
 * ("network": [{host, port, decision, by, pattern?, feedback?, time}]);
 * each becomes a row of its own, as Warden writes them now, so that
 * whatever reads the log reads rows. */
static gboolean
migrate_hosts (WardenSessionStore  *self,
               GError             **error)
{
  sqlite3_stmt *stmt = NULL;
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  int rc;

  if (sqlite3_prepare_v2 (self->db, "SELECT session_id, tool_use_id, ord, input_json, "
                          "result_json, started FROM tool_calls WHERE name = 'exec' AND "
                          "instr (result_json, '\"network\"') > 0", -1, &stmt,
                          NULL) != SQLITE_OK)
    return set_sql_error (self, error, _("update the database"));
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      char **row = g_new0 (char *, 7);

      for (int i = 0; i < 6; i++)
        row[i] = g_strdup ((const char *) sqlite3_column_text (stmt, i));
      g_ptr_array_add (rows, row);
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    return set_sql_error (self, error, _("update the database"));
  for (guint i = 0; i < rows->len; i++)
    {
      char **row = g_ptr_array_index (rows, i);

      if (!insert_host_rows (self, row[0], row[1], row[2] ? g_ascii_strtoll (row[2], NULL, 10) : 0,
                             row[3], row[4], row[5] ? g_ascii_strtoll (row[5], NULL, 10) : 0,
                             error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
migrate (WardenSessionStore  *self,
         GError             **error)
{
  /* The version is read inside the write transaction: a window and a
   * warden-cli opening a new database at the same moment would otherwise
   * both run the same step, and one would fail. */
  for (;;)
    {
      sqlite3_stmt *stmt = NULL;
      g_autofree char *sql = NULL;
      int version = 0;

      if (!exec_sql (self, "BEGIN IMMEDIATE", error))
        return FALSE;
      if (sqlite3_prepare_v2 (self->db, "PRAGMA user_version", -1, &stmt, NULL) != SQLITE_OK)
        {
          set_sql_error (self, error, _("read the schema version"));
          exec_sql (self, "ROLLBACK", NULL);
          return FALSE;
        }
      if (sqlite3_step (stmt) == SQLITE_ROW)
        version = sqlite3_column_int (stmt, 0);
      sqlite3_finalize (stmt);

      if (version > (int) G_N_ELEMENTS (migrations))
        {
          exec_sql (self, "ROLLBACK", NULL);
          g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_NEWER,
                       _("%s was written by a newer Warden (schema %d); update Warden to open it"),
                       self->path, version);
          return FALSE;
        }
      if (version == (int) G_N_ELEMENTS (migrations))
        return exec_sql (self, "COMMIT", error);

      sql = g_strdup_printf ("PRAGMA user_version = %d; COMMIT;", version + 1);
      if (!exec_sql (self, migrations[version], error) ||
          (version + 1 == 6 && !migrate_hosts (self, error)) ||
          !exec_sql (self, sql, error))
        {
          exec_sql (self, "ROLLBACK", NULL);
          return FALSE;
        }
    }
}

static void
warden_session_store_finalize (GObject *object)
{
  WardenSessionStore *self = WARDEN_SESSION_STORE (object);

  if (self->db != NULL)
    sqlite3_close (self->db);
  g_free (self->path);
  g_free (self->me);
  g_hash_table_unref (self->held);
  g_free (self->lost_id);
  g_free (self->lost_to);
  memset (self->key, 0, sizeof self->key);
  G_OBJECT_CLASS (warden_session_store_parent_class)->finalize (object);
}

static void
warden_session_store_class_init (WardenSessionStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = warden_session_store_finalize;
}

static void
warden_session_store_init (WardenSessionStore *self)
{
  self->held = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      held_lease_free);
}

/* Takes group and other permissions away from a file or folder of ours; a
 * symlink or someone else's file is left alone. */
static void
tighten (const char *path,
         mode_t      mode)
{
  GStatBuf st;

  if (g_lstat (path, &st) != 0 || S_ISLNK (st.st_mode) || st.st_uid != getuid () ||
      (st.st_mode & 077) == 0)
    return;
  if (g_chmod (path, mode) != 0)
    g_warning ("Could not make %s private: %s", path, g_strerror (errno));
}

/* The key of the seals: 32 random bytes in a 0600 file next to the database.
 *
 * Why there, and not in the keyring: the key must be out of reach of every
 * sandbox, and the database's folder already is. Warden refuses a workspace
 * that contains it (warden_workspace_check(), with the store's own folder
 * added), the bwrap and Docker sandboxes see nothing of the home folder but
 * the workspace, and the folder is 0700. Whoever can read the key can write
 * the database anyway, so a second place would add nothing against them;
 * the seal is against the writer that reaches only the database (a copy, a
 * mount of the one file, an edit with sqlite3 from a workspace that was
 * allowed before this check). The keyring would make every CLI run over ssh
 * or in CI ask again. The host backend confines nothing, so it protects
 * nothing there: it warns at the start of each session instead. */
static gboolean
load_key (WardenSessionStore  *self,
          const char          *dir,
          GError             **error)
{
  g_autofree char *path = g_build_filename (dir, KEY_NAME, NULL);
  struct stat st;
  gssize n = 0;
  int fd;

  fd = g_open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC, 0);
  if (fd < 0 && errno == ENOENT)
    {
      /* Written whole under another name, then linked in place: a Warden
       * starting at the same moment reads either no key or all of one. */
      g_autofree char *tmp = g_build_filename (dir, KEY_NAME ".XXXXXX", NULL);
      guint8 fresh[KEY_SIZE];
      int tmp_fd, saved = EIO;
      gboolean ok;

      if (getrandom (fresh, sizeof fresh, 0) != sizeof fresh)
        {
          g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_OPEN,
                       _("Could not make a key for %s: %s"), path, g_strerror (errno));
          return FALSE;
        }
      tmp_fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0600);
      ok = tmp_fd >= 0 && write (tmp_fd, fresh, sizeof fresh) == sizeof fresh &&
           fsync (tmp_fd) == 0;
      if (!ok)
        saved = errno;
      else if (link (tmp, path) != 0)
        {
          saved = errno;
          ok = FALSE;
        }
      if (tmp_fd >= 0)
        {
          close (tmp_fd);
          g_unlink (tmp);
        }
      explicit_bzero (fresh, sizeof fresh);
      /* Ours, or another Warden's that won the race: read what is there. */
      if (ok || saved == EEXIST)
        fd = g_open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC, 0);
      else
        errno = saved;
    }
  if (fd < 0 && errno != ELOOP)
    {
      g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_OPEN,
                   _("Could not read the key %s: %s"), path, g_strerror (errno));
      return FALSE;
    }
  /* A symlink (ELOOP with O_NOFOLLOW) could point at a key someone knows. */
  if (fd < 0 || fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_uid != getuid () ||
      (n = read (fd, self->key, sizeof self->key)) != sizeof self->key)
    {
      if (fd >= 0)
        close (fd);
      g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_OPEN,
                   _("The key %s is not a file of %d bytes that belongs to you; remove it, "
                     "and Warden makes a new one (approvals that wait will be asked again)"),
                   path, KEY_SIZE);
      return FALSE;
    }
  if ((st.st_mode & 077) != 0 && fchmod (fd, 0600) != 0)
    g_warning ("Could not make %s private: %s", path, g_strerror (errno));
  close (fd);
  return TRUE;
}

/* Switching a new database to WAL takes its write lock, and SQLite answers
 * SQLITE_BUSY at once, without its busy handler, when another connection is
 * switching it too: the window and warden-cli started at the same moment on
 * a new database (measured: 12 in 6,000 openings of six at once). So wait
 * here, as long as the busy timeout would. */
static gboolean
set_wal (WardenSessionStore  *self,
         GError             **error)
{
  gint64 deadline = g_get_monotonic_time () + BUSY_TIMEOUT_MS * G_TIME_SPAN_MILLISECOND;

  for (;;)
    {
      g_autoptr(GError) local = NULL;

      if (exec_sql (self, "PRAGMA journal_mode = WAL", &local))
        return TRUE;
      if (!g_error_matches (local, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_BUSY) ||
          g_get_monotonic_time () >= deadline)
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      g_usleep (5 * G_TIME_SPAN_MILLISECOND);
    }
}

WardenSessionStore *
warden_session_store_new (const char  *path,
                          GError     **error)
{
  g_autoptr(WardenSessionStore) self = g_object_new (WARDEN_TYPE_SESSION_STORE, NULL);
  g_autofree char *dir = NULL;
  static const char * const suffixes[] = { "", "-wal", "-shm", "-journal" };
  int fd;

  self->path = path ? g_strdup (path)
                    : g_build_filename (g_get_user_data_dir (), "warden", "warden.db", NULL);
  dir = g_path_get_dirname (self->path);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;

      g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_OPEN,
                   _("Could not create the folder %s: %s"), dir, g_strerror (saved));
      return NULL;
    }

  /* Transcripts, commands and their output are the user's alone. Only our
   * own folder is tightened: a database put elsewhere keeps its folder as
   * it is. SQLite gives -wal and -shm the mode of the database, so creating
   * that 0600 is enough for new files. */
  if (path == NULL)
    tighten (dir, 0700);
  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      g_autofree char *file = g_strconcat (self->path, suffixes[i], NULL);

      tighten (file, 0600);
    }
  fd = g_open (self->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0)
    close (fd);

  if (!load_key (self, dir, error))
    return NULL;

  if (sqlite3_open_v2 (self->path, &self->db,
                       SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                       NULL) != SQLITE_OK)
    {
      if (self->db == NULL)
        g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_OPEN,
                     _("Could not open %s: out of memory"), self->path);
      else
        set_sql_error (self, error, _("open the database"));
      return NULL;
    }
  sqlite3_busy_timeout (self->db, BUSY_TIMEOUT_MS);

  /* WAL: readers (another window, warden-cli sessions) never block writers;
   * synchronous=FULL: a committed approval survives a power cut. What fails
   * here says why: a full or read-only disk is not a damaged database. */
  if (!set_wal (self, error) ||
      !exec_sql (self, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;", error) ||
      !migrate (self, error) || !install_fence (self, error))
    return NULL;

  return g_steal_pointer (&self);
}

const char *
warden_session_store_get_path (WardenSessionStore *self)
{
  return self->path;
}

gint64
warden_session_store_get_data_version (WardenSessionStore *self)
{
  sqlite3_stmt *stmt = NULL;
  gint64 version = -1;

  g_return_val_if_fail (WARDEN_IS_SESSION_STORE (self), -1);

  if (sqlite3_prepare_v2 (self->db, "PRAGMA data_version", -1, &stmt, NULL) == SQLITE_OK &&
      sqlite3_step (stmt) == SQLITE_ROW)
    version = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  return version;
}

gboolean
warden_session_store_run_sql (WardenSessionStore  *self,
                              const char          *sql,
                              GError             **error)
{
  return exec_sql (self, sql, error);
}

void
warden_session_store_set_busy_timeout (WardenSessionStore *self,
                                       guint               ms)
{
  sqlite3_busy_timeout (self->db, (int) MIN (ms, G_MAXINT));
}

gboolean
warden_session_store_move_aside (const char  *path,
                                 char       **moved_to,
                                 GError     **error)
{
  static const char * const suffixes[] = { "", "-wal", "-shm", "-journal" };
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%d-%H%M%S");
  g_autofree char *db = path ? g_strdup (path)
                             : g_build_filename (g_get_user_data_dir (), "warden", "warden.db",
                                                 NULL);
  g_autofree char *target = g_strdup_printf ("%s.broken-%s", db, stamp);

  if (!g_file_test (db, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_NOT_FOUND,
                   _("There is no database at %s to move aside"), db);
      return FALSE;
    }
  /* The database first: without it, stray -wal and -shm files are ignored. */
  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      g_autofree char *from = g_strconcat (db, suffixes[i], NULL);
      g_autofree char *to = g_strconcat (target, suffixes[i], NULL);

      if (g_rename (from, to) != 0 && (i == 0 || errno != ENOENT))
        {
          int saved = errno;

          g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_FAILED,
                       _("Could not move %s to %s: %s"), from, to, g_strerror (saved));
          return FALSE;
        }
    }
  if (moved_to != NULL)
    *moved_to = g_steal_pointer (&target);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* The lease: HOST \t PID \t START \t PROGRAM \t BOOT \t PIDNS \t MACHINE \t LOCK.
 *
 * LOCK names a file in the "leases" folder next to the database that the
 * owner holds an open-file-description lock on for as long as it holds the
 * session: the kernel (or the file server) drops it when the owner dies,
 * and any process that sees the file can ask, whatever its PID namespace
 * or host name. Where no lock could be taken (LOCK is empty, or the file
 * system has no locks), the rest decides: a pid means something only in its
 * PID namespace of one boot, and the record says which (the kernel's boot
 * id, the namespace's inode), so that a reader elsewhere knows it cannot
 * check. The start time (from /proc/PID/stat) tells a live owner from a new
 * process that got its pid. The first four fields are those older Wardens
 * wrote, so that they keep reading them. */

#define LEASE_FIELDS 8

typedef struct
{
  char *me;    /* the lease record it was taken with */
  char *lock;  /* its lock file, or NULL */
  int   fd;    /* holding the lock, or -1 */
} HeldLease;

static void
held_lease_free (gpointer data)
{
  HeldLease *held = data;

  if (held->fd >= 0)
    close (held->fd);
  if (held->lock != NULL)
    g_unlink (held->lock);
  g_free (held->lock);
  g_free (held->me);
  g_free (held);
}

static char *
lock_path (WardenSessionStore *self,
           const char         *token)
{
  g_autofree char *dir = g_path_get_dirname (self->path);

  return g_build_filename (dir, "leases", token, NULL);
}

/* A new lock file, locked: its name, with @fd holding it; NULL where this
 * file system gives no lock. */
static char *
take_lock (WardenSessionStore *self,
           int                *fd)
{
  g_autofree char *token = g_uuid_string_random ();
  g_autofree char *path = lock_path (self, token);
  g_autofree char *dir = g_path_get_dirname (path);
  struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

  *fd = -1;
  if (g_mkdir_with_parents (dir, 0700) != 0)
    return NULL;
  *fd = g_open (path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (*fd < 0)
    return NULL;
  if (fcntl (*fd, F_OFD_SETLK, &fl) != 0)
    {
      close (*fd);
      *fd = -1;
      g_unlink (path);
      return NULL;
    }
  return g_steal_pointer (&token);
}

/* The lease record of process @pid as seen from here: its owner record
 * (sandbox/warden-owner.h, shared with the sandboxes' containers and
 * control groups), then the lock. */
static char *
owner_record (pid_t       pid,
              const char *program)
{
  g_autofree char *record = warden_owner_record_of_process ((GPid) pid, program);

  return g_strconcat (record, "\t", NULL);
}

char *
warden_session_store_owner_of_process (GPid        pid,
                                       const char *program)
{
  return owner_record ((pid_t) pid, program);
}

char *
warden_session_store_take_lock (WardenSessionStore *self,
                                int                *fd)
{
  return take_lock (self, fd);
}

static const char *
lease_me (WardenSessionStore *self,
          const char         *program,
          const char         *lock)
{
  g_autofree char *record = owner_record (getpid (), program);

  g_free (self->me);
  self->me = g_strconcat (record, lock ? lock : "", NULL);
  return self->me;
}

/* The same process: host, pid, start time, boot and PID namespace. The
 * program name is for messages only. A record without the namespace is
 * nobody's. */
static gboolean
same_owner (const char *a,
            const char *b)
{
  g_auto(GStrv) x = NULL;
  g_auto(GStrv) y = NULL;

  if (a == NULL || b == NULL)
    return FALSE;
  x = g_strsplit (a, "\t", -1);
  y = g_strsplit (b, "\t", -1);
  if (g_strv_length (x) != LEASE_FIELDS || g_strv_length (y) != LEASE_FIELDS)
    return FALSE;
  return warden_owner_same (a, b);
}

typedef enum
{
  OWNER_GONE,
  OWNER_ALIVE,    /* seen here */
  OWNER_UNKNOWN,  /* cannot be told from here: taken to be alive */
} OwnerLife;

/* Asks the kernel, or the file server, whether the owner's lock is held. */
static OwnerLife
lock_life (WardenSessionStore *self,
           const char         *token)
{
  g_autofree char *path = NULL;
  struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
  int fd;
  int rc;

  if (token[0] == '\0' || strchr (token, '/') != NULL || token[0] == '.')
    return OWNER_UNKNOWN;
  path = lock_path (self, token);
  fd = g_open (path, O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0);
  if (fd < 0)
    /* Made before the lease was written, removed after it was given back. */
    return errno == ENOENT ? OWNER_GONE : OWNER_UNKNOWN;
  rc = fcntl (fd, F_OFD_GETLK, &fl);
  close (fd);
  if (rc != 0)
    return OWNER_UNKNOWN;
  return fl.l_type == F_UNLCK ? OWNER_GONE : OWNER_ALIVE;
}

static OwnerLife
owner_life (WardenSessionStore *self,
            const char         *owner)
{
  g_auto(GStrv) f = g_strsplit (owner, "\t", -1);
  OwnerLife life;

  /* Written by a Warden that did not say where it ran, or not by Warden. */
  if (g_strv_length (f) != LEASE_FIELDS)
    return OWNER_UNKNOWN;
  if ((life = lock_life (self, f[7])) != OWNER_UNKNOWN)
    return life;
  switch (warden_owner_life (owner))
    {
    case WARDEN_OWNER_GONE:
      return OWNER_GONE;
    case WARDEN_OWNER_ALIVE:
      return OWNER_ALIVE;
    case WARDEN_OWNER_UNKNOWN:
    default:
      return OWNER_UNKNOWN;
    }
}

static gboolean
owner_alive (WardenSessionStore *self,
             const char         *owner)
{
  return owner_life (self, owner) != OWNER_GONE;
}

static char *
describe_owner (const char *owner)
{
  return warden_owner_describe (owner);
}

/* The fence, called by the triggers of fence_sql for each row written: TRUE
 * when the row's session is one this store holds and its lease names
 * another owner now (or none). */
static void
lease_lost_func (sqlite3_context  *ctx,
                 int               argc,
                 sqlite3_value   **argv)
{
  WardenSessionStore *self = sqlite3_user_data (ctx);
  const char *id = (const char *) sqlite3_value_text (argv[0]);
  const char *owner = (const char *) sqlite3_value_text (argv[1]);
  HeldLease *held;

  if (id == NULL || (held = g_hash_table_lookup (self->held, id)) == NULL ||
      same_owner (owner, held->me))
    {
      sqlite3_result_int (ctx, 0);
      return;
    }
  g_free (self->lost_id);
  self->lost_id = g_strdup (id);
  g_free (self->lost_to);
  self->lost_to = owner != NULL ? describe_owner (owner) : NULL;
  sqlite3_result_int (ctx, 1);
}

/* Each write to a session's rows checks, in the write transaction itself,
 * that this store still holds the session it holds: nothing is written
 * after the lease went elsewhere. Temporary triggers: they live with this
 * connection and are not part of the database. The sessions row is fenced
 * for what the agent writes, not for the lease column. */
static gboolean
install_fence (WardenSessionStore  *self,
               GError             **error)
{
  static const char * const tables[] = { "messages", "tool_calls", "host_answers",
                                         "compactions", "checkpoints" };
  static const char * const ops[] = { "INSERT", "UPDATE" };

  if (sqlite3_create_function (self->db, "warden_lease_lost", 2, SQLITE_UTF8, self,
                               lease_lost_func, NULL, NULL) != SQLITE_OK)
    return set_sql_error (self, error, _("open the database"));
  for (guint i = 0; i < G_N_ELEMENTS (tables); i++)
    for (guint j = 0; j < G_N_ELEMENTS (ops); j++)
      {
        g_autofree char *sql =
          g_strdup_printf ("CREATE TEMP TRIGGER IF NOT EXISTS warden_fence_%s_%u BEFORE %s "
                           "ON main.%s WHEN warden_lease_lost (NEW.session_id, (SELECT owner "
                           "FROM main.sessions WHERE id = NEW.session_id)) "
                           "BEGIN SELECT RAISE (ABORT, '" LEASE_LOST_WORDS "'); END;",
                           tables[i], j, ops[j], tables[i]);

        if (!exec_sql (self, sql, error))
          return FALSE;
      }
  return exec_sql (self,
                   "CREATE TEMP TRIGGER IF NOT EXISTS warden_fence_sessions BEFORE UPDATE OF "
                   "title, updated, workspace, profile, provider, model, sandbox, image, state, "
                   "input_tokens, output_tokens, base_url ON main.sessions "
                   "WHEN warden_lease_lost (NEW.id, OLD.owner) "
                   "BEGIN SELECT RAISE (ABORT, '" LEASE_LOST_WORDS "'); END;", error);
}

static char *
read_owner (WardenSessionStore  *self,
            const char          *session_id,
            gboolean            *found,
            GError             **error)
{
  sqlite3_stmt *stmt = NULL;
  char *owner = NULL;
  int rc;

  *found = FALSE;
  if (sqlite3_prepare_v2 (self->db, "SELECT owner FROM sessions WHERE id = ?", -1, &stmt,
                          NULL) != SQLITE_OK)
    {
      set_sql_error (self, error, _("read the session"));
      return NULL;
    }
  sqlite3_bind_text (stmt, 1, session_id, -1, SQLITE_TRANSIENT);
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    {
      *found = TRUE;
      if (sqlite3_column_text (stmt, 0) != NULL)
        owner = g_strdup ((const char *) sqlite3_column_text (stmt, 0));
    }
  else if (rc != SQLITE_DONE)
    set_sql_error (self, error, _("read the session"));
  else
    g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_NOT_FOUND,
                 _("There is no session “%s”: warden-cli sessions list shows them"),
                 session_id);
  sqlite3_finalize (stmt);
  return owner;
}

gboolean
warden_session_store_acquire (WardenSessionStore  *self,
                              const char          *session_id,
                              const char          *program,
                              gboolean            *taken_over,
                              GError             **error)
{
  g_autofree char *owner = NULL;
  g_autofree char *lock = NULL;
  g_autofree char *old_lock = NULL;
  const char *me;
  sqlite3_stmt *stmt = NULL;
  gboolean found = FALSE;
  gboolean ok;
  HeldLease *held;
  int fd = -1;

  if (taken_over != NULL)
    *taken_over = FALSE;
  /* Locked before the lease names it: whoever reads the lease finds the
   * lock held. A lock this process holds for the session already stays. */
  held = g_hash_table_lookup (self->held, session_id);
  if (held == NULL || held->lock == NULL)
    lock = take_lock (self, &fd);
  me = lease_me (self, program, held != NULL && held->lock != NULL
                                ? strrchr (held->me, '\t') + 1 : lock);
  /* Read and written in one write transaction: of two processes that open
   * the session at the same moment, the second sees the first's lease. */
  if (!exec_sql (self, "BEGIN IMMEDIATE", error))
    return FALSE;
  owner = read_owner (self, session_id, &found, error);
  if (!found)
    {
      exec_sql (self, "ROLLBACK", NULL);
      goto failed;
    }
  if (owner != NULL && !same_owner (owner, me) && owner_alive (self, owner))
    {
      g_autofree char *who = describe_owner (owner);

      exec_sql (self, "ROLLBACK", NULL);
      g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_IN_USE,
                   _("Session “%s” is open in another Warden (%s); close it there or let it "
                     "finish, then try again. If that Warden is gone and this one cannot "
                     "tell (it ran in a container, or under another or an old host name), "
                     "“warden-cli sessions release %s” frees the session"),
                   session_id, who, session_id);
      goto failed;
    }
  if (taken_over != NULL)
    *taken_over = owner != NULL && !same_owner (owner, me);
  /* A gone owner's lock file is left to whoever takes the session over. */
  if (owner != NULL && !same_owner (owner, me))
    {
      g_auto(GStrv) f = g_strsplit (owner, "\t", -1);

      if (g_strv_length (f) == LEASE_FIELDS && f[7][0] != '\0' && f[7][0] != '.' &&
          strchr (f[7], '/') == NULL)
        old_lock = lock_path (self, f[7]);
    }
  if (sqlite3_prepare_v2 (self->db, "UPDATE sessions SET owner = ? WHERE id = ?", -1, &stmt,
                          NULL) != SQLITE_OK)
    {
      set_sql_error (self, error, _("open the session"));
      exec_sql (self, "ROLLBACK", NULL);
      goto failed;
    }
  sqlite3_bind_text (stmt, 1, me, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 2, session_id, -1, SQLITE_TRANSIENT);
  ok = sqlite3_step (stmt) == SQLITE_DONE;
  if (!ok)
    set_sql_error (self, error, _("open the session"));
  sqlite3_finalize (stmt);
  if (!ok)
    {
      exec_sql (self, "ROLLBACK", NULL);
      goto failed;
    }
  if (!exec_sql (self, "COMMIT", error))
    {
      exec_sql (self, "ROLLBACK", NULL);
      goto failed;
    }
  if (old_lock != NULL)
    g_unlink (old_lock);
  /* From now on every write for it is fenced on this lease. */
  if (held != NULL)
    {
      g_free (held->me);
      held->me = g_strdup (me);
      if (lock != NULL)
        {
          held->lock = lock_path (self, lock);
          held->fd = fd;
        }
    }
  else
    {
      held = g_new0 (HeldLease, 1);
      held->me = g_strdup (me);
      held->lock = lock != NULL ? lock_path (self, lock) : NULL;
      held->fd = fd;
      g_hash_table_replace (self->held, g_strdup (session_id), held);
    }
  return TRUE;

failed:
  if (lock != NULL)
    {
      g_autofree char *path = lock_path (self, lock);

      close (fd);
      g_unlink (path);
    }
  return FALSE;
}

void
warden_session_store_release (WardenSessionStore *self,
                              const char         *session_id)
{
  g_autofree char *owner = NULL;
  gboolean found = FALSE;
  sqlite3_stmt *stmt = NULL;

  /* The lock goes when the lease no longer names it. */
  g_autoptr(GHashTable) held = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                      held_lease_free);
  gpointer key = NULL;
  gpointer value = NULL;

  if (g_hash_table_steal_extended (self->held, session_id, &key, &value))
    g_hash_table_insert (held, key, value);
  if (self->me == NULL)
    return;
  owner = read_owner (self, session_id, &found, NULL);
  if (owner == NULL || !same_owner (owner, self->me))
    return;
  if (sqlite3_prepare_v2 (self->db, "UPDATE sessions SET owner = NULL WHERE id = ? AND owner = ?",
                          -1, &stmt, NULL) != SQLITE_OK)
    return;
  sqlite3_bind_text (stmt, 1, session_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 2, owner, -1, SQLITE_TRANSIENT);
  if (sqlite3_step (stmt) != SQLITE_DONE)
    g_warning ("Could not give back session %s: %s", session_id, sqlite3_errmsg (self->db));
  sqlite3_finalize (stmt);
}

gboolean
warden_session_store_release_any (WardenSessionStore  *self,
                                  const char          *session_id,
                                  gboolean             force,
                                  char               **was_owner,
                                  gboolean            *maybe_alive,
                                  GError             **error)
{
  g_autofree char *owner = NULL;
  sqlite3_stmt *stmt = NULL;
  gboolean found = FALSE;
  OwnerLife life;
  gboolean ok;

  if (was_owner != NULL)
    *was_owner = NULL;
  if (maybe_alive != NULL)
    *maybe_alive = FALSE;
  if (!exec_sql (self, "BEGIN IMMEDIATE", error))
    return FALSE;
  owner = read_owner (self, session_id, &found, error);
  if (!found)
    {
      exec_sql (self, "ROLLBACK", NULL);
      return FALSE;
    }
  if (owner == NULL)
    {
      exec_sql (self, "ROLLBACK", NULL);
      return TRUE;
    }
  life = owner_life (self, owner);
  if (life == OWNER_ALIVE && !force)
    {
      g_autofree char *who = describe_owner (owner);

      exec_sql (self, "ROLLBACK", NULL);
      g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_IN_USE,
                   _("Session “%s” is open in %s, which is running; close it there, or stop "
                     "it (--force releases it anyway: it then stops at its next step)"),
                   session_id, who);
      return FALSE;
    }
  if (sqlite3_prepare_v2 (self->db, "UPDATE sessions SET owner = NULL WHERE id = ?", -1, &stmt,
                          NULL) != SQLITE_OK)
    {
      set_sql_error (self, error, _("release the session"));
      exec_sql (self, "ROLLBACK", NULL);
      return FALSE;
    }
  sqlite3_bind_text (stmt, 1, session_id, -1, SQLITE_TRANSIENT);
  ok = sqlite3_step (stmt) == SQLITE_DONE;
  if (!ok)
    set_sql_error (self, error, _("release the session"));
  sqlite3_finalize (stmt);
  if (!ok || !exec_sql (self, "COMMIT", error))
    {
      exec_sql (self, "ROLLBACK", NULL);
      return FALSE;
    }
  if (was_owner != NULL)
    *was_owner = describe_owner (owner);
  if (maybe_alive != NULL)
    *maybe_alive = life != OWNER_GONE;
  return TRUE;
}

char *
warden_session_store_dup_owner (WardenSessionStore *self,
                                const char         *session_id)
{
  g_autofree char *owner = NULL;
  gboolean found = FALSE;

  owner = read_owner (self, session_id, &found, NULL);
  if (owner == NULL || !owner_alive (self, owner))
    return NULL;
  return describe_owner (owner);
}

/* ------------------------------------------------------------------------ */

WardenSessionRecord *
warden_session_record_new (void)
{
  return g_new0 (WardenSessionRecord, 1);
}

void
warden_session_record_free (WardenSessionRecord *info)
{
  if (info == NULL)
    return;
  g_free (info->id);
  g_free (info->title);
  g_free (info->workspace);
  g_free (info->profile);
  g_free (info->provider);
  g_free (info->model);
  g_free (info->base_url);
  g_free (info->sandbox);
  g_free (info->image);
  g_free (info->state);
  g_free (info);
}

WardenToolCallRecord *
warden_tool_call_record_new (void)
{
  WardenToolCallRecord *r = g_new0 (WardenToolCallRecord, 1);

  r->seq = -1;
  r->block = -1;
  r->began = -1;
  return r;
}

void
warden_tool_call_record_free (WardenToolCallRecord *record)
{
  if (record == NULL)
    return;
  g_free (record->session_id);
  g_free (record->tool_use_id);
  g_free (record->name);
  g_free (record->input_json);
  g_free (record->state);
  g_free (record->decision);
  g_free (record->pattern);
  g_free (record->reason);
  g_free (record->feedback);
  g_free (record->result_json);
  g_free (record->answered_via);
  g_free (record->diff);
  g_free (record->kind);
  g_free (record->parent_id);
  g_free (record->decided_by);
  g_free (record->ended_by);
  g_free (record);
}

static char *
column_dup (sqlite3_stmt *stmt,
            int           i)
{
  const unsigned char *text = sqlite3_column_text (stmt, i);

  return text ? g_strdup ((const char *) text) : NULL;
}

static void
bind_text (sqlite3_stmt *stmt,
           int           i,
           const char   *text)
{
  if (text)
    sqlite3_bind_text (stmt, i, text, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null (stmt, i);
}

gboolean
warden_session_store_save_session (WardenSessionStore  *self,
                                   WardenSessionRecord   *info,
                                   GError             **error)
{
  sqlite3_stmt *stmt = NULL;
  gboolean ok;

  if (info->id == NULL)
    info->id = g_uuid_string_random ();
  if (info->created == 0)
    info->created = g_get_real_time () / G_USEC_PER_SEC;
  info->updated = g_get_real_time () / G_USEC_PER_SEC;

  if (sqlite3_prepare_v2 (self->db,
                          /* An upsert: REPLACE would delete the row first, and the
                           * cascade would take its messages and tool calls along. */
                          "INSERT INTO sessions (id, title, created, updated, "
                          "workspace, profile, provider, model, sandbox, image, state, "
                          "input_tokens, output_tokens, base_url, cache_read_tokens, "
                          "cache_write_tokens, cost, requests, unreported, unpriced) "
                          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
                          "?15, ?16, ?17, ?18, ?19, ?20) "
                          "ON CONFLICT (id) DO UPDATE SET title = ?2, updated = ?4, "
                          "workspace = ?5, profile = ?6, provider = ?7, model = ?8, "
                          "sandbox = ?9, image = ?10, state = ?11, input_tokens = ?12, "
                          "output_tokens = ?13, base_url = ?14, cache_read_tokens = ?15, "
                          "cache_write_tokens = ?16, cost = ?17, requests = ?18, "
                          "unreported = ?19, unpriced = ?20",
                          -1, &stmt, NULL) != SQLITE_OK)
    return set_sql_error (self, error, _("save the session"));
  bind_text (stmt, 1, info->id);
  bind_text (stmt, 2, info->title);
  sqlite3_bind_int64 (stmt, 3, info->created);
  sqlite3_bind_int64 (stmt, 4, info->updated);
  bind_text (stmt, 5, info->workspace);
  bind_text (stmt, 6, info->profile);
  bind_text (stmt, 7, info->provider);
  bind_text (stmt, 8, info->model);
  bind_text (stmt, 9, info->sandbox);
  bind_text (stmt, 10, info->image);
  bind_text (stmt, 11, info->state);
  sqlite3_bind_int64 (stmt, 12, info->usage.input_tokens);
  sqlite3_bind_int64 (stmt, 13, info->usage.output_tokens);
  bind_text (stmt, 14, info->base_url);
  sqlite3_bind_int64 (stmt, 15, info->usage.cache_read_tokens);
  sqlite3_bind_int64 (stmt, 16, info->usage.cache_write_tokens);
  sqlite3_bind_double (stmt, 17, info->usage.cost);
  sqlite3_bind_int64 (stmt, 18, info->usage.requests);
  sqlite3_bind_int64 (stmt, 19, info->usage.unreported);
  sqlite3_bind_int64 (stmt, 20, info->usage.unpriced);
  ok = sqlite3_step (stmt) == SQLITE_DONE;
  sqlite3_finalize (stmt);
  return ok ? TRUE : set_sql_error (self, error, _("save the session"));
}

static WardenSessionRecord *
session_from_row (sqlite3_stmt *stmt)
{
  WardenSessionRecord *info = warden_session_record_new ();

  info->id = column_dup (stmt, 0);
  info->title = column_dup (stmt, 1);
  info->created = sqlite3_column_int64 (stmt, 2);
  info->updated = sqlite3_column_int64 (stmt, 3);
  info->workspace = column_dup (stmt, 4);
  info->profile = column_dup (stmt, 5);
  info->provider = column_dup (stmt, 6);
  info->model = column_dup (stmt, 7);
  info->sandbox = column_dup (stmt, 8);
  info->image = column_dup (stmt, 9);
  info->state = column_dup (stmt, 10);
  info->usage.input_tokens = sqlite3_column_int64 (stmt, 11);
  info->usage.output_tokens = sqlite3_column_int64 (stmt, 12);
  info->base_url = column_dup (stmt, 13);
  info->usage.cache_read_tokens = sqlite3_column_int64 (stmt, 14);
  info->usage.cache_write_tokens = sqlite3_column_int64 (stmt, 15);
  info->usage.cost = sqlite3_column_double (stmt, 16);
  info->usage.requests = sqlite3_column_int64 (stmt, 17);
  info->usage.unreported = sqlite3_column_int64 (stmt, 18);
  info->usage.unpriced = sqlite3_column_int64 (stmt, 19);
  return info;
}

#define SESSION_COLUMNS "id, title, created, updated, workspace, profile, provider, model, " \
                        "sandbox, image, state, input_tokens, output_tokens, base_url, " \
                        "cache_read_tokens, cache_write_tokens, cost, requests, unreported, " \
                        "unpriced"

WardenSessionRecord *
warden_session_store_get_session (WardenSessionStore  *self,
                                  const char          *id,
                                  GError             **error)
{
  sqlite3_stmt *stmt = NULL;
  WardenSessionRecord *info = NULL;
  int rc;

  if (sqlite3_prepare_v2 (self->db, "SELECT " SESSION_COLUMNS " FROM sessions WHERE id = ?",
                          -1, &stmt, NULL) != SQLITE_OK)
    {
      set_sql_error (self, error, _("read the session"));
      return NULL;
    }
  bind_text (stmt, 1, id);
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    info = session_from_row (stmt);
  else if (rc == SQLITE_DONE)
    g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_NOT_FOUND,
                 _("There is no session “%s”: warden-cli sessions list shows them"), id);
  else
    set_sql_error (self, error, _("read the session"));
  sqlite3_finalize (stmt);
  return info;
}

/* Past this many, an ambiguous prefix lists no more candidates. */
#define RESOLVE_CANDIDATES_SHOWN 8

char *
warden_session_store_resolve_id (WardenSessionStore  *self,
                                 const char          *spec,
                                 GError             **error)
{
  sqlite3_stmt *stmt = NULL;
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  gboolean last = g_strcmp0 (spec, "last") == 0;
  int rc;

  g_return_val_if_fail (WARDEN_IS_SESSION_STORE (self), NULL);

  if (spec == NULL || *spec == '\0')
    {
      g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_NOT_FOUND,
                   _("No session id given: warden-cli sessions list shows them"));
      return NULL;
    }
  /* An exact id first: it wins over being the prefix of a longer one. */
  if (sqlite3_prepare_v2 (self->db,
                          last ? "SELECT id FROM sessions "
                                 "ORDER BY updated DESC, created DESC, rowid DESC LIMIT 1"
                               : "SELECT id FROM sessions WHERE id = ?1 OR "
                                 "substr(id, 1, length(?1)) = ?1 "
                                 "ORDER BY id = ?1 DESC, updated DESC, created DESC",
                          -1, &stmt, NULL) != SQLITE_OK)
    {
      set_sql_error (self, error, _("read the session"));
      return NULL;
    }
  if (!last)
    sqlite3_bind_text (stmt, 1, spec, -1, SQLITE_TRANSIENT);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      const char *id = (const char *) sqlite3_column_text (stmt, 0);

      if (ids->len == 0 && g_strcmp0 (id, spec) == 0)
        {
          g_ptr_array_add (ids, g_strdup (id));
          rc = SQLITE_DONE;
          break;
        }
      g_ptr_array_add (ids, g_strdup (id));
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    {
      set_sql_error (self, error, _("read the session"));
      return NULL;
    }
  if (ids->len == 1)
    return g_strdup (g_ptr_array_index (ids, 0));
  if (ids->len == 0)
    {
      if (last)
        g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_NOT_FOUND,
                     _("There is no session yet to continue: start one with a task"));
      else
        g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_NOT_FOUND,
                     _("There is no session “%s”: warden-cli sessions list shows them"), spec);
      return NULL;
    }
  {
    g_autoptr(GString) listed = g_string_new (NULL);

    for (guint i = 0; i < ids->len && i < RESOLVE_CANDIDATES_SHOWN; i++)
      g_string_append_printf (listed, "%s%s", i ? ", " : "",
                              (const char *) g_ptr_array_index (ids, i));
    if (ids->len > RESOLVE_CANDIDATES_SHOWN)
      g_string_append (listed, ", …");
    g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_AMBIGUOUS,
                 _("“%s” starts %u session ids (%s): give more of the id"), spec, ids->len,
                 listed->str);
  }
  return NULL;
}

GPtrArray *
warden_session_store_list_sessions (WardenSessionStore  *self,
                                    GError             **error)
{
  sqlite3_stmt *stmt = NULL;
  GPtrArray *list = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_session_record_free);
  int rc;

  if (sqlite3_prepare_v2 (self->db, "SELECT " SESSION_COLUMNS " FROM sessions "
                          "ORDER BY updated DESC, created DESC", -1, &stmt, NULL) != SQLITE_OK)
    {
      set_sql_error (self, error, _("list the sessions"));
      g_ptr_array_unref (list);
      return NULL;
    }
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    g_ptr_array_add (list, session_from_row (stmt));
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    {
      set_sql_error (self, error, _("list the sessions"));
      g_ptr_array_unref (list);
      return NULL;
    }
  return list;
}

gboolean
warden_session_store_append_model_message (WardenSessionStore  *self,
                                           const char          *session_id,
                                           guint                seq,
                                           const char          *json,
                                           const WardenLlmUsage *usage,
                                           gint64               latency_ms,
                                           const char          *instructions,
                                           GError             **error)
{
  sqlite3_stmt *stmt = NULL;
  gboolean ok;

  if (sqlite3_prepare_v2 (self->db,
                          "INSERT OR REPLACE INTO messages (session_id, seq, json, input_tokens, "
                          "output_tokens, created, latency_ms, cache_read_tokens, "
                          "cache_write_tokens, cost, unreported, instructions) "
                          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                          -1, &stmt, NULL) != SQLITE_OK)
    return set_sql_error (self, error, _("save a message"));
  bind_text (stmt, 1, session_id);
  sqlite3_bind_int (stmt, 2, seq);
  bind_text (stmt, 3, json);
  sqlite3_bind_int64 (stmt, 4, usage ? usage->input_tokens : 0);
  sqlite3_bind_int64 (stmt, 5, usage ? usage->output_tokens : 0);
  /* Milliseconds from schema 2 on; rows of schema 1 hold seconds. */
  sqlite3_bind_int64 (stmt, 6, g_get_real_time () / 1000);
  if (latency_ms >= 0)
    sqlite3_bind_int64 (stmt, 7, latency_ms);
  else
    sqlite3_bind_null (stmt, 7);
  if (usage != NULL)
    {
      sqlite3_bind_int64 (stmt, 8, usage->cache_read_tokens);
      sqlite3_bind_int64 (stmt, 9, usage->cache_write_tokens);
      /* NULL: the cost is not known */
      if (warden_llm_usage_cost_known (usage))
        sqlite3_bind_double (stmt, 10, usage->cost);
      sqlite3_bind_int (stmt, 11, usage->unreported);
    }
  bind_text (stmt, 12, instructions);
  ok = sqlite3_step (stmt) == SQLITE_DONE;
  sqlite3_finalize (stmt);
  return ok ? TRUE : set_sql_error (self, error, _("save a message"));
}

gboolean
warden_session_store_append_message (WardenSessionStore  *self,
                                     const char          *session_id,
                                     guint                seq,
                                     const char          *json,
                                     gint64               input_tokens,
                                     gint64               output_tokens,
                                     GError             **error)
{
  WardenLlmUsage usage = { .input_tokens = input_tokens, .output_tokens = output_tokens };

  return warden_session_store_append_model_message (self, session_id, seq, json,
                                                    input_tokens || output_tokens ? &usage : NULL,
                                                    -1, NULL, error);
}

GPtrArray *
warden_session_store_list_model_calls (WardenSessionStore  *self,
                                       const char          *session_id,
                                       GError             **error)
{
  sqlite3_stmt *stmt = NULL;
  GPtrArray *list = g_ptr_array_new_with_free_func (g_free);
  int rc;

  if (sqlite3_prepare_v2 (self->db, "SELECT seq, created, latency_ms, input_tokens, "
                          "output_tokens, cache_read_tokens, cache_write_tokens, cost, "
                          "unreported, instructions FROM messages WHERE session_id = ? AND "
                          "latency_ms IS NOT NULL ORDER BY seq", -1, &stmt, NULL) != SQLITE_OK)
    {
      set_sql_error (self, error, _("read the model calls"));
      g_ptr_array_unref (list);
      return NULL;
    }
  bind_text (stmt, 1, session_id);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      WardenModelCallRecord *r = g_new0 (WardenModelCallRecord, 1);

      r->seq = sqlite3_column_int (stmt, 0);
      r->created = sqlite3_column_int64 (stmt, 1);
      r->latency_ms = sqlite3_column_int64 (stmt, 2);
      r->usage.input_tokens = sqlite3_column_int64 (stmt, 3);
      r->usage.output_tokens = sqlite3_column_int64 (stmt, 4);
      r->usage.cache_read_tokens = sqlite3_column_int64 (stmt, 5);
      r->usage.cache_write_tokens = sqlite3_column_int64 (stmt, 6);
      r->usage.requests = 1;
      r->usage.unreported = sqlite3_column_int (stmt, 8) ? 1 : 0;
      if (sqlite3_column_type (stmt, 7) == SQLITE_NULL)
        r->usage.unpriced = 1;
      else
        r->usage.cost = sqlite3_column_double (stmt, 7);
      if (sqlite3_column_text (stmt, 9) != NULL)
        g_strlcpy (r->instructions, (const char *) sqlite3_column_text (stmt, 9),
                   sizeof r->instructions);
      g_ptr_array_add (list, r);
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    {
      set_sql_error (self, error, _("read the model calls"));
      g_ptr_array_unref (list);
      return NULL;
    }
  return list;
}

void
warden_compaction_record_free (WardenCompactionRecord *record)
{
  if (record == NULL)
    return;
  g_free (record->summary);
  g_free (record->reason);
  g_free (record);
}

gboolean
warden_session_store_add_compaction (WardenSessionStore            *self,
                                     const char                    *session_id,
                                     const WardenCompactionRecord  *record,
                                     GError                       **error)
{
  sqlite3_stmt *stmt = NULL;
  gboolean ok;

  g_return_val_if_fail (WARDEN_IS_SESSION_STORE (self), FALSE);
  g_return_val_if_fail (record != NULL && record->summary != NULL, FALSE);

  if (sqlite3_prepare_v2 (self->db,
                          "INSERT INTO compactions (session_id, ord, upto, summary, created, "
                          "tokens_before, tokens_after, reason) VALUES (?1, (SELECT "
                          "COALESCE(MAX(ord), 0) + 1 FROM compactions WHERE session_id = ?1), "
                          "?2, ?3, ?4, ?5, ?6, ?7)", -1, &stmt, NULL) != SQLITE_OK)
    return set_sql_error (self, error, _("save a summary"));
  bind_text (stmt, 1, session_id);
  sqlite3_bind_int (stmt, 2, record->upto);
  bind_text (stmt, 3, record->summary);
  sqlite3_bind_int64 (stmt, 4, record->created ? record->created : g_get_real_time () / 1000);
  sqlite3_bind_int64 (stmt, 5, record->tokens_before);
  sqlite3_bind_int64 (stmt, 6, record->tokens_after);
  bind_text (stmt, 7, record->reason);
  ok = sqlite3_step (stmt) == SQLITE_DONE;
  sqlite3_finalize (stmt);
  return ok ? TRUE : set_sql_error (self, error, _("save a summary"));
}

GPtrArray *
warden_session_store_list_compactions (WardenSessionStore  *self,
                                       const char          *session_id,
                                       GError             **error)
{
  sqlite3_stmt *stmt = NULL;
  GPtrArray *list = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_compaction_record_free);
  int rc;

  if (sqlite3_prepare_v2 (self->db, "SELECT upto, summary, created, tokens_before, "
                          "tokens_after, reason FROM compactions WHERE session_id = ? "
                          "ORDER BY ord", -1, &stmt, NULL) != SQLITE_OK)
    {
      set_sql_error (self, error, _("read the summaries"));
      g_ptr_array_unref (list);
      return NULL;
    }
  bind_text (stmt, 1, session_id);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      WardenCompactionRecord *r = g_new0 (WardenCompactionRecord, 1);

      r->upto = sqlite3_column_int (stmt, 0);
      r->summary = g_strdup ((const char *) sqlite3_column_text (stmt, 1));
      r->created = sqlite3_column_int64 (stmt, 2);
      r->tokens_before = sqlite3_column_int64 (stmt, 3);
      r->tokens_after = sqlite3_column_int64 (stmt, 4);
      r->reason = g_strdup ((const char *) sqlite3_column_text (stmt, 5));
      g_ptr_array_add (list, r);
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    {
      set_sql_error (self, error, _("read the summaries"));
      g_ptr_array_unref (list);
      return NULL;
    }
  return list;
}

gboolean
warden_session_store_delete_session (WardenSessionStore  *self,
                                     const char          *id,
                                     GError             **error)
{
  sqlite3_stmt *stmt = NULL;
  gboolean ok;

  /* The messages and tool calls go with it: ON DELETE CASCADE. */
  if (sqlite3_prepare_v2 (self->db, "DELETE FROM sessions WHERE id = ?", -1, &stmt, NULL)
      != SQLITE_OK)
    return set_sql_error (self, error, _("delete the session"));
  bind_text (stmt, 1, id);
  ok = sqlite3_step (stmt) == SQLITE_DONE;
  sqlite3_finalize (stmt);
  return ok ? TRUE : set_sql_error (self, error, _("delete the session"));
}

GPtrArray *
warden_session_store_load_messages (WardenSessionStore  *self,
                                    const char          *session_id,
                                    GError             **error)
{
  sqlite3_stmt *stmt = NULL;
  GPtrArray *list = g_ptr_array_new_with_free_func (g_free);
  int rc;

  if (sqlite3_prepare_v2 (self->db, "SELECT json FROM messages WHERE session_id = ? "
                          "ORDER BY seq", -1, &stmt, NULL) != SQLITE_OK)
    {
      set_sql_error (self, error, _("read the messages"));
      g_ptr_array_unref (list);
      return NULL;
    }
  bind_text (stmt, 1, session_id);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    g_ptr_array_add (list, column_dup (stmt, 0));
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    {
      set_sql_error (self, error, _("read the messages"));
      g_ptr_array_unref (list);
      return NULL;
    }
  return list;
}

GArray *
warden_session_store_list_message_seqs (WardenSessionStore  *self,
                                        const char          *session_id,
                                        GError             **error)
{
  sqlite3_stmt *stmt = NULL;
  g_autoptr(GArray) seqs = g_array_new (FALSE, FALSE, sizeof (gint64));
  int rc;

  if (sqlite3_prepare_v2 (self->db, "SELECT seq FROM messages WHERE session_id = ? ORDER BY seq",
                          -1, &stmt, NULL) != SQLITE_OK)
    {
      set_sql_error (self, error, _("read the messages"));
      return NULL;
    }
  bind_text (stmt, 1, session_id);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      gint64 seq = sqlite3_column_int64 (stmt, 0);

      g_array_append_val (seqs, seq);
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    {
      set_sql_error (self, error, _("read the messages"));
      return NULL;
    }
  return g_steal_pointer (&seqs);
}

/* What a resumed session acts on without asking the user again: an approved
 * tool call runs, an answered question's answer goes to the model, a waiting
 * one shows its reason in the prompt. The seal binds that state to the
 * session, the call, its input and the answer, so a row written by anything
 * without the key (or copied from another row) is not believed. Each field
 * goes in with its length: no two rows read alike. */
static char *
compute_seal (WardenSessionStore         *self,
              const WardenToolCallRecord *r)
{
  const char *fields[] = { r->session_id, r->tool_use_id, r->name, r->input_json, r->state,
                           r->decision, r->reason, r->feedback };
  g_autoptr(GHmac) hmac = g_hmac_new (G_CHECKSUM_SHA256, self->key, sizeof self->key);

  g_hmac_update (hmac, (const guchar *) "warden-seal-1", -1);
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      char head[24];

      if (fields[i] == NULL)
        g_snprintf (head, sizeof head, "|null");
      else
        g_snprintf (head, sizeof head, "|%" G_GSIZE_FORMAT ":", strlen (fields[i]));
      g_hmac_update (hmac, (const guchar *) head, -1);
      if (fields[i] != NULL)
        g_hmac_update (hmac, (const guchar *) fields[i], -1);
    }
  /* Since schema 7, whether it started and why its run ended: an approved
   * call that did not start runs on resume. Rows from before have neither,
   * and their seals stay as they were written. */
  if (r->ended_by != NULL || r->began >= 0)
    {
      g_autofree char *tail = g_strdup_printf ("|ended_by%s%" G_GSIZE_FORMAT ":%s|began:%d",
                                               r->ended_by ? "" : "-null",
                                               r->ended_by ? strlen (r->ended_by) : 0,
                                               r->ended_by ? r->ended_by : "", r->began);

      g_hmac_update (hmac, (const guchar *) tail, -1);
    }
  return g_strdup (g_hmac_get_string (hmac));
}

static gboolean
seal_matches (WardenSessionStore         *self,
              const WardenToolCallRecord *r,
              const char                 *seal)
{
  g_autofree char *expected = compute_seal (self, r);
  guint8 diff = 0;

  if (seal == NULL || strlen (seal) != strlen (expected))
    return FALSE;
  /* In constant time, as a MAC is compared. */
  for (gsize i = 0; expected[i] != '\0'; i++)
    diff |= expected[i] ^ seal[i];
  return diff == 0;
}

gboolean
warden_session_store_save_tool_call (WardenSessionStore          *self,
                                     const WardenToolCallRecord  *r,
                                     GError                     **error)
{
  sqlite3_stmt *stmt = NULL;
  g_autofree char *seal = compute_seal (self, r);
  gboolean ok;

  /* ord keeps the first position when a record is saved again. */
  if (sqlite3_prepare_v2 (self->db,
                          "INSERT INTO tool_calls (session_id, tool_use_id, ord, name, input_json, "
                          "state, decision, pattern, reason, feedback, result_json, started, "
                          "finished, asked, answered, answered_via, seal, is_error, seq, block, diff, kind, "
                          "parent_id, decided_by, ended_by, began) "
                          "VALUES (?1, ?2, (SELECT COALESCE(MAX(ord), 0) + 1 FROM tool_calls "
                          "WHERE session_id = ?1), ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
                          "?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25) "
                          "ON CONFLICT (session_id, tool_use_id) DO UPDATE SET "
                          "name = ?3, input_json = ?4, state = ?5, decision = ?6, pattern = ?7, "
                          "reason = ?8, feedback = ?9, result_json = ?10, started = ?11, "
                          "finished = ?12, asked = ?13, answered = ?14, answered_via = ?15, "
                          "seal = ?16, is_error = ?17, seq = ?18, block = ?19, diff = ?20, kind = ?21, "
                          "parent_id = ?22, decided_by = ?23, ended_by = ?24, began = ?25",
                          -1, &stmt, NULL) != SQLITE_OK)
    return set_sql_error (self, error, _("save a tool call"));
  bind_text (stmt, 1, r->session_id);
  bind_text (stmt, 2, r->tool_use_id);
  bind_text (stmt, 3, r->name);
  bind_text (stmt, 4, r->input_json);
  bind_text (stmt, 5, r->state);
  bind_text (stmt, 6, r->decision);
  bind_text (stmt, 7, r->pattern);
  bind_text (stmt, 8, r->reason);
  bind_text (stmt, 9, r->feedback);
  bind_text (stmt, 10, r->result_json);
  sqlite3_bind_int64 (stmt, 11, r->started);
  sqlite3_bind_int64 (stmt, 12, r->finished);
  sqlite3_bind_int64 (stmt, 13, r->asked);
  sqlite3_bind_int64 (stmt, 14, r->answered);
  bind_text (stmt, 15, r->answered_via);
  bind_text (stmt, 16, seal);
  sqlite3_bind_int (stmt, 17, r->is_error ? 1 : 0);
  if (r->seq >= 0)
    sqlite3_bind_int64 (stmt, 18, r->seq);
  if (r->block >= 0)
    sqlite3_bind_int (stmt, 19, r->block);
  bind_text (stmt, 20, r->diff);
  bind_text (stmt, 21, r->kind);
  bind_text (stmt, 22, r->parent_id);
  bind_text (stmt, 23, r->decided_by);
  bind_text (stmt, 24, r->ended_by);
  if (r->began >= 0)
    sqlite3_bind_int (stmt, 25, r->began);
  ok = sqlite3_step (stmt) == SQLITE_DONE;
  sqlite3_finalize (stmt);
  return ok ? TRUE : set_sql_error (self, error, _("save a tool call"));
}

/* The rows of the "network" member of an old exec result (see
 * migrate_hosts ()); a result that does not parse has none. */
static gboolean
insert_host_rows (WardenSessionStore  *self,
                  const char          *session_id,
                  const char          *parent_id,
                  gint64               ord,
                  const char          *input_json,
                  const char          *result_json,
                  gint64               time,
                  GError             **error)
{
  g_autoptr(JsonNode) result = result_json ? json_from_string (result_json, NULL) : NULL;
  g_autoptr(JsonNode) input = input_json ? json_from_string (input_json, NULL) : NULL;
  const char *command = input && JSON_NODE_HOLDS_OBJECT (input)
                        ? warden_json_get_string (json_node_get_object (input), "command") : NULL;
  JsonNode *network;
  JsonArray *hosts;

  if (result == NULL || !JSON_NODE_HOLDS_OBJECT (result) ||
      (network = json_object_get_member (json_node_get_object (result), "network")) == NULL ||
      !JSON_NODE_HOLDS_ARRAY (network))
    return TRUE;
  hosts = json_node_get_array (network);
  for (guint i = 0; i < json_array_get_length (hosts); i++)
    {
      JsonNode *element = json_array_get_element (hosts, i);
      g_autoptr(WardenToolCallRecord) r = warden_tool_call_record_new ();
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autofree char *seal = NULL;
      g_autofree char *shown = NULL;
      JsonObject *entry;
      const char *host, *by;
      gboolean allowed;
      gint64 port;
      sqlite3_stmt *stmt = NULL;
      gboolean ok;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      entry = json_node_get_object (element);
      host = warden_json_get_string (entry, "host");
      port = warden_json_get_int (entry, "port", 0);
      by = warden_json_get_string (entry, "by");
      allowed = g_strcmp0 (warden_json_get_string (entry, "decision"), "allowed") == 0;
      if (host == NULL || port <= 0 || port > 65535)
        continue;
      shown = warden_network_suggest (host, (guint) port);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "host");
      json_builder_add_string_value (b, shown);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, host);
      json_builder_set_member_name (b, "port");
      json_builder_add_int_value (b, port);
      json_builder_set_member_name (b, "by_command");
      json_builder_add_string_value (b, command);
      json_builder_end_object (b);

      r->session_id = g_strdup (session_id);
      r->tool_use_id = g_strdup_printf ("%s/%u", parent_id, i + 1);
      r->name = g_strdup ("network");
      r->kind = g_strdup ("host");
      r->parent_id = g_strdup (parent_id);
      r->input_json = warden_json_builder_to_string (b, FALSE);
      r->decided_by = g_strdup (g_strcmp0 (by, "profile") == 0 ? "profile"
                                : g_strcmp0 (by, "session") == 0 ? "session" : "user");
      r->pattern = g_strdup (warden_json_get_string (entry, "pattern"));
      r->feedback = g_strdup (warden_json_get_string (entry, "feedback"));
      if (g_strcmp0 (r->decided_by, "profile") == 0)
        {
          r->decision = g_strdup (allowed ? "auto-allowed" : "denied");
          r->state = g_strdup (allowed ? "finished" : "denied");
        }
      else
        {
          r->decision = g_strdup (!allowed ? "rejected" : r->pattern ? "approved-always"
                                                                     : "approved");
          r->state = g_strdup (allowed ? "finished" : "rejected");
        }
      r->started = r->finished = warden_json_get_int (entry, "time", time);
      seal = compute_seal (self, r);
      if (sqlite3_prepare_v2 (self->db,
                              "INSERT OR IGNORE INTO tool_calls (session_id, tool_use_id, ord, "
                              "name, kind, parent_id, input_json, state, decision, decided_by, "
                              "pattern, feedback, started, finished, seal) VALUES (?1, ?2, ?3, "
                              "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)", -1, &stmt,
                              NULL) != SQLITE_OK)
        return set_sql_error (self, error, _("update the database"));
      bind_text (stmt, 1, r->session_id);
      bind_text (stmt, 2, r->tool_use_id);
      sqlite3_bind_int64 (stmt, 3, ord);
      bind_text (stmt, 4, r->name);
      bind_text (stmt, 5, r->kind);
      bind_text (stmt, 6, r->parent_id);
      bind_text (stmt, 7, r->input_json);
      bind_text (stmt, 8, r->state);
      bind_text (stmt, 9, r->decision);
      bind_text (stmt, 10, r->decided_by);
      bind_text (stmt, 11, r->pattern);
      bind_text (stmt, 12, r->feedback);
      sqlite3_bind_int64 (stmt, 13, r->started);
      sqlite3_bind_int64 (stmt, 14, r->finished);
      bind_text (stmt, 15, seal);
      ok = sqlite3_step (stmt) == SQLITE_DONE;
      sqlite3_finalize (stmt);
      if (!ok)
        return set_sql_error (self, error, _("update the database"));
    }
  return TRUE;
}

#define TOOL_COLUMNS "session_id, tool_use_id, name, input_json, state, decision, pattern, " \
                     "reason, feedback, result_json, started, finished, asked, answered, " \
                     "answered_via, seal, is_error, seq, block, diff, kind, parent_id, " \
                     "decided_by, ended_by, began"

static WardenToolCallRecord *
tool_call_from_row (WardenSessionStore *self,
                    sqlite3_stmt       *stmt)
{
  WardenToolCallRecord *r = warden_tool_call_record_new ();

  r->session_id = column_dup (stmt, 0);
  r->tool_use_id = column_dup (stmt, 1);
  r->name = column_dup (stmt, 2);
  r->input_json = column_dup (stmt, 3);
  r->state = column_dup (stmt, 4);
  r->decision = column_dup (stmt, 5);
  r->pattern = column_dup (stmt, 6);
  r->reason = column_dup (stmt, 7);
  r->feedback = column_dup (stmt, 8);
  r->result_json = column_dup (stmt, 9);
  r->started = sqlite3_column_int64 (stmt, 10);
  r->finished = sqlite3_column_int64 (stmt, 11);
  r->asked = sqlite3_column_int64 (stmt, 12);
  r->answered = sqlite3_column_int64 (stmt, 13);
  r->answered_via = column_dup (stmt, 14);
  r->is_error = sqlite3_column_int (stmt, 16) != 0;
  r->seq = sqlite3_column_type (stmt, 17) == SQLITE_NULL ? -1 : sqlite3_column_int64 (stmt, 17);
  r->block = sqlite3_column_type (stmt, 18) == SQLITE_NULL ? -1 : sqlite3_column_int (stmt, 18);
  r->diff = column_dup (stmt, 19);
  r->kind = column_dup (stmt, 20);
  r->parent_id = column_dup (stmt, 21);
  r->decided_by = column_dup (stmt, 22);
  r->ended_by = column_dup (stmt, 23);
  r->began = sqlite3_column_type (stmt, 24) == SQLITE_NULL ? -1 : sqlite3_column_int (stmt, 24);

  /* Not sealed by us: the user is asked again, as if the session had
   * stopped while it waited. Rows saved before schema 3 have no seal. */
  if ((g_strcmp0 (r->state, "approved") == 0 || g_strcmp0 (r->state, "answered") == 0 ||
       g_strcmp0 (r->state, "pending") == 0) &&
      !seal_matches (self, r, (const char *) sqlite3_column_text (stmt, 15)))
    {
      g_debug ("Tool call %s of session %s is marked %s, but Warden did not write that; "
               "asking again", r->tool_use_id, r->session_id, r->state);
      g_free (r->state);
      r->state = g_strdup ("pending");
      g_free (r->decision);
      r->decision = g_strdup ("asked");
      g_free (r->reason);
      /* Shown in the prompt, next to the command: the stored one may be a lie. */
      r->reason = g_strdup (WARDEN_STORE_UNVERIFIED_REASON);
    }
  return r;
}

WardenToolCallRecord *
warden_session_store_get_tool_call (WardenSessionStore  *self,
                                    const char          *session_id,
                                    const char          *tool_use_id,
                                    GError             **error)
{
  sqlite3_stmt *stmt = NULL;
  WardenToolCallRecord *r = NULL;
  int rc;

  if (sqlite3_prepare_v2 (self->db, "SELECT " TOOL_COLUMNS " FROM tool_calls "
                          "WHERE session_id = ? AND tool_use_id = ?", -1, &stmt, NULL) != SQLITE_OK)
    {
      set_sql_error (self, error, _("read a tool call"));
      return NULL;
    }
  bind_text (stmt, 1, session_id);
  bind_text (stmt, 2, tool_use_id);
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    r = tool_call_from_row (self, stmt);
  else if (rc == SQLITE_DONE)
    g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_NOT_FOUND,
                 _("No tool call %s in session %s"), tool_use_id, session_id);
  else
    set_sql_error (self, error, _("read a tool call"));
  sqlite3_finalize (stmt);
  return r;
}

GPtrArray *
warden_session_store_list_tool_calls (WardenSessionStore  *self,
                                      const char          *session_id,
                                      GError             **error)
{
  sqlite3_stmt *stmt = NULL;
  GPtrArray *list = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_tool_call_record_free);
  int rc;

  if (sqlite3_prepare_v2 (self->db, "SELECT " TOOL_COLUMNS " FROM tool_calls "
                          "WHERE session_id = ? ORDER BY ord", -1, &stmt, NULL) != SQLITE_OK)
    {
      set_sql_error (self, error, _("list the tool calls"));
      g_ptr_array_unref (list);
      return NULL;
    }
  bind_text (stmt, 1, session_id);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    g_ptr_array_add (list, tool_call_from_row (self, stmt));
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    {
      set_sql_error (self, error, _("list the tool calls"));
      g_ptr_array_unref (list);
      return NULL;
    }
  return list;
}

/* An answer about a host binds the session, the host, the port and the
 * answer: a row that anything without the key wrote (an allowed host slipped
 * into the database) is not believed, and the user is asked again. */
static char *
host_answer_seal (WardenSessionStore *self,
                  const char         *session_id,
                  const char         *host,
                  guint               port,
                  gboolean            allowed)
{
  g_autoptr(GHmac) hmac = g_hmac_new (G_CHECKSUM_SHA256, self->key, sizeof self->key);
  g_autofree char *text = g_strdup_printf ("warden-host-1|%" G_GSIZE_FORMAT ":%s|%"
                                           G_GSIZE_FORMAT ":%s|%u|%d",
                                           strlen (session_id), session_id, strlen (host), host,
                                           port, allowed ? 1 : 0);

  g_hmac_update (hmac, (const guchar *) text, -1);
  return g_strdup (g_hmac_get_string (hmac));
}

gboolean
warden_session_store_save_host_answer (WardenSessionStore  *self,
                                       const char          *session_id,
                                       const char          *host,
                                       guint                port,
                                       gboolean             allowed,
                                       GError             **error)
{
  sqlite3_stmt *stmt = NULL;
  g_autofree char *seal = NULL;
  gboolean ok;

  g_return_val_if_fail (WARDEN_IS_SESSION_STORE (self), FALSE);
  g_return_val_if_fail (session_id != NULL && host != NULL, FALSE);

  seal = host_answer_seal (self, session_id, host, port, allowed);
  if (sqlite3_prepare_v2 (self->db,
                          "INSERT OR REPLACE INTO host_answers (session_id, host, port, allowed, "
                          "seal) VALUES (?1, ?2, ?3, ?4, ?5)", -1, &stmt, NULL) != SQLITE_OK)
    return set_sql_error (self, error, _("save the answer about a host"));
  bind_text (stmt, 1, session_id);
  bind_text (stmt, 2, host);
  sqlite3_bind_int (stmt, 3, (int) port);
  sqlite3_bind_int (stmt, 4, allowed ? 1 : 0);
  bind_text (stmt, 5, seal);
  ok = sqlite3_step (stmt) == SQLITE_DONE;
  sqlite3_finalize (stmt);
  return ok ? TRUE : set_sql_error (self, error, _("save the answer about a host"));
}

GHashTable *
warden_session_store_load_host_answers (WardenSessionStore  *self,
                                        const char          *session_id,
                                        GError             **error)
{
  g_autoptr(GHashTable) answers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sqlite3_stmt *stmt = NULL;
  int rc;

  g_return_val_if_fail (WARDEN_IS_SESSION_STORE (self), NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  if (sqlite3_prepare_v2 (self->db,
                          "SELECT host, port, allowed, seal FROM host_answers "
                          "WHERE session_id = ?1", -1, &stmt, NULL) != SQLITE_OK)
    {
      set_sql_error (self, error, _("read the answers about hosts"));
      return NULL;
    }
  bind_text (stmt, 1, session_id);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      const char *host = (const char *) sqlite3_column_text (stmt, 0);
      int port = sqlite3_column_int (stmt, 1);
      gboolean allowed = sqlite3_column_int (stmt, 2) != 0;
      const char *seal = (const char *) sqlite3_column_text (stmt, 3);
      g_autofree char *expected = NULL;
      guint8 diff = 0;

      if (host == NULL || port <= 0 || port > 65535 || seal == NULL)
        continue;
      expected = host_answer_seal (self, session_id, host, (guint) port, allowed);
      if (strlen (seal) != strlen (expected))
        continue;
      for (gsize i = 0; expected[i] != '\0'; i++)
        diff |= expected[i] ^ seal[i];
      if (diff != 0)
        continue;
      g_hash_table_insert (answers,
                           strchr (host, ':') ? g_strdup_printf ("[%s]:%d", host, port)
                                              : g_strdup_printf ("%s:%d", host, port),
                           GINT_TO_POINTER (allowed ? 1 : 2));
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    {
      set_sql_error (self, error, _("read the answers about hosts"));
      return NULL;
    }
  return g_steal_pointer (&answers);
}

/* checkpoints ---------------------------------------------------------------*/

void
warden_checkpoint_record_free (WardenCheckpointRecord *record)
{
  if (record == NULL)
    return;
  g_free (record->session_id);
  g_free (record->tool_use_id);
  g_free (record->commit);
  g_free (record->after);
  g_free (record->changes_json);
  g_free (record);
}

gint64
warden_session_store_add_checkpoint (WardenSessionStore  *self,
                                     const char          *session_id,
                                     const char          *tool_use_id,
                                     const char          *commit,
                                     gint64               restored_to,
                                     GError             **error)
{
  sqlite3_stmt *stmt = NULL;
  gint64 step = 0;

  g_return_val_if_fail (WARDEN_IS_SESSION_STORE (self), 0);
  g_return_val_if_fail (session_id != NULL && commit != NULL, 0);

  /* One statement: the number and the row cannot part. */
  if (sqlite3_prepare_v2 (self->db,
                          "INSERT INTO checkpoints (session_id, step, tool_use_id, commit_id, "
                          "restored_to, created) VALUES (?1, (SELECT COALESCE (MAX (step), 0) + 1 "
                          "FROM checkpoints WHERE session_id = ?1), ?2, ?3, ?4, ?5) "
                          "RETURNING step", -1, &stmt, NULL) != SQLITE_OK)
    {
      set_sql_error (self, error, _("save a checkpoint"));
      return 0;
    }
  bind_text (stmt, 1, session_id);
  bind_text (stmt, 2, tool_use_id);
  bind_text (stmt, 3, commit);
  sqlite3_bind_int64 (stmt, 4, restored_to);
  sqlite3_bind_int64 (stmt, 5, g_get_real_time () / 1000);
  if (sqlite3_step (stmt) == SQLITE_ROW)
    step = sqlite3_column_int64 (stmt, 0);
  if (sqlite3_step (stmt) != SQLITE_DONE || step == 0)
    {
      sqlite3_finalize (stmt);
      set_sql_error (self, error, _("save a checkpoint"));
      return 0;
    }
  sqlite3_finalize (stmt);
  return step;
}

gboolean
warden_session_store_set_checkpoint_after (WardenSessionStore  *self,
                                           const char          *session_id,
                                           gint64               step,
                                           const char          *after,
                                           const char          *changes_json,
                                           GError             **error)
{
  sqlite3_stmt *stmt = NULL;
  gboolean ok;

  g_return_val_if_fail (WARDEN_IS_SESSION_STORE (self), FALSE);

  if (sqlite3_prepare_v2 (self->db,
                          "UPDATE checkpoints SET after_id = ?3, changes = ?4 "
                          "WHERE session_id = ?1 AND step = ?2", -1, &stmt, NULL) != SQLITE_OK)
    return set_sql_error (self, error, _("save what a command changed"));
  bind_text (stmt, 1, session_id);
  sqlite3_bind_int64 (stmt, 2, step);
  bind_text (stmt, 3, after);
  bind_text (stmt, 4, changes_json);
  ok = sqlite3_step (stmt) == SQLITE_DONE;
  sqlite3_finalize (stmt);
  return ok ? TRUE : set_sql_error (self, error, _("save what a command changed"));
}

gboolean
warden_session_store_set_checkpoint_told (WardenSessionStore  *self,
                                          const char          *session_id,
                                          gint64               step,
                                          GError             **error)
{
  sqlite3_stmt *stmt = NULL;
  gboolean ok;

  g_return_val_if_fail (WARDEN_IS_SESSION_STORE (self), FALSE);

  if (sqlite3_prepare_v2 (self->db,
                          "UPDATE checkpoints SET told = 1 WHERE session_id = ?1 AND step = ?2",
                          -1, &stmt, NULL) != SQLITE_OK)
    return set_sql_error (self, error, _("save a checkpoint"));
  bind_text (stmt, 1, session_id);
  sqlite3_bind_int64 (stmt, 2, step);
  ok = sqlite3_step (stmt) == SQLITE_DONE;
  sqlite3_finalize (stmt);
  return ok ? TRUE : set_sql_error (self, error, _("save a checkpoint"));
}

GPtrArray *
warden_session_store_list_checkpoints (WardenSessionStore  *self,
                                       const char          *session_id,
                                       GError             **error)
{
  g_autoptr(GPtrArray) list = NULL;
  sqlite3_stmt *stmt = NULL;
  int rc;

  g_return_val_if_fail (WARDEN_IS_SESSION_STORE (self), NULL);

  list = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_checkpoint_record_free);
  if (sqlite3_prepare_v2 (self->db,
                          "SELECT step, tool_use_id, commit_id, after_id, changes, restored_to, "
                          "told, created FROM checkpoints WHERE session_id = ?1 ORDER BY step",
                          -1, &stmt, NULL) != SQLITE_OK)
    {
      set_sql_error (self, error, _("read the checkpoints"));
      return NULL;
    }
  bind_text (stmt, 1, session_id);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      WardenCheckpointRecord *r = g_new0 (WardenCheckpointRecord, 1);

      r->session_id = g_strdup (session_id);
      r->step = sqlite3_column_int64 (stmt, 0);
      r->tool_use_id = column_dup (stmt, 1);
      r->commit = column_dup (stmt, 2);
      r->after = column_dup (stmt, 3);
      r->changes_json = column_dup (stmt, 4);
      r->restored_to = sqlite3_column_int64 (stmt, 5);
      r->told = sqlite3_column_int (stmt, 6) != 0;
      r->created = sqlite3_column_int64 (stmt, 7);
      g_ptr_array_add (list, r);
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    {
      set_sql_error (self, error, _("read the checkpoints"));
      return NULL;
    }
  return g_steal_pointer (&list);
}
