"""The one way layertax writes a file, and the one way it reads a file it is handed.

layertax runs as root in CI and on shared build machines, so a path it is given, or one it
makes under a directory other users can write (/tmp), may hold another user's trap: a
symbolic link to a file of ours, a FIFO that never opens, /dev/zero. The rules, kept here
and nowhere else:

- A symbolic link is followed only when the directory it sits in is writable by no one but
  its owner, or when the link is the user's own: a link someone else planted in /tmp could
  point anywhere. Every component of a path is checked, not only the last.
- A regular file is written whole or not at all: into a temporary sibling (O_EXCL), synced,
  then renamed over the name. A reader sees the old file or the new one; an interrupted or
  failed write leaves no empty or half-written file under the name.
- A character device or a FIFO (/dev/null, a named pipe, /dev/stdout) and `-` (standard
  output) are written as streams, never replaced; a FIFO with no reader is refused rather
  than waited on. Anything else that exists (a directory, a socket) is refused.
- A file is read only when it is a regular file (or `-`, standard input), and only up to a
  limit (LAYERTAX_MAX_INPUT, default 64 MiB): /dev/zero or a FIFO with no writer is
  refused in one line, never read until memory runs out or forever.
- The directories layertax keeps its own things in (data, cache, the measuring lock) must
  be the user's and writable by no one else, and are made 0700 when missing.

Ground floor: every module that writes or reads a user's file uses this one.
"""
from __future__ import annotations

import contextlib
import ctypes
import errno
import io
import json
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from layertax.errors import UsageError
from layertax.text import MAX_DEPTH, printable

# A saved run or an export is a few hundred KiB (a long launch run with every raw sample, or
# the HTML report: a few MiB); less free space than this is refused before measuring rather
# than failing after it.
MIN_FREE_BYTES = 16 << 20

MAX_INPUT_ENV = "LAYERTAX_MAX_INPUT"
DEFAULT_MAX_INPUT = 64 << 20
_MAX_LINKS = 40                    # as the kernel's ELOOP limit
_MAGIC_LINK_DIR = re.compile(r"^/proc/[^/]+(/task/[0-9]+)?/fd$")   # /proc/self/fd/1 -> "pipe:[1234]"


class UnsafePath(UsageError):
    """A path layertax will not write or read through (a foreign link, a foreign directory)."""


def _shown(path: object) -> str:
    return printable(os.fspath(path) if isinstance(path, os.PathLike) else path)


def others_can_write(st: os.stat_result) -> bool:
    """Whether someone other than the owner (and root) may create or replace entries in a
    directory: world-writable, or group-writable by a group that is not the owner's own."""
    if st.st_mode & stat.S_IWOTH:
        return True
    return bool(st.st_mode & stat.S_IWGRP) and not (st.st_uid == os.geteuid() and st.st_gid == os.getegid())


def _check_link(link: str, link_st: os.stat_result, directory: str) -> None:
    if link_st.st_uid == os.geteuid():
        return
    try:
        dir_st = os.stat(directory)
    except OSError:
        return
    if others_can_write(dir_st):
        raise UnsafePath(f"{_shown(link)} is a symbolic link in {_shown(directory)}, a directory others can "
                         "write, and it is not yours: layertax does not follow it (name the file it points to)")


def resolve(path: str | os.PathLike) -> str | None:
    """The real path of path, following its symbolic links one by one as the kernel would and
    refusing any that another user could have planted (see above). Components that do not
    exist yet are kept as they are. None for a path through a process's descriptor link
    (/proc/self/fd/N, /dev/stdout): usable as a stream only."""
    raw = os.fspath(path)
    if not os.path.isabs(raw):
        raw = os.path.join(os.getcwd(), raw)
    todo = [part for part in raw.split("/") if part]
    done, links = "/", 0
    while todo:
        name = todo.pop(0)
        if name == ".":
            continue
        if name == "..":
            done = os.path.dirname(done)   # done is already real: its parent is the kernel's ".."
            continue
        candidate = os.path.join(done, name)
        try:
            st = os.lstat(candidate)
        except FileNotFoundError:
            return os.path.join(candidate, *todo)
        except OSError as e:
            raise UsageError(f"cannot use {_shown(path)}: {e.strerror or e}") from None
        if not stat.S_ISLNK(st.st_mode):
            done = candidate
            continue
        links += 1
        if links > _MAX_LINKS:
            raise UsageError(f"cannot use {_shown(path)}: too many levels of symbolic links")
        _check_link(candidate, st, done)
        if _MAGIC_LINK_DIR.match(done):
            return None
        target = os.readlink(candidate)
        if target.startswith("/"):
            done = "/"
        todo = [part for part in target.split("/") if part] + todo
    return done


def _is_stdio(path: str | os.PathLike) -> bool:
    return os.fspath(path) == "-"


def stream_target(path: str | os.PathLike) -> bool:
    """Whether path names a stream to write into rather than a file to replace: `-` (standard
    output), or an existing character device or FIFO, directly or through a link layertax may
    follow. Anything else that exists and is not a regular file is refused."""
    if _is_stdio(path):
        return True
    resolve(path)                                    # a foreign link anywhere: refused here
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    except OSError as e:
        raise UsageError(f"cannot write {_shown(path)}: {e.strerror or e}") from None
    if stat.S_ISREG(st.st_mode):
        return False
    if stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
        return True
    if stat.S_ISDIR(st.st_mode):
        raise UsageError(f"cannot write {_shown(path)}: it is a directory")
    raise UsageError(f"cannot write {_shown(path)}: it is not a regular file (only a file, a device or a FIFO, "
                     "or - for standard output)")


def _open_stream(path: str | os.PathLike) -> int:
    """A write descriptor on a device or FIFO, checked after opening (it may have been swapped
    for a regular file since it was looked at: that is never written into unreplaced)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as e:
        if e.errno == errno.ENXIO:
            raise UsageError(f"cannot write {_shown(path)}: it is a FIFO that no one is reading") from None
        raise
    st = os.fstat(fd)
    if not (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        os.close(fd)
        raise UsageError(f"cannot write {_shown(path)}: it changed while layertax looked at it")
    os.set_blocking(fd, True)
    return fd


def _sync_directory(directory: str) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _regular_target(path: str | os.PathLike) -> str:
    real = resolve(path)
    if real is None:
        raise UsageError(f"cannot write {_shown(path)}: it is a descriptor link, not a file")
    with contextlib.suppress(FileNotFoundError):
        st = os.lstat(real)
        if stat.S_ISDIR(st.st_mode):
            raise UsageError(f"cannot write {_shown(path)}: it is a directory")
        if not stat.S_ISREG(st.st_mode):
            raise UsageError(f"cannot write {_shown(path)}: it is not a regular file")
    return real


def temporary_prefix(name: str) -> str:
    """The name a file is written under before it is renamed into place: hidden, and carrying
    the writer's process id, so that one a SIGKILL left behind can be told and removed."""
    return f".{name}.p{os.getpid()}."


TEMPORARY_SUFFIX = ".tmp"
_TEMPORARY = re.compile(r"^\..+\.p(?P<pid>[0-9]+)\.[A-Za-z0-9_]+\.tmp$")


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike, exclusive: bool = False, mode: int = 0o644) -> Iterator:
    """A binary file to write whole; on success it replaces path (exclusive: takes a name that
    does not exist yet, else FileExistsError), on any failure nothing is left. Devices, FIFOs
    and `-` are written as streams."""
    if stream_target(path):
        if _is_stdio(path):
            yield sys.stdout.buffer
            sys.stdout.flush()
            return
        fd = _open_stream(path)
        with os.fdopen(fd, "wb") as stream:
            yield stream
        return
    real = _regular_target(path)
    directory, name = os.path.split(real)
    fd, tmp = tempfile.mkstemp(prefix=temporary_prefix(name), suffix=TEMPORARY_SUFFIX, dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode & ~_umask())
        if exclusive:
            os.link(tmp, real)                 # fails if the name exists: never replaces
            os.unlink(tmp)
        else:
            os.replace(tmp, real)
        _sync_directory(directory)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_text(path: str | os.PathLike, mode: int = 0o644) -> Iterator:
    """atomic_file as a UTF-8 text stream, for writers that write a file piece by piece."""
    with atomic_file(path, mode=mode) as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8", newline="")
        yield text
        text.flush()
        text.detach()


def write_control(path: str, text: str) -> None:
    """Writes to a kernel's control file (/proc/sys/..., /sys/...): an existing file, opened
    without creating, truncating or following a link; OSError if it cannot."""
    if not (path.startswith("/proc/sys/") or path.startswith("/sys/")):
        raise ValueError(f"{path} is not a kernel control file")
    fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def lock_file(path: str | os.PathLike) -> int:
    """A descriptor of an empty file to flock(2), made if missing (0600, this user's), never
    written, truncated or followed through a link; OSError if it cannot be, UsageError where
    the name is not a regular file. The caller closes it, which lets go of its lock."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o600)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UsageError(f"{_shown(path)} is not a regular file: layertax locks only a file of its own")
    return fd


def write_bytes(data: bytes, path: str | os.PathLike, exclusive: bool = False, mode: int = 0o644) -> Path:
    """Writes data to path by the rules above; returns path."""
    with atomic_file(path, exclusive, mode) as f:
        f.write(data)
    return Path(path)


def write_text(text: str, path: str | os.PathLike, exclusive: bool = False, mode: int = 0o644) -> Path:
    return write_bytes(text.encode("utf-8"), path, exclusive, mode)


def copy_file(source: str | os.PathLike, target: str | os.PathLike, mode: int | None = None) -> Path:
    """A copy of a file (of layertax's own, or one it checked) written by the rules above."""
    with open(source, "rb") as src, atomic_file(target, mode=mode if mode is not None else
                                                 stat.S_IMODE(os.stat(source).st_mode)) as dst:
        shutil.copyfileobj(src, dst)
    return Path(target)


def copy_tree(source: str | os.PathLike, target: str | os.PathLike) -> Path:
    """A copy of a directory tree of layertax's own into target, which must not exist; links
    inside are copied as links, never followed."""
    shutil.copytree(source, target, symlinks=True, copy_function=lambda s, d: copy_file(s, d))
    return Path(target)


def remove_abandoned_temporaries(directory: str | os.PathLike, older_than_s: float = 600.0) -> None:
    """Removes the temporary files a writer killed outright (SIGKILL) left in directory: its
    own process gone, untouched for a while. Another's process or a fresh file stays."""
    import time

    with contextlib.suppress(OSError):
        for entry in os.scandir(directory):
            found = _TEMPORARY.match(entry.name)
            if not found or not entry.is_file(follow_symlinks=False):
                continue
            with contextlib.suppress(OSError):
                info = entry.stat(follow_symlinks=False)
                if info.st_uid != os.geteuid() or time.time() - info.st_mtime < older_than_s:
                    continue
                try:
                    os.kill(int(found["pid"]), 0)
                    continue                   # alive
                except ProcessLookupError:
                    pass
                except PermissionError:
                    continue
                os.unlink(entry.path)


_RENAME_NOREPLACE = 1


def rename_new(source: str | os.PathLike, target: str | os.PathLike) -> None:
    """Renames source to target only if target does not exist (renameat2 RENAME_NOREPLACE), so
    a directory made meanwhile under that name is never replaced; FileExistsError if it is."""
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:                          # a libc without it: check, then rename
        if os.path.lexists(target):
            raise FileExistsError(errno.EEXIST, "exists", os.fspath(target))
        os.rename(source, target)
        return
    at_fdcwd = -100
    if renameat2(at_fdcwd, os.fsencode(source), at_fdcwd, os.fsencode(target), _RENAME_NOREPLACE) != 0:
        code = ctypes.get_errno()
        if code in (errno.ENOSYS, errno.EINVAL):   # a filesystem without the flag
            if os.path.lexists(target):
                raise FileExistsError(errno.EEXIST, "exists", os.fspath(target))
            os.rename(source, target)
            return
        raise OSError(code, os.strerror(code), os.fspath(target))


@contextlib.contextmanager
def new_directory(out: str | os.PathLike) -> Iterator[Path]:
    """A directory to fill, made whole at out or not at all: filled in a private sibling and
    renamed to out at the end (never over anything that appeared there meanwhile)."""
    real = _regular_target(out)
    parent, name = os.path.split(real)
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=parent))
    except OSError as e:
        raise UsageError(f"cannot create a directory in {_shown(parent)}: {e.strerror or e}") from None
    try:
        yield staging
        os.chmod(staging, 0o755 & ~_umask())
        rename_new(staging, real)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def check_writable(path: str | os.PathLike, what: str) -> Path:
    """Fails before any work starts if path cannot be written, leaving nothing behind.

    Probes for real (os.access says yes to root even on a read-only filesystem): a temporary
    file is made beside the target and removed, and the disk must have room for a result."""
    if not os.fspath(path):
        raise UsageError(f"{what}: an empty path (give a file, or - for standard output)")
    p = Path(path)
    if stream_target(p):   # a device, a FIFO or stdout: written as a stream, never opened here
        return p            # (opening a FIFO with no reader would block)
    real = Path(_regular_target(p))
    parent = real.parent
    if not parent.is_dir():
        raise UsageError(f"cannot write {what} {_shown(p)}: directory {_shown(p.parent)} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(dir=parent, prefix=temporary_prefix(real.name), suffix=".probe")
        os.close(fd)
        os.unlink(tmp)
        free = shutil.disk_usage(parent).free
    except OSError as e:
        raise UsageError(f"cannot write {what} {_shown(p)}: {e.strerror or e}") from None
    if free < MIN_FREE_BYTES:
        raise UsageError(f"cannot write {what} {_shown(p)}: only {free >> 20} MiB free in {_shown(parent)}, and it "
                         f"may need {MIN_FREE_BYTES >> 20} MiB")
    return p


def max_input() -> int:
    """The largest file layertax reads (bytes): LAYERTAX_MAX_INPUT (64M, 1G, a number of bytes)."""
    value = os.environ.get(MAX_INPUT_ENV, "").strip()
    if not value:
        return DEFAULT_MAX_INPUT
    found = re.fullmatch(r"([0-9]+)\s*([KMG]?)i?B?", value, re.IGNORECASE)
    if not found:
        raise UsageError(f"{MAX_INPUT_ENV}={_shown(value)}: give a size such as 64M or 1G")
    return int(found[1]) << {"": 0, "K": 10, "M": 20, "G": 30}[found[2].upper()]


def _too_big(path: object, limit: int) -> UsageError:
    return UsageError(f"{_shown(path)} is larger than {limit >> 20} MiB, the most layertax reads (set "
                      f"{MAX_INPUT_ENV}, e.g. {MAX_INPUT_ENV}=1G, to read it)")


def read_bytes(path: str | os.PathLike, what: str = "file", limit: int | None = None) -> bytes:
    """A file handed to layertax, read whole: a regular file (or `-`, standard input), at most
    limit bytes (max_input() by default). Every refusal is a UsageError naming the file."""
    limit = max_input() if limit is None else limit
    if _is_stdio(path):
        data = sys.stdin.buffer.read(limit + 1)
        if len(data) > limit:
            raise _too_big("standard input", limit)
        return data
    resolve(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise UsageError(f"no such file: {_shown(path)}") from None
    except IsADirectoryError:
        raise UsageError(f"{_shown(path)} is a directory, not a {what}") from None
    except OSError as e:
        raise UsageError(f"cannot read {_shown(path)}: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise UsageError(f"{_shown(path)} is a directory, not a {what}")
        if not stat.S_ISREG(st.st_mode):
            raise UsageError(f"{_shown(path)} is not a regular file (a device, a FIFO or a socket): give a {what}")
        if st.st_size > limit:
            raise _too_big(path, limit)
        os.set_blocking(fd, True)
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:                   # a file that grew while it was read
                raise _too_big(path, limit)
        return b"".join(chunks)
    except OSError as e:
        raise UsageError(f"cannot read {_shown(path)}: {e.strerror or e}") from None
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike, what: str = "file", limit: int | None = None) -> str:
    data = read_bytes(path, what, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UsageError(f"{_shown(path)} is not UTF-8 text (byte {e.start})") from None


def own_directory(path: str | os.PathLike, what: str, no_link: bool = False) -> Path:
    """A directory layertax keeps its own things in (the data directory, the cache, the
    measuring lock): made 0700 (with any missing parents) if missing; refused in one line if
    it is a link another user could have planted, a file, someone else's, or writable by others.
    no_link: refused if it is a symbolic link at all (the measuring lock's)."""
    if no_link and os.path.islink(path):
        raise UnsafePath(f"{what} {_shown(path)} is a symbolic link: layertax does not follow it (remove it)")
    real = resolve(path)
    if real is None:
        raise UnsafePath(f"{what} {_shown(path)} is a descriptor link, not a directory")
    try:
        os.makedirs(real, mode=0o700, exist_ok=True)
    except FileExistsError:
        raise UnsafePath(f"{what} {_shown(path)} is not a directory") from None
    except OSError as e:
        raise UsageError(f"cannot make {what} {_shown(path)}: {e.strerror or e}") from None
    st = os.lstat(real)
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafePath(f"{what} {_shown(path)} is not a directory")
    if st.st_uid != os.geteuid():
        raise UnsafePath(f"{what} {_shown(path)} belongs to another user (uid {st.st_uid}): layertax does not "
                         "keep its files in it")
    if others_can_write(st):
        raise UnsafePath(f"{what} {_shown(path)} is writable by others (mode {stat.S_IMODE(st.st_mode):o}): "
                         f"chmod go-w it, or point layertax elsewhere")
    return Path(real)


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a number layertax reads")


def _finite_float(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{text} is too large for a number")
    return value


def _depth(value) -> int:
    """How deeply value nests (a walk with its own stack: no recursion to run out of)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, depth)
            if depth <= MAX_DEPTH:
                stack.extend((child, depth + 1) for child in item if isinstance(child, (dict, list)))
    return deepest


def parse_json(text: str, shown: str):
    """JSON as layertax reads it from outside: strictly (NaN, Infinity and numbers too large for
    a float are refused, not turned into nan or inf), and nested at most MAX_DEPTH deep."""
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except json.JSONDecodeError as e:
        raise UsageError(f"{printable(shown)} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    except ValueError as e:
        raise UsageError(f"{printable(shown)} is not valid JSON for layertax: {e}") from None
    except RecursionError:
        raise UsageError(f"{printable(shown)} nests deeper than {MAX_DEPTH} levels: not a file layertax reads") from None
    if _depth(value) > MAX_DEPTH:
        raise UsageError(f"{printable(shown)} nests deeper than {MAX_DEPTH} levels: not a file layertax reads")
    return value


def read_json(path: str | os.PathLike, what: str = "JSON file", limit: int | None = None):
    """A JSON file handed to layertax: read by read_bytes' rules, parsed by parse_json's."""
    return parse_json(read_text(path, what, limit), "standard input" if _is_stdio(path) else os.fspath(path))
