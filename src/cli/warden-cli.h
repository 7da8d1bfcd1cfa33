/* warden-cli.h: the subcommands of warden-cli
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "policy/warden-profile.h"
#include "sandbox/warden-sandbox-kind.h"

G_BEGIN_DECLS

/* Exit statuses of "policy check"; 2 is also every usage or profile error. */
#define WARDEN_CLI_EXIT_ALLOW 0
#define WARDEN_CLI_EXIT_ASK   10
#define WARDEN_CLI_EXIT_DENY  20
#define WARDEN_CLI_EXIT_USAGE 2

int            warden_cli_policy       (int          argc,
                                        char       **argv);
int            warden_cli_profile      (int          argc,
                                        char       **argv);
int            warden_cli_sandbox      (int          argc,
                                        char       **argv);
int            warden_cli_sandbox_bench (int         argc,
                                        char       **argv);
int            warden_cli_run          (int          argc,
                                        char       **argv);
int            warden_cli_chat         (int          argc,
                                        char       **argv);
int            warden_cli_sessions     (int          argc,
                                        char       **argv);
/* A profile by id, or from a file when @spec names one (has a '/' or ends
 * in .json). */
WardenProfile *warden_cli_load_profile (const char  *spec,
                                        GError     **error);
/* Docker when an engine answers, else bwrap; runs @loop while it asks. */
WardenSandboxKind warden_cli_default_backend (GMainLoop *loop);
/* @text as --sandbox gives it ("auto" resolved), or FALSE after saying
 * what it takes. */
gboolean       warden_cli_parse_backend (const char        *text,
                                         GMainLoop         *loop,
                                         WardenSandboxKind *kind);
void           warden_cli_error        (const char  *format,
                                        ...) G_GNUC_PRINTF (1, 2);

G_END_DECLS
