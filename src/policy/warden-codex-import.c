/* warden-codex-import.c: profiles from Codex execution policy rules
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Codex's rules are Starlark; what its documentation and its own files use
 * is a list of calls with named arguments whose values are strings and
 * lists. That subset is read here by a small scanner and a recursive
 * descent parser; anything else is an error with its line and column.
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-policy"

#include <glib/gi18n.h>

#include "warden-codex-import.h"

#include <string.h>

#include "warden-decision.h"
#include "warden-pattern.h"
#include "warden-policy.h"

/* Patterns one rule may become: a pattern is a product of its choices of
 * words, and a typo should not make thousands. */
#define MAX_WORD_SEQUENCES 256
/* Lists inside lists: a pattern's choices, or an example, are two deep; a
 * file nested deeper is wrong, and must not exhaust the stack. */
#define MAX_NESTING 8

/* ------------------------------------------------------------------------ */
/* Values */

typedef struct
{
  guint      line;
  guint      column;
  char      *string;   /* a string, or NULL for a list */
  GPtrArray *items;    /* of Value *, for a list */
} Value;

static void
value_free (Value *value)
{
  g_free (value->string);
  g_clear_pointer (&value->items, g_ptr_array_unref);
  g_free (value);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Value, value_free)

typedef struct
{
  char  *name;
  guint  line;
  guint  column;
  Value *value;
} Argument;

static void
argument_free (Argument *argument)
{
  g_free (argument->name);
  g_clear_pointer (&argument->value, value_free);
  g_free (argument);
}

typedef struct
{
  char      *name;
  guint      line;
  guint      column;
  GPtrArray *arguments;  /* of Argument * */
} Call;

static void
call_free (Call *call)
{
  g_free (call->name);
  g_ptr_array_unref (call->arguments);
  g_free (call);
}

/* ------------------------------------------------------------------------ */
/* Scanning */

typedef enum
{
  TOKEN_END,
  TOKEN_NAME,
  TOKEN_STRING,
  TOKEN_OPEN_PAREN,
  TOKEN_CLOSE_PAREN,
  TOKEN_OPEN_BRACKET,
  TOKEN_CLOSE_BRACKET,
  TOKEN_COMMA,
  TOKEN_EQUALS,
} TokenKind;

typedef struct
{
  const char  *data;
  gsize        length;
  gsize        pos;
  guint        line;
  guint        column;       /* of @pos, in characters */
  const char  *source_name;

  TokenKind    kind;         /* the current token */
  guint        token_line;
  guint        token_column;
  char        *text;         /* a name's or a string's */
} Scanner;

/* Always FALSE, for "return set_error_at (…)". */
G_GNUC_PRINTF (6, 7)
static gboolean
set_error_at (GError     **error,
              int          code,
              const char  *source_name,
              guint        line,
              guint        column,
              const char  *format,
              ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  /* file:line:column: as compilers say it, so editors can jump there. */
  g_set_error (error, WARDEN_POLICY_ERROR, code, "%s:%u:%u: %s", source_name, line, column,
               message);
  return FALSE;
}

#define PARSE_ERROR(s, line, column, ...) \
  set_error_at (error, WARDEN_POLICY_ERROR_PARSE, (s)->source_name, (line), (column), \
                __VA_ARGS__)

static gunichar
peek (Scanner *s,
      gsize    ahead)
{
  return s->pos + ahead < s->length ? (guchar) s->data[s->pos + ahead] : 0;
}

/* One character on: a byte, with the column counting characters. */
static void
advance (Scanner *s)
{
  guchar c = s->data[s->pos++];

  if (c == '\n')
    {
      s->line++;
      s->column = 1;
    }
  /* A continuation byte belongs to the character before it. */
  else if ((c & 0xc0) != 0x80)
    s->column++;
}

static void
skip_blanks (Scanner *s)
{
  while (s->pos < s->length)
    {
      char c = s->data[s->pos];

      if (c == '#')
        while (s->pos < s->length && s->data[s->pos] != '\n')
          advance (s);
      else if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
        advance (s);
      else if (c == '\\' && peek (s, 1) == '\n')
        {
          advance (s);
          advance (s);
        }
      else
        break;
    }
}

static gboolean
read_hex (Scanner  *s,
          guint     digits,
          gunichar *value)
{
  *value = 0;
  for (guint i = 0; i < digits; i++)
    {
      int digit = g_ascii_xdigit_value (peek (s, 0));

      if (digit < 0)
        return FALSE;
      *value = *value * 16 + digit;
      advance (s);
    }
  return TRUE;
}

/* The escape after a backslash, appended to @out. */
static gboolean
read_escape (Scanner  *s,
             GString  *out,
             GError  **error)
{
  guint line = s->line, column = s->column;
  gunichar value;
  gunichar c;

  advance (s);  /* the backslash */
  c = peek (s, 0);
  if (c == 0)
    return PARSE_ERROR (s, line, column, _("the string is not closed"));
  advance (s);
  switch (c)
    {
    case '\n': return TRUE;  /* a line continued */
    case '\\': g_string_append_c (out, '\\'); return TRUE;
    case '"':  g_string_append_c (out, '"'); return TRUE;
    case '\'': g_string_append_c (out, '\''); return TRUE;
    case 'n':  g_string_append_c (out, '\n'); return TRUE;
    case 't':  g_string_append_c (out, '\t'); return TRUE;
    case 'r':  g_string_append_c (out, '\r'); return TRUE;
    case 'a':  g_string_append_c (out, '\a'); return TRUE;
    case 'b':  g_string_append_c (out, '\b'); return TRUE;
    case 'f':  g_string_append_c (out, '\f'); return TRUE;
    case 'v':  g_string_append_c (out, '\v'); return TRUE;
    case 'x':
      if (!read_hex (s, 2, &value) || value > 0x7f)
        return PARSE_ERROR (s, line, column,
                            _("“\\x” takes two hexadecimal digits of an ASCII character"));
      g_string_append_c (out, (char) value);
      return TRUE;
    case 'u':
    case 'U':
      if (!read_hex (s, c == 'u' ? 4 : 8, &value) || value == 0 ||
          !g_unichar_validate (value))
        return PARSE_ERROR (s, line, column,
                            _("“\\%c” does not name a character"), (char) c);
      g_string_append_unichar (out, value);
      return TRUE;
    default:
      if (c < 0x80 && g_ascii_isprint (c))
        return PARSE_ERROR (s, line, column,
                            _("“\\%c” is not an escape Warden reads (\\n, \\t, \\\\, \\\", "
                              "\\', \\xHH, \\uHHHH)"), (char) c);
      return PARSE_ERROR (s, line, column, _("a backslash that escapes nothing Warden reads"));
    }
}

/* A string: '…' or "…", tripled for one across lines, r before it for one
 * without escapes. */
static gboolean
read_string (Scanner  *s,
             gboolean  raw,
             GError  **error)
{
  g_autoptr(GString) out = g_string_new (NULL);
  char quote = s->data[s->pos];
  gboolean triple = peek (s, 1) == (guchar) quote && peek (s, 2) == (guchar) quote;

  for (guint i = 0; i < (triple ? 3 : 1); i++)
    advance (s);
  for (;;)
    {
      char c;

      if (s->pos >= s->length || (!triple && s->data[s->pos] == '\n'))
        return PARSE_ERROR (s, s->token_line, s->token_column, _("the string is not closed"));
      c = s->data[s->pos];
      if (c == quote && (!triple || (peek (s, 1) == (guchar) quote &&
                                     peek (s, 2) == (guchar) quote)))
        {
          for (guint i = 0; i < (triple ? 3 : 1); i++)
            advance (s);
          break;
        }
      if (c == '\\' && !raw)
        {
          if (!read_escape (s, out, error))
            return FALSE;
          continue;
        }
      g_string_append_c (out, c);
      advance (s);
    }
  s->kind = TOKEN_STRING;
  s->text = g_string_free (g_steal_pointer (&out), FALSE);
  return TRUE;
}

static gboolean
next_token (Scanner  *s,
            GError  **error)
{
  char c;

  g_clear_pointer (&s->text, g_free);
  skip_blanks (s);
  s->token_line = s->line;
  s->token_column = s->column;
  if (s->pos >= s->length)
    {
      s->kind = TOKEN_END;
      return TRUE;
    }

  c = s->data[s->pos];
  if ((c == 'r' || c == 'R') && (peek (s, 1) == '"' || peek (s, 1) == '\''))
    {
      advance (s);
      return read_string (s, TRUE, error);
    }
  if (c == '"' || c == '\'')
    return read_string (s, FALSE, error);
  if (g_ascii_isalpha (c) || c == '_')
    {
      gsize start = s->pos;

      while (s->pos < s->length && (g_ascii_isalnum (s->data[s->pos]) || s->data[s->pos] == '_'))
        advance (s);
      s->kind = TOKEN_NAME;
      s->text = g_strndup (s->data + start, s->pos - start);
      return TRUE;
    }

  switch (c)
    {
    case '(': s->kind = TOKEN_OPEN_PAREN; break;
    case ')': s->kind = TOKEN_CLOSE_PAREN; break;
    case '[': s->kind = TOKEN_OPEN_BRACKET; break;
    case ']': s->kind = TOKEN_CLOSE_BRACKET; break;
    case ',': s->kind = TOKEN_COMMA; break;
    case '=': s->kind = TOKEN_EQUALS; break;
    default:
      {
        g_autofree char *shown = g_strndup (s->data + s->pos,
                                            g_utf8_skip[(guchar) c]);

        return PARSE_ERROR (s, s->line, s->column,
                            _("“%s” is not part of a rule: Warden reads calls with named "
                              "arguments whose values are strings and lists"),
                            g_unichar_isprint (g_utf8_get_char (shown)) ? shown : "?");
      }
    }
  advance (s);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Parsing */

static gboolean
expect (Scanner    *s,
        TokenKind   kind,
        const char *what,
        GError    **error)
{
  if (s->kind != kind)
    return PARSE_ERROR (s, s->token_line, s->token_column, _("expected %s here"), what);
  return next_token (s, error);
}

static Value *
parse_value (Scanner  *s,
             guint     depth,
             GError  **error)
{
  g_autoptr(Value) value = g_new0 (Value, 1);

  value->line = s->token_line;
  value->column = s->token_column;
  if (s->kind == TOKEN_STRING)
    {
      value->string = g_steal_pointer (&s->text);
      return next_token (s, error) ? g_steal_pointer (&value) : NULL;
    }
  if (s->kind != TOKEN_OPEN_BRACKET)
    {
      PARSE_ERROR (s, s->token_line, s->token_column,
                   _("expected a string (\"git\") or a list ([\"git\", \"status\"]) here"));
      return NULL;
    }
  if (depth >= MAX_NESTING)
    {
      PARSE_ERROR (s, s->token_line, s->token_column, _("lists are nested too deeply"));
      return NULL;
    }
  value->items = g_ptr_array_new_with_free_func ((GDestroyNotify) value_free);
  if (!next_token (s, error))
    return NULL;
  while (s->kind != TOKEN_CLOSE_BRACKET)
    {
      Value *item = parse_value (s, depth + 1, error);

      if (item == NULL)
        return NULL;
      g_ptr_array_add (value->items, item);
      if (s->kind == TOKEN_COMMA)
        {
          if (!next_token (s, error))
            return NULL;
        }
      else if (s->kind != TOKEN_CLOSE_BRACKET)
        {
          PARSE_ERROR (s, s->token_line, s->token_column,
                       _("expected “,” or “]” here"));
          return NULL;
        }
    }
  return next_token (s, error) ? g_steal_pointer (&value) : NULL;
}

/* NAME ( NAME = VALUE , … ) */
static Call *
parse_call (Scanner  *s,
            GError  **error)
{
  Call *call;

  if (s->kind != TOKEN_NAME)
    {
      PARSE_ERROR (s, s->token_line, s->token_column,
                   _("expected a rule here: Warden reads prefix_rule() and network_rule() "
                     "calls"));
      return NULL;
    }
  call = g_new0 (Call, 1);
  call->name = g_steal_pointer (&s->text);
  call->line = s->token_line;
  call->column = s->token_column;
  call->arguments = g_ptr_array_new_with_free_func ((GDestroyNotify) argument_free);
  if (!next_token (s, error))
    goto failed;
  if (s->kind != TOKEN_OPEN_PAREN)
    {
      PARSE_ERROR (s, call->line, call->column,
                   _("“%s” is not a rule: Warden reads prefix_rule() and network_rule() calls, "
                     "not variables or other statements"), call->name);
      goto failed;
    }
  if (!next_token (s, error))
    goto failed;
  while (s->kind != TOKEN_CLOSE_PAREN)
    {
      Argument *argument;

      if (s->kind == TOKEN_END)
        {
          PARSE_ERROR (s, s->token_line, s->token_column, _("expected “)” here"));
          goto failed;
        }
      if (s->kind != TOKEN_NAME)
        {
          set_error_at (error, WARDEN_POLICY_ERROR_INVALID, s->source_name, s->token_line,
                        s->token_column, _("give the arguments of %s() by name, as in "
                                           "pattern = […]"), call->name);
          goto failed;
        }
      argument = g_new0 (Argument, 1);
      argument->name = g_steal_pointer (&s->text);
      argument->line = s->token_line;
      argument->column = s->token_column;
      g_ptr_array_add (call->arguments, argument);
      if (!next_token (s, error) || !expect (s, TOKEN_EQUALS, "“=”", error))
        goto failed;
      argument->value = parse_value (s, 0, error);
      if (argument->value == NULL)
        goto failed;
      if (s->kind == TOKEN_COMMA)
        {
          if (!next_token (s, error))
            goto failed;
        }
      else if (s->kind != TOKEN_CLOSE_PAREN)
        {
          PARSE_ERROR (s, s->token_line, s->token_column, _("expected “,” or “)” here"));
          goto failed;
        }
    }
  if (!next_token (s, error))
    goto failed;
  return call;

failed:
  call_free (call);
  return NULL;
}

/* The calls of @data, in order; NULL with @error set. */
static GPtrArray *
parse_calls (const char  *data,
             gsize        length,
             const char  *source_name,
             GError     **error)
{
  g_autoptr(GPtrArray) calls = g_ptr_array_new_with_free_func ((GDestroyNotify) call_free);
  Scanner s = { data, length, 0, 1, 1, source_name, TOKEN_END, 0, 0, NULL };
  const char *end;

  if (!g_utf8_validate_len (data, length, &end))
    {
      /* Where the first bad byte is. */
      for (gsize stop = end - data; s.pos < stop;)
        advance (&s);
      set_error_at (error, WARDEN_POLICY_ERROR_PARSE, source_name, s.line, s.column,
                    _("the file is not valid UTF-8 text"));
      return NULL;
    }

  if (!next_token (&s, error))
    return NULL;
  while (s.kind != TOKEN_END)
    {
      Call *call = parse_call (&s, error);

      if (call == NULL)
        {
          g_free (s.text);
          return NULL;
        }
      g_ptr_array_add (calls, call);
    }
  return g_steal_pointer (&calls);
}

/* ------------------------------------------------------------------------ */
/* Rules */

/* In the order of strictness, as Codex weighs them. */
typedef enum
{
  CODEX_ALLOW,
  CODEX_PROMPT,
  CODEX_FORBIDDEN,
  CODEX_NONE,  /* no rule matches */
} CodexDecision;

static const char * const decision_names[] = { "allow", "prompt", "forbidden" };

typedef struct
{
  guint      line;
  guint      column;
  gboolean   match;   /* match (TRUE) or not_match */
  char     **words;
  char      *shown;
} Example;

static void
example_free (Example *example)
{
  g_strfreev (example->words);
  g_free (example->shown);
  g_free (example);
}

typedef struct
{
  guint          line;
  guint          column;
  GPtrArray     *choices;   /* of GStrv: the words one position may be */
  CodexDecision  decision;
  GPtrArray     *examples;  /* of Example * */
} Rule;

static void
rule_free (Rule *rule)
{
  g_ptr_array_unref (rule->choices);
  g_ptr_array_unref (rule->examples);
  g_free (rule);
}

/* Codex's own matching: the rule's words are a prefix of @words. */
static gboolean
rule_matches (const Rule         *rule,
              const char * const *words)
{
  for (guint i = 0; i < rule->choices->len; i++)
    if (words[i] == NULL ||
        !g_strv_contains (g_ptr_array_index (rule->choices, i), words[i]))
      return FALSE;
  return TRUE;
}

#define INVALID(line, column, ...) \
  set_error_at (error, WARDEN_POLICY_ERROR_INVALID, source_name, (line), (column), __VA_ARGS__)

static gboolean
string_value (const Value *value,
              const char  *call,
              const char  *name,
              const char  *source_name,
              GError     **error)
{
  if (value->string == NULL)
    return INVALID (value->line, value->column, _("%s() takes a string as %s"), call, name);
  return TRUE;
}

/* pattern = ["git", ["push", "fetch"]] */
static gboolean
read_pattern (Rule         *rule,
              const Value  *value,
              const char   *source_name,
              GError      **error)
{
  if (value->items == NULL)
    return INVALID (value->line, value->column,
                    _("pattern is a list of words, such as [\"git\", \"status\"]"));
  if (value->items->len == 0)
    return INVALID (value->line, value->column, _("pattern is empty: give at least one word"));
  for (guint i = 0; i < value->items->len; i++)
    {
      const Value *item = g_ptr_array_index (value->items, i);
      g_autoptr(GStrvBuilder) choice = g_strv_builder_new ();

      if (item->string != NULL)
        g_strv_builder_add (choice, item->string);
      else if (item->items->len == 0)
        return INVALID (item->line, item->column,
                        _("a choice of words is empty: give at least one"));
      for (guint j = 0; item->items != NULL && j < item->items->len; j++)
        {
          const Value *word = g_ptr_array_index (item->items, j);

          if (word->string == NULL)
            return INVALID (word->line, word->column,
                            _("a choice of words holds strings only, such as "
                              "[\"push\", \"fetch\"]"));
          g_strv_builder_add (choice, word->string);
        }
      g_ptr_array_add (rule->choices, g_strv_builder_end (choice));
    }
  return TRUE;
}

/* match = ["git push origin", ["git", "fetch"]]: a command line split as a
 * shell does, or its words. */
static gboolean
read_examples (Rule         *rule,
               const Value  *value,
               gboolean      match,
               const char   *source_name,
               GError      **error)
{
  const char *name = match ? "match" : "not_match";

  if (value->items == NULL)
    return INVALID (value->line, value->column,
                    _("%s is a list of examples, such as [\"git status\"]"), name);
  for (guint i = 0; i < value->items->len; i++)
    {
      const Value *item = g_ptr_array_index (value->items, i);
      Example *example = g_new0 (Example, 1);

      example->line = item->line;
      example->column = item->column;
      example->match = match;
      g_ptr_array_add (rule->examples, example);
      if (item->string != NULL)
        {
          g_autoptr(GError) local_error = NULL;

          if (!g_shell_parse_argv (item->string, NULL, &example->words, &local_error))
            return INVALID (item->line, item->column,
                            _("the %s example “%s” is not a command line: %s"), name,
                            item->string, local_error->message);
          example->shown = g_strdup (item->string);
          continue;
        }
      if (item->items->len == 0)
        return INVALID (item->line, item->column, _("a %s example is empty"), name);
      example->words = g_new0 (char *, item->items->len + 1);
      for (guint j = 0; j < item->items->len; j++)
        {
          const Value *word = g_ptr_array_index (item->items, j);

          if (word->string == NULL)
            return INVALID (word->line, word->column,
                            _("an example's words are strings"));
          example->words[j] = g_strdup (word->string);
        }
      example->shown = g_strjoinv (" ", example->words);
    }
  return TRUE;
}

static const Argument *
find_argument (const Call *call,
               const char *name)
{
  for (guint i = 0; i < call->arguments->len; i++)
    {
      const Argument *argument = g_ptr_array_index (call->arguments, i);

      if (strcmp (argument->name, name) == 0)
        return argument;
    }
  return NULL;
}

/* Each argument of @call is one of @names, and none comes twice. */
static gboolean
check_arguments (const Call         *call,
                 const char * const *names,
                 const char         *source_name,
                 GError            **error)
{
  for (guint i = 0; i < call->arguments->len; i++)
    {
      const Argument *argument = g_ptr_array_index (call->arguments, i);

      if (!g_strv_contains (names, argument->name))
        {
          g_autofree char *known = g_strjoinv (", ", (char **) names);

          return INVALID (argument->line, argument->column,
                          _("%s() has no argument “%s”; it takes %s"), call->name,
                          argument->name, known);
        }
      if (find_argument (call, argument->name) != argument)
        return INVALID (argument->line, argument->column,
                        _("%s() is given “%s” twice"), call->name, argument->name);
    }
  return TRUE;
}

static Rule *
read_prefix_rule (const Call  *call,
                  const char  *source_name,
                  GError     **error)
{
  static const char * const names[] = { "pattern", "decision", "match", "not_match",
                                        "justification", NULL };
  Rule *rule = g_new0 (Rule, 1);
  const Argument *argument;

  rule->line = call->line;
  rule->column = call->column;
  rule->choices = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  rule->examples = g_ptr_array_new_with_free_func ((GDestroyNotify) example_free);
  rule->decision = CODEX_ALLOW;

  if (!check_arguments (call, names, source_name, error))
    goto failed;
  argument = find_argument (call, "pattern");
  if (argument == NULL)
    {
      INVALID (call->line, call->column, _("prefix_rule() needs a pattern, such as "
                                           "pattern = [\"git\", \"status\"]"));
      goto failed;
    }
  if (!read_pattern (rule, argument->value, source_name, error))
    goto failed;

  argument = find_argument (call, "decision");
  if (argument != NULL)
    {
      guint i;

      if (!string_value (argument->value, "prefix_rule", "decision", source_name, error))
        goto failed;
      for (i = 0; i < G_N_ELEMENTS (decision_names); i++)
        if (strcmp (argument->value->string, decision_names[i]) == 0)
          break;
      if (i == G_N_ELEMENTS (decision_names))
        {
          INVALID (argument->value->line, argument->value->column,
                   _("decision “%s” is not one of “allow”, “prompt” and “forbidden”"),
                   argument->value->string);
          goto failed;
        }
      rule->decision = (CodexDecision) i;
    }

  /* Codex refuses an empty one; Warden keeps none, but reads it as Codex would. */
  argument = find_argument (call, "justification");
  if (argument != NULL)
    {
      if (!string_value (argument->value, "prefix_rule", "justification", source_name, error))
        goto failed;
      if (strspn (argument->value->string, " \t\n\r") == strlen (argument->value->string))
        {
          INVALID (argument->value->line, argument->value->column,
                   _("justification is empty: say why, or leave it out"));
          goto failed;
        }
    }

  if (((argument = find_argument (call, "match")) != NULL &&
       !read_examples (rule, argument->value, TRUE, source_name, error)) ||
      ((argument = find_argument (call, "not_match")) != NULL &&
       !read_examples (rule, argument->value, FALSE, source_name, error)))
    goto failed;
  return rule;

failed:
  rule_free (rule);
  return NULL;
}

/* network_rule(host = …, protocol = …, decision = …): checked as Codex
 * would, and reported as not imported. */
static gboolean
read_network_rule (const Call  *call,
                   GPtrArray   *notes,
                   const char  *source_name,
                   GError     **error)
{
  static const char * const names[] = { "host", "protocol", "decision", "justification", NULL };
  const Argument *host;

  if (!check_arguments (call, names, source_name, error))
    return FALSE;
  host = find_argument (call, "host");
  if (host == NULL)
    return INVALID (call->line, call->column, _("network_rule() needs a host"));
  if (!string_value (host->value, "network_rule", "host", source_name, error))
    return FALSE;
  g_ptr_array_add (notes, g_strdup_printf (_("%s:%u:%u: network_rule() for “%s”: not "
                                             "imported; hosts are allowed in the profile's "
                                             "network section (Preferences, Network)"),
                                           source_name, call->line, call->column,
                                           host->value->string));
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Patterns */

/* Why @word does not name itself in a Warden pattern, or NULL. */
static const char *
inexact_word (const char *word)
{
  if (word[0] == '\0')
    return _("an empty word");
  if (strchr (word, '*') != NULL)
    return _("“*” is a wildcard in a Warden pattern");
  if (strpbrk (word, " \t\n") != NULL)
    return _("a word with a blank reads as two words in a Warden pattern");
  return NULL;
}

/* Adds to @out every sequence of words @rule names, joined by spaces. */
static gboolean
word_sequences (const Rule  *rule,
                GPtrArray   *out,
                const char **inexact,
                const char  *source_name,
                GError     **error)
{
  guint64 n = 1;
  guint *at;

  for (guint i = 0; i < rule->choices->len; i++)
    {
      n *= g_strv_length (g_ptr_array_index (rule->choices, i));
      if (n > MAX_WORD_SEQUENCES)
        return INVALID (rule->line, rule->column,
                        _("prefix_rule() names too many commands (more than %d): split it"),
                        MAX_WORD_SEQUENCES);
    }
  *inexact = NULL;
  at = g_new0 (guint, rule->choices->len);
  for (guint64 k = 0; k < n; k++)
    {
      GString *text = g_string_new (NULL);

      for (guint i = 0; i < rule->choices->len; i++)
        {
          const char *word = ((char **) g_ptr_array_index (rule->choices, i))[at[i]];

          if (*inexact == NULL)
            *inexact = inexact_word (word);
          if (i > 0)
            g_string_append_c (text, ' ');
          g_string_append (text, word);
        }
      g_ptr_array_add (out, g_string_free (text, FALSE));
      /* The next combination, the last position fastest. */
      for (guint i = rule->choices->len; i-- > 0;)
        {
          if (++at[i] < g_strv_length (g_ptr_array_index (rule->choices, i)))
            break;
          at[i] = 0;
        }
    }
  g_free (at);
  return TRUE;
}

typedef gboolean (*AddFunc) (WardenProfile *profile, const char *pattern, GError **error);

/* The rule's patterns into @profile: for every sequence of words, the
 * words alone and the words followed by more (Codex matches a prefix). */
static gboolean
import_rule (WardenProfile  *profile,
             const Rule     *rule,
             GPtrArray      *notes,
             const char     *source_name,
             GError        **error)
{
  static const AddFunc add[] = { warden_profile_add_allow, warden_profile_add_ask,
                                 warden_profile_add_deny };
  g_autoptr(GPtrArray) sequences = g_ptr_array_new_with_free_func (g_free);
  const char *inexact = NULL;

  if (!word_sequences (rule, sequences, &inexact, source_name, error))
    return FALSE;

  if (inexact != NULL && rule->decision == CODEX_ALLOW)
    {
      /* Allowing by it would allow more than the rule does: left out, the
       * commands ask. */
      g_ptr_array_add (notes, g_strdup_printf (_("%s:%u:%u: prefix_rule(): not imported, as "
                                                 "%s: allowing by it would allow more than "
                                                 "the rule does, so those commands ask"),
                                               source_name, rule->line, rule->column,
                                               inexact));
      return TRUE;
    }
  if (inexact != NULL)
    g_ptr_array_add (notes, g_strdup_printf (_("%s:%u:%u: prefix_rule(): %s: this profile "
                                               "names more commands by it than Codex does"),
                                             source_name, rule->line, rule->column, inexact));

  for (guint i = 0; i < sequences->len; i++)
    {
      const char *words = g_ptr_array_index (sequences, i);
      g_autofree char *more = g_strconcat (words, " *", NULL);
      g_autoptr(GError) local_error = NULL;

      /* A rule that asks or refuses must not vanish quietly: it fails. */
      if (!add[rule->decision] (profile, words, &local_error) ||
          !add[rule->decision] (profile, more, &local_error))
        return INVALID (rule->line, rule->column,
                        _("prefix_rule(): “%s” does not make a Warden pattern: %s"), words,
                        local_error->message);
    }
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Examples against the profile */

static const WardenVerdict verdict_of_decision[] = {
  [CODEX_ALLOW] = WARDEN_VERDICT_ALLOW,
  [CODEX_PROMPT] = WARDEN_VERDICT_ASK,
  [CODEX_FORBIDDEN] = WARDEN_VERDICT_DENY,
  /* An allowlist asks for what no pattern names. */
  [CODEX_NONE] = WARDEN_VERDICT_ASK,
};

/* What Codex decides for @words: its strictest rule that matches. */
static CodexDecision
codex_decides (GPtrArray          *rules,
               const char * const *words)
{
  CodexDecision decision = CODEX_NONE;

  for (guint i = 0; i < rules->len; i++)
    {
      const Rule *rule = g_ptr_array_index (rules, i);

      if (rule_matches (rule, words) && (decision == CODEX_NONE || rule->decision > decision))
        decision = rule->decision;
    }
  return decision;
}

/* The words as one command line: quoted where a shell would read them
 * otherwise. */
static char *
command_line (char **words)
{
  GString *line = g_string_new (NULL);

  for (guint i = 0; words[i] != NULL; i++)
    {
      const char *w = words[i];
      gboolean plain = w[0] != '\0' &&
                       strspn (w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                  "0123456789_@%+=:,./-") == strlen (w);
      g_autofree char *quoted = plain ? NULL : g_shell_quote (w);

      if (i > 0)
        g_string_append_c (line, ' ');
      g_string_append (line, plain ? w : quoted);
    }
  return g_string_free (line, FALSE);
}

static const char *
decision_verb (CodexDecision decision)
{
  switch (decision)
    {
    case CODEX_ALLOW:     return _("allows it");
    case CODEX_PROMPT:    return _("asks");
    case CODEX_FORBIDDEN: return _("refuses it");
    case CODEX_NONE:
    default:              return _("has no rule for it (asks)");
    }
}

static const char *
verdict_verb (WardenVerdict verdict)
{
  switch (verdict)
    {
    case WARDEN_VERDICT_ALLOW: return _("allows it");
    case WARDEN_VERDICT_DENY:  return _("refuses it");
    case WARDEN_VERDICT_ASK:
    default:                   return _("asks");
    }
}

/* Checks every example: it holds for its own rule as Codex reads it, and
 * the profile decides it as Codex does or more strictly (said in @notes).
 * Failures go into @failures. */
static void
check_examples (GPtrArray     *rules,
                WardenPolicy  *policy,
                GPtrArray     *notes,
                GPtrArray     *failures,
                const char    *source_name)
{
  for (guint i = 0; i < rules->len; i++)
    {
      const Rule *rule = g_ptr_array_index (rules, i);

      for (guint j = 0; j < rule->examples->len; j++)
        {
          const Example *example = g_ptr_array_index (rule->examples, j);
          const char *name = example->match ? "match" : "not_match";
          g_autofree char *shown = warden_decision_printable (example->shown);
          g_autofree char *line = NULL;
          g_autoptr(WardenDecision) decision = NULL;
          CodexDecision codex;
          WardenVerdict expected, verdict;
          g_autofree char *reason = NULL;

          if (rule_matches (rule, (const char * const *) example->words) != example->match)
            {
              g_ptr_array_add (failures,
                               g_strdup_printf (example->match
                                                ? _("%s:%u:%u: match example “%s” does not "
                                                    "match the rule's pattern (Codex refuses "
                                                    "this file too)")
                                                : _("%s:%u:%u: not_match example “%s” "
                                                    "matches the rule's pattern (Codex "
                                                    "refuses this file too)"),
                                                source_name, example->line, example->column,
                                                shown));
              continue;
            }

          codex = codex_decides (rules, (const char * const *) example->words);
          expected = verdict_of_decision[codex];
          line = command_line (example->words);
          decision = warden_policy_check (policy, line, -1, NULL);
          verdict = warden_decision_get_verdict (decision);
          if (verdict == expected)
            continue;
          reason = warden_decision_printable (warden_decision_get_reason (decision));
          /* ALLOW < ASK < DENY: more than Codex is stricter. */
          g_ptr_array_add (verdict > expected ? notes : failures,
                           g_strdup_printf (_("%s:%u:%u: %s example “%s”: Codex %s, this "
                                              "profile %s: %s"),
                                            source_name, example->line, example->column, name,
                                            shown, decision_verb (codex),
                                            verdict_verb (verdict), reason));
        }
    }
}

/* ------------------------------------------------------------------------ */

static GPtrArray *
read_rules (GPtrArray   *calls,
            GPtrArray   *notes,
            const char  *source_name,
            GError     **error)
{
  g_autoptr(GPtrArray) rules = g_ptr_array_new_with_free_func ((GDestroyNotify) rule_free);

  for (guint i = 0; i < calls->len; i++)
    {
      const Call *call = g_ptr_array_index (calls, i);

      if (strcmp (call->name, "prefix_rule") == 0)
        {
          Rule *rule = read_prefix_rule (call, source_name, error);

          if (rule == NULL)
            return NULL;
          g_ptr_array_add (rules, rule);
        }
      else if (strcmp (call->name, "network_rule") == 0)
        {
          if (!read_network_rule (call, notes, source_name, error))
            return NULL;
        }
      else
        {
          INVALID (call->line, call->column,
                   _("Warden does not know the function “%s”: it reads prefix_rule() and "
                     "network_rule()"), call->name);
          return NULL;
        }
    }
  return g_steal_pointer (&rules);
}

WardenProfile *
warden_profile_new_from_codex_data (const char  *id,
                                    const char  *data,
                                    gssize       length,
                                    const char  *source_name,
                                    GStrv       *notes,
                                    GError     **error)
{
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(GPtrArray) rules = NULL;
  g_autoptr(GPtrArray) found = g_ptr_array_new_null_terminated (0, g_free, TRUE);
  g_autoptr(GPtrArray) failures = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(WardenPolicy) policy = NULL;
  g_autofree char *description = NULL;

  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (notes != NULL)
    *notes = NULL;
  if (source_name == NULL)
    source_name = "default.rules";
  if (data == NULL)
    data = "";
  if (length < 0)
    length = strlen (data);

  if (!warden_profile_id_is_valid (id))
    {
      g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID,
                   _("“%s” is not a valid profile id; ids use lower-case letters, digits, "
                     "“.”, “_” and “-”, and start with a letter or digit"), id);
      return NULL;
    }

  calls = parse_calls (data, length, source_name, error);
  if (calls == NULL)
    return NULL;
  rules = read_rules (calls, found, source_name, error);
  if (rules == NULL)
    return NULL;

  profile = warden_profile_new (id);
  warden_profile_set_name (profile, _("Imported from Codex"));
  description = g_strdup_printf (_("Command rules imported from the Codex rules “%s”."),
                                 source_name);
  warden_profile_set_description (profile, description);
  warden_profile_set_mode (profile, WARDEN_MODE_ALLOWLIST);
  for (guint i = 0; i < rules->len; i++)
    if (!import_rule (profile, g_ptr_array_index (rules, i), found, source_name, error))
      return NULL;

  policy = warden_policy_new_for_profile (profile);
  check_examples (rules, policy, found, failures, source_name);
  if (failures->len > 0)
    {
      g_autoptr(GString) message = g_string_new (NULL);

      g_string_append_printf (message,
                              ngettext ("%s: %u example does not hold in the imported "
                                        "profile; nothing was imported:",
                                        "%s: %u examples do not hold in the imported "
                                        "profile; nothing was imported:",
                                        failures->len),
                              source_name, failures->len);
      for (guint i = 0; i < failures->len; i++)
        g_string_append_printf (message, "\n  %s", (char *) g_ptr_array_index (failures, i));
      g_set_error_literal (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID,
                           message->str);
      return NULL;
    }

  if (notes != NULL)
    *notes = (GStrv) g_ptr_array_free (g_steal_pointer (&found), FALSE);
  return g_steal_pointer (&profile);
}
