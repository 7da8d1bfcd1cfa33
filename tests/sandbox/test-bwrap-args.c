/* test-bwrap-args.c: the bwrap sandbox's command line, argument by argument
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What each command of the bwrap backend runs as: what is mounted, in which
 * order, which descriptors bwrap reads, what wraps the command. Nothing is
 * run; the tests in test-sandbox run it.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib-unix.h>
#include <glib/gstdio.h>

#include "sandbox/warden-bwrap.h"
#include "sandbox/warden-bwrap-sandbox-private.h"
#include "warden-test-util.h"

/* Stand-ins in the expected lines: the host's /bin, /lib… links (as this
 * machine has them), and the workspace's path on the host. */
#define ROOT_LINKS "@root-links@"
#define WS         "@ws@"

#define GUARD  "/opt/warden/libexec/warden-guard"
#define SOCKET "/run/user/1000/warden/net.sock"

/* What every command sees of /etc, and with a way out also. */
#define ETC_FILES \
  "--ro-bind-try", "/etc/passwd", "/etc/passwd", \
  "--ro-bind-try", "/etc/group", "/etc/group", \
  "--ro-bind-try", "/etc/alternatives", "/etc/alternatives", \
  "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache", \
  "--ro-bind-try", "/etc/localtime", "/etc/localtime", \
  "--ro-bind-try", "/etc/nsswitch.conf", "/etc/nsswitch.conf"
#define ETC_NETWORK_FILES \
  "--ro-bind-try", "/etc/hosts", "/etc/hosts", \
  "--ro-bind-try", "/etc/ssl", "/etc/ssl", \
  "--ro-bind-try", "/etc/ca-certificates", "/etc/ca-certificates", \
  "--ro-bind-try", "/etc/pki", "/etc/pki"

/* Made in main(), before GLib reads XDG_CONFIG_HOME: it holds Warden's own
 * settings folder and a GnuPG home, which no command may see. */
static char *protected_workspace;

static const char * const env[] = { "PATH=/usr/bin:/bin", "HOME=/tmp", "EQ=a=b", "NOVALUE",
                                    NULL };

static void
add_root_links (GPtrArray *expected)
{
  static const char * const links[] = { "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
                                        NULL };

  for (guint i = 0; links[i]; i++)
    {
      struct stat st;

      if (lstat (links[i], &st) != 0)
        continue;
      if (S_ISLNK (st.st_mode))
        {
          g_ptr_array_add (expected, g_strdup ("--symlink"));
          g_ptr_array_add (expected, g_file_read_link (links[i], NULL));
          g_ptr_array_add (expected, g_strdup (links[i]));
        }
      else if (S_ISDIR (st.st_mode))
        {
          g_ptr_array_add (expected, g_strdup ("--ro-bind"));
          g_ptr_array_add (expected, g_strdup (links[i]));
          g_ptr_array_add (expected, g_strdup (links[i]));
        }
    }
}

/* One argument a line: a difference shows where it is. */
static char *
expand (const char * const *expected,
        const char         *workspace)
{
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; expected[i]; i++)
    {
      if (strcmp (expected[i], ROOT_LINKS) == 0)
        add_root_links (lines);
      else if (g_str_has_prefix (expected[i], WS))
        g_ptr_array_add (lines, g_strconcat (workspace, expected[i] + strlen (WS), NULL));
      else
        g_ptr_array_add (lines, g_strdup (expected[i]));
    }
  g_ptr_array_add (lines, NULL);
  return g_strjoinv ("\n", (char **) lines->pdata);
}

static void
assert_argv (WardenSandboxConfig     *config,
             const WardenBwrapHost   *host,
             const WardenExecRequest *request,
             const char              *guard,
             const char              *relay,
             const char * const      *expected)
{
  g_autoptr(WardenSandbox) sandbox = warden_bwrap_sandbox_new (config);
  g_auto(GStrv) argv = NULL;
  g_autofree char *got = NULL;
  g_autofree char *want = NULL;

  warden_bwrap_sandbox_set_host (WARDEN_BWRAP_SANDBOX (sandbox), host);
  argv = warden_bwrap_sandbox_dup_argv (WARDEN_BWRAP_SANDBOX (sandbox), request, env, guard,
                                        relay);
  got = g_strjoinv ("\n", argv);
  want = expand (expected, config->workspace);
  g_assert_cmpstr (got, ==, want);
}

static const WardenBwrapHost plain_host = { .bwrap = "/usr/bin/bwrap" };

/* No network, bwrap 0.5, no systemd: the least a command gets. */
static void
test_network_none (void)
{
  static const char * const expected[] = {
    "/usr/bin/bwrap", "--die-with-parent", "--new-session", "--unshare-all", "--unshare-user",
    "--cap-drop", "ALL", "--seccomp", "3", "--info-fd", "4", "--block-fd", "5",
    "--ro-bind", "/usr", "/usr", ROOT_LINKS,
    "--proc", "/proc", "--remount-ro", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
    "--dir", "/etc",
    ETC_FILES,
    "--bind", WS, "/workspace",
    "--chdir", "/workspace",
    "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp",
    "--setenv", "EQ", "a=b",
    "--remount-ro", "/", "--",
    "/bin/sh", "-c", "echo 'hi there'",
    NULL
  };
  g_autofree char *workspace = g_dir_make_tmp ("warden-bwrap-args-XXXXXX", NULL);
  WardenSandboxConfig config = { .workspace = workspace, .network = WARDEN_NETWORK_NONE };
  WardenExecRequest request = { .command = "echo 'hi there'" };

  assert_argv (&config, &plain_host, &request, NULL, NULL, expected);
  warden_test_remove_tree (workspace);
}

/* Open network, bwrap 0.8 under a systemd scope: the limits as the scope's,
 * /tmp's size, the sandbox's own resolv.conf; the workspace where the
 * config puts it. */
static void
test_network_open (void)
{
  static const char * const expected[] = {
    "/usr/bin/systemd-run", "--user", "--scope", "--quiet", "--collect",
    "--property=TasksMax=100", "--property=MemoryMax=1000000", "--property=MemorySwapMax=0",
    "--",
    "/usr/bin/bwrap", "--die-with-parent", "--new-session", "--unshare-all", "--unshare-user",
    "--disable-userns",
    "--cap-drop", "ALL", "--seccomp", "3", "--info-fd", "4", "--block-fd", "5",
    "--ro-bind", "/usr", "/usr", ROOT_LINKS,
    "--proc", "/proc", "--remount-ro", "/proc", "--dev", "/dev",
    "--size", "5000000", "--tmpfs", "/tmp",
    "--dir", "/etc",
    ETC_FILES,
    ETC_NETWORK_FILES,
    "--ro-bind-data", "6", "/etc/resolv.conf",
    "--bind", WS, "/src",
    "--chdir", "/src/sub",
    "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp",
    "--setenv", "EQ", "a=b",
    "--remount-ro", "/", "--",
    "/bin/sh", "-c", "make",
    NULL
  };
  static const WardenBwrapHost host = {
    .bwrap = "/usr/bin/bwrap",
    .systemd_run = "/usr/bin/systemd-run",
    .has_disable_userns = TRUE,
    .has_size = TRUE,
  };
  g_autofree char *workspace = g_dir_make_tmp ("warden-bwrap-args-XXXXXX", NULL);
  WardenSandboxConfig config = {
    .workspace = workspace,
    .workspace_inside = (char *) "/src",
    .network = WARDEN_NETWORK_OPEN,
    .pids_limit = 100,
    .memory_bytes = 1000000,
    .tmp_bytes = 5000000,
  };
  WardenExecRequest request = { .command = "make", .cwd = "/src/sub" };

  assert_argv (&config, &host, &request, NULL, NULL, expected);
  warden_test_remove_tree (workspace);
}

/* Only through Warden's proxy, every program checked: certificates but no
 * resolver, the helper and the proxy's socket mounted, the relay first and
 * untraced, then the guard. */
static void
test_network_allowlist_guarded (void)
{
  static const char * const expected[] = {
    "/usr/bin/bwrap", "--die-with-parent", "--new-session", "--unshare-all", "--unshare-user",
    "--cap-drop", "ALL", "--seccomp", "3", "--info-fd", "4", "--block-fd", "5",
    "--ro-bind", "/usr", "/usr", ROOT_LINKS,
    "--proc", "/proc", "--remount-ro", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
    "--dir", "/etc",
    ETC_FILES,
    ETC_NETWORK_FILES,
    "--bind", WS, "/workspace",
    "--chdir", "/workspace",
    "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp",
    "--setenv", "EQ", "a=b",
    "--ro-bind", GUARD, "/run/warden-guard",
    "--ro-bind", SOCKET, "/run/warden-net.sock",
    "--remount-ro", "/", "--",
    "/run/warden-guard", "--relay", "3128", "/run/warden-net.sock", "--",
    "/run/warden-guard", "--fd", "7", "--",
    "/bin/sh", "-c", "curl https://example.org",
    NULL
  };
  g_autofree char *workspace = g_dir_make_tmp ("warden-bwrap-args-XXXXXX", NULL);
  WardenSandboxConfig config = {
    .workspace = workspace,
    .network = WARDEN_NETWORK_ALLOWLIST,
    .proxy_socket = (char *) SOCKET,
  };
  WardenExecRequest request = { .command = "curl https://example.org" };

  assert_argv (&config, &plain_host, &request, GUARD, GUARD, expected);
  warden_test_remove_tree (workspace);
}

/* A repository with a protected file, Warden's settings and a GnuPG home
 * inside the workspace: .git pinned with its doors read-only, the file
 * read-only, the private ones covered; the guard alone, no relay. */
static void
test_protected_paths (void)
{
  static const char * const expected[] = {
    "/usr/bin/bwrap", "--die-with-parent", "--new-session", "--unshare-all", "--unshare-user",
    "--cap-drop", "ALL", "--seccomp", "3", "--info-fd", "4", "--block-fd", "5",
    "--ro-bind", "/usr", "/usr", ROOT_LINKS,
    "--proc", "/proc", "--remount-ro", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
    "--dir", "/etc",
    ETC_FILES,
    "--bind", WS, "/workspace",
    "--bind", WS "/.git", "/workspace/.git",
    "--ro-bind", WS "/.git/config", "/workspace/.git/config",
    "--ro-bind", WS "/.git/hooks", "/workspace/.git/hooks",
    "--ro-bind", WS "/.git/info", "/workspace/.git/info",
    "--ro-bind", WS "/.envrc", "/workspace/.envrc",
    "--tmpfs", "/workspace/.cfg/warden", "--remount-ro", "/workspace/.cfg/warden",
    "--ro-bind", "/dev/null", "/workspace/gnupg",
    "--chdir", "/workspace",
    "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp",
    "--setenv", "EQ", "a=b",
    "--ro-bind", GUARD, "/run/warden-guard",
    "--remount-ro", "/", "--",
    "/run/warden-guard", "--fd", "7", "--",
    "/bin/sh", "-c", "git status",
    NULL
  };
  WardenSandboxConfig config = { .workspace = protected_workspace };
  WardenExecRequest request = { .command = "git status" };

  assert_argv (&config, &plain_host, &request, GUARD, NULL, expected);
}

/* ------------------------------------------------------------------------ */
/* The builder */

/* The arguments in the order given; an environment entry split at its
 * first "=", one without "=" left out. */
static void
test_builder_args (void)
{
  g_autoptr(WardenBwrap) b = warden_bwrap_new ();
  g_auto(GStrv) argv = NULL;
  g_auto(GStrv) again = NULL;
  g_autofree char *got = NULL;

  warden_bwrap_add_arg (b, "bwrap");
  warden_bwrap_add_args (b, "--tmpfs", "/tmp", NULL);
  warden_bwrap_add_arg_printf (b, "%d", 3);
  warden_bwrap_bind (b, WARDEN_BWRAP_BIND_RO, "/usr", "/usr");
  warden_bwrap_bind (b, WARDEN_BWRAP_BIND_RW, "/home/me/project", "/workspace");
  warden_bwrap_bind (b, WARDEN_BWRAP_BIND_DEV, "/dev/fuse", "/dev/fuse");
  warden_bwrap_bind (b, WARDEN_BWRAP_BIND_RO_TRY, "/etc/pki", "/etc/pki");
  warden_bwrap_add_env (b, env);
  argv = warden_bwrap_finish (b);
  got = g_strjoinv (" ", argv);
  g_assert_cmpstr (got, ==, "bwrap --tmpfs /tmp 3 --ro-bind /usr /usr "
                   "--bind /home/me/project /workspace --dev-bind /dev/fuse /dev/fuse "
                   "--ro-bind-try /etc/pki /etc/pki --setenv PATH /usr/bin:/bin "
                   "--setenv HOME /tmp --setenv EQ a=b");

  /* What was finished is the caller's: the builder starts again. */
  again = warden_bwrap_finish (b);
  g_assert_cmpuint (g_strv_length (again), ==, 0);
}

/* A descriptor kept for a command that never starts is closed with the
 * builder: nothing leaks from a failed start. */
static void
test_builder_fd_closed (void)
{
  WardenBwrap *b = warden_bwrap_new ();
  int fds[2];
  ssize_t n;

  g_assert_true (g_unix_open_pipe (fds, FD_CLOEXEC, NULL));
  warden_bwrap_add_fd (b, fds[0], 4);
  g_assert_cmpint (write (fds[1], "x", 1), ==, 1);
  warden_bwrap_free (b);

  /* No reader left: the pipe says so (SIGPIPE is ignored in main()). */
  n = write (fds[1], "x", 1);
  g_assert_cmpint (n, ==, -1);
  g_assert_cmpint (errno, ==, EPIPE);
  close (fds[1]);
}

/* The child reads each descriptor at the number it was given: a data
 * descriptor from its start, a pipe's end as it is. */
static void
test_builder_fds_handed (void)
{
  g_autoptr(WardenBwrap) b = warden_bwrap_new ();
  g_autoptr(GBytes) data = g_bytes_new_static ("nameserver 10.0.2.3\n", 20);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) child = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  char line[16] = "";
  int fds[2];

  g_assert_true (warden_bwrap_add_data_fd (b, data, 6, &error));
  g_assert_no_error (error);
  g_assert_true (g_unix_open_pipe (fds, FD_CLOEXEC, NULL));
  warden_bwrap_add_fd (b, fds[1], 4);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  warden_bwrap_hand_fds (b, launcher);
  child = g_subprocess_launcher_spawn (launcher, &error, "/bin/sh", "-c",
                                       "cat <&6; echo ready >&4", NULL);
  g_assert_no_error (error);
  g_clear_object (&launcher);  /* closes the child's ends here */
  g_assert_true (g_subprocess_communicate_utf8 (child, NULL, NULL, &out, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (out, ==, "nameserver 10.0.2.3\n");
  g_assert_cmpint (read (fds[0], line, sizeof line - 1), ==, 6);
  g_assert_cmpstr (line, ==, "ready\n");
  close (fds[0]);
}

static char *
make_protected_workspace (void)
{
  char *workspace = g_dir_make_tmp ("warden-bwrap-args-XXXXXX", NULL);
  g_autofree char *git = g_build_filename (workspace, ".git", NULL);
  g_autofree char *envrc = g_build_filename (workspace, ".envrc", NULL);
  g_autofree char *config = g_build_filename (workspace, ".cfg", NULL);
  g_autofree char *settings = g_build_filename (config, "warden", NULL);
  g_autofree char *gnupg = g_build_filename (workspace, "gnupg", NULL);

  g_assert_nonnull (workspace);
  g_assert_cmpint (g_mkdir (git, 0755), ==, 0);
  g_assert_true (g_file_set_contents (envrc, "use nix\n", -1, NULL));
  g_assert_cmpint (g_mkdir_with_parents (settings, 0755), ==, 0);
  /* GNUPGHOME may name anything; a file is covered by /dev/null. */
  g_assert_true (g_file_set_contents (gnupg, "", -1, NULL));
  g_setenv ("XDG_CONFIG_HOME", config, TRUE);
  g_setenv ("GNUPGHOME", gnupg, TRUE);
  return workspace;
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  signal (SIGPIPE, SIG_IGN);
  protected_workspace = make_protected_workspace ();
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sandbox/bwrap-args/network-none", test_network_none);
  g_test_add_func ("/sandbox/bwrap-args/network-open", test_network_open);
  g_test_add_func ("/sandbox/bwrap-args/network-allowlist-guarded", test_network_allowlist_guarded);
  g_test_add_func ("/sandbox/bwrap-args/protected-paths", test_protected_paths);
  g_test_add_func ("/sandbox/bwrap-args/builder/args", test_builder_args);
  g_test_add_func ("/sandbox/bwrap-args/builder/fd-closed", test_builder_fd_closed);
  g_test_add_func ("/sandbox/bwrap-args/builder/fds-handed", test_builder_fds_handed);
  ret = g_test_run ();
  warden_test_remove_tree (protected_workspace);
  g_free (protected_workspace);
  return ret;
}
