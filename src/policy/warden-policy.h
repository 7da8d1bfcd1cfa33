/* warden-policy.h: a profile compiled for fast decisions
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "warden-decision.h"
#include "warden-env-vars.h"
#include "warden-policy-types.h"
#include "warden-profile.h"

G_BEGIN_DECLS

typedef struct
{
  /* The workspace inside the sandbox; NULL means WARDEN_SANDBOX_WORKSPACE. */
  const char         *workspace;
  /* The exec call's working directory; NULL means the workspace. */
  const char         *cwd;
  /* The exec call's extra environment, NAME=VALUE strings, or NULL. */
  const char * const *env;
  /* Where @workspace is on this machine, when it is elsewhere (a sandbox
   * mounts it at /workspace): redirections are checked against the real
   * files there for symlinks that lead out. NULL means @workspace itself. */
  const char         *host_workspace;
} WardenCheckContext;

typedef struct _WardenPolicy WardenPolicy;

WardenPolicy   *warden_policy_new             (WardenMode                mode,
                                               const char * const       *allow,
                                               const char * const       *deny);
/* With the profile's ask rules: a command that matches one asks, whatever
 * allows it and in every mode; a deny pattern still beats it. */
WardenPolicy   *warden_policy_new_full        (WardenMode                mode,
                                               const char * const       *allow,
                                               const char * const       *ask,
                                               const char * const       *deny);
WardenPolicy   *warden_policy_new_for_profile (WardenProfile            *profile);
WardenPolicy   *warden_policy_ref             (WardenPolicy             *self);
void            warden_policy_unref           (WardenPolicy             *self);
WardenMode      warden_policy_get_mode        (WardenPolicy             *self);
/* Whether the exec guard checks every program a command starts (the
 * profile's "nested", on unless it says "off"; warden_policy_new () turns
 * it on). A script file run by an allowed shell ("sh build.sh" under
 * "sh *") runs only then: its commands are checked as they start. */
void            warden_policy_set_check_nested (WardenPolicy            *self,
                                                gboolean                 check_nested);
WardenDecision *warden_policy_check           (WardenPolicy             *self,
                                               const char               *command,
                                               gssize                    length,
                                               const WardenCheckContext *context);


/* Whether the program @name, run with no argument at all, starts nothing
 * and reads no script (echo, cat, ls, …: docs/policy.md has the list), so
 * that a pattern "NAME *" covers it bare. FALSE for a shell, an
 * interpreter, a wrapper, and any program the engine does not know. */
gboolean        warden_policy_program_runs_nothing (const char        *name);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenPolicy, warden_policy_unref)

G_END_DECLS
