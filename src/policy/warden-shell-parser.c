/* warden-shell-parser.c: a bash parser that finds every command a line could run
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
#include <sys/stat.h>

#include "warden-pattern.h"
#include "warden-protected-path.h"
#include "warden-shell-parser.h"

enum
{
  W_QUOTED  = 1 << 0,  /* some quoting was used: not a reserved word */
  W_EXPAND  = 1 << 1,  /* $var, ${…}, $( ), $(( )), backticks */
  W_GLOB    = 1 << 2,  /* unquoted * ? [ … ] */
  W_BRACE   = 1 << 3,  /* unquoted {a,b} or {1..3} */
  W_TILDE   = 1 << 4,  /* leading unquoted ~ */
  W_ANSI    = 1 << 5,  /* $'…' or $"…" */
  W_PROCSUB = 1 << 6,  /* <( … ) or >( … ) */
  W_ASSIGN  = 1 << 7,  /* NAME=…, NAME+=…, NAME[…]=… */
  W_VANISH  = 1 << 8,  /* only unquoted expansions ($x, $(cmd), "$@"): may be no word at all */
};
#define W_NONLITERAL (W_EXPAND | W_GLOB | W_BRACE | W_TILDE | W_ANSI | W_PROCSUB)

typedef enum
{
  T_EOF,
  T_WORD,
  T_NEWLINE,
  T_SEMI,        /* ; */
  T_AMP,         /* & */
  T_AND,         /* && */
  T_OR,          /* || */
  T_PIPE,        /* | */
  T_PIPE_AMP,    /* |& */
  T_LPAREN,      /* ( */
  T_RPAREN,      /* ) */
  T_DLPAREN,     /* (( at the start of a token */
  T_DSEMI,       /* ;; */
  T_SEMI_AMP,    /* ;& */
  T_DSEMI_AMP,   /* ;;& */
  T_REDIR,       /* < > >> >| <> << <<- <<< <& >& &> &>>, maybe after a number */
} TokenType;

typedef struct
{
  TokenType  type;
  guint      flags;     /* W_* for words */
  GString   *text;      /* words: after quote removal; redirections: the operator */
  gsize      start;     /* offset of the token in its buffer */
  guint      parts_before;  /* parts emitted before the token was read */
  gboolean   reserved;  /* an unquoted word that may be a reserved word */
} Token;

typedef struct _Part Part;

typedef struct
{
  char    *delimiter;
  gboolean quoted;
  gboolean strip_tabs;
  Part    *script_of;   /* the shell that reads this body as its script */
  gboolean read;        /* the body has been read: */
  gsize    body;        /* its offsets in the lexer's text */
  gsize    body_end;
} Heredoc;

/* The shells a line may meet as the sandbox's /bin/sh: dash on Debian images,
 * busybox ash on Alpine ones, bash elsewhere. They agree on POSIX, and each
 * construct of bash's that the others read differently is noted in hits;
 * a script with any is read again the way each other shell reads it. */
typedef enum
{
  DIALECT_BASH,
  DIALECT_DASH,
  DIALECT_BUSYBOX,
  N_DIALECTS
} Dialect;

/* Readings of one line, all scripts within it counted: beyond this, ask. */
#define MAX_READINGS 64

typedef struct
{
  const WardenShellOptions *options;
  Dialect                   dialect;
  gboolean                  dialect_hit;   /* a construct the shells read differently */
  guint                     readings;
  GPtrArray                *parts;
  char                     *error;
  const char               *workspace;
  gsize                     workspace_len;
  guint                     depth;
  gboolean                  cd_seen;
  guint                     loop_id;
  guint                     next_loop_id;
  /* The workspace's real path, when it exists on this machine. */
  gboolean                  workspace_checked;
  char                     *workspace_real;
  /* Why the whole line asks though it parsed, or NULL. */
  char                     *ask;
  /* Strings and item arrays, reused: a decision must cost microseconds. */
  GPtrArray                *strings;
  GPtrArray                *arrays;
} State;

typedef struct
{
  State        *st;
  const char   *s;
  gsize         n;
  gsize         i;
  WardenOrigin  origin;
  gboolean      have_tok;
  Token         tok;
  GPtrArray    *heredocs;   /* of Heredoc, for the lexer's life (items point to them) */
  /* Here-documents before this index belong to a command outside the
   * substitution being read: their bodies come after the line ends. */
  guint         heredoc_floor;
  guint         heredoc_scan;   /* the first that may be unread, at or above the floor */
  guint         substitutions;  /* how many $( ), <( ) are being read */
  guint         lists_done; /* top-level lines completed: a shell has run them */
  guint         top_depth;  /* the depth at which this script's lines are read */
  GHashTable   *not_arith;  /* offsets where "((" turned out not to be arithmetic */
  const char   *what;       /* "", " in a backtick substitution", … for errors */
} Lexer;

/* A word of a simple command, pointing into the command's storage. */
typedef struct
{
  const char *text;
  guint       flags;
} WordRef;

typedef enum { ITEM_ASSIGN, ITEM_WORD, ITEM_REDIR } ItemKind;

typedef struct
{
  ItemKind  kind;
  guint     flags;
  GString  *text;     /* the word, or the redirection operator */
  GString  *target;   /* redirections only */
  Heredoc  *heredoc;  /* << and <<- only */
} Item;

typedef struct
{
  char    *text;
  gboolean output;    /* writes to its target */
  gboolean dup;       /* >&2, <&0, >&- */
} Redirection;

/* Private fields of WardenCommandPart, kept beside it. */
struct _Part
{
  WardenCommandPart  pub;
  guint              loop_id;
  gboolean           relative_redirect;
  gboolean           shell_reads_stdin;  /* sh with no -c and no script file */
};

static void     consume        (Lexer *L);
static guint    parse_list     (Lexer *L, guint stop);
static gboolean parse_command  (Lexer *L);
static gboolean lex_word_into  (Lexer *L, GString *out, guint *flags, gboolean array_elem);
static gboolean lex_dquote     (Lexer *L, GString *out, guint *flags, gssize end, gboolean heredoc);
static void     parse_string   (State *st, const char *s, gsize n, WardenOrigin origin, const char *what);
static void     parse_as_sh_would (Lexer *L, gsize start, gsize end);
static gboolean names_sensitive_var (const char *arg);
static gboolean names_dangerous_var (const char *arg);
static void     append_redirection_text (GString *text, Item *it);
static Heredoc *pending_heredoc (Lexer *L);
static void     emit_words     (Lexer *L, const WordRef *words, guint n_words, WardenOrigin origin,
                                const char *hole_token, gboolean append_hole,
                                const char *hole_prefix, const char *runner);

/* ------------------------------------------------------------------------ */
/* Errors and state */

static GString *
string_get (State *st)
{
  if (st->strings != NULL && st->strings->len > 0)
    {
      GString *s = g_ptr_array_steal_index_fast (st->strings, st->strings->len - 1);

      g_string_truncate (s, 0);
      return s;
    }
  return g_string_sized_new (32);
}

/* The fuzz build frees at once, so that AddressSanitizer sees a string
 * used after it was given back. */
#ifdef WARDEN_FUZZING
# define POOLS 0
#else
# define POOLS 1
#endif

static void
string_put (State   *st,
            GString *s)
{
  if (s == NULL)
    return;
  if (!POOLS)
    {
      g_string_free (s, TRUE);
      return;
    }
  if (st->strings == NULL)
    st->strings = g_ptr_array_new ();
  if (st->strings->len < 64 && s->allocated_len <= 4096)
    g_ptr_array_add (st->strings, s);
  else
    g_string_free (s, TRUE);
}

static GArray *
array_get (State *st)
{
  if (st->arrays != NULL && st->arrays->len > 0)
    return g_ptr_array_steal_index_fast (st->arrays, st->arrays->len - 1);
  return g_array_sized_new (FALSE, TRUE, sizeof (Item), 8);
}

static void
array_put (State  *st,
           GArray *a)
{
  if (!POOLS)
    {
      g_array_unref (a);
      return;
    }
  g_array_set_size (a, 0);
  if (st->arrays == NULL)
    st->arrays = g_ptr_array_new ();
  if (st->arrays->len < 16)
    g_ptr_array_add (st->arrays, a);
  else
    g_array_unref (a);
}

static void
pools_free (gpointer data)
{
  State *st = data;

  for (guint i = 0; st->strings && i < st->strings->len; i++)
    g_string_free (g_ptr_array_index (st->strings, i), TRUE);
  for (guint i = 0; st->arrays && i < st->arrays->len; i++)
    g_array_unref (g_ptr_array_index (st->arrays, i));
  g_clear_pointer (&st->strings, g_ptr_array_unref);
  g_clear_pointer (&st->arrays, g_ptr_array_unref);
  g_free (st);
}

/* The pools outlive a parse, one set per thread, so that deciding the next
 * command allocates almost nothing for its tokens. */
static GPrivate pools_key = G_PRIVATE_INIT (pools_free);

static void
pools_take (State *st)
{
  State *saved = g_private_get (&pools_key);

  if (saved != NULL)
    {
      st->strings = g_steal_pointer (&saved->strings);
      st->arrays = g_steal_pointer (&saved->arrays);
    }
}

static void
pools_give_back (State *st)
{
  State *saved = g_private_get (&pools_key);

  if (saved == NULL)
    {
      saved = g_new0 (State, 1);
      g_private_set (&pools_key, saved);
    }
  if (saved->strings == NULL && saved->arrays == NULL)
    {
      saved->strings = g_steal_pointer (&st->strings);
      saved->arrays = g_steal_pointer (&st->arrays);
    }
  else
    {
      State tmp = { 0 };

      tmp.strings = g_steal_pointer (&st->strings);
      tmp.arrays = g_steal_pointer (&st->arrays);
      pools_free (g_memdup2 (&tmp, sizeof tmp));
    }
}

/* The words of a command in one block: argv, then the strings. */
static char **
make_argv (const WordRef *w,
           guint          n)
{
  gsize size = (n + 1) * sizeof (char *);
  char **argv;
  char *p;

  for (guint i = 0; i < n; i++)
    size += strlen (w[i].text) + 1;
  argv = g_malloc (size);
  p = (char *) (argv + n + 1);
  for (guint i = 0; i < n; i++)
    {
      gsize len = strlen (w[i].text) + 1;

      argv[i] = memcpy (p, w[i].text, len);
      p += len;
    }
  argv[n] = NULL;
  return argv;
}

static gboolean
failed (Lexer *L)
{
  return L->st->error != NULL;
}

G_GNUC_PRINTF (2, 3)
static gboolean
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

/* In bash, arithmetic on a variable whose value is "a[$(cmd)]" runs cmd:
 * the subscript is expanded when the value is evaluated. Values can come
 * from files, globs or stdin within the line, so such arithmetic asks. */
static void
arithmetic_on_variables (Lexer *L)
{
  if (L->st->ask == NULL)
    L->st->ask = g_strdup ("arithmetic on variables can run commands in bash (a value like "
                           "a[$(cmd)] runs cmd)");
}

static gboolean
enter (Lexer *L)
{
  if (failed (L))
    return FALSE;
  if (++L->st->depth > WARDEN_SHELL_MAX_DEPTH)
    return fail (L, "nesting deeper than %d levels", WARDEN_SHELL_MAX_DEPTH);
  return TRUE;
}

static void
leave (Lexer *L)
{
  L->st->depth--;
}

static void
part_free (gpointer data)
{
  Part *p = data;

  if (p == NULL)
    return;

  g_free (p->pub.text);
  g_free (p->pub.match_text);
  g_free (p->pub.base_text);
  g_free (p->pub.expanded_text);
  g_free (p->pub.min_text);
  g_free (p->pub.argv);
  g_free (p->pub.force_ask);
  g_free (p);
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

  p = g_new0 (Part, 1);
  p->pub.kind = kind;
  p->pub.origin = origin;
  p->loop_id = L->st->loop_id;
  g_ptr_array_insert (L->st->parts, MIN (index, L->st->parts->len), p);
  return p;
}

static Part *
new_part (Lexer          *L,
          WardenPartKind  kind,
          WardenOrigin    origin)
{
  return new_part_at (L, kind, origin, G_MAXUINT);
}

/* The first reason wins: it is the one the user sees. */
static void
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
/* Characters */

/* Current byte, after joining backslash-newline line continuations. */
static inline int
peekc (Lexer *L)
{
  while (L->i + 1 < L->n && L->s[L->i] == '\\' && L->s[L->i + 1] == '\n')
    L->i += 2;
  return L->i < L->n ? (guchar) L->s[L->i] : -1;
}

/* The byte after the current one, continuations joined. */
static inline int
peekc2 (Lexer *L)
{
  gsize j;

  if (peekc (L) < 0)
    return -1;
  j = L->i + 1;
  while (j + 1 < L->n && L->s[j] == '\\' && L->s[j + 1] == '\n')
    j += 2;
  return j < L->n ? (guchar) L->s[j] : -1;
}

static inline void
advance (Lexer *L)
{
  peekc (L);
  if (L->i < L->n)
    L->i++;
}

static inline gboolean
is_meta (int c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' ||
         c == '(' || c == ')' || c == '<' || c == '>' || c < 0;
}

static inline gboolean
is_name_start (int c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline gboolean
is_name_char (int c)
{
  return is_name_start (c) || (c >= '0' && c <= '9');
}

/* NAME=, NAME+= or NAME[…]= at the start of raw source text. */
static gboolean
raw_is_assignment (const char *s,
                   gsize       n)
{
  gsize i = 0;

  if (n == 0 || !is_name_start ((guchar) s[0]))
    return FALSE;
  while (i < n && is_name_char ((guchar) s[i]))
    i++;
  if (i < n && s[i] == '[')
    {
      while (i < n && s[i] != ']')
        i++;
      if (i >= n)
        return FALSE;
      i++;
    }
  if (i < n && s[i] == '+')
    i++;
  return i < n && s[i] == '=';
}

/* ------------------------------------------------------------------------ */
/* Substitutions */

/* Parses a command list up to its ")" for a substitution of kind @origin. */
static gboolean
parse_until_rparen (Lexer        *L,
                    WardenOrigin  origin,
                    const char   *what)
{
  WardenOrigin saved = L->origin;
  guint saved_floor, saved_scan;

  /* Called while a token is being read, so none is cached; if one were, it
   * would be lost, and an engine that is unsure asks. */
  if (L->have_tok)
    return fail (L, "unexpected %s", what);
  if (!enter (L))
    return FALSE;

  L->origin = origin;
  saved_floor = L->heredoc_floor;
  saved_scan = L->heredoc_scan;
  L->substitutions++;
  L->heredoc_floor = L->heredocs != NULL ? L->heredocs->len : 0;
  parse_list (L, 0);
  if (!failed (L) && (!L->have_tok || L->tok.type != T_RPAREN))
    fail (L, "unterminated %s", what);
  /* "$(cat <<EOF)": where its body would be read, shells differ. */
  if (!failed (L) && pending_heredoc (L) != NULL)
    fail (L, "a here-document in a %s ends before its body", what);
  if (L->have_tok)
    consume (L);
  L->heredoc_floor = saved_floor;
  L->heredoc_scan = saved_scan;
  L->substitutions--;
  L->origin = saved;
  leave (L);
  return !failed (L);
}

/* After "$(": the command substitution, appended to @out as written. */
static gboolean
parse_comsub (Lexer   *L,
              GString *out,
              gsize    start)
{
  if (!parse_until_rparen (L, WARDEN_ORIGIN_SUBSTITUTION, "command substitution $( … )"))
    return FALSE;
  g_string_append_len (out, L->s + start, L->i - start);
  return TRUE;
}

/* At "<(" or ">(": the process substitution, appended to @out as written. */
static gboolean
parse_procsub (Lexer   *L,
               GString *out)
{
  gsize start = L->i;

  advance (L);  /* < or > */
  advance (L);  /* ( */
  if (!parse_until_rparen (L, WARDEN_ORIGIN_PROCESS_SUBSTITUTION, "process substitution"))
    return FALSE;
  g_string_append_len (out, L->s + start, L->i - start);
  return TRUE;
}

/* Backticks: the text up to the closing backtick, with \` \$ \\ (and \" in
 * double quotes) unescaped, is parsed as a script of its own. */
static gboolean
lex_backtick (Lexer    *L,
              GString  *out,
              gboolean  in_dquote)
{
  gsize start = L->i;
  g_autoptr(GString) inner = g_string_new (NULL);

  advance (L);
  for (;;)
    {
      int c = peekc (L);

      if (c < 0)
        return fail (L, "unterminated backtick substitution");
      if (c == '`')
        {
          advance (L);
          break;
        }
      if (c == '\\' && L->i + 1 < L->n)
        {
          char next = L->s[L->i + 1];

          if (next == '`' || next == '$' || next == '\\' || (in_dquote && next == '"'))
            {
              g_string_append_c (inner, next);
              L->i += 2;
              continue;
            }
        }
      g_string_append_c (inner, c);
      L->i++;
    }

  if (!enter (L))
    return FALSE;
  parse_string (L->st, inner->str, inner->len, WARDEN_ORIGIN_SUBSTITUTION,
                " in a backtick substitution");
  leave (L);
  if (failed (L))
    return FALSE;

  g_string_append_len (out, L->s + start, L->i - start);
  return TRUE;
}

/* Arithmetic: $(( … )), (( … )), $[ … ]. Substitutions inside are parsed;
 * the rest is skipped. Returns FALSE without an error when the text turns
 * out not to be arithmetic ("((cmd) )" is a subshell in a subshell). */
static gboolean
scan_arith (Lexer   *L,
            GString *out,
            int      close)
{
  guint parens = 0;
  g_autoptr(GString) junk = g_string_new (NULL);
  guint flags = 0;
  gboolean ok = FALSE;

  /* Every recursion counts toward one limit: "$[$[$[…" must not exhaust
   * the stack of a worker thread. */
  if (!enter (L))
    return FALSE;

  for (;;)
    {
      int c = peekc (L);

      if (failed (L))
        break;
      if (c < 0)
        {
          fail (L, "unterminated arithmetic expression");
          break;
        }

      if (close == ']' && c == ']' && parens == 0)
        {
          advance (L);
          ok = TRUE;
          break;
        }
      /* A number in any of bash's forms: 42, 0x1F, 16#ff, 64#_@. */
      if (g_ascii_isdigit (c) &&
          (L->i == 0 || !(is_name_char ((guchar) L->s[L->i - 1]) || L->s[L->i - 1] == '#')))
        {
          gboolean hex = c == '0' && (peekc2 (L) == 'x' || peekc2 (L) == 'X');

          advance (L);
          if (hex)
            advance (L);
          while ((c = peekc (L)) >= 0 &&
                 (hex ? g_ascii_isxdigit (c) : g_ascii_isdigit (c)))
            advance (L);
          if (!hex && c == '#')
            {
              advance (L);
              while ((c = peekc (L)) >= 0 && (is_name_char (c) || c == '@'))
                advance (L);
            }
          continue;
        }
      /* Numbers and operators are all that can be known: a name, quoted
       * or escaped or not ("i", \i, $i), is a variable whose value bash
       * evaluates in turn, and "a[$(cmd)]" there runs cmd. */
      if (strchr ("0123456789 \t\n+-*/%<>=!&|^~?:,()", c) == NULL)
        arithmetic_on_variables (L);
      if (c == '(')
        parens++;
      else if (c == ')')
        {
          if (parens > 0)
            parens--;
          else if (close == ')' && peekc2 (L) == ')')
            {
              advance (L);
              advance (L);
              ok = TRUE;
              break;
            }
          else
            break;
        }

      if (c == '$' || c == '`' || c == '"' || c == '\'' || c == '\\')
        {
          /* Quotes and substitutions read as in a word. */
          if (c == '"')
            {
              advance (L);
              if (!lex_dquote (L, junk, &flags, -1, FALSE))
                break;
              continue;
            }
          if (c == '\'')
            {
              advance (L);
              while (L->i < L->n && L->s[L->i] != '\'')
                L->i++;
              if (L->i >= L->n)
                {
                  fail (L, "unterminated single quote");
                  break;
                }
              L->i++;
              continue;
            }
          if (c == '\\')
            {
              advance (L);
              advance (L);
              continue;
            }
          if (!lex_word_into (L, junk, &flags, TRUE))
            {
              if (!failed (L))
                advance (L);
              continue;
            }
          continue;
        }
      advance (L);
    }

  leave (L);
  return ok && !failed (L);
}

/* Remembers that the "((" at @pos is not arithmetic, so that nested
 * "$(((…" is tried as arithmetic once per level, not twice per level
 * below it: without this, 15 levels took minutes. */
static gboolean
known_not_arith (Lexer *L,
                 gsize  pos)
{
  return L->not_arith != NULL && g_hash_table_contains (L->not_arith, GSIZE_TO_POINTER (pos + 1));
}

static void
note_not_arith (Lexer *L,
                gsize  pos)
{
  if (L->not_arith == NULL)
    L->not_arith = g_hash_table_new (NULL, NULL);
  g_hash_table_add (L->not_arith, GSIZE_TO_POINTER (pos + 1));
}

/* ${ … }: nested braces, quotes and substitutions are honoured. Inside double
 * quotes, single quotes are not quoting characters there ("${x:-'$(cmd)'}"
 * runs cmd), so they are only skipped when not @in_dquote. */
static gboolean
scan_param (Lexer    *L,
            GString  *out,
            gboolean  in_dquote)
{
  gsize start = L->i;
  guint braces = 1;
  g_autoptr(GString) junk = g_string_new (NULL);
  guint flags = 0;

  advance (L);  /* $ */
  advance (L);  /* { */
  if (!enter (L))
    return FALSE;

  /* ${!name}, ${#a[i]}, ${name[expr]}, ${@:i} and ${name:offset:length}
   * evaluate arithmetic; ${NAME=…} and ${NAME:=…} assign. */
  {
    gsize j = L->i, name_start, name_end;

    if (j < L->n && (L->s[j] == '!' || L->s[j] == '#') && j + 1 < L->n && L->s[j + 1] != '}')
      {
        if (L->s[j] == '!')
          arithmetic_on_variables (L);
        j++;
      }
    name_start = j;
    if (j < L->n && is_name_start ((guchar) L->s[j]))
      while (j < L->n && is_name_char ((guchar) L->s[j]))
        j++;
    else if (j < L->n && g_ascii_isdigit (L->s[j]))
      while (j < L->n && g_ascii_isdigit (L->s[j]))
        j++;
    else if (j < L->n && strchr ("@*#?-$!", L->s[j]) != NULL)
      j++;
    name_end = j;

    if (j < L->n && L->s[j] == '[')
      {
        /* Only numbers, @ and * are known without evaluating anything. */
        for (j++; j < L->n && L->s[j] != ']' && L->s[j] != '}'; j++)
          if (strchr ("0123456789@* \t", L->s[j]) == NULL)
            arithmetic_on_variables (L);
        if (j < L->n && L->s[j] == ']')
          j++;
      }
    if (j + 1 < L->n && L->s[j] == ':' && strchr ("-=?+", L->s[j + 1]) == NULL)
      {
        /* A substring: offset and length are arithmetic. */
        for (j++; j < L->n && L->s[j] != '}'; j++)
          if (strchr ("0123456789:-+ \t()", L->s[j]) == NULL)
            {
              arithmetic_on_variables (L);
              break;
            }
      }
    else if (j < L->n && (L->s[j] == '=' || (L->s[j] == ':' && j + 1 < L->n && L->s[j + 1] == '=')) &&
             name_end > name_start && is_name_start ((guchar) L->s[name_start]))
      {
        g_autofree char *var = g_strndup (L->s + name_start, name_end - name_start);

        if (names_sensitive_var (var) && L->st->ask == NULL)
          L->st->ask = g_strdup_printf ("${%s=…} assigns %s, which changes what later commands "
                                        "run", var, var);
      }
  }

  while (braces > 0)
    {
      int c = peekc (L);

      if (failed (L))
        break;
      if (c < 0)
        {
          fail (L, "unterminated parameter expansion ${ … }");
          break;
        }
      switch (c)
        {
        case '}':
          /* No shell counts a bare "{" inside ${ … }: "${x-{}" ends at the
           * first "}", nested ${ } are read by lex_dollar. */
          braces--;
          advance (L);
          break;
        case '@':
          /* ${x@P} expands x like a prompt, running the $( ) in its value. */
          if (L->i + 1 < L->n && L->s[L->i + 1] == 'P' && L->st->ask == NULL)
            L->st->ask = g_strdup ("${…@P} expands a value like a prompt, which runs the "
                                   "commands in it");
          advance (L);
          break;
        case '\\':
          advance (L);
          advance (L);
          break;
        case '\'':
          /* In "${ … }", bash lets '…' hide a "}" and sh does not: they would
           * end the expansion in different places. */
          if (in_dquote)
            {
              fail (L, "a single quote inside \"${ … }\" is read differently by bash and sh");
              break;
            }
          advance (L);
          if (!in_dquote)
            {
              while (L->i < L->n && L->s[L->i] != '\'')
                L->i++;
              if (L->i >= L->n)
                fail (L, "unterminated single quote");
              else
                L->i++;
            }
          break;
        case '"':
          advance (L);
          lex_dquote (L, junk, &flags, -1, FALSE);
          break;
        case '<':
        case '>':
          /* ${x-<(cmd)}: bash and busybox run a process substitution in
           * the word (found by the oracle); dash reads it as text. */
          if (peekc2 (L) == '(' && !in_dquote && (L->st->dialect_hit = TRUE) &&
              L->st->dialect != DIALECT_DASH)
            parse_procsub (L, junk);
          else
            advance (L);
          break;
        case '$':
        case '`':
          {
            gsize before = L->i;

            if (c == '`')
              lex_backtick (L, junk, in_dquote);
            else if (!lex_word_into (L, junk, &flags, TRUE) && !failed (L) && L->i == before)
              advance (L);
          }
          break;
        default:
          advance (L);
        }
    }
  leave (L);

  if (failed (L))
    return FALSE;
  g_string_append_len (out, L->s + start, L->i - start);
  return TRUE;
}

/* Reads up to @max digits of base @base at the lexer; -1 when there are none. */
static gint64
read_digits (Lexer *L,
             guint  base,
             guint  max)
{
  gint64 v = 0;
  guint k = 0;

  while (k < max && L->i < L->n && L->s[L->i] != '\'' &&
         (base == 16 ? g_ascii_isxdigit (L->s[L->i]) : (L->s[L->i] >= '0' && L->s[L->i] <= '7')))
    {
      v = v * base + g_ascii_xdigit_value (L->s[L->i++]);
      k++;
    }
  return k > 0 ? v : -1;
}

/* The inside of $'…' (after the quote), decoded as the reading's shell does,
 * so that patterns meet "rm $'-\u0072f'" as "rm -rf". bash keeps unknown
 * escapes with their backslash and ends the string at a NUL; busybox knows
 * fewer escapes (no \e, \c, \u, \U) and drops a NUL. */
static gboolean
lex_ansi_c (Lexer   *L,
            GString *out)
{
  gboolean bash = L->st->dialect == DIALECT_BASH;
  gboolean truncated = FALSE;
  gsize mark;

  for (;;)
    {
      int c;
      gint64 v;

      if (L->i >= L->n)
        return fail (L, "unterminated $'…' string");
      c = (guchar) L->s[L->i++];
      if (c == '\'')
        return TRUE;
      mark = out->len;
      if (c != '\\' || L->i >= L->n)
        {
          g_string_append_c (out, c);
          goto next;
        }

      c = (guchar) L->s[L->i++];
      switch (c)
        {
        case '\'':
          /* sh has no $'…': there the quote ends at this \', in bash and
           * busybox it does not, and they read different commands after it. */
          return fail (L, "a $'…' string with \\' is read differently by bash and sh");
        case 'n': g_string_append_c (out, '\n'); break;
        case 't': g_string_append_c (out, '\t'); break;
        case 'r': g_string_append_c (out, '\r'); break;
        case 'a': g_string_append_c (out, '\a'); break;
        case 'b': g_string_append_c (out, '\b'); break;
        case 'f': g_string_append_c (out, '\f'); break;
        case 'v': g_string_append_c (out, '\v'); break;
        case '\\': g_string_append_c (out, '\\'); break;
        case '"': g_string_append_c (out, '"'); break;
        case 'e': case 'E': case '?':
          if (bash)
            g_string_append_c (out, c == '?' ? '?' : '\033');
          else
            g_string_append_c (out, '\\'), g_string_append_c (out, c);
          break;
        case 'x':
          v = read_digits (L, 16, 2);
          if (v < 0)
            g_string_append (out, "\\x");
          else
            g_string_append_c (out, (char) v);
          break;
        case 'u': case 'U':
          v = bash ? read_digits (L, 16, c == 'u' ? 4 : 8) : -1;
          if (v < 0)
            g_string_append_c (out, '\\'), g_string_append_c (out, c);
          else if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
            return fail (L, "a $'…' string with an escape that is no character");
          else
            g_string_append_unichar (out, (gunichar) v);
          break;
        case 'c':
          if (!bash)
            g_string_append (out, "\\c");
          else if (L->i >= L->n || L->s[L->i] == '\'')
            return fail (L, "a $'…' string ends in \\c");
          else
            {
              int x = (guchar) L->s[L->i++];

              if (x == '\\' && L->i < L->n && L->s[L->i] == '\\')
                L->i++;
              g_string_append_c (out, x == '?' ? 0x7f : (g_ascii_toupper (x) & 0x1f));
            }
          break;
        case '0': case '1': case '2': case '3':
        case '4': case '5': case '6': case '7':
          L->i--;
          v = read_digits (L, 8, 3);
          if (v > 0377)
            return fail (L, "a $'…' octal escape past \\377 is read differently by bash and "
                            "busybox");
          g_string_append_c (out, (char) v);
          break;
        default:
          /* An unknown escape keeps its backslash. */
          g_string_append_c (out, '\\');
          g_string_append_c (out, c);
        }

    next:
      /* A NUL ends the string for bash (the rest is still read) and is
       * dropped by busybox. */
      if (memchr (out->str + mark, '\0', out->len - mark) != NULL)
        {
          g_string_truncate (out, mark);
          truncated = bash;
        }
      if (truncated)
        g_string_truncate (out, MIN (out->len, mark));
    }
}

/* At a '$': reads one expansion (or a lone '$') into @out. */
static gboolean
lex_dollar (Lexer    *L,
            GString  *out,
            guint    *flags,
            gboolean  in_dquote)
{
  gsize start = L->i;
  int c2 = peekc2 (L);

  if (c2 == '(')
    {
      *flags |= W_EXPAND;
      advance (L);
      advance (L);
      if (peekc (L) == '(' && !known_not_arith (L, L->i))
        {
          gsize save = L->i;
          guint n_parts = L->st->parts->len;

          advance (L);
          if (scan_arith (L, out, ')'))
            {
              g_string_append_len (out, L->s + start, L->i - start);
              return TRUE;
            }
          if (failed (L))
            return FALSE;
          /* "$((cmd) )": a command substitution holding a subshell. */
          g_ptr_array_set_size (L->st->parts, n_parts);
          L->i = save;
          note_not_arith (L, save);
        }
      return parse_comsub (L, out, start);
    }
  if (c2 == '{')
    {
      *flags |= W_EXPAND;
      return scan_param (L, out, in_dquote);
    }
  if (c2 == '[')
    {
      /* $[ … ] is bash's alone: dash and busybox read a "$" and go on,
       * so "$[1;evil;1]" runs evil there. */
      L->st->dialect_hit = TRUE;
      if (L->st->dialect != DIALECT_BASH)
        {
          g_string_append_c (out, '$');
          advance (L);
          return TRUE;
        }
      *flags |= W_EXPAND;
      advance (L);
      advance (L);
      if (!scan_arith (L, out, ']'))
        return failed (L) ? FALSE : fail (L, "unterminated arithmetic expression $[ … ]");
      g_string_append_len (out, L->s + start, L->i - start);
      return TRUE;
    }
  if (!in_dquote && c2 == '\'')
    {
      /* $'…' is not dash's: there it is a "$" and a single-quoted string. */
      L->st->dialect_hit = TRUE;
      if (L->st->dialect == DIALECT_DASH)
        {
          g_string_append_c (out, '$');
          advance (L);
          return TRUE;
        }
      *flags |= W_ANSI | W_QUOTED;
      advance (L);
      advance (L);
      return lex_ansi_c (L, out);
    }
  if (!in_dquote && c2 == '"')
    {
      /* $"…" is bash's alone: dash and busybox read "$" then "…". */
      L->st->dialect_hit = TRUE;
      if (L->st->dialect != DIALECT_BASH)
        {
          g_string_append_c (out, '$');
          advance (L);
          return TRUE;
        }
      *flags |= W_ANSI | W_QUOTED;
      advance (L);
      advance (L);
      return lex_dquote (L, out, flags, -1, FALSE);
    }
  if (is_name_start (c2) || g_ascii_isdigit (c2) || (c2 >= 0 && strchr ("@*#?-$!", c2) != NULL))
    {
      *flags |= W_EXPAND;
      g_string_append_c (out, '$');
      advance (L);
      if (is_name_start (c2))
        {
          while (is_name_char (peekc (L)))
            {
              g_string_append_c (out, peekc (L));
              advance (L);
            }
        }
      else
        {
          g_string_append_c (out, c2);
          advance (L);
        }
      return TRUE;
    }

  /* A lone dollar is a literal character. */
  g_string_append_c (out, '$');
  advance (L);
  return TRUE;
}

/* The inside of double quotes (after the opening quote), or a here-document
 * body when @heredoc (up to @end, where '"' is an ordinary character). */
static gboolean
lex_dquote (Lexer    *L,
            GString  *out,
            guint    *flags,
            gssize    end,
            gboolean  heredoc)
{
  *flags |= W_QUOTED;

  for (;;)
    {
      int c = peekc (L);

      if (failed (L))
        return FALSE;
      if (end >= 0 && L->i >= (gsize) end)
        return TRUE;
      if (c < 0)
        return heredoc ? TRUE : fail (L, "unterminated double quote");
      if (c == '"' && !heredoc)
        {
          advance (L);
          return TRUE;
        }
      if (c == '\\')
        {
          int e = L->i + 1 < L->n ? (guchar) L->s[L->i + 1] : -1;

          if (e == '$' || e == '`' || e == '\\' || (e == '"' && !heredoc))
            {
              g_string_append_c (out, e);
              L->i += 2;
            }
          else
            {
              g_string_append_c (out, '\\');
              L->i++;
            }
          continue;
        }
      if (c == '$')
        {
          if (!lex_dollar (L, out, flags, TRUE))
            return FALSE;
          continue;
        }
      if (c == '`')
        {
          *flags |= W_EXPAND;
          if (!lex_backtick (L, out, !heredoc))
            return FALSE;
          continue;
        }
      g_string_append_c (out, c);
      L->i++;
    }
}

/* ------------------------------------------------------------------------ */
/* Words and tokens */

/* "$@", "${@…}" and "${name[@]…}" are no word at all when there is nothing
 * to expand; other double-quoted strings are one word, maybe empty. */
static gboolean
dquote_may_vanish (const char *s,
                   gsize       n)
{
  gsize i = 1;

  if (n < 4 || s[0] != '"' || s[1] != '$')
    return FALSE;
  if (s[2] == '@')
    return n > 3 && s[3] == '"';
  if (s[2] != '{')
    return FALSE;
  if (s[3] == '@')
    return TRUE;
  for (i = 3; i < n && is_name_char ((guchar) s[i]); i++)
    ;
  return i + 2 < n && s[i] == '[' && s[i + 1] == '@' && s[i + 2] == ']';
}



/* Reads one word at the current position. With @array_elem, stops quietly
 * on a metacharacter (for arithmetic and ${ } scanning, which call it on a
 * '$'). Returns FALSE on error, or when nothing could be read. */
static gboolean
lex_word_into (Lexer    *L,
               GString  *out,
               guint    *flags,
               gboolean  array_elem)
{
  gsize start = L->i;
  gboolean brace_open = FALSE, brace_list = FALSE;
  gboolean bracket_open = FALSE;
  gboolean any = FALSE;
  /* Whether the word holds anything but unquoted expansions: if not, it may
   * expand to no word at all, and the command runs without it. */
  gboolean literal = FALSE, expansion = FALSE;

  for (;;)
    {
      int c = peekc (L);

      if (failed (L))
        return FALSE;

      /* Once a word holds a literal character it cannot vanish: most words
       * are decided at their first character. */
      if (!literal && c >= 0)
        {
          if (c == '$')
            {
              int c2 = peekc2 (L);

              if (c2 == '{' || is_name_start (c2) || g_ascii_isdigit (c2) ||
                  (c2 >= 0 && strchr ("@*#?-$!", c2) != NULL) ||
                  (c2 == '(' && L->i + 2 < L->n && L->s[L->i + 2] != '('))
                expansion = TRUE;
              else
                literal = TRUE;
            }
          else if (c == '`' || (c == '"' && dquote_may_vanish (L->s + L->i, L->n - L->i)))
            expansion = TRUE;
          else if (!is_meta (c) || c == '<' || c == '>')
            literal = TRUE;
        }

      /* Process substitution may start anywhere in a word; dash has none. */
      if ((c == '<' || c == '>') && peekc2 (L) == '(' && (L->st->dialect_hit = TRUE) &&
          L->st->dialect != DIALECT_DASH)
        {
          if (array_elem && any)
            return TRUE;
          *flags |= W_PROCSUB;
          if (!parse_procsub (L, out))
            return FALSE;
          any = TRUE;
          if (array_elem)
            return TRUE;
          continue;
        }

      if (c == '(' && any && (*flags & W_ASSIGN) == 0 && !array_elem &&
          L->st->dialect == DIALECT_BASH &&
          raw_is_assignment (L->s + start, L->i - start) && L->i > start && L->s[L->i - 1] == '=')
        {
          /* NAME=( elements ): an array assignment, bash's alone. */
          gsize astart = L->i;

          L->st->dialect_hit = TRUE;

          *flags |= W_ASSIGN;
          advance (L);
          for (;;)
            {
              int d;
              g_autoptr(GString) elem = g_string_new (NULL);
              guint eflags = 0;

              while ((d = peekc (L)) == ' ' || d == '\t' || d == '\n')
                {
                  if (d == '\n' && pending_heredoc (L) != NULL)
                    return fail (L, "a here-document's body would start inside an array "
                                    "assignment");
                  advance (L);
                }
              if (d == '#')
                {
                  while (L->i < L->n && L->s[L->i] != '\n')
                    L->i++;
                  continue;
                }
              if (d == ')')
                {
                  advance (L);
                  break;
                }
              if (d < 0 || (is_meta (d) && d != '<' && d != '>'))
                return fail (L, "unterminated array assignment");
              if (!lex_word_into (L, elem, &eflags, FALSE))
                return FALSE;
              *flags |= eflags & W_EXPAND;
            }
          g_string_append_len (out, L->s + astart, L->i - astart);
          continue;
        }

      if (is_meta (c))
        break;

      if (array_elem && any && c == '$')
        return TRUE;

      any = TRUE;
      switch (c)
        {
        case '\\':
          *flags |= W_QUOTED;
          L->i++;
          if (L->i < L->n)
            g_string_append_c (out, L->s[L->i++]);
          break;

        case '\'':
          *flags |= W_QUOTED;
          L->i++;
          {
            const char *q = memchr (L->s + L->i, '\'', L->n - L->i);

            if (q == NULL)
              return fail (L, "unterminated single quote");
            g_string_append_len (out, L->s + L->i, q - (L->s + L->i));
            L->i = q - L->s + 1;
          }
          break;

        case '"':
          advance (L);
          if (!lex_dquote (L, out, flags, -1, FALSE))
            return FALSE;
          break;

        case '$':
          if (!lex_dollar (L, out, flags, FALSE))
            return FALSE;
          if (array_elem)
            return TRUE;
          break;

        case '`':
          *flags |= W_EXPAND;
          if (!lex_backtick (L, out, FALSE))
            return FALSE;
          if (array_elem)
            return TRUE;
          break;

        case '*':
        case '?':
          *flags |= W_GLOB;
          g_string_append_c (out, c);
          advance (L);
          break;

        case '[':
          bracket_open = TRUE;
          g_string_append_c (out, c);
          advance (L);
          break;

        case ']':
          if (bracket_open)
            *flags |= W_GLOB;
          g_string_append_c (out, c);
          advance (L);
          break;

        case '{':
          brace_open = TRUE;
          brace_list = FALSE;
          g_string_append_c (out, c);
          advance (L);
          break;

        case ',':
          if (brace_open)
            brace_list = TRUE;
          g_string_append_c (out, c);
          advance (L);
          break;

        case '.':
          if (brace_open && peekc2 (L) == '.')
            brace_list = TRUE;
          g_string_append_c (out, c);
          advance (L);
          break;

        case '}':
          if (brace_open && brace_list)
            *flags |= W_BRACE;
          brace_open = FALSE;
          g_string_append_c (out, c);
          advance (L);
          break;

        case '~':
          if (L->i == start)
            *flags |= W_TILDE;
          g_string_append_c (out, c);
          advance (L);
          break;

        default:
          g_string_append_c (out, c);
          L->i++;
        }
    }

  if (!array_elem && any && expansion && !literal)
    *flags |= W_VANISH;

  if (!array_elem && any && raw_is_assignment (L->s + start, L->i - start))
    {
      const char *sub = memchr (L->s + start, '[', L->i - start);
      const char *eq = memchr (L->s + start, '=', L->i - start);

      *flags |= W_ASSIGN;
      /* a[i]=1: the subscript is arithmetic. */
      for (const char *c = sub; c != NULL && c < eq; c++)
        if (is_name_start ((guchar) *c) || *c == '$' || *c == '`')
          {
            arithmetic_on_variables (L);
            break;
          }
    }

  return any;
}

/* bash joins backslash-newline inside an unquoted here-document before it
 * looks for the delimiter, dash does not. @body runs through the delimiter
 * line as found without joining. Ambiguous when a joined line would be the
 * delimiter (bash ends earlier) or swallows the delimiter line (bash ends
 * later): either way the two shells run different commands after it. */
static gboolean
heredoc_continuation_is_ambiguous (const char    *body,
                                   gsize          n,
                                   const Heredoc *doc)
{
  g_autoptr(GString) logical = NULL;
  gsize i = 0;

  while (i < n)
    {
      const char *nl = memchr (body + i, '\n', n - i);
      gsize end = nl ? (gsize) (nl - body) : n;
      gboolean continued = end > i && body[end - 1] == '\\';
      const char *line = body + i;
      gsize len = end - i;

      if (logical != NULL || continued)
        {
          if (logical == NULL)
            logical = g_string_new (NULL);
          if (doc->strip_tabs && logical->len == 0)
            while (len > 0 && *line == '\t')
              line++, len--;
          g_string_append_len (logical, line, continued ? len - 1 : len);
          if (!continued)
            {
              if (strcmp (logical->str, doc->delimiter) == 0)
                return TRUE;
              g_string_free (g_steal_pointer (&logical), TRUE);
            }
          else if (nl != NULL && (gsize) (nl - body) + 1 < n)
            {
              /* Is the next physical line the delimiter that bash now skips? */
              const char *next = nl + 1;
              const char *next_nl = memchr (next, '\n', n - (next - body));
              gsize next_len = next_nl ? (gsize) (next_nl - next) : n - (next - body);

              if (doc->strip_tabs)
                while (next_len > 0 && *next == '\t')
                  next++, next_len--;
              if (next_len == strlen (doc->delimiter) &&
                  memcmp (next, doc->delimiter, next_len) == 0)
                return TRUE;
            }
        }
      i = nl ? end + 1 : n;
    }
  return FALSE;
}

/* A here-document a shell reads as its script. */
static void
parse_heredoc_script (Lexer   *L,
                      Heredoc *doc)
{
  const char *body = L->s + doc->body;
  gsize n = doc->body_end - doc->body;

  /* An unquoted body is expanded before the shell reads it: only a body
   * with nothing to expand reads as written. */
  if (!doc->quoted && (memchr (body, '$', n) || memchr (body, '`', n) || memchr (body, '\\', n)))
    force_ask (doc->script_of, FALSE, "the shell's script is a here-document with expansions");
  else if (enter (L))
    {
      parse_string (L->st, body, n, WARDEN_ORIGIN_SCRIPT, " in a here-document script");
      leave (L);
    }
}

static gboolean
heredoc_has_closing_delimiter (const char    *body,
                               gsize          n,
                               const Heredoc *doc)
{
  gsize dl = strlen (doc->delimiter);
  gsize i = 0;

  while (i < n)
    {
      const char *nl = memchr (body + i, '\n', n - i);
      gsize end = nl ? (gsize) (nl - body) : n;
      gsize ls = i;

      if (doc->strip_tabs)
        while (ls < end && body[ls] == '\t')
          ls++;
      if (end - ls > dl && memcmp (body + ls, doc->delimiter, dl) == 0 && body[ls + dl] == ')')
        return TRUE;
      i = end + 1;
    }
  return FALSE;
}

/* The first here-document at or above the floor whose body is still to
 * come, or NULL. */
static Heredoc *
pending_heredoc (Lexer *L)
{
  /* Bodies are read in order, so the scan only moves forward: linear in
   * the number of here-documents, however many newlines follow. */
  if (L->heredoc_scan < L->heredoc_floor)
    L->heredoc_scan = L->heredoc_floor;
  while (L->heredocs != NULL && L->heredoc_scan < L->heredocs->len)
    {
      Heredoc *doc = g_ptr_array_index (L->heredocs, L->heredoc_scan);

      if (!doc->read)
        return doc;
      L->heredoc_scan++;
    }
  return NULL;
}

/* At a newline: the bodies of the pending here-documents follow, in order.
 * Only those of commands at this level: a newline inside $( ), <( ) or
 * ${x:-$( )} ends a line of the substitution, and every shell reads the
 * outer command's bodies after the newline that ends the outer line. */
static void
read_heredocs (Lexer *L)
{
  Heredoc *doc;

  while (!failed (L) && (doc = pending_heredoc (L)) != NULL)
    {
      gsize body = L->i;
      gsize body_end = (gsize) -1;

      while (L->i < L->n)
        {
          const char *nl = memchr (L->s + L->i, '\n', L->n - L->i);
          gsize line_end = nl ? (gsize) (nl - L->s) : L->n;
          gsize ls = L->i;

          if (doc->strip_tabs)
            while (ls < line_end && L->s[ls] == '\t')
              ls++;
          if (line_end - ls == strlen (doc->delimiter) &&
              memcmp (L->s + ls, doc->delimiter, line_end - ls) == 0)
            {
              body_end = L->i;
              L->i = nl ? line_end + 1 : line_end;
              break;
            }
          L->i = nl ? line_end + 1 : line_end;
        }

      if (body_end == (gsize) -1)
        {
          fail (L, "here-document not terminated by “%s”", doc->delimiter);
          break;
        }

      /* In $( … ), bash takes a body line "DELIM)" as the delimiter and the
       * end of the substitution; dash reads on. */
      if (L->substitutions > 0 && heredoc_has_closing_delimiter (L->s + body, L->i - body, doc))
        {
          fail (L, "a here-document inside $( … ) has a line “%s)”, where bash and dash end "
                   "the substitution differently", doc->delimiter);
          break;
        }

      if (!doc->quoted && heredoc_continuation_is_ambiguous (L->s + body, L->i - body, doc))
        {
          fail (L, "a line continuation in the here-document ending with “%s” is read "
                   "differently by bash and sh", doc->delimiter);
          break;
        }

      doc->read = TRUE;
      doc->body = body;
      doc->body_end = body_end;
      if (doc->script_of != NULL)
        parse_heredoc_script (L, doc);

      if (!doc->quoted)
        {
          /* Unquoted: the body is expanded like a double-quoted string. */
          gsize resume = L->i;
          g_autoptr(GString) junk = g_string_new (NULL);
          guint flags = 0;

          L->i = body;
          lex_dquote (L, junk, &flags, body_end, TRUE);
          L->i = resume;
        }
    }
}

/* Words the parser compares tokens with: reserved words and "-p" of time. */
static gboolean
could_be_reserved (const char *w,
                   gsize       n)
{
  static const char *words[] = {
    "{", "}", "!", "if", "fi", "do", "in", "[[", "]]", "-p", "for", "then", "elif", "else",
    "done", "case", "esac", "time", "while", "until", "select", "coproc", "function",
  };

  if (n == 0 || n > 8)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    if (words[i][0] == w[0] && strcmp (words[i], w) == 0)
      return TRUE;
  return FALSE;
}

static void
token_clear (Lexer *L,
             Token *t)
{
  string_put (L->st, g_steal_pointer (&t->text));
}

/* Reads the next token into L->tok. */
static void
lex_token (Lexer *L)
{
  Token t = { T_EOF, 0, NULL, 0, L->st->parts->len, FALSE };
  int c;

  for (;;)
    {
      c = peekc (L);
      if (c == ' ' || c == '\t')
        {
          L->i++;
          continue;
        }
      if (c == '#')
        {
          while (L->i < L->n && L->s[L->i] != '\n')
            L->i++;
          continue;
        }
      break;
    }

  t.start = L->i;

  switch (c)
    {
    case -1:
      t.type = T_EOF;
      break;

    case '\n':
      L->i++;
      t.type = T_NEWLINE;
      if (pending_heredoc (L) != NULL)
        read_heredocs (L);
      break;

    case ';':
      advance (L);
      if (peekc (L) == ';')
        {
          advance (L);
          if (peekc (L) == '&')
            L->st->dialect_hit = TRUE;
          if (peekc (L) == '&' && L->st->dialect == DIALECT_BASH)
            {
              advance (L);
              t.type = T_DSEMI_AMP;
            }
          else
            t.type = T_DSEMI;
        }
      else if (peekc (L) == '&' && (L->st->dialect_hit = TRUE) &&
               L->st->dialect == DIALECT_BASH)
        {
          advance (L);
          t.type = T_SEMI_AMP;
        }
      else
        t.type = T_SEMI;
      break;

    case '&':
      advance (L);
      if (peekc (L) == '&')
        {
          advance (L);
          t.type = T_AND;
        }
      else if (peekc (L) == '>' && (L->st->dialect_hit = TRUE) &&
               L->st->dialect != DIALECT_DASH)
        {
          /* &> is bash's and busybox's: dash runs "ls &>f evil" as "ls &"
           * and ">f evil". */
          advance (L);
          t.type = T_REDIR;
          t.text = string_get (L->st);
          g_string_append (t.text, "&>");
          if (peekc (L) == '>')
            {
              advance (L);
              g_string_append_c (t.text, '>');
            }
        }
      else
        t.type = T_AMP;
      break;

    case '|':
      advance (L);
      if (peekc (L) == '|')
        {
          advance (L);
          t.type = T_OR;
        }
      else if (peekc (L) == '&' && (L->st->dialect_hit = TRUE) &&
               L->st->dialect == DIALECT_BASH)
        {
          advance (L);
          t.type = T_PIPE_AMP;
        }
      else
        t.type = T_PIPE;
      break;

    case '(':
      advance (L);
      if (peekc (L) == '(' && L->st->dialect == DIALECT_BASH)
        {
          advance (L);
          t.type = T_DLPAREN;
        }
      else
        t.type = T_LPAREN;
      break;

    case ')':
      advance (L);
      t.type = T_RPAREN;
      break;

    case '<':
    case '>':
      if (peekc2 (L) == '(' && L->st->dialect != DIALECT_DASH)
        goto word;
      t.type = T_REDIR;
      t.text = string_get (L->st);
    redir_op:
      {
        int first = peekc (L);

        g_string_append_c (t.text, first);
        advance (L);
        c = peekc (L);
        if (first == '<')
          {
            if (c == '<')
              {
                g_string_append_c (t.text, '<');
                advance (L);
                c = peekc (L);
                if (c == '<')
                  L->st->dialect_hit = TRUE;
                if ((c == '<' && L->st->dialect == DIALECT_BASH) || c == '-')
                  {
                    g_string_append_c (t.text, c);
                    advance (L);
                  }
              }
            else if (c == '&' || c == '>')
              {
                g_string_append_c (t.text, c);
                advance (L);
              }
          }
        else if (c == '>' || c == '|' || c == '&')
          {
            g_string_append_c (t.text, c);
            advance (L);
          }
      }
      break;

    default:
    word:
      t.type = T_WORD;
      t.text = string_get (L->st);
      if (!lex_word_into (L, t.text, &t.flags, FALSE))
        {
          if (!failed (L))
            fail (L, "unexpected character “%c”", c);
          token_clear (L, &t);
          t.type = T_EOF;
          break;
        }
      t.reserved = (t.flags & W_QUOTED) == 0 && could_be_reserved (t.text->str, t.text->len);
      /* "2>file": an all-digit word right before < or > is a descriptor. */
      c = peekc (L);
      if ((c == '<' || c == '>') && t.text->len > 2 && t.text->str[0] == '{' &&
          t.text->str[t.text->len - 1] == '}' && (t.flags & W_QUOTED) == 0 &&
          is_name_start (t.text->str[1]))
        {
          /* bash's {fd}>file stores a descriptor in a variable, whose name
           * may hold a subscript that is evaluated; other shells read a
           * command named "{fd}". */
          L->st->dialect_hit = TRUE;
          if (L->st->ask == NULL)
            L->st->ask = g_strdup ("a {name} redirection is bash's alone and assigns a variable");
        }
      if ((c == '<' || c == '>') && t.flags == 0 && t.text->len > 0 &&
          strspn (t.text->str, "0123456789") == t.text->len && peekc2 (L) != '(')
        {
          t.type = T_REDIR;
          goto redir_op;
        }
      break;
    }

  if (failed (L))
    {
      token_clear (L, &t);
      t.type = T_EOF;
    }
  L->tok = t;
  L->have_tok = TRUE;
}

static Token *
peek (Lexer *L)
{
  if (!L->have_tok)
    lex_token (L);
  return &L->tok;
}

static void
consume (Lexer *L)
{
  token_clear (L, &L->tok);
  L->have_tok = FALSE;
}

/* Takes the current token's text. */
static GString *
steal_text (Lexer *L)
{
  GString *text = g_steal_pointer (&L->tok.text);

  consume (L);
  return text;
}

static gboolean
is_word (Token      *t,
         const char *reserved)
{
  return t->reserved && strcmp (t->text->str, reserved) == 0;
}

static void
skip_newlines (Lexer *L)
{
  while (!failed (L) && peek (L)->type == T_NEWLINE)
    consume (L);
}

/* ------------------------------------------------------------------------ */
/* Judging redirections */

/* Resolves "." and ".." in an absolute path, lexically. */
static char *
normalize_path (const char *path)
{
  gsize n = strlen (path);
  char *out = g_malloc (n + 2);
  gsize len = 0;
  const char *p = path;

  while (*p)
    {
      const char *end;
      gsize clen;

      while (*p == '/')
        p++;
      if (*p == '\0')
        break;
      end = strchr (p, '/');
      clen = end ? (gsize) (end - p) : strlen (p);

      if (clen == 1 && p[0] == '.')
        ;
      else if (clen == 2 && p[0] == '.' && p[1] == '.')
        {
          while (len > 0 && out[len - 1] != '/')
            len--;
          if (len > 0)
            len--;
        }
      else
        {
          out[len++] = '/';
          memcpy (out + len, p, clen);
          len += clen;
        }
      p += clen;
    }

  if (len == 0)
    out[len++] = '/';
  out[len] = '\0';
  return out;
}

/* When the workspace exists here, a target inside it may still lead
 * elsewhere through a symlink on its way: say why, or NULL. @rel is the
 * target as written, relative to the workspace: "out/../x" with out -> /etc
 * is /x, whatever "x" alone would be. */
static char *
symlink_leaves_workspace (State      *st,
                          const char *rel)
{
  g_autoptr(GString) path = NULL;
  const char *host = st->options != NULL && st->options->host_workspace != NULL
                     ? st->options->host_workspace : st->workspace;
  const char *p = rel;
  gsize root_len;

  if (!st->workspace_checked)
    {
      st->workspace_checked = TRUE;
      st->workspace_real = realpath (host, NULL);
    }
  if (st->workspace_real == NULL)
    return NULL;

  path = g_string_new (st->workspace_real);
  root_len = path->len;
  while (*p != '\0')
    {
      gsize len = strcspn (p, "/");
      struct stat sb;

      if ((len == 1 && p[0] == '.') || len == 0)
        ;
      else if (len == 2 && p[0] == '.' && p[1] == '.')
        {
          /* Every component so far is a real directory: ".." is its parent. */
          if (path->len <= root_len)
            return g_strdup ("output redirection that climbs out of the workspace");
          while (path->len > root_len && path->str[path->len - 1] != '/')
            g_string_truncate (path, path->len - 1);
          g_string_truncate (path, MAX (path->len - 1, root_len));
        }
      else
        {
          g_string_append_c (path, '/');
          g_string_append_len (path, p, len);
          if (lstat (path->str, &sb) != 0)
            return NULL;  /* what does not exist yet is created inside */
          if (S_ISLNK (sb.st_mode))
            {
              g_autofree char *real = realpath (path->str, NULL);

              if (real == NULL || strncmp (real, st->workspace_real, root_len) != 0 ||
                  (real[root_len] != '/' && real[root_len] != '\0') ||
                  warden_path_is_protected (real + root_len))
                return g_strdup_printf ("output redirection through the symlink “%s”, which "
                                        "leads to %s", path->str,
                                        real != NULL ? real : "a file that does not exist");
              g_string_assign (path, real);
            }
        }
      p += len;
      p += strspn (p, "/");
    }
  return NULL;
}

/* NULL when writing to @target is fine; otherwise why it asks. Sets
 * @relative when the answer depends on no cd coming later. */
static char *
judge_output_target (State      *st,
                     const char *target,
                     guint       flags,
                     gboolean   *relative)
{
  g_autofree char *full = NULL;
  g_autofree char *norm = NULL;

  *relative = FALSE;

  if (flags & W_NONLITERAL)
    return g_strdup_printf ("output redirection to “%s”, which is not a literal path", target);
  if (strcmp (target, "/dev/null") == 0 || strcmp (target, "/dev/stdout") == 0 ||
      strcmp (target, "/dev/stderr") == 0)
    return NULL;
  if (target[0] == '\0')
    return g_strdup ("output redirection to an empty file name");

  if (target[0] == '/')
    full = g_strdup (target);
  else
    {
      if (st->options && st->options->cwd_outside_workspace)
        return g_strdup_printf ("output redirection to “%s”, relative to a working directory "
                                "outside the workspace", target);
      if (st->cd_seen)
        return g_strdup_printf ("output redirection to “%s”, relative to a directory changed "
                                "earlier by cd, pushd or popd", target);
      *relative = TRUE;
      full = g_strconcat (st->workspace, "/", target, NULL);
    }

  norm = normalize_path (full);
  if (strncmp (norm, st->workspace, st->workspace_len) == 0 &&
      (st->workspace_len == 1 || norm[st->workspace_len] == '/') &&
      norm[st->workspace_len == 1 ? 0 : st->workspace_len] != '\0' &&
      strcmp (norm, st->workspace) != 0)
    {
      const char *rel = norm + st->workspace_len + (st->workspace_len == 1 ? 0 : 1);
      char *why = NULL;

      /* .git/config, .git/hooks, .envrc … make a program on the host run
       * something: writing them asks in every mode. */
      if (warden_path_is_protected (rel))
        why = g_strdup_printf ("output redirection to “%s”, a protected path (%s)", target,
                               "git, direnv and editors run what it says");
      else if (target[0] != '/')
        why = symlink_leaves_workspace (st, target);
      else if (g_str_has_prefix (target, st->workspace) && target[st->workspace_len] == '/')
        why = symlink_leaves_workspace (st, target + st->workspace_len + 1);
      else
        why = symlink_leaves_workspace (st, rel);
      if (why != NULL)
        *relative = FALSE;
      return why;
    }

  *relative = FALSE;
  return g_strdup_printf ("output redirection to “%s”, outside the workspace %s",
                          target, st->workspace);
}

/* ------------------------------------------------------------------------ */
/* Simple commands and wrappers */

static char *
join_words_with_prefix (const WordRef *words,
                        guint          n,
                        const char    *hole_token,
                        const char    *hole_prefix,
                        gboolean       append_hole,
                        gboolean       basename_first)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    {
      const char *w = words[i].text;

      if (i > 0)
        g_string_append_c (s, ' ');
      if (i == 0 && basename_first && strrchr (w, '/') != NULL && strrchr (w, '/')[1] != '\0')
        w = strrchr (w, '/') + 1;
      /* find puts each file's path, which starts with where it searched. */
      if (hole_token != NULL && hole_prefix != NULL && i > 0 && strcmp (w, hole_token) == 0)
        {
          g_string_append (s, hole_prefix);
          g_string_append_c (s, WARDEN_PATTERN_HOLE);
        }
      else if (hole_token != NULL && i > 0)
        {
          const char *p = w, *m;
          gsize tl = strlen (hole_token);

          while ((m = strstr (p, hole_token)) != NULL)
            {
              g_string_append_len (s, p, m - p);
              g_string_append_c (s, WARDEN_PATTERN_HOLE);
              p = m + tl;
            }
          g_string_append (s, p);
        }
      else
        g_string_append (s, w);
    }
  if (append_hole)
    {
      g_string_append_c (s, ' ');
      g_string_append_c (s, WARDEN_PATTERN_HOLE);
    }
  return g_string_free (s, FALSE);
}

static char *
join_words (const WordRef *words,
            guint          n,
            const char    *hole_token,
            gboolean       append_hole,
            gboolean       basename_first)
{
  return join_words_with_prefix (words, n, hole_token, NULL, append_hole, basename_first);
}

/* The words with each one that expands as a hole, the name by its basename;
 * NULL when no argument expands (a name that expands asks anyway). */
static char *
join_expanded (const WordRef *words,
               guint          n)
{
  GString *s = NULL;

  for (guint i = 1; i < n; i++)
    if (words[i].flags & W_NONLITERAL)
      break;
    else if (i + 1 == n)
      return NULL;
  if (n < 2)
    return NULL;

  s = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    {
      const char *w = words[i].text;

      if (i > 0)
        g_string_append_c (s, ' ');
      if (i == 0 && strrchr (w, '/') != NULL && strrchr (w, '/')[1] != '\0')
        w = strrchr (w, '/') + 1;
      if (i > 0 && (words[i].flags & W_NONLITERAL))
        g_string_append_c (s, WARDEN_PATTERN_HOLE);
      else
        g_string_append (s, w);
    }
  return g_string_free (s, FALSE);
}

/* The text with the arguments that may expand to nothing left out, and the
 * redirections of @items (when given) in their places; NULL when no argument
 * may vanish. */
static char *
join_without_vanishing (const WordRef *words,
                        guint          n,
                        GArray        *items)
{
  GString *s;
  gboolean any = FALSE;

  for (guint i = 1; i < n; i++)
    if (words[i].flags & W_VANISH)
      any = TRUE;
  if (!any)
    return NULL;

  s = g_string_new (NULL);
  if (items == NULL)
    {
      for (guint i = 0; i < n; i++)
        if (i == 0 || (words[i].flags & W_VANISH) == 0)
          {
            if (s->len > 0)
              g_string_append_c (s, ' ');
            g_string_append (s, words[i].text);
          }
      return g_string_free (s, FALSE);
    }

  for (guint i = 0, word = 0; i < items->len; i++)
    {
      Item *it = &g_array_index (items, Item, i);

      if (it->kind == ITEM_WORD && word++ > 0 && (it->flags & W_VANISH))
        continue;
      if (s->len > 0)
        g_string_append_c (s, ' ');
      if (it->kind == ITEM_REDIR)
        append_redirection_text (s, it);
      else
        g_string_append (s, it->text->str);
    }
  return g_string_free (s, FALSE);
}

static const char *
basename_of (const char *name)
{
  const char *slash = strrchr (name, '/');

  return slash != NULL && slash[1] != '\0' ? slash + 1 : name;
}

static gboolean
str_in (const char  *s,
        const char **list)
{
  for (guint i = 0; list[i] != NULL; i++)
    if (strcmp (s, list[i]) == 0)
      return TRUE;
  return FALSE;
}

/* How a wrapper's options are laid out. */
typedef struct
{
  const char *name;
  const char *short_args;     /* short options that take an argument */
  const char *short_flags;    /* short options without one */
  const char **long_args;     /* long options that take an argument (without "--") */
  const char **long_flags;
  guint        positionals;   /* words between the options and the command */
  gboolean     assignments;   /* NAME=VALUE words before the command (env) */
  gboolean     numeric_opt;   /* -N is an option (nice -10) */
  gboolean     bare_shell;    /* with no command, it starts a shell reading stdin */
  const char  *shell_opts;    /* short options that make it run a shell (sudo -s) */
  const char  *script_opts;   /* short options whose argument is a shell script (su -c) */
  const char **script_long;   /* long options whose argument is a shell script */
  gboolean     lax_order;     /* options may follow the positionals (su USER -c CMD) */
} WrapperSpec;

static const char *env_long_args[] = { "unset", "chdir", "split-string", "block-signal",
                                       "default-signal", "ignore-signal", NULL };
static const char *env_long_flags[] = { "ignore-environment", "null", "debug",
                                        "list-signal-handling", NULL };
static const char *nice_long_args[] = { "adjustment", NULL };
static const char *timeout_long_args[] = { "signal", "kill-after", NULL };
static const char *timeout_long_flags[] = { "preserve-status", "foreground", "verbose", NULL };
static const char *time_long_args[] = { "format", "output", NULL };
static const char *time_long_flags[] = { "append", "portability", "verbose", "quiet", NULL };
static const char *stdbuf_long_args[] = { "input", "output", "error", NULL };
static const char *setsid_long_flags[] = { "ctty", "fork", "wait", NULL };
static const char *ionice_long_args[] = { "class", "classdata", NULL };
static const char *ionice_long_flags[] = { "ignore", NULL };
static const char *taskset_long_flags[] = { "all-tasks", "cpu-list", NULL };
static const char *chroot_long_args[] = { "userspec", "groups", NULL };
static const char *chroot_long_flags[] = { "skip-chdir", NULL };
static const char *sudo_long_args[] = { "user", "group", "close-from", "chdir", "host", "prompt",
                                        "role", "type", "command-timeout", "other-user", NULL };
static const char *sudo_long_flags[] = { "askpass", "background", "preserve-env", "set-home",
                                         "login", "non-interactive", "preserve-groups", "stdin",
                                         "shell", NULL };
static const char *none[] = { NULL };
static const char *xargs_long_args[] = { "arg-file", "delimiter", "eof", "replace", "max-lines",
                                         "max-args", "max-procs", "max-chars",
                                         "process-slot-var", NULL };
static const char *xargs_long_flags[] = { "null", "interactive", "no-run-if-empty", "verbose",
                                          "exit", "open-tty", "show-limits", NULL };

static const char *su_long_args[] = { "command", "session-command", "group", "supp-group",
                                      "whitelist-environment", "shell", "user", NULL };
static const char *su_long_flags[] = { "login", "preserve-environment", "pty", "fast", NULL };
static const char *su_script_long[] = { "command", "session-command", NULL };
static const char *flock_long_args[] = { "timeout", "wait", "conflict-exit-code", "command",
                                         NULL };
static const char *flock_long_flags[] = { "shared", "exclusive", "unlock", "nonblock", "nb",
                                          "close", "no-fork", "verbose", NULL };
static const char *flock_script_long[] = { "command", NULL };
static const char *unshare_long_args[] = { "propagation", "setgroups", "setuid", "setgid",
                                           "map-user", "map-group", "map-users", "map-groups",
                                           "root", "wd", "load-interp", NULL };
static const char *unshare_long_flags[] = { "mount", "uts", "ipc", "net", "pid", "user",
                                            "cgroup", "time", "fork", "kill-child", "mount-proc",
                                            "map-root-user", "map-current-user", "map-auto",
                                            "keep-caps", "mount-binfmt", "monotonic",
                                            "boottime", NULL };
static const char *nsenter_long_args[] = { "target", "setuid", "setgid", "root", "wd",
                                           "wdns", "env", NULL };
static const char *nsenter_long_flags[] = { "all", "mount", "uts", "ipc", "net", "pid", "user",
                                            "cgroup", "time", "preserve-credentials",
                                            "no-fork", "follow-context", "join-cgroup", NULL };
static const char *script_long_args[] = { "command", "echo", "log-in", "log-out", "log-io",
                                          "log-timing", "logging-format", "output-limit",
                                          "timing", NULL };
static const char *script_long_flags[] = { "append", "return", "flush", "force", "quiet",
                                           NULL };
static const char *script_script_long[] = { "command", NULL };
static const char *setpriv_long_args[] = { "reuid", "regid", "groups", "inh-caps",
                                           "ambient-caps", "bounding-set", "securebits",
                                           "pdeathsig", "selinux-label", "apparmor-profile",
                                           "landlock-access", "landlock-rule", "ptracer", NULL };
static const char *setpriv_long_flags[] = { "clear-groups", "keep-groups", "init-groups",
                                            "no-new-privs", "nnp", "reset-env", "ruid", NULL };
/* --property, -p, --setenv and -E are left out on purpose: ExecStartPre=
 * and LD_PRELOAD= run other programs, so they ask as unknown options. */
static const char *sdrun_long_args[] = { "unit", "description", "slice",
                                         "service-type", "uid", "gid", "nice",
                                         "working-directory", "on-active", "on-boot",
                                         "on-startup", "on-unit-active", "on-unit-inactive",
                                         "on-calendar", "on-clock-change", "on-timezone-change",
                                         NULL };
static const char *sdrun_long_flags[] = { "user", "system", "scope", "remain-after-exit",
                                          "send-sighup", "pty", "pipe", "quiet", "wait",
                                          "collect", "same-dir", "no-block", "no-ask-password",
                                          NULL };

static const char *setarch_long_flags[] = { "addr-no-randomize", "fdpic-funcptrs",
                                            "whole-seconds", "addr-compat-layout",
                                            "read-implies-exec", "32bit", "mmap-page-zero",
                                            "short-inode", "sticky-timeouts", "uname-2.6",
                                            "verbose", "3gb", "4gb", NULL };
static const char *chrt_long_args[] = { "sched-runtime", "sched-period", "sched-deadline",
                                        NULL };
static const char *chrt_long_flags[] = { "batch", "fifo", "other", "rr", "idle", "deadline",
                                         "all-tasks", "max", "verbose", "reset-on-fork", NULL };
static const char *pkexec_long_args[] = { "user", NULL };
static const char *pkexec_long_flags[] = { "disable-internal-agent", "keep-cwd", NULL };
/* fakeroot -f and --faked name a program it runs: left out, so they ask. */
static const char *fakeroot_long_args[] = { "lib", NULL };
static const char *fakeroot_long_flags[] = { "unknown-is-real", NULL };
/* dbus-run-session --dbus-daemon names a program it runs: left out. */
static const char *dbus_run_long_args[] = { "config-file", NULL };
static const char *xvfb_long_args[] = { "server-num", "server-args", "auth-file", "error-file",
                                        "wait", "xauth-protocol", NULL };
static const char *xvfb_long_flags[] = { "auto-servernum", "listen-tcp", NULL };
static const char *watch_long_args[] = { "interval", "differences", NULL };
static const char *watch_long_flags[] = { "no-title", "beep", "errexit", "chgexit", "color",
                                          "precise", "no-wrap", "exec", "no-linewrap", NULL };

/* With no command, chroot, unshare, nsenter and su start a shell that reads
 * its script from standard input: nobody can see what it runs. */
static const WrapperSpec wrappers[] = {
  { "env",     "uCS", "i0v", env_long_args, env_long_flags, 0, TRUE, FALSE },
  { "nice",    "n", "", nice_long_args, none, 0, FALSE, TRUE },
  { "nohup",   "", "", none, none, 0, FALSE, FALSE },
  { "timeout", "sk", "v", timeout_long_args, timeout_long_flags, 1, FALSE, FALSE },
  { "time",    "fo", "apqv", time_long_args, time_long_flags, 0, FALSE, FALSE },
  { "stdbuf",  "ioe", "", stdbuf_long_args, none, 0, FALSE, FALSE },
  { "setsid",  "", "cfw", none, setsid_long_flags, 0, FALSE, FALSE },
  { "ionice",  "cn", "tu", ionice_long_args, ionice_long_flags, 0, FALSE, FALSE },
  { "taskset", "", "ac", none, taskset_long_flags, 1, FALSE, FALSE },
  { "chroot",  "", "", chroot_long_args, chroot_long_flags, 1, FALSE, FALSE, TRUE },
  { "sudo",    "ugCDhprtTUR", "AbBEHknNPSsie", sudo_long_args, sudo_long_flags, 0, TRUE, FALSE,
    FALSE, "sie" },
  { "doas",    "uC", "ns", none, none, 0, FALSE, FALSE, FALSE, "s" },
  { "command", "", "p", none, none, 0, FALSE, FALSE },
  { "builtin", "", "", none, none, 0, FALSE, FALSE },
  /* exec -a NAME is bash's; busybox reads "exec -ax e" as running x (found by
   * the oracle): exec with options asks, though what it wraps is still read. */
  { "exec",    "a", "cl", none, none, 0, FALSE, FALSE },
  { "xargs",   "adEILnPs", "0prtxo", xargs_long_args, xargs_long_flags, 0, FALSE, FALSE },
  { "busybox", "", "", none, none, 0, FALSE, FALSE },
  { "su",      "cgGsw", "lmpfP", su_long_args, su_long_flags, 1, FALSE, FALSE, TRUE, "s", "c",
    su_script_long, TRUE },
  { "runuser", "cgGsuw", "lmpfP", su_long_args, su_long_flags, 1, FALSE, FALSE, TRUE, "s", "c",
    su_script_long, TRUE },
  { "flock",   "wEc", "sxunoFv", flock_long_args, flock_long_flags, 1, FALSE, FALSE, FALSE, "",
    "c", flock_script_long, TRUE },
  { "unshare", "SGRw", "muinpUCTfrc", unshare_long_args, unshare_long_flags, 0, FALSE, FALSE,
    TRUE },
  { "nsenter", "tSG", "amuinpUCTFZe", nsenter_long_args, nsenter_long_flags, 0, FALSE, FALSE,
    TRUE },
  { "script",  "cEIOBTm", "aefqr", script_long_args, script_long_flags, 1, FALSE, FALSE, TRUE,
    "", "c", script_script_long, TRUE },
  { "setpriv", "", "d", setpriv_long_args, setpriv_long_flags, 0, FALSE, FALSE },
  { "systemd-run", "u", "rGPtqdS", sdrun_long_args, sdrun_long_flags, 0, FALSE, FALSE,
    FALSE, "S" },
  { "setarch", "", "RFLBXSTZ3v", none, setarch_long_flags, 1, FALSE, FALSE, TRUE },
  { "linux32", "", "RFLBXSTZ3v", none, setarch_long_flags, 0, FALSE, FALSE, TRUE },
  { "linux64", "", "RFLBXSTZ3v", none, setarch_long_flags, 0, FALSE, FALSE, TRUE },
  { "chrt", "TPD", "bforidamvRe", chrt_long_args, chrt_long_flags, 1, FALSE, FALSE },
  { "pkexec", "", "", pkexec_long_args, pkexec_long_flags, 0, FALSE, FALSE, TRUE },
  { "fakeroot", "lsib", "uhv", fakeroot_long_args, fakeroot_long_flags, 0, FALSE, FALSE, TRUE },
  { "eatmydata", "", "", none, none, 0, FALSE, FALSE },
  { "nocache", "n", "", none, none, 0, FALSE, FALSE },
  { "catchsegv", "", "", none, none, 0, FALSE, FALSE },
  { "dbus-run-session", "", "", dbus_run_long_args, none, 0, FALSE, FALSE, TRUE },
  { "xvfb-run", "nsfepw", "al", xvfb_long_args, xvfb_long_flags, 0, FALSE, FALSE },
  { "sg", "", "", none, none, 1, FALSE, FALSE, TRUE, "", "c", none, TRUE },
  { "newgrp", "", "", none, none, 1, FALSE, FALSE, TRUE, "", "", none, TRUE },
  { "watch", "nd", "tbegcpwxqr", watch_long_args, watch_long_flags, 0, FALSE, FALSE },
};

static const char *shells[] = { "sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "rbash",
                                "rksh", "lksh", "pdksh", "oksh", "loksh", "yash", "posh",
                                "ksh93", "hush", NULL };
/* Shells whose language is not sh's: their -c scripts cannot be read. */
static const char *foreign_shells[] = { "csh", "tcsh", "fish", "rc", "es", "xonsh", "nu",
                                        "elvish", "ion", "pwsh", "osh", "ysh", "oil", "nush",
                                        NULL };

/* A shell by its basename, versions and builds included: bash5.2, ksh93,
 * mksh-static, zsh-5.9. Returns the list it is in, or NULL. */
static const char **
shell_kind (const char *base)
{
  static GHashTable *exact;
  const char **lists[] = { shells, foreign_shells };
  const char **kind;

  if (g_once_init_enter (&exact))
    {
      GHashTable *table = g_hash_table_new (g_str_hash, g_str_equal);

      for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
        for (guint i = 0; lists[l][i] != NULL; i++)
          g_hash_table_insert (table, (gpointer) lists[l][i], lists[l]);
      g_once_init_leave (&exact, table);
    }

  kind = g_hash_table_lookup (exact, base);
  /* Every command is asked about: only a name with a version in it is
   * compared with each shell's. */
  if (kind != NULL || strpbrk (base, "0123456789.-_") == NULL)
    return kind;

  for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
    for (guint i = 0; lists[l][i] != NULL; i++)
      {
        gsize len = strlen (lists[l][i]);

        if (strncmp (base, lists[l][i], len) == 0 &&
            (g_ascii_isdigit (base[len]) || base[len] == '.' || base[len] == '-' ||
             base[len] == '_'))
          return lists[l];
      }
  return NULL;
}

/* Options that make a wrapper run nothing: command -v, sudo -l, taskset -p. */
static gboolean
wrapper_runs_nothing (const char *wrapper,
                      const char *opt)
{
  if (strcmp (wrapper, "command") == 0)
    return strcmp (opt, "-v") == 0 || strcmp (opt, "-V") == 0;
  if (strcmp (wrapper, "sudo") == 0)
    return opt[1] != '\0' && strchr ("lvKV", opt[1]) != NULL && opt[2] == '\0';
  if (strcmp (wrapper, "taskset") == 0 || strcmp (wrapper, "chrt") == 0)
    return strcmp (opt, "-p") == 0 || strcmp (opt, "--pid") == 0;
  if (strcmp (wrapper, "ionice") == 0)
    return strcmp (opt, "-p") == 0 || strcmp (opt, "-P") == 0;
  return FALSE;
}

/* Finds where the wrapped command starts. Returns -1 when the wrapper runs
 * no command, -2 (with @why set) when that cannot be known. */
static int
wrapper_command_start (const WrapperSpec *spec,
                       const WordRef     *w,
                       guint              n,
                       char             **why,
                       const char       **replace,
                       gboolean          *changes_dir)
{
  guint i = 1;
  guint positionals = spec->positionals;

  for (; i < n; i++)
    {
      const char *a = w[i].text;

      if (w[i].flags & W_NONLITERAL)
        {
          *why = g_strdup_printf ("“%s” runs a command, but “%s” may expand to anything, so "
                                  "which command cannot be known", spec->name, a);
          return -2;
        }
      if (strcmp (a, "--") == 0)
        {
          i++;
          break;
        }
      if (strcmp (a, "-") == 0 && spec->assignments && spec->name[0] == 'e')
        continue;  /* env - is env -i */
      if (a[0] != '-' || a[1] == '\0')
        break;
      if (wrapper_runs_nothing (spec->name, a))
        return -1;
      if (spec->numeric_opt && g_ascii_isdigit (a[1]))
        continue;
      if (a[1] == '-')
        {
          const char *eq = strchr (a, '=');
          g_autofree char *lname = g_strndup (a + 2, eq ? (gsize) (eq - a - 2) : strlen (a + 2));

          if (str_in (lname, spec->long_args))
            {
              if (strcmp (lname, "split-string") == 0)
                {
                  *why = g_strdup ("env --split-string builds a command from a string");
                  return -2;
                }
              if (strcmp (lname, "chdir") == 0)
                *changes_dir = TRUE;
              if (strcmp (lname, "replace") == 0)
                *replace = eq ? eq + 1 : (i + 1 < n ? w[i + 1].text : NULL);
              if (eq == NULL)
                i++;
              continue;
            }
          if (str_in (lname, spec->long_flags))
            continue;
          *why = g_strdup_printf ("unknown option “%s” of %s", a, spec->name);
          return -2;
        }
      for (const char *o = a + 1; *o; o++)
        {
          if (spec->shell_opts != NULL && strchr (spec->shell_opts, *o) != NULL)
            {
              *why = g_strdup_printf ("%s -%c runs a shell or an editor, which reads what to "
                                      "run from its arguments, files or standard input",
                                      spec->name, *o);
              return -2;
            }
          if (strchr (spec->short_args, *o) != NULL)
            {
              const char *arg = o[1] ? o + 1 : (i + 1 < n ? w[i + 1].text : NULL);

              if (strcmp (spec->name, "env") == 0 && *o == 'S')
                {
                  *why = g_strdup ("env -S builds a command from a string");
                  return -2;
                }
              if (strcmp (spec->name, "env") == 0 && *o == 'C')
                *changes_dir = TRUE;
              if (strcmp (spec->name, "sudo") == 0 && *o == 'D')
                *changes_dir = TRUE;
              if (strcmp (spec->name, "xargs") == 0 && *o == 'I')
                *replace = arg;
              if (o[1] == '\0')
                i++;
              break;
            }
          if (strcmp (spec->name, "xargs") == 0 && (*o == 'i' || *o == 'e' || *o == 'l'))
            {
              /* -i[R], -e[EOF], -l[N]: optional attached arguments. */
              if (*o == 'i')
                *replace = o[1] ? o + 1 : "{}";
              break;
            }
          if (strchr (spec->short_flags, *o) == NULL)
            {
              *why = g_strdup_printf ("unknown option “-%c” of %s", *o, spec->name);
              return -2;
            }
        }
    }

  /* env takes every word with a "=" for a setting, "=x" included. */
  if (spec->assignments)
    while (i < n && ((w[i].flags & W_ASSIGN) ||
                     (spec->name[0] == 'e' && strchr (w[i].text, '=') != NULL)))
      {
        /* env LD_PRELOAD=x.so ls is not ls. */
        if (names_dangerous_var (w[i].text))
          {
            *why = g_strdup_printf ("%s sets %.*s for the command it runs, which changes what "
                                    "that command runs", spec->name,
                                    (int) strcspn (w[i].text, "=+["), w[i].text);
            return -2;
          }
        i++;
      }

  for (; positionals > 0 && i < n; positionals--)
    {
      if (w[i].flags & W_NONLITERAL)
        {
          *why = g_strdup_printf ("“%s” may expand to anything, so the command %s runs cannot "
                                  "be known", w[i].text, spec->name);
          return -2;
        }
      i++;
    }

  return i < n ? (int) i : -1;
}

/* sh -c STRING: returns the index of STRING, -1 when no -c, -2 on doubt. */
static int
shell_script_index (const WordRef  *w,
                    guint           n,
                    char          **why)
{
  gboolean has_c = FALSE, has_s = FALSE;
  guint i;

  for (i = 1; i < n; i++)
    {
      const char *a = w[i].text;

      if (w[i].flags & W_NONLITERAL)
        {
          if (has_c)
            break;
          *why = g_strdup_printf ("“%s” may expand to shell options such as -c", a);
          return -2;
        }
      if (strcmp (a, "--") == 0 || strcmp (a, "-") == 0)
        {
          i++;
          break;
        }
      if (a[0] == '-' && a[1] == '-')
        {
          if (strcmp (a, "--rcfile") == 0 || strcmp (a, "--init-file") == 0 ||
              strcmp (a, "--login") == 0)
            {
              *why = g_strdup_printf ("“%s” makes the shell read startup files, which run "
                                      "commands no pattern covers", a);
              return -2;
            }
          continue;
        }
      if ((a[0] == '-' || a[0] == '+') && a[1] != '\0')
        {
          gboolean takes_arg = FALSE;

          for (const char *o = a + 1; *o; o++)
            {
              /* An interactive or login shell reads ~/.bashrc, $ENV or
               * /etc/profile first: commands no pattern covers. */
              if ((*o == 'i' || *o == 'l') && a[0] == '-')
                {
                  *why = g_strdup_printf ("“%s” makes the shell read startup files, which run "
                                          "commands no pattern covers", a);
                  return -2;
                }
              if (*o == 'c' && a[0] == '-')
                has_c = TRUE;
              if (*o == 's' && a[0] == '-')
                has_s = TRUE;
              if (*o == 'o' || *o == 'O')
                takes_arg = TRUE;
            }
          if (takes_arg)
            i++;
          continue;
        }
      break;
    }

  if (!has_c)
    /* "sh - FILE" and "sh -- FILE" run FILE: "-" only ends the options. */
    return has_s || i >= n ? -3 : -1;  /* -3: the script comes on stdin */
  if (i >= n)
    return -1;
  return (int) i;
}

/* The builtins that set variables from their arguments. */
static const char *var_setters[] = { "declare", "typeset", "local", "export", "readonly", NULL };
/* unset 'a[$(cmd)]' evaluates the subscript too, so its words name variables. */
static const char *var_readers[] = { "read", "mapfile", "readarray", "printf", "getopts", "unset",
                                     NULL };
/* Variables that change what later commands run or read, beyond the shell's
 * own: besides these, any name without a lower-case letter, since it may
 * name a variable already in the sandbox's environment. */
static const char *sensitive_lower[] = { "http_proxy", "https_proxy", "ftp_proxy", "all_proxy",
                                         "no_proxy", NULL };
static const char *sensitive_lower_prefixes[] = { "npm_config_", "yarn_", "pnpm_", NULL };
static const char *always_ask[] = { "eval", "source", ".", "alias", "unalias", "trap", "enable",
                                    "hash", "let", "coproc", "select", "function", "complete",
                                    "compgen", "bind", "fc", NULL };

/* TRUE for the names analyze() treats specially; most commands are not. */
static gboolean
is_special_name (const char *base)
{
  static GHashTable *names;

  if (g_once_init_enter (&names))
    {
      GHashTable *table = g_hash_table_new (g_str_hash, g_str_equal);
      const char **lists[] = { always_ask, var_setters, var_readers, shells };
      static const char *others[] = { "cd", "pushd", "popd", "find", "test", "[", "set",
                                      "wait", NULL };

      for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
        for (guint i = 0; lists[l][i]; i++)
          g_hash_table_add (table, (gpointer) lists[l][i]);
      for (guint i = 0; others[i]; i++)
        g_hash_table_add (table, (gpointer) others[i]);
      for (guint i = 0; i < G_N_ELEMENTS (wrappers); i++)
        g_hash_table_add (table, (gpointer) wrappers[i].name);
      g_once_init_leave (&names, table);
    }

  return g_hash_table_contains (names, base) || shell_kind (base) != NULL;
}

/* The variables that make a program run or load something else. */
static const char *dangerous_vars[] = { "PATH", "HOME", "IFS", "ENV", "BASH_ENV", "CDPATH",
                                        "SHELLOPTS", "BASHOPTS", "PS4", "GLOBIGNORE",
                                        "NODE_OPTIONS", "NODE_PATH", "SHELL", "EDITOR", "VISUAL",
                                        "PAGER", "MANPAGER", "LESSOPEN", "LESSCLOSE", "BROWSER",
                                        "GCONV_PATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
                                        "JDK_JAVA_OPTIONS", "CLASSPATH", "RUSTC_WRAPPER",
                                        "MAKEFLAGS", "PROMPT_COMMAND", "TMPDIR", "ZDOTDIR",
                                        "LUA_INIT", "LUA_PATH", "VIMINIT", "EXINIT", NULL };
static const char *dangerous_prefixes[] = { "LD_", "GIT_", "PYTHON", "PERL5", "PERL_", "RUBY",
                                            "BASH_", "DYLD_", "NPM_CONFIG_", "npm_config_",
                                            "XDG_", "CARGO_", "GEM_", "BUNDLE_", "PIP_",
                                            "DOTNET_", "SSH_", "SUDO_", NULL };

static gboolean
names_dangerous_var (const char *arg)
{
  gsize len = strspn (arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");

  for (guint i = 0; dangerous_vars[i] != NULL; i++)
    if (strlen (dangerous_vars[i]) == len && strncmp (arg, dangerous_vars[i], len) == 0)
      return TRUE;
  for (guint i = 0; dangerous_prefixes[i] != NULL; i++)
    if (g_str_has_prefix (arg, dangerous_prefixes[i]) && strlen (dangerous_prefixes[i]) <= len)
      return TRUE;
  return FALSE;
}

static gboolean
names_sensitive_var (const char *arg)
{
  gsize len = 0;
  gboolean lower = FALSE;

  /* A number is an option's argument (mapfile -u 3 lines), not a name. */
  if (!is_name_start ((guchar) arg[0]))
    return FALSE;
  while (is_name_char ((guchar) arg[len]))
    {
      if (g_ascii_islower (arg[len]))
        lower = TRUE;
      len++;
    }
  if (len == 0)
    return FALSE;
  if (!lower)
    return TRUE;
  for (guint i = 0; sensitive_lower[i] != NULL; i++)
    if (strlen (sensitive_lower[i]) == len && strncmp (arg, sensitive_lower[i], len) == 0)
      return TRUE;
  for (guint i = 0; sensitive_lower_prefixes[i] != NULL; i++)
    if (g_str_has_prefix (arg, sensitive_lower_prefixes[i]))
      return TRUE;
  return FALSE;
}

static gboolean
has_token (const WordRef *w,
           guint          n,
           const char    *token)
{
  for (guint i = 0; token != NULL && i < n; i++)
    if (strstr (w[i].text, token) != NULL)
      return TRUE;
  return FALSE;
}

static void parse_script_word (Lexer *L, Part *p, const char *base, const WordRef *word);

/* su, runuser, flock and script: a -c STRING is a script for a shell, and
 * options may come after the user or lock file they take. With no script:
 * flock FILE CMD… and runuser -u USER CMD… run CMD; su, runuser and script
 * start a shell that reads standard input, which nobody can see. */
static void
analyze_script_wrapper (Lexer             *L,
                        Part              *p,
                        const WrapperSpec *spec,
                        const WordRef     *w,
                        guint              n,
                        gboolean           holes)
{
  const WordRef *script = NULL;
  WordRef attached[8];
  guint n_attached = 0;
  const WordRef *scripts[8];
  guint n_scripts = 0;
  guint positionals = spec->positionals, seen = 0;
  int cmd_start = -1;
  gboolean have_args = FALSE;
  g_autofree char *why = NULL;

  if (holes)
    {
      force_ask (p, FALSE, "the command it runs is filled in at run time");
      return;
    }

  for (guint i = 1; i < n && why == NULL && cmd_start < 0; i++)
    {
      const char *a = w[i].text;

      if (w[i].flags & W_NONLITERAL)
        {
          why = g_strdup_printf ("“%s” runs a command, but “%s” may expand to anything, so "
                                 "which command cannot be known", spec->name, a);
          break;
        }
      if (strcmp (a, "--") == 0)
        {
          if (i + 1 < n && script == NULL)
            cmd_start = i + 1;
          break;
        }
      if (strcmp (a, "-") == 0 && spec->script_long == su_script_long)
        continue;  /* su - is su --login */
      if (a[0] == '-' && a[1] == '-')
        {
          const char *eq = strchr (a, '=');
          g_autofree char *lname = g_strndup (a + 2, eq ? (gsize) (eq - a - 2)
                                                        : strlen (a + 2));

          if (str_in (lname, spec->script_long))
            {
              if (eq != NULL && n_attached < G_N_ELEMENTS (attached))
                {
                  attached[n_attached].text = eq + 1;
                  attached[n_attached].flags = w[i].flags;
                  script = &attached[n_attached++];
                }
              else if (eq == NULL && i + 1 < n)
                script = &w[++i];
              if (script != NULL && n_scripts < G_N_ELEMENTS (scripts))
                scripts[n_scripts++] = script;
              else
                why = g_strdup_printf ("%s has more scripts than the engine follows", spec->name);
              continue;
            }
          if (strcmp (lname, "shell") == 0)
            why = g_strdup_printf ("%s --shell runs a shell the engine does not know", spec->name);
          else if (str_in (lname, spec->long_args))
            {
              if (eq == NULL)
                i++;
            }
          else if (!str_in (lname, spec->long_flags))
            why = g_strdup_printf ("unknown option “%s” of %s", a, spec->name);
          continue;
        }
      if (a[0] == '-' && a[1] != '\0')
        {
          for (const char *o = a + 1; *o && why == NULL; o++)
            {
              if (spec->shell_opts != NULL && strchr (spec->shell_opts, *o) != NULL)
                why = g_strdup_printf ("%s -%c runs a shell the engine does not know",
                                       spec->name, *o);
              else if (strchr (spec->script_opts, *o) != NULL)
                {
                  /* su -c A -c B runs B, but every one is checked. */
                  if (o[1] != '\0' && n_attached < G_N_ELEMENTS (attached))
                    {
                      attached[n_attached].text = o + 1;
                      attached[n_attached].flags = w[i].flags;
                      script = &attached[n_attached++];
                    }
                  else if (o[1] == '\0' && i + 1 < n)
                    script = &w[++i];
                  if (script != NULL && n_scripts < G_N_ELEMENTS (scripts))
                    scripts[n_scripts++] = script;
                  else
                    why = g_strdup_printf ("%s has more scripts than the engine follows",
                                           spec->name);
                  break;
                }
              else if (strchr (spec->short_args, *o) != NULL)
                {
                  /* runuser -u USER CMD…: the command follows the options. */
                  if (*o == 'u' && strcmp (spec->name, "runuser") == 0)
                    positionals = 0;
                  if (o[1] == '\0')
                    i++;
                  break;
                }
              else if (strchr (spec->short_flags, *o) == NULL)
                why = g_strdup_printf ("unknown option “-%c” of %s", *o, spec->name);
            }
          continue;
        }
      /* A user, a lock file or a typescript file; then a command. */
      if (seen < positionals)
        {
          seen++;
          continue;
        }
      /* su and script take options anywhere (su USER -c A ARG -c B): the
       * words around them are the script's $0, $1 …, or with no script a
       * command for flock and runuser -u. */
      if (script != NULL || (strcmp (spec->name, "flock") != 0 &&
                             strcmp (spec->name, "runuser") != 0))
        {
          if (script == NULL && !spec->bare_shell)
            cmd_start = i;
          else if (script == NULL)
            have_args = TRUE;
          continue;
        }
      cmd_start = i;
    }

  if (why != NULL)
    force_ask (p, FALSE, why);
  else if (n_scripts > 0)
    for (guint k = 0; k < n_scripts; k++)
      parse_script_word (L, p, spec->name, scripts[k]);
  else if (cmd_start >= 0 && (strcmp (spec->name, "flock") == 0 ||
                              strcmp (spec->name, "runuser") == 0))
    emit_words (L, w + cmd_start, n - cmd_start, WARDEN_ORIGIN_WRAPPER, NULL, FALSE, NULL,
                spec->name);
  else if (cmd_start >= 0 || spec->bare_shell || have_args)
    {
      g_autofree char *msg = g_strdup_printf ("%s starts a shell that reads its script from "
                                              "its arguments or standard input", spec->name);

      force_ask (p, FALSE, msg);
    }
}

/* sh -c STRING and su -c STRING: the string is a script of its own. */
static void
parse_script_word (Lexer         *L,
                   Part          *p,
                   const char    *base,
                   const WordRef *word)
{
  if (word->flags & W_NONLITERAL)
    {
      g_autofree char *msg = g_strdup_printf ("the script of %s -c is not a literal string", base);

      force_ask (p, FALSE, msg);
    }
  else if (enter (L))
    {
      parse_string (L->st, word->text, strlen (word->text), WARDEN_ORIGIN_SCRIPT,
                    " in a sh -c script");
      leave (L);
    }
}

/* TRUE when a short option @c or long option --@name comes before @end. */
static gboolean
has_option (const WordRef *w,
            int            end,
            char           c,
            const char    *name)
{
  for (int i = 1; i < end; i++)
    {
      const char *a = w[i].text;

      if (a[0] == '-' && a[1] == '-' && strcmp (a + 2, name) == 0)
        return TRUE;
      if (a[0] == '-' && a[1] != '-' && strchr (a + 1, c) != NULL)
        return TRUE;
    }
  return FALSE;
}

/* What every path find passes for a lone {} to -exec or -ok starts with: the
 * longest common prefix of its starting points. NULL when that is not known:
 * options before them (-H, -D …), or names read from a file. */
static char *
find_path_prefix (const WordRef *w,
                  guint          n)
{
  g_autofree char *prefix = NULL;
  guint i;

  for (i = 1; i < n; i++)
    if (strcmp (w[i].text, "-files0-from") == 0)
      return NULL;
  for (i = 1; i < n; i++)
    {
      const char *a = w[i].text;
      gsize k = 0;

      if (a[0] == '-' || a[0] == '(' || a[0] == '!' || a[0] == ',' || a[0] == '\0')
        break;
      if (w[i].flags & W_NONLITERAL)
        return NULL;
      if (prefix == NULL)
        {
          prefix = g_strdup (a);
          continue;
        }
      while (prefix[k] != '\0' && prefix[k] == a[k])
        k++;
      prefix[k] = '\0';
    }
  /* With no starting point GNU find searches ".", busybox may not: unknown. */
  if (i == 1)
    return NULL;
  return g_steal_pointer (&prefix);
}

/* Judges a command by its name and words, and emits what it wraps. When the
 * command runs under xargs or find -exec, @hole_token marks the words filled
 * in at run time and @append_hole says more words are appended: neither may
 * decide which command runs. */
static void
analyze (Lexer         *L,
         Part          *p,
         const WordRef *w,
         guint          n,
         const char    *hole_token,
         gboolean       append_hole)
{
  const char *name = w[0].text;
  const char *base;
  gboolean holes = hole_token != NULL || append_hole;

  if (w[0].flags & W_NONLITERAL)
    {
      g_autofree char *why = g_strdup_printf ("the command name “%s” is not a literal word", name);

      force_ask (p, FALSE, why);
      return;
    }
  if (name[0] == '\0')
    {
      force_ask (p, FALSE, "the command name is empty");
      return;
    }

  /* 'ls ./x' is the file x in a directory named "ls .", not ls. */
  if (strpbrk (name, " \t\n") != NULL)
    {
      force_ask (p, FALSE, "the command name contains white space, so it is not the program "
                           "its text names");
      return;
    }

  if (hole_token != NULL && strstr (name, hole_token) != NULL)
    {
      force_ask (p, FALSE, "the command name is filled in at run time");
      return;
    }

  base = basename_of (name);
  if (!is_special_name (base))
    return;

  if (str_in (base, always_ask))
    {
      g_autofree char *why = g_strdup_printf ("“%s” runs code the engine cannot see", base);

      force_ask (p, FALSE, why);
      return;
    }

  if (strcmp (base, "cd") == 0 || strcmp (base, "pushd") == 0 || strcmp (base, "popd") == 0)
    {
      L->st->cd_seen = TRUE;
      /* A relative redirection earlier in the same loop runs again after this cd. */
      if (L->st->loop_id != 0)
        for (guint i = 0; i < L->st->parts->len; i++)
          {
            Part *q = g_ptr_array_index (L->st->parts, i);

            if (q->loop_id == L->st->loop_id && q->relative_redirect)
              force_ask (q, FALSE, "a relative output redirection runs again after a cd in the "
                                   "same loop");
          }
      return;
    }

  if (strcmp (base, "set") == 0)
    {
      /* set -k puts "NAME=VALUE" arguments of later commands in their
       * environment: "ls LD_PRELOAD=x.so". */
      for (guint i = 1; i < n; i++)
        if ((w[i].text[0] == '-' && w[i].text[1] != '-' && strchr (w[i].text, 'k') != NULL) ||
            (strcmp (w[i].text, "keyword") == 0 && i > 1 && strcmp (w[i - 1].text, "-o") == 0) ||
            (w[i].flags & W_NONLITERAL))
          force_ask (p, FALSE, "set -k makes assignments among later commands' arguments "
                               "part of their environment");
      return;
    }

  if (strcmp (base, "wait") == 0)
    {
      for (guint i = 1; i < n; i++)
        if (g_str_has_prefix (w[i].text, "-") && strchr (w[i].text, 'p') != NULL)
          force_ask (p, FALSE, "wait -p sets a variable");
      return;
    }

  if (strcmp (base, "test") == 0 || strcmp (base, "[") == 0)
    {
      /* test -v 'a[$(cmd)]' evaluates the subscript. */
      for (guint i = 1; i + 1 < n; i++)
        if (strcmp (w[i].text, "-v") == 0 &&
            (strchr (w[i + 1].text, '[') != NULL || (w[i + 1].flags & W_NONLITERAL)))
          force_ask (p, FALSE, "an array subscript is evaluated as arithmetic, which can run "
                               "commands in bash");
      return;
    }

  if (str_in (base, var_setters) || str_in (base, var_readers))
    {
      gboolean is_printf = strcmp (base, "printf") == 0;
      gboolean setter = str_in (base, var_setters);

      for (guint i = 1; i < n; i++)
        {
          const char *a = w[i].text;
          /* The words that name variables: all of read's, mapfile's and
           * declare's, only the one after printf -v. */
          gboolean names_var = is_printf ? (i > 1 && strcmp (w[i - 1].text, "-v") == 0)
                                         : a[0] != '-';

          /* An option's name attached to it: printf -vPATH, read -aPATH. */
          if (a[0] == '-' && a[1] != '\0' && a[2] != '\0' &&
              ((is_printf && a[1] == 'v') ||
               (strcmp (base, "read") == 0 && strchr (a + 1, 'a') != NULL)))
            {
              a = is_printf ? a + 2 : strchr (a + 1, 'a') + 1;
              names_var = *a != '\0';
            }

          if ((strcmp (base, "mapfile") == 0 || strcmp (base, "readarray") == 0) &&
              a[0] == '-' && strchr (a, 'C') != NULL)
            {
              force_ask (p, FALSE, "mapfile -C runs its callback as a command");
              return;
            }
          if (setter && strcmp (base, "export") != 0 && a[0] == '-' && strchr (a, 'n') != NULL)
            {
              force_ask (p, FALSE, "a name reference makes later assignments set another "
                                   "variable");
              return;
            }
          if (setter && a[0] == '-' && strchr (a, 'i') != NULL)
            {
              force_ask (p, FALSE, "an integer variable's value is evaluated as arithmetic, "
                                   "which can run commands in bash");
              return;
            }
          if (!names_var)
            continue;
          if (strchr (a, '[') != NULL)
            {
              force_ask (p, FALSE, "an array subscript is evaluated as arithmetic, which can run "
                                   "commands in bash");
              return;
            }
          if (w[i].flags & W_NONLITERAL)
            {
              g_autofree char *why = g_strdup_printf ("“%s” sets a variable whose name is not a "
                                                      "literal word", base);
              force_ask (p, FALSE, why);
              return;
            }
          if (names_sensitive_var (a))
            {
              g_autofree char *why = g_strdup_printf ("“%s” sets %.*s, which changes what later "
                                                      "commands run", base,
                                                      (int) strcspn (a, "="), a);
              force_ask (p, FALSE, why);
              return;
            }
          if (setter && strchr (a, '=') != NULL)
            force_ask (p, TRUE, "the command sets shell variables");
        }
      return;
    }

  if (shell_kind (base) == foreign_shells)
    {
      g_autofree char *why = g_strdup_printf ("%s is a shell whose language the engine does not "
                                              "read", base);

      force_ask (p, FALSE, why);
      return;
    }

  if (shell_kind (base) == shells)
    {
      g_autofree char *why = NULL;
      int idx = shell_script_index (w, n, &why);

      if (idx == -2)
        force_ask (p, FALSE, why);
      else if (idx == -3)
        p->shell_reads_stdin = TRUE;
      else if (holes && (idx < 0 || has_token (w + idx, 1, hole_token)))
        force_ask (p, FALSE, "the shell script is filled in at run time");
      else if (idx >= 0)
        parse_script_word (L, p, base, &w[idx]);
      else if (!has_option (w, n, 'n', "noexec"))
        {
          /* bash build.sh: the file may say anything, and it can change
           * between this check and the run, so it asks like a script on
           * standard input does (the exec guard checks what it starts). */
          force_ask (p, FALSE, "the shell runs a script file, whose commands the engine cannot "
                               "see");
        }
      return;
    }

  if (strcmp (base, "find") == 0)
    {
      g_autofree char *prefix = NULL;

      if (append_hole || has_token (w + 1, n - 1, hole_token))
        {
          force_ask (p, FALSE, "find's arguments are filled in at run time");
          return;
        }
      prefix = find_path_prefix (w, n);
      for (guint i = 1; i < n; i++)
        {
          const char *a = w[i].text;

          if (w[i].flags & W_NONLITERAL)
            {
              g_autofree char *why = g_strdup_printf ("“%s” may expand to find actions such as "
                                                      "-exec", a);
              force_ask (p, FALSE, why);
              return;
            }
          if (strcmp (a, "-exec") == 0 || strcmp (a, "-execdir") == 0 ||
              strcmp (a, "-ok") == 0 || strcmp (a, "-okdir") == 0)
            {
              guint start = i + 1, end = start;

              while (end < n && strcmp (w[end].text, ";") != 0 &&
                     !(strcmp (w[end].text, "+") == 0 && strcmp (w[end - 1].text, "{}") == 0))
                end++;
              gboolean dir_action = strcmp (a, "-execdir") == 0 || strcmp (a, "-okdir") == 0;

              if (dir_action)
                L->st->cd_seen = TRUE;
              if (end > start)
                emit_words (L, w + start, end - start, WARDEN_ORIGIN_WRAPPER, "{}", FALSE,
                            dir_action || end == n ? NULL : prefix, "find");
              else
                force_ask (p, FALSE, "find -exec without a command");
              i = end;
            }
        }
      return;
    }

  for (guint k = 0; k < G_N_ELEMENTS (wrappers); k++)
    {
      const WrapperSpec *spec = &wrappers[k];
      g_autofree char *why = NULL;
      const char *replace = NULL;
      gboolean changes_dir = FALSE;
      int start;

      if (strcmp (base, spec->name) != 0)
        continue;

      if (spec->script_opts != NULL)
        {
          analyze_script_wrapper (L, p, spec, w, n, holes);
          return;
        }

      start = wrapper_command_start (spec, w, n, &why, &replace, &changes_dir);
      if (strcmp (spec->name, "exec") == 0 && n > 1 && w[1].text[0] == '-')
        force_ask (p, FALSE, "exec's options are read differently by bash and busybox");
      if (start == -1 && spec->bare_shell)
        {
          why = g_strdup_printf ("%s with no command starts a shell that reads its script from "
                                 "standard input", spec->name);
          start = -2;
        }
      if (changes_dir)
        L->st->cd_seen = TRUE;
      if (start == -2)
        force_ask (p, FALSE, why);
      else if (holes && (start < 0 || has_token (w + 1, start - 1, hole_token)))
        force_ask (p, FALSE, "the command it runs is filled in at run time");
      else if (start >= 0 && strcmp (spec->name, "watch") == 0 &&
               !has_option (w, start, 'x', "exec"))
        {
          /* watch runs "sh -c" on its arguments joined by spaces. */
          g_autofree char *joined = join_words (w + start, n - start, NULL, FALSE, FALSE);
          WordRef script = { joined, 0 };

          for (int i = start; i < (int) n; i++)
            script.flags |= w[i].flags & W_NONLITERAL;
          parse_script_word (L, p, spec->name, &script);
        }
      else if (strcmp (spec->name, "xargs") == 0)
        {
          /* No command: xargs runs echo. With no input and no -r, it runs
           * the command once with no argument added, which a pattern such as
           * "echo *" does not match. */
          static const WordRef echo = { "echo", 0 };
          const WordRef *cmd = start >= 0 ? w + start : &echo;
          guint n_cmd = start >= 0 ? n - start : 1;

          emit_words (L, cmd, n_cmd, WARDEN_ORIGIN_WRAPPER, replace, replace == NULL, NULL,
                      spec->name);
          if (replace == NULL && !has_option (w, start >= 0 ? start : (int) n, 'r',
                                              "no-run-if-empty"))
            emit_words (L, cmd, n_cmd, WARDEN_ORIGIN_WRAPPER, NULL, FALSE, NULL, spec->name);
        }
      else if (start >= 0)
        emit_words (L, w + start, n - start, WARDEN_ORIGIN_WRAPPER, hole_token, append_hole,
                    NULL, spec->name);
      return;
    }
}

/* A command made of bare words (what a wrapper runs). */
static void
emit_words (Lexer         *L,
            const WordRef *words,
            guint          n_words,
            WardenOrigin   origin,
            const char    *hole_token,
            gboolean       append_hole,
            const char    *hole_prefix,
            const char    *runner)
{
  Part *p;

  if (failed (L) || n_words == 0 || !enter (L))
    return;

  p = new_part (L, WARDEN_PART_COMMAND, origin);
  if (p != NULL)
    {
      p->pub.runner = runner;
      p->pub.text = join_words (words, n_words, NULL, FALSE, FALSE);
      if (hole_token != NULL || append_hole)
        p->pub.match_text = join_words_with_prefix (words, n_words, hole_token, hole_prefix,
                                                    append_hole, FALSE);
      if (strchr (words[0].text, '/') != NULL)
        p->pub.base_text = join_words_with_prefix (words, n_words, hole_token, hole_prefix,
                                                   append_hole, TRUE);
      p->pub.expanded_text = join_expanded (words, n_words);
      p->pub.min_text = join_without_vanishing (words, n_words, NULL);
      p->pub.argv = make_argv (words, n_words);
      p->pub.name = p->pub.argv[0];
      analyze (L, p, words, n_words, hole_token, append_hole);
      if (p->shell_reads_stdin)
        force_ask (p, FALSE, "the shell reads its script from standard input");
    }
  leave (L);
}

/* Gives the items' strings and the array back to the pools. */
static void
items_free (Lexer  *L,
            GArray *items)
{
  for (guint i = 0; i < items->len; i++)
    {
      Item *it = &g_array_index (items, Item, i);

      string_put (L->st, it->text);
      string_put (L->st, it->target);
    }
  array_put (L->st, items);
}

/* Reads the target of the redirection operator just consumed. */
static gboolean
read_redirection (Lexer   *L,
                  GArray  *items,
                  GString *op)
{
  Item it = { ITEM_REDIR, 0, op, NULL, NULL };
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
  g_array_append_val (items, it);
  return TRUE;
}

/* Reads redirections following a compound command. */
static void
read_trailing_redirections (Lexer  *L,
                            GArray *items)
{
  while (!failed (L) && peek (L)->type == T_REDIR)
    read_redirection (L, items, steal_text (L));
}

/* Judges the redirections of @items for @p; appends their text to @text. */
static void
judge_redirections (Lexer   *L,
                    Part    *p,
                    Item    *it)
{
  const char *op = it->text->str;
  const char *target = it->target->str;
  gboolean dup = FALSE, output = FALSE;
  const char *bare = op + strspn (op, "0123456789");

  if (strcmp (bare, ">&") == 0 || strcmp (bare, "<&") == 0)
    {
      gsize tl = strlen (target);

      dup = (it->flags & W_NONLITERAL) == 0 && tl > 0 &&
            (strspn (target, "0123456789") == tl ||
             (strspn (target, "0123456789") == tl - 1 && target[tl - 1] == '-'));
      output = !dup && bare[0] == '>';
    }
  else
    output = strchr (bare, '>') != NULL;

  if (output)
    {
      gboolean relative = FALSE;
      g_autofree char *why = judge_output_target (L->st, target, it->flags, &relative);

      if (why != NULL)
        force_ask (p, FALSE, why);
      if (relative)
        p->relative_redirect = TRUE;
    }
}

static void
append_redirection_text (GString *text,
                         Item    *it)
{
  const char *bare = it->text->str + strspn (it->text->str, "0123456789");
  gboolean dup_form = (strcmp (bare, ">&") == 0 || strcmp (bare, "<&") == 0) &&
                      it->target->len > 0 &&
                      strspn (it->target->str, "0123456789-") == it->target->len;

  g_string_append (text, it->text->str);
  if (!dup_form)
    g_string_append_c (text, ' ');
  g_string_append (text, it->target->str);
}

/* Emits the part for redirections of a group or loop. */
static void
emit_compound_redirections (Lexer  *L,
                            GArray *items)
{
  Part *p;
  GString *text;

  gboolean worth_showing = FALSE;

  if (items->len == 0 || failed (L))
    return;

  /* Reading a file into a loop needs no word from the user. */
  for (guint i = 0; i < items->len; i++)
    {
      Item *it = &g_array_index (items, Item, i);

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
      Item *it = &g_array_index (items, Item, i);

      if (i > 0)
        g_string_append_c (text, ' ');
      append_redirection_text (text, it);
      judge_redirections (L, p, it);
    }
  p->pub.text = g_string_free (text, FALSE);
  p->pub.no_suggestion = TRUE;
}

/* sh with no -c reads its script from standard input: a literal here-string
 * or here-document is parsed as that script; anything else cannot be seen. */
static void
shell_script_from_stdin (Lexer  *L,
                         Part   *p,
                         GArray *items)
{
  Item *input = NULL;

  for (guint i = 0; i < items->len; i++)
    {
      Item *it = &g_array_index (items, Item, i);

      if (it->kind == ITEM_REDIR && (it->text->str[0] == '<' || it->text->str[0] == '0'))
        input = it;
    }

  if (input != NULL && strcmp (input->text->str + strspn (input->text->str, "0"), "<<<") == 0 &&
      (input->flags & W_NONLITERAL) == 0)
    {
      if (enter (L))
        {
          parse_string (L->st, input->target->str, input->target->len, WARDEN_ORIGIN_SCRIPT,
                        " in a here-string script");
          leave (L);
        }
      return;
    }
  if (input != NULL && input->heredoc != NULL)
    {
      /* The body is read at the end of the line, which may be behind us. */
      input->heredoc->script_of = p;
      if (input->heredoc->read)
        parse_heredoc_script (L, input->heredoc);
      return;
    }
  force_ask (p, FALSE, "the shell reads its script from standard input");
}

static void
finish_simple_command (Lexer  *L,
                       GArray *items,
                       guint   first_part)
{
  WordRef stack_words[32];
  g_autofree WordRef *heap_words = NULL;
  WordRef *w = stack_words;
  guint n_words = 0;
  GString *text = g_string_sized_new (64);
  gboolean has_assign = FALSE;
  WardenPartKind kind;
  Part *p;

  for (guint i = 0; i < items->len; i++)
    {
      Item *it = &g_array_index (items, Item, i);

      if (it->kind == ITEM_WORD)
        {
          if (n_words == G_N_ELEMENTS (stack_words))
            {
              heap_words = g_new (WordRef, items->len);
              memcpy (heap_words, stack_words, sizeof stack_words);
              w = heap_words;
            }
          w[n_words].text = it->text->str;
          w[n_words].flags = it->flags;
          n_words++;
        }
      else if (it->kind == ITEM_ASSIGN)
        has_assign = TRUE;
    }

  kind = n_words > 0 ? WARDEN_PART_COMMAND
         : has_assign ? WARDEN_PART_ASSIGNMENT : WARDEN_PART_REDIRECTION;
  p = new_part_at (L, kind, L->origin, first_part);
  if (p == NULL)
    {
      g_string_free (text, TRUE);
      return;
    }

  for (guint i = 0; i < items->len; i++)
    {
      Item *it = &g_array_index (items, Item, i);

      if (i > 0)
        g_string_append_c (text, ' ');
      if (it->kind == ITEM_REDIR)
        {
          append_redirection_text (text, it);
          judge_redirections (L, p, it);
        }
      else
        g_string_append (text, it->text->str);
    }
  p->pub.text = g_string_free (text, FALSE);

  if (has_assign)
    {
      const char *why = n_words > 0 ? "the command is run with variable assignments"
                                       : "the command sets shell variables";
      force_ask (p, TRUE, why);
    }

  if (n_words > 0)
    {
      gboolean text_differs = has_assign || g_array_index (items, Item, 0).kind != ITEM_WORD ||
                              strchr (w[0].text, '/') != NULL;

      for (guint i = 0; i < items->len && !text_differs; i++)
        if (g_array_index (items, Item, i).kind == ITEM_REDIR)
          text_differs = TRUE;

      p->pub.argv = make_argv (w, n_words);
      p->pub.name = p->pub.argv[0];
      /* Deny patterns also see the bare command: "X=1 /bin/rm -rf /" is "rm -rf /". */
      if (text_differs)
        p->pub.base_text = join_words (w, n_words, NULL, FALSE, TRUE);
      p->pub.expanded_text = join_expanded (w, n_words);
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
  GArray *items = array_get (L->st);
  gboolean seen_word = FALSE;
  guint first_part = peek (L)->parts_before;

  if (prefix != NULL)
    {
      g_auto(GStrv) words = g_strsplit (prefix, " ", -1);

      for (guint i = 0; words[i]; i++)
        {
          Item it = { ITEM_WORD, 0, string_get (L->st), NULL, NULL };

          g_string_append (it.text, words[i]);
          g_array_append_val (items, it);
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
          Item it = { ITEM_WORD, t->flags, NULL, NULL, NULL };

          if (!seen_word && (t->flags & W_ASSIGN))
            it.kind = ITEM_ASSIGN;
          else if (!seen_word)
            {
              seen_word = TRUE;
              /* name ( ) compound: a function definition. */
              it.text = steal_text (L);
              g_array_append_val (items, it);
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
          g_array_append_val (items, it);
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
static guint
parse_list (Lexer *L,
            guint  stop)
{
  guint count = 0;

  if (!enter (L))
    return 0;

  for (;;)
    {
      Token *t;
      guint s;

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
      GArray *redirs = array_get (L->st);

      read_trailing_redirections (L, redirs);
      emit_compound_redirections (L, redirs);
      items_free (L, redirs);
    }
  leave (L);
  return !failed (L);
}

/* ------------------------------------------------------------------------ */

static void
lexer_init (Lexer        *L,
            State        *st,
            const char   *s,
            gsize         n,
            WardenOrigin  origin,
            const char   *what)
{
  memset (L, 0, sizeof *L);
  L->st = st;
  L->s = s;
  L->n = n;
  L->origin = origin;
  L->what = what;
}

static void
lexer_clear (Lexer *L)
{
  if (L->have_tok)
    consume (L);
  g_clear_pointer (&L->heredocs, g_ptr_array_unref);
  g_clear_pointer (&L->not_arith, g_hash_table_unref);
}

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
  sub.strings = NULL;
  sub.arrays = NULL;
  parse_string (&sub, L->s + start, end - start, L->origin, L->what);
  take_workspace_lookup (L->st, &sub);
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
  {
    State tmp = { 0 };

    tmp.strings = sub.strings;
    tmp.arrays = sub.arrays;
    pools_free (g_memdup2 (&tmp, sizeof tmp));
  }
}

/* Adds the parts of @sub that @st does not have yet: the same text with the
 * same forced answer is shown once. */
static void
merge_parts (State *st,
             State *sub)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < st->parts->len; i++)
    {
      Part *p = g_ptr_array_index (st->parts, i);

      if (p->pub.text != NULL)
        g_hash_table_insert (seen, p->pub.text, p);
    }
  for (guint i = 0; i < sub->parts->len && st->error == NULL; i++)
    {
      Part *p = g_ptr_array_index (sub->parts, i);
      Part *q = p->pub.text != NULL ? g_hash_table_lookup (seen, p->pub.text) : NULL;

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
  sub.strings = NULL;
  sub.arrays = NULL;

  lexer_init (&L, &sub, s, n, origin, what);
  parse_top (&L);
  lines_run = L.lists_done;
  lexer_clear (&L);
  take_workspace_lookup (st, &sub);

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
  {
    State tmp = { 0 };

    tmp.strings = sub.strings;
    tmp.arrays = sub.arrays;
    pools_free (g_memdup2 (&tmp, sizeof tmp));
  }
}

static void
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

WardenShellParse *
warden_shell_parse (const char               *command,
                    gssize                    length,
                    const WardenShellOptions *options)
{
  WardenShellParse *parse = g_new0 (WardenShellParse, 1);
  g_autofree char *workspace = NULL;
  State st = { 0 };
  gsize n;

  g_return_val_if_fail (command != NULL || length == 0, parse);

  n = length < 0 ? strlen (command) : (gsize) length;
  parse->parts = g_ptr_array_new_with_free_func (part_free);

  if (n > WARDEN_SHELL_MAX_LENGTH)
    {
      parse->error = g_strdup_printf ("the command is %" G_GSIZE_FORMAT " bytes long, more than "
                                      "the %d bytes the engine reads", n, WARDEN_SHELL_MAX_LENGTH);
      return parse;
    }
  if (memchr (command, '\0', n) != NULL)
    {
      parse->error = g_strdup ("the command contains a NUL byte");
      return parse;
    }

  /* What runs must be what the user is shown; replacement characters are not. */
  if (!g_utf8_validate_len (command, n, NULL))
    {
      parse->error = g_strdup ("the command is not valid UTF-8, so it cannot be shown as it "
                               "would run");
      return parse;
    }

  workspace = normalize_path (options && options->workspace ? options->workspace : "/workspace");
  st.options = options;
  st.parts = parse->parts;
  st.workspace = workspace;
  st.workspace_len = strlen (workspace);

  pools_take (&st);
  parse_string (&st, command, n, WARDEN_ORIGIN_TOP_LEVEL, "");
  parse->error = st.error;
  parse->ask = st.ask;
  free (st.workspace_real);
  pools_give_back (&st);

  return parse;
}

void
warden_shell_parse_free (WardenShellParse *parse)
{
  if (parse == NULL)
    return;
  g_ptr_array_unref (parse->parts);
  g_free (parse->error);
  g_free (parse->ask);
  g_free (parse);
}
