/* test-profile.c: profiles, the profile store and the Claude Code import
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "policy/warden-claude-import.h"
#include "policy/warden-codex-import.h"
#include "policy/warden-pattern.h"
#include "policy/warden-policy.h"
#include "policy/warden-protected-path.h"
#include "policy/warden-profile-store.h"
#include "policy/warden-profile.h"
#include "warden-test-util.h"

#define PROFILE_FIXTURES TEST_FIXTURES "/profiles"

/* The built-in node profile's allow list (issue 30: the read-only set and a
 * Node.js project's everyday commands), in its order. */
static const char * const node_allow[] = {
  "node", "node *", "npm test", "npm test *", "npm t", "npm run", "npm run *", "npm ci",
  "npm ls", "npm ls *", "npm outdated", "ls", "ls *", "cat *", "head *", "tail *", "wc *",
  "file *", "stat *", "find", "find *", "grep *", "rg *", "tree", "tree *", "pwd", "du",
  "du *", "df", "df *", "which *", "realpath *", "readlink *", "basename *", "dirname *",
  "diff *", "cmp *", "md5sum *", "sha256sum *", "echo", "echo *", "date", "whoami", "uname",
  "uname *", "git status", "git status *", "git diff", "git diff *", "git log", "git log *",
  "git show", "git show *", "git branch", NULL
};

typedef struct
{
  char *dir;       /* a fresh temporary directory */
  char *user_dir;  /* dir/profiles, not created */
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fixture->dir = g_dir_make_tmp ("warden-test-profile-XXXXXX", &error);
  g_assert_no_error (error);
  fixture->user_dir = g_build_filename (fixture->dir, "profiles", NULL);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  warden_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
  g_free (fixture->user_dir);
}

#define ADD_TEST(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

static char *
read_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);

  return contents;
}

static void
write_file (const char *path,
            const char *contents)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
}

static void
make_user_dir (Fixture *fixture)
{
  g_assert_cmpint (g_mkdir_with_parents (fixture->user_dir, 0700), ==, 0);
}

static char *
user_file (Fixture    *fixture,
           const char *basename)
{
  return g_build_filename (fixture->user_dir, basename, NULL);
}

static int
compare_names (const void *a,
               const void *b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

/* Sorted names of the entries of @dir. */
static GStrv
list_dir (const char *dir)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  GStrv names;
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    g_strv_builder_add (builder, name);

  names = g_strv_builder_end (builder);
  qsort (names, g_strv_length (names), sizeof (char *), compare_names);
  return names;
}

static gboolean
strv_equal (const char * const *a,
            const char * const *b)
{
  return g_strv_equal ((const char **) a, (const char **) b);
}

static WardenProfile *
load (const char  *data,
      GError     **error)
{
  return warden_profile_new_from_data ("test", data, -1, "/home/u/test.json", error);
}

/* Asserts that @data does not load, with @code and a message holding
 * the file name and each of the NULL-terminated strings after @code. */
static void
assert_load_fails (const char *data,
                   int         code,
                   ...)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  const char *part;
  va_list args;

  profile = load (data, &error);
  g_assert_null (profile);
  g_assert_error (error, WARDEN_POLICY_ERROR, code);
  g_assert_true (g_str_has_prefix (error->message, "profile “/home/u/test.json”: "));

  va_start (args, code);
  while ((part = va_arg (args, const char *)) != NULL)
    {
      if (strstr (error->message, part) == NULL)
        g_error ("“%s” not in the error message “%s”", part, error->message);
    }
  va_end (args);
}

static gboolean
any_matches (const char * const *patterns,
             const char         *text)
{
  for (guint i = 0; patterns[i] != NULL; i++)
    if (warden_pattern_match (patterns[i], text, strlen (text)))
      return TRUE;

  return FALSE;
}

/* Built-in profiles */

static void
test_builtin_ids (void)
{
  const char * const *ids = warden_profile_store_builtin_ids ();

  g_assert_cmpuint (g_strv_length ((char **) ids), ==, 5);

  for (guint i = 0; ids[i] != NULL; i++)
    {
      g_autoptr(WardenProfile) profile = NULL;
      g_autoptr(GError) error = NULL;

      profile = warden_profile_new_builtin (ids[i], &error);
      g_assert_no_error (error);
      g_assert_cmpstr (warden_profile_get_id (profile), ==, ids[i]);
      g_assert_true (warden_profile_get_builtin (profile));
      g_assert_cmpstr (warden_profile_get_name (profile), !=, ids[i]);
      g_assert_cmpuint (strlen (warden_profile_get_description (profile)), >, 20);
    }

  g_assert_true (g_strv_contains (ids, "node"));
  g_assert_true (g_strv_contains (ids, "read-only"));
  g_assert_true (g_strv_contains (ids, "python"));
  g_assert_true (g_strv_contains (ids, "strict"));
  g_assert_true (g_strv_contains (ids, "trusted"));
}

static void
test_builtin_node (void)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  const char * const *deny;

  profile = warden_profile_new_builtin ("node", &error);
  g_assert_no_error (error);

  g_assert_cmpstr (warden_profile_get_name (profile), ==, "Node.js");
  g_assert_cmpint (warden_profile_get_mode (profile), ==, WARDEN_MODE_ALLOWLIST);
  g_assert_true (strv_equal (warden_profile_get_allow (profile), node_allow));
  /* A day's work runs; installing something new asks. */
  g_assert_true (any_matches (warden_profile_get_allow (profile), "npm test"));
  g_assert_true (any_matches (warden_profile_get_allow (profile), "npm run lint"));
  g_assert_true (any_matches (warden_profile_get_allow (profile), "git status"));
  g_assert_true (any_matches (warden_profile_get_allow (profile), "grep -r x ."));
  g_assert_false (any_matches (warden_profile_get_allow (profile), "npm install chalk"));
  g_assert_false (any_matches (warden_profile_get_allow (profile), "npx create-thing"));

  deny = warden_profile_get_deny (profile);
  g_assert_true (g_strv_contains (deny, "rm -rf /*"));
  g_assert_true (any_matches (deny, "rm -rf /"));
  g_assert_true (any_matches (deny, "rm -rf ~"));
  g_assert_false (any_matches (deny, "node app.js"));
  g_assert_false (any_matches (deny, "rm -rf node_modules"));
}

static void
test_builtin_read_only (void)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  const char * const *allow;
  const char * const *deny;
  static const char * const readers[] = {
    "ls", "ls -la src", "cat README.md", "head -n 5 x", "tail x", "wc -l x", "file x",
    "stat x", "find . -name '*.c'", "grep -rn TODO src", "rg foo", "tree", "pwd", "du -sh .",
    "df -h", "which gcc", "git status", "git status --short", "git diff", "git diff HEAD~1",
    "git log", "git log --oneline", "git show HEAD", NULL
  };
  static const char * const writers[] = {
    "rm x", "mv a b", "cp a b", "touch x", "mkdir x", "python3 x.py", "node x.js",
    "git commit -m x", "git push", "git checkout .", "sed -i s/a/b/ x", "npm install", NULL
  };

  profile = warden_profile_new_builtin ("read-only", &error);
  g_assert_no_error (error);
  g_assert_cmpint (warden_profile_get_mode (profile), ==, WARDEN_MODE_ALLOWLIST);

  allow = warden_profile_get_allow (profile);
  deny = warden_profile_get_deny (profile);

  for (guint i = 0; readers[i] != NULL; i++)
    {
      if (!any_matches (allow, readers[i]) || any_matches (deny, readers[i]))
        g_error ("read-only does not allow “%s”", readers[i]);
    }

  for (guint i = 0; writers[i] != NULL; i++)
    {
      if (any_matches (allow, writers[i]))
        g_error ("read-only allows “%s”", writers[i]);
    }

  /* find's own writing actions are refused outright. */
  g_assert_true (g_strv_contains (deny, "find *-delete*"));
  g_assert_true (g_strv_contains (deny, "find *-fprint*"));
  g_assert_true (g_strv_contains (deny, "find *-fls*"));
  g_assert_true (any_matches (deny, "find . -name *.o -delete"));
  g_assert_true (any_matches (deny, "find . -fprint out.txt"));
  g_assert_true (any_matches (deny, "find / -fls list"));
}

static void
test_builtin_python (void)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  const char * const *allow;

  profile = warden_profile_new_builtin ("python", &error);
  g_assert_no_error (error);
  g_assert_cmpint (warden_profile_get_mode (profile), ==, WARDEN_MODE_ALLOWLIST);

  allow = warden_profile_get_allow (profile);
  g_assert_true (any_matches (allow, "python3 manage.py test"));
  g_assert_true (any_matches (allow, "python3"));
  g_assert_false (any_matches (allow, "pip install -r requirements.txt"));
  g_assert_true (any_matches (allow, "pip list"));
  g_assert_true (any_matches (allow, "python -m pytest -q"));
  g_assert_true (any_matches (allow, "git diff"));
  g_assert_true (any_matches (allow, "grep -rn TODO src"));
  /* python3 * would cover it: an ask rule keeps installing a question. */
  g_assert_true (any_matches (warden_profile_get_ask (profile), "python3 -m pip install x"));
  g_assert_true (any_matches (allow, "pytest"));
  g_assert_true (any_matches (allow, "pytest -x tests/"));
  g_assert_true (any_matches (allow, "cat setup.py"));
  g_assert_false (any_matches (allow, "node x.js"));
  g_assert_false (any_matches (allow, "rm -rf build"));
}

/* Issue 30: each built-in profile names the image its sessions run in (a
 * Node.js one has node and npm), and a profile file can name its own. */
static void
test_image (void)
{
  static const struct { const char *id; const char *image; } builtins[] = {
    { "node", "node:20-slim" }, { "python", "python:3-slim" },
    { "read-only", "debian:bookworm-slim" }, { "strict", "debian:bookworm-slim" },
    { "trusted", "debian:bookworm-slim" },
  };
  g_autoptr(WardenProfile) own = NULL;
  g_autoptr(WardenProfile) reloaded = NULL;
  g_autoptr(WardenProfile) none = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (builtins); i++)
    {
      g_autoptr(WardenProfile) profile = warden_profile_new_builtin (builtins[i].id, &error);

      g_assert_no_error (error);
      g_assert_cmpstr (warden_profile_get_image (profile), ==, builtins[i].image);
    }

  own = load ("{\"version\": 1, \"image\": \"registry.example.com/team/ci:2024-05\"}",
              &error);
  g_assert_no_error (error);
  g_assert_cmpstr (warden_profile_get_image (own), ==, "registry.example.com/team/ci:2024-05");
  data = warden_profile_to_data (own, NULL);
  reloaded = load (data, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (warden_profile_get_image (reloaded), ==,
                   "registry.example.com/team/ci:2024-05");
  /* Empty goes back to the default; what is no image name is refused. */
  g_assert_true (warden_profile_set_image (reloaded, ""));
  g_assert_null (warden_profile_get_image (reloaded));
  g_assert_false (warden_profile_set_image (reloaded, "node:20 --privileged"));
  g_assert_false (warden_profile_set_image (reloaded, "-v/:/host"));
  g_assert_null (warden_profile_get_image (reloaded));
  none = load ("{\"version\": 1, \"image\": \"node; rm -rf /\"}", &error);
  g_assert_null (none);
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "image"));
}

static void
test_builtin_strict (void)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;

  profile = warden_profile_new_builtin ("strict", &error);
  g_assert_no_error (error);
  g_assert_cmpint (warden_profile_get_mode (profile), ==, WARDEN_MODE_APPROVAL_ALWAYS);
  g_assert_cmpuint (g_strv_length ((char **) warden_profile_get_allow (profile)), ==, 0);
}

static void
test_builtin_trusted (void)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  const char * const *deny;
  static const char * const destructive[] = {
    "rm -rf /", "rm -rf /home", "rm -fr /*", "rm -r -f /", "rm -rf ~", "rm -rf ~/", "rm -Rf /",
    "rm -rf $HOME", "rm --no-preserve-root -rf /", "mkfs.ext4 /dev/sda1", "mkfs -t ext4 /dev/sdb",
    "dd if=/dev/zero of=/dev/sda", "dd of=/dev/nvme0n1 bs=1M", "shutdown -h now", "shutdown",
    "reboot", "poweroff", "chmod -R 777 /", "git push --force", "git push --force origin main",
    "git push -f origin main", "git push origin main --force", "git push origin +main",
    "git push --force-with-lease", NULL
  };
  static const char * const everyday[] = {
    "rm -rf build", "rm -rf node_modules", "make", "git push", "git push origin main",
    "dd if=/dev/zero of=disk.img bs=1M count=10", "chmod 644 README.md", "npm install",
    "git push --follow-tags", NULL
  };

  profile = warden_profile_new_builtin ("trusted", &error);
  g_assert_no_error (error);
  g_assert_cmpint (warden_profile_get_mode (profile), ==, WARDEN_MODE_ALLOW_ALWAYS);

  deny = warden_profile_get_deny (profile);
  for (guint i = 0; destructive[i] != NULL; i++)
    {
      if (!any_matches (deny, destructive[i]))
        g_error ("trusted does not deny “%s”", destructive[i]);
    }

  for (guint i = 0; everyday[i] != NULL; i++)
    {
      if (any_matches (deny, everyday[i]))
        g_error ("trusted denies “%s”", everyday[i]);
    }

  /* A push is the one everyday command that reaches past a sandbox you can
   * throw away: it asks, bare or not; nothing else does. */
  {
    g_autoptr(WardenPolicy) policy = warden_policy_new_for_profile (profile);
    static const struct { const char *command; WardenVerdict verdict; } rows[] = {
      { "git push", WARDEN_VERDICT_ASK }, { "git push origin main", WARDEN_VERDICT_ASK },
      { "cd sub && git push --follow-tags", WARDEN_VERDICT_ASK },
      { "git push --force", WARDEN_VERDICT_DENY }, { "git status", WARDEN_VERDICT_ALLOW },
      { "git commit -m x", WARDEN_VERDICT_ALLOW }, { "git pull", WARDEN_VERDICT_ALLOW },
      { "npm install", WARDEN_VERDICT_ALLOW }, { "rm -rf build", WARDEN_VERDICT_ALLOW },
    };

    g_assert_cmpstrv (warden_profile_get_ask (profile),
                      ((const char * const []) { "git push", "git push *", NULL }));
    for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
      {
        g_autoptr(WardenDecision) d = warden_policy_check (policy, rows[i].command, -1, NULL);

        if (warden_decision_get_verdict (d) != rows[i].verdict)
          g_error ("trusted: “%s” gives %s: %s", rows[i].command,
                   warden_verdict_to_string (warden_decision_get_verdict (d)),
                   warden_decision_get_reason (d));
      }
  }
}

static void
test_builtin_round_trip (void)
{
  const char * const *ids = warden_profile_store_builtin_ids ();

  for (guint i = 0; ids[i] != NULL; i++)
    {
      g_autoptr(WardenProfile) profile = NULL;
      g_autoptr(WardenProfile) reloaded = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *data = NULL;

      profile = warden_profile_new_builtin (ids[i], &error);
      g_assert_no_error (error);

      data = warden_profile_to_data (profile, NULL);
      reloaded = warden_profile_new_from_data (ids[i], data, -1, NULL, &error);
      g_assert_no_error (error);

      g_assert_false (warden_profile_get_builtin (reloaded));
      g_assert_cmpstr (warden_profile_get_name (reloaded), ==, warden_profile_get_name (profile));
      g_assert_cmpstr (warden_profile_get_description (reloaded), ==,
                       warden_profile_get_description (profile));
      g_assert_cmpint (warden_profile_get_mode (reloaded), ==, warden_profile_get_mode (profile));
      g_assert_true (strv_equal (warden_profile_get_allow (reloaded),
                                 warden_profile_get_allow (profile)));
      g_assert_true (strv_equal (warden_profile_get_deny (reloaded),
                                 warden_profile_get_deny (profile)));
    }
}

static void
test_builtin_not_found (void)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;

  profile = warden_profile_new_builtin ("no-such-profile", &error);
  g_assert_null (profile);
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "no-such-profile"));
}

/* Writing a built-in profile to a file of one's own is an export, and
 * gives an ordinary profile; only the store refuses built-ins. */
static void
test_builtin_export (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(WardenProfile) exported = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *path = g_build_filename (fixture->dir, "node-export.json", NULL);

  profile = warden_profile_new_builtin ("node", &error);
  g_assert_no_error (error);

  file = g_file_new_for_path (path);
  g_assert_true (warden_profile_save_to_file (profile, file, &error));
  g_assert_no_error (error);

  exported = warden_profile_new_from_file (file, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (warden_profile_get_id (exported), ==, "node-export");
  g_assert_false (warden_profile_get_builtin (exported));
  g_assert_cmpstr (warden_profile_get_name (exported), ==, "Node.js");
  g_assert_true (strv_equal (warden_profile_get_allow (exported), node_allow));
  g_assert_true (strv_equal (warden_profile_get_deny (exported),
                             warden_profile_get_deny (profile)));
}

static void
test_builtin_copy (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(WardenProfile) builtin = NULL;
  g_autoptr(WardenProfile) copy = NULL;
  g_autoptr(WardenProfile) reloaded = NULL;
  g_autoptr(WardenProfileStore) store = NULL;
  g_autoptr(GError) error = NULL;

  store = warden_profile_store_new (fixture->user_dir);
  builtin = warden_profile_store_lookup (store, "node", &error);
  g_assert_no_error (error);

  copy = warden_profile_copy (builtin, "my-node");
  g_assert_false (warden_profile_get_builtin (copy));
  g_assert_cmpstr (warden_profile_get_id (copy), ==, "my-node");
  g_assert_true (strv_equal (warden_profile_get_allow (copy), node_allow));

  /* Changing the copy leaves the original alone. */
  g_assert_true (warden_profile_add_allow (copy, "make", &error));
  g_assert_no_error (error);
  g_assert_true (strv_equal (warden_profile_get_allow (builtin), node_allow));

  g_assert_true (warden_profile_store_save (store, copy, &error));
  g_assert_no_error (error);

  reloaded = warden_profile_store_lookup (store, "my-node", &error);
  g_assert_no_error (error);
  g_assert_false (warden_profile_get_builtin (reloaded));
  g_assert_true (g_strv_contains (warden_profile_get_allow (reloaded), "npm test"));
  g_assert_true (g_strv_contains (warden_profile_get_allow (reloaded), "node *"));
}

/* Loading */

static void
test_load_defaults (void)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;

  profile = load ("{}", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (warden_profile_get_id (profile), ==, "test");
  g_assert_cmpstr (warden_profile_get_name (profile), ==, "test");
  g_assert_cmpstr (warden_profile_get_description (profile), ==, "");
  g_assert_cmpint (warden_profile_get_mode (profile), ==, WARDEN_MODE_ALLOWLIST);
  g_assert_cmpuint (g_strv_length ((char **) warden_profile_get_allow (profile)), ==, 0);
  g_assert_cmpuint (g_strv_length ((char **) warden_profile_get_deny (profile)), ==, 0);
  g_assert_false (warden_profile_get_builtin (profile));
}

static void
test_load_full (void)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  static const char * const allow[] = { "make", "make *", NULL };
  static const char * const deny[] = { "make install", NULL };

  profile = load ("{ \"version\": 1, \"name\": \"Make\", \"description\": \"Builds.\","
                  "  \"mode\": \"approval-always\", \"allow\": [\"make\", \"make *\"],"
                  "  \"deny\": [\"make install\"] }", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (warden_profile_get_name (profile), ==, "Make");
  g_assert_cmpstr (warden_profile_get_description (profile), ==, "Builds.");
  g_assert_cmpint (warden_profile_get_mode (profile), ==, WARDEN_MODE_APPROVAL_ALWAYS);
  g_assert_true (strv_equal (warden_profile_get_allow (profile), allow));
  g_assert_true (strv_equal (warden_profile_get_deny (profile), deny));

  g_clear_object (&profile);
  profile = load ("{ \"mode\": \"allow-always\" }", &error);
  g_assert_no_error (error);
  g_assert_cmpint (warden_profile_get_mode (profile), ==, WARDEN_MODE_ALLOW_ALWAYS);
}

static void
test_load_duplicates (void)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  static const char * const allow[] = { "ls", "cat *", NULL };
  static const char * const deny[] = { "rm *", NULL };

  profile = load ("{ \"allow\": [\"ls\", \"ls\", \"cat *\", \"ls\", \"cat *\"],"
                  "  \"deny\": [\"rm *\", \"rm *\"] }", &error);
  g_assert_no_error (error);
  g_assert_true (strv_equal (warden_profile_get_allow (profile), allow));
  g_assert_true (strv_equal (warden_profile_get_deny (profile), deny));
}

static void
test_load_file (void)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (PROFILE_FIXTURES "/web-project.json");

  profile = warden_profile_new_from_file (file, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (warden_profile_get_id (profile), ==, "web-project");
  g_assert_cmpstr (warden_profile_get_name (profile), ==, "My web project");
  g_assert_true (g_strv_contains (warden_profile_get_allow (profile), "npm run build"));
  g_assert_cmpuint (g_strv_length ((char **) warden_profile_get_allow (profile)), ==, 5);
}

static void
test_load_file_not_found (Fixture       *fixture,
                          gconstpointer  data)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (fixture->dir, "missing.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);

  profile = warden_profile_new_from_file (file, &error);
  g_assert_null (profile);
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, path));
}

/* Any file can be read and checked; a name that is not a valid id only
 * matters when the profile goes into the store. */
static void
test_load_file_bad_id (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (fixture->user_dir);
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(WardenProfile) copy = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (fixture->dir, "My Profile.json", NULL);
  g_autofree char *empty_path = g_build_filename (fixture->dir, ".json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) empty_file = g_file_new_for_path (empty_path);

  write_file (path, "{ \"allow\": [\"ls\"] }");
  profile = warden_profile_new_from_file (file, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (warden_profile_get_id (profile), ==, "My Profile");
  g_assert_false (warden_profile_id_is_valid (warden_profile_get_id (profile)));

  g_assert_false (warden_profile_store_save (store, profile, &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "“My Profile” is not a valid profile id"));
  g_assert_false (g_file_test (fixture->user_dir, G_FILE_TEST_EXISTS));
  g_clear_error (&error);

  copy = warden_profile_copy (profile, "my-profile");
  g_assert_true (warden_profile_store_save (store, copy, &error));
  g_assert_no_error (error);

  write_file (empty_path, "{}");
  g_clear_object (&profile);
  profile = warden_profile_new_from_file (empty_file, &error);
  g_assert_null (profile);
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, empty_path));
}

/* Malformed profiles: each error names the file, the key and the fault. */

static void
test_malformed_not_json (void)
{
  assert_load_fails ("{ \"allow\": [\"ls\"", WARDEN_POLICY_ERROR_PARSE,
                     "is not valid JSON: ", NULL);
  assert_load_fails ("{ allow: [] }", WARDEN_POLICY_ERROR_PARSE, "is not valid JSON: ", NULL);
  assert_load_fails ("{ \"allow\": [\"ls\",] }", WARDEN_POLICY_ERROR_PARSE,
                     "is not valid JSON: ", NULL);
}

static void
test_malformed_empty (void)
{
  assert_load_fails ("", WARDEN_POLICY_ERROR_PARSE, "is empty", NULL);
  assert_load_fails ("  \n", WARDEN_POLICY_ERROR_PARSE, "is empty", NULL);
}

static void
test_malformed_not_object (void)
{
  assert_load_fails ("[\"ls\", \"cat *\"]", WARDEN_POLICY_ERROR_INVALID,
                     "is a list, not a JSON object", NULL);
  assert_load_fails ("\"ls\"", WARDEN_POLICY_ERROR_INVALID, "not a JSON object", NULL);
  assert_load_fails ("null", WARDEN_POLICY_ERROR_INVALID, "not a JSON object", NULL);
}

static void
test_malformed_allow_type (void)
{
  assert_load_fails ("{ \"allow\": \"ls *\" }", WARDEN_POLICY_ERROR_INVALID,
                     "key “allow”: is a string, not a list of patterns", NULL);
  assert_load_fails ("{ \"deny\": { \"rm\": true } }", WARDEN_POLICY_ERROR_INVALID,
                     "key “deny”: is an object, not a list of patterns", NULL);
  assert_load_fails ("{ \"allow\": null }", WARDEN_POLICY_ERROR_INVALID, "key “allow”", NULL);
}

static void
test_malformed_item_type (void)
{
  assert_load_fails ("{ \"allow\": [\"ls\", \"cat *\", 3] }", WARDEN_POLICY_ERROR_INVALID,
                     "key “allow”: item 3 is not a string", NULL);
  assert_load_fails ("{ \"deny\": [\"rm *\", null] }", WARDEN_POLICY_ERROR_INVALID,
                     "key “deny”: item 2 is not a string", NULL);
  assert_load_fails ("{ \"allow\": [[\"ls\"]] }", WARDEN_POLICY_ERROR_INVALID,
                     "key “allow”: item 1 is not a string", NULL);
}

static void
test_malformed_name (void)
{
  assert_load_fails ("{ \"name\": 5 }", WARDEN_POLICY_ERROR_INVALID,
                     "key “name”: is a number, not a string", NULL);
  assert_load_fails ("{ \"name\": \"\" }", WARDEN_POLICY_ERROR_INVALID,
                     "key “name”: is empty", NULL);
}

static void
test_malformed_description (void)
{
  assert_load_fails ("{ \"description\": [\"x\"] }", WARDEN_POLICY_ERROR_INVALID,
                     "key “description”: is a list, not a string", NULL);
}

static void
test_malformed_mode (void)
{
  assert_load_fails ("{ \"mode\": \"yolo\" }", WARDEN_POLICY_ERROR_INVALID,
                     "key “mode”: “yolo” is not a mode", "allowlist", "approval-always",
                     "allow-always", NULL);
  assert_load_fails ("{ \"mode\": true }", WARDEN_POLICY_ERROR_INVALID,
                     "key “mode”: is a boolean, not a string", NULL);
  /* Mode names are exact, as in the seed. */
  assert_load_fails ("{ \"mode\": \"Allowlist\" }", WARDEN_POLICY_ERROR_INVALID,
                     "key “mode”", NULL);
}

static void
test_malformed_version (void)
{
  assert_load_fails ("{ \"version\": 2, \"allow\": [\"ls\"] }", WARDEN_POLICY_ERROR_INVALID,
                     "key “version”", "written by a newer version of Warden", "update Warden",
                     NULL);
  assert_load_fails ("{ \"version\": 0 }", WARDEN_POLICY_ERROR_INVALID,
                     "key “version”: 0 is not a profile version", NULL);
  assert_load_fails ("{ \"version\": \"1\" }", WARDEN_POLICY_ERROR_INVALID,
                     "key “version”: is a string", NULL);
  assert_load_fails ("{ \"version\": 1.5 }", WARDEN_POLICY_ERROR_INVALID,
                     "key “version”", NULL);
}

static void
test_malformed_pattern (void)
{
  char *long_pattern = g_strnfill (WARDEN_PATTERN_MAX_LENGTH + 1, 'a');
  g_autofree char *data = g_strdup_printf ("{ \"allow\": [\"ls\", \"%s\"] }", long_pattern);

  assert_load_fails ("{ \"allow\": [\"ls\", \"\"] }", WARDEN_POLICY_ERROR_INVALID,
                     "key “allow”: item 2 is not a valid pattern", NULL);
  assert_load_fails (data, WARDEN_POLICY_ERROR_INVALID,
                     "key “allow”: item 2 is not a valid pattern", NULL);
  g_free (long_pattern);
}

static void
test_malformed_control_char (void)
{
  assert_load_fails ("{ \"deny\": [\"rm\\u0007 -rf *\"] }", WARDEN_POLICY_ERROR_INVALID,
                     "key “deny”: item 1 is not a valid pattern", NULL);
  assert_load_fails ("{ \"allow\": [\"ls\", \"git status\\n rm -rf ~\"] }",
                     WARDEN_POLICY_ERROR_INVALID,
                     "key “allow”: item 2 is not a valid pattern", NULL);
  /* A raw tab inside the string, which json-glib lets through. */
  assert_load_fails ("{ \"allow\": [\"ls\t*\"] }", WARDEN_POLICY_ERROR_INVALID,
                     "key “allow”: item 1 is not a valid pattern", NULL);
}

static void
test_malformed_nul (void)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  static const char with_nul_byte[] = "{ \"allow\": [\"ls\0 *\"] }";

  /* json-glib would cut "git status\u0000; rm -rf ~" down to "git status". */
  assert_load_fails ("{ \"allow\": [\"ls\", \"git status\\u0000; rm -rf ~\"] }",
                     WARDEN_POLICY_ERROR_INVALID,
                     "key “allow”: item 2 contains a NUL character", NULL);
  assert_load_fails ("{ \"deny\": [\"rm *\"], \"name\": \"x\\u0000y\" }",
                     WARDEN_POLICY_ERROR_INVALID, "key “name”: contains a NUL character", NULL);

  profile = warden_profile_new_from_data ("test", with_nul_byte, sizeof with_nul_byte - 1,
                                          "/home/u/test.json", &error);
  g_assert_null (profile);
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "NUL byte"));

  /* An escaped backslash followed by "u0000" is plain text, not a NUL. */
  g_clear_error (&error);
  profile = load ("{ \"description\": \"C:\\\\u0000\", \"allow\": [\"ls\"] }", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (warden_profile_get_description (profile), ==, "C:\\u0000");
}

static void
test_malformed_utf8 (void)
{
  assert_load_fails ("{ \"allow\": [\"ls \xff\"] }", WARDEN_POLICY_ERROR_PARSE,
                     "is not valid JSON", NULL);
}

/* Round trips */

static JsonObject *
parse_object (const char *data)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, data, -1, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));

  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static void
test_round_trip_unknown_keys (void)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(WardenProfile) reloaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (PROFILE_FIXTURES "/web-project.json");
  g_autofree char *original_data = read_file (PROFILE_FIXTURES "/web-project.json");
  g_autofree char *data = NULL;
  g_autoptr(JsonObject) original = NULL;
  g_autoptr(JsonObject) rewritten = NULL;

  profile = warden_profile_new_from_file (file, &error);
  g_assert_no_error (error);
  g_assert_true (warden_profile_add_allow (profile, "npm ci", &error));
  g_assert_no_error (error);

  data = warden_profile_to_data (profile, NULL);
  original = parse_object (original_data);
  rewritten = parse_object (data);

  /* Keys this version does not know come back exactly as they were. */
  g_assert_true (json_object_has_member (rewritten, "x-gui"));
  g_assert_true (json_object_has_member (rewritten, "notes"));
  g_assert_true (json_node_equal (json_object_get_member (original, "x-gui"),
                                  json_object_get_member (rewritten, "x-gui")));
  g_assert_true (json_node_equal (json_object_get_member (original, "notes"),
                                  json_object_get_member (rewritten, "notes")));
  g_assert_cmpint (json_object_get_int_member (rewritten, "version"), ==, 1);

  reloaded = warden_profile_new_from_data ("web-project", data, -1, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_strv_contains (warden_profile_get_allow (reloaded), "npm ci"));
  g_assert_cmpstr (warden_profile_get_description (reloaded), ==,
                   "Node plus the build tools this project uses.");
}

/* The files section: what the write and edit tools may do. */

static void
test_files_rule (void)
{
  static const struct { const char *json; WardenFileWrite rule; } rows[] = {
    { "{ \"allow\": [\"ls\"] }", WARDEN_FILE_WRITE_ALLOW },        /* older profiles */
    { "{ \"files\": {} }", WARDEN_FILE_WRITE_ALLOW },
    { "{ \"files\": { \"write\": \"allow\" } }", WARDEN_FILE_WRITE_ALLOW },
    { "{ \"files\": { \"write\": \"ask\" } }", WARDEN_FILE_WRITE_ASK },
    { "{ \"files\": { \"write\": \"never\" } }", WARDEN_FILE_WRITE_NEVER },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(WardenProfile) profile = load (rows[i].json, &error);
      g_autoptr(WardenProfile) reloaded = NULL;
      g_autofree char *data = NULL;

      g_assert_no_error (error);
      g_assert_cmpint (warden_profile_get_file_write (profile), ==, rows[i].rule);
      data = warden_profile_to_data (profile, NULL);
      reloaded = load (data, &error);
      g_assert_no_error (error);
      g_assert_cmpint (warden_profile_get_file_write (reloaded), ==, rows[i].rule);
    }
}

/* files.protect: names a project adds to the protected list (a task
 * runner's file, a tool's settings folder), in every layer. */
static void
test_files_protect (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(WardenProfile) reloaded = NULL;
  g_autoptr(WardenPolicy) policy = NULL;
  g_autoptr(WardenDecision) ask = NULL;
  g_autoptr(WardenDecision) ok = NULL;
  g_autofree char *data = NULL;
  const char *allow[] = { "*", NULL };
  const char *deny[] = { NULL };

  g_assert_false (warden_path_is_protected ("tools/.taskrc-test/run"));
  g_assert_false (warden_path_is_protected ("Justfile-test"));
  profile = load ("{ \"files\": { \"write\": \"allow\", "
                  "\"protect\": [\".taskrc-test\", \"Justfile-test\"] } }", &error);
  g_assert_no_error (error);
  g_assert_true (warden_path_is_protected ("tools/.taskrc-test/run"));
  g_assert_true (warden_path_is_protected ("JUSTFILE-TEST"));
  g_assert_false (warden_path_is_protected ("Justfile-test.md"));

  /* The parser asks for a redirection into one, as into the built-in ones. */
  policy = warden_policy_new (WARDEN_MODE_ALLOW_ALWAYS, allow, deny);
  ask = warden_policy_check (policy, "echo x >> sub/Justfile-test", -1, NULL);
  g_assert_cmpint (warden_decision_get_verdict (ask), ==, WARDEN_VERDICT_ASK);
  ok = warden_policy_check (policy, "echo x >> sub/notes", -1, NULL);
  g_assert_cmpint (warden_decision_get_verdict (ok), ==, WARDEN_VERDICT_ALLOW);

  data = warden_profile_to_data (profile, NULL);
  g_assert_nonnull (strstr (data, "\"protect\""));
  g_assert_nonnull (strstr (data, "Justfile-test"));
  reloaded = load (data, &error);
  g_assert_no_error (error);
}

static void
test_files_malformed (void)
{
  assert_load_fails ("{ \"files\": \"ask\" }", WARDEN_POLICY_ERROR_INVALID,
                     "key “files”: is a string, not an object", NULL);
  assert_load_fails ("{ \"files\": { \"write\": \"sometimes\" } }", WARDEN_POLICY_ERROR_INVALID,
                     "key “files.write”: “sometimes” is not a rule", "allow", "ask", "never",
                     NULL);
  assert_load_fails ("{ \"files\": { \"write\": false } }", WARDEN_POLICY_ERROR_INVALID,
                     "key “files.write”: is a boolean, not a string", NULL);
  assert_load_fails ("{ \"files\": { \"protect\": \".tox\" } }", WARDEN_POLICY_ERROR_INVALID,
                     "key “files.protect”: is a string, not a list of names", NULL);
  assert_load_fails ("{ \"files\": { \"protect\": [\"a/b\"] } }", WARDEN_POLICY_ERROR_INVALID,
                     "key “files.protect”: item 1, “a/b”, is not a file or folder name", NULL);
  assert_load_fails ("{ \"files\": { \"protect\": [\"..\"] } }", WARDEN_POLICY_ERROR_INVALID,
                     "key “files.protect”: item 1, “..”, is not a file or folder name", NULL);
  assert_load_fails ("{ \"files\": { \"protect\": [3] } }", WARDEN_POLICY_ERROR_INVALID,
                     "key “files.protect”: item 1 is not a string (it is a number)", NULL);
  assert_load_fails ("{ \"files\": { \"write\": \"Ask\" } }", WARDEN_POLICY_ERROR_INVALID,
                     "key “files.write”", NULL);
}

/* Keys inside "files" that this version does not know survive a rewrite;
 * a profile without the section gets none. */
static void
test_files_round_trip (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(WardenProfile) plain = NULL;
  g_autoptr(WardenProfile) copy = NULL;
  g_autoptr(JsonObject) object = NULL;
  g_autofree char *data = NULL;
  JsonObject *files;

  profile = load ("{ \"files\": { \"read\": \"ask\", \"write\": \"never\" }, \"x\": 1 }", &error);
  g_assert_no_error (error);
  warden_profile_set_file_write (profile, WARDEN_FILE_WRITE_ASK);
  data = warden_profile_to_data (profile, NULL);
  object = parse_object (data);
  files = json_object_get_object_member (object, "files");
  g_assert_nonnull (files);
  g_assert_cmpstr (json_object_get_string_member (files, "write"), ==, "ask");
  g_assert_cmpstr (json_object_get_string_member (files, "read"), ==, "ask");
  g_assert_true (json_object_has_member (object, "x"));

  copy = warden_profile_copy (profile, "copy");
  g_assert_cmpint (warden_profile_get_file_write (copy), ==, WARDEN_FILE_WRITE_ASK);
  g_clear_pointer (&data, g_free);
  g_clear_pointer (&object, json_object_unref);
  data = warden_profile_to_data (copy, NULL);
  object = parse_object (data);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (object, "files"),
                                                  "read"), ==, "ask");

  plain = load ("{ \"allow\": [\"ls\"] }", &error);
  g_clear_pointer (&data, g_free);
  g_clear_pointer (&object, json_object_unref);
  data = warden_profile_to_data (plain, NULL);
  object = parse_object (data);
  g_assert_false (json_object_has_member (object, "files"));
}

/* "nested": programs a command starts are checked unless it says "off";
 * it is written back when it was there or is off, and copied. */
static void
test_nested_setting (void)
{
  static const struct { const char *json; gboolean check; gboolean written; } rows[] = {
    { "{ \"allow\": [\"ls\"] }", TRUE, FALSE },            /* older profiles: on */
    { "{ \"nested\": \"check\" }", TRUE, TRUE },
    { "{ \"nested\": \"off\" }", FALSE, TRUE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(WardenProfile) profile = load (rows[i].json, &error);
      g_autoptr(WardenProfile) copy = NULL;
      g_autoptr(JsonObject) object = NULL;
      g_autofree char *data = NULL;

      g_assert_no_error (error);
      g_assert_cmpint (warden_profile_get_check_nested (profile), ==, rows[i].check);
      data = warden_profile_to_data (profile, NULL);
      object = parse_object (data);
      g_assert_cmpint (json_object_has_member (object, "nested"), ==, rows[i].written);
      copy = warden_profile_copy (profile, "copy");
      g_assert_cmpint (warden_profile_get_check_nested (copy), ==, rows[i].check);
    }

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(WardenProfile) profile = load ("{ \"allow\": [] }", &error);
    g_autoptr(JsonObject) object = NULL;
    g_autofree char *data = NULL;

    warden_profile_set_check_nested (profile, FALSE);
    data = warden_profile_to_data (profile, NULL);
    object = parse_object (data);
    g_assert_cmpstr (json_object_get_string_member (object, "nested"), ==, "off");
  }
  assert_load_fails ("{ \"nested\": true }", WARDEN_POLICY_ERROR_INVALID, "key “nested”",
                     "check", "off", NULL);
  assert_load_fails ("{ \"nested\": \"sometimes\" }", WARDEN_POLICY_ERROR_INVALID,
                     "key “nested”", NULL);
}

static void notify_count_cb (guint *counter);

/* "network": the mode and host patterns; older profiles have none and say
 * nothing; the short form is only the mode; written back as an object with
 * what it did not know kept; patterns kept lowercase. */
static void
test_network_section (void)
{
  static const struct {
    const char *json;
    gboolean has;
    WardenNetworkMode mode;
    const char *first_allow;
  } rows[] = {
    { "{ \"allow\": [\"ls\"] }", FALSE, WARDEN_NETWORK_NONE, NULL },
    { "{ \"network\": \"none\" }", TRUE, WARDEN_NETWORK_NONE, NULL },
    { "{ \"network\": \"bridge\" }", TRUE, WARDEN_NETWORK_OPEN, NULL },
    { "{ \"network\": { \"mode\": \"open\" } }", TRUE, WARDEN_NETWORK_OPEN, NULL },
    { "{ \"network\": { \"allow\": [\"Registry.NPMJS.org:443\", \"registry.npmjs.org:443\"] } }",
      TRUE, WARDEN_NETWORK_ALLOWLIST, "registry.npmjs.org:443" },
    { "{ \"network\": { \"mode\": \"allowlist\", \"allow\": [\"*.github.com:443\"], "
      "\"deny\": [\"*.evil.example\"], \"later\": 1 } }",
      TRUE, WARDEN_NETWORK_ALLOWLIST, "*.github.com:443" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(WardenProfile) profile = load (rows[i].json, &error);
      g_autoptr(WardenProfile) copy = NULL;
      g_autoptr(WardenProfile) again = NULL;
      g_autoptr(JsonObject) object = NULL;
      g_autofree char *data = NULL;
      g_autofree char *data_again = NULL;

      g_test_message ("%s", rows[i].json);
      g_assert_no_error (error);
      g_assert_cmpint (warden_profile_has_network (profile), ==, rows[i].has);
      g_assert_cmpint (warden_profile_get_network_mode (profile), ==, rows[i].mode);
      g_assert_cmpstr (warden_profile_get_network_allow (profile)[0], ==, rows[i].first_allow);
      if (rows[i].first_allow != NULL)
        g_assert_null (warden_profile_get_network_allow (profile)[1]);
      data = warden_profile_to_data (profile, NULL);
      object = parse_object (data);
      g_assert_cmpint (json_object_has_member (object, "network"), ==, rows[i].has);
      again = warden_profile_new_from_data ("x", data, -1, NULL, &error);
      g_assert_no_error (error);
      data_again = warden_profile_to_data (again, NULL);
      g_assert_cmpstr (data_again, ==, data);
      copy = warden_profile_copy (profile, "copy");
      g_assert_cmpint (warden_profile_get_network_mode (copy), ==, rows[i].mode);
      g_assert_cmpint (warden_profile_has_network (copy), ==, rows[i].has);
      if (strstr (rows[i].json, "later") != NULL)
        {
          JsonObject *network = json_object_get_object_member (object, "network");

          g_assert_cmpint (json_object_get_int_member (network, "later"), ==, 1);
          g_assert_cmpstr (warden_profile_get_network_deny (copy)[0], ==, "*.evil.example");
        }
    }

  assert_load_fails ("{ \"network\": true }", WARDEN_POLICY_ERROR_INVALID, "key “network”",
                     "allowlist", NULL);
  assert_load_fails ("{ \"network\": \"sometimes\" }", WARDEN_POLICY_ERROR_INVALID,
                     "key “network.mode”", "none", "allowlist", "open", NULL);
  assert_load_fails ("{ \"network\": { \"mode\": 1 } }", WARDEN_POLICY_ERROR_INVALID,
                     "key “network.mode”", NULL);
  assert_load_fails ("{ \"network\": { \"allow\": \"pypi.org\" } }", WARDEN_POLICY_ERROR_INVALID,
                     "key “network.allow”", "host patterns", NULL);
  assert_load_fails ("{ \"network\": { \"allow\": [\"ok.example\", \"a b\"] } }",
                     WARDEN_POLICY_ERROR_INVALID, "key “network.allow”", "item 2", NULL);
  assert_load_fails ("{ \"network\": { \"deny\": [\"host:99999\"] } }",
                     WARDEN_POLICY_ERROR_INVALID, "key “network.deny”", "port", NULL);
}

/* Editing: setting anything makes the section; "always allow" for a host
 * adds it once, normalized; an invalid pattern changes nothing. */
static void
test_network_edit (void)
{
  g_autoptr(WardenProfile) profile = warden_profile_new ("n");
  g_autoptr(GError) error = NULL;
  const char *deny[] = { "*.Evil.example", "bad pattern", NULL };
  guint notified = 0;

  g_signal_connect_swapped (profile, "notify::network-allow", G_CALLBACK (notify_count_cb),
                            &notified);
  g_assert_false (warden_profile_has_network (profile));
  g_assert_true (warden_profile_add_network_allow (profile, "PyPI.org:443", &error));
  g_assert_no_error (error);
  g_assert_true (warden_profile_add_network_allow (profile, "pypi.org:443", &error));
  g_assert_cmpuint (notified, ==, 1);
  g_assert_true (warden_profile_has_network (profile));
  g_assert_cmpstr (warden_profile_get_network_allow (profile)[0], ==, "pypi.org:443");
  g_assert_null (warden_profile_get_network_allow (profile)[1]);
  g_assert_false (warden_profile_add_network_allow (profile, "pypi.org/simple", &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (warden_profile_set_network_deny (profile, deny, &error));
  g_assert_nonnull (strstr (error->message, "bad pattern"));
  g_clear_error (&error);
  g_assert_null (warden_profile_get_network_deny (profile)[0]);
  deny[1] = NULL;
  g_assert_true (warden_profile_set_network_deny (profile, deny, &error));
  g_assert_cmpstr (warden_profile_get_network_deny (profile)[0], ==, "*.evil.example");
  warden_profile_set_network_mode (profile, WARDEN_NETWORK_OPEN);
  g_assert_cmpint (warden_profile_get_network_mode (profile), ==, WARDEN_NETWORK_OPEN);
}

/* What the built-in profiles let a sandbox reach. */
static void
test_network_builtin (void)
{
  static const struct { const char *id; WardenNetworkMode mode; const char *host; } rows[] = {
    { "node", WARDEN_NETWORK_ALLOWLIST, "registry.npmjs.org" },
    { "python", WARDEN_NETWORK_ALLOWLIST, "files.pythonhosted.org" },
    { "trusted", WARDEN_NETWORK_ALLOWLIST, "github.com" },
    { "strict", WARDEN_NETWORK_NONE, NULL },
    { "read-only", WARDEN_NETWORK_NONE, NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(WardenProfile) profile = warden_profile_new_builtin (rows[i].id, &error);

      g_assert_no_error (error);
      g_assert_true (warden_profile_has_network (profile));
      g_assert_cmpint (warden_profile_get_network_mode (profile), ==, rows[i].mode);
      if (rows[i].host != NULL)
        {
          g_assert_cmpint (warden_network_check (warden_profile_get_network_allow (profile),
                                                 warden_profile_get_network_deny (profile),
                                                 rows[i].host, 443, NULL), ==,
                           WARDEN_VERDICT_ALLOW);
          /* Not plain HTTP, and no other host. */
          g_assert_cmpint (warden_network_check (warden_profile_get_network_allow (profile),
                                                 warden_profile_get_network_deny (profile),
                                                 rows[i].host, 80, NULL), ==,
                           WARDEN_VERDICT_ASK);
          g_assert_cmpint (warden_network_check (warden_profile_get_network_allow (profile),
                                                 warden_profile_get_network_deny (profile),
                                                 "evil.example", 443, NULL), ==,
                           WARDEN_VERDICT_ASK);
        }
    }
}

static void
notify_count_cb (guint *counter)
{
  (*counter)++;
}

static void
test_files_notify (void)
{
  g_autoptr(WardenProfile) profile = warden_profile_new ("n");
  guint notified = 0;

  g_signal_connect_swapped (profile, "notify::file-write", G_CALLBACK (notify_count_cb),
                            &notified);
  warden_profile_set_file_write (profile, WARDEN_FILE_WRITE_ALLOW);
  g_assert_cmpuint (notified, ==, 0);
  warden_profile_set_file_write (profile, WARDEN_FILE_WRITE_NEVER);
  g_assert_cmpuint (notified, ==, 1);
  g_assert_cmpstr (warden_file_write_to_string (WARDEN_FILE_WRITE_NEVER), ==, "never");
}

/* The built-in read-only and strict profiles ask before any write or edit;
 * the others leave writes inside the project to the model. */
static void
test_builtin_files (void)
{
  static const struct { const char *id; WardenFileWrite rule; } rows[] = {
    { "read-only", WARDEN_FILE_WRITE_ASK },
    { "strict", WARDEN_FILE_WRITE_ASK },
    { "node", WARDEN_FILE_WRITE_ALLOW },
    { "python", WARDEN_FILE_WRITE_ALLOW },
    { "trusted", WARDEN_FILE_WRITE_ALLOW },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(WardenProfile) profile = warden_profile_new_builtin (rows[i].id, &error);

      g_assert_no_error (error);
      if (warden_profile_get_file_write (profile) != rows[i].rule)
        g_error ("built-in profile “%s”: files.write is “%s”", rows[i].id,
                 warden_file_write_to_string (warden_profile_get_file_write (profile)));
    }
}

static void
test_round_trip_format (void)
{
  g_autoptr(WardenProfile) profile = warden_profile_new ("fmt");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) object = NULL;
  g_autofree char *data = NULL;
  gsize length = 0;

  warden_profile_set_name (profile, "Fmt “quoted” ✓");
  warden_profile_set_mode (profile, WARDEN_MODE_APPROVAL_ALWAYS);
  g_assert_true (warden_profile_add_allow (profile, "echo \"hi\" \\ *", &error));
  g_assert_no_error (error);

  data = warden_profile_to_data (profile, &length);
  g_assert_cmpuint (length, ==, strlen (data));
  /* Pretty-printed, two spaces deep, ending in a newline: easy to edit and diff. */
  g_assert_true (g_str_has_prefix (data, "{\n  \"version\" : 1,\n"));
  g_assert_true (g_str_has_suffix (data, "\n}\n"));

  object = parse_object (data);
  g_assert_cmpint (json_object_get_int_member (object, "version"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (object, "name"), ==, "Fmt “quoted” ✓");
  g_assert_cmpstr (json_object_get_string_member (object, "mode"), ==, "approval-always");
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (object, "allow"),
                                                  0), ==, "echo \"hi\" \\ *");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (object, "deny")), ==, 0);
}

static void
test_edit_patterns (void)
{
  g_autoptr(WardenProfile) profile = warden_profile_new ("edit");
  g_autoptr(GError) error = NULL;
  static const char * const after[] = { "ls", "make *", NULL };

  g_assert_true (warden_profile_add_allow (profile, "ls", &error));
  g_assert_true (warden_profile_add_allow (profile, "cat *", &error));
  g_assert_true (warden_profile_add_allow (profile, "make *", &error));
  /* Adding what is there already succeeds and changes nothing. */
  g_assert_true (warden_profile_add_allow (profile, "ls", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length ((char **) warden_profile_get_allow (profile)), ==, 3);

  g_assert_true (warden_profile_remove_allow (profile, "cat *"));
  g_assert_false (warden_profile_remove_allow (profile, "cat *"));
  g_assert_true (strv_equal (warden_profile_get_allow (profile), after));

  g_assert_false (warden_profile_add_deny (profile, "", &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (warden_profile_add_deny (profile, "rm\x01 x", &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_cmpuint (g_strv_length ((char **) warden_profile_get_deny (profile)), ==, 0);

  g_assert_true (warden_profile_add_deny (profile, "rm -rf /*", &error));
  g_assert_true (warden_profile_remove_deny (profile, "rm -rf /*"));
  g_assert_false (warden_profile_remove_deny (profile, "rm -rf /*"));
}

static void
count_notify_cb (GObject    *object,
                 GParamSpec *pspec,
                 guint      *count)
{
  (*count)++;
}

static void
test_edit_notify (void)
{
  g_autoptr(WardenProfile) profile = warden_profile_new ("notify");
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) allow = NULL;
  guint allow_count = 0;
  guint name_count = 0;
  guint mode_count = 0;

  g_signal_connect (profile, "notify::allow", G_CALLBACK (count_notify_cb), &allow_count);
  g_signal_connect (profile, "notify::name", G_CALLBACK (count_notify_cb), &name_count);
  g_signal_connect (profile, "notify::mode", G_CALLBACK (count_notify_cb), &mode_count);

  warden_profile_add_allow (profile, "ls", &error);
  warden_profile_add_allow (profile, "ls", &error);
  warden_profile_remove_allow (profile, "nope");
  g_assert_cmpuint (allow_count, ==, 1);

  g_object_get (profile, "allow", &allow, NULL);
  g_assert_cmpstrv (allow, ((const char * const []) { "ls", NULL }));

  warden_profile_set_name (profile, "Notify");
  warden_profile_set_name (profile, "Notify");
  g_assert_cmpuint (name_count, ==, 1);
  g_assert_cmpstr (warden_profile_get_name (profile), ==, "Notify");
  /* No name means the id stands for it. */
  warden_profile_set_name (profile, NULL);
  g_assert_cmpstr (warden_profile_get_name (profile), ==, "notify");

  warden_profile_set_mode (profile, WARDEN_MODE_ALLOWLIST);
  g_assert_cmpuint (mode_count, ==, 0);
  warden_profile_set_mode (profile, WARDEN_MODE_ALLOW_ALWAYS);
  g_assert_cmpuint (mode_count, ==, 1);
}

static void
test_id_is_valid (void)
{
  static const char * const valid[] = { "node", "read-only", "a", "0", "my_profile.v2",
                                        "x.bak", NULL };
  static const char * const invalid[] = { "", "Node", "-x", ".hidden", "_x", "a b", "a/b",
                                          "../x", "über", "a\nb", NULL };
  g_autofree char *longest = g_strnfill (64, 'a');
  g_autofree char *too_long = g_strnfill (65, 'a');

  for (guint i = 0; valid[i] != NULL; i++)
    g_assert_true (warden_profile_id_is_valid (valid[i]));
  for (guint i = 0; invalid[i] != NULL; i++)
    g_assert_false (warden_profile_id_is_valid (invalid[i]));

  g_assert_false (warden_profile_id_is_valid (NULL));
  g_assert_true (warden_profile_id_is_valid (longest));
  g_assert_false (warden_profile_id_is_valid (too_long));
}

/* Saving */

static WardenProfile *
make_profile (const char *id,
              const char *first_pattern,
              guint       n_more)
{
  WardenProfile *profile = warden_profile_new (id);
  g_autoptr(GError) error = NULL;

  warden_profile_add_allow (profile, first_pattern, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < n_more; i++)
    {
      g_autofree char *pattern = g_strdup_printf ("tool-%u --with-a-long-option *", i);

      warden_profile_add_allow (profile, pattern, &error);
      g_assert_no_error (error);
    }

  return profile;
}

static void
test_save_creates_dir (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(WardenProfile) profile = make_profile ("fresh", "ls", 0);
  g_autoptr(WardenProfile) reloaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *nested = g_build_filename (fixture->user_dir, "deeper", NULL);
  g_autofree char *path = g_build_filename (nested, "fresh.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_auto(GStrv) names = NULL;
  GStatBuf st;

  g_assert_true (warden_profile_save_to_file (profile, file, &error));
  g_assert_no_error (error);

  g_assert_cmpint (g_stat (nested, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0700);

  /* Nothing to back up the first time. */
  names = list_dir (nested);
  g_assert_cmpstrv (names, ((const char * const []) { "fresh.json", NULL }));

  reloaded = warden_profile_new_from_file (file, &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (warden_profile_get_allow (reloaded), ((const char * const []) { "ls", NULL }));
}

static void
test_save_keeps_backup (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(WardenProfile) profile = make_profile ("keep", "ls", 0);
  g_autoptr(WardenProfile) current = NULL;
  g_autoptr(WardenProfile) previous = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = user_file (fixture, "keep.json");
  g_autofree char *backup = user_file (fixture, "keep.json.bak");
  g_autofree char *first = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) backup_file = g_file_new_for_path (backup);

  g_assert_true (warden_profile_save_to_file (profile, file, &error));
  g_assert_no_error (error);
  first = read_file (path);

  warden_profile_add_allow (profile, "make *", &error);
  g_assert_true (warden_profile_save_to_file (profile, file, &error));
  g_assert_no_error (error);

  {
    g_autofree char *backup_contents = read_file (backup);

    g_assert_cmpstr (backup_contents, ==, first);
  }

  current = warden_profile_new_from_file (file, &error);
  g_assert_no_error (error);
  g_assert_true (g_strv_contains (warden_profile_get_allow (current), "make *"));

  previous = warden_profile_new_from_data ("keep", first, -1, backup, &error);
  g_assert_no_error (error);
  g_assert_false (g_strv_contains (warden_profile_get_allow (previous), "make *"));
}

/* A write that fails half-way, as on a full disk: RLIMIT_FSIZE makes write()
 * fail with EFBIG past the limit, for root too. The old file is small enough
 * to be backed up, the new one is not. */
static void
test_save_failure_keeps_original (Fixture       *fixture,
                                  gconstpointer  data)
{
  g_autoptr(WardenProfile) small = make_profile ("full", "ls", 0);
  g_autoptr(WardenProfile) big = make_profile ("full", "ls", 200);
  g_autoptr(GError) error = NULL;
  g_autofree char *path = user_file (fixture, "full.json");
  g_autofree char *original = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_auto(GStrv) names = NULL;
  struct rlimit old_limit;
  struct rlimit limit;
  void (*old_handler) (int);
  gboolean saved;

  g_assert_true (warden_profile_save_to_file (small, file, &error));
  g_assert_no_error (error);
  original = read_file (path);
  g_assert_cmpuint (strlen (original), <, 1024);

  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &old_limit), ==, 0);
  limit = old_limit;
  limit.rlim_cur = 1024;
  old_handler = signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &limit), ==, 0);

  saved = warden_profile_save_to_file (big, file, &error);

  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &old_limit), ==, 0);
  signal (SIGXFSZ, old_handler);

  g_assert_false (saved);
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_IO);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, "disk is not full"));

  after = read_file (path);
  g_assert_cmpstr (after, ==, original);

  /* No temporary file is left behind. */
  names = list_dir (fixture->user_dir);
  g_assert_cmpstrv (names, ((const char * const []) { "full.json", "full.json.bak", NULL }));
}

/* If the previous version cannot be kept, nothing is replaced. */
static void
test_save_backup_failure (Fixture       *fixture,
                          gconstpointer  data)
{
  g_autoptr(WardenProfile) profile = make_profile ("blocked", "ls", 0);
  g_autoptr(GError) error = NULL;
  g_autofree char *path = user_file (fixture, "blocked.json");
  g_autofree char *backup = user_file (fixture, "blocked.json.bak");
  g_autofree char *inside = g_build_filename (backup, "something", NULL);
  g_autofree char *after = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (path);
  static const char original[] = "{ \"allow\": [\"original\"] }\n";

  make_user_dir (fixture);
  write_file (path, original);
  g_assert_cmpint (g_mkdir (backup, 0700), ==, 0);
  write_file (inside, "x");

  g_assert_false (warden_profile_save_to_file (profile, file, &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_IO);
  g_assert_nonnull (strstr (error->message, backup));
  g_assert_nonnull (strstr (error->message, "unchanged"));

  after = read_file (path);
  g_assert_cmpstr (after, ==, original);
}

static void
test_save_dir_is_file (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(WardenProfileStore) store = NULL;
  g_autoptr(WardenProfile) profile = make_profile ("nowhere", "ls", 0);
  g_autoptr(GError) error = NULL;
  g_autofree char *after = NULL;

  /* Where the folder should be, there is a file. */
  write_file (fixture->user_dir, "not a folder");
  store = warden_profile_store_new (fixture->user_dir);

  g_assert_false (warden_profile_store_save (store, profile, &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_IO);
  g_assert_nonnull (strstr (error->message, fixture->user_dir));
  g_assert_nonnull (strstr (error->message, "Check that the folder is writable"));

  after = read_file (fixture->user_dir);
  g_assert_cmpstr (after, ==, "not a folder");
}

/* What a crash in the middle of a save leaves: a complete profile and a
 * temporary file. The temporary file is ignored, and the next save works. */
static void
test_save_after_interrupted (Fixture       *fixture,
                             gconstpointer  data)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (fixture->user_dir);
  g_autoptr(WardenProfile) profile = make_profile ("crash", "ls", 0);
  g_autoptr(WardenProfile) loaded = NULL;
  g_autoptr(GPtrArray) profiles = NULL;
  g_autoptr(GPtrArray) errors = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *stray = user_file (fixture, "crash.json.Q7XK2B");
  g_autofree char *stray_bak = user_file (fixture, "crash.json.bak.H3ZZ9A");
  guint n_builtin = g_strv_length ((char **) warden_profile_store_builtin_ids ());

  g_assert_true (warden_profile_store_save (store, profile, &error));
  g_assert_no_error (error);
  write_file (stray, "{ \"allow\": [\"ls\", \"rm -");
  write_file (stray_bak, "{ \"al");

  profiles = warden_profile_store_list (store, &errors);
  g_assert_cmpuint (errors->len, ==, 0);
  g_assert_cmpuint (profiles->len, ==, n_builtin + 1);
  g_assert_cmpstr (warden_profile_get_id (g_ptr_array_index (profiles, n_builtin)), ==, "crash");

  loaded = warden_profile_store_lookup (store, "crash", &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (warden_profile_get_allow (loaded), ((const char * const []) { "ls", NULL }));

  g_assert_true (warden_profile_add_allow (loaded, "make", &error));
  g_assert_true (warden_profile_store_save (store, loaded, &error));
  g_assert_no_error (error);
  g_clear_object (&loaded);
  loaded = warden_profile_store_lookup (store, "crash", &error);
  g_assert_no_error (error);
  g_assert_true (g_strv_contains (warden_profile_get_allow (loaded), "make"));
}

/* The store */

static void
test_store_default_dir (void)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (NULL);
  g_autofree char *expected = NULL;

  /* G_TEST_OPTION_ISOLATE_DIRS gives each test its own $XDG_CONFIG_HOME,
   * which GLib hands out through g_get_user_config_dir(). */
  expected = g_build_filename (g_get_user_config_dir (), "warden", "profiles", NULL);
  g_assert_true (g_str_has_prefix (expected, g_get_tmp_dir ()));
  g_assert_cmpstr (warden_profile_store_get_user_dir (store), ==, expected);
}

static int
mode_of (const char *path)
{
  GStatBuf st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return st.st_mode & 07777;
}

/* Profiles say what runs without asking: nobody else may read or change
 * them. New ones are 0600 in 0700 folders; an older Warden's 0755 folders
 * and 0644 files are made private when the store starts. */
static void
test_store_private_modes (void)
{
  g_autofree char *warden_dir = g_build_filename (g_get_user_config_dir (), "warden", NULL);
  g_autofree char *dir = g_build_filename (warden_dir, "profiles", NULL);
  g_autofree char *old = g_build_filename (dir, "old.json", NULL);
  g_autofree char *backup = g_build_filename (dir, "old.json.bak", NULL);
  g_autofree char *fresh = g_build_filename (dir, "fresh.json", NULL);
  g_autoptr(WardenProfileStore) store = NULL;
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;

  umask (022);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_cmpint (g_chmod (warden_dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (old, "{ \"allow\": [\"ls\"] }", -1, NULL));
  g_assert_true (g_file_set_contents (backup, "{ \"allow\": [] }", -1, NULL));
  g_assert_cmpint (mode_of (old), ==, 0644);

  store = warden_profile_store_new (NULL);
  g_assert_cmpint (mode_of (warden_dir), ==, 0700);
  g_assert_cmpint (mode_of (dir), ==, 0700);
  g_assert_cmpint (mode_of (old), ==, 0600);
  g_assert_cmpint (mode_of (backup), ==, 0600);

  profile = warden_profile_new_from_data ("fresh", "{ \"allow\": [\"make\"] }", -1,
                                          "fresh.json", &error);
  g_assert_no_error (error);
  g_assert_true (warden_profile_store_save (store, profile, &error));
  g_assert_no_error (error);
  g_assert_cmpint (mode_of (fresh), ==, 0600);
  /* Saved again over the old one: still private. */
  g_clear_object (&profile);
  profile = warden_profile_store_lookup (store, "old", &error);
  g_assert_no_error (error);
  g_assert_true (warden_profile_store_save (store, profile, &error));
  g_assert_cmpint (mode_of (old), ==, 0600);
  g_assert_cmpint (mode_of (backup), ==, 0600);
}

/* A store at a folder of its own choosing (a test's, a Flatpak's) is
 * created private too. */
static void
test_store_private_new_dir (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("warden-profiles-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (tmp, "a", "profiles", NULL);
  g_autofree char *file = g_build_filename (dir, "mine.json", NULL);
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (dir);
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;

  umask (022);
  profile = warden_profile_new_from_data ("mine", "{ \"allow\": [\"make\"] }", -1,
                                          "mine.json", &error);
  g_assert_no_error (error);
  g_assert_true (warden_profile_store_save (store, profile, &error));
  g_assert_cmpint (mode_of (dir), ==, 0700);
  g_assert_cmpint (mode_of (file), ==, 0600);
}

static void
test_store_list_order (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (fixture->user_dir);
  g_autoptr(GPtrArray) profiles = NULL;
  g_autoptr(GPtrArray) errors = NULL;
  g_autoptr(GError) error = NULL;
  const char * const *builtin = warden_profile_store_builtin_ids ();
  static const char * const user[] = { "zeta", "alpha", "mid-1", "mid.0", NULL };
  static const char * const sorted[] = { "alpha", "mid-1", "mid.0", "zeta", NULL };
  guint n_builtin = g_strv_length ((char **) builtin);

  for (guint i = 0; user[i] != NULL; i++)
    {
      g_autoptr(WardenProfile) profile = make_profile (user[i], "ls", 0);

      g_assert_true (warden_profile_store_save (store, profile, &error));
      g_assert_no_error (error);
    }

  profiles = warden_profile_store_list (store, &errors);
  g_assert_cmpuint (errors->len, ==, 0);
  g_assert_cmpuint (profiles->len, ==, n_builtin + 4);

  for (guint i = 0; i < n_builtin; i++)
    {
      WardenProfile *profile = g_ptr_array_index (profiles, i);

      g_assert_cmpstr (warden_profile_get_id (profile), ==, builtin[i]);
      g_assert_true (warden_profile_get_builtin (profile));
    }

  for (guint i = 0; sorted[i] != NULL; i++)
    {
      WardenProfile *profile = g_ptr_array_index (profiles, n_builtin + i);

      g_assert_cmpstr (warden_profile_get_id (profile), ==, sorted[i]);
      g_assert_false (warden_profile_get_builtin (profile));
    }
}

static void
test_store_list_corrupt (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (fixture->user_dir);
  g_autoptr(GPtrArray) profiles = NULL;
  g_autoptr(GPtrArray) errors = NULL;
  g_autofree char *bad = user_file (fixture, "bad.json");
  g_autofree char *worse = user_file (fixture, "worse.json");
  g_autofree char *good = user_file (fixture, "good.json");
  g_autofree char *misnamed = user_file (fixture, "Good Too.json");
  guint n_builtin = g_strv_length ((char **) warden_profile_store_builtin_ids ());
  GError *first;
  GError *second;
  GError *third;

  make_user_dir (fixture);
  write_file (bad, "{ \"allow\": [\"ls\", 3] }");
  write_file (good, "{ \"allow\": [\"ls\"] }");
  write_file (worse, "this is not json");
  write_file (misnamed, "{ \"allow\": [\"ls\"] }");

  profiles = warden_profile_store_list (store, &errors);
  g_assert_cmpuint (profiles->len, ==, n_builtin + 1);
  g_assert_cmpstr (warden_profile_get_id (g_ptr_array_index (profiles, n_builtin)), ==, "good");

  /* In the order of the file names. */
  g_assert_cmpuint (errors->len, ==, 3);
  first = g_ptr_array_index (errors, 0);
  second = g_ptr_array_index (errors, 1);
  third = g_ptr_array_index (errors, 2);
  g_assert_error (first, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID);
  g_assert_nonnull (strstr (first->message, misnamed));
  g_assert_nonnull (strstr (first->message, "rename it"));
  g_assert_error (second, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID);
  g_assert_nonnull (strstr (second->message, bad));
  g_assert_nonnull (strstr (second->message, "key “allow”: item 2 is not a string"));
  g_assert_error (third, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_PARSE);
  g_assert_nonnull (strstr (third->message, worse));

  /* @errors may be NULL. */
  g_clear_pointer (&profiles, g_ptr_array_unref);
  profiles = warden_profile_store_list (store, NULL);
  g_assert_cmpuint (profiles->len, ==, n_builtin + 1);
}

static void
test_store_list_ignores (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (fixture->user_dir);
  g_autoptr(GPtrArray) profiles = NULL;
  g_autoptr(GPtrArray) errors = NULL;
  static const char * const ignored[] = {
    "x.json.bak", "x.json.ABC123", ".hidden.json", "notes.txt", "x.json~", NULL
  };
  g_autofree char *real = user_file (fixture, "x.json");
  guint n_builtin = g_strv_length ((char **) warden_profile_store_builtin_ids ());

  make_user_dir (fixture);
  write_file (real, "{}");
  for (guint i = 0; ignored[i] != NULL; i++)
    {
      g_autofree char *path = user_file (fixture, ignored[i]);

      write_file (path, "not json at all");
    }

  profiles = warden_profile_store_list (store, &errors);
  g_assert_cmpuint (errors->len, ==, 0);
  g_assert_cmpuint (profiles->len, ==, n_builtin + 1);
  g_assert_cmpstr (warden_profile_get_id (g_ptr_array_index (profiles, n_builtin)), ==, "x");
}

static void
test_store_list_no_dir (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (fixture->user_dir);
  g_autoptr(GPtrArray) profiles = NULL;
  g_autoptr(GPtrArray) errors = NULL;

  profiles = warden_profile_store_list (store, &errors);
  g_assert_cmpuint (errors->len, ==, 0);
  g_assert_cmpuint (profiles->len, ==,
                    g_strv_length ((char **) warden_profile_store_builtin_ids ()));
  /* Listing does not create the folder. */
  g_assert_false (g_file_test (fixture->user_dir, G_FILE_TEST_EXISTS));
}

static void
test_store_builtin_not_shadowed (Fixture       *fixture,
                                 gconstpointer  data)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (fixture->user_dir);
  g_autoptr(GPtrArray) profiles = NULL;
  g_autoptr(GPtrArray) errors = NULL;
  g_autoptr(WardenProfile) node = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = user_file (fixture, "node.json");
  guint n_builtin = g_strv_length ((char **) warden_profile_store_builtin_ids ());
  GError *listed;

  make_user_dir (fixture);
  write_file (path, "{ \"mode\": \"allow-always\" }");

  profiles = warden_profile_store_list (store, &errors);
  g_assert_cmpuint (profiles->len, ==, n_builtin);
  g_assert_cmpuint (errors->len, ==, 1);
  listed = g_ptr_array_index (errors, 0);
  g_assert_nonnull (strstr (listed->message, path));
  g_assert_nonnull (strstr (listed->message, "rename it"));

  node = warden_profile_store_lookup (store, "node", &error);
  g_assert_no_error (error);
  g_assert_true (warden_profile_get_builtin (node));
  g_assert_cmpint (warden_profile_get_mode (node), ==, WARDEN_MODE_ALLOWLIST);
}

static void
test_store_lookup_not_found (Fixture       *fixture,
                             gconstpointer  data)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (fixture->user_dir);
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;

  profile = warden_profile_store_lookup (store, "nothing-here", &error);
  g_assert_null (profile);
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "“nothing-here”"));

  /* An id that is not one never reaches the file system. */
  g_clear_error (&error);
  profile = warden_profile_store_lookup (store, "../../etc/passwd", &error);
  g_assert_null (profile);
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_NOT_FOUND);
}

static void
test_store_lookup_corrupt (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (fixture->user_dir);
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = user_file (fixture, "broken.json");

  make_user_dir (fixture);
  write_file (path, "{ \"mode\": \"sometimes\", \"allow\": [\"ls\"] }");

  profile = warden_profile_store_lookup (store, "broken", &error);
  g_assert_null (profile);
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, "key “mode”"));
}

static void
test_store_save_refused (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (fixture->user_dir);
  g_autoptr(WardenProfile) builtin = NULL;
  g_autoptr(WardenProfile) impostor = warden_profile_new ("trusted");
  g_autoptr(GError) error = NULL;

  builtin = warden_profile_store_lookup (store, "read-only", &error);
  g_assert_no_error (error);
  warden_profile_add_allow (builtin, "rm *", &error);

  g_assert_false (warden_profile_store_save (store, builtin, &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_READ_ONLY);
  g_assert_nonnull (strstr (error->message, "another id"));
  g_clear_error (&error);

  /* A user profile cannot take a built-in id either. */
  g_assert_false (warden_profile_store_save (store, impostor, &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_READ_ONLY);
  g_assert_nonnull (strstr (error->message, "another id"));

  g_assert_false (g_file_test (fixture->user_dir, G_FILE_TEST_EXISTS));
}

static void
test_store_delete (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (fixture->user_dir);
  g_autoptr(WardenProfile) profile = make_profile ("gone", "ls", 0);
  g_autoptr(WardenProfile) lookup = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *backup = user_file (fixture, "gone.json.bak");

  g_assert_true (warden_profile_store_save (store, profile, &error));
  g_assert_true (warden_profile_store_delete (store, "gone", &error));
  g_assert_no_error (error);

  lookup = warden_profile_store_lookup (store, "gone", &error);
  g_assert_null (lookup);
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_NOT_FOUND);
  g_clear_error (&error);
  /* Kept aside, so it can be brought back. */
  g_assert_true (g_file_test (backup, G_FILE_TEST_IS_REGULAR));

  g_assert_false (warden_profile_store_delete (store, "gone", &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_NOT_FOUND);
  g_clear_error (&error);

  g_assert_false (warden_profile_store_delete (store, "strict", &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_READ_ONLY);
}

static void
async_ready_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

static GAsyncResult *
wait_for_result (GAsyncResult **result)
{
  while (*result == NULL)
    g_main_context_iteration (NULL, TRUE);

  return *result;
}

static void
test_store_lookup_async (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (fixture->user_dir);
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  warden_profile_store_lookup_async (store, "node", NULL, async_ready_cb, &result);
  profile = warden_profile_store_lookup_finish (store, wait_for_result (&result), &error);
  g_assert_no_error (error);
  g_assert_true (strv_equal (warden_profile_get_allow (profile), node_allow));
  g_clear_object (&result);

  warden_profile_store_lookup_async (store, "missing", NULL, async_ready_cb, &result);
  g_assert_null (warden_profile_store_lookup_finish (store, wait_for_result (&result), &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_NOT_FOUND);
}

static void
test_store_save_async (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (fixture->user_dir);
  g_autoptr(WardenProfile) profile = make_profile ("later", "ls", 0);
  g_autoptr(WardenProfile) builtin = NULL;
  g_autoptr(WardenProfile) saved = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  warden_profile_store_save_async (store, profile, NULL, async_ready_cb, &result);
  /* What is saved is the profile as it was when the save was asked for. */
  warden_profile_add_allow (profile, "rm *", &error);
  g_assert_true (warden_profile_store_save_finish (store, wait_for_result (&result), &error));
  g_assert_no_error (error);
  g_clear_object (&result);

  saved = warden_profile_store_lookup (store, "later", &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (warden_profile_get_allow (saved), ((const char * const []) { "ls", NULL }));

  builtin = warden_profile_store_lookup (store, "python", &error);
  g_assert_no_error (error);
  warden_profile_store_save_async (store, builtin, NULL, async_ready_cb, &result);
  g_assert_false (warden_profile_store_save_finish (store, wait_for_result (&result), &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_READ_ONLY);
}

static void
test_store_async_cancelled (Fixture       *fixture,
                            gconstpointer  data)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (fixture->user_dir);
  g_autoptr(WardenProfile) profile = make_profile ("cancelled", "ls", 0);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = user_file (fixture, "cancelled.json");

  g_cancellable_cancel (cancellable);

  warden_profile_store_save_async (store, profile, cancellable, async_ready_cb, &result);
  g_assert_false (warden_profile_store_save_finish (store, wait_for_result (&result), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_clear_error (&error);
  g_clear_object (&result);

  warden_profile_store_lookup_async (store, "node", cancellable, async_ready_cb, &result);
  g_assert_null (warden_profile_store_lookup_finish (store, wait_for_result (&result), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* Claude Code import */

static void
assert_rule (const char         *rule,
             const char * const *expected)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) patterns = NULL;

  patterns = warden_claude_rule_to_patterns (rule, &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (patterns, expected);
}

static void
test_claude_rule_prefix (void)
{
  assert_rule ("Bash(npm run test:*)",
               (const char * const []) { "npm run test", "npm run test *", NULL });
  assert_rule ("Bash(git diff:*)", (const char * const []) { "git diff", "git diff *", NULL });
  assert_rule ("Bash(ls :*)", (const char * const []) { "ls", "ls *", NULL });
}

static void
test_claude_rule_exact (void)
{
  assert_rule ("Bash(ls)", (const char * const []) { "ls", NULL });
  assert_rule ("Bash(npm run build)", (const char * const []) { "npm run build", NULL });
  assert_rule ("Bash(echo (hi))", (const char * const []) { "echo (hi)", NULL });
}

static void
test_claude_rule_everything (void)
{
  assert_rule ("Bash", (const char * const []) { "*", NULL });
  assert_rule ("Bash()", (const char * const []) { "*", NULL });
  assert_rule ("Bash(*)", (const char * const []) { "*", NULL });
  assert_rule ("Bash(:*)", (const char * const []) { "*", NULL });
}

static void
test_claude_rule_wildcard (void)
{
  assert_rule ("Bash(git diff *)", (const char * const []) { "git diff *", NULL });
  assert_rule ("Bash(docker * ps)", (const char * const []) { "docker * ps", NULL });
}

static void
test_claude_rule_not_shell (void)
{
  static const char * const rules[] = {
    "Read(./src/**)", "Edit", "Edit(docs/**)", "WebFetch(domain:example.com)", "WebSearch",
    "mcp__github__create_issue", "bash(ls)", "Bashful(ls)", "Task", NULL
  };

  for (guint i = 0; rules[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      g_auto(GStrv) patterns = NULL;

      patterns = warden_claude_rule_to_patterns (rules[i], &error);
      g_assert_null (patterns);
      g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID);
      g_assert_nonnull (strstr (error->message, rules[i]));
      g_assert_nonnull (strstr (error->message, "not a shell command rule"));
    }
}

static void
test_claude_rule_malformed (void)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) patterns = NULL;

  patterns = warden_claude_rule_to_patterns ("Bash(ls", &error);
  g_assert_null (patterns);
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID);
  g_clear_error (&error);

  patterns = warden_claude_rule_to_patterns ("Bash(ls\x01)", &error);
  g_assert_null (patterns);
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID);
}

static void
test_claude_settings (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (fixture->user_dir);
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(WardenProfile) reloaded = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) skipped = NULL;
  g_autofree char *settings = read_file (PROFILE_FIXTURES "/claude-settings.json");
  g_autofree char *joined = NULL;
  static const char * const allow[] = {
    "npm run lint", "npm run test", "npm run test *", "git diff", "git diff *", "git status",
    "ls", "ls *", NULL
  };
  static const char * const deny[] = { "curl", "curl *", "git push --force *", NULL };
  static const char * const ask[] = { "git push", "git push *", NULL };

  profile = warden_profile_new_from_claude_data ("from-claude", settings, -1,
                                                 PROFILE_FIXTURES "/claude-settings.json",
                                                 &skipped, &error);
  g_assert_no_error (error);

  g_assert_cmpstr (warden_profile_get_id (profile), ==, "from-claude");
  g_assert_cmpstr (warden_profile_get_name (profile), ==, "Imported from Claude Code");
  g_assert_nonnull (strstr (warden_profile_get_description (profile),
                            PROFILE_FIXTURES "/claude-settings.json"));
  g_assert_cmpint (warden_profile_get_mode (profile), ==, WARDEN_MODE_ALLOWLIST);
  g_assert_cmpstrv (warden_profile_get_allow (profile), allow);
  g_assert_cmpstrv (warden_profile_get_deny (profile), deny);
  /* Claude's ask rules ask here too, where an allow pattern would match. */
  g_assert_cmpstrv (warden_profile_get_ask (profile), ask);

  /* Everything left out is reported, with the list it came from. */
  g_assert_cmpuint (g_strv_length (skipped), ==, 7);
  joined = g_strjoinv ("\n", skipped);
  g_assert_nonnull (strstr (joined, "Read(~/.zshrc) (in “allow”): not a shell command rule"));
  g_assert_nonnull (strstr (joined, "Edit(src/**) (in “allow”)"));
  g_assert_nonnull (strstr (joined, "WebFetch(domain:example.com) (in “allow”)"));
  g_assert_nonnull (strstr (joined, "mcp__github__list_issues (in “allow”)"));
  g_assert_nonnull (strstr (joined, "Read(./.env) (in “deny”)"));
  g_assert_nonnull (strstr (joined, "Read(./secrets/**) (in “deny”)"));
  g_assert_null (strstr (joined, "git push"));
  g_assert_nonnull (strstr (joined, "defaultMode “acceptEdits”"));

  /* The result is an ordinary user profile. */
  g_assert_true (warden_profile_store_save (store, profile, &error));
  g_assert_no_error (error);
  reloaded = warden_profile_store_lookup (store, "from-claude", &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (warden_profile_get_allow (reloaded), allow);
  g_assert_cmpstrv (warden_profile_get_deny (reloaded), deny);
  g_assert_cmpstrv (warden_profile_get_ask (reloaded), ask);
}

static void
assert_claude_fails (const char *data,
                     int         code,
                     const char *part)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) skipped = NULL;

  profile = warden_profile_new_from_claude_data ("imported", data, -1, "/p/settings.json",
                                                 &skipped, &error);
  g_assert_null (profile);
  g_assert_null (skipped);
  g_assert_error (error, WARDEN_POLICY_ERROR, code);
  g_assert_nonnull (strstr (error->message, "/p/settings.json"));
  if (strstr (error->message, part) == NULL)
    g_error ("“%s” not in the error message “%s”", part, error->message);
}

static void
test_claude_no_permissions (void)
{
  assert_claude_fails ("{ \"model\": \"opus\", \"env\": {} }", WARDEN_POLICY_ERROR_INVALID,
                       "no permission rules were found");
  assert_claude_fails ("{ \"permissions\": [\"Bash(ls)\"] }", WARDEN_POLICY_ERROR_INVALID,
                       "key “permissions”");
}

static void
test_claude_malformed (void)
{
  assert_claude_fails ("{ \"permissions\": { \"allow\": [\"Bash(ls)\" }", WARDEN_POLICY_ERROR_PARSE,
                       "is not valid JSON");
  assert_claude_fails ("[]", WARDEN_POLICY_ERROR_INVALID, "is not a JSON object");
  assert_claude_fails ("{ \"permissions\": { \"allow\": \"Bash(ls)\" } }",
                       WARDEN_POLICY_ERROR_INVALID, "key “permissions.allow”");
  assert_claude_fails ("{ \"permissions\": { \"deny\": [\"Bash(rm:*)\", 7] } }",
                       WARDEN_POLICY_ERROR_INVALID, "key “permissions.deny”: item 2");
  /* A deny rule that cannot be carried over must not silently vanish. */
  assert_claude_fails ("{ \"permissions\": { \"deny\": [\"Bash(rm -rf\\u0007 *)\"] } }",
                       WARDEN_POLICY_ERROR_INVALID, "key “permissions.deny”: item 1");
  assert_claude_fails ("{ \"permissions\": { \"deny\": [\"Bash(rm\\u0000 *)\"] } }",
                       WARDEN_POLICY_ERROR_INVALID, "NUL character");
}

static void
test_claude_empty_permissions (void)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) skipped = NULL;

  profile = warden_profile_new_from_claude_data ("imported", "{ \"permissions\": {} }", -1,
                                                 NULL, &skipped, &error);
  g_assert_no_error (error);
  g_assert_nonnull (skipped);
  g_assert_cmpuint (g_strv_length (skipped), ==, 0);
  g_assert_cmpuint (g_strv_length ((char **) warden_profile_get_allow (profile)), ==, 0);
  g_assert_cmpint (warden_profile_get_mode (profile), ==, WARDEN_MODE_ALLOWLIST);
}

static void
test_edit_set_patterns (void)
{
  g_autoptr(WardenProfile) profile = warden_profile_new ("order");
  g_autoptr(GError) error = NULL;
  static const char * const first[] = { "ls", "cat *", "make *", NULL };
  static const char * const reordered[] = { "make *", "ls", "cat *", NULL };
  static const char * const with_bad[] = { "git *", "", "ls", NULL };
  static const char * const repeated[] = { "ls", "ls", "cat *", NULL };
  static const char * const deduplicated[] = { "ls", "cat *", NULL };
  guint allow_count = 0;

  g_signal_connect (profile, "notify::allow", G_CALLBACK (count_notify_cb), &allow_count);

  g_assert_true (warden_profile_set_allow (profile, first, &error));
  g_assert_no_error (error);
  g_assert_true (strv_equal (warden_profile_get_allow (profile), first));
  g_assert_cmpuint (allow_count, ==, 1);

  /* The order is what the user sees and what matches first: it is kept. */
  g_assert_true (warden_profile_set_allow (profile, reordered, &error));
  g_assert_true (strv_equal (warden_profile_get_allow (profile), reordered));
  g_assert_cmpuint (allow_count, ==, 2);

  /* The same list again is no change. */
  g_assert_true (warden_profile_set_allow (profile, reordered, &error));
  g_assert_cmpuint (allow_count, ==, 2);

  /* One bad pattern and nothing changes, and the error says which. */
  g_assert_false (warden_profile_set_allow (profile, with_bad, &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "2"));
  g_clear_error (&error);
  g_assert_true (strv_equal (warden_profile_get_allow (profile), reordered));
  g_assert_cmpuint (allow_count, ==, 2);

  g_assert_true (warden_profile_set_deny (profile, repeated, &error));
  g_assert_true (strv_equal (warden_profile_get_deny (profile), deduplicated));

  g_assert_true (warden_profile_set_deny (profile, NULL, &error));
  g_assert_cmpuint (g_strv_length ((char **) warden_profile_get_deny (profile)), ==, 0);
  g_assert_true (strv_equal (warden_profile_get_allow (profile), reordered));
}

/* Ask rules: patterns that ask even where an allow pattern matches. */

static void
test_ask_load (void)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(WardenProfile) older = NULL;
  g_autoptr(GError) error = NULL;
  static const char * const ask[] = { "git push", "git push *", NULL };

  profile = load ("{ \"allow\": [\"git *\"], \"ask\": [\"git push\", \"git push *\", "
                  "\"git push\"], \"deny\": [\"git push --force *\"] }", &error);
  g_assert_no_error (error);
  /* Repeats go quietly, as in the other lists. */
  g_assert_cmpstrv (warden_profile_get_ask (profile), ask);
  g_assert_cmpstrv (warden_profile_get_allow (profile),
                    ((const char * const []) { "git *", NULL }));

  /* A profile without the key asks for nothing more. */
  older = load ("{ \"allow\": [\"git *\"] }", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length ((char **) warden_profile_get_ask (older)), ==, 0);
}

static void
test_ask_malformed (void)
{
  assert_load_fails ("{ \"ask\": \"git push *\" }", WARDEN_POLICY_ERROR_INVALID,
                     "key “ask”: is a string, not a list of patterns", NULL);
  assert_load_fails ("{ \"ask\": { \"git\": true } }", WARDEN_POLICY_ERROR_INVALID,
                     "key “ask”: is an object, not a list of patterns", NULL);
  assert_load_fails ("{ \"ask\": [\"git push *\", 7] }", WARDEN_POLICY_ERROR_INVALID,
                     "key “ask”: item 2 is not a string (it is a number)", NULL);
  assert_load_fails ("{ \"ask\": [\"\"] }", WARDEN_POLICY_ERROR_INVALID,
                     "key “ask”: item 1 is not a valid pattern", NULL);
  assert_load_fails ("{ \"ask\": [\"git push\\u0007 *\"] }", WARDEN_POLICY_ERROR_INVALID,
                     "key “ask”: item 1 is not a valid pattern", NULL);
  /* json-glib would cut it to "git push", which asks for less. */
  assert_load_fails ("{ \"ask\": [\"ls\", \"git push\\u0000 *\"] }", WARDEN_POLICY_ERROR_INVALID,
                     "key “ask”: item 2 contains a NUL character", NULL);
}

static void
test_ask_round_trip (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (fixture->user_dir);
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(WardenProfile) plain = NULL;
  g_autoptr(WardenProfile) copy = NULL;
  g_autoptr(WardenProfile) reloaded = NULL;
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(JsonObject) plain_object = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *written = NULL;
  g_autofree char *plain_data = NULL;
  static const char * const ask[] = { "git push *", "npm publish*", NULL };

  profile = load ("{ \"allow\": [\"git *\"], \"ask\": [\"git push *\", \"npm publish*\"], "
                  "\"x-later\": { \"ask\": 1 } }", &error);
  g_assert_no_error (error);
  written = warden_profile_to_data (profile, NULL);
  object = parse_object (written);
  g_assert_true (json_object_has_member (object, "ask"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (object, "ask")), ==, 2);
  /* Unknown keys are still kept beside it. */
  g_assert_true (json_object_has_member (object, "x-later"));

  /* Files without ask rules are written as they were. */
  plain = load ("{ \"allow\": [\"ls\"] }", &error);
  g_assert_no_error (error);
  plain_data = warden_profile_to_data (plain, NULL);
  plain_object = parse_object (plain_data);
  g_assert_false (json_object_has_member (plain_object, "ask"));

  /* A copy keeps them, and so does the store. */
  copy = warden_profile_copy (profile, "with-ask");
  g_assert_cmpstrv (warden_profile_get_ask (copy), ask);
  g_assert_true (warden_profile_store_save (store, copy, &error));
  g_assert_no_error (error);
  reloaded = warden_profile_store_lookup (store, "with-ask", &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (warden_profile_get_ask (reloaded), ask);
}

static void
test_ask_edit (void)
{
  g_autoptr(WardenProfile) profile = warden_profile_new ("edit-ask");
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) property = NULL;
  guint ask_count = 0, allow_count = 0;
  static const char * const both[] = { "git push *", "npm publish *", NULL };
  static const char * const with_bad[] = { "git push *", "", NULL };

  g_signal_connect (profile, "notify::ask", G_CALLBACK (count_notify_cb), &ask_count);
  g_signal_connect (profile, "notify::allow", G_CALLBACK (count_notify_cb), &allow_count);

  g_assert_true (warden_profile_add_ask (profile, "git push *", &error));
  g_assert_true (warden_profile_add_ask (profile, "git push *", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ask_count, ==, 1);
  g_assert_cmpuint (allow_count, ==, 0);
  g_assert_false (warden_profile_add_ask (profile, "git\x01", &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID);
  g_clear_error (&error);

  g_assert_true (warden_profile_set_ask (profile, both, &error));
  g_assert_cmpuint (ask_count, ==, 2);
  g_object_get (profile, "ask", &property, NULL);
  g_assert_cmpstrv (property, both);

  /* One bad pattern and nothing changes. */
  g_assert_false (warden_profile_set_ask (profile, with_bad, &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_cmpstrv (warden_profile_get_ask (profile), both);

  g_assert_true (warden_profile_remove_ask (profile, "npm publish *"));
  g_assert_false (warden_profile_remove_ask (profile, "npm publish *"));
  g_assert_cmpuint (ask_count, ==, 3);
  g_assert_cmpstrv (warden_profile_get_ask (profile),
                    ((const char * const []) { "git push *", NULL }));
}

/* The policy of a profile asks where its ask rules say, whatever allows it. */
static void
test_ask_policy (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(WardenPolicy) policy = NULL;
  g_autoptr(WardenDecision) push = NULL;
  g_autoptr(WardenDecision) status = NULL;

  profile = load ("{ \"mode\": \"allow-always\", \"ask\": [\"git push *\"] }", &error);
  g_assert_no_error (error);
  policy = warden_policy_new_for_profile (profile);
  push = warden_policy_check (policy, "git push origin main", -1, NULL);
  g_assert_cmpint (warden_decision_get_verdict (push), ==, WARDEN_VERDICT_ASK);
  g_assert_nonnull (strstr (warden_decision_get_reason (push), "ask rule “git push *”"));
  status = warden_policy_check (policy, "git status", -1, NULL);
  g_assert_cmpint (warden_decision_get_verdict (status), ==, WARDEN_VERDICT_ALLOW);
}

/* Codex import */

static void
test_codex_rules (void)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) notes = NULL;
  g_autofree char *rules = read_file (PROFILE_FIXTURES "/codex-default.rules");
  g_autofree char *joined = NULL;
  static const char * const allow[] = {
    "git", "git *", "npm run test", "npm run test *", "npm run lint", "npm run lint *", NULL
  };
  static const char * const ask[] = { "git push", "git push *", "git fetch", "git fetch *",
                                      NULL };
  static const char * const deny[] = { "git push --force", "git push --force *", NULL };

  profile = warden_profile_new_from_codex_data ("from-codex", rules, -1,
                                                PROFILE_FIXTURES "/codex-default.rules",
                                                &notes, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (warden_profile_get_name (profile), ==, "Imported from Codex");
  g_assert_nonnull (strstr (warden_profile_get_description (profile), "codex-default.rules"));
  g_assert_cmpint (warden_profile_get_mode (profile), ==, WARDEN_MODE_ALLOWLIST);
  g_assert_cmpstrv (warden_profile_get_allow (profile), allow);
  g_assert_cmpstrv (warden_profile_get_ask (profile), ask);
  g_assert_cmpstrv (warden_profile_get_deny (profile), deny);

  /* The network rule is said to be left out, with where it is. */
  joined = g_strjoinv ("\n", notes);
  g_assert_cmpuint (g_strv_length (notes), ==, 1);
  g_assert_nonnull (strstr (joined, "codex-default.rules:25:1: network_rule"));
  g_assert_nonnull (strstr (joined, "registry.npmjs.org"));
}

/* Where Warden is stricter than Codex the import goes on and says so; a
 * rule Warden cannot name exactly is left out when leaving it out only
 * makes Warden ask. */
static void
test_codex_stricter (void)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) notes = NULL;
  g_autofree char *joined = NULL;

  profile = warden_profile_new_from_codex_data (
    "stricter",
    "prefix_rule(pattern = [\"bash\", \"-lc\"], match = [\"bash -lc 'ls'\"])\n"
    "prefix_rule(pattern = [\"ls\", \"*.txt\"], match = [[\"ls\", \"*.txt\"]])\n"
    "prefix_rule(pattern = [\"rm\", \"*\"], decision = \"forbidden\")\n",
    -1, "x.rules", &notes, &error);
  g_assert_no_error (error);
  joined = g_strjoinv ("\n", notes);
  g_test_message ("%s", joined);
  /* bash -l reads its startup files first: Warden asks. */
  g_assert_nonnull (strstr (joined, "x.rules:1:49: match example “bash -lc 'ls'”: Codex allows "
                                    "it, this profile asks"));
  /* "*" is a wildcard in a Warden pattern: allowing by it would allow more. */
  g_assert_nonnull (strstr (joined, "x.rules:2:1: prefix_rule(): not imported"));
  g_assert_false (g_strv_contains (warden_profile_get_allow (profile), "ls *.txt"));
  g_assert_nonnull (strstr (joined, "x.rules:2:49: match example “ls *.txt”"));
  /* A deny or ask rule with it is imported: it only refuses more. */
  g_assert_true (g_strv_contains (warden_profile_get_deny (profile), "rm * *"));
  g_assert_nonnull (strstr (joined, "x.rules:3:1: prefix_rule(): “*” is a wildcard"));
}

static void
assert_codex_fails (const char *data,
                    int         code,
                    ...)
{
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) notes = NULL;
  const char *part;
  va_list args;

  profile = warden_profile_new_from_codex_data ("imported", data, -1, "/p/default.rules",
                                                &notes, &error);
  g_assert_null (profile);
  g_assert_null (notes);
  g_assert_error (error, WARDEN_POLICY_ERROR, code);
  g_test_message ("%s", error->message);
  va_start (args, code);
  while ((part = va_arg (args, const char *)) != NULL)
    if (strstr (error->message, part) == NULL)
      g_error ("“%s” not in the error message “%s”", part, error->message);
  va_end (args);
}

static void
test_codex_syntax (void)
{
  assert_codex_fails ("prefix_rule(pattern = [\"git\" \"status\"])", WARDEN_POLICY_ERROR_PARSE,
                      "/p/default.rules:1:30: ", "“,”", NULL);
  assert_codex_fails ("prefix_rule(\n  pattern = [\"git],\n)", WARDEN_POLICY_ERROR_PARSE,
                      "/p/default.rules:2:14: ", "not closed", NULL);
  assert_codex_fails ("\n\nallowed = [\"git\"]", WARDEN_POLICY_ERROR_PARSE,
                      "/p/default.rules:3:1: ", "prefix_rule()", NULL);
  assert_codex_fails ("prefix_rule(pattern = [\"a\"]", WARDEN_POLICY_ERROR_PARSE,
                      "/p/default.rules:1:28: ", "“)”", NULL);
  assert_codex_fails ("prefix_rule(pattern = [\"a\"]) )", WARDEN_POLICY_ERROR_PARSE,
                      "/p/default.rules:1:30: ", NULL);
  assert_codex_fails ("prefix_rule(pattern = [\"a\\q\"])", WARDEN_POLICY_ERROR_PARSE,
                      "/p/default.rules:1:26: ", "\\q", NULL);
  assert_codex_fails ("prefix_rule(pattern = [1])", WARDEN_POLICY_ERROR_PARSE,
                      "/p/default.rules:1:24: ", NULL);
  assert_codex_fails ("prefix_rule(pattern = [\"\xff\"])", WARDEN_POLICY_ERROR_PARSE,
                      "/p/default.rules:1:25: ", "UTF-8", NULL);
}

static void
test_codex_invalid (void)
{
  assert_codex_fails ("host_rule(host = \"x\")", WARDEN_POLICY_ERROR_INVALID,
                      "/p/default.rules:1:1: ", "host_rule", NULL);
  assert_codex_fails ("prefix_rule(patern = [\"git\"])", WARDEN_POLICY_ERROR_INVALID,
                      "/p/default.rules:1:13: ", "“patern”", NULL);
  assert_codex_fails ("prefix_rule([\"git\"])", WARDEN_POLICY_ERROR_INVALID,
                      "/p/default.rules:1:13: ", "pattern =", NULL);
  assert_codex_fails ("prefix_rule(decision = \"allow\")", WARDEN_POLICY_ERROR_INVALID,
                      "/p/default.rules:1:1: ", "pattern", NULL);
  assert_codex_fails ("prefix_rule(pattern = [])", WARDEN_POLICY_ERROR_INVALID,
                      "/p/default.rules:1:23: ", "empty", NULL);
  assert_codex_fails ("prefix_rule(pattern = [\"git\", []])", WARDEN_POLICY_ERROR_INVALID,
                      "/p/default.rules:1:31: ", "empty", NULL);
  assert_codex_fails ("prefix_rule(pattern = [\"git\", [[\"a\"]]])", WARDEN_POLICY_ERROR_INVALID,
                      "/p/default.rules:1:32: ", NULL);
  assert_codex_fails ("prefix_rule(pattern = [\"rm\"], decision = \"deny\")",
                      WARDEN_POLICY_ERROR_INVALID, "/p/default.rules:1:42: ", "“deny”",
                      "allow", "prompt", "forbidden", NULL);
  assert_codex_fails ("prefix_rule(pattern = [\"rm\"], justification = \" \")",
                      WARDEN_POLICY_ERROR_INVALID, "/p/default.rules:1:47: ", "justification",
                      NULL);
  assert_codex_fails ("prefix_rule(pattern = [\"rm\"], pattern = [\"ls\"])",
                      WARDEN_POLICY_ERROR_INVALID, "/p/default.rules:1:31: ", "twice", NULL);
  /* A rule that asks or refuses must not vanish: one Warden cannot carry over fails. */
  assert_codex_fails ("prefix_rule(pattern = [\"rm\\x07\"], decision = \"forbidden\")",
                      WARDEN_POLICY_ERROR_INVALID, "/p/default.rules:1:1: ", NULL);
  assert_codex_fails ("prefix_rule(pattern = [\"a\", [\"1\", \"2\", \"3\", \"4\"], "
                      "[\"1\", \"2\", \"3\", \"4\"], [\"1\", \"2\", \"3\", \"4\"], "
                      "[\"1\", \"2\", \"3\", \"4\"], [\"1\", \"2\"]])",
                      WARDEN_POLICY_ERROR_INVALID, "/p/default.rules:1:1: ", "too many", NULL);
}

/* Examples that do not hold fail the import, every one listed. */
static void
test_codex_examples_fail (void)
{
  assert_codex_fails ("prefix_rule(\n"
                      "    pattern = [\"gh\", \"pr\", \"view\"],\n"
                      "    decision = \"prompt\",\n"
                      "    match = [\"gh pr view 7\", \"gh pr --repo x view 7\"],\n"
                      "    not_match = [\"gh pr view\"],\n"
                      ")\n",
                      WARDEN_POLICY_ERROR_INVALID,
                      "2 examples do not hold",
                      "/p/default.rules:4:30: match example “gh pr --repo x view 7” does not "
                      "match the rule's pattern",
                      "/p/default.rules:5:18: not_match example “gh pr view” matches the rule's "
                      "pattern", NULL);
  assert_codex_fails ("prefix_rule(pattern = [\"ls\"], match = [\"ls 'a\"])",
                      WARDEN_POLICY_ERROR_INVALID, "/p/default.rules:1:40: ", NULL);
  assert_codex_fails ("prefix_rule(pattern = [\"ls\"], match = [[]])",
                      WARDEN_POLICY_ERROR_INVALID, "/p/default.rules:1:40: ", "empty", NULL);
}

static void
test_store_rename (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (fixture->user_dir);
  g_autoptr(WardenProfile) profile = make_profile ("before", "make *", 0);
  g_autoptr(WardenProfile) other = make_profile ("taken", "ls", 0);
  g_autoptr(WardenProfile) lookup = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *old_path = user_file (fixture, "before.json");
  g_autofree char *new_path = user_file (fixture, "after.json");

  warden_profile_set_description (profile, "kept across the rename");
  g_assert_true (warden_profile_store_save (store, profile, &error));
  g_assert_true (warden_profile_store_save (store, other, &error));

  g_assert_true (warden_profile_store_rename (store, "before", "after", &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (old_path, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (new_path, G_FILE_TEST_IS_REGULAR));

  lookup = warden_profile_store_lookup (store, "after", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (warden_profile_get_description (lookup), ==, "kept across the rename");
  g_assert_cmpstr (warden_profile_get_allow (lookup)[0], ==, "make *");
  g_clear_object (&lookup);

  /* A taken id, a built-in id or a bad id leave the profile where it was. */
  g_assert_false (warden_profile_store_rename (store, "after", "taken", &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_false (warden_profile_store_rename (store, "after", "strict", &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_false (warden_profile_store_rename (store, "after", "Not Valid", &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_true (g_file_test (new_path, G_FILE_TEST_IS_REGULAR));
  lookup = warden_profile_store_lookup (store, "taken", &error);
  g_assert_cmpstr (warden_profile_get_allow (lookup)[0], ==, "ls");

  g_assert_false (warden_profile_store_rename (store, "strict", "mine", &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_READ_ONLY);
  g_clear_error (&error);
  g_assert_false (warden_profile_store_rename (store, "missing", "found", &error));
  g_assert_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_NOT_FOUND);
}


static void
test_store_unused_id (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (fixture->user_dir);
  g_autoptr(WardenProfile) first = make_profile ("mine", "ls", 0);
  g_autoptr(WardenProfile) second = make_profile ("mine-2", "ls", 0);
  g_autoptr(GError) error = NULL;
  g_autofree char *free_id = NULL;
  g_autofree char *next = NULL;
  g_autofree char *after_builtin = NULL;
  g_autofree char *long_base = g_strnfill (64, 'a');
  g_autofree char *long_id = NULL;

  free_id = warden_profile_store_dup_unused_id (store, "mine");
  g_assert_cmpstr (free_id, ==, "mine");

  g_assert_true (warden_profile_store_save (store, first, &error));
  g_assert_true (warden_profile_store_save (store, second, &error));
  g_assert_no_error (error);
  next = warden_profile_store_dup_unused_id (store, "mine");
  g_assert_cmpstr (next, ==, "mine-3");

  /* A copy of a built-in profile never takes the built-in's id. */
  after_builtin = warden_profile_store_dup_unused_id (store, "strict");
  g_assert_cmpstr (after_builtin, ==, "strict-2");

  long_id = warden_profile_store_dup_unused_id (store, long_base);
  g_assert_cmpstr (long_id, ==, long_base);
  {
    g_autoptr(WardenProfile) taken = make_profile (long_base, "ls", 0);
    g_autofree char *shortened = NULL;

    g_assert_true (warden_profile_store_save (store, taken, &error));
    shortened = warden_profile_store_dup_unused_id (store, long_base);
    g_assert_true (warden_profile_id_is_valid (shortened));
    g_assert_true (g_str_has_suffix (shortened, "-2"));
  }
}

static void
test_store_duplicate (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autoptr(WardenProfileStore) store = warden_profile_store_new (fixture->user_dir);
  g_autoptr(WardenProfile) builtin = NULL;
  g_autoptr(WardenProfile) copy = NULL;
  g_autoptr(WardenProfile) second = NULL;
  g_autoptr(WardenProfile) lookup = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected_name = NULL;

  builtin = warden_profile_store_lookup (store, "node", &error);
  g_assert_no_error (error);

  copy = warden_profile_store_duplicate (store, builtin, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (warden_profile_get_id (copy), ==, "node-copy");
  g_assert_false (warden_profile_get_builtin (copy));
  expected_name = g_strdup_printf ("%s (copy)", warden_profile_get_name (builtin));
  g_assert_cmpstr (warden_profile_get_name (copy), ==, expected_name);

  /* It is on disk, editable, with the same patterns. */
  lookup = warden_profile_store_lookup (store, "node-copy", &error);
  g_assert_no_error (error);
  g_assert_true (strv_equal (warden_profile_get_allow (lookup), warden_profile_get_allow (builtin)));
  g_assert_true (warden_profile_add_allow (lookup, "make *", &error));
  g_assert_true (warden_profile_store_save (store, lookup, &error));

  second = warden_profile_store_duplicate (store, builtin, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (warden_profile_get_id (second), ==, "node-copy-2");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/policy/profile/builtin/ids", test_builtin_ids);
  g_test_add_func ("/policy/profile/builtin/node", test_builtin_node);
  g_test_add_func ("/policy/profile/image", test_image);
  g_test_add_func ("/policy/profile/builtin/read-only", test_builtin_read_only);
  g_test_add_func ("/policy/profile/builtin/python", test_builtin_python);
  g_test_add_func ("/policy/profile/builtin/strict", test_builtin_strict);
  g_test_add_func ("/policy/profile/builtin/trusted", test_builtin_trusted);
  g_test_add_func ("/policy/profile/builtin/round-trip", test_builtin_round_trip);
  g_test_add_func ("/policy/profile/builtin/not-found", test_builtin_not_found);
  ADD_TEST ("/policy/profile/builtin/export", test_builtin_export);
  ADD_TEST ("/policy/profile/builtin/copy", test_builtin_copy);

  g_test_add_func ("/policy/profile/load/defaults", test_load_defaults);
  g_test_add_func ("/policy/profile/load/full", test_load_full);
  g_test_add_func ("/policy/profile/load/duplicates", test_load_duplicates);
  g_test_add_func ("/policy/profile/load/file", test_load_file);
  ADD_TEST ("/policy/profile/load/file-not-found", test_load_file_not_found);
  ADD_TEST ("/policy/profile/load/file-bad-id", test_load_file_bad_id);
  g_test_add_func ("/policy/profile/load/id-is-valid", test_id_is_valid);

  g_test_add_func ("/policy/profile/malformed/not-json", test_malformed_not_json);
  g_test_add_func ("/policy/profile/malformed/empty", test_malformed_empty);
  g_test_add_func ("/policy/profile/malformed/not-object", test_malformed_not_object);
  g_test_add_func ("/policy/profile/malformed/allow-type", test_malformed_allow_type);
  g_test_add_func ("/policy/profile/malformed/item-type", test_malformed_item_type);
  g_test_add_func ("/policy/profile/malformed/name", test_malformed_name);
  g_test_add_func ("/policy/profile/malformed/description", test_malformed_description);
  g_test_add_func ("/policy/profile/malformed/mode", test_malformed_mode);
  g_test_add_func ("/policy/profile/malformed/version", test_malformed_version);
  g_test_add_func ("/policy/profile/malformed/pattern", test_malformed_pattern);
  g_test_add_func ("/policy/profile/malformed/control-char", test_malformed_control_char);
  g_test_add_func ("/policy/profile/malformed/nul", test_malformed_nul);
  g_test_add_func ("/policy/profile/malformed/utf8", test_malformed_utf8);

  g_test_add_func ("/policy/profile/round-trip/unknown-keys", test_round_trip_unknown_keys);
  g_test_add_func ("/policy/profile/files/rule", test_files_rule);
  g_test_add_func ("/policy/profile/nested", test_nested_setting);
  g_test_add_func ("/policy/profile/files/malformed", test_files_malformed);
  g_test_add_func ("/policy/profile/files/protect", test_files_protect);
  g_test_add_func ("/policy/profile/files/round-trip", test_files_round_trip);
  g_test_add_func ("/policy/profile/files/notify", test_files_notify);
  g_test_add_func ("/policy/profile/builtin/files", test_builtin_files);
  g_test_add_func ("/policy/profile/round-trip/format", test_round_trip_format);
  g_test_add_func ("/policy/profile/edit/patterns", test_edit_patterns);
  g_test_add_func ("/policy/profile/edit/notify", test_edit_notify);

  ADD_TEST ("/policy/profile/save/creates-dir", test_save_creates_dir);
  ADD_TEST ("/policy/profile/save/keeps-backup", test_save_keeps_backup);
  ADD_TEST ("/policy/profile/save/failure-keeps-original", test_save_failure_keeps_original);
  ADD_TEST ("/policy/profile/save/backup-failure", test_save_backup_failure);
  ADD_TEST ("/policy/profile/save/dir-is-file", test_save_dir_is_file);
  ADD_TEST ("/policy/profile/save/after-interrupted", test_save_after_interrupted);

  g_test_add_func ("/policy/profile/store/default-dir", test_store_default_dir);
  g_test_add_func ("/policy/profile/store/private-modes", test_store_private_modes);
  g_test_add_func ("/policy/profile/store/private-new-dir", test_store_private_new_dir);
  ADD_TEST ("/policy/profile/store/list-order", test_store_list_order);
  ADD_TEST ("/policy/profile/store/list-corrupt", test_store_list_corrupt);
  ADD_TEST ("/policy/profile/store/list-ignores", test_store_list_ignores);
  ADD_TEST ("/policy/profile/store/list-no-dir", test_store_list_no_dir);
  ADD_TEST ("/policy/profile/store/builtin-not-shadowed", test_store_builtin_not_shadowed);
  ADD_TEST ("/policy/profile/store/lookup-not-found", test_store_lookup_not_found);
  ADD_TEST ("/policy/profile/store/lookup-corrupt", test_store_lookup_corrupt);
  ADD_TEST ("/policy/profile/store/save-refused", test_store_save_refused);
  ADD_TEST ("/policy/profile/store/delete", test_store_delete);
  ADD_TEST ("/policy/profile/store/lookup-async", test_store_lookup_async);
  ADD_TEST ("/policy/profile/store/save-async", test_store_save_async);
  ADD_TEST ("/policy/profile/store/async-cancelled", test_store_async_cancelled);

  g_test_add_func ("/policy/profile/claude/rule-prefix", test_claude_rule_prefix);
  g_test_add_func ("/policy/profile/claude/rule-exact", test_claude_rule_exact);
  g_test_add_func ("/policy/profile/claude/rule-everything", test_claude_rule_everything);
  g_test_add_func ("/policy/profile/claude/rule-wildcard", test_claude_rule_wildcard);
  g_test_add_func ("/policy/profile/claude/rule-not-shell", test_claude_rule_not_shell);
  g_test_add_func ("/policy/profile/claude/rule-malformed", test_claude_rule_malformed);
  ADD_TEST ("/policy/profile/claude/settings", test_claude_settings);
  g_test_add_func ("/policy/profile/claude/no-permissions", test_claude_no_permissions);
  g_test_add_func ("/policy/profile/claude/malformed", test_claude_malformed);
  g_test_add_func ("/policy/profile/claude/empty-permissions", test_claude_empty_permissions);

  g_test_add_func ("/policy/profile/edit/set-patterns", test_edit_set_patterns);
  g_test_add_func ("/policy/profile/codex/rules", test_codex_rules);
  g_test_add_func ("/policy/profile/codex/stricter", test_codex_stricter);
  g_test_add_func ("/policy/profile/codex/syntax", test_codex_syntax);
  g_test_add_func ("/policy/profile/codex/invalid", test_codex_invalid);
  g_test_add_func ("/policy/profile/codex/examples-fail", test_codex_examples_fail);
  g_test_add_func ("/policy/profile/ask/load", test_ask_load);
  g_test_add_func ("/policy/profile/ask/malformed", test_ask_malformed);
  ADD_TEST ("/policy/profile/ask/round-trip", test_ask_round_trip);
  g_test_add_func ("/policy/profile/ask/edit", test_ask_edit);
  g_test_add_func ("/policy/profile/ask/policy", test_ask_policy);
  g_test_add_func ("/policy/profile/network/section", test_network_section);
  g_test_add_func ("/policy/profile/network/edit", test_network_edit);
  g_test_add_func ("/policy/profile/network/builtin", test_network_builtin);
  ADD_TEST ("/policy/profile/store/rename", test_store_rename);
  ADD_TEST ("/policy/profile/store/unused-id", test_store_unused_id);
  ADD_TEST ("/policy/profile/store/duplicate", test_store_duplicate);

  return g_test_run ();
}
