#!/usr/bin/env python3
"""A decision program: a team's policy for unattended approvals.

    warden-cli run --approve-with docs/examples/decide.py [--on-question reject] TASK

Warden runs it once for each approval, as you and outside the sandbox, with the
approval_required event (docs/events.md) on standard input; it prints one
decision on standard output. This one approves the test runners, rejects a
push and anything run as root with feedback the model can act on, and hands
everything else to the person ({"ask": true}), or with --on-question reject to
nobody. Python's standard library only.
"""

import json
import shlex
import sys

# Approved when every part that asks starts with one of these.
TEST_RUNNERS = [["pytest"], ["python3", "-m", "pytest"], ["npm", "test"], ["npm", "run", "test"]]
# Rejected when any part that asks starts with one of these: why, for the model.
REJECTED = [(["git", "push"], "Pushing is for the team to do after review; commit, and stop."),
            (["sudo"], "Nothing runs as root here; do it without sudo, or say what you need.")]


def words(text):
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def starts_with(text, prefix):
    return words(text)[:len(prefix)] == prefix


def decide(event):
    # A file outside the workspace, a host: the person's call.
    if event["kind"] != "command":
        return {"ask": True}
    asking = [part for part in event["parts"] if part["verdict"] == "ask"]
    for part in asking:
        for prefix, why in REJECTED:
            if starts_with(part["text"], prefix):
                return {"approved": False, "feedback": why}
    if asking and all(part["origin"] == "top-level" and
                      any(starts_with(part["text"], runner) for runner in TEST_RUNNERS)
                      for part in asking):
        return {"approved": True}
    return {"ask": True}


def main():
    event = json.loads(sys.stdin.readline())
    decision = decide(event)
    if "ask" not in decision:
        # The answer --json takes: it names what it answers.
        decision = {"approval": event["id"], **decision}
    print(json.dumps(decision))


if __name__ == "__main__":
    main()
