"""The JSON export: the result document itself, exactly as a saved run holds it."""
from __future__ import annotations

from layertax.engine.store import results


def to_json(doc: dict) -> str:
    return results.dumps(doc)
