"""The content-addressed build cache, including two builders at once."""
import multiprocessing
import subprocess
from pathlib import Path

from conftest import probe_target

from layertax.engine.builder import ninja


def test_builds_once_then_hits_the_cache(tmp_path):
    first = ninja.build([probe_target()], tmp_path)["probe"]
    assert isinstance(first, Path) and first.is_file()
    mtime = first.stat().st_mtime_ns
    second = ninja.build([probe_target()], tmp_path)["probe"]
    assert second == first and second.stat().st_mtime_ns == mtime
    # Nothing is left in staging.
    assert [p.name for p in (tmp_path / "kernels").iterdir()] == [first.parent.name]


def test_key_depends_on_flags_and_compiler(tmp_path):
    t = probe_target()
    other_flags = ninja.BuildTarget(t.name, t.sources, t.include_dirs, ("-O0",), t.libs, t.cc, t.cc_version)
    other_cc = ninja.BuildTarget(t.name, t.sources, t.include_dirs, t.cflags, t.libs, t.cc, t.cc_version + "x")
    assert len({t.key(), other_flags.key(), other_cc.key()}) == 3


def test_key_depends_on_source_content(tmp_path):
    src = tmp_path / "k.c"
    src.write_text('#include "harness.h"\nint main(int c, char **v){return lt_main(c, v, "k", 0, 0);}\n')
    t = ninja.BuildTarget("k", (src,), (tmp_path,), (), (), *_cc())
    before = t.key()
    src.write_text(src.read_text() + "/* changed */\n")
    assert t.key() != before


def _cc():
    t = probe_target()
    return t.cc, t.cc_version


def test_a_compile_error_is_reported_not_raised(tmp_path):
    src = tmp_path / "broken.c"
    src.write_text("int main(void) { return undefined_thing; }\n")
    result = ninja.build([ninja.BuildTarget("broken", (src,), (tmp_path,), (), (), *_cc())], tmp_path)["broken"]
    assert isinstance(result, ninja.BuildFailed)
    assert "broken" in str(result) and "error" in str(result)


def _build_in_process(root: str) -> str:
    return str(ninja.build([probe_target()], Path(root))["probe"])


def test_concurrent_builders_do_not_corrupt_the_cache(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(4) as pool:
        paths = pool.map(_build_in_process, [str(tmp_path)] * 8)
    assert len(set(paths)) == 1
    binary = Path(paths[0])
    out = subprocess.run([str(binary), "--case", "count", "--samples", "2", "--min-sample-ns", "100000"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert len(out.stdout.splitlines()) == 3
    kernels = tmp_path / "kernels"
    assert [p.name for p in kernels.iterdir()] == [binary.parent.name]  # no stray staging dirs
