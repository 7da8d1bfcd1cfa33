/* warden-env-keys.c: API keys taken out of the process environment
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-llm"

#include <glib/gi18n.h>

#include "warden-env-keys.h"

#include <string.h>
#include <unistd.h>

extern char **environ;

/* Written once, by warden_env_keys_take() before any thread; read after. */
static GHashTable *taken;

static gboolean
is_key_name (const char *name,
             gsize       length)
{
  g_autofree char *n = g_strndup (name, length);

  if (strcmp (n, "ANTHROPIC_API_KEY") == 0 || strcmp (n, "OPENAI_API_KEY") == 0)
    return TRUE;
  return g_str_has_prefix (n, "WARDEN_") &&
         (g_str_has_suffix (n, "_KEY") || g_str_has_suffix (n, "_TOKEN"));
}

/* Where the kernel's copy of the initial environment lies: fields 50 and 51
 * of /proc/self/stat (env_start, env_end). Only strings in there are
 * overwritten; one that setenv() made may be shared with glibc's own list. */
static gboolean
initial_block (guintptr *start,
               guintptr *end)
{
  g_autofree char *stat = NULL;
  g_auto(GStrv) fields = NULL;
  const char *after;

  if (!g_file_get_contents ("/proc/self/stat", &stat, NULL, NULL) ||
      (after = strrchr (stat, ')')) == NULL)
    return FALSE;
  /* After "pid (comm)" come the fields from the third on. */
  fields = g_strsplit (after + 2, " ", -1);
  if (g_strv_length (fields) < 51 - 2)
    return FALSE;
  *start = (guintptr) g_ascii_strtoull (fields[50 - 3], NULL, 10);
  *end = (guintptr) g_ascii_strtoull (fields[51 - 3], NULL, 10);
  return *start != 0 && *end > *start;
}

guint
warden_env_keys_take (void)
{
  g_autoptr(GPtrArray) found = g_ptr_array_new ();
  guintptr start = 0, end = 0;
  gboolean have_block = initial_block (&start, &end);

  if (taken == NULL)
    taken = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  for (char **e = environ; e != NULL && *e != NULL; e++)
    {
      const char *eq = strchr (*e, '=');

      if (eq != NULL && is_key_name (*e, eq - *e))
        g_ptr_array_add (found, *e);
    }

  for (guint i = 0; i < found->len; i++)
    {
      char *entry = g_ptr_array_index (found, i);
      char *eq = strchr (entry, '=');
      g_autofree char *name = g_strndup (entry, eq - entry);
      gsize length = strlen (entry);

      g_hash_table_replace (taken, g_strdup (name), g_strdup (eq + 1));
      g_unsetenv (name);
      if (have_block && (guintptr) entry >= start && (guintptr) entry + length <= end)
        explicit_bzero (entry, length);
    }
  return found->len;
}

const char *
warden_env_keys_get (const char *name)
{
  const char *value = NULL;

  g_return_val_if_fail (name != NULL, NULL);

  if (taken != NULL)
    value = g_hash_table_lookup (taken, name);
  if (value == NULL)
    value = g_getenv (name);
  return value != NULL && value[0] != '\0' ? value : NULL;
}
