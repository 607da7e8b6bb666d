"""The kernel protocol for Python kernels, mirroring native/harness.c.

A Python kernel module defines PyCase objects and calls kernel_main(). The
harness times with time.perf_counter_ns (CLOCK_MONOTONIC on Linux), calibrates
the iteration count, verifies after every sample and prints JSON lines. It
imports nothing heavy, so start-up stays outside the measurement and small.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable

EXIT_OK, EXIT_FAIL, EXIT_SKIP = 0, 1, 3


class KernelSkip(Exception):
    """The case cannot run here (missing feature); not an error."""


class KernelFailure(Exception):
    """The case ran but produced a wrong result."""


@dataclass(frozen=True)
class PyCase:
    name: str
    description: str
    ops_per_iter: int
    setup: Callable[[str | None], Any]
    run: Callable[[Any, int], None]
    verify: Callable[[Any], None]
    teardown: Callable[[Any], None] = lambda state: None
    bytes_per_op: int = 0   # throughput cases: the bytes one operation processes (reported as GB/s)


def _emit(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _clock_overhead_ns() -> int:
    clock = time.perf_counter_ns
    return min(-(clock() - clock()) for _ in range(2000))


def _pin(cpu: int | None) -> tuple[bool, str]:
    if cpu is None:
        return False, "not requested"
    try:
        os.sched_setaffinity(0, {cpu})
        return True, f"cpu {cpu}"
    except OSError as e:
        return False, f"sched_setaffinity: {e.strerror}"


def _priority(raise_it: bool) -> str:
    if not raise_it:
        return "unchanged (not requested)"
    try:
        os.setpriority(os.PRIO_PROCESS, 0, -10)
        return "nice -10"
    except OSError as e:
        return f"unchanged (not permitted: {e.strerror})"


def _timed(case: PyCase, state: Any, iters: int) -> dict:
    r0 = resource.getrusage(resource.RUSAGE_THREAD)
    t0 = time.perf_counter_ns()
    case.run(state, iters)
    t1 = time.perf_counter_ns()
    r1 = resource.getrusage(resource.RUSAGE_THREAD)
    case.verify(state)
    return {
        "case": case.name,
        "iters": iters,
        "ops": iters * case.ops_per_iter,
        "ns": t1 - t0,
        "csw_vol": r1.ru_nvcsw - r0.ru_nvcsw,
        "csw_invol": r1.ru_nivcsw - r0.ru_nivcsw,
        "minflt": r1.ru_minflt - r0.ru_minflt,
    }


def _calibrate(case: PyCase, state: Any, min_ns: int) -> int:
    iters = 1
    while True:
        ns = _timed(case, state, iters)["ns"]
        if ns >= min_ns:
            return iters
        factor = min(100.0, max(2.0, 1.25 * min_ns / ns if ns else 100.0))
        iters = int(iters * factor) + 1


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description="a layertax Python kernel")
    p.add_argument("--case")
    p.add_argument("--samples", type=int, default=5)
    p.add_argument("--min-sample-ns", type=int, default=10_000_000)
    p.add_argument("--iters", type=int, default=0)
    p.add_argument("--dir")
    p.add_argument("--cpu", type=int)
    p.add_argument("--raise-priority", action="store_true")
    p.add_argument("--list", action="store_true")
    return p


def kernel_main(kernel: str, cases: list[PyCase], argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    by_name = {c.name: c for c in cases}
    if args.list:
        for c in cases:
            _emit({"case": c.name, "ops_per_iter": c.ops_per_iter})
        return EXIT_OK
    case = by_name.get(args.case)
    if case is None:
        _emit({"case": args.case, "error": "no such case in this kernel"})
        return EXIT_FAIL
    pinned, pin_why = _pin(args.cpu)
    prio = _priority(args.raise_priority)
    try:
        state = case.setup(args.dir)
    except KernelSkip as e:
        _emit({"case": case.name, "skip": str(e)})
        return EXIT_SKIP
    except Exception as e:  # a kernel must fail loudly, with its reason on one line
        _emit({"case": case.name, "error": f"setup: {type(e).__name__}: {e}"})
        return EXIT_FAIL
    try:
        _emit({
            "kernel": kernel, "case": case.name, "description": case.description,
            "language": "python", "runtime": f"{platform.python_implementation()} {platform.python_version()}",
            "executable": sys.executable, "clock": "perf_counter_ns (CLOCK_MONOTONIC)",
            "clock_res_ns": int(time.get_clock_info("perf_counter").resolution * 1e9),
            "clock_overhead_ns": _clock_overhead_ns(), "ops_per_iter": case.ops_per_iter,
            "pinned": pinned, "pin": pin_why, "priority": prio,
            **({"bytes_per_op": case.bytes_per_op} if case.bytes_per_op else {}),
        })
        iters = args.iters or _calibrate(case, state, args.min_sample_ns)
        for _ in range(args.samples):
            _emit(_timed(case, state, iters))
    except Exception as e:
        _emit({"case": case.name, "error": f"{type(e).__name__}: {e}"})
        return EXIT_FAIL
    finally:
        case.teardown(state)
    return EXIT_OK
