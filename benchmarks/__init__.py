"""Kiln's benchmarks: `python -m benchmarks [name ...]` runs `benchmarks/bench_<name>.py` (all by default)."""
