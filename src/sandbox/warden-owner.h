/* warden-owner.h: which process made something that outlives a call
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A container, a control group, a session lease: each names the Warden
 * that made it, so that a later Warden removes what a dead one left and
 * leaves alone what a live one uses. A pid means something only in its PID
 * namespace of one boot: the record says which (the kernel's boot id, the
 * namespace's inode), with the host name, the machine id and the process's
 * start time (a new process may get the pid). A reader elsewhere (another
 * host on the same engine, another PID namespace) then knows it cannot
 * check, and takes the owner to be alive.
 *
 * A record: HOST \t PID \t START \t PROGRAM \t BOOT \t PIDNS \t MACHINE.
 * Users of it may append fields of their own after a tab.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define WARDEN_OWNER_FIELDS 7

typedef enum
{
  WARDEN_OWNER_GONE,      /* provably dead: what it left may go */
  WARDEN_OWNER_ALIVE,     /* seen running here */
  WARDEN_OWNER_UNKNOWN,   /* cannot be told from here: taken to be alive */
} WardenOwnerLife;

/* The record of process @pid as seen from here (this process: getpid ()).
 * @program names it in messages; NULL: this program's name. */
char            *warden_owner_record_of_process (GPid         pid,
                                                 const char  *program);
char            *warden_owner_record_self       (void);
/* The same process: host, pid, start time, boot and PID namespace; a record
 * without boot or namespace is nobody's. Extra fields are not compared. */
gboolean         warden_owner_same              (const char  *a,
                                                 const char  *b);
/* Whether the owner of @record still runs, as far as this process can tell. */
WardenOwnerLife  warden_owner_life              (const char  *record);
/* For the user: "warden-cli, process 1234 on laptop". */
char            *warden_owner_describe          (const char  *record);
/* Why @record's owner is taken to be alive, for the user; NULL when gone. */
char            *warden_owner_why_kept          (const char  *record);
/* The start time of @pid in clock ticks since boot (/proc/PID/stat), or 0. */
guint64          warden_owner_start_time        (GPid         pid);
/* This process's PID namespace inode, or 0 when /proc is not its own. */
guint64          warden_owner_pid_namespace     (void);

G_END_DECLS
