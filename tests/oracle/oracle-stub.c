/* oracle-stub.c: a program on the oracle's PATH that records that it ran
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Inside the oracle's sandbox /usr/bin holds copies of this program under
 * every command name the generator and the seeds use. Each copy appends its
 * name and arguments to ORACLE_LOG, then:
 *
 *  - wrappers and shells exec the real program (env, xargs, find, timeout,
 *    nice, sh, bash, busybox, …), so what they wrap really runs, through
 *    PATH, and is logged in turn: a stub env would hide "env evil";
 *  - a few read-only filters exec the real program too (cat, grep, base64,
 *    …), so "cat <<EOF | sh" feeds sh what bash would;
 *  - wrappers that need privileges the sandbox drops (sudo, su, doas,
 *    unshare, chroot, …) or that would not end (watch) are emulated: their options are skipped the way the
 *    tool reads them and the wrapped command is exec'd, or a shell that reads
 *    its script from standard input;
 *  - everything else exits at once.
 *
 * The name logged is the file that ran (from /proc/self/exe, which exec -a
 * cannot fake): its base name when it is one of the stubs, its whole path
 * otherwise (the trap programs in the workspace are copies of this file).
 *
 * No GLib here: this runs thousands of times a second, and starts faster alone.
 */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oracle-common.h"

static const char * const stub_dirs[] = {
  "/usr/bin/", "/usr/sbin/", "/usr/local/bin/", "/usr/local/sbin/", NULL,
};

/* Programs exec'd for real after logging, by the name they have there. */
typedef struct
{
  const char *name;
  const char *real;   /* path under ORACLE_REALBIN or ORACLE_REALSBIN */
} Passthrough;

static const Passthrough passthrough[] = {
  /* wrappers */
  { "env", ORACLE_REALBIN "/env" },
  { "xargs", ORACLE_REALBIN "/xargs" },
  { "find", ORACLE_REALBIN "/find" },
  { "timeout", ORACLE_REALBIN "/timeout" },
  { "nice", ORACLE_REALBIN "/nice" },
  { "nohup", ORACLE_REALBIN "/nohup" },
  { "flock", ORACLE_REALBIN "/flock" },
  { "stdbuf", ORACLE_REALBIN "/stdbuf" },
  { "setsid", ORACLE_REALBIN "/setsid" },
  { "ionice", ORACLE_REALBIN "/ionice" },
  { "taskset", ORACLE_REALBIN "/taskset" },
  { "setpriv", ORACLE_REALBIN "/setpriv" },
  { "script", ORACLE_REALBIN "/script" },
  { "time", ORACLE_REALBIN "/time" },
  /* shells; argv[0] is kept, so busybox picks its applet from "ash" */
  { "sh", ORACLE_REALBIN "/dash" },
  { "dash", ORACLE_REALBIN "/dash" },
  { "bash", ORACLE_REALBIN "/bash" },
  { "rbash", ORACLE_REALBIN "/bash" },
  { "busybox", ORACLE_REALBIN "/busybox" },
  { "ash", ORACLE_REALBIN "/busybox" },
  /* not installed: a POSIX shell reads -c STRING and stdin the same way */
  { "ksh", ORACLE_REALBIN "/dash" },
  { "mksh", ORACLE_REALBIN "/dash" },
  { "rksh", ORACLE_REALBIN "/dash" },
  { "pdksh", ORACLE_REALBIN "/dash" },
  { "zsh", ORACLE_REALBIN "/dash" },
  { "yash", ORACLE_REALBIN "/dash" },
  { "posh", ORACLE_REALBIN "/dash" },
  /* read-only filters */
  { "cat", ORACLE_REALBIN "/cat" },
  { "head", ORACLE_REALBIN "/head" },
  { "tail", ORACLE_REALBIN "/tail" },
  { "grep", ORACLE_REALBIN "/grep" },
  { "wc", ORACLE_REALBIN "/wc" },
  { "tr", ORACLE_REALBIN "/tr" },
  { "cut", ORACLE_REALBIN "/cut" },
  { "rev", ORACLE_REALBIN "/rev" },
  { "base64", ORACLE_REALBIN "/base64" },
  { "ls", ORACLE_REALBIN "/ls" },
  { "echo", ORACLE_REALBIN "/echo" },
  { "printf", ORACLE_REALBIN "/printf" },
  { "true", ORACLE_REALBIN "/true" },
  { "false", ORACLE_REALBIN "/false" },
  { "test", ORACLE_REALBIN "/test" },
  { "[", ORACLE_REALBIN "/[" },
  { NULL, NULL },
};

static void
put_field (char       **p,
           const char  *s)
{
  for (; *s != '\0'; s++)
    {
      unsigned char c = (unsigned char) *s;

      if (c == ORACLE_RS || c == ORACLE_US || c == '\n' || c == '\\')
        *p += sprintf (*p, "\\x%02x", c);
      else
        *(*p)++ = (char) c;
    }
}

/* One write(), so records of processes running at once do not interleave. */
static void
log_invocation (const char  *name,
                int          argc,
                char       **argv)
{
  size_t size = 4 * strlen (name) + 3;
  char *buf, *p;
  int fd;

  for (int i = 1; i < argc; i++)
    size += 4 * strlen (argv[i]) + 1;
  buf = p = malloc (size);
  if (buf == NULL)
    abort ();
  *p++ = ORACLE_RS;
  put_field (&p, name);
  for (int i = 1; i < argc; i++)
    {
      *p++ = ORACLE_US;
      put_field (&p, argv[i]);
    }
  *p++ = '\n';

  fd = open (ORACLE_LOG, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  if (fd >= 0)
    {
      ssize_t n = write (fd, buf, (size_t) (p - buf));
      (void) n;
      close (fd);
    }
  free (buf);
}

static void
exec_or_die (char **argv)
{
  execvp (argv[0], argv);
  fprintf (stderr, "%s: %s\n", argv[0], strerror (errno));
  _exit (errno == ENOENT ? 127 : 126);
}

static void
exec_shell (const char *script)
{
  if (script != NULL)
    execl (ORACLE_REALBIN "/dash", "sh", "-c", script, (char *) NULL);
  else
    execl (ORACLE_REALBIN "/dash", "sh", (char *) NULL);
  _exit (127);
}

static int
streq (const char *a,
       const char *b)
{
  return strcmp (a, b) == 0;
}

static int
in_list (const char         *s,
         const char * const *list)
{
  for (; *list != NULL; list++)
    if (streq (s, *list))
      return 1;
  return 0;
}

/* A long option: TRUE when it takes an argument that is not attached with '='. */
static int
long_takes_next (const char         *arg,
                 const char * const *with_arg)
{
  return strchr (arg, '=') == NULL && in_list (arg, with_arg);
}

/* sudo joins the command for "sudo -s CMD" the way sudo does: every byte but
 * letters, digits, '_', '-' and '$' escaped with a backslash. */
static char *
sudo_join (char **argv)
{
  size_t size = 1;
  char *s, *p;

  for (char **a = argv; *a != NULL; a++)
    size += 2 * strlen (*a) + 1;
  s = p = malloc (size);
  if (s == NULL)
    abort ();
  for (char **a = argv; *a != NULL; a++)
    {
      if (a != argv)
        *p++ = ' ';
      for (const char *c = *a; *c != '\0'; c++)
        {
          if (!isalnum ((unsigned char) *c) && *c != '_' && *c != '-' && *c != '$')
            *p++ = '\\';
          *p++ = *c;
        }
    }
  *p = '\0';
  return s;
}

static void
emulate_sudo (int    argc,
              char **argv)
{
  static const char * const long_with_arg[] = {
    "--user", "--group", "--prompt", "--chdir", "--chroot", "--close-from", "--role",
    "--type", "--command-timeout", "--other-user", "--host", NULL,
  };
  int i = 1, shell = 0, no_command = 0;

  for (; i < argc; i++)
    {
      const char *a = argv[i];

      if (streq (a, "--"))
        {
          i++;
          break;
        }
      if (a[0] != '-' || a[1] == '\0')
        break;
      if (a[1] == '-')
        {
          if (streq (a, "--shell") || streq (a, "--login"))
            shell = 1;
          else if (streq (a, "--list") || streq (a, "--validate") || streq (a, "--version") ||
                   streq (a, "--help") || streq (a, "--edit") || streq (a, "--remove-timestamp"))
            no_command = 1;
          else if (long_takes_next (a, long_with_arg))
            i++;
          continue;
        }
      for (const char *c = a + 1; *c != '\0'; c++)
        {
          if (strchr ("CDghpRrtTUu", *c) != NULL)
            {
              if (c[1] == '\0')
                i++;
              break;
            }
          if (*c == 's' || *c == 'i')
            shell = 1;
          else if (strchr ("lvVeK", *c) != NULL)
            no_command = 1;
        }
    }
  if (no_command)
    _exit (0);
  if (shell)
    exec_shell (i < argc ? sudo_join (argv + i) : NULL);
  if (i >= argc)
    _exit (1);
  exec_or_die (argv + i);
}

static void
emulate_doas (int    argc,
              char **argv)
{
  int i = 1, shell = 0;

  for (; i < argc; i++)
    {
      const char *a = argv[i];

      if (streq (a, "--"))
        {
          i++;
          break;
        }
      if (a[0] != '-' || a[1] == '\0')
        break;
      for (const char *c = a + 1; *c != '\0'; c++)
        {
          if (*c == 'u' || *c == 'C')
            {
              if (*c == 'C')
                _exit (0);
              if (c[1] == '\0')
                i++;
              break;
            }
          if (*c == 's')
            shell = 1;
          else if (*c == 'L')
            _exit (0);
        }
    }
  if (i < argc)
    exec_or_die (argv + i);
  if (shell)
    exec_shell (NULL);
  _exit (1);
}

/* su and runuser: "-c CMD" runs CMD with the user's shell, anything else a
 * shell reading standard input; "runuser -u USER CMD…" runs CMD. getopt
 * permutes, so options may follow the user name. */
static void
emulate_su (int    argc,
            char **argv,
            int    runuser)
{
  static const char * const long_with_arg[] = {
    "--command", "--session-command", "--shell", "--group", "--supp-group",
    "--whitelist-environment", "--user", NULL,
  };
  const char *command = NULL;
  int user_mode = 0, i;

  for (i = 1; i < argc; i++)
    {
      const char *a = argv[i];

      if (streq (a, "--"))
        {
          i++;
          break;
        }
      if (a[0] != '-' || a[1] == '\0')
        {
          if (user_mode)
            break;
          continue;   /* the user name, or "-" */
        }
      if (a[1] == '-')
        {
          const char *eq = strchr (a, '=');

          if (strncmp (a, "--command", 9) == 0 || strncmp (a, "--session-command", 17) == 0)
            command = eq != NULL ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
          else if (strncmp (a, "--user", 6) == 0)
            {
              user_mode = runuser;
              if (eq == NULL)
                i++;
            }
          else if (long_takes_next (a, long_with_arg))
            i++;
          continue;
        }
      for (const char *c = a + 1; *c != '\0'; c++)
        {
          if (strchr ("csgGwu", *c) != NULL)
            {
              const char *value = c[1] != '\0' ? c + 1 : (i + 1 < argc ? argv[++i] : NULL);

              if (*c == 'c')
                command = value;
              else if (*c == 'u' && runuser)
                user_mode = 1;
              break;
            }
        }
    }
  if (user_mode)
    {
      if (i < argc)
        exec_or_die (argv + i);
      _exit (1);
    }
  exec_shell (command);
}

/* COMMAND [ARG]… after options, some of which take the next word; none runs
 * a shell reading standard input (unshare, nsenter, chroot's default). */
static void
emulate_skip_options (int                 argc,
                      char              **argv,
                      const char         *short_with_arg,
                      const char * const *long_with_arg,
                      int                 operands_to_skip)
{
  int i = 1;

  for (; i < argc; i++)
    {
      const char *a = argv[i];

      if (streq (a, "--"))
        {
          i++;
          break;
        }
      if (a[0] != '-' || a[1] == '\0')
        break;
      if (a[1] == '-')
        {
          if (long_takes_next (a, long_with_arg))
            i++;
          continue;
        }
      for (const char *c = a + 1; *c != '\0'; c++)
        if (strchr (short_with_arg, *c) != NULL)
          {
            if (c[1] == '\0')
              i++;
            break;
          }
    }
  i += operands_to_skip;
  if (i < argc)
    exec_or_die (argv + i);
  exec_shell (NULL);
}

/* procps-ng's watch (+bced::ghq:n:pvtwx), run once: "sh -c" on its
 * arguments joined by spaces, or them as they are with -x. -d's argument is
 * optional, so only ever attached. */
static void
emulate_watch (int    argc,
               char **argv)
{
  static const char * const long_with_arg[] = { "--interval", "--equexit", NULL };
  size_t size = 1;
  int i = 1, exec = 0;
  char *script, *p;

  for (; i < argc; i++)
    {
      const char *a = argv[i];

      if (streq (a, "--"))
        {
          i++;
          break;
        }
      if (a[0] != '-' || a[1] == '\0')
        break;
      if (a[1] == '-')
        {
          if (streq (a, "--exec"))
            exec = 1;
          else if (long_takes_next (a, long_with_arg))
            i++;
          continue;
        }
      for (const char *c = a + 1; *c != '\0'; c++)
        {
          if (*c == 'x')
            exec = 1;
          else if (*c == 'n' || *c == 'q')
            {
              if (c[1] == '\0')
                i++;
              break;
            }
          else if (*c == 'd')
            break;
        }
    }
  if (i >= argc)
    _exit (1);
  if (exec)
    exec_or_die (argv + i);
  for (int k = i; k < argc; k++)
    size += strlen (argv[k]) + 1;
  script = p = malloc (size);
  if (script == NULL)
    abort ();
  for (int k = i; k < argc; k++)
    p += sprintf (p, "%s%s", k > i ? " " : "", argv[k]);
  exec_shell (script);
}

static void
emulate_command (int    argc,
                 char **argv)
{
  int i = 1;

  for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++)
    {
      if (streq (argv[i], "--"))
        {
          i++;
          break;
        }
      if (strchr (argv[i], 'v') != NULL || strchr (argv[i], 'V') != NULL)
        _exit (0);
    }
  if (i >= argc)
    _exit (0);
  exec_or_die (argv + i);
}

int
main (int    argc,
      char **argv)
{
  static const char * const unshare_long[] = {
    "--setuid", "--setgid", "--root", "--wd", "--propagation", "--setgroups", "--map-user",
    "--map-group", "--map-users", "--map-groups", "--monotonic", "--boottime", "--load-interp",
    NULL,
  };
  /* --root[=DIR] and --wd[=DIR] take no word of their own. */
  static const char * const nsenter_long[] = {
    "--target", "--setuid", "--setgid", "--wdns", NULL,
  };
  static const char * const fakeroot_long[] = {
    "--lib", "--faked", "--fd-base", NULL,
  };
  static const char * const chroot_long[] = {
    "--userspec", "--groups", NULL,
  };
  static const char * const systemd_run_long[] = {
    "--unit", "--property", "--description", "--slice", "--setenv", "--uid", "--gid", "--nice",
    "--working-directory", "--on-active", "--on-boot", "--on-startup", "--on-unit-active",
    "--on-unit-inactive", "--on-calendar", "--path-property", "--socket-property",
    "--timer-property", "--service-type", "--host", "--machine", NULL,
  };
  char exe[4096];
  const char *name = NULL;
  ssize_t n;

  n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0)
    {
      /* Without /proc nothing can be trusted: say so loudly in the log. */
      snprintf (exe, sizeof exe, "?%s", argv[0]);
      n = (ssize_t) strlen (exe);
    }
  exe[n] = '\0';
  name = exe;
  for (int k = 0; stub_dirs[k] != NULL; k++)
    {
      size_t len = strlen (stub_dirs[k]);

      if (strncmp (exe, stub_dirs[k], len) == 0 && strchr (exe + len, '/') == NULL)
        name = exe + len;
    }

  log_invocation (name, argc, argv);

  if (name == exe)
    return 0;   /* a trap in the workspace */

  for (int k = 0; passthrough[k].name != NULL; k++)
    if (streq (name, passthrough[k].name))
      {
        execv (passthrough[k].real, argv);
        fprintf (stderr, "oracle-stub: %s: %s\n", passthrough[k].real, strerror (errno));
        return 126;
      }

  if (streq (name, "sudo"))
    emulate_sudo (argc, argv);
  else if (streq (name, "doas"))
    emulate_doas (argc, argv);
  else if (streq (name, "su"))
    emulate_su (argc, argv, 0);
  else if (streq (name, "runuser"))
    emulate_su (argc, argv, 1);
  else if (streq (name, "unshare"))
    emulate_skip_options (argc, argv, "SGRw", unshare_long, 0);
  else if (streq (name, "nsenter"))
    emulate_skip_options (argc, argv, "tSGW", nsenter_long, 0);
  else if (streq (name, "chroot"))
    emulate_skip_options (argc, argv, "", chroot_long, 1);
  else if (streq (name, "systemd-run"))
    emulate_skip_options (argc, argv, "upEHM", systemd_run_long, 0);
  else if (streq (name, "command"))
    emulate_command (argc, argv);
  else if (streq (name, "watch"))
    emulate_watch (argc, argv);
  else if (streq (name, "fakeroot"))
    emulate_skip_options (argc, argv, "lfisb", fakeroot_long, 0);

  return 0;
}
