"""Every number in a result's nested dicts and lists: for checks such as "no time is negative"."""
from __future__ import annotations


def numbers_in(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from numbers_in(v)
    elif isinstance(value, list):
        for v in value:
            yield from numbers_in(v)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield value
