/* warden-cli-style.c: what the terminal shows in colour, a diff, the model's markdown
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Colour only where standard output is a terminal and NO_COLOR is not set
 * (run->colour); a file or a pipe gets the text as it was. Every text here
 * has been escaped before (the model's, a file's): the only sequences that
 * reach the terminal are the ones written below.
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-cli"

#include <string.h>

#include "warden-cli-run-private.h"

#include "common/warden-diff.h"
#include "common/warden-printable.h"

#define SGR_RESET "\033[0m"

const char *
_warden_cli_style (Run        *run,
                   CliStyle    style)
{
  static const char * const codes[] = {
    [CLI_STYLE_RESET] = SGR_RESET,
    [CLI_STYLE_BOLD] = "\033[1m",
    [CLI_STYLE_PROMPT] = "\033[1;36m",
    [CLI_STYLE_WARNING] = "\033[1;33m",
    [CLI_STYLE_GOOD] = "\033[32m",
    [CLI_STYLE_BAD] = "\033[31m",
    [CLI_STYLE_CODE] = "\033[36m",
    [CLI_STYLE_DIM] = "\033[2m",
  };

  return run->colour ? codes[style] : "";
}

char *
_warden_cli_styled (Run        *run,
                    CliStyle    style,
                    const char *text)
{
  if (!run->colour)
    return g_strdup (text);
  return g_strconcat (_warden_cli_style (run, style), text, SGR_RESET, NULL);
}

/* ------------------------------------------------------------------------ */
/* A diff */

void
_warden_cli_style_diff (Run        *run,
                        GString    *shown,
                        const char *diff,
                        const char *indent)
{
  g_autofree char *printable = warden_printable (diff, -1, WARDEN_PRINTABLE_KEEP_LINES);
  g_auto(GStrv) lines = g_strsplit (printable, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      CliStyle style = CLI_STYLE_RESET;

      if (lines[i][0] == '\0' && lines[i + 1] == NULL)
        break;
      switch (warden_diff_line_kind (lines[i]))
        {
        case WARDEN_DIFF_LINE_ADDED:
          style = CLI_STYLE_GOOD;
          break;
        case WARDEN_DIFF_LINE_REMOVED:
          style = CLI_STYLE_BAD;
          break;
        case WARDEN_DIFF_LINE_HUNK:
          style = CLI_STYLE_CODE;
          break;
        case WARDEN_DIFF_LINE_NOTE:
          style = CLI_STYLE_DIM;
          break;
        case WARDEN_DIFF_LINE_CONTEXT:
        default:
          break;
        }
      if (style == CLI_STYLE_RESET || !run->colour)
        g_string_append_printf (shown, "%s%s\n", indent, lines[i]);
      else
        g_string_append_printf (shown, "%s%s%s" SGR_RESET "\n", indent,
                                _warden_cli_style (run, style), lines[i]);
    }
}

/* ------------------------------------------------------------------------ */
/* The model's markdown, as it streams: headings bold without their marks,
 * bullets as bullets, code blocks indented and coloured without their
 * fences. The first characters of a line say what it is; they are held
 * until they do, and the rest of the line streams. */

typedef enum
{
  LINE_UNDECIDED,
  LINE_PLAIN,
  LINE_HEADING,
  LINE_BULLET,
  LINE_FENCE,    /* ``` opens or closes a code block: not shown */
  LINE_CODE,
} LineKind;

static LineKind
classify (Markdown   *md,
          const char *held,
          gsize      *body)
{
  const char *s = held + strspn (held, " ");
  gsize len = strlen (s);

  *body = s - held;
  if (md->in_fence)
    {
      if (len < 3 && strncmp (s, "```", len) == 0)
        return LINE_UNDECIDED;
      return g_str_has_prefix (s, "```") ? LINE_FENCE : LINE_CODE;
    }
  if (len == 0)
    return LINE_UNDECIDED;
  if (s[0] == '#')
    {
      gsize hashes = strspn (s, "#");

      if (hashes == len && hashes <= 6)
        return LINE_UNDECIDED;
      if (hashes <= 6 && s[hashes] == ' ')
        {
          *body += hashes + 1;
          return LINE_HEADING;
        }
      return LINE_PLAIN;
    }
  if (strchr ("-*+", s[0]) != NULL)
    {
      if (len == 1)
        return LINE_UNDECIDED;
      if (s[1] == ' ')
        {
          *body += 2;
          return LINE_BULLET;
        }
      return LINE_PLAIN;
    }
  if (s[0] == '`')
    {
      if (len < 3 && strncmp (s, "```", len) == 0)
        return LINE_UNDECIDED;
      return g_str_has_prefix (s, "```") ? LINE_FENCE : LINE_PLAIN;
    }
  return LINE_PLAIN;
}

/* What is held is decided (or the line ended): its start shown. */
static void
begin_line (Run      *run,
            Markdown *md,
            LineKind  kind,
            gsize     body,
            GString  *shown)
{
  const char *held = md->held->str;

  md->deciding = FALSE;
  switch (kind)
    {
    case LINE_HEADING:
      g_string_append_len (shown, held, strspn (held, " "));
      g_string_append (shown, _warden_cli_style (run, CLI_STYLE_BOLD));
      g_string_append (shown, held + body);
      md->styled = TRUE;
      break;
    case LINE_BULLET:
      g_string_append (shown, "  ");
      g_string_append_len (shown, held, strspn (held, " "));
      g_string_append (shown, "• ");
      g_string_append (shown, held + body);
      break;
    case LINE_FENCE:
      md->in_fence = !md->in_fence;
      md->swallow = TRUE;
      break;
    case LINE_CODE:
      g_string_append (shown, "    ");
      g_string_append (shown, _warden_cli_style (run, CLI_STYLE_CODE));
      g_string_append (shown, held);
      md->styled = TRUE;
      break;
    case LINE_PLAIN:
    case LINE_UNDECIDED:
    default:
      g_string_append (shown, held);
      break;
    }
  g_string_truncate (md->held, 0);
}

static void
end_line (Run      *run,
          Markdown *md,
          GString  *shown,
          gboolean  newline)
{
  if (md->styled)
    g_string_append (shown, SGR_RESET);
  if (newline && !md->swallow)
    g_string_append_c (shown, '\n');
  md->styled = FALSE;
  md->swallow = FALSE;
  md->deciding = TRUE;
}

void
_warden_cli_markdown_feed (Run        *run,
                           Markdown   *md,
                           const char *text,
                           GString    *shown)
{
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '\n')
        {
          if (md->deciding)
            {
              gsize body = 0;
              LineKind kind = classify (md, md->held->str, &body);

              begin_line (run, md, kind == LINE_UNDECIDED ? LINE_PLAIN : kind, body, shown);
            }
          end_line (run, md, shown, TRUE);
          continue;
        }
      if (!md->deciding)
        {
          if (!md->swallow)
            g_string_append_c (shown, *p);
          continue;
        }
      g_string_append_c (md->held, *p);
      {
        gsize body = 0;
        LineKind kind = classify (md, md->held->str, &body);

        if (kind != LINE_UNDECIDED)
          begin_line (run, md, kind, body, shown);
      }
    }
}

void
_warden_cli_markdown_flush (Run      *run,
                            Markdown *md,
                            GString  *shown)
{
  if (md->deciding && md->held->len > 0)
    {
      gsize body = 0;
      LineKind kind = classify (md, md->held->str, &body);

      begin_line (run, md, kind == LINE_UNDECIDED ? LINE_PLAIN : kind, body, shown);
    }
  end_line (run, md, shown, FALSE);
  /* The next text, after a tool call, starts afresh. */
  md->in_fence = FALSE;
}

void
_warden_cli_markdown_init (Markdown *md)
{
  md->held = g_string_new (NULL);
  md->deciding = TRUE;
}

void
_warden_cli_markdown_clear (Markdown *md)
{
  if (md->held != NULL)
    g_string_free (md->held, TRUE);
  md->held = NULL;
}
