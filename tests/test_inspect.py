"""inspect: the static analyser against readelf and ld.so, the lookups against LD_DEBUG, bad input, the report."""
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from layertax.commands.inspect import notes_on
from layertax.console import SafeConsole
from layertax.elf import elfinfo, ldstats, libpath
from layertax.errors import LayertaxError
from layertax.programs import generate, variants
from layertax.programs.build import build_variants
from layertax.inspect import model, static
from conftest import run_cli

VARIANTS = ["default", "symbolic", "hidden", "relr", "now", "sysv-hash"]
LD_SO = "/lib64/ld-linux-x86-64.so.2"


@pytest.fixture(scope="session")
def tree(cache_root):
    shape = generate.Shape(libs=3, exports=4, relocs=3)
    built, _ = build_variants(shape, [variants.by_name(n) for n in VARIANTS], cache_root / "layertax")
    return built


def _programs(tree):
    return [tree / variants.by_name(v).program() for v in VARIANTS]


def _readelf_relocs(path: Path) -> dict[str, int]:
    out = subprocess.run(["readelf", "-rW", str(path)], capture_output=True, text=True, check=True).stdout
    counts = {"relative": 0, "glob_dat": 0, "jump_slot": 0, "symbolic_other": 0, "relr": 0}
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+\s+[0-9a-f]+\s+(R_X86_64_\w+)", line)
        if m:
            t = m.group(1)
            kind = {"R_X86_64_RELATIVE": "relative", "R_X86_64_GLOB_DAT": "glob_dat",
                    "R_X86_64_JUMP_SLOT": "jump_slot"}.get(t, "symbolic_other")
            if t not in ("R_X86_64_IRELATIVE", "R_X86_64_COPY"):
                counts[kind] += 1
        m = re.match(r"\s*(\d+) offsets", line)
        if m:
            counts["relr"] += int(m.group(1))
    return counts


def _readelf_dynsyms(path: Path) -> tuple[int, int]:
    out = subprocess.run(["readelf", "--dyn-syms", "-W", str(path)], capture_output=True, text=True, check=True).stdout
    exported = imported = 0
    for line in out.splitlines():
        f = line.split()
        if len(f) < 8 or not f[0].rstrip(":").isdigit() or f[4] == "LOCAL":
            continue
        if f[6] == "UND":
            imported += 1
        elif f[5] in ("DEFAULT", "PROTECTED"):
            exported += 1
    return exported, imported


def _objects(tree):
    for program in _programs(tree):
        yield program
        for lib in sorted(program.parent.glob("*.so")):
            yield lib


def test_relocation_and_symbol_counts_agree_with_readelf(tree):
    for path in [*_objects(tree), Path("/usr/bin/git"), Path("/lib/x86_64-linux-gnu/libc.so.6")]:
        obj = elfinfo.read(path)
        mine = {k: obj.relocations[k] for k in ("relative", "glob_dat", "jump_slot", "symbolic_other", "relr")}
        assert mine == _readelf_relocs(path), path
        assert (obj.exported, obj.imported) == _readelf_dynsyms(path), path


def test_generated_counts_are_the_generators(tree):
    shape = generate.Shape(libs=3, exports=4, relocs=3)
    lib = elfinfo.read(tree / "out/default" / shape.library_file(0))
    # Each function's address goes to K exported globals through the GOT (K+1 lookups
    # of the function, by name) and to K data pointers through a hidden alias (relative).
    assert lib.lookups.lazy >= shape.exports * (shape.relocs + 1)
    assert lib.lookups.self_bound >= shape.exports * (shape.relocs + 1)
    hidden = elfinfo.read(tree / "out/hidden" / shape.library_file(0))
    assert hidden.lookups.self_bound < lib.lookups.self_bound


def test_sysv_probes_count_the_sysv_objects_each_lookup_searches():
    from collections import Counter

    def obj(name, hash_, defines=()):
        o = elfinfo.ElfObject(name, hash=[hash_])
        o.defines = set(defines)
        return o

    prog, a, b, c = obj("prog", "gnu"), obj("a", "sysv", ["f"]), obj("b", "gnu", ["g"]), obj("c", "sysv", ["h"])
    prog.lookups.names_lazy = Counter({"f": 2, "g": 1, "h": 1, "x": 1})   # x: defined by none (libc, say)
    prog.lookups.names_now = Counter({"h": 3})
    elfinfo.scope_probes([prog, a, b, c])
    # f: a (x2); g: a; h: a and c; x: a and c (the whole scope)
    assert prog.lookups.sysv_probes_lazy == 2 * 1 + 1 + 2 + 2
    assert prog.lookups.sysv_probes_now == 3 * 2
    assert a.lookups.sysv_probes_lazy == 0


def test_sysv_probes_on_generated_programs(tree):
    sysv = static.picture(tree / variants.by_name("sysv-hash").program(), env={})
    gnu = static.picture(tree / variants.by_name("default").program(), env={})
    assert gnu.counts()["sysv_probes"] == 0
    prog = sysv.objects[0]["elf"]
    assert prog["hash"] == ["sysv"]
    # every lookup the program makes searches at least the program itself, a SysV-only object
    assert prog["lookups"]["sysv_probes_lazy"] >= prog["lookups"]["lazy"] > 0
    assert sysv.counts()["symbol_lookups"] == gnu.counts()["symbol_lookups"]


def _ld_debug_lookups(program: Path, bind_now: bool) -> int:
    env = {**os.environ, "LD_DEBUG": "statistics", **({"LD_BIND_NOW": "1"} if bind_now else {})}
    env.pop("LD_PRELOAD", None)
    p = subprocess.run([str(program)], env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    return ldstats.parse(p.stderr).lookups


def _static_lookups(program: Path, bind_now: bool) -> int:
    return static.picture(program, env={}).counts(bind_now)["symbol_lookups"]


def test_lookups_agree_with_ld_debug_up_to_the_loaders_own(tree, tools):
    # glibc also counts the lookups ld.so makes for itself: the vDSO's five functions
    # and calloc/free/malloc/realloc when it switches to libc's malloc (LD_DEBUG=symbols
    # shows them), the same for every program, so the difference is the empty
    # program's, give or take the one PLT call bound lazily before the count is printed.
    own = _ld_debug_lookups(tools.empty, False) - _static_lookups(tools.empty, False)
    assert 9 <= own <= 12
    for program in _programs(tree):
        for now in (False, True):
            assert abs(_ld_debug_lookups(program, now) - _static_lookups(program, now) - own) <= 1, (program, now)


@pytest.mark.parametrize("program", ["/usr/bin/python3", "/usr/bin/git", "/usr/bin/perl", "generated"])
def test_dependency_tree_matches_the_loader(program, tree):
    path = tree / "out/default/prog" if program == "generated" else Path(program)
    listed = subprocess.run([LD_SO, "--list", str(path)], capture_output=True, text=True, check=True).stdout
    theirs = [m.group(1) for m in re.finditer(r"=> (\S+) \(", listed)]
    mine = [r.path for r, _ in libpath.resolve(elfinfo.read(path), elfinfo.read, env={})
            if r.found_by not in ("program", "interpreter")]
    assert [os.path.realpath(p) for p in mine] == [os.path.realpath(p) for p in theirs]


def test_runpath_and_library_path(tmp_path, tree):
    libdir = tmp_path / "elsewhere"
    libdir.mkdir()
    shape = generate.Shape(libs=3, exports=4, relocs=3)
    src = tree / "out/default" / shape.library_file(0)
    shutil.copy(src, libdir / src.name)
    prog = elfinfo.read(tree / "out/default/prog")
    found = {r.name: r for r, _ in libpath.resolve(prog, elfinfo.read, env={"LD_LIBRARY_PATH": str(libdir)})}
    # RUNPATH comes after LD_LIBRARY_PATH, RPATH before it: whichever the generator used, say which.
    r = found[src.name]
    assert r.found_by in ("LD_LIBRARY_PATH", "rpath", "runpath")
    if prog.runpath:
        assert r.path == str(libdir / src.name) and r.found_by == "LD_LIBRARY_PATH"


def test_relr_size_of_synthetic_addresses():
    word = 8
    assert elfinfo.relr_size([0x1000], word) == 8
    assert elfinfo.relr_size([0x1000 + 8 * i for i in range(64)], word) == 16    # an address and one bitmap
    assert elfinfo.relr_size([0x1000 + 8 * i for i in range(65)], word) == 24    # a second bitmap
    assert elfinfo.relr_size([0x1000, 0x100000], word) == 16                     # too far apart: two addresses
    assert elfinfo.relr_size([0x1001], word) == 24                              # misaligned: stays RELA


def test_unused_dependency_is_found(tmp_path):
    src = tmp_path / "p.c"
    src.write_text("int main(void) { return 0; }\n")
    exe = tmp_path / "p"
    subprocess.run(["cc", str(src), "-o", str(exe), "-Wl,--no-as-needed", "-lm"], check=True)
    unused = static.picture(exe, env={}).unused
    assert [u["name"] for u in unused] == ["libm.so.6"]


# ---- bad input: one clear line each, never a traceback --------------------------------------------------------

def _cli_error(args, expect):
    r = run_cli(*args)
    assert r.returncode != 0
    assert "Traceback" not in r.stderr
    assert re.search(expect, r.stderr), r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_missing_file_directory_non_elf_truncated(tmp_path):
    _cli_error(["inspect", str(tmp_path / "nope"), "--no-save"], r"no such file")
    _cli_error(["inspect", str(tmp_path), "--no-save"], r"is a directory")
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    _cli_error(["inspect", str(text), "--no-save"], r"not an ELF program")
    truncated = tmp_path / "truncated"
    truncated.write_bytes(Path("/usr/bin/git").read_bytes()[:200])
    _cli_error(["inspect", str(truncated), "--no-save"], r"malformed ELF file: the program header table runs past the end of the file")


def _foreign(tmp_path, tools) -> Path:
    data = bytearray(Path(tools.empty).read_bytes())
    data[18:20] = (183).to_bytes(2, "little")        # e_machine = EM_AARCH64
    path = tmp_path / "arm-prog"
    path.write_bytes(bytes(data))
    path.chmod(0o755)
    return path


def _i386(tmp_path) -> Path | None:
    asm = tmp_path / "x.s"
    asm.write_text(".globl _start\n_start:\n movl $1, %eax\n xorl %ebx, %ebx\n int $0x80\n")
    obj, exe = tmp_path / "x.o", tmp_path / "prog32"
    try:
        subprocess.run(["as", "--32", str(asm), "-o", str(obj)], check=True, capture_output=True)
        subprocess.run(["ld", "-m", "elf_i386", str(obj), "-o", str(exe)], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return exe


def test_foreign_and_32_bit_programs_get_the_static_part_only(tmp_path, tools):
    for path in filter(None, [_foreign(tmp_path, tools), _i386(tmp_path)]):
        out = tmp_path / f"{path.name}.json"
        r = run_cli("inspect", str(path), "--no-save", "--export-json", str(out))
        assert r.returncode == 0, r.stderr
        exp = json.loads(out.read_text())["experiments"][0]
        assert exp["static"]["objects"] and exp["cases"] == []
        assert re.search(r"aarch64|32-bit", exp["measured_skipped"])
        assert "measured picture skipped" in r.stdout


def test_a_crash_and_a_hang_are_one_line_each(tmp_path):
    src = tmp_path / "crash.c"
    src.write_text("#include <signal.h>\nint main(void) { raise(SIGSEGV); return 0; }\n")
    crash = tmp_path / "crash"
    subprocess.run(["cc", str(src), "-o", str(crash)], check=True)
    r = run_cli("inspect", str(crash), "--runs", "2", "--no-predict", "--no-save")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "SIGSEGV" in r.stdout
    r = run_cli("inspect", shutil.which("sleep"), "--runs", "1", "--timeout", "0.3", "--no-predict", "--no-save",
                "--", "30")
    assert r.returncode == 1 and "timed out" in r.stdout and "stdin is /dev/null" in r.stdout


def test_a_program_reading_stdin_gets_eof(tmp_path):
    out = tmp_path / "cat.json"
    r = run_cli("inspect", shutil.which("cat"), "--runs", "2", "--no-predict", "--no-save", "--export-json", str(out))
    assert r.returncode == 0, r.stderr



def test_no_save_keeps_no_calibration_either(tmp_path):
    """With no saved sweep, inspect runs a quick calibration and keeps it for next time, but
    --no-save means nothing is written to the data directory, the calibration included."""
    r = run_cli("inspect", shutil.which("true"), "--runs", "2", "--no-save")
    assert r.returncode == 0, r.stderr
    assert "running a quick calibration" in r.stderr and "not saved (--no-save)" in r.stderr
    runs_dir = tmp_path / "data" / "layertax" / "runs"
    assert not runs_dir.exists() or not any(runs_dir.iterdir())


def test_the_calibration_saved_line_keeps_its_path_whole_and_notes_wrap_between_words():
    """inspect says where it saved the calibration it ran in its notes, which wrap at the width:
    the path once broke across lines there, and a copied path then named no file."""
    buffer = io.StringIO()
    say = notes_on(SafeConsole(file=buffer, width=60, no_color=True))
    path = "/tmp/" + "a-directory-name-longer-than-the-terminal-" * 3 + "/runs/sweep.json"
    say(f"saved: {path}", whole=True)
    say("no usable loadtime sweep saved for this machine: running a quick calibration "
        "(`layertax loadtime sweep` runs a fuller one)")
    lines = buffer.getvalue().splitlines()
    assert lines[0] == f"saved: {path}"
    assert all(len(line) <= 60 for line in lines[1:]) and len(lines) > 2
    # as the notes under a table: the lines it wraps onto indented under it, no trailing space
    assert all(line.startswith("  ") and line == line.rstrip() for line in lines[2:])
    assert " ".join(lines[1:]).split() == ("no usable loadtime sweep saved for this machine: running a quick "
                                          "calibration (`layertax loadtime sweep` runs a fuller one)").split()


def test_ctrl_c_in_the_calibration_keeps_the_launches_and_exits_130(tmp_path):
    """With no saved sweep, inspect calibrates after its launches; a Ctrl-C there once ended
    the calibration only, and inspect went on to exit 0 as if it had not been pressed."""
    out = tmp_path / "inspect.json"
    proc = subprocess.Popen([sys.executable, "-m", "layertax", "inspect", shutil.which("true"), "--runs", "2",
                             "--export-json", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        for line in proc.stderr:                  # the calibration says which point it measures
            if line.startswith("point 1/"):
                proc.send_signal(signal.SIGINT)
                break
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    doc = json.loads(out.read_text())
    result = doc["experiments"][0]
    assert doc["complete"] is False and result["interrupted"] is True
    assert "prediction" not in result and any("no estimates" in n for n in result["notes"])
    assert all(c["samples"] for c in result["cases"])           # the launches measured are kept
    assert not [d for d in os.listdir(tmp_path / "tmp") if d.startswith("layertax-")]


# ---- the whole report on a generated program ------------------------------------------------------------------

def _synthetic_sweep(path: Path, slopes: dict[str, float]) -> None:
    """A saved sweep whose points lie exactly on a known plane (statistics on synthetic data)."""
    points = []
    for libs in (2, 8):
        for relocs in (0, 10):
            for lookups_extra in (0, 300, 900):
                counts = {"relative_relocations": libs * 100 * relocs + 7 * libs, "libraries": libs,
                          "symbol_lookups": libs * 40 + lookups_extra + relocs}
                y = 300_000 + sum(slopes[k] * v for k, v in counts.items())
                points.append({"variant": "default", **counts, "spawn_to_main_ns": y, "page_faults": 50})
    doc = {"schema": "layertax/1", "created": "synthetic", "machine": {}, "settings": {},
           "experiments": [{"name": "loadtime-sweep", "title": "cost model of the loader", "question": "?",
                            "unit": "spawn->main", "baseline": None,
                            "points": points, "cases": []}]}
    path.write_text(json.dumps(doc))


def test_inspect_of_a_generated_program(tmp_path, tree):
    slopes = {"symbol_lookups": 60.0, "relative_relocations": 2.0, "libraries": 30_000.0}
    sweep = tmp_path / "sweep.json"
    _synthetic_sweep(sweep, slopes)
    out = tmp_path / "inspect.json"
    md = tmp_path / "inspect.md"
    r = run_cli("inspect", str(tree / "out/default/prog"), "--runs", "4", "--model", str(sweep),
                "--export-json", str(out), "--export-markdown", str(md))
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    exp = doc["experiments"][0]
    names = [c["name"] for c in exp["cases"]]
    assert names == ["lazy", "now (LD_BIND_NOW=1)"]
    for c in exp["cases"]:
        assert len(c["samples"]) == 4
        for s in c["samples"]:
            assert s["first_init_ns"] <= s["libc_start_main_ns"] <= s["main_ns"] <= s["exit_ns"]
        assert c["loader"] and all(x["status"] == "ok" for x in c["loader"])
        assert len(c["loader"]) == 9        # as many LD_DEBUG launches as timed ones, and at least 9
    sp = exp["split"]["lazy"]
    assert sp["status"] == "ok" and [p["part"] for p in sp["parts"]][-1] == "constructors"
    assert sp["sum_ns"] == pytest.approx(sum(p["ns"] for p in sp["parts"]))
    assert exp["init_order"]["order"][1].endswith("liblayertax-first.so")
    pred = exp["prediction"]
    assert pred["status"] == "ok"
    for k, v in slopes.items():
        assert pred["model"]["coefficients"][k]["ns_per_unit"] == pytest.approx(v, rel=1e-6)
    # Calibrated on the day: the reference program ran in the same rounds, and every slope
    # is scaled by its measured / predicted loader time. Whether its loader time comes out above
    # the empty program's in four rounds is the machine's to say (a busy one may not), and then
    # the prediction says why it is not calibrated.
    cal = pred["calibration"]
    if cal is None:
        assert pred["uncalibrated"].startswith("the reference program's loader time did not come out above"), pred
        assert "not calibrated on the day (the reference program's loader time" in md.read_text()
    else:
        assert cal["factor"] == pytest.approx(cal["measured_ns"] / cal["predicted_ns"])
    assert "reference (generated, for the model)" in [c["name"] for c in exp["controls"]]
    for row in pred["rows"]:
        expected = sum(slopes[k] * (row["counts"][k] - row["empty_counts"][k]) for k in slopes)
        assert row["predicted_uncalibrated_ns"] == pytest.approx(expected)
        assert row["predicted_ns"] == pytest.approx(expected * (cal["factor"] if cal else 1.0))
    fixes = {f["fix"] for f in pred["fixes"]}
    assert {"-Bsymbolic / -fvisibility=hidden", "RELR (-z pack-relative-relocs)", "prelinking-style binding"} <= fixes
    # The generated libraries sit beside the program, found through its RPATH/RUNPATH.
    objs = exp["static"]["objects"]
    assert sum(1 for o in objs if o["name"].startswith("lib") and o["found_by"] in ("rpath", "runpath")) == 3
    assert "the split of spawn->main" in r.stdout and "#" in r.stdout
    # The file has every table once: the full split and fixes, not also the terminal's short ones.
    text = md.read_text()
    assert text.count("the split of spawn->main") == 1 and "sum of the parts" in text
    assert text.count("what each fix would save") == 1
    # Saved in the history like any run.
    assert "inspect" in run_cli("history").stdout


def test_model_refuses_a_file_that_is_not_a_sweep(tmp_path):
    bogus = tmp_path / "x.json"
    bogus.write_text(json.dumps({"schema": "layertax/1", "created": "synthetic", "machine": {}, "settings": {},
                                 "experiments": [{"name": "callchain", "title": "t", "question": "q", "unit": "ns",
                                                  "baseline": "a",
                                                  "cases": []}]}))
    with pytest.raises(LayertaxError, match="not a `layertax loadtime sweep` result"):
        model.load_sweep(bogus)


# ---- fuzzing: malformed ELF files never crash the analyser ------------------------------------------------

def _mutations(seed_files: list[bytes], n: int, seed: int = 1):
    import random

    rng = random.Random(seed)
    for i in range(n):
        data = bytearray(rng.choice(seed_files))
        how = i % 4
        if how == 0:     # flip bytes anywhere
            for _ in range(rng.randint(1, 20)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        elif how == 1:   # truncate
            data = data[:rng.randrange(4, len(data))]
        elif how == 2:   # scribble on the headers (ELF, program, section)
            for _ in range(rng.randint(1, 6)):
                data[rng.randrange(min(len(data), 256))] = rng.randrange(256)
            shoff = int.from_bytes(data[40:48], "little")
            for _ in range(rng.randint(0, 6)):
                if 0 < shoff < len(data):
                    data[min(len(data) - 1, shoff + rng.randrange(64 * 30))] = rng.randrange(256)
        else:            # a field set to an extreme value
            at = rng.randrange(0, max(1, len(data) - 8))
            data[at:at + 8] = rng.choice([b"\xff" * 8, b"\x00" * 8, (2**31).to_bytes(8, "little")])
        yield bytes(data)


@pytest.mark.slow
def test_fuzzed_elf_files_never_crash_the_static_analyser(tmp_path, tools, tree):
    seeds = [Path(tools.empty).read_bytes(), Path(tools.first_lib).read_bytes(),
             (tree / "out/default" / generate.Shape(libs=3, exports=4, relocs=3).library_file(0)).read_bytes()]
    path = tmp_path / "fuzzed"
    outcomes = {"read": 0, "refused": 0}
    for data in _mutations(seeds, 2_000):     # tests/test_elf_fuzz.py and bench/fuzz_elf.py run many more
        path.write_bytes(data)
        try:
            elfinfo.read(path)
            outcomes["read"] += 1
        except LayertaxError as e:
            assert "\n" not in str(e)
            outcomes["refused"] += 1
    assert outcomes["read"] > 0 and outcomes["refused"] > 0


def test_the_linker_is_recognised_from_its_marks(cache_root):
    names = ["default", "ld-gold", "ld-lld", "ld-mold"]
    built, _ = build_variants(generate.Shape(libs=1, exports=2, relocs=1), [variants.by_name(n) for n in names],
                              cache_root / "layertax")
    expected = {"default": "GNU ld", "ld-gold": "gold", "ld-lld": "lld", "ld-mold": "mold"}
    seen = 0
    for name in names:
        program = built / variants.by_name(name).program()
        if not program.is_file():   # that linker is not installed here
            continue
        seen += 1
        assert elfinfo.read(program).linker == expected[name]
    assert seen >= 1
    assert elfinfo.read(Path("/usr/bin/git")).linker == "GNU ld"   # Debian links with GNU ld


class _CountingProgress:
    """A progress sink that counts: a total promised at start, the steps actually taken."""

    def __init__(self):
        self.totals, self.steps = [], 0

    def start(self, experiment: str, total: int) -> None:
        self.totals.append(total)

    def step(self, description: str) -> None:
        self.steps += 1

    def retotal(self, total: int) -> None:
        self.totals.append(total)

    def deadline(self, at) -> None:
        pass

    def finish(self, stopped: bool = False) -> None:
        pass


def test_inspect_progress_takes_every_step_it_promised(tree, tools):
    """One step per timed launch and per LD_DEBUG launch (as many as the timed ones, at least 9),
    so the ETA of a slow program's LD_DEBUG phase is not a single silent step."""
    from layertax.inspect import measure
    from layertax.launch import settings as launch_settings
    progress = _CountingProgress()
    settings = launch_settings.LaunchSettings(runs=3, warmup=1, warmup_time=0, seed=5)   # a warm-up of one round exactly
    result = measure.measure([str(tree / "out/default/prog")], True, settings, tools, progress)
    assert result["cases"][0]["loader"] and len(result["cases"][0]["loader"]) == measure.MIN_STATS_LAUNCHES
    assert progress.totals == [progress.steps]
    launched = len(result["cases"]) + len(result["controls"])
    debugged = 3   # lazy, now and the stamped empty control
    assert progress.steps == (settings.runs + settings.warmup) * launched + debugged * measure.MIN_STATS_LAUNCHES + 1


def test_the_model_is_calibrated_on_the_day_only_by_a_reference_that_came_out_above_the_empty_program():
    """The factor is the reference program's loader time over the model's, each over the empty
    program's. Where a few rounds on a busy machine put the reference at or under the empty
    program, there is nothing to scale by: the prediction says so, not "no reference"."""
    from types import SimpleNamespace

    from layertax.inspect import measure
    from layertax.inspect import run as inspect_run
    from layertax.launch.stamp import EMPTY_STAMPED

    fitted = {"coefficients": {"symbol_lookups": {"ns_per_unit": 50.0}, "relative_relocations": {"ns_per_unit": 2.0},
                               "libraries": {"ns_per_unit": 20_000.0}}}
    counts = {"symbol_lookups": 100, "relative_relocations": 80, "libraries": 8}
    picture = SimpleNamespace(counts=lambda now: counts, program=SimpleNamespace(path="ref", linker="ld.bfd"))
    empty_picture = SimpleNamespace(counts=lambda now: {"libraries": 1})

    def launches(times):
        return {"samples": [{"round": r, "first_init_ns": t} for r, t in enumerate(times)]}

    def calibrated(reference_times):
        by_name = {measure.REFERENCE: launches(reference_times), EMPTY_STAMPED: launches([300_000] * 4)}
        return inspect_run._calibration(fitted, by_name, (picture, "symbolic"), picture, empty_picture)

    cal, why = calibrated([500_000, 510_000, 490_000, 505_000])
    assert why is None and cal["measured_ns"] == 202_500
    assert cal["factor"] == pytest.approx(202_500 / (50 * 100 + 2 * 80 + 20_000 * 7))
    assert calibrated([290_000, 300_000, 295_000, 310_000]) == (
        None, "the reference program's loader time did not come out above the empty program's in these rounds")
    assert inspect_run._calibration(fitted, {}, None, picture, empty_picture) == (None, "no reference measurement")
