/* warden-env-vars.h: the variables that load code into a program
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Whether the variable @name (or the NAME of a NAME=VALUE entry) makes a
 * program load code without starting another program: LD_PRELOAD,
 * BASH_ENV, NODE_OPTIONS, PYTHONPATH, … (the list and why is in
 * docs/policy.md). PATH, HOME, GIT_* and npm_config_* are not on it: what
 * they lead to is another program, which the exec guard checks in turn.
 * One list for the exec guard's questions about a started program's
 * environment and for the parser's env and sudo settings. */
gboolean        warden_policy_env_loads_code  (const char               *name);

G_END_DECLS
