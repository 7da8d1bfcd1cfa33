/* warden-diff.h: what a write or an edit changes in a file, line by line
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Lines of unchanged text shown around each change. */
#define WARDEN_DIFF_CONTEXT 3
/* Beyond these, on either side, a file is not compared (the work and the
 * text shown would be out of measure for a chat card). */
#define WARDEN_DIFF_MAX_BYTES (1024 * 1024)
#define WARDEN_DIFF_MAX_LINES 20000

typedef enum
{
  WARDEN_DIFF_CHANGED,     /* the text is a unified diff with at least one hunk */
  WARDEN_DIFF_SAME,        /* nothing changes: the text is "" */
  WARDEN_DIFF_TOO_LARGE,   /* a side is over the limits: the text is one note */
  WARDEN_DIFF_BINARY,      /* a side is not UTF-8 text or holds NUL: the text is one note */
} WardenDiffResult;

/* What a view does with each line of a diff, by its first character. */
typedef enum
{
  WARDEN_DIFF_LINE_CONTEXT,  /* ' ' */
  WARDEN_DIFF_LINE_ADDED,    /* '+' */
  WARDEN_DIFF_LINE_REMOVED,  /* '-' */
  WARDEN_DIFF_LINE_HUNK,     /* "@@ -1,3 +1,4 @@" */
  WARDEN_DIFF_LINE_NOTE,     /* '\': "\ No newline at end of file", or why there is no diff */
} WardenDiffLineKind;

/* The unified diff (no file header lines) from @old_text to @new_text,
 * with WARDEN_DIFF_CONTEXT lines of context; NULL texts are empty (a file
 * that does not exist yet). The text of the lines is as the files hold it
 * (a view escapes it); a result other than CHANGED or SAME gives one note
 * line saying why there is no diff. Never NULL. */
char               *warden_diff_unified     (const char        *old_text,
                                             gssize             old_length,
                                             const char        *new_text,
                                             gssize             new_length,
                                             WardenDiffResult  *result);
/* The one note line for a file that is not compared (BINARY, TOO_LARGE:
 * one that could not even be read as text); "" for the others. */
char               *warden_diff_note        (WardenDiffResult   result);
/* How a line of a diff reads. */
WardenDiffLineKind  warden_diff_line_kind   (const char        *line);
/* Lines added and removed in @diff. */
void                warden_diff_count       (const char        *diff,
                                             guint             *added,
                                             guint             *removed);

G_END_DECLS
