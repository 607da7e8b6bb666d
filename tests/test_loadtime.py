"""loadtime: the generated code, the counts the loader sees, and the launch timer."""
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from layertax.elf import elfinfo, ldstats
from layertax.launch import timer
from layertax.launch import settings as launch_settings
from layertax.errors import UsageError
from layertax.programs import generate, variants
from layertax.experiments.loadtime import measure
from layertax.programs.build import build_variants
from tests.conftest import run_cli

NAMES = ["default", "symbolic", "hidden", "relr", "now", "static"]


def _build(shape, cache_root):
    chosen = [variants.by_name(n) for n in NAMES]
    tree, log = build_variants(shape, chosen, cache_root / "layertax")
    return tree


@pytest.fixture(scope="session")
def small(cache_root):
    shape = generate.Shape(libs=2, exports=3, relocs=2)
    return shape, _build(shape, cache_root)


@pytest.fixture(scope="session")
def larger(cache_root):
    shape = generate.Shape(libs=3, exports=5, relocs=2, name_len=40)
    return shape, _build(shape, cache_root)


def _dynsyms(path: Path) -> set[str]:
    out = subprocess.run(["nm", "-D", "--defined-only", str(path)], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def _lookups(program: Path) -> int:
    p = subprocess.run([str(program)], env={**os.environ, "LD_DEBUG": "statistics"}, capture_output=True, text=True)
    return ldstats.parse(p.stderr).lookups


def test_every_variant_builds(small):
    shape, tree = small
    for name in [*NAMES, "empty"]:
        assert (tree / variants.by_name(name).program()).is_file(), name
    assert (tree / "build.ninja").is_file()


def test_libraries_export_exactly_what_the_generator_says(small):
    shape, tree = small
    for lib in range(shape.libs):
        so = tree / "out" / "default" / shape.library_file(lib)
        functions = {shape.function(lib, f) for f in range(shape.exports)}
        globals_ = {f"{fn}_g{k}" for fn in functions for k in range(shape.relocs)}
        assert functions | globals_ <= _dynsyms(so)
        assert not any(s.endswith("_self") for s in _dynsyms(so))  # the hidden aliases stay hidden
        hidden = _dynsyms(tree / "out" / "hidden" / shape.library_file(lib))
        assert functions <= hidden and not (globals_ & hidden)


def test_names_are_padded_to_the_asked_length(larger):
    shape, _ = larger
    assert all(len(shape.function(lib, f)) >= 40 for lib in range(shape.libs) for f in range(shape.exports))


def test_programs_stamp_and_exit_zero(small):
    _, tree = small
    r, w = os.pipe()
    p = subprocess.run([str(tree / "out/default/prog")], env={**os.environ, "LAYERTAX_STAMP_FD": str(w)},
                       pass_fds=(w,))
    os.close(w)
    assert p.returncode == 0
    assert len(os.read(r, 16)) == 8


def _readelf_counts(path: Path) -> dict[str, int]:
    out = subprocess.run(["readelf", "-rW", str(path)], capture_output=True, text=True, check=True).stdout
    counts = {"relative": 0, "glob_dat": 0, "jump_slot": 0, "relr": 0}
    for line in out.splitlines():
        for kind, word in (("relative", "_RELATIVE"), ("glob_dat", "_GLOB_DAT"), ("jump_slot", "_JUMP_SLOT")):
            if re.search(rf"R_\w+{word}\b", line) and "IRELATIVE" not in line:
                counts[kind] += 1
        m = re.match(r"\s*(\d+) offsets", line)
        if m:
            counts["relr"] += int(m.group(1))
    return counts


@pytest.mark.parametrize("variant", ["default", "relr", "symbolic", "hidden"])
def test_relocation_counts_match_readelf(small, variant):
    _, tree = small
    program = tree / variants.by_name(variant).program()
    described = elfinfo.describe_tree(program)
    for obj in described["objects"]:
        mine = obj["relocations"]
        theirs = _readelf_counts(Path(obj["path"]))
        assert {k: mine[k] for k in theirs} == theirs, obj["path"]


def test_relative_relocations_are_k_per_function(small):
    shape, tree = small
    default = elfinfo.describe_tree(tree / "out/default/prog")["relocations"]
    relr = elfinfo.describe_tree(tree / "out/relr/prog")["relocations"]
    n_pointers = shape.libs * shape.exports * shape.relocs
    assert default["relative"] >= n_pointers and default["relr"] == 0
    assert relr["relr"] >= n_pointers and relr["relative"] == 0
    assert relr["relr"] == default["relative"]  # the same relocations, packed


def test_symbol_lookups_grow_as_the_generated_code_implies(small, larger):
    """default: per function, K globals + its own address in the library, + one reference from main;
    plus, per library, the 4 weak references every gcc-built library makes (__cxa_finalize,
    __gmon_start__, _ITM_registerTMCloneTable, _ITM_deregisterTMCloneTable)."""
    for shape, tree in (small, larger):
        empty = _lookups(tree / "out/empty/prog")
        got = {v: _lookups(tree / f"out/{v}/prog") - empty for v in ("default", "symbolic", "hidden")}
        functions, crt = shape.libs * shape.exports, 4 * shape.libs
        assert got["default"] == functions * (shape.relocs + 2) + crt
        assert got["symbolic"] == functions + crt      # only main's references: the libraries bind themselves
        assert got["hidden"] == 2 * functions + crt    # main's references + each function's own address
        # and the files say the same: one lookup per symbolic relocation (lazy binding: no PLT slots)
        empty_files = elfinfo.describe_tree(tree / "out/empty/prog")["relocations"]
        for v in got:
            files = elfinfo.describe_tree(tree / f"out/{v}/prog")["relocations"]
            symbolic = files["glob_dat"] + files["symbolic_other"] - empty_files["glob_dat"] - empty_files["symbolic_other"]
            assert symbolic == got[v], v


def test_generator_refuses_absurd_sizes():
    for bad in (generate.Shape(libs=-1), generate.Shape(libs=200_000), generate.Shape(exports=0),
                generate.Shape(libs=100_000, exports=1_000_000)):
        with pytest.raises(UsageError):
            bad.validate()


def test_gen_command_writes_sources_and_ninja_and_refuses_bad_input(tmp_path):
    out = tmp_path / "lt"
    p = run_cli("loadtime", "gen", "--libs", "2", "--exports", "2", "--relocs", "1", "--out", str(out), "--no-build")
    assert p.returncode == 0, p.stderr
    assert (out / "build.ninja").is_file() and (out / "src" / "lib1.c").is_file()
    again = run_cli("loadtime", "gen", "--out", str(out))
    assert again.returncode == 2 and "already exists" in again.stderr
    bad = run_cli("loadtime", "gen", "--libs", "-3", "--out", str(tmp_path / "x"))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "negative" in bad.stderr
    missing = run_cli("loadtime", "gen", "--out", str(tmp_path / "no" / "such" / "dir"))
    assert missing.returncode == 2 and "parent directory" in missing.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lt", "tmp"]  # nothing half-written


def test_launch_timer_records_every_round_and_reports_failures(small, tools):
    _, tree = small
    targets = [launch_settings.Target("default", (str(tree / "out/default/prog"),)),
               launch_settings.Target("missing", ("/nonexistent/prog",)),
               launch_settings.Target("hang", ("/bin/sleep", "5")),
               launch_settings.Target("fails", ("/bin/false",)),
               launch_settings.Target("true-stamped", ("/bin/true",), (("LD_PRELOAD", str(tools.stamp_lib)),))]
    run = timer.run(targets, launch_settings.LaunchSettings(runs=4, warmup=1, timeout=0.5), tools)
    assert [x.round for x in run.of("default")] == [0, 1, 2, 3]
    assert all(x.main_ns is not None and x.main_ns <= x.exit_ns for x in run.of("default"))
    assert all(x.main_ns is not None for x in run.of("true-stamped"))
    assert "No such file" in run.failures["missing"]
    assert "timed out" in run.failures["hang"]
    assert run.failures["fails"] == "exit status 1"
    assert run.descriptor["clock"] == "CLOCK_MONOTONIC"


def test_launch_timer_reports_a_crash(tools, tmp_path):
    src = tmp_path / "crash.c"
    src.write_text("#include <signal.h>\nint main(void){raise(SIGSEGV);return 0;}\n")
    subprocess.run(["cc", str(src), "-o", str(tmp_path / "crash")], check=True)
    run = timer.run([launch_settings.Target("crash", (str(tmp_path / "crash"),))], launch_settings.LaunchSettings(runs=2), tools)
    assert run.failures["crash"] == "killed by signal 11"


def test_launch_command_and_vs(tmp_path):
    out = tmp_path / "l.json"
    p = run_cli("launch", "--runs", "5", "--export-json", str(out), "--", "/bin/true")
    assert p.returncode == 0, p.stderr
    exp = json.loads(out.read_text())["experiments"][0]
    assert exp["metric"] == "main_ns" and len(exp["cases"][0]["samples"]) == 5
    assert exp["preload_cost"] is not None
    p = run_cli("launch", "--runs", "5", "--export-json", str(out), "/bin/true", "--vs", "/bin/echo", "hi")
    assert p.returncode == 0, p.stderr
    assert "ratios to true" in p.stdout and "echo hi" in p.stdout
    # The verdict is on spawn->main; B/A to exit, paired per round, is kept and said beside it.
    echo = json.loads(out.read_text())["experiments"][0]["cases"][1]
    assert echo["exit_ratio"]["rounds"] == 5 and len(echo["exit_ratio"]["ci95"]) == 2
    answer = " ".join(p.stdout.split())
    assert " than true in spawn->main (" in answer or "no difference from true in spawn->main (" in answer
    assert "), spawn->exit " in answer
    bad = run_cli("launch", "--", "no-such-command-xyz")
    assert bad.returncode == 2 and bad.stderr.strip() == "layertax: error: command not found: no-such-command-xyz"


@pytest.mark.slow
def test_run_loadtime_quick_end_to_end(tmp_path):
    out = tmp_path / "r.json"
    p = run_cli("run", "loadtime", "--quick", "--runs", "3", "--export-json", str(out), "--verbose", timeout=600)
    assert p.returncode == 0, p.stderr
    assert "three views" in p.stdout and "by name: bound" in p.stdout     # the views: detail, --verbose
    exp = json.loads(out.read_text())["experiments"][0]
    assert exp["shape"] == {"libs": 10, "exports": 100, "relocs": 5, "name_len": 0}
    cases = {c["name"]: c for c in exp["cases"]}
    default = cases["default"]
    assert len(default["samples"]) == 3 and all("minflt" in s and "exit_ns" in s for s in default["samples"])
    assert default["loader"]["lookups"] == default["elf"]["relocations"]["glob_dat"] + \
        default["elf"]["relocations"]["symbolic_other"] - 5 + cases["empty"]["loader"]["lookups"]
    assert default["elf"]["relocations"]["relative"] == 5000 + 33
    assert cases["static"]["loader"]["status"] == "none"
    # Several LD_DEBUG launches per variant, one per round, all kept; the one shown is their median.
    readings = default["loader"]["readings"]
    assert sorted(r["round"] for r in readings) == list(range(measure.LOADER_READINGS))
    totals = sorted(r["total_ns"] for r in readings if r["total_ns"] is not None)   # none without a TSC rate
    assert not totals or default["loader"]["total_ns"] == totals[(len(totals) - 1) // 2]
    # spawn->main split into stages measured in those launches: every dynamic variant, no static one.
    split = {s["variant"]: s for s in exp["split"]}
    assert "static" not in split
    if totals:
        assert "default" in split
        assert all(v["n"] == len(totals) for v in split["default"]["stages"].values())
    assert [t["title"] for t in exp["tables"]][0].startswith("the loader")
    # Its method is the timer's (launches), not the kernels' rounds of samples of >= 5 ms.
    assert exp["method"].startswith("3 launches per variant") and "samples >=" not in p.stdout


@pytest.mark.slow
def test_run_loadtime_honours_case_and_keeps_the_baseline_and_the_control(tmp_path):
    out = tmp_path / "r.json"
    p = run_cli("run", "loadtime", "--case", "static", "--runs", "2", "--warmup", "0", "--no-save",
                "--export-json", str(out), timeout=600)
    assert p.returncode == 0, p.stderr
    exp = json.loads(out.read_text())["experiments"][0]
    assert [c["name"] for c in exp["cases"]] == ["default", "static", "empty"]
    assert all(len(c["samples"]) == 2 for c in exp["cases"])


def test_unicode_io_honours_case(tmp_path):
    out = tmp_path / "r.json"
    p = run_cli("run", "unicode-io", "--case", "py-print", "--no-save", "--export-json", str(out), timeout=600)
    assert p.returncode == 0, p.stderr
    names = [c["name"] for c in json.loads(out.read_text())["experiments"][0]["cases"]]
    assert names == ["c-printf", "py-print"]


@pytest.mark.slow
def test_run_loadtime_goes_on_until_each_ratio_is_precise(tmp_path):
    """Without --runs the variants' launches go on from the rule's first checkpoint (32 for
    --quick) while a ratio is wider than the target, up to its maximum (56): each variant's rounds
    are numbered on across the timer's runs, the baseline runs in every one of them, and the
    result says why each stopped."""
    out = tmp_path / "r.json"
    p = run_cli("run", "loadtime", "--quick", "--case", "static", "--no-save", "--export-json", str(out), timeout=600)
    assert p.returncode == 0, p.stderr
    exp = json.loads(out.read_text())["experiments"][0]
    stopping = exp["stopping"]
    assert stopping["rule"] == {"precision": 0.05, "min_rounds": 32, "max_rounds": 56, "checkpoints": [32, 40, 56],
                                "confidence": measure.LAUNCH_CONFIDENCE}
    rounds = {c["name"]: sorted(s["round"] for s in c["samples"]) for c in exp["cases"]}
    longest = max(c["rounds"] for c in stopping["cases"].values())
    for name, case in stopping["cases"].items():
        # A variant that stopped and went on again (widened by the drift of the rounds after its
        # stop) skipped the rounds between: its rounds are then not one run from 0.
        assert len(rounds[name]) == case["rounds"] and len(set(rounds[name])) == case["rounds"]
        assert rounds[name][:32] == list(range(32)) and rounds[name][-1] < longest
        assert case["stopped"] in ("precise", "max rounds")
    assert rounds["default"] == list(range(longest))
    low, high = min(c["rounds"] for c in stopping["cases"].values()), longest
    assert exp["method"].startswith(f"{low}-{high} launches per variant (from 32, up to 56 until its ratio is within ±5%")
    assert "precision: " in p.stdout
