/* warden-ssh-bridge.h: a container engine on another machine, through ssh
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define WARDEN_TYPE_SSH_BRIDGE (warden_ssh_bridge_get_type ())

G_DECLARE_FINAL_TYPE (WardenSshBridge, warden_ssh_bridge, WARDEN, SSH_BRIDGE, GObject)

/* Listens on a private socket (in a 0700 folder of $XDG_RUNTIME_DIR) and
 * carries each connection made to it to the engine @uri names,
 * "ssh://[USER@]HOST[:PORT][/SOCKET]", through the user's own ssh, its
 * configuration and agent. Without SOCKET, each connection is one
 * `ssh HOST docker system dial-stdio` (the docker CLI's way); with it, one
 * `ssh -N -L` forwards that socket for all connections (the channel
 * Podman's own client opens: nothing but sshd is needed there). The
 * dial-stdio ssh share one login (-M/-S) and two are kept ready. ssh runs
 * with BatchMode: it never asks, and ends with Warden. WARDEN_SSH_COMMAND, when set, is the ssh
 * command line to use instead of "ssh" ("ssh -F ~/.ssh/build_config");
 * CONTAINER_SSHKEY is passed as -i when @uri is CONTAINER_HOST, as Podman does.
 *
 * Errors: G_IO_ERROR_INVALID_ARGUMENT for an @uri that is not of that form;
 * others when the socket cannot be made. */
WardenSshBridge    *warden_ssh_bridge_new             (const char       *uri,
                                                       GError          **error);
/* @uri as it was given, without a trailing "/": for messages. */
const char         *warden_ssh_bridge_get_uri         (WardenSshBridge  *self);
/* The bridge's own socket, where a client connects. */
GSocketConnectable *warden_ssh_bridge_get_connectable (WardenSshBridge  *self);
/* Why the latest connection through ssh failed, in ssh's own words and with
 * what to do; NULL when the latest connection worked or none ended yet. */
char               *warden_ssh_bridge_dup_failure     (WardenSshBridge  *self);

G_END_DECLS
