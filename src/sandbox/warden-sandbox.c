/* warden-sandbox.c: where the agent's commands run
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-sandbox"

#include <glib/gi18n.h>

#include "warden-sandbox-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "common/warden-sandbox-paths.h"
#include "policy/warden-protected-path.h"
#include "warden-bwrap-sandbox.h"
#include "warden-docker-sandbox.h"
#include "warden-git-doors.h"
#include "warden-host-sandbox.h"
#include "warden-output-collector.h"
#include "workspace/warden-workspace-check.h"

typedef struct
{
  WardenSandboxConfig *config;
  WardenSandboxKind    kind;
  gboolean             confined;
  WardenGitDoors      *git_doors;   /* confined only; made by the first exec */
  WardenGitSnapshot   *git_baseline; /* the doors as the last command left them */
  guint                git_execs;   /* commands between their two doors checks */
  GPtrArray           *protected_found; /* WardenProtectedPath: the last check's walk */
} WardenSandboxPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (WardenSandbox, warden_sandbox, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_CONFIG,
  PROP_KIND,
  PROP_CONFINED,
  N_PROPS
};

enum
{
  PROGRESS,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_QUARK (warden-sandbox-error-quark, warden_sandbox_error)

/* ------------------------------------------------------------------------ */
/* Plain data */

WardenSandboxConfig *
warden_sandbox_config_new (const char *workspace)
{
  WardenSandboxConfig *config = g_new0 (WardenSandboxConfig, 1);

  config->workspace = g_strdup (workspace);
  config->workspace_inside = g_strdup (WARDEN_SANDBOX_WORKSPACE);
  return config;
}

WardenSandboxConfig *
warden_sandbox_config_copy (const WardenSandboxConfig *config)
{
  WardenSandboxConfig *copy = g_new0 (WardenSandboxConfig, 1);

  *copy = *config;
  copy->workspace = g_strdup (config->workspace);
  copy->workspace_inside = g_strdup (config->workspace_inside);
  copy->image = g_strdup (config->image);
  copy->env = g_strdupv (config->env);
  copy->setup_command = g_strdup (config->setup_command);
  copy->cap_add = g_strdupv (config->cap_add);
  copy->proxy_socket = g_strdup (config->proxy_socket);
  return copy;
}

void
warden_sandbox_config_free (WardenSandboxConfig *config)
{
  if (config == NULL)
    return;
  g_free (config->workspace);
  g_free (config->workspace_inside);
  g_free (config->image);
  g_strfreev (config->env);
  g_free (config->setup_command);
  g_strfreev (config->cap_add);
  g_free (config->proxy_socket);
  g_free (config);
}

G_DEFINE_BOXED_TYPE (WardenSandboxConfig, warden_sandbox_config,
                     warden_sandbox_config_copy, warden_sandbox_config_free)

WardenExecResult *
warden_exec_result_copy (const WardenExecResult *result)
{
  WardenExecResult *copy = g_new0 (WardenExecResult, 1);

  *copy = *result;
  copy->stdout_text = g_strdup (result->stdout_text);
  copy->stderr_text = g_strdup (result->stderr_text);
  return copy;
}

void
warden_exec_result_free (WardenExecResult *result)
{
  if (result == NULL)
    return;
  g_free (result->stdout_text);
  g_free (result->stderr_text);
  g_free (result);
}

G_DEFINE_BOXED_TYPE (WardenExecResult, warden_exec_result,
                     warden_exec_result_copy, warden_exec_result_free)

WardenExecRequest *
warden_exec_request_copy (const WardenExecRequest *request)
{
  WardenExecRequest *copy = g_new0 (WardenExecRequest, 1);

  *copy = *request;
  copy->command = g_strdup (request->command);
  copy->cwd = g_strdup (request->cwd);
  copy->env = (const char * const *) g_strdupv ((char **) request->env);
  copy->stdin_data = request->stdin_data ? g_bytes_ref (request->stdin_data) : NULL;
  if (copy->timeout_ms == 0)
    copy->timeout_ms = WARDEN_EXEC_DEFAULT_TIMEOUT_MS;
  if (copy->max_output == 0)
    copy->max_output = WARDEN_EXEC_DEFAULT_MAX_OUTPUT;
  return copy;
}

void
warden_exec_request_free (WardenExecRequest *request)
{
  if (request == NULL)
    return;
  g_free ((char *) request->command);
  g_free ((char *) request->cwd);
  g_strfreev ((char **) request->env);
  g_clear_pointer (&request->stdin_data, g_bytes_unref);
  g_free (request);
}

/* ------------------------------------------------------------------------ */
/* The class */

static void
warden_sandbox_finalize (GObject *object)
{
  WardenSandbox *self = WARDEN_SANDBOX (object);
  WardenSandboxPrivate *priv = warden_sandbox_get_instance_private (self);

  g_clear_pointer (&priv->config, warden_sandbox_config_free);
  g_clear_pointer (&priv->git_baseline, warden_git_snapshot_free);
  g_clear_pointer (&priv->git_doors, warden_git_doors_free);
  g_clear_pointer (&priv->protected_found, g_ptr_array_unref);

  G_OBJECT_CLASS (warden_sandbox_parent_class)->finalize (object);
}

static void
warden_sandbox_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  WardenSandbox *self = WARDEN_SANDBOX (object);
  WardenSandboxPrivate *priv = warden_sandbox_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_CONFIG:
      g_value_set_boxed (value, priv->config);
      break;
    case PROP_KIND:
      g_value_set_enum (value, priv->kind);
      break;
    case PROP_CONFINED:
      g_value_set_boolean (value, priv->confined);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
warden_sandbox_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  WardenSandbox *self = WARDEN_SANDBOX (object);
  WardenSandboxPrivate *priv = warden_sandbox_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_CONFIG:
      priv->config = g_value_dup_boxed (value);
      break;
    case PROP_KIND:
      priv->kind = g_value_get_enum (value);
      break;
    case PROP_CONFINED:
      priv->confined = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* The backends return through a GTask of their own. */
static gboolean
warden_sandbox_real_boolean_finish (WardenSandbox  *self,
                                    GAsyncResult   *result,
                                    GError        **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

static WardenExecResult *
warden_sandbox_real_exec_finish (WardenSandbox  *self,
                                 GAsyncResult   *result,
                                 GError        **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
warden_sandbox_class_init (WardenSandboxClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = warden_sandbox_finalize;
  object_class->get_property = warden_sandbox_get_property;
  object_class->set_property = warden_sandbox_set_property;
  klass->prepare_finish = warden_sandbox_real_boolean_finish;
  klass->exec_finish = warden_sandbox_real_exec_finish;
  klass->destroy_finish = warden_sandbox_real_boolean_finish;

  properties[PROP_CONFIG] =
    g_param_spec_boxed ("config", NULL, NULL, WARDEN_TYPE_SANDBOX_CONFIG,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /* Set by each backend: never WARDEN_SANDBOX_KIND_AUTO. */
  properties[PROP_KIND] =
    g_param_spec_enum ("kind", NULL, NULL, WARDEN_TYPE_SANDBOX_KIND, WARDEN_SANDBOX_KIND_BWRAP,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /* FALSE only for the host backend: every caller can see that. */
  properties[PROP_CONFINED] =
    g_param_spec_boolean ("confined", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[PROGRESS] =
    g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_DOUBLE, G_TYPE_STRING);
}

static void
warden_sandbox_init (WardenSandbox *self)
{
}

void
warden_sandbox_emit_progress (WardenSandbox *self,
                              double         fraction,
                              const char    *message)
{
  g_signal_emit (self, signals[PROGRESS], 0, fraction, message);
}

const WardenSandboxConfig *
warden_sandbox_get_config (WardenSandbox *self)
{
  WardenSandboxPrivate *priv = warden_sandbox_get_instance_private (self);

  return priv->config;
}

WardenSandboxKind
warden_sandbox_get_kind (WardenSandbox *self)
{
  WardenSandboxPrivate *priv = warden_sandbox_get_instance_private (self);

  return priv->kind;
}

WardenSandbox *
warden_sandbox_new_for_kind (WardenSandboxKind          kind,
                             const WardenSandboxConfig *config)
{
  g_return_val_if_fail (config != NULL, NULL);

  switch (kind)
    {
    case WARDEN_SANDBOX_KIND_DOCKER:
      return warden_docker_sandbox_new (config);
    case WARDEN_SANDBOX_KIND_BWRAP:
      return warden_bwrap_sandbox_new (config);
    case WARDEN_SANDBOX_KIND_HOST:
      return warden_host_sandbox_new (config);
    case WARDEN_SANDBOX_KIND_AUTO:
    default:
      g_return_val_if_reached (NULL);
    }
}

gboolean
warden_sandbox_get_confined (WardenSandbox *self)
{
  WardenSandboxPrivate *priv = warden_sandbox_get_instance_private (self);

  return priv->confined;
}

const char *
warden_sandbox_get_workspace (WardenSandbox *self)
{
  return warden_sandbox_get_config (self)->workspace;
}

const char *
warden_sandbox_get_workspace_inside (WardenSandbox *self)
{
  const WardenSandboxConfig *config = warden_sandbox_get_config (self);

  return config->workspace_inside ? config->workspace_inside : WARDEN_SANDBOX_WORKSPACE;
}

const char *
warden_sandbox_get_container_id (WardenSandbox *self)
{
  WardenSandboxClass *klass = WARDEN_SANDBOX_GET_CLASS (self);

  return klass->get_container_id ? klass->get_container_id (self) : NULL;
}

const char *
warden_sandbox_get_guard_unavailable (WardenSandbox *self)
{
  WardenSandboxClass *klass = WARDEN_SANDBOX_GET_CLASS (self);

  if (klass->get_guard_unavailable == NULL)
    return _("this sandbox has no exec guard");
  return klass->get_guard_unavailable (self);
}

char *
warden_sandbox_dup_engine_description (WardenSandbox *self)
{
  WardenSandboxClass *klass;

  g_return_val_if_fail (WARDEN_IS_SANDBOX (self), NULL);

  klass = WARDEN_SANDBOX_GET_CLASS (self);
  return klass->dup_engine_description ? klass->dup_engine_description (self) : NULL;
}

const char *
warden_sandbox_get_image (WardenSandbox *self)
{
  return warden_sandbox_get_config (self)->image;
}

GStrv
warden_sandbox_build_env (WardenSandbox           *self,
                          const char              *home,
                          const WardenExecRequest *request)
{
  const WardenSandboxConfig *config = warden_sandbox_get_config (self);
  g_auto(GStrv) env = NULL;

  env = g_environ_setenv (env, "PATH", WARDEN_SANDBOX_PATH, TRUE);
  env = g_environ_setenv (env, "HOME", home, TRUE);
  env = g_environ_setenv (env, "LANG", "C.UTF-8", TRUE);
  env = g_environ_setenv (env, "TERM", "xterm-256color", TRUE);
  /* The way out, where there is one: curl, git, pip and npm take these.
   * A program that ignores them finds no route and no resolver. */
  if (config->proxy_socket != NULL && config->network != WARDEN_NETWORK_OPEN)
    {
      g_autofree char *http = g_strdup_printf ("http://127.0.0.1:%d", WARDEN_SANDBOX_PROXY_PORT);
      g_autofree char *socks = g_strdup_printf ("socks5h://127.0.0.1:%d",
                                                WARDEN_SANDBOX_PROXY_PORT);
      const char *names[] = { "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY" };

      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        env = g_environ_setenv (env, names[i], http, TRUE);
      env = g_environ_setenv (env, "all_proxy", socks, TRUE);
      env = g_environ_setenv (env, "ALL_PROXY", socks, TRUE);
      env = g_environ_setenv (env, "no_proxy", "localhost,127.0.0.1,::1", TRUE);
      env = g_environ_setenv (env, "NO_PROXY", "localhost,127.0.0.1,::1", TRUE);
    }
  for (guint i = 0; config->env && config->env[i]; i++)
    {
      g_auto(GStrv) kv = g_strsplit (config->env[i], "=", 2);

      if (kv[0] && kv[1])
        env = g_environ_setenv (env, kv[0], kv[1], TRUE);
    }
  for (guint i = 0; request && request->env && request->env[i]; i++)
    {
      g_auto(GStrv) kv = g_strsplit (request->env[i], "=", 2);

      if (kv[0] && kv[1])
        env = g_environ_setenv (env, kv[0], kv[1], TRUE);
    }
  /* The policy checked the command as sh -c runs it; these would run more. */
  env = g_environ_unsetenv (env, "BASH_ENV");
  env = g_environ_unsetenv (env, "ENV");
  return g_steal_pointer (&env);
}

guint64
warden_sandbox_get_memory_limit (WardenSandbox *self)
{
  const WardenSandboxConfig *config = warden_sandbox_get_config (self);

  return config->memory_bytes ? config->memory_bytes : WARDEN_SANDBOX_DEFAULT_MEMORY;
}

guint
warden_sandbox_get_pids_limit (WardenSandbox *self)
{
  const WardenSandboxConfig *config = warden_sandbox_get_config (self);

  return config->pids_limit ? config->pids_limit : WARDEN_SANDBOX_DEFAULT_PIDS;
}

guint64
warden_sandbox_get_tmp_size (WardenSandbox *self)
{
  const WardenSandboxConfig *config = warden_sandbox_get_config (self);

  return config->tmp_bytes ? config->tmp_bytes : WARDEN_SANDBOX_DEFAULT_TMP;
}

/* TRUE when @inner is @outer or lies below it. */
static gboolean
path_is_within (const char *inner,
                const char *outer)
{
  gsize n = strlen (outer);

  if (strcmp (outer, "/") == 0)
    return TRUE;
  return strncmp (inner, outer, n) == 0 && (inner[n] == '\0' || inner[n] == '/');
}

static char *
real_path (const char *path)
{
  char *real = realpath (path, NULL);
  char *copy = g_strdup (real);

  free (real);
  return copy;
}

gboolean
warden_sandbox_check_workspace (WardenSandbox  *self,
                                GError        **error)
{
  const char *workspace = warden_sandbox_get_workspace (self);
  g_autofree char *real = workspace ? real_path (workspace) : NULL;
  g_auto(GStrv) private = NULL;

  if (real == NULL)
    return TRUE;  /* the backend says what is wrong with it */
  private = warden_workspace_check_dup_private_paths ();
  for (guint i = 0; private[i]; i++)
    if (path_is_within (real, private[i]))
      {
        g_set_error (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_FAILED,
                     _("The workspace “%s” lies inside %s, which no sandbox may see: choose a "
                       "project folder elsewhere"), workspace, private[i]);
        return FALSE;
      }
  return TRUE;
}

static void
workspace_mount_free (gpointer data)
{
  WardenWorkspaceMount *mount = data;

  g_free (mount->path);
  g_free (mount);
}

static void
add_mount (GPtrArray                *mounts,
           WardenWorkspaceMountKind  kind,
           const char               *path,
           gboolean                  is_dir)
{
  WardenWorkspaceMount *mount = g_new0 (WardenWorkspaceMount, 1);

  mount->kind = kind;
  mount->path = g_strdup (path);
  mount->is_dir = is_dir;
  g_ptr_array_add (mounts, mount);
}

/* FOLDER/.git/config, hooks and info read-only, and FOLDER/.git itself
 * bound onto itself: a mount point cannot be renamed, so `mv .git .git.old`
 * and a fresh .git with a config of the command's own fail with EBUSY. */
static void
add_git_mounts (GPtrArray  *mounts,
                const char *workspace,
                const char *folder)
{
  g_autofree char *dotgit = g_build_filename (folder, ".git", NULL);
  g_autofree char *git = g_build_filename (workspace, dotgit, NULL);
  const char * const *read_only = warden_git_read_only_paths ();
  struct stat st;

  if (lstat (git, &st) != 0)
    return;
  if (S_ISREG (st.st_mode))
    {
      /* A worktree or submodule: the file says where its git directory is. */
      add_mount (mounts, WARDEN_WORKSPACE_MOUNT_READ_ONLY, dotgit, FALSE);
      return;
    }
  if (!S_ISDIR (st.st_mode))
    return;

  add_mount (mounts, WARDEN_WORKSPACE_MOUNT_PIN, dotgit, TRUE);
  for (guint i = 0; read_only[i]; i++)
    {
      g_autofree char *rel = g_build_filename (folder, read_only[i], NULL);
      g_autofree char *path = g_build_filename (workspace, rel, NULL);
      gboolean is_dir = !g_str_has_suffix (read_only[i], "/config");

      /* A mount needs something to land on; what git init would make. Not
       * in a nested repository (a test fixture, a package's checkout): the
       * doors check catches what a command creates there. */
      if (*folder == '\0' && lstat (path, &st) != 0 && errno == ENOENT)
        {
          if (is_dir)
            g_mkdir (path, 0755);
          else
            {
              int fd = g_open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

              if (fd >= 0)
                close (fd);
            }
        }
      if (lstat (path, &st) != 0 || S_ISLNK (st.st_mode))
        continue;
      add_mount (mounts, WARDEN_WORKSPACE_MOUNT_READ_ONLY, rel, S_ISDIR (st.st_mode));
    }
}

typedef struct
{
  GPtrArray           *mounts;
  const char          *workspace;  /* real */
  const char * const  *hidden;     /* the private folders */
} ProtectedMounts;

/* Hidden: a mount of its own would show it again (Docker orders mounts by
 * depth, so a deeper bind lands on the hiding tmpfs). */
static gboolean
is_hidden (ProtectedMounts *pm,
           const char      *abs)
{
  for (guint i = 0; pm->hidden[i]; i++)
    if (path_is_within (abs, pm->hidden[i]))
      return TRUE;
  return FALSE;
}

/* Each protected path that exists read-only (policy/warden-protected-path.h),
 * a nested repository as the workspace's own; what a command creates later
 * is the doors check's (warden-git-doors.h). */
static void
protected_mount_cb (const char          *rel,
                    WardenProtectedKind  kind,
                    const struct stat   *st,
                    gpointer             user_data)
{
  ProtectedMounts *pm = user_data;
  g_autofree char *abs = g_build_filename (pm->workspace, rel, NULL);

  if (is_hidden (pm, abs))
    return;
  if (kind == WARDEN_PROTECTED_REPO)
    {
      g_autofree char *folder = g_path_get_dirname (rel);

      add_git_mounts (pm->mounts, pm->workspace, folder);
      return;
    }
  if (S_ISLNK (st->st_mode))
    {
      /* The user's link to a file in the workspace: that one, as a mount
       * would land on it anyway. */
      g_autofree char *target = real_path (abs);
      struct stat target_st;

      if (target != NULL && !is_hidden (pm, target) && strcmp (target, pm->workspace) != 0 &&
          path_is_within (target, pm->workspace) && stat (target, &target_st) == 0)
        add_mount (pm->mounts, WARDEN_WORKSPACE_MOUNT_READ_ONLY,
                   target + (strcmp (pm->workspace, "/") == 0 ? 1 : strlen (pm->workspace) + 1),
                   S_ISDIR (target_st.st_mode));
      return;
    }
  if (S_ISDIR (st->st_mode) || S_ISREG (st->st_mode))
    add_mount (pm->mounts, WARDEN_WORKSPACE_MOUNT_READ_ONLY, rel, S_ISDIR (st->st_mode));
}

GPtrArray *
warden_sandbox_list_workspace_mounts (WardenSandbox *self)
{
  WardenSandboxPrivate *priv = warden_sandbox_get_instance_private (self);
  g_autoptr(GPtrArray) found = NULL;
  ProtectedMounts pm;
  GPtrArray *mounts = g_ptr_array_new_with_free_func (workspace_mount_free);
  const char *workspace = warden_sandbox_get_workspace (self);
  g_autofree char *real = workspace ? real_path (workspace) : NULL;
  g_auto(GStrv) private = NULL;

  if (real == NULL)
    return mounts;
  add_git_mounts (mounts, real, "");
  private = warden_workspace_check_dup_private_paths ();
  found = g_steal_pointer (&priv->protected_found);
  pm.mounts = mounts;
  pm.workspace = real;
  pm.hidden = (const char * const *) private;
  /* The check before this command walked the workspace just now, in a
   * worker thread: what it found, as it is now. Else (a container made
   * before any command) the walk here. */
  if (found != NULL)
    for (guint i = 0; i < found->len; i++)
      {
        const WardenProtectedPath *p = g_ptr_array_index (found, i);
        g_autofree char *abs = g_build_filename (real, p->path, NULL);
        struct stat st;

        if (lstat (abs, &st) == 0 && (st.st_mode & S_IFMT) == (p->st.st_mode & S_IFMT))
          protected_mount_cb (p->path, p->kind, &st, &pm);
      }
  else
    warden_protected_paths_walk (real, protected_mount_cb, &pm);

  for (guint i = 0; private[i]; i++)
    {
      struct stat st;

      if (strcmp (private[i], real) == 0 || !path_is_within (private[i], real) ||
          lstat (private[i], &st) != 0 || S_ISLNK (st.st_mode))
        continue;
      add_mount (mounts, WARDEN_WORKSPACE_MOUNT_HIDE,
                 private[i] + (strcmp (real, "/") == 0 ? 1 : strlen (real) + 1),
                 S_ISDIR (st.st_mode));
    }
  return mounts;
}

/* ------------------------------------------------------------------------ */
/* Calls */

void
warden_sandbox_prepare_async (WardenSandbox       *self,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_return_if_fail (WARDEN_IS_SANDBOX (self));
  WARDEN_SANDBOX_GET_CLASS (self)->prepare_async (self, cancellable, callback, user_data);
}

gboolean
warden_sandbox_prepare_finish (WardenSandbox  *self,
                               GAsyncResult   *result,
                               GError        **error)
{
  return WARDEN_SANDBOX_GET_CLASS (self)->prepare_finish (self, result, error);
}

/* An exec in a confined sandbox: git's doors are checked before the
 * command and after it (warden-git-doors.h), in a worker thread. The check
 * before starts from where the last command's check ended, so that what
 * changed while no command ran is not taken as the new starting point. */
typedef struct
{
  WardenExecRequest *request;   /* the backend reads it until the call completes */
  WardenGitSnapshot *baseline;  /* the last command's end, when no other command runs */
  WardenGitSnapshot *before;
  WardenGitSnapshot *after;
  char              *between_note;
  char              *after_note;
  WardenExecResult  *result;
  GError            *error;
  gboolean           handed;    /* given to the backend to start */
} Exec;

static void
exec_free (gpointer data)
{
  Exec *exec = data;

  warden_exec_request_free (exec->request);
  g_clear_pointer (&exec->baseline, warden_git_snapshot_free);
  g_clear_pointer (&exec->before, warden_git_snapshot_free);
  g_clear_pointer (&exec->after, warden_git_snapshot_free);
  g_free (exec->between_note);
  g_free (exec->after_note);
  g_clear_pointer (&exec->result, warden_exec_result_free);
  g_clear_error (&exec->error);
  g_free (exec);
}

static void
exec_return (GTask *task)
{
  Exec *exec = g_task_get_task_data (task);

  if (exec->result == NULL)
    g_task_return_error (task, g_steal_pointer (&exec->error));
  else
    g_task_return_pointer (task, g_steal_pointer (&exec->result),
                           (GDestroyNotify) warden_exec_result_free);
}

/* The terminal pane and the CLI show a doors note as the command's; the
 * model reads it in the command's standard error: what changed before the
 * command at its start, what the command changed at its end. */
static void
say_note (Exec       *exec,
          const char *note)
{
  g_autofree char *line = g_strconcat (note, "\n", NULL);

  if (exec->request->output_func != NULL)
    exec->request->output_func (WARDEN_STREAM_STDERR, line, strlen (line),
                                exec->request->output_data);
}

static void
add_notes (Exec *exec)
{
  const char *err;
  g_autofree char *head = NULL;
  g_autofree char *tail = NULL;
  char *text;

  if (exec->result == NULL || (exec->between_note == NULL && exec->after_note == NULL))
    return;
  err = exec->result->stderr_text ? exec->result->stderr_text : "";
  head = exec->between_note ? g_strconcat (exec->between_note, "\n", NULL) : g_strdup ("");
  tail = exec->after_note
         ? g_strconcat (*err != '\0' && !g_str_has_suffix (err, "\n") ? "\n" : "",
                        exec->after_note, "\n", NULL)
         : g_strdup ("");
  text = g_strconcat (head, err, tail, NULL);
  g_free (exec->result->stderr_text);
  exec->result->stderr_text = text;
}

static void
doors_closed_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  WardenSandbox *self = WARDEN_SANDBOX (object);
  WardenSandboxPrivate *priv = warden_sandbox_get_instance_private (self);
  g_autoptr(GTask) task = user_data;
  Exec *exec = g_task_get_task_data (task);

  g_task_propagate_boolean (G_TASK (result), NULL);
  priv->git_execs--;
  if (exec->after != NULL)
    {
      g_clear_pointer (&priv->git_baseline, warden_git_snapshot_free);
      priv->git_baseline = g_steal_pointer (&exec->after);
    }
  if (exec->after_note != NULL)
    say_note (exec, exec->after_note);
  add_notes (exec);
  exec_return (task);
}

static void
close_doors_thread (GTask        *task,
                    gpointer      source_object,
                    gpointer      task_data,
                    GCancellable *cancellable)
{
  WardenSandboxPrivate *priv = warden_sandbox_get_instance_private (source_object);
  Exec *exec = task_data;

  exec->after = warden_git_doors_check (priv->git_doors, exec->before,
                                        WARDEN_GIT_DOORS_AFTER_COMMAND, &exec->after_note);
  g_task_return_boolean (task, TRUE);
}

/* The command ended, or was stopped before it started. */
static void
exec_ended (WardenSandbox *self,
            GTask         *task)
{
  Exec *exec = g_task_get_task_data (task);
  g_autoptr(GTask) close_task = NULL;

  if (exec->before == NULL)
    {
      exec_return (task);
      g_object_unref (task);
      return;
    }
  /* Timed out, stopped or failed alike: whatever ran is gone now. */
  close_task = g_task_new (self, NULL, doors_closed_cb, task);
  g_task_set_source_tag (close_task, close_doors_thread);
  g_task_set_task_data (close_task, exec, NULL);
  g_task_run_in_thread (close_task, close_doors_thread);
}

static void
exec_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  WardenSandbox *self = WARDEN_SANDBOX (object);
  GTask *task = user_data;
  Exec *exec = g_task_get_task_data (task);

  exec->result = WARDEN_SANDBOX_GET_CLASS (self)->exec_finish (self, result, &exec->error);
  exec_ended (self, task);
}

static void
exec_start (GTask *task)
{
  WardenSandbox *self = g_task_get_source_object (task);
  Exec *exec = g_task_get_task_data (task);

  /* Stopped before it was handed on (while the doors were looked at, say):
   * nothing of it ran, and the caller can tell (exec_get_started()). */
  if (g_cancellable_set_error_if_cancelled (g_task_get_cancellable (task), &exec->error))
    {
      exec_ended (self, task);
      return;
    }
  exec->handed = TRUE;
  WARDEN_SANDBOX_GET_CLASS (self)->exec_async (self, exec->request, g_task_get_cancellable (task),
                                               exec_cb, task);
}

static void
doors_taken_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  GTask *task = user_data;
  Exec *exec = g_task_get_task_data (task);

  exec->before = g_task_propagate_pointer (G_TASK (result), NULL);
  if (exec->before != NULL)
    {
      WardenSandboxPrivate *priv =
        warden_sandbox_get_instance_private (g_task_get_source_object (task));

      g_clear_pointer (&priv->protected_found, g_ptr_array_unref);
      priv->protected_found = warden_git_snapshot_list_protected (exec->before);
    }
  if (exec->between_note != NULL)
    say_note (exec, exec->between_note);
  exec_start (task);
}

static void
take_doors_thread (GTask        *task,
                   gpointer      source_object,
                   gpointer      task_data,
                   GCancellable *cancellable)
{
  WardenSandboxPrivate *priv = warden_sandbox_get_instance_private (source_object);
  Exec *exec = task_data;
  WardenGitSnapshot *before;

  if (exec->baseline != NULL)
    before = warden_git_doors_check (priv->git_doors, exec->baseline,
                                     WARDEN_GIT_DOORS_BETWEEN_COMMANDS, &exec->between_note);
  else
    before = warden_git_doors_snapshot (priv->git_doors);
  g_task_return_pointer (task, before, (GDestroyNotify) warden_git_snapshot_free);
}

void
warden_sandbox_exec_async (WardenSandbox           *self,
                           const WardenExecRequest *request,
                           GCancellable            *cancellable,
                           GAsyncReadyCallback      callback,
                           gpointer                 user_data)
{
  WardenSandboxPrivate *priv = warden_sandbox_get_instance_private (self);
  g_autoptr(GTask) snapshot_task = NULL;
  GTask *task;
  Exec *exec;

  g_return_if_fail (WARDEN_IS_SANDBOX (self));
  g_return_if_fail (request != NULL && request->command != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, warden_sandbox_exec_async);
  exec = g_new0 (Exec, 1);
  exec->request = warden_exec_request_copy (request);
  g_task_set_task_data (task, exec, exec_free);

  /* The host backend confines nothing: a command there can run git itself. */
  if (!priv->confined || warden_sandbox_get_workspace (self) == NULL)
    {
      exec_start (task);
      return;
    }
  if (priv->git_doors == NULL)
    priv->git_doors = warden_git_doors_new (warden_sandbox_get_workspace (self));
  /* While another command runs, its changes are its own check's to judge:
   * this one starts from the doors as they are. */
  if (priv->git_execs++ == 0)
    exec->baseline = g_steal_pointer (&priv->git_baseline);
  snapshot_task = g_task_new (self, NULL, doors_taken_cb, task);
  g_task_set_source_tag (snapshot_task, take_doors_thread);
  g_task_set_task_data (snapshot_task, exec, NULL);
  g_task_run_in_thread (snapshot_task, take_doors_thread);
}

WardenExecResult *
warden_sandbox_exec_finish (WardenSandbox  *self,
                            GAsyncResult   *result,
                            GError        **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

gboolean
warden_sandbox_exec_get_started (WardenSandbox *self,
                                 GAsyncResult  *result)
{
  Exec *exec;

  g_return_val_if_fail (g_task_is_valid (result, self), TRUE);
  exec = g_task_get_task_data (G_TASK (result));
  return exec == NULL || exec->handed;
}

void
warden_sandbox_destroy_async (WardenSandbox       *self,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_return_if_fail (WARDEN_IS_SANDBOX (self));
  WARDEN_SANDBOX_GET_CLASS (self)->destroy_async (self, cancellable, callback, user_data);
}

gboolean
warden_sandbox_destroy_finish (WardenSandbox  *self,
                               GAsyncResult   *result,
                               GError        **error)
{
  return WARDEN_SANDBOX_GET_CLASS (self)->destroy_finish (self, result, error);
}

/* ------------------------------------------------------------------------ */
/* The watch over a running command, for every backend */

/* How long a killed command may keep its output open before we stop waiting. */
#define KILL_GRACE_MS 1500

struct _WardenExecWatch
{
  GTask                      *task;            /* not a reference: the task holds us */
  const WardenExecRequest    *request;         /* kept alive by the caller's task */
  const WardenExecWatchFuncs *funcs;
  WardenOutputCollector      *out;
  WardenOutputCollector      *err;
  GCancellable               *io_cancellable;  /* ours: ends the reads at the very end */
  GCancellable               *cancellable;     /* the caller's */
  gulong                      cancelled_id;
  GSource                    *timeout_source;
  GSource                    *grace_source;
  gint64                      start;
  gint64                      deadline;        /* monotonic; while paused, the time left */
  gboolean                    paused;          /* a guard question waits, or the hold */
  gboolean                    guard_paused;    /* a guard question waits */
  WardenExecHold             *hold;            /* the request's, while we watch it */
  WardenExecGuard            *guard;
  gboolean                    timed_out;
  gboolean                    cancelled;
  gboolean                    killed;
  gboolean                    returned;
};

struct _WardenExecHold
{
  gatomicrefcount  ref_count;
  guint            depth;
  WardenExecWatch *watch;   /* the command it holds, while it runs */
};

/* What a timer or the cancellable's handler holds: the task, alive until
 * it is gone, and the watch in the task's data. */
typedef struct
{
  GTask           *task;
  WardenExecWatch *watch;
} Hold;

static Hold *
hold_new (WardenExecWatch *watch)
{
  Hold *hold = g_new0 (Hold, 1);

  hold->task = g_object_ref (watch->task);
  hold->watch = watch;
  return hold;
}

static void
hold_free (gpointer data)
{
  Hold *hold = data;

  g_object_unref (hold->task);
  g_free (hold);
}

/* Drops what holds the task: the timers and the cancellable's handler. */
static void
watch_release (WardenExecWatch *watch)
{
  if (watch->timeout_source)
    {
      g_source_destroy (watch->timeout_source);
      g_clear_pointer (&watch->timeout_source, g_source_unref);
    }
  if (watch->grace_source)
    {
      g_source_destroy (watch->grace_source);
      g_clear_pointer (&watch->grace_source, g_source_unref);
    }
  if (watch->cancelled_id)
    {
      g_cancellable_disconnect (watch->cancellable, watch->cancelled_id);
      watch->cancelled_id = 0;
    }
}

static gboolean
cancelled_idle_cb (gpointer user_data)
{
  WardenExecWatch *watch = ((Hold *) user_data)->watch;

  /* The handler may have been queued just before the command returned. */
  if (watch->returned)
    return G_SOURCE_REMOVE;
  watch->cancelled = TRUE;
  warden_exec_watch_kill (watch);
  return G_SOURCE_REMOVE;
}

static void
cancelled_cb (GCancellable *cancellable,
              gpointer      user_data)
{
  Hold *hold = user_data;

  /* May run in another thread: kill from the task's context. */
  g_main_context_invoke_full (g_task_get_context (hold->task), G_PRIORITY_DEFAULT,
                              cancelled_idle_cb, hold_new (hold->watch), hold_free);
}

WardenExecWatch *
warden_exec_watch_new (GTask                      *task,
                       const WardenExecRequest    *request,
                       GCancellable               *cancellable,
                       const WardenExecWatchFuncs *funcs)
{
  WardenExecWatch *watch = g_new0 (WardenExecWatch, 1);

  watch->task = task;
  watch->request = request;
  watch->funcs = funcs;
  watch->out = warden_output_collector_new (request->max_output);
  watch->err = warden_output_collector_new (request->max_output);
  watch->io_cancellable = g_cancellable_new ();
  watch->start = g_get_monotonic_time ();
  /* Held already (by a question that came before it started): paused. */
  if (request->hold != NULL && request->hold->watch == NULL)
    {
      watch->hold = request->hold;
      watch->hold->watch = watch;
      watch->paused = warden_exec_hold_is_held (watch->hold);
    }
  if (cancellable != NULL)
    {
      watch->cancellable = g_object_ref (cancellable);
      watch->cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (cancelled_cb),
                                                   hold_new (watch), hold_free);
    }
  return watch;
}

void
warden_exec_watch_free (WardenExecWatch *watch)
{
  if (watch == NULL)
    return;
  watch_release (watch);
  if (watch->hold != NULL)
    watch->hold->watch = NULL;
  g_clear_pointer (&watch->guard, warden_exec_guard_free);
  g_clear_object (&watch->cancellable);
  g_clear_object (&watch->io_cancellable);
  warden_output_collector_free (watch->out);
  warden_output_collector_free (watch->err);
  g_free (watch);
}

static gboolean
timeout_cb (gpointer user_data)
{
  WardenExecWatch *watch = ((Hold *) user_data)->watch;

  g_clear_pointer (&watch->timeout_source, g_source_unref);
  watch->timed_out = TRUE;
  warden_exec_watch_kill (watch);
  return G_SOURCE_REMOVE;
}

static GSource *
watch_add_timeout (WardenExecWatch *watch,
                   guint            interval_ms,
                   GSourceFunc      func)
{
  GSource *source = g_timeout_source_new (interval_ms);

  g_source_set_callback (source, func, hold_new (watch), hold_free);
  g_source_attach (source, g_task_get_context (watch->task));
  return source;
}

void
warden_exec_watch_start_timer (WardenExecWatch *watch)
{
  g_return_if_fail (watch->timeout_source == NULL);

  watch->start = g_get_monotonic_time ();
  watch->deadline = watch->start + (gint64) watch->request->timeout_ms * 1000;
  if (!watch->paused)
    watch->timeout_source = watch_add_timeout (watch, watch->request->timeout_ms, timeout_cb);
  else
    watch->deadline = (gint64) watch->request->timeout_ms * 1000;
}

/* The time a question waits for the user is not the command's. */
static void
watch_set_paused (WardenExecWatch *watch,
                  gboolean         paused)
{
  if (paused == watch->paused || watch->returned)
    return;
  watch->paused = paused;
  if (paused)
    {
      if (watch->timeout_source == NULL)
        return;
      watch->deadline = MAX (watch->deadline - g_get_monotonic_time (), 0);
      g_source_destroy (watch->timeout_source);
      g_clear_pointer (&watch->timeout_source, g_source_unref);
    }
  else if (watch->deadline > 0 && watch->timeout_source == NULL && !watch->timed_out &&
           !watch->killed)
    {
      gint64 left = watch->deadline;

      watch->deadline = g_get_monotonic_time () + left;
      watch->timeout_source = watch_add_timeout (watch, (guint) ((left + 999) / 1000),
                                                 timeout_cb);
    }
}

static void
watch_update_paused (WardenExecWatch *watch)
{
  watch_set_paused (watch, watch->guard_paused ||
                           (watch->hold != NULL && warden_exec_hold_is_held (watch->hold)));
}

static void
guard_pause_cb (gboolean paused,
                gpointer user_data)
{
  WardenExecWatch *watch = user_data;

  watch->guard_paused = paused;
  watch_update_paused (watch);
}

WardenExecHold *
warden_exec_hold_new (void)
{
  WardenExecHold *hold = g_new0 (WardenExecHold, 1);

  g_atomic_ref_count_init (&hold->ref_count);
  return hold;
}

WardenExecHold *
warden_exec_hold_ref (WardenExecHold *hold)
{
  g_atomic_ref_count_inc (&hold->ref_count);
  return hold;
}

void
warden_exec_hold_unref (WardenExecHold *hold)
{
  if (hold != NULL && g_atomic_ref_count_dec (&hold->ref_count))
    {
      if (hold->watch != NULL)
        hold->watch->hold = NULL;
      g_free (hold);
    }
}

gboolean
warden_exec_hold_is_held (WardenExecHold *hold)
{
  return hold != NULL && hold->depth > 0;
}

void
warden_exec_hold_push (WardenExecHold *hold)
{
  g_return_if_fail (hold != NULL);

  if (hold->depth++ == 0 && hold->watch != NULL)
    watch_update_paused (hold->watch);
}

void
warden_exec_hold_pop (WardenExecHold *hold)
{
  g_return_if_fail (hold != NULL && hold->depth > 0);

  if (--hold->depth == 0 && hold->watch != NULL)
    watch_update_paused (hold->watch);
}

WardenExecGuard *
warden_exec_watch_peek_guard (WardenExecWatch *watch)
{
  return watch->guard;
}

void
warden_exec_watch_adopt_guard (WardenExecWatch *watch,
                               WardenExecGuard *guard)
{
  g_return_if_fail (watch->guard == NULL);

  watch->guard = guard;
  if (guard != NULL)
    warden_exec_guard_set_pause (guard, guard_pause_cb, watch);
}
static gboolean
grace_expired_cb (gpointer user_data)
{
  WardenExecWatch *watch = ((Hold *) user_data)->watch;

  g_clear_pointer (&watch->grace_source, g_source_unref);
  watch->funcs->grace_expired (watch->task);
  return G_SOURCE_REMOVE;
}

void
warden_exec_watch_linger (WardenExecWatch *watch)
{
  if (watch->returned || watch->grace_source != NULL)
    return;
  watch->grace_source = watch_add_timeout (watch, KILL_GRACE_MS, grace_expired_cb);
}

void
warden_exec_watch_kill (WardenExecWatch *watch)
{
  if (watch->killed || watch->returned)
    return;
  watch->killed = TRUE;
  if (watch->funcs->kill (watch->task))
    warden_exec_watch_linger (watch);
}

void
warden_exec_watch_output (WardenExecWatch *watch,
                          WardenStream     stream,
                          const char      *data,
                          gsize            length)
{
  warden_output_collector_append (stream == WARDEN_STREAM_STDERR ? watch->err : watch->out, data,
                                  length);
  if (watch->request->output_func != NULL)
    watch->request->output_func (stream, data, length, watch->request->output_data);
}

GCancellable *
warden_exec_watch_get_io_cancellable (WardenExecWatch *watch)
{
  return watch->io_cancellable;
}

gboolean
warden_exec_watch_get_timed_out (WardenExecWatch *watch)
{
  return watch->timed_out;
}

gboolean
warden_exec_watch_get_cancelled (WardenExecWatch *watch)
{
  return watch->cancelled;
}

gboolean
warden_exec_watch_get_returned (WardenExecWatch *watch)
{
  return watch->returned;
}

void
warden_exec_watch_return (WardenExecWatch *watch,
                          int              exit_code,
                          GError          *error)
{
  g_autoptr(GTask) task = g_object_ref (watch->task);  /* the release may drop the last */
  WardenExecResult *result;
  gboolean t1 = FALSE, t2 = FALSE;

  if (watch->returned)
    {
      g_clear_error (&error);
      return;
    }
  watch->returned = TRUE;
  watch_release (watch);
  g_cancellable_cancel (watch->io_cancellable);

  if (watch->cancelled)
    {
      g_clear_error (&error);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                               _("The command was cancelled"));
      return;
    }
  if (error != NULL)
    {
      g_task_return_error (task, error);
      return;
    }

  result = g_new0 (WardenExecResult, 1);
  /* Killed at the time limit before its status was known: as SIGKILL says it. */
  result->exit_code = watch->timed_out && exit_code < 0 ? 128 + 9 : exit_code;
  result->timed_out = watch->timed_out;
  result->duration_us = g_get_monotonic_time () - watch->start;
  result->stdout_text = warden_output_collector_finish (watch->out, &t1);
  result->stderr_text = warden_output_collector_finish (watch->err, &t2);
  result->truncated = t1 || t2;
  /* The guard's connection was given up: the model and the user read why
   * programs were killed. */
  if (watch->guard != NULL && warden_exec_guard_get_broken (watch->guard) != NULL)
    {
      char *text = g_strconcat (result->stderr_text, *result->stderr_text ? "\n" : "",
                                warden_exec_guard_get_broken (watch->guard), "\n", NULL);

      g_free (result->stderr_text);
      result->stderr_text = text;
    }
  g_task_return_pointer (task, result, (GDestroyNotify) warden_exec_result_free);
}

/* ------------------------------------------------------------------------ */
/* Running a process on this machine (bwrap and host) */

typedef struct
{
  GSubprocess     *process;
  WardenExecWatch *watch;
  gboolean         new_session;
  gboolean         exited;
  guint            open_streams;
  int              exit_code;
} LocalExec;

static void
local_exec_free (gpointer data)
{
  LocalExec *le = data;

  warden_exec_watch_free (le->watch);
  g_clear_object (&le->process);
  g_free (le);
}

/* Done when the process has exited and both pipes are at their end (or we
 * stopped waiting for them). */
static void
local_exec_maybe_done (GTask *task)
{
  LocalExec *le = g_task_get_task_data (task);

  if (!le->exited || le->open_streams > 0)
    return;
  warden_exec_watch_return (le->watch, le->exit_code, NULL);
}

static void
local_exec_grace_expired (GTask *task)
{
  LocalExec *le = g_task_get_task_data (task);

  /* Something escaped the kill and holds the pipes: stop reading. */
  g_cancellable_cancel (warden_exec_watch_get_io_cancellable (le->watch));
  le->open_streams = 0;
  local_exec_maybe_done (task);
}

static gboolean
local_exec_kill (GTask *task)
{
  LocalExec *le = g_task_get_task_data (task);

  if (le->new_session)
    {
      const char *id = g_subprocess_get_identifier (le->process);

      if (id != NULL)
        kill (-(pid_t) g_ascii_strtoll (id, NULL, 10), SIGKILL);
    }
  g_subprocess_force_exit (le->process);
  return TRUE;
}

static const WardenExecWatchFuncs local_exec_funcs = {
  .kill = local_exec_kill,
  .grace_expired = local_exec_grace_expired,
};

typedef struct
{
  GTask       *task;
  WardenStream stream;
} ReadData;

static void read_next (GTask *task, GInputStream *in, WardenStream stream);

static void
read_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  ReadData *rd = user_data;
  g_autoptr(GTask) task = rd->task;
  WardenStream stream = rd->stream;
  LocalExec *le = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result,
                                                              &error);
  gsize len;
  const char *data;

  g_free (rd);

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      if (le->open_streams > 0 &&
          !g_cancellable_is_cancelled (warden_exec_watch_get_io_cancellable (le->watch)))
        le->open_streams--;
      local_exec_maybe_done (task);
      return;
    }

  data = g_bytes_get_data (bytes, &len);
  warden_exec_watch_output (le->watch, stream, data, len);
  read_next (task, G_INPUT_STREAM (object), stream);
}

static void
read_next (GTask        *task,
           GInputStream *in,
           WardenStream  stream)
{
  LocalExec *le = g_task_get_task_data (task);
  ReadData *rd = g_new0 (ReadData, 1);

  rd->task = g_object_ref (task);
  rd->stream = stream;
  g_input_stream_read_bytes_async (in, 65536, G_PRIORITY_DEFAULT,
                                   warden_exec_watch_get_io_cancellable (le->watch), read_cb, rd);
}

static void
wait_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  LocalExec *le = g_task_get_task_data (task);
  GSubprocess *process = G_SUBPROCESS (object);

  g_subprocess_wait_finish (process, result, NULL);
  le->exited = TRUE;
  if (g_subprocess_get_if_exited (process))
    le->exit_code = g_subprocess_get_exit_status (process);
  else if (g_subprocess_get_if_signaled (process))
    le->exit_code = 128 + g_subprocess_get_term_sig (process);
  else
    le->exit_code = -1;

  /* Children of the command may keep the pipes open: give them a moment. */
  if (le->open_streams > 0)
    warden_exec_watch_linger (le->watch);
  local_exec_maybe_done (task);
}

static void
write_stdin_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  /* A command that does not read its input closes the pipe: not an error. */
  g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, NULL);
  g_output_stream_close (G_OUTPUT_STREAM (object), NULL, NULL);
}

static void
child_setup_new_session (gpointer user_data)
{
  setsid ();
}

void
warden_local_exec_run_async (GSubprocess             *process,
                             gboolean                 new_session,
                             WardenExecGuard         *guard,
                             const WardenExecRequest *request,
                             GCancellable            *cancellable,
                             GAsyncReadyCallback      callback,
                             gpointer                 user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  LocalExec *le = g_new0 (LocalExec, 1);
  GCancellable *io_cancellable;
  GOutputStream *in;

  g_task_set_source_tag (task, warden_local_exec_run_async);
  g_task_set_task_data (task, le, local_exec_free);
  le->process = g_object_ref (process);
  le->new_session = new_session;
  le->watch = warden_exec_watch_new (task, request, cancellable, &local_exec_funcs);
  warden_exec_watch_adopt_guard (le->watch, guard);
  io_cancellable = warden_exec_watch_get_io_cancellable (le->watch);

  in = g_subprocess_get_stdin_pipe (le->process);
  if (request->stdin_data != NULL && g_bytes_get_size (request->stdin_data) > 0)
    g_output_stream_write_all_async (in, g_bytes_get_data (request->stdin_data, NULL),
                                     g_bytes_get_size (request->stdin_data), G_PRIORITY_DEFAULT,
                                     io_cancellable, write_stdin_cb, NULL);
  else
    g_output_stream_close (in, NULL, NULL);

  le->open_streams = 2;
  read_next (task, g_subprocess_get_stdout_pipe (le->process), WARDEN_STREAM_STDOUT);
  read_next (task, g_subprocess_get_stderr_pipe (le->process), WARDEN_STREAM_STDERR);
  g_subprocess_wait_async (le->process, NULL, wait_cb, g_object_ref (task));
  warden_exec_watch_start_timer (le->watch);
}

GSubprocessLauncher *
warden_local_exec_launcher_new (const char * const *envp,
                                const char         *cwd,
                                gboolean            new_session)
{
  GSubprocessLauncher *launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                                             G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                                             G_SUBPROCESS_FLAGS_STDERR_PIPE);

  g_subprocess_launcher_set_environ (launcher, (char **) envp);
  if (cwd != NULL)
    g_subprocess_launcher_set_cwd (launcher, cwd);
  if (new_session)
    g_subprocess_launcher_set_child_setup (launcher, child_setup_new_session, NULL, NULL);
  return launcher;
}

void
warden_local_exec_async (const char * const      *argv,
                         const char * const      *envp,
                         const char              *cwd,
                         gboolean                 new_session,
                         const WardenExecRequest *request,
                         GCancellable            *cancellable,
                         GAsyncReadyCallback      callback,
                         gpointer                 user_data)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) guarded = NULL;
  WardenExecGuard *guard = NULL;
  int guard_fd = -1;

  launcher = warden_local_exec_launcher_new (envp, cwd, new_session);
  /* Every program the command starts is checked: the helper starts it. */
  if (request->guard_func != NULL && warden_guard_get_helper_path () != NULL)
    {
      guard = warden_exec_guard_new (request->guard_func, request->guard_data, &guard_fd,
                                     &error);
      if (guard != NULL)
        {
          guarded = g_ptr_array_new ();
          g_ptr_array_add (guarded, (gpointer) warden_guard_get_helper_path ());
          g_ptr_array_add (guarded, "--fd");
          g_ptr_array_add (guarded, "3");
          g_ptr_array_add (guarded, "--");
          for (guint i = 0; argv[i] != NULL; i++)
            g_ptr_array_add (guarded, (gpointer) argv[i]);
          g_ptr_array_add (guarded, NULL);
          g_subprocess_launcher_take_fd (launcher, guard_fd, 3);
          argv = (const char * const *) guarded->pdata;
        }
    }
  if (error == NULL)
    process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  if (process == NULL)
    {
      g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);

      warden_exec_guard_free (guard);
      g_task_set_source_tag (task, warden_local_exec_run_async);
      g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_FAILED,
                               _("Could not start %s: %s"), argv[0], error->message);
      return;
    }
  warden_local_exec_run_async (process, new_session, guard, request, cancellable, callback,
                               user_data);
}

WardenExecResult *
warden_local_exec_finish (GAsyncResult  *result,
                          GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

void
warden_local_exec_forward_cb (GObject      *object,
                              GAsyncResult *result,
                              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  WardenExecResult *res = warden_local_exec_finish (result, &error);

  if (res == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, res, (GDestroyNotify) warden_exec_result_free);
}

/* ------------------------------------------------------------------------ */
/* The setup command */

static void
setup_exec_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenExecResult) res = warden_sandbox_exec_finish (WARDEN_SANDBOX (object), result,
                                                                &error);
  const char *command = warden_sandbox_get_config (WARDEN_SANDBOX (object))->setup_command;

  if (res == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else if (res->timed_out)
    g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_SETUP_FAILED,
                             _("The setup command “%s” did not finish in time"), command);
  else if (res->exit_code != 0)
    {
      const char *out = res->stderr_text && *res->stderr_text ? res->stderr_text
                                                              : res->stdout_text;
      gsize len = strlen (out);

      g_task_return_new_error (task, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_SETUP_FAILED,
                               _("The setup command “%s” failed with status %d: %s"), command,
                               res->exit_code, len > 2000 ? out + len - 2000 : out);
    }
  else
    g_task_return_boolean (task, TRUE);
}

void
warden_sandbox_run_setup_async (WardenSandbox       *self,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  const char *command = warden_sandbox_get_config (self)->setup_command;
  WardenExecRequest request = { 0 };

  g_task_set_source_tag (task, warden_sandbox_run_setup_async);
  if (command == NULL || *command == '\0')
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  request.command = command;
  request.timeout_ms = 30 * 60 * 1000;  /* npm install can take a while */
  warden_sandbox_exec_async (self, &request, cancellable, setup_exec_cb,
                             g_steal_pointer (&task));
}

gboolean
warden_sandbox_run_setup_finish (WardenSandbox  *self,
                                 GAsyncResult   *result,
                                 GError        **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
finish_prepare_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;

  if (!warden_sandbox_run_setup_finish (WARDEN_SANDBOX (object), result, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

void
warden_sandbox_finish_prepare (WardenSandbox *self,
                               GTask         *task)
{
  warden_sandbox_run_setup_async (self, g_task_get_cancellable (task), finish_prepare_cb,
                                  g_object_ref (task));
}
