"""Private temporary directories, and the removal of those a killed run left behind.

Every run works in directories of its own under the temp dir and removes them when it ends,
on Ctrl-C and SIGTERM too. Only SIGKILL (or a crash of the machine) leaves one behind. So each
directory's name carries the process that made it, `layertax-<what>-p<pid>-<random>`, and
every later command removes the ones whose process is gone.
"""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

# Memory-backed filesystems a private directory may be made in (loader/loaderview.py puts
# glibc's debug output there); swept as well as the temp dir, since what is left there holds memory.
MEMORY_DIRS = ("/dev/shm",)
_NAME = re.compile(r"^layertax-.+-p(?P<pid>[0-9]+)-[a-z0-9_]+$")
# A directory is removed only when untouched this long as well: a process of another PID
# namespace sharing this temp dir could have the same number as a process gone here.
ABANDONED_AFTER_S = 600


def _prefix(what: str) -> str:
    return f"layertax-{what}-p{os.getpid()}-"


def make_private_dir(what: str, parent: str | Path | None = None) -> Path:
    """A new directory only this user can enter; the caller removes it."""
    return Path(tempfile.mkdtemp(prefix=_prefix(what), dir=parent))


@contextlib.contextmanager
def private_dir(what: str, parent: str | Path | None = None) -> Iterator[Path]:
    """A new directory only this user can enter, removed with all it holds on the way out."""
    # A file a killed tool was still writing must not turn the interruption into an error: what
    # cannot be removed now is swept by the next command (sweep_abandoned).
    with tempfile.TemporaryDirectory(prefix=_prefix(what), dir=parent, ignore_cleanup_errors=True) as name:
        yield Path(name)


def _process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:          # someone else's process: alive
        return False
    return False


def sweep_abandoned(roots: tuple[str | Path | None, ...] = (None, *MEMORY_DIRS), now: float | None = None) -> list[Path]:
    """Removes this user's layertax directories whose process is gone and that nothing has
    touched for ABANDONED_AFTER_S, in each root (None: the temp dir); returns what it removed.
    A directory of a live process, of another user, or not named by private_dir is left alone."""
    now = time.time() if now is None else now
    removed = []
    for root in roots:
        base = Path(root if root is not None else tempfile.gettempdir())
        try:
            entries = list(os.scandir(base))
        except OSError:
            continue
        for entry in entries:
            found = _NAME.match(entry.name)
            if not found:
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if (not entry.is_dir(follow_symlinks=False) or info.st_uid != os.getuid()
                    or now - info.st_mtime < ABANDONED_AFTER_S or not _process_gone(int(found["pid"]))):
                continue
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(Path(entry.path))
    return removed
