"""Everything about process start-up and the dynamic loader: the launch timer's driver and the one
launch-run assembly every start-up measurement goes through, glibc's LD_DEBUG views, the ELF reader,
the library search, the cost model and the loader's phases under callgrind. Used by `launch`,
`inspect` and the loadtime experiment; it builds on the engine and never imports above it."""
