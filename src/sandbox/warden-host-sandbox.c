/* warden-host-sandbox.c: commands on this machine, with no isolation
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-sandbox"

#include <glib/gi18n.h>

#include "warden-host-sandbox.h"

#include "warden-sandbox-private.h"

/* For users who choose it: the policy still decides what runs, but what
 * runs can do anything the user can. warden_sandbox_get_confined() says so. */
struct _WardenHostSandbox
{
  WardenSandbox parent_instance;
  gboolean      prepared;
};

G_DEFINE_FINAL_TYPE (WardenHostSandbox, warden_host_sandbox, WARDEN_TYPE_SANDBOX)

static void
warden_host_sandbox_exec_async (WardenSandbox           *sandbox,
                                const WardenExecRequest *request,
                                GCancellable            *cancellable,
                                GAsyncReadyCallback      callback,
                                gpointer                 user_data)
{
  WardenHostSandbox *self = WARDEN_HOST_SANDBOX (sandbox);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_auto(GStrv) env = NULL;
  const char *argv[] = { "/bin/sh", "-c", request->command, NULL };

  g_task_set_source_tag (task, warden_host_sandbox_exec_async);
  if (!self->prepared)
    {
      g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_NOT_PREPARED,
                               _("The sandbox is not ready: prepare it first"));
      return;
    }

  env = warden_sandbox_build_env (sandbox, g_get_home_dir (), request);
  /* Its own session, so a timeout kills everything the command started. */
  warden_local_exec_async (argv, (const char * const *) env,
                           request->cwd ? request->cwd : warden_sandbox_get_workspace (sandbox),
                           TRUE, request, cancellable, warden_local_exec_forward_cb,
                           g_steal_pointer (&task));
}

static void
warden_host_sandbox_prepare_async (WardenSandbox       *sandbox,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  WardenHostSandbox *self = WARDEN_HOST_SANDBOX (sandbox);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  const char *workspace = warden_sandbox_get_workspace (sandbox);

  g_task_set_source_tag (task, warden_host_sandbox_prepare_async);
  if (workspace == NULL || !g_file_test (workspace, G_FILE_TEST_IS_DIR))
    {
      g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_FAILED,
                               _("The workspace “%s” is not a folder"),
                               workspace ? workspace : "");
      return;
    }
  self->prepared = TRUE;
  warden_sandbox_finish_prepare (sandbox, task);
}

static void
warden_host_sandbox_destroy_async (WardenSandbox       *sandbox,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  WardenHostSandbox *self = WARDEN_HOST_SANDBOX (sandbox);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, warden_host_sandbox_destroy_async);
  self->prepared = FALSE;
  g_task_return_boolean (task, TRUE);
}

static const char *
warden_host_sandbox_get_guard_unavailable (WardenSandbox *sandbox)
{
  if (warden_guard_get_helper_path () == NULL)
    return _("the exec guard’s helper (warden-guard) is not installed");
  return NULL;
}

static void
warden_host_sandbox_class_init (WardenHostSandboxClass *klass)
{
  WardenSandboxClass *sandbox_class = WARDEN_SANDBOX_CLASS (klass);

  sandbox_class->prepare_async = warden_host_sandbox_prepare_async;
  sandbox_class->exec_async = warden_host_sandbox_exec_async;
  sandbox_class->destroy_async = warden_host_sandbox_destroy_async;
  sandbox_class->get_guard_unavailable = warden_host_sandbox_get_guard_unavailable;
}

static void
warden_host_sandbox_init (WardenHostSandbox *self)
{
}

WardenSandbox *
warden_host_sandbox_new (const WardenSandboxConfig *config)
{
  g_autoptr(WardenSandboxConfig) copy = warden_sandbox_config_copy (config);

  /* Commands see the workspace where it is. */
  g_free (copy->workspace_inside);
  copy->workspace_inside = g_strdup (copy->workspace);
  return g_object_new (WARDEN_TYPE_HOST_SANDBOX,
                       "config", copy,
                       "kind", WARDEN_SANDBOX_KIND_HOST,
                       "confined", FALSE,
                       NULL);
}
