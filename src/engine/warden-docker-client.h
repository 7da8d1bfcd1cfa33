/* warden-docker-client.h: the Docker Engine API over libsoup
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define WARDEN_DOCKER_ERROR (warden_docker_error_quark ())

typedef enum
{
  WARDEN_DOCKER_ERROR_NOT_RUNNING,   /* nothing answers at DOCKER_HOST / the socket */
  WARDEN_DOCKER_ERROR_PERMISSION,    /* the socket refuses us: not in the docker group */
  WARDEN_DOCKER_ERROR_NOT_FOUND,     /* 404: no such image, container or exec */
  WARDEN_DOCKER_ERROR_CONFLICT,      /* 409 */
  WARDEN_DOCKER_ERROR_PULL_FAILED,   /* the image could not be pulled */
  WARDEN_DOCKER_ERROR_API,           /* any other error answer; message from the engine */
  WARDEN_DOCKER_ERROR_PROTOCOL,      /* an answer we could not read */
  WARDEN_DOCKER_ERROR_CONFIG,        /* a bad DOCKER_HOST, missing TLS files */
} WardenDockerError;

/* The API version requested in every URL: Debian 12's engine speaks 1.41. */
#define WARDEN_DOCKER_API_VERSION "1.41"

/* Labels every container Warden creates, so cleanup finds those a crash left. */
#define WARDEN_DOCKER_LABEL "io.github.wardenapp.warden"

/* Which engine serves the API: both speak it, but differ in what they do
 * with users, image names and labels. */
typedef enum
{
  WARDEN_DOCKER_ENGINE_UNKNOWN,      /* not asked yet (warden_docker_client_query_engine_async()) */
  WARDEN_DOCKER_ENGINE_DOCKER,
  WARDEN_DOCKER_ENGINE_PODMAN,
} WardenDockerEngineKind;

typedef void (*WardenDockerProgressFunc) (double      fraction,  /* 0…1, or -1 if unknown */
                                          const char *message,
                                          gpointer    user_data);

/* Output of an exec, demultiplexed: @stream is 1 (stdout) or 2 (stderr). */
typedef void (*WardenDockerOutputFunc)   (int         stream,
                                          const char *data,
                                          gsize       length,
                                          gpointer    user_data);

#define WARDEN_TYPE_DOCKER_CLIENT (warden_docker_client_get_type ())

G_DECLARE_FINAL_TYPE (WardenDockerClient, warden_docker_client, WARDEN, DOCKER_CLIENT, GObject)

GQuark              warden_docker_error_quark             (void);

/* Where the engine is: DOCKER_HOST, else CONTAINER_HOST (Podman's), else
 * the first socket there is of the rootless Podman one
 * ($XDG_RUNTIME_DIR/podman/podman.sock), Docker's (/var/run/docker.sock) and
 * the rootful Podman one (/run/podman/podman.sock); else Docker's. */
char               *warden_docker_client_find_host        (void);
/* From warden_docker_client_find_host(), DOCKER_TLS_VERIFY and
 * DOCKER_CERT_PATH (ca.pem, cert.pem, key.pem). */
WardenDockerClient *warden_docker_client_new_from_env      (GError                  **error);
/* @host as in DOCKER_HOST; @cert_path NULL for no TLS. An ssh:// host is
 * reached through the user's ssh (see warden-ssh-bridge.h); when ssh
 * fails, NOT_RUNNING errors quote what it said. */
WardenDockerClient *warden_docker_client_new               (const char               *host,
                                                            const char               *cert_path,
                                                            GError                  **error);
/* "unix:///var/run/docker.sock", "tcp://host:2376" or "ssh://me@host": for messages. */
const char         *warden_docker_client_get_host          (WardenDockerClient       *self);

/* GET /_ping */
void                warden_docker_client_ping_async        (WardenDockerClient       *self,
                                                            GCancellable             *cancellable,
                                                            GAsyncReadyCallback       callback,
                                                            gpointer                  user_data);
gboolean            warden_docker_client_ping_finish       (WardenDockerClient       *self,
                                                            GAsyncResult             *result,
                                                            GError                  **error);

/* GET /version and /info, once: which engine answers, its version, whether
 * it runs rootless and with SELinux. Kept on the client; a second call
 * answers from there. */
void                warden_docker_client_query_engine_async  (WardenDockerClient     *self,
                                                              GCancellable           *cancellable,
                                                              GAsyncReadyCallback     callback,
                                                              gpointer                user_data);
gboolean            warden_docker_client_query_engine_finish (WardenDockerClient     *self,
                                                              GAsyncResult           *result,
                                                              GError                **error);
/* What the query found; UNKNOWN, NULL and FALSE before it completed. */
WardenDockerEngineKind warden_docker_client_get_engine_kind  (WardenDockerClient     *self);
const char         *warden_docker_client_get_engine_version  (WardenDockerClient     *self);
gboolean            warden_docker_client_get_rootless        (WardenDockerClient     *self);
gboolean            warden_docker_client_get_selinux         (WardenDockerClient     *self);
/* FALSE when the engine would make containers without their memory, CPU and
 * process limits: rootless on cgroup v1, where it cannot set them (Podman
 * drops them with a warning and still says MemoryLimit in /info). */
gboolean            warden_docker_client_get_can_limit       (WardenDockerClient     *self);
/* "Podman 4.3.1, rootless", "Docker 20.10.24": for the user; NULL before
 * the query completed. */
char               *warden_docker_client_dup_engine_description (WardenDockerClient  *self);
/* "podman" or "docker": the command line that goes with the engine, for
 * messages that tell the user what to run. */
const char         *warden_docker_client_get_engine_command  (WardenDockerClient     *self);

/* GET /images/{name}/json: the image's JSON, or NOT_FOUND. */
void                warden_docker_client_image_inspect_async  (WardenDockerClient    *self,
                                                               const char            *image,
                                                               GCancellable          *cancellable,
                                                               GAsyncReadyCallback    callback,
                                                               gpointer               user_data);
JsonNode           *warden_docker_client_image_inspect_finish (WardenDockerClient    *self,
                                                               GAsyncResult          *result,
                                                               GError               **error);

/* POST /images/create?fromImage=…: progress from the engine's JSON lines
 * (summed over layers where sizes are known), PULL_FAILED with the
 * engine's message when it fails (the error may come mid-stream). */
void                warden_docker_client_image_pull_async  (WardenDockerClient       *self,
                                                            const char               *image,
                                                            WardenDockerProgressFunc  progress,
                                                            gpointer                  progress_data,
                                                            GCancellable             *cancellable,
                                                            GAsyncReadyCallback       callback,
                                                            gpointer                  user_data);
gboolean            warden_docker_client_image_pull_finish (WardenDockerClient       *self,
                                                            GAsyncResult             *result,
                                                            GError                  **error);

/* POST /containers/create with @config as the body (the caller builds it);
 * returns the new container's id. Without HostConfig.Ulimits in @config,
 * nofile and nproc are set within this process's hard limits: an engine
 * that asks for more than those (Podman as root inside a container) fails
 * to start the container otherwise. A name in use is CONFLICT with either
 * engine (Podman answers 500). */
void                warden_docker_client_container_create_async  (WardenDockerClient *self,
                                                                  const char         *name,
                                                                  JsonNode           *config,
                                                                  GCancellable       *cancellable,
                                                                  GAsyncReadyCallback callback,
                                                                  gpointer            user_data);
char               *warden_docker_client_container_create_finish (WardenDockerClient *self,
                                                                  GAsyncResult       *result,
                                                                  GError            **error);
void                warden_docker_client_container_start_async   (WardenDockerClient *self,
                                                                  const char         *id,
                                                                  GCancellable       *cancellable,
                                                                  GAsyncReadyCallback callback,
                                                                  gpointer            user_data);
gboolean            warden_docker_client_container_start_finish  (WardenDockerClient *self,
                                                                  GAsyncResult       *result,
                                                                  GError            **error);
/* POST /containers/{id}/restart?t=0: kills every process in the container
 * and starts it again. */
void                warden_docker_client_container_restart_async  (WardenDockerClient *self,
                                                                   const char         *id,
                                                                   GCancellable       *cancellable,
                                                                   GAsyncReadyCallback callback,
                                                                   gpointer            user_data);
gboolean            warden_docker_client_container_restart_finish (WardenDockerClient *self,
                                                                   GAsyncResult       *result,
                                                                   GError            **error);
/* POST /containers/{id}/pause (@paused) or /unpause: freezes or thaws
 * every process of the container; CONFLICT when it is not running, or
 * already in that state. */
void                warden_docker_client_container_pause_async    (WardenDockerClient *self,
                                                                   const char         *id,
                                                                   gboolean            paused,
                                                                   GCancellable       *cancellable,
                                                                   GAsyncReadyCallback callback,
                                                                   gpointer            user_data);
gboolean            warden_docker_client_container_pause_finish   (WardenDockerClient *self,
                                                                   GAsyncResult       *result,
                                                                   GError            **error);
/* GET /containers/{id}/json: the container's JSON, or NOT_FOUND. */
void                warden_docker_client_container_inspect_async  (WardenDockerClient *self,
                                                                   const char         *id,
                                                                   GCancellable       *cancellable,
                                                                   GAsyncReadyCallback callback,
                                                                   gpointer            user_data);
JsonNode           *warden_docker_client_container_inspect_finish (WardenDockerClient *self,
                                                                   GAsyncResult       *result,
                                                                   GError            **error);
/* DELETE /containers/{id}?force=true&v=true: stops and removes. A container
 * that is gone already is not an error. */
void                warden_docker_client_container_remove_async  (WardenDockerClient *self,
                                                                  const char         *id,
                                                                  GCancellable       *cancellable,
                                                                  GAsyncReadyCallback callback,
                                                                  gpointer            user_data);
gboolean            warden_docker_client_container_remove_finish (WardenDockerClient *self,
                                                                  GAsyncResult       *result,
                                                                  GError            **error);
/* GET /containers/json?all=true&filters={"label":[@label]}: their ids. */
void                warden_docker_client_container_list_async    (WardenDockerClient *self,
                                                                  const char         *label,
                                                                  GCancellable       *cancellable,
                                                                  GAsyncReadyCallback callback,
                                                                  gpointer            user_data);
GStrv               warden_docker_client_container_list_finish   (WardenDockerClient *self,
                                                                  GAsyncResult       *result,
                                                                  GError            **error);

/* The containers with @label (NULL: all), as a table of id → the value of
 * their label @key ("" when they lack it). */
void                warden_docker_client_container_labels_async  (WardenDockerClient *self,
                                                                  const char         *label,
                                                                  const char         *key,
                                                                  GCancellable       *cancellable,
                                                                  GAsyncReadyCallback callback,
                                                                  gpointer            user_data);
GHashTable         *warden_docker_client_container_labels_finish (WardenDockerClient *self,
                                                                  GAsyncResult       *result,
                                                                  GError            **error);

/* POST /containers/{id}/exec: returns the exec id. @env and @user may be NULL;
 * AttachStdout and AttachStderr are always on, AttachStdin when @with_stdin. */
void                warden_docker_client_exec_create_async  (WardenDockerClient  *self,
                                                             const char          *container_id,
                                                             const char * const  *argv,
                                                             const char * const  *env,
                                                             const char          *workdir,
                                                             const char          *user,
                                                             gboolean             with_stdin,
                                                             GCancellable        *cancellable,
                                                             GAsyncReadyCallback  callback,
                                                             gpointer             user_data);
char               *warden_docker_client_exec_create_finish (WardenDockerClient  *self,
                                                             GAsyncResult        *result,
                                                             GError             **error);
/* POST /exec/{id}/start: calls @output for each frame as it arrives and
 * completes at the end of the stream. With @stdin_data (the exec must have
 * been created with_stdin), the connection is taken over ("hijacked") to
 * write it and then half-closed; not possible over TLS (error API). */
void                warden_docker_client_exec_start_async   (WardenDockerClient     *self,
                                                             const char             *exec_id,
                                                             GBytes                 *stdin_data,
                                                             WardenDockerOutputFunc  output,
                                                             gpointer                output_data,
                                                             GCancellable           *cancellable,
                                                             GAsyncReadyCallback     callback,
                                                             gpointer                user_data);
gboolean            warden_docker_client_exec_start_finish  (WardenDockerClient     *self,
                                                             GAsyncResult           *result,
                                                             GError                **error);
/* The same, with the exec's exit code as the end-of-stream check saw it
 * (-1 when it was not known yet: ask warden_docker_client_exec_inspect_async()). */
gboolean            warden_docker_client_exec_start_finish_with_status (WardenDockerClient *self,
                                                                        GAsyncResult       *result,
                                                                        int                *exit_code,
                                                                        GError            **error);
/* GET /exec/{id}/json: @exit_code (-1 while running) and @running. */
void                warden_docker_client_exec_inspect_async  (WardenDockerClient *self,
                                                              const char         *exec_id,
                                                              GCancellable       *cancellable,
                                                              GAsyncReadyCallback callback,
                                                              gpointer            user_data);
gboolean            warden_docker_client_exec_inspect_finish (WardenDockerClient *self,
                                                              GAsyncResult       *result,
                                                              int                *exit_code,
                                                              gboolean           *running,
                                                              GError            **error);
/* The same, with the PID of the exec's process on the engine's machine (in
 * the engine's PID namespace; 0 when the engine does not say). */
gboolean            warden_docker_client_exec_inspect_finish_with_pid (WardenDockerClient *self,
                                                                       GAsyncResult       *result,
                                                                       int                *exit_code,
                                                                       gboolean           *running,
                                                                       gint64             *pid,
                                                                       GError            **error);

G_END_DECLS
