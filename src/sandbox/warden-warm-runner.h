/* warden-warm-runner.h: commands started by a helper already inside the sandbox
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "warden-sandbox-private.h"

G_BEGIN_DECLS

typedef struct _WardenWarmRunner WardenWarmRunner;

/* The runner stopped answering: called once, before its commands fail
 * (WARDEN_SANDBOX_ERROR_FAILED); the runner is no longer ready. */
typedef void (*WardenWarmRunnerStoppedFunc) (gpointer user_data);

/* Listens on @path for the helper (warden-guard --serve --socket PATH,
 * started in the sandbox with the socket's folder mounted). */
WardenWarmRunner *warden_warm_runner_new          (const char                  *path,
                                                   WardenWarmRunnerStoppedFunc  stopped_func,
                                                   gpointer                     stopped_data,
                                                   GError                     **error);
/* The helper is connected and its connection holds. */
gboolean          warden_warm_runner_is_ready     (WardenWarmRunner         *self);
/* It was connected, and its connection ended. */
gboolean          warden_warm_runner_is_gone      (WardenWarmRunner         *self);
/* Closes the connection: the helper kills what it started; commands not
 * returned end with WARDEN_SANDBOX_ERROR_RESULT_UNKNOWN. */
void              warden_warm_runner_free         (WardenWarmRunner         *self);

/* Runs @request as /bin/sh -c in @cwd with exactly @env, as an exec of the
 * sandbox would; the exec guard checks what it starts when the request has
 * a guard_func. */
void              warden_warm_runner_exec_async   (WardenWarmRunner         *self,
                                                   const WardenExecRequest  *request,
                                                   const char               *cwd,
                                                   const char * const       *env,
                                                   GCancellable             *cancellable,
                                                   GAsyncReadyCallback       callback,
                                                   gpointer                  user_data);
WardenExecResult *warden_warm_runner_exec_finish  (GAsyncResult             *result,
                                                   GError                  **error);

G_END_DECLS
