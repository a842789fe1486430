"""Benchmarks for ctxlint (run `python -m benchmarks`; not part of the test suite)."""
