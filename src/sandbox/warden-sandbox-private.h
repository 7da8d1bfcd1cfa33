/* warden-sandbox-private.h: what the sandbox backends share
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "warden-sandbox.h"
#include "warden-exec-guard-private.h"

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

/* The limits of @self's config, defaults filled in. */
guint64            warden_sandbox_get_memory_limit (WardenSandbox *self);
guint              warden_sandbox_get_pids_limit   (WardenSandbox *self);
guint64            warden_sandbox_get_tmp_size     (WardenSandbox *self);

/* Fails when the workspace lies inside a folder no sandbox may see (Warden's
 * own state, the user's keys): masking it would leave nothing. */
gboolean           warden_sandbox_check_workspace  (WardenSandbox  *self,
                                                    GError        **error);

typedef enum
{
  WARDEN_WORKSPACE_MOUNT_PIN,        /* bound onto itself: cannot be renamed or replaced */
  WARDEN_WORKSPACE_MOUNT_READ_ONLY,  /* bound read-only */
  WARDEN_WORKSPACE_MOUNT_HIDE,       /* covered by an empty read-only folder (or file) */
} WardenWorkspaceMountKind;

typedef struct
{
  WardenWorkspaceMountKind  kind;
  char                     *path;    /* relative to the workspace */
  gboolean                  is_dir;
} WardenWorkspaceMount;

/* What a confined backend mounts over its workspace, in this order, as the
 * workspace is now: .git pinned with its config, hooks and info read-only
 * (hooks and info are made when missing, as git init would), a .git file
 * read-only, the other protected paths that exist read-only (a nested
 * repository's .git as the workspace's; policy/warden-protected-path.h),
 * and the private folders (warden_workspace_check_dup_private_paths())
 * that lie inside the workspace hidden. Symbolic links are left alone: a
 * mount would land on their target. */
GPtrArray         *warden_sandbox_list_workspace_mounts (WardenSandbox *self);

/* The watch over one running command, the same for every backend: its
 * output (collected and handed to the request's output_func), its time
 * limit, its caller's cancellable, the grace period a killed command has to
 * let go of its output, and its end. It lives in the data of the backend's
 * exec task and does not hold that task itself; its timers do, until the
 * command returns. In warden-sandbox.c. */
typedef struct _WardenExecWatch WardenExecWatch;

typedef struct
{
  /* Ends the command's processes (time limit or cancellation); returns
   * TRUE when the grace period should start, FALSE when the backend ended
   * the command some other way. */
  gboolean (*kill)          (GTask *task);
  /* The grace period is over and the command's output has not ended:
   * the backend stops waiting and returns. */
  void     (*grace_expired) (GTask *task);
} WardenExecWatchFuncs;

/* @request and @funcs must outlive the watch; @cancellable's cancellation
 * kills the command and ends it with G_IO_ERROR_CANCELLED. */
WardenExecWatch   *warden_exec_watch_new          (GTask                      *task,
                                                   const WardenExecRequest    *request,
                                                   GCancellable               *cancellable,
                                                   const WardenExecWatchFuncs *funcs);
void               warden_exec_watch_free         (WardenExecWatch            *watch);
/* The command runs from now: its duration and its time limit start. */
void               warden_exec_watch_start_timer  (WardenExecWatch            *watch);
/* Kills the command once (through funcs->kill), then waits the grace period. */
void               warden_exec_watch_kill         (WardenExecWatch            *watch);
/* The command has exited but its output is still open (children that kept
 * it): waits the grace period for it. */
void               warden_exec_watch_linger       (WardenExecWatch            *watch);
void               warden_exec_watch_output       (WardenExecWatch            *watch,
                                                   WardenStream                stream,
                                                   const char                 *data,
                                                   gsize                       length);
/* The exec guard of the command (warden_exec_guard_new()), taken: the time
 * limit stops while one of its questions waits; it goes with the watch. */
void               warden_exec_watch_adopt_guard  (WardenExecWatch            *watch,
                                                   WardenExecGuard            *guard);
WardenExecGuard   *warden_exec_watch_peek_guard   (WardenExecWatch            *watch);
/* Cancelled when the command returns: the backend's reads use it. */
GCancellable      *warden_exec_watch_get_io_cancellable (WardenExecWatch      *watch);
gboolean           warden_exec_watch_get_timed_out (WardenExecWatch           *watch);
gboolean           warden_exec_watch_get_cancelled (WardenExecWatch           *watch);
gboolean           warden_exec_watch_get_returned  (WardenExecWatch           *watch);
/* Returns the task once: cancelled, else @error (taken) if set, else the
 * result with @exit_code (-1: unknown) and the output collected. */
void               warden_exec_watch_return       (WardenExecWatch            *watch,
                                                   int                         exit_code,
                                                   GError                     *error);

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
/* The two halves of warden_local_exec_async(), for a backend that spawns
 * with its own file descriptors: a launcher with the pipes the run expects,
 * and the run of a process spawned from it. */
GSubprocessLauncher *warden_local_exec_launcher_new (const char * const     *envp,
                                                     const char             *cwd,
                                                     gboolean                new_session);
/* @guard (taken, may be NULL): the exec guard the process was given. */
void               warden_local_exec_run_async  (GSubprocess              *process,
                                                 gboolean                  new_session,
                                                 WardenExecGuard          *guard,
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
