/* warden-cgroup.h: a control group per sandboxed command
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _WardenCgroup WardenCgroup;

/* Whether this process may make control groups with a process limit below
 * its own (as root, or where the group is delegated to the user): cgroup v1
 * with the pids controller, or v2 with pids enabled for its children. */
gboolean      warden_cgroup_supported   (void);

/* A new group below this process's own, with at most @pids_max processes
 * and @memory_max bytes of memory (and no swap beyond it; where the memory
 * controller is missing, only the process limit holds). Fails with
 * G_IO_ERROR_NOT_SUPPORTED when no group can be made here. Groups of a
 * Warden that died are removed on the way. */
WardenCgroup *warden_cgroup_new         (guint          pids_max,
                                         guint64        memory_max,
                                         GError       **error);
/* A GSpawnChildSetupFunc: moves the process being spawned into @cgroup, so
 * all it starts stays there. Only async-signal-safe calls. */
void          warden_cgroup_enter_child (gpointer       cgroup);
/* How many processes are in the group now. */
guint         warden_cgroup_count       (WardenCgroup  *self);
/* Kills every process in the group. */
void          warden_cgroup_kill        (WardenCgroup  *self);
/* Removes the group; FALSE (and nothing removed) while processes remain. */
gboolean      warden_cgroup_remove      (WardenCgroup  *self);
/* A process that outlives this one to kill what is left in the group and
 * remove it: it waits for the end of its standard input, which comes when
 * the caller closes the subprocess's stdin pipe, or when this process dies
 * (kill -9 included; bubblewrap's own --die-with-parent leaves a gap in
 * which the sandbox's first process survives it). In a session of its own:
 * a terminal's Ctrl+C does not stop it. NULL with @error when it cannot be
 * started. */
GSubprocess  *warden_cgroup_watch       (WardenCgroup  *self,
                                         GError       **error);
/* The group's directory (in the hierarchy with the pids controller). */
const char   *warden_cgroup_get_path    (WardenCgroup  *self);
/* Frees the handle; the group itself stays until removed. */
void          warden_cgroup_free        (WardenCgroup  *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenCgroup, warden_cgroup_free)

G_END_DECLS
