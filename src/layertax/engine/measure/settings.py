"""How a run is measured: rounds, bursts, sample time, pinning; built from the command line's
options in one place (Settings.from_options), as hyperfine builds its Options.

Kept apart from the scheduler (and its numpy/scipy imports) so the CLI can show
the defaults in --help without loading the statistics stack at start-up.
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field, replace

from layertax.errors import UsageError
from layertax.text import printable


# The default budget of a whole `layertax run` (measuring, not building), chosen so that a
# warm run of every experiment ends within 5 minutes on a 2-core VM (docs/method/measurement.md). It
# cannot cut an experiment below the stopping rule's minimum of rounds; there those minimums
# take about 4 minutes for every experiment, and the experiments measured their own way
# (loadtime, unicode-io) about half a minute more. Cases that need more rounds than it
# leaves say so.
DEFAULT_BUDGET_S = 240.0

PAIRINGS = ("beside", "round")


@dataclass
class Settings:
    # Rounds are the unit of replication (one fresh kernel process each), so many
    # short rounds beat a few long ones; see stats.summarize_rounds.
    # Measured rounds: the most a case runs under the precision rule (a case stops earlier where
    # its ratio is precise), or every case's with --runs. 56 rather than 40: replayed on recorded
    # rounds of callchain and tls with the deadlines of a default run, 40 left cheap cases that
    # were still narrowing stopped at their maximum (bench/stopping_replay.py,
    # docs/method/statistics.md).
    runs: int = 56
    warmup: int = 1                # discarded rounds
    burst: int = 3                 # samples per case per round
    # Bursts of each baseline per round, each in its own process at its own place in the
    # shuffled order: every ratio divides by the baseline's round median, so its process-to-
    # process noise goes into each of them. Two took the spread of the paired log ratios to
    # about 0.6x in callchain and tls for 0-12% more time a round (bench/run_designs.py,
    # docs/method/statistics.md).
    baseline_bursts: int = 2
    # How a case's ratio pairs with its baseline in a round. "beside": each burst of a case runs
    # right next to a burst of its baseline (one baseline burst between two cases), and its ratio
    # divides by that burst; "round": the cases and baseline_bursts of each baseline shuffled
    # through the round, every ratio divided by the baseline's round median. Processes far apart
    # in a round differ far more than neighbours do (bench/abab_kernels.py --gap,
    # docs/method/statistics.md).
    pairing: str = "beside"
    min_sample_ns: int = 5_000_000
    # Untimed samples a JIT runtime's kernel (JIT_KINDS) runs after its calibration, for this
    # long, before its timed ones: the JIT's compiler threads go on working for a few hundred ms
    # of a JVM's life, on the CPU its timed thread is pinned to, and a sample they preempt runs
    # slow. 250 ms took callchain's Java ratios 2-10% lower (500 ms no further), encoding's 4-87%
    # and scan's 19-32%, and Node's 3-15% (docs/method/statistics.md, "Why JIT runtimes' kernels
    # settle").
    jit_settle_ns: int = 250_000_000
    timeout: float = 60.0          # seconds, per invocation of a kernel
    seed: int | None = None        # of the shuffles; drawn and recorded if not given
    cpu: int | None = None         # pin kernels to this CPU; None: do not pin
    raise_priority: bool = True
    quick: bool = False
    runs_given: bool = False       # --runs was given explicitly (experiments with cheap rounds respect it)
    count_syscalls: bool = True    # a separate strace run per case, after the timed rounds
    metric: str = "time"           # "time" (interleaved rounds) or "instructions" (callgrind)
    given: tuple[str, ...] = ()    # settings the user gave explicitly (they beat an experiment's defaults)
    options: dict = field(default_factory=dict)  # experiment name -> its own run options (Experiment.run_options)
    # The precision-driven protocol (engine/measure/stopping.py): rounds are added only to cases
    # whose figure is not yet within +-precision, from min_rounds up to `runs`; None: exactly
    # `runs` rounds for every case (--runs N, --thorough).
    precision: float | None = 0.02
    min_rounds: int = 8
    budget_s: float | None = DEFAULT_BUDGET_S   # the whole run's measuring time; None: no limit
    thorough: bool = False

    @classmethod
    def from_options(cls, *, quick: bool = False, thorough: bool = False, runs: int | None = None,
                     warmup: int | None = None, burst: int | None = None, min_time: float | None = None,
                     precision: float | None = None, budget: float | None = None, timeout: float = 60.0,
                     seed: int | None = None, cpu: int | None = None, pin: bool = True,
                     raise_priority: bool = True, count_syscalls: bool = True, metric: str = "time",
                     baseline_bursts: int | None = None, pairing: str | None = None,
                     jit_settle: float | None = None, options: dict | None = None) -> Settings:
        """The settings of one `layertax run`: --quick's or --thorough's values, then every flag
        given explicitly over them (and recorded as given, so they also beat an experiment's own
        defaults). --runs N fixes the number of rounds, as --thorough does (40, no budget)."""
        if quick and thorough:
            raise UsageError("--quick and --thorough contradict each other: give one")
        preset = QUICK if quick else (THOROUGH if thorough else {})
        settings = cls(**preset, quick=quick, thorough=thorough, timeout=timeout, seed=seed,
                       raise_priority=raise_priority, count_syscalls=count_syscalls, metric=metric)
        if runs is not None:
            settings.precision = None           # a fixed number of rounds, as asked, whatever the time
            settings.budget_s = None
        if precision is not None:
            if runs is not None or thorough:
                raise UsageError("--precision drives the number of rounds: it cannot go with --runs or --thorough")
            settings.precision = precision
        if budget is not None:
            settings.budget_s = budget or None   # --budget 0: no limit
        explicit = {"runs": runs, "warmup": warmup, "burst": burst, "baseline_bursts": baseline_bursts,
                    "pairing": pairing,
                    "min_sample_ns": None if min_time is None else int(min_time * 1e9),
                    "jit_settle_ns": None if jit_settle is None else int(jit_settle * 1e9)}
        for name, value in explicit.items():
            if value is not None:
                setattr(settings, name, value)
        settings.runs_given = runs is not None
        settings.given = tuple(name for name, value in explicit.items() if value is not None)
        settings.options = options or {}
        settings.cpu = None if not pin else (cpu if cpu is not None else default_cpu())
        if settings.cpu is not None and settings.cpu not in os.sched_getaffinity(0):
            raise UsageError(f"--cpu {settings.cpu}: this process may only use CPUs {sorted(os.sched_getaffinity(0))}")
        settings.validate()
        return settings

    def to_dict(self) -> dict:
        return asdict(self)

    def for_experiment(self, defaults: dict) -> Settings:
        """These settings with an experiment's defaults for what the user did not give. Under
        --quick its values stand, but for an experiment's own burst or rounds where those are
        fewer: scan takes one pass over its file a round, where --quick's burst of two doubled
        what a round of scan cost against a default run's. Its pairing stands under --quick too.
        Under --thorough an experiment's own rounds stand only where fewer (scan's 20): they are
        the most its cases run under the precision rule (encoding's 80), and the fixed protocol
        is 40 rounds of every case."""
        if self.thorough and "runs" not in self.given:
            defaults = {k: v for k, v in defaults.items() if k != "runs" or v < self.runs}
        if self.quick:
            fewer = {k: v for k, v in defaults.items()
                     if k in ("burst", "runs") and k not in self.given and v < getattr(self, k)}
            if "pairing" in defaults and "pairing" not in self.given:   # how it pairs, whatever the length
                fewer["pairing"] = defaults["pairing"]
            return replace(self, **fewer) if fewer else self
        return replace(self, **{k: v for k, v in defaults.items() if k not in self.given})

    def validate(self) -> None:
        if self.runs < 1:
            raise UsageError("--runs must be at least 1")
        if self.warmup < 0:
            raise UsageError("--warmup cannot be negative")
        if not 1 <= self.baseline_bursts <= 10:
            raise UsageError("--baseline-bursts must be between 1 and 10")
        if self.pairing not in PAIRINGS:
            raise UsageError(f"--pairing must be one of {', '.join(PAIRINGS)}")
        if not 0 <= self.jit_settle_ns <= 60_000_000_000:
            raise UsageError("--jit-settle must be between 0 and 60 seconds")
        if self.burst < 1 or self.min_sample_ns < 1 or self.timeout <= 0:
            raise UsageError("burst, minimum sample time and timeout must be positive")
        if self.precision is not None and not 0 < self.precision < 1:
            raise UsageError("--precision must be between 0 and 1 (0.02 is +-2%)")
        if self.budget_s is not None and not 0 < self.budget_s < 7 * 24 * 3600:
            raise UsageError("--budget must be positive and under a week")

    def stopping_rule(self):
        """The precision-driven rule these settings ask for (None: fixed rounds)."""
        from layertax.engine.measure.stopping import StoppingRule

        if self.precision is None:
            return None
        return StoppingRule(self.precision, min(self.min_rounds, self.runs), self.runs)


# The kinds of kernel that settle before their samples (jit_settle_ns): their runtimes compile
# on threads of their own while the timed thread runs.
JIT_KINDS = ("java", "node")

# What sets a round's cost and how far its ratios spread. A run measured another way (--quick's
# shorter samples, a --burst given, callgrind's counts, a --thorough file) says nothing of what
# this one will cost or reach, so the budget and the forecast read only runs of the same design.
DESIGN_KEYS = ("quick", "thorough", "metric", "burst", "baseline_bursts", "pairing", "min_sample_ns", "warmup",
               "jit_settle_ns")


def design(settings: dict, experiment: str | None = None, overrides: dict | None = None) -> dict:
    """The design of a run (a saved run's settings, or Settings.to_dict()), or of one experiment
    in it: the run's settings with what that experiment ran with apart from them (a saved
    experiment's "settings") and its own run options."""
    merged = {**settings, **(overrides or {})}
    found = {key: merged.get(key) for key in DESIGN_KEYS}
    if experiment is not None:
        found["options"] = (settings.get("options") or {}).get(experiment) or {}
    return found


CPU_ENV = "LAYERTAX_CPU"


def default_cpu() -> int | None:
    """The CPU kernels and launches are pinned to when no --cpu is given: LAYERTAX_CPU, for
    several layertax measuring on one machine at once (CI jobs side by side, a fleet's local
    hosts), which would otherwise all pin to the same CPU and take turns on it; else the last
    CPU we may use, away from CPU 0, which takes most interrupts on many machines (not on every
    VM: on ours the disk's go to CPU 1, and pinning to either gave the same spread)."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except OSError:
        return None
    chosen = os.environ.get(CPU_ENV, "").strip()
    if chosen:
        if not chosen.isascii() or not chosen.isdigit() or int(chosen) not in cpus:
            raise UsageError(f"{CPU_ENV}={printable(chosen[:40])}: give one of the CPUs this process may use, {cpus}")
        return int(chosen)
    return cpus[-1] if len(cpus) > 1 else None


# --quick: a first answer in about a minute. Six rounds is the fewest for which [min, max] of
# the round medians is a 95% interval; cases stop there once within +-5%, and go on to 12.
QUICK = {"runs": 24, "min_rounds": 6, "warmup": 1, "burst": 2, "min_sample_ns": 2_000_000, "precision": 0.05,
         "budget_s": 60.0}
# --thorough: the full fixed protocol, 40 rounds of every case, whatever the time.
THOROUGH = {"runs": 40, "precision": None, "budget_s": None}
