"""The iteration count a run keeps after its first burst (engine/measure/calibration.py).

Synthetic samples only: the rule, never a timing."""
from layertax.engine.measure.calibration import settled_iters

MS = 1_000_000


def _burst(iters: int, ns_per_iter: list[float]) -> list[dict]:
    return [{"iters": iters, "ns": round(iters * t), "ops": iters} for t in ns_per_iter]


def test_a_count_calibrated_on_a_cold_start_is_raised_to_fill_a_sample_of_the_compiled_code():
    # A Java kernel's harness calibrated 9 iterations on its interpreted first sample (110 us
    # each); fifteen samples later its compiled code takes 13 us an iteration.
    burst = _burst(9, [110_000, 60_000, 30_000] + [13_000] * 12)
    iters = settled_iters(burst, MS)
    assert iters == 77                                  # ceil(1 ms / 13 us)
    assert iters * 13_000 >= MS


def test_a_count_that_already_fills_every_sample_is_kept():
    burst = _burst(150, [7_000, 6_900, 7_100])          # every sample over 1 ms
    assert settled_iters(burst, MS) == 150


def test_the_count_is_never_lowered():
    # A slow burst after a fast calibration: the harness's count stands.
    assert settled_iters(_burst(300, [9_000, 9_500]), MS) == 300


def test_samples_without_a_time_leave_the_harness_count():
    assert settled_iters([{"iters": 40, "ns": 0, "ops": 40}], MS) == 40
    assert settled_iters(_burst(5, [1_000]), 0) == 5
