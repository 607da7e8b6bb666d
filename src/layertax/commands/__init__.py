"""One module per command: what `cli.py` calls once it has parsed the options. A command
builds its settings, calls the experiments, inspect, the loader or the engine, and prints
the result; it returns the exit code. Nothing below this package prints a table."""
