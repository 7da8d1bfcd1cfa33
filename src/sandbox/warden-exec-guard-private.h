/* warden-exec-guard-private.h: for the sandbox backends
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "warden-exec-guard.h"

G_BEGIN_DECLS

typedef struct _WardenExecGuard WardenExecGuard;

/* @paused TRUE when the first question starts waiting, FALSE when none is
 * left: the command's time limit stops meanwhile. */
typedef void (*WardenGuardPauseFunc) (gboolean paused,
                                      gpointer user_data);

/* A socket to one helper: *@child_fd is its end, for the helper's --fd
 * (close it here once the helper has it). */
WardenExecGuard *warden_exec_guard_new       (WardenGuardFunc        func,
                                              gpointer               func_data,
                                              int                   *child_fd,
                                              GError               **error);
/* A unix socket listening at @path (close-on-exec, non-blocking), for a
 * helper to connect to; -1 and @error when it cannot be made. */
int              _warden_guard_listen         (const char            *path,
                                               GError               **error);
/* A socket at @path that one helper connects to (--socket, in a container
 * that mounts its folder); it is removed once the helper is in. */
WardenExecGuard *warden_exec_guard_new_listening (WardenGuardFunc    func,
                                                  gpointer           func_data,
                                                  const char        *path,
                                                  GError           **error);
/* The questions of one command of a warm runner, whose connection @fd
 * (not taken) carries those of every command: the runner passes each of
 * this command's lines on with warden_exec_guard_take_line(). */
WardenExecGuard *warden_exec_guard_new_shared (WardenGuardFunc   func,
                                               gpointer          func_data,
                                               int               fd);
void             warden_exec_guard_take_line  (WardenExecGuard  *guard,
                                               const char       *line);
/* Why the connection was given up (a line past WARDEN_GUARD_MAX_LINE: the
 * guard is broken or is not the guard; every question was denied and the
 * helper kills what waits), or NULL while it is sound. */
const char      *warden_exec_guard_get_broken (WardenExecGuard  *guard);

/* The longest line a question may be: the guard cuts argv at 256 KiB, the
 * environment at 32 KiB and the chain at 16 links of 4 KiB; escaping can
 * double that. Past it, the other end is not a working guard. */
#define WARDEN_GUARD_MAX_LINE (1024 * 1024)
void             warden_exec_guard_set_pause (WardenExecGuard       *guard,
                                              WardenGuardPauseFunc   pause,
                                              gpointer               pause_data);
/* Questions still open are denied (the helper kills what waits when its
 * socket closes). */
void             warden_exec_guard_free (WardenExecGuard      *guard);

G_END_DECLS
