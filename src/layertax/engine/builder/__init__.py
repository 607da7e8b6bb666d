"""Building what is measured: finding toolchains, the ninja build cache, the other languages'
runtimes, and turning an experiment's kernel declarations into commands."""
