/* warden-sandbox.h: where the agent's commands run
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "policy/warden-network.h"
#include "warden-exec-guard.h"
#include "warden-sandbox-kind.h"

G_BEGIN_DECLS

/* The image where nothing names one: neither the session, nor its profile. */
#define WARDEN_DEFAULT_IMAGE "debian:bookworm-slim"

#define WARDEN_SANDBOX_ERROR (warden_sandbox_error_quark ())

typedef enum
{
  WARDEN_SANDBOX_ERROR_FAILED,          /* anything else; the message says what */
  WARDEN_SANDBOX_ERROR_NOT_PREPARED,    /* exec before prepare, or after destroy */
  WARDEN_SANDBOX_ERROR_UNAVAILABLE,     /* the backend cannot run here (no bwrap, no engine) */
  WARDEN_SANDBOX_ERROR_SETUP_FAILED,    /* the configured setup command failed */
  /* exec (and prepare, for its setup command): the connection to the
   * container engine was lost while the command ran. It may have run in
   * part or to the end: check its effects before running it again. The
   * sandbox gave its container up (killed and removed now when the engine
   * answers, else at destroy or the next prepare): prepare the sandbox
   * again for the next command. */
  WARDEN_SANDBOX_ERROR_RESULT_UNKNOWN,
  /* exec: the sandbox's container was removed or stopped outside Warden
   * (docker rm -f, docker kill, a restart of the engine). GONE: before the
   * command started, so it did not run; LOST: while it ran, and it was
   * stopped with it. The sandbox gave the container up: prepare it again
   * for the next command (a new container: what was installed outside the
   * workspace is gone). */
  WARDEN_SANDBOX_ERROR_CONTAINER_GONE,
  WARDEN_SANDBOX_ERROR_CONTAINER_LOST,
} WardenSandboxError;

/* How a sandbox is made. Plain data: copy it, the sandbox keeps its own. */
typedef struct
{
  char     *workspace;          /* the project folder on the host (absolute) */
  char     *workspace_inside;   /* where commands see it; default WARDEN_SANDBOX_WORKSPACE */
  char     *image;              /* docker only */
  /* NONE: no network at all (the default); OPEN: every host; ALLOWLIST:
   * only through @proxy_socket (none without it). */
  WardenNetworkMode network;
  char    **env;                /* NAME=VALUE for every command, or NULL */
  char     *setup_command;      /* run once by prepare, e.g. "npm install", or NULL */
  guint64   memory_bytes;       /* docker and bwrap: 0 means 2 GiB */
  double    cpus;               /* docker: 0 means 2 */
  guint     pids_limit;         /* docker and bwrap: 0 means 512 */
  char    **cap_add;            /* docker: capabilities kept; all others dropped */
  guint64   tmp_bytes;          /* docker and bwrap: size of /tmp; 0 means 1 GiB */
  /* The unix socket of Warden's network proxy on this machine: with
   * @network not OPEN, the sandbox's only way out (bwrap and a local Docker
   * engine). Its programs reach it at 127.0.0.1:WARDEN_SANDBOX_PROXY_PORT,
   * through HTTP_PROXY, HTTPS_PROXY and ALL_PROXY. NULL: none. */
  char     *proxy_socket;
} WardenSandboxConfig;

#define WARDEN_SANDBOX_PROXY_PORT 3128

#define WARDEN_SANDBOX_DEFAULT_MEMORY (G_GUINT64_CONSTANT (2) << 30)
#define WARDEN_SANDBOX_DEFAULT_PIDS   512
#define WARDEN_SANDBOX_DEFAULT_TMP    (G_GUINT64_CONSTANT (1) << 30)

#define WARDEN_TYPE_SANDBOX_CONFIG (warden_sandbox_config_get_type ())
GType                warden_sandbox_config_get_type (void) G_GNUC_CONST;
WardenSandboxConfig *warden_sandbox_config_new      (const char                *workspace);
WardenSandboxConfig *warden_sandbox_config_copy     (const WardenSandboxConfig *config);
void                 warden_sandbox_config_free     (WardenSandboxConfig       *config);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenSandboxConfig, warden_sandbox_config_free)

typedef enum
{
  WARDEN_STREAM_STDOUT = 1,
  WARDEN_STREAM_STDERR = 2,
} WardenStream;

/* Called on the main context of the exec call as output arrives. */
typedef void (*WardenOutputFunc) (WardenStream  stream,
                                  const char   *data,
                                  gsize         length,
                                  gpointer      user_data);

/* While held, a running command's time limit stops: it waits for the user
 * (a host it wants to reach, say), and that time is not its own. */
typedef struct _WardenExecHold WardenExecHold;

WardenExecHold *warden_exec_hold_new   (void);
WardenExecHold *warden_exec_hold_ref   (WardenExecHold *hold);
void            warden_exec_hold_unref (WardenExecHold *hold);
/* Holds can nest: the limit runs again when every push was popped. */
void            warden_exec_hold_push  (WardenExecHold *hold);
void            warden_exec_hold_pop   (WardenExecHold *hold);
gboolean        warden_exec_hold_is_held (WardenExecHold *hold);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenExecHold, warden_exec_hold_unref)

#define WARDEN_EXEC_DEFAULT_TIMEOUT_MS (300 * 1000)
#define WARDEN_EXEC_DEFAULT_MAX_OUTPUT 100000

typedef struct
{
  const char         *command;      /* run as /bin/sh -c COMMAND, exactly */
  const char         *cwd;          /* inside the sandbox; NULL: the workspace */
  const char * const *env;          /* extra NAME=VALUE, or NULL */
  guint               timeout_ms;   /* 0: WARDEN_EXEC_DEFAULT_TIMEOUT_MS */
  GBytes             *stdin_data;   /* NULL: empty standard input */
  gsize               max_output;   /* characters kept per stream; 0: the default */
  WardenOutputFunc    output_func;  /* may be NULL */
  gpointer            output_data;
  /* Every program the command starts, at any depth, waits for this before
   * it runs (the exec guard; warden_sandbox_get_guard_status() says whether
   * the backend has it). NULL: they are not checked. */
  WardenGuardFunc     guard_func;
  gpointer            guard_data;
  /* NULL, or the caller's: the time limit stops while it is held. */
  WardenExecHold     *hold;
} WardenExecRequest;

typedef struct
{
  int       exit_code;       /* 128 + N when killed by signal N; -1 when unknown */
  char     *stdout_text;     /* valid UTF-8, capped as the request asked */
  char     *stderr_text;
  gint64    duration_us;
  gboolean  timed_out;
  gboolean  truncated;       /* some output was left out of the texts */
} WardenExecResult;

#define WARDEN_TYPE_EXEC_RESULT (warden_exec_result_get_type ())
GType             warden_exec_result_get_type (void) G_GNUC_CONST;
WardenExecResult *warden_exec_result_copy     (const WardenExecResult *result);
void              warden_exec_result_free     (WardenExecResult       *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenExecResult, warden_exec_result_free)

#define WARDEN_TYPE_SANDBOX (warden_sandbox_get_type ())

G_DECLARE_DERIVABLE_TYPE (WardenSandbox, warden_sandbox, WARDEN, SANDBOX, GObject)

/* The _finish hooks default to propagating a GTask's result: a backend
 * that completes a GTask of its own leaves them unset. */
struct _WardenSandboxClass
{
  GObjectClass parent_class;

  void              (*prepare_async)  (WardenSandbox            *self,
                                       GCancellable             *cancellable,
                                       GAsyncReadyCallback       callback,
                                       gpointer                  user_data);
  gboolean          (*prepare_finish) (WardenSandbox            *self,
                                       GAsyncResult             *result,
                                       GError                  **error);
  void              (*exec_async)     (WardenSandbox            *self,
                                       const WardenExecRequest  *request,
                                       GCancellable             *cancellable,
                                       GAsyncReadyCallback       callback,
                                       gpointer                  user_data);
  WardenExecResult *(*exec_finish)    (WardenSandbox            *self,
                                       GAsyncResult             *result,
                                       GError                  **error);
  void              (*destroy_async)  (WardenSandbox            *self,
                                       GCancellable             *cancellable,
                                       GAsyncReadyCallback       callback,
                                       gpointer                  user_data);
  gboolean          (*destroy_finish) (WardenSandbox            *self,
                                       GAsyncResult             *result,
                                       GError                  **error);
  /* Docker: the container id; others NULL. */
  const char       *(*get_container_id) (WardenSandbox          *self);
  /* NULL when exec takes a guard_func, else why not (unset: no guard). */
  const char       *(*get_guard_unavailable) (WardenSandbox     *self);
  /* Docker: the engine, once known; others NULL (unset). */
  char             *(*dup_engine_description) (WardenSandbox    *self);
};

GQuark                     warden_sandbox_error_quark        (void);

/* The backend of @kind (not WARDEN_SANDBOX_KIND_AUTO: resolve it first). */
WardenSandbox             *warden_sandbox_new_for_kind       (WardenSandboxKind          kind,
                                                              const WardenSandboxConfig *config);

const WardenSandboxConfig *warden_sandbox_get_config         (WardenSandbox            *self);
/* The backend's kind: never WARDEN_SANDBOX_KIND_AUTO. */
WardenSandboxKind          warden_sandbox_get_kind           (WardenSandbox            *self);
/* FALSE for the host backend: commands run with the user's full rights. */
gboolean                   warden_sandbox_get_confined       (WardenSandbox            *self);
const char                *warden_sandbox_get_workspace      (WardenSandbox            *self);
const char                *warden_sandbox_get_workspace_inside (WardenSandbox          *self);
const char                *warden_sandbox_get_container_id   (WardenSandbox            *self);
const char                *warden_sandbox_get_image          (WardenSandbox            *self);
/* NULL when this sandbox checks the programs a command starts (a request's
 * guard_func is called for each; after prepare for Docker), else a
 * sentence saying why it cannot. */
const char                *warden_sandbox_get_guard_unavailable (WardenSandbox          *self);
/* The container engine the sandbox runs in, for the user ("Podman 4.3.1,
 * rootless", "Docker 20.10.24"): once prepared, for Docker; else NULL. */
char                      *warden_sandbox_dup_engine_description (WardenSandbox        *self);

void                       warden_sandbox_prepare_async      (WardenSandbox            *self,
                                                              GCancellable             *cancellable,
                                                              GAsyncReadyCallback       callback,
                                                              gpointer                  user_data);
gboolean                   warden_sandbox_prepare_finish     (WardenSandbox            *self,
                                                              GAsyncResult             *result,
                                                              GError                  **error);
/* The request is copied; its output_func is called until the call completes.
 * A result says how the command ended (exit code, timed out). An error says
 * it was cancelled (G_IO_ERROR_CANCELLED), that how it ended is not known
 * (WARDEN_SANDBOX_ERROR_RESULT_UNKNOWN, see above), or else that it did not
 * run (NOT_PREPARED, or the backend's own error).
 * A confined sandbox closes git's doors after every command
 * (warden-git-doors.h): what it moved is said on standard error, through
 * output_func and at the end of the result's stderr_text. */
void                       warden_sandbox_exec_async         (WardenSandbox            *self,
                                                              const WardenExecRequest  *request,
                                                              GCancellable             *cancellable,
                                                              GAsyncReadyCallback       callback,
                                                              gpointer                  user_data);
WardenExecResult          *warden_sandbox_exec_finish        (WardenSandbox            *self,
                                                              GAsyncResult             *result,
                                                              GError                  **error);
/* Whether the exec of @result was handed to the backend to start: FALSE
 * when it was cancelled before (G_IO_ERROR_CANCELLED), nothing of it having
 * run. TRUE does not say it ran: a backend may still have been stopped
 * before the program started, which is then taken as started (never run
 * twice). */
gboolean                   warden_sandbox_exec_get_started   (WardenSandbox            *self,
                                                              GAsyncResult             *result);
void                       warden_sandbox_destroy_async      (WardenSandbox            *self,
                                                              GCancellable             *cancellable,
                                                              GAsyncReadyCallback       callback,
                                                              gpointer                  user_data);
gboolean                   warden_sandbox_destroy_finish     (WardenSandbox            *self,
                                                              GAsyncResult             *result,
                                                              GError                  **error);

/* Emitted during prepare: "pulling image", fraction in [0, 1] or -1 when unknown. */
/* signal "progress" (double fraction, const char *message) */

G_END_DECLS
