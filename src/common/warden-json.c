/* warden-json.c: JSON that is valid whatever bytes it carries, and typed reads
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "warden-json.h"

#include <string.h>

char *
warden_json_fix (const char *text,
                 gssize      length)
{
  g_autofree char *valid = NULL;
  GString *out;
  gboolean in_string = FALSE;
  gsize len;

  if (length < 0)
    length = strlen (text);
  /* json-glib writes raw bytes of a string as it got them: an invalid
   * sequence can only stand inside a string, so U+FFFD keeps the quotes. */
  valid = g_utf8_make_valid (text, length);
  len = strlen (valid);
  out = g_string_sized_new (len + 16);
  for (gsize i = 0; i < len; i++)
    {
      guchar c = valid[i];

      if (in_string && c == '\\' && i + 1 < len)
        {
          g_string_append_c (out, c);
          g_string_append_c (out, valid[++i]);
          continue;
        }
      if (c == '"')
        in_string = !in_string;
      else if (in_string && c < 0x20)
        {
          g_string_append_printf (out, "\\u%04x", c);
          continue;
        }
      g_string_append_c (out, c);
    }
  return g_string_free (out, FALSE);
}

char *
warden_json_to_string (JsonNode *node,
                       gboolean  pretty)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *raw = NULL;
  gsize length = 0;

  json_generator_set_root (generator, node);
  json_generator_set_pretty (generator, pretty);
  raw = json_generator_to_data (generator, &length);
  return warden_json_fix (raw, length);
}

char *
warden_json_builder_to_string (JsonBuilder *builder,
                               gboolean     pretty)
{
  g_autoptr(JsonNode) root = json_builder_get_root (builder);

  return warden_json_to_string (root, pretty);
}

const char *
warden_json_get_string (JsonObject *object,
                        const char *member)
{
  JsonNode *node = object ? json_object_get_member (object, member) : NULL;

  return node && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
         ? json_node_get_string (node) : NULL;
}

gint64
warden_json_get_int (JsonObject *object,
                     const char *member,
                     gint64      fallback)
{
  JsonNode *node = object ? json_object_get_member (object, member) : NULL;
  GType type = node && JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node)
                                                    : G_TYPE_INVALID;

  if (type == G_TYPE_INT64)
    return json_node_get_int (node);
  if (type == G_TYPE_DOUBLE)
    return (gint64) json_node_get_double (node);
  return fallback;
}

gboolean
warden_json_get_boolean (JsonObject *object,
                         const char *member,
                         gboolean    fallback)
{
  JsonNode *node = object ? json_object_get_member (object, member) : NULL;

  if (node && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN)
    return json_node_get_boolean (node);
  return fallback;
}

/* ------------------------------------------------------------------------ */
/* One JSON text, exactly */

/* Deeper than any answer; json-glib recurses too. */
#define EXACT_MAX_DEPTH 64

typedef struct
{
  const char *data;
  gsize       length;
  gsize       pos;
  const char *problem;  /* what is wrong at pos */
} Exact;

static gboolean exact_value (Exact *x,
                             guint  depth);

static int
exact_peek (Exact *x)
{
  return x->pos < x->length ? (guchar) x->data[x->pos] : -1;
}

static gboolean
exact_fail (Exact      *x,
            const char *problem)
{
  x->problem = problem;
  return FALSE;
}

static void
exact_space (Exact *x)
{
  int c;

  while ((c = exact_peek (x)) == ' ' || c == '\t' || c == '\n' || c == '\r')
    x->pos++;
}

static gboolean
exact_digits (Exact *x)
{
  int c = exact_peek (x);

  if (!g_ascii_isdigit (c))
    return exact_fail (x, "a number without its digits");
  while (g_ascii_isdigit (exact_peek (x)))
    x->pos++;
  return TRUE;
}

static gboolean
exact_number (Exact *x)
{
  if (exact_peek (x) == '-')
    x->pos++;
  /* No leading zeros: "01" ends at its 0, and the 1 is left over. */
  if (exact_peek (x) == '0')
    x->pos++;
  else if (!exact_digits (x))
    return FALSE;
  if (exact_peek (x) == '.')
    {
      x->pos++;
      if (!exact_digits (x))
        return FALSE;
    }
  if (exact_peek (x) == 'e' || exact_peek (x) == 'E')
    {
      x->pos++;
      if (exact_peek (x) == '+' || exact_peek (x) == '-')
        x->pos++;
      if (!exact_digits (x))
        return FALSE;
    }
  return TRUE;
}

static gboolean
exact_hex4 (Exact    *x,
            gunichar *out)
{
  gunichar value = 0;

  for (guint i = 0; i < 4; i++, x->pos++)
    {
      int digit = g_ascii_xdigit_value (exact_peek (x) < 0 ? 'x' : exact_peek (x));

      if (digit < 0)
        return exact_fail (x, "a \\u escape without its four hex digits");
      value = value * 16 + digit;
    }
  *out = value;
  return TRUE;
}

/* After the backslash of \uXXXX: one character, a surrogate pair whole. */
static gboolean
exact_unicode_escape (Exact    *x,
                      gunichar *out)
{
  gunichar low;

  x->pos++;
  if (!exact_hex4 (x, out))
    return FALSE;
  if (*out == 0)
    return exact_fail (x, "U+0000 in a string");
  if (*out >= 0xdc00 && *out <= 0xdfff)
    return exact_fail (x, "a lone surrogate in a string");
  if (*out < 0xd800 || *out > 0xdbff)
    return TRUE;
  if (x->length - x->pos < 2 || x->data[x->pos] != '\\' || x->data[x->pos + 1] != 'u')
    return exact_fail (x, "a lone surrogate in a string");
  x->pos += 2;
  if (!exact_hex4 (x, &low))
    return FALSE;
  if (low < 0xdc00 || low > 0xdfff)
    return exact_fail (x, "a lone surrogate in a string");
  *out = 0x10000 + ((*out - 0xd800) << 10) + (low - 0xdc00);
  return TRUE;
}

/* A string; @out (may be NULL) gets its text, to compare member names. */
static gboolean
exact_string (Exact   *x,
              GString *out)
{
  static const char escapes[] = "\"\"\\\\//b\bf\fn\nr\rt\t";

  x->pos++;
  for (;;)
    {
      int c = exact_peek (x);

      if (c < 0)
        return exact_fail (x, "a string without its closing quote");
      if (c == '"')
        {
          x->pos++;
          return TRUE;
        }
      if (c == 0)
        return exact_fail (x, "a NUL byte");
      if (c < 0x20)
        return exact_fail (x, "a raw control character in a string (JSON writes it \\u00XX)");
      if (c == '\\')
        {
          int e;
          const char *found;

          x->pos++;
          e = exact_peek (x);
          if (e == 'u')
            {
              gunichar u;

              if (!exact_unicode_escape (x, &u))
                return FALSE;
              if (out != NULL)
                g_string_append_unichar (out, u);
              continue;
            }
          found = e > 0 ? strchr (escapes, e) : NULL;
          if (found == NULL || (found - escapes) % 2 != 0)
            return exact_fail (x, "an escape JSON does not have");
          if (out != NULL)
            g_string_append_c (out, found[1]);
          x->pos++;
          continue;
        }
      if (c < 0x80)
        {
          if (out != NULL)
            g_string_append_c (out, c);
          x->pos++;
          continue;
        }
      {
        gunichar u = g_utf8_get_char_validated (x->data + x->pos, x->length - x->pos);
        guint n;

        if (u == (gunichar) -1 || u == (gunichar) -2)
          return exact_fail (x, "bytes that are not UTF-8");
        n = g_utf8_skip[c];
        if (out != NULL)
          g_string_append_len (out, x->data + x->pos, n);
        x->pos += n;
      }
    }
}

static gboolean
exact_object (Exact *x,
              guint  depth)
{
  g_autoptr(GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  x->pos++;
  exact_space (x);
  if (exact_peek (x) == '}')
    {
      x->pos++;
      return TRUE;
    }
  for (;;)
    {
      g_autoptr(GString) name = g_string_new (NULL);
      gsize start = x->pos;

      if (exact_peek (x) != '"')
        return exact_fail (x, "a member name that is not a string in double quotes");
      if (!exact_string (x, name))
        return FALSE;
      if (!g_hash_table_add (names, g_string_free (g_steal_pointer (&name), FALSE)))
        {
          x->pos = start;
          return exact_fail (x, "a member named twice");
        }
      exact_space (x);
      if (exact_peek (x) != ':')
        return exact_fail (x, "a member name without “:”");
      x->pos++;
      exact_space (x);
      if (!exact_value (x, depth + 1))
        return FALSE;
      exact_space (x);
      if (exact_peek (x) == '}')
        {
          x->pos++;
          return TRUE;
        }
      if (exact_peek (x) != ',')
        return exact_fail (x, "neither “,” nor “}” after a member");
      x->pos++;
      exact_space (x);
    }
}

static gboolean
exact_array (Exact *x,
             guint  depth)
{
  x->pos++;
  exact_space (x);
  if (exact_peek (x) == ']')
    {
      x->pos++;
      return TRUE;
    }
  for (;;)
    {
      if (!exact_value (x, depth + 1))
        return FALSE;
      exact_space (x);
      if (exact_peek (x) == ']')
        {
          x->pos++;
          return TRUE;
        }
      if (exact_peek (x) != ',')
        return exact_fail (x, "neither “,” nor “]” after an element");
      x->pos++;
      exact_space (x);
    }
}

static gboolean
exact_literal (Exact      *x,
               const char *word)
{
  gsize n = strlen (word);

  if (x->length - x->pos < n || memcmp (x->data + x->pos, word, n) != 0)
    return exact_fail (x, "no JSON value");
  x->pos += n;
  return TRUE;
}

static gboolean
exact_value (Exact *x,
             guint  depth)
{
  int c = exact_peek (x);

  if (depth >= EXACT_MAX_DEPTH)
    return exact_fail (x, "nesting deeper than 64");
  switch (c)
    {
    case '{':
      return exact_object (x, depth);
    case '[':
      return exact_array (x, depth);
    case '"':
      return exact_string (x, NULL);
    case 't':
      return exact_literal (x, "true");
    case 'f':
      return exact_literal (x, "false");
    case 'n':
      return exact_literal (x, "null");
    case -1:
      return exact_fail (x, "the end where a value should be");
    case 0:
      return exact_fail (x, "a NUL byte");
    case '\'':
      return exact_fail (x, "single quotes (JSON quotes strings with \")");
    case '/':
    case '#':
      return exact_fail (x, "a comment (JSON has none)");
    default:
      if (c == '-' || g_ascii_isdigit (c))
        return exact_number (x);
      return exact_fail (x, "no JSON value");
    }
}

JsonNode *
warden_json_parse_exact (const char  *data,
                         gsize        length,
                         GError     **error)
{
  g_autoptr(JsonParser) parser = NULL;
  Exact x = { data, length, 0, NULL };
  gboolean ok;

  g_return_val_if_fail (data != NULL || length == 0, NULL);

  exact_space (&x);
  ok = exact_value (&x, 0);
  if (ok)
    {
      exact_space (&x);
      if (x.pos < x.length)
        ok = exact_fail (&x, data[x.pos] == '\0' ? "a NUL byte after the JSON value"
                                                 : "something after the JSON value");
    }
  if (!ok)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s at byte %" G_GSIZE_FORMAT,
                   x.problem, x.pos + 1);
      return NULL;
    }

  /* What passed the checks above is JSON as json-glib reads it too. */
  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, data, (gssize) length, error))
    return NULL;
  return json_node_ref (json_parser_get_root (parser));
}
