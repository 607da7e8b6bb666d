"""No way in: the attacks of a hostile local user, each reproduced in the test's own temporary
directory. The measuring lock is no symlink trap; no file is written through a link another
user planted; a password is never stored or printed; control characters and rich markup from
a result never reach the terminal or an export raw; what a reader takes in is bounded."""
from __future__ import annotations

import json
import os
import pwd
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli

from layertax import files
from layertax.errors import UsageError

RECORDED = Path(__file__).parent / "data" / "recorded" / "callchain.json"
ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="making a file another user's needs root")


def _nobody() -> int:
    return pwd.getpwnam("nobody").pw_uid


def _sticky_shared(tmp_path: Path) -> Path:
    """A directory like /tmp: anyone may create entries in it."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    return shared


# ---- the measuring lock -----------------------------------------------------------------------------------

def _one_line(done: subprocess.CompletedProcess, code: int, needle: str) -> None:
    assert done.returncode == code, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines and lines[-1].startswith("layertax: error:") and needle in lines[-1], done.stderr
    assert "Traceback" not in done.stderr


def test_a_lock_directory_that_is_a_link_is_refused_and_its_target_untouched(tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir(mode=0o700)
    lock = tmp_path / "data" / "layertax" / "measuring"
    lock.parent.mkdir(parents=True, mode=0o700)
    lock.symlink_to(victim)
    done = run_cli("launch", "--runs", "2", "--no-save", "--", "/bin/true")
    _one_line(done, 2, "is a symbolic link")
    assert stat.S_IMODE(victim.stat().st_mode) == 0o700 and list(victim.iterdir()) == []


@needs_root
def test_a_lock_directory_of_another_user_is_refused(tmp_path):
    lock = tmp_path / "data" / "layertax" / "measuring"
    lock.mkdir(parents=True, mode=0o700)
    os.chown(lock, _nobody(), -1)
    done = run_cli("launch", "--runs", "2", "--no-save", "--", "/bin/true")
    _one_line(done, 2, "belongs to another user")


@needs_root
def test_a_data_directory_planted_by_another_user_in_a_shared_directory_is_refused(tmp_path):
    """XDG_DATA_HOME in a directory anyone can write, where another user planted layertax/ as a
    link to a directory of ours: layertax refuses it rather than chmod or fill its target."""
    shared = _sticky_shared(tmp_path)
    victim = tmp_path / "victim"
    victim.mkdir(mode=0o700)
    (victim / "precious").write_text("keep me\n")
    planted = shared / "layertax"
    planted.symlink_to(victim)
    os.lchown(planted, _nobody(), -1)
    done = run_cli("launch", "--runs", "2", "--", "/bin/true", env={"XDG_DATA_HOME": str(shared)})
    _one_line(done, 2, "a directory others can write, and it is not yours")
    assert sorted(p.name for p in victim.iterdir()) == ["precious"]
    assert stat.S_IMODE(victim.stat().st_mode) == 0o700 and (victim / "precious").read_text() == "keep me\n"


def test_a_planted_hidden_lock_file_is_never_followed(tmp_path):
    """The lock file's hidden name is predictable (.PID.new): a link planted there is replaced,
    never opened, so its target is not truncated."""
    from layertax.engine.measure.lock import Measuring, lock_dir

    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    directory = lock_dir()
    directory.mkdir(parents=True, mode=0o700)
    (directory / f".{os.getpid()}.new").symlink_to(victim)
    with Measuring() as claim:
        assert claim.path is not None and not claim.path.is_symlink() and claim.path.is_file()
    assert victim.read_text() == "precious\n"
    assert list(directory.iterdir()) == []


def test_the_lock_lives_in_the_users_own_runtime_directory(tmp_path, monkeypatch):
    from layertax.engine.measure.lock import Measuring, lock_dir

    runtime = tmp_path / "run-user"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    assert lock_dir() == runtime / "layertax-measuring"
    with Measuring() as claim:
        assert claim.path.parent == runtime / "layertax-measuring"
        assert stat.S_IMODE((runtime / "layertax-measuring").stat().st_mode) == 0o700
    runtime.chmod(0o755)                            # not what the spec promises: the data directory instead
    assert lock_dir() == tmp_path / "data" / "layertax" / "measuring"


# ---- links, devices and FIFOs at the writer ----------------------------------------------------------------

@needs_root
def test_an_export_through_another_users_link_in_a_shared_directory_is_refused(tmp_path):
    shared = _sticky_shared(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    link = shared / "report.md"
    link.symlink_to(victim)
    os.lchown(link, _nobody(), -1)
    done = run_cli("report", str(RECORDED), "--export-markdown", str(link))
    _one_line(done, 2, "not yours")
    assert victim.read_text() == "precious\n" and link.is_symlink()
    with pytest.raises(UsageError, match="not yours"):
        files.write_text("x", shared / "report.md")
    own = shared / "own.md"                           # the user's own link there is followed, as before
    own.symlink_to(tmp_path / "own-target.md")
    files.write_text("mine\n", own)
    assert (tmp_path / "own-target.md").read_text() == "mine\n" and own.is_symlink()


def test_a_fifo_with_no_reader_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    with pytest.raises(UsageError, match="no one is reading"):
        files.write_text("x", fifo)
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_an_interrupted_write_leaves_nothing_under_the_name(tmp_path):
    """SIGKILL in the middle of a write: the name never holds an empty or a partial file, and the
    temporary file left behind is removed by the next writer once its process is gone."""
    where = tmp_path / "w"
    where.mkdir()
    target = where / "run.json"
    code = ("import sys; from layertax import files\n"
            "with files.atomic_file(sys.argv[1]) as f:\n"
            "    f.write(b'x' * 4096); f.flush(); print('writing', flush=True)\n"
            "    import time; time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", code, str(target)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "writing"
    proc.kill()
    proc.wait()
    assert not target.exists()
    left = [p.name for p in where.iterdir()]
    assert len(left) == 1 and left[0].startswith(".run.json.p") and left[0].endswith(".tmp")
    files.remove_abandoned_temporaries(where, older_than_s=0)
    assert list(where.iterdir()) == []


def test_a_new_run_file_is_taken_whole_and_never_over_another(tmp_path):
    from layertax.engine.store import results

    doc = results.load(RECORDED)
    where = tmp_path / "runs"
    where.mkdir()
    first, second = results.save_new(doc, where), results.save_new(doc, where)
    assert first != second and results.load(first) == results.load(second) == doc
    with pytest.raises(ValueError):                  # a document that cannot be written leaves no file
        results.save_new({**doc, "bad": float("nan")}, where)
    assert sorted(where.iterdir()) == sorted([first, second])


def test_a_run_saved_as_it_goes_is_named_for_every_experiment_it_measures(tmp_path):
    """The first save, after the first experiment, names the file; every later save of the run
    keeps that name, so the name lists all the run measures, not its first experiment alone."""
    from layertax.engine import session
    from layertax.engine.store import results

    doc = results.load(RECORDED)
    saver = session._ProgressSaver(True, print, ["callchain", "encoding", "tls"])
    saver.save(doc)
    first = saver.path
    saver.save(doc)
    assert saver.path == first and first.name.endswith("-callchain+encoding+tls.json")
    assert results.save_new(doc, tmp_path).name.endswith(f"-{doc['experiments'][0]['name']}.json")
    # A bare run's six names would make the "saved:" line 108 columns: they are counted instead.
    every = ["callchain", "encoding", "loadtime", "scan", "tls", "unicode-io"]
    assert results.file_name(doc, 1, every).endswith("-callchain-and-5-more.json")
    assert results.file_name(doc, 2, ["x" * 200]).endswith(f"-{'x' * results.NAMES_AT_MOST}-2.json")


# ---- secrets ------------------------------------------------------------------------------------------------

def test_a_password_in_the_history_url_reaches_no_result_export_or_message(tmp_path, shared_history):
    """The shared history takes a password in its URL (the test server trusts every login, so it is
    accepted and ignored): the run is filed, and the password is nowhere, not in the saved run,
    an export, the history's copy, `history` or an error."""
    url = shared_history.replace("layertax@", "layertax:s3cret@") + "?password=s3cret&sslmode=disable"
    out = tmp_path / "out"
    out.mkdir()
    exports = {f"--export-{name}": str(out / f"r.{name}") for name in ("json", "markdown", "csv", "html")}
    done = run_cli("--history", url, "launch", "--runs", "2", *[x for kv in exports.items() for x in kv],
                   "--", "/bin/true")
    assert done.returncode == 0, done.stderr
    from layertax.engine.store import history

    listing = run_cli("--history", url, "history", "--all-machines")
    row_id = history.runs(url)[0]["id"]
    again = run_cli("--history", url, "report", f"@{row_id}", "--export-json", "-")
    broken = run_cli("--history", "postgresql://me:s3cret@127.0.0.1:1/db?password=s3cret", "history")
    texts = [done.stdout, done.stderr, listing.stdout, listing.stderr, again.stdout, again.stderr, broken.stderr]
    texts += [p.read_text() for p in out.iterdir()]
    texts += [p.read_text() for p in (tmp_path / "data" / "layertax" / "runs").glob("*.json")]
    assert all("s3cret" not in text for text in texts)
    command = json.loads((out / "r.json").read_text())["command"]
    assert any("layertax:***@" in word and "password=***" in word for word in command), command
    assert again.returncode == 0 and broken.returncode == 1


# ---- control characters and markup --------------------------------------------------------------------------

HOSTILE_NAMES = ["c-\x1b[2Jclear", "c-\x1b]8;;http://evil.example/\x07link\x1b]8;;\x07", "c-\x1b]0;pwned\x07title",
                 "c-bell\x07", "c-newline\nforged: a line of its own", "[link=http://evil.example/]markup[/link]"]


def _hostile_doc(tmp_path: Path) -> Path:
    doc = json.loads(RECORDED.read_text())
    cases = doc["experiments"][0]["cases"]
    for case, name in zip(cases[1:], HOSTILE_NAMES):
        case["name"] = case["layer"] = name
    doc["machine"]["cpu_model"] = "<img src=x onerror=alert(1)> \x1b[31mred\x1b[0m"
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(doc))
    return path


def test_control_characters_and_markup_from_a_result_reach_no_terminal_and_no_export(tmp_path):
    path = _hostile_doc(tmp_path)
    outputs = {name: tmp_path / f"r.{name}" for name in ("markdown", "csv", "html", "pyperf", "bmf", "gbench")}
    for columns in ("80", "200"):
        done = run_cli("report", "--verbose", str(path),    # --verbose: the layers too (a legend at 80 columns)
                       *[x for name, p in outputs.items() for x in (f"--export-{name}", str(p))], env={"COLUMNS": columns})
        assert done.returncode == 0, done.stderr
        texts = {"stdout": done.stdout, "stderr": done.stderr, **{n: p.read_text() for n, p in outputs.items()}}
        for where, text in texts.items():
            assert "\x1b" not in text and "\x07" not in text, where
            assert not any(line.startswith("forged:") for line in text.splitlines()), where
        assert "\\x1b[2Jclear" in done.stdout.replace("\n", "").replace(" ", "") or "\\x1b" in done.stdout
        assert "[link=http://evil.example/]" in done.stdout.replace("\n", "")    # shown as text, not a link
    assert "<img" not in texts["markdown"] and "<img" not in texts["html"]


def test_a_wrapped_line_escapes_control_characters_as_the_console_does():
    """Notes, answers and titles reach the terminal through breaking.print_hanging as a rich Text,
    which the console's own escaping (SafeConsole.render_str) never sees: it escapes them itself,
    keeping line breaks, and measures the escapes it prints."""
    import io

    from layertax.console import SafeConsole
    from layertax.report import breaking

    out = io.StringIO()
    breaking.print_hanging(SafeConsole(file=out, width=30, markup=False),
                           "a note naming evil\x1b[2Jclear\x07 and [link=http://evil.example/]x\nforged: line")
    text = out.getvalue()
    assert "\x1b" not in text and "\x07" not in text and "\\x1b[2Jclear" in text
    assert "[link=http://evil.example/]x" in text.replace("\n", "").replace(" ", "")
    assert all(len(line) <= 30 for line in text.splitlines())


def test_an_error_quoting_a_hostile_name_is_one_printable_line(tmp_path):
    hostile = tmp_path / "evil\x1b[2J\nforged.json"
    done = run_cli("report", str(hostile))
    _one_line(done, 2, "no such file")
    assert "\x1b" not in done.stderr and done.stderr.count("\n") == 1 and "\\x1b[2J\\nforged" in done.stderr


# ---- bounded input ---------------------------------------------------------------------------------------------

def test_a_file_above_the_input_limit_is_refused_with_the_way_to_raise_it(tmp_path):
    small = run_cli("report", str(RECORDED), env={"LAYERTAX_MAX_INPUT": "1K"})
    _one_line(small, 2, "larger than 0 MiB, the most layertax reads (set LAYERTAX_MAX_INPUT")
    assert run_cli("report", str(RECORDED), env={"LAYERTAX_MAX_INPUT": "64M"}).returncode == 0
    bad = run_cli("report", str(RECORDED), env={"LAYERTAX_MAX_INPUT": "lots"})
    _one_line(bad, 2, "give a size such as 64M")


def test_a_large_result_is_compared_in_bounded_memory(tmp_path):
    """Many rounds of many cases (a result near the input limit): compare finishes, and its
    bootstrap holds a bounded block of resamples at a time (stats.resampled_medians)."""
    import resource

    doc = json.loads(RECORDED.read_text())
    exp = doc["experiments"][0]
    exp["cases"] = [c for c in exp["cases"] if c["name"] in (exp["baseline"], "c-rename")]
    exp["classic"], exp["classic_now"] = None, []
    for case in exp["cases"]:
        case.pop("stats", None)
        # 20,000 rounds: drawing 4,000 resamples of them at once held 1.3 GB per case
        case["samples"] = [{"round": r, "iters": 1000, "ops": 1000, "ns": 2_000_000 + (r * 7919) % 50_000}
                           for r in range(20_000)]
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(doc))
    b.write_text(json.dumps(doc).replace('"ns": 2', '"ns": 3'))
    code = ("import resource, sys; from layertax.cli import main\n"
            "try:\n    main(['compare', sys.argv[1], sys.argv[2]])\n"
            "except SystemExit as e:\n"
            "    print('rss', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); raise\n")
    done = subprocess.run([sys.executable, "-c", code, str(a), str(b)], capture_output=True, text=True, timeout=600,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    rss_kb = int(done.stderr.rsplit("rss", 1)[1].split()[0])
    assert rss_kb < 1_500_000, rss_kb                # 1.5 GB: a generous bound, far from the 9.5 GB it reached
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > 0


def test_inspect_of_a_program_whose_names_carry_escape_sequences(tmp_path):
    """A program and the library it needs named with terminal escapes (a title, a screen clear,
    a colour): every table, note and line shows them as text."""
    library = "libe\x1b]0;pwned\x07\x1b[2Jvil.so"
    program = tmp_path / "prog\x1b[31mred"
    (tmp_path / "f.c").write_text("int f(void) { return 0; }\n")
    (tmp_path / "m.c").write_text("int f(void);\nint main(void) { return f(); }\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", tmp_path / library, f"-Wl,-soname,{library}", tmp_path / "f.c"],
                   check=True)
    subprocess.run(["cc", "-o", program, tmp_path / "m.c", tmp_path / library, "-Wl,-rpath,$ORIGIN"], check=True)
    out = tmp_path / "r.md"
    done = run_cli("inspect", "--runs", "2", "--no-save", "--no-predict", "--verbose", "--export-markdown", str(out),
                   str(program))
    assert done.returncode == 0, done.stderr
    for text in (done.stdout, done.stderr, out.read_text()):
        assert "\x1b" not in text and "\x07" not in text
    assert "libe\\x1b]0;pwned\\x07\\x1b[2Jvil.so" in done.stdout
