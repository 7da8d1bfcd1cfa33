/* warden-renderer.c: draw with OpenGL only where a GPU draws it
 *
 * GTK 4 draws with OpenGL wherever OpenGL answers, and on a machine without a
 * GPU (a virtual machine, a remote X display, a container) Mesa answers on
 * the CPU. That costs Warden at every start: GDK loads Mesa and LLVM to pick
 * its visuals, llvmpipe compiles shaders (into an empty cache at a first
 * run), and the process holds some 130 MB more. Measured on a 2-vCPU VM
 * under Xvfb (docs/benchmarks.md, "Start-up and the first run"): first frame
 * 591 ms with OpenGL, 299 ms with cairo and no OpenGL loaded; a first run
 * 1,328 ms against 288 ms. A chat, a diff and a terminal gain nothing from
 * llvmpipe, so without a GPU Warden asks GTK for cairo, as GSK_RENDERER=cairo
 * would; with one, nothing changes, and a GSK_RENDERER, GDK_DEBUG or
 * GDK_DISABLE the user set is left alone.
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "warden-renderer.h"

#include <gtk/gtk.h>

#include <unistd.h>

gboolean
warden_renderer_gpu_present (const char *dev_dir)
{
  g_autofree char *dri = g_build_filename (dev_dir, "dri", NULL);
  g_autofree char *nvidia = g_build_filename (dev_dir, "nvidiactl", NULL);
  g_autoptr(GDir) dir = NULL;
  const char *name;

  /* The proprietary NVIDIA driver may have no render node. */
  if (access (nvidia, F_OK) == 0)
    return TRUE;

  dir = g_dir_open (dri, 0, NULL);
  if (dir == NULL)
    return FALSE;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *node = NULL;

      if (!g_str_has_prefix (name, "renderD"))
        continue;
      node = g_build_filename (dri, name, NULL);
      /* Mesa opens it read-write; one it cannot open is no GPU of ours. */
      if (access (node, R_OK | W_OK) == 0)
        return TRUE;
    }
  return FALSE;
}

GStrv
warden_renderer_choice (const char *const *env,
                        const char        *dev_dir,
                        guint              gtk_minor)
{
  g_autoptr(GStrvBuilder) builder = NULL;
  const char *software = g_environ_getenv ((char **) env, "LIBGL_ALWAYS_SOFTWARE");

  if (g_environ_getenv ((char **) env, "GSK_RENDERER") != NULL ||
      g_environ_getenv ((char **) env, "GDK_DEBUG") != NULL ||
      g_environ_getenv ((char **) env, "GDK_DISABLE") != NULL)
    return NULL;
  if ((software == NULL || g_strcmp0 (software, "0") == 0 || software[0] == '\0') &&
      warden_renderer_gpu_present (dev_dir))
    return NULL;

  builder = g_strv_builder_new ();
  /* Without it GDK still loads Mesa to choose its X visuals; 4.16 moved
   * the switch from GDK_DEBUG to GDK_DISABLE. */
  g_strv_builder_add (builder, gtk_minor >= 16 ? "GDK_DISABLE=gl,vulkan"
                                               : "GDK_DEBUG=gl-disable,vulkan-disable");
  /* Without it GSK still tries OpenGL first and says it failed, for each
   * window. */
  g_strv_builder_add (builder, "GSK_RENDERER=cairo");
  return g_strv_builder_end (builder);
}

gboolean
warden_renderer_choose (void)
{
  g_auto(GStrv) env = g_get_environ ();
  g_auto(GStrv) settings = warden_renderer_choice ((const char *const *) env, "/dev",
                                                   gtk_get_minor_version ());

  if (settings == NULL)
    return FALSE;
  for (guint i = 0; settings[i] != NULL; i++)
    {
      g_autofree char *name = g_strndup (settings[i], strcspn (settings[i], "="));

      g_setenv (name, settings[i] + strlen (name) + 1, TRUE);
    }
  return TRUE;
}
