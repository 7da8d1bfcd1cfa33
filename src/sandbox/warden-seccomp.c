/* warden-seccomp.c: the system call filter of the bwrap sandbox
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

/* CLONE_NEW*; must come before the first system header. */
#define _GNU_SOURCE 1

#define G_LOG_DOMAIN "warden-sandbox"

#include <glib/gi18n.h>

#include "warden-seccomp.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <unistd.h>

#include "warden-sandbox.h"

#if __has_include(<seccomp.h>)
#include <seccomp.h>

typedef struct
{
  const char *name;
  int         errnum;
} Blocked;

/* ENOSYS where a caller may fall back to an older call (clone3 → clone, the
 * new mount API, io_uring → plain reads and writes); EPERM elsewhere. */
static const Blocked blocked[] = {
  /* New namespaces and mounts: the sandbox's view of the system is fixed. */
  { "unshare", EPERM }, { "setns", EPERM },
  { "mount", EPERM }, { "umount", EPERM }, { "umount2", EPERM },
  { "pivot_root", EPERM }, { "chroot", EPERM },
  { "clone3", ENOSYS },  /* its flags are in memory seccomp cannot read */
  { "open_tree", ENOSYS }, { "move_mount", ENOSYS }, { "fsopen", ENOSYS },
  { "fsconfig", ENOSYS }, { "fsmount", ENOSYS }, { "fspick", ENOSYS },
  { "mount_setattr", ENOSYS },
  /* The kernel keyring is shared with the host user. */
  { "add_key", EPERM }, { "keyctl", EPERM }, { "request_key", EPERM },
  /* Other processes' memory, the kernel's programs and profiling. */
  { "ptrace", EPERM }, { "process_vm_readv", EPERM }, { "process_vm_writev", EPERM },
  { "bpf", EPERM }, { "perf_event_open", EPERM }, { "userfaultfd", EPERM },
  { "io_uring_setup", ENOSYS }, { "io_uring_enter", ENOSYS }, { "io_uring_register", ENOSYS },
  /* The machine itself. */
  { "kexec_load", EPERM }, { "kexec_file_load", EPERM }, { "init_module", EPERM },
  { "finit_module", EPERM }, { "delete_module", EPERM }, { "reboot", EPERM },
  { "swapon", EPERM }, { "swapoff", EPERM }, { "syslog", EPERM }, { "acct", EPERM },
  { "quotactl", EPERM }, { "uselib", EPERM }, { "open_by_handle_at", EPERM },
  /* NUMA placement reaches beyond the sandbox's own pages. */
  { "move_pages", EPERM }, { "mbind", EPERM }, { "get_mempolicy", EPERM },
  { "set_mempolicy", EPERM }, { "migrate_pages", EPERM },
};

static const int namespace_flags[] = {
  CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID,
  CLONE_NEWNET,
};

static const int allowed_families[] = { AF_UNIX, AF_INET, AF_INET6, AF_NETLINK };

static gboolean
add_rules (scmp_filter_ctx   ctx,
           gboolean          for_guard,
           const char      **failed)
{
  int last_allowed = 0;

  for (guint i = 0; i < G_N_ELEMENTS (blocked); i++)
    {
      int nr = seccomp_syscall_resolve_name (blocked[i].name);

      /* A call this architecture does not have cannot be made either. */
      if (nr == __NR_SCMP_ERROR)
        continue;
      /* The exec guard traces the command; it bans ptrace itself in every
       * process it starts (guard/warden-guard.c). */
      if (for_guard && strcmp (blocked[i].name, "ptrace") == 0)
        continue;
      if (seccomp_rule_add (ctx, SCMP_ACT_ERRNO (blocked[i].errnum), nr, 0) < 0)
        return (*failed = blocked[i].name, FALSE);
    }

  for (guint i = 0; i < G_N_ELEMENTS (namespace_flags); i++)
    if (seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (clone), 1,
                          SCMP_A0 (SCMP_CMP_MASKED_EQ, namespace_flags[i],
                                   namespace_flags[i])) < 0)
      return (*failed = "clone", FALSE);

  /* Typing into the terminal the sandbox was started from (CVE-2017-5226),
   * and copy and paste on a virtual console (CVE-2023-28100). */
  if (seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (ioctl), 1,
                        SCMP_A1 (SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu, TIOCSTI)) < 0 ||
      seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (ioctl), 1,
                        SCMP_A1 (SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu, TIOCLINUX)) < 0)
    return (*failed = "ioctl", FALSE);

  /* No switching to another kernel's behaviour, or turning off ASLR. */
  if (seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (personality), 1,
                        SCMP_A0 (SCMP_CMP_NE, PER_LINUX)) < 0)
    return (*failed = "personality", FALSE);

  /* Sockets: unix, IPv4, IPv6 and netlink (for ip and getaddrinfo); not
   * packet, vsock (the hypervisor), bluetooth, the kernel's crypto API… */
  for (guint i = 0; i < G_N_ELEMENTS (allowed_families); i++)
    {
      for (int family = last_allowed; family < allowed_families[i]; family++)
        if (seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EAFNOSUPPORT), SCMP_SYS (socket), 1,
                              SCMP_A0 (SCMP_CMP_EQ, family)) < 0)
          return (*failed = "socket", FALSE);
      last_allowed = allowed_families[i] + 1;
    }
  if (seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EAFNOSUPPORT), SCMP_SYS (socket), 1,
                        SCMP_A0 (SCMP_CMP_GE, last_allowed)) < 0)
    return (*failed = "socket", FALSE);

  return TRUE;
}

GBytes *
warden_seccomp_build_filter (gboolean   for_guard,
                             GError   **error)
{
  scmp_filter_ctx ctx = seccomp_init (SCMP_ACT_ALLOW);
  const char *failed = NULL;
  FILE *file = NULL;
  GByteArray *bpf = NULL;
  guint8 buffer[4096];
  size_t n;
  int ret;

  if (ctx == NULL)
    {
      g_set_error (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_UNAVAILABLE,
                   _("Could not make the sandbox’s system call filter: libseccomp failed"));
      return NULL;
    }
  /* bwrap sets no_new_privs itself; calls of another architecture (32-bit
   * x86 on x86-64) kill the process instead of slipping past the rules. */
  seccomp_attr_set (ctx, SCMP_FLTATR_CTL_NNP, 0);

  if (!add_rules (ctx, for_guard, &failed))
    {
      g_set_error (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_UNAVAILABLE,
                   _("Could not make the sandbox’s system call filter: the rule for “%s” "
                     "failed"), failed);
      seccomp_release (ctx);
      return NULL;
    }

  file = tmpfile ();
  if (file == NULL || (ret = seccomp_export_bpf (ctx, fileno (file))) < 0)
    {
      g_set_error (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_UNAVAILABLE,
                   _("Could not make the sandbox’s system call filter: %s"),
                   g_strerror (file == NULL ? errno : -ret));
      if (file != NULL)
        fclose (file);
      seccomp_release (ctx);
      return NULL;
    }
  seccomp_release (ctx);

  rewind (file);
  bpf = g_byte_array_new ();
  while ((n = fread (buffer, 1, sizeof buffer, file)) > 0)
    g_byte_array_append (bpf, buffer, n);
  fclose (file);
  return g_byte_array_free_to_bytes (bpf);
}

#else /* no libseccomp */

GBytes *
warden_seccomp_build_filter (gboolean   for_guard,
                             GError   **error)
{
  g_set_error (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_UNAVAILABLE,
               _("This Warden was built without libseccomp, and bubblewrap does not run "
                 "commands without a system call filter: use the Docker backend"));
  return NULL;
}

#endif
