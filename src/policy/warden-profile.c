/* warden-profile.c: an allowlist profile, loaded from and saved to JSON
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-policy"

#include <glib/gi18n.h>

#include "warden-profile.h"
#include "warden-protected-path.h"

#include "common/warden-json.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "warden-network.h"
#include "warden-pattern.h"

#define PROFILE_VERSION        1
#define PROFILE_ID_MAX_LENGTH  64
#define BUILTIN_PATH_PREFIX    RESOURCE_PREFIX "/profiles/"

struct _WardenProfile
{
  GObject     parent_instance;

  char       *id;
  char       *name;         /* NULL: the id stands for it */
  char       *description;  /* NULL: none */
  char       *image;        /* the container image its sessions use; NULL: the default */
  WardenMode  mode;
  GPtrArray  *allow;        /* NULL-terminated, of char * */
  GPtrArray  *deny;
  GPtrArray  *ask;          /* ask even where an allow pattern matches, and in allow-always */
  JsonObject *unknown;      /* members this version does not know, written back as read */
  WardenFileWrite file_write;
  JsonObject *files_unknown;  /* the same inside "files" */
  GPtrArray  *protect;      /* files.protect: names added to the protected list */
  guint       has_files : 1;  /* the file had a "files" section: it is written back */
  guint       nested_off : 1; /* "nested": "off": programs a command starts are not checked */
  guint       has_nested : 1; /* the file said "nested": it is written back */
  guint       has_network : 1; /* the file had a "network" section */
  WardenNetworkMode network_mode;
  GPtrArray  *network_allow;  /* host patterns, normalized, NULL-terminated */
  GPtrArray  *network_deny;
  JsonObject *network_unknown;  /* members of "network" this version does not know */

  guint       builtin : 1;
};

G_DEFINE_FINAL_TYPE (WardenProfile, warden_profile, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ID,
  PROP_NAME,
  PROP_DESCRIPTION,
  PROP_IMAGE,
  PROP_MODE,
  PROP_ALLOW,
  PROP_DENY,
  PROP_ASK,
  PROP_BUILTIN,
  PROP_FILE_WRITE,
  PROP_CHECK_NESTED,
  PROP_NETWORK_MODE,
  PROP_NETWORK_ALLOW,
  PROP_NETWORK_DENY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* From data/warden.gresource.xml (glib-compile-resources, c-name "warden").
 * Asked for by name: its constructor alone would not pull the object out of
 * the static library, and then the built-in profiles would be missing. */
GResource *warden_get_resource (void);

static const char * const known_keys[] = {
  "version", "name", "description", "image", "mode", "allow", "deny", "ask", "files", "nested",
  "network", NULL
};

static const char * const file_write_names[] = { "allow", "ask", "never" };

const char *
warden_file_write_to_string (WardenFileWrite rule)
{
  g_return_val_if_fail (rule <= WARDEN_FILE_WRITE_NEVER, NULL);

  return file_write_names[rule];
}

gboolean
warden_file_write_from_string (const char      *str,
                               WardenFileWrite *rule)
{
  for (guint i = 0; i < G_N_ELEMENTS (file_write_names); i++)
    if (g_strcmp0 (str, file_write_names[i]) == 0)
      {
        *rule = (WardenFileWrite) i;
        return TRUE;
      }
  return FALSE;
}

gboolean
warden_profile_id_is_valid (const char *id)
{
  gsize len;

  if (id == NULL)
    return FALSE;

  len = strlen (id);
  if (len == 0 || len > PROFILE_ID_MAX_LENGTH)
    return FALSE;

  if (!g_ascii_islower (id[0]) && !g_ascii_isdigit (id[0]))
    return FALSE;

  for (gsize i = 1; i < len; i++)
    {
      char c = id[i];

      if (!g_ascii_islower (c) && !g_ascii_isdigit (c) && c != '.' && c != '_' && c != '-')
        return FALSE;
    }

  return TRUE;
}

static void
set_invalid_id_error (GError     **error,
                      const char  *id)
{
  g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID,
               _("“%s” is not a valid profile id; ids use lower-case letters, digits, "
                 "“.”, “_” and “-”, start with a letter or digit and have at most %d "
                 "characters"),
               id, PROFILE_ID_MAX_LENGTH);
}

static GPtrArray *
pattern_array_new (void)
{
  return g_ptr_array_new_null_terminated (0, g_free, TRUE);
}

/* An empty null-terminated GPtrArray may have no pdata at all. */
static const char * const *
pattern_array_peek (GPtrArray *array)
{
  static const char * const empty[] = { NULL };

  return array->pdata != NULL ? (const char * const *) array->pdata : empty;
}

static GStrv
pattern_array_dup (GPtrArray *array)
{
  return g_strdupv ((char **) pattern_array_peek (array));
}

static gboolean
pattern_array_contains (GPtrArray  *array,
                        const char *pattern,
                        guint      *index)
{
  return g_ptr_array_find_with_equal_func (array, pattern, g_str_equal, index);
}

/* Deep, so that a copy shares no reference counts with the original and
 * can be handed to another thread. */
static JsonNode *
json_node_deep_copy (JsonNode *node)
{
  JsonNode *copy;

  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *object = json_node_get_object (node);
        JsonObject *object_copy = json_object_new ();
        JsonObjectIter iter;
        const char *member_name;
        JsonNode *member;

        json_object_iter_init_ordered (&iter, object);
        while (json_object_iter_next_ordered (&iter, &member_name, &member))
          json_object_set_member (object_copy, member_name, json_node_deep_copy (member));

        copy = json_node_init_object (json_node_alloc (), object_copy);
        json_object_unref (object_copy);
        return copy;
      }

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint n = json_array_get_length (array);
        JsonArray *array_copy = json_array_sized_new (n);

        for (guint i = 0; i < n; i++)
          json_array_add_element (array_copy,
                                  json_node_deep_copy (json_array_get_element (array, i)));

        copy = json_node_init_array (json_node_alloc (), array_copy);
        json_array_unref (array_copy);
        return copy;
      }

    case JSON_NODE_VALUE:
    case JSON_NODE_NULL:
    default:
      return json_node_copy (node);
    }
}

static void
warden_profile_finalize (GObject *object)
{
  WardenProfile *self = (WardenProfile *)object;

  g_clear_pointer (&self->id, g_free);
  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->description, g_free);
  g_clear_pointer (&self->image, g_free);
  g_clear_pointer (&self->allow, g_ptr_array_unref);
  g_clear_pointer (&self->deny, g_ptr_array_unref);
  g_clear_pointer (&self->ask, g_ptr_array_unref);
  g_clear_pointer (&self->unknown, json_object_unref);
  g_clear_pointer (&self->files_unknown, json_object_unref);
  g_clear_pointer (&self->network_allow, g_ptr_array_unref);
  g_clear_pointer (&self->protect, g_ptr_array_unref);
  g_clear_pointer (&self->network_deny, g_ptr_array_unref);
  g_clear_pointer (&self->network_unknown, json_object_unref);

  G_OBJECT_CLASS (warden_profile_parent_class)->finalize (object);
}

static void
warden_profile_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  WardenProfile *self = WARDEN_PROFILE (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->id);
      break;

    case PROP_NAME:
      g_value_set_string (value, warden_profile_get_name (self));
      break;

    case PROP_DESCRIPTION:
      g_value_set_string (value, warden_profile_get_description (self));
      break;

    case PROP_IMAGE:
      g_value_set_string (value, warden_profile_get_image (self));
      break;

    case PROP_MODE:
      g_value_set_int (value, self->mode);
      break;

    case PROP_ALLOW:
      g_value_take_boxed (value, pattern_array_dup (self->allow));
      break;

    case PROP_DENY:
      g_value_take_boxed (value, pattern_array_dup (self->deny));
      break;

    case PROP_ASK:
      g_value_take_boxed (value, pattern_array_dup (self->ask));
      break;

    case PROP_BUILTIN:
      g_value_set_boolean (value, self->builtin);
      break;

    case PROP_FILE_WRITE:
      g_value_set_int (value, self->file_write);
      break;

    case PROP_CHECK_NESTED:
      g_value_set_boolean (value, !self->nested_off);
      break;

    case PROP_NETWORK_MODE:
      g_value_set_int (value, self->network_mode);
      break;

    case PROP_NETWORK_ALLOW:
      g_value_take_boxed (value, pattern_array_dup (self->network_allow));
      break;

    case PROP_NETWORK_DENY:
      g_value_take_boxed (value, pattern_array_dup (self->network_deny));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
warden_profile_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  WardenProfile *self = WARDEN_PROFILE (object);

  switch (prop_id)
    {
    case PROP_ID:
      self->id = g_value_dup_string (value);
      break;

    case PROP_NAME:
      warden_profile_set_name (self, g_value_get_string (value));
      break;

    case PROP_DESCRIPTION:
      warden_profile_set_description (self, g_value_get_string (value));
      break;

    case PROP_IMAGE:
      warden_profile_set_image (self, g_value_get_string (value));
      break;

    case PROP_MODE:
      warden_profile_set_mode (self, g_value_get_int (value));
      break;

    case PROP_FILE_WRITE:
      warden_profile_set_file_write (self, g_value_get_int (value));
      break;

    case PROP_CHECK_NESTED:
      warden_profile_set_check_nested (self, g_value_get_boolean (value));
      break;

    case PROP_NETWORK_MODE:
      warden_profile_set_network_mode (self, g_value_get_int (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
warden_profile_class_init (WardenProfileClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = warden_profile_finalize;
  object_class->get_property = warden_profile_get_property;
  object_class->set_property = warden_profile_set_property;

  properties[PROP_ID] =
    g_param_spec_string ("id", NULL, NULL,
                         NULL,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL,
                         NULL,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties[PROP_DESCRIPTION] =
    g_param_spec_string ("description", NULL, NULL,
                         NULL,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /* The container image the profile's sessions run in; NULL: Warden's default. */
  properties[PROP_IMAGE] =
    g_param_spec_string ("image", NULL, NULL,
                         NULL,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /* A WardenMode; there is no enum GType for it. */
  properties[PROP_MODE] =
    g_param_spec_int ("mode", NULL, NULL,
                      WARDEN_MODE_ALLOWLIST, WARDEN_MODE_ALLOW_ALWAYS, WARDEN_MODE_ALLOWLIST,
                      (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties[PROP_ALLOW] =
    g_param_spec_boxed ("allow", NULL, NULL,
                        G_TYPE_STRV,
                        (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties[PROP_DENY] =
    g_param_spec_boxed ("deny", NULL, NULL,
                        G_TYPE_STRV,
                        (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /* Patterns that ask whatever allows them; deny still beats them. */
  properties[PROP_ASK] =
    g_param_spec_boxed ("ask", NULL, NULL,
                        G_TYPE_STRV,
                        (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /* A WardenFileWrite, like the mode. */
  properties[PROP_FILE_WRITE] =
    g_param_spec_int ("file-write", NULL, NULL,
                      WARDEN_FILE_WRITE_ALLOW, WARDEN_FILE_WRITE_NEVER, WARDEN_FILE_WRITE_ALLOW,
                      (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /* Every program a command starts is checked too (the exec guard). */
  properties[PROP_CHECK_NESTED] =
    g_param_spec_boolean ("check-nested", NULL, NULL,
                          TRUE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /* A WardenNetworkMode: which hosts the sandbox may reach. */
  properties[PROP_NETWORK_MODE] =
    g_param_spec_int ("network-mode", NULL, NULL,
                      WARDEN_NETWORK_NONE, WARDEN_NETWORK_OPEN, WARDEN_NETWORK_NONE,
                      (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties[PROP_NETWORK_ALLOW] =
    g_param_spec_boxed ("network-allow", NULL, NULL,
                        G_TYPE_STRV,
                        (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties[PROP_NETWORK_DENY] =
    g_param_spec_boxed ("network-deny", NULL, NULL,
                        G_TYPE_STRV,
                        (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties[PROP_BUILTIN] =
    g_param_spec_boolean ("builtin", NULL, NULL,
                          FALSE,
                          (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
warden_profile_init (WardenProfile *self)
{
  self->mode = WARDEN_MODE_ALLOWLIST;
  self->allow = pattern_array_new ();
  self->deny = pattern_array_new ();
  self->ask = pattern_array_new ();
  self->unknown = json_object_new ();
  self->files_unknown = json_object_new ();
  self->network_allow = pattern_array_new ();
  self->protect = pattern_array_new ();
  self->network_deny = pattern_array_new ();
  self->network_unknown = json_object_new ();
}

WardenProfile *
warden_profile_new (const char *id)
{
  g_return_val_if_fail (warden_profile_id_is_valid (id), NULL);

  return g_object_new (WARDEN_TYPE_PROFILE,
                       "id", id,
                       NULL);
}

G_GNUC_PRINTF (4, 5)
static void
set_profile_error (GError     **error,
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
               _("profile “%s”: %s"), source_name, message);
}

typedef struct
{
  gboolean    is_object;
  gboolean    want_key;
  const char *key;
  gsize       key_len;
  guint       index;
} JsonFrame;

/* json-glib cuts a string short at an escaped NUL ("\u0000") without a word,
 * which would silently turn a pattern into another one. This finds such an
 * escape and where it is (the top-level key, and the item when it sits
 * directly in that key's array). Only called on data that json-glib parsed,
 * so it can take the JSON to be well formed. */
static gboolean
find_escaped_nul (const char  *data,
                  gsize        length,
                  char       **key,
                  guint       *item)
{
  g_autoptr(GArray) stack = NULL;

  *key = NULL;
  *item = 0;

  if (g_strstr_len (data, length, "\\u0000") == NULL)
    return FALSE;

  stack = g_array_new (FALSE, TRUE, sizeof (JsonFrame));

  for (gsize i = 0; i < length; i++)
    {
      JsonFrame *top = stack->len > 0 ? &g_array_index (stack, JsonFrame, stack->len - 1) : NULL;
      char c = data[i];

      if (c == '"')
        {
          gsize start = ++i;
          gboolean has_nul = FALSE;
          gboolean is_key;

          while (i < length && data[i] != '"')
            {
              if (data[i] == '\\')
                {
                  if (i + 5 < length && data[i + 1] == 'u' && memcmp (data + i + 2, "0000", 4) == 0)
                    has_nul = TRUE;
                  i += 2;
                }
              else
                i++;
            }

          is_key = top != NULL && top->is_object && top->want_key;
          if (is_key)
            {
              top->want_key = FALSE;
              top->key = data + start;
              top->key_len = i - start;
            }

          if (has_nul)
            {
              JsonFrame *root;

              if (stack->len == 0 || (is_key && stack->len == 1))
                return TRUE;

              root = &g_array_index (stack, JsonFrame, 0);
              if (root->is_object && root->key != NULL)
                *key = g_strndup (root->key, root->key_len);
              if (!is_key && stack->len == 2 && !g_array_index (stack, JsonFrame, 1).is_object)
                *item = g_array_index (stack, JsonFrame, 1).index + 1;

              return TRUE;
            }
        }
      else if (c == '{' || c == '[')
        {
          JsonFrame frame = { c == '{', c == '{', NULL, 0, 0 };

          g_array_append_val (stack, frame);
        }
      else if ((c == '}' || c == ']') && stack->len > 0)
        {
          g_array_set_size (stack, stack->len - 1);
        }
      else if (c == ',' && top != NULL)
        {
          if (top->is_object)
            top->want_key = TRUE;
          else
            top->index++;
        }
    }

  return FALSE;
}

static gboolean
node_holds_string (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING;
}

static const char *
json_type_description (JsonNode *node)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      return _("an object");
    case JSON_NODE_ARRAY:
      return _("a list");
    case JSON_NODE_NULL:
      return _("null");
    case JSON_NODE_VALUE:
    default:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_STRING:
          return _("a string");
        case G_TYPE_BOOLEAN:
          return _("a boolean");
        default:
          return _("a number");
        }
    }
}

static gboolean
load_string_member (JsonObject  *root,
                    const char  *key,
                    char       **out,
                    const char  *source_name,
                    GError     **error)
{
  JsonNode *node = json_object_get_member (root, key);

  if (node == NULL)
    return TRUE;

  if (!node_holds_string (node))
    {
      set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                         _("key “%s”: is %s, not a string"),
                         key, json_type_description (node));
      return FALSE;
    }

  *out = g_strdup (json_node_get_string (node));
  return TRUE;
}

/* Command patterns, or with @hosts host patterns (kept normalized); @key
 * names the member of @root, @shown_key the key in messages. */
static gboolean
load_patterns (JsonObject  *root,
               const char  *key,
               const char  *shown_key,
               gboolean     hosts,
               GPtrArray   *into,
               const char  *source_name,
               GError     **error)
{
  JsonNode *node = json_object_get_member (root, key);
  JsonArray *array;
  guint n;

  if (node == NULL)
    return TRUE;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                         hosts ? _("key “%s”: is %s, not a list of host patterns (an array of "
                                   "strings such as \"registry.npmjs.org:443\")")
                               : _("key “%s”: is %s, not a list of patterns (an array of strings)"),
                         shown_key, json_type_description (node));
      return FALSE;
    }

  array = json_node_get_array (node);
  n = json_array_get_length (array);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GError) local_error = NULL;
      JsonNode *element = json_array_get_element (array, i);
      g_autofree char *pattern = NULL;

      if (!node_holds_string (element))
        {
          set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                             _("key “%s”: item %u is not a string (it is %s)"),
                             shown_key, i + 1, json_type_description (element));
          return FALSE;
        }

      if (hosts ? !warden_host_pattern_validate (json_node_get_string (element), &local_error)
                : !warden_pattern_validate (json_node_get_string (element), &local_error))
        {
          set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                             _("key “%s”: item %u is not a valid pattern: %s"),
                             shown_key, i + 1, local_error->message);
          return FALSE;
        }
      pattern = hosts ? warden_host_pattern_normalize (json_node_get_string (element))
                      : g_strdup (json_node_get_string (element));

      /* Duplicates change nothing, so they go quietly. */
      if (!pattern_array_contains (into, pattern, NULL))
        g_ptr_array_add (into, g_steal_pointer (&pattern));
    }

  return TRUE;
}

/* files.protect: names of files or folders this profile adds to the
 * protected list (policy/warden-protected-path.h), from the moment it is
 * read, for every layer. */
static gboolean
load_protect (WardenProfile  *self,
              JsonNode       *node,
              const char     *source_name,
              GError        **error)
{
  JsonArray *array;
  guint n;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                         _("key “%s”: is %s, not a list of names (an array of strings such as "
                           "\".tox\")"), "files.protect", json_type_description (node));
      return FALSE;
    }
  array = json_node_get_array (node);
  n = json_array_get_length (array);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      const char *name;

      if (!node_holds_string (element))
        {
          set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                             _("key “%s”: item %u is not a string (it is %s)"),
                             "files.protect", i + 1, json_type_description (element));
          return FALSE;
        }
      name = json_node_get_string (element);
      if (!warden_protected_name_is_valid (name))
        {
          set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                             _("key “%s”: item %u, “%s”, is not a file or folder name: give "
                               "one name without “/”, such as “.tox” or “Justfile”; it is "
                               "protected in every folder"),
                             "files.protect", i + 1, name);
          return FALSE;
        }
    }
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (self->protect, g_strdup (json_array_get_string_element (array, i)));
  warden_protected_path_add_names (pattern_array_peek (self->protect));
  return TRUE;
}

static gboolean
load_files (WardenProfile  *self,
            JsonObject     *root,
            const char     *source_name,
            GError        **error)
{
  JsonNode *node = json_object_get_member (root, "files");
  JsonObjectIter iter;
  const char *member_name;
  JsonNode *member;
  JsonObject *files;

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                         _("key “files”: is %s, not an object such as "
                           "{ \"write\": \"ask\" }"),
                         json_type_description (node));
      return FALSE;
    }

  files = json_node_get_object (node);
  self->has_files = TRUE;
  json_object_iter_init_ordered (&iter, files);
  while (json_object_iter_next_ordered (&iter, &member_name, &member))
    {
      if (strcmp (member_name, "protect") == 0)
        {
          if (!load_protect (self, member, source_name, error))
            return FALSE;
          continue;
        }
      if (strcmp (member_name, "write") != 0)
        {
          json_object_set_member (self->files_unknown, member_name, json_node_deep_copy (member));
          continue;
        }
      if (!node_holds_string (member))
        {
          set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                             _("key “%s”: is %s, not a string"),
                             "files.write", json_type_description (member));
          return FALSE;
        }
      if (!warden_file_write_from_string (json_node_get_string (member), &self->file_write))
        {
          set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                             _("key “files.write”: “%s” is not a rule; use “%s” (inside the "
                               "project, without asking), “%s” (before every write or edit) "
                               "or “%s”"),
                             json_node_get_string (member),
                             warden_file_write_to_string (WARDEN_FILE_WRITE_ALLOW),
                             warden_file_write_to_string (WARDEN_FILE_WRITE_ASK),
                             warden_file_write_to_string (WARDEN_FILE_WRITE_NEVER));
          return FALSE;
        }
    }
  return TRUE;
}

/* "nested": "check" (the default) or "off". */
static gboolean
load_nested (WardenProfile  *self,
             JsonObject     *root,
             const char     *source_name,
             GError        **error)
{
  JsonNode *node = json_object_get_member (root, "nested");
  const char *value;

  if (node == NULL)
    return TRUE;
  value = node_holds_string (node) ? json_node_get_string (node) : NULL;
  if (g_strcmp0 (value, "check") != 0 && g_strcmp0 (value, "off") != 0)
    {
      set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                         _("key “nested”: use “check” (every program a command starts is "
                           "checked too, the default) or “off”"));
      return FALSE;
    }
  self->has_nested = TRUE;
  self->nested_off = strcmp (value, "off") == 0;
  return TRUE;
}

/* "network": { "mode": "allowlist", "allow": [HOST…], "deny": [HOST…] },
 * or only the mode as a string ("none", "allowlist", "open"; "bridge" is
 * "open"). */
static gboolean
load_network (WardenProfile  *self,
              JsonObject     *root,
              const char     *source_name,
              GError        **error)
{
  JsonNode *node = json_object_get_member (root, "network");
  const char *mode = NULL;
  JsonObject *network = NULL;
  JsonObjectIter iter;
  const char *member_name;
  JsonNode *member;

  if (node == NULL)
    return TRUE;
  if (node_holds_string (node))
    mode = json_node_get_string (node);
  else if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonNode *mode_node;

      network = json_node_get_object (node);
      mode_node = json_object_get_member (network, "mode");
      if (mode_node != NULL && !node_holds_string (mode_node))
        {
          set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                             _("key “%s”: is %s, not a string"),
                             "network.mode", json_type_description (mode_node));
          return FALSE;
        }
      mode = mode_node ? json_node_get_string (mode_node) : "allowlist";
    }
  else
    {
      set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                         _("key “network”: is %s, not an object such as "
                           "{ \"mode\": \"allowlist\", \"allow\": [\"registry.npmjs.org:443\"] }"),
                         json_type_description (node));
      return FALSE;
    }
  if (!warden_network_mode_from_string (mode, &self->network_mode))
    {
      set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                         _("key “network.mode”: “%s” is not a mode; use “none” (no network), "
                           "“allowlist” (the hosts the profile allows, others asked about) "
                           "or “open” (every host)"),
                         mode);
      return FALSE;
    }
  self->has_network = TRUE;
  if (network == NULL)
    return TRUE;
  if (!load_patterns (network, "allow", "network.allow", TRUE, self->network_allow,
                      source_name, error) ||
      !load_patterns (network, "deny", "network.deny", TRUE, self->network_deny,
                      source_name, error))
    return FALSE;
  json_object_iter_init_ordered (&iter, network);
  while (json_object_iter_next_ordered (&iter, &member_name, &member))
    if (strcmp (member_name, "mode") != 0 && strcmp (member_name, "allow") != 0 &&
        strcmp (member_name, "deny") != 0)
      json_object_set_member (self->network_unknown, member_name, json_node_deep_copy (member));
  return TRUE;
}

WardenProfile *
warden_profile_new_from_data (const char  *id,
                              const char  *data,
                              gssize       length,
                              const char  *source_name,
                              GError     **error)
{
  g_autoptr(WardenProfile) self = NULL;
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *nul_key = NULL;
  g_autofree char *mode_string = NULL;
  JsonObjectIter iter;
  const char *member_name;
  JsonNode *member;
  JsonObject *object;
  JsonNode *root;
  JsonNode *node;
  guint nul_item;

  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (source_name == NULL)
    source_name = id;

  /* Any file can be read, whatever its name; only the store insists on a
   * valid id (see warden_profile_id_is_valid()). */
  if (id[0] == '\0')
    {
      set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                         _("has no profile id; name the file after the profile, "
                           "like “my-profile.json”"));
      return NULL;
    }

  if (data == NULL)
    data = "";
  if (length < 0)
    length = strlen (data);

  if (memchr (data, '\0', length) != NULL)
    {
      set_profile_error (error, WARDEN_POLICY_ERROR_PARSE, source_name,
                         _("is not valid JSON: it contains a NUL byte"));
      return NULL;
    }

  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, data, length, &local_error))
    {
      set_profile_error (error, WARDEN_POLICY_ERROR_PARSE, source_name,
                         _("is not valid JSON: %s"), local_error->message);
      return NULL;
    }

  root = json_parser_get_root (parser);
  if (root == NULL)
    {
      set_profile_error (error, WARDEN_POLICY_ERROR_PARSE, source_name,
                         _("is empty; a profile is a JSON object"));
      return NULL;
    }

  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                         _("is %s, not a JSON object"), json_type_description (root));
      return NULL;
    }

  if (find_escaped_nul (data, length, &nul_key, &nul_item))
    {
      if (nul_key != NULL && nul_item > 0)
        set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                           _("key “%s”: item %u contains a NUL character (\\u0000)"),
                           nul_key, nul_item);
      else if (nul_key != NULL)
        set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                           _("key “%s”: contains a NUL character (\\u0000)"), nul_key);
      else
        set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                           _("a key contains a NUL character (\\u0000)"));
      return NULL;
    }

  object = json_node_get_object (root);
  self = g_object_new (WARDEN_TYPE_PROFILE,
                       "id", id,
                       NULL);

  node = json_object_get_member (object, "version");
  if (node != NULL)
    {
      gint64 version;

      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
        {
          set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                             _("key “version”: is %s, not the number %d"),
                             json_type_description (node), PROFILE_VERSION);
          return NULL;
        }

      version = json_node_get_int (node);
      if (version > PROFILE_VERSION)
        {
          set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                             _("key “version”: the profile was written by a newer version of "
                               "Warden (profile version %lld, this Warden reads version %d); "
                               "update Warden to use it"),
                             (long long) version, PROFILE_VERSION);
          return NULL;
        }
      if (version < PROFILE_VERSION)
        {
          set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                             _("key “version”: %lld is not a profile version; it must be %d"),
                             (long long) version, PROFILE_VERSION);
          return NULL;
        }
    }

  if (!load_string_member (object, "name", &self->name, source_name, error) ||
      !load_string_member (object, "description", &self->description, source_name, error) ||
      !load_string_member (object, "image", &self->image, source_name, error) ||
      !load_string_member (object, "mode", &mode_string, source_name, error))
    return NULL;

  if (self->image != NULL && !warden_profile_image_is_valid (self->image))
    {
      set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                         _("key “image”: “%s” is not an image name such as “node:20-slim”"),
                         self->image);
      return NULL;
    }
  if (self->name != NULL && self->name[0] == '\0')
    {
      set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                         _("key “name”: is empty; give the profile a name or leave the key "
                           "out to use its id"));
      return NULL;
    }

  if (mode_string != NULL && !warden_mode_from_string (mode_string, &self->mode))
    {
      set_profile_error (error, WARDEN_POLICY_ERROR_INVALID, source_name,
                         _("key “mode”: “%s” is not a mode; use “%s”, “%s” or “%s”"),
                         mode_string,
                         warden_mode_to_string (WARDEN_MODE_ALLOWLIST),
                         warden_mode_to_string (WARDEN_MODE_APPROVAL_ALWAYS),
                         warden_mode_to_string (WARDEN_MODE_ALLOW_ALWAYS));
      return NULL;
    }

  if (!load_patterns (object, "allow", "allow", FALSE, self->allow, source_name, error) ||
      !load_patterns (object, "deny", "deny", FALSE, self->deny, source_name, error) ||
      !load_patterns (object, "ask", "ask", FALSE, self->ask, source_name, error) ||
      !load_files (self, object, source_name, error) ||
      !load_nested (self, object, source_name, error) ||
      !load_network (self, object, source_name, error))
    return NULL;

  json_object_iter_init_ordered (&iter, object);
  while (json_object_iter_next_ordered (&iter, &member_name, &member))
    {
      if (!g_strv_contains (known_keys, member_name))
        json_object_set_member (self->unknown, member_name, json_node_deep_copy (member));
    }

  return g_steal_pointer (&self);
}

WardenProfile *
warden_profile_new_from_file (GFile   *file,
                              GError **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *raw_basename = NULL;
  g_autofree char *basename = NULL;
  g_autofree char *source_name = NULL;
  g_autofree char *contents = NULL;
  gsize length;

  g_return_val_if_fail (G_IS_FILE (file), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  source_name = g_file_get_parse_name (file);
  raw_basename = g_file_get_basename (file);
  basename = g_utf8_make_valid (raw_basename, -1);

  if (g_str_has_suffix (basename, ".json"))
    basename[strlen (basename) - strlen (".json")] = '\0';

  if (!g_file_load_contents (file, NULL, &contents, &length, NULL, &local_error))
    {
      int code = g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND)
                   ? WARDEN_POLICY_ERROR_NOT_FOUND
                   : WARDEN_POLICY_ERROR_IO;

      g_set_error (error, WARDEN_POLICY_ERROR, code,
                   _("Could not read profile “%s”: %s"), source_name, local_error->message);
      return NULL;
    }

  return warden_profile_new_from_data (basename, contents, length, source_name, error);
}

WardenProfile *
warden_profile_new_builtin (const char  *id,
                            GError     **error)
{
  g_autoptr(WardenProfile) self = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *path = NULL;
  g_autofree char *source_name = NULL;

  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!warden_profile_id_is_valid (id))
    {
      set_invalid_id_error (error, id);
      return NULL;
    }

  path = g_strconcat (BUILTIN_PATH_PREFIX, id, ".json", NULL);
  bytes = g_resource_lookup_data (warden_get_resource (), path, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  if (bytes == NULL)
    {
      g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_NOT_FOUND,
                   _("There is no built-in profile “%s”"), id);
      return NULL;
    }

  source_name = g_strconcat ("resource://", path, NULL);
  self = warden_profile_new_from_data (id,
                                       g_bytes_get_data (bytes, NULL),
                                       g_bytes_get_size (bytes),
                                       source_name,
                                       error);
  if (self == NULL)
    return NULL;

  self->builtin = TRUE;

  return g_steal_pointer (&self);
}

WardenProfile *
warden_profile_copy (WardenProfile *self,
                     const char    *new_id)
{
  WardenProfile *copy;
  JsonObjectIter iter;
  const char *member_name;
  JsonNode *member;

  g_return_val_if_fail (WARDEN_IS_PROFILE (self), NULL);
  g_return_val_if_fail (warden_profile_id_is_valid (new_id), NULL);

  copy = warden_profile_new (new_id);
  copy->name = g_strdup (self->name);
  copy->description = g_strdup (self->description);
  copy->image = g_strdup (self->image);
  copy->mode = self->mode;

  for (guint i = 0; i < self->allow->len; i++)
    g_ptr_array_add (copy->allow, g_strdup (g_ptr_array_index (self->allow, i)));
  for (guint i = 0; i < self->deny->len; i++)
    g_ptr_array_add (copy->deny, g_strdup (g_ptr_array_index (self->deny, i)));
  for (guint i = 0; i < self->ask->len; i++)
    g_ptr_array_add (copy->ask, g_strdup (g_ptr_array_index (self->ask, i)));

  json_object_iter_init_ordered (&iter, self->unknown);
  while (json_object_iter_next_ordered (&iter, &member_name, &member))
    json_object_set_member (copy->unknown, member_name, json_node_deep_copy (member));

  copy->file_write = self->file_write;
  for (guint i = 0; i < self->protect->len; i++)
    g_ptr_array_add (copy->protect, g_strdup (g_ptr_array_index (self->protect, i)));
  copy->has_files = self->has_files;
  copy->nested_off = self->nested_off;
  copy->has_nested = self->has_nested;
  copy->has_network = self->has_network;
  copy->network_mode = self->network_mode;
  for (guint i = 0; i < self->network_allow->len; i++)
    g_ptr_array_add (copy->network_allow, g_strdup (g_ptr_array_index (self->network_allow, i)));
  for (guint i = 0; i < self->network_deny->len; i++)
    g_ptr_array_add (copy->network_deny, g_strdup (g_ptr_array_index (self->network_deny, i)));
  json_object_iter_init_ordered (&iter, self->network_unknown);
  while (json_object_iter_next_ordered (&iter, &member_name, &member))
    json_object_set_member (copy->network_unknown, member_name, json_node_deep_copy (member));
  json_object_iter_init_ordered (&iter, self->files_unknown);
  while (json_object_iter_next_ordered (&iter, &member_name, &member))
    json_object_set_member (copy->files_unknown, member_name, json_node_deep_copy (member));

  return copy;
}

static JsonNode *
pattern_array_to_node (GPtrArray *array)
{
  JsonArray *json_array = json_array_sized_new (array->len);
  JsonNode *node;

  for (guint i = 0; i < array->len; i++)
    json_array_add_string_element (json_array, g_ptr_array_index (array, i));

  node = json_node_init_array (json_node_alloc (), json_array);
  json_array_unref (json_array);

  return node;
}

char *
warden_profile_to_data (WardenProfile *self,
                        gsize         *length)
{
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *json = NULL;
  JsonObjectIter iter;
  const char *member_name;
  JsonNode *member;
  gsize json_length;
  char *data;

  g_return_val_if_fail (WARDEN_IS_PROFILE (self), NULL);

  /* The known keys in a fixed order, then the unknown ones as they came. */
  object = json_object_new ();
  json_object_set_int_member (object, "version", PROFILE_VERSION);
  json_object_set_string_member (object, "name", warden_profile_get_name (self));
  if (self->description != NULL)
    json_object_set_string_member (object, "description", self->description);
  if (self->image != NULL)
    json_object_set_string_member (object, "image", self->image);
  json_object_set_string_member (object, "mode", warden_mode_to_string (self->mode));
  json_object_set_member (object, "allow", pattern_array_to_node (self->allow));
  json_object_set_member (object, "deny", pattern_array_to_node (self->deny));
  /* Only when there are some: a file without ask rules stays as it was. */
  if (self->ask->len > 0)
    json_object_set_member (object, "ask", pattern_array_to_node (self->ask));
  /* Left out where it says what its absence says, so older files stay as
   * they were. */
  if (self->has_files || self->file_write != WARDEN_FILE_WRITE_ALLOW)
    {
      JsonObject *files = json_object_new ();

      json_object_set_string_member (files, "write",
                                     warden_file_write_to_string (self->file_write));
      if (self->protect->len > 0)
        json_object_set_member (files, "protect", pattern_array_to_node (self->protect));
      json_object_iter_init_ordered (&iter, self->files_unknown);
      while (json_object_iter_next_ordered (&iter, &member_name, &member))
        json_object_set_member (files, member_name, json_node_copy (member));
      json_object_set_object_member (object, "files", files);
    }

  if (self->has_nested || self->nested_off)
    json_object_set_string_member (object, "nested", self->nested_off ? "off" : "check");

  if (self->has_network)
    {
      JsonObject *network = json_object_new ();

      json_object_set_string_member (network, "mode",
                                     warden_network_mode_to_string (self->network_mode));
      json_object_set_member (network, "allow", pattern_array_to_node (self->network_allow));
      json_object_set_member (network, "deny", pattern_array_to_node (self->network_deny));
      json_object_iter_init_ordered (&iter, self->network_unknown);
      while (json_object_iter_next_ordered (&iter, &member_name, &member))
        json_object_set_member (network, member_name, json_node_copy (member));
      json_object_set_object_member (object, "network", network);
    }

  json_object_iter_init_ordered (&iter, self->unknown);
  while (json_object_iter_next_ordered (&iter, &member_name, &member))
    json_object_set_member (object, member_name, json_node_copy (member));

  root = json_node_init_object (json_node_alloc (), object);

  json = warden_json_to_string (root, TRUE);
  json_length = strlen (json);

  data = g_malloc (json_length + 2);
  memcpy (data, json, json_length);
  data[json_length] = '\n';
  data[json_length + 1] = '\0';

  if (length != NULL)
    *length = json_length + 1;

  return data;
}

static void
sync_directory (const char *dir)
{
  int fd = g_open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);

  /* Makes the rename itself durable; where that cannot be done the file is
   * still consistent, so failing here is not an error. */
  if (fd >= 0)
    {
      fsync (fd);
      g_close (fd, NULL);
    }
}

static void
set_save_error (GError     **error,
                const char  *path,
                const char  *what)
{
  g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_IO,
               _("Could not save profile “%s”: %s. Check that the folder is writable and the "
                 "disk is not full, then save again; the file there is unchanged"),
               path, what);
}

/* Each step leaves a complete file at @path: the old one is copied to
 * "@path.bak" through a temporary file and a rename, then the new one
 * replaces @path the same way. */
static gboolean
write_file_with_backup (const char  *path,
                        const char  *data,
                        gsize        length,
                        GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *dir = g_path_get_dirname (path);
  int mode = 0600;
  GStatBuf st;

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved_errno = errno;
      g_autofree char *what = g_strdup_printf (_("could not create the folder “%s”: %s"),
                                               dir, g_strerror (saved_errno));

      set_save_error (error, path, what);
      return FALSE;
    }

  if (g_stat (path, &st) == 0)
    {
      g_autofree char *backup = g_strconcat (path, ".bak", NULL);
      g_autofree char *old = NULL;
      gsize old_length;

      mode = st.st_mode & 0777;

      if (!g_file_get_contents (path, &old, &old_length, &local_error) ||
          !g_file_set_contents_full (backup, old, old_length,
                                     G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                     mode, &local_error))
        {
          g_autofree char *what = g_strdup_printf (_("could not keep the previous version as "
                                                     "“%s”: %s"),
                                                   backup, local_error->message);

          set_save_error (error, path, what);
          return FALSE;
        }
    }
  else if (errno != ENOENT)
    {
      int saved_errno = errno;

      set_save_error (error, path, g_strerror (saved_errno));
      return FALSE;
    }

  if (!g_file_set_contents_full (path, data, length,
                                 G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                 mode, &local_error))
    {
      set_save_error (error, path, local_error->message);
      return FALSE;
    }

  sync_directory (dir);

  return TRUE;
}

gboolean
warden_profile_save_to_file (WardenProfile  *self,
                             GFile          *file,
                             GError        **error)
{
  g_autofree char *path = NULL;
  g_autofree char *data = NULL;
  gsize length;

  g_return_val_if_fail (WARDEN_IS_PROFILE (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* Built-in profiles may be written out (exported) like any other; it is
   * the store that refuses to take them in as user profiles. */
  path = g_file_get_path (file);
  if (path == NULL)
    {
      g_autofree char *uri = g_file_get_uri (file);

      g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_IO,
                   _("Could not save profile “%s”: profiles can only be saved to local "
                     "files"),
                   uri);
      return FALSE;
    }

  data = warden_profile_to_data (self, &length);

  return write_file_with_backup (path, data, length, error);
}

const char *
warden_profile_get_id (WardenProfile *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), NULL);

  return self->id;
}

const char *
warden_profile_get_name (WardenProfile *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), NULL);

  return self->name != NULL ? self->name : self->id;
}

/* NULL or "" gives the profile its id as a name again. */
void
warden_profile_set_name (WardenProfile *self,
                         const char    *name)
{
  g_return_if_fail (WARDEN_IS_PROFILE (self));

  if (name != NULL && name[0] == '\0')
    name = NULL;

  if (g_strcmp0 (self->name, name) == 0)
    return;

  g_free (self->name);
  self->name = g_strdup (name);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NAME]);
}

const char *
warden_profile_get_description (WardenProfile *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), NULL);

  return self->description != NULL ? self->description : "";
}

void
warden_profile_set_description (WardenProfile *self,
                                const char    *description)
{
  g_return_if_fail (WARDEN_IS_PROFILE (self));

  if (g_strcmp0 (self->description, description) == 0)
    return;

  g_free (self->description);
  self->description = g_strdup (description);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DESCRIPTION]);
}

/* A Docker image reference as a person types one: registry/name:tag or
 * @digest, no spaces or control characters, at most 255 bytes. */
gboolean
warden_profile_image_is_valid (const char *image)
{
  gsize len;

  if (image == NULL || *image == '\0' || (len = strlen (image)) > 255 ||
      !g_utf8_validate (image, -1, NULL))
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!(g_ascii_isalnum (image[i]) || strchr ("._-/:@", image[i]) != NULL))
      return FALSE;
  return g_ascii_isalnum (image[0]);
}

const char *
warden_profile_get_image (WardenProfile *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), NULL);

  return self->image;
}

/* NULL or "" goes back to Warden's default image. */
gboolean
warden_profile_set_image (WardenProfile *self,
                          const char    *image)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), FALSE);

  if (image != NULL && *image == '\0')
    image = NULL;
  if (image != NULL && !warden_profile_image_is_valid (image))
    return FALSE;
  if (g_strcmp0 (self->image, image) == 0)
    return TRUE;
  g_free (self->image);
  self->image = g_strdup (image);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_IMAGE]);
  return TRUE;
}

WardenMode
warden_profile_get_mode (WardenProfile *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), WARDEN_MODE_ALLOWLIST);

  return self->mode;
}

void
warden_profile_set_mode (WardenProfile *self,
                         WardenMode     mode)
{
  g_return_if_fail (WARDEN_IS_PROFILE (self));
  g_return_if_fail (mode >= WARDEN_MODE_ALLOWLIST && mode <= WARDEN_MODE_ALLOW_ALWAYS);

  if (self->mode == mode)
    return;

  self->mode = mode;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODE]);
}

WardenFileWrite
warden_profile_get_file_write (WardenProfile *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), WARDEN_FILE_WRITE_ALLOW);

  return self->file_write;
}

void
warden_profile_set_file_write (WardenProfile   *self,
                               WardenFileWrite  rule)
{
  g_return_if_fail (WARDEN_IS_PROFILE (self));
  g_return_if_fail (rule <= WARDEN_FILE_WRITE_NEVER);

  if (self->file_write == rule)
    return;

  self->file_write = rule;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE_WRITE]);
}

gboolean
warden_profile_get_check_nested (WardenProfile *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), TRUE);

  return !self->nested_off;
}

void
warden_profile_set_check_nested (WardenProfile *self,
                                 gboolean       check)
{
  g_return_if_fail (WARDEN_IS_PROFILE (self));

  if (!self->nested_off == !!check)
    return;
  self->nested_off = !check;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CHECK_NESTED]);
}

const char * const *
warden_profile_get_allow (WardenProfile *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), NULL);

  return pattern_array_peek (self->allow);
}

const char * const *
warden_profile_get_deny (WardenProfile *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), NULL);

  return pattern_array_peek (self->deny);
}

const char * const *
warden_profile_get_ask (WardenProfile *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), NULL);

  return pattern_array_peek (self->ask);
}

static gboolean
add_pattern (WardenProfile  *self,
             GPtrArray      *array,
             GParamSpec     *pspec,
             const char     *pattern,
             GError        **error)
{
  gboolean hosts = array == self->network_allow || array == self->network_deny;
  g_autofree char *normal = NULL;

  g_return_val_if_fail (pattern != NULL, FALSE);

  if (hosts ? !warden_host_pattern_validate (pattern, error)
            : !warden_pattern_validate (pattern, error))
    return FALSE;
  normal = hosts ? warden_host_pattern_normalize (pattern) : g_strdup (pattern);

  if (pattern_array_contains (array, normal, NULL))
    return TRUE;

  g_ptr_array_add (array, g_steal_pointer (&normal));
  g_object_notify_by_pspec (G_OBJECT (self), pspec);

  return TRUE;
}

static gboolean
remove_pattern (WardenProfile *self,
                GPtrArray     *array,
                GParamSpec    *pspec,
                const char    *pattern)
{
  guint index;

  if (pattern == NULL || !pattern_array_contains (array, pattern, &index))
    return FALSE;

  g_ptr_array_remove_index (array, index);
  g_object_notify_by_pspec (G_OBJECT (self), pspec);

  return TRUE;
}

gboolean
warden_profile_add_allow (WardenProfile  *self,
                          const char     *pattern,
                          GError        **error)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return add_pattern (self, self->allow, properties[PROP_ALLOW], pattern, error);
}

gboolean
warden_profile_add_deny (WardenProfile  *self,
                         const char     *pattern,
                         GError        **error)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return add_pattern (self, self->deny, properties[PROP_DENY], pattern, error);
}

gboolean
warden_profile_add_ask (WardenProfile  *self,
                        const char     *pattern,
                        GError        **error)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return add_pattern (self, self->ask, properties[PROP_ASK], pattern, error);
}

gboolean
warden_profile_remove_allow (WardenProfile *self,
                             const char    *pattern)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), FALSE);

  return remove_pattern (self, self->allow, properties[PROP_ALLOW], pattern);
}

gboolean
warden_profile_remove_deny (WardenProfile *self,
                            const char    *pattern)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), FALSE);

  return remove_pattern (self, self->deny, properties[PROP_DENY], pattern);
}

gboolean
warden_profile_remove_ask (WardenProfile *self,
                           const char    *pattern)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), FALSE);

  return remove_pattern (self, self->ask, properties[PROP_ASK], pattern);
}

gboolean
warden_profile_get_builtin (WardenProfile *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), FALSE);

  return self->builtin;
}

static gboolean
set_patterns (WardenProfile       *self,
              GPtrArray           *array,
              GParamSpec          *pspec,
              const char * const  *patterns,
              GError             **error)
{
  gboolean hosts = array == self->network_allow || array == self->network_deny;
  g_autoptr(GPtrArray) replacement = pattern_array_new ();
  gboolean changed;

  for (guint i = 0; patterns != NULL && patterns[i] != NULL; i++)
    {
      g_autoptr(GError) local_error = NULL;
      g_autofree char *normal = NULL;

      if (hosts ? !warden_host_pattern_validate (patterns[i], &local_error)
                : !warden_pattern_validate (patterns[i], &local_error))
        {
          g_set_error (error, WARDEN_POLICY_ERROR, WARDEN_POLICY_ERROR_INVALID,
                       _("pattern %u (“%s”) is not valid: %s"),
                       i + 1, patterns[i], local_error->message);
          return FALSE;
        }
      normal = hosts ? warden_host_pattern_normalize (patterns[i]) : g_strdup (patterns[i]);
      if (!pattern_array_contains (replacement, normal, NULL))
        g_ptr_array_add (replacement, g_steal_pointer (&normal));
    }

  changed = replacement->len != array->len;
  for (guint i = 0; !changed && i < array->len; i++)
    changed = strcmp (g_ptr_array_index (array, i), g_ptr_array_index (replacement, i)) != 0;
  if (!changed)
    return TRUE;

  /* In place, so the array the struct points at stays the same one. */
  g_ptr_array_set_size (array, 0);
  for (guint i = 0; i < replacement->len; i++)
    g_ptr_array_add (array, g_steal_pointer (&replacement->pdata[i]));
  g_object_notify_by_pspec (G_OBJECT (self), pspec);

  return TRUE;
}

gboolean
warden_profile_set_allow (WardenProfile       *self,
                          const char * const  *patterns,
                          GError             **error)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return set_patterns (self, self->allow, properties[PROP_ALLOW], patterns, error);
}

gboolean
warden_profile_set_deny (WardenProfile       *self,
                         const char * const  *patterns,
                         GError             **error)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return set_patterns (self, self->deny, properties[PROP_DENY], patterns, error);
}

gboolean
warden_profile_set_ask (WardenProfile       *self,
                        const char * const  *patterns,
                        GError             **error)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return set_patterns (self, self->ask, properties[PROP_ASK], patterns, error);
}

gboolean
warden_profile_has_network (WardenProfile *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), FALSE);

  return self->has_network;
}

WardenNetworkMode
warden_profile_get_network_mode (WardenProfile *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), WARDEN_NETWORK_NONE);

  return self->network_mode;
}

void
warden_profile_set_network_mode (WardenProfile     *self,
                                 WardenNetworkMode  mode)
{
  g_return_if_fail (WARDEN_IS_PROFILE (self));
  g_return_if_fail (mode <= WARDEN_NETWORK_OPEN);

  if (self->has_network && self->network_mode == mode)
    return;
  self->has_network = TRUE;
  self->network_mode = mode;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NETWORK_MODE]);
}

const char * const *
warden_profile_get_network_allow (WardenProfile *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), NULL);

  return pattern_array_peek (self->network_allow);
}

const char * const *
warden_profile_get_network_deny (WardenProfile *self)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), NULL);

  return pattern_array_peek (self->network_deny);
}

gboolean
warden_profile_set_network_allow (WardenProfile       *self,
                                  const char * const  *patterns,
                                  GError             **error)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!set_patterns (self, self->network_allow, properties[PROP_NETWORK_ALLOW], patterns, error))
    return FALSE;
  self->has_network = TRUE;
  return TRUE;
}

gboolean
warden_profile_set_network_deny (WardenProfile       *self,
                                 const char * const  *patterns,
                                 GError             **error)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!set_patterns (self, self->network_deny, properties[PROP_NETWORK_DENY], patterns, error))
    return FALSE;
  self->has_network = TRUE;
  return TRUE;
}

gboolean
warden_profile_add_network_allow (WardenProfile  *self,
                                  const char     *pattern,
                                  GError        **error)
{
  g_return_val_if_fail (WARDEN_IS_PROFILE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!add_pattern (self, self->network_allow, properties[PROP_NETWORK_ALLOW], pattern, error))
    return FALSE;
  self->has_network = TRUE;
  return TRUE;
}
