/* warden-env-vars.c: the variables that load code into a program
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "warden-env-vars.h"

/* Each names code a program runs or loads at its start (or at a point
 * where it runs no other program): the dynamic loader's, the shells'
 * startup files and exported functions, the interpreters' module paths and
 * startup options and configuration (php.ini, Erlang's flags), glibc's,
 * OpenSSL's, GTK's, Qt's and GStreamer's modules, the JVM's agents and
 * class path. */
static const char * const code_prefixes[] = {
  "LD_", "DYLD_", "BASH_FUNC_", "LUA_INIT", "LUA_PATH", "LUA_CPATH", NULL
};
static const char * const code_names[] = {
  "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "ZDOTDIR",
  "NODE_OPTIONS", "NODE_PATH",
  "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONWARNINGS",
  "PYTHONBREAKPOINT",
  "PERL5LIB", "PERL5OPT", "PERLLIB", "PERL5DB",
  "RUBYOPT", "RUBYLIB",
  "GCONV_PATH", "GLIBC_TUNABLES", "OPENSSL_CONF", "OPENSSL_ENGINES", "OPENSSL_MODULES",
  "GIO_EXTRA_MODULES", "GTK_MODULES", "GTK3_MODULES",
  "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH",
  "PHPRC", "PHP_INI_SCAN_DIR",
  "ERL_AFLAGS", "ERL_FLAGS", "ERL_ZFLAGS", "ERL_LIBS", "ELIXIR_ERL_OPTIONS",
  "GEM_PATH", "GEM_HOME", "TCLLIBPATH", "R_PROFILE", "R_PROFILE_USER", "R_LIBS", "R_LIBS_USER",
  "QT_PLUGIN_PATH", "GST_PLUGIN_PATH", "GST_PLUGIN_SYSTEM_PATH", "GTK_PATH",
  "GDK_PIXBUF_MODULE_FILE", "LIBGL_DRIVERS_PATH", "VK_ICD_FILENAMES", "VK_LAYER_PATH", NULL
};

gboolean
warden_policy_env_loads_code (const char *name)
{
  gsize len;

  g_return_val_if_fail (name != NULL, FALSE);

  len = strcspn (name, "=");
  for (guint i = 0; code_prefixes[i] != NULL; i++)
    if (strncmp (name, code_prefixes[i], MIN (len, strlen (code_prefixes[i]))) == 0 &&
        len >= strlen (code_prefixes[i]))
      return TRUE;
  for (guint i = 0; code_names[i] != NULL; i++)
    if (strlen (code_names[i]) == len && strncmp (name, code_names[i], len) == 0)
      return TRUE;
  return FALSE;
}
