/* test-network.c: host patterns and the network section's verdicts
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <sys/socket.h>

#include "policy/warden-network.h"

static void
test_mode_names (void)
{
  WardenNetworkMode mode;

  for (guint i = WARDEN_NETWORK_NONE; i <= WARDEN_NETWORK_OPEN; i++)
    {
      g_assert_true (warden_network_mode_from_string (warden_network_mode_to_string (i), &mode));
      g_assert_cmpint (mode, ==, i);
    }
  /* What settings and older command lines call it. */
  g_assert_true (warden_network_mode_from_string ("bridge", &mode));
  g_assert_cmpint (mode, ==, WARDEN_NETWORK_OPEN);
  g_assert_false (warden_network_mode_from_string ("all", &mode));
  g_assert_false (warden_network_mode_from_string (NULL, &mode));
}

static void
test_validate (void)
{
  static const char *valid[] = {
    "registry.npmjs.org", "*.github.com:443", "*", "*:443", "localhost:*", "127.0.0.1",
    "[::1]", "[::1]:8080", "[2001:db8::*]:443", "Files.PythonHosted.org", "my_host:22",
  };
  static const struct { const char *pattern; const char *why; } invalid[] = {
    { "", "empty" },
    { "::1", "brackets" },
    { "[::1", "closing bracket" },
    { "[::1]x", "only" },
    { "host:0", "port" },
    { "host:65536", "port" },
    { "host:", "port" },
    { "host:http", "port" },
    { ":443", "names no host" },
    { "ho st", "letters" },
    { "evil.example/path", "letters" },
    { "a;b", "letters" },
    { "[::g]", "hexadecimal" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (valid); i++)
    {
      g_autoptr(GError) error = NULL;

      g_test_message ("%s", valid[i]);
      g_assert_true (warden_host_pattern_validate (valid[i], &error));
      g_assert_no_error (error);
    }
  for (guint i = 0; i < G_N_ELEMENTS (invalid); i++)
    {
      g_autoptr(GError) error = NULL;

      g_test_message ("%s", invalid[i].pattern);
      g_assert_false (warden_host_pattern_validate (invalid[i].pattern, &error));
      g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID);
      g_assert_nonnull (strstr (error->message, invalid[i].why));
    }
}

static void
test_normalize (void)
{
  static const struct { const char *host; const char *normal; } hosts[] = {
    { "Registry.NPMJS.org", "registry.npmjs.org" },
    { "example.com.", "example.com" },
    { "[::1]", "::1" },
    { "0:0:0:0:0:0:0:1", "::1" },
    /* One spelling for an address: the resolver reads all these as 127.0.0.1. */
    { "127.1", "127.0.0.1" },
    { "0x7f.0.0.1", "127.0.0.1" },
    { "2130706433", "127.0.0.1" },
    { "017700000001", "127.0.0.1" },
    { "bad.cafe", "bad.cafe" },
    { "", NULL },
    { ".", NULL },
    { "a..b", NULL },
    { "evil.example/x", NULL },
    { "a b", NULL },
    { "::g", NULL },
  };
  static const struct { const char *pattern; const char *normal; } patterns[] = {
    { "GitHub.com", "github.com" },
    { "*.GitHub.com:443", "*.github.com:443" },
    { "host:*", "host:*" },
    { "::1", NULL },
    { "[::1]", "[::1]" },
    { "[::1]:22", "[::1]:22" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (hosts); i++)
    {
      g_autofree char *normal = warden_network_normalize_host (hosts[i].host);

      g_test_message ("%s", hosts[i].host);
      g_assert_cmpstr (normal, ==, hosts[i].normal);
    }
  for (guint i = 0; i < G_N_ELEMENTS (patterns); i++)
    {
      g_autofree char *normal = warden_host_pattern_normalize (patterns[i].pattern);

      g_assert_cmpstr (normal, ==, patterns[i].normal);
    }
}

static void
test_match (void)
{
  static const struct { const char *pattern; const char *host; guint port; gboolean match; } cases[] = {
    { "registry.npmjs.org", "registry.npmjs.org", 443, TRUE },
    { "registry.npmjs.org", "registry.npmjs.org", 80, TRUE },
    { "registry.npmjs.org:443", "registry.npmjs.org", 80, FALSE },
    { "REGISTRY.npmjs.org:443", "registry.npmjs.org", 443, TRUE },
    { "*.github.com:443", "api.github.com", 443, TRUE },
    { "*.github.com:443", "a.b.github.com", 443, TRUE },
    { "*.github.com:443", "github.com", 443, FALSE },
    { "*.github.com:443", "evilgithub.com", 443, FALSE },
    { "*.github.com:443", "api.github.com.evil.example", 443, FALSE },
    { "*.github.com", "api.github.com", 22, TRUE },
    { "*", "anything.example", 1, TRUE },
    { "*:443", "anything.example", 80, FALSE },
    { "127.0.0.1", "127.0.0.1", 8080, TRUE },
    { "127.0.0.*", "127.0.0.9", 8080, TRUE },
    { "[::1]:8080", "::1", 8080, TRUE },
    { "[::1]:8080", "::1", 8081, FALSE },
    { "pypi.org", "pypi.org.evil.example", 443, FALSE },
    { "host:*", "host", 5, TRUE },
    { "::1", "::1", 1, FALSE },  /* not a pattern */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("%s ~ %s:%u", cases[i].pattern, cases[i].host, cases[i].port);
      g_assert_cmpint (warden_host_pattern_match (cases[i].pattern, cases[i].host, cases[i].port),
                       ==, cases[i].match);
    }
}

static void
test_check (void)
{
  const char *allow[] = { "registry.npmjs.org:443", "*.github.com:443", NULL };
  const char *deny[] = { "*.evil.example", "169.254.169.254", NULL };
  const char *pattern = NULL;

  g_assert_cmpint (warden_network_check (allow, deny, "registry.npmjs.org", 443, &pattern), ==,
                   WARDEN_VERDICT_ALLOW);
  g_assert_cmpstr (pattern, ==, "registry.npmjs.org:443");
  g_assert_cmpint (warden_network_check (allow, deny, "registry.npmjs.org", 80, &pattern), ==,
                   WARDEN_VERDICT_ASK);
  g_assert_null (pattern);
  g_assert_cmpint (warden_network_check (allow, deny, "x.evil.example", 443, &pattern), ==,
                   WARDEN_VERDICT_DENY);
  g_assert_cmpstr (pattern, ==, "*.evil.example");
  /* Deny first, whatever allows it too. */
  {
    const char *all[] = { "*", NULL };

    g_assert_cmpint (warden_network_check (all, deny, "169.254.169.254", 80, &pattern), ==,
                     WARDEN_VERDICT_DENY);
  }
  g_assert_cmpint (warden_network_check (NULL, NULL, "example.com", 443, NULL), ==,
                   WARDEN_VERDICT_ASK);

  /* This computer's own services are not among "every host": only a
   * pattern that names them allows them. */
  {
    const char *wide[] = { "*", "127.*", "*:5432", NULL };
    const char *named[] = { "*", "127.0.0.1:5432", NULL };
    const char *own[] = { "127.0.0.1", "127.1.2.3", "::1", "0.0.0.0", "::", "::ffff:127.0.0.1",
                          NULL };

    for (guint i = 0; own[i] != NULL; i++)
      {
        g_test_message ("%s", own[i]);
        g_assert_cmpint (warden_network_check (wide, NULL, own[i], 5432, NULL), ==,
                         WARDEN_VERDICT_ASK);
      }
    g_assert_cmpint (warden_network_check (named, NULL, "127.0.0.1", 5432, &pattern), ==,
                     WARDEN_VERDICT_ALLOW);
    g_assert_cmpstr (pattern, ==, "127.0.0.1:5432");
    g_assert_cmpint (warden_network_check (wide, NULL, "128.0.0.1", 5432, NULL), ==,
                     WARDEN_VERDICT_ALLOW);
  }
}

/* Every address that leads into this computer, not only its loopback: the
 * link-local ranges (a cloud's metadata service at 169.254.169.254 answers
 * there), in their IPv4-mapped spellings too. "*" does not reach them; a
 * pattern that names one does. */
static void
test_check_link_local (void)
{
  const char *wide[] = { "*:8080", "169.254.*", "fe80:*", NULL };
  const char *named[] = { "*:8080", "169.254.169.254:8080", "[fe80::1]:8080", NULL };
  const char *own[] = { "169.254.169.254", "169.254.0.1", "fe80::1", "febf::1",
                        "::ffff:169.254.169.254", "0.1.2.3", NULL };
  const char *pattern = NULL;

  for (guint i = 0; own[i] != NULL; i++)
    {
      g_test_message ("%s", own[i]);
      g_assert_cmpint (warden_network_check (wide, NULL, own[i], 8080, NULL), ==,
                       WARDEN_VERDICT_ASK);
    }
  g_assert_cmpint (warden_network_check (named, NULL, "169.254.169.254", 8080, &pattern), ==,
                   WARDEN_VERDICT_ALLOW);
  g_assert_cmpstr (pattern, ==, "169.254.169.254:8080");
  g_assert_cmpint (warden_network_check (named, NULL, "fe80::1", 8080, &pattern), ==,
                   WARDEN_VERDICT_ALLOW);
  g_assert_cmpstr (pattern, ==, "[fe80::1]:8080");
  /* Next door is out there. */
  g_assert_cmpint (warden_network_check (wide, NULL, "169.255.0.1", 8080, NULL), ==,
                   WARDEN_VERDICT_ALLOW);
  g_assert_cmpint (warden_network_check (wide, NULL, "fec0::1", 8080, NULL), ==,
                   WARDEN_VERDICT_ALLOW);
}

/* The host's own addresses on its networks (a fixed table standing for its
 * interfaces): its LAN address and a container bridge's network are this
 * computer, in both spellings; "*:8080" does not reach them, naming one
 * does. */
static void
test_check_interfaces (void)
{
  const char *table[] = { "192.168.77.5", "2001:db8::5", "172.17.0.0/16", NULL };
  const char *wide[] = { "*:8080", "192.168.*", NULL };
  const char *named[] = { "*:8080", "192.168.77.5:8080", "[2001:db8::5]", NULL };
  const char *own[] = { "192.168.77.5", "::ffff:192.168.77.5", "2001:db8::5", "172.17.0.1",
                        "172.17.255.3", NULL };
  const char *pattern = NULL;

  warden_network_set_interface_addresses (table);
  for (guint i = 0; own[i] != NULL; i++)
    {
      g_test_message ("%s", own[i]);
      g_assert_true (warden_network_is_this_computer (own[i]));
      g_assert_cmpint (warden_network_check (wide, NULL, own[i], 8080, NULL), ==,
                       WARDEN_VERDICT_ASK);
    }
  g_assert_cmpint (warden_network_check (named, NULL, "192.168.77.5", 8080, &pattern), ==,
                   WARDEN_VERDICT_ALLOW);
  g_assert_cmpstr (pattern, ==, "192.168.77.5:8080");
  g_assert_cmpint (warden_network_check (named, NULL, "2001:db8::5", 22, &pattern), ==,
                   WARDEN_VERDICT_ALLOW);
  g_assert_cmpstr (pattern, ==, "[2001:db8::5]");
  /* A neighbour on the LAN is another computer; a name is judged by what
   * it resolves to, when connecting. */
  g_assert_false (warden_network_is_this_computer ("192.168.77.6"));
  g_assert_false (warden_network_is_this_computer ("172.18.0.1"));
  g_assert_false (warden_network_is_this_computer ("example.com"));
  g_assert_cmpint (warden_network_check (wide, NULL, "192.168.77.6", 8080, NULL), ==,
                   WARDEN_VERDICT_ALLOW);
  warden_network_set_interface_addresses (NULL);
}

/* Without the table, the system's interfaces: every address this machine
 * has counts (nothing is sent anywhere). */
static void
test_real_interfaces (void)
{
  struct ifaddrs *list = NULL;
  guint n = 0;

  g_assert_cmpint (getifaddrs (&list), ==, 0);
  for (struct ifaddrs *ifa = list; ifa != NULL; ifa = ifa->ifa_next)
    {
      char text[INET6_ADDRSTRLEN];
      const void *bytes;

      if (ifa->ifa_addr == NULL ||
          (ifa->ifa_addr->sa_family != AF_INET && ifa->ifa_addr->sa_family != AF_INET6))
        continue;
      bytes = ifa->ifa_addr->sa_family == AF_INET
                ? (const void *) &((struct sockaddr_in *) ifa->ifa_addr)->sin_addr
                : (const void *) &((struct sockaddr_in6 *) ifa->ifa_addr)->sin6_addr;
      g_assert_nonnull (inet_ntop (ifa->ifa_addr->sa_family, bytes, text, sizeof text));
      g_test_message ("%s: %s", ifa->ifa_name, text);
      g_assert_true (warden_network_is_this_computer (text));
      n++;
    }
  freeifaddrs (list);
  /* A build in a network namespace of its own may have none at all. */
  g_test_message ("%u addresses", n);
  g_assert_false (warden_network_is_this_computer ("198.51.100.7"));
}

static void
test_suggest (void)
{
  g_autofree char *name = warden_network_suggest ("registry.npmjs.org", 443);
  g_autofree char *v6 = warden_network_suggest ("::1", 8080);

  g_assert_cmpstr (name, ==, "registry.npmjs.org:443");
  g_assert_cmpstr (v6, ==, "[::1]:8080");
  /* What is suggested is a pattern that matches what asked. */
  g_assert_true (warden_host_pattern_validate (v6, NULL));
  g_assert_true (warden_host_pattern_match (v6, "::1", 8080));
  g_assert_true (warden_host_pattern_match (name, "registry.npmjs.org", 443));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/network/mode-names", test_mode_names);
  g_test_add_func ("/network/validate", test_validate);
  g_test_add_func ("/network/normalize", test_normalize);
  g_test_add_func ("/network/match", test_match);
  g_test_add_func ("/network/check", test_check);
  g_test_add_func ("/network/check-link-local", test_check_link_local);
  g_test_add_func ("/network/check-interfaces", test_check_interfaces);
  g_test_add_func ("/network/real-interfaces", test_real_interfaces);
  g_test_add_func ("/network/suggest", test_suggest);

  return g_test_run ();
}
