/* warden-markdown.c: the model's Markdown as Pango markup for a label
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Not a CommonMark implementation: the subset models write, rendered so
 * that every output is balanced markup. Each construct is only emitted
 * once both of its ends are found, and what is between them is rendered by
 * the same function, so tags always nest; everything else is escaped text.
 * That is what keeps a half-streamed "**bold" or "```" from breaking the
 * label.
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-ui"

#include <glib/gi18n.h>

#include "warden-markdown.h"

#include "common/warden-printable.h"

#include <adwaita.h>
#include <string.h>

#define RULE "──────────"

static gboolean
is_word (char c)
{
  /* Bytes of multi-byte characters count as letters: "é_x" is one word. */
  return g_ascii_isalnum (c) || ((guchar) c & 0x80) != 0;
}

static gboolean
is_space (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\0';
}

static void
append_escaped (GString    *out,
                const char *s,
                gsize       len)
{
  g_autofree char *escaped = NULL;

  if (len == 0)
    return;
  escaped = g_markup_escape_text (s, len);
  g_string_append (out, escaped);
}

static gsize
run_length (const char *s,
            gsize       len,
            gsize       i)
{
  gsize j = i;

  while (j < len && s[j] == s[i])
    j++;
  return j - i;
}

/* Only these become clickable: a model's link to file://, mailto: or a
 * custom scheme should not open anything on the user's machine. */
static gboolean
is_safe_url (const char *s,
             gsize       len)
{
  static const char *schemes[] = { "https://", "http://" };

  for (guint k = 0; k < G_N_ELEMENTS (schemes); k++)
    {
      gsize n = strlen (schemes[k]);

      if (len > n && g_ascii_strncasecmp (s, schemes[k], n) == 0)
        return TRUE;
    }
  return FALSE;
}

static GUri *
parse_link (const char *url)
{
  /* The host decoded, as a browser would go to it; the rest as written. */
  return g_uri_parse (url, G_URI_FLAGS_PARSE_RELAXED | G_URI_FLAGS_ENCODED_PATH |
                           G_URI_FLAGS_ENCODED_QUERY | G_URI_FLAGS_ENCODED_FRAGMENT, NULL);
}

/* The host as it cannot be mistaken for another: an internationalized name
 * in its ASCII form, so "pаypal.com" with a Cyrillic "а" shows as
 * "xn--pypal-4ve.com". */
static char *
host_for_display (const char *host)
{
  char *ascii = g_hostname_to_ascii (host);

  return ascii != NULL ? ascii : warden_printable (host, -1, WARDEN_PRINTABLE_ONE_LINE);
}

/* Whether the words shown for a link already say where it goes: the URL
 * itself (with or without its scheme) or its host, and nothing in the URL
 * that reads otherwise than it goes (user info before an "@", hidden or
 * non-ASCII characters). */
static gboolean
label_shows_target (const char *label_markup,
                    const char *url,
                    GUri       *uri,
                    const char *shown_host)
{
  g_autofree char *plain = NULL;
  g_autofree char *target = g_strdup (url);
  const char *host = g_uri_get_host (uri);
  const char *without_scheme = strstr (target, "://") + 3;
  gsize len;

  if (g_uri_get_userinfo (uri) != NULL || warden_printable_hides (url, -1, 0)
      || g_strcmp0 (host, shown_host) != 0)
    return FALSE;
  if (!pango_parse_markup (label_markup, -1, 0, NULL, &plain, NULL, NULL))
    return FALSE;
  /* "https://x.org" for "https://x.org/" says the same. */
  g_strstrip (plain);
  len = strlen (plain);
  if (len > 0 && plain[len - 1] == '/')
    plain[len - 1] = '\0';
  len = strlen (target);
  if (len > 0 && target[len - 1] == '/')
    target[len - 1] = '\0';
  return g_str_equal (plain, target) || g_str_equal (plain, without_scheme)
         || g_ascii_strcasecmp (plain, host) == 0;
}

/* <a href> around @label_markup, and the real host after it in
 * parentheses unless the label already says where the link goes:
 * "[docs.gtk.org](https://evil.example/x)" shows "docs.gtk.org
 * (evil.example)". A URL without a host is no link, only its label. */
static void
append_link (GString    *out,
             const char *url,
             gsize       url_len,
             const char *label_markup)
{
  g_autofree char *target = g_strndup (url, url_len);
  g_autoptr(GUri) uri = parse_link (target);
  g_autofree char *shown_host = NULL;

  if (uri == NULL || g_uri_get_host (uri) == NULL || *g_uri_get_host (uri) == '\0')
    {
      g_string_append (out, label_markup);
      return;
    }
  g_string_append (out, "<a href=\"");
  append_escaped (out, url, url_len);
  g_string_append (out, "\">");
  g_string_append (out, label_markup);
  g_string_append (out, "</a>");
  shown_host = host_for_display (g_uri_get_host (uri));
  if (!label_shows_target (label_markup, target, uri, shown_host))
    {
      g_string_append (out, " (");
      append_escaped (out, shown_host, strlen (shown_host));
      g_string_append (out, ")");
    }
}

/* A URL written as it is (bare or in <>) is its own label. */
static void
append_url_link (GString    *out,
                 const char *url,
                 gsize       url_len)
{
  g_autoptr(GString) label = g_string_new (NULL);

  append_escaped (label, url, url_len);
  append_link (out, url, url_len, label->str);
}

static void render_inline (GString    *out,
                           const char *s,
                           gsize       len,
                           gboolean    in_link);

/* The position of the closing run of exactly @n backticks, or -1. */
static gssize
find_code_end (const char *s,
               gsize       len,
               gsize       from,
               gsize       n)
{
  gsize k = from;

  while (k < len)
    {
      if (s[k] == '`')
        {
          gsize r = run_length (s, len, k);

          if (r == n)
            return k;
          k += r;
        }
      else
        k++;
    }
  return -1;
}

/* Where the closer of an emphasis opened with @c (@width 1 or 2) starts,
 * searching from @from (the first byte of the content), or -1. A closer
 * is the end of a run of @c that follows a non-space; underscores (and a
 * single star) must also end a word, so snake_case stays as it is. */
static gssize
find_emphasis_end (const char *s,
                   gsize       len,
                   gsize       from,
                   char        c,
                   gsize       width)
{
  gsize k = from;

  while (k < len)
    {
      if (s[k] == '\\' && k + 1 < len)
        {
          k += 2;
          continue;
        }
      if (s[k] == c)
        {
          gsize r = run_length (s, len, k);
          gsize closer;
          char after;

          /* A double run inside *…* belongs to a bold span, and a single
           * one inside **…** to an italic one. */
          if (r < width || (width == 1 && r == 2))
            {
              k += r;
              continue;
            }
          closer = k + r - width;
          after = k + r < len ? s[k + r] : '\0';
          if (closer > from && !is_space (s[closer - 1])
              && !((width == 1 || c == '_') && is_word (after)))
            return closer;
          k += r;
        }
      else
        k++;
    }
  return -1;
}

/* A link's ']' for the '[' at @open, or -1. */
static gssize
find_bracket_end (const char *s,
                  gsize       len,
                  gsize       open)
{
  int depth = 0;

  for (gsize k = open; k < len; k++)
    {
      if (s[k] == '\\' && k + 1 < len)
        k++;
      else if (s[k] == '[')
        depth++;
      else if (s[k] == ']' && --depth == 0)
        return k;
    }
  return -1;
}

static gssize
find_paren_end (const char *s,
                gsize       len,
                gsize       open)
{
  int depth = 0;

  for (gsize k = open; k < len; k++)
    {
      if (s[k] == '(')
        depth++;
      else if (s[k] == ')' && --depth == 0)
        return k;
    }
  return -1;
}

/* The length of a bare URL at @i, with trailing punctuation (and an
 * unbalanced ')') left out of it, or 0. */
static gsize
bare_url_length (const char *s,
                 gsize       len,
                 gsize       i)
{
  gsize end = i;
  int parens = 0;

  if (!is_safe_url (s + i, len - i) || g_ascii_strncasecmp (s + i, "mailto:", 7) == 0)
    return 0;
  while (end < len && !is_space (s[end]) && strchr ("<>\"`", s[end]) == NULL)
    end++;
  for (;;)
    {
      char last = s[end - 1];

      parens = 0;
      for (gsize k = i; k < end; k++)
        parens += s[k] == '(' ? 1 : s[k] == ')' ? -1 : 0;
      if (strchr (".,:;!?*_'", last) != NULL || (last == ')' && parens < 0))
        end--;
      else
        break;
    }
  if (!is_safe_url (s + i, end - i))
    return 0;
  return end - i;
}

static void
render_inline (GString    *out,
               const char *s,
               gsize       len,
               gboolean    in_link)
{
  /* Once a closer was not found, none will be found further on either:
   * remembering that keeps a line full of stray '*' linear. */
  gboolean no_closer[2][2] = { { FALSE, FALSE }, { FALSE, FALSE } };
  /* The same for code spans (by the opening run's length, up to 8) and for
   * links: a '[' after the last ']' has no closer, whatever the nesting. */
  guint no_code_closer = 0;
  gssize last_bracket = -2;
  gsize lit = 0;
  gsize i = 0;

#define FLUSH() G_STMT_START { append_escaped (out, s + lit, i - lit); } G_STMT_END

  while (i < len)
    {
      char c = s[i];

      if (c == '\\' && i + 1 < len && g_ascii_ispunct (s[i + 1]))
        {
          FLUSH ();
          append_escaped (out, s + i + 1, 1);
          i += 2;
          lit = i;
          continue;
        }

      if (c == '`')
        {
          gsize r = run_length (s, len, i);
          gboolean known = r <= 8 && (no_code_closer & (1u << (r - 1))) != 0;
          gssize end = known ? -1 : find_code_end (s, len, i + r, r);

          if (end < 0 && r <= 8)
            no_code_closer |= 1u << (r - 1);

          if (end >= 0)
            {
              gsize a = i + r;
              gsize b = end;

              /* "`` `x` ``": one space on each side is padding. */
              if (b - a >= 2 && s[a] == ' ' && s[b - 1] == ' ')
                {
                  a++;
                  b--;
                }
              FLUSH ();
              g_string_append (out, WARDEN_MARKDOWN_CODE_OPEN);
              append_escaped (out, s + a, b - a);
              g_string_append (out, WARDEN_MARKDOWN_CODE_CLOSE);
              i = end + r;
              lit = i;
            }
          else
            i += r;
          continue;
        }

      if (c == '*' || c == '_')
        {
          gsize r = run_length (s, len, i);
          char prev = i > 0 ? s[i - 1] : ' ';
          char next = i + r < len ? s[i + r] : '\0';
          int which = c == '*' ? 0 : 1;
          gboolean can_open = !is_space (next) && !(c == '_' && is_word (prev));

          if (can_open && r >= 2 && !no_closer[which][1])
            {
              gssize end = find_emphasis_end (s, len, i + 2, c, 2);

              if (end >= 0)
                {
                  FLUSH ();
                  g_string_append (out, "<b>");
                  render_inline (out, s + i + 2, end - (i + 2), in_link);
                  g_string_append (out, "</b>");
                  i = end + 2;
                  lit = i;
                  continue;
                }
              no_closer[which][1] = TRUE;
            }
          if (can_open && !is_word (prev) && !no_closer[which][0])
            {
              gsize from = i + r;
              gssize end = find_emphasis_end (s, len, from, c, 1);

              if (end >= 0)
                {
                  /* "**x*": the extra stars are text. */
                  i += r - 1;
                  FLUSH ();
                  g_string_append (out, "<i>");
                  render_inline (out, s + from, end - from, in_link);
                  g_string_append (out, "</i>");
                  i = end + 1;
                  lit = i;
                  continue;
                }
              no_closer[which][0] = TRUE;
            }
          i += r;
          continue;
        }

      if (!in_link && (c == '[' || (c == '!' && i + 1 < len && s[i + 1] == '[')))
        {
          gsize open = c == '!' ? i + 1 : i;
          gssize close = -1;
          gssize paren_end = -1;

          if (last_bracket == -2)
            {
              last_bracket = -1;
              for (gsize k = len; k > 0; k--)
                if (s[k - 1] == ']')
                  {
                    last_bracket = k - 1;
                    break;
                  }
            }
          if ((gssize) open < last_bracket)
            close = find_bracket_end (s, len, open);

          if (close >= 0 && (gsize) close + 1 < len && s[close + 1] == '(')
            paren_end = find_paren_end (s, len, close + 1);
          if (paren_end >= 0)
            {
              const char *url = s + close + 2;
              gsize url_len = 0;

              /* [text](url "title"): the title is dropped. */
              while (url + url_len < s + paren_end && !is_space (url[url_len]))
                url_len++;
              if (url_len >= 2 && url[0] == '<' && url[url_len - 1] == '>')
                {
                  url++;
                  url_len -= 2;
                }
              FLUSH ();
              if (is_safe_url (url, url_len))
                {
                  g_autoptr(GString) label = g_string_new (NULL);

                  render_inline (label, s + open + 1, close - (open + 1), TRUE);
                  append_link (out, url, url_len, label->str);
                }
              else
                render_inline (out, s + open + 1, close - (open + 1), in_link);
              i = paren_end + 1;
              lit = i;
              continue;
            }
          i++;
          continue;
        }

      if (!in_link && c == '<')
        {
          gsize k = i + 1;

          while (k < len && s[k] != '>' && !is_space (s[k]) && s[k] != '<')
            k++;
          if (k < len && s[k] == '>' && is_safe_url (s + i + 1, k - i - 1))
            {
              FLUSH ();
              append_url_link (out, s + i + 1, k - i - 1);
              i = k + 1;
              lit = i;
              continue;
            }
          i++;
          continue;
        }

      /* Not the target of a "[text](" still streaming in. */
      if (!in_link && (c == 'h' || c == 'H') && (i == 0 || !is_word (s[i - 1]))
          && !(i >= 2 && s[i - 1] == '(' && s[i - 2] == ']'))
        {
          gsize n = bare_url_length (s, len, i);

          if (n > 0)
            {
              FLUSH ();
              append_url_link (out, s + i, n);
              i += n;
              lit = i;
              continue;
            }
        }

      i++;
    }

  FLUSH ();
#undef FLUSH
}

static const char *
skip_spaces (const char *p)
{
  while (*p == ' ' || *p == '\t')
    p++;
  return p;
}

/* "```" or "~~~" (three or more), after at most three spaces: the fence's
 * character and length, or 0. */
static gsize
fence_length (const char *line,
              char       *fence_char)
{
  const char *p = line;
  gsize n;

  while (*p == ' ' && p - line < 3)
    p++;
  if (*p != '`' && *p != '~')
    return 0;
  n = strspn (p, *p == '`' ? "`" : "~");
  if (n < 3)
    return 0;
  /* An info string with a backtick would be inline code, not a fence. */
  if (*p == '`' && strchr (p + n, '`') != NULL)
    return 0;
  *fence_char = *p;
  return n;
}

static gboolean
is_rule (const char *line)
{
  const char *p = skip_spaces (line);
  char c = *p;
  int count = 0;

  if (c != '-' && c != '*' && c != '_')
    return FALSE;
  for (; *p != '\0'; p++)
    {
      if (*p == c)
        count++;
      else if (*p != ' ' && *p != '\t')
        return FALSE;
    }
  return count >= 3;
}

static void
render_line (GString    *out,
             const char *line)
{
  const char *p = skip_spaces (line);
  gsize indent = p - line;
  gsize hashes = strspn (p, "#");

  if (hashes >= 1 && hashes <= 6 && (p[hashes] == ' ' || p[hashes] == '\0'))
    {
      const char *text = skip_spaces (p + hashes);
      gsize len = strlen (text);

      /* "## Title ##": the closing hashes are decoration. */
      while (len > 0 && text[len - 1] == '#')
        len--;
      while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == '\t'))
        len--;
      if (hashes == 1)
        g_string_append (out, "<span size=\"x-large\" weight=\"bold\">");
      else if (hashes == 2)
        g_string_append (out, "<span size=\"large\" weight=\"bold\">");
      else
        g_string_append (out, "<span weight=\"bold\">");
      render_inline (out, text, len, FALSE);
      g_string_append (out, "</span>");
      return;
    }

  if (is_rule (line))
    {
      g_string_append (out, RULE);
      return;
    }

  if (*p == '>')
    {
      append_escaped (out, line, indent);
      while (*p == '>')
        {
          g_string_append (out, "▎ ");
          p++;
          if (*p == ' ')
            p++;
          p = *skip_spaces (p) == '>' ? skip_spaces (p) : p;
        }
      render_inline (out, p, strlen (p), FALSE);
      return;
    }

  if ((*p == '-' || *p == '*' || *p == '+') && (p[1] == ' ' || p[1] == '\t' || p[1] == '\0'))
    {
      const char *text = skip_spaces (p + 1);

      append_escaped (out, line, indent);
      if (g_str_has_prefix (text, "[ ] "))
        {
          g_string_append (out, "☐ ");
          text += 4;
        }
      else if (g_str_has_prefix (text, "[x] ") || g_str_has_prefix (text, "[X] "))
        {
          g_string_append (out, "☑ ");
          text += 4;
        }
      else
        g_string_append (out, "• ");
      render_inline (out, text, strlen (text), FALSE);
      return;
    }

  /* Tables line up only in a fixed-width font. */
  if (*p == '|')
    {
      g_string_append (out, "<tt>");
      render_inline (out, line, strlen (line), FALSE);
      g_string_append (out, "</tt>");
      return;
    }

  render_inline (out, line, strlen (line), FALSE);
}

static gboolean
is_blank (const char *line)
{
  return *skip_spaces (line) == '\0';
}

/* Valid UTF-8, "\n" line ends, and no control characters but tabs:
 * an escape sequence in the model's text would show as a box. */
static char *
clean_text (const char *markdown)
{
  g_autofree char *valid = g_utf8_make_valid (markdown, -1);
  GString *clean = g_string_sized_new (strlen (valid));

  for (const char *p = valid; *p != '\0'; p++)
    {
      if (*p == '\r')
        {
          if (p[1] != '\n')
            g_string_append_c (clean, '\n');
        }
      else if ((guchar) *p >= 0x20 || *p == '\n' || *p == '\t')
        g_string_append_c (clean, *p);
    }
  return g_string_free (clean, FALSE);
}

/* The lines of a fenced block from @lines[*i] (the opening fence, of
 * @fence @fence_char's) to its closing fence or the end; *@i is left on
 * the closing fence, or on the NULL at the end (*@open set). */
static char *
fenced_code (char  **lines,
             guint  *i,
             gsize   fence,
             char    fence_char,
             gboolean *open)
{
  GString *code = g_string_new (NULL);
  gboolean first = TRUE;

  for ((*i)++; lines[*i] != NULL; (*i)++)
    {
      char c = 0;
      gsize n = fence_length (lines[*i], &c);

      if (n >= fence && c == fence_char && is_blank (lines[*i] + strspn (lines[*i], " ") + n))
        break;
      if (!first)
        g_string_append_c (code, '\n');
      g_string_append (code, lines[*i]);
      first = FALSE;
    }
  *open = lines[*i] == NULL;
  /* While it streams, the line being written is not there yet. */
  if (*open)
    while (code->len > 0 && code->str[code->len - 1] == '\n')
      g_string_truncate (code, code->len - 1);
  return g_string_free (code, FALSE);
}

void
warden_markdown_block_free (WardenMarkdownBlock *block)
{
  if (block == NULL)
    return;
  g_free (block->content);
  g_free (block->info);
  g_free (block);
}

static void
add_text_block (GPtrArray *blocks,
                GString   *text)
{
  WardenMarkdownBlock *block;
  const char *p = text->str;

  while (*p == '\n' || *p == ' ' || *p == '\t')
    p++;
  if (*p != '\0')
    {
      block = g_new0 (WardenMarkdownBlock, 1);
      block->kind = WARDEN_MARKDOWN_BLOCK_TEXT;
      block->content = warden_markdown_to_pango (text->str);
      g_ptr_array_add (blocks, block);
    }
  g_string_truncate (text, 0);
}

GPtrArray *
warden_markdown_split (const char *markdown)
{
  GPtrArray *blocks = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_markdown_block_free);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *clean = NULL;
  g_auto(GStrv) lines = NULL;

  if (markdown == NULL)
    return blocks;
  clean = clean_text (markdown);
  lines = g_strsplit (clean, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char fence_char = 0;
      gsize fence = fence_length (lines[i], &fence_char);
      WardenMarkdownBlock *block;
      g_autofree char *info = NULL;

      if (fence == 0)
        {
          if (text->len > 0)
            g_string_append_c (text, '\n');
          g_string_append (text, lines[i]);
          continue;
        }

      add_text_block (blocks, text);
      info = g_strstrip (g_strdup (skip_spaces (lines[i]) + fence));
      block = g_new0 (WardenMarkdownBlock, 1);
      block->kind = WARDEN_MARKDOWN_BLOCK_CODE;
      block->info = *info != '\0' ? g_steal_pointer (&info) : NULL;
      block->content = fenced_code (lines, &i, fence, fence_char, &block->open);
      g_ptr_array_add (blocks, block);
      if (lines[i] == NULL)
        break;
    }
  add_text_block (blocks, text);
  return blocks;
}

char *
warden_markdown_to_pango (const char *markdown)
{
  g_autofree char *clean = NULL;
  g_auto(GStrv) lines = NULL;
  GString *out;
  gboolean last_blank = TRUE;

  if (markdown == NULL)
    return g_strdup ("");

  clean = clean_text (markdown);
  lines = g_strsplit (clean, "\n", -1);
  out = g_string_sized_new (strlen (clean) + 64);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      char fence_char = 0;
      gsize fence = fence_length (lines[i], &fence_char);

      if (is_blank (lines[i]))
        {
          /* One empty line between blocks is enough in a chat. */
          if (!last_blank && out->len > 0)
            g_string_append_c (out, '\n');
          last_blank = TRUE;
          continue;
        }

      if (out->len > 0)
        g_string_append_c (out, '\n');
      last_blank = FALSE;

      if (fence > 0)
        {
          gboolean open;
          g_autofree char *code = fenced_code (lines, &i, fence, fence_char, &open);

          /* Until the closing fence, or the end while it streams. */
          g_string_append (out, "<tt>");
          append_escaped (out, code, strlen (code));
          g_string_append (out, "</tt>");
          if (lines[i] == NULL)
            break;
          continue;
        }

      render_line (out, lines[i]);
    }

  /* The blank line before a block is only written once the block comes. */
  if (last_blank && out->len > 0 && out->str[out->len - 1] == '\n')
    g_string_truncate (out, out->len - 1);

  return g_string_free (out, FALSE);
}

gboolean
warden_markdown_link_can_open (const char *uri)
{
  g_autoptr(GUri) parsed = NULL;

  if (uri == NULL || !is_safe_url (uri, strlen (uri)))
    return FALSE;
  parsed = parse_link (uri);
  return parsed != NULL && g_uri_get_host (parsed) != NULL && *g_uri_get_host (parsed) != '\0';
}

char *
warden_markdown_dup_link_confirmation (const char *uri)
{
  g_autoptr(GUri) parsed = NULL;
  g_autofree char *host = NULL;
  g_autofree char *shown = NULL;

  g_return_val_if_fail (warden_markdown_link_can_open (uri), NULL);

  parsed = parse_link (uri);
  host = host_for_display (g_uri_get_host (parsed));
  shown = warden_printable (uri, -1, WARDEN_PRINTABLE_ONE_LINE);
  /* TRANSLATORS: the first %s is a web site's host name, the second the
   * whole address of the link, each on a line of its own. */
  return g_strdup_printf (_("The link goes to %s:\n\n%s"), host, shown);
}

static void
link_response_cb (AdwMessageDialog *dialog,
                  const char       *response,
                  gpointer          user_data)
{
  const char *uri = g_object_get_data (G_OBJECT (dialog), "warden-link-uri");
  GtkWindow *parent = gtk_window_get_transient_for (GTK_WINDOW (dialog));

  if (g_str_equal (response, "open"))
    gtk_show_uri (parent, uri, GDK_CURRENT_TIME);
}

gboolean
warden_markdown_activate_link (GtkLabel   *label,
                               const char *uri,
                               gpointer    user_data)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (label));
  g_autofree char *body = NULL;
  GtkWidget *dialog;

  /* A model's text decides what a link says, so opening one is never a
   * single click away, and only the web is ever opened. */
  if (!warden_markdown_link_can_open (uri))
    {
      g_debug ("Not opening a link that is not http(s): %s", uri);
      return TRUE;
    }
  body = warden_markdown_dup_link_confirmation (uri);
  dialog = adw_message_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                   _("Open Link?"), body);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "open", _("_Open Link"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "open",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "warden-link-uri", g_strdup (uri), g_free);
  g_signal_connect (dialog, "response", G_CALLBACK (link_response_cb), NULL);
  gtk_window_present (GTK_WINDOW (dialog));
  return TRUE;
}
