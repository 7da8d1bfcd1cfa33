/* warden-decision.h: the answer of the policy engine, with its reasons
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "warden-policy-types.h"

G_BEGIN_DECLS

typedef struct
{
  char          *text;        /* the simple command as matched */
  WardenOrigin   origin;
  WardenVerdict  verdict;
  /* The pattern that decided, or NULL: an allow pattern (verdict allow), a
   * deny pattern (deny), or an ask rule of the profile (ask). */
  char          *pattern;
  char          *reason;      /* a sentence for the user */
  char          *suggestion;  /* an "always allow" pattern, or NULL */
  /* For WARDEN_ORIGIN_WRAPPER: the program that runs it ("find", "xargs",
   * "env" …), an interned string; NULL when not known. */
  const char    *runner;
  /* The words the program gets after quote removal, name first, as the
   * parser read them (an unexpanded $x stays "$x"); NULL for a part that
   * starts nothing (assignments, redirections) or when not known. Unlike
   * @text, "rm 'old build'" and "rm old build" differ here. */
  char         **argv;
} WardenDecisionPart;

typedef struct _WardenDecision WardenDecision;

WardenDecision           *warden_decision_ref             (WardenDecision *self);
void                      warden_decision_unref           (WardenDecision *self);
WardenVerdict             warden_decision_get_verdict     (WardenDecision *self);
/* The first reason that asks (or denies): what the user is shown. */
const char               *warden_decision_get_reason      (WardenDecision *self);
guint                     warden_decision_get_n_parts     (WardenDecision *self);
const WardenDecisionPart *warden_decision_get_part        (WardenDecision *self,
                                                           guint           index);
/* "Always allow" suggestions, one per part that asked, without repeats:
 * together they cover every asking part, unless get_uncovered() says one. */
const char * const       *warden_decision_get_suggestions (WardenDecision *self);
/* The first part that asks and that no pattern can cover (a shell running
 * what is piped into it, eval of a variable, a command name that expands),
 * or NULL: "always allow" cannot make this command run without asking. */
const WardenDecisionPart *warden_decision_get_uncovered   (WardenDecision *self);
/* Whether the line asks as a whole (it cannot be parsed, a construct in it
 * asks, it runs with environment variables): no pattern can change that. */
gboolean                  warden_decision_get_line_asks   (WardenDecision *self);
void                      warden_decision_set_line_asks   (WardenDecision *self);
/* The first part that asks because it matches one of the profile's ask
 * rules (its @pattern), or NULL. It is uncovered too: no answer makes it run
 * without asking next time. */
const WardenDecisionPart *warden_decision_get_asked_by_rule (WardenDecision *self);
char                     *warden_decision_to_json         (WardenDecision *self);

/* For the policy engine. */
WardenDecision           *warden_decision_new             (void);
void                      warden_decision_add_part        (WardenDecision *self,
                                                           const char     *text,
                                                           WardenOrigin    origin,
                                                           WardenVerdict   verdict,
                                                           const char     *pattern,
                                                           const char     *reason,
                                                           const char     *suggestion);
/* The same, taking @text, @reason and @suggestion (the engine's hot path). */
void                      warden_decision_take_part       (WardenDecision *self,
                                                           char           *text,
                                                           WardenOrigin    origin,
                                                           WardenVerdict   verdict,
                                                           const char     *pattern,
                                                           char           *reason,
                                                           char           *suggestion);
/* The same, for a @reason and a @suggestion made only of the words of
 * @text, valid patterns and valid constants: when @text is valid UTF-8, so
 * are they, and they are not checked again. With @pattern_in_reason,
 * @pattern lies in @reason's allocation (after its NUL) and is kept there,
 * not copied. With @text_valid, the caller knows @text is valid UTF-8. With
 * @text_in_argv, @text lies in the block of the argv that
 * warden_decision_take_part_argv() gives the part next, and goes with it. */
void                      warden_decision_take_part_derived (WardenDecision *self,
                                                             char           *text,
                                                             WardenOrigin    origin,
                                                             WardenVerdict   verdict,
                                                             const char     *pattern,
                                                             char           *reason,
                                                             char           *suggestion,
                                                             gboolean        pattern_in_reason,
                                                             gboolean        text_valid,
                                                             gboolean        text_in_argv);
/* Room for @size bytes that live as long as @self and need no freeing: the
 * engine makes its reasons and suggestions there, then gives them to the
 * part as it gives others (the decision knows its own). */
char                     *warden_decision_alloc           (WardenDecision *self,
                                                           gsize           size);
/* @runner is interned. */
void                      warden_decision_set_part_runner (WardenDecision *self,
                                                           guint           index,
                                                           const char     *runner);
/* Takes @argv, in one block as the shell parser makes it (freed with g_free). */
void                      warden_decision_take_part_argv  (WardenDecision *self,
                                                           guint           index,
                                                           char          **argv);
void                      warden_decision_set_result      (WardenDecision *self,
                                                           WardenVerdict   verdict,
                                                           const char     *reason);
/* The same for a reason that lives as long as the program and is valid
 * UTF-8 (a translated constant): kept, not copied. */
void                      warden_decision_set_result_static (WardenDecision *self,
                                                             WardenVerdict   verdict,
                                                             const char     *reason);

/* @s with control and format characters escaped (\n, \x1b, \u202e): commands
 * come from a model, and a carriage return or an escape sequence in what is
 * shown could hide part of the command from the user. NULL gives "". */
char                     *warden_decision_printable       (const char     *s);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenDecision, warden_decision_unref)

G_END_DECLS
