/* test-renderer.c: Warden draws with OpenGL only where a GPU draws it
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <gtk/gtk.h>
#include <glib/gstdio.h>

#include "warden-renderer.h"

static char *
make_dev (const char *const *files)
{
  g_autoptr(GError) error = NULL;
  char *dev = g_dir_make_tmp ("warden-dev-XXXXXX", &error);

  g_assert_no_error (error);
  for (guint i = 0; files != NULL && files[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (dev, files[i], NULL);
      g_autofree char *dir = g_path_get_dirname (path);

      g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
      g_assert_true (g_file_set_contents (path, "", 0, NULL));
    }
  return dev;
}

static void
remove_dev (const char *dev)
{
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", dev);

  g_assert_cmpint (system (cmd), ==, 0);
}

/* A render node makes a GPU; a card node alone (a display controller
 * without rendering) or nothing does not. */
static void
test_gpu_present (void)
{
  const char *empty[] = { NULL };
  const char *card[] = { "dri/card0", "dri/by-path/x", NULL };
  const char *render[] = { "dri/card0", "dri/renderD128", NULL };
  const char *nvidia[] = { "nvidiactl", NULL };
  const struct { const char *const *files; gboolean gpu; } cases[] = {
    { empty, FALSE }, { card, FALSE }, { render, TRUE }, { nvidia, TRUE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *dev = make_dev (cases[i].files);

      g_assert_cmpint (warden_renderer_gpu_present (dev), ==, cases[i].gpu);
      remove_dev (dev);
    }
  g_assert_false (warden_renderer_gpu_present ("/nonexistent/dev"));
}

static char *
choice_string (const char *const *env,
               const char        *dev,
               guint              minor)
{
  g_auto(GStrv) settings = warden_renderer_choice (env, dev, minor);

  return settings != NULL ? g_strjoinv (" ", settings) : g_strdup ("-");
}

/* Without a GPU, or with Mesa told to draw in software, GTK is told not to
 * use OpenGL; whatever the user set about drawing is left alone. */
static void
test_choice (void)
{
  const char *gpu_files[] = { "dri/renderD128", NULL };
  g_autofree char *none = make_dev (NULL);
  g_autofree char *gpu = make_dev (gpu_files);
  const char *plain[] = { "HOME=/h", "PATH=/bin", NULL };
  const char *software[] = { "LIBGL_ALWAYS_SOFTWARE=1", NULL };
  const char *software_off[] = { "LIBGL_ALWAYS_SOFTWARE=0", NULL };
  const char *user_gl[] = { "GSK_RENDERER=gl", NULL };
  const char *user_debug[] = { "GDK_DEBUG=events", NULL };
  const char *user_disable[] = { "GDK_DISABLE=vulkan", NULL };
  const char *no_gl_48 = "GDK_DEBUG=gl-disable,vulkan-disable GSK_RENDERER=cairo";
  const char *no_gl_416 = "GDK_DISABLE=gl,vulkan GSK_RENDERER=cairo";
  const struct { const char *const *env; const char *dev; guint minor; const char *expected; } cases[] = {
    { plain, none, 8, no_gl_48 },
    { plain, none, 16, no_gl_416 },
    { plain, gpu, 8, "-" },
    { software, gpu, 8, no_gl_48 },
    { software_off, gpu, 8, "-" },
    { software_off, none, 8, no_gl_48 },
    { user_gl, none, 8, "-" },
    { user_debug, none, 8, "-" },
    { user_disable, none, 16, "-" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = choice_string (cases[i].env, cases[i].dev, cases[i].minor);

      g_test_message ("case %u", i);
      g_assert_cmpstr (got, ==, cases[i].expected);
    }
  remove_dev (none);
  remove_dev (gpu);
}

/* In a child: what main.c does, then a window, and which renderer drew it. */
static void
print_renderer (void)
{
  GtkWidget *window;
  GskRenderer *renderer;

  warden_renderer_choose ();
  gtk_init ();
  window = gtk_window_new ();
  gtk_window_set_child (GTK_WINDOW (window), gtk_label_new ("Warden"));
  gtk_window_present (GTK_WINDOW (window));
  while (!gtk_widget_get_mapped (window))
    g_main_context_iteration (NULL, TRUE);
  renderer = gtk_native_get_renderer (GTK_NATIVE (window));
  g_print ("renderer=%s\n", G_OBJECT_TYPE_NAME (renderer));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Runs this test again in a child process, with GSK_RENDERER set to
 * @gsk_renderer (unset if NULL) and nothing else said about drawing: the
 * child starts as main.c does and must draw its window with @expected. */
static void
window_drawn_with (const char *gsk_renderer,
                   const char *expected)
{
  g_autofree char *line = g_strdup_printf ("renderer=%s\n", expected);

  if (g_test_subprocess ())
    {
      print_renderer ();
      return;
    }
  g_unsetenv ("GDK_DEBUG");
  g_unsetenv ("GDK_DISABLE");
  g_unsetenv ("LIBGL_ALWAYS_SOFTWARE");
  if (gsk_renderer != NULL)
    g_setenv ("GSK_RENDERER", gsk_renderer, TRUE);
  else
    g_unsetenv ("GSK_RENDERER");
  /* GTK reads the environment once: a child process for each. */
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, 0);
  g_unsetenv ("GSK_RENDERER");
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout (line);
  /* Nothing said about a renderer that failed to start. */
  g_test_trap_assert_stderr_unmatched ("*enderer*");
}

/* The window a user gets: cairo on this machine when it has no GPU (the
 * test machines have none), GTK's OpenGL renderer when it has one. */
static void
test_window (void)
{
  window_drawn_with (NULL, warden_renderer_gpu_present ("/dev") ? "GskGLRenderer"
                                                                : "GskCairoRenderer");
}

/* A user who asks for OpenGL gets it, GPU or not (Xvfb's is llvmpipe). */
static void
test_window_user_says (void)
{
  window_drawn_with ("gl", "GskGLRenderer");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/renderer/gpu-present", test_gpu_present);
  g_test_add_func ("/ui/renderer/choice", test_choice);
  g_test_add_func ("/ui/renderer/window", test_window);
  g_test_add_func ("/ui/renderer/window-user-says", test_window_user_says);
  return g_test_run ();
}
