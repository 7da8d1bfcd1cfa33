/* warden-shell-lexer.c: the shell parser's lexer: tokens, words, quoting, expansions
 * and here-documents
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* It reads one token at a time for the grammar; the substitutions in a word
 * ($( ), backticks, <( )) are parsed by the grammar as they are met, so their
 * commands are emitted in order. */

#include "config.h"

#define G_LOG_DOMAIN "warden-policy"

#include <string.h>

#include "warden-shell-private.h"

static gboolean lex_word_into (Lexer *L, GString *out, guint *flags, gboolean array_elem);
static gboolean lex_dquote    (Lexer *L, GString *out, guint *flags, gssize end, gboolean heredoc);

/* ------------------------------------------------------------------------ */
/* Characters */

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

/* NAME=, NAME+= or NAME[…]= at the start of raw source text. */
static inline gboolean
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
gboolean
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
gboolean
known_not_arith (Lexer *L,
                 gsize  pos)
{
  return L->not_arith != NULL && g_hash_table_contains (L->not_arith, GSIZE_TO_POINTER (pos + 1));
}

void
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

    /* ${(e)x}, ${ cmd; }, ${|cmd;}, ${}: bash and dash refuse them as bad
     * substitutions, but zsh, ksh93 and mksh run code with them. */
    if (name_end == name_start && L->st->ask == NULL)
      L->st->ask = g_strdup ("“${…}” with no parameter name is a bad substitution in sh, "
                             "and runs code in zsh, ksh93 and mksh");

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

  L->st->made_bytes = TRUE;

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
      /* The rest of a run of ordinary bytes at once (a '"' in a
       * here-document only ends the run, and is taken on the next turn). */
      {
        gsize stop = end >= 0 ? MIN ((gsize) end, L->n) : L->n;
        gsize j = L->i + 1;

        while (j < stop && L->s[j] != '"' && L->s[j] != '\\' && L->s[j] != '$' &&
               L->s[j] != '`')
          j++;
        append_run (out, L->s + L->i, j - L->i);
        L->i = j;
      }
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



/* Bytes that lex_word_into() reads as more than themselves, outside a
 * brace and inside one (where "." and "," may make a list). Every other
 * byte is one of a run that is copied at once, which is most of a line. */
#define WORD_SPECIAL_BYTES \
  [' '] = 1, ['\t'] = 1, ['\n'] = 1, [';'] = 1, ['&'] = 1, ['|'] = 1, ['('] = 1, [')'] = 1, \
  ['<'] = 1, ['>'] = 1, ['\\'] = 1, ['\''] = 1, ['"'] = 1, ['$'] = 1, ['`'] = 1, ['*'] = 1, \
  ['?'] = 1, ['['] = 1, [']'] = 1, ['{'] = 1, ['}'] = 1, ['~'] = 1
static const guchar word_special[2][256] = {
  { WORD_SPECIAL_BYTES },
  { WORD_SPECIAL_BYTES, ['.'] = 1, [','] = 1 },
};
#undef WORD_SPECIAL_BYTES

/* The bytes of a variable's name (is_name_char()). */
static const guchar name_byte[256] = {
  ['_'] = 1,
  ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
  ['8'] = 1, ['9'] = 1,
  ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1,
  ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1,
  ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
  ['y'] = 1, ['z'] = 1,
  ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1,
  ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1,
  ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
  ['Y'] = 1, ['Z'] = 1,
};

/* Bytes that end a word when they follow plain bytes ("<" and ">" unless
 * "(" follows: a process substitution may go on the word). */
static const guchar plain_word_end[256] = {
  [' '] = 1, ['\t'] = 1, ['\n'] = 1, [';'] = 1, ['&'] = 1, ['|'] = 1, [')'] = 1,
  ['<'] = 1, ['>'] = 1,
};

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

  if (failed (L))
    return FALSE;

  /* Most words are one run of plain bytes that a blank or an operator ends
   * ("git", "status", "package.json"): the loop below would read them the
   * same way, in two rounds of its checks. */
  if (!array_elem && !L->continued && L->i < L->n)
    {
      const guchar *special = word_special[0];
      gsize j = L->i, name_end;

      /* The run's first bytes that may be a variable's name, then the rest. */
      while (j < L->n && name_byte[(guchar) L->s[j]])
        j++;
      name_end = j;
      while (j < L->n && !special[(guchar) L->s[j]])
        j++;
      if (j > L->i &&
          (j == L->n ||
           (plain_word_end[(guchar) L->s[j]] &&
            !((L->s[j] == '<' || L->s[j] == '>') && j + 1 < L->n && L->s[j + 1] == '('))))
        {
          append_run (out, L->s + L->i, j - L->i);
          /* NAME= or NAME+= (a run holds no "[" of NAME[…]=), as
           * raw_is_assignment() says below. */
          if (is_name_start ((guchar) L->s[start]) && name_end < j)
            {
              gsize e = name_end + (L->s[name_end] == '+');

              if (e < j && L->s[e] == '=')
                *flags |= W_ASSIGN;
            }
          L->i = j;
          return TRUE;
        }
    }

  for (;;)
    {
      int c = peekc (L);

      if (failed (L))
        return FALSE;

      if (c >= 0 && !word_special[brace_open][c])
        {
          const guchar *special = word_special[brace_open];
          gsize j = L->i + 1;

          while (j < L->n && !special[(guchar) L->s[j]])
            j++;
          append_run (out, L->s + L->i, j - L->i);
          L->i = j;
          literal = TRUE;
          any = TRUE;
          continue;
        }

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
void
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
Heredoc *
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

/* Words the parser compares tokens with: reserved words and "-p" of time.
 * Every unquoted word is looked up, so by its length and first byte, which
 * sets most words (command names, options, paths) aside at once. */
static gboolean
could_be_reserved (const char *w,
                   gsize       n)
{
#define IS(word) (memcmp (w, word, sizeof word - 1) == 0)
  switch (n)
    {
    case 1:
      return w[0] == '{' || w[0] == '}' || w[0] == '!';
    case 2:
      switch (w[0])
        {
        case 'i': return w[1] == 'f' || w[1] == 'n';   /* if in */
        case 'f': return w[1] == 'i';                  /* fi */
        case 'd': return w[1] == 'o';                  /* do */
        case '[': return w[1] == '[';                  /* [[ */
        case ']': return w[1] == ']';                  /* ]] */
        case '-': return w[1] == 'p';                  /* -p */
        default:  return FALSE;
        }
    case 3:
      return IS ("for");
    case 4:
      switch (w[0])
        {
        case 't': return IS ("then") || IS ("time");
        case 'e': return IS ("elif") || IS ("else") || IS ("esac");
        case 'd': return IS ("done");
        case 'c': return IS ("case");
        default:  return FALSE;
        }
    case 5:
      return IS ("while") || IS ("until");
    case 6:
      return IS ("select") || IS ("coproc");
    case 8:
      return IS ("function");
    default:
      return FALSE;
    }
#undef IS
}

static void
token_clear (Lexer *L,
             Token *t)
{
  string_put (L->st, g_steal_pointer (&t->text));
}

/* The bytes the switch of lex_token() does not read as the start of a word. */
static const guchar operator_start[256] = {
  ['\n'] = 1, [';'] = 1, ['&'] = 1, ['|'] = 1, ['('] = 1, [')'] = 1, ['<'] = 1, ['>'] = 1,
};

/* Reads the next token into L->tok. */
void
lex_token (Lexer *L)
{
  Token t = { .type = T_EOF, .parts_before = L->st->parts->len };
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

  /* Most tokens are words: a test that is nearly always right, before the
   * switch's jump, which guesses badly as words and operators alternate. */
  if (G_LIKELY (c >= 0 && !operator_start[c]))
    goto word;

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



/* ------------------------------------------------------------------------ */
/* A lexer's life */

void
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
  /* Most lines have none: peekc() then need not look for one at every byte. */
  for (const char *b = n > 0 ? memchr (s, '\\', n) : NULL; b != NULL && !L->continued;
       b = memchr (b + 1, '\\', n - (gsize) (b + 1 - s)))
    L->continued = b + 1 < s + n && b[1] == '\n';
  L->origin = origin;
  L->what = what;
}

void
lexer_clear (Lexer *L)
{
  if (L->have_tok)
    consume (L);
  g_clear_pointer (&L->heredocs, g_ptr_array_unref);
  g_clear_pointer (&L->not_arith, g_hash_table_unref);
}
