/* oracle-runner.c: runs command lines under real shells in a sandbox
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One bubblewrap sandbox is started and kept (starting one takes about 200 ms
 * here, running a line in a live one about 2 ms). Inside it this program runs
 * again as PID 1 (--runner) and takes jobs over a pipe: for each job it
 * resets the workspace, snapshots every writable place, runs the line under
 * one shell, waits for every process the line started (as PID 1 it inherits
 * the orphans, so "no child left" means the line is over), kills all of them
 * at the deadline, snapshots again and sends back the stub log and what
 * changed outside the workspace.
 *
 * The sandbox: no network (a new network namespace), no capabilities, the
 * host's / read-only, a private /tmp and /dev, and the workspace tree
 * ROOT/top (ROOT is a host directory under /tmp, bound at the same path so the
 * engine, outside, sees the same workspace and its symlinks). /usr/bin,
 * /usr/sbin and /usr/local/{bin,sbin} are the stub directory, so every
 * program a line can reach through PATH (or /bin/x, or command -p) is a stub;
 * the real /usr/bin is mounted at ORACLE_REALBIN for the stubs of wrappers.
 * PID 1 of a PID namespace gets no signal it has no handler for, so
 * "kill -9 -1" in a line cannot stop the runner.
 */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "policy/warden-protected-path.h"

#include "oracle-common.h"
#include "oracle-runner.h"

#define JOB_MAGIC   0x4a4f5231u   /* "JOR1" */
#define REPLY_MAGIC 0x524f5231u   /* "ROR1" */

#define MAX_LOG     (1024 * 1024)
#define MAX_ERR     2048
#define MAX_FILE    (4 * 1024 * 1024)

enum
{
  REPLY_TIMED_OUT     = 1 << 0,
  REPLY_LOG_TRUNCATED = 1 << 1,
};

typedef struct
{
  guint32 magic;
  guint32 shell;
  guint32 timeout_ms;
  guint32 length;
} JobHeader;

typedef struct
{
  guint32 magic;
  gint32  status;
  guint32 flags;
  guint32 log_length;
  guint32 changes_length;
  guint32 err_length;
} ReplyHeader;

/* Every name on the sandbox's PATH: a stub each (see oracle-stub.c). The
 * generator only uses names from this list. */
const char * const oracle_stub_names[] = {
  /* wrappers, exec'd for real or emulated by the stub */
  "env", "xargs", "find", "timeout", "nice", "nohup", "flock", "stdbuf", "setsid", "ionice",
  "taskset", "setpriv", "script", "time", "sudo", "doas", "su", "runuser", "unshare",
  "nsenter", "chroot", "systemd-run", "command", "watch", "fakeroot",
  /* shells */
  "sh", "dash", "bash", "rbash", "busybox", "ash", "ksh", "mksh", "rksh", "pdksh", "zsh",
  "yash", "posh",
  /* read-only filters, exec'd for real */
  "cat", "head", "tail", "grep", "wc", "tr", "cut", "rev", "base64", "ls", "echo", "printf",
  "true", "false", "test", "[",
  /* everything else only logs */
  "git", "node", "npm", "npx", "yarn", "make", "python3", "python", "pip", "pytest", "cargo",
  "go", "gcc", "cc", "curl", "wget", "evil", "rm", "cp", "mv", "touch", "mkdir", "chmod",
  "chown", "ln", "tee", "sort", "uniq", "sed", "awk", "tar", "id", "whoami", "nproc", "date",
  "pwd", "diff", "ping", "sleep", "kill", "ssh", "scp", "nc", "perl", "ruby", "docker", "yes",
  "seq", "uname", "hostname", "which", "stat", "readlink", "realpath", "dirname", "basename",
  "mktemp", "sha256sum", "less", "vi", "cmd", "job", "tool", "run", "a", "b", "c", "d", "e",
  "f", "g", "h", "x", "y", "z",
  NULL
};

/* Trap programs in the workspace, copies of the stub that log their whole
 * path: they run only if PATH (for PATH in ., PATH=. cmd, env PATH=. cmd)
 * or a command word that is not what it looks like ('ls ./x') leads there. */
static const char * const trap_names[] = {
  "ls", "cat", "git", "echo", "node", "make", "grep", "true", "env", "sh", "test", "printf",
  NULL
};
static const char * const trap_dirs[] = { "ls .", "cat .", "git .", "echo .", "node .", NULL };

const char *
oracle_shell_name (OracleShell shell)
{
  static const char * const names[] = { "bash", "dash", "busybox" };

  g_return_val_if_fail (shell < ORACLE_N_SHELLS, NULL);
  return names[shell];
}

static void
oracle_invocation_free (gpointer data)
{
  OracleInvocation *inv = data;

  g_free (inv->name);
  g_strfreev (inv->argv);
  g_free (inv->text);
  g_free (inv);
}

void
oracle_run_free (OracleRun *run)
{
  if (run == NULL)
    return;
  g_clear_pointer (&run->ran, g_ptr_array_unref);
  g_clear_pointer (&run->changes, g_ptr_array_unref);
  g_clear_pointer (&run->protected_changes, g_ptr_array_unref);
  g_free (run->err);
  g_free (run);
}

static gboolean
write_all (int           fd,
           gconstpointer data,
           gsize         length)
{
  const char *p = data;

  while (length > 0)
    {
      ssize_t n = write (fd, p, length);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      p += n;
      length -= (gsize) n;
    }
  return TRUE;
}

/* Reads exactly @length bytes; with @deadline (monotonic µs, 0: none) gives
 * up when it passes. */
static gboolean
read_all (int      fd,
          gpointer data,
          gsize    length,
          gint64   deadline)
{
  char *p = data;

  while (length > 0)
    {
      ssize_t n;

      if (deadline > 0)
        {
          struct pollfd pfd = { .fd = fd, .events = POLLIN };
          gint64 left = deadline - g_get_monotonic_time ();
          int r;

          if (left <= 0)
            return FALSE;
          r = poll (&pfd, 1, (int) MAX (1, left / 1000));
          if (r < 0 && errno == EINTR)
            continue;
          if (r <= 0)
            return FALSE;
        }
      n = read (fd, p, length);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      p += n;
      length -= (gsize) n;
    }
  return TRUE;
}

/* ---- Inside the sandbox ------------------------------------------------------ */

typedef struct
{
  char       *root;       /* ROOT */
  char       *top;        /* ROOT/top: all a line may write, and its parent */
  char       *ws;         /* ROOT/top/ws: the workspace */
  char       *bin;        /* ROOT/bin: the stubs, read-only */
  GBytes     *stub;       /* the stub program, for the traps */
  GHashTable *before;
  GHashTable *after;
} Runner;

/* Removes @path and everything below it, whatever modes a line left on it. */
static void
remove_tree (const char *path)
{
  struct stat st;

  if (lstat (path, &st) != 0)
    return;
  if (S_ISDIR (st.st_mode))
    {
      DIR *dir;
      struct dirent *e;

      chmod (path, 0700);
      dir = opendir (path);
      if (dir != NULL)
        {
          while ((e = readdir (dir)) != NULL)
            {
              g_autofree char *child = NULL;

              if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
                continue;
              child = g_build_filename (path, e->d_name, NULL);
              remove_tree (child);
            }
          closedir (dir);
        }
      rmdir (path);
    }
  else
    unlink (path);
}

static void
put_file (const char   *dir,
          const char   *name,
          gconstpointer data,
          gsize         length,
          int           mode)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

  if (fd < 0 || !write_all (fd, data, length))
    g_error ("runner: cannot write %s: %s", path, g_strerror (errno));
  close (fd);
}

static void
put_dir (const char *dir,
         const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  if (g_mkdir_with_parents (path, 0755) != 0)
    g_error ("runner: cannot create %s: %s", path, g_strerror (errno));
}

/* The tree each line starts from; outside/ and home/ are what a line must
 * not write, ws/.git what it must not write without asking. */
static void
runner_reset (Runner *r)
{
  g_autofree char *outside = g_build_filename (r->top, "outside", NULL);
  g_autofree char *home = g_build_filename (r->top, "home", NULL);
  g_autofree char *git = g_build_filename (r->ws, ".git", NULL);
  const char *trap;
  gsize trap_length;
  const char *body = "hello\n";

  remove_tree (r->top);
  put_dir (r->root, "top");
  put_dir (r->top, "ws");
  put_dir (r->top, "outside");
  put_dir (r->top, "home");
  put_file (outside, "o.txt", body, strlen (body), 0644);
  put_file (home, "h.txt", body, strlen (body), 0644);

  put_file (r->ws, "a.txt", body, strlen (body), 0644);
  /* A script a line may hand to a shell (sh run.sh, BASH_ENV=run.sh, …).
   * Not executable: ./run.sh running what it holds is the file's doing, like
   * make running a Makefile, which no engine can see. */
  put_file (r->ws, "run.sh", "evil from-run.sh\n", 17, 0644);
  put_file (r->ws, "b.txt", "a\nb\n", 4, 0644);
  put_dir (r->ws, "dir");
  put_file (r->ws, "dir/c.txt", body, strlen (body), 0644);
  put_dir (r->ws, ".git/hooks");
  put_file (git, "config", "[core]\n", 7, 0644);
  put_file (git, "HEAD", "ref: refs/heads/main\n", 21, 0644);
  {
    g_autofree char *link = g_build_filename (r->ws, "link", NULL);

    if (symlink ("../outside", link) != 0)
      g_error ("runner: symlink %s: %s", link, g_strerror (errno));
  }

  trap = g_bytes_get_data (r->stub, &trap_length);
  for (guint i = 0; trap_names[i] != NULL; i++)
    put_file (r->ws, trap_names[i], trap, trap_length, 0755);
  for (guint i = 0; trap_dirs[i] != NULL; i++)
    {
      g_autofree char *dir = g_build_filename (r->ws, trap_dirs[i], NULL);

      put_dir (r->ws, trap_dirs[i]);
      put_file (dir, "x", trap, trap_length, 0755);
    }
  /* xargs --process-slot-var=PATH gives each command PATH=0, 1 …: "ls" is
   * then 0/ls. */
  {
    g_autofree char *slot = g_build_filename (r->ws, "0", NULL);

    put_dir (r->ws, "0");
    for (guint i = 0; trap_names[i] != NULL; i++)
      put_file (slot, trap_names[i], trap, trap_length, 0755);
  }
}

static gboolean
is_under (const char *path,
          const char *dir)
{
  gsize n = strlen (dir);

  return strncmp (path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Records @path and what is below it: every entry outside the workspace, and
 * in the workspace the protected paths only. Directories are recorded without
 * times, which change whenever an entry comes or goes (bash's here-document
 * files in /tmp among them); the entries themselves show what changed. */
static void
snapshot_walk (Runner     *r,
               GHashTable *snap,
               const char *path)
{
  struct stat st;
  gboolean in_ws;
  gboolean record = TRUE;
  char *desc;

  if (strcmp (path, ORACLE_REALBIN) == 0 || strcmp (path, ORACLE_REALSBIN) == 0 ||
      strcmp (path, r->bin) == 0 || strcmp (path, ORACLE_LOG) == 0 ||
      strcmp (path, ORACLE_ERR) == 0 || strcmp (path, ORACLE_DIR "/runner") == 0 ||
      strcmp (path, "/dev/pts") == 0)
    return;
  if (lstat (path, &st) != 0)
    return;

  in_ws = is_under (path, r->ws);
  if (in_ws)
    record = path[strlen (r->ws)] == '/' && warden_path_is_protected (path + strlen (r->ws) + 1);

  if (record)
    {
      if (S_ISDIR (st.st_mode))
        desc = g_strdup_printf ("d %o", st.st_mode & 07777);
      else if (S_ISCHR (st.st_mode) || S_ISBLK (st.st_mode))
        desc = g_strdup_printf ("c %o %lx", st.st_mode & 07777, (unsigned long) st.st_rdev);
      else if (S_ISLNK (st.st_mode))
        {
          g_autofree char *target = g_file_read_link (path, NULL);

          desc = g_strdup_printf ("l %s", target != NULL ? target : "?");
        }
      else
        desc = g_strdup_printf ("%c %o %lld %lld.%09ld %lld.%09ld",
                                S_ISREG (st.st_mode) ? 'f' : 'o', st.st_mode & 07777,
                                (long long) st.st_size,
                                (long long) st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                                (long long) st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
      g_hash_table_replace (snap, g_strdup (path), desc);
    }

  if (S_ISDIR (st.st_mode))
    {
      DIR *dir = opendir (path);
      struct dirent *e;

      if (dir == NULL)
        {
          /* A line made a directory unreadable: that is a change too. */
          g_hash_table_replace (snap, g_strdup_printf ("%s/?", path), g_strdup ("unreadable"));
          return;
        }
      while ((e = readdir (dir)) != NULL)
        {
          g_autofree char *child = NULL;

          if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
            continue;
          child = g_build_filename (path, e->d_name, NULL);
          snapshot_walk (r, snap, child);
        }
      closedir (dir);
    }
}

static void
snapshot (Runner     *r,
          GHashTable *snap)
{
  g_hash_table_remove_all (snap);
  snapshot_walk (r, snap, "/tmp");
  snapshot_walk (r, snap, "/dev");
}

/* NUL-separated "O what path" (outside) and "P what path" (protected). */
static void
snapshot_diff (Runner  *r,
               GString *out)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, r->after);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const char *old = g_hash_table_lookup (r->before, key);
      const char *what = old == NULL ? "created" : strcmp (old, value) != 0 ? "modified" : NULL;

      if (what != NULL)
        {
          g_string_append_printf (out, "%c%s %s", is_under (key, r->ws) ? 'P' : 'O', what,
                                  (const char *) key);
          g_string_append_c (out, '\0');
        }
    }
  g_hash_table_iter_init (&iter, r->before);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (!g_hash_table_contains (r->after, key))
      {
        g_string_append_printf (out, "%cdeleted %s", is_under (key, r->ws) ? 'P' : 'O',
                                (const char *) key);
        g_string_append_c (out, '\0');
      }
}

static char *
read_bounded (const char *path,
              gsize       max,
              gsize      *length)
{
  char *buf = g_malloc (max + 1);
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  gsize n = 0;

  if (fd >= 0)
    {
      while (n < max)
        {
          ssize_t k = read (fd, buf + n, max - n);

          if (k < 0 && errno == EINTR)
            continue;
          if (k <= 0)
            break;
          n += (gsize) k;
        }
      close (fd);
    }
  buf[n] = '\0';
  *length = n;
  return buf;
}

static void
truncate_file (const char *path)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);

  if (fd < 0)
    g_error ("runner: cannot create %s: %s", path, g_strerror (errno));
  close (fd);
}

static G_NORETURN void
runner_exec_child (Runner      *r,
                   OracleShell  shell,
                   const char  *line)
{
  sigset_t none;
  struct rlimit fsize = { MAX_FILE, MAX_FILE };
  struct rlimit core = { 0, 0 };
  g_autofree char *home = g_build_filename (r->top, "home", NULL);
  g_autofree char *home_env = g_strconcat ("HOME=", home, NULL);
  /* SHELL is the real dash: the shell that su, sudo -s, script or flock -c
   * start on their own is part of the wrapper, not a command of the line;
   * what it runs goes through PATH and is logged. */
  const char *envp[] = {
    "PATH=/usr/bin:/bin", home_env, "LANG=C.UTF-8", "SHELL=" ORACLE_REALBIN "/dash", "USER=root",
    "LOGNAME=root", NULL,
  };
  const char *argv[6] = { NULL };
  int null_fd, err_fd;

  sigemptyset (&none);
  sigprocmask (SIG_SETMASK, &none, NULL);
  signal (SIGPIPE, SIG_DFL);
  setpgid (0, 0);
  setrlimit (RLIMIT_FSIZE, &fsize);
  setrlimit (RLIMIT_CORE, &core);

  null_fd = open ("/dev/null", O_RDWR);
  err_fd = open (ORACLE_ERR, O_WRONLY | O_APPEND);
  if (null_fd < 0 || err_fd < 0 || chdir (r->ws) != 0)
    _exit (125);
  dup2 (null_fd, 0);
  dup2 (null_fd, 1);
  dup2 (err_fd, 2);
  for (int fd = 3; fd < 1024; fd++)
    close (fd);

  switch (shell)
    {
    case ORACLE_SHELL_BASH:
      argv[0] = "bash";
      argv[1] = "-c";
      argv[2] = line;
      execve (ORACLE_REALBIN "/bash", (char **) argv, (char **) envp);
      break;
    case ORACLE_SHELL_DASH:
      argv[0] = "dash";
      argv[1] = "-c";
      argv[2] = line;
      execve (ORACLE_REALBIN "/dash", (char **) argv, (char **) envp);
      break;
    case ORACLE_SHELL_BUSYBOX:
    case ORACLE_N_SHELLS:
    default:
      argv[0] = "busybox";
      argv[1] = "sh";
      argv[2] = "-c";
      argv[3] = line;
      execve (ORACLE_REALBIN "/busybox", (char **) argv, (char **) envp);
      break;
    }
  _exit (127);
}

/* Waits for the shell and everything it left behind; at the deadline, kills
 * all processes of the namespace but this one. */
static int
runner_wait (pid_t   child,
             guint   timeout_ms,
             guint32 *flags)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  sigset_t chld;
  int status = 0;

  sigemptyset (&chld);
  sigaddset (&chld, SIGCHLD);

  for (;;)
    {
      int st;
      pid_t pid;
      gint64 left;
      struct timespec ts;

      while ((pid = waitpid (-1, &st, WNOHANG)) > 0)
        if (pid == child)
          status = st;
      if (pid < 0 && errno == ECHILD)
        return status;

      left = deadline - g_get_monotonic_time ();
      if (left <= 0)
        break;
      ts.tv_sec = left / G_USEC_PER_SEC;
      ts.tv_nsec = (left % G_USEC_PER_SEC) * 1000;
      sigtimedwait (&chld, NULL, &ts);
    }

  *flags |= REPLY_TIMED_OUT;
  kill (-1, SIGKILL);
  for (;;)
    {
      int st;
      pid_t pid = waitpid (-1, &st, 0);

      if (pid == child)
        status = st;
      if (pid < 0 && errno != EINTR)
        break;
    }
  return status;
}

int
oracle_runner_main (const char *root)
{
  Runner r = { 0 };
  sigset_t chld;
  g_autoptr(GError) error = NULL;
  g_autofree char *stub_path = NULL;
  g_autofree char *stub_data = NULL;
  gsize stub_length;

  /* SIGCHLD stays blocked: runner_wait takes it with sigtimedwait. */
  sigemptyset (&chld);
  sigaddset (&chld, SIGCHLD);
  sigprocmask (SIG_BLOCK, &chld, NULL);
  signal (SIGPIPE, SIG_IGN);

  r.root = g_strdup (root);
  r.top = g_build_filename (root, "top", NULL);
  r.ws = g_build_filename (r.top, "ws", NULL);
  r.bin = g_build_filename (root, "bin", NULL);
  r.before = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  r.after = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  stub_path = g_build_filename (r.bin, "evil", NULL);
  if (!g_file_get_contents (stub_path, &stub_data, &stub_length, &error))
    g_error ("runner: %s", error->message);
  r.stub = g_bytes_new_take (g_steal_pointer (&stub_data), stub_length);

  truncate_file (ORACLE_LOG);
  truncate_file (ORACLE_ERR);
  runner_reset (&r);
  if (!write_all (1, "READY\n", 6))
    return 1;

  for (;;)
    {
      JobHeader job;
      ReplyHeader reply = { REPLY_MAGIC, 0, 0, 0, 0, 0 };
      g_autofree char *line = NULL;
      g_autofree char *log = NULL;
      g_autofree char *err = NULL;
      g_autoptr(GString) changes = g_string_new (NULL);
      gsize log_length, err_length;
      pid_t child;

      if (!read_all (0, &job, sizeof job, 0))
        return 0;   /* the oracle is done */
      if (job.magic != JOB_MAGIC || job.shell >= ORACLE_N_SHELLS ||
          job.length > 16 * 1024 * 1024)
        return 1;
      line = g_malloc (job.length + 1);
      if (!read_all (0, line, job.length, 0))
        return 1;
      line[job.length] = '\0';

      truncate_file (ORACLE_LOG);
      truncate_file (ORACLE_ERR);
      snapshot (&r, r.before);

      child = fork ();
      if (child < 0)
        g_error ("runner: fork: %s", g_strerror (errno));
      if (child == 0)
        runner_exec_child (&r, job.shell, line);
      reply.status = runner_wait (child, job.timeout_ms, &reply.flags);

      snapshot (&r, r.after);
      snapshot_diff (&r, changes);
      log = read_bounded (ORACLE_LOG, MAX_LOG, &log_length);
      {
        struct stat st;

        if (stat (ORACLE_LOG, &st) == 0 && st.st_size > MAX_LOG)
          reply.flags |= REPLY_LOG_TRUNCATED;
      }
      err = read_bounded (ORACLE_ERR, MAX_ERR, &err_length);
      runner_reset (&r);

      reply.log_length = (guint32) log_length;
      reply.changes_length = (guint32) changes->len;
      reply.err_length = (guint32) err_length;
      if (!write_all (1, &reply, sizeof reply) ||
          !write_all (1, log, log_length) ||
          !write_all (1, changes->str, changes->len) ||
          !write_all (1, err, err_length))
        return 1;
    }
}

/* ---- Outside: the sandbox ---------------------------------------------------- */

struct _OracleSandbox
{
  char  *self_exe;
  char  *stub;
  guint  timeout_ms;
  char  *root;
  char  *ws;
  GPid   pid;       /* bwrap, or 0 when not running */
  int    to_fd;
  int    from_fd;
};

static const char * const shell_paths[] = { "/usr/bin/bash", "/usr/bin/dash", "/usr/bin/busybox" };

char *
oracle_sandbox_check (void)
{
  g_autofree char *bwrap = g_find_program_in_path ("bwrap");

  if (bwrap == NULL)
    return g_strdup ("bwrap (bubblewrap) is not installed");
  for (guint i = 0; i < G_N_ELEMENTS (shell_paths); i++)
    if (!g_file_test (shell_paths[i], G_FILE_TEST_IS_EXECUTABLE))
      return g_strdup_printf ("%s is not installed (the dash and busybox-static packages)",
                              shell_paths[i]);
  return NULL;
}

static gboolean
copy_file (const char  *from,
           const char  *to,
           GError     **error)
{
  g_autofree char *data = NULL;
  gsize length;

  if (link (from, to) == 0)
    return TRUE;
  if (!g_file_get_contents (from, &data, &length, error))
    return FALSE;
  if (!g_file_set_contents_full (to, data, (gssize) length, G_FILE_SET_CONTENTS_NONE, 0755,
                                 error))
    return FALSE;
  return TRUE;
}

static void
sandbox_stop (OracleSandbox *self)
{
  if (self->pid > 0)
    {
      kill (self->pid, SIGKILL);
      waitpid (self->pid, NULL, 0);
      self->pid = 0;
    }
  if (self->to_fd >= 0)
    close (self->to_fd);
  if (self->from_fd >= 0)
    close (self->from_fd);
  self->to_fd = self->from_fd = -1;
}

static gboolean
sandbox_start (OracleSandbox  *self,
               GError        **error)
{
  g_autofree char *bin = g_build_filename (self->root, "bin", NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  char ready[6];

#define ARG(s) g_ptr_array_add (argv, (gpointer) (s))
  ARG ("bwrap");
  /* No --die-with-parent: it fires when the thread that started bwrap ends,
   * and workers restart sandboxes. The runner ends when its stdin closes. */
  ARG ("--unshare-all");
  ARG ("--as-pid-1");
  ARG ("--cap-drop"); ARG ("ALL");
  ARG ("--ro-bind"); ARG ("/"); ARG ("/");
  ARG ("--dev"); ARG ("/dev");
  ARG ("--proc"); ARG ("/proc");
  ARG ("--tmpfs"); ARG ("/tmp");
  ARG ("--dir"); ARG (ORACLE_DIR "/log");
  ARG ("--ro-bind"); ARG ("/usr/bin"); ARG (ORACLE_REALBIN);
  ARG ("--ro-bind"); ARG ("/usr/sbin"); ARG (ORACLE_REALSBIN);
  ARG ("--bind"); ARG (self->root); ARG (self->root);
  ARG ("--ro-bind"); ARG (bin); ARG (bin);
  ARG ("--ro-bind"); ARG (bin); ARG ("/usr/bin");
  ARG ("--ro-bind"); ARG (bin); ARG ("/usr/sbin");
  ARG ("--ro-bind-try"); ARG (bin); ARG ("/usr/local/bin");
  ARG ("--ro-bind-try"); ARG (bin); ARG ("/usr/local/sbin");
  /* This program may live under /tmp, which the sandbox replaces. */
  ARG ("--ro-bind"); ARG (self->self_exe); ARG (ORACLE_DIR "/runner");
  ARG ("--chdir"); ARG ("/");
  ARG ("--");
  ARG (ORACLE_DIR "/runner");
  ARG ("--runner");
  ARG (self->root);
  ARG (NULL);
#undef ARG

  if (!g_spawn_async_with_pipes (NULL, (char **) argv->pdata, NULL,
                                 G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                 &self->pid, &self->to_fd, &self->from_fd, NULL, error))
    return FALSE;
  if (!read_all (self->from_fd, ready, sizeof ready, g_get_monotonic_time () + 30 * G_USEC_PER_SEC) ||
      memcmp (ready, "READY\n", 6) != 0)
    {
      sandbox_stop (self);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                           "the sandbox did not start (does bwrap work here?)");
      return FALSE;
    }
  return TRUE;
}

OracleSandbox *
oracle_sandbox_new (const char  *self_exe,
                    const char  *stub,
                    guint        timeout_ms,
                    GError     **error)
{
  g_autoptr(OracleSandbox) self = g_new0 (OracleSandbox, 1);
  g_autofree char *bin = NULL;

  self->self_exe = g_strdup (self_exe);
  self->stub = g_strdup (stub);
  self->timeout_ms = timeout_ms;
  self->to_fd = self->from_fd = -1;
  /* On a tmpfs if there is one: the workspace is rebuilt after every line
   * that touched it, which takes 50 ms on a disk here and 1 ms in memory.
   * The sandbox replaces /tmp and /dev, so nothing else there is reachable. */
  if (access ("/dev/shm", W_OK) == 0)
    {
      self->root = g_strdup ("/dev/shm/warden-oracle-XXXXXX");
      if (g_mkdtemp (self->root) == NULL)
        g_clear_pointer (&self->root, g_free);
    }
  if (self->root == NULL)
    self->root = g_dir_make_tmp ("warden-oracle-XXXXXX", error);
  if (self->root == NULL)
    return NULL;
  self->ws = g_build_filename (self->root, "top", "ws", NULL);
  bin = g_build_filename (self->root, "bin", NULL);
  if (g_mkdir (bin, 0755) != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "%s: %s", bin,
                   g_strerror (errno));
      return NULL;
    }
  for (guint i = 0; oracle_stub_names[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (bin, oracle_stub_names[i], NULL);

      if (!copy_file (stub, path, error))
        return NULL;
    }
  if (!sandbox_start (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

void
oracle_sandbox_free (OracleSandbox *self)
{
  if (self == NULL)
    return;
  sandbox_stop (self);
  if (self->root != NULL)
    {
      /* The runner left the last template behind, plain files. */
      remove_tree (self->root);
    }
  g_free (self->self_exe);
  g_free (self->stub);
  g_free (self->root);
  g_free (self->ws);
  g_free (self);
}

const char *
oracle_sandbox_workspace (OracleSandbox *self)
{
  return self->ws;
}

/* Field bytes were written as \xNN by the stub. */
static char *
unescape_field (const char *s,
                gsize       length)
{
  GString *out = g_string_sized_new (length);

  for (gsize i = 0; i < length; i++)
    {
      if (s[i] == '\\' && i + 3 < length && s[i + 1] == 'x' &&
          g_ascii_isxdigit (s[i + 2]) && g_ascii_isxdigit (s[i + 3]))
        {
          g_string_append_c (out, (char) (g_ascii_xdigit_value (s[i + 2]) * 16 +
                                          g_ascii_xdigit_value (s[i + 3])));
          i += 3;
        }
      else
        g_string_append_c (out, s[i]);
    }
  return g_string_free (out, FALSE);
}

/* Parses the log; FALSE when it holds something no stub wrote (a line wrote
 * into it: it is outside the workspace). */
static gboolean
parse_log (const char *log,
           gsize       length,
           gboolean    truncated,
           GPtrArray  *ran)
{
  const char *p = log, *end = log + length;
  gboolean ok = TRUE;

  while (p < end)
    {
      const char *nl = memchr (p, '\n', (gsize) (end - p));
      g_autoptr(GPtrArray) fields = g_ptr_array_new_with_free_func (g_free);
      OracleInvocation *inv;
      const char *f;
      GString *text;

      if (nl == NULL && truncated)
        break;   /* the record the reading stopped in */
      if (nl == NULL || *p != ORACLE_RS)
        {
          ok = FALSE;
          if (nl == NULL)
            break;
          p = nl + 1;
          continue;
        }
      f = p + 1;
      for (const char *q = f; q <= nl; q++)
        if (q == nl || *q == ORACLE_US)
          {
            g_ptr_array_add (fields, unescape_field (f, (gsize) (q - f)));
            f = q + 1;
          }
      inv = g_new0 (OracleInvocation, 1);
      inv->name = g_strdup (fields->pdata[0]);
      inv->argv = g_new0 (char *, fields->len);
      text = g_string_new (inv->name);
      for (guint i = 1; i < fields->len; i++)
        {
          inv->argv[i - 1] = g_strdup (fields->pdata[i]);
          g_string_append_c (text, ' ');
          g_string_append (text, fields->pdata[i]);
        }
      inv->text = g_string_free (text, FALSE);
      g_ptr_array_add (ran, inv);
      p = nl + 1;
    }
  return ok;
}

static void
replace_root (OracleSandbox  *self,
              char          **s)
{
  g_auto(GStrv) parts = NULL;

  if (strstr (*s, self->root) == NULL)
    return;
  parts = g_strsplit (*s, self->root, -1);
  g_free (*s);
  *s = g_strjoinv ("$ROOT", parts);
}

OracleRun *
oracle_sandbox_run (OracleSandbox  *self,
                    OracleShell     shell,
                    const char     *line,
                    gsize           length,
                    GError        **error)
{
  JobHeader job = { JOB_MAGIC, shell, self->timeout_ms, (guint32) length };
  ReplyHeader reply;
  g_autoptr(OracleRun) run = NULL;
  g_autofree char *log = NULL;
  g_autofree char *changes = NULL;
  gint64 deadline;

  if (self->pid == 0 && !sandbox_start (self, error))
    return NULL;

  deadline = g_get_monotonic_time () + ((gint64) self->timeout_ms + 20000) * 1000;
  if (!write_all (self->to_fd, &job, sizeof job) || !write_all (self->to_fd, line, length) ||
      !read_all (self->from_fd, &reply, sizeof reply, deadline) || reply.magic != REPLY_MAGIC ||
      reply.log_length > MAX_LOG || reply.err_length > MAX_ERR ||
      reply.changes_length > 64 * 1024 * 1024)
    {
      sandbox_stop (self);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                           "the sandbox's runner stopped answering");
      return NULL;
    }

  run = g_new0 (OracleRun, 1);
  run->status = reply.status;
  run->timed_out = (reply.flags & REPLY_TIMED_OUT) != 0;
  run->ran = g_ptr_array_new_with_free_func (oracle_invocation_free);
  run->changes = g_ptr_array_new_with_free_func (g_free);
  run->protected_changes = g_ptr_array_new_with_free_func (g_free);
  log = g_malloc (reply.log_length + 1);
  changes = g_malloc (reply.changes_length + 1);
  run->err = g_malloc (reply.err_length + 1);
  if (!read_all (self->from_fd, log, reply.log_length, deadline) ||
      !read_all (self->from_fd, changes, reply.changes_length, deadline) ||
      !read_all (self->from_fd, run->err, reply.err_length, deadline))
    {
      sandbox_stop (self);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                           "the sandbox's runner stopped answering");
      return NULL;
    }
  run->err[reply.err_length] = '\0';

  run->log_tampered = !parse_log (log, reply.log_length,
                                  (reply.flags & REPLY_LOG_TRUNCATED) != 0, run->ran);
  /* Reports name the sandbox's directory $ROOT: the same in every sandbox and
   * every run, so failures compare and read alike. */
  for (guint i = 0; i < run->ran->len; i++)
    {
      OracleInvocation *inv = run->ran->pdata[i];

      replace_root (self, &inv->name);
      replace_root (self, &inv->text);
      for (char **a = inv->argv; *a != NULL; a++)
        replace_root (self, a);
    }
  for (const char *p = changes; p < changes + reply.changes_length; p += strlen (p) + 1)
    {
      char *change = g_strdup (p + 1);

      replace_root (self, &change);
      g_ptr_array_add (*p == 'P' ? run->protected_changes : run->changes, change);
    }
  return g_steal_pointer (&run);
}
