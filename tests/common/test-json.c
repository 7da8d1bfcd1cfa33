/* test-json.c: what Warden writes as JSON parses back, whatever bytes it carries
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "common/warden-json.h"

static char *
string_doc (const char *value)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "stdout");
  json_builder_add_string_value (b, value);
  json_builder_end_object (b);
  return warden_json_builder_to_string (b, FALSE);
}

/* Every byte from 1 to 255, as a command's output may hold them: the text
 * parses back, and what was valid UTF-8 comes back the same. */
static void
test_every_byte (void)
{
  for (guint c = 1; c < 256; c++)
    {
      char value[8] = { 'a', (char) c, 'b', 0 };
      g_autofree char *json = string_doc (value);
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) back = json_from_string (json, &error);
      const char *text;

      g_assert_no_error (error);
      g_assert_nonnull (back);
      text = warden_json_get_string (json_node_get_object (back), "stdout");
      g_assert_nonnull (text);
      if (c < 0x80)
        g_assert_cmpstr (text, ==, value);
      else
        g_assert_cmpstr (text, ==, "a\xef\xbf\xbd" "b");  /* a lone byte ≥ 0x80: U+FFFD */
      for (const char *p = json; *p; p++)
        g_assert_cmpint ((guchar) *p, >=, 0x20);
    }
}

/* The gzip header that poisoned sessions, in a member name and a value, in
 * a pretty document (its newlines and indents stay). */
static void
test_gzip_header_pretty (void)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *json = NULL;
  g_autoptr(JsonNode) back = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *object;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "name\x1f");
  json_builder_add_string_value (b, "\x1f\x8b\x08 \\\"\x1f\"");
  json_builder_set_member_name (b, "n");
  json_builder_add_int_value (b, 42);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json = warden_json_to_string (root, TRUE);
  g_assert_nonnull (strchr (json, '\n'));
  back = json_from_string (json, &error);
  g_assert_no_error (error);
  object = json_node_get_object (back);
  g_assert_cmpstr (warden_json_get_string (object, "name\x1f"), ==,
                   "\x1f\xef\xbf\xbd\x08 \\\"\x1f\"");
  g_assert_cmpint (warden_json_get_int (object, "n", -1), ==, 42);
}

static void
test_typed_reads (void)
{
  g_autoptr(JsonNode) node = json_from_string ("{\"s\":\"x\",\"i\":7,\"d\":2.9,\"b\":true,"
                                               "\"n\":null,\"o\":{}}", NULL);
  JsonObject *o = json_node_get_object (node);

  g_assert_cmpstr (warden_json_get_string (o, "s"), ==, "x");
  g_assert_null (warden_json_get_string (o, "i"));
  g_assert_null (warden_json_get_string (o, "n"));
  g_assert_null (warden_json_get_string (o, "o"));
  g_assert_null (warden_json_get_string (o, "missing"));
  g_assert_null (warden_json_get_string (NULL, "s"));
  g_assert_cmpint (warden_json_get_int (o, "i", -1), ==, 7);
  g_assert_cmpint (warden_json_get_int (o, "d", -1), ==, 2);
  g_assert_cmpint (warden_json_get_int (o, "s", -1), ==, -1);
  g_assert_true (warden_json_get_boolean (o, "b", FALSE));
  g_assert_false (warden_json_get_boolean (o, "s", FALSE));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/common/json/every-byte", test_every_byte);
  g_test_add_func ("/common/json/gzip-header-pretty", test_gzip_header_pretty);
  g_test_add_func ("/common/json/typed-reads", test_typed_reads);
  return g_test_run ();
}
