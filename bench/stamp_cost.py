"""What the stamp preload costs, against the floor: an empty preloaded object.

Launches layertax's empty program bare; with an empty shared object preloaded, built two
ways: the floor (no code, no start files, no libc: the least any LD_PRELOAD costs) and as
`cc -shared` builds it by default (start files, libc, binutils' four-segment layout with
RELRO: what a typical small preload costs); with the main-only stamp library (`launch`)
and with the phases stamp (`inspect`). Interleaved round by round by the launch timer, it
prints each preload's extra spawn->exit over the bare program, paired per round (median
and its 95% interval), and the stamps' cost over the floor's. Target (issue 23): the
main-only stamp within 25% of the floor. Not a test: it measures.

    .venv/bin/python bench/stamp_cost.py [--runs 1000] [--repeat 3]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path


from layertax import paths
from layertax.engine.analysis import analyze, stats
from layertax.engine.measure.settings import default_cpu
from layertax.launch import settings as launch_settings
from layertax.launch import tools as launch_tools
from layertax.launch.assembly import launch_cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    tools = launch_tools.tools(paths.cache_dir())
    with tempfile.TemporaryDirectory(prefix="layertax-bench-") as tmp:
        source = Path(tmp) / "nothing.c"
        source.write_text("/* an object with nothing in it */\n")
        floor_lib, default_lib = Path(tmp) / "libfloor.so", Path(tmp) / "libdefault.so"
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-nostdlib", "-o", str(floor_lib), str(source)], check=True)
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(default_lib), str(source)], check=True)
        empty = (str(tools.empty),)
        targets = [launch_settings.Target("bare", empty),
                   launch_settings.Target("empty preload (floor)", empty, (("LD_PRELOAD", str(floor_lib)),)),
                   launch_settings.Target("empty preload, cc default", empty, (("LD_PRELOAD", str(default_lib)),)),
                   launch_settings.Target("stamp (launch)", empty, (("LD_PRELOAD", str(tools.stamp_lib)),)),
                   launch_settings.Target("stamp + phases (inspect)", empty, (("LD_PRELOAD", str(tools.stamp_phases_lib)),))]
        print(f"{args.runs} launches of each, interleaved; extra spawn->exit over the bare empty program, "
              "paired per round: median [95% CI] in µs")
        for rep in range(1, args.repeat + 1):
            settings = launch_settings.LaunchSettings(runs=args.runs, warmup=5, seed=rep, cpu=default_cpu(), raise_priority=True)
            cases = launch_cases(targets, settings, tools).cases
            values = {name: analyze.round_values(case, "exit_ns") for name, case in cases.items()}
            extra = {}
            for name in list(cases)[1:]:
                d = stats.paired_difference(values[name], values["bare"])
                extra[name] = d["median"] / 1e3
                lo, hi = (v / 1e3 for v in d["ci95"])
                print(f"  run {rep}: {name:26} {extra[name]:6.1f} [{lo:5.1f}, {hi:5.1f}]")
            floor = extra["empty preload (floor)"]
            over = stats.paired_difference(values["stamp (launch)"], values["empty preload (floor)"])
            lo, hi = (v / 1e3 for v in over["ci95"])
            print(f"  run {rep}: stamp (launch) / floor = {extra['stamp (launch)'] / floor:.2f}x "
                  f"(stamp - floor, paired: {over['median'] / 1e3:.1f} [{lo:.1f}, {hi:.1f}] µs); "
                  f"stamp + phases / floor = {extra['stamp + phases (inspect)'] / floor:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
