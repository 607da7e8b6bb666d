"""tls: the access-model check catches a library built with the wrong flags, and every
case's kernel checks its own final value (a short real run)."""
from __future__ import annotations

import json

import pytest

from conftest import run_cli
from layertax import experiments
from layertax.engine.builder import graph, toolchain
from layertax.experiments.tls import models


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    if not toolchain.available("cc"):
        pytest.skip(toolchain.hint("cc"))
    return tmp_path_factory.mktemp("tlscache")


def _lib(cache, model: models.Model, cflags):
    got = graph.build([models.target(model, cflags)], cache)[f"libtls-{model.case}.so"]
    assert not isinstance(got, Exception), got
    return got


@pytest.mark.parametrize("model", models.MODELS, ids=lambda m: m.case)
def test_each_library_uses_the_model_it_claims(cache, model):
    lib = _lib(cache, model, model.cflags)
    assert models.check(model, lib) is None
    assert model.must_have in models.tls_relocations(lib)


def test_a_library_built_with_the_wrong_flags_is_caught(cache):
    desc = next(m for m in models.MODELS if m.case == "tls-desc")
    wrong = _lib(cache, desc, ("-ftls-model=global-dynamic", "-mtls-dialect=gnu"))   # gnu, not gnu2
    reason = models.check(desc, wrong)
    assert reason and "R_X86_64_TLSDESC" in reason and "R_X86_64_DTPMOD64" in reason
    ie = next(m for m in models.MODELS if m.case == "tls-ie")
    assert "R_X86_64_TPOFF64" in models.check(ie, _lib(cache, ie, ("-ftls-model=global-dynamic",)))


def test_a_failed_check_fails_its_case_with_the_reason(cache):
    """The shared input hands the kernel the check's reason instead of a path; the case fails with it."""
    import os
    import subprocess

    from layertax.engine.builder import kernels

    prepared = kernels.prepare([experiments.get("tls")], cache)[("tls", "tls-c")]
    assert prepared.argv, prepared.error or prepared.skip
    env = {**os.environ, "LAYERTAX_TLS_LIB_DESC": "!libtls-tls-desc.so claims TLS descriptors but has none"}
    proc = subprocess.run([*prepared.argv, "--case", "tls-desc", "--samples", "1", "--min-sample-ns", "1000"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "claims TLS descriptors but has none" in proc.stdout + proc.stderr


def test_every_case_runs_and_checks_its_value(tmp_path):
    out = tmp_path / "t.json"
    proc = run_cli("run", "tls", "--runs", "1", "--burst", "1", "--min-time", "0.001", "--no-syscalls",
                   "--export-json", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    exp = json.loads(out.read_text())["experiments"][0]
    for case in exp["cases"]:
        assert case["status"] in ("ok", "skipped"), (case["name"], case["reason"])
        if case["status"] == "ok":
            assert case["samples"] and all(s["iters"] > 0 for s in case["samples"])
    assert "then vs now: what one per-thread lookup costs" in proc.stdout
    check = next(t for t in exp["tables"] if "access model it claims" in t["title"])
    assert check["rows"] and all(row[-1] == "ok" for row in check["rows"])
    assert check["detail"] and "access model it claims" not in proc.stdout   # every library checked out


def test_instruction_ratios_are_taken_to_each_groups_baseline():
    from layertax.engine.analysis import analyze

    def case(name, n, group=""):
        return {"name": name, "group": group, "instructions": {"per_op": n}}
    exp = {"baseline": "xorshift", "groups": [{"name": "models", "baseline": "global-var"}],
           "cases": [case("xorshift", 28.0), case("rand", 56.0), case("global-var", 6.0, "models"),
                     case("tls-gd", 21.0, "models")], "classic": None}
    exp = analyze.instructions_analyzed(exp)
    ratios = {c["name"]: c["ratio"] for c in exp["cases"]}
    assert ratios == {"xorshift": 1.0, "rand": 2.0, "global-var": 1.0, "tls-gd": 3.5}


def test_each_tlsdesc_case_times_the_tls_it_names(cache):
    """Swapped libraries: the small one under tls-desc-dynamic gets static TLS, the padded one
    under tls-desc gets dynamic TLS; the kernel sees it from the variable's address and fails."""
    import os
    import subprocess

    from layertax.engine.builder import kernels

    prepared = kernels.prepare([experiments.get("tls")], cache)[("tls", "tls-c")]
    assert prepared.argv, prepared.error or prepared.skip
    by_case = {m.case: m for m in models.MODELS}
    small = _lib(cache, by_case["tls-desc"], by_case["tls-desc"].cflags)
    padded = _lib(cache, by_case["tls-desc-dynamic"], by_case["tls-desc-dynamic"].cflags)
    for case, var, lib, needle in (("tls-desc-dynamic", "LAYERTAX_TLS_LIB_DESC_DYN", small, "got static TLS"),
                                   ("tls-desc", "LAYERTAX_TLS_LIB_DESC", padded, "got dynamic TLS"),
                                   ("tls-desc-dynamic", "LAYERTAX_TLS_LIB_DESC_DYN", padded, None)):
        proc = subprocess.run([*prepared.argv, "--case", case, "--samples", "1", "--min-sample-ns", "1000"],
                              env={**os.environ, var: str(lib)}, capture_output=True, text=True, timeout=60)
        if needle:
            assert proc.returncode != 0 and needle in proc.stdout + proc.stderr, (case, proc.stdout, proc.stderr)
        else:
            assert proc.returncode == 0, proc.stdout + proc.stderr


def _timed(name: str, per_round: list[float]) -> dict:
    return {"name": name, "samples": [{"round": r, "ns": v * 1000, "ops": 1000} for r, v in enumerate(per_round)],
            "stats": {"ratio": {"median": 1.0, "ci95": [1.0, 1.0]}}}


def test_the_dearest_access_path_over_the_cheapest_carries_its_interval():
    """The then-vs-now row is a ratio of two cases: paired per round as a case and its baseline
    are, with the interval and the digits that interval supports; the table schema takes it."""
    from layertax.engine.analysis import stats
    from layertax.engine.store import results
    from layertax.experiments.tls import tables
    from layertax.report import format as fmt

    rounds = 16
    wobble = [1 + 0.02 * ((r % 4) - 1.5) for r in range(rounds)]
    floor = _timed("global-var-ptr", [2.0] * rounds)
    cheap = _timed("tls-le", [2.0 * w for w in wobble])
    dear = _timed("pthread-getspecific", [5.0 / w for w in wobble])
    cheap["stats"]["ratio"]["median"], dear["stats"]["ratio"]["median"] = 1.0, 2.5
    row = tables.spread_table({"cases": [floor, cheap, dear]})["rows"][1]
    expected = stats.ratio_summary([5.0 / w / (2.0 * w) for w in wobble])
    assert row[1]["median"] == pytest.approx(expected["median"]) and row[1]["ci95"] == pytest.approx(expected["ci95"])
    assert row[1]["ci95"][0] < row[1]["median"] < row[1]["ci95"][1]
    assert row[0] == "now: pthread-getspecific over tls-le"
    assert fmt._cell(row[1], "ratio_ci") == fmt.FIGURE_WRITERS["ratio_ci"](row[1])
    doc = json.loads(json.dumps({"schema": "layertax/1", "machine": {}, "settings": {}, "experiments": [{
        "name": "tls", "title": "t", "question": "q", "baseline": None, "unit": None, "cases": [],
        "tables": [tables.spread_table({"cases": [floor, cheap, dear]})]}]}))
    results.validate(doc)
