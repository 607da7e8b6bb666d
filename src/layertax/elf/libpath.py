"""Which file the loader will load for each DT_NEEDED name: glibc's search, done statically.

For a name without a slash, glibc's ld.so tries, in order (ld.so(8)):
  1. DT_RPATH of the object that needs it, then of the object that loaded that one,
     up to the program, unless the needing object has a DT_RUNPATH;
  2. LD_LIBRARY_PATH;
  3. DT_RUNPATH of the needing object only;
  4. /etc/ld.so.cache;
  5. the system directories.
In each directory it also tries the glibc-hwcaps subdirectories this CPU supports,
best first, and it skips a file of another class or machine and keeps looking.
$ORIGIN, $LIB and $PLATFORM are expanded in RPATH and RUNPATH. Objects are
loaded breadth first and a name already loaded (by soname or file) is not
loaded again. The system's own facts (system directories, hwcaps subdirectories,
the cache) come from the system loader itself: `ld.so --list-diagnostics` and
`ldconfig -p`, run with fixed arguments.
"""
from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from layertax.errors import LayertaxError

DEFAULT_SYSTEM_DIRS = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib")


@dataclass(frozen=True)
class LoaderFacts:
    system_dirs: tuple[str, ...]
    hwcaps: tuple[str, ...]          # glibc-hwcaps subdirectories, best first
    platform: str
    lib: str                         # what $LIB expands to
    cache: dict[str, tuple[str, ...]]  # name -> paths, in the cache's order


def _run(argv: list[str]) -> str:
    try:
        return subprocess.run(argv, capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=20, stdin=subprocess.DEVNULL).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


@functools.lru_cache(maxsize=4)
def facts(interp: str = "/lib64/ld-linux-x86-64.so.2") -> LoaderFacts:
    diag = _run([interp, "--list-diagnostics"]) if Path(interp).is_file() else ""
    dirs = tuple(d.rstrip("/") for d in re.findall(r'^path\.system_dirs\[0x[0-9a-f]+\]="([^"]*)"', diag, re.M))
    subdirs = re.search(r'^dl_hwcaps_subdirs="([^"]*)"', diag, re.M)
    active = re.search(r"^dl_hwcaps_subdirs_active=0x([0-9a-f]+)", diag, re.M)
    hwcaps: list[str] = []
    if subdirs and active:
        mask = int(active.group(1), 16)
        hwcaps = [name for i, name in enumerate(subdirs.group(1).split(":")) if mask & (1 << i)]
    platform = re.search(r'^dl_platform="([^"]*)"', diag, re.M)
    ldconfig = shutil.which("ldconfig", path=os.pathsep.join([os.environ.get("PATH", ""), "/sbin", "/usr/sbin"]))
    cache: dict[str, list[str]] = {}
    for line in (_run([ldconfig, "-p"]) if ldconfig else "").splitlines():
        m = re.match(r"^\s+(\S+) \(([^)]*)\) => (\S+)$", line)
        if m:
            cache.setdefault(m.group(1), []).append(m.group(3))
    machine = os.uname().machine
    return LoaderFacts(dirs or DEFAULT_SYSTEM_DIRS, tuple(hwcaps), platform.group(1) if platform else machine,
                       "lib64" if machine in ("x86_64", "aarch64", "ppc64le", "s390x") else "lib",
                       {k: tuple(v) for k, v in cache.items()})


@dataclass
class Resolved:
    name: str                  # as in DT_NEEDED (or the program's path)
    path: str | None           # the file the loader would load; None if not found
    found_by: str              # "program", "path", "rpath", "LD_LIBRARY_PATH", "runpath", "ld.so.cache", "system", "not found"
    needed_by: str | None      # path of the object naming it first
    depth: int


def expand(entry: str, origin: Path, f: LoaderFacts) -> str:
    """$ORIGIN, $LIB, $PLATFORM (with or without braces) in one RPATH/RUNPATH entry."""
    for token, value in (("ORIGIN", str(origin)), ("LIB", f.lib), ("PLATFORM", f.platform)):
        entry = entry.replace("${" + token + "}", value).replace("$" + token, value)
    return entry


def _matches(path: Path, elf_class: int, machine: str) -> bool:
    """The loader's check: a candidate of another class or machine is skipped."""
    from layertax.elf import elfinfo

    try:
        with open(path, "rb") as fh:
            head = fh.read(20)
    except OSError:
        return False
    if len(head) < 20 or head[:4] != b"\x7fELF":
        return False
    cls = {1: 32, 2: 64}.get(head[4])
    order = "little" if head[5] == 1 else "big"
    em = int.from_bytes(head[18:20], order)
    return cls == elf_class and elfinfo.machine_name(em) == machine


def _in_dirs(name: str, dirs: list[str], f: LoaderFacts, elf_class: int, machine: str) -> str | None:
    for d in dirs:
        for sub in [f"glibc-hwcaps/{h}/" for h in f.hwcaps] + [""]:
            candidate = Path(d or ".") / f"{sub}{name}"
            if candidate.is_file() and _matches(candidate, elf_class, machine):
                return str(candidate)
    return None


def find(name: str, needer, chain: list, env: dict[str, str], f: LoaderFacts) -> tuple[str | None, str]:
    """One DT_NEEDED name, as the loader looks for it. chain: the needer's loaders, nearest first."""
    cls, machine = needer.elf_class, needer.machine
    if "/" in name:
        p = Path(name)
        return (str(p), "path") if p.is_file() else (None, "not found")
    if not needer.runpath:
        dirs = []
        for obj in [needer, *chain]:
            dirs += [expand(e, Path(obj.path).parent, f) for e in obj.rpath]
        hit = _in_dirs(name, dirs, f, cls, machine)
        if hit:
            return hit, "rpath"
    lib_path = [d for d in re.split(r"[:;]", env.get("LD_LIBRARY_PATH", ""))]
    if env.get("LD_LIBRARY_PATH"):
        hit = _in_dirs(name, lib_path, f, cls, machine)
        if hit:
            return hit, "LD_LIBRARY_PATH"
    hit = _in_dirs(name, [expand(e, Path(needer.path).parent, f) for e in needer.runpath], f, cls, machine)
    if hit:
        return hit, "runpath"
    for candidate in f.cache.get(name, ()):
        if _matches(Path(candidate), cls, machine):
            return candidate, "ld.so.cache"
    hit = _in_dirs(name, list(f.system_dirs), f, cls, machine)
    if hit:
        return hit, "system"
    return None, "not found"


def resolve(program, read, env: dict[str, str] | None = None, preload: list[str] | None = None,
            f: LoaderFacts | None = None) -> list[tuple[Resolved, object | None]]:
    """The objects the loader will load for `program`, breadth first, each with its ElfObject (or None).

    read(path) -> ElfObject (elfinfo.read); errors in a library are the caller's to report.
    """
    env = dict(os.environ if env is None else env)
    f = f or facts(program.interp or "/lib64/ld-linux-x86-64.so.2")
    out: list[tuple[Resolved, object | None]] = [(Resolved(program.path, program.path, "program", None, 0), program)]
    loaded: dict[str, int] = {}
    by_real: set[str] = {os.path.realpath(program.path)}
    queue: deque = deque()
    parents: dict[int, list] = {0: []}

    def add(name: str, needer, chain, depth: int, how: str | None = None) -> None:
        if name in loaded:
            return
        path, found_by = (name, how) if how else find(name, needer, chain, env, f)
        if path and os.path.realpath(path) in by_real:
            loaded[name] = -1
            return
        obj = None
        if path:
            by_real.add(os.path.realpath(path))
            obj = read(Path(path))
            if obj is not None and obj.soname:
                loaded.setdefault(obj.soname, len(out))
        loaded[name] = len(out)
        out.append((Resolved(name, path, found_by, needer.path, depth), obj))
        if obj is not None:
            parents[len(out) - 1] = [needer, *chain]
            queue.append(len(out) - 1)

    # ld.so is mapped by the kernel before anything else and known by its soname,
    # so a DT_NEEDED naming it (libc's does) is not searched for; it is listed last.
    interp = None
    if program.interp:
        try:
            interp = read(Path(program.interp))
        except LayertaxError:  # listed as not found; the caller reports the unreadable file
            interp = None
        for key in filter(None, (Path(program.interp).name, interp.soname if interp else None)):
            loaded[key] = -1
        by_real.add(os.path.realpath(program.interp))
    for p in preload or []:
        add(p, program, [], 1, "LD_PRELOAD")
    for name in program.needed:
        add(name, program, [], 1)
    while queue:
        i = queue.popleft()
        _, obj = out[i]
        for name in obj.needed:
            add(name, obj, parents[i], out[i][0].depth + 1)
    if program.interp:
        out.append((Resolved(program.interp, program.interp if interp else None,
                             "interpreter" if interp else "not found", program.path, 1), interp))
    return out
