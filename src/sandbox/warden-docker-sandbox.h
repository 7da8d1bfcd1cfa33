/* warden-docker-sandbox.h: commands in a Docker container
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "engine/warden-docker-client.h"
#include "warden-sandbox.h"

G_BEGIN_DECLS

#define WARDEN_TYPE_DOCKER_SANDBOX (warden_docker_sandbox_get_type ())

G_DECLARE_FINAL_TYPE (WardenDockerSandbox, warden_docker_sandbox, WARDEN, DOCKER_SANDBOX, WardenSandbox)

/* Talks to the engine DOCKER_HOST names (see warden_docker_client_new_from_env()). */
WardenSandbox *warden_docker_sandbox_new            (const WardenSandboxConfig *config);
/* The same, with a client of the caller's. */
WardenSandbox *warden_docker_sandbox_new_for_client (const WardenSandboxConfig *config,
                                                     WardenDockerClient        *client);

/* The label that names a container's owner: a record of warden-owner.h
 * (host, pid, start time, boot, PID namespace). */
#define WARDEN_DOCKER_OWNER_LABEL WARDEN_DOCKER_LABEL ".owner-record"

/* Removes the containers Warden left behind (they carry WARDEN_DOCKER_LABEL),
 * for after a crash or a lost engine: only those whose owner is provably
 * dead (warden_owner_life()). Those of a live owner, and of one that cannot
 * be checked from here (another machine on the same engine, a Warden in
 * another PID namespace, an older Warden that did not record where it ran)
 * stay. Returns the ids removed. */
void           warden_docker_sandbox_cleanup_async  (WardenDockerClient        *client,
                                                     GCancellable              *cancellable,
                                                     GAsyncReadyCallback        callback,
                                                     gpointer                   user_data);
GStrv          warden_docker_sandbox_cleanup_finish (WardenDockerClient        *client,
                                                     GAsyncResult              *result,
                                                     GError                   **error);
/* The same; @kept (may be NULL) gets "ID: why it stays" for each left alone. */
GStrv          warden_docker_sandbox_cleanup_finish_full (WardenDockerClient   *client,
                                                          GAsyncResult         *result,
                                                          GStrv                *kept,
                                                          GError              **error);

G_END_DECLS
