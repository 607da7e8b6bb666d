"""Every registered experiment is well formed, and its classic figures are the published ones."""
import pytest

from layertax import experiments
from layertax.errors import UsageError


def test_registry_finds_callchain():
    assert "callchain" in experiments.registry()
    with pytest.raises(UsageError, match="unknown experiment"):
        experiments.get("nope")


@pytest.mark.parametrize("exp", experiments.registry().values(), ids=lambda e: e.name)
def test_experiment_is_consistent(exp):
    kernel_names = {k.name for k in exp.kernels}
    case_names = [c.name for c in exp.cases]
    assert len(case_names) == len(set(case_names))
    assert exp.baseline in case_names
    # An experiment measured its own way (exp.measure) has no kernels to name.
    assert exp.measure is not None or all(c.kernel in kernel_names for c in exp.cases)
    for k in exp.kernels:
        for src in getattr(k, "sources", ()):
            assert (exp.package_dir / src).is_file(), src
    for fig in exp.classic.figures:
        assert fig.counterpart is None or fig.counterpart in case_names
    if exp.classic.figures:   # a classic told in words (unicode-io) has no figures and no baseline
        assert exp.classic.baseline in {f.label for f in exp.classic.figures}
    else:
        assert exp.classic.conclusion and exp.classic.ratios() == {}


def test_callchain_classic_ratios_are_the_published_ones():
    ratios = experiments.get("callchain").classic.ratios()
    assert [round(r, 2) for r in ratios.values()] == [2.10, 1.45, 1.17, 1.00]


def test_loadtime_classic_ratios_are_pietreks():
    """Pietrek 2000 (the loadtime experiment's classic figures): Windows 2000 by name 0.903 / 0.841; by ordinal 0.992 / 0.868 / 0.845, to by-name default."""
    ratios = experiments.get("loadtime").classic.ratios()
    assert [round(r, 3) for r in ratios.values()] == [1.0, 0.903, 0.841, 0.992, 0.868, 0.845]


def test_a_python_kernel_runs_as_its_file_and_imports_only_what_it_uses(cache_root, tmp_path):
    """The engine runs a Python kernel's file as a script: `python -m` imported the experiments
    registry and the experiment's declaration first, a quarter of each kernel's start."""
    import os
    import subprocess

    from layertax.engine.builder import kernels

    exp = experiments.get("encoding")          # its kernel imports a sibling module (text.py)
    python = next(k for k in exp.kernels if k.kind == "python")
    pk = kernels.prepare([exp], cache_root / "layertax")[(exp.name, python.name)]
    assert pk.argv[1].endswith("encoding_py.py") and "-m" not in pk.argv
    case = next(c.name for c in exp.cases if c.kernel == python.name)
    done = subprocess.run([pk.argv[0], "-X", "importtime", *pk.argv[1:], "--case", case, "--samples", "1",
                           "--iters", "1", "--dir", str(tmp_path)], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                          env={**os.environ, **pk.env})
    assert done.returncode == 0, done.stderr[-2000:]
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "text" in imported and "layertax.harnesses.python" in imported
    assert not {m for m in imported if m.startswith("layertax.experiment")}, imported
