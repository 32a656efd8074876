"""The horizon of a plan over time (H1, H2): hours from its start, every run of the mix and
the period grid. Input interpretation only; the run program is ``solver/optimize/runs/``."""
