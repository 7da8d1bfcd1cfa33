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
