/* test-ssh.c: a container engine reached through ssh (DOCKER_HOST=ssh://…),
 * against a real sshd this test starts on 127.0.0.1 with keys it makes, in
 * front of this machine's own Docker engine. OpenSSH reads ~/.ssh from the
 * passwd entry, not $HOME, so the keys and known hosts reach ssh through
 * WARDEN_SSH_COMMAND="ssh -F CONFIG" and the user's own ~/.ssh is never read.
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/warden-docker-client.h"
#include "sandbox/warden-docker-sandbox.h"
#include "warden-test-util.h"

#define TEST_LABEL    WARDEN_DOCKER_LABEL ".test-ssh"
#define DEFAULT_IMAGE "warden-test-busybox:latest"
#define TIMEOUT_S     60.0

#define STRV(...) ((const char * const []) { __VA_ARGS__, NULL })

/* The sshd of this test run, and its keys and client configurations. */
static struct
{
  char        *dir;
  char        *problem;       /* why there is no sshd, or NULL */
  GSubprocess *sshd;
  guint16      port;
  char        *host;          /* ssh://USER@127.0.0.1:PORT */
} server;

static const char *
test_image (void)
{
  const char *image = g_getenv ("WARDEN_TEST_IMAGE");

  return image != NULL && image[0] != '\0' ? image : DEFAULT_IMAGE;
}

/* TRUE (and the test is skipped, or fails under CI=true) without sshd or
 * without the engine behind it. */
static gboolean
skip_without_server (void)
{
  const char *problem = server.problem;

  if (problem == NULL)
    return FALSE;
  if (g_strcmp0 (g_getenv ("CI"), "true") == 0)
    g_test_fail_printf ("%s, and CI=true", problem);
  else
    g_test_skip (problem);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* The server */

static gboolean
run_quietly (const char * const  *argv,
             GError             **error)
{
  g_autofree char *err = NULL;
  int status = -1;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
                     NULL, NULL, NULL, &err, &status, error))
    return FALSE;
  if (!g_spawn_check_wait_status (status, error))
    {
      g_prefix_error (error, "%s: %s", argv[0], err);
      return FALSE;
    }
  return TRUE;
}

static char *
make_key (const char  *name,
          GError     **error)
{
  g_autofree char *path = g_build_filename (server.dir, name, NULL);
  g_autofree char *pub_path = g_strconcat (path, ".pub", NULL);
  char *pub = NULL;

  if (!run_quietly (STRV ("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", path),
                    error) ||
      !g_file_get_contents (pub_path, &pub, NULL, error))
    return NULL;
  return g_strchomp (pub);
}

/* A client configuration with @key, trusting @known_hosts only: nothing of
 * the user's own ~/.ssh, agent or keys. */
static void
write_client_config (const char *name,
                     const char *key,
                     const char *known_hosts)
{
  g_autofree char *path = g_build_filename (server.dir, name, NULL);
  g_autofree char *text = g_strdup_printf ("Host *\n"
                                           "  IdentityFile %s/%s\n"
                                           "  IdentitiesOnly yes\n"
                                           "  IdentityAgent none\n"
                                           "  UserKnownHostsFile %s/%s\n"
                                           "  GlobalKnownHostsFile /dev/null\n"
                                           "  StrictHostKeyChecking yes\n",
                                           server.dir, key, server.dir, known_hosts);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

static guint16
free_port (void)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                            G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;

  g_assert_true (g_socket_bind (socket, any, FALSE, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
}

static gboolean
port_answers (guint16 port)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketConnection) connection =
    g_socket_client_connect_to_host (client, "127.0.0.1", port, NULL, NULL);

  return connection != NULL;
}

static void
die_with_parent (gpointer user_data)
{
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

static gboolean
start_server (GError **error)
{
  g_autofree char *sshd = g_find_program_in_path ("sshd");
  g_autofree char *host_key_pub = NULL;
  g_autofree char *good = NULL;
  g_autofree char *wrong = NULL;
  g_autofree char *nodocker = NULL;
  g_autofree char *config = NULL;
  g_autofree char *config_path = NULL;
  g_autofree char *authorized = NULL;
  g_autofree char *known = NULL;
  g_autofree char *path = NULL;
  g_autofree char *docker = g_find_program_in_path ("docker");
  GSubprocessLauncher *launcher;

  if (sshd == NULL && g_file_test ("/usr/sbin/sshd", G_FILE_TEST_IS_EXECUTABLE))
    sshd = g_strdup ("/usr/sbin/sshd");
  if (sshd == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "no sshd: install openssh-server (scripts/common.sh lists it)");
      return FALSE;
    }
  if (docker == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "no docker command for “docker system dial-stdio” on the ssh side: "
                   "install docker.io");
      return FALSE;
    }
  /* As root, sshd wants its privilege separation folder (the system's
   * service makes it); as another user it runs without one. */
  if (getuid () == 0)
    g_mkdir_with_parents ("/run/sshd", 0755);

  server.dir = g_dir_make_tmp ("warden-test-ssh-XXXXXX", error);
  if (server.dir == NULL)
    return FALSE;
  if ((host_key_pub = make_key ("host_key", error)) == NULL ||
      (good = make_key ("good_key", error)) == NULL ||
      (wrong = make_key ("wrong_key", error)) == NULL ||
      (nodocker = make_key ("nodocker_key", error)) == NULL)
    return FALSE;

  /* The third key logs in where no docker command is found. */
  authorized = g_strdup_printf ("%s\n"
                                "command=\"PATH=/var/empty; eval \\\"$SSH_ORIGINAL_COMMAND\\\"\" "
                                "%s\n",
                                good, nodocker);
  path = g_build_filename (server.dir, "authorized_keys", NULL);
  if (!g_file_set_contents (path, authorized, -1, error))
    return FALSE;

  server.port = free_port ();
  config = g_strdup_printf ("ListenAddress 127.0.0.1:%u\n"
                            "HostKey %s/host_key\n"
                            "AuthorizedKeysFile %s/authorized_keys\n"
                            "PidFile none\n"
                            "StrictModes no\n"
                            "UsePAM no\n"
                            "PasswordAuthentication no\n"
                            "KbdInteractiveAuthentication no\n"
                            "PermitRootLogin prohibit-password\n"
                            "AllowStreamLocalForwarding yes\n",
                            server.port, server.dir, server.dir);
  config_path = g_build_filename (server.dir, "sshd_config", NULL);
  if (!g_file_set_contents (config_path, config, -1, error))
    return FALSE;

  known = g_strdup_printf ("[127.0.0.1]:%u %s\n", server.port, host_key_pub);
  g_clear_pointer (&path, g_free);
  path = g_build_filename (server.dir, "known_hosts", NULL);
  if (!g_file_set_contents (path, known, -1, error))
    return FALSE;
  g_clear_pointer (&path, g_free);
  path = g_build_filename (server.dir, "no_known_hosts", NULL);
  if (!g_file_set_contents (path, "", -1, error))
    return FALSE;

  write_client_config ("good.conf", "good_key", "known_hosts");
  write_client_config ("wrong.conf", "wrong_key", "known_hosts");
  write_client_config ("unknown.conf", "good_key", "no_known_hosts");
  write_client_config ("nodocker.conf", "nodocker_key", "known_hosts");

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  /* A test that fails aborts: sshd goes with it. */
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
  server.sshd = g_subprocess_launcher_spawn (launcher, error, sshd, "-D", "-f", config_path,
                                             NULL);
  g_object_unref (launcher);
  if (server.sshd == NULL)
    return FALSE;
  for (guint i = 0; i < 200 && !port_answers (server.port); i++)
    {
      if (g_subprocess_get_identifier (server.sshd) == NULL)
        break;
      g_usleep (50000);
    }
  if (!port_answers (server.port))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "sshd -D -f %s did not listen on port %u", config_path, server.port);
      return FALSE;
    }

  server.host = g_strdup_printf ("ssh://%s@127.0.0.1:%u", g_get_user_name (), server.port);
  return TRUE;
}

static void
stop_server (void)
{
  if (server.sshd != NULL)
    {
      g_subprocess_send_signal (server.sshd, SIGTERM);
      g_subprocess_wait (server.sshd, NULL, NULL);
      g_clear_object (&server.sshd);
    }
  if (server.dir != NULL)
    warden_test_remove_tree (server.dir);
  g_clear_pointer (&server.dir, g_free);
  g_clear_pointer (&server.host, g_free);
  g_clear_pointer (&server.problem, g_free);
}

/* "ssh -F DIR/@config": the value of WARDEN_SSH_COMMAND. */
static char *
ssh_command (const char *config)
{
  g_autofree char *path = g_build_filename (server.dir, config, NULL);
  g_autofree char *quoted = g_shell_quote (path);

  return g_strdup_printf ("ssh -F %s", quoted);
}

/* Points this process at the engine through ssh with @config. */
static void
use_ssh (const char *host,
         const char *config)
{
  g_autofree char *command = ssh_command (config);

  g_setenv ("DOCKER_HOST", host, TRUE);
  g_setenv ("WARDEN_SSH_COMMAND", command, TRUE);
}

/* ------------------------------------------------------------------------ */
/* Waiting */

static gboolean
flag_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

static GAsyncResult *
wait_result (GAsyncResult **result)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add ((guint) (TIMEOUT_S * 1000), flag_cb, &timed_out);

  while (*result == NULL && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (timed_out);
  g_source_remove (id);
  return *result;
}

static gboolean
ping (WardenDockerClient  *client,
      GError             **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  warden_docker_client_ping_async (client, NULL, warden_test_keep_result_cb, &result);
  return warden_docker_client_ping_finish (client, wait_result (&result), error);
}

static WardenDockerClient *
client_for (const char *host,
            const char *config)
{
  g_autoptr(GError) error = NULL;
  WardenDockerClient *client;

  use_ssh (host, config);
  client = warden_docker_client_new_from_env (&error);
  g_assert_no_error (error);
  return client;
}

/* ------------------------------------------------------------------------ */
/* Tests */

static void
assert_host (const char *host,
             const char *expected)
{
  g_autoptr(WardenDockerClient) client = NULL;
  g_autoptr(GError) error = NULL;

  client = warden_docker_client_new (host, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (warden_docker_client_get_host (client), ==, expected);
}

static void
assert_bad_host (const char *host)
{
  g_autoptr(WardenDockerClient) client = NULL;
  g_autoptr(GError) error = NULL;

  client = warden_docker_client_new (host, NULL, &error);
  g_assert_null (client);
  g_assert_error (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, "ssh://"));
}

/* The forms Docker and Podman users write, and the ones that cannot work. */
static void
test_hosts (void)
{
  assert_host ("ssh://build.example", "ssh://build.example");
  assert_host ("ssh://me@build.example", "ssh://me@build.example");
  assert_host ("ssh://me@build.example:2222", "ssh://me@build.example:2222");
  assert_host ("ssh://me@build.example:2222/", "ssh://me@build.example:2222");
  assert_host ("ssh://me@build.example/run/user/1000/podman/podman.sock",
               "ssh://me@build.example/run/user/1000/podman/podman.sock");

  assert_bad_host ("ssh://");
  assert_bad_host ("ssh://me:secret@build.example");
  assert_bad_host ("ssh://build.example:port");
  assert_bad_host ("ssh://build.example?socket=x");
  assert_bad_host ("ssh://-oProxyCommand=x");
}

/* No ssh to run, or a WARDEN_SSH_COMMAND that is not a command line: the
 * error says which, and what to do. Needs no server. */
static void
test_no_ssh (void)
{
  g_autoptr(WardenDockerClient) client = NULL;
  g_autoptr(GError) error = NULL;

  g_setenv ("WARDEN_SSH_COMMAND", "ssh -o 'unbalanced", TRUE);
  client = warden_docker_client_new ("ssh://me@127.0.0.1:1", NULL, &error);
  g_assert_null (client);
  g_assert_error (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, "WARDEN_SSH_COMMAND"));
  g_clear_error (&error);

  g_setenv ("WARDEN_SSH_COMMAND", "/nonexistent/ssh -v", TRUE);
  client = warden_docker_client_new ("ssh://me@127.0.0.1:1", NULL, &error);
  g_assert_no_error (error);
  g_assert_false (ping (client, &error));
  g_test_message ("%s", error->message);
  g_assert_error (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_NOT_RUNNING);
  g_assert_nonnull (strstr (error->message, "/nonexistent/ssh"));
  g_assert_nonnull (strstr (error->message, "openssh-client"));
  g_unsetenv ("WARDEN_SSH_COMMAND");
}

/* The engine answers through ssh and docker system dial-stdio. */
static void
test_ping (void)
{
  g_autoptr(WardenDockerClient) client = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(JsonNode) image = NULL;
  g_autoptr(GError) error = NULL;
  gint64 start;

  if (skip_without_server ())
    return;
  client = client_for (server.host, "good.conf");

  start = g_get_monotonic_time ();
  g_assert_true (ping (client, &error));
  g_assert_no_error (error);
  g_test_message ("first ping through ssh: %.0f ms",
                  (g_get_monotonic_time () - start) / 1000.0);
  start = g_get_monotonic_time ();
  g_assert_true (ping (client, &error));
  g_test_message ("second ping on the same connection: %.1f ms",
                  (g_get_monotonic_time () - start) / 1000.0);

  warden_docker_client_image_inspect_async (client, test_image (), NULL,
                                            warden_test_keep_result_cb, &result);
  image = warden_docker_client_image_inspect_finish (client, wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (image));
}

/* Podman's form: the path names the engine's socket on the other side,
 * reached through ssh's own forwarding, with no program needed there. */
static void
test_socket_path (void)
{
  g_autoptr(WardenDockerClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *host = NULL;

  if (skip_without_server ())
    return;
  host = g_strconcat (server.host, "/var/run/docker.sock", NULL);
  client = client_for (host, "good.conf");
  g_assert_true (ping (client, &error));
  g_assert_no_error (error);
  g_clear_object (&client);

  /* As Podman users set it: CONTAINER_HOST, with the key in CONTAINER_SSHKEY
   * (the configuration offers only a key the server refuses). */
  {
    g_autofree char *command = ssh_command ("wrong.conf");
    g_autofree char *key = g_build_filename (server.dir, "good_key", NULL);

    g_unsetenv ("DOCKER_HOST");
    g_setenv ("CONTAINER_HOST", host, TRUE);
    g_setenv ("CONTAINER_SSHKEY", key, TRUE);
    g_setenv ("WARDEN_SSH_COMMAND", command, TRUE);
    client = warden_docker_client_new_from_env (&error);
    g_assert_no_error (error);
    g_assert_cmpstr (warden_docker_client_get_host (client), ==, host);
    g_assert_true (ping (client, &error));
    g_assert_no_error (error);
    g_clear_object (&client);
    g_unsetenv ("CONTAINER_HOST");
    g_unsetenv ("CONTAINER_SSHKEY");
  }

  /* No socket there: ssh's own words, and what to do. */
  g_clear_pointer (&host, g_free);
  host = g_strconcat (server.host, "/nonexistent/podman.sock", NULL);
  client = client_for (host, "good.conf");
  g_assert_false (ping (client, &error));
  g_test_message ("%s", error->message);
  g_assert_error (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_NOT_RUNNING);
  g_assert_nonnull (strstr (error->message, "open failed"));
  g_assert_nonnull (strstr (error->message, "/nonexistent/podman.sock"));
}

static void
collect_cb (int         stream,
            const char *data,
            gsize       length,
            gpointer    user_data)
{
  GString **out = user_data;

  g_string_append_len (out[stream == 2 ? 1 : 0], data, length);
}

/* Standard input takes over the connection of exec start ("hijacking"):
 * written through the bridge, half-closed, and the answer read to its end;
 * through docker system dial-stdio, and through the forwarded socket
 * (@data: its path). */
static void
test_exec_stdin (gconstpointer data)
{
  const char *socket_path = data;
  g_autofree char *host = NULL;
  g_autoptr(WardenDockerClient) client = NULL;
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) config = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) input = g_bytes_new_static ("through ssh\n", 12);
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GString) err = g_string_new (NULL);
  GString *streams[] = { out, err };
  g_autofree char *id = NULL;
  g_autofree char *exec_id = NULL;
  int exit_code = -1;
  gboolean running = TRUE;

  if (skip_without_server ())
    return;
  host = g_strconcat (server.host, socket_path, NULL);
  client = client_for (host, "good.conf");

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "Image");
  json_builder_add_string_value (b, test_image ());
  json_builder_set_member_name (b, "Cmd");
  json_builder_begin_array (b);
  json_builder_add_string_value (b, "sleep");
  json_builder_add_string_value (b, "600");
  json_builder_end_array (b);
  json_builder_set_member_name (b, "Labels");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, TEST_LABEL);
  json_builder_add_string_value (b, "1");
  json_builder_end_object (b);
  json_builder_end_object (b);
  config = json_builder_get_root (b);

  warden_docker_client_container_create_async (client, NULL, config, NULL,
                                               warden_test_keep_result_cb, &result);
  id = warden_docker_client_container_create_finish (client, wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  warden_docker_client_container_start_async (client, id, NULL, warden_test_keep_result_cb,
                                              &result);
  warden_docker_client_container_start_finish (client, wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);

  warden_docker_client_exec_create_async (client, id, STRV ("sh", "-c", "cat; echo e >&2; exit 3"),
                                          NULL, NULL, NULL, TRUE, NULL,
                                          warden_test_keep_result_cb, &result);
  exec_id = warden_docker_client_exec_create_finish (client, wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);

  warden_docker_client_exec_start_async (client, exec_id, input, collect_cb, streams, NULL,
                                         warden_test_keep_result_cb, &result);
  warden_docker_client_exec_start_finish (client, wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  g_assert_cmpstr (out->str, ==, "through ssh\n");
  g_assert_cmpstr (err->str, ==, "e\n");

  warden_docker_client_exec_inspect_async (client, exec_id, NULL, warden_test_keep_result_cb,
                                           &result);
  warden_docker_client_exec_inspect_finish (client, wait_result (&result), &exit_code, &running,
                                            &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  g_assert_false (running);
  g_assert_cmpint (exit_code, ==, 3);

  /* What a command costs through ssh, for the README: create, start, read
   * to the end, inspect, on connections already made; and with input,
   * which makes a connection (an ssh login) of its own. */
  for (guint with_stdin = 0; with_stdin < 2; with_stdin++)
    {
      gint64 start = g_get_monotonic_time ();

      for (guint i = 0; i < 3; i++)
        {
          g_autofree char *timed_id = NULL;

          warden_docker_client_exec_create_async (client, id, STRV ("true"), NULL, NULL, NULL,
                                                  with_stdin, NULL,
                                                  warden_test_keep_result_cb, &result);
          timed_id = warden_docker_client_exec_create_finish (client, wait_result (&result),
                                                              &error);
          g_assert_no_error (error);
          g_clear_object (&result);
          warden_docker_client_exec_start_async (client, timed_id, with_stdin ? input : NULL,
                                                 collect_cb, streams, NULL,
                                                 warden_test_keep_result_cb, &result);
          warden_docker_client_exec_start_finish (client, wait_result (&result), &error);
          g_assert_no_error (error);
          g_clear_object (&result);
          warden_docker_client_exec_inspect_async (client, timed_id, NULL,
                                                   warden_test_keep_result_cb, &result);
          warden_docker_client_exec_inspect_finish (client, wait_result (&result), &exit_code,
                                                    &running, &error);
          g_assert_no_error (error);
          g_clear_object (&result);
        }
      g_test_message ("one exec round trip through %s%s: %.0f ms", host,
                      with_stdin ? ", with input" : "",
                      (g_get_monotonic_time () - start) / 3000.0);
    }

  warden_docker_client_container_remove_async (client, id, NULL, warden_test_keep_result_cb,
                                               &result);
  warden_docker_client_container_remove_finish (client, wait_result (&result), &error);
  g_assert_no_error (error);
}

/* Runs warden-cli with DOCKER_HOST and WARDEN_SSH_COMMAND of this test, and
 * @extra_env. */
static int
run_cli (const char * const  *args,
         const char          *config,
         const char * const  *extra_env,
         char               **out,
         char               **err)
{
  const char *cli = g_getenv ("WARDEN_CLI");
  g_autofree char *command = ssh_command (config);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) env = g_get_environ ();
  g_autoptr(GError) error = NULL;
  int status = -1;

  g_assert_nonnull (cli);
  g_ptr_array_add (argv, (gpointer) cli);
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  env = g_environ_setenv (env, "DOCKER_HOST", server.host, TRUE);
  env = g_environ_setenv (env, "WARDEN_SSH_COMMAND", command, TRUE);
  env = g_environ_unsetenv (env, "WARDEN_REMOTE_WORKSPACE");
  for (guint i = 0; extra_env != NULL && extra_env[i]; i++)
    {
      g_auto(GStrv) pair = g_strsplit (extra_env[i], "=", 2);

      env = g_environ_setenv (env, pair[0], pair[1], TRUE);
    }

  g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL, out, err,
                &status, &error);
  g_assert_no_error (error);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

/* A command as a user runs it: the workspace at the same path on the
 * engine's side (here it is the same machine), opted in to. */
static void
test_cli_exec (void)
{
  g_autofree char *workspace = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *written = NULL;
  g_autofree char *file = NULL;

  if (skip_without_server ())
    return;
  workspace = g_dir_make_tmp ("warden-test-ssh-ws-XXXXXX", NULL);
  g_chmod (workspace, 0777);

  g_assert_cmpint (run_cli (STRV ("sandbox", "exec", "--backend", "docker", "--image",
                                  test_image (), "--workspace", workspace, "--",
                                  "echo out; echo written > here.txt; echo err >&2; exit 7"),
                            "good.conf", STRV ("WARDEN_REMOTE_WORKSPACE=same-path"),
                            &out, &err),
                   ==, 7);
  g_test_message ("stderr: %s", err);
  g_assert_cmpstr (out, ==, "out\n");
  g_assert_nonnull (strstr (err, "err\n"));
  file = g_build_filename (workspace, "here.txt", NULL);
  g_assert_true (g_file_get_contents (file, &written, NULL, NULL));
  g_assert_cmpstr (written, ==, "written\n");

  warden_test_remove_tree (workspace);
}

/* Without the opt-in, the folder of this machine is not mounted from a
 * machine that does not have it: the message names the ways out. */
static void
test_cli_workspace_refused (void)
{
  g_autofree char *workspace = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  if (skip_without_server ())
    return;
  workspace = g_dir_make_tmp ("warden-test-ssh-ws-XXXXXX", NULL);

  g_assert_cmpint (run_cli (STRV ("sandbox", "exec", "--backend", "docker", "--image",
                                  test_image (), "--workspace", workspace, "--", "echo ran"),
                            "good.conf", NULL, &out, &err),
                   ==, 125);
  g_test_message ("stderr: %s", err);
  g_assert_cmpstr (out, ==, "");
  g_assert_nonnull (strstr (err, server.host));
  g_assert_nonnull (strstr (err, workspace));
  g_assert_nonnull (strstr (err, "WARDEN_REMOTE_WORKSPACE=same-path"));
  g_assert_nonnull (strstr (err, "run Warden on"));

  warden_test_remove_tree (workspace);
}

/* With the workspace opted in, the sandbox runs, and says why it has no
 * exec guard. */
static void
test_guard_unavailable (void)
{
  g_autofree char *workspace = NULL;
  g_autoptr(WardenSandboxConfig) config = NULL;
  g_autoptr(WardenSandbox) sandbox = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  const char *why;

  if (skip_without_server ())
    return;
  workspace = g_dir_make_tmp ("warden-test-ssh-ws-XXXXXX", NULL);
  config = warden_sandbox_config_new (workspace);
  config->image = g_strdup (test_image ());
  use_ssh (server.host, "good.conf");
  g_setenv ("WARDEN_REMOTE_WORKSPACE", "same-path", TRUE);

  sandbox = warden_docker_sandbox_new (config);
  warden_sandbox_prepare_async (sandbox, NULL, warden_test_keep_result_cb, &result);
  warden_sandbox_prepare_finish (sandbox, wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);

  why = warden_sandbox_get_guard_unavailable (sandbox);
  g_test_message ("guard: %s", why);
  g_assert_nonnull (why);
  g_assert_nonnull (strstr (why, server.host));
  g_assert_nonnull (strstr (why, "another machine"));

  warden_sandbox_destroy_async (sandbox, NULL, warden_test_keep_result_cb, &result);
  warden_sandbox_destroy_finish (sandbox, wait_result (&result), &error);
  g_assert_no_error (error);
  g_unsetenv ("WARDEN_REMOTE_WORKSPACE");
  warden_test_remove_tree (workspace);
}

/* ssh fails: its own line reaches the user, with what to do. */
static void
assert_ssh_fails (const char *config,
                  const char *ssh_says,
                  const char *advice)
{
  g_autoptr(WardenDockerClient) client = NULL;
  g_autoptr(GError) error = NULL;

  client = client_for (server.host, config);
  g_assert_false (ping (client, &error));
  g_test_message ("%s: %s", config, error->message);
  g_assert_error (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_NOT_RUNNING);
  g_assert_nonnull (strstr (error->message, server.host));
  g_assert_nonnull (strstr (error->message, ssh_says));
  g_assert_nonnull (strstr (error->message, advice));
}

static void
test_wrong_key (void)
{
  g_autofree char *workspace = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  if (skip_without_server ())
    return;
  assert_ssh_fails ("wrong.conf", "Permission denied (publickey)", "ssh-add");

  /* The same through warden-cli. */
  workspace = g_dir_make_tmp ("warden-test-ssh-ws-XXXXXX", NULL);
  g_assert_cmpint (run_cli (STRV ("sandbox", "exec", "--backend", "docker", "--image",
                                  test_image (), "--workspace", workspace, "--", "echo ran"),
                            "wrong.conf", STRV ("WARDEN_REMOTE_WORKSPACE=same-path"), &out, &err),
                   ==, 125);
  g_test_message ("stderr: %s", err);
  g_assert_nonnull (strstr (err, "Permission denied (publickey)"));
  warden_test_remove_tree (workspace);
}

static void
test_unknown_host (void)
{
  if (skip_without_server ())
    return;
  assert_ssh_fails ("unknown.conf", "Host key verification failed", "known_hosts");
}

static void
test_no_docker_there (void)
{
  if (skip_without_server ())
    return;
  assert_ssh_fails ("nodocker.conf", "docker: command not found", "install");
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);

  /* Asked before any test points DOCKER_HOST elsewhere. */
  if (!warden_test_docker_usable ())
    server.problem = g_strdup ("no Docker engine answers on this machine");
  else if (!start_server (&error))
    server.problem = g_strdup (error->message);

  g_test_add_func ("/ssh/hosts", test_hosts);
  g_test_add_func ("/ssh/no-ssh", test_no_ssh);
  g_test_add_func ("/ssh/ping", test_ping);
  g_test_add_func ("/ssh/socket-path", test_socket_path);
  g_test_add_data_func ("/ssh/exec-stdin/dial-stdio", "", test_exec_stdin);
  g_test_add_data_func ("/ssh/exec-stdin/socket-path", "/var/run/docker.sock", test_exec_stdin);
  g_test_add_func ("/ssh/cli-exec", test_cli_exec);
  g_test_add_func ("/ssh/cli-workspace-refused", test_cli_workspace_refused);
  g_test_add_func ("/ssh/guard-unavailable", test_guard_unavailable);
  g_test_add_func ("/ssh/wrong-key", test_wrong_key);
  g_test_add_func ("/ssh/unknown-host", test_unknown_host);
  g_test_add_func ("/ssh/no-docker-there", test_no_docker_there);

  status = g_test_run ();
  stop_server ();
  return status;
}
