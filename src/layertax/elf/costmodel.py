"""A linear cost model of start-up: ns per relocation, per symbol lookup, per library, per page
fault, and per SysV-hashed object a lookup searches (a chain walk where a GNU table's Bloom
filter would have said no).

Ordinary least squares with an intercept (exec, libc and everything that does
not grow with the program), fitted to what the user waits for: the median
spawn->main of each (variant, size) point. Each slope comes with a 95%
interval from its standard error and Student's t; a slope the points cannot
tell apart from the others (collinear regressors) is reported as such
instead of as a number.
"""
from __future__ import annotations

import numpy as np

from layertax.engine.analysis import distributions

REGRESSORS = ("relative_relocations", "symbol_lookups", "libraries", "page_faults", "sysv_probes")


def fit(points: list[dict], response: str = "spawn_to_main_ns", regressors=REGRESSORS) -> dict:
    """points: dicts holding the response and every regressor. Returns the model as plain data."""
    n, k = len(points), len(regressors) + 1
    if n == 0:
        return {"status": "failed", "reason": "no points to fit"}
    y = np.array([p[response] for p in points], dtype=float)
    # A regressor a point lacks (a sweep saved before it existed) is 0 there: the same as
    # a point that never exercised it.
    X = np.column_stack([np.ones(n)] + [np.array([p.get(r, 0) for p in points], dtype=float) for r in regressors])
    # Drop regressors that never vary (e.g. libraries when only relocs are swept).
    varying = [0] + [j for j in range(1, k) if np.ptp(X[:, j]) > 0]
    Xv = X[:, varying]
    rank = np.linalg.matrix_rank(Xv)
    model = {"response": response, "n_points": n, "regressors": list(regressors), "coefficients": {}}
    if rank < len(varying):
        model.update(status="degenerate", reason=f"the points do not separate the regressors (rank {rank} < "
                     f"{len(varying)}): vary more than one dimension, or use more variants")
    if n <= len(varying):
        model.update(status="underdetermined", reason=f"{n} points for {len(varying)} unknowns: add points")
        return model
    beta, *_ = np.linalg.lstsq(Xv, y, rcond=None)
    fitted = Xv @ beta
    resid = y - fitted
    dof = n - rank
    ss_res = float(resid @ resid)
    ss_tot = float(((y - y.mean()) ** 2).sum())
    sigma2 = ss_res / dof if dof > 0 else float("nan")
    cov = sigma2 * np.linalg.pinv(Xv.T @ Xv)
    t = distributions.t_ppf(0.975, dof) if dof > 0 else float("nan")
    names = ["intercept", *regressors]
    for col, j in enumerate(varying):
        se = float(np.sqrt(max(cov[col, col], 0.0)))
        model["coefficients"][names[j]] = {"ns_per_unit": float(beta[col]), "se": se,
                                           "ci95": [float(beta[col] - t * se), float(beta[col] + t * se)]}
    for j in range(1, k):
        if j not in varying:
            model["coefficients"][names[j]] = None  # did not vary: not estimable from these points
    model["r2"] = 1 - ss_res / ss_tot if ss_tot > 0 else None
    model["residual_sd_ns"] = float(np.sqrt(sigma2)) if dof > 0 else None
    model.setdefault("status", "ok")
    return model


def predict(model: dict, counts: dict) -> float | None:
    """The model's spawn->main for an object set with these counts (None if a needed slope is missing)."""
    coefs = model.get("coefficients") or {}
    if not coefs.get("intercept"):
        return None
    total = coefs["intercept"]["ns_per_unit"]
    for r in model["regressors"]:
        c = coefs.get(r)
        if c is None:
            if counts.get(r):
                return None
            continue
        total += c["ns_per_unit"] * counts.get(r, 0)
    return total
