/* warden-pattern.c: seed-compatible glob patterns and indexed pattern sets
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-policy"

#include <glib/gi18n.h>
#include <string.h>

#include "warden-pattern.h"
#include "warden-policy-types.h"

gboolean
warden_pattern_validate (const char  *pattern,
                         GError     **error)
{
  gsize len;

  if (pattern == NULL || pattern[0] == '\0')
    {
      g_set_error_literal (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID,
                           "the pattern is empty");
      return FALSE;
    }

  len = strlen (pattern);
  if (len > WARDEN_PATTERN_MAX_LENGTH)
    {
      g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID,
                   "the pattern is %" G_GSIZE_FORMAT " bytes long; the limit is %d",
                   len, WARDEN_PATTERN_MAX_LENGTH);
      return FALSE;
    }

  if (!g_utf8_validate (pattern, len, NULL))
    {
      g_set_error_literal (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID,
                           "the pattern is not valid UTF-8");
      return FALSE;
    }

  for (gsize i = 0; i < len; i++)
    if ((guchar) pattern[i] < 0x20 || pattern[i] == 0x7f)
      {
        g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID,
                     "the pattern contains a control character (byte %" G_GSIZE_FORMAT ")", i);
        return FALSE;
      }

  return TRUE;
}

char *
warden_pattern_dup_separator_problem (const char *pattern)
{
  const char *found = NULL;

  if (pattern == NULL)
    return NULL;
  if (strchr (pattern, '\n') != NULL || strchr (pattern, '\r') != NULL)
    return g_strdup (_("A pattern is one line: each line of a script is a command of its own, "
                       "checked by itself. Add a pattern for each command."));
  if (strstr (pattern, "&&") != NULL)
    found = "&&";
  else if (strstr (pattern, "||") != NULL)
    found = "||";
  else if (strchr (pattern, ';') != NULL)
    found = ";";
  else
    /* ">|" is a redirection, part of one command's text. */
    for (const char *p = strchr (pattern, '|'); p != NULL; p = strchr (p + 1, '|'))
      if (p == pattern || p[-1] != '>')
        {
          found = "|";
          break;
        }
  if (found == NULL)
    return NULL;
  /* Translators: %s is a shell separator: ";", "|", "&&" or "||" */
  return g_strdup_printf (_("“%s” separates commands, and each command is checked by itself "
                            "against the patterns, so this pattern never matches a command line "
                            "like it. Add a pattern for each command."), found);
}

/* Holes are ordinary bytes here that no literal of a valid pattern equals,
 * so only a '*' can take them: then any filling matches as well. */
static gboolean
match_from (const char *pattern,
            gsize       m,
            const char *text,
            gsize       n,
            gsize       from)
{
  gsize p = from, t = from;
  gssize star = -1;
  gsize mark = 0;

  while (t < n)
    {
      if (p < m && pattern[p] == '*')
        {
          /* A last '*' takes the rest, whatever it is: most patterns end so. */
          if (p + 1 == m)
            return TRUE;
          star = p++;
          mark = t;
        }
      else if (p < m && pattern[p] == text[t])
        {
          p++;
          t++;
        }
      else if (star >= 0)
        {
          p = star + 1;
          t = ++mark;
        }
      else
        return FALSE;
    }

  while (p < m && pattern[p] == '*')
    p++;

  return p == m;
}

static gboolean
match_len (const char *pattern,
           gsize       m,
           const char *text,
           gsize       n)
{
  return match_from (pattern, m, text, n, 0);
}

gboolean
warden_pattern_match (const char *pattern,
                      const char *text,
                      gsize       n)
{
  return match_len (pattern, strlen (pattern), text, n);
}

/* Is there a filling of the holes that matches? A hole can stand for any
 * run of the pattern's literals, so it takes any run of the pattern. */
gboolean
warden_pattern_match_any (const char *pattern,
                          const char *text,
                          gsize       n)
{
  gsize m = strlen (pattern);
  guint8 stack[2][256];
  g_autofree guint8 *heap = NULL;
  guint8 *cur, *next;

  if (memchr (text, WARDEN_PATTERN_HOLE, n) == NULL)
    return match_len (pattern, m, text, n);

  /* Before the pattern's first '*' and the text's first hole, only the
   * same bytes match: most patterns of a list differ there. */
  for (gsize k = 0; k < m && k < n && pattern[k] != '*' && text[k] != WARDEN_PATTERN_HOLE; k++)
    if (pattern[k] != text[k])
      return FALSE;

  /* Two rows of the table, on the stack for any pattern of a profile. */
  if (m + 1 <= sizeof stack[0])
    {
      cur = stack[0];
      next = stack[1];
    }
  else
    {
      heap = g_malloc (2 * (m + 1));
      cur = heap;
      next = heap + m + 1;
    }
  memset (cur, 0, m + 1);
  cur[0] = TRUE;

  for (gsize t = 0; ; t++)
    {
      gssize first = -1;
      guint8 *swap;

      /* A star may match nothing. */
      for (gsize i = 0; i < m; i++)
        if (cur[i] && pattern[i] == '*')
          cur[i + 1] = TRUE;

      if (t == n)
        break;

      memset (next, 0, m + 1);
      for (gsize i = 0; i <= m; i++)
        {
          if (!cur[i])
            continue;
          if (first < 0)
            first = i;
          if (i < m && pattern[i] == '*')
            next[i] = TRUE;
          else if (i < m && pattern[i] == text[t])
            next[i + 1] = TRUE;
        }
      if (first < 0)
        return FALSE;
      if (text[t] == WARDEN_PATTERN_HOLE)
        for (gsize j = first; j <= m; j++)
          next[j] = TRUE;

      swap = cur;
      cur = next;
      next = swap;
    }

  return cur[m];
}

/* Patterns are indexed by their first word when it holds no '*': a text can
 * only match those whose first word is its own. The rest are tried always. */
typedef struct
{
  char  *pattern;
  gsize  len;
  gsize  literal;  /* how many bytes come before the first '*' */
  guint  order;
} Entry;

/* The patterns whose first word is @key, in the order added. */
typedef struct
{
  char   *key;      /* NULL: an empty slot */
  gsize   key_len;
  guint   hash;
  GArray *entries;  /* of Entry */
} Slot;

struct _WardenPatternSet
{
  /* first word → its patterns: open addressing, at most half full. Every
   * part of every decision is looked up here, several times; hashing the
   * first word while finding its end, with no copy of it, is a fraction
   * of a GHashTable lookup. */
  Slot    *slots;
  guint    n_slots;   /* a power of two, or 0 */
  guint    n_keys;
  GArray  *wild;      /* of Entry */
  guint    size;
  /* The first bytes of the keys (0 for an empty key): a text whose first
   * byte is none of them needs no lookup, which is most texts against a
   * deny or ask list. */
  guint64  first_bytes[4];
  /* The same of @wild's first bytes; @wild_any: one starts with '*'. A
   * pattern's bytes before its first '*' must be the text's own (a hole in
   * the text aside), so most texts need no try of @wild at all. */
  guint64  wild_first_bytes[4];
  gboolean wild_any;
};

static inline guchar
key_byte (const char *key,
          gsize       key_len)
{
  return key_len > 0 ? (guchar) key[0] : 0;
}

/* FNV-1a of @text's first word, whose length goes to @key_len. */
static inline guint
hash_first_word (const char *text,
                 gsize       n,
                 gsize      *key_len)
{
  guint h = 2166136261u;
  gsize i = 0;

  for (; i < n && text[i] != ' '; i++)
    h = (h ^ (guchar) text[i]) * 16777619u;
  *key_len = i;
  return h;
}

static Slot *
find_slot (const WardenPatternSet *set,
           const char             *key,
           gsize                   key_len,
           guint                   hash)
{
  guint mask = set->n_slots - 1;

  for (guint i = hash & mask; ; i = (i + 1) & mask)
    {
      Slot *slot = &set->slots[i];

      if (slot->key == NULL ||
          (slot->hash == hash && slot->key_len == key_len &&
           memcmp (slot->key, key, key_len) == 0))
        return slot;
    }
}

static void
entries_free (GArray *entries)
{
  for (guint i = 0; i < entries->len; i++)
    g_free (g_array_index (entries, Entry, i).pattern);
  g_array_unref (entries);
}

WardenPatternSet *
warden_pattern_set_new (void)
{
  WardenPatternSet *set = g_new0 (WardenPatternSet, 1);

  set->wild = g_array_new (FALSE, FALSE, sizeof (Entry));
  return set;
}

void
warden_pattern_set_free (WardenPatternSet *set)
{
  if (set == NULL)
    return;
  for (guint i = 0; i < set->n_slots; i++)
    if (set->slots[i].key != NULL)
      {
        g_free (set->slots[i].key);
        entries_free (set->slots[i].entries);
      }
  g_free (set->slots);
  entries_free (set->wild);
  g_free (set);
}

/* Doubles the table (from 16 slots), keeping it at most half full. */
static void
grow_slots (WardenPatternSet *set)
{
  Slot *old = set->slots;
  guint n_old = set->n_slots;

  set->n_slots = n_old ? n_old * 2 : 16;
  set->slots = g_new0 (Slot, set->n_slots);
  for (guint i = 0; i < n_old; i++)
    if (old[i].key != NULL)
      *find_slot (set, old[i].key, old[i].key_len, old[i].hash) = old[i];
  g_free (old);
}

guint
warden_pattern_set_get_size (WardenPatternSet *set)
{
  return set->size;
}

void
warden_pattern_set_add (WardenPatternSet *set,
                        const char       *pattern)
{
  gsize key_len;
  guint hash = hash_first_word (pattern, strlen (pattern), &key_len);
  Entry e = { g_strdup (pattern), strlen (pattern), strcspn (pattern, "*"), set->size++ };
  guchar first = key_byte (pattern, key_len);
  Slot *slot;

  if (memchr (pattern, '*', key_len) != NULL)
    {
      g_array_append_val (set->wild, e);
      if (pattern[0] == '*')
        set->wild_any = TRUE;
      else
        set->wild_first_bytes[first / 64] |= G_GUINT64_CONSTANT (1) << (first % 64);
      return;
    }

  if (2 * (set->n_keys + 1) > set->n_slots)
    grow_slots (set);
  slot = find_slot (set, pattern, key_len, hash);
  if (slot->key == NULL)
    {
      slot->key = g_strndup (pattern, key_len);
      slot->key_len = key_len;
      slot->hash = hash;
      slot->entries = g_array_new (FALSE, FALSE, sizeof (Entry));
      set->n_keys++;
    }
  g_array_append_val (slot->entries, e);
  set->first_bytes[first / 64] |= G_GUINT64_CONSTANT (1) << (first % 64);
}

/* @known: how many first bytes of @text every pattern of @entries has too
 * (a slot's first word). */
static const Entry *
first_match (GArray     *entries,
             const char *text,
             gsize       n,
             gsize       known,
             gboolean    any_filling)
{
  if (entries == NULL)
    return NULL;

  for (guint i = 0; i < entries->len; i++)
    {
      const Entry *e = &g_array_index (entries, Entry, i);

      if (any_filling)
        {
          if (warden_pattern_match_any (e->pattern, text, n))
            return e;
          continue;
        }
      /* A set holds many patterns of one program ("git status *", "git diff
       * *" …): most differ from the text before their first '*', and most
       * at the first byte after the program's name. */
      if (e->literal > n)
        continue;
      if (e->literal > known)
        {
          gsize q = known + 1 < e->literal ? known + 1 : known;

          if (e->pattern[q] != text[q] ||
              memcmp (e->pattern + known, text + known, e->literal - known) != 0)
            continue;
        }
      /* Up to the first '*' the two are the same bytes. */
      if (match_from (e->pattern, e->len, text, n, e->literal))
        return e;
    }
  return NULL;
}

const char *
warden_pattern_set_lookup (WardenPatternSet *set,
                           const char       *text,
                           gsize             n,
                           gboolean          any_filling)
{
  const Entry *a = NULL, *b;

  /* Many profiles have no deny patterns, and every part is looked up there. */
  if (set->size == 0)
    return NULL;

  if (set->n_keys > 0)
    {
      guchar first = n > 0 && text[0] != ' ' ? (guchar) text[0] : 0;

      if (set->first_bytes[first / 64] & (G_GUINT64_CONSTANT (1) << (first % 64)))
        {
          gsize key_len;
          guint hash = hash_first_word (text, n, &key_len);
          Slot *slot = find_slot (set, text, key_len, hash);

          if (slot->key != NULL)
            a = first_match (slot->entries, text, n, key_len, any_filling);
        }
    }
  /* A pattern of @wild that does not start with '*' matches only a text
   * that starts with its first byte, or (any filling) with a hole. */
  b = NULL;
  if (set->wild->len > 0)
    {
      guchar c = n > 0 ? (guchar) text[0] : 0;

      if (set->wild_any ||
          (n > 0 && (((set->wild_first_bytes[c / 64] >> (c % 64)) & 1) ||
                     (any_filling && c == WARDEN_PATTERN_HOLE))))
        b = first_match (set->wild, text, n, 0, any_filling);
    }

  if (a && b)
    return a->order < b->order ? a->pattern : b->pattern;
  return a ? a->pattern : b ? b->pattern : NULL;
}
