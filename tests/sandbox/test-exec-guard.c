/* test-exec-guard.c: every program a command starts waits for an answer
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The bubblewrap sandbox with its exec guard (src/sandbox/guard): a program
 * a command starts, at any depth, runs only when the guard function says so;
 * a denied one never runs, a racing thread cannot swap it in, the time limit
 * stops while a question waits, and Stop ends the tree.
 */

#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sandbox/warden-bwrap-sandbox.h"
#include "sandbox/warden-docker-sandbox.h"
#include "sandbox/warden-exec-guard-private.h"
#include "sandbox/warden-host-sandbox.h"
#include "sandbox/warden-sandbox.h"
#include "warden-test-util.h"

typedef struct
{
  char          *workspace;
  WardenSandbox *sandbox;
  GPtrArray     *asked;      /* of char *: each question as "program ← chain" */
  GPtrArray     *held;       /* questions not answered yet (hold mode) */
  char          *deny;       /* argv[0] (as quoted) denied */
  gboolean       hold;       /* keep questions open; the test answers */
  guint          rm_asked;   /* questions about rm (the racer) */
  guint          scripts_seen; /* questions about a "#!" script, its path at argv[1] */
  gboolean       docker;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(WardenSandboxConfig) config = NULL;
  g_autoptr(GError) error = NULL;
  GAsyncResult *res = NULL;

  f->workspace = g_dir_make_tmp ("warden-guard-XXXXXX", NULL);
  config = warden_sandbox_config_new (f->workspace);
  if (g_strcmp0 (data, "docker") == 0)
    {
      const char *image = g_getenv ("WARDEN_TEST_IMAGE");

      f->docker = TRUE;
      if (warden_test_skip_without_docker ())
        return;
      config->image = g_strdup (image ? image : "warden-test-busybox:latest");
      f->sandbox = warden_test_docker_sandbox_new (config);
    }
  else if (g_strcmp0 (data, "host") == 0)
    f->sandbox = warden_host_sandbox_new (config);
  else
    f->sandbox = warden_bwrap_sandbox_new (config);
  warden_sandbox_prepare_async (f->sandbox, NULL, warden_test_keep_result_cb, &res);
  warden_test_wait_result (&res);
  g_assert_true (warden_sandbox_prepare_finish (f->sandbox, res, &error));
  g_assert_no_error (error);
  g_object_unref (res);
  f->asked = g_ptr_array_new_with_free_func (g_free);
  f->held = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_guard_question_unref);
  f->deny = g_strdup ("rm");
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  GAsyncResult *res = NULL;

  if (f->sandbox != NULL)
    {
      warden_sandbox_destroy_async (f->sandbox, NULL, warden_test_keep_result_cb, &res);
      warden_test_wait_result (&res);
      warden_sandbox_destroy_finish (f->sandbox, res, NULL);
      g_object_unref (res);
      g_object_unref (f->sandbox);
    }
  warden_test_remove_tree (f->workspace);
  g_free (f->workspace);
  g_ptr_array_unref (f->asked);
  g_ptr_array_unref (f->held);
  g_free (f->deny);
}

static void
guard_cb (WardenGuardQuestion *q,
          gpointer             user_data)
{
  Fixture *f = user_data;
  const char * const *argv = warden_guard_question_get_argv (q);
  g_autofree char *text = warden_guard_quote_argv (argv);
  g_autofree char *chain = g_strjoinv (" ← ", (char **) warden_guard_question_get_chain (q));
  g_auto(GStrv) words = g_strsplit (text, " ", 2);

  if (strcmp (words[0], "rm") == 0)
    f->rm_asked++;
  if (warden_guard_question_get_script (q) == 1 && g_str_has_suffix (argv[1], "test.sh"))
    f->scripts_seen++;
  /* The racer asks thousands of times: only the first few are kept. */
  if (f->asked->len < 200)
    g_ptr_array_add (f->asked, g_strdup_printf ("%s ← %s", text, chain));
  if (f->hold)
    {
      g_ptr_array_add (f->held, warden_guard_question_ref (q));
      return;
    }
  warden_guard_question_answer (q, strcmp (words[0], f->deny) != 0);
}

static WardenExecResult *
run_guarded (Fixture    *f,
             const char *command,
             guint       timeout_ms,
             GError    **error)
{
  WardenExecRequest request = { 0 };
  GAsyncResult *res = NULL;
  WardenExecResult *result;

  request.command = command;
  request.timeout_ms = timeout_ms;
  request.guard_func = guard_cb;
  request.guard_data = f;
  warden_sandbox_exec_async (f->sandbox, &request, NULL, warden_test_keep_result_cb, &res);
  warden_test_wait_result (&res);
  result = warden_sandbox_exec_finish (f->sandbox, res, error);
  g_object_unref (res);
  if (result != NULL)
    g_test_message ("exit %d\nstdout:\n%s\nstderr:\n%s\nasked:", result->exit_code,
                    result->stdout_text, result->stderr_text);
  for (guint i = 0; i < f->asked->len; i++)
    g_test_message ("  %s", (char *) g_ptr_array_index (f->asked, i));
  return result;
}

static gboolean
workspace_has (Fixture    *f,
               const char *name)
{
  g_autofree char *path = g_build_filename (f->workspace, name, NULL);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}

static void
touch (Fixture    *f,
       const char *name)
{
  g_autofree char *path = g_build_filename (f->workspace, name, NULL);

  g_assert_true (g_file_set_contents (path, "precious\n", -1, NULL));
}

static gboolean
asked_about (Fixture    *f,
             const char *prefix)
{
  for (guint i = 0; i < f->asked->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (f->asked, i), prefix))
      return TRUE;
  return FALSE;
}

/* The command itself is not asked about again; what it starts is, and a
 * denied program is killed before it runs while the caller goes on. */
static void
test_nested_denied (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(WardenExecResult) r = NULL;
  g_autoptr(GError) error = NULL;

  touch (f, "victim");
  r = run_guarded (f, "echo start; sh -c 'rm -f victim; echo rm said $?'; ls victim", 0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (r->exit_code, ==, 0);
  g_assert_true (workspace_has (f, "victim"));
  /* dash reports the kill as 137. */
  g_assert_nonnull (strstr (r->stdout_text, "rm said 137"));
  g_assert_nonnull (strstr (r->stdout_text, "victim"));
  /* sh -c was asked about with the command as its parent; rm with both. */
  g_assert_true (asked_about (f, "sh -c 'rm -f victim; echo rm said $?' ← sh -c "));
  g_assert_true (asked_about (f, "rm -f victim ← sh -c 'rm -f victim; echo rm said $?' ← "));
  g_assert_true (asked_about (f, "ls victim ← sh -c "));
  g_assert_false (asked_about (f, "echo"));  /* a builtin starts nothing */
}

/* The same in a Docker container (the busybox test image): the helper and
 * its socket are mounted in, and a program started by path is checked.
 * Busybox's shell runs some applets inside itself without starting them:
 * those are not programs, and docs/policy.md says so. */
static void
test_docker_nested_denied (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(WardenExecResult) r = NULL;
  g_autoptr(GError) error = NULL;

  if (f->sandbox == NULL)
    return;  /* skipped: no engine */
  g_assert_null (warden_sandbox_get_guard_unavailable (f->sandbox));
  touch (f, "victim");
  r = run_guarded (f, "echo start; /bin/sh -c '/bin/rm -f victim; echo rm said $?'; /bin/ls victim",
                   0, &error);
  g_assert_no_error (error);
  g_assert_true (workspace_has (f, "victim"));
  g_assert_nonnull (strstr (r->stdout_text, "rm said 137"));
  g_assert_true (asked_about (f, "rm -f victim ← sh -c '/bin/rm -f victim; echo rm said $?' ← "));
  g_assert_nonnull (strstr (r->stdout_text, "victim"));
}

/* argv[0] is the caller's choice: a program run under another name is asked
 * about by the file that runs. */
static void
test_argv0_lie (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(WardenExecResult) r = NULL;
  g_autoptr(GError) error = NULL;

  touch (f, "victim");
  /* bash's exec -a sets argv[0]; dash has none, so the test's own racer is
   * not needed: perl, python3 or bash may not be in every image, but bash
   * is on this machine's /usr, which the sandbox sees. */
  r = run_guarded (f, "bash -c 'exec -a true /usr/bin/rm -f victim'", 0, &error);
  g_assert_no_error (error);
  g_assert_true (workspace_has (f, "victim"));
  g_assert_true (asked_about (f, "rm -f victim ← bash -c 'exec -a true /usr/bin/rm -f victim' "
                                 "← sh -c "));
  g_assert_false (asked_about (f, "true"));
}

/* A script started by its path is asked about as the kernel runs it: its
 * interpreter with the script's path (which the question points at); the
 * argv of a script on another program (argv[0] lying again) is that
 * program. */
static void
test_script_by_path (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(WardenExecResult) r = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *script = g_build_filename (f->workspace, "test.sh", NULL);

  g_assert_true (g_file_set_contents (script, "#!/bin/sh\necho script ran\n", -1, NULL));
  g_assert_cmpint (g_chmod (script, 0755), ==, 0);
  r = run_guarded (f, "sh -c ./test.sh; bash -c 'exec -a /bin/sh /usr/bin/rm ./test.sh'", 0,
                   &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (r->stdout_text, "script ran"));
  g_assert_true (asked_about (f, "sh ./test.sh ← sh -c ./test.sh ← "));
  g_assert_cmpuint (f->scripts_seen, ==, 1);
  g_assert_true (asked_about (f, "rm ./test.sh ← bash -c "));
  g_assert_true (workspace_has (f, "test.sh"));
}

/* A second thread swapping execve's path and argv never gets rm to run. */
static void
test_race (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(WardenExecResult) r = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *racer = g_test_build_filename (G_TEST_BUILT, "sandbox", "guard-racer",
                                                 NULL);
  g_autofree char *copy = g_build_filename (f->workspace, "guard-racer", NULL);
  g_autofree char *contents = NULL;
  gsize length;
  g_autofree char *command = NULL;
  guint tries = g_test_slow () ? 100000 : 10000;

  /* Into the workspace: the build tree is not in the sandbox. */
  g_assert_true (g_file_get_contents (racer, &contents, &length, NULL));
  g_assert_true (g_file_set_contents (copy, contents, length, NULL));
  g_assert_cmpint (g_chmod (copy, 0755), ==, 0);
  touch (f, "victim");
  command = g_strdup_printf ("./guard-racer %u victim", tries);
  r = run_guarded (f, command, 30 * 60 * 1000, &error);
  g_assert_no_error (error);
  g_assert_cmpint (r->exit_code, ==, 0);
  g_test_message ("%u tries, %u asked as rm, all denied", tries, f->rm_asked);
  g_assert_true (workspace_has (f, "victim"));
  /* The swap did land: rm was attempted and stopped. */
  g_assert_cmpuint (f->rm_asked, >, 0);
}

static gboolean
held_one (gpointer data)
{
  Fixture *f = data;

  return f->held->len > 0;
}

static void
wait_for (GSourceFunc pred,
          gpointer    data)
{
  while (!pred (data))
    g_main_context_iteration (NULL, TRUE);
}

typedef struct
{
  Fixture *f;
  gboolean allow;
} Later;

static gboolean
answer_later_cb (gpointer data)
{
  Later *later = data;

  for (guint i = 0; i < later->f->held->len; i++)
    warden_guard_question_answer (g_ptr_array_index (later->f->held, i), later->allow);
  g_ptr_array_set_size (later->f->held, 0);
  later->f->hold = FALSE;
  return G_SOURCE_REMOVE;
}

/* The time a question waits is not the command's: a 4 s limit (its own
 * start on a busy machine fits in it), an answer after 8 s, and the
 * command finishes. */
static void
test_timeout_stops_while_waiting (Fixture       *f,
                                  gconstpointer  data)
{
  g_autoptr(WardenExecResult) r = NULL;
  g_autoptr(GError) error = NULL;
  Later later = { f, TRUE };

  f->hold = TRUE;
  g_timeout_add (8000, answer_later_cb, &later);
  r = run_guarded (f, "ls / > /dev/null; echo done", 4000, &error);
  g_assert_no_error (error);
  g_assert_false (r->timed_out);
  g_assert_cmpint (r->exit_code, ==, 0);
  g_assert_cmpstr (r->stdout_text, ==, "done\n");
}

/* The time limit still holds for the command's own time. */
static void
test_timeout_still_counts (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(WardenExecResult) r = NULL;
  g_autoptr(GError) error = NULL;

  r = run_guarded (f, "sleep 30", 1000, &error);
  g_assert_no_error (error);
  g_assert_true (r->timed_out);
}

/* Stop while a question waits and while the tree runs: it all ends, and
 * the waiting program never runs. */
static void
test_stop_kills_tree (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  WardenExecRequest request = { 0 };
  GAsyncResult *res = NULL;
  WardenExecResult *result;

  touch (f, "victim");
  f->hold = TRUE;
  request.command = "(sleep 300 &) ; sleep 300 & rm -f victim; wait";
  request.guard_func = guard_cb;
  request.guard_data = f;
  warden_sandbox_exec_async (f->sandbox, &request, cancellable, warden_test_keep_result_cb,
                             &res);
  wait_for (held_one, f);
  g_cancellable_cancel (cancellable);
  warden_test_wait_result (&res);
  result = warden_sandbox_exec_finish (f->sandbox, res, &error);
  g_object_unref (res);
  g_assert_null (result);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  /* Answering now lets nothing run: the command is over. */
  for (guint i = 0; i < f->held->len; i++)
    warden_guard_question_answer (g_ptr_array_index (f->held, i), TRUE);
  g_assert_true (workspace_has (f, "victim"));
}

static int
cmp_gint64 (gconstpointer a,
            gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* What checking costs: 300 program starts with the guard asking the host
 * about each, and without, in alternating pairs (the median of each).
 * Printed, never asserted: the machine may be busy. */
static void
test_overhead (Fixture       *f,
               gconstpointer  data)
{
  const char *command = "i=0; while [ $i -lt 300 ]; do /bin/true; i=$((i+1)); done";
  gint64 times[2][5];

  for (guint pair = 0; pair < G_N_ELEMENTS (times[0]); pair++)
    for (guint guarded = 0; guarded < 2; guarded++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(WardenExecResult) r = NULL;
        WardenExecRequest request = { 0 };
        GAsyncResult *res = NULL;

        request.command = command;
        request.guard_func = guarded ? guard_cb : NULL;
        request.guard_data = f;
        warden_sandbox_exec_async (f->sandbox, &request, NULL, warden_test_keep_result_cb, &res);
        warden_test_wait_result (&res);
        r = warden_sandbox_exec_finish (f->sandbox, res, &error);
        g_object_unref (res);
        g_assert_no_error (error);
        g_assert_cmpint (r->exit_code, ==, 0);
        times[guarded][pair] = r->duration_us;
      }
  qsort (times[0], G_N_ELEMENTS (times[0]), sizeof (gint64), cmp_gint64);
  qsort (times[1], G_N_ELEMENTS (times[1]), sizeof (gint64), cmp_gint64);
  g_test_message ("300 starts, median of 5: %.1f ms bare, %.1f ms checked: %.2f ms more per "
                  "checked start", times[0][2] / 1000.0, times[1][2] / 1000.0,
                  (times[1][2] - times[0][2]) / 1000.0 / 300);
  g_assert_cmpuint (f->asked->len, >=, 200);
}

/* ------------------------------------------------------------------------ */
/* The host's end of the protocol, through a socketpair (no sandbox) */

typedef struct
{
  GPtrArray *questions;   /* of WardenGuardQuestion *, held unanswered */
} Peer;

static void
peer_cb (WardenGuardQuestion *q,
         gpointer             user_data)
{
  Peer *peer = user_data;

  g_ptr_array_add (peer->questions, warden_guard_question_ref (q));
}

typedef struct
{
  int         fd;
  const char *data;   /* what to send; NULL: 'x' */
  gsize       size;
  gsize  sent;
  int    error;     /* errno of the send that failed; 0: all sent */
  int    done;
} Flood;

/* One line of @size bytes with no end, as a broken or hostile guard would. */
static gpointer
flood_thread (gpointer data)
{
  Flood *flood = data;
  char chunk[65536];

  memset (chunk, 'x', sizeof chunk);
  while (flood->sent < flood->size)
    {
      const char *from = flood->data ? flood->data + flood->sent : chunk;
      ssize_t n = send (flood->fd, from, MIN (sizeof chunk, flood->size - flood->sent),
                        MSG_NOSIGNAL);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          flood->error = errno;
          break;
        }
      flood->sent += (gsize) n;
    }
  g_atomic_int_set (&flood->done, 1);
  return NULL;
}

/* What the guard's end reads until Warden closes it, waiting at most 10 s
 * while Warden's main context runs; "…(open)" when it did not close. */
static char *
read_to_end (int fd)
{
  GString *got = g_string_new (NULL);
  gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (g_get_monotonic_time () < end)
    {
      struct pollfd pfd = { .fd = fd, .events = POLLIN };
      char buf[4096];
      ssize_t n;

      g_main_context_iteration (NULL, FALSE);
      if (poll (&pfd, 1, 10) <= 0)
        continue;
      n = read (fd, buf, sizeof buf);
      if (n <= 0 && !(n < 0 && errno == EINTR))
        return g_string_free (got, FALSE);
      if (n > 0)
        g_string_append_len (got, buf, n);
    }
  g_string_append (got, "…(open)");
  return g_string_free (got, FALSE);
}

/* A line longer than any question may be (1 MiB) is not buffered on and on:
 * Warden stops reading, closes the connection (the guard then kills what
 * waits) and says why. Before, 8 MiB of one line went into memory. */
static void
test_parse_long_line (void)
{
  Peer peer = { g_ptr_array_new_with_free_func ((GDestroyNotify) warden_guard_question_unref) };
  g_autoptr(GError) error = NULL;
  Flood flood = { .size = 8 * 1024 * 1024 };
  struct timeval limit = { .tv_sec = 10 };
  WardenExecGuard *guard;
  g_autofree char *got = NULL;
  GThread *thread;
  gint64 end;

  guard = warden_exec_guard_new (peer_cb, &peer, &flood.fd, &error);
  g_assert_no_error (error);
  /* Bounded: a send that waits 10 s gives up. */
  g_assert_cmpint (setsockopt (flood.fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit), ==, 0);
  thread = g_thread_new ("flood", flood_thread, &flood);
  end = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (!g_atomic_int_get (&flood.done) && g_get_monotonic_time () < end)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_thread_join (thread);
  g_test_message ("sent %zu of %zu bytes, then %s", flood.sent, flood.size,
                  g_strerror (flood.error));
  /* Refused well before its end. */
  g_assert_cmpuint (flood.sent, <, flood.size);
  g_assert_true (flood.error == EPIPE || flood.error == ECONNRESET);
  got = read_to_end (flood.fd);
  g_assert_cmpstr (got, ==, "");
  g_assert_cmpuint (peer.questions->len, ==, 0);
  close (flood.fd);
  warden_exec_guard_free (guard);
  g_ptr_array_unref (peer.questions);
}

/* Takes @line as the guard's; the question it made, or NULL. */
static WardenGuardQuestion *
take (WardenExecGuard *guard,
      Peer            *peer,
      const char      *line)
{
  guint before = peer->questions->len;

  warden_exec_guard_take_line (guard, line);
  if (peer->questions->len == before)
    return NULL;
  return g_ptr_array_index (peer->questions, before);
}

/* Every field of the new question line, escapes undone. */
static void
test_parse_fields (void)
{
  Peer peer = { g_ptr_array_new_with_free_func ((GDestroyNotify) warden_guard_question_unref) };
  g_autoptr(GError) error = NULL;
  WardenExecGuard *guard;
  WardenGuardQuestion *q;
  const char * const *words;
  int fd;

  guard = warden_exec_guard_new (peer_cb, &peer, &fd, &error);
  g_assert_no_error (error);
  q = take (guard, &peer,
            "exec 7 4242 3\t/workspace/a\\tb\t/usr/bin/dash\tLD_PRELOAD=/w/e.so\\0A=1\\\\2\\0"
            "\t12\t1\t3\t/bin/sh\t./test.sh\tx\\ny\tnpm\\0test\\0\tsh\\0-c\\0npm test\\0");
  g_assert_nonnull (q);
  g_assert_cmpstr (warden_guard_question_get_cwd (q), ==, "/workspace/a\tb");
  g_assert_cmpstr (warden_guard_question_get_exe (q), ==, "/usr/bin/dash");
  words = warden_guard_question_get_env (q);
  g_assert_cmpuint (g_strv_length ((char **) words), ==, 2);
  g_assert_cmpstr (words[0], ==, "LD_PRELOAD=/w/e.so");
  g_assert_cmpstr (words[1], ==, "A=1\\2");
  g_assert_cmpuint (warden_guard_question_get_cut (q), ==, 12);
  g_assert_cmpuint (warden_guard_question_get_script (q), ==, 1);
  words = warden_guard_question_get_argv (q);
  g_assert_cmpuint (g_strv_length ((char **) words), ==, 3);
  g_assert_cmpstr (words[0], ==, "/bin/sh");
  g_assert_cmpstr (words[1], ==, "./test.sh");
  g_assert_cmpstr (words[2], ==, "x\ny");
  words = warden_guard_question_get_chain (q);
  g_assert_cmpuint (g_strv_length ((char **) words), ==, 2);
  g_assert_cmpstr (words[0], ==, "npm test");
  g_assert_cmpstr (words[1], ==, "sh -c 'npm test'");

  /* No environment of its own, nothing cut, no script. */
  q = take (guard, &peer, "exec 8 4243 3\t/workspace\t/usr/bin/ls\t\t0\t0\t1\tls");
  g_assert_nonnull (q);
  g_assert_cmpuint (g_strv_length ((char **) warden_guard_question_get_env (q)), ==, 0);
  g_assert_cmpuint (warden_guard_question_get_cut (q), ==, 0);
  g_assert_cmpuint (warden_guard_question_get_script (q), ==, 0);
  g_assert_null (warden_guard_question_get_chain (q)[0]);
  close (fd);
  warden_exec_guard_free (guard);
  g_ptr_array_unref (peer.questions);
}

/* A line that does not parse asks nobody: its program is denied at once. */
static void
test_parse_bad (void)
{
  static const char *lines[] = {
    /* the old line, without EXE ENV CUT SCRIPT */
    "exec 5 100 1\t/workspace\t1\tls",
    /* ARGC past the fields; ARGC 0 */
    "exec 5 100 1\t/workspace\t/usr/bin/ls\t\t0\t0\t3\tls\t-l",
    "exec 5 100 1\t/workspace\t/usr/bin/ls\t\t0\t0\t0",
    /* SCRIPT past ARGV */
    "exec 5 100 1\t/workspace\t/usr/bin/sh\t\t0\t2\t2\tsh\t./x",
    /* CUT and SCRIPT not numbers */
    "exec 5 100 1\t/workspace\t/usr/bin/ls\t\t-1\t0\t1\tls",
    "exec 5 100 1\t/workspace\t/usr/bin/ls\t\t0\tx\t1\tls",
    /* EXE relative or empty, a NUL inside a word */
    "exec 5 100 1\t/workspace\tls\t\t0\t0\t1\tls",
    "exec 5 100 1\t/workspace\t\t\t0\t0\t1\tls",
    "exec 5 100 1\t/workspace\t/usr/bin/rm\t\t0\t0\t2\trm\tdecoy\\0prize",
    /* an environment entry that is no NAME=VALUE */
    "exec 5 100 1\t/workspace\t/usr/bin/ls\tLD_PRELOAD\t0\t0\t1\tls",
    /* a head with more than the guard writes */
    "exec 5 100 1 9\t/workspace\t/usr/bin/ls\t\t0\t0\t1\tls",
  };
  Peer peer = { g_ptr_array_new_with_free_func ((GDestroyNotify) warden_guard_question_unref) };
  g_autoptr(GError) error = NULL;
  WardenExecGuard *guard;
  g_autoptr(GString) expected = g_string_new (NULL);
  g_autofree char *got = NULL;
  int fd;

  guard = warden_exec_guard_new (peer_cb, &peer, &fd, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_test_message ("%s", lines[i]);
      g_assert_null (take (guard, &peer, lines[i]));
      g_string_append (expected, "deny 5\n");
    }
  warden_exec_guard_free (guard);
  got = read_to_end (fd);
  g_assert_cmpstr (got, ==, expected->str);
  close (fd);
  g_ptr_array_unref (peer.questions);
}

/* Variant: a question waiting for the user when a broken line comes is
 * denied, the connection closes after that answer, and the command can
 * tell why. */
static void
test_parse_long_line_denies_open (void)
{
  Peer peer = { g_ptr_array_new_with_free_func ((GDestroyNotify) warden_guard_question_unref) };
  g_autoptr(GError) error = NULL;
  const char *question = "exec 3 77 1\t/workspace\t/usr/bin/rm\t\t0\t0\t2\trm\tx\n";
  g_autofree char *flood = g_strnfill (WARDEN_GUARD_MAX_LINE + 70000, 'y');
  WardenExecGuard *guard;
  g_autofree char *got = NULL;
  int fd;

  guard = warden_exec_guard_new (peer_cb, &peer, &fd, &error);
  g_assert_no_error (error);
  g_assert_null (warden_exec_guard_get_broken (guard));
  g_assert_cmpint (write (fd, question, strlen (question)), ==, strlen (question));
  {
    gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

    while (peer.questions->len == 0 && g_get_monotonic_time () < end)
      g_main_context_iteration (NULL, FALSE);
  }
  g_assert_cmpuint (peer.questions->len, ==, 1);
  {
    Flood f = { .fd = fd, .size = strlen (flood) };
    GThread *thread = g_thread_new ("flood", flood_thread, &f);

    got = read_to_end (fd);
    g_thread_join (thread);
  }
  g_assert_cmpstr (got, ==, "deny 3\n");
  g_assert_nonnull (strstr (warden_exec_guard_get_broken (guard), "longer than 1 MiB"));
  /* Answered already: the user's later answer does nothing. */
  warden_guard_question_answer (g_ptr_array_index (peer.questions, 0), TRUE);
  close (fd);
  warden_exec_guard_free (guard);
  g_ptr_array_unref (peer.questions);
}

/* Variant: a big question under the limit (the guard's own bounds: 256 KiB
 * of argv, escaped) is read whole, across many reads. */
static void
test_parse_big_line (void)
{
  Peer peer = { g_ptr_array_new_with_free_func ((GDestroyNotify) warden_guard_question_unref) };
  g_autoptr(GError) error = NULL;
  g_autofree char *word = g_strnfill (900 * 1024, 'z');
  g_autofree char *line = g_strdup_printf ("exec 4 78 1\t/workspace\t/usr/bin/echo\t\t0\t0\t2\t"
                                           "echo\t%s\n", word);
  WardenExecGuard *guard;
  Flood f = { .data = line, .size = strlen (line) };
  GThread *thread;
  gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  guard = warden_exec_guard_new (peer_cb, &peer, &f.fd, &error);
  g_assert_no_error (error);
  thread = g_thread_new ("line", flood_thread, &f);
  while (peer.questions->len == 0 && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE);
  g_thread_join (thread);
  g_assert_cmpint (f.error, ==, 0);
  g_assert_cmpuint (peer.questions->len, ==, 1);
  g_assert_cmpstr (warden_guard_question_get_argv (g_ptr_array_index (peer.questions, 0))[1], ==,
                   word);
  g_assert_null (warden_exec_guard_get_broken (guard));
  close (f.fd);
  warden_exec_guard_free (guard);
  g_ptr_array_unref (peer.questions);
}

/* The text a pattern sees: words quoted as the parser reads them back, a
 * program in a system directory by its name. */
static void
test_quote_argv (void)
{
  static const struct { const char *argv[5]; const char *text; } rows[] = {
    { { "ls", "-la", NULL }, "ls -la" },
    { { "/usr/bin/rm", "-rf", "dist", NULL }, "rm -rf dist" },
    { { "/bin/sh", "-c", "rm -rf dist && jest", NULL }, "sh -c 'rm -rf dist && jest'" },
    { { "./node_modules/.bin/jest", NULL }, "./node_modules/.bin/jest" },
    { { "/opt/x/bin/tool", "a b", NULL }, "/opt/x/bin/tool 'a b'" },
    { { "echo", "it's", "", "$HOME", NULL }, "echo 'it'\\''s' '' '$HOME'" },
    { { "A=1", "x", NULL }, "'A=1' x" },
    { { "printf", "a\nb", NULL }, "printf 'a\nb'" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = warden_guard_quote_argv (rows[i].argv);

      g_assert_cmpstr (text, ==, rows[i].text);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/guard/quote-argv", test_quote_argv);
  g_test_add_func ("/guard/parse/long-line", test_parse_long_line);
  g_test_add_func ("/guard/parse/long-line-denies-open", test_parse_long_line_denies_open);
  g_test_add_func ("/guard/parse/big-line", test_parse_big_line);
  g_test_add_func ("/guard/parse/fields", test_parse_fields);
  g_test_add_func ("/guard/parse/bad", test_parse_bad);
#define ADD(name, func) \
  g_test_add ("/guard/bwrap/" name, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("nested-denied", test_nested_denied);
  ADD ("argv0-lie", test_argv0_lie);
  ADD ("script-by-path", test_script_by_path);
  ADD ("race", test_race);
  ADD ("overhead", test_overhead);
  ADD ("timeout-stops-while-waiting", test_timeout_stops_while_waiting);
  ADD ("timeout-still-counts", test_timeout_still_counts);
  ADD ("stop-kills-tree", test_stop_kills_tree);
#undef ADD
  g_test_add ("/guard/docker/nested-denied", Fixture, "docker", fixture_set_up,
              test_docker_nested_denied, fixture_tear_down);
  /* On the host too: nothing confines it, but what it starts is checked. */
  g_test_add ("/guard/host/nested-denied", Fixture, "host", fixture_set_up,
              test_nested_denied, fixture_tear_down);
  return g_test_run ();
}
