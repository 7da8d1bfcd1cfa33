/* test-policy.c: the decisions of the policy engine, row by row against POLICY.md
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include <json-glib/json-glib.h>

#include "policy/warden-policy.h"

/* What a row expects. NOT_ALLOWED is for the few lines where both ask and deny
 * keep the promise and the spec does not pick one: only allow is wrong. */
enum
{
  ALLOWS = 1,
  ASKS,
  DENIES,
  NOT_ALLOWED,
};

#define TOP    WARDEN_ORIGIN_TOP_LEVEL
#define SUB    WARDEN_ORIGIN_SUBSTITUTION
#define PSUB   WARDEN_ORIGIN_PROCESS_SUBSTITUTION
#define WRAP   WARDEN_ORIGIN_WRAPPER
#define SCRIPT WARDEN_ORIGIN_SCRIPT
#define REDIR  WARDEN_ORIGIN_REDIRECTION

#define S(...) ((const char * const []) { __VA_ARGS__, NULL })
#define O(...) ((const int []) { __VA_ARGS__, -1 })
/* An empty list: no patterns, or "no suggestions at all". */
#define NONE   ((const char * const []) { NULL })
#define ANY    S ("*")

#define ALLOWLIST       WARDEN_MODE_ALLOWLIST
#define APPROVAL_ALWAYS WARDEN_MODE_APPROVAL_ALWAYS
#define ALLOW_ALWAYS    WARDEN_MODE_ALLOW_ALWAYS

/* The profile most rows use (allow = NULL, deny = NULL): the seed's Node.js
 * profile plus a few everyday commands. */
static const char * const std_allow[] = {
  "ls", "ls *", "cat *", "echo", "echo *", "node *", "git status", "grep *", "true", "test *",
  "wc *", NULL
};
static const char * const std_deny[] = { "rm -rf /*", "git push *", NULL };
/* The built-in Node.js profile, the seed's. */
#define SEED S ("node *", "cat *", "echo *", "ls *", "ls")
#define SEED_DENY S ("rm -rf /*", "rm -fr /*", "rm -rf ~*", "rm -fr ~*", "rm -rf $HOME*", \
                     "mkfs*", "dd *of=/dev/sd*", "dd *of=/dev/nvme*", ":(){*")

typedef struct
{
  const char         *path;        /* under /policy/decision/ */
  const char         *command;
  int                 expect;
  WardenMode          mode;
  const char * const *allow;       /* NULL: std_allow; NONE: no patterns */
  const char * const *deny;        /* NULL: std_deny; NONE: no patterns */
  const char * const *ask;         /* the profile's ask rules; NULL: none */
  const char         *reason;      /* a part of the reason shown; NULL: not checked */
  const char * const *parts;       /* the texts of all parts, in order; NULL: not checked */
  const int          *origins;     /* their origins, -1 terminated; NULL: not checked */
  const char * const *suggestions; /* the suggestions in any order; NONE: none; NULL: not checked */
  const char         *workspace;   /* the context; all NULL: no context is passed */
  const char         *cwd;
  const char * const *env;
  gboolean            use_length;  /* pass @length instead of -1 */
  gssize              length;
  gboolean            nested_off;  /* the profile says "nested": "off" */
} Row;

static const Row rows[] = {
  /* ---- Patterns: seed-compatible globs, anchored, matched per simple command ---- */
  { "patterns/exact", "ls", ALLOWS, .allow = S ("ls"), .parts = S ("ls") },
  /* python3 alone reads its program from standard input: "python3 *" does not cover it. */
  { "patterns/star-needs-the-space", "python3", ASKS, .allow = S ("python3 *"),
    .suggestions = NONE },
  { "patterns/star-needs-the-space-suggests", "git", ASKS, .allow = S ("git *"),
    .suggestions = S ("git") },
  { "patterns/exact-refuses-arguments", "ls -la", ASKS, .allow = S ("ls"),
    .suggestions = S ("ls *") },
  { "patterns/star-takes-arguments", "ls -la /tmp", ALLOWS, .allow = S ("ls *") },
  { "patterns/star-spans-spaces", "echo a b  c", ALLOWS, .allow = S ("echo *"),
    .parts = S ("echo a b c") },
  { "patterns/node-star-not-node-modules", "node_modules/.bin/x", ASKS, .allow = S ("node *") },
  { "patterns/node-star-not-bare-node", "cat f | node", ASKS, .allow = S ("node *", "cat *"),
    .parts = S ("cat f", "node") },
  { "patterns/star-alone-matches-everything", "rm -r build && curl -s x | tar x", ALLOWS,
    .allow = ANY, .deny = NONE },
  { "patterns/star-alone-still-denied", "rm -rf /", DENIES, .allow = ANY },
  { "patterns/anchored-at-start", "ls -l", ASKS, .allow = S ("s -l") },
  { "patterns/anchored-at-end", "ls -la", ASKS, .allow = S ("ls -l") },
  { "patterns/star-in-the-middle", "git push --dry-run", ALLOWS, .allow = S ("git * --dry-run"),
    .deny = NONE },
  { "patterns/star-in-the-middle-anchored", "git push --dry-run --force", ASKS,
    .allow = S ("git * --dry-run"), .deny = NONE },
  { "patterns/two-stars", "npm run test", ALLOWS, .allow = S ("*test*") },
  { "patterns/question-mark-is-literal", "ls a", ASKS, .allow = S ("ls ?") },
  { "patterns/question-mark-matches-itself", "ls '?'", ALLOWS, .allow = S ("ls ?"),
    .parts = S ("ls ?") },
  { "patterns/bracket-is-literal", "echo a", ASKS, .allow = S ("echo [a]") },
  { "patterns/bracket-matches-itself", "echo '[a]'", ALLOWS, .allow = S ("echo [a]") },
  { "patterns/backslash-is-literal", "echo x", ASKS, .allow = S ("echo \\*") },
  { "patterns/backslash-matches-itself", "echo '\\x'", ALLOWS, .allow = S ("echo \\*"),
    .parts = S ("echo \\x") },
  { "patterns/case-sensitive", "LS", ASKS, .allow = S ("ls") },
  { "patterns/no-patterns", "ls", ASKS, .allow = NONE, .deny = NONE, .suggestions = S ("ls") },
  { "patterns/any-of-several", "cat x", ALLOWS, .allow = S ("ls", "cat *"), .parts = S ("cat x") },
  { "patterns/trailing-blank-is-no-word", "git ", ASKS, .allow = S ("git *"), .parts = S ("git") },
  /* A pattern never sees the whole line. */
  { "patterns/not-against-the-line", "ls; echo hi", ASKS, .allow = S ("ls; echo hi"),
    .parts = S ("ls", "echo hi") },
  { "patterns/prefix-star-not-against-the-line", "ls; rm x", ASKS, .allow = S ("ls*"),
    .parts = S ("ls", "rm x") },

  /* ---- The text of a simple command ---- */
  { "text/quote-removal", "git  'status'", ALLOWS, .allow = S ("git status"),
    .parts = S ("git status") },
  { "text/double-quotes", "git \"status\"", ALLOWS, .allow = S ("git status"),
    .parts = S ("git status") },
  { "text/mixed-quotes", "git st\"a\"'t'us", ALLOWS, .allow = S ("git status"),
    .parts = S ("git status") },
  { "text/backslash", "git stat\\us", ALLOWS, .allow = S ("git status"),
    .parts = S ("git status") },
  { "text/tab-separated", "git\tstatus", ALLOWS, .allow = S ("git status"),
    .parts = S ("git status") },
  { "text/spaces-inside-quotes-kept", "echo 'a  b'", ALLOWS, .parts = S ("echo a  b") },
  { "text/redirections-kept", "node app.js > /dev/null 2>&1", ALLOWS,
    .parts = S ("node app.js > /dev/null 2>&1") },
  { "text/redirection-operator-spaced", "node app.js >/dev/null", ALLOWS,
    .parts = S ("node app.js > /dev/null") },
  { "text/fd-redirection", "node app.js 2>/dev/null", ALLOWS,
    .parts = S ("node app.js 2> /dev/null") },
  /* Source order: the redirection comes first, so "node *" does not match. */
  { "text/redirection-first", ">/dev/null node app.js", ASKS,
    .parts = S ("> /dev/null node app.js") },
  { "text/input-redirection", "cat <in.txt", ALLOWS, .parts = S ("cat < in.txt") },
  { "text/heredoc-body-left-out", "cat <<EOF\nhello world\nEOF", ALLOWS,
    .parts = S ("cat << EOF") },
  { "text/heredoc-quoted-delimiter", "cat <<'EOF'\nhello\nEOF", ALLOWS, .parts = S ("cat << EOF") },
  // design: $'…' is quoting, so quote removal decodes it.
  /* dash reads "$" and a single-quoted string. */
  { "text/ansi-c-argument", "echo $'it\\ts'", ALLOWS, .parts = S ("echo it\ts", "echo $it\\ts") },
  /* sh has no $'…': there "\'" ends the quote, in bash it does not. */
  { "text/ansi-c-escaped-quote", "echo $'a\\' ; rm -rf / ; echo \\''", ASKS, .allow = ANY,
    .deny = NONE },
  { "text/escaped-double-quote", "echo \"a\\\"b\"", ALLOWS, .parts = S ("echo a\"b") },
  { "text/escaped-dollar-is-data", "echo \"\\$(rm x)\"", ALLOWS, .parts = S ("echo $(rm x)") },
  { "text/single-quoted-substitution-is-data", "echo '$(rm -rf /) `rm -rf /`'", ALLOWS,
    .parts = S ("echo $(rm -rf /) `rm -rf /`") },
  { "text/separators-in-quotes-are-data", "echo 'ls; rm -rf /'", ALLOWS,
    .parts = S ("echo ls; rm -rf /") },
  { "text/newline-in-double-quotes-is-data", "echo \"a\nrm -rf /\"", ALLOWS,
    .parts = S ("echo a\nrm -rf /") },

  /* ---- Separators ---- */
  { "separators/semicolon", "ls; echo hi", ALLOWS, .parts = S ("ls", "echo hi"),
    .origins = O (TOP, TOP) },
  { "separators/semicolon-asks", "ls; rm x", ASKS, .parts = S ("ls", "rm x"),
    .suggestions = S ("rm x") },
  { "separators/semicolon-no-space", "ls;rm x", ASKS, .parts = S ("ls", "rm x") },
  { "separators/background", "ls & rm x", ASKS, .parts = S ("ls", "rm x") },
  { "separators/background-trailing", "node app.js &", ALLOWS, .parts = S ("node app.js") },
  { "separators/and", "ls && rm x", ASKS, .parts = S ("ls", "rm x") },
  { "separators/and-no-space", "ls&&rm x", ASKS, .parts = S ("ls", "rm x") },
  { "separators/and-allowed", "ls && echo ok", ALLOWS, .parts = S ("ls", "echo ok") },
  { "separators/or", "ls || rm x", ASKS, .parts = S ("ls", "rm x") },
  { "separators/pipe", "ls | rm x", ASKS, .parts = S ("ls", "rm x") },
  { "separators/pipe-allowed", "ls | wc -l", ALLOWS, .parts = S ("ls", "wc -l") },
  { "separators/pipe-stderr", "ls |& rm x", ASKS },
  { "separators/pipe-stderr-allowed", "ls |& wc -l", ALLOWS },
  { "separators/newline", "ls\nrm x", ASKS, .parts = S ("ls", "rm x") },
  { "separators/newline-allowed", "ls\necho hi\n", ALLOWS, .parts = S ("ls", "echo hi") },
  { "separators/deny-after-and", "ls && rm -rf /", DENIES },
  { "separators/deny-after-pipe", "ls | rm -rf /", DENIES },
  { "separators/deny-after-newline", "ls\nrm -rf /", DENIES },
  { "separators/all-of-them", "ls; ls -a && echo a || echo b | wc -l & cat x |& grep y\ntrue",
    ALLOWS,
    .parts = S ("ls", "ls -a", "echo a", "echo b", "wc -l", "cat x", "grep y", "true") },
  /* bash keeps the carriage return in the word: the command is "ls\r". */
  { "separators/carriage-return-is-no-separator", "ls\r\n", ASKS },
  { "separators/leading-semicolon", "; ls", ASKS, .allow = ANY },
  { "separators/double-semicolon-outside-case", "ls ;; ls", ASKS, .allow = ANY },
  { "separators/trailing-and", "ls &&", ASKS, .allow = ANY },
  { "separators/leading-and", "&& ls", ASKS, .allow = ANY },
  { "separators/leading-pipe", "| ls", ASKS, .allow = ANY },
  { "separators/empty-pipeline-stage", "ls | | ls", ASKS, .allow = ANY },
  /* "!" only inverts the exit status of a pipeline; the commands in it are
   * still checked one by one. */
  { "separators/negation", "! ls", ALLOWS, .allow = S ("ls"), .parts = S ("ls") },
  { "separators/negation-checks-inside", "! rm x", ASKS, .allow = S ("ls") },

  /* ---- Line continuations, as bash joins them ---- */
  { "continuation/between-words", "ls \\\n-la", ALLOWS, .parts = S ("ls -la") },
  { "continuation/inside-the-name", "ec\\\nho hi", ALLOWS, .parts = S ("echo hi") },
  { "continuation/hides-rm", "r\\\nm -rf /", DENIES },
  { "continuation/before-and", "ls \\\n&& rm x", ASKS, .parts = S ("ls", "rm x") },
  { "continuation/before-semicolon", "ls \\\n; rm -rf /", DENIES },
  { "continuation/not-in-single-quotes", "echo 'a\\\nb'", ALLOWS, .parts = S ("echo a\\\nb") },
  { "continuation/joined-in-double-quotes", "echo \"a\\\nb\"", ALLOWS, .parts = S ("echo ab") },
  /* bash ends a comment at the newline even after a backslash: rm runs. */
  { "continuation/not-in-a-comment", "ls # note \\\nrm -rf /", DENIES,
    .parts = S ("ls", "rm -rf /") },
  { "continuation/hash-inside-word", "echo a\\\n#b", ALLOWS, .parts = S ("echo a#b") },
  { "continuation/hash-at-word-start", "echo a \\\n#b; rm -rf /", ALLOWS, .parts = S ("echo a") },

  /* ---- Comments ---- */
  { "comments/trailing", "ls # rm -rf /", ALLOWS, .parts = S ("ls") },
  { "comments/hide-separators", "ls #; rm x", ALLOWS, .parts = S ("ls") },
  { "comments/after-semicolon", "ls;# rm x", ALLOWS, .parts = S ("ls") },
  { "comments/not-inside-a-word", "echo a#b", ALLOWS, .parts = S ("echo a#b") },
  { "comments/quoted-hash", "echo '#' x", ALLOWS, .parts = S ("echo # x") },
  { "comments/hash-in-double-quotes", "echo \"# $(rm x)\"", ASKS },
  { "comments/end-at-newline", "# just a note\nrm x", ASKS, .parts = S ("rm x") },
  { "comments/end-at-newline-deny", "ls # x\nrm -rf /", DENIES },
  { "comments/inside-substitution", "echo $(ls # )\n)", ALLOWS },
  { "comments/inside-substitution-then-command", "echo $(ls # )\nrm x)", ASKS },

  /* ---- Groups ---- */
  { "groups/subshell", "(ls; rm x)", ASKS, .parts = S ("ls", "rm x") },
  { "groups/subshell-allowed", "(ls; echo hi)", ALLOWS, .parts = S ("ls", "echo hi") },
  { "groups/braces", "{ ls; echo hi; }", ALLOWS, .parts = S ("ls", "echo hi") },
  { "groups/braces-ask", "{ ls; rm x; }", ASKS, .parts = S ("ls", "rm x") },
  { "groups/braces-deny", "{ rm -rf /; }", DENIES },
  { "groups/nested", "( (ls) && { echo a; (rm x); } )", ASKS, .parts = S ("ls", "echo a", "rm x") },
  { "groups/pipe-into-group", "ls | { rm x; }", ASKS, .parts = S ("ls", "rm x") },
  { "groups/redirect-outside-workspace", "{ ls; } > /etc/x", ASKS },
  { "groups/redirect-inside-workspace", "{ ls; } > out.txt", ALLOWS, .parts = S ("ls", "> out.txt"),
    .origins = O (TOP, REDIR) },
  { "groups/subshell-redirect-dev-null", "(ls) > /dev/null 2>&1", ALLOWS },
  { "groups/subshell-append-outside", "(ls) >> /tmp/log", ASKS, .allow = ANY },
  { "groups/unterminated-braces", "{ ls", ASKS, .allow = ANY },
  { "groups/unterminated-subshell", "( ls", ASKS, .allow = ANY },
  { "groups/stray-paren", "ls )", ASKS, .allow = ANY },
  { "groups/brace-needs-a-blank", "{ls; }", ASKS, .allow = ANY },
  { "groups/stray-brace", "}", ASKS, .allow = ANY },
  { "groups/empty-braces", "{ }", ASKS, .allow = ANY },
  { "groups/empty-subshell", "()", ASKS, .allow = ANY },

  /* ---- Control structures: every branch and every condition ---- */
  { "control/if", "if test -f x; then ls; fi", ALLOWS, .parts = S ("test -f x", "ls") },
  { "control/if-condition-asks", "if rm x; then ls; fi", ASKS, .parts = S ("rm x", "ls") },
  { "control/else-deny-not-taken", "if true; then ls; else rm -rf /; fi", DENIES },
  { "control/else-asks", "if true; then ls; else rm x; fi", ASKS,
    .parts = S ("true", "ls", "rm x") },
  { "control/elif-asks", "if true; then ls; elif rm x; then echo a; fi", ASKS,
    .parts = S ("true", "ls", "rm x", "echo a") },
  { "control/elif-allowed", "if true; then ls; elif test -d x; then echo a; else echo b; fi",
    ALLOWS,
    .parts = S ("true", "ls", "test -d x", "echo a", "echo b") },
  { "control/if-missing-fi", "if true; then ls", ASKS, .allow = ANY },
  { "control/if-missing-then", "if true; ls; fi", ASKS, .allow = ANY },
  { "control/while", "while true; do ls; done", ALLOWS, .parts = S ("true", "ls") },
  { "control/while-condition-asks", "while rm x; do ls; done", ASKS, .parts = S ("rm x", "ls") },
  { "control/while-body-deny", "while true; do rm -rf /; done", DENIES },
  { "control/while-missing-done", "while true; do ls", ASKS, .allow = ANY },
  { "control/until", "until test -f x; do ls; done", ALLOWS, .parts = S ("test -f x", "ls") },
  { "control/until-body-asks", "until true; do rm x; done", ASKS, .parts = S ("true", "rm x") },
  { "control/for", "for f in a b; do echo $f; done", ALLOWS, .parts = S ("echo $f") },
  { "control/for-body-asks", "for f in a b; do rm $f; done", ASKS, .parts = S ("rm $f") },
  { "control/for-list-substitution", "for f in $(rm x); do ls; done", ASKS,
    .parts = S ("rm x", "ls") },
  { "control/for-list-deny", "for f in $(rm -rf /); do ls; done", DENIES },
  { "control/for-glob", "for f in *.txt; do cat \"$f\"; done", ALLOWS, .parts = S ("cat $f") },
  { "control/for-without-in", "for f; do echo \"$f\"; done", ALLOWS, .parts = S ("echo $f") },
  { "control/for-missing-done", "for f in a; do ls", ASKS, .allow = ANY },
  // design: bash refuses it at run time; a loop variable that is not a literal name asks.
  { "control/for-bad-name", "for $x in a; do ls; done", ASKS, .allow = ANY },
  // design: the arithmetic header is an arithmetic command, which always asks.
  { "control/for-arithmetic", "for ((i = 0; i < 3; i++)); do ls; done", ASKS, .allow = ANY },
  { "control/case-bodies", "case $x in a) ls;; b) rm x;; esac", ASKS, .parts = S ("ls", "rm x") },
  { "control/case-allowed", "case $x in a) ls;; *) echo hi;; esac", ALLOWS,
    .parts = S ("ls", "echo hi") },
  { "control/case-fallthrough-deny", "case $x in a) ls;& b) echo b;;& c) rm -rf /;; esac", DENIES },
  { "control/case-fallthrough-ask", "case $x in a) ls;& b) rm x;;& *) echo c;; esac", ASKS,
    .parts = S ("ls", "rm x", "echo c") },
  { "control/case-subject-substitution", "case $(rm x) in a) ls;; esac", ASKS,
    .parts = S ("rm x", "ls") },
  { "control/case-pattern-substitution", "case x in $(rm -rf /)) ls;; esac", DENIES },
  { "control/case-parenthesized-pattern", "case x in (a|b) ls;; esac", ALLOWS, .parts = S ("ls") },
  { "control/case-last-clause-open", "case x in a) ls\nesac", ALLOWS, .parts = S ("ls") },
  { "control/case-missing-esac", "case x in a) ls;;", ASKS, .allow = ANY },
  { "control/select", "select x in a b; do ls; done", ASKS, .allow = ANY },
  { "control/nested",
    "if true; then for f in a; do while true; do case $f in a) rm x;; esac; done; done; fi",
    ASKS, .parts = S ("true", "true", "rm x") },
  { "control/loop-redirect-outside", "while true; do ls; done > /etc/x", ASKS },
  { "control/loop-redirect-inside", "for f in a; do ls; done > out.txt", ALLOWS },
  { "control/if-redirect-outside", "if true; then ls; fi 2> /etc/x", ASKS },
  { "control/keywords-as-arguments", "echo if then fi done", ALLOWS,
    .parts = S ("echo if then fi done") },
  { "control/stray-fi", "fi", ASKS, .allow = ANY },
  { "control/stray-done", "ls; done", ASKS, .allow = ANY },
  { "control/stray-then", "then ls", ASKS, .allow = ANY },
  { "control/stray-esac", "esac", ASKS, .allow = ANY },

  /* ---- Command substitution ---- */
  { "substitution/dollar-paren", "echo $(ls)", ALLOWS, .parts = S ("echo $(ls)", "ls"),
    .origins = O (TOP, SUB) },
  { "substitution/dollar-paren-asks", "echo $(rm x)", ASKS, .parts = S ("echo $(rm x)", "rm x"),
    .origins = O (TOP, SUB), .suggestions = S ("rm x") },
  { "substitution/backticks", "echo `ls`", ALLOWS, .parts = S ("echo `ls`", "ls"),
    .origins = O (TOP, SUB) },
  { "substitution/backticks-ask", "echo `rm x`", ASKS, .origins = O (TOP, SUB) },
  { "substitution/two-in-one-word", "echo $(ls)$(rm x)", ASKS, .origins = O (TOP, SUB, SUB) },
  { "substitution/nested", "echo $(echo $(ls))", ALLOWS,
    .parts = S ("echo $(echo $(ls))", "echo $(ls)", "ls"),
    .origins = O (TOP, SUB, SUB) },
  { "substitution/nested-deny", "echo $(echo $(rm -rf /))", DENIES },
  { "substitution/nested-backticks-deny", "echo `echo \\`rm -rf /\\``", DENIES },
  { "substitution/backticks-in-double-quotes", "echo \"`rm -rf /`\"", DENIES },
  { "substitution/in-double-quotes", "echo \"$(rm x)\"", ASKS, .parts = S ("echo $(rm x)", "rm x"),
    .origins = O (TOP, SUB) },
  { "substitution/in-double-quotes-deny", "echo \"it's $(rm -rf /)\"", DENIES },
  { "substitution/quoted-paren-inside", "echo \"$(echo \")\")\"", ALLOWS },
  { "substitution/quoted-paren-does-not-close", "echo \"$(echo \")\"; rm -rf /)\"", DENIES },
  { "substitution/single-quoted-paren-does-not-close", "echo $(echo ')'; rm -rf /)", DENIES },
  { "substitution/escaped-paren", "echo $(echo \\))", ALLOWS },
  { "substitution/case-inside", "echo $(case x in x) ls;; esac)", ALLOWS },
  { "substitution/case-inside-deny", "echo $(case x in x) rm -rf /;; esac)", DENIES },
  { "substitution/as-command-name", "$(echo ls)", ASKS, .allow = ANY, .suggestions = NONE },
  /* bash: "\$" then "(" is a syntax error, not a substitution. */
  { "substitution/escaped-dollar-unquoted", "echo \\$(rm x)", ASKS, .allow = ANY },
  { "substitution/unterminated", "echo $(ls", ASKS, .allow = ANY },
  { "substitution/unterminated-backtick", "echo `ls", ASKS, .allow = ANY },
  { "substitution/unterminated-double-quote", "echo \"$(ls)", ASKS, .allow = ANY },
  { "substitution/unterminated-inner-quote", "echo $(echo \"x)", ASKS, .allow = ANY },

  /* ---- Process substitution ---- */
  { "process-substitution/input", "cat <(ls)", ALLOWS, .parts = S ("cat <(ls)", "ls"),
    .origins = O (TOP, PSUB) },
  { "process-substitution/both-checked", "diff <(ls) <(rm x)", ASKS, .allow = S ("diff *", "ls"),
    .origins = O (TOP, PSUB, PSUB) },
  { "process-substitution/both-allowed", "diff <(ls) <(ls -a)", ALLOWS,
    .allow = S ("diff *", "ls", "ls *") },
  { "process-substitution/deny", "diff <(ls) <(rm -rf /)", DENIES, .allow = S ("diff *", "ls") },
  { "process-substitution/output-deny", "echo hi | tee >(rm -rf /)", DENIES, .allow = ANY },
  { "process-substitution/output", "echo hi | tee >(cat)", ALLOWS,
    .allow = S ("echo *", "tee *", "cat"),
    .parts = S ("echo hi", "tee >(cat)", "cat"), .origins = O (TOP, TOP, PSUB) },
  { "process-substitution/literal-in-double-quotes", "echo \"<(rm x)\"", ALLOWS,
    .parts = S ("echo <(rm x)") },
  { "process-substitution/as-redirection-target", "ls > >(cat)", ASKS, .allow = ANY },

  /* ---- ${ … } ---- */
  { "parameter/default-substitution", "echo ${x:-$(rm x)}", ASKS },
  { "parameter/default-substitution-allowed", "echo ${x:-$(ls)}", ALLOWS, .origins = O (TOP, SUB) },
  { "parameter/default-backticks-deny", "echo ${x:-`rm -rf /`}", DENIES },
  { "parameter/replacement-deny", "echo ${x/$(rm -rf /)/y}", DENIES },
  { "parameter/nested-deny", "echo ${x:-${y:-$(rm -rf /)}}", DENIES },
  { "parameter/in-double-quotes", "echo \"${x:-$(rm x)}\"", ASKS },
  { "parameter/plain", "echo ${x} ${#x} ${x%.js}", ALLOWS,
    .parts = S ("echo ${x} ${#x} ${x%.js}") },
  { "parameter/unterminated", "echo ${x", ASKS, .allow = ANY },

  /* ---- $(( … )) ---- */
  { "arithmetic/plain", "echo $((1 + 2))", ALLOWS, .parts = S ("echo $((1 + 2))") },
  { "arithmetic/substitution", "echo $(( 1 + $(rm x) ))", ASKS },
  /* The output of ls is evaluated as arithmetic: a file named a[$(cmd)] runs cmd. */
  { "arithmetic/substitution-output-asks", "echo $((1+$(ls)))", ASKS, .origins = O (TOP, SUB) },
  { "arithmetic/hex-and-base-literals", "echo $((0x1F + 16#ff))", ALLOWS },
  { "arithmetic/variable", "echo $((i * 2))", ASKS, .allow = ANY },
  { "arithmetic/variable-allow-always", "echo $(( $n + 1 ))", ASKS, .mode = WARDEN_MODE_ALLOW_ALWAYS },
  { "arithmetic/old-form-variable", "echo $[n]", ASKS, .allow = ANY },
  { "arithmetic/in-loop", "for i in 1 2; do echo $((i*2)); done", ASKS, .allow = ANY },
  { "arithmetic/indirection", "echo ${!name}", ASKS, .allow = ANY },
  { "arithmetic/subscript-variable", "echo ${a[i]}", ASKS, .allow = ANY },
  { "arithmetic/subscript-all", "echo ${a[@]} ${a[0]}", ALLOWS, .allow = ANY },
  { "arithmetic/substring-variable", "echo ${s:n}", ASKS, .allow = ANY },
  { "arithmetic/substring-literal", "echo ${s:1:2} ${s:-x}", ALLOWS, .allow = ANY },
  { "arithmetic/assignment-subscript", "a[i]=1", ASKS, .allow = ANY },
  { "arithmetic/declare-integer", "declare -i n=x", ASKS, .allow = ANY },
  { "arithmetic/printf-v-dynamic", "printf -v \"$name\" 1", ASKS, .allow = ANY },
  { "code/prompt-expansion", "echo ${x@P}", ASKS, .allow = ANY },
  { "code/quote-operator", "echo ${x@Q}", ALLOWS, .allow = ANY },
  { "code/mapfile-callback", "mapfile -C 'rm x' -c 1 arr < f", ASKS, .allow = ANY },
  { "code/compgen-command", "compgen -C 'rm x' y", ASKS, .allow = ANY },
  { "code/test-v-subscript", "[ -v 'a[$(id)]' ]", ASKS, .allow = ANY },
  { "code/test-plain", "[ -f x ] && test -d y", ALLOWS, .allow = ANY },
  { "arithmetic/printf-plain", "printf '%s\\n' \"$x\"", ALLOWS, .allow = ANY },
  { "arithmetic/substitution-deny", "echo $(( $(rm -rf /) ))", DENIES },
  { "arithmetic/backticks-deny", "echo $((`rm -rf /`))", DENIES },
  { "arithmetic/unterminated", "echo $((1 + 2)", ASKS, .allow = ANY },

  /* ---- Assignment values ---- */
  { "assignment-value/bare-deny", "X=$(rm -rf /)", DENIES },
  { "assignment-value/prefix-deny", "X=$(rm -rf /) ls", DENIES, .allow = ANY },
  { "assignment-value/backticks-deny", "X=`rm -rf /`; ls", DENIES },
  { "assignment-value/array-deny", "a=(1 $(rm -rf /))", DENIES },
  { "assignment-value/export-deny", "export X=$(rm -rf /)", DENIES },
  { "assignment-value/lifted", "X=$(ls)", ALLOWS, .allow = S ("X=*", "ls"),
    .parts = S ("X=$(ls)", "ls"),
    .origins = O (TOP, SUB) },
  { "assignment-value/lifted-inner-asks", "X=$(rm x)", ASKS, .allow = S ("X=*") },

  /* ---- Redirection targets ---- */
  { "redirection-target/substitution-deny", "ls > $(rm -rf /)", DENIES },
  { "redirection-target/input-substitution-asks", "cat < $(rm x)", ASKS },
  /* Input targets are not judged, but what they run is. */
  { "redirection-target/input-substitution-allowed", "cat < \"$(ls)\"", ALLOWS,
    .origins = O (TOP, SUB) },
  { "redirection-target/here-string-deny", "cat <<< \"$(rm -rf /)\"", DENIES },

  /* ---- Here-documents: unquoted bodies are parsed, quoted ones are data ---- */
  { "heredoc/unquoted-substitution", "cat <<EOF\n$(rm x)\nEOF", ASKS,
    .parts = S ("cat << EOF", "rm x"),
    .origins = O (TOP, SUB) },
  { "heredoc/unquoted-deny", "cat <<EOF\nhello $(rm -rf /)\nEOF", DENIES },
  { "heredoc/unquoted-backticks-deny", "cat <<EOF\n`rm -rf /`\nEOF", DENIES },
  { "heredoc/unquoted-parameter-deny", "cat <<EOF\n${x:-$(rm -rf /)}\nEOF", DENIES },
  { "heredoc/unquoted-arithmetic-deny", "cat <<EOF\n$(( $(rm -rf /) ))\nEOF", DENIES },
  { "heredoc/single-quoted", "cat <<'EOF'\n$(rm -rf /)\nEOF", ALLOWS, .parts = S ("cat << EOF") },
  { "heredoc/double-quoted", "cat <<\"EOF\"\n$(rm -rf /)\nEOF", ALLOWS, .parts = S ("cat << EOF") },
  { "heredoc/backslash-quoted", "cat <<\\EOF\n$(rm -rf /)\nEOF", ALLOWS,
    .parts = S ("cat << EOF") },
  { "heredoc/partly-quoted", "cat <<E\"O\"F\n$(rm -rf /)\nEOF", ALLOWS, .parts = S ("cat << EOF") },
  { "heredoc/dash-unquoted", "cat <<-EOF\n\t$(rm -rf /)\n\tEOF", DENIES },
  { "heredoc/dash-quoted", "cat <<-'EOF'\n\t$(rm -rf /)\n\tEOF", ALLOWS,
    .parts = S ("cat <<- EOF") },
  { "heredoc/dash-strips-only-tabs", "cat <<-EOF\n  EOF\n$(rm x)\nEOF", ASKS },
  { "heredoc/body-is-data", "cat <<EOF\nrm -rf /\nEOF", ALLOWS, .parts = S ("cat << EOF") },
  { "heredoc/command-after-body", "cat <<EOF\nhi\nEOF\nrm x", ASKS,
    .parts = S ("cat << EOF", "rm x") },
  { "heredoc/command-on-the-same-line", "cat <<EOF; rm x\nhi\nEOF", ASKS,
    .parts = S ("cat << EOF", "rm x") },
  { "heredoc/delimiter-must-be-whole-line", "cat <<EOF\nEOF2\n$(rm x)\nEOF", ASKS },
  { "heredoc/two-bodies-quoted-first", "cat <<'A'; cat <<B\n$(rm -rf /)\nA\n$(ls)\nB", ALLOWS,
    .parts = S ("cat << A", "cat << B", "ls") },
  { "heredoc/two-bodies-unquoted-first", "cat <<A; cat <<'B'\n$(rm -rf /)\nA\n$(rm -rf /)\nB",
    DENIES },
  { "heredoc/inside-substitution-quoted", "echo $(cat <<'EOF'\n$(rm -rf /)\nEOF\n)", ALLOWS },
  { "heredoc/inside-substitution-unquoted", "echo $(cat <<EOF\n$(rm -rf /)\nEOF\n)", DENIES },
  { "heredoc/on-a-group", "{ cat; } <<EOF\n$(rm -rf /)\nEOF", DENIES },
  // design: bash runs it with a warning; an unterminated construct asks.
  { "heredoc/unterminated", "cat <<EOF\nhello", ASKS, .allow = ANY },
  { "heredoc/missing-delimiter", "cat <<", ASKS, .allow = ANY },

  /* ---- Wrappers: the wrapper and the command it runs must both pass ---- */
  { "wrappers/nohup", "nohup node app.js", ALLOWS, .allow = S ("nohup *", "node *"),
    .parts = S ("nohup node app.js", "node app.js"), .origins = O (TOP, WRAP) },
  /* "node" looks like a subcommand ([a-z][a-z0-9-]*), so it is kept. */
  { "wrappers/nohup-needs-its-own-pattern", "nohup node app.js", ASKS,
    .suggestions = S ("nohup node *") },
  { "wrappers/nohup-inner-asks", "nohup rm x", ASKS, .allow = S ("nohup *"),
    .parts = S ("nohup rm x", "rm x") },
  { "wrappers/nohup-inner-deny", "nohup rm -rf /", DENIES, .allow = S ("nohup *") },
  // design: env's assignments belong to the env part, which "env *" allows.
  { "wrappers/env-options", "env -i -u X A=1 node app.js", ALLOWS, .allow = S ("env *", "node *"),
    .parts = S ("env -i -u X A=1 node app.js", "node app.js"), .origins = O (TOP, WRAP) },
  { "wrappers/env-options-deny", "env -i -u X A=1 rm -rf /", DENIES, .allow = S ("env *") },
  { "wrappers/env-long-option-deny", "env --unset=X rm -rf /", DENIES },
  { "wrappers/env-inner-asks", "env -u PATH rm x", ASKS, .allow = S ("env *"),
    .parts = S ("env -u PATH rm x", "rm x") },
  { "wrappers/env-chdir", "env -C /tmp rm -rf /", NOT_ALLOWED, .allow = ANY },
  { "wrappers/env-dash", "env - rm -rf /", NOT_ALLOWED, .allow = ANY },
  { "wrappers/env-split-string", "env -S 'rm -rf /'", NOT_ALLOWED, .allow = ANY },
  { "wrappers/env-without-command", "env A=1", ALLOWS, .allow = S ("env *"),
    .parts = S ("env A=1") },
  { "wrappers/env-nonliteral-command", "env $CMD", ASKS, .allow = S ("env *") },
  { "wrappers/env-quoted-nonliteral-command", "env A=1 \"$X\" ls", ASKS, .allow = ANY },
  { "wrappers/env-unknown-option", "env --frobnicate ls", ASKS, .allow = S ("env *", "ls") },
  { "wrappers/nice", "nice -n 5 ls", ALLOWS, .allow = S ("nice *", "ls"),
    .parts = S ("nice -n 5 ls", "ls") },
  { "wrappers/nice-deny", "nice -n 5 rm -rf /", DENIES },
  { "wrappers/nice-attached-deny", "nice -n5 rm -rf /", DENIES },
  { "wrappers/nice-long-option", "nice --adjustment=5 ls", ALLOWS, .allow = S ("nice *", "ls") },
  { "wrappers/nice-obsolete-option", "nice -5 rm -rf /", NOT_ALLOWED, .allow = ANY },
  { "wrappers/timeout", "timeout -s KILL 5 ls", ALLOWS, .allow = S ("timeout *", "ls"),
    .parts = S ("timeout -s KILL 5 ls", "ls"), .origins = O (TOP, WRAP) },
  { "wrappers/timeout-deny", "timeout -s KILL 5 rm -rf /", DENIES },
  { "wrappers/timeout-plain-deny", "timeout 5 rm -rf /", DENIES },
  { "wrappers/timeout-kill-after", "timeout -k 1 5s ls", ALLOWS, .allow = S ("timeout *", "ls") },
  { "wrappers/timeout-long-options", "timeout --signal=KILL --preserve-status 5 ls", ALLOWS,
    .allow = S ("timeout *", "ls") },
  { "wrappers/timeout-unknown-option", "timeout --bogus 5 ls", ASKS, .allow = ANY },
  { "wrappers/time", "time -p ls", ALLOWS, .allow = S ("time *", "ls"),
    .parts = S ("time -p ls", "ls") },
  { "wrappers/time-deny", "time rm -rf /", DENIES },
  { "wrappers/stdbuf", "stdbuf -oL ls", ALLOWS, .allow = S ("stdbuf *", "ls"),
    .parts = S ("stdbuf -oL ls", "ls") },
  { "wrappers/stdbuf-separate-arguments", "stdbuf -o L -e 0 ls", ALLOWS,
    .allow = S ("stdbuf *", "ls") },
  { "wrappers/stdbuf-deny", "stdbuf -oL rm -rf /", DENIES },
  { "wrappers/setsid", "setsid -f ls", ALLOWS, .allow = S ("setsid *", "ls"),
    .parts = S ("setsid -f ls", "ls") },
  { "wrappers/setsid-deny", "setsid rm -rf /", DENIES },
  { "wrappers/ionice", "ionice -c 3 ls", ALLOWS, .allow = S ("ionice *", "ls"),
    .parts = S ("ionice -c 3 ls", "ls") },
  { "wrappers/ionice-attached", "ionice -c3 -n7 ls", ALLOWS, .allow = S ("ionice *", "ls") },
  { "wrappers/ionice-deny", "ionice -c 3 rm -rf /", DENIES },
  { "wrappers/taskset", "taskset -c 0 ls", ALLOWS, .allow = S ("taskset *", "ls"),
    .parts = S ("taskset -c 0 ls", "ls") },
  { "wrappers/taskset-mask", "taskset 0x1 ls", ALLOWS, .allow = S ("taskset *", "ls"),
    .parts = S ("taskset 0x1 ls", "ls") },
  { "wrappers/taskset-deny", "taskset -c 0,1 rm -rf /", DENIES },
  { "wrappers/taskset-mask-deny", "taskset 3 rm -rf /", DENIES },
  /* In another root "ls" is that root's ls, which no pattern describes (issue 26). */
  { "wrappers/chroot", "chroot /srv/root ls", ASKS, .allow = S ("chroot *", "ls"),
    .parts = S ("chroot /srv/root ls", "ls") },
  { "wrappers/chroot-userspec", "chroot --userspec=1000:1000 / ls", ALLOWS,
    .allow = S ("chroot *", "ls") },
  { "wrappers/chroot-deny", "chroot /srv/root rm -rf /", DENIES },
  { "wrappers/sudo", "sudo -u bob ls", ALLOWS, .allow = S ("sudo *", "ls"),
    .parts = S ("sudo -u bob ls", "ls") },
  { "wrappers/sudo-flags", "sudo -E -H ls", ALLOWS, .allow = S ("sudo *", "ls") },
  { "wrappers/sudo-deny", "sudo -u x rm -rf /", DENIES },
  { "wrappers/sudo-double-dash-deny", "sudo -- rm -rf /", DENIES },
  { "wrappers/sudo-unknown-option", "sudo --frobnicate ls", ASKS, .allow = ANY },
  { "wrappers/sudo-nonliteral-command", "sudo \"$@\"", ASKS, .allow = ANY },
  { "wrappers/sudo-glob-command", "sudo ./*.sh", ASKS, .allow = ANY },
  { "wrappers/doas", "doas -u bob ls", ALLOWS, .allow = S ("doas *", "ls"),
    .parts = S ("doas -u bob ls", "ls") },
  { "wrappers/doas-deny", "doas rm -rf /", DENIES },
  { "wrappers/command", "command ls", ALLOWS, .allow = S ("command *", "ls"),
    .parts = S ("command ls", "ls") },
  { "wrappers/command-p-deny", "command -p rm -rf /", DENIES },
  { "wrappers/command-eval", "command eval ls", ASKS, .allow = ANY },
  { "wrappers/builtin", "builtin echo hi", ALLOWS, .allow = S ("builtin *", "echo *"),
    .parts = S ("builtin echo hi", "echo hi") },
  { "wrappers/builtin-source", "builtin source x.sh", ASKS, .allow = ANY },
  { "wrappers/builtin-eval", "builtin eval 'rm -rf /'", NOT_ALLOWED, .allow = ANY },
  { "wrappers/exec", "exec ls", ALLOWS, .allow = S ("exec *", "ls"), .parts = S ("exec ls", "ls") },
  { "wrappers/exec-deny", "exec rm -rf /", DENIES },
  { "wrappers/exec-argv0-deny", "exec -a name rm -rf /", DENIES },
  { "wrappers/exec-only-redirection", "exec > out.txt", ALLOWS, .allow = S ("exec *") },
  { "wrappers/exec-redirection-outside", "exec 3> /etc/x", ASKS, .allow = ANY },
  /* xargs appends arguments: its command must be allowed whatever they are. Some
   * arguments would make it match a deny pattern ("rm" plus "-rf /"), others not:
   * nobody can know before it runs, so it asks, in every mode. */
  { "wrappers/xargs-arguments-may-be-options-asks", "xargs rm", ASKS, .allow = S ("xargs *", "rm *") },
  { "wrappers/xargs-may-be-denied-asks-in-allow-always", "xargs rm", ASKS, .mode = ALLOW_ALWAYS },
  /* Every filling matches "rm *": provably denied. */
  { "wrappers/xargs-every-filling-denied", "xargs rm", DENIES, .allow = ANY, .deny = S ("rm *") },
  /* With no input and no -r, xargs runs its command once with nothing appended
   * (found by the oracle): "rm *" alone does not cover that run. */
  { "wrappers/xargs", "xargs rm", ALLOWS, .allow = S ("xargs *", "rm *", "rm"),
    .parts = S ("xargs rm", "rm", "rm"),
    .origins = O (TOP, WRAP, WRAP), .deny = NONE },
  { "wrappers/xargs-empty-input-runs-the-bare-command", "xargs rm", ASKS,
    .allow = S ("xargs *", "rm *"), .deny = NONE },
  { "wrappers/xargs-no-run-if-empty", "xargs -r rm", ALLOWS, .allow = S ("xargs *", "rm *"),
    .parts = S ("xargs -r rm", "rm"), .deny = NONE },
  // design: the suggestion covers the appended arguments.
  { "wrappers/xargs-exact-pattern-is-not-enough", "xargs rm", ASKS, .allow = S ("xargs *", "rm"),
    .suggestions = S ("rm *"), .deny = NONE },
  { "wrappers/xargs-default-echo", "xargs", ALLOWS, .allow = S ("xargs", "echo *", "echo"),
    .parts = S ("xargs", "echo", "echo"),
    .origins = O (TOP, WRAP, WRAP) },
  { "wrappers/xargs-default-echo-exact", "xargs", ASKS, .allow = S ("xargs", "echo") },
  { "wrappers/xargs-default-echo-options", "xargs -0 -n 1", ALLOWS,
    .allow = S ("xargs *", "echo *", "echo") },
  { "wrappers/xargs-may-be-denied", "xargs rm -rf", ASKS, .allow = ANY },
  /* "rm -r " followed by anything can never be "rm -rf /…". */
  { "wrappers/xargs-deny-needs-a-filling", "xargs rm -r", ASKS },
  { "wrappers/xargs-options-may-be-denied", "xargs -0 -n 1 -P 4 rm -rf", ASKS, .allow = ANY },
  { "wrappers/xargs-replace-may-be-denied", "xargs -0 -n 1 -I{} rm -rf {}", ASKS,
    .mode = ALLOW_ALWAYS },
  { "wrappers/xargs-replace-every-filling-denied", "xargs -I{} rm -rf /{}", DENIES, .allow = ANY },
  /* With -I nothing is appended: only the replaced word is unknown. */
  { "wrappers/xargs-replace-allowed", "xargs -I R echo R done", ALLOWS,
    .allow = S ("xargs *", "echo * done") },
  { "wrappers/xargs-replace-separate", "xargs -0 -n 1 -I {} echo {} done", ALLOWS,
    .allow = S ("xargs *", "echo * done") },
  { "wrappers/xargs-replace-inside-a-word", "xargs -I{} cp {}.bak out/", ALLOWS,
    .allow = S ("xargs *", "cp *.bak out/") },
  { "wrappers/xargs-arg-file-may-be-denied", "xargs -a list.txt rm -rf", ASKS, .allow = ANY },
  { "wrappers/xargs-script-deny", "xargs sh -c 'rm -rf /'", DENIES },
  { "wrappers/xargs-replaced-script", "xargs -I{} sh -c '{}'", ASKS, .allow = ANY, .deny = NONE },
  { "wrappers/xargs-old-replace-option", "xargs -i rm -rf {}", NOT_ALLOWED, .allow = ANY },
  { "wrappers/xargs-in-pipeline", "ls | xargs rm", ASKS, .parts = S ("ls", "xargs rm", "rm", "rm"),
    .origins = O (TOP, TOP, WRAP, WRAP), .deny = NONE },
  /* find: {} is an unknown part of the command, like xargs' arguments. */
  /* "rm {}" under the deny pattern "rm -rf /…": the file names are only known when
   * it runs, and under "." they all start with "./", so the pattern can never
   * match: it asks for want of an allow pattern (it was denied with a reason that
   * read as false), and runs where rm is allowed. */
  { "wrappers/find-exec-not-provably-denied-asks", "find . -exec rm {} \\;", ASKS,
    .parts = S ("find . -exec rm {} ;", "rm {}"), .suggestions = S ("find *", "rm *") },
  { "wrappers/find-exec-under-dot-never-denied", "find . -exec rm {} \\;", ALLOWS,
    .allow = S ("find *", "rm *") },
  { "wrappers/find-exec-under-dot-allow-always", "find . -exec rm -rf {} \\;", ALLOWS,
    .mode = ALLOW_ALWAYS },
  /* Every file name under "/" starts with "/": "rm -rf {}" is "rm -rf /…". */
  { "wrappers/find-exec-every-filling-denied", "find . -exec rm {} \\;", DENIES, .allow = ANY,
    .deny = S ("rm *") },
  { "wrappers/find-root-exec-denied-in-allow-always", "find / -exec rm -rf {} \\;", DENIES,
    .mode = ALLOW_ALWAYS },
  { "wrappers/find-two-roots-exec-denied", "find /tmp / -type f -exec rm -rf {} +", DENIES },
  { "wrappers/find-root-ok-denied", "find / -ok rm -rf {} \\;", DENIES },
  /* A name inside a word, options before the start, names read from a file: the
   * start is not known, so it may be denied: it asks. */
  { "wrappers/find-braces-in-a-word-may-be-denied", "find / -exec rm -rf {}x \\;", ASKS,
    .mode = ALLOW_ALWAYS },
  { "wrappers/find-option-before-start-may-be-denied", "find -L . -exec rm -rf {} \\;", ASKS,
    .mode = ALLOW_ALWAYS },
  { "wrappers/find-files0-from-may-be-denied", "find . -files0-from l -exec rm -rf {} +", ASKS,
    .mode = ALLOW_ALWAYS },
  { "wrappers/find-exec", "find . -exec rm {} \\;", ASKS,
    .parts = S ("find . -exec rm {} ;", "rm {}"),
    .origins = O (TOP, WRAP), .deny = NONE },
  { "wrappers/find-exec-allowed", "find . -name '*.js' -exec cat {} +", ALLOWS,
    .allow = S ("find *", "cat *"),
    .parts = S ("find . -name *.js -exec cat {} +", "cat {}") },
  { "wrappers/find-exec-literal-braces-pattern", "find . -exec rm {} \\;", ASKS,
    .allow = S ("find *", "rm {}"), .deny = NONE },
  { "wrappers/find-exec-deny", "find / -exec rm -rf {} \\;", DENIES },
  /* -execdir passes "./name" (GNU) or a name (busybox): it may still be "/". */
  { "wrappers/find-execdir-may-be-denied", "find / -execdir rm -rf {} +", ASKS,
    .mode = ALLOW_ALWAYS },
  { "wrappers/find-ok-asks", "find . -ok rm -rf {} \\;", ASKS },
  { "wrappers/find-ok-under-dot-never-denied", "find . -ok rm -rf {} \\;", ALLOWS, .allow = ANY },
  { "wrappers/find-okdir-may-be-denied", "find . -okdir rm -rf {} ';'", ASKS,
    .mode = ALLOW_ALWAYS },
  { "wrappers/find-two-execs", "find . -exec cat {} \\; -exec rm x \\;", ASKS,
    .allow = S ("find *", "cat *"),
    .parts = S ("find . -exec cat {} ; -exec rm x ;", "cat {}", "rm x") },
  { "wrappers/find-second-exec-asks", "find . -exec cat {} \\; -exec rm -rf {} +", ASKS },
  { "wrappers/find-second-exec-deny", "find / -exec cat {} \\; -exec rm -rf {} +", DENIES },
  { "wrappers/find-exec-unterminated", "find . -exec rm -rf {}", NOT_ALLOWED, .allow = ANY },
  { "wrappers/find-exec-script-deny", "find . -exec sh -c 'rm -rf /' \\;", DENIES },
  { "wrappers/find-exec-script-positional", "find . -exec sh -c 'rm -rf \"$1\"' _ {} \\;", ASKS,
    .allow = S ("find *", "sh *") },
  { "wrappers/find-exec-nonliteral", "find . -exec $CMD {} \\;", ASKS, .allow = ANY },
  { "wrappers/find-without-exec", "find . -name '*.js'", ALLOWS, .allow = S ("find *"),
    .parts = S ("find . -name *.js") },
  /* sh -c STRING: STRING is a script of its own. */
  { "wrappers/sh-c-deny", "sh -c 'rm -rf /'", DENIES },
  { "wrappers/sh-c", "sh -c 'ls; echo hi'", ALLOWS, .allow = S ("sh *", "ls", "echo *"),
    .parts = S ("sh -c ls; echo hi", "ls", "echo hi"), .origins = O (TOP, SCRIPT, SCRIPT) },
  { "wrappers/sh-c-needs-its-own-pattern", "sh -c 'ls'", ASKS },
  { "wrappers/sh-c-unquoted", "sh -c ls", ALLOWS, .allow = S ("sh *", "ls") },
  { "wrappers/sh-c-double-quoted", "sh -c \"ls\"", ALLOWS, .allow = S ("sh *", "ls") },
  { "wrappers/bash-c-asks", "bash -c 'ls && rm x'", ASKS, .allow = S ("bash *", "ls"),
    .parts = S ("bash -c ls && rm x", "ls", "rm x"), .origins = O (TOP, SCRIPT, SCRIPT) },
  { "wrappers/bash-c-deny", "bash -c 'rm -rf /'", DENIES },
  { "wrappers/dash-c-deny", "dash -c 'rm -rf /'", DENIES },
  { "wrappers/zsh-c-deny", "zsh -c 'rm -rf /'", DENIES },
  { "wrappers/ksh-c-deny", "ksh -c 'rm -rf /'", DENIES },
  /* zsh is not sh: ${(e)x} evaluates x's text, $~x globs it with qualifiers
   * such as *(e:cmd:), and every zsh reads ~/.zshenv. Its script is read to
   * find what the deny list refuses, never to allow it. */
  { "wrappers/zsh-c-asks", "zsh -c 'for x in *; do echo ${(e)x}; done'", ASKS,
    .allow = S ("zsh *", "echo *", "echo") },
  { "wrappers/zsh-c-plain-asks", "zsh -c 'ls'", ASKS, .allow = S ("zsh *", "ls") },
  { "wrappers/zsh-glob-subst-asks", "zsh -c 'for x in *; do echo $~x; done'", ASKS,
    .allow = S ("zsh *", "echo *", "echo") },
  { "wrappers/zsh-version-c-deny", "zsh-5.9 -c 'rm -rf /'", DENIES },
  /* ${ cmd; } (ksh93, mksh), ${|cmd;} (mksh) and ${(e)x} (zsh) run code in
   * other shells; bash and dash refuse them as bad substitutions. */
  { "expansions/ksh-funsub-asks", "mksh -c 'echo ${ touch x; }'", ASKS,
    .allow = S ("mksh *", "echo *", "echo") },
  { "expansions/ksh93-funsub-asks", "ksh93 -c 'echo ${ touch x; }'", ASKS,
    .allow = S ("ksh93 *", "echo *", "echo") },
  { "expansions/mksh-valsub-asks", "mksh -c 'echo ${|touch x;}'", ASKS,
    .allow = S ("mksh *", "echo *", "echo") },
  { "expansions/bad-substitution-asks", "echo ${(e)x}", ASKS },
  { "expansions/empty-substitution-asks", "echo ${}", ASKS },
  { "expansions/special-parameters-run", "echo ${#} ${?} ${!} ${-} ${$} ${#x} ${@} ${*} ${10}", ALLOWS },
  { "wrappers/sh-c-with-arguments-deny", "sh -c 'rm -rf /' sh x", DENIES },
  { "wrappers/bash-option-before-c", "bash -e -c 'ls'", ALLOWS, .allow = S ("bash *", "ls") },
  { "wrappers/bash-combined-options", "bash -lc 'rm -rf /'", NOT_ALLOWED, .allow = ANY },
  /* An interactive or login shell runs its startup files first (found by
   * the oracle: rbash -cevli ran ~/.bashrc's id -u). */
  { "wrappers/bash-interactive-asks", "bash -i -c ls", ASKS, .allow = S ("bash *", "ls") },
  { "wrappers/bash-login-asks", "bash --login -c ls", ASKS, .allow = S ("bash *", "ls") },
  { "wrappers/bash-login-short-asks", "bash -l -c ls", ASKS, .allow = S ("bash *", "ls") },
  { "wrappers/rbash-combined-interactive-asks", "rbash -cevli find . -exec true \\; -exec evil \\;",
    ASKS, .allow = S ("rbash *", "find") },
  { "wrappers/bash-rcfile-asks", "bash --rcfile x -c ls", ASKS, .allow = S ("bash *", "ls") },
  { "wrappers/bash-not-interactive-allows", "bash +i -c ls", ALLOWS, .allow = S ("bash *", "ls") },
  { "wrappers/sh-c-nonliteral", "sh -c \"$CMD\"", ASKS, .allow = ANY },
  { "wrappers/sh-c-positional", "sh -c \"$1\" -- 'rm -rf /'", ASKS, .allow = ANY },
  { "wrappers/sh-c-substitution-in-string-deny", "bash -c \"echo $(rm -rf /)\"", DENIES },
  { "wrappers/sh-c-substitution-in-script-deny", "sh -c 'echo $(rm -rf /)'", DENIES },
  { "wrappers/sh-c-nested-deny", "sh -c \"sh -c 'rm -rf /'\"", DENIES },
  { "wrappers/sh-c-parse-error", "sh -c 'echo \"'", ASKS, .allow = S ("sh *", "echo *") },
  { "wrappers/sh-c-eval", "bash -c 'eval ls'", ASKS, .allow = ANY },
  /* The file may say anything, and an earlier command may write it ("echo evil > x;
   * sh x"): the oracle ran such lines. With nested programs checked (the
   * default) the guard checks every program the script starts, as for
   * "node app.js" under "node *"; with "nested": "off" nothing would. */
  { "wrappers/sh-script-file", "sh script.sh", ALLOWS, .allow = S ("sh *"),
    .parts = S ("sh script.sh") },
  { "wrappers/sh-script-file-nested-off", "sh script.sh", ASKS, .allow = S ("sh *"),
    .parts = S ("sh script.sh"), .nested_off = TRUE },
  { "wrappers/sh-script-file-written-first", "echo evil > x.sh; sh x.sh", ALLOWS,
    .allow = S ("sh *", "echo *") },
  { "wrappers/sh-script-file-written-first-nested-off", "echo evil > x.sh; sh x.sh", ASKS,
    .allow = S ("sh *", "echo *"), .nested_off = TRUE },
  { "wrappers/bash-options-script-file", "bash -e -u ./build.sh --fast", ALLOWS,
    .allow = S ("bash *") },
  { "wrappers/bash-options-script-file-nested-off", "bash -e -u ./build.sh --fast", ASKS,
    .allow = S ("bash *"), .nested_off = TRUE },
  { "wrappers/sh-script-file-after-dashes", "sh -- build.sh", ALLOWS, .allow = S ("sh *") },
  { "wrappers/sh-script-file-arguments-vanish", "sh build.sh $x", ALLOWS, .allow = S ("sh *") },
  { "wrappers/busybox-sh-script-file", "busybox sh build.sh", ALLOWS,
    .allow = S ("busybox *", "sh *") },
  { "wrappers/sh-script-file-allow-always", "sh build.sh", ALLOWS, .mode = ALLOW_ALWAYS },
  { "wrappers/sh-script-file-allow-always-nested-off", "sh build.sh", ASKS,
    .mode = ALLOW_ALWAYS, .nested_off = TRUE },
  { "wrappers/sh-script-file-not-allowed", "sh ./build.sh", ASKS, .allow = SEED,
    .deny = SEED_DENY, .suggestions = S ("sh *") },
  { "wrappers/sh-script-file-denied", "sh ./build.sh", DENIES, .allow = ANY,
    .deny = S ("sh ./build.sh") },
  /* Not a file the guard follows: no script operand (standard input), one
   * that may vanish or become an option, a login or interactive shell. */
  { "wrappers/sh-script-file-vanishes", "curl -s x | sh -- $f", ASKS,
    .allow = S ("sh *", "curl *") },
  { "wrappers/sh-script-file-positional", "curl -s x | sh -- \"$@\"", ASKS,
    .allow = S ("sh *", "curl *") },
  { "wrappers/sh-script-file-variable", "sh -- \"$f\"", ASKS, .allow = S ("sh *") },
  { "wrappers/sh-script-file-may-be-option", "curl -s x | sh \"$f\" x.sh", ASKS,
    .allow = S ("sh *", "curl *") },
  { "wrappers/sh-script-file-login", "bash -l build.sh", ASKS, .allow = S ("bash *") },
  { "wrappers/sh-script-file-interactive", "bash -i build.sh", ASKS, .allow = S ("bash *") },
  { "wrappers/sh-script-file-from-xargs", "ls | xargs sh", ASKS, .allow = ANY, .deny = NONE },
  { "wrappers/sh-script-file-from-find", "find . -name '*.sh' -exec sh {} \\;", ASKS,
    .allow = ANY, .deny = NONE },
  { "wrappers/sh-script-file-stdin", "sh -s build.sh < x", ASKS, .allow = S ("sh *") },
  { "wrappers/sh-dash-file", "sh - run.sh <<< ''", ASKS, .mode = ALLOW_ALWAYS,
    .nested_off = TRUE },
  { "wrappers/sh-dash-file-guarded", "sh - run.sh <<< ''", ALLOWS, .mode = ALLOW_ALWAYS },
  { "wrappers/sh-syntax-check-only", "sh -n script.sh", ALLOWS, .allow = S ("sh *") },
  { "wrappers/pipe-to-sh", "ls | sh", ASKS, .parts = S ("ls", "sh") },
  { "wrappers/nested", "sudo env nice -n 5 ls", ALLOWS,
    .allow = S ("sudo *", "env *", "nice *", "ls"),
    .parts = S ("sudo env nice -n 5 ls", "env nice -n 5 ls", "nice -n 5 ls", "ls"),
    .origins = O (TOP, WRAP, WRAP, WRAP) },
  { "wrappers/nested-inner-asks", "sudo env nice -n 5 rm x", ASKS,
    .allow = S ("sudo *", "env *", "nice *") },
  { "wrappers/nested-xargs-may-be-denied", "nohup timeout 5 xargs rm -rf", ASKS,
    .mode = ALLOW_ALWAYS },
  { "wrappers/nested-script-deny", "nice -n 5 nohup sh -c 'rm -rf /'", DENIES },
  { "wrappers/basename-env-deny", "/usr/bin/env rm -rf /", DENIES },
  { "wrappers/basename-xargs-may-be-denied", "/usr/bin/xargs rm -rf", ASKS,
    .mode = ALLOW_ALWAYS },
  { "wrappers/basename-xargs-deny", "/usr/bin/xargs /bin/rm -rf /{}", DENIES, .allow = ANY },
  { "wrappers/basename-sh-deny", "/bin/sh -c 'rm -rf /'", DENIES },
  { "wrappers/basename-inner-deny", "env /bin/rm -rf /", DENIES },
  { "wrappers/basename-wrapper-inner-asks", "/usr/bin/nohup rm x", ASKS,
    .allow = S ("/usr/bin/nohup *"),
    .parts = S ("/usr/bin/nohup rm x", "rm x") },
  { "wrappers/nonliteral-command", "nohup $X", ASKS, .allow = ANY },

  /* ---- Always ask: the command name must be a literal word ---- */
  { "name/variable", "$CMD -la", ASKS, .allow = ANY, .suggestions = NONE },
  { "name/braced-variable", "${CMD} x", ASKS, .allow = ANY },
  { "name/quoted-variable", "\"$CMD\"", ASKS, .allow = ANY },
  { "name/backticks", "`echo ls`", ASKS, .allow = ANY },
  { "name/star", "l* -la", ASKS, .allow = ANY },
  { "name/question-mark", "l? x", ASKS, .allow = ANY },
  { "name/bracket", "[l]s", ASKS, .allow = ANY },
  /* A lone "[" is not a glob (bash needs a closing "]" in the same word): it
   * is the test command, which a pattern may allow. */
  { "name/test-bracket", "[ -f x ]", ALLOWS, .allow = S ("[ *") },
  { "name/test-bracket-unmatched", "[ -f x ]", ASKS, .allow = S ("ls *") },
  { "name/brace-expansion", "{ls,rm} x", ASKS, .allow = ANY },
  { "name/brace-expansion-suffix", "ls{,}", ASKS, .allow = ANY },
  { "name/tilde", "~/bin/tool", ASKS, .allow = ANY },
  { "name/tilde-user", "~root/bin/x", ASKS, .allow = ANY },
  { "name/tilde-not-leading", "ab~c", ALLOWS, .allow = ANY },
  { "name/ansi-c", "$'\\x72m' -rf /", ASKS, .allow = ANY, .deny = NONE },
  { "name/ansi-c-deny-pattern", "$'\\x72m' -rf /", NOT_ALLOWED, .allow = ANY },
  { "name/ansi-c-plain", "$'ls'", ASKS, .allow = ANY },
  { "name/backslash-is-quote-removal", "l\\s", ALLOWS, .allow = S ("ls"), .parts = S ("ls") },
  { "name/leading-backslash", "\\ls", ALLOWS, .allow = S ("ls"), .parts = S ("ls") },
  { "name/partly-quoted", "'l's", ALLOWS, .allow = S ("ls"), .parts = S ("ls") },
  { "name/double-quoted", "\"ls\" -la", ALLOWS, .parts = S ("ls -la") },
  { "name/relative-path", "./run.sh", ALLOWS, .allow = ANY },
  { "name/glob-in-argument", "ls *.txt", ALLOWS, .parts = S ("ls *.txt") },
  { "name/braces-in-argument", "echo {a,b}", ALLOWS, .parts = S ("echo {a,b}") },
  { "name/tilde-in-argument", "ls ~", ALLOWS, .parts = S ("ls ~") },
  { "name/variable-in-argument", "echo $HOME", ALLOWS, .parts = S ("echo $HOME") },
  { "name/variable-in-allow-always", "$CMD", ASKS, .mode = ALLOW_ALWAYS },

  /* ---- Always ask: assignments, unless a pattern matches them included ---- */
  { "assignments/bare", "PATH=/tmp; ls", ASKS, .parts = S ("PATH=/tmp", "ls") },
  { "assignments/bare-lifted", "FOO=1", ALLOWS, .allow = S ("FOO=1"), .parts = S ("FOO=1") },
  { "assignments/bare-lifted-by-star", "PATH=/tmp; ls", ALLOWS, .allow = ANY },
  { "assignments/bare-two", "A=1 B=2", ASKS, .allow = S ("A=1") },
  { "assignments/prefix", "FOO=1 ls", ASKS, .parts = S ("FOO=1 ls") },
  { "assignments/prefix-preload", "LD_PRELOAD=/tmp/x.so ls", ASKS },
  { "assignments/prefix-lifted", "FOO=1 ls", ALLOWS, .allow = S ("FOO=1 ls"),
    .parts = S ("FOO=1 ls") },
  { "assignments/prefix-lifted-by-glob", "FOO=1 ls -la", ALLOWS, .allow = S ("FOO=* ls *") },
  { "assignments/prefix-two-lifted", "FOO=1 BAR=2 ls", ALLOWS, .allow = S ("FOO=1 BAR=2 ls") },
  { "assignments/prefix-two-each-alone", "FOO=1 BAR=2 ls", ASKS,
    .allow = S ("FOO=1 ls", "BAR=2 ls", "ls") },
  { "assignments/prefix-in-allow-always", "FOO=1 ls", ASKS, .mode = ALLOW_ALWAYS, .allow = NONE },
  { "assignments/prefix-lifted-in-allow-always", "FOO=1 ls", ALLOWS, .mode = ALLOW_ALWAYS,
    .allow = S ("FOO=1 ls") },
  { "assignments/after-the-name-is-an-argument", "ls FOO=1", ALLOWS, .parts = S ("ls FOO=1") },

  /* ---- Always ask: functions, eval, source, alias, coproc, trap, (( )), [[ ]] ---- */
  { "special/function", "f() { ls; }", ASKS, .allow = ANY, .suggestions = NONE },
  { "special/function-keyword", "function f { ls; }", ASKS, .allow = ANY },
  { "special/function-keyword-parens", "function f() { ls; }", ASKS, .allow = ANY },
  { "special/function-subshell-body", "f() ( ls )", ASKS, .allow = ANY },
  { "special/function-body-deny", "f() { rm -rf /; }; f", DENIES },
  { "special/eval", "eval ls", ASKS, .allow = ANY, .suggestions = NONE },
  { "special/eval-in-substitution", "echo $(eval ls)", ASKS, .allow = ANY },
  { "special/source", "source env.sh", ASKS, .allow = ANY },
  { "special/dot", ". env.sh", ASKS, .allow = ANY },
  { "special/alias", "alias ls=rm", ASKS, .allow = ANY },
  { "special/coproc", "coproc ls", ASKS, .allow = ANY },
  { "special/coproc-named", "coproc W { ls; }", ASKS, .allow = ANY },
  { "special/trap", "trap 'ls' EXIT", ASKS, .allow = ANY },
  { "special/trap-deny-pattern", "trap 'rm -rf /' EXIT", NOT_ALLOWED, .allow = ANY },
  { "special/arithmetic-command", "(( x = 1 + 2 ))", ASKS, .allow = ANY },
  { "special/arithmetic-command-tight", "((x++))", ASKS, .allow = ANY },
  { "special/nested-subshells-are-not-arithmetic", "( (ls) )", ALLOWS, .allow = ANY },
  { "special/test-command", "[[ -f x ]]", ASKS, .allow = ANY },
  { "special/test-command-in-list", "[[ -f x ]] && ls", ASKS, .allow = ANY },
  { "special/deny-beats-forced-ask", "eval x; rm -rf /", DENIES },
  { "special/deny-beats-nonliteral-name", "$X; rm -rf /", DENIES },

  /* ---- Always ask: output redirections leaving the workspace ---- */
  { "redirect/relative", "ls > out.txt", ALLOWS, .allow = ANY },
  { "redirect/dot-relative", "ls > ./out.txt", ALLOWS, .allow = ANY },
  { "redirect/subdirectory", "ls > build/logs/out.txt", ALLOWS, .allow = ANY },
  { "redirect/absolute-inside", "ls > /workspace/out.txt", ALLOWS, .allow = ANY },
  { "redirect/absolute-dotdot-inside", "ls > /workspace/a/../b.txt", ALLOWS, .allow = ANY },
  { "redirect/dots-inside", "ls > a/./b/../c.txt", ALLOWS, .allow = ANY },
  { "redirect/three-dots-is-a-name", "ls > ...", ALLOWS, .allow = ANY },
  { "redirect/dotdot-prefixed-name", "ls > ..foo", ALLOWS, .allow = ANY },
  { "redirect/parent", "ls > ../out.txt", ASKS, .allow = ANY, .suggestions = NONE },
  { "redirect/escape-through-subdirectory", "ls > sub/../../x", ASKS, .allow = ANY },
  { "redirect/absolute-escape", "ls > /workspace/../etc/passwd", ASKS, .allow = ANY },
  { "redirect/sibling-with-same-prefix", "ls > /workspace2/x", ASKS, .allow = ANY },
  { "redirect/absolute-outside", "ls > /etc/passwd", ASKS, .allow = ANY },
  { "redirect/tmp", "ls > /tmp/x", ASKS, .allow = ANY },
  { "redirect/dev-null", "ls > /dev/null", ALLOWS, .allow = ANY },
  { "redirect/dev-stdout", "ls > /dev/stdout", ALLOWS, .allow = ANY },
  { "redirect/dev-stderr", "ls 2> /dev/stderr", ALLOWS, .allow = ANY },
  { "redirect/dev-tty", "ls > /dev/tty", ASKS, .allow = ANY },
  { "redirect/dev-disk", "ls > /dev/sda", ASKS, .allow = ANY },
  { "redirect/through-dev-null", "ls > /dev/null/../x", ASKS, .allow = ANY },
  { "redirect/descriptor", "ls >&2", ALLOWS, .allow = ANY },
  { "redirect/descriptor-numbered", "ls 1>&2", ALLOWS, .allow = ANY },
  { "redirect/descriptor-stderr-to-stdout", "ls 2>&1", ALLOWS, .allow = ANY },
  { "redirect/descriptor-variable", "ls >&$FD", ASKS, .allow = ANY },
  { "redirect/amp-file-outside", "ls >& /etc/x", ASKS, .allow = ANY },
  { "redirect/amp-file-inside", "ls >& out.txt", ALLOWS, .allow = ANY },
  { "redirect/operator-gt", "ls > /etc/x", ASKS, .allow = ANY },
  { "redirect/operator-append", "ls >> /etc/x", ASKS, .allow = ANY },
  { "redirect/operator-append-inside", "ls >> out.txt", ALLOWS, .allow = ANY },
  { "redirect/operator-clobber", "ls >| /etc/x", ASKS, .allow = ANY },
  { "redirect/operator-clobber-inside", "ls >| out.txt", ALLOWS, .allow = ANY },
  { "redirect/operator-both", "ls &> /etc/x", ASKS, .allow = ANY },
  { "redirect/operator-both-inside", "ls &> out.txt", ALLOWS, .allow = ANY },
  { "redirect/operator-both-append", "ls &>> /etc/x", ASKS, .allow = ANY },
  { "redirect/operator-both-append-inside", "ls &>> out.txt", ALLOWS, .allow = ANY },
  { "redirect/operator-read-write", "cat <> /etc/passwd", ASKS },
  { "redirect/operator-read-write-inside", "cat <> data.bin", ALLOWS },
  { "redirect/operator-fd", "ls 2> /etc/x", ASKS, .allow = ANY },
  { "redirect/operator-fd-inside", "ls 2> err.log", ALLOWS, .allow = ANY },
  { "redirect/operator-fd-append", "ls 2>> /etc/x", ASKS, .allow = ANY },
  { "redirect/operator-fd-three", "ls 3> /etc/x", ASKS, .allow = ANY },
  { "redirect/operator-fd-ten", "ls 10> /etc/x", ASKS, .allow = ANY },
  { "redirect/second-target-outside", "ls > out.txt 2> /etc/x", ASKS, .allow = ANY },
  { "redirect/nonliteral-variable", "ls > $F", ASKS, .allow = ANY },
  { "redirect/nonliteral-quoted-variable", "ls > \"$HOME/x\"", ASKS, .allow = ANY },
  { "redirect/nonliteral-tilde", "ls > ~/x", ASKS, .allow = ANY },
  { "redirect/nonliteral-glob", "ls > *.txt", ASKS, .allow = ANY },
  { "redirect/nonliteral-braces", "ls > out{1,2}.txt", ASKS, .allow = ANY },
  { "redirect/nonliteral-substitution", "ls > $(echo x)", ASKS, .allow = ANY },
  { "redirect/quoted-literal", "ls > \"out file.txt\"", ALLOWS, .allow = ANY,
    .parts = S ("ls > out file.txt") },
  /* Single quotes make "$HOME" a literal file name in the workspace. */
  { "redirect/single-quoted-dollar", "ls > '$HOME'", ALLOWS, .allow = ANY },
  { "redirect/input-outside", "cat < /etc/passwd", ALLOWS },
  { "redirect/input-numbered", "cat 0< /etc/passwd", ALLOWS },
  { "redirect/input-nonliteral", "cat < $F", ALLOWS },
  { "redirect/only-redirection", "> out.txt", ALLOWS, .parts = S ("> out.txt") },
  { "redirect/only-redirection-no-patterns", ">> out.txt", ALLOWS, .allow = NONE, .deny = NONE },
  { "redirect/only-redirection-outside", "> /etc/passwd", ASKS, .suggestions = NONE },
  { "redirect/only-redirection-denied", "> out.txt", DENIES, .allow = ANY, .deny = S ("> *") },
  { "redirect/only-redirection-substitution-deny", "> $(rm -rf /)", DENIES },
  { "redirect/after-cd", "cd /tmp && ls > out.txt", ASKS, .allow = S ("cd *", "ls *") },
  { "redirect/after-cd-semicolon", "cd sub; ls > out.txt", ASKS, .allow = S ("cd *", "ls *") },
  { "redirect/after-cd-dot", "cd . && ls > out.txt", ASKS, .allow = S ("cd *", "ls *") },
  { "redirect/after-cd-in-group", "{ cd /tmp; ls > out.txt; }", ASKS, .allow = S ("cd *", "ls *") },
  { "redirect/after-pushd", "pushd sub && ls > out.txt", ASKS, .allow = S ("pushd *", "ls *") },
  { "redirect/after-popd", "popd; ls > out.txt", ASKS, .allow = S ("popd", "ls *") },
  { "redirect/before-cd", "ls > out.txt; cd /tmp", ALLOWS, .allow = S ("cd *", "ls *") },
  { "redirect/after-cd-absolute-inside", "cd /tmp && ls > /workspace/out.txt", ALLOWS,
    .allow = S ("cd *", "ls *") },
  { "redirect/after-cd-dev-null", "cd /tmp && ls > /dev/null", ALLOWS,
    .allow = S ("cd *", "ls *") },
  // design: the rule is "a cd earlier in the line", even one in a subshell.
  { "redirect/after-cd-in-subshell", "(cd /tmp); ls > out.txt", ASKS, .allow = S ("cd *", "ls *") },
  // design: a cd run through a wrapper is a cd.
  { "redirect/after-builtin-cd", "builtin cd /tmp; ls > out.txt", ASKS,
    .allow = S ("builtin *", "cd *", "ls *") },

  /* ---- The exec call's context ---- */
  { "context/cwd-outside", "ls > out.txt", ASKS, .allow = ANY, .cwd = "/tmp" },
  { "context/cwd-outside-absolute-target", "ls > /workspace/out.txt", ALLOWS, .allow = ANY,
    .cwd = "/tmp" },
  { "context/cwd-outside-no-redirection", "ls", ALLOWS, .cwd = "/tmp" },
  { "context/cwd-outside-dev-null", "ls > /dev/null", ALLOWS, .cwd = "/tmp" },
  { "context/cwd-escaping-with-dotdot", "ls > out.txt", ASKS, .allow = ANY,
    .cwd = "/workspace/../etc" },
  { "context/cwd-sibling-with-same-prefix", "ls > out.txt", ASKS, .allow = ANY,
    .cwd = "/workspace2" },
  { "context/cwd-subdirectory", "ls > out.txt", ALLOWS, .allow = ANY, .cwd = "/workspace/sub" },
  { "context/workspace-absolute-inside", "ls > /home/u/proj/out.txt", ALLOWS, .allow = ANY,
    .workspace = "/home/u/proj" },
  { "context/workspace-default-no-longer-inside", "ls > /workspace/out.txt", ASKS, .allow = ANY,
    .workspace = "/home/u/proj" },
  { "context/workspace-relative", "ls > out.txt", ALLOWS, .allow = ANY,
    .workspace = "/home/u/proj" },
  { "context/workspace-escape", "ls > /home/u/proj/../x", ASKS, .allow = ANY,
    .workspace = "/home/u/proj" },
  { "context/workspace-trailing-slash", "ls > /home/u/proj/out.txt", ALLOWS, .allow = ANY,
    .workspace = "/home/u/proj/" },
  /* The workspace as given is normalised first, whatever its spelling. */
  { "context/workspace-dot-and-double-slash", "ls > /home/u/proj/out.txt", ALLOWS, .allow = ANY,
    .workspace = "/home//u/./proj" },
  { "context/workspace-dotdot", "ls > /home/u/x/out.txt", ASKS, .allow = ANY,
    .workspace = "/home/u/x/../proj" },
  { "context/workspace-dotdot-inside", "ls > /home/u/proj/out.txt", ALLOWS, .allow = ANY,
    .workspace = "/home/u/x/../proj" },
  { "context/env", "ls", ASKS, .env = S ("FOO=1") },
  { "context/env-with-star", "ls", ASKS, .allow = ANY, .env = S ("LD_PRELOAD=/tmp/x.so") },
  { "context/env-in-allow-always", "ls", ASKS, .mode = ALLOW_ALWAYS, .env = S ("PATH=/tmp") },
  { "context/env-empty", "ls", ALLOWS, .env = NONE },
  { "context/env-deny", "rm -rf /", DENIES, .env = S ("A=1") },

  /* ---- Modes ---- */
  { "modes/approval-always", "ls", ASKS, .mode = APPROVAL_ALWAYS, .allow = S ("ls") },
  { "modes/approval-always-star", "echo hi", ASKS, .mode = APPROVAL_ALWAYS, .allow = ANY },
  { "modes/approval-always-deny", "rm -rf /", DENIES, .mode = APPROVAL_ALWAYS },
  { "modes/allow-always", "rm x", ALLOWS, .mode = ALLOW_ALWAYS, .allow = NONE, .deny = NONE },
  { "modes/allow-always-compound", "ls; rm x | wc -l && curl -s x", ALLOWS, .mode = ALLOW_ALWAYS,
    .allow = NONE },
  { "modes/allow-always-deny", "rm -rf /", DENIES, .mode = ALLOW_ALWAYS },
  { "modes/allow-always-deny-in-substitution", "echo $(rm -rf /)", DENIES, .mode = ALLOW_ALWAYS },
  { "modes/allow-always-redirection", "ls > /etc/x", ASKS, .mode = ALLOW_ALWAYS },
  { "modes/allow-always-parse-error", "echo 'x", ASKS, .mode = ALLOW_ALWAYS },
  { "modes/allow-always-eval", "eval ls", ASKS, .mode = ALLOW_ALWAYS },
  { "modes/allow-always-nonliteral-script", "sh -c \"$X\"", ASKS, .mode = ALLOW_ALWAYS },
  { "modes/allow-always-nonliteral-wrapped", "nohup $X", ASKS, .mode = ALLOW_ALWAYS },
  { "modes/allowlist-without-patterns", "ls", ASKS, .allow = NONE, .deny = NONE },

  /* ---- Deny beats everything ---- */
  { "deny/simple", "rm -rf /", DENIES, .parts = S ("rm -rf /") },
  { "deny/subdirectory", "rm -rf /etc", DENIES },
  { "deny/relative-not-matched", "rm -rf ./build", ASKS },
  { "deny/blanks-normalized", "rm  -rf   /", DENIES, .parts = S ("rm -rf /") },
  { "deny/quoted-arguments", "rm '-rf' \"/\"", DENIES },
  { "deny/quoted-name", "\"rm\" -rf /", DENIES },
  { "deny/escaped-name", "r\\m -rf /", DENIES },
  { "deny/absolute-name", "/bin/rm -rf /", DENIES },
  { "deny/relative-name", "./rm -rf /", DENIES },
  /* Patterns are text, not option parsing. */
  { "deny/separate-flags-not-matched", "rm -r -f /", ASKS },
  { "deny/beats-allow", "rm -rf /tmp", DENIES, .allow = S ("rm *") },
  { "deny/allow-still-allows-the-rest", "rm x", ALLOWS, .allow = S ("rm *") },
  { "deny/beats-star", "ls; rm -rf /", DENIES, .allow = ANY },
  { "deny/in-substitution-beats-star", "echo $(rm -rf /)", DENIES, .allow = ANY },
  { "deny/second-pattern", "git  push origin main", DENIES },
  { "deny/wrapper-itself", "sudo ls", DENIES, .allow = ANY, .deny = S ("sudo *") },
  { "deny/wrapper-itself-by-basename", "/usr/bin/sudo ls", DENIES, .allow = ANY,
    .deny = S ("sudo *") },
  { "deny/tilde", "ls; rm -rf ~", DENIES, .deny = S ("rm -rf ~*"), .parts = S ("ls", "rm -rf ~") },
  { "deny/with-parse-error", "rm -rf /; echo 'unterminated", NOT_ALLOWED, .allow = ANY },
  /* Allow patterns match the text as written: no basename. */
  { "deny/allow-not-by-basename", "/tmp/ls", ASKS },
  { "deny/allow-not-by-basename-bin", "/bin/ls", ASKS, .allow = S ("ls") },
  { "deny/allow-not-by-basename-relative", "./ls -la", ASKS, .allow = S ("ls *") },

  /* dash runs "t &" and "> /dev/null evil" before the syntax error on the
   * next line, also when ";" or "&" ends the line (found by the oracle). */
  { "dialects/line-run-before-error-semicolon", "t&>/dev/null evil;\nf <(x)", DENIES,
    .mode = ALLOW_ALWAYS, .deny = S ("evil") },
  { "dialects/line-run-before-error-ampersand", "t&>/dev/null evil &\nf <(x)", DENIES,
    .mode = ALLOW_ALWAYS, .deny = S ("evil") },
  { "dialects/line-run-before-error-comment", "t&>/dev/null evil; # c\nf <(x)", DENIES,
    .mode = ALLOW_ALWAYS, .deny = S ("evil") },
  { "dialects/line-run-before-error-allowlist", "t&>/dev/null evil;\nf <(x)", ASKS,
    .allow = S ("t", "f *") },

  /* ---- Ask rules: deny, then ask, then allow ---- */
  { "ask/beats-allow", "git push origin main", ASKS, .allow = S ("git *"), .deny = NONE,
    .ask = S ("git push *"), .suggestions = NONE, .reason = "ask rule “git push *”" },
  { "ask/leaves-the-rest-allowed", "git status", ALLOWS, .allow = S ("git *"), .deny = NONE,
    .ask = S ("git push *") },
  /* Ask rules see the spellings of options that deny patterns see (issue 26). */
  { "ask/other-spelling", "git -C . push origin", ASKS, .allow = S ("git *"), .deny = NONE,
    .ask = S ("git push *") },
  { "ask/other-spelling-equals", "git diff --output x", ASKS, .allow = S ("git *"),
    .deny = NONE, .ask = S ("git diff --output=*") },
  { "ask/glob-as-allow", "git push", ALLOWS, .allow = S ("git *"), .deny = NONE,
    .ask = S ("git push *") },
  { "ask/bare-and-star", "git push", ASKS, .allow = S ("git *"), .deny = NONE,
    .ask = S ("git push", "git push *"), .reason = "ask rule “git push”" },
  { "ask/allow-always", "git push origin", ASKS, .mode = ALLOW_ALWAYS, .deny = NONE,
    .ask = S ("git push *"), .suggestions = NONE, .reason = "ask rule “git push *”" },
  { "ask/approval-always", "git push origin", ASKS, .mode = APPROVAL_ALWAYS, .deny = NONE,
    .ask = S ("git push *"), .reason = "ask rule “git push *”" },
  { "ask/deny-beats-ask", "git push --force origin", DENIES, .allow = S ("git *"),
    .ask = S ("git push *"), .deny = S ("git push --force *") },
  { "ask/deny-beats-ask-in-allow-always", "git status; git push --force origin", DENIES,
    .mode = ALLOW_ALWAYS, .ask = S ("git *"), .deny = S ("git push --force *") },
  { "ask/any-command-of-the-line", "git status && git push origin", ASKS, .allow = S ("git *"),
    .deny = NONE, .ask = S ("git push *"), .reason = "ask rule “git push *”" },
  /* "git push $r" runs "git push" when $r is empty: the exact ask rule names it. */
  { "ask/vanishing-word", "git push $r", ASKS, .allow = S ("git *"), .deny = NONE,
    .ask = S ("git push"), .reason = "ask rule “git push”" },
  { "ask/vanishing-word-allow-always", "git push $r", ASKS, .mode = ALLOW_ALWAYS,
    .deny = NONE, .ask = S ("git push") },
  { "ask/star-asks-for-everything", "ls", ASKS, .allow = ANY, .deny = NONE, .ask = ANY },
  /* The other parts still get their suggestions; the asked one gets none. */
  { "ask/others-suggested", "npm test; git push origin", ASKS, .allow = S ("git *"),
    .deny = NONE, .ask = S ("git push *"), .suggestions = S ("npm test") },
  /* Wherever the command is in the line. */
  { "ask/in-substitution", "echo $(git push origin)", ASKS,
    .allow = S ("echo", "echo *", "git *"), .deny = NONE, .ask = S ("git push *"),
    .reason = "ask rule “git push *”" },
  { "ask/in-wrapper", "timeout 60 git push origin", ASKS, .allow = S ("timeout *", "git *"),
    .deny = NONE, .ask = S ("git push *"), .reason = "ask rule “git push *”" },
  { "ask/in-env-wrapper", "env LC_ALL=C git push origin", ASKS, .mode = ALLOW_ALWAYS,
    .deny = NONE, .ask = S ("git push *"), .reason = "ask rule “git push *”" },
  { "ask/in-sh-c", "sh -c 'git push origin'", ASKS, .allow = S ("sh *", "git *"), .deny = NONE,
    .ask = S ("git push *"), .reason = "ask rule “git push *”" },
  { "ask/in-find-exec", "find . -name x -exec git push {} ;", ASKS, .mode = ALLOW_ALWAYS,
    .deny = NONE, .ask = S ("git push *") },
  /* As deny patterns do: by basename, after assignments, for every filling. */
  { "ask/absolute-name", "/usr/bin/git push origin", ASKS, .allow = S ("/usr/bin/git *"),
    .deny = NONE, .ask = S ("git push *"), .reason = "ask rule “git push *”" },
  { "ask/after-assignment", "GIT_TRACE=1 git push origin", ASKS, .allow = ANY, .deny = NONE,
    .ask = S ("git push *") },
  { "ask/xargs-arguments", "echo origin | xargs git push", ASKS, .mode = ALLOW_ALWAYS,
    .deny = NONE, .ask = S ("git push *"), .reason = "ask rule “git push *”" },
  { "ask/expansion-may-match", "git $WHAT origin", ASKS, .mode = ALLOW_ALWAYS, .deny = NONE,
    .ask = S ("git push *"), .reason = "ask rule “git push *”" },
  { "ask/expansion-cannot-match", "ls $DIR", ALLOWS, .mode = ALLOW_ALWAYS, .deny = NONE,
    .ask = S ("git push *") },

  /* ---- Bypass attempts from the README ---- */
  { "bypass/rm-home", "ls; rm -rf ~", ASKS, .parts = S ("ls", "rm -rf ~") },
  { "bypass/curl-into-sh-in-substitution", "cat $(curl x|sh)", ASKS,
    .parts = S ("cat $(curl x|sh)", "curl x", "sh"),
    .origins = O (TOP, SUB, SUB) },
  { "bypass/find-exec", "find . -type f -exec rm {} +", ASKS, .deny = NONE },
  { "bypass/find-exec-asks", "find . -type f -exec rm {} +", ASKS },
  { "bypass/find-exec-may-be-denied", "find -L . -type f -exec rm -rf {} +", ASKS,
    .mode = ALLOW_ALWAYS },
  { "bypass/find-exec-deny", "find / -type f -exec rm -rf {} +", DENIES, .mode = ALLOW_ALWAYS },
  { "bypass/xargs", "xargs rm", ASKS, .deny = NONE },
  { "bypass/xargs-may-be-denied", "xargs rm", ASKS, .mode = ALLOW_ALWAYS },
  { "bypass/sh-c-with-sh-allowed", "sh -c 'rm -rf /'", DENIES, .allow = S ("sh *") },
  { "bypass/and", "ls && rm x", ASKS, .allow = S ("ls*") },
  { "bypass/pipe-to-sh", "ls | sh", ASKS, .allow = S ("ls", "ls *") },
  { "bypass/echo-into-sh", "echo 'rm -rf /' | sh", ASKS, .parts = S ("echo rm -rf /", "sh") },
  { "bypass/escaped-letter", "l\\s; r\\m x", ASKS, .allow = S ("ls"), .parts = S ("ls", "rm x") },
  { "bypass/quoted-letter", "'l's", ALLOWS, .allow = S ("ls") },
  { "bypass/ansi-c-name", "$'\\x72m' -rf x", ASKS, .allow = S ("ls", "$'\\x72m' *"), .deny = NONE },
  { "bypass/ifs", "IFS=/; ls", ASKS },

  /* ---- Parse errors and input the engine cannot see through ---- */
  { "parse/unterminated-single-quote", "echo 'abc", ASKS, .allow = ANY },
  { "parse/unterminated-double-quote", "echo \"abc", ASKS, .allow = ANY },
  { "parse/unterminated-ansi-c", "echo $'abc", ASKS, .allow = ANY },
  { "parse/unterminated-in-allowlist", "ls 'x", ASKS },
  { "parse/redirection-without-target", "ls >", ASKS, .allow = ANY },
  { "parse/redirection-into-separator", "ls > ; ls", ASKS, .allow = ANY },
  // design: invalid UTF-8 asks; valid UTF-8 is an ordinary word.
  { "utf8/invalid-argument", "echo \xff\xfe", ASKS, .allow = ANY },
  { "utf8/invalid-name", "\xffls", ASKS, .allow = ANY },
  { "utf8/overlong", "echo \xc0\xaf", ASKS, .allow = ANY },
  { "utf8/valid", "echo caf\xc3\xa9 \xe2\x9c\x93", ALLOWS,
    .parts = S ("echo caf\xc3\xa9 \xe2\x9c\x93") },
  /* bash's $'\xff' makes a byte that is not UTF-8: what is shown has U+FFFD
   * for it, wherever it stands in the text (dash reads "$\xff"). */
  { "utf8/ansi-c-byte", "echo $'\\xff'", ALLOWS, .allow = S ("echo *"),
    .parts = S ("echo \xef\xbf\xbd", "echo $\\xff") },
  { "utf8/ansi-c-byte-after-long-ascii", "echo abcdefghijklmnop$'\\xfe'q", ALLOWS,
    .allow = S ("echo *"),
    .parts = S ("echo abcdefghijklmnop\xef\xbf\xbdq", "echo abcdefghijklmnop$\\xfeq") },
  { "utf8/ansi-c-byte-after-valid-utf8", "echo \xc3\xa9t\xc3\xa9$'\\xff'", ASKS,
    .allow = NONE,
    .parts = S ("echo \xc3\xa9t\xc3\xa9\xef\xbf\xbd", "echo \xc3\xa9t\xc3\xa9$\\xff"),
    .suggestions = S ("echo *") },
  /* NAME+= is an assignment as NAME= is; NAME+1= is a command's name. */
  { "assign/append", "X+=1 ls", ASKS, .allow = S ("ls"),
    .reason = "variable assignments" },
  { "assign/append-empty", "X+= ls", ASKS, .allow = S ("ls"),
    .reason = "variable assignments" },
  { "assign/not-a-name", "X+1=2 ls", ASKS, .allow = S ("ls"),
    .reason = "no allow pattern matches" },
  { "assign/digit-first", "1a=2 ls", ASKS, .allow = S ("ls"),
    .reason = "no allow pattern matches" },
  /* The same byte in a script a shell is given, and in a line read again
   * for dash and busybox: every text shown is still UTF-8. */
  { "utf8/ansi-c-byte-in-script", "bash -c $'echo \\xff'", ASKS,
    .allow = S ("bash *", "echo *") },
  { "utf8/ansi-c-byte-in-another-reading", "echo $'\\xff' |& cat", ALLOWS,
    .allow = S ("echo *", "cat") },
  { "length/shorter-than-the-string", "ls; rm -rf /", ALLOWS, .allow = S ("ls"), .parts = S ("ls"),
    .use_length = TRUE, .length = 2 },
  { "length/cuts-a-quote", "echo 'abc'", ASKS, .allow = ANY, .use_length = TRUE, .length = 7 },
  { "nul/inside", "ls\0", ASKS, .allow = S ("ls"), .use_length = TRUE, .length = 3 },
  { "nul/inside-quotes", "echo 'a\0b'", ASKS, .allow = ANY, .use_length = TRUE, .length = 10 },
  { "nul/before-denied-command", "ls\0; rm -rf /", NOT_ALLOWED, .allow = ANY, .use_length = TRUE,
    .length = 13 },

  /* ---- "Always allow" suggestions ---- */
  { "suggestions/subcommand-and-more", "npm install chalk", ASKS, .allow = NONE,
    .suggestions = S ("npm install *") },
  { "suggestions/name-alone", "ls", ASKS, .allow = NONE, .suggestions = S ("ls") },
  { "suggestions/file-argument", "python3 build.py --fast", ASKS, .allow = NONE,
    .suggestions = S ("python3 *") },
  { "suggestions/subcommand-alone", "git status", ASKS, .allow = NONE, .deny = NONE,
    .suggestions = S ("git status") },
  { "suggestions/subcommand-then-words", "git push origin main", ASKS, .allow = NONE, .deny = NONE,
    .suggestions = S ("git push *") },
  { "suggestions/redirection-is-more-words", "ls > /dev/null", ASKS, .allow = NONE,
    .suggestions = S ("ls *") },
  { "suggestions/option-first", "git --no-pager log", ASKS, .allow = NONE,
    .suggestions = S ("git *") },
  { "suggestions/make", "make", ASKS, .allow = NONE, .suggestions = S ("make") },
  { "suggestions/make-target", "make test", ASKS, .allow = NONE, .suggestions = S ("make test") },
  { "suggestions/hyphenated-subcommand", "make build-all -j4", ASKS, .allow = NONE,
    .suggestions = S ("make build-all *") },
  { "suggestions/digits-in-subcommand", "docker compose2 up", ASKS, .allow = NONE,
    .suggestions = S ("docker compose2 *") },
  { "suggestions/uppercase-is-no-subcommand", "cargo Build", ASKS, .allow = NONE,
    .suggestions = S ("cargo *") },
  { "suggestions/colon-is-no-subcommand", "npm run test:unit", ASKS, .allow = NONE,
    .suggestions = S ("npm run *") },
  { "suggestions/digit-first-is-no-subcommand", "foo 9lives", ASKS, .allow = NONE,
    .suggestions = S ("foo *") },
  { "suggestions/underscore-is-no-subcommand", "foo a_b", ASKS, .allow = NONE,
    .suggestions = S ("foo *") },
  { "suggestions/option-only", "foo -x", ASKS, .allow = NONE, .suggestions = S ("foo *") },
  { "suggestions/path-name", "/usr/bin/python3 x.py", ASKS, .allow = NONE,
    .suggestions = S ("/usr/bin/python3 *") },
  /* "x" looks like a subcommand: the spec's rule keeps it. */
  /* A name with a '*' makes no pattern; a quoted name or subcommand makes one when the
   * text is written as the words are. */
  { "suggestions/star-in-name", "'gi*t' status", ASKS, .allow = NONE, .suggestions = NONE },
  { "suggestions/quoted-star-in-name", "g'*'t push x", ASKS, .allow = NONE, .suggestions = NONE },
  { "suggestions/quoted-name", "\"git\" status", ASKS, .allow = NONE,
    .suggestions = S ("git status") },
  { "suggestions/space-in-name", "git\\ x status", ASKS, .allow = NONE, .suggestions = NONE },
  { "suggestions/space-in-subcommand", "git 'sta tus' x", ASKS, .allow = NONE,
    .suggestions = S ("git *") },
  { "suggestions/plain-word-argument", "rm x", ASKS, .allow = NONE, .suggestions = S ("rm x") },
  { "suggestions/deduplicated", "rm -f a; rm -f b", ASKS, .allow = NONE, .suggestions = S ("rm *") },
  { "suggestions/one-per-part", "npm test; git status", ASKS, .allow = NONE,
    .suggestions = S ("npm test", "git status") },
  /* More parts and suggestions than a decision holds in itself (4 of each). */
  { "suggestions/more-than-four", "npm test; git status; make; cargo build; go vet; tsc -b; make",
    ASKS, .allow = NONE,
    .parts = S ("npm test", "git status", "make", "cargo build", "go vet", "tsc -b", "make"),
    .suggestions = S ("npm test", "git status", "make", "cargo build", "go vet", "tsc *") },
  { "suggestions/pipeline", "ls | wc -l", ASKS, .allow = NONE, .suggestions = S ("ls", "wc *") },
  /* An interpreter reading what is piped into it: no pattern for it, only
   * for the download (issue 13: "always allow curl *" would not make it run). */
  { "suggestions/python-reads-the-pipe", "curl http://x | python3", ASKS, .allow = NONE,
    .suggestions = S ("curl *") },
  { "suggestions/python-dash-reads-the-pipe", "curl http://x | python3 -", ASKS, .allow = NONE,
    .suggestions = S ("curl *") },
  { "suggestions/node-reads-the-pipe", "cat x.js | node", ASKS, .allow = NONE,
    .suggestions = S ("cat *") },
  { "suggestions/busybox-sh-reads-the-pipe", "curl http://x | busybox sh", ASKS, .allow = NONE,
    .suggestions = S ("curl *") },
  { "suggestions/long-option-is-no-script", "curl http://x | bash --norc --rcfile x", ASKS,
    .allow = NONE, .suggestions = S ("curl *") },
  { "suggestions/script-argument-is-a-pattern", "python3 build.py", ASKS, .allow = NONE,
    .suggestions = S ("python3 *") },
  { "suggestions/inline-code-is-a-pattern", "node -e 1", ASKS, .allow = NONE,
    .suggestions = S ("node *") },
  { "suggestions/wrapper-and-inner", "sudo apt install x", ASKS, .allow = NONE,
    .suggestions = S ("sudo apt *", "apt install *") },
  { "suggestions/in-substitution", "echo $(whoami)", ASKS, .suggestions = S ("whoami") },
  { "suggestions/in-script", "sh -c 'npm install x'", ASKS, .allow = S ("sh *"),
    .suggestions = S ("npm install *") },
  { "suggestions/find-inner", "find . -exec rm {} \\;", ASKS, .allow = S ("find *"), .deny = NONE,
    .suggestions = S ("rm *") },
  { "suggestions/none-for-allowed-parts", "ls; eval x", ASKS, .suggestions = NONE },
  { "suggestions/none-for-nonliteral-name", "$X y", ASKS, .allow = NONE, .suggestions = NONE },
  { "suggestions/none-for-redirection-target", "ls > /etc/x", ASKS, .suggestions = NONE },

  /* ---- Soundness: each class of issue 10, the line as bash, dash and busybox read it ---- */
#define SAFE S ("cat", "cat *", "echo", "echo *", "ls", "ls *", "true", "printf *")
#define RMDENY S ("rm -rf *", "rm -fr *", "git diff *--output*", "evil*")
  /* 1. Here-document bodies come after the newline that ends the outer line (the
   * delimiter "ls" makes the old misreading allow everything). */
  { "soundness/heredoc-newline/command-substitution", "cat <<ls $(\nevil\nls\n)\ntrue\nls", ASKS, .allow = SAFE },
  { "soundness/heredoc-newline/quoted-substitution", "cat <<ls \"$(\nevil\nls\n)\"\ntrue\nls", ASKS, .allow = SAFE },
  { "soundness/heredoc-newline/process-substitution", "cat <<ls <(\nevil\nls\n)\ntrue\nls", ASKS, .allow = SAFE },
  { "soundness/heredoc-newline/parameter-default", "cat <<ls ${x:-$(\nevil\nls\n)}\ntrue\nls", ASKS, .allow = SAFE },
  { "soundness/heredoc-newline/quoted-delimiter", "cat <<'ls' $(\nevil\nls\n)\ntrue\nls", ASKS, .allow = SAFE },
  { "soundness/heredoc-newline/strip-tabs", "cat <<-ls $(\n\tevil\n\tls\n)\n\ttrue\n\tls", ASKS, .allow = SAFE },
  { "soundness/heredoc-newline/deny-allow-always", "cat <<EOF $(\nrm -rf /x\nEOF\n)\nbody\nEOF", DENIES, .mode = ALLOW_ALWAYS, .deny = RMDENY },
  /* Found by the oracle: bash ends $( ) at "X)" before it reads the body. */
  { "soundness/heredoc-newline/paren-in-body", "cat $(<<'X'\nX)\nevil\nX\n)''", ASKS, .allow = SAFE },
  { "soundness/heredoc-newline/paren-in-body-command", "cat $(cat <<X\nX)\nevil\nX\n)", ASKS, .allow = SAFE },
  { "soundness/heredoc-newline/inside-is-read-inside", "echo $(cat <<EOF\nbody\nEOF\n)", ALLOWS, .allow = SAFE },
  { "soundness/heredoc-newline/array-body", "cat <<EOF; a=(\nevil\nEOF\n)\nbody\nEOF", ASKS, .allow = ANY },
  /* 2. No shell counts a bare "{" inside ${ }. */
  { "soundness/param-braces/unquoted", "echo ${x-{}; evil; echo }", ASKS, .allow = SAFE },
  { "soundness/param-braces/quoted", "echo \"${x-{}\"; evil; echo }", ASKS, .allow = SAFE },
  { "soundness/param-braces/two-open", "echo ${x:-{{}; evil; echo }}", ASKS, .allow = SAFE },
  { "soundness/param-braces/deny", "echo ${x-{}; rm -rf /; echo }", DENIES, .mode = ALLOW_ALWAYS, .deny = RMDENY },
  { "soundness/param-braces/nested-expansion-still-ends", "echo ${x-${y}}", ALLOWS, .allow = SAFE },
  /* 3. &> is not dash's: "ls &" then "> f evil". */
  { "soundness/amp-greater/hidden-argument", "ls &>/dev/null evil x", ASKS, .allow = SAFE },
  { "soundness/amp-greater/append", "ls &>>/dev/null evil", ASKS, .allow = SAFE },
  { "soundness/amp-greater/deny", "true &>/dev/null rm -rf /", DENIES, .mode = ALLOW_ALWAYS, .deny = RMDENY },
  { "soundness/amp-greater/plain-use-still-allowed", "ls &>/dev/null", ALLOWS, .allow = SAFE },
  /* 4. $[ ] is bash's alone. */
  { "soundness/dollar-bracket/separators", "echo $[1;evil;1]", ASKS, .allow = SAFE },
  { "soundness/dollar-bracket/escaped-letter", "echo $[1;\\evil;1]", ASKS, .allow = SAFE },
  { "soundness/dollar-bracket/quoted-letter", "echo $[1;\"evil\";1]", ASKS, .allow = SAFE },
  { "soundness/dollar-bracket/deny", "echo $[1;rm -rf /;1]", DENIES, .mode = ALLOW_ALWAYS, .deny = RMDENY },
  { "soundness/dollar-bracket/numbers", "echo $[1+2]", ALLOWS, .allow = SAFE },
  /* 5. Arithmetic that may evaluate a variable's value. */
  { "soundness/arithmetic/quoted-name", "echo $((\"i\"))", ASKS, .allow = ANY },
  { "soundness/arithmetic/quoted-expansion", "echo $((\"$i\"))", ASKS, .allow = ANY },
  { "soundness/arithmetic/old-form-quoted", "echo $[\"i\"]", ASKS, .allow = ANY },
  { "soundness/arithmetic/escaped-name", "echo $((\\i))", ASKS, .allow = ANY },
  { "soundness/arithmetic/positional-offset", "echo ${@:i}", ASKS, .allow = ANY },
  { "soundness/arithmetic/star-offset", "echo ${*:i}", ASKS, .allow = ANY },
  { "soundness/arithmetic/status-offset", "echo ${?:i}", ASKS, .allow = ANY },
  { "soundness/arithmetic/flags-offset", "echo ${-:i}", ASKS, .allow = ANY },
  { "soundness/arithmetic/count-offset", "echo ${#:i}", ASKS, .allow = ANY },
  { "soundness/arithmetic/array-slice", "echo ${BASH_VERSINFO[@]:i}", ASKS, .allow = ANY },
  { "soundness/arithmetic/length-subscript", "echo ${#A[i]}", ASKS, .allow = ANY },
  { "soundness/arithmetic/fd-variable", "{a[i]}>file echo", ASKS, .allow = ANY },
  { "soundness/arithmetic/loop-value", "for i in 'x[$(evil)]'; do echo $((i)); done", ASKS, .allow = ANY },
  { "soundness/arithmetic/substring-length", "echo ${x:1:n}", ASKS, .allow = ANY },
  { "soundness/arithmetic/unset-expanded-name", "unset $x", ASKS, .mode = ALLOW_ALWAYS },
  { "soundness/arithmetic/unset-subscript", "unset -v 'a[i]'", ASKS, .mode = ALLOW_ALWAYS },
  { "soundness/arithmetic/test-v-expanded", "test -v \"$x\"", ASKS, .mode = ALLOW_ALWAYS },
  { "soundness/arithmetic/allow-always", "echo ${@:i}", ASKS, .mode = ALLOW_ALWAYS },
  { "soundness/arithmetic/hex-and-base", "echo $((0x1F + 16#ff + 2#101))", ALLOWS, .allow = SAFE },
  { "soundness/arithmetic/numeric-substring", "echo ${x:1:2} ${@:2}", ALLOWS, .allow = SAFE },
  /* 6. $'…' escapes decoded before patterns see the text. */
  { "soundness/ansi-c/unicode", "rm $'-\\u0072f' ~", DENIES, .allow = ANY, .deny = RMDENY },
  { "soundness/ansi-c/long-unicode", "rm $'-\\U00000072f' ~", DENIES, .allow = ANY, .deny = RMDENY },
  { "soundness/ansi-c/hex", "rm $'-\\x72\\x66' ~", DENIES, .allow = ANY, .deny = RMDENY },
  { "soundness/ansi-c/octal", "rm $'-\\162f' ~", DENIES, .allow = ANY, .deny = RMDENY },
  { "soundness/ansi-c/option", "git diff $'--\\x6futput=x'", DENIES, .allow = ANY, .deny = RMDENY },
  { "soundness/ansi-c/control", "echo $'\\cA'", ALLOWS, .allow = SAFE, .parts = S ("echo \001", "echo $\\cA", "echo \\cA") },
  { "soundness/ansi-c/nul-ends-string", "rm $'-rf\\0x' ~", DENIES, .allow = ANY, .deny = RMDENY },
  { "soundness/ansi-c/unknown-keeps-backslash", "echo $'\\q'", ALLOWS, .allow = SAFE, .parts = S ("echo \\q", "echo $\\q") },
  /* Found by the oracle: an expansion may produce what a deny pattern names. */
  { "soundness/expansions/substitution-in-a-word", "ls e$( (i))vil", ASKS, .mode = ALLOW_ALWAYS, .deny = S ("*evil*") },
  { "soundness/expansions/variable-argument", "rm -rf \"$d\"", ASKS, .allow = S ("rm *"), .deny = S ("rm -rf /*") },
  { "soundness/expansions/glob-argument", "rm -rf /?", ASKS, .mode = ALLOW_ALWAYS, .deny = S ("rm -rf /") },
  { "soundness/expansions/unrelated-deny", "echo $HOME", ALLOWS, .mode = ALLOW_ALWAYS, .deny = RMDENY },
  /* Found by the oracle: an argument that expands to no word at all leaves the bare
   * command, which "cat *" does not match. */
  { "soundness/vanishing/unquoted-variable", "node ${x}", ASKS, .allow = S ("node *"), .suggestions = S ("node") },
  { "soundness/vanishing/substitution", "git log $(\"cat\" $x)", ASKS, .allow = S ("git log *", "cat *") },
  { "soundness/vanishing/positional", "node \"$@\"", ASKS, .allow = S ("node *") },
  { "soundness/vanishing/array", "python3 \"${a[@]}\"", ASKS, .allow = S ("python3 *") },
  { "soundness/vanishing/both-allowed", "cat $x", ALLOWS, .allow = S ("cat", "cat *") },
  { "soundness/vanishing/quoted-stays", "cat \"$x\"", ALLOWS, .allow = S ("cat *") },
  { "soundness/vanishing/with-literal", "cat $x.txt", ALLOWS, .allow = S ("cat *") },
  { "soundness/vanishing/arithmetic-stays", "cat $((1+2))", ALLOWS, .allow = S ("cat *") },
  /* ---- Exact on everyday lines (issue 26): a word that may expand to nothing
   * leaves the bare program; one that runs nothing from its arguments or its
   * standard input is covered by "X *". The seed's allowlist. ---- */
  { "everyday/echo-variable", "echo $HOME", ALLOWS, .allow = SEED, .deny = SEED_DENY,
    .parts = S ("echo $HOME") },
  { "everyday/echo-substitution", "echo $(ls)", ALLOWS, .allow = SEED, .deny = SEED_DENY,
    .parts = S ("echo $(ls)", "ls") },
  { "everyday/for-loop", "for f in a b; do echo $f; done", ALLOWS, .allow = SEED,
    .deny = SEED_DENY },
  /* xargs runs "echo ARGS…" (echo *) and, on empty input, bare echo; it does
   * nothing of its own, so no "xargs" pattern is needed. */
  { "everyday/xargs-echo", "ls | xargs echo", ALLOWS, .allow = SEED, .deny = SEED_DENY,
    .parts = S ("ls", "xargs echo", "echo", "echo") },
  { "everyday/bare-echo", "echo", ALLOWS, .allow = SEED, .deny = SEED_DENY },
  { "everyday/bare-cat-in-a-pipeline", "ls -l | cat", ALLOWS, .allow = SEED, .deny = SEED_DENY },
  { "everyday/cat-positional", "cat \"$@\"", ALLOWS, .allow = SEED, .deny = SEED_DENY },
  { "everyday/ls-array", "ls \"${a[@]}\"", ALLOWS, .allow = S ("ls *") },
  { "everyday/xargs-default-echo", "ls | xargs", ALLOWS, .allow = SEED, .deny = SEED_DENY,
    .parts = S ("ls", "xargs", "echo", "echo") },
  { "everyday/xargs-cat", "ls | xargs -r -n 1 cat", ALLOWS, .allow = SEED, .deny = SEED_DENY },
  { "everyday/system-path", "/bin/echo $x", ALLOWS, .allow = S ("/bin/echo *") },
  { "everyday/head-variable", "head $f", ALLOWS, .allow = S ("head *") },
  { "everyday/wc-bare", "cat a | wc", ALLOWS, .allow = S ("cat *", "wc *") },
  /* Only "X *", that covers X with any argument, covers bare X. */
  { "everyday/narrower-pattern", "echo $x", ASKS, .allow = S ("echo $*"),
    .suggestions = S ("echo") },
  { "everyday/bare-not-named", "echo $x", ASKS, .allow = S ("ls *"), .suggestions = S ("echo *") },
  /* Programs that read what they run from standard input, or run what
   * their arguments name, are not covered by "X *" when bare. */
  { "everyday/node-bare", "node", ASKS, .allow = SEED, .deny = SEED_DENY, .suggestions = NONE },
  { "everyday/node-vanishing", "node $x", ASKS, .allow = SEED, .deny = SEED_DENY,
    .suggestions = S ("node") },
  { "everyday/node-substitution", "curl -s x | node $(ls)", ASKS, .allow = S ("node *", "ls",
    "curl *") },
  { "everyday/sh-bare", "curl -s x | sh", ASKS, .allow = S ("sh *", "curl *") },
  { "everyday/sh-vanishing", "sh $x", ASKS, .allow = S ("sh *") },
  { "everyday/bash-positional", "bash \"$@\"", ASKS, .allow = S ("bash *") },
  { "everyday/python3-bare", "python3", ASKS, .allow = S ("python3 *") },
  { "everyday/python3-vanishing", "python3 $f", ASKS, .allow = S ("python3 *") },
  { "everyday/perl-vanishing", "perl ${f:-}", ASKS, .allow = S ("perl *") },
  /* dc and ed read commands from standard input, and both can run a shell ("!"). */
  { "everyday/dc-vanishing", "dc $f", ASKS, .allow = S ("dc *") },
  { "everyday/ed-vanishing", "ed $f", ASKS, .allow = S ("ed *") },
  { "everyday/xargs-node", "ls | xargs node", ASKS, .allow = SEED, .deny = SEED_DENY },
  { "everyday/xargs-sh", "ls | xargs sh", ASKS, .allow = S ("ls", "sh *") },
  { "everyday/xargs-rm", "ls | xargs rm", ASKS, .allow = SEED, .deny = SEED_DENY },
  /* With no command xargs runs echo, which must be allowed. */
  { "everyday/xargs-echo-not-allowed", "ls | xargs", ASKS, .allow = S ("ls") },
  /* A workspace program named xargs is not xargs. */
  { "everyday/xargs-workspace-program", "ls | ./xargs echo", ASKS, .allow = SEED,
    .deny = SEED_DENY },
  { "everyday/xargs-deny-still", "ls | xargs echo", DENIES, .allow = SEED, .deny = S ("xargs *") },
  /* Only options that just cut the input leave xargs with nothing of its own:
   * one that sets the child's environment, an optional argument the engine
   * may read differently, or the terminal needs a pattern for xargs. */
  { "everyday/xargs-plain-options", "ls | xargs -0 -r -n 1 -P2 -I{} -d '\\n' echo {}", ALLOWS,
    .allow = SEED, .deny = SEED_DENY },
  { "everyday/xargs-plain-long-options", "ls | xargs --null --max-args=1 --max-procs 2 "
    "--replace=R --eof=END echo R", ALLOWS, .allow = SEED, .deny = SEED_DENY },
  { "everyday/xargs-slot-var", "ls | xargs --process-slot-var=PATH ls", ASKS, .allow = SEED,
    .deny = SEED_DENY },
  { "everyday/xargs-optional-eof", "ls | xargs --eof evil echo", ASKS, .allow = SEED,
    .deny = SEED_DENY },
  { "everyday/xargs-old-eof", "ls | xargs -e evil echo", ASKS, .allow = SEED, .deny = SEED_DENY },
  { "everyday/xargs-optional-replace", "ls | xargs --replace evil echo", ASKS, .allow = SEED,
    .deny = SEED_DENY },
  { "everyday/xargs-open-tty", "ls | xargs -o echo", ASKS, .allow = SEED, .deny = SEED_DENY },
  { "everyday/xargs-interactive", "ls | xargs -p echo", ASKS, .allow = SEED, .deny = SEED_DENY },
  { "everyday/xargs-unknown-option", "ls | xargs --frobnicate echo", ASKS, .allow = SEED,
    .deny = SEED_DENY },
  { "everyday/xargs-options-with-pattern", "ls | xargs -o echo", ALLOWS,
    .allow = S ("ls", "xargs *", "echo *") },
  { "everyday/xargs-assignment", "ls | FOO=1 xargs echo", ASKS, .allow = SEED,
    .deny = SEED_DENY },
  { "everyday/find-bare", "find", ASKS, .allow = S ("find *") },
  { "everyday/find-vanishing", "find $x", ASKS, .allow = S ("find *") },
  { "everyday/env-bare", "env", ASKS, .allow = S ("env *") },
  { "everyday/env-vanishing", "env $x", ASKS, .allow = S ("env *", "ls", "ls *") },
  { "everyday/nohup-vanishing", "nohup $x", ASKS, .allow = S ("nohup *") },
  { "everyday/timeout-vanishing", "timeout 5 $x", ASKS, .allow = S ("timeout *") },
  /* An empty expansion in the command name makes the next word the command. */
  { "everyday/empty-command-name", "$X foo", ASKS, .allow = S ("foo *", "foo") },
  { "everyday/empty-command-name-seed", "$EMPTY ls", ASKS, .allow = SEED, .deny = SEED_DENY },
  { "everyday/positional-command", "\"$@\"", ASKS, .allow = ANY, .deny = NONE },
  { "everyday/positional-command-then-word", "\"$@\" ls", ASKS, .allow = SEED,
    .deny = SEED_DENY },
  { "everyday/default-command-name", "${a:-rm} x", ASKS, .allow = S ("x", "x *", "rm *") },
  { "everyday/substitution-command-name", "$(ls) x", ASKS, .allow = SEED, .deny = SEED_DENY },
  /* The deny list sees the command that runs when a word vanishes, in every mode. */
  { "everyday/deny-bare", "echo $x", ASKS, .allow = S ("echo *"), .deny = S ("echo") },
  { "everyday/deny-vanishing-allow-always", "git push $remote", ASKS, .mode = ALLOW_ALWAYS,
    .deny = S ("git push") },
  { "everyday/deny-vanishing-path", "/usr/bin/git push \"$@\"", ASKS, .mode = ALLOW_ALWAYS,
    .deny = S ("git push") },
  { "everyday/deny-vanishing-unrelated", "git push $remote", ALLOWS, .mode = ALLOW_ALWAYS,
    .deny = S ("git pull") },
  /* The deny list still sees what the bare program's arguments may become. */
  { "everyday/deny-still-asks", "rm -rf $d", ASKS, .allow = S ("rm *"), .deny = SEED_DENY },
  /* 7. Wrappers with options, shells reading stdin. */
  { "soundness/wrappers/sudo-k-runs", "sudo -k rm x", ASKS, .allow = S ("sudo *") },
  { "soundness/wrappers/sudo-k-deny", "sudo -k rm -rf /", DENIES, .mode = ALLOW_ALWAYS, .deny = RMDENY },
  { "soundness/wrappers/sudo-shell", "sudo -s", ASKS, .allow = S ("sudo *") },
  { "soundness/wrappers/sudo-login-shell", "sudo -i", ASKS, .allow = S ("sudo *") },
  { "soundness/wrappers/sudo-edit", "sudo -e /etc/passwd", ASKS, .allow = S ("sudo *") },
  { "soundness/wrappers/sudo-user", "sudo -u bob -E -- evil", ASKS, .allow = S ("sudo *") },
  { "soundness/wrappers/su-c", "su -c 'evil x'", ASKS, .allow = S ("su *") },
  { "soundness/wrappers/su-user-c", "su bob -c evil", ASKS, .allow = S ("su *") },
  { "soundness/wrappers/su-stdin", "su - bob", ASKS, .allow = S ("su *") },
  { "soundness/wrappers/doas-shell", "doas -s", ASKS, .allow = S ("doas *") },
  { "soundness/wrappers/runuser-u", "runuser -u bob -- evil", ASKS, .allow = S ("runuser *") },
  { "soundness/wrappers/setpriv", "setpriv --reuid=1000 evil", ASKS, .allow = S ("setpriv *") },
  { "soundness/wrappers/flock-command", "flock /tmp/l evil", ASKS, .allow = S ("flock *") },
  { "soundness/wrappers/flock-c", "flock /tmp/l -c 'evil'", ASKS, .allow = S ("flock *") },
  { "soundness/wrappers/unshare", "unshare -r evil", ASKS, .allow = S ("unshare *") },
  { "soundness/wrappers/unshare-shell", "unshare -r", ASKS, .allow = S ("unshare *") },
  { "soundness/wrappers/script-c", "script -qc evil /dev/null", ASKS, .allow = S ("script *") },
  { "soundness/wrappers/script-shell", "script -q /dev/null", ASKS, .allow = S ("script *") },
  { "soundness/wrappers/chroot-shell", "chroot /", ASKS, .allow = S ("chroot *") },
  { "soundness/wrappers/chroot-command", "chroot / evil", ASKS, .allow = S ("chroot *") },
  { "soundness/wrappers/systemd-run", "systemd-run --user evil", ASKS, .allow = S ("systemd-run *") },
  { "soundness/wrappers/systemd-run-property", "systemd-run -p ExecStartPre=/x true", ASKS, .allow = S ("systemd-run *", "true") },
  { "soundness/wrappers/nsenter", "nsenter -t 1 -m evil", ASKS, .allow = S ("nsenter *") },
  { "soundness/wrappers/nsenter-shell", "nsenter -t 1 -a", ASKS, .allow = S ("nsenter *") },
  { "soundness/wrappers/busybox-applet", "busybox evil", ASKS, .allow = S ("busybox *") },
  { "soundness/wrappers/busybox-sh", "busybox sh -c evil", ASKS, .allow = S ("busybox *", "sh *") },
  { "soundness/wrappers/rbash", "rbash -c evil", ASKS, .allow = S ("rbash *") },
  { "soundness/wrappers/mksh-stdin", "mksh", ASKS, .allow = S ("mksh", "mksh *") },
  { "soundness/wrappers/versioned-shell", "bash5.2 -c evil", ASKS, .allow = S ("bash5.2 *") },
  /* Every shell the parser reads as sh is one that runs what it is fed: no
   * "X *" is suggested for it, as none is for sh. */
  { "soundness/wrappers/yash-stdin-like-sh", "yash <<< ls", ASKS, .allow = S ("ls"),
    .suggestions = NONE },
  { "soundness/wrappers/versioned-shell-stdin", "bash5.2 <<< ls", ASKS, .allow = S ("ls"),
    .suggestions = NONE },
  { "soundness/wrappers/static-shell-stdin", "mksh-static <<< ls", ASKS, .allow = S ("ls"),
    .suggestions = NONE },
  { "soundness/wrappers/foreign-shell", "fish -c ls", ASKS, .allow = S ("fish *", "ls") },
  { "soundness/wrappers/watch-joins-a-script", "watch 'ls; evil'", ASKS, .allow = S ("watch *", "ls") },
  { "soundness/wrappers/setarch", "setarch x86_64 evil", ASKS, .allow = S ("setarch *") },
  { "soundness/wrappers/setarch-shell", "setarch x86_64", ASKS, .allow = S ("setarch *") },
  { "soundness/wrappers/pkexec-shell", "pkexec", ASKS, .allow = S ("pkexec", "pkexec *") },
  { "soundness/wrappers/fakeroot-faked", "fakeroot -f /tmp/x ls", ASKS, .allow = S ("fakeroot *", "ls") },
  { "soundness/wrappers/sg-command-string", "sg grp evil", ASKS, .allow = S ("sg *") },
  { "soundness/wrappers/chrt", "chrt 5 evil", ASKS, .allow = S ("chrt *") },
  { "soundness/wrappers/su-last-c-wins", "su t -c- t -cevil", DENIES, .mode = ALLOW_ALWAYS, .deny = S ("evil") },
  { "soundness/assignments/printf-v-attached", "printf -vPATH .; ls", ASKS, .allow = S ("printf *", "ls") },
  { "soundness/assignments/read-a-attached", "read -raIFS", ASKS, .allow = ANY },
  { "soundness/wrappers/exec-option", "exec -ax e", ASKS, .allow = S ("exec *", "e", "e *") },
  { "soundness/param-braces/process-substitution", "cat ${x-<(evil)}", ASKS, .allow = SAFE },
  { "soundness/wrappers/known-forms-allowed", "sudo -u bob ls && flock /tmp/l ls && su bob -c ls", ALLOWS, .allow = S ("sudo *", "flock *", "su *", "ls") },
  /* 8. Command names that are not what the pattern names. */
  { "soundness/command-word/space-in-quotes", "'ls ./x'", ASKS, .allow = ANY },
  { "soundness/command-word/joined-quotes", "ls' './x", ASKS, .allow = ANY },
  { "soundness/command-word/tab", "'ls\t./x'", ASKS, .allow = ANY },
  { "soundness/command-word/wrapped", "env 'ls ./x'", ASKS, .allow = ANY },
  /* 9. Assignments that change later commands. */
  { "soundness/assignments/for-path", "for PATH in .; do ls; done", ASKS, .allow = ANY },
  { "soundness/assignments/for-home", "for HOME in h; do git diff; done", ASKS, .allow = ANY },
  { "soundness/assignments/for-env-name", "for GIT_DIR in x; do git status; done", ASKS, .allow = ANY },
  { "soundness/assignments/read", "read PATH < f; ls", ASKS, .allow = ANY },
  { "soundness/assignments/mapfile", "mapfile IFS < f", ASKS, .allow = ANY },
  { "soundness/assignments/getopts", "getopts a BASH_ENV", ASKS, .allow = ANY },
  { "soundness/assignments/printf-v", "printf -v PATH %s .", ASKS, .allow = ANY },
  { "soundness/assignments/declare", "declare LD_PRELOAD=x", ASKS, .allow = ANY },
  { "soundness/assignments/nameref", "declare -n r=PATH", ASKS, .allow = ANY },
  { "soundness/assignments/default-assign", "echo ${PATH:=.}; ls", ASKS, .allow = ANY },
  { "soundness/assignments/case-assign", "case ${HOME=h} in *) git status;; esac", ASKS, .allow = ANY },
  { "soundness/assignments/set-k", "set -k; ls LD_PRELOAD=x.so", ASKS, .allow = ANY },
  { "soundness/assignments/wait-p", "wait -p PATH", ASKS, .allow = ANY },
  { "soundness/assignments/npm-config", "for npm_config_script_shell in x; do ls; done", ASKS, .allow = ANY },
  { "soundness/assignments/env-preload", "env LD_PRELOAD=/tmp/x.so ls", ASKS, .allow = S ("env *", "ls") },
  { "soundness/assignments/sudo-path", "sudo PATH=. ls", ASKS, .allow = S ("sudo *", "ls") },
  { "soundness/assignments/env-odd-setting", "env --unset n = rm -rf /", DENIES, .mode = ALLOW_ALWAYS, .deny = RMDENY },
  { "soundness/assignments/env-ordinary", "env NODE_ENV=test ls", ALLOWS, .allow = S ("env *", "ls") },
  /* Every variable that loads code into the program it reaches (the list
   * the exec guard asks about in a started program's environment) asks
   * when env or sudo sets it, not only the families of the parser's own. */
  { "soundness/assignments/env-perllib", "env PERLLIB=/tmp/x perl x.pl", ASKS, .allow = S ("env *", "perl *") },
  { "soundness/assignments/env-lua-cpath", "env LUA_CPATH=./x.so lua x.lua", ASKS, .allow = S ("env *", "lua *") },
  { "soundness/assignments/env-openssl-conf", "env OPENSSL_CONF=e.cnf curl https://x", ASKS, .allow = S ("env *", "curl *") },
  { "soundness/assignments/env-gio-modules", "env GIO_EXTRA_MODULES=. ls", ASKS, .allow = S ("env *", "ls") },
  { "soundness/assignments/sudo-gtk-modules", "sudo GTK_MODULES=x ls", ASKS, .allow = S ("sudo *", "ls") },
  { "soundness/assignments/env-phprc", "env PHPRC=. php x.php", ASKS, .allow = S ("env *", "php *") },
  { "soundness/assignments/env-erl-aflags", "env ERL_AFLAGS=-eval erl", ASKS, .allow = S ("env *", "erl") },
  { "soundness/assignments/lower-case-loop", "for f in a b; do cat $f; done", ALLOWS, .allow = SAFE },
  /* 10. Redirections into protected paths ask in every mode. */
  { "soundness/protected/git-config", "echo '[diff]' >> .git/config", ASKS, .mode = ALLOW_ALWAYS },
  { "soundness/protected/git-hook", "echo x > .git/hooks/pre-commit", ASKS, .allow = ANY },
  { "soundness/protected/case", "echo x > .GIT/config", ASKS, .allow = ANY },
  { "soundness/protected/dot-dot", "echo x > src/../.git/config", ASKS, .allow = ANY },
  { "soundness/protected/absolute", "echo x > /workspace/.git/config", ASKS, .allow = ANY },
  { "soundness/protected/envrc", "echo x > .envrc", ASKS, .allow = ANY },
  { "soundness/protected/vscode", "echo x > sub/.vscode/tasks.json", ASKS, .allow = ANY },
  { "soundness/protected/group", "{ echo x; } >> .gitmodules", ASKS, .allow = ANY },
  { "soundness/protected/bashrc", "echo x >> .bashrc", ASKS, .allow = ANY },
  { "soundness/protected/ordinary-file", "echo x > notes.txt", ALLOWS, .allow = SAFE },
  /* The doors the first list missed: hg's hooks, a devcontainer's
   * initializeCommand, mise's and asdf's settings, a repository of its own. */
  { "soundness/protected/hgrc", "echo x >> .hg/hgrc", ASKS, .allow = ANY },
  { "soundness/protected/hgrc-case", "echo x > sub/.HG/HGRC", ASKS, .allow = ANY },
  { "soundness/protected/hg-sharedpath", "echo /tmp/r > .hg/sharedpath", ASKS, .allow = ANY },
  { "soundness/protected/hg-store", "echo x > .hg/store/x", ALLOWS, .allow = SAFE },
  { "soundness/protected/devcontainer", "echo '{}' > .devcontainer/devcontainer.json", ASKS,
    .allow = ANY },
  { "soundness/protected/devcontainer-file", "echo '{}' > .devcontainer.json", ASKS, .allow = ANY },
  { "soundness/protected/mise-dot", "echo x >> .mise.toml", ASKS, .allow = ANY },
  { "soundness/protected/mise", "echo x >> mise.toml", ASKS, .allow = ANY },
  /* Names match whatever their case, the first letter too. */
  { "soundness/protected/mise-capital", "echo x >> Mise.toml", ASKS, .allow = ANY },
  { "soundness/protected/warden-db-capitals", "echo x > WARDEN.DB-WAL", ASKS, .allow = ANY },
  { "soundness/protected/mise-local", "echo x >> sub/mise.local.toml", ASKS, .allow = ANY },
  { "soundness/protected/mise-dir", "echo x > .mise/config.toml", ASKS, .allow = ANY },
  { "soundness/protected/mise-config", "echo x > .config/mise/config.toml", ASKS, .allow = ANY },
  { "soundness/protected/tool-versions", "echo 'nodejs 20' > .tool-versions", ASKS, .allow = ANY },
  { "soundness/protected/asdfrc", "echo x > .asdfrc", ASKS, .allow = ANY },
  { "soundness/protected/nested-hook", "echo x > sub/.git/hooks/pre-commit", ASKS, .allow = ANY },
  { "soundness/protected/nested-config", "echo x >> a/b/.git/config", ASKS, .allow = ANY },
  /* What sandbox-runtime protects too: another agent's hooks and servers. */
  { "soundness/protected/claude-settings", "echo '{}' > .claude/settings.json", ASKS,
    .allow = ANY },
  { "soundness/protected/mcp", "echo '{}' > .mcp.json", ASKS, .allow = ANY },
  { "soundness/protected/ripgreprc", "echo '--pre=x' > .ripgreprc", ASKS, .allow = ANY },
  { "soundness/protected/toml-elsewhere", "echo x > docs/mise.txt", ALLOWS, .allow = SAFE },
  /* 11. Deep and long input: answered, never crashed. */
  { "soundness/limits/deep-dollar-bracket", "echo $[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[$[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", ASKS, .allow = ANY },

  /* ---- Issue 26: what programs do with their options ---- */
#define SHUTDOWN S ("shutdown", "shutdown *", "git push -f*", "git push --force*", "git push * -f", \
                    "git push * -f *", "rm -rf /*", "chmod -R 777 /*")
  /* 1. An optional argument is attached or absent: the next word is the command. */
  { "soundness/optional-args/env-block-signal", "env --block-signal evil", ASKS,
    .allow = S ("env *"), .parts = S ("env --block-signal evil", "evil") },
  { "soundness/optional-args/env-block-signal-deny", "env --block-signal rm -rf /", DENIES },
  { "soundness/optional-args/env-ignore-signal", "env --ignore-signal shutdown", DENIES,
    .mode = ALLOW_ALWAYS, .deny = SHUTDOWN },
  { "soundness/optional-args/env-default-signal", "env --default-signal ls -l", ALLOWS,
    .allow = S ("env *", "ls *"), .parts = S ("env --default-signal ls -l", "ls -l") },
  { "soundness/optional-args/env-signal-attached", "env --block-signal=INT ls -l", ALLOWS,
    .allow = S ("env *", "ls *"), .parts = S ("env --block-signal=INT ls -l", "ls -l") },
  { "soundness/optional-args/xargs-eof", "xargs --eof rm -rf /", DENIES },
  { "soundness/optional-args/xargs-eof-attached", "xargs --eof=x rm -rf /", DENIES },
  { "soundness/optional-args/xargs-replace", "xargs --replace rm -rf /{}", DENIES, .allow = ANY },
  { "soundness/optional-args/xargs-max-lines", "xargs --max-lines rm -rf /", DENIES },
  { "soundness/optional-args/xargs-e-short", "xargs -e rm -rf /", DENIES },
  { "soundness/optional-args/xargs-eof-runs-the-next-word", "xargs --eof -r cat", ALLOWS,
    .allow = S ("xargs *", "cat *"), .parts = S ("xargs --eof -r cat", "cat") },
  { "soundness/optional-args/watch-d", "watch -d evil", ASKS, .allow = S ("watch *") },
  { "soundness/optional-args/watch-d-deny", "watch -d git push -f origin", DENIES,
    .mode = ALLOW_ALWAYS, .deny = SHUTDOWN },
  { "soundness/optional-args/watch-differences", "watch --differences rm -rf /", DENIES },
  { "soundness/optional-args/watch-differences-attached", "watch --differences=permanent ls",
    ALLOWS, .allow = S ("watch *", "sh *", "ls") },
  /* watch -q takes its argument: "3" is no command. */
  { "soundness/optional-args/watch-q-takes-an-argument", "watch -q 3 shutdown", DENIES,
    .mode = ALLOW_ALWAYS, .deny = SHUTDOWN },
  { "soundness/optional-args/watch-d-q", "watch -d -q 3 rm -rf /", DENIES },
  /* -dq is -d with the argument "q" (getopt's "d::"): "3" is the command. */
  { "soundness/optional-args/watch-dq", "watch -dq 3 ls", ASKS, .allow = S ("watch *", "ls"),
    .parts = S ("watch -dq 3 ls", "sh -c 3 ls", "3 ls") },
  /* watch (without -x) starts "sh -c" on its joined words: that shell is
   * asked about as a typed "sh -c" is (the oracle, seed 2870600066:
   * busybox's watch ran an sh no pattern allowed). */
  { "soundness/wrappers/watch-starts-sh", "watch -d grep x b.txt", ASKS,
    .allow = S ("watch *", "grep *"), .parts = S ("watch -d grep x b.txt", "sh -c grep x b.txt",
                                                  "grep x b.txt") },
  { "soundness/wrappers/watch-sh-allowed", "watch -d grep x b.txt", ALLOWS,
    .allow = S ("watch *", "sh *", "grep *") },
  { "soundness/wrappers/watch-x-no-sh", "watch -x grep x b.txt", ALLOWS,
    .allow = S ("watch *", "grep *") },
  { "soundness/optional-args/watch-unknown", "watch -r ls", ASKS, .allow = ANY },
  { "soundness/optional-args/nsenter-root", "nsenter --root rm -rf /", DENIES, .allow = ANY },
  { "soundness/optional-args/nsenter-wd", "nsenter --wd shutdown", DENIES, .mode = ALLOW_ALWAYS,
    .deny = SHUTDOWN },
  { "soundness/optional-args/setpriv-ruid", "setpriv --ruid 0 shutdown", DENIES,
    .mode = ALLOW_ALWAYS, .deny = SHUTDOWN },
  { "soundness/optional-args/setpriv-euid", "setpriv --euid 0 ls", ALLOWS,
    .allow = S ("setpriv *", "ls"), .parts = S ("setpriv --euid 0 ls", "ls") },
  { "soundness/optional-args/unshare-boottime", "unshare --boottime 1 shutdown", DENIES,
    .mode = ALLOW_ALWAYS, .deny = SHUTDOWN },
  /* ionice -u acts on running processes: every word after it is a user. */
  { "soundness/optional-args/ionice-u", "ionice -u 1000 ls", ALLOWS, .allow = S ("ionice *"),
    .parts = S ("ionice -u 1000 ls") },
  { "soundness/optional-args/sudo-h", "sudo -h rm -rf /", NOT_ALLOWED, .allow = ANY, .deny = NONE },
  /* Every wrapper's table against the real program: sudo's long --shell and
   * --login start a shell as -s and -i do. */
  { "soundness/optional-args/sudo-shell-long", "sudo --shell", ASKS, .allow = S ("sudo *") },
  { "soundness/optional-args/sudo-login-long", "sudo --login < x.sh", ASKS,
    .allow = S ("sudo *") },
  { "soundness/optional-args/sudo-chroot", "sudo -R /srv ls", ASKS, .allow = ANY },
  { "soundness/optional-args/script-timing", "script --timing -c 'rm -rf /' x", DENIES,
    .allow = ANY },
  /* 2. Builtins that run commands. */
  /* Found by the oracle: "-n" after the file is the script's $1, not noexec. */
  { "soundness/builtins/sh-file-then-n", "sh run.sh -n", ASKS, .allow = S ("sh *"),
    .nested_off = TRUE },
  { "soundness/builtins/jobs-x", "jobs -x rm -rf /", DENIES },
  { "soundness/builtins/jobs-x-allow-always", "jobs -x shutdown", DENIES, .mode = ALLOW_ALWAYS,
    .deny = SHUTDOWN },
  { "soundness/builtins/jobs-x-asks", "jobs -x evil", ASKS, .allow = S ("jobs *"),
    .parts = S ("jobs -x evil", "evil") },
  { "soundness/builtins/jobs-x-allowed", "jobs -x ls -l", ALLOWS, .allow = S ("jobs *", "ls *"),
    .parts = S ("jobs -x ls -l", "ls -l") },
  { "soundness/builtins/jobs-x-wrapped", "builtin jobs -x rm -rf /", DENIES },
  { "soundness/builtins/jobs-x-jobspec", "jobs -x kill %1", ASKS, .allow = ANY },
  { "soundness/builtins/jobs-list", "jobs -l", ALLOWS, .allow = S ("jobs *"),
    .parts = S ("jobs -l") },
  { "soundness/builtins/chdir", "chdir /tmp; ls > out.txt", ASKS, .allow = S ("chdir *", "ls *") },
  { "soundness/builtins/chdir-protected", "chdir .git/hooks; echo x > pre-commit", ASKS,
    .mode = ALLOW_ALWAYS },
  { "soundness/builtins/history-write", "history -s evil; history -w .git/hooks/pre-commit", ASKS,
    .mode = ALLOW_ALWAYS },
  { "soundness/builtins/history-append-outside", "history -a /tmp/x", ASKS, .allow = ANY },
  { "soundness/builtins/history-histfile", "history -w", ASKS, .allow = ANY },
  { "soundness/builtins/history-inside", "history -w notes.txt", ALLOWS, .allow = S ("history *") },
  { "soundness/builtins/history-read", "history -r notes.txt", ALLOWS, .allow = S ("history *") },
  { "soundness/builtins/enable-f", "enable -f ./x.so x", ASKS, .mode = ALLOW_ALWAYS },
  { "soundness/builtins/complete-c", "complete -C evil x", ASKS, .mode = ALLOW_ALWAYS },
  { "soundness/builtins/bind-x", "bind -x '\"\\C-x\": evil'", ASKS, .mode = ALLOW_ALWAYS },
  { "soundness/builtins/fc", "fc -s ls", ASKS, .mode = ALLOW_ALWAYS },
  { "soundness/builtins/readarray-callback", "readarray -C evil -c 1 a < f", ASKS,
    .mode = ALLOW_ALWAYS },
  { "soundness/builtins/harmless", "shopt -s nullglob; times; umask 022; type ls; help cd", ALLOWS,
    .allow = S ("shopt *", "times", "umask *", "type *", "help *") },
  /* 3. Options that change the started program's environment or load code. */
  { "soundness/child-env/xargs-process-slot-var", "xargs --process-slot-var=PATH ls", ASKS,
    .mode = ALLOW_ALWAYS },
  { "soundness/child-env/xargs-process-slot-var-separate", "xargs --process-slot-var SLOT ls",
    ASKS, .mode = ALLOW_ALWAYS },
  { "soundness/child-env/fakeroot-lib", "fakeroot -l ./x.so ls", ASKS, .mode = ALLOW_ALWAYS },
  { "soundness/child-env/fakeroot-lib-attached", "fakeroot -l./x.so ls", ASKS,
    .mode = ALLOW_ALWAYS },
  { "soundness/child-env/fakeroot-lib-long", "fakeroot --lib=./x.so ls", ASKS,
    .mode = ALLOW_ALWAYS },
  { "soundness/child-env/fakeroot-plain", "fakeroot ls -l", ALLOWS,
    .allow = S ("fakeroot *", "ls *"), .parts = S ("fakeroot ls -l", "ls -l") },
  { "soundness/child-env/unshare-root", "unshare -R ./root ls", ASKS, .allow = ANY },
  { "soundness/child-env/unshare-root-long", "unshare --root=./root ls", ASKS, .allow = ANY },
  { "soundness/child-env/nsenter-root", "nsenter -t 1 -r./root ls", ASKS, .allow = ANY },
  { "soundness/child-env/chroot-elsewhere", "chroot ./root ls", ASKS, .allow = ANY },
  { "soundness/child-env/chroot-root", "chroot / ls", ALLOWS, .allow = S ("chroot *", "ls") },
  { "soundness/child-env/systemd-run-setenv", "systemd-run --setenv=LD_PRELOAD=./x.so ls", ASKS,
    .mode = ALLOW_ALWAYS },
  { "soundness/child-env/systemd-run-e", "systemd-run -E LD_PRELOAD=./x.so ls", ASKS,
    .mode = ALLOW_ALWAYS },
  /* ... or the directory a -c script's relative redirections land in. */
  { "soundness/child-env/nsenter-wd", "nsenter --wd=sub sh -c 'ls > out.txt'", ASKS,
    .allow = ANY },
  { "soundness/child-env/unshare-wd", "unshare -w sub sh -c 'ls > out.txt'", ASKS, .allow = ANY },
  { "soundness/child-env/chroot-chdir", "chroot / sh -c 'ls > out.txt'", ASKS, .allow = ANY },
  /* ... or write a file of their own. */
  { "soundness/child-env/script-typescript", "script -qc 'echo evil' .git/hooks/pre-commit", ASKS,
    .mode = ALLOW_ALWAYS },
  { "soundness/child-env/script-log-out", "script --log-out=.envrc -c ls", ASKS,
    .mode = ALLOW_ALWAYS },
  { "soundness/child-env/script-inside", "script -q -c ls out.txt", ALLOWS,
    .allow = S ("script *", "ls") },
  { "soundness/child-env/script-default-typescript", "cd ..; script -q -c ls", ASKS,
    .allow = S ("cd *", "script *", "ls") },
  { "soundness/child-env/time-output", "time -o .git/hooks/pre-commit -f evil true", ASKS,
    .mode = ALLOW_ALWAYS },
  { "soundness/child-env/time-output-outside", "time -o /tmp/t true", ASKS, .allow = ANY },
  { "soundness/child-env/time-output-inside", "time -o t.txt true", ALLOWS,
    .allow = S ("time *", "true") },
  { "soundness/child-env/fakeroot-save", "fakeroot -s .envrc ls", ASKS, .mode = ALLOW_ALWAYS },
  { "soundness/child-env/xvfb-run-error-file", "xvfb-run -e .envrc ls", ASKS,
    .mode = ALLOW_ALWAYS },
  /* 4. Deny patterns see every spelling of an option. */
  { "soundness/spelling/combined-short", "tree -ao out.txt .", NOT_ALLOWED,
    .allow = S ("tree *"), .deny = S ("tree *-o *") },
  { "soundness/spelling/attached-argument", "tree -a -oout.txt .", NOT_ALLOWED,
    .allow = S ("tree *"), .deny = S ("tree *-o *") },
  { "soundness/spelling/other-options-allowed", "tree -aL 2 .", ALLOWS, .allow = S ("tree *"),
    .deny = S ("tree *-o *") },
  { "soundness/spelling/long-equals", "git diff --output=x", DENIES, .allow = ANY,
    .deny = S ("git diff *--output *") },
  { "soundness/spelling/long-separate", "git diff --output x", DENIES, .allow = ANY,
    .deny = S ("git diff *--output=*") },
  { "soundness/spelling/long-abbreviated", "git push --forc origin", NOT_ALLOWED,
    .mode = ALLOW_ALWAYS, .deny = SHUTDOWN },
  { "soundness/spelling/options-after-operands", "rm / -rf", NOT_ALLOWED, .mode = ALLOW_ALWAYS,
    .deny = SHUTDOWN },
  { "soundness/spelling/split-options", "rm -r -f /", NOT_ALLOWED, .mode = ALLOW_ALWAYS,
    .deny = SHUTDOWN },
  { "soundness/spelling/operand-before", "rm -rf build /", NOT_ALLOWED, .mode = ALLOW_ALWAYS,
    .deny = SHUTDOWN },
  { "soundness/spelling/option-before-subcommand", "systemctl --no-block poweroff", NOT_ALLOWED,
    .mode = ALLOW_ALWAYS, .deny = S ("systemctl poweroff*") },
  { "soundness/spelling/more-options", "rm -rfv /", NOT_ALLOWED, .mode = ALLOW_ALWAYS,
    .deny = SHUTDOWN },
  { "soundness/spelling/end-of-options", "rm -rf -- /", NOT_ALLOWED, .mode = ALLOW_ALWAYS,
    .deny = SHUTDOWN },
  { "soundness/spelling/option-moved", "chmod 777 -R /", NOT_ALLOWED, .mode = ALLOW_ALWAYS,
    .deny = SHUTDOWN },
  { "soundness/spelling/global-option-first", "git -C . push --force", NOT_ALLOWED,
    .mode = ALLOW_ALWAYS, .deny = SHUTDOWN },
  { "soundness/spelling/through-a-wrapper", "env git push -fq origin", NOT_ALLOWED,
    .mode = ALLOW_ALWAYS, .deny = SHUTDOWN },
  { "soundness/spelling/everyday-lines-run", "git push origin main && rm -rf node_modules && "
    "chmod 755 bin/x && ls -la", ALLOWS, .mode = ALLOW_ALWAYS, .deny = SHUTDOWN },
  { "soundness/spelling/single-dash-words", "find . -type d -newer x -ls", ALLOWS,
    .allow = S ("find *"), .deny = S ("find *-delete*") },
  { "soundness/spelling/other-program", "grep -o x f", ALLOWS, .allow = S ("grep *"),
    .deny = S ("tree *-o *") },
  /* 5. Redirections into protected paths, in every form. */
  { "soundness/protected/clobber", "echo x >| .envrc", ASKS, .mode = ALLOW_ALWAYS },
  { "soundness/protected/both", "echo x &> .vscode/tasks.json", ASKS, .mode = ALLOW_ALWAYS },
  { "soundness/protected/both-append", "echo x &>> .envrc", ASKS, .mode = ALLOW_ALWAYS },
  { "soundness/protected/read-write", "cat <> .envrc", ASKS, .mode = ALLOW_ALWAYS },
  { "soundness/protected/fd", "echo x 3> .git/config", ASKS, .mode = ALLOW_ALWAYS },
  { "soundness/protected/dup-to-file", "echo x >& .envrc", ASKS, .mode = ALLOW_ALWAYS },
  { "soundness/protected/exec-fd", "exec 3> .git/hooks/pre-commit; echo x >&3", ASKS,
    .mode = ALLOW_ALWAYS },
  { "soundness/protected/heredoc", "cat > .envrc <<EOF\nevil\nEOF", ASKS, .mode = ALLOW_ALWAYS },
  { "soundness/protected/heredoc-first", "cat <<EOF >> .vscode/tasks.json\n{}\nEOF", ASKS,
    .mode = ALLOW_ALWAYS },
  { "soundness/protected/loop", "for a in b; do echo; done >> .envrc", ASKS,
    .mode = ALLOW_ALWAYS },
  { "soundness/protected/script", "sh -c 'echo x > .envrc'", ASKS, .mode = ALLOW_ALWAYS },
  { "soundness/protected/substitution", "ls $(echo x > .envrc)", ASKS, .mode = ALLOW_ALWAYS },
  { "soundness/protected/wrapped-script", "xargs -r sh -c 'echo x > .envrc'", ASKS,
    .mode = ALLOW_ALWAYS, .deny = NONE },

};

/* ---- Checking a row ---- */

static const char *
expect_name (int expect)
{
  switch (expect)
    {
    case ALLOWS: return "allow";
    case ASKS: return "ask";
    case DENIES: return "deny";
    case NOT_ALLOWED: return "ask or deny";
    default: return "(no expectation)";
    }
}

static const char *
verdict_name (WardenVerdict verdict)
{
  switch (verdict)
    {
    case WARDEN_VERDICT_ALLOW: return "allow";
    case WARDEN_VERDICT_ASK: return "ask";
    case WARDEN_VERDICT_DENY: return "deny";
    default: return "(invalid verdict)";
    }
}

static const char *
origin_name (int origin)
{
  switch (origin)
    {
    case WARDEN_ORIGIN_TOP_LEVEL: return "top-level";
    case WARDEN_ORIGIN_SUBSTITUTION: return "substitution";
    case WARDEN_ORIGIN_PROCESS_SUBSTITUTION: return "process-substitution";
    case WARDEN_ORIGIN_WRAPPER: return "wrapper";
    case WARDEN_ORIGIN_SCRIPT: return "script";
    case WARDEN_ORIGIN_REDIRECTION: return "redirection";
    default: return "(invalid origin)";
    }
}

static gboolean
strv_has (const char * const *strv,
          const char         *str)
{
  for (gsize i = 0; strv != NULL && strv[i] != NULL; i++)
    if (g_strcmp0 (strv[i], str) == 0)
      return TRUE;
  return FALSE;
}

static guint
strv_len (const char * const *strv)
{
  guint n = 0;

  while (strv != NULL && strv[n] != NULL)
    n++;
  return n;
}

/* Commands can be 1 MiB long and hold control bytes: show them escaped and cut. */
static char *
show (const char *text,
      gssize      length,
      gsize       max)
{
  g_autoptr(GString) str = g_string_new (NULL);
  gsize len = length < 0 ? strlen (text) : (gsize) length;
  gsize shown = MIN (len, max);

  for (gsize i = 0; i < shown; i++)
    {
      if (text[i] == '\0')
        g_string_append (str, "\\0");
      else
        {
          char one[2] = { text[i], '\0' };
          g_autofree char *esc = g_strescape (one, NULL);
          g_string_append (str, esc);
        }
    }
  if (shown < len)
    g_string_append_printf (str, "… (%" G_GSIZE_FORMAT " bytes)", len);
  return g_string_free (g_steal_pointer (&str), FALSE);
}

static char *
show_strv (const char * const *strv)
{
  g_autoptr(GString) str = g_string_new ("[");

  for (gsize i = 0; strv != NULL && strv[i] != NULL; i++)
    {
      g_autofree char *item = show (strv[i], -1, 300);
      g_string_append_printf (str, "%s\"%s\"", i ? ", " : "", item);
    }
  g_string_append (str, "]");
  return g_string_free (g_steal_pointer (&str), FALSE);
}

static gboolean
json_has_string (JsonNode   *node,
                 const char *str)
{
  if (node == NULL)
    return FALSE;
  if (JSON_NODE_HOLDS_VALUE (node))
    return json_node_get_value_type (node) == G_TYPE_STRING &&
           g_strcmp0 (json_node_get_string (node), str) == 0;
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (array); i++)
        if (json_has_string (json_array_get_element (array, i), str))
          return TRUE;
    }
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (object);
      for (GList *l = members; l != NULL; l = l->next)
        if (json_has_string (json_object_get_member (object, l->data), str))
          return TRUE;
    }
  return FALSE;
}

static void G_GNUC_PRINTF (2, 3)
problem (GString    *problems,
         const char *format,
         ...)
{
  va_list args;

  va_start (args, format);
  g_string_append (problems, "\n  - ");
  g_string_append_vprintf (problems, format, args);
  va_end (args);
}

/* Runs @row, checks what it expects and what holds for every decision, and on
 * a mismatch prints the command, expected against got, and the decision JSON.
 * Returns the decision for further checks. */
static WardenDecision *
run_row (const Row *row)
{
  const char * const *allow = row->allow ? row->allow : std_allow;
  const char * const *deny = row->deny ? row->deny : std_deny;
  WardenCheckContext context = { row->workspace, row->cwd, row->env };
  gboolean with_context = row->workspace != NULL || row->cwd != NULL || row->env != NULL;
  gssize length = row->use_length ? row->length : -1;
  g_autoptr(WardenPolicy) policy = NULL;
  g_autoptr(WardenDecision) decision = NULL;
  g_autoptr(GString) problems = g_string_new (NULL);
  g_autofree char *json = NULL;
  WardenVerdict verdict;
  const char *reason;
  const char * const *suggestions;
  guint n_parts;
  gboolean any_deny = FALSE, any_ask = FALSE;

  g_assert (row->expect >= ALLOWS && row->expect <= NOT_ALLOWED);

  policy = warden_policy_new_full (row->mode, allow, row->ask, deny);
  g_assert_nonnull (policy);
  if (policy == NULL)
    return NULL;
  if (row->nested_off)
    warden_policy_set_check_nested (policy, FALSE);
  decision = warden_policy_check (policy, row->command, length, with_context ? &context : NULL);
  g_assert_nonnull (decision);
  if (decision == NULL)
    return NULL;

  verdict = warden_decision_get_verdict (decision);
  reason = warden_decision_get_reason (decision);
  n_parts = warden_decision_get_n_parts (decision);
  suggestions = warden_decision_get_suggestions (decision);
  json = warden_decision_to_json (decision);

  /* What the row expects. */
  if (row->expect == NOT_ALLOWED ? verdict == WARDEN_VERDICT_ALLOW
                                 : (int) verdict + 1 != row->expect)
    problem (problems, "verdict: expected %s, got %s",
             expect_name (row->expect), verdict_name (verdict));

  if (row->reason != NULL && (reason == NULL || strstr (reason, row->reason) == NULL))
    problem (problems, "reason: expected it to hold \"%s\", got \"%s\"", row->reason,
             reason ? reason : "(null)");

  if (row->parts != NULL)
    {
      guint expected = strv_len (row->parts);
      g_autoptr(GPtrArray) got = g_ptr_array_new_with_free_func (g_free);
      gboolean same = expected == n_parts;

      for (guint i = 0; i < n_parts; i++)
        {
          const WardenDecisionPart *part = warden_decision_get_part (decision, i);
          g_ptr_array_add (got, g_strdup (part ? part->text : NULL));
          if (i < expected && (part == NULL || g_strcmp0 (part->text, row->parts[i]) != 0))
            same = FALSE;
        }
      g_ptr_array_add (got, NULL);
      if (!same)
        {
          g_autofree char *want = show_strv (row->parts);
          g_autofree char *have = show_strv ((const char * const *) got->pdata);
          problem (problems, "parts: expected %s, got %s", want, have);
        }
    }

  if (row->origins != NULL)
    {
      g_autoptr(GString) want = g_string_new (NULL);
      g_autoptr(GString) have = g_string_new (NULL);
      guint expected = 0;

      while (row->origins[expected] >= 0)
        {
          g_string_append_printf (want, " %s", origin_name (row->origins[expected]));
          expected++;
        }
      for (guint i = 0; i < n_parts; i++)
        {
          const WardenDecisionPart *part = warden_decision_get_part (decision, i);
          g_string_append_printf (have, " %s", part ? origin_name (part->origin) : "(no part)");
        }
      if (!g_str_equal (want->str, have->str))
        problem (problems, "origins: expected%s, got%s",
                 want->str, have->len ? have->str : " nothing");
    }

  if (row->suggestions != NULL)
    {
      gboolean same = strv_len (row->suggestions) == strv_len (suggestions);

      for (gsize i = 0; same && row->suggestions[i] != NULL; i++)
        same = strv_has (suggestions, row->suggestions[i]);
      if (!same)
        {
          g_autofree char *want = show_strv (row->suggestions);
          g_autofree char *have = show_strv (suggestions);
          problem (problems, "suggestions: expected %s, got %s", want, have);
        }
    }

  /* What holds for every decision. */
  if (verdict != WARDEN_VERDICT_ALLOW && verdict != WARDEN_VERDICT_ASK &&
      verdict != WARDEN_VERDICT_DENY)
    problem (problems, "the verdict %d is not a verdict", (int) verdict);
  if (verdict != WARDEN_VERDICT_ALLOW && (reason == NULL || *reason == '\0'))
    problem (problems, "a decision that is not allow must give a reason to show");
  if (reason != NULL && !g_utf8_validate (reason, -1, NULL))
    problem (problems, "the reason shows bytes that are not UTF-8");

  for (guint i = 0; i < n_parts; i++)
    {
      const WardenDecisionPart *part = warden_decision_get_part (decision, i);

      if (part == NULL || part->text == NULL)
        {
          problem (problems, "part %u is missing or has no text", i);
          continue;
        }
      if ((int) part->origin < WARDEN_ORIGIN_TOP_LEVEL || part->origin > WARDEN_ORIGIN_REDIRECTION)
        problem (problems, "part %u has no valid origin", i);
      if (part->verdict == WARDEN_VERDICT_DENY)
        {
          any_deny = TRUE;
          if (!strv_has (deny, part->pattern))
            problem (problems, "part %u is denied, but its pattern \"%s\" is not a deny pattern",
                     i, part->pattern ? part->pattern : "(null)");
        }
      else if (part->verdict == WARDEN_VERDICT_ASK)
        {
          any_ask = TRUE;
          if (part->reason == NULL || *part->reason == '\0')
            problem (problems, "part %u asks without a reason", i);
          /* A pattern that makes a part ask is one of the profile's ask rules, and
           * "always allow" has nothing to offer against it. */
          if (part->pattern != NULL && (row->ask == NULL || !strv_has (row->ask, part->pattern)))
            problem (problems, "part %u asks by \"%s\", which is not an ask rule",
                     i, part->pattern);
          if (part->pattern != NULL && part->suggestion != NULL)
            problem (problems, "part %u matches an ask rule, yet suggests \"%s\"",
                     i, part->suggestion);
        }
      else if (part->verdict == WARDEN_VERDICT_ALLOW)
        {
          if (part->pattern != NULL && !strv_has (allow, part->pattern))
            problem (problems, "part %u is allowed by \"%s\", which is not an allow pattern",
                     i, part->pattern);
        }
      else
        problem (problems, "part %u has no valid verdict", i);
      /* Shown to the user and saved as patterns: never bytes that are not text. */
      if (!g_utf8_validate (part->text, -1, NULL) ||
          (part->reason != NULL && !g_utf8_validate (part->reason, -1, NULL)) ||
          (part->suggestion != NULL && !g_utf8_validate (part->suggestion, -1, NULL)))
        problem (problems, "part %u shows bytes that are not UTF-8", i);
      if (part->suggestion != NULL &&
          (*part->suggestion == '\0' || g_str_equal (part->suggestion, "*")))
        problem (problems, "part %u suggests \"%s\"", i, part->suggestion);
    }

  /* Deny if and only if a part is denied; ask when a part asks and none is denied. */
  if (any_deny != (verdict == WARDEN_VERDICT_DENY))
    problem (problems, "the verdict is %s, but %s part is denied",
             verdict_name (verdict), any_deny ? "a" : "no");
  if (!any_deny && any_ask && verdict != WARDEN_VERDICT_ASK)
    problem (problems, "a part asks, but the verdict is %s", verdict_name (verdict));

  for (gsize i = 0; suggestions != NULL && suggestions[i] != NULL; i++)
    {
      gboolean from_a_part = FALSE;

      if (*suggestions[i] == '\0' || g_str_equal (suggestions[i], "*"))
        problem (problems, "the suggestion \"%s\" would allow nothing or everything",
                 suggestions[i]);
      for (gsize j = 0; j < i; j++)
        if (g_str_equal (suggestions[i], suggestions[j]))
          problem (problems, "the suggestion \"%s\" is repeated", suggestions[i]);
      for (guint j = 0; j < n_parts && !from_a_part; j++)
        {
          const WardenDecisionPart *part = warden_decision_get_part (decision, j);
          from_a_part = part != NULL && g_strcmp0 (part->suggestion, suggestions[i]) == 0;
        }
      if (!from_a_part)
        problem (problems, "the suggestion \"%s\" belongs to no part", suggestions[i]);
    }

  if (json == NULL)
    problem (problems, "no JSON");
  else
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GError) error = NULL;

      if (!json_parser_load_from_data (parser, json, -1, &error))
        problem (problems, "the JSON does not parse: %s", error->message);
      else if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
        problem (problems, "the JSON is not an object");
    }

  if (problems->len > 0)
    {
      g_autofree char *command = show (row->command, length, 300);
      g_autofree char *shown_allow = show_strv (allow);
      g_autofree char *shown_deny = show_strv (deny);

      g_test_message ("command: \"%s\"", command);
      g_test_message ("mode %d, allow %s, deny %s%s%s%s%s",
                      (int) row->mode, shown_allow, shown_deny,
                      row->workspace ? ", workspace " : "", row->workspace ? row->workspace : "",
                      row->cwd ? ", cwd " : "", row->cwd ? row->cwd : "");
      g_test_message ("problems:%s", problems->str);
      g_test_message ("decision: %.4000s", json ? json : "(none)");
      g_test_fail ();
    }

  return g_steal_pointer (&decision);
}

static void
test_row (gconstpointer data)
{
  g_autoptr(WardenDecision) decision = run_row (data);
}

/* ---- Limits: the engine answers fast, never crashes, never allows ---- */

typedef struct
{
  const char *path;
  const char *prefix, *unit;     /* prefix, then unit @times times, */
  guint       times;
  const char *middle, *closing;  /* then middle, then closing @times times if set */
  gboolean    close;
  int         expect;
  gboolean    allow_any;         /* allow "*" instead of the standard profile */
  guint       n_parts;           /* checked when not 0 */
} Generated;

static const Generated length_cases[] = {
  /* Far past the limit, just past it, and well below it. */
  { "limits/one-mebibyte", "echo ", "a", 1024 * 1024, "", NULL, FALSE, ASKS, TRUE },
  { "limits/one-mebibyte-of-commands", "", "ls; ", 256 * 1024, "", NULL, FALSE, ASKS, TRUE },
  { "limits/just-past-256-kib", "echo ", "a", 256 * 1024 - 4, "", NULL, FALSE, ASKS, TRUE },
  { "limits/200-kib-is-fine", "echo ", "a", 200 * 1024, "", NULL, FALSE, ALLOWS, FALSE, 1 },
};

static const Generated depth_cases[] = {
  { "limits/10000-unterminated-substitutions", "", "$(", 10000, "", NULL, FALSE, ASKS, TRUE },
  { "limits/10000-nested-substitutions", "echo ", "$(echo ", 10000, "x", ")", TRUE, ASKS, TRUE },
  { "limits/9999-backticks", "echo ", "`", 9999, "", NULL, FALSE, ASKS, TRUE },
  { "limits/10000-subshells", "", "( ", 10000, "ls", " )", TRUE, ASKS, TRUE },
  { "limits/10000-unterminated-subshells", "", "(", 10000, "", NULL, FALSE, ASKS, TRUE },
  { "limits/10000-brace-groups", "", "{ ", 10000, "ls; ", "}; ", TRUE, ASKS, TRUE },
  { "limits/10000-ifs", "", "if true; then ", 10000, "ls; ", "fi; ", TRUE, ASKS, TRUE },
  { "limits/10000-parameter-expansions", "echo ", "${x:-", 10000, "y", "}", TRUE, ASKS, TRUE },
  { "limits/100-nested-substitutions", "echo ", "$(echo ", 100, "x", ")", TRUE, ASKS, TRUE },
  { "limits/10-nested-substitutions", "echo ", "$(echo ", 10, "x", ")", TRUE, ALLOWS, FALSE, 11 },
  { "limits/10-nested-groups", "", "( ", 10, "ls", " )", TRUE, ALLOWS, FALSE, 1 },
};

static const Generated parts_cases[] = {
  { "limits/100-commands", "", "ls; ", 100, "", NULL, FALSE, ALLOWS, FALSE, 100 },
  // design: past WARDEN_SHELL_MAX_PARTS the engine stops and asks.
  { "limits/5000-commands", "", "ls; ", 5000, "", NULL, FALSE, ASKS, TRUE },
};

static void
check_generated (gconstpointer data)
{
  const Generated *gen = data;
  g_autoptr(GString) command = g_string_new (gen->prefix);
  g_autoptr(GTimer) timer = NULL;
  g_autoptr(WardenDecision) decision = NULL;
  Row row = { gen->path, NULL, gen->expect, .allow = gen->allow_any ? ANY : NULL };
  double seconds;

  for (guint i = 0; i < gen->times; i++)
    g_string_append (command, gen->unit);
  g_string_append (command, gen->middle);
  for (guint i = 0; gen->close && i < gen->times; i++)
    g_string_append (command, gen->closing);
  row.command = command->str;

  timer = g_timer_new ();
  decision = run_row (&row);
  seconds = g_timer_elapsed (timer, NULL);
  if (decision == NULL)
    return;

  /* "The engine answers these fast": a figure, not an assertion, since the
   * suite runs on busy machines and under valgrind; scripts/bench and the
   * parser's stress test print the time bound. */
  g_test_message ("%s: the decision took %.3f s", gen->path, seconds);
  if (gen->n_parts > 0 && warden_decision_get_n_parts (decision) != gen->n_parts)
    {
      g_test_message ("%s: expected %u parts, got %u",
                      gen->path, gen->n_parts, warden_decision_get_n_parts (decision));
      g_test_fail ();
    }
}

/* ---- The reason shown is the first reason that asks ---- */

static const WardenDecisionPart *
find_part (WardenDecision *decision,
           const char     *text)
{
  for (guint i = 0; i < warden_decision_get_n_parts (decision); i++)
    {
      const WardenDecisionPart *part = warden_decision_get_part (decision, i);
      if (part != NULL && g_strcmp0 (part->text, text) == 0)
        return part;
    }
  g_test_message ("no part \"%s\"", text);
  g_test_fail ();
  return NULL;
}

static void
check_first_reason (const char *command,
                    const char *first,
                    const char *second)
{
  Row row = { "reason", command, ASKS };
  g_autoptr(WardenDecision) decision = run_row (&row);
  const WardenDecisionPart *a = decision ? find_part (decision, first) : NULL;
  const WardenDecisionPart *b = decision ? find_part (decision, second) : NULL;

  if (a == NULL || b == NULL)
    return;
  g_assert_cmpint (a->verdict, ==, WARDEN_VERDICT_ASK);
  g_assert_cmpint (b->verdict, ==, WARDEN_VERDICT_ASK);
  /* Different reasons, or this test could not tell them apart. */
  g_assert_cmpstr (a->reason, !=, b->reason);
  g_assert_cmpstr (warden_decision_get_reason (decision), ==, a->reason);
}

static void
test_reason_first_ask (void)
{
  /* An unknown command and a forced ask, in both orders; "ls" is allowed. */
  check_first_reason ("ls; rm x; eval y", "rm x", "eval y");
  check_first_reason ("ls; eval y; rm x", "eval y", "rm x");
  check_first_reason ("ls > /etc/x; rm x", "ls > /etc/x", "rm x");
}


/* What "always allow" cannot cover is said, with the part that needs it. */
/* Each part carries the program's words as they are: the text joins them,
 * so "rm 'old build'" and "rm old build" read alike there, not here. */
/* Each part's pattern is the one that decided it, for a line of more parts
 * than a decision keeps its patterns in place for (64), and for a part
 * whose text is not UTF-8 (its reason is made valid, its pattern kept). */
static void
test_part_patterns_many (void)
{
  g_autoptr(WardenPolicy) policy = warden_policy_new (WARDEN_MODE_ALLOWLIST,
                                                      (const char *[]) { "ls *", "cat x", NULL },
                                                      NULL);
  g_autoptr(GString) line = g_string_new (NULL);
  g_autoptr(WardenDecision) d = NULL;

  for (guint i = 0; i < 70; i++)
    g_string_append_printf (line, "%sls d%u; cat x", i > 0 ? "; " : "", i);
  g_string_append (line, "; ls $'\\xff'");
  d = warden_policy_check (policy, line->str, -1, NULL);

  g_assert_cmpint (warden_decision_get_verdict (d), ==, WARDEN_VERDICT_ALLOW);
  /* The last, with $'…', twice: as bash reads it and as dash does. */
  g_assert_cmpuint (warden_decision_get_n_parts (d), ==, 142);
  for (guint i = 0; i < 142; i++)
    {
      const WardenDecisionPart *part = warden_decision_get_part (d, i);

      g_assert_cmpstr (part->pattern, ==, i % 2 == 0 || i >= 140 ? "ls *" : "cat x");
      g_assert_true (g_utf8_validate (part->reason, -1, NULL));
      g_assert_nonnull (strstr (part->reason, part->pattern));
    }
  g_assert_cmpstr (warden_decision_get_part (d, 140)->text, ==, "ls \xef\xbf\xbd");
}

static void
test_part_argv (void)
{
  g_autoptr(WardenPolicy) policy = warden_policy_new (WARDEN_MODE_ALLOWLIST,
                                                      (const char *[]) { "ls", NULL }, NULL);
  g_autoptr(WardenDecision) d = warden_policy_check (policy, "rm 'old build'; X=1; "
                                                     "rm old build; ls \"$HOME\" > log", -1,
                                                     NULL);
  const char *first[] = { "rm", "old build", NULL };
  const char *third[] = { "rm", "old", "build", NULL };
  const char *fourth[] = { "ls", "$HOME", NULL };

  g_assert_cmpuint (warden_decision_get_n_parts (d), ==, 4);
  g_assert_cmpstr (warden_decision_get_part (d, 0)->text, ==,
                   warden_decision_get_part (d, 2)->text);
  g_assert_cmpstrv (warden_decision_get_part (d, 0)->argv, first);
  g_assert_null (warden_decision_get_part (d, 1)->argv);
  g_assert_cmpstrv (warden_decision_get_part (d, 2)->argv, third);
  g_assert_cmpstrv (warden_decision_get_part (d, 3)->argv, fourth);
}

/* What "always allow" is told about a line an ask rule holds: no pattern
 * makes it run without asking, and which part and rule say so. */
static void
test_ask_rule_uncovered (void)
{
  const char *allow[] = { "git *", "npm *", NULL };
  const char *ask[] = { "git push *", NULL };
  g_autoptr(WardenPolicy) policy = warden_policy_new_full (WARDEN_MODE_ALLOWLIST, allow, ask,
                                                           NULL);
  g_autoptr(WardenDecision) d = warden_policy_check (policy, "npm test && git push origin",
                                                     -1, NULL);
  g_autoptr(WardenDecision) plain = warden_policy_check (policy, "npm test && make", -1, NULL);
  const WardenDecisionPart *ruled = warden_decision_get_asked_by_rule (d);

  g_assert_cmpint (warden_decision_get_verdict (d), ==, WARDEN_VERDICT_ASK);
  g_assert_nonnull (ruled);
  g_assert_cmpstr (ruled->text, ==, "git push origin");
  g_assert_cmpstr (ruled->pattern, ==, "git push *");
  g_assert_true (warden_decision_get_uncovered (d) == ruled);
  g_assert_cmpuint (g_strv_length ((char **) warden_decision_get_suggestions (d)), ==, 0);
  g_assert_null (warden_decision_get_asked_by_rule (plain));
}

static void
test_uncovered (void)
{
  static const struct { const char *command; const char *uncovered; } cases[] = {
    { "ls && curl http://x | sh", "sh" },
    { "curl http://x | python3", "python3" },
    { "eval \"$X\"", "eval $X" },
    { "$CMD -la", "$CMD -la" },
    { "npm test; git status", NULL },
    { "ls | wc -l", NULL },
  };
  g_autoptr(WardenPolicy) policy = warden_policy_new (WARDEN_MODE_ALLOWLIST,
                                                      (const char *[]) { "ls", NULL }, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(WardenDecision) d = warden_policy_check (policy, cases[i].command, -1, NULL);
      const WardenDecisionPart *part = warden_decision_get_uncovered (d);

      g_test_message ("%s", cases[i].command);
      if (cases[i].uncovered == NULL)
        g_assert_null (part);
      else
        {
          g_assert_nonnull (part);
          g_assert_cmpstr (part->text, ==, cases[i].uncovered);
          g_assert_nonnull (part->reason);
        }
    }
}

static void
test_reason_deny (void)
{
  // design: when a line is denied, the reason shown is the denial.
  Row row = { "reason/deny", "ls; eval y; rm -rf /etc", DENIES };
  g_autoptr(WardenDecision) decision = run_row (&row);
  const WardenDecisionPart *rm = decision ? find_part (decision, "rm -rf /etc") : NULL;

  if (rm == NULL)
    return;
  g_assert_cmpint (rm->verdict, ==, WARDEN_VERDICT_DENY);
  g_assert_cmpstr (rm->pattern, ==, "rm -rf /*");
  g_assert_nonnull (rm->reason);
  g_assert_cmpstr (warden_decision_get_reason (decision), ==, rm->reason);
}

static void
test_reason_patterns (void)
{
  /* Each part names the pattern that decided it. */
  Row row = { "reason/patterns", "ls -la; ls; rm x; rm -rf /tmp", DENIES, .allow = S ("ls", "ls *"),
              .parts = S ("ls -la", "ls", "rm x", "rm -rf /tmp") };
  g_autoptr(WardenDecision) decision = run_row (&row);

  if (decision == NULL || warden_decision_get_n_parts (decision) != 4)
    return;  /* run_row () told what is wrong */
  g_assert_cmpstr (warden_decision_get_part (decision, 0)->pattern, ==, "ls *");
  g_assert_cmpint (warden_decision_get_part (decision, 0)->verdict, ==, WARDEN_VERDICT_ALLOW);
  g_assert_cmpstr (warden_decision_get_part (decision, 1)->pattern, ==, "ls");
  g_assert_cmpint (warden_decision_get_part (decision, 1)->verdict, ==, WARDEN_VERDICT_ALLOW);
  g_assert_null (warden_decision_get_part (decision, 2)->pattern);
  g_assert_cmpint (warden_decision_get_part (decision, 2)->verdict, ==, WARDEN_VERDICT_ASK);
  g_assert_cmpstr (warden_decision_get_part (decision, 2)->suggestion, ==, "rm x");
  g_assert_cmpstr (warden_decision_get_part (decision, 3)->pattern, ==, "rm -rf /*");
  g_assert_cmpint (warden_decision_get_part (decision, 3)->verdict, ==, WARDEN_VERDICT_DENY);
}

static void
test_reason_parse_error (void)
{
  Row row = { "reason/parse-error", "echo 'unterminated", ASKS, .allow = ANY };
  g_autoptr(WardenDecision) decision = run_row (&row);

  if (decision == NULL)
    return;
  g_assert_nonnull (warden_decision_get_reason (decision));
  g_assert_cmpstr (warden_decision_get_reason (decision), !=, "");
}

/* ---- The JSON carries the parts ---- */

static void
test_json (void)
{
  Row row = { "json", "ls; npm install chalk; eval x", ASKS };
  g_autoptr(WardenDecision) decision = run_row (&row);
  g_autofree char *json = decision ? warden_decision_to_json (decision) : NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonNode *root;

  g_assert_nonnull (json);
  if (json == NULL || !json_parser_load_from_data (parser, json, -1, &error))
    {
      g_test_message ("decision: %.4000s", json ? json : "(none)");
      g_test_fail ();
      return;
    }
  root = json_parser_get_root (parser);

  /* Everything the user is shown is in it: texts, reasons, suggestions. */
  g_assert_cmpuint (warden_decision_get_n_parts (decision), ==, 3);
  g_assert_true (json_has_string (root, warden_decision_get_reason (decision)));
  for (guint i = 0; i < warden_decision_get_n_parts (decision); i++)
    {
      const WardenDecisionPart *part = warden_decision_get_part (decision, i);

      g_assert_true (json_has_string (root, part->text));
      if (part->reason != NULL)
        g_assert_true (json_has_string (root, part->reason));
      if (part->suggestion != NULL)
        g_assert_true (json_has_string (root, part->suggestion));
    }
  g_assert_true (json_has_string (root, "npm install *"));
}

/* ---- The policy object ---- */

/* The verdict for @command, or -1 when there is no decision at all. */
static int
verdict_of (WardenPolicy             *policy,
            const char               *command,
            const WardenCheckContext *context)
{
  g_autoptr(WardenDecision) decision = warden_policy_check (policy, command, -1, context);

  if (decision == NULL)
    {
      g_test_message ("no decision for \"%s\"", command);
      return -1;
    }
  return warden_decision_get_verdict (decision);
}

static void
test_context_null_fields (void)
{
  /* A context whose fields are all NULL means the defaults. */
  const WardenCheckContext context = { NULL, NULL, NULL };
  g_autoptr(WardenPolicy) policy = warden_policy_new (WARDEN_MODE_ALLOWLIST, std_allow, std_deny);

  g_assert_cmpint (verdict_of (policy, "ls > /workspace/out.txt", &context), ==,
                   WARDEN_VERDICT_ALLOW);
  g_assert_cmpint (verdict_of (policy, "ls > out.txt", &context), ==, WARDEN_VERDICT_ALLOW);
  g_assert_cmpint (verdict_of (policy, "ls > /tmp/out.txt", &context), ==, WARDEN_VERDICT_ASK);
}

static void
test_policy_null_lists (void)
{
  g_autoptr(WardenPolicy) allowlist = warden_policy_new (WARDEN_MODE_ALLOWLIST, NULL, NULL);
  g_autoptr(WardenPolicy) always = warden_policy_new (WARDEN_MODE_ALLOW_ALWAYS, NULL, NULL);

  g_assert_cmpint (verdict_of (allowlist, "ls", NULL), ==, WARDEN_VERDICT_ASK);
  g_assert_cmpint (verdict_of (always, "rm -rf /", NULL), ==, WARDEN_VERDICT_ALLOW);
}

static void
test_policy_copies_patterns (void)
{
  /* The caller's strings may change or go away after warden_policy_new (). */
  char allow0[] = "ls";
  char deny0[] = "rm -rf /*";
  const char *allow[] = { allow0, NULL };
  const char *deny[] = { deny0, NULL };
  g_autoptr(WardenPolicy) policy = warden_policy_new (WARDEN_MODE_ALLOWLIST, allow, deny);

  allow0[0] = 'x';
  deny0[0] = 'x';
  allow[0] = NULL;
  deny[0] = NULL;
  g_assert_cmpint (verdict_of (policy, "ls", NULL), ==, WARDEN_VERDICT_ALLOW);
  g_assert_cmpint (verdict_of (policy, "rm -rf /", NULL), ==, WARDEN_VERDICT_DENY);
}

static void
test_policy_reuse (void)
{
  /* One policy answers many checks, each on its own. */
  g_autoptr(WardenPolicy) policy = warden_policy_new (WARDEN_MODE_ALLOWLIST, std_allow, std_deny);
  const WardenCheckContext outside = { NULL, "/tmp", NULL };

  for (guint round = 0; round < 3; round++)
    {
      g_assert_cmpint (verdict_of (policy, "ls", NULL), ==, WARDEN_VERDICT_ALLOW);
      g_assert_cmpint (verdict_of (policy, "cd /tmp; ls > out.txt", NULL), ==, WARDEN_VERDICT_ASK);
      /* No cd carried over from the line before. */
      g_assert_cmpint (verdict_of (policy, "ls > out.txt", NULL), ==, WARDEN_VERDICT_ALLOW);
      g_assert_cmpint (verdict_of (policy, "ls > out.txt", &outside), ==, WARDEN_VERDICT_ASK);
      g_assert_cmpint (verdict_of (policy, "echo 'x", NULL), ==, WARDEN_VERDICT_ASK);
      /* No parse state carried over either. */
      g_assert_cmpint (verdict_of (policy, "ls", NULL), ==, WARDEN_VERDICT_ALLOW);
      g_assert_cmpint (verdict_of (policy, "rm -rf /", NULL), ==, WARDEN_VERDICT_DENY);
    }
}

/* The profile's "nested" reaches the policy made from it: a script file run
 * by an allowed shell runs while the guard checks what it starts, and asks
 * when nothing would. */
static void
test_policy_nested_from_profile (void)
{
  static const struct { const char *json; WardenVerdict script; } cases[] = {
    { "{ \"allow\": [\"sh *\", \"ls\"] }", WARDEN_VERDICT_ALLOW },
    { "{ \"allow\": [\"sh *\", \"ls\"], \"nested\": \"check\" }", WARDEN_VERDICT_ALLOW },
    { "{ \"allow\": [\"sh *\", \"ls\"], \"nested\": \"off\" }", WARDEN_VERDICT_ASK },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(WardenProfile) profile = warden_profile_new_from_data ("p", cases[i].json, -1,
                                                                       "p.json", &error);
      g_autoptr(WardenPolicy) policy = NULL;

      g_assert_no_error (error);
      policy = warden_policy_new_for_profile (profile);
      g_assert_cmpint (verdict_of (policy, "sh ./build.sh", NULL), ==, cases[i].script);
      /* What the engine sees itself is decided the same either way. */
      g_assert_cmpint (verdict_of (policy, "sh -c ls", NULL), ==, WARDEN_VERDICT_ALLOW);
      g_assert_cmpint (verdict_of (policy, "ls | sh", NULL), ==, WARDEN_VERDICT_ASK);
    }
}

static void
add_generated (GHashTable      *paths,
               const Generated *gen)
{
  char *path = g_strconcat ("/policy/decision/", gen->path, NULL);

  if (!g_hash_table_add (paths, path))
    g_error ("two tests are named %s", gen->path);
  g_test_add_data_func (path, gen, check_generated);
}

/* Class 10: a redirection that passes through a symlink out of the
 * workspace asks, judged on the real files where the workspace lives on
 * this machine while the sandbox sees it at /workspace. */
static void
test_redirection_symlinks (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("warden-policy-XXXXXX", &error);
  g_autofree char *sub = NULL, *out = NULL, *in = NULL, *dangling = NULL, *git = NULL;
  const char *allow[] = { "echo *", NULL };
  g_autoptr(WardenPolicy) policy = warden_policy_new (WARDEN_MODE_ALLOWLIST, allow, NULL);
  struct { const char *command; WardenVerdict verdict; } cases[] = {
    { "echo x > out/passwd", WARDEN_VERDICT_ASK },
    { "echo x >> ./out/../out/passwd", WARDEN_VERDICT_ASK },
    { "echo x > dangling/x", WARDEN_VERDICT_ASK },
    { "echo x > gitdir/config", WARDEN_VERDICT_ASK },
    { "echo x > /workspace/out/x", WARDEN_VERDICT_ASK },
    { "echo x > out/../notes.txt", WARDEN_VERDICT_ASK },
    { "echo x > in/../../x", WARDEN_VERDICT_ASK },
    { "echo x > in/x", WARDEN_VERDICT_ALLOW },
    { "echo x > in/../notes.txt", WARDEN_VERDICT_ALLOW },
    { "echo x > sub/new/x", WARDEN_VERDICT_ALLOW },
    { "echo x > notes.txt", WARDEN_VERDICT_ALLOW },
  };

  g_assert_no_error (error);
  sub = g_build_filename (dir, "sub", NULL);
  git = g_build_filename (dir, ".git", NULL);
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (git, 0700), ==, 0);
  out = g_build_filename (dir, "out", NULL);
  in = g_build_filename (dir, "in", NULL);
  dangling = g_build_filename (dir, "dangling", NULL);
  g_assert_cmpint (symlink ("/etc", out), ==, 0);
  g_assert_cmpint (symlink ("sub", in), ==, 0);
  g_assert_cmpint (symlink ("/nonexistent/warden", dangling), ==, 0);
  {
    g_autofree char *gitdir = g_build_filename (dir, "gitdir", NULL);

    g_assert_cmpint (symlink (".git", gitdir), ==, 0);
  }

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      WardenCheckContext ctx = { .workspace = "/workspace", .host_workspace = dir };
      g_autoptr(WardenDecision) d = warden_policy_check (policy, cases[i].command, -1, &ctx);

      g_test_message ("%s: %s", cases[i].command, warden_decision_get_reason (d));
      g_assert_cmpint (warden_decision_get_verdict (d), ==, cases[i].verdict);
    }

  /* Without a host directory the workspace path itself is looked at. */
  {
    WardenCheckContext ctx = { .workspace = dir };
    g_autoptr(WardenDecision) d = warden_policy_check (policy, "echo x > out/passwd", -1, &ctx);

    g_assert_cmpint (warden_decision_get_verdict (d), ==, WARDEN_VERDICT_ASK);
  }

  {
    const char *names[] = { "out", "in", "dangling", "gitdir", "sub", ".git" };

    for (guint i = 0; i < G_N_ELEMENTS (names); i++)
      {
        g_autofree char *p = g_build_filename (dir, names[i], NULL);

        g_remove (p);
      }
    g_remove (dir);
  }
}

/* One policy decides many lines: what it learns of the workspace's root
 * (its real path, looked up once) must not stand in for the files under it,
 * which a command may change between two lines; nor for a root that did not
 * exist yet, nor for another workspace the same policy is asked about. */
static void
test_redirection_symlinks_later (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *base = g_dir_make_tmp ("warden-policy-XXXXXX", &error);
  g_autofree char *dir = NULL, *other = NULL, *link = NULL, *other_link = NULL;
  g_autofree char *sub = NULL;
  const char *allow[] = { "echo *", NULL };
  g_autoptr(WardenPolicy) policy = warden_policy_new (WARDEN_MODE_ALLOWLIST, allow, NULL);
  WardenCheckContext ctx = { .workspace = "/workspace" };
  WardenCheckContext other_ctx = { .workspace = "/workspace" };

  g_assert_no_error (error);
  dir = g_build_filename (base, "ws", NULL);
  other = g_build_filename (base, "other", NULL);
  link = g_build_filename (dir, "later", NULL);
  other_link = g_build_filename (other, "later", NULL);
  sub = g_build_filename (other, "sub", NULL);
  ctx.host_workspace = dir;
  other_ctx.host_workspace = other;

  /* The root does not exist yet: nothing under it can lead out. */
  for (guint round = 0; round < 2; round++)
    {
      g_autoptr(WardenDecision) d = warden_policy_check (policy, "echo x > later/x", -1, &ctx);

      g_assert_cmpint (warden_decision_get_verdict (d), ==, WARDEN_VERDICT_ALLOW);
    }
  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (other, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  {
    g_autoptr(WardenDecision) d = warden_policy_check (policy, "echo x > later/x", -1, &ctx);

    g_assert_cmpint (warden_decision_get_verdict (d), ==, WARDEN_VERDICT_ALLOW);
  }
  /* Made after the policy looked at the root: the next line sees it. */
  g_assert_cmpint (symlink ("/etc", link), ==, 0);
  g_assert_cmpint (symlink ("sub", other_link), ==, 0);
  for (guint round = 0; round < 3; round++)
    {
      g_autoptr(WardenDecision) d = warden_policy_check (policy, "echo x > later/x", -1, &ctx);
      g_autoptr(WardenDecision) o = warden_policy_check (policy, "echo x > later/x", -1,
                                                         &other_ctx);

      g_test_message ("%s", warden_decision_get_reason (d));
      g_assert_cmpint (warden_decision_get_verdict (d), ==, WARDEN_VERDICT_ASK);
      g_assert_cmpint (warden_decision_get_verdict (o), ==, WARDEN_VERDICT_ALLOW);
    }
  /* And a symlink removed is no longer followed. */
  g_assert_cmpint (g_remove (link), ==, 0);
  {
    g_autoptr(WardenDecision) d = warden_policy_check (policy, "echo x > later/x", -1, &ctx);

    g_assert_cmpint (warden_decision_get_verdict (d), ==, WARDEN_VERDICT_ALLOW);
  }

  g_remove (other_link);
  g_remove (sub);
  g_remove (other);
  g_remove (dir);
  g_remove (base);
}

/* The variables that load code into the program that gets them ask; those
 * whose effect is another program (checked by the guard in its turn) do
 * not. */
static void
test_env_loads_code (void)
{
  static const struct { const char *name; gboolean loads; } env_rows[] = {
    { "LD_PRELOAD", TRUE }, { "LD_PRELOAD=/workspace/evil.so", TRUE },
    { "LD_LIBRARY_PATH", TRUE }, { "LD_AUDIT", TRUE }, { "DYLD_INSERT_LIBRARIES", TRUE },
    { "BASH_ENV", TRUE }, { "ENV=/tmp/rc", TRUE }, { "BASH_FUNC_ls%%=() { rm -rf .; }", TRUE },
    { "SHELLOPTS", TRUE }, { "PS4", TRUE }, { "NODE_OPTIONS=--require ./x.js", TRUE },
    { "PYTHONPATH", TRUE }, { "PYTHONSTARTUP", TRUE }, { "PERL5OPT", TRUE },
    { "RUBYOPT", TRUE }, { "GCONV_PATH", TRUE }, { "GLIBC_TUNABLES", TRUE },
    { "JAVA_TOOL_OPTIONS", TRUE }, { "LUA_INIT_5_4", TRUE }, { "LUA_PATH", TRUE },
    { "PHPRC", TRUE }, { "PHP_INI_SCAN_DIR", TRUE }, { "CLASSPATH", TRUE },
    { "ERL_AFLAGS", TRUE }, { "ERL_FLAGS", TRUE }, { "ERL_ZFLAGS", TRUE },
    { "ELIXIR_ERL_OPTIONS", TRUE }, { "TCLLIBPATH", TRUE }, { "R_PROFILE_USER", TRUE },
    { "GEM_PATH", TRUE }, { "QT_PLUGIN_PATH", TRUE }, { "GST_PLUGIN_PATH", TRUE },
    { "PATH=/workspace/bin", FALSE }, { "HOME", FALSE }, { "GIT_DIR", FALSE },
    { "npm_config_script_shell", FALSE }, { "FOO", FALSE }, { "LD", FALSE },
    { "ENVIRONMENT", FALSE }, { "env", FALSE }, { "ld_preload", FALSE },
    { "PYTHON", FALSE }, { "", FALSE }, { "=LD_PRELOAD", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (env_rows); i++)
    {
      g_test_message ("%s", env_rows[i].name);
      g_assert_cmpint (warden_policy_env_loads_code (env_rows[i].name), ==, env_rows[i].loads);
    }
}

/* Issue 26: the built-in profiles hold against wrappers' options, builtins
 * and other spellings of what their deny lists name, and still run the
 * everyday lines next to them. */
static void
test_builtin_profiles (void)
{
  static const struct { const char *profile; const char *command; gboolean runs; } lines[] = {
    { "trusted", "env --ignore-signal shutdown", FALSE },
    { "trusted", "env --block-signal reboot", FALSE },
    { "trusted", "watch -d git push -f origin", FALSE },
    { "trusted", "watch -q 3 shutdown", FALSE },
    { "trusted", "jobs -x rm -rf /", FALSE },
    { "trusted", "xargs --eof rm -rf /", FALSE },
    { "trusted", "nsenter --wd poweroff", FALSE },
    { "trusted", "setpriv --ruid 0 poweroff", FALSE },
    { "trusted", "rm / -rf", FALSE },
    { "trusted", "rm -rfv ~", FALSE },
    { "trusted", "rm -rf -- /", FALSE },
    { "trusted", "git push --forc origin", FALSE },
    { "trusted", "git -C . push -f", FALSE },
    { "trusted", "chmod 777 -R /", FALSE },
    { "trusted", "echo x > .envrc", FALSE },
    { "trusted", "chdir .git/hooks; echo x > pre-commit", FALSE },
    { "trusted", "git commit -qm x && git pull --rebase origin main", TRUE },
    { "trusted", "rm -rf node_modules dist", TRUE },
    { "trusted", "chmod -R 755 build && ls -la", TRUE },
    { "read-only", "tree -ao out.txt .", FALSE },
    { "read-only", "tree -a -oout.txt .", FALSE },
    { "read-only", "git diff --output x", FALSE },
    { "read-only", "git log --out=x", FALSE },
    { "read-only", "tree -a -L 2", TRUE },
    { "read-only", "git log --oneline -5", TRUE },
    { "read-only", "find . -name '*.c' -type f", TRUE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(WardenProfile) profile = warden_profile_new_builtin (lines[i].profile, &error);
      g_autoptr(WardenPolicy) policy = NULL;
      g_autoptr(WardenDecision) d = NULL;

      g_assert_no_error (error);
      if (profile == NULL)
        continue;
      policy = warden_policy_new_for_profile (profile);
      d = warden_policy_check (policy, lines[i].command, -1, NULL);
      g_test_message ("%s: %s: %s", lines[i].profile, lines[i].command,
                      warden_decision_get_reason (d));
      if (lines[i].runs)
        g_assert_cmpint (warden_decision_get_verdict (d), ==, WARDEN_VERDICT_ALLOW);
      else
        g_assert_cmpint (warden_decision_get_verdict (d), !=, WARDEN_VERDICT_ALLOW);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GHashTable) paths = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  g_test_init (&argc, &argv, NULL);
  /* One failed check must not hide the answers to all other rows. */
  g_test_set_nonfatal_assertions ();

  for (gsize i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      char *path = g_strconcat ("/policy/decision/", rows[i].path, NULL);

      if (!g_hash_table_add (paths, path))
        g_error ("two rows are named %s", rows[i].path);
      g_test_add_data_func (path, &rows[i], test_row);
    }

  for (gsize i = 0; i < G_N_ELEMENTS (length_cases); i++)
    add_generated (paths, &length_cases[i]);
  for (gsize i = 0; i < G_N_ELEMENTS (depth_cases); i++)
    add_generated (paths, &depth_cases[i]);
  for (gsize i = 0; i < G_N_ELEMENTS (parts_cases); i++)
    add_generated (paths, &parts_cases[i]);
  g_test_add_func ("/policy/decision/reason/first-ask", test_reason_first_ask);
  g_test_add_func ("/policy/decision/uncovered", test_uncovered);
  g_test_add_func ("/policy/decision/ask-rule-uncovered", test_ask_rule_uncovered);
  g_test_add_func ("/policy/decision/part-argv", test_part_argv);
  g_test_add_func ("/policy/decision/part-patterns-many", test_part_patterns_many);
  g_test_add_func ("/policy/env-loads-code", test_env_loads_code);
  g_test_add_func ("/policy/decision/reason/deny", test_reason_deny);
  g_test_add_func ("/policy/decision/reason/patterns", test_reason_patterns);
  g_test_add_func ("/policy/decision/reason/parse-error", test_reason_parse_error);
  g_test_add_func ("/policy/decision/json", test_json);
  g_test_add_func ("/policy/decision/context/null-fields", test_context_null_fields);
  g_test_add_func ("/policy/decision/policy/null-lists", test_policy_null_lists);
  g_test_add_func ("/policy/decision/policy/copies-patterns", test_policy_copies_patterns);
  g_test_add_func ("/policy/decision/policy/reuse", test_policy_reuse);
  g_test_add_func ("/policy/decision/policy/nested-from-profile", test_policy_nested_from_profile);
  g_test_add_func ("/policy/decision/soundness/protected/symlinks", test_redirection_symlinks);
  g_test_add_func ("/policy/decision/soundness/protected/symlinks-later",
                   test_redirection_symlinks_later);
  g_test_add_func ("/policy/decision/soundness/builtin-profiles", test_builtin_profiles);

  return g_test_run ();
}
