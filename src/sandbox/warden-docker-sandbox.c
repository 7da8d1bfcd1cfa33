/* warden-docker-sandbox.c: commands in a Docker container
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-sandbox"

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "warden-docker-sandbox.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "common/warden-json.h"
#include "common/warden-sandbox-paths.h"
#include "warden-owner.h"
#include "warden-sandbox-private.h"
#include "warden-flatpak.h"
#include "warden-warm-runner.h"

/* How long a command's return waits for the kill of its processes at most
 * (an engine that stopped answering). */
#define KILL_GIVE_UP_MS 10000

struct _WardenDockerSandbox
{
  WardenSandbox       parent_instance;
  WardenDockerClient *client;
  char               *container_id;
  char               *user;      /* "uid:gid" of the desktop user */
  GPtrArray          *running;   /* the DockerExec of each command not returned yet */
  gboolean            killing;   /* a kill runs in the container */
  gboolean            kill_again;
  guint               kills_started;
  guint               kills_done;
  char               *procs_path;   /* the container's cgroup.procs, when the engine runs here */
  gboolean            procs_looked;
  GPtrArray          *given_up;     /* ids of containers to remove when the engine answers */
  gboolean            removing;     /* a removal of those runs for commands that lost them */
  GSource            *removal_timer;
  GPtrArray          *lost_waiting; /* the tasks of those commands, returned once it is over */
  char               *guard_dir;    /* host folder of the exec guard's sockets, mounted inside */
  WardenWarmRunner   *runner;       /* starts commands inside the container, once connected */
  char               *runner_exec_id;
  /* The runner's exec (the relay, or the runner itself) and the runner, on
   * this machine and in the container's PID namespace; 0: not known. The
   * sweep after a command spares them, and nothing else but the keeper. */
  gint64              runner_host_pids[2];
  gint64              runner_ns_pids[2];
  guint               warm_running;  /* commands the runner started, not returned */
  GPtrArray          *warm_waiting;  /* WarmEnd: returns held for a sweep or a recovery */
  gboolean            recovering;    /* a runner that stopped answering is being replaced */
  gboolean            runner_wanted; /* prepare started one: one comes back if it goes */
  gint64              runner_retry;  /* when a runner that is gone may be started again */
  guint               recovery_kill;
  char               *guard_unavailable; /* or why the container has no guard */
  guint               guard_seq;
};

G_DEFINE_FINAL_TYPE (WardenDockerSandbox, warden_docker_sandbox, WARDEN_TYPE_SANDBOX)

/* ------------------------------------------------------------------------ */
/* Removing containers by id, with force (their processes are killed first):
 * the sandbox's own at destroy, those given up (the connection to the
 * engine was lost while commands ran in them, so what runs there is out of
 * sight: removed as soon as the engine answers, right away or at destroy or
 * the next prepare), and those a crash left (cleanup). Says what was
 * removed, and the first error of those that were not. */
typedef struct
{
  guint      pending;
  GPtrArray *removed;
  GError    *error;
} Removals;

typedef struct
{
  GTask *task;
  char  *id;
} Removal;

static void
removals_free (gpointer data)
{
  Removals *removals = data;

  g_ptr_array_unref (removals->removed);
  g_clear_error (&removals->error);
  g_free (removals);
}

static void
container_removed_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  Removal *removal = user_data;
  g_autoptr(GTask) task = removal->task;
  Removals *removals = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  if (warden_docker_client_container_remove_finish (WARDEN_DOCKER_CLIENT (object), result,
                                                    &error))
    g_ptr_array_add (removals->removed, g_steal_pointer (&removal->id));
  else if (removals->error == NULL)
    removals->error = g_steal_pointer (&error);
  g_free (removal->id);
  g_free (removal);

  if (--removals->pending == 0)
    g_task_return_boolean (task, TRUE);
}

static void
remove_containers_async (WardenDockerClient  *client,
                         const char * const  *ids,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (client, cancellable, callback, user_data);
  Removals *removals = g_new0 (Removals, 1);

  g_task_set_source_tag (task, remove_containers_async);
  /* Failures are told by the finish: the task itself always succeeds. */
  g_task_set_check_cancellable (task, FALSE);
  removals->removed = g_ptr_array_new_with_free_func (g_free);
  g_task_set_task_data (task, removals, removals_free);
  removals->pending = g_strv_length ((char **) ids);
  if (removals->pending == 0)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  for (guint i = 0; ids[i] != NULL; i++)
    {
      Removal *removal = g_new0 (Removal, 1);

      removal->task = g_object_ref (task);
      removal->id = g_strdup (ids[i]);
      warden_docker_client_container_remove_async (client, removal->id, cancellable,
                                                   container_removed_cb, removal);
    }
}

/* FALSE with the first error when any stays; @removed (may be NULL) gets
 * the ids removed either way. */
static gboolean
remove_containers_finish (GAsyncResult  *result,
                          GStrv         *removed,
                          GError       **error)
{
  Removals *removals = g_task_get_task_data (G_TASK (result));

  g_task_propagate_boolean (G_TASK (result), NULL);
  if (removed != NULL)
    {
      g_ptr_array_add (removals->removed, NULL);
      *removed = g_strdupv ((char **) removals->removed->pdata);
      g_ptr_array_remove_index (removals->removed, removals->removed->len - 1);
    }
  if (removals->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&removals->error));
      return FALSE;
    }
  return TRUE;
}

static void
given_up_removed_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WardenDockerSandbox *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) removed = NULL;

  remove_containers_finish (result, &removed, &error);
  for (guint i = 0; removed[i] != NULL; i++)
    {
      guint index;

      if (g_ptr_array_find_with_equal_func (self->given_up, removed[i], g_str_equal, &index))
        g_ptr_array_remove_index (self->given_up, index);
    }
  if (error != NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

/* Removes every container given up; fails when any stays. */
static void
remove_given_up_async (WardenDockerSandbox *self,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GPtrArray) ids = g_ptr_array_new ();

  g_task_set_source_tag (task, remove_given_up_async);
  if (self->client == NULL)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  for (guint i = 0; i < self->given_up->len; i++)
    g_ptr_array_add (ids, g_ptr_array_index (self->given_up, i));
  g_ptr_array_add (ids, NULL);
  remove_containers_async (self->client, (const char * const *) ids->pdata, cancellable,
                           given_up_removed_cb, g_steal_pointer (&task));
}

static gboolean
remove_given_up_finish (WardenDockerSandbox  *self,
                        GAsyncResult         *result,
                        GError              **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ------------------------------------------------------------------------ */
/* prepare: client, image, container, setup */

/* The workspace is bind-mounted by its path on this machine. An engine
 * reached through ssh is elsewhere: that path there is another folder, or
 * none, and the agent's file edits here would not be what its commands
 * see. Only the user knows whether the same folder is at the same path
 * there (a network share, a synced copy), so that takes their word. */
static gboolean
check_remote_workspace (WardenDockerSandbox  *self,
                        GError              **error)
{
  const WardenSandboxConfig *config = warden_sandbox_get_config (WARDEN_SANDBOX (self));
  const char *host = warden_docker_client_get_host (self->client);

  if (!g_str_has_prefix (host, "ssh://") ||
      g_strcmp0 (g_getenv ("WARDEN_REMOTE_WORKSPACE"), "same-path") == 0)
    return TRUE;

  g_set_error (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_FAILED,
               _("The container engine at %s runs on another machine, which cannot mount the "
                 "workspace %s from this one: run Warden on that machine; or have the same "
                 "folder at the same path there (a network share or a synced copy) and set "
                 "WARDEN_REMOTE_WORKSPACE=same-path; or unset DOCKER_HOST and CONTAINER_HOST "
                 "to use an engine on this machine"),
               host, config->workspace);
  return FALSE;
}

static void
add_bind_mount (JsonBuilder *b,
                const char  *source,
                const char  *target,
                gboolean     read_only)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "Type");
  json_builder_add_string_value (b, "bind");
  json_builder_set_member_name (b, "Source");
  json_builder_add_string_value (b, source);
  json_builder_set_member_name (b, "Target");
  json_builder_add_string_value (b, target);
  json_builder_set_member_name (b, "ReadOnly");
  json_builder_add_boolean_value (b, read_only);
  json_builder_end_object (b);
}

/* "SOURCE:TARGET:rw,z" (or ro): SELinux relabels SOURCE for containers. */
static void
add_relabelled_bind (JsonBuilder *b,
                     const char  *source,
                     const char  *target,
                     gboolean     read_only)
{
  g_autofree char *bind = g_strdup_printf ("%s:%s:%s,z", source, target,
                                           read_only ? "ro" : "rw");

  json_builder_add_string_value (b, bind);
}

/* An empty folder where Warden's state or the user's keys would be. */
static void
add_hiding_tmpfs (JsonBuilder *b,
                  const char  *target)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "Type");
  json_builder_add_string_value (b, "tmpfs");
  json_builder_set_member_name (b, "Target");
  json_builder_add_string_value (b, target);
  json_builder_set_member_name (b, "ReadOnly");
  json_builder_add_boolean_value (b, TRUE);
  json_builder_set_member_name (b, "TmpfsOptions");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "SizeBytes");
  json_builder_add_int_value (b, 4096);
  json_builder_end_object (b);
  json_builder_end_object (b);
}

/* Docker's and Podman's default read-only paths (oci/defaults.go), then
 * all of /proc. */
static const char * const readonly_paths[] = {
  "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger", "/proc",
};

static JsonNode *
container_config (WardenDockerSandbox *self)
{
  WardenSandbox *sandbox = WARDEN_SANDBOX (self);
  const WardenSandboxConfig *config = warden_sandbox_get_config (sandbox);
  const char *inside = warden_sandbox_get_workspace_inside (sandbox);
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_auto(GStrv) env = warden_sandbox_build_env (sandbox, "/tmp", NULL);
  g_autoptr(GPtrArray) mounts = warden_sandbox_list_workspace_mounts (sandbox);
  g_autofree char *tmp = g_strdup_printf ("rw,nosuid,nodev,mode=1777,size=%" G_GUINT64_FORMAT,
                                          warden_sandbox_get_tmp_size (sandbox));
  gint64 memory = (gint64) warden_sandbox_get_memory_limit (sandbox);
  g_autofree char *owner = g_strdup_printf ("%s:%d", g_get_host_name (), (int) getpid ());
  g_autofree char *record = warden_owner_record_self ();
  /* The engine says whether it runs with SELinux; WARDEN_DOCKER_RELABEL
   * asks for the relabel where it does not say so (and for the tests). */
  gboolean relabel = warden_docker_client_get_selinux (self->client) ||
                     g_getenv ("WARDEN_DOCKER_RELABEL") != NULL;
  gboolean podman = warden_docker_client_get_engine_kind (self->client) ==
                    WARDEN_DOCKER_ENGINE_PODMAN;
  gboolean keep_id = podman && warden_docker_client_get_rootless (self->client);
  g_autoptr(GPtrArray) hidden = g_ptr_array_new_with_free_func (g_free);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "Image");
  json_builder_add_string_value (b, config->image);
  /* Whatever the image's entrypoint, the container only waits for execs. */
  json_builder_set_member_name (b, "Entrypoint");
  json_builder_begin_array (b);
  json_builder_add_string_value (b, "/bin/sh");
  json_builder_add_string_value (b, "-c");
  json_builder_end_array (b);
  json_builder_set_member_name (b, "Cmd");
  json_builder_begin_array (b);
  json_builder_add_string_value (b, "trap 'exit 0' TERM; while :; do sleep 86400 & wait $!; done");
  json_builder_end_array (b);
  json_builder_set_member_name (b, "WorkingDir");
  json_builder_add_string_value (b, inside);
  json_builder_set_member_name (b, "User");
  json_builder_add_string_value (b, self->user);
  json_builder_set_member_name (b, "Env");
  json_builder_begin_array (b);
  for (guint i = 0; env[i]; i++)
    json_builder_add_string_value (b, env[i]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "Labels");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, WARDEN_DOCKER_LABEL);
  json_builder_add_string_value (b, "1");
  /* "host:pid", as older Wardens read it; the record says where. */
  json_builder_set_member_name (b, WARDEN_DOCKER_LABEL ".owner");
  json_builder_add_string_value (b, owner);
  json_builder_set_member_name (b, WARDEN_DOCKER_OWNER_LABEL);
  json_builder_add_string_value (b, record);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "HostConfig");
  json_builder_begin_object (b);
  /* With SELinux, what the container writes must carry the container's
   * label: only Binds can ask for that (":z", shared, so that the user's
   * other containers still reach the workspace). Mounts have no such option
   * in the API of either engine. Warden's own helper stays as installed:
   * relabelling a file of the system is not ours to do. */
  if (relabel)
    {
      json_builder_set_member_name (b, "Binds");
      json_builder_begin_array (b);
      add_relabelled_bind (b, config->workspace, inside, FALSE);
      if (self->guard_dir != NULL)
        add_relabelled_bind (b, self->guard_dir, WARDEN_SANDBOX_GUARD_DIR, TRUE);
      json_builder_end_array (b);
    }
  json_builder_set_member_name (b, "Mounts");
  json_builder_begin_array (b);
  if (!relabel)
    add_bind_mount (b, config->workspace, inside, FALSE);
  if (self->guard_dir != NULL)
    {
      add_bind_mount (b, warden_guard_get_helper_path (), WARDEN_SANDBOX_GUARD, TRUE);
      /* Read-only: connecting to a socket needs no write, and nothing in
       * the sandbox may put a socket of its own where Warden looks. */
      if (!relabel)
        add_bind_mount (b, self->guard_dir, WARDEN_SANDBOX_GUARD_DIR, TRUE);
      /* The way out through Warden's proxy; a connection to a socket in a
       * read-only mount is allowed. (Not relabelled on SELinux, as the
       * helper is not.) */
      if (config->proxy_socket != NULL && config->network != WARDEN_NETWORK_OPEN)
        add_bind_mount (b, config->proxy_socket, WARDEN_SANDBOX_PROXY_SOCKET, TRUE);
    }
  for (guint i = 0; i < mounts->len; i++)
    {
      const WardenWorkspaceMount *mount = g_ptr_array_index (mounts, i);
      g_autofree char *host = g_build_filename (config->workspace, mount->path, NULL);
      g_autofree char *dest = g_build_filename (inside, mount->path, NULL);

      switch (mount->kind)
        {
        case WARDEN_WORKSPACE_MOUNT_PIN:
          add_bind_mount (b, host, dest, FALSE);
          break;
        case WARDEN_WORKSPACE_MOUNT_READ_ONLY:
          add_bind_mount (b, host, dest, TRUE);
          break;
        case WARDEN_WORKSPACE_MOUNT_HIDE:
          if (mount->is_dir)
            {
              /* Podman fills a tmpfs mount with what was there before
               * (tmpcopyup): here the secrets it is meant to hide. Only its
               * Tmpfs strings can say notmpcopyup; Docker's mount would
               * refuse that option, and copies nothing. */
              if (podman)
                g_ptr_array_add (hidden, g_steal_pointer (&dest));
              else
                add_hiding_tmpfs (b, dest);
            }
          else
            add_bind_mount (b, "/dev/null", dest, TRUE);
          break;
        default:
          g_assert_not_reached ();
        }
    }
  json_builder_end_array (b);
  /* Nothing of the image can change: the command writes to the workspace,
   * and to /tmp, which is also its HOME. */
  json_builder_set_member_name (b, "ReadonlyRootfs");
  json_builder_add_boolean_value (b, TRUE);
  json_builder_set_member_name (b, "Tmpfs");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "/tmp");
  json_builder_add_string_value (b, tmp);
  for (guint i = 0; i < hidden->len; i++)
    {
      json_builder_set_member_name (b, g_ptr_array_index (hidden, i));
      json_builder_add_string_value (b, "ro,nosuid,nodev,noexec,size=4096,notmpcopyup");
    }
  json_builder_end_object (b);
  /* /proc read-only: while a program waits for the user, no other process
   * of the sandbox may rewrite it (or the runner) through /proc/PID/mem.
   * Sending the list replaces the engine's own: its defaults come first. */
  json_builder_set_member_name (b, "ReadonlyPaths");
  json_builder_begin_array (b);
  for (guint i = 0; i < G_N_ELEMENTS (readonly_paths); i++)
    json_builder_add_string_value (b, readonly_paths[i]);
  json_builder_end_array (b);
  /* docker-init as PID 1 reaps what the commands leave behind. */
  json_builder_set_member_name (b, "Init");
  json_builder_add_boolean_value (b, TRUE);
  json_builder_set_member_name (b, "CgroupnsMode");
  json_builder_add_string_value (b, "private");
  json_builder_set_member_name (b, "NetworkMode");
  json_builder_add_string_value (b, config->network == WARDEN_NETWORK_OPEN ? "bridge" : "none");
  json_builder_set_member_name (b, "Memory");
  json_builder_add_int_value (b, memory);
  /* Memory plus swap: the same figure allows no swap at all. */
  json_builder_set_member_name (b, "MemorySwap");
  json_builder_add_int_value (b, memory);
  json_builder_set_member_name (b, "NanoCpus");
  json_builder_add_int_value (b, (gint64) ((config->cpus > 0 ? config->cpus : 2.0) * 1e9));
  json_builder_set_member_name (b, "PidsLimit");
  json_builder_add_int_value (b, warden_sandbox_get_pids_limit (sandbox));
  json_builder_set_member_name (b, "SecurityOpt");
  json_builder_begin_array (b);
  json_builder_add_string_value (b, "no-new-privileges");
  json_builder_end_array (b);
  json_builder_set_member_name (b, "CapDrop");
  json_builder_begin_array (b);
  json_builder_add_string_value (b, "ALL");
  json_builder_end_array (b);
  /* Rootless Podman maps the user to root inside and the container's
   * users to subordinate ids: what a command writes in the workspace would
   * belong to one of those. keep-id maps the user to itself. */
  if (keep_id)
    {
      json_builder_set_member_name (b, "UsernsMode");
      json_builder_add_string_value (b, "keep-id");
    }
  json_builder_set_member_name (b, "CapAdd");
  json_builder_begin_array (b);
  for (guint i = 0; config->cap_add && config->cap_add[i]; i++)
    json_builder_add_string_value (b, config->cap_add[i]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

/* ------------------------------------------------------------------------ */
/* The warm runner: the exec guard's helper, started once in the container,
 * starts each command there (guard/warden-guard.c --serve). Until it is in,
 * or if it cannot start, commands go through a Docker exec each. */

#define RUNNER_WAIT_MS 5000
/* A runner that went is started again at most this often. */
#define RUNNER_RETRY_S 10
/* Inspects of the runner's exec, 100 ms apart, until the engine says its PID. */
#define RUNNER_PID_TRIES 50

static guint sandbox_kill (WardenDockerSandbox *self);
static void  runner_stopped_cb (gpointer user_data);

typedef struct
{
  WardenDockerSandbox *self;
  GTask               *task;     /* the prepare's, or NULL for a new runner */
  gint64               deadline;
  gboolean             relayed;
} RunnerWait;

/* Connected, and its processes known (the sweeps spare them). */
static gboolean
runner_usable (WardenDockerSandbox *self)
{
  return warden_warm_runner_is_ready (self->runner) && self->runner_ns_pids[0] > 0 &&
         self->runner_ns_pids[1] > 0;
}

static void
runner_output_cb (int         stream,
                  const char *data,
                  gsize       length,
                  gpointer    user_data)
{
  g_debug ("warm runner: %.*s", (int) length, data);
}

static void
runner_ended_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  /* Its commands learn it through their connection. */
  if (!warden_docker_client_exec_start_finish (WARDEN_DOCKER_CLIENT (object), result, &error))
    g_debug ("warm runner: %s", error->message);
  else
    g_debug ("the warm runner ended");
}

static void
runner_created_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(WardenDockerSandbox) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *exec_id = warden_docker_client_exec_create_finish (WARDEN_DOCKER_CLIENT (object),
                                                                    result, &error);

  if (exec_id == NULL)
    {
      g_debug ("no warm runner: %s", error->message);
      return;
    }
  g_free (self->runner_exec_id);
  self->runner_exec_id = g_strdup (exec_id);
  warden_docker_client_exec_start_async (WARDEN_DOCKER_CLIENT (object), exec_id, NULL,
                                         runner_output_cb, NULL, NULL, runner_ended_cb, NULL);
}

/* "NSpid:" of /proc/@pid/status: the PID in the innermost namespace. */
static gint64
inner_pid (gint64 pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%" G_GINT64_FORMAT "/status", pid);
  g_autofree char *status = NULL;
  const char *line;
  const char *last;

  if (!g_file_get_contents (path, &status, NULL, NULL) ||
      (line = strstr (status, "\nNSpid:")) == NULL)
    return 0;
  line += strlen ("\nNSpid:");
  last = line;
  for (const char *p = line; *p != '\0' && *p != '\n'; p++)
    if (*p == '\t' || *p == ' ')
      last = p + 1;
  return g_ascii_strtoll (last, NULL, 10);
}

/* The one child of @pid (the relay's: the runner), or 0. */
static gint64
only_child (gint64 pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%" G_GINT64_FORMAT "/task/%" G_GINT64_FORMAT
                                           "/children", pid, pid);
  g_autofree char *text = NULL;
  g_auto(GStrv) words = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return 0;
  words = g_strsplit (g_strstrip (text), " ", -1);
  return g_strv_length (words) == 1 ? g_ascii_strtoll (words[0], NULL, 10) : 0;
}

typedef struct
{
  gboolean relayed;
  guint    tries;
} RunnerPids;

static void runner_pids_cb (GObject      *object,
                            GAsyncResult *result,
                            gpointer      user_data);

static gboolean
runner_pids_again_cb (gpointer user_data)
{
  GTask *task = user_data;
  WardenDockerSandbox *self = g_task_get_source_object (task);

  if (self->runner_exec_id == NULL)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return G_SOURCE_REMOVE;
    }
  warden_docker_client_exec_inspect_async (self->client, self->runner_exec_id, NULL,
                                           runner_pids_cb, task);
  return G_SOURCE_REMOVE;
}

static void
runner_pids_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WardenDockerSandbox *self = g_task_get_source_object (task);
  RunnerPids *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  gint64 root = 0;

  memset (self->runner_host_pids, 0, sizeof self->runner_host_pids);
  memset (self->runner_ns_pids, 0, sizeof self->runner_ns_pids);
  if (!warden_docker_client_exec_inspect_finish_with_pid (self->client, result, NULL, NULL, &root,
                                                          &error))
    root = 0;
  /* The engine may learn the PID a moment after the runner connected. */
  if (error == NULL && root <= 0 && data->tries++ < RUNNER_PID_TRIES &&
      self->runner != NULL && self->runner_exec_id != NULL)
    {
      g_timeout_add (100, runner_pids_again_cb, g_steal_pointer (&task));
      return;
    }
  if (root > 0)
    {
      gboolean relayed = data->relayed;

      self->runner_host_pids[0] = root;
      self->runner_host_pids[1] = relayed ? only_child (root) : root;
      for (guint i = 0; i < 2; i++)
        self->runner_ns_pids[i] = self->runner_host_pids[i] > 0
                                  ? inner_pid (self->runner_host_pids[i]) : 0;
    }
  g_debug ("the warm runner: %" G_GINT64_FORMAT " (%" G_GINT64_FORMAT "), %" G_GINT64_FORMAT
           " (%" G_GINT64_FORMAT ")", self->runner_host_pids[0], self->runner_ns_pids[0],
           self->runner_host_pids[1], self->runner_ns_pids[1]);
  if (self->runner_ns_pids[0] <= 0 || self->runner_ns_pids[1] <= 0)
    {
      /* Without them, a sweep after each command could not spare it. */
      g_debug ("the warm runner's processes are out of sight (%s): commands go through "
               "Docker execs", error != NULL ? error->message : "no PID");
      g_clear_pointer (&self->runner, warden_warm_runner_free);
    }
  g_task_return_boolean (task, TRUE);
}

/* Learns the runner's PIDs once it is connected. */
static void
runner_find_pids_async (WardenDockerSandbox *self,
                        gboolean             relayed,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  GTask *task = g_task_new (self, NULL, callback, user_data);
  RunnerPids *data = g_new0 (RunnerPids, 1);

  data->relayed = relayed;
  g_task_set_task_data (task, data, g_free);
  if (self->runner_exec_id == NULL)
    {
      g_clear_pointer (&self->runner, warden_warm_runner_free);
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  warden_docker_client_exec_inspect_async (self->client, self->runner_exec_id, NULL,
                                           runner_pids_cb, task);
}

static void
runner_found_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;

  if (task != NULL && !g_task_return_error_if_cancelled (task))
    warden_sandbox_finish_prepare (WARDEN_SANDBOX (object), g_steal_pointer (&task));
}

static gboolean
runner_wait_cb (gpointer user_data)
{
  RunnerWait *wait = user_data;
  WardenDockerSandbox *self = wait->self;

  if (!warden_warm_runner_is_ready (self->runner) && g_get_monotonic_time () < wait->deadline &&
      (wait->task == NULL || !g_task_return_error_if_cancelled (wait->task)))
    return G_SOURCE_CONTINUE;
  if (wait->task != NULL && g_task_had_error (wait->task))
    g_clear_object (&wait->task);
  else if (!warden_warm_runner_is_ready (self->runner))
    {
      g_debug ("the warm runner did not connect: commands go through Docker execs");
      g_clear_pointer (&self->runner, warden_warm_runner_free);
      runner_found_cb (G_OBJECT (self), NULL, g_steal_pointer (&wait->task));
    }
  else
    runner_find_pids_async (self, wait->relayed, runner_found_cb, g_steal_pointer (&wait->task));
  g_object_unref (wait->self);
  g_free (wait);
  return G_SOURCE_REMOVE;
}

static void
start_runner (WardenDockerSandbox *self,
              GTask               *task)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (self->guard_dir, "runner.sock", NULL);
  g_auto(GStrv) env = warden_sandbox_build_env (WARDEN_SANDBOX (self), "/tmp", NULL);
  const WardenSandboxConfig *config = warden_sandbox_get_config (WARDEN_SANDBOX (self));
  g_autofree char *port = g_strdup_printf ("%d", WARDEN_SANDBOX_PROXY_PORT);
  /* With the profile's hosts, the runner is started by the relay to the
   * proxy: the container's one way out, for as long as the runner lives.
   * Commands started by a Docker exec (no runner) have none. */
  const char *relayed[] = { WARDEN_SANDBOX_GUARD, "--relay", port, WARDEN_SANDBOX_PROXY_SOCKET,
                            "--", WARDEN_SANDBOX_GUARD, "--serve", "--socket",
                            WARDEN_SANDBOX_GUARD_DIR "/runner.sock", NULL };
  const char * const *argv = relayed + 5;
  RunnerWait *wait;

  if (config->proxy_socket != NULL && config->network != WARDEN_NETWORK_OPEN)
    argv = relayed;

  g_clear_pointer (&self->runner, warden_warm_runner_free);
  g_clear_pointer (&self->runner_exec_id, g_free);
  memset (self->runner_host_pids, 0, sizeof self->runner_host_pids);
  memset (self->runner_ns_pids, 0, sizeof self->runner_ns_pids);
  self->runner = warden_warm_runner_new (path, runner_stopped_cb, self, &error);
  if (self->runner == NULL)
    {
      g_debug ("no warm runner: %s", error->message);
      if (task != NULL)
        warden_sandbox_finish_prepare (WARDEN_SANDBOX (self), task);
      return;
    }
  warden_docker_client_exec_create_async (self->client, self->container_id, argv,
                                          (const char * const *) env,
                                          warden_sandbox_get_workspace_inside (WARDEN_SANDBOX (self)),
                                          self->user, FALSE, NULL, runner_created_cb,
                                          g_object_ref (self));
  wait = g_new0 (RunnerWait, 1);
  wait->self = g_object_ref (self);
  wait->relayed = argv == relayed;
  wait->task = task;
  wait->deadline = g_get_monotonic_time () + RUNNER_WAIT_MS * 1000;
  g_timeout_add (10, runner_wait_cb, wait);
}

static void
start_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WardenDockerSandbox *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;

  if (!warden_docker_client_container_start_finish (self->client, result, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  self->runner_wanted = self->guard_dir != NULL && g_getenv ("WARDEN_NO_WARM_RUNNER") == NULL;
  if (self->runner_wanted)
    {
      start_runner (self, g_steal_pointer (&task));
      return;
    }
  warden_sandbox_finish_prepare (WARDEN_SANDBOX (self), task);
}

static void
create_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GCancellable *cancellable = g_task_get_cancellable (task);
  WardenDockerSandbox *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;

  self->container_id = warden_docker_client_container_create_finish (self->client, result, &error);
  if (self->container_id == NULL && error->domain == WARDEN_DOCKER_ERROR &&
      strstr (error->message, "catatonit") != NULL)
    {
      /* Podman's init for "Init": true is a package of its own. */
      g_task_return_new_error (task, WARDEN_DOCKER_ERROR, error->code,
                               _("Podman cannot start the container without its init "
                                 "process, catatonit: install it (sudo apt install catatonit, "
                                 "or sudo dnf install catatonit) (%s)"),
                               error->message);
      return;
    }
  if (self->container_id == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  warden_docker_client_container_start_async (self->client, self->container_id,
                                              cancellable, start_cb,
                                              g_steal_pointer (&task));
}

static void
create_container (GTask *task)
{
  WardenDockerSandbox *self = g_task_get_source_object (task);
  g_autoptr(JsonNode) config = container_config (self);
  g_autofree char *name = g_strdup_printf ("warden-%d-%08x", (int) getpid (), g_random_int ());

  warden_sandbox_emit_progress (WARDEN_SANDBOX (self), -1, _("Starting the container"));
  warden_docker_client_container_create_async (self->client, name, config,
                                               g_task_get_cancellable (task), create_cb,
                                               g_object_ref (task));
}

static void
pull_progress_cb (double      fraction,
                  const char *message,
                  gpointer    user_data)
{
  WardenSandbox *sandbox = user_data;
  g_autofree char *text = g_strdup_printf (_("Pulling %s: %s"),
                                           warden_sandbox_get_image (sandbox), message);

  warden_sandbox_emit_progress (sandbox, fraction, text);
}

static void
pull_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WardenDockerSandbox *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;

  if (!warden_docker_client_image_pull_finish (self->client, result, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  create_container (task);
}

static void
inspect_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GCancellable *cancellable = g_task_get_cancellable (task);
  WardenDockerSandbox *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) image = NULL;

  image = warden_docker_client_image_inspect_finish (self->client, result, &error);
  if (image != NULL)
    {
      create_container (task);
      return;
    }
  if (!g_error_matches (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_NOT_FOUND))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  warden_sandbox_emit_progress (WARDEN_SANDBOX (self), 0, _("Pulling the image"));
  warden_docker_client_image_pull_async (self->client, warden_sandbox_get_image (WARDEN_SANDBOX (self)),
                                         pull_progress_cb, self, cancellable,
                                         pull_cb, g_steal_pointer (&task));
}

static void
given_up_gone_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GCancellable *cancellable = g_task_get_cancellable (task);
  WardenDockerSandbox *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;

  if (!remove_given_up_finish (self, result, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  warden_docker_client_image_inspect_async (self->client,
                                            warden_sandbox_get_image (WARDEN_SANDBOX (self)),
                                            cancellable, inspect_cb, g_steal_pointer (&task));
}

/* What a Warden that died (kill -9, a crash, a lost engine) left on this
 * engine: removed at the first prepare of each process, before its own
 * container, when the owner is provably gone. Errors only cost the cleanup. */
static void
leftovers_removed_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GCancellable *cancellable = g_task_get_cancellable (task);
  WardenDockerSandbox *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) removed = NULL;

  removed = warden_docker_sandbox_cleanup_finish (WARDEN_DOCKER_CLIENT (object), result, &error);
  if (removed == NULL)
    g_debug ("Could not remove what earlier Wardens left: %s", error->message);
  for (guint i = 0; removed != NULL && removed[i] != NULL; i++)
    g_debug ("Removed %s, left by a Warden that is gone", removed[i]);
  /* Not a second container beside one that may still run a lost command. */
  remove_given_up_async (self, cancellable, given_up_gone_cb, g_steal_pointer (&task));
}

static void
engine_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  static gsize leftovers_removed;
  g_autoptr(GTask) task = user_data;
  GCancellable *cancellable = g_task_get_cancellable (task);
  WardenDockerSandbox *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;

  if (!warden_docker_client_query_engine_finish (self->client, result, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* The memory and process limits are part of the sandbox: without them a
   * command can take the machine down. Better no container than one
   * without them. */
  if (!warden_docker_client_get_can_limit (self->client))
    {
      g_autofree char *engine = warden_docker_client_dup_engine_description (self->client);

      g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_FAILED,
                               _("%s at %s cannot limit a container’s memory and processes "
                                 "on this machine (rootless on cgroup v1): start the system "
                                 "with cgroup v2 (systemd.unified_cgroup_hierarchy=1), use a "
                                 "rootful engine, or the bwrap backend"),
                               engine, warden_docker_client_get_host (self->client));
      return;
    }
  if (g_once_init_enter (&leftovers_removed))
    {
      g_once_init_leave (&leftovers_removed, 1);
      warden_docker_sandbox_cleanup_async (self->client, cancellable, leftovers_removed_cb,
                                           g_steal_pointer (&task));
      return;
    }
  /* Not a second container beside one that may still run a lost command. */
  remove_given_up_async (self, cancellable, given_up_gone_cb, g_steal_pointer (&task));
}

static void
ping_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GCancellable *cancellable = g_task_get_cancellable (task);
  WardenDockerSandbox *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;

  if (!warden_docker_client_ping_finish (self->client, result, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* Podman or Docker, rootless, SELinux: the container's config depends on it. */
  warden_docker_client_query_engine_async (self->client, cancellable, engine_cb,
                                           g_steal_pointer (&task));
}

static void
warden_docker_sandbox_prepare_async (WardenSandbox       *sandbox,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  WardenDockerSandbox *self = WARDEN_DOCKER_SANDBOX (sandbox);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  const WardenSandboxConfig *config = warden_sandbox_get_config (sandbox);
  g_autoptr(GError) error = NULL;

  g_task_set_source_tag (task, warden_docker_sandbox_prepare_async);

  if (config->image == NULL || *config->image == '\0')
    {
      g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_FAILED,
                               _("No Docker image is configured for the sandbox"));
      return;
    }
  if (config->workspace == NULL || !g_path_is_absolute (config->workspace))
    {
      g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_FAILED,
                               _("The workspace must be an absolute path"));
      return;
    }
  if (!warden_sandbox_check_workspace (sandbox, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (self->container_id != NULL)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  if (self->client == NULL)
    {
      self->client = warden_docker_client_new_from_env (&error);
      if (self->client == NULL)
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
    }
  if (!check_remote_workspace (self, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* The exec guard needs its helper and a folder of sockets mounted from
   * this machine: an engine elsewhere cannot mount them. */
  g_clear_pointer (&self->guard_unavailable, g_free);
  if (self->guard_dir == NULL)
    {
      const char *host = warden_docker_client_get_host (self->client);

      if (warden_flatpak_is_sandboxed ())
        /* The engine mounts paths of the host: Warden's own files and
         * runtime folder in its Flatpak are not there. */
        self->guard_unavailable = g_strdup (_("Warden runs as a Flatpak, and the Docker engine "
                                              "cannot mount the exec guard’s helper from it"));
      else if (warden_guard_get_helper_path () == NULL)
        self->guard_unavailable = g_strdup (_("the exec guard’s helper (warden-guard) is not "
                                              "installed"));
      else if (!g_str_has_prefix (host, "unix://"))
        self->guard_unavailable = g_strdup_printf (_("the Docker engine at %s is on another "
                                                     "machine, where the exec guard’s helper "
                                                     "cannot be mounted"), host);
      else
        {
          g_autofree char *base = g_build_filename (g_get_user_runtime_dir (),
                                                    "warden-guard-XXXXXX", NULL);

          self->guard_dir = g_mkdtemp_full (g_steal_pointer (&base), 0700);
          if (self->guard_dir == NULL)
            self->guard_unavailable = g_strdup_printf (_("no folder for its sockets: %s"),
                                                       g_strerror (errno));
        }
    }
  warden_docker_client_ping_async (self->client, cancellable, ping_cb, g_steal_pointer (&task));
}

/* ------------------------------------------------------------------------ */
/* exec */

/* Every command runs as `/bin/sh -c COMMAND`, from a shell that first says
 * its PID on stderr: a kill spares the other commands still running. */
static const char exec_wrapper[] = "echo \"$$\" >&2; exec /bin/sh -c \"$1\"";
/* The same through the exec guard, whose socket is "$2". */
static const char exec_guarded_wrapper[] =
  "echo \"$$\" >&2; exec " WARDEN_SANDBOX_GUARD " --socket \"$2\" -- /bin/sh -c \"$1\"";

/* Kills every process in the container except PID 1 (docker-init), its
 * oldest child (the container's own command, started before anything else),
 * this script, what descends from the PIDs given as arguments (the other
 * commands running), and the processes given as "=PID" (the warm runner and
 * its relay; not what descends from them). Whatever a command did to its
 * environment, session or parent, its processes are none of these, so they
 * die: children that outlived their parent belong to docker-init.
 *
 * Everything is stopped first (kill -STOP -1), so nothing forks while the
 * list is read, and continued after the kill. One cat reads every
 * /proc/PID/stat: the shell's read builtin takes a byte per system call, and
 * each makes the kernel write the whole line again. A process name may hold
 * a newline and ") ": only lines with all their fields count as a parent
 * link, and any line's PID may die. Prints "killed" once nothing else is
 * left; "blind" when it cannot start cat (the process limit is reached). */
static const char kill_script[] =
  "nl='\n"
  "'\n"
  "spare=\" $$ \"; only=\" \"\n"
  "for a; do case $a in =*) only=\"$only${a#=} \" ;; *) spare=\"$spare$a \" ;; esac; done\n"
  "set -f\n"
  "scan () {\n"
  "  stats=$(set +f; cat /proc/[0-9]*/stat 2>/dev/null)\n"
  "  [ -n \"$stats\" ] || { kill -CONT -1; echo blind; exit 0; }\n"
  "}\n"
  "kill -STOP -1 2>/dev/null\n"
  "scan\n"
  "IFS=$nl\n"
  "oldest=; keeper=\n"
  "for l in $stats; do\n"
  "  r=${l##*) }; [ ${#r} -ge 60 ] || continue\n"
  "  r=${r#* }; [ \"${r%% *}\" = 1 ] || continue\n"
  "  IFS=' '; set -- $r; IFS=$nl\n"
  "  if [ -z \"$oldest\" ] || [ \"${19}\" -lt \"$oldest\" ]; then oldest=${19}; keeper=${l%% *}; fi\n"
  "done\n"
  "spare=\"$spare$keeper \"\n"
  "round=0\n"
  "while [ \"$round\" -lt 40 ]; do\n"
  "  keep=$spare; grown=1\n"
  "  while [ -n \"$grown\" ]; do\n"
  "    grown=\n"
  "    for l in $stats; do\n"
  "      p=${l%% *}\n"
  "      case $keep in *\" $p \"*) continue ;; esac\n"
  "      r=${l##*) }; [ ${#r} -ge 60 ] || continue\n"
  "      r=${r#* }; r=${r%% *}\n"
  "      case $keep in *\" $r \"*) keep=\"$keep$p \"; grown=1 ;; esac\n"
  "    done\n"
  "  done\n"
  "  found=\n"
  "  for l in $stats; do\n"
  "    p=${l%% *}\n"
  "    case $p in ''|*[!0-9]*|1) continue ;; esac\n"
  "    case $keep$only in *\" $p \"*) continue ;; esac\n"
  "    r=${l##*) }; [ \"${r%% *}\" = Z ] && continue\n"
  "    found=1; kill -9 \"$p\" 2>/dev/null\n"
  "  done\n"
  "  [ \"$round\" = 0 ] && kill -CONT -1 2>/dev/null\n"
  "  [ -z \"$found\" ] && { echo killed; exit 0; }\n"
  "  round=$((round + 1)); sleep 0.05 2>/dev/null\n"
  "  scan\n"
  "done\n"
  "echo survivors\n";

typedef struct
{
  const WardenExecRequest *request;   /* kept alive by the caller's task */
  WardenExecWatch         *watch;
  char                    *exec_id;
  GString                 *pid_line;  /* the wrapper's first line, until complete */
  int                      root_pid;  /* in the container; 0 until known */
  gboolean                 killing;
  guint                    kill_generation;  /* the kill that ends it; 0: none */
  gboolean                 gave_up;          /* on that kill */
  GSource                 *give_up_source;
  GTask                   *deferred;         /* its end, held until that kill is done */
  int                      deferred_code;
  GError                  *deferred_error;
  GError                  *lost;             /* RESULT_UNKNOWN once its container is given up */
} DockerExec;

static void
docker_exec_release (DockerExec *de)
{
  if (de->give_up_source)
    {
      g_source_destroy (de->give_up_source);
      g_clear_pointer (&de->give_up_source, g_source_unref);
    }
}

static void
docker_exec_free (gpointer data)
{
  DockerExec *de = data;

  docker_exec_release (de);
  warden_exec_watch_free (de->watch);
  g_free (de->exec_id);
  if (de->pid_line != NULL)
    g_string_free (de->pid_line, TRUE);
  g_clear_error (&de->deferred_error);
  g_clear_error (&de->lost);
  g_free (de);
}

static gboolean give_up_cb (gpointer user_data);
static guint    sandbox_kill (WardenDockerSandbox *self);
static void     docker_exec_return (GTask  *task,
                                    int     exit_code,
                                    GError *error);

/* The container is no longer the sandbox's: it goes with the next removal. */
static void
drop_container (WardenDockerSandbox *self)
{
  if (self->container_id == NULL)
    return;
  g_clear_pointer (&self->runner, warden_warm_runner_free);
  g_ptr_array_add (self->given_up, g_steal_pointer (&self->container_id));
  g_clear_pointer (&self->procs_path, g_free);
  self->procs_looked = FALSE;
}

static void
lost_removed_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(WardenDockerSandbox) self = user_data;
  g_autoptr(GPtrArray) waiting = g_steal_pointer (&self->lost_waiting);
  g_autoptr(GError) error = NULL;

  if (!remove_given_up_finish (self, result, &error))
    g_debug ("A container given up stays until the engine answers again: %s", error->message);
  g_source_destroy (self->removal_timer);
  g_clear_pointer (&self->removal_timer, g_source_unref);
  self->removing = FALSE;
  self->lost_waiting = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < waiting->len; i++)
    docker_exec_return (g_ptr_array_index (waiting, i), -1, NULL);
}

static gboolean
lost_give_up_cb (gpointer user_data)
{
  /* An engine that accepts but does not answer: stop waiting for it. */
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

/* The connection to the engine broke while commands ran (@cause): what
 * they did is unknown and what runs in the container is out of sight. Every
 * command started there ends with RESULT_UNKNOWN once the container is
 * removed, or could not be (the engine is gone): then it goes at destroy or
 * the next prepare. The next command needs a prepare. */
static void
sandbox_give_up_container (WardenDockerSandbox *self,
                           const GError        *cause)
{
  g_autoptr(GCancellable) cancellable = NULL;

  drop_container (self);
  for (guint i = 0; i < self->running->len; i++)
    {
      DockerExec *de = g_ptr_array_index (self->running, i);

      /* Those not started yet fail on their own; those that ended wait
       * only for a kill. */
      if (de->lost != NULL || de->exec_id == NULL || de->deferred != NULL)
        continue;
      de->lost = g_error_new (WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_RESULT_UNKNOWN,
                              _("Result unknown: the connection to the container engine was "
                                "lost while the command ran (%s). It may have run in part or "
                                "to the end: check its effects before running it again"),
                              cause->message);
    }
  if (self->removing)
    return;
  self->removing = TRUE;
  cancellable = g_cancellable_new ();
  self->removal_timer = g_timeout_source_new (KILL_GIVE_UP_MS);
  g_source_set_callback (self->removal_timer, lost_give_up_cb, g_object_ref (cancellable),
                         g_object_unref);
  g_source_attach (self->removal_timer, g_main_context_get_thread_default ());
  remove_given_up_async (self, cancellable, lost_removed_cb, g_object_ref (self));
}

/* An error that the command may have run, in part or whole: anything but
 * the engine's answer to the start, and our own stop. */
static gboolean
connection_lost (const GError *error)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return FALSE;
  return !(error->domain == WARDEN_DOCKER_ERROR &&
           (error->code == WARDEN_DOCKER_ERROR_NOT_FOUND ||
            error->code == WARDEN_DOCKER_ERROR_CONFLICT ||
            error->code == WARDEN_DOCKER_ERROR_API));
}

static void
docker_exec_lose (GTask        *task,
                  const GError *cause)
{
  sandbox_give_up_container (g_task_get_source_object (task), cause);
  docker_exec_return (task, -1, NULL);
}

/* Where this machine lists the container's processes, when the engine runs
 * here: its cgroup, as Docker's two cgroup drivers (and rootful Podman's)
 * name it on cgroup v1 and v2. NULL elsewhere (a remote engine, a Flatpak,
 * rootless Podman): there every check says "not only the keeper". */
static const char *
container_procs_path (WardenDockerSandbox *self)
{
  if (!self->procs_looked && self->container_id != NULL)
    {
      g_autofree char *scope = g_strdup_printf ("docker-%s.scope", self->container_id);
      g_autofree char *libpod = g_strdup_printf ("libpod-%s", self->container_id);
      g_autofree char *libpod_scope = g_strdup_printf ("libpod-%s.scope", self->container_id);
      char *candidates[] = {
        g_build_filename ("/sys/fs/cgroup/pids/docker", self->container_id, "cgroup.procs", NULL),
        g_build_filename ("/sys/fs/cgroup/pids/system.slice", scope, "cgroup.procs", NULL),
        g_build_filename ("/sys/fs/cgroup/system.slice", scope, "cgroup.procs", NULL),
        g_build_filename ("/sys/fs/cgroup/docker", self->container_id, "cgroup.procs", NULL),
        /* Rootful Podman, with its cgroupfs and its systemd managers. */
        g_build_filename ("/sys/fs/cgroup/pids/libpod_parent", libpod, "cgroup.procs", NULL),
        g_build_filename ("/sys/fs/cgroup/libpod_parent", libpod, "cgroup.procs", NULL),
        g_build_filename ("/sys/fs/cgroup/pids/machine.slice", libpod_scope, "cgroup.procs", NULL),
        g_build_filename ("/sys/fs/cgroup/machine.slice", libpod_scope, "cgroup.procs", NULL),
      };

      self->procs_looked = TRUE;
      for (guint i = 0; i < G_N_ELEMENTS (candidates) && self->procs_path == NULL; i++)
        if (g_file_test (candidates[i], G_FILE_TEST_EXISTS))
          self->procs_path = g_strdup (candidates[i]);
      for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
        g_free (candidates[i]);
    }
  return self->procs_path;
}

static gint64
parent_pid (gint64 pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%" G_GINT64_FORMAT "/stat", pid);
  g_autofree char *stat = NULL;
  const char *p;

  if (!g_file_get_contents (path, &stat, NULL, NULL) || (p = strrchr (stat, ')')) == NULL)
    return -1;
  /* ") STATE PPID …" */
  if (p[1] != ' ' || p[2] == '\0' || p[3] != ' ')
    return -1;
  return g_ascii_strtoll (p + 4, NULL, 10);
}

/* TRUE when all the container runs is docker-init, the container's own
 * command and that one's children (its sleep), and the warm runner and its
 * relay themselves: nothing any command left.
 * A process a command left is docker-init's child too, and no process can
 * make itself the child of another, so it cannot pass for the sleep. Reads
 * a few files of this machine's /proc; FALSE whenever it cannot tell. */
static gboolean
container_holds_only_keeper (WardenDockerSandbox *self)
{
  const char *path = container_procs_path (self);
  g_autofree char *text = NULL;
  g_autofree char *folder = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GHashTable) parents = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr(GArray) pids = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) ppids = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 init = 0, keeper = 0;
  GStatBuf st;

  if (path == NULL || !g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  /* A cgroup below it would hold processes this does not list: a cgroup
   * folder's link count is 2 plus its subfolders. (One stat, as this runs
   * after every command.) */
  folder = g_path_get_dirname (path);
  if (g_stat (folder, &st) != 0 || st.st_nlink != 2)
    return FALSE;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      gint64 pid = g_ascii_strtoll (lines[i], NULL, 10);

      if (*lines[i] == '\0')
        continue;
      if (pid <= 0)
        return FALSE;  /* in a PID namespace that does not see them */
      /* The warm runner and its relay: what they started is not. */
      if (runner_usable (self) &&
          (pid == self->runner_host_pids[0] || pid == self->runner_host_pids[1]))
        continue;
      g_array_append_val (pids, pid);
    }
  if (pids->len == 0 || pids->len > 16)
    return FALSE;
  for (guint i = 0; i < pids->len; i++)
    {
      gint64 ppid = parent_pid (g_array_index (pids, gint64, i));

      if (ppid < 0)
        return FALSE;
      g_array_append_val (ppids, ppid);
      g_hash_table_add (parents, &g_array_index (pids, gint64, i));
    }

  for (guint i = 0; i < pids->len; i++)
    {
      gint64 pid = g_array_index (pids, gint64, i);
      gint64 ppid = g_array_index (ppids, gint64, i);

      if (!g_hash_table_contains (parents, &ppid))
        {
          /* Started from outside: docker-init, or a command's exec. */
          if (init != 0 && init != pid)
            return FALSE;
          init = pid;
        }
    }
  for (guint i = 0; i < pids->len; i++)
    {
      gint64 pid = g_array_index (pids, gint64, i);

      if (pid != init && g_array_index (ppids, gint64, i) == init)
        {
          if (keeper != 0 && keeper != pid)
            return FALSE;
          keeper = pid;
        }
    }
  for (guint i = 0; i < pids->len; i++)
    {
      gint64 pid = g_array_index (pids, gint64, i);

      if (pid != init && pid != keeper && g_array_index (ppids, gint64, i) != keeper)
        return FALSE;
    }
  return init != 0 && keeper != 0;
}

static void
docker_exec_return (GTask  *task,
                    int     exit_code,
                    GError *error)
{
  WardenDockerSandbox *self = g_task_get_source_object (task);
  DockerExec *de = g_task_get_task_data (task);

  if (warden_exec_watch_get_returned (de->watch))
    {
      g_clear_error (&error);
      return;
    }
  /* Its container was given up: it ends when the removal is over. */
  if (de->lost != NULL)
    {
      g_clear_error (&error);
      if (self->removing)
        {
          if (!g_ptr_array_find (self->lost_waiting, task, NULL))
            g_ptr_array_add (self->lost_waiting, g_object_ref (task));
          return;
        }
      error = g_error_copy (de->lost);
    }
  /* What the command left running ends with it, as in bwrap: once it
   * returns, Warden looks at what it changed in .git (warden-git-doors.h),
   * and nothing of it may write there later. */
  if (!de->killing && error == NULL && self->container_id != NULL &&
      !container_holds_only_keeper (self))
    {
      de->killing = TRUE;
      de->kill_generation = sandbox_kill (self);
    }
  /* The caller may run the next command as soon as this one returns: not
   * while processes of this one may still run. */
  if (de->kill_generation > self->kills_done && !de->gave_up)
    {
      if (de->deferred != NULL)
        {
          g_clear_error (&error);
          return;
        }
      de->deferred = g_object_ref (task);
      de->deferred_code = exit_code;
      de->deferred_error = error;
      de->give_up_source = g_timeout_source_new (KILL_GIVE_UP_MS);
      g_source_set_callback (de->give_up_source, give_up_cb, de, NULL);
      g_source_attach (de->give_up_source, g_task_get_context (task));
      return;
    }
  g_ptr_array_remove_fast (self->running, de);
  docker_exec_release (de);
  /* A stream that broke because the command was killed at its time limit. */
  if (warden_exec_watch_get_timed_out (de->watch) && de->lost == NULL)
    g_clear_error (&error);
  warden_exec_watch_return (de->watch, exit_code, error);
}

/* Returns the commands whose end waited for a kill that is over now. */
static void
release_deferred (WardenDockerSandbox *self)
{
  g_autoptr(GPtrArray) waiting = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < self->running->len; i++)
    {
      DockerExec *de = g_ptr_array_index (self->running, i);

      if (de->deferred != NULL && (de->gave_up || de->kill_generation <= self->kills_done))
        g_ptr_array_add (waiting, g_steal_pointer (&de->deferred));
    }
  for (guint i = 0; i < waiting->len; i++)
    {
      GTask *task = g_ptr_array_index (waiting, i);
      DockerExec *de = g_task_get_task_data (task);

      docker_exec_return (task, de->deferred_code, g_steal_pointer (&de->deferred_error));
    }
}

static gboolean
give_up_cb (gpointer user_data)
{
  DockerExec *de = user_data;

  g_clear_pointer (&de->give_up_source, g_source_unref);
  g_warning ("The processes of a command could not be killed within %d s",
             KILL_GIVE_UP_MS / 1000);
  de->gave_up = TRUE;
  release_deferred (g_task_get_source_object (de->deferred));
  return G_SOURCE_REMOVE;
}

static void
exec_inspect_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  DockerExec *de = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  int exit_code = -1;
  gboolean running = FALSE;

  if (!warden_docker_client_exec_inspect_finish (WARDEN_DOCKER_CLIENT (object), result, &exit_code,
                                                 &running, &error))
    {
      /* Unless a kill of ours restarted the container, an exec the engine
       * forgot (it restarted) or cannot tell about: the command's end is
       * out of sight. */
      if (!de->killing && (connection_lost (error) ||
                           g_error_matches (error, WARDEN_DOCKER_ERROR,
                                            WARDEN_DOCKER_ERROR_NOT_FOUND)))
        docker_exec_lose (task, error);
      else
        docker_exec_return (task, -1, g_steal_pointer (&error));
      return;
    }
  docker_exec_return (task, running ? -1 : exit_code, NULL);
}

static void
exec_start_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  DockerExec *de = g_task_get_task_data (task);
  WardenDockerSandbox *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;
  int exit_code = -1;

  if (!warden_docker_client_exec_start_finish_with_status (self->client, result, &exit_code,
                                                           &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      if (!de->killing && connection_lost (error))
        docker_exec_lose (task, error);
      else
        docker_exec_return (task, -1, g_steal_pointer (&error));
      return;
    }
  if (warden_exec_watch_get_returned (de->watch))
    return;
  if (exit_code >= 0)
    {
      docker_exec_return (task, exit_code, NULL);
      return;
    }
  warden_docker_client_exec_inspect_async (self->client, de->exec_id, NULL, exec_inspect_cb,
                                           g_steal_pointer (&task));
}

static void
exec_forward (DockerExec *de,
              int         stream,
              const char *data,
              gsize       length)
{
  warden_exec_watch_output (de->watch, stream == 2 ? WARDEN_STREAM_STDERR : WARDEN_STREAM_STDOUT,
                            data, length);
}

static void
exec_output_cb (int         stream,
                const char *data,
                gsize       length,
                gpointer    user_data)
{
  DockerExec *de = user_data;

  /* The wrapper's PID comes first on stderr, before the command runs. */
  if (stream == 2 && de->pid_line != NULL)
    {
      const char *nl = memchr (data, '\n', length);
      gsize take = nl != NULL ? (gsize) (nl - data) + 1 : length;
      char *end = NULL;
      gint64 pid;

      g_string_append_len (de->pid_line, data, take);
      data += take;
      length -= take;
      if (nl == NULL && de->pid_line->len < 24)
        return;
      pid = g_ascii_strtoll (de->pid_line->str, &end, 10);
      if (nl != NULL && pid > 0 && pid < G_MAXINT && end != NULL && *end == '\n')
        de->root_pid = (int) pid;
      else
        exec_forward (de, stream, de->pid_line->str, de->pid_line->len);
      g_string_free (de->pid_line, TRUE);
      de->pid_line = NULL;
      if (length == 0)
        return;
    }
  exec_forward (de, stream, data, length);
}

/* ------------------------------------------------------------------------ */
/* Killing a command: one kill runs at a time, from inside the container, so
 * it works on a remote engine too. When it cannot run (the process limit is
 * reached) or leaves anything behind, the container restarts: that kills
 * everything in it. */

typedef struct
{
  WardenDockerSandbox *self;
  GString             *out;
  guint                generation;
} Kill;

static void release_warm (WardenDockerSandbox *self);
static void kill_restart (Kill *kill);

static void
kill_finish (Kill *kill)
{
  g_autoptr(WardenDockerSandbox) self = kill->self;
  gboolean again = self->kill_again;

  self->kills_done = kill->generation;
  self->killing = FALSE;
  self->kill_again = FALSE;
  g_string_free (kill->out, TRUE);
  g_free (kill);
  if (again)
    sandbox_kill (self);
  release_deferred (self);
  release_warm (self);
}

static void
kill_restarted_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Kill *kill = user_data;
  g_autoptr(GError) error = NULL;

  if (!warden_docker_client_container_restart_finish (WARDEN_DOCKER_CLIENT (object), result,
                                                      &error))
    g_warning ("Could not restart the container to end a command: %s", error->message);
  kill_finish (kill);
}

static void
kill_restart_now (Kill *kill)
{
  WardenDockerSandbox *self = kill->self;

  if (self->container_id == NULL)
    {
      kill_finish (kill);
      return;
    }
  g_debug ("The kill left processes behind (%s); restarting the container",
           kill->out->len > 0 ? kill->out->str : "it did not run");
  warden_docker_client_container_restart_async (self->client, self->container_id, NULL,
                                                 kill_restarted_cb, kill);
}

static void
kill_output_cb (int         stream,
                const char *data,
                gsize       length,
                gpointer    user_data)
{
  Kill *kill = user_data;

  if (stream == 1 && kill->out->len < 4096)
    g_string_append_len (kill->out, data, length);
}

static void
kill_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Kill *kill = user_data;

  warden_docker_client_exec_start_finish (WARDEN_DOCKER_CLIENT (object), result, NULL);
  /* runc's answer when the container stopped under us (docker kill): the
   * engine may still call it running for a moment, so its word is taken. */
  if (g_str_has_prefix (kill->out->str, "killed\n") ||
      strstr (kill->out->str, "cannot exec in a stopped") != NULL)
    kill_finish (kill);
  else
    kill_restart (kill);
}

/* A container that is gone or stopped (docker rm, docker kill) has nothing
 * left to kill, and is not started again behind the user's back: the
 * command's end says it was lost. A running or paused one restarts. */
static void
kill_inspected_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Kill *kill = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  JsonObject *state = NULL;

  node = warden_docker_client_container_inspect_finish (WARDEN_DOCKER_CLIENT (object), result,
                                                        &error);
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonNode *member = json_object_get_member (json_node_get_object (node), "State");

      if (member != NULL && JSON_NODE_HOLDS_OBJECT (member))
        state = json_node_get_object (member);
    }
  if (g_error_matches (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_NOT_FOUND) ||
      (state != NULL && (!warden_json_get_boolean (state, "Running", TRUE) ||
                         g_strcmp0 (warden_json_get_string (state, "Status"), "removing") == 0)))
    {
      g_debug ("The container is gone or stopped: nothing left to kill");
      kill_finish (kill);
    }
  else
    kill_restart_now (kill);
}

static void
kill_restart (Kill *kill)
{
  if (kill->self->container_id == NULL)
    {
      kill_finish (kill);
      return;
    }
  warden_docker_client_container_inspect_async (kill->self->client, kill->self->container_id,
                                                NULL, kill_inspected_cb, kill);
}

static void
kill_created_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Kill *kill = user_data;
  g_autofree char *id = warden_docker_client_exec_create_finish (WARDEN_DOCKER_CLIENT (object),
                                                                 result, NULL);

  if (id == NULL)
    {
      kill_restart (kill);
      return;
    }
  warden_docker_client_exec_start_async (WARDEN_DOCKER_CLIENT (object), id, NULL,
                                         kill_output_cb, kill, NULL, kill_done_cb, kill);
}

/* Kills every process in the container that does not belong to a command
 * still running and not being killed itself. Processes that outlived an
 * earlier command die too: nothing tells whose they are. Returns the number
 * of the kill that covers what runs now: self->kills_done reaches it when it
 * is over. */
static guint
sandbox_kill (WardenDockerSandbox *self)
{
  g_autoptr(GPtrArray) argv = NULL;
  Kill *kill;

  if (self->killing)
    {
      self->kill_again = TRUE;
      return self->kills_started + 1;
    }
  if (self->container_id == NULL)
    {
      /* Gone with the container. */
      self->kills_done = ++self->kills_started;
      return self->kills_done;
    }
  self->killing = TRUE;

  argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, g_strdup ("/bin/sh"));
  g_ptr_array_add (argv, g_strdup ("-c"));
  g_ptr_array_add (argv, g_strdup (kill_script));
  g_ptr_array_add (argv, g_strdup ("warden-kill"));
  for (guint i = 0; i < self->running->len; i++)
    {
      DockerExec *other = g_ptr_array_index (self->running, i);

      /* A command that has not said its PID yet is killed too. */
      if (!other->killing && other->root_pid > 0)
        g_ptr_array_add (argv, g_strdup_printf ("%d", other->root_pid));
    }
  if (runner_usable (self))
    for (guint i = 0; i < G_N_ELEMENTS (self->runner_ns_pids); i++)
      if (self->runner_ns_pids[i] > 0)
        g_ptr_array_add (argv, g_strdup_printf ("=%" G_GINT64_FORMAT, self->runner_ns_pids[i]));
  g_ptr_array_add (argv, NULL);

  g_debug ("sweeping the container (%u arguments)", argv->len - 5);
  kill = g_new0 (Kill, 1);
  kill->self = g_object_ref (self);
  kill->out = g_string_new (NULL);
  kill->generation = ++self->kills_started;
  warden_docker_client_exec_create_async (self->client, self->container_id,
                                          (const char * const *) argv->pdata, NULL, "/",
                                          self->user, FALSE, NULL, kill_created_cb, kill);
  return kill->generation;
}

/* Ends every process of the command, whatever it did to its environment. */
static gboolean
docker_exec_kill (GTask *task)
{
  WardenDockerSandbox *self = g_task_get_source_object (task);
  DockerExec *de = g_task_get_task_data (task);

  /* Cancelled before it was created: nothing runs yet. */
  if (de->exec_id == NULL)
    {
      docker_exec_return (task, -1, NULL);
      return FALSE;
    }
  /* A command whose container was given up goes with it. */
  if (de->killing || de->lost != NULL)
    return FALSE;
  de->killing = TRUE;
  de->kill_generation = sandbox_kill (self);
  return TRUE;
}

/* The stream did not end after the kill: stop waiting for it. */
static void
docker_exec_grace_expired (GTask *task)
{
  docker_exec_return (task, -1, NULL);
}

static const WardenExecWatchFuncs docker_exec_funcs = {
  .kill = docker_exec_kill,
  .grace_expired = docker_exec_grace_expired,
};

static void
exec_create_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WardenDockerSandbox *self = g_task_get_source_object (task);
  DockerExec *de = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  de->exec_id = warden_docker_client_exec_create_finish (self->client, result, &error);
  if (de->exec_id == NULL)
    {
      docker_exec_return (task, -1, g_steal_pointer (&error));
      return;
    }
  if (warden_exec_watch_get_cancelled (de->watch))
    {
      docker_exec_return (task, -1, NULL);
      return;
    }

  warden_exec_watch_start_timer (de->watch);
  warden_docker_client_exec_start_async (self->client, de->exec_id, de->request->stdin_data,
                                         exec_output_cb, de,
                                         warden_exec_watch_get_io_cancellable (de->watch),
                                         exec_start_cb, g_steal_pointer (&task));
}

/* ------------------------------------------------------------------------ */
/* Commands of the warm runner: what they leave is swept, as on the Docker
 * exec path, and a runner that stops answering is replaced. */

typedef struct
{
  GTask            *task;
  WardenExecResult *result;
  GError           *error;
  guint             generation;  /* the kill it waits for; 0: none */
  GSource          *give_up;
  gboolean          gave_up;
} WarmEnd;

static void
warm_end_return (WarmEnd *end)
{
  if (end->give_up != NULL)
    {
      g_source_destroy (end->give_up);
      g_source_unref (end->give_up);
    }
  if (end->error != NULL)
    g_task_return_error (end->task, end->error);
  else
    g_task_return_pointer (end->task, end->result, (GDestroyNotify) warden_exec_result_free);
  g_object_unref (end->task);
  g_free (end);
}

/* Returns the warm commands whose sweep (or the runner's recovery) is over. */
static void
release_warm (WardenDockerSandbox *self)
{
  g_autoptr(GPtrArray) ready = g_ptr_array_new ();

  for (guint i = 0; i < self->warm_waiting->len; i++)
    {
      WarmEnd *end = g_ptr_array_index (self->warm_waiting, i);

      if (end->gave_up || (!self->recovering && end->generation <= self->kills_done))
        g_ptr_array_add (ready, end);
    }
  for (guint i = 0; i < ready->len; i++)
    {
      g_ptr_array_remove (self->warm_waiting, g_ptr_array_index (ready, i));
      warm_end_return (g_ptr_array_index (ready, i));
    }
}

static gboolean
warm_give_up_cb (gpointer user_data)
{
  WarmEnd *end = user_data;

  g_warning ("The processes a command left could not be killed within %d s",
             KILL_GIVE_UP_MS / 1000);
  g_clear_pointer (&end->give_up, g_source_unref);
  end->gave_up = TRUE;
  release_warm (g_task_get_source_object (end->task));
  return G_SOURCE_REMOVE;
}

static void
warm_exec_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  WarmEnd *end = g_new0 (WarmEnd, 1);
  WardenDockerSandbox *self;

  end->task = user_data;
  self = g_task_get_source_object (end->task);
  end->result = warden_warm_runner_exec_finish (result, &end->error);
  self->warm_running--;
  /* Nothing a command left may run on once it returned (Warden looks at
   * what it changed in .git then): with no other command running, all the
   * container holds besides its keeper and the runner goes. */
  if (!self->recovering && self->warm_running == 0 && self->running->len == 0 &&
      self->container_id != NULL && !container_holds_only_keeper (self))
    end->generation = sandbox_kill (self);
  if (!self->recovering && end->generation <= self->kills_done)
    {
      warm_end_return (end);
      return;
    }
  end->give_up = g_timeout_source_new (KILL_GIVE_UP_MS);
  g_source_set_callback (end->give_up, warm_give_up_cb, end, NULL);
  g_source_attach (end->give_up, g_task_get_context (end->task));
  g_ptr_array_add (self->warm_waiting, end);
}

/* The kill of everything the stopped runner left is over: a new runner for
 * the next commands (until it is in, they go through Docker execs). */
static void
recovery_done (WardenDockerSandbox *self)
{
  self->recovering = FALSE;
  if (self->container_id != NULL && self->runner_wanted)
    start_runner (self, NULL);
  release_warm (self);
}

static gboolean
recovery_wait_cb (gpointer user_data)
{
  WardenDockerSandbox *self = user_data;

  if (self->recovery_kill > self->kills_done)
    return G_SOURCE_CONTINUE;
  recovery_done (self);
  return G_SOURCE_REMOVE;
}

static void
recovery_kill (WardenDockerSandbox *self)
{
  /* The old runner, its relay and what they ran: nothing is spared. */
  g_clear_pointer (&self->runner, warden_warm_runner_free);
  self->recovery_kill = sandbox_kill (self);
  g_timeout_add_full (G_PRIORITY_DEFAULT, 50, recovery_wait_cb, g_object_ref (self),
                      g_object_unref);
}

static void
recovery_unpaused_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(WardenDockerSandbox) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!warden_docker_client_container_pause_finish (self->client, result, &error))
    g_debug ("Could not unpause the container: %s", error->message);
  recovery_kill (self);
}

static void
recovery_inspect_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(WardenDockerSandbox) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = warden_docker_client_container_inspect_finish (self->client, result,
                                                                            &error);
  JsonObject *state = NULL;

  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node) &&
      json_object_has_member (json_node_get_object (node), "State") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (json_node_get_object (node), "State")))
    state = json_object_get_object_member (json_node_get_object (node), "State");
  if (self->container_id != NULL && state != NULL &&
      warden_json_get_boolean (state, "Paused", FALSE))
    {
      /* Paused by someone else: the kill cannot run in a frozen container. */
      g_debug ("The container was paused: unpausing it");
      warden_docker_client_container_pause_async (self->client, self->container_id, FALSE, NULL,
                                                  recovery_unpaused_cb, g_object_ref (self));
      return;
    }
  recovery_kill (self);
}

/* The runner did not answer (WardenWarmRunnerStoppedFunc): its commands
 * fail, and return once the container holds none of what it ran. */
static void
runner_stopped_cb (gpointer user_data)
{
  WardenDockerSandbox *self = user_data;

  if (self->recovering || self->container_id == NULL)
    return;
  self->recovering = TRUE;
  warden_docker_client_container_inspect_async (self->client, self->container_id, NULL,
                                                recovery_inspect_cb, g_object_ref (self));
}

static void
docker_exec_inner_async (WardenSandbox           *sandbox,
                         const WardenExecRequest *request,
                         GCancellable            *cancellable,
                         GAsyncReadyCallback      callback,
                         gpointer                 user_data)
{
  WardenDockerSandbox *self = WARDEN_DOCKER_SANDBOX (sandbox);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_auto(GStrv) env = NULL;
  DockerExec *de;
  gboolean with_stdin = request->stdin_data != NULL && g_bytes_get_size (request->stdin_data) > 0;
  const char *argv[] = { "/bin/sh", "-c", exec_wrapper, "sh", request->command, NULL, NULL };
  g_autofree char *socket_inside = NULL;
  WardenExecGuard *guard = NULL;

  g_task_set_source_tag (task, docker_exec_inner_async);
  if (self->container_id == NULL)
    {
      g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_NOT_PREPARED,
                               _("The sandbox is not ready: prepare it first"));
      return;
    }

  /* A runner that went (killed by a restart of the container, or that did
   * not connect in time) comes back for the commands after this one. */
  if (self->runner_wanted && !self->recovering &&
      (self->runner == NULL || warden_warm_runner_is_gone (self->runner)) &&
      g_get_monotonic_time () >= self->runner_retry)
    {
      self->runner_retry = g_get_monotonic_time () + RUNNER_RETRY_S * G_USEC_PER_SEC;
      start_runner (self, NULL);
    }
  /* The warm runner starts it, when it is there. */
  if (runner_usable (self))
    {
      g_auto(GStrv) warm_env = warden_sandbox_build_env (sandbox, "/tmp", request);

      self->warm_running++;
      warden_warm_runner_exec_async (self->runner, request,
                                     request->cwd ? request->cwd
                                                  : warden_sandbox_get_workspace_inside (sandbox),
                                     (const char * const *) warm_env, cancellable,
                                     warm_exec_cb, g_steal_pointer (&task));
      return;
    }

  de = g_new0 (DockerExec, 1);
  g_task_set_task_data (task, de, docker_exec_free);
  de->request = request;
  de->pid_line = g_string_new (NULL);
  g_ptr_array_add (self->running, de);
  de->watch = warden_exec_watch_new (task, request, cancellable, &docker_exec_funcs);

  if (request->guard_func != NULL)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *name = NULL;
      g_autofree char *path = NULL;

      if (self->guard_dir == NULL)
        {
          docker_exec_return (task, -1, g_error_new (WARDEN_SANDBOX_ERROR,
                                                     WARDEN_SANDBOX_ERROR_UNAVAILABLE,
                                                     _("Programs this command starts cannot be "
                                                       "checked (%s), so it did not run"),
                                                     warden_sandbox_get_guard_unavailable (sandbox)));
          return;
        }
      name = g_strdup_printf ("%u.sock", ++self->guard_seq);
      path = g_build_filename (self->guard_dir, name, NULL);
      guard = warden_exec_guard_new_listening (request->guard_func, request->guard_data, path,
                                               &error);
      if (guard == NULL)
        {
          docker_exec_return (task, -1, g_steal_pointer (&error));
          return;
        }
      warden_exec_watch_adopt_guard (de->watch, guard);
      socket_inside = g_build_filename (WARDEN_SANDBOX_GUARD_DIR, name, NULL);
      argv[2] = exec_guarded_wrapper;
      argv[5] = socket_inside;
    }

  env = warden_sandbox_build_env (sandbox, "/tmp", request);

  warden_docker_client_exec_create_async (self->client, self->container_id, argv,
                                          (const char * const *) env,
                                          request->cwd ? request->cwd
                                                       : warden_sandbox_get_workspace_inside (sandbox),
                                          self->user, with_stdin, NULL, exec_create_cb,
                                          g_steal_pointer (&task));
}

/* ------------------------------------------------------------------------ */
/* A container removed or stopped outside Warden (docker rm -f, docker kill):
 * a command that failed, or was killed, asks the engine whether the
 * container is still there and running. If not, the sandbox gives it up
 * and says so: the next prepare makes a new one. */

typedef struct
{
  char             *container_id;
  WardenExecResult *result;
  GError           *error;
  guint             inspects;
} LostCheck;

/* A command that failed as a stopping container makes it fail (its helper
 * went away) may end a moment before the engine marks the container
 * stopped: asked again this often, this many times. */
#define LOST_INSPECT_MS    50
#define LOST_INSPECT_TRIES 10

static void lost_inspect_cb (GObject      *object,
                             GAsyncResult *result,
                             gpointer      user_data);

static gboolean
lost_inspect_again_cb (gpointer user_data)
{
  GTask *task = user_data;
  WardenDockerSandbox *self = g_task_get_source_object (task);
  LostCheck *check = g_task_get_task_data (task);

  warden_docker_client_container_inspect_async (self->client, check->container_id, NULL,
                                                lost_inspect_cb, task);
  return G_SOURCE_REMOVE;
}

static void
lost_check_free (gpointer data)
{
  LostCheck *check = data;

  g_free (check->container_id);
  g_clear_pointer (&check->result, warden_exec_result_free);
  g_clear_error (&check->error);
  g_free (check);
}

/* What a command's end says of its container: nothing, unless it failed or
 * was killed (a container that stops kills what runs in it). */
static gboolean
may_have_lost_container (const WardenExecResult *result,
                         const GError           *error)
{
  if (error != NULL)
    return !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
           !g_error_matches (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_NOT_PREPARED);
  return result->exit_code < 0 || result->exit_code >= 128;
}

static void
lost_inspect_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WardenDockerSandbox *self = g_task_get_source_object (task);
  LostCheck *check = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  gboolean gone, started;
  JsonObject *state = NULL;

  node = warden_docker_client_container_inspect_finish (self->client, result, &error);
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonNode *member = json_object_get_member (json_node_get_object (node), "State");

      if (member != NULL && JSON_NODE_HOLDS_OBJECT (member))
        state = json_node_get_object (member);
    }
  gone = g_error_matches (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_NOT_FOUND) ||
         (state != NULL && !warden_json_get_boolean (state, "Running", TRUE));
  if (!gone && check->error != NULL && node != NULL &&
      ++check->inspects < LOST_INSPECT_TRIES)
    {
      g_timeout_add (LOST_INSPECT_MS, lost_inspect_again_cb, g_steal_pointer (&task));
      return;
    }
  if (!gone)
    {
      /* Still there (or the engine cannot say): the command's own end. */
      if (check->error != NULL)
        g_task_return_error (task, g_steal_pointer (&check->error));
      else
        g_task_return_pointer (task, g_steal_pointer (&check->result),
                               (GDestroyNotify) warden_exec_result_free);
      return;
    }

  if (g_strcmp0 (self->container_id, check->container_id) == 0)
    drop_container (self);
  /* The engine refused to start it there: it never ran. */
  started = !(check->error != NULL && check->error->domain == WARDEN_DOCKER_ERROR &&
              (check->error->code == WARDEN_DOCKER_ERROR_NOT_FOUND ||
               check->error->code == WARDEN_DOCKER_ERROR_CONFLICT));
  if (started)
    g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_CONTAINER_LOST,
                             _("The sandbox’s container was removed or stopped outside Warden "
                               "(docker rm, docker kill, a restart of the engine) while the "
                               "command ran: the command was stopped with it. The next "
                               "command runs in a new sandbox; what was installed outside "
                               "the workspace is gone"));
  else
    g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_CONTAINER_GONE,
                             _("The sandbox’s container was removed or stopped outside Warden "
                               "(docker rm, docker kill, a restart of the engine): the command "
                               "did not run. It runs in a new sandbox; what was installed "
                               "outside the workspace is gone"));
}

static void
lost_exec_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WardenDockerSandbox *self = g_task_get_source_object (task);
  LostCheck *check = g_task_get_task_data (task);

  check->result = g_task_propagate_pointer (G_TASK (result), &check->error);
  if (!may_have_lost_container (check->result, check->error) || check->container_id == NULL ||
      g_strcmp0 (self->container_id, check->container_id) != 0)
    {
      if (check->error != NULL)
        g_task_return_error (task, g_steal_pointer (&check->error));
      else
        g_task_return_pointer (task, g_steal_pointer (&check->result),
                               (GDestroyNotify) warden_exec_result_free);
      return;
    }
  warden_docker_client_container_inspect_async (self->client, check->container_id, NULL,
                                                lost_inspect_cb, g_steal_pointer (&task));
}

static void
warden_docker_sandbox_exec_async (WardenSandbox           *sandbox,
                                  const WardenExecRequest *request,
                                  GCancellable            *cancellable,
                                  GAsyncReadyCallback      callback,
                                  gpointer                 user_data)
{
  WardenDockerSandbox *self = WARDEN_DOCKER_SANDBOX (sandbox);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  LostCheck *check = g_new0 (LostCheck, 1);

  g_task_set_source_tag (task, warden_docker_sandbox_exec_async);
  check->container_id = g_strdup (self->container_id);
  g_task_set_task_data (task, check, lost_check_free);
  docker_exec_inner_async (sandbox, request, cancellable, lost_exec_cb, task);
}

/* ------------------------------------------------------------------------ */
/* destroy and cleanup */

static void
destroyed_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;

  if (!remove_given_up_finish (WARDEN_DOCKER_SANDBOX (object), result, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

static void
warden_docker_sandbox_destroy_async (WardenSandbox       *sandbox,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  WardenDockerSandbox *self = WARDEN_DOCKER_SANDBOX (sandbox);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, warden_docker_sandbox_destroy_async);
  /* With the containers given up earlier, if the engine answers now. */
  drop_container (self);
  remove_given_up_async (self, cancellable, destroyed_cb, g_steal_pointer (&task));
}

static const char *
warden_docker_sandbox_get_container_id (WardenSandbox *sandbox)
{
  return WARDEN_DOCKER_SANDBOX (sandbox)->container_id;
}

typedef struct
{
  GStrv removed;
  GStrv kept;
} Cleanup;

static void
cleanup_free (gpointer data)
{
  Cleanup *cleanup = data;

  g_strfreev (cleanup->removed);
  g_strfreev (cleanup->kept);
  g_free (cleanup);
}

static void
cleanup_removed_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  Cleanup *cleanup = g_new0 (Cleanup, 1);

  cleanup->kept = g_task_get_task_data (task) ? g_strdupv (g_task_get_task_data (task)) : NULL;
  if (!remove_containers_finish (result, &cleanup->removed, &error))
    {
      cleanup_free (cleanup);
      g_task_return_error (task, g_steal_pointer (&error));
    }
  else
    g_task_return_pointer (task, cleanup, cleanup_free);
}

static void
cleanup_list_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GCancellable *cancellable = g_task_get_cancellable (task);
  WardenDockerClient *client = WARDEN_DOCKER_CLIENT (object);
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) owners = NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) ids = NULL;
  GHashTableIter iter;
  gpointer id, owner;

  g_autoptr(GStrvBuilder) kept = g_strv_builder_new ();

  owners = warden_docker_client_container_labels_finish (client, result, &error);
  if (owners == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* Only what provably belongs to a dead owner: another Warden running
   * here (a warden-cli run beside the window), on another machine that
   * uses the same engine or in a container of its own keeps its containers,
   * and so does one that cannot be checked. */
  g_hash_table_iter_init (&iter, owners);
  while (g_hash_table_iter_next (&iter, &id, &owner))
    {
      g_autofree char *why = warden_owner_why_kept (owner);
      g_autofree char *line = NULL;

      if (why == NULL)
        {
          g_strv_builder_add (builder, id);
          continue;
        }
      line = g_strdup_printf ("%.12s: %s", (const char *) id, why);
      g_strv_builder_add (kept, line);
    }
  ids = g_strv_builder_end (builder);
  g_task_set_task_data (task, g_strv_builder_end (kept), (GDestroyNotify) g_strfreev);
  remove_containers_async (client, (const char * const *) ids, cancellable, cleanup_removed_cb,
                           g_steal_pointer (&task));
}

void
warden_docker_sandbox_cleanup_async (WardenDockerClient  *client,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (client, cancellable, callback, user_data);

  g_task_set_source_tag (task, warden_docker_sandbox_cleanup_async);
  warden_docker_client_container_labels_async (client, WARDEN_DOCKER_LABEL,
                                               WARDEN_DOCKER_OWNER_LABEL, cancellable,
                                               cleanup_list_cb, g_steal_pointer (&task));
}

GStrv
warden_docker_sandbox_cleanup_finish (WardenDockerClient  *client,
                                      GAsyncResult        *result,
                                      GError             **error)
{
  return warden_docker_sandbox_cleanup_finish_full (client, result, NULL, error);
}

GStrv
warden_docker_sandbox_cleanup_finish_full (WardenDockerClient  *client,
                                           GAsyncResult        *result,
                                           GStrv               *kept,
                                           GError             **error)
{
  Cleanup *cleanup;
  GStrv removed;

  if (kept != NULL)
    *kept = NULL;
  cleanup = g_task_propagate_pointer (G_TASK (result), error);
  if (cleanup == NULL)
    return NULL;
  removed = g_steal_pointer (&cleanup->removed);
  if (kept != NULL)
    *kept = g_steal_pointer (&cleanup->kept);
  cleanup_free (cleanup);
  return removed;
}

/* ------------------------------------------------------------------------ */

static const char *
warden_docker_sandbox_get_guard_unavailable (WardenSandbox *sandbox)
{
  WardenDockerSandbox *self = WARDEN_DOCKER_SANDBOX (sandbox);

  if (self->guard_dir != NULL)
    return NULL;
  return self->guard_unavailable ? self->guard_unavailable
                                 : _("the sandbox is not prepared yet");
}

static char *
warden_docker_sandbox_dup_engine_description (WardenSandbox *sandbox)
{
  WardenDockerSandbox *self = WARDEN_DOCKER_SANDBOX (sandbox);

  return self->client ? warden_docker_client_dup_engine_description (self->client) : NULL;
}

static void
warden_docker_sandbox_finalize (GObject *object)
{
  WardenDockerSandbox *self = WARDEN_DOCKER_SANDBOX (object);

  g_clear_object (&self->client);
  g_free (self->container_id);
  g_free (self->user);
  g_free (self->procs_path);
  g_ptr_array_unref (self->running);
  g_ptr_array_unref (self->given_up);
  g_ptr_array_unref (self->lost_waiting);
  g_clear_pointer (&self->runner, warden_warm_runner_free);
  g_free (self->runner_exec_id);
  g_ptr_array_unref (self->warm_waiting);
  if (self->guard_dir != NULL)
    g_rmdir (self->guard_dir);
  g_free (self->guard_dir);
  g_free (self->guard_unavailable);
  G_OBJECT_CLASS (warden_docker_sandbox_parent_class)->finalize (object);
}

static void
warden_docker_sandbox_class_init (WardenDockerSandboxClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  WardenSandboxClass *sandbox_class = WARDEN_SANDBOX_CLASS (klass);

  object_class->finalize = warden_docker_sandbox_finalize;
  sandbox_class->prepare_async = warden_docker_sandbox_prepare_async;
  sandbox_class->exec_async = warden_docker_sandbox_exec_async;
  sandbox_class->destroy_async = warden_docker_sandbox_destroy_async;
  sandbox_class->get_container_id = warden_docker_sandbox_get_container_id;
  sandbox_class->get_guard_unavailable = warden_docker_sandbox_get_guard_unavailable;
  sandbox_class->dup_engine_description = warden_docker_sandbox_dup_engine_description;
}

static void
warden_docker_sandbox_init (WardenDockerSandbox *self)
{
  /* Files the commands create in the workspace keep the user as owner. */
  self->user = g_strdup_printf ("%u:%u", (guint) getuid (), (guint) getgid ());
  self->running = g_ptr_array_new ();
  self->given_up = g_ptr_array_new_with_free_func (g_free);
  self->lost_waiting = g_ptr_array_new_with_free_func (g_object_unref);
  self->warm_waiting = g_ptr_array_new ();
}

WardenSandbox *
warden_docker_sandbox_new (const WardenSandboxConfig *config)
{
  return g_object_new (WARDEN_TYPE_DOCKER_SANDBOX,
                       "config", config,
                       "kind", WARDEN_SANDBOX_KIND_DOCKER,
                       "confined", TRUE,
                       NULL);
}

WardenSandbox *
warden_docker_sandbox_new_for_client (const WardenSandboxConfig *config,
                                      WardenDockerClient        *client)
{
  WardenDockerSandbox *self = WARDEN_DOCKER_SANDBOX (warden_docker_sandbox_new (config));

  self->client = g_object_ref (client);
  return WARDEN_SANDBOX (self);
}
