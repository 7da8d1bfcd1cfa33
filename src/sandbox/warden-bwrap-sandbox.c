/* warden-bwrap-sandbox.c: commands in a bubblewrap sandbox, no daemon needed
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

/* prlimit(); must come before the first system header. */
#define _GNU_SOURCE 1

#define G_LOG_DOMAIN "warden-sandbox"

#include <glib/gi18n.h>

#include "warden-bwrap-sandbox-private.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gunixinputstream.h>
#include <glib-unix.h>
#include <json-glib/json-glib.h>
#include <linux/nsfs.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/warden-json.h"
#include "common/warden-sandbox-paths.h"
#include "warden-bwrap.h"
#include "warden-cgroup.h"
#include "warden-sandbox-private.h"
#include "warden-seccomp.h"

/* How a command's process count and memory are bounded, best first. */
typedef enum
{
  LIMITS_SYSTEMD,   /* a transient scope of the user's systemd */
  LIMITS_CGROUP,    /* a cgroup of our own (root, or a delegated subtree) */
  LIMITS_RLIMIT,    /* RLIMIT_NPROC and RLIMIT_DATA on the sandbox's first process */
} LimitsMethod;

struct _WardenBwrapSandbox
{
  WardenSandbox parent_instance;
  char         *bwrap;
  char         *slirp4netns;
  char         *systemd_run;
  GBytes       *seccomp;
  GBytes       *seccomp_guard;  /* the same, ptrace left to the exec guard */
  LimitsMethod  limits;
  gboolean      has_disable_userns;
  gboolean      has_size;
  gboolean      prepared;
};

G_DEFINE_FINAL_TYPE (WardenBwrapSandbox, warden_bwrap_sandbox, WARDEN_TYPE_SANDBOX)

/* The descriptors bwrap (and slirp4netns) get, by number in the child. */
enum
{
  FD_SECCOMP = 3,
  FD_INFO,
  FD_BLOCK,
  FD_RESOLV,
  FD_GUARD,      /* the exec guard's socket: its helper keeps it */
};

enum
{
  SLIRP_FD_USERNS = 3,
  SLIRP_FD_READY,
  SLIRP_FD_EXIT,
};

/* slirp4netns's own addresses: 10.0.2.2 the host (loopback refused), 10.0.2.3
 * a DNS forwarder to the host's resolvers. */
#define SANDBOX_RESOLV_CONF "nameserver 10.0.2.3\n"

/* The usual /bin, /lib… links into /usr, as the host has them. */
static const char *root_links[] = { "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", NULL };

/* What a program needs of /etc to run; with network also name resolution
 * and certificates (resolv.conf is the sandbox's own). */
static const char *etc_files[] = { "/etc/passwd", "/etc/group", "/etc/alternatives",
                                   "/etc/ld.so.cache", "/etc/localtime", "/etc/nsswitch.conf",
                                   NULL };
static const char *etc_network_files[] = { "/etc/hosts", "/etc/ssl", "/etc/ca-certificates",
                                           "/etc/pki", NULL };

/* ------------------------------------------------------------------------ */
/* The command line, step by step */

/* A transient scope of the user's systemd bounds the command. */
static void
add_scope_args (WardenBwrapSandbox *self,
                WardenBwrap        *b)
{
  WardenSandbox *sandbox = WARDEN_SANDBOX (self);

  warden_bwrap_add_args (b, self->systemd_run, "--user", "--scope", "--quiet", "--collect",
                         NULL);
  warden_bwrap_add_arg_printf (b, "--property=TasksMax=%u",
                               warden_sandbox_get_pids_limit (sandbox));
  warden_bwrap_add_arg_printf (b, "--property=MemoryMax=%" G_GUINT64_FORMAT,
                               warden_sandbox_get_memory_limit (sandbox));
  warden_bwrap_add_args (b, "--property=MemorySwapMax=0", "--", NULL);
}

/* bwrap's own options, then the system: /usr and its links, /proc, /dev,
 * /tmp. */
static void
add_system_args (WardenBwrapSandbox *self,
                 WardenBwrap        *b)
{
  warden_bwrap_add_args (b, self->bwrap, "--die-with-parent", "--new-session", NULL);
  /* Every namespace, the network's too: with network on, slirp4netns gives
   * it a way out that reaches no host socket. */
  warden_bwrap_add_args (b, "--unshare-all", "--unshare-user", NULL);
  if (self->has_disable_userns)
    warden_bwrap_add_arg (b, "--disable-userns");
  /* bwrap run by root would leave the command every capability. */
  warden_bwrap_add_args (b, "--cap-drop", "ALL", NULL);
  warden_bwrap_add_arg (b, "--seccomp");
  warden_bwrap_add_arg_printf (b, "%d", FD_SECCOMP);
  warden_bwrap_add_arg (b, "--info-fd");
  warden_bwrap_add_arg_printf (b, "%d", FD_INFO);
  warden_bwrap_add_arg (b, "--block-fd");
  warden_bwrap_add_arg_printf (b, "%d", FD_BLOCK);

  warden_bwrap_bind (b, WARDEN_BWRAP_BIND_RO, "/usr", "/usr");
  for (guint i = 0; root_links[i]; i++)
    {
      struct stat st;

      if (lstat (root_links[i], &st) != 0)
        continue;
      if (S_ISLNK (st.st_mode))
        {
          g_autofree char *target = g_file_read_link (root_links[i], NULL);

          if (target != NULL)
            warden_bwrap_add_args (b, "--symlink", target, root_links[i], NULL);
        }
      else if (S_ISDIR (st.st_mode))
        warden_bwrap_bind (b, WARDEN_BWRAP_BIND_RO, root_links[i], root_links[i]);
    }

  /* Read-only: a program could otherwise write another's memory through
   * /proc/PID/mem, one waiting for the user's answer or the exec guard
   * itself; the final --remount-ro / does not reach this mount. */
  warden_bwrap_add_args (b, "--proc", "/proc", "--remount-ro", "/proc", NULL);
  warden_bwrap_add_args (b, "--dev", "/dev", NULL);
  if (self->has_size)
    {
      warden_bwrap_add_arg (b, "--size");
      warden_bwrap_add_arg_printf (b, "%" G_GUINT64_FORMAT,
                                   warden_sandbox_get_tmp_size (WARDEN_SANDBOX (self)));
    }
  warden_bwrap_add_args (b, "--tmpfs", "/tmp", NULL);
}

static void
add_etc_args (WardenBwrapSandbox *self,
              WardenBwrap        *b)
{
  const WardenSandboxConfig *config = warden_sandbox_get_config (WARDEN_SANDBOX (self));

  warden_bwrap_add_args (b, "--dir", "/etc", NULL);
  for (guint i = 0; etc_files[i]; i++)
    warden_bwrap_bind (b, WARDEN_BWRAP_BIND_RO_TRY, etc_files[i], etc_files[i]);
  /* Through the proxy: certificates, no resolver (the proxy resolves). */
  if (config->network == WARDEN_NETWORK_OPEN || config->proxy_socket != NULL)
    for (guint i = 0; etc_network_files[i]; i++)
      warden_bwrap_bind (b, WARDEN_BWRAP_BIND_RO_TRY, etc_network_files[i], etc_network_files[i]);
  if (config->network == WARDEN_NETWORK_OPEN)
    {
      warden_bwrap_add_arg (b, "--ro-bind-data");
      warden_bwrap_add_arg_printf (b, "%d", FD_RESOLV);
      warden_bwrap_add_arg (b, "/etc/resolv.conf");
    }
}

/* The workspace, what is pinned, read-only or hidden in it, and the
 * command's folder. */
static void
add_workspace_args (WardenBwrapSandbox      *self,
                    WardenBwrap             *b,
                    const WardenExecRequest *request)
{
  WardenSandbox *sandbox = WARDEN_SANDBOX (self);
  const WardenSandboxConfig *config = warden_sandbox_get_config (sandbox);
  const char *inside = warden_sandbox_get_workspace_inside (sandbox);
  g_autoptr(GPtrArray) mounts = warden_sandbox_list_workspace_mounts (sandbox);

  warden_bwrap_bind (b, WARDEN_BWRAP_BIND_RW, config->workspace, inside);
  for (guint i = 0; i < mounts->len; i++)
    {
      const WardenWorkspaceMount *mount = g_ptr_array_index (mounts, i);
      g_autofree char *host = g_build_filename (config->workspace, mount->path, NULL);
      g_autofree char *dest = g_build_filename (inside, mount->path, NULL);

      switch (mount->kind)
        {
        case WARDEN_WORKSPACE_MOUNT_PIN:
          warden_bwrap_bind (b, WARDEN_BWRAP_BIND_RW, host, dest);
          break;
        case WARDEN_WORKSPACE_MOUNT_READ_ONLY:
          warden_bwrap_bind (b, WARDEN_BWRAP_BIND_RO, host, dest);
          break;
        case WARDEN_WORKSPACE_MOUNT_HIDE:
          if (mount->is_dir)
            warden_bwrap_add_args (b, "--tmpfs", dest, "--remount-ro", dest, NULL);
          else
            warden_bwrap_bind (b, WARDEN_BWRAP_BIND_RO, "/dev/null", dest);
          break;
        default:
          g_assert_not_reached ();
        }
    }
  warden_bwrap_add_args (b, "--chdir", request->cwd ? request->cwd : inside, NULL);
}

/* The helper (@guard or @relay, its path on the host) and the proxy's
 * socket, then the command: the relay first, as it starts the rest and is
 * not traced, then the guard. */
static void
add_command_args (WardenBwrapSandbox      *self,
                  WardenBwrap             *b,
                  const WardenExecRequest *request,
                  const char              *guard,
                  const char              *relay)
{
  const WardenSandboxConfig *config = warden_sandbox_get_config (WARDEN_SANDBOX (self));

  if (guard != NULL || relay != NULL)
    warden_bwrap_bind (b, WARDEN_BWRAP_BIND_RO, guard ? guard : relay, WARDEN_SANDBOX_GUARD);
  if (relay != NULL)
    warden_bwrap_bind (b, WARDEN_BWRAP_BIND_RO, config->proxy_socket,
                       WARDEN_SANDBOX_PROXY_SOCKET);

  /* Last: everything above is mounted, now nothing else can be. */
  warden_bwrap_add_args (b, "--remount-ro", "/", "--", NULL);
  if (relay != NULL)
    {
      warden_bwrap_add_args (b, WARDEN_SANDBOX_GUARD, "--relay", NULL);
      warden_bwrap_add_arg_printf (b, "%d", WARDEN_SANDBOX_PROXY_PORT);
      warden_bwrap_add_args (b, WARDEN_SANDBOX_PROXY_SOCKET, "--", NULL);
    }
  if (guard != NULL)
    {
      warden_bwrap_add_args (b, WARDEN_SANDBOX_GUARD, "--fd", NULL);
      warden_bwrap_add_arg_printf (b, "%d", FD_GUARD);
      warden_bwrap_add_arg (b, "--");
    }
  warden_bwrap_add_args (b, "/bin/sh", "-c", request->command, NULL);
}

/* The whole command line of @request, into @b. */
static void
add_args (WardenBwrapSandbox      *self,
          WardenBwrap             *b,
          const WardenExecRequest *request,
          const char * const      *env,
          const char              *guard,
          const char              *relay)
{
  if (self->limits == LIMITS_SYSTEMD)
    add_scope_args (self, b);
  add_system_args (self, b);
  add_etc_args (self, b);
  add_workspace_args (self, b, request);
  warden_bwrap_add_arg (b, "--clearenv");
  warden_bwrap_add_env (b, env);
  add_command_args (self, b, request, guard, relay);
}

void
warden_bwrap_sandbox_set_host (WardenBwrapSandbox    *self,
                               const WardenBwrapHost *host)
{
  g_return_if_fail (WARDEN_IS_BWRAP_SANDBOX (self));

  g_free (self->bwrap);
  self->bwrap = g_strdup (host->bwrap);
  g_free (self->systemd_run);
  self->systemd_run = g_strdup (host->systemd_run);
  self->limits = host->systemd_run != NULL ? LIMITS_SYSTEMD : LIMITS_CGROUP;
  self->has_disable_userns = host->has_disable_userns;
  self->has_size = host->has_size;
  self->prepared = TRUE;
}

GStrv
warden_bwrap_sandbox_dup_argv (WardenBwrapSandbox      *self,
                               const WardenExecRequest *request,
                               const char * const      *env,
                               const char              *guard,
                               const char              *relay)
{
  g_autoptr(WardenBwrap) b = NULL;

  g_return_val_if_fail (WARDEN_IS_BWRAP_SANDBOX (self), NULL);

  b = warden_bwrap_new ();
  add_args (self, b, request, env, guard, relay);
  return warden_bwrap_finish (b);
}

/* ------------------------------------------------------------------------ */
/* exec: bwrap waits on its block fd until the network and the limits are in
 * place; only then does the command start. */

typedef struct
{
  GSubprocess   *bwrap;
  GSubprocess   *slirp;
  WardenCgroup  *cgroup;
  GSubprocess   *cgroup_watch;  /* kills what is left in the cgroup if Warden dies */
  GCancellable  *setup_cancellable;
  GString       *info;
  int            block_fd;      /* ours: a byte lets the command start */
  int            slirp_exit_fd; /* ours: closing it ends slirp4netns */
  GPid           child_pid;
  GError        *setup_error;
  gboolean       done;
} BwrapExec;

typedef struct
{
  WardenCgroup *cgroup;
  guint         tries;
} CgroupReap;

/* A command's processes take a moment to go once bwrap is gone. */
static gboolean
cgroup_reap_cb (gpointer user_data)
{
  CgroupReap *reap = user_data;

  warden_cgroup_kill (reap->cgroup);
  if (warden_cgroup_remove (reap->cgroup) || ++reap->tries >= 100)
    {
      if (reap->tries >= 100)
        g_debug ("A command's cgroup could not be removed; a later Warden removes it");
      warden_cgroup_free (reap->cgroup);
      g_free (reap);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static void
bwrap_exec_cleanup (BwrapExec *be)
{
  if (be->setup_cancellable != NULL)
    g_cancellable_cancel (be->setup_cancellable);
  if (be->block_fd >= 0)
    {
      close (be->block_fd);
      be->block_fd = -1;
    }
  if (be->slirp_exit_fd >= 0)
    {
      close (be->slirp_exit_fd);
      be->slirp_exit_fd = -1;
    }
  if (be->slirp != NULL)
    g_subprocess_force_exit (be->slirp);
  if (be->cgroup != NULL)
    {
      warden_cgroup_kill (be->cgroup);
      if (warden_cgroup_remove (be->cgroup))
        warden_cgroup_free (be->cgroup);
      else
        {
          CgroupReap *reap = g_new0 (CgroupReap, 1);

          reap->cgroup = be->cgroup;
          g_timeout_add (50, cgroup_reap_cb, reap);
        }
      be->cgroup = NULL;
    }
  /* Done with the group: the watch removes what is left, and ends. */
  if (be->cgroup_watch != NULL)
    {
      g_output_stream_close (g_subprocess_get_stdin_pipe (be->cgroup_watch), NULL, NULL);
      g_clear_object (&be->cgroup_watch);
    }
}

static void
bwrap_exec_free (gpointer data)
{
  BwrapExec *be = data;

  bwrap_exec_cleanup (be);
  g_clear_object (&be->bwrap);
  g_clear_object (&be->slirp);
  g_clear_object (&be->setup_cancellable);
  if (be->info != NULL)
    g_string_free (be->info, TRUE);
  g_clear_error (&be->setup_error);
  g_free (be);
}

/* The command cannot start: bwrap goes, and the exec reports @error. */
static void
bwrap_exec_fail (GTask  *task,
                 GError *error)
{
  BwrapExec *be = g_task_get_task_data (task);

  if (be->done || be->setup_error != NULL)
    {
      g_error_free (error);
      return;
    }
  be->setup_error = error;
  g_subprocess_force_exit (be->bwrap);
}

static void
bwrap_exec_done_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  BwrapExec *be = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  WardenExecResult *res = warden_local_exec_finish (result, &error);

  be->done = TRUE;
  bwrap_exec_cleanup (be);
  if (res != NULL && be->setup_error != NULL)
    {
      warden_exec_result_free (res);
      g_task_return_error (task, g_steal_pointer (&be->setup_error));
    }
  else if (res == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, res, (GDestroyNotify) warden_exec_result_free);
}

static void
start_command (GTask *task)
{
  WardenBwrapSandbox *self = g_task_get_source_object (task);
  BwrapExec *be = g_task_get_task_data (task);

  if (self->limits == LIMITS_RLIMIT)
    {
      WardenSandbox *sandbox = WARDEN_SANDBOX (self);
      struct rlimit nproc, data;

      /* The sandbox has a user namespace of its own: the process count is
       * that of the sandbox's user alone (except for root, whom the kernel
       * does not count; root has cgroups). */
      nproc.rlim_cur = nproc.rlim_max = warden_sandbox_get_pids_limit (sandbox);
      data.rlim_cur = data.rlim_max = warden_sandbox_get_memory_limit (sandbox);
      if (prlimit (be->child_pid, RLIMIT_NPROC, &nproc, NULL) != 0 ||
          prlimit (be->child_pid, RLIMIT_DATA, &data, NULL) != 0)
        {
          int saved = errno;

          bwrap_exec_fail (task, g_error_new (WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_FAILED,
                                              _("Could not limit the sandbox’s processes: %s"),
                                              g_strerror (saved)));
          return;
        }
    }

  if (write (be->block_fd, "1", 1) != 1)
    {
      int saved = errno;

      bwrap_exec_fail (task, g_error_new (WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_FAILED,
                                          _("Could not start the command in bubblewrap: %s"),
                                          g_strerror (saved)));
      return;
    }
  close (be->block_fd);
  be->block_fd = -1;
}

static void
slirp_ready_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  BwrapExec *be = g_task_get_task_data (task);
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result,
                                                              NULL);

  if (be->done || g_cancellable_is_cancelled (be->setup_cancellable))
    return;
  /* slirp4netns writes "1" once tap0 is up, or exits. */
  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      bwrap_exec_fail (task, g_error_new (WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_FAILED,
                                          _("slirp4netns could not give the sandbox its network; "
                                            "turn the network off, or run it by hand to see "
                                            "why")));
      return;
    }
  start_command (task);
}

static gboolean
start_network (GTask   *task,
               GError **error)
{
  WardenBwrapSandbox *self = g_task_get_source_object (task);
  BwrapExec *be = g_task_get_task_data (task);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GInputStream) ready = NULL;
  g_autofree char *ns_path = g_strdup_printf ("/proc/%d/ns/user", (int) be->child_pid);
  g_autofree char *pid = g_strdup_printf ("%d", (int) be->child_pid);
  g_autofree char *userns_arg = g_strdup_printf ("--userns-path=/proc/self/fd/%d",
                                                 SLIRP_FD_USERNS);
  g_autofree char *ready_arg = g_strdup_printf ("--ready-fd=%d", SLIRP_FD_READY);
  g_autofree char *exit_arg = g_strdup_printf ("--exit-fd=%d", SLIRP_FD_EXIT);
  /* It parses every packet the sandbox sends: confined as Podman runs it,
   * in a mount namespace of its own that sees /etc and /run only, with
   * its capabilities dropped and a seccomp filter. */
  const char *argv[] = { self->slirp4netns, "--configure", "--mtu=65520",
                         "--disable-host-loopback", "--enable-sandbox", "--enable-seccomp",
                         userns_arg, ready_arg, exit_arg, pid, "tap0", NULL };
  int userns, ready_pipe[2], exit_pipe[2];

  /* With --disable-userns the command's user namespace is a child of the
   * one that owns the network namespace: slirp4netns must join the parent. */
  userns = open (ns_path, O_RDONLY | O_CLOEXEC);
  if (userns >= 0 && self->has_disable_userns)
    {
      int parent = ioctl (userns, NS_GET_PARENT);

      close (userns);
      userns = parent;
    }
  if (userns < 0)
    {
      int saved = errno;

      g_set_error (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_FAILED,
                   _("Could not reach the sandbox’s namespaces: %s"), g_strerror (saved));
      return FALSE;
    }
  if (!g_unix_open_pipe (ready_pipe, FD_CLOEXEC, error))
    {
      close (userns);
      return FALSE;
    }
  if (!g_unix_open_pipe (exit_pipe, FD_CLOEXEC, error))
    {
      close (userns);
      close (ready_pipe[0]);
      close (ready_pipe[1]);
      return FALSE;
    }

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_INHERIT |
                                        G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                        G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_subprocess_launcher_take_fd (launcher, userns, SLIRP_FD_USERNS);
  g_subprocess_launcher_take_fd (launcher, ready_pipe[1], SLIRP_FD_READY);
  g_subprocess_launcher_take_fd (launcher, exit_pipe[0], SLIRP_FD_EXIT);
  be->slirp_exit_fd = exit_pipe[1];
  ready = g_unix_input_stream_new (ready_pipe[0], TRUE);

  be->slirp = g_subprocess_launcher_spawnv (launcher, argv, error);
  g_clear_object (&launcher);  /* closes the child's ends here */
  if (be->slirp == NULL)
    return FALSE;
  g_input_stream_read_bytes_async (ready, 1, G_PRIORITY_DEFAULT, be->setup_cancellable,
                                   slirp_ready_cb, g_object_ref (task));
  return TRUE;
}

static gboolean
parse_info (BwrapExec *be)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;
  JsonObject *object;

  if (!json_parser_load_from_data (parser, be->info->str, be->info->len, NULL))
    return FALSE;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return FALSE;
  object = json_node_get_object (root);
  be->child_pid = (GPid) warden_json_get_int (object, "child-pid", 0);
  return be->child_pid > 0;
}

static void
info_read_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WardenBwrapSandbox *self = g_task_get_source_object (task);
  BwrapExec *be = g_task_get_task_data (task);
  const WardenSandboxConfig *config = warden_sandbox_get_config (WARDEN_SANDBOX (self));
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result,
                                                              NULL);
  g_autoptr(GError) error = NULL;

  if (be->done || g_cancellable_is_cancelled (be->setup_cancellable))
    return;
  if (bytes != NULL && g_bytes_get_size (bytes) > 0)
    {
      g_string_append_len (be->info, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
      /* bwrap writes one JSON object; read on until it is whole. */
      if (!parse_info (be))
        {
          g_input_stream_read_bytes_async (G_INPUT_STREAM (object), 4096, G_PRIORITY_DEFAULT,
                                           be->setup_cancellable, info_read_cb,
                                           g_steal_pointer (&task));
          return;
        }
    }
  else if (!parse_info (be))
    {
      /* bwrap failed before the sandbox was made: its exit says why. */
      return;
    }

  if (config->network == WARDEN_NETWORK_OPEN)
    {
      if (!start_network (task, &error))
        bwrap_exec_fail (task, g_steal_pointer (&error));
      return;
    }
  start_command (task);
}

typedef struct
{
  WardenCgroup *cgroup;   /* or NULL */
  pid_t         parent;   /* Warden */
} ChildSetup;

/* In the child, before bwrap runs. bwrap's --die-with-parent comes late:
 * only after it made the sandbox's first process, and a Warden killed
 * before that (6 in 30 kill -9s during a start) left bwrap and the command
 * running. The parent-death signal set here holds across the exec (bwrap is
 * not set-user-ID); a parent already gone is seen at once. */
static void
child_setup (gpointer user_data)
{
  ChildSetup *setup = user_data;

  if (setup->cgroup != NULL)
    warden_cgroup_enter_child (setup->cgroup);
  if (prctl (PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid () != setup->parent)
    _exit (127);
}

/* The exec guard's helper, when @request is guarded, and the relay to
 * Warden's proxy, when the config has one and no open network: the same
 * program, on the host (*@guard, *@relay; else NULL). */
static gboolean
find_helpers (WardenBwrapSandbox       *self,
              const WardenExecRequest  *request,
              const char              **guard,
              const char              **relay,
              GError                  **error)
{
  const WardenSandboxConfig *config = warden_sandbox_get_config (WARDEN_SANDBOX (self));

  /* Every program the command starts is checked: the helper starts it. */
  if (request->guard_func != NULL)
    {
      *guard = warden_guard_get_helper_path ();
      if (*guard == NULL)
        {
          g_set_error (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_UNAVAILABLE,
                       _("The exec guard’s helper (warden-guard) is not installed: "
                         "programs this command starts could not be checked, so it "
                         "did not run"));
          return FALSE;
        }
      if (self->seccomp_guard == NULL &&
          (self->seccomp_guard = warden_seccomp_build_filter (TRUE, error)) == NULL)
        return FALSE;
    }

  /* The way out through Warden's proxy: the helper relays to it. */
  if (config->proxy_socket != NULL && config->network != WARDEN_NETWORK_OPEN)
    {
      *relay = warden_guard_get_helper_path ();
      if (*relay == NULL)
        {
          g_set_error (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_UNAVAILABLE,
                       _("The helper that carries the sandbox’s connections to the "
                         "network proxy (warden-guard) is not installed: turn the "
                         "network to “none” or “open” in the profile"));
          return FALSE;
        }
    }
  return TRUE;
}

/* bwrap clears the environment; systemd-run needs to find the user's
 * manager first. */
static GStrv
launch_environ (WardenBwrapSandbox *self)
{
  GStrv env = g_environ_setenv (NULL, "PATH", WARDEN_SANDBOX_PATH, TRUE);

  if (self->limits == LIMITS_SYSTEMD)
    {
      const char *keep[] = { "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS" };

      for (guint i = 0; i < G_N_ELEMENTS (keep); i++)
        if (g_getenv (keep[i]) != NULL)
          env = g_environ_setenv (env, keep[i], g_getenv (keep[i]), TRUE);
    }
  return env;
}

/* The descriptors the child gets, into @b: the seccomp filter (the exec
 * guard's when @guarded), the sandbox's resolv.conf with network, bwrap's
 * info and block pipes and the exec guard's socket. Ours: *@info, the read
 * end of the info pipe; *@block_fd, the write end of the block pipe;
 * *@guard, the exec guard when @guarded. */
static gboolean
add_fds (WardenBwrapSandbox       *self,
         WardenBwrap              *b,
         const WardenExecRequest  *request,
         gboolean                  guarded,
         GInputStream            **info,
         int                      *block_fd,
         WardenExecGuard         **guard,
         GError                  **error)
{
  const WardenSandboxConfig *config = warden_sandbox_get_config (WARDEN_SANDBOX (self));
  int info_pipe[2], block_pipe[2], guard_fd;

  if (!warden_bwrap_add_data_fd (b, guarded ? self->seccomp_guard : self->seccomp, FD_SECCOMP,
                                 error))
    return FALSE;
  if (config->network == WARDEN_NETWORK_OPEN)
    {
      g_autoptr(GBytes) resolv = g_bytes_new_static (SANDBOX_RESOLV_CONF,
                                                     strlen (SANDBOX_RESOLV_CONF));

      if (!warden_bwrap_add_data_fd (b, resolv, FD_RESOLV, error))
        return FALSE;
    }
  if (!g_unix_open_pipe (info_pipe, FD_CLOEXEC, error))
    return FALSE;
  *info = g_unix_input_stream_new (info_pipe[0], TRUE);
  warden_bwrap_add_fd (b, info_pipe[1], FD_INFO);
  if (!g_unix_open_pipe (block_pipe, FD_CLOEXEC, error))
    return FALSE;
  *block_fd = block_pipe[1];
  warden_bwrap_add_fd (b, block_pipe[0], FD_BLOCK);
  if (guarded)
    {
      *guard = warden_exec_guard_new (request->guard_func, request->guard_data, &guard_fd, error);
      if (*guard == NULL)
        return FALSE;
      warden_bwrap_add_fd (b, guard_fd, FD_GUARD);
    }
  return TRUE;
}

static void
warden_bwrap_sandbox_exec_async (WardenSandbox           *sandbox,
                                 const WardenExecRequest *request,
                                 GCancellable            *cancellable,
                                 GAsyncReadyCallback      callback,
                                 gpointer                 user_data)
{
  WardenBwrapSandbox *self = WARDEN_BWRAP_SANDBOX (sandbox);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(WardenBwrap) b = NULL;
  g_auto(GStrv) argv = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GInputStream) info = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) env = NULL;
  g_auto(GStrv) launch_env = NULL;
  BwrapExec *be;
  ChildSetup setup;
  WardenExecGuard *guard = NULL;
  const char *guard_path = NULL;
  const char *relay_path = NULL;

  g_task_set_source_tag (task, warden_bwrap_sandbox_exec_async);
  if (!self->prepared)
    {
      g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_NOT_PREPARED,
                               _("The sandbox is not ready: prepare it first"));
      return;
    }
  if (request->cwd != NULL && request->cwd[0] != '/')
    {
      g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_FAILED,
                               _("The working directory “%s” must be an absolute path inside "
                                 "the sandbox"), request->cwd);
      return;
    }

  be = g_new0 (BwrapExec, 1);
  be->block_fd = -1;
  be->slirp_exit_fd = -1;
  be->info = g_string_new (NULL);
  be->setup_cancellable = g_cancellable_new ();
  g_task_set_task_data (task, be, bwrap_exec_free);

  if (self->limits == LIMITS_CGROUP)
    {
      be->cgroup = warden_cgroup_new (warden_sandbox_get_pids_limit (sandbox),
                                      warden_sandbox_get_memory_limit (sandbox), &error);
      if (be->cgroup == NULL)
        {
          g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_FAILED,
                                   _("Could not limit the sandbox’s processes: %s"),
                                   error->message);
          return;
        }
      /* Nothing in the group outlives Warden, killed or not. */
      be->cgroup_watch = warden_cgroup_watch (be->cgroup, &error);
      if (be->cgroup_watch == NULL)
        {
          g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_FAILED,
                                   _("Could not watch the sandbox’s processes: %s"),
                                   error->message);
          return;
        }
    }

  if (!find_helpers (self, request, &guard_path, &relay_path, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  /* From here each descriptor the child gets is the builder's: closed
   * with it on every way out. */
  b = warden_bwrap_new ();
  if (!add_fds (self, b, request, guard_path != NULL, &info, &be->block_fd, &guard, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  env = warden_sandbox_build_env (sandbox, "/tmp", request);
  add_args (self, b, request, (const char * const *) env, guard != NULL ? guard_path : NULL,
            relay_path);
  argv = warden_bwrap_finish (b);

  launch_env = launch_environ (self);
  launcher = warden_local_exec_launcher_new ((const char * const *) launch_env, NULL, FALSE);
  warden_bwrap_hand_fds (b, launcher);
  setup.cgroup = be->cgroup;
  setup.parent = getpid ();
  g_subprocess_launcher_set_child_setup (launcher, child_setup, &setup, NULL);

  be->bwrap = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv, &error);
  g_clear_object (&launcher);  /* closes the child's ends here */
  if (be->bwrap == NULL)
    {
      warden_exec_guard_free (guard);
      g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_FAILED,
                               _("Could not start %s: %s"), argv[0], error->message);
      return;
    }

  warden_local_exec_run_async (be->bwrap, FALSE, g_steal_pointer (&guard), request, cancellable,
                               bwrap_exec_done_cb, g_object_ref (task));
  g_input_stream_read_bytes_async (info, 4096, G_PRIORITY_DEFAULT, be->setup_cancellable,
                                   info_read_cb, g_object_ref (task));
}

/* ------------------------------------------------------------------------ */
/* prepare */

static void probe (GTask *task);

static void
probe_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WardenBwrapSandbox *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenExecResult) res = warden_sandbox_exec_finish (WARDEN_SANDBOX (self), result,
                                                                &error);

  if (res != NULL && res->exit_code != 0 && self->limits == LIMITS_SYSTEMD)
    {
      /* The user's manager refused the scope: bound the command another way. */
      g_debug ("systemd-run failed (%s); limiting bwrap without it",
               g_strstrip (res->stderr_text));
      self->limits = warden_cgroup_supported () ? LIMITS_CGROUP : LIMITS_RLIMIT;
      probe (g_steal_pointer (&task));
      return;
    }
  if (res == NULL)
    {
      self->prepared = FALSE;
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (res->exit_code != 0)
    {
      /* bwrap says why: no user namespaces, a missing workspace… */
      self->prepared = FALSE;
      g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_UNAVAILABLE,
                               _("bubblewrap cannot make a sandbox here: %s"),
                               g_strstrip (res->stderr_text));
      return;
    }

  if (self->limits == LIMITS_RLIMIT && getuid () == 0)
    g_message ("The bwrap sandbox runs as root without a cgroup of its own: its process "
               "count is not limited");
  warden_sandbox_finish_prepare (WARDEN_SANDBOX (self), task);
}

/* A first command tells whether bwrap works here at all. */
static void
probe (GTask *task)
{
  WardenBwrapSandbox *self = g_task_get_source_object (task);
  WardenExecRequest request = { .command = "true", .timeout_ms = 30000 };

  self->prepared = TRUE;
  warden_sandbox_exec_async (WARDEN_SANDBOX (self), &request, g_task_get_cancellable (task),
                             probe_cb, task);
}

static void
help_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WardenBwrapSandbox *self = g_task_get_source_object (task);
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;

  if (!g_subprocess_communicate_utf8_finish (G_SUBPROCESS (object), result, &out, NULL, &error))
    {
      g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_UNAVAILABLE,
                               _("bubblewrap does not run: %s"), error->message);
      return;
    }
  /* Options of bwrap 0.8 (Debian 12 has it) and 0.5. */
  self->has_disable_userns = out != NULL && strstr (out, "--disable-userns") != NULL;
  self->has_size = out != NULL && strstr (out, "--size") != NULL;
  probe (g_steal_pointer (&task));
}

static LimitsMethod
choose_limits (WardenBwrapSandbox *self)
{
  g_autofree char *manager = g_build_filename (g_get_user_runtime_dir (), "systemd", "private",
                                               NULL);

  g_clear_pointer (&self->systemd_run, g_free);
  self->systemd_run = g_find_program_in_path ("systemd-run");
  if (self->systemd_run != NULL && g_file_test (manager, G_FILE_TEST_EXISTS))
    return LIMITS_SYSTEMD;
  if (warden_cgroup_supported ())
    return LIMITS_CGROUP;
  return LIMITS_RLIMIT;
}

static void
warden_bwrap_sandbox_prepare_async (WardenSandbox       *sandbox,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  WardenBwrapSandbox *self = WARDEN_BWRAP_SANDBOX (sandbox);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  const WardenSandboxConfig *config = warden_sandbox_get_config (sandbox);
  g_autoptr(GSubprocess) help = NULL;
  g_autoptr(GError) error = NULL;

  g_task_set_source_tag (task, warden_bwrap_sandbox_prepare_async);

  g_free (self->bwrap);
  self->bwrap = g_find_program_in_path ("bwrap");
  if (self->bwrap == NULL)
    {
      g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_UNAVAILABLE,
                               _("bubblewrap is not installed: install the “bubblewrap” "
                                 "package, or use the Docker backend"));
      return;
    }
  if (config->workspace == NULL || !g_file_test (config->workspace, G_FILE_TEST_IS_DIR))
    {
      g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_FAILED,
                               _("The workspace “%s” is not a folder"),
                               config->workspace ? config->workspace : "");
      return;
    }
  if (!warden_sandbox_check_workspace (sandbox, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_free (self->slirp4netns);
  self->slirp4netns = g_find_program_in_path ("slirp4netns");
  if (config->network == WARDEN_NETWORK_OPEN && self->slirp4netns == NULL)
    {
      /* Never the host's own network namespace: its abstract sockets are
       * the X server, the session bus… */
      g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_UNAVAILABLE,
                               _("Network in the bubblewrap sandbox needs slirp4netns: install "
                                 "the “slirp4netns” package, or turn the network off"));
      return;
    }
  if (self->seccomp == NULL)
    {
      self->seccomp = warden_seccomp_build_filter (FALSE, &error);
      if (self->seccomp == NULL)
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
    }
  self->limits = choose_limits (self);

  help = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_MERGE,
                           &error, self->bwrap, "--help", NULL);
  if (help == NULL)
    {
      g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_UNAVAILABLE,
                               _("bubblewrap does not run: %s"), error->message);
      return;
    }
  g_subprocess_communicate_utf8_async (help, NULL, cancellable, help_cb, g_steal_pointer (&task));
}

static void
warden_bwrap_sandbox_destroy_async (WardenSandbox       *sandbox,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  WardenBwrapSandbox *self = WARDEN_BWRAP_SANDBOX (sandbox);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  /* Nothing outlives a command: each ran in namespaces that died with it,
   * and its slirp4netns and cgroup went with it. */
  g_task_set_source_tag (task, warden_bwrap_sandbox_destroy_async);
  self->prepared = FALSE;
  g_task_return_boolean (task, TRUE);
}

static const char *
warden_bwrap_sandbox_get_guard_unavailable (WardenSandbox *sandbox)
{
  if (warden_guard_get_helper_path () == NULL)
    return _("the exec guard’s helper (warden-guard) is not installed");
  return NULL;
}

static void
warden_bwrap_sandbox_finalize (GObject *object)
{
  WardenBwrapSandbox *self = WARDEN_BWRAP_SANDBOX (object);

  g_free (self->bwrap);
  g_free (self->slirp4netns);
  g_free (self->systemd_run);
  g_clear_pointer (&self->seccomp, g_bytes_unref);
  g_clear_pointer (&self->seccomp_guard, g_bytes_unref);
  G_OBJECT_CLASS (warden_bwrap_sandbox_parent_class)->finalize (object);
}

static void
warden_bwrap_sandbox_class_init (WardenBwrapSandboxClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  WardenSandboxClass *sandbox_class = WARDEN_SANDBOX_CLASS (klass);

  object_class->finalize = warden_bwrap_sandbox_finalize;
  sandbox_class->prepare_async = warden_bwrap_sandbox_prepare_async;
  sandbox_class->exec_async = warden_bwrap_sandbox_exec_async;
  sandbox_class->destroy_async = warden_bwrap_sandbox_destroy_async;
  sandbox_class->get_guard_unavailable = warden_bwrap_sandbox_get_guard_unavailable;
}

static void
warden_bwrap_sandbox_init (WardenBwrapSandbox *self)
{
}

WardenSandbox *
warden_bwrap_sandbox_new (const WardenSandboxConfig *config)
{
  return g_object_new (WARDEN_TYPE_BWRAP_SANDBOX,
                       "config", config,
                       "kind", WARDEN_SANDBOX_KIND_BWRAP,
                       "confined", TRUE,
                       NULL);
}
