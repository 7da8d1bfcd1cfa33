/* warden-host-gate.c: the hosts a session's sandbox may reach, by profile
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A profile's "network" says "none", "open", or "allowlist". With an
 * allowlist the sandbox has no route out but Warden's proxy (a unix socket
 * relayed into its network namespace); every new host:port a connection
 * wants comes here: the profile's deny patterns refuse it, its allow
 * patterns let it through, an earlier answer of the session holds, and what
 * none covers is the running command's question for the user
 * (WardenCommandRun), while the command runs on with its time limit
 * stopped. The answer holds for the session; "Always allow" saves the host
 * pattern into the profile.
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-agent"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "warden-host-gate.h"

#include "policy/warden-network.h"
#include "sandbox/warden-exec-guard.h"
#include "net/warden-net-proxy.h"

struct _WardenHostGate
{
  GObject             parent_instance;

  WardenSessionStore *store;
  char               *session_id;
  gboolean            profile_has;  /* the profile has a network section */
  WardenNetworkMode   profile_mode;
  char              **allow;        /* its host patterns */
  char              **deny;
  WardenSandboxKind   kind;         /* the sandbox's, once made */
  WardenNetworkMode   mode;
  WardenNetProxy     *proxy;        /* allowlist: the sandbox's way out */
  char               *dir;          /* the proxy socket's folder */
  GHashTable         *answers;      /* "host:port" → the user's answer, for the session */
  char               *unavailable;  /* why an allowlist cannot work here: no network */
  WardenCommandRun   *command;      /* the one running, whose connections these are */
};

G_DEFINE_FINAL_TYPE (WardenHostGate, warden_host_gate, G_TYPE_OBJECT)

/* WARDEN_NET_HOSTS names a hosts file of made-up names for the tests'
 * servers on 127.0.0.1 (the sandbox has no resolver, the proxy resolves),
 * and such names skip the own-address rule: a hook for tests only. It holds
 * for a program that runs from inside the build tree it was compiled in,
 * as the test suite runs it, and never for an installed one (/usr/bin,
 * Flatpak's /app/bin): the running file's path comes from the kernel
 * (/proc/self/exe), which no environment variable changes, and an
 * installed program is outside its build tree by being installed. */
static const char *
test_hosts_file (void)
{
  const char *path = g_getenv ("WARDEN_NET_HOSTS");
  g_autofree char *exe = NULL;
  g_autofree char *root = NULL;
  g_autofree char *prefix = NULL;

  if (path == NULL || *path == '\0')
    return NULL;
  exe = realpath ("/proc/self/exe", NULL);
  root = realpath (BUILD_ROOT, NULL);
  prefix = root ? g_strconcat (root, "/", NULL) : NULL;
  if (exe == NULL || prefix == NULL || !g_str_has_prefix (exe, prefix))
    {
      g_warning ("WARDEN_NET_HOSTS is for Warden's own tests; an installed Warden ignores it");
      return NULL;
    }
  return path;
}

static void
clear_proxy (WardenHostGate *self)
{
  g_clear_pointer (&self->proxy, warden_net_proxy_free);
  if (self->dir != NULL)
    {
      g_autofree char *path = g_build_filename (self->dir, "proxy.sock", NULL);

      g_unlink (path);
      g_rmdir (self->dir);
      g_clear_pointer (&self->dir, g_free);
    }
}

static void
warden_host_gate_dispose (GObject *object)
{
  WardenHostGate *self = WARDEN_HOST_GATE (object);

  clear_proxy (self);
  g_clear_weak_pointer (&self->command);
  g_clear_object (&self->store);
  G_OBJECT_CLASS (warden_host_gate_parent_class)->dispose (object);
}

static void
warden_host_gate_finalize (GObject *object)
{
  WardenHostGate *self = WARDEN_HOST_GATE (object);

  g_free (self->session_id);
  g_strfreev (self->allow);
  g_strfreev (self->deny);
  g_clear_pointer (&self->answers, g_hash_table_unref);
  g_free (self->unavailable);
  G_OBJECT_CLASS (warden_host_gate_parent_class)->finalize (object);
}

static void
warden_host_gate_class_init (WardenHostGateClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = warden_host_gate_dispose;
  G_OBJECT_CLASS (klass)->finalize = warden_host_gate_finalize;
}

static void
warden_host_gate_init (WardenHostGate *self)
{
}

WardenHostGate *
warden_host_gate_new (WardenSessionStore *store,
                      const char         *session_id)
{
  WardenHostGate *self = g_object_new (WARDEN_TYPE_HOST_GATE, NULL);

  self->store = g_object_ref (store);
  self->session_id = g_strdup (session_id);
  return self;
}

void
warden_host_gate_set_profile (WardenHostGate *self,
                              WardenProfile  *profile)
{
  g_return_if_fail (WARDEN_IS_HOST_GATE (self));

  self->profile_has = warden_profile_has_network (profile);
  self->profile_mode = warden_profile_get_network_mode (profile);
  g_strfreev (self->allow);
  self->allow = g_strdupv ((char **) warden_profile_get_network_allow (profile));
  g_strfreev (self->deny);
  self->deny = g_strdupv ((char **) warden_profile_get_network_deny (profile));
}

void
warden_host_gate_set_command (WardenHostGate   *self,
                              WardenCommandRun *command)
{
  g_return_if_fail (WARDEN_IS_HOST_GATE (self));
  g_set_weak_pointer (&self->command, command);
}

GHashTable *
warden_host_gate_get_answers (WardenHostGate *self)
{
  g_return_val_if_fail (WARDEN_IS_HOST_GATE (self), NULL);

  /* What the user answered earlier in this session, resumed too. */
  if (self->answers == NULL)
    {
      g_autoptr(GError) error = NULL;

      self->answers = warden_session_store_load_host_answers (self->store, self->session_id,
                                                              &error);
      if (self->answers == NULL)
        {
          g_warning ("%s", error->message);
          self->answers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
        }
    }
  return self->answers;
}

static void
decide_cb (WardenNetRequest *request,
           gpointer          user_data)
{
  WardenHostGate *self = user_data;
  g_autofree char *host = warden_network_normalize_host (warden_net_request_get_host (request));
  guint port = warden_net_request_get_port (request);
  g_autofree char *key = NULL;
  const char *pattern = NULL;
  WardenVerdict verdict;
  gpointer answer;

  if (host == NULL)
    {
      warden_net_request_answer (request, FALSE, _("it is not a host name"));
      return;
    }
  /* A connection nobody's command opened: something left running. */
  if (self->command == NULL)
    {
      warden_net_request_answer (request, FALSE,
                                 _("no command of this session is running"));
      return;
    }
  verdict = warden_network_check ((const char * const *) self->allow,
                                  (const char * const *) self->deny, host, port, &pattern);
  if (verdict == WARDEN_VERDICT_DENY)
    {
      g_autofree char *message = g_strdup_printf (_("the profile denies it (%s)"), pattern);

      warden_net_request_answer (request, FALSE, message);
      warden_command_run_note_host (self->command, host, port, FALSE, WARDEN_DECIDED_BY_PROFILE,
                                    pattern);
      return;
    }
  if (verdict == WARDEN_VERDICT_ALLOW)
    {
      warden_net_request_answer (request, TRUE, NULL);
      warden_command_run_note_host (self->command, host, port, TRUE, WARDEN_DECIDED_BY_PROFILE,
                                    pattern);
      return;
    }
  key = warden_network_suggest (host, port);
  answer = g_hash_table_lookup (warden_host_gate_get_answers (self), key);
  if (answer != NULL)
    {
      gboolean allowed = GPOINTER_TO_INT (answer) == 1;

      warden_net_request_answer (request, allowed,
                                 allowed ? NULL : _("the user refused it"));
      warden_command_run_note_host (self->command, host, port, allowed,
                                    WARDEN_DECIDED_BY_SESSION, NULL);
      return;
    }
  warden_command_run_ask_host (self->command, request, host, port);
}

gboolean
warden_host_gate_setup (WardenHostGate       *self,
                        WardenSandboxKind     kind,
                        WardenNetworkMode     mode,
                        gboolean              mode_override,
                        WardenSandboxConfig  *config,
                        GError              **error)
{
  g_autofree char *path = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (WARDEN_IS_HOST_GATE (self), FALSE);

  self->kind = kind;
  /* warden-cli --network; then the profile's; a profile that says nothing
   * keeps what the settings' switch said. */
  if (mode_override || !self->profile_has)
    self->mode = mode;
  else
    self->mode = self->profile_mode;
  config->network = self->mode;
  if (self->mode != WARDEN_NETWORK_ALLOWLIST)
    return TRUE;
  /* The host backend has no network namespace of its own to hold to it. */
  if (kind == WARDEN_SANDBOX_KIND_HOST)
    return TRUE;
  /* The relay in the sandbox is the guard's helper: without it, no way out. */
  g_clear_pointer (&self->unavailable, g_free);
  if (warden_guard_get_helper_path () == NULL)
    {
      self->unavailable = g_strdup (_("its helper, warden-guard, is not installed"));
      return TRUE;
    }

  if (self->proxy == NULL)
    {
      g_autofree char *template = g_build_filename (g_get_user_runtime_dir (),
                                                    "warden-net-XXXXXX", NULL);

      g_clear_pointer (&self->dir, g_free);
      if (g_mkdtemp_full (template, 0700) == NULL)
        {
          int saved = errno;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       _("Could not make a folder for the network proxy in %s: %s"),
                       g_get_user_runtime_dir (), g_strerror (saved));
          return FALSE;
        }
      self->dir = g_strdup (template);
      path = g_build_filename (self->dir, "proxy.sock", NULL);
      /* Yours only (the proxy makes the socket 0600): the sandboxes run as
       * you, a container too (its user is your uid, or keep-id's). */
      self->proxy = warden_net_proxy_new (path, decide_cb, self, NULL, &local_error);
      if (self->proxy == NULL)
        {
          g_set_error (error, local_error->domain, local_error->code,
                       _("Could not start the network proxy: %s"), local_error->message);
          return FALSE;
        }
      /* Made-up names for local servers, as the tests use them. */
      if (test_hosts_file () != NULL &&
          !warden_net_proxy_set_hosts_file (self->proxy, test_hosts_file (), &local_error))
        {
          g_warning ("WARDEN_NET_HOSTS: %s", local_error->message);
          g_clear_error (&local_error);
        }
    }
  else
    path = g_build_filename (self->dir, "proxy.sock", NULL);
  warden_host_gate_get_answers (self);
  g_free (config->proxy_socket);
  config->proxy_socket = g_steal_pointer (&path);
  return TRUE;
}

char *
warden_host_gate_dup_notice (WardenHostGate *self,
                             WardenSandbox  *sandbox)
{
  const char *why;

  g_return_val_if_fail (WARDEN_IS_HOST_GATE (self), NULL);

  why = self->unavailable;
  if (self->mode != WARDEN_NETWORK_ALLOWLIST || self->kind == WARDEN_SANDBOX_KIND_HOST)
    return NULL;
  /* The Docker backend carries the relay where it has the guard: a local
   * engine, with the helper mounted. */
  if (why == NULL && self->kind == WARDEN_SANDBOX_KIND_DOCKER && sandbox != NULL)
    why = warden_sandbox_get_guard_unavailable (sandbox);
  if (why == NULL)
    return NULL;
  return g_strdup_printf (_("The profile allows hosts one by one, which this sandbox cannot do "
                            "(%s): it has no network."), why);
}
