"""The content-addressed build cache, including two builders at once."""
import multiprocessing
import os
import shutil
import subprocess
from pathlib import Path

from conftest import probe_target

from layertax.engine.builder import graph, ninja, toolchain


def test_builds_once_then_hits_the_cache(tmp_path):
    first = graph.build([probe_target()], tmp_path)["probe"]
    assert isinstance(first, Path) and first.is_file()
    mtime = first.stat().st_mtime_ns
    second = graph.build([probe_target()], tmp_path)["probe"]
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
    result = graph.build([ninja.BuildTarget("broken", (src,), (tmp_path,), (), (), *_cc())], tmp_path)["broken"]
    assert isinstance(result, ninja.BuildFailed)
    assert "broken" in str(result) and "error" in str(result)


def _build_in_process(root: str) -> str:
    return str(graph.build([probe_target()], Path(root))["probe"])


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


def _tree(name: str, command: str, required: tuple[str, ...] = (), pool: str = "") -> ninja.BuildTree:
    """A tiny generated tree whose build.ninja runs `command` to make out.txt."""
    def write(root: Path) -> None:
        (root / "in.txt").write_text(name)
        (root / "build.ninja").write_text("rule make\n  command = " + command + "\nbuild out.txt: make in.txt\n")
    return ninja.BuildTree("trees-test", f"key-{name}", write, required=required, label=f"TEST {name}", pool=pool)


def test_one_graph_builds_targets_and_trees_then_hits_the_cache(tmp_path):
    good = _tree("good", "cp $in $out", required=("out.txt",), pool="serial")
    bad = _tree("bad", "echo 'make: error: no good' >&2; false", required=("out.txt",), pool="serial")
    seen: list[str] = []

    class Status:
        def update(self, line: str) -> None:
            seen.append(line)

    class Busy:
        def __init__(self, message: str):
            seen.append(message)

        def __enter__(self):
            return Status()

        def __exit__(self, *exc):
            return False

    got = graph.build_graph([probe_target()], [good, bad], tmp_path, busy=Busy)
    assert got.built == 3
    assert isinstance(got.target(probe_target()), Path)
    # The good tree is published whole, with its log; the failing one is not, and its log says why.
    where, log = good.result(tmp_path)
    assert (where / "out.txt").read_text() == "good" and (where / ".complete").is_file()
    assert not bad.final(tmp_path).exists()
    assert "no good" in got.tree_logs[("trees-test", "key-bad")]
    assert seen[0] == "building 3 kernels (first run only; cached after)"
    assert any("TEST good" in line for line in seen[1:])
    # Nothing left in staging; a second graph builds only what failed, and says nothing of the rest.
    assert [p.name for p in (tmp_path / "kernels").iterdir()] == [got.target(probe_target()).parent.name]
    seen.clear()
    again = graph.build_graph([probe_target()], [good, bad], tmp_path, busy=Busy)
    assert again.built == 1 and seen[0].startswith("building 1 kernel ")
    seen.clear()
    assert graph.build_graph([probe_target()], [good], tmp_path, busy=Busy).built == 0 and seen == []


def test_ninja_build_tree_and_the_graph_publish_the_same_tree(tmp_path):
    alone = _tree("same", "cp $in $out")
    path, log = ninja.build_tree(alone.kind, alone.key, alone.write, tmp_path)
    assert (path / "out.txt").read_text() == "same"
    assert alone.cached(tmp_path) and graph.build_graph([], [alone], tmp_path).built == 0


def test_what_the_tools_leave_in_tmpdir_goes_with_the_build(tmp_path, isolated_dirs):
    # binutils 2.40's dlltool leaves empty $TMPDIR/ccXXXXXX files behind; a build step that
    # does the same must leave nothing in the user's temp dir.
    user_tmp = isolated_dirs / "tmp"
    leaves = _tree("leaves", 'mktemp "$${TMPDIR:?}/ccXXXXXX" > $out')
    path, log = ninja.build_tree(leaves.kind, leaves.key, leaves.write, tmp_path / "cache")
    left_by_tool = Path((path / "out.txt").read_text().strip())
    assert left_by_tool.name.startswith("cc") and not left_by_tool.exists()
    assert list(user_tmp.iterdir()) == []


def test_a_case_glob_builds_only_the_kernels_its_cases_run_in(cache_root):
    """`run callchain --case c-rename` builds the C kernel of c-rename and of its baseline, not the
    Java, Go and Rust trees (a cold `--case` run took seconds for kernels it never ran)."""
    from layertax import experiments
    from layertax.engine.builder import kernels

    exp = experiments.get("callchain")
    prepared = kernels.prepare([exp], cache_root / "layertax", ("c-rename",))
    needed = {exp.case("c-rename").kernel, exp.case(exp.baseline).kernel}
    for (name, kernel), pk in prepared.items():
        if kernel in needed:
            assert pk.argv and not pk.skip, (kernel, pk.error)
        else:
            assert pk.skip == "not built: no case asked for (--case) runs in it" and not pk.argv
    assert len(prepared) > len(needed)


def test_javac_version_comes_from_its_jdks_release_file(tmp_path):
    """A fingerprint reads javac's version from the JDK's release file, not from a JVM started for
    `javac -version`; it reads the same text, and falls back to running javac where the file is
    missing or says nothing usable."""
    jdk = tmp_path / "jdk"
    (jdk / "bin").mkdir(parents=True)
    javac = jdk / "bin" / "javac"
    javac.write_text("#!/bin/sh\necho javac 0.0\n")
    link = tmp_path / "javac"
    link.symlink_to(javac)                       # as /usr/bin/javac is, through the alternatives
    assert toolchain._jdk_release_version(str(link)) is None            # no release file
    (jdk / "release").write_text('IMPLEMENTOR="Debian"\nJAVA_VERSION="21.0.4"\nLIBC="gnu"\n')
    assert toolchain._jdk_release_version(str(link)) == "javac 21.0.4"
    (jdk / "release").write_text('JAVA_VERSION="21\x1b[31m"\n')         # not a version: not believed
    assert toolchain._jdk_release_version(str(link)) is None
    (jdk / "release").unlink()
    os.mkfifo(jdk / "release")                                           # never opened to block on
    assert toolchain._jdk_release_version(str(link)) is None
    real = shutil.which("javac")
    if real and toolchain._jdk_release_version(real):
        assert toolchain._jdk_release_version(real) == toolchain._first_line([real, "-version"])
