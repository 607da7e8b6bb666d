"""From samples to statistics, on plain result data: medians and their intervals, ratios paired
per round, noise warnings, and the comparison of two runs. Pure functions: reports may use them."""
