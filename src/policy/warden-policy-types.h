/* warden-policy-types.h: enums and the error domain shared by the policy engine
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define WARDEN_POLICY_ERROR (warden_policy_error_quark ())

typedef enum
{
  WARDEN_POLICY_ERROR_PARSE,      /* a profile file is not valid JSON */
  WARDEN_POLICY_ERROR_INVALID,    /* valid JSON, but a key is missing or wrong */
  WARDEN_POLICY_ERROR_NOT_FOUND,  /* no profile with that id */
  WARDEN_POLICY_ERROR_READ_ONLY,  /* built-in profiles cannot be changed */
  WARDEN_POLICY_ERROR_EXISTS,     /* a profile with that id exists already */
  WARDEN_POLICY_ERROR_IO,         /* reading or writing a profile failed */
} WardenPolicyError;

/* The seed framework's names, kept as they are in profiles. */
typedef enum
{
  WARDEN_MODE_ALLOWLIST,
  WARDEN_MODE_APPROVAL_ALWAYS,
  WARDEN_MODE_ALLOW_ALWAYS,
} WardenMode;

typedef enum
{
  WARDEN_VERDICT_ALLOW,
  WARDEN_VERDICT_ASK,
  WARDEN_VERDICT_DENY,
} WardenVerdict;

/* Where a simple command came from. */
typedef enum
{
  WARDEN_ORIGIN_TOP_LEVEL,
  WARDEN_ORIGIN_SUBSTITUTION,          /* $( … ) and ` … ` */
  WARDEN_ORIGIN_PROCESS_SUBSTITUTION,  /* <( … ) and >( … ) */
  WARDEN_ORIGIN_WRAPPER,               /* the command a wrapper runs: env, xargs, find -exec, … */
  WARDEN_ORIGIN_SCRIPT,                /* the STRING of sh -c STRING */
  WARDEN_ORIGIN_REDIRECTION,           /* redirections of a group or loop: no command runs */
} WardenOrigin;

GQuark       warden_policy_error_quark (void);

const char  *warden_mode_to_string     (WardenMode     mode);
gboolean     warden_mode_from_string   (const char    *str,
                                        WardenMode    *mode);
const char  *warden_verdict_to_string  (WardenVerdict  verdict);
const char  *warden_origin_to_string   (WardenOrigin   origin);

G_END_DECLS
