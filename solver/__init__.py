"""plan-buy: plan the cheapest GPU compute pool for a workload mix.

The library is a pipeline of pure stages passing typed data, one sub-package per stage:

    inputs/    load and validate the catalog and the workload mix (pydantic models, presets)
    estimate/  one replica on one GPU SKU and parallel degree: memory, batch, throughput
    optimize/  candidates, the integer program, solve, expansion to servers, ranking
    report/    tables, the terminal summary and the Excel workbook
    sweep/     scenarios: copies of the input with overrides, solved and tabulated

``check/`` (the independent plan checker, one module per rule family), ``rules/`` (each
rule's shared arithmetic and the registry of every rule), ``plan_types.py`` and
``result.py`` (what a plan and a run's result are), ``errors.py`` (the exception family)
and ``interrupt.py`` (how Ctrl-C and SIGTERM stop a run and what they clean up) sit at the
top. Only ``optimize/`` imports PuLP, only ``report/workbook/`` imports the Excel writer
(XlsxWriter), and only ``cli.py`` imports click; ``tests/test_layout.py`` keeps it so.
"""

__version__ = "0.1.0"
