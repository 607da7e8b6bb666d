"""The PE programs (built with mingw-w64, bound by our binder, proved by our verifier) and the
Windows bundle, run end to end under Wine: every variant correct, the stale-bound probe's
finding, and the runner's results.json read by report, compare and import-windows. Nothing
here asserts a timing relation: Wine proves correctness, never Windows timing."""
from __future__ import annotations

import json
import re
import shutil
import struct
import zipfile
from pathlib import Path

import pytest

from conftest import run_cli
from layertax.engine.builder import toolchain
from layertax.errors import LayertaxError, UsageError
from layertax.programs.generate import Shape
from layertax.programs.pe import binder, build, generate, reader, variants, verify

SHAPE = Shape(3, 20, 2)
needs_mingw = pytest.mark.skipif(toolchain.find("mingw-gcc") is None or toolchain.find("mingw-dlltool") is None,
                                 reason="mingw-w64 not installed (gcc-mingw-w64-x86-64)")
needs_wine = pytest.mark.skipif(toolchain.find("wine") is None, reason="wine not installed (wine, wine64)")


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    if toolchain.find("mingw-gcc") is None or toolchain.find("mingw-dlltool") is None:
        pytest.skip("mingw-w64 not installed (gcc-mingw-w64-x86-64)")
    root = tmp_path_factory.mktemp("pe")
    build.build(SHAPE, root, toolchain.find("mingw-gcc"), toolchain.find("mingw-dlltool"))
    return root


# ---- the generator's arithmetic ---------------------------------------------------------------

def test_the_expected_hash_is_the_fold_the_exe_computes():
    h = 0
    for i in range(1, 61):
        h = ((h * 1000003) & (2 ** 64 - 1)) ^ i
    assert generate.expected_hash(SHAPE) == h


def test_a_rotated_binding_changes_the_hash():
    # The stale probe's addresses (each slot its neighbour's) must be caught by the EXE's check.
    ids = [generate.function_id(SHAPE, lib, fn) for lib in range(SHAPE.libs) for fn in range(SHAPE.exports)]
    rotated = ids[1:] + ids[:1]
    h = 0
    for v in rotated:
        h = ((h * generate.HASH_MULTIPLIER) & generate.MASK64) ^ v
    assert h != generate.expected_hash(SHAPE)


def test_pe_shapes_beyond_the_limits_are_refused():
    with pytest.raises(UsageError, match="at most"):
        generate.check(Shape(1000, 1000, 0))
    with pytest.raises(UsageError, match="16 bits"):
        generate.check(Shape(1, 70000, 0))
    with pytest.raises(UsageError, match="below the EXE"):
        generate.check(Shape(3000, 60, 10000))


def test_the_bound_directory_layout():
    data = binder.bound_directory([("lt0.dll", 0x1234), ("lt1.dll", 0x5678)])
    assert struct.unpack_from("<IHH", data, 0) == (0x1234, 24, 0)
    assert struct.unpack_from("<IHH", data, 8) == (0x5678, 32, 0)
    assert struct.unpack_from("<IHH", data, 16) == (0, 0, 0)
    assert data[24:] == b"lt0.dll\0lt1.dll\0"


def test_the_sources_name_ordinals_and_noname():
    assert "lt0_f0 @1 NONAME" in generate.def_file(SHAPE, 0, True)
    assert "lt0_f19 @20\n" in generate.def_file(SHAPE, 0, False)
    src = generate.library_source(SHAPE, 1)
    assert src.count("void *volatile lt1_f") == SHAPE.exports and "lt1_f19_p[2]" in src


# ---- the build and the verifier ------------------------------------------------------------

@needs_mingw
def test_every_variant_is_built_and_verified(tree):
    report = verify.verify(SHAPE, tree)
    assert set(report) == {*variants.NAMES, "empty"}
    assert verify.failed(report) == []
    claims = {name: [c.claim for c in cs] for name, cs in report.items()}
    assert any("pre-filled" in c for c in claims["name-bound"])
    assert any("wrong address" in c for c in claims["stale-bound"])
    assert any("exporting no names" in c for c in claims["ordinal-based"])


@needs_mingw
def test_a_shape_is_compiled_once_and_its_variants_assembled_each_time(tree, tmp_path):
    """The tree fixture compiled SHAPE into the build cache; a second build of it runs no ninja,
    and gives the same programs (bound the same way) in a directory of its own."""
    from layertax import paths

    lines: list[str] = []
    again = tmp_path / "again"
    again.mkdir()
    build.build(SHAPE, again, toolchain.find("mingw-gcc"), toolchain.find("mingw-dlltool"), on_line=lines.append)
    assert lines == []                          # ninja never ran: the compiled tree came from the cache
    key = build.tree_key(SHAPE, toolchain.find("mingw-gcc"), toolchain.find("mingw-dlltool"))
    assert (paths.cache_dir() / "pe" / key / ".complete").is_file()
    for name in (*variants.NAMES, "empty"):
        assert (again / "out" / name / "prog.exe").read_bytes() == (tree / "out" / name / "prog.exe").read_bytes()
    assert not (again / ".complete").exists()
    assert build.tree_key(Shape(3, 21, 2), toolchain.find("mingw-gcc"), toolchain.find("mingw-dlltool")) != key


@needs_mingw
def test_the_relocations_and_bases_are_what_the_variants_say(tree):
    based = [reader.read(tree / "out" / "name-based" / generate.dll_file(i)) for i in range(SHAPE.libs)]
    collide = [reader.read(tree / "out" / "name-collide" / generate.dll_file(i)) for i in range(SHAPE.libs)]
    assert {d.OPTIONAL_HEADER.ImageBase for d in collide} == {generate.DLL_BASE}
    assert len({d.OPTIONAL_HEADER.ImageBase for d in based}) == SHAPE.libs
    for dll in based:
        dir64 = [e for b in dll.DIRECTORY_ENTRY_BASERELOC for e in b.entries if e.type == reader.REL_BASED_DIR64]
        assert len(dir64) == SHAPE.exports * SHAPE.relocs


def _copy_variant(tree: Path, name: str, to: Path) -> Path:
    import shutil

    shutil.copytree(tree / "out" / name, to / "out" / name)
    return to


@needs_mingw
def test_the_verifier_catches_aslr_turned_back_on(tree, tmp_path):
    root = _copy_variant(tree, "name-based", tmp_path)
    dll = root / "out" / "name-based" / "lt1.dll"
    pe = reader.read(dll)
    data = bytearray(dll.read_bytes())
    offset = pe.OPTIONAL_HEADER.get_field_absolute_offset("DllCharacteristics")
    struct.pack_into("<H", data, offset, pe.OPTIONAL_HEADER.DllCharacteristics | reader.DYNAMIC_BASE)
    dll.write_bytes(bytes(data))
    claims = verify.verify_variant(SHAPE, root, variants.VARIANTS[1])
    bad = [c for c in claims if not c.ok]
    assert [c.claim for c in bad] == ["DYNAMIC_BASE off in every image"] and "lt1.dll" in bad[0].detail


@needs_mingw
def test_the_verifier_catches_a_wrong_bound_address(tree, tmp_path):
    root = _copy_variant(tree, "name-bound", tmp_path)
    exe = root / "out" / "name-bound" / "prog.exe"
    pe = reader.read(exe)
    desc = next(d for d in pe.DIRECTORY_ENTRY_IMPORT if d.dll == b"lt2.dll")
    slot = reader.slots(pe, desc)[5]
    data = bytearray(exe.read_bytes())
    struct.pack_into("<Q", data, pe.get_offset_from_rva(slot.iat_rva), 0x10000000)
    exe.write_bytes(bytes(data))
    bound = next(v for v in variants.VARIANTS if v.name == "name-bound")
    bad = [c for c in verify.verify_variant(SHAPE, root, bound) if not c.ok]
    assert {c.claim for c in bad} == {"every IAT slot pre-filled with DLL base + export RVA", "checksum"}
    assert "59 of 60" in next(c.detail for c in bad if "IAT" in c.claim)


@needs_mingw
def test_a_bound_exe_is_not_what_an_unbound_variant_claims(tree, tmp_path):
    root = _copy_variant(tree, "name-bound", tmp_path)
    (root / "out" / "name-based").symlink_to(root / "out" / "name-bound")
    bad = [c for c in verify.verify_variant(SHAPE, root, variants.VARIANTS[1]) if not c.ok]
    assert [c.claim for c in bad] == ["not bound: no bound import directory, IAT as the linker left it"]


@needs_mingw
def test_binding_without_our_dlls_is_an_error(tree, tmp_path):
    exe = tmp_path / "prog.exe"
    exe.write_bytes((tree / "out" / "name-based" / "prog.exe").read_bytes())
    with pytest.raises(LayertaxError, match="none of its DLLs"):
        binder.bind(exe, tmp_path)


@needs_mingw
def test_loadtime_gen_target_pe_from_the_command_line(tmp_path):
    out = tmp_path / "gen"
    p = run_cli("loadtime", "gen", "--target", "pe", "--libs", "2", "--exports", "5", "--relocs", "1",
                "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert "stale-bound: verified (7 claims)" in p.stdout
    saved = json.loads((out / "verification.json").read_text())
    assert all(c["ok"] for claims in saved.values() for c in claims)
    assert (out / "out" / "ordinal-bound" / "prog.exe").is_file()
    again = run_cli("loadtime", "gen", "--target", "pe", "--out", str(out))
    assert again.returncode == 2 and "already exists" in again.stderr and len(again.stderr.splitlines()) == 1


def test_gen_target_pe_refuses_elf_variants(tmp_path):
    p = run_cli("loadtime", "gen", "--target", "pe", "--variants", "now", "--out", str(tmp_path / "x"))
    assert p.returncode == 2 and "--variants" in p.stderr and not (tmp_path / "x").exists()


# ---- the bundle ----------------------------------------------------------------------------

@needs_mingw
def test_the_bundle_holds_what_run_cmd_needs(tmp_path):
    p = run_cli("windows", "bundle", "--out", str(tmp_path / "p.zip"), "--libs", "2", "--exports", "5",
                "--relocs", "1", "--runs", "4")
    assert p.returncode == 0, p.stderr
    names = set(zipfile.ZipFile(tmp_path / "p.zip").namelist())
    for needed in ("pietrek/run.cmd", "pietrek/runner.exe", "pietrek/manifest.txt", "pietrek/README.txt",
                   "pietrek/meta/loadtime-pe.json", "pietrek/variants/stale-bound/prog.exe",
                   "pietrek/variants/ordinal-collide/lt1.dll"):
        assert needed in names
    z = zipfile.ZipFile(tmp_path / "p.zip")
    assert b"\r\n" in z.read("pietrek/run.cmd")
    manifest = z.read("pietrek/manifest.txt").decode()
    assert "probe\tstale-bound" in manifest and "runs\t4" in manifest
    meta = json.loads(z.read("pietrek/meta/loadtime-pe.json"))
    assert meta["classic"]["figures"][0]["counterpart"] == "name-collide" and meta["not_timed"] == []
    (tmp_path / "runner.exe").write_bytes(z.read("pietrek/runner.exe"))
    runner = reader.read(tmp_path / "runner.exe")
    assert [d.dll.decode().lower() for d in runner.DIRECTORY_ENTRY_IMPORT] == ["kernel32.dll"]


@needs_mingw
def test_bundle_out_on_a_fifo_a_device_or_a_link_is_never_replaced(tmp_path):
    """--out goes through the one safe writer: a FIFO and a device are written as streams and
    stay what they were, a link of the user's own is written through and stays a link."""
    import os
    import stat
    import threading

    shape = ["--libs", "2", "--exports", "5", "--relocs", "1", "--runs", "2"]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    p = run_cli("windows", "bundle", "--out", str(fifo), *shape)
    reader.join(timeout=60)
    assert p.returncode == 0, p.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode) and got and got[0][:2] == b"PK"      # a zip, through the FIFO
    try:
        device = tmp_path / "null"
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))               # /dev/null's numbers
    except PermissionError:
        device = Path("/dev/null")
    p = run_cli("windows", "bundle", "--out", str(device), *shape)
    assert p.returncode == 0 and stat.S_ISCHR(device.stat().st_mode), p.stderr
    target, link = tmp_path / "real.zip", tmp_path / "link.zip"
    target.write_bytes(b"old")
    link.symlink_to(target)
    p = run_cli("windows", "bundle", "--out", str(link), *shape)
    assert p.returncode == 0, p.stderr
    assert link.is_symlink() and zipfile.is_zipfile(target)
    assert [x.name for x in tmp_path.iterdir() if x.name.endswith(".tmp")] == []


def test_loadtime_gen_out_is_made_whole_or_not_at_all(tmp_path):
    target = tmp_path / "elsewhere"
    link = tmp_path / "dangling"
    link.symlink_to(target)                            # a name that is taken, if only by a link
    p = run_cli("loadtime", "gen", "--libs", "1", "--exports", "1", "--no-build", "--out", str(link))
    assert p.returncode == 2 and "already exists" in p.stderr and not target.exists()
    out = tmp_path / "new"
    p = run_cli("loadtime", "gen", "--libs", "1", "--exports", "1", "--no-build", "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert (out / "src" / "main.c").is_file() and not [x for x in tmp_path.iterdir() if x.name.startswith(".new-")]


def test_bundle_errors_are_one_line(tmp_path):
    p = run_cli("windows", "bundle", "--out", str(tmp_path / "no" / "p.zip"))
    assert p.returncode == 2 and "does not exist" in p.stderr and len(p.stderr.splitlines()) == 1
    p = run_cli("windows", "bundle", "--libs", "65")
    assert p.returncode == 2 and "--libs" in p.stderr


def test_import_windows_refuses_other_results(tmp_path):
    other = tmp_path / "r.json"
    other.write_text(json.dumps({"schema": "layertax/1", "machine": {}, "settings": {}, "experiments": []}))
    p = run_cli("import-windows", str(other))
    assert p.returncode == 2 and "Windows runner" in p.stderr


# ---- under Wine ----------------------------------------------------------------------------

def test_the_wine_prefix_is_stopped_by_the_use_that_ends_last(tmp_path, monkeypatch):
    """`wineserver -k` ends every Wine process of the prefix: a use that ends while another still
    runs in it (`windows run --allow-concurrent`, two test workers) must leave the server to that
    one, and the last to end stops it. flock(2) locks of two opens conflict as two processes' do."""
    from layertax import paths
    from layertax.windows import wine

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))     # a prefix of its own, not the suite's
    made = paths.cache_dir() / "wine-prefix"
    made.mkdir()
    (made / "system.reg").write_text("WINE REGISTRY Version 2\n")     # made: no wineboot here
    stopped: list[Path] = []
    monkeypatch.setattr(wine, "_stop_server", stopped.append)
    first, second = wine.prefix(), wine.prefix()
    assert first.__enter__() == made and second.__enter__() == made
    first.__exit__(None, None, None)
    assert stopped == []                          # the second still runs in it
    second.__exit__(None, None, None)
    assert stopped == [made]
    with wine.prefix():                           # alone: stopped when it ends, also on an error
        with pytest.raises(LayertaxError):
            with wine.prefix():
                raise LayertaxError("run.cmd under Wine failed")
        assert stopped == [made]
    assert stopped == [made, made]


@pytest.fixture(scope="module")
def wine_results(tmp_path_factory) -> Path:
    if toolchain.find("mingw-gcc") is None or toolchain.find("wine") is None:
        pytest.skip("mingw-w64 or wine not installed")
    from layertax.windows import bundle, wine

    where = tmp_path_factory.mktemp("bundle")
    made = bundle.make(SHAPE, 4, where / "p.zip")
    zipfile.ZipFile(made.zip_path).extractall(where / "unpacked")
    with wine.prefix() as prefix:
        first, _ = wine.run_bundle(where / "unpacked" / "pietrek", prefix)
        (where / "a.json").write_bytes(first.read_bytes())
        second, _ = wine.run_bundle(where / "unpacked" / "pietrek", prefix, runs=3)
        (where / "b.json").write_bytes(second.read_bytes())
        # A bundle with one variant's program gone: its launch cannot even be created.
        shutil.copytree(where / "unpacked" / "pietrek", where / "broken")
        (where / "broken" / "variants" / "name-based" / "prog.exe").unlink()
        broken, _ = wine.run_bundle(where / "broken", prefix, runs=1)
        (where / "broken.json").write_bytes(broken.read_bytes())
    return where


@needs_wine
def test_every_variant_runs_correctly_under_wine_and_wine_ignores_bindings(wine_results):
    doc = json.loads((wine_results / "a.json").read_text())
    assert doc["schema"] == "layertax/1" and doc["machine"]["wine"] and doc["settings"]["runs"] == 4
    exps = {e["name"]: e for e in doc["experiments"]}
    assert set(exps) == {"loadtime-pe", "loadlibrary-pe", "encoding-pe", "callchain-pe"}
    launches = {c["name"]: c for c in exps["loadtime-pe"]["cases"]}
    assert set(launches) == {*variants.NAMES, "empty"}
    for case in launches.values():
        assert case["status"] == "ok", (case["name"], case.get("reason"))
        assert len(case["samples"]) == 4
        assert all(s["exit_status"] == 0 and s["main_ns"] and s["exit_ns"] >= s["main_ns"] for s in case["samples"])
    assert launches["stale-bound"]["probe"].startswith("bindings ignored")
    for name in ("encoding-pe", "callchain-pe", "loadlibrary-pe"):
        for case in exps[name]["cases"]:
            assert case["status"] == "ok", (case["name"], case.get("reason"))
            assert all(s["ops"] >= 1 and s["ns"] > 0 for s in case["samples"])
    collide = next(c for c in exps["loadlibrary-pe"]["cases"] if c["name"] == "name-collide")
    bases = collide["loader_view"]["bases"]
    assert len(bases) == SHAPE.libs and len(set(bases)) == SHAPE.libs and generate.DLL_BASE in bases


@needs_wine
def test_a_launch_that_cannot_be_created_fails_with_its_windows_error(wine_results):
    doc = json.loads((wine_results / "broken.json").read_text())
    launches = {c["name"]: c for e in doc["experiments"] if e["name"] == "loadtime-pe" for c in e["cases"]}
    gone = launches.pop("name-based")
    assert gone["status"] == "failed" and gone["samples"] == []
    assert re.fullmatch(r"CreateProcess failed \(.+\) \(Windows error [1-9][0-9]*\)", gone["reason"]), gone["reason"]
    assert all(c["status"] == "ok" for c in launches.values())


@needs_wine
def test_the_runners_json_is_read_by_report_compare_and_import(wine_results):
    a, b = wine_results / "a.json", wine_results / "b.json"
    report = run_cli("report", str(a))
    assert report.returncode == 0, report.stderr
    assert "name-collide (base)" in report.stdout and "then" in report.stdout
    compare = run_cli("compare", str(a), str(b))
    assert compare.returncode == 0, compare.stderr
    assert "loadtime-pe: B vs A" in compare.stdout and "callchain-pe: B vs A" in compare.stdout
    imported = run_cli("import-windows", str(a))
    assert imported.returncode == 0, imported.stderr
    out = imported.stdout
    assert "Wine, not Windows" in out and "bindings ignored" in out
    assert "then vs now, on Windows and beside its Linux analogue" in out
    assert "saved:" in out
    history = run_cli("history")
    assert "loadtime-pe" in history.stdout


@needs_wine
@needs_mingw
def test_windows_run_end_to_end(tmp_path):
    p = run_cli("windows", "run", "--runs", "2", "--libs", "2", "--exports", "5", "--relocs", "1",
                "--export-json", str(tmp_path / "w.json"), timeout=600)
    assert p.returncode == 0, p.stderr
    assert "layertax: running run.cmd under Wine" in p.stderr          # progress when stderr is a pipe
    assert "bindings ignored" in p.stdout and "[Wine, not Windows]" in p.stdout
    doc = json.loads((tmp_path / "w.json").read_text())
    launches = next(e for e in doc["experiments"] if e["name"] == "loadtime-pe")
    assert all(c["status"] == "ok" for c in launches["cases"])
    assert any(t["title"].startswith("the loader's view") for e in doc["experiments"] for t in e.get("tables", []))
