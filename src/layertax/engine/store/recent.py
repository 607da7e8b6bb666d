"""This machine's recent runs of an experiment that measured it the way this run did: what
engine/analysis/between_runs.py sets a run's ratios beside.

The same way: the same code (the digest engine/measuring_code.py saves with each experiment, of
the engine, the harnesses, the launch timer and the experiment's own package: a change that
could move a ratio changes it, a commit that changes only the docs or the reports does not), the
same metric, sample length, burst and warm-up, for the whole run and for the experiment. An
experiment saved without the digest (by an older layertax) is matched by layertax's version
alone. A run measured beside another layertax, or whose experiment ran while something outside
it took the CPUs (its own warnings say so), is left out: it describes a disturbed moment, and a
ratio that moved only there would be marked in every run after it.

The candidates are chosen on the history's index before any run is read (reading a saved run,
validating it whole, takes about a second for a default run): rows of this version, and rows
whose index names the experiment with this code (history schema 3; rows filed before it name
none and are found by their version).
"""
from __future__ import annotations

# How many of the newest runs with the experiment are looked at, at most, to find comparable ones.
LOOK_BACK = 20
_RUN_SETTINGS = ("metric", "quick", "min_sample_ns", "burst", "warmup", "baseline_bursts", "jit_settle_ns")


def way(doc: dict, exp: dict) -> tuple:
    """What must match for two runs' ratios of an experiment to be set side by side."""
    settings = doc.get("settings") or {}
    code = ("code", exp["code"]) if exp.get("code") else ("version", doc.get("layertax_version"))
    return (code, tuple(settings.get(k) for k in _RUN_SETTINGS), tuple(sorted((exp.get("settings") or {}).items())))


def _disturbed(doc: dict, exp: dict) -> bool:
    beside = (doc.get("concurrent") or {}).get("others")
    return bool(beside) or bool(exp.get("warnings")) or bool(exp.get("interrupted"))


class Recent:
    """Earlier runs on one machine, read from the history as they are needed and kept for every
    experiment of the run. Reading never stops a run: a history that cannot be read gives none."""

    def __init__(self, machine_id: str | None, version: str | None, want: int):
        self.machine_id, self.version, self.want = machine_id, version, want
        self._rows: dict[str, list[dict]] = {}
        self._docs: dict[int, dict | None] = {}

    def _rows_with(self, name: str, code: str | None) -> list[dict]:
        """Of the newest LOOK_BACK runs here with the experiment, those of this layertax or whose
        index names the experiment measured by this code."""
        if name not in self._rows:
            from layertax.engine.store import history
            try:
                rows = history.runs(machine_id=self.machine_id, experiment=name, limit=LOOK_BACK) \
                    if self.machine_id else []
            except Exception:   # noqa: BLE001 - no usable history: nothing to compare with
                rows = []
            named = f"{name}={code}" if code else None
            self._rows[name] = [r for r in rows if r.get("version") == self.version
                                or (named is not None and named in (r.get("codes") or "").split(","))]
        return self._rows[name]

    def _doc(self, row: dict) -> dict | None:
        if row["id"] not in self._docs:
            from layertax.engine.store import history
            try:
                self._docs[row["id"]] = history.load(row)
            except Exception:   # noqa: BLE001 - a moved or damaged file: the others may do
                self._docs[row["id"]] = None
        return self._docs[row["id"]]

    def experiments(self, doc: dict, exp: dict) -> list[dict]:
        """The experiment as saved by up to `want` earlier runs that measured it as doc did,
        newest first."""
        found = []
        for row in self._rows_with(exp["name"], exp.get("code")):
            other = self._doc(row)
            same = next((e for e in (other or {}).get("experiments", []) if e["name"] == exp["name"]), None)
            if same is not None and way(other, same) == way(doc, exp) and not _disturbed(other, same):
                found.append(same)
                if len(found) == self.want:
                    break
        return found
