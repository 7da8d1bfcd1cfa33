/* oracle-gen.h: command lines and profiles for the differential oracle
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Commands the generator hides in places a shell may or may not run: no
 * allow list ever names them, so any of them running under an allowed line
 * is a failure; the deny lists name them for allow-always mode. */
extern const char * const oracle_forbidden_names[];

typedef struct _OracleGen OracleGen;

OracleGen *oracle_gen_new          (guint32      seed);
void       oracle_gen_free         (OracleGen   *self);
/* Lines to mutate: the seed corpus, and lines the engine allowed. */
void       oracle_gen_add_seed     (OracleGen   *self,
                                    const char  *line);
void       oracle_gen_add_parent   (OracleGen   *self,
                                    const char  *line);
/* A new line: from the grammar, or a mutation of the seeds and parents. */
char      *oracle_gen_line         (OracleGen   *self);
/* A small allow list and a deny list for @line: the stub names that occur
 * in it (never the forbidden ones), some left out, some only as exact
 * patterns, plus a few common ones. */
void       oracle_gen_config       (GRand       *rand,
                                    const char  *line,
                                    GPtrArray   *allow,
                                    GPtrArray   *deny);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OracleGen, oracle_gen_free)

G_END_DECLS
