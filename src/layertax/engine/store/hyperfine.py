"""Bringing hyperfine's JSON export (`hyperfine --export-json`) into layertax's history, so
`layertax compare` and `--vs-history` can judge hyperfine runs like our own.

Every command becomes a case of an experiment named "hyperfine"; every timed run of it
is one sample and one round (hyperfine runs each command in its own process, so the
runs are the independent replicates). Ratios are taken to the first command, which
hyperfine also lists first. hyperfine records no machine: the import is filed under
the machine that imports it, and its method line says so.
"""
from __future__ import annotations

from pathlib import Path

from layertax import files
from layertax.engine.analysis import analyze
from layertax.engine.store.results import ResultError
from layertax.errors import UsageError
from layertax.text import printable

EXPERIMENT = "hyperfine"


# A hyperfine run is seconds; a time beyond a day is not one, and times x 1e9 must stay finite.
MAX_SECONDS = 86400.0
MAX_RUNS = 100_000


def _read(path: Path) -> dict:
    """The export, read within the input limit and checked whole before anything is made of it."""
    shown = printable(path)
    try:
        data = files.read_json(path, "hyperfine export")
    except UsageError as e:
        raise ResultError(str(e)) from None
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list) or not results:
        raise ResultError(f"{shown} is not a hyperfine export: no 'results' list (make one with `hyperfine --export-json`)")
    for r in results:
        if not isinstance(r, dict) or not isinstance(r.get("command"), str) or not isinstance(r.get("times"), list):
            raise ResultError(f"{shown} is not a hyperfine export: a result lacks 'command' or 'times' "
                              "(hyperfine 1.10 or newer writes them)")
        command = printable(repr(r["command"]))[:80]
        if len(r["times"]) > MAX_RUNS:
            raise ResultError(f"{shown}: {command} has {len(r['times']):,} runs, more than the {MAX_RUNS:,} layertax reads")
        if not all(type(t) in (int, float) and 0 <= t <= MAX_SECONDS for t in r["times"]):
            raise ResultError(f"{shown}: the times of {command} are not all seconds from 0 to a day")
        codes = r.get("exit_codes")
        if codes is not None and (not isinstance(codes, list) or len(codes) != len(r["times"])
                                  or not all(c is None or type(c) is int for c in codes)):
            raise ResultError(f"{shown}: {command} has {len(codes) if isinstance(codes, list) else 'no list of'} exit "
                              f"codes for {len(r['times'])} times: each run needs its own")
    return data


def _case(result: dict, names: dict[str, int]) -> dict:
    name = result["command"]
    names[name] = names.get(name, 0) + 1
    if names[name] > 1:                      # the same command twice (hyperfine allows it)
        name = f"{name} #{names[name]}"
    codes = result.get("exit_codes") or [None] * len(result["times"])
    samples = [{"round": i, "iters": 1, "ops": 1, "ns": round(t * 1e9), "exit_code": code}
               for i, (t, code) in enumerate(zip(result["times"], codes))]
    return {"name": name, "kernel": "hyperfine", "layer": "command", "language": "-", "group": "",
            "status": "ok" if samples else "failed", "reason": None if samples else "hyperfine recorded no runs",
            "parameters": result.get("parameters"), "samples": samples}


def experiment(path: Path) -> dict:
    """The hyperfine export at path as one layertax experiment (stats filled in)."""
    path = Path(path)
    data = _read(path)
    names: dict[str, int] = {}
    cases = [_case(r, names) for r in data["results"]]
    exp = {"name": EXPERIMENT, "title": "commands timed by hyperfine", "question": "How long does each command take?",
           "unit": "wall time per run", "baseline": cases[0]["name"], "classic": None, "groups": [],
           # Run i of one command did not run beside run i of another (hyperfine times each
           # command's runs in a block of its own), so a ratio per round pairs nothing.
           "rounds_paired": False,
           "interrupted": False, "kernels": {}, "cases": cases, "source": str(path),
           "method": f"imported from hyperfine's JSON ({path.name}): each run of a command is one sample and one "
                     "round; hyperfine records no machine, so this one is the importing machine"}
    zeros = sum(1 for r in data["results"] for t in r["times"] if t == 0)
    if zeros:
        # hyperfine subtracts its shell's measured start-up from every run and clamps what goes
        # below zero to 0.0 (ShellExecutor::subtract_shell_spawning_time in its src/benchmark/executor.rs).
        exp["method"] += (f"; {zeros} of its times are 0.0: hyperfine subtracted its shell's start-up and clamped "
                          "the result at zero, so those runs took less than the shell's noise (hyperfine -N times "
                          "fast commands without a shell)")
    return analyze.analyzed(exp)
