/* warden-git-doors.c: what a sandboxed command leaves for git on the host
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-sandbox"

#include <glib/gi18n.h>

#include "warden-git-doors-private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file up to this size is kept, to be put back when a command changes it. */
#define KEEP_MAX      (256 * 1024)
/* A configuration larger than this is not read: it counts as unsafe. */
#define READ_MAX      (4 * 1024 * 1024)
/* Repositories inside repositories (submodules of submodules), folders in
 * .git/modules (a submodule's name may hold slashes), hooks/ and info/. */
#define REPO_DEPTH    8
#define MODULES_DEPTH 16
#define TREE_DEPTH    4
#define INCLUDE_DEPTH 10
/* A door found only after the command, in a repository not looked at
 * before (a folder the command made a gitlink), counts as the command's
 * when it changed this shortly before the command started, or later. */
#define CTIME_MARGIN_US (2 * G_USEC_PER_SEC)
/* Folders below the workspace walked for protected names (.envrc, a
 * nested .git …): direnv, mise and git act on them in any folder the user
 * enters, so the walk goes deep; a deeper one is not seen (docs/policy.md). */
#define WALK_DEPTH    16

typedef enum
{
  DOOR_DIR,        /* a folder git looks into; only a symbolic link there matters */
  DOOR_CONFIG,     /* config, config.worktree, a file an include.path names */
  DOOR_COMMONDIR,  /* where a git folder takes its config and hooks from */
  DOOR_GITFILE,    /* a .git file: "gitdir: PATH" */
  DOOR_HOOK,       /* anything in hooks/ but *.sample, which git never runs */
  DOOR_INFO,       /* anything in info/: attributes, and links or FIFOs anywhere */
  DOOR_INDEX,      /* an index this cannot read: which submodules git enters is unknown */
  DOOR_TODO,       /* a rebase's or cherry-pick's list: its exec lines run on --continue */
  DOOR_PROTECTED,  /* a protected path outside git's folders: .vscode/…, .envrc, .hg/hgrc … */
  DOOR_GITMODULES, /* .gitmodules: git config syntax, judged as a config is */
} DoorKind;

typedef enum
{
  FINE,
  BAD_LINK,
  BAD_SPECIAL,
  BAD_SETTING,
  BAD_UNREADABLE_CONFIG,
  BAD_POINTER,
  BAD_HOOK,
  BAD_INFO,
  BAD_INDEX,
  BAD_TODO,
  BAD_PROTECTED,
} Verdict;

typedef struct
{
  char        *path;     /* relative to the workspace, no symbolic link on the way */
  char        *repo;     /* the git folder it belongs to, relative to the workspace */
  DoorKind     kind;
  struct stat  st;       /* lstat */
  GBytes      *bytes;    /* a regular file's content up to KEEP_MAX, a link's target */
  /* How to judge it, from where it was found. */
  gboolean     worktree_commondir;  /* a linked worktree's: "../.." is git's own */
  char        *modules;  /* a submodule's .git file: the real folder its gitdir must be in */
  gboolean     judged;
  Verdict      verdict;
  char        *detail;   /* for BAD_SETTING: the setting */
} Door;

struct _WardenGitSnapshot
{
  GHashTable *doors;     /* path → Door */
  GHashTable *repos;     /* paths of the git folders looked at */
  GPtrArray  *found;     /* WardenProtectedPath: what the walk met */
  gint64      start;     /* g_get_real_time () when taken */
};

typedef struct
{
  struct stat  st;
  GPtrArray   *paths;    /* NULL: not readable */
} IndexMemo;

typedef struct
{
  struct stat  st;
  GBytes      *bytes;
} KeptBytes;

struct _WardenGitDoors
{
  char       *root;      /* the workspace, real path */
  GMutex      lock;
  GHashTable *kept;      /* path → KeptBytes of the last snapshot: read once */
  GHashTable *indexes;   /* absolute path → IndexMemo */
  GHashTable *folders;   /* relative path → FolderMemo of the last walk */
};

typedef struct
{
  WardenGitDoors    *doors;
  WardenGitSnapshot *snap;
  WardenGitSnapshot *before;   /* when closing: judge on the way */
  GHashTable        *seen;     /* real git folders looked at, and "worktree\n" + index */
  guint              includes; /* include.path followed, against loops */
} Scan;

/* ------------------------------------------------------------------------ */
/* Git configuration, as far as it is safe to read */

/* Settings that run nothing and name no other file to read. Anything else
 * a command adds (core.fsmonitor, core.hooksPath, core.pager, include.path,
 * filter.*, diff.*.textconv, alias.*, credential.helper, remote.*.vcs …)
 * is unsafe. "*" stands for any subsection or key. */
static const char * const safe_settings[] = {
  "core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates",
  "core.ignorecase", "core.precomposeunicode", "core.symlinks", "core.worktree",
  "core.autocrlf", "core.eol", "core.safecrlf", "core.quotepath", "core.abbrev",
  "core.compression", "core.loosecompression", "core.bigfilethreshold", "core.trustctime",
  "core.checkstat", "core.untrackedcache", "core.splitindex", "core.sparsecheckout",
  "core.sparsecheckoutcone", "core.commentchar", "core.whitespace", "core.sharedrepository",
  "extensions.objectformat", "extensions.worktreeconfig", "extensions.partialclone",
  "extensions.preciousobjects", "extensions.noop", "extensions.refstorage",
  "remote.*.url", "remote.*.pushurl", "remote.*.fetch", "remote.*.push", "remote.*.tagopt",
  "remote.*.prune", "remote.*.prunetags", "remote.*.mirror", "remote.*.promisor",
  "remote.*.partialclonefilter", "remote.*.skipdefaultupdate", "remote.*.skipfetchall",
  "branch.*.remote", "branch.*.merge", "branch.*.rebase", "branch.*.pushremote",
  "branch.*.description",
  "submodule.*.url", "submodule.*.path", "submodule.*.active", "submodule.*.branch", "submodule.*.ignore",
  "submodule.*.fetchrecursesubmodules", "submodule.*.shallow", "submodule.active",
  "user.name", "user.email", "init.defaultbranch", "pull.rebase", "pull.ff", "push.default",
  "push.autosetupremote", "fetch.prune", "gc.auto", "index.version", "index.skiphash",
  "color.ui", "advice.*", "i18n.commitencoding", "i18n.logoutputencoding",
  "lfs.repositoryformatversion", "lfs.*.access", "lfs.*.locksverify",
  NULL
};

static gboolean
part_matches (const char *pattern,
              gsize       pattern_len,
              const char *part,
              gsize       part_len)
{
  if (pattern_len == 1 && pattern[0] == '*')
    return part_len > 0;
  return pattern_len == part_len && memcmp (pattern, part, part_len) == 0;
}

/* @name: "section.key" or "section.subsection.key", section and key in
 * lower case. */
static gboolean
setting_is_safe (const char *name)
{
  const char *first = strchr (name, '.');
  const char *last = strrchr (name, '.');

  if (first == NULL)
    return FALSE;
  for (guint i = 0; safe_settings[i]; i++)
    {
      const char *p = safe_settings[i];
      const char *p1 = strchr (p, '.');
      const char *p2 = strrchr (p, '.');
      gboolean p_sub = p1 != p2;

      if (p_sub != (first != last))
        continue;
      if (!part_matches (p, p1 - p, name, first - name))
        continue;
      if (p_sub && !part_matches (p1 + 1, p2 - p1 - 1, first + 1, last - first - 1))
        continue;
      if (part_matches (p2 + 1, strlen (p2 + 1), last + 1, strlen (last + 1)))
        return TRUE;
    }
  return FALSE;
}

static gboolean
is_blank (char c)
{
  return c == ' ' || c == '\t';
}

/* Reads the settings of a config file into @settings as "name=value", the
 * section and key in lower case, the value as written. FALSE when the text
 * leaves this plain subset of git's syntax, where git might read a setting
 * that this does not see. */
static gboolean
config_parse (const char *text,
              gsize       len,
              GPtrArray  *settings)
{
  const char *p = text;
  const char *end = text + len;
  g_autofree char *section = NULL;

  if (memchr (text, '\0', len) != NULL)
    return FALSE;
  if (len >= 3 && memcmp (p, "\xef\xbb\xbf", 3) == 0)
    p += 3;

  while (p < end)
    {
      const char *eol = memchr (p, '\n', end - p);
      const char *e = eol != NULL ? eol : end;
      const char *q = p;

      if (e > q && e[-1] == '\r')
        e--;
      while (q < e && is_blank (*q))
        q++;

      if (q == e || *q == '#' || *q == ';')
        ;
      else if (*q == '[')
        {
          const char *name = ++q;
          g_autofree char *lower = NULL;

          while (q < e && (g_ascii_isalnum (*q) || *q == '-' || *q == '.'))
            q++;
          if (q == name || q == e)
            return FALSE;
          lower = g_ascii_strdown (name, q - name);
          if (*q == ']')
            {
              g_free (section);
              section = g_steal_pointer (&lower);
            }
          else if (is_blank (*q))
            {
              const char *sub;

              while (q < e && is_blank (*q))
                q++;
              if (q == e || *q != '"')
                return FALSE;
              sub = ++q;
              while (q < e && *q != '"' && *q != '\\')
                q++;
              if (q == e || *q != '"' || q + 1 == e || q[1] != ']')
                return FALSE;
              g_free (section);
              section = g_strdup_printf ("%s.%.*s", lower, (int) (q - sub), sub);
              q++;
            }
          else
            return FALSE;
          /* Past the "]": git would read a setting there; this does not. */
          q++;
          while (q < e && is_blank (*q))
            q++;
          if (q < e && *q != '#' && *q != ';')
            return FALSE;
        }
      else
        {
          const char *key = q;
          g_autofree char *lower = NULL;
          const char *value = "";
          gsize value_len = 0;

          if (section == NULL || !g_ascii_isalpha (*q))
            return FALSE;
          while (q < e && (g_ascii_isalnum (*q) || *q == '-'))
            q++;
          lower = g_ascii_strdown (key, q - key);
          while (q < e && is_blank (*q))
            q++;
          if (q < e)
            {
              guint quotes = 0;

              if (*q != '=')
                return FALSE;
              /* A backslash at the end continues the value on the next line. */
              if (e[-1] == '\\')
                return FALSE;
              q++;
              while (q < e && is_blank (*q))
                q++;
              value = q;
              value_len = e - q;
              while (value_len > 0 && is_blank (value[value_len - 1]))
                value_len--;
              for (const char *c = value; c < value + value_len; c++)
                {
                  if (*c == '\\')
                    c++;
                  else if (*c == '"')
                    quotes++;
                }
              if (quotes % 2 != 0)
                return FALSE;
            }
          g_ptr_array_add (settings, g_strdup_printf ("%s.%s=%.*s", section, lower,
                                                      (int) value_len, value));
        }

      if (eol == NULL)
        break;
      p = eol + 1;
    }
  return TRUE;
}

char *
warden_git_config_find_unsafe (const char *before,
                               gsize       before_len,
                               const char *after,
                               gsize       after_len)
{
  g_autoptr(GPtrArray) old = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) now = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) had = g_hash_table_new (g_str_hash, g_str_equal);

  /* What cannot be read before counts as not there. */
  if (before != NULL && config_parse (before, before_len, old))
    for (guint i = 0; i < old->len; i++)
      g_hash_table_add (had, g_ptr_array_index (old, i));
  if (!config_parse (after, after_len, now))
    return g_strdup ("");
  for (guint i = 0; i < now->len; i++)
    {
      const char *setting = g_ptr_array_index (now, i);
      g_autofree char *name = NULL;

      if (g_hash_table_contains (had, setting))
        continue;
      name = g_strndup (setting, strchr (setting, '=') - setting);
      if (!setting_is_safe (name))
        return g_steal_pointer (&name);
    }
  return NULL;
}

/* The files a config's include.path and includeIf.*.path name, as git
 * would find them: relative to the folder of @config_abs. */
static GPtrArray *
config_list_includes (const char *config_abs,
                      GBytes     *bytes)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) settings = g_ptr_array_new_with_free_func (g_free);
  gsize len = 0;
  const char *text = g_bytes_get_data (bytes, &len);
  g_autofree char *dir = g_path_get_dirname (config_abs);

  if (len == 0 || !config_parse (text, len, settings))
    return out;
  for (guint i = 0; i < settings->len; i++)
    {
      const char *s = g_ptr_array_index (settings, i);
      const char *eq = strchr (s, '=');
      g_autofree char *name = g_strndup (s, eq - s);
      g_autofree char *value = NULL;
      gsize n;

      if (strcmp (name, "include.path") != 0 &&
          !(g_str_has_prefix (name, "includeif.") && g_str_has_suffix (name, ".path")))
        continue;
      value = g_strdup (eq + 1);
      n = strlen (value);
      if (n >= 2 && value[0] == '"' && value[n - 1] == '"')
        {
          memmove (value, value + 1, n - 2);
          value[n - 2] = '\0';
        }
      if (*value == '\0')
        continue;
      if (g_str_has_prefix (value, "~/"))
        g_ptr_array_add (out, g_build_filename (g_get_home_dir (), value + 2, NULL));
      else
        g_ptr_array_add (out, g_canonicalize_filename (value, dir));
    }
  return out;
}

/* ------------------------------------------------------------------------ */
/* The index: which gitlinks git enters */

static guint32
be32 (const guint8 *p)
{
  return ((guint32) p[0] << 24) | ((guint32) p[1] << 16) | ((guint32) p[2] << 8) | p[3];
}

static GPtrArray *
index_parse (const guint8  *data,
             gsize          len,
             gsize          hash_len,
             gboolean       all,
             char         **shared_hash,
             gboolean      *all_shared)
{
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) prev = g_string_new (NULL);
  g_autofree char *shared = NULL;
  gboolean stripped = FALSE;
  guint32 version, count;
  gsize pos = 12;

  if (len < 12 + hash_len || memcmp (data, "DIRC", 4) != 0)
    return NULL;
  version = be32 (data + 4);
  count = be32 (data + 8);
  if (version < 2 || version > 4)
    return NULL;
  len -= hash_len;  /* the checksum at the end */

  for (guint32 i = 0; i < count; i++)
    {
      gsize head = 40 + hash_len + 2;
      guint32 mode;
      guint16 flags;
      const guint8 *name;
      const guint8 *nul;

      if (pos + head > len)
        return NULL;
      mode = be32 (data + pos + 24);
      flags = (data[pos + 40 + hash_len] << 8) | data[pos + 40 + hash_len + 1];
      if (flags & 0x4000)
        {
          if (version < 3)
            return NULL;
          head += 2;
          if (pos + head > len)
            return NULL;
        }
      name = data + pos + head;
      nul = memchr (name, '\0', data + len - name);
      if (nul == NULL)
        return NULL;

      if (version == 4)
        {
          /* The length to cut from the previous path, as git's varint. */
          gsize strip = 0;
          const guint8 *v = name;
          guint8 c;

          do
            {
              if (v >= data + len)
                return NULL;
              c = *v++;
              if (v - name > 1)
                strip += 1;
              strip = (strip << 7) | (c & 0x7f);
            }
          while ((c & 0x80) && v - name < 10);
          if (c & 0x80 || strip > prev->len)
            return NULL;
          nul = memchr (v, '\0', data + len - v);
          if (nul == NULL)
            return NULL;
          g_string_truncate (prev, prev->len - strip);
          g_string_append_len (prev, (const char *) v, nul - v);
          pos = (nul - data) + 1;
        }
      else
        {
          gsize next = pos + ((head + (nul - name) + 8) & ~(gsize) 7);

          if (next > len)
            return NULL;
          g_string_assign (prev, "");
          g_string_append_len (prev, (const char *) name, nul - name);
          for (const guint8 *z = nul; z < data + next; z++)
            if (*z != '\0')
              return NULL;
          pos = next;
        }

      if (all || (mode & 0170000) == 0160000)
        {
          if (prev->len == 0)
            stripped = TRUE;
          else
            g_ptr_array_add (paths, g_strndup (prev->str, prev->len));
        }
    }

  /* Extensions, up to the checksum exactly. */
  while (pos < len)
    {
      guint32 size;

      if (pos + 8 > len)
        return NULL;
      size = be32 (data + pos + 4);
      if (size > len - pos - 8)
        return NULL;
      if (memcmp (data + pos, "link", 4) == 0 && size >= hash_len)
        {
          GString *hex = g_string_new (NULL);

          for (gsize k = 0; k < hash_len; k++)
            g_string_append_printf (hex, "%02x", data[pos + 8 + k]);
          g_free (shared);
          shared = g_string_free (hex, FALSE);
        }
      pos += 8 + size;
    }
  if (pos != len)
    return NULL;

  if (shared_hash != NULL)
    *shared_hash = g_steal_pointer (&shared);
  if (all_shared != NULL)
    *all_shared = stripped;
  return g_steal_pointer (&paths);
}

GPtrArray *
warden_git_index_list_gitlinks (const guint8  *data,
                                gsize          length,
                                gboolean       all,
                                char         **shared_hash,
                                gboolean      *all_shared)
{
  /* Nothing in an index says its hash: try SHA-1, then SHA-256. */
  GPtrArray *paths = index_parse (data, length, 20, all, shared_hash, all_shared);

  if (paths == NULL)
    paths = index_parse (data, length, 32, all, shared_hash, all_shared);
  return paths;
}

static GMappedFile *
map_file (const char  *path,
          struct stat *st)
{
  int fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
  GMappedFile *map = NULL;

  if (fd < 0)
    return NULL;
  if (fstat (fd, st) == 0 && S_ISREG (st->st_mode))
    map = g_mapped_file_new_from_fd (fd, FALSE, NULL);
  close (fd);
  return map;
}

static gboolean
same_file (const struct stat *a,
           const struct stat *b)
{
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_mode == b->st_mode &&
         a->st_size == b->st_size &&
         a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
         a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static void
index_memo_free (gpointer data)
{
  IndexMemo *memo = data;

  g_clear_pointer (&memo->paths, g_ptr_array_unref);
  g_free (memo);
}

/* The gitlinks of the index @index_abs of @gitdir_abs (a new reference, or
 * NULL); *@readable FALSE when there is one that this cannot read.
 * Remembered while it stays the same file. */
static GPtrArray *
list_gitlinks (WardenGitDoors *doors,
               const char     *gitdir_abs,
               const char     *index_abs,
               gboolean       *readable)
{
  struct stat st;
  IndexMemo *memo;
  g_autoptr(GMappedFile) map = NULL;
  g_autofree char *shared_hash = NULL;
  gboolean all_shared = FALSE;
  const guint8 *data;
  gsize len;
  GPtrArray *paths;

  *readable = TRUE;
  if (stat (index_abs, &st) != 0)
    return NULL;
  memo = g_hash_table_lookup (doors->indexes, index_abs);
  if (memo != NULL && same_file (&memo->st, &st))
    {
      *readable = memo->paths != NULL;
      return memo->paths ? g_ptr_array_ref (memo->paths) : NULL;
    }

  map = map_file (index_abs, &st);
  if (map == NULL)
    return NULL;
  data = (const guint8 *) g_mapped_file_get_contents (map);
  len = g_mapped_file_get_length (map);
  /* Git refuses an index without its signature and version: it enters no
   * submodule then. */
  if (len < 12 || memcmp (data, "DIRC", 4) != 0 || be32 (data + 4) < 2 || be32 (data + 4) > 4)
    paths = g_ptr_array_new_with_free_func (g_free);
  else
    paths = warden_git_index_list_gitlinks (data, len, FALSE, &shared_hash, &all_shared);
  if (paths != NULL && shared_hash != NULL)
    {
      g_autofree char *name = g_strconcat ("sharedindex.", shared_hash, NULL);
      g_autofree char *shared_abs = g_build_filename (gitdir_abs, name, NULL);
      struct stat sst;
      g_autoptr(GMappedFile) smap = map_file (shared_abs, &sst);
      g_autoptr(GPtrArray) more = NULL;

      if (smap != NULL)
        more = warden_git_index_list_gitlinks ((const guint8 *) g_mapped_file_get_contents (smap),
                                               g_mapped_file_get_length (smap), all_shared,
                                               NULL, NULL);
      if (more == NULL)
        g_clear_pointer (&paths, g_ptr_array_unref);
      else
        for (guint i = 0; i < more->len; i++)
          g_ptr_array_add (paths, g_strdup (g_ptr_array_index (more, i)));
    }

  memo = g_new0 (IndexMemo, 1);
  memo->st = st;
  memo->paths = paths;
  g_hash_table_replace (doors->indexes, g_strdup (index_abs), memo);
  *readable = paths != NULL;
  return paths ? g_ptr_array_ref (paths) : NULL;
}

/* ------------------------------------------------------------------------ */
/* Paths */

static char *
abs_of (Scan       *scan,
        const char *rel)
{
  if (*rel == '\0')
    return g_strdup (scan->doors->root);
  return g_build_filename (scan->doors->root, rel, NULL);
}

/* @abs relative to the workspace, or NULL when it lies outside. */
static char *
rel_of (Scan       *scan,
        const char *abs)
{
  const char *root = scan->doors->root;
  gsize n = strlen (root);

  if (strcmp (root, "/") == 0)
    return g_strdup (abs + 1);
  if (strncmp (abs, root, n) != 0 || (abs[n] != '\0' && abs[n] != '/'))
    return NULL;
  return g_strdup (abs[n] == '\0' ? "" : abs + n + 1);
}

static char *
join (const char *dir,
      const char *name)
{
  if (*dir == '\0')
    return g_strdup (name);
  return g_build_filename (dir, name, NULL);
}

static char *
real_path (const char *path)
{
  char *real = realpath (path, NULL);
  char *copy = g_strdup (real);

  free (real);
  return copy;
}

static gboolean
path_within (const char *inner,
             const char *outer)
{
  gsize n = strlen (outer);

  return strncmp (inner, outer, n) == 0 && (inner[n] == '\0' || inner[n] == '/');
}

/* Whether no folder of @rel below the workspace is a symbolic link: git
 * enters no gitlink through one. Cheaper than realpath(), which reads every
 * component of the workspace's own path too. */
static gboolean
no_link_on_the_way (const char *root,
                    const char *rel)
{
  g_autoptr(GString) path = g_string_new (root);
  g_auto(GStrv) parts = g_strsplit (rel, "/", -1);

  for (guint i = 0; parts[i]; i++)
    {
      struct stat st;

      if (*parts[i] == '\0')
        continue;
      g_string_append_c (path, '/');
      g_string_append (path, parts[i]);
      if (lstat (path->str, &st) != 0 || !S_ISDIR (st.st_mode))
        return FALSE;
    }
  return TRUE;
}

/* A safe path inside a work tree: not absolute, no "." or "..", no .git. */
static gboolean
gitlink_path_ok (const char *path)
{
  g_auto(GStrv) parts = g_strsplit (path, "/", -1);

  if (*path == '\0' || *path == '/')
    return FALSE;
  for (guint i = 0; parts[i]; i++)
    if (*parts[i] == '\0' || strcmp (parts[i], ".") == 0 || strcmp (parts[i], "..") == 0 ||
        g_ascii_strcasecmp (parts[i], ".git") == 0)
      return FALSE;
  return TRUE;
}

static GBytes *
read_bytes (const char        *abs,
            const struct stat *st,
            gsize              max)
{
  int fd;
  struct stat fst;
  GByteArray *buf;
  guint8 chunk[8192];
  gssize n;

  if (S_ISLNK (st->st_mode))
    {
      g_autofree char *target = g_file_read_link (abs, NULL);

      return target != NULL ? g_bytes_new (target, strlen (target)) : NULL;
    }
  if (!S_ISREG (st->st_mode) || (gsize) st->st_size > max)
    return NULL;
  fd = g_open (abs, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0);
  if (fd < 0)
    return NULL;
  if (fstat (fd, &fst) != 0 || fst.st_ino != st->st_ino || !S_ISREG (fst.st_mode))
    {
      close (fd);
      return NULL;
    }
  buf = g_byte_array_new ();
  while ((n = read (fd, chunk, sizeof chunk)) > 0 && buf->len <= max)
    g_byte_array_append (buf, chunk, n);
  close (fd);
  if (n < 0 || buf->len > max)
    {
      g_byte_array_unref (buf);
      return NULL;
    }
  return g_byte_array_free_to_bytes (buf);
}

/* "gitdir: PATH" of a .git file, resolved from its folder; NULL if none. */
static char *
gitfile_target (const char *gitfile_abs,
                GBytes     *bytes)
{
  gsize len = 0;
  const char *text = bytes ? g_bytes_get_data (bytes, &len) : NULL;
  g_autofree char *line = NULL;
  g_autofree char *dir = NULL;

  if (text == NULL || len < 8 || memcmp (text, "gitdir: ", 8) != 0)
    return NULL;
  line = g_strndup (text + 8, len - 8);
  g_strchomp (line);
  if (*line == '\0')
    return NULL;
  dir = g_path_get_dirname (gitfile_abs);
  return g_canonicalize_filename (line, dir);
}

/* The content of a commondir, resolved from its git folder. */
static char *
commondir_target (const char *gitdir_abs,
                  GBytes     *bytes)
{
  gsize len = 0;
  const char *text = bytes ? g_bytes_get_data (bytes, &len) : NULL;
  g_autofree char *line = NULL;

  if (text == NULL || len == 0)
    return NULL;
  line = g_strndup (text, len);
  g_strchomp (line);
  if (*line == '\0')
    return NULL;
  return g_canonicalize_filename (line, gitdir_abs);
}

/* ------------------------------------------------------------------------ */
/* Doors */

static void
door_free (gpointer data)
{
  Door *door = data;

  g_free (door->path);
  g_free (door->repo);
  g_clear_pointer (&door->bytes, g_bytes_unref);
  g_free (door->modules);
  g_free (door->detail);
  g_free (door);
}

static Door *
door_copy (const Door *door)
{
  Door *copy = g_new0 (Door, 1);

  copy->path = g_strdup (door->path);
  copy->repo = g_strdup (door->repo);
  copy->kind = door->kind;
  copy->st = door->st;
  copy->bytes = door->bytes ? g_bytes_ref (door->bytes) : NULL;
  copy->worktree_commondir = door->worktree_commondir;
  copy->modules = g_strdup (door->modules);
  return copy;
}

static void
kept_bytes_free (gpointer data)
{
  KeptBytes *kept = data;

  g_clear_pointer (&kept->bytes, g_bytes_unref);
  g_free (kept);
}

static GBytes *
door_get_bytes (Scan *scan,
                Door *door,
                gsize max)
{
  g_autofree char *abs = NULL;

  if (door->bytes == NULL && scan->before != NULL)
    {
      Door *old = g_hash_table_lookup (scan->before->doors, door->path);

      /* Unchanged: as read before the command. */
      if (old != NULL && old->bytes != NULL && same_file (&old->st, &door->st))
        door->bytes = g_bytes_ref (old->bytes);
    }
  if (door->bytes == NULL)
    {
      abs = abs_of (scan, door->path);
      door->bytes = read_bytes (abs, &door->st, max);
    }
  return door->bytes;
}

/* A door's bytes, to put back later: as @before had them while the file
 * stays the same, else read now (NULL when it changed on the way). */
static GBytes *
door_keep_bytes (WardenGitDoors    *doors,
                 WardenGitSnapshot *before,
                 Door              *door)
{
  Door *old = before != NULL ? g_hash_table_lookup (before->doors, door->path) : NULL;
  g_autofree char *abs = NULL;
  GBytes *bytes;
  struct stat now;

  if (old != NULL && old->bytes != NULL && same_file (&old->st, &door->st))
    return g_bytes_ref (old->bytes);
  abs = g_build_filename (doors->root, door->path, NULL);
  bytes = read_bytes (abs, &door->st, KEEP_MAX);
  /* Changed since the scan, even in place: not what was judged. The next
   * check then compares with nothing, which holds every setting suspect. */
  if (bytes != NULL && (lstat (abs, &now) != 0 || !same_file (&door->st, &now)))
    g_clear_pointer (&bytes, g_bytes_unref);
  return bytes;
}

/* Whether the command made or changed @door. */
static gboolean
door_changed (Scan *scan,
              Door *door)
{
  Door *old;
  gint64 ctime_us;

  if (scan->before == NULL)
    return FALSE;
  old = g_hash_table_lookup (scan->before->doors, door->path);
  if (old != NULL)
    return !same_file (&old->st, &door->st);
  /* The walk before saw every protected path the walk after sees. */
  if (door->kind == DOOR_PROTECTED || door->kind == DOOR_GITMODULES ||
      g_hash_table_contains (scan->before->repos, door->repo))
    return TRUE;
  /* A repository found only now: its files are the command's if they
   * changed since it started. */
  ctime_us = (gint64) door->st.st_ctim.tv_sec * G_USEC_PER_SEC + door->st.st_ctim.tv_nsec / 1000;
  return ctime_us >= scan->before->start - CTIME_MARGIN_US;
}

/* Rewritten as it was, mode and bytes: what Warden put back itself, or a
 * program that saved a file unchanged. Opens nothing that was not open. */
static gboolean
same_content (Scan *scan,
              Door *old,
              Door *door)
{
  GBytes *now;

  if (old == NULL || old->bytes == NULL || door->kind == DOOR_INDEX ||
      !S_ISREG (old->st.st_mode) || !S_ISREG (door->st.st_mode) ||
      old->st.st_mode != door->st.st_mode || old->st.st_size != door->st.st_size ||
      g_bytes_get_size (old->bytes) != (gsize) old->st.st_size)
    return FALSE;
  now = door_get_bytes (scan, door, KEEP_MAX);
  return now != NULL && g_bytes_equal (now, old->bytes);
}

static Verdict
judge (Scan *scan,
       Door *door)
{
  Door *old;
  g_autofree char *abs = NULL;

  if (!door_changed (scan, door))
    return FINE;
  old = g_hash_table_lookup (scan->before->doors, door->path);
  if (same_content (scan, old, door))
    return FINE;

  /* Whatever a command made or changed there, but a folder (its files are
   * doors of their own): an editor, direnv, mise or hg reads it as it is. */
  if (door->kind == DOOR_PROTECTED && !S_ISLNK (door->st.st_mode))
    return S_ISDIR (door->st.st_mode) ? FINE : BAD_PROTECTED;
  if (S_ISLNK (door->st.st_mode))
    {
      /* The same link, only touched: as it was. */
      door_get_bytes (scan, door, KEEP_MAX);
      if (old != NULL && S_ISLNK (old->st.st_mode) && old->bytes != NULL &&
          door->bytes != NULL && g_bytes_equal (old->bytes, door->bytes))
        return FINE;
      return door->kind == DOOR_PROTECTED ? BAD_PROTECTED : BAD_LINK;
    }
  if (door->kind == DOOR_DIR || S_ISDIR (door->st.st_mode))
    return FINE;
  if (door->kind == DOOR_INDEX)
    return BAD_INDEX;
  if (!S_ISREG (door->st.st_mode))
    return BAD_SPECIAL;

  abs = abs_of (scan, door->path);
  switch (door->kind)
    {
    case DOOR_CONFIG:
    case DOOR_GITMODULES:
      {
        GBytes *now = door_get_bytes (scan, door, READ_MAX);
        gsize old_len = 0, now_len = 0;
        const char *old_text = old && old->bytes && S_ISREG (old->st.st_mode)
                               ? g_bytes_get_data (old->bytes, &old_len) : NULL;
        const char *now_text;

        if (now == NULL)
          return BAD_UNREADABLE_CONFIG;
        now_text = g_bytes_get_data (now, &now_len);
        door->detail = warden_git_config_find_unsafe (old_text ? old_text : "", old_len,
                                                      now_text ? now_text : "", now_len);
        if (door->detail == NULL)
          return FINE;
        return *door->detail ? BAD_SETTING : BAD_UNREADABLE_CONFIG;
      }

    case DOOR_COMMONDIR:
      {
        GBytes *now = door_get_bytes (scan, door, 4096);
        g_autofree char *line = NULL;

        /* git worktree add writes "../..": the main git folder, looked at already. */
        if (!door->worktree_commondir || now == NULL)
          return BAD_POINTER;
        line = g_strndup (g_bytes_get_data (now, NULL), g_bytes_get_size (now));
        g_strstrip (line);
        return strcmp (line, "../..") == 0 ? FINE : BAD_POINTER;
      }

    case DOOR_GITFILE:
      {
        GBytes *now = door_get_bytes (scan, door, 4096);
        g_autofree char *target = NULL;
        g_autofree char *real = NULL;

        /* A submodule's, into the superproject's .git/modules: looked at too. */
        if (door->modules == NULL || now == NULL)
          return BAD_POINTER;
        target = gitfile_target (abs, now);
        real = target ? real_path (target) : NULL;
        if (real != NULL && path_within (real, door->modules) && strcmp (real, door->modules) != 0)
          return FINE;
        return BAD_POINTER;
      }

    case DOOR_HOOK:
      return BAD_HOOK;

    case DOOR_TODO:
      {
        GBytes *now = door_get_bytes (scan, door, READ_MAX);
        gsize len = 0;
        const char *data = now ? g_bytes_get_data (now, &len) : NULL;
        g_autofree char *text = NULL;
        g_auto(GStrv) lines = NULL;

        if (now == NULL || (len > 0 && memchr (data, '\0', len) != NULL))
          return BAD_TODO;
        text = g_strndup (data, len);
        lines = g_strsplit (text, "\n", -1);
        for (guint i = 0; lines[i]; i++)
          {
            const char *l = lines[i] + strspn (lines[i], " \t");

            if ((g_str_has_prefix (l, "exec") && (l[4] == ' ' || l[4] == '\t')) ||
                (l[0] == 'x' && (l[1] == ' ' || l[1] == '\t')))
              return BAD_TODO;
          }
        return FINE;
      }

    case DOOR_INFO:
      {
        g_autofree char *parent = g_path_get_dirname (door->path);
        g_autofree char *parent_name = g_path_get_basename (parent);
        g_autofree char *name = g_path_get_basename (door->path);

        /* info/attributes chooses the filter, diff and merge drivers git
         * runs; exclude, sparse-checkout and refs are lists git reads. */
        if (strcmp (parent_name, "info") == 0 && strcmp (name, "attributes") != 0)
          return FINE;
        return BAD_INFO;
      }

    case DOOR_DIR:
    case DOOR_INDEX:
    case DOOR_PROTECTED:
    default:
      return FINE;
    }
}

static Door *
add_door (Scan              *scan,
          const char        *rel,
          const char        *repo,
          DoorKind           kind,
          const struct stat *st)
{
  Door *door = g_hash_table_lookup (scan->snap->doors, rel);

  /* A door found twice (a repository reached two ways) is one door. */
  if (door != NULL)
    return door;
  door = g_new0 (Door, 1);
  door->path = g_strdup (rel);
  door->repo = g_strdup (repo);
  door->kind = kind;
  door->st = *st;

  /* Before the command: what it would need to be put back. */
  if (scan->before == NULL && kind != DOOR_INDEX &&
      (S_ISLNK (st->st_mode) || (S_ISREG (st->st_mode) && kind != DOOR_DIR)))
    {
      KeptBytes *kept = g_hash_table_lookup (scan->doors->kept, rel);

      if (kept != NULL && same_file (&kept->st, st))
        door->bytes = kept->bytes ? g_bytes_ref (kept->bytes) : NULL;
      else
        {
          g_autofree char *abs = abs_of (scan, rel);

          door->bytes = read_bytes (abs, st, KEEP_MAX);
        }
    }
  g_hash_table_insert (scan->snap->doors, door->path, door);
  return door;
}

/* Records @rel, when there is anything, as a door of @kind. */
static Door *
file_door (Scan       *scan,
           const char *rel,
           const char *repo,
           DoorKind    kind)
{
  g_autofree char *abs = abs_of (scan, rel);
  struct stat st;

  if (lstat (abs, &st) != 0)
    return NULL;
  return add_door (scan, rel, repo, kind, &st);
}

/* A door the scan goes on through: judged now, when closing, so that
 * nothing behind one that the command opened is taken for the user's. */
static gboolean
door_passable (Scan *scan,
               Door *door)
{
  if (scan->before == NULL)
    return TRUE;
  if (!door->judged)
    {
      door->verdict = judge (scan, door);
      door->judged = TRUE;
    }
  return door->verdict == FINE;
}

static void scan_repo (Scan *scan, const char *gitdir_abs, const char *worktree, guint depth);

static void
config_door (Scan       *scan,
             const char *rel,
             const char *repo)
{
  Door *door = file_door (scan, rel, repo, DOOR_CONFIG);
  g_autofree char *abs = NULL;
  g_autoptr(GPtrArray) includes = NULL;
  GBytes *bytes;

  if (door == NULL || scan->includes >= INCLUDE_DEPTH * 8)
    return;
  /* The user's link to a config elsewhere in the workspace: that one is
   * read, and a command can write it. */
  if (S_ISLNK (door->st.st_mode))
    {
      g_autofree char *link_abs = abs_of (scan, rel);
      g_autofree char *target = NULL;
      g_autofree char *target_rel = NULL;

      if (!door_passable (scan, door))
        return;
      target = real_path (link_abs);
      target_rel = target ? rel_of (scan, target) : NULL;
      if (target_rel != NULL && *target_rel != '\0' &&
          !g_hash_table_contains (scan->snap->doors, target_rel))
        {
          scan->includes++;
          config_door (scan, target_rel, repo);
        }
      return;
    }
  if (!S_ISREG (door->st.st_mode))
    return;
  /* Closing, an unchanged config reads as before; a changed one is judged. */
  if (scan->before != NULL)
    {
      Door *old = g_hash_table_lookup (scan->before->doors, rel);

      if (old != NULL && same_file (&old->st, &door->st) && old->bytes != NULL)
        bytes = old->bytes;
      else if (!door_passable (scan, door))
        return;
      else
        bytes = door_get_bytes (scan, door, READ_MAX);
    }
  else
    bytes = door->bytes;
  if (bytes == NULL)
    return;

  abs = abs_of (scan, rel);
  includes = config_list_includes (abs, bytes);
  for (guint i = 0; i < includes->len; i++)
    {
      const char *path = g_ptr_array_index (includes, i);
      g_autofree char *dir = g_path_get_dirname (path);
      g_autofree char *base = g_path_get_basename (path);
      g_autofree char *real_dir = real_path (dir);
      g_autofree char *real = real_dir ? g_build_filename (real_dir, base, NULL) : NULL;
      g_autofree char *inc_rel = real ? rel_of (scan, real) : NULL;

      if (inc_rel == NULL || *inc_rel == '\0' || g_hash_table_contains (scan->snap->doors, inc_rel))
        continue;
      scan->includes++;
      config_door (scan, inc_rel, repo);
    }
}

static Door *
dir_door (Scan       *scan,
          const char *rel,
          const char *repo)
{
  return file_door (scan, rel, repo, DOOR_DIR);
}

/* hooks/ or info/ and everything in it. */
static void
tree_doors (Scan       *scan,
            const char *rel,
            const char *repo,
            DoorKind    kind,
            guint       depth)
{
  Door *door = dir_door (scan, rel, repo);
  g_autofree char *abs = NULL;
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (door == NULL || !S_ISDIR (door->st.st_mode))
    return;
  abs = abs_of (scan, rel);
  dir = g_dir_open (abs, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (rel, name, NULL);
      g_autofree char *child_abs = g_build_filename (abs, name, NULL);
      struct stat st;

      /* git runs a hook by its name; NAME.sample never. */
      if (kind == DOOR_HOOK && g_str_has_suffix (name, ".sample"))
        continue;
      if (lstat (child_abs, &st) != 0)
        continue;
      if (S_ISDIR (st.st_mode) && depth < TREE_DEPTH)
        tree_doors (scan, child, repo, kind, depth + 1);
      else
        add_door (scan, child, repo, kind, &st);
    }
}

static gboolean
looks_like_gitdir (const char *abs)
{
  const char *names[] = { "HEAD", "config", "commondir", "objects", "hooks" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (abs, names[i], NULL);
      struct stat st;

      if (lstat (path, &st) == 0)
        return TRUE;
    }
  return FALSE;
}

/* .git/modules: the git folder of submodule NAME is modules/NAME, and a
 * name may hold slashes. */
static void
modules_doors (Scan       *scan,
               const char *rel,
               const char *repo,
               guint       repo_depth,
               guint       depth)
{
  g_autofree char *abs = abs_of (scan, rel);
  g_autoptr(GDir) dir = g_dir_open (abs, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (rel, name, NULL);
      g_autofree char *child_abs = g_build_filename (abs, name, NULL);
      struct stat st;

      if (lstat (child_abs, &st) != 0)
        continue;
      if (S_ISLNK (st.st_mode))
        add_door (scan, child, repo, DOOR_DIR, &st);
      else if (!S_ISDIR (st.st_mode))
        continue;
      else if (looks_like_gitdir (child_abs))
        {
          add_door (scan, child, repo, DOOR_DIR, &st);
          scan_repo (scan, child_abs, NULL, repo_depth + 1);
        }
      else if (depth < MODULES_DEPTH)
        modules_doors (scan, child, repo, repo_depth, depth + 1);
    }
}

/* Where the submodules of the repository in @gitdir_abs keep their git
 * folders: its common folder's modules/. */
static char *
modules_of (const char *gitdir_abs)
{
  g_autofree char *commondir = g_build_filename (gitdir_abs, "commondir", NULL);
  g_autofree char *text = NULL;
  g_autofree char *common = NULL;
  g_autofree char *modules = NULL;
  g_autofree char *real = NULL;
  gsize len = 0;

  if (g_file_get_contents (commondir, &text, &len, NULL))
    {
      g_autoptr(GBytes) bytes = g_bytes_new_take (g_steal_pointer (&text), len);

      common = commondir_target (gitdir_abs, bytes);
    }
  modules = g_build_filename (common ? common : gitdir_abs, "modules", NULL);
  /* @gitdir_abs is real already; a common folder is anywhere. */
  if (common == NULL)
    return g_steal_pointer (&modules);
  real = real_path (modules);
  return real ? g_steal_pointer (&real) : g_steal_pointer (&modules);
}

/* The .git of each gitlink of the index of @gitdir_abs, checked out in
 * @worktree: git status enters every one. With @prefix, the work tree is
 * a folder above the workspace, which is @prefix in it. */
static void
gitlink_doors (Scan       *scan,
               const char *gitdir_abs,
               const char *gitdir_rel,
               const char *worktree,
               const char *prefix,
               guint       depth)
{
  g_autofree char *index_abs = g_build_filename (gitdir_abs, "index", NULL);
  g_autofree char *key = g_strconcat (worktree, "\n", prefix ? prefix : "", "\n", index_abs,
                                      NULL);
  gsize prefix_len = prefix ? strlen (prefix) : 0;
  g_autofree char *modules = NULL;
  g_autoptr(GPtrArray) gitlinks = NULL;
  gboolean readable;

  if (!g_hash_table_add (scan->seen, g_steal_pointer (&key)))
    return;
  gitlinks = list_gitlinks (scan->doors, gitdir_abs, index_abs, &readable);
  if (!readable)
    {
      g_autofree char *index_rel = rel_of (scan, index_abs);

      if (index_rel != NULL)
        file_door (scan, index_rel, gitdir_rel ? gitdir_rel : "", DOOR_INDEX);
      return;
    }
  if (gitlinks == NULL || gitlinks->len == 0)
    return;

  modules = modules_of (gitdir_abs);
  for (guint i = 0; i < gitlinks->len; i++)
    {
      const char *path = g_ptr_array_index (gitlinks, i);
      g_autofree char *sub = NULL;
      g_autofree char *dotgit = NULL;
      g_autofree char *dotgit_abs = NULL;
      g_autofree char *target = NULL;
      g_autofree char *target_real = NULL;
      struct stat st;
      Door *door;

      if (prefix != NULL)
        {
          if (strncmp (path, prefix, prefix_len) != 0 || path[prefix_len] != '/')
            continue;
          path += prefix_len + 1;
        }
      if (!gitlink_path_ok (path))
        continue;
      /* No symbolic link on the way: git would not enter it either. */
      sub = join (worktree, path);
      if (!no_link_on_the_way (scan->doors->root, sub))
        continue;
      dotgit = join (sub, ".git");
      dotgit_abs = abs_of (scan, dotgit);
      if (lstat (dotgit_abs, &st) != 0)
        continue;

      if (S_ISDIR (st.st_mode))
        {
          add_door (scan, dotgit, sub, DOOR_DIR, &st);
          scan_repo (scan, dotgit_abs, sub, depth + 1);
          continue;
        }
      door = add_door (scan, dotgit, gitdir_rel ? gitdir_rel : "",
                       S_ISLNK (st.st_mode) ? DOOR_DIR : DOOR_GITFILE, &st);
      door->modules = g_strdup (modules);
      if (!door_passable (scan, door))
        continue;
      if (S_ISLNK (st.st_mode))
        target_real = real_path (dotgit_abs);
      else
        {
          target = gitfile_target (dotgit_abs, door_get_bytes (scan, door, 4096));
          target_real = target ? real_path (target) : NULL;
        }
      if (target_real != NULL && g_file_test (target_real, G_FILE_TEST_IS_DIR))
        scan_repo (scan, target_real, sub, depth + 1);
    }
}

/* The doors of the git folder @gitdir_abs (real), and of the repositories
 * git enters from it; @worktree (relative) where it is checked out, NULL
 * when that is not known. A git folder outside the workspace has no door a
 * command could open, but the work tree's gitlinks are inside. */
static void
scan_repo (Scan       *scan,
           const char *gitdir_abs,
           const char *worktree,
           guint       depth)
{
  g_autofree char *rel = rel_of (scan, gitdir_abs);

  if (depth > REPO_DEPTH)
    return;

  if (rel != NULL && g_hash_table_add (scan->seen, g_strdup (gitdir_abs)))
    {
      g_autofree char *config = join (rel, "config");
      g_autofree char *config_worktree = join (rel, "config.worktree");
      g_autofree char *commondir = join (rel, "commondir");
      g_autofree char *hooks = join (rel, "hooks");
      g_autofree char *info = join (rel, "info");
      g_autofree char *modules = join (rel, "modules");
      g_autofree char *worktrees = join (rel, "worktrees");
      g_autofree char *parent = g_path_get_dirname (rel);
      Door *door;

      g_autofree char *rebase_todo = join (rel, "rebase-merge/git-rebase-todo");
      g_autofree char *sequencer_todo = join (rel, "sequencer/todo");

      g_hash_table_add (scan->snap->repos, g_strdup (rel));
      config_door (scan, config, rel);
      config_door (scan, config_worktree, rel);
      file_door (scan, rebase_todo, rel, DOOR_TODO);
      file_door (scan, sequencer_todo, rel, DOOR_TODO);

      door = file_door (scan, commondir, rel, DOOR_COMMONDIR);
      if (door != NULL)
        {
          g_autofree char *parent_name = g_path_get_basename (parent);

          door->worktree_commondir = strcmp (parent_name, "worktrees") == 0;
          if (door_passable (scan, door))
            {
              g_autofree char *target = commondir_target (gitdir_abs,
                                                          door_get_bytes (scan, door, 4096));
              g_autofree char *target_real = target ? real_path (target) : NULL;

              if (target_real != NULL && g_file_test (target_real, G_FILE_TEST_IS_DIR))
                scan_repo (scan, target_real, NULL, depth + 1);
            }
        }

      tree_doors (scan, hooks, rel, DOOR_HOOK, 0);
      tree_doors (scan, info, rel, DOOR_INFO, 0);

      door = dir_door (scan, modules, rel);
      if (door != NULL && S_ISDIR (door->st.st_mode))
        modules_doors (scan, modules, rel, depth, 0);

      door = dir_door (scan, worktrees, rel);
      if (door != NULL && S_ISDIR (door->st.st_mode))
        {
          g_autofree char *abs = abs_of (scan, worktrees);
          g_autoptr(GDir) dir = g_dir_open (abs, 0, NULL);
          const char *name;

          while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
            {
              g_autofree char *child = g_build_filename (worktrees, name, NULL);
              g_autofree char *child_abs = g_build_filename (abs, name, NULL);
              Door *w = dir_door (scan, child, rel);

              if (w != NULL && S_ISDIR (w->st.st_mode))
                scan_repo (scan, child_abs, NULL, depth + 1);
            }
        }
    }

  if (worktree != NULL)
    gitlink_doors (scan, gitdir_abs, rel, worktree, NULL, depth);
}

/* A workspace inside a repository (a folder of a monorepo): git status
 * there enters the gitlinks of that repository's index that lie in the
 * workspace, and their .git is the workspace's. */
static void
scan_enclosing (Scan *scan)
{
  g_autofree char *dir = g_path_get_dirname (scan->doors->root);
  g_autofree char *prefix = g_path_get_basename (scan->doors->root);

  if (strcmp (scan->doors->root, "/") == 0)
    return;
  for (;;)
    {
      g_autofree char *dotgit = g_build_filename (dir, ".git", NULL);
      g_autofree char *parent = NULL;
      struct stat st;

      if (lstat (dotgit, &st) == 0)
        {
          g_autofree char *gitdir = NULL;
          g_autofree char *real = NULL;

          if (S_ISREG (st.st_mode))
            {
              g_autoptr(GBytes) bytes = read_bytes (dotgit, &st, 4096);

              gitdir = gitfile_target (dotgit, bytes);
            }
          else
            gitdir = g_strdup (dotgit);
          real = gitdir ? real_path (gitdir) : NULL;
          if (real != NULL)
            {
              g_hash_table_add (scan->snap->repos, g_strdup (""));
              gitlink_doors (scan, real, NULL, "", prefix, 0);
            }
          return;
        }
      if (strcmp (dir, "/") == 0)
        return;
      parent = g_path_get_dirname (dir);
      {
        g_autofree char *base = g_path_get_basename (dir);
        char *longer = g_build_filename (base, prefix, NULL);

        g_free (prefix);
        prefix = longer;
      }
      g_free (dir);
      dir = g_steal_pointer (&parent);
    }
}

/* The workspace's own .git: a folder, or a file naming one. */
static void
scan_workspace (Scan *scan)
{
  g_autofree char *abs = abs_of (scan, ".git");
  struct stat st;
  Door *door;

  /* git status run above the workspace enters them too. */
  scan_enclosing (scan);
  if (lstat (abs, &st) != 0)
    return;
  if (S_ISDIR (st.st_mode))
    {
      add_door (scan, ".git", "", DOOR_DIR, &st);
      scan_repo (scan, abs, "", 0);
      return;
    }

  /* A worktree's or a submodule's: where it points was chosen outside. */
  door = add_door (scan, ".git", "", S_ISLNK (st.st_mode) ? DOOR_DIR : DOOR_GITFILE, &st);
  g_hash_table_add (scan->snap->repos, g_strdup (""));
  if (door_passable (scan, door))
    {
      g_autofree char *target = S_ISLNK (st.st_mode)
                                  ? g_strdup (abs)
                                  : gitfile_target (abs, door_get_bytes (scan, door, 4096));
      g_autofree char *real = target ? real_path (target) : NULL;

      if (real != NULL && g_file_test (real, G_FILE_TEST_IS_DIR))
        scan_repo (scan, real, "", 0);
    }
}

/* ------------------------------------------------------------------------ */
/* The other protected paths: one walk for the list of the policy layer */

typedef WardenProtectedPathFunc WalkFunc;

static void
walk_found (const char          *root,
            const char          *rel,
            WardenProtectedKind  kind,
            WalkFunc             func,
            gpointer             data)
{
  g_autofree char *abs = g_build_filename (root, rel, NULL);
  struct stat st;

  if (lstat (abs, &st) == 0)
    func (rel, kind, &st, data);
}

/* What the walk keeps of a folder: its subfolders and its protected
 * names, read again only when the folder changed. Its ctime moves with
 * every name added, removed or renamed in it, and no command can set it
 * back (touch -d sets mtime, and moves ctime). */
typedef struct
{
  struct stat  st;       /* lstat; st_ctim zero: changed too recently to trust */
  GPtrArray   *entries;  /* "dNAME" for a folder, "fNAME" for anything else protected */
} FolderMemo;

static void
folder_memo_free (gpointer data)
{
  FolderMemo *memo = data;

  g_ptr_array_unref (memo->entries);
  g_free (memo);
}

typedef struct
{
  const char *root;
  WalkFunc    func;
  gpointer    data;
  GHashTable *old_memo;  /* rel → FolderMemo of the last walk */
  GHashTable *new_memo;  /* of this one */
  gint64      now;
} Walk;

static gboolean
same_folder (const struct stat *a,
             const struct stat *b)
{
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
         a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec &&
         a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* The entries of the folder @rel that the walk looks at: as the last walk
 * read them while the folder stays the same, else read now. */
static GPtrArray *
walk_read_folder (Walk       *w,
                  const char *rel,
                  guint       depth)
{
  g_autofree char *abs = g_build_filename (w->root, rel, NULL);
  gpointer old_key = NULL;
  FolderMemo *memo = NULL;
  struct stat st;
  struct dirent *entry;
  gint64 ctime_us;
  DIR *dir;
  int fd;

  if (lstat (abs, &st) != 0 || !S_ISDIR (st.st_mode))
    return NULL;
  if (g_hash_table_steal_extended (w->old_memo, rel, &old_key, (gpointer *) &memo))
    {
      g_free (old_key);
      if (same_folder (&memo->st, &st))
        {
          g_hash_table_replace (w->new_memo, g_strdup (rel), memo);
          return memo->entries;
        }
      folder_memo_free (memo);
    }

  fd = open (abs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || fstat (fd, &st) != 0 || (dir = fdopendir (fd)) == NULL)
    {
      if (fd >= 0)
        close (fd);
      return NULL;
    }
  memo = g_new0 (FolderMemo, 1);
  memo->st = st;
  memo->entries = g_ptr_array_new_with_free_func (g_free);
  while ((entry = readdir (dir)) != NULL)
    {
      const char *name = entry->d_name;
      gboolean is_dir;

      if (strcmp (name, ".") == 0 || strcmp (name, "..") == 0)
        continue;
      if (depth == 0 && (strcmp (name, ".git") == 0 ||
                         g_str_has_prefix (name, ".warden-quarantine")))
        continue;
      if (entry->d_type == DT_UNKNOWN)
        {
          struct stat child;

          is_dir = fstatat (fd, name, &child, AT_SYMLINK_NOFOLLOW) == 0 &&
                   S_ISDIR (child.st_mode);
        }
      else
        is_dir = entry->d_type == DT_DIR;
      if (is_dir || warden_protected_name_kind (name) != WARDEN_PROTECTED_NONE)
        g_ptr_array_add (memo->entries, g_strconcat (is_dir ? "d" : "f", name, NULL));
    }
  closedir (dir);
  /* Changed within the clock's reach of now: a change in the same tick
   * would leave its ctime as it is. Read again next time. */
  ctime_us = (gint64) st.st_ctim.tv_sec * G_USEC_PER_SEC + st.st_ctim.tv_nsec / 1000;
  if (ctime_us >= w->now - CTIME_MARGIN_US)
    memo->st.st_ctim.tv_sec = memo->st.st_ctim.tv_nsec = 0;
  g_hash_table_replace (w->new_memo, g_strdup (rel), memo);
  return memo->entries;
}

/* Calls @func for each protected path in the folder @rel of @root and
 * below it: a folder of kind TREE once (its files are the caller's), the
 * parts of a SOME folder as TREE or FILE, a nested .git as REPO. Follows
 * no symbolic link; skips the workspace's own .git and the quarantine. */
static void
walk_folder (Walk       *w,
             const char *rel,
             guint       depth)
{
  GPtrArray *entries = walk_read_folder (w, rel, depth);

  for (guint i = 0; entries != NULL && i < entries->len; i++)
    {
      const char *entry = g_ptr_array_index (entries, i);
      const char *name = entry + 1;
      gboolean is_dir = entry[0] == 'd';
      WardenProtectedKind kind = warden_protected_name_kind (name);
      g_autofree char *child = *rel != '\0' ? g_build_filename (rel, name, NULL)
                                            : g_strdup (name);

      switch (kind)
        {
        case WARDEN_PROTECTED_TREE:
        case WARDEN_PROTECTED_FILE:
        case WARDEN_PROTECTED_REPO:
          walk_found (w->root, child, kind, w->func, w->data);
          break;

        case WARDEN_PROTECTED_SOME:
          {
            const char * const *parts = warden_protected_name_parts (name);

            if (!is_dir)
              {
                /* A link there moves what the host reads: the link itself. */
                walk_found (w->root, child, WARDEN_PROTECTED_FILE, w->func, w->data);
                break;
              }
            for (guint k = 0; parts[k]; k++)
              {
                g_autofree char *part = g_build_filename (child, parts[k], NULL);
                g_autofree char *part_abs = g_build_filename (w->root, part, NULL);
                struct stat st;

                if (lstat (part_abs, &st) == 0)
                  w->func (part, S_ISDIR (st.st_mode) ? WARDEN_PROTECTED_TREE
                                                      : WARDEN_PROTECTED_FILE, &st, w->data);
              }
            /* hg's store holds only data; other such folders hold work. */
            if (g_ascii_strcasecmp (name, ".hg") != 0 && depth < WALK_DEPTH)
              walk_folder (w, child, depth + 1);
          }
          break;

        case WARDEN_PROTECTED_NONE:
        default:
          if (is_dir && depth < WALK_DEPTH)
            walk_folder (w, child, depth + 1);
          break;
        }
    }
}

/* The walk, from the folders @memo kept (replaced by what this one read). */
static void
walk_protected (const char  *root,
                GHashTable **memo,
                WalkFunc     func,
                gpointer     data)
{
  Walk w = { root, func, data, *memo, NULL, g_get_real_time () };

  w.new_memo = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, folder_memo_free);
  walk_folder (&w, "", 0);
  g_hash_table_unref (*memo);
  *memo = w.new_memo;
}

/* A protected folder and what it holds, as doors of their own. */
static void
protected_tree_doors (Scan              *scan,
                      const char        *rel,
                      const struct stat *st,
                      guint              depth)
{
  g_autofree char *abs = NULL;
  g_autoptr(GDir) dir = NULL;
  const char *name;

  add_door (scan, rel, "", DOOR_PROTECTED, st);
  if (!S_ISDIR (st->st_mode))
    return;
  abs = abs_of (scan, rel);
  dir = g_dir_open (abs, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (rel, name, NULL);
      g_autofree char *child_abs = g_build_filename (abs, name, NULL);
      struct stat child_st;

      if (lstat (child_abs, &child_st) != 0)
        continue;
      if (S_ISDIR (child_st.st_mode) && depth < TREE_DEPTH)
        protected_tree_doors (scan, child, &child_st, depth + 1);
      else
        add_door (scan, child, "", DOOR_PROTECTED, &child_st);
    }
}

/* A repository of its own in a folder of the workspace (git init sub):
 * git on the host acts on it in that folder as on the workspace's. */
static void
nested_repo_doors (Scan              *scan,
                   const char        *rel,
                   const struct stat *st)
{
  g_autofree char *abs = abs_of (scan, rel);
  g_autofree char *worktree = g_path_get_dirname (rel);
  g_autofree char *target = NULL;
  g_autofree char *real = NULL;
  Door *door;

  if (S_ISDIR (st->st_mode))
    {
      real = real_path (abs);
      if (real == NULL || g_hash_table_contains (scan->seen, real))
        return;  /* a submodule's, looked at already */
      add_door (scan, rel, worktree, DOOR_DIR, st);
      scan_repo (scan, real, worktree, 1);
      return;
    }
  if (S_ISLNK (st->st_mode))
    {
      add_door (scan, rel, worktree, DOOR_PROTECTED, st);
      return;
    }
  if (!S_ISREG (st->st_mode))
    {
      add_door (scan, rel, worktree, DOOR_PROTECTED, st);
      return;
    }
  /* A .git file: a worktree's or a submodule's is looked at already. */
  {
    g_autoptr(GBytes) bytes = read_bytes (abs, st, 4096);

    target = gitfile_target (abs, bytes);
    real = target ? real_path (target) : NULL;
  }
  if (real != NULL && g_hash_table_contains (scan->seen, real))
    return;
  door = add_door (scan, rel, worktree, DOOR_GITFILE, st);
  if (door_passable (scan, door) && real != NULL && g_file_test (real, G_FILE_TEST_IS_DIR))
    scan_repo (scan, real, worktree, 1);
}

static void
protected_found_cb (const char          *rel,
                    WardenProtectedKind  kind,
                    const struct stat   *st,
                    gpointer             data)
{
  Scan *scan = data;
  WardenProtectedPath *found = g_new0 (WardenProtectedPath, 1);

  found->path = g_strdup (rel);
  found->kind = kind;
  found->st = *st;
  g_ptr_array_add (scan->snap->found, found);
  if (kind == WARDEN_PROTECTED_REPO)
    {
      nested_repo_doors (scan, rel, st);
      return;
    }
  /* git submodule add writes it: a path and a url are no door. */
  if (kind == WARDEN_PROTECTED_FILE && S_ISREG (st->st_mode))
    {
      g_autofree char *name = g_path_get_basename (rel);

      if (g_ascii_strcasecmp (name, ".gitmodules") == 0)
        {
          add_door (scan, rel, "", DOOR_GITMODULES, st);
          return;
        }
    }
  protected_tree_doors (scan, rel, st, 0);
  /* The user's link to a file or folder elsewhere in the workspace: a
   * command can write that one. */
  if (S_ISLNK (st->st_mode))
    {
      g_autofree char *abs = abs_of (scan, rel);
      g_autofree char *target = real_path (abs);
      g_autofree char *target_rel = target ? rel_of (scan, target) : NULL;
      struct stat target_st;

      if (target_rel != NULL && *target_rel != '\0' && lstat (target, &target_st) == 0 &&
          !g_hash_table_contains (scan->snap->doors, target_rel))
        protected_tree_doors (scan, target_rel, &target_st, 0);
    }
}

/* ------------------------------------------------------------------------ */
/* Moving what the command opened */

/* Opens @rel below @dirfd, every folder on the way without following a
 * link; makes the missing ones with @create. */
static int
open_dir_nofollow (int         dirfd,
                   const char *rel,
                   gboolean    create)
{
  g_auto(GStrv) parts = g_strsplit (rel, "/", -1);
  int fd = dup (dirfd);

  for (guint i = 0; fd >= 0 && parts[i]; i++)
    {
      int next;

      if (*parts[i] == '\0')
        continue;
      if (create && mkdirat (fd, parts[i], 0700) != 0 && errno != EEXIST)
        {
          close (fd);
          return -1;
        }
      next = openat (fd, parts[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      close (fd);
      fd = next;
    }
  return fd;
}

typedef struct
{
  int   root_fd;
  int   stamp_fd;     /* -1 until the first move */
  char *stamp_rel;    /* the quarantine of this command, relative to the workspace */
  char *stamp;
} Quarantine;

static gboolean
quarantine_open (Quarantine *q,
                 const char *root)
{
  struct stat st;
  g_autofree char *dotgit = g_build_filename (root, ".git", NULL);
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *other = NULL;
  const char *base;
  int base_fd;

  if (q->stamp_fd >= 0)
    return TRUE;
  /* Inside .git nothing is tracked, and git reads no folder it does not know. */
  base = lstat (dotgit, &st) == 0 && S_ISDIR (st.st_mode) ? ".git/warden-quarantine"
                                                           : ".warden-quarantine";
  base_fd = open_dir_nofollow (q->root_fd, base, TRUE);
  if (base_fd < 0)
    {
      /* Something the command put in its place: another name, not guessed. */
      other = g_strdup_printf ("%s-%08x", base, g_random_int ());
      base_fd = open_dir_nofollow (q->root_fd, other, TRUE);
      if (base_fd < 0)
        return FALSE;
      base = other;
    }
  q->stamp = g_date_time_format (now, "%Y%m%dT%H%M%SZ");
  for (guint i = 1; i < 100; i++)
    {
      g_autofree char *name = i == 1 ? g_strdup (q->stamp)
                                     : g_strdup_printf ("%s-%08x", q->stamp, g_random_int ());

      if (mkdirat (base_fd, name, 0700) == 0)
        {
          q->stamp_fd = openat (base_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          q->stamp_rel = g_build_filename (base, name, NULL);
          break;
        }
      if (errno != EEXIST)
        break;
    }
  close (base_fd);
  return q->stamp_fd >= 0;
}

/* Moves @rel into the quarantine; returns where it went, relative to the
 * workspace, or NULL (errno set). */
/* @rel with "~" after each protected name in it: git, direnv or mise on the
 * host must not take a quarantine's sub/.git or .envrc for a live one when
 * the user looks into it. */
static char *
defused (const char *rel)
{
  g_auto(GStrv) parts = g_strsplit (rel, "/", -1);

  for (guint i = 0; parts[i]; i++)
    if (warden_protected_name_kind (parts[i]) != WARDEN_PROTECTED_NONE)
      {
        char *longer = g_strconcat (parts[i], "~", NULL);

        g_free (parts[i]);
        parts[i] = longer;
      }
  return g_strjoinv ("/", parts);
}

static char *
quarantine_move (Quarantine *q,
                 const char *root,
                 const char *rel)
{
  g_autofree char *inside = defused (g_str_has_prefix (rel, ".git/") ? rel + 5 : rel);
  g_autofree char *src_dir = g_path_get_dirname (rel);
  g_autofree char *name = g_path_get_basename (rel);
  g_autofree char *dst_dir = g_path_get_dirname (inside);
  g_autofree char *dst_name = g_path_get_basename (inside);
  int src_fd, dst_fd, saved;
  char *where = NULL;

  if (!quarantine_open (q, root))
    return NULL;
  src_fd = open_dir_nofollow (q->root_fd, strcmp (src_dir, ".") == 0 ? "" : src_dir, FALSE);
  if (src_fd < 0)
    return NULL;
  dst_fd = open_dir_nofollow (q->stamp_fd, strcmp (dst_dir, ".") == 0 ? "" : dst_dir, TRUE);
  if (dst_fd >= 0 && renameat (src_fd, name, dst_fd, dst_name) == 0)
    where = g_build_filename (q->stamp_rel, inside, NULL);
  else if (dst_fd < 0 || errno == EXDEV)
    {
      /* Another file system: renamed where it is, git does not read it there. */
      g_autofree char *aside = g_strdup_printf ("%s.warden-quarantine-%s", name, q->stamp);

      if (renameat (src_fd, name, src_fd, aside) == 0)
        where = strcmp (src_dir, ".") == 0 ? g_strdup (aside)
                                           : g_build_filename (src_dir, aside, NULL);
    }
  saved = errno;
  if (dst_fd >= 0)
    close (dst_fd);
  close (src_fd);
  errno = saved;
  return where;
}

/* Puts back the version of @old from before the command. */
static gboolean
restore (Quarantine *q,
         Door       *old)
{
  g_autofree char *dir = g_path_get_dirname (old->path);
  g_autofree char *name = g_path_get_basename (old->path);
  gboolean ok = FALSE;
  int dir_fd;

  if (old->bytes == NULL || !(S_ISREG (old->st.st_mode) || S_ISLNK (old->st.st_mode)))
    return FALSE;
  dir_fd = open_dir_nofollow (q->root_fd, strcmp (dir, ".") == 0 ? "" : dir, FALSE);
  if (dir_fd < 0)
    return FALSE;
  if (S_ISLNK (old->st.st_mode))
    {
      g_autofree char *target = g_strndup (g_bytes_get_data (old->bytes, NULL),
                                           g_bytes_get_size (old->bytes));

      ok = symlinkat (target, dir_fd, name) == 0;
    }
  else
    {
      int fd = openat (dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                       old->st.st_mode & 07777);
      gsize len = 0;
      const char *data = g_bytes_get_data (old->bytes, &len);

      if (fd >= 0)
        {
          ok = TRUE;
          while (len > 0 && ok)
            {
              gssize n = write (fd, data, len);

              if (n <= 0)
                ok = FALSE;
              else
                {
                  data += n;
                  len -= n;
                }
            }
          ok = fchmod (fd, old->st.st_mode & 07777) == 0 && ok;
          close (fd);
        }
    }
  close (dir_fd);
  return ok;
}

static const char *
verdict_reason (Door *door)
{
  switch (door->verdict)
    {
    case BAD_LINK:
      return _("it is a symbolic link where git on your machine looks for configuration or hooks");
    case BAD_SPECIAL:
      return _("git on your machine would have opened it, and it is not a regular file");
    case BAD_SETTING:
      return NULL;  /* names the setting: see describe() */
    case BAD_UNREADABLE_CONFIG:
      return _("git on your machine would have read it as configuration, and Warden could not "
               "tell what it would run");
    case BAD_POINTER:
      return _("git on your machine would have read another configuration through it");
    case BAD_HOOK:
      return _("git on your machine would have run it as a hook");
    case BAD_INFO:
      return _("git on your machine would have read it");
    case BAD_INDEX:
      return _("Warden could not tell which repositories it makes git on your machine enter");
    case BAD_TODO:
      return _("git on your machine would run the programs its exec lines name when you "
               "continue");
    case BAD_PROTECTED:
      return _("it is a protected path: an editor, direnv, mise, hg or a shell on your machine "
               "would read it and may run what it says");
    case FINE:
    default:
      return "";
    }
}

static char *
describe (Door               *door,
          WardenGitDoorsWhen  when,
          gboolean            created,
          const char         *where,
          int                 move_errno,
          gboolean            restored)
{
  g_autofree char *reason = NULL;

  if (door->verdict == BAD_SETTING)
    /* Translators: %s is a git setting, such as core.fsmonitor */
    reason = g_strdup_printf (_("git on your machine would have run a program that its "
                                "setting %s names"), door->detail);
  else
    reason = g_strdup (verdict_reason (door));

  if (when == WARDEN_GIT_DOORS_BETWEEN_COMMANDS)
    {
      /* Translators: a file in the workspace, why it could not be moved, and
       * what git would have done with it */
      if (where == NULL)
        return g_strdup_printf (_("Warden could not move %s, which changed while no command "
                                  "ran (%s): %s. Remove it before you use git in this folder."),
                                door->path, g_strerror (move_errno), reason);
      /* Translators: a file in the workspace, where it went, and what git
       * would have done with it */
      if (created)
        return g_strdup_printf (_("Warden moved %s, which appeared while no command ran, to %s: "
                                  "%s."), door->path, where, reason);
      if (restored)
        return g_strdup_printf (_("Warden moved %s, which changed while no command ran, to %s "
                                  "and put back the version the last command left: %s."),
                                door->path, where, reason);
      return g_strdup_printf (_("Warden moved %s, which changed while no command ran, to %s: "
                                "%s."), door->path, where, reason);
    }

  /* Translators: the first %s is a file in the workspace, the second why it
   * could not be moved, the third what git would have done with it */
  if (where == NULL)
    return g_strdup_printf (_("Warden could not move %s, which the command created or changed "
                              "(%s): %s. Remove it before you use git in this folder."),
                            door->path, g_strerror (move_errno), reason);
  /* Translators: a file in the workspace, where it went, and what git would
   * have done with it (one of the reasons above) */
  if (created)
    return g_strdup_printf (_("Warden moved %s, which the command created, to %s: %s."),
                            door->path, where, reason);
  if (restored)
    return g_strdup_printf (_("Warden moved %s, which the command changed, to %s and put back "
                              "the version from before: %s."), door->path, where, reason);
  return g_strdup_printf (_("Warden moved %s, which the command changed, to %s: %s."),
                          door->path, where, reason);
}

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  const Door *da = *(Door **) a;
  const Door *db = *(Door **) b;

  return strcmp (da->path, db->path);
}

/* ------------------------------------------------------------------------ */
/* The API */

WardenGitDoors *
warden_git_doors_new (const char *workspace)
{
  WardenGitDoors *doors = g_new0 (WardenGitDoors, 1);
  g_autofree char *real = real_path (workspace);

  doors->root = real ? g_steal_pointer (&real) : g_canonicalize_filename (workspace, "/");
  g_mutex_init (&doors->lock);
  doors->kept = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, kept_bytes_free);
  doors->indexes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, index_memo_free);
  doors->folders = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, folder_memo_free);
  return doors;
}

void
warden_git_doors_free (WardenGitDoors *doors)
{
  if (doors == NULL)
    return;
  g_free (doors->root);
  g_mutex_clear (&doors->lock);
  g_hash_table_unref (doors->kept);
  g_hash_table_unref (doors->indexes);
  g_hash_table_unref (doors->folders);
  g_free (doors);
}

void
warden_protected_paths_walk (const char              *workspace,
                             WardenProtectedPathFunc  func,
                             gpointer                 user_data)
{
  g_autoptr(GHashTable) memo = NULL;

  g_return_if_fail (workspace != NULL && func != NULL);
  memo = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, folder_memo_free);
  walk_protected (workspace, &memo, func, user_data);
}

static void
protected_path_free (gpointer data)
{
  WardenProtectedPath *path = data;

  g_free (path->path);
  g_free (path);
}

GPtrArray *
warden_git_snapshot_list_protected (WardenGitSnapshot *snapshot)
{
  GPtrArray *list = g_ptr_array_new_with_free_func (protected_path_free);

  g_return_val_if_fail (snapshot != NULL, list);
  for (guint i = 0; i < snapshot->found->len; i++)
    {
      const WardenProtectedPath *found = g_ptr_array_index (snapshot->found, i);
      WardenProtectedPath *copy = g_new0 (WardenProtectedPath, 1);

      copy->path = g_strdup (found->path);
      copy->kind = found->kind;
      copy->st = found->st;
      g_ptr_array_add (list, copy);
    }
  return list;
}

void
warden_git_snapshot_free (WardenGitSnapshot *snapshot)
{
  if (snapshot == NULL)
    return;
  g_hash_table_unref (snapshot->doors);
  g_hash_table_unref (snapshot->repos);
  g_ptr_array_unref (snapshot->found);
  g_free (snapshot);
}

static WardenGitSnapshot *
snapshot_new (void)
{
  WardenGitSnapshot *snap = g_new0 (WardenGitSnapshot, 1);

  snap->doors = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, door_free);
  snap->repos = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  snap->found = g_ptr_array_new_with_free_func (protected_path_free);
  snap->start = g_get_real_time ();
  return snap;
}

static void
scan_run (WardenGitDoors    *doors,
          WardenGitSnapshot *snap,
          WardenGitSnapshot *before)
{
  Scan scan = { doors, snap, before, NULL, 0 };

  scan.seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  scan_workspace (&scan);
  /* After git's own: a submodule's .git is judged as git enters it. */
  walk_protected (doors->root, &doors->folders, protected_found_cb, &scan);
  g_hash_table_unref (scan.seen);
}

/* What was read now need not be read again while it stays the same. */
static void
keep_bytes (WardenGitDoors    *doors,
            WardenGitSnapshot *snap)
{
  GHashTableIter iter;
  Door *door;

  g_hash_table_remove_all (doors->kept);
  g_hash_table_iter_init (&iter, snap->doors);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &door))
    if (door->bytes != NULL)
      {
        KeptBytes *kept = g_new0 (KeptBytes, 1);

        kept->st = door->st;
        kept->bytes = g_bytes_ref (door->bytes);
        g_hash_table_replace (doors->kept, g_strdup (door->path), kept);
      }
}

WardenGitSnapshot *
warden_git_doors_snapshot (WardenGitDoors *doors)
{
  WardenGitSnapshot *snap = snapshot_new ();

  g_mutex_lock (&doors->lock);
  scan_run (doors, snap, NULL);
  keep_bytes (doors, snap);
  g_mutex_unlock (&doors->lock);
  return snap;
}

/* Moves what @after's scan found open since @before; one line each on
 * @note. Returns how many doors were moved (or could not be). */
static guint
move_open_doors (WardenGitDoors     *doors,
                 WardenGitSnapshot  *before,
                 WardenGitSnapshot  *after,
                 WardenGitDoorsWhen  when,
                 GString            *note,
                 char              **stamp_rel)
{
  g_autoptr(GPtrArray) bad = g_ptr_array_new ();
  g_autoptr(GPtrArray) gone = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) put_back = g_ptr_array_new ();
  Quarantine q = { -1, -1, NULL, NULL };
  Scan scan = { doors, after, before, NULL, 0 };
  GHashTableIter iter;
  Door *door;

  g_hash_table_iter_init (&iter, after->doors);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &door))
    if (!door_passable (&scan, door))
      g_ptr_array_add (bad, door);
  if (bad->len == 0)
    return 0;

  g_ptr_array_sort (bad, compare_paths);
  q.root_fd = g_open (doors->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  for (guint i = 0; i < bad->len; i++)
    {
      Door *d = g_ptr_array_index (bad, i);
      Door *old = g_hash_table_lookup (before->doors, d->path);
      g_autofree char *where = NULL;
      g_autofree char *line = NULL;
      gboolean restored = FALSE;
      int move_errno = 0;

      /* Inside something moved already: gone with it. */
      if (i > 0)
        {
          gboolean inside = FALSE;

          for (guint k = 0; k < i && !inside; k++)
            inside = path_within (d->path, ((Door *) g_ptr_array_index (bad, k))->path) &&
                     strcmp (d->path, ((Door *) g_ptr_array_index (bad, k))->path) != 0;
          if (inside)
            continue;
        }
      errno = 0;
      where = q.root_fd >= 0 ? quarantine_move (&q, doors->root, d->path) : NULL;
      move_errno = errno;
      if (where != NULL && old != NULL)
        restored = restore (&q, old);
      /* For the next check: a door put back is @before's; one gone is
       * gone; one that could not be moved is judged again. */
      g_ptr_array_add (gone, g_strdup (d->path));
      if (restored)
        g_ptr_array_add (put_back, old);
      line = describe (d, when, old == NULL, where, move_errno, restored);
      g_debug ("%s", line);
      if (note->len > 0)
        g_string_append_c (note, '\n');
      g_string_append (note, line);
    }
  if (q.stamp_rel != NULL && *stamp_rel == NULL)
    *stamp_rel = g_strdup (q.stamp_rel);
  g_hash_table_iter_init (&iter, after->doors);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &door))
    for (guint i = 0; i < gone->len; i++)
      if (path_within (door->path, g_ptr_array_index (gone, i)))
        {
          g_hash_table_iter_remove (&iter);
          break;
        }
  for (guint i = 0; i < put_back->len; i++)
    {
      Door *copy = door_copy (g_ptr_array_index (put_back, i));

      g_hash_table_replace (after->doors, copy->path, copy);
    }
  if (q.stamp_fd >= 0)
    close (q.stamp_fd);
  if (q.root_fd >= 0)
    close (q.root_fd);
  g_free (q.stamp_rel);
  g_free (q.stamp);
  return bad->len;
}

/* @snap, scanned against @before, as the next check's starting point:
 * with the bytes that check would put back. */
static void
snapshot_settle (WardenGitDoors    *doors,
                 WardenGitSnapshot *snap,
                 WardenGitSnapshot *before)
{
  GHashTableIter iter;
  Door *door;

  g_hash_table_iter_init (&iter, snap->doors);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &door))
    {
      door->judged = FALSE;
      door->verdict = FINE;
      g_clear_pointer (&door->detail, g_free);
      if (door->bytes != NULL || door->kind == DOOR_INDEX ||
          !(S_ISLNK (door->st.st_mode) || (S_ISREG (door->st.st_mode) && door->kind != DOOR_DIR)))
        continue;
      door->bytes = door_keep_bytes (doors, before, door);
    }
  keep_bytes (doors, snap);
}

WardenGitSnapshot *
warden_git_doors_check (WardenGitDoors     *doors,
                        WardenGitSnapshot  *before,
                        WardenGitDoorsWhen  when,
                        char              **note)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *stamp_rel = NULL;
  WardenGitSnapshot *after;

  g_return_val_if_fail (before != NULL, NULL);

  g_mutex_lock (&doors->lock);
  /* The scan, less what was moved, with what was put back, is where the
   * next check starts: it holds only what was judged, so a change made
   * after the scan is a change to the next check. */
  after = snapshot_new ();
  scan_run (doors, after, before);
  move_open_doors (doors, before, after, when, text, &stamp_rel);
  snapshot_settle (doors, after, before);
  g_mutex_unlock (&doors->lock);

  if (text->len > 0 && when == WARDEN_GIT_DOORS_BETWEEN_COMMANDS)
    {
      g_string_append_c (text, '\n');
      /* Translators: %s is a folder, such as .git/warden-quarantine/20261206T021500Z */
      g_string_append_printf (text, _("A program an earlier command left running may have made "
                                      "these changes. If you made them yourself, copy them back "
                                      "from %s once Warden no longer runs commands in this "
                                      "folder: Warden takes git’s files as they are when its "
                                      "first command in a folder starts."),
                              stamp_rel != NULL ? stamp_rel : ".git/warden-quarantine");
    }
  if (note != NULL)
    *note = text->len > 0 ? g_string_free (g_steal_pointer (&text), FALSE) : NULL;
  return after;
}

char *
warden_git_doors_close (WardenGitDoors    *doors,
                        WardenGitSnapshot *before)
{
  g_autoptr(WardenGitSnapshot) after = NULL;
  char *note = NULL;

  g_return_val_if_fail (before != NULL, NULL);
  after = warden_git_doors_check (doors, before, WARDEN_GIT_DOORS_AFTER_COMMAND, &note);
  return note;
}
