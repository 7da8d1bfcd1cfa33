/* warden-diff.c: what a write or an edit changes in a file, line by line
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Myers' O(ND) difference algorithm on lines, after the common start and
 * end are set aside (most edits touch a few lines of a long file). Past
 * MAX_EDITS differences the rest is shown as removed and added as a block:
 * still a true diff, only not the shortest, and the work stays bounded.
 */

#include "config.h"

#include <glib/gi18n.h>

#include "warden-diff.h"

#include <string.h>

#define MAX_EDITS 1000

typedef struct
{
  const char *p;
  gsize       len;   /* with its newline, if it has one */
  guint       hash;
} Line;

typedef enum
{
  OP_EQUAL,
  OP_DELETE,
  OP_INSERT,
} Op;

static GArray *
split_lines (const char *text,
             gsize       length)
{
  GArray *lines = g_array_new (FALSE, FALSE, sizeof (Line));
  gsize start = 0;

  while (start < length)
    {
      const char *nl = memchr (text + start, '\n', length - start);
      gsize end = nl != NULL ? (gsize) (nl - text) + 1 : length;
      Line line = { text + start, end - start, 5381 };

      for (gsize i = 0; i < line.len; i++)
        line.hash = line.hash * 33 + (guchar) line.p[i];
      g_array_append_val (lines, line);
      start = end;
    }
  return lines;
}

static inline gboolean
line_equal (const Line *a,
            const Line *b)
{
  return a->hash == b->hash && a->len == b->len && memcmp (a->p, b->p, a->len) == 0;
}

/* Appends to @ops (in reverse order) the shortest edit from @a to @b, or a
 * block replacement past MAX_EDITS. */
static void
myers (const Line *a,
       int         n,
       const Line *b,
       int         m,
       GArray     *ops)
{
  int max = MIN (n + m, MAX_EDITS);
  int offset = max + 1;
  g_autofree int *v = g_new0 (int, 2 * max + 3);
  g_autoptr(GPtrArray) trace = g_ptr_array_new_with_free_func (g_free);
  int found = -1;

  for (int d = 0; d <= max && found < 0; d++)
    {
      /* v for k in [-d-1, d+1], as it was before step d. */
      g_ptr_array_add (trace, g_memdup2 (v + offset - d - 1, sizeof (int) * (2 * d + 3)));
      for (int k = -d; k <= d; k += 2)
        {
          int x, y;

          if (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]))
            x = v[offset + k + 1];
          else
            x = v[offset + k - 1] + 1;
          y = x - k;
          while (x < n && y < m && line_equal (&a[x], &b[y]))
            x++, y++;
          v[offset + k] = x;
          if (x >= n && y >= m)
            {
              found = d;
              break;
            }
        }
    }

  if (found < 0)
    {
      Op op = OP_INSERT;

      for (int i = 0; i < m; i++)
        g_array_append_val (ops, op);
      op = OP_DELETE;
      for (int i = 0; i < n; i++)
        g_array_append_val (ops, op);
      return;
    }

  for (int d = found, x = n, y = m; d >= 0; d--)
    {
      const int *tv = g_ptr_array_index (trace, d);
      int k = x - y;
      int prev_k, prev_x, prev_y;
      Op op;

#define TV(kk) tv[(kk) + d + 1]
      if (k == -d || (k != d && TV (k - 1) < TV (k + 1)))
        prev_k = k + 1;
      else
        prev_k = k - 1;
      prev_x = d == 0 ? 0 : TV (prev_k);
#undef TV
      prev_y = prev_x - prev_k;
      op = OP_EQUAL;
      while (x > prev_x && y > prev_y)
        {
          g_array_append_val (ops, op);
          x--, y--;
        }
      if (d > 0)
        {
          op = x == prev_x ? OP_INSERT : OP_DELETE;
          g_array_append_val (ops, op);
        }
      x = prev_x;
      y = prev_y;
    }
}

static void
append_line (GString    *out,
             char        mark,
             const Line *line)
{
  gboolean newline = line->len > 0 && line->p[line->len - 1] == '\n';

  g_string_append_c (out, mark);
  g_string_append_len (out, line->p, newline ? line->len - 1 : line->len);
  g_string_append_c (out, '\n');
  if (!newline)
    g_string_append (out, "\\ No newline at end of file\n");
}

static void
append_range (GString *out,
              guint    start,
              guint    count)
{
  /* As diff -u writes it: an empty range is at the line before it. */
  if (count == 1)
    g_string_append_printf (out, "%u", start + 1);
  else
    g_string_append_printf (out, "%u,%u", count == 0 ? start : start + 1, count);
}

static gboolean
is_text (const char *text,
         gsize       length)
{
  return memchr (text, '\0', length) == NULL && g_utf8_validate (text, length, NULL);
}

char *
warden_diff_note (WardenDiffResult result)
{
  switch (result)
    {
    case WARDEN_DIFF_BINARY:
      return g_strdup_printf ("\\ %s\n", _("Not text (binary, or not UTF-8): not compared"));
    case WARDEN_DIFF_TOO_LARGE:
      return g_strdup_printf ("\\ %s\n", _("Too large to compare (over 1 MiB)"));
    case WARDEN_DIFF_CHANGED:
    case WARDEN_DIFF_SAME:
    default:
      return g_strdup ("");
    }
}

char *
warden_diff_unified (const char       *old_text,
                     gssize            old_length,
                     const char       *new_text,
                     gssize            new_length,
                     WardenDiffResult *result)
{
  WardenDiffResult ignored;
  g_autoptr(GArray) a = NULL;
  g_autoptr(GArray) b = NULL;
  g_autoptr(GArray) ops = NULL;
  g_autofree guint *old_at = NULL;
  g_autofree guint *new_at = NULL;
  GString *out;
  gsize old_len, new_len;
  guint prefix = 0, suffix = 0, nops;

  if (result == NULL)
    result = &ignored;
  if (old_text == NULL)
    old_text = "", old_length = 0;
  if (new_text == NULL)
    new_text = "", new_length = 0;
  old_len = old_length < 0 ? strlen (old_text) : (gsize) old_length;
  new_len = new_length < 0 ? strlen (new_text) : (gsize) new_length;

  if (!is_text (old_text, old_len) || !is_text (new_text, new_len))
    {
      *result = WARDEN_DIFF_BINARY;
      return warden_diff_note (WARDEN_DIFF_BINARY);
    }
  if (old_len > WARDEN_DIFF_MAX_BYTES || new_len > WARDEN_DIFF_MAX_BYTES)
    {
      *result = WARDEN_DIFF_TOO_LARGE;
      return warden_diff_note (WARDEN_DIFF_TOO_LARGE);
    }

  a = split_lines (old_text, old_len);
  b = split_lines (new_text, new_len);
  if (a->len > WARDEN_DIFF_MAX_LINES || b->len > WARDEN_DIFF_MAX_LINES)
    {
      *result = WARDEN_DIFF_TOO_LARGE;
      return g_strdup_printf ("\\ %s\n", _("Too large to compare (over 20000 lines)"));
    }

  while (prefix < a->len && prefix < b->len &&
         line_equal (&g_array_index (a, Line, prefix), &g_array_index (b, Line, prefix)))
    prefix++;
  while (suffix < a->len - prefix && suffix < b->len - prefix &&
         line_equal (&g_array_index (a, Line, a->len - 1 - suffix),
                     &g_array_index (b, Line, b->len - 1 - suffix)))
    suffix++;
  if (prefix == a->len && prefix == b->len)
    {
      *result = WARDEN_DIFF_SAME;
      return g_strdup ("");
    }

  /* The script, built backwards: the common end, the middle, the start. */
  ops = g_array_new (FALSE, FALSE, sizeof (Op));
  {
    Op op = OP_EQUAL;

    for (guint i = 0; i < suffix; i++)
      g_array_append_val (ops, op);
    myers (&g_array_index (a, Line, prefix), a->len - prefix - suffix,
           &g_array_index (b, Line, prefix), b->len - prefix - suffix, ops);
    for (guint i = 0; i < prefix; i++)
      g_array_append_val (ops, op);
  }
  nops = ops->len;
  for (guint i = 0; i < nops / 2; i++)
    {
      Op t = g_array_index (ops, Op, i);

      g_array_index (ops, Op, i) = g_array_index (ops, Op, nops - 1 - i);
      g_array_index (ops, Op, nops - 1 - i) = t;
    }

  /* Where each step starts, in each file. */
  old_at = g_new (guint, nops + 1);
  new_at = g_new (guint, nops + 1);
  old_at[0] = new_at[0] = 0;
  for (guint i = 0; i < nops; i++)
    {
      Op op = g_array_index (ops, Op, i);

      old_at[i + 1] = old_at[i] + (op != OP_INSERT);
      new_at[i + 1] = new_at[i] + (op != OP_DELETE);
    }

  out = g_string_new (NULL);
  for (guint i = 0; i < nops;)
    {
      guint start, end;

      if (g_array_index (ops, Op, i) == OP_EQUAL)
        {
          i++;
          continue;
        }
      start = i > WARDEN_DIFF_CONTEXT ? i - WARDEN_DIFF_CONTEXT : 0;
      end = i;
      /* One hunk while the unchanged lines between changes would overlap
       * as context. */
      for (;;)
        {
          guint run = 0;

          while (end < nops && g_array_index (ops, Op, end) != OP_EQUAL)
            end++;
          while (end + run < nops && g_array_index (ops, Op, end + run) == OP_EQUAL)
            run++;
          if (end + run < nops && run <= 2 * WARDEN_DIFF_CONTEXT)
            end += run;
          else
            break;
        }
      end = MIN (end + WARDEN_DIFF_CONTEXT, nops);

      g_string_append (out, "@@ -");
      append_range (out, old_at[start], old_at[end] - old_at[start]);
      g_string_append (out, " +");
      append_range (out, new_at[start], new_at[end] - new_at[start]);
      g_string_append (out, " @@\n");
      for (guint k = start; k < end; k++)
        switch (g_array_index (ops, Op, k))
          {
          case OP_EQUAL:
            append_line (out, ' ', &g_array_index (b, Line, new_at[k]));
            break;
          case OP_DELETE:
            append_line (out, '-', &g_array_index (a, Line, old_at[k]));
            break;
          case OP_INSERT:
          default:
            append_line (out, '+', &g_array_index (b, Line, new_at[k]));
            break;
          }
      i = end;
    }

  *result = WARDEN_DIFF_CHANGED;
  return g_string_free (out, FALSE);
}

WardenDiffLineKind
warden_diff_line_kind (const char *line)
{
  if (line == NULL)
    return WARDEN_DIFF_LINE_CONTEXT;
  switch (line[0])
    {
    case '+':
      return WARDEN_DIFF_LINE_ADDED;
    case '-':
      return WARDEN_DIFF_LINE_REMOVED;
    case '\\':
      return WARDEN_DIFF_LINE_NOTE;
    case '@':
      return g_str_has_prefix (line, "@@") ? WARDEN_DIFF_LINE_HUNK : WARDEN_DIFF_LINE_CONTEXT;
    default:
      return WARDEN_DIFF_LINE_CONTEXT;
    }
}

void
warden_diff_count (const char *diff,
                   guint      *added,
                   guint      *removed)
{
  guint plus = 0, minus = 0;

  for (const char *p = diff; p != NULL && *p != '\0';)
    {
      const char *nl = strchr (p, '\n');

      if (*p == '+')
        plus++;
      else if (*p == '-')
        minus++;
      p = nl != NULL ? nl + 1 : NULL;
    }
  if (added != NULL)
    *added = plus;
  if (removed != NULL)
    *removed = minus;
}
