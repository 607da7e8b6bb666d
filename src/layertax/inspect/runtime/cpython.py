"""CPython: its imports from -X importtime, in three stages (those the interpreter's own start-up
makes before the site module, site's, the program's), with the packages that took most and how
each module was loaded (frozen, built in, cached .pyc, compiled from source, extension module)
from -v's lines in a second traced run (-v writes a line for every module again at exit, which
would swell the first run's time outside its imports); and the start-up options that can be
tried: -S (no site module), -I (isolated mode), -X frozen_modules=on."""
from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path, PurePosixPath

from layertax.inspect.runtime.stage import Fix, Split, Stage

RUNTIME = "CPython"
_NAME = re.compile(r"^python(\d+(\.\d+)?)?$")
# "import time:       139 |        139 |   asyncio.threads"
_LINE = re.compile(r"^import time:\s+(\d+)\s+\|\s+(\d+)\s+\|(\s*)(\S+)\s*$")
# -v: "import 'json.decoder' # <_frozen_importlib_external.SourceFileLoader object at 0x...>"
_LOADED = re.compile(r"^import '([^']+)' # <(?:class '|)([\w.]+)")
# -v: "# code object from '/usr/lib/python3.11/json/__pycache__/decoder.cpython-311.pyc'" (a .pyc,
# quoted) or "# code object from /tmp/mymod.py" (source compiled now)
_CODE = re.compile(r"^# code object from '?(.+?)'?$")
# -v: "# created '/tmp/__pycache__/mymod.cpython-311.pyc'": a module compiled now kept its bytecode
_CREATED = re.compile(r"^# created '(.+)'$")
FROZEN, BUILTIN, PYC, SOURCE, WRITTEN, EXTENSION, OTHER, FAILED = (
    "frozen", "built in", "cached .pyc", "compiled from source", "compiled from source, .pyc written now",
    "extension module", "other loader", "not found or failed")
_LOADERS = {"FrozenImporter": FROZEN, "BuiltinImporter": BUILTIN, "ExtensionFileLoader": EXTENSION}


def recognise(path: Path, argv: list[str]) -> bool:
    return bool(_NAME.match(path.name))


def traced(argv: list[str], workdir: Path) -> tuple[list[str], dict[str, str]]:
    return [argv[0], "-X", "importtime", *argv[1:]], {}


def classify_traced(argv: list[str], workdir: Path) -> tuple[list[str], dict[str, str]]:
    """The second traced run: -v says how each module was loaded (the first run has the times)."""
    return [argv[0], "-v", *argv[1:]], {}


def classify(split: Split, stdout: str, stderr: str) -> None:
    """How the modules loaded (load_kinds, from the second run's -v lines), by the first run's
    self times, and the modules compiled from source on every start."""
    kinds = load_kinds(stderr)
    if not split.self_us or not any(k != FAILED for k in kinds.values()):
        return
    split.details.append(_by_kind(split.self_us, kinds))
    compiled = [n for n in split.self_us if kinds.get(n) == SOURCE]
    if compiled:
        split.details.append(
            f"{len(compiled)} module{'s' if len(compiled) != 1 else ''} compiled from source on every start "
            f"({', '.join(compiled[:4])}{', ...' if len(compiled) > 4 else ''}): no .pyc could be written beside "
            "them (a read-only directory, or PYTHONDONTWRITEBYTECODE); `python -m compileall` on their directory, "
            "or PYTHONPYCACHEPREFIX, keeps the compiled code")


def _module_of(code_path: str) -> str:
    """The last part of the module name a code object's file holds: json/__pycache__/decoder.cpython-311.pyc
    and json/decoder.py hold "decoder", json/__init__.py holds "json"."""
    p = PurePosixPath(code_path)
    stem = p.name.split(".")[0]
    if stem == "__init__":
        parent = p.parent.parent if p.parent.name == "__pycache__" else p.parent
        return parent.name
    return stem


def load_kinds(stderr: str) -> dict[str, str]:
    """How each module was loaded, from -v's lines. A module's code object is read before it runs
    (and before the modules it imports), its "import" line written after: the code objects
    waiting are matched by the name their file holds."""
    kinds: dict[str, str] = {}
    waiting: list[tuple[str, str]] = []          # (module name's last part, the file's path)
    written: set[str] = set()                    # the last parts of the modules whose .pyc was written now
    for line in stderr.splitlines():
        code = _CODE.match(line)
        if code:
            waiting.append((_module_of(code.group(1)), code.group(1)))
            continue
        created = _CREATED.match(line)
        if created:
            written.add(_module_of(created.group(1)))
            continue
        m = _LOADED.match(line)
        if not m:
            continue
        name, loader = m.group(1), m.group(2).rsplit(".", 1)[-1]
        if loader in _LOADERS:
            kinds[name] = _LOADERS[loader]
            continue
        last = name.rsplit(".", 1)[-1]
        at = next((i for i in range(len(waiting) - 1, -1, -1) if waiting[i][0] == last), None)
        if at is None:
            kinds[name] = OTHER
            continue
        path = waiting.pop(at)[1]
        kinds[name] = PYC if path.endswith(".pyc") else WRITTEN if last in written else SOURCE
    return kinds


def parse(stdout: str, stderr: str, workdir: Path) -> Split:
    """The imports' self times summed (each module once: cumulative would count a package's
    submodules twice) by stage: a top-level import and the imports under it belong to the
    interpreter's start-up before site's, to site's, or to the program after it."""
    split = Split(RUNTIME)
    by_package: dict[str, int] = defaultdict(int)
    groups: list[tuple[str, int, int]] = []       # (top-level module, self time summed, modules)
    pending_us = pending_n = 0
    self_by_name: dict[str, int] = {}
    for line in stderr.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        self_us, indent, name = int(m.group(1)), m.group(3), m.group(4)
        self_by_name[name] = self_by_name.get(name, 0) + self_us
        by_package[name.split(".")[0]] += self_us
        pending_us, pending_n = pending_us + self_us, pending_n + 1
        if len(indent) <= 1:                      # a top-level import: it closes its group
            groups.append((name, pending_us, pending_n))
            pending_us = pending_n = 0
    if pending_n:
        groups.append(("", pending_us, pending_n))
    if not groups:
        split.problem = "-X importtime printed no imports (not a CPython, or it ignores -X)"
        return split
    site = next((i for i, g in enumerate(groups) if g[0] == "site"), None)
    stages = (("the interpreter's own imports", groups[:site] if site is not None else []),
              ("site's imports", groups[site:site + 1] if site is not None else []),
              ("the program's imports", groups[site + 1:] if site is not None else groups))
    for title, members in stages:
        if members:
            count = sum(g[2] for g in members)
            split.stages.append(Stage(f"{title} ({count} modules)", sum(g[1] for g in members) * 1e3,
                                      "-X importtime"))
    top = sorted(by_package.items(), key=lambda kv: -kv[1])[:5]
    split.details.append("imports by package (self time): " + ", ".join(f"{name} {us / 1e3:.1f} ms" for name, us in top))
    split.self_us = self_by_name
    return split


def _by_kind(self_by_name: dict[str, int], kinds: dict[str, str]) -> str:
    """"imports by how they load (self time): cached .pyc 98 modules 20.1 ms, frozen 20 modules 1.2 ms, ..."."""
    us: dict[str, int] = defaultdict(int)
    n: dict[str, int] = defaultdict(int)
    for name, t in self_by_name.items():
        kind = kinds.get(name, FAILED)       # timed by -X importtime, never loaded: the import failed
        us[kind] += t
        n[kind] += 1
    order = sorted(us, key=lambda k: -us[k])
    return "imports by how they load (self time): " + ", ".join(
        f"{kind} {n[kind]} module{'s' if n[kind] != 1 else ''} {us[kind] / 1e3:.1f} ms" for kind in order)


def fixes(argv: list[str], workdir: Path) -> list[Fix]:
    options = []
    for arg in argv[1:]:            # the interpreter's own options: those before the script or -c's code
        if not arg.startswith("-"):
            break
        options.append(arg)
    out = []
    if "-S" not in options:
        out.append(Fix("python -S (no site module)", (argv[0], "-S", *argv[1:]),
                       caveat="site-packages are not on sys.path: a program that imports from them fails"))
    if "-I" not in options:
        out.append(Fix("python -I (isolated)", (argv[0], "-I", *argv[1:]),
                       caveat="ignores PYTHON* variables and the user's site-packages"))
    out.append(Fix("python -X frozen_modules=on", (argv[0], "-X", "frozen_modules=on", *argv[1:])))
    return out
