/* warden-network.c: which hosts a sandbox may reach, by profile
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>
#include <arpa/inet.h>

#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "warden-network.h"

#define HOST_MAX 253

static const char * const mode_names[] = { "none", "allowlist", "open" };

const char *
warden_network_mode_to_string (WardenNetworkMode mode)
{
  g_return_val_if_fail (mode <= WARDEN_NETWORK_OPEN, NULL);
  return mode_names[mode];
}

gboolean
warden_network_mode_from_string (const char        *str,
                                 WardenNetworkMode *mode)
{
  for (guint i = 0; i < G_N_ELEMENTS (mode_names); i++)
    if (g_strcmp0 (str, mode_names[i]) == 0)
      {
        *mode = (WardenNetworkMode) i;
        return TRUE;
      }
  if (g_strcmp0 (str, "bridge") == 0)
    {
      *mode = WARDEN_NETWORK_OPEN;
      return TRUE;
    }
  return FALSE;
}

static gboolean
is_name_char (char c)
{
  return g_ascii_isalnum (c) || c == '.' || c == '-' || c == '_';
}

static gboolean
is_v6_char (char c)
{
  return g_ascii_isxdigit (c) || c == ':' || c == '.';
}

char *
warden_network_normalize_host (const char *host)
{
  g_autofree char *lower = NULL;
  gsize len;
  gboolean v6;

  if (host == NULL)
    return NULL;
  len = strlen (host);
  if (len >= 2 && host[0] == '[' && host[len - 1] == ']')
    lower = g_ascii_strdown (host + 1, len - 2);
  else
    lower = g_ascii_strdown (host, len);
  len = strlen (lower);
  /* "example.com." is example.com. */
  if (len > 1 && lower[len - 1] == '.')
    lower[--len] = '\0';
  if (len == 0 || len > HOST_MAX)
    return NULL;
  v6 = strchr (lower, ':') != NULL;
  for (const char *p = lower; *p; p++)
    if (v6 ? !is_v6_char (*p) : !is_name_char (*p))
      return NULL;
  if (!v6 && (lower[0] == '.' || strstr (lower, "..") != NULL))
    return NULL;
  /* An address in one spelling only, the one patterns are written in: the
   * resolver takes 127.1, 0x7f.0.0.1 and 2130706433 for 127.0.0.1, and
   * ::ffff:7f00:1 for ::ffff:127.0.0.1. */
  if (v6)
    {
      g_autoptr(GInetAddress) address = g_inet_address_new_from_string (lower);

      if (address == NULL)
        return NULL;
      return g_inet_address_to_string (address);
    }
  else
    {
      struct in_addr v4;
      gboolean numeric = TRUE;

      for (const char *p = lower; *p && numeric; p++)
        numeric = g_ascii_isxdigit (*p) || *p == '.' || *p == 'x';
      if (numeric && inet_aton (lower, &v4) != 0)
        {
          char text[INET_ADDRSTRLEN];

          return g_strdup (inet_ntop (AF_INET, &v4, text, sizeof text));
        }
    }
  return g_steal_pointer (&lower);
}

/* Splits @pattern into its host part (lowercase, without brackets) and its
 * port (0 for any); FALSE with @why when it is not a host pattern. */
static gboolean
split_pattern (const char  *pattern,
               char       **host_out,
               guint       *port_out,
               const char **why)
{
  g_autofree char *host = NULL;
  const char *port = NULL;
  gboolean v6 = FALSE;

  *port_out = 0;
  if (pattern == NULL || pattern[0] == '\0')
    {
      *why = _("it is empty");
      return FALSE;
    }
  if (pattern[0] == '[')
    {
      const char *close = strchr (pattern, ']');

      if (close == NULL)
        {
          *why = _("an IPv6 address needs its closing bracket, as in [::1]:443");
          return FALSE;
        }
      host = g_ascii_strdown (pattern + 1, close - pattern - 1);
      v6 = TRUE;
      if (close[1] == ':')
        port = close + 2;
      else if (close[1] != '\0')
        {
          *why = _("after an IPv6 address's bracket only “:PORT” may follow");
          return FALSE;
        }
    }
  else
    {
      const char *colon = strchr (pattern, ':');

      if (colon != NULL && strchr (colon + 1, ':') != NULL)
        {
          *why = _("put an IPv6 address in brackets, as in [::1]:443");
          return FALSE;
        }
      host = colon ? g_ascii_strdown (pattern, colon - pattern) : g_ascii_strdown (pattern, -1);
      if (colon != NULL)
        port = colon + 1;
    }

  if (host[0] == '\0' || strlen (host) > HOST_MAX)
    {
      *why = _("it names no host; use * for every host");
      return FALSE;
    }
  for (const char *p = host; *p; p++)
    if (*p != '*' && (v6 ? !is_v6_char (*p) : !is_name_char (*p)))
      {
        *why = v6 ? _("an IPv6 address has only hexadecimal digits, “:” and “*”")
                  : _("a host has only letters, digits, “.”, “-”, “_” and “*”");
        return FALSE;
      }

  if (port != NULL)
    {
      guint64 value;

      if (strcmp (port, "*") == 0)
        value = 0;
      else if (port[0] == '\0' || !g_ascii_string_to_unsigned (port, 10, 1, 65535, &value, NULL))
        {
          *why = _("the port is a number from 1 to 65535, or *");
          return FALSE;
        }
      *port_out = (guint) value;
    }
  *host_out = g_steal_pointer (&host);
  return TRUE;
}

gboolean
warden_host_pattern_validate (const char  *pattern,
                              GError     **error)
{
  g_autofree char *host = NULL;
  const char *why = NULL;
  guint port;

  if (!split_pattern (pattern, &host, &port, &why))
    {
      g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID,
                   _("“%s” is not a host pattern: %s"), pattern ? pattern : "", why);
      return FALSE;
    }
  return TRUE;
}

char *
warden_host_pattern_normalize (const char *pattern)
{
  g_autofree char *host = NULL;
  const char *why = NULL;
  guint port;
  gboolean v6;

  if (!split_pattern (pattern, &host, &port, &why))
    return NULL;
  v6 = strchr (host, ':') != NULL;
  if (port == 0 && (strchr (pattern, ':') == NULL || (v6 && !g_str_has_suffix (pattern, ":*"))))
    return v6 ? g_strdup_printf ("[%s]", host) : g_steal_pointer (&host);
  if (port == 0)
    return v6 ? g_strdup_printf ("[%s]:*", host) : g_strdup_printf ("%s:*", host);
  return v6 ? g_strdup_printf ("[%s]:%u", host, port) : g_strdup_printf ("%s:%u", host, port);
}

/* A glob where * is any run of characters, and nothing else is special. */
static gboolean
glob_match (const char *pattern,
            const char *text)
{
  const char *star = NULL;
  const char *resume = NULL;

  while (*text != '\0')
    {
      if (*pattern == '*')
        {
          star = pattern++;
          resume = text;
        }
      else if (*pattern == *text)
        {
          pattern++;
          text++;
        }
      else if (star != NULL)
        {
          pattern = star + 1;
          text = ++resume;
        }
      else
        return FALSE;
    }
  while (*pattern == '*')
    pattern++;
  return *pattern == '\0';
}

gboolean
warden_host_pattern_match (const char *pattern,
                           const char *host,
                           guint       port)
{
  g_autofree char *pattern_host = NULL;
  const char *why = NULL;
  guint pattern_port;

  if (host == NULL || !split_pattern (pattern, &pattern_host, &pattern_port, &why))
    return FALSE;
  if (pattern_port != 0 && pattern_port != port)
    return FALSE;
  return glob_match (pattern_host, host);
}

/* This computer itself: 127.0.0.0/8, ::1, and the unspecified addresses
 * (connecting to 0.0.0.0 reaches the loopback too). */
static gboolean
is_own_address (const char *host)
{
  return g_str_has_prefix (host, "127.") || strcmp (host, "::1") == 0 ||
         strcmp (host, "0.0.0.0") == 0 || strcmp (host, "::") == 0 ||
         g_str_has_prefix (host, "::ffff:127.") || strcmp (host, "::ffff:0.0.0.0") == 0;
}

WardenVerdict
warden_network_check (const char * const *allow,
                      const char * const *deny,
                      const char         *host,
                      guint               port,
                      const char        **pattern_out)
{
  if (pattern_out != NULL)
    *pattern_out = NULL;
  for (guint i = 0; deny != NULL && deny[i] != NULL; i++)
    if (warden_host_pattern_match (deny[i], host, port))
      {
        if (pattern_out != NULL)
          *pattern_out = deny[i];
        return WARDEN_VERDICT_DENY;
      }
  for (guint i = 0; allow != NULL && allow[i] != NULL; i++)
    if (warden_host_pattern_match (allow[i], host, port))
      {
        g_autofree char *pattern_host = NULL;
        const char *why = NULL;
        guint pattern_port;

        /* The services of this computer are reached only by naming them:
         * "*" means the hosts out there, not the user's own database. */
        if (is_own_address (host) &&
            split_pattern (allow[i], &pattern_host, &pattern_port, &why) &&
            strchr (pattern_host, '*') != NULL)
          continue;
        if (pattern_out != NULL)
          *pattern_out = allow[i];
        return WARDEN_VERDICT_ALLOW;
      }
  return WARDEN_VERDICT_ASK;
}

char *
warden_network_suggest (const char *host,
                        guint       port)
{
  if (strchr (host, ':') != NULL)
    return g_strdup_printf ("[%s]:%u", host, port);
  return g_strdup_printf ("%s:%u", host, port);
}
