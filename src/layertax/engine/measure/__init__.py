"""Measuring: the settings of a run, the interleaving scheduler, the kernel protocol, and the
difference methods (system calls under strace, instructions under callgrind)."""
