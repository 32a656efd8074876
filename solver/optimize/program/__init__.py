"""The purchase integer program in PuLP, one module per constraint family.

Notation (docs/solver.md has the full derivation):
    t ∈ T   server types (platform p, GPU SKU g or none, DIMM SKU, DIMM count); RAM R_t
    o ∈ O_w replica options of workload w: GPU g_o, degree d_o, per-GPU VRAM v_o, host RAM r_o
    n_t     servers of type t bought                              (integer)
    x_wot   replicas of w run as option o on servers of type t       (integer)
    s_t     GPUs of type t given over to shared jobs (R17)           (integer)
    z_psc   servers of platform p carrying c drives of SKU s (O4)    (integer)
    h_wg    servers of group g hosting a replica of w, whose dataset
            is read locally (O4)                                      (integer)
    u_w     1 if workload w is served (fixed to 1 without a budget)  (binary)
    G_t     = Σ_{exclusive o} d_o x_wot + s_t      GPUs installed on type t
              (= k_t n_t for a type of fixed GPU count k_t, O1)

    W       = Σ_t (power_p n_t + power_g G_t)  rated power, W (P1)
    r       racks used (with a site, P3)                              (integer)

capex = Σ_t n_t (price_p + dimms_t·price_m) + Σ_t G_t price_g + Σ_psc c·price_s·z_psc
        (owned types, P4, cost nothing and have n_t ≤ count_t)
Objective (policy.objective: capex, the default): min capex + ε Σ_t n_t
Objective (policy.objective: tco, P2):
    min (1 + pct·Y) capex + e·W/1000 + c_rack·Y·r + ε Σ_t n_t,
    e = 8,760 · Y · utilisation · PUE · kwh_price   (ε: fewer servers among equal costs)

Modules (each ``define_*`` docstring states its formula and the rule it implements):
    model           Model: the problem and its variables by validated ids
    names           row names: family(ids), ids escaped injectively (one helper)
    placement       n_t, x_wot, u_w and demand (R19, P4)
    throughput      targets (T3), one GPU type per training job (T4)
    gpus            GPU slots (R8), fixed GPU counts (O1), shared VRAM (R15, R17)
    host            host RAM (R11, R12, R15) and CPU cores (O3)
    board_cuts      blockers and full boards (valid cuts added up front)
    storage         O4: drive configurations, hosts, disk rows, pair rows
    room            what one server holds (M_wt, M_w|v), read by the O4 rows
    host_room       O4 host-room and floor rows; holding optional rows out
    power           rated power (P1) and the site's racks (P3)
    objective       capex or TCO (P2), priority, budget, the phases' objectives
    exclusions      cuts off a found purchase list, a disk choice, non-reference servers
    packing_cuts    bin-packing and pattern-LP cuts after a failed packing
    columns         server patterns and column generation
    drive_patterns  server patterns carrying datasets and drives (O4 bound)
    assemble        build(): the fixed list of define_* steps and the size gates
"""

from .assemble import build
from .columns import disaggregate, price_patterns
from .drive_patterns import disaggregate_drives
from .exclusions import drop_disk_choices, exclude_bom, exclude_disk_choice, require_reference
from .host_room import add_host_room_rows, hold_pair_rows, restore_rows
from .model import Model, PatternModel, PricedType
from .objective import (
    fix_priority,
    minimised_cost,
    set_cost_objective,
    set_priority_objective,
    tco_expression,
)
from .packing_cuts import add_packing_cuts, add_pattern_cut, add_shared_big_rows, pattern_cut_kinds
from .power import rack_space

__all__ = [
    "Model",
    "PatternModel",
    "PricedType",
    "add_host_room_rows",
    "add_packing_cuts",
    "add_pattern_cut",
    "add_shared_big_rows",
    "build",
    "disaggregate",
    "disaggregate_drives",
    "drop_disk_choices",
    "exclude_bom",
    "exclude_disk_choice",
    "fix_priority",
    "hold_pair_rows",
    "minimised_cost",
    "pattern_cut_kinds",
    "price_patterns",
    "rack_space",
    "require_reference",
    "restore_rows",
    "set_cost_objective",
    "set_priority_objective",
    "tco_expression",
]
