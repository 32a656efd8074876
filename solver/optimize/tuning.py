"""The search's tuning constants, in one place: each says what it trades (work, time,
proof) and what measured it. Read as ``tuning.NAME`` so a test may set one."""

RANK1_SHARE = 0.6
"""Share of the work budget rank 1 may use (alternatives and the baseline share the rest)."""
WEAK_OPTION = 0.10
"""An alternative (rank 2+) more than this above its own solve's bound is not shown."""
PATTERN_BOUND_SHARE = 0.25
"""Share of the work left that ``_prove_patterns`` may use."""
ALTERNATIVE_GAP = 1e-3
"""Relative gap of an alternative's solve (0.1%): far below one step of its direction for
any plan of under a thousand steps, and its cost is shown, not claimed optimal."""
ALTERNATIVE_WORK = 0.25
"""Each alternative's search checkpoints, all its rounds together, are capped at this
multiple of rank 1's; a solve gets half of what is left (the rest is kept for a packing
round), a first solve begun ahead all of it. A checkpoint of an alternative's search costs
more than one of rank 1's (its objective mixes a count with the cost): on the generated
10-workload mix, 0.3 let --top 3 take 2.28 times --top 1's wall time, 0.25 1.95 times, with
the same options on every shipped file and six generated mixes (its no-consumer-GPUs
search finds its plan at checkpoint 69 of the 70 it now gets; 0.2 ends before, on a plan
2.6% dearer)."""
MIN_ALTERNATIVE_TICKS = 60
"""The cap's floor, for mixes whose rank 1 took almost no search."""
DISK_RETRIES = 3
"""Re-solves of rank 1 allowed when its drives, rounded per server, cost more than the
program's disk rows said (O4): another optimum of the program may pack as they assumed."""
MAX_DUPLICATE_TRIES = 4
"""Solves allowed per requested option when expansions repeat an earlier purchase list."""
