/* warden-decision.c: the answer of the policy engine, with its reasons
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-policy"

#include <json-glib/json-glib.h>
#include <string.h>

#include "warden-decision.h"

#include "common/warden-json.h"
#include "common/warden-printable.h"

struct _WardenDecision
{
  gatomicrefcount  ref_count;
  WardenVerdict    verdict;
  char            *reason;
  GArray          *parts;        /* of WardenDecisionPart */
  GPtrArray       *suggestions;  /* NULL-terminated */
  int              uncovered;    /* index of the first asking part without one, or -1 */
  int              ruled;        /* index of the first part an ask rule holds, or -1 */
};

G_DEFINE_QUARK (warden-policy-error-quark, warden_policy_error)

static const char *mode_names[] = { "allowlist", "approval-always", "allow-always" };

const char *
warden_mode_to_string (WardenMode mode)
{
  g_return_val_if_fail (mode <= WARDEN_MODE_ALLOW_ALWAYS, NULL);
  return mode_names[mode];
}

gboolean
warden_mode_from_string (const char *str,
                         WardenMode *mode)
{
  for (guint i = 0; i < G_N_ELEMENTS (mode_names); i++)
    if (g_strcmp0 (str, mode_names[i]) == 0)
      {
        *mode = i;
        return TRUE;
      }
  return FALSE;
}

const char *
warden_verdict_to_string (WardenVerdict verdict)
{
  switch (verdict)
    {
    case WARDEN_VERDICT_ALLOW: return "allow";
    case WARDEN_VERDICT_ASK:   return "ask";
    case WARDEN_VERDICT_DENY:  return "deny";
    default:                   g_return_val_if_reached (NULL);
    }
}

const char *
warden_origin_to_string (WardenOrigin origin)
{
  switch (origin)
    {
    case WARDEN_ORIGIN_TOP_LEVEL:            return "top-level";
    case WARDEN_ORIGIN_SUBSTITUTION:         return "substitution";
    case WARDEN_ORIGIN_PROCESS_SUBSTITUTION: return "process-substitution";
    case WARDEN_ORIGIN_WRAPPER:              return "wrapper";
    case WARDEN_ORIGIN_SCRIPT:               return "script";
    case WARDEN_ORIGIN_REDIRECTION:          return "redirection";
    default:                                 g_return_val_if_reached (NULL);
    }
}

static void
part_clear (gpointer data)
{
  WardenDecisionPart *part = data;

  g_free (part->text);
  g_free (part->pattern);
  g_free (part->reason);
  g_free (part->suggestion);
  g_free (part->argv);
}

WardenDecision *
warden_decision_new (void)
{
  WardenDecision *self = g_new0 (WardenDecision, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->verdict = WARDEN_VERDICT_ASK;
  self->parts = g_array_new (FALSE, TRUE, sizeof (WardenDecisionPart));
  g_array_set_clear_func (self->parts, part_clear);
  self->suggestions = g_ptr_array_new_with_free_func (g_free);
  self->uncovered = -1;
  self->ruled = -1;
  g_ptr_array_add (self->suggestions, NULL);
  return self;
}

WardenDecision *
warden_decision_ref (WardenDecision *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
warden_decision_unref (WardenDecision *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;

  g_free (self->reason);
  g_array_unref (self->parts);
  g_ptr_array_unref (self->suggestions);
  g_free (self);
}

WardenVerdict
warden_decision_get_verdict (WardenDecision *self)
{
  return self->verdict;
}

const char *
warden_decision_get_reason (WardenDecision *self)
{
  return self->reason;
}

guint
warden_decision_get_n_parts (WardenDecision *self)
{
  return self->parts->len;
}

const WardenDecisionPart *
warden_decision_get_part (WardenDecision *self,
                          guint           index)
{
  g_return_val_if_fail (index < self->parts->len, NULL);
  return &g_array_index (self->parts, WardenDecisionPart, index);
}

const WardenDecisionPart *
warden_decision_get_uncovered (WardenDecision *self)
{
  return self->uncovered >= 0 ? &g_array_index (self->parts, WardenDecisionPart,
                                                (guint) self->uncovered) : NULL;
}

const WardenDecisionPart *
warden_decision_get_asked_by_rule (WardenDecision *self)
{
  return self->ruled >= 0 ? &g_array_index (self->parts, WardenDecisionPart,
                                            (guint) self->ruled) : NULL;
}

const char * const *
warden_decision_get_suggestions (WardenDecision *self)
{
  return (const char * const *) self->suggestions->pdata;
}

static char *
take_valid (char *s)
{
  char *valid;

  if (s == NULL || g_utf8_validate (s, -1, NULL))
    return s;
  valid = g_utf8_make_valid (s, -1);
  g_free (s);
  return valid;
}

void
warden_decision_take_part (WardenDecision *self,
                           char           *text,
                           WardenOrigin    origin,
                           WardenVerdict   verdict,
                           const char     *pattern,
                           char           *reason,
                           char           *suggestion)
{
  /* Commands may hold any bytes; what is shown and saved must be UTF-8, and
   * a suggestion that is not cannot become a pattern. */
  WardenDecisionPart part = {
    take_valid (text), origin, verdict, g_strdup (pattern), take_valid (reason), NULL, NULL,
    NULL,
  };

  if (suggestion != NULL && !g_utf8_validate (suggestion, -1, NULL))
    g_clear_pointer (&suggestion, g_free);
  part.suggestion = suggestion;
  g_array_append_val (self->parts, part);
  if (verdict == WARDEN_VERDICT_ASK && suggestion == NULL && self->uncovered < 0)
    self->uncovered = (int) self->parts->len - 1;
  if (verdict == WARDEN_VERDICT_ASK && pattern != NULL && self->ruled < 0)
    self->ruled = (int) self->parts->len - 1;

  if (suggestion != NULL)
    {
      for (guint i = 0; i + 1 < self->suggestions->len; i++)
        if (strcmp (g_ptr_array_index (self->suggestions, i), suggestion) == 0)
          return;
      g_ptr_array_insert (self->suggestions, self->suggestions->len - 1, g_strdup (suggestion));
    }
}

void
warden_decision_set_part_runner (WardenDecision *self,
                                 guint           index,
                                 const char     *runner)
{
  g_return_if_fail (index < self->parts->len);
  g_array_index (self->parts, WardenDecisionPart, index).runner = g_intern_string (runner);
}

void
warden_decision_take_part_argv (WardenDecision  *self,
                                guint            index,
                                char           **argv)
{
  WardenDecisionPart *part;

  g_return_if_fail (index < self->parts->len);
  part = &g_array_index (self->parts, WardenDecisionPart, index);
  g_free (part->argv);
  part->argv = argv;
}

void
warden_decision_add_part (WardenDecision *self,
                          const char     *text,
                          WardenOrigin    origin,
                          WardenVerdict   verdict,
                          const char     *pattern,
                          const char     *reason,
                          const char     *suggestion)
{
  warden_decision_take_part (self, g_strdup (text), origin, verdict, pattern, g_strdup (reason),
                             g_strdup (suggestion));
}

void
warden_decision_set_result (WardenDecision *self,
                            WardenVerdict   verdict,
                            const char     *reason)
{
  self->verdict = verdict;
  g_free (self->reason);
  self->reason = take_valid (g_strdup (reason));
}

char *
warden_decision_to_json (WardenDecision *self)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "decision");
  json_builder_add_string_value (b, warden_verdict_to_string (self->verdict));
  json_builder_set_member_name (b, "reason");
  json_builder_add_string_value (b, self->reason);
  json_builder_set_member_name (b, "parts");
  json_builder_begin_array (b);
  for (guint i = 0; i < self->parts->len; i++)
    {
      const WardenDecisionPart *part = &g_array_index (self->parts, WardenDecisionPart, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "text");
      json_builder_add_string_value (b, part->text);
      json_builder_set_member_name (b, "origin");
      json_builder_add_string_value (b, warden_origin_to_string (part->origin));
      json_builder_set_member_name (b, "decision");
      json_builder_add_string_value (b, warden_verdict_to_string (part->verdict));
      json_builder_set_member_name (b, "pattern");
      if (part->pattern)
        json_builder_add_string_value (b, part->pattern);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "reason");
      json_builder_add_string_value (b, part->reason);
      if (part->suggestion)
        {
          json_builder_set_member_name (b, "suggestion");
          json_builder_add_string_value (b, part->suggestion);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "suggestions");
  json_builder_begin_array (b);
  for (guint i = 0; i + 1 < self->suggestions->len; i++)
    json_builder_add_string_value (b, g_ptr_array_index (self->suggestions, i));
  json_builder_end_array (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  return warden_json_to_string (root, FALSE);
}

char *
warden_decision_printable (const char *s)
{
  return warden_printable (s, -1, WARDEN_PRINTABLE_ONE_LINE);
}
