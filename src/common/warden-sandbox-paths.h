/* warden-sandbox-paths.h: where things are inside a confined sandbox
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One place for the paths that the policy, the sandboxes, the agent and
 * the command line must agree on. The host backend has none of them: its
 * commands see the host's own paths.
 */

#pragma once

/* The project folder, as commands see it. */
#define WARDEN_SANDBOX_WORKSPACE     "/workspace"
/* The exec guard's helper, and the folder of its sockets (Docker). */
#define WARDEN_SANDBOX_GUARD         "/run/warden-guard"
#define WARDEN_SANDBOX_GUARD_DIR     "/run/warden-guard.d"
/* The network proxy's socket, for the relay that the guard's helper runs. */
#define WARDEN_SANDBOX_PROXY_SOCKET  "/run/warden-net.sock"
