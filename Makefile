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
# (a quick run several tests read) runs once. No test asserts a timing, so tests side by side
# change no result; TEST_WORKERS=0 runs it in one process.
TEST_WORKERS ?= logical

test: setup
	$(BIN)/python -m pytest --numprocesses $(TEST_WORKERS) --maxprocesses 4 --dist loadfile

setup: system $(STAMP)

system:
	@bash scripts/setup-system.sh

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	@touch $@

clean:
	rm -rf $(VENV) src/*.egg-info
