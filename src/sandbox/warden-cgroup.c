/* warden-cgroup.c: a control group per sandboxed command
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-sandbox"

#include <glib/gi18n.h>

#include "warden-cgroup.h"
#include "warden-owner.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DIRS 2

struct _WardenCgroup
{
  char *dirs[MAX_DIRS];     /* pids first, then memory (v1); one dir (v2) */
  char *procs[MAX_DIRS];    /* their cgroup.procs */
  guint n_dirs;
  gboolean unified;
};

typedef struct
{
  char *pids;      /* this process's group in the hierarchy with pids */
  char *memory;    /* … with memory; may be the same directory (v2) or NULL */
  gboolean unified;
} Hierarchies;

static void
hierarchies_clear (Hierarchies *h)
{
  g_clear_pointer (&h->pids, g_free);
  g_clear_pointer (&h->memory, g_free);
}

static gboolean
has_word (const char *list,
          const char *word)
{
  g_auto(GStrv) words = g_strsplit (list, ",", -1);

  return g_strv_contains ((const char * const *) words, word);
}

/* The directory of this process's group in the hierarchy mounted at
 * @mountpoint from @root, given its path from /proc/self/cgroup. */
static char *
group_dir (const char *mountpoint,
           const char *root,
           const char *path)
{
  if (strcmp (root, "/") == 0)
    return g_build_filename (mountpoint, path, NULL);
  if (g_str_has_prefix (path, root) && (path[strlen (root)] == '/' || path[strlen (root)] == 0))
    return g_build_filename (mountpoint, path + strlen (root), NULL);
  return NULL;
}

/* Reads /proc/self/mountinfo and /proc/self/cgroup. cgroup v1 hierarchies
 * win over v2: on a hybrid system the controllers live there. */
static void
find_hierarchies (Hierarchies *h)
{
  g_autofree char *mountinfo = NULL;
  g_autofree char *cgroups = NULL;
  g_auto(GStrv) mounts = NULL;
  g_auto(GStrv) groups = NULL;
  g_autofree char *unified = NULL;

  memset (h, 0, sizeof *h);
  if (!g_file_get_contents ("/proc/self/mountinfo", &mountinfo, NULL, NULL) ||
      !g_file_get_contents ("/proc/self/cgroup", &cgroups, NULL, NULL))
    return;
  mounts = g_strsplit (mountinfo, "\n", -1);
  groups = g_strsplit (cgroups, "\n", -1);

  for (guint i = 0; mounts[i]; i++)
    {
      g_auto(GStrv) fields = g_strsplit (mounts[i], " ", -1);
      guint n = g_strv_length (fields);
      guint dash = 0;
      const char *root, *mountpoint, *fstype, *options;

      for (guint k = 6; k < n; k++)
        if (strcmp (fields[k], "-") == 0)
          {
            dash = k;
            break;
          }
      if (dash == 0 || dash + 3 >= n)
        continue;
      root = fields[3];
      mountpoint = fields[4];
      fstype = fields[dash + 1];
      options = fields[dash + 3];

      for (guint g = 0; groups[g]; g++)
        {
          g_auto(GStrv) parts = g_strsplit (groups[g], ":", 3);

          if (g_strv_length (parts) != 3)
            continue;
          if (strcmp (fstype, "cgroup2") == 0 && strcmp (parts[0], "0") == 0 && unified == NULL)
            unified = group_dir (mountpoint, root, parts[2]);
          else if (strcmp (fstype, "cgroup") == 0 && *parts[1] != 0)
            {
              if (has_word (parts[1], "pids") && has_word (options, "pids") && h->pids == NULL)
                h->pids = group_dir (mountpoint, root, parts[2]);
              if (has_word (parts[1], "memory") && has_word (options, "memory") &&
                  h->memory == NULL)
                h->memory = group_dir (mountpoint, root, parts[2]);
            }
        }
    }

  if (h->pids == NULL && unified != NULL)
    {
      g_autofree char *controllers = NULL;
      g_autofree char *path = g_build_filename (unified, "cgroup.subtree_control", NULL);

      /* Children get a controller only when the parent passes it on. */
      if (g_file_get_contents (path, &controllers, NULL, NULL) &&
          strstr (controllers, "pids") == NULL)
        {
          g_file_set_contents_full (path, "+pids", -1, G_FILE_SET_CONTENTS_NONE, 0644, NULL);
          g_file_set_contents_full (path, "+memory", -1, G_FILE_SET_CONTENTS_NONE, 0644, NULL);
          g_clear_pointer (&controllers, g_free);
          g_file_get_contents (path, &controllers, NULL, NULL);
        }
      if (controllers != NULL && strstr (controllers, "pids") != NULL)
        {
          g_clear_pointer (&h->memory, g_free);
          if (strstr (controllers, "memory") != NULL)
            h->memory = g_strdup (unified);
          h->pids = g_steal_pointer (&unified);
          h->unified = TRUE;
        }
    }
  if (h->pids == NULL)
    g_clear_pointer (&h->memory, g_free);
}

/* Writes @value into the control file @name of @dir, as one write(2): the
 * kernel reads each write as a whole value. */
static gboolean
write_control (const char  *dir,
               const char  *name,
               const char  *value,
               GError     **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  int fd = open (path, O_WRONLY | O_CLOEXEC);
  gssize len = strlen (value);
  int saved;

  if (fd >= 0 && write (fd, value, len) == len)
    {
      close (fd);
      return TRUE;
    }
  saved = errno;
  if (fd >= 0)
    close (fd);
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", path,
               g_strerror (saved));
  return FALSE;
}

/* Kills what runs in the group at @dir (a dead Warden's command that
 * outlived it), then removes it; the processes take a moment to go. */
static void
remove_dead_group (const char *dir)
{
  g_autofree char *procs = g_build_filename (dir, "cgroup.procs", NULL);

  for (guint round = 0; round < 200; round++)
    {
      g_autofree char *text = NULL;
      g_auto(GStrv) lines = NULL;
      gboolean any = FALSE;

      if (rmdir (dir) == 0 || errno != EBUSY)
        return;
      if (!g_file_get_contents (procs, &text, NULL, NULL))
        return;
      lines = g_strsplit (text, "\n", -1);
      for (guint i = 0; lines[i] != NULL; i++)
        {
          gint64 pid = g_ascii_strtoll (lines[i], NULL, 10);

          if (pid > 0 && pid < G_MAXINT)
            {
              kill ((pid_t) pid, SIGKILL);
              any = TRUE;
            }
        }
      if (!any)
        g_usleep (1000);
    }
  g_debug ("A dead Warden's control group %s could not be removed yet", dir);
}

/* Groups a Warden left when it died: "warden-PID-START-PIDNS-N-RANDOM",
 * whose owner (PID with that start time, in the PID namespace with that
 * inode) is provably gone: what still runs there is killed, the group
 * removed. Wardens in other PID namespaces share the hierarchy; their pids
 * mean nothing here, and neither do names without the namespace (older
 * Wardens): those stay. */
static void
remove_stale (const char *parent)
{
  g_autoptr(GDir) dir = g_dir_open (parent, 0, NULL);
  guint64 my_ns = warden_owner_pid_namespace ();
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_auto(GStrv) f = NULL;
      gint64 pid;
      guint64 start, ns;

      if (!g_str_has_prefix (name, "warden-"))
        continue;
      f = g_strsplit (name, "-", -1);
      if (g_strv_length (f) != 6)
        continue;
      pid = g_ascii_strtoll (f[1], NULL, 10);
      start = g_ascii_strtoull (f[2], NULL, 10);
      ns = g_ascii_strtoull (f[3], NULL, 10);
      if (pid <= 0 || pid > G_MAXINT || start == 0 || ns == 0 || my_ns == 0 || ns != my_ns ||
          pid == getpid ())
        continue;
      /* Alive: the same process still has the pid (a zombie not yet reaped
       * counts as alive). */
      if (warden_owner_start_time ((GPid) pid) == start)
        continue;
      if (warden_owner_start_time ((GPid) pid) == 0 && kill ((pid_t) pid, 0) == 0)
        continue;
      {
        g_autofree char *path = g_build_filename (parent, name, NULL);

        remove_dead_group (path);
      }
    }
}

WardenCgroup *
warden_cgroup_new (guint     pids_max,
                   guint64   memory_max,
                   GError  **error)
{
  static guint counter;
  Hierarchies h;
  g_autoptr(WardenCgroup) self = g_new0 (WardenCgroup, 1);
  /* The owner, as remove_stale() reads it: the pid, its start time and its
   * PID namespace (Wardens in other namespaces share the hierarchy, and
   * each may be PID 1 there); then unique for this process. */
  g_autofree char *name = g_strdup_printf ("warden-%d-%" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT
                                           "-%u-%08x", (int) getpid (),
                                           warden_owner_start_time (getpid ()),
                                           warden_owner_pid_namespace (),
                                           g_atomic_int_add (&counter, 1), g_random_int ());
  g_autofree char *pids = g_strdup_printf ("%u", pids_max);
  g_autofree char *memory = g_strdup_printf ("%" G_GUINT64_FORMAT, memory_max);
  const char *parents[MAX_DIRS];

  find_hierarchies (&h);
  if (h.pids == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "No cgroup hierarchy with the pids controller is writable here");
      return NULL;
    }
  self->unified = h.unified;
  parents[0] = h.pids;
  parents[1] = h.memory != NULL && strcmp (h.memory, h.pids) != 0 ? h.memory : NULL;

  for (guint i = 0; i < MAX_DIRS && parents[i] != NULL; i++)
    {
      g_autofree char *dir = g_build_filename (parents[i], name, NULL);

      remove_stale (parents[i]);
      if (mkdir (dir, 0755) != 0)
        {
          int saved = errno;

          g_set_error (error, G_IO_ERROR,
                       saved == EACCES || saved == EPERM || saved == EROFS
                         ? G_IO_ERROR_NOT_SUPPORTED : g_io_error_from_errno (saved),
                       "%s: %s", dir, g_strerror (saved));
          hierarchies_clear (&h);
          warden_cgroup_remove (self);
          return NULL;
        }
      self->dirs[self->n_dirs++] = g_steal_pointer (&dir);
    }

  if (!write_control (self->dirs[0], "pids.max", pids, error))
    {
      hierarchies_clear (&h);
      warden_cgroup_remove (self);
      return NULL;
    }
  if (memory_max > 0 && h.memory != NULL)
    {
      const char *dir = self->dirs[self->n_dirs - 1];

      /* No swap beyond the limit, where swap is accounted at all: memsw
       * (v1) is memory plus swap, so the same figure means none. */
      if (self->unified ? write_control (dir, "memory.max", memory, error)
                        : write_control (dir, "memory.limit_in_bytes", memory, error))
        {
          if (self->unified)
            write_control (dir, "memory.swap.max", "0", NULL);
          else
            write_control (dir, "memory.memsw.limit_in_bytes", memory, NULL);
        }
      else
        {
          hierarchies_clear (&h);
          warden_cgroup_remove (self);
          return NULL;
        }
    }
  hierarchies_clear (&h);

  /* Paths, not open files: the child's descriptors are renumbered before
   * its setup runs. */
  for (guint i = 0; i < self->n_dirs; i++)
    self->procs[i] = g_build_filename (self->dirs[i], "cgroup.procs", NULL);
  return g_steal_pointer (&self);
}

gboolean
warden_cgroup_supported (void)
{
  static gsize answer;

  if (g_once_init_enter (&answer))
    {
      WardenCgroup *probe = warden_cgroup_new (16, 0, NULL);

      if (probe != NULL)
        {
          warden_cgroup_remove (probe);
          warden_cgroup_free (probe);
        }
      g_once_init_leave (&answer, probe != NULL ? 2 : 1);
    }
  return answer == 2;
}

void
warden_cgroup_enter_child (gpointer cgroup)
{
  WardenCgroup *self = cgroup;

  /* "0" is the writing process itself. A child that cannot be limited does
   * not run. */
  for (guint i = 0; i < self->n_dirs; i++)
    {
      int fd = open (self->procs[i], O_WRONLY | O_CLOEXEC);

      if (fd < 0 || write (fd, "0", 1) != 1)
        _exit (127);
      close (fd);
    }
}

static GArray *
list_pids (WardenCgroup *self)
{
  GArray *pids = g_array_new (FALSE, FALSE, sizeof (pid_t));
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  if (self->n_dirs == 0)
    return pids;
  path = g_build_filename (self->dirs[0], "cgroup.procs", NULL);
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return pids;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      pid_t pid = (pid_t) g_ascii_strtoll (lines[i], NULL, 10);

      if (pid > 0)
        g_array_append_val (pids, pid);
    }
  return pids;
}

guint
warden_cgroup_count (WardenCgroup *self)
{
  g_autoptr(GArray) pids = list_pids (self);

  return pids->len;
}

void
warden_cgroup_kill (WardenCgroup *self)
{
  /* cgroup.kill (Linux 5.14) takes forks in flight too. */
  if (self->unified && self->n_dirs > 0 &&
      write_control (self->dirs[0], "cgroup.kill", "1", NULL))
    return;

  /* Otherwise round after round: a process may fork while we read the list. */
  for (guint round = 0; round < 50; round++)
    {
      g_autoptr(GArray) pids = list_pids (self);

      if (pids->len == 0)
        return;
      for (guint i = 0; i < pids->len; i++)
        kill (g_array_index (pids, pid_t, i), SIGKILL);
    }
}

gboolean
warden_cgroup_remove (WardenCgroup *self)
{
  for (guint i = self->n_dirs; i > 0; i--)
    if (self->dirs[i - 1] != NULL && rmdir (self->dirs[i - 1]) != 0 && errno != ENOENT)
      return FALSE;
  return TRUE;
}

/* $1: cgroup.kill or ""; $2: the pids hierarchy's cgroup.procs; then the
 * directories, innermost last. Waits for the end of its input first. */
static const char watch_script[] =
  "cat >/dev/null 2>&1\n"
  "kill_file=$1 procs=$2; shift 2\n"
  "n=0\n"
  "while [ $n -lt 200 ]; do\n"
  "  if [ -n \"$kill_file\" ] && [ -e \"$kill_file\" ]; then echo 1 > \"$kill_file\" 2>/dev/null; fi\n"
  "  pids=$(cat \"$procs\" 2>/dev/null)\n"
  "  [ -z \"$pids\" ] && break\n"
  "  kill -9 $pids 2>/dev/null\n"
  "  n=$((n + 1))\n"
  "done\n"
  "n=0\n"
  "while [ $n -lt 100 ]; do\n"
  "  left=\n"
  "  for d; do [ -d \"$d\" ] && ! rmdir \"$d\" 2>/dev/null && left=1; done\n"
  "  [ -z \"$left\" ] && exit 0\n"
  "  sleep 0.05; n=$((n + 1))\n"
  "done\n";

static void
watch_child_setup (gpointer user_data)
{
  setsid ();
}

GSubprocess *
warden_cgroup_watch (WardenCgroup  *self,
                     GError       **error)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);

  g_return_val_if_fail (self->n_dirs > 0, NULL);

  g_ptr_array_add (argv, g_strdup ("/bin/sh"));
  g_ptr_array_add (argv, g_strdup ("-c"));
  g_ptr_array_add (argv, g_strdup (watch_script));
  g_ptr_array_add (argv, g_strdup ("warden-cgroup-watch"));
  g_ptr_array_add (argv, self->unified ? g_build_filename (self->dirs[0], "cgroup.kill", NULL)
                                       : g_strdup (""));
  g_ptr_array_add (argv, g_strdup (self->procs[0]));
  for (guint i = self->n_dirs; i > 0; i--)
    g_ptr_array_add (argv, g_strdup (self->dirs[i - 1]));
  g_ptr_array_add (argv, NULL);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                        G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                        G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_subprocess_launcher_set_child_setup (launcher, watch_child_setup, NULL, NULL);
  return g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, error);
}

const char *
warden_cgroup_get_path (WardenCgroup *self)
{
  return self->n_dirs > 0 ? self->dirs[0] : NULL;
}

void
warden_cgroup_free (WardenCgroup *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < MAX_DIRS; i++)
    {
      g_free (self->procs[i]);
      g_free (self->dirs[i]);
    }
  g_free (self);
}
