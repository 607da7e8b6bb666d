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
    schema["additionalProperties"] = PLAIN if additional is None else additional
    return schema


# Any JSON value, bounded: what a field this schema does not name may hold, and all inside it:
# numbers within +-MAX_NUMBER, strings of at most MAX_TEXT characters, lists and objects of at
# most MAX_ITEMS. A keyword of layertax's own (validate.plain_problem), checked in one loop: as a
# recursive reference, jsonschema resolved it at each of a full run's ~100,000 such values, most
# of the time it took to read one.
PLAIN = {"plain": True}
# A plain value: a number, a string, a flag or nothing (a table's cell, a sample's field).
SCALAR = {"type": ["number", "string", "boolean", "null"], "minimum": -MAX_NUMBER, "maximum": MAX_NUMBER,
          "maxLength": MAX_TEXT}
INTERVAL = array(NUMBER, 2, minItems=2)
TIME_INTERVAL = array(NONNEGATIVE, 2, minItems=2)
STRINGS = array(TEXT)
TEXT_MAP = {"type": "object", "additionalProperties": TEXT, "maxProperties": MAX_ITEMS}
NUMBER_MAP = {"type": "object", "additionalProperties": NUMBER, "maxProperties": MAX_ITEMS}

# engine/analysis/two_levels.py: a ratio's rounds at two levels, where they were.
TWO_LEVELS = nullable(obj({"lower": POSITIVE, "upper": POSITIVE, "upper_share": NONNEGATIVE, "gap": NONNEGATIVE,
                           "p": NONNEGATIVE}, required=("lower", "upper", "upper_share", "gap")))
RATIO = nullable(obj({"median": POSITIVE, "ci95": array(NONNEGATIVE, 2, minItems=2), "rounds": COUNT,
                      "ci_coverage": nullable(NONNEGATIVE), "ci_level": nullable(POSITIVE),
                      "two_levels": TWO_LEVELS},
                     required=("median", "ci95")))

STATS = nullable(obj({
    "n": COUNT, "rounds": COUNT, "median": NONNEGATIVE, "min": NONNEGATIVE, "max": NONNEGATIVE,
    "mean": NONNEGATIVE, "stdev": NONNEGATIVE, "iqr": NONNEGATIVE, "spread": nullable(NONNEGATIVE),
    "ci95": TIME_INTERVAL, "ci_coverage": nullable(NONNEGATIVE), "ratio": RATIO,
    "warnings": STRINGS, "disturbed_share": nullable(NONNEGATIVE), "disturbed_slowdown": nullable(NUMBER),
    "level_shift": nullable({"type": "object", "additionalProperties": PLAIN}),
}, required=("n", "median", "min", "max", "mean", "spread", "ci95", "warnings")))

# One sample: a kernel's burst (ns over ops) or a launch (main_ns, exit_ns, rusage). There can
# be hundreds of thousands, and jsonschema takes about half a millisecond for each, so the
# schema only says each is an object; validate.check_samples checks their fields, these rules,
# in a tight loop: a round number, plain values, every *_ns time and count never negative,
# every number finite and within MAX_NUMBER, and at least one whole operation wherever ns is given.
SAMPLE = {"type": "object", "required": ["round"]}
SAMPLE_ROUND = (-1, 10_000_000)
SAMPLE_COUNTS = ("csw_vol", "csw_invol", "minflt", "majflt", "maxrss_kb", "iters", "ops", "slot", "beside")

# A node of a case's layer chain under callgrind (engine/measure/instructions.py), as the reports walk
# it: a function, its object, its instructions and its children, each a node. Recursive, so a
# reference; a chain has at most a few hundred nodes.
CHAIN_NODE = obj({"function": TEXT, "object": TEXT, "instructions": NUMBER, "self": nullable(NUMBER),
                  "calls": nullable(NUMBER), "syscalls": NUMBER, "syscalls_here": NUMBER,
                  "children": array({"$ref": "#/$defs/chain"})},
                 required=("function", "object", "instructions", "children"))

CASE = obj({
    "name": NAME, "status": {"type": "string", "maxLength": 64}, "samples": array(SAMPLE, MAX_SAMPLES),
    "kernel": nullable(TEXT), "layer": TEXT, "language": TEXT, "reason": nullable(TEXT),
    "group": nullable(TEXT), "stats": STATS, "ratio": nullable(NONNEGATIVE),
    "every_cpu": {"type": "boolean"},   # it runs on every CPU at once (experiment.Case.every_cpu)
    # a count that failed says why ("error"); one that did not has its calls per operation
    "syscalls": nullable({**obj({"per_op": NUMBER_MAP, "total_per_op": nullable(NONNEGATIVE), "error": TEXT}),
                          "if": {"not": {"required": ["error"]}}, "then": {"required": ["per_op"]}}),
    # unicode-io's matrix: each program's output in each environment and channel, classified
    "cells": array(obj({"column": TEXT, "channel": TEXT, "class": TEXT, "diagnosis": nullable(TEXT),
                        "stderr": nullable(TEXT), "stdout_b64": nullable(TEXT), "exit_code": nullable(NUMBER),
                        "timed_out": {"type": "boolean"}, "env": nullable(TEXT_MAP)},
                       required=("column", "channel", "class"))),
    "instructions": nullable(obj({"per_op": NONNEGATIVE, "floor_gap": nullable(NONNEGATIVE),
                                  "all_totals": array(array(NUMBER)), "by_object": NUMBER_MAP,
                                  "chain": {"$ref": "#/$defs/chain_or_null"}})),
    "callgrind": nullable(obj({"instructions": NONNEGATIVE, "by_object": NUMBER_MAP, "phases": NUMBER_MAP})),
    # what the kernel said of itself (its first line): text fields, typed where reports read them
    "descriptor": nullable(obj({"runtime": nullable(TEXT), "language": nullable(TEXT), "compiler": nullable(TEXT),
                                "clock": nullable(TEXT), "pin": nullable(TEXT), "priority": nullable(TEXT),
                                "kernel": nullable(TEXT), "case": nullable(TEXT), "description": nullable(TEXT)})),
    "env": nullable(TEXT_MAP), "argv": nullable(STRINGS),
}, required=("name", "status", "samples", "layer", "language"))

CLASSIC_FIGURE = obj({"label": NAME, "value": NUMBER, "counterpart": nullable(TEXT), "why": nullable(TEXT)},
                     required=("label", "value", "counterpart", "why"))
CLASSIC = nullable(obj({
    "source": TEXT, "year": TEXT, "machine": TEXT, "unit": TEXT, "baseline": TEXT, "conclusion": nullable(TEXT),
    "figures": array(CLASSIC_FIGURE, 1000), "ratios": {"type": "object", "additionalProperties": POSITIVE},
}, required=("source", "year", "machine", "unit", "baseline", "figures", "ratios")))
CLASSIC_NOW_ROW = obj({"label": NAME, "then_value": NUMBER, "then_ratio": POSITIVE, "counterpart": nullable(TEXT),
                       "why": nullable(TEXT), "now_ratio": RATIO},
                      required=("label", "then_value", "then_ratio", "counterpart", "why", "now_ratio"))

GROUP = obj({"name": TEXT, "title": TEXT, "baseline": TEXT, "show_cases": {"type": "boolean"}},
            required=("name", "title", "baseline"))

# How the rounds were spent: the rule and, per case, whether it met the precision target.
STOPPING = obj({
    "rule": nullable(obj({"precision": POSITIVE, "checkpoints": array(COUNT, 1000), "min_rounds": COUNT,
                          "max_rounds": COUNT, "confidence": POSITIVE}, required=("precision", "checkpoints"))),
    "cases": {"type": "object", "maxProperties": MAX_CASES,
              "additionalProperties": {
                  **obj({"met": {"type": ["boolean", "null"]}, "rounds": COUNT, "precision": nullable(NONNEGATIVE),
                         "stopped": TEXT, "burst_s": nullable(NONNEGATIVE)},
                        required=("met", "rounds", "precision", "stopped")),
                  # a case that missed its target says by how much
                  "if": {"properties": {"met": {"const": False}}}, "then": {"properties": {"precision": NONNEGATIVE}}}},
})

# The run's settings: the method line is its own "method", or is made from these (a missing
# one is shown as "?": they describe the run, the figures do not depend on them).
SETTINGS = nullable(obj({"method": nullable(TEXT), "method_brief": nullable(TEXT), "runs": COUNT, "burst": COUNT,
                         "warmup": COUNT,
                         "min_sample_ns": NONNEGATIVE, "seed": nullable({"type": "integer"}), "cpu": nullable(COUNT),
                         "precision": nullable(POSITIVE), "min_rounds": COUNT, "budget_s": nullable(NONNEGATIVE),
                         "measured_s": nullable(NONNEGATIVE), "metric": nullable(TEXT),
                         "timeout": nullable(NONNEGATIVE)}))
# A table's cell that is a figure with its interval ({"median", "ci95"}, or a stage as
# stats.as_time keeps it): numbers, written by report/ in its column's unit; a case's ratio put
# in a table whole (loadtime's "ratio to default") keeps where its rounds sat at two levels.
FIGURE = {"type": "object", "maxProperties": 8, "properties": {"two_levels": TWO_LEVELS},
          "additionalProperties": {"anyOf": [NUMBER, INTERVAL, {"type": "null"}]}}
CELL = {"anyOf": [SCALAR, FIGURE]}
# The units of a column whose cells may be figures (report/format.py writes each).
FIGURE_UNITS = ("ratio_ci", "ratio_point", "share_ci", "stage", "part", "saving", "rate", "interval")
TABLE = obj({"title": TEXT, "columns": array(TEXT, 1000), "rows": array(array(CELL, 1000)),
             "align": array(TEXT, 1000), "notes": STRINGS, "units": array(nullable(TEXT), 1000), "detail": {"type": "boolean"},
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

# The kernel harness's own floor (an empty loop, the clock): reported in full when measured.
HARNESS = nullable({**obj({"empty_ns_per_iter": NONNEGATIVE, "clock_overhead_ns": NONNEGATIVE,
                           "clock_res_ns": NONNEGATIVE, "pin": TEXT, "priority": TEXT, "clock": TEXT, "kernel": TEXT}),
                    "if": {"required": ["empty_ns_per_iter"]},
                    "then": {"required": ["clock_overhead_ns", "clock_res_ns", "pin", "priority"]}})

# A stage of start-up as a result keeps it (stats.as_time): a time and its interval, never negative.
STAGE_TIME = nullable(obj({"ns": NONNEGATIVE, "ci95": nullable(TIME_INTERVAL), "n": COUNT,
                           "median": NUMBER, "within_noise_ns": NONNEGATIVE}))
# loadtime's split: per variant, spawn->main as stages of the LD_DEBUG launches.
LOADTIME_SPLIT = array(obj({"variant": TEXT, "stages": {"type": "object", "additionalProperties": STAGE_TIME,
                                                        "maxProperties": 100}},
                           required=("variant", "stages")), 1000)
# inspect's split: per variant ("lazy", "now ..."), its parts with their shares.
INSPECT_SPLIT = {"type": "object", "maxProperties": 100,
                 "additionalProperties": obj({"variant": TEXT, "status": TEXT, "parts": array(obj(
                     {"part": TEXT, "ns": NONNEGATIVE, "share": nullable(NUMBER), "ci95": nullable(TIME_INTERVAL),
                      "source": nullable(TEXT), "n": COUNT}, required=("part", "ns")), 100)})}

# Each case's ratio beside the same case's in this machine's recent runs (engine/analysis/between_runs.py).
BETWEEN_RUNS = obj({
    "runs": COUNT,
    "cases": {"type": "object", "maxProperties": MAX_CASES,
              "additionalProperties": obj({"runs": COUNT, "low": POSITIVE, "high": POSITIVE,
                                           "p": NONNEGATIVE, "moved": {"type": "boolean"}, "tau": NONNEGATIVE},
                                          required=("runs", "low", "high", "p", "moved"))},
    # The geometric mean of the experiment's ratios beside the same mean in those runs (mean_compared).
    "mean": obj({"cases": COUNT, "runs": COUNT, "low": POSITIVE, "high": POSITIVE, "p": NONNEGATIVE,
                 "tau": NONNEGATIVE}, required=("cases", "runs", "low", "high", "p", "tau")),
}, required=("runs", "cases"))

EXPERIMENT = obj({
    "name": EXPERIMENT_NAME, "title": TEXT, "question": TEXT, "unit": nullable(TEXT), "baseline": nullable(TEXT),
    "metric": nullable(TEXT), "method": nullable(TEXT), "cases": array(CASE, MAX_CASES),
    "controls": array(CASE, MAX_CASES), "classic": CLASSIC, "classic_now": array(CLASSIC_NOW_ROW, 1000),
    "groups": array(GROUP, 1000), "tables": array(TABLE, 1000), "notes": STRINGS, "detail_notes": STRINGS,
    "warnings": STRINGS, "interrupted": {"type": "boolean"}, "points": array(SWEEP_POINT),
    "stopping": nullable(STOPPING), "between_runs": BETWEEN_RUNS, "channels": STRINGS, "harness": HARNESS, "show_cases": {"type": "boolean"},
    "split": {"anyOf": [LOADTIME_SPLIT, INSPECT_SPLIT]},
    # the CPUs' time during the experiment: shares of it (busy, stolen by the hypervisor, outside the run)
    "cpu_activity": nullable({"type": "object", "maxProperties": 100,
                              "additionalProperties": nullable(NUMBER)}),
    # an experiment's own settings, where they differ from the run's: any of them, typed
    "settings": nullable(obj({"runs": COUNT, "burst": COUNT, "warmup": COUNT, "min_sample_ns": NONNEGATIVE})),
    "kernels": {"type": "object", "additionalProperties": {"type": "object",
                                                           "additionalProperties": PLAIN}},
    # the digest of the code that measured it (engine/measuring_code.py): which runs it is set beside
    "code": {"type": "string", "pattern": "^[0-9a-f]{16,64}$"},
}, required=("name", "title", "question", "cases", "baseline", "unit"))
# A then-vs-now table needs the classic it quotes.
EXPERIMENT["if"] = {"required": ["classic_now"], "properties": {"classic_now": {"minItems": 1}}}
EXPERIMENT["then"] = {"required": ["classic"], "properties": {"classic": {"type": "object"}}}

# The machine's fingerprint (engine/machine.py): text fields, a few numbers, the tools' versions.
MACHINE = obj({"machine_id": TEXT, "cpu_model": nullable(TEXT), "kernel": nullable(TEXT), "libc": nullable(TEXT),
               "os": nullable(TEXT), "arch": nullable(TEXT), "cores": nullable(COUNT),
               "memory_gib": nullable(NONNEGATIVE), "loadavg": nullable(TEXT), "hostname_hash": nullable(TEXT),
               "aslr": nullable(TEXT), "clocksource": nullable(TEXT), "isolated_cpus": nullable(TEXT),
               "nohz_full": nullable(TEXT), "perf_event_paranoid": nullable(TEXT), "python": nullable(TEXT),
               "turbo": {"type": ["string", "boolean", "null"], "maxLength": MAX_TEXT},
               "virtualized": {"type": ["boolean", "null"]}, "governors": nullable(STRINGS),
               "usable_cpus": nullable(array(COUNT, 100_000)), "mitigations": nullable(TEXT_MAP),
               "tools": nullable(TEXT_MAP), "wine": nullable(TEXT)})

DOCUMENT = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://layertax.invalid/schema/layertax-1.json",
    "title": "A layertax result (layertax/1)",
    "$defs": {"chain": CHAIN_NODE, "chain_or_null": nullable(CHAIN_NODE)},
    **obj({
        "schema": {"const": SCHEMA_ID}, "layertax_version": TEXT, "created": TEXT, "command": STRINGS,
        "complete": {"type": "boolean"},
        "settings": SETTINGS,
        "machine": MACHINE, "experiments": array(EXPERIMENT, MAX_EXPERIMENTS),
        "concurrent": nullable(obj({"allowed": {"type": "boolean"},
                                    "others": array(obj({"pid": COUNT, "command": TEXT}))})),
        "fleet": nullable(obj({"id": TEXT, "host": TEXT, "inventory": TEXT})),
    }, required=("schema", "machine", "experiments", "settings")),
}
