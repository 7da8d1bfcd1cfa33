/* warden-cli-run.c: warden-cli run and sessions, the agent in a terminal
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-cli"

#include <glib/gi18n.h>
#include <glib-unix.h>
#include <gio/gunixinputstream.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "warden-cli.h"

#include "llm/warden-llm-prices.h"
#include "policy/warden-network.h"
#include "warden-cli-run-private.h"

#include "agent/warden-agent.h"
#include "agent/warden-restore.h"
#include "agent/warden-tool-call.h"
#include "common/warden-json.h"
#include "common/warden-printable.h"
#include "llm/warden-llm-settings.h"
#include "llm/warden-openai-provider.h"
#include "sandbox/warden-sandbox.h"

static const char run_description[] =
  "Answers at an approval: y or yes approves, a or always always allows (then the\n"
  "pattern; empty saves every suggested one), n or no rejects (then feedback; may be\n"
  "empty). Anything else asks again; nothing is recorded until an answer is complete.\n"
  "A command no pattern can cover (a shell reading a download) is not offered always allow.\n"
  "\n"
  "Exit status: 0 the agent finished; 1 the session store or writing the output failed;\n"
  "2 usage or setup error; 3 out of steps; 4 provider error; 5 the session is in use by\n"
  "another process; 6 stopped with a question pending (input ended at a prompt); 128+N\n"
  "when signal N stopped it: 130 Ctrl+C (SIGINT), 129 SIGHUP, 143 SIGTERM. A signal or\n"
  "the end of input leaves an unanswered approval waiting: --resume asks it again.\n"
  "\n"
  "--json: events as JSON Lines on standard output, answers as JSON Lines on standard\n"
  "input, the same exit statuses; the schema is docs/events.md.\n"
  "\n"
  "--approve-with PROGRAM: each approval goes first to PROGRAM, run as you outside the\n"
  "sandbox without the API keys: the approval_required event on its standard input, the\n"
  "answer --json takes (or {\"ask\": true}) on its standard output. A crash, a non-zero\n"
  "exit, no answer within --approve-timeout or one that is no answer asks you (with no\n"
  "terminal and no --json: rejects it, saying why). --on-question reject|pending: what no\n"
  "program decided is rejected (the model is told nobody attends) or left pending (exit 6).\n"
  "\n"
  "What the model and the sandbox send is shown, never obeyed: in a prompt every control,\n"
  "bidi or invisible character is escaped (\\r, \\x1b, \\u202e), and a command's output keeps\n"
  "its colours (ESC [ ... m, on a terminal or not) but shows every other control sequence\n"
  "escaped (cursor moves, erasing, OSC 52 clipboard, links, a carriage return alone).\n"
  "--raw-output passes command output through as it is.";

typedef struct
{
  Run  *run;
  int   signum;
  guint id;
} SignalWatch;


static void
result_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Run *run = user_data;

  run->result = g_object_ref (result);
  g_main_loop_quit (run->loop);
}

/* Ctrl+C, a closed terminal or a kill stop the request, the command or the
 * prompt; nothing unanswered is recorded, and the session can be resumed. */
static gboolean
signal_cb (gpointer user_data)
{
  SignalWatch *watch = user_data;

  if (watch->run->signum == 0)
    watch->run->signum = watch->signum;
  /* Ctrl+C is the person at the terminal; SIGTERM and SIGHUP come from
   * elsewhere (a closed terminal, a service manager, a script). */
  _warden_cli_run_stop (watch->run, watch->signum == SIGINT ? WARDEN_TOOL_END_USER
                                                             : WARDEN_TOOL_END_SIGNAL);
  if (watch->run->prompt_cancellable != NULL)
    g_cancellable_cancel (watch->run->prompt_cancellable);
  return G_SOURCE_CONTINUE;
}

void
_warden_cli_run_stop (Run           *run,
                      WardenToolEnd  cause)
{
  if (run->agent != NULL)
    warden_agent_set_stop_cause (run->agent, cause);
  g_cancellable_cancel (run->cancellable);
}

static void
write_signal_cb (int signum)
{
}

/* Past the file size limit (ulimit -f) a write then fails with EFBIG, which
 * is reported, instead of SIGXFSZ ending the process without a word. With
 * @pipe (run), a write to a pipe whose reader went away fails with EPIPE
 * instead of SIGPIPE ending it: the run stops as it would for a full disk,
 * and records why, so an approved command about to start is still approved
 * afterwards. A handler rather than SIG_IGN: the commands Warden runs get
 * the default back when they start, an ignored signal they would inherit. */
static void
catch_write_signals (gboolean pipe)
{
  struct sigaction action = { 0 };

  action.sa_handler = write_signal_cb;
  sigemptyset (&action.sa_mask);
  sigaction (SIGXFSZ, &action, NULL);
  if (pipe)
    sigaction (SIGPIPE, &action, NULL);
}

/* Everything "run" prints goes through here: a write that fails (a full
 * disk, a file size limit, a closed pipe) stops the run, and the session
 * stays as it was left. */
gboolean
_warden_cli_run_write (Run        *run,
                       const char *text)
{
  if (run->write_errno != 0)
    return FALSE;
  errno = 0;
  if (fputs (text, stdout) == EOF || fflush (stdout) != 0)
    {
      run->write_errno = errno != 0 ? errno : EIO;
      _warden_cli_run_stop (run, WARDEN_TOOL_END_OUTPUT_FAILED);
      return FALSE;
    }
  return TRUE;
}

gboolean
_warden_cli_run_printf (Run        *run,
                        const char *format,
                        ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  return _warden_cli_run_write (run, text);
}

/* Shared with warden-cli-chat.c under its long name; short here, where
 * every line prints. */
#define out _warden_cli_run_printf

/* ------------------------------------------------------------------------ */
/* Text that goes to the terminal as it streams: the model's words, a
 * command's output. Lines and tabs stay; colours may; nothing else that a
 * terminal would obey instead of showing — a cursor move, an erased line, a
 * lone carriage return, a title, the clipboard (OSC 52), a link (OSC 8), a
 * C1 control, a bidi override — reaches it unescaped: such text could
 * rewrite what was shown before it, a prompt too. */

/* The longest parameter string of a colour kept; past it, the sequence is
 * shown escaped (and nothing is held without end). */
#define CSI_HELD_MAX 64

/* --context-window below this leaves no room for a conversation: the tools
 * and the system prompt take about 2000 tokens. */
#define MIN_CONTEXT_WINDOW 4096

static void
term_filter_init (TermFilter *filter,
                  gboolean    keep_colour)
{
  filter->state = FILTER_TEXT;
  filter->keep_colour = keep_colour;
  filter->held = g_string_new (NULL);
}

static void
term_filter_clear (TermFilter *filter)
{
  if (filter->held != NULL)
    g_string_free (filter->held, TRUE);
  filter->held = NULL;
}

static void
append_escaped (GString    *shown,
                const char *text,
                gsize       length)
{
  g_autofree char *printable = warden_printable (text, length, WARDEN_PRINTABLE_ONE_LINE);

  g_string_append (shown, printable);
}

/* What was held is not a colour: it is shown, escaped. */
static void
term_filter_release (TermFilter *filter,
                     GString    *shown)
{
  append_escaped (shown, filter->held->str, filter->held->len);
  g_string_truncate (filter->held, 0);
  filter->state = FILTER_TEXT;
}

/* Right-to-left and isolate controls reorder what a terminal with bidi
 * support (VTE) shows; the other format characters (a zero-width joiner in
 * an emoji) only join or hide. */
static gboolean
is_bidi_control (gunichar c)
{
  return c == 0x061c || c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
         (c >= 0x2066 && c <= 0x2069) || c == 0x2028 || c == 0x2029;
}

/* A colour, and only that: ESC [ digits ; : m. Private parameters (ESC [ ? …)
 * and intermediates make it something else. */
static gboolean
held_is_colour (TermFilter *filter)
{
  const char *s = filter->held->str;
  gsize len = filter->held->len;

  if (!filter->keep_colour || len < 3 || s[len - 1] != 'm')
    return FALSE;
  for (gsize i = 2; i < len - 1; i++)
    if (!g_ascii_isdigit (s[i]) && s[i] != ';' && s[i] != ':')
      return FALSE;
  return TRUE;
}

/* Appends what @data shows to @shown; what could still start a sequence
 * waits for the next chunk (or term_filter_flush()). */
static void
term_filter_feed (TermFilter *filter,
                  const char *data,
                  gsize       length,
                  GString    *shown)
{
  for (gsize i = 0; i < length;)
    {
      guchar b = (guchar) data[i];

      switch (filter->state)
        {
        case FILTER_ESC:
          if (b == '[')
            {
              g_string_append_c (filter->held, '[');
              filter->state = FILTER_CSI;
              i++;
            }
          else
            /* An OSC, a DCS, a cursor save…: its ESC escaped, the rest is
             * plain text (and its BEL or ESC \ end escaped in turn). */
            term_filter_release (filter, shown);
          continue;

        case FILTER_CSI:
          if (b >= 0x20 && b <= 0x3f && filter->held->len < CSI_HELD_MAX)
            {
              g_string_append_c (filter->held, (char) b);
              i++;
            }
          else if (b >= 0x40 && b <= 0x7e)
            {
              g_string_append_c (filter->held, (char) b);
              i++;
              if (held_is_colour (filter))
                {
                  g_string_append_len (shown, filter->held->str, filter->held->len);
                  g_string_truncate (filter->held, 0);
                  filter->state = FILTER_TEXT;
                }
              else
                term_filter_release (filter, shown);
            }
          else
            /* Cut by a control or a character: not a sequence the terminal
             * finishes the way we would guess. */
            term_filter_release (filter, shown);
          continue;

        case FILTER_CR:
          if (b == '\n')
            {
              g_string_append (shown, "\r\n");
              g_string_truncate (filter->held, 0);
              filter->state = FILTER_TEXT;
              i++;
            }
          else
            term_filter_release (filter, shown);
          continue;

        case FILTER_TEXT:
        default:
          break;
        }

      if (b == '\n' || b == '\t')
        {
          g_string_append_c (shown, (char) b);
          i++;
        }
      else if (b == 0x1b || b == '\r')
        {
          g_string_append_c (filter->held, (char) b);
          filter->state = b == 0x1b ? FILTER_ESC : FILTER_CR;
          i++;
        }
      else if (b < 0x20 || b == 0x7f)
        {
          append_escaped (shown, data + i, 1);
          i++;
        }
      else if (b < 0x80)
        {
          g_string_append_c (shown, (char) b);
          i++;
        }
      else
        {
          gunichar c = g_utf8_get_char_validated (data + i, length - i);
          gsize used = c == (gunichar) -1 || c == (gunichar) -2
                       ? 1 : (gsize) (g_utf8_next_char (data + i) - (data + i));

          /* Not UTF-8, a C1 control (U+009B is a CSI of its own), a bidi
           * control: escaped. */
          if (used == 1 || c < 0xa0 || is_bidi_control (c))
            append_escaped (shown, data + i, used);
          else
            g_string_append_len (shown, data + i, used);
          i += used;
        }
    }
}

/* The text ended (the command or the answer did): what was held shows. */
static void
term_filter_flush (TermFilter *filter,
                   GString    *shown)
{
  if (filter->held->len > 0)
    term_filter_release (filter, shown);
}

/* ------------------------------------------------------------------------ */

/* Shows the end of what a command printed, then of the model's words. */
static void
end_text (Run *run)
{
  g_autoptr(GString) shown = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (run->out_filter); i++)
    term_filter_flush (&run->out_filter[i], shown);
  if (run->colour)
    {
      g_autoptr(GString) text = g_string_new (NULL);

      term_filter_flush (&run->text_filter, text);
      _warden_cli_markdown_feed (run, &run->markdown, text->str, shown);
      _warden_cli_markdown_flush (run, &run->markdown, shown);
    }
  else
    term_filter_flush (&run->text_filter, shown);
  if (run->in_text)
    {
      g_string_append_c (shown, '\n');
      run->in_text = FALSE;
    }
  if (shown->len > 0)
    out (run, "%s", shown->str);
}

static void
text_delta_cb (WardenAgent *agent,
               const char  *text,
               Run         *run)
{
  g_autoptr(GString) shown = g_string_new (NULL);

  run->in_text = TRUE;
  term_filter_feed (&run->text_filter, text, strlen (text), shown);
  /* Laid out on a terminal in colour; into a file, as the model wrote it. */
  if (run->colour)
    {
      g_autoptr(GString) laid_out = g_string_new (NULL);

      _warden_cli_markdown_feed (run, &run->markdown, shown->str, laid_out);
      out (run, "%s", laid_out->str);
    }
  else
    out (run, "%s", shown->str);
}

/* One line of model or sandbox text, as it is: nothing in it can end the
 * line, hide part of it or rewrite what is shown. */
static char *
one_line (const char *text)
{
  return warden_printable (text, -1, WARDEN_PRINTABLE_ONE_LINE);
}

static void
tool_call_cb (WardenAgent    *agent,
              WardenToolCall *call,
              Run            *run)
{
  const char *subject = warden_tool_call_get_subject (call);
  g_autofree char *name = one_line (warden_tool_call_get_name (call));
  g_autofree char *shown = one_line (*subject ? subject : warden_tool_call_get_input_json (call));

  end_text (run);
  out (run, "[%s] %s\n", name, shown);
}

static void
retrying_cb (WardenAgent *agent,
             guint        attempt,
             guint        delay_ms,
             const char  *reason,
             Run         *run)
{
  g_autofree char *shown = one_line (reason);

  end_text (run);
  fprintf (stderr, "warden-cli: %s; trying again in %.1f s (attempt %u)\n", shown,
           delay_ms / 1000.0, attempt);
}

/* What the session gives the model of the project's own instructions. */
static void
print_instructions (WardenAgent *agent)
{
  const WardenInstructions *instructions = warden_agent_get_instructions (agent);
  const char *problem = warden_agent_get_instructions_problem (agent);

  if (instructions != NULL)
    fprintf (stderr, "instructions: %s (%" G_GSIZE_FORMAT " bytes%s, sha256 %.12s)\n",
             instructions->file, instructions->size,
             instructions->truncated ? ", only the first 32 KiB are sent" : "",
             instructions->sha256);
  else if (problem != NULL)
    {
      g_autofree char *shown = one_line (problem);

      fprintf (stderr, "instructions: none used: %s\n", shown);
    }
}

static void
instructions_cb (WardenAgent *agent,
                 GParamSpec  *pspec,
                 Run         *run)
{
  end_text (run);
  if (warden_agent_get_instructions (agent) == NULL &&
      warden_agent_get_instructions_problem (agent) == NULL)
    fprintf (stderr, "instructions: none any more\n");
  print_instructions (agent);
}

static void
compacted_cb (WardenAgent         *agent,
              guint                summarised,
              gint64               before,
              gint64               after,
              WardenCompactReason  reason,
              const char          *summary,
              Run                 *run)
{
  end_text (run);
  fprintf (stderr, "warden-cli: earlier conversation summarised (%u messages; about %"
           G_GINT64_FORMAT " → %" G_GINT64_FORMAT " tokens of %u%s); warden-cli sessions show "
           "%s prints the summary\n", summarised, before, after,
           warden_agent_get_context_window (agent),
           reason == WARDEN_COMPACT_OVERFLOW ? ", the model said the conversation was too long"
                                             : "", warden_agent_get_session_id (agent));
}

static void
waiting_cb (WardenAgent *agent,
            guint        seconds,
            Run         *run)
{
  if (seconds == 0)
    return;
  end_text (run);
  fprintf (stderr, "warden-cli: the model has not answered for %u s; still waiting\n", seconds);
}

static void
output_cb (WardenAgent *agent,
           int          stream,
           const char  *data,
           Run         *run)
{
  g_autoptr(GString) shown = NULL;

  if (run->raw_output)
    {
      out (run, "%s", data);
      return;
    }
  shown = g_string_new (NULL);
  term_filter_feed (&run->out_filter[stream == WARDEN_STREAM_STDERR ? 1 : 0], data,
                    strlen (data), shown);
  out (run, "%s", shown->str);
}

/* A decision as stored, in the colour of what it means. */
static char *
styled_decision (Run           *run,
                 WardenToolCall *call)
{
  WardenToolDecision decision = warden_tool_call_get_decision (call);
  const char *word = warden_tool_decision_to_string (decision);

  switch (decision)
    {
    case WARDEN_TOOL_DECISION_REJECTED:
    case WARDEN_TOOL_DECISION_DENIED:
      return _warden_cli_styled (run, CLI_STYLE_BAD, word);
    case WARDEN_TOOL_DECISION_APPROVED:
    case WARDEN_TOOL_DECISION_APPROVED_ALWAYS:
    case WARDEN_TOOL_DECISION_AUTO_ALLOWED:
      return _warden_cli_styled (run, CLI_STYLE_GOOD, word);
    default:
      return g_strdup (word);
    }
}

/* Text of several lines under a head line: each one after the first
 * indented, so that none passes for a line of Warden's own. */
static char *
indented_lines (const char *text)
{
  g_autofree char *shown = warden_printable (text, -1, WARDEN_PRINTABLE_KEEP_LINES);
  g_auto(GStrv) lines = g_strsplit (g_strchomp (shown), "\n", -1);

  return g_strjoinv ("\n    ", lines);
}

static void
tool_result_cb (WardenAgent    *agent,
                WardenToolCall *call,
                Run            *run)
{
  g_autofree char *name = one_line (warden_tool_call_get_name (call));
  g_autofree char *decision = styled_decision (run, call);
  const char *result = warden_tool_call_get_result (call);
  WardenToolKind kind = warden_tool_call_get_kind (call);

  end_text (run);
  if (result == NULL)
    result = "";
  if (kind == WARDEN_TOOL_KIND_EXEC && !warden_tool_call_get_is_error (call))
    {
      GPtrArray *changes = warden_tool_call_get_changes (call);

      out (run, "[exec] exit %d (%s)\n", warden_tool_call_get_exit_code (call), decision);
      /* What it did to the files, from the checkpoints around it. */
      if (changes != NULL && changes->len > 0)
        {
          g_autofree char *lines = warden_restore_describe_changes (changes, "  ");

          out (run, "%s", lines);
        }
    }
  else if (warden_tool_call_get_is_error (call))
    {
      /* A rejection's feedback of several lines reads as lines. */
      g_autofree char *shown = indented_lines (result);

      out (run, "[%s] %s (%s)\n", name, shown, decision);
    }
  else
    {
      gsize len = strlen (result);
      /* A file's lines stay lines; whole characters only. */
      const char *end = len > 2000 ? g_utf8_find_prev_char (result, result + 2001) : NULL;
      g_autofree char *shown = warden_printable (result, end ? end - result : (gssize) len,
                                                 WARDEN_PRINTABLE_KEEP_LINES);

      out (run, "[%s] %s%s\n", name, shown, len > 2000 ? " …" : "");
    }
  /* What a write or an edit changed in the file. */
  if ((kind == WARDEN_TOOL_KIND_WRITE || kind == WARDEN_TOOL_KIND_EDIT) &&
      warden_tool_call_get_diff (call) != NULL && !warden_tool_call_get_is_error (call))
    {
      g_autoptr(GString) diff = g_string_new (NULL);

      _warden_cli_style_diff (run, diff, warden_tool_call_get_diff (call), "    ");
      out (run, "%s", diff->str);
    }
}

/* One line from standard input, without its end, read while the main loop
 * runs so that a signal stops the wait. PROMPT_NO_ANSWER at the end of
 * input, PROMPT_STOPPED after a signal or a failed write. A line is text
 * with a length: one that holds a NUL byte is no answer, whatever comes
 * before it (a C string would end there, "n\0junk" reading as "n"); it is
 * said so (with --json, a bad_input event) and the next line is read. With
 * --json the line comes as it was sent, for the JSON reader to judge; a
 * person's line is trimmed and made valid UTF-8. */
PromptResult
_warden_cli_run_read_line (Run   *run,
                           char **line_out)
{
  for (;;)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *line = NULL;
      gsize length = 0;
      const char *nul;

      /* A loop of its own: a prompt for a program a running command started
       * comes while the run's loop runs. */
      g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
      Run reading = { 0 };

      *line_out = NULL;
      if (g_cancellable_is_cancelled (run->cancellable))
        return PROMPT_STOPPED;
      reading.loop = loop;
      g_data_input_stream_read_line_async (run->input, G_PRIORITY_DEFAULT,
                                           run->prompt_cancellable ? run->prompt_cancellable
                                                                   : run->cancellable,
                                           result_cb, &reading);
      g_main_loop_run (loop);
      line = g_data_input_stream_read_line_finish (run->input, reading.result, &length, &error);
      g_clear_object (&reading.result);
      /* A line that came with the signal is not an answer either. */
      if (g_cancellable_is_cancelled (run->cancellable))
        return PROMPT_STOPPED;
      if (run->prompt_cancellable != NULL && g_cancellable_is_cancelled (run->prompt_cancellable))
        {
          if (!run->json)
            out (run, "\n");
          return PROMPT_WITHDRAWN;
        }
      if (error != NULL)
        warden_cli_error ("could not read the answer: %s", error->message);

      nul = line != NULL ? memchr (line, '\0', length) : NULL;
      /* A script's answers are not echoed: end the prompt's line ourselves
       * (not among JSON events), its NUL shown, not written. */
      if (!run->json && !isatty (STDIN_FILENO))
        {
          g_autofree char *shown = nul ? warden_printable (line, length, WARDEN_PRINTABLE_ONE_LINE)
                                       : NULL;

          if (!out (run, "%s\n", shown ? shown : line ? line : ""))
            return PROMPT_STOPPED;
        }
      if (line == NULL)
        return PROMPT_NO_ANSWER;
      if (nul != NULL)
        {
          g_autofree char *message = g_strdup_printf ("the line holds a NUL byte (at byte %"
                                                      G_GSIZE_FORMAT "), so it is not an "
                                                      "answer", (gsize) (nul - line) + 1);

          if (run->json)
            _warden_cli_json_bad_line (run, message);
          else if (!out (run, "  %s; type it again> ", message))
            return PROMPT_STOPPED;
          continue;
        }
      *line_out = run->json ? g_steal_pointer (&line)
                            : g_utf8_make_valid (g_strstrip (line), -1);
      return PROMPT_ANSWERED;
    }
}

/* Where the person types, in colour on a terminal. The text is Warden's
 * own, or escaped already. Valid until the next call. */
static const char *
prompt (Run        *run,
        const char *text)
{
  static char *styled;

  g_free (styled);
  styled = _warden_cli_styled (run, CLI_STYLE_PROMPT, text);
  return styled;
}

static gboolean
is_answer (const char *line,
           const char *letter,
           const char *word)
{
  return g_ascii_strcasecmp (line, letter) == 0 || g_ascii_strcasecmp (line, word) == 0;
}

/* "HEAD text" on one line; text of several lines below HEAD, each line
 * numbered, so that none of them can pass for a line of the prompt. */
static void
show_subject (Run        *run,
              const char *head,
              const char *text)
{
  g_autofree char *shown = NULL;
  g_auto(GStrv) lines = NULL;

  if (text == NULL || strchr (text, '\n') == NULL)
    {
      shown = one_line (text);
      out (run, "%s %s\n", head, shown);
      return;
    }
  shown = warden_printable (text, -1, WARDEN_PRINTABLE_KEEP_LINES);
  lines = g_strsplit (shown, "\n", -1);
  out (run, "%s\n", head);
  for (guint i = 0; lines[i]; i++)
    out (run, "  %u│ %s\n", i + 1, lines[i]);
}

static gboolean
is_part_reason (WardenDecision *decision,
                const char     *reason)
{
  for (guint i = 0; i < warden_decision_get_n_parts (decision); i++)
    if (g_strcmp0 (warden_decision_get_part (decision, i)->reason, reason) == 0)
      return TRUE;
  return FALSE;
}

static void
show_part (Run                      *run,
           const WardenDecisionPart *part)
{
  g_autofree char *text = one_line (part->text);
  g_autofree char *reason = one_line (part->reason);
  const char *label = part->verdict == WARDEN_VERDICT_ASK ? "* asks    "
                      : part->verdict == WARDEN_VERDICT_DENY ? "* denied  " : "  allowed ";
  g_autofree char *styled = _warden_cli_styled (run, part->verdict == WARDEN_VERDICT_ASK
                                                     ? CLI_STYLE_WARNING
                                                     : part->verdict == WARDEN_VERDICT_DENY
                                                     ? CLI_STYLE_BAD : CLI_STYLE_GOOD, label);

  out (run, "  %s%s\n", styled, text);
  if (part->reason != NULL)
    out (run, "            %s%s\n", part->verdict == WARDEN_VERDICT_ALLOW ? "" : "because ",
         reason);
}

/* Why it asks. A command of one part says it in a line; one of several
 * lists every part that will run — the asking ones first, marked, each with
 * its reason — as asking for one is asking to run them all. */
static void
show_reasons (Run            *run,
              WardenApproval *approval)
{
  WardenDecision *decision = warden_approval_get_decision (approval);
  const char *reason = warden_approval_get_reason (approval);
  const char *subject = warden_approval_get_subject (approval);
  const WardenDecisionPart *only = NULL;
  guint n = decision ? warden_decision_get_n_parts (decision) : 0;
  gboolean asking = FALSE;

  /* Not the policy's own (Warden cannot vouch for an earlier answer), or no
   * decision to list. */
  if (reason != NULL && (decision == NULL || !is_part_reason (decision, reason)))
    {
      g_autofree char *shown = one_line (reason);

      out (run, "  because %s\n", shown);
    }
  if (n == 0)
    return;
  if (n == 1)
    only = warden_decision_get_part (decision, 0);
  if (only != NULL && only->verdict == WARDEN_VERDICT_ASK && g_strcmp0 (only->text, subject) == 0)
    {
      g_autofree char *shown = one_line (only->reason);

      if (only->reason != NULL)
        out (run, "  because %s\n", shown);
      return;
    }
  for (guint i = 0; i < n && !asking; i++)
    asking = warden_decision_get_part (decision, i)->verdict != WARDEN_VERDICT_ALLOW;
  out (run, "  it runs %u part%s%s:\n", n, n == 1 ? "" : "s", asking ? " (* asks)" : "");
  for (guint i = 0; i < n; i++)
    if (warden_decision_get_part (decision, i)->verdict != WARDEN_VERDICT_ALLOW)
      show_part (run, warden_decision_get_part (decision, i));
  for (guint i = 0; i < n; i++)
    if (warden_decision_get_part (decision, i)->verdict == WARDEN_VERDICT_ALLOW)
      show_part (run, warden_decision_get_part (decision, i));
}

/* Asks on the terminal and records the answer. Only a whole answer is
 * recorded: the end of input, a signal or an empty line never approves and
 * never rejects. */
static PromptResult
answer_pending (Run         *run,
                WardenAgent *agent)
{
  WardenApproval *approval = warden_agent_get_pending (agent);
  WardenApprovalAnswer answer = { 0 };
  g_autofree char *line = NULL;
  g_autofree char *second = NULL;
  g_autoptr(GError) error = NULL;
  const char * const *suggestions = warden_approval_get_suggestions (approval);
  PromptResult result;

  end_text (run);
  if (warden_approval_get_kind (approval) == WARDEN_APPROVAL_QUESTION)
    {
      const char * const *choices = warden_approval_get_choices (approval);
      g_autofree char *plain = g_strdup_printf ("? %s:", warden_approval_get_heading (approval));
      g_autofree char *head = _warden_cli_styled (run, CLI_STYLE_WARNING, plain);
      guint n_choices = g_strv_length ((char **) choices);
      guint64 picked = 0;

      show_subject (run, head, warden_approval_get_subject (approval));
      for (guint i = 0; choices[i]; i++)
        {
          g_autofree char *choice = one_line (choices[i]);

          out (run, "  %u) %s\n", i + 1, choice);
        }
      if (!out (run, "%s", n_choices > 0 ? prompt (run, "answer (a number picks)> ")
                                         : prompt (run, "answer> ")))
        return PROMPT_STOPPED;
      if ((result = _warden_cli_run_read_line (run, &line)) != PROMPT_ANSWERED)
        return result;
      /* A number picks its choice; anything else is the answer as typed. */
      if (n_choices > 0 && g_ascii_string_to_unsigned (line, 10, 1, n_choices, &picked, NULL))
        answer.answer = choices[picked - 1];
      else
        answer.answer = line;
    }
  else
    {
      g_autofree char *plain = g_strdup_printf ("! %s:", warden_approval_get_heading (approval));
      g_autofree char *head = _warden_cli_styled (run, CLI_STYLE_WARNING, plain);
      /* Where it comes from: the command that wants a host, what started
       * a program, up to the model's command. */
      g_auto(GStrv) origins = warden_approval_dup_origins (approval, one_line);
      /* A part no pattern can cover: always allow would save nothing and
       * the command would ask again, so it is not offered. */
      const char *uncovered_text = NULL, *uncovered_reason = NULL;
      gboolean uncovered = warden_approval_get_uncovered (approval, &uncovered_text,
                                                          &uncovered_reason);
      g_autofree char *suggestion = one_line (suggestions[0]);

      show_subject (run, head, warden_approval_get_subject (approval));
      for (guint i = 0; origins[i] != NULL; i++)
        out (run, "  %s\n", origins[i]);
      if (warden_approval_get_cwd (approval))
        {
          g_autofree char *cwd = one_line (warden_approval_get_cwd (approval));

          out (run, "  in %s\n", cwd);
        }
      for (guint i = 0; warden_approval_get_env (approval)[i]; i++)
        {
          g_autofree char *env = one_line (warden_approval_get_env (approval)[i]);

          out (run, "  with %s\n", env);
        }
      show_reasons (run, approval);
      /* A write or an edit: what it changes, escaped like everything the
       * model wrote. */
      if (warden_approval_get_diff (approval) != NULL)
        {
          g_autoptr(GString) diff = g_string_new ("  it changes:\n");

          _warden_cli_style_diff (run, diff, warden_approval_get_diff (approval), "    ");
          out (run, "%s", diff->str);
        }
      if (uncovered)
        {
          g_autofree char *text = one_line (uncovered_text);
          g_autofree char *why = one_line (uncovered_reason);

          out (run, "  no pattern can always allow “%s” (%s)\n", text, why);
        }
      else
        /* Always allow saves them all, one per asking part. */
        for (guint i = 0; suggestions[i]; i++)
          {
            g_autofree char *shown = one_line (suggestions[i]);

            out (run, "  always allow would save: %s\n", shown);
          }
      for (;;)
        {
          if (!out (run, "%s", prompt (run, uncovered ? "[y] approve, [n] reject> "
                                                      : "[y] approve, [a] always allow, "
                                                        "[n] reject> ")))
            return PROMPT_STOPPED;
          g_clear_pointer (&line, g_free);
          if ((result = _warden_cli_run_read_line (run, &line)) != PROMPT_ANSWERED)
            return result;
          if (is_answer (line, "y", "yes") || is_answer (line, "n", "no") ||
              (!uncovered && is_answer (line, "a", "always")))
            break;
          out (run, uncovered ? "  answer y (yes) to approve once, n (no) to reject\n"
                              : "  answer y (yes) to approve, a (always) to always allow, "
                                "n (no) to reject\n");
        }
      if (is_answer (line, "n", "no"))
        {
          if (!out (run, "%s", prompt (run, "feedback> ")))
            return PROMPT_STOPPED;
          /* Rejected already: at the end of input, without feedback. */
          if ((result = _warden_cli_run_read_line (run, &second)) == PROMPT_STOPPED)
            return result;
          answer.feedback = second;
        }
      else
        {
          answer.approved = TRUE;
          if (is_answer (line, "a", "always"))
            {
              answer.allow_always = TRUE;
              if (suggestions[0] != NULL && suggestions[1] != NULL)
                {
                  g_free (suggestion);
                  suggestion = g_strdup ("all of the above");
                }
              g_autofree char *ask = g_strdup_printf ("pattern [%s]> ", suggestion);

              if (!out (run, "%s", prompt (run, ask)))
                return PROMPT_STOPPED;
              if ((result = _warden_cli_run_read_line (run, &second)) != PROMPT_ANSWERED)
                return result;
              answer.pattern = *second ? second : NULL;
            }
        }
    }

  answer.via = "cli";
  if (!warden_agent_resolve (agent, &answer, &error))
    {
      /* Its command ended while the person typed. */
      if (g_error_matches (error, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_NO_PENDING) &&
          warden_approval_get_while_running (approval))
        return PROMPT_ANSWERED;
      warden_cli_error ("%s", error->message);
      run->lease_lost = g_error_matches (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_LOST);
      return PROMPT_FAILED;
    }
  return PROMPT_ANSWERED;
}

/* A program a running command started waits (the exec guard): asked now,
 * while the run goes on. The end of input cannot leave it waiting (the
 * program waits in a live process): the run stops, as with Ctrl+C. */
static void
approval_cb (WardenAgent    *agent,
             WardenApproval *approval,
             Run            *run)
{
  PromptResult result;

  if (!warden_approval_get_while_running (approval))
    return;  /* the loop's own: answered when the run returns */
  run->prompt_cancellable = g_cancellable_new ();
  result = _warden_cli_decide (run, agent, run->json ? _warden_cli_json_answer : answer_pending);
  g_clear_object (&run->prompt_cancellable);
  if (result == PROMPT_NO_ANSWER)
    {
      run->nested_unanswered = TRUE;
      _warden_cli_run_stop (run, WARDEN_TOOL_END_INPUT_ENDED);
    }
  else if (result == PROMPT_FAILED)
    _warden_cli_run_stop (run, run->lease_lost ? WARDEN_TOOL_END_LOST : WARDEN_TOOL_END_FAILED);
}

/* What the sandbox says when it is ready: a gap in what is checked. */
static void
sandbox_state_cb (WardenAgent *agent,
                  GParamSpec  *pspec,
                  Run         *run)
{
  const char *message = warden_agent_get_sandbox_message (agent);

  if (warden_agent_get_sandbox_state (agent) != WARDEN_SANDBOX_STATE_READY || message == NULL)
    return;
  warden_cli_error ("%s", message);
  if (run->json)
    _warden_cli_json_notice (run, message);
}

/* Its command ended before the answer. */
static void
approval_withdrawn_cb (WardenAgent *agent,
                       Run         *run)
{
  if (run->json)
    _warden_cli_json_withdrawn (run);
  else
    {
      end_text (run);
      out (run, "  (the program's command has ended: no answer is needed any more)\n");
    }
  if (run->prompt_cancellable != NULL)
    g_cancellable_cancel (run->prompt_cancellable);
}

/* Why the run stopped before its end, on standard error; the exit status. */
static int
report_stop (Run        *run,
             const char *session_id)
{
  if (run->write_errno != 0)
    {
      warden_cli_error ("could not write the output: %s; continue with "
                        "warden-cli run --resume %s", g_strerror (run->write_errno), session_id);
      return EXIT_FAILED;
    }
  if (run->nested_unanswered && run->signum == 0)
    {
      warden_cli_error ("%s for a program the command started; the command was stopped: "
                        "continue with warden-cli run --resume %s",
                        run->left_pending ? "left pending (--on-question pending)"
                                          : "no answer (end of input)", session_id);
      return EXIT_NO_ANSWER;
    }
  /* In a conversation Ctrl+C stops the step, not the session. */
  if (run->chat && run->signum == SIGINT)
    out (run, isatty (STDIN_FILENO) ? "\n  (stopped)\n" : "  (stopped)\n");  /* after ^C */
  else
    warden_cli_error ("interrupted; continue with warden-cli run --resume %s", session_id);
  return EXIT_SIGNAL_BASE + (run->signum ? run->signum : SIGINT);
}

/* A store that cannot be read or written is a failure (1); an unknown
 * session, a refused workspace, a missing profile are setup errors (2). */
static int
status_for (const GError *error)
{
  if (g_error_matches (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_IN_USE) ||
      g_error_matches (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_LOST))
    return EXIT_IN_USE;
  if (error->domain == WARDEN_STORE_ERROR && error->code != WARDEN_STORE_ERROR_NOT_FOUND &&
      error->code != WARDEN_STORE_ERROR_AMBIGUOUS)
    return EXIT_FAILED;
  return WARDEN_CLI_EXIT_USAGE;
}

/* A word a script can test for what went wrong (the "code" of an error
 * event). */
static const char *
code_for (const GError *error,
          int           status)
{
  if (error != NULL && error->domain == WARDEN_STORE_ERROR)
    return error->code == WARDEN_STORE_ERROR_IN_USE ? "in_use"
           : error->code == WARDEN_STORE_ERROR_LOST ? "lost"
           : error->code == WARDEN_STORE_ERROR_NOT_FOUND ? "not_found"
           : error->code == WARDEN_STORE_ERROR_AMBIGUOUS ? "ambiguous" : "store";
  if (error != NULL && error->domain == WARDEN_LLM_ERROR)
    return "provider";
  if (g_error_matches (error, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_NOT_RECORDED))
    return "not_recorded";
  if (g_error_matches (error, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_SANDBOX))
    return "sandbox";
  return status == WARDEN_CLI_EXIT_USAGE ? "setup" : "failed";
}

/* What to do about it, in one sentence. */
static char *
hint_for (const char *code,
          const char *session_id)
{
  g_autofree char *resume = session_id ? g_strdup_printf ("warden-cli run --resume %s",
                                                          session_id)
                                       : g_strdup ("warden-cli run --resume SESSION_ID");

  if (strcmp (code, "in_use") == 0)
    return g_strdup_printf ("Let the other process finish or stop it, then %s; if it is gone "
                            "(a crash in a container or under another host name), warden-cli "
                            "sessions release %s frees the session.", resume,
                            session_id ? session_id : "SESSION_ID");
  if (strcmp (code, "lost") == 0)
    return g_strdup ("Another Warden has the session now; warden-cli sessions show tells what "
                     "became of it.");
  if (strcmp (code, "not_found") == 0 || strcmp (code, "ambiguous") == 0)
    return g_strdup ("warden-cli sessions list shows the sessions there are.");
  if (strcmp (code, "store") == 0)
    return g_strdup ("Check the disk and the session database; warden-cli sessions move-aside "
                     "sets a damaged one aside (with --force, one that opens but holds a "
                     "damaged row).");
  if (strcmp (code, "provider") == 0)
    return g_strdup_printf ("Check the API key, the model and the network, then %s.", resume);
  if (strcmp (code, "not_recorded") == 0)
    return g_strdup_printf ("When the database can be written again, %s; the command runs "
                            "then.", resume);
  if (strcmp (code, "sandbox") == 0)
    return g_strdup_printf ("Start the container engine, or choose another sandbox "
                            "(--sandbox bwrap), then %s; the command runs then.", resume);
  if (strcmp (code, "setup") == 0)
    return g_strdup ("See warden-cli run --help.");
  return g_strdup_printf ("%s continues the session.", resume);
}

/* Says why the run cannot go on: on standard error, and with --json as an
 * error event and the finished event. Returns @status. */
static int
fail (Run          *run,
      int           status,
      const GError *error,
      const char   *message)
{
  warden_cli_error ("%s", message ? message : error->message);
  if (run->json)
    {
      const char *code = code_for (error, status);
      g_autofree char *hint = hint_for (code, run->session_id);

      _warden_cli_json_error (run, code, message ? message : error->message, hint);
      _warden_cli_json_finished (run, "error", 0, NULL, status, NULL, NULL);
    }
  return status;
}

/* An error the run ends with: on standard error, and with --json as an
 * error event (the finished event follows when the sandbox is gone). */
static void
report_error (Run          *run,
              int           status,
              const GError *error)
{
  warden_cli_error ("%s", error->message);
  if (run->json)
    {
      const char *code = code_for (error, status);
      g_autofree char *hint = hint_for (code, run->session_id);

      _warden_cli_json_error (run, code, error->message, hint);
    }
}

/* Always allow copied a built-in profile: the copy is where new runs
 * start, here and in the window, when the built-in one was the default. */
static void
profile_copied_cb (WardenAgent *agent,
                   const char  *from,
                   const char  *to,
                   const char  *path,
                   Run         *run)
{
  g_autofree char *shown = warden_printable (path, -1, 0);
  g_autofree char *message = NULL;
  g_autofree char *current = run->settings
                             ? g_settings_get_string (run->settings, "default-profile") : NULL;

  if (current != NULL && (g_strcmp0 (current, from) == 0 || g_strcmp0 (current, to) == 0))
    {
      g_settings_set_string (run->settings, "default-profile", to);
      g_settings_sync ();
      message = g_strdup_printf ("always allow saved into your profile %s (%s); new sessions, "
                                 "here and in the window, use it", to, shown);
    }
  else
    message = g_strdup_printf ("always allow saved into your profile %s (%s); this session uses "
                               "it, new runs with --profile %s", to, shown, to);
  warden_cli_error ("%s", message);
  if (run->json)
    _warden_cli_json_notice (run, message);
}

/* libsecret would start a bus of its own (or wait for one) where there is
 * none: over ssh and in CI the keyring is not asked at all. */
static gboolean
session_bus_reachable (void)
{
  g_autofree char *bus = NULL;

  if (g_getenv ("DBUS_SESSION_BUS_ADDRESS") != NULL)
    return TRUE;
  bus = g_build_filename (g_get_user_runtime_dir (), "bus", NULL);
  return g_file_test (bus, G_FILE_TEST_EXISTS);
}

/* The provider a session goes on with: the one it was recorded with, but for
 * what the flags change (another provider takes its own model and address). */
static WardenLlmProvider *
provider_for_session (WardenSessionRecord  *info,
                      const char         *name,
                      const char         *model,
                      const char         *base_url,
                      GError            **error)
{
  gboolean same = name == NULL || g_strcmp0 (name, info->provider) == 0;

  return warden_llm_provider_new_from_env (name ? name : info->provider,
                                           model ? model : same ? info->model : NULL,
                                           base_url ? base_url : same ? info->base_url : NULL,
                                           error);
}

/* Runs @task (NULL: goes on with the session as it was left) until the
 * model ends its turn, answering what it asks on the way; then @followup
 * (may be NULL), the next user turn. A question left waiting is answered
 * first: a new message waits for it. Sets @reason (for the finished event)
 * and @pending; returns the exit status. Takes @task and @followup. */
int
_warden_cli_run_turn (Run          *run,
                      WardenAgent  *agent,
                      char         *task,
                      const char  **reason,
                      const char  **pending)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *followup = NULL;
  int status = 0;

  *reason = "done";
  *pending = NULL;
  run->turns++;
  /* A new message would drop what waits (as a call cut short): it is
   * asked again first, and nothing is lost. */
  if (task != NULL && (warden_agent_get_pending (agent) != NULL || run->waiting_at_open))
    followup = g_steal_pointer (&task);
  run->waiting_at_open = FALSE;

  for (;;)
    {
      WardenAgentOutcome outcome = WARDEN_AGENT_FINISHED;

      warden_agent_run_async (agent, task, run->cancellable, result_cb, run);
      g_clear_pointer (&task, g_free);
      g_main_loop_run (run->loop);
      if (!warden_agent_run_finish (agent, run->result, &outcome, &error))
        {
          end_text (run);
          if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            {
              status = report_stop (run, warden_agent_get_session_id (agent));
              *reason = status == EXIT_NO_ANSWER ? "pending" : "interrupted";
            }
          else
            {
              status = error->domain == WARDEN_LLM_ERROR ? EXIT_PROVIDER
                       : g_error_matches (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_LOST)
                       ? EXIT_IN_USE
                       : g_error_matches (error, WARDEN_AGENT_ERROR, WARDEN_AGENT_ERROR_SANDBOX)
                       ? WARDEN_CLI_EXIT_USAGE : EXIT_FAILED;
              report_error (run, status, error);
              *reason = "error";
            }
          break;
        }
      g_clear_object (&run->result);
      if (outcome == WARDEN_AGENT_WAITING)
        {
          PromptResult answered = _warden_cli_decide (run, agent,
                                                      run->json ? _warden_cli_json_answer
                                                                : answer_pending);

          if (answered == PROMPT_ANSWERED)
            continue;
          if (answered == PROMPT_NO_ANSWER)
            {
              warden_cli_error ("%s; it waits: continue with warden-cli run --resume %s",
                                run->left_pending ? "left pending (--on-question pending)"
                                                  : "no answer (end of input)",
                                warden_agent_get_session_id (agent));
              status = EXIT_NO_ANSWER;
              *reason = "pending";
              *pending = warden_approval_get_id (warden_agent_get_pending (agent));
            }
          else if (answered == PROMPT_STOPPED)
            {
              status = report_stop (run, warden_agent_get_session_id (agent));
              *reason = "interrupted";
              *pending = warden_approval_get_id (warden_agent_get_pending (agent));
            }
          else
            {
              status = run->lease_lost ? EXIT_IN_USE : EXIT_FAILED;
              *reason = "error";
            }
          break;
        }
      end_text (run);
      if (outcome == WARDEN_AGENT_FINISHED && run->write_errno == 0 && followup != NULL)
        {
          task = g_steal_pointer (&followup);
          continue;
        }
      if (run->write_errno != 0)
        {
          status = report_stop (run, warden_agent_get_session_id (agent));
          *reason = "error";
        }
      else if (outcome == WARDEN_AGENT_MAX_STEPS)
        {
          if (run->chat)
            warden_cli_error ("stopped after %u steps; send a message to go on",
                              warden_agent_get_steps (agent));
          else
            warden_cli_error ("stopped after %u steps; continue with warden-cli run --resume %s",
                              warden_agent_get_steps (agent), warden_agent_get_session_id (agent));
          status = EXIT_MAX_STEPS;
          *reason = "max_steps";
        }
      break;
    }

  g_clear_object (&run->result);
  return status;
}

static int
run_main (int       argc,
          char    **argv,
          gboolean  chat)
{
  g_autofree char *provider_name = NULL;
  g_autofree char *model = NULL;
  g_autofree char *base_url = NULL;
  g_autofree char *profile = NULL;
  g_autofree char *sandbox = NULL;
  g_autofree char *image = NULL;
  g_autofree char *network = NULL;
  g_autofree char *workspace = NULL;
  g_autofree char *resume = NULL;
  WardenSandboxKind sandbox_kind = WARDEN_SANDBOX_KIND_AUTO;
  WardenNetworkMode network_mode = WARDEN_NETWORK_NONE;
  int max_steps = 0;
  gboolean raw_output = FALSE;
  gboolean json = FALSE;
  int idle_timeout = -1;
  int waiting_notice = -1;
  int max_retries = -1;
  int context_window = -1;
  g_autofree char *approve_with = NULL;
  g_autofree char *approve_path = NULL;
  g_autofree char *on_question = NULL;
  int approve_timeout = 30;
  GOptionEntry entries[] = {
    { "provider", 0, 0, G_OPTION_ARG_STRING, &provider_name, "anthropic or openai", "NAME" },
    { "model", 0, 0, G_OPTION_ARG_STRING, &model, "The model", "MODEL" },
    { "base-url", 0, 0, G_OPTION_ARG_STRING, &base_url, "The API's address", "URL" },
    { "profile", 'p', 0, G_OPTION_ARG_STRING, &profile,
      "Allowlist profile: an id, or a profile file used as it is (default: the window's "
      "default profile, else node)", "ID|FILE" },
    { "sandbox", 's', 0, G_OPTION_ARG_STRING, &sandbox, "docker, bwrap, host or auto",
      "BACKEND" },
    { "image", 'i', 0, G_OPTION_ARG_STRING, &image, "Docker image", "IMAGE" },
    { "network", 'n', 0, G_OPTION_ARG_STRING, &network,
      "none, allowlist (the profile's hosts, others asked about) or open; default: the profile's",
      "NETWORK" },
    { "workspace", 'w', 0, G_OPTION_ARG_FILENAME, &workspace, "The project (default: here)", "DIR" },
    { "max-steps", 0, 0, G_OPTION_ARG_INT, &max_steps, "Model requests per task (30)", "N" },
    { "idle-timeout", 0, 0, G_OPTION_ARG_INT, &idle_timeout,
      "Give up on a model that sends nothing for this long, and retry (120; 0: never)",
      "SECONDS" },
    { "waiting-notice", 0, 0, G_OPTION_ARG_INT, &waiting_notice,
      "Say so when the model has sent nothing for this long (30; 0: never)", "SECONDS" },
    { "max-retries", 0, 0, G_OPTION_ARG_INT, &max_retries,
      "Retries of a failed or silent model request (5)", "N" },
    { "context-window", 0, 0, G_OPTION_ARG_INT, &context_window,
      "The model's context window: older turns are summarised before a request passes 80% of "
      "it (default: Preferences, else the model's known figure, else 32768; docs/context.md)",
      "TOKENS" },
    { "resume", 'r', 0, G_OPTION_ARG_STRING, &resume,
      "Continue a session: an id, the start of one, or last (its provider, model and settings "
      "unless given); a TASK with it is the next message", "SESSION" },
    { "raw-output", 0, 0, G_OPTION_ARG_NONE, &raw_output,
      "Pass command output to the terminal as it is, cursor moves, clipboard writes and all "
      "(default: colours only; every other control sequence shown escaped)", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      "Events as JSON Lines on standard output, answers as JSON Lines on standard input "
      "(docs/events.md)", NULL },
    { "approve-with", 0, 0, G_OPTION_ARG_FILENAME, &approve_with,
      "Run PROGRAM (outside the sandbox) for each approval: the approval_required event on its "
      "standard input, a decision on its standard output (docs/events.md)", "PROGRAM" },
    { "approve-timeout", 0, 0, G_OPTION_ARG_INT, &approve_timeout,
      "How long the decision program may take before the person is asked (30)", "SECONDS" },
    { "on-question", 0, 0, G_OPTION_ARG_STRING, &on_question,
      "For a run nobody attends: reject every question no program decided, or leave it "
      "pending and exit 6", "reject|pending" },
    { NULL }
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new (chat ? "[TASK]" : "TASK");
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GInputStream) stdin_stream = g_unix_input_stream_new (0, FALSE);
  g_autoptr(WardenLlmProvider) provider = NULL;
  g_autoptr(WardenSessionStore) store = NULL;
  g_autoptr(WardenSessionRecord) resumed = NULL;
  g_autoptr(WardenProfileStore) profiles = NULL;
  g_autoptr(WardenAgent) agent = NULL;
  g_autofree char *empty_id = NULL;
  g_autoptr(GSettings) settings = NULL;
  g_autofree char *task = NULL;
  Run run = { 0 };
  const char *reason = "done";    /* why it stopped, for the finished event */
  const char *pending = NULL;     /* the id of what still waits */
  SignalWatch watches[] = { { &run, SIGINT, 0 }, { &run, SIGTERM, 0 }, { &run, SIGHUP, 0 } };
  int status = 0;

  run.loop = loop;
  run.cancellable = cancellable;
  /* Known before the options parse, so that a usage error is an event too. */
  for (int i = 1; i < argc && strcmp (argv[i], "--") != 0; i++)
    run.json |= strcmp (argv[i], "--json") == 0;
  catch_write_signals (TRUE);
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx, run_description);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return fail (&run, WARDEN_CLI_EXIT_USAGE, NULL, error->message);
  run.json = json;
  run.chat = chat;
  if (!chat && resume == NULL && argc < 2)
    return fail (&run, WARDEN_CLI_EXIT_USAGE, NULL,
                 "give a TASK, or --resume SESSION_ID (and a TASK to go on with)");
  if (network != NULL && !warden_network_mode_from_string (network, &network_mode))
    return fail (&run, WARDEN_CLI_EXIT_USAGE, NULL, "--network is none, allowlist or open");
  if (sandbox != NULL && !warden_sandbox_kind_from_string (sandbox, &sandbox_kind))
    return fail (&run, WARDEN_CLI_EXIT_USAGE, NULL, "--sandbox is docker, bwrap, host or auto");
  if (!_warden_cli_decide_setup (&run, approve_with, approve_timeout, on_question, &error))
    return fail (&run, WARDEN_CLI_EXIT_USAGE, NULL, error->message);
  approve_path = run.approve_with;
  if (max_steps < 0)
    return fail (&run, WARDEN_CLI_EXIT_USAGE, NULL,
                 "--max-steps takes a number of steps, 1 or more");
  if (context_window != -1 && context_window < MIN_CONTEXT_WINDOW)
    return fail (&run, WARDEN_CLI_EXIT_USAGE, NULL,
                 "--context-window takes a number of tokens, " G_STRINGIFY (MIN_CONTEXT_WINDOW)
                 " or more: the tools and the system prompt alone take about 2000");
  if (resume != NULL && workspace != NULL)
    return fail (&run, WARDEN_CLI_EXIT_USAGE, NULL,
                 "a resumed session keeps its workspace: leave out --workspace");
  if (resume != NULL)
    run.session_id = resume;
  if (argc >= 2)
    task = g_strjoinv (" ", argv + 1);
  if (profile != NULL && (strchr (profile, '/') != NULL || g_str_has_suffix (profile, ".json")))
    {
      /* A file (a CI job's own profile): used as it is, by its absolute
       * path, so that a resumed session reads the same file. */
      g_autofree char *path = g_canonicalize_filename (profile, NULL);
      g_autoptr(WardenProfile) loaded = warden_cli_load_profile (path, &error);

      if (loaded == NULL)
        return fail (&run, WARDEN_CLI_EXIT_USAGE, error, NULL);
      g_free (profile);
      profile = g_steal_pointer (&path);
    }

  /* What the window's Preferences set: the model, the default profile. */
  settings = warden_llm_settings_new ();
  run.settings = settings;
  /* A new session's: a resumed one keeps its own unless --profile says. */
  if (profile == NULL && settings != NULL && resume == NULL)
    profile = g_settings_get_string (settings, "default-profile");
  /* 0 there: the model's own figure. */
  if (context_window == -1)
    context_window = settings != NULL ? (int) g_settings_get_uint (settings, "context-window")
                                      : 0;

  store = warden_session_store_new (NULL, &error);
  if (store == NULL)
    return fail (&run, status_for (error), error, NULL);
  if (resume != NULL)
    {
      /* "last" or the start of an id: the whole id from here on. */
      g_autofree char *id = warden_session_store_resolve_id (store, resume, &error);

      if (id == NULL)
        return fail (&run, status_for (error), error, NULL);
      g_free (resume);
      resume = g_steal_pointer (&id);
      run.session_id = resume;
      run.resumed = TRUE;
      resumed = warden_session_store_get_session (store, resume, &error);
      if (resumed == NULL)
        return fail (&run, status_for (error), error, NULL);
      run.waiting_at_open = g_strcmp0 (resumed->state, "waiting") == 0;
    }

  if (resumed != NULL && resumed->provider != NULL)
    provider = provider_for_session (resumed, provider_name, model, base_url, &error);
  else
    provider = warden_llm_provider_new_from_env (provider_name, model, base_url, &error);
  if (provider == NULL && provider_name == NULL && resumed == NULL &&
      g_error_matches (error, WARDEN_LLM_ERROR, WARDEN_LLM_ERROR_NOT_CONFIGURED))
    {
      /* Nothing in the environment: the model chosen in the window's
       * Preferences, its key from the keyring; with none, a local Ollama. */
      g_autoptr(WardenCredentials) credentials = session_bus_reachable ()
                                                 ? warden_credentials_new () : NULL;
      g_autoptr(GError) settings_error = NULL;

      warden_llm_provider_new_for_settings_async (settings, credentials, model, base_url, NULL,
                                                  result_cb, &run);
      g_main_loop_run (loop);
      provider = warden_llm_provider_new_for_settings_finish (run.result, &settings_error);
      g_clear_object (&run.result);
      if (provider != NULL)
        {
          g_clear_error (&error);
          fprintf (stderr, "warden-cli: no API key in the environment; using %s with model %s "
                   "at %s (Warden's Preferences and keyring, or a local Ollama; set "
                   "ANTHROPIC_API_KEY or OPENAI_API_KEY for another)\n",
                   warden_llm_provider_get_name (provider),
                   warden_llm_provider_get_model (provider),
                   warden_llm_provider_get_base_url (provider));
        }
      else if (settings != NULL)
        {
          /* What the environment lacks, and what the Preferences lack. */
          g_prefix_error (&error, "%s; ", settings_error->message);
        }
    }
  if (provider == NULL)
    return fail (&run, EXIT_PROVIDER, error, NULL);
  if (idle_timeout >= 0)
    warden_llm_provider_set_idle_timeout (provider, (guint) idle_timeout);
  if (waiting_notice >= 0)
    warden_llm_provider_set_waiting_notice (provider, (guint) waiting_notice);
  if (max_retries >= 0)
    warden_llm_provider_set_max_retries (provider, (guint) max_retries);
  profiles = warden_profile_store_new (NULL);

  if (resume != NULL)
    {
      WardenAgentConfig overrides = { 0 };

      overrides.profile = profile;
      /* auto: the session's own. */
      overrides.sandbox = sandbox_kind;
      overrides.image = image;
      overrides.network = network_mode;
      overrides.network_override = network != NULL;
      overrides.max_steps = (guint) max_steps;
      overrides.context_window = (guint) context_window;
      agent = warden_agent_open (store, profiles, provider, resume, &overrides, &error);
    }
  else
    {
      g_autofree char *here = g_get_current_dir ();
      WardenAgentConfig config = { 0 };

      config.workspace = workspace ? workspace : here;
      config.profile = profile;
      /* Automatic: docker when an engine answers, and bwrap after all when
       * the image cannot be had. */
      config.sandbox_fallback = sandbox_kind == WARDEN_SANDBOX_KIND_AUTO;
      if (sandbox_kind == WARDEN_SANDBOX_KIND_AUTO)
        sandbox_kind = warden_cli_default_backend (loop);
      config.sandbox = sandbox_kind;
      config.image = image;
      config.network = network_mode;
      config.network_override = network != NULL;
      config.max_steps = (guint) max_steps;
      config.context_window = (guint) context_window;
      agent = warden_agent_new (store, profiles, provider, &config, &error);
    }
  if (agent == NULL)
    return fail (&run, status_for (error), error, NULL);
  run.agent = agent;
  {
    g_autoptr(WardenSessionRecord) info = warden_session_store_get_session (
      store, warden_agent_get_session_id (agent), NULL);

    if (run.json)
      _warden_cli_json_session (&run, agent, info, task, resume != NULL);

    /* Every time, new or resumed: nothing else stands between the model and
     * this account but the profile and the user's answers. */
    if (warden_agent_get_sandbox_kind (agent) == WARDEN_SANDBOX_KIND_HOST)
      {
        const char *warning =
          "warning: the host backend runs commands on this computer as you, with no sandbox: "
          "they can read and change all your files, your keys and Warden's own settings. Only "
          "the profile and your answers stand in the way. Use --sandbox bwrap or --sandbox "
          "docker to confine them.";

        warden_cli_error ("%s", warning);
        if (run.json)
          _warden_cli_json_notice (&run, warning);
      }
  }
  /* A price table that does not read: costs go unknown where only it knew
   * them, and the user learns why now, not from a missing figure. */
  {
    g_autoptr(GError) prices_error = NULL;

    warden_llm_prices_get_default (&prices_error);
    if (prices_error != NULL)
      {
        warden_cli_error ("%s", prices_error->message);
        if (run.json)
          _warden_cli_json_notice (&run, prices_error->message);
      }
  }
  fprintf (stderr, "session %s\n", warden_agent_get_session_id (agent));
  print_instructions (agent);
  g_signal_connect (agent, "notify::instructions", G_CALLBACK (instructions_cb), &run);

  run.input = g_data_input_stream_new (stdin_stream);
  run.raw_output = raw_output;
  run.store = store;
  /* https://no-color.org: set and not empty. Never into a file or a pipe. */
  run.colour = !run.json && isatty (STDOUT_FILENO) && g_strcmp0 (g_getenv ("TERM"), "dumb") != 0 &&
               (g_getenv ("NO_COLOR") == NULL || *g_getenv ("NO_COLOR") == '\0');
  /* Colours in a command's output are kept whether or not standard output
   * is a terminal: kept in a file, they show again with cat or less -R, and
   * cannot move or rewrite anything there either. The model's words have
   * no use for them. */
  term_filter_init (&run.text_filter, FALSE);
  _warden_cli_markdown_init (&run.markdown);
  for (guint i = 0; i < G_N_ELEMENTS (run.out_filter); i++)
    term_filter_init (&run.out_filter[i], TRUE);
  if (run.json)
    _warden_cli_json_connect (&run, agent);
  else
    {
      g_signal_connect (agent, "text-delta", G_CALLBACK (text_delta_cb), &run);
      g_signal_connect (agent, "tool-call", G_CALLBACK (tool_call_cb), &run);
      g_signal_connect (agent, "tool-result", G_CALLBACK (tool_result_cb), &run);
      g_signal_connect (agent, "output", G_CALLBACK (output_cb), &run);
      g_signal_connect (agent, "retrying", G_CALLBACK (retrying_cb), &run);
      g_signal_connect (agent, "waiting", G_CALLBACK (waiting_cb), &run);
      g_signal_connect (agent, "compacted", G_CALLBACK (compacted_cb), &run);
    }
  g_signal_connect (agent, "approval", G_CALLBACK (approval_cb), &run);
  g_signal_connect (agent, "approval-withdrawn", G_CALLBACK (approval_withdrawn_cb), &run);
  g_signal_connect (agent, "notify::sandbox-state", G_CALLBACK (sandbox_state_cb), &run);
  g_signal_connect (agent, "profile-copied", G_CALLBACK (profile_copied_cb), &run);
  for (guint i = 0; i < G_N_ELEMENTS (watches); i++)
    watches[i].id = g_unix_signal_add (watches[i].signum, signal_cb, &watches[i]);

  if (chat)
    status = _warden_cli_chat (&run, agent, g_steal_pointer (&task), &reason, &pending);
  else
    status = _warden_cli_run_turn (&run, agent, g_steal_pointer (&task), &reason, &pending);

  g_clear_object (&run.result);

  /* What the turn cost, once it is over (with --json: in finished). */
  if (!run.json && warden_agent_get_turn_usage (agent)->requests > 0)
    {
      g_autofree char *turn = warden_llm_usage_format (warden_agent_get_turn_usage (agent));
      g_autofree char *session = warden_llm_usage_format (warden_agent_get_session_usage (agent));

      /* Translators: "Used 12.3k in · 1.2k out · $0.04 this turn; 40.1k in · 3.0k out · $0.13
       * in the session" */
      warden_cli_error (_("Used %s this turn; %s in the session"), turn, session);
    }

  /* The sandbox goes now, not when the process is gone: a container would
   * stay. A signal meanwhile changes nothing more. */
  {
    g_autoptr(GError) close_error = NULL;

    warden_agent_close_async (agent, NULL, result_cb, &run);
    g_main_loop_run (loop);
    if (!warden_agent_close_finish (agent, run.result, &close_error))
      warden_cli_error ("could not remove the sandbox: %s", close_error->message);
    g_clear_object (&run.result);
  }
  /* A conversation left before its first message: nothing to keep, and
   * "last" must not name it. */
  if (chat && !run.resumed && run.turns == 0 && status == 0)
    {
      g_autoptr(GError) delete_error = NULL;

      empty_id = g_strdup (warden_agent_get_session_id (agent));
      run.session_id = empty_id;
      run.agent = NULL;
      g_clear_object (&agent);  /* its lease too */
      if (!warden_session_store_delete_session (store, empty_id, &delete_error))
        warden_cli_error ("%s", delete_error->message);
    }
  /* Last, after the sandbox went: a script that reads to the end of the
   * events knows the container is gone too. */
  if (run.json)
    _warden_cli_json_finished (&run, reason, agent ? warden_agent_get_steps (agent) : 0, pending,
                               status, agent ? warden_agent_get_turn_usage (agent) : NULL,
                               agent ? warden_agent_get_session_usage (agent) : NULL);
  for (guint i = 0; i < G_N_ELEMENTS (watches); i++)
    g_source_remove (watches[i].id);
  _warden_cli_json_clear (&run);
  g_clear_object (&run.input);
  term_filter_clear (&run.text_filter);
  _warden_cli_markdown_clear (&run.markdown);
  for (guint i = 0; i < G_N_ELEMENTS (run.out_filter); i++)
    term_filter_clear (&run.out_filter[i]);
  return status;
}

int
warden_cli_run (int    argc,
                char **argv)
{
  return run_main (argc, argv, FALSE);
}

int
warden_cli_chat (int    argc,
                 char **argv)
{
  return run_main (argc, argv, TRUE);
}

/* ------------------------------------------------------------------------ */

/* The end of what "sessions" printed: a write that failed is an error. */
static int
sessions_flushed (int status)
{
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      warden_cli_error ("could not write the output: %s", g_strerror (errno != 0 ? errno : EIO));
      return EXIT_FAILED;
    }
  return status;
}

static int
sessions_list (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSessionStore) store = warden_session_store_new (NULL, &error);
  g_autoptr(GPtrArray) list = NULL;

  if (store == NULL || (list = warden_session_store_list_sessions (store, &error)) == NULL)
    {
      warden_cli_error ("%s", error->message);
      return status_for (error);
    }
  for (guint i = 0; i < list->len; i++)
    {
      WardenSessionRecord *s = g_ptr_array_index (list, i);
      g_autoptr(GDateTime) when = g_date_time_new_from_unix_local (s->updated);
      g_autofree char *stamp = when ? g_date_time_format (when, "%Y-%m-%d %H:%M") : g_strdup ("?");

      printf ("%s  %-8s  %s  %s\n", s->id, s->state ? s->state : "?", stamp,
              s->title ? s->title : "");
    }
  return sessions_flushed (0);
}

/* What a write or an edit changed, under its call: escaped like the prompt's. */
static void
print_diff (const char *diff)
{
  g_autofree char *shown = warden_printable (diff, -1, WARDEN_PRINTABLE_KEEP_LINES);
  g_auto(GStrv) lines = g_strsplit (shown, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    if (lines[i][0] != '\0' || lines[i + 1] != NULL)
      printf ("    %s\n", lines[i]);
}

/* The checkpoint before a call, to restore to, and what its command
 * created, changed and deleted. */
static void
print_step (WardenCheckpointRecord *c)
{
  g_autoptr(GPtrArray) changes = NULL;
  g_autofree char *lines = NULL;

  if (c == NULL)
    return;
  printf ("    step %" G_GINT64_FORMAT " (files before it: sessions restore --before %"
          G_GINT64_FORMAT ")\n", c->step, c->step);
  changes = warden_restore_changes_from_json (c->changes_json);
  if (changes == NULL)
    return;
  if (changes->len == 0)
    printf ("    changed no file\n");
  lines = warden_restore_describe_changes (changes, "    ");
  fputs (lines, stdout);
}

static int
sessions_show (const char *spec,
               gboolean    json)
{
  const char *id = spec;
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSessionStore) store = warden_session_store_new (NULL, &error);
  g_autoptr(WardenSessionRecord) s = NULL;
  g_autoptr(GPtrArray) messages = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(GPtrArray) summaries = NULL;
  g_autoptr(GPtrArray) checkpoints = NULL;
  g_autoptr(GHashTable) before = g_hash_table_new (g_str_hash, g_str_equal);

  g_autofree char *whole = NULL;

  /* "last", or the start of an id. */
  if (store != NULL && (whole = warden_session_store_resolve_id (store, spec, &error)) != NULL)
    id = whole;
  if (store == NULL || whole == NULL ||
      (s = warden_session_store_get_session (store, id, &error)) == NULL ||
      (messages = warden_session_store_load_messages (store, id, &error)) == NULL ||
      (calls = warden_session_store_list_tool_calls (store, id, &error)) == NULL ||
      (summaries = warden_session_store_list_compactions (store, id, &error)) == NULL ||
      (checkpoints = warden_session_store_list_checkpoints (store, id, &error)) == NULL)
    {
      warden_cli_error ("%s", error->message);
      return status_for (error);
    }
  /* The checkpoint each call comes before, by its id. */
  for (guint i = 0; i < checkpoints->len; i++)
    {
      WardenCheckpointRecord *c = g_ptr_array_index (checkpoints, i);

      if (c->tool_use_id != NULL)
        g_hash_table_insert (before, c->tool_use_id, c);
    }

  if (json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autofree char *text = NULL;

      json_builder_begin_object (b);
#define MEMBER(k, v) G_STMT_START { json_builder_set_member_name (b, k); \
  if (v) json_builder_add_string_value (b, v); else json_builder_add_null_value (b); } G_STMT_END
      MEMBER ("id", s->id);
      MEMBER ("title", s->title);
      MEMBER ("state", s->state);
      MEMBER ("workspace", s->workspace);
      MEMBER ("profile", s->profile);
      MEMBER ("provider", s->provider);
      MEMBER ("model", s->model);
      MEMBER ("base_url", s->base_url);
      MEMBER ("sandbox", s->sandbox);
      json_builder_set_member_name (b, "input_tokens");
      json_builder_add_int_value (b, s->usage.input_tokens);
      json_builder_set_member_name (b, "output_tokens");
      json_builder_add_int_value (b, s->usage.output_tokens);
      {
        JsonObject *usage = json_object_new ();

        warden_llm_usage_to_json (&s->usage, usage);
        json_builder_set_member_name (b, "usage");
        json_builder_add_value (b, json_node_init_object (json_node_alloc (), usage));
        json_object_unref (usage);
      }
      json_builder_set_member_name (b, "messages");
      json_builder_begin_array (b);
      for (guint i = 0; i < messages->len; i++)
        {
          const char *stored = g_ptr_array_index (messages, i);
          JsonNode *node = json_from_string (stored, NULL);

          /* A row that does not parse is shown as it is, not dropped. */
          if (node != NULL)
            json_builder_add_value (b, node);
          else
            json_builder_add_string_value (b, stored);
        }
      json_builder_end_array (b);
      json_builder_set_member_name (b, "tool_calls");
      json_builder_begin_array (b);
      for (guint i = 0; i < calls->len; i++)
        {
          WardenToolCallRecord *r = g_ptr_array_index (calls, i);

          json_builder_begin_object (b);
          MEMBER ("id", r->tool_use_id);
          MEMBER ("name", r->name);
          /* A question a command asked while it ran: program or host, and the command. */
          MEMBER ("kind", r->kind);
          MEMBER ("parent", r->parent_id);
          MEMBER ("input", r->input_json);
          MEMBER ("state", r->state);
          MEMBER ("decision", r->decision);
          MEMBER ("decided_by", r->decided_by);
          MEMBER ("pattern", r->pattern);
          MEMBER ("reason", r->reason);
          MEMBER ("feedback", r->feedback);
          MEMBER ("result", r->result_json);
          MEMBER ("diff", r->diff);
          /* Why it ended (or why its run was cut before it started), and
           * whether it started; null in rows from before they were kept. */
          MEMBER ("ended_by", r->ended_by);
          json_builder_set_member_name (b, "started");
          if (r->began >= 0)
            json_builder_add_boolean_value (b, r->began != 0);
          else
            json_builder_add_null_value (b);
          /* The checkpoint before it, and what its command changed. */
          {
            WardenCheckpointRecord *c = g_hash_table_lookup (before, r->tool_use_id);
            g_autoptr(GPtrArray) changes = NULL;

            json_builder_set_member_name (b, "step");
            if (c != NULL)
              json_builder_add_int_value (b, c->step);
            else
              json_builder_add_null_value (b);
            json_builder_set_member_name (b, "changes");
            if (c != NULL && (changes = warden_restore_changes_from_json (c->changes_json)))
              warden_restore_add_changes (b, changes);
            else
              json_builder_add_null_value (b);
          }
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_set_member_name (b, "checkpoints");
      json_builder_begin_array (b);
      for (guint i = 0; i < checkpoints->len; i++)
        {
          WardenCheckpointRecord *c = g_ptr_array_index (checkpoints, i);

          json_builder_begin_object (b);
          json_builder_set_member_name (b, "step");
          json_builder_add_int_value (b, c->step);
          MEMBER ("tool_call", c->tool_use_id);
          json_builder_set_member_name (b, "restored_to");
          if (c->restored_to > 0)
            json_builder_add_int_value (b, c->restored_to);
          else
            json_builder_add_null_value (b);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      /* What the model was sent instead of the older messages, oldest first. */
      json_builder_set_member_name (b, "summaries");
      json_builder_begin_array (b);
      for (guint i = 0; i < summaries->len; i++)
        {
          WardenCompactionRecord *c = g_ptr_array_index (summaries, i);

          json_builder_begin_object (b);
          json_builder_set_member_name (b, "summarised");
          json_builder_add_int_value (b, c->upto);
          MEMBER ("reason", c->reason);
          json_builder_set_member_name (b, "time");
          json_builder_add_int_value (b, c->created);
          json_builder_set_member_name (b, "tokens_before");
          json_builder_add_int_value (b, c->tokens_before);
          json_builder_set_member_name (b, "tokens_after");
          json_builder_add_int_value (b, c->tokens_after);
          MEMBER ("summary", c->summary);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
#undef MEMBER
      /* A command's output or a file can hold any bytes; the JSON stays valid. */
      text = warden_json_builder_to_string (b, TRUE);
      printf ("%s\n", text);
      return sessions_flushed (0);
    }

  /* The title, the tool calls and their feedback came from a model or a
   * user's terminal: shown, not obeyed, as in "run". */
  {
    g_autofree char *title = one_line (s->title);

    printf ("session %s: %s\n", s->id, title);
  }
  printf ("state %s, workspace %s, profile %s, %s/%s in %s\n", s->state, s->workspace,
          s->profile, s->provider, s->model, s->sandbox);
  {
    g_autofree char *used = warden_llm_usage_format (&s->usage);

    printf ("usage: %s\n", used);
  }
  for (guint i = 0; i < calls->len; i++)
    {
      WardenToolCallRecord *r = g_ptr_array_index (calls, i);
      g_autofree char *name = one_line (r->name);
      g_autofree char *input = one_line (r->input_json);
      g_autofree char *feedback = one_line (r->feedback);

      /* What a command asked while it ran stands under it. */
      printf ("%s%-8s %-9s %-16s %s%s%s\n", r->parent_id ? "    " : "  ", name,
              r->state ? r->state : "",
              r->decision ? r->decision : "", input, r->feedback ? "  feedback: " : "",
              feedback);
      if (r->diff != NULL)
        print_diff (r->diff);
      print_step (g_hash_table_lookup (before, r->tool_use_id));
    }
  for (guint i = 0; i < checkpoints->len; i++)
    {
      WardenCheckpointRecord *c = g_ptr_array_index (checkpoints, i);

      if (c->tool_use_id == NULL)
        printf ("  step %" G_GINT64_FORMAT ": the files were restored to before step %"
                G_GINT64_FORMAT "\n", c->step, c->restored_to);
    }
  /* The model's words: shown, with their control characters escaped. */
  for (guint i = 0; i < summaries->len; i++)
    {
      WardenCompactionRecord *c = g_ptr_array_index (summaries, i);
      g_autofree char *shown = warden_printable (c->summary, -1, WARDEN_PRINTABLE_KEEP_LINES);

      printf ("earlier conversation summarised (%u messages, %s):\n%s\n", c->upto, c->reason,
              shown);
    }
  return sessions_flushed (0);
}

/* A damaged database blocks every command: it goes aside, kept for
 * recovery, and the next command starts a new one. Any other is left alone
 * unless @force: moving one that opens would hide every session, and one
 * that is busy is in use by a running Warden. */
static int
sessions_move_aside (gboolean force)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *moved_to = NULL;

  if (!force)
    {
      g_autoptr(WardenSessionStore) store = warden_session_store_new (NULL, &error);

      if (store != NULL)
        {
          warden_cli_error ("the database at %s opens and reads; it stays (--force moves it "
                            "aside anyway)", warden_session_store_get_path (store));
          return WARDEN_CLI_EXIT_USAGE;
        }
      if (!g_error_matches (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_CORRUPT) &&
          !g_error_matches (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_OPEN))
        {
          warden_cli_error ("%s; the database is not damaged, so it stays (--force moves it "
                            "aside anyway)", error->message);
          return status_for (error);
        }
      g_clear_error (&error);
    }
  if (!warden_session_store_move_aside (NULL, &moved_to, &error))
    {
      warden_cli_error ("%s", error->message);
      return EXIT_FAILED;
    }
  printf ("moved the database aside to %s; the next command starts a new one\n", moved_to);
  return sessions_flushed (0);
}

/* The way out of a lease whose owner is gone but cannot be checked from
 * here; it says what it risks. */
static int
sessions_release (const char *spec,
                  gboolean    force)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSessionStore) store = warden_session_store_new (NULL, &error);
  g_autofree char *was = NULL;
  g_autofree char *whole = NULL;
  gboolean maybe_alive = FALSE;
  const char *id = spec;

  if (store != NULL && (whole = warden_session_store_resolve_id (store, spec, &error)) != NULL)
    id = whole;
  if (store == NULL || whole == NULL ||
      !warden_session_store_release_any (store, id, force, &was, &maybe_alive, &error))
    {
      warden_cli_error ("%s", error->message);
      return status_for (error);
    }
  if (was == NULL)
    printf ("no Warden holds session %s; it can be resumed\n", id);
  else
    {
      if (maybe_alive)
        warden_cli_error ("released session %s from %s. If that Warden still runs, it stops "
                          "at its next step and starts nothing more, but a command it had "
                          "started goes on and its result is not recorded: check the "
                          "workspace before you resume", id, was);
      printf ("released session %s; warden-cli run --resume %s continues it\n", id, id);
    }
  return sessions_flushed (0);
}

/* The files back as they were before a step. It holds the session's lease
 * while it works: a Warden that has the session (a command may run) makes
 * it refuse, and nothing of the session starts meanwhile. */
static int
sessions_restore (const char *id,
                  const char *step_arg)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WardenSessionStore) store = warden_session_store_new (NULL, &error);
  g_autoptr(WardenSessionRecord) s = NULL;
  g_autoptr(WardenCheckpointRecord) step = NULL;
  g_autoptr(GPtrArray) changes = NULL;
  g_autofree char *lines = NULL;
  gint64 new_step = 0;
  gboolean ok;

  if (store == NULL || (s = warden_session_store_get_session (store, id, &error)) == NULL)
    {
      warden_cli_error ("%s", error->message);
      return status_for (error);
    }
  if (!warden_session_store_acquire (store, id, "warden-cli", NULL, &error))
    {
      if (g_error_matches (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_IN_USE))
        warden_cli_error ("the files of session %s are not restored: %s. A command of it may "
                          "be running; stop it or close the session there, then restore "
                          "again", id, error->message);
      else
        warden_cli_error ("%s", error->message);
      return status_for (error);
    }
  /* The profile's own protected names are protected here too. */
  {
    g_autoptr(WardenProfileStore) profiles = warden_profile_store_new (NULL);
    g_autoptr(WardenProfile) profile = warden_profile_store_lookup (profiles, s->profile, NULL);
  }
  if ((step = warden_restore_find_step (store, id, step_arg, &error)) == NULL)
    {
      warden_session_store_release (store, id);
      warden_cli_error ("%s", error->message);
      return status_for (error);
    }
  ok = warden_restore_run (store, id, s->workspace, step, &new_step, &changes, &error);
  warden_session_store_release (store, id);
  if (!ok)
    {
      if (new_step > 0)
        warden_cli_error ("the restore stopped half-way: %s. What it changed is undone with "
                          "warden-cli sessions restore %s --before %" G_GINT64_FORMAT,
                          error->message, id, new_step);
      else
        warden_cli_error ("%s", error->message);
      return EXIT_FAILED;
    }
  printf ("restored the files of session %s to before step %" G_GINT64_FORMAT "\n", id,
          step->step);
  lines = warden_restore_describe_changes (changes, "  ");
  if (changes->len == 0)
    printf ("  nothing changed: the files were as they were then\n");
  fputs (lines, stdout);
  printf ("this restore is step %" G_GINT64_FORMAT "; warden-cli sessions restore %s --before %"
          G_GINT64_FORMAT " undoes it. The agent is told in its next turn.\n", new_step, id,
          new_step);
  return sessions_flushed (0);
}

int
warden_cli_sessions (int    argc,
                     char **argv)
{
  catch_write_signals (FALSE);
  if (argc == 2 && strcmp (argv[1], "list") == 0)
    return sessions_list ();
  if ((argc == 3 || argc == 4) && strcmp (argv[1], "show") == 0)
    {
      gboolean json = argc == 4 && strcmp (argv[3], "--json") == 0;

      if (argc == 4 && !json)
        {
          warden_cli_error ("usage: warden-cli sessions show SESSION_ID [--json]");
          return WARDEN_CLI_EXIT_USAGE;
        }
      return sessions_show (argv[2], json);
    }
  if ((argc == 2 || (argc == 3 && strcmp (argv[2], "--force") == 0)) &&
      strcmp (argv[1], "move-aside") == 0)
    return sessions_move_aside (argc == 3);
  if ((argc == 3 || (argc == 4 && strcmp (argv[3], "--force") == 0)) &&
      strcmp (argv[1], "release") == 0)
    return sessions_release (argv[2], argc == 4);
  if (argc == 5 && strcmp (argv[1], "restore") == 0 && strcmp (argv[3], "--before") == 0)
    return sessions_restore (argv[2], argv[4]);
  warden_cli_error ("usage: warden-cli sessions list | show SESSION_ID [--json] | "
                    "release SESSION_ID [--force] | restore SESSION_ID --before STEP | "
                    "move-aside [--force]");
  return WARDEN_CLI_EXIT_USAGE;
}
