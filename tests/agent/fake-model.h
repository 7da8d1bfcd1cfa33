/* fake-model.h: a scripted Anthropic Messages API for the tests
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

G_BEGIN_DECLS

typedef struct
{
  SoupServer *server;
  GQueue      script;     /* of char *: whole SSE bodies, answered in order */
  GPtrArray  *requests;   /* of JsonNode: the bodies received */
  char       *url;        /* the base URL, as ANTHROPIC_BASE_URL takes it */
  guint       delay_ms;   /* each answer waits this long before its first byte… */
  gboolean    headers_first; /* …or before its first event, the headers sent at once */
  char       *api_key;    /* the x-api-key of the last request */
  /* A request without tools (a summary) gets this reply, and leaves the
   * script as it is; NULL: it takes the script's next answer too. */
  char       *no_tools_reply;
} FakeModel;

/* A script entry that is an HTTP error instead of events: "HTTP 400 " and
 * the JSON body. */
#define FAKE_HTTP_ERROR(status, body) ("HTTP " #status " " body)
/* The Anthropic API's answer to a conversation too long for the model. */
#define FAKE_PROMPT_TOO_LONG \
  FAKE_HTTP_ERROR (400, "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\"," \
                        "\"message\":\"prompt is too long: 210000 tokens > 200000 maximum\"}}")

FakeModel *fake_model_new          (void);
void       fake_model_free         (FakeModel  *fake);
/* A reply: optional text, then tool calls as NULL-terminated "name", "json" pairs. */
char      *fake_reply              (const char *text,
                                    ...) G_GNUC_NULL_TERMINATED;
/* The last message of request @i, as JSON text. */
char      *fake_model_last_message (FakeModel  *fake,
                                    guint       i);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FakeModel, fake_model_free)

G_END_DECLS
