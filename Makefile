# Two commands on a fresh machine: `make train` and `make test`.
# Both create .venv and install from requirements.lock (torch pinned to the 2.13.0 CPU build).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# RLlib pins gymnasium 1.2.2 (the main lock has 1.4.0): it gets a venv of its own (requirements-rllib.lock).
RLLIB_VENV := .venv-rllib
RLLIB_STAMP := $(RLLIB_VENV)/.installed

.PHONY: setup setup-rllib train test test-slow chromium lint typecheck bench sizes docs clean

$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

setup: $(STAMP)

$(RLLIB_STAMP): requirements-rllib.lock pyproject.toml
	test -x $(RLLIB_VENV)/bin/python || $(PY) -m venv $(RLLIB_VENV)
	$(RLLIB_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(RLLIB_VENV)/bin/python -m pip install --quiet -r requirements-rllib.lock
	$(RLLIB_VENV)/bin/python -m pip install --quiet --no-deps -e .
	touch $(RLLIB_STAMP)

setup-rllib: $(RLLIB_STAMP)

train: $(STAMP)
	$(BIN)/python -m train.ppo

test: $(STAMP) typecheck
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -n 2 -m "not slow"

# Tests marked slow (over ~20 s each on 2 cores: RL Zoo runs, Ray, RLlib); .ci/run calls this after
# `make test`. The Ray tests share one xdist group (one local Ray at a time).
test-slow: $(STAMP) $(RLLIB_STAMP) chromium
	$(BIN)/python -m pytest -n 2 -m slow --dist loadgroup

# Debian's chromium and chromium-driver for the browser test of the arena (tests/web/test_browser.py); where
# apt-get is missing or fails the test skips and says why.
chromium:
	@test -x /usr/bin/chromium -a -x /usr/bin/chromedriver || \
		{ command -v apt-get >/dev/null && apt-get update -q && apt-get install -y -q chromium chromium-driver; } || \
		echo "chromium could not be installed: the browser test will skip"

lint: $(STAMP) typecheck
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# mypy over zanzibar_env (agents/ and train/ through the links zanzibar_env/agents and zanzibar_env/train),
# benchmarks/ and experiments/; basedpyright resolves every import of the same tree (pyproject.toml).
typecheck: $(STAMP)
	$(BIN)/mypy -p zanzibar_env -p benchmarks -p experiments
	$(BIN)/basedpyright --level error

bench: $(STAMP)
	$(BIN)/python -m benchmarks.engine
	$(BIN)/python -m benchmarks.env_speed
	$(BIN)/python -m benchmarks.solver_speed
	OMP_NUM_THREADS=1 $(BIN)/python -m benchmarks.game_solver_speed
	$(BIN)/python -m benchmarks.tournament_speed
	$(BIN)/python -m benchmarks.train_speed

# The documentation site (mkdocs-material, API pages from the docstrings) in site/; warnings fail it.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

sizes: $(STAMP)
	$(BIN)/python -m benchmarks.install_size

clean:
	rm -rf $(VENV) $(RLLIB_VENV) .pytest_cache .mypy_cache .ruff_cache site
