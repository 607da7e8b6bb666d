# Two entry points: `make run` (the main job) and `make test` (the whole suite).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test setup system clean

# make run leaves its results here: the JSON of its two runs (timed; callchain's instruction
# counts) and report.html, which shows both.
OUT    ?= layertax-results

run: setup
	@bash scripts/run-all.sh $(BIN) $(OUT)

# The suite on every logical CPU up to four (pytest-xdist), a test file a worker: a file's shared fixture
# (a quick run several tests read) runs once. Files go out in the order tests/conftest.py gives
# (the longest first), not pytest-xdist's (most tests first). No test asserts a timing, so tests
# side by side change no result; TEST_WORKERS=0 runs it in one process.
TEST_WORKERS ?= logical

test: setup
	$(BIN)/python -m pytest --numprocesses $(TEST_WORKERS) --maxprocesses 4 --dist loadfile --no-loadscope-reorder

# Bytecode for the sources written once here: an environment with PYTHONDONTWRITEBYTECODE set
# (CI images often do) otherwise compiles every module at each of the CLI's starts, a quarter
# of `layertax --help`'s time. compileall rewrites only what changed.
setup: system $(STAMP)
	@$(BIN)/python -m compileall -q src

system:
	@bash scripts/setup-system.sh

# pip compiles what it installs one file at a time; compileall does it on every CPU, and leaves
# out the dependencies' own test suites, which nothing here imports.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --no-compile -e ".[dev]"
	$(BIN)/python -m compileall -q -j 0 -x '/tests?/' $(VENV)/lib
	@touch $@

clean:
	rm -rf $(VENV) src/*.egg-info
