/* warden-llm-prices.h: what models cost, per million tokens
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "warden-llm-usage.h"

G_BEGIN_DECLS

/* A price table: for each model, US dollars per million tokens of input,
 * output, cache writes and cache reads. JSON, as in data/prices.json:
 *   {"models": {"claude-sonnet-4-5": {"input": 3, "output": 15,
 *                                     "cache_write": 3.75, "cache_read": 0.3}}}
 * "input" and "output" are needed; a cache price left out leaves a request
 * that used the cache that way without a cost. A model is found by its
 * name, or by its name with a date after it ("claude-sonnet-4-5-20250929",
 * "gpt-4o-2024-08-06"). */
typedef struct _WardenLlmPrices WardenLlmPrices;

/* Warden's own table only. */
WardenLlmPrices *warden_llm_prices_new          (void);
void             warden_llm_prices_free         (WardenLlmPrices  *self);
/* Adds the models of the table at @path, over those already known. A
 * missing file is no error; one that is not such a table is
 * (G_IO_ERROR_INVALID_DATA, saying where and what to do), and adds nothing. */
gboolean         warden_llm_prices_load_file    (WardenLlmPrices  *self,
                                                 const char       *path,
                                                 GError          **error);
/* Warden's table with the user's $XDG_CONFIG_HOME/warden/prices.json over it,
 * read once. When that file is bad, Warden's table alone, and @error (may be
 * NULL) says why, each call. */
WardenLlmPrices *warden_llm_prices_get_default  (GError          **error);
/* Prices one request's @usage (requests 1) of @model: sets its cost and
 * clears unpriced when the table knows all it needs. A usage that is
 * already priced (the provider's own figure) or unreported is left as it is.
 * Returns whether @usage has a cost now. */
gboolean         warden_llm_prices_apply        (WardenLlmPrices  *self,
                                                 const char       *model,
                                                 WardenLlmUsage   *usage);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenLlmPrices, warden_llm_prices_free)

G_END_DECLS
