"""encoding's throughput table: GB/s of UTF-8 text per converter, kind and size,
with memcpy of the same bytes (measured in the same rounds) as the ceiling."""
from __future__ import annotations

from layertax.engine.analysis import analyze, stats

SIZE_LABELS = {"16": "16 B", "256": "256 B", "64k": "64 KiB", "16m": "16 MiB"}


def gbps(case: dict | None) -> float | None:
    """GB/s of the case's text: bytes per op over the median ns per op (bytes/ns = GB/s)."""
    if not case or not case.get("stats") or not (case.get("descriptor") or {}).get("bytes_per_op"):
        return None
    return case["descriptor"]["bytes_per_op"] / case["stats"]["median"]


def throughput_table(result: dict, converters: tuple[str, ...], kinds: tuple[str, ...], sizes: tuple[str, ...]) -> dict:
    by_name = {c["name"]: c for c in result["cases"]}
    rows = []
    for conv in converters:
        for kind in kinds:
            cells, seen = [], False
            for size in sizes:
                case = by_name.get(f"tp-{conv}-{kind}-{size}")
                rate, ceiling = gbps(case), gbps(by_name.get(f"tp-memcpy-{kind}-{size}"))
                if rate is None:
                    cells.append(None)
                    continue
                seen = True
                cells.append(analyze.rate_figure(case["descriptor"]["bytes_per_op"], case["stats"],
                                                 stats.precision_target(result),
                                                 rate / ceiling if ceiling and conv != "memcpy" else None))
            if seen:
                rows.append([conv, kind, *cells])
    return {
        "title": "transcoding throughput: GB/s of UTF-8 text (share of memcpy of the same bytes)",
        "columns": ["converter", "text", *(SIZE_LABELS[s] for s in sizes)],
        "units": [None, None, *("rate" for _ in sizes)], "rows": rows,
        "notes": ["every row counts the text's UTF-8 bytes, whichever side the conversion starts from; "
                  "each output is converted back and compared (a round trip)",
                  "memcpy is the ceiling measured in the same rounds; ~ marks a rate whose 95% interval is "
                  "wider than the precision target"],
    }


def experiment_tables(result: dict) -> list[dict]:
    """encoding's tables hook: the throughput matrix over every converter, kind and size."""
    from layertax.experiments.encoding import C_CONVERTERS, KINDS, PY_CONVERTERS, SIZES

    return [throughput_table(result, C_CONVERTERS + PY_CONVERTERS, KINDS, SIZES)]
