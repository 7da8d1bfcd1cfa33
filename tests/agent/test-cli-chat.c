/* test-cli-chat.c: conversations that go on, and what a terminal shows of them
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A follow-up by run --resume ID TEXT (by an id, "last" or a prefix), the
 * interactive loop driven through a pseudo-terminal as a person types into
 * it (Ctrl+C and Ctrl+D are the terminal's own), numbered choices, and the
 * diff of a write with and without colour.
 */

#include "config.h"

#include <glib/gstdio.h>
#include <gio/gunixinputstream.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "cli-harness.h"
#include "fake-model.h"
#include "warden-test-util.h"

/* ------------------------------------------------------------------------ */
/* A warden-cli on a pseudo-terminal: its standard input and output, its
 * controlling terminal (so that ^C and ^D are what the line discipline
 * makes of them); standard error apart, for the session id. */

typedef struct
{
  GSubprocess  *proc;
  int           master;
  GInputStream *in;     /* the master's reading side */
  GString      *seen;   /* everything the terminal showed */
  gsize         mark;   /* pty_wait() looks after this */
} Pty;

static void
pty_child_setup (gpointer data)
{
  setsid ();
  ioctl (STDIN_FILENO, TIOCSCTTY, 0);
}

static Pty *
pty_start (Env                *env,
           const char * const *args)
{
  g_autoptr(GSubprocessLauncher) launcher = launcher_with (env, G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr(GPtrArray) argv = cli_argv (args);
  g_autoptr(GError) error = NULL;
  Pty *p = g_new0 (Pty, 1);
  int slave = -1;

  g_assert_cmpint (openpty (&p->master, &slave, NULL, NULL, NULL), ==, 0);
  g_subprocess_launcher_setenv (launcher, "TERM", "xterm", TRUE);
  g_subprocess_launcher_take_stdin_fd (launcher, slave);
  g_subprocess_launcher_take_stdout_fd (launcher, dup (slave));
  g_subprocess_launcher_set_child_setup (launcher, pty_child_setup, NULL, NULL);
  p->proc = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  /* The child holds the only slave now: the master reads its end. */
  g_clear_object (&launcher);
  p->in = g_unix_input_stream_new (p->master, FALSE);
  p->seen = g_string_new (NULL);
  return p;
}

#define PTY_START(env, ...) pty_start ((env), (const char * const []) { __VA_ARGS__, NULL })

/* Reads until @needle shows after the mark; the mark goes past it. */
static void
pty_wait (Pty        *p,
          const char *needle)
{
  const char *found;

  while ((found = strstr (p->seen->str + p->mark, needle)) == NULL)
    if (!read_more (p->in, p->seen))
      {
        g_test_message ("waited for “%s”; the terminal showed:\n%s", needle, p->seen->str);
        g_assert_not_reached ();
      }
  p->mark = found - p->seen->str + strlen (needle);
}

/* What a person types: ^C and ^D are bytes the terminal turns into SIGINT
 * and the end of input. */
static void
pty_type (Pty        *p,
          const char *text)
{
  g_assert_cmpint (write (p->master, text, strlen (text)), ==, (gssize) strlen (text));
}

/* Reads to the end, waits for the process; frees @p. */
static Result
pty_finish (Pty *p)
{
  g_autoptr(GBytes) err = NULL;
  g_autoptr(GError) error = NULL;
  Result r = { -1, NULL, 0, NULL };

  while (read_more (p->in, p->seen))
    ;
  g_subprocess_communicate (p->proc, NULL, NULL, NULL, &err, &error);
  g_assert_no_error (error);
  g_subprocess_wait (p->proc, NULL, NULL);
  r.status = exit_status_of (p->proc);
  r.out_len = p->seen->len;
  r.out = g_string_free (p->seen, FALSE);
  r.err = bytes_to_str (err, NULL);
  cli_log_streams (r.out, r.err);
  g_object_unref (p->in);
  close (p->master);
  g_object_unref (p->proc);
  g_free (p);
  return r;
}

/* Each request's last message holds what the user said then. */
static gboolean
request_says (Env        *env,
              guint       i,
              const char *text)
{
  g_autofree char *last = fake_model_last_message (env->fake, i);

  return strstr (last, text) != NULL;
}

/* Whether request @i holds @text anywhere (system prompt included). */
static gboolean
request_holds (Env        *env,
               guint       i,
               const char *text)
{
  g_autofree char *body = json_to_string (g_ptr_array_index (env->fake->requests, i), FALSE);

  return strstr (body, text) != NULL;
}

/* A finished session of one turn; its id. */
static char *
one_turn (Env        *env,
          const char *task)
{
  Result r;
  char *id;

  g_queue_push_tail (&env->fake->script, fake_reply ("Done.", NULL));
  r = RUN (env, "", "run", "--sandbox", "bwrap", task);
  g_assert_cmpint (r.status, ==, 0);
  id = session_id_of (r.err);
  result_clear (&r);
  return id;
}

/* ------------------------------------------------------------------------ */
/* Follow-ups by --resume */

/* run --resume ID TEXT: a new user turn in the same conversation. */
static void
test_resume_follow_up (void)
{
  Env env = { 0 };
  g_autofree char *id = NULL;
  g_autofree char *first = NULL;
  Result r;

  env_set_up (&env);
  id = one_turn (&env, "write the parser");
  g_queue_push_tail (&env.fake->script, fake_reply ("Tests added.", NULL));
  r = RUN (&env, "", "run", "--resume", id, "and now add tests");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Tests added."));
  g_assert_cmpuint (env.fake->requests->len, ==, 2);
  g_assert_true (request_says (&env, 1, "and now add tests"));
  /* The model has the conversation: the first task is in the request too. */
  first = json_to_string (g_ptr_array_index (env.fake->requests, 1), FALSE);
  g_assert_nonnull (strstr (first, "write the parser"));
  g_assert_nonnull (strstr (r.err, id));
  result_clear (&r);
  env_tear_down (&env);
}

/* A question left waiting is asked first; the follow-up goes after the
 * turn it belongs to has ended. */
static void
test_resume_follow_up_after_pending (void)
{
  Env env = { 0 };
  g_autofree char *id = NULL;
  g_autofree char *made = NULL;
  Result r;

  env_set_up (&env);
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"touch made.txt\"}", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Made it.", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Checked.", NULL));
  r = RUN (&env, "", "run", "--sandbox", "bwrap", "make it");
  g_assert_cmpint (r.status, ==, 6);
  id = session_id_of (r.err);
  result_clear (&r);

  r = RUN (&env, "y\n", "run", "--resume", id, "now check it");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Command needs approval: touch made.txt"));
  g_assert_nonnull (strstr (r.out, "Made it."));
  g_assert_nonnull (strstr (r.out, "Checked."));
  g_assert_true (strstr (r.out, "Made it.") < strstr (r.out, "Checked."));
  g_assert_true (workspace_has (&env, "made.txt"));
  g_assert_cmpuint (env.fake->requests->len, ==, 3);
  g_assert_true (request_says (&env, 2, "now check it"));
  g_assert_false (request_says (&env, 1, "now check it"));
  result_clear (&r);
  env_tear_down (&env);
}

/* --resume last: the session used most recently. */
static void
test_resume_last (void)
{
  Env env = { 0 };
  g_autofree char *older = NULL;
  g_autofree char *newer = NULL;
  g_autoptr(JsonNode) session = NULL;
  Result r;

  env_set_up (&env);
  older = one_turn (&env, "the older one");
  newer = one_turn (&env, "the newer one");
  g_queue_push_tail (&env.fake->script, fake_reply ("Going on.", NULL));
  r = RUN (&env, "", "run", "--resume", "last", "go on");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, newer));
  g_assert_null (strstr (r.err, older));
  {
    g_autofree char *sent = json_to_string (g_ptr_array_index (env.fake->requests, 2), FALSE);

    g_assert_nonnull (strstr (sent, "the newer one"));
    g_assert_null (strstr (sent, "the older one"));
  }
  result_clear (&r);

  /* sessions show takes it too. */
  r = RUN (&env, "", "sessions", "show", "last");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, newer));
  result_clear (&r);
  env_tear_down (&env);
}

/* The start of an id, when no other id starts so, names the session in
 * run, chat and sessions. */
static void
test_resume_prefix (void)
{
  Env env = { 0 };
  g_autofree char *id = NULL;
  g_autofree char *prefix = NULL;
  Result r;

  env_set_up (&env);
  id = one_turn (&env, "the only one");
  prefix = g_strndup (id, 8);
  g_queue_push_tail (&env.fake->script, fake_reply ("By its prefix.", NULL));
  r = RUN (&env, "", "run", "--resume", prefix, "again");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "By its prefix."));
  g_assert_nonnull (strstr (r.err, id));
  result_clear (&r);

  r = RUN (&env, "", "sessions", "show", prefix);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, id));
  result_clear (&r);

  r = RUN (&env, "", "sessions", "release", prefix);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, id));
  result_clear (&r);

  g_queue_push_tail (&env.fake->script, fake_reply ("Chatting.", NULL));
  r = RUN (&env, "/exit\n", "chat", "--resume", prefix, "once more");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Chatting."));
  result_clear (&r);

  /* No session starts so. */
  r = RUN (&env, "", "run", "--resume", "zzzz", "again");
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "no session “zzzz”"));
  result_clear (&r);
  env_tear_down (&env);
}

/* A prefix that several ids start with names none: the error lists them. */
static void
test_resume_ambiguous (void)
{
  Env env = { 0 };
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *prefix = NULL;
  Result r;

  env_set_up (&env);
  /* Ids are random: 17 of them share a first digit, most often far fewer. */
  while (prefix == NULL)
    {
      char *id = one_turn (&env, "one of many");

      for (guint i = 0; i < ids->len && prefix == NULL; i++)
        if (((char *) g_ptr_array_index (ids, i))[0] == id[0])
          prefix = g_strndup (id, 1);
      g_ptr_array_add (ids, id);
      g_assert_cmpuint (ids->len, <=, 17);
    }

  r = RUN (&env, "", "run", "--resume", prefix, "which one?");
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "give more of the id"));
  for (guint i = 0; i < ids->len; i++)
    if (((char *) g_ptr_array_index (ids, i))[0] == prefix[0])
      g_assert_nonnull (strstr (r.err, g_ptr_array_index (ids, i)));
  /* Nothing went to the model. */
  g_assert_cmpuint (env.fake->requests->len, ==, ids->len);
  result_clear (&r);

  r = RUN (&env, "", "run", "--json", "--resume", prefix, "which one?");
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.out, "\"code\":\"ambiguous\""));
  result_clear (&r);
  env_tear_down (&env);
}

/* ------------------------------------------------------------------------ */
/* The interactive loop, through a pseudo-terminal */

/* A task typed at the prompt, an approval answered inline, Ctrl+C while a
 * command runs (back at the prompt, the command stopped), another message,
 * Ctrl+D: the session stays, and run --resume goes on with it. */
static void
test_chat_on_a_terminal (void)
{
  Env env = { 0 };
  const char * const no_colour[] = { "NO_COLOR=1", NULL };
  g_autofree char *id = NULL;
  Pty *p;
  Result r;

  env_set_up (&env);
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec",
                                 "{\"command\": \"printf 'st%sed\\\\n' art; sleep 86399.375\"}",
                                 NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("It was stopped.", NULL));
  cli_env = no_colour;
  p = PTY_START (&env, "--sandbox", "bwrap");
  cli_env = NULL;
  pty_wait (p, "> ");
  pty_type (p, "wait for it\n");
  pty_wait (p, "Command needs approval");
  pty_wait (p, "reject> ");
  pty_type (p, "y\n");
  pty_wait (p, "started");
  pty_type (p, "\003");
  pty_wait (p, "(stopped)");
  pty_wait (p, "\n> ");
  /* The sleep is stopped: were it not, the test would time out. */
  while (process_with_arg ("86399.375"))
    g_usleep (G_USEC_PER_SEC / 50);

  pty_type (p, "what happened?\n");
  pty_wait (p, "It was stopped.");
  pty_wait (p, "\n> ");
  pty_type (p, "\004");
  r = pty_finish (p);
  g_assert_cmpint (r.status, ==, 0);
  id = session_id_of (r.err);
  g_assert_nonnull (strstr (r.err, "warden-cli chat --resume"));
  g_assert_cmpuint (env.fake->requests->len, ==, 2);
  g_assert_true (request_says (&env, 1, "what happened?"));
  /* No colour was asked for, none came. */
  g_assert_null (strchr (r.out, '\033'));
  result_clear (&r);

  g_queue_push_tail (&env.fake->script, fake_reply ("Resumed.", NULL));
  r = RUN (&env, "", "run", "--resume", id, "and then?");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Resumed."));
  g_assert_true (request_says (&env, 2, "and then?"));
  result_clear (&r);
  env_tear_down (&env);
}

/* Ctrl+C at an approval comes back to the prompt; the approval still
 * waits, and is asked again before the next message goes to the model. */
static void
test_chat_interrupt_at_approval (void)
{
  Env env = { 0 };
  const char * const no_colour[] = { "NO_COLOR=1", NULL };
  Pty *p;
  Result r;

  env_set_up (&env);
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"touch made.txt\"}", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Made.", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Checked.", NULL));
  cli_env = no_colour;
  p = PTY_START (&env, "chat", "--sandbox", "bwrap", "make it");
  cli_env = NULL;
  pty_wait (p, "reject> ");
  pty_type (p, "\003");
  pty_wait (p, "(stopped)");
  pty_wait (p, "\n> ");
  g_assert_false (workspace_has (&env, "made.txt"));
  pty_type (p, "check it\n");
  pty_wait (p, "Command needs approval: touch made.txt");
  pty_wait (p, "reject> ");
  pty_type (p, "y\n");
  pty_wait (p, "Checked.");
  pty_wait (p, "\n> ");
  pty_type (p, "/exit\n");
  r = pty_finish (p);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (workspace_has (&env, "made.txt"));
  g_assert_cmpuint (env.fake->requests->len, ==, 3);
  g_assert_true (request_says (&env, 2, "check it"));
  g_assert_false (request_says (&env, 1, "check it"));
  result_clear (&r);
  env_tear_down (&env);
}

/* At the prompt one Ctrl+C says how to leave; a second one leaves. */
static void
test_chat_interrupt_at_prompt (void)
{
  Env env = { 0 };
  const char * const colour[] = { "NO_COLOR", NULL };
  Pty *p;
  Result r;

  env_set_up (&env);
  cli_env = colour;
  p = PTY_START (&env, "chat", "--sandbox", "bwrap");
  cli_env = NULL;
  /* The prompt, in colour. */
  pty_wait (p, "\033[1;36m>\033[0m ");
  pty_type (p, "half a line\003");
  pty_wait (p, "Ctrl+C again or Ctrl+D leaves");
  pty_wait (p, ">\033[0m ");
  pty_type (p, "\003");
  r = pty_finish (p);
  g_assert_cmpint (r.status, ==, 0);
  /* What was typed went nowhere, and a session where nothing was said is
   * not kept (--resume last would name it). */
  g_assert_cmpuint (env.fake->requests->len, ==, 0);
  g_assert_nonnull (strstr (r.err, "no session is kept"));
  g_assert_null (strstr (r.err, "--resume"));
  result_clear (&r);
  r = RUN (&env, "", "sessions", "list");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "");
  result_clear (&r);
  env_tear_down (&env);
}

/* The slash commands, from a pipe: /help, /profile and a switch, /trace. */
static void
test_chat_slash_commands (void)
{
  Env env = { 0 };
  g_autofree char *trace_path = NULL;
  g_autofree char *input = NULL;
  g_autofree char *trace = NULL;
  Result r;

  env_set_up (&env);
  trace_path = g_build_filename (env.root, "trace.json", NULL);
  g_queue_push_tail (&env.fake->script, fake_reply ("Hello.", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("A path.", NULL));
  input = g_strdup_printf ("/help\n/profile\n/profile no-such-profile\n/profile python\n"
                           "hello\n/trace\n/trace %s\n/nonsense\n//etc/hosts\n/exit\n", trace_path);
  r = RUN (&env, input, "chat", "--sandbox", "bwrap", "--profile", "node");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "/profile ID"));
  g_assert_nonnull (strstr (r.out, "profile node"));
  g_assert_nonnull (strstr (r.err, "the profile stays node"));
  g_assert_nonnull (strstr (r.out, "profile python: later commands"));
  g_assert_nonnull (strstr (r.out, "Hello."));
  g_assert_nonnull (strstr (r.out, "trace of session"));
  g_assert_nonnull (strstr (r.out, "  model     "));
  g_assert_nonnull (strstr (r.out, "trace saved to"));
  g_assert_nonnull (strstr (r.out, "no command /nonsense"));
  g_assert_true (g_file_get_contents (trace_path, &trace, NULL, NULL));
  g_assert_nonnull (strstr (trace, "\"model_call\""));
  /* //TEXT is the message /TEXT. */
  g_assert_cmpuint (env.fake->requests->len, ==, 2);
  g_assert_true (request_says (&env, 1, "\"/etc/hosts\""));
  result_clear (&r);
  env_tear_down (&env);
}

/* /compact summarises the earlier conversation now: a request without
 * tools, the summary in what the next request carries; with nothing to
 * summarise yet it says so and the conversation goes on. */
static void
test_chat_compact (void)
{
  Env env = { 0 };
  Result r;

  env_set_up (&env);
  env.fake->no_tools_reply = fake_reply ("SUMMARY: three greetings.", NULL);
  g_queue_push_tail (&env.fake->script, fake_reply ("One.", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Two.", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Three.", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Four.", NULL));
  r = RUN (&env, "/compact\nfirst\nsecond\nthird\n/compact\nfourth\n/exit\n",
           "chat", "--sandbox", "bwrap");
  g_assert_cmpint (r.status, ==, 0);
  /* Once refused (nothing yet), once done. */
  g_assert_nonnull (strstr (r.err, "earlier conversation summarised"));
  g_assert_nonnull (strstr (r.out, "Four."));
  g_assert_cmpuint (env.fake->requests->len, ==, 5);
  g_assert_true (request_holds (&env, 4, "SUMMARY: three greetings."));
  g_assert_false (request_holds (&env, 2, "SUMMARY"));
  g_assert_false (request_holds (&env, 3, "\"tools\""));
  result_clear (&r);
  env_tear_down (&env);
}

/* ------------------------------------------------------------------------ */
/* Output */

/* ask_user's choices are numbered, and a number picks its choice. */
static void
test_numbered_choices (void)
{
  Env env = { 0 };
  Result r;

  env_set_up (&env);
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "ask_user", "{\"question\": \"Which database?\", "
                                 "\"choices\": [\"postgres\", \"sqlite\", \"none\"]}", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("SQLite it is.", NULL));
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "ask_user", "{\"question\": \"How many?\", "
                                 "\"choices\": [\"1\", \"2\"]}", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("Fine.", NULL));
  r = RUN (&env, "2\n", "run", "--sandbox", "bwrap", "set it up");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "  1) postgres\n  2) sqlite\n  3) none\n"));
  g_assert_true (request_says (&env, 1, "sqlite"));
  result_clear (&r);

  /* Text that is not a number in range is the answer as typed. */
  r = RUN (&env, "7\n", "run", "--sandbox", "bwrap", "count");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (request_says (&env, 3, "7"));
  result_clear (&r);
  env_tear_down (&env);
}

/* A rejection's feedback of several lines is echoed as lines, never with a
 * literal \n. */
static void
test_feedback_lines (void)
{
  Env env = { 0 };
  Result r;

  env_set_up (&env);
  g_queue_push_tail (&env.fake->script,
                     fake_reply (NULL, "exec", "{\"command\": \"npm install chalk\"}", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("OK.", NULL));
  r = RUN (&env, "n\nuse pnpm\n", "run", "--sandbox", "bwrap", "add chalk");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.out, "\\n"));
  g_assert_nonnull (strstr (r.out, "use pnpm"));
  result_clear (&r);
  env_tear_down (&env);
}

static void
script_write (Env *env)
{
  g_queue_push_tail (&env->fake->script,
                     fake_reply (NULL, "write", "{\"path\": \"hello.txt\", "
                                 "\"content\": \"hello\\nworld\\n\"}", NULL));
  g_queue_push_tail (&env->fake->script,
                     fake_reply (NULL, "edit", "{\"path\": \"hello.txt\", "
                                 "\"old_string\": \"world\", \"new_string\": \"there\"}", NULL));
  g_queue_push_tail (&env->fake->script, fake_reply ("Written.", NULL));
}

/* A write and an edit print what they changed: coloured on a terminal,
 * plain with NO_COLOR and wherever standard output is no terminal. */
static void
test_diff_colour (void)
{
  Env env = { 0 };
  const char * const colour[] = { "NO_COLOR", NULL };
  const char * const no_colour[] = { "NO_COLOR=1", NULL };
  g_autofree char *written = NULL;
  Pty *p;
  Result r;

  env_set_up (&env);
  written = g_build_filename (env.workspace, "hello.txt", NULL);

  /* Not a terminal: plain, even with NO_COLOR unset. */
  script_write (&env);
  cli_env = colour;
  r = RUN (&env, "", "run", "--sandbox", "bwrap", "write hello");
  cli_env = NULL;
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "    @@ -0,0 +1,2 @@\n    +hello\n    +world\n"));
  g_assert_nonnull (strstr (r.out, "    -world\n    +there\n"));
  g_assert_null (strchr (r.out, '\033'));
  result_clear (&r);

  /* A terminal: coloured. */
  script_write (&env);
  g_assert_cmpint (g_unlink (written), ==, 0);
  cli_env = colour;
  p = PTY_START (&env, "run", "--sandbox", "bwrap", "write hello");
  cli_env = NULL;
  r = pty_finish (p);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\033[32m+hello\033[0m"));
  g_assert_nonnull (strstr (r.out, "\033[31m-world\033[0m"));
  g_assert_nonnull (strstr (r.out, "\033[36m@@ -0,0 +1,2 @@\033[0m"));
  result_clear (&r);

  /* A terminal with NO_COLOR: the same diff, plain. */
  script_write (&env);
  g_assert_cmpint (g_unlink (written), ==, 0);
  cli_env = no_colour;
  p = PTY_START (&env, "run", "--sandbox", "bwrap", "write hello");
  cli_env = NULL;
  r = pty_finish (p);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "+hello"));
  g_assert_nonnull (strstr (r.out, "-world"));
  g_assert_null (strchr (r.out, '\033'));
  result_clear (&r);
  env_tear_down (&env);
}

/* On a terminal the prompt and the verdicts are coloured, and the model's
 * markdown is laid out: headings without their marks, bullets, code. */
static void
test_terminal_styles (void)
{
  Env env = { 0 };
  const char * const colour[] = { "NO_COLOR", NULL };
  Pty *p;
  Result r;

  env_set_up (&env);
  g_queue_push_tail (&env.fake->script,
                     fake_reply ("# Plan\n- first\n- second\n```sh\nnpm test\n```\nDone.\n",
                                 "exec", "{\"command\": \"npm install chalk\"}", NULL));
  g_queue_push_tail (&env.fake->script, fake_reply ("OK.", NULL));
  cli_env = colour;
  p = PTY_START (&env, "run", "--sandbox", "bwrap", "plan it");
  cli_env = NULL;
  pty_wait (p, "reject> ");
  pty_type (p, "n\n");
  pty_wait (p, "feedback> ");
  pty_type (p, "no\n");
  r = pty_finish (p);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\033[1mPlan\033[0m"));
  g_assert_null (strstr (r.out, "# Plan"));
  g_assert_nonnull (strstr (r.out, "  • first"));
  g_assert_nonnull (strstr (r.out, "    \033[36mnpm test\033[0m"));
  g_assert_null (strstr (r.out, "```"));
  /* The heading of the approval, and its verdict. */
  g_assert_nonnull (strstr (r.out, "\033[1;33m! Command needs approval:\033[0m"));
  g_assert_nonnull (strstr (r.out, "\033[31mrejected\033[0m"));
  result_clear (&r);

  /* Not on a terminal: the model's text as it wrote it. */
  g_queue_push_tail (&env.fake->script, fake_reply ("# Plan\n- first\n", NULL));
  r = RUN (&env, "", "run", "--sandbox", "bwrap", "plan it");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "# Plan\n- first\n"));
  result_clear (&r);
  env_tear_down (&env);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* A warden-cli that is gone when the test writes to it is no failure. */
  signal (SIGPIPE, SIG_IGN);

  g_test_add_func ("/cli/chat/resume-follow-up", test_resume_follow_up);
  g_test_add_func ("/cli/chat/resume-follow-up-after-pending",
                   test_resume_follow_up_after_pending);
  g_test_add_func ("/cli/chat/resume-last", test_resume_last);
  g_test_add_func ("/cli/chat/resume-prefix", test_resume_prefix);
  g_test_add_func ("/cli/chat/resume-ambiguous", test_resume_ambiguous);
  g_test_add_func ("/cli/chat/on-a-terminal", test_chat_on_a_terminal);
  g_test_add_func ("/cli/chat/interrupt-at-approval", test_chat_interrupt_at_approval);
  g_test_add_func ("/cli/chat/interrupt-at-prompt", test_chat_interrupt_at_prompt);
  g_test_add_func ("/cli/chat/slash-commands", test_chat_slash_commands);
  g_test_add_func ("/cli/chat/compact", test_chat_compact);
  g_test_add_func ("/cli/chat/numbered-choices", test_numbered_choices);
  g_test_add_func ("/cli/chat/feedback-lines", test_feedback_lines);
  g_test_add_func ("/cli/chat/diff-colour", test_diff_colour);
  g_test_add_func ("/cli/chat/terminal-styles", test_terminal_styles);
  return g_test_run ();
}
