/* test-usage.c: sums of usage, the price table, and how both are shown
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <locale.h>
#include <string.h>

#include "llm/warden-llm-prices.h"

static WardenLlmUsage
one_request (gint64 input,
             gint64 cache_read,
             gint64 cache_write,
             gint64 output)
{
  WardenLlmUsage usage = { 0 };

  usage.input_tokens = input;
  usage.cache_read_tokens = cache_read;
  usage.cache_write_tokens = cache_write;
  usage.output_tokens = output;
  usage.requests = 1;
  usage.unpriced = 1;
  return usage;
}

/* Table-driven: one named path per model, what a request costs. */
typedef struct
{
  const char *model;
  gint64      input, cache_read, cache_write, output;
  gboolean    priced;
  double      cost;
} PriceRow;

static const PriceRow price_rows[] = {
  /* 1M uncached in at $3, 100k out at $15 */
  { "claude-sonnet-4-5", 1000000, 0, 0, 100000, TRUE, 3.0 + 1.5 },
  /* a dated release is the same model */
  { "claude-sonnet-4-5-20250929", 1000000, 0, 0, 100000, TRUE, 3.0 + 1.5 },
  /* cache reads at $0.30, writes at $3.75: 2000 read, 100 written, 5 plain */
  { "claude-sonnet-4-5", 2105, 2000, 100, 0, TRUE, (5 * 3.0 + 2000 * 0.30 + 100 * 3.75) / 1e6 },
  { "gpt-4o-2024-08-06", 2000000, 1000000, 0, 0, TRUE, 2.5 + 1.25 },
  /* a model the table does not know */
  { "llama3.1:8b", 1000, 0, 0, 10, FALSE, 0 },
  /* a prefix of a known model is not that model */
  { "claude-sonnet", 1000, 0, 0, 10, FALSE, 0 },
  { "gpt-4o-mini-tts", 1000, 0, 0, 10, FALSE, 0 },
  /* OpenAI models have no cache write price: a write makes the cost unknown */
  { "gpt-4o", 1000, 0, 10, 10, FALSE, 0 },
};

static void
test_price (gconstpointer data)
{
  const PriceRow *row = data;
  WardenLlmPrices *prices = warden_llm_prices_get_default (NULL);
  WardenLlmUsage usage = one_request (row->input, row->cache_read, row->cache_write, row->output);

  g_assert_cmpint (warden_llm_prices_apply (prices, row->model, &usage), ==, row->priced);
  g_assert_cmpint (warden_llm_usage_cost_known (&usage), ==, row->priced);
  if (row->priced)
    g_assert_cmpfloat_with_epsilon (usage.cost, row->cost, 1e-12);
}

/* The provider's own figure stands; a request without usage has no cost. */
static void
test_price_kept (void)
{
  WardenLlmPrices *prices = warden_llm_prices_get_default (NULL);
  WardenLlmUsage usage = one_request (1000000, 0, 0, 0);
  WardenLlmUsage unreported = one_request (0, 0, 0, 0);

  usage.cost = 0.5;
  usage.unpriced = 0;
  g_assert_true (warden_llm_prices_apply (prices, "claude-sonnet-4-5", &usage));
  g_assert_cmpfloat (usage.cost, ==, 0.5);

  unreported.unreported = 1;
  g_assert_false (warden_llm_prices_apply (prices, "claude-sonnet-4-5", &unreported));
  g_assert_cmpuint (unreported.unpriced, ==, 1);
}

/* The user's prices.json adds models and overrides Warden's. */
static void
test_user_file (void)
{
  g_autoptr(WardenLlmPrices) prices = warden_llm_prices_new ();
  g_autofree char *dir = g_dir_make_tmp ("warden-prices-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "prices.json", NULL);
  g_autoptr(GError) error = NULL;
  WardenLlmUsage usage = one_request (1000000, 0, 0, 1000000);

  g_assert_true (g_file_set_contents (path,
                                      "{\"models\": {\"llama3.1:8b\": {\"input\": 0, \"output\": 0},"
                                      " \"my-model\": {\"input\": 1, \"output\": 2.5}}}",
                                      -1, NULL));
  g_assert_true (warden_llm_prices_load_file (prices, path, &error));
  g_assert_no_error (error);
  g_assert_true (warden_llm_prices_apply (prices, "my-model", &usage));
  g_assert_cmpfloat_with_epsilon (usage.cost, 3.5, 1e-12);
  usage = one_request (5000, 0, 0, 50);
  g_assert_true (warden_llm_prices_apply (prices, "llama3.1:8b", &usage));
  g_assert_cmpfloat (usage.cost, ==, 0);

  /* A missing file is no table, and no error. */
  g_assert_true (warden_llm_prices_load_file (prices, "/nonexistent/prices.json", &error));
  g_assert_no_error (error);

  g_unlink (path);
  g_rmdir (dir);
}

/* A bad file says which and what to do, and changes nothing. */
typedef struct
{
  const char *text;
  const char *says;
} BadRow;

static const BadRow bad_rows[] = {
  { "{\"models\": {\"my-model\": {\"input\": 1, \"output\": 2}", "is not JSON" },
  { "[1, 2]", "has no “models” object" },
  { "{\"models\": {\"other\": {\"input\": 1, \"output\": 1}, \"my-model\": {\"input\": \"1\"}}}",
    "The price of “my-model”" },
  { "{\"models\": {\"my-model\": {\"input\": -1, \"output\": 2}}}", "The price of “my-model”" },
};

static void
test_bad_file (gconstpointer data)
{
  const BadRow *row = data;
  g_autoptr(WardenLlmPrices) prices = warden_llm_prices_new ();
  g_autofree char *dir = g_dir_make_tmp ("warden-prices-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "prices.json", NULL);
  g_autoptr(GError) error = NULL;
  WardenLlmUsage usage = one_request (1000, 0, 0, 10);

  g_assert_true (g_file_set_contents (path, row->text, -1, NULL));
  g_assert_false (warden_llm_prices_load_file (prices, path, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, row->says));
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, "correct it or remove it"));
  g_assert_false (warden_llm_prices_apply (prices, "other", &usage));

  g_unlink (path);
  g_rmdir (dir);
}

/* Sums: tokens of the requests that said, and whether all did. */
static void
test_sum (void)
{
  WardenLlmPrices *prices = warden_llm_prices_get_default (NULL);
  WardenLlmUsage turn = { 0 };
  WardenLlmUsage a = one_request (12000, 0, 0, 700);
  WardenLlmUsage b = one_request (300, 0, 0, 500);
  WardenLlmUsage c = one_request (0, 0, 0, 0);
  g_autofree char *shown = NULL;
  g_autofree char *partial = NULL;
  g_autofree char *empty = NULL;

  g_assert_true (warden_llm_prices_apply (prices, "claude-sonnet-4-5", &a));
  g_assert_true (warden_llm_prices_apply (prices, "claude-sonnet-4-5", &b));
  warden_llm_usage_add (&turn, &a);
  warden_llm_usage_add (&turn, &b);
  g_assert_cmpint (turn.input_tokens, ==, 12300);
  g_assert_cmpint (turn.output_tokens, ==, 1200);
  g_assert_cmpuint (turn.requests, ==, 2);
  g_assert_true (warden_llm_usage_cost_known (&turn));
  g_assert_cmpfloat_with_epsilon (turn.cost, (12300 * 3.0 + 1200 * 15.0) / 1e6, 1e-12);
  shown = warden_llm_usage_format (&turn);
  g_assert_cmpstr (shown, ==, "12.3k in · 1.2k out · $0.05");

  /* One request said nothing: the counts are a floor, the cost unknown. */
  c.unreported = 1;
  warden_llm_usage_add (&turn, &c);
  g_assert_false (warden_llm_usage_tokens_known (&turn));
  g_assert_false (warden_llm_usage_cost_known (&turn));
  partial = warden_llm_usage_format (&turn);
  g_assert_cmpstr (partial, ==, "≥12.3k in · ≥1.2k out · cost unknown");

  empty = warden_llm_usage_format (&(WardenLlmUsage) { 0 });
  g_assert_cmpstr (empty, ==, "0 in · 0 out · $0.00");
}

static void
test_format (void)
{
  WardenLlmUsage usage = one_request (950, 0, 0, 2345678);
  g_autofree char *unpriced = warden_llm_usage_format (&usage);
  g_autofree char *tiny = warden_llm_usage_format_cost (0.0001);
  g_autofree char *big = warden_llm_usage_format_count (123456);

  g_assert_cmpstr (unpriced, ==, "950 in · 2.35M out · cost unknown");
  g_assert_cmpstr (tiny, ==, "<$0.01");
  g_assert_cmpstr (big, ==, "123k");
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *config = g_dir_make_tmp ("warden-test-usage-XXXXXX", NULL);
  int status;

  setlocale (LC_ALL, "C.UTF-8");
  /* Warden's own table, not the prices.json of whoever runs the tests. */
  g_setenv ("XDG_CONFIG_HOME", config, TRUE);
  g_test_init (&argc, &argv, NULL);

  g_test_add_data_func ("/llm/usage/price/anthropic", &price_rows[0], test_price);
  g_test_add_data_func ("/llm/usage/price/dated", &price_rows[1], test_price);
  g_test_add_data_func ("/llm/usage/price/cache", &price_rows[2], test_price);
  g_test_add_data_func ("/llm/usage/price/openai-cached", &price_rows[3], test_price);
  g_test_add_data_func ("/llm/usage/price/unknown-model", &price_rows[4], test_price);
  g_test_add_data_func ("/llm/usage/price/prefix-is-not-the-model", &price_rows[5], test_price);
  g_test_add_data_func ("/llm/usage/price/longer-name", &price_rows[6], test_price);
  g_test_add_data_func ("/llm/usage/price/no-cache-write-price", &price_rows[7], test_price);
  g_test_add_func ("/llm/usage/price/kept", test_price_kept);
  g_test_add_func ("/llm/usage/prices/user-file", test_user_file);
  g_test_add_data_func ("/llm/usage/prices/bad/not-json", &bad_rows[0], test_bad_file);
  g_test_add_data_func ("/llm/usage/prices/bad/no-models", &bad_rows[1], test_bad_file);
  g_test_add_data_func ("/llm/usage/prices/bad/string", &bad_rows[2], test_bad_file);
  g_test_add_data_func ("/llm/usage/prices/bad/negative", &bad_rows[3], test_bad_file);
  g_test_add_func ("/llm/usage/sum", test_sum);
  g_test_add_func ("/llm/usage/format", test_format);

  status = g_test_run ();
  g_rmdir (config);
  return status;
}
