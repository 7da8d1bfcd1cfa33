/* warden-llm-usage.h: what requests to a model used, and what they cost
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The usage of one request, or the sum of several (a turn, a session).
 * Counts are what the providers said; a request whose provider said nothing
 * adds none and is counted in @unreported, so a sum never passes an unknown
 * off as 0. A cost is a fact or unknown: the provider's own figure, or the
 * price table's (warden-llm-prices.h); never an estimate. */
typedef struct
{
  gint64 input_tokens;        /* all the input the model read, cached or not */
  gint64 cache_read_tokens;   /* of input_tokens: read from the provider's prompt cache */
  gint64 cache_write_tokens;  /* of input_tokens: written to it */
  gint64 output_tokens;
  double cost;                /* US dollars, of the requests that have one */
  guint  requests;            /* how many requests this sums */
  guint  unreported;          /* of those, how many came without usage */
  guint  unpriced;            /* of those, how many have no known cost (unreported ones too) */
} WardenLlmUsage;

/* Adds @usage to @sum. */
void      warden_llm_usage_add          (WardenLlmUsage       *sum,
                                         const WardenLlmUsage *usage);
/* Whether every request summed said what it used. */
gboolean  warden_llm_usage_tokens_known (const WardenLlmUsage *usage);
/* Whether the cost of every request summed is known. */
gboolean  warden_llm_usage_cost_known   (const WardenLlmUsage *usage);
/* "12.3k" */
char     *warden_llm_usage_format_count (gint64                count);
/* "$0.04", "<$0.01" */
char     *warden_llm_usage_format_cost  (double                cost);
/* The compact line every front end shows: "12.3k in · 1.2k out · $0.04",
 * "… · cost unknown", "≥12.3k in · ≥1.2k out · cost unknown" when some
 * requests said nothing, "usage unknown" when none did. */
char     *warden_llm_usage_format       (const WardenLlmUsage *usage);

/* Sets in @object the members every JSON form of usage has (the trace,
 * warden-cli's --json and sessions show): "input_tokens" (cache included),
 * "output_tokens", "cache_read_tokens", "cache_write_tokens" — integers, or
 * null when a request summed said nothing —, "cost_usd" (a number, or null
 * when not known) and "requests". */
void      warden_llm_usage_to_json      (const WardenLlmUsage *usage,
                                         JsonObject           *object);

G_END_DECLS
