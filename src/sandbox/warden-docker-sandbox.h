/* warden-docker-sandbox.h: commands in a Docker container
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "warden-docker-client.h"
#include "warden-sandbox.h"

G_BEGIN_DECLS

#define WARDEN_TYPE_DOCKER_SANDBOX (warden_docker_sandbox_get_type ())

G_DECLARE_FINAL_TYPE (WardenDockerSandbox, warden_docker_sandbox, WARDEN, DOCKER_SANDBOX, WardenSandbox)

/* Talks to the engine DOCKER_HOST names (see warden_docker_client_new_from_env()). */
WardenSandbox *warden_docker_sandbox_new            (const WardenSandboxConfig *config);
/* The same, with a client of the caller's. */
WardenSandbox *warden_docker_sandbox_new_for_client (const WardenSandboxConfig *config,
                                                     WardenDockerClient        *client);

/* Removes the containers Warden left behind (they carry WARDEN_DOCKER_LABEL),
 * for after a crash: all but those of another Warden process still running
 * on this machine. Returns the ids removed. */
void           warden_docker_sandbox_cleanup_async  (WardenDockerClient        *client,
                                                     GCancellable              *cancellable,
                                                     GAsyncReadyCallback        callback,
                                                     gpointer                   user_data);
GStrv          warden_docker_sandbox_cleanup_finish (WardenDockerClient        *client,
                                                     GAsyncResult              *result,
                                                     GError                   **error);

G_END_DECLS
