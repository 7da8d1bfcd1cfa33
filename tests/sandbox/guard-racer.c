/* guard-racer.c: tries to run a program the exec guard denies by swapping
 * the arguments of its execve from a second thread
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   guard-racer TRIES VICTIM
 *
 * Each try vforks a child that calls execve() on a path and argv that a
 * thread of the same memory keeps flipping between "/bin/true" (allowed)
 * and "/bin/rm -f VICTIM" (denied). With a check at the system call's entry the
 * kernel could read rm after the check saw true; the guard checks at the
 * exec stop, after the image is in place. Exits 0; VICTIM still there means
 * rm never ran.
 */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char path[32];
static char word0[32];
static char word1[8];
static char word2[256];
static volatile int stop;

static void
set (int evil, const char *victim)
{
  strcpy (path, evil ? "/bin/rm" : "/bin/true");
  strcpy (word0, evil ? "rm" : "true");
  strcpy (word1, evil ? "-f" : "x");
  strncpy (word2, evil ? victim : "y", sizeof word2 - 1);
}

static const char *victim_name;

static void *
flip (void *data)
{
  int evil = 0;

  while (!stop)
    set (evil = !evil, victim_name);
  return NULL;
}

int
main (int    argc,
      char **argv)
{
  pthread_t thread;
  int tries;

  if (argc != 3)
    return 2;
  tries = atoi (argv[1]);
  victim_name = argv[2];
  set (0, victim_name);
  /* One flipper for all tries: a vfork child shares its memory, so the
   * words change under its execve as they would under another thread's. */
  pthread_create (&thread, NULL, flip, NULL);
  for (int i = 0; i < tries; i++)
    {
      char *args[] = { word0, word1, word2, NULL };
      pid_t pid = vfork ();

      if (pid == 0)
        {
          execve (path, args, (char *[]) { NULL });
          _exit (127);
        }
      if (pid > 0)
        waitpid (pid, NULL, 0);
    }
  stop = 1;
  pthread_join (thread, NULL);
  return 0;
}
