/* oracle-gen.c: command lines and profiles for the differential oracle
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Lines come from a grammar of templates over bash syntax, or from mutations
 * of the seed corpus and of lines the engine allowed before. The grammar puts
 * ordinary commands where every shell runs them and "payloads" (evil, curl,
 * rm -rf, git push) where one shell may run them and another may not: here-
 * document bodies next to substitutions, ${…} words with braces, $[…], &>,
 * $'…' escapes, wrapper options, quoted command names, assignments to PATH,
 * comments and line continuations. The engine has to allow a line for it to
 * run at all, so ordinary commands are drawn from the names the allow list
 * will hold (the profile is derived from the line afterwards).
 *
 * Templates: %S a simple command, %C a command (maybe wrapped or with a
 * substitution), %P a payload, %T a command that a trap in the workspace
 * shadows, %L a nested list, %W a word, %A arithmetic on an unknown value,
 * %V a builtin that evaluates a subscript in $i,
 * %Z a payload with an empty expansion inside a word,
 * %E an argument in $'…' escapes, %Q a quoted script for -c, %R a
 * redirection, %O a target outside the workspace or protected, %Y a wrapper
 * with options, %H a here-document construct, %D its delimiter, %B its body,
 * %% a percent sign.
 */

#include "config.h"

#include <string.h>

#include "oracle-gen.h"
#include "oracle-runner.h"

#define MAX_LINE  2048
#define MAX_DEPTH 3
#define N_PARENTS 2048

const char * const oracle_forbidden_names[] = { "evil", "curl", "wget", "rm", NULL };

struct _OracleGen
{
  GRand      *rand;
  int         depth;
  const char *delim;
  GPtrArray  *seeds;
  GPtrArray  *parents;   /* a ring of lines the engine allowed */
  guint       next_parent;
};

#define L(...) ((const char * const []) { __VA_ARGS__, NULL })

static const char * const payloads[] = {
  "evil", "evil", "evil", "evil x", "evil $x", "evil 'a b'", "curl -s http://x",
  "rm -rf x", "git push origin", "wget x", NULL
};

static const char * const simple_commands[] = {
  "ls", "ls -la", "ls dir", "ls a.txt", "cat a.txt", "cat", "cat b.txt a.txt", "echo hi",
  "echo", "echo a b", "git status", "git diff", "git diff --stat", "git log -1",
  "grep -c a a.txt", "grep x b.txt", "wc -l a.txt", "head -n 1 a.txt", "tail -n 1 b.txt",
  "node app.js", "node", "make", "make test", "true", "printf x", "test -f a.txt",
  "sort b.txt", "python3 x.py", "npm test", "tr a b", "base64 a.txt", "cut -c1 a.txt",
  "rev a.txt", "date", "pwd", NULL
};

/* Commands a trap in the workspace shadows when PATH leads there. */
static const char * const trap_commands[] = {
  "ls", "ls dir", "cat a.txt", "git status", "git diff", "node app.js", "make", "grep x a.txt",
  "env", "sh -c ls", NULL
};

static const char * const words[] = {
  /* plain */
  "a.txt", "-l", "x", "dir", ".", "--", "'a b'", "\"c d\"", "*.txt", "?", "[ab].txt", "~",
  "{a,b}", "$x", "\"$@\"", "$1", "${x}", "${#x}", "a#b", "''", "-", "../outside/o.txt",
  "$HOME", "x\\ y", "$'\\n'", "$((1))", "\\n", "%",
  /* payloads in places no shell runs them, if read right */
  "'%P'", "\"%P\"", "'; %P; '", "\\; %P", "'$(%P)'", "\\$(%P)", "\\`%P\\`", "\"\\$(%P)\"",
  "$\"x\"", "#; %P", "a#; %P", "\\#; %P", "'a'\\''; %P; '\\'''",
  /* ${…}: braces, quotes and substitutions inside */
  "${x-{}; %P; echo }", "${x-{}; %P; }", "${x:-{}; %P; echo }", "\"${x-{}\"; %P; echo }",
  "${x-\\{}; %P; echo }", "${x#\\}}; %P; echo }", "${x-\"}\"}; %P; echo }",
  "${x-'}'}; %P; echo '}", "\"${x-'}'}\"; %P; '}'", "${x:+{}}; %P; {", "${x-$(%S)}",
  "${x-`%S`}", "\"${x:-$(%S)}\"", "${x/a/'}'}; %P; '}'", "${x%%'}'}", "${x:-'{'}",
  /* arithmetic, $[…] */
  "$[1;%P;1]", "$[1 ; %P]", "$[ $(%S) ]", "$((1+2))", "$(( $(%S) ))", "$((%S) )",
  "$( (%S) )", "$[1]", "$[\"1\"]",
  /* $'…' */
  "$'\\''; %P; echo '", "$'a\\'b'", "$'\\x27'; %P; '", "%E", "$'\\c'\"'\"; %P",
  /* substitutions */
  "$(%S)", "`%S`", "\"$(%S)\"", "<(%S)", ">(%S)", "\"`%S`\"", "$(%S #)\n)",
  "$(: ')'; %S)", "$(echo ')' ; %S)", "`echo \\`%S\\``", "$(case x in x) %S;; esac)",
  "$(case x in (x) %S;; esac)", "$(%S <<<x)", "\"$(%S \")\")\"",
  NULL
};

/* Builtins that evaluate a subscript in a name they are given: with
 * i='x[$(cmd)]', bash runs cmd. */
static const char * const subscript_evals[] = {
  "test -v \"$i\"", "[ -v \"$i\" ]", "unset \"$i\"", "printf -v \"$i\" x",
  "read \"$i\" < a.txt", "declare -n r=$i; echo $r", "echo ${!i}", "echo ${i@P}",
  "export \"$i\"=1", "getopts a \"$i\"", "mapfile \"$i\" < a.txt", "echo ${!i@P}",
  "declare \"$i\"=1", "typeset -i n=i", "let i", "echo $((i))", "printf %%d i",
  "read -a \"$i\" < a.txt", "wait -p \"$i\"", "[[ $i -eq 0 ]]", "test \"$i\" -eq 0",
  NULL
};

static const char * const arith_unknown[] = {
  "$((i))", "$(( i ))", "$((\"i\"))", "$((\"$i\"))", "$(($i))", "$[i]", "$[\"i\"]",
  "${@:i}", "${*:i}", "${?:i}", "${-:i}", "${#:i}", "${BASH_VERSINFO[@]:i}", "${#A[i]}",
  "${A[i]}", "${x:i}", "${x:0:i}", "{a[i]}>/dev/null", "$((i+1))", "$(( i ? 1 : 0 ))",
  NULL
};

static const char * const encoded_targets[] = {
  "evil", "-rf", "push", "--output=x", "rm", "-rf x", "x;evil", NULL
};

static const char * const redirs_benign[] = {
  "> out.txt", ">/dev/null", "2>&1", "2>/dev/null", ">> b.txt", "< a.txt", ">&2",
  "> dir/x", "2>> out.txt", "<<< x", "> /dev/stdout", "1>&2", "&>/dev/null", NULL
};

static const char * const redir_ops[] = {
  "> ", ">> ", "2> ", "&> ", ">| ", "<> ", ">& ", "{fd}> ", "3> ", "&>> ", ">", "1>", NULL
};

static const char * const targets[] = {
  "../outside/x", "../x", "link/x", "link", "~/x", "$HOME/x", "/tmp/x", "/dev/shm/x",
  "dir/../../x", "./../x", "'../x'", "\"../x\"", "..\\/x", ".git/config",
  ".git/hooks/pre-commit", ".envrc", ".vscode/x", "./.git/config", "dir/../.git/x",
  ".GIT/config", ".git./config", "x/../.git/config", "..//outside/x", "$PWD/../x",
  "${HOME}/x", ".././x", "link/../x", "$'..'/x", "${x:-..}/x", ".\\./x", "~/.bashrc",
  ".bashrc", "dir/.git/x", ".idea/x", "../ws/../x", NULL
};

/* Wrappers with the options their tools have; the engine must skip the
 * options right to find the command. */
static const char * const wrappers[] = {
  "env ", "env -i ", "env -u X ", "env -uX ", "env A=1 ", "env -- ", "env - ", "env -C dir ",
  "env --chdir=dir ", "env -0 ", "env -vi ", "env A=1 B=2 ", "env -S ",
  "nice ", "nice -n 5 ", "nice -n5 ", "nice -5 ", "nice --adjustment=5 ",
  "nohup ", "nohup -- ",
  "timeout 5 ", "timeout -s KILL 5 ", "timeout -sKILL 5 ", "timeout --signal KILL 5 ",
  "timeout -k 1 5 ", "timeout -k1 5 ", "timeout --foreground 5 ", "timeout 5s ",
  "timeout -v 5 ", "timeout --preserve-status 5 ",
  "stdbuf -oL ", "stdbuf -o0 -eL ", "stdbuf --output=L ",
  "setsid ", "setsid -f ", "setsid -w ",
  "ionice -c3 ", "ionice -c 3 ", "ionice -n 7 ", "ionice -t ",
  "taskset 1 ", "taskset -c 0 ", "taskset 0x1 ", "taskset -a 1 ",
  "command ", "command -p ", "command -- ", "exec ", "exec -a x ", "exec -c ", "builtin exec ",
  "time ", "time -p ", "time -f %%e ", "time -o out.txt ",
  "sudo ", "sudo -u root ", "sudo -uroot ", "sudo --user=root ", "sudo --user root ",
  "sudo -E ", "sudo -E -u root ", "sudo -nk ", "sudo -k ", "sudo -- ", "sudo -g 0 ",
  "sudo -C 3 ", "sudo -D / ", "sudo -H ", "sudo -s ", "sudo -i ",
  "doas ", "doas -u root ", "doas -n ", "doas -s ",
  "su -c ", "su root -c ", "su - root -c ", "su -s /bin/sh -c ", "runuser -u root ",
  "runuser -u root -- ", "runuser -l root -c ",
  "setpriv ", "setpriv --nnp ", "flock x ", "flock -w 1 x ", "flock -x x ", "flock -o x ",
  "flock x -c ", "unshare -n ", "unshare -r ", "unshare --fork ", "script -c ", "script -qc ",
  "chroot / ", "chroot --userspec=0:0 / ", "systemd-run ", "systemd-run --user ",
  "systemd-run -p X=1 ", "nsenter -t 1 ", "nsenter --target 1 -m ",
  "busybox ", "busybox env ", "busybox timeout 5 ", "busybox nice ",
  "xargs ", "xargs -n 1 ", "xargs -I{} ", "xargs -0 ", "xargs -r ", "xargs -L 1 ",
  "xargs -a a.txt ", "xargs -d , ", "xargs -E x ", "xargs -s 100 ", "xargs -P 2 ",
  "xargs -i ", "xargs -l ", "xargs -e ", "xargs --null ", "xargs --max-args=1 ", "xargs -t ",
  "/usr/bin/env ", "/bin/sudo ",
  /* options attached, repeated or clustered: the last one wins */
  "su -c x -c ", "su -cx -c ", "su -c- -c", "sudo -u root -u root ", "sudo -iu root ",
  "sudo -Eu root ", "timeout -s KILL -s TERM 5 ", "env -u X -u Y ", "env -iuX ",
  "nice -n 1 -n 2 ", "xargs -n1 -n1 ", "xargs -I {} ", "xargs -I% ", "xargs -0r ",
  "flock -w1 x ", "flock -w 1 -x x ", "flock -nx x ", "timeout -k1s 5 ", "timeout -vk 1 5 ",
  "taskset -pc 0 ", "ionice -c3 -n7 ", "stdbuf -i0 -o0 -e0 ", "env --unset=X ",
  "env --ignore-environment ", "env -C. ", "sudo -- -u ", "doas -nu root ",
  /* optional arguments: attached or absent, never the next word (issue 26) */
  "env --block-signal ", "env --ignore-signal ", "env --default-signal ",
  "env --block-signal=INT ", "env --default-signal=PIPE ", "env --list-signal-handling ",
  "xargs --eof ", "xargs --eof=x ", "xargs --replace ", "xargs --replace=R ",
  "xargs --max-lines ", "xargs --max-lines=1 ", "xargs -e ", "xargs -ex ", "xargs -l ",
  "xargs -l1 ", "xargs -i ", "xargs -iR ", "watch -d ", "watch -d -q 1 ", "watch -dq 1 ",
  "watch -q 1 ", "watch -n 1 ", "watch -x ", "watch --differences ",
  "watch --differences=permanent ", "watch -t -x ", "watch ", "nsenter --wd ",
  "nsenter --root ", "nsenter -w ", "nsenter -r ", "nsenter --wd=dir ", "nsenter -W dir ",
  "unshare --boottime 1 ", "unshare --monotonic 1 ", "unshare --mount ", "unshare --net=x ",
  "setpriv --ruid 0 ", "setpriv --euid 0 ", "setpriv --nnp ", "setpriv --reset-env ",
  "ionice -u 0 ", "ionice -p 1 ", "taskset -p 1 ", "sudo -h ", "sudo --shell ",
  "sudo --login ", "sudo -R . ", "script --timing -c ", "script -t -c ",
  /* options that change the program started or write a file (issue 26) */
  "xargs --process-slot-var=PATH ", "xargs --process-slot-var SLOT ", "fakeroot ",
  "fakeroot -l ./x.so ", "fakeroot -u ", "fakeroot -s .envrc ", "chroot . ",
  "unshare -R . ", "unshare -w dir ", "time -o .git/hooks/pre-commit ", "time -o ../x ",
  "time -f %%e -o out.txt ",
  NULL
};

static const char * const shell_c[] = {
  "sh -c ", "bash -c ", "dash -c ", "busybox sh -c ", "ash -c ", "mksh -c ", "ksh -c ",
  "zsh -c ", "rbash -c ", "sh -ec ", "bash -xc ", "sh -c -- ", "bash --norc -c ",
  "sudo sh -c ", "env sh -c ", "xargs sh -c ", "su -c ", "flock x -c ", "script -qc ",
  "/bin/sh -c ", "sh -c -x ", "sh -cx ", "sh -o errexit -c ", "sh +x -c ",
  "bash -O extglob -c ", "bash --posix -c ", "sh -e -c ", "dash -ec ", "busybox ash -c ",
  "busybox sh -xc ", "exec sh -c ", "command sh -c ", "nohup sh -c ", "timeout 5 sh -c ",
  "sudo -u root sh -c ", "env -i bash -c ", "bash -c -- ", "sh -c %Q sh ", NULL
};

static const char * const find_forms[] = {
  "find . -exec %X {} \\;", "find . -exec %X \\;", "find . -execdir %X {} +",
  "find . -ok %X \\;", "find . -name x -o -exec %X \\;", "find . \\( -exec %X \\; \\)",
  "find . -exec true \\; -exec %X \\;", "find -exec %X {} \\;",
  "find . -newer a.txt -exec %X {} +", "find . -exec %X ';'", "find . -exec %X {} \\+",
  "find . -maxdepth 0 -exec %X {} \\;", NULL
};

/* Shells reading a script from a file in the workspace: run.sh runs evil. */
static const char * const script_files[] = {
  "sh run.sh", "bash run.sh", "sh < run.sh", "bash -c 'source run.sh'", ". ./run.sh",
  "source run.sh", "BASH_ENV=run.sh bash -c ls", "env BASH_ENV=run.sh bash -c %Q",
  "ENV=run.sh sh -i < /dev/null", "bash --rcfile run.sh -i < /dev/null", "cat run.sh | sh",
  "sh -s < run.sh", "busybox sh run.sh", "find . -name run.sh -exec sh {} \\;",
  "sh -c 'sh run.sh'", "env -S 'sh run.sh'", "command . ./run.sh", "builtin source run.sh",
  "exec sh run.sh", "nohup sh run.sh", "time sh run.sh", "xargs sh < run.sh",
  "sh -- run.sh", "sh -e run.sh", "dash run.sh", "sh - run.sh", "sh ./run.sh x", "bash -x run.sh",
  "sudo sh run.sh", "timeout 5 sh run.sh", "env sh run.sh", "sh -c . ./run.sh",
  "sh -c '. \"$0\"' ./run.sh", "sh -c '. \"$1\"' x ./run.sh", "sh \"$x\"run.sh",
  "sh +x run.sh", "sh -o errexit run.sh", "bash -O extglob run.sh", "sh -c ':' run.sh", NULL
};

/* Every builtin of bash, dash and busybox sh, with a payload where it could
 * run one: the engine must know which run a command (jobs -x, eval, trap,
 * compgen -C …), which change what later commands run or where they write
 * (cd, chdir, hash, alias, history -w …) and which do neither. */
static const char * const builtin_lines[] = {
  /* run a command */
  "jobs -x %P", "jobs -x %S", "builtin jobs -x %P", "command jobs -x %P", "jobs -x %P %%1",
  "jobs -x -- %P", "eval %Q", "eval %P", ". ./run.sh", "source run.sh", "exec %P",
  "command %P", "builtin %P", "builtin eval %Q", "coproc %P", "time %P", "trap %Q EXIT",
  "compgen -C %P x", "complete -C %P x", "mapfile -C %P -c 1 x < a.txt",
  "readarray -C %P -c 1 x < a.txt", "bind -x '\"\\C-x\": %P'", "fc -e %P", "fc -s",
  "enable -f ./x.so x", "command -v %P", "command -V %P", "type %P", "type -P %P", "help %P",
  "hash -p ./run.sh ls; ls", "alias ls=%P; ls", "alias ls=%P\nls",
  "shopt -s expand_aliases; alias ls=%P\nls",
  /* change where later commands write */
  "chdir dir; %S > x", "chdir ..; %S > x", "chdir dir && %S > ../../x", "chdir .git; %S > config",
  "cd dir; %S > x", "pushd dir; %S > x", "popd; %S > x",
  "history -s %P; history -w .git/hooks/pre-commit", "history -s %P; history -a ../x",
  "set -o history; history -s %P; history -w .git/config", "history -w ../x",
  "history -s x; history -w out.txt", "umask 0; %S > x", "enable -n echo; echo x",
  /* neither */
  "times; %S", "ulimit -n 64; %S", "dirs; %S", "caller; %S", "disown; %S", "wait; %S",
  "kill -0 $$; %S", "getopts a x; %S", "compopt -o default; %S", "read -e x < a.txt; %S",
  "fg; %S", "bg; %S", "shift; %S", "help cd; %S", "type ls; %S", "true; :; false || %S",
  "let x=1; %S", "local x; %S", "pwd; %S", "test -n x && %S", "[ -n x ] && %S",
  "history; %S", "jobs -l; %S", "jobs; %S", "exit; %P", "break; %S", "continue; %S",
  "shopt -s nullglob; %S", "set -a; %S", "unset -f x; %S", "echo $(jobs -x %P)",
  NULL
};

static const char * const stdin_shells[] = {
  "%S | sh", "%S | bash -s", "sh <<< %Q", "bash <<< %Q", "sudo -s <<< %Q", "doas -s <<< %Q",
  "su <<< %Q", "unshare <<< %Q", "busybox sh <<< %Q", "sh -s < a.txt", "chroot / <<< %Q",
  "sh < /dev/null", "%S | sh -s -- x", "sudo -i <<< %Q", "bash <<< %Q b.txt",
  "sh <<< %Q run.sh", "sh run.sh <<< %Q", "bash -s <<< %Q run.sh", "sh -s run.sh <<< %Q",
  "sh - run.sh <<< %Q", "bash -- run.sh <<< %Q", "sh <<EOF run.sh\n%P\nEOF", NULL
};

static const char * const assignments[] = {
  "for PATH in .; do %T; done", "PATH=. %T", "PATH=.:$PATH %T", "read PATH <<< .; %T",
  "printf -v PATH .; %T", "declare PATH=.; %T", "export PATH=.; %T", "IFS=/; %T",
  "HOME=. %T", "for HOME in h; do %T; done", "select PATH in .; do %T; break; done",
  "mapfile PATH <<< .; %T", "getopts a PATH; %T", "case . in *) PATH=. ;; esac; %T",
  "for PATH in .; do :; done; %T", "while read PATH; do %T; done <<< .", "typeset PATH=.; %T",
  "readonly PATH=.; %T", "env PATH=. %T", "command PATH=. %T", "local PATH=.; %T",
  "unset PATH; %T", "PATH=; %T", "PATH=.\n%T", "for PATH in . ; do %T ; done",
  "read -r PATH < /dev/null; %T", ": ${PATH:=.}; %T", "for PATH in \"$PWD\"; do %T; done",
  "declare -x PATH=.; %T", "export PATH=. && %T", "set -- .; PATH=$1 %T",
  "printf -vPATH .; %T", "printf -v PATH -- .; %T", "read -r -- PATH <<< .; %T",
  "mapfile -t PATH <<< .; %T", "readarray PATH <<< .; %T", "declare -gx PATH=.; %T",
  "PATH=.:/usr/bin %T", "CDPATH=..; cd outside; %S > x", "read -rd '' PATH <<< .; %T",
  "IFS= read -r PATH <<< .; %T", "read PATH x <<< '. y'; %T", "for PATH do %T; done",
  "declare -a PATH=(.); %T", "PATH[0]=.; %T", "export PATH=.:$PATH; %T", "typeset -x PATH=.; %T",
  "printf -v 'PATH' .; %T", "printf -v \"PATH\" .; %T", "printf -v P\\ATH .; %T",
  "read P''ATH <<< .; %T", "declare P\"\"ATH=.; %T", NULL
};

static const char * const quoted_names[] = {
  "'ls ./x'", "\"ls ./x\"", "ls\\ ./x", "'cat ./x' a.txt", "'git ./x' status", "l's ./x'",
  "'node ./x'", "'echo ./x' hi", "\"ls\"' ./x'", "'ls .'/x", "l\"s ./\"x", "$'ls ./x'",
  "'ls'", "\"ls\" dir", "l's'", "\\ls", "l\\s", "l\"\"s", "'git' status", "g'i't status", NULL
};

static const char * const specials[] = {
  /* &> and friends: bash only */
  "%S &>/dev/null %P", "%S &>/dev/null %P x", "%S &>>/dev/null %P", "%S >&/dev/null; %S",
  "%S &> out.txt %P", "%S &>/dev/null", "%S |& %S",
  /* $[…]: bash only */
  "echo $[1;%P;1]", "%S $[1;%P;1]", "echo $[1;%P]", "echo $[$(%S)]",
  /* arithmetic on values the engine cannot know */
  "for i in 'x[$(%P)]'; do %S %A; done", "for i in 'x[$(%P)]'; do echo %A; done",
  "for i in 'x[`%P`]' ; do : %A; done", "read i <<< 'x[$(%P)]'; echo %A",
  "for i in 'A[$(%P)]'; do echo %A; done", "for i in 'x[$(%P)]'; do %V; done",
  "for i in 'x[$(%P)]'; do %S; %V; done", "read i < a.txt; %V", "%Y%Y%P", "%Y%Y%S",
  "case x in x) %S;& y) %P;; esac", "case x in x) %S;;& y) %P;; esac",
  "echo $(<a.txt)", "echo ${x@P}", "x=1 %S", "%S; cd dir; %S > x",
  /* expansions that come out empty inside the words of a payload */
  "%Z", "%Z", "%S; %Z", "%Y%Z", "%S $(%Z)", "%S && %Z",
  /* $'…' decoded before patterns see it */
  "rm %E x", "rm %E ~", "git %E origin", "git diff %E", "%E", "%E x", "curl %E",
  "echo %E", "git diff $'--\\x6futput=x'", "rm $'-\\u0072f' ~",
  /* bash and sh read these differently */
  "((%S))", "((%S) )", "( (%S) )", "function f { %S; }", "f() { %P; }", "[[ -n $(%S) ]]",
  "select x in a; do %S; break; done", "coproc %S", "%S <<< %W",
  "case x in x) %S;; (%P) ;; esac", "case $(%S) in *) %S;; esac", "case x in $(%P)) ;; esac",
  "echo $(( $(%S) ))", "echo \"${x:-\"}\"}\"", "echo `%S \\`%P\\``", "! %S", "%S & %S",
  "time %S", "time -p %S",
  /* comments and continuations */
  "%S # ; %P", "%S #\\\n%P", "%S \\#; %P", "echo a#b; %S", "%S #$(\n%P\n)", "%S \\\n%S",
  "%S '\\\n'; %S", "# x \\\n%P", "%S # `\n%P\n`", "%S ${x#\n%P\n}", "%S;#\n%S",
  "%S \\\n# %P", "e\\\ncho x", "%S\\\n;%S", "%S\r\n%P",
  /* writes */
  "echo '[diff]' >> .git/config; git diff", "cd ..; %S > x", "cd dir && %S > ../../x",
  "pushd ..; %S > x", "cd; %S > x", "exec 3>../x", "exec >../x; %S", "%S > x; cd ..",
  "cd ../outside; %S > x", "%S > %O", "%S >> %O", "%S 2> %O", "%S &> %O", "%S {fd}> %O",
  NULL
};

static const char * const heredoc_ops[] = {
  "<<%D", "<< %D", "<<'%D'", "<<\"%D\"", "<<\\%D", "<<-%D", "<<-'%D'", "<<%D''", "<<\"\"%D",
  NULL
};

static const char * const heredoc_forms[] = {
  "cat %h\n%B\n%D\n%C", "cat %h $(\n%B\n%D\n)", "cat %h \"$(\n%B\n%D\n)\"",
  "cat %h ${x:-$(\n%B\n%D\n)}", "cat %h <(\n%B\n%D\n)", "cat %h `\n%B\n%D\n`",
  "%S $(cat %h\n%B\n%D\n)", "%S \"$(cat %h\n%B\n%D\n)\"", "%S ${x:-$(cat %h\n%B\n%D\n)}",
  "%S <(cat %h\n%B\n%D\n)", "%S `cat %h\n%B\n%D\n`", "cat %h; %S $(\n%B\n%D\n)",
  "cat %h && %S\n%B\n%D\n", "cat %h | %S\n%B\n%D\n", "cat %h %h\n%B\n%D\n%B\n%D\n",
  "cat %h \\\n%B\n%D\n", "cat %h\n%B\\\n%D\n%B\n%D\n", "cat <<-%D\n\t%B\n\t%D\n",
  "cat %h\n%B\n%D", "cat %h $(: %h\n%B\n%D\n)\n%B\n%D\n", "sh %h\n%B\n%D\n",
  "cat %h | sh\n%B\n%D\n", "%S $(cat %h\n)\n%B\n%D\n)", "{ cat %h; }\n%B\n%D\n",
  "( cat %h )\n%B\n%D\n", "if cat %h; then %S; fi\n%B\n%D\n",
  "for f in $(cat %h\n%B\n%D\n); do %S; done", "case $(cat %h\n%B\n%D\n) in *) %S;; esac",
  "cat %h \"${x-$(\n%B\n%D\n)}\"", "cat %h $(( $(\n%B\n%D\n) ))", "%S $(cat %h)\n%B\n%D\n",
  "cat %h ${x-\n%B\n%D\n}", "cat %h '\n%B\n%D\n'", "cat %h \"\n%B\n%D\n\"",
  "cat %h # $(\n%B\n%D\n)", "cat %h $(#\n%B\n%D\n)", "cat %h$(\n%B\n%D\n)",
  NULL
};

static const char * const heredoc_delims[] = { "EOF", "END", "X", "E", "eof", "$x", "EOF)", NULL };

static const char * const heredoc_body[] = {
  "%P", "%P", "$(%P)", "`%P`", "x", "$x", ")", "}", "'", "\"", "`", "%S", "%D)", " %D",
  "%D ", "\t%D", "\\", "$(", "# x", "%D;%P", "%D %P", "${x-", NULL
};

static const char * const dictionary[] = {
  ";", "&&", "||", "|", "&", "\n", "$(", ")", "`", "'", "\"", "{", "}", "(", "<<EOF\n",
  "\nEOF\n", "EOF", "#", "\\\n", "\\", "$[", "]", "${x-", "&>", "$'", "\\x65", "<(", ">",
  "<", "evil", " evil ", "; evil", "$(evil)", "`evil`", "case ", " esac", " in ", "do ",
  "done", "if ", "then ", "fi", "for ", "while ", "! ", "$((", "))", "{fd}>", "<<<", "<<-",
  "\t", " ", "PATH=.", "sh -c ", "env ", "sudo ", "xargs ", "--", "-c ", "'ls ./x'", "../x",
  ".git/config", "\r", "$'\\''", "\\'", "${", "$\"", "<<'EOF'\n", "\n)", "\n}", ";;", "-exec ",
  NULL
};

static guint
list_length (const char * const *list)
{
  guint n = 0;

  while (list[n] != NULL)
    n++;
  return n;
}

static int
rnd (OracleGen *g,
     int        n)
{
  return n <= 1 ? 0 : g_rand_int_range (g->rand, 0, n);
}

static gboolean
chance (OracleGen *g,
        int        percent)
{
  return rnd (g, 100) < percent;
}

static const char *
pick (OracleGen          *g,
      const char * const *list)
{
  return list[rnd (g, (int) list_length (list))];
}

static void expand (OracleGen *g, GString *out, const char *template);
static void gen_list (OracleGen *g, GString *out);

static void
gen_payload (OracleGen *g,
             GString   *out)
{
  g_string_append (out, pick (g, payloads));
}

/* A payload with an expansion that comes out empty inside a word: the text
 * the engine sees differs from the argv that runs ("rm -r$()f x" runs
 * "rm -rf x", which "rm -rf *" denies). */
static void
gen_payload_split (OracleGen *g,
                   GString   *out)
{
  static const char * const empties[] = {
    "$()", "${x}", "$x", "``", "$(:)", "${x:-}", "$@", "$*", "\"\"$x", "${x#*}", "$(true)",
    "${x%%y}", NULL
  };
  const char *p = pick (g, payloads);
  gsize len = strlen (p);
  gsize at = 1 + (gsize) rnd (g, (int) MAX (len, 2) - 1);

  at = MIN (at, len);
  g_string_append_len (out, p, (gssize) at);
  g_string_append (out, pick (g, empties));
  g_string_append (out, p + at);
}

/* A command word spelt another way: the same word after quote removal. */
static void
append_name_variant (OracleGen  *g,
                     GString    *out,
                     const char *name)
{
  gsize len = strlen (name);

  switch (rnd (g, 5))
    {
    case 0:
      g_string_append_printf (out, "'%s'", name);
      break;
    case 1:
      g_string_append_printf (out, "\"%s\"", name);
      break;
    case 2:
      g_string_append_c (out, '\\');
      g_string_append (out, name);
      break;
    default:
      {
        gsize cut = 1 + (gsize) rnd (g, (int) MAX (len, 2) - 1);

        cut = MIN (cut, len);
        g_string_append_len (out, name, (gssize) cut);
        g_string_append (out, rnd (g, 2) ? "''" : "\"\"");
        g_string_append (out, name + cut);
      }
      break;
    }
}

static void
gen_simple (OracleGen *g,
            GString   *out)
{
  const char *cmd = pick (g, simple_commands);

  if (chance (g, 8))
    {
      const char *space = strchr (cmd, ' ');
      g_autofree char *name = g_strndup (cmd, space != NULL ? (gsize) (space - cmd) : strlen (cmd));

      append_name_variant (g, out, name);
      if (space != NULL)
        g_string_append (out, space);
    }
  else
    g_string_append (out, cmd);

  if (chance (g, 30))
    {
      int n = 1 + rnd (g, 2);

      for (int i = 0; i < n; i++)
        {
          g_string_append_c (out, ' ');
          expand (g, out, pick (g, words));
        }
    }
  if (chance (g, 15))
    {
      g_string_append_c (out, ' ');
      expand (g, out, "%R");
    }
}

/* Quotes @script as one word for sh -c, in one of the ways people do. */
static void
append_quoted (OracleGen  *g,
               GString    *out,
               const char *script)
{
  switch (rnd (g, 5))
    {
    case 0:
    case 1:
      g_string_append_c (out, '\'');
      for (const char *p = script; *p != '\0'; p++)
        {
          if (*p == '\'')
            g_string_append (out, "'\\''");
          else
            g_string_append_c (out, *p);
        }
      g_string_append_c (out, '\'');
      break;
    case 2:
      {
        /* Sometimes $ and ` stay live, so the outer shell expands them. */
        gboolean live = chance (g, 30);

        g_string_append_c (out, '"');
        for (const char *p = script; *p != '\0'; p++)
          {
            if (*p == '"' || *p == '\\' || (!live && (*p == '$' || *p == '`')))
              g_string_append_c (out, '\\');
            g_string_append_c (out, *p);
          }
        g_string_append_c (out, '"');
      }
      break;
    case 3:
      g_string_append (out, "$'");
      for (const char *p = script; *p != '\0'; p++)
        {
          if (*p == '\'' || *p == '\\')
            g_string_append_c (out, '\\');
          if (*p == '\n')
            g_string_append (out, "\\n");
          else
            g_string_append_c (out, *p);
        }
      g_string_append_c (out, '\'');
      break;
    default:
      g_string_append (out, script);   /* unquoted: the words split */
      break;
    }
}

static void
gen_encoded (OracleGen *g,
             GString   *out)
{
  const char *target = pick (g, encoded_targets);

  g_string_append (out, "$'");
  for (const char *p = target; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      switch (rnd (g, 6))
        {
        case 0:
          g_string_append_printf (out, "\\x%02x", c);
          break;
        case 1:
          g_string_append_printf (out, "\\u%04x", c);
          break;
        case 2:
          g_string_append_printf (out, "\\U%08x", c);
          break;
        case 3:
          g_string_append_printf (out, "\\%o", c);
          break;
        case 4:
          g_string_append_printf (out, "\\x%x", c);
          break;
        default:
          if (c == '\'' || c == '\\')
            g_string_append_c (out, '\\');
          g_string_append_c (out, (char) c);
          break;
        }
    }
  if (chance (g, 5))
    g_string_append (out, "\\cA");
  g_string_append_c (out, '\'');
}

/* find … -exec with @inner as the command find runs (%X in the forms). */
static void
append_find (OracleGen  *g,
             GString    *out,
             const char *inner)
{
  const char *form = pick (g, find_forms);
  const char *x = strstr (form, "%X");

  g_string_append_len (out, form, x - form);
  g_string_append (out, inner);
  g_string_append (out, x + 2);
}

/* A command: simple, wrapped, or with a substitution in it. */
static void
gen_command (OracleGen *g,
             GString   *out)
{
  int r = rnd (g, 100);

  if (r < 65 || g->depth >= MAX_DEPTH)
    gen_simple (g, out);
  else if (r < 80)
    {
      const char *w = pick (g, wrappers);

      if (g_str_has_prefix (w, "xargs") && chance (g, 60))
        g_string_append (out, "echo a | ");
      expand (g, out, w);
      gen_simple (g, out);
    }
  else if (r < 85)
    {
      g_autoptr(GString) inner = g_string_new (NULL);

      gen_simple (g, inner);
      append_find (g, out, inner->str);
    }
  else if (r < 92)
    {
      g_autoptr(GString) script = g_string_new (NULL);

      g->depth++;
      gen_list (g, script);
      g->depth--;
      expand (g, out, pick (g, shell_c));
      append_quoted (g, out, script->str);
    }
  else
    {
      gen_simple (g, out);
      expand (g, out, pick (g, L (" $(%S)", " `%S`", " \"$(%S)\"", " <(%S)", " >(%S)",
                                  " $(%S | %S)", " $(%S; %S)")));
    }
}

static void
gen_heredoc (OracleGen *g,
             GString   *out)
{
  const char *saved = g->delim;

  g->delim = pick (g, heredoc_delims);
  expand (g, out, pick (g, heredoc_forms));
  g->delim = saved;
}

static void
gen_compound (OracleGen *g,
              GString   *out)
{
  static const char * const forms[] = {
    "if %C; then %L; fi", "if %C; then %L; else %L; fi", "if %C\nthen %L\nfi",
    "while false; do %L; done", "until true; do %L; done", "while %C; do %L; break; done",
    "for f in a b; do %L; done", "for f in *.txt; do %L \"$f\"; done", "for f; do %L; done",
    "case x in x) %L;; esac", "case x in (x) %L;; *) %L;; esac",
    "case x in x|y) %L;& z) %L;; esac", "{ %L; }", "( %L )", "(%L)", "{ %L\n}",
    "if %C; then %L; elif %C; then %L; fi", "{ %L; } > out.txt", "( %L ) 2>&1 | %S",
    "while read -r l; do %L; done < a.txt", NULL
  };

  expand (g, out, pick (g, forms));
}

static void
gen_item (OracleGen *g,
          GString   *out)
{
  int r = rnd (g, 100);

  if (r < 25 || g->depth >= MAX_DEPTH)
    gen_command (g, out);
  else if (r < 37)
    gen_compound (g, out);
  else if (r < 52)
    gen_heredoc (g, out);
  else if (r < 60)
    expand (g, out, pick (g, assignments));
  else if (r < 64)
    g_string_append (out, pick (g, quoted_names));
  else if (r < 72)
    {
      /* a payload behind a wrapper whose options the engine must read */
      const char *w = pick (g, wrappers);

      if (g_str_has_prefix (w, "xargs") && chance (g, 60))
        g_string_append (out, "echo a | ");
      expand (g, out, w);
      gen_payload (g, out);
    }
  else if (r < 75)
    {
      g_autoptr(GString) p = g_string_new (NULL);

      gen_payload (g, p);
      append_find (g, out, p->str);
    }
  else if (r < 77)
    expand (g, out, pick (g, stdin_shells));
  else if (r < 79)
    expand (g, out, pick (g, script_files));
  else if (r < 93)
    expand (g, out, pick (g, specials));
  else if (r < 98)
    expand (g, out, pick (g, builtin_lines));
  else
    gen_payload (g, out);
}

static void
gen_list (OracleGen *g,
          GString   *out)
{
  static const char * const separators[] = {
    "; ", " && ", " || ", " & ", "\n", " | ", ";", " ;\n", NULL
  };
  int n = 1 + rnd (g, g->depth == 0 ? 3 : 2);

  for (int i = 0; i < n; i++)
    {
      if (i > 0)
        {
          /* after a here-document body, a separator at the start of a line
           * is a syntax error: mostly go on with a newline */
          if (out->len == 0 || out->str[out->len - 1] != '\n' || chance (g, 20))
            g_string_append (out, pick (g, separators));
        }
      gen_item (g, out);
    }
  if (chance (g, 5))
    g_string_append (out, pick (g, L (";", " &", "\n", " # x", " \\")));
}

static void
expand (OracleGen  *g,
        GString    *out,
        const char *template)
{
  for (const char *p = template; *p != '\0'; p++)
    {
      if (*p != '%' || p[1] == '\0')
        {
          g_string_append_c (out, *p);
          continue;
        }
      p++;
      switch (*p)
        {
        case 'S':
          gen_simple (g, out);
          break;
        case 'C':
          gen_command (g, out);
          break;
        case 'P':
          gen_payload (g, out);
          break;
        case 'Z':
          gen_payload_split (g, out);
          break;
        case 'T':
          g_string_append (out, pick (g, trap_commands));
          break;
        case 'L':
          if (g->depth >= MAX_DEPTH)
            gen_simple (g, out);
          else
            {
              g->depth++;
              gen_list (g, out);
              g->depth--;
            }
          break;
        case 'W':
          expand (g, out, pick (g, words));
          break;
        case 'A':
          g_string_append (out, pick (g, arith_unknown));
          break;
        case 'V':
          expand (g, out, pick (g, subscript_evals));
          break;
        case 'E':
          gen_encoded (g, out);
          break;
        case 'Q':
          {
            g_autoptr(GString) script = g_string_new (NULL);

            g->depth++;
            if (chance (g, 30))
              gen_payload (g, script);
            else
              gen_list (g, script);
            g->depth--;
            append_quoted (g, out, script->str);
          }
          break;
        case 'R':
          if (chance (g, 55))
            g_string_append (out, pick (g, redirs_benign));
          else
            {
              g_string_append (out, pick (g, redir_ops));
              g_string_append (out, pick (g, targets));
            }
          break;
        case 'O':
          g_string_append (out, pick (g, targets));
          break;
        case 'Y':
          expand (g, out, pick (g, wrappers));
          break;
        case 'H':
          gen_heredoc (g, out);
          break;
        case 'h':
          expand (g, out, pick (g, heredoc_ops));
          break;
        case 'D':
          /* near misses of the closing line are among the body lines */
          g_string_append (out, g->delim != NULL ? g->delim : "EOF");
          break;
        case 'B':
          {
            int n = 1 + rnd (g, 3);

            for (int i = 0; i < n; i++)
              {
                if (i > 0)
                  g_string_append_c (out, '\n');
                expand (g, out, pick (g, heredoc_body));
              }
          }
          break;
        case '%':
          g_string_append_c (out, '%');
          break;
        default:
          g_string_append_c (out, '%');
          g_string_append_c (out, *p);
          break;
        }
    }
}

/* ---- Mutations ----------------------------------------------------------------- */

/* Words, runs of blanks, and single operator characters. */
static GPtrArray *
tokenize (const char *s)
{
  GPtrArray *tokens = g_ptr_array_new_with_free_func (g_free);
  const char *p = s;

  while (*p != '\0')
    {
      const char *start = p;

      if (*p == ' ' || *p == '\t')
        while (*p == ' ' || *p == '\t')
          p++;
      else if (g_ascii_isalnum (*p) || strchr ("_-./=+,:@%", *p) != NULL)
        while (*p != '\0' && (g_ascii_isalnum (*p) || strchr ("_-./=+,:@%", *p) != NULL))
          p++;
      else
        p++;
      g_ptr_array_add (tokens, g_strndup (start, (gsize) (p - start)));
    }
  return tokens;
}

static const char *
pick_source (OracleGen *g)
{
  if (g->parents->len > 0 && chance (g, 40))
    return g->parents->pdata[rnd (g, (int) g->parents->len)];
  if (g->seeds->len > 0)
    return g->seeds->pdata[rnd (g, (int) g->seeds->len)];
  return "ls";
}

static void
mutate (OracleGen *g,
        GString   *s)
{
  static const char special[] = " ;&|()<>'\"`$\\{}[]#\n\t=*?~!-";
  gsize len = s->len;
  gsize at = len > 0 ? (gsize) rnd (g, (int) len + 1) : 0;

  switch (rnd (g, 9))
    {
    case 0:
      g_string_insert (s, (gssize) at, pick (g, dictionary));
      break;
    case 1:
      if (len > 0)
        {
          gsize n = 1 + (gsize) rnd (g, 8);

          at = MIN (at, len - 1);
          g_string_erase (s, (gssize) at, (gssize) MIN (n, len - at));
        }
      break;
    case 2:
      if (len > 0)
        {
          gsize n = 1 + (gsize) rnd (g, 16);
          g_autofree char *copy = NULL;

          at = MIN (at, len - 1);
          n = MIN (n, len - at);
          copy = g_strndup (s->str + at, n);
          g_string_insert (s, (gssize) at, copy);
        }
      break;
    case 3:
      if (len > 1)
        {
          char c;

          at = MIN (at, len - 2);
          c = s->str[at];
          s->str[at] = s->str[at + 1];
          s->str[at + 1] = c;
        }
      break;
    case 4:
      g_string_insert_c (s, (gssize) at, special[rnd (g, (int) sizeof special - 1)]);
      break;
    case 5:
    case 6:
      {
        g_autoptr(GPtrArray) tokens = tokenize (s->str);
        guint n = tokens->len;

        if (n == 0)
          break;
        switch (rnd (g, 4))
          {
          case 0:
            g_ptr_array_remove_index (tokens, (guint) rnd (g, (int) n));
            break;
          case 1:
            {
              guint i = (guint) rnd (g, (int) n);

              g_ptr_array_insert (tokens, (gint) i, g_strdup (tokens->pdata[i]));
            }
            break;
          case 2:
            {
              guint i = (guint) rnd (g, (int) n), j = (guint) rnd (g, (int) n);
              gpointer t = tokens->pdata[i];

              tokens->pdata[i] = tokens->pdata[j];
              tokens->pdata[j] = t;
            }
            break;
          default:
            {
              guint i = (guint) rnd (g, (int) n);
              GString *replacement = g_string_new (NULL);

              if (chance (g, 50))
                gen_payload (g, replacement);
              else
                expand (g, replacement, pick (g, words));
              g_free (tokens->pdata[i]);
              tokens->pdata[i] = g_string_free (replacement, FALSE);
            }
            break;
          }
        g_string_truncate (s, 0);
        for (guint i = 0; i < tokens->len; i++)
          g_string_append (s, tokens->pdata[i]);
      }
      break;
    case 7:
      {
        /* splice: this line's start, another's end */
        const char *other = pick_source (g);
        gsize olen = strlen (other);
        gsize from = olen > 0 ? (gsize) rnd (g, (int) olen + 1) : 0;

        g_string_truncate (s, at);
        g_string_append (s, other + from);
      }
      break;
    default:
      {
        g_autoptr(GString) item = g_string_new (NULL);

        gen_item (g, item);
        g_string_insert (s, (gssize) at, item->str);
      }
      break;
    }
}

OracleGen *
oracle_gen_new (guint32 seed)
{
  OracleGen *self = g_new0 (OracleGen, 1);

  self->rand = g_rand_new_with_seed (seed);
  self->seeds = g_ptr_array_new_with_free_func (g_free);
  self->parents = g_ptr_array_new_with_free_func (g_free);
  return self;
}

void
oracle_gen_free (OracleGen *self)
{
  if (self == NULL)
    return;
  g_rand_free (self->rand);
  g_ptr_array_unref (self->seeds);
  g_ptr_array_unref (self->parents);
  g_free (self);
}

void
oracle_gen_add_seed (OracleGen  *self,
                     const char *line)
{
  g_ptr_array_add (self->seeds, g_strdup (line));
}

void
oracle_gen_add_parent (OracleGen  *self,
                       const char *line)
{
  if (self->parents->len < N_PARENTS)
    g_ptr_array_add (self->parents, g_strdup (line));
  else
    {
      g_free (self->parents->pdata[self->next_parent]);
      self->parents->pdata[self->next_parent] = g_strdup (line);
      self->next_parent = (self->next_parent + 1) % N_PARENTS;
    }
}

char *
oracle_gen_line (OracleGen *self)
{
  GString *s;

  self->depth = 0;
  if (chance (self, 55))
    {
      s = g_string_new (NULL);
      gen_list (self, s);
      if (chance (self, 15))
        mutate (self, s);
    }
  else
    {
      int n = 1 + rnd (self, 4);

      s = g_string_new (pick_source (self));
      for (int i = 0; i < n; i++)
        mutate (self, s);
    }
  if (s->len > MAX_LINE)
    g_string_truncate (s, MAX_LINE);
  /* The engine asks for NUL bytes, and exec cannot pass them. */
  for (gsize i = 0; i < s->len; i++)
    if (s->str[i] == '\0')
      s->str[i] = ' ';
  return g_string_free (s, FALSE);
}

/* ---- Profiles ------------------------------------------------------------------ */

static gboolean
is_stub_name (const char *word)
{
  for (guint i = 0; oracle_stub_names[i] != NULL; i++)
    if (strcmp (word, oracle_stub_names[i]) == 0)
      return TRUE;
  return FALSE;
}

/* Builtins: nothing is logged when they run, so allowing them costs the
 * oracle nothing, and lines that use them get to run. */
static const char * const builtins[] = {
  "cd", "read", "set", "export", "declare", "typeset", "local", "readonly", "unset", "shopt",
  "printf", "test", "echo", "true", "false", ":", "exec", "command", "builtin", "type",
  "hash", "getopts", "mapfile", "readarray", "wait", "umask", "pushd", "popd", "kill", "let",
  "shift", "return", "break", "continue", "trap", "alias", "source", "eval", "pwd", "times",
  "jobs", "chdir", "history", "compgen", "complete", "compopt", "bind", "fc", "enable", "help",
  "caller", "dirs", "disown", "ulimit", "exit", "fg", "bg", "coproc",
  NULL
};

static gboolean
is_builtin (const char *word)
{
  for (guint i = 0; builtins[i] != NULL; i++)
    if (strcmp (word, builtins[i]) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
is_forbidden (const char *word)
{
  for (guint i = 0; oracle_forbidden_names[i] != NULL; i++)
    if (strcmp (word, oracle_forbidden_names[i]) == 0)
      return TRUE;
  return FALSE;
}

static void
add_unique (GPtrArray  *list,
            const char *pattern)
{
  for (guint i = 0; i < list->len; i++)
    if (strcmp (list->pdata[i], pattern) == 0)
      return;
  g_ptr_array_add (list, g_strdup (pattern));
}

void
oracle_gen_config (GRand      *rand,
                   const char *line,
                   GPtrArray  *allow,
                   GPtrArray  *deny)
{
  static const char * const common[] = {
    "ls", "ls *", "cat *", "echo *", "git status", "git diff *", "true", "grep *", "wc *",
    "test *", "printf *", "node *", "make", NULL
  };
  static const char * const git_patterns[] = {
    "git status", "git diff", "git diff *", "git log *", NULL
  };
  /* evil always: in allow-always mode the deny list is all there is to hold
   * the engine to. */
  static const char * const deny_pool[] = {
    "curl *", "rm -rf *", "rm *", "git push *", "wget *", "*evil*", NULL
  };
  g_autoptr(GString) unquoted = g_string_new (NULL);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) tokens = NULL;
  int drop = g_rand_int_range (rand, 0, 4) == 0 ? 25 : 5;

  /* Quote removal, roughly: l's' is ls. */
  for (const char *p = line; *p != '\0'; p++)
    if (*p != '\'' && *p != '"' && *p != '\\')
      g_string_append_c (unquoted, *p);
  tokens = g_ptr_array_new_with_free_func (g_free);
  {
    const char *p = unquoted->str;

    while (*p != '\0')
      {
        const char *start = p;

        while (*p != '\0' && (g_ascii_isalnum (*p) || strchr ("_-.+[", *p) != NULL))
          p++;
        if (p > start)
          g_ptr_array_add (tokens, g_strndup (start, (gsize) (p - start)));
        else
          p++;
      }
  }

  for (guint i = 0; i < tokens->len; i++)
    {
      const char *name = tokens->pdata[i];

      if ((!is_stub_name (name) && !is_builtin (name)) || is_forbidden (name) ||
          g_hash_table_contains (seen, name))
        continue;
      g_hash_table_add (seen, (gpointer) name);
      if (g_rand_int_range (rand, 0, 100) < drop)
        continue;
      if (strcmp (name, "git") == 0)
        {
          /* never "git *": git push is a payload */
          for (guint k = 0; git_patterns[k] != NULL; k++)
            if (g_rand_int_range (rand, 0, 3) != 0)
              add_unique (allow, git_patterns[k]);
          continue;
        }
      switch (g_rand_int_range (rand, 0, 8))
        {
        case 0:
          add_unique (allow, name);
          break;
        case 1:
          {
            g_autofree char *star = g_strconcat (name, " *", NULL);

            add_unique (allow, star);
          }
          break;
        default:
          {
            g_autofree char *star = g_strconcat (name, " *", NULL);

            add_unique (allow, name);
            add_unique (allow, star);
          }
          break;
        }
    }
  for (int n = g_rand_int_range (rand, 0, 4); n > 0; n--)
    add_unique (allow, common[g_rand_int_range (rand, 0, (gint32) list_length (common))]);
  if (allow->len == 0)
    add_unique (allow, "ls");

  add_unique (deny, "evil");
  add_unique (deny, "evil *");
  for (guint k = 0; deny_pool[k] != NULL; k++)
    if (g_rand_int_range (rand, 0, 100) < 45)
      add_unique (deny, deny_pool[k]);
}
