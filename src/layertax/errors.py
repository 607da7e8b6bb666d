"""The two kinds of error the CLI turns into one line and an exit code."""


class LayertaxError(Exception):
    """Something failed (a build, a kernel, the disk): exit code 1."""

    exit_code = 1


class UsageError(LayertaxError):
    """The user asked for something that cannot be done as asked: exit code 2."""

    exit_code = 2
