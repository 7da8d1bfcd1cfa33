/* warden-sandbox-kind.h: which backend a sandbox is, and where it stands
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* The backend. Text ("docker", "bwrap", "host", "auto") only where it is
 * stored (settings, session rows) or typed (warden-cli --sandbox): read it
 * with warden_sandbox_kind_from_string() there, and nowhere else. */
typedef enum
{
  /* A choice, not a backend: Docker when an engine answers, else
   * bubblewrap. Resolved before a sandbox is made; where a kind is
   * optional (an override), "not given". */
  WARDEN_SANDBOX_KIND_AUTO,
  WARDEN_SANDBOX_KIND_DOCKER,   /* a container of a Docker or Podman engine */
  WARDEN_SANDBOX_KIND_BWRAP,    /* bubblewrap on this computer */
  WARDEN_SANDBOX_KIND_HOST,     /* no sandbox: commands run as the user */
} WardenSandboxKind;

/* Where a session's sandbox stands, as the agent reports it. */
typedef enum
{
  WARDEN_SANDBOX_STATE_NONE,       /* none made yet */
  WARDEN_SANDBOX_STATE_PREPARING,  /* being made: a fraction and a message say how far */
  WARDEN_SANDBOX_STATE_READY,      /* commands run; a message says what it cannot hold to */
  WARDEN_SANDBOX_STATE_STOPPED,    /* taken down (unused, closed, engine lost): made again
                                    * for the next command */
  WARDEN_SANDBOX_STATE_FAILED,     /* could not be made: the message says why */
} WardenSandboxState;

G_END_DECLS

#include "sandbox/warden-sandbox-enums.h"

G_BEGIN_DECLS

const char *warden_sandbox_kind_to_string   (WardenSandboxKind  kind);
/* FALSE for a name that is no kind (@kind is left alone). */
gboolean    warden_sandbox_kind_from_string (const char        *str,
                                             WardenSandboxKind *kind);

G_END_DECLS
