/* x-input.h: real input and screenshots for the window tests
 *
 * Clicks and keys go through the X server (XTEST, via xdotool), as a user
 * gives them; a widget-API call would pass where no click could land.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void x_spin       (guint       ms);
void x_xdotool    (const char *args);
void x_click      (GtkWidget  *widget);
void x_screenshot (const char *name);

G_END_DECLS
