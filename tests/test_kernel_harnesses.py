"""The C and Python harnesses speak the protocol and refuse wrong answers."""
import json
import subprocess

from layertax.engine.measure.protocol import parse
from layertax.harnesses.python import KernelFailure, KernelSkip, PyCase, kernel_main


def run(binary, *args):
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=60)


def test_c_kernel_gives_descriptor_and_exact_samples(probe_binary):
    p = run(probe_binary, "--case", "count", "--samples", "4", "--iters", "1000")
    assert p.returncode == 0, p.stderr
    out = parse(p.stdout, expected_case="count")
    d = out.descriptor
    assert d["kernel"] == "probe" and d["clock"] == "CLOCK_MONOTONIC" and d["ops_per_iter"] == 3
    assert d["clock_res_ns"] >= 1 and d["clock_overhead_ns"] >= 0
    assert [(s["iters"], s["ops"]) for s in out.samples] == [(1000, 3000)] * 4
    assert all("csw_vol" in s and "csw_invol" in s and "minflt" in s for s in out.samples)


def test_c_calibration_fixes_one_iteration_count(probe_binary):
    p = run(probe_binary, "--case", "count", "--samples", "3", "--min-sample-ns", "2000000")
    out = parse(p.stdout)
    # Structure only (later samples may run faster than the calibration one on a
    # noisy host): calibration grew the count from 1 and every sample reuses it.
    assert len({s["iters"] for s in out.samples}) == 1
    assert out.samples[0]["iters"] > 1000


def test_c_empty_case_measures_the_harness(probe_binary):
    p = run(probe_binary, "--case", "empty", "--samples", "2", "--iters", "5000")
    assert p.returncode == 0, p.stderr
    assert [s["iters"] for s in parse(p.stdout).samples] == [5000, 5000]


def test_c_failed_verification_fails_loudly(probe_binary):
    p = run(probe_binary, "--case", "wrong", "--samples", "2", "--iters", "10")
    assert p.returncode == 1
    assert parse(p.stdout).error == "wrong result: expected 42, got 41"
    assert "wrong result" in p.stderr


def test_c_skip_and_unknown_case(probe_binary):
    p = run(probe_binary, "--case", "skip")
    assert p.returncode == 3 and parse(p.stdout).skip == "feature X is not available here"
    p = run(probe_binary, "--case", "nope")
    assert p.returncode == 1 and "no such case" in parse(p.stdout).error


def test_c_with_alternates_two_cases_in_one_process(probe_binary, tmp_path):
    """--with: the second case's samples alternate with the first's (A B, B A, ...), each at its
    own iteration count, each verified; the second works in DIR/with."""
    p = run(probe_binary, "--case", "count", "--with", "asm102", "--with-iters", "300", "--samples", "3",
            "--iters", "1000", "--dir", str(tmp_path))
    assert p.returncode == 0, p.stderr
    lines = [json.loads(line) for line in p.stdout.splitlines()]
    assert lines[0]["case"] == "count" and lines[0]["with"] == "asm102"
    assert [(s["case"], s["iters"]) for s in lines[1:]] == [
        ("count", 1000), ("asm102", 300), ("asm102", 300), ("count", 1000), ("count", 1000), ("asm102", 300)]
    assert (tmp_path / "with").is_dir()
    assert [s["iters"] for s in parse("\n".join(line for line in p.stdout.splitlines()
                                                if '"case":"asm102"' not in line)).samples] == [1000] * 3


def test_c_with_a_case_that_fails_or_is_itself_is_an_error(probe_binary, tmp_path):
    p = run(probe_binary, "--case", "count", "--with", "wrong", "--samples", "2", "--iters", "10", "--with-iters", "10")
    error = parse(p.stdout).error
    assert p.returncode == 1 and error == "--with wrong: wrong result: expected 42, got 41"
    for other in ("count", "nope"):
        p = run(probe_binary, "--case", "count", "--with", other)
        assert p.returncode == 1 and "--with" in parse(p.stdout).error


def test_c_bad_options_are_usage_errors(probe_binary):
    assert run(probe_binary, "--case", "count", "--samples", "abc").returncode == 2
    assert run(probe_binary, "--case", "count", "--samples").returncode == 2
    assert run(probe_binary).returncode == 2


def test_c_list_names_every_case(probe_binary):
    names = [json.loads(line)["case"] for line in run(probe_binary, "--list").stdout.splitlines()]
    assert names == ["empty", "asm102", "count", "wrong", "skip", "hang", "crash"]


def test_c_pinning_is_reported(probe_binary):
    d = parse(run(probe_binary, "--case", "count", "--samples", "1", "--iters", "1", "--cpu", "0").stdout).descriptor
    assert d["pinned"] is True and d["pin"] == "cpu 0"
    d = parse(run(probe_binary, "--case", "count", "--samples", "1", "--iters", "1", "--cpu", "4095").stdout).descriptor
    assert d["pinned"] is False and "sched_setaffinity" in d["pin"]


class Counter:
    def __init__(self):
        self.n = 0
        self.done = 0


def _py_cases(verify_ok=True):
    def run_(state, iters):
        for _ in range(iters):
            state.n += 1
        state.done += iters

    def verify(state):
        if not verify_ok or state.n != state.done:
            raise KernelFailure("count is off")

    def setup_skip(_dir):
        raise KernelSkip("not here")

    return [PyCase("count", "counts", 1, lambda d: Counter(), run_, verify),
            PyCase("skip", "skips", 1, setup_skip, run_, verify)]


def test_python_harness_speaks_the_same_protocol(capsys):
    assert kernel_main("pyprobe", _py_cases(), ["--case", "count", "--samples", "3", "--iters", "50"]) == 0
    out = parse(capsys.readouterr().out, expected_case="count")
    assert out.descriptor["language"] == "python"
    assert [s["iters"] for s in out.samples] == [50, 50, 50]


def test_python_harness_fails_on_wrong_result_and_skips(capsys):
    assert kernel_main("pyprobe", _py_cases(verify_ok=False), ["--case", "count", "--iters", "5"]) == 1
    assert "count is off" in parse(capsys.readouterr().out).error
    assert kernel_main("pyprobe", _py_cases(), ["--case", "skip"]) == 3
    assert parse(capsys.readouterr().out).skip == "not here"
