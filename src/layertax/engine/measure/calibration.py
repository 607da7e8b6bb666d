"""The iteration count a case's samples use for the rest of a run.

A harness calibrates its iteration count once, at the start of its process, until one sample
lasts at least --min-sample-ns; the engine then passes the first burst's count to every later
process with --iters, so every round times the same work. Where a runtime compiles while it
runs (Java, Node), the start of a process is its slowest moment: a Java rename kernel
calibrated to 1 ms samples on its first, interpreted, sample took 9 iterations where its
compiled code needs about 80. The whole run then timed samples of a tenth of the intended
length, and its ratio moved with that chance count: 1.34x against 1.20-1.24x in runs that got
60-115 (`layertax run callchain --case 'java-files-move*' --runs 12`, run after run on the
2-vCPU VM). So the count kept is at least what the burst's fastest iterations need to fill a
sample.
"""
from __future__ import annotations

import math


def settled_iters(samples: list[dict], min_sample_ns: int) -> int:
    """The iteration count for the rounds after this burst: the harness's own count (its first
    sample's), raised where the burst's fastest sample, per iteration, would fill less than
    min_sample_ns with it."""
    first = int(samples[0]["iters"])
    ns_per_iter = [s["ns"] / s["iters"] for s in samples if s.get("iters", 0) > 0 and s.get("ns", 0) > 0]
    if not ns_per_iter or min_sample_ns <= 0:
        return first
    return max(first, math.ceil(min_sample_ns / min(ns_per_iter)))
