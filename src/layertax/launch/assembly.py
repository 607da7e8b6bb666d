"""The one launch-run assembly every start-up measurement goes through (`launch`, `inspect`,
the loadtime experiment and its sweep): start and step the progress, read the CPU times
around the run, call the launch timer, run any follow-up views while the run is still
interruptible, and fold each target's launches and failure into a case of the result."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from layertax.engine import machine
from layertax.experiment import ProgressSink
from layertax.launch import timer
from layertax.launch import settings as launch_settings
from layertax.launch import tools as launch_tools
from layertax.progress import NoProgress
from layertax.result.model import Case


@dataclass
class Launched:
    run: timer.LaunchRun
    cases: dict[str, Case]    # target name -> its case, in the targets' order (layer still to be said)
    cpu_activity: dict        # what the whole machine did meanwhile (machine.cpu_activity)

    @property
    def interrupted(self) -> bool:
        return self.run.interrupted


def launch_cases(targets: list[launch_settings.Target], settings: launch_settings.LaunchSettings, tools: launch_tools.LaunchTools,
                 progress: ProgressSink | None = None, title: str = "launch", extra_steps: int = 0,
                 then: Callable[[timer.LaunchRun], None] | None = None,
                 describe_failure: Callable[[str], str] = lambda status: status) -> Launched:
    """Launches every target round by round; then(run), if given and not interrupted, adds
    views of its own (it may step the progress extra_steps times). Ctrl-C keeps every
    launch that finished and skips what is left."""
    progress = progress or NoProgress()
    # A warm-up that lasts a time takes as many launches as fit in it: the total is not known
    # ("n/?", no ETA) until the first measured launch, and then is what is done plus what is left.
    after_warm_up = settings.runs * len(targets) + extra_steps
    progress.start(title, None if settings.warmup_time else settings.warmup * len(targets) + after_warm_up)
    done, measuring = 0, False

    def on_launch(launch) -> None:
        nonlocal done, measuring
        if launch.round >= 0 and not measuring:
            measuring = True
            if settings.warmup_time:
                progress.retotal(done + after_warm_up)
        done += 1
        progress.step(f"{launch.variant} " + (f"round {launch.round + 1}" if measuring else "warm-up"))

    cpu_before = machine.cpu_times()
    run = timer.LaunchRun()
    try:
        run = timer.run(targets, settings, tools, on_launch=on_launch)
        if then is not None and not run.interrupted:
            then(run)
    except KeyboardInterrupt:
        run.interrupted = True
    finally:
        progress.finish(stopped=run.interrupted)
    cases = {}
    for t in targets:
        failed = run.failures.get(t.name)
        cases[t.name] = Case(name=t.name, kernel="launch", layer="", language="-",
                             status="failed" if failed else "ok", reason=describe_failure(failed) if failed else None,
                             samples=run.samples(t.name),
                             extra={"descriptor": None, "argv": list(t.argv), "env": dict(t.env)})
    return Launched(run, cases, machine.cpu_activity(cpu_before, machine.cpu_times()))
