/* warden-instructions.h: the project's own instructions (AGENTS.md)
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "workspace/warden-workspace.h"

G_BEGIN_DECLS

/* At most this much of the file is sent; the model is told the rest is cut. */
#define WARDEN_INSTRUCTIONS_MAX_BYTES (32 * 1024)

/* The instructions file as one turn read it. */
typedef struct
{
  char     *file;       /* "AGENTS.md" or "CLAUDE.md", in the workspace's root */
  char     *text;       /* what the model is given: at most WARDEN_INSTRUCTIONS_MAX_BYTES */
  gsize     size;       /* the whole file, in bytes */
  gboolean  truncated;  /* @text is only its start */
  char     *sha256;     /* of the whole file, hex */
} WardenInstructions;

#define WARDEN_TYPE_INSTRUCTIONS (warden_instructions_get_type ())

GType               warden_instructions_get_type (void) G_GNUC_CONST;
WardenInstructions *warden_instructions_copy     (const WardenInstructions *self);
void                warden_instructions_free     (WardenInstructions       *self);

/* AGENTS.md of the workspace's root, else CLAUDE.md, read through the
 * workspace's confined I/O: a link that leads out of the workspace is not
 * followed. NULL without an error when there is none; NULL with @error
 * when one is there but cannot be read (a link out, not text, too large),
 * saying which and why. */
WardenInstructions *warden_instructions_read     (WardenWorkspace          *workspace,
                                                  GError                  **error);

/* The block the system prompt carries: the text, delimited, said to be the
 * project's data that cannot change the user's rules. */
char               *warden_instructions_to_prompt (const WardenInstructions *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenInstructions, warden_instructions_free)

G_END_DECLS
