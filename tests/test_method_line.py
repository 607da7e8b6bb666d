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


def test_a_launch_prints_its_brief_method_first_and_the_whole_one_with_verbose():
    """launch's and inspect's method is a paragraph (primers, tick dodging, the fork): without
    --verbose its brief stands in, so the answer is not behind five lines of method."""
    import io

    from rich.console import Console

    from layertax.launch.settings import LaunchSettings
    from layertax.report import terminal

    settings = LaunchSettings(runs=100, warmup=1, warmup_time=0.25, seed=3, cpu=1, timeout=10.0).method("command")
    assert settings["method_brief"] == "100 launches per command, commands alternating in shuffled rounds, cpu 1"
    doc = {"machine": {"cpu_model": "cpu", "cores": 2, "kernel": "6.1", "libc": "glibc 2.36"},
           "settings": settings, "experiments": []}
    for verbose, expected in ((False, f"method: {settings['method_brief']} (--verbose: the whole method)"),
                              (True, f"method: {settings['method']}")):
        out = io.StringIO()
        terminal.render(doc, Console(file=out, width=400, no_color=True), verbose=verbose)
        assert out.getvalue().splitlines()[1].startswith(expected)
