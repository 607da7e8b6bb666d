"""Node: its start-up from performance.nodeTiming (V8's start, the environment, the bootstrap,
the modules and the program's first tick, the event loop until exit), read by a preloaded
script (--require) that prints it at exit. Fixes: V8's worker threads not started (--v8-pool-size=0:
a short-lived program pays for their creation and never uses them), and the compile cache
where this Node has one (22.1+)."""
from __future__ import annotations

import functools
import json
import re
import subprocess
from pathlib import Path

from layertax import files
from layertax.inspect.runtime.stage import Fix, Split, Stage

RUNTIME = "Node"
MARK = "LAYERTAX_NODE_TIMING "
_PRELOAD = """process.on('exit', () => {
  const p = require('perf_hooks').performance, t = p.nodeTiming;
  process.stderr.write('%s' + JSON.stringify({nodeStart: t.nodeStart, v8Start: t.v8Start,
    environment: t.environment, bootstrapComplete: t.bootstrapComplete, loopStart: t.loopStart,
    exit: p.now()}) + '\\n');
});
""" % MARK
# The stages between two of nodeTiming's marks (ms since the process's time origin).
STAGES = (("V8 start", "nodeStart", "v8Start"), ("environment", "v8Start", "environment"),
          ("bootstrap", "environment", "bootstrapComplete"),
          ("modules and the program's first tick", "bootstrapComplete", "loopStart"),
          ("event loop until exit", "loopStart", "exit"))


def recognise(path: Path, argv: list[str]) -> bool:
    return path.name in ("node", "nodejs")


def traced(argv: list[str], workdir: Path) -> tuple[list[str], dict[str, str]]:
    preload = workdir / "timing.js"
    files.write_text(_PRELOAD, preload)
    return [argv[0], "--require", str(preload), *argv[1:]], {}


def parse(stdout: str, stderr: str, workdir: Path) -> Split:
    split = Split(RUNTIME)
    line = next((x for x in stderr.splitlines() if x.startswith(MARK)), None)
    if line is None:
        split.problem = "the timing preload printed nothing (the program exited before Node's exit event?)"
        return split
    marks = json.loads(line[len(MARK):])
    for name, start, end in STAGES:
        a, b = marks.get(start), marks.get(end)
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and a >= 0 and b >= a:
            split.stages.append(Stage(name, (b - a) * 1e6, "performance.nodeTiming"))
    return split


@functools.lru_cache(maxsize=8)     # fixes() and hint() both ask: one `node --version` a program
def _version(node: str) -> tuple[int, int]:
    try:
        text = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return 0, 0
    m = re.match(r"v(\d+)\.(\d+)", text.strip())
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def fixes(argv: list[str], workdir: Path) -> list[Fix]:
    out = [Fix("no V8 worker threads (--v8-pool-size=0)", (argv[0], "--v8-pool-size=0", *argv[1:]),
               caveat="garbage collection and optimising compilation run on the main thread: a long-running "
                      "program may slow down")]
    if _version(argv[0]) >= (22, 1):     # no compile cache before Node 22.1: said in the notes (runtime.hint)
        cache = workdir / "compile-cache"
        out.append(Fix("compile cache (NODE_COMPILE_CACHE)", tuple(argv), (("NODE_COMPILE_CACHE", str(cache)),),
                       prepare=tuple(argv), caveat="the cache lives in a directory the program must be able to write"))
    return out


def hint(argv: list[str]) -> str | None:
    if _version(argv[0]) < (22, 1):
        return "Node before 22.1 has no compile cache to try (NODE_COMPILE_CACHE, module.enableCompileCache)"
    return None
