/* checkpoint-bench.c: time and space of checkpoints of a big workspace
 *
 * A workspace of --files text files (100 a folder, 0.5–4 KiB each) beside a
 * node_modules of 2,000 files that checkpoints leave out; then:
 *   first        the first checkpoint (every file hashed and stored)
 *   unchanged    a checkpoint with nothing changed (what a step costs when
 *                its command changed nothing), median of --rounds
 *   changed10    a checkpoint after 10 files changed, median of --rounds
 *   restore      a restore to the first checkpoint after 100 files changed,
 *                50 deleted, 50 created (its own checkpoint included),
 *                median of --rounds
 * and the shadow repository's size on disk after the first checkpoint and
 * at the end. Prints one line of figures; see tests/bench/README.md.
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

/* nftw */
#define _XOPEN_SOURCE 700

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "workspace/warden-checkpoints.h"

static guint64 du_total;

static int
du_cb (const char        *path,
       const struct stat *st,
       int                flag,
       struct FTW        *ftw)
{
  du_total += (guint64) st->st_blocks * 512;
  return 0;
}

static guint64
du_kib (const char *path)
{
  du_total = 0;
  nftw (path, du_cb, 16, FTW_PHYS);
  return du_total / 1024;
}

static int
rm_cb (const char        *path,
       const struct stat *st,
       int                flag,
       struct FTW        *ftw)
{
  return remove (path);
}

static void
write_file (const char *root,
            guint       i,
            guint       salt)
{
  g_autofree char *dir = g_strdup_printf ("%s/src/d%03u", root, i / 100);
  g_autofree char *path = g_strdup_printf ("%s/f%05u.txt", dir, i);
  GString *text = g_string_new (NULL);
  guint lines = 8 + (i * 7 + salt) % 56;

  g_mkdir_with_parents (dir, 0755);
  for (guint l = 0; l < lines; l++)
    g_string_append_printf (text, "line %u of file %u, version %u: %08x\n", l, i, salt,
                            g_random_int ());
  g_file_set_contents (path, text->str, (gssize) text->len, NULL);
  g_string_free (text, TRUE);
}

static double
ms_since (gint64 start)
{
  return (g_get_monotonic_time () - start) / 1000.0;
}

static int
by_value (gconstpointer a,
          gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (double *v,
        guint   n)
{
  qsort (v, n, sizeof *v, (GCompareFunc) by_value);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static char *
record_or_die (WardenCheckpoints *cp,
               const char        *message)
{
  g_autoptr(GError) error = NULL;
  char *id = warden_checkpoints_record (cp, message, &error);

  if (id == NULL)
    {
      g_printerr ("checkpoint-bench: %s\n", error->message);
      exit (1);
    }
  return id;
}

int
main (int    argc,
      char **argv)
{
  int files = 10000, rounds = 5;
  GOptionEntry entries[] = {
    { "files", 0, 0, G_OPTION_ARG_INT, &files, "Files in the workspace (10000)", "N" },
    { "rounds", 0, 0, G_OPTION_ARG_INT, &rounds, "Rounds of each timed step (5)", "N" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- time checkpoints");
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenCheckpoints) cp = NULL;
  g_autofree char *tmp = NULL;
  g_autofree char *root = NULL;
  g_autofree char *shadows = NULL;
  g_autofree char *first = NULL;
  g_autofree double *unchanged = NULL;
  g_autofree double *changed = NULL;
  g_autofree double *restored = NULL;
  double first_ms;
  guint64 first_kib;
  gint64 start;
  guint salt = 1;
  g_autofree char *previous = NULL;
  int quick = 0;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || files < 200 || rounds < 1)
    {
      g_printerr ("checkpoint-bench: %s\n", error ? error->message
                                                   : "--files must be 200 or more");
      return 2;
    }
  unchanged = g_new0 (double, rounds);
  changed = g_new0 (double, rounds);
  restored = g_new0 (double, rounds);

  tmp = g_dir_make_tmp ("warden-checkpoint-bench-XXXXXX", NULL);
  root = g_build_filename (tmp, "ws", NULL);
  shadows = g_build_filename (tmp, "shadows", NULL);
  g_mkdir (root, 0755);
  for (int i = 0; i < files; i++)
    write_file (root, (guint) i, 0);
  for (int i = 0; i < 2000; i++)
    {
      g_autofree char *dir = g_strdup_printf ("%s/node_modules/pkg%03d", root, i / 20);
      g_autofree char *path = g_strdup_printf ("%s/index%d.js", dir, i);

      g_mkdir_with_parents (dir, 0755);
      g_file_set_contents (path, "module.exports = 1;\n", -1, NULL);
    }

  cp = warden_checkpoints_new (root, shadows, &error);
  if (cp == NULL)
    {
      g_printerr ("checkpoint-bench: %s\n", error->message);
      return 1;
    }
  start = g_get_monotonic_time ();
  first = record_or_die (cp, "first");
  first_ms = ms_since (start);
  previous = g_strdup (first);
  first_kib = du_kib (shadows);

  for (int r = 0; r < rounds; r++)
    {
      g_autofree char *id = NULL;

      start = g_get_monotonic_time ();
      id = record_or_die (cp, "unchanged");
      unchanged[r] = ms_since (start);
      /* The quick check answered: the same checkpoint, nothing written. */
      quick += g_strcmp0 (id, previous) == 0;
      g_free (previous);
      previous = g_steal_pointer (&id);
    }
  for (int r = 0; r < rounds; r++)
    {
      g_autofree char *id = NULL;

      salt++;
      for (int i = 0; i < 10; i++)
        write_file (root, (guint) ((i * 997 + r * 13) % files), salt);
      start = g_get_monotonic_time ();
      id = record_or_die (cp, "changed10");
      changed[r] = ms_since (start);
    }
  for (int r = 0; r < rounds; r++)
    {
      g_autoptr(GPtrArray) done = NULL;
      g_autofree char *undo = NULL;

      salt++;
      for (int i = 0; i < 100; i++)
        write_file (root, (guint) ((i * 89 + r * 7) % files), salt);
      for (int i = 0; i < 50; i++)
        {
          guint n = (guint) ((i * 151 + r * 3 + 5000) % files);
          g_autofree char *path = g_strdup_printf ("%s/src/d%03u/f%05u.txt", root, n / 100, n);

          g_unlink (path);
        }
      for (int i = 0; i < 50; i++)
        write_file (root, (guint) (files + r * 50 + i), salt);
      start = g_get_monotonic_time ();
      if (!warden_checkpoints_restore (cp, first, &undo, &done, &error))
        {
          g_printerr ("checkpoint-bench: %s\n", error->message);
          return 1;
        }
      restored[r] = ms_since (start);
    }

  printf ("files=%d ignored=2000 first_ms=%.0f first_kib=%" G_GUINT64_FORMAT
          " unchanged_ms_p50=%.1f unchanged_quick=%d changed10_ms_p50=%.1f"
          " restore200_ms_p50=%.1f rounds=%d end_kib=%" G_GUINT64_FORMAT
          " workspace_kib=%" G_GUINT64_FORMAT "\n",
          files, first_ms, first_kib, median (unchanged, rounds), quick, median (changed, rounds),
          median (restored, rounds), rounds, du_kib (shadows), du_kib (root));
  nftw (tmp, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
  return 0;
}
