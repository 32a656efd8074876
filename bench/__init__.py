"""Benchmarks for plan-buy: seeded instance generator, runner, exact cross-check."""
