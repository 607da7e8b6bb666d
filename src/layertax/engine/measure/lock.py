"""Is another layertax measuring on this machine? Two at once share the CPUs and the caches,
and each one's figures then carry the other's load.

Every measuring layertax holds an exclusive flock(2) on its own file in one directory that
only its user can write: $XDG_RUNTIME_DIR/layertax-measuring when the runtime directory is
the user's own (0700, as systemd makes it), else measuring/ under the data directory. Not
the shared temporary directory: there another user could plant the directory, or a file in
it, as a symbolic link to a file of ours, and the lock would chmod or truncate its target.
The directory is made 0700 and refused (one line, exit 2) when it is a link or someone
else's; every file in it is opened relative to the directory, O_NOFOLLOW and O_EXCL, so
nothing inside is ever followed either. So the check sees the user's own runs (a CI job's
two steps, two terminals), not other users'.

A file whose lock can be taken belongs to a process that is gone (flock locks die with
their process) and is removed. Each process looks when it starts and again whenever asked
(after every experiment and at the end), so an overlap is seen by at least one of the two,
whichever started first."""
from __future__ import annotations

import contextlib
import fcntl
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from layertax import files, paths
from layertax.errors import UsageError

ALLOW_FLAG = "--allow-concurrent"


def _runtime_dir() -> Path | None:
    """$XDG_RUNTIME_DIR when it is what the XDG spec promises: an absolute path to a directory
    of this user's that no one else can enter."""
    value = os.environ.get("XDG_RUNTIME_DIR", "")
    if not os.path.isabs(value):
        return None
    try:
        st = os.lstat(value)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or stat.S_IMODE(st.st_mode) & 0o077:
        return None
    return Path(value)


def lock_dir() -> Path:
    runtime = _runtime_dir()
    return runtime / "layertax-measuring" if runtime else paths.data_dir() / "measuring"


_NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC


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


def _alive(directory_fd: int, name: str) -> bool:
    """Whether the process that made the file still holds its lock; a dead one's file is removed.
    Opened relative to the directory and without following a link."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | _NOFOLLOW, dir_fd=directory_fd)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(name, dir_fd=directory_fd)
    return False


@dataclass
class Measuring:
    """This process's claim: `others` collects every other measuring layertax seen while it held it."""

    allowed: bool = False        # go on when another is measuring (--allow-concurrent)
    directory: Path = field(default_factory=lock_dir)
    fd: int | None = None
    directory_fd: int | None = None
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
                os.unlink(self.path.name, dir_fd=self.directory_fd)
            os.close(self.fd)
            self.fd = None
        if self.directory_fd is not None:
            os.close(self.directory_fd)
            self.directory_fd = None
        return False

    def _claim(self) -> None:
        """Takes this process's lock file. The directory is checked (files.own_directory: made
        0700, refused when a link or not the user's); every name in it is opened relative to
        it, never through a link."""
        try:
            files.own_directory(self.directory, "the measuring lock's directory", no_link=True)
            self.directory_fd = os.open(self.directory, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW)
        except files.UnsafePath:
            raise
        except (UsageError, OSError):
            # A directory that cannot be made (a read-only home, with --no-save) must not stop a
            # run: the check is a courtesy. One that someone else could have planted stops it.
            return
        st = os.fstat(self.directory_fd)
        if st.st_uid != os.geteuid() or files.others_can_write(st):   # swapped since it was checked
            raise UsageError(f"the measuring lock's directory {self.directory} changed while layertax looked at it")
        # Locked under a hidden name, then renamed: no one ever sees the file unlocked and removes it.
        hidden = f".{os.getpid()}.new"
        with contextlib.suppress(FileNotFoundError):      # a file of an earlier process with our pid
            os.unlink(hidden, dir_fd=self.directory_fd)
        self.fd = os.open(hidden, os.O_CREAT | os.O_EXCL | os.O_RDWR | _NOFOLLOW, 0o600, dir_fd=self.directory_fd)
        fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        self.path = self.directory / f"{os.getpid()}.lock"
        os.rename(hidden, self.path.name, src_dir_fd=self.directory_fd, dst_dir_fd=self.directory_fd)

    def look(self) -> dict[int, str]:
        """The other measuring layertax processes now ({pid: command}); remembered in others."""
        now = {}
        if self.directory_fd is None:
            return now
        try:
            names = os.listdir(self.directory_fd)
        except OSError:
            names = []
        for name in names:
            stem, _, suffix = name.partition(".")
            if suffix != "lock" or not stem.isdigit() or (self.path is not None and name == self.path.name):
                continue
            if _alive(self.directory_fd, name):
                now[int(stem)] = _command_of(int(stem))
        self.others.update(now)
        return now

    def record(self) -> dict:
        """What goes into the result: whether another layertax measured during this one."""
        self.look()
        return {"allowed": self.allowed,
                "others": [{"pid": pid, "command": command} for pid, command in sorted(self.others.items())]}

