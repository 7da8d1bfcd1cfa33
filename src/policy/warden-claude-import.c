/* warden-claude-import.c: profiles from Claude Code permission settings
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-policy"

#include <glib/gi18n.h>

#include "warden-claude-import.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "warden-pattern.h"

#define BASH_RULE_PREFIX "Bash("

static gboolean
is_bash_rule (const char *rule)
{
  return strcmp (rule, "Bash") == 0 || g_str_has_prefix (rule, BASH_RULE_PREFIX);
}

GStrv
warden_claude_rule_to_patterns (const char  *rule,
                                GError     **error)
{
  g_autoptr(GStrvBuilder) builder = NULL;
  g_auto(GStrv) patterns = NULL;
  g_autofree char *inner = NULL;
  gsize len;

  g_return_val_if_fail (rule != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  len = strlen (rule);

  if (!is_bash_rule (rule))
    {
      g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID,
                   _("“%s” is not a shell command rule: only Bash(…) rules become Warden "
                     "patterns"),
                   rule);
      return NULL;
    }

  if (strcmp (rule, "Bash") != 0 && (len < strlen ("Bash()") || rule[len - 1] != ')'))
    {
      g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID,
                   _("“%s” is not a well-formed Bash rule: it does not end with “)”"),
                   rule);
      return NULL;
    }

  builder = g_strv_builder_new ();

  if (strcmp (rule, "Bash") == 0)
    inner = g_strdup ("");
  else
    inner = g_strndup (rule + strlen (BASH_RULE_PREFIX), len - strlen ("Bash()"));

  if (inner[0] == '\0' || strcmp (inner, "*") == 0)
    {
      g_strv_builder_add (builder, "*");
    }
  else if (g_str_has_suffix (inner, ":*"))
    {
      /* Claude's "PREFIX:*" matches PREFIX alone and PREFIX followed by
       * more words; the second pattern stops at a word boundary, where
       * Claude's does not ("npm run test:*" also takes "npm run testx"). */
      inner[strlen (inner) - 2] = '\0';
      g_strchomp (inner);

      if (inner[0] == '\0')
        {
          g_strv_builder_add (builder, "*");
        }
      else
        {
          g_autofree char *with_args = g_strconcat (inner, " *", NULL);

          g_strv_builder_add (builder, inner);
          g_strv_builder_add (builder, with_args);
        }
    }
  else
    {
      g_strv_builder_add (builder, inner);
    }

  patterns = g_strv_builder_end (builder);

  for (guint i = 0; patterns[i] != NULL; i++)
    {
      g_autoptr(GError) local_error = NULL;

      if (!warden_pattern_validate (patterns[i], &local_error))
        {
          g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID,
                       _("“%s” does not give a valid pattern: %s"),
                       rule, local_error->message);
          return NULL;
        }
    }

  return g_steal_pointer (&patterns);
}

/* json-glib cuts a string short at an escaped NUL ("\u0000") without a
 * word, which would silently change a rule. Takes well-formed JSON. */
static gboolean
contains_escaped_nul (const char *data,
                      gsize       length)
{
  gboolean in_string = FALSE;

  if (g_strstr_len (data, length, "\\u0000") == NULL)
    return FALSE;

  for (gsize i = 0; i < length; i++)
    {
      if (!in_string)
        {
          in_string = data[i] == '"';
        }
      else if (data[i] == '\\')
        {
          if (i + 5 < length && data[i + 1] == 'u' && memcmp (data + i + 2, "0000", 4) == 0)
            return TRUE;
          i++;
        }
      else if (data[i] == '"')
        {
          in_string = FALSE;
        }
    }

  return FALSE;
}

G_GNUC_PRINTF (4, 5)
static void
set_settings_error (GError     **error,
                    int          code,
                    const char  *source_name,
                    const char  *format,
                    ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (error, WARDEN_POLICY_ERROR, code,
               _("Claude Code settings “%s”: %s"), source_name, message);
}

static gboolean
import_rules (WardenProfile  *profile,
              JsonObject     *permissions,
              const char     *key,
              GPtrArray      *skipped,
              const char     *source_name,
              GError        **error)
{
  JsonNode *node = json_object_get_member (permissions, key);
  gboolean is_deny = strcmp (key, "deny") == 0;
  gboolean is_ask = strcmp (key, "ask") == 0;
  JsonArray *array;
  guint n;

  if (node == NULL)
    return TRUE;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      set_settings_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                          _("key “permissions.%s”: is not a list of rules"), key);
      return FALSE;
    }

  array = json_node_get_array (node);
  n = json_array_get_length (array);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GError) local_error = NULL;
      g_auto(GStrv) patterns = NULL;
      JsonNode *element = json_array_get_element (array, i);
      const char *rule;

      if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING)
        {
          set_settings_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                              _("key “permissions.%s”: item %u is not a string"), key, i + 1);
          return FALSE;
        }

      rule = json_node_get_string (element);
      patterns = warden_claude_rule_to_patterns (rule, &local_error);
      if (patterns == NULL)
        {
          /* A Bash rule that cannot be carried over must not vanish quietly:
           * a missing deny or ask rule would let through what the user
           * refused or wanted to see first. */
          if (is_bash_rule (rule))
            {
              set_settings_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                                  _("key “permissions.%s”: item %u: %s"),
                                  key, i + 1, local_error->message);
              return FALSE;
            }

          g_ptr_array_add (skipped,
                           g_strdup_printf (_("%s (in “%s”): not a shell command rule"),
                                            rule, key));
          continue;
        }

      for (guint j = 0; patterns[j] != NULL; j++)
        {
          gboolean added = is_deny ? warden_profile_add_deny (profile, patterns[j], error)
                           : is_ask ? warden_profile_add_ask (profile, patterns[j], error)
                                    : warden_profile_add_allow (profile, patterns[j], error);

          /* Cannot fail: warden_claude_rule_to_patterns() validated them. */
          if (!added)
            return FALSE;
        }
    }

  return TRUE;
}

WardenProfile *
warden_profile_new_from_claude_data (const char  *id,
                                     const char  *data,
                                     gssize       length,
                                     const char  *source_name,
                                     GStrv       *skipped,
                                     GError     **error)
{
  g_autoptr(GPtrArray) skipped_rules = NULL;
  g_autoptr(WardenProfile) profile = NULL;
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *description = NULL;
  JsonObject *permissions;
  JsonNode *default_mode;
  JsonNode *root;
  JsonNode *node;

  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (skipped != NULL)
    *skipped = NULL;

  if (source_name == NULL)
    source_name = "settings.json";
  if (data == NULL)
    data = "";
  if (length < 0)
    length = strlen (data);

  if (!warden_profile_id_is_valid (id))
    {
      g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID,
                   _("“%s” is not a valid profile id; ids use lower-case letters, digits, "
                     "“.”, “_” and “-”, and start with a letter or digit"),
                   id);
      return NULL;
    }

  if (memchr (data, '\0', length) != NULL)
    {
      set_settings_error (error, WARDEN_POLICY_ERROR_PARSE, source_name,
                          _("is not valid JSON: it contains a NUL byte"));
      return NULL;
    }

  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, data, length, &local_error))
    {
      set_settings_error (error, WARDEN_POLICY_ERROR_PARSE, source_name,
                          _("is not valid JSON: %s"), local_error->message);
      return NULL;
    }

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      set_settings_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                          _("is not a JSON object"));
      return NULL;
    }

  if (contains_escaped_nul (data, length))
    {
      set_settings_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                          _("contains a NUL character (\\u0000), which Warden cannot import"));
      return NULL;
    }

  node = json_object_get_member (json_node_get_object (root), "permissions");
  if (node == NULL)
    {
      set_settings_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                          _("no permission rules were found (there is no “permissions” key)"));
      return NULL;
    }

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      set_settings_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                          _("key “permissions”: is not an object with “allow”, “ask” and "
                            "“deny” lists"));
      return NULL;
    }

  permissions = json_node_get_object (node);

  profile = warden_profile_new (id);
  warden_profile_set_name (profile, _("Imported from Claude Code"));
  description = g_strdup_printf (_("Shell command rules imported from the Claude Code "
                                   "settings “%s”."),
                                 source_name);
  warden_profile_set_description (profile, description);
  warden_profile_set_mode (profile, WARDEN_MODE_ALLOWLIST);

  skipped_rules = g_ptr_array_new_null_terminated (0, g_free, TRUE);

  if (!import_rules (profile, permissions, "allow", skipped_rules, source_name, error) ||
      !import_rules (profile, permissions, "deny", skipped_rules, source_name, error) ||
      !import_rules (profile, permissions, "ask", skipped_rules, source_name, error))
    return NULL;

  default_mode = json_object_get_member (permissions, "defaultMode");
  if (default_mode != NULL &&
      JSON_NODE_HOLDS_VALUE (default_mode) &&
      json_node_get_value_type (default_mode) == G_TYPE_STRING)
    g_ptr_array_add (skipped_rules,
                     g_strdup_printf (_("defaultMode “%s”: not imported, the profile's mode "
                                        "is “%s”"),
                                      json_node_get_string (default_mode),
                                      warden_mode_to_string (WARDEN_MODE_ALLOWLIST)));

  if (skipped != NULL)
    *skipped = (GStrv) g_ptr_array_free (g_steal_pointer (&skipped_rules), FALSE);

  return g_steal_pointer (&profile);
}
