"""Is another layertax measuring on this machine? Two at once share the CPUs and the caches,
and each one's figures then carry the other's load.

Every measuring layertax holds an exclusive flock(2) on its own file in one directory under
the temporary directory (TMPDIR, /tmp by default). A file whose lock can be taken belongs to
a process that is gone (flock locks die with their process) and is removed. Each process looks
when it starts and again whenever asked (after every experiment and at the end), so an
overlap is seen by at least one of the two, whichever started first."""
from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from layertax.errors import UsageError

ALLOW_FLAG = "--allow-concurrent"


def lock_dir() -> Path:
    return Path(tempfile.gettempdir()) / "layertax-measuring"


def _command_of(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "?"
    words = [w.decode(errors="replace") for w in raw.split(b"\0") if w]
    # python -m layertax run ... reads better as layertax run ...
    if len(words) > 2 and words[1:3] == ["-m", "layertax"]:
        words = ["layertax", *words[3:]]
    elif words and words[0].endswith("/layertax"):
        words[0] = "layertax"
    elif len(words) > 1 and words[1].endswith("/layertax"):
        words = ["layertax", *words[2:]]
    return " ".join(words)[:120]


def _alive(path: Path) -> bool:
    """Whether the process that made path still holds its lock; a dead one's file is removed."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    with contextlib.suppress(OSError):
        path.unlink()
    return False


@dataclass
class Measuring:
    """This process's claim: `others` collects every other measuring layertax seen while it held it."""

    allowed: bool = False        # go on when another is measuring (--allow-concurrent)
    directory: Path = field(default_factory=lock_dir)
    fd: int | None = None
    path: Path | None = None
    others: dict[int, str] = field(default_factory=dict)

    def __enter__(self) -> Measuring:
        """Claims; stops (exit 2) before anything is measured when another layertax is
        measuring, unless allowed."""
        self._claim()
        if self.look() and not self.allowed:
            self.__exit__()
            pid, command = next(iter(self.others.items()))
            more = f" and {len(self.others) - 1} more" if len(self.others) > 1 else ""
            raise UsageError(f"another layertax is measuring on this machine (pid {pid}: {command}){more}; two at "
                             f"once disturb each other's figures: wait for it, or pass {ALLOW_FLAG} (the result "
                             "records it)")
        return self

    def __exit__(self, *exc) -> bool:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                self.path.unlink()
            os.close(self.fd)
            self.fd = None
            with contextlib.suppress(OSError):     # the last one out leaves no directory behind
                self.directory.rmdir()
        return False

    def _claim(self) -> None:
        for _ in range(3):   # the directory may vanish between mkdir and open (the last one out removes it)
            try:
                self._try_claim()
                return
            except FileNotFoundError:
                continue
            except OSError:
                break
        # The check is a courtesy: a temporary directory that cannot hold it must not stop a run.
        if self.fd is not None:
            os.close(self.fd)
        self.fd = None

    def _try_claim(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        self.directory.mkdir(exist_ok=True)
        # Sticky and open to all, like /tmp: every user's layertax can leave its file here.
        if self.directory.stat().st_uid == os.getuid():
            os.chmod(self.directory, 0o1777)
        # Locked under a hidden name, then renamed: no one ever sees the file unlocked and removes it.
        hidden = self.directory / f".{os.getpid()}.new"
        self.fd = os.open(hidden, os.O_CREAT | os.O_RDWR | os.O_TRUNC, 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        self.path = self.directory / f"{os.getpid()}.lock"
        os.rename(hidden, self.path)

    def look(self) -> dict[int, str]:
        """The other measuring layertax processes now ({pid: command}); remembered in others."""
        now = {}
        try:
            entries = list(self.directory.glob("*.lock"))
        except OSError:
            entries = []
        for path in entries:
            if path == self.path or not path.stem.isdigit():
                continue
            if _alive(path):
                now[int(path.stem)] = _command_of(int(path.stem))
        self.others.update(now)
        return now

    def record(self) -> dict:
        """What goes into the result: whether another layertax measured during this one."""
        self.look()
        return {"allowed": self.allowed,
                "others": [{"pid": pid, "command": command} for pid, command in sorted(self.others.items())]}

