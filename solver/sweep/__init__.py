"""Scenario sweeps: copies of the input with overrides, solved and tabulated."""
