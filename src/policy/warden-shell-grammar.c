/* warden-shell-grammar.c: the shell parser's grammar and its entry points
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* This is a recursive-descent parser for the grammar of bash. It builds no
 * tree: it emits one WardenCommandPart per simple command as soon as the
 * command is complete, including the commands inside substitutions, wrappers
 * and sh -c scripts. Anything it does not understand stops it with an error,
 * which the policy turns into "ask". See docs/policy.md. */

#include "config.h"

#define G_LOG_DOMAIN "warden-policy"

#include <stdlib.h>
#include <string.h>

#include "warden-shell-private.h"
#include "common/warden-sandbox-paths.h"
#include "common/warden-utf8.h"

static gboolean parse_command     (Lexer *L);
static void     parse_as_sh_would (Lexer *L, gsize start, gsize end);

/* ------------------------------------------------------------------------ */
/* Errors and state */

/* string_get() and string_put() (warden-shell-private.h) when the pools
 * have no string, or no room for one. */
GString *
string_get_slow (State *st)
{
  return g_string_sized_new (32);
}

void
string_put_slow (State   *st,
                 GString *s)
{
  if (!POOLS)
    {
      g_string_free (s, TRUE);
      return;
    }
  if (st->pools == NULL)
    st->pools = g_new0 (Pools, 1);
  if (st->pools->n_strings < G_N_ELEMENTS (st->pools->strings) && s->allocated_len <= 4096)
    st->pools->strings[st->pools->n_strings++] = s;
  else
    g_string_free (s, TRUE);
}

static void
items_free_storage (Items *a)
{
  if (a->v != a->inline_v)
    g_free (a->v);
  g_free (a);
}

static Items *
array_get (State *st)
{
  Items *a;

  if (st->pools != NULL && st->pools->n_arrays > 0)
    return st->pools->arrays[--st->pools->n_arrays];
  a = g_new (Items, 1);
  a->v = a->inline_v;
  a->len = 0;
  a->size = G_N_ELEMENTS (a->inline_v);
  return a;
}

static void
array_put (State *st,
           Items *a)
{
  if (!POOLS)
    {
      items_free_storage (a);
      return;
    }
  a->len = 0;
  if (st->pools == NULL)
    st->pools = g_new0 (Pools, 1);
  if (st->pools->n_arrays < G_N_ELEMENTS (st->pools->arrays))
    st->pools->arrays[st->pools->n_arrays++] = a;
  else
    items_free_storage (a);
}

/* The thread's pools, as g_private_get (&pools_key) would say: that is a
 * call into GLib and libc's pthread_getspecific() for every decision, and
 * another as it is freed; this is a load. */
static _Thread_local Pools *thread_pools;

static void
pools_free (gpointer data)
{
  Pools *pools = data;

  if (pools == NULL)
    return;
  /* At the thread's exit, which frees them. */
  if (thread_pools == pools)
    thread_pools = NULL;
  for (guint i = 0; i < pools->n_strings; i++)
    g_string_free (pools->strings[i], TRUE);
  for (guint i = 0; i < pools->n_arrays; i++)
    items_free_storage (pools->arrays[i]);
  for (guint i = 0; i < pools->n_parts; i++)
    g_free (pools->parts[i]);
  if (pools->parse != NULL)
    {
      g_ptr_array_unref (pools->parse->parts);
      g_free (pools->parse);
    }
  g_free (pools);
}

static GPrivate pools_key = G_PRIVATE_INIT (pools_free);

static inline Pools *
thread_pools_get (void)
{
  if (G_LIKELY (thread_pools != NULL))
    return thread_pools;
  return thread_pools = g_private_get (&pools_key);
}

/* A parse uses its thread's pools in place: they hold only strings and
 * arrays nobody uses, so even a parse within a parse may share them. */
static void
pools_take (State *st)
{
  st->pools = thread_pools_get ();
  if (st->pools == NULL && POOLS)
    {
      st->pools = g_new0 (Pools, 1);
      g_private_set (&pools_key, st->pools);
      thread_pools = st->pools;
    }
}

static void
pools_give_back (State *st)
{
  /* pools_take() made them the thread's (or there are none: the fuzz
   * build's), so nothing made during the parse is left to hand over. */
  st->pools = NULL;
}

/* The words of a command in one block: argv, then the strings. */
char **
make_argv (const WordRef *w,
           guint          n)
{
  gsize lens[32];

  /* Each word's length is taken once (most commands have few words). */
  if (n > G_N_ELEMENTS (lens))
    return make_argv_sized (w, NULL, n, NULL, 0, NULL);
  for (guint i = 0; i < n; i++)
    lens[i] = strlen (w[i].text);
  return make_argv_sized (w, lens, n, NULL, 0, NULL);
}

/* The same, with the words' lengths (without their NUL) known, or NULL;
 * with @tail, a copy of it (@tail_len bytes, then a NUL) follows the words in
 * the same block, at *@tail_copy. */
char **
make_argv_sized (const WordRef *w,
                 const gsize   *lens,
                 guint          n,
                 const char    *tail,
                 gsize          tail_len,
                 char         **tail_copy)
{
  gsize size = (n + 1) * sizeof (char *) + (tail != NULL ? tail_len + 1 : 0);
  char **argv;
  char *p;

  for (guint i = 0; i < n; i++)
    size += (lens != NULL ? lens[i] : strlen (w[i].text)) + 1;
  argv = g_malloc (size);
  p = (char *) (argv + n + 1);
  for (guint i = 0; i < n; i++)
    {
      gsize len = (lens != NULL ? lens[i] : strlen (w[i].text)) + 1;

      argv[i] = warden_copy (p, w[i].text, len);
      p += len;
    }
  argv[n] = NULL;
  if (tail != NULL)
    {
      warden_copy (p, tail, tail_len);
      p[tail_len] = '\0';
      *tail_copy = p;
    }
  return argv;
}

G_GNUC_PRINTF (2, 3)
gboolean
fail (Lexer   *L,
      const char *format,
      ...)
{
  va_list args;

  if (L->st->error == NULL)
    {
      g_autofree char *msg = NULL;

      va_start (args, format);
      msg = g_strdup_vprintf (format, args);
      va_end (args);
      L->st->error = g_strdup_printf ("%s (at byte %" G_GSIZE_FORMAT "%s)", msg, L->i, L->what);
    }

  return FALSE;
}

/* g_free() of a field that is most often NULL (or taken by the policy):
 * the call through the PLT to free() costs more than the test. */
static inline void
free_set (gpointer p)
{
  if (p != NULL)
    g_free (p);
}

/* Frees @p's strings, and keeps @p in @pools for the next part (or frees it). */
static void
part_release (Pools *pools,
              Part  *p)
{
  if (!p->pub.text_in_argv)
    free_set (p->pub.text);
  free_set (p->pub.match_text);
  free_set (p->pub.base_text);
  free_set (p->pub.expanded_text);
  free_set (p->pub.min_text);
  free_set (p->pub.argv);
  free_set (p->pub.force_ask);
  if (pools != NULL && pools->n_parts < G_N_ELEMENTS (pools->parts))
    pools->parts[pools->n_parts++] = p;
  else
    g_free (p);
}

static void
part_free (gpointer data)
{
  if (data != NULL)
    part_release (POOLS ? thread_pools_get () : NULL, data);
}

static void
heredoc_free (gpointer data)
{
  Heredoc *h = data;

  g_free (h->delimiter);
  g_free (h);
}

/* Parts are listed in source order, a command before the commands its words
 * hold: @index places a simple command before its substitutions. */
static Part *
new_part_at (Lexer          *L,
             WardenPartKind  kind,
             WardenOrigin    origin,
             guint           index)
{
  Part *p;

  if (L->st->parts->len >= WARDEN_SHELL_MAX_PARTS)
    {
      fail (L, "more than %d commands", WARDEN_SHELL_MAX_PARTS);
      return NULL;
    }

  /* Not g_new0: glibc's calloc() bypasses its per-thread cache. */
  if (L->st->pools != NULL && L->st->pools->n_parts > 0)
    p = L->st->pools->parts[--L->st->pools->n_parts];
  else
    p = g_new (Part, 1);
  memset (p, 0, sizeof *p);
  p->pub.kind = kind;
  p->pub.origin = origin;
  p->loop_id = L->st->loop_id;
  /* Most parts come last: g_ptr_array_add() is the cheaper call. */
  if (index >= L->st->parts->len)
    g_ptr_array_add (L->st->parts, p);
  else
    g_ptr_array_insert (L->st->parts, index, p);
  return p;
}

Part *
new_part (Lexer          *L,
          WardenPartKind  kind,
          WardenOrigin    origin)
{
  return new_part_at (L, kind, origin, G_MAXUINT);
}

/* The first reason wins: it is the one the user sees. */
void
force_ask (Part       *p,
           gboolean    liftable,
           const char *reason)
{
  if (p->pub.force_ask != NULL)
    {
      /* A reason no pattern can lift beats one a pattern could. */
      if (p->pub.liftable && !liftable)
        {
          g_free (p->pub.force_ask);
          p->pub.force_ask = g_strdup (reason);
          p->pub.liftable = FALSE;
        }
      return;
    }

  p->pub.force_ask = g_strdup (reason);
  p->pub.liftable = liftable;
  if (!liftable)
    p->pub.no_suggestion = TRUE;
}

/* ------------------------------------------------------------------------ */
/* Simple commands */

/* Gives the items' strings and the array back to the pools. */
static void
items_free (Lexer  *L,
            Items  *items)
{
  for (guint i = 0; i < items->len; i++)
    {
      Item *it = &items->v[i];

      string_put (L->st, it->text);
      string_put (L->st, it->target);
    }
  array_put (L->st, items);
}

/* Reads the target of the redirection operator just consumed. */
static gboolean
read_redirection (Lexer   *L,
                  Items   *items,
                  GString *op)
{
  Item it = { .kind = ITEM_REDIR, .text = op };
  Token *t = peek (L);
  const char *bare;

  if (t->type != T_WORD)
    {
      g_string_free (op, TRUE);
      if (!failed (L))
        fail (L, "a redirection without a target");
      return FALSE;
    }
  it.flags = t->flags;
  it.target = steal_text (L);

  bare = op->str + strspn (op->str, "0123456789");
  if (strcmp (bare, "<<") == 0 || strcmp (bare, "<<-") == 0)
    {
      Heredoc *h = g_new0 (Heredoc, 1);

      h->delimiter = g_strdup (it.target->str);
      h->quoted = (it.flags & W_QUOTED) != 0;
      h->strip_tabs = bare[2] == '-';
      if (L->heredocs == NULL)
        L->heredocs = g_ptr_array_new_with_free_func (heredoc_free);
      g_ptr_array_add (L->heredocs, h);
      it.heredoc = h;
    }
  items_append (items, &it);
  return TRUE;
}

/* Reads redirections following a compound command. */
static void
read_trailing_redirections (Lexer  *L,
                            Items  *items)
{
  while (!failed (L) && peek (L)->type == T_REDIR)
    read_redirection (L, items, steal_text (L));
}

/* Emits the part for redirections of a group or loop. */
static void
emit_compound_redirections (Lexer  *L,
                            Items  *items)
{
  Part *p;
  GString *text;

  gboolean worth_showing = FALSE;

  if (items->len == 0 || failed (L))
    return;

  /* Reading a file into a loop needs no word from the user. */
  for (guint i = 0; i < items->len; i++)
    {
      Item *it = &items->v[i];

      if (strchr (it->text->str, '>') != NULL || (it->flags & W_NONLITERAL))
        worth_showing = TRUE;
    }
  if (!worth_showing)
    return;

  p = new_part (L, WARDEN_PART_REDIRECTION, WARDEN_ORIGIN_REDIRECTION);
  if (p == NULL)
    return;
  text = g_string_new (NULL);
  for (guint i = 0; i < items->len; i++)
    {
      Item *it = &items->v[i];

      if (i > 0)
        g_string_append_c (text, ' ');
      append_redirection_text (text, it);
      judge_redirections (L, p, it);
    }
  p->pub.text = g_string_free (text, FALSE);
  p->pub.no_suggestion = TRUE;
}

static void
finish_simple_command (Lexer  *L,
                       Items  *items,
                       guint   first_part)
{
  WordRef stack_words[32];
  g_autofree WordRef *heap_words = NULL;
  WordRef *w = stack_words;
  /* The words' lengths, kept by their strings: no strlen() of them. */
  gsize lens[G_N_ELEMENTS (stack_words)];
  guint n_words = 0;
  /* Built in a pooled string and copied out: cheaper than a GString of its
   * own that grows. */
  GString *text = string_get (L->st);
  gboolean has_assign = FALSE, has_redir = FALSE;
  /* The flags of the arguments (the words after the first), together: most
   * commands have no expansion, so no text without them to make. */
  guint arg_flags = 0;
  WardenPartKind kind;
  Part *p;

  for (guint i = 0; i < items->len; i++)
    {
      Item *it = &items->v[i];

      if (it->kind == ITEM_WORD)
        {
          if (n_words > 0)
            arg_flags |= it->flags;
          if (n_words == G_N_ELEMENTS (stack_words))
            {
              heap_words = g_new (WordRef, items->len);
              memcpy (heap_words, stack_words, sizeof stack_words);
              w = heap_words;
            }
          w[n_words].text = it->text->str;
          w[n_words].flags = it->flags;
          if (n_words < G_N_ELEMENTS (lens))
            lens[n_words] = it->text->len;
          n_words++;
        }
      else if (it->kind == ITEM_ASSIGN)
        has_assign = TRUE;
      else
        has_redir = TRUE;
    }

  kind = n_words > 0 ? WARDEN_PART_COMMAND
         : has_assign ? WARDEN_PART_ASSIGNMENT : WARDEN_PART_REDIRECTION;
  p = new_part_at (L, kind, L->origin, first_part);
  if (p == NULL)
    {
      string_put (L->st, text);
      return;
    }

  for (guint i = 0; i < items->len; i++)
    {
      Item *it = &items->v[i];

      if (i > 0)
        g_string_append_c (text, ' ');
      if (it->kind == ITEM_REDIR)
        {
          append_redirection_text (text, it);
          judge_redirections (L, p, it);
        }
      else
        append_run (text, it->text->str, it->text->len);
    }
  /* No word holds a NUL (the line holds none, and $'\0' ends its string).
   * A command's text goes in its argv's block: one allocation, not two. */
  if (n_words > 0 && n_words <= G_N_ELEMENTS (lens))
    {
      p->pub.argv = make_argv_sized (w, lens, n_words, text->str, text->len, &p->pub.text);
      p->pub.text_in_argv = TRUE;
      p->pub.text_len = text->len;
    }
  else
    p->pub.text = g_memdup2 (text->str, text->len + 1);
  string_put (L->st, text);

  if (has_assign)
    {
      const char *why = n_words > 0 ? "the command is run with variable assignments"
                                       : "the command sets shell variables";
      force_ask (p, TRUE, why);
    }

  if (n_words > 0)
    {
      gboolean text_differs = has_assign || has_redir || items->v[0].kind != ITEM_WORD ||
                              strchr (w[0].text, '/') != NULL;

      if (p->pub.argv == NULL)
        p->pub.argv = make_argv (w, n_words);
      p->pub.name = p->pub.argv[0];
      /* Deny patterns also see the bare command: "X=1 /bin/rm -rf /" is "rm -rf /". */
      if (text_differs)
        p->pub.base_text = join_words (w, n_words, NULL, FALSE, TRUE);
      /* Both are NULL when no argument expands, or may vanish. */
      if (arg_flags & W_NONLITERAL)
        p->pub.expanded_text = join_expanded (w, n_words);
      if (arg_flags & W_VANISH)
        p->pub.min_text = join_without_vanishing (w, n_words, items);
      analyze (L, p, w, n_words, NULL, FALSE);
      if (p->shell_reads_stdin)
        shell_script_from_stdin (L, p, items);
    }
  else
    p->pub.no_suggestion = TRUE;
}

/* @prefix: words already read ("time", "-p") that start this command. */
static gboolean
parse_simple_command (Lexer      *L,
                      const char *prefix)
{
  Items *items = array_get (L->st);
  gboolean seen_word = FALSE;
  guint first_part = peek (L)->parts_before;

  if (prefix != NULL)
    {
      g_auto(GStrv) words = g_strsplit (prefix, " ", -1);

      for (guint i = 0; words[i]; i++)
        {
          Item it = { .kind = ITEM_WORD, .text = string_get (L->st) };

          g_string_append (it.text, words[i]);
          items_append (items, &it);
        }
      seen_word = TRUE;
    }

  for (;;)
    {
      Token *t = peek (L);

      if (failed (L))
        break;

      if (t->type == T_WORD)
        {
          Item it = { .kind = ITEM_WORD, .flags = t->flags };

          if (!seen_word && (t->flags & W_ASSIGN))
            it.kind = ITEM_ASSIGN;
          else if (!seen_word)
            {
              seen_word = TRUE;
              /* name ( ) compound: a function definition. */
              it.text = steal_text (L);
              items_append (items, &it);
              if (peek (L)->type == T_LPAREN && items->len == 1)
                {
                  Part *p;

                  consume (L);
                  if (peek (L)->type != T_RPAREN)
                    {
                      fail (L, "expected “)” in a function definition");
                      break;
                    }
                  consume (L);
                  p = new_part (L, WARDEN_PART_COMMAND, L->origin);
                  if (p != NULL)
                    {
                      p->pub.text = g_strdup_printf ("%s ()", it.text->str);
                      force_ask (p, FALSE, "a function definition");
                    }
                  skip_newlines (L);
                  parse_command (L);
                  items_free (L, items);
                  return !failed (L);
                }
              continue;
            }
          it.text = steal_text (L);
          items_append (items, &it);
          continue;
        }
      if (t->type == T_REDIR)
        {
          read_redirection (L, items, steal_text (L));
          continue;
        }
      break;
    }

  if (!failed (L) && items->len > 0)
    finish_simple_command (L, items, first_part);
  items_free (L, items);
  return !failed (L);
}

/* ------------------------------------------------------------------------ */
/* Compound commands */

enum
{
  STOP_THEN  = 1 << 0,
  STOP_ELIF  = 1 << 1,
  STOP_ELSE  = 1 << 2,
  STOP_FI    = 1 << 3,
  STOP_DO    = 1 << 4,
  STOP_DONE  = 1 << 5,
  STOP_ESAC  = 1 << 6,
  STOP_BRACE = 1 << 7,
  STOP_CASE  = 1 << 8,   /* ;; ;& ;;& */
};

static const struct { const char *word; guint stop; } stop_words[] = {
  { "then", STOP_THEN }, { "elif", STOP_ELIF }, { "else", STOP_ELSE }, { "fi", STOP_FI },
  { "do", STOP_DO }, { "done", STOP_DONE }, { "esac", STOP_ESAC }, { "}", STOP_BRACE },
};

static guint
stop_of (Token *t)
{
  if (!t->reserved)
    return 0;
  for (guint i = 0; i < G_N_ELEMENTS (stop_words); i++)
    if (strcmp (t->text->str, stop_words[i].word) == 0)
      return stop_words[i].stop;
  return 0;
}

static gboolean
expect_word (Lexer      *L,
             const char *word)
{
  if (failed (L))
    return FALSE;
  if (!is_word (peek (L), word))
    return fail (L, "expected “%s”", word);
  consume (L);
  return TRUE;
}

static void
parse_pipeline (Lexer *L)
{
  Token *t = peek (L);

  if (is_word (t, "!"))
    consume (L);

  for (;;)
    {
      if (!parse_command (L))
        return;
      t = peek (L);
      if (t->type != T_PIPE && t->type != T_PIPE_AMP)
        return;
      consume (L);
      skip_newlines (L);
    }
}

static void
parse_and_or (Lexer *L)
{
  for (;;)
    {
      Token *t;

      parse_pipeline (L);
      if (failed (L))
        return;
      t = peek (L);
      if (t->type != T_AND && t->type != T_OR)
        return;
      consume (L);
      skip_newlines (L);
    }
}

/* Parses commands until EOF, ")" or a reserved word in @stop, which is left
 * as the current token. Returns how many commands it read. */
guint
parse_list (Lexer *L,
            guint  stop)
{
  guint count = 0;
  gboolean ended_line = FALSE;

  if (!enter (L))
    return 0;

  for (;;)
    {
      Token *t;
      guint s;

      /* "a;" or "a &" then a newline: that line has been read, and run. */
      if (ended_line && L->st->depth == L->top_depth + 1 && peek (L)->type == T_NEWLINE)
        L->lists_done++;
      ended_line = FALSE;
      skip_newlines (L);
      if (failed (L))
        break;
      t = peek (L);
      if (t->type == T_EOF || t->type == T_RPAREN)
        break;
      if ((stop & STOP_CASE) &&
          (t->type == T_DSEMI || t->type == T_SEMI_AMP || t->type == T_DSEMI_AMP))
        break;
      s = stop_of (t);
      if (s != 0)
        {
          if ((s & stop) == 0)
            fail (L, "unexpected “%s”", t->text->str);
          break;
        }

      parse_and_or (L);
      count++;
      if (failed (L))
        break;
      t = peek (L);
      if (t->type == T_SEMI || t->type == T_AMP || t->type == T_NEWLINE)
        {
          /* A shell runs each line of a script once it has read it. */
          if (t->type == T_NEWLINE && L->st->depth == L->top_depth + 1)
            L->lists_done++;
          ended_line = t->type != T_NEWLINE;
          consume (L);
          continue;
        }
      if (t->type == T_EOF || t->type == T_RPAREN || stop_of (t) != 0 ||
          ((stop & STOP_CASE) &&
           (t->type == T_DSEMI || t->type == T_SEMI_AMP || t->type == T_DSEMI_AMP)))
        continue;
      fail (L, "unexpected token after a command");
      break;
    }
  leave (L);
  return count;
}

/* The body of a group or control structure: bash wants one command at least. */
static void
parse_group_until (Lexer      *L,
                   guint       stop,
                   const char *closer)
{
  if (parse_list (L, stop) == 0 && !failed (L))
    fail (L, "expected a command before “%s”", closer);
  expect_word (L, closer);
}

static void
enter_loop (Lexer *L,
            guint *saved)
{
  *saved = L->st->loop_id;
  if (L->st->loop_id == 0)
    L->st->loop_id = ++L->st->next_loop_id;
}

static void
parse_for (Lexer    *L,
           gboolean  is_select)
{
  Token *t;
  guint saved;

  consume (L);
  t = peek (L);
  if (t->type == T_DLPAREN)
    {
      g_autoptr(GString) junk = g_string_new (NULL);
      Part *p = new_part (L, WARDEN_PART_COMMAND, L->origin);
      gsize start = t->start;

      if (p != NULL)
        {
          p->pub.text = g_strdup ("for ((");
          force_ask (p, FALSE, "an arithmetic for loop");
        }
      consume (L);
      if (!scan_arith (L, junk, ')') && !failed (L))
        {
          fail (L, "malformed arithmetic for loop");
          return;
        }
      if (p != NULL)
        {
          g_free (p->pub.text);
          p->pub.text = g_strdup_printf ("for %.*s", (int) (L->i - start), L->s + start);
        }
    }
  else
    {
      if (t->type != T_WORD || (t->flags & W_NONLITERAL))
        {
          fail (L, "expected a variable name after “for”");
          return;
        }
      /* for PATH in .; do ls; done runs ./ls. */
      if (names_sensitive_var (t->text->str) && strspn (t->text->str, "_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == t->text->len)
        {
          Part *p = new_part (L, WARDEN_PART_COMMAND, L->origin);

          if (p != NULL)
            {
              p->pub.text = g_strdup_printf ("for %s", t->text->str);
              force_ask (p, FALSE, "the loop assigns a variable that changes what later "
                                   "commands run");
            }
        }
      if (is_select)
        {
          Part *p = new_part (L, WARDEN_PART_COMMAND, L->origin);

          if (p != NULL)
            {
              p->pub.text = g_strdup ("select");
              force_ask (p, FALSE, "“select” reads a choice from the terminal");
            }
        }
      consume (L);
      skip_newlines (L);
      if (is_word (peek (L), "in"))
        {
          consume (L);
          while (peek (L)->type == T_WORD)
            consume (L);
        }
    }
  if (failed (L))
    return;
  t = peek (L);
  if (t->type == T_SEMI || t->type == T_NEWLINE)
    consume (L);
  skip_newlines (L);

  enter_loop (L, &saved);
  if (expect_word (L, "do"))
    parse_group_until (L, STOP_DONE, "done");
  L->st->loop_id = saved;
}

static void
parse_case (Lexer *L)
{
  Token *t;

  consume (L);
  if (peek (L)->type != T_WORD)
    {
      fail (L, "expected a word after “case”");
      return;
    }
  consume (L);
  skip_newlines (L);
  if (!expect_word (L, "in"))
    return;

  for (;;)
    {
      skip_newlines (L);
      if (failed (L))
        return;
      t = peek (L);
      if (is_word (t, "esac"))
        {
          consume (L);
          return;
        }
      if (t->type == T_LPAREN)
        consume (L);
      /* Patterns: words separated by |. */
      for (;;)
        {
          if (peek (L)->type != T_WORD)
            {
              fail (L, "expected a pattern in “case”");
              return;
            }
          consume (L);
          t = peek (L);
          if (t->type == T_PIPE)
            {
              consume (L);
              continue;
            }
          if (t->type == T_RPAREN)
            {
              consume (L);
              break;
            }
          fail (L, "expected “)” after a case pattern");
          return;
        }
      parse_list (L, STOP_CASE | STOP_ESAC);
      if (failed (L))
        return;
      t = peek (L);
      if (t->type == T_DSEMI || t->type == T_SEMI_AMP || t->type == T_DSEMI_AMP)
        consume (L);
      else if (!is_word (t, "esac"))
        {
          fail (L, "expected “;;” or “esac”");
          return;
        }
    }
}

static void
parse_if (Lexer *L)
{
  consume (L);
  parse_group_until (L, STOP_THEN, "then");
  for (;;)
    {
      Token *t;

      if (parse_list (L, STOP_ELIF | STOP_ELSE | STOP_FI) == 0 && !failed (L))
        fail (L, "expected a command after “then”");
      if (failed (L))
        return;
      t = peek (L);
      if (is_word (t, "elif"))
        {
          consume (L);
          parse_group_until (L, STOP_THEN, "then");
          continue;
        }
      if (is_word (t, "else"))
        {
          consume (L);
          parse_group_until (L, STOP_FI, "fi");
          return;
        }
      expect_word (L, "fi");
      return;
    }
}

static void
parse_while (Lexer *L)
{
  guint saved;

  consume (L);
  enter_loop (L, &saved);
  parse_group_until (L, STOP_DO, "do");
  parse_group_until (L, STOP_DONE, "done");
  L->st->loop_id = saved;
}

/* [[ … ]] asks; its words are still read for the substitutions in them. */
static void
parse_dbracket (Lexer *L)
{
  Part *p = new_part (L, WARDEN_PART_COMMAND, L->origin);
  gsize start = peek (L)->start;

  /* The user is shown the source: sh reads "[[ a > b ]]" as a redirection. */
  if (p != NULL)
    {
      p->pub.text = g_strdup ("[[");
      force_ask (p, FALSE, "a [[ … ]] test command");
    }
  consume (L);
  for (;;)
    {
      Token *t = peek (L);

      if (failed (L))
        return;
      if (is_word (t, "]]"))
        {
          consume (L);
          if (p != NULL)
            {
              g_free (p->pub.text);
              p->pub.text = g_strndup (L->s + start, L->i - start);
            }
          return;
        }
      if (t->type == T_EOF || t->type == T_NEWLINE || t->type == T_SEMI || t->type == T_AMP)
        {
          fail (L, "unterminated [[ … ]]");
          return;
        }
      consume (L);
    }
}

static void
parse_function_keyword (Lexer *L)
{
  Part *p;
  Token *t;

  consume (L);
  t = peek (L);
  if (t->type != T_WORD)
    {
      fail (L, "expected a name after “function”");
      return;
    }
  p = new_part (L, WARDEN_PART_COMMAND, L->origin);
  if (p != NULL)
    {
      p->pub.text = g_strdup_printf ("function %s", t->text->str);
      force_ask (p, FALSE, "a function definition");
    }
  consume (L);
  if (peek (L)->type == T_LPAREN)
    {
      consume (L);
      if (peek (L)->type != T_RPAREN)
        {
          fail (L, "expected “)” in a function definition");
          return;
        }
      consume (L);
    }
  skip_newlines (L);
  parse_command (L);
}

static gboolean
parse_command (Lexer *L)
{
  Token *t = peek (L);
  gboolean compound = TRUE;

  if (failed (L))
    return FALSE;
  if (!enter (L))
    return FALSE;

  /* Most commands are simple ones, which start with a word that is no
   * reserved word (or with a redirection): as the last branch below would. */
  if ((t->type == T_WORD && !t->reserved) || t->type == T_REDIR)
    {
      parse_simple_command (L, NULL);
      leave (L);
      return !failed (L);
    }

  if (t->type == T_LPAREN)
    {
      consume (L);
      if (parse_list (L, 0) == 0 && !failed (L))
        fail (L, "expected a command in “( )”");
      if (!failed (L))
        {
          if (peek (L)->type != T_RPAREN)
            fail (L, "expected “)”");
          else
            consume (L);
        }
    }
  else if (t->type == T_DLPAREN)
    {
      gsize save = L->i;
      gsize start = t->start;
      guint n_parts = L->st->parts->len;
      g_autoptr(GString) junk = g_string_new (NULL);

      consume (L);
      if (!known_not_arith (L, start) && scan_arith (L, junk, ')'))
        {
          /* Shown as written: sh runs "((cmd))" as a subshell in a subshell. */
          Part *p = new_part_at (L, WARDEN_PART_COMMAND, L->origin, n_parts);

          if (p != NULL)
            {
              p->pub.text = g_strndup (L->s + start, L->i - start);
              force_ask (p, FALSE, "an arithmetic command (( … ))");
            }
          /* Whatever sh would run that way is checked like any command. */
          parse_as_sh_would (L, start + 1, L->i - 1);
        }
      else if (!failed (L))
        {
          /* "((cmd) )": a subshell in a subshell. */
          g_ptr_array_set_size (L->st->parts, n_parts);
          L->i = save;
          note_not_arith (L, start);
          parse_list (L, 0);
          if (!failed (L) && peek (L)->type == T_RPAREN)
            consume (L);
          else
            fail (L, "expected “)”");
          parse_list (L, 0);
          if (!failed (L) && peek (L)->type == T_RPAREN)
            consume (L);
          else
            fail (L, "expected “)”");
        }
    }
  else if (is_word (t, "{"))
    {
      consume (L);
      parse_group_until (L, STOP_BRACE, "}");
    }
  else if (is_word (t, "if"))
    parse_if (L);
  else if (is_word (t, "while") || is_word (t, "until"))
    parse_while (L);
  else if (is_word (t, "for"))
    parse_for (L, FALSE);
  else if (is_word (t, "select"))
    parse_for (L, TRUE);
  else if (is_word (t, "case"))
    parse_case (L);
  else if (is_word (t, "[["))
    parse_dbracket (L);
  else if (is_word (t, "function"))
    {
      parse_function_keyword (L);
      compound = FALSE;
    }
  else if (is_word (t, "coproc"))
    {
      Part *p = new_part (L, WARDEN_PART_COMMAND, L->origin);

      if (p != NULL)
        {
          p->pub.text = g_strdup ("coproc");
          force_ask (p, FALSE, "“coproc” runs a command in the background with pipes");
        }
      consume (L);
      parse_command (L);
      compound = FALSE;
    }
  else if (is_word (t, "time"))
    {
      /* Before a simple command, time is a wrapper like the others; before
       * a group, loop or "!", the reserved word timing the whole pipeline. */
      const char *prefix = "time";
      Token *next;

      consume (L);
      next = peek (L);
      if (is_word (next, "-p"))
        {
          consume (L);
          prefix = "time -p";
          next = peek (L);
        }
      if ((next->type == T_WORD && stop_of (next) == 0 && !is_word (next, "{") &&
           !is_word (next, "!") && !is_word (next, "if") && !is_word (next, "while") &&
           !is_word (next, "until") && !is_word (next, "for") && !is_word (next, "case") &&
           !is_word (next, "[[") && !is_word (next, "select") && !is_word (next, "function") &&
           !is_word (next, "coproc") && !is_word (next, "time")) ||
          next->type == T_REDIR)
        parse_simple_command (L, prefix);
      else
        {
          Part *p = new_part (L, WARDEN_PART_COMMAND, L->origin);

          if (p != NULL)
            {
              p->pub.text = g_strdup (prefix);
              WordRef tw[2] = { { "time", 0 }, { "-p", 0 } };

              p->pub.argv = make_argv (tw, strcmp (prefix, "time") == 0 ? 1 : 2);
              p->pub.name = p->pub.argv[0];
            }
          if (next->type != T_EOF && next->type != T_NEWLINE && next->type != T_SEMI &&
              next->type != T_AMP && next->type != T_RPAREN && stop_of (next) == 0)
            parse_pipeline (L);
        }
      compound = FALSE;
    }
  else if (t->type == T_WORD || t->type == T_REDIR)
    {
      if (stop_of (t) != 0 || is_word (t, "then") || is_word (t, "in") || is_word (t, "]]"))
        fail (L, "unexpected “%s”", t->text->str);
      else
        parse_simple_command (L, NULL);
      compound = FALSE;
    }
  else
    {
      fail (L, "syntax error: a command was expected");
      compound = FALSE;
    }

  if (compound && !failed (L))
    {
      Items  *redirs = array_get (L->st);

      read_trailing_redirections (L, redirs);
      emit_compound_redirections (L, redirs);
      items_free (L, redirs);
    }
  leave (L);
  return !failed (L);
}

/* ------------------------------------------------------------------------ */
/* Entry points */

static void
parse_top (Lexer *L)
{
  L->top_depth = L->st->depth;
  parse_list (L, 0);
  if (failed (L))
    return;
  if (peek (L)->type == T_RPAREN)
    fail (L, "unexpected “)”");
  else if (peek (L)->type != T_EOF)
    fail (L, "unexpected token");
  else if (pending_heredoc (L) != NULL)
    fail (L, "here-document not terminated by “%s”", pending_heredoc (L)->delimiter);
}

/* A reading on its own state may have looked the workspace up. */
static void
take_workspace_lookup (State *st,
                       State *sub)
{
  if (!st->workspace_checked)
    {
      st->workspace_checked = sub->workspace_checked;
      st->workspace_real = sub->workspace_real;
    }
  else if (sub->workspace_real != st->workspace_real)
    free (sub->workspace_real);
}

/* Parses @L's source from @start to @end on its own; when it parses, its
 * parts join the line's. For constructs bash and sh read differently. */
static void
parse_as_sh_would (Lexer *L,
                   gsize  start,
                   gsize  end)
{
  State sub = *L->st;

  if (end <= start)
    return;
  sub.parts = g_ptr_array_new_with_free_func (part_free);
  sub.error = NULL;
  sub.ask = NULL;
  /* It borrows the line's pools (sub's copies of them), and gives them back
   * below, with whatever it made. */
  parse_string (&sub, L->s + start, end - start, L->origin, L->what);
  take_workspace_lookup (L->st, &sub);
  L->st->made_bytes |= sub.made_bytes;
  if (sub.error == NULL)
    {
      for (guint i = 0; i < sub.parts->len && !failed (L); i++)
        {
          if (L->st->parts->len >= WARDEN_SHELL_MAX_PARTS)
            fail (L, "more than %d commands", WARDEN_SHELL_MAX_PARTS);
          else
            g_ptr_array_add (L->st->parts, g_steal_pointer (&sub.parts->pdata[i]));
        }
      L->st->cd_seen |= sub.cd_seen;
      if (L->st->ask == NULL)
        L->st->ask = g_steal_pointer (&sub.ask);
    }
  g_free (sub.error);
  g_free (sub.ask);
  g_ptr_array_unref (sub.parts);
  L->st->pools = sub.pools;
}

/* The last of the first @n parts of @st with @text, or NULL. */
static Part *
last_part_with_text (State      *st,
                     guint       n,
                     GHashTable *index,
                     const char *text)
{
  if (index != NULL)
    return g_hash_table_lookup (index, text);
  for (guint i = n; i > 0; i--)
    {
      Part *q = g_ptr_array_index (st->parts, i - 1);

      if (q->pub.text != NULL && strcmp (q->pub.text, text) == 0)
        return q;
    }
  return NULL;
}

/* Adds the parts of @sub that @st does not have yet: the same text with the
 * same forced answer is shown once. */
static void
merge_parts (State *st,
             State *sub)
{
  g_autoptr(GHashTable) index = NULL;
  guint n = st->parts->len;

  /* A line has a few parts, which a scan compares faster than a table is
   * made; a long script gets the table. */
  if (n > 16)
    {
      index = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = 0; i < n; i++)
        {
          Part *p = g_ptr_array_index (st->parts, i);

          if (p->pub.text != NULL)
            g_hash_table_insert (index, p->pub.text, p);
        }
    }
  for (guint i = 0; i < sub->parts->len && st->error == NULL; i++)
    {
      Part *p = g_ptr_array_index (sub->parts, i);
      Part *q = p->pub.text != NULL ? last_part_with_text (st, n, index, p->pub.text) : NULL;

      if (q != NULL && q->pub.kind == p->pub.kind &&
          g_strcmp0 (q->pub.force_ask, p->pub.force_ask) == 0)
        continue;
      if (st->parts->len >= WARDEN_SHELL_MAX_PARTS)
        st->error = g_strdup_printf ("more than %d commands", WARDEN_SHELL_MAX_PARTS);
      else
        g_ptr_array_add (st->parts, g_steal_pointer (&sub->parts->pdata[i]));
    }
}

/* Reads @s again the way @dialect's shell would, adding what it would run. */
static void
read_as (State        *st,
         Dialect       dialect,
         const char   *s,
         gsize         n,
         WardenOrigin  origin,
         const char   *what)
{
  State sub = *st;
  Lexer L;
  guint lines_run;
  static const char *names[] = { "bash", "dash", "busybox sh" };

  if (++st->readings > MAX_READINGS)
    {
      if (st->error == NULL)
        st->error = g_strdup ("the line reads differently in bash, dash and busybox in more "
                              "places than the engine follows");
      return;
    }

  sub.dialect = dialect;
  sub.dialect_hit = FALSE;
  sub.parts = g_ptr_array_new_with_free_func (part_free);
  sub.error = NULL;
  sub.ask = NULL;
  /* The pools are borrowed, as in parse_as_sh_would(). */

  lexer_init (&L, &sub, s, n, origin, what);
  parse_top (&L);
  lines_run = L.lists_done;
  lexer_clear (&L);
  take_workspace_lookup (st, &sub);
  st->made_bytes |= sub.made_bytes;

  st->readings = sub.readings;
  /* A shell parses a line before it runs it: a syntax error in the first
   * line runs nothing there, but the lines before an error have run. */
  if (sub.error == NULL || lines_run > 0)
    {
      st->cd_seen |= sub.cd_seen;
      merge_parts (st, &sub);
      if (st->ask == NULL && sub.ask != NULL)
        st->ask = g_steal_pointer (&sub.ask);
      if (sub.error != NULL && st->ask == NULL)
        st->ask = g_strdup_printf ("%s reads this line differently from bash (%s)",
                                   names[dialect], sub.error);
    }

  g_free (sub.error);
  g_free (sub.ask);
  g_ptr_array_unref (sub.parts);
  st->pools = sub.pools;
}

void
parse_string (State        *st,
              const char   *s,
              gsize         n,
              WardenOrigin  origin,
              const char   *what)
{
  gboolean saved_hit = st->dialect_hit;
  Lexer L;

  st->dialect_hit = FALSE;
  lexer_init (&L, st, s, n, origin, what);
  parse_top (&L);
  lexer_clear (&L);

  /* The line must mean the same to every /bin/sh it may meet: where it
   * holds a construct they read differently, each reading is checked. */
  if (st->dialect_hit && st->error == NULL)
    for (Dialect d = DIALECT_BASH; d < N_DIALECTS && st->error == NULL; d++)
      if (d != st->dialect)
        read_as (st, d, s, n, origin, what);

  st->dialect_hit = saved_hit;
}

/* Whether normalize_path() would return @path as it is (the workspace
 * nearly always is, and it is looked at for every decision). */
static gboolean
is_normal_path (const char *path)
{
  if (path[0] != '/')
    return FALSE;
  if (path[1] == '\0')
    return TRUE;
  for (const char *c = path; *c != '\0'; c++)
    if (c[0] == '/')
      {
        const char *e = c + 1;

        /* "//", a trailing "/", "/." and "/.." components */
        if (*e == '.')
          e += e[1] == '.' ? 2 : 1;
        if (*e == '/' || *e == '\0')
          return FALSE;
      }
  return TRUE;
}

WardenShellParse *
warden_shell_parse (const char               *command,
                    gssize                    length,
                    const WardenShellOptions *options)
{
  WardenShellParse *parse;
  const char *given;
  g_autofree char *workspace = NULL;
  State st = { 0 };
  gsize n;

  pools_take (&st);
  if (st.pools != NULL && st.pools->parse != NULL)
    parse = g_steal_pointer (&st.pools->parse);
  else
    {
      parse = g_new (WardenShellParse, 1);
      /* Room for the parts of most lines, so that adding them does not grow it. */
      parse->parts = g_ptr_array_new_full (8, part_free);
    }
  parse->error = NULL;
  parse->ask = NULL;
  parse->texts_valid = FALSE;
  g_return_val_if_fail (command != NULL || length == 0, parse);

  n = length < 0 ? strlen (command) : (gsize) length;

  if (n > WARDEN_SHELL_MAX_LENGTH)
    {
      parse->error = g_strdup_printf ("the command is %" G_GSIZE_FORMAT " bytes long, more than "
                                      "the %d bytes the engine reads", n, WARDEN_SHELL_MAX_LENGTH);
      return parse;
    }
  /* What runs must be what the user is shown; replacement characters are not.
   * (warden_utf8_validate() refuses a NUL byte too, which is said first.) */
  if (!warden_utf8_validate (command, n))
    {
      if (memchr (command, '\0', n) != NULL)
        parse->error = g_strdup ("the command contains a NUL byte");
      else
        parse->error = g_strdup ("the command is not valid UTF-8, so it cannot be shown as it "
                                 "would run");
      return parse;
    }

  st.options = options;
  st.parts = parse->parts;
  if (options == NULL || options->workspace == NULL)
    {
      /* The sandbox's own: normal, and its length known. */
      st.workspace = WARDEN_SANDBOX_WORKSPACE;
      st.workspace_len = sizeof WARDEN_SANDBOX_WORKSPACE - 1;
    }
  else
    {
      given = options->workspace;
      if (!is_normal_path (given))
        workspace = normalize_path (given);
      st.workspace = workspace ? workspace : given;
      st.workspace_len = strlen (st.workspace);
    }

  parse_string (&st, command, n, WARDEN_ORIGIN_TOP_LEVEL, "");
  parse->error = st.error;
  parse->ask = st.ask;
  parse->texts_valid = !st.made_bytes;
  if (st.workspace_real != NULL)
    free (st.workspace_real);
  pools_give_back (&st);

  return parse;
}

void
warden_shell_parse_free (WardenShellParse *parse)
{
  Pools *pools;

  if (parse == NULL)
    return;
  pools = POOLS ? thread_pools_get () : NULL;
  free_set (parse->error);
  free_set (parse->ask);
  /* Kept for the thread's next parse, emptied (which frees the parts); a
   * long script's array is not kept at its size. */
  if (pools != NULL && pools->parse == NULL && parse->parts->len <= 64)
    {
      /* The parts go back with one look at the thread's pools, not one
       * each through the array's free function. */
      for (guint i = 0; i < parse->parts->len; i++)
        if (parse->parts->pdata[i] != NULL)
          part_release (pools, parse->parts->pdata[i]);
      g_ptr_array_set_free_func (parse->parts, NULL);
      g_ptr_array_set_size (parse->parts, 0);
      g_ptr_array_set_free_func (parse->parts, part_free);
      pools->parse = parse;
      return;
    }
  g_ptr_array_unref (parse->parts);
  g_free (parse);
}
