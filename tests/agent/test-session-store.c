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
  g_test_add_func ("/agent/store/not-a-database", test_not_a_database);

  return g_test_run ();
}
