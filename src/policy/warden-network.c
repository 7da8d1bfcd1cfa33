/* warden-network.c: which hosts a sandbox may reach, by profile
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>

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

/* This computer */

/* An address, or a network, as IPv6 bytes: IPv4 in its mapped form
 * (::ffff:a.b.c.d), so that both spellings are one. */
typedef struct
{
  guint8 bytes[16];
  guint  prefix;     /* bits that count, of 128 */
} Net;

static const guint8 v4_mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

/* What leads here whatever the interfaces say: the loopback, the
 * unspecified addresses (connecting to 0.0.0.0 reaches the loopback), and
 * the link-local ranges, where a cloud's metadata service answers
 * (169.254.169.254) and no host out there can be. */
static const struct
{
  const char *address;
  guint       prefix;
} fixed_nets[] = {
  { "::ffff:127.0.0.0", 96 + 8 },
  { "::ffff:0.0.0.0", 96 + 8 },
  { "::ffff:169.254.0.0", 96 + 16 },
  { "::1", 128 },
  { "::", 128 },
  { "fe80::", 10 },
};

/* The interfaces of a container engine or of virtual machines: what runs
 * behind them is the user's own too (a database in a container), so their
 * whole network counts, not only the host's address on them. */
static const char * const bridge_prefixes[] = {
  "docker", "br-", "podman", "cni", "virbr", "lxcbr", "lxdbr",
};

/* Tests' stand-in for the interfaces' addresses (NULL: the system's). */
static GMutex fake_lock;
static GArray *fake_nets;

static gboolean
net_parse (const char *text,
           Net        *net)
{
  g_autofree char *address = g_strdup (text);
  char *slash = strchr (address, '/');
  struct in_addr v4;
  guint64 prefix = G_MAXUINT64;

  if (slash != NULL)
    {
      *slash = '\0';
      if (!g_ascii_string_to_unsigned (slash + 1, 10, 0, 128, &prefix, NULL))
        return FALSE;
    }
  if (inet_pton (AF_INET, address, &v4) == 1)
    {
      memcpy (net->bytes, v4_mapped, 12);
      memcpy (net->bytes + 12, &v4, 4);
      net->prefix = 96 + (guint) MIN (prefix, 32);
      return TRUE;
    }
  if (inet_pton (AF_INET6, address, net->bytes) == 1)
    {
      net->prefix = (guint) MIN (prefix, 128);
      return TRUE;
    }
  return FALSE;
}

static gboolean
net_contains (const Net    *net,
              const guint8  address[16])
{
  guint whole = net->prefix / 8;
  guint rest = net->prefix % 8;

  if (memcmp (net->bytes, address, whole) != 0)
    return FALSE;
  if (rest == 0)
    return TRUE;
  return ((net->bytes[whole] ^ address[whole]) & (0xff << (8 - rest))) == 0;
}

static guint
mask_bits (const guint8 *mask,
           gsize         len)
{
  guint bits = 0;

  for (gsize i = 0; i < len; i++)
    for (guint8 b = mask[i]; b & 0x80; b <<= 1)
      bits++;
  return bits;
}

/* Read at each question rather than kept: an address the host takes later
 * (a new Wi-Fi network, a VPN, a bridge a container engine makes) counts at
 * once, and one netlink dump costs less than the question itself. */
static gboolean
is_interface_address (const guint8 address[16])
{
  struct ifaddrs *list = NULL;
  gboolean found = FALSE;

  if (getifaddrs (&list) < 0)
    return FALSE;
  for (struct ifaddrs *ifa = list; ifa != NULL && !found; ifa = ifa->ifa_next)
    {
      gboolean bridge = FALSE;
      Net net;

      if (ifa->ifa_addr == NULL)
        continue;
      for (guint i = 0; i < G_N_ELEMENTS (bridge_prefixes) && ifa->ifa_name; i++)
        bridge |= g_str_has_prefix (ifa->ifa_name, bridge_prefixes[i]);
      if (ifa->ifa_addr->sa_family == AF_INET)
        {
          const struct sockaddr_in *in = (const struct sockaddr_in *) ifa->ifa_addr;
          const struct sockaddr_in *mask = (const struct sockaddr_in *) ifa->ifa_netmask;

          memcpy (net.bytes, v4_mapped, 12);
          memcpy (net.bytes + 12, &in->sin_addr, 4);
          net.prefix = 128;
          if (bridge && mask != NULL)
            net.prefix = 96 + mask_bits ((const guint8 *) &mask->sin_addr, 4);
        }
      else if (ifa->ifa_addr->sa_family == AF_INET6)
        {
          const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *) ifa->ifa_addr;
          const struct sockaddr_in6 *mask = (const struct sockaddr_in6 *) ifa->ifa_netmask;

          memcpy (net.bytes, &in6->sin6_addr, 16);
          net.prefix = 128;
          if (bridge && mask != NULL)
            net.prefix = mask_bits ((const guint8 *) &mask->sin6_addr, 16);
        }
      else
        continue;
      found = net_contains (&net, address);
    }
  freeifaddrs (list);
  return found;
}

gboolean
warden_network_is_this_computer (const char *address)
{
  Net parsed;
  gboolean faked;
  gboolean found = FALSE;

  if (address == NULL || strchr (address, '/') != NULL || !net_parse (address, &parsed))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (fixed_nets); i++)
    {
      Net net;

      if (net_parse (fixed_nets[i].address, &net))
        {
          net.prefix = fixed_nets[i].prefix;
          if (net_contains (&net, parsed.bytes))
            return TRUE;
        }
    }
  g_mutex_lock (&fake_lock);
  faked = fake_nets != NULL;
  if (faked)
    for (guint i = 0; i < fake_nets->len && !found; i++)
      found = net_contains (&g_array_index (fake_nets, Net, i), parsed.bytes);
  g_mutex_unlock (&fake_lock);
  if (faked)
    return found;
  return is_interface_address (parsed.bytes);
}

void
warden_network_set_interface_addresses (const char * const *addresses)
{
  g_mutex_lock (&fake_lock);
  g_clear_pointer (&fake_nets, g_array_unref);
  if (addresses != NULL)
    {
      fake_nets = g_array_new (FALSE, FALSE, sizeof (Net));
      for (guint i = 0; addresses[i] != NULL; i++)
        {
          Net net;

          if (net_parse (addresses[i], &net))
            g_array_append_val (fake_nets, net);
          else
            g_warning ("Not an address: %s", addresses[i]);
        }
    }
  g_mutex_unlock (&fake_lock);
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
        if (warden_network_is_this_computer (host) &&
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

char *
warden_network_parse_target (const char *text,
                             guint      *port)
{
  g_autofree char *host = NULL;
  const char *colon;

  *port = 443;
  if (text == NULL)
    return NULL;
  if (text[0] == '[')
    {
      const char *close = strchr (text, ']');

      if (close == NULL)
        return NULL;
      host = g_strndup (text + 1, close - text - 1);
      colon = close[1] == ':' ? close + 1 : NULL;
      if (close[1] != '\0' && colon == NULL)
        return NULL;
    }
  else
    {
      colon = strrchr (text, ':');
      if (colon != NULL && strchr (text, ':') != colon)
        colon = NULL;  /* a bare IPv6 address */
      host = colon ? g_strndup (text, colon - text) : g_strdup (text);
    }
  if (colon != NULL)
    {
      guint64 value;

      if (!g_ascii_string_to_unsigned (colon + 1, 10, 1, 65535, &value, NULL))
        return NULL;
      *port = (guint) value;
    }
  return warden_network_normalize_host (host);
}

gboolean
warden_network_is_address (const char *host)
{
  g_autoptr(GInetAddress) address = NULL;

  if (host == NULL)
    return FALSE;
  address = g_inet_address_new_from_string (host);
  return address != NULL;
}

const char *
warden_network_wildcard_passed (const char * const *allow,
                                const char         *host,
                                guint               port)
{
  if (!warden_network_is_this_computer (host))
    return NULL;
  for (guint i = 0; allow != NULL && allow[i] != NULL; i++)
    if (warden_host_pattern_match (allow[i], host, port) && strchr (allow[i], '*') != NULL)
      {
        g_autofree char *pattern_host = NULL;
        const char *why = NULL;
        guint pattern_port;

        if (split_pattern (allow[i], &pattern_host, &pattern_port, &why) &&
            strchr (pattern_host, '*') != NULL)
          return allow[i];
      }
  return NULL;
}
