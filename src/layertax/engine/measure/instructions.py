"""Instructions per operation under callgrind, and the layers they are spent in.

Instruction counts do not depend on machine noise. A case runs twice under
callgrind with fixed iteration counts N1 < N2 (`--iters N --samples 1`);
everything done once (start-up, setup, warm-up, verification) is the same in
both, so (I(N2) - I(N1)) / ((N2 - N1) x ops per iteration) is the user-space
instructions of one operation. The same difference, taken per object and per
call arc, attributes them to layers (the program, libc, ld.so, the
interpreter) and gives the chain of functions from the loop down to the
system call, each with its inclusive instructions per operation. The kernel's
own time in the system call is not counted: callgrind sees user space only.

JIT runtimes (Java, Node) are skipped: their generated code has no symbols and
the counts would include the compiler's work. Go is counted with its garbage
collector off (GOGC=off: a collection's timing would make the two runs differ),
one P (GOMAXPROCS=1), and without a chain: callgrind does not follow goroutine
stack switches (morestack, systemstack), so its call arcs in Go programs are
wrong. Go is counted only inside the harness's timed call (callgrind's
--toggle-collect=main.timed): the runtime's start-up and exit do timing-dependent
work (threads started, the page allocator's state) that made whole runs of the
same size differ by up to 1%, while the timed call of a short run repeats to the
instruction. The harness grows the heap once just before the case, and takes
pages on until its span-structure cache has just been refilled (LAYERTAX_FRESH_HEAP),
so a heap growth (some 60,000 instructions with GOGC=off) or a refill (4,500) does
not fall inside the call in one run and before it in the next. Inside the
call the runtime still does a little timing-dependent work (a system call's P
handed off and taken back), which only ever adds instructions: so each Go run is
made several times and the fewest instructions kept, with ASLR off where allowed
(engine/aslr.py), because a different layout makes Go's heap grow differently.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path

from layertax.engine.measure import aslr, callgrind, valgrind_log
from layertax.engine.builder import toolchain
from layertax.engine.measure.fixed_run import fixed_run
from layertax.scratch import make_private_dir

ITERS = (100, 3100)  # a wide span: what varies once per run (printing a time's digits) shrinks per op
JIT_KINDS = {"java", "node"}
NO_CHAIN_KINDS = {"go"}
# Go's page allocator does a little timing-dependent work (how far it searches for
# free pages depends on what other threads did meanwhile): up to +1% in one run.
# Such kinds are run several times and the run with the fewest instructions is used.
REPEATS = {"go": 7}
# Kinds counted only inside one function of their harness, the one that runs the timed
# loop (with its clock reads and the case's verification, the same in both runs):
# what a runtime does before and after it varies from run to run.
COLLECT_ONLY_IN = {"go": "main.timed"}
# Kinds run with ASLR off: a different layout makes Go's heap grow a different number
# of times. Not the others: Python's counts repeat with ASLR on (0.004%) and were
# seen to move by 0.3% with it off (pathlib), so the default layout stays for them.
FIXED_LAYOUT_KINDS = {"go"}
# A counted run sees only these of the caller's variables (and the locale's LC_*), a fixed
# PATH, and "/" as its working directory. Python copies the environment and the directory
# onto its heap at start-up, so they set how full each pool of its small-object allocator
# is when the case starts, and so how often the case's allocations take the allocator's
# slow path: one extra 35-byte variable moved Python shutil.move by 0.3% (30 instructions
# per operation, all in _PyObject_Malloc and _PyObject_Free). What is kept is what a kernel
# may legitimately depend on (the locale decides Python's file-name encoding).
INHERITED_VARIABLES = ("HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR")
FIXED_PATH = "/usr/local/bin:/usr/bin:/bin"   # every kernel is started by its absolute path
COUNTING_CWD = "/"
# Arcs below this share of the loop's instructions are left out of the chain.
CHAIN_MIN_SHARE = 0.02
CHAIN_MAX_DEPTH = 14


def available() -> bool:
    return toolchain.available("valgrind")


def counting_environment(inherited: Mapping[str, str], extra: Mapping[str, str]) -> dict[str, str]:
    """The environment of a counted run: the few inherited variables a kernel may depend on,
    a fixed PATH, and the experiment's and kernel's own variables (extra)."""
    kept = {k: v for k, v in inherited.items() if k in INHERITED_VARIABLES or k.startswith("LC_")}
    return {**kept, "PATH": FIXED_PATH, **extra}


VALGRIND_LOG = "valgrind.log"


def _callgrind_run(argv: list[str], env: dict, iters: int, workroot: Path, timeout: float,
                   fixed_layout: bool = False, collect_in: str | None = None) -> tuple[callgrind.Profile, dict]:
    """(the profile of the thread that ran the loop, the kernel's descriptor) of one run.

    Threads are recorded apart (--separate-threads) because a runtime's background
    threads (Go's sysmon and scheduler) do timing-dependent work that would make two
    runs differ; the loop's own thread (the busiest) is what the operation costs.
    collect_in: count only while inside this function (callgrind's --toggle-collect)."""
    valgrind = toolchain.find("valgrind").path
    only = [f"--toggle-collect={collect_in}"] if collect_in else []
    # valgrind's log (verbose: where it mapped each object, plt_stubs.py) goes to a file, so that
    # the kernel's stderr stays its own.
    tool = lambda d: [valgrind, "--tool=callgrind", f"--callgrind-out-file={d / 'callgrind.out'}",  # noqa: E731
                      "--compress-strings=yes", "--collect-systime=yes", "--separate-threads=yes", *only,
                      *valgrind_log.VERBOSE, f"--log-file={d / VALGRIND_LOG}"]
    with fixed_run(tool, argv, env, iters, workroot, timeout,
                   preexec=aslr.preexec_without_aslr() if fixed_layout else None,
                   cwd=COUNTING_CWD, valgrind_log=VALGRIND_LOG) as (workdir, descriptor):
        files = sorted(workdir.glob("callgrind.out*"))
        if not files:
            raise RuntimeError("callgrind wrote no profile")
        # Imported here: it reads ELF files with pyelftools (about 0.1 s to load), which every
        # command that imports the engine (a timed run, a refused one) would otherwise pay.
        from layertax.engine.measure import plt_stubs

        mapped = valgrind_log.biases(valgrind_log.read(workdir / VALGRIND_LOG))
        profiles = [plt_stubs.named(callgrind.parse(f.read_text(errors="replace")), mapped) for f in files]
        busiest = max(profiles, key=lambda p: p.total)
        if busiest.total <= 0:
            # e.g. the function to count in was renamed or inlined: say so rather than report 0
            raise RuntimeError(f"callgrind counted no instructions{f' inside {collect_in}' if collect_in else ''}")
        return busiest, descriptor


class Difference:
    """What N2 - N1 iterations cost, per operation: per function, per arc, per object."""

    def __init__(self, small: callgrind.Profile, large: callgrind.Profile, span_ops: int):
        self.span = span_ops
        self.total = (large.total - small.total) / span_ops
        self.self_cost = {f: (large.self_cost.get(f, 0) - small.self_cost.get(f, 0)) / span_ops
                          for f in set(large.self_cost) | set(small.self_cost)}
        self.self_syscalls = {f: (large.self_syscalls.get(f, 0) - small.self_syscalls.get(f, 0)) / span_ops
                              for f in set(large.self_syscalls) | set(small.self_syscalls)}
        # caller -> callee -> (inclusive instructions, calls, inclusive system calls), per operation
        self.out: dict[callgrind.Func, dict[callgrind.Func, tuple[float, float, float]]] = defaultdict(dict)
        for arc in set(large.calls) | set(small.calls):
            cost = (large.calls.get(arc, 0) - small.calls.get(arc, 0)) / span_ops
            count = (large.call_counts.get(arc, 0) - small.call_counts.get(arc, 0)) / span_ops
            sys = (large.call_syscalls.get(arc, 0) - small.call_syscalls.get(arc, 0)) / span_ops
            if arc[0] != arc[1]:
                self.out[arc[0]][arc[1]] = (cost, count, sys)
        big, little = large.by_object(), small.by_object()
        objects = {o: (big.get(o, 0) - little.get(o, 0)) / span_ops for o in set(big) | set(little)}
        self.by_object = {o: round(n, 2) for o, n in sorted(objects.items(), key=lambda kv: -kv[1]) if round(n, 2)}

    def inclusive(self, fn) -> float:
        return self.self_cost.get(fn, 0.0) + sum(c for c, _, _ in self.out.get(fn, {}).values())

    def inclusive_syscalls(self, fn) -> float:
        return self.self_syscalls.get(fn, 0.0) + sum(n for _, _, n in self.out.get(fn, {}).values())

    def loop_function(self):
        """The case's loop: the deepest function that leads to the operation's system calls
        and still holds nearly all the difference. Only functions with system calls below
        them are followed, so work that merely grows with the run (output, a runtime's
        bookkeeping) cannot be taken for the loop."""
        candidates = [f for f in set(self.self_cost) | set(self.out) if self.inclusive_syscalls(f) >= 0.5]
        if not candidates:
            return None
        fn = max(candidates, key=self.inclusive)
        seen = {fn}
        while True:
            here = self.inclusive(fn)
            children = [(c, callee) for callee, (c, _, sys) in self.out.get(fn, {}).items()
                        if callee not in seen and sys >= 0.5]
            if not children:
                return fn
            cost, callee = max(children)
            if cost < 0.97 * here:
                return fn
            fn = callee
            seen.add(fn)

    def chain(self, fn, floor: float, path=(), scale: float = 1.0) -> dict:
        """The call tree below fn: arcs that cost at least `floor` instructions per operation,
        and every arc that leads to a system call (so the chain always reaches the kernel).

        callgrind keeps one level of call context: a function called from several places has
        one set of outgoing arcs. Below such a function the arcs are split in proportion to
        what this caller's calls cost of its total (scale), as gprof does."""
        node = {"function": fn[1], "object": fn[0], "instructions": round(scale * self.inclusive(fn), 2),
                "self": round(scale * self.self_cost.get(fn, 0.0), 2), "children": []}
        own_sys = scale * self.self_syscalls.get(fn, 0.0)
        if own_sys >= 0.5:
            node["syscalls_here"] = round(own_sys, 3)   # this function executed the system call instruction
        if len(path) >= CHAIN_MAX_DEPTH:
            return node
        for callee, (cost, count, sys) in sorted(self.out.get(fn, {}).items(), key=lambda kv: -kv[1][0]):
            cost, count, sys = scale * cost, scale * count, scale * sys
            if (cost < floor and sys < 0.5) or callee in path or callee == fn:
                continue
            total = self.inclusive(callee)
            child = self.chain(callee, floor, (*path, fn), min(1.0, cost / total) if total > 0 else 0.0)
            child["instructions"] = round(cost, 2)     # what this caller's calls to it cost
            child["calls"] = round(count, 3)
            child["syscalls"] = round(sys, 3)
            node["children"].append(child)
        return node


def count(argv: list[str], env: dict, workroot: Path, timeout: float = 600, with_chain: bool = True,
          repeats: int = 1, fixed_layout: bool = False, iters: tuple[int, int] | None = None,
          collect_in: str | None = None) -> dict:
    """Instructions per operation of one case (argv already names the case), by object, and its chain.

    With repeats > 1 each of the two runs is made that many times and the one with
    the fewest instructions is used; every run's total is kept. iters: the two iteration
    counts (default ITERS; an experiment whose operation is long asks for fewer).
    collect_in: count only inside this function of the kernel (see COLLECT_ONLY_IN)."""
    iters = iters or ITERS
    # Python's string hashing must not vary between the two runs; Go's asynchronous
    # preemption signals (SIGURG) trip an assertion in callgrind's signal handling.
    # With one P, a Go kernel leaving a system call always gets its own P (and its
    # allocation cache) back, whichever thread held it meanwhile.
    # Go's harness grows the heap once before the case (LAYERTAX_FRESH_HEAP: see harness.go),
    # so that heap growth, some 60,000 instructions, does not fall at a timing-dependent point.
    env = {**env, "PYTHONHASHSEED": "0", "GOGC": "off", "GOMAXPROCS": "1", "LAYERTAX_FRESH_HEAP": "1",
           "GODEBUG": ",".join(filter(None, [env.get("GODEBUG"), "asyncpreemptoff=1"]))}
    # One uncounted run first: whatever a kernel's first run does once per installation
    # (Python compiling and writing a changed module's .pyc, some 20 million instructions)
    # must not fall into the first counted run only.
    with fixed_run(lambda d: [], argv, env, iters[0], workroot, timeout, cwd=COUNTING_CWD):
        pass
    runs: dict[int, list[callgrind.Profile]] = {n: [] for n in iters}
    for _ in range(max(1, repeats)):
        for n in iters:
            profile, descriptor = _callgrind_run(argv, env, n, workroot, timeout, fixed_layout, collect_in)
            runs[n].append(profile)
    ops_per_iter = descriptor.get("ops_per_iter", 1)
    # Timing-dependent runtime work (Go's page allocator) only ever adds instructions:
    # of several runs of one size, the one with the fewest has the least of it.
    small, large = (min(runs[n], key=lambda p: p.total) for n in iters)
    diff = Difference(small, large, (iters[1] - iters[0]) * ops_per_iter)
    if diff.total <= 0:
        raise RuntimeError(f"the {iters[0]}-iteration run counted {small.total:,} instructions and the "
                           f"{iters[1]}-iteration run {large.total:,}: something done once fell into one run only")
    loop = diff.loop_function() if with_chain else None
    chain = diff.chain(loop, max(CHAIN_MIN_SHARE * diff.inclusive(loop), 0.5)) if loop else None
    method = f"callgrind, difference of {iters[1]} and {iters[0]} iterations (user-space instructions)"
    if collect_in:
        method += f"; counted only inside {collect_in} (callgrind --toggle-collect)"
    if repeats > 1:
        method += f"; fewest instructions of {repeats} runs of each"
    result = {"per_op": round(diff.total, 2), "by_object": diff.by_object, "chain": chain, "iters": list(iters),
              "totals": [small.total, large.total], "ops_per_iter": ops_per_iter,
              "raw_by_object": [small.by_object(), large.by_object()],
              "aslr_off": fixed_layout and aslr.can_disable(), "descriptor": descriptor,
              "method": method}
    if collect_in:
        result["collected_in"] = collect_in
    if repeats > 1:
        result["all_totals"] = [[p.total for p in runs[n]] for n in iters]
        # How far the runs' floor is from settled: the two fewest of each size differ by
        # this, per operation, as a share of the result (0 when each floor was hit twice).
        gaps = [sorted(totals)[1] - sorted(totals)[0] for totals in result["all_totals"]]
        result["floor_gap"] = round(sum(gaps) / (diff.span * diff.total), 6)   # diff.total > 0: checked above
    return result


def skip_reason(kind: str) -> str | None:
    if kind in JIT_KINDS:
        return f"{kind}: JIT-compiled code, so instruction counts would include the compiler (use the time metric)"
    return None



METHOD = (f"user-space instructions under valgrind's callgrind: each case run with two fixed iteration counts "
          f"({ITERS[0]} and {ITERS[1]} unless the experiment sets its own; each case records its pair), "
          "the difference divided by the operations between them")
NO_CHAIN = "no chain: callgrind does not follow goroutine stack switches, so its call arcs in Go programs are wrong"


def measure_experiment(exp, kernels: dict, patterns: tuple[str, ...], settings, progress,
                       note=lambda message: None) -> tuple[dict, bool]:
    """Every selected case of an experiment counted under callgrind; the result in the run's shape."""
    from layertax.engine.measure.scheduler import open_shared_input

    workroot = make_private_dir(f"{exp.name}-instructions")
    try:
        with open_shared_input(exp, settings, workroot, note, progress) as shared:
            return _measure_cases(exp, kernels, patterns, settings.timeout, progress, workroot, shared)
    finally:
        shutil.rmtree(workroot, ignore_errors=True)


def _measure_cases(exp, kernels: dict, patterns: tuple[str, ...], timeout: float, progress, workroot: Path,
                   shared) -> tuple[dict, bool]:
    from layertax.engine.analysis import analyze
    from layertax.engine.measure.scheduler import CaseRun, experiment_result, select_cases

    runs = [CaseRun.of(case, kernels[case.kernel]) for case in select_cases(exp, patterns)]
    interrupted = False
    shared_env = shared.env if shared else {}
    progress.start(exp.name, len(runs))
    try:
        for run in runs:
            progress.step(f"callgrind {run.case.name}")
            why = skip_reason(run.kernel.kind)
            if run.active and why:
                run.status, run.reason = "skipped", why
            if not run.active:
                continue
            chain = run.kernel.kind not in NO_CHAIN_KINDS
            try:
                run.instructions = count([*run.kernel.argv, "--case", run.case.name],
                                         counting_environment(os.environ, {**shared_env, **run.kernel.env}),
                                         workroot, timeout=max(timeout, 600), with_chain=chain,
                                         repeats=REPEATS.get(run.kernel.kind, 1),
                                         iters=exp.difference_iters,
                                         fixed_layout=run.kernel.kind in FIXED_LAYOUT_KINDS,
                                         collect_in=COLLECT_ONLY_IN.get(run.kernel.kind))
            except (RuntimeError, OSError, subprocess.SubprocessError) as e:
                run.status, run.reason = "failed", str(e)
                continue
            run.descriptor = run.instructions.pop("descriptor")
            if not chain:
                run.instructions["chain_note"] = NO_CHAIN
    except KeyboardInterrupt:
        interrupted = True
    finally:
        progress.finish(stopped=interrupted)
    measured = {"input": shared.info} if shared else {}
    result = experiment_result(exp, kernels, runs, interrupted, unit="instructions/op", metric="instructions",
                               valgrind=toolchain.find("valgrind").version, **measured)
    return analyze.instructions_analyzed(result), interrupted
