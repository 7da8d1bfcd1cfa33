/* warden-bwrap-sandbox.c: commands in a bubblewrap sandbox, no daemon needed
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-sandbox"

#include <glib/gi18n.h>

#include "warden-bwrap-sandbox.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "warden-sandbox-private.h"

struct _WardenBwrapSandbox
{
  WardenSandbox parent_instance;
  char         *bwrap;
  gboolean      prepared;
};

G_DEFINE_FINAL_TYPE (WardenBwrapSandbox, warden_bwrap_sandbox, WARDEN_TYPE_SANDBOX)

/* The usual /bin, /lib… links into /usr, as the host has them. */
static const char *root_links[] = { "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", NULL };

/* What a program needs of /etc to run; with network also name resolution
 * and certificates. */
static const char *etc_files[] = { "/etc/passwd", "/etc/group", "/etc/alternatives",
                                   "/etc/ld.so.cache", "/etc/localtime", "/etc/nsswitch.conf",
                                   NULL };
static const char *etc_network_files[] = { "/etc/hosts", "/etc/resolv.conf", "/etc/ssl",
                                           "/etc/ca-certificates", "/etc/pki", NULL };

static GPtrArray *
build_argv (WardenBwrapSandbox      *self,
            const WardenExecRequest *request,
            const char * const      *env)
{
  WardenSandbox *sandbox = WARDEN_SANDBOX (self);
  const WardenSandboxConfig *config = warden_sandbox_get_config (sandbox);
  const char *inside = warden_sandbox_get_workspace_inside (sandbox);
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);

#define ADD(s) g_ptr_array_add (argv, g_strdup (s))
  ADD (self->bwrap);
  ADD ("--die-with-parent");
  ADD ("--new-session");
  ADD ("--unshare-all");
  if (config->network)
    ADD ("--share-net");

  ADD ("--ro-bind"); ADD ("/usr"); ADD ("/usr");
  for (guint i = 0; root_links[i]; i++)
    {
      struct stat st;

      if (lstat (root_links[i], &st) != 0)
        continue;
      if (S_ISLNK (st.st_mode))
        {
          g_autofree char *target = g_file_read_link (root_links[i], NULL);

          if (target != NULL)
            {
              ADD ("--symlink"); ADD (target); ADD (root_links[i]);
            }
        }
      else if (S_ISDIR (st.st_mode))
        {
          ADD ("--ro-bind"); ADD (root_links[i]); ADD (root_links[i]);
        }
    }

  ADD ("--proc"); ADD ("/proc");
  ADD ("--dev"); ADD ("/dev");
  ADD ("--tmpfs"); ADD ("/tmp");
  ADD ("--dir"); ADD ("/etc");
  for (guint i = 0; etc_files[i]; i++)
    {
      ADD ("--ro-bind-try"); ADD (etc_files[i]); ADD (etc_files[i]);
    }
  if (config->network)
    for (guint i = 0; etc_network_files[i]; i++)
      {
        ADD ("--ro-bind-try"); ADD (etc_network_files[i]); ADD (etc_network_files[i]);
      }

  ADD ("--bind"); ADD (config->workspace); ADD (inside);
  ADD ("--chdir"); ADD (request->cwd ? request->cwd : inside);

  ADD ("--clearenv");
  for (guint i = 0; env[i]; i++)
    {
      const char *eq = strchr (env[i], '=');

      if (eq == NULL)
        continue;
      ADD ("--setenv");
      g_ptr_array_add (argv, g_strndup (env[i], eq - env[i]));
      ADD (eq + 1);
    }

  /* Last: everything above is mounted, now nothing else can be. */
  ADD ("--remount-ro"); ADD ("/");
  ADD ("--");
  ADD ("/bin/sh"); ADD ("-c"); ADD (request->command);
#undef ADD

  g_ptr_array_add (argv, NULL);
  return argv;
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
  g_autoptr(GPtrArray) argv = NULL;
  g_auto(GStrv) env = NULL;
  const char *bwrap_env[] = { "PATH=" WARDEN_SANDBOX_PATH, NULL };

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

  env = warden_sandbox_build_env (sandbox, "/tmp", request);
  argv = build_argv (self, request, (const char * const *) env);
  warden_local_exec_async ((const char * const *) argv->pdata, bwrap_env, NULL, FALSE, request,
                           cancellable, warden_local_exec_forward_cb, g_steal_pointer (&task));
}

static WardenExecResult *
warden_bwrap_sandbox_exec_finish (WardenSandbox  *sandbox,
                                  GAsyncResult   *result,
                                  GError        **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

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

  warden_sandbox_finish_prepare (WARDEN_SANDBOX (self), task);
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
  WardenExecRequest probe = { .command = "true", .timeout_ms = 30000 };

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

  /* A first command tells whether bwrap works here at all. */
  self->prepared = TRUE;
  warden_sandbox_exec_async (sandbox, &probe, cancellable, probe_cb, g_steal_pointer (&task));
}

static gboolean
warden_bwrap_sandbox_prepare_finish (WardenSandbox  *sandbox,
                                     GAsyncResult   *result,
                                     GError        **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
warden_bwrap_sandbox_destroy_async (WardenSandbox       *sandbox,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  WardenBwrapSandbox *self = WARDEN_BWRAP_SANDBOX (sandbox);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  /* Nothing outlives a command: each ran in namespaces that died with it. */
  g_task_set_source_tag (task, warden_bwrap_sandbox_destroy_async);
  self->prepared = FALSE;
  g_task_return_boolean (task, TRUE);
}

static gboolean
warden_bwrap_sandbox_destroy_finish (WardenSandbox  *sandbox,
                                     GAsyncResult   *result,
                                     GError        **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
warden_bwrap_sandbox_finalize (GObject *object)
{
  WardenBwrapSandbox *self = WARDEN_BWRAP_SANDBOX (object);

  g_free (self->bwrap);
  G_OBJECT_CLASS (warden_bwrap_sandbox_parent_class)->finalize (object);
}

static void
warden_bwrap_sandbox_class_init (WardenBwrapSandboxClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  WardenSandboxClass *sandbox_class = WARDEN_SANDBOX_CLASS (klass);

  object_class->finalize = warden_bwrap_sandbox_finalize;
  sandbox_class->prepare_async = warden_bwrap_sandbox_prepare_async;
  sandbox_class->prepare_finish = warden_bwrap_sandbox_prepare_finish;
  sandbox_class->exec_async = warden_bwrap_sandbox_exec_async;
  sandbox_class->exec_finish = warden_bwrap_sandbox_exec_finish;
  sandbox_class->destroy_async = warden_bwrap_sandbox_destroy_async;
  sandbox_class->destroy_finish = warden_bwrap_sandbox_destroy_finish;
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
                       "backend-name", "bwrap",
                       "confined", TRUE,
                       NULL);
}
