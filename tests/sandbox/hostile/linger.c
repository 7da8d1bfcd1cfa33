/* linger.c: leaves a process behind that writes after its command ended
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   linger setsid|untraced|deaf
 *
 * Escapes into the background and returns once out ("escaped"), while what
 * it left waits 2 s and then writes late.txt and, when there is a .git
 * folder, .git/commondir (a repository that would take its config from
 * elsewhere), and exits. setsid: a new session and a double fork; untraced:
 * the first child made with CLONE_UNTRACED, so the guard does not know it;
 * deaf: setsid, double fork, and every signal that can be ignored ignored.
 * No program is started: the guard has nothing to ask, only its end can
 * stop it. Each process exits within 5 s.
 */

#define _GNU_SOURCE

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CLONE_UNTRACED
#define CLONE_UNTRACED 0x00800000
#endif

static void
write_late (void)
{
  int fd;

  sleep (2);
  fd = open ("late.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0)
    {
      write (fd, "late\n", 5);
      close (fd);
    }
  if (access (".git", F_OK) == 0)
    {
      fd = open (".git/commondir", O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0)
        {
          write (fd, "/tmp/elsewhere\n", 15);
          close (fd);
        }
    }
  _exit (0);
}

/* setsid and a second fork: no longer in the command's session or group,
 * and not its child. Says so on @ready once the grandchild is out, so that
 * the command does not return (and get its group killed) before that. */
static void
detach (int deaf,
        int ready)
{
  int null = open ("/dev/null", O_RDWR);

  /* Its output must not keep the command's pipes open. */
  dup2 (null, 0);
  dup2 (null, 1);
  dup2 (null, 2);
  setsid ();
  if (deaf)
    for (int sig = 1; sig < NSIG; sig++)
      if (sig != SIGKILL && sig != SIGSTOP && sig != SIGALRM)
        signal (sig, SIG_IGN);
  if (fork () == 0)
    {
      close (ready);
      alarm (5);
      write_late ();
    }
  write (ready, "x", 1);
  _exit (0);
}

int
main (int    argc,
      char **argv)
{
  long pid;
  int ready[2];
  char byte;

  if (argc != 2)
    {
      fprintf (stderr, "usage: linger setsid|untraced|deaf\n");
      return 2;
    }
  alarm (5);
  if (pipe (ready) != 0)
    return 1;
  if (strcmp (argv[1], "untraced") == 0)
    pid = syscall (SYS_clone, CLONE_UNTRACED | SIGCHLD, 0, 0, 0, 0);
  else
    pid = fork ();
  if (pid == 0)
    {
      close (ready[0]);
      detach (strcmp (argv[1], "deaf") == 0, ready[1]);
    }
  if (pid < 0)
    {
      printf ("%s failed\n", argv[1]);
      return 0;
    }
  close (ready[1]);
  printf ("%s %s\n", argv[1], read (ready[0], &byte, 1) == 1 ? "escaped" : "did not escape");
  return 0;
}
