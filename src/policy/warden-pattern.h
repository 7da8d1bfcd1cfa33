/* warden-pattern.h: seed-compatible glob patterns and indexed pattern sets
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* In a text to match, this byte stands for a "hole": a place where the
 * sandbox substitutes text the engine cannot know (the arguments xargs
 * appends, the file names find puts for {}). NUL never reaches matching:
 * commands containing it ask before they are split. */
#define WARDEN_PATTERN_HOLE '\x01'

#define WARDEN_PATTERN_MAX_LENGTH 4096

typedef struct _WardenPatternSet WardenPatternSet;

gboolean          warden_pattern_validate       (const char        *pattern,
                                                 GError           **error);
/* Why @pattern will not match the command line it looks like, or NULL: it
 * holds a separator (";", "|", "&&", "||", a newline), while a pattern is
 * matched against one simple command at a time ("ls && make" is the two
 * commands "ls" and "make"). A sentence for the user, translated. */
char             *warden_pattern_dup_separator_problem (const char  *pattern);

/* TRUE if @pattern matches @text for every filling of its holes. */
gboolean          warden_pattern_match          (const char        *pattern,
                                                 const char        *text,
                                                 gsize              text_len);
/* TRUE if @pattern matches @text for at least one filling of its holes. */
gboolean          warden_pattern_match_any      (const char        *pattern,
                                                 const char        *text,
                                                 gsize              text_len);

WardenPatternSet *warden_pattern_set_new        (void);
void              warden_pattern_set_free       (WardenPatternSet  *set);
void              warden_pattern_set_add        (WardenPatternSet  *set,
                                                 const char        *pattern);
guint             warden_pattern_set_get_size   (WardenPatternSet  *set);
/* Returns the first pattern (in the order added) that matches, or NULL. With
 * @any_filling, holes may take any text (used for deny); otherwise every
 * filling must match (used for allow). */
const char       *warden_pattern_set_lookup     (WardenPatternSet  *set,
                                                 const char        *text,
                                                 gsize              text_len,
                                                 gboolean           any_filling);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenPatternSet, warden_pattern_set_free)

G_END_DECLS
