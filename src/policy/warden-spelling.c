/* warden-spelling.c: deny patterns against every spelling of an option
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Two readings of a pattern and a text, both made of the words split at
 * spaces (the text of a simple command joins its words so).
 *
 * The "=" reading: "--opt=value" becomes "--opt value" in both, then the
 * ordinary glob match runs. getopt_long reads the two alike, so a match
 * denies.
 *
 * The bag reading, for patterns whose first word is literal: the pattern's
 * options are a set, each of which must be among the text's options, and its
 * other words (operands, stars) must match the text's other words in order,
 * where a word right after an option may be that option's argument and is
 * skipped if need be. The text's options are read every way a program might:
 * "-ao" holds -a and -o and may be "-a" with the argument "o"; "--forc" may
 * abbreviate "--force"; "--" ends the options. A pattern's short cluster of
 * up to three letters ("-rf") is a set of letters; a longer single-dash word
 * ("-delete", find's) is a word. A match asks: the engine does not know the
 * program's option table, so it cannot say which reading the program makes.
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-policy"

#include <string.h>

#include "warden-pattern.h"
#include "warden-spelling.h"

/* A pattern's cluster longer than this is a word of its own ("-delete"). */
#define MAX_CLUSTER 3
/* Option words a text keeps apart; past them it counts as holding any. */
#define STACK_WORDS 64

typedef enum
{
  OPT_SHORT,  /* -o, or one letter of -rf */
  OPT_LONG,   /* --force */
  OPT_WORD,   /* -delete */
} OptKind;

typedef struct
{
  OptKind     kind;
  char        letter;
  char       *name;     /* OPT_LONG: without "--"; OPT_WORD: with its "-" */
  gboolean    prefix;   /* a '*' followed it: longer names match too */
} Opt;

typedef struct
{
  char       *glob;     /* NULL: a star that spans any words */
} Item;

typedef struct
{
  char       *pattern;
  char       *equals;   /* the "=" reading, or NULL when it is the pattern */
  guint       order;
  gboolean    bag;      /* the first word is literal: the bag reading applies */
  GArray     *opts;     /* of Opt */
  GArray     *items;    /* of Item */
} Entry;

struct _WardenSpellingSet
{
  GPtrArray  *entries;  /* of Entry, in order */
  GHashTable *by_name;  /* first word → GPtrArray of Entry, borrowed */
  GPtrArray  *wild;     /* entries whose first word holds a '*' */
  gboolean    equals;   /* some pattern has an "=" reading of its own */
  /* The first bytes and lengths (mod 64) of the names in by_name: most
   * commands are no pattern's, and these say so without a lookup. */
  guint64     name_firsts;
  guint64     name_lengths;
  /* The same of @wild's first bytes (mod 64); @wild_any: one starts with
   * '*', which any first byte may meet. */
  guint64     wild_firsts;
  gboolean    wild_any;
};

static void
entry_free (gpointer data)
{
  Entry *e = data;

  for (guint i = 0; e->opts != NULL && i < e->opts->len; i++)
    g_free (g_array_index (e->opts, Opt, i).name);
  for (guint i = 0; e->items != NULL && i < e->items->len; i++)
    g_free (g_array_index (e->items, Item, i).glob);
  g_clear_pointer (&e->opts, g_array_unref);
  g_clear_pointer (&e->items, g_array_unref);
  g_free (e->pattern);
  g_free (e->equals);
  g_free (e);
}

WardenSpellingSet *
warden_spelling_set_new (void)
{
  WardenSpellingSet *set = g_new0 (WardenSpellingSet, 1);

  set->entries = g_ptr_array_new_with_free_func (entry_free);
  set->by_name = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                        (GDestroyNotify) g_ptr_array_unref);
  set->wild = g_ptr_array_new ();
  return set;
}

void
warden_spelling_set_free (WardenSpellingSet *set)
{
  if (set == NULL)
    return;
  g_hash_table_unref (set->by_name);
  g_ptr_array_unref (set->wild);
  g_ptr_array_unref (set->entries);
  g_free (set);
}

/* "--opt=value" as "--opt value" in every word of @text, stars before the
 * dashes allowed (a pattern's "*--output=*"). Returns NULL when nothing
 * changes. */
static char *
equals_reading (const char *text,
                gsize       length)
{
  char *copy = NULL;
  gsize i = 0;

  if (memchr (text, '=', length) == NULL)
    return NULL;
  while (i < length)
    {
      gsize start = i, end, core;

      /* The word's end, and its core after the leading "*": strspn()
       * would cost more than the word. */
      core = start;
      while (core < length && text[core] == '*')
        core++;
      i = core;
      while (i < length && text[i] != ' ')
        i++;
      end = i;
      i++;
      if (core + 2 < end && text[core] == '-' && text[core + 1] == '-' && text[core + 2] != '=')
        {
          const char *eq = memchr (text + core + 2, '=', end - core - 2);

          if (eq != NULL)
            {
              if (copy == NULL)
                copy = g_strndup (text, length);
              copy[eq - text] = ' ';
            }
        }
    }
  return copy;
}

static gboolean
is_cluster (const char *core,
            gsize       len)
{
  if (len < 2 || len > MAX_CLUSTER + 1 || core[0] != '-' || core[1] == '-')
    return FALSE;
  for (gsize k = 1; k < len; k++)
    if (!g_ascii_isalnum (core[k]))
      return FALSE;
  return TRUE;
}

static void
add_star (GArray *items)
{
  Item star = { NULL };

  if (items->len == 0 || g_array_index (items, Item, items->len - 1).glob != NULL)
    g_array_append_val (items, star);
}

/* The bag reading of one word of a pattern. */
static void
compile_word (Entry      *e,
              const char *word,
              gsize       len)
{
  gsize lead = strspn (word, "*");
  gsize trail = 0;
  const char *core = word + lead;
  gsize core_len;

  if (lead == len)
    {
      add_star (e->items);
      return;
    }
  while (trail < len - lead && word[len - 1 - trail] == '*')
    trail++;
  core_len = len - lead - trail;

  /* An option, unless a star inside makes it a glob over one word. */
  if (core_len >= 2 && core[0] == '-' && memchr (core, '*', core_len) == NULL &&
      !(core_len == 2 && core[1] == '-'))
    {
      Opt opt = { 0 };

      if (lead > 0)
        add_star (e->items);
      if (core[1] == '-')
        {
          const char *eq = memchr (core, '=', core_len);
          gsize name_len = (eq != NULL ? (gsize) (eq - core) : core_len) - 2;

          opt.kind = OPT_LONG;
          opt.name = g_strndup (core + 2, name_len);
          opt.prefix = trail > 0 && eq == NULL;
          g_array_append_val (e->opts, opt);
          if (eq != NULL && eq + 1 < core + core_len)
            {
              Item value = { g_strndup (eq + 1, core + core_len - eq - 1 + trail) };

              g_array_append_val (e->items, value);
            }
        }
      else if (is_cluster (core, core_len))
        for (gsize k = 1; k < core_len; k++)
          {
            opt.kind = OPT_SHORT;
            opt.letter = core[k];
            opt.prefix = trail > 0 && k + 1 == core_len;
            g_array_append_val (e->opts, opt);
          }
      else
        {
          opt.kind = OPT_WORD;
          opt.name = g_strndup (core, core_len);
          opt.prefix = trail > 0;
          g_array_append_val (e->opts, opt);
        }
      if (trail > 0)
        add_star (e->items);
      return;
    }

  /* "--" in a pattern ends options as it does in a text: nothing to match. */
  if (core_len == 2 && core[0] == '-' && core[1] == '-' && lead == 0 && trail == 0)
    return;

  if (lead > 0)
    add_star (e->items);
  {
    Item item = { g_strndup (word, len) };

    g_array_append_val (e->items, item);
  }
  if (trail > 0)
    add_star (e->items);
}

void
warden_spelling_set_add (WardenSpellingSet *set,
                         const char        *pattern)
{
  Entry *e = g_new0 (Entry, 1);
  gsize len = strlen (pattern);
  gsize name_len = strcspn (pattern, " ");

  e->pattern = g_strdup (pattern);
  e->equals = equals_reading (pattern, len);
  e->order = set->entries->len;
  g_ptr_array_add (set->entries, e);
  if (e->equals != NULL)
    set->equals = TRUE;

  if (memchr (pattern, '*', name_len) != NULL || name_len == 0)
    {
      g_ptr_array_add (set->wild, e);
      if (pattern[0] == '*')
        set->wild_any = TRUE;
      else
        set->wild_firsts |= G_GUINT64_CONSTANT (1) << ((guchar) pattern[0] % 64);
      return;
    }

  e->bag = TRUE;
  e->opts = g_array_new (FALSE, FALSE, sizeof (Opt));
  e->items = g_array_new (FALSE, FALSE, sizeof (Item));
  for (gsize i = name_len; i < len;)
    {
      gsize start, end;

      while (i < len && pattern[i] == ' ')
        i++;
      start = i;
      while (i < len && pattern[i] != ' ')
        i++;
      end = i;
      if (end > start)
        compile_word (e, pattern + start, end - start);
    }

  set->name_firsts |= G_GUINT64_CONSTANT (1) << ((guchar) pattern[0] % 64);
  set->name_lengths |= G_GUINT64_CONSTANT (1) << (name_len % 64);
  {
    g_autofree char *name = g_strndup (pattern, name_len);
    GPtrArray *list = g_hash_table_lookup (set->by_name, name);

    if (list == NULL)
      {
        list = g_ptr_array_new ();
        g_hash_table_insert (set->by_name, g_steal_pointer (&name), list);
      }
    g_ptr_array_add (list, e);
  }
}

static GPtrArray *
entries_named (WardenSpellingSet *set,
               const char        *name,
               gsize              len)
{
  char key[128];

  if (len == 0 || len >= sizeof key ||
      !(set->name_firsts & (G_GUINT64_CONSTANT (1) << ((guchar) name[0] % 64))) ||
      !(set->name_lengths & (G_GUINT64_CONSTANT (1) << (len % 64))))
    return NULL;
  memcpy (key, name, len);
  key[len] = '\0';
  return g_hash_table_lookup (set->by_name, key);
}

const char *
warden_spelling_set_lookup (WardenSpellingSet *set,
                            const char        *text,
                            gsize              length)
{
  g_autofree char *reading = NULL;
  const char *t;
  gsize name_len = 0;
  GPtrArray *lists[2];
  const Entry *best = NULL;

  if (set == NULL || set->entries->len == 0)
    return NULL;
  /* No "=" in the text, and none of the patterns reads otherwise. */
  if (!set->equals && memchr (text, '=', length) == NULL)
    return NULL;
  while (name_len < length && text[name_len] != ' ')
    name_len++;
  lists[0] = entries_named (set, text, name_len);
  lists[1] = set->wild;
  /* No pattern names the command, and none of the others starts with the
   * text's first byte (a reading changes no first byte: its "=" follow a
   * "--"): nothing to read again. */
  if (lists[0] == NULL &&
      (set->wild->len == 0 ||
       (!set->wild_any && length > 0 &&
        !(set->wild_firsts & (G_GUINT64_CONSTANT (1) << ((guchar) text[0] % 64))))))
    return NULL;
  reading = equals_reading (text, length);
  /* Neither the text nor any pattern reads otherwise: the ordinary match
   * said all there is to say. */
  if (reading == NULL && !set->equals)
    return NULL;
  t = reading != NULL ? reading : text;
  for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
    for (guint i = 0; lists[l] != NULL && i < lists[l]->len; i++)
      {
        const Entry *e = g_ptr_array_index (lists[l], i);

        if (best != NULL && best->order < e->order)
          break;
        if (reading == NULL && e->equals == NULL)
          continue;
        if (warden_pattern_match (e->equals != NULL ? e->equals : e->pattern, t, length))
          {
            best = e;
            break;
          }
      }
  return best != NULL ? best->pattern : NULL;
}

gboolean
warden_spelling_set_may_hold (WardenSpellingSet *set,
                              const char        *text,
                              gsize              length)
{
  gsize name_len = 0;

  if (set == NULL || set->entries->len == 0)
    return FALSE;
  if (length == 0)
    return TRUE;
  /* warden_spelling_set_lookup_any() also looks up the name's last path
   * component (/bin/rm is rm). */
  for (; name_len < length && text[name_len] != ' '; name_len++)
    if (text[name_len] == '/')
      return TRUE;
  /* Then the lookups' own first tests, here once: a pattern named by the
   * name's first byte and length (entries_named()), or, for the "=" reading
   * only, one of @wild that may start so. */
  if (name_len > 0 &&
      (set->name_firsts & (G_GUINT64_CONSTANT (1) << ((guchar) text[0] % 64))) &&
      (set->name_lengths & (G_GUINT64_CONSTANT (1) << (name_len % 64))))
    return TRUE;
  return set->wild->len > 0 &&
         (set->wild_any ||
          (set->wild_firsts & (G_GUINT64_CONSTANT (1) << ((guchar) text[0] % 64)))) &&
         (set->equals || memchr (text, '=', length) != NULL);
}

/* ------------------------------------------------------------------------ */
/* The bag reading of a text */

typedef struct
{
  const char *s;
  gsize       len;
  gboolean    optional;  /* may be an option's argument: skipped if need be */
  gboolean    hole;      /* starts with a hole: stands for any words */
} Word;

typedef struct
{
  guchar      letters[256 / 8];    /* every letter of every single-dash word */
  Word        dashed[STACK_WORDS]; /* single-dash words, for OPT_WORD */
  guint       n_dashed;
  Word        longs[STACK_WORDS];  /* "--name" words; len without "=…" */
  guint       n_longs;
  gboolean    hole;
  gboolean    options;             /* any option word, "--" included */
  Word       *words;               /* everything else, in order */
  guint       n_words;
} Text;

static gboolean
has_letter (const Text *t,
            char        c)
{
  return (t->letters[(guchar) c / 8] >> ((guchar) c % 8)) & 1;
}

static void
add_word (Text       *t,
          const char *s,
          gsize       len,
          gboolean    optional)
{
  Word *w = &t->words[t->n_words++];

  w->s = s;
  w->len = len;
  w->optional = optional;
  /* "./HOLE" (find's path prefix) is one word that is no option; a word
   * that starts with a hole may be any words, options among them. */
  w->hole = len > 0 && (s[0] == WARDEN_PATTERN_HOLE ||
                        (s[0] == '-' && memchr (s, WARDEN_PATTERN_HOLE, len) != NULL));
  t->hole |= w->hole;
}

/* Splits @text after its first word into options and other words. @t's
 * words have room for one per byte of @text. */
static void
read_text (Text       *t,
           const char *text,
           gsize       length,
           gsize       name_len)
{
  gboolean options_done = FALSE, after_option = FALSE;

  for (gsize i = name_len; i < length;)
    {
      const char *w;
      gsize len;

      while (i < length && text[i] == ' ')
        i++;
      if (i >= length)
        break;
      w = text + i;
      while (i < length && text[i] != ' ')
        i++;
      len = text + i - w;

      if (options_done || len < 2 || w[0] != '-' || memchr (w, WARDEN_PATTERN_HOLE, len) != NULL)
        {
          add_word (t, w, len, after_option);
          after_option = FALSE;
        }
      else if (len == 2 && w[1] == '-')
        {
          options_done = TRUE;
          t->options = TRUE;
          after_option = FALSE;
        }
      else if (w[1] == '-')
        {
          const char *eq = memchr (w, '=', len);

          t->options = TRUE;
          /* Past the table's room an option is still an option: with the
           * text this long, a word that may match is kept as one. */
          if (t->n_longs < STACK_WORDS)
            {
              t->longs[t->n_longs].s = w + 2;
              t->longs[t->n_longs++].len = (eq != NULL ? (gsize) (eq - w) : len) - 2;
            }
          else
            t->hole = TRUE;
          if (eq != NULL)
            add_word (t, eq + 1, w + len - eq - 1, FALSE);
          after_option = eq == NULL;
        }
      else
        {
          t->options = TRUE;
          if (t->n_dashed < STACK_WORDS)
            {
              t->dashed[t->n_dashed].s = w;
              t->dashed[t->n_dashed++].len = len;
            }
          else
            t->hole = TRUE;
          for (gsize k = 1; k < len; k++)
            t->letters[(guchar) w[k] / 8] |= 1 << ((guchar) w[k] % 8);
          /* -oFILE: what follows a letter may be that letter's argument. */
          for (gsize k = 2; k < len; k++)
            add_word (t, w + k, len - k, TRUE);
          after_option = TRUE;
        }
    }
}

static gboolean
option_present (const Text *t,
                const Opt  *opt)
{
  if (t->hole)
    return TRUE;
  switch (opt->kind)
    {
    case OPT_SHORT:
      return has_letter (t, opt->letter);
    case OPT_LONG:
      {
        gsize n = strlen (opt->name);

        for (guint k = 0; k < t->n_longs; k++)
          {
            const char *name = t->longs[k].s;
            gsize len = t->longs[k].len;

            /* The same, an abbreviation of it, or a longer name the
             * pattern's star allows. */
            if ((len > 0 && len <= n && strncmp (name, opt->name, len) == 0) ||
                (opt->prefix && len >= n && strncmp (name, opt->name, n) == 0))
              return TRUE;
          }
        return FALSE;
      }
    case OPT_WORD:
      {
        gsize n = strlen (opt->name);

        for (guint k = 0; k < t->n_dashed; k++)
          {
            const Word *w = &t->dashed[k];

            if ((w->len == n || (opt->prefix && w->len > n)) && strncmp (w->s, opt->name, n) == 0)
              return TRUE;
          }
        return FALSE;
      }
    default:
      g_assert_not_reached ();
    }
}

static gboolean
word_matches (const Item *item,
              const Word *w)
{
  return warden_pattern_match_any (item->glob, w->s, w->len);
}

/* Do items [@pi…] match words [@ti…]? @failed remembers the pairs that do
 * not, so the search stays polynomial. */
static gboolean
match_items (const Item *items,
             guint       n_items,
             const Text *t,
             guint       pi,
             guint       ti,
             guint8     *failed)
{
  guint key = pi * (t->n_words + 1) + ti;
  gboolean ok = FALSE;

  if (failed[key])
    return FALSE;

  if (pi == n_items)
    {
      ok = TRUE;
      for (guint k = ti; k < t->n_words && ok; k++)
        ok = t->words[k].optional || t->words[k].hole;
    }
  else if (items[pi].glob == NULL)
    ok = match_items (items, n_items, t, pi + 1, ti, failed) ||
         (ti < t->n_words && match_items (items, n_items, t, pi, ti + 1, failed));
  else if (ti < t->n_words)
    {
      const Word *w = &t->words[ti];

      if (w->hole)
        ok = match_items (items, n_items, t, pi, ti + 1, failed) ||
             match_items (items, n_items, t, pi + 1, ti, failed);
      else
        ok = (word_matches (&items[pi], w) &&
              match_items (items, n_items, t, pi + 1, ti + 1, failed)) ||
             (w->optional && match_items (items, n_items, t, pi, ti + 1, failed));
    }

  if (!ok)
    failed[key] = 1;
  return ok;
}

static gboolean
bag_matches (const Entry *e,
             const Text  *t)
{
  gsize size = (e->items->len + 1) * (t->n_words + 1);
  guint8 stack_failed[1024];
  g_autofree guint8 *heap_failed = NULL;
  guint8 *failed = stack_failed;

  /* Neither names an option: there is no other spelling to read, and the
   * glob said all ("git push *" does not hold "git push"). */
  if (e->opts->len == 0 && !t->options && !t->hole)
    return FALSE;
  for (guint k = 0; k < e->opts->len; k++)
    if (!option_present (t, &g_array_index (e->opts, Opt, k)))
      return FALSE;

  if (size > sizeof stack_failed)
    failed = heap_failed = g_new0 (guint8, size);
  else
    memset (failed, 0, size);
  return match_items ((const Item *) e->items->data, e->items->len, t, 0, 0, failed);
}

/* Kept apart so that the common case, a command no pattern names, does
 * not pay for this frame's arrays. */
static G_GNUC_NO_INLINE const char *
lookup_in_text (GPtrArray * const *lists,
                guint              n_lists,
                const char        *text,
                gsize              length,
                gsize              name_len)
{
  Text t;
  Word stack_words[256];
  g_autofree Word *heap_words = NULL;
  const Entry *best = NULL;

  memset (&t, 0, sizeof t);
  t.words = length < G_N_ELEMENTS (stack_words) ? stack_words
                                                 : (heap_words = g_new (Word, length));
  read_text (&t, text, length, name_len);

  for (guint l = 0; l < n_lists; l++)
    for (guint i = 0; lists[l] != NULL && i < lists[l]->len; i++)
      {
        const Entry *e = g_ptr_array_index (lists[l], i);

        if (best != NULL && best->order < e->order)
          break;
        if (bag_matches (e, &t))
          {
            best = e;
            break;
          }
      }
  return best != NULL ? best->pattern : NULL;
}

const char *
warden_spelling_set_lookup_any (WardenSpellingSet *set,
                                const char        *text,
                                gsize              length)
{
  gsize name_len = 0;
  const char *base;
  GPtrArray *lists[2] = { NULL, NULL };

  if (set == NULL || g_hash_table_size (set->by_name) == 0)
    return NULL;

  base = text;
  while (name_len < length && text[name_len] != ' ')
    if (text[name_len++] == '/')
      base = text + name_len;
  lists[0] = entries_named (set, base, text + name_len - base);
  if (base != text)
    lists[1] = entries_named (set, text, name_len);
  if (lists[0] == NULL && lists[1] == NULL)
    return NULL;
  return lookup_in_text (lists, G_N_ELEMENTS (lists), text, length, name_len);
}
