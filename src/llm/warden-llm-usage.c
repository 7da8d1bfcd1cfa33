/* warden-llm-usage.c: what requests to a model used, and what they cost
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-llm"

#include <glib/gi18n.h>

#include "warden-llm-usage.h"

void
warden_llm_usage_add (WardenLlmUsage       *sum,
                      const WardenLlmUsage *usage)
{
  g_return_if_fail (sum != NULL && usage != NULL);

  sum->input_tokens += usage->input_tokens;
  sum->cache_read_tokens += usage->cache_read_tokens;
  sum->cache_write_tokens += usage->cache_write_tokens;
  sum->output_tokens += usage->output_tokens;
  sum->cost += usage->cost;
  sum->requests += usage->requests;
  sum->unreported += usage->unreported;
  sum->unpriced += usage->unpriced;
}

gboolean
warden_llm_usage_tokens_known (const WardenLlmUsage *usage)
{
  return usage->unreported == 0;
}

gboolean
warden_llm_usage_cost_known (const WardenLlmUsage *usage)
{
  return usage->unpriced == 0 && usage->unreported == 0;
}

char *
warden_llm_usage_format_count (gint64 count)
{
  if (count < 1000)
    return g_strdup_printf ("%" G_GINT64_FORMAT, count);
  if (count < 100000)
    return g_strdup_printf ("%.1fk", count / 1000.0);
  if (count < 1000000)
    return g_strdup_printf ("%.0fk", count / 1000.0);
  return g_strdup_printf ("%.2fM", count / 1000000.0);
}

char *
warden_llm_usage_format_cost (double cost)
{
  /* A cost that rounds to nothing is still not nothing. */
  if (cost > 0 && cost < 0.005)
    return g_strdup ("<$0.01");
  return g_strdup_printf ("$%.2f", cost);
}

char *
warden_llm_usage_format (const WardenLlmUsage *usage)
{
  g_autofree char *in = NULL;
  g_autofree char *out = NULL;
  g_autofree char *cost = NULL;

  g_return_val_if_fail (usage != NULL, NULL);

  if (usage->requests > 0 && usage->unreported == usage->requests)
    return g_strdup (_("usage unknown"));

  in = warden_llm_usage_format_count (usage->input_tokens);
  out = warden_llm_usage_format_count (usage->output_tokens);
  cost = warden_llm_usage_cost_known (usage) ? warden_llm_usage_format_cost (usage->cost)
                                             : g_strdup (_("cost unknown"));
  if (usage->unreported > 0)
    /* Translators: tokens the model read and wrote, at least: some requests did not say;
     * then the cost ("cost unknown"). */
    return g_strdup_printf (_("≥%s in · ≥%s out · %s"), in, out, cost);
  /* Translators: tokens the model read ("12.3k") and wrote, then the cost ("$0.04"). */
  return g_strdup_printf (_("%s in · %s out · %s"), in, out, cost);
}

static void
set_count (JsonObject           *object,
           const char           *member,
           const WardenLlmUsage *usage,
           gint64                count)
{
  if (warden_llm_usage_tokens_known (usage))
    json_object_set_int_member (object, member, count);
  else
    json_object_set_null_member (object, member);
}

void
warden_llm_usage_to_json (const WardenLlmUsage *usage,
                          JsonObject           *object)
{
  g_return_if_fail (usage != NULL && object != NULL);

  set_count (object, "input_tokens", usage, usage->input_tokens);
  set_count (object, "output_tokens", usage, usage->output_tokens);
  set_count (object, "cache_read_tokens", usage, usage->cache_read_tokens);
  set_count (object, "cache_write_tokens", usage, usage->cache_write_tokens);
  if (warden_llm_usage_cost_known (usage))
    json_object_set_double_member (object, "cost_usd", usage->cost);
  else
    json_object_set_null_member (object, "cost_usd");
  json_object_set_int_member (object, "requests", usage->requests);
}
