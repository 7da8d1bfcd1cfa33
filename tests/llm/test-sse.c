/* test-sse.c: server-sent events, however the bytes arrive
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "llm/warden-sse-parser.h"

/* Recorded from the Messages API, shortened: comments, a ping, an event
 * whose data spans two lines, and JSON with escapes. */
static const char recorded_stream[] =
  ": stream opened\n"
  "event: message_start\n"
  "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_01XFDUDYJgAACzvnptvVoYEL\","
  "\"usage\":{\"input_tokens\":472,\"output_tokens\":2}}}\n"
  "\n"
  "event: ping\n"
  "data: {\"type\": \"ping\"}\n"
  "\n"
  "event: content_block_delta\n"
  "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\","
  "\"text\":\"caf\\u00e9: \\\"done\\\"\"}}\n"
  "\n"
  ": keep-alive\n"
  "event: multi\n"
  "data: first line\n"
  ": a comment between data lines\n"
  "data:second line, no space\n"
  "data:  third line, two spaces\n"
  "\n"
  "data: {\"type\":\"message_stop\"}\n"
  "\n";

static const char * const recorded_events[] = {
  "message_start|{\"type\":\"message_start\",\"message\":{\"id\":\"msg_01XFDUDYJgAACzvnptvVoYEL\","
  "\"usage\":{\"input_tokens\":472,\"output_tokens\":2}}}",
  "ping|{\"type\": \"ping\"}",
  "content_block_delta|{\"type\":\"content_block_delta\",\"index\":0,"
  "\"delta\":{\"type\":\"text_delta\","
  "\"text\":\"caf\\u00e9: \\\"done\\\"\"}}",
  "multi|first line\nsecond line, no space\n third line, two spaces",
  "(none)|{\"type\":\"message_stop\"}",
  NULL
};

typedef struct
{
  GPtrArray *events;      /* "event|data" */
  guint      stop_after;  /* 0: never stop */
} Collector;

static gboolean
collect_cb (const char *event,
            const char *data,
            gpointer    user_data)
{
  Collector *collector = user_data;

  g_ptr_array_add (collector->events, g_strdup_printf ("%s|%s", event ? event : "(none)", data));

  return collector->stop_after == 0 || collector->events->len < collector->stop_after;
}

static void
collector_init (Collector *collector)
{
  collector->events = g_ptr_array_new_with_free_func (g_free);
  collector->stop_after = 0;
}

static void
collector_clear (Collector *collector)
{
  g_clear_pointer (&collector->events, g_ptr_array_unref);
}

static void
assert_events (Collector          *collector,
               const char * const *expected)
{
  guint n = g_strv_length ((char **) expected);

  for (guint i = 0; i < MIN (n, collector->events->len); i++)
    g_assert_cmpstr (g_ptr_array_index (collector->events, i), ==, expected[i]);
  g_assert_cmpuint (collector->events->len, ==, n);
}

/* Feeds @stream in two pieces split at @split, or one byte at a time when
 * @split is G_MAXSIZE. */
static void
parse_split (const char         *stream,
             gsize               length,
             gsize               split,
             const char * const *expected)
{
  g_autoptr(WardenSseParser) parser = NULL;
  Collector collector;

  collector_init (&collector);
  parser = warden_sse_parser_new (collect_cb, &collector);

  if (split == G_MAXSIZE)
    {
      for (gsize i = 0; i < length; i++)
        g_assert_true (warden_sse_parser_feed (parser, stream + i, 1));
    }
  else
    {
      g_assert_true (warden_sse_parser_feed (parser, stream, split));
      g_assert_true (warden_sse_parser_feed (parser, stream + split, length - split));
    }

  assert_events (&collector, expected);
  g_assert_false (warden_sse_parser_has_partial (parser));
  collector_clear (&collector);
}

static void
parse_every_split (const char         *stream,
                   const char * const *expected)
{
  gsize length = strlen (stream);

  for (gsize split = 0; split <= length; split++)
    parse_split (stream, length, split, expected);
  parse_split (stream, length, G_MAXSIZE, expected);
}

static char *
replace_line_ends (const char *stream,
                   const char *line_end)
{
  g_autoptr(GString) result = g_string_new (stream);

  g_string_replace (result, "\n", line_end, 0);
  return g_string_free (g_steal_pointer (&result), FALSE);
}

static void
test_sse_every_split (void)
{
  parse_every_split (recorded_stream, recorded_events);
}

static void
test_sse_crlf (void)
{
  g_autofree char *crlf = replace_line_ends (recorded_stream, "\r\n");
  g_autofree char *cr = replace_line_ends (recorded_stream, "\r");

  /* Every split, so a CR and its LF also arrive in different pieces. */
  parse_every_split (crlf, recorded_events);
  parse_every_split (cr, recorded_events);
}

static void
test_sse_mixed_line_ends (void)
{
  static const char stream[] =
    "event: a\r\ndata: 1\r\n\r\n"
    "event: b\ndata: 2\n\n"
    "event: c\rdata: 3\r\r"
    "event: d\r\ndata: 4\n\r\n";
  static const char * const expected[] = { "a|1", "b|2", "c|3", "d|4", NULL };

  parse_every_split (stream, expected);
}

static void
test_sse_comments (void)
{
  static const char stream[] =
    ":\n"
    ": ping\n"
    ":event: not-an-event\n"
    "\n"
    "\n"
    "event: real\n"
    ": in the middle\n"
    "data: {}\n"
    "\n";
  static const char * const expected[] = { "real|{}", NULL };

  parse_every_split (stream, expected);
}

static void
test_sse_fields (void)
{
  static const char stream[] =
    /* No data: no event, and the type does not carry over. */
    "event: lonely\n"
    "\n"
    "data\n"
    "data\n"
    "\n"
    "data:\n"
    "\n"
    "id: 7\n"
    "retry: 1000\n"
    "unknown: field\n"
    "data: a: b\n"
    "event\n"
    "\n"
    "event: first\n"
    "event: second\n"
    "data: x\n"
    "\n";
  static const char * const expected[] = {
    "(none)|\n", "(none)|", "(none)|a: b", "second|x", NULL
  };

  parse_every_split (stream, expected);
}

static void
test_sse_partial_at_end (void)
{
  g_autoptr(WardenSseParser) parser = NULL;
  Collector collector;

  collector_init (&collector);
  parser = warden_sse_parser_new (collect_cb, &collector);

  g_assert_false (warden_sse_parser_has_partial (parser));

  g_assert_true (warden_sse_parser_feed (parser, "event: message_delta\ndata: {\"ty", 31));
  g_assert_cmpuint (collector.events->len, ==, 0);
  g_assert_true (warden_sse_parser_has_partial (parser));

  /* The line is complete, the event is not. */
  g_assert_true (warden_sse_parser_feed (parser, "pe\":1}\n", 7));
  g_assert_cmpuint (collector.events->len, ==, 0);
  g_assert_true (warden_sse_parser_has_partial (parser));

  g_assert_true (warden_sse_parser_feed (parser, "\n", 1));
  g_assert_cmpuint (collector.events->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (collector.events, 0), ==, "message_delta|{\"type\":1}");
  g_assert_false (warden_sse_parser_has_partial (parser));

  /* An event type alone is a partial event too. */
  g_assert_true (warden_sse_parser_feed (parser, "event: x\n", 9));
  g_assert_true (warden_sse_parser_has_partial (parser));

  g_assert_true (warden_sse_parser_feed (parser, "\n", 1));
  g_assert_false (warden_sse_parser_has_partial (parser));
  g_assert_cmpuint (collector.events->len, ==, 1);

  /* A comment cut short is a partial line. */
  g_assert_true (warden_sse_parser_feed (parser, ": kee", 5));
  g_assert_true (warden_sse_parser_has_partial (parser));

  collector_clear (&collector);
}

static void
test_sse_stop (void)
{
  g_autoptr(WardenSseParser) parser = NULL;
  Collector collector;

  collector_init (&collector);
  collector.stop_after = 2;
  parser = warden_sse_parser_new (collect_cb, &collector);

  g_assert_false (warden_sse_parser_feed (parser, recorded_stream, strlen (recorded_stream)));
  g_assert_cmpuint (collector.events->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (collector.events, 1), ==, recorded_events[1]);

  /* Stopped stays stopped. */
  g_assert_false (warden_sse_parser_feed (parser, "data: more\n\n", 12));
  g_assert_cmpuint (collector.events->len, ==, 2);

  collector_clear (&collector);
}

static void
test_sse_bom (void)
{
  static const char stream[] = "\xEF\xBB\xBF" "data: after the mark\n\n";
  static const char not_bom[] = "\xEF\xBB" "data: x\n\n" "data: y\n\n";
  static const char * const expected[] = { "(none)|after the mark", NULL };
  static const char * const expected_not_bom[] = { "(none)|y", NULL };

  parse_every_split (stream, expected);
  /* A broken mark is part of the first line, which is then no field. */
  parse_every_split (not_bom, expected_not_bom);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/llm/sse/every-split", test_sse_every_split);
  g_test_add_func ("/llm/sse/crlf", test_sse_crlf);
  g_test_add_func ("/llm/sse/mixed-line-ends", test_sse_mixed_line_ends);
  g_test_add_func ("/llm/sse/comments", test_sse_comments);
  g_test_add_func ("/llm/sse/fields", test_sse_fields);
  g_test_add_func ("/llm/sse/partial-at-end", test_sse_partial_at_end);
  g_test_add_func ("/llm/sse/stop", test_sse_stop);
  g_test_add_func ("/llm/sse/bom", test_sse_bom);

  return g_test_run ();
}
