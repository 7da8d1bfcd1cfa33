/* warden-test-proxy.h: a Docker engine that goes away when a test says so
 *
 * A proxy in front of the engine's socket that can be made to die, the way
 * an engine does when it is stopped in the middle of a command, to come
 * back, and to break one connection in the middle of what the engine says.
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct
{
  GSocketService *service;
  GPtrArray      *pairs;
  char           *dir;
  char           *path;
  char           *host;        /* unix://PATH, for a client or DOCKER_HOST */
  char           *upstream;    /* the engine's socket, as it was when the proxy was made */
  gboolean        cut_next;    /* the next answer stops halfway, its connection closed */
} WardenTestProxy;

/* Where the tests' engine listens (DOCKER_HOST, or the default socket). */
const char      *warden_test_engine_socket (void);
/* Listening at once, in a folder of its own. */
WardenTestProxy *warden_test_proxy_new     (void);
/* Nothing listens any more, and every connection breaks. */
void             warden_test_proxy_kill    (WardenTestProxy *proxy);
/* Listens at the same path again: the engine is back. */
void             warden_test_proxy_start   (WardenTestProxy *proxy);
void             warden_test_proxy_free    (WardenTestProxy *proxy);

G_END_DECLS
