/* warden-net-proxy.h: the one way out of a sandbox, host by host
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* A proxy on the host that a sandbox without a network reaches through a
 * unix socket bridged into it. Every connection speaks HTTP proxy (CONNECT
 * host:port, or one absolute-form plain-HTTP request such as GET
 * http://host/path) or SOCKS5 (no authentication; CONNECT to a domain name,
 * an IPv4 or an IPv6 address), told apart by its first byte. Each
 * connection asks the caller once, before anything is resolved or
 * connected, whether it may reach its host and port; the proxy resolves
 * names itself (the sandbox has no resolver) and then splices the bytes
 * both ways in the kernel.
 *
 * A plain-HTTP connection carries one request: the request goes out with
 * `Connection: close` and the answer comes back with it, so a client that
 * keeps connections alive opens a new one, and asks again, for its next
 * request. Whatever a client sends after its decision reaches only the
 * host that was decided.
 *
 * A name the system resolves to an address of this computer (a rebinding:
 * an allowed name pointing at the host's own services; see
 * warden_network_is_this_computer(): its interfaces' addresses, the
 * bridges' networks, loopback, unspecified and link-local, where the cloud's
 * metadata service answers) is not connected to; an IP literal, or a name
 * from the hosts file, is: the caller judged that very address.
 *
 * A client that shuts down its sending side before its answer counts as
 * gone (as Squid's half_closed_clients off): a relay passes a client's
 * hang-up on as a full close. Once connected, half-closes travel both ways.
 *
 * Everything runs on the main context the proxy was made in; no threads
 * but GResolver's own. */
typedef struct _WardenNetProxy   WardenNetProxy;
/* One new host:port that one connection wants to reach. */
typedef struct _WardenNetRequest WardenNetRequest;

/* Called once per connection, on the proxy's main context, before anything
 * is resolved or connected. Keep a reference to @request to answer later:
 * a request whose last reference goes unanswered is refused. It may answer
 * at once, but not free the proxy. */
typedef void (*WardenNetDecideFunc) (WardenNetRequest *request,
                                     gpointer          user_data);
/* Called once, when the client of a request that has not been answered
 * yet goes away, or when the proxy is freed before its answer. */
typedef void (*WardenNetClosedFunc) (WardenNetRequest *request,
                                     gpointer          user_data);

/* Listens on the unix socket @socket_path, made 0600 (its folder is the
 * caller's, and should be private: the socket exists a moment before its
 * mode is set). Fails with G_IO_ERROR_EXISTS when something is already
 * there, or with the error of socket(2), bind(2) or listen(2). */
WardenNetProxy   *warden_net_proxy_new             (const char          *socket_path,
                                                    WardenNetDecideFunc  decide,
                                                    gpointer             user_data,
                                                    GDestroyNotify       destroy,
                                                    GError             **error);
/* Names are looked up in @path (/etc/hosts format) first, then by the
 * system: tests reach local servers by made-up names. The file is read
 * now; call again to read it again. NULL: the system only. On error the
 * previous file's names stay. */
gboolean          warden_net_proxy_set_hosts_file  (WardenNetProxy      *self,
                                                    const char          *path,
                                                    GError             **error);
/* Connections open now: waiting for an answer, connecting, or carrying
 * bytes. */
guint             warden_net_proxy_get_n_connections (WardenNetProxy    *self);
/* Stops listening, removes the socket, closes every connection; requests
 * still waiting are closed (their closed function runs) and refused. */
void              warden_net_proxy_free            (WardenNetProxy      *self);

/* Lowercase, no trailing dot, ASCII (an international name arrives in its
 * xn-- form); an IP literal as text in its usual form (IPv6 without
 * brackets; 0x7f.1 or 2130706433 become 127.0.0.1). */
const char       *warden_net_request_get_host      (WardenNetRequest    *request);
guint16           warden_net_request_get_port      (WardenNetRequest    *request);
/* "connect" (HTTP CONNECT), "http" (one plain-HTTP request) or "socks5". */
const char       *warden_net_request_get_protocol  (WardenNetRequest    *request);

WardenNetRequest *warden_net_request_ref           (WardenNetRequest    *request);
void              warden_net_request_unref         (WardenNetRequest    *request);

/* At most once, on the proxy's main context, at any time: the connection
 * waits meanwhile (minutes if need be). @message (nullable) is told to
 * the program when refused: in the 403's reason phrase and body for HTTP;
 * SOCKS5 has room for a code only (0x02, "not allowed by ruleset").
 * Answering a request whose client went away does nothing. */
void              warden_net_request_answer        (WardenNetRequest    *request,
                                                    gboolean             allowed,
                                                    const char          *message);
/* The client went away before the answer, or the proxy was freed: the
 * question can be withdrawn. */
gboolean          warden_net_request_is_closed     (WardenNetRequest    *request);
/* @func runs once when the request becomes closed (never after an answer:
 * an answered request is the proxy's business). Replaces an earlier one;
 * @destroy runs on @user_data when replaced or when the request is freed. */
void              warden_net_request_set_closed_func (WardenNetRequest  *request,
                                                    WardenNetClosedFunc  func,
                                                    gpointer             user_data,
                                                    GDestroyNotify       destroy);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenNetProxy, warden_net_proxy_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenNetRequest, warden_net_request_unref)

G_END_DECLS
