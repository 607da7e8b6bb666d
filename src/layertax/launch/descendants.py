"""What the launched programs left running. The launch timer is a child subreaper: after each
launch it ends the launch's process group and every orphan that was handed to it (a daemon
that called setsid), and counts them (native/launch.c). A result says so, because a program
that forks a daemon is measured up to its own exit, not its daemon's work."""
from __future__ import annotations

from layertax.units import count


def notes(result: dict) -> list[str]:
    """The note for a launch-timer result (empty when no launch left anything running)."""
    found = (result.get("launch") or {}).get("descendants") or {}
    ended, launches = found.get("ended") or 0, found.get("launches") or 0
    if not ended:
        return []
    return [f"{count(ended)} process(es) that {count(launches)} launch(es) left running (a daemon, a child not "
            "waited for) were ended after each launch was timed: the figures are the program's own start-up, not "
            "its leftovers' work"]
