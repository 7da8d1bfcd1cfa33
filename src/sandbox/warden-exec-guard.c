/* warden-exec-guard.c: the host's end of the exec guard (guard/warden-guard.c)
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-sandbox"
#define _GNU_SOURCE  /* accept4 */

#include <errno.h>
#include <stdio.h>
#include <gio/gunixinputstream.h>
#include <string.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "warden-exec-guard.h"
#include "warden-exec-guard-private.h"

struct _WardenGuardQuestion
{
  gatomicrefcount  ref_count;
  WardenExecGuard *guard;     /* NULL once the command ended */
  guint            id;
  char           **argv;
  char           **chain;
  char            *cwd;
  char            *exe;
  char           **env;
  guint64          cut;
  guint            script;
  gboolean         answered;
};

struct _WardenExecGuard
{
  int                 fd;          /* ours; the helper has the other end (-1 until it connects) */
  int                 listen_fd;   /* a socket the helper connects to, or -1 */
  gboolean            shared;      /* @fd is a warm runner's: not ours to read or close */
  char               *listen_path;
  guint               accept_id;
  GDataInputStream   *in;
  GCancellable       *cancellable;
  WardenGuardFunc     func;
  gpointer            func_data;
  WardenGuardPauseFunc pause;
  gpointer            pause_data;
  GPtrArray          *open;        /* questions not yet answered */
};

G_DEFINE_BOXED_TYPE (WardenGuardQuestion, warden_guard_question, warden_guard_question_ref,
                     warden_guard_question_unref)

WardenGuardQuestion *
warden_guard_question_ref (WardenGuardQuestion *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
warden_guard_question_unref (WardenGuardQuestion *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_strfreev (self->argv);
  g_strfreev (self->chain);
  g_free (self->cwd);
  g_free (self->exe);
  g_strfreev (self->env);
  g_free (self);
}

const char * const *
warden_guard_question_get_argv (WardenGuardQuestion *self)
{
  return (const char * const *) self->argv;
}

const char * const *
warden_guard_question_get_chain (WardenGuardQuestion *self)
{
  return (const char * const *) self->chain;
}

const char *
warden_guard_question_get_cwd (WardenGuardQuestion *self)
{
  return self->cwd;
}

const char *
warden_guard_question_get_exe (WardenGuardQuestion *self)
{
  return self->exe;
}

const char * const *
warden_guard_question_get_env (WardenGuardQuestion *self)
{
  return (const char * const *) self->env;
}

guint64
warden_guard_question_get_cut (WardenGuardQuestion *self)
{
  return self->cut;
}

guint
warden_guard_question_get_script (WardenGuardQuestion *self)
{
  return self->script;
}

void
warden_guard_question_answer (WardenGuardQuestion *self,
                              gboolean             allow)
{
  WardenExecGuard *guard = self->guard;
  g_autofree char *line = NULL;
  gsize len, done = 0;

  if (self->answered || guard == NULL)
    return;
  self->answered = TRUE;
  line = g_strdup_printf ("%s %u\n", allow ? "allow" : "deny", self->id);
  len = strlen (line);
  /* A few bytes on a socket the helper reads: written at once. If the
   * helper is gone, there is nobody to let run. */
  while (done < len)
    {
      ssize_t n = write (guard->fd, line + done, len - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      done += (gsize) n;
    }
  g_ptr_array_remove (guard->open, self);
  if (guard->open->len == 0 && guard->pause != NULL)
    guard->pause (FALSE, guard->pause_data);
}

/* ------------------------------------------------------------------------ */

static const char *system_dirs[] = { "/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin",
                                     "/usr/local/sbin", NULL };

static gboolean
needs_quotes (const char *word)
{
  if (*word == '\0')
    return TRUE;
  for (const char *p = word; *p; p++)
    if (!g_ascii_isalnum (*p) && strchr ("-_./=:,+@%^", *p) == NULL)
      return TRUE;
  /* A word like a=b first would read as an assignment. */
  return FALSE;
}

char *
warden_guard_quote_argv (const char * const *argv)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; argv != NULL && argv[i] != NULL; i++)
    {
      const char *word = argv[i];
      g_autofree char *base = NULL;

      if (i == 0 && g_path_is_absolute (word))
        {
          g_autofree char *dir = g_path_get_dirname (word);

          if (g_strv_contains (system_dirs, dir))
            word = base = g_path_get_basename (word);
        }
      if (i > 0)
        g_string_append_c (text, ' ');
      if (i == 0 && strchr (word, '=') != NULL)
        {
          /* Not an assignment: quoted. */
          g_autofree char *q = g_shell_quote (word);

          g_string_append (text, q);
        }
      else if (needs_quotes (word))
        {
          g_autofree char *q = g_shell_quote (word);

          g_string_append (text, q);
        }
      else
        g_string_append (text, word);
    }
  return g_string_free (text, FALSE);
}

const char *
warden_guard_get_helper_path (void)
{
  static char *path;
  static gsize init;

  if (g_once_init_enter (&init))
    {
      const char *env = g_getenv ("WARDEN_GUARD");
      g_autofree char *installed = g_build_filename (LIBEXECDIR, "warden-guard", NULL);
      g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
      g_autofree char *dir = self ? g_path_get_dirname (self) : NULL;

      /* One named that is not there is not replaced by another. */
      if (env != NULL && *env != '\0')
        path = g_file_test (env, G_FILE_TEST_IS_EXECUTABLE) ? g_strdup (env) : NULL;
      else if (g_file_test (installed, G_FILE_TEST_IS_EXECUTABLE))
        path = g_steal_pointer (&installed);
      else
        /* A build tree: src/ui/warden, src/cli/warden-cli and the tests
         * find src/sandbox/warden-guard above them. */
        for (guint up = 1; dir != NULL && up <= 3 && path == NULL; up++)
          {
            g_autofree char *parent = g_path_get_dirname (dir);
            g_autofree char *built = g_build_filename (parent, "src", "sandbox", "warden-guard",
                                                       NULL);

            if (g_file_test (built, G_FILE_TEST_IS_EXECUTABLE))
              path = g_steal_pointer (&built);
            g_free (dir);
            dir = g_steal_pointer (&parent);
          }
      g_once_init_leave (&init, 1);
    }
  return path;
}

/* ------------------------------------------------------------------------ */

/* One field of the helper's line: \\ \t \n \0 undone. */
static GString *
unescape (const char *field)
{
  GString *out = g_string_new (NULL);

  for (const char *p = field; *p; p++)
    {
      if (*p != '\\' || p[1] == '\0')
        {
          g_string_append_c (out, *p);
          continue;
        }
      p++;
      switch (*p)
        {
        case 't': g_string_append_c (out, '\t'); break;
        case 'n': g_string_append_c (out, '\n'); break;
        case '0': g_string_append_c (out, '\0'); break;
        default:  g_string_append_c (out, *p); break;
        }
    }
  return out;
}

/* NUL-joined words as a strv (the last NUL ends the last word). */
static char **
split_words (GString *joined)
{
  GPtrArray *words = g_ptr_array_new ();

  for (gsize i = 0; i < joined->len;)
    {
      gsize n = strlen (joined->str + i);

      g_ptr_array_add (words, g_strndup (joined->str + i, n));
      i += n + 1;
    }
  g_ptr_array_add (words, NULL);
  return (char **) g_ptr_array_free (words, FALSE);
}

/* The question's fixed fields, before ARGC (see guard/warden-guard.c). */
enum { FIELD_HEAD, FIELD_CWD, FIELD_EXE, FIELD_ENV, FIELD_CUT, FIELD_SCRIPT, FIELD_ARGC,
       N_FIXED_FIELDS };

static char *
unescape_string (const char *field)
{
  g_autoptr(GString) text = unescape (field);

  return g_string_free (g_steal_pointer (&text), FALSE);
}

static WardenGuardQuestion *
parse_question (const char *line)
{
  g_auto(GStrv) fields = g_strsplit (line, "\t", -1);
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) chain = g_ptr_array_new_with_free_func (g_free);
  WardenGuardQuestion *q;
  guint id, n_fields = g_strv_length (fields);
  guint64 argc, cut, script;
  guint i;

  if (n_fields < N_FIXED_FIELDS || sscanf (fields[FIELD_HEAD], "exec %u", &id) != 1 ||
      !g_ascii_string_to_unsigned (fields[FIELD_CUT], 10, 0, G_MAXUINT64, &cut, NULL) ||
      !g_ascii_string_to_unsigned (fields[FIELD_SCRIPT], 10, 0, G_MAXUINT, &script, NULL) ||
      !g_ascii_string_to_unsigned (fields[FIELD_ARGC], 10, 0, G_MAXUINT, &argc, NULL) ||
      argc == 0 || N_FIXED_FIELDS + argc > n_fields || script >= argc ||
      *fields[FIELD_EXE] == '\0')
    return NULL;
  for (i = N_FIXED_FIELDS; i < N_FIXED_FIELDS + argc; i++)
    g_ptr_array_add (argv, unescape_string (fields[i]));
  g_ptr_array_add (argv, NULL);
  for (; i < n_fields; i++)
    {
      g_autoptr(GString) joined = unescape (fields[i]);
      g_auto(GStrv) words = split_words (joined);
      char *text = warden_guard_quote_argv ((const char * const *) words);

      /* A forked copy of the same program is one link. */
      if (*text == '\0' || (chain->len > 0 && strcmp (g_ptr_array_index (chain, chain->len - 1),
                                                      text) == 0))
        g_free (text);
      else
        g_ptr_array_add (chain, text);
    }
  g_ptr_array_add (chain, NULL);

  q = g_new0 (WardenGuardQuestion, 1);
  g_atomic_ref_count_init (&q->ref_count);
  q->id = id;
  q->cwd = unescape_string (fields[FIELD_CWD]);
  q->exe = unescape_string (fields[FIELD_EXE]);
  {
    g_autoptr(GString) env = unescape (fields[FIELD_ENV]);

    q->env = split_words (env);
  }
  q->cut = cut;
  q->script = (guint) script;
  q->argv = (char **) g_ptr_array_free (g_steal_pointer (&argv), FALSE);
  q->chain = (char **) g_ptr_array_free (g_steal_pointer (&chain), FALSE);
  return q;
}

static void read_next (WardenExecGuard *guard);
static void start_reading (WardenExecGuard *guard);

static void
line_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  WardenExecGuard *guard = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (object),
                                                                result, NULL, &error);

  if (line == NULL)
    return;  /* the end, or freed (cancelled): @guard may be gone */
  warden_exec_guard_take_line (guard, line);
  read_next (guard);
}

void
warden_exec_guard_take_line (WardenExecGuard *guard,
                             const char      *line)
{
  g_autoptr(WardenGuardQuestion) q = NULL;

  if (g_str_has_prefix (line, "exec ") && (q = parse_question (line)) != NULL)
    {
      q->guard = guard;
      g_ptr_array_add (guard->open, warden_guard_question_ref (q));
      if (guard->open->len == 1 && guard->pause != NULL)
        guard->pause (TRUE, guard->pause_data);
      guard->func (q, guard->func_data);
    }
  else if (g_str_has_prefix (line, "exec "))
    {
      /* Not understood: not run. */
      guint id;

      if (sscanf (line, "exec %u", &id) == 1)
        {
          g_autofree char *deny = g_strdup_printf ("deny %u\n", id);

          if (write (guard->fd, deny, strlen (deny)) < 0)
            g_debug ("the guard is gone");
        }
    }
}

static void
read_next (WardenExecGuard *guard)
{
  g_data_input_stream_read_line_async (guard->in, G_PRIORITY_DEFAULT, guard->cancellable,
                                       line_cb, guard);
}

WardenExecGuard *
warden_exec_guard_new (WardenGuardFunc   func,
                       gpointer          func_data,
                       int              *child_fd,
                       GError          **error)
{
  WardenExecGuard *guard;
  int fds[2];

  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Could not make the exec guard's socket: %s", g_strerror (saved));
      return NULL;
    }
  guard = g_new0 (WardenExecGuard, 1);
  guard->listen_fd = -1;
  guard->fd = fds[0];
  guard->func = func;
  guard->func_data = func_data;
  guard->open = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_guard_question_unref);
  guard->cancellable = g_cancellable_new ();
  *child_fd = fds[1];
  start_reading (guard);
  return guard;
}

static void
start_reading (WardenExecGuard *guard)
{
  g_autoptr(GInputStream) raw = g_unix_input_stream_new (dup (guard->fd), TRUE);

  guard->in = g_data_input_stream_new (raw);
  read_next (guard);
}

static void
stop_listening (WardenExecGuard *guard)
{
  g_clear_handle_id (&guard->accept_id, g_source_remove);
  if (guard->listen_fd >= 0)
    close (guard->listen_fd);
  guard->listen_fd = -1;
  if (guard->listen_path != NULL)
    g_unlink (guard->listen_path);
  g_clear_pointer (&guard->listen_path, g_free);
}

static gboolean
accept_cb (int          fd,
           GIOCondition condition,
           gpointer     user_data)
{
  WardenExecGuard *guard = user_data;
  int conn = accept4 (fd, NULL, NULL, SOCK_CLOEXEC);

  if (conn < 0)
    return errno == EAGAIN || errno == EINTR ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
  /* One helper, one connection: nobody else is let in. */
  guard->accept_id = 0;
  guard->fd = conn;
  stop_listening (guard);
  start_reading (guard);
  return G_SOURCE_REMOVE;
}

int
_warden_guard_listen (const char  *path,
                      GError     **error)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  int fd;

  if (strlen (path) >= sizeof addr.sun_path)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FILENAME_TOO_LONG,
                   "The exec guard's socket path is too long: %s", path);
      return -1;
    }
  strcpy (addr.sun_path, path);
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0 || bind (fd, (struct sockaddr *) &addr, sizeof addr) != 0 || listen (fd, 1) != 0)
    {
      int saved = errno;

      if (fd >= 0)
        close (fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Could not make the exec guard's socket %s: %s", path, g_strerror (saved));
      return -1;
    }
  return fd;
}

WardenExecGuard *
warden_exec_guard_new_listening (WardenGuardFunc   func,
                                 gpointer          func_data,
                                 const char       *path,
                                 GError          **error)
{
  WardenExecGuard *guard;
  int fd = _warden_guard_listen (path, error);

  if (fd < 0)
    return NULL;
  guard = g_new0 (WardenExecGuard, 1);
  guard->fd = -1;
  guard->listen_fd = fd;
  guard->listen_path = g_strdup (path);
  guard->func = func;
  guard->func_data = func_data;
  guard->open = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_guard_question_unref);
  guard->cancellable = g_cancellable_new ();
  guard->accept_id = g_unix_fd_add (fd, G_IO_IN, accept_cb, guard);
  return guard;
}

void
warden_exec_guard_set_pause (WardenExecGuard      *guard,
                             WardenGuardPauseFunc  pause,
                             gpointer              pause_data)
{
  guard->pause = pause;
  guard->pause_data = pause_data;
  if (guard->open->len > 0 && pause != NULL)
    pause (TRUE, pause_data);
}

WardenExecGuard *
warden_exec_guard_new_shared (WardenGuardFunc  func,
                              gpointer         func_data,
                              int              fd)
{
  WardenExecGuard *guard = g_new0 (WardenExecGuard, 1);

  guard->fd = fd;
  guard->shared = TRUE;
  guard->listen_fd = -1;
  guard->func = func;
  guard->func_data = func_data;
  guard->open = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_guard_question_unref);
  guard->cancellable = g_cancellable_new ();
  return guard;
}

void
warden_exec_guard_free (WardenExecGuard *guard)
{
  if (guard == NULL)
    return;
  g_cancellable_cancel (guard->cancellable);
  stop_listening (guard);
  for (guint i = 0; i < guard->open->len; i++)
    ((WardenGuardQuestion *) g_ptr_array_index (guard->open, i))->guard = NULL;
  g_ptr_array_unref (guard->open);
  /* The helper reads the end of its socket: what waited is not run. */
  if (guard->fd >= 0 && !guard->shared)
    close (guard->fd);
  g_clear_object (&guard->in);
  g_object_unref (guard->cancellable);
  g_free (guard);
}
