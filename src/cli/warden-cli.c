/* warden-cli.c: the terminal front end and tools
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-cli"

#include <glib/gi18n.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "warden-cli.h"

#include "common/warden-printable.h"

#include "llm/warden-env-keys.h"
#include "policy/warden-profile-store.h"

static const char usage[] =
  "Usage:\n"
  "  warden-cli policy check [--profile ID|FILE] [--mode MODE] [--allow PATTERN]...\n"
  "                          [--ask PATTERN]... [--deny PATTERN]... [--workspace DIR]\n"
  "                          [--cwd DIR] [--env NAME=VALUE]... [--json]\n"
  "                          (--stdin | -- COMMAND)\n"
  "  warden-cli policy check-host [--profile ID|FILE] [--allow P]... [--deny P]... HOST[:PORT]\n"
  "  warden-cli policy suggest [--profile ID|FILE] [--allow PATTERN]... (--stdin | -- COMMAND)\n"
  "  warden-cli policy bench [--profile ID|FILE] [--allow PATTERN]... [--rounds N] < COMMANDS\n"
  "  warden-cli profile list\n"
  "  warden-cli profile show ID\n"
  "  warden-cli profile validate FILE\n"
  "  warden-cli profile import [--id ID] [--force] FILE\n"
  "  warden-cli profile export ID FILE\n"
  "  warden-cli profile import-claude [--id ID] [--force] FILE\n"
  "  warden-cli profile import-codex [--id ID] [--force] FILE\n"
  "  warden-cli sandbox exec [--backend docker|bwrap|host] [--image IMG] [--network none|bridge]\n"
  "                          [--workspace DIR] [--timeout SECONDS] -- COMMAND\n"
  "  warden-cli sandbox cleanup\n"
  "  warden-cli sandbox bench [--image IMG] [-n N]\n"
  "  warden-cli run [--provider anthropic|openai] [--model M] [--base-url URL] [--profile ID|FILE]\n"
  "                 [--sandbox docker|bwrap|host] [--image IMG] [--network none|allowlist|open]\n"
  "                 [--workspace DIR] [--max-steps N] (TASK | --resume SESSION [TASK])\n"
  "  warden-cli [chat] [the options of run] [--resume SESSION] [TASK]\n"
  "  warden-cli sessions list | show SESSION [--json] | release SESSION [--force]\n"
  "                    | restore SESSION --before STEP | move-aside [--force]\n"
  "\n"
  "policy check exits with 0 (allow), 10 (ask), 20 (deny) or 2 (usage or profile error).\n"
  "policy check-host judges HOST:PORT (443 by default) by the profile's network section and\n"
  "host patterns P, exits as policy check and says why; an address of this computer (its\n"
  "interfaces', loopback, link-local) is reached only by a pattern that names it, not by *.\n"
  "MODE is allowlist, approval-always or allow-always. Patterns are globs where only *\n"
  "is special, matched against each simple command of the line; deny beats ask, ask\n"
  "beats allow and the mode; see docs/policy.md.\n"
  "import-codex reads Codex prefix_rule() rules (allow, prompt as ask, forbidden as\n"
  "deny) and checks their match and not_match examples against the imported profile.\n"
  "sandbox exec exits with the command's status, 124 on timeout, 125 when the sandbox\n"
  "failed. Without --backend: docker when an engine answers, otherwise bwrap.\n"
  "run exits with 0 when the agent finished, 1 when the session store or the output\n"
  "failed, 3 when it ran out of steps, 4 on a provider error, 5 when another process has\n"
  "the session, 6 when input ended at a prompt, and 128+N when signal N stopped it (130\n"
  "Ctrl+C, 129 SIGHUP, 143 SIGTERM); then an unanswered approval still waits for --resume.\n"
  "SESSION is an id, the start of one that no other id shares, or last (the session used\n"
  "most recently). run --resume SESSION TASK goes on with TASK, after answering what waits.\n"
  "warden-cli alone, or chat, is a conversation: a prompt for each turn; Ctrl+C stops the\n"
  "step, Ctrl+D leaves (the session can be resumed); /help at its prompt. See docs/cli.md.\n"
  "At an approval: y/yes approves, a/always always allows (then the pattern), n/no rejects\n"
  "(then feedback for the model); anything else asks again.\n"
  "sessions release frees a session held by a Warden that is gone but cannot be checked from\n"
  "here (a crash in a container or under another host name); if that Warden still runs, it\n"
  "stops at its next step, but a command it started goes on unrecorded. One seen running here\n"
  "is released only with --force.\n"
  "sessions restore puts the workspace's files back as they were before STEP (a step number\n"
  "that sessions show prints, or a tool call's id), prints what it changed and is a step of\n"
  "its own, to undo it; it refuses while another Warden has the session. See\n"
  "docs/checkpoints.md.\n"
  "sessions move-aside renames a damaged database (kept for recovery) so Warden starts anew.\n";

void
warden_cli_error (const char *format,
                  ...)
{
  g_autofree char *msg = NULL;
  va_list args;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  /* Messages carry what a server, a file or a command said: on a terminal
   * that must not move the cursor or rewrite what was printed before. */
  {
    g_autofree char *shown = warden_printable (msg, -1, WARDEN_PRINTABLE_KEEP_LINES);

    fprintf (stderr, "warden-cli: %s\n", shown);
  }
}

WardenProfile *
warden_cli_load_profile (const char  *spec,
                         GError     **error)
{
  if (strchr (spec, '/') != NULL || g_str_has_suffix (spec, ".json"))
    {
      g_autoptr(GFile) file = g_file_new_for_commandline_arg (spec);

      return warden_profile_new_from_file (file, error);
    }
  else
    {
      g_autoptr(WardenProfileStore) store = warden_profile_store_new (NULL);

      return warden_profile_store_lookup (store, spec, error);
    }
}

int
main (int    argc,
      char **argv)
{
  /* Before any thread, and before anything runs a command that could read
   * them from /proc/$PPID/environ. */
  warden_env_keys_take ();

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  g_set_prgname ("warden-cli");

  if (argc >= 2 && (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 ||
                    strcmp (argv[1], "help") == 0))
    {
      fputs (usage, stdout);
      return 0;
    }
  /* No command: a conversation, as with "chat". */
  if (argc < 2)
    return warden_cli_chat (argc, argv);
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("warden-cli %s\n", PACKAGE_VERSION);
      return 0;
    }
  if (strcmp (argv[1], "policy") == 0)
    return warden_cli_policy (argc - 1, argv + 1);
  if (strcmp (argv[1], "profile") == 0)
    return warden_cli_profile (argc - 1, argv + 1);
  if (strcmp (argv[1], "sandbox") == 0)
    return warden_cli_sandbox (argc - 1, argv + 1);
  if (strcmp (argv[1], "run") == 0)
    return warden_cli_run (argc - 1, argv + 1);
  if (strcmp (argv[1], "chat") == 0)
    return warden_cli_chat (argc - 1, argv + 1);
  /* Options of chat with no command before them: warden-cli --resume last. */
  if (argv[1][0] == '-' && strcmp (argv[1], "-") != 0)
    return warden_cli_chat (argc, argv);
  if (strcmp (argv[1], "sessions") == 0)
    return warden_cli_sessions (argc - 1, argv + 1);

  warden_cli_error ("unknown command “%s”; see warden-cli --help", argv[1]);
  return WARDEN_CLI_EXIT_USAGE;
}
