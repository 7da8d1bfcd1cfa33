/* deep.c: a chain of programs, each with long arguments
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   deep LEVELS WORDS SIZE
 *
 * Unless LEVELS is 0, forks a child that runs this program again (by the
 * path it was started with) as "deep LEVELS-1 WORDS SIZE" followed by WORDS
 * words of SIZE bytes each, and waits for it; at level 0 it runs
 * /bin/true. Each question the exec guard sends then carries every level
 * above it in its chain: without a bound, the last one holds
 * LEVELS × WORDS × SIZE bytes. Exits with its child's status; each level
 * gives up after 60 s (SIGALRM), taking its child with it.
 */

#define _GNU_SOURCE

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int
main (int    argc,
      char **argv)
{
  long levels, words, size;
  char **child_argv, level[32], *word;
  pid_t pid;
  int status;

  if (argc < 4)
    {
      fprintf (stderr, "usage: deep LEVELS WORDS SIZE\n");
      return 2;
    }
  levels = atol (argv[1]);
  words = atol (argv[2]);
  size = atol (argv[3]);
  alarm (60);
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (levels <= 0)
    {
      execl ("/bin/true", "true", (char *) NULL);
      return 127;
    }
  child_argv = calloc (words + 5, sizeof *child_argv);
  word = malloc (size + 1);
  memset (word, 'a' + levels % 26, size);
  word[size] = '\0';
  snprintf (level, sizeof level, "%ld", levels - 1);
  child_argv[0] = argv[0];
  child_argv[1] = level;
  child_argv[2] = argv[2];
  child_argv[3] = argv[3];
  for (long i = 0; i < words; i++)
    child_argv[4 + i] = word;
  pid = fork ();
  if (pid == 0)
    {
      execv (argv[0], child_argv);
      perror ("deep: exec");
      _exit (127);
    }
  if (pid < 0 || waitpid (pid, &status, 0) != pid)
    return 1;
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}
