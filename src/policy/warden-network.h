/* warden-network.h: which hosts a sandbox may reach, by profile
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A profile's "network" section: a mode, and host patterns to allow and to
 * deny, matched against the host and port a connection from the sandbox
 * wants (through Warden's proxy, the sandbox's only way out).
 *
 * A host pattern is HOST or HOST:PORT. HOST is a name or an address, in
 * any case, where * stands for any run of characters (dots included:
 * *.github.com is api.github.com and a.b.github.com, not github.com); an
 * IPv6 address goes in brackets ([::1]:443). PORT is a number or *; a
 * pattern without one matches every port.
 */

#pragma once

#include <glib.h>

#include "warden-policy-types.h"

G_BEGIN_DECLS

typedef enum
{
  WARDEN_NETWORK_NONE,       /* "none": no network at all (the default) */
  WARDEN_NETWORK_ALLOWLIST,  /* "allowlist": only through the proxy, host by host */
  WARDEN_NETWORK_OPEN,       /* "open": every host (the old "bridge") */
} WardenNetworkMode;

const char    *warden_network_mode_to_string   (WardenNetworkMode   mode);
/* Takes "bridge" for "open", as settings and older command lines say it. */
gboolean       warden_network_mode_from_string (const char         *str,
                                                WardenNetworkMode  *mode);

/* FALSE with a WARDEN_POLICY_ERROR_INVALID that says what is wrong. */
gboolean       warden_host_pattern_validate    (const char         *pattern,
                                                GError            **error);
/* @pattern lowercased, the brackets of a bare IPv6 address added; NULL
 * when it is not valid. */
char          *warden_host_pattern_normalize   (const char         *pattern);
/* @host as warden_network_normalize_host() gives it. */
gboolean       warden_host_pattern_match       (const char         *pattern,
                                                const char         *host,
                                                guint               port);
/* Lowercase, without a trailing dot or an IPv6 address's brackets; NULL
 * when @host cannot be a host name or an address. */
char          *warden_network_normalize_host   (const char         *host);

/* The verdict for @host:@port: a deny pattern first, then an allow pattern,
 * else ASK. An address of this computer (warden_network_is_this_computer())
 * is allowed only by a pattern whose host has no *; a name is judged here by
 * its patterns, and the address it resolves to by the proxy when it
 * connects. @pattern_out, when not NULL, gets the pattern that decided. */
WardenVerdict  warden_network_check            (const char * const *allow,
                                                const char * const *deny,
                                                const char         *host,
                                                guint               port,
                                                const char        **pattern_out);
/* Whether the address @address (text, as warden_network_normalize_host()
 * gives it; FALSE for a name) leads into this computer: an address of one
 * of its interfaces, read now (the bridges of Docker, Podman and virtual
 * machines too, with the networks behind them), 127.0.0.0/8, ::1, 0.0.0.0/8
 * and ::, the link-local 169.254.0.0/16 (cloud metadata) and fe80::/10,
 * each in its IPv4-mapped spelling too. A pattern with * never allows
 * these: warden_network_check() lets only a pattern that names one reach
 * it. */
gboolean       warden_network_is_this_computer (const char         *address);
/* For tests: @addresses ("192.168.1.5", "10.0.0.0/8") stand for the
 * interfaces' addresses; NULL reads the system's again. */
void           warden_network_set_interface_addresses (const char * const *addresses);

/* "registry.npmjs.org", "example.com:80", "[::1]:8080", "::1": the host as
 * warden_network_normalize_host() gives it, and in @port the port, 443 when
 * none is given (what npm, pip and git over https reach); NULL when @text
 * is not a host with an optional port. */
char          *warden_network_parse_target     (const char         *text,
                                                guint              *port);
/* Whether @host is an address rather than a name. */
gboolean       warden_network_is_address       (const char         *host);
/* When @host is this computer and an allow pattern with * matches it
 * (which warden_network_check() then passes over), that pattern; else
 * NULL. For saying why such a host is asked about. */
const char    *warden_network_wildcard_passed  (const char * const *allow,
                                                const char         *host,
                                                guint               port);

/* What "Always allow" saves for @host:@port: "host:port" ([v6]:port). */
char          *warden_network_suggest          (const char         *host,
                                                guint               port);

G_END_DECLS
