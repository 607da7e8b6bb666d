"""bench/'s scripts measure layertax itself and are run by hand, so nothing else notices when a
change to the package leaves one behind. Each must at least import against today's package and
answer --help with its usage (bench/README.md promises it), without measuring anything."""
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
SCRIPTS = sorted(p for p in BENCH.glob("*.py") if not p.name.startswith("_"))

# One interpreter for all of them (an interpreter each would take a second apiece): each script
# runs as __main__ with --help, which argparse answers with exit 0 before any work.
RUN_EACH = """
import contextlib, io, json, runpy, sys
sys.path.insert(0, sys.argv[1])
answers = {}
for script in sys.argv[2:]:
    sys.argv = [script, "--help"]
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(script, run_name="__main__")
        answers[script] = ["no exit", out.getvalue()]
    except SystemExit as done:
        answers[script] = [done.code, out.getvalue()]
    except Exception as error:
        answers[script] = [repr(error), out.getvalue()]
print(json.dumps(answers))
"""


def test_every_bench_script_imports_and_answers_help_without_measuring():
    import json
    assert len(SCRIPTS) >= 20
    done = subprocess.run([sys.executable, "-c", RUN_EACH, str(BENCH), *map(str, SCRIPTS)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout.strip().splitlines()[-1])
    for script in SCRIPTS:
        code, text = answers[str(script)]
        assert code == 0, f"{script.name}: {code}"
        assert text.startswith("usage: ") and "-h, --help" in text, f"{script.name}: {text[:200]}"
