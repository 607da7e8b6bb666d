"""`layertax launch` of one command with the pinned CPU's periodic interruptions dodged (the
default) and started at once (--no-dodge), in alternating turns (ABBA: neither always first).

Per turn it prints the median and IQR/median of the command's figure (spawn->main when it
stamps, spawn->exit otherwise), how many launches an interruption landed in (the figure
longer than the time the launch had before the next one) and how many were started clear
(until exit, or until main only); then each way's median of turn medians and of IQR/median,
and the paired ratio of turn medians (dodged / at once: their median, and in how many turns
the dodged one was lower). Not a test: it measures, and these machines are shared.

    .venv/bin/python bench/dodge_or_not.py [--turns 10] [--runs 150] -- COMMAND [ARG...]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np


def one_turn(command: list[str], runs: int, dodge: bool, out: Path) -> dict:
    """One `layertax launch` run: the figure's median and IQR/median, launches met and dodged."""
    done = subprocess.run([sys.executable, "-m", "layertax", "launch", "--runs", str(runs), "--no-save", "-i",
                           "--export-json", str(out), *([] if dodge else ["--no-dodge"]), "--", *command],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:   # a command that cannot start: layertax's own one line says why
        lines = done.stderr.strip().splitlines()
        raise SystemExit(f"dodge_or_not.py: {lines[-1] if lines else f'layertax launch exited {done.returncode}'}")
    samples = json.loads(out.read_text())["experiments"][0]["cases"][0]["samples"]
    key = "main_ns" if all(s["main_ns"] is not None for s in samples) else "exit_ns"
    figure = np.array([s[key] for s in samples]) / 1e3
    q1, median, q3 = np.percentile(figure, [25, 50, 75])
    met = sum(1 for s in samples if s["clear_ns"] is not None and s[key] > s["clear_ns"])
    until = {u: sum(1 for s in samples if s.get("dodged_until") == u) for u in ("exit", "main")}
    return {"figure": key.removesuffix("_ns"), "median": float(median), "spread": float((q3 - q1) / median),
            "met": met, "n": len(samples), **until}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=10, help="turns of each way (alternating, ABBA)")
    parser.add_argument("--runs", type=int, default=150, help="launches per turn")
    parser.add_argument("command", nargs="+", help="the command, after --")
    args = parser.parse_args()
    if args.turns < 2 or args.runs < 20:
        parser.error("--turns at least 2 and --runs at least 20")
    got: dict[bool, list[dict]] = {True: [], False: []}
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        out = Path(tmp) / "launch.json"
        for turn in range(args.turns):
            for dodge in ((True, False) if turn % 2 == 0 else (False, True)):
                r = one_turn(args.command, args.runs, dodge, out)
                got[dodge].append(r)
                print(f"turn {turn + 1:>2} {'dodged' if dodge else 'at once':<8} spawn->{r['figure']} median "
                      f"{r['median']:8.1f} µs, IQR/median {r['spread']:.3f}; met one {r['met']:>3}/{r['n']}, "
                      f"started clear until exit {r['exit']:>3}, until main {r['main']:>3}", flush=True)
    for dodge in (True, False):
        medians, spreads = [r["median"] for r in got[dodge]], [r["spread"] for r in got[dodge]]
        print(f"{'dodged' if dodge else 'at once':<8} median of turn medians {np.median(medians):.1f} µs, "
              f"median IQR/median {np.median(spreads):.3f}")
    ratios = [d["median"] / a["median"] for d, a in zip(got[True], got[False])]
    print(f"dodged / at once, turn by turn: median {np.median(ratios):.3f} "
          f"({min(ratios):.3f}-{max(ratios):.3f}), dodged lower in {sum(r < 1 for r in ratios)} of {len(ratios)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
