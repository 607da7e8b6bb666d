"""What is built with ninja, and how, into a content-addressed cache: C targets (BuildTarget,
their rules in ninja_lines) and generated trees with their own build.ninja (BuildTree,
build_tree); graph.py builds many of both in one ninja run.

A kernel's directory in the cache is named by a hash of everything that goes
into it: its sources, the harness, the compiler and its version, the flags.
A build happens in a private staging directory and is published with one
rename(2) of the whole directory, so a reader sees either nothing or a
complete build, and two layertax processes building the same kernel at once
cannot corrupt it: the second rename fails and its copy is thrown away.
"""
from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import ninja as ninja_pkg

from layertax import files
from layertax import scratch
from layertax.engine.processes import end_session
from layertax.errors import LayertaxError

NATIVE_DIR = Path(__file__).resolve().parents[2] / "native"
COMMON_SOURCES = (NATIVE_DIR / "common.c",)
HARNESS_SOURCES = (NATIVE_DIR / "harness.c", *COMMON_SOURCES)
HARNESS_HEADERS = (NATIVE_DIR / "harness.h", NATIVE_DIR / "common.h", NATIVE_DIR / "rawsys.h")
BASE_CFLAGS = ("-O2", "-g", "-std=gnu11", "-Wall", "-Wextra", "-Werror=implicit-function-declaration")
CXX_STD = "-std=c++17"
CXX_SUFFIXES = (".cpp", ".cc")
FORMAT = "layertax-build/2"  # bump to invalidate every cached build


@dataclass(frozen=True)
class BuildTarget:
    name: str                     # the binary's file name
    sources: tuple[Path, ...]     # kernel sources (the harness is added)
    include_dirs: tuple[Path, ...]
    cflags: tuple[str, ...]
    libs: tuple[str, ...]
    cc: str                       # compiler path
    cc_version: str
    # "kernel": linked with the timing harness; "program": a plain program (its
    # sources list what it needs); "shared": a shared library (-fPIC -shared).
    kind: str = "kernel"
    cxx: str = ""                 # C++ compiler, for .cpp sources (then it also links)
    cxx_version: str = ""

    def has_cxx(self) -> bool:
        return any(p.suffix in CXX_SUFFIXES for p in self.sources)

    def cxx_flags(self) -> tuple[str, ...]:
        """The C flags for C++: its standard instead of C's, and no C-only warnings."""
        return tuple(CXX_STD if f == "-std=gnu11" else f for f in self.flags()
                     if f != "-Werror=implicit-function-declaration")

    def all_sources(self) -> tuple[Path, ...]:
        return HARNESS_SOURCES + self.sources if self.kind == "kernel" else self.sources

    def flags(self) -> tuple[str, ...]:
        return BASE_CFLAGS + (("-fPIC",) if self.kind == "shared" else ()) + self.cflags

    def link_flags(self) -> tuple[str, ...]:
        return (("-shared",) if self.kind == "shared" else ()) + self.libs

    def key(self) -> str:
        h = hashlib.sha256()
        for part in (FORMAT, self.name, self.kind, self.cc, self.cc_version, self.cxx, self.cxx_version,
                     *self.flags(), "|", *self.libs, "|"):
            h.update(part.encode() + b"\0")
        headers = sorted({p for d in self.include_dirs for p in d.glob("*.h")} | set(HARNESS_HEADERS))
        for path in (*self.all_sources(), *headers):
            h.update(path.name.encode() + b"\0")
            h.update(path.read_bytes())
        return h.hexdigest()[:24]


def ninja_binary() -> str:
    found = shutil.which("ninja", path=ninja_pkg.BIN_DIR) or shutil.which("ninja")
    if not found:
        raise LayertaxError("ninja not found: reinstall layertax (`make setup`) to get the ninja package")
    return found


def _esc(path: Path | str) -> str:
    """Escapes a path for a ninja build line (spaces, colons and dollars are special)."""
    return str(path).replace("$", "$$").replace(" ", "$ ").replace(":", "$:")


def shell_quote(flag: str) -> str:
    """Quotes a flag for the /bin/sh ninja runs commands through (plain words stay as they are)."""
    return shlex.quote(flag)


def ninja_lines(targets: list[BuildTarget]) -> list[str]:
    """The rules and build lines of all targets, each in <key>/ of the build directory."""
    lines = [
        "ninja_required_version = 1.10",
        "rule cc",
        "  command = $cc $cflags -MMD -MF $out.d -c $in -o $out",
        "  depfile = $out.d",
        "  deps = gcc",
        "  description = CC $out",
        "rule cxx",
        "  command = $cxx $cxxflags -MMD -MF $out.d -c $in -o $out",
        "  depfile = $out.d",
        "  deps = gcc",
        "  description = CXX $out",
        "rule link",
        "  command = $cc $in -o $out $libs",
        "  description = LINK $out",
        "",
    ]
    for t in targets:
        key = t.key()
        incs = [f"-I{d}" for d in (NATIVE_DIR, *t.include_dirs)]
        cflags = " ".join(shell_quote(f) for f in (*t.flags(), *incs))
        objs = []
        for i, src in enumerate(t.all_sources()):
            obj = f"{key}/obj/{i}-{src.stem}.o"
            objs.append(obj)
            if src.suffix in CXX_SUFFIXES:
                cxxflags = " ".join(shell_quote(f) for f in (*t.cxx_flags(), *incs))
                lines += [f"build {_esc(obj)}: cxx {_esc(src)}", f"  cxx = {shell_quote(t.cxx)}",
                          f"  cxxflags = {cxxflags}"]
            else:
                lines += [f"build {_esc(obj)}: cc {_esc(src)}", f"  cc = {shell_quote(t.cc)}", f"  cflags = {cflags}"]
        linker = t.cxx if t.has_cxx() else t.cc   # C++ objects need the C++ runtime at link time
        lines += [f"build {_esc(key)}/{_esc(t.name)}: link {' '.join(_esc(o) for o in objs)}",
                  f"  cc = {shell_quote(linker)}", f"  libs = {' '.join(shell_quote(x) for x in t.link_flags())}", ""]
    return lines


class BuildFailed(LayertaxError):
    pass


def run_ninja(directory: Path, targets: tuple[str, ...] = (), jobs: int | None = None,
              on_line: Callable[[str], None] | None = None) -> tuple[bool, str]:
    """Runs ninja in `directory` (keeps going past failures); returns (success, log).

    on_line sees every line ninja prints, e.g. "[3/40] CC obj/lib1.o", for a progress bar.
    """
    argv = [ninja_binary(), "-C", str(directory), "-k", "0", *(["-j", str(jobs)] if jobs else []), *targets]
    # The tools' temporary files go to a directory of this build, removed with all it holds:
    # binutils 2.40's dlltool leaves two empty /tmp/ccXXXXXX files behind on every call, and a
    # compiler killed mid-build leaves its own.
    with scratch.private_dir("build") as tools_tmp:
        env = {**os.environ, "TMPDIR": str(tools_tmp)}
        # In its own session, so that an interruption ends ninja and every compiler it started
        # (killing ninja alone leaves them writing into a directory that is being removed).
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, encoding="utf-8",
                                errors="replace", stdin=subprocess.DEVNULL, start_new_session=True, env=env)
        lines = []
        try:
            for line in proc.stdout:
                lines.append(line)
                if on_line:
                    on_line(line.rstrip("\n"))
            proc.wait()
        except BaseException:
            end_session(proc)        # ninja and every compiler it started, before the directory goes
            raise
    return proc.returncode == 0, "".join(lines)


def first_error(log: str, output: str | None = None) -> str:
    """The first error line of a build log; with output, of the part after ninja's "FAILED:"
    line for that output (a log holds every target's)."""
    if output is not None and f"FAILED: {output}" in log:
        log = log.split(f"FAILED: {output}", 1)[1]
    line = next((ln for ln in log.splitlines() if "error" in ln.lower()), log.strip()[-300:])
    return line.strip()


def publish_dir(built: Path, final: Path) -> None:
    """Moves a finished build into place with one rename(2)."""
    try:
        os.rename(built, final)
    except OSError:
        # Another process published the same key first; its build is identical.
        if not final.is_dir():
            raise


@dataclass(frozen=True)
class BuildTree:
    """A generated source tree that carries its own build.ninja (a Go or Rust kernel, a set of
    test programs), published whole as cache/<kind>/<key>."""
    kind: str                          # the cache directory it is published under
    key: str                           # a hash of everything that goes into it
    write: Callable[[Path], None]      # writes the sources and build.ninja into a directory
    targets: tuple[str, ...] = ()      # what ninja builds there (all if empty)
    required: tuple[str, ...] = ()     # if one of these is missing, nothing is published
    label: str = ""                    # for progress lines: "GO paths-go"
    pool: str = ""                     # trees of one pool build one at a time in a shared graph

    def final(self, cache_root: Path) -> Path:
        return cache_root / self.kind / self.key

    def cached(self, cache_root: Path) -> bool:
        return (self.final(cache_root) / ".complete").is_file()

    def publish(self, built: Path, log: str, cache_root: Path) -> bool:
        """Publishes a tree ninja ran in (with its log); False, and nothing published, when a
        required file is missing, so the failure is not cached and the next run tries again."""
        if not all((built / r).is_file() for r in self.required):
            return False
        # Intermediate files are kept: users study the tree (objects, .ninja_log) by hand.
        files.write_text(log, built / ".complete")
        final = self.final(cache_root)
        final.parent.mkdir(parents=True, exist_ok=True)
        if final.exists() and not (final / ".complete").is_file():
            shutil.rmtree(final, ignore_errors=True)  # a tree left half-built by an older version
        publish_dir(built, final)
        return True

    def result(self, cache_root: Path) -> tuple[Path, str]:
        """(where the tree is, its build log); the path does not exist if it failed."""
        final = self.final(cache_root)
        done = final / ".complete"
        return final, done.read_text(encoding="utf-8", errors="replace") if done.is_file() else ""


def build_tree(kind: str, key: str, write: Callable[[Path], None], cache_root: Path,
               targets: tuple[str, ...] = (), on_line: Callable[[str], None] | None = None,
               required: tuple[str, ...] = ()) -> tuple[Path, str]:
    """Builds a generated source tree (one that carries its own build.ninja) into the cache.

    write(dir) writes the sources and build.ninja into a staging directory; ninja
    builds `targets` there (all if empty) and the tree is published whole as
    cache/<kind>/<key>. A target that fails to build is simply absent from the
    tree; the returned log says why. A cached tree is returned as it is. If a file
    named in `required` was not built, nothing is published (the returned path does
    not exist), so the failure is not cached and the next call tries again.
    """
    tree_spec = BuildTree(kind, key, write, targets, required)
    if tree_spec.cached(cache_root):
        return tree_spec.result(cache_root)
    root = cache_root / kind
    root.mkdir(parents=True, exist_ok=True)
    scratch.sweep_abandoned((root,))
    staging = scratch.make_private_dir("staging", parent=root)
    try:
        tree = staging / "tree"
        tree.mkdir()
        write(tree)
        _, log = run_ninja(tree, targets, on_line=on_line)
        tree_spec.publish(tree, log, cache_root)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return tree_spec.final(cache_root), log
