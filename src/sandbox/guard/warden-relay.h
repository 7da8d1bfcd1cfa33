/* warden-relay.h: the sandbox's one way out, to Warden's network proxy
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

/* Listens on 127.0.0.1:@port, carries each connection to the unix socket
 * @path, runs @program (NULL-terminated) as its child and ends as it does. */
int warden_relay_main (int         port,
                       const char *path,
                       char      **program);
