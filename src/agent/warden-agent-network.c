/* warden-agent-network.c: the hosts a sandbox may reach, by profile
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A profile's "network" says "none", "open", or "allowlist". With an
 * allowlist the sandbox has no route out but Warden's proxy (a unix socket
 * relayed into its network namespace); every new host:port a connection
 * wants comes here: the profile's deny patterns refuse it, its allow
 * patterns let it through, and what neither covers waits for the user like
 * a command, while the command that opened it runs on (its time limit
 * stopped). The answer holds for the session; "Always allow" saves the
 * host pattern into the profile.
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-agent"

#include <stdlib.h>
#include <string.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "warden-agent-private.h"

#include "sandbox/warden-exec-guard.h"

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

static WardenNetworkMode
resolve_mode (WardenAgent *self)
{
  WardenNetworkMode mode;

  /* warden-cli --network, recorded with the session. */
  if (self->config.network_mode != NULL &&
      warden_network_mode_from_string (self->config.network_mode, &mode))
    return mode;
  if (self->net_profile_has)
    return self->net_profile_mode;
  /* A profile that says nothing keeps what the network switch said. */
  return self->config.network ? WARDEN_NETWORK_OPEN : WARDEN_NETWORK_NONE;
}

static void
decide_cb (WardenNetRequest *request,
           gpointer          user_data)
{
  WardenAgent *self = user_data;
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
  if (self->nested == NULL)
    {
      warden_net_request_answer (request, FALSE,
                                 _("no command of this session is running"));
      return;
    }
  verdict = warden_network_check ((const char * const *) self->net_allow,
                                  (const char * const *) self->net_deny, host, port, &pattern);
  if (verdict == WARDEN_VERDICT_DENY)
    {
      g_autofree char *message = g_strdup_printf (_("the profile denies it (%s)"), pattern);

      warden_net_request_answer (request, FALSE, message);
      _warden_nested_note_host (self->nested, host, port, FALSE, WARDEN_DECIDED_BY_PROFILE,
                                pattern);
      return;
    }
  if (verdict == WARDEN_VERDICT_ALLOW)
    {
      warden_net_request_answer (request, TRUE, NULL);
      _warden_nested_note_host (self->nested, host, port, TRUE, WARDEN_DECIDED_BY_PROFILE,
                                pattern);
      return;
    }
  key = warden_network_suggest (host, port);
  answer = g_hash_table_lookup (self->net_answers, key);
  if (answer != NULL)
    {
      gboolean allowed = GPOINTER_TO_INT (answer) == 1;

      warden_net_request_answer (request, allowed,
                                 allowed ? NULL : _("the user refused it"));
      _warden_nested_note_host (self->nested, host, port, allowed, WARDEN_DECIDED_BY_SESSION,
                                NULL);
      return;
    }
  _warden_nested_ask_host (self->nested, request, host, port);
}

gboolean
_warden_agent_network_setup (WardenAgent          *self,
                             WardenSandboxConfig  *config,
                             GError              **error)
{
  g_autofree char *path = NULL;
  g_autoptr(GError) local_error = NULL;

  self->net_mode = resolve_mode (self);
  config->network = self->net_mode == WARDEN_NETWORK_OPEN;
  if (self->net_mode != WARDEN_NETWORK_ALLOWLIST)
    return TRUE;
  /* The host backend has no network namespace of its own to hold to it. */
  if (g_strcmp0 (self->config.sandbox, "host") == 0)
    return TRUE;
  /* The relay in the sandbox is the guard's helper: without it, no way out. */
  g_clear_pointer (&self->net_unavailable, g_free);
  if (warden_guard_get_helper_path () == NULL)
    {
      self->net_unavailable = g_strdup (_("its helper, warden-guard, is not installed"));
      return TRUE;
    }

  if (self->net_proxy == NULL)
    {
      g_autofree char *template = g_build_filename (g_get_user_runtime_dir (),
                                                    "warden-net-XXXXXX", NULL);

      g_clear_pointer (&self->net_dir, g_free);
      if (g_mkdtemp_full (template, 0700) == NULL)
        {
          g_set_error (error, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_FAILED,
                       _("Could not make a folder for the network proxy in %s: %s"),
                       g_get_user_runtime_dir (), g_strerror (errno));
          return FALSE;
        }
      self->net_dir = g_strdup (template);
      path = g_build_filename (self->net_dir, "proxy.sock", NULL);
      self->net_proxy = warden_net_proxy_new (path, decide_cb, self, NULL, &local_error);
      if (self->net_proxy == NULL)
        {
          g_set_error (error, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_FAILED,
                       _("Could not start the network proxy: %s"), local_error->message);
          return FALSE;
        }
      /* Yours only (the proxy made the socket 0600): the sandboxes run as
       * you, a container too (its user is your uid, or keep-id's). */
      /* Made-up names for local servers, as the tests use them. */
      if (test_hosts_file () != NULL &&
          !warden_net_proxy_set_hosts_file (self->net_proxy, test_hosts_file (), &local_error))
        {
          g_warning ("WARDEN_NET_HOSTS: %s", local_error->message);
          g_clear_error (&local_error);
        }
    }
  else
    path = g_build_filename (self->net_dir, "proxy.sock", NULL);
  /* What the user answered earlier in this session, resumed too. */
  if (self->net_answers == NULL)
    {
      self->net_answers = warden_session_store_load_host_answers (self->store, self->info->id,
                                                                  &local_error);
      if (self->net_answers == NULL)
        {
          g_warning ("%s", local_error->message);
          g_clear_error (&local_error);
          self->net_answers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
        }
    }
  g_free (config->proxy_socket);
  config->proxy_socket = g_steal_pointer (&path);
  return TRUE;
}

char *
_warden_agent_network_notice (WardenAgent *self)
{
  const char *why = self->net_unavailable;

  if (self->net_mode != WARDEN_NETWORK_ALLOWLIST || g_strcmp0 (self->config.sandbox, "host") == 0)
    return NULL;
  /* The Docker backend carries the relay where it has the guard: a local
   * engine, with the helper mounted. */
  if (why == NULL && g_strcmp0 (self->config.sandbox, "docker") == 0)
    why = warden_sandbox_get_guard_unavailable (self->sandbox);
  if (why == NULL)
    return NULL;
  return g_strdup_printf (_("The profile allows hosts one by one, which this sandbox cannot do "
                            "(%s): it has no network."), why);
}

void
_warden_agent_network_clear (WardenAgent *self)
{
  g_clear_pointer (&self->net_unavailable, g_free);
  g_clear_pointer (&self->net_proxy, warden_net_proxy_free);
  if (self->net_dir != NULL)
    {
      g_autofree char *path = g_build_filename (self->net_dir, "proxy.sock", NULL);

      g_unlink (path);
      g_rmdir (self->net_dir);
      g_clear_pointer (&self->net_dir, g_free);
    }
  g_clear_pointer (&self->net_answers, g_hash_table_unref);
  g_clear_pointer (&self->net_hold, warden_exec_hold_unref);
  g_clear_pointer (&self->net_allow, g_strfreev);
  g_clear_pointer (&self->net_deny, g_strfreev);
}

gboolean
_warden_agent_allow_host_always (WardenAgent  *self,
                                 const char   *pattern,
                                 GError      **error)
{
  return _warden_agent_save_pattern (self, pattern, TRUE, error);
}
