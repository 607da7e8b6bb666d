"""The run's method line says how the figures under it were measured, an experiment's own
burst and sample time included (callchain's fifteen samples of 1 ms)."""
from layertax.report import format as fmt

RUN = {"runs": 40, "burst": 3, "warmup": 1, "min_sample_ns": 5_000_000, "seed": 7, "cpu": 1,
       "baseline_bursts": 2}


def test_one_experiment_with_its_own_settings_has_them_in_the_line():
    line = fmt.settings_line(RUN, [{"name": "callchain", "settings": {"burst": 15, "min_sample_ns": 1_000_000}}])
    assert "40 rounds x 15 samples" in line and "samples >= 1.00 ms" in line and "5.00 ms" not in line


def test_several_experiments_name_those_with_their_own():
    experiments = [{"name": "callchain", "settings": {"burst": 15, "min_sample_ns": 1_000_000}},
                   {"name": "loadtime", "settings": None},
                   {"name": "tls", "settings": {"min_sample_ns": 20_000_000, "options": {"x": 1}}}]
    line = fmt.settings_line(RUN, experiments)
    assert "x 3 samples" in line and line.endswith("; callchain, tls with their own (--verbose)")
    assert fmt.settings_line(RUN, experiments[1:2]) == fmt.settings_line(RUN)    # none of its own
    assert fmt.own_settings_line(experiments[2]) == "this experiment ran with min sample ns = 20000000"
