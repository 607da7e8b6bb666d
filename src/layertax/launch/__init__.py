"""Everything about timing a process launch, the Python side and the C side (native/): the
timer's settings, its programs (the timer, the stamp libraries, the empty controls), running
it and reading its lines (protocol.py checks each), the one launch-run assembly every
start-up measurement goes through, the stamp's own cost, and the notes on contention, CPU
interruptions and what a launch left running. Used by `launch`, `inspect`, the loadtime
experiment and elf/'s loader views; it builds on the engine and never imports above it."""
