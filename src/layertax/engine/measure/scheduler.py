"""The scheduler: warm-up, then interleaved rounds of short bursts.

In each round every case runs one burst of samples, in a freshly shuffled
order, so that drift in the machine (frequency, a neighbour's load, the page
cache) hits all cases alike; ratios are then taken per round. The first
invocation of each case calibrates its iteration count; every later one reuses
it, so all samples of a case do the same work.

Each invocation gets a fresh empty subdirectory of one private temporary
directory, which is removed when the experiment ends, however it ends.
"""
from __future__ import annotations

import contextlib
import os
import random
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
import numpy as np

from layertax.engine.analysis import analyze
from layertax.engine import machine
from layertax.engine.measure import protocol, syscalls
from layertax.engine.signals import SafeInterrupts
from layertax.engine.processes import ParentAwayFrom, kill_group
from layertax.engine.builder.kernels import PreparedKernel
from layertax.errors import UsageError
from layertax.experiment import Case, Experiment, ProgressSink, SharedInput
from layertax.progress import NoProgress
from layertax.engine.measure import count_cache
from layertax.engine.measure.calibration import settled_iters
from layertax.engine.measure import layout
from layertax.engine.measure.rounds import RoundPlan
from layertax.engine.measure.settings import JIT_KINDS, Settings
from layertax.scratch import make_private_dir


@dataclass
class CaseRun:
    case: Case
    kernel: PreparedKernel
    status: str = "ok"              # ok | skipped | failed
    reason: str | None = None
    iters: int | None = None
    descriptor: dict | None = None
    samples: list[dict] = field(default_factory=list)
    syscalls: dict | None = None    # system calls per operation (a separate traced run)
    instructions: dict | None = None  # instructions per operation (--metric instructions)

    @classmethod
    def of(cls, case: Case, kernel: PreparedKernel) -> CaseRun:
        """A case of a kernel that may not have built or may be skipped here."""
        run = cls(case, kernel)
        if not kernel.argv:
            run.status = "skipped" if kernel.skip else "failed"
            run.reason = kernel.skip or kernel.error
        return run

    @property
    def active(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict:
        return {"name": self.case.name, "kernel": self.case.kernel, "layer": self.case.layer,
                "language": self.case.language, "group": self.case.group, "status": self.status, "reason": self.reason,
                "descriptor": self.descriptor, "samples": self.samples, "syscalls": self.syscalls,
                "instructions": self.instructions, **({"every_cpu": True} if self.case.every_cpu else {})}


def _drop_unfinished_round(runs: list[CaseRun], round_no: int, rounds: RoundPlan) -> int | None:
    """After an interruption: the samples of the round under way, if it did not finish, are
    removed, so every case keeps the same complete rounds and the ratios stay paired. Returns
    the round dropped (None: it had finished, or none had started)."""
    if round_no < 0 or round_no < rounds.rounds_done:
        return None
    for run in runs:
        run.samples = [s for s in run.samples if s.get("round") != round_no]
    return round_no


def experiment_result(exp: Experiment, kernels: dict[str, PreparedKernel], runs: list[CaseRun],
                      interrupted: bool, **measured) -> dict:
    """An experiment's result: what it is, its kernels and cases, and what the method measured."""
    return {"name": exp.name, "title": exp.title, "question": exp.question, "unit": exp.unit,
            "baseline": exp.baseline, "notes": list(exp.notes), "classic": exp.classic.to_dict(),
            "groups": [g.to_dict() for g in exp.groups], "interrupted": interrupted,
            "kernels": {name: k.to_dict() for name, k in kernels.items()},
            "cases": [r.to_dict() for r in runs], **measured}


def select_cases(exp: Experiment, patterns: tuple[str, ...]) -> list[Case]:
    """Cases matching any glob; the baselines they are compared with are always kept, since every ratio needs them."""
    cases = exp.cases_asked_for(patterns)
    if not cases:
        raise UsageError(f"no case of {exp.name} matches {', '.join(patterns)} "
                         f"(cases: {', '.join(c.name for c in exp.cases)})")
    return cases


def pin_before_exec(kernel: PreparedKernel, settings: Settings):
    """For runtimes that cannot pin themselves (a JVM, Node): a preexec function that sets
    the CPU and priority in the child between fork and exec, so every thread the runtime
    starts inherits them; None for kernels that pin themselves. Failures are ignored here:
    the kernel reports the affinity and priority it found."""
    if not kernel.engine_pins:
        return None
    cpu, raise_it = settings.cpu, settings.raise_priority

    def preexec() -> None:
        if cpu is not None:
            try:
                os.sched_setaffinity(0, {cpu})
            except OSError:
                pass
        if raise_it:
            try:
                os.setpriority(os.PRIO_PROCESS, 0, -10)
            except OSError:
                pass
    return preexec


def open_shared_input(exp: Experiment, settings: Settings, workroot: Path, note=lambda message: None,
                      progress: ProgressSink | None = None):
    """The experiment's shared input as a context manager (yielding None if it has none)."""
    shared_input = exp.hook("shared_input")
    if shared_input is None:
        return contextlib.nullcontext(None)
    return shared_input(settings.options.get(exp.name, {}), settings, workroot, note, progress or NoProgress())


class Scheduler:
    def __init__(self, settings: Settings, progress: ProgressSink | None = None, note=lambda message: None):
        settings.validate()
        self.settings = settings
        self.progress = progress or NoProgress()
        self.note = note
        self.shared: SharedInput | None = None   # the running experiment's shared input
        self.deadline: float | None = None       # the running experiment's share of the budget
        self.interrupts = SafeInterrupts()        # entered while rounds run: Ctrl-C between invocations
        if settings.seed is None:
            settings.seed = random.SystemRandom().randrange(2**32)
        self.rng = random.Random(settings.seed)

    # -- one invocation of one kernel --

    def _argv(self, run: CaseRun, workdir: Path, samples: int) -> list[str]:
        s = self.settings
        argv = [*run.kernel.argv, "--case", run.case.name, "--samples", str(samples),
                "--min-sample-ns", str(s.min_sample_ns), "--dir", str(workdir)]
        if s.cpu is not None:
            argv += ["--cpu", str(s.cpu)]
        if s.raise_priority:
            argv.append("--raise-priority")
        if run.iters:
            argv += ["--iters", str(run.iters)]
        if run.kernel.kind in JIT_KINDS:
            argv += ["--settle-ns", str(s.jit_settle_ns)]
        return argv

    def invoke(self, run: CaseRun, workroot: Path, samples: int, round_no: int | None,
               burst: layout.Burst | None = None) -> None:
        """Runs one burst; appends its samples (unless warm-up) or marks the case skipped/failed.
        burst: its place in a measured round, kept with each sample (its slot, and the slot of
        the baseline burst its ratio divides by)."""
        workdir = Path(tempfile.mkdtemp(prefix=f"{run.case.name}-", dir=workroot))
        env = self._env(run)
        if self.shared and self.shared.before_each:
            self.shared.before_each()
        try:
            self.interrupts.check()
            proc = subprocess.Popen(self._argv(run, workdir, samples), stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace",
                                    env=env, start_new_session=True,
                                    preexec_fn=pin_before_exec(run.kernel, self.settings))
            self.interrupts.watch(proc)    # an interrupt from here on ends the kernel's group
            try:
                out, err = proc.communicate(timeout=self.settings.timeout)
            except subprocess.TimeoutExpired:
                kill_group(proc)
                run.status, run.reason = "failed", f"timed out after {self.settings.timeout:g} s"
                return
            except BaseException:  # Ctrl-C: the kernel is in its own session, so end it ourselves
                kill_group(proc)
                raise
            finally:
                self.interrupts.watch(None)
            self.interrupts.check()        # a kernel ended by the interrupt is not a failed case
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        self._absorb(run, proc.returncode, out, err, round_no, burst)

    def _env(self, run: CaseRun) -> dict[str, str]:
        return {**os.environ, **(self.shared.env if self.shared else {}), **run.kernel.env}

    def _absorb(self, run: CaseRun, code: int, out: str, err: str, round_no: int | None,
                burst: layout.Burst | None = None) -> None:
        try:
            parsed = protocol.parse(out, expected_case=run.case.name)
        except protocol.ProtocolError as e:
            run.status, run.reason = "failed", f"kernel broke the protocol: {e}"
            return
        if code == 3 or parsed.skip:
            run.status, run.reason = "skipped", parsed.skip or "the kernel cannot run here"
            return
        if code != 0 or parsed.error:
            last_err = (err.strip().splitlines() or [""])[-1]
            run.status = "failed"
            run.reason = parsed.error or last_err or f"exited with code {code}"
            return
        if not parsed.samples:
            run.status, run.reason = "failed", "the kernel printed no samples"
            return
        if run.descriptor is None:
            run.descriptor = parsed.descriptor
        if run.iters is None:
            run.iters = settled_iters(parsed.samples, self.settings.min_sample_ns)
        if round_no is not None:
            place = {} if burst is None else burst.place()
            run.samples.extend({"round": round_no, **place, **s} for s in parsed.samples)

    # -- a whole experiment --

    def _harness_floor(self, runs: list[CaseRun], workroot: Path) -> dict | None:
        """The empty case of the first C kernel: the harness's own cost per iteration."""
        c_run = next((r for r in runs if r.kernel.kind == "c" and r.kernel.argv), None)
        if c_run is None:
            return None
        probe = CaseRun(Case("empty", c_run.case.kernel, "harness", "c"), c_run.kernel)
        self.invoke(probe, workroot, self.settings.burst, round_no=0)
        if probe.status != "ok":
            return {"status": probe.status, "reason": probe.reason}
        values = [analyze.ns_per_op(s) for s in probe.samples]
        d = probe.descriptor or {}
        return {"kernel": c_run.case.kernel, "empty_ns_per_iter": float(np.median(values)),
                "samples": probe.samples, "clock": d.get("clock"), "clock_res_ns": d.get("clock_res_ns"),
                "clock_overhead_ns": d.get("clock_overhead_ns"), "pin": d.get("pin"), "priority": d.get("priority")}

    def _count_syscalls(self, exp: Experiment, runs: list[CaseRun], workroot: Path) -> None:
        """System calls per operation of every case that ran (of the groups the experiment counts),
        each in its own traced runs. They are counts, not times, so they run side by side, one per
        CPU, after the timed rounds."""
        wanted = [r for r in runs if r.active and (exp.syscall_groups is None or r.case.group in exp.syscall_groups)]

        def traced(run: CaseRun) -> dict:
            try:
                return syscalls.count([*run.kernel.argv, "--case", run.case.name], self._env(run), workroot,
                                      timeout=self.settings.timeout, preexec=pin_before_exec(run.kernel, self.settings),
                                      iters=exp.difference_iters)
            except (RuntimeError, OSError, subprocess.SubprocessError) as e:
                return {"error": str(e)}

        def count(run: CaseRun) -> None:
            shared_info = self.shared.info if self.shared else None
            run.syscalls = count_cache.cached(count_cache.key(run.kernel, run.case.name, exp.difference_iters,
                                                              shared_info), lambda: traced(run))

        with ThreadPoolExecutor(max_workers=max(1, len(os.sched_getaffinity(0)))) as pool:
            for run, _ in zip(wanted, pool.map(count, wanted)):
                self.progress.step(f"counted system calls {run.case.name}")

    def _steps_done(self, s: Settings, runs: list[CaseRun], rounds: RoundPlan, round_no: int, counting: bool) -> int:
        """The progress total once a checkpoint has stopped some cases: what was done plus what is left."""
        active = [r for r in runs if r.active]
        per_round = layout.bursts_per_round(active, rounds.baselines, s.pairing, s.baseline_bursts)
        done = 1 + s.warmup * len(active) + (round_no + 1) * per_round   # an upper bound of done
        # Rounds left: up to the maximum, or as many as the budget leaves time for.
        left_rounds = min(s.runs - round_no - 1, rounds.rounds_that_fit())
        going = [r for r in runs if r.active and rounds.going(r)]
        left = left_rounds * layout.bursts_per_round(going, rounds.baselines, s.pairing, s.baseline_bursts)
        return done + left + (len(runs) if counting else 0)

    def run_experiment(self, exp: Experiment, kernels: dict[str, PreparedKernel],
                       patterns: tuple[str, ...] = (), deadline: float | None = None) -> tuple[dict, bool]:
        """Runs one experiment; returns its result and whether it was interrupted (Ctrl-C).
        deadline: the time.monotonic() by which it should end (its share of the run's budget)."""
        self.deadline = deadline
        base = self.settings
        self.settings = base.for_experiment(exp.defaults)
        workroot = make_private_dir(exp.name)
        try:
            with open_shared_input(exp, self.settings, workroot, self.note, self.progress) as shared:
                self.shared = shared
                if shared and shared.burst:
                    self.settings = replace(self.settings, burst=shared.burst)
                return self._run_rounds(exp, kernels, patterns, workroot, base)
        finally:
            self.settings, self.shared = base, None
            shutil.rmtree(workroot, ignore_errors=True)

    def _run_rounds(self, exp: Experiment, kernels: dict[str, PreparedKernel], patterns: tuple[str, ...],
                    workroot: Path, run_settings: Settings) -> tuple[dict, bool]:
        runs = [CaseRun.of(case, kernels[case.kernel]) for case in select_cases(exp, patterns)]
        s = self.settings
        interrupted = False
        harness = None
        workdir_fs = machine.filesystem_of(workroot)
        active = [r for r in runs if r.active]
        if self.shared and self.shared.fixed_iters:
            for r in active:
                r.iters = self.shared.fixed_iters
        cpu_before = machine.cpu_times()
        counting = s.count_syscalls and syscalls.available()
        # A budgeted run's length is not known until a round has been timed (the warm-up's,
        # or the first measured one's): until then the total is left open, not guessed.
        rounds = RoundPlan(exp, runs, s.stopping_rule(), self.deadline, pairing=s.pairing,
                           baseline_bursts=s.baseline_bursts)
        per_round = layout.bursts_per_round(active, rounds.baselines, s.pairing, s.baseline_bursts)
        steps = s.warmup * len(active) + s.runs * per_round + 1 + (len(active) if counting else 0)
        self.progress.start(exp.name, None if self.deadline is not None else steps)
        self.progress.deadline(self.deadline)
        parent = ParentAwayFrom(s.cpu)
        try:
            with parent, self.interrupts:
                harness = self._harness_floor(runs, workroot)
                self.progress.step("harness floor")
                for round_no in range(-s.warmup, s.runs):
                    going = [r for r in runs if r.active and (round_no < 0 or rounds.going(r))]
                    if not going or (round_no >= 1 and rounds.out_of_time()):
                        break
                    if round_no < 0:
                        self.rng.shuffle(going)
                        bursts = [layout.Burst(r, slot) for slot, r in enumerate(going)]
                    else:
                        bursts = layout.round_order(going, rounds.baselines, s.pairing, s.baseline_bursts, self.rng)
                    started = time.monotonic()
                    for burst in bursts:
                        run = burst.run
                        if not run.active:   # it failed earlier in this round
                            continue
                        label = "warm-up" if round_no < 0 else f"round {round_no + 1}/{s.runs}"
                        self.progress.step(f"{label} {run.case.name}")
                        if round_no < 0:
                            self.invoke(run, workroot, 1, None)
                        else:
                            began = time.monotonic()
                            self.invoke(run, workroot, s.burst, round_no, burst)
                            rounds.spent(run.case.name, time.monotonic() - began)
                    if round_no == -1 and self.deadline is not None:
                        rounds.warmed_up(time.monotonic() - started, s.burst)
                        self.progress.retotal(self._steps_done(s, runs, rounds, round_no, counting))
                    elif round_no >= 0:
                        rounds.finished(round_no + 1, time.monotonic() - started)
                        if rounds.checked or self.deadline is not None:
                            self.progress.retotal(self._steps_done(s, runs, rounds, round_no, counting))
            if counting:
                self._count_syscalls(exp, runs, workroot)
        except KeyboardInterrupt:
            interrupted = True
            dropped = _drop_unfinished_round(runs, round_no if "round_no" in locals() else -1, rounds)
        finally:
            self.progress.finish(stopped=interrupted)
        measured = {"workdir_fs": workdir_fs, "cpu_activity": machine.cpu_activity(cpu_before, machine.cpu_times()),
                    "parent_kept_off_kernel_cpu": parent.moved, "harness": harness}
        if s != run_settings:  # what this experiment ran with apart from the run's settings
            measured["settings"] = {k: v for k, v in asdict(s).items() if getattr(run_settings, k) != v}
        if self.shared:
            measured["input"] = self.shared.info
        measured["stopping"] = rounds.record(interrupted)
        if interrupted:
            measured["dropped_unfinished_round"] = dropped
        result = experiment_result(exp, kernels, runs, interrupted, **measured)
        result = analyze.analyzed(result)
        tables = exp.hook("tables")
        if tables is not None:
            result["tables"] = tables(result)
        return result, interrupted

