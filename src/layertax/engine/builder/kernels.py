"""Turns an experiment's kernel declarations into commands the scheduler can run.

C kernels and the trees of Go, Rust and Java kernels are built in one ninja graph
(graph.py), into the cache; Python kernels run as modules
of this package with the same interpreter. A kernel whose toolchain or library
is missing is skipped with a one-line hint, never an error.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from layertax.engine.builder import graph, ninja, runtimes, toolchain
from layertax.experiment import CKernel, Experiment, Kernel, PythonKernel, RuntimeKernel

PACKAGE_ROOT = Path(__file__).resolve().parents[3]  # the directory holding the layertax package


@dataclass
class PreparedKernel:
    name: str
    kind: str
    argv: list[str] | None = None           # None if skipped or failed
    env: dict[str, str] = field(default_factory=dict)
    skip: str | None = None
    error: str | None = None
    info: dict = field(default_factory=dict)  # how it was built, for the result
    engine_pins: bool = False               # the engine sets CPU and priority before exec (JIT runtimes)

    def to_dict(self) -> dict:
        status = "ok" if self.argv else ("skipped" if self.skip else "failed")
        return {"kind": self.kind, "status": status, "reason": self.skip or self.error, **self.info}


def _missing(kernel: Kernel) -> str | None:
    if isinstance(kernel, RuntimeKernel):
        tool = runtimes.missing_tool(kernel.kind)
        if tool:
            return toolchain.hint(tool)
    for req in kernel.requires:
        if not toolchain.available(req):
            return toolchain.hint(req)
    return None


def _needs_cxx(k: CKernel) -> bool:
    return any(s.endswith(ninja.CXX_SUFFIXES) for s in k.sources)


def _c_target(exp: Experiment, k: CKernel, cc: toolchain.Tool) -> ninja.BuildTarget:
    sources = tuple((exp.package_dir / s).resolve() for s in k.sources)
    include_dirs = tuple(sorted({s.parent for s in sources}))
    cxx = toolchain.find("c++") if _needs_cxx(k) else None
    return ninja.BuildTarget(f"{exp.name}-{k.name}", sources, include_dirs, k.cflags, k.libs, cc.path, cc.version,
                             cxx=cxx.path if cxx else "", cxx_version=cxx.version if cxx else "")


def _module_file(module: str) -> str | None:
    """The file of a Python kernel's module, which the engine runs as a script: `python -m` would
    first import the packages above it (the experiments registry and the experiment's declaration),
    a quarter of each kernel's start (127 ms against 102, hyperfine) and seconds of each run counted
    under callgrind."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(module)
    except ImportError:
        return None
    return spec.origin if spec is not None else None


def python_env() -> dict[str, str]:
    path = os.environ.get("PYTHONPATH")
    return {"PYTHONPATH": str(PACKAGE_ROOT) + (os.pathsep + path if path else "")}


def _extras(experiments: list[Experiment], cache_root: Path, case_globs: tuple[str, ...]) -> list:
    """What the experiments build besides their kernels (their `builds` hooks)."""
    extras = []
    for exp in experiments:
        builds = exp.hook("builds")
        if builds is not None:
            extras += builds(exp, cache_root, case_globs)
    return extras


def _kernels_asked_for(exp: Experiment, case_globs: tuple[str, ...]) -> set[str] | None:
    """The kernels the cases matching case_globs (and the baselines they are compared with) run
    in, for an experiment the scheduler runs: `run callchain --case c-rename` builds the C
    kernels, not the Java, Go and Rust trees. None: every kernel (no globs, or an experiment
    measured its own way, which picks its cases itself)."""
    if not case_globs or exp.measure is not None:
        return None
    return {c.kernel for c in exp.cases_asked_for(case_globs)}


def prepare(experiments: list[Experiment], cache_root: Path, case_globs: tuple[str, ...] = (),
            busy=None) -> dict[tuple[str, str], PreparedKernel]:
    """Every kernel of every experiment, ready to run or with the reason it is not.

    Everything the run builds (C kernels, Go, Rust and Java trees, and what the experiments'
    `builds` hooks name) is built in one ninja graph (graph.py); busy(message) wraps that
    build when there is one, for the user."""
    out: dict[tuple[str, str], PreparedKernel] = {}
    targets: dict[tuple[str, str], ninja.BuildTarget] = {}
    planned: dict[tuple[str, str], runtimes.Planned] = {}
    cc = toolchain.find("cc")
    for exp in experiments:
        wanted = _kernels_asked_for(exp, case_globs)
        for k in exp.kernels:
            pk = PreparedKernel(k.name, k.kind)
            out[(exp.name, k.name)] = pk
            missing = _missing(k)
            if wanted is not None and k.name not in wanted:
                pk.skip = "not built: no case asked for (--case) runs in it"
            elif missing:
                pk.skip = missing
            elif isinstance(k, CKernel):
                if cc is None:
                    pk.skip = toolchain.hint("cc")
                elif _needs_cxx(k) and not toolchain.available("c++"):
                    pk.skip = toolchain.hint("c++")
                else:
                    targets[(exp.name, k.name)] = _c_target(exp, k, cc)
            elif isinstance(k, RuntimeKernel):
                planned[(exp.name, k.name)] = runtimes.plan(exp, k)
            elif isinstance(k, PythonKernel):
                script = _module_file(k.module)
                if script is None:
                    pk.error = f"the Python module {k.module} was not found"
                else:
                    pk.argv = [sys.executable, script]
                    pk.env = python_env()
                    pk.info = {"module": k.module, "file": script, "interpreter": sys.executable}
            else:
                pk.error = f"unknown kernel kind {k.kind!r}"
    extras = _extras(experiments, cache_root, case_globs)
    built = graph.build_graph([*targets.values(), *(e for e in extras if isinstance(e, ninja.BuildTarget))],
                              [*(p.tree for p in planned.values()), *(e for e in extras if isinstance(e, ninja.BuildTree))],
                              cache_root, busy)
    for key, target in targets.items():
        pk = out[key]
        build_key = target.key()
        result = built.targets[(build_key, target.name)]
        pk.info = {"compiler": target.cc, "compiler_version": target.cc_version,
                   **({"cxx": target.cxx, "cxx_version": target.cxx_version} if target.cxx else {}),
                   "cflags": list(target.flags()), "libs": list(target.libs), "build_key": build_key}
        if isinstance(result, Exception):
            pk.error = str(result)
        else:
            pk.argv = [str(result)]
    for key, plan in planned.items():
        pk = out[key]
        try:
            done = runtimes.finish(plan, cache_root, built.tree_logs.get((plan.tree.kind, plan.tree.key), ""))
            pk.argv, pk.info = done.argv, done.info
            pk.engine_pins = plan.kernel.kind in runtimes.ENGINE_PINS
            pk.env = dict(runtimes.KIND_ENV.get(plan.kernel.kind, {}))
            if pk.env:
                pk.info["env"] = dict(pk.env)
        except ninja.BuildFailed as e:
            pk.error = str(e)
    return out
