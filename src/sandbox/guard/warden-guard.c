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
 * Every traced process gets a seccomp filter that refuses ptrace and
 * process_vm_writev, so nothing inside can trace, or write into, another.
 *
 * Statically linked, it runs in any image (glibc, musl, busybox).
 *
 * Protocol on fd N (a stream socket), one message per line:
 *   guard → Warden: "exec ID PID" then, tab-separated and each escaped
 *                   (\\ \t \n as two characters), the new program's cwd, its
 *                   argc and argv — argv[0] replaced by the path of the file
 *                   that runs unless it leads there (program_word()) — and
 *                   for each ancestor (nearest first) its argv as one field of
 *                   NUL-joined words escaped as \0.
 *   Warden → guard: "allow ID" or "deny ID".
 *   guard → Warden: "exit STATUS" when PROGRAM ended (wait status).
 */

#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
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
} Proc;

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

static void
ask (Proc *p)
{
  char path[64];
  char head[64];
  char cwd[4096];
  ssize_t cwd_len;
  Buf b = { 0 };
  unsigned argc = 0;
  size_t script;

  /* What this process ran before: its parent's copy after a fork (the
   * chain's first link then), or the program that exec'd this one. */
  char *before = p->argv;
  size_t before_len = p->argv_len;

  snprintf (path, sizeof path, "/proc/%d/cmdline", p->pid);
  p->argv = read_file (path, &p->argv_len);
  if (p->argv == NULL)
    {
      /* Gone already, or unreadable: not run. */
      free (before);
      kill (p->pid, SIGKILL);
      return;
    }
  snprintf (path, sizeof path, "/proc/%d/cwd", p->pid);
  cwd_len = readlink (path, cwd, sizeof cwd - 1);
  if (cwd_len < 0)
    cwd_len = 0;

  p->id = next_id++;
  p->waiting = 1;
  snprintf (head, sizeof head, "exec %u %d\t", p->id, (int) p->pid);
  buf_add_str (&b, head);
  buf_add_escaped (&b, cwd, (size_t) cwd_len);
  for (size_t i = 0; i < p->argv_len; i++)
    argc += p->argv[i] == '\0';
  if (argc == 0)
    argc = 1;  /* execve with an empty argv: the program alone */
  script = p->argv_len > 0 ? script_offset (p->pid, p->argv, p->argv_len) : 0;
  if (script > 0)
    {
      /* Only if the interpreter is what runs: execve of rm with the argv
       * of a script is rm. */
      char *program = program_word (p->pid, p->argv);

      if (program == NULL || strcmp (program, p->argv) != 0)
        script = 0;
      free (program);
    }
  if (script > 0)
    {
      /* The script's path and its arguments: the interpreter is what its
       * own first line names. */
      for (size_t i = 0; i < script; i++)
        argc -= p->argv[i] == '\0';
      snprintf (head, sizeof head, "\t%u", argc);
      buf_add_str (&b, head);
    }
  else
  {
    char *program;

    snprintf (head, sizeof head, "\t%u", argc);
    buf_add_str (&b, head);
    program = program_word (p->pid, p->argv_len > 0 ? p->argv : "");

    if (program == NULL)
      {
        kill (p->pid, SIGKILL);
        p->waiting = 0;
        free (b.data);
        free (before);
        return;
      }
    buf_add (&b, "\t", 1);
    buf_add_escaped (&b, program, strlen (program));
    free (program);
  }
  for (size_t i = script > 0 ? script : p->argv_len > 0 ? strlen (p->argv) + 1 : 0;
       i < p->argv_len;)
    {
      size_t word = strlen (p->argv + i);

      buf_add (&b, "\t", 1);
      buf_add_escaped (&b, p->argv + i, word);
      i += word + 1;
    }
  /* The chain: what this process ran before, then each ancestor's
   * program, nearest first (Warden drops a link equal to the one before). */
  if (before != NULL)
    {
      buf_add (&b, "\t", 1);
      buf_add_escaped (&b, before, before_len);
    }
  free (before);
  {
    unsigned depth = 0;

    for (Proc *a = find_proc (p->parent); a != NULL && depth < 64;
         a = find_proc (a->parent), depth++)
      {
        buf_add (&b, "\t", 1);
        buf_add_escaped (&b, a->argv ? a->argv : "", a->argv ? a->argv_len : 0);
      }
  }
  buf_add (&b, "\n", 1);
  write_all (b.data, b.len);
  free (b.data);
  if (sock_dead)
    {
      /* Nobody to ask: not run. */
      p->waiting = 0;
      kill (p->pid, SIGKILL);
    }
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
        if (allow)
          ptrace (PTRACE_CONT, procs[i].pid, 0, 0);
        else
          kill (procs[i].pid, SIGKILL);
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

/* In each traced process, before PROGRAM: no ptrace (it could not trace a
 * process the guard traces anyway, but it could take over one that left),
 * no process_vm_writev, no other architecture's system calls. */
static void
install_filter (void)
{
  struct sock_filter filter[] = {
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, arch)),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
#ifdef __x86_64__
    /* x32 system calls are another table. */
    BPF_JUMP (BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
#endif
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_ptrace, 0, 1),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_writev, 0, 1),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = { sizeof filter / sizeof filter[0], filter };

  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
    {
      perror ("warden-guard: seccomp");
      _exit (125);
    }
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

  if (argc < 5 || (strcmp (argv[1], "--fd") != 0 && strcmp (argv[1], "--socket") != 0) ||
      strcmp (argv[3], "--") != 0)
    {
      fprintf (stderr, "usage: warden-guard --fd N | --socket PATH -- PROGRAM [ARG…]\n");
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

  child = fork ();
  if (child < 0)
    die ("fork");
  if (child == 0)
    {
      sigprocmask (SIG_UNBLOCK, &mask, NULL);
      signal (SIGPIPE, SIG_DFL);
      if (ptrace (PTRACE_TRACEME, 0, 0, 0) != 0)
        {
          perror ("warden-guard: ptrace");
          _exit (125);
        }
      install_filter ();
      raise (SIGSTOP);
      execvp (argv[4], argv + 4);
      fprintf (stderr, "warden-guard: %s: %s\n", argv[4], strerror (errno));
      _exit (errno == ENOENT ? 127 : 126);
    }

  if (waitpid (child, &status, 0) != child || !WIFSTOPPED (status))
    die ("the first stop");
  if (ptrace (PTRACE_SETOPTIONS, child, 0,
              PTRACE_O_TRACEEXEC | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
              PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL) != 0)
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
                  char path[64];

                  first = 0;
                  free (p->argv);
                  snprintf (path, sizeof path, "/proc/%d/cmdline", pid);
                  p->argv = read_file (path, &p->argv_len);
                  ptrace (PTRACE_CONT, pid, 0, 0);
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
