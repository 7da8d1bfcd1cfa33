/* warden-policy.c: a profile compiled for fast decisions
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "warden-pattern.h"
#include "warden-policy.h"
#include "warden-shell-parser.h"

struct _WardenPolicy
{
  gatomicrefcount   ref_count;
  WardenMode        mode;
  WardenPatternSet *allow;
  WardenPatternSet *deny;
};

WardenPolicy *
warden_policy_new (WardenMode          mode,
                   const char * const *allow,
                   const char * const *deny)
{
  WardenPolicy *self = g_new0 (WardenPolicy, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->mode = mode;
  self->allow = warden_pattern_set_new ();
  self->deny = warden_pattern_set_new ();
  for (guint i = 0; allow && allow[i]; i++)
    if (warden_pattern_validate (allow[i], NULL))
      warden_pattern_set_add (self->allow, allow[i]);
  for (guint i = 0; deny && deny[i]; i++)
    if (warden_pattern_validate (deny[i], NULL))
      warden_pattern_set_add (self->deny, deny[i]);
  return self;
}

WardenPolicy *
warden_policy_new_for_profile (WardenProfile *profile)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (profile), NULL);

  return warden_policy_new (warden_profile_get_mode (profile),
                            warden_profile_get_allow (profile),
                            warden_profile_get_deny (profile));
}

WardenPolicy *
warden_policy_ref (WardenPolicy *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
warden_policy_unref (WardenPolicy *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  warden_pattern_set_free (self->allow);
  warden_pattern_set_free (self->deny);
  g_free (self);
}

WardenMode
warden_policy_get_mode (WardenPolicy *self)
{
  return self->mode;
}

static gboolean
is_subcommand (const char *word)
{
  if (word == NULL || !(word[0] >= 'a' && word[0] <= 'z'))
    return FALSE;
  for (const char *c = word + 1; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-'))
      return FALSE;
  return TRUE;
}

/* The command name, its subcommand if the first argument looks like one,
 * and " *" when more follows; NULL when such a pattern would not match. */
static char *
suggest (const WardenCommandPart *part)
{
  const char *text = part->match_text ? part->match_text : part->text;
  g_autoptr(GString) s = NULL;

  if (part->argv == NULL || part->argv[0] == NULL || strchr (part->argv[0], '*') != NULL)
    return NULL;

  s = g_string_new (part->argv[0]);
  if (is_subcommand (part->argv[1]))
    g_string_append_printf (s, " %s", part->argv[1]);
  if (strcmp (s->str, text) != 0)
    g_string_append (s, " *");

  if (!warden_pattern_match (s->str, text, strlen (text)))
    return NULL;
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static gboolean
inside (const char *path,
        const char *dir)
{
  gsize n = strlen (dir);

  return strcmp (path, dir) == 0 ||
         (strncmp (path, dir, n) == 0 && (path[n] == '/' || (n > 0 && dir[n - 1] == '/')));
}

static char *
canonical (const char *path,
           const char *relative_to)
{
  return g_canonicalize_filename (path, relative_to);
}

WardenDecision *
warden_policy_check (WardenPolicy             *self,
                     const char               *command,
                     gssize                    length,
                     const WardenCheckContext *context)
{
  WardenDecision *decision = warden_decision_new ();
  g_autoptr(WardenShellParse) parse = NULL;
  g_autofree char *workspace = NULL;
  g_autofree char *env_reason = NULL;
  WardenShellOptions options = { 0 };
  gint first_ask = -1;
  g_autofree char *deny_reason = NULL;

  g_return_val_if_fail (self != NULL, decision);
  g_return_val_if_fail (command != NULL || length == 0, decision);

  workspace = canonical (context && context->workspace ? context->workspace : "/workspace", "/");
  options.workspace = workspace;
  if (context && context->cwd)
    {
      g_autofree char *cwd = canonical (context->cwd, workspace);

      options.cwd_outside_workspace = !inside (cwd, workspace);
    }

  parse = warden_shell_parse (command ? command : "", length, &options);

  if (context && context->env && context->env[0])
    {
      g_autoptr(GString) names = g_string_new (NULL);

      for (guint i = 0; context->env[i]; i++)
        {
          const char *eq = strchr (context->env[i], '=');

          if (i > 0)
            g_string_append (names, ", ");
          g_string_append_len (names, context->env[i],
                               eq ? (gssize) (eq - context->env[i]) : -1);
        }
      env_reason = g_strdup_printf (_("the command is run with environment variables (%s), "
                                      "which can change what any command does"), names->str);
    }

  for (guint i = 0; i < parse->parts->len; i++)
    {
      const WardenCommandPart *part = g_ptr_array_index (parse->parts, i);
      const char *text = part->match_text ? part->match_text : part->text;
      gsize text_len = strlen (text);
      const char *deny = NULL;
      const char *allow = NULL;
      g_autofree char *reason = NULL;
      g_autofree char *suggestion = NULL;
      WardenVerdict verdict;

      deny = warden_pattern_set_lookup (self->deny, text, text_len, TRUE);
      if (deny == NULL && part->base_text != NULL)
        deny = warden_pattern_set_lookup (self->deny, part->base_text,
                                          strlen (part->base_text), TRUE);
      if (deny != NULL)
        {
          verdict = WARDEN_VERDICT_DENY;
          reason = g_strdup_printf (_("“%s” matches the deny pattern “%s”"), part->text, deny);
          if (deny_reason == NULL)
            deny_reason = g_strdup (reason);
          warden_decision_add_part (decision, part->text, part->origin, verdict, deny,
                                    reason, NULL);
          continue;
        }

      if (part->kind != WARDEN_PART_REDIRECTION)
        allow = warden_pattern_set_lookup (self->allow, text, text_len, FALSE);

      if (part->force_ask != NULL && !(part->liftable && allow != NULL))
        {
          verdict = WARDEN_VERDICT_ASK;
          reason = g_strdup (part->force_ask);
          allow = NULL;
          if (!part->no_suggestion && self->mode == WARDEN_MODE_ALLOWLIST)
            suggestion = suggest (part);
        }
      else if (part->kind == WARDEN_PART_REDIRECTION)
        {
          verdict = WARDEN_VERDICT_ALLOW;
          reason = g_strdup (_("redirections only: no command runs"));
        }
      else if (self->mode == WARDEN_MODE_ALLOW_ALWAYS)
        {
          verdict = WARDEN_VERDICT_ALLOW;
          reason = g_strdup (_("the profile allows every command"));
          allow = NULL;
        }
      else if (self->mode == WARDEN_MODE_APPROVAL_ALWAYS)
        {
          verdict = WARDEN_VERDICT_ASK;
          reason = g_strdup (_("the profile asks before every command"));
          allow = NULL;
        }
      else if (allow != NULL)
        {
          verdict = WARDEN_VERDICT_ALLOW;
          reason = g_strdup_printf (_("allowed by “%s”"), allow);
        }
      else
        {
          verdict = WARDEN_VERDICT_ASK;
          reason = g_strdup_printf (_("no allow pattern matches “%s”"), part->text);
          if (!part->no_suggestion)
            suggestion = suggest (part);
        }

      warden_decision_add_part (decision, part->text, part->origin, verdict, allow, reason,
                                suggestion);
      if (verdict == WARDEN_VERDICT_ASK && first_ask < 0)
        first_ask = warden_decision_get_n_parts (decision) - 1;
    }

  if (deny_reason != NULL)
    warden_decision_set_result (decision, WARDEN_VERDICT_DENY, deny_reason);
  else if (parse->error != NULL)
    {
      g_autofree char *reason = g_strdup_printf (_("the command could not be fully parsed: %s"),
                                                 parse->error);
      warden_decision_set_result (decision, WARDEN_VERDICT_ASK, reason);
    }
  else if (env_reason != NULL)
    warden_decision_set_result (decision, WARDEN_VERDICT_ASK, env_reason);
  else if (first_ask >= 0)
    warden_decision_set_result (decision, WARDEN_VERDICT_ASK,
                                warden_decision_get_part (decision, first_ask)->reason);
  else if (parse->parts->len == 0 && self->mode == WARDEN_MODE_APPROVAL_ALWAYS)
    warden_decision_set_result (decision, WARDEN_VERDICT_ASK,
                                _("the profile asks before every command"));
  else if (parse->parts->len == 0)
    warden_decision_set_result (decision, WARDEN_VERDICT_ALLOW,
                                _("the command is empty: nothing runs"));
  else if (self->mode == WARDEN_MODE_ALLOW_ALWAYS)
    warden_decision_set_result (decision, WARDEN_VERDICT_ALLOW,
                                _("the profile allows every command"));
  else
    warden_decision_set_result (decision, WARDEN_VERDICT_ALLOW,
                                _("every command matches an allow pattern"));

  return decision;
}
