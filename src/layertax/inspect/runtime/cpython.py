"""CPython: its imports from -X importtime (self time per module, grouped by top-level package),
and the start-up options that can be tried: -S (no site module), -I (isolated mode),
-X frozen_modules=on."""
from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from layertax.inspect.runtime.stage import Fix, Split, Stage

RUNTIME = "CPython"
_NAME = re.compile(r"^python(\d+(\.\d+)?)?$")
# "import time:       139 |        139 |   asyncio.threads"
_LINE = re.compile(r"^import time:\s+(\d+)\s+\|\s+(\d+)\s+\|(\s*)(\S+)\s*$")


def recognise(path: Path, argv: list[str]) -> bool:
    return bool(_NAME.match(path.name))


def traced(argv: list[str], workdir: Path) -> tuple[list[str], dict[str, str]]:
    return [argv[0], "-X", "importtime", *argv[1:]], {}


def parse(stdout: str, stderr: str, workdir: Path) -> Split:
    """The imports' self times summed (each module once: cumulative would count a package's
    submodules twice), and the packages that took most."""
    split = Split(RUNTIME)
    by_package: dict[str, int] = defaultdict(int)
    total = count = 0
    for line in stderr.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        self_us, name = int(m.group(1)), m.group(4)
        total += self_us
        count += 1
        by_package[name.split(".")[0]] += self_us
    if not count:
        split.problem = "-X importtime printed no imports (not a CPython, or it ignores -X)"
        return split
    split.stages.append(Stage(f"imports ({count} modules)", total * 1e3, "-X importtime"))
    top = sorted(by_package.items(), key=lambda kv: -kv[1])[:5]
    split.details.append("imports by package (self time): " + ", ".join(f"{name} {us / 1e3:.1f} ms" for name, us in top))
    return split


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
