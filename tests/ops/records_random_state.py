"""Op-table rows for random and state ops: none (random draws and in-place updates have no
deterministic NumPy reference; tests/ops/test_random.py and test_state.py cover them)."""

RECORDS: list = []
