/* warden-cli-policy.c: warden-cli policy check, suggest, check-host and bench
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-cli"

#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "warden-cli.h"

#include "common/warden-sandbox-paths.h"
#include "policy/warden-network.h"
#include "policy/warden-pattern.h"
#include "policy/warden-policy.h"

typedef struct
{
  char     *profile;
  char     *mode;
  GStrv     allow;
  GStrv     ask;
  GStrv     deny;
  char     *workspace;
  char     *cwd;
  GStrv     env;
  gboolean  json;
  gboolean  read_stdin;
  int       rounds;
} Options;

static void
options_clear (Options *o)
{
  g_free (o->profile);
  g_free (o->mode);
  g_strfreev (o->allow);
  g_strfreev (o->ask);
  g_strfreev (o->deny);
  g_free (o->workspace);
  g_free (o->cwd);
  g_strfreev (o->env);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Options, options_clear)

/* Adds each of @patterns to @out; FALSE (said) when one is not a pattern. */
static gboolean
add_patterns (GPtrArray   *out,
              char       **patterns,
              const char  *option)
{
  for (guint i = 0; patterns != NULL && patterns[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;

      if (!warden_pattern_validate (patterns[i], &error))
        {
          warden_cli_error ("%s “%s”: %s", option, patterns[i], error->message);
          return FALSE;
        }
      g_ptr_array_add (out, patterns[i]);
    }
  return TRUE;
}

/* Builds the policy the options describe: the profile, if any, with the
 * extra patterns and mode applied; otherwise an ad-hoc allowlist. */
static WardenPolicy *
build_policy (Options *o)
{
  g_autoptr(GPtrArray) allow = g_ptr_array_new ();
  g_autoptr(GPtrArray) ask = g_ptr_array_new ();
  g_autoptr(GPtrArray) deny = g_ptr_array_new ();
  g_autoptr(WardenProfile) profile = NULL;
  WardenPolicy *policy;
  WardenMode mode = WARDEN_MODE_ALLOWLIST;

  if (o->profile != NULL)
    {
      g_autoptr(GError) error = NULL;

      profile = warden_cli_load_profile (o->profile, &error);
      if (profile == NULL)
        {
          warden_cli_error ("%s", error->message);
          return NULL;
        }
      mode = warden_profile_get_mode (profile);
      for (const char * const *p = warden_profile_get_allow (profile); p && *p; p++)
        g_ptr_array_add (allow, (gpointer) *p);
      for (const char * const *p = warden_profile_get_deny (profile); p && *p; p++)
        g_ptr_array_add (deny, (gpointer) *p);
      for (const char * const *p = warden_profile_get_ask (profile); p && *p; p++)
        g_ptr_array_add (ask, (gpointer) *p);
    }

  if (o->mode != NULL && !warden_mode_from_string (o->mode, &mode))
    {
      warden_cli_error ("unknown mode “%s”: use allowlist, approval-always or allow-always",
                        o->mode);
      return NULL;
    }

  if (!add_patterns (allow, o->allow, "--allow") ||
      !add_patterns (ask, o->ask, "--ask") ||
      !add_patterns (deny, o->deny, "--deny"))
    return NULL;

  g_ptr_array_add (allow, NULL);
  g_ptr_array_add (ask, NULL);
  g_ptr_array_add (deny, NULL);
  policy = warden_policy_new_full (mode, (const char * const *) allow->pdata,
                                   (const char * const *) ask->pdata,
                                   (const char * const *) deny->pdata);
  /* "sh build.sh" is decided as the profile's sessions decide it. */
  if (profile != NULL)
    warden_policy_set_check_nested (policy, warden_profile_get_check_nested (profile));
  return policy;
}

/* Splits argv at "--": options before, the command after (words joined by
 * spaces, as sh -c "$*" would see them). */
static gboolean
parse_options (const char  *name,
               Options     *o,
               int          argc,
               char       **argv,
               gboolean     with_check_options,
               gboolean     with_rounds,
               char       **command)
{
  g_autoptr(GOptionContext) ctx = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) opts = g_ptr_array_new ();
  g_autofree char **opt_argv = NULL;
  int opt_argc;
  int dashdash = -1;
  GOptionEntry entries[16];
  guint n = 0;

#define ENTRY(l, s, a, d, desc, arg) \
  entries[n++] = (GOptionEntry) { l, s, 0, a, d, desc, arg }

  ENTRY ("profile", 'p', G_OPTION_ARG_STRING, &o->profile, "Profile id or file", "ID|FILE");
  ENTRY ("allow", 'a', G_OPTION_ARG_STRING_ARRAY, &o->allow, "Also allow PATTERN", "PATTERN");
  ENTRY ("deny", 'd', G_OPTION_ARG_STRING_ARRAY, &o->deny, "Also deny PATTERN", "PATTERN");
  ENTRY ("ask", 0, G_OPTION_ARG_STRING_ARRAY, &o->ask,
         "Also ask for PATTERN, whatever allows it", "PATTERN");
  ENTRY ("mode", 'm', G_OPTION_ARG_STRING, &o->mode,
         "allowlist (default), approval-always or allow-always", "MODE");
  if (with_check_options)
    {
      ENTRY ("workspace", 'w', G_OPTION_ARG_STRING, &o->workspace,
             "The workspace inside the sandbox (default /workspace)", "DIR");
      ENTRY ("cwd", 0, G_OPTION_ARG_STRING, &o->cwd,
             "The directory the command runs in (default: the workspace)", "DIR");
      ENTRY ("env", 'e', G_OPTION_ARG_STRING_ARRAY, &o->env,
             "An environment variable the command is run with", "NAME=VALUE");
      ENTRY ("json", 'j', G_OPTION_ARG_NONE, &o->json, "Print the decision as JSON", NULL);
    }
  if (command != NULL)
    ENTRY ("stdin", 0, G_OPTION_ARG_NONE, &o->read_stdin,
           "Read the command from standard input", NULL);
  if (with_rounds)
    ENTRY ("rounds", 'n', G_OPTION_ARG_INT, &o->rounds, "Decide each command N times", "N");
  entries[n] = (GOptionEntry) { NULL };
#undef ENTRY

  for (int i = 0; i < argc; i++)
    if (strcmp (argv[i], "--") == 0)
      {
        dashdash = i;
        break;
      }

  opt_argc = dashdash >= 0 ? dashdash : argc;
  opt_argv = g_new0 (char *, opt_argc + 1);
  memcpy (opt_argv, argv, opt_argc * sizeof (char *));

  ctx = g_option_context_new (command ? "(--stdin | -- COMMAND)" : NULL);
  g_option_context_set_help_enabled (ctx, TRUE);
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx, name);
  {
    char **tmp = opt_argv;

    if (!g_option_context_parse (ctx, &opt_argc, &tmp, &error))
      {
        warden_cli_error ("%s", error->message);
        return FALSE;
      }
  }
  if (opt_argc > 1)
    {
      warden_cli_error ("unexpected argument “%s”; put the command after “--”", opt_argv[1]);
      return FALSE;
    }

  if (command == NULL)
    {
      if (dashdash >= 0)
        {
          warden_cli_error ("%s takes no command after “--”", name);
          return FALSE;
        }
      return TRUE;
    }

  if (o->read_stdin == (dashdash >= 0))
    {
      warden_cli_error ("give the command either after “--” or with --stdin");
      return FALSE;
    }

  if (dashdash >= 0)
    {
      g_autoptr(GString) s = g_string_new (NULL);

      for (int i = dashdash + 1; i < argc; i++)
        {
          if (s->len > 0)
            g_string_append_c (s, ' ');
          g_string_append (s, argv[i]);
        }
      *command = g_string_free (g_steal_pointer (&s), FALSE);
    }
  return TRUE;
}

static GBytes *
read_all_stdin (void)
{
  GByteArray *buf = g_byte_array_new ();
  guint8 chunk[65536];
  ssize_t r;

  while ((r = read (STDIN_FILENO, chunk, sizeof chunk)) != 0)
    {
      if (r < 0)
        {
          warden_cli_error ("could not read standard input: %s", g_strerror (errno));
          g_byte_array_unref (buf);
          return NULL;
        }
      g_byte_array_append (buf, chunk, r);
    }
  return g_byte_array_free_to_bytes (buf);
}

static int
exit_status (WardenVerdict verdict)
{
  switch (verdict)
    {
    case WARDEN_VERDICT_ALLOW: return WARDEN_CLI_EXIT_ALLOW;
    case WARDEN_VERDICT_DENY:  return WARDEN_CLI_EXIT_DENY;
    case WARDEN_VERDICT_ASK:
    default:                   return WARDEN_CLI_EXIT_ASK;
    }
}

static void
print_human (WardenDecision *d)
{
  const char * const *suggestions = warden_decision_get_suggestions (d);
  g_autofree char *reason = warden_decision_printable (warden_decision_get_reason (d));

  printf ("%s: %s\n", warden_verdict_to_string (warden_decision_get_verdict (d)), reason);
  for (guint i = 0; i < warden_decision_get_n_parts (d); i++)
    {
      const WardenDecisionPart *part = warden_decision_get_part (d, i);
      g_autofree char *text = warden_decision_printable (part->text);
      g_autofree char *part_reason = warden_decision_printable (part->reason);

      printf ("  %-5s  %s  [%s]  %s\n", warden_verdict_to_string (part->verdict), text,
              warden_origin_to_string (part->origin), part_reason);
    }
  for (guint i = 0; suggestions[i]; i++)
    {
      g_autofree char *shown = warden_decision_printable (suggestions[i]);

      printf ("suggestion: always allow “%s”\n", shown);
    }
}

static int
policy_check (int       argc,
              char    **argv,
              gboolean  suggest_only)
{
  g_auto(Options) o = { 0 };
  g_autofree char *command = NULL;
  g_autoptr(GBytes) input = NULL;
  g_autoptr(WardenPolicy) policy = NULL;
  g_autoptr(WardenDecision) d = NULL;
  WardenCheckContext ctx = { 0 };
  const char *data;
  gsize len;

  if (!parse_options (suggest_only ? "policy suggest" : "policy check", &o, argc, argv,
                      !suggest_only, FALSE, &command))
    return WARDEN_CLI_EXIT_USAGE;

  if (o.read_stdin)
    {
      input = read_all_stdin ();
      if (input == NULL)
        return WARDEN_CLI_EXIT_USAGE;
      data = g_bytes_get_data (input, &len);
    }
  else
    {
      data = command;
      len = strlen (command);
    }

  policy = build_policy (&o);
  if (policy == NULL)
    return WARDEN_CLI_EXIT_USAGE;

  ctx.workspace = o.workspace ? o.workspace : WARDEN_SANDBOX_WORKSPACE;
  ctx.cwd = o.cwd;
  ctx.env = (const char * const *) o.env;
  if (ctx.workspace[0] != '/')
    {
      warden_cli_error ("--workspace must be an absolute path inside the sandbox");
      return WARDEN_CLI_EXIT_USAGE;
    }

  d = warden_policy_check (policy, data ? data : "", len, &ctx);

  if (suggest_only)
    {
      const char * const *s = warden_decision_get_suggestions (d);

      for (guint i = 0; s[i]; i++)
        printf ("%s\n", s[i]);
      return 0;
    }

  if (o.json)
    {
      g_autofree char *json = warden_decision_to_json (d);

      printf ("%s\n", json);
    }
  else
    print_human (d);

  return exit_status (warden_decision_get_verdict (d));
}

/* policy check-host */

/* Adds each of @patterns to @out; FALSE (said) when one is not a host
 * pattern. */
static gboolean
add_host_patterns (GPtrArray  *out,
                   char      **patterns,
                   const char *option)
{
  for (guint i = 0; patterns != NULL && patterns[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;

      if (!warden_host_pattern_validate (patterns[i], &error))
        {
          warden_cli_error ("%s “%s”: %s", option, patterns[i], error->message);
          return FALSE;
        }
      g_ptr_array_add (out, patterns[i]);
    }
  return TRUE;
}

/* The verdict of an allowlist for @host:@port, and its reason on
 * standard output (as Try a host in Preferences says it). */
static WardenVerdict
print_host_verdict (const char * const *allow,
                    const char * const *deny,
                    const char         *host,
                    guint               port)
{
  g_autofree char *target = warden_network_suggest (host, port);
  const char *pattern = NULL;
  const char *passed;
  WardenVerdict verdict;

  verdict = warden_network_check (allow, deny, host, port, &pattern);
  switch (verdict)
    {
    case WARDEN_VERDICT_ALLOW:
      printf ("allow: %s is allowed by %s\n", target, pattern);
      break;
    case WARDEN_VERDICT_DENY:
      printf ("deny: %s matches the denied host %s\n", target, pattern);
      break;
    case WARDEN_VERDICT_ASK:
    default:
      passed = warden_network_wildcard_passed (allow, host, port);
      if (passed != NULL)
        printf ("ask: %s is this computer; “%s” does not reach this computer's own services, "
                "only a pattern that names the address does\n", target, passed);
      else if (warden_network_is_this_computer (host))
        printf ("ask: %s is this computer, and no host pattern names it\n", target);
      else
        printf ("ask: no host pattern matches %s\n", target);
      printf ("suggestion: always allow “%s”\n", target);
      break;
    }
  return verdict;
}

static int
policy_check_host (int    argc,
                   char **argv)
{
  g_autofree char *profile_spec = NULL;
  g_auto(GStrv) extra_allow = NULL;
  g_auto(GStrv) extra_deny = NULL;
  g_autoptr(GOptionContext) ctx = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GPtrArray) allow = g_ptr_array_new ();
  g_autoptr(GPtrArray) deny = g_ptr_array_new ();
  g_autofree char *host = NULL;
  g_autofree char *target = NULL;
  WardenNetworkMode mode = WARDEN_NETWORK_ALLOWLIST;
  WardenVerdict verdict;
  gboolean address;
  guint port;
  GOptionEntry entries[] = {
    { "profile", 'p', 0, G_OPTION_ARG_STRING, &profile_spec, "Profile id or file", "ID|FILE" },
    { "allow", 'a', 0, G_OPTION_ARG_STRING_ARRAY, &extra_allow, "Also allow host PATTERN",
      "PATTERN" },
    { "deny", 'd', 0, G_OPTION_ARG_STRING_ARRAY, &extra_deny, "Also deny host PATTERN",
      "PATTERN" },
    { NULL }
  };

  ctx = g_option_context_new ("HOST[:PORT]");
  g_option_context_set_summary (ctx, "policy check-host: may the sandbox reach HOST:PORT "
                                     "(443 when no port is given)?");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      warden_cli_error ("%s", error->message);
      return WARDEN_CLI_EXIT_USAGE;
    }
  if (argc != 2)
    {
      warden_cli_error ("policy check-host takes one HOST[:PORT]");
      return WARDEN_CLI_EXIT_USAGE;
    }
  host = warden_network_parse_target (argv[1], &port);
  if (host == NULL)
    {
      g_autofree char *shown = warden_decision_printable (argv[1]);

      warden_cli_error ("“%s” is not a host: give a name or an address, and a port after “:” "
                        "([::1]:8080 for an IPv6 address)", shown);
      return WARDEN_CLI_EXIT_USAGE;
    }

  if (profile_spec != NULL)
    {
      profile = warden_cli_load_profile (profile_spec, &error);
      if (profile == NULL)
        {
          warden_cli_error ("%s", error->message);
          return WARDEN_CLI_EXIT_USAGE;
        }
      if (warden_profile_has_network (profile))
        mode = warden_profile_get_network_mode (profile);
      for (const char * const *p = warden_profile_get_network_allow (profile); p && *p; p++)
        g_ptr_array_add (allow, (gpointer) *p);
      for (const char * const *p = warden_profile_get_network_deny (profile); p && *p; p++)
        g_ptr_array_add (deny, (gpointer) *p);
    }
  if (!add_host_patterns (allow, extra_allow, "--allow") ||
      !add_host_patterns (deny, extra_deny, "--deny"))
    return WARDEN_CLI_EXIT_USAGE;
  g_ptr_array_add (allow, NULL);
  g_ptr_array_add (deny, NULL);

  target = warden_network_suggest (host, port);
  address = warden_network_is_address (host);
  switch (mode)
    {
    case WARDEN_NETWORK_NONE:
      printf ("deny: the profile gives the sandbox no network; %s is not reached\n", target);
      return WARDEN_CLI_EXIT_DENY;
    case WARDEN_NETWORK_OPEN:
      printf ("allow: the profile's network is open: the sandbox reaches %s directly, "
              "without Warden's proxy\n", target);
      if (!address || warden_network_is_this_computer (host))
        printf ("note: open mode reaches this computer's own services too; the allowlist mode "
                "with the pattern * keeps them out (see docs/policy.md)\n");
      return WARDEN_CLI_EXIT_ALLOW;
    case WARDEN_NETWORK_ALLOWLIST:
    default:
      break;
    }

  verdict = print_host_verdict ((const char * const *) allow->pdata,
                                (const char * const *) deny->pdata, host, port);
  if (!address && verdict != WARDEN_VERDICT_DENY)
    printf ("note: %s is a name: the address it resolves to is judged when connecting, and one "
            "of this computer (its interfaces', loopback, link-local such as 169.254.169.254) "
            "is not connected to; allow that address by number to reach it\n", host);
  if (profile != NULL && !warden_profile_has_network (profile))
    printf ("note: the profile has no network section: Warden's network setting decides "
            "whether the sandbox has the allowlist above, no network, or all of it\n");
  return exit_status (verdict);
}

static int
compare_u32 (gconstpointer a,
             gconstpointer b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;

  return x < y ? -1 : x > y;
}

static inline guint64
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

static int
policy_bench (int    argc,
              char **argv)
{
  g_auto(Options) o = { .rounds = 1000 };
  g_autoptr(WardenPolicy) policy = NULL;
  g_autoptr(GBytes) input = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GPtrArray) commands = g_ptr_array_new ();
  g_autofree guint32 *timings = NULL;
  guint counts[3] = { 0, 0, 0 };
  guint64 total = 0;
  gsize n = 0, n_timings;

  if (!parse_options ("policy bench", &o, argc, argv, FALSE, TRUE, NULL))
    return WARDEN_CLI_EXIT_USAGE;
  if (o.rounds < 1)
    {
      warden_cli_error ("--rounds must be at least 1");
      return WARDEN_CLI_EXIT_USAGE;
    }

  policy = build_policy (&o);
  if (policy == NULL)
    return WARDEN_CLI_EXIT_USAGE;

  input = read_all_stdin ();
  if (input == NULL)
    return WARDEN_CLI_EXIT_USAGE;
  {
    gsize len;
    const char *data = g_bytes_get_data (input, &len);
    g_autofree char *text = g_strndup (data ? data : "", len);

    lines = g_strsplit (text, "\n", -1);
  }
  for (guint i = 0; lines[i]; i++)
    if (lines[i][0] != '\0')
      g_ptr_array_add (commands, lines[i]);
  if (commands->len == 0)
    {
      warden_cli_error ("no commands on standard input (one per line)");
      return WARDEN_CLI_EXIT_USAGE;
    }

  n_timings = (gsize) commands->len * o.rounds;
  timings = g_new (guint32, n_timings);

  /* An untimed round first, as ts-bench has: it counts the verdicts, and
   * the first decision's one-time costs (gettext, the parser's pools, page
   * faults) are not a decision's. */
  for (guint i = 0; i < commands->len; i++)
    {
      WardenDecision *d = warden_policy_check (policy, g_ptr_array_index (commands, i), -1, NULL);

      counts[warden_decision_get_verdict (d)]++;
      warden_decision_unref (d);
    }

  for (int r = 0; r < o.rounds; r++)
    for (guint i = 0; i < commands->len; i++)
      {
        const char *cmd = g_ptr_array_index (commands, i);
        guint64 t0 = now_ns (), dt;
        WardenDecision *d = warden_policy_check (policy, cmd, -1, NULL);

        warden_decision_unref (d);
        dt = now_ns () - t0;
        timings[n++] = (guint32) MIN (dt, G_MAXUINT32);
        total += dt;
      }

  qsort (timings, n, sizeof (guint32), (GCompareFunc) compare_u32);
  printf ("profile_patterns=%s allow=%u ask=%u deny=%u\n",
          o.profile ? o.profile : (o.allow ? "extra" : "none"),
          counts[WARDEN_VERDICT_ALLOW], counts[WARDEN_VERDICT_ASK], counts[WARDEN_VERDICT_DENY]);
  printf ("commands=%u decisions=%" G_GSIZE_FORMAT " p50_us=%.2f p99_us=%.2f per_second=%.0f\n",
          commands->len, n, timings[n / 2] / 1000.0, timings[(gsize) (n * 0.99)] / 1000.0,
          total > 0 ? n / (total / 1e9) : 0.0);
  return 0;
}

static const char policy_usage[] =
  "Usage:\n"
  "  warden-cli policy check [--profile ID|FILE] [--mode MODE] [--allow PATTERN]...\n"
  "                          [--ask PATTERN]... [--deny PATTERN]... [--workspace DIR]\n"
  "                          [--cwd DIR] [--env NAME=VALUE]... [--json]\n"
  "                          (--stdin | -- COMMAND)\n"
  "  warden-cli policy check-host [--profile ID|FILE] [--allow HOST_PATTERN]...\n"
  "                               [--deny HOST_PATTERN]... HOST[:PORT]\n"
  "  warden-cli policy suggest [--profile ID|FILE] [--allow PATTERN]... (--stdin | -- COMMAND)\n"
  "  warden-cli policy bench [--profile ID|FILE] [--allow PATTERN]... [--rounds N] < COMMANDS\n"
  "\n"
  "check decides a command line; check-host decides whether the sandbox may reach\n"
  "HOST:PORT (443 when no port is given) by the profile's network section and the extra\n"
  "host patterns, and prints the decision and its reason. Both exit with 0 (allow),\n"
  "10 (ask), 20 (deny) or 2 (usage or profile error).\n"
  "An address of this computer (any address of its interfaces, the networks of Docker's\n"
  "and Podman's bridges, 127.0.0.0/8, ::1, 0.0.0.0, ::, the link-local 169.254.0.0/16\n"
  "with the cloud metadata service, fe80::/10) is reached only by a pattern that names it:\n"
  "* and *:8080 do not reach it. A name is judged by its patterns, and the address it\n"
  "resolves to when connecting: one of this computer is not connected to.\n"
  "See docs/policy.md.\n";

int
warden_cli_policy (int    argc,
                   char **argv)
{
  if (argc >= 2 && (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 ||
                    strcmp (argv[1], "help") == 0))
    {
      fputs (policy_usage, stdout);
      return 0;
    }
  if (argc < 2)
    {
      warden_cli_error ("policy needs a subcommand: check, check-host, suggest or bench");
      return WARDEN_CLI_EXIT_USAGE;
    }
  if (strcmp (argv[1], "check") == 0)
    return policy_check (argc - 1, argv + 1, FALSE);
  if (strcmp (argv[1], "check-host") == 0)
    return policy_check_host (argc - 1, argv + 1);
  if (strcmp (argv[1], "suggest") == 0)
    return policy_check (argc - 1, argv + 1, TRUE);
  if (strcmp (argv[1], "bench") == 0)
    return policy_bench (argc - 1, argv + 1);

  warden_cli_error ("unknown policy subcommand “%s”: use check, check-host, suggest or bench",
                    argv[1]);
  return WARDEN_CLI_EXIT_USAGE;
}
