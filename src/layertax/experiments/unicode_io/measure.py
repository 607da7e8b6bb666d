"""Runs the matrix: every program, in every locale environment, through a pipe and a pty.

Each cell is one run of one program with exactly one environment; its stdout is
kept byte for byte (base64 in the JSON) beside the classification and the
diagnosis. Nothing here changes the user's locale: the settings exist only in
the environment given to each child.
"""
from __future__ import annotations

import base64
import sys
from pathlib import Path

from layertax.engine.analysis import analyze
from layertax.engine.builder import kernels, toolchain
from layertax.engine import machine
from layertax.engine.measure.scheduler import select_cases
from layertax.experiments.unicode_io import capture, classify, diagnose, environments, message, native, programs
from layertax.experiments.unicode_io.tables import all_tables

CELL_TIMEOUT_S = 20.0   # a JVM starting on a loaded machine takes a second or two
METHOD = ("no timing: each cell runs its program once, with a clean environment (PATH, HOME, the column's LANG and "
          "the row's own settings), through a pipe and through a pseudo-terminal, and compares stdout byte for byte "
          "with the message")


def _runtime_commands(exp, cache_root: Path) -> tuple[dict[str, list[str]], dict[str, str], dict[str, str]]:
    """The Go, Rust, Java and Node programs, built by the engine like any runtime kernel:
    ({kernel: argv}, {kernel: skip hint}, {kernel: build error})."""
    prepared = {name: pk for (_, name), pk in kernels.prepare([exp], cache_root).items()}
    return ({n: pk.argv for n, pk in prepared.items() if pk.argv},
            {n: pk.skip for n, pk in prepared.items() if pk.skip},
            {n: pk.error for n, pk in prepared.items() if pk.error})


def command(p: programs.Program, native_exe: dict[str, Path], runtime_argv: dict[str, list[str]]) -> list[str] | None:
    if p.native:
        exe = native_exe.get(p.name)
        return [str(exe)] if exe else None
    if p.language == "python":
        return [sys.executable, "-c", message.python_code()]
    base = runtime_argv.get(p.source)
    if base is None:
        return None
    if p.language == "java":   # -D flags go before the class path and the class
        return [base[0], *p.flags, *base[1:]]
    return list(base)


def _versions() -> dict[str, str]:
    out = {"libc": machine.libc_version() or "?", "python": sys.version.split()[0]}
    for tool in ("cc", "c++", "musl-gcc", "java", "go", "rustc", "node"):
        found = toolchain.find(tool)
        if found is not None:
            out[tool] = found.version
    return out


def run_cell(p: programs.Program, argv: list[str], column: environments.Column, column_info: dict, channel: str,
             versions: dict[str, str]) -> dict:
    env = {**environments.base_env(), **column.env, **p.env}
    got = capture.run(argv, env, channel, CELL_TIMEOUT_S)
    out = got.output(channel)
    verdict = classify.classify(out, got.stderr, got.exit_code, got.timed_out)
    cell = {"column": column.name, "channel": channel, "class": verdict.kind, "exit_code": got.exit_code,
            "timed_out": got.timed_out, "stdout_b64": base64.b64encode(got.stdout).decode(),
            "stderr": got.stderr.decode("utf-8", "backslashreplace"), "facts": verdict.facts,
            "env": {k: v for k, v in env.items() if k not in ("PATH", "HOME")}}
    cell["diagnosis"] = diagnose.diagnose(p, column_info, cell, versions)
    return cell


def _case(p: programs.Program) -> dict:
    return {"name": p.name, "kernel": p.source or p.language, "layer": p.layer, "language": p.language, "group": "",
            "status": "ok", "reason": None, "descriptor": None, "samples": [],
            "program": {"output": p.output, "link": p.link or None, "defines": list(p.defines), "env": dict(p.env),
                        "flags": list(p.flags), "sets_locale": p.sets_locale, "imbues": p.imbues,
                        "synced": p.synced},
            "cells": []}


def measure(exp, settings, progress, cache_root: Path, case_globs: tuple[str, ...] = ()) -> tuple[dict, bool]:
    chosen = {c.name for c in select_cases(exp, case_globs)}   # every case when no --case was given
    progress.start("unicode-io build", 1)
    try:
        native_exe, native_skip, native_fail = native.build_all(list(programs.NATIVE), cache_root)
        runtime_argv, runtime_skip, runtime_fail = _runtime_commands(exp, cache_root)
        columns = [(col, environments.describe(col)) for col in environments.COLUMNS]
    finally:
        progress.finish()
    for col, info in columns:
        info["skipped"] = environments.skip_reason(col, info)
    live_columns = [(col, info) for col, info in columns if not info["skipped"]]
    versions = _versions()

    cases, work = [], []
    for p in (p for p in programs.PROGRAMS if p.name in chosen):
        case = _case(p)
        cases.append(case)
        argv = command(p, native_exe, runtime_argv)
        if argv is None:
            skips, fails = (native_skip, native_fail) if p.native else (runtime_skip, runtime_fail)
            key = p.name if p.native else p.source
            case["status"] = "skipped" if key in skips else "failed"
            case["reason"] = skips.get(key) or fails.get(key) or "not built"
            continue
        case["argv"] = argv
        work.append((p, argv, case))

    interrupted = False
    progress.start("unicode-io", len(work) * len(live_columns) * len(capture.CHANNELS))
    try:
        for p, argv, case in work:
            for col, info in live_columns:
                for channel in capture.CHANNELS:
                    progress.step(f"{p.name} {col.name} {channel}")
                    case["cells"].append(run_cell(p, argv, col, info, channel, versions))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        progress.finish(stopped=interrupted)

    result = {"name": exp.name, "title": exp.title, "question": exp.question, "unit": exp.unit,
              "baseline": exp.baseline, "notes": list(exp.notes), "classic": exp.classic.to_dict(), "harness": None,
              "kernels": {}, "show_cases": False, "interrupted": interrupted, "cases": cases,
              "columns": [info for _, info in columns], "channels": list(capture.CHANNELS), "versions": versions,
              "message": {"text": message.TEXT, "expected_b64": base64.b64encode(message.EXPECTED).decode()},
              "metric": "class", "method": METHOD}
    result = analyze.analyzed(result)
    result["tables"] = all_tables(result)
    return result, interrupted
