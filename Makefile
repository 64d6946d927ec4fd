# The README's two commands. Each makes its own virtual environment.
PYTHON ?= python3
DEMO_VENV := .venv-demo
TEST_VENV := .venv-test

.PHONY: demo test lint bench clean

$(DEMO_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(DEMO_VENV)
	$(DEMO_VENV)/bin/pip install -q --upgrade pip
	$(DEMO_VENV)/bin/pip install -q -e ".[demo]"
	touch $@

$(TEST_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(TEST_VENV)
	$(TEST_VENV)/bin/pip install -q --upgrade pip
	$(TEST_VENV)/bin/pip install -q -e ".[test,demo]"
	touch $@

demo: $(DEMO_VENV)/.installed
	$(DEMO_VENV)/bin/python -m kiln demo

lint: $(TEST_VENV)/.installed
	$(TEST_VENV)/bin/ruff check kiln tests benchmarks
	$(TEST_VENV)/bin/ruff format --check kiln tests benchmarks

test: lint
	$(TEST_VENV)/bin/python -m pytest tests

bench: $(TEST_VENV)/.installed
	$(TEST_VENV)/bin/python -m benchmarks

clean:
	rm -rf $(DEMO_VENV) $(TEST_VENV) build *.egg-info
