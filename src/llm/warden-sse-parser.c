/* warden-sse-parser.c: server-sent events, fed as bytes arrive
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Follows the event stream interpretation of the HTML standard: lines end
 * with CRLF, LF or CR; ":" starts a comment; "field: value" loses one space
 * after the colon; a blank line dispatches the event when it has data.
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-llm"

#include "warden-sse-parser.h"

#include <string.h>

struct _WardenSseParser
{
  WardenSseEventFunc  func;
  gpointer            user_data;

  GString            *line;        /* the line being read, without its end */
  GString            *event;       /* the "event:" field of the pending event */
  GString            *data;        /* the "data:" lines so far, each with "\n" */
  gboolean            has_event;
  gboolean            after_cr;    /* a CR ended the last line: skip one LF */
  gboolean            started;     /* past a possible byte order mark */
  gboolean            stopped;     /* the callback asked to stop */
};

WardenSseParser *
warden_sse_parser_new (WardenSseEventFunc func,
                       gpointer           user_data)
{
  WardenSseParser *self;

  g_return_val_if_fail (func != NULL, NULL);

  self = g_new0 (WardenSseParser, 1);
  self->func = func;
  self->user_data = user_data;
  self->line = g_string_new (NULL);
  self->event = g_string_new (NULL);
  self->data = g_string_new (NULL);

  return self;
}

void
warden_sse_parser_free (WardenSseParser *self)
{
  if (self == NULL)
    return;

  g_string_free (self->line, TRUE);
  g_string_free (self->event, TRUE);
  g_string_free (self->data, TRUE);
  g_free (self);
}

static gboolean
dispatch (WardenSseParser *self)
{
  gboolean keep_going = TRUE;

  /* An event without data is no event, per the standard. */
  if (self->data->len > 0)
    {
      g_string_truncate (self->data, self->data->len - 1);
      keep_going = self->func (self->has_event && self->event->len > 0 ? self->event->str : NULL,
                               self->data->str, self->user_data);
    }

  g_string_truncate (self->event, 0);
  g_string_truncate (self->data, 0);
  self->has_event = FALSE;

  return keep_going;
}

static gboolean
process_line (WardenSseParser *self)
{
  const char *line = self->line->str;
  const char *colon;
  const char *value;
  gsize name_len;

  if (self->line->len == 0)
    return dispatch (self);

  if (line[0] == ':')
    return TRUE;

  colon = memchr (line, ':', self->line->len);
  if (colon != NULL)
    {
      name_len = colon - line;
      value = colon + 1;
      if (*value == ' ')
        value++;
    }
  else
    {
      name_len = self->line->len;
      value = "";
    }

  if (name_len == 5 && memcmp (line, "event", 5) == 0)
    {
      g_string_assign (self->event, value);
      self->has_event = TRUE;
    }
  else if (name_len == 4 && memcmp (line, "data", 4) == 0)
    {
      /* A value may hold NULs in theory; the models' JSON does not. */
      g_string_append (self->data, value);
      g_string_append_c (self->data, '\n');
    }
  /* "id" and "retry" are for browsers that reconnect; Warden retries whole
   * requests instead. Unknown fields are ignored, as the standard says. */

  return TRUE;
}

gboolean
warden_sse_parser_feed (WardenSseParser *self,
                        const char      *data,
                        gsize            length)
{
  const char *p = data;
  const char *end = data + length;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (data != NULL || length == 0, FALSE);

  if (self->stopped)
    return FALSE;

  while (p < end)
    {
      const char *eol;

      if (self->after_cr)
        {
          self->after_cr = FALSE;
          if (*p == '\n')
            {
              p++;
              continue;
            }
        }

      /* A UTF-8 byte order mark may start the stream, in pieces too. */
      if (!self->started)
        {
          static const char bom[] = "\xEF\xBB\xBF";
          gsize have = self->line->len;

          if (have < 3 && (guchar) *p == (guchar) bom[have])
            {
              g_string_append_c (self->line, *p++);
              if (self->line->len == 3)
                {
                  g_string_truncate (self->line, 0);
                  self->started = TRUE;
                }
              continue;
            }
          self->started = TRUE;
        }

      for (eol = p; eol < end && *eol != '\n' && *eol != '\r'; eol++)
        ;

      g_string_append_len (self->line, p, eol - p);
      if (eol == end)
        break;

      self->after_cr = (*eol == '\r');
      p = eol + 1;

      if (!process_line (self))
        {
          self->stopped = TRUE;
          g_string_truncate (self->line, 0);
          return FALSE;
        }
      g_string_truncate (self->line, 0);
    }

  return TRUE;
}

gboolean
warden_sse_parser_has_partial (WardenSseParser *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->line->len > 0 || self->data->len > 0 || self->has_event;
}
