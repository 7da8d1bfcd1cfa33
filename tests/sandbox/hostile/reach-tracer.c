/* reach-tracer.c: a traced program goes for its tracer
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   reach-tracer
 *
 * Reads TracerPid from /proc/self/status, then tries what would let it
 * change the tracer's answers or speak in its name: its memory through
 * /proc/PID/mem (a byte written back unchanged) and process_vm_readv, its
 * descriptors through pidfd_getfd (a forged question written on each socket
 * it gets), its environment and descriptor list in /proc, SIGSTOP (and
 * SIGCONT at once if that worked, so nothing hangs) directly and through a
 * pidfd (from pidfd_open and from its /proc folder), and prlimit. The same
 * against the tracer's parent when that is a warden-guard too (the warm
 * runner or the relay). One line per attempt: "TARGET ATTEMPT ok" or
 * "TARGET ATTEMPT failed ERRNO". Exits within 10 s.
 */

#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

/* Both spellings of a question: the protocol before issue 24, and after
 * (CWD EXE ENV CUT SCRIPT ARGC ARGV…). Any text would do: Warden must not
 * ask about a process the guard is not holding. */
static const char forged[] =
  "exec 999 1 0\t/\t2\tgit\tpush\n"
  "exec 998 1 0\t/\t/usr/bin/git\t\t0\t0\t2\tgit\tpush\n";

static void
report (const char *target,
        const char *attempt,
        int         ok,
        int         err)
{
  if (ok)
    printf ("%s %s ok\n", target, attempt);
  else
    printf ("%s %s failed %s\n", target, attempt, strerrorname_np (err));
}

static int
status_field (int         pid,
              const char *name)
{
  char path[64], line[256];
  size_t len = strlen (name);
  FILE *f;
  int value = -1;

  snprintf (path, sizeof path, "/proc/%d/status", pid);
  f = fopen (path, "r");
  if (f == NULL)
    return -1;
  while (fgets (line, sizeof line, f) != NULL)
    if (strncmp (line, name, len) == 0 && line[len] == ':')
      value = atoi (line + len + 1);
  fclose (f);
  return value;
}

/* A mapped address of @pid, from its maps (readable only with ptrace
 * access); 0 when hidden. */
static unsigned long
some_address (int pid)
{
  char path[64];
  unsigned long start = 0;
  FILE *f;

  snprintf (path, sizeof path, "/proc/%d/maps", pid);
  f = fopen (path, "r");
  if (f == NULL)
    return 0;
  if (fscanf (f, "%lx-", &start) != 1)
    start = 0;
  fclose (f);
  return start;
}

static void
try_mem (const char *target,
         int         pid)
{
  char path[64];
  unsigned long addr = some_address (pid);
  unsigned char byte;
  int fd;

  snprintf (path, sizeof path, "/proc/%d/mem", pid);
  fd = open (path, O_RDWR);
  if (fd < 0)
    {
      report (target, "mem-write", 0, errno);
      return;
    }
  /* Opening it read-write is the breach; writing back the byte that is
   * there shows it, without breaking the guard for the tests after. */
  if (addr != 0 && pread (fd, &byte, 1, addr) == 1 && pwrite (fd, &byte, 1, addr) == 1)
    printf ("%s wrote a byte at %#lx\n", target, addr);
  close (fd);
  report (target, "mem-write", 1, 0);
}

static void
try_vm_readv (const char *target,
              int         pid)
{
  unsigned long addr = some_address (pid);
  char buf[16];
  struct iovec local = { buf, sizeof buf };
  struct iovec remote = { (void *) (addr ? addr : 0x400000), sizeof buf };
  ssize_t n = syscall (SYS_process_vm_readv, pid, &local, 1, &remote, 1, 0);

  /* EFAULT comes after the permission check: access was granted. */
  report (target, "vm-readv", n > 0 || errno == EFAULT, errno);
}

static void
try_getfd (const char *target,
           int         pid)
{
  int pidfd = syscall (SYS_pidfd_open, pid, 0);
  int got = 0, err;

  if (pidfd < 0)
    {
      report (target, "pidfd-getfd", 0, errno);
      report (target, "pidfd-signal", 0, errno);
      return;
    }
  err = EBADF;
  for (int fd = 0; fd <= 20; fd++)
    {
      int copy = syscall (SYS_pidfd_getfd, pidfd, fd, 0);
      struct stat st;

      if (copy < 0)
        {
          if (errno != EBADF)
            err = errno;
          continue;
        }
      got++;
      if (fstat (copy, &st) == 0 && S_ISSOCK (st.st_mode))
        {
          ssize_t n = send (copy, forged, sizeof forged - 1, MSG_DONTWAIT | MSG_NOSIGNAL);

          printf ("%s forged on fd %d: %s\n", target, fd, n > 0 ? "sent" : strerrorname_np (errno));
        }
      close (copy);
    }
  report (target, "pidfd-getfd", got > 0, err);
  if (syscall (SYS_pidfd_send_signal, pidfd, SIGSTOP, NULL, 0) == 0)
    {
      syscall (SYS_pidfd_send_signal, pidfd, SIGCONT, NULL, 0);
      report (target, "pidfd-signal", 1, 0);
    }
  else
    report (target, "pidfd-signal", 0, errno);
  close (pidfd);
}

/* A /proc/PID folder opened is a pidfd too, for pidfd_send_signal: no
 * pidfd_open needed. */
static void
try_proc_pidfd (const char *target,
                int         pid)
{
  char path[64];
  int fd;

  snprintf (path, sizeof path, "/proc/%d", pid);
  fd = open (path, O_RDONLY | O_DIRECTORY);
  if (fd < 0)
    {
      report (target, "proc-pidfd-signal", 0, errno);
      return;
    }
  if (syscall (SYS_pidfd_send_signal, fd, SIGSTOP, NULL, 0) == 0)
    {
      syscall (SYS_pidfd_send_signal, fd, SIGCONT, NULL, 0);
      kill (pid, SIGCONT);
      report (target, "proc-pidfd-signal", 1, 0);
    }
  else
    report (target, "proc-pidfd-signal", 0, errno);
  close (fd);
}

static void
try_proc (const char *target,
          int         pid)
{
  char path[64], buf[256];
  DIR *dir;
  int fd;

  snprintf (path, sizeof path, "/proc/%d/environ", pid);
  fd = open (path, O_RDONLY);
  if (fd >= 0)
    {
      ssize_t n = read (fd, buf, sizeof buf);

      report (target, "environ", n >= 0, errno);
      close (fd);
    }
  else
    report (target, "environ", 0, errno);

  /* The numbers of its descriptors may show (the folder belongs to the
   * sandbox's root when the tracer is not dumpable); what counts is whether
   * one can be opened or read as a link. */
  {
    int opened = 0, saved = ENOENT;

    for (int n = 0; n <= 20 && !opened; n++)
      {
        char link[256];
        int fd2;

        snprintf (path, sizeof path, "/proc/%d/fd/%d", pid, n);
        if ((fd2 = open (path, O_RDWR)) >= 0 || (fd2 = open (path, O_RDONLY)) >= 0)
          {
            opened = 1;
            close (fd2);
          }
        else if (readlink (path, link, sizeof link) >= 0)
          opened = 1;
        else if (errno != ENOENT)
          saved = errno;
      }
    report (target, "fd-open", opened, saved);
  }
  (void) dir;
}

static void
try_signals (const char *target,
             int         pid)
{
  struct rlimit limit;
  pid_t group = getpgid (pid);

  /* Joining its process group would let kill (0, SIGSTOP) reach it. */
  if (group > 0 && group != getpid () && setpgid (0, group) == 0 && getpgid (0) == group)
    report (target, "join-group", 1, 0);
  else
    report (target, "join-group", 0, group > 0 ? errno : ESRCH);

  if (kill (pid, SIGSTOP) == 0)
    {
      kill (pid, SIGCONT);
      report (target, "kill-stop", 1, 0);
    }
  else
    report (target, "kill-stop", 0, errno);

  /* Setting the limit it has: allowed means any limit could be set. */
  if (prlimit (pid, RLIMIT_NOFILE, NULL, &limit) == 0)
    report (target, "prlimit", prlimit (pid, RLIMIT_NOFILE, &limit, NULL) == 0, errno);
  else
    report (target, "prlimit", 0, errno);
}

static void
attack (const char *target,
        int         pid)
{
  printf ("%s pid %d\n", target, pid);
  try_mem (target, pid);
  try_vm_readv (target, pid);
  try_getfd (target, pid);
  try_proc_pidfd (target, pid);
  try_proc (target, pid);
  try_signals (target, pid);
}

static int
is_guard (int pid)
{
  char path[64], comm[64] = "";
  FILE *f;

  snprintf (path, sizeof path, "/proc/%d/comm", pid);
  f = fopen (path, "r");
  if (f == NULL)
    return 0;
  if (fgets (comm, sizeof comm, f) == NULL)
    comm[0] = '\0';
  fclose (f);
  return strncmp (comm, "warden-guard", 12) == 0;
}

int
main (void)
{
  int tracer, parent;

  alarm (10);
  setvbuf (stdout, NULL, _IOLBF, 0);
  tracer = status_field (getpid (), "TracerPid");
  if (tracer <= 0)
    {
      printf ("no tracer\n");
      return 1;
    }
  attack ("tracer", tracer);
  parent = status_field (tracer, "PPid");
  if (parent > 0 && is_guard (parent))
    attack ("parent", parent);
  printf ("done\n");
  return 0;
}
