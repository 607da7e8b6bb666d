"""The few distribution functions the analysis needs, from scipy.special: the functions
scipy.stats' distributions call themselves (norm.cdf is ndtr, norm.isf is -ndtri, t.ppf is
stdtrit, chi2.sf is chdtrc, binom.cdf is the regularised incomplete beta), without loading
scipy.stats. That module takes over a second to import on a 2-vCPU VM (`python -X importtime
-c "import scipy.stats"`), once in every command that analyses (run, compare, launch,
inspect); scipy.special, a fraction of that. tests/test_rank_tests.py checks each against
scipy.stats.

Imported inside each function, as scipy is everywhere here (tests/test_architecture.py): at a
module's top it would hold back a command's first measurement."""
from __future__ import annotations


def normal_cdf(x: float) -> float:
    from scipy import special

    return float(special.ndtr(x))


def normal_sf(x: float) -> float:
    """1 - cdf(x), without the cancellation of computing it so far in the upper tail."""
    from scipy import special

    return float(special.ndtr(-x))


def normal_isf(q: float) -> float:
    """The x with sf(x) = q."""
    from scipy import special

    return float(-special.ndtri(q))


def binomial_half_cdf(k: int, n: int) -> float:
    """P(X <= k) for X binomial with n trials of probability 1/2 (a sign test's count)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    from scipy import special

    return float(special.betainc(n - k, k + 1, 0.5))


def chi2_sf(x: float, dof: int) -> float:
    from scipy import special

    return float(special.chdtrc(dof, x))


def t_ppf(q: float, dof: float) -> float:
    from scipy import special

    return float(special.stdtrit(dof, q))
