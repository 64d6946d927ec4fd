# The README's two commands. Each makes its own virtual environment.
PYTHON ?= python3
DEMO_VENV := .venv-demo
TEST_VENV := .venv-test

# The bytecode frontend (PIJit) reads CPython's bytecode, which differs between 3.11, 3.12 and 3.13: `make test`
# also runs its tests under each of those other interpreters it finds on PATH (pyenv puts them there on the CI
# machines); one that is missing is reported and skipped, never failed.
BYTECODE_PYTHONS ?= 3.12 3.13

.PHONY: demo test lint bench clean test-bytecode-pythons

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

# Two test processes (pytest-xdist): these machines have 2 cores.
test: lint
	$(TEST_VENV)/bin/python -m pytest -n 2 tests
	$(MAKE) --no-print-directory test-bytecode-pythons

test-bytecode-pythons:
	@for v in $(BYTECODE_PYTHONS); do \
	  py=""; for c in python$$v $$HOME/.pyenv/versions/$$v*/bin/python$$v; do \
	    if $$c -c "" >/dev/null 2>&1; then py=$$c; break; fi; done; \
	  if [ -z "$$py" ]; then echo "Python $$v not found: bytecode frontend tests under it skipped"; continue; fi; \
	  venv=.venv-test-$$v; \
	  if [ ! $$venv/.installed -nt pyproject.toml ]; then \
	    $$py -m venv $$venv && $$venv/bin/pip install -q --upgrade pip && \
	    $$venv/bin/pip install -q -e ".[test]" && touch $$venv/.installed || exit 1; fi; \
	  echo "bytecode frontend tests under Python $$v ($$py)"; \
	  $$venv/bin/python -m pytest -q -p no:cacheprovider -n 2 tests/_compiler/frontend/bytecode || exit 1; \
	done

bench: $(TEST_VENV)/.installed
	$(TEST_VENV)/bin/python -m benchmarks

clean:
	rm -rf $(DEMO_VENV) $(TEST_VENV) .venv-test-3.* build *.egg-info
