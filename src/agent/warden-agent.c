/* warden-agent.c: the agent loop that drives one stored session
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-agent"

#include <glib/gi18n.h>

#include "warden-agent-private.h"
#include "warden-restore.h"

#include <string.h>

#include "common/warden-json.h"
#include "common/warden-sandbox-paths.h"
#include "llm/warden-llm-prices.h"
#include "workspace/warden-workspace-check.h"

#define DEFAULT_MAX_STEPS 30
#define DEFAULT_IDLE      3600

G_DEFINE_FINAL_TYPE (WardenAgent, warden_agent, G_TYPE_OBJECT)

G_DEFINE_QUARK (warden-agent-error-quark, warden_agent_error)

guint _warden_agent_signals[WARDEN_AGENT_N_SIGNALS];

enum
{
  PROP_0,
  PROP_SANDBOX_STATE,
  PROP_SANDBOX_FRACTION,
  PROP_SANDBOX_MESSAGE,
  PROP_INSTRUCTIONS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void process_tools (WardenAgent *self);
static void compacted_cb  (GObject      *object,
                           GAsyncResult *result,
                           gpointer      user_data);

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

char *
_warden_agent_system_prompt (WardenAgent *self)
{
  WardenSandboxKind kind = self->config.sandbox;
  g_autofree char *prompt = g_strdup_printf (system_prompt_template,
                                             _warden_agent_workspace_inside (self),
                                             kind == WARDEN_SANDBOX_KIND_HOST
                                             ? "host (unconfined)"
                                             : warden_sandbox_kind_to_string (kind));
  g_autofree char *instructions = NULL;

  if (self->instructions == NULL)
    return g_steal_pointer (&prompt);
  /* After Warden's own words, so they come first and frame the project's. */
  instructions = warden_instructions_to_prompt (self->instructions);
  return g_strconcat (prompt, "\n\n", instructions, NULL);
}

/* ------------------------------------------------------------------------ */
/* Setup */

static void
config_clear (WardenAgentConfig *config)
{
  g_free (config->workspace);
  g_free (config->profile);
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
  if (self->waiting_id)
    g_clear_signal_handler (&self->waiting_id, self->provider);
  g_clear_handle_id (&self->idle_id, g_source_remove);
  _warden_agent_clear_command (self);
  if (self->store != NULL && self->info != NULL && self->info->id != NULL && self->leased)
    warden_session_store_release (self->store, self->info->id);
  self->leased = FALSE;
  if (self->sandbox != NULL && (self->sandbox_ready || self->sandbox_given_up))
    warden_sandbox_destroy_async (self->sandbox, NULL, NULL, NULL);
  g_clear_object (&self->sandbox);
  g_clear_object (&self->hosts);
  g_clear_object (&self->profile);
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

  g_clear_pointer (&self->info, warden_session_record_free);
  config_clear (&self->config);
  g_clear_pointer (&self->messages, g_ptr_array_unref);
  g_clear_pointer (&self->tools, g_ptr_array_unref);
  g_clear_pointer (&self->policy, warden_policy_unref);
  g_clear_pointer (&self->results, warden_llm_message_unref);
  g_clear_pointer (&self->asked_target, warden_workspace_target_free);
  g_clear_pointer (&self->asked_id, g_free);
  g_clear_object (&self->checkpoints);
  g_clear_pointer (&self->exec_checkpoint, g_free);
  g_clear_pointer (&self->sandbox_message, g_free);
  g_clear_pointer (&self->sandbox_lost, g_free);
  g_clear_pointer (&self->fell_back, g_free);
  g_clear_pointer (&self->gone_retried, g_free);
  g_clear_pointer (&self->instructions, warden_instructions_free);
  g_clear_pointer (&self->instructions_problem, g_free);
  g_clear_pointer (&self->summary, g_free);
  G_OBJECT_CLASS (warden_agent_parent_class)->finalize (object);
}

static void
warden_agent_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  WardenAgent *self = WARDEN_AGENT (object);

  switch (prop_id)
    {
    case PROP_SANDBOX_STATE:
      g_value_set_enum (value, self->sandbox_state);
      break;
    case PROP_SANDBOX_FRACTION:
      g_value_set_double (value, self->sandbox_fraction);
      break;
    case PROP_SANDBOX_MESSAGE:
      g_value_set_string (value, self->sandbox_message);
      break;
    case PROP_INSTRUCTIONS:
      g_value_set_boxed (value, self->instructions);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
warden_agent_class_init (WardenAgentClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = warden_agent_dispose;
  object_class->finalize = warden_agent_finalize;
  object_class->get_property = warden_agent_get_property;

  properties[PROP_SANDBOX_STATE] =
    g_param_spec_enum ("sandbox-state", NULL, NULL, WARDEN_TYPE_SANDBOX_STATE,
                       WARDEN_SANDBOX_STATE_NONE,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* While preparing: how far (the image pull), or -1 when not known. */
  properties[PROP_SANDBOX_FRACTION] =
    g_param_spec_double ("sandbox-fraction", NULL, NULL, -1, 1, 0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Preparing: what it does; ready: what it cannot hold to; failed: why. */
  properties[PROP_SANDBOX_MESSAGE] =
    g_param_spec_string ("sandbox-message", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The project's instructions as the turn read them (NULL: none); notified
   * when they, or why they were not read, change. */
  properties[PROP_INSTRUCTIONS] =
    g_param_spec_boxed ("instructions", NULL, NULL, WARDEN_TYPE_INSTRUCTIONS,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  AGENT_SIGNAL (TEXT_DELTA) =
    g_signal_new ("text-delta", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /* A tool call starts: it runs now (the view binds to its properties). */
  AGENT_SIGNAL (TOOL_CALL) =
    g_signal_new ("tool-call", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, WARDEN_TYPE_TOOL_CALL);
  /* A tool call is settled: its result went to the model. */
  AGENT_SIGNAL (TOOL_RESULT) =
    g_signal_new ("tool-result", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, WARDEN_TYPE_TOOL_CALL);
  AGENT_SIGNAL (APPROVAL) =
    g_signal_new ("approval", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, WARDEN_TYPE_APPROVAL);
  AGENT_SIGNAL (OUTPUT) =
    g_signal_new ("output", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_STRING);
  /* The request is sent again: text streamed so far comes again too. */
  AGENT_SIGNAL (RETRYING) =
    g_signal_new ("retrying", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3, G_TYPE_UINT, G_TYPE_UINT, G_TYPE_STRING);
  /* The model began a tool call: a view can show it before its input is in. */
  AGENT_SIGNAL (TOOL_USE_START) =
    g_signal_new ("tool-use-start", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  /* The model has sent nothing for this many seconds (0: it goes on). */
  AGENT_SIGNAL (WAITING) =
    g_signal_new ("waiting", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_UINT);
  /* The approval of a program a command started cannot be answered any
   * more: the command ended, or was stopped, and the program with it. */
  AGENT_SIGNAL (APPROVAL_WITHDRAWN) =
    g_signal_new ("approval-withdrawn", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 0);
  /* Always allow moved the session from a built-in profile (or a file) to
   * the user's copy of it: new sessions should start there too. */
  AGENT_SIGNAL (PROFILE_COPIED) =
    g_signal_new ("profile-copied", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING);
  /* A request's usage was added to the turn's and the session's. */
  AGENT_SIGNAL (USAGE) =
    g_signal_new ("usage", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 0);
  /* Older messages were summarised: the model is sent the summary instead. */
  AGENT_SIGNAL (COMPACTED) =
    g_signal_new ("compacted", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 5, G_TYPE_UINT, G_TYPE_INT64, G_TYPE_INT64,
                  WARDEN_TYPE_COMPACT_REASON, G_TYPE_STRING);
}

/* Notified together: a view that hears of one reads all three as they are. */
void
_warden_agent_set_sandbox_state (WardenAgent        *self,
                                 WardenSandboxState  state,
                                 double              fraction,
                                 const char         *message)
{
  g_object_freeze_notify (G_OBJECT (self));
  if (g_strcmp0 (self->sandbox_message, message) != 0)
    {
      g_free (self->sandbox_message);
      self->sandbox_message = g_strdup (message);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SANDBOX_MESSAGE]);
    }
  if (self->sandbox_fraction != fraction)
    {
      self->sandbox_fraction = fraction;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SANDBOX_FRACTION]);
    }
  if (self->sandbox_state != state)
    {
      self->sandbox_state = state;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SANDBOX_STATE]);
    }
  g_object_thaw_notify (G_OBJECT (self));
}

WardenSandboxKind
warden_agent_get_sandbox_kind (WardenAgent *self)
{
  g_return_val_if_fail (WARDEN_IS_AGENT (self), WARDEN_SANDBOX_KIND_BWRAP);

  return self->config.sandbox;
}

WardenSandboxState
warden_agent_get_sandbox_state (WardenAgent *self)
{
  g_return_val_if_fail (WARDEN_IS_AGENT (self), WARDEN_SANDBOX_STATE_NONE);

  return self->sandbox_state;
}

double
warden_agent_get_sandbox_fraction (WardenAgent *self)
{
  g_return_val_if_fail (WARDEN_IS_AGENT (self), 0);

  return self->sandbox_fraction;
}

const char *
warden_agent_get_sandbox_message (WardenAgent *self)
{
  g_return_val_if_fail (WARDEN_IS_AGENT (self), NULL);

  return self->sandbox_message;
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
  WardenAgent *self = user_data;

  /* A summary's words are not the answer. */
  if (self->summarising)
    return;
  g_signal_emit (user_data, AGENT_SIGNAL (TEXT_DELTA), 0, text);
}

static void
tool_use_start_cb (WardenLlmProvider *provider,
                   const char        *id,
                   const char        *name,
                   gpointer           user_data)
{
  if (WARDEN_AGENT (user_data)->summarising)
    return;
  g_signal_emit (user_data, AGENT_SIGNAL (TOOL_USE_START), 0, id, name);
}

static void
waiting_cb (WardenLlmProvider *provider,
            guint              seconds,
            gpointer           user_data)
{
  g_signal_emit (user_data, AGENT_SIGNAL (WAITING), 0, seconds);
}

static void
retrying_cb (WardenLlmProvider *provider,
             guint              attempt,
             guint              delay_ms,
             const char        *reason,
             gpointer           user_data)
{
  /* "retrying" says the answer's text streams again: a summary has none. */
  if (WARDEN_AGENT (user_data)->summarising)
    return;
  g_signal_emit (user_data, AGENT_SIGNAL (RETRYING), 0, attempt, delay_ms, reason);
}

/* The session's profile: an id in the store, or (warden-cli run --profile
 * FILE, a CI job's own) the absolute path of a file, read as it is now and
 * never written by Warden. */
WardenProfile *
_warden_agent_lookup_profile (WardenAgent  *self,
                              GError      **error)
{
  if (g_path_is_absolute (self->config.profile))
    {
      g_autoptr(GFile) file = g_file_new_for_path (self->config.profile);

      return warden_profile_new_from_file (file, error);
    }
  return warden_profile_store_lookup (self->profiles, self->config.profile, error);
}

gboolean
_warden_agent_load_policy (WardenAgent  *self,
             GError      **error)
{
  g_autoptr(WardenProfile) profile = _warden_agent_lookup_profile (self, error);

  if (profile == NULL)
    return FALSE;
  g_clear_pointer (&self->policy, warden_policy_unref);
  self->policy = warden_policy_new_for_profile (profile);
  self->file_write = warden_profile_get_file_write (profile);
  g_set_object (&self->profile, profile);
  /* What runs now is judged by the profile as it is now. */
  if (self->hosts != NULL)
    warden_host_gate_set_profile (self->hosts, profile);
  if (self->command != NULL)
    warden_command_run_set_policy (self->command, self->policy);
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
  if (!_warden_agent_load_policy (self, error))
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
  return _warden_agent_load_policy (self, error);
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
  self->waiting_id = g_signal_connect (provider, "waiting", G_CALLBACK (waiting_cb), self);
  if (self->config.max_steps == 0)
    self->config.max_steps = DEFAULT_MAX_STEPS;
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
                                          _warden_agent_workspace_inside (self), error);
  if (self->workspace == NULL)
    return FALSE;
  /* Known before the first turn: the front ends say what the session uses. */
  _warden_agent_read_instructions (self);
  return _warden_agent_load_policy (self, error);
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
  if (config->sandbox == WARDEN_SANDBOX_KIND_AUTO)
    self->config.sandbox = WARDEN_SANDBOX_KIND_BWRAP;
  self->config.image = g_strdup (config->image);
  if (!setup (self, store, profiles, provider, error))
    return NULL;

  self->info = warden_session_record_new ();
  self->info->workspace = g_strdup (self->config.workspace);
  self->info->profile = g_strdup (self->config.profile);
  self->info->provider = g_strdup (warden_llm_provider_get_name (provider));
  self->info->model = g_strdup (warden_llm_provider_get_model (provider));
  self->info->base_url = g_strdup (warden_llm_provider_get_base_url (provider));
  self->info->sandbox = g_strdup (warden_sandbox_kind_to_string (self->config.sandbox));
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

/* Message @index of the session does not read back: the session cannot go
 * on. The user is told which session, which row and the way out; it is the
 * store's error (the database holds what Warden did not write), not a
 * setup error. */
static void
set_bad_row_error (WardenSessionStore  *store,
                   const char          *session_id,
                   guint                index,
                   const GError        *why,
                   GError             **error)
{
  g_autoptr(GArray) seqs = warden_session_store_list_message_seqs (store, session_id, NULL);
  gint64 seq = seqs != NULL && index < seqs->len ? g_array_index (seqs, gint64, index) : index;

  g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_CORRUPT,
               /* Translators: a session id, a number, a file, and why the row
                * does not read (json-glib's words) */
               _("Session %s cannot be resumed: its message row %lld in %s "
                 "cannot be read (%s). The other sessions are not affected; to start over "
                 "without this database, set it aside with “warden-cli sessions move-aside "
                 "--force” (the old file is kept)"),
               session_id, (long long) seq, warden_session_store_get_path (store), why->message);
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
    {
      /* dispose() gives the lease back by the record's id: there is none. */
      warden_session_store_release (store, session_id);
      self->leased = FALSE;
      return NULL;
    }

  /* The session goes on as it was recorded, but for what the caller changes;
   * the changes are recorded, so the record says what runs it. */
  if (overrides != NULL)
    {
      changed |= override_str (&self->info->profile, overrides->profile);
      if (overrides->sandbox != WARDEN_SANDBOX_KIND_AUTO)
        changed |= override_str (&self->info->sandbox,
                                 warden_sandbox_kind_to_string (overrides->sandbox));
      changed |= override_str (&self->info->image, overrides->image);
      self->config.max_steps = overrides->max_steps;
      self->config.history = overrides->history;
      self->config.network = overrides->network;
      self->config.network_override = overrides->network_override;
      self->config.host_writes_free = overrides->host_writes_free;
      self->config.idle_seconds = overrides->idle_seconds;
      self->config.memory_bytes = overrides->memory_bytes;
      self->config.cpus = overrides->cpus;
      self->config.context_window = overrides->context_window;
    }
  changed |= override_str (&self->info->provider, warden_llm_provider_get_name (provider));
  changed |= override_str (&self->info->model, warden_llm_provider_get_model (provider));
  changed |= override_str (&self->info->base_url, warden_llm_provider_get_base_url (provider));
  /* A profile file in the workspace (a CI job's, from its repository): the
   * session's own commands could have changed it since it was first read.
   * Named again with --profile, reading it is the user's choice. */
  if (self->info->profile != NULL && g_path_is_absolute (self->info->profile) &&
      (overrides == NULL || overrides->profile == NULL) && self->info->workspace != NULL)
    {
      g_autofree char *inside = g_strconcat (self->info->workspace, G_DIR_SEPARATOR_S, NULL);

      if (g_str_has_prefix (self->info->profile, inside))
        {
          g_set_error (error, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_FAILED,
                       _("Session “%s” uses the profile file %s, which is in its workspace: "
                         "its commands could have changed it. Check it, then resume with "
                         "--profile naming it (or another profile)"),
                       session_id, self->info->profile);
          return NULL;
        }
    }
  /* Nobody else holds the lease, so nothing runs it: a "running" left by a
   * process that died mid-step is stopped. */
  if (g_strcmp0 (self->info->state, "running") == 0)
    changed |= override_str (&self->info->state, "stopped");
  if (changed && !warden_session_store_save_session (store, self->info, error))
    return NULL;

  self->config.workspace = g_strdup (self->info->workspace);
  self->config.profile = g_strdup (self->info->profile);
  /* A row without a backend (or one this Warden does not know) is bwrap's,
   * the default. */
  if (!warden_sandbox_kind_from_string (self->info->sandbox, &self->config.sandbox) ||
      self->config.sandbox == WARDEN_SANDBOX_KIND_AUTO)
    self->config.sandbox = WARDEN_SANDBOX_KIND_BWRAP;
  self->config.image = g_strdup (self->info->image);
  if (!setup (self, store, profiles, provider, error))
    return NULL;

  stored = warden_session_store_load_messages (store, session_id, error);
  if (stored == NULL)
    return NULL;
  for (guint i = 0; i < stored->len; i++)
    {
      g_autoptr(GError) local_error = NULL;
      g_autoptr(JsonNode) node = json_from_string (g_ptr_array_index (stored, i), &local_error);
      WardenLlmMessage *message = NULL;

      if (node != NULL)
        message = warden_llm_message_new_from_json (node, &local_error);
      if (message == NULL)
        {
          set_bad_row_error (store, session_id, i, local_error, error);
          return NULL;
        }
      g_ptr_array_add (self->messages, message);
    }
  if (!_warden_agent_load_summary (self, error))
    return NULL;
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
  if (self->pending != NULL)
    return self->pending;
  return self->command != NULL ? warden_command_run_get_pending (self->command) : NULL;
}

guint
warden_agent_get_steps (WardenAgent *self)
{
  return self->steps;
}

char *
warden_agent_dup_engine_description (WardenAgent *self)
{
  g_return_val_if_fail (WARDEN_IS_AGENT (self), NULL);

  if (self->sandbox == NULL || !self->sandbox_ready)
    return NULL;
  return warden_sandbox_dup_engine_description (self->sandbox);
}

gboolean
warden_agent_get_programs_unchecked (WardenAgent *self)
{
  g_return_val_if_fail (WARDEN_IS_AGENT (self), FALSE);

  return self->sandbox != NULL && self->sandbox_ready &&
         warden_profile_get_check_nested (self->profile) &&
         warden_sandbox_get_guard_unavailable (self->sandbox) != NULL;
}

gboolean
warden_agent_get_network_unavailable (WardenAgent *self)
{
  g_autofree char *notice = NULL;

  g_return_val_if_fail (WARDEN_IS_AGENT (self), FALSE);

  if (self->sandbox == NULL || !self->sandbox_ready)
    return FALSE;
  notice = self->hosts ? warden_host_gate_dup_notice (self->hosts, self->sandbox) : NULL;
  return notice != NULL;
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

/* @usage: what the model's request used, @latency_ms: how long its answer
 * took; NULL and -1 for other messages. */
static gboolean
append_message_full (WardenAgent           *self,
                     WardenLlmMessage      *message,
                     const WardenLlmUsage  *usage,
                     gint64                 latency_ms,
                     GError               **error)
{
  g_autoptr(JsonNode) node = warden_llm_message_to_json (message);
  g_autofree char *json = warden_json_to_string (node, FALSE);

  if (!warden_session_store_append_model_message (self->store, self->info->id,
                                                  self->messages->len, json, usage,
                                                  latency_ms,
                                                  latency_ms >= 0 && self->instructions
                                                  ? self->instructions->sha256 : NULL, error))
    return FALSE;
  g_ptr_array_add (self->messages, warden_llm_message_ref (message));
  return TRUE;
}

gboolean
_warden_agent_append_message (WardenAgent       *self,
                              WardenLlmMessage  *message,
                              GError           **error)
{
  return append_message_full (self, message, NULL, -1, error);
}

static WardenLlmMessage *
last_message (WardenAgent *self)
{
  return self->messages->len ? g_ptr_array_index (self->messages, self->messages->len - 1) : NULL;
}

void
_warden_agent_add_usage (WardenAgent          *self,
                         const WardenLlmUsage *usage)
{
  g_autoptr(GError) error = NULL;

  warden_llm_usage_add (&self->turn_usage, usage);
  warden_llm_usage_add (&self->info->usage, usage);
  /* Now, not when the run ends: the total survives a crash mid-turn. The
   * request's own row has it already, so nothing else waits on this. */
  if (!warden_session_store_save_session (self->store, self->info, &error))
    g_debug ("Session usage not saved: %s", error->message);
  g_signal_emit (self, AGENT_SIGNAL (USAGE), 0);
}

const WardenLlmUsage *
warden_agent_get_turn_usage (WardenAgent *self)
{
  g_return_val_if_fail (WARDEN_IS_AGENT (self), NULL);

  return &self->turn_usage;
}

const WardenLlmUsage *
warden_agent_get_session_usage (WardenAgent *self)
{
  g_return_val_if_fail (WARDEN_IS_AGENT (self), NULL);

  return &self->info->usage;
}

/* ------------------------------------------------------------------------ */
/* Finishing a run */

void
_warden_agent_run_return (WardenAgent        *self,
            WardenAgentOutcome  outcome,
            GError             *error)
{
  g_autoptr(GTask) task = g_steal_pointer (&self->run);

  /* Said for this run's cancel, which is over now. */
  self->stop_cause = WARDEN_TOOL_END_NONE;
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
      /* Once per request: summarise harder and send it again; then stop. */
      if (g_error_matches (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_CONTEXT_TOO_LONG))
        {
          if (!self->overflow_retried)
            {
              self->overflow_retried = TRUE;
              _warden_agent_compact_async (self, WARDEN_COMPACT_OVERFLOW, TRUE,
                                           g_task_get_cancellable (self->run), compacted_cb,
                                           g_object_ref (self));
              return;
            }
          self->overflow_retried = FALSE;
          _warden_agent_run_return (self, 0,
                                    g_error_new (WARDEN_LLM_ERROR,
                                                 WARDEN_LLM_ERROR_CONTEXT_TOO_LONG,
                                                 _("%s — and still after the earlier "
                                                   "conversation was summarised and long "
                                                   "outputs were cut. Nothing more was sent. "
                                                   "Set a smaller context window "
                                                   "(--context-window, or Preferences) so that "
                                                   "Warden summarises sooner, or start a new "
                                                   "session"), error->message));
          return;
        }
      self->overflow_retried = FALSE;
      _warden_agent_run_return (self, 0, g_steal_pointer (&error));
      return;
    }

  self->overflow_retried = FALSE;
  warden_llm_prices_apply (warden_llm_prices_get_default (NULL),
                           warden_llm_provider_get_model (self->provider), &response->usage);
  if (!append_message_full (self, response->message, &response->usage,
                            (g_get_monotonic_time () - self->request_started) / 1000, &error))
    {
      _warden_agent_run_return (self, 0, g_steal_pointer (&error));
      return;
    }
  _warden_agent_add_usage (self, &response->usage);

  if (!warden_llm_message_has_tool_use (response->message))
    {
      _warden_agent_run_return (self, WARDEN_AGENT_FINISHED, NULL);
      return;
    }
  self->tool_index = 0;
  g_clear_pointer (&self->results, warden_llm_message_unref);
  process_tools (self);
}

void
_warden_agent_send_request (WardenAgent *self)
{
  g_autoptr(GPtrArray) view = _warden_agent_view (self, self->overflow_retried);
  g_autofree char *prompt = _warden_agent_system_prompt (self);

  self->request_started = g_get_monotonic_time ();
  warden_llm_provider_complete_async (self->provider, prompt, view, self->tools,
                                      g_task_get_cancellable (self->run), complete_cb,
                                      g_object_ref (self));
}

/* A summary made before the request (or after it was too long): it goes. */
static void
compacted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(WardenAgent) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!_warden_agent_compact_finish (self, result, &error))
    {
      self->overflow_retried = FALSE;
      _warden_agent_run_return (self, 0, g_steal_pointer (&error));
      return;
    }
  if (self->run == NULL)
    return;
  _warden_agent_send_request (self);
}

void
_warden_agent_request_model (WardenAgent *self)
{
  /* The turn's instructions first: the request carries them. */
  if (self->reading_instructions)
    {
      self->request_waits = TRUE;
      return;
    }
  if (self->run == NULL)
    return;
  if (self->steps >= self->config.max_steps)
    {
      _warden_agent_run_return (self, WARDEN_AGENT_MAX_STEPS, NULL);
      return;
    }
  self->steps++;
  save_state (self, "running");

  /* Summarised before it would pass its share of the window. */
  if (_warden_agent_over_share (self))
    {
      _warden_agent_compact_async (self, WARDEN_COMPACT_AUTO, FALSE,
                                   g_task_get_cancellable (self->run), compacted_cb,
                                   g_object_ref (self));
      return;
    }
  _warden_agent_send_request (self);
}

/* ------------------------------------------------------------------------ */
/* Tool calls */

const char *
_warden_agent_workspace_inside (WardenAgent *self)
{
  return self->config.sandbox == WARDEN_SANDBOX_KIND_HOST ? self->config.workspace
                                                          : WARDEN_SANDBOX_WORKSPACE;
}

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

void
_warden_agent_save_call (WardenAgent    *self,
                         WardenToolCall *call)
{
  g_autoptr(WardenToolCallRecord) record = warden_tool_call_to_record (call);
  g_autoptr(GError) error = NULL;

  if (!warden_session_store_save_tool_call (self->store, record, &error))
    g_warning ("%s", error->message);
}

void
_warden_agent_tool_done (WardenAgent         *self,
                         WardenToolCall      *call,
                         WardenToolCallState  state,
                         const char          *result,
                         gboolean             is_error)
{
  g_autoptr(WardenToolCall) done = call;
  const WardenLlmBlock *block = current_tool (self);

  g_object_freeze_notify (G_OBJECT (done));
  warden_tool_call_set_result (done, result, is_error);
  /* Why it ended; a call cut short was told so by its caller. */
  if (state == WARDEN_TOOL_CALL_FINISHED)
    warden_tool_call_set_end (done, warden_tool_call_get_timed_out (done)
                                    ? WARDEN_TOOL_END_TIMED_OUT : WARDEN_TOOL_END_FINISHED,
                              warden_tool_call_get_kind (done) != WARDEN_TOOL_KIND_EXEC ||
                              warden_tool_call_get_started (done) != 0);
  else if (state == WARDEN_TOOL_CALL_DENIED || state == WARDEN_TOOL_CALL_REJECTED)
    warden_tool_call_set_end (done, state == WARDEN_TOOL_CALL_DENIED ? WARDEN_TOOL_END_DENIED
                                                                     : WARDEN_TOOL_END_REJECTED,
                              FALSE);
  if (warden_tool_call_get_finished (done) == 0)
    warden_tool_call_set_times (done, warden_tool_call_get_started (done),
                                g_get_real_time () / 1000);
  warden_tool_call_set_state (done, state);
  g_object_thaw_notify (G_OBJECT (done));
  _warden_agent_save_call (self, done);

  if (self->results == NULL)
    self->results = warden_llm_message_new (WARDEN_LLM_ROLE_USER);
  /* Under the id the model gave, which a repeated one's record does not have. */
  warden_llm_message_add_tool_result (self->results,
                                      block ? block->tool_use_id : warden_tool_call_get_id (done),
                                      result, is_error);
  g_signal_emit (self, AGENT_SIGNAL (TOOL_RESULT), 0, done);

  self->tool_index++;
  process_tools (self);
}

/* the loop over the tool calls of one assistant message ------------------- */

static void
ask_user (WardenAgent    *self,
          WardenToolCall *call)
{
  if (warden_tool_call_get_state (call) == WARDEN_TOOL_CALL_ANSWERED)
    {
      g_autofree char *answer = g_strdup (warden_tool_call_get_feedback (call) ?: "");

      warden_tool_call_set_decision (call, WARDEN_TOOL_DECISION_ANSWERED, NULL, NULL);
      _warden_agent_tool_done (self, call, WARDEN_TOOL_CALL_FINISHED, answer, FALSE);
      return;
    }
  if (warden_tool_call_get_arg (call, "question") == NULL)
    {
      _warden_agent_tool_done (self, call, WARDEN_TOOL_CALL_FINISHED,
                               "Error: ask_user needs a \"question\"", TRUE);
      return;
    }
  _warden_agent_ask (self, call, NULL, NULL, NULL, NULL);
}

/* The next tool call of the model's answer, or the next request when all
 * are answered. */
static void
process_tools (WardenAgent *self)
{
  const WardenLlmBlock *block;
  WardenToolCall *call;

  if (self->run == NULL)
    return;

  block = current_tool (self);
  if (block == NULL)
    {
      /* All answered: their results go to the model as one message. */
      g_autoptr(WardenLlmMessage) results = g_steal_pointer (&self->results);
      g_autoptr(GError) error = NULL;

      if (results != NULL && !_warden_agent_append_message (self, results, &error))
        {
          _warden_agent_run_return (self, 0, g_steal_pointer (&error));
          return;
        }
      _warden_agent_request_model (self);
      return;
    }

  call = _warden_agent_call_for (self, self->messages->len - 1, self->tool_index, block);
  if (_warden_agent_resume_call (self, call))
    return;

  /* The model gave this id to another call: this one is not run, and the
   * model is told, as its result, under the id it gave. */
  if (strcmp (warden_tool_call_get_id (call), block->tool_use_id) != 0)
    {
      g_autofree char *msg = g_strdup_printf ("Error: this tool call repeats the id “%s” of "
                                              "another tool call in this conversation, so it "
                                              "was not run. Give every tool call an id of its "
                                              "own, and make this call again if it is still "
                                              "needed.", block->tool_use_id);

      _warden_agent_tool_done (self, call, WARDEN_TOOL_CALL_FINISHED, msg, TRUE);
      return;
    }

  if (warden_tool_call_get_input (call) == NULL)
    {
      /* The provider says why (not JSON, cut off by max_tokens) when it knows. */
      g_autofree char *msg = g_strdup_printf ("Error: %s",
                                              block->tool_input_error
                                              ? block->tool_input_error
                                              : "the tool's arguments must be a JSON object");

      _warden_agent_tool_done (self, call, WARDEN_TOOL_CALL_FINISHED, msg, TRUE);
      return;
    }

  switch (warden_tool_call_get_kind (call))
    {
    case WARDEN_TOOL_KIND_EXEC:
      _warden_agent_start_exec (self, call);
      break;
    case WARDEN_TOOL_KIND_READ:
    case WARDEN_TOOL_KIND_WRITE:
    case WARDEN_TOOL_KIND_EDIT:
    case WARDEN_TOOL_KIND_GLOB:
    case WARDEN_TOOL_KIND_GREP:
      _warden_agent_start_file_tool (self, call, FALSE);
      break;
    case WARDEN_TOOL_KIND_ASK_USER:
      ask_user (self, call);
      break;
    case WARDEN_TOOL_KIND_UNKNOWN:
    default:
      {
        g_autofree char *msg = g_strdup_printf ("Error: there is no tool named \"%s\"; the tools "
                                                "are exec, read, write, edit, glob, grep and "
                                                "ask_user", warden_tool_call_get_name (call));

        _warden_agent_tool_done (self, call, WARDEN_TOOL_CALL_FINISHED, msg, TRUE);
      }
      break;
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
    _warden_agent_request_model (self);
  else
    _warden_agent_run_return (self, WARDEN_AGENT_FINISHED, NULL);
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
  if (self->run != NULL || self->compacting)
    {
      g_task_return_new_error (gtask, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_BUSY,
                               _("The agent is already running"));
      return;
    }
  if (self->restoring)
    {
      g_task_return_new_error (gtask, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_BUSY,
                               _("The files are being restored: wait until that ends"));
      return;
    }
  self->run = g_steal_pointer (&gtask);
  /* Each turn reads the project's instructions as they are now, in a
   * thread: the first request waits for them. */
  _warden_agent_read_instructions_async (self);

  if (task != NULL)
    {
      g_autoptr(WardenLlmMessage) message = warden_llm_message_new (WARDEN_LLM_ROLE_USER);
      g_autofree char *note = NULL;

      if (self->pending != NULL)
        {
          _warden_agent_run_return (self, 0,
                                    g_error_new (WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_BUSY,
                                                 _("An approval is waiting: answer it first")));
          return;
        }
      if (self->info->title == NULL)
        {
          self->info->title = g_strndup (task, 80);
          g_strdelimit (self->info->title, "\n\r\t", ' ');
        }
      if (!_warden_agent_close_open_calls (self, &error))
        {
          _warden_agent_run_return (self, 0, g_steal_pointer (&error));
          return;
        }
      /* The user put files back (window or warden-cli): the model hears it
       * before their words, once. */
      note = warden_restore_take_note (self->store, self->info->id, &error);
      if (error != NULL)
        {
          _warden_agent_run_return (self, 0, g_steal_pointer (&error));
          return;
        }
      if (note != NULL)
        warden_llm_message_add_text (message, note);
      warden_llm_message_add_text (message, task);
      self->turn_usage = (WardenLlmUsage) { 0 };
      if (!_warden_agent_append_message (self, message, &error))
        {
          _warden_agent_run_return (self, 0, g_steal_pointer (&error));
          return;
        }
      self->steps = 0;
    }
  /* Running from now on, approved commands and file tools included. */
  save_state (self, "running");
  continue_loop (self);
}

void
warden_agent_set_stop_cause (WardenAgent   *self,
                             WardenToolEnd  cause)
{
  g_return_if_fail (WARDEN_IS_AGENT (self));

  if (self->stop_cause == WARDEN_TOOL_END_NONE)
    self->stop_cause = cause;
}

WardenToolEnd
_warden_agent_stop_cause (WardenAgent *self)
{
  return self->stop_cause != WARDEN_TOOL_END_NONE ? self->stop_cause : WARDEN_TOOL_END_USER;
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
  _warden_agent_set_sandbox_state (self, WARDEN_SANDBOX_STATE_STOPPED, 0, NULL);
  warden_sandbox_destroy_async (sandbox, cancellable, close_cb, g_steal_pointer (&task));
}

gboolean
warden_agent_close_finish (WardenAgent   *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}
