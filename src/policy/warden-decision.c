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
#include "common/warden-utf8.h"

/* A line of up to this many parts, and suggestions, is decided in one
 * allocation: the arrays start inside the decision and move out only when
 * they grow past it. */
#define INLINE_PARTS       4
#define INLINE_SUGGESTIONS 4
/* Bytes for the parts' reasons and suggestions, freed with the decision:
 * room for those of most lines, where each was an allocation of its own. */
#define ARENA_SIZE         384

struct _WardenDecision
{
  gatomicrefcount      ref_count;
  WardenVerdict        verdict;
  const char          *reason;        /* @reason_owned, or a part's reason */
  char                *reason_owned;
  WardenDecisionPart  *parts;         /* @inline_parts, or on the heap */
  guint                n_parts;
  guint                parts_size;
  /* NULL-terminated; each is the suggestion of a part, which owns it. */
  const char         **suggestions;   /* @inline_suggestions, or on the heap */
  guint                n_suggestions;
  guint                suggestions_size;  /* not counting the NULL */
  int                  uncovered;     /* index of the first asking part without one, or -1 */
  gboolean             line_asks;     /* asks as a whole, whatever the patterns */
  int                  ruled;         /* index of the first part an ask rule holds, or -1 */
  /* Bit i: part i's pattern lies in its reason's block, freed with it. */
  guint64              pattern_in_reason;
  /* Bit i: part i's text lies in its argv's block, freed with it. */
  guint64              text_in_argv;
  gsize                arena_used;
  WardenDecisionPart   inline_parts[INLINE_PARTS];
  const char          *inline_suggestions[INLINE_SUGGESTIONS + 1];
  char                 arena[ARENA_SIZE];
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

/* g_free() of a field that is often NULL: the call through the PLT to
 * free() costs more than the test, and a decision has a dozen of them. */
static inline void
free_set (gpointer p)
{
  if (p != NULL)
    g_free (p);
}

static inline gboolean
in_arena (WardenDecision *self,
          const char     *p)
{
  return p >= self->arena && p < self->arena + ARENA_SIZE;
}

/* g_free() of what is not in the arena. */
static inline void
release (WardenDecision *self,
         char           *p)
{
  if (p != NULL && !in_arena (self, p))
    g_free (p);
}

char *
warden_decision_alloc (WardenDecision *self,
                       gsize           size)
{
  char *p;

  if (size > ARENA_SIZE - self->arena_used)
    return g_malloc (size);
  p = self->arena + self->arena_used;
  self->arena_used += size;
  return p;
}

static void
part_clear (WardenDecision     *self,
            WardenDecisionPart *part,
            gboolean            pattern_in_reason,
            gboolean            text_in_argv)
{
  if (!text_in_argv)
    free_set (part->text);
  if (!pattern_in_reason)
    free_set (part->pattern);
  release (self, part->reason);
  release (self, part->suggestion);
  free_set (part->argv);
}

WardenDecision *
warden_decision_new (void)
{
  /* g_new0 would be calloc(), which glibc serves without its per-thread
   * cache: zero only what is read before it is written. */
  WardenDecision *self = g_new (WardenDecision, 1);

  memset (self, 0, G_STRUCT_OFFSET (WardenDecision, inline_parts));
  self->inline_suggestions[0] = NULL;

  /* GLib 2.74's g_atomic_ref_count_*() are calls; these are inline. */
  g_atomic_int_set (&self->ref_count, 1);
  self->verdict = WARDEN_VERDICT_ASK;
  self->parts = self->inline_parts;
  self->parts_size = INLINE_PARTS;
  self->suggestions = self->inline_suggestions;
  self->suggestions_size = INLINE_SUGGESTIONS;
  self->uncovered = -1;
  self->ruled = -1;
  return self;
}

WardenDecision *
warden_decision_ref (WardenDecision *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_int_inc (&self->ref_count);
  return self;
}

void
warden_decision_unref (WardenDecision *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_int_dec_and_test (&self->ref_count))
    return;

  free_set (self->reason_owned);
  for (guint i = 0; i < self->n_parts; i++)
    part_clear (self, &self->parts[i],
                i < 64 && (self->pattern_in_reason & (G_GUINT64_CONSTANT (1) << i)) != 0,
                i < 64 && (self->text_in_argv & (G_GUINT64_CONSTANT (1) << i)) != 0);
  if (self->parts != self->inline_parts)
    g_free (self->parts);
  if (self->suggestions != self->inline_suggestions)
    g_free (self->suggestions);
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
  return self->n_parts;
}

const WardenDecisionPart *
warden_decision_get_part (WardenDecision *self,
                          guint           index)
{
  g_return_val_if_fail (index < self->n_parts, NULL);
  return &self->parts[index];
}

const WardenDecisionPart *
warden_decision_get_uncovered (WardenDecision *self)
{
  return self->uncovered >= 0 ? &self->parts[self->uncovered] : NULL;
}

gboolean
warden_decision_get_line_asks (WardenDecision *self)
{
  return self->line_asks;
}

void
warden_decision_set_line_asks (WardenDecision *self)
{
  self->line_asks = TRUE;
}

const WardenDecisionPart *
warden_decision_get_asked_by_rule (WardenDecision *self)
{
  return self->ruled >= 0 ? &self->parts[self->ruled] : NULL;
}

const char * const *
warden_decision_get_suggestions (WardenDecision *self)
{
  return (const char * const *) self->suggestions;
}

/* Makes room for one more element in @array (@inline_array at first, of
 * @size), keeping @extra more (the suggestions' NULL). */
static gpointer
grow (gpointer  array,
      gpointer  inline_array,
      guint    *size,
      gsize     element,
      guint     extra)
{
  guint new_size = *size * 2;
  gpointer bigger = g_malloc_n (new_size + extra, element);

  memcpy (bigger, array, (*size + extra) * element);
  if (array != inline_array)
    g_free (array);
  *size = new_size;
  return bigger;
}

static char *
take_valid (WardenDecision *self,
            char           *s)
{
  char *valid;

  if (s == NULL || warden_utf8_validate (s, strlen (s)))
    return s;
  valid = g_utf8_make_valid (s, -1);
  release (self, s);
  return valid;
}

static void
take_part (WardenDecision *self,
           char           *text,
           WardenOrigin    origin,
           WardenVerdict   verdict,
           const char     *pattern,
           char           *reason,
           char           *suggestion,
           gboolean        derived,
           gboolean        pattern_in_reason,
           gboolean        known_valid,
           gboolean        text_in_argv)
{
  /* Commands may hold any bytes; what is shown and saved must be UTF-8, and
   * a suggestion that is not cannot become a pattern. */
  gboolean text_valid = known_valid || text == NULL || warden_utf8_validate (text, strlen (text));
  gboolean borrow = pattern_in_reason && derived && text_valid && self->n_parts < 64;
  WardenDecisionPart part = {
    text, origin, verdict,
    pattern == NULL ? NULL : borrow ? (char *) pattern : g_strdup (pattern), reason, NULL, NULL,
    NULL,
  };

  if (!text_valid)
    {
      part.text = g_utf8_make_valid (text, -1);
      if (!text_in_argv)
        g_free (text);
      text_in_argv = FALSE;
    }
  else if (text_in_argv && self->n_parts >= 64)
    {
      part.text = g_strdup (text);
      text_in_argv = FALSE;
    }
  /* Made of a valid text's words, valid patterns and valid constants only,
   * they are valid too. */
  if (!derived || !text_valid)
    {
      part.reason = take_valid (self, reason);
      if (suggestion != NULL && !warden_utf8_validate (suggestion, strlen (suggestion)))
        {
          release (self, suggestion);
          suggestion = NULL;
        }
    }
  part.suggestion = suggestion;
  if (self->n_parts == self->parts_size)
    self->parts = grow (self->parts, self->inline_parts, &self->parts_size,
                        sizeof (WardenDecisionPart), 0);
  if (borrow)
    self->pattern_in_reason |= G_GUINT64_CONSTANT (1) << self->n_parts;
  if (text_in_argv)
    self->text_in_argv |= G_GUINT64_CONSTANT (1) << self->n_parts;
  self->parts[self->n_parts++] = part;
  if (verdict == WARDEN_VERDICT_ASK && suggestion == NULL && self->uncovered < 0)
    self->uncovered = (int) self->n_parts - 1;
  if (verdict == WARDEN_VERDICT_ASK && pattern != NULL && self->ruled < 0)
    self->ruled = (int) self->n_parts - 1;

  if (suggestion != NULL)
    {
      /* Most differ at once ("ls", "wc *"): no call to say so. */
      for (guint i = 0; i < self->n_suggestions; i++)
        if (self->suggestions[i][0] == suggestion[0] &&
            strcmp (self->suggestions[i], suggestion) == 0)
          return;
      if (self->n_suggestions == self->suggestions_size)
        self->suggestions = grow (self->suggestions, self->inline_suggestions,
                                  &self->suggestions_size, sizeof (char *), 1);
      self->suggestions[self->n_suggestions++] = suggestion;
      self->suggestions[self->n_suggestions] = NULL;
    }
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
  take_part (self, text, origin, verdict, pattern, reason, suggestion, FALSE, FALSE, FALSE,
             FALSE);
}

void
warden_decision_take_part_derived (WardenDecision *self,
                                   char           *text,
                                   WardenOrigin    origin,
                                   WardenVerdict   verdict,
                                   const char     *pattern,
                                   char           *reason,
                                   char           *suggestion,
                                   gboolean        pattern_in_reason,
                                   gboolean        text_valid,
                                   gboolean        text_in_argv)
{
  take_part (self, text, origin, verdict, pattern, reason, suggestion, TRUE, pattern_in_reason,
             text_valid, text_in_argv);
}

void
warden_decision_set_part_runner (WardenDecision *self,
                                 guint           index,
                                 const char     *runner)
{
  g_return_if_fail (index < self->n_parts);
  self->parts[index].runner = g_intern_string (runner);
}

void
warden_decision_take_part_argv (WardenDecision  *self,
                                guint            index,
                                char           **argv)
{
  WardenDecisionPart *part;

  g_return_if_fail (index < self->n_parts);
  part = &self->parts[index];
  free_set (part->argv);
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
  char *old = g_steal_pointer (&self->reason_owned);

  self->verdict = verdict;
  self->reason = NULL;
  /* The engine gives a part's reason, already valid, which lives as long as
   * the decision: no copy. */
  for (guint i = 0; reason != NULL && i < self->n_parts; i++)
    if (self->parts[i].reason == reason)
      self->reason = reason;
  if (self->reason == NULL)
    self->reason = self->reason_owned = take_valid (self, g_strdup (reason));
  g_free (old);
}

void
warden_decision_set_result_static (WardenDecision *self,
                                   WardenVerdict   verdict,
                                   const char     *reason)
{
  g_clear_pointer (&self->reason_owned, g_free);
  self->verdict = verdict;
  self->reason = reason;
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
  for (guint i = 0; i < self->n_parts; i++)
    {
      const WardenDecisionPart *part = &self->parts[i];

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
  for (const char * const *s = warden_decision_get_suggestions (self); *s != NULL; s++)
    json_builder_add_string_value (b, *s);
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
