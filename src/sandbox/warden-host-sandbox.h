/* warden-host-sandbox.h: the host sandbox backend
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "warden-sandbox.h"

G_BEGIN_DECLS

#define WARDEN_TYPE_HOST_SANDBOX (warden_host_sandbox_get_type ())

G_DECLARE_FINAL_TYPE (WardenHostSandbox, warden_host_sandbox, WARDEN, HOST_SANDBOX, WardenSandbox)

WardenSandbox *warden_host_sandbox_new (const WardenSandboxConfig *config);

G_END_DECLS
