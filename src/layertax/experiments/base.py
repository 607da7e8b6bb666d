"""What an experiment declares: its kernels, its cases, and its classic figures.

An experiment is data. The engine reads these declarations to build and run;
the reports read them back from the result. Nothing here runs or prints.
"""
from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


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
    """A module run as `python -m MODULE` that uses layertax.harnesses.python."""

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


@dataclass(frozen=True)
class CaseGroup:
    """A set of an experiment's cases compared among themselves, with a baseline of their own,
    shown as a table of its own (e.g. throughput at several sizes beside the classic table)."""

    name: str
    title: str
    baseline: str                # the case this group's ratios are taken to
    show_cases: bool = True      # False: the experiment's own tables hook presents them

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
    # An experiment that is not measured by kernels (e.g. process launches) supplies
    # its own measurement: measure(experiment, settings, progress, cache_root) ->
    # (result, interrupted), a result in the same shape the Scheduler returns.
    measure: Callable[..., tuple[dict, bool]] | None = None
    # Extra commands: a callable returning a click group (named after the experiment) for the CLI.
    commands: Callable[[], Any] | None = None
    # Cases compared apart from the main table (Case.group names one).
    groups: tuple[CaseGroup, ...] = ()
    # Extra tables built from the analysed result: tables(result) -> [{title, columns, rows, notes}].
    tables: Callable[[dict], list[dict]] | None = None
    # Options of `layertax run` that belong to this experiment: run_options() -> [click.Option]
    # (imported on use). Their values reach shared_input as a dict keyed by parameter name.
    run_options: Callable[[], list[Any]] | None = None
    # The shared input: shared_input(options, settings, workroot, note, progress) -> a context
    # manager yielding a SharedInput; it is made inside the run's private work directory
    # and removed when the context ends. note(message) tells the user what is happening;
    # progress is a progress sink (start/step/finish) for work that takes seconds.
    shared_input: Callable[..., AbstractContextManager[SharedInput]] | None = None
    # Settings this experiment runs with unless the user gave them (e.g. fewer, longer
    # rounds when one operation scans a whole file): {"runs": 10, "burst": 2}.
    defaults: dict[str, Any] = field(default_factory=dict)
    # The two fixed iteration counts of the difference methods (system calls, instructions)
    # if the engine's defaults would take too long (one operation scans a whole file).
    difference_iters: tuple[int, int] | None = None

    def group_baseline(self, group: str) -> str:
        return next((g.baseline for g in self.groups if g.name == group), self.baseline)

    def kernel(self, name: str) -> Kernel:
        return next(k for k in self.kernels if k.name == name)

    def case(self, name: str) -> Case:
        return next(c for c in self.cases if c.name == name)
