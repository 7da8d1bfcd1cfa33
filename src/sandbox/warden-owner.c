/* warden-owner.c: which process made something that outlives a call
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-sandbox"

#include <glib/gi18n.h>

#include "warden-owner.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static guint64
start_time_in (const char *stat_path)
{
  g_autofree char *contents = NULL;
  const char *p;
  guint field = 2;

  if (!g_file_get_contents (stat_path, &contents, NULL, NULL))
    return 0;
  /* After the command name, which may hold spaces and parentheses. */
  p = strrchr (contents, ')');
  if (p == NULL)
    return 0;
  for (p++; *p != '\0' && field < 22; p++)
    if (*p == ' ')
      field++;
  return g_ascii_strtoull (p, NULL, 10);
}

guint64
warden_owner_start_time (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", (int) pid);

  return start_time_in (path);
}

static char *
first_line_of (const char *path)
{
  g_autofree char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return g_strdup ("");
  g_strstrip (contents);
  g_strdelimit (contents, "\t\n", ' ');
  return g_steal_pointer (&contents);
}

/* Whether /proc shows this process's own PID namespace: after unshare -p
 * without a new /proc, it shows the parent's, and a pid read there is not
 * the pid getpid() gives. */
static gboolean
proc_is_ours (void)
{
  g_autofree char *self = g_file_read_link ("/proc/self", NULL);

  return self != NULL && g_ascii_strtoll (self, NULL, 10) == (gint64) getpid ();
}

/* The PID namespace of @pid as /proc names it ("pid:[4026531836]"), or ""
 * when that cannot be read. */
static char *
pid_namespace_of (pid_t pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/ns/pid", (int) pid);
  char *ns = g_file_read_link (path, NULL);

  return ns != NULL ? ns : g_strdup ("");
}

guint64
warden_owner_pid_namespace (void)
{
  g_autofree char *ns = NULL;
  const char *open;

  if (!proc_is_ours ())
    return 0;
  ns = pid_namespace_of (getpid ());
  open = strchr (ns, '[');
  return open != NULL ? g_ascii_strtoull (open + 1, NULL, 10) : 0;
}

char *
warden_owner_record_of_process (GPid        pid,
                                const char *program)
{
  g_autofree char *name = g_strdup (program ? program
                                            : g_get_prgname () ? g_get_prgname () : "Warden");
  g_autofree char *host = g_strdup (g_get_host_name ());
  g_autofree char *boot = first_line_of ("/proc/sys/kernel/random/boot_id");
  g_autofree char *machine = first_line_of ("/etc/machine-id");
  g_autofree char *ns = NULL;
  guint64 start;

  if (pid == getpid ())
    {
      /* A /proc of another namespace: nobody could check this pid. */
      ns = proc_is_ours () ? pid_namespace_of (pid) : g_strdup ("");
      start = start_time_in ("/proc/self/stat");
    }
  else
    {
      ns = pid_namespace_of (pid);
      start = warden_owner_start_time (pid);
    }
  g_strdelimit (name, "\t\n", ' ');
  g_strdelimit (host, "\t\n", ' ');
  return g_strdup_printf ("%s\t%d\t%" G_GUINT64_FORMAT "\t%s\t%s\t%s\t%s", host, (int) pid,
                          start, name, boot, ns, machine);
}

char *
warden_owner_record_self (void)
{
  return warden_owner_record_of_process (getpid (), NULL);
}

gboolean
warden_owner_same (const char *a,
                   const char *b)
{
  g_auto(GStrv) x = NULL;
  g_auto(GStrv) y = NULL;

  if (a == NULL || b == NULL)
    return FALSE;
  x = g_strsplit (a, "\t", -1);
  y = g_strsplit (b, "\t", -1);
  if (g_strv_length (x) < WARDEN_OWNER_FIELDS || g_strv_length (y) < WARDEN_OWNER_FIELDS ||
      x[5][0] == '\0' || x[4][0] == '\0')
    return FALSE;
  return strcmp (x[0], y[0]) == 0 && strcmp (x[1], y[1]) == 0 && strcmp (x[2], y[2]) == 0 &&
         strcmp (x[4], y[4]) == 0 && strcmp (x[5], y[5]) == 0;
}

WardenOwnerLife
warden_owner_life (const char *record)
{
  g_auto(GStrv) f = record ? g_strsplit (record, "\t", -1) : NULL;
  g_autofree char *me = warden_owner_record_self ();
  g_auto(GStrv) m = g_strsplit (me, "\t", -1);
  gint64 pid;
  guint64 start;

  /* Written by a Warden that did not say where it ran, or not by Warden. */
  if (f == NULL || g_strv_length (f) < WARDEN_OWNER_FIELDS)
    return WARDEN_OWNER_UNKNOWN;
  if (f[4][0] == '\0' || m[4][0] == '\0')
    return WARDEN_OWNER_UNKNOWN;
  if (strcmp (f[4], m[4]) != 0)
    {
      /* This machine (its host name and machine id) since booted again:
       * that boot's processes are gone. */
      if (f[6][0] != '\0' && strcmp (f[6], m[6]) == 0 && strcmp (f[0], m[0]) == 0)
        return WARDEN_OWNER_GONE;
      return WARDEN_OWNER_UNKNOWN;
    }
  /* The same kernel, another PID namespace (a Warden in a container): its
   * pids are not ours to look up. */
  if (f[5][0] == '\0' || m[5][0] == '\0' || strcmp (f[5], m[5]) != 0)
    return WARDEN_OWNER_UNKNOWN;
  pid = g_ascii_strtoll (f[1], NULL, 10);
  if (pid <= 0 || pid > G_MAXINT)
    return WARDEN_OWNER_UNKNOWN;
  start = warden_owner_start_time ((GPid) pid);
  if (start == 0)
    return kill ((pid_t) pid, 0) != 0 && errno == ESRCH ? WARDEN_OWNER_GONE
                                                        : WARDEN_OWNER_UNKNOWN;
  return start == g_ascii_strtoull (f[2], NULL, 10) ? WARDEN_OWNER_ALIVE : WARDEN_OWNER_GONE;
}

char *
warden_owner_describe (const char *record)
{
  g_auto(GStrv) f = record ? g_strsplit (record, "\t", -1) : NULL;
  g_autofree char *me = warden_owner_record_self ();
  g_auto(GStrv) m = g_strsplit (me, "\t", -1);

  if (f == NULL || g_strv_length (f) < 4)
    return g_strdup (record ? record : "");
  if (g_strv_length (f) >= WARDEN_OWNER_FIELDS && f[4][0] != '\0' &&
      strcmp (f[4], m[4]) == 0 && strcmp (f[5], m[5]) != 0)
    /* Translators: who holds a session: "warden-cli, process 1 on laptop (in
     * another PID namespace, such as a container)" */
    return g_strdup_printf (_("%s, process %s on %s (in another PID namespace, such as a "
                              "container)"), f[3], f[1], f[0]);
  /* Translators: who holds a session: "warden-cli, process 1234 on laptop" */
  return g_strdup_printf (_("%s, process %s on %s"), f[3], f[1], f[0]);
}

char *
warden_owner_why_kept (const char *record)
{
  g_autofree char *who = NULL;

  switch (warden_owner_life (record))
    {
    case WARDEN_OWNER_GONE:
      return NULL;
    case WARDEN_OWNER_ALIVE:
      who = warden_owner_describe (record);
      /* Translators: why cleanup leaves a sandbox alone */
      return g_strdup_printf (_("its owner still runs (%s)"), who);
    case WARDEN_OWNER_UNKNOWN:
    default:
      if (record == NULL || record[0] == '\0' || strchr (record, '\t') == NULL)
        /* Translators: why cleanup leaves a sandbox alone */
        return g_strdup (_("it does not say where its owner ran (an older Warden made it): it "
                           "may still be in use; remove it by hand when it is not"));
      who = warden_owner_describe (record);
      /* Translators: why cleanup leaves a sandbox alone */
      return g_strdup_printf (_("its owner (%s) ran on another machine, boot or PID namespace: "
                                "whether it still runs cannot be checked from here"), who);
    }
}
