"""Two default runs, back to back: do their ratios agree, and does each say where not?

Runs `layertax run EXPERIMENT ...` twice with the default protocol (precision-driven rounds and
the budget; the experiments named share it as in one run), then for every ratio: do the two
95% intervals overlap, how far did the ratio move, and is it marked in each run: `~` (its
interval wider than the precision target), `*` (its rounds at two levels, so its median can
move by the gap), `!` (it differs between this machine's recent runs by more than their
intervals) or `^` (it runs on every CPU at once and follows the other CPUs' load)? The runs are
saved, as a default run is, so the second is set beside the first and both beside the
machine's earlier runs measured by the same code. Target (issue 59): the intervals of at least 95%
of the ratios overlap; a ratio that moved more than its interval (no overlap) is marked in both.

For each ratio that moved, it also prints the median of the first and of the second half of
each run's rounds: a move that happened inside a run shows there; one between the runs, with
each run steady, is one no figure of either run could have foretold.
Not a test: it measures.

    .venv/bin/python bench/back_to_back.py [--keep DIR] [EXPERIMENT ...] [-- extra run options]

--keep DIR keeps the two runs' JSON there (a.json, b.json), to look into a ratio that moved.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

from layertax.engine.analysis import between_runs, stats

from _common import finish, intervals_apart, layertax_export, ratios_to_baseline   # this folder's


def run(experiments: list[str], extra: list[str], out: Path) -> dict:
    return {e["name"]: e for e in layertax_export([*experiments, *extra], out, save=True)["experiments"]}


def halves(exp: dict, case: dict) -> str:
    """The median of the per-round ratios in the first and in the second half of the run's rounds
    ("1.203/1.257"); "?" where the run kept no samples."""
    ratios = np.array(ratios_to_baseline(exp, case))
    if ratios.size < 4:
        return "?"
    half = ratios.size // 2
    return f"{np.median(ratios[:half]):.3f}/{np.median(ratios[half:]):.3f} ({ratios.size} rounds)"


def _marks(exp: dict, case: str, ratio: dict, target: float) -> str:
    """The ratio's marks as the tables print them ("-": none)."""
    moved = between_runs.found(exp, case).get("moved")
    every_cpu = any(c.get("every_cpu") for c in exp["cases"] if c["name"] == case)
    marks = ("~" if stats.wider_than(ratio, target) else "") + ("*" if ratio.get("two_levels") else "") + \
        ("!" if moved else "") + ("^" if every_cpu else "")
    return marks or "-"


def main() -> int:
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []     # passed to both runs as they are
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     usage="%(prog)s [--keep DIR] [EXPERIMENT ...] [-- extra run options]")
    parser.add_argument("experiments", nargs="*", metavar="EXPERIMENT", default=["callchain", "tls"],
                        help="the experiments both runs measure (default: callchain tls)")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="keep the two runs' JSON there (a.json, b.json)")
    args = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    keep, experiments = args.keep, args.experiments
    if keep:
        keep.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        where = keep or Path(tmp)
        a = run(experiments, extra, where / "a.json")
        b = run(experiments, extra, where / "b.json")
    print(f"{' '.join(experiments)}: two default runs back to back (~: interval wider than the target; "
          "*: two levels; !: moved between this machine's recent runs; ^: on every CPU at once)")
    # What each run said of the machine while it ran (tasks outside it, steal time): a pair with
    # something else busy beside it is not two runs of one machine.
    for label, run_ in (("A", a), ("B", b)):
        for name, exp in run_.items():
            for warning in exp.get("warnings") or []:
                print(f"run {label}, {name}: {warning}")
    print(f"{'case':30} {'ratio A [95% CI]':>22} {'ratio B [95% CI]':>22} {'overlap':>7} {'moved':>7} {'A/B':>7}")
    compared = overlaps = apart = marked = 0
    moved = []
    for name in experiments:
        if name not in a or name not in b:
            continue
        target_a, target_b = stats.precision_target(a[name]), stats.precision_target(b[name])
        cases_b = {c["name"]: c for c in b[name]["cases"]}
        for ca in a[name]["cases"]:
            cb = cases_b.get(ca["name"])
            ra = (ca.get("stats") or {}).get("ratio")
            rb = ((cb or {}).get("stats") or {}).get("ratio")
            if not ra or not rb:
                continue
            compared += 1
            overlap = not intervals_apart(ra, rb)
            marks = (_marks(a[name], ca["name"], ra, target_a), _marks(b[name], ca["name"], rb, target_b))
            overlaps += overlap
            if not overlap:
                apart += 1
                marked += all(m != "-" for m in marks)
                moved.append(f"{name}/{ca['name']}: A {halves(a[name], ca)}, B {halves(b[name], cb)}")
            text_a = f"{ra['median']:.3f} [{ra['ci95'][0]:.3f}, {ra['ci95'][1]:.3f}]"
            text_b = f"{rb['median']:.3f} [{rb['ci95'][0]:.3f}, {rb['ci95'][1]:.3f}]"
            print(f"{(name + '/' + ca['name'])[:30]:30} {text_a:>22} {text_b:>22} {'yes' if overlap else 'NO':>7} "
                  f"{rb['median'] / ra['median'] - 1:>+7.1%} {'/'.join(marks):>7}")
    print(f"ratio intervals overlapping: {overlaps} of {compared}; of the {apart} apart, marked in both runs: {marked}")
    for label, run_ in (("A", a), ("B", b)):
        earlier = sorted({e.get("between_runs", {}).get("runs", 0) for e in run_.values()})
        print(f"run {label} was set beside {'/'.join(map(str, earlier))} earlier runs here measured by the same code")
    if moved:
        print("where they moved: the median ratio of the first/second half of each run's rounds")
        for line in moved:
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    finish(main)
