/* leftover.c: a process that outlives the command that started it, as
 * hostile code would leave one behind
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   leftover untraced FILE   a child made by clone() with CLONE_UNTRACED (the
 *                            kernel does not attach it to a tracer), in a
 *                            session of its own, writes FILE 2 s later
 *   leftover sleeper FILE    a plain child in a session of its own that only
 *                            sleeps, then writes FILE 2 s later: followed
 *                            by a tracer, it never stops for it
 *   leftover hopper FILE     a child in a session of its own that forks and
 *                            lets its parent exit every 50 ms (its PID keeps
 *                            changing while a sweep looks), then writes FILE
 *                            2 s later
 *
 * The command itself returns at once, its output closed. Built static: it
 * runs in any image.
 */

#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void
detach (void)
{
  int null = open ("/dev/null", O_RDWR);

  setsid ();
  dup2 (null, 0);
  dup2 (null, 1);
  dup2 (null, 2);
}

static void
nap_ms (long ms)
{
  struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

  while (nanosleep (&t, &t) != 0 && errno == EINTR)
    ;
}

static int
write_file (const char *path)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

  if (fd < 0)
    return 1;
  if (write (fd, "late\n", 5) != 5)
    return 1;
  return close (fd) != 0;
}

int
main (int    argc,
      char **argv)
{
  long pid;

  if (argc != 3)
    {
      fprintf (stderr, "usage: leftover untraced|sleeper|hopper FILE\n");
      return 2;
    }
  if (strcmp (argv[1], "untraced") == 0)
    {
      pid = syscall (SYS_clone, 0x00800000L | SIGCHLD, 0L, 0L, 0L, 0L);
      if (pid < 0)
        {
          /* Refused (the guard's filter): nothing is left behind. */
          fprintf (stderr, "leftover: clone: %s\n", strerror (errno));
          return 3;
        }
      if (pid == 0)
        {
          detach ();
          nap_ms (2000);
          _exit (write_file (argv[2]));
        }
      return 0;
    }
  if (strcmp (argv[1], "sleeper") == 0)
    {
      pid = fork ();
      if (pid < 0)
        return 3;
      if (pid > 0)
        return 0;
      detach ();
      nap_ms (2000);
      _exit (write_file (argv[2]));
    }
  if (strcmp (argv[1], "hopper") == 0)
    {
      pid = fork ();
      if (pid < 0)
        return 3;
      if (pid > 0)
        return 0;
      detach ();
      for (int i = 0; i < 40; i++)
        {
          nap_ms (50);
          pid = fork ();
          if (pid < 0)
            _exit (1);
          if (pid > 0)
            _exit (0);
        }
      _exit (write_file (argv[2]));
    }
  fprintf (stderr, "leftover: unknown mode %s\n", argv[1]);
  return 2;
}
