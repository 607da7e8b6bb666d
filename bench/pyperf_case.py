"""One case of encoding's Python kernel timed by pyperf, for bench/inprocess_vs_pyperf.py.

The work is the kernel's own: the PyCase's run(state, loops) between two perf_counter reads,
its verify() after every value, its setup in a private temporary directory made in each
worker and removed when the worker exits. pyperf's Runner owns everything else (its worker
processes, calibration, warm-up, values per process): run it as a pyperf script, e.g.

    .venv/bin/python bench/pyperf_case.py --case py-stat-str -o out.json --affinity 1
"""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pyperf

from layertax.experiments.encoding.kernels.encoding_py import CASES

BY_NAME = {case.name: case for case in CASES}


class Prepared:
    """The case's state, set up on the first timed call: only workers time, and the
    manager process must not chdir into a directory it never removes."""

    def __init__(self, case):
        self.case, self.state = case, None

    def __call__(self, loops: int) -> float:
        if self.state is None:
            # The same depth and name lengths as layertax's own work directory
            # (<tmp>/layertax-run-p<pid>-<random>/<case>-<random>): stat and readlink walk
            # every component of the path, so a shorter path would be less work.
            top = tempfile.mkdtemp(prefix=f"layertax-run-p{os.getpid()}-")
            atexit.register(shutil.rmtree, top, ignore_errors=True)
            self.state = self.case.setup(tempfile.mkdtemp(prefix=f"{self.case.name}-", dir=top))
            atexit.register(self.case.teardown, self.state)   # runs first: leave, then remove
        start = pyperf.perf_counter()
        self.case.run(self.state, loops)
        elapsed = pyperf.perf_counter() - start
        self.case.verify(self.state)
        return elapsed


def main() -> None:
    runner = pyperf.Runner(add_cmdline_args=lambda cmd, args: cmd.extend(["--case", args.case]))
    runner.argparser.add_argument("--case", required=True, choices=sorted(BY_NAME))
    args = runner.parse_args()
    case = BY_NAME[args.case]
    runner.bench_time_func(case.name, Prepared(case), inner_loops=case.ops_per_iter)


if __name__ == "__main__":
    main()
