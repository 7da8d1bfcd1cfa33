/* warden-sandbox-private.h: what the sandbox backends share
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "warden-sandbox.h"

G_BEGIN_DECLS

/* The environment every command starts from, whatever the host has. */
#define WARDEN_SANDBOX_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

WardenExecRequest *warden_exec_request_copy (const WardenExecRequest *request);
void               warden_exec_request_free (WardenExecRequest       *request);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenExecRequest, warden_exec_request_free)

void               warden_sandbox_emit_progress (WardenSandbox *self,
                                                 double         fraction,
                                                 const char    *message);

/* The environment of a command: the sandbox's own (PATH, HOME, LANG), the
 * configured variables, then the request's; BASH_ENV and ENV never. */
GStrv              warden_sandbox_build_env     (WardenSandbox           *self,
                                                 const char              *home,
                                                 const WardenExecRequest *request);

/* Runs @argv on this machine with pipes, streaming and collecting output
 * as @request asks, killing it at the timeout or on cancellation. With
 * @new_session the child gets its own process group, which is killed as a
 * whole; otherwise only the child is killed (bwrap takes its namespace down
 * with it). */
void               warden_local_exec_async      (const char * const       *argv,
                                                 const char * const       *envp,
                                                 const char               *cwd,
                                                 gboolean                  new_session,
                                                 const WardenExecRequest  *request,
                                                 GCancellable             *cancellable,
                                                 GAsyncReadyCallback       callback,
                                                 gpointer                  user_data);
WardenExecResult  *warden_local_exec_finish     (GAsyncResult             *result,
                                                 GError                  **error);
/* A GAsyncReadyCallback for warden_local_exec_async() that returns its
 * result through the GTask given as @user_data. */
void               warden_local_exec_forward_cb (GObject                  *object,
                                                 GAsyncResult             *result,
                                                 gpointer                  user_data);

G_END_DECLS

G_BEGIN_DECLS

/* Runs the configured setup command, if any, through exec: a non-zero exit
 * is SETUP_FAILED with the end of its output. */
void     warden_sandbox_run_setup_async  (WardenSandbox        *self,
                                          GCancellable         *cancellable,
                                          GAsyncReadyCallback   callback,
                                          gpointer              user_data);
gboolean warden_sandbox_run_setup_finish (WardenSandbox        *self,
                                          GAsyncResult         *result,
                                          GError              **error);
/* The last step of every backend's prepare: runs the setup command and
 * completes @task (a boolean task of @self's prepare) with its outcome. */
void     warden_sandbox_finish_prepare   (WardenSandbox        *self,
                                          GTask                *task);

G_END_DECLS
