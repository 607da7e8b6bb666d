"""The house rules of the source tree, read from the code itself: imports run one way
(cli -> commands -> experiments / inspect -> launch / elf / programs / engine -> ground;
reports read results only), the command line stays thin, the launch-run assembly exists
once, and every file is written by the one safe writer."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "layertax"

# The ground floor: anyone may import these, and they import only each other.
GROUND = {"layertax.units", "layertax.console", "layertax.progress", "layertax.paths", "layertax.errors",
          "layertax.version", "layertax.experiment", "layertax.scratch", "layertax.one_line",
          "layertax.blas_threads", "layertax.text", "layertax.redaction", "layertax.files", "layertax.result"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_lines(tree: ast.AST) -> set[int]:
    """Lines inside `if TYPE_CHECKING:` blocks: imports for annotations only, never run."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def _imports(path: Path) -> set[str]:
    """Every layertax module a file imports (at module level or inside a function), as
    dotted names: `from layertax.engine import machine` gives layertax.engine.machine."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_lines(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("layertax"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("layertax"):
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def _graph() -> dict[str, set[str]]:
    return {_module_name(p): _imports(p) for p in PACKAGE.rglob("*.py")}


GRAPH = _graph()


def _within(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _violations(importers: tuple[str, ...], forbidden: tuple[str, ...]) -> list[str]:
    return sorted(f"{mod} imports {dep}" for mod, deps in GRAPH.items() if _within(mod, *importers)
                  for dep in deps if _within(dep, *forbidden))


def test_the_graph_is_read():
    # A parser that found nothing would pass every rule below.
    assert "layertax.engine.session" in GRAPH and "layertax.launch.timer" in GRAPH
    assert "layertax.engine.measure.scheduler.Scheduler" in GRAPH["layertax.engine.session"]


LOWER_ROOMS = ("layertax.engine", "layertax.launch", "layertax.elf", "layertax.programs")


def test_the_lower_rooms_import_nothing_above_them():
    """launch/, elf/, programs/ and the engine never import an experiment, inspect, a report,
    a command or the command line."""
    assert _violations(LOWER_ROOMS, ("layertax.experiments", "layertax.inspect", "layertax.report",
                                     "layertax.cli", "layertax.commands", "layertax.windows", "layertax.fleet")) == []


def test_the_engine_knows_nothing_of_launches_elf_files_or_programs():
    assert _violations(("layertax.engine",), ("layertax.launch", "layertax.elf", "layertax.programs")) == []


def test_launch_knows_nothing_of_elf_files_or_programs():
    """elf/ runs launches (the loader's views); the timer needs nothing of elf/ or programs/."""
    assert _violations(("layertax.launch",), ("layertax.elf", "layertax.programs")) == []


def test_experiments_never_import_the_command_line():
    assert _violations(("layertax.experiments",), ("layertax.cli", "layertax.commands", "layertax.inspect")) == []


def test_inspect_uses_only_loadtimes_public_functions():
    reach = sorted(dep for mod, deps in GRAPH.items() if _within(mod, "layertax.inspect")
                   for dep in deps if _within(dep, "layertax.experiments"))
    assert reach and all(_within(dep, "layertax.experiments.loadtime.api") for dep in reach), reach


def test_the_generated_programs_are_no_experiments():
    """loadtime, inspect and windows/ share programs/; no experiment keeps a program another uses."""
    assert not [p for p in (PACKAGE / "experiments" / "loadtime").rglob("*.py")
                if p.stem in ("generate", "variants", "estimate", "build") or "pe" in p.parts]
    users = {mod.split(".")[1] for mod, deps in GRAPH.items() for dep in deps if _within(dep, "layertax.programs")
             and not _within(mod, "layertax.programs")}
    assert {"experiments", "inspect", "windows"} <= users, users


def test_the_old_rooms_are_gone():
    assert not (PACKAGE / "loader").exists()
    assert not [name for name in GRAPH if _within(name, "layertax.loader")]


def test_reports_import_nothing_that_measures():
    assert _violations(("layertax.report",), ("layertax.engine.measure", "layertax.engine.builder",
                                              "layertax.engine.session", "layertax.engine.machine",
                                              "layertax.launch", "layertax.elf", "layertax.programs",
                                              "layertax.experiments", "layertax.inspect",
                                              "layertax.commands", "layertax.cli")) == []


def test_the_ground_floor_imports_only_the_ground_floor():
    bad = sorted(f"{mod} imports {dep}" for mod, deps in GRAPH.items() if mod in GROUND
                 for dep in deps if not any(_within(dep, g) for g in GROUND) and dep != "layertax.__version__")
    assert bad == []


def test_the_command_line_is_thin():
    cli = PACKAGE / "cli" / "__init__.py"
    assert len(cli.read_text(encoding="utf-8").splitlines()) < 350
    # It declares and calls; the work is in layertax.commands.
    family = [mod for mod in GRAPH if _within(mod, "layertax.cli")]
    assert len(family) >= 4
    assert not any(_within(dep, "layertax.engine.session", "layertax.engine.measure.scheduler",
                           "layertax.launch", "layertax.elf", "layertax.inspect", "layertax.report")
                   for mod in family for dep in GRAPH[mod]
                   # the declarations read the exporter registry (--export-*) and the timer's defaults
                   if not _within(dep, "layertax.report.exporters", "layertax.launch.settings"))


def test_options_are_declared_in_one_place_per_family():
    """The command line's options live in cli/ (one module per family, as hyperfine's cli.rs);
    an experiment declares its own, which the command line adds. No command module declares any."""
    declaring = sorted(str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
                       if re.search(r"click\.(option|argument|group|command)\(", path.read_text(encoding="utf-8"))
                       and not path.relative_to(PACKAGE).parts[0] in ("cli", "experiments"))
    assert declaring == []


def test_scipy_is_imported_only_where_it_is_used():
    """scipy (its special functions: half a second to import on the 2-vCPU VM, numpy included)
    at a module's top would hold back every command's first measurement (a launch run's first
    spawn) by that much; and scipy.stats, over a second more, is not imported at all
    (engine/analysis/distributions.py)."""
    def top_level_scipy(path: Path) -> bool:
        body = ast.parse(path.read_text(encoding="utf-8")).body
        return any(isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "scipy"
                   or isinstance(node, ast.Import) and any(a.name.split(".")[0] == "scipy" for a in node.names)
                   for node in body)
    assert sorted(_module_name(p) for p in PACKAGE.rglob("*.py") if top_level_scipy(p)) == []
    stats_users = [_module_name(p) for p in PACKAGE.rglob("*.py")
                   if re.search(r"scipy\.stats|from scipy import stats", p.read_text(encoding="utf-8"))
                   and p.name not in ("distributions.py", "rank_tests.py")]      # they name it, to say why not
    assert stats_users == []


def _calls(path: Path, function: str, owner: str) -> int:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return sum(1 for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
               and node.func.attr == function and isinstance(node.func.value, ast.Name) and node.func.value.id == owner)


def test_the_launch_run_assembly_exists_once():
    """Only the assembly (timer.launch_cases) and glibc's debug views, which run their own
    launches, call the timer; every start-up measurement goes through the assembly."""
    callers = sorted(_module_name(p) for p in PACKAGE.rglob("*.py") if _calls(p, "run", "timer"))
    assert callers == ["layertax.elf.loaderview"]
    users = sorted(_module_name(p) for p in PACKAGE.rglob("*.py") if _calls(p, "launch_cases", "timer")
                   or "layertax.launch.timer.launch_cases" in GRAPH[_module_name(p)])
    assert users == ["layertax.commands.launch", "layertax.experiments.loadtime.measure",
                     "layertax.inspect.measure"]


@pytest.mark.parametrize("name", sorted(n for n in GRAPH if n.startswith("layertax.experiments.")
                                        and n.count(".") == 2))
def test_experiment_hooks_given_as_strings_resolve(name):
    """A hook named "module:function" must name a function that exists."""
    import importlib

    from layertax.experiment import Experiment

    exp = getattr(importlib.import_module(name), "EXPERIMENT", None)
    if not isinstance(exp, Experiment):
        pytest.skip(f"{name} is not an experiment package")
    for hook in ("measure", "commands", "tables", "run_options", "shared_input"):
        if getattr(exp, hook) is not None:
            assert callable(exp.hook(hook)), f"{name}: {hook}"


# The one safe writer (files.py): no foreign link followed, a file whole or not at all, a device
# or a FIFO as a stream. Kernels and harnesses are the measured programs themselves, not layertax.
SAFE_WRITER = "layertax.files"
WRITER_EXCEPTIONS = {"layertax.engine.measure.lock"}    # the lock: its own O_EXCL|O_NOFOLLOW files, by dir fd
_WRITE_METHODS = {"write_text", "write_bytes"}
_COPIES = {"copy", "copy2", "copyfile", "copytree", "move"}


def _write_calls(path: Path) -> list[str]:
    """Every call in a file that writes a file by itself, as "line: what"."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func, what = node.func, None
        if isinstance(func, ast.Attribute) and func.attr in _WRITE_METHODS:
            if not (isinstance(func.value, ast.Name) and func.value.id == "files"):
                what = func.attr
        elif isinstance(func, ast.Name) and func.id == "open" or \
                isinstance(func, ast.Attribute) and func.attr == "open" and isinstance(func.value, ast.Name) \
                and func.value.id in ("io", "builtins"):
            mode = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"), None)
            if isinstance(mode, ast.Constant) and isinstance(mode.value, str) and set(mode.value) & set("wax+"):
                what = f"open(..., {mode.value!r})"
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            owner = func.value.id
            if owner == "shutil" and func.attr in _COPIES or owner == "os" and func.attr == "replace" \
                    or owner == "tempfile" and func.attr in ("mkstemp", "NamedTemporaryFile"):
                what = f"{owner}.{func.attr}"
            elif owner == "os" and func.attr == "open" and len(node.args) > 1:
                flags, target = ast.unparse(node.args[1]), ast.unparse(node.args[0])
                writes = any(f"O_{flag}" in flags for flag in ("CREAT", "WRONLY", "RDWR", "TRUNC", "APPEND"))
                if writes and target != "os.devnull":       # /dev/null: where a closed stdout is pointed
                    what = f"os.open(..., {flags})"
            elif owner == "zipfile" and func.attr == "ZipFile":
                mode = node.args[1] if len(node.args) > 1 else None
                if isinstance(mode, ast.Constant) and mode.value in ("w", "a", "x"):
                    what = "zipfile.ZipFile(<a path>, 'w')" if not isinstance(node.args[0], ast.Name) \
                        or node.args[0].id != "out" else None
        if what:
            found.append(f"{node.lineno}: {what}")
    return found


def test_every_file_is_written_by_the_one_safe_writer():
    offenders = {}
    for path in PACKAGE.rglob("*.py"):
        name = _module_name(path)
        if name == SAFE_WRITER or name in WRITER_EXCEPTIONS or "kernels" in path.parts or "harnesses" in path.parts:
            continue
        calls = _write_calls(path)
        if calls:
            offenders[name] = calls
    assert offenders == {}


def test_the_writer_check_finds_a_writer():
    # A check that finds nothing would pass everything above.
    probe = PACKAGE.parent.parent / "tests" / "data" / "writes-a-file.py.txt"
    assert _write_calls(probe) == ["2: write_text", "3: open(..., 'w')", "4: shutil.copyfile", "5: os.replace",
                                   "6: os.open(..., os.O_WRONLY | os.O_CREAT)"]


def test_no_two_modules_import_each_other():
    """Imports run one way inside a package too: a module that imports one that imports it
    back (even inside a function) is a circle to break."""
    circles = sorted({tuple(sorted((a, b))) for a, deps in GRAPH.items() for dep in deps
                      for b in (dep, dep.rsplit(".", 1)[0]) if b in GRAPH and b != a
                      and any(d == a or d.rsplit(".", 1)[0] == a for d in GRAPH[b])})
    assert circles == []
