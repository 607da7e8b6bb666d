"""The experiment contract: what an experiment declares (its kernels, cases and classic figures)
and the hooks through which it may take part in a run, written as types.

An experiment is data. The engine reads these declarations to build and run;
the reports read them back from the result. Nothing here runs or prints. This
module sits below the engine (which reads it) and the experiments (which fill it in).

A hook is given either as a callable or as a "module:function" string, imported
only when the hook is used: the registry loads every experiment at start-up, and
the heavy parts (numpy, click commands, builds) should load only when needed.
"""
from __future__ import annotations

import fnmatch
import importlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # types only: importing them here would load the engine at start-up
    from layertax.engine.measure.settings import Settings


@dataclass(frozen=True)
class CKernel:
    """A C program linked with native/harness.c. Sources are relative to the experiment's package."""

    name: str
    sources: tuple[str, ...]
    libs: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()  # toolchain features, e.g. "liburing"
    cflags: tuple[str, ...] = ()
    kind: str = "c"


@dataclass(frozen=True)
class PythonKernel:
    """A module that uses layertax.harnesses.python, its file run as a script (with layertax on
    PYTHONPATH), so that a kernel's start imports only what the kernel itself does."""

    name: str
    module: str
    requires: tuple[str, ...] = ()
    kind: str = "python"


@dataclass(frozen=True)
class RuntimeKernel:
    """A kernel in another language, built by that language's own toolchain together
    with its protocol harness (layertax/harnesses/<kind>/). Sources are relative to the
    experiment's package. kind: "go" (package main), "rust" (main.rs of a crate with
    no dependencies), "java" (main_class names the class with main), "node" and "perl"
    (the first source is the script run)."""

    name: str
    kind: str
    sources: tuple[str, ...]
    main_class: str = ""
    requires: tuple[str, ...] = ()


Kernel = CKernel | PythonKernel | RuntimeKernel


@dataclass(frozen=True)
class Case:
    """One way of doing the experiment's operation. `name` is also the case's name inside its kernel."""

    name: str
    kernel: str
    layer: str
    language: str
    group: str = ""     # the CaseGroup it is compared within; "" is the experiment's main table
    # It runs on every CPU at once: its figure follows the load on the machine's other CPUs,
    # which can move it between runs while each run holds steady within itself (tls's -threads
    # cases on the 2-vCPU VM, docs/method/statistics.md). Marked "^" in every run.
    every_cpu: bool = False


@dataclass(frozen=True)
class CaseGroup:
    """A set of an experiment's cases compared among themselves, with a baseline of their own,
    shown as a table of its own (e.g. throughput at several sizes beside the classic table)."""

    name: str
    title: str
    baseline: str                # the case this group's ratios are taken to
    show_cases: bool = True      # False: the experiment's own tables hook presents them
    # A large family that does not answer the experiment's question (a throughput matrix): a
    # bare `layertax run` leaves it out and says so; naming the experiment, or --all, runs it.
    extended: bool = False

    def to_dict(self) -> dict:
        return {"name": self.name, "title": self.title, "baseline": self.baseline, "show_cases": self.show_cases}


@dataclass(frozen=True)
class ClassicFigure:
    label: str                  # the layer as the classic source named it
    value: float                # in Classic.unit
    counterpart: str | None     # today's nearest case, by name
    why: str                    # why that case is the nearest counterpart


@dataclass(frozen=True)
class Classic:
    source: str
    year: str
    machine: str
    unit: str
    baseline: str               # label of the figure the ratios are taken to
    figures: tuple[ClassicFigure, ...]   # empty if the finding was not a number (the conclusion tells it)
    conclusion: str

    def ratios(self) -> dict[str, float]:
        """Each figure over the baseline figure; none for a classic told in words (no figures)."""
        if not self.figures:
            return {}
        base = next(f.value for f in self.figures if f.label == self.baseline)
        return {f.label: f.value / base for f in self.figures}

    def to_dict(self) -> dict:
        d = asdict(self)
        d["ratios"] = {k: round(v, 4) for k, v in self.ratios().items()}
        return d


@dataclass
class SharedInput:
    """An input made once per run and shared by every kernel (e.g. a file to scan),
    instead of each kernel making its own in every round."""

    env: dict[str, str]                             # given to every kernel invocation
    info: dict                                      # recorded in the result under "input"
    before_each: Callable[[], None] | None = None   # before every invocation (e.g. evict a file from the page cache)
    fixed_iters: int | None = None                  # every sample does exactly this many iterations (no calibration)
    burst: int | None = None                        # samples per invocation, if the input demands it


class ProgressSink(Protocol):
    """Where long work reports how far it is (a progress bar on a terminal, lines on a pipe)."""

    def start(self, experiment: str, total: int | None) -> None: ...   # None: not known yet
    def step(self, description: str) -> None: ...
    def retotal(self, total: int) -> None: ...   # the work left was re-estimated
    def deadline(self, at: float | None) -> None: ...   # it ends by time.monotonic() `at` at the latest
    def finish(self, stopped: bool = False) -> None: ...   # stopped: Ctrl-C ended the work early


class MeasureHook(Protocol):
    """An experiment measured its own way (process launches, a correctness matrix), not by
    kernels: returns its result, in the shape the scheduler's results have, and whether it
    was interrupted."""

    def __call__(self, experiment: Experiment, settings: Settings, progress: ProgressSink,
                 cache_root: Path, case_globs: tuple[str, ...] = ()) -> tuple[dict, bool]: ...
    # case_globs: --case as given; the hook measures the matching cases and the baselines
    # and controls they are compared with (engine.measure.scheduler.select_cases).


class TablesHook(Protocol):
    """Extra tables built from the analysed result: [{title, columns, rows, notes}]."""

    def __call__(self, result: dict) -> list[dict]: ...


class RunOptionsHook(Protocol):
    """Options of `layertax run` that belong to this experiment ([click.Option]); their values
    reach the shared input as a dict keyed by parameter name."""

    def __call__(self) -> list[Any]: ...


class SharedInputHook(Protocol):
    """The input made once per run, inside the run's private work directory, and removed when
    the context ends. note(message) tells the user what is happening; progress reports work
    that takes seconds."""

    def __call__(self, options: dict, settings: Settings, workroot: Path, note: Callable[[str], None],
                 progress: ProgressSink) -> AbstractContextManager[SharedInput]: ...


class BuildsHook(Protocol):
    """What the experiment builds besides its kernels (libraries, launch tools, generated
    programs), as engine.builder.ninja BuildTarget and BuildTree values. The engine builds
    them in the run's one ninja graph beside every kernel, and the experiment's own build
    call later finds them in the cache. Returns what a run with these case globs needs, or
    nothing it cannot build here (a missing compiler: the experiment reports that itself)."""

    def __call__(self, experiment: Experiment, cache_root: Path, case_globs: tuple[str, ...]) -> list[Any]: ...


class CommandKit(Protocol):
    """What the command line lends an experiment's own commands, so that they never import it:
    the context settings every command shares, consoles, progress, and keeping a result
    (saved, recorded in the history, exported, shown) the way every other command does."""

    context_settings: dict

    def console(self, stderr: bool = False) -> Any: ...
    def progress(self) -> ProgressSink: ...
    def keeping_options(self, command: Callable) -> Callable: ...   # --export-*, --no-save, --allow-concurrent
    def targets(self, options: dict, save: bool) -> dict[str, Path]: ...   # checked before measuring
    def measuring(self, allow_concurrent: bool) -> AbstractContextManager: ...
    def keep(self, doc: dict, save: bool, exports: dict[str, Path], claim: Any = None,
             verbose: bool = False) -> None: ...


class CommandsHook(Protocol):
    """The experiment's own command group (named after the experiment) for the command line."""

    def __call__(self, kit: CommandKit) -> Any: ...


Hook = Callable[..., Any] | str   # a callable, or "module:function" imported on use


def resolve_hook(hook: Hook | None) -> Callable[..., Any] | None:
    """The callable a hook names ("module:function" is imported now)."""
    if hook is None or callable(hook):
        return hook
    module, sep, function = hook.partition(":")
    if not sep or not module or not function:
        raise ValueError(f"a hook string must read 'module:function', not {hook!r}")
    return getattr(importlib.import_module(module), function)


@dataclass(frozen=True)
class Experiment:
    name: str
    title: str
    question: str
    baseline: str               # the case every ratio is taken to
    kernels: tuple[Kernel, ...]
    cases: tuple[Case, ...]
    classic: Classic
    package_dir: Path
    needs_workdir: bool = True
    unit: str = "ns/op"
    notes: tuple[str, ...] = field(default_factory=tuple)
    # Hooks (see the Protocols above), each a callable or a "module:function" string:
    measure: MeasureHook | str | None = None            # measured its own way, not by kernels
    commands: CommandsHook | str | None = None          # `layertax <name> ...` commands
    # Cases compared apart from the main table (Case.group names one).
    groups: tuple[CaseGroup, ...] = ()
    tables: TablesHook | str | None = None              # extra tables from the analysed result
    run_options: RunOptionsHook | str | None = None     # its own options of `layertax run`
    shared_input: SharedInputHook | str | None = None   # an input made once per run
    builds: BuildsHook | str | None = None              # what it builds besides its kernels
    # Settings this experiment runs with unless the user gave them (e.g. fewer, longer
    # rounds when one operation scans a whole file): {"runs": 10, "burst": 2}.
    defaults: dict[str, Any] = field(default_factory=dict)
    # The case groups whose system calls are counted ("" is the main table; None: every group):
    # a group of in-memory conversions makes none, and counting costs two traced runs a case.
    syscall_groups: tuple[str, ...] | None = None
    # The two fixed iteration counts of the difference methods (system calls, instructions)
    # if the engine's defaults would take too long (one operation scans a whole file).
    difference_iters: tuple[int, int] | None = None

    def hook(self, name: str) -> Callable[..., Any] | None:
        """The hook `name` as a callable (imported now if it was given as a string), or None."""
        return resolve_hook(getattr(self, name))

    def group_baseline(self, group: str) -> str:
        return next((g.baseline for g in self.groups if g.name == group), self.baseline)

    def cases_asked_for(self, patterns: tuple[str, ...]) -> list[Case]:
        """The cases matching any glob (every case when none is given), with the baselines they
        are compared with first, since every ratio needs them; [] when no case matches."""
        if not patterns:
            return list(self.cases)
        chosen = [c for c in self.cases if any(fnmatch.fnmatchcase(c.name, p) for p in patterns)]
        if not chosen:
            return []
        names = {c.name for c in chosen}
        bases = dict.fromkeys([self.baseline, *(self.group_baseline(c.group) for c in chosen)])
        return [self.case(b) for b in bases if b not in names] + chosen

    def kernel(self, name: str) -> Kernel:
        return next(k for k in self.kernels if k.name == name)

    def case(self, name: str) -> Case:
        return next(c for c in self.cases if c.name == name)
