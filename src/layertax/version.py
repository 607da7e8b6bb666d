"""layertax's version, with the git description when run from a checkout."""
from __future__ import annotations

import subprocess
from functools import cache
from pathlib import Path

from layertax import __version__


@cache
def git_describe() -> str | None:
    try:
        p = subprocess.run(["git", "-C", str(Path(__file__).parent), "describe", "--always", "--dirty", "--tags"],
                           capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=5, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout.strip() or None if p.returncode == 0 else None


def full_version() -> str:
    described = git_describe()
    return f"{__version__} ({described})" if described else __version__
