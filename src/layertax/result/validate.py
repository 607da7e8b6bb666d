"""A result document checked where it enters layertax (a file, a history row, an import):
against the schema, then for what a schema cannot say (a baseline that names a case).
Refusals are one line naming the file and the first place that is wrong."""
from __future__ import annotations

from functools import lru_cache

from layertax.errors import UsageError
from layertax.result import schema
from layertax.text import printable


class ResultError(UsageError):
    """A file that is missing, unreadable, or not a layertax result."""


@lru_cache(maxsize=1)
def _validator():
    import jsonschema

    def plain(validator, wanted, instance, _schema):
        problem = plain_problem(instance) if wanted else None
        if problem:
            path, message = problem
            yield jsonschema.ValidationError(message, path=path)

    extended = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"plain": plain})
    return extended(schema.DOCUMENT)


def plain_problem(value) -> tuple[tuple, str] | None:
    """The first place in value that is not a plain JSON value within schema.PLAIN's bounds, and
    why (its path inside value); None when all of it is. A loop with a stack of its own, so a
    deeply nested value cannot exhaust Python's; each place keeps only its parent's index and
    its key, and the path is put together for the one place refused."""
    most_items, most_text, most = schema.MAX_ITEMS, schema.MAX_TEXT, schema.MAX_NUMBER
    places: list[tuple[int, object]] = [(-1, None)]      # (parent's index, key) of each place
    stack = [(0, value)]

    def path(at: int) -> tuple:
        keys = []
        while at > 0:
            at, key = places[at]
            keys.append(key)
        return tuple(reversed(keys))

    while stack:
        at, v = stack.pop()
        kind = type(v)
        if kind is str:
            if len(v) > most_text:
                return path(at), f"longer than {most_text:,} characters, the most layertax reads"
        elif kind is int or kind is float:
            if not -most <= v <= most:
                return path(at), f"larger than {most:g}" if v > 0 else f"smaller than {-most:g}"
        elif kind is list or kind is dict:
            if len(v) > most_items:
                return path(at), (f"more than {most_items:,} items, the most layertax reads" if kind is list else
                                  f"more than {most_items:,} entries, the most layertax reads")
            items = list(enumerate(v) if kind is list else v.items())
            for key, item in reversed(items):             # reversed: the first is checked first
                places.append((at, key))
                stack.append((len(places) - 1, item))
        elif v is not None and kind is not bool:
            return path(at), f"not a plain JSON value (a Python {kind.__name__})"
    return None


def _where(path) -> str:
    """A JSON path as people read it: experiments[0].cases[3].stats.median."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return printable(out or "the top level")


def _first_error(doc):
    """The most telling error: the deepest of those found first, so that 'a case lacks its
    name' is said rather than 'the document is not valid under any of the given schemas'."""
    import jsonschema

    error = next(iter(_validator().iter_errors(doc)), None)
    if error is None:
        return None
    return jsonschema.exceptions.best_match([error, *error.context]) if error.context else error


def _in_words(error) -> str:
    """jsonschema's message, or for a bound the bound itself (its message would quote the value:
    a list of a million samples)."""
    words = {"maxItems": "more than {:,} items, the most layertax reads",
             "maxLength": "longer than {:,} characters, the most layertax reads",
             "maxProperties": "more than {:,} entries, the most layertax reads",
             "maximum": "larger than {:g}", "minimum": "smaller than {:g}", "exclusiveMinimum": "not above {:g}"}
    form = words.get(error.validator)
    return form.format(error.validator_value) if form else printable(error.message)


def check(doc, shown: str) -> dict:
    """doc if it is a layertax/1 result; else ResultError in one line."""
    if not isinstance(doc, dict):
        raise ResultError(f"{printable(shown)}: not a layertax result (the top level is not a JSON object)")
    if doc.get("schema") != schema.SCHEMA_ID:
        raise ResultError(f"{printable(shown)}: not a layertax result (schema is {printable(repr(doc.get('schema')))[:60]}"
                          f", expected {schema.SCHEMA_ID!r})")
    error = _first_error(doc)
    if error is not None:
        message = _in_words(error)
        if len(message) > 160:
            message = message[:157] + "..."
        raise ResultError(f"{printable(shown)}: not a valid layertax result: at {_where(error.absolute_path)}: {message}")
    _check_references(doc, shown)
    for i, exp in enumerate(doc["experiments"]):
        metric = exp.get("metric")
        timed_field = None if metric in (None, "time", "instructions") else metric
        for key in ("cases", "controls"):
            for j, case in enumerate(exp.get(key) or []):
                problem = check_samples(case["samples"], needs_ns=metric in (None, "time"), field=timed_field)
                if problem:
                    k, why = problem
                    raise ResultError(f"{printable(shown)}: not a valid layertax result: at "
                                      f"experiments[{i}].{key}[{j}].samples[{k}]: {why}")
    return doc


def check_samples(samples: list, needs_ns: bool = False, field: str | None = None) -> tuple[int, str] | None:
    """The first sample that breaks schema.SAMPLE's rules, and why; None when all keep them.
    needs_ns: a kernel's samples (a timed experiment), each with ns and ops; field: the sample
    field an experiment's figures are read from (a launch's main_ns), a number or null."""
    low, high = schema.SAMPLE_ROUND
    limit = schema.MAX_NUMBER
    for k, sample in enumerate(samples):
        round_ = sample.get("round")
        if type(round_) is not int or not low <= round_ <= high:
            return k, f"round {printable(repr(round_))[:40]} is not a round number"
        for key, value in sample.items():
            numeric = key in ("ns", "ops", "iters") or key in schema.SAMPLE_COUNTS or key.endswith("_ns")
            if numeric and type(value) not in (int, float, type(None)):
                return k, f"{printable(key)[:40]} is not a number"
            if value is None or type(value) is bool:
                continue
            if type(value) is str:
                if len(value) > schema.MAX_TEXT:
                    return k, f"{printable(key)[:40]} is too long"
                continue
            if type(value) not in (int, float):
                return k, f"{printable(key)[:40]} is not a plain value"
            if not -limit <= value <= limit:
                return k, f"{printable(key)[:40]} is out of range"
            if value < 0 and (key.endswith("_ns") or key == "ns" or key in schema.SAMPLE_COUNTS):
                return k, f"{printable(key)[:40]} is negative"
        ns, ops = sample.get("ns"), sample.get("ops")
        if ns is not None and (type(ops) not in (int, float) or ops < 1):
            return k, "ns is given without a positive ops (at least one operation)"
        if needs_ns and ns is None:
            return k, "a kernel's sample without its ns"
        if ns is not None and ns <= 0:
            return k, "ns is not a positive time"
        if field is not None:
            figure = sample.get(field)
            if type(figure) not in (int, float, type(None)) or figure is not None and figure <= 0:
                return k, f"{printable(field)[:40]} is not a positive time"
        for key in schema.SAMPLE_COUNTS:
            if key in sample and sample[key] is None:
                return k, f"{key} is null"
    return None


def _check_references(doc: dict, shown: str) -> None:
    """What a schema cannot say: case names unique in an experiment; a table's rows as wide as
    its columns; a classic's ratio for each of its figures."""
    for i, exp in enumerate(doc["experiments"]):
        classic = exp.get("classic")
        if classic:
            missing = [f["label"] for f in classic["figures"] if f["label"] not in classic["ratios"]]
            if missing:
                raise ResultError(f"{printable(shown)}: not a valid layertax result: at experiments[{i}].classic: no "
                                  f"ratio for the figure {printable(missing[0])!r}")
        for t, table in enumerate(exp.get("tables") or []):
            width = len(table["columns"])
            if len(table.get("units") or [None] * width) != width:
                raise ResultError(f"{printable(shown)}: not a valid layertax result: at experiments[{i}].tables"
                                  f"[{t}].units: {len(table['units'])} units for {width} columns")
            figures = [u in schema.FIGURE_UNITS for u in table.get("units") or [None] * width]
            for r, row in enumerate(table["rows"]):
                if len(row) != width:
                    raise ResultError(f"{printable(shown)}: not a valid layertax result: at experiments[{i}].tables"
                                      f"[{t}].rows[{r}]: {len(row)} cells for {width} columns")
                bad = next((c for c, cell in enumerate(row) if isinstance(cell, dict) and not figures[c]), None)
                if bad is not None:
                    raise ResultError(f"{printable(shown)}: not a valid layertax result: at experiments[{i}].tables"
                                      f"[{t}].rows[{r}][{bad}]: a figure in a column whose unit is not a figure's")
        for j, case in enumerate(exp["cases"]):
            for where, summary in (("stats", case.get("stats")), ("stats.ratio", (case.get("stats") or {}).get("ratio"))):
                if summary and not summary["ci95"][0] <= summary["median"] <= summary["ci95"][1]:
                    raise ResultError(f"{printable(shown)}: not a valid layertax result: at experiments[{i}].cases[{j}]"
                                      f".{where}: the median is outside its interval")
        names = [case["name"] for case in exp["cases"]]
        if len(set(names)) != len(names):
            twice = next(n for n in names if names.count(n) > 1)
            raise ResultError(f"{printable(shown)}: not a valid layertax result: experiments[{i}] has two cases "
                              f"named {printable(twice)!r}")
