/* oracle-common.h: what the oracle, its sandbox runner and its stubs agree on
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Inside the sandbox /tmp is a private tmpfs. The runner keeps its own state
 * in ORACLE_DIR there; the stubs find the log and the real programs by these
 * fixed paths, so nothing about them is in the environment a command line
 * could read or change.
 */

#pragma once

#define ORACLE_DIR      "/tmp/.oracle"
/* Every stub appends one record here before doing anything else. */
#define ORACLE_LOG      ORACLE_DIR "/log/log"
/* The shells' standard error, for failure reports. */
#define ORACLE_ERR      ORACLE_DIR "/log/err"
/* The host's /usr/bin and /usr/sbin: the sandbox's own /usr/bin holds only
 * stubs, so the real programs that wrappers exec live here. */
#define ORACLE_REALBIN  ORACLE_DIR "/realbin"
#define ORACLE_REALSBIN ORACLE_DIR "/realsbin"

/* A log record: RS, the program, then US and each argument, then a newline.
 * These three bytes and the backslash are written as \xNN inside fields. */
#define ORACLE_RS '\x1e'
#define ORACLE_US '\x1f'
