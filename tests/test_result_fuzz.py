"""Mutated results (tests/result_fuzz.py): each is refused where it enters, in one printable
line, or read without an error by every reader a user can reach (the terminal report at two
widths, every export but HTML, compare both ways, the fleet table, the analysis again from
the raw samples). bench/fuzz_results.py runs as many as asked, the HTML report among them."""
from __future__ import annotations

import random
import warnings

import pytest
from result_fuzz import mutate, read_every_way, seeds

SEEDS = seeds()


@pytest.mark.parametrize("seed", range(40))
def test_a_mutated_result_is_refused_or_read_every_way(seed):
    rng = random.Random(seed)
    base = rng.choice(SEEDS)
    doc, what = mutate(base, rng)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)     # an overflow or a division by zero is a finding too
        try:
            read_every_way(doc, base)
        except Exception as e:      # a finding: which mutation, and what it broke
            pytest.fail(f"{what}: {type(e).__name__}: {e}")


def test_the_seeds_are_read_whole():
    """The unmutated seeds pass: a validator that refused everything would pass the test above."""
    assert len(SEEDS) >= 9
    for doc in SEEDS:
        read_every_way(doc, doc, html=False)
