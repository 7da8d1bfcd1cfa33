/* warden-cli-profile.c: warden-cli profile list, show, validate, import, export
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-cli"

#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>

#include "warden-cli.h"

#include "policy/warden-claude-import.h"
#include "policy/warden-codex-import.h"
#include "policy/warden-profile-store.h"

static guint
strv_len0 (const char * const *v)
{
  return v ? g_strv_length ((char **) v) : 0;
}

static int
profile_list (void)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (NULL);
  g_autoptr(GPtrArray) errors = NULL;
  g_autoptr(GPtrArray) profiles = warden_profile_store_list (store, &errors);

  for (guint i = 0; i < profiles->len; i++)
    {
      WardenProfile *p = g_ptr_array_index (profiles, i);

      printf ("%-16s %-16s %3u allow %3u ask %3u deny  %s%s\n", warden_profile_get_id (p),
              warden_mode_to_string (warden_profile_get_mode (p)),
              strv_len0 (warden_profile_get_allow (p)), strv_len0 (warden_profile_get_ask (p)),
              strv_len0 (warden_profile_get_deny (p)),
              warden_profile_get_name (p), warden_profile_get_builtin (p) ? " (built-in)" : "");
    }
  for (guint i = 0; errors && i < errors->len; i++)
    warden_cli_error ("skipped: %s", ((GError *) g_ptr_array_index (errors, i))->message);

  return errors && errors->len > 0 ? WARDEN_CLI_EXIT_USAGE : 0;
}

static int
profile_show (const char *id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenProfile) profile = warden_cli_load_profile (id, &error);
  g_autofree char *data = NULL;

  if (profile == NULL)
    {
      warden_cli_error ("%s", error->message);
      return WARDEN_CLI_EXIT_USAGE;
    }
  data = warden_profile_to_data (profile, NULL);
  fputs (data, stdout);
  return 0;
}

static int
profile_validate (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenProfile) profile = warden_profile_new_from_file (file, &error);

  if (profile == NULL)
    {
      warden_cli_error ("%s", error->message);
      return WARDEN_CLI_EXIT_USAGE;
    }
  printf ("%s: valid profile “%s” (%s, %u allow, %u ask, %u deny)\n", path,
          warden_profile_get_name (profile),
          warden_mode_to_string (warden_profile_get_mode (profile)),
          strv_len0 (warden_profile_get_allow (profile)),
          strv_len0 (warden_profile_get_ask (profile)),
          strv_len0 (warden_profile_get_deny (profile)));
  return 0;
}

/* Saves @profile into the user's profiles, unless one has that id already. */
static int
store_profile (WardenProfile *profile,
               gboolean       force)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenProfile) existing = NULL;
  const char *id = warden_profile_get_id (profile);

  existing = warden_profile_store_lookup (store, id, NULL);
  if (existing != NULL && !force && !warden_profile_get_builtin (existing))
    {
      warden_cli_error ("a profile “%s” exists already; use --force to replace it "
                        "(the old one is kept as %s.json.bak) or --id to pick another id",
                        id, id);
      return WARDEN_CLI_EXIT_USAGE;
    }
  if (!warden_profile_store_save (store, profile, &error))
    {
      warden_cli_error ("%s", error->message);
      return WARDEN_CLI_EXIT_USAGE;
    }
  printf ("saved profile “%s” to %s/%s.json\n", id,
          warden_profile_store_get_user_dir (store), id);
  return 0;
}

static gboolean
parse_import_options (int     *argc,
                      char  ***argv,
                      char   **id,
                      gboolean *force)
{
  g_autoptr(GOptionContext) ctx = g_option_context_new ("FILE");
  g_autoptr(GError) error = NULL;
  GOptionEntry entries[] = {
    { "id", 0, 0, G_OPTION_ARG_STRING, id, "Save under this id", "ID" },
    { "force", 'f', 0, G_OPTION_ARG_NONE, force, "Replace a profile with the same id", NULL },
    { NULL }
  };

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, argc, argv, &error))
    {
      warden_cli_error ("%s", error->message);
      return FALSE;
    }
  if (*argc != 2)
    {
      warden_cli_error ("give exactly one FILE");
      return FALSE;
    }
  if (*id != NULL && !warden_profile_id_is_valid (*id))
    {
      warden_cli_error ("“%s” is not a valid profile id: use lower-case letters, digits, "
                        "“.”, “_” and “-”", *id);
      return FALSE;
    }
  return TRUE;
}

static int
profile_import (int    argc,
                char **argv)
{
  g_autofree char *id = NULL;
  gboolean force = FALSE;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenProfile) loaded = NULL;
  g_autoptr(WardenProfile) profile = NULL;

  if (!parse_import_options (&argc, &argv, &id, &force))
    return WARDEN_CLI_EXIT_USAGE;

  file = g_file_new_for_commandline_arg (argv[1]);
  loaded = warden_profile_new_from_file (file, &error);
  if (loaded == NULL)
    {
      warden_cli_error ("%s", error->message);
      return WARDEN_CLI_EXIT_USAGE;
    }
  if (id == NULL && !warden_profile_id_is_valid (warden_profile_get_id (loaded)))
    {
      warden_cli_error ("the file name does not make a valid profile id; give one with --id");
      return WARDEN_CLI_EXIT_USAGE;
    }
  profile = warden_profile_copy (loaded, id ? id : warden_profile_get_id (loaded));
  return store_profile (profile, force);
}

static int
profile_import_claude (int    argc,
                       char **argv)
{
  g_autofree char *id = NULL;
  gboolean force = FALSE;
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  gsize len;
  g_auto(GStrv) skipped = NULL;
  g_autoptr(WardenProfile) profile = NULL;

  if (!parse_import_options (&argc, &argv, &id, &force))
    return WARDEN_CLI_EXIT_USAGE;

  if (!g_file_get_contents (argv[1], &data, &len, &error))
    {
      warden_cli_error ("%s", error->message);
      return WARDEN_CLI_EXIT_USAGE;
    }
  profile = warden_profile_new_from_claude_data (id ? id : "claude-code", data, len, argv[1],
                                                 &skipped, &error);
  if (profile == NULL)
    {
      warden_cli_error ("%s", error->message);
      return WARDEN_CLI_EXIT_USAGE;
    }
  for (guint i = 0; skipped && skipped[i]; i++)
    fprintf (stderr, "skipped rule: %s\n", skipped[i]);
  printf ("imported %u allow, %u ask and %u deny patterns\n",
          strv_len0 (warden_profile_get_allow (profile)),
          strv_len0 (warden_profile_get_ask (profile)),
          strv_len0 (warden_profile_get_deny (profile)));
  return store_profile (profile, force);
}

static int
profile_import_codex (int    argc,
                      char **argv)
{
  g_autofree char *id = NULL;
  gboolean force = FALSE;
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  gsize len;
  g_auto(GStrv) notes = NULL;
  g_autoptr(WardenProfile) profile = NULL;

  if (!parse_import_options (&argc, &argv, &id, &force))
    return WARDEN_CLI_EXIT_USAGE;

  if (!g_file_get_contents (argv[1], &data, &len, &error))
    {
      warden_cli_error ("%s", error->message);
      return WARDEN_CLI_EXIT_USAGE;
    }
  profile = warden_profile_new_from_codex_data (id ? id : "codex", data, len, argv[1], &notes,
                                                &error);
  if (profile == NULL)
    {
      warden_cli_error ("%s", error->message);
      return WARDEN_CLI_EXIT_USAGE;
    }
  for (guint i = 0; notes && notes[i]; i++)
    fprintf (stderr, "note: %s\n", notes[i]);
  printf ("imported %u allow, %u ask and %u deny patterns\n",
          strv_len0 (warden_profile_get_allow (profile)),
          strv_len0 (warden_profile_get_ask (profile)),
          strv_len0 (warden_profile_get_deny (profile)));
  return store_profile (profile, force);
}

static int
profile_export (const char *id,
                const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenProfile) profile = warden_cli_load_profile (id, &error);
  g_autoptr(GFile) file = NULL;

  if (profile == NULL)
    {
      warden_cli_error ("%s", error->message);
      return WARDEN_CLI_EXIT_USAGE;
    }
  if (strcmp (path, "-") == 0)
    {
      g_autofree char *data = warden_profile_to_data (profile, NULL);

      fputs (data, stdout);
      return 0;
    }
  file = g_file_new_for_commandline_arg (path);
  if (!warden_profile_save_to_file (profile, file, &error))
    {
      warden_cli_error ("%s", error->message);
      return WARDEN_CLI_EXIT_USAGE;
    }
  printf ("exported profile “%s” to %s\n", id, path);
  return 0;
}

int
warden_cli_profile (int    argc,
                    char **argv)
{
  const char *sub = argc > 1 ? argv[1] : NULL;

  if (g_strcmp0 (sub, "list") == 0 && argc == 2)
    return profile_list ();
  if (g_strcmp0 (sub, "show") == 0 && argc == 3)
    return profile_show (argv[2]);
  if (g_strcmp0 (sub, "validate") == 0 && argc == 3)
    return profile_validate (argv[2]);
  if (g_strcmp0 (sub, "import") == 0)
    return profile_import (argc - 1, argv + 1);
  if (g_strcmp0 (sub, "import-claude") == 0)
    return profile_import_claude (argc - 1, argv + 1);
  if (g_strcmp0 (sub, "import-codex") == 0)
    return profile_import_codex (argc - 1, argv + 1);
  if (g_strcmp0 (sub, "export") == 0 && argc == 4)
    return profile_export (argv[2], argv[3]);

  warden_cli_error ("usage: warden-cli profile list | show ID | validate FILE | import FILE | "
                    "export ID FILE | import-claude FILE | import-codex FILE");
  return WARDEN_CLI_EXIT_USAGE;
}
