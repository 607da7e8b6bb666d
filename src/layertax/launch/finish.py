"""The end of every command built on the launch timer (`launch`, `inspect`): its result as a
run, and the exit code it ends with. Showing, saving and exporting the run is the command's
(commands/keeping.py), as for every measuring command."""
from __future__ import annotations

from layertax.engine import machine
from layertax.engine.store import results
from layertax.result.model import ExperimentResult, Run


def document(result: ExperimentResult | dict, method: dict) -> Run:
    """The run of one launch-timer result (inspect's is still a saved result's dict): complete
    unless it was interrupted."""
    exp = result if isinstance(result, ExperimentResult) else ExperimentResult.from_json(result)
    envelope = results.new_document(method, machine.fingerprint(), complete=not exp.extra["interrupted"])
    return Run(layertax_version=envelope["layertax_version"], created=envelope["created"],
               command=envelope["command"], complete=envelope["complete"], settings=envelope["settings"],
               machine=envelope["machine"], experiments=[exp])


def exit_code(result: ExperimentResult | dict) -> int:
    """130 if interrupted, 1 if a case failed, else 0."""
    exp = result if isinstance(result, ExperimentResult) else ExperimentResult.from_json(result)
    if exp.extra["interrupted"]:
        return 130
    return 1 if any(c.status == "failed" for c in exp.cases) else 0
