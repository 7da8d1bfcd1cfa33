/* warden-seccomp.h: the system call filter of the bwrap sandbox
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The filter every bwrap command runs under, compiled to BPF for
 * `bwrap --seccomp FD`. In the spirit of Flatpak's: no new namespaces
 * (unshare, setns, clone with CLONE_NEW*, clone3), no mounts (mount, umount,
 * pivot_root, chroot and the new mount API), no kernel keyring, no bpf,
 * ptrace, process_vm_*, perf_event_open, kexec or module loading, no
 * userfaultfd or io_uring, no TIOCSTI/TIOCLINUX, no personality changes, and
 * sockets only of the unix, inet, inet6 and netlink families. Everything
 * else is allowed. Fails with WARDEN_SANDBOX_ERROR_UNAVAILABLE when
 * libseccomp cannot build it. @for_guard: the filter under the exec guard,
 * which traces the command: ptrace is left to the guard, which refuses it
 * to every process it starts. */
GBytes *warden_seccomp_build_filter (gboolean   for_guard,
                                     GError   **error);

G_END_DECLS
