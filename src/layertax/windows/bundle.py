"""`layertax windows bundle`: the PE variants (verified), the runner, the experiments' fixed
fields and a manifest, with a run.cmd, zipped: a user copies the zip to a Windows machine,
unpacks it, runs run.cmd, and brings back results.json."""
from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from layertax import files, paths
from layertax.engine.builder import graph, ninja, toolchain
from layertax.errors import LayertaxError, UsageError
from layertax.programs.generate import Shape
from layertax.programs.pe import build, verify
from layertax.programs.pe.verify import Claim
from layertax.scratch import private_dir
from layertax.version import full_version
from layertax.windows import experiments

RUNNER_SOURCE = Path(__file__).resolve().parent / "native" / "runner.c"
# The runner has no C runtime: its entry point is Start, and it calls kernel32 and ntdll only.
RUNNER_CFLAGS = ("-nostdlib", "-ffreestanding", "-fno-asynchronous-unwind-tables")
RUNNER_LINK = ("-nostdlib", "-Wl,-e,Start", "-lkernel32", "-lntdll", "-lgcc")
MAX_BUNDLE_LIBS = 64        # the runner's LoadLibrary cases hold at most this many modules
DEFAULT_RUNS = 30           # Pietrek's 30 launches

RUN_CMD = "\r\n".join([
    "@echo off",
    "rem layertax: Pietrek's experiments on this machine. Writes results.json beside this file.",
    "rem Usage: run.cmd [ROUNDS]   (default: the manifest's; each round launches every variant once)",
    'cd /d "%~dp0"',
    "runner.exe %1",
    "if errorlevel 1 exit /b %errorlevel%",
    "echo Bring results.json back and run: layertax import-windows results.json",
    ""])

README = """Pietrek's experiments, built by layertax {version}.

Run run.cmd (double-click, or from cmd.exe). It needs nothing installed: runner.exe uses
kernel32 only (and loads msvcrt.dll, which every Windows has, for the C runtime's rename).
It launches each variant of the load-time program {runs} times, loads each DLL set in
process, and times the A-vs-W and rename-chain kernels, then writes results.json here.
Then, on a machine with layertax: layertax import-windows results.json

The variants (each proved by layertax's verifier before it was packed):
{variants}
"""


@dataclass
class Bundle:
    zip_path: Path
    shape: Shape
    verified: dict[str, list[Claim]]
    timed: list[str]           # the variants packed to be timed (the ones that passed)


def tools() -> tuple[toolchain.Tool, toolchain.Tool]:
    gcc, dlltool = toolchain.find("mingw-gcc"), toolchain.find("mingw-dlltool")
    for name, tool in (("mingw-gcc", gcc), ("mingw-dlltool", dlltool)):
        if tool is None:
            raise UsageError(toolchain.hint(name))
    return gcc, dlltool


def build_runner(gcc: toolchain.Tool, out: Path) -> Path:
    """runner.exe in out, from the build cache: it depends on the compiler and its source only,
    not on the bundle's shape, so it is built once (a few seconds of MinGW) and copied after."""
    target = ninja.BuildTarget("runner.exe", (RUNNER_SOURCE,), (), RUNNER_CFLAGS, RUNNER_LINK, gcc.path, gcc.version,
                               kind="program")
    built = graph.build([target], paths.cache_dir())["runner.exe"]
    if not isinstance(built, Path):
        raise LayertaxError(f"building runner.exe failed: {built}")
    return files.copy_file(built, out / "runner.exe")


def verification_table(report: dict[str, list[Claim]]) -> dict:
    """One row per variant (every claim and what was found is in the result's "verification")."""
    rows = []
    for name, claims in report.items():
        broken = [f"{c.claim}: {c.detail}" for c in claims if not c.ok]
        rows.append([name, f"{sum(c.ok for c in claims)} of {len(claims)}",
                     "; ".join(broken) if broken else "; ".join(c.claim for c in claims)])
    return {"title": "what the verifier proved of each file before packing (pefile)", "nowrap": 1,
            "columns": ["variant", "claims held", "claims (or the ones that failed)"], "rows": rows,
            "align": ["left", "right", "left"], "detail": True}


def _manifest(shape: Shape, runs: int, timed: list[str]) -> str:
    lines = [f"version\t{full_version()}", f"runs\t{runs}", "warmup\t1", "min_ns\t5000000"]
    lines += [f"meta\t{name}\tmeta\\{name}.json" for name in experiments.metas()]
    lines += experiments.manifest_cases(shape.libs, timed)
    return "\r\n".join(lines) + "\r\n"


def assemble(shape: Shape, runs: int, where: Path, zip_path: Path,
             on_line: Callable[[str], None] | None = None) -> Bundle:
    """Builds, verifies and lays out the bundle in where/pietrek/ (where must exist), to be zipped
    to zip_path."""
    if shape.libs > MAX_BUNDLE_LIBS:
        raise UsageError(f"--libs {shape.libs}: the bundle's runner loads at most {MAX_BUNDLE_LIBS} DLLs per set")
    gcc, dlltool = tools()
    tree = where / "tree"
    tree.mkdir()
    build.build(shape, tree, gcc, dlltool, on_line)
    report = verify.verify(shape, tree)
    bad = set(verify.failed(report))
    timed = [name for name in report if name not in bad]
    root = where / "pietrek"
    (root / "meta").mkdir(parents=True)
    files.copy_tree(tree / "out", root / "variants")
    build_runner(gcc, root)
    for name, meta in experiments.metas().items():
        if name == "loadtime-pe":
            meta = {**meta, "shape": shape.to_dict(), "tables": [verification_table(report)],
                    "not_timed": sorted(bad),
                    "verification": {name: [c.to_dict() for c in claims] for name, claims in report.items()}}
        files.write_text(json.dumps(meta, indent=1) + "\n", root / "meta" / f"{name}.json")
    files.write_text(_manifest(shape, runs, timed), root / "manifest.txt")
    files.write_text(RUN_CMD, root / "run.cmd")
    listing = "\n".join(f"  {name}: {'verified' if name not in bad else 'FAILED verification, not timed'}"
                        for name in report)
    files.write_text(README.format(version=full_version(), runs=runs, variants=listing)
                                     .replace("\n", "\r\n"), root / "README.txt")
    return Bundle(zip_path, shape, report, timed)


def zip_tree(root: Path, target: Path) -> None:
    """root's files under one top folder, written by the one safe writer (files.py): a file
    whole or not at all, a device or a FIFO as a stream, never replaced."""
    with files.atomic_file(target) as out, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(root.rglob("*")):
            if path.is_file():
                z.write(path, Path(root.name) / path.relative_to(root))


def make(shape: Shape, runs: int, target: Path, on_line: Callable[[str], None] | None = None) -> Bundle:
    """The zip at target (its directory must exist); built in a private temporary directory."""
    with private_dir("bundle") as tmp:
        bundle = assemble(shape, runs, tmp, target, on_line)
        zip_tree(tmp / "pietrek", target)
    return bundle
