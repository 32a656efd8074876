"""The search's tuning constants, in one place: each says what it trades (work, time,
proof) and what measured it. Read as ``tuning.NAME`` so a test may set one."""


# -- The plan's stages (``pipeline.py``, ``near_optimal.py``, ``mixes.py``) --
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


# -- How --time-limit is spent (``budget.py``): the work calibration and the clock's reserves. --
TICKS_PER_SECOND_AT_1000_ROWS = 25.0
"""Calibration (2-core VM, HiGHS 1.16, one thread): search checkpoints per second on a program
of 1,000 rows. Measured: ~180/s at 370 rows (q3) and ~7/s on the N = 200 generated mix, so
this stays below both, and the work budget, not the clock, usually ends a solve. At 5/s q3
under --time-limit 10 got 26 checkpoints for its packing round, stopped at a plan 26% above
the optimum; at 25/s it is proven optimal from --time-limit 5 on."""
TICK_SIZE_EXPONENT = 1.2
"""How fast checkpoints per second fall as the program grows (rows^-1.2): larger keeps a
big program's work budget, and so its search, shorter under the same time limit."""
POST_SOLVE_S = 0.3
"""Seconds kept after the last solve for expansion and checks (plus per-replica time)."""
POST_SOLVE_PER_REPLICA_S = 4e-4
"""... plus this many seconds per replica: more keeps the limit on large mixes, at the cost
of search time."""
CLOCK_MARGIN = 0.8
"""A solve's clock limit is this share of the seconds left: HiGHS finishes a running
heuristic before it looks at the clock (overshoots of 1-2 s were measured at N = 200)."""
MIN_SOLVE_S = 0.5
"""A new solve (another rank, round or the baseline) is not started with less than this."""
START_SHARE = 0.5
"""... nor with less than this share of the longest solve so far: HiGHS reads its clock only
once its root is done, and the root of another solve of the same program takes about as
long (on a generated 200-workload mix under --time-limit 30 and without a workbook, an
alternative started with 2.3 s left ran 12 s on a 1.9 s limit, after a first solve of 9.7 s;
the run took 38 s)."""
ROOT_LP_TIMES = 18
"""... nor, for a solve of the whole program, with less than this many times its longest LP
relaxation so far: HiGHS's root (presolve, the LP, its first cut rounds and the analytic
centre) reads no clock, and on large programs it outlasts every solve before it, which
held most decisions. On the generated 1,000-workload mix (LP 2.3-2.8 s) the root ran 33-46
s whatever its limit, and rank 1's last solve, started with 26-44 s left, ended the run at
126-140 s under --time-limit 120; at N = 200 (LP 0.6 s) it ran 5 s."""


# -- One solve (``engines.py``): when HiGHS's heuristics and pattern searches run. --
BEAT_START_TICKS = 3
"""With ``beat_start``, the most work ticks (times the limit) a solve holding only its start
may run before the limit ends it (a cold solve runs until its first plan, however long)."""
SUB_MIP_MAX_ROWS = 5000
"""HiGHS's sub-MIP heuristics (RINS and RENS) run on programs up to this many rows
(``Model.size``, the disk rows not counted); larger ones are searched without them. HiGHS
reads its clock and calls back only between heuristics, and a sub-MIP of a large program
runs as long as it takes: on the generated 1,000-workload mix (7,358 rows) two of them ran
22 s and 30 s in rank 1's last solve, which then ended 25 s past its 54 s limit, the run at
127 s under --time-limit 120, and the plan they found cost ten times the one in hand. At
400 workloads (3,000 rows) they still find rank 1's plan within its limit."""
PATTERN_LP_ROUNDS = 40
"""Patterns priced, at most, for one type's pattern-LP cut (``pattern_cut_weights``)."""
PATTERN_SEARCH_NODES = 200_000
"""Nodes the knapsack that prices (and finally checks) one cut's weights may visit."""


# -- The packing rounds (``rounds.py``): cuts, loose gaps, patterns and the rounded root plans. --
MAX_CUT_ROUNDS = 8
"""Re-solves allowed per option after a packing failure, each with new valid cuts."""
LOOSE_GAP = 5e-3
"""Relative gap of the solves that may still fail to pack (0.5%): they only need to show
which server types to tighten, so proving their optimum would waste the time budget."""
LOOSE_MIN_ROWS = 600
"""Programs of at most this many rows (without the disk rows: every shipped file) are solved
to the gap from the first round. On q3 the loose solve took 0.30 s and the solve closing its
gap 0.11 s more; one solve to the gap takes 0.32 s."""
PATTERNS_AFTER = 3
"""Packing failures of one type (each answered by a pattern-LP cut) before it is modelled by
server patterns, which pack exactly."""
PATTERN_MAX_ROWS = 1000
"""Programs above this many rows never switch to server patterns: there (generated mixes of
50 workloads and more) a pattern round, its restricted master priced and slower, returned
worse plans than one more round of cuts, and its bound-proving solve took the time."""
ROOT_CUT_ROUNDS = 6
"""The most LP solves, before the first integer solve, whose point gets pattern-LP cuts
(under a time limit ``root_rounds`` may allow fewer). Against 2, on ten generated mixes of 50 to
1,000 workloads under their time limits, the median gap to the bound went from 1.18% to
0.72% (better on seven, worse on three: bench/results.md); the LP bound rises little after
six (N = 200: +0.005% in the next nine)."""
REROUND_MIN_ROWS = 5000
"""Programs above this many rows round the LP twice (``solve_and_expand``)."""
ROUNDED_WORK = 0.1
"""Share of rank 1's work the rounded plan's first solve may use (it takes 2 checkpoints at
N = 200 and N = 1,000)."""
ROUNDED_BOX_WORK = 0.3
"""Share of rank 1's work the rounded plan's second solve, within the box around the LP's
point, may use (at N = 200 under --time-limit 30 it proves the loose gap in 23 checkpoints;
with 0.1 it stopped at a plan 1.7% dearer by the program's sums)."""
ROOT_MIN_ROUNDS = 2
"""Root rounds under any time limit: the count before six were tried (a generated
60-workload mix under --time-limit 2 fared worse with one: 14.3% above its bound, not
6.2%)."""
ROOT_SHARE = 0.2
"""Root rounds may take this share of the time left (``root_rounds``)."""
ROOT_ROUND_S = 0.5
"""Seconds of one root round (LP and cuts) of a 10,000-row program on the 2-core development
VM: 0.4 s at 8,649 rows (N = 200), 3.3 s at 35,193 (N = 1,000), close to rows^1.5."""
ROOT_MIN_ROWS = 600
"""Root cuts only on programs above this many rows (generated mixes of 50 workloads and
more; every shipped file is below 460). On q3 (431 rows) they cost nothing themselves but
moved the capped fewest-servers search onto a path whose first plan comes after 53 search
checkpoints instead of 30: 0.49 s against 0.26 s, and q3 end to end 1.21 -> 1.44 s."""
MAX_PRICING_ROUNDS = 30
"""LP solves spent pricing new server patterns before each integer solve."""
