"""How a launch run is made: the settings every command built on the launch timer shares
(`launch`, `inspect`, the loadtime experiment), and the sentence that records them."""
from __future__ import annotations

import random
from dataclasses import dataclass

from layertax.engine.measure.settings import default_cpu

# A run's first launches start slower than later ones for a time, whatever their number
# (docs/method/launch-timer.md): the warm-up goes on at least this long, not only for a
# count of rounds.
LAUNCH_WARMUP_S = 0.25

# Untimed launches of a target before each timed one that follows another target's: a
# program starts slower right after a larger one than right after itself, and more than
# two primers leave it no less slow (docs/method/launch-timer.md).
PRIMERS = 2


@dataclass(frozen=True)
class Target:
    name: str
    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    ignore_status: bool = False
    until_output: bool = False     # time its first output too (output_ns: docs/method/protocol.md)


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

    def method(self, what: str, extra: str = "", launches: str | None = None) -> dict:
        """The run's settings record, with the sentence that says how it was measured. launches:
        how many launches per target, where not `runs` (rounds that went on until precise)."""
        cpu = self.cpu if self.cpu is not None else "not pinned"
        if self.cpu is not None and self.dodge:
            extra = (", each started between two of the CPU's periodic interruptions (the kernel's tick) where it "
                     "fits within a wait of 0.5 ms, or at least its spawn->main does") + extra
        launches = launches or f"{self.runs} launches per {what}"
        return {"runs": self.runs, "warmup": self.warmup, "warmup_time": self.warmup_time, "burst": 1,
                "min_sample_ns": 0, "seed": self.seed, "cpu": self.cpu, "timeout": self.timeout,
                "dodge": self.dodge and self.cpu is not None,
                "method": f"{launches} after {self.warm_up()}, {what}s alternating in "
                          f"shuffled rounds (seed {self.seed}), each after another {what}'s primed by {PRIMERS} "
                          f"untimed launches of its own, clone(CLONE_VFORK) + execve, cpu {cpu}" + extra,
                # What the report prints without --verbose: the answer comes first, not the whole method.
                "method_brief": f"{launches}, {what}s alternating in shuffled rounds, cpu {cpu}"}
