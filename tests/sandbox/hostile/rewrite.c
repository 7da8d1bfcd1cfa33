/* rewrite.c: changes a program's arguments while it waits for the user
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   rewrite mem|vm-writev|code
 *
 * Forks a child that execs "/bin/rm -f decoy.txt". Once the child shows
 * that argv and the test has created "held" (the question is with the
 * user, who saw decoy.txt), writes
 * "prize.txt" over "decoy.txt" in the child's argument area (arg_start,
 * field 48 of /proc/CHILD/stat) through /proc/CHILD/mem or
 * process_vm_writev; or (code, x86-64 only) leaves argv alone and writes
 * over the program's entry point (AT_ENTRY) instructions that remove
 * prize.txt and exit, which no second look at argv or exe can see. Prints
 * how that went, creates "rewritten" so the test knows to answer, and
 * reaps the child. Exits within 30 s.
 */

#define _GNU_SOURCE

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char shown[] = "rm\0-f\0decoy.txt";

static int
shows_rm (pid_t pid)
{
  char path[64], buf[64];
  ssize_t n;
  int fd;

  snprintf (path, sizeof path, "/proc/%d/cmdline", (int) pid);
  fd = open (path, O_RDONLY);
  if (fd < 0)
    return 0;
  n = read (fd, buf, sizeof buf);
  close (fd);
  return n == sizeof shown && memcmp (buf, shown, sizeof shown) == 0;
}

/* Field 48: shown only to who may ptrace the process, else 0. */
static unsigned long
arg_start (pid_t pid)
{
  char path[64], buf[2048], *p;
  unsigned long value = 0;
  ssize_t n;
  int fd, field;

  snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  fd = open (path, O_RDONLY);
  if (fd < 0)
    return 0;
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  /* Field 2 (comm) may hold spaces: count from after its ')'. */
  p = strrchr (buf, ')');
  if (p == NULL)
    return 0;
  for (field = 2; field < 48 && p != NULL; field++)
    p = strchr (p + 1, ' ');
  if (p != NULL)
    value = strtoul (p + 1, NULL, 10);
  return value;
}

/* unlink ("prize.txt"); exit (0); */
static const unsigned char payload[] = {
  0x48, 0x8d, 0x3d, 0x10, 0x00, 0x00, 0x00,  /* lea rdi, [rip + 16] */
  0xb8, 0x57, 0x00, 0x00, 0x00,              /* mov eax, SYS_unlink */
  0x0f, 0x05,                                /* syscall */
  0x31, 0xff,                                /* xor edi, edi */
  0xb8, 0x3c, 0x00, 0x00, 0x00,              /* mov eax, SYS_exit */
  0x0f, 0x05,                                /* syscall */
  'p', 'r', 'i', 'z', 'e', '.', 't', 'x', 't', 0,
};

/* The program's own entry point, from /proc/CHILD/auxv (shown only to who
 * may ptrace it); 0 when hidden. */
static unsigned long
entry_point (pid_t pid)
{
  char path[64];
  unsigned long pair[2];
  unsigned long entry = 0;
  int fd;

  snprintf (path, sizeof path, "/proc/%d/auxv", (int) pid);
  fd = open (path, O_RDONLY);
  if (fd < 0)
    return 0;
  while (read (fd, pair, sizeof pair) == sizeof pair && pair[0] != AT_NULL)
    if (pair[0] == AT_ENTRY)
      entry = pair[1];
  close (fd);
  return entry;
}

static int
rewrite_code (pid_t pid)
{
#ifdef __x86_64__
  unsigned long entry = entry_point (pid);
  char path[64];
  int fd, ok;

  printf ("entry %#lx\n", entry);
  if (entry == 0)
    {
      errno = EACCES;
      return -1;
    }
  snprintf (path, sizeof path, "/proc/%d/mem", (int) pid);
  fd = open (path, O_RDWR);
  if (fd < 0)
    return -1;
  ok = pwrite (fd, payload, sizeof payload, entry) == sizeof payload;
  close (fd);
  return ok ? 0 : -1;
#else
  errno = ENOSYS;
  return -1;
#endif
}

static int
rewrite (pid_t       pid,
         const char *how)
{
  unsigned long start = arg_start (pid);
  unsigned long at = start + 6;  /* past "rm\0-f\0" */
  static const char prize[] = "prize.txt";

  if (strcmp (how, "code") == 0)
    return rewrite_code (pid);
  printf ("arg_start %#lx\n", start);
  if (start == 0)
    {
      errno = EACCES;
      return -1;
    }
  if (strcmp (how, "mem") == 0)
    {
      char path[64];
      int fd, ok;

      snprintf (path, sizeof path, "/proc/%d/mem", (int) pid);
      fd = open (path, O_RDWR);
      if (fd < 0)
        return -1;
      ok = pwrite (fd, prize, sizeof prize - 1, at) == sizeof prize - 1;
      close (fd);
      return ok ? 0 : -1;
    }
  else
    {
      struct iovec local = { (void *) prize, sizeof prize - 1 };
      struct iovec remote = { (void *) at, sizeof prize - 1 };

      return syscall (SYS_process_vm_writev, pid, &local, 1, &remote, 1, 0) ==
             sizeof prize - 1 ? 0 : -1;
    }
}

int
main (int    argc,
      char **argv)
{
  struct timespec tick = { 0, 10 * 1000 * 1000 };
  pid_t pid;
  int status, i;

  if (argc != 2 || (strcmp (argv[1], "mem") != 0 && strcmp (argv[1], "vm-writev") != 0 &&
                    strcmp (argv[1], "code") != 0))
    {
      fprintf (stderr, "usage: rewrite mem|vm-writev|code\n");
      return 2;
    }
  alarm (30);
  setvbuf (stdout, NULL, _IONBF, 0);
  pid = fork ();
  if (pid == 0)
    {
      prctl (PR_SET_PDEATHSIG, SIGKILL);
      execl ("/bin/rm", "rm", "-f", "decoy.txt", (char *) NULL);
      _exit (127);
    }
  /* Up to 5 s for the child to reach its exec. */
  for (i = 0; i < 500 && !shows_rm (pid); i++)
    nanosleep (&tick, NULL);
  if (i == 500)
    printf ("child never showed rm\n");
  /* Up to 10 s for the question to be with the user. */
  for (i = 0; i < 1000 && access ("held", F_OK) != 0; i++)
    nanosleep (&tick, NULL);
  printf ("%s\n", i == 1000 ? "not held" : "held");
  if (rewrite (pid, argv[1]) == 0)
    printf ("%s rewrite ok\n", argv[1]);
  else
    printf ("%s rewrite failed %s\n", argv[1], strerrorname_np (errno));
  close (open ("rewritten", O_WRONLY | O_CREAT, 0644));
  if (waitpid (pid, &status, 0) == pid)
    printf ("child %s %d\n", WIFEXITED (status) ? "exit" : "signal",
            WIFEXITED (status) ? WEXITSTATUS (status) : WTERMSIG (status));
  return 0;
}
