"""The result as typed objects: Sample, Case, ExperimentResult and Run, each with to_json and
from_json for schema "layertax/1" (result/schema.py).

One model for every trip a measurement makes (the launch timer's line to the table, the file
on disk, the history row, the analysis), as pyperf's _bench.py is for its worker pipe, files
and analysis. Run.from_json is where a document enters: it is validated there (result/
validate.py), so a hostile file is refused in one line before any object is built from it.

Each object names the fields every reader uses; whatever else an experiment records (its
kernels, tables, classic figures, a launch's rusage) rides along in `extra` and comes back
out of to_json as it went in, so a file read and written again is the same JSON.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from layertax.result import validate
from layertax.result.schema import SCHEMA_ID

Value = int | float | str | bool | None


@dataclass(frozen=True)
class Shape:
    """How the JSON an object was read from looked: its keys in order, and which optional keys
    it lacked. A file read and written again is then the same text, key for key."""
    order: tuple[str, ...] = ()
    absent: frozenset = frozenset()

    @classmethod
    def of(cls, data: Mapping, optional: tuple[str, ...]) -> Shape:
        return cls(tuple(data), frozenset(k for k in optional if k not in data))

    def apply(self, out: dict) -> dict:
        out = {k: v for k, v in out.items() if not (k in self.absent and v is None)}
        if not self.order:
            return out
        ordered = {k: out[k] for k in self.order if k in out}
        return {**ordered, **{k: v for k, v in out.items() if k not in ordered}}


@dataclass(frozen=True)
class Sample(Mapping):
    """One measurement: a kernel's burst (ns over ops) or a launch (main_ns, exit_ns, rusage).
    Its fields read as a mapping (sample["ns"]), so the statistics read a kernel's samples and
    a launch's alike; round is -1 for a warm-up launch."""
    round: int
    values: Mapping[str, Value] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Value:
        return self.round if key == "round" else self.values[key]

    def __iter__(self) -> Iterator[str]:
        yield "round"
        yield from self.values

    def __len__(self) -> int:
        return 1 + len(self.values)

    def to_json(self) -> dict:
        return {"round": self.round, **self.values}

    @classmethod
    def from_json(cls, data: Mapping) -> Sample:
        return cls(int(data["round"]), {k: v for k, v in data.items() if k != "round"})


_CASE_FIELDS = ("name", "kernel", "layer", "language", "status", "reason", "samples", "stats")


@dataclass
class Case:
    """One thing measured: a kernel's case or a launched command, its samples and, once
    analysed, its statistics (engine/analysis/stats.py's summary)."""
    name: str
    layer: str
    language: str
    status: str = "ok"
    kernel: str | None = None
    reason: str | None = None
    samples: list[Sample] = field(default_factory=list)
    stats: dict | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    shape: Shape = field(default=Shape(), repr=False, compare=False)

    @property
    def measured(self) -> bool:
        return self.status == "ok" and bool(self.samples)

    def values(self, name: str) -> list:
        """One field of every sample that has it (None where a launch did not stamp is kept out)."""
        return [s[name] for s in self.samples if s.get(name) is not None]

    def to_json(self) -> dict:
        out = {"name": self.name, "kernel": self.kernel, "layer": self.layer, "language": self.language,
               "status": self.status, "reason": self.reason, "samples": [s.to_json() for s in self.samples],
               "stats": self.stats}
        return self.shape.apply({**out, **self.extra})

    @classmethod
    def from_json(cls, data: Mapping) -> Case:
        return cls(name=data["name"], layer=data["layer"], language=data["language"], status=data["status"],
                   kernel=data.get("kernel"), reason=data.get("reason"),
                   samples=[Sample.from_json(s) for s in data["samples"]], stats=data.get("stats"),
                   extra={k: v for k, v in data.items() if k not in _CASE_FIELDS},
                   shape=Shape.of(data, ("kernel", "reason", "stats")))


_EXPERIMENT_FIELDS = ("name", "title", "question", "unit", "baseline", "cases")


@dataclass
class ExperimentResult:
    """One experiment's result: its question, unit, baseline and cases; its tables, notes and
    whatever else it records in extra."""
    name: str
    title: str
    question: str
    unit: str | None
    baseline: str | None
    cases: list[Case] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    shape: Shape = field(default=Shape(), repr=False, compare=False)

    def case(self, name: str) -> Case | None:
        return next((c for c in self.cases if c.name == name), None)

    def to_json(self) -> dict:
        return self.shape.apply({"name": self.name, "title": self.title, "question": self.question,
                                 "unit": self.unit, "baseline": self.baseline, **self.extra,
                                 "cases": [c.to_json() for c in self.cases]})

    @classmethod
    def from_json(cls, data: Mapping) -> ExperimentResult:
        return cls(name=data["name"], title=data["title"], question=data["question"],
                   unit=data["unit"], baseline=data["baseline"],
                   cases=[Case.from_json(c) for c in data["cases"]],
                   extra={k: v for k, v in data.items() if k not in _EXPERIMENT_FIELDS},
                   shape=Shape.of(data, ()))


_RUN_FIELDS = ("schema", "layertax_version", "created", "command", "complete", "settings", "machine", "experiments")


@dataclass
class Run:
    """One run of layertax: when, with which command line and settings, on what machine, and
    its experiments' results."""
    layertax_version: str | None
    created: str | None
    command: list[str] | None
    complete: bool | None
    settings: dict | None
    machine: dict
    experiments: list[ExperimentResult] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    shape: Shape = field(default=Shape(), repr=False, compare=False)

    def to_json(self) -> dict:
        out = {"schema": SCHEMA_ID, "layertax_version": self.layertax_version, "created": self.created,
               "command": self.command, "complete": self.complete, "settings": self.settings,
               "machine": self.machine}
        return self.shape.apply({**out, **self.extra, "experiments": [e.to_json() for e in self.experiments]})

    @classmethod
    def from_json(cls, doc, shown: str = "the result") -> Run:
        """The run of a layertax/1 document, validated first: ResultError in one line if it is not one."""
        doc = validate.check(doc, shown)
        return cls(layertax_version=doc.get("layertax_version"), created=doc.get("created"),
                   command=doc.get("command"), complete=doc.get("complete"),
                   settings=doc["settings"], machine=doc["machine"],
                   experiments=[ExperimentResult.from_json(e) for e in doc["experiments"]],
                   extra={k: v for k, v in doc.items() if k not in _RUN_FIELDS},
                   shape=Shape.of(doc, ("layertax_version", "created", "command", "complete")))
