"""plan-buy: plan the cheapest GPU compute pool for a workload mix.

The library is a pipeline of pure stages passing typed data:
load -> validate -> estimate -> enumerate candidates -> build problem -> solve -> rank -> report.
Only ``solver/build.py`` and ``solver/solve.py`` import PuLP, only ``solver/workbook.py``
imports the Excel writer (XlsxWriter), and only ``cli.py`` imports click.
"""

__version__ = "0.1.0"
