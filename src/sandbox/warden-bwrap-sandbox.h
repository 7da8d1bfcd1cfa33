/* warden-bwrap-sandbox.h: the bwrap sandbox backend
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "warden-sandbox.h"

G_BEGIN_DECLS

#define WARDEN_TYPE_BWRAP_SANDBOX (warden_bwrap_sandbox_get_type ())

G_DECLARE_FINAL_TYPE (WardenBwrapSandbox, warden_bwrap_sandbox, WARDEN, BWRAP_SANDBOX, WardenSandbox)

WardenSandbox *warden_bwrap_sandbox_new (const WardenSandboxConfig *config);

G_END_DECLS
