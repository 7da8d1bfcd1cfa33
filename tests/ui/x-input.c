/* x-input.c: real input and screenshots for the window tests */

#include "x-input.h"

#include <gdk/x11/gdkx.h>

static gboolean
wake_cb (gpointer user_data)
{
  return G_SOURCE_CONTINUE;
}

/* Runs the main loop for @ms milliseconds, without sleeping past them. */
void
x_spin (guint ms)
{
  gint64 until = g_get_monotonic_time () + ms * 1000;
  guint wake = g_timeout_add (10, wake_cb, NULL);

  while (g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (wake);
}

void
x_xdotool (const char *args)
{
  g_autofree char *command = g_strdup_printf ("xdotool %s", args);
  g_autoptr(GError) error = NULL;
  int status;

  g_spawn_command_line_sync (command, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

/* A left click in the middle of @widget, once it is shown with a size (a
 * widget made in this very iteration has none until the next frame). */
void
x_click (GtkWidget *widget)
{
  GtkNative *native = gtk_widget_get_native (widget);
  GdkSurface *surface = gtk_native_get_surface (native);
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  graphene_point_t middle, at;
  g_autofree char *args = NULL;
  double sx = 0, sy = 0;

  while (!(gtk_widget_get_mapped (widget) && gtk_widget_get_width (widget) > 0) &&
         g_get_monotonic_time () < deadline)
    x_spin (20);
  x_spin (200);
  g_assert_true (gtk_widget_get_mapped (widget));
  g_assert_cmpint (gtk_widget_get_width (widget), >, 0);
  middle = GRAPHENE_POINT_INIT (gtk_widget_get_width (widget) / 2.f,
                                gtk_widget_get_height (widget) / 2.f);
  g_assert_true (gtk_widget_compute_point (widget, GTK_WIDGET (native), &middle, &at));
  gtk_native_get_surface_transform (native, &sx, &sy);
  args = g_strdup_printf ("mousemove --sync --window %lu %d %d click 1",
                          (gulong) gdk_x11_surface_get_xid (surface),
                          (int) (at.x + sx), (int) (at.y + sy));
  x_xdotool (args);
  x_spin (300);
}

/* With WARDEN_SCREENSHOT_DIR set (gui-session then runs a window manager):
 * the screen, for a person to look at. */
void
x_screenshot (const char *name)
{
  const char *dir = g_getenv ("WARDEN_SCREENSHOT_DIR");
  g_autofree char *path = NULL;
  g_autofree char *command = NULL;
  g_autoptr(GError) error = NULL;
  int status;

  if (dir == NULL)
    return;
  x_spin (700);  /* let the frame clock draw the last changes */
  path = g_build_filename (dir, name, NULL);
  command = g_strdup_printf ("import -window root '%s'", path);
  g_spawn_command_line_sync (command, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_test_message ("screenshot: %s", path);
}
