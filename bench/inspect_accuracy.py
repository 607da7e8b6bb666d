"""How well `layertax inspect` predicts and splits start-up, on the generated loadtime variants.

For each variant of Pietrek's program (10 libraries x 100 exports x 5 relocations),
runs inspect and prints, as Markdown: the loader time predicted from the static
counts by the saved loadtime-sweep model, calibrated on the day by the reference
program measured in the same rounds (and without that calibration), vs the
measured one (spawn->first constructor minus the empty program's, paired per
round), and the split's sum vs the measured spawn->main. Usage: python bench/inspect_accuracy.py [--runs N]
"""
from __future__ import annotations

import argparse

from layertax import paths
from layertax.launch import settings as launch_settings
from layertax.programs import generate, variants
from layertax.programs.build import build_variants
from layertax.inspect.run import inspect
from layertax.progress import NoProgress

NAMES = ["default", "now", "symbolic", "hidden", "relr", "gnu-hash", "sysv-hash", "nopie", "ld-gold", "ld-lld", "ld-mold"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    tree, _ = build_variants(generate.Shape(), [variants.by_name(n) for n in NAMES], paths.cache_dir())
    settings = launch_settings.LaunchSettings(runs=args.runs, warmup=1, cpu=None, seed=7)
    print("| variant | predicted loader | measured loader | error | uncalibrated error | calibration | split sum "
          "| spawn->main | split error |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in NAMES:
        program = tree / variants.by_name(name).program()
        if not program.is_file():
            continue
        r = inspect(str(program), [], settings, None, True, NoProgress, lambda m: None)
        row = next(x for x in r["prediction"]["rows"] if x["variant"] == "lazy")
        sp = r["split"]["lazy"]
        cal = r["prediction"].get("calibration")
        raw = row["predicted_uncalibrated_ns"] / row["measured_ns"] - 1
        print(f"| {name} | {row['predicted_ns'] / 1e3:.0f} us | {row['measured_ns'] / 1e3:.0f} us | {row['error']:+.0%} "
              f"| {raw:+.0%} | {'x%.2f' % cal['factor'] if cal else '-'} "
              f"| {sp['sum_ns'] / 1e3:.0f} us | {sp['measured_main_ns'] / 1e3:.0f} us | {sp['error']:+.1%} |", flush=True)


if __name__ == "__main__":
    main()
