"""Finds the compilers, linkers, runtimes and libraries layertax can use.

Every tool is optional except a C compiler: a missing one skips only the
variants that need it, with a one-line hint saying what to install.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from layertax import files
from layertax.errors import UsageError
from layertax.scratch import private_dir

# name -> (commands to look for, argv that prints the version, Debian package, what it adds)
TOOLS: dict[str, tuple[tuple[str, ...], tuple[str, ...], str, str]] = {
    "cc": (("cc", "gcc"), ("--version",), "gcc", "all C kernels"),
    "c++": (("c++", "g++"), ("--version",), "g++", "C++ kernels"),
    "clang": (("clang",), ("--version",), "clang", "clang-built variants"),
    "gold": (("ld.gold",), ("--version",), "binutils", "the gold linker variant"),
    "lld": (("ld.lld",), ("--version",), "lld", "the lld linker variant"),
    "mold": (("mold",), ("--version",), "mold", "the mold linker variant"),
    "musl-gcc": (("musl-gcc",), ("-dumpversion",), "musl-tools", "musl libc variants"),
    "go": (("go",), ("version",), "golang", "Go kernels"),
    "cargo": (("cargo",), ("--version",), "cargo", "Rust kernels"),
    "rustc": (("rustc",), ("--version",), "rustc", "Rust kernels"),
    "javac": (("javac",), ("-version",), "default-jdk", "Java kernels"),
    "java": (("java",), ("-version",), "default-jdk", "Java kernels"),
    "node": (("node",), ("--version",), "nodejs", "Node.js kernels"),
    "perl": (("perl",), ("-e", "print $^V"), "perl", "Perl kernels"),
    "valgrind": (("valgrind",), ("--version",), "valgrind", "instruction counts (--metric instructions)"),
    "strace": (("strace",), ("-V",), "strace", "system-call counts"),
    "hyperfine": (("hyperfine",), ("--version",), "hyperfine", "import-hyperfine"),
    "mingw-gcc": (("x86_64-w64-mingw32-gcc",), ("--version",), "gcc-mingw-w64-x86-64",
                  "the Windows (PE32+) programs: loadtime gen --target pe, windows bundle"),
    "mingw-dlltool": (("x86_64-w64-mingw32-dlltool",), ("--version",), "binutils-mingw-w64-x86-64",
                      "import libraries by ordinal for the Windows programs"),
    "wine": (("wine",), ("--version",), "wine and wine64", "running the Windows programs here (windows run)"),
}

# Libraries probed by compiling and linking a tiny program: name -> (source, link flags, package, what it adds)
LIBRARIES: dict[str, tuple[str, tuple[str, ...], str, str]] = {
    "liburing": (
        "#include <liburing.h>\nint main(void){struct io_uring r; (void)r; return io_uring_queue_init != 0 ? 0 : 1;}\n",
        ("-luring",), "liburing-dev", "io_uring cases",
    ),
}


@dataclass(frozen=True)
class Tool:
    name: str
    path: str
    version: str


def _first_line(argv: list[str]) -> str:
    try:
        p = subprocess.run(argv, capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    out = (p.stdout or p.stderr).strip().splitlines()
    return out[0].strip() if out else "unknown"


def _jdk_release_version(javac: str) -> str | None:
    """javac's version as `javac -version` prints it ("javac 17.0.15"), read from its JDK's release
    file (JAVA_VERSION="17.0.15"), which every JDK keeps beside bin/: `javac -version` starts a
    JVM, about 0.3 s of CPU at every fingerprint. None where there is no such file."""
    release = Path(os.path.realpath(javac)).parent.parent / "release"
    try:     # through the one reader: a regular file, bounded, no link in a directory others can write
        text = files.read_text(release, "JDK release file", limit=16384)
    except UsageError:
        return None
    found = re.search(r'^JAVA_VERSION="([\w.+-]{1,40})"$', text, re.MULTILINE)
    return f"javac {found.group(1)}" if found else None


@cache
def find(name: str) -> Tool | None:
    """The tool if it is installed, with its version; CC overrides the C compiler."""
    commands, version_args, _, _ = TOOLS[name]
    if name == "cc" and os.environ.get("CC"):
        commands = (os.environ["CC"],) + commands
    if name == "c++" and os.environ.get("CXX"):
        commands = (os.environ["CXX"],) + commands
    for command in commands:
        path = shutil.which(command)
        if path:
            known = _jdk_release_version(path) if name == "javac" else None
            return Tool(name, path, known or _first_line([path, *version_args]))
    return None


@cache
def has_library(name: str) -> bool:
    cc = find("cc")
    if cc is None:
        return False
    source, flags, _, _ = LIBRARIES[name]
    with private_dir("probe") as d:
        src = Path(d) / "probe.c"
        files.write_text(source, src)
        try:
            p = subprocess.run([cc.path, str(src), "-o", str(Path(d) / "probe"), *flags],
                               capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError):
            return False
        return p.returncode == 0


def find_command(command: str) -> str | None:
    """A helper command that comes with a tool (e.g. callgrind_annotate with valgrind)."""
    return shutil.which(command)


def available(requirement: str) -> bool:
    if requirement in LIBRARIES:
        return has_library(requirement)
    return find(requirement) is not None


def hint(requirement: str) -> str:
    """One line saying what is missing and what installing it would add."""
    if requirement in LIBRARIES:
        _, _, package, adds = LIBRARIES[requirement]
    else:
        _, _, package, adds = TOOLS[requirement]
    return f"{requirement} not found: install {package} to add {adds}"


def versions() -> dict[str, str]:
    """Versions of every installed tool, for the machine fingerprint. The probes run side by
    side: each mostly waits for its tool to start (javac alone ~0.1 s), and one after another
    they kept a command's result waiting ~0.4 s."""
    with ThreadPoolExecutor(max_workers=8) as pool:
        tools = dict(zip(TOOLS, pool.map(find, TOOLS)))
        libraries = dict(zip(LIBRARIES, pool.map(has_library, LIBRARIES)))
    out = {name: tool.version for name, tool in tools.items() if tool}
    out.update({lib: "found" if found else "missing" for lib, found in libraries.items()})
    return out
