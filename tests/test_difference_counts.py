"""Deterministic layer costs: system calls per operation (strace) and instructions per
operation (callgrind), each by the difference of two runs, and the kernels in other languages."""
import contextlib
import os
import shutil
from collections import Counter

import pytest

from layertax import experiments
from layertax.engine.measure import callgrind, instructions, syscalls
from layertax.engine.builder import kernels, toolchain
from layertax.engine.builder.kernels import PreparedKernel
from layertax.engine.measure.scheduler import Scheduler
from layertax.engine.measure.settings import Settings

needs_valgrind = pytest.mark.skipif(not instructions.available(), reason="valgrind not installed")
needs_strace = pytest.mark.skipif(not syscalls.available(), reason="strace not installed")


# ---- the callgrind format ---------------------------------------------------------------------------------

CALLGRIND = """# callgrind format
version: 1
events: Ir sysCount sysTime
ob=(1) /usr/bin/prog
fl=(1) prog.c
fn=(1) loop
5 100
cob=(2) /lib/libc.so.6
cfi=(2) rename.c
cfn=(2) rename
calls=10 0
6 50 10 7
fn=(3) main
cfn=(1)
calls=1 0
9 160 10 7
+1 4
ob=(2)
fl=(2)
fn=(2)
0 40 10 7
totals: 204 10 7
"""


def test_callgrind_parser_reads_costs_arcs_and_system_calls():
    p = callgrind.parse(CALLGRIND)
    loop, rename, main = ("prog", "loop"), ("libc.so.6", "rename"), ("prog", "main")
    assert p.total == 204
    assert p.self_cost[loop] == 100 and p.self_cost[main] == 4 and p.self_cost[rename] == 40
    assert p.calls[(loop, rename)] == 50 and p.call_counts[(loop, rename)] == 10
    assert p.calls[(main, loop)] == 160            # "cfn=(1)" refers back to the compressed name
    assert p.call_syscalls[(loop, rename)] == 10 and p.self_syscalls[rename] == 10
    assert p.by_object() == {"prog": 104, "libc.so.6": 40}
    assert p.inclusive(loop) == 150


def test_difference_cancels_what_is_done_once_and_finds_the_loop():
    small, large = callgrind.parse(CALLGRIND), callgrind.parse(CALLGRIND)
    for prof, n in ((small, 10), (large, 30)):          # start-up 1000, loop 10/iter, rename 5/iter
        prof.self_cost[("prog", "start")] = 1000
        prof.self_cost[("prog", "loop")] = 10 * n
        prof.self_cost[("libc.so.6", "rename")] = 4 * n
        prof.calls[(("prog", "loop"), ("libc.so.6", "rename"))] = 5 * n
        prof.call_counts[(("prog", "loop"), ("libc.so.6", "rename"))] = n
        prof.call_syscalls[(("prog", "loop"), ("libc.so.6", "rename"))] = n
        prof.self_syscalls[("libc.so.6", "rename")] = n
        prof.calls[(("prog", "main"), ("prog", "loop"))] = 15 * n
        prof.call_syscalls[(("prog", "main"), ("prog", "loop"))] = n
        prof.total = 1000 + 15 * n
    d = instructions.Difference(small, large, 20)
    assert d.total == 15
    assert d.loop_function() == ("prog", "loop")
    chain = d.chain(("prog", "loop"), 0.5)
    assert chain["instructions"] == 15 and chain["children"][0]["function"] == "rename"
    assert chain["children"][0]["calls"] == 1 and chain["children"][0]["syscalls"] == 1


@needs_valgrind
def test_instruction_difference_on_a_kernel_with_a_known_count(probe_binary, tmp_path):
    """102 instructions per iteration by construction, 2 ops per iteration: 51 per op.

    Not to the last instruction in total: what the harness does around the loop in libc
    (printing each sample's time, whose digits depend on how long it took) differs by up to
    a couple of hundred instructions between two runs on a busy machine (51.03 per op in
    clean-clone `make test` runs), i.e. up to 0.06 per op over the 6,000 operations of the
    difference; a missed loop instruction would be 0.5. The kernel's own object is exact."""
    first = instructions.count([str(probe_binary), "--case", "asm102"], dict(os.environ), tmp_path)
    again = instructions.count([str(probe_binary), "--case", "asm102"], dict(os.environ), tmp_path, repeats=3)
    assert abs(first["per_op"] - 51.0) <= 0.06   # the printed times' digits, in libc
    assert abs(again["per_op"] - first["per_op"]) <= 0.001 * first["per_op"]
    # repeated runs: every run's total kept, and the smallest of each size used
    small, large = again["all_totals"]
    assert len(small) == len(large) == 3 and again["totals"] == [min(small), min(large)]
    assert "fewest instructions of 3 runs" in again["method"]
    assert abs(first["by_object"]["probe"] - 51.0) <= 0.02   # printf runs in libc, not here
    assert first["descriptor"]["ops_per_iter"] == 2 and first["ops_per_iter"] == 2   # the kernel's own word


@needs_valgrind
def test_go_is_counted_only_inside_the_harness_timed_call(tmp_path, cache_root):
    """Go's start-up and exit (threads started, the heap's state) are left out: the
    timed call of a 100-iteration run is a small part of the whole program's count,
    and a function that does not exist is an error, not a count of 0."""
    if not toolchain.available("go"):
        pytest.skip("go not installed")
    exp = experiments.get("callchain")
    prepared = kernels.prepare([exp], cache_root / "layertax")
    k = prepared[("callchain", exp.case("go-syscall-rename").kernel)]
    assert k.argv, k.skip or k.error
    argv, env = [*k.argv, "--case", "go-syscall-rename"], {**os.environ, **k.env}
    inside = instructions.count(argv, env, tmp_path, with_chain=False, repeats=2, fixed_layout=True,
                                collect_in=instructions.COLLECT_ONLY_IN["go"])
    whole = instructions.count(argv, env, tmp_path, with_chain=False, fixed_layout=True)
    assert inside["collected_in"] == "main.timed" and "counted only inside main.timed" in inside["method"]
    assert inside["per_op"] > 0 and "collected_in" not in whole
    assert min(inside["all_totals"][0]) < 0.5 * whole["totals"][0]   # the 100-iteration run, start-up left out
    assert inside["floor_gap"] is not None and inside["floor_gap"] >= 0
    with pytest.raises(RuntimeError, match="counted no instructions inside main.no_such_function"):
        instructions.count(argv, env, tmp_path, with_chain=False, collect_in="main.no_such_function")


def test_an_unsettled_floor_is_said():
    from layertax.engine.analysis.analyze import unsettled_floor_warning

    def case(gap):
        return {"name": "go-x", "instructions": {"per_op": 900.0, "floor_gap": gap,
                                                 "all_totals": [[10, 11, 12], [20, 21, 22]]}}
    assert unsettled_floor_warning(case(0.0)) is None and unsettled_floor_warning(case(0.001)) is None
    said = unsettled_floor_warning(case(0.0024))
    assert said.startswith("go-x: ") and "3 runs" in said and "0.24%" in said
    assert unsettled_floor_warning({"name": "c", "instructions": {"per_op": 5.0}}) is None   # counted once
    assert unsettled_floor_warning({"name": "c", "status": "skipped"}) is None


# ---- strace ---------------------------------------------------------------------------------------------

STRACE = """100 execve("./k", ["./k"], 0x7ffd /* 20 vars */) = 0
100 rename("a", "b")                     = 0
100 rename("b", "a" <unfinished ...>
101 futex(0x1, FUTEX_WAIT, 0, NULL <unfinished ...>
100 <... rename resumed>)                = 0
100 newfstatat(AT_FDCWD, "a", {...}, 0) = 0
101 <... futex resumed>)                 = 0
100 +++ exited with 0 +++
"""


def test_strace_parser_counts_each_call_once_per_thread():
    threads = syscalls.parse_trace(STRACE)
    assert threads == {100: Counter({"rename": 2, "execve": 1, "newfstatat": 1}), 101: Counter({"futex": 1})}
    assert syscalls.loop_calls(threads) == threads[100]


def test_per_op_difference_drops_negative_noise_and_keeps_fractions():
    small = Counter({"rename": 80, "execve": 1, "futex": 7, "io_uring_enter": 2})
    large = Counter({"rename": 480, "execve": 1, "futex": 5, "io_uring_enter": 8})
    calls, noise = syscalls.per_op(small, large, (40, 240), 2)
    assert calls == {"rename": 1.0, "io_uring_enter": 0.015}
    assert noise == 0.005


@needs_strace
def test_system_calls_of_real_rename_layers(tmp_path, cache_root):
    exp = experiments.get("callchain")
    prepared = kernels.prepare([exp], cache_root / "layertax")

    def count(case):
        k = prepared[("callchain", exp.case(case).kernel)]
        if not k.argv:
            pytest.skip(k.skip or k.error)
        return syscalls.count([*k.argv, "--case", case], {**os.environ, **k.env}, tmp_path)["per_op"]

    assert count("c-rename") == {"rename": 1.0}
    assert count("c-syscall") == {"renameat2": 1.0}
    assert count("py-shutil-move") == {"newfstatat": 1.0, "rename": 1.0}
    if toolchain.available("go"):
        assert count("go-os-rename").get("newfstatat") == 1.0     # os.Rename lstat's the target first
        assert count("go-syscall-rename").get("renameat") == 1.0


# ---- kernels in other languages ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["c", "python", "go", "rust", "java", "node"])
def test_every_kernel_speaks_the_protocol_and_verifies_every_case(kind, cache_root):
    """Each of callchain's cases, run a few samples on its own kernel (the end-to-end run in
    test_callchain_run takes a case or two of each language)."""
    exp = experiments.get("callchain")
    names = [k.name for k in exp.kernels if getattr(k, "kind", None) == kind]
    prepared = kernels.prepare([exp], cache_root / "layertax")
    # Given, as flags would be: they beat callchain's own burst and sample time.
    settings = Settings(runs=2, warmup=0, burst=2, min_sample_ns=200_000, cpu=None, count_syscalls=False,
                        given=("runs", "warmup", "burst", "min_sample_ns"))
    for name in names:
        k = prepared[("callchain", name)]
        if k.skip:
            pytest.skip(k.skip)
        assert k.argv, k.error
        result, _ = Scheduler(settings).run_experiment(exp, {n: prepared[("callchain", n)] for n in
                                                             (kk.name for kk in exp.kernels)},
                                                       tuple(c.name for c in exp.cases if c.kernel == name))
        for case in result["cases"]:
            if case["kernel"] != name:
                continue
            assert case["status"] == "ok", case["reason"]
            assert case["descriptor"]["language"] == kind and case["descriptor"]["runtime"]
            # 2 rounds of a burst of 2; the baseline more, measured beside each C case in its process
            counted_right = len(case["samples"]) >= 4 if case["name"] == exp.baseline else len(case["samples"]) == 4
            assert counted_right and all(s["ops"] == 2 * s["iters"] for s in case["samples"])


def test_a_runtime_kernel_that_fails_verification_fails_its_case(tmp_path):
    """The Node harness must report a wrong result as an error line, exit 1, and the engine mark the case failed."""
    if not toolchain.available("node"):
        pytest.skip("node not installed")
    harness = tmp_path / "harness.js"
    shutil.copyfile(kernels.runtimes.HARNESS_DIR / "node" / "harness.js", harness)
    script = tmp_path / "wrong.js"
    script.write_text("const h = require('./harness.js');\n"
                      "process.exitCode = h.main('wrong', [{name: 'wrong', description: 'd', opsPerIter: 1,\n"
                      "  setup: () => ({n: 0}), run: (s, n) => { s.n += n; },\n"
                      "  verify: (s) => { throw new Error('wrong result: ' + s.n); }, teardown: () => {}}], 0);\n")
    pk = PreparedKernel("rename-node", "node", argv=[toolchain.find("node").path, str(script)])
    sched = Scheduler(Settings(runs=1, warmup=0, burst=1, min_sample_ns=1000, cpu=None, count_syscalls=False))
    from layertax.engine.measure.scheduler import CaseRun
    from layertax.experiment import Case
    run = CaseRun(Case("wrong", "rename-node", "test", "node"), pk)
    sched.invoke(run, tmp_path, 1, 0)
    assert run.status == "failed" and "wrong result" in run.reason


# ---- what a counted run sees ------------------------------------------------------------------------------

def test_a_counted_run_sees_a_fixed_environment():
    caller = {"HOME": "/home/u", "LANG": "C.UTF-8", "LC_NUMERIC": "C", "PATH": "/opt/venv/bin:/usr/bin",
              "SSH_CLIENT": "10.0.0.1 52044 22", "OLDPWD": "/somewhere/else", "PYTHONPATH": "/x"}
    env = instructions.counting_environment(caller, {"LAYERTAX_SCAN_FILE": "/tmp/f", "LC_ALL": "C.UTF-8"})
    assert env == {"HOME": "/home/u", "LANG": "C.UTF-8", "LC_NUMERIC": "C", "PATH": instructions.FIXED_PATH,
                   "LAYERTAX_SCAN_FILE": "/tmp/f", "LC_ALL": "C.UTF-8"}


@needs_valgrind
def test_python_counts_do_not_follow_the_callers_environment(tmp_path, cache_root):
    # One more variable in the shell used to move the stack and heap layout, and with it
    # shutil.move's count by 0.3%; a counted run now sees the same environment either way.
    exp = experiments.get("callchain")
    k = kernels.prepare([exp], cache_root / "layertax")[("callchain", exp.case("py-shutil-move").kernel)]
    argv = [*k.argv, "--case", "py-shutil-move"]
    counts = [instructions.count(argv, instructions.counting_environment({**os.environ, "PAD": pad}, k.env),
                                 tmp_path, with_chain=False, iters=(20, 320))["per_op"]
              for pad in ("", "a" * 35)]
    assert counts[0] > 0 and abs(counts[1] - counts[0]) / counts[0] < 0.0005, counts


def test_a_count_that_shrinks_with_more_iterations_is_an_error(monkeypatch, tmp_path):
    profiles = iter([callgrind.parse(CALLGRIND.replace("5 100", "5 9000")), callgrind.parse(CALLGRIND)])
    monkeypatch.setattr(instructions, "fixed_run", lambda *a, **k: contextlib.nullcontext((None, {})))
    monkeypatch.setattr(instructions, "_callgrind_run", lambda *a, **k: (next(profiles), {}))
    with pytest.raises(RuntimeError, match="something done once fell into one run only"):
        instructions.count(["kernel"], {}, tmp_path, with_chain=False)



def test_the_runtimes_each_case_ran_on_are_said_once_each():
    from layertax.report import format as fmt
    cases = [{"status": "ok", "descriptor": {"runtime": r}} for r in ("glibc 2.36", "CPython 3.11.7", "glibc 2.36")]
    cases += [{"status": "skipped", "descriptor": {"runtime": "node v20"}}, {"status": "ok", "descriptor": None}]
    assert fmt.runtimes_line({"cases": cases}) == "runtimes: glibc 2.36, CPython 3.11.7"
    assert fmt.runtimes_line({"cases": cases[-1:]}) is None
