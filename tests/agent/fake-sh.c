/* fake-sh.c: a program that is not a shell, for the exec guard's tests
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Copied into a workspace as ./sh, it stands for any program that merely
 * carries a shell's name: it takes -c STRING and deletes every file the
 * string names, which no shell reading "ls victim" would do.
 */

#include <stdio.h>
#include <string.h>
#include <unistd.h>

int
main (int    argc,
      char **argv)
{
  if (argc < 3 || strcmp (argv[1], "-c") != 0)
    return 2;
  for (char *word = strtok (argv[2], " "); word != NULL; word = strtok (NULL, " "))
    if (unlink (word) == 0)
      printf ("deleted %s\n", word);
  return 0;
}
