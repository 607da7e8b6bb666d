"""One probe kernel in each of the seven harnesses (C, Python, Go, Rust, Java, Node.js, Perl),
built by layertax's own build and held to the same checks of the kernel protocol
(docs/method/protocol.md): the descriptor's fields, exact samples, a wrong answer refused with
exit 1 and an error line, a skip with exit 3, bad arguments with exit 2. A language whose
toolchain is missing is skipped with a hint."""
from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import TESTS

from layertax.engine.builder import kernels, toolchain
from layertax.engine.measure.protocol import parse
from layertax.errors import UsageError
from layertax.experiment import Case, Classic, ClassicFigure, CKernel, Experiment, PythonKernel, RuntimeKernel

PROBES = {
    "c": CKernel("probe-c", ("probe.c",)),
    "python": PythonKernel("probe-python", "layertax_test_probe"),
    "go": RuntimeKernel("probe-go", "go", ("probe/go/probe.go",)),
    "rust": RuntimeKernel("probe-rust", "rust", ("probe/rust/main.rs",)),
    "java": RuntimeKernel("probe-java", "java", ("probe/java/ProbeKernel.java",), main_class="ProbeKernel"),
    "node": RuntimeKernel("probe-node", "node", ("probe/node/probe.js",)),
    "perl": RuntimeKernel("probe-perl", "perl", ("probe/perl/probe.pl",)),
}
# What each language's descriptor must say of itself.
DESCRIPTOR_KEYS = ("kernel", "case", "description", "language", "runtime", "clock", "clock_res_ns",
                   "clock_overhead_ns", "ops_per_iter", "pinned", "pin", "priority")

PYTHON_PROBE = '''"""The probe kernel in Python (tests/test_protocol_conformance.py)."""
from layertax.harnesses.python import KernelFailure, KernelSkip, PyCase, kernel_main


class Counter:
    def __init__(self):
        self.n = self.expect = 0


def run(c, iters, short=False):
    for _ in range(iters):
        c.n += 1
    c.expect += iters
    c.n -= short


def verify(c):
    if c.n != c.expect:
        raise KernelFailure(f"wrong result: expected {c.expect}, got {c.n}")


def skip(_dir):
    raise KernelSkip("feature X is not available here")


CASES = [PyCase("count", "counts to iters and checks the count", 3, lambda d: Counter(), run, verify),
         PyCase("wrong", "always one short: a wrong answer", 1, lambda d: Counter(),
                lambda c, n: run(c, n, True), verify),
         PyCase("skip", "cannot run here", 1, skip, run, verify)]

if __name__ == "__main__":
    raise SystemExit(kernel_main("probe-python", CASES))
'''


@pytest.fixture(scope="module")
def probes(cache_root, tmp_path_factory) -> dict[str, list[str] | str]:
    """Each language's probe, built once: its argv, or why it is skipped."""
    module_dir = tmp_path_factory.mktemp("python-probe")
    (module_dir / "layertax_test_probe.py").write_text(PYTHON_PROBE)
    classic = Classic("a test", "2000", "none", "units", "count", (ClassicFigure("count", 1.0, "count", "it"),), "")
    exp = Experiment("probes", "the protocol's probes", "does every harness speak the protocol?", "count",
                     tuple(PROBES.values()), tuple(Case("count", k.name, "probe", lang) for lang, k in PROBES.items()),
                     classic, TESTS / "kernels")
    sys.path.insert(0, str(module_dir))     # the Python probe's module is found where the engine looks
    try:
        prepared = kernels.prepare([exp], cache_root / "layertax")
    finally:
        sys.path.remove(str(module_dir))
    out = {}
    for lang, k in PROBES.items():
        pk = prepared[(exp.name, k.name)]
        if pk.argv:
            out[lang] = list(pk.argv)
        else:
            out[lang] = pk.skip or pk.error or "not built"
    return out


def _run(argv: list[str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*argv, *args], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


def _argv(probes, lang: str) -> list[str]:
    got = probes[lang]
    if isinstance(got, str):
        tool = {"go": "go", "rust": "cargo", "java": "javac", "node": "node", "perl": "perl"}.get(lang)
        if tool and not toolchain.available(tool):
            pytest.skip(f"{lang}: {toolchain.hint(tool)}")
        pytest.fail(f"the {lang} probe did not build: {got}")
    return got


@pytest.mark.parametrize("lang", list(PROBES))
def test_samples_are_exact_and_the_descriptor_says_what_ran(probes, lang):
    argv = _argv(probes, lang)
    done = _run(argv, "--case", "count", "--samples", "4", "--iters", "1000")
    assert done.returncode == 0, done.stderr
    out = parse(done.stdout, expected_case="count")
    assert all(key in out.descriptor for key in DESCRIPTOR_KEYS), sorted(out.descriptor)
    assert out.descriptor["case"] == "count" and out.descriptor["ops_per_iter"] == 3
    assert out.descriptor["language"] in (lang, "javascript") and out.error is None and out.skip is None
    assert [(s["iters"], s["ops"]) for s in out.samples] == [(1000, 3000)] * 4
    assert all(s["ns"] > 0 for s in out.samples)


@pytest.mark.parametrize("lang", list(PROBES))
def test_calibration_fixes_one_iteration_count(probes, lang):
    # 20 ms: one iteration is microseconds, so only a stall longer than a sample's target at the
    # first, single-iteration try could leave the count at 1 (a JVM's compiler threads on a
    # loaded 2-core machine stalled a 1 ms try).
    done = _run(_argv(probes, lang), "--case", "count", "--samples", "3", "--min-sample-ns", "20000000")
    assert done.returncode == 0, done.stderr
    samples = parse(done.stdout).samples
    assert len(samples) == 3 and len({s["iters"] for s in samples}) == 1 and samples[0]["iters"] > 1


@pytest.mark.parametrize("lang", list(PROBES))
def test_a_wrong_answer_is_refused_with_exit_1(probes, lang):
    done = _run(_argv(probes, lang), "--case", "wrong", "--samples", "2", "--iters", "10")
    assert done.returncode == 1, (done.stdout, done.stderr)
    out = parse(done.stdout)
    assert out.error and "wrong result" in out.error and not out.samples


@pytest.mark.parametrize("lang", list(PROBES))
def test_a_skip_is_exit_3_with_its_reason(probes, lang):
    done = _run(_argv(probes, lang), "--case", "skip")
    assert done.returncode == 3, (done.stdout, done.stderr)
    assert parse(done.stdout).skip == "feature X is not available here"


@pytest.mark.parametrize("lang", list(PROBES))
def test_no_such_case_is_exit_1_and_bad_arguments_exit_2(probes, lang):
    argv = _argv(probes, lang)
    missing = _run(argv, "--case", "nope")
    assert missing.returncode == 1 and "no such case" in (parse(missing.stdout).error or "")
    assert _run(argv, "--case", "count", "--samples").returncode == 2
    assert _run(argv, "--case", "count", "--samples", "abc").returncode == 2


@pytest.mark.parametrize("lang", ["java", "node"])
def test_a_jit_runtimes_kernel_settles_untimed_before_its_samples_and_says_how_long(probes, lang):
    """--settle-ns: untimed samples for that long after the warm-up (the JIT's compiler threads
    share the timed thread's CPU), then exactly the samples asked for, each verified; the
    descriptor says how long it settled."""
    argv = _argv(probes, lang)
    done = _run(argv, "--case", "count", "--samples", "3", "--iters", "1000", "--settle-ns", "30000000")
    assert done.returncode == 0, done.stderr
    out = parse(done.stdout, expected_case="count")
    assert out.descriptor["settle_ns"] == 30_000_000
    assert [(s["iters"], s["ops"]) for s in out.samples] == [(1000, 3000)] * 3
    assert _run(argv, "--case", "count", "--settle-ns", "-1").returncode == 2


def test_the_engine_asks_the_jit_runtimes_kernels_alone_to_settle(tmp_path):
    from layertax.engine.measure.scheduler import Scheduler
    from layertax.engine.measure.settings import Settings

    settings = Settings.from_options(jit_settle=0.1, pin=False)
    assert settings.jit_settle_ns == 100_000_000 and "jit_settle_ns" in settings.given
    scheduler = Scheduler(settings)

    def argv(kind: str) -> list[str]:
        kernel = type("Built", (), {"argv": [kind], "kind": kind})()
        run = type("CaseRun", (), {"kernel": kernel, "case": type("C", (), {"name": "count"})(), "iters": None})()
        return scheduler._argv(run, tmp_path, 3)

    assert argv("java")[-2:] == argv("node")[-2:] == ["--settle-ns", "100000000"]
    assert all("--settle-ns" not in argv(kind) for kind in ("c", "python", "go", "rust", "perl"))
    assert Settings().jit_settle_ns == 250_000_000
    with pytest.raises(UsageError, match="--jit-settle"):
        Settings.from_options(jit_settle=61, pin=False)
