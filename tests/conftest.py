"""Shared fixtures. Every test gets its own data directory (runs, history); the
build cache is shared by the whole session so kernels build once."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from layertax.engine.builder import graph, ninja, toolchain
from layertax.experiment import CKernel, Case, Classic, ClassicFigure, Experiment

TESTS = Path(__file__).parent

# Go's build cache stays the user's own (where XDG_CACHE_HOME pointed before the tests moved it):
# it is content-addressed and made for builds side by side, and a cold one compiles Go's standard
# library again, about 40 s of CPU per session.
_USERS_CACHE = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
os.environ.setdefault("GOCACHE", os.path.join(_USERS_CACHE, "go-build"))
# pip's cache too (the fleet's hosts install layertax's dependencies): `make setup` has just filled
# it with the same wheels, which a cold one downloads again, some 100 MB.
os.environ.setdefault("PIP_CACHE_DIR", os.path.join(_USERS_CACHE, "pip"))


# The files that take a worker longest (40 s or more each on the 2-vCPU VM of
# docs/method/measurement.md: `pytest --durations=0`, summed by file), run first. pytest-xdist
# hands out files most tests first unless told not to (the Makefile passes
# --no-loadscope-reorder), and then the fleet's file, few tests and over a minute of venvs, came
# last: its whole time was the run's tail, the other worker idle. Started first it overlaps the
# rest. A stale list costs balance only, never a result.
LONGEST_FIRST = ("test_fleet.py", "test_callchain_run.py", "test_difference_counts.py", "test_windows.py",
                 "test_hostile_input.py", "test_inspect.py", "test_written_results.py", "test_loadtime.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))    # stable: the rest as collected


@pytest.fixture(scope="session")
def cache_root(tmp_path_factory) -> Path:
    """The build cache of the whole run. pytest-xdist's workers share one (the directory above
    each worker's own), so a kernel, a runtime's harness or the launch tools build once: the
    builder publishes each build whole, as it does for two layertax building side by side."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = tmp_path_factory.getbasetemp().parent / "cache"
        shared.mkdir(exist_ok=True)
        return shared
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="session", autouse=True)
def session_cache(cache_root):
    """The session's build cache from the start: a module's fixture (a quick run several tests
    read, the PE tree) is set up before each test's own directories (isolated_dirs below), and
    would otherwise build into the user's own cache."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(cache_root))
        yield cache_root


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))      # the cache: session_cache above
    # The measuring lock lives in the runtime directory when there is one: each test gets the
    # data directory's instead, its own (a test that wants a runtime directory makes one).
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    # No width from outside: pytest-xdist's workers set COLUMNS=80, a terminal may set another.
    # Output off a terminal is then as wide as it is in CI; a test about width sets COLUMNS itself.
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
    # Each pytest-xdist worker pins its measurements to its own CPU: on the default (the last
    # CPU) the workers' kernels would take turns on one CPU while the other waits.
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    cpus = sorted(os.sched_getaffinity(0))
    if worker.startswith("gw") and len(cpus) > 1:
        monkeypatch.setenv("LAYERTAX_CPU", str(cpus[-1 - int(worker[2:]) % len(cpus)]))
    # Temporary directories of the engine land here, so tests can check they are removed.
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return tmp_path


def probe_target(name: str = "probe") -> ninja.BuildTarget:
    cc = toolchain.find("cc")
    return ninja.BuildTarget(name, (TESTS / "kernels" / "probe.c",), (TESTS / "kernels",), (), (), cc.path, cc.version)


def build_test_program(cache_root: Path, name: str, sources: tuple[Path, ...],
                       include_dirs: tuple[Path, ...] = ()) -> Path:
    """A small C program a test needs, built through the project's own build graph (cached)."""
    cc = toolchain.find("cc")
    target = ninja.BuildTarget(name, sources, include_dirs, (), (), cc.path, cc.version, kind="program")
    built = graph.build([target], cache_root / "layertax")[name]
    assert isinstance(built, Path), built
    return built


@pytest.fixture(scope="session")
def tools(cache_root):
    """The launch timer, the stamp libraries and the empty programs, built once a session."""
    from layertax.launch import tools as launch_tools

    return launch_tools.tools(cache_root / "layertax")


@pytest.fixture(scope="session")
def probe_binary(cache_root) -> Path:
    result = graph.build([probe_target()], cache_root / "layertax")["probe"]
    assert isinstance(result, Path), result
    return result


def probe_experiment() -> Experiment:
    """A synthetic experiment over the probe kernel: the engine must run it unchanged."""
    classic = Classic("a test", "2000", "none", "units", "base",
                      (ClassicFigure("base", 1.0, "count", "baseline"), ClassicFigure("top", 2.0, "count", "same")),
                      "none")
    cases = tuple(Case(n, "probe", "test", "c") for n in ("count", "wrong", "skip", "hang", "crash"))
    return Experiment("probe", "probe", "does the engine work?", "count",
                      (CKernel("probe", ("probe.c",)),), cases, classic, TESTS / "kernels")


def run_cli(*args: str, timeout: float = 300, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "layertax", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)


def history_experiments(listing: str) -> list[str]:
    """Each run's experiments ("what"), newest first, from `layertax history`'s output: its table (a
    terminal wide enough) or its stacked form (each run's lines under "#ID")."""
    table = [line.split("│")[3].strip() for line in listing.splitlines() if line.startswith("│")]
    stacked = [line.split(":", 1)[1].strip() for line in listing.splitlines() if line.startswith("    what:")]
    return table or stacked


@pytest.fixture(scope="session")
def postgres_server():
    """One throw-away PostgreSQL server for the session (tests/pgserver.py); skipped with a hint
    when PostgreSQL is not installed."""
    import pgserver

    bin_dir = pgserver.binaries()
    if bin_dir is None:
        pytest.skip(pgserver.HINT)
    server = pgserver.Server(bin_dir).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def shared_history(postgres_server, request):
    """A fresh database on the test server for one test: its URL."""
    import re

    return postgres_server.new_database(re.sub(r"\W", "_", request.node.name)[:50].lower())


class CountingProgress:
    """A progress sink that keeps what it was told: the steps taken and every total given (the
    start's, then each re-estimate), for tests of what a run reports as it goes."""

    def __init__(self):
        self.steps, self.totals = 0, []

    def start(self, experiment, total):
        self.totals.append(total)

    def step(self, description):
        self.steps += 1

    def retotal(self, total):
        self.totals.append(total)

    def deadline(self, at):
        pass

    def finish(self, stopped=False):
        pass
