/* untraced.c: a child the tracer is not told about starts a program
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   untraced clone|clone3|vfork|thread
 *
 * Makes a child with CLONE_UNTRACED, which the kernel does not attach to
 * the tracer even under PTRACE_O_TRACECLONE/FORK/VFORK: by a raw clone
 * (fork-like), by clone3 (whose flags sit in memory a seccomp filter cannot
 * read), vfork-style (CLONE_VM|CLONE_VFORK) on a stack of its own, or as a
 * thread of its own process (the exec of a thread replaces the whole
 * process, traced leader included). The child execs "/bin/touch pwned"; if
 * the exec fails it says so. Prints one line per step and exits within 5 s
 * (SIGALRM), having reaped the child.
 */

#define _GNU_SOURCE

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_UNTRACED
#define CLONE_UNTRACED 0x00800000
#endif

static char *const touch_argv[] = { "touch", "pwned", NULL };

/* Async-signal-safe: the vfork child shares its parent's memory. */
static int
run_touch (void *data __attribute__ ((unused)))
{
  static const char msg[] = "exec failed\n";

  prctl (PR_SET_PDEATHSIG, SIGKILL);
  execve ("/bin/touch", touch_argv, environ);
  write (1, msg, sizeof msg - 1);
  _exit (127);
}

static volatile int go;

/* The thread waits until its creator has said so: its exec ends the
 * creator too. */
static int
run_touch_thread (void *data)
{
  while (!go)
    ;
  return run_touch (data);
}

static long
make_child (const char *how)
{
  if (strcmp (how, "clone") == 0)
    return syscall (SYS_clone, CLONE_UNTRACED | SIGCHLD, 0, 0, 0, 0);
  if (strcmp (how, "clone3") == 0)
    {
      struct clone_args args;

      memset (&args, 0, sizeof args);
      args.flags = CLONE_UNTRACED;
      args.exit_signal = SIGCHLD;
      return syscall (SYS_clone3, &args, sizeof args);
    }
  if (strcmp (how, "vfork") == 0)
    {
      static char stack[64 * 1024] __attribute__ ((aligned (16)));

      /* Returns in the parent only: the child runs run_touch. */
      return clone (run_touch, stack + sizeof stack,
                    CLONE_VM | CLONE_VFORK | CLONE_UNTRACED | SIGCHLD, NULL);
    }
  if (strcmp (how, "thread") == 0)
    {
      static char stack[64 * 1024] __attribute__ ((aligned (16)));

      return clone (run_touch_thread, stack + sizeof stack,
                    CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
                    CLONE_SYSVSEM | CLONE_UNTRACED, NULL);
    }
  if (strcmp (how, "listener") == 0)
    {
      /* A filter of its own that hands execve to a listener in the
       * sandbox: its answer (CONTINUE) would beat the guard's
       * SECCOMP_RET_TRACE, the backstop for a process the guard does not
       * trace. Then the untraced child, as above. */
      struct sock_filter insns[] = {
        BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
        BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 0, 1),
        BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
        BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      };
      struct sock_fprog prog = { sizeof insns / sizeof insns[0], insns };
      long fd;

      prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
      fd = syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
      if (fd < 0)
        return -1;
      printf ("listener %ld\n", fd);
      return syscall (SYS_clone, CLONE_UNTRACED | SIGCHLD, 0, 0, 0, 0);
    }
  fprintf (stderr, "untraced: unknown way %s\n", how);
  exit (2);
}

int
main (int    argc,
      char **argv)
{
  long pid;
  int status;

  if (argc != 2)
    {
      fprintf (stderr, "usage: untraced clone|clone3|vfork|thread|listener\n");
      return 2;
    }
  alarm (5);
  setvbuf (stdout, NULL, _IONBF, 0);
  pid = make_child (argv[1]);
  if (pid == 0)
    run_touch (NULL);
  if (pid < 0)
    {
      printf ("%s failed %s\n", argv[1], strerrorname_np (errno));
      return 0;
    }
  printf ("%s ok\n", argv[1]);
  if (strcmp (argv[1], "thread") == 0)
    {
      /* Replaced by touch, or ended with the process when its exec fails. */
      go = 1;
      pause ();
    }
  if (waitpid (pid, &status, __WALL) == pid)
    {
      if (WIFEXITED (status))
        printf ("child exit %d\n", WEXITSTATUS (status));
      else if (WIFSIGNALED (status))
        printf ("child signal %d\n", WTERMSIG (status));
    }
  else
    printf ("wait failed %s\n", strerrorname_np (errno));
  return 0;
}
