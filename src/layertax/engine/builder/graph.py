"""One ninja graph for everything a run builds: every C kernel and library, and every
generated tree (Go, Rust, Java kernels, an experiment's own programs), so that ninja keeps
both CPUs busy across all of them instead of building them one after another.

A C target is compiled in <staging>/<key>/ and published as cache/kernels/<key>; a tree is
written to <staging>/trees/<kind>-<key>/ and built there by its own build.ninja, which the
graph runs as one edge (so the tree keeps its build.ninja and .ninja_log for users to study, and its
log is the same as when it is built alone). Afterwards each finished piece is published
with one rename(2), as ninja.build_tree publishes a tree it builds alone; anything already
in the cache is not built again.
"""
from __future__ import annotations

import shutil
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from layertax import files
from layertax import scratch
from layertax.engine.builder import ninja

LOG, STATUS = ".layertax-build.log", ".layertax-build.status"


@dataclass
class GraphResult:
    # (key, name) -> the built file, or why it failed
    targets: dict[tuple[str, str], Path | ninja.BuildFailed] = field(default_factory=dict)
    built: int = 0     # how many targets and trees were not in the cache
    tree_logs: dict[tuple[str, str], str] = field(default_factory=dict)  # (kind, key) -> log of a tree built now

    def target(self, t: ninja.BuildTarget) -> Path | ninja.BuildFailed:
        return self.targets[(t.key(), t.name)]


def _tree_lines(trees: list[tuple[ninja.BuildTree, str]]) -> list[str]:
    """One edge per tree: its own ninja, run in its directory, its output kept in a log there.
    The edge itself always succeeds (the status file records the tree's), so one failing
    tree is reported by its own log, like a tree built alone, and stops nothing else."""
    ninja_bin = ninja.shell_quote(ninja.ninja_binary())
    pools = sorted({tree.pool for tree, _ in trees if tree.pool})
    lines = [line for p in pools for line in (f"pool {p}", "  depth = 1")]
    lines += ["rule tree",
             f"  command = cd $dir && {{ {ninja_bin} -k 0 $targets > {LOG} 2>&1; echo $$? > {STATUS}; }}",
             "  description = $label", ""]
    for tree, where in trees:
        targets = " ".join(ninja.shell_quote(t) for t in tree.targets)
        lines += [f"build {where}/{STATUS}: tree", f"  dir = {ninja.shell_quote(where)}",
                  f"  targets = {targets.replace('$', '$$')}",
                  f"  label = {tree.label or f'BUILD {tree.kind} tree'}",
                  *([f"  pool = {tree.pool}"] if tree.pool else []), ""]
    return lines


def build_graph(targets: list[ninja.BuildTarget], trees: list[ninja.BuildTree], cache_root: Path,
                busy: Callable[[str], AbstractContextManager] | None = None) -> GraphResult:
    """Builds, in one ninja run, the targets and trees that are not cached yet.

    busy(message) wraps the build when there is one (a spinner or heartbeat lines for the
    user); what it yields, if it has an update(text) method, is told every line ninja prints.
    The targets' results are in the returned GraphResult; a tree's result is where
    BuildTree.result finds it (or not, if it failed)."""
    result = GraphResult()
    kernels = cache_root / "kernels"
    kernels.mkdir(parents=True, exist_ok=True)
    todo: dict[tuple[str, str], ninja.BuildTarget] = {}
    for t in targets:
        key = t.key()   # a hash of every source and header: read once per target here
        binary = kernels / key / t.name
        if binary.is_file():
            result.targets[(key, t.name)] = binary
        else:
            todo[(key, t.name)] = t
    todo_trees = list({(t.kind, t.key): t for t in trees if not t.cached(cache_root)}.values())
    result.built = len(todo) + len(todo_trees)
    if not result.built:
        return result
    # Named by this process (scratch.py), so one a SIGKILL left behind is removed by a later build.
    scratch.sweep_abandoned((kernels,))
    staging = scratch.make_private_dir("staging", parent=kernels)
    try:
        placed = []
        for tree in todo_trees:
            where = f"trees/{tree.kind}-{tree.key}"
            (staging / where).mkdir(parents=True)
            tree.write(staging / where)
            placed.append((tree, where))
        lines = ninja.ninja_lines(list(todo.values())) + _tree_lines(placed)
        files.write_text("\n".join(lines), staging / "build.ninja")
        what = f"building {result.built} kernel{'s' if result.built != 1 else ''} (first run only; cached after)"
        with (busy or (lambda m: nullcontext()))(what) as status:
            update = getattr(status, "update", None)
            _, log = ninja.run_ninja(staging, on_line=update)
        for key, t in todo.items():
            if not (staging / key[0] / t.name).is_file():
                result.targets[key] = ninja.BuildFailed(f"build of kernel {t.name} failed: "
                                                         f"{ninja.first_error(log, key[0] + '/')}")
                continue
            ninja.publish_dir(staging / key[0], kernels / key[0])
            result.targets[key] = kernels / key[0] / t.name
        for tree, where in placed:
            built = staging / where
            tree_log = (built / LOG).read_text(encoding="utf-8", errors="replace") if (built / LOG).is_file() else log
            for name in (LOG, STATUS):
                (built / name).unlink(missing_ok=True)
            result.tree_logs[(tree.kind, tree.key)] = tree_log
            tree.publish(built, tree_log, cache_root)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return result


def build(targets: list[ninja.BuildTarget], cache_root: Path) -> dict[str, Path | ninja.BuildFailed]:
    """Builds the targets that are not cached; returns each one's binary, or why it failed."""
    got = build_graph(targets, [], cache_root)
    return {t.name: got.target(t) for t in targets}
