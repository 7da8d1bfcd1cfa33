/* warden-restore-dialog.h: "Restore files to before this step", with a preview
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "warden-session.h"

G_BEGIN_DECLS

/* Shows what restoring @session's files to before @step changes (the files
 * and their diff), and restores them if the user says so; the chat then
 * says what was done. A session that runs gets a dialog saying why not. */
void warden_restore_dialog_present (GtkWindow     *parent,
                                    WardenSession *session,
                                    gint64         step);

G_END_DECLS
