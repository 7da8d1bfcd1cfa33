#!/usr/bin/env python3
"""Drive a Warden session from a script: you approve or reject each command.

    approve.py [warden-cli run options] TASK
    approve.py --resume SESSION [TASK]
    approve.py --chat [warden-cli run options] [TASK]

It runs `warden-cli run --json` (docs/events.md), prints what the agent says and
does, and for every command outside your profile shows it, asks y/n (and feedback
for the model when you say no) and sends the answer. At the end of your input
(Ctrl+D) the question stays pending: resume the session later, here or in the
window. With --chat it runs `warden-cli chat --json` instead: after each turn it
asks for your next message ("> "), until the end of your input. Python's
standard library only. WARDEN_CLI names another warden-cli.
"""

import json
import os
import subprocess
import sys
import unicodedata

WARDEN_CLI = os.environ.get("WARDEN_CLI", "warden-cli")


def printable(text):
    """Text from the model or a command, safe to print on a terminal: every
    control, bidi or invisible character escaped, lines and tabs kept."""
    out = []
    for c in text:
        if c in "\n\t" or unicodedata.category(c) not in ("Cc", "Cf", "Zl", "Zp"):
            out.append(c)
        elif ord(c) < 0x100:
            out.append("\\x%02x" % ord(c))
        else:
            out.append("\\u%04x" % ord(c))
    return "".join(out)


def read_answer(prompt):
    """A line from the person, or None at the end of their input."""
    print(prompt, end="", flush=True)
    line = sys.stdin.readline()
    if not line:
        print()
        return None
    return line.strip()


def decide_by_person(event):
    """Shows an approval_required event and asks; returns the answer to send
    (without its id), or None to leave the question pending."""
    # Worded as the window and warden-cli word it: heading, subject, origins.
    print(f"\n! {printable(event['heading'])}: {event['shown']}")
    for origin in event["origins"]:
        print(f"  {printable(origin)}")
    if event.get("cwd"):
        print(f"  in {printable(event['cwd'])}")
    for setting in event["env"]:
        print(f"  with {printable(setting)}")
    for part in event["parts"]:
        if part["verdict"] != "allow":
            print(f"  * {part['shown']}: {printable(part['reason'] or '')}")
    if event.get("reason") and all(p["reason"] != event["reason"] for p in event["parts"]):
        print(f"  because {printable(event['reason'])}")
    choices = "[y] approve, [a] always allow, [n] reject" if event["always_allow"] \
        else "[y] approve, [n] reject"
    while True:
        answer = read_answer(choices + "> ")
        if answer is None:
            return None
        if answer in ("y", "yes"):
            return {"approved": True}
        if answer in ("a", "always") and event["always_allow"]:
            return {"approved": True, "allow_always": True}
        if answer in ("n", "no"):
            feedback = read_answer("feedback for the model> ")
            return {"approved": False, "feedback": feedback or ""}


def answer_question(event):
    print(f"\n? {event['shown']}")
    choices = event["choices"]
    for number, choice in enumerate(choices, 1):
        print(f"  {number}) {printable(choice)}")
    text = read_answer("answer (a number picks)> " if choices else "answer> ")
    if text is not None and text.isdigit() and 1 <= int(text) <= len(choices):
        text = choices[int(text) - 1]
    return None if text is None else {"text": text}


def run(args, decide=decide_by_person, command="run"):
    """Runs warden-cli COMMAND --json ARGS to its end; returns its exit status."""
    proc = subprocess.Popen([WARDEN_CLI, command, "--json", *args],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            encoding="utf-8", bufsize=1)
    in_text = False
    for line in proc.stdout:
        event = json.loads(line)
        kind = event["type"]
        if kind != "text" and in_text:
            print()
            in_text = False
        if kind == "session":
            print(f"[{event['sandbox']} sandbox, profile {event['profile']}]")
        elif kind == "text":
            print(printable(event["text"]), end="", flush=True)
            in_text = True
        elif kind == "tool_call":
            command = event["input"].get("command") if event["input"] else None
            print(f"[{event['tool']}] {printable(command or json.dumps(event['input']))}"
                  f" ({event['decision']})")
        elif kind == "output":
            print(printable(event["chunk"]), end="", flush=True)
        elif kind == "tool_result" and event["exit_code"] is not None:
            print(f"[exit {event['exit_code']}]")
        elif kind in ("approval_required", "ask_user"):
            answer = decide(event) if kind == "approval_required" else answer_question(event)
            if answer is None:
                proc.stdin.close()  # nothing decided: it stays pending
                continue
            key = "approval" if kind == "approval_required" else "answer"
            proc.stdin.write(json.dumps({key: event["id"], **answer}) + "\n")
            proc.stdin.flush()
        elif kind == "idle":
            # chat: the turn is over; the next message, or the end of input.
            message = None
            while not message:
                message = read_answer("> ")
                if message is None:
                    break
            if message is None:
                proc.stdin.close()
                continue
            proc.stdin.write(json.dumps({"message": message}) + "\n")
            proc.stdin.flush()
        elif kind == "error":
            print(f"warden: {printable(event['message'])} {printable(event['hint'] or '')}",
                  file=sys.stderr)
        elif kind == "finished" and event["reason"] == "pending":
            print(f"left pending; continue with: {sys.argv[0]} --resume {event['session']}",
                  file=sys.stderr)
    return proc.wait()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == "--chat":
        sys.exit(run(sys.argv[2:], command="chat"))
    sys.exit(run(sys.argv[1:]))
