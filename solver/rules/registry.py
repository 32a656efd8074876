"""The rule registry: every plan rule by id, and where each of its parts lives.

One row per rule of the R (sizing), O (orderable servers), T (throughput) and P (power,
site and ownership) families that docs/*.md name. Each row says what the rule states, where
its arithmetic lives (``home``), which ``define_*`` steps of the program state it as rows
(``program``; None when it is not a row of the program: an estimator or report rule, or one
applied where candidates are enumerated), the checker function that verifies it
(``check``), the rule of ``bench/bruteforce.py`` that recomputes it (``brute_force``) and
the doc section that explains it (``doc``). ``check`` and ``brute_force`` are None where
the oracle has no part of the rule (an estimate, a report figure).

Names are strings, resolved only by the tests (``tests/test_rules.py``): the registry is a
table to read, and importing it loads neither PuLP nor the checker. A new rule (a rule
indexed by period, a switch port) is one more row here; docs/architecture.md lists the
files it touches.
"""

from __future__ import annotations

from dataclasses import dataclass

PROGRAM = "solver.optimize.program"
ESTIMATE = "solver.estimate"
SOLVER_DOC = "docs/solver.md"
MEMORY_DOC = "docs/memory-model.md"
THROUGHPUT_DOC = "docs/throughput-model.md"


@dataclass(frozen=True)
class Rule:
    """One plan rule and the places that implement, check and document it."""

    id: str
    """The rule's id as the docs write it: a family letter and a number ("P3")."""
    statement: str
    """What the rule says, in one line."""
    home: str
    """Dotted name of the function (or module) that owns the rule's arithmetic."""
    program: tuple[str, ...] | None
    """Dotted names of the ``define_*`` steps that state it as rows; None: not a row."""
    check: str | None
    """Name of the checker function that verifies it on a plan (a module of the ``solver/check/``
    package); None: the checker has no part of it."""
    brute_force: str | None
    """Name of the function of ``bench/bruteforce.py`` that recomputes it, or
    ``module.function`` of another ``bench/`` module (the time rules'
    ``bruteforce_time``); None: none."""
    doc: str
    """Where it is explained: ``docs/<file>.md#<heading anchor>``."""


def _p(*names: str) -> tuple[str, ...]:
    """Program steps by their module in ``solver/optimize/program/`` and function name."""
    return tuple(f"{PROGRAM}.{n}" for n in names)


_R = [
    Rule("R1", "VRAM per GPU holds the weights: parameters × bytes per value",
         f"{ESTIMATE}.memory.training_breakdown", None, None, None,
         f"{MEMORY_DOC}#1-model-states-r1r5"),
    Rule("R2", "Training keeps gradients: parameters × bytes per value",
         f"{ESTIMATE}.memory.training_breakdown", None, None, None,
         f"{MEMORY_DOC}#1-model-states-r1r5"),
    Rule("R3", "Training keeps optimizer state: parameters × bytes per optimizer state",
         f"{ESTIMATE}.memory.training_breakdown", None, None, None,
         f"{MEMORY_DOC}#1-model-states-r1r5"),
    Rule("R4", "Mixed precision keeps an FP32 master copy unless told not to",
         "solver.inputs.workload.Workload.uses_master_weights", None, None, None,
         f"{MEMORY_DOC}#1-model-states-r1r5"),
    Rule("R5", "Model states add up: 13B fp16 Adam without a master copy is 156 GB",
         f"{ESTIMATE}.memory.training_breakdown", None, None, None,
         f"{MEMORY_DOC}#1-model-states-r1r5"),
    Rule("R6", "Activations grow with batch × sequence × hidden × layers",
         f"{ESTIMATE}.activations.activations_bytes", None, None, None,
         f"{MEMORY_DOC}#5-activations"),
    Rule("R7", "A job that fits but uses under 30% of each card is flagged as waste",
         "solver.report.estimate_table.is_waste", None, None, None,
         f"{MEMORY_DOC}#10-constants"),
    Rule("R8", "A job is split over GPUs only when needed, within max_parallel_degree",
         "solver.optimize.replicas.policy_degrees", None, "check_r8_r10",
         "_degrees_for", f"{SOLVER_DOC}#rules--constraints"),
    Rule("R9", "Gradient accumulation reaches the global batch when it does not fit",
         f"{ESTIMATE}.memory.auto_micro_batch", None, None, None,
         f"{MEMORY_DOC}#6-micro-batch-and-accumulation-r9"),
    Rule("R10", "GPUs without NVLink are capped at the PCIe parallel degree",
         "solver.optimize.replicas.policy_degrees", None, "check_r8_r10",
         "_degrees_for", f"{SOLVER_DOC}#rules--constraints"),
    Rule("R11", "Host data RAM = in-memory data × expansion × loader factor + reserve",
         f"{ESTIMATE}.host_ram.data_ram_gb", _p("host.define_host_ram"), "check_r11_r12",
         "_cheapest", f"{MEMORY_DOC}#8-host-ram-r11-r12"),
    Rule("R12", "Host RAM at least a ratio of the VRAM a replica occupies",
         f"{ESTIMATE}.host_ram.ram_ratio", _p("host.define_host_ram"), "check_r11_r12",
         "_cheapest", f"{MEMORY_DOC}#8-host-ram-r11-r12"),
    Rule("R14", "Every memory channel is populated evenly",
         "solver.optimize.candidates.server_types", None, "check_r14",
         "_cheapest", f"{SOLVER_DOC}#rules--constraints"),
    Rule("R15", "VRAM, host RAM and drives are planned only up to (1 − headroom) of installed",
         "solver.rules.headroom.usable",
         _p("gpus.define_shared_vram", "host.define_host_ram", "storage.define_storage"),
         "check_r11_r12", "_min_bins", f"{SOLVER_DOC}#rules--constraints"),
    Rule("R16", "A heterogeneous pool: each job on the cheapest GPU that fits it",
         f"{PROGRAM}.objective.define_cost", _p("objective.define_cost"), "check_bom",
         "optimum", f"{SOLVER_DOC}#objective"),
    Rule("R17", "Only shareable jobs share a GPU, within its usable VRAM",
         f"{PROGRAM}.gpus.define_shared_vram", _p("gpus.define_shared_vram"),
         "check_r17", "_min_bins", f"{SOLVER_DOC}#rules--constraints"),
    Rule("R18", "Utilisation targets: planned VRAM and host RAM at 85%+ of usable",
         "solver.report.metrics.option_metrics", None, None, None,
         "docs/workbook.md#memory-use-and-its-target"),
    Rule("R19", "Replicas planned = ⌈replicas × growth⌉ for every served workload",
         "solver.inputs.workload.WorkloadFile.planned_replicas",
         _p("placement.define_placements"), "check_r19", "optimum",
         f"{SOLVER_DOC}#rules--constraints"),
    Rule("R20", "Savings are measured against the rule-of-thumb reference configuration",
         "solver.optimize.baseline.baseline_cost", None, None, None,
         f"{SOLVER_DOC}#the-rule-of-thumb-reference-configuration-r20"),
]

_O = [
    Rule("O1", "A server is bought with one of its platform's GPU counts",
         "solver.optimize.candidates.server_types", _p("gpus.define_fixed_gpu_counts"),
         "check_o1", "_bought_gpus", f"{SOLVER_DOC}#bills-of-materials-a-vendor-can-quote"),
    Rule("O2", "A platform's price covers what its catalog entry includes",
         "solver.report.tables.includes_table", None, None, None,
         f"{SOLVER_DOC}#bills-of-materials-a-vendor-can-quote"),
    Rule("O3", "A server's CPU cores cover the cores its replicas need",
         "solver.rules.cores.replica_cores", _p("host.define_cpu_cores"), "check_o3",
         "_cores", f"{SOLVER_DOC}#bills-of-materials-a-vendor-can-quote"),
    Rule("O4", "Every server holds the datasets it reads locally, the pool the rest, under "
         "the headroom line", "solver.rules.storage",
         _p("storage.define_storage", "host_room.add_host_room_rows"), "check_o4",
         "_cheapest", f"{SOLVER_DOC}#o4-storage-where-the-data-is-read-with-headroom"),
]

_T = [
    Rule("T1", "A target in tokens/s: training tokens ÷ deadline, inference tokens_per_s",
         f"{ESTIMATE}.throughput.target_tokens_per_s", None, None, None,
         f"{THROUGHPUT_DOC}#6-the-api-for-the-program-t3t5"),
    Rule("T2", "Tokens/s of one replica of a workload on one GPU SKU at one degree",
         f"{ESTIMATE}.replica.replica_throughput", None, None, None,
         f"{THROUGHPUT_DOC}#6-the-api-for-the-program-t3t5"),
    Rule("T3", "A workload with a target runs replicas whose summed throughput meets it, "
         "within its latency limits", f"{ESTIMATE}.throughput.planned_target",
         _p("throughput.define_targets"), "check_t3_t4", "_mixes",
         f"{SOLVER_DOC}#rules--constraints"),
    Rule("T4", "A training job's replicas run on one GPU type and degree",
         f"{PROGRAM}.throughput.define_one_gpu_type", _p("throughput.define_one_gpu_type"),
         "check_t3_t4", "_mixes", f"{SOLVER_DOC}#rules--constraints"),
    Rule("T5", "Each option reports what it delivers against every target",
         "solver.plan_types.TargetFigure", None, None, None,
         f"{THROUGHPUT_DOC}#6-the-api-for-the-program-t3t5"),
    Rule("T6", "The throughput estimate stays within 25% of published measurements",
         f"{ESTIMATE}.throughput", None, None, None, f"{THROUGHPUT_DOC}#7-validation-t6"),
]

_P = [
    Rule("P1", "A server draws its platform's power_w + gpu_count × GPU power_w",
         "solver.rules.power.power_w", _p("power.define_power"), "check_p1_p2",
         "_cheapest", f"{SOLVER_DOC}#power-cost-of-ownership-site-and-owned-servers"),
    Rule("P2", "TCO = capex + energy + support + racks over the horizon",
         "solver.optimize.owning.own_cost", _p("objective.define_tco"), "check_p1_p2",
         "_cheapest", f"{SOLVER_DOC}#power-cost-of-ownership-site-and-owned-servers"),
    Rule("P3", "The pool fits the site's racks in power and height, every server one rack",
         "solver.rules.power.racks_used", _p("power.define_site"), "check_p3", "_cheapest",
         f"{SOLVER_DOC}#power-cost-of-ownership-site-and-owned-servers"),
    Rule("P4", "Owned servers are used as they are, at no price, at most as many as owned",
         "solver.optimize.candidates.owned_types", _p("placement.define_servers"),
         "check_p4", "_cheapest",
         f"{SOLVER_DOC}#power-cost-of-ownership-site-and-owned-servers"),
    Rule("P5", "Renting the GPUs bought, priced per GPU-hour, against buying them",
         "solver.optimize.owning.rent", None, None, None,
         f"{SOLVER_DOC}#power-cost-of-ownership-site-and-owned-servers"),
]

TIME_DOC = f"{SOLVER_DOC}#plans-over-time-h1h6"
"""Where the checker's part of the H family (plans over time) is explained."""

RUNS = "solver.optimize.runs.program"


def _r(*names: str) -> tuple[str, ...]:
    """Steps of the run program (``solver/optimize/runs/program.py``) by function name."""
    return tuple(f"{RUNS}.{n}" for n in names)


_H = [
    Rule("H1", "A horizon: capex charged x months / the hardware's life when shorter",
         "solver.horizon.runs.timeframe", _r("define_objective"), "check_h6",
         "bruteforce_time.brute_force_time", TIME_DOC),
    Rule("H2", "A finite training job is runs: its tokens by each repetition's deadline",
         "solver.horizon.runs.runs_of", None, "check_h3", None, TIME_DOC),
    Rule("H3", "Each run gets a window inside [start, deadline], replicas and where they run, "
         "enough for its tokens", "solver.rules.time.run_hours", _r("define_one_way"),
         "check_h3", "bruteforce_time.pool_choices", TIME_DOC),
    Rule("H4", "At every instant the replicas running on each server fit every rule of today",
         "solver.optimize.runs.fleet.holds", _r("define_servers_in_time", "define_room"),
         "check_h4", "bruteforce_time.search", TIME_DOC),
    Rule("H5", "A run may rent GPUs with a cloud price, billed price × GPUs × hours, within "
         "max_gpus", "solver.rules.time.rent_cost", _r("define_rent_caps"), "check_h5",
         "bruteforce_time.rent_choices", TIME_DOC),
    Rule("H6", "One objective over the horizon: capex x its share of the life + rent "
         "(+ running costs)", "solver.run_types.TimeCost.horizon_cost",
         _r("define_objective"), "check_h6", "bruteforce_time.brute_force_time", TIME_DOC),
]

_N = [
    Rule("N1", "The catalog's network: NICs, switches, link price; platforms' included NICs", "solver.estimate.data_parallel.network_gbps", None, None,
         None, "docs/catalog.md#network"),
    Rule("N2", "A run's data-parallel efficiency from its all-reduce over GPU link and network", "solver.estimate.data_parallel."
         "dp_efficiency", None, "check_h3", "bruteforce_servers.efficiency", TIME_DOC),
    Rule("N3", "A pod's NIC ports go to one-SKU leaves (and spines), a cable a port: the "
         "cheapest",
         "solver.rules.fabric.fabric_of", ("solver.optimize.program.fabric.define_fabric",),
         "check_n3", "bruteforce_fabric.cheapest_fabric", f"{SOLVER_DOC}#the-fabric-n3"),
    Rule("U1", "The plan holds in at least ⌈P × N⌉ of the N sampled worlds: the cheapest such",
         "solver.rules.chance.required", ("solver.optimize.program.chance.define_chance",),
         "check_u1", "bruteforce_chance.optimum_held",
         f"{SOLVER_DOC}#a-plan-that-holds-with-a-chosen-chance-u1"),
    Rule("N4", "Tensor-parallel all-reduces and step overhead add to step time, TPOT and TTFT",
         "solver.estimate.comms.tp_seconds", None, None, None,
         f"{THROUGHPUT_DOC}#5-parallel-degree-d"),
]

RULES: dict[str, Rule] = {r.id: r for r in (*_R, *_O, *_T, *_P, *_H, *_N)}
"""Every plan rule, by id."""
