"""Bad input: one line on stderr, exit code 2, no traceback, nothing written."""
import os

import pytest
from conftest import run_cli


def _assert_one_line_error(p, needle):
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("layertax: error:") and needle in lines[0]
    assert "Traceback" not in p.stderr + p.stdout


def _nothing_written(isolated_dirs):
    data = isolated_dirs / "data"
    assert not data.exists() or not any(data.rglob("*.json"))


@pytest.mark.parametrize("args, needle", [
    (["run", "nosuchexperiment"], "unknown experiment 'nosuchexperiment'"),
    (["run", "callchain", "--runs", "0"], "--runs"),
    (["run", "callchain", "--runs", "abc"], "'abc' is not a valid integer"),
    (["run", "callchain", "--warmup", "-1"], "--warmup"),
    (["run", "callchain", "--case", "zzz*"], "no case matches zzz*"),
    (["run", "callchain", "--cpu", "4095"], "--cpu 4095"),
    (["run", "--bogus-flag"], "No such option"),
    (["run", "callchain", "--metric", "joules"], "'joules' is not one of"),
    (["run", "loadtime", "--metric", "instructions"], "--metric instructions does not apply to loadtime"),
    (["nosuchcommand"], "No such command"),
])
def test_bad_run_arguments(args, needle, isolated_dirs):
    _assert_one_line_error(run_cli(*args), needle)
    _nothing_written(isolated_dirs)


@pytest.mark.parametrize("args", [["run", "callchain"], ["launch", "/bin/true"]])
def test_a_bad_layertax_cpu_is_one_line(args, isolated_dirs):
    _assert_one_line_error(run_cli(*args, env={"LAYERTAX_CPU": "4095"}), "LAYERTAX_CPU=4095")
    _nothing_written(isolated_dirs)


def test_unwritable_export_path(isolated_dirs, tmp_path):
    p = run_cli("run", "callchain", "--quick", "--export-json", str(tmp_path / "no" / "such" / "dir" / "r.json"))
    _assert_one_line_error(p, "does not exist")
    _nothing_written(isolated_dirs)
    p = run_cli("run", "callchain", "--quick", "--export-csv", str(tmp_path))
    _assert_one_line_error(p, "directory")
    _nothing_written(isolated_dirs)


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_export_into_read_only_directory(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o500)
    _assert_one_line_error(run_cli("run", "callchain", "--export-json", str(ro / "r.json")), "cannot write")


def test_report_of_missing_and_corrupt_files(tmp_path):
    _assert_one_line_error(run_cli("report", str(tmp_path / "missing.json")), "no such file")
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text('{"schema": "layertax/1", "machine": ')
    _assert_one_line_error(run_cli("report", str(corrupt)), "not valid JSON")
    foreign = tmp_path / "foreign.json"
    foreign.write_text('{"benchmarks": []}')
    _assert_one_line_error(run_cli("report", str(foreign)), "not a layertax result")


def test_help_and_version_on_every_command():
    p = run_cli("--version")
    assert p.returncode == 0 and p.stdout.startswith("layertax ")
    for command in ("list", "run", "doctor", "history", "report"):
        p = run_cli(command, "--help")
        assert p.returncode == 0 and "Usage: layertax " + command in p.stdout, command
        p = run_cli(command, "--version")
        assert p.returncode == 0 and p.stdout.startswith("layertax "), command
    assert "--export-json" in run_cli("run", "--help").stdout


def test_list_and_doctor_and_empty_history():
    p = run_cli("list")
    assert p.returncode == 0 and "callchain" in p.stdout and "2230" in p.stdout
    p = run_cli("doctor")
    # The answer first (the noise probe's verdict), the advice, the fingerprint behind --verbose.
    assert p.returncode == 0 and p.stdout.startswith("this machine is ") and "for steadier measurements" in p.stdout
    assert "cpu_model" not in p.stdout and "--verbose" in p.stdout
    p = run_cli("doctor", "--verbose")
    assert p.returncode == 0 and "cpu_model" in p.stdout and "tools" in p.stdout
    p = run_cli("history")
    assert p.returncode == 0 and "no runs yet" in p.stdout


def test_the_listing_and_the_doctor_wrap_each_item_under_itself_at_80_columns():
    """An item that wraps at 80 columns continues indented, so every line but an experiment's
    name (and the doctor's answer and heading) starts with spaces: a line at column 0 in the
    middle of an item would read as the next."""
    from layertax import experiments

    names = set(experiments.registry())
    listing = run_cli("list", env={"COLUMNS": "80"}).stdout.splitlines()
    assert listing and all(len(line) <= 80 for line in listing)
    assert all(line.split(" - ")[0] in names for line in listing if line and not line.startswith(" "))
    assert any(line.startswith("    ") for line in listing)     # some item did wrap
    answer, advice = run_cli("doctor", env={"COLUMNS": "80"}).stdout.split("for steadier measurements\n", 1)
    assert all(line.startswith("  ") for line in advice.splitlines())
    # The answer and the machine's line wrap under themselves too, with no trailing space.
    lines = answer.strip().splitlines()
    assert len(lines) > 2 and all(len(line) <= 80 and line == line.rstrip() for line in lines)
    starts = [line for line in lines if not line.startswith(" ")]
    assert starts[0] == lines[0] and len(starts) == 2 and starts[1].startswith("machine: ")


def test_a_closed_stdout_does_not_lose_the_exports(tmp_path):
    """`layertax run ... | head` closes the pipe early: the JSON export must still be written."""
    import os
    import subprocess
    import sys

    out = tmp_path / "r.json"
    p = subprocess.Popen([sys.executable, "-m", "layertax", "run", "callchain", "--quick", "--no-syscalls",
                          "--no-save", "--case", "c-rename", "--export-json", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                         env={**os.environ, "TMPDIR": str(tmp_path)})
    p.stdout.close()   # nobody reads: every print fails with a broken pipe
    p.wait(timeout=300)
    assert out.is_file() and '"callchain"' in out.read_text()


@pytest.mark.parametrize("args, message, not_loaded", [
    (["launch", "--", "/nonexistent"], "command not found: /nonexistent", ["numpy"]),
    (["launch", "--runs", "20000", "--", "/bin/true"], "at most 10,000 launches", ["numpy"]),
    # launch reads the command's ELF header to judge it; run needs pyelftools only to count instructions
    (["run", "nosuch"], "unknown experiment 'nosuch'", ["numpy", "elftools"]),
])
def test_a_mistyped_command_is_refused_before_numpy_loads(args, message, not_loaded):
    """The one-line refusal of a command the user mistyped comes before the engine and numpy
    load (a third of a second, not two thirds): checked in the process itself, at its exit."""
    import subprocess
    import sys

    probe = ("import atexit, sys; atexit.register(lambda: print('loaded:', sorted(m for m in sys.modules "
             f"if m in {not_loaded!r}), file=sys.stderr)); from layertax.cli import main; "
             "sys.argv = ['layertax', *sys.argv[1:]]; main()")
    done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "loaded: []" in done.stderr, done.stderr
