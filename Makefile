# Set-up and main jobs. `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test test-slow test-all test-floor test-browser test-install wheel lint bench docs install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The CPU build of torch goes in first, so that nothing pulls a multi-gigabyte GPU build; the
# [dev] extra includes [train] (torch, Stable-Baselines3, TensorBoard) and [play]: the full environment.
$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/splitpoker train configs/quickstart.yaml

test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2

# the slow tests include the Ray backend and outside RL tools, so they install the [ray],
# [ecosystem] and [rllib] extras (RLlib pins gymnasium, to 1.2.2); they include test-install's
# clean install of the wheel
test-slow: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[dev,ray,ecosystem,rllib]"
	$(BIN)/python -m pytest -q -n 2 -m slow

test-all: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[dev,ray,ecosystem,rllib]"
	$(BIN)/python -m pytest -q -n 2 -m "slow or not slow"

# the wheel built from this tree, installed (not editable) in a fresh venv in a temporary
# folder, runs every subcommand (tests/test_install.py; about two minutes, part of test-slow)
test-install: $(STAMP)
	$(BIN)/python -m pytest -q -p no:xdist -m slow tests/test_install.py

# the wheel, in dist/ (what tests/test_install.py builds and installs)
wheel: $(STAMP)
	$(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir dist .

# browser play in headless Chromium (Debian: apt-get install chromium chromium-driver);
# screenshots go to artifacts/
test-browser: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[dev,browser]"
	SPLITPOKER_BROWSER_REQUIRED=1 $(BIN)/python -m pytest -q -p no:xdist -m browser

# the oldest NumPy and numba that pyproject.toml allows, on the rules, solver and split tests
FLOOR := .venv-floor
test-floor:
	$(PYTHON) -m venv $(FLOOR)
	$(FLOOR)/bin/python -m pip install --quiet "numpy==2.0.*" "numba==0.60.*" pyyaml rich pytest hypothesis
	$(FLOOR)/bin/python -m pip install --quiet --no-deps -e .
	$(FLOOR)/bin/python -m pytest -q -p no:xdist tests/test_cards.py tests/test_splits.py \
		tests/test_thirteen_rules.py tests/test_biji_rules.py tests/test_vectors.py tests/test_solver.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/splitpoker bench

# the documentation site (mkdocs.yml, docs/), built into site/ with warnings as errors; it
# installs the [docs] extra (MkDocs, mkdocstrings)
docs: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[dev,docs]"
	$(BIN)/mkdocs build --strict

clean:
	rm -rf $(VENV) $(FLOOR) build dist *.egg-info .pytest_cache .ruff_cache .mypy_cache artifacts
