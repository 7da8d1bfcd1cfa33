/* warden-bwrap.h: a bubblewrap command line and the descriptors it reads
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Private to libwarden: the bwrap backend builds each command with it.
 * After flatpak's FlatpakBwrap: the arguments, and the descriptors that go
 * with them, in one place, so that every way out of building one closes
 * what was opened.
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _WardenBwrap WardenBwrap;

/* How a host path is mounted in the sandbox. */
typedef enum
{
  WARDEN_BWRAP_BIND_RO,      /* --ro-bind: read-only */
  WARDEN_BWRAP_BIND_RW,      /* --bind: writable */
  WARDEN_BWRAP_BIND_DEV,     /* --dev-bind: writable, device nodes usable */
  WARDEN_BWRAP_BIND_RO_TRY,  /* --ro-bind-try: read-only, left out when the host lacks it */
} WardenBwrapBind;

WardenBwrap *warden_bwrap_new            (void);
/* Closes the descriptors not handed to a launcher. */
void         warden_bwrap_free           (WardenBwrap         *self);

void         warden_bwrap_add_arg        (WardenBwrap         *self,
                                          const char          *arg);
/* Each argument up to the NULL, in order. */
void         warden_bwrap_add_args       (WardenBwrap         *self,
                                          ...) G_GNUC_NULL_TERMINATED;
void         warden_bwrap_add_arg_printf (WardenBwrap         *self,
                                          const char          *format,
                                          ...) G_GNUC_PRINTF (2, 3);
/* @src on the host at @dest in the sandbox, as @kind says. */
void         warden_bwrap_bind           (WardenBwrap         *self,
                                          WardenBwrapBind      kind,
                                          const char          *src,
                                          const char          *dest);
/* --setenv NAME VALUE for each NAME=VALUE of @env (split at the first
 * "="), in order; an entry without "=" is left out. */
void         warden_bwrap_add_env        (WardenBwrap         *self,
                                          const char * const  *env);

/* Keeps @fd (taken) for the child, which gets it as @child_fd (3 or more,
 * one descriptor each); an option that names @child_fd is added apart. */
void         warden_bwrap_add_fd         (WardenBwrap         *self,
                                          int                  fd,
                                          int                  child_fd);
/* A descriptor the child reads @data from, from its start, as @child_fd
 * (bwrap's --seccomp, --ro-bind-data). FALSE with @error when it cannot be
 * made. */
gboolean     warden_bwrap_add_data_fd    (WardenBwrap         *self,
                                          GBytes              *data,
                                          int                  child_fd,
                                          GError             **error);
/* Hands the kept descriptors to @launcher, which closes them once it has
 * spawned (or is freed); @self keeps none. */
void         warden_bwrap_hand_fds       (WardenBwrap         *self,
                                          GSubprocessLauncher *launcher);

/* The arguments so far, NULL-ended, for the caller to keep; @self starts
 * again with none (its descriptors stay). */
GStrv        warden_bwrap_finish         (WardenBwrap         *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WardenBwrap, warden_bwrap_free)

G_END_DECLS
