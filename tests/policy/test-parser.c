/* test-parser.c: what the bash parser finds in a command line
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <pthread.h>
#include <string.h>

#include "policy/warden-shell-parser.h"

/* Each expected part is "ORIGIN:TEXT", with a leading '?' when the part asks
 * whatever the patterns say. "!" alone means the line must not parse. */
typedef struct
{
  const char *command;
  const char *parts[10];
} ParseCase;

static const ParseCase cases[] = {
  /* Separators and lists */
  { "ls", { "top:ls" } },
  { "ls -la /tmp", { "top:ls -la /tmp" } },
  { "ls; rm -rf ~", { "top:ls", "top:rm -rf ~" } },
  { "a & b", { "top:a", "top:b" } },
  { "a && b || c", { "top:a", "top:b", "top:c" } },
  { "a | b |& c", { "top:a", "top:b", "top:c" } },
  { "a\nb\n\nc", { "top:a", "top:b", "top:c" } },
  { "a &&\n b", { "top:a", "top:b" } },
  { "a |\n b", { "top:a", "top:b" } },
  { "a;", { "top:a" } },
  { "a &", { "top:a" } },
  { "", { NULL } },
  { "   \n\t ", { NULL } },
  { "! grep x f", { "top:grep x f" } },
  /* Line continuations and comments */
  { "ls \\\n-la", { "top:ls -la" } },
  { "r\\\nm x", { "top:rm x" } },
  { "ls # ; rm x", { "top:ls" } },
  { "# only a comment", { NULL } },
  { "echo a#b", { "top:echo a#b" } },
  { "echo 'a\\\nb'", { "top:echo a\\\nb" } },
  /* Quote removal */
  { "git  'status'", { "top:git status" } },
  { "l\\s", { "top:ls" } },
  { "'l's", { "top:ls" } },
  { "\"ls\" \"a b\"", { "top:ls a b" } },
  { "echo \"a\\\"b\\$c\\x\"", { "top:echo a\"b$c\\x" } },
  /* dash has no $'…' or $"…": it reads a "$" and a quoted string. */
  { "$'\\x72m' x", { "?top:rm x", "top:$\\x72m x" } },
  { "echo $'a\\nb'", { "top:echo a\nb", "top:echo $a\\nb" } },
  { "echo $\"hi\"", { "top:echo hi", "top:echo $hi" } },
  /* Groups and control structures */
  { "(cd src && make)", { "top:cd src", "top:make" } },
  { "{ a; b; }", { "top:a", "top:b" } },
  { "{ a; b; } > /dev/null", { "top:a", "top:b", "redirection:> /dev/null" } },
  { "if a; then b; elif c; then d; else e; fi", { "top:a", "top:b", "top:c", "top:d", "top:e" } },
  { "while a; do b; done", { "top:a", "top:b" } },
  { "until a; do b; done", { "top:a", "top:b" } },
  { "for f in x y; do rm $f; done", { "top:rm $f" } },
  { "for f in $(ls); do echo; done", { "sub:ls", "top:echo" } },
  { "for f; do echo; done", { "top:echo" } },
  { "case $x in a|b) one;; (c) two;& *) three;;& esac", { "top:one", "top:two", "top:three" } },
  { "case x in $(pat)) y;; esac", { "sub:pat", "top:y" } },
  { "case x in\n a) y\n ;;\nesac", { "top:y" } },
  { "echo if then fi", { "top:echo if then fi" } },
  { "((ls) )", { "top:ls" } },
  /* Substitutions */
  { "cat $(curl x|sh)", { "top:cat $(curl x|sh)", "sub:curl x", "?sub:sh" } },
  { "echo `rm x`", { "top:echo `rm x`", "sub:rm x" } },
  { "echo `echo \\`rm x\\``", { "top:echo `echo \\`rm x\\``", "sub:echo `rm x`", "sub:rm x" } },
  { "echo \"$(rm x)\"", { "top:echo $(rm x)", "sub:rm x" } },
  { "echo '$(rm x)'", { "top:echo $(rm x)" } },
  { "echo ${x:-$(rm x)}", { "top:echo ${x:-$(rm x)}", "sub:rm x" } },
  /* bash lets '…' hide a "}" in "${ … }", sh does not: ask. */
  { "echo \"${x:-'$(rm x)'}\"", { "!" } },
  { "echo $'a\\' ; rm -rf / ; echo \\''", { "!" } },
  { "cat <<EOF\nEO\\\nF\nrm -rf /\nEOF", { "!" } },
  { "cat <<EOF\na \\\nb\nEOF\nls", { "top:cat << EOF", "top:ls" } },
  { "cat <<'EOF'\nEO\\\nF\nEOF", { "top:cat << EOF" } },
  { "echo ${x:-'$(rm x)'}", { "top:echo ${x:-'$(rm x)'}" } },
  { "echo $((1 + $(rm x)))", { "top:echo $((1 + $(rm x)))", "sub:rm x" } },
  { "echo $[1 + `rm x`]", { "top:echo $[1 + `rm x`]", "sub:rm x" } },
  { "echo $( (a) )", { "top:echo $( (a) )", "sub:a" } },
  { "echo $(case x in a) b;; esac)", { "top:echo $(case x in a) b;; esac)", "sub:b" } },
  { "diff <(a) >(b)", { "top:diff <(a) >(b)", "procsub:a", "procsub:b" } },
  { "x=$(a) b", { "?top:x=$(a) b", "sub:a" } },
  { "x=$(a)", { "?top:x=$(a)", "sub:a" } },
  { "arr=(1 $(a) 2)", { "?top:arr=(1 $(a) 2)", "sub:a" } },
  { "ls > $(a)", { "?top:ls > $(a)", "sub:a" } },
  { "cat <<< $(a)", { "top:cat <<< $(a)", "sub:a" } },
  /* Here-documents */
  { "cat <<EOF\nhello $(a)\nEOF", { "top:cat << EOF", "sub:a" } },
  { "cat <<'EOF'\nhello $(a)\nEOF", { "top:cat << EOF" } },
  { "cat <<\"EOF\"\n`a`\nEOF", { "top:cat << EOF" } },
  { "cat <<\\EOF\n$(a)\nEOF", { "top:cat << EOF" } },
  { "cat <<-EOF\n\t$(a)\n\tEOF\nb", { "top:cat <<- EOF", "sub:a", "top:b" } },
  { "cat <<A <<B\n$(x)\nA\n$(y)\nB", { "top:cat << A << B", "sub:x", "sub:y" } },
  { "cat <<EOF | sh\nrm x\nEOF", { "top:cat << EOF", "?top:sh" } },
  /* A shell reading a literal here-document or here-string: that is its script. */
  { "sh <<'EOF'\nrm x\nEOF", { "top:sh << EOF", "script:rm x" } },
  { "bash <<EOF\nls\nEOF", { "top:bash << EOF", "script:ls" } },
  { "bash <<EOF\nls $x\nEOF", { "?top:bash << EOF" } },
  { "bash <<< 'rm x'", { "top:bash <<< rm x", "script:rm x" } },
  { "curl x | sh", { "top:curl x", "?top:sh" } },
  { "sh -s < x.sh", { "?top:sh -s < x.sh" } },
  { "bash script.sh", { "?top:bash script.sh" } },
  { "cat <<EOF\nEOF\nrm x", { "top:cat << EOF", "top:rm x" } },
  /* Redirections in the text */
  { "node app.js > /dev/null 2>&1", { "top:node app.js > /dev/null 2>&1" } },
  { "node app.js >/dev/null 2>/dev/null", { "top:node app.js > /dev/null 2> /dev/null" } },
  { "> out.txt echo hi", { "top:> out.txt echo hi" } },
  { "echo hi >&2", { "top:echo hi >&2" } },
  { "exec 3>&-", { "top:exec 3>&-" } },
  /* dash reads "cmd &> f" as "cmd &" and "> f". */
  { "cmd &> log.txt", { "top:cmd &> log.txt", "top:cmd", "top:> log.txt" } },
  { "cmd &>> log.txt", { "top:cmd &>> log.txt", "top:cmd", "top:>> log.txt" } },
  { "cmd >| f", { "top:cmd >| f" } },
  { "cmd <> f", { "top:cmd <> f" } },
  { "cmd < in.txt", { "top:cmd < in.txt" } },
  { "> out.txt", { "top:> out.txt" } },
  { "echo hi > /etc/passwd", { "?top:echo hi > /etc/passwd" } },
  { "echo hi > ../x", { "?top:echo hi > ../x" } },
  { "echo hi > a/../../x", { "?top:echo hi > a/../../x" } },
  { "echo hi > a/./b/../c", { "top:echo hi > a/./b/../c" } },
  { "echo hi > /workspace/x", { "top:echo hi > /workspace/x" } },
  { "echo hi > /workspace", { "?top:echo hi > /workspace" } },
  { "echo hi > /workspacex/y", { "?top:echo hi > /workspacex/y" } },
  { "echo hi > $F", { "?top:echo hi > $F" } },
  { "echo hi > ~/x", { "?top:echo hi > ~/x" } },
  { "echo hi > *.txt", { "?top:echo hi > *.txt" } },
  { "echo hi >& out", { "top:echo hi >& out" } },
  { "echo hi >& /etc/x", { "?top:echo hi >& /etc/x" } },
  { "echo hi 2> /dev/stderr", { "top:echo hi 2> /dev/stderr" } },
  { "cd x; echo hi > y", { "top:cd x", "?top:echo hi > y" } },
  { "echo hi > y; cd x", { "top:echo hi > y", "top:cd x" } },
  { "for i in 1 2; do echo > y; cd x; done", { "?top:echo > y", "top:cd x" } },
  { "pushd x; echo > /workspace/y", { "top:pushd x", "top:echo > /workspace/y" } },
  /* Wrappers */
  { "nohup node app.js", { "top:nohup node app.js", "wrap:node app.js" } },
  { "env -i -u X A=1 rm x", { "top:env -i -u X A=1 rm x", "wrap:rm x" } },
  { "env", { "top:env" } },
  { "/usr/bin/env rm x", { "top:/usr/bin/env rm x", "wrap:rm x" } },
  { "nice -n 5 make", { "top:nice -n 5 make", "wrap:make" } },
  { "nice -10 make", { "top:nice -10 make", "wrap:make" } },
  { "timeout -s KILL 5 make", { "top:timeout -s KILL 5 make", "wrap:make" } },
  { "timeout --signal=KILL 5s make", { "top:timeout --signal=KILL 5s make", "wrap:make" } },
  { "time -p make", { "top:time -p make", "wrap:make" } },
  { "stdbuf -oL make", { "top:stdbuf -oL make", "wrap:make" } },
  { "setsid -f make", { "top:setsid -f make", "wrap:make" } },
  { "ionice -c 3 make", { "top:ionice -c 3 make", "wrap:make" } },
  { "taskset -c 0 make", { "top:taskset -c 0 make", "wrap:make" } },
  /* In another root "make" is that root's: the line asks (issue 26). */
  { "chroot /srv make", { "?top:chroot /srv make", "wrap:make" } },
  { "sudo -u bob make", { "top:sudo -u bob make", "wrap:make" } },
  { "doas -u bob make", { "top:doas -u bob make", "wrap:make" } },
  { "command make", { "top:command make", "wrap:make" } },
  { "command -v make", { "top:command -v make" } },
  { "builtin echo x", { "top:builtin echo x", "wrap:echo x" } },
  { "exec make", { "top:exec make", "wrap:make" } },
  { "nohup nice timeout 5 rm x", { "top:nohup nice timeout 5 rm x", "wrap:nice timeout 5 rm x",
                                   "wrap:timeout 5 rm x", "wrap:rm x" } },
  { "xargs rm", { "top:xargs rm", "wrap:rm", "wrap:rm" } },
  { "xargs", { "top:xargs", "wrap:echo", "wrap:echo" } },
  { "xargs -0 -n 1 -I{} cp {} dst", { "top:xargs -0 -n 1 -I{} cp {} dst", "wrap:cp {} dst" } },
  { "xargs -P4 -L 1 grep x", { "top:xargs -P4 -L 1 grep x", "wrap:grep x", "wrap:grep x" } },
  { "find . -exec rm {} \\;", { "top:find . -exec rm {} ;", "wrap:rm {}" } },
  { "find . -execdir a {} + -ok b \\;", { "top:find . -execdir a {} + -ok b ;", "wrap:a {}",
                                          "wrap:b" } },
  { "find . -name '*.c'", { "top:find . -name *.c" } },
  { "sh -c 'rm -rf /'", { "top:sh -c rm -rf /", "script:rm -rf /" } },
  { "bash -ec 'a; b'", { "top:bash -ec a; b", "script:a", "script:b" } },
  { "/bin/dash -x -c \"a | b\" name arg", { "top:/bin/dash -x -c a | b name arg", "script:a",
                                            "script:b" } },
  /* zsh is read as sh for the deny list only: its part asks. */
  { "zsh -o errexit -c a", { "?top:zsh -o errexit -c a", "script:a" } },
  { "bash script.sh", { "?top:bash script.sh" } },
  { "sh -c \"$X\"", { "?top:sh -c $X" } },
  { "sh $OPTS", { "?top:sh $OPTS" } },
  { "sh -c 'sh -c \"rm x\"'", { "top:sh -c sh -c \"rm x\"", "script:sh -c rm x", "script:rm x" } },
  { "env $CMD", { "?top:env $CMD" } },
  { "timeout $T rm x", { "?top:timeout $T rm x" } },
  { "env -S 'rm x'", { "?top:env -S rm x" } },
  { "timeout --bogus 5 rm", { "?top:timeout --bogus 5 rm" } },
  { "find . $ACTION", { "?top:find . $ACTION" } },
  /* Always ask */
  { "$CMD x", { "?top:$CMD x" } },
  { "\"$CMD\" x", { "?top:$CMD x" } },
  { "`which ls`", { "?top:`which ls`", "sub:which ls" } },
  { "*.sh", { "?top:*.sh" } },
  { "l? x", { "?top:l? x" } },
  { "[a]b", { "?top:[a]b" } },
  { "{a,b}", { "?top:{a,b}" } },
  { "~/bin/x", { "?top:~/bin/x" } },
  { "[ -f x ]", { "top:[ -f x ]" } },
  { "PATH=/tmp; ls", { "?top:PATH=/tmp", "top:ls" } },
  { "FOO=1 ls", { "?top:FOO=1 ls" } },
  { "f() { rm x; }", { "?top:f ()", "top:rm x" } },
  { "function f { a; }", { "?top:function f", "top:a" } },
  { "eval ls", { "?top:eval ls" } },
  { "source x.sh", { "?top:source x.sh" } },
  { ". x.sh", { "?top:. x.sh" } },
  { "alias ls=rm", { "?top:alias ls=rm" } },
  { "trap 'rm x' EXIT", { "?top:trap rm x EXIT" } },
  { "coproc a", { "?top:coproc", "top:a" } },
  { "(( x++ ))", { "?top:(( x++ ))", "top:x++" } },  /* sh: a command x++ in subshells */
  { "((rm -rf /))", { "?top:((rm -rf /))", "top:rm -rf /" } },
  { "[[ -f x ]] && a", { "?top:[[ -f x ]]", "top:a" } },
  { "[[ $(a) ]]", { "?top:[[ $(a) ]]", "sub:a" } },
  { "let x=1", { "?top:let x=1" } },
  { "export PATH=/tmp", { "?top:export PATH=/tmp" } },
  { "export FOO=1", { "?top:export FOO=1" } },
  { "printf -v PATH /tmp", { "?top:printf -v PATH /tmp" } },
  { "read 'a[$(id)]'", { "?top:read a[$(id)]" } },
  { "select x in a; do b; done", { "?top:select", "top:b" } },
  { "for ((i=0;i<3;i++)); do a; done", { "?top:for ((i=0;i<3;i++))", "top:a" } },
  /* Parse errors */
  { "echo 'abc", { "!" } },
  { "echo \"abc", { "!" } },
  { "echo $(abc", { "!" } },
  { "echo `abc", { "!" } },
  { "echo ${abc", { "!" } },
  { "echo $((1+2", { "!" } },
  { "echo )", { "!" } },
  { "(echo", { "!" } },
  { "if a; then b", { "!" } },
  { "while a; do b", { "!" } },
  { "case x in a) b;;", { "!" } },
  { "{ a; ", { "!" } },
  { "a ;; b", { "!" } },
  { "fi", { "!" } },
  { "cat <<EOF\nno end", { "!" } },
  { "cat <<EOF", { "!" } },
  { "echo @(a)", { "!" } },
  { "[[ 1h", { "!" } },          /* found by the fuzzer: a part without text */
  { "for ((i=0", { "!" } },
  { "| a", { "!" } },
  { "a > ", { "!" } },
};

static const char *
origin_tag (WardenOrigin o)
{
  switch (o)
    {
    case WARDEN_ORIGIN_TOP_LEVEL:            return "top";
    case WARDEN_ORIGIN_SUBSTITUTION:         return "sub";
    case WARDEN_ORIGIN_PROCESS_SUBSTITUTION: return "procsub";
    case WARDEN_ORIGIN_WRAPPER:              return "wrap";
    case WARDEN_ORIGIN_SCRIPT:               return "script";
    case WARDEN_ORIGIN_REDIRECTION:          return "redirection";
    default:                                 return "?";
    }
}

static char *
describe (WardenShellParse *parse)
{
  GString *s = g_string_new (NULL);

  if (parse->error)
    g_string_append_printf (s, "error: %s\n", parse->error);
  for (guint i = 0; i < parse->parts->len; i++)
    {
      const WardenCommandPart *p = g_ptr_array_index (parse->parts, i);

      g_string_append_printf (s, "  %s%s:%s%s%s\n", p->force_ask ? "?" : "",
                              origin_tag (p->origin), p->text,
                              p->force_ask ? "   — " : "", p->force_ask ? p->force_ask : "");
    }
  return g_string_free (s, FALSE);
}

static void
test_case (gconstpointer data)
{
  const ParseCase *c = data;
  g_autoptr(WardenShellParse) parse = warden_shell_parse (c->command, -1, NULL);
  g_autofree char *got = describe (parse);
  gboolean ok = TRUE;
  guint n = 0;

  if (c->parts[0] && strcmp (c->parts[0], "!") == 0)
    ok = parse->error != NULL;
  else if (parse->error)
    ok = FALSE;
  else
    {
      while (n < G_N_ELEMENTS (c->parts) && c->parts[n])
        n++;
      ok = n == parse->parts->len;
      for (guint i = 0; ok && i < n; i++)
        {
          const WardenCommandPart *p = g_ptr_array_index (parse->parts, i);
          g_autofree char *tag = g_strdup_printf ("%s%s:%s", p->force_ask ? "?" : "",
                                                  origin_tag (p->origin), p->text);

          ok = strcmp (tag, c->parts[i]) == 0;
        }
    }

  /* The policy takes a simple command's text length from the parser. */
  for (guint i = 0; i < parse->parts->len; i++)
    {
      const WardenCommandPart *p = g_ptr_array_index (parse->parts, i);

      if (p->text_in_argv)
        g_assert_cmpuint (p->text_len, ==, strlen (p->text));
    }

  if (!ok)
    {
      g_autofree char *want = g_strjoinv ("\n  ", (char **) c->parts);

      g_test_message ("command: %s\nexpected:\n  %s\ngot:\n%s", c->command, want, got);
      g_test_fail ();
    }
}

/* "a &&" at the end: bash would wait for more input; sh -c refuses it. */
static void
test_dangling_operator (void)
{
  const char *lines[] = { "a &&", "a ||", "a |", "a && \n" };

  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autoptr(WardenShellParse) parse = warden_shell_parse (lines[i], -1, NULL);

      g_assert_nonnull (parse->error);
    }
}

static void
test_nul_byte (void)
{
  const char cmd[] = "ls\0; rm -rf /";
  g_autoptr(WardenShellParse) parse = warden_shell_parse (cmd, sizeof cmd - 1, NULL);

  g_assert_nonnull (parse->error);
  g_assert_nonnull (strstr (parse->error, "NUL"));
}

static void
test_limits (void)
{
  g_autoptr(GString) deep = g_string_new (NULL);
  g_autoptr(WardenShellParse) p1 = NULL;
  g_autoptr(WardenShellParse) p2 = NULL;
  g_autoptr(WardenShellParse) p3 = NULL;
  g_autofree char *huge = NULL;
  gint64 start;

  for (guint i = 0; i < 10000; i++)
    g_string_append (deep, "$(");
  start = g_get_monotonic_time ();
  p1 = warden_shell_parse (deep->str, deep->len, NULL);
  g_assert_nonnull (p1->error);
  g_assert_nonnull (strstr (p1->error, "nesting"));

  huge = g_strnfill (1024 * 1024, 'a');
  p2 = warden_shell_parse (huge, -1, NULL);
  g_assert_nonnull (p2->error);
  g_assert_nonnull (strstr (p2->error, "bytes"));

  g_string_truncate (deep, 0);
  for (guint i = 0; i < 5000; i++)
    g_string_append (deep, "a;");
  p3 = warden_shell_parse (deep->str, deep->len, NULL);
  g_assert_nonnull (p3->error);
  g_assert_cmpuint (p3->parts->len, <=, WARDEN_SHELL_MAX_PARTS);

  /* How fast is a figure for the benchmarks (scripts/bench), not a verdict. */
  g_test_message ("limits parsed in %.1f ms", (g_get_monotonic_time () - start) / 1000.0);
}

/* Replacement characters would show the user something else than what runs. */
/* Inputs that stress one recursion or one backtrack each, up to the length
 * limit and past it. Each must be answered (an error asks) without a crash,
 * on a thread whose stack is as small as a worker thread's can be. */
typedef struct
{
  const char *name;
  const char *open;
  const char *middle;
  const char *close;
} Stress;

static const Stress stresses[] = {
  { "dollar-bracket", "$[", "1", "]" },
  { "dollar-paren-paren", "$((", "1", "))" },
  { "arith-or-subshell", "$(((", "ls", ") ) )" },
  { "command-substitution", "$(", "ls", ")" },
  { "quoted-substitution", "\"$(", "ls", ")\"" },
  { "parameter-default", "${x:-", "y", "}" },
  { "quoted-parameter", "\"${x:-", "y", "}\"" },
  { "subshell", "(", "ls", ")" },
  { "double-paren", "((", "ls", ") )" },
  { "brace-group", "{ ", "ls", "; }" },
  { "if", "if ", "ls", "; then ls; fi" },
  { "process-substitution", "<(", "ls", ")" },
  { "backtick-escapes", "`", "ls", "`" },
  { "quoted-arith", "$((\"", "1", "\"))" },
  { "sh-c", "sh -c '", "ls", "'" },
  { "ansi-c", "$'\\x41", "", "'" },
  { "heredocs", "cat <<E ", "", "" },
  { "amp-greater", "ls &>/dev/null ", "", "" },
};

typedef struct
{
  const char *input;
  gsize       len;
  gboolean    answered;
} StressRun;

static gpointer
stress_thread (gpointer data)
{
  StressRun *run = data;
  WardenShellParse *parse = warden_shell_parse (run->input, run->len, NULL);

  run->answered = parse->error != NULL || parse->parts != NULL;
  warden_shell_parse_free (parse);
  return NULL;
}

static void
test_stress (void)
{
  gsize sizes[] = { 64, 4096, 90 * 1024, 256 * 1024, 1024 * 1024 };

  for (guint k = 0; k < G_N_ELEMENTS (stresses); k++)
    for (guint z = 0; z < G_N_ELEMENTS (sizes); z++)
      {
        const Stress *st = &stresses[k];
        g_autoptr(GString) in = g_string_new ("echo ");
        gsize per = strlen (st->open) + strlen (st->close);
        guint n = (sizes[z] - strlen (st->middle)) / MAX (per, 1);
        StressRun run = { 0 };
        pthread_attr_t attr;
        pthread_t thread;
        gint64 t0;

        for (guint i = 0; i < n; i++)
          g_string_append (in, st->open);
        g_string_append (in, st->middle);
        for (guint i = 0; i < n; i++)
          g_string_append (in, st->close);
        run.input = in->str;
        run.len = in->len;

        /* 256 KiB: musl's default is 128 KiB, GLib's thread pools use the
         * system's, and the GUI checks on worker threads. */
        pthread_attr_init (&attr);
        pthread_attr_setstacksize (&attr, 256 * 1024);
        t0 = g_get_monotonic_time ();
        g_assert_cmpint (pthread_create (&thread, &attr, stress_thread, &run), ==, 0);
        pthread_join (thread, NULL);
        pthread_attr_destroy (&attr);
        g_assert_true (run.answered);
        /* A figure, not an assertion: the suite runs on busy machines and
         * under valgrind. scripts/bench prints the same figures. */
        g_test_message ("%s, %" G_GSIZE_FORMAT " bytes: %.1f ms", st->name, in->len,
                        (g_get_monotonic_time () - t0) / 1000.0);
      }
}

static void
test_invalid_utf8 (void)
{
  g_autoptr(WardenShellParse) parse = warden_shell_parse ("echo \xff\xfe; ls", -1, NULL);

  g_assert_nonnull (parse->error);
  g_assert_nonnull (strstr (parse->error, "UTF-8"));
}

static void
test_workspace_option (void)
{
  WardenShellOptions opts = { "/home/me/project", FALSE };
  WardenShellOptions outside = { "/home/me/project", TRUE };
  g_autoptr(WardenShellParse) a = warden_shell_parse ("echo > /home/me/project/x", -1, &opts);
  g_autoptr(WardenShellParse) b = warden_shell_parse ("echo > /workspace/x", -1, &opts);
  g_autoptr(WardenShellParse) c = warden_shell_parse ("echo > x", -1, &outside);
  g_autoptr(WardenShellParse) d = warden_shell_parse ("echo > /home/me/project/x", -1, &outside);

  g_assert_null (((WardenCommandPart *) g_ptr_array_index (a->parts, 0))->force_ask);
  g_assert_nonnull (((WardenCommandPart *) g_ptr_array_index (b->parts, 0))->force_ask);
  g_assert_nonnull (((WardenCommandPart *) g_ptr_array_index (c->parts, 0))->force_ask);
  g_assert_null (((WardenCommandPart *) g_ptr_array_index (d->parts, 0))->force_ask);
}

static void
test_holes (void)
{
  g_autoptr(WardenShellParse) x = warden_shell_parse ("xargs rm -f", -1, NULL);
  g_autoptr(WardenShellParse) f = warden_shell_parse ("find . -exec rm {}.bak \\;", -1, NULL);
  g_autoptr(WardenShellParse) i = warden_shell_parse ("xargs -I % mv % %.old", -1, NULL);
  const WardenCommandPart *px = g_ptr_array_index (x->parts, 1);
  const WardenCommandPart *pf = g_ptr_array_index (f->parts, 1);
  const WardenCommandPart *pi = g_ptr_array_index (i->parts, 1);

  g_assert_cmpstr (px->match_text, ==, "rm -f \001");
  g_assert_cmpstr (pf->match_text, ==, "rm \001.bak");
  g_assert_cmpstr (pi->match_text, ==, "mv \001 \001.old");
  g_assert_cmpstr (px->runner, ==, "xargs");
  g_assert_cmpstr (pf->runner, ==, "find");
}

/* find passes paths that start with where it searched: a lone {} is that
 * prefix and a hole; where the start is not known, a bare hole. */
static void
test_find_path_prefix (void)
{
  static const struct { const char *line, *match_text; } prefix_cases[] = {
    { "find / -exec rm {} \\;", "rm /\001" },
    { "find . -type f -exec rm -rf {} +", "rm -rf .\001" },
    { "find /srv/a /srv/ab -ok rm {} \\;", "rm /srv/a\001" },
    { "find / -execdir rm {} +", "rm \001" },
    { "find -L / -exec rm {} \\;", "rm \001" },
    { "find / -files0-from x -exec rm {} \\;", "rm \001" },
    { "find / -exec rm {}.bak \\;", "rm \001.bak" },
    { "find / -exec rm {}", "rm \001" },
  };

  for (guint k = 0; k < G_N_ELEMENTS (prefix_cases); k++)
    {
      g_autoptr(WardenShellParse) parse = warden_shell_parse (prefix_cases[k].line, -1, NULL);
      const WardenCommandPart *part = g_ptr_array_index (parse->parts, 1);

      g_assert_cmpstr (part->match_text, ==, prefix_cases[k].match_text);
    }
}

static void
test_base_text (void)
{
  g_autoptr(WardenShellParse) a = warden_shell_parse ("FOO=1 /bin/rm -rf / 2>/dev/null", -1,
                                                      NULL);
  const WardenCommandPart *p = g_ptr_array_index (a->parts, 0);

  g_assert_cmpstr (p->text, ==, "FOO=1 /bin/rm -rf / 2> /dev/null");
  g_assert_cmpstr (p->base_text, ==, "rm -rf /");
  g_assert_cmpstr (p->name, ==, "/bin/rm");
  g_assert_cmpstr (p->argv[1], ==, "-rf");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = NULL;
      g_autofree char *escaped = g_strescape (cases[i].command, NULL);

      if (strlen (escaped) > 60)
        escaped[60] = '\0';
      /* GTest paths cannot hold every byte; number them and keep a hint. */
      g_strdelimit (escaped, "/ ", '_');
      path = g_strdup_printf ("/policy/parser/case/%03u-%s", i, escaped);
      g_test_add_data_func (path, &cases[i], test_case);
    }
  g_test_add_func ("/policy/parser/dangling-operator", test_dangling_operator);
  g_test_add_func ("/policy/parser/nul-byte", test_nul_byte);
  g_test_add_func ("/policy/parser/limits", test_limits);
  g_test_add_func ("/policy/parser/stress", test_stress);
  g_test_add_func ("/policy/parser/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/policy/parser/workspace-option", test_workspace_option);
  g_test_add_func ("/policy/parser/holes", test_holes);
  g_test_add_func ("/policy/parser/holes/find-path-prefix", test_find_path_prefix);
  g_test_add_func ("/policy/parser/base-text", test_base_text);

  return g_test_run ();
}
