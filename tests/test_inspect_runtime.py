"""inspect past main: each runtime's trace parsed and summed from synthetic logs, the whole
start-up and the fixes priced from synthetic launches (never a negative saving), and one real
traced run per runtime that is installed here."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import run_cli
from layertax.inspect import runtime, whole, whole_tables
from layertax.inspect.runtime import cpython, golang, jvm, node
from layertax.report import format as fmt

IMPORTTIME = """import time: self [us] | cumulative | imported package
import time:       100 |        100 |   _io
import time:       250 |        350 | encodings
import time:      1200 |       1200 |     asyncio.events
import time:       300 |       1500 |   asyncio
not an import line
"""
INITTRACE = """init internal/bytealg @0.008 ms, 0 ms clock, 0 bytes, 0 allocs
init runtime @0.040 ms, 0.052 ms clock, 0 bytes, 0 allocs
init main @1.6 ms, 4.3 ms clock, 964232 bytes, 39739 allocs
"""
JVM_LOG = """[0.003s][info][startuptime] StubRoutines generation 1, 0.0001717 secs
[0.023s][info][startuptime] Genesis, 0.0203535 secs
[0.020s][info][class,load] java.lang.Object source: shared objects file
[0.021s][info][class,load] java.lang.String source: shared objects file
[0.030s][info][class,load] Hello source: file:/tmp/
[0.051s][info][startuptime] Create VM, 0.0499655 secs
"""


# -X importtime and -v in one run (their lines interleave on stderr): the interpreter's own
# imports, site's, then the program's; each module's loader, a code object read before the
# module runs (and before what it imports), one compiled from source and one that failed.
IMPORTTIME_VERBOSE = """import _frozen_importlib # frozen
import '_io' # <class '_frozen_importlib.BuiltinImporter'>
import time: self [us] | cumulative | imported package
import time:       100 |        100 |   _io
# code object from '/usr/lib/python3.11/encodings/__pycache__/__init__.cpython-311.pyc'
import 'encodings' # <_frozen_importlib_external.SourceFileLoader object at 0x7f0>
import time:       250 |        350 | encodings
# code object from '/usr/lib/python3.11/__pycache__/site.cpython-311.pyc'
import 'os' # <class '_frozen_importlib.FrozenImporter'>
import time:       400 |        400 |   os
import time:        20 |         20 |   apport_python_hook
import 'site' # <_frozen_importlib_external.SourceFileLoader object at 0x7f5>
import time:      1000 |       1420 | site
# code object from '/usr/lib/python3.11/asyncio/__pycache__/__init__.cpython-311.pyc'
# code object from '/usr/lib/python3.11/asyncio/__pycache__/events.cpython-311.pyc'
# extension module '_json' loaded from '/usr/lib/python3.11/lib-dynload/_json.so'
import '_json' # <_frozen_importlib_external.ExtensionFileLoader object at 0x7f1>
import time:        50 |         50 |       _json
import 'asyncio.events' # <_frozen_importlib_external.SourceFileLoader object at 0x7f2>
import time:      1200 |       1250 |     asyncio.events
import 'asyncio' # <_frozen_importlib_external.SourceFileLoader object at 0x7f3>
import time:       300 |       1550 | asyncio
# code object from /home/me/tool/mymod.py
import 'mymod' # <_frozen_importlib_external.SourceFileLoader object at 0x7f4>
import time:        80 |         80 | mymod
not an import line
"""


def test_cpython_imports_sum_each_modules_self_time_once(tmp_path):
    split = cpython.parse("", IMPORTTIME, tmp_path)
    assert [(s.name, s.ns) for s in split.stages] == [("the program's imports (4 modules)", 1_850_000.0)]
    assert split.details == ["imports by package (self time): asyncio 1.5 ms, encodings 0.2 ms, _io 0.1 ms"]
    assert cpython.parse("", "no imports here", tmp_path).problem


def test_cpython_imports_split_into_start_up_site_and_the_program_and_by_how_they_load(tmp_path):
    split = cpython.parse("", IMPORTTIME_VERBOSE, tmp_path)
    assert [(s.name, s.ns) for s in split.stages] == [
        ("the interpreter's own imports (2 modules)", 350_000.0),
        ("site's imports (3 modules)", 1_420_000.0),
        ("the program's imports (4 modules)", 1_630_000.0)]
    cpython.classify(split, "", IMPORTTIME_VERBOSE)    # the second traced run's -v lines
    assert sum(s.ns for s in split.stages) == 3_400_000.0       # every module's self time, once
    kinds = cpython.load_kinds(IMPORTTIME_VERBOSE)
    assert kinds == {"_io": cpython.BUILTIN, "encodings": cpython.PYC, "os": cpython.FROZEN, "site": cpython.PYC,
                     "_json": cpython.EXTENSION, "asyncio.events": cpython.PYC, "asyncio": cpython.PYC,
                     "mymod": cpython.SOURCE}
    assert split.details[1] == ("imports by how they load (self time): cached .pyc 4 modules 2.8 ms, "
                                "frozen 1 module 0.4 ms, built in 1 module 0.1 ms, compiled from source 1 module "
                                "0.1 ms, extension module 1 module 0.1 ms, not found or failed 1 module 0.0 ms")
    assert split.details[2].startswith("1 module compiled from source on every start (mymod)")
    written = IMPORTTIME_VERBOSE.replace("import 'mymod'", "# created '/home/me/tool/__pycache__/mymod.cpython-311.pyc'"
                                         "\nimport 'mymod'")
    assert cpython.load_kinds(written)["mymod"] == cpython.WRITTEN
    again = cpython.parse("", written, tmp_path)
    cpython.classify(again, "", written)
    assert len(again.details) == 2                                      # a first run wrote its .pyc: no advice


def test_go_initialisers_sum_their_clock_time(tmp_path):
    split = golang.parse("", INITTRACE, tmp_path)
    assert split.stages[0].name == "package initialisers (3 packages)"
    assert split.stages[0].ns == pytest.approx(4.352e6)
    assert split.details[0].startswith("initialisers by clock time: main 4.30 ms (39,739 allocs)")


def test_the_jvm_log_gives_vm_creation_and_the_classes_and_where_they_came_from(tmp_path):
    (tmp_path / jvm.LOG).write_text(JVM_LOG)
    split = jvm.parse("", "", tmp_path)
    assert [(s.name, s.ns) for s in split.stages] == [("VM creation", pytest.approx(49_965_500))]
    assert "classes loaded: 3, 2 of them from a CDS archive" in split.details[1]
    (tmp_path / jvm.LOG).write_text("")
    assert jvm.parse("", "", tmp_path).problem


def _hsperfdata(values: dict[str, int], order: str = "<") -> bytes:
    """A HotSpot performance data file (format 2.0) holding these long counters."""
    import struct

    entries = b""
    for name, value in values.items():
        raw = name.encode() + b"\0"
        raw += b"\0" * (-(20 + len(raw)) % 8)
        length = 20 + len(raw) + 8
        entries += struct.pack(order + "IIIBBBBI", length, 20, 0, ord("J"), 0, 3, 3, 20 + len(raw)) + raw
        entries += struct.pack(order + "q", value)
    prologue = b"\xca\xfe\xc0\xc0" + bytes([1 if order == "<" else 0, 2, 0, 1])
    return prologue + struct.pack(order + "IIqII", 32 + len(entries), 0, 0, 32, len(values)) + entries


@pytest.mark.parametrize("order", ["<", ">"])
def test_hotspots_saved_counters_give_the_class_loaders_time(order):
    from layertax.inspect.runtime import hsperfdata

    data = _hsperfdata({"sun.os.hrt.frequency": 1_000_000, "sun.cls.time": 4_000, "sun.cls.classInitTime.self": 2_500,
                        "sun.cls.classLinkedTime.self": 1_500, "java.cls.loadedClasses": 363}, order)
    found = hsperfdata.counters(data)
    assert found["java.cls.loadedClasses"] == 363
    assert hsperfdata.class_loading(found) == {"total": 4e6, "initialisation": 2.5e6, "linking": 1.5e6,
                                              "verification": 0.0}
    assert hsperfdata.counters(b"not a counters file" * 4) == {}
    assert hsperfdata.counters(data[:60]) == {}             # cut short: nothing, never an error
    assert hsperfdata.class_loading({"sun.cls.time": 1}) is None


def test_node_timing_marks_become_consecutive_stages(tmp_path):
    line = node.MARK + json.dumps({"nodeStart": 0.5, "v8Start": 40.5, "environment": 48.5, "bootstrapComplete": 56.5,
                                   "loopStart": 60.5, "exit": 70.5})
    split = node.parse("", "noise\n" + line + "\n", tmp_path)
    assert [s.name for s in split.stages] == [name for name, _, _ in node.STAGES]
    assert sum(s.ns for s in split.stages) == pytest.approx(70e6)
    assert node.parse("", "", tmp_path).problem


def _launch(rnd: int, main: int, exit_: int) -> dict:
    return {"round": rnd, "main_ns": main, "exit_ns": exit_}


def _result(fix_exit: list[int]) -> dict:
    lazy = {"name": "lazy", "status": "ok", "samples": [_launch(r, 1_000_000, 50_000_000 + 100_000 * r) for r in range(12)]}
    fix = {"name": whole.FIX_PREFIX + "try", "status": "ok", "caveat": None,
           "samples": [_launch(r, 1_000_000, e) for r, e in enumerate(fix_exit)]}
    broken = {"name": whole.FIX_PREFIX + "broken", "status": "failed", "reason": "exit status 1", "samples": []}
    return {"cases": [lazy, fix, broken]}


def test_a_program_that_does_not_stamp_main_has_its_whole_start_up_split_by_its_runtime():
    result = _result([40_000_000] * 12)
    for s in result["cases"][0]["samples"]:
        s["main_ns"] = None                  # a static Go binary: no stamp at main
    parts = whole.whole(result, "lazy")
    assert set(parts) == {"spawn->exit"}
    split = {"runtime": "Go", "traced_ns": parts["spawn->exit"]["ns"],
             "stages": [{"name": "package initialisers", "ns": 20e6, "source": "GODEBUG=inittrace=1"}]}
    rows = whole_tables.whole_table({"whole": parts, "runtime_split": split})["rows"]
    assert [r[0] for r in rows] == ["spawn->exit", "  package initialisers", "  not named by the trace (residual)"]
    assert rows[1][1] + rows[2][1] == pytest.approx(parts["spawn->exit"]["ns"])


def test_the_whole_start_up_splits_at_main_with_shares_that_add_up():
    parts = whole.whole(_result([40_000_000] * 12), "lazy")
    assert parts["spawn->main"]["ns"] == 1_000_000
    assert parts["main->exit"]["ns"] == pytest.approx(49_550_000)
    assert parts["spawn->main"]["share"] + parts["main->exit"]["share"] == pytest.approx(1.0)
    split = {"runtime": "CPython", "traced_ns": 50.6e6,
             "stages": [{"name": "imports", "ns": 30e6, "source": "-X importtime"}]}
    rows = whole.runtime_rows(split, parts)
    assert rows[-1]["stage"].startswith("not named") and rows[-1]["ns"] == pytest.approx(19_550_000)
    assert whole.trace_matches(split, parts) and not whole.trace_matches({**split, "traced_ns": 80e6}, parts)


@pytest.mark.parametrize("fix_exit, word", [([40_000_000] * 12, "saving"), ([50_500_000] * 12, "noise"),
                                            ([70_000_000] * 12, "slower")])
def test_a_fix_is_priced_by_its_paired_saving_never_a_negative_one(fix_exit, word):
    result = _result(fix_exit)
    rows = whole.fix_rows(result, "lazy")
    tried, broken = rows
    assert broken["status"] == "failed" and "saving" not in broken
    saving = tried["saving"]
    assert saving["ns"] >= 0
    table = fmt.written(whole_tables.fixes_tried_table({"fixes_tried": rows}))   # written as report/ writes it
    text = table["rows"][0][1]
    if word == "saving":
        assert saving["ns"] == pytest.approx(10_550_000) and text.startswith("10.6 ms")
    elif word == "noise":
        assert text.startswith("no measurable saving")
    else:
        assert text.startswith("none: slower by")
    assert table["rows"][1][1] == "the program failed with it"


def test_until_output_ends_the_start_up_at_the_first_byte_and_prices_fixes_there():
    result = _result([40_000_000] * 12)
    for case in result["cases"]:
        for s in case["samples"]:
            s["output_ns"] = s["exit_ns"] - 5_000_000
    parts = whole.whole(result, "lazy", until_output=True)
    assert whole.end_of(parts) == "output"
    assert parts["spawn->main"]["share"] + parts["main->output"]["share"] == pytest.approx(1.0)
    assert parts["output->exit"]["ns"] == pytest.approx(5_000_000) and parts["spawn->exit"]["share"] is None
    assert parts["spawn->output"]["ns"] == pytest.approx(parts["spawn->exit"]["ns"] - 5_000_000)
    assert whole.end_of(whole.whole(result, "lazy")) == "exit"        # not asked: the exit, as before
    rows = whole.fix_rows(result, "lazy", "output")
    assert rows and all(r["saving"]["ns"] >= 0 for r in rows if r.get("saving"))
    said = whole.answer("p", parts, None, [], rows)
    assert said.startswith("p: ") and "spawn->output" in said and "after it until its first output" in said
    table = whole_tables.whole_table({"whole": parts})
    assert [r[0] for r in table["rows"]][:4] == ["spawn->main", "main->output", "spawn->output", "output->exit"]
    silent = whole.whole(_result([40_000_000] * 12), "lazy", until_output=True)    # wrote nothing: exit
    assert whole.end_of(silent) == "exit"
    assert "wrote nothing" in " ".join(whole_tables.whole_table({"whole": silent, "until_output": True})["notes"])


def test_the_answer_leads_with_the_whole_and_the_biggest_measured_saving():
    result = _result([40_000_000] * 12)
    parts = whole.whole(result, "lazy")
    rows = whole.runtime_rows({"runtime": "CPython", "stages": [{"name": "imports", "ns": 30e6,
                                                                 "source": "-X importtime"}]}, parts)
    said = whole.answer("python3 -c pass", parts, "CPython", rows, whole.fix_rows(result, "lazy"))
    assert said == ("python3 -c pass: 50.5 ms spawn->exit; 2% reaching main, 98% after it (CPython: imports 30.0 ms); "
                    "biggest measured saving: try, 10.6 ms")


NPM = "/usr/lib/node_modules/npm/bin/npm-cli.js"
RUNTIMES = [("python3", ["/usr/bin/python3", "-c", "import json"], cpython),
            ("pip", ["/usr/bin/python3", "-m", "pip", "--version"], cpython),
            ("java", ["java", "-version"], jvm), ("node", ["node", "-e", "0"], node),
            ("npm", ["node", NPM, "--version"], node)]


@pytest.mark.slow
@pytest.mark.parametrize("name, argv, module", RUNTIMES, ids=[r[0] for r in RUNTIMES])
def test_a_real_traced_run_of_each_runtime_installed(name, argv, module, tmp_path):
    found = shutil.which(argv[0])
    if not found:
        pytest.skip(f"{name} is not installed (apt-get install {name})")
    argv = [found, *argv[1:]]
    if name == "npm" and not Path(NPM).exists():
        pytest.skip("npm is not installed (apt-get install npm)")
    if name == "pip" and subprocess.run([*argv], capture_output=True).returncode != 0:
        pytest.skip("pip is not installed for /usr/bin/python3 (apt-get install python3-pip)")
    rt = runtime.recognise(Path(found), argv[1:])
    assert rt is module
    split = runtime.split(rt, argv, tmp_path)
    assert split.problem is None and split.stages and all(s.ns > 0 for s in split.stages)
    assert split.traced_ns and split.traced_ns > 0
    if module is jvm:
        assert any(d.startswith("class loading, linking and initialisation: ") for d in split.details)
    if module is cpython:
        assert any(d.startswith("imports by how they load (self time): ") for d in split.details)


@pytest.mark.slow
def test_a_real_traced_run_of_a_small_jar(tmp_path):
    javac, jar = shutil.which("javac"), shutil.which("jar")
    if not javac or not jar:
        pytest.skip("no JDK here (apt-get install openjdk-17-jdk-headless)")
    (tmp_path / "Hello.java").write_text('public class Hello { public static void main(String[] a) {'
                                         ' System.out.println(String.join(",", java.util.List.of("a", "b"))); } }')
    subprocess.run([javac, "Hello.java"], cwd=tmp_path, check=True, capture_output=True, timeout=120)
    subprocess.run([jar, "--create", "--file", "hello.jar", "--main-class", "Hello", "Hello.class"], cwd=tmp_path,
                   check=True, capture_output=True, timeout=120)
    java = shutil.which("java")
    argv = [java, "-jar", str(tmp_path / "hello.jar")]
    rt = runtime.recognise(Path(java), argv[1:])
    work = tmp_path / "work"
    work.mkdir()
    split = runtime.split(rt, argv, work)
    assert split.problem is None and split.stages[0].name == "VM creation"
    loaded = next(d for d in split.details if d.startswith("classes loaded: "))
    assert int(loaded.split()[2].rstrip(",").replace(",", "")) > 0
    for fix in runtime.fixes(rt, argv, work):      # the AppCDS archive is made from the jar's own run
        assert runtime.prepare(fix, work) is None, fix.name


@pytest.mark.slow
def test_a_real_go_binary_with_a_heavy_init(tmp_path):
    go = shutil.which("go")
    if not go:
        pytest.skip("go is not installed (apt-get install golang)")
    (tmp_path / "main.go").write_text(
        'package main\nimport ("crypto/sha256"; "fmt")\nvar t = build()\n'
        'func build() [][32]byte { o := make([][32]byte, 2000); for i := range o { o[i] = sha256.Sum256([]byte(fmt.Sprint(i))) }; return o }\n'
        'func main() { fmt.Println(len(t)) }\n')
    (tmp_path / "go.mod").write_text("module heavy\n\ngo 1.21\n")
    import subprocess
    subprocess.run([go, "build", "-o", "heavy", "."], cwd=tmp_path, check=True, capture_output=True, timeout=300,
                   env={**__import__("os").environ, "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local"})
    binary = tmp_path / "heavy"
    assert runtime.recognise(binary, []) is golang
    out = tmp_path / "r.json"                       # inspected as a user would: launched, traced, a fix tried
    r = run_cli("inspect", "--runs", "3", "--no-predict", "--no-save", "--export-json", str(out), str(binary))
    assert r.returncode == 0, r.stderr
    exp = json.loads(out.read_text())["experiments"][0]
    split = exp["runtime_split"]
    assert split["runtime"] == "Go" and not split["problem"] and "main" in split["details"][0]
    assert any(row[0].startswith("  package initialisers") for row in exp["tables"][0]["rows"])
    assert [f["fix"] for f in exp["fixes_tried"] if f["status"] == "ok"] == ["GOGC=off"]


@pytest.mark.slow
def test_inspect_of_python_prints_the_whole_start_up_until_its_output_and_prices_its_fixes(tmp_path):
    out = tmp_path / "r.json"
    r = run_cli("inspect", "--runs", "3", "--no-predict", "--no-save", "--until-output", "--export-json", str(out),
                "/usr/bin/python3", "--", "-c", "print('ready')")
    assert r.returncode == 0, r.stderr
    exp = json.loads(out.read_text())["experiments"][0]
    assert set(exp["whole"]) >= {"spawn->main", "main->exit", "spawn->exit", "spawn->output", "main->output"}
    assert exp["whole"]["spawn->output"]["share"] == 1.0 and exp["whole"]["spawn->exit"]["share"] is None
    assert "spawn->output" in exp["answer"] and "saving on spawn->output" in r.stdout
    assert exp["runtime_split"]["runtime"] == "CPython" and exp["runtime_split"]["stages"]
    assert {f["fix"] for f in exp["fixes_tried"]} >= {"python -S (no site module)", "python -I (isolated)"}
    assert all(f.get("saving", {}).get("ns", 0) >= 0 for f in exp["fixes_tried"])
    assert r.stdout.splitlines()[r.stdout.splitlines().index(exp["question"]) + 1].startswith("python3 -c print('ready'): ")
    assert "the whole start-up" in r.stdout and "fixes tried" in r.stdout


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["java", "-version"]], ids=["java"])
def test_inspect_of_each_runtime_installed_splits_it_and_prices_a_fix_by_timing_it(argv, tmp_path):
    """java through the command line (python3's and a Go binary's are below; node's real run is the
    traced one above: a whole inspect of node reads a 90 MB binary and costs the suite 10 s)."""
    if not shutil.which(argv[0]):
        pytest.skip(f"{argv[0]} is not installed")
    out = tmp_path / "r.json"
    r = run_cli("inspect", "--runs", "3", "--no-predict", "--no-save", "--export-json", str(out), argv[0], "--",
                *argv[1:])
    assert r.returncode == 0, r.stderr
    exp = json.loads(out.read_text())["experiments"][0]
    assert exp["runtime_split"]["stages"] and not exp["runtime_split"]["problem"]
    rows = whole.runtime_rows(exp["runtime_split"], exp["whole"])
    total, after_main = sum(row["ns"] for row in rows), exp["whole"]["main->exit"]["ns"]
    assert 0.9 * after_main <= total <= 1.1 * after_main          # the residual closes it, within 10%
    priced = [f for f in exp["fixes_tried"] if f["status"] == "ok"]
    assert priced and all(f["saving"]["ns"] >= 0 for f in priced)


def _model() -> dict:
    per = {"symbol_lookups": 50.0, "relative_relocations": 11.4, "libraries": 20_000.0}
    return {"coefficients": {k: {"ns_per_unit": v} for k, v in per.items()}}


def test_no_estimated_saving_exceeds_the_loaders_measured_stages_and_relr_is_priced():
    from layertax.inspect import model, static

    pic = static.picture(Path("/usr/bin/python3"))
    rows = model.fixes(pic, _model(), None, 5000, None, static_gain=50e6, ldso_ns=2e6)
    by = {r["fix"]: r for r in rows}
    assert by["static linking"]["saves_ns"] == 2e6 and by["static linking"]["bounded"]
    assert all(r["saves_ns"] <= 2e6 for r in rows)
    relative = sum(o["elf"]["relocations"].get("relative", 0) for o in pic.objects
                   if o.get("elf") and not o["elf"]["relocations"]["relr"])
    assert relative > 0 and by["RELR (-z pack-relative-relocs)"]["saves_ns"] == pytest.approx(min(relative * 11.4, 2e6))
    assert by["RELR (-z pack-relative-relocs)"]["upper_bound"]


def test_a_measured_binding_difference_inside_its_noise_is_no_saving():
    from layertax.inspect import model, static, tables

    pic = static.picture(Path("/usr/bin/python3"))
    gain = {"lazy_saves": {"ns": 0.0, "within_noise_ns": 22_100.0, "n": 30},
            "ratio": {"median": 0.98, "ci95": [0.93, 1.01]}}
    rows = model.fixes(pic, _model(), None, 5000, gain, None, ldso_ns=2e6)
    lazy = next(r for r in rows if r["fix"].startswith("lazy binding"))
    assert lazy["saves_ns"] == 0.0
    assert tables._saves(lazy).startswith("no measurable saving")


def test_a_trace_its_logging_slowed_is_read_as_shares_and_leaves_no_negative_residual():
    parts = whole.whole(_result([40_000_000] * 12), "lazy")       # spawn->exit 50.55 ms
    split = {"runtime": "CPython", "traced_ns": 124e6,
             "stages": [{"name": "imports", "ns": 52.8e6, "source": "-X importtime"}]}
    rows = whole.runtime_rows(split, parts)
    assert rows[0]["ns"] == pytest.approx(52.8e6 / 124e6 * parts["spawn->exit"]["ns"])
    assert rows[0]["source"] == "-X importtime"
    # its share of spawn->exit, as the measured parts' are: its share of the traced run
    assert rows[0]["share"] == pytest.approx(52.8e6 / 124e6)
    assert rows[-1]["ns"] >= 0


def test_ld_sos_start_up_work_is_named_function_by_function_from_a_profile():
    from layertax.elf import startup_work
    from layertax.engine.measure import callgrind

    ld = "ld-linux-x86-64.so.2"
    profile = callgrind.Profile(total=1000)
    profile.self_cost[(ld, "_dl_start")] = 10
    for caller, callee, n in (("_dl_start", "_dl_sysdep_start", 900), ("_dl_sysdep_start", "dl_main", 700),
                              ("dl_main", "_dl_relocate_object", 500), ("_dl_sysdep_start", "__GI___tunables_init", 150),
                              ("dl_main", "mystery", 50)):
        profile.calls[((ld, caller), (ld, callee))] = n
    work = startup_work.summarise(profile)
    assert work["loader_instructions"] == 910
    names = [f["function"] for f in work["functions"]]
    assert names == ["_dl_relocate_object", "__GI___tunables_init", "mystery"]
    assert work["functions"][0]["source"] == "elf/dl-reloc.c" and work["functions"][2]["what"] is None
    assert work["functions"][0]["share"] == pytest.approx(500 / 910)


@pytest.mark.slow
def test_inspect_vs_splits_two_programs_side_by_side(tmp_path):
    out = tmp_path / "r.json"
    r = run_cli("inspect", "--runs", "3", "--no-predict", "--no-save", "--export-json", str(out),
                "/bin/true", "--vs", "/bin/echo hello")
    assert r.returncode == 0, r.stderr
    exp = json.loads(out.read_text())["experiments"][0]
    assert exp["vs"]["name"] == "vs: echo hello"
    assert set(exp["vs"]) >= {"spawn->main", "spawn->exit"} and exp["vs"]["spawn->exit"]["ratio"]["median"] > 0
    assert exp["split"]["vs: echo hello"]["status"] == "ok"
    assert "true against echo hello" in r.stdout and "of its spawn->exit, paired per round" in r.stdout
    bad = run_cli("inspect", "--no-save", "/bin/true", "--vs", "/no/such/program")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "no such file" in bad.stderr
