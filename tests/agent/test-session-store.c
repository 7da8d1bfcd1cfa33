/* test-session-store.c: sessions that survive
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>

#include "agent/warden-session-store.h"

static char *
temp_db (void)
{
  g_autofree char *dir = g_dir_make_tmp ("warden-test-store-XXXXXX", NULL);

  return g_build_filename (dir, "sub", "warden.db", NULL);
}

static void
test_sessions (void)
{
  g_autofree char *path = temp_db ();
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSessionStore) store = warden_session_store_new (path, &error);
  g_autoptr(WardenSessionInfo) a = warden_session_info_new ();
  g_autoptr(WardenSessionInfo) b = warden_session_info_new ();
  g_autoptr(WardenSessionInfo) got = NULL;
  g_autoptr(GPtrArray) list = NULL;

  g_assert_no_error (error);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));

  a->title = g_strdup ("Fix the tests");
  a->workspace = g_strdup ("/home/me/project");
  a->profile = g_strdup ("node");
  a->provider = g_strdup ("anthropic");
  a->model = g_strdup ("claude-sonnet-4-5");
  a->sandbox = g_strdup ("bwrap");
  a->state = g_strdup ("idle");
  g_assert_true (warden_session_store_save_session (store, a, &error));
  g_assert_no_error (error);
  g_assert_nonnull (a->id);
  g_assert_cmpuint (strlen (a->id), ==, 36);

  b->title = g_strdup ("Second");
  g_assert_true (warden_session_store_save_session (store, b, &error));

  got = warden_session_store_get_session (store, a->id, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (got->title, ==, "Fix the tests");
  g_assert_cmpstr (got->workspace, ==, "/home/me/project");
  g_assert_cmpstr (got->sandbox, ==, "bwrap");
  g_assert_cmpint (got->created, >, 0);

  /* Saving again updates, it does not duplicate. */
  g_free (a->state);
  a->state = g_strdup ("waiting");
  a->input_tokens = 1200;
  g_assert_true (warden_session_store_save_session (store, a, &error));
  list = warden_session_store_list_sessions (store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 2);
  g_clear_pointer (&got, warden_session_info_free);
  got = warden_session_store_get_session (store, a->id, &error);
  g_assert_cmpstr (got->state, ==, "waiting");
  g_assert_cmpint (got->input_tokens, ==, 1200);
}

static void
test_not_found (void)
{
  g_autofree char *path = temp_db ();
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSessionStore) store = warden_session_store_new (path, &error);
  g_autoptr(WardenSessionInfo) got = warden_session_store_get_session (store, "nope", &error);

  g_assert_null (got);
  g_assert_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "sessions list"));
}

static void
test_messages_in_order (void)
{
  g_autofree char *path = temp_db ();
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSessionStore) store = warden_session_store_new (path, &error);
  g_autoptr(WardenSessionInfo) s = warden_session_info_new ();
  g_autoptr(GPtrArray) messages = NULL;

  g_assert_true (warden_session_store_save_session (store, s, &error));
  g_assert_true (warden_session_store_append_message (store, s->id, 1, "{\"b\":1}", 0, 0, &error));
  g_assert_true (warden_session_store_append_message (store, s->id, 0, "{\"a\":1}", 10, 0, &error));
  g_assert_true (warden_session_store_append_message (store, s->id, 2, "{\"c\":1}", 0, 5, &error));
  messages = warden_session_store_load_messages (store, s->id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (messages->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (messages, 0), ==, "{\"a\":1}");
  g_assert_cmpstr (g_ptr_array_index (messages, 2), ==, "{\"c\":1}");
}

static void
test_tool_calls (void)
{
  g_autofree char *path = temp_db ();
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSessionStore) store = warden_session_store_new (path, &error);
  g_autoptr(WardenSessionInfo) s = warden_session_info_new ();
  g_autoptr(WardenToolCallRecord) r = warden_tool_call_record_new ();
  g_autoptr(WardenToolCallRecord) r2 = warden_tool_call_record_new ();
  g_autoptr(WardenToolCallRecord) got = NULL;
  g_autoptr(GPtrArray) list = NULL;

  g_assert_true (warden_session_store_save_session (store, s, &error));
  r->session_id = g_strdup (s->id);
  r->tool_use_id = g_strdup ("toolu_1");
  r->name = g_strdup ("exec");
  r->input_json = g_strdup ("{\"command\":\"npm install chalk\"}");
  r->state = g_strdup ("pending");
  r->decision = g_strdup ("asked");
  r->reason = g_strdup ("no allow pattern matches");
  g_assert_true (warden_session_store_save_tool_call (store, r, &error));
  r2->session_id = g_strdup (s->id);
  r2->tool_use_id = g_strdup ("toolu_2");
  r2->name = g_strdup ("read");
  r2->state = g_strdup ("finished");
  g_assert_true (warden_session_store_save_tool_call (store, r2, &error));

  /* Resolved later: the record is updated in place and keeps its position. */
  g_free (r->state);
  r->state = g_strdup ("finished");
  g_free (r->decision);
  r->decision = g_strdup ("rejected");
  r->feedback = g_strdup ("use pnpm");
  r->finished = 42;
  g_assert_true (warden_session_store_save_tool_call (store, r, &error));

  /* Saving the session again keeps what belongs to it. */
  g_assert_true (warden_session_store_save_session (store, s, &error));

  list = warden_session_store_list_tool_calls (store, s->id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 2);
  g_assert_cmpstr (((WardenToolCallRecord *) g_ptr_array_index (list, 0))->tool_use_id, ==,
                   "toolu_1");
  got = warden_session_store_get_tool_call (store, s->id, "toolu_1", &error);
  g_assert_cmpstr (got->decision, ==, "rejected");
  g_assert_cmpstr (got->feedback, ==, "use pnpm");
  g_assert_cmpint (got->finished, ==, 42);
}

/* What was saved is there after the store is closed and opened again. */
static void
test_survives_reopen (void)
{
  g_autofree char *path = temp_db ();
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;

  {
    g_autoptr(WardenSessionStore) store = warden_session_store_new (path, &error);
    g_autoptr(WardenSessionInfo) s = warden_session_info_new ();

    s->state = g_strdup ("waiting");
    g_assert_true (warden_session_store_save_session (store, s, &error));
    g_assert_true (warden_session_store_append_message (store, s->id, 0, "{}", 0, 0, &error));
    id = g_strdup (s->id);
  }
  {
    g_autoptr(WardenSessionStore) store = warden_session_store_new (path, &error);
    g_autoptr(WardenSessionInfo) s = warden_session_store_get_session (store, id, &error);
    g_autoptr(GPtrArray) messages = warden_session_store_load_messages (store, id, &error);

    g_assert_no_error (error);
    g_assert_cmpstr (s->state, ==, "waiting");
    g_assert_cmpuint (messages->len, ==, 1);
  }
}

/* What the trace shows, and a session deleted with everything it holds. */
static void
test_trace_and_delete (void)
{
  g_autofree char *path = temp_db ();
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSessionStore) store = warden_session_store_new (path, &error);
  g_autoptr(WardenSessionInfo) info = warden_session_info_new ();
  g_autoptr(WardenToolCallRecord) r = warden_tool_call_record_new ();
  g_autoptr(WardenToolCallRecord) back = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(GPtrArray) sessions = NULL;
  WardenModelCallRecord *call;

  g_assert_no_error (error);
  g_assert_true (warden_session_store_save_session (store, info, &error));
  g_assert_true (warden_session_store_append_message (store, info->id, 0, "{\"role\":\"user\"}",
                                                      0, 0, &error));
  g_assert_true (warden_session_store_append_model_message (store, info->id, 1,
                                                            "{\"role\":\"assistant\"}",
                                                            1200, 310, 1834, &error));
  g_assert_no_error (error);

  /* Only the model's answers are model calls. */
  calls = warden_session_store_list_model_calls (store, info->id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (calls->len, ==, 1);
  call = g_ptr_array_index (calls, 0);
  g_assert_cmpuint (call->seq, ==, 1);
  g_assert_cmpint (call->latency_ms, ==, 1834);
  g_assert_cmpint (call->input_tokens, ==, 1200);
  g_assert_cmpint (call->output_tokens, ==, 310);

  r->session_id = g_strdup (info->id);
  r->tool_use_id = g_strdup ("toolu_1");
  r->name = g_strdup ("exec");
  r->state = g_strdup ("approved");
  r->asked = 1000;
  r->answered = 13000;
  r->answered_via = g_strdup ("notification");
  g_assert_true (warden_session_store_save_tool_call (store, r, &error));
  back = warden_session_store_get_tool_call (store, info->id, "toolu_1", &error);
  g_assert_no_error (error);
  g_assert_cmpint (back->answered - back->asked, ==, 12000);
  g_assert_cmpstr (back->answered_via, ==, "notification");

  g_assert_true (warden_session_store_delete_session (store, info->id, &error));
  g_assert_no_error (error);
  sessions = warden_session_store_list_sessions (store, &error);
  g_assert_cmpuint (sessions->len, ==, 0);
  g_clear_pointer (&calls, g_ptr_array_unref);
  calls = warden_session_store_list_tool_calls (store, info->id, &error);
  g_assert_cmpuint (calls->len, ==, 0);
}

/* A database of schema 1 (Warden 0.1) opens and gains the new columns. */
static void
test_migrates_schema_1 (void)
{
  g_autofree char *path = temp_db ();
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSessionStore) store = NULL;
  g_autoptr(WardenToolCallRecord) back = NULL;
  sqlite3 *db = NULL;

  g_mkdir_with_parents (dir, 0700);
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db,
    "CREATE TABLE sessions (id TEXT PRIMARY KEY, title TEXT, created INTEGER, updated INTEGER,"
    " workspace TEXT, profile TEXT, provider TEXT, model TEXT, sandbox TEXT, image TEXT,"
    " state TEXT, input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0);"
    "CREATE TABLE messages (session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
    " seq INTEGER NOT NULL, json TEXT NOT NULL, input_tokens INTEGER, output_tokens INTEGER,"
    " created INTEGER, PRIMARY KEY (session_id, seq));"
    "CREATE TABLE tool_calls (session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
    " tool_use_id TEXT NOT NULL, ord INTEGER, name TEXT, input_json TEXT, state TEXT,"
    " decision TEXT, pattern TEXT, reason TEXT, feedback TEXT, result_json TEXT,"
    " started INTEGER, finished INTEGER, PRIMARY KEY (session_id, tool_use_id));"
    "INSERT INTO sessions (id, title) VALUES ('old', 'Old session');"
    "INSERT INTO tool_calls (session_id, tool_use_id, ord, name, state) "
    " VALUES ('old', 't1', 1, 'exec', 'finished');"
    "PRAGMA user_version = 1;", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);

  store = warden_session_store_new (path, &error);
  g_assert_no_error (error);
  back = warden_session_store_get_tool_call (store, "old", "t1", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (back->state, ==, "finished");
  g_assert_cmpint (back->asked, ==, 0);
  g_assert_null (back->answered_via);
}

static void
test_newer_schema (void)
{
  g_autofree char *path = temp_db ();
  g_autoptr(GError) error = NULL;
  sqlite3 *db = NULL;

  g_object_unref (warden_session_store_new (path, &error));
  g_assert_no_error (error);
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "PRAGMA user_version = 99", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);

  g_assert_null (warden_session_store_new (path, &error));
  g_assert_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_NEWER);
  g_assert_nonnull (strstr (error->message, "newer Warden"));
}

static void
test_not_a_database (void)
{
  g_autofree char *path = temp_db ();
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;

  g_mkdir_with_parents (dir, 0700);
  g_assert_true (g_file_set_contents (path, "this is not sqlite, just some text that is long "
                                      "enough to look like a header of a file", -1, NULL));
  g_assert_null (warden_session_store_new (path, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, path));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/agent/store/sessions", test_sessions);
  g_test_add_func ("/agent/store/not-found", test_not_found);
  g_test_add_func ("/agent/store/messages-in-order", test_messages_in_order);
  g_test_add_func ("/agent/store/tool-calls", test_tool_calls);
  g_test_add_func ("/agent/store/survives-reopen", test_survives_reopen);
  g_test_add_func ("/agent/store/newer-schema", test_newer_schema);
  g_test_add_func ("/agent/store/trace-and-delete", test_trace_and_delete);
  g_test_add_func ("/agent/store/migrates-schema-1", test_migrates_schema_1);
  g_test_add_func ("/agent/store/not-a-database", test_not_a_database);

  return g_test_run ();
}
