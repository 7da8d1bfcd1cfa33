/* main.c: the warden program
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "warden-application.h"
#include "warden-renderer.h"

#include "llm/warden-env-keys.h"

int
main (int    argc,
      char **argv)
{
  g_autoptr(WardenApplication) app = NULL;

  /* Before any thread, and before anything runs a command that could read
   * them from /proc/$PPID/environ. */
  warden_env_keys_take ();
  /* Also before any thread: it sets environment variables GTK reads. */
  warden_renderer_choose ();
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  g_set_application_name (_("Warden"));
  app = warden_application_new (G_APPLICATION_DEFAULT_FLAGS);
  return g_application_run (G_APPLICATION (app), argc, argv);
}
