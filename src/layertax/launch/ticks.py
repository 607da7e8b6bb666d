"""What a launch run's record says about the pinned CPU's periodic interruptions (the kernel's
tick, and any other series the timer found: native/ticks.h), in one note: how often they
fall, and how many launches one landed in. A launch met one when it took longer than the time
it had before the next ("clear_ns" in its sample): until main, for one started clear only that
far ("dodged_until"). Started at once (--no-dodge), about one
launch of an empty program in six does; the note then says what that cost them, the tax
`launch` otherwise keeps out of its figures."""
from __future__ import annotations

import statistics

from layertax.units import duration


def _met(sample: dict) -> bool | None:
    """Whether an interruption landed in the launch's figure: spawn->main for a launch started
    clear until main only (what runs after main may meet one: it is not what is reported),
    spawn->exit otherwise."""
    clear = sample.get("clear_ns")
    if clear is None:
        return None
    until_main = sample.get("dodged_until") == "main" and sample.get("main_ns") is not None
    return (sample["main_ns"] if until_main else sample["exit_ns"]) > clear


def notes(result: dict) -> list[str]:
    """The note for a result of the launch timer, as a list like contention.notes (empty: a
    timer that did not learn them, or an unpinned run)."""
    text = note(result)
    return [text] if text else []


def _learned(record: dict) -> tuple[dict | None, int | None]:
    """The interruptions the launches were dodged by, and the CPU they were learned on again
    where the timer moved (None: the first one's). The timer learns them on its first CPU (the
    descriptor) and again on each it moves to (a placement line); the last learned that found
    a series is the one the later launches went by."""
    learned = [((record.get("descriptor") or {}).get("ticks"), None)]
    learned += [(m.get("ticks"), m.get("to")) for m in record.get("moves") or [] if m.get("ticks") is not None]
    found = [(t, cpu) for t, cpu in learned if t and t.get("series")]
    return found[-1] if found else learned[0]


def note(result: dict) -> str | None:
    """The note itself (None: no note)."""
    record = result.get("launch") or {}
    descriptor = record.get("descriptor") or {}
    ticks, moved_to = _learned(record)
    if ticks is None or not descriptor.get("pinned"):
        return None
    if not ticks["series"]:
        return (f"no periodic interruption of the pinned CPU found (a {duration(ticks['learn_ns'])} spin saw "
                f"{ticks['gaps']} gaps, none in step): launches started at once")
    periods = " and every ".join(duration(s["period_ns"]) for s in ticks["series"])
    where = "the pinned CPU" if moved_to is None else f"CPU {moved_to}, where the timer moved,"
    head = (f"{where} is interrupted every {periods} (the kernel's tick among them; "
            f"{duration(ticks['median_gap_ns'])} each, from a loop reading the clock)")
    samples = [s for c in result.get("cases", []) + result.get("controls", []) for s in c.get("samples", [])]
    controls = sum(len(c.get("samples", [])) for c in result.get("controls", []))
    launches = f"{len(samples)} launches" + (f" ({controls} of them the controls')" if controls else "")
    known = [s for s in samples if _met(s) is not None]
    met = [s for s in known if _met(s)]
    if descriptor.get("dodge"):
        dodged = [s for s in samples if s.get("dodged")]
        to_main = sum(1 for s in dodged if s.get("dodged_until") == "main")
        main_only = f" ({to_main} until main only: they run on past the period)" if to_main else ""
        text = (f"{head}: {len(dodged)} of {launches} started clear of them{main_only} and "
                f"{sum(1 for s in dodged if _met(s))} met one all the same")
        at_once = [s for s in known if not s.get("dodged")]
        if at_once:   # no room within the timer's wait, or longer than the period
            text += (f"; {len(at_once)} started at once (no room soon enough), "
                     f"{sum(1 for s in at_once if _met(s))} of them met one")
        return text + " (--no-dodge: all started at once)"
    text = f"{head}; launches started at once (--no-dodge): {len(met)} of {len(known)} met one"
    if controls:
        text += " (the controls' launches included)"
    clear = [s["exit_ns"] for s in known if not _met(s)]
    if met and clear:
        slower = statistics.median(s["exit_ns"] for s in met) / statistics.median(clear) - 1
        text += f", their median spawn->exit {slower:+.0%} against the others' (across all commands)"
    return text
