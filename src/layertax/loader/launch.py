"""Drives the C launch timer (native/launch.c): process start-up measurements.

The timer launches every target once per round, in a shuffled order (each launch
that follows another target's primed by PRIMERS untimed ones of its own), and
writes one JSON line per launch to a file, in batches; this module writes its spec,
reads the lines a few times a second (for the progress bar; Ctrl-C asks the timer
to stop and keeps every finished launch) and hands back the raw launches. The stamp library and an empty program are
built beside it, so a binary that does not stamp itself can be timed too.
"""
from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from layertax import files
from layertax.engine.builder import graph, ninja, toolchain
from layertax.engine.measure.settings import LAUNCH_WARMUP_S, default_cpu
from layertax.engine.processes import ParentAwayFrom, kill_group
from layertax.errors import LayertaxError, UsageError
from layertax.loader import contention
from layertax.scratch import private_dir

NATIVE = ninja.NATIVE_DIR


@dataclass(frozen=True)
class LaunchTools:
    timer: Path        # native/launch.c
    stamp_lib: Path    # native/stamp.c as a shared library, for LD_PRELOAD: the main stamp only, as cheap as it can be
    empty: Path        # native/empty.c: does nothing, stamps nothing
    first_lib: Path    # native/first.c: the phases stamp's dependency, initialised first
    stamp_phases_lib: Path  # native/stamp.c -DLAYERTAX_PHASES, needing first_lib: main and the stages before it
    empty_static: Path | None = None  # native/empty.c linked -static (None: no static libc here)


# The preloaded libraries link no start files (nothing of crtbegin's to relocate or
# look up), and the first-constructor library not even libc (first.c says why).
FREESTANDING = ("-nostdlib", "-ffreestanding", "-fno-stack-protector", "-fno-builtin")
# Two LOAD segments (code and read-only data in one, data in the other) and no RELRO:
# ld.so maps each segment with its own mmap, and a RELRO that ends inside the data
# segment splits that mapping with an mprotect. The layout, not the stamp's code, was
# most of what the preload cost (docs/launch.md, section 4: 27 µs with binutils'
# default layout, 13 µs with this one, an empty object 11-13 µs). The price: the
# stamp's own GOT stays writable, which matters to nothing but the stamp.
COMPACT_LAYOUT = ("-Wl,-z,noseparate-code", "-Wl,-z,norelro")
# dlsym is in libc since glibc 2.34; --as-needed drops libdl there and keeps it before.
STAMP_LINKS = ("-nostartfiles", *COMPACT_LAYOUT, "-Wl,--as-needed", "-ldl")


def _cc() -> toolchain.Tool:
    cc = toolchain.find("cc")
    if cc is None:
        raise LayertaxError(toolchain.hint("cc"))
    return cc


def tool_targets(cc: toolchain.Tool) -> list[ninja.BuildTarget]:
    """The timer, the stamp libraries and the empty programs, as build targets. The phases
    stamp is not among them: it links against the first library where the cache keeps it,
    so it is built once that one is published (tools() does it)."""
    common = ninja.COMMON_SOURCES
    return [
        ninja.BuildTarget("launch", (NATIVE / "launch.c", NATIVE / "placement.c", NATIVE / "child.c", NATIVE / "ticks.c",
                                     *common),
                          (NATIVE,), (), (), cc.path, cc.version, kind="program"),
        ninja.BuildTarget("liblayertax-first.so", (NATIVE / "first.c",), (), FREESTANDING,
                          ("-nostdlib", *COMPACT_LAYOUT), cc.path, cc.version, kind="shared"),
        ninja.BuildTarget("empty", (NATIVE / "empty.c",), (), (), (), cc.path, cc.version, kind="program"),
        ninja.BuildTarget("liblayertax-stamp.so", (NATIVE / "stamp.c",), (), ("-fno-stack-protector",),
                          STAMP_LINKS, cc.path, cc.version, kind="shared"),
        # The static empty program: what start-up costs with no loader at all. Optional
        # (it needs libc.a); without it, inspect does not price static linking.
        ninja.BuildTarget("empty-static", (NATIVE / "empty.c",), (), (), ("-static",), cc.path, cc.version,
                          kind="program"),
    ]


def tools(cache_root: Path) -> LaunchTools:
    cc = _cc()
    built = graph.build(tool_targets(cc), cache_root)
    for name, result in built.items():
        if isinstance(result, Exception) and name != "empty-static":
            raise LayertaxError(str(result))
    static = built["empty-static"]
    # The phases stamp names the first one by its absolute path (DT_NEEDED with a
    # slash: loaded from there, no search), so it needs no RPATH and no LD_LIBRARY_PATH.
    first = built["liblayertax-first.so"]
    phases = _build_all([ninja.BuildTarget("liblayertax-stamp-phases.so", (NATIVE / "stamp.c",), (),
                                           ("-DLAYERTAX_PHASES", "-fno-stack-protector"),
                                           ("-Wl,--no-as-needed", str(first), *STAMP_LINKS), cc.path, cc.version,
                                           kind="shared")], cache_root)
    return LaunchTools(built["launch"], built["liblayertax-stamp.so"], built["empty"], first,
                       phases["liblayertax-stamp-phases.so"], static if isinstance(static, Path) else None)


def _build_all(targets: list[ninja.BuildTarget], cache_root: Path) -> dict[str, Path]:
    built = graph.build(targets, cache_root)
    for result in built.values():
        if isinstance(result, Exception):
            raise LayertaxError(str(result))
    return built


@dataclass(frozen=True)
class Target:
    name: str
    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    ignore_status: bool = False


@dataclass
class LaunchSettings:
    runs: int = 30
    warmup: int = 1
    warmup_time: float = LAUNCH_WARMUP_S   # seconds: warm-up rounds go on until this has passed
    seed: int = 1
    timeout: float = 10.0          # seconds per launch
    cpu: int | None = None
    raise_priority: bool = True
    dodge: bool = True             # start launches clear of the pinned CPU's periodic interruptions (native/ticks.h)

    @classmethod
    def from_options(cls, runs: int, warmup: int, timeout: float, seed: int | None, pin: bool = True,
                     raise_priority: bool = True, warmup_time: float = LAUNCH_WARMUP_S,
                     dodge: bool = True) -> LaunchSettings:
        """The settings of a command built on the launch timer (`launch`, `inspect`); a seed is
        drawn (and recorded) when none is given."""
        return cls(runs=runs, warmup=warmup, warmup_time=warmup_time, timeout=timeout,
                   cpu=default_cpu() if pin else None, dodge=dodge,
                   raise_priority=raise_priority, seed=seed or random.SystemRandom().randrange(1, 2**32))

    def warm_up(self) -> str:
        """The warm-up in words: "a warm-up of at least 1 round and 0.25 s"."""
        rounds = f"{self.warmup} round{'s' if self.warmup != 1 else ''}"
        if not self.warmup_time:
            return f"a warm-up of {rounds}" if self.warmup else "no warm-up"
        return f"a warm-up of at least {rounds} and {self.warmup_time:g} s"

    def method(self, what: str, extra: str = "") -> dict:
        """The run's settings record, with the sentence that says how it was measured."""
        cpu = self.cpu if self.cpu is not None else "not pinned"
        if self.cpu is not None and self.dodge:
            extra = (", each started between two of the CPU's periodic interruptions (the kernel's tick) where it "
                     "fits within a wait of 0.5 ms, or at least its spawn->main does") + extra
        return {"runs": self.runs, "warmup": self.warmup, "warmup_time": self.warmup_time, "burst": 1,
                "min_sample_ns": 0, "seed": self.seed, "cpu": self.cpu, "timeout": self.timeout,
                "dodge": self.dodge and self.cpu is not None,
                "method": f"{self.runs} launches per {what} after {self.warm_up()}, {what}s alternating in "
                          f"shuffled rounds (seed {self.seed}), each after another {what}'s primed by {PRIMERS} "
                          f"untimed launches of its own, clone(CLONE_VFORK) + execve, cpu {cpu}" + extra}


@dataclass
class LaunchRun:
    descriptor: dict | None = None
    launches: list[dict] = field(default_factory=list)      # measured rounds only
    failures: dict[str, str] = field(default_factory=dict)  # target -> what went wrong
    interrupted: bool = False
    warmed: dict | None = None   # the warm-up the timer ran: {"rounds", "ns"}
    # The timer's moves off a CPU it found shared with a busy task (native/placement.h):
    # {"round", "from", "to" (-1: unpinned), "waited", "of"}.
    moves: list[dict] = field(default_factory=list)
    # What the launches left running and the timer ended after them: {"ended", "launches"}.
    descendants: dict | None = None

    def record(self) -> dict:
        """How the launches were run, for the result: the timer's descriptor, its warm-up, its moves
        and the processes it ended that launches had left running."""
        return {"descriptor": self.descriptor, "warmed": self.warmed, "moves": self.moves,
                "descendants": self.descendants}

    def of(self, name: str) -> list[dict]:
        return [x for x in self.launches if x["variant"] == name]

    def samples(self, name: str) -> list[dict]:
        """The measured launches of one target as result samples."""
        rule = (self.descriptor or {}).get("placement") or {}
        return [sample(x, rule.get("min_wait_ns")) for x in self.of(name)]


def sample(line: dict, min_wait_ns: int | None = None) -> dict:
    """One launch as a result sample: the timer's line with the context switches named as the
    analysis expects, and whether another task held the launch's CPU ("preempted", by the
    timer's rule with its floor min_wait_ns; None where the kernel gave no run-queue wait).
    The child's involuntary switches cannot say that: nearly every launch has one, the timer
    woken when the child's execve releases the vfork (docs/launch.md §1), so by them every
    launch of a run would count as preempted."""
    out = {"round": line["round"], "main_ns": line["main_ns"], "exit_ns": line["exit_ns"],
           "first_init_ns": line.get("first_init_ns"), "preload_init_ns": line.get("preload_init_ns"),
           "libc_start_main_ns": line.get("libc_start_main_ns"), "minflt": line["minflt"], "majflt": line["majflt"],
           "utime_ns": line["utime_ns"], "stime_ns": line["stime_ns"], "csw_vol": line["nvcsw"],
           "csw_invol": line["nivcsw"], "maxrss_kb": line["maxrss_kb"], "exit_status": line["exit_status"],
           "runq_wait_ns": line.get("runq_wait_ns"), "clear_ns": line.get("clear_ns"), "dodged": line.get("dodged"),
           "dodged_until": line.get("dodged_until"), "descendants_ended": line.get("descendants_ended")}
    known = min_wait_ns is not None and out["runq_wait_ns"] is not None
    out["preempted"] = contention.waited(out, min_wait_ns) if known else None
    return out


def write_spec(targets: list[Target], path: Path) -> None:
    lines = []
    for t in targets:
        for text in (t.name, *t.argv, *(f"{k}={v}" for k, v in t.env)):
            if "\n" in text or "\0" in text:
                raise UsageError(f"{text!r}: an argument with a newline cannot be launched")
        lines.append(f"variant {t.name}")
        lines += [f"arg {a}" for a in t.argv]
        lines += [f"env {k}={v}" for k, v in t.env]
        if t.ignore_status:
            lines.append("ignore-status 1")
    files.write_text("\n".join(lines) + "\n", path)


# Untimed launches of a target before each timed one that follows another target's: an
# empty program starts 9-20% slower right after perl or python3 than right after itself;
# after two primers 0-5%, and four or eight leave no less (bench/carry_over.py,
# docs/launch.md).
PRIMERS = 2
# How often the parent looks at the timer's file while launches run: it sleeps otherwise,
# so it never runs between two launches on the timer's CPU (docs/launch.md).
POLL_S = 0.25
# How long a timer told to stop (SIGTERM) may take to finish its launch and write its lines.
STOP_GRACE_S = 5.0


def run(targets: list[Target], settings: LaunchSettings, launch_tools: LaunchTools,
        on_launch: Callable[[dict], None] | None = None) -> LaunchRun:
    """Runs the timer over targets; Ctrl-C stops it and keeps the launches that finished.

    The timer writes its lines to a file in batches; this parent sleeps meanwhile, off the
    timer's CPU, and reads what is new a few times a second for the progress."""
    if len({t.name for t in targets}) != len(targets):
        raise UsageError("two launch targets have the same name")
    result = LaunchRun()
    with private_dir("launch") as tmp:
        spec, lines = tmp / "spec", tmp / "launches.jsonl"
        write_spec(targets, spec)
        argv = [str(launch_tools.timer), "--spec", str(spec), "--runs", str(settings.runs),
                "--warmup", str(settings.warmup), "--warmup-ms", str(round(settings.warmup_time * 1000)),
                "--seed", str(settings.seed),
                "--timeout-ms", str(max(1, int(settings.timeout * 1000))), "--primers", str(PRIMERS),
                "--out", str(lines)]
        if settings.cpu is not None:
            argv += ["--cpu", str(settings.cpu)]
        if settings.raise_priority:
            argv.append("--raise-priority")
        if not settings.dodge:
            argv.append("--no-dodge")
        reader = _LineReader(lines)
        with ParentAwayFrom(settings.cpu) as away:
            proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                    encoding="utf-8", errors="replace", stdin=subprocess.DEVNULL,
                                    start_new_session=True, cwd=tmp)
            try:
                while not _exited_within(proc, POLL_S):
                    moves = len(result.moves)
                    for line in reader.new_lines():
                        _absorb(result, line, on_launch)
                    if len(result.moves) > moves:   # the timer left a busy CPU: stay off its new one
                        to = result.moves[-1]["to"]
                        away.keep_off(to if to >= 0 else None)
            except KeyboardInterrupt:
                result.interrupted = True
                _stop(proc)
            finally:
                if proc.poll() is None:
                    kill_group(proc)
        for line in reader.new_lines():   # what the timer wrote last, or before it was stopped
            _absorb(result, line, on_launch)
        err = proc.stderr.read().strip()
        if proc.returncode != 0 and not result.interrupted:
            raise LayertaxError(f"the launch timer failed: {err or f'exit status {proc.returncode}'}")
    return result


def _exited_within(proc: subprocess.Popen, seconds: float) -> bool:
    """Sleeps until the process exits or `seconds` pass, whichever is first (a pidfd where the
    kernel has them, so a short run is not held up by the polling interval)."""
    if proc.poll() is not None:
        return True
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        time.sleep(seconds)
        return proc.poll() is not None
    try:
        select.select([fd], [], [], seconds)
    finally:
        os.close(fd)
    return proc.poll() is not None


def _stop(proc: subprocess.Popen) -> None:
    """Asks the timer to end after the launch under way and write its lines; kills it if it does not."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=STOP_GRACE_S)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        kill_group(proc)


class _LineReader:
    """The complete lines a file has gained since the last call (a line still being written waits)."""

    def __init__(self, path: Path):
        self.path, self.offset, self.partial = path, 0, b""

    def new_lines(self) -> list[dict]:
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return []
        self.offset += len(data)
        *complete, self.partial = (self.partial + data).split(b"\n")
        return [json.loads(line) for line in complete if line.strip()]


def _absorb(result: LaunchRun, line: dict, on_launch) -> None:
    if "timer" in line:
        result.descriptor = line
        return
    if "placement" in line:
        result.moves.append(line["placement"])
        return
    if "warmed" in line:
        result.warmed = line["warmed"]
        return
    if "descendants" in line:
        result.descendants = line["descendants"]
        return
    if line["status"] != "ok":
        result.failures[line["variant"]] = line["status"]
    elif line["round"] >= 0:
        result.launches.append(line)
    if on_launch:
        on_launch(line)


def tsc_per_ns(launch_tools: LaunchTools) -> float | None:
    """TSC ticks per ns, measured: glibc's loader statistics are in these ticks."""
    out = subprocess.run([str(launch_tools.timer), "--tsc-rate"], capture_output=True, text=True, encoding="utf-8", errors="replace", check=True)
    return json.loads(out.stdout)["tsc_per_ns"]
