/* warden-guard.c: every program started inside a sandbox, checked before it runs
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   warden-guard --fd N -- PROGRAM [ARG…]
 *   warden-guard --socket PATH -- PROGRAM [ARG…]
 *
 * Runs PROGRAM (the command line Warden already checked) as a ptrace tracee
 * and follows every process it starts, at any depth. Each later exec stops
 * at PTRACE_EVENT_EXEC: the new image is in place, no instruction of it has
 * run and no other thread of the old process is left, so the argv read from
 * /proc/PID/cmdline is the one that will run (a second thread cannot swap it
 * after the check, as it could with seccomp user notification). Warden,
 * on the other end of fd N, answers "allow" or "deny"; a denied program is
 * killed (SIGKILL) before its first instruction, and its caller sees a child
 * killed by signal 9 (a shell says "Killed", status 137). The rest of the
 * tree keeps running while one process waits for its answer.
 *
 * PTRACE_O_EXITKILL: if the guard dies, the whole tree dies with it; no
 * program ever runs unchecked. If Warden stops answering (fd N closed),
 * every later exec is denied.
 *
 * The code it watches may be hostile (install_filter ()): no traced process
 * can leave the trace (CLONE_UNTRACED, clone3), start a program untraced
 * (every exec is handed to the guard first), trace, read or write another
 * process, or signal, pidfd or prlimit the guard or the relay; the guard
 * is not dumpable, so its memory, descriptors and environment are closed to
 * them. What Warden is asked about is what the kernel runs, re-read before
 * the program goes on.
 *
 * Statically linked, it runs in any image (glibc, musl, busybox).
 *
 * Protocol on fd N (a stream socket), one message per line:
 *   guard → Warden: "exec ID PID RUN" then, tab-separated and each escaped
 *                   (\\ \t \n \0 as two characters):
 *                   CWD, EXE (/proc/PID/exe: the file that runs),
 *                   ENV (the NAME=VALUE entries the program's environment
 *                   gained since its command started, NUL-joined),
 *                   CUT (bytes left out: a question is bounded, see
 *                   ARGV_LIMIT), SCRIPT (0, or the index in ARGV of a "#!"
 *                   script's path when the kernel ran one), ARGC, the ARGV
 *                   words as the kernel runs them — word 0 replaced by EXE
 *                   unless it leads there (program_word()) — and for each
 *                   ancestor (nearest first) its argv as one field of
 *                   NUL-joined words.
 *   Warden → guard: "allow ID" or "deny ID".
 *   guard → Warden: "exit STATUS" when PROGRAM ended (wait status).
 *
 *   warden-guard --serve --socket PATH
 *
 * The warm runner: a long-lived helper inside a running container that
 * starts each command itself (fork and exec, about a millisecond) instead of
 * the engine starting a process for it (a Docker exec, tens of
 * milliseconds). On the same socket, besides the questions above (RUN names
 * the command):
 *   Warden → runner: "run RUN GUARD" then, tab-separated and escaped, the
 *                    cwd, the number of NAME=VALUE and each, the command
 *                    (run as /bin/sh -c COMMAND, in a process group of its
 *                    own, followed by the guard; its programs are asked
 *                    about when GUARD is 1) and its standard input; "kill RUN" (every process of the
 *                    command, setsid or not when traced, and its group);
 *                    "forget RUN" (Warden stopped waiting for its output);
 *                    "ping N" (is the runner still there?).
 *   runner → Warden: "pong N" at once, "started RUN PID", "out RUN STREAM LEN" and LEN bytes
 *                    of its standard output (1) or error (2), "exit RUN
 *                    STATUS" (wait status), "eof RUN" when both outputs
 *                    ended.
 * When Warden goes (its socket ends), every command it started is killed.
 *
 *   warden-guard --relay PORT PATH -- PROGRAM [ARG…]
 *
 * The sandbox's way out to Warden's network proxy (warden-relay.c); PROGRAM
 * may be the guard or the warm runner above.
 */

#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "warden-relay.h"

#if defined(__x86_64__)
# define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
# define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
# error "warden-guard: add this architecture's AUDIT_ARCH"
#endif

#define MAX_PROCS 32768

typedef struct
{
  pid_t  pid;
  pid_t  parent;
  char  *argv;        /* NUL-joined words of its current program */
  size_t argv_len;
  int    started;     /* its initial stop was seen */
  int    waiting;     /* stopped at an exec, waiting for Warden */
  unsigned id;        /* of the question it waits on */
  unsigned run;       /* --serve: the command it belongs to (0: the only one) */
  int    needs_options; /* --serve: a command's first process, at its first stop */
  /* While it waits: what Warden was told runs, checked again before it
   * runs (no other process can write it with /proc read-only and without
   * ptrace and process_vm_writev; this is the last line if one could). */
  char  *asked_exe;
  char  *asked_env;
  size_t asked_env_len;
} Proc;

/* What one question may carry (a 40-deep chain of long argument lists once
 * cost Warden 185 MB): the program's words up to ARGV_LIMIT bytes, the
 * environment it gained up to ENV_LIMIT, each link of the chain up to
 * LINK_LIMIT and LINKS_LIMIT links. What is left out is counted in the
 * question (CUT); Warden never lets a cut question run unasked. */
#define ARGV_LIMIT  (256 * 1024)
#define ENV_LIMIT   (32 * 1024)
#define LINK_LIMIT  (4 * 1024)
#define LINKS_LIMIT 16

/* The environment a command started with (--serve: per command, else the
 * one PROGRAM): what a started program's environment is compared with. */
typedef struct
{
  char  *data;      /* NUL-joined NAME=VALUE, as /proc/PID/environ */
  size_t len;
} Env;

static Env *env_of_run (unsigned run);

static Proc procs[MAX_PROCS];
static unsigned n_procs;
static int sock = -1;
static unsigned next_id = 1;
static int sock_dead;

static void
die (const char *what)
{
  fprintf (stderr, "warden-guard: %s: %s\n", what, strerror (errno));
  exit (125);
}

static Proc *
find_proc (pid_t pid)
{
  for (unsigned i = 0; i < n_procs; i++)
    if (procs[i].pid == pid)
      return &procs[i];
  return NULL;
}

/* The parent of @pid, from /proc: a new process can stop before its
 * parent's fork event is read. */
static pid_t
read_ppid (pid_t pid)
{
  char path[64];
  char buf[512];
  char *close_paren;
  int fd, ppid = 0;
  ssize_t n;

  snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  /* "PID (COMM) STATE PPID …": COMM may hold spaces and parentheses. */
  close_paren = strrchr (buf, ')');
  if (close_paren == NULL || sscanf (close_paren + 1, " %*c %d", &ppid) != 1)
    return 0;
  return (pid_t) ppid;
}

static Proc *
add_proc (pid_t pid,
          pid_t parent)
{
  Proc *p = find_proc (pid);
  Proc *pp;

  if (p != NULL)
    {
      if (parent > 0)
        p->parent = parent;
      return p;
    }
  if (n_procs == MAX_PROCS)
    {
      /* Too many to follow: it does not run unchecked. */
      kill (pid, SIGKILL);
      return NULL;
    }
  p = &procs[n_procs++];
  memset (p, 0, sizeof *p);
  p->pid = pid;
  if (parent <= 0)
    parent = read_ppid (pid);
  p->parent = parent;
  /* Before its exec, a new process is a copy of its parent. */
  pp = parent > 0 ? find_proc (parent) : NULL;
  if (pp != NULL)
    p->run = pp->run;
  if (pp != NULL && pp->argv != NULL)
    {
      p->argv = malloc (pp->argv_len);
      if (p->argv == NULL)
        die ("malloc");
      memcpy (p->argv, pp->argv, pp->argv_len);
      p->argv_len = pp->argv_len;
    }
  return p;
}

static void
remove_proc (pid_t pid)
{
  Proc *p = find_proc (pid);

  if (p == NULL)
    return;
  free (p->argv);
  free (p->asked_exe);
  free (p->asked_env);
  *p = procs[--n_procs];
}

/* ------------------------------------------------------------------------ */
/* Writing to Warden */

static void
write_all (const char *data,
           size_t      len)
{
  while (len > 0 && !sock_dead)
    {
      ssize_t n = write (sock, data, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          sock_dead = 1;
          return;
        }
      data += n;
      len -= (size_t) n;
    }
}

typedef struct
{
  char  *data;
  size_t len;
  size_t cap;
} Buf;

static void
buf_add (Buf        *b,
         const char *data,
         size_t      len)
{
  if (b->len + len + 1 > b->cap)
    {
      size_t cap = (b->cap ? b->cap * 2 : 4096);

      while (cap < b->len + len + 1)
        cap *= 2;
      b->data = realloc (b->data, cap);
      if (b->data == NULL)
        die ("realloc");
      b->cap = cap;
    }
  memcpy (b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = '\0';
}

static void
buf_add_str (Buf        *b,
             const char *s)
{
  buf_add (b, s, strlen (s));
}

/* One field: \, tab, newline and NUL written as two characters. */
static void
buf_add_escaped (Buf        *b,
                 const char *data,
                 size_t      len)
{
  for (size_t i = 0; i < len; i++)
    switch (data[i])
      {
      case '\\': buf_add (b, "\\\\", 2); break;
      case '\t': buf_add (b, "\\t", 2); break;
      case '\n': buf_add (b, "\\n", 2); break;
      case '\0': buf_add (b, "\\0", 2); break;
      default:   buf_add (b, data + i, 1); break;
      }
}

/* The whole of a small /proc file. */
static char *
read_file (const char *path,
           size_t     *len_out)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  Buf b = { 0 };
  char chunk[4096];
  ssize_t n;

  *len_out = 0;
  if (fd < 0)
    return NULL;
  while ((n = read (fd, chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0)
      buf_add (&b, chunk, (size_t) n);
  close (fd);
  if (b.data == NULL)
    buf_add (&b, "", 0);
  *len_out = b.len;
  return b.data;
}

/* @p runs a new program, let through without a question (the command
 * itself, or a command not checked): what it runs now is remembered, for
 * the chain of what it starts. */
static void
let_run (Proc *p,
         int   sig)
{
  char path[64];

  free (p->argv);
  snprintf (path, sizeof path, "/proc/%d/cmdline", (int) p->pid);
  p->argv = read_file (path, &p->argv_len);
  ptrace (PTRACE_CONT, p->pid, 0, sig);
}

/* The command itself starts (Warden checked it before it sent it): its
 * environment is the one its programs are compared with. */
static void
let_command_run (Proc *p)
{
  Env *env = env_of_run (p->run);
  char path[64];

  if (env != NULL)
    {
      free (env->data);
      snprintf (path, sizeof path, "/proc/%d/environ", (int) p->pid);
      env->data = read_file (path, &env->len);
    }
  let_run (p, 0);
}

/* argv[0] is whatever the caller chose: "true" can name /usr/bin/rm. It is
 * the program's name only when it leads to the file that runs (through the
 * standard PATH, never the process's own, when it has no slash); else the
 * file's own path stands in for it. A multi-call binary (busybox) passes:
 * its applet links lead to it and argv[0] picks the applet. */
static char *
program_word (pid_t       pid,
              const char *argv0)
{
  static const char *std_path[] = { "/usr/local/sbin", "/usr/local/bin", "/usr/sbin",
                                    "/usr/bin", "/sbin", "/bin", NULL };
  char path[4200];
  char exe[4096];
  struct stat runs, named;
  ssize_t n;
  int found = 0;

  snprintf (path, sizeof path, "/proc/%d/exe", (int) pid);
  if (stat (path, &runs) != 0 || (n = readlink (path, exe, sizeof exe - 1)) < 0)
    return NULL;
  exe[n] = '\0';
  if (strchr (argv0, '/') != NULL)
    {
      if (argv0[0] == '/')
        snprintf (path, sizeof path, "%s", argv0);
      else
        snprintf (path, sizeof path, "/proc/%d/cwd/%s", (int) pid, argv0);
      found = stat (path, &named) == 0;
    }
  else if (*argv0 != '\0')
    for (unsigned i = 0; std_path[i] != NULL && !found; i++)
      {
        snprintf (path, sizeof path, "%s/%s", std_path[i], argv0);
        found = stat (path, &named) == 0;
      }
  if (found && named.st_dev == runs.st_dev && named.st_ino == runs.st_ino)
    return strdup (argv0);
  return strdup (exe);
}

/* The "#!" line of @file (as @pid sees it): its interpreter and the one
 * argument Linux passes after it ("" when none). */
static int
read_shebang (pid_t       pid,
              const char *file,
              char       *interp,
              char       *arg,
              size_t      size)
{
  char path[4200];
  char line[512];
  char *p, *end;
  ssize_t n;
  int fd;

  if (file[0] == '/')
    snprintf (path, sizeof path, "%s", file);
  else
    snprintf (path, sizeof path, "/proc/%d/cwd/%s", (int) pid, file);
  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return 0;
  n = read (fd, line, sizeof line - 1);
  close (fd);
  if (n < 3 || line[0] != '#' || line[1] != '!')
    return 0;
  line[n] = '\0';
  if ((end = strchr (line, '\n')) != NULL)
    *end = '\0';
  p = line + 2;
  while (*p == ' ' || *p == '\t')
    p++;
  end = p + strcspn (p, " \t");
  snprintf (interp, size, "%.*s", (int) (end - p), p);
  p = end + strspn (end, " \t");
  end = p + strlen (p);
  while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
    end--;
  snprintf (arg, size, "%.*s", (int) (end - p), p);
  return 1;
}

/* A script started by its path ("./test.sh") runs as its interpreter with
 * the path as an argument: the kernel makes argv "/bin/sh ./test.sh ARGS"
 * (or "/usr/bin/env node ./x.js ARGS"). When a word of argv is a file whose
 * "#!" line is exactly the words before it, the script is the program:
 * returns the offset of its path in @argv, else 0. Starting "sh ./test.sh"
 * by hand is the same program, and reads the same. */
static size_t
script_offset (pid_t       pid,
               const char *argv,
               size_t      argv_len)
{
  char interp[512], arg[512];
  size_t o1 = strlen (argv) + 1, o2;

  if (o1 >= argv_len)
    return 0;
  if (read_shebang (pid, argv + o1, interp, arg, sizeof interp))
    {
      const char *slash = strrchr (interp, '/');

      if (arg[0] == '\0' && strcmp (interp, argv) == 0)
        return o1;
      /* "#!/usr/bin/env node": env starts node with the script, which is
       * still the script running. */
      if (slash != NULL && strcmp (slash, "/env") == 0 && strcmp (arg, argv) == 0)
        return o1;
    }
  o2 = o1 + strlen (argv + o1) + 1;
  if (o2 >= argv_len)
    return 0;
  if (read_shebang (pid, argv + o2, interp, arg, sizeof interp) && arg[0] != '\0' &&
      strcmp (interp, argv) == 0 && strcmp (arg, argv + o1) == 0)
    return o2;
  return 0;
}

/* "exec ID PID RUN": the question's head. */
static void
add_head (Buf  *b,
          Proc *p)
{
  char head[64];

  snprintf (head, sizeof head, "exec %u %d %u", p->id, (int) p->pid, p->run);
  buf_add_str (b, head);
}

/* One NUL-joined field (an argv, an environment) of at most @limit bytes,
 * cut at a word's end where it can be; returns the bytes left out. */
static size_t
add_joined (Buf        *b,
            const char *data,
            size_t      len,
            size_t      limit)
{
  size_t keep = len;

  if (len > limit)
    {
      keep = limit;
      /* Whole words where there is one to end at. */
      for (size_t i = limit; i > 0; i--)
        if (data[i - 1] == '\0')
          {
            keep = i;
            break;
          }
    }
  buf_add (b, "\t", 1);
  buf_add_escaped (b, data, keep);
  return len - keep;
}

/* The entries of @env (NUL-joined) that are not, verbatim, in @base: what
 * a program's environment gained since its command started. */
static char *
env_gained (const char *env,
            size_t      env_len,
            const Env  *base,
            size_t     *len_out)
{
  Buf b = { 0 };

  for (size_t i = 0; i < env_len;)
    {
      size_t n = strnlen (env + i, env_len - i);
      int found = 0;

      for (size_t j = 0; base != NULL && base->data != NULL && j < base->len && !found;)
        {
          size_t m = strnlen (base->data + j, base->len - j);

          found = m == n && memcmp (base->data + j, env + i, n) == 0;
          j += m + 1;
        }
      if (!found && n > 0)
        buf_add (&b, env + i, n + 1);
      i += n + 1;
    }
  if (b.data == NULL)
    buf_add (&b, "", 0);
  *len_out = b.len;
  return b.data;
}

/* The index of a "#!" script's path among the words of @argv, or 0 (see
 * script_offset ()): only if the interpreter named is what runs. */
static unsigned
script_index (Proc       *p,
              const char *exe_word)
{
  size_t offset = p->argv_len > 0 ? script_offset (p->pid, p->argv, p->argv_len) : 0;
  unsigned index = 0;

  if (offset == 0 || strcmp (exe_word, p->argv) != 0)
    return 0;
  for (size_t i = 0; i < offset; i++)
    index += p->argv[i] == '\0';
  return index;
}

/* The program's words: word 0 as program_word () names it, the rest as
 * the kernel gave them (a script's interpreter first). Returns the bytes
 * left out; *argc_out the words sent. */
static size_t
add_argv (Buf        *b,
          Proc       *p,
          const char *word0,
          unsigned   *argc_out)
{
  size_t budget = ARGV_LIMIT, cut = 0;
  size_t i = p->argv_len > 0 ? strlen (p->argv) + 1 : 0;
  unsigned argc = 1;
  Buf words = { 0 };

  buf_add (&words, word0, strlen (word0) + 1);
  budget -= words.len < budget ? words.len : budget;
  for (; i < p->argv_len; )
    {
      size_t n = strnlen (p->argv + i, p->argv_len - i);

      if (n + 1 > budget)
        {
          cut = p->argv_len - i;
          break;
        }
      buf_add (&words, p->argv + i, n + 1);
      budget -= n + 1;
      argc++;
      i += n + 1;
    }
  {
    char count[32];

    snprintf (count, sizeof count, "\t%u", argc);
    buf_add_str (b, count);
  }
  /* Each word its own field. */
  for (size_t j = 0; j < words.len;)
    {
      size_t n = strlen (words.data + j);

      buf_add (b, "\t", 1);
      buf_add_escaped (b, words.data + j, n);
      j += n + 1;
    }
  free (words.data);
  *argc_out = argc;
  return cut;
}

/* The chain: what @p ran before (@before), then each ancestor's program,
 * nearest first, LINKS_LIMIT links of LINK_LIMIT bytes at most. */
static size_t
add_chain (Buf        *b,
           Proc       *p,
           const char *before,
           size_t      before_len)
{
  size_t cut = 0;
  unsigned links = 0, depth = 0;

  if (before != NULL)
    {
      cut += add_joined (b, before, before_len, LINK_LIMIT);
      links++;
    }
  /* 64 steps up at most: parents are read from /proc, never trusted to end. */
  for (Proc *a = find_proc (p->parent); a != NULL && depth < 64;
       a = find_proc (a->parent), depth++)
    {
      if (links == LINKS_LIMIT)
        {
          cut += a->argv_len;
          continue;
        }
      cut += add_joined (b, a->argv ? a->argv : "", a->argv ? a->argv_len : 0, LINK_LIMIT);
      links++;
    }
  return cut;
}

/* @p stopped at an exec: Warden is asked about what runs now, as the kernel
 * runs it. The line (see the top of this file):
 *   exec ID PID RUN \t CWD \t EXE \t ENV \t CUT \t SCRIPT \t ARGC \t ARGV… \t CHAIN… */
static void
ask (Proc *p)
{
  char path[64];
  char cwd[4096];
  char exe[4096];
  char number[64];
  ssize_t cwd_len, exe_len;
  Buf b = { 0 }, rest = { 0 };
  unsigned argc = 0;
  size_t cut = 0, env_len = 0, gained_len = 0;
  char *env, *gained, *word0;

  /* What this process ran before: its parent's copy after a fork (the
   * chain's first link then), or the program that exec'd this one. */
  char *before = p->argv;
  size_t before_len = p->argv_len;

  snprintf (path, sizeof path, "/proc/%d/cmdline", p->pid);
  p->argv = read_file (path, &p->argv_len);
  snprintf (path, sizeof path, "/proc/%d/exe", p->pid);
  exe_len = readlink (path, exe, sizeof exe - 1);
  snprintf (path, sizeof path, "/proc/%d/environ", p->pid);
  env = read_file (path, &env_len);
  word0 = p->argv != NULL ? program_word (p->pid, p->argv_len > 0 ? p->argv : "") : NULL;
  if (p->argv == NULL || exe_len <= 0 || env == NULL || word0 == NULL)
    {
      /* Gone already, or unreadable: not run. */
      free (before);
      free (env);
      free (word0);
      kill (p->pid, SIGKILL);
      return;
    }
  exe[exe_len] = '\0';
  snprintf (path, sizeof path, "/proc/%d/cwd", p->pid);
  cwd_len = readlink (path, cwd, sizeof cwd - 1);
  if (cwd_len < 0)
    cwd_len = 0;

  p->id = next_id++;
  p->waiting = 1;
  add_head (&b, p);
  buf_add (&b, "\t", 1);
  buf_add_escaped (&b, cwd, (size_t) cwd_len);
  buf_add (&b, "\t", 1);
  buf_add_escaped (&b, exe, (size_t) exe_len);
  gained = env_gained (env, env_len, env_of_run (p->run), &gained_len);
  cut += add_joined (&b, gained, gained_len, ENV_LIMIT);
  free (gained);

  /* The count of what is left out comes before the words, which are built
   * first. */
  {
    unsigned script = script_index (p, word0);

    cut += add_argv (&rest, p, word0, &argc);
    cut += add_chain (&rest, p, before, before_len);
    snprintf (number, sizeof number, "\t%zu\t%u", cut, script);
    buf_add_str (&b, number);
    buf_add (&b, rest.data, rest.len);
  }
  buf_add (&b, "\n", 1);
  write_all (b.data, b.len);
  free (b.data);
  free (rest.data);
  free (before);
  free (word0);
  free (p->asked_exe);
  free (p->asked_env);
  p->asked_exe = strdup (exe);
  p->asked_env = env;
  p->asked_env_len = env_len;
  if (sock_dead || p->asked_exe == NULL)
    {
      /* Nobody to ask: not run. */
      p->waiting = 0;
      kill (p->pid, SIGKILL);
    }
}

/* Before @p runs on Warden's word: it is still what Warden was asked
 * about (its words, its program, its environment). */
static int
unchanged_since_asked (Proc *p)
{
  char path[64];
  char exe[4096];
  ssize_t exe_len;
  size_t len;
  char *now;
  int same;

  snprintf (path, sizeof path, "/proc/%d/exe", p->pid);
  exe_len = readlink (path, exe, sizeof exe - 1);
  if (exe_len <= 0 || p->asked_exe == NULL)
    return 0;
  exe[exe_len] = '\0';
  if (strcmp (exe, p->asked_exe) != 0)
    return 0;
  snprintf (path, sizeof path, "/proc/%d/cmdline", p->pid);
  now = read_file (path, &len);
  same = now != NULL && len == p->argv_len && memcmp (now, p->argv, len) == 0;
  free (now);
  if (!same)
    return 0;
  snprintf (path, sizeof path, "/proc/%d/environ", p->pid);
  now = read_file (path, &len);
  same = now != NULL && p->asked_env != NULL && len == p->asked_env_len &&
         memcmp (now, p->asked_env, len) == 0;
  free (now);
  return same;
}

static void
forget_asked (Proc *p)
{
  free (p->asked_exe);
  free (p->asked_env);
  p->asked_exe = NULL;
  p->asked_env = NULL;
  p->asked_env_len = 0;
}

/* ------------------------------------------------------------------------ */
/* Answers */

static char inbuf[4096];
static size_t inlen;

static void
answer (const char *line)
{
  unsigned id;
  int allow;

  if (strncmp (line, "allow ", 6) == 0)
    allow = 1;
  else if (strncmp (line, "deny ", 5) == 0)
    allow = 0;
  else
    return;
  id = (unsigned) strtoul (line + (allow ? 6 : 5), NULL, 10);
  for (unsigned i = 0; i < n_procs; i++)
    if (procs[i].waiting && procs[i].id == id)
      {
        procs[i].waiting = 0;
        if (allow && unchanged_since_asked (&procs[i]))
          ptrace (PTRACE_CONT, procs[i].pid, 0, 0);
        else
          kill (procs[i].pid, SIGKILL);
        forget_asked (&procs[i]);
        return;
      }
}

static void
read_answers (void)
{
  ssize_t n = read (sock, inbuf + inlen, sizeof inbuf - inlen - 1);
  char *nl;

  if (n < 0 && (errno == EINTR || errno == EAGAIN))
    return;
  if (n <= 0)
    {
      /* Warden is gone: whatever waits is not run, nor anything later. */
      sock_dead = 1;
      for (unsigned i = 0; i < n_procs; i++)
        if (procs[i].waiting)
          {
            procs[i].waiting = 0;
            kill (procs[i].pid, SIGKILL);
          }
      return;
    }
  inlen += (size_t) n;
  inbuf[inlen] = '\0';
  while ((nl = strchr (inbuf, '\n')) != NULL)
    {
      *nl = '\0';
      answer (inbuf);
      memmove (inbuf, nl + 1, inlen - (size_t) (nl + 1 - inbuf) + 1);
      inlen -= (size_t) (nl + 1 - inbuf);
    }
  if (inlen == sizeof inbuf - 1)
    inlen = 0;  /* a line this long is not an answer */
}

/* ------------------------------------------------------------------------ */
/* The program */

/* Who the traced code may not touch: the guard (or runner) itself, its
 * parent (the relay, when there is one) and its process group. Set in the
 * guard before it starts anything. */
static pid_t guard_pid, guard_parent, guard_pgid;

/* The options every traced process gets. TRACESECCOMP: the filter below
 * hands each exec to the guard first (SECCOMP_RET_TRACE), so a process the
 * guard does not trace cannot start a program at all. */
#define TRACE_OPTIONS (PTRACE_O_TRACEEXEC | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | \
                       PTRACE_O_TRACECLONE | PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL)

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
# error "warden-guard: the filter reads the low half of arguments as little-endian"
#endif
#define ARG_LO(n) (offsetof (struct seccomp_data, args) + 8 * (n))

#define MAX_FILTER 96

typedef struct
{
  struct sock_filter insn[MAX_FILTER];
  unsigned short     len;
} Filter;

static void
emit (Filter             *f,
      struct sock_filter  insn)
{
  if (f->len == MAX_FILTER)
    {
      fprintf (stderr, "warden-guard: the system call filter is too long\n");
      _exit (125);
    }
  f->insn[f->len++] = insn;
}

/* If the system call is @nr, return @action. */
static void
emit_nr_returns (Filter   *f,
                 unsigned  nr,
                 unsigned  action)
{
  emit (f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1));
  emit (f, (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, action));
}

/* If the system call is @nr and bits @bits of the low half of argument
 * @arg are set, EPERM; other calls of @nr are allowed. */
static void
emit_nr_flag_refused (Filter   *f,
                      unsigned  nr,
                      unsigned  arg,
                      unsigned  bits)
{
  emit (f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 4));
  emit (f, (struct sock_filter) BPF_STMT (BPF_LD | BPF_W | BPF_ABS, ARG_LO (arg)));
  emit (f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JSET | BPF_K, bits, 0, 1));
  emit (f, (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
  emit (f, (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
}

/* In each traced process, before PROGRAM (filters are inherited and can
 * only be added to):
 * - no leaving the trace: clone with CLONE_UNTRACED is refused, clone3
 *   (whose flags a filter cannot read) fails with ENOSYS so libc falls back
 *   to clone, and every exec goes to the guard first (SECCOMP_RET_TRACE:
 *   with no tracer it fails with ENOSYS), nor may a filter of its own hand
 *   execs to a listener in the sandbox (SECCOMP_FILTER_FLAG_NEW_LISTENER);
 * - no reaching another process: ptrace, process_vm_readv/writev,
 *   pidfd_getfd;
 * - no reaching the guard: signals, pidfd_open and prlimit aimed at the
 *   guard, its parent (the relay), their process groups, or at every
 *   process (kill -1), and no pidfd_send_signal (a /proc/PID folder opened
 *   is a pidfd the filter cannot tell from the command's own);
 * - no other architecture's system calls. */
static void
install_filter (void)
{
  static const unsigned refused[] = { __NR_ptrace, __NR_process_vm_readv,
                                      __NR_process_vm_writev, __NR_pidfd_getfd };
  static const unsigned aimed[] = { __NR_kill, __NR_tkill, __NR_tgkill, __NR_rt_sigqueueinfo,
                                    __NR_rt_tgsigqueueinfo, __NR_pidfd_open, __NR_prlimit64 };
  unsigned protect[6];
  unsigned n_protect = 0;
  Filter f = { .len = 0 };
  struct sock_fprog prog;

  protect[n_protect++] = (unsigned) -1;
  if (guard_pid > 1)
    {
      protect[n_protect++] = (unsigned) guard_pid;
      protect[n_protect++] = (unsigned) -guard_pid;
    }
  if (guard_parent > 1)
    {
      protect[n_protect++] = (unsigned) guard_parent;
      protect[n_protect++] = (unsigned) -guard_parent;
    }
  if (guard_pgid > 1 && guard_pgid != guard_pid && guard_pgid != guard_parent)
    protect[n_protect++] = (unsigned) -guard_pgid;

  emit (&f, (struct sock_filter) BPF_STMT (BPF_LD | BPF_W | BPF_ABS,
                                           offsetof (struct seccomp_data, arch)));
  emit (&f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0));
  emit (&f, (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  emit (&f, (struct sock_filter) BPF_STMT (BPF_LD | BPF_W | BPF_ABS,
                                           offsetof (struct seccomp_data, nr)));
#ifdef __x86_64__
  /* x32 system calls are another table. */
  emit (&f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1));
  emit (&f, (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
#endif
  for (unsigned i = 0; i < sizeof refused / sizeof refused[0]; i++)
    emit_nr_returns (&f, refused[i], SECCOMP_RET_ERRNO | EPERM);
  emit_nr_returns (&f, __NR_clone3, SECCOMP_RET_ERRNO | ENOSYS);
  /* A /proc/PID folder is a pidfd to it, and a filter cannot read which
   * process a descriptor names: no pidfd signals at all. ENOSYS, as on a
   * kernel before 5.1, makes Go, Python and the rest fall back to kill. */
  emit_nr_returns (&f, __NR_pidfd_send_signal, SECCOMP_RET_ERRNO | ENOSYS);
  emit_nr_returns (&f, __NR_execve, SECCOMP_RET_TRACE);
  emit_nr_returns (&f, __NR_execveat, SECCOMP_RET_TRACE);
  emit_nr_flag_refused (&f, __NR_clone, 0, CLONE_UNTRACED);
  emit_nr_flag_refused (&f, __NR_seccomp, 1, SECCOMP_FILTER_FLAG_NEW_LISTENER);
  /* The calls aimed at a process: each jumps over the rest of the list and
   * the ALLOW after it, to the check of its first argument. */
  for (unsigned i = 0, n = sizeof aimed / sizeof aimed[0]; i < n; i++)
    emit (&f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, aimed[i],
                                             (unsigned char) (n - i), 0));
  emit (&f, (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  emit (&f, (struct sock_filter) BPF_STMT (BPF_LD | BPF_W | BPF_ABS, ARG_LO (0)));
  for (unsigned i = 0; i < n_protect; i++)
    {
      emit (&f, (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, protect[i], 0, 1));
      emit (&f, (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
    }
  emit (&f, (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW));

  prog.len = f.len;
  prog.filter = f.insn;
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
    {
      perror ("warden-guard: seccomp");
      _exit (125);
    }
}

/* The start of a process the guard traces, in the child of fork(): its
 * own session and process group (a signal to its group reaches the command,
 * never the guard, and no process of it can join the guard's group, which
 * setpgid allows only within one session), traced, filtered, and stopped
 * once so that the guard sets its options before its first exec. */
static void
become_tracee (void)
{
  if (setsid () < 0)
    setpgid (0, 0);
  if (ptrace (PTRACE_TRACEME, 0, 0, 0) != 0)
    {
      perror ("warden-guard: ptrace");
      _exit (125);
    }
  install_filter ();
  raise (SIGSTOP);
}

static int
exit_code_of (int status)
{
  if (WIFEXITED (status))
    return WEXITSTATUS (status);
  if (WIFSIGNALED (status))
    return 128 + WTERMSIG (status);
  return 125;
}

/* ------------------------------------------------------------------------ */
/* --serve: the warm runner */

#define MAX_RUNS 64

typedef struct
{
  unsigned id;        /* 0: a free slot */
  pid_t    pid;
  int      guarded;
  int      out[2];    /* read ends of its standard output and error, or -1 */
  int      in;        /* write end of its standard input, or -1 */
  char    *in_data;
  size_t   in_len;
  size_t   in_done;
  int      exited;
  int      first_exec_done;
  int      killed;      /* what it still starts dies at once */
  Env      env;         /* what its /bin/sh started with */
} Run;

static Run runs[MAX_RUNS];
static Env command_env;   /* not --serve: PROGRAM's */

static Run *
find_run (unsigned id)
{
  for (unsigned i = 0; i < MAX_RUNS; i++)
    if (runs[i].id == id && id != 0)
      return &runs[i];
  return NULL;
}

static Env *
env_of_run (unsigned run)
{
  Run *r;

  if (run == 0)
    return &command_env;
  r = find_run (run);
  return r != NULL ? &r->env : NULL;
}

static Run *
find_run_by_pid (pid_t pid)
{
  for (unsigned i = 0; i < MAX_RUNS; i++)
    if (runs[i].id != 0 && runs[i].pid == pid)
      return &runs[i];
  return NULL;
}

static void
send_line (const char *line)
{
  write_all (line, strlen (line));
}

static void
close_fd (int *fd)
{
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

static void
free_run (Run *r)
{
  close_fd (&r->out[0]);
  close_fd (&r->out[1]);
  close_fd (&r->in);
  free (r->in_data);
  free (r->env.data);
  memset (r, 0, sizeof *r);
  r->out[0] = r->out[1] = r->in = -1;
}

static void
maybe_done (Run *r)
{
  if (r->exited && r->out[0] < 0 && r->out[1] < 0)
    free_run (r);
}

/* One field of a line from Warden: \\ \t \n \0 undone, in place. */
static size_t
unescape_field (char *field)
{
  char *out = field;

  for (char *p = field; *p; p++)
    {
      if (*p != '\\' || p[1] == '\0')
        {
          *out++ = *p;
          continue;
        }
      p++;
      *out++ = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p == '0' ? '\0' : *p;
    }
  *out = '\0';
  return (size_t) (out - field);
}

static void
start_run (char *line)
{
  unsigned id = 0;
  int guarded = 0;
  char *fields[4100];
  size_t n_fields = 0, in_len;
  unsigned long n_env;
  char **env;
  int out_pipe[2][2], in_pipe[2];
  Run *r = NULL;
  char msg[64];
  pid_t pid;

  if (sscanf (line, "run %u %d", &id, &guarded) != 2 || id == 0 || find_run (id) != NULL)
    return;
  for (char *p = strchr (line, '\t'); p != NULL && n_fields < 4100; p = strchr (p, '\t'))
    {
      *p++ = '\0';
      fields[n_fields++] = p;
    }
  if (n_fields < 4)
    return;
  n_env = strtoul (fields[1], NULL, 10);
  if (n_fields != 4 + n_env)
    return;
  for (unsigned i = 0; i < MAX_RUNS && r == NULL; i++)
    if (runs[i].id == 0)
      r = &runs[i];
  if (r == NULL)
    {
      /* Too many at once: it fails as a command that could not start. */
      snprintf (msg, sizeof msg, "exit %u %d\neof %u\n", id, 125 << 8, id);
      send_line (msg);
      return;
    }
  for (size_t i = 0; i < n_fields; i++)
    if (i != n_fields - 1)
      unescape_field (fields[i]);
  in_len = unescape_field (fields[n_fields - 1]);
  env = calloc (n_env + 1, sizeof (char *));
  if (env == NULL)
    die ("calloc");
  for (unsigned long i = 0; i < n_env; i++)
    env[i] = fields[2 + i];

  if (pipe2 (out_pipe[0], O_CLOEXEC) != 0 || pipe2 (out_pipe[1], O_CLOEXEC) != 0 ||
      pipe2 (in_pipe, O_CLOEXEC) != 0)
    die ("pipe");
  pid = fork ();
  if (pid < 0)
    die ("fork");
  if (pid == 0)
    {
      char *argv[] = { "/bin/sh", "-c", fields[2 + n_env], NULL };
      sigset_t mask;

      sigemptyset (&mask);
      sigprocmask (SIG_SETMASK, &mask, NULL);
      signal (SIGPIPE, SIG_DFL);
      dup2 (in_pipe[0], 0);
      dup2 (out_pipe[0][1], 1);
      dup2 (out_pipe[1][1], 2);
      if (chdir (fields[0]) != 0)
        {
          fprintf (stderr, "warden-guard: %s: %s\n", fields[0], strerror (errno));
          _exit (126);
        }
      /* Traced guarded or not: the runner follows every process of the
       * command, so that a time limit or Stop ends them all. */
      become_tracee ();
      execve (argv[0], argv, env);
      fprintf (stderr, "warden-guard: /bin/sh: %s\n", strerror (errno));
      _exit (127);
    }
  free (env);
  close (in_pipe[0]);
  close (out_pipe[0][1]);
  close (out_pipe[1][1]);
  free_run (r);
  r->id = id;
  r->pid = pid;
  r->guarded = guarded;
  r->out[0] = out_pipe[0][0];
  r->out[1] = out_pipe[1][0];
  r->in = in_pipe[1];
  fcntl (r->in, F_SETFL, O_NONBLOCK);
  if (in_len > 0)
    {
      r->in_data = malloc (in_len);
      if (r->in_data == NULL)
        die ("malloc");
      memcpy (r->in_data, fields[n_fields - 1], in_len);
      r->in_len = in_len;
    }
  else
    close_fd (&r->in);
  {
    Proc *p = add_proc (pid, 0);

    if (p != NULL)
      {
        p->run = id;
        p->needs_options = 1;
      }
  }
  snprintf (msg, sizeof msg, "started %u %d\n", id, (int) pid);
  send_line (msg);
}

static void
kill_run (unsigned id)
{
  Run *r = find_run (id);

  if (r != NULL)
    r->killed = 1;

  /* Every process of the command the guard follows, wherever it went… */
  for (unsigned i = 0; i < n_procs; i++)
    if (procs[i].run == id)
      kill (procs[i].pid, SIGKILL);
  /* …and its process group (all of it when it is not traced). */
  if (r != NULL && r->pid > 0)
    kill (-r->pid, SIGKILL);
}

static Buf serve_in;

static void
serve_line (char *line)
{
  unsigned id;

  if (strncmp (line, "run ", 4) == 0)
    start_run (line);
  else if (sscanf (line, "kill %u", &id) == 1)
    kill_run (id);
  else if (sscanf (line, "ping %u", &id) == 1)
    {
      /* Warden checks that the runner still answers. */
      char pong[32];

      snprintf (pong, sizeof pong, "pong %u\n", id);
      send_line (pong);
    }
  else if (sscanf (line, "forget %u", &id) == 1)
    {
      Run *r = find_run (id);

      if (r != NULL)
        {
          kill_run (id);
          free_run (r);
        }
    }
  else
    answer (line);
}

/* FALSE once Warden is gone. */
static int
serve_read (void)
{
  char chunk[65536];
  ssize_t n = read (sock, chunk, sizeof chunk);
  char *nl;

  if (n < 0 && (errno == EINTR || errno == EAGAIN))
    return 1;
  if (n <= 0)
    return 0;
  buf_add (&serve_in, chunk, (size_t) n);
  while ((nl = memchr (serve_in.data, '\n', serve_in.len)) != NULL)
    {
      size_t used = (size_t) (nl - serve_in.data) + 1;

      *nl = '\0';
      serve_line (serve_in.data);
      memmove (serve_in.data, serve_in.data + used, serve_in.len - used);
      serve_in.len -= used;
    }
  return 1;
}

static void
forward_output (Run *r,
                int  stream)
{
  char chunk[65536];
  char head[64];
  ssize_t n = read (r->out[stream], chunk, sizeof chunk);

  if (n < 0 && (errno == EINTR || errno == EAGAIN))
    return;
  if (n <= 0)
    {
      close_fd (&r->out[stream]);
      if (r->out[0] < 0 && r->out[1] < 0)
        {
          snprintf (head, sizeof head, "eof %u\n", r->id);
          send_line (head);
          maybe_done (r);
        }
      return;
    }
  snprintf (head, sizeof head, "out %u %d %zd\n", r->id, stream + 1, n);
  send_line (head);
  write_all (chunk, (size_t) n);
}

static void
feed_input (Run *r)
{
  ssize_t n = write (r->in, r->in_data + r->in_done, r->in_len - r->in_done);

  if (n < 0 && (errno == EINTR || errno == EAGAIN))
    return;
  if (n <= 0)
    r->in_done = r->in_len;  /* it does not read: not an error */
  else
    r->in_done += (size_t) n;
  if (r->in_done == r->in_len)
    close_fd (&r->in);
}

/* @p belongs to a command that was killed or has ended (and forgotten):
 * nothing of it may run on. */
static int
run_is_over (Proc *p)
{
  Run *r;

  if (p == NULL || p->run == 0)
    return 0;
  r = find_run (p->run);
  return r == NULL || r->killed;
}

/* A process the guard follows stopped, or ended. */
static void
serve_wait_status (pid_t pid,
                   int   status)
{
  Proc *p = find_proc (pid);
  int event = status >> 16;

  if (WIFEXITED (status) || WIFSIGNALED (status))
    {
      Run *r = find_run_by_pid (pid);

      if (r != NULL && !r->exited)
        {
          char line[64];

          r->exited = 1;
          snprintf (line, sizeof line, "exit %u %d\n", r->id, status);
          send_line (line);
          /* What the command left running ends with it, as a sandbox of
           * its own would end (a late write into .git, say). */
          kill_run (r->id);
          maybe_done (r);
        }
      remove_proc (pid);
      return;
    }
  if (!WIFSTOPPED (status))
    return;
  if (p != NULL && p->needs_options)
    {
      /* A command's first process, at its own SIGSTOP before the exec of
       * /bin/sh (become_tracee ()): its options, before it can fork. */
      p->needs_options = 0;
      p->started = 1;
      if (ptrace (PTRACE_SETOPTIONS, pid, 0, TRACE_OPTIONS) != 0)
        {
          kill (pid, SIGKILL);
          return;
        }
      ptrace (PTRACE_CONT, pid, 0, WSTOPSIG (status) == SIGSTOP ? 0 : WSTOPSIG (status));
      return;
    }
  if (event == PTRACE_EVENT_SECCOMP)
    {
      /* An exec about to happen in a traced process: the exec stop that
       * follows is where it is checked. */
      ptrace (PTRACE_CONT, pid, 0, 0);
      return;
    }
  if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK || event == PTRACE_EVENT_CLONE)
    {
      unsigned long new_pid = 0;

      ptrace (PTRACE_GETEVENTMSG, pid, 0, &new_pid);
      add_proc ((pid_t) new_pid, pid);
      /* A fork that raced the kill of its command: it goes too. */
      if (run_is_over (p))
        {
          kill ((pid_t) new_pid, SIGKILL);
          kill (pid, SIGKILL);
        }
      ptrace (PTRACE_CONT, pid, 0, 0);
      return;
    }
  if (event == PTRACE_EVENT_EXEC)
    {
      unsigned long former = 0;
      Run *r;

      ptrace (PTRACE_GETEVENTMSG, pid, 0, &former);
      if ((pid_t) former != pid)
        remove_proc ((pid_t) former);
      if (p == NULL)
        p = add_proc (pid, 0);
      if (p == NULL)
        return;
      p->started = 1;
      r = find_run_by_pid (pid);
      if (r == NULL)
        r = find_run (p->run);
      if (r != NULL && r->pid == pid && !r->first_exec_done)
        {
          /* The command itself: Warden checked it before it sent it. */
          r->first_exec_done = 1;
          let_command_run (p);
        }
      else if (r != NULL && !r->guarded)
        {
          /* Followed, not checked: the profile does not ask for it. */
          let_run (p, 0);
        }
      else
        ask (p);
      return;
    }
  if (p == NULL || !p->started)
    {
      p = add_proc (pid, 0);
      if (p != NULL)
        p->started = 1;
      if (run_is_over (p))
        {
          kill (pid, SIGKILL);
          return;
        }
      ptrace (PTRACE_CONT, pid, 0, WSTOPSIG (status) == SIGSTOP ? 0 : WSTOPSIG (status));
      return;
    }
  ptrace (PTRACE_CONT, pid, 0, WSTOPSIG (status));
}

static int
serve (int sfd)
{
  for (unsigned i = 0; i < MAX_RUNS; i++)
    free_run (&runs[i]);
  for (;;)
    {
      struct pollfd fds[2 + 3 * MAX_RUNS];
      struct { Run *run; int what; } owner[2 + 3 * MAX_RUNS];
      nfds_t n = 0;
      struct signalfd_siginfo info;
      pid_t pid;
      int status;

      fds[n++] = (struct pollfd) { sfd, POLLIN, 0 };
      fds[n++] = (struct pollfd) { sock, POLLIN, 0 };
      for (unsigned i = 0; i < MAX_RUNS; i++)
        {
          Run *r = &runs[i];

          if (r->id == 0)
            continue;
          for (int stream = 0; stream < 2; stream++)
            if (r->out[stream] >= 0)
              {
                owner[n].run = r;
                owner[n].what = stream;
                fds[n++] = (struct pollfd) { r->out[stream], POLLIN, 0 };
              }
          if (r->in >= 0)
            {
              owner[n].run = r;
              owner[n].what = 2;
              fds[n++] = (struct pollfd) { r->in, POLLOUT, 0 };
            }
        }
      if (poll (fds, n, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          die ("poll");
        }
      if (fds[1].revents & (POLLIN | POLLHUP | POLLERR))
        if (!serve_read () || sock_dead)
          {
            /* Warden is gone: so is everything it started. */
            for (unsigned i = 0; i < MAX_RUNS; i++)
              if (runs[i].id != 0)
                kill_run (runs[i].id);
            return 0;
          }
      for (nfds_t i = 2; i < n; i++)
        {
          if (fds[i].revents == 0 || owner[i].run->id == 0)
            continue;
          if (owner[i].what == 2)
            feed_input (owner[i].run);
          else if (owner[i].run->out[owner[i].what] == fds[i].fd)
            forward_output (owner[i].run, owner[i].what);
        }
      if (!(fds[0].revents & POLLIN))
        continue;
      while (read (sfd, &info, sizeof info) > 0)
        ;
      while ((pid = waitpid (-1, &status, __WALL | WNOHANG)) > 0)
        serve_wait_status (pid, status);
    }
}

int
main (int    argc,
      char **argv)
{
  int first = 1;
  pid_t child;
  int status;
  int sfd;
  sigset_t mask;
  int main_status = -1;

  int serving = argc == 4 && strcmp (argv[1], "--serve") == 0 &&
                strcmp (argv[2], "--socket") == 0;

  /* First of all: the code this process watches (or, as the relay, carries
   * the connections of) runs as the same user. Not dumpable, its memory,
   * descriptors and environment are closed to that code (/proc/PID/mem,
   * process_vm_*, pidfd_getfd all need CAP_SYS_PTRACE then, which the
   * sandbox has not). The exec of this binary made it dumpable again, and
   * nothing of the sandbox's runs yet. */
  if (prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
    die ("prctl (PR_SET_DUMPABLE)");
  guard_pid = getpid ();
  guard_parent = getppid ();
  guard_pgid = getpgid (0);

  if (argc >= 6 && strcmp (argv[1], "--relay") == 0 && strcmp (argv[4], "--") == 0)
    {
      int port = atoi (argv[2]);

      if (port <= 0 || port > 65535)
        {
          fprintf (stderr, "warden-guard: --relay takes a port, not “%s”\n", argv[2]);
          return 125;
        }
      return warden_relay_main (port, argv[3], argv + 5);
    }

  if (serving)
    {
      /* As if given "--socket PATH --": the same connection below. */
      argv[1] = argv[2];
      argv[2] = argv[3];
    }
  else if (argc < 5 || (strcmp (argv[1], "--fd") != 0 && strcmp (argv[1], "--socket") != 0) ||
           strcmp (argv[3], "--") != 0)
    {
      fprintf (stderr, "usage: warden-guard --fd N | --socket PATH -- PROGRAM [ARG…]\n"
                       "       warden-guard --serve --socket PATH\n"
                       "       warden-guard --relay PORT PATH -- PROGRAM [ARG…]\n");
      return 125;
    }
  if (strcmp (argv[1], "--fd") == 0)
    {
      sock = atoi (argv[2]);
      if (fcntl (sock, F_SETFD, FD_CLOEXEC) != 0)
        die ("the socket to Warden");
    }
  else
    {
      /* A container: Warden listens on a socket in a folder mounted here. */
      struct sockaddr_un addr = { .sun_family = AF_UNIX };

      if (strlen (argv[2]) >= sizeof addr.sun_path)
        {
          fprintf (stderr, "warden-guard: the socket path is too long\n");
          return 125;
        }
      strcpy (addr.sun_path, argv[2]);
      sock = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (sock < 0 || connect (sock, (struct sockaddr *) &addr, sizeof addr) != 0)
        die ("could not reach Warden's exec guard socket");
    }

  sigemptyset (&mask);
  sigaddset (&mask, SIGCHLD);
  if (sigprocmask (SIG_BLOCK, &mask, NULL) != 0)
    die ("sigprocmask");
  sfd = signalfd (-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0)
    die ("signalfd");
  /* A closed Warden is a read of 0, not a SIGPIPE. */
  signal (SIGPIPE, SIG_IGN);
  if (serving)
    return serve (sfd);

  child = fork ();
  if (child < 0)
    die ("fork");
  if (child == 0)
    {
      sigprocmask (SIG_UNBLOCK, &mask, NULL);
      signal (SIGPIPE, SIG_DFL);
      become_tracee ();
      execvp (argv[4], argv + 4);
      fprintf (stderr, "warden-guard: %s: %s\n", argv[4], strerror (errno));
      _exit (errno == ENOENT ? 127 : 126);
    }

  if (waitpid (child, &status, 0) != child || !WIFSTOPPED (status))
    die ("the first stop");
  if (ptrace (PTRACE_SETOPTIONS, child, 0, TRACE_OPTIONS) != 0)
    die ("ptrace options");
  add_proc (child, 0)->started = 1;
  ptrace (PTRACE_CONT, child, 0, 0);

  /* Until PROGRAM ends; what it left behind dies with the guard
   * (PTRACE_O_EXITKILL), as it would with the sandbox. */
  while (main_status == -1 && n_procs > 0)
    {
      struct pollfd fds[2] = { { sfd, POLLIN, 0 }, { sock, POLLIN, 0 } };
      struct signalfd_siginfo info;
      pid_t pid;

      if (poll (fds, sock_dead ? 1 : 2, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          die ("poll");
        }
      if (!sock_dead && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
        read_answers ();
      if (!(fds[0].revents & POLLIN))
        continue;
      while (read (sfd, &info, sizeof info) > 0)
        ;

      while ((pid = waitpid (-1, &status, __WALL | WNOHANG)) > 0)
        {
          Proc *p;
          int event = status >> 16;

          if (WIFEXITED (status) || WIFSIGNALED (status))
            {
              if (pid == child)
                main_status = status;
              remove_proc (pid);
              continue;
            }
          if (!WIFSTOPPED (status))
            continue;

          p = find_proc (pid);
          if (event == PTRACE_EVENT_SECCOMP)
            {
              /* An exec about to happen in a traced process: checked at
               * the exec stop that follows. */
              ptrace (PTRACE_CONT, pid, 0, 0);
              continue;
            }
          if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK ||
              event == PTRACE_EVENT_CLONE)
            {
              unsigned long new_pid = 0;

              ptrace (PTRACE_GETEVENTMSG, pid, 0, &new_pid);
              add_proc ((pid_t) new_pid, pid);
              ptrace (PTRACE_CONT, pid, 0, 0);
              continue;
            }
          if (event == PTRACE_EVENT_EXEC)
            {
              unsigned long former = 0;

              /* An exec from a thread other than the leader: the leader's
               * pid carries on, the thread's is gone. */
              ptrace (PTRACE_GETEVENTMSG, pid, 0, &former);
              if ((pid_t) former != pid)
                remove_proc ((pid_t) former);
              if (p == NULL)
                p = add_proc (pid, 0);
              if (p == NULL)
                continue;
              p->started = 1;
              if (first && pid == child)
                {
                  /* PROGRAM itself: Warden checked it before it started. */
                  first = 0;
                  let_command_run (p);
                }
              else
                ask (p);
              continue;
            }
          if (p == NULL || !p->started)
            {
              /* The first stop of a new process, maybe before its parent's
               * fork event: it starts. */
              p = add_proc (pid, 0);
              if (p != NULL)
                p->started = 1;
              ptrace (PTRACE_CONT, pid, 0, WSTOPSIG (status) == SIGSTOP ? 0 : WSTOPSIG (status));
              continue;
            }
          /* A signal for the program: it gets it. */
          ptrace (PTRACE_CONT, pid, 0, WSTOPSIG (status));
        }
    }

  if (main_status == -1)
    return 125;
  {
    char line[32];

    snprintf (line, sizeof line, "exit %d\n", main_status);
    write_all (line, strlen (line));
  }
  return exit_code_of (main_status);
}
