"""Drives the C launch timer (native/launch.c): process start-up measurements.

The timer launches every target once per round, in a shuffled order (each launch
that follows another target's primed by PRIMERS untimed ones of its own), and
writes one JSON line per launch to a file, in batches; this module writes its spec,
reads the lines a few times a second (for the progress bar; Ctrl-C asks the timer
to stop and keeps every finished launch), checks each into its record (protocol.py) and
hands back the launches. The stamp libraries and the empty programs (tools.py) let a
binary that does not stamp itself be timed too. launch_cases() is what every start-up
measurement calls: the timer's run folded into one result Case per target.
"""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from layertax import files
from layertax.engine import machine
from layertax.engine.processes import ParentAwayFrom, kill_group
from layertax.errors import LayertaxError, UsageError
from layertax.experiment import ProgressSink
from layertax.launch import protocol
from layertax.launch.protocol import Launch
from layertax.launch.rounds import FixedRounds, PreciseRounds
from layertax.launch.settings import PRIMERS, LaunchSettings, Target
from layertax.launch.tools import LaunchTools
from layertax.progress import NoProgress
from layertax.result.model import Case, ExperimentResult, Sample
from layertax.scratch import private_dir

@dataclass
class LaunchRun:
    descriptor: dict | None = None
    launches: list[Launch] = field(default_factory=list)    # measured rounds only
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

    def of(self, name: str) -> list[Launch]:
        return [x for x in self.launches if x.variant == name]

    def samples(self, name: str) -> list[Sample]:
        """The measured launches of one target as result samples (Launch.sample)."""
        rule = (self.descriptor or {}).get("placement") or {}
        return [x.sample(rule.get("min_wait_ns")) for x in self.of(name)]

    def extend(self, later: LaunchRun) -> None:
        """Adds a later timer run of the same targets (its rounds numbered after these): its
        launches, failures and moves; the first run's descriptor and warm-up stand for both (a
        later run's warm-up is counted in), the processes ended are summed."""
        self.descriptor = self.descriptor or later.descriptor
        self.launches += later.launches
        self.failures.update(later.failures)
        self.moves += later.moves
        self.interrupted = self.interrupted or later.interrupted
        if self.warmed and later.warmed:
            self.warmed = {"rounds": self.warmed["rounds"] + later.warmed["rounds"],
                           "ns": self.warmed["ns"] + later.warmed["ns"]}
        else:
            self.warmed = self.warmed or later.warmed
        if self.descendants and later.descendants:
            self.descendants = {key: self.descendants[key] + later.descendants[key] for key in ("ended", "launches")}
        else:
            self.descendants = self.descendants or later.descendants


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
        if t.until_output:
            lines.append("until-output 1")
    files.write_text("\n".join(lines) + "\n", path)


# How often the parent looks at the timer's file while launches run: it sleeps otherwise,
# so it never runs between two launches on the timer's CPU (docs/method/launch-timer.md).
POLL_S = 0.25
# How long a timer told to stop (SIGTERM) may take to finish its launch and write its lines.
STOP_GRACE_S = 5.0


def run(targets: list[Target], settings: LaunchSettings, launch_tools: LaunchTools,
        on_launch: Callable[[Launch | protocol.Failure], None] | None = None, first_round: int = 0) -> LaunchRun:
    """Runs the timer over targets; Ctrl-C stops it and keeps the launches that finished.

    The timer writes its lines to a file in batches; this parent sleeps meanwhile, off the
    timer's CPU, and reads what is new a few times a second for the progress. first_round: the
    number its first measured round takes (a run that carries on an earlier one's rounds)."""
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
                        _absorb(result, _renumbered(line, first_round), on_launch)
                    if len(result.moves) > moves:   # the timer left a busy CPU: stay off its new one
                        to = result.moves[-1]["to"]
                        away.keep_off(to if to >= 0 else None)
            except KeyboardInterrupt:
                result.interrupted = True
                _stop(proc)
            except protocol.ProtocolError as e:
                raise LayertaxError(f"the launch timer wrote what layertax cannot read ({e})") from None
            finally:
                if proc.poll() is None:
                    kill_group(proc)
        try:
            for line in reader.new_lines():   # what the timer wrote last, or before it was stopped
                _absorb(result, _renumbered(line, first_round), on_launch)
        except protocol.ProtocolError as e:
            raise LayertaxError(f"the launch timer wrote what layertax cannot read ({e})") from None
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
        self.path, self.offset, self.partial, self.lineno = path, 0, b"", 0

    def new_lines(self) -> list[protocol.Record]:
        """The new lines, each checked into its record (protocol.ProtocolError if one is not)."""
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return []
        self.offset += len(data)
        *complete, self.partial = (self.partial + data).split(b"\n")
        self.lineno += len(complete)
        first = self.lineno - len(complete) + 1
        return [protocol.parse_line(line.decode("utf-8", "replace"), first + i)
                for i, line in enumerate(complete) if line.strip()]


def _renumbered(record: protocol.Record, first_round: int) -> protocol.Record:
    """A measured launch's or a move's record with its round counted from first_round."""
    if not first_round:
        return record
    if isinstance(record, (protocol.Launch, protocol.Failure)) and record.round >= 0:
        return replace(record, round=record.round + first_round)
    if isinstance(record, protocol.Placement) and record.fields.get("round", -1) >= 0:
        return protocol.Placement({**record.fields, "round": record.fields["round"] + first_round})
    return record


def _absorb(result: LaunchRun, record: protocol.Record, on_launch) -> None:
    if isinstance(record, protocol.Descriptor):
        result.descriptor = record.fields
    elif isinstance(record, protocol.Placement):
        result.moves.append(record.fields)
    elif isinstance(record, protocol.Warmed):
        result.warmed = {"rounds": record.rounds, "ns": record.ns}
    elif isinstance(record, protocol.Descendants):
        result.descendants = {"ended": record.ended, "launches": record.launches}
    else:
        if record.status != "ok":          # a Failure, or a launch whose exit counts as one
            result.failures[record.variant] = record.status
        elif record.round >= 0:
            result.launches.append(record)
        if on_launch:
            on_launch(record)


def tsc_per_ns(launch_tools: LaunchTools) -> float | None:
    """TSC ticks per ns, measured: glibc's loader statistics are in these ticks."""
    out = subprocess.run([str(launch_tools.timer), "--tsc-rate"], capture_output=True, text=True, encoding="utf-8", errors="replace", check=True)
    return json.loads(out.stdout)["tsc_per_ns"]


# The one launch-run assembly every start-up measurement goes through (`launch`, `inspect`,
# the loadtime experiment and its sweep): the progress, the CPU times around the run, the
# timer, any follow-up views while the run is still interruptible, and each target's
# launches and failure folded into a case of the result.

@dataclass
class Launched:
    run: LaunchRun
    cases: dict[str, Case]    # target name -> its case, in the targets' order (layer still to be said)
    cpu_activity: dict        # what the whole machine did meanwhile (machine.cpu_activity)

    @property
    def interrupted(self) -> bool:
        return self.run.interrupted


def launch_cases(targets: list[Target], settings: LaunchSettings, tools: LaunchTools,
                 progress: ProgressSink | None = None, title: str = "launch", extra_steps: int = 0,
                 then: Callable[[LaunchRun], None] | None = None,
                 describe_failure: Callable[[str], str] = lambda status: status,
                 rounds: FixedRounds | PreciseRounds | None = None) -> Launched:
    """Launches every target round by round; then(run), if given and not interrupted, adds
    views of its own (it may step the progress extra_steps times). Ctrl-C keeps every
    launch that finished and skips what is left. rounds: how many rounds (launch/rounds.py;
    default settings.runs in one timer run); a PreciseRounds starts the timer again for each
    stretch up to a checkpoint, with the targets still going, each with its own seed."""
    progress = progress or NoProgress()
    rounds = rounds or FixedRounds(settings.runs)
    # A warm-up that lasts a time takes as many launches as fit in it: the total is not known
    # ("n/?", no ETA) until the first measured launch of a timer run, and then is what is done
    # plus what the targets still going have left up to their most rounds, and the views. Up to
    # the next checkpoint only, a bare run's loadtime had read "98%, about 0s left" with half
    # its launches to come; its targets mostly go on to their most, as the kernels' totals count.
    done, measuring, left, totalled = 0, False, 0, False
    progress.start(title, None if settings.warmup_time else
                   settings.warmup * len(targets) + rounds.most() * len(targets) + extra_steps)

    def on_launch(launch) -> None:
        nonlocal done, measuring, totalled
        if launch.round >= 0 and not measuring:
            measuring = True
            if settings.warmup_time:
                progress.retotal(done + left)
                totalled = True
        elif not measuring and totalled:
            # A stretch after a checkpoint warms up for its time again, launches not counted
            # ahead: the total grows with them, what is left of the stretch always ahead of what
            # is done (it had read 1362/1350 in a bare run's loadtime).
            progress.retotal(done + 1 + left)
        done += 1
        progress.step(f"{launch.variant} " + (f"round {launch.round + 1}" if measuring else "warm-up"))

    cpu_before = machine.cpu_times()
    launched = LaunchRun()
    try:
        rounds_done = 0
        while (stop := rounds.next_stop(rounds_done)) is not None:
            going = [t for t in targets if rounds.going(t.name) and t.name not in launched.failures]
            if not going:
                break
            measuring, left = False, (rounds.most() - rounds_done) * len(going) + extra_steps
            if rounds_done and not settings.warmup_time:   # a stretch after a checkpoint: its launches are known now
                progress.retotal(done + settings.warmup * len(going) + left)
            started = time.monotonic()
            part = run(going, replace(settings, runs=stop - rounds_done, seed=settings.seed + rounds_done), tools,
                       on_launch=on_launch, first_round=rounds_done)
            launched.extend(part)
            rounds.seen({t.name: launched.samples(t.name) for t in targets}, launched.failures)
            if launched.interrupted:
                break
            rounds.finished(stop, time.monotonic() - started)
            rounds_done = stop
        if then is not None and not launched.interrupted:
            then(launched)
    except KeyboardInterrupt:
        launched.interrupted = True
    finally:
        progress.finish(stopped=launched.interrupted)
    cases = {}
    for t in targets:
        failed = launched.failures.get(t.name)
        cases[t.name] = Case(name=t.name, kernel="launch", layer="", language="-",
                             status="failed" if failed else "ok", reason=describe_failure(failed) if failed else None,
                             samples=launched.samples(t.name),
                             extra={"descriptor": None, "argv": list(t.argv), "env": dict(t.env)})
    return Launched(launched, cases, machine.cpu_activity(cpu_before, machine.cpu_times()))


def exit_code(result: ExperimentResult) -> int:
    """How a command built on the timer ends: 130 if interrupted, 1 if a case failed, else 0."""
    if result.extra["interrupted"]:
        return 130
    return 1 if any(c.status == "failed" for c in result.cases) else 0
