/* warden-shell-private.h: what the shell parser's files share
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The parser is three files: the lexer (warden-shell-lexer.c: tokens, words,
 * quoting, expansions, here-documents), the grammar and entry points
 * (warden-shell-grammar.c) and what it knows of commands
 * (warden-shell-commands.c: wrappers, shells, builtins, redirection targets).
 * This header holds the state they share. */

#pragma once

#include <glib.h>
#include <string.h>

#include "common/warden-copy.h"
#include "warden-shell-parser.h"

G_BEGIN_DECLS

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

/* Strings and item arrays that no token holds, kept for the next: one set
 * per thread, outliving a parse, so that deciding a command allocates
 * almost nothing for its tokens. A plain stack: taking one is a few
 * instructions, which matters at one per token. */
typedef struct
{
  GString *strings[64];
  guint    n_strings;
  struct _Items *arrays[16];
  guint    n_arrays;
  /* A parse and its array of parts, emptied by warden_shell_parse_free():
   * making and freeing them was a twentieth of a decision. */
  WardenShellParse *parse;
  /* Parts freed, for the next: a line has a few. */
  struct _Part *parts[16];
  guint    n_parts;
} Pools;

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
  /* $'…' was read: its escapes make bytes the line does not hold, which
   * need not be UTF-8. Without it every text is made of the line's valid
   * UTF-8 with ASCII bytes taken out or put in, and is valid too. */
  gboolean                  made_bytes;
  /* Strings and item arrays, reused: a decision must cost microseconds. */
  Pools                    *pools;
} State;

typedef struct
{
  State        *st;
  const char   *s;
  gsize         n;
  gsize         i;
  gboolean      continued;  /* @s holds a backslash-newline, a line continuation */
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

/* The items of a simple command: GArray's append, a call that checks and
 * may grow, cost as much as lexing the word; this one is inline. */
typedef struct _Items
{
  Item  *v;
  guint  len;
  guint  size;
  Item   inline_v[8];
} Items;

static inline void
items_append (Items      *items,
              const Item *it)
{
  if (G_UNLIKELY (items->len == items->size))
    {
      Item *v = g_new (Item, items->size * 2);

      memcpy (v, items->v, items->len * sizeof (Item));
      if (items->v != items->inline_v)
        g_free (items->v);
      items->v = v;
      items->size *= 2;
    }
  items->v[items->len++] = *it;
}

/* Private fields of WardenCommandPart, kept beside it. */
struct _Part
{
  WardenCommandPart  pub;
  guint              loop_id;
  gboolean           relative_redirect;
  gboolean           shell_reads_stdin;  /* sh with no -c and no script file */
};

/* The functions the files share keep their short names in the code; their
 * symbols carry the _warden_shell_ prefix, so nothing else in libwarden can
 * meet them. */
#define fail(...)                    _warden_shell_fail (__VA_ARGS__)
#define string_get_slow(...)         _warden_shell_string_get_slow (__VA_ARGS__)
#define string_put_slow(...)         _warden_shell_string_put_slow (__VA_ARGS__)
#define make_argv(...)               _warden_shell_make_argv (__VA_ARGS__)
#define make_argv_sized(...)         _warden_shell_make_argv_sized (__VA_ARGS__)
#define new_part(...)                _warden_shell_new_part (__VA_ARGS__)
#define force_ask(...)               _warden_shell_force_ask (__VA_ARGS__)
#define parse_list(...)              _warden_shell_parse_list (__VA_ARGS__)
#define parse_string(...)            _warden_shell_parse_string (__VA_ARGS__)
#define lex_token(...)               _warden_shell_lex_token (__VA_ARGS__)
#define scan_arith(...)              _warden_shell_scan_arith (__VA_ARGS__)
#define known_not_arith(...)         _warden_shell_known_not_arith (__VA_ARGS__)
#define note_not_arith(...)          _warden_shell_note_not_arith (__VA_ARGS__)
#define pending_heredoc(...)         _warden_shell_pending_heredoc (__VA_ARGS__)
#define parse_heredoc_script(...)    _warden_shell_parse_heredoc_script (__VA_ARGS__)
#define lexer_init(...)              _warden_shell_lexer_init (__VA_ARGS__)
#define lexer_clear(...)             _warden_shell_lexer_clear (__VA_ARGS__)
#define normalize_path(...)          _warden_shell_normalize_path (__VA_ARGS__)
#define judge_redirections(...)      _warden_shell_judge_redirections (__VA_ARGS__)
#define append_redirection_text(...) _warden_shell_append_redirection_text (__VA_ARGS__)
#define join_words(...)              _warden_shell_join_words (__VA_ARGS__)
#define join_expanded(...)           _warden_shell_join_expanded (__VA_ARGS__)
#define join_without_vanishing(...)  _warden_shell_join_without_vanishing (__VA_ARGS__)
#define names_sensitive_var(...)     _warden_shell_names_sensitive_var (__VA_ARGS__)
#define analyze(...)                 _warden_shell_analyze (__VA_ARGS__)
#define shell_script_from_stdin(...) _warden_shell_shell_script_from_stdin (__VA_ARGS__)

/* warden-shell-grammar.c */
G_GNUC_PRINTF (2, 3)
gboolean  fail         (Lexer *L, const char *format, ...);
GString  *string_get_slow (State *st);
void      string_put_slow (State *st, GString *s);
char    **make_argv    (const WordRef *w, guint n);
char    **make_argv_sized (const WordRef *w, const gsize *lens, guint n, const char *tail,
                           gsize tail_len, char **tail_copy);
Part     *new_part     (Lexer *L, WardenPartKind kind, WardenOrigin origin);
void      force_ask    (Part *p, gboolean liftable, const char *reason);
guint     parse_list   (Lexer *L, guint stop);
void      parse_string (State *st, const char *s, gsize n, WardenOrigin origin, const char *what);

/* warden-shell-lexer.c */
void      lex_token            (Lexer *L);
gboolean  scan_arith           (Lexer *L, GString *out, int close);
gboolean  known_not_arith      (Lexer *L, gsize pos);
void      note_not_arith       (Lexer *L, gsize pos);
Heredoc  *pending_heredoc      (Lexer *L);
void      parse_heredoc_script (Lexer *L, Heredoc *doc);
void      lexer_init           (Lexer *L, State *st, const char *s, gsize n, WardenOrigin origin,
                                const char *what);
void      lexer_clear          (Lexer *L);

/* warden-shell-commands.c */
char     *normalize_path          (const char *path);
void      judge_redirections      (Lexer *L, Part *p, Item *it);
void      append_redirection_text (GString *text, Item *it);
char     *join_words              (const WordRef *words, guint n, const char *hole_token,
                                   gboolean append_hole, gboolean basename_first);
char     *join_expanded           (const WordRef *words, guint n);
char     *join_without_vanishing  (const WordRef *words, guint n, Items *items);
gboolean  names_sensitive_var     (const char *arg);
void      analyze                 (Lexer *L, Part *p, const WordRef *w, guint n,
                                   const char *hole_token, gboolean append_hole);
void      shell_script_from_stdin (Lexer *L, Part *p, Items *items);

/* ------------------------------------------------------------------------ */
/* Strings from the pools: inline, there are one or two for every token */

/* The fuzz build frees at once, so that AddressSanitizer sees a string
 * used after it was given back. */
#ifdef WARDEN_FUZZING
# define POOLS 0
#else
# define POOLS 1
#endif

static inline GString *
string_get (State *st)
{
  if (G_LIKELY (st->pools != NULL && st->pools->n_strings > 0))
    {
      GString *s = st->pools->strings[--st->pools->n_strings];

      s->len = 0;
      s->str[0] = '\0';
      return s;
    }
  return string_get_slow (st);
}

static inline void
string_put (State   *st,
            GString *s)
{
  if (s == NULL)
    return;
  if (POOLS && G_LIKELY (st->pools != NULL &&
                         st->pools->n_strings < G_N_ELEMENTS (st->pools->strings) &&
                         s->allocated_len <= 4096))
    st->pools->strings[st->pools->n_strings++] = s;
  else
    string_put_slow (st, s);
}

/* ------------------------------------------------------------------------ */
/* Characters, tokens and depth: inline, they are read at every byte */

/* Current byte, after joining backslash-newline line continuations. */
/* g_string_append_len() without its checks for overlap and a negative
 * length, which cost more than copying a short run. */
static inline void
append_run (GString    *out,
            const char *run,
            gsize       len)
{
  if (out->len + len < out->allocated_len)
    {
      warden_copy (out->str + out->len, run, len);
      out->len += len;
      out->str[out->len] = '\0';
    }
  else
    g_string_append_len (out, run, len);
}

static inline int
peekc (Lexer *L)
{
  if (G_UNLIKELY (L->continued))
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

static inline gboolean
failed (Lexer *L)
{
  return L->st->error != NULL;
}

static inline gboolean
enter (Lexer *L)
{
  if (failed (L))
    return FALSE;
  if (++L->st->depth > WARDEN_SHELL_MAX_DEPTH)
    return fail (L, "nesting deeper than %d levels", WARDEN_SHELL_MAX_DEPTH);
  return TRUE;
}

static inline void
leave (Lexer *L)
{
  L->st->depth--;
}

static inline Token *
peek (Lexer *L)
{
  if (!L->have_tok)
    lex_token (L);
  return &L->tok;
}

/* Drops the current token (inline: the parser does it for every token). */
static inline void
consume (Lexer *L)
{
  GString *text = L->tok.text;

  L->tok.text = NULL;
  string_put (L->st, text);
  L->have_tok = FALSE;
}

/* Takes the current token's text. */
static inline GString *
steal_text (Lexer *L)
{
  GString *text = L->tok.text;

  L->tok.text = NULL;
  L->have_tok = FALSE;
  return text;
}

static inline void
skip_newlines (Lexer *L)
{
  while (!failed (L) && peek (L)->type == T_NEWLINE)
    consume (L);
}

static inline gboolean
is_word (Token      *t,
         const char *reserved)
{
  return t->reserved && strcmp (t->text->str, reserved) == 0;
}

G_END_DECLS
