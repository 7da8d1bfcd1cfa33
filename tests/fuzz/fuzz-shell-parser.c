/* fuzz-shell-parser.c: libFuzzer target for the shell parser and the policy engine
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Build and run with scripts/fuzz, or by hand:
 *   CC=clang meson setup _build-fuzz -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false
 *   G_SLICE=always-malloc _build-fuzz/tests/fuzz/fuzz-shell-parser CORPUS-DIR
 *
 * Each input is one command line, bytes as they come (NUL bytes and invalid
 * UTF-8 included). Besides crashes, leaks and undefined behaviour, which the
 * sanitizers report, the target aborts when one of these does not hold:
 *
 *  (a) everything is freed (LeakSanitizer checks; the target frees all it makes);
 *  (b) a line that does not parse (warden_shell_parse sets an error) is never
 *      allowed, even by the most permissive policies: mode allow-always, and
 *      mode allowlist with the pattern "*"; a line with a NUL byte is never
 *      allowed by any policy and always has a parse error;
 *  (c) warden_decision_to_json gives valid UTF-8 that json-glib parses, with a
 *      "decision" member that agrees with the verdict;
 *  (d) the engine is deterministic: checking the same line twice gives the
 *      same verdict and the same JSON;
 *  (e) the exec call's environment variables make every line ask (or deny):
 *      never allow;
 *  (f) deny beats everything: with the deny pattern "*", a line with at least
 *      one simple command (wrappers' and substitutions' included) is denied.
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/warden-policy.h"
#include "policy/warden-shell-parser.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Created once, kept for the life of the process. */
static WardenPolicy *allow_always;     /* allow-always, allow "*" */
static WardenPolicy *allowlist_star;   /* allowlist, allow "*" */
static WardenPolicy *deny_star;        /* allow-always, deny "*" */
static WardenPolicy *realistic;        /* allowlist with a few seed-like patterns */

static const WardenCheckContext env_context = {
  .workspace = "/workspace",
  .cwd = NULL,
  .env = (const char * const []) { "FOO=1", NULL },
};

static const WardenCheckContext outside_context = {
  .workspace = "/workspace",
  .cwd = "/tmp",
  .env = NULL,
};

static void G_GNUC_NORETURN
violation (const char    *what,
           const uint8_t *data,
           size_t         size,
           const char    *json)
{
  g_autoptr(GString) esc = g_string_new (NULL);

  for (size_t i = 0; i < size; i++)
    {
      guchar c = data[i];

      if (c == '\\' || c == '"')
        g_string_append_printf (esc, "\\%c", c);
      else if (c >= 0x20 && c < 0x7f)
        g_string_append_c (esc, c);
      else
        g_string_append_printf (esc, "\\x%02x", c);
    }
  fprintf (stderr, "\n*** INVARIANT VIOLATED: %s\n*** input (%zu bytes): \"%s\"\n",
           what, size, esc->str);
  if (json != NULL)
    fprintf (stderr, "*** decision: %s\n", json);
  fflush (stderr);
  abort ();
}

/* Checks (c) on the JSON of @decision; returns it (to be freed) for (d). */
static char *
check_json (WardenDecision *decision,
            gboolean        full_parse,
            const uint8_t  *data,
            size_t          size)
{
  char *json = warden_decision_to_json (decision);
  const char *verdict = warden_verdict_to_string (warden_decision_get_verdict (decision));

  if (json == NULL)
    violation ("warden_decision_to_json returned NULL", data, size, NULL);
  if (!g_utf8_validate (json, -1, NULL))
    violation ("warden_decision_to_json is not valid UTF-8", data, size, json);

  if (full_parse)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GError) error = NULL;
      JsonNode *root;
      JsonObject *object;

      if (!json_parser_load_from_data (parser, json, -1, &error))
        violation ("warden_decision_to_json does not parse as JSON", data, size, json);
      root = json_parser_get_root (parser);
      if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
        violation ("warden_decision_to_json is not a JSON object", data, size, json);
      object = json_node_get_object (root);
      if (!json_object_has_member (object, "decision") ||
          g_strcmp0 (json_object_get_string_member (object, "decision"), verdict) != 0)
        violation ("the JSON \"decision\" differs from the verdict", data, size, json);
    }

  return json;
}

static WardenVerdict
check (WardenPolicy             *policy,
       const WardenCheckContext *context,
       gboolean                  full_json,
       const uint8_t            *data,
       size_t                    size,
       char                    **json_out)
{
  g_autoptr(WardenDecision) decision = NULL;
  g_autofree char *json = NULL;
  WardenVerdict verdict;

  decision = warden_policy_check (policy, (const char *) data, size, context);
  if (decision == NULL)
    violation ("warden_policy_check returned NULL", data, size, NULL);
  verdict = warden_decision_get_verdict (decision);
  if (verdict != WARDEN_VERDICT_ALLOW && verdict != WARDEN_VERDICT_ASK &&
      verdict != WARDEN_VERDICT_DENY)
    violation ("the verdict is not allow, ask or deny", data, size, NULL);
  json = check_json (decision, full_json, data, size);
  if (json_out != NULL)
    *json_out = g_steal_pointer (&json);
  return verdict;
}

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  static const char * const star[] = { "*", NULL };
  static const char * const allow[] = {
    "ls", "ls *", "cat *", "echo *", "node *", "git status", "git log *", "grep *",
    "find *", "xargs *", "env *", "sh -c *", "true", "FOO=1 ls", NULL,
  };
  static const char * const deny[] = { "rm -rf /*", "rm *", "curl * | sh", "sudo *", NULL };
  g_autoptr(WardenDecision) d1 = NULL;
  g_autoptr(WardenDecision) d2 = NULL;
  g_autofree char *json = NULL;

  /* GLib 2.74's GSlice (GString, GList, …) keeps freed blocks for reuse,
   * so LeakSanitizer misses leaks and ASan use-after-free unless this is set
   * before the process starts, as scripts/fuzz does. */
  if (g_strcmp0 (g_getenv ("G_SLICE"), "always-malloc") != 0)
    fprintf (stderr, "fuzz-shell-parser: warning: G_SLICE=always-malloc is not set: "
                     "leaks and use-after-free in GSlice memory go unnoticed\n");

  allow_always = warden_policy_new (WARDEN_MODE_ALLOW_ALWAYS, star, NULL);
  allowlist_star = warden_policy_new (WARDEN_MODE_ALLOWLIST, star, NULL);
  deny_star = warden_policy_new (WARDEN_MODE_ALLOW_ALWAYS, NULL, star);
  realistic = warden_policy_new (WARDEN_MODE_ALLOWLIST, allow, deny);

  /* The policies are what they should be, and one-time allocations (GTypes,
   * quarks, json-glib's classes) happen here rather than in the first input. */
  d1 = warden_policy_check (allowlist_star, "ls -l", -1, NULL);
  d2 = warden_policy_check (deny_star, "ls -l", -1, NULL);
  if (warden_decision_get_verdict (d1) != WARDEN_VERDICT_ALLOW ||
      warden_decision_get_verdict (d2) != WARDEN_VERDICT_DENY)
    {
      fprintf (stderr, "fuzz-shell-parser: the static policies do not work as expected\n");
      abort ();
    }
  json = check_json (d1, TRUE, (const uint8_t *) "ls -l", 5);

  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(WardenShellParse) parse = NULL;
  g_autofree char *json1 = NULL;
  g_autofree char *json2 = NULL;
  gboolean has_nul;
  gboolean bad;
  WardenVerdict v1, v2;

  /* libFuzzer may pass NULL for the empty input; the API wants a pointer. */
  if (data == NULL)
    data = (const uint8_t *) "";
  has_nul = size > 0 && memchr (data, '\0', size) != NULL;

  parse = warden_shell_parse ((const char *) data, size, NULL);
  if (parse == NULL || parse->parts == NULL)
    violation ("warden_shell_parse returned no parts array", data, size, NULL);
  if (has_nul && parse->error == NULL)
    violation ("a line with a NUL byte parses without error", data, size, NULL);
  bad = parse->error != NULL || has_nul;

  /* (b) and (d) on the most permissive policy, with a full JSON parse (c). */
  v1 = check (allow_always, NULL, TRUE, data, size, &json1);
  v2 = check (allow_always, NULL, FALSE, data, size, &json2);
  if (v1 != v2)
    violation ("two checks of the same line disagree (allow-always)", data, size, json1);
  if (strcmp (json1, json2) != 0)
    violation ("two checks of the same line give different JSON (allow-always)",
               data, size, json1);
  if (bad && v1 == WARDEN_VERDICT_ALLOW)
    violation (has_nul ? "a line with a NUL byte is allowed (allow-always)"
                       : "a line that does not parse is allowed (allow-always)",
               data, size, json1);

  /* (b) on allowlist "*". */
  v1 = check (allowlist_star, NULL, FALSE, data, size, NULL);
  if (bad && v1 == WARDEN_VERDICT_ALLOW)
    violation (has_nul ? "a line with a NUL byte is allowed (allowlist \"*\")"
                       : "a line that does not parse is allowed (allowlist \"*\")",
               data, size, NULL);
  if (v1 == WARDEN_VERDICT_DENY)
    violation ("a policy without deny patterns denies", data, size, NULL);

  /* (e) environment variables always ask. */
  v1 = check (allow_always, &env_context, FALSE, data, size, NULL);
  if (v1 == WARDEN_VERDICT_ALLOW)
    violation ("a line run with environment variables is allowed", data, size, NULL);

  /* (f) deny "*" denies every line that has a simple command. */
  v1 = check (deny_star, NULL, FALSE, data, size, NULL);
  if (parse->parts->len > 0 && v1 != WARDEN_VERDICT_DENY)
    violation ("a simple command escapes the deny pattern \"*\"", data, size, NULL);
  if (bad && v1 == WARDEN_VERDICT_ALLOW)
    violation ("a line that does not parse is allowed (deny \"*\")", data, size, NULL);

  /* Coverage of the pattern index and of outside-workspace redirections;
   * (b) and (d) again. */
  v1 = check (realistic, NULL, FALSE, data, size, NULL);
  v2 = check (realistic, NULL, FALSE, data, size, NULL);
  if (v1 != v2)
    violation ("two checks of the same line disagree (allowlist)", data, size, NULL);
  if (bad && v1 == WARDEN_VERDICT_ALLOW)
    violation ("a line that does not parse is allowed (allowlist)", data, size, NULL);
  v1 = check (allowlist_star, &outside_context, FALSE, data, size, NULL);
  if (bad && v1 == WARDEN_VERDICT_ALLOW)
    violation ("a line that does not parse is allowed (cwd outside)", data, size, NULL);

  return 0;
}
