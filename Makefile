# Two entry points for a fresh machine: `make demo` and `make test`. Both install when needed.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TORCH_VERSION ?= 2.13.0

.PHONY: install demo test bench bench-generation clean

install: $(STAMP)

$(STAMP): pyproject.toml requirements-nodeps.txt
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==$(TORCH_VERSION)
	$(BIN)/pip install -q -e '.[dev]'
	$(BIN)/pip install -q --no-deps -r requirements-nodeps.txt
	touch $(STAMP)

demo: install
	$(BIN)/grue demo

test: install
	$(BIN)/python -m pytest -q

# grue's PPO and GRPO against TRL on docs/speed.md's settings ("Training speed against TRL", "GRPO against TRL 1.16");
# builds pinned TRL environments in .bench/ once.
bench: install
	$(BIN)/python scripts/bench_vs_trl.py

# Generation's tokens/s against plain generate() and the compute floor (docs/speed.md, "Generation").
bench-generation: install
	$(BIN)/python scripts/bench_generation.py

clean:
	rm -rf $(VENV)
