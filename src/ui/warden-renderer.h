/* warden-renderer.h: draw with OpenGL only where a GPU draws it
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Whether a program here could reach a GPU: a render node under
 * @dev_dir/dri that can be opened for reading and writing, or NVIDIA's
 * control device. Without one, Mesa draws OpenGL on the CPU (llvmpipe). */
gboolean     warden_renderer_gpu_present (const char  *dev_dir);

/* What warden_renderer_choose() would set, as "NAME=VALUE" strings, or NULL
 * to leave GTK's own choice: GTK is told not to use OpenGL when there is no
 * GPU under @dev_dir, or when @env asks Mesa for software rendering
 * (LIBGL_ALWAYS_SOFTWARE), unless @env already says how to draw
 * (GSK_RENDERER, GDK_DEBUG or GDK_DISABLE set: the user's word wins).
 * @gtk_minor: GTK 4's minor version at run time (4.16 renamed the switch). */
GStrv        warden_renderer_choice      (const char *const *env,
                                          const char        *dev_dir,
                                          guint              gtk_minor);

/* Applies warden_renderer_choice() to this process's environment. Call it
 * first thing in main(), before any thread starts and before GTK opens the
 * display. Returns whether it told GTK to draw without OpenGL. */
gboolean     warden_renderer_choose      (void);

G_END_DECLS
