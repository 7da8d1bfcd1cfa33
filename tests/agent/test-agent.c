/* test-agent.c: the agent loop end to end, with a real sandbox and a scripted model
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <string.h>

#include "agent/warden-agent.h"
#include "llm/warden-anthropic-provider.h"
#include "sandbox/warden-docker-client.h"

#include "fake-model.h"

/* ------------------------------------------------------------------------ */
/* A session on a temporary project */

typedef struct
{
  FakeModel          *fake;
  char               *root;
  char               *workspace;
  char               *profiles_dir;
  char               *db;
  WardenSessionStore *store;
  WardenProfileStore *profiles;
  WardenLlmProvider  *provider;
  const char         *sandbox;
} Env;

static void store_cb (GObject *object, GAsyncResult *result, gpointer user_data);

static gboolean
docker_usable (void)
{
  g_autoptr(WardenDockerClient) client = warden_docker_client_new_from_env (NULL);
  GAsyncResult *res = NULL;
  gboolean ok;

  if (client == NULL)
    return FALSE;
  warden_docker_client_ping_async (client, NULL, store_cb, &res);
  while (res == NULL)
    g_main_context_iteration (NULL, TRUE);
  ok = warden_docker_client_ping_finish (client, res, NULL);
  g_object_unref (res);
  return ok;
}

static void
env_set_up (Env        *env,
            const char *sandbox)
{
  g_autoptr(GError) error = NULL;

  env->sandbox = sandbox;
  env->fake = fake_model_new ();
  env->root = g_dir_make_tmp ("warden-test-agent-XXXXXX", &error);
  g_assert_no_error (error);
  env->workspace = g_build_filename (env->root, "project", NULL);
  env->profiles_dir = g_build_filename (env->root, "profiles", NULL);
  env->db = g_build_filename (env->root, "warden.db", NULL);
  g_mkdir (env->workspace, 0777);
  g_chmod (env->workspace, 0777);
  env->store = warden_session_store_new (env->db, &error);
  g_assert_no_error (error);
  env->profiles = warden_profile_store_new (env->profiles_dir);
  env->provider = warden_anthropic_provider_new ("test-key", env->fake->url, "fake-model");
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir && (name = g_dir_read_name (dir)))
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

static void
env_tear_down (Env *env)
{
  g_clear_object (&env->provider);
  g_clear_object (&env->profiles);
  g_clear_object (&env->store);
  remove_tree (env->root);
  g_free (env->root);
  g_free (env->workspace);
  g_free (env->profiles_dir);
  g_free (env->db);
  fake_model_free (env->fake);
}

static WardenAgent *
new_agent (Env   *env,
           guint  max_steps)
{
  WardenAgentConfig config = { 0 };
  g_autoptr(GError) error = NULL;
  WardenAgent *agent;

  config.workspace = env->workspace;
  config.profile = (char *) "node";
  config.sandbox = (char *) env->sandbox;
  config.image = (char *) (g_getenv ("WARDEN_TEST_IMAGE") ? g_getenv ("WARDEN_TEST_IMAGE")
                                                          : "warden-test-busybox:latest");
  config.max_steps = max_steps;
  agent = warden_agent_new (env->store, env->profiles, env->provider, &config, &error);
  g_assert_no_error (error);
  return agent;
}

static void
store_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static WardenAgentOutcome
run_agent (WardenAgent *agent,
           const char  *task)
{
  GAsyncResult *res = NULL;
  g_autoptr(GError) error = NULL;
  WardenAgentOutcome outcome = WARDEN_AGENT_FINISHED;
  gint64 deadline = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;

  warden_agent_run_async (agent, task, NULL, store_cb, &res);
  while (res == NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (res);
  warden_agent_run_finish (agent, res, &outcome, &error);
  g_object_unref (res);
  g_assert_no_error (error);
  return outcome;
}

static char *
workspace_file (Env        *env,
                const char *name)
{
  g_autofree char *path = g_build_filename (env->workspace, name, NULL);
  char *content = NULL;

  g_file_get_contents (path, &content, NULL, NULL);
  return content;
}

static gboolean
skip_docker (const char *sandbox)
{
  if (strcmp (sandbox, "docker") != 0 || docker_usable ())
    return FALSE;
  if (g_strcmp0 (g_getenv ("CI"), "true") == 0)
    g_test_fail_printf ("no Docker engine, and CI=true");
  else
    g_test_skip ("no Docker engine");
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* The scenarios */

/* An allowlisted command runs at once; its result goes back to the model. */
static void
count_cb (guint *counter)
{
  (*counter)++;
}

static void
test_allowed_runs (gconstpointer data)
{
  guint started = 0, deltas = 0;
  Env env = { 0 };
  g_autoptr(WardenAgent) agent = NULL;
  g_autofree char *out = NULL;
  g_autofree char *second = NULL;

  if (skip_docker (data))
    return;
  env_set_up (&env, data);
  g_queue_push_tail (&env.fake->script,
                     fake_reply ("I'll write it.", "exec", "{\"command\": \"echo hello > out.txt\"}",
                            NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Done.", NULL));

  agent = new_agent (&env, 0);
  g_signal_connect_swapped (agent, "tool-use-start", G_CALLBACK (count_cb), &started);
  g_signal_connect_swapped (agent, "text-delta", G_CALLBACK (count_cb), &deltas);
  g_assert_cmpint (run_agent (agent, "write hello to out.txt"), ==, WARDEN_AGENT_FINISHED);
  /* What a view shows as it streams. */
  g_assert_cmpuint (started, ==, 1);
  g_assert_cmpuint (deltas, ==, 2);
  g_assert_null (warden_agent_get_pending (agent));
  out = workspace_file (&env, "out.txt");
  g_assert_cmpstr (out, ==, "hello\n");

  g_assert_cmpuint (env.fake->requests->len, ==, 2);
  second = fake_model_last_message (env.fake, 1);
  g_assert_nonnull (strstr (second, "tool_result"));
  g_assert_nonnull (strstr (second, "\\\"exit_code\\\":0"));

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) calls = warden_session_store_list_tool_calls (env.store,
                                                                      warden_agent_get_session_id (agent),
                                                                      &error);
    WardenToolCallRecord *r;

    g_assert_no_error (error);
    g_assert_cmpuint (calls->len, ==, 1);
    r = g_ptr_array_index (calls, 0);

    g_assert_cmpstr (r->decision, ==, "auto-allowed");
    g_assert_cmpstr (r->pattern, ==, "echo *");
    g_assert_cmpstr (r->state, ==, "finished");
  }
  g_clear_object (&agent);
  env_tear_down (&env);
}

/* A command the profile does not allow waits; a rejection with feedback
 * reaches the model word for word. */
static void
test_reject_with_feedback (gconstpointer data)
{
  Env env = { 0 };
  g_autoptr(WardenAgent) agent = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *second = NULL;
  WardenApproval *approval;
  WardenApprovalAnswer answer = { .approved = FALSE, .feedback = "use pnpm instead" };

  if (skip_docker (data))
    return;
  env_set_up (&env, data);
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"npm install chalk\"}", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("I will use pnpm.", NULL));

  agent = new_agent (&env, 0);
  g_assert_cmpint (run_agent (agent, "add chalk"), ==, WARDEN_AGENT_WAITING);
  approval = warden_agent_get_pending (agent);
  g_assert_nonnull (approval);
  g_assert_cmpint (warden_approval_get_kind (approval), ==, WARDEN_APPROVAL_COMMAND);
  g_assert_cmpstr (warden_approval_get_subject (approval), ==, "npm install chalk");
  g_assert_cmpstr (warden_approval_get_suggestions (approval)[0], ==, "npm install *");
  g_assert_nonnull (warden_approval_get_reason (approval));

  g_assert_true (warden_agent_resolve (agent, &answer, &error));
  g_assert_no_error (error);
  g_assert_cmpint (run_agent (agent, NULL), ==, WARDEN_AGENT_FINISHED);

  second = fake_model_last_message (env.fake, 1);
  g_assert_nonnull (strstr (second, "Command rejected by user: npm install chalk"));
  g_assert_nonnull (strstr (second, "User feedback: use pnpm instead"));
  g_assert_nonnull (strstr (second, "\"is_error\":true"));
  g_clear_object (&agent);
  env_tear_down (&env);
}

/* "Always allow" saves the pattern in a user copy of the built-in profile;
 * the same kind of command then runs without asking. */
static void
test_always_allow (gconstpointer data)
{
  Env env = { 0 };
  g_autoptr(WardenAgent) agent = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *saved_path = NULL;
  g_autofree char *saved = NULL;
  WardenApprovalAnswer answer = { .approved = TRUE, .allow_always = TRUE, .pattern = "touch *" };

  if (skip_docker (data))
    return;
  env_set_up (&env, data);
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"touch one.txt\"}", NULL));
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"touch two.txt\"}", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Both made.", NULL));

  agent = new_agent (&env, 0);
  g_assert_cmpint (run_agent (agent, "make two files"), ==, WARDEN_AGENT_WAITING);
  g_assert_true (warden_agent_resolve (agent, &answer, &error));
  g_assert_no_error (error);
  g_assert_cmpint (run_agent (agent, NULL), ==, WARDEN_AGENT_FINISHED);

  g_assert_true (g_file_test (g_build_filename (env.workspace, "one.txt", NULL),
                              G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (g_build_filename (env.workspace, "two.txt", NULL),
                              G_FILE_TEST_EXISTS));
  saved_path = g_build_filename (env.profiles_dir, "node-custom.json", NULL);
  g_assert_true (g_file_get_contents (saved_path, &saved, NULL, NULL));
  g_assert_nonnull (strstr (saved, "\"touch *\""));

  {
    g_autoptr(GPtrArray) calls = warden_session_store_list_tool_calls (env.store,
                                                                      warden_agent_get_session_id (agent),
                                                                      NULL);

    g_assert_cmpuint (calls->len, ==, 2);
    g_assert_cmpstr (((WardenToolCallRecord *) g_ptr_array_index (calls, 0))->decision, ==,
                     "approved-always");
    g_assert_cmpstr (((WardenToolCallRecord *) g_ptr_array_index (calls, 1))->decision, ==,
                     "auto-allowed");
  }
  g_clear_object (&agent);
  env_tear_down (&env);
}

static void
test_max_steps (void)
{
  Env env = { 0 };
  g_autoptr(WardenAgent) agent = NULL;

  env_set_up (&env, "bwrap");
  for (guint i = 0; i < 10; i++)
    g_queue_push_tail (&env.fake->script, fake_reply (NULL, "exec", "{\"command\": \"ls\"}", NULL));

  agent = new_agent (&env, 3);
  g_assert_cmpint (run_agent (agent, "loop forever"), ==, WARDEN_AGENT_MAX_STEPS);
  g_assert_cmpuint (env.fake->requests->len, ==, 3);
  g_clear_object (&agent);
  env_tear_down (&env);
}

/* The process dies while an approval waits: the reopened session shows it
 * again, and the approved command runs exactly once. */
static void
test_survives_crash (gconstpointer data)
{
  Env env = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  g_autofree char *count = NULL;
  WardenApprovalAnswer answer = { .approved = TRUE };
  const char *command = "{\"command\": \"printf 'ran\\\\n' >> count.txt\"}";

  if (skip_docker (data))
    return;
  env_set_up (&env, data);
  g_queue_push_tail (&env.fake->script, fake_reply (NULL, "exec", command, NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Counted.", NULL));

  {
    g_autoptr(WardenAgent) agent = new_agent (&env, 0);

    g_assert_cmpint (run_agent (agent, "count once"), ==, WARDEN_AGENT_WAITING);
    id = g_strdup (warden_agent_get_session_id (agent));
    /* The "crash": everything in memory is gone. */
  }
  g_clear_object (&env.store);
  env.store = warden_session_store_new (env.db, &error);
  g_assert_no_error (error);

  {
    g_autoptr(WardenAgent) agent = warden_agent_open (env.store, env.profiles, env.provider, id,
                                                      &error);

    g_assert_no_error (error);
    g_assert_cmpint (run_agent (agent, NULL), ==, WARDEN_AGENT_WAITING);
    g_assert_nonnull (warden_agent_get_pending (agent));
    g_assert_cmpstr (warden_approval_get_subject (warden_agent_get_pending (agent)), ==,
                     "printf 'ran\\n' >> count.txt");
    g_assert_true (warden_agent_resolve (agent, &answer, &error));
    g_assert_cmpint (run_agent (agent, NULL), ==, WARDEN_AGENT_FINISHED);
  }
  {
    /* Opened once more: nothing runs again. */
    g_autoptr(WardenAgent) agent = warden_agent_open (env.store, env.profiles, env.provider, id,
                                                      &error);

    g_assert_no_error (error);
    g_assert_cmpint (run_agent (agent, NULL), ==, WARDEN_AGENT_FINISHED);
  }
  count = workspace_file (&env, "count.txt");
  g_assert_cmpstr (count, ==, "ran\n");
  env_tear_down (&env);
}

/* A command that started and never finished is reported, not run again. */
static void
test_interrupted_not_rerun (void)
{
  Env env = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  g_autofree char *second = NULL;
  g_autoptr(WardenToolCallRecord) r = NULL;
  WardenApprovalAnswer answer = { .approved = TRUE };

  env_set_up (&env, "bwrap");
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"printf x >> count.txt\"}", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Noted.", NULL));

  {
    g_autoptr(WardenAgent) agent = new_agent (&env, 0);
    g_autoptr(GPtrArray) calls = NULL;

    g_assert_cmpint (run_agent (agent, "count"), ==, WARDEN_AGENT_WAITING);
    g_assert_true (warden_agent_resolve (agent, &answer, &error));
    id = g_strdup (warden_agent_get_session_id (agent));
    calls = warden_session_store_list_tool_calls (env.store, id, NULL);
    r = warden_tool_call_record_new ();
    *r = *(WardenToolCallRecord *) g_ptr_array_index (calls, 0);
    memset (g_ptr_array_index (calls, 0), 0, sizeof *r);
  }
  /* As if the process died right after recording "running". */
  g_free (r->state);
  r->state = g_strdup ("running");
  r->started = 1;
  g_assert_true (warden_session_store_save_tool_call (env.store, r, &error));

  {
    g_autoptr(WardenAgent) agent = warden_agent_open (env.store, env.profiles, env.provider, id,
                                                      &error);

    g_assert_no_error (error);
    g_assert_cmpint (run_agent (agent, NULL), ==, WARDEN_AGENT_FINISHED);
  }
  g_assert_false (g_file_test (g_build_filename (env.workspace, "count.txt", NULL),
                               G_FILE_TEST_EXISTS));
  second = fake_model_last_message (env.fake, env.fake->requests->len - 1);
  g_assert_nonnull (strstr (second, "not run again"));
  env_tear_down (&env);
}

/* Mistakes of the model come back to it as error results; the loop goes on. */
static void
test_bad_tool_calls (void)
{
  Env env = { 0 };
  g_autoptr(WardenAgent) agent = NULL;
  g_autofree char *second = NULL;

  env_set_up (&env, "bwrap");
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "frobnicate", "{}", "exec", "{\"cmd\": \"ls\"}",
                            "read", "{\"path\": \"../../etc/passwd\"}", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Sorry.", NULL));

  agent = new_agent (&env, 0);
  g_assert_cmpint (run_agent (agent, "do odd things"), ==, WARDEN_AGENT_WAITING);
  /* The read outside the workspace asks; reject it. */
  {
    WardenApprovalAnswer no = { .approved = FALSE };

    g_assert_cmpint (warden_approval_get_kind (warden_agent_get_pending (agent)), ==,
                     WARDEN_APPROVAL_PATH);
    g_assert_true (warden_agent_resolve (agent, &no, NULL));
  }
  g_assert_cmpint (run_agent (agent, NULL), ==, WARDEN_AGENT_FINISHED);
  second = fake_model_last_message (env.fake, 1);
  g_assert_nonnull (strstr (second, "no tool named"));
  g_assert_nonnull (strstr (second, "non-empty"));
  g_assert_nonnull (strstr (second, "File access rejected by user"));
  g_clear_object (&agent);
  env_tear_down (&env);
}

static void
test_ask_user (void)
{
  Env env = { 0 };
  g_autoptr(WardenAgent) agent = NULL;
  g_autofree char *second = NULL;
  WardenApprovalAnswer answer = { .answer = "blue" };

  env_set_up (&env, "bwrap");
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "ask_user",
                            "{\"question\": \"Which colour?\", \"choices\": [\"red\", \"blue\"]}",
                            NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Blue it is.", NULL));

  agent = new_agent (&env, 0);
  g_assert_cmpint (run_agent (agent, "paint"), ==, WARDEN_AGENT_WAITING);
  g_assert_cmpint (warden_approval_get_kind (warden_agent_get_pending (agent)), ==,
                   WARDEN_APPROVAL_QUESTION);
  g_assert_cmpstr (warden_approval_get_choices (warden_agent_get_pending (agent))[1], ==, "blue");
  g_assert_true (warden_agent_resolve (agent, &answer, NULL));
  g_assert_cmpint (run_agent (agent, NULL), ==, WARDEN_AGENT_FINISHED);
  second = fake_model_last_message (env.fake, 1);
  g_assert_nonnull (strstr (second, "\"content\":\"blue\""));
  g_clear_object (&agent);
  env_tear_down (&env);
}

/* The file tools work on the project, from the host side. */
static void
test_file_tools (void)
{
  Env env = { 0 };
  g_autoptr(WardenAgent) agent = NULL;
  g_autofree char *content = NULL;
  g_autofree char *second = NULL;

  env_set_up (&env, "bwrap");
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "write", "{\"path\": \"src/a.txt\", \"content\": \"one\\ntwo\\n\"}",
                            "edit", "{\"path\": \"/workspace/src/a.txt\", \"old_string\": \"two\", "
                            "\"new_string\": \"deux\"}",
                            "read", "{\"path\": \"src/a.txt\"}",
                            "grep", "{\"pattern\": \"deu.\"}",
                            "glob", "{\"pattern\": \"**/*.txt\"}", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Edited.", NULL));

  agent = new_agent (&env, 0);
  g_assert_cmpint (run_agent (agent, "edit a file"), ==, WARDEN_AGENT_FINISHED);
  content = workspace_file (&env, "src/a.txt");
  g_assert_cmpstr (content, ==, "one\ndeux\n");
  second = fake_model_last_message (env.fake, 1);
  g_assert_nonnull (strstr (second, "     2\\tdeux"));
  g_assert_nonnull (strstr (second, "src/a.txt:2: deux"));
  g_clear_object (&agent);
  env_tear_down (&env);
}

static guint
n_messages_of (FakeModel *fake,
               guint      i)
{
  JsonObject *body = json_node_get_object (g_ptr_array_index (fake->requests, i));

  return json_array_get_length (json_object_get_array_member (body, "messages"));
}

static const char *
first_role_of (FakeModel *fake,
               guint      i)
{
  JsonObject *body = json_node_get_object (g_ptr_array_index (fake->requests, i));
  JsonArray *messages = json_object_get_array_member (body, "messages");

  return json_object_get_string_member (json_array_get_object_element (messages, 0), "role");
}

/* Old turns fall out of what the model is sent; a tool call never loses
 * its result on the way. */
static void
test_history_window (void)
{
  Env env = { 0 };
  g_autoptr(WardenAgent) agent = NULL;
  WardenAgentConfig config = { 0 };
  g_autoptr(GError) error = NULL;

  env_set_up (&env, "bwrap");
  for (guint turn = 0; turn < 3; turn++)
    {
      g_queue_push_tail (&env.fake->script, fake_reply (NULL, "exec", "{\"command\": \"ls\"}",
                                                        NULL));
      g_queue_push_tail (&env.fake->script, fake_reply ("ok", NULL));
    }
  config.workspace = env.workspace;
  config.sandbox = (char *) "bwrap";
  config.history = 4;
  agent = warden_agent_new (env.store, env.profiles, env.provider, &config, &error);
  g_assert_no_error (error);

  for (guint turn = 0; turn < 3; turn++)
    g_assert_cmpint (run_agent (agent, "list"), ==, WARDEN_AGENT_FINISHED);

  /* Each turn: task, tool call, result, answer. The last request of the
   * third turn starts at its task: 3 messages, not all 11. */
  g_assert_cmpuint (env.fake->requests->len, ==, 6);
  g_assert_cmpuint (n_messages_of (env.fake, 5), ==, 3);
  for (guint i = 0; i < env.fake->requests->len; i++)
    g_assert_cmpstr (first_role_of (env.fake, i), ==, "user");
  g_clear_object (&agent);
  env_tear_down (&env);
}

/* A new task after a stop: the unanswered tool calls get results first. */
static void
test_new_task_after_stop (void)
{
  Env env = { 0 };
  g_autoptr(WardenAgent) agent = NULL;
  g_autofree char *last = NULL;

  env_set_up (&env, "bwrap");
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"npm install chalk\"}", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Fine.", NULL));

  agent = new_agent (&env, 0);
  g_assert_cmpint (run_agent (agent, "add chalk"), ==, WARDEN_AGENT_WAITING);
  {
    WardenApprovalAnswer no = { .approved = FALSE, .feedback = "not now" };

    g_assert_true (warden_agent_resolve (agent, &no, NULL));
  }
  /* The user types something new instead of letting the loop go on. */
  g_assert_cmpint (run_agent (agent, "never mind, just say hi"), ==, WARDEN_AGENT_FINISHED);
  last = fake_model_last_message (env.fake, 1);
  g_assert_nonnull (strstr (last, "just say hi"));
  /* Right before it: the tool call's result, as the API requires. */
  {
    JsonObject *body = json_node_get_object (g_ptr_array_index (env.fake->requests, 1));
    JsonArray *messages = json_object_get_array_member (body, "messages");
    guint n = json_array_get_length (messages);
    g_autofree char *before = json_to_string (json_array_get_element (messages, n - 2), FALSE);

    g_assert_nonnull (strstr (before, "tool_result"));
    g_assert_nonnull (strstr (before, "User feedback: not now"));
  }
  g_clear_object (&agent);
  env_tear_down (&env);
}

int
main (int    argc,
      char **argv)
{
  const char *sandboxes[] = { "bwrap", "docker" };

  g_setenv ("WARDEN_LLM_RETRY_BASE_MS", "1", TRUE);
  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (sandboxes); i++)
    {
      g_autofree char *a = g_strdup_printf ("/agent/%s/allowed-runs", sandboxes[i]);
      g_autofree char *b = g_strdup_printf ("/agent/%s/reject-with-feedback", sandboxes[i]);
      g_autofree char *c = g_strdup_printf ("/agent/%s/always-allow", sandboxes[i]);
      g_autofree char *d = g_strdup_printf ("/agent/%s/survives-crash", sandboxes[i]);

      g_test_add_data_func (a, sandboxes[i], test_allowed_runs);
      g_test_add_data_func (b, sandboxes[i], test_reject_with_feedback);
      g_test_add_data_func (c, sandboxes[i], test_always_allow);
      g_test_add_data_func (d, sandboxes[i], test_survives_crash);
    }
  g_test_add_func ("/agent/max-steps", test_max_steps);
  g_test_add_func ("/agent/interrupted-not-rerun", test_interrupted_not_rerun);
  g_test_add_func ("/agent/bad-tool-calls", test_bad_tool_calls);
  g_test_add_func ("/agent/ask-user", test_ask_user);
  g_test_add_func ("/agent/file-tools", test_file_tools);
  g_test_add_func ("/agent/history-window", test_history_window);
  g_test_add_func ("/agent/new-task-after-stop", test_new_task_after_stop);

  return g_test_run ();
}
