/* warden-command-run.c: one command of the model's, from its start to its result
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * It runs the command in the sandbox and owns everything that happens
 * while it runs: the output, the time limit and its hold, the programs the
 * exec guard stops and the hosts the network proxy holds. The guard stops
 * every program the command starts, at any depth, before it runs, and asks
 * here. The answer comes from the same policy as the model's own commands:
 * allowed runs, denied is killed, and what asks goes to the user as an
 * approval with its chain ("rm -rf dist", started by "sh -c …", started by
 * "npm test"), one at a time; the program waits meanwhile, the rest of the
 * tree goes on, and the command's time limit stops. Every question and
 * every refusal is a row under the command; what the model reads of them
 * is written from the rows with the command's result. It reaches the agent
 * only through its signals. The rules Warden adds for started programs
 * (quiet ones, a compiler's passes, which is a shell) are the policy's:
 * src/policy/warden-started-program.h.
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-agent"

#include <string.h>

#include <glib/gi18n.h>

#include "warden-command-run.h"

#include "common/warden-json.h"
#include "policy/warden-network.h"
#include "policy/warden-started-program.h"

struct _WardenCommandRun
{
  GObject             parent_instance;

  WardenSessionStore *store;
  WardenPolicy       *policy;
  WardenSandbox      *sandbox;
  WardenSandboxKind   sandbox_kind;
  char               *workspace;
  char               *host_workspace;
  gboolean            check_programs;
  GHashTable         *host_answers;

  WardenToolCall     *call;
  char               *call_id;
  char               *command;      /* the command that runs */
  char               *cwd;
  GStrv               env;
  guint               timeout_s;
  WardenExecHold     *hold;         /* its time limit, held while the user decides */
  GPtrArray          *rows;         /* WardenToolCall: what it asked about, and the programs and
                                     * hosts refused or allowed on the way, in order: stored,
                                     * and what its result tells the model */
  GHashTable         *approved;     /* simple commands that run without asking again in this
                                     * command: their words, folder and code-loading
                                     * variables (see part_key ()) */
  GQueue              waiting;      /* of Asked *, for the user, in the order they came */
  WardenApproval     *pending;      /* the head of @waiting, before the user */
  char               *result;       /* what the model reads, once it ended */
  gboolean            finished;
  gboolean            started;      /* handed to the sandbox: it may have run */
};

G_DEFINE_FINAL_TYPE (WardenCommandRun, warden_command_run, G_TYPE_OBJECT)

G_DEFINE_QUARK (warden-command-run-error-quark, warden_command_run_error)

enum
{
  SIGNAL_OUTPUT,
  SIGNAL_QUESTION,
  SIGNAL_QUESTION_WITHDRAWN,
  SIGNAL_ALWAYS_ALLOW,
  SIGNAL_FINISHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];


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
approve_parts (WardenCommandRun *self,
               WardenDecision *decision,
               const Scope    *scope)
{
  if (scope->once)
    return;
  for (guint i = 0; decision != NULL && i < warden_decision_get_n_parts (decision); i++)
    g_hash_table_add (self->approved,
                      part_key (warden_decision_get_part (decision, i), scope->cwd,
                                (const char * const *) scope->env));
}

static gboolean
was_approved (WardenCommandRun         *self,
              const WardenDecisionPart *part,
              const Scope              *scope)
{
  g_autofree char *here = part_key (part, scope->cwd, (const char * const *) scope->env);
  g_autofree char *anywhere = part_key (part, NULL, (const char * const *) scope->env);

  return g_hash_table_contains (self->approved, here) ||
         g_hash_table_contains (self->approved, anywhere);
}

/* Every part of @decision that asks was allowed or approved already in
 * @scope; with code-loading variables, every part (the profile's allow of
 * a program is no allow of whatever LD_PRELOAD loads into it). */
static gboolean
approved_before (WardenCommandRun *self,
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
          !was_approved (self, part, scope))
        return FALSE;
    }
  return TRUE;
}

/* The SCRIPT of "sh -c SCRIPT [NAME ARGS…]" when what runs is one of the
 * system's shells, or NULL. */
static const char *
shell_script (WardenGuardQuestion *question)
{
  return warden_started_program_shell_script (warden_guard_question_get_exe (question),
                                              warden_guard_question_get_argv (question));
}

/* A "#!" script run by an interpreter of the system: the script's own
 * words (./test.sh ARGS) may decide. */
static gboolean
runs_script (WardenGuardQuestion *question)
{
  return warden_guard_question_get_script (question) > 0 &&
         warden_started_program_runs_scripts (warden_guard_question_get_exe (question),
                                              warden_guard_question_get_argv (question)[0]);
}

static void ask_next (WardenCommandRun *self);

/* The folder the command's own parts run in: its cwd in the sandbox, or
 * any when the line changes folder itself (cd build && make: the user
 * approved that line, and make runs in build). */
static char *
command_folder (WardenCommandRun *self,
                WardenDecision   *decision)
{
  static const char * const movers[] = { "cd", "pushd", "popd", NULL };
  const char *inside = self->workspace;
  const char *cwd = self->cwd;

  for (guint i = 0; i < warden_decision_get_n_parts (decision); i++)
    {
      const WardenDecisionPart *part = warden_decision_get_part (decision, i);

      if (part->argv != NULL && part->argv[0] != NULL && g_strv_contains (movers, part->argv[0]))
        return NULL;
    }
  return g_canonicalize_filename (cwd != NULL ? cwd : inside, inside);
}

/* Durable as it changes; a failure is only logged, as nothing waits on it. */
static void
save_row (WardenCommandRun *self,
          WardenToolCall   *row)
{
  g_autoptr(WardenToolCallRecord) record = warden_tool_call_to_record (row);
  g_autoptr(GError) error = NULL;

  if (!warden_session_store_save_tool_call (self->store, record, &error))
    g_warning ("%s", error->message);
}

/* A row of this command's: a question about a program or a host, or a
 * decision about one made without the user. */
static WardenToolCall *
new_row (WardenCommandRun *self,
         WardenToolKind  kind,
         JsonBuilder    *input)
{
  g_autofree char *id = g_strdup_printf ("%s/%u", self->call_id, self->rows->len + 1);
  g_autoptr(JsonNode) node = json_builder_get_root (input);
  WardenToolCall *row = warden_tool_call_new_question (warden_tool_call_get_session_id (self->call),
                                                       id, kind, self->call_id, node);

  g_ptr_array_add (self->rows, row);
  return row;
}

/* Settled at once, by the profile or an earlier answer: its time is when
 * (a question's are when it was asked and answered). */
static void
settle_row (WardenCommandRun   *self,
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
  save_row (self, row);
}

/* The user is asked about @row now. */
static void
ask_row (WardenCommandRun *self,
         WardenToolCall *row,
         const char     *reason)
{
  warden_tool_call_set_state (row, WARDEN_TOOL_CALL_PENDING);
  warden_tool_call_set_decision (row, WARDEN_TOOL_DECISION_ASKED, NULL, reason);
  warden_tool_call_mark_asked (row);
  save_row (self, row);
}

/* The user's answer about @row. */
static void
answer_row (WardenCommandRun           *self,
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
  save_row (self, row);
}

/* Its question went unanswered: the command ended, or the connection. */
static void
asked_done (WardenCommandRun *self,
            Asked        *asked)
{
  if (asked->row != NULL && warden_tool_call_get_state (asked->row) == WARDEN_TOOL_CALL_PENDING)
    {
      warden_tool_call_set_state (asked->row, WARDEN_TOOL_CALL_INTERRUPTED);
      save_row (self, asked->row);
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
host_input (WardenCommandRun *self,
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
  add_string_member (b, "by_command", self->command);
  json_builder_end_object (b);
  return b;
}

GPtrArray *
warden_command_run_get_rows (WardenCommandRun *self)
{
  g_return_val_if_fail (WARDEN_IS_COMMAND_RUN (self), NULL);
  return self->rows;
}

WardenToolCall *
warden_command_run_get_call (WardenCommandRun *self)
{
  g_return_val_if_fail (WARDEN_IS_COMMAND_RUN (self), NULL);
  return self->call;
}

gboolean
warden_command_run_get_started (WardenCommandRun *self)
{
  return self->started;
}

const char *
warden_command_run_get_result (WardenCommandRun *self)
{
  g_return_val_if_fail (WARDEN_IS_COMMAND_RUN (self), NULL);
  return self->result;
}

WardenApproval *
warden_command_run_get_pending (WardenCommandRun *self)
{
  g_return_val_if_fail (WARDEN_IS_COMMAND_RUN (self), NULL);
  return self->pending;
}

void
warden_command_run_set_policy (WardenCommandRun *self,
                               WardenPolicy     *policy)
{
  g_return_if_fail (WARDEN_IS_COMMAND_RUN (self));
  warden_policy_ref (policy);
  g_clear_pointer (&self->policy, warden_policy_unref);
  self->policy = policy;
}

/* The command ended: what still waited is not asked any more (the guard
 * killed it with the command, the proxy closed its connection). */
static void
withdraw_all (WardenCommandRun *self)
{
  if (self->pending != NULL)
    {
      g_clear_object (&self->pending);
      g_signal_emit (self, signals[SIGNAL_QUESTION_WITHDRAWN], 0);
    }
  while (!g_queue_is_empty (&self->waiting))
    asked_done (self, g_queue_pop_head (&self->waiting));
}

static void
warden_command_run_dispose (GObject *object)
{
  WardenCommandRun *self = WARDEN_COMMAND_RUN (object);

  withdraw_all (self);
  g_clear_object (&self->store);
  g_clear_object (&self->sandbox);
  g_clear_object (&self->call);
  g_clear_object (&self->pending);
  G_OBJECT_CLASS (warden_command_run_parent_class)->dispose (object);
}

static void
warden_command_run_finalize (GObject *object)
{
  WardenCommandRun *self = WARDEN_COMMAND_RUN (object);

  g_clear_pointer (&self->policy, warden_policy_unref);
  g_clear_pointer (&self->host_answers, g_hash_table_unref);
  g_clear_pointer (&self->hold, warden_exec_hold_unref);
  g_clear_pointer (&self->rows, g_ptr_array_unref);
  g_clear_pointer (&self->approved, g_hash_table_unref);
  g_free (self->workspace);
  g_free (self->host_workspace);
  g_free (self->call_id);
  g_free (self->command);
  g_free (self->cwd);
  g_strfreev (self->env);
  g_free (self->result);
  G_OBJECT_CLASS (warden_command_run_parent_class)->finalize (object);
}

static void
warden_command_run_class_init (WardenCommandRunClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = warden_command_run_dispose;
  object_class->finalize = warden_command_run_finalize;

  signals[SIGNAL_OUTPUT] =
    g_signal_new ("output", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_STRING);
  signals[SIGNAL_QUESTION] =
    g_signal_new ("question", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, WARDEN_TYPE_APPROVAL);
  signals[SIGNAL_QUESTION_WITHDRAWN] =
    g_signal_new ("question-withdrawn", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 0);
  /* The first handler's word is final: the pattern is saved once. */
  signals[SIGNAL_ALWAYS_ALLOW] =
    g_signal_new ("always-allow", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  g_signal_accumulator_first_wins, NULL, NULL, G_TYPE_BOOLEAN, 3, G_TYPE_STRING,
                  G_TYPE_BOOLEAN, G_TYPE_POINTER);
  signals[SIGNAL_FINISHED] =
    g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_POINTER);
}

static void
warden_command_run_init (WardenCommandRun *self)
{
  self->rows = g_ptr_array_new_with_free_func (g_object_unref);
  self->approved = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->hold = warden_exec_hold_new ();
  g_queue_init (&self->waiting);
}

WardenCommandRun *
warden_command_run_new (WardenToolCall               *call,
                        const WardenCommandRunConfig *config)
{
  WardenCommandRun *self;
  g_autoptr(WardenDecision) decision = NULL;
  Scope scope = { 0 };

  g_return_val_if_fail (WARDEN_IS_TOOL_CALL (call), NULL);
  g_return_val_if_fail (config != NULL && config->policy != NULL, NULL);

  self = g_object_new (WARDEN_TYPE_COMMAND_RUN, NULL);
  self->store = g_object_ref (config->store);
  self->policy = warden_policy_ref (config->policy);
  self->sandbox = config->sandbox ? g_object_ref (config->sandbox) : NULL;
  self->sandbox_kind = config->sandbox_kind;
  self->workspace = g_strdup (config->workspace);
  self->host_workspace = g_strdup (config->host_workspace);
  self->check_programs = config->check_programs;
  self->host_answers = config->host_answers ? g_hash_table_ref (config->host_answers) : NULL;
  self->call = g_object_ref (call);
  self->call_id = g_strdup (warden_tool_call_get_id (call));
  self->command = g_strdup (warden_tool_call_get_arg (call, "command"));
  self->cwd = g_strdup (warden_tool_call_get_arg (call, "cwd"));
  self->env = warden_tool_call_dup_env (call);
  self->timeout_s = (guint) CLAMP (warden_json_get_int (warden_tool_call_get_input (call),
                                                        "timeout", 300), 1, 24 * 3600);
  /* The command itself was allowed or approved, every part of it: when the
   * shell starts them, they are what was approved. */
  decision = warden_policy_check (self->policy, self->command, -1, NULL);
  scope.cwd = command_folder (self, decision);
  approve_parts (self, decision, &scope);
  scope_clear (&scope);
  return self;
}

/* What an answer about @question covers (see Scope). */
static void
scope_for (WardenGuardQuestion *question,
           Scope               *scope)
{
  scope->cwd = g_strdup (warden_guard_question_get_cwd (question));
  scope->env = warden_started_program_loading_env (warden_guard_question_get_env (question));
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
 * either form denies, and an ask rule that names either form asks (the
 * allow of the other form does not lift it). */
static WardenDecision *
judge (WardenCommandRun    *self,
       WardenGuardQuestion *question,
       const char          *text,
       const Scope         *scope)
{
  const char * const *argv = warden_guard_question_get_argv (question);
  guint at = warden_guard_question_get_script (question);
  g_autoptr(WardenDecision) decision = NULL;
  WardenCheckContext ctx = { 0 };
  const char *script;

  ctx.workspace = self->workspace;
  ctx.host_workspace = self->host_workspace;
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

      if (warden_decision_get_verdict (decision) == WARDEN_VERDICT_DENY)
        return g_steal_pointer (&decision);
      if (verdict == WARDEN_VERDICT_DENY ||
          (warden_decision_get_asked_by_rule (as_started) != NULL &&
           warden_decision_get_asked_by_rule (decision) == NULL) ||
          (warden_decision_get_verdict (decision) == WARDEN_VERDICT_ASK &&
           warden_decision_get_asked_by_rule (decision) == NULL &&
           runs_script (question) &&
           (verdict == WARDEN_VERDICT_ALLOW || approved_before (self, as_started, scope))))
        return g_steal_pointer (&as_started);
    }
  return g_steal_pointer (&decision);
}

static void
deny_by_profile (WardenCommandRun    *self,
                 WardenGuardQuestion *question,
                 const char          *text,
                 const Scope         *scope,
                 WardenDecision      *decision)
{
  g_autoptr(JsonBuilder) input = program_input (question, text, scope);
  WardenToolCall *row = new_row (self, WARDEN_TOOL_KIND_PROGRAM, input);
  const char *pattern = NULL;

  warden_guard_question_answer (question, FALSE);
  for (guint i = 0; i < warden_decision_get_n_parts (decision) && pattern == NULL; i++)
    if (warden_decision_get_part (decision, i)->verdict == WARDEN_VERDICT_DENY)
      pattern = warden_decision_get_part (decision, i)->pattern;
  settle_row (self, row, WARDEN_TOOL_CALL_DENIED, WARDEN_TOOL_DECISION_DENIED,
              WARDEN_DECIDED_BY_PROFILE, pattern, warden_decision_get_reason (decision));
}

static void
guard_cb (WardenGuardQuestion *question,
          gpointer             user_data)
{
  WardenCommandRun *self = user_data;
  g_autofree char *text = warden_guard_quote_argv (warden_guard_question_get_argv (question));
  g_autoptr(WardenDecision) decision = NULL;
  g_autofree char *forced = NULL;
  WardenVerdict verdict;
  Scope scope = { 0 };
  Asked *asked;

  scope_for (question, &scope);
  decision = judge (self, question, text, &scope);
  verdict = warden_decision_get_verdict (decision);
  forced = why_asks (question, &scope);
  if (verdict == WARDEN_VERDICT_DENY)
    deny_by_profile (self, question, text, &scope, decision);
  else if (verdict == WARDEN_VERDICT_ALLOW && forced == NULL)
    {
      approve_parts (self, decision, &scope);
      warden_guard_question_answer (question, TRUE);
    }
  /* Quiet programs and compiler passes run unasked, unless an ask rule of
   * the profile names them: the user's own rule wins over Warden's list. */
  else if (approved_before (self, decision, &scope) ||
           (forced == NULL && warden_decision_get_asked_by_rule (decision) == NULL &&
            (warden_started_program_is_quiet (text) ||
             warden_started_program_is_compiler_pass (text,
                                                      warden_guard_question_get_chain (question)))))
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
      g_queue_push_tail (&self->waiting, asked);
      ask_next (self);
      return;
    }
  scope_clear (&scope);
}

/* The approval that asks the user about @row, as every question is made. */
static void
put_before_user (WardenCommandRun *self,
                 WardenToolCall *row,
                 WardenDecision *decision)
{
  WardenApprovalContext context = {
    .sandbox = self->sandbox_kind,
    .workspace = self->workspace,
    .decision = decision,
  };

  self->pending = warden_approval_new_for_call (row, &context);
  g_signal_emit (self, signals[SIGNAL_QUESTION], 0, self->pending);
}

/* The user decides about a host now. */
static void
ask_host (WardenCommandRun *self,
          Asked        *asked)
{
  g_autoptr(JsonBuilder) input = host_input (self, asked->host, asked->port);
  g_autofree char *reason = g_strdup_printf (_("no host pattern of the profile matches “%s”"),
                                             asked->text);

  asked->row = g_object_ref (new_row (self, WARDEN_TOOL_KIND_HOST, input));
  ask_row (self, asked->row, reason);
  put_before_user (self, asked->row, NULL);
}

/* The terminal shows what was refused, among the command's output. */
static void
say_refused (WardenCommandRun *self,
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

  g_signal_emit (self, signals[SIGNAL_OUTPUT], 0, (int) WARDEN_STREAM_STDERR, line);
}

void
warden_command_run_note_host (WardenCommandRun *self,
                          const char      *host,
                          guint            port,
                          gboolean         allowed,
                          WardenDecidedBy  by,
                          const char      *pattern)
{
  g_autoptr(JsonBuilder) input = host_input (self, host, port);
  WardenToolCall *row = new_row (self, WARDEN_TOOL_KIND_HOST, input);

  if (by == WARDEN_DECIDED_BY_PROFILE)
    settle_row (self, row, allowed ? WARDEN_TOOL_CALL_FINISHED : WARDEN_TOOL_CALL_DENIED,
                allowed ? WARDEN_TOOL_DECISION_AUTO_ALLOWED : WARDEN_TOOL_DECISION_DENIED, by,
                pattern, NULL);
  else
    settle_row (self, row, allowed ? WARDEN_TOOL_CALL_FINISHED : WARDEN_TOOL_CALL_REJECTED,
                allowed ? WARDEN_TOOL_DECISION_APPROVED : WARDEN_TOOL_DECISION_REJECTED, by,
                pattern, NULL);
  if (!allowed)
    say_refused (self, warden_tool_call_get_subject (row), by);
}

/* The connection that waited went away (its program gave up, or was
 * stopped): its question goes. */
static void
host_closed_cb (WardenNetRequest *request,
                gpointer          user_data)
{
  WardenCommandRun *self = user_data;
  Asked *head = g_queue_peek_head (&self->waiting);

  for (GList *l = self->waiting.head; l != NULL; l = l->next)
    {
      Asked *asked = l->data;

      if (asked->request != request)
        continue;
      g_queue_delete_link (&self->waiting, l);
      if (asked == head && self->pending != NULL)
        {
          g_clear_object (&self->pending);
          g_signal_emit (self, signals[SIGNAL_QUESTION_WITHDRAWN], 0);
        }
      asked_done (self, asked);
      ask_next (self);
      return;
    }
}

void
warden_command_run_ask_host (WardenCommandRun *self,
                         WardenNetRequest *request,
                         const char       *host,
                         guint             port)
{
  Asked *asked = g_new0 (Asked, 1);

  asked->request = warden_net_request_ref (request);
  warden_net_request_set_closed_func (request, host_closed_cb, self, NULL);
  asked->host = g_strdup (host);
  asked->port = port;
  asked->text = warden_network_suggest (host, port);
  /* The time the user takes is not the command's. */
  asked->hold = warden_exec_hold_ref (self->hold);
  warden_exec_hold_push (asked->hold);
  g_queue_push_tail (&self->waiting, asked);
  ask_next (self);
}

/* The next waiting program goes to the user, when none is being asked. */
static void
ask_next (WardenCommandRun *self)
{
  Asked *asked;

  while (self->pending == NULL && (asked = g_queue_peek_head (&self->waiting)) != NULL)
    {
      g_autoptr(JsonBuilder) input = NULL;

      if (asked->request != NULL)
        {
          gpointer answer = self->host_answers ? g_hash_table_lookup (self->host_answers,
                                                                      asked->text) : NULL;

          /* Answered meanwhile for another connection, or given up. */
          if (answer != NULL || warden_net_request_is_closed (asked->request))
            {
              if (answer != NULL)
                {
                  gboolean allowed = GPOINTER_TO_INT (answer) == 1;

                  warden_net_request_answer (asked->request, allowed, allowed ? NULL :
                                             _("the user refused it"));
                  warden_command_run_note_host (self, asked->host, asked->port, allowed,
                                                WARDEN_DECIDED_BY_SESSION, NULL);
                }
              asked_done (self, g_queue_pop_head (&self->waiting));
              continue;
            }
          ask_host (self, asked);
          return;
        }

      /* Approved meanwhile, as part of another: it runs. */
      if (approved_before (self, asked->decision, &asked->scope))
        {
          warden_guard_question_answer (asked->question, TRUE);
          asked_done (self, g_queue_pop_head (&self->waiting));
          continue;
        }
      input = program_input (asked->question, asked->text, &asked->scope);
      asked->row = g_object_ref (new_row (self, WARDEN_TOOL_KIND_PROGRAM, input));
      ask_row (self, asked->row, asked->reason ? asked->reason
                                                 : warden_decision_get_reason (asked->decision));
      put_before_user (self, asked->row, asked->decision);
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
  const char *uncovered_text = NULL, *uncovered_reason = NULL;
  const char * const *suggestions = warden_approval_get_suggestions (approval);

  if (answer->pattern != NULL && *answer->pattern != '\0')
    return g_strdup (answer->pattern);
  if (warden_approval_get_uncovered (approval, &uncovered_text, &uncovered_reason))
    {
      g_set_error (error, WARDEN_COMMAND_RUN_ERROR, WARDEN_COMMAND_RUN_ERROR_NO_PATTERN,
                   _("No pattern can allow “%s” (%s): allow it once, or reject it"),
                   uncovered_text, uncovered_reason);
      return NULL;
    }
  if (suggestions[0] != NULL)
    return g_strjoinv ("\n", (char **) suggestions);
  g_set_error (error, WARDEN_COMMAND_RUN_ERROR, WARDEN_COMMAND_RUN_ERROR_NO_PATTERN,
               _("No pattern to save: give one"));
  return NULL;
}

gboolean
warden_command_run_resolve (WardenCommandRun            *self,
                            const WardenApprovalAnswer  *answer,
                            GError                     **error)
{
  Asked *asked = g_queue_peek_head (&self->waiting);
  g_autofree char *pattern = NULL;

  g_return_val_if_fail (WARDEN_IS_COMMAND_RUN (self), FALSE);

  if (asked == NULL || self->pending == NULL)
    {
      g_set_error (error, WARDEN_COMMAND_RUN_ERROR, WARDEN_COMMAND_RUN_ERROR_NO_PENDING,
                   _("Nothing is waiting for an answer"));
      return FALSE;
    }
  if (answer->approved && answer->allow_always)
    {
      gboolean saved = FALSE;

      pattern = always_pattern (self->pending, answer, error);
      if (pattern == NULL)
        return FALSE;
      g_signal_emit (self, signals[SIGNAL_ALWAYS_ALLOW], 0, pattern, asked->request != NULL,
                     error, &saved);
      if (!saved)
        return FALSE;
    }

  asked = g_queue_pop_head (&self->waiting);
  g_clear_object (&self->pending);
  answer_row (self, asked->row, answer, pattern);
  if (asked->request != NULL)
    {
      if (self->host_answers != NULL)
        g_hash_table_insert (self->host_answers, g_strdup (asked->text),
                             GINT_TO_POINTER (answer->approved ? 1 : 2));
      /* It holds for the session, resumed too; not saved, it is asked again
       * then, which is the safe way to lose it. */
      {
        g_autoptr(GError) save_error = NULL;

        if (!warden_session_store_save_host_answer (self->store,
                                                    warden_tool_call_get_session_id (self->call),
                                                    asked->host,
                                                    asked->port, answer->approved,
                                                    &save_error))
          g_warning ("%s", save_error->message);
      }
      warden_net_request_answer (asked->request, answer->approved,
                                 answer->approved ? NULL
                                                  : _("the user refused it"));
      if (!answer->approved)
        say_refused (self, asked->text, WARDEN_DECIDED_BY_USER);
    }
  else if (answer->approved)
    {
      approve_parts (self, asked->decision, &asked->scope);
      warden_guard_question_answer (asked->question, TRUE);
    }
  else
    warden_guard_question_answer (asked->question, FALSE);
  asked_done (self, asked);
  ask_next (self);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Running it */

static void
output_cb (WardenStream  stream,
           const char   *data,
           gsize         length,
           gpointer      user_data)
{
  WardenCommandRun *self = user_data;
  g_autofree char *text = g_utf8_make_valid (data, length);

  warden_tool_call_append_output (self->call, (int) stream, text);
  g_signal_emit (self, signals[SIGNAL_OUTPUT], 0, (int) stream, text);
}

static void
exec_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(WardenCommandRun) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenExecResult) res = warden_sandbox_exec_finish (WARDEN_SANDBOX (object), result,
                                                                &error);

  /* What the command started is settled with it. */
  withdraw_all (self);
  self->finished = TRUE;
  self->started = warden_sandbox_exec_get_started (WARDEN_SANDBOX (object), result);
  if (res != NULL)
    {
      warden_tool_call_set_exec_result (self->call, res->exit_code, res->stdout_text,
                                        res->stderr_text, res->duration_us / 1000,
                                        res->truncated, res->timed_out);
      self->result = warden_tool_call_exec_result_json (res, self->rows);
    }
  g_signal_emit (self, signals[SIGNAL_FINISHED], 0, error);
}

void
warden_command_run_start (WardenCommandRun *self,
                          GCancellable     *cancellable)
{
  WardenExecRequest request = { 0 };

  g_return_if_fail (WARDEN_IS_COMMAND_RUN (self));
  g_return_if_fail (self->sandbox != NULL);

  /* Every program the command starts is checked too, where the sandbox
   * has the exec guard (it said so when it was ready, otherwise). */
  if (self->check_programs && warden_sandbox_get_guard_unavailable (self->sandbox) == NULL)
    {
      request.guard_func = guard_cb;
      request.guard_data = self;
    }
  /* A host it wants to reach may wait for the user: not on its time. */
  request.hold = self->hold;
  request.command = self->command;
  request.cwd = self->cwd;
  request.env = (const char * const *) self->env;
  request.timeout_ms = self->timeout_s * 1000;
  request.output_func = output_cb;
  request.output_data = self;
  warden_sandbox_exec_async (self->sandbox, &request, cancellable, exec_done_cb,
                             g_object_ref (self));
}
