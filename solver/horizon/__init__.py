"""Plans over time (H1–H6): finite runs with windows, servers shared in time, rented GPUs.

Modules:
    runs      the horizon in hours and every run of the mix (H1, H2), the period grid
    fleet     servers for runs: configurations and how many replicas of a run one holds
    options   the ways one run can be done: on bought servers or rented GPUs (H3, H5)
    program   the run program's rows (H3 one way per run, H4 servers per period, H5 rent
              caps) and its objective (H6)
    schedule  the concrete schedule: windows and server ids (H3), GPU use over time
    plan      the time plan around the purchase pipeline: split, solve, join, check
"""
