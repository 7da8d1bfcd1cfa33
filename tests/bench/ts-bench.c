/* ts-bench.c: parse each line of stdin with tree-sitter-bash, as the baseline for policy bench
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Built and run by scripts/bench, not by meson: it needs the tree-sitter-bash
 * grammar sources, which the script fetches into the build directory.
 *
 * Usage: ts-bench [--rounds N] [--verbose] < commands.txt
 *
 * Every round parses every command once, in file order. A timed parse is
 * ts_parser_parse_string, a walk over every node of the tree with a
 * TSTreeCursor (touching each node's type, as Warden touches every word), and
 * ts_tree_delete. The last line printed is
 *   commands=C parses=P p50_us=X p99_us=Y per_second=Z
 * with p50/p99 over all individual parse timings and per_second = P divided
 * by the sum of those timings.
 */

#define _GNU_SOURCE

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tree_sitter/api.h>

#define DEFAULT_ROUNDS 1000

const TSLanguage *tree_sitter_bash (void);

typedef struct
{
  char   *text;
  size_t  len;
  size_t  line;
} Command;

/* Keeps the walk from being optimised away. */
static volatile uint64_t sink;

static uint64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void
usage (FILE *out)
{
  fprintf (out,
           "Usage: ts-bench [--rounds N] [--verbose] < commands.txt\n"
           "Parses every line of standard input N times (default %d) with tree-sitter-bash.\n",
           DEFAULT_ROUNDS);
}

static int
parse_rounds (const char *arg,
              long       *rounds)
{
  char *end = NULL;
  long value;

  errno = 0;
  value = strtol (arg, &end, 10);
  if (errno != 0 || end == arg || *end != '\0' || value < 1 || value > 1000000)
    return -1;
  *rounds = value;
  return 0;
}

static Command *
read_commands (FILE   *in,
               size_t *n_commands)
{
  Command *commands = NULL;
  size_t n = 0, allocated = 0, lineno = 0;
  char *line = NULL;
  size_t line_size = 0;
  ssize_t len;

  while ((len = getline (&line, &line_size, in)) != -1)
    {
      lineno++;
      while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        line[--len] = '\0';
      if (len == 0)
        continue;

      if (n == allocated)
        {
          allocated = allocated ? allocated * 2 : 256;
          commands = realloc (commands, allocated * sizeof *commands);
          if (commands == NULL)
            {
              perror ("ts-bench");
              exit (EXIT_FAILURE);
            }
        }
      commands[n].text = strndup (line, (size_t) len);
      commands[n].len = (size_t) len;
      commands[n].line = lineno;
      if (commands[n].text == NULL)
        {
          perror ("ts-bench");
          exit (EXIT_FAILURE);
        }
      n++;
    }

  free (line);
  *n_commands = n;
  return commands;
}

/* Visits every node, named or not, in document order. */
static uint64_t
walk_tree (TSTree *tree)
{
  TSTreeCursor cursor = ts_tree_cursor_new (ts_tree_root_node (tree));
  uint64_t acc = 0;

  for (;;)
    {
      TSNode node = ts_tree_cursor_current_node (&cursor);
      const char *type = ts_node_type (node);

      acc += (unsigned char) type[0] + ts_node_end_byte (node);

      if (ts_tree_cursor_goto_first_child (&cursor))
        continue;

      while (!ts_tree_cursor_goto_next_sibling (&cursor))
        {
          if (!ts_tree_cursor_goto_parent (&cursor))
            {
              ts_tree_cursor_delete (&cursor);
              return acc;
            }
        }
    }
}

static int
compare_u64 (const void *a,
             const void *b)
{
  uint64_t x = *(const uint64_t *) a;
  uint64_t y = *(const uint64_t *) b;

  return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted @values: the smallest value that at
 * least @percent % of the values do not exceed. */
static uint64_t
percentile (const uint64_t *values,
            size_t          n,
            unsigned        percent)
{
  size_t rank = (n * percent + 99) / 100;

  if (rank < 1)
    rank = 1;
  return values[rank - 1];
}

int
main (int   argc,
      char *argv[])
{
  long rounds = DEFAULT_ROUNDS;
  int verbose = 0;
  Command *commands;
  size_t n_commands, n_parses, n_errors = 0, k = 0;
  uint64_t *timings;
  uint64_t total_ns = 0;
  TSParser *parser;

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--rounds") == 0 && i + 1 < argc)
        {
          if (parse_rounds (argv[++i], &rounds) != 0)
            {
              fprintf (stderr, "ts-bench: --rounds needs a number from 1 to 1000000, not “%s”\n",
                       argv[i]);
              return EXIT_FAILURE;
            }
        }
      else if (strncmp (argv[i], "--rounds=", 9) == 0)
        {
          if (parse_rounds (argv[i] + 9, &rounds) != 0)
            {
              fprintf (stderr, "ts-bench: --rounds needs a number from 1 to 1000000, not “%s”\n",
                       argv[i] + 9);
              return EXIT_FAILURE;
            }
        }
      else if (strcmp (argv[i], "--verbose") == 0 || strcmp (argv[i], "-v") == 0)
        verbose = 1;
      else if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
        {
          usage (stdout);
          return EXIT_SUCCESS;
        }
      else
        {
          fprintf (stderr, "ts-bench: unknown argument “%s”\n", argv[i]);
          usage (stderr);
          return EXIT_FAILURE;
        }
    }

  commands = read_commands (stdin, &n_commands);
  if (n_commands == 0)
    {
      fprintf (stderr, "ts-bench: no commands on standard input\n");
      return EXIT_FAILURE;
    }

  parser = ts_parser_new ();
  if (!ts_parser_set_language (parser, tree_sitter_bash ()))
    {
      fprintf (stderr,
               "ts-bench: the bash grammar has ABI %u, this libtree-sitter accepts %u to %u\n",
               ts_language_version (tree_sitter_bash ()),
               (unsigned) TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION,
               (unsigned) TREE_SITTER_LANGUAGE_VERSION);
      return EXIT_FAILURE;
    }

  /* Untimed pass: reports the commands tree-sitter cannot parse cleanly. */
  for (size_t c = 0; c < n_commands; c++)
    {
      TSTree *tree = ts_parser_parse_string (parser, NULL, commands[c].text,
                                             (uint32_t) commands[c].len);

      if (ts_node_has_error (ts_tree_root_node (tree)))
        {
          n_errors++;
          if (verbose)
            fprintf (stderr, "ts-bench: parse error in line %zu: %s\n", commands[c].line,
                     commands[c].text);
        }
      ts_tree_delete (tree);
    }
  if (n_errors > 0)
    fprintf (stderr, "ts-bench: %zu of %zu commands have parse errors%s\n", n_errors,
             n_commands, verbose ? "" : " (--verbose lists them)");

  n_parses = n_commands * (size_t) rounds;
  timings = malloc (n_parses * sizeof *timings);
  if (timings == NULL)
    {
      perror ("ts-bench");
      return EXIT_FAILURE;
    }

  for (long r = 0; r < rounds; r++)
    {
      for (size_t c = 0; c < n_commands; c++)
        {
          uint64_t start = now_ns ();
          TSTree *tree = ts_parser_parse_string (parser, NULL, commands[c].text,
                                                 (uint32_t) commands[c].len);

          sink += walk_tree (tree);
          ts_tree_delete (tree);
          timings[k] = now_ns () - start;
          total_ns += timings[k];
          k++;
        }
    }

  qsort (timings, n_parses, sizeof *timings, compare_u64);

  printf ("commands=%zu parses=%zu p50_us=%.2f p99_us=%.2f per_second=%.0f\n",
          n_commands, n_parses,
          (double) percentile (timings, n_parses, 50) / 1000.0,
          (double) percentile (timings, n_parses, 99) / 1000.0,
          total_ns > 0 ? (double) n_parses * 1e9 / (double) total_ns : 0.0);

  ts_parser_delete (parser);
  for (size_t c = 0; c < n_commands; c++)
    free (commands[c].text);
  free (commands);
  free (timings);

  return EXIT_SUCCESS;
}
