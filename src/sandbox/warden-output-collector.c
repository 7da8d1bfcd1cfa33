/* warden-output-collector.c: keeps the start and the end of a command's output
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-sandbox"

#include <string.h>

#include "warden-output-collector.h"

/* Bytes are kept, characters are counted at the end: UTF-8 takes at most
 * four bytes a character, so four bytes a character always suffice. */
struct _WardenOutputCollector
{
  gsize    max_chars;
  gsize    head_cap;
  gsize    tail_cap;
  GString *head;
  char    *tail;       /* a ring of tail_cap bytes */
  gsize    tail_len;
  gsize    tail_pos;   /* where the next byte goes */
  guint64  total;
};

WardenOutputCollector *
warden_output_collector_new (gsize max_chars)
{
  WardenOutputCollector *self = g_new0 (WardenOutputCollector, 1);

  self->max_chars = MAX (max_chars, 10);
  self->head_cap = (self->max_chars / 5) * 4;
  self->tail_cap = (self->max_chars - self->max_chars / 5) * 4;
  self->head = g_string_new (NULL);
  return self;
}

void
warden_output_collector_free (WardenOutputCollector *self)
{
  if (self == NULL)
    return;
  g_string_free (self->head, TRUE);
  g_free (self->tail);
  g_free (self);
}

guint64
warden_output_collector_get_total (WardenOutputCollector *self)
{
  return self->total;
}

void
warden_output_collector_append (WardenOutputCollector *self,
                                const char            *data,
                                gsize                  length)
{
  self->total += length;

  if (self->head->len < self->head_cap)
    {
      gsize n = MIN (length, self->head_cap - self->head->len);

      g_string_append_len (self->head, data, n);
      data += n;
      length -= n;
    }
  if (length == 0)
    return;

  if (self->tail == NULL)
    self->tail = g_malloc (self->tail_cap);

  /* Only the last tail_cap bytes of a big chunk can survive. */
  if (length > self->tail_cap)
    {
      data += length - self->tail_cap;
      length = self->tail_cap;
    }
  while (length > 0)
    {
      gsize n = MIN (length, self->tail_cap - self->tail_pos);

      memcpy (self->tail + self->tail_pos, data, n);
      self->tail_pos = (self->tail_pos + n) % self->tail_cap;
      self->tail_len = MIN (self->tail_len + n, self->tail_cap);
      data += n;
      length -= n;
    }
}

/* The first @n characters of valid UTF-8 @s. */
static gsize
prefix_bytes (const char *s,
              gsize       n)
{
  const char *p = s;

  while (n-- > 0 && *p)
    p = g_utf8_next_char (p);
  return p - s;
}

char *
warden_output_collector_finish (WardenOutputCollector *self,
                                gboolean              *truncated)
{
  g_autoptr(GString) raw = g_string_new_len (self->head->str, self->head->len);
  g_autofree char *head = NULL;
  g_autofree char *tail = NULL;
  gsize head_chars = self->max_chars / 5;
  gsize tail_chars = self->max_chars - head_chars;
  guint64 dropped = self->total - self->head->len - self->tail_len;
  gsize start = (self->tail_pos + self->tail_cap - self->tail_len) % (self->tail_cap ? self->tail_cap : 1);
  g_autoptr(GString) rest = g_string_new (NULL);
  glong n_chars;

  for (gsize i = 0; i < self->tail_len; i++)
    g_string_append_c (rest, self->tail[(start + i) % self->tail_cap]);

  if (dropped == 0)
    {
      g_autofree char *all = NULL;

      g_string_append_len (raw, rest->str, rest->len);
      all = g_utf8_make_valid (raw->str, raw->len);
      n_chars = g_utf8_strlen (all, -1);
      if ((gsize) n_chars <= self->max_chars)
        {
          *truncated = FALSE;
          return g_steal_pointer (&all);
        }
      /* Too many characters though the bytes fit: cut by characters. */
      {
        const char *tail_start = g_utf8_offset_to_pointer (all, n_chars - tail_chars);

        head = g_strndup (all, prefix_bytes (all, head_chars));
        *truncated = TRUE;
        return g_strdup_printf ("%s\n[… %ld characters left out …]\n%s", head,
                                (long) (n_chars - head_chars - tail_chars), tail_start);
      }
    }

  /* Bytes were dropped between head and tail. The tail may start in the
   * middle of a character: skip continuation bytes. */
  {
    const char *t = rest->str;
    gsize tl = rest->len;
    g_autofree char *valid_head = g_utf8_make_valid (raw->str, raw->len);
    g_autofree char *valid_tail = NULL;
    glong tail_n;

    while (tl > 0 && ((guchar) *t & 0xc0) == 0x80)
      t++, tl--, dropped++;
    valid_tail = g_utf8_make_valid (t, tl);
    tail_n = g_utf8_strlen (valid_tail, -1);

    head = g_strndup (valid_head, prefix_bytes (valid_head, head_chars));
    tail = g_strdup ((gsize) tail_n > tail_chars
                     ? g_utf8_offset_to_pointer (valid_tail, tail_n - tail_chars)
                     : valid_tail);
    *truncated = TRUE;
    dropped = self->total - MIN (self->total, strlen (head) + strlen (tail));
    return g_strdup_printf ("%s\n[… %" G_GUINT64_FORMAT " bytes of output left out …]\n%s",
                            head, dropped, tail);
  }
}
