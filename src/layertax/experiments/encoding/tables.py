"""encoding's throughput table: GB/s of UTF-8 text per converter, kind and size,
with memcpy of the same bytes (measured in the same rounds) as the ceiling."""
from __future__ import annotations

from layertax.engine.analysis import stats

SIZE_LABELS = {"16": "16 B", "256": "256 B", "64k": "64 KiB", "16m": "16 MiB"}


def gbps(case: dict | None) -> float | None:
    """GB/s of the case's text: bytes per op over the median ns per op (bytes/ns = GB/s)."""
    if not case or not case.get("stats") or not (case.get("descriptor") or {}).get("bytes_per_op"):
        return None
    return case["descriptor"]["bytes_per_op"] / case["stats"]["median"]


def rate_figure(case: dict, rate: float, of_ceiling: float | None, target: float) -> dict:
    """A cell of the matrix as numbers: GB/s with its interval (the bytes over the ends of the
    time's), its share of memcpy's, and the precision target its "~" is judged by."""
    lo_ns, hi_ns = case["stats"]["ci95"]
    size = case["descriptor"]["bytes_per_op"]
    interval = [size / hi_ns, size / lo_ns] if lo_ns > 0 else [rate, rate]
    return {"median": rate, "ci95": interval, "of_ceiling": of_ceiling, "target": target}


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
                cells.append(rate_figure(case, rate, rate / ceiling if ceiling and conv != "memcpy" else None,
                                         stats.precision_target(result)))
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
