"""The run program (H3–H6): finite runs on servers shared in time, or on rented GPUs.

Modules:
    fleet     servers for runs: configurations and how many replicas of a run one holds
    options   the ways one run can be done: on bought servers or rented GPUs (H3, H5)
    program   the run program's rows (H3 one way per run, H4 servers per period, H5 rent
              caps) and its objective (H6)
    schedule  the concrete schedule: windows and server ids (H3), GPU use over time
    ways      every way of every run, the program's input
    solve     solving the run program, reading back the choice
    plan      the time plan around the purchase pipeline: split, solve, join, rank
"""
