/* warden-bwrap-sandbox-private.h: the bwrap backend's command line, for its tests
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "warden-bwrap-sandbox.h"

G_BEGIN_DECLS

/* What prepare finds on this machine and the command line depends on. */
typedef struct
{
  const char *bwrap;
  const char *systemd_run;         /* NULL: the command is limited without a scope */
  gboolean    has_disable_userns;  /* bwrap 0.8's options */
  gboolean    has_size;
} WardenBwrapHost;

/* Sets what prepare would have found, and marks @self prepared. */
void  warden_bwrap_sandbox_set_host (WardenBwrapSandbox      *self,
                                     const WardenBwrapHost   *host);

/* The command line that runs @request: systemd-run (if used), bwrap and the
 * command, with @env as its whole environment; @guard and @relay the
 * helper's path on the host when the exec guard or the proxy relay runs,
 * else NULL. */
GStrv warden_bwrap_sandbox_dup_argv (WardenBwrapSandbox      *self,
                                     const WardenExecRequest *request,
                                     const char * const      *env,
                                     const char              *guard,
                                     const char              *relay);

G_END_DECLS
