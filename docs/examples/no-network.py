#!/usr/bin/env python3
"""Policy by script: reject every command that reaches the network, with
feedback the model can act on; ask the person about everything else.

    no-network.py [warden-cli run options] TASK
    no-network.py --resume SESSION_ID

The test is deliberately simple (a program name, a subcommand, or "://" in a
part of the command), an example of a rule a team could write, not a sandbox:
to keep a session offline for real, run it with --network none (the default).
"""

import os
import shlex
import sys

import approve

# Programs that only exist to reach another host.
NETWORK_PROGRAMS = {"curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat",
                    "telnet", "ftp", "ping", "dig", "nslookup", "host"}
# Programs whose subcommand decides.
NETWORK_SUBCOMMANDS = {
    "git": {"clone", "fetch", "pull", "push", "ls-remote", "submodule"},
    "npm": {"install", "i", "add", "ci", "update", "publish"},
    "pnpm": {"install", "i", "add", "update", "publish"},
    "yarn": {"install", "add", "upgrade", "publish"},
    "pip": {"install", "download"},
    "pip3": {"install", "download"},
    "apt": {"install", "update", "upgrade"},
    "apt-get": {"install", "update", "upgrade"},
    "docker": {"pull", "push", "login"},
    "cargo": {"install", "fetch", "update", "publish"},
    "go": {"get", "install"},
}


def network_part(event):
    """The first part of the command that reaches the network, or None."""
    for part in event["parts"]:
        text = part["text"]
        try:
            words = shlex.split(text)
        except ValueError:
            words = text.split()
        if not words:
            continue
        name = os.path.basename(words[0])
        if name in NETWORK_PROGRAMS or "://" in text:
            return part
        if name in NETWORK_SUBCOMMANDS and len(words) > 1 \
                and words[1] in NETWORK_SUBCOMMANDS[name]:
            return part
    return None


def decide(event):
    part = network_part(event) if event["kind"] == "command" else None
    if part is None:
        return approve.decide_by_person(event)
    print(f"\n! rejected without asking (network): {event['shown']}")
    return {"approved": False,
            "feedback": f"This project's policy keeps agents offline: “{part['text']}” "
                        "reaches the network and was not run. Work with what is in the "
                        "workspace (vendored packages, local files), or tell the user what "
                        "you would download and why."}


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(approve.run(sys.argv[1:], decide=decide))
