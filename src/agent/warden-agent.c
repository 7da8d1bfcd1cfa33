/* warden-agent.c: one session of the coding agent
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-agent"

#include <glib/gi18n.h>

#include "warden-agent.h"

#include <string.h>

#include "common/warden-json.h"
#include "policy/warden-policy.h"
#include "policy/warden-protected-path.h"
#include "sandbox/warden-bwrap-sandbox.h"
#include "sandbox/warden-docker-sandbox.h"
#include "sandbox/warden-flatpak.h"
#include "sandbox/warden-host-sandbox.h"
#include "sandbox/warden-workspace.h"
#include "sandbox/warden-workspace-check.h"

#define DEFAULT_MAX_STEPS 30
#define DEFAULT_HISTORY   50
#define DEFAULT_IDLE      3600

struct _WardenAgent
{
  GObject             parent_instance;

  WardenSessionStore *store;
  WardenProfileStore *profiles;
  WardenLlmProvider  *provider;
  WardenSessionInfo  *info;
  WardenAgentConfig   config;

  GPtrArray          *messages;     /* WardenLlmMessage, the whole conversation */
  GPtrArray          *tools;        /* WardenLlmTool */
  WardenPolicy       *policy;
  WardenWorkspace    *workspace;
  WardenSandbox      *sandbox;
  gboolean            sandbox_ready;
  guint               idle_id;

  WardenApproval     *pending;
  gboolean            leased;        /* this process holds the session's lease */
  guint               steps;
  WardenFileWrite     file_write;     /* the profile's rule for write and edit */
  WardenWorkspaceTarget *asked_target;  /* what the pending file approval opens */
  char               *asked_id;       /* its tool call */

  GTask              *run;          /* the run in progress */
  WardenLlmMessage   *results;      /* tool results of the current assistant message */
  guint               tool_index;
  gint64              request_started;  /* monotonic µs, for the trace's latency */
  gulong              text_delta_id;
  gulong              retrying_id;
  gulong              tool_use_start_id;
};

G_DEFINE_FINAL_TYPE (WardenAgent, warden_agent, G_TYPE_OBJECT)

G_DEFINE_QUARK (warden-agent-error-quark, warden_agent_error)

enum
{
  TEXT_DELTA,
  TOOL_CALL,
  TOOL_RESULT,
  APPROVAL,
  OUTPUT,
  RETRYING,
  TOOL_USE_START,
  SANDBOX_STATE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void continue_loop (WardenAgent *self);
static void rejection_text (WardenToolCallRecord *r, const char *subject, char **out);
static void process_tools (WardenAgent *self);

/* ------------------------------------------------------------------------ */
/* What the model is told */

static const char system_prompt_template[] =
  "You are Warden, a coding agent working on the user's software project.\n"
  "\n"
  "The project is at %s, inside a %s sandbox. Use your tools to do the task: read and search "
  "the code before you change it, make focused changes that fit the code around them, and "
  "run the project's own commands (tests, build, linters) to check your work.\n"
  "\n"
  "Every shell command is checked against the user's allowlist. A command that is not "
  "allowed waits for the user's approval; if they reject it, you receive their reason: "
  "follow it and try another way rather than asking again. Prefer simple commands that are "
  "easy to approve, one thing at a time, and keep writes inside the project.\n"
  "\n"
  "When something is unclear or a decision belongs to the user, ask with ask_user. When the "
  "task is done, say briefly what you changed and how you checked it.";

static const struct { const char *name; const char *description; const char *schema; } tool_defs[] = {
  { "exec",
    "Run a shell command in the project's sandbox with /bin/sh -c and return its exit code, "
    "stdout and stderr (long output keeps its start and end). Commands the user's allowlist "
    "does not allow wait for approval. Use it to build, test, and inspect the system; use "
    "the file tools to read and change files.",
    "{\"type\":\"object\",\"properties\":{"
    "\"command\":{\"type\":\"string\",\"description\":\"The command line\"},"
    "\"cwd\":{\"type\":\"string\",\"description\":\"Working directory inside the sandbox "
    "(default: the project)\"},"
    "\"env\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"},"
    "\"description\":\"Extra environment variables (they make the command ask)\"},"
    "\"timeout\":{\"type\":\"integer\",\"description\":\"Seconds before the command is killed "
    "(default 300)\"}},\"required\":[\"command\"]}" },
  { "read",
    "Read a text file of the project. Returns its lines numbered from 1. Use offset and limit "
    "for long files.",
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\",\"description\":\"Relative to the project, or absolute\"},"
    "\"offset\":{\"type\":\"integer\",\"description\":\"First line to return, from 1\"},"
    "\"limit\":{\"type\":\"integer\",\"description\":\"How many lines\"}},"
    "\"required\":[\"path\"]}" },
  { "write",
    "Write a whole file, creating it and its folders if needed, replacing what was there. "
    "Paths outside the project, and protected ones (.git, .envrc, editor and shell settings), "
    "wait for the user's approval.",
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"}},"
    "\"required\":[\"path\",\"content\"]}" },
  { "edit",
    "Replace an exact piece of text in a file. old_string must appear exactly once unless "
    "replace_all is true; include enough surrounding lines to make it unique. Approval works "
    "as for write.",
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\"},\"old_string\":{\"type\":\"string\"},"
    "\"new_string\":{\"type\":\"string\"},\"replace_all\":{\"type\":\"boolean\"}},"
    "\"required\":[\"path\",\"old_string\",\"new_string\"]}" },
  { "glob",
    "List the project's files matching a glob pattern (** spans folders), sorted.",
    "{\"type\":\"object\",\"properties\":{"
    "\"pattern\":{\"type\":\"string\",\"description\":\"For example src/**/*.c\"},"
    "\"cwd\":{\"type\":\"string\",\"description\":\"Folder the pattern starts from\"}},"
    "\"required\":[\"pattern\"]}" },
  { "grep",
    "Search the project's files for a regular expression; returns path:line: text.",
    "{\"type\":\"object\",\"properties\":{"
    "\"pattern\":{\"type\":\"string\",\"description\":\"A regular expression\"},"
    "\"include\":{\"type\":\"string\",\"description\":\"Only files matching this glob\"},"
    "\"max_results\":{\"type\":\"integer\"},"
    "\"context_lines\":{\"type\":\"integer\"}},\"required\":[\"pattern\"]}" },
  { "ask_user",
    "Ask the user a question and wait for the answer. Give choices when the answer is one of "
    "a few options.",
    "{\"type\":\"object\",\"properties\":{"
    "\"question\":{\"type\":\"string\"},"
    "\"choices\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},"
    "\"required\":[\"question\"]}" },
};

static char *
system_prompt (WardenAgent *self)
{
  const char *inside = g_strcmp0 (self->config.sandbox, "host") == 0 ? self->config.workspace
                                                                     : "/workspace";

  return g_strdup_printf (system_prompt_template, inside,
                          g_strcmp0 (self->config.sandbox, "host") == 0 ? "host (unconfined)"
                                                                        : self->config.sandbox);
}

/* ------------------------------------------------------------------------ */
/* Setup */

static void
config_clear (WardenAgentConfig *config)
{
  g_free (config->workspace);
  g_free (config->profile);
  g_free (config->sandbox);
  g_free (config->image);
}

static void
warden_agent_dispose (GObject *object)
{
  WardenAgent *self = WARDEN_AGENT (object);

  if (self->text_delta_id)
    g_clear_signal_handler (&self->text_delta_id, self->provider);
  if (self->retrying_id)
    g_clear_signal_handler (&self->retrying_id, self->provider);
  if (self->tool_use_start_id)
    g_clear_signal_handler (&self->tool_use_start_id, self->provider);
  g_clear_handle_id (&self->idle_id, g_source_remove);
  if (self->store != NULL && self->info != NULL && self->info->id != NULL && self->leased)
    warden_session_store_release (self->store, self->info->id);
  self->leased = FALSE;
  if (self->sandbox != NULL && self->sandbox_ready)
    warden_sandbox_destroy_async (self->sandbox, NULL, NULL, NULL);
  g_clear_object (&self->sandbox);
  g_clear_object (&self->provider);
  g_clear_object (&self->store);
  g_clear_object (&self->profiles);
  g_clear_object (&self->workspace);
  g_clear_object (&self->pending);
  G_OBJECT_CLASS (warden_agent_parent_class)->dispose (object);
}

static void
warden_agent_finalize (GObject *object)
{
  WardenAgent *self = WARDEN_AGENT (object);

  g_clear_pointer (&self->info, warden_session_info_free);
  config_clear (&self->config);
  g_clear_pointer (&self->messages, g_ptr_array_unref);
  g_clear_pointer (&self->tools, g_ptr_array_unref);
  g_clear_pointer (&self->policy, warden_policy_unref);
  g_clear_pointer (&self->results, warden_llm_message_unref);
  g_clear_pointer (&self->asked_target, warden_workspace_target_free);
  g_clear_pointer (&self->asked_id, g_free);
  G_OBJECT_CLASS (warden_agent_parent_class)->finalize (object);
}

static void
warden_agent_class_init (WardenAgentClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = warden_agent_dispose;
  object_class->finalize = warden_agent_finalize;

  signals[TEXT_DELTA] = g_signal_new ("text-delta", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                      0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[TOOL_CALL] = g_signal_new ("tool-call", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                     0, NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_STRING,
                                     G_TYPE_STRING, G_TYPE_STRING);
  signals[TOOL_RESULT] = g_signal_new ("tool-result", G_TYPE_FROM_CLASS (klass),
                                       G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 5,
                                       G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING,
                                       G_TYPE_STRING, G_TYPE_BOOLEAN);
  signals[APPROVAL] = g_signal_new ("approval", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                    NULL, NULL, NULL, G_TYPE_NONE, 1, WARDEN_TYPE_APPROVAL);
  signals[OUTPUT] = g_signal_new ("output", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                  NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_STRING);
  /* The request is sent again: text streamed so far comes again too. */
  signals[RETRYING] = g_signal_new ("retrying", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                    NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_UINT, G_TYPE_UINT,
                                    G_TYPE_STRING);
  /* The model began a tool call: a view can show it before its input is in. */
  signals[TOOL_USE_START] = g_signal_new ("tool-use-start", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                                          G_TYPE_STRING, G_TYPE_STRING);
  /* preparing (with progress), ready, stopped or failed (with the error). */
  signals[SANDBOX_STATE] = g_signal_new ("sandbox-state", G_TYPE_FROM_CLASS (klass),
                                         G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 3,
                                         G_TYPE_STRING, G_TYPE_DOUBLE, G_TYPE_STRING);
}

static void
emit_sandbox_state (WardenAgent *self,
                    const char  *state,
                    double       fraction,
                    const char  *message)
{
  g_signal_emit (self, signals[SANDBOX_STATE], 0, state, fraction, message);
}

static void
sandbox_progress_cb (WardenSandbox *sandbox,
                     double         fraction,
                     const char    *message,
                     WardenAgent   *self)
{
  emit_sandbox_state (self, "preparing", fraction, message);
}

static void
warden_agent_init (WardenAgent *self)
{
  self->messages = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_llm_message_unref);
  self->tools = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_llm_tool_free);
  for (guint i = 0; i < G_N_ELEMENTS (tool_defs); i++)
    g_ptr_array_add (self->tools, warden_llm_tool_new (tool_defs[i].name, tool_defs[i].description,
                                                       tool_defs[i].schema));
}

static void
text_delta_cb (WardenLlmProvider *provider,
               const char        *text,
               gpointer           user_data)
{
  g_signal_emit (user_data, signals[TEXT_DELTA], 0, text);
}

static void
tool_use_start_cb (WardenLlmProvider *provider,
                   const char        *id,
                   const char        *name,
                   gpointer           user_data)
{
  g_signal_emit (user_data, signals[TOOL_USE_START], 0, id, name);
}

static void
retrying_cb (WardenLlmProvider *provider,
             guint              attempt,
             guint              delay_ms,
             const char        *reason,
             gpointer           user_data)
{
  g_signal_emit (user_data, signals[RETRYING], 0, attempt, delay_ms, reason);
}

static gboolean
load_policy (WardenAgent  *self,
             GError      **error)
{
  g_autoptr(WardenProfile) profile = warden_profile_store_lookup (self->profiles,
                                                                  self->config.profile, error);

  if (profile == NULL)
    return FALSE;
  g_clear_pointer (&self->policy, warden_policy_unref);
  self->policy = warden_policy_new_for_profile (profile);
  self->file_write = warden_profile_get_file_write (profile);
  return TRUE;
}

const char *
warden_agent_get_profile (WardenAgent *self)
{
  g_return_val_if_fail (WARDEN_IS_AGENT (self), NULL);
  return self->config.profile;
}

gboolean
warden_agent_set_profile (WardenAgent  *self,
                          const char   *profile_id,
                          GError      **error)
{
  g_autofree char *old = NULL;

  g_return_val_if_fail (WARDEN_IS_AGENT (self), FALSE);
  g_return_val_if_fail (profile_id != NULL, FALSE);

  old = g_steal_pointer (&self->config.profile);
  self->config.profile = g_strdup (profile_id);
  if (!load_policy (self, error))
    {
      /* Keep checking against the profile that still loads. */
      g_free (self->config.profile);
      self->config.profile = g_steal_pointer (&old);
      return FALSE;
    }
  g_free (self->info->profile);
  self->info->profile = g_strdup (profile_id);
  return warden_session_store_save_session (self->store, self->info, error);
}

gboolean
warden_agent_set_title (WardenAgent  *self,
                        const char   *title,
                        GError      **error)
{
  g_return_val_if_fail (WARDEN_IS_AGENT (self), FALSE);

  g_free (self->info->title);
  self->info->title = g_strdup (title);
  return warden_session_store_save_session (self->store, self->info, error);
}

gboolean
warden_agent_reload_policy (WardenAgent  *self,
                            GError      **error)
{
  g_return_val_if_fail (WARDEN_IS_AGENT (self), FALSE);
  return load_policy (self, error);
}

static gboolean
setup (WardenAgent         *self,
       WardenSessionStore  *store,
       WardenProfileStore  *profiles,
       WardenLlmProvider   *provider,
       GError             **error)
{
  g_set_object (&self->store, store);
  self->profiles = g_object_ref (profiles);
  self->provider = g_object_ref (provider);
  self->text_delta_id = g_signal_connect (provider, "text-delta", G_CALLBACK (text_delta_cb),
                                          self);
  self->retrying_id = g_signal_connect (provider, "retrying", G_CALLBACK (retrying_cb), self);
  self->tool_use_start_id = g_signal_connect (provider, "tool-use-start",
                                              G_CALLBACK (tool_use_start_cb), self);
  if (self->config.max_steps == 0)
    self->config.max_steps = DEFAULT_MAX_STEPS;
  if (self->config.history == 0)
    self->config.history = DEFAULT_HISTORY;
  if (self->config.idle_seconds == 0)
    self->config.idle_seconds = DEFAULT_IDLE;

  /* Every session starts here, new or resumed, from any front end: no
   * workspace that holds Warden's own state or the user's keys, and the
   * folder itself from now on, not a link that could be pointed elsewhere. */
  {
    g_autofree char *store_dir = g_path_get_dirname (warden_session_store_get_path (store));
    const char *also[] = { store_dir, warden_profile_store_get_user_dir (profiles), NULL };
    char *real = warden_workspace_check (self->config.workspace, also, error);

    if (real == NULL)
      return FALSE;
    g_free (self->config.workspace);
    self->config.workspace = real;
  }

  self->workspace = warden_workspace_new (self->config.workspace,
                                          g_strcmp0 (self->config.sandbox, "host") == 0
                                          ? self->config.workspace : "/workspace",
                                          error);
  if (self->workspace == NULL)
    return FALSE;
  return load_policy (self, error);
}

WardenAgent *
warden_agent_new (WardenSessionStore       *store,
                  WardenProfileStore       *profiles,
                  WardenLlmProvider        *provider,
                  const WardenAgentConfig  *config,
                  GError                  **error)
{
  g_autoptr(WardenAgent) self = g_object_new (WARDEN_TYPE_AGENT, NULL);

  self->config = *config;
  self->config.workspace = g_canonicalize_filename (config->workspace, NULL);
  self->config.profile = g_strdup (config->profile ? config->profile : "node");
  self->config.sandbox = g_strdup (config->sandbox ? config->sandbox : "bwrap");
  self->config.image = g_strdup (config->image);
  if (!setup (self, store, profiles, provider, error))
    return NULL;

  self->info = warden_session_info_new ();
  self->info->workspace = g_strdup (self->config.workspace);
  self->info->profile = g_strdup (self->config.profile);
  self->info->provider = g_strdup (warden_llm_provider_get_name (provider));
  self->info->model = g_strdup (warden_llm_provider_get_model (provider));
  self->info->base_url = g_strdup (warden_llm_provider_get_base_url (provider));
  self->info->sandbox = g_strdup (self->config.sandbox);
  self->info->image = g_strdup (self->config.image);
  self->info->state = g_strdup ("idle");
  if (!warden_session_store_save_session (store, self->info, error) ||
      !warden_session_store_acquire (store, self->info->id, NULL, NULL, error))
    return NULL;
  self->leased = TRUE;
  return g_steal_pointer (&self);
}

static gboolean
override_str (char       **field,
              const char  *value)
{
  if (value == NULL || g_strcmp0 (*field, value) == 0)
    return FALSE;
  g_free (*field);
  *field = g_strdup (value);
  return TRUE;
}

WardenAgent *
warden_agent_open (WardenSessionStore  *store,
                   WardenProfileStore  *profiles,
                   WardenLlmProvider   *provider,
                   const char               *session_id,
                   const WardenAgentConfig  *overrides,
                   GError                  **error)
{
  g_autoptr(WardenAgent) self = g_object_new (WARDEN_TYPE_AGENT, NULL);
  g_autoptr(GPtrArray) stored = NULL;
  gboolean changed = FALSE;

  /* Before anything is read: what another process is doing to the session
   * is not ours to read half-done, nor to repeat. */
  if (!warden_session_store_acquire (store, session_id, NULL, NULL, error))
    return NULL;
  self->store = g_object_ref (store);
  self->leased = TRUE;
  self->info = warden_session_store_get_session (store, session_id, error);
  if (self->info == NULL)
    return NULL;

  /* The session goes on as it was recorded, but for what the caller changes;
   * the changes are recorded, so the record says what runs it. */
  if (overrides != NULL)
    {
      changed |= override_str (&self->info->profile, overrides->profile);
      changed |= override_str (&self->info->sandbox, overrides->sandbox);
      changed |= override_str (&self->info->image, overrides->image);
      self->config.max_steps = overrides->max_steps;
      self->config.history = overrides->history;
      self->config.network = overrides->network;
      self->config.host_writes_free = overrides->host_writes_free;
      self->config.idle_seconds = overrides->idle_seconds;
      self->config.memory_bytes = overrides->memory_bytes;
      self->config.cpus = overrides->cpus;
    }
  changed |= override_str (&self->info->provider, warden_llm_provider_get_name (provider));
  changed |= override_str (&self->info->model, warden_llm_provider_get_model (provider));
  changed |= override_str (&self->info->base_url, warden_llm_provider_get_base_url (provider));
  /* Nobody else holds the lease, so nothing runs it: a "running" left by a
   * process that died mid-step is stopped. */
  if (g_strcmp0 (self->info->state, "running") == 0)
    changed |= override_str (&self->info->state, "stopped");
  if (changed && !warden_session_store_save_session (store, self->info, error))
    return NULL;

  self->config.workspace = g_strdup (self->info->workspace);
  self->config.profile = g_strdup (self->info->profile);
  self->config.sandbox = g_strdup (self->info->sandbox ? self->info->sandbox : "bwrap");
  self->config.image = g_strdup (self->info->image);
  if (!setup (self, store, profiles, provider, error))
    return NULL;

  stored = warden_session_store_load_messages (store, session_id, error);
  if (stored == NULL)
    return NULL;
  for (guint i = 0; i < stored->len; i++)
    {
      g_autoptr(JsonNode) node = json_from_string (g_ptr_array_index (stored, i), error);
      WardenLlmMessage *message;

      if (node == NULL)
        return NULL;
      message = warden_llm_message_new_from_json (node, error);
      if (message == NULL)
        return NULL;
      g_ptr_array_add (self->messages, message);
    }
  return g_steal_pointer (&self);
}

const char *
warden_agent_get_session_id (WardenAgent *self)
{
  return self->info->id;
}

WardenApproval *
warden_agent_get_pending (WardenAgent *self)
{
  return self->pending;
}

guint
warden_agent_get_steps (WardenAgent *self)
{
  return self->steps;
}

/* ------------------------------------------------------------------------ */
/* Persistence */

static gboolean
save_state (WardenAgent *self,
            const char  *state)
{
  g_autoptr(GError) error = NULL;

  g_free (self->info->state);
  self->info->state = g_strdup (state);
  /* What a list shows, nothing more: a session read back while "running"
   * with no live owner is shown as stopped (warden_agent_open()). What must
   * be on disk before anything runs is saved by the callers themselves. */
  if (!warden_session_store_save_session (self->store, self->info, &error))
    {
      g_debug ("Session state not saved: %s", error->message);
      return FALSE;
    }
  return TRUE;
}

/* @latency_ms: the model's answer took this long; -1 for other messages. */
static gboolean
append_message_full (WardenAgent       *self,
                     WardenLlmMessage  *message,
                     gint64             input_tokens,
                     gint64             output_tokens,
                     gint64             latency_ms,
                     GError           **error)
{
  g_autoptr(JsonNode) node = warden_llm_message_to_json (message);
  g_autofree char *json = warden_json_to_string (node, FALSE);

  if (!warden_session_store_append_model_message (self->store, self->info->id,
                                                  self->messages->len, json, input_tokens,
                                                  output_tokens, latency_ms, error))
    return FALSE;
  g_ptr_array_add (self->messages, warden_llm_message_ref (message));
  return TRUE;
}

static gboolean
append_message (WardenAgent       *self,
                WardenLlmMessage  *message,
                gint64             input_tokens,
                gint64             output_tokens,
                GError           **error)
{
  return append_message_full (self, message, input_tokens, output_tokens, -1, error);
}

static WardenLlmMessage *
last_message (WardenAgent *self)
{
  return self->messages->len ? g_ptr_array_index (self->messages, self->messages->len - 1) : NULL;
}

/* ------------------------------------------------------------------------ */
/* Finishing a run */

static void
run_return (WardenAgent        *self,
            WardenAgentOutcome  outcome,
            GError             *error)
{
  g_autoptr(GTask) task = g_steal_pointer (&self->run);

  if (task == NULL)
    {
      g_clear_error (&error);
      return;
    }
  if (error != NULL)
    {
      save_state (self, g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ? "stopped"
                                                                                  : "failed");
      g_task_return_error (task, error);
      return;
    }
  save_state (self, outcome == WARDEN_AGENT_WAITING ? "waiting"
                    : outcome == WARDEN_AGENT_MAX_STEPS ? "max-steps" : "finished");
  g_task_return_int (task, outcome);
}

/* ------------------------------------------------------------------------ */
/* Asking the model */

static gboolean
is_plain_user (WardenLlmMessage *m)
{
  if (warden_llm_message_get_role (m) != WARDEN_LLM_ROLE_USER)
    return FALSE;
  for (guint b = 0; b < warden_llm_message_get_n_blocks (m); b++)
    if (warden_llm_message_get_block (m, b)->type == WARDEN_LLM_BLOCK_TOOL_RESULT)
      return FALSE;
  return TRUE;
}

/* About the last config.history messages. The window starts at a user
 * message without tool results, so a tool call is never separated from its
 * result: the first such message inside the limit, or else the last one
 * before it (a long turn is sent whole). */
static GPtrArray *
history_window (WardenAgent *self)
{
  GPtrArray *window = g_ptr_array_new ();
  guint limit = self->messages->len > self->config.history
                ? self->messages->len - self->config.history : 0;
  guint start = limit;

  while (start < self->messages->len && !is_plain_user (g_ptr_array_index (self->messages, start)))
    start++;
  if (start >= self->messages->len)
    {
      start = limit;
      while (start > 0 && !is_plain_user (g_ptr_array_index (self->messages, start)))
        start--;
    }
  for (guint i = start; i < self->messages->len; i++)
    g_ptr_array_add (window, g_ptr_array_index (self->messages, i));
  return window;
}

static void
complete_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(WardenAgent) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenLlmResponse) response = NULL;

  response = warden_llm_provider_complete_finish (WARDEN_LLM_PROVIDER (object), result, &error);
  if (self->run == NULL)
    return;
  if (response == NULL)
    {
      run_return (self, 0, g_steal_pointer (&error));
      return;
    }

  self->info->input_tokens += response->input_tokens;
  self->info->output_tokens += response->output_tokens;
  if (!append_message_full (self, response->message, response->input_tokens,
                            response->output_tokens,
                            (g_get_monotonic_time () - self->request_started) / 1000, &error))
    {
      run_return (self, 0, g_steal_pointer (&error));
      return;
    }

  if (!warden_llm_message_has_tool_use (response->message))
    {
      run_return (self, WARDEN_AGENT_FINISHED, NULL);
      return;
    }
  self->tool_index = 0;
  g_clear_pointer (&self->results, warden_llm_message_unref);
  process_tools (self);
}

static void
request_model (WardenAgent *self)
{
  g_autoptr(GPtrArray) window = NULL;
  g_autofree char *prompt = NULL;

  if (self->steps >= self->config.max_steps)
    {
      run_return (self, WARDEN_AGENT_MAX_STEPS, NULL);
      return;
    }
  self->steps++;
  save_state (self, "running");

  window = history_window (self);
  prompt = system_prompt (self);
  self->request_started = g_get_monotonic_time ();
  warden_llm_provider_complete_async (self->provider, prompt, window, self->tools,
                                      g_task_get_cancellable (self->run), complete_cb,
                                      g_object_ref (self));
}

/* ------------------------------------------------------------------------ */
/* Tool calls */

static const WardenLlmBlock *
current_tool (WardenAgent *self)
{
  WardenLlmMessage *m = last_message (self);
  guint seen = 0;

  for (guint b = 0; m && b < warden_llm_message_get_n_blocks (m); b++)
    {
      const WardenLlmBlock *block = warden_llm_message_get_block (m, b);

      if (block->type != WARDEN_LLM_BLOCK_TOOL_USE)
        continue;
      if (seen++ == self->tool_index)
        return block;
    }
  return NULL;
}

static WardenToolCallRecord *
record_for (WardenAgent          *self,
            const WardenLlmBlock *block)
{
  WardenToolCallRecord *r = warden_session_store_get_tool_call (self->store, self->info->id,
                                                                block->tool_use_id, NULL);

  if (r == NULL)
    {
      r = warden_tool_call_record_new ();
      r->session_id = g_strdup (self->info->id);
      r->tool_use_id = g_strdup (block->tool_use_id);
      r->name = g_strdup (block->tool_name);
      r->input_json = warden_json_to_string (block->tool_input, FALSE);
    }
  else if (g_strcmp0 (r->state, "approved") == 0 || g_strcmp0 (r->state, "answered") == 0)
    {
      /* The user approved r->input_json (the store checks its seal); what
       * runs is the stored conversation's block. They must be the same. */
      g_autoptr(JsonNode) approved = r->input_json ? json_from_string (r->input_json, NULL) : NULL;

      if (approved == NULL || block->tool_input == NULL ||
          !json_node_equal (approved, block->tool_input))
        {
          g_free (r->state);
          r->state = g_strdup ("pending");
          g_free (r->decision);
          r->decision = g_strdup ("asked");
          g_free (r->reason);
          r->reason = g_strdup (WARDEN_STORE_UNVERIFIED_REASON);
          g_free (r->input_json);
          r->input_json = warden_json_to_string (block->tool_input, FALSE);
          /* What the user answers next is about this input. */
          warden_session_store_save_tool_call (self->store, r, NULL);
        }
    }
  return r;
}

static void
save_record (WardenAgent          *self,
             WardenToolCallRecord *r)
{
  g_autoptr(GError) error = NULL;

  if (!warden_session_store_save_tool_call (self->store, r, &error))
    g_warning ("%s", error->message);
}

static void
set_str (char       **field,
         const char  *value)
{
  g_free (*field);
  *field = g_strdup (value);
}

/* Gives the model the result of the current tool call, records it, and goes
 * on with the next one. Takes @r. */
static void
tool_done (WardenAgent          *self,
           WardenToolCallRecord *r,
           const char           *state,
           const char           *result,
           gboolean              is_error)
{
  set_str (&r->state, state);
  set_str (&r->result_json, result);
  if (r->finished == 0)
    r->finished = g_get_real_time () / 1000;
  if (r->decision == NULL)
    set_str (&r->decision, "none");
  save_record (self, r);

  if (self->results == NULL)
    self->results = warden_llm_message_new (WARDEN_LLM_ROLE_USER);
  warden_llm_message_add_tool_result (self->results, r->tool_use_id, result, is_error);
  g_signal_emit (self, signals[TOOL_RESULT], 0, r->tool_use_id, r->name, r->decision, result,
                 is_error);

  warden_tool_call_record_free (r);
  self->tool_index++;
  process_tools (self);
}

/* Takes @r. */
static void
wait_for_user (WardenAgent          *self,
               WardenToolCallRecord *r,
               WardenApproval       *approval)
{
  set_str (&r->state, "pending");
  set_str (&r->decision, "asked");
  r->asked = g_get_real_time () / 1000;
  save_record (self, r);  /* durable before the loop suspends */
  warden_tool_call_record_free (r);

  g_set_object (&self->pending, approval);
  g_signal_emit (self, signals[APPROVAL], 0, approval);
  run_return (self, WARDEN_AGENT_WAITING, NULL);
}

static const char *
get_string (JsonObject *input,
            const char *key)
{
  JsonNode *node = json_object_get_member (input, key);

  return node && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_STRING ? json_node_get_string (node) : NULL;
}

static gint64
get_int (JsonObject *input,
         const char *key,
         gint64      fallback)
{
  JsonNode *node = json_object_get_member (input, key);

  return node && JSON_NODE_HOLDS_VALUE (node) &&
         (json_node_get_value_type (node) == G_TYPE_INT64 ||
          json_node_get_value_type (node) == G_TYPE_DOUBLE) ? json_node_get_int (node) : fallback;
}

static GStrv
get_env (JsonObject *input)
{
  JsonNode *node = json_object_get_member (input, "env");
  g_autoptr(GStrvBuilder) b = g_strv_builder_new ();

  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *env = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (env);

      for (GList *l = members; l; l = l->next)
        {
          JsonNode *value = json_object_get_member (env, l->data);

          if (JSON_NODE_HOLDS_VALUE (value))
            {
              g_autofree char *pair = g_strdup_printf ("%s=%s", (char *) l->data,
                                                       json_node_get_string (value)
                                                       ? json_node_get_string (value) : "");

              g_strv_builder_add (b, pair);
            }
        }
    }
  return g_strv_builder_end (b);
}

/* exec ---------------------------------------------------------------------*/

typedef struct
{
  WardenAgent          *self;
  WardenToolCallRecord *record;
  char                 *command;
  char                 *cwd;
  GStrv                 env;
  guint                 timeout_s;
} ExecCall;

static void
exec_call_free (ExecCall *call)
{
  g_object_unref (call->self);
  warden_tool_call_record_free (call->record);
  g_free (call->command);
  g_free (call->cwd);
  g_strfreev (call->env);
  g_free (call);
}

static void
exec_output_cb (WardenStream  stream,
                const char   *data,
                gsize         length,
                gpointer      user_data)
{
  ExecCall *call = user_data;
  g_autofree char *text = g_utf8_make_valid (data, length);

  g_signal_emit (call->self, signals[OUTPUT], 0, (int) stream, text);
}

static gboolean
idle_destroy_cb (gpointer user_data)
{
  WardenAgent *self = user_data;

  self->idle_id = 0;
  if (self->sandbox != NULL && self->sandbox_ready && self->run == NULL)
    {
      warden_sandbox_destroy_async (self->sandbox, NULL, NULL, NULL);
      g_clear_object (&self->sandbox);
      self->sandbox_ready = FALSE;
      emit_sandbox_state (self, "stopped", 0, NULL);
    }
  return G_SOURCE_REMOVE;
}

static void
exec_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  ExecCall *call = user_data;
  WardenAgent *self = call->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenExecResult) res = warden_sandbox_exec_finish (WARDEN_SANDBOX (object), result,
                                                                &error);
  g_autoptr(JsonBuilder) b = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *json = NULL;

  g_clear_handle_id (&self->idle_id, g_source_remove);
  self->idle_id = g_timeout_add_seconds (self->config.idle_seconds, idle_destroy_cb, self);

  if (res == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          /* Left "running": a resumed session reports it as interrupted. */
          run_return (self, 0, g_steal_pointer (&error));
          exec_call_free (call);
          return;
        }
      {
        g_autofree char *msg = g_strdup_printf ("The sandbox failed to run the command: %s",
                                                error->message);

        tool_done (self, g_steal_pointer (&call->record), "finished", msg, TRUE);
      }
      exec_call_free (call);
      return;
    }

  b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "exit_code");
  json_builder_add_int_value (b, res->exit_code);
  json_builder_set_member_name (b, "stdout");
  json_builder_add_string_value (b, res->stdout_text);
  json_builder_set_member_name (b, "stderr");
  json_builder_add_string_value (b, res->stderr_text);
  json_builder_set_member_name (b, "duration_ms");
  json_builder_add_int_value (b, res->duration_us / 1000);
  json_builder_set_member_name (b, "truncated");
  json_builder_add_boolean_value (b, res->truncated);
  if (res->timed_out)
    {
      json_builder_set_member_name (b, "timed_out");
      json_builder_add_boolean_value (b, TRUE);
    }
  json_builder_end_object (b);
  node = json_builder_get_root (b);
  json = warden_json_to_string (node, FALSE);
  tool_done (self, g_steal_pointer (&call->record), "finished", json, FALSE);
  exec_call_free (call);
}

static void
run_exec (ExecCall *call)
{
  WardenAgent *self = call->self;
  WardenExecRequest request = { 0 };

  /* Exactly once: "running" is on disk before the command starts. If it
   * cannot be written, the command does not start: after a crash it would
   * look as if it never ran, and run again. */
  {
    g_autofree char *state = g_strdup (call->record->state);
    g_autoptr(GError) error = NULL;

    set_str (&call->record->state, "running");
    call->record->started = g_get_real_time () / 1000;
    if (!warden_session_store_save_tool_call (self->store, call->record, &error))
      {
        set_str (&call->record->state, state);
        call->record->started = 0;
        run_return (self, 0, g_error_new (WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_NOT_RECORDED,
                                          _("The command was not started, because Warden could "
                                            "not record that it starts: %s. Continue the session "
                                            "when this is solved; the command runs then."),
                                          error->message));
        exec_call_free (call);
        return;
      }
  }

  g_signal_emit (self, signals[TOOL_CALL], 0, call->record->tool_use_id, "exec",
                 call->record->input_json);
  request.command = call->command;
  request.cwd = call->cwd;
  request.env = (const char * const *) call->env;
  request.timeout_ms = call->timeout_s * 1000;
  request.output_func = exec_output_cb;
  request.output_data = call;
  warden_sandbox_exec_async (self->sandbox, &request, g_task_get_cancellable (self->run),
                             exec_done_cb, call);
}

static void
prepare_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  ExecCall *call = user_data;
  WardenAgent *self = call->self;
  g_autoptr(GError) error = NULL;

  if (!warden_sandbox_prepare_finish (WARDEN_SANDBOX (object), result, &error))
    {
      g_autofree char *msg = NULL;

      g_clear_object (&self->sandbox);
      emit_sandbox_state (self, g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
                                ? "stopped" : "failed", 0, error->message);
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          run_return (self, 0, g_steal_pointer (&error));
          exec_call_free (call);
          return;
        }
      msg = g_strdup_printf ("The sandbox could not be prepared: %s", error->message);
      tool_done (self, g_steal_pointer (&call->record), "finished", msg, TRUE);
      exec_call_free (call);
      return;
    }
  self->sandbox_ready = TRUE;
  emit_sandbox_state (self, "ready", 1, NULL);
  run_exec (call);
}

/* One sandbox per session, made at the first command. */
static void
ensure_sandbox_and_run (ExecCall *call)
{
  WardenAgent *self = call->self;
  g_autoptr(WardenSandboxConfig) config = NULL;

  if (self->sandbox != NULL && self->sandbox_ready)
    {
      run_exec (call);
      return;
    }

  {
    g_autoptr(GError) error = NULL;

    if (!warden_flatpak_check_backend (self->config.sandbox, &error) ||
        !warden_flatpak_check_workspace (self->config.workspace, &error))
      {
        g_autofree char *msg = g_strdup_printf ("The sandbox could not be prepared: %s",
                                                error->message);

        emit_sandbox_state (self, "failed", 0, error->message);
        tool_done (self, g_steal_pointer (&call->record), "finished", msg, TRUE);
        exec_call_free (call);
        return;
      }
  }

  config = warden_sandbox_config_new (self->config.workspace);
  config->image = g_strdup (self->config.image ? self->config.image : "debian:bookworm-slim");
  config->network = self->config.network;
  config->memory_bytes = self->config.memory_bytes;
  config->cpus = self->config.cpus;
  if (g_strcmp0 (self->config.sandbox, "docker") == 0)
    self->sandbox = warden_docker_sandbox_new (config);
  else if (g_strcmp0 (self->config.sandbox, "host") == 0)
    self->sandbox = warden_host_sandbox_new (config);
  else
    self->sandbox = warden_bwrap_sandbox_new (config);
  g_signal_connect_object (self->sandbox, "progress", G_CALLBACK (sandbox_progress_cb), self, 0);
  emit_sandbox_state (self, "preparing", 0, NULL);
  warden_sandbox_prepare_async (self->sandbox, g_task_get_cancellable (self->run), prepare_cb,
                                call);
}

static const char *
workspace_inside (WardenAgent *self)
{
  return g_strcmp0 (self->config.sandbox, "host") == 0 ? self->config.workspace : "/workspace";
}

static void
start_exec (WardenAgent          *self,
            WardenToolCallRecord *r,
            JsonObject           *input)
{
  const char *command = get_string (input, "command");
  ExecCall *call;
  g_autoptr(WardenDecision) decision = NULL;
  WardenCheckContext ctx = { 0 };

  if (command == NULL || *command == '\0')
    {
      tool_done (self, r, "finished", "Error: exec needs a non-empty \"command\" string", TRUE);
      return;
    }

  call = g_new0 (ExecCall, 1);
  call->self = g_object_ref (self);
  call->record = r;
  call->command = g_strdup (command);
  call->cwd = g_strdup (get_string (input, "cwd"));
  call->env = get_env (input);
  call->timeout_s = (guint) CLAMP (get_int (input, "timeout", 300), 1, 24 * 3600);

  /* Approved by the user already (a resumed session, or just now). */
  if (g_strcmp0 (r->state, "approved") == 0)
    {
      ensure_sandbox_and_run (call);
      return;
    }

  ctx.workspace = workspace_inside (self);
  ctx.host_workspace = self->config.workspace;
  ctx.cwd = call->cwd;
  ctx.env = (const char * const *) call->env;
  decision = warden_policy_check (self->policy, command, -1, &ctx);

  switch (warden_decision_get_verdict (decision))
    {
    case WARDEN_VERDICT_ALLOW:
      {
        const char *pattern = NULL;

        for (guint i = 0; i < warden_decision_get_n_parts (decision); i++)
          if (warden_decision_get_part (decision, i)->pattern && pattern == NULL)
            pattern = warden_decision_get_part (decision, i)->pattern;
        set_str (&r->decision, "auto-allowed");
        set_str (&r->pattern, pattern);
        set_str (&r->reason, warden_decision_get_reason (decision));
        ensure_sandbox_and_run (call);
        return;
      }

    case WARDEN_VERDICT_DENY:
      {
        g_autofree char *msg = g_strdup_printf ("Command denied by the user's profile: %s",
                                                warden_decision_get_reason (decision));

        for (guint i = 0; i < warden_decision_get_n_parts (decision); i++)
          if (warden_decision_get_part (decision, i)->verdict == WARDEN_VERDICT_DENY)
            {
              set_str (&r->pattern, warden_decision_get_part (decision, i)->pattern);
              break;
            }
        set_str (&r->decision, "denied");
        set_str (&r->reason, warden_decision_get_reason (decision));
        call->record = NULL;
        exec_call_free (call);
        tool_done (self, r, "denied", msg, TRUE);
        return;
      }

    case WARDEN_VERDICT_ASK:
    default:
      {
        g_autoptr(WardenApproval) approval = warden_approval_new (self->info->id, r->tool_use_id,
                                                                  WARDEN_APPROVAL_COMMAND, "exec",
                                                                  command);
        const char *part = NULL;

        for (guint i = 0; i < warden_decision_get_n_parts (decision); i++)
          if (warden_decision_get_part (decision, i)->verdict == WARDEN_VERDICT_ASK)
            {
              part = warden_decision_get_part (decision, i)->text;
              break;
            }
        warden_approval_set_details (approval, call->cwd ? call->cwd : workspace_inside (self),
                                     self->config.sandbox, warden_decision_get_reason (decision),
                                     part, warden_decision_get_suggestions (decision), NULL,
                                     (const char * const *) call->env);
        set_str (&r->reason, warden_decision_get_reason (decision));
        call->record = NULL;
        exec_call_free (call);
        wait_for_user (self, r, approval);
        return;
      }
    }
}

/* file tools ---------------------------------------------------------------*/

static char *
number_lines (const char *text,
              guint       first)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  GString *out = g_string_new (NULL);
  guint n = g_strv_length (lines);

  /* A final newline does not make a line. */
  if (n > 0 && lines[n - 1][0] == '\0')
    n--;
  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "%6u\t%s\n", first + i, lines[i]);
  if (out->len == 0)
    g_string_append (out, "(empty)\n");
  return g_string_free (out, FALSE);
}

/* The arguments each file tool needs; FALSE with a message for the model. */
static gboolean
file_args_valid (const char  *name,
                 JsonObject  *input,
                 GError     **error)
{
  const char *message = NULL;

  if (strcmp (name, "read") == 0 && get_string (input, "path") == NULL)
    message = "read needs a \"path\"";
  else if (strcmp (name, "write") == 0 &&
           (get_string (input, "path") == NULL || get_string (input, "content") == NULL))
    message = "write needs \"path\" and \"content\"";
  else if (strcmp (name, "edit") == 0 &&
           (get_string (input, "path") == NULL || get_string (input, "old_string") == NULL ||
            get_string (input, "new_string") == NULL))
    message = "edit needs \"path\", \"old_string\" and \"new_string\"";
  else if ((strcmp (name, "glob") == 0 || strcmp (name, "grep") == 0) &&
           get_string (input, "pattern") == NULL)
    message = strcmp (name, "glob") == 0 ? "glob needs a \"pattern\"" : "grep needs a \"pattern\"";

  if (message == NULL)
    return TRUE;
  g_set_error_literal (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_INVALID, message);
  return FALSE;
}

/* Runs a file tool confined to the workspace, or, for a read, write or edit
 * the user approved, on exactly the @target they were shown. OUTSIDE and
 * PROTECTED errors come back for the caller to ask. */
static char *
run_file_tool (WardenAgent                  *self,
               const char                   *name,
               JsonObject                   *input,
               const WardenWorkspaceTarget  *target,
               GCancellable                 *cancellable,
               GError                      **error)
{
  const char *path = get_string (input, "path");
  const char *shown = target != NULL ? target->path : path;

  if (!file_args_valid (name, input, error))
    return NULL;

  if (strcmp (name, "read") == 0)
    {
      guint offset = (guint) MAX (get_int (input, "offset", 1), 1);
      guint limit = (guint) MAX (get_int (input, "limit", 0), 0);
      g_autofree char *text = NULL;

      text = target != NULL
             ? warden_workspace_read_target (self->workspace, target, offset - 1, limit, error)
             : warden_workspace_read (self->workspace, path, offset - 1, limit, error);
      return text ? number_lines (text, offset) : NULL;
    }

  if (strcmp (name, "write") == 0)
    {
      const char *content = get_string (input, "content");

      if (target != NULL
          ? !warden_workspace_write_target (self->workspace, target, content, strlen (content),
                                            error)
          : !warden_workspace_write (self->workspace, path, content, strlen (content), error))
        return NULL;
      return g_strdup_printf ("Wrote %zu bytes to %s", strlen (content), shown);
    }

  if (strcmp (name, "edit") == 0)
    {
      const char *old_text = get_string (input, "old_string");
      const char *new_text = get_string (input, "new_string");
      JsonNode *all = json_object_get_member (input, "replace_all");
      gboolean replace_all = all && JSON_NODE_HOLDS_VALUE (all) && json_node_get_boolean (all);
      guint n;

      n = target != NULL
          ? warden_workspace_edit_target (self->workspace, target, old_text, new_text,
                                          replace_all, error)
          : warden_workspace_edit (self->workspace, path, old_text, new_text, replace_all, error);
      return n ? g_strdup_printf ("Replaced %u occurrence%s in %s", n, n == 1 ? "" : "s", shown)
               : NULL;
    }

  if (strcmp (name, "glob") == 0)
    {
      g_auto(GStrv) files = NULL;

      files = warden_workspace_glob (self->workspace, get_string (input, "pattern"),
                                     get_string (input, "cwd"), 0, cancellable, error);
      if (files == NULL)
        return NULL;
      return files[0] ? g_strjoinv ("\n", files) : g_strdup ("No files match.");
    }

  if (strcmp (name, "grep") == 0)
    {
      g_autoptr(GPtrArray) matches = NULL;
      GString *out;

      matches = warden_workspace_grep (self->workspace, get_string (input, "pattern"), NULL,
                                       get_string (input, "include"),
                                       (guint) MAX (get_int (input, "max_results", 0), 0),
                                       (guint) MAX (get_int (input, "context_lines", 0), 0),
                                       FALSE, cancellable, error);
      if (matches == NULL)
        return NULL;
      out = g_string_new (NULL);
      for (guint i = 0; i < matches->len; i++)
        {
          WardenGrepMatch *m = g_ptr_array_index (matches, i);

          for (guint k = 0; m->before && m->before[k]; k++)
            g_string_append_printf (out, "%s-%u- %s\n", m->path,
                                    m->line_number - g_strv_length (m->before) + k, m->before[k]);
          g_string_append_printf (out, "%s:%u: %s\n", m->path, m->line_number, m->line);
          for (guint k = 0; m->after && m->after[k]; k++)
            g_string_append_printf (out, "%s-%u- %s\n", m->path, m->line_number + 1 + k,
                                    m->after[k]);
        }
      if (out->len == 0)
        g_string_append (out, "No matches.");
      return g_string_free (out, FALSE);
    }

  g_set_error (error, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_FAILED, "unknown tool %s", name);
  return NULL;
}

/* File tools run in a thread: a grep over a big tree must not freeze a window. */
typedef struct
{
  WardenAgent           *self;
  WardenToolCallRecord  *record;
  char                  *name;
  JsonNode              *input;
  /* Before the thread: the target the user approved, if any. After it, with
   * @ask: the target to ask about, the file the path leads to now. */
  WardenWorkspaceTarget *target;
  /* Before the thread: ask whatever the path (the profile, the host
   * backend). After it, with @ask: why it asks, as the prompt says it. */
  char                  *reason;
  gboolean               again;   /* ask whatever the path: it waited, or was approved, when
                                     Warden stopped */
  gboolean               ask;
} FileCall;

static void
file_call_free (FileCall *call)
{
  g_object_unref (call->self);
  warden_tool_call_record_free (call->record);
  g_free (call->name);
  json_node_unref (call->input);
  warden_workspace_target_free (call->target);
  g_free (call->reason);
  g_free (call);
}

static WardenWorkspaceAccess
access_for (const char *name)
{
  return strcmp (name, "write") == 0 ? WARDEN_WORKSPACE_ACCESS_WRITE
         : strcmp (name, "edit") == 0 ? WARDEN_WORKSPACE_ACCESS_EDIT
         : WARDEN_WORKSPACE_ACCESS_READ;
}

/* Why a prompt asks, and how the path the model gave led to its target:
 * named here too, as a view may show the model's path beside the reason. */
static char *
ask_reason (const char                  *why,
            const char                  *path,
            const WardenWorkspaceTarget *target)
{
  if (target->through_link)
    return g_strdup_printf ("%s; the agent asked for “%s”, which leads through a symbolic link "
                            "to “%s”", why, path, target->path);
  if (strcmp (path, target->path) != 0)
    return g_strdup_printf ("%s; the agent asked for “%s”, which is “%s”", why, path,
                            target->path);
  return g_strdup (why);
}

/* Why a file asks, from the refusal (@is_protected) or from where it is. */
static const char *
target_reason (WardenAgent                 *self,
               const WardenWorkspaceTarget *target,
               gboolean                     is_protected,
               gboolean                     writes)
{
  gsize len = strlen (self->config.workspace);

  if (!is_protected && writes && target->inside &&
      strncmp (target->path, self->config.workspace, len) == 0 && target->path[len] == '/')
    is_protected = warden_path_is_protected (target->path + len + 1);
  if (is_protected)
    return "it is a protected path: writing it can make git, a shell or an editor run "
           "something on this computer";
  if (!target->inside)
    return "it is outside the workspace";
  return "it waited for an answer when Warden stopped";
}

static void
file_tool_thread (GTask        *task,
                  gpointer      source,
                  gpointer      data,
                  GCancellable *cancellable)
{
  FileCall *call = data;
  JsonObject *input = json_node_get_object (call->input);
  const char *path = get_string (input, "path");
  g_autoptr(GError) why = NULL;
  GError *error = NULL;
  char *result = NULL;

  if (g_cancellable_set_error_if_cancelled (cancellable, &error))
    {
      g_task_return_error (task, error);
      return;
    }

  if (call->target != NULL || (call->reason == NULL && !call->again))
    result = run_file_tool (call->self, call->name, input, call->target, cancellable, &error);
  else
    file_args_valid (call->name, input, &error);

  if (call->target == NULL &&
      ((call->reason != NULL && error == NULL) || (call->again && error == NULL) ||
       g_error_matches (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_OUTSIDE) ||
       g_error_matches (error, WARDEN_WORKSPACE_ERROR, WARDEN_WORKSPACE_ERROR_PROTECTED)))
    {
      const char *because = call->reason;

      /* The user is asked about the file the path leads to now, which is
       * what an approval opens; what could not be approved (a device, a
       * missing file) is the model's error at once. */
      why = g_steal_pointer (&error);
      call->target = warden_workspace_resolve (call->self->workspace, path,
                                               access_for (call->name), &error);
      if (call->target != NULL)
        {
          g_autofree char *reason = NULL;

          if (because == NULL)
            because = target_reason (call->self, call->target,
                                     g_error_matches (why, WARDEN_WORKSPACE_ERROR,
                                                      WARDEN_WORKSPACE_ERROR_PROTECTED),
                                     access_for (call->name) != WARDEN_WORKSPACE_ACCESS_READ);
          reason = ask_reason (because, path, call->target);
          g_free (call->reason);
          call->reason = g_steal_pointer (&reason);
          call->ask = TRUE;
          g_task_return_pointer (task, NULL, NULL);
          return;
        }
    }

  if (result != NULL)
    g_task_return_pointer (task, result, g_free);
  else
    g_task_return_error (task, error);
}

static void
file_tool_done_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  FileCall *call = g_task_get_task_data (G_TASK (result));
  WardenAgent *self = WARDEN_AGENT (object);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = g_task_propagate_pointer (G_TASK (result), &error);
  WardenToolCallRecord *r = g_steal_pointer (&call->record);

  if (self->run == NULL)
    {
      warden_tool_call_record_free (r);
      return;
    }
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      /* Stop: the call stays open, and is reported as stopped later. */
      warden_tool_call_record_free (r);
      run_return (self, 0, g_steal_pointer (&error));
      return;
    }
  if (error == NULL && text == NULL && call->ask)
    {
      g_autoptr(WardenApproval) approval =
        warden_approval_new (self->info->id, r->tool_use_id, WARDEN_APPROVAL_PATH, call->name,
                             call->target->path);

      warden_approval_set_details (approval, NULL, self->config.sandbox, call->reason, NULL,
                                   NULL, NULL, NULL);
      set_str (&r->reason, call->reason);
      /* In memory only: the database is not trusted to say which file an
       * approval opens (a resumed session looks the path up and asks again). */
      g_clear_pointer (&self->asked_target, warden_workspace_target_free);
      self->asked_target = g_steal_pointer (&call->target);
      set_str (&self->asked_id, r->tool_use_id);
      wait_for_user (self, r, approval);
      return;
    }
  if (text == NULL)
    {
      g_autofree char *msg = g_strdup_printf ("Error: %s", error->message);

      tool_done (self, r, "finished", msg, TRUE);
      return;
    }
  if (r->decision == NULL)
    set_str (&r->decision, call->target != NULL ? "approved" : "none");
  tool_done (self, r, "finished", text, FALSE);
}

/* @waiting: the call waited for the user when the session was left; it
 * asks again whatever the rules say now, about where the path leads now. */
static void
start_file_tool (WardenAgent          *self,
                 WardenToolCallRecord *r,
                 const char           *name,
                 JsonObject           *input,
                 gboolean              waiting)
{
  g_autoptr(GTask) task = NULL;
  gboolean approved = g_strcmp0 (r->state, "approved") == 0;
  gboolean writes = strcmp (name, "write") == 0 || strcmp (name, "edit") == 0;
  gboolean opens = writes || strcmp (name, "read") == 0;
  FileCall *call;

  call = g_new0 (FileCall, 1);
  call->self = g_object_ref (self);
  call->name = g_strdup (name);
  call->input = json_node_init_object (json_node_alloc (), input);

  if (approved && opens)
    {
      if (self->asked_target != NULL && g_strcmp0 (self->asked_id, r->tool_use_id) == 0)
        call->target = g_steal_pointer (&self->asked_target);
      else
        call->again = TRUE;
      g_clear_pointer (&self->asked_id, g_free);
    }
  else if (writes && self->file_write == WARDEN_FILE_WRITE_NEVER)
    {
      g_autofree char *msg = NULL;

      msg = g_strdup_printf ("Error: the user's profile does not let the write and edit tools "
                             "change files (its files.write rule is “never”), so “%s” was not "
                             "changed. Tell the user what you would change instead.",
                             get_string (input, "path") ? get_string (input, "path") : "");
      set_str (&r->decision, "denied");
      set_str (&r->reason, "the profile's files.write rule is “never”");
      file_call_free (call);
      tool_done (self, r, "denied", msg, TRUE);
      return;
    }
  else if (waiting)
    call->again = TRUE;
  else if (writes && self->file_write == WARDEN_FILE_WRITE_ASK)
    call->reason = g_strdup ("the profile asks before every write or edit "
                             "(its files.write rule is “ask”)");
  /* On the host, writing is as dangerous as a command: ask, as the seed does. */
  else if (writes && g_strcmp0 (self->config.sandbox, "host") == 0 &&
           !self->config.host_writes_free)
    call->reason = g_strdup ("the host backend does not confine writes");

  g_signal_emit (self, signals[TOOL_CALL], 0, r->tool_use_id, name, r->input_json);
  call->record = r;

  /* Stopped already: no thread to start (the call is reported as stopped). */
  {
    GError *error = NULL;

    if (g_cancellable_set_error_if_cancelled (g_task_get_cancellable (self->run), &error))
      {
        file_call_free (call);
        run_return (self, 0, error);
        return;
      }
  }

  task = g_task_new (self, g_task_get_cancellable (self->run), file_tool_done_cb, NULL);
  g_task_set_source_tag (task, start_file_tool);
  g_task_set_task_data (task, call, (GDestroyNotify) file_call_free);
  /* Stop ends a read or a search at once (the thread stops at its next
   * check); a write or edit that began is reported as it went. */
  if (writes)
    g_task_set_check_cancellable (task, FALSE);
  else
    g_task_set_return_on_cancel (task, TRUE);
  g_task_run_in_thread (task, file_tool_thread);
}

/* the loop over the tool calls of one assistant message ------------------- */

/* What the model reads, so it changes course. */
static void
rejection_text (WardenToolCallRecord *r,
                const char           *subject,
                char                **out)
{
  const char *what = g_strcmp0 (r->name, "exec") == 0 ? "Command" : "File access";

  if (r->feedback && *r->feedback)
    *out = g_strdup_printf ("%s rejected by user: %s\nUser feedback: %s", what, subject,
                            r->feedback);
  else
    *out = g_strdup_printf ("%s rejected by user: %s", what, subject);
}

static void
process_tools (WardenAgent *self)
{
  const WardenLlmBlock *block;
  g_autoptr(WardenToolCallRecord) r = NULL;
  JsonObject *input;
  const char *name;

  if (self->run == NULL)
    return;

  block = current_tool (self);
  if (block == NULL)
    {
      /* All answered: their results go to the model as one message. */
      g_autoptr(WardenLlmMessage) results = g_steal_pointer (&self->results);
      g_autoptr(GError) error = NULL;

      if (results != NULL && !append_message (self, results, 0, 0, &error))
        {
          run_return (self, 0, g_steal_pointer (&error));
          return;
        }
      request_model (self);
      return;
    }

  r = record_for (self, block);
  name = block->tool_name;
  input = block->tool_input && JSON_NODE_HOLDS_OBJECT (block->tool_input)
          ? json_node_get_object (block->tool_input) : NULL;

  /* Already settled in an earlier run of this session. */
  if (g_strcmp0 (r->state, "finished") == 0 || g_strcmp0 (r->state, "denied") == 0 ||
      g_strcmp0 (r->state, "rejected") == 0 || g_strcmp0 (r->state, "interrupted") == 0)
    {
      gboolean is_error = g_strcmp0 (r->state, "finished") != 0;
      g_autofree char *result = g_strdup (r->result_json ? r->result_json : "");
      g_autofree char *state = g_strdup (r->state);

      tool_done (self, g_steal_pointer (&r), state, result, is_error);
      return;
    }
  if (g_strcmp0 (r->state, "running") == 0)
    {
      /* Started, never finished: the process died around it. Not again. */
      tool_done (self, g_steal_pointer (&r), "interrupted",
                 "Error: this command was started but Warden stopped before it finished; "
                 "it was not run again. Check its effects before repeating it.", TRUE);
      return;
    }
  /* A file call left waiting: the path is looked up again, and the prompt
   * names the file it leads to now (nothing of it is kept on disk). */
  if (g_strcmp0 (r->state, "pending") == 0 && input != NULL &&
      (strcmp (name, "read") == 0 || strcmp (name, "write") == 0 || strcmp (name, "edit") == 0))
    {
      start_file_tool (self, g_steal_pointer (&r), name, input, TRUE);
      return;
    }
  if (g_strcmp0 (r->state, "pending") == 0)
    {
      g_autoptr(WardenApproval) approval = NULL;
      WardenApprovalKind kind = strcmp (name, "exec") == 0 ? WARDEN_APPROVAL_COMMAND
                                : strcmp (name, "ask_user") == 0 ? WARDEN_APPROVAL_QUESTION
                                : WARDEN_APPROVAL_PATH;
      const char *subject = input ? get_string (input, kind == WARDEN_APPROVAL_COMMAND ? "command"
                                                      : kind == WARDEN_APPROVAL_QUESTION
                                                      ? "question" : "path") : NULL;

      /* Still waiting, as it was when the session was left. */
      approval = warden_approval_new (self->info->id, r->tool_use_id, kind, name, subject);
      warden_approval_set_details (approval, NULL, self->config.sandbox, r->reason, NULL, NULL,
                                   NULL, NULL);
      if (kind == WARDEN_APPROVAL_COMMAND && subject != NULL)
        {
          g_autoptr(WardenDecision) d = warden_policy_check (self->policy, subject, -1, NULL);

          warden_approval_set_details (approval, workspace_inside (self), self->config.sandbox,
                                       r->reason, NULL, warden_decision_get_suggestions (d),
                                       NULL, NULL);
        }
      g_set_object (&self->pending, approval);
      g_signal_emit (self, signals[APPROVAL], 0, approval);
      run_return (self, WARDEN_AGENT_WAITING, NULL);
      return;
    }
  if (g_strcmp0 (r->state, "rejected_unreported") == 0)
    {
      g_autofree char *text = NULL;

      const char *subject = input ? get_string (input, strcmp (name, "exec") == 0 ? "command"
                                                                                 : "path") : NULL;

      rejection_text (r, subject ? subject : "", &text);
      tool_done (self, g_steal_pointer (&r), "rejected", text, TRUE);
      return;
    }

  if (input == NULL)
    {
      tool_done (self, g_steal_pointer (&r), "finished",
                 "Error: the tool's arguments must be a JSON object", TRUE);
      return;
    }

  if (strcmp (name, "exec") == 0)
    start_exec (self, g_steal_pointer (&r), input);
  else if (strcmp (name, "read") == 0 || strcmp (name, "write") == 0 ||
           strcmp (name, "edit") == 0 || strcmp (name, "glob") == 0 ||
           strcmp (name, "grep") == 0)
    start_file_tool (self, g_steal_pointer (&r), name, input, FALSE);
  else if (strcmp (name, "ask_user") == 0)
    {
      const char *question = get_string (input, "question");
      JsonNode *choices_node = json_object_get_member (input, "choices");
      g_autoptr(GStrvBuilder) choices = g_strv_builder_new ();
      g_auto(GStrv) strv = NULL;
      g_autoptr(WardenApproval) approval = NULL;

      if (g_strcmp0 (r->state, "answered") == 0)
        {
          g_autofree char *answer = g_strdup (r->feedback ? r->feedback : "");

          set_str (&r->decision, "answered");
          tool_done (self, g_steal_pointer (&r), "finished", answer, FALSE);
          return;
        }
      if (question == NULL)
        {
          tool_done (self, g_steal_pointer (&r), "finished",
                     "Error: ask_user needs a \"question\"", TRUE);
          return;
        }
      if (choices_node && JSON_NODE_HOLDS_ARRAY (choices_node))
        {
          JsonArray *a = json_node_get_array (choices_node);

          for (guint i = 0; i < json_array_get_length (a); i++)
            if (json_array_get_string_element (a, i))
              g_strv_builder_add (choices, json_array_get_string_element (a, i));
        }
      strv = g_strv_builder_end (choices);
      approval = warden_approval_new (self->info->id, r->tool_use_id, WARDEN_APPROVAL_QUESTION,
                                      "ask_user", question);
      warden_approval_set_details (approval, NULL, NULL, NULL, NULL, NULL,
                                   (const char * const *) strv, NULL);
      wait_for_user (self, g_steal_pointer (&r), approval);
      g_clear_pointer (&r, warden_tool_call_record_free);
    }
  else
    {
      g_autofree char *msg = g_strdup_printf ("Error: there is no tool named \"%s\"; the tools "
                                              "are exec, read, write, edit, glob, grep and "
                                              "ask_user", name);

      tool_done (self, g_steal_pointer (&r), "finished", msg, TRUE);
    }
}

/* ------------------------------------------------------------------------ */
/* Public calls */

static void
continue_loop (WardenAgent *self)
{
  WardenLlmMessage *last = last_message (self);

  if (last != NULL && warden_llm_message_get_role (last) == WARDEN_LLM_ROLE_ASSISTANT &&
      warden_llm_message_has_tool_use (last))
    {
      self->tool_index = 0;
      g_clear_pointer (&self->results, warden_llm_message_unref);
      process_tools (self);
    }
  else if (last != NULL && warden_llm_message_get_role (last) == WARDEN_LLM_ROLE_USER)
    request_model (self);
  else
    run_return (self, WARDEN_AGENT_FINISHED, NULL);
}

/* After a stop, the model's last tool calls may have no results: the API
 * wants one for each, so they get "stopped by the user" before new words. */
static gboolean
close_open_tool_calls (WardenAgent  *self,
                       GError      **error)
{
  WardenLlmMessage *last = last_message (self);
  g_autoptr(WardenLlmMessage) results = NULL;

  if (last == NULL || warden_llm_message_get_role (last) != WARDEN_LLM_ROLE_ASSISTANT ||
      !warden_llm_message_has_tool_use (last))
    return TRUE;

  results = warden_llm_message_new (WARDEN_LLM_ROLE_USER);
  for (guint b = 0; b < warden_llm_message_get_n_blocks (last); b++)
    {
      const WardenLlmBlock *block = warden_llm_message_get_block (last, b);
      g_autoptr(WardenToolCallRecord) r = NULL;
      gboolean settled;

      if (block->type != WARDEN_LLM_BLOCK_TOOL_USE)
        continue;
      r = record_for (self, block);
      settled = g_strcmp0 (r->state, "finished") == 0 || g_strcmp0 (r->state, "denied") == 0 ||
                g_strcmp0 (r->state, "rejected") == 0 || g_strcmp0 (r->state, "interrupted") == 0;
      if (g_strcmp0 (r->state, "rejected_unreported") == 0)
        {
          g_autofree char *text = NULL;
          JsonObject *input = json_node_get_object (block->tool_input);
          const char *subject = get_string (input, strcmp (block->tool_name, "exec") == 0
                                                   ? "command" : "path");

          rejection_text (r, subject ? subject : "", &text);
          set_str (&r->result_json, text);
          set_str (&r->state, "rejected");
          save_record (self, r);
        }
      else if (!settled)
        {
          set_str (&r->result_json, g_strcmp0 (r->state, "running") == 0
                   ? "Error: stopped by the user while it ran"
                   : "Error: stopped by the user before it ran");
          set_str (&r->state, "interrupted");
          save_record (self, r);
        }
      warden_llm_message_add_tool_result (results, block->tool_use_id,
                                          r->result_json ? r->result_json : "",
                                          g_strcmp0 (r->state, "finished") != 0);
    }
  return append_message (self, results, 0, 0, error);
}

void
warden_agent_run_async (WardenAgent         *self,
                        const char          *task,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  g_autoptr(GTask) gtask = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GError) error = NULL;

  g_task_set_source_tag (gtask, warden_agent_run_async);
  if (self->run != NULL)
    {
      g_task_return_new_error (gtask, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_BUSY,
                               _("The agent is already running"));
      return;
    }
  self->run = g_steal_pointer (&gtask);

  if (task != NULL)
    {
      g_autoptr(WardenLlmMessage) message = warden_llm_message_new (WARDEN_LLM_ROLE_USER);

      if (self->pending != NULL)
        {
          run_return (self, 0, g_error_new (WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_BUSY,
                                            _("An approval is waiting: answer it first")));
          return;
        }
      if (self->info->title == NULL)
        {
          self->info->title = g_strndup (task, 80);
          g_strdelimit (self->info->title, "\n\r\t", ' ');
        }
      if (!close_open_tool_calls (self, &error))
        {
          run_return (self, 0, g_steal_pointer (&error));
          return;
        }
      warden_llm_message_add_text (message, task);
      if (!append_message (self, message, 0, 0, &error))
        {
          run_return (self, 0, g_steal_pointer (&error));
          return;
        }
      self->steps = 0;
    }
  /* Running from now on, approved commands and file tools included. */
  save_state (self, "running");
  continue_loop (self);
}

gboolean
warden_agent_run_finish (WardenAgent         *self,
                         GAsyncResult        *result,
                         WardenAgentOutcome  *outcome,
                         GError             **error)
{
  g_autoptr(GError) local = NULL;
  gssize value = g_task_propagate_int (G_TASK (result), &local);

  if (local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  if (outcome)
    *outcome = (WardenAgentOutcome) value;
  return TRUE;
}

/* Adds @pattern to the session's profile; a built-in one is copied to a
 * user profile first, which the session then uses. */
static gboolean
allow_always (WardenAgent  *self,
              const char   *pattern,
              GError      **error)
{
  g_autoptr(WardenProfile) profile = warden_profile_store_lookup (self->profiles,
                                                                  self->config.profile, error);

  if (profile == NULL)
    return FALSE;
  if (warden_profile_get_builtin (profile))
    {
      g_autofree char *id = g_strdup_printf ("%s-custom", warden_profile_get_id (profile));
      g_autoptr(WardenProfile) existing = warden_profile_store_lookup (self->profiles, id, NULL);
      gboolean fresh = existing == NULL;
      g_autoptr(WardenProfile) builtin = g_steal_pointer (&profile);

      profile = fresh ? warden_profile_copy (builtin, id) : g_steal_pointer (&existing);
      if (fresh && warden_profile_get_name (profile))
        {
          g_autofree char *name = g_strdup_printf (_("%s (yours)"),
                                                   warden_profile_get_name (profile));

          warden_profile_set_name (profile, name);
        }
      set_str (&self->config.profile, id);
      set_str (&self->info->profile, id);
    }
  if (!warden_profile_add_allow (profile, pattern, error) ||
      !warden_profile_store_save (self->profiles, profile, error))
    return FALSE;
  return load_policy (self, error);
}

gboolean
warden_agent_resolve (WardenAgent                 *self,
                      const WardenApprovalAnswer  *answer,
                      GError                     **error)
{
  g_autoptr(WardenToolCallRecord) r = NULL;
  WardenApproval *approval = self->pending;

  if (approval == NULL)
    {
      g_set_error (error, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_NO_PENDING,
                   _("Nothing is waiting for an answer"));
      return FALSE;
    }

  r = warden_session_store_get_tool_call (self->store, self->info->id,
                                          warden_approval_get_id (approval), error);
  if (r == NULL)
    return FALSE;

  if (warden_approval_get_kind (approval) == WARDEN_APPROVAL_QUESTION)
    {
      set_str (&r->state, "answered");
      set_str (&r->feedback, answer->answer ? answer->answer : "");
    }
  else if (answer->approved)
    {
      set_str (&r->state, "approved");
      set_str (&r->decision, answer->allow_always ? "approved-always" : "approved");
      if (answer->allow_always && warden_approval_get_kind (approval) == WARDEN_APPROVAL_COMMAND)
        {
          const char *pattern = answer->pattern && *answer->pattern
                                ? answer->pattern : warden_approval_get_suggestions (approval)[0];

          if (pattern == NULL || !allow_always (self, pattern, error))
            {
              if (pattern == NULL)
                g_set_error (error, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_FAILED,
                             _("No pattern to save: give one"));
              return FALSE;
            }
          set_str (&r->pattern, pattern);
        }
    }
  else
    {
      /* Reported to the model when the loop goes on. */
      set_str (&r->state, "rejected_unreported");
      set_str (&r->decision, "rejected");
      set_str (&r->feedback, answer->feedback);
    }

  r->answered = g_get_real_time () / 1000;
  set_str (&r->answered_via, answer->via);

  /* Durable before anything runs. */
  if (!warden_session_store_save_tool_call (self->store, r, error))
    return FALSE;
  g_clear_object (&self->pending);
  return warden_session_store_save_session (self->store, self->info, error);
}

static void
close_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;

  if (!warden_sandbox_destroy_finish (WARDEN_SANDBOX (object), result, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

void
warden_agent_close_async (WardenAgent         *self,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(WardenSandbox) sandbox = g_steal_pointer (&self->sandbox);

  g_task_set_source_tag (task, warden_agent_close_async);
  g_clear_handle_id (&self->idle_id, g_source_remove);
  if (sandbox == NULL || !self->sandbox_ready)
    {
      self->sandbox_ready = FALSE;
      g_task_return_boolean (task, TRUE);
      return;
    }
  self->sandbox_ready = FALSE;
  emit_sandbox_state (self, "stopped", 0, NULL);
  warden_sandbox_destroy_async (sandbox, cancellable, close_cb, g_steal_pointer (&task));
}

gboolean
warden_agent_close_finish (WardenAgent   *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}
