"""numpy and scipy loaded by layertax start no OpenBLAS worker thread (it would spin for
0.1 s on whichever CPU, the measured one included), and the environment the programs
layertax starts get is the one it was given."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

PROBE = """
import json, os, subprocess, sys
import layertax.cli
import numpy
from layertax.engine.analysis import rank_tests
rank_tests.kruskal_p([1, 2, 3], [4, 5, 6])    # numpy and scipy.special, as an analysis loads them
child = subprocess.run([sys.executable, "-c", "import os; print(os.environ.get('OPENBLAS_NUM_THREADS'))"],
                       capture_output=True, text=True, check=True).stdout.strip()
print(json.dumps({"threads": len(os.listdir("/proc/self/task")), "ours": os.environ.get("OPENBLAS_NUM_THREADS"),
                  "child": child}))
"""


def _probe(env: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_numpy_and_scipy_start_no_blas_thread_and_leave_the_environment_as_it_was():
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    assert _probe(env) == {"threads": 1, "ours": None, "child": "None"}


def test_a_users_own_setting_is_what_the_programs_layertax_starts_get():
    assert _probe({**os.environ, "OPENBLAS_NUM_THREADS": "2"}) == {"threads": 1, "ours": "2", "child": "2"}


def test_without_layertax_first_the_probe_would_see_the_worker():
    """The probe can tell: numpy imported before layertax starts its worker (on a machine
    with more than one CPU, which is where a worker can spin beside a measurement)."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: OpenBLAS starts no worker")
    probe = PROBE.replace("import layertax.cli\nimport numpy", "import numpy\nimport layertax.cli")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                         env={k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"})
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["threads"] > 1
