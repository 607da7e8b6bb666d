"""Mutated results, read every way a user can read one: the fuzzing behind
tests/test_result_fuzz.py (a few hundred under hypothesis) and bench/fuzz_results.py (as many
as asked). A mutation changes one place of a real recorded result: removes a key, or puts a
value of the wrong kind or range there. Each mutated document is either refused where it
enters (ResultError, one printable line) or read without an error by every reader: the
terminal report at 80 and 200 columns, every export, `compare` against the original both
ways, and the fleet table."""
from __future__ import annotations

import copy
import io
import json
import random
from pathlib import Path

DATA = Path(__file__).parent / "data"

# What a hostile or damaged file puts where a value belongs.
REPLACEMENTS = [None, "oops", "", -1, 0, 1, -1e18, 1e18, 1e-300, 2.5, True, [], {}, ["x", 3], {"x": 1},
                "\x1b[2J\nforged", 10**30]


def seeds() -> list[dict]:
    """Every experiment's recorded result (statistics, samples stripped) and two with their raw
    samples (the analysis runs again from them)."""
    paths = sorted((DATA / "recorded").glob("*.json")) + sorted((DATA / "sampled").glob("*.json"))
    return [json.loads(p.read_text()) for p in paths]


def places(doc) -> list[tuple]:
    """Every place in doc: a path of keys and indexes (lists sampled, so a big one does not drown the rest)."""
    out, stack = [], [((), doc)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            for key, child in value.items():
                out.append((*path, key))
                stack.append(((*path, key), child))
        elif isinstance(value, list):
            for i, child in list(enumerate(value))[:6]:
                out.append((*path, i))
                stack.append(((*path, i), child))
    return out


def mutate(doc: dict, rng: random.Random) -> tuple[dict, str]:
    """A copy of doc with one place changed; and what was done, for a report."""
    doc = copy.deepcopy(doc)
    path = rng.choice(places(doc))
    parent = doc
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    if isinstance(parent, dict) and rng.random() < 0.3:
        del parent[last]
        return doc, f"removed {path}"
    value = rng.choice(REPLACEMENTS)
    parent[last] = copy.deepcopy(value)
    return doc, f"{path} = {value!r}"


def read_every_way(doc: dict, original: dict, html: bool = False) -> None:
    """Validates doc as a file would be; if accepted, reads it every way a user can (html: the
    HTML report too, which draws charts and takes about a second). Raises what a reader raised
    (a finding); returns quietly when doc is refused or read."""
    from layertax.console import SafeConsole
    from layertax.engine.analysis import compare, fleet
    from layertax.engine.analysis.analyze import analyzed, complete
    from layertax.engine.store import results
    from layertax.report import exporters, terminal
    from layertax.text import printable, printable_data

    text = json.dumps(doc, allow_nan=False)
    try:
        doc = results.parse(text, "fuzzed.json")
    except results.ResultError as e:
        message = str(e)
        assert "\n" not in message and printable(message) == message, message
        return
    doc = complete(doc)
    for exp in copy.deepcopy(doc)["experiments"]:      # the statistics again, from the raw samples
        if exp.get("metric") != "instructions" and any(c["samples"] for c in exp["cases"]):
            analyzed(exp)
    for width in (80, 200):
        terminal.render(doc, SafeConsole(file=io.StringIO(), width=width, markup=False), True)
    for exporter in exporters.EXPORTERS.values():
        if exporter.name != "html" or html:
            exporter.to_text(doc)
    compare.compare_runs(printable_data(original), printable_data(doc), 0.02, "a", "b")
    compare.compare_runs(printable_data(doc), printable_data(original), 0.02, "a", "b")
    fleet.fleet([("a", printable_data(original)), ("b", printable_data(doc))])
