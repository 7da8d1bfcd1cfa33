/* warden-llm-prices.c: what models cost, per million tokens
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-llm"

#include <glib/gi18n.h>

#include "warden-llm-prices.h"

#include <string.h>

#include "warden-llm-provider-private.h"

/* Generated with the resources (data/warden.gresource.xml). Looked up
 * there, not in the global resources: a static library's constructor that
 * registers them is not linked into every program. */
GResource *warden_get_resource (void);

/* Where Warden's own table is, in the resources of libwarden. */
#define BUILTIN_PRICES "/io/github/wardenapp/Warden/prices.json"

typedef struct
{
  double input;
  double output;
  double cache_write;  /* < 0: not known */
  double cache_read;
} Price;

struct _WardenLlmPrices
{
  GHashTable *models;  /* name -> Price */
};

WardenLlmPrices *
warden_llm_prices_new (void)
{
  WardenLlmPrices *self = g_new0 (WardenLlmPrices, 1);

  self->models = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return self;
}

void
warden_llm_prices_free (WardenLlmPrices *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->models);
  g_free (self);
}

/* @member of @entry as a price: a number not below 0; -1 when it is not
 * there; FALSE when it is something else. */
static gboolean
read_price (JsonObject *entry,
            const char *member,
            double     *price)
{
  JsonNode *node = json_object_get_member (entry, member);
  GType type;

  *price = -1;
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
    return FALSE;
  *price = json_node_get_double (node);
  return *price >= 0;
}

/* Reads the whole table before it takes any of it, so that a bad file
 * changes nothing. */
static gboolean
add_table (WardenLlmPrices  *self,
           const char       *data,
           gsize             length,
           const char       *where,
           GError          **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) root = warden_llm_parse_json (data, length, &local_error);
  g_autoptr(GHashTable) read = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  JsonObject *models;
  g_autoptr(GList) names = NULL;
  GHashTableIter iter;
  gpointer key, value;

  if (root == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("The price table %s is not JSON (%s): correct it or remove it"),
                   where, local_error->message);
      return FALSE;
    }
  models = JSON_NODE_HOLDS_OBJECT (root)
           ? warden_llm_json_get_object (json_node_get_object (root), "models") : NULL;
  if (models == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("The price table %s has no “models” object: correct it or remove it"),
                   where);
      return FALSE;
    }
  names = json_object_get_members (models);
  for (GList *l = names; l != NULL; l = l->next)
    {
      JsonObject *entry = warden_llm_json_get_object (models, l->data);
      Price price;

      if (entry == NULL ||
          !read_price (entry, "input", &price.input) || price.input < 0 ||
          !read_price (entry, "output", &price.output) || price.output < 0 ||
          !read_price (entry, "cache_write", &price.cache_write) ||
          !read_price (entry, "cache_read", &price.cache_read))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       /* Translators: the model's name, then the file */
                       _("The price of “%s” in %s is not numbers of dollars per million "
                         "tokens (“input” and “output” are needed, “cache_write” and "
                         "“cache_read” may follow): correct it or remove it"),
                       (const char *) l->data, where);
          return FALSE;
        }
      g_hash_table_replace (read, g_strdup (l->data), g_memdup2 (&price, sizeof price));
    }

  g_hash_table_iter_init (&iter, read);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_hash_table_iter_steal (&iter);
      g_hash_table_replace (self->models, key, value);
    }
  return TRUE;
}

static WardenLlmPrices *
builtin_prices (void)
{
  WardenLlmPrices *self = warden_llm_prices_new ();
  g_autoptr(GBytes) bytes = g_resource_lookup_data (warden_get_resource (), BUILTIN_PRICES,
                                                   G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  g_autoptr(GError) error = NULL;
  gsize length = 0;
  const char *data;

  /* Built into Warden: a bad table is Warden's own bug, found by its tests. */
  g_assert (bytes != NULL);
  data = g_bytes_get_data (bytes, &length);
  if (!add_table (self, data, length, BUILTIN_PRICES, &error))
    g_critical ("%s", error->message);
  return self;
}

gboolean
warden_llm_prices_load_file (WardenLlmPrices  *self,
                             const char       *path,
                             GError          **error)
{
  g_autofree char *data = NULL;
  gsize length = 0;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (self != NULL && path != NULL, FALSE);

  if (!g_file_get_contents (path, &data, &length, &local_error))
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE;
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("Could not read the price table %s (%s): costs are those of Warden’s own "
                     "table"), path, local_error->message);
      return FALSE;
    }
  return add_table (self, data, length, path, error);
}

WardenLlmPrices *
warden_llm_prices_get_default (GError **error)
{
  static gsize prices;
  static char *problem;

  if (g_once_init_enter (&prices))
    {
      WardenLlmPrices *table = builtin_prices ();
      g_autofree char *path = g_build_filename (g_get_user_config_dir (), "warden",
                                                "prices.json", NULL);
      g_autoptr(GError) local_error = NULL;

      if (!warden_llm_prices_load_file (table, path, &local_error))
        problem = g_strdup (local_error->message);
      g_once_init_leave (&prices, (gsize) table);
    }
  if (problem != NULL)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, problem);
  return (WardenLlmPrices *) prices;
}

/* "-20250929" or "-2024-08-06": a dated release of the model before it. */
static gboolean
is_date_suffix (const char *s)
{
  if (*s++ != '-')
    return FALSE;
  if (strlen (s) == 8)
    {
      for (guint i = 0; i < 8; i++)
        if (!g_ascii_isdigit (s[i]))
          return FALSE;
      return TRUE;
    }
  if (strlen (s) == 10)
    {
      for (guint i = 0; i < 10; i++)
        if ((i == 4 || i == 7) ? s[i] != '-' : !g_ascii_isdigit (s[i]))
          return FALSE;
      return TRUE;
    }
  return FALSE;
}

static const Price *
lookup (WardenLlmPrices *self,
        const char      *model)
{
  const Price *price = g_hash_table_lookup (self->models, model);
  const char *dash;

  if (price != NULL)
    return price;
  dash = strrchr (model, '-');
  /* A YYYY-MM-DD date has two more dashes. */
  for (int back = 0; dash != NULL && back < 3; back++)
    {
      if (is_date_suffix (dash))
        {
          g_autofree char *base = g_strndup (model, dash - model);

          return g_hash_table_lookup (self->models, base);
        }
      while (--dash >= model && *dash != '-')
        ;
      if (dash < model)
        dash = NULL;
    }
  return NULL;
}

gboolean
warden_llm_prices_apply (WardenLlmPrices *self,
                         const char      *model,
                         WardenLlmUsage  *usage)
{
  const Price *price;
  gint64 uncached;

  g_return_val_if_fail (self != NULL && usage != NULL, FALSE);

  if (usage->unpriced == 0)
    return TRUE;
  if (usage->unreported > 0 || model == NULL)
    return FALSE;
  price = lookup (self, model);
  if (price == NULL ||
      (usage->cache_write_tokens > 0 && price->cache_write < 0) ||
      (usage->cache_read_tokens > 0 && price->cache_read < 0))
    return FALSE;

  uncached = usage->input_tokens - usage->cache_read_tokens - usage->cache_write_tokens;
  usage->cost = (MAX (uncached, 0) * price->input +
                 usage->cache_read_tokens * MAX (price->cache_read, 0) +
                 usage->cache_write_tokens * MAX (price->cache_write, 0) +
                 usage->output_tokens * price->output) / 1e6;
  usage->unpriced = 0;
  return TRUE;
}
