"""Builds the C and C++ programs of the matrix: one ninja tree, every link mode.

The tree is keyed by everything that goes into it (sources, the generated
message header, the compilers' versions), so a second run reuses it. A program
whose build fails (say, no static libstdc++) is missing from the tree; its row
is marked failed with the compiler's first error.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from layertax import files
from layertax.engine.builder import ninja, toolchain
from layertax.experiments.unicode_io import message
from layertax.experiments.unicode_io import programs
from layertax.experiments.unicode_io.programs import Program

PROGRAM_DIR = Path(__file__).resolve().parent / "programs"
CFLAGS = ("-O2", "-std=gnu11", "-Wall")
CXXFLAGS = ("-O2", "-std=c++17", "-Wall")
FORMAT = "unicode-io-native/1"   # bump to rebuild every tree


def compiler_tool(p: Program) -> str:
    if p.link == "musl":
        return "musl-gcc"
    return "c++" if p.language == "c++" else "cc"


def command(p: Program, compiler: str) -> list[str]:
    """The compile-and-link command of one program (sources relative to the tree)."""
    flags = CXXFLAGS if p.language == "c++" else CFLAGS
    static = ("-static",) if p.link in ("static", "musl") else ()
    return [compiler, *flags, *(f"-D{d}" for d in p.defines), "-Isrc", f"src/{p.source}", "-o", f"out/{p.name}",
            *static]


def _key(chosen: list[Program], tools: dict[str, toolchain.Tool]) -> str:
    h = hashlib.sha256()
    for part in (FORMAT, message.c_header(), *(f"{n}={t.path} {t.version}" for n, t in sorted(tools.items()))):
        h.update(part.encode() + b"\0")
    for p in chosen:
        h.update(repr(p).encode() + b"\0")
    for src in sorted({p.source for p in chosen}):
        h.update(src.encode() + b"\0" + (PROGRAM_DIR / src).read_bytes())
    return h.hexdigest()[:24]


def _plan(chosen: list[Program]) -> tuple[ninja.BuildTree | None, list[Program], dict[str, str]]:
    """(the tree of the programs this machine can build, those programs, {name: hint for a
    missing compiler}); no tree when it can build none."""
    tools, missing = {}, {}
    for p in chosen:
        tool = compiler_tool(p)
        found = toolchain.find(tool)
        if found is None:
            missing[p.name] = toolchain.hint(tool)
        else:
            tools[tool] = found
    buildable = [p for p in chosen if p.name not in missing]
    if not buildable:
        return None, [], missing

    def write(tree: Path) -> None:
        src = tree / "src"
        for p in buildable:
            (src / p.source).parent.mkdir(parents=True, exist_ok=True)
            files.copy_file(PROGRAM_DIR / p.source, src / p.source)
        files.write_text(message.c_header(), src / "message.h")
        lines = ["ninja_required_version = 1.10", "rule build", "  command = $cmd", "  description = BUILD $out", ""]
        for p in buildable:
            cmd = " ".join(ninja.shell_quote(a) for a in command(p, tools[compiler_tool(p)].path))
            lines += [f"build out/{p.name}: build src/{p.source} | src/message.h", f"  cmd = {cmd}", ""]
        files.write_text("\n".join(lines), tree / "build.ninja")

    return ninja.BuildTree("unicode-io", _key(buildable, tools), write, label="BUILD unicode-io programs"), buildable, missing


def builds(experiment, cache_root: Path, case_globs: tuple[str, ...] = ()) -> list[ninja.BuildTree]:
    """The native programs' tree, for the run's one ninja graph (build_all then finds it cached)."""
    tree, _, _ = _plan(list(programs.NATIVE))
    return [tree] if tree else []


def build_all(chosen: list[Program], cache_root: Path) -> tuple[dict[str, Path], dict[str, str], dict[str, str]]:
    """Builds the native programs this machine can build:
    ({name: executable}, {name: hint for a missing compiler}, {name: build error})."""
    spec, buildable, missing = _plan(chosen)
    if spec is None:
        return {}, missing, {}
    # A program that fails to build is absent from the published tree (the others stay
    # usable); the failure is kept until a compiler's version or a source changes.
    tree, log = ninja.build_tree(spec.kind, spec.key, spec.write, cache_root)
    built, failed = {}, {}
    for p in buildable:
        exe = tree / "out" / p.name
        if exe.is_file():
            built[p.name] = exe
        else:
            failed[p.name] = f"the build failed: {_error_for(p, log)}"
    return built, missing, failed


def _error_for(p: Program, log: str) -> str:
    """The first error line of this program's part of the ninja log."""
    mine = log.split(f"out/{p.name}", 1)[-1]
    return ninja.first_error(mine)
