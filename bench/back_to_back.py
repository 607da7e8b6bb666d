"""Two default runs of one experiment, back to back: do they agree, and does each say where not?

Runs `layertax run EXPERIMENT` twice with the default protocol (precision-driven rounds and
the budget), then for every case: do the two ratio intervals overlap, how far did the median
move, and is a case whose median moved more than 5% flagged noisy (~) in both runs?
Target (issue 24): every ratio interval overlaps; every move over 5% flagged in both runs.
Not a test: it measures.

    .venv/bin/python bench/back_to_back.py [EXPERIMENT] [-- extra run options]
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path


def run(experiment: str, extra: list[str], out: Path) -> dict:
    subprocess.run([sys.executable, "-m", "layertax", "run", experiment, "--no-save", "--export-json", str(out),
                    *extra], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return json.loads(out.read_text())["experiments"][0]


def main() -> int:
    args = sys.argv[1:]
    extra = args[args.index("--") + 1:] if "--" in args else []
    args = args[:args.index("--")] if "--" in args else args
    experiment = args[0] if args else "callchain"
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        a = run(experiment, extra, Path(tmp) / "a.json")
        b = run(experiment, extra, Path(tmp) / "b.json")
    cases_b = {c["name"]: c for c in b["cases"]}
    print(f"{experiment}: two default runs back to back")
    print(f"{'case':26} {'ratio A [95% CI]':>22} {'ratio B [95% CI]':>22} {'overlap':>7} {'median moved':>12} "
          f"{'noisy A/B':>9}")
    overlaps = flagged = moved = 0
    for ca in a["cases"]:
        cb = cases_b.get(ca["name"])
        if not cb or not ca.get("stats") or not cb.get("stats"):
            continue
        ra, rb = ca["stats"].get("ratio"), cb["stats"].get("ratio")
        move = cb["stats"]["median"] / ca["stats"]["median"] - 1
        noisy = (bool(ca["stats"]["warnings"]), bool(cb["stats"]["warnings"]))
        if ra and rb:
            overlap = ra["ci95"][0] <= rb["ci95"][1] and rb["ci95"][0] <= ra["ci95"][1]
            overlaps += overlap
            text_a = f"{ra['median']:.3f} [{ra['ci95'][0]:.3f}, {ra['ci95'][1]:.3f}]"
            text_b = f"{rb['median']:.3f} [{rb['ci95'][0]:.3f}, {rb['ci95'][1]:.3f}]"
        else:
            overlap, text_a, text_b = None, "(baseline)", "(baseline)"
        if abs(move) > 0.05:
            moved += 1
            flagged += all(noisy)
        print(f"{ca['name'][:26]:26} {text_a:>22} {text_b:>22} {'-' if overlap is None else ('yes' if overlap else 'NO'):>7} "
              f"{move:>+12.1%} {'/'.join('~' if n else '-' for n in noisy):>9}")
    compared = sum(1 for c in a["cases"] if (c.get("stats") or {}).get("ratio"))
    print(f"ratio intervals overlapping: {overlaps} of {compared}; medians moved > 5%: {moved}, "
          f"flagged noisy in both runs: {flagged}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
