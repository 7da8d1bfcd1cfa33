/* warden-agent-nested.c: programs a running command starts, checked against the profile
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The sandbox's exec guard stops every program a command starts, at any
 * depth, before it runs, and asks here. The answer comes from the same
 * policy as the model's own commands: allowed runs, denied is killed, and
 * what asks goes to the user as an approval with its chain ("rm -rf dist",
 * started by "sh -c …", started by "npm test"), one at a time; the program
 * waits meanwhile, the rest of the tree goes on, and the command's time
 * limit stops. What was refused goes back to the model with the command's
 * result.
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-agent"

#include <string.h>

#include "warden-agent-private.h"

#include <glib/gi18n.h>

#include "policy/warden-pattern.h"

/* Programs that are fine whenever a command starts them: they report on
 * the system or the repository and change nothing. A profile's deny rules
 * still come first. */
static const char * const quiet_patterns[] = {
  "uname", "uname *", "nproc", "getconf *", "id", "id *", "whoami", "hostname", "locale",
  "locale *", "tput *", "which *", "basename *", "dirname *", "realpath *", "readlink *",
  "pwd", "true", "false", "date", "date +*", "sleep *", "test *", "[ *",
  "git rev-parse *", "git --version", "git config --get *", "git describe *",
  "git symbolic-ref *", "git status *", "git ls-files *", "node --version", "node -v",
  "npm --version", "python3 --version", "python3 -V", "cc --version", "gcc --version",
  "gcc -dumpversion", "gcc -dumpmachine", "pkg-config --*", NULL
};

/* A compiler driver's own passes: what an allowed cc starts to compile. */
static const char * const drivers[] = { "cc", "gcc", "g++", "c++", "clang", "clang++",
                                        "collect2", "gcc-12", "g++-12", NULL };
static const char * const passes[] = { "cc1", "cc1plus", "cc1obj", "as", "collect2", "ld",
                                       "ld.bfd", "ld.gold", "lto-wrapper", "lto1", NULL };

/* The program of @text when it is a system one: a bare name (the guard names
 * a program by its name only when it is the one in a system directory) or
 * one of gcc's own directories; NULL for any other path, such as a program
 * the command made in the workspace. */
static char *
system_program (const char *text)
{
  static const char * const gcc_dirs[] = { "/usr/lib/gcc/", "/usr/libexec/gcc/", NULL };
  g_autofree char *word = g_strndup (text, strcspn (text, " "));

  if (strchr (word, '/') == NULL)
    return g_steal_pointer (&word);
  for (guint i = 0; gcc_dirs[i] != NULL; i++)
    if (g_str_has_prefix (word, gcc_dirs[i]) && strstr (word, "/../") == NULL)
      return g_path_get_basename (word);
  return NULL;
}

/* @text is a compiler pass started by a compiler driver, both the system's. */
static gboolean
is_compiler_pass (const char         *text,
                  const char * const *chain)
{
  g_autofree char *program = system_program (text);
  g_autofree char *parent = chain && chain[0] ? system_program (chain[0]) : NULL;

  return program != NULL && parent != NULL && g_strv_contains (drivers, parent) &&
         g_strv_contains (passes, program);
}

struct _WardenNested
{
  WardenAgent    *self;         /* not a reference: the agent owns us */
  char           *call_id;
  char           *command;      /* the command that runs */
  GPtrArray      *rows;         /* WardenToolCall: what it asked about, and the programs and
                                 * hosts refused or allowed on the way, in order: stored,
                                 * and what its result tells the model */
  GHashTable     *approved;     /* simple commands that run without asking again in this
                                 * command: their words, folder and code-loading
                                 * variables (see part_key ()) */
  GQueue          waiting;      /* of Asked *, for the user, in the order they came */
};

/* What an approval of a started program covers besides its words: the
 * folder it runs in and the variables that load code into it. */
typedef struct
{
  char     *cwd;        /* NULL: any folder (the command's own parts after a cd) */
  char    **env;        /* NAME=VALUE that load code (warden_policy_env_loads_code ()) */
  gboolean  once;       /* the guard cut its question: no approval covers it, and
                         * approving it covers nothing else */
} Scope;

static void
scope_clear (Scope *scope)
{
  g_clear_pointer (&scope->cwd, g_free);
  g_clear_pointer (&scope->env, g_strfreev);
}

/* A program the command started (@question), or a host it wants to reach
 * (@request), waiting for the user. */
typedef struct
{
  WardenGuardQuestion *question;
  WardenDecision      *decision;
  WardenNetRequest    *request;
  WardenExecHold      *hold;       /* the command's, held while a host waits */
  char                *host;
  guint                port;
  char                *text;
  char                *reason;     /* why a program the policy allows asks, or NULL */
  Scope                scope;
  WardenToolCall      *row;        /* once it is asked */
} Asked;

static void
asked_free (Asked *asked)
{
  g_clear_object (&asked->row);
  g_clear_pointer (&asked->question, warden_guard_question_unref);
  g_clear_pointer (&asked->decision, warden_decision_unref);
  /* Unanswered, it counts as refused. */
  if (asked->request != NULL)
    warden_net_request_set_closed_func (asked->request, NULL, NULL, NULL);
  g_clear_pointer (&asked->request, warden_net_request_unref);
  if (asked->hold != NULL)
    {
      warden_exec_hold_pop (asked->hold);
      warden_exec_hold_unref (asked->hold);
    }
  g_free (asked->host);
  g_free (asked->text);
  g_free (asked->reason);
  scope_clear (&asked->scope);
  g_free (asked);
}

static gboolean
is_quiet (const char *text)
{
  for (guint i = 0; quiet_patterns[i] != NULL; i++)
    if (warden_pattern_match (quiet_patterns[i], text, strlen (text)))
      return TRUE;
  return FALSE;
}

/* What an approval of @part covers: the program's words, each one as it is
 * (length first, so "rm 'old build'" is not "rm old build"); the text for a
 * part that starts nothing. Redirections are not words: "tr a b < in" is
 * the program tr with a and b, as the shell starts it. Then the folder
 * (NULL: any) and the code-loading variables: an approval in /workspace/a
 * is none in /workspace/b, nor for the same program with LD_PRELOAD. */
static char *
part_key (const WardenDecisionPart *part,
          const char               *cwd,
          const char * const       *env)
{
  GString *key = g_string_new (NULL);

  g_string_append_printf (key, "cwd:%zu:%s;", cwd ? strlen (cwd) : 0, cwd ? cwd : "*");
  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    g_string_append_printf (key, "env:%zu:%s;", strlen (env[i]), env[i]);
  if (part->argv == NULL)
    {
      g_string_append_printf (key, "text:%s", part->text);
      return g_string_free (key, FALSE);
    }
  g_string_append (key, "argv:");
  for (guint i = 0; part->argv[i] != NULL; i++)
    g_string_append_printf (key, "%zu:%s", strlen (part->argv[i]), part->argv[i]);
  return g_string_free (key, FALSE);
}

/* Every part of @decision runs without asking again in this command, in
 * @scope: sh -c 'a && b' allowed or approved, then a and b as it starts
 * them. */
static void
approve_parts (WardenNested   *nested,
               WardenDecision *decision,
               const Scope    *scope)
{
  if (scope->once)
    return;
  for (guint i = 0; decision != NULL && i < warden_decision_get_n_parts (decision); i++)
    g_hash_table_add (nested->approved,
                      part_key (warden_decision_get_part (decision, i), scope->cwd,
                                (const char * const *) scope->env));
}

static gboolean
was_approved (WardenNested             *nested,
              const WardenDecisionPart *part,
              const Scope              *scope)
{
  g_autofree char *here = part_key (part, scope->cwd, (const char * const *) scope->env);
  g_autofree char *anywhere = part_key (part, NULL, (const char * const *) scope->env);

  return g_hash_table_contains (nested->approved, here) ||
         g_hash_table_contains (nested->approved, anywhere);
}

/* Every part of @decision that asks was allowed or approved already in
 * @scope; with code-loading variables, every part (the profile's allow of
 * a program is no allow of whatever LD_PRELOAD loads into it). */
static gboolean
approved_before (WardenNested   *nested,
                 WardenDecision *decision,
                 const Scope    *scope)
{
  gboolean plain = scope->env == NULL || scope->env[0] == NULL;

  if (scope->once)
    return FALSE;
  for (guint i = 0; i < warden_decision_get_n_parts (decision); i++)
    {
      const WardenDecisionPart *part = warden_decision_get_part (decision, i);

      if ((part->verdict != WARDEN_VERDICT_ALLOW || !plain) &&
          !was_approved (nested, part, scope))
        return FALSE;
    }
  return TRUE;
}

static const char * const shells[] = { "sh", "bash", "dash", "ash", "ksh", "mksh", "zsh",
                                       NULL };
/* Programs that run a script file named in their arguments (versions cut:
 * python3.11 is python). env runs none itself: "#!/usr/bin/env node" makes
 * it start node, which the guard checks in its turn. */
static const char * const interpreters[] = { "sh", "bash", "dash", "ash", "ksh", "mksh", "zsh",
                                             "python", "node", "nodejs", "perl", "ruby", "php",
                                             "env", NULL };
/* Read-only in every sandbox: what is there is the system's, not a file the
 * command wrote. */
static const char * const system_dirs[] = { "/bin", "/usr/bin", "/sbin", "/usr/sbin",
                                            "/usr/local/bin", NULL };

/* The name the system program @exe runs as (busybox: as its argv[0]
 * says), with a version cut off; NULL when @exe is not in a system
 * folder. */
static char *
system_name (const char *exe,
             const char *argv0)
{
  g_autofree char *dir = g_path_get_dirname (exe);
  g_autofree char *name = g_path_get_basename (exe);
  gsize len;

  if (!g_strv_contains (system_dirs, dir) || strstr (exe, "/../") != NULL)
    return NULL;
  if (strcmp (name, "busybox") == 0 && argv0 != NULL)
    {
      g_free (name);
      name = g_path_get_basename (argv0);
    }
  len = strlen (name);
  while (len > 0 && (g_ascii_isdigit (name[len - 1]) || name[len - 1] == '.'))
    len--;
  name[len] = '\0';
  return g_steal_pointer (&name);
}

/* The SCRIPT of "sh -c SCRIPT [NAME ARGS…]" when what runs is one of the
 * system's shells (not a file merely named ./sh), or NULL. */
static const char *
shell_script (WardenGuardQuestion *question)
{
  const char * const *argv = warden_guard_question_get_argv (question);
  g_autofree char *name = NULL;

  if (argv[0] == NULL || argv[1] == NULL || argv[2] == NULL || strcmp (argv[1], "-c") != 0)
    return NULL;
  name = system_name (warden_guard_question_get_exe (question), argv[0]);
  return name != NULL && g_strv_contains (shells, name) ? argv[2] : NULL;
}

/* A "#!" script run by an interpreter of the system: the script's own
 * words (./test.sh ARGS) may decide. */
static gboolean
runs_script (WardenGuardQuestion *question)
{
  const char * const *argv = warden_guard_question_get_argv (question);
  g_autofree char *name = NULL;

  if (warden_guard_question_get_script (question) == 0)
    return FALSE;
  name = system_name (warden_guard_question_get_exe (question), argv[0]);
  return name != NULL && g_strv_contains (interpreters, name);
}

static void ask_next (WardenNested *nested);

/* The folder the command's own parts run in: its cwd in the sandbox, or
 * any when the line changes folder itself (cd build && make: the user
 * approved that line, and make runs in build). */
static char *
command_folder (WardenAgent    *self,
                const char     *cwd,
                WardenDecision *decision)
{
  static const char * const movers[] = { "cd", "pushd", "popd", NULL };
  const char *inside = _warden_agent_workspace_inside (self);

  for (guint i = 0; i < warden_decision_get_n_parts (decision); i++)
    {
      const WardenDecisionPart *part = warden_decision_get_part (decision, i);

      if (part->argv != NULL && part->argv[0] != NULL && g_strv_contains (movers, part->argv[0]))
        return NULL;
    }
  return g_canonicalize_filename (cwd != NULL ? cwd : inside, inside);
}

/* A row of this command's: a question about a program or a host, or a
 * decision about one made without the user. */
static WardenToolCall *
new_row (WardenNested   *nested,
         WardenToolKind  kind,
         JsonBuilder    *input)
{
  g_autofree char *id = g_strdup_printf ("%s/%u", nested->call_id, nested->rows->len + 1);
  g_autoptr(JsonNode) node = json_builder_get_root (input);
  WardenToolCall *row = warden_tool_call_new_question (nested->self->info->id, id, kind,
                                                       nested->call_id, node);

  g_ptr_array_add (nested->rows, row);
  return row;
}

/* Settled at once, by the profile or an earlier answer: its time is when
 * (a question's are when it was asked and answered). */
static void
settle_row (WardenNested       *nested,
            WardenToolCall     *row,
            WardenToolCallState state,
            WardenToolDecision  decision,
            WardenDecidedBy     by,
            const char         *pattern,
            const char         *reason)
{
  gint64 now = g_get_real_time () / 1000;

  warden_tool_call_set_decision (row, decision, pattern, reason);
  warden_tool_call_set_decided_by (row, by);
  warden_tool_call_set_state (row, state);
  warden_tool_call_set_times (row, now, now);
  _warden_agent_save_call (nested->self, row);
}

/* The user is asked about @row now. */
static void
ask_row (WardenNested   *nested,
         WardenToolCall *row,
         const char     *reason)
{
  warden_tool_call_set_state (row, WARDEN_TOOL_CALL_PENDING);
  warden_tool_call_set_decision (row, WARDEN_TOOL_DECISION_ASKED, NULL, reason);
  warden_tool_call_mark_asked (row);
  _warden_agent_save_call (nested->self, row);
}

/* The user's answer about @row. */
static void
answer_row (WardenNested               *nested,
            WardenToolCall             *row,
            const WardenApprovalAnswer *answer,
            const char                 *pattern)
{
  warden_tool_call_set_decision (row, !answer->approved ? WARDEN_TOOL_DECISION_REJECTED
                                      : answer->allow_always ? WARDEN_TOOL_DECISION_APPROVED_ALWAYS
                                      : WARDEN_TOOL_DECISION_APPROVED, pattern, NULL);
  if (!answer->approved)
    warden_tool_call_set_feedback (row, answer->feedback);
  warden_tool_call_mark_answered (row, answer->via);
  warden_tool_call_set_state (row, answer->approved ? WARDEN_TOOL_CALL_FINISHED
                                                    : WARDEN_TOOL_CALL_REJECTED);
  _warden_agent_save_call (nested->self, row);
}

/* Its question went unanswered: the command ended, or the connection. */
static void
asked_done (WardenNested *nested,
            Asked        *asked)
{
  if (asked->row != NULL && warden_tool_call_get_state (asked->row) == WARDEN_TOOL_CALL_PENDING)
    {
      warden_tool_call_set_state (asked->row, WARDEN_TOOL_CALL_INTERRUPTED);
      _warden_agent_save_call (nested->self, asked->row);
    }
  asked_free (asked);
}

static void
add_string_member (JsonBuilder *b,
                   const char  *name,
                   const char  *value)
{
  json_builder_set_member_name (b, name);
  if (value != NULL)
    json_builder_add_string_value (b, value);
  else
    json_builder_add_null_value (b);
}

/* What a program row holds: see warden_tool_call_new_question(). */
static JsonBuilder *
program_input (WardenGuardQuestion *question,
               const char          *text,
               const Scope         *scope)
{
  const char * const *argv = warden_guard_question_get_argv (question);
  const char * const *chain = warden_guard_question_get_chain (question);
  JsonBuilder *b = json_builder_new ();

  json_builder_begin_object (b);
  add_string_member (b, "command", text);
  json_builder_set_member_name (b, "argv");
  json_builder_begin_array (b);
  for (guint i = 0; argv != NULL && argv[i] != NULL; i++)
    json_builder_add_string_value (b, argv[i]);
  json_builder_end_array (b);
  add_string_member (b, "cwd", warden_guard_question_get_cwd (question));
  json_builder_set_member_name (b, "env");
  json_builder_begin_object (b);
  for (guint i = 0; scope->env != NULL && scope->env[i] != NULL; i++)
    {
      const char *eq = strchr (scope->env[i], '=');
      g_autofree char *name = eq ? g_strndup (scope->env[i], eq - scope->env[i])
                                 : g_strdup (scope->env[i]);

      add_string_member (b, name, eq ? eq + 1 : "");
    }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "chain");
  json_builder_begin_array (b);
  for (guint i = 0; chain != NULL && chain[i] != NULL; i++)
    json_builder_add_string_value (b, chain[i]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  return b;
}

static JsonBuilder *
host_input (WardenNested *nested,
            const char   *host,
            guint         port)
{
  g_autofree char *shown = warden_network_suggest (host, port);
  JsonBuilder *b = json_builder_new ();

  json_builder_begin_object (b);
  add_string_member (b, "host", shown);
  add_string_member (b, "name", host);
  json_builder_set_member_name (b, "port");
  json_builder_add_int_value (b, port);
  add_string_member (b, "by_command", nested->command);
  json_builder_end_object (b);
  return b;
}

GPtrArray *
_warden_nested_get_rows (WardenNested *nested)
{
  return nested != NULL ? nested->rows : NULL;
}

WardenNested *
_warden_nested_new (WardenAgent *self,
                    const char  *call_id,
                    const char  *command,
                    const char  *cwd)
{
  WardenNested *nested = g_new0 (WardenNested, 1);
  g_autoptr(WardenDecision) decision = NULL;
  Scope scope = { 0 };

  nested->self = self;
  nested->call_id = g_strdup (call_id);
  nested->command = g_strdup (command);
  nested->rows = g_ptr_array_new_with_free_func (g_object_unref);
  nested->approved = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_queue_init (&nested->waiting);
  /* The command itself was allowed or approved, every part of it: when the
   * shell starts them, they are what was approved. */
  decision = warden_policy_check (self->policy, command, -1, NULL);
  scope.cwd = command_folder (self, cwd, decision);
  approve_parts (nested, decision, &scope);
  scope_clear (&scope);
  return nested;
}

void
_warden_nested_free (WardenNested *nested)
{
  WardenAgent *self;

  if (nested == NULL)
    return;
  self = nested->self;
  /* The command ended: what still waited is not asked any more (the guard
   * killed it with the command). */
  if (self->nested_pending != NULL)
    {
      g_clear_object (&self->nested_pending);
      g_signal_emit (self, AGENT_SIGNAL (APPROVAL_WITHDRAWN), 0);
    }
  while (!g_queue_is_empty (&nested->waiting))
    asked_done (nested, g_queue_pop_head (&nested->waiting));
  g_hash_table_unref (nested->approved);
  g_ptr_array_unref (nested->rows);
  g_free (nested->call_id);
  g_free (nested->command);
  g_free (nested);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* What an answer about @question covers (see Scope). */
static void
scope_for (WardenGuardQuestion *question,
           Scope               *scope)
{
  const char * const *env = warden_guard_question_get_env (question);
  GPtrArray *loading = g_ptr_array_new ();

  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    if (warden_policy_env_loads_code (env[i]))
      g_ptr_array_add (loading, g_strdup (env[i]));
  g_ptr_array_sort (loading, compare_strings);
  g_ptr_array_add (loading, NULL);
  scope->cwd = g_strdup (warden_guard_question_get_cwd (question));
  scope->env = (char **) g_ptr_array_free (loading, FALSE);
  scope->once = warden_guard_question_get_cut (question) > 0;
}

/* Why @question asks though its words may be allowed, or NULL. */
static char *
why_asks (WardenGuardQuestion *question,
          const Scope         *scope)
{
  GString *why = g_string_new (NULL);
  guint64 cut = warden_guard_question_get_cut (question);

  if (scope->env[0] != NULL)
    {
      g_autofree char *names = NULL;
      GPtrArray *list = g_ptr_array_new_with_free_func (g_free);

      for (guint i = 0; scope->env[i] != NULL; i++)
        g_ptr_array_add (list, g_strndup (scope->env[i], strcspn (scope->env[i], "=")));
      g_ptr_array_add (list, NULL);
      names = g_strjoinv (", ", (char **) list->pdata);
      g_ptr_array_unref (list);
      g_string_append_printf (why, _("it starts with %s, which can load any code into it"),
                              names);
    }
  if (cut > 0)
    {
      g_autofree char *bytes = g_strdup_printf ("%" G_GUINT64_FORMAT, cut);

      if (why->len > 0)
        g_string_append (why, "; ");
      g_string_append_printf (why, _("the exec guard left %s bytes of its arguments, "
                                     "environment or chain out of this question: they were "
                                     "neither checked nor shown"), bytes);
    }
  if (why->len == 0)
    return g_string_free (why, TRUE), NULL;
  return g_string_free (why, FALSE);
}

/* The policy's decision about what @question really runs: a system shell's
 * -c string, or the program's own words (the interpreter's, for a "#!"
 * script). A script run by a system interpreter may instead be allowed as
 * it was started (./test.sh ARGS) when its real words ask; a deny of
 * either form denies. */
static WardenDecision *
judge (WardenNested        *nested,
       WardenGuardQuestion *question,
       const char          *text,
       const Scope         *scope)
{
  WardenAgent *self = nested->self;
  const char * const *argv = warden_guard_question_get_argv (question);
  guint at = warden_guard_question_get_script (question);
  g_autoptr(WardenDecision) decision = NULL;
  WardenCheckContext ctx = { 0 };
  const char *script;

  ctx.workspace = _warden_agent_workspace_inside (self);
  ctx.host_workspace = self->config.workspace;
  ctx.cwd = warden_guard_question_get_cwd (question);
  /* A shell started with a script (node's execSync, make's recipes, npm's
   * scripts): the script's commands decide, as if the model had sent them;
   * the shell itself is only the way they run. */
  script = shell_script (question);
  decision = warden_policy_check (self->policy, script ? script : text, -1, &ctx);
  if (at > 0)
    {
      g_autofree char *started = warden_guard_quote_argv (argv + at);
      g_autoptr(WardenDecision) as_started = warden_policy_check (self->policy, started, -1,
                                                                  &ctx);
      WardenVerdict verdict = warden_decision_get_verdict (as_started);

      if (verdict == WARDEN_VERDICT_DENY ||
          (warden_decision_get_verdict (decision) == WARDEN_VERDICT_ASK &&
           runs_script (question) &&
           (verdict == WARDEN_VERDICT_ALLOW || approved_before (nested, as_started, scope))))
        return g_steal_pointer (&as_started);
    }
  return g_steal_pointer (&decision);
}

static void
deny_by_profile (WardenNested        *nested,
                 WardenGuardQuestion *question,
                 const char          *text,
                 const Scope         *scope,
                 WardenDecision      *decision)
{
  g_autoptr(JsonBuilder) input = program_input (question, text, scope);
  WardenToolCall *row = new_row (nested, WARDEN_TOOL_KIND_PROGRAM, input);
  const char *pattern = NULL;

  warden_guard_question_answer (question, FALSE);
  for (guint i = 0; i < warden_decision_get_n_parts (decision) && pattern == NULL; i++)
    if (warden_decision_get_part (decision, i)->verdict == WARDEN_VERDICT_DENY)
      pattern = warden_decision_get_part (decision, i)->pattern;
  settle_row (nested, row, WARDEN_TOOL_CALL_DENIED, WARDEN_TOOL_DECISION_DENIED,
              WARDEN_DECIDED_BY_PROFILE, pattern, warden_decision_get_reason (decision));
}

void
_warden_nested_guard_cb (WardenGuardQuestion *question,
                         gpointer             user_data)
{
  WardenNested *nested = user_data;
  g_autofree char *text = warden_guard_quote_argv (warden_guard_question_get_argv (question));
  g_autoptr(WardenDecision) decision = NULL;
  g_autofree char *forced = NULL;
  WardenVerdict verdict;
  Scope scope = { 0 };
  Asked *asked;

  scope_for (question, &scope);
  decision = judge (nested, question, text, &scope);
  verdict = warden_decision_get_verdict (decision);
  forced = why_asks (question, &scope);
  if (verdict == WARDEN_VERDICT_DENY)
    deny_by_profile (nested, question, text, &scope, decision);
  else if (verdict == WARDEN_VERDICT_ALLOW && forced == NULL)
    {
      approve_parts (nested, decision, &scope);
      warden_guard_question_answer (question, TRUE);
    }
  else if (approved_before (nested, decision, &scope) ||
           (forced == NULL &&
            (is_quiet (text) ||
             is_compiler_pass (text, warden_guard_question_get_chain (question)))))
    warden_guard_question_answer (question, TRUE);
  else
    {
      asked = g_new0 (Asked, 1);
      asked->question = warden_guard_question_ref (question);
      asked->decision = warden_decision_ref (decision);
      asked->text = g_steal_pointer (&text);
      if (forced != NULL && verdict == WARDEN_VERDICT_ASK)
        asked->reason = g_strdup_printf ("%s; %s", warden_decision_get_reason (decision),
                                         forced);
      else
        asked->reason = g_steal_pointer (&forced);
      asked->scope = scope;
      g_queue_push_tail (&nested->waiting, asked);
      ask_next (nested);
      return;
    }
  scope_clear (&scope);
}

/* The approval that asks the user about @row, as every question is made. */
static void
put_before_user (WardenNested   *nested,
                 WardenToolCall *row,
                 WardenDecision *decision)
{
  WardenAgent *self = nested->self;
  WardenApprovalContext context = {
    .sandbox = self->config.sandbox,
    .workspace = _warden_agent_workspace_inside (self),
    .decision = decision,
  };

  self->nested_pending = warden_approval_new_for_call (row, &context);
  g_signal_emit (self, AGENT_SIGNAL (APPROVAL), 0, self->nested_pending);
}

/* The user decides about a host now. */
static void
ask_host (WardenNested *nested,
          Asked        *asked)
{
  g_autoptr(JsonBuilder) input = host_input (nested, asked->host, asked->port);
  g_autofree char *reason = g_strdup_printf (_("no host pattern of the profile matches “%s”"),
                                             asked->text);

  asked->row = g_object_ref (new_row (nested, WARDEN_TOOL_KIND_HOST, input));
  ask_row (nested, asked->row, reason);
  put_before_user (nested, asked->row, NULL);
}

/* The terminal shows what was refused, among the command's output. */
static void
say_refused (WardenNested    *nested,
             const char      *where,
             WardenDecidedBy  by)
{
  g_autofree char *said = g_strdup_printf (_("[warden] refused a connection to %s (%s)"), where,
                                           by == WARDEN_DECIDED_BY_PROFILE
                                           ? _("the profile denies it")
                                           : by == WARDEN_DECIDED_BY_USER
                                           ? _("you refused it")
                                           : _("you refused it before in this session"));
  g_autofree char *line = g_strconcat (said, "\r\n", NULL);

  g_signal_emit (nested->self, AGENT_SIGNAL (OUTPUT), 0, (int) WARDEN_STREAM_STDERR, line);
}

void
_warden_nested_note_host (WardenNested    *nested,
                          const char      *host,
                          guint            port,
                          gboolean         allowed,
                          WardenDecidedBy  by,
                          const char      *pattern)
{
  g_autoptr(JsonBuilder) input = host_input (nested, host, port);
  WardenToolCall *row = new_row (nested, WARDEN_TOOL_KIND_HOST, input);

  if (by == WARDEN_DECIDED_BY_PROFILE)
    settle_row (nested, row, allowed ? WARDEN_TOOL_CALL_FINISHED : WARDEN_TOOL_CALL_DENIED,
                allowed ? WARDEN_TOOL_DECISION_AUTO_ALLOWED : WARDEN_TOOL_DECISION_DENIED, by,
                pattern, NULL);
  else
    settle_row (nested, row, allowed ? WARDEN_TOOL_CALL_FINISHED : WARDEN_TOOL_CALL_REJECTED,
                allowed ? WARDEN_TOOL_DECISION_APPROVED : WARDEN_TOOL_DECISION_REJECTED, by,
                pattern, NULL);
  if (!allowed)
    say_refused (nested, warden_tool_call_get_subject (row), by);
}

/* The connection that waited went away (its program gave up, or was
 * stopped): its question goes. */
static void
host_closed_cb (WardenNetRequest *request,
                gpointer          user_data)
{
  WardenNested *nested = user_data;
  WardenAgent *self = nested->self;
  Asked *head = g_queue_peek_head (&nested->waiting);

  for (GList *l = nested->waiting.head; l != NULL; l = l->next)
    {
      Asked *asked = l->data;

      if (asked->request != request)
        continue;
      g_queue_delete_link (&nested->waiting, l);
      if (asked == head && self->nested_pending != NULL)
        {
          g_clear_object (&self->nested_pending);
          g_signal_emit (self, AGENT_SIGNAL (APPROVAL_WITHDRAWN), 0);
        }
      asked_done (nested, asked);
      ask_next (nested);
      return;
    }
}

void
_warden_nested_ask_host (WardenNested     *nested,
                         WardenNetRequest *request,
                         const char       *host,
                         guint             port)
{
  Asked *asked = g_new0 (Asked, 1);

  asked->request = warden_net_request_ref (request);
  warden_net_request_set_closed_func (request, host_closed_cb, nested, NULL);
  asked->host = g_strdup (host);
  asked->port = port;
  asked->text = warden_network_suggest (host, port);
  /* The time the user takes is not the command's. */
  if (nested->self->net_hold != NULL)
    {
      asked->hold = warden_exec_hold_ref (nested->self->net_hold);
      warden_exec_hold_push (asked->hold);
    }
  g_queue_push_tail (&nested->waiting, asked);
  ask_next (nested);
}

/* The next waiting program goes to the user, when none is being asked. */
static void
ask_next (WardenNested *nested)
{
  WardenAgent *self = nested->self;
  Asked *asked;

  while (self->nested_pending == NULL && (asked = g_queue_peek_head (&nested->waiting)) != NULL)
    {
      g_autoptr(JsonBuilder) input = NULL;

      if (asked->request != NULL)
        {
          gpointer answer = self->net_answers ? g_hash_table_lookup (self->net_answers,
                                                                     asked->text) : NULL;

          /* Answered meanwhile for another connection, or given up. */
          if (answer != NULL || warden_net_request_is_closed (asked->request))
            {
              if (answer != NULL)
                {
                  gboolean allowed = GPOINTER_TO_INT (answer) == 1;

                  warden_net_request_answer (asked->request, allowed, allowed ? NULL :
                                             _("the user refused it"));
                  _warden_nested_note_host (nested, asked->host, asked->port, allowed,
                                            WARDEN_DECIDED_BY_SESSION, NULL);
                }
              asked_done (nested, g_queue_pop_head (&nested->waiting));
              continue;
            }
          ask_host (nested, asked);
          return;
        }

      /* Approved meanwhile, as part of another: it runs. */
      if (approved_before (nested, asked->decision, &asked->scope))
        {
          warden_guard_question_answer (asked->question, TRUE);
          asked_done (nested, g_queue_pop_head (&nested->waiting));
          continue;
        }
      input = program_input (asked->question, asked->text, &asked->scope);
      asked->row = g_object_ref (new_row (nested, WARDEN_TOOL_KIND_PROGRAM, input));
      ask_row (nested, asked->row, asked->reason ? asked->reason
                                                 : warden_decision_get_reason (asked->decision));
      put_before_user (nested, asked->row, asked->decision);
      return;
    }
}

/* The pattern "Always allow" saves for @approval: the one the user gave, or
 * every suggestion; NULL with @error when none can make it run unasked. */
static char *
always_pattern (WardenApproval              *approval,
                const WardenApprovalAnswer  *answer,
                GError                     **error)
{
  WardenDecision *decision = warden_approval_get_decision (approval);
  const WardenDecisionPart *uncovered = decision ? warden_decision_get_uncovered (decision)
                                                 : NULL;
  const char * const *suggestions = warden_approval_get_suggestions (approval);

  if (answer->pattern != NULL && *answer->pattern != '\0')
    return g_strdup (answer->pattern);
  if (uncovered != NULL)
    {
      g_set_error (error, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_FAILED,
                   "No pattern can allow “%s” (%s): allow it once, or reject it",
                   uncovered->text, uncovered->reason);
      return NULL;
    }
  if (suggestions[0] != NULL)
    return g_strjoinv ("\n", (char **) suggestions);
  g_set_error (error, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_FAILED,
               "No pattern to save: give one");
  return NULL;
}

gboolean
_warden_nested_resolve (WardenAgent                 *self,
                        const WardenApprovalAnswer  *answer,
                        GError                     **error)
{
  WardenNested *nested = self->nested;
  Asked *asked = nested ? g_queue_peek_head (&nested->waiting) : NULL;
  WardenApproval *approval = self->nested_pending;
  g_autofree char *pattern = NULL;

  if (asked == NULL || approval == NULL)
    {
      g_set_error (error, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_NO_PENDING,
                   "Nothing is waiting for an answer");
      return FALSE;
    }
  if (answer->approved && answer->allow_always)
    {
      pattern = always_pattern (approval, answer, error);
      if (pattern == NULL ||
          !(asked->request != NULL ? _warden_agent_allow_host_always (self, pattern, error)
                                   : _warden_agent_allow_always (self, pattern, error)))
        return FALSE;
    }

  asked = g_queue_pop_head (&nested->waiting);
  g_clear_object (&self->nested_pending);
  answer_row (nested, asked->row, answer, pattern);
  if (asked->request != NULL)
    {
      if (self->net_answers != NULL)
        g_hash_table_insert (self->net_answers, g_strdup (asked->text),
                             GINT_TO_POINTER (answer->approved ? 1 : 2));
      /* It holds for the session, resumed too; not saved, it is asked again
       * then, which is the safe way to lose it. */
      {
        g_autoptr(GError) save_error = NULL;

        if (!warden_session_store_save_host_answer (self->store, self->info->id, asked->host,
                                                    asked->port, answer->approved,
                                                    &save_error))
          g_warning ("%s", save_error->message);
      }
      warden_net_request_answer (asked->request, answer->approved,
                                 answer->approved ? NULL
                                                  : _("the user refused it"));
      if (!answer->approved)
        say_refused (nested, asked->text, WARDEN_DECIDED_BY_USER);
    }
  else if (answer->approved)
    {
      approve_parts (nested, asked->decision, &asked->scope);
      warden_guard_question_answer (asked->question, TRUE);
    }
  else
    warden_guard_question_answer (asked->question, FALSE);
  asked_done (nested, asked);
  ask_next (nested);
  return TRUE;
}
