"""The JSON Schema of a result document, "layertax/1": what every file, history row and
import must be before layertax reads anything from it.

It names each field the reports, `compare` and the analysis read, with its type and range:
times are finite and never negative, a sample has at least one operation, names are short
one-line text, an experiment's name is a plain word (it becomes part of a file name). Fields
it does not name are allowed (a newer layertax may add some) but must still be plain JSON
values, and every list is bounded, so a hostile file is refused in one line at the edge
instead of crashing a report later, or filling the memory.
"""
from __future__ import annotations

SCHEMA_ID = "layertax/1"

# Bounds. A full run holds a few hundred cases of at most a few thousand samples; these are
# far above anything layertax writes, and far below what would exhaust a machine.
MAX_EXPERIMENTS = 1_000
MAX_CASES = 20_000
MAX_SAMPLES = 200_000         # per case
MAX_ITEMS = 100_000           # any other list
MAX_TEXT = 1_000_000          # characters in one string (a kernel's stderr, a build log)
MAX_NAME = 1_000
MAX_NUMBER = 1e18             # ns: 31 years; counts: more than any machine does

NUMBER = {"type": "number", "minimum": -MAX_NUMBER, "maximum": MAX_NUMBER}
NONNEGATIVE = {"type": "number", "minimum": 0, "maximum": MAX_NUMBER}
COUNT = {"type": "integer", "minimum": 0, "maximum": MAX_NUMBER}
POSITIVE = {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_NUMBER}
TEXT = {"type": "string", "maxLength": MAX_TEXT}
NAME = {"type": "string", "minLength": 1, "maxLength": MAX_NAME}
# An experiment's name becomes part of a saved file's name: a word, never a path.
EXPERIMENT_NAME = {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$"}


def nullable(schema: dict) -> dict:
    """schema, or null. Said as one more type where the schema has a type (a refusal then names
    the field's own rule, not "is not of type 'null'"); else as an anyOf."""
    kind = schema.get("type")
    if kind is None:
        return {"anyOf": [schema, {"type": "null"}]}
    kinds = [kind] if isinstance(kind, str) else list(kind)
    return {**schema, "type": [*kinds, "null"] if "null" not in kinds else kinds}


def array(items: dict, max_items: int = MAX_ITEMS, **more) -> dict:
    return {"type": "array", "items": items, "maxItems": max_items, **more}


def obj(properties: dict, required: tuple[str, ...] = (), additional: dict | bool | None = None) -> dict:
    schema = {"type": "object", "properties": properties, "required": list(required)}
    schema["additionalProperties"] = {"$ref": "#/$defs/value"} if additional is None else additional
    return schema


# Any JSON value, bounded: what a field this schema does not name may hold. One schema, not an
# anyOf of five (each keyword applies to its own type only): checked several times faster.
VALUE = {"type": ["number", "string", "boolean", "null", "array", "object"],
         "minimum": -MAX_NUMBER, "maximum": MAX_NUMBER, "maxLength": MAX_TEXT,
         "maxItems": MAX_ITEMS, "items": {"$ref": "#/$defs/value"},
         "maxProperties": MAX_ITEMS, "additionalProperties": {"$ref": "#/$defs/value"}}
# A plain value: a number, a string, a flag or nothing (a table's cell, a sample's field).
SCALAR = {"type": ["number", "string", "boolean", "null"], "minimum": -MAX_NUMBER, "maximum": MAX_NUMBER,
          "maxLength": MAX_TEXT}
INTERVAL = array(NUMBER, 2, minItems=2)
TIME_INTERVAL = array(NONNEGATIVE, 2, minItems=2)
STRINGS = array(TEXT)
TEXT_MAP = {"type": "object", "additionalProperties": TEXT, "maxProperties": MAX_ITEMS}
NUMBER_MAP = {"type": "object", "additionalProperties": NUMBER, "maxProperties": MAX_ITEMS}

RATIO = nullable(obj({"median": POSITIVE, "ci95": nullable(array(NONNEGATIVE, 2, minItems=2)), "rounds": COUNT,
                      "ci_coverage": nullable(NONNEGATIVE)}, required=("median",)))

STATS = nullable(obj({
    "n": COUNT, "rounds": COUNT, "median": NONNEGATIVE, "min": NONNEGATIVE, "max": NONNEGATIVE,
    "mean": NONNEGATIVE, "stdev": NONNEGATIVE, "iqr": NONNEGATIVE, "spread": nullable(NONNEGATIVE),
    "ci95": nullable(TIME_INTERVAL), "ci_coverage": nullable(NONNEGATIVE), "ratio": RATIO,
    "warnings": STRINGS, "disturbed_share": nullable(NONNEGATIVE), "disturbed_slowdown": nullable(NUMBER),
    "level_shift": nullable({"type": "object", "additionalProperties": {"$ref": "#/$defs/value"}}),
}, required=("n", "median")))

# One sample: a kernel's burst (ns over ops) or a launch (main_ns, exit_ns, rusage). There can
# be hundreds of thousands, and jsonschema takes about half a millisecond for each, so the
# schema only says each is an object; validate.check_samples checks their fields, these rules,
# in a tight loop: a round number, plain values, every *_ns time and count never negative,
# every number finite and within MAX_NUMBER, and at least one operation wherever ns is given.
SAMPLE = {"type": "object", "required": ["round"]}
SAMPLE_ROUND = (-1, 10_000_000)
SAMPLE_COUNTS = ("csw_vol", "csw_invol", "minflt", "majflt", "maxrss_kb", "iters", "ops")

CASE = obj({
    "name": NAME, "status": {"type": "string", "maxLength": 64}, "samples": array(SAMPLE, MAX_SAMPLES),
    "kernel": nullable(TEXT), "layer": nullable(TEXT), "language": nullable(TEXT), "reason": nullable(TEXT),
    "group": nullable(TEXT), "stats": STATS, "ratio": nullable(NONNEGATIVE),
    "syscalls": nullable(obj({"per_op": NUMBER_MAP, "total_per_op": nullable(NONNEGATIVE)})),
    "instructions": nullable(obj({"per_op": NONNEGATIVE, "floor_gap": nullable(NONNEGATIVE),
                                  "all_totals": array(array(NUMBER))})),
    "callgrind": nullable(obj({"instructions": NONNEGATIVE, "by_object": NUMBER_MAP, "phases": NUMBER_MAP})),
    "descriptor": nullable({"type": "object", "additionalProperties": {"$ref": "#/$defs/value"}}),
    "env": nullable(TEXT_MAP), "argv": nullable(STRINGS),
}, required=("name", "status", "samples"))

CLASSIC_FIGURE = obj({"label": NAME, "value": NUMBER, "counterpart": nullable(TEXT), "why": nullable(TEXT)},
                     required=("label", "value"))
CLASSIC = nullable(obj({
    "source": TEXT, "year": TEXT, "machine": TEXT, "unit": TEXT, "baseline": TEXT, "conclusion": nullable(TEXT),
    "figures": array(CLASSIC_FIGURE, 1000), "ratios": {"type": "object", "additionalProperties": POSITIVE},
}, required=("source", "year", "machine", "unit", "baseline", "figures", "ratios")))
CLASSIC_NOW_ROW = obj({"label": NAME, "then_value": NUMBER, "then_ratio": POSITIVE, "counterpart": nullable(TEXT),
                       "why": nullable(TEXT), "now_ratio": RATIO},
                      required=("label", "then_value", "then_ratio", "now_ratio"))

GROUP = obj({"name": TEXT, "title": TEXT, "baseline": TEXT, "show_cases": {"type": "boolean"}},
            required=("name", "baseline"))
TABLE = obj({"title": TEXT, "columns": array(TEXT, 1000), "rows": array(array(SCALAR, 1000)),
             "align": array(TEXT, 1000), "notes": STRINGS, "detail": {"type": "boolean"},
             "brief": {"type": "boolean"}, "nowrap": nullable(COUNT),
             "styles": {"type": "object", "additionalProperties": TEXT}},
            required=("title", "columns", "rows"))

# A point of `loadtime sweep`: one variant at one size, the response and the counts the cost
# model is fitted on (inspect reads them from a saved sweep).
SWEEP_POINT = obj({"variant": NAME, "spawn_to_main_ns": NONNEGATIVE, "relative_relocations": COUNT,
                   "symbol_lookups": COUNT, "sysv_probes": COUNT, "libraries": COUNT,
                   "page_faults": nullable(NONNEGATIVE), "rounds": COUNT, "libs": COUNT, "exports": COUNT,
                   "relocs": COUNT, "name_len": COUNT},
                  required=("variant", "spawn_to_main_ns", "relative_relocations", "symbol_lookups", "libraries"),
                  additional=SCALAR)

EXPERIMENT = obj({
    "name": EXPERIMENT_NAME, "title": TEXT, "question": TEXT, "unit": nullable(TEXT), "baseline": nullable(TEXT),
    "metric": nullable(TEXT), "method": nullable(TEXT), "cases": array(CASE, MAX_CASES),
    "controls": array(CASE, MAX_CASES), "classic": CLASSIC, "classic_now": array(CLASSIC_NOW_ROW, 1000),
    "groups": array(GROUP, 1000), "tables": array(TABLE, 1000), "notes": STRINGS, "detail_notes": STRINGS,
    "warnings": STRINGS, "interrupted": {"type": "boolean"}, "points": array(SWEEP_POINT),
    "kernels": {"type": "object", "additionalProperties": {"type": "object",
                                                           "additionalProperties": {"$ref": "#/$defs/value"}}},
}, required=("name", "title", "question", "cases"))

MACHINE = {"type": "object", "additionalProperties": {"$ref": "#/$defs/value"},
           "properties": {"machine_id": TEXT, "cpu_model": TEXT, "kernel": TEXT, "libc": TEXT, "os": TEXT,
                          "arch": TEXT, "cores": nullable(COUNT), "memory_gib": nullable(NONNEGATIVE)}}

DOCUMENT = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://layertax.invalid/schema/layertax-1.json",
    "title": "A layertax result (layertax/1)",
    "$defs": {"value": VALUE},
    **obj({
        "schema": {"const": SCHEMA_ID}, "layertax_version": TEXT, "created": TEXT, "command": STRINGS,
        "complete": {"type": "boolean"},
        "settings": nullable({"type": "object", "additionalProperties": {"$ref": "#/$defs/value"}}),
        "machine": MACHINE, "experiments": array(EXPERIMENT, MAX_EXPERIMENTS),
        "concurrent": nullable(obj({"allowed": {"type": "boolean"},
                                    "others": array(obj({"pid": COUNT, "command": TEXT}))})),
        "fleet": nullable(obj({"id": TEXT, "host": TEXT, "inventory": TEXT})),
    }, required=("schema", "machine", "experiments", "settings")),
}
