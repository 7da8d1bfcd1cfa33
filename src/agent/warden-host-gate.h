/* warden-host-gate.h: the hosts a session's sandbox may reach, by profile
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "policy/warden-profile.h"
#include "sandbox/warden-sandbox.h"
#include "warden-command-run.h"
#include "warden-session-store.h"

G_BEGIN_DECLS

#define WARDEN_TYPE_HOST_GATE (warden_host_gate_get_type ())

G_DECLARE_FINAL_TYPE (WardenHostGate, warden_host_gate, WARDEN, HOST_GATE, GObject)

/* The network of the session @session_id, whose answers about hosts are in @store. */
WardenHostGate *warden_host_gate_new         (WardenSessionStore   *store,
                                              const char           *session_id);
/* The profile's network section: its mode and host patterns (again after
 * an edit, or an "Always allow"). */
void            warden_host_gate_set_profile (WardenHostGate       *self,
                                              WardenProfile        *profile);
/* Before the sandbox of @kind is made: the mode (@mode with @mode_override,
 * warden-cli --network, over the profile's; else the profile's, and @mode
 * for a profile that says nothing), into @config, and for an allowlist the
 * proxy, whose socket goes into @config too. */
gboolean        warden_host_gate_setup       (WardenHostGate       *self,
                                              WardenSandboxKind     kind,
                                              WardenNetworkMode     mode,
                                              gboolean              mode_override,
                                              WardenSandboxConfig  *config,
                                              GError              **error);
/* Said when the sandbox is ready: an allowlist this sandbox cannot carry
 * out (it has no network then), or NULL. */
char           *warden_host_gate_dup_notice  (WardenHostGate       *self,
                                              WardenSandbox        *sandbox);
/* The command whose connections are decided now (NULL: none runs, and a
 * connection is refused). */
void            warden_host_gate_set_command (WardenHostGate       *self,
                                              WardenCommandRun     *command);
/* "host:port" → 1 allowed, 2 refused: the user's answers in this session,
 * a resumed one too (see warden_session_store_load_host_answers()). */
GHashTable     *warden_host_gate_get_answers (WardenHostGate       *self);

G_END_DECLS
