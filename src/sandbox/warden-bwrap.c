/* warden-bwrap.c: a bubblewrap command line and the descriptors it reads
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-sandbox"

#include <glib/gi18n.h>

#include "warden-bwrap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "warden-sandbox.h"

typedef struct
{
  int fd;        /* ours until handed over */
  int child_fd;  /* its number in the child */
} KeptFd;

struct _WardenBwrap
{
  GPtrArray *argv;
  GArray    *fds;   /* KeptFd */
};

static void
kept_fd_clear (gpointer data)
{
  KeptFd *kept = data;

  if (kept->fd >= 0)
    close (kept->fd);
}

WardenBwrap *
warden_bwrap_new (void)
{
  WardenBwrap *self = g_new0 (WardenBwrap, 1);

  self->argv = g_ptr_array_new_with_free_func (g_free);
  self->fds = g_array_new (FALSE, TRUE, sizeof (KeptFd));
  g_array_set_clear_func (self->fds, kept_fd_clear);
  return self;
}

void
warden_bwrap_free (WardenBwrap *self)
{
  if (self == NULL)
    return;
  g_ptr_array_unref (self->argv);
  g_array_unref (self->fds);
  g_free (self);
}

void
warden_bwrap_add_arg (WardenBwrap *self,
                      const char  *arg)
{
  g_return_if_fail (arg != NULL);

  g_ptr_array_add (self->argv, g_strdup (arg));
}

void
warden_bwrap_add_args (WardenBwrap *self,
                       ...)
{
  va_list args;
  const char *arg;

  va_start (args, self);
  while ((arg = va_arg (args, const char *)) != NULL)
    g_ptr_array_add (self->argv, g_strdup (arg));
  va_end (args);
}

void
warden_bwrap_add_arg_printf (WardenBwrap *self,
                             const char  *format,
                             ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (self->argv, g_strdup_vprintf (format, args));
  va_end (args);
}

void
warden_bwrap_bind (WardenBwrap     *self,
                   WardenBwrapBind  kind,
                   const char      *src,
                   const char      *dest)
{
  static const char * const options[] = {
    [WARDEN_BWRAP_BIND_RO] = "--ro-bind",
    [WARDEN_BWRAP_BIND_RW] = "--bind",
    [WARDEN_BWRAP_BIND_DEV] = "--dev-bind",
    [WARDEN_BWRAP_BIND_RO_TRY] = "--ro-bind-try",
  };

  g_return_if_fail (kind < G_N_ELEMENTS (options));
  g_return_if_fail (src != NULL && dest != NULL);

  warden_bwrap_add_args (self, options[kind], src, dest, NULL);
}

void
warden_bwrap_add_env (WardenBwrap        *self,
                      const char * const *env)
{
  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    {
      const char *eq = strchr (env[i], '=');

      if (eq == NULL)
        continue;
      warden_bwrap_add_arg (self, "--setenv");
      g_ptr_array_add (self->argv, g_strndup (env[i], eq - env[i]));
      warden_bwrap_add_arg (self, eq + 1);
    }
}

void
warden_bwrap_add_fd (WardenBwrap *self,
                     int          fd,
                     int          child_fd)
{
  KeptFd kept = { fd, child_fd };

  g_return_if_fail (fd >= 0);
  g_return_if_fail (child_fd > 2);
  for (guint i = 0; i < self->fds->len; i++)
    if (g_array_index (self->fds, KeptFd, i).child_fd == child_fd)
      {
        g_critical ("Descriptor %d of the sandbox given twice", child_fd);
        close (fd);
        return;
      }
  g_array_append_val (self->fds, kept);
}

gboolean
warden_bwrap_add_data_fd (WardenBwrap  *self,
                          GBytes       *data,
                          int           child_fd,
                          GError      **error)
{
  FILE *file = tmpfile ();
  gsize size;
  const void *bytes = g_bytes_get_data (data, &size);
  int fd;

  if (file == NULL || fwrite (bytes, 1, size, file) != size || fflush (file) != 0)
    {
      int saved = errno;

      if (file != NULL)
        fclose (file);
      g_set_error (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_FAILED,
                   _("Could not hand bubblewrap its settings: %s"), g_strerror (saved));
      return FALSE;
    }
  fd = fcntl (fileno (file), F_DUPFD_CLOEXEC, 3);
  fclose (file);
  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, WARDEN_SANDBOX_ERROR, WARDEN_SANDBOX_ERROR_FAILED,
                   _("Could not hand bubblewrap its settings: %s"), g_strerror (saved));
      return FALSE;
    }
  lseek (fd, 0, SEEK_SET);
  warden_bwrap_add_fd (self, fd, child_fd);
  return TRUE;
}

void
warden_bwrap_hand_fds (WardenBwrap         *self,
                       GSubprocessLauncher *launcher)
{
  for (guint i = 0; i < self->fds->len; i++)
    {
      KeptFd *kept = &g_array_index (self->fds, KeptFd, i);

      g_subprocess_launcher_take_fd (launcher, kept->fd, kept->child_fd);
      kept->fd = -1;
    }
  g_array_set_size (self->fds, 0);
}

GStrv
warden_bwrap_finish (WardenBwrap *self)
{
  GPtrArray *argv = self->argv;

  self->argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, NULL);
  return (GStrv) g_ptr_array_free (argv, FALSE);
}
