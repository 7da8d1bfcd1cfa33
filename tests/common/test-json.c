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

/* One JSON text, exactly: what a program sends is read as RFC 8259 says or
 * not at all (issue 28). Each row: the bytes (with their length, NUL and
 * all), and NULL when they are good, else a word of the message. */
static void
test_parse_exact (void)
{
  static const struct {
    const char *data;
    gsize       length;
    const char *problem;
  } rows[] = {
#define ROW(text, problem) { text, sizeof (text) - 1, problem }
    ROW ("{\"a\": true}", NULL),
    ROW (" \t{\"a\": [1, -2.5e+3, 0, \"\\u00e9\\ud83d\\ude00\\n\", null, false, {}]}\r\n", NULL),
    ROW ("\"x\"", NULL),
    ROW ("{\"é\": \"ü\"}", NULL),
    ROW ("{\"a\": true}\0", "NUL byte after"),
    ROW ("{\"a\": false}\0 junk", "NUL byte after"),
    ROW ("\0{\"a\": false}", "NUL"),
    ROW ("{\"a\": \"x\0y\"}", "NUL"),
    ROW ("{\"a\": true} {\"a\": false}", "after the JSON value"),
    ROW ("{\"a\": true} x", "after the JSON value"),
    ROW ("{\"a\": true},", "after the JSON value"),
    ROW ("01", "after the JSON value"),
    ROW ("{\"a\": true}/* c */", "after the JSON value"),
    ROW ("/* c */{\"a\": true}", "comment"),
    ROW ("{'a': true}", "member name"),
    ROW ("'x'", "single quotes"),
    ROW ("{\"a\": true, \"a\": false}", "named twice"),
    ROW ("{\"a\": true, \"\\u0061\": false}", "named twice"),
    ROW ("{\"a\": \"\\u0000\"}", "U+0000"),
    ROW ("{\"a\": \"\\ud800\"}", "lone surrogate"),
    ROW ("{\"a\": \"\\udc00\\ud800\"}", "lone surrogate"),
    ROW ("{\"a\": \"\x01\"}", "control character"),
    ROW ("{\"a\": \"\xff\"}", "not UTF-8"),
    ROW ("{\"a\": \"\xc3\"}", "not UTF-8"),
    ROW ("{\"a\": \"\\x41\"}", "escape"),
    ROW ("{\"a\": tru}", "no JSON value"),
    ROW ("{\"a\": 1.}", "digits"),
    ROW ("{\"a\": .5}", "no JSON value"),
    ROW ("{\"a\": 1", "neither"),
    ROW ("{\"a\" 1}", "“:”"),
    ROW ("{\"a\": \"x", "closing quote"),
    ROW ("", "the end"),
    ROW ("   ", "the end"),
    ROW ("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
         "deeper"),
#undef ROW
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = warden_json_parse_exact (rows[i].data, rows[i].length, &error);

      g_test_message ("row %u: %s", i, error ? error->message : "good");
      if (rows[i].problem == NULL)
        {
          g_assert_no_error (error);
          g_assert_nonnull (node);
        }
      else
        {
          g_assert_null (node);
          g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
          g_assert_nonnull (strstr (error->message, rows[i].problem));
          g_assert_nonnull (strstr (error->message, "at byte "));
        }
    }
}

/* The text it reads is the text that was sent: no character is lost. */
static void
test_parse_exact_reads_all (void)
{
  static const char text[] = "{\"s\": \"\\u00e9\\ud83d\\ude00\\\"/\\t\", \"n\": 7}";
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = warden_json_parse_exact (text, sizeof text - 1, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (warden_json_get_string (json_node_get_object (node), "s"), ==,
                   "é😀\"/\t");
  g_assert_cmpint (warden_json_get_int (json_node_get_object (node), "n", -1), ==, 7);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/common/json/every-byte", test_every_byte);
  g_test_add_func ("/common/json/gzip-header-pretty", test_gzip_header_pretty);
  g_test_add_func ("/common/json/typed-reads", test_typed_reads);
  g_test_add_func ("/common/json/parse-exact", test_parse_exact);
  g_test_add_func ("/common/json/parse-exact-reads-all", test_parse_exact_reads_all);
  return g_test_run ();
}
