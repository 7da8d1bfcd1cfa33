/* warden-spelling.h: deny patterns against every spelling of an option
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A deny pattern names options the way its author spelt them ("tree *-o *",
 * "rm -rf /…", "git push --force*"); programs take the same options in other
 * spellings: combined ("-ao"), with the argument attached ("-oFILE",
 * "--output=FILE") or apart, abbreviated ("--forc"), after the operands
 * ("rm / -rf"), past a "--", or among more options ("rm -rfv /").
 *
 * A set answers two questions about the text of a simple command. "Denied"
 * when the text matches a pattern once "--opt=value" reads "--opt value" in
 * both: every program reads those alike. "May be denied" when, with the
 * options taken apart and compared as a set, the text could be what a
 * pattern names: without the program's option table the engine cannot tell
 * "-ao" (-a and -o) from "-a o", so the line asks. */
typedef struct _WardenSpellingSet WardenSpellingSet;

WardenSpellingSet *warden_spelling_set_new         (void);
void               warden_spelling_set_free        (WardenSpellingSet *set);
void               warden_spelling_set_add         (WardenSpellingSet *set,
                                                    const char        *pattern);
/* The first pattern (in the order added) that @text matches with "=" read
 * as a space in long options, when that reading is what makes it match;
 * NULL otherwise. Holes in @text must match for every filling. */
const char        *warden_spelling_set_lookup      (WardenSpellingSet *set,
                                                    const char        *text,
                                                    gsize              length);
/* The first pattern whose command @text may be in another spelling of its
 * options, or NULL. Holes in @text may stand for any words. */
const char        *warden_spelling_set_lookup_any  (WardenSpellingSet *set,
                                                    const char        *text,
                                                    gsize              length);

/* FALSE when both lookups above are sure to give NULL for @text: no
 * pattern names its command, nor may any other start as it does. Cheaper
 * than either lookup, for the many texts that no deny pattern is about. */
gboolean           warden_spelling_set_may_hold    (WardenSpellingSet *set,
                                                    const char        *text,
                                                    gsize              length);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenSpellingSet, warden_spelling_set_free)

G_END_DECLS
