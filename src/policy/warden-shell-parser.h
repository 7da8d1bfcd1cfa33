/* warden-shell-parser.h: a bash parser that finds every command a line could run
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "warden-policy-types.h"

G_BEGIN_DECLS

/* Limits past which the engine stops and asks. */
#define WARDEN_SHELL_MAX_LENGTH (256 * 1024)
#define WARDEN_SHELL_MAX_DEPTH  64
#define WARDEN_SHELL_MAX_PARTS  4096

typedef enum
{
  WARDEN_PART_COMMAND,      /* a simple command that runs something */
  WARDEN_PART_ASSIGNMENT,   /* only assignments: FOO=1 */
  WARDEN_PART_REDIRECTION,  /* only redirections: > file, or those of a group or loop */
} WardenPartKind;

typedef struct
{
  WardenPartKind  kind;
  WardenOrigin    origin;
  /* Words and redirections after quote removal, joined by single spaces. */
  char           *text;
  /* @text with WARDEN_PATTERN_HOLE where the sandbox fills in unknown text
   * (xargs arguments, find's {}); NULL when there is none. */
  char           *match_text;
  /* @text with the command name replaced by its last path component, for
   * deny patterns (/bin/rm is rm); NULL when the name has no slash. */
  char           *base_text;
  /* The bare command (as @base_text) with every word that holds an expansion,
   * a glob or a brace list replaced by WARDEN_PATTERN_HOLE, for deny patterns:
   * "rm -rf $d" may become "rm -rf /". NULL when no word expands. */
  char           *expanded_text;
  /* @text without the arguments that may expand to no word at all (an
   * unquoted $x or $(cmd), "$@"): the command that runs when they do, which
   * an allow pattern must match too ("cat *" does not match "cat"). NULL
   * when no argument may vanish. */
  char           *min_text;
  /* The words after quote removal, name first, assignments left out, in one
   * block; @name points at the first. Both NULL for assignments and
   * redirections. */
  char           *name;
  char          **argv;
  /* @text lies in @argv's block, after its words, and is freed with it:
   * whoever takes one takes both. */
  gboolean        text_in_argv;
  /* @text's length when @text_in_argv (a simple command's text, whose
   * length the parser knows): no strlen() of it for each list it is
   * looked up in. 0 otherwise. */
  gsize           text_len;
  /* The wrapper that runs this part (its basename, a static string: "find",
   * "xargs", "env" …) when @origin is WARDEN_ORIGIN_WRAPPER, else NULL. */
  const char     *runner;
  /* Why this part asks whatever the allow patterns say, or NULL. When
   * @liftable, an allow pattern that matches @text lifts it (assignments). */
  char           *force_ask;
  gboolean        liftable;
  /* With @force_ask: it asks only because the engine cannot see what a
   * script file holds ("sh build.sh"). When the exec guard checks every
   * program a command starts, an allow pattern that matches @text lifts it:
   * the script's commands are checked as they start, as for "node app.js". */
  gboolean        guard_sees;
  /* The program does nothing of its own but start the commands that follow
   * it as WARDEN_ORIGIN_WRAPPER parts (xargs), each judged on its own: it
   * needs no pattern of its own. */
  gboolean        only_runs;
  /* TRUE when patterns cannot help, so no "always allow" suggestion is made. */
  gboolean        no_suggestion;
  /* With @name_checked, @name_is_sh is warden_shell_name_is_sh() of the
   * basename of @name, which the parser looked up. */
  gboolean        name_checked;
  gboolean        name_is_sh;
} WardenCommandPart;

typedef struct
{
  /* The workspace directory, absolute; NULL means WARDEN_SANDBOX_WORKSPACE. */
  const char *workspace;
  /* TRUE when the command runs in a directory outside the workspace:
   * relative redirection targets then count as outside. */
  gboolean    cwd_outside_workspace;
  /* The workspace's directory on this machine, for the symlink check;
   * NULL means @workspace. */
  const char *host_workspace;
  /* The real paths of workspace roots already looked up, or NULL: a
   * policy's, kept for its life (see warden_shell_root_cache_new()). */
  struct _WardenShellRootCache *root_cache;
} WardenShellOptions;

typedef struct _WardenShellRootCache WardenShellRootCache;

typedef struct
{
  /* Of WardenCommandPart, in source order. The parse's own: the parse and
   * the array are reused after warden_shell_parse_free(), so take no
   * reference to it. */
  GPtrArray *parts;
  /* Set when the line cannot be parsed or passes a limit: the answer is ask. */
  char      *error;
  /* Set when the line parsed but asks whatever the patterns say. */
  char      *ask;
  /* Every part's texts are valid UTF-8 (the line is, and no $'…' made
   * bytes of its own). */
  gboolean   texts_valid;
} WardenShellParse;

WardenShellParse *warden_shell_parse      (const char               *command,
                                           gssize                    length,
                                           const WardenShellOptions *options);
void              warden_shell_parse_free (WardenShellParse         *parse);

gboolean          warden_shell_name_is_sh (const char               *name);

WardenShellRootCache *warden_shell_root_cache_new  (void);
void                  warden_shell_root_cache_free (WardenShellRootCache *cache);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenShellParse, warden_shell_parse_free)

G_END_DECLS
