"""What goes in each sheet of the finance workbook, as tidy pandas tables.

Every function here is pure: a plan (and the workload file and catalog it came from) in,
a ``DataFrame`` out, one per sheet or block. ``solver/workbook.py`` decides how the tables
are written (formulas, formats, charts); this module decides what they hold, so it is
tested without Excel. Money is in the catalog's currency, memory in GB (10^9 bytes).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict
from enum import Enum
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel

from .. import __version__, rules
from ..estimate.memory import estimate
from ..inputs.catalog import Catalog, GpuSku, MemorySku, Platform, StorageSku
from ..inputs.workload import Policy, WorkloadFile
from ..plan_types import PlanOption
from ..result import PlanResult
from .metrics import option_metrics
from .summary import direction_text

KINDS = ("platform", "gpu", "memory", "storage")
KIND_LABELS = {"platform": "Platforms", "gpu": "GPUs", "memory": "Memory", "storage": "Storage"}
UNASSIGNED = "(idle, no team)"

RULES = (
    ("R1-R5", "VRAM per GPU = weights + gradients + optimizer state + FP32 master copy"),
    ("R6", "Activations ~ batch x seq_len x hidden x layers x bytes x coefficient"),
    ("R8", "Split a job over GPUs only when needed; parallel degree capped by policy"),
    ("R9", "Gradient accumulation when the global batch does not fit (micro-batch x steps)"),
    ("R10", "GPUs without NVLink are capped at the PCIe parallel degree"),
    ("R11", "Host data RAM = in-memory data x expansion x loader factor + 20% system reserve"),
    ("R12", "Host RAM ratios: 1.5x VRAM (1-GPU training), 0.8x (multi-GPU), 0.5x (inference)"),
    ("R14", "Every memory channel populated evenly; host bandwidth per GPU reported"),
    ("R15", "Headroom: VRAM and RAM planned only up to (1 - headroom) of installed"),
    ("R16", "Heterogeneous pool: each job on the cheapest GPU that fits it"),
    ("R17", "Shareable jobs share a GPU; pool cost charged back to teams by use"),
    ("R18", ("Utilisation targets: planned VRAM and host RAM >= 85% of usable (installed "
             "less headroom; host RAM: or what the fewest DIMMs the servers take allow), "
             "compute >= 90%, bandwidth >= 60%")),
    ("R19", "Growth: replicas planned = ceil(replicas x growth)"),
    ("R20", "Saving measured against the rule-of-thumb reference configuration for the mix's scale"),
)


def sha256_of(path: Path) -> str:
    """SHA-256 of a file's bytes, hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def summary_table(result: PlanResult, catalog: Catalog, policy: Policy) -> pd.DataFrame:
    """One row per ranked option: costs by kind, counts, R18 utilisation (of the memory
    ``policy``'s headroom leaves usable), R20 saving."""
    ref = result.baseline.total_cost if result.baseline is not None else None
    rows = []
    for opt in result.options:
        m = option_metrics(opt, catalog, policy)
        saving = ref - opt.total_cost if ref is not None else None
        rows.append(
            {
                "option": f"Option {opt.rank}",
                "rank": opt.rank,
                "label": opt.label,
                "total_cost": opt.total_cost,
                "over_cheapest": opt.over_cheapest,
                **{f"{k}_cost": m.cost_by_kind.get(k, 0.0) for k in KINDS},
                "gpus": m.gpu_count,
                "gpus_by_sku": ", ".join(f"{n} x {s}" for s, n in sorted(m.gpus_by_sku.items())),
                "servers": m.servers,
                "max_degree": m.max_degree,
                "installed_vram_gb": m.installed_vram_gb,
                "planned_vram_gb": m.planned_vram_gb,
                "vram_util": m.vram_util,
                "vram_vs_target": m.vram_status,
                "installed_ram_gb": m.installed_ram_gb,
                "planned_ram_gb": m.planned_ram_gb,
                "ram_util": m.ram_util,
                "ram_target": m.ram_target if m.ram_util is not None else None,
                "ram_vs_target": m.ram_status,
                "host_bw_gbps_per_gpu": m.host_bw_gbps_per_gpu,
                "installed_storage_tb": m.installed_storage_tb,
                "unserved": ", ".join(opt.unserved),
                "saving_vs_reference": saving,
                "saving_pct": saving / ref if saving is not None and ref else None,
                "lower_bound": opt.lower_bound,
                "direction": direction_text(opt.direction),
                **_own_columns(opt),
            }
        )
    return pd.DataFrame(rows)


def _own_columns(opt: PlanOption) -> dict[str, float | int | None]:
    """P1–P5 per option: power, racks, energy, TCO, renting and break-even (None: unknown)."""
    own = opt.own
    return {
        "power_kw": own.power_kw if own else None,
        "racks": own.racks if own else None,
        "owned_used": sum(1 for s in opt.servers if s.owned),
        "owned_idle": len(opt.idle),
        "energy_cost": own.energy if own else None,
        "tco": own.tco if own else None,
        "cloud_cost": own.cloud if own else None,
        "break_even_month": own.break_even_month if own else None,
    }


def tco_rows(opt: PlanOption, years: int) -> pd.DataFrame:
    """Cost of owning one option year by year (P2): capex in year 0, then energy, support
    and racks each year, and the cumulative total (what the TCO sheet writes as formulas);
    with a rent to compare (P5), renting the GPUs bought and the running cost of what is
    bought (energy of the servers bought, support, the racks they add), and both cumulated
    from the capex."""
    own = opt.own
    rows = []
    for y in range(years + 1):
        capex = opt.total_cost if y == 0 else 0.0
        running = [0.0, 0.0, 0.0]
        if own is not None and own.tco is not None and y > 0:
            running = [(own.energy or 0.0) / years, (own.support or 0.0) / years,
                       (own.rack_cost or 0.0) / years]
        rent = bought = 0.0
        if own is not None and own.cloud is not None and y > 0:
            rent, bought = own.cloud / years, (own.bought_running or 0.0) / years
        rows.append({"year": y, "capex": capex, "energy_cost": running[0],
                     "support_cost": running[1], "rack_cost": running[2],
                     "total": capex + sum(running), "rent": rent, "bought_running": bought,
                     "bought_total": capex + bought})
    df = pd.DataFrame(rows)
    df["cumulative"] = df["total"].cumsum()
    df["cumulative_rent"] = df["rent"].cumsum()
    df["cumulative_bought"] = df["bought_total"].cumsum()
    return df


def _describe(catalog: Catalog, sku: str) -> str:
    try:
        kind = catalog.kind_of(sku)
    except KeyError:
        return ""
    lookup: dict[str, Callable[[str], GpuSku | Platform | MemorySku | StorageSku]] = {
        "gpu": catalog.gpu,
        "platform": catalog.platform,
        "memory": catalog.dimm,
        "storage": catalog.drive,
    }
    item = lookup[kind](sku)
    return item.name or sku


def bom_table(option: PlanOption, catalog: Catalog) -> pd.DataFrame:
    """The option's bill of materials, one row per SKU, ordered by kind then SKU."""
    order = {k: i for i, k in enumerate(KINDS)}
    lines = sorted(option.lines, key=lambda ln: (order.get(ln.kind, len(KINDS)), ln.sku))
    return pd.DataFrame(
        [
            {
                "sku": ln.sku,
                "description": _describe(catalog, ln.sku),
                "kind": ln.kind,
                "qty": ln.qty,
                "unit_price": ln.unit_price,
                "extended": ln.extended,
            }
            for ln in lines
        ],
        columns=["sku", "description", "kind", "qty", "unit_price", "extended"],
    )


def _team_of(wf: WorkloadFile) -> dict[str, str]:
    return {w.name: w.team for w in wf.workloads}


def placement_table(result: PlanResult, wf: WorkloadFile, catalog: Catalog) -> pd.DataFrame:
    """Every replica of every option: server, GPUs, degree, batch, VRAM vs usable, host RAM,
    cores (O3) and disk (O4: its server's local datasets vs installed TB)."""
    team = _team_of(wf)
    kind = {w.name: w.kind for w in wf.workloads}
    by_name = {w.name: w for w in wf.workloads}
    rows = []
    for opt in result.options:
        platform = {s.id: s.platform for s in opt.servers}
        disk = {s.id: (s.disk_used_tb, s.disk_tb) for s in opt.servers}  # O4
        cores = {}  # O3: cores each replica needs, and their sum per server
        for p in opt.placements:
            w = by_name.get(p.workload)
            cores[(p.workload, p.replica)] = w.cpu_cores_per_replica(p.gpus) if w else 0
        server_cores: dict[str, int] = defaultdict(int)
        for p in opt.placements:
            server_cores[p.server] += cores[(p.workload, p.replica)]
        for p in opt.placements:
            usable = rules.usable(catalog.gpu(p.gpu).vram_gb, wf.policy) if p.gpu else None
            rows.append(
                {
                    "option": f"Option {opt.rank}",
                    "workload": p.workload,
                    "team": team.get(p.workload, ""),
                    "kind": kind.get(p.workload, ""),
                    "replica": p.replica,
                    "server": p.server,
                    "platform": platform.get(p.server, ""),
                    "gpu": p.gpu or "(none, CPU)",
                    "gpu_indices": ",".join(str(i) for i in p.gpu_indices),
                    "degree": p.gpus,
                    "micro_batch": p.micro_batch,
                    "grad_accum_steps": p.grad_accum_steps,
                    **_serving(by_name.get(p.workload), p, catalog, wf),
                    "vram_gb_per_gpu": p.vram_gb_per_gpu,
                    "usable_vram_gb": usable,
                    "vram_fill": p.vram_gb_per_gpu / usable if usable else None,
                    "host_ram_gb": p.host_ram_gb,
                    "cpu_cores": cores[(p.workload, p.replica)],
                    "server_cores_used": server_cores[p.server],
                    "server_cpu_cores": catalog.platform(platform[p.server]).cpu_cores
                    if p.server in platform else None,
                    "server_disk_used_tb": disk[p.server][0] if p.server in disk else None,
                    "server_disk_tb": disk[p.server][1] if p.server in disk else None,
                }
            )
    return pd.DataFrame(rows)


def _serving(w, p, catalog: Catalog, wf: WorkloadFile) -> dict[str, float | int | None]:
    """An inference replica's serving batch (what ``batch: auto`` chose on its GPU), time per
    output token and to the first token (ms); None for other kinds."""
    if w is None or w.kind != "inference" or p.gpu is None:
        return {"serving_batch": None, "tpot_ms": None, "ttft_ms": None}
    return {"serving_batch": estimate(w, catalog.gpu(p.gpu), p.gpus, wf.policy).batch,
            "tpot_ms": p.tpot_ms, "ttft_ms": p.ttft_ms}


def memory_table(result: PlanResult, wf: WorkloadFile, catalog: Catalog) -> pd.DataFrame:
    """The estimator's VRAM breakdown per workload for the GPU and degree it was placed on."""
    by_name = {w.name: w for w in wf.workloads}
    seen = set()
    rows = []
    for opt in result.options:
        for p in opt.placements:
            key = (opt.rank, p.workload, p.gpu, p.gpus)
            w = by_name.get(p.workload)
            if key in seen or w is None:
                continue
            seen.add(key)
            gpu = catalog.gpu(p.gpu) if p.gpu else None
            est = estimate(w, gpu, p.gpus if gpu else 0, wf.policy)
            parts = {k: v for k, v in asdict(est.breakdown).items()}
            rows.append(
                {
                    "option": f"Option {opt.rank}",
                    "workload": w.name,
                    "kind": w.kind,
                    "gpu": p.gpu or "(none, CPU)",
                    "degree": est.degree,
                    "micro_batch": est.micro_batch,
                    "grad_accum_steps": est.grad_accum_steps,
                    **parts,
                    "total_gb_per_gpu": est.vram_gb_per_gpu,
                    "usable_vram_gb": est.usable_vram_gb,
                    "fits": "yes" if est.fits else "no",
                    "host_ram_gb": est.host_ram_gb,
                }
            )
    return pd.DataFrame(rows)


def _split(cost: float, weights: dict[str, float], out: dict[str, float]) -> bool:
    """Add ``cost`` to ``out`` pro rata to ``weights``; False when all weights are zero."""
    total = sum(weights.values())
    if total <= 0:
        return False
    for team, w in weights.items():
        out[team] += cost * w / total
    return True


def _gpu_units(opt: PlanOption, team: dict[str, str]) -> dict[str, dict[str, float]]:
    """Per server, GPU-equivalents each team uses; sharers of one GPU split it by VRAM (R17)."""
    per_gpu: dict[tuple[str, int], list] = defaultdict(list)
    units: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for p in opt.placements:
        t = team.get(p.workload, UNASSIGNED)
        if p.gpus <= 0:
            continue
        if p.gpu_indices:
            for i in p.gpu_indices:
                per_gpu[(p.server, i)].append((t, p.vram_gb_per_gpu))
        else:
            units[p.server][t] += p.gpus
    for (server, _), users in per_gpu.items():
        vram = sum(v for _, v in users)
        for t, v in users:
            units[server][t] += v / vram if vram > 0 else 1 / len(users)
    return units


def team_costs(opt: PlanOption, wf: WorkloadFile, catalog: Catalog) -> pd.DataFrame:
    """Charge what one option buys to teams by the GPUs, RAM and storage their jobs use (R17).

    Only servers bought are charged: owned servers (P4) cost nothing, and what each team runs
    on them is shown apart (``owned_gpu_equivalents``, ``owned_host_ram_gb``), so a team
    running only on owned servers is charged nothing. Per bought server, GPU and platform
    cost follow GPU-equivalents used (CPU-only platforms follow host RAM), DIMM cost follows
    host RAM; the drives bought follow the dataset + checkpoints TB of the workloads with a
    replica on a bought server. Idle capacity on a server is shared pro rata by the teams on
    it, so the team costs add up to the option's purchase (its bill of materials).
    """
    team = _team_of(wf)
    owned = {s.id for s in opt.servers if s.owned}
    gpu_units = _gpu_units(opt, team)
    ram: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for p in opt.placements:
        ram[p.server][team.get(p.workload, UNASSIGNED)] += p.host_ram_gb
    cost: dict[str, defaultdict[str, float]] = {k: defaultdict(float) for k in KINDS}
    for s in opt.servers:
        if s.owned:
            continue
        g, r = gpu_units.get(s.id, {}), ram.get(s.id, {})
        first, second = (g, r) if s.gpu_count else (r, g)
        charges = {
            "platform": catalog.price_of(s.platform),
            "gpu": catalog.price_of(s.gpu) * s.gpu_count if s.gpu else 0.0,
            "memory": catalog.price_of(s.memory) * s.dimm_count,
        }
        for k, amount in charges.items():
            w1, w2 = (r, g) if k == "memory" else (first, second)
            if amount and not (_split(amount, w1, cost[k]) or _split(amount, w2, cost[k])):
                cost[k][UNASSIGNED] += amount
    on_bought = {p.workload for p in opt.placements if p.server not in owned}
    tb: defaultdict[str, float] = defaultdict(float)
    for w in wf.workloads:
        if w.name in on_bought:
            tb[w.team] += w.storage_tb
    storage = sum(s.drive_count * catalog.price_of(s.storage)
                  for s in opt.servers if s.storage and not s.owned)
    spent = {t: sum(cost[k][t] for k in KINDS) for t in set().union(*cost.values())}
    if storage and not (
        _split(storage, tb, cost["storage"]) or _split(storage, spent, cost["storage"])
    ):
        cost["storage"][UNASSIGNED] += storage
    gpus = _per_team(gpu_units, lambda sid: sid not in owned)
    ram_gb = _per_team(ram, lambda sid: sid not in owned)
    owned_gpus = _per_team(gpu_units, lambda sid: sid in owned)
    owned_ram = _per_team(ram, lambda sid: sid in owned)
    teams = sorted(set().union(*cost.values(), gpus, ram_gb, owned_gpus, owned_ram),
                   key=lambda t: (t == UNASSIGNED, t))
    kind_total = {k: sum(cost[k].values()) for k in KINDS}
    rows = []
    for t in teams:
        row: dict[str, Any] = {
            "option": f"Option {opt.rank}",
            "team": t,
            "workloads": len({p.workload for p in opt.placements if team.get(p.workload) == t}),
            "gpu_equivalents": gpus.get(t, 0.0),
            "host_ram_gb": ram_gb.get(t, 0.0),
            "storage_tb": tb.get(t, 0.0),
            "owned_gpu_equivalents": owned_gpus.get(t, 0.0),
            "owned_host_ram_gb": owned_ram.get(t, 0.0),
        }
        for k in KINDS:
            row[f"{k}_share"] = cost[k].get(t, 0.0) / kind_total[k] if kind_total[k] else 0.0
        for k in KINDS:
            row[f"{k}_cost"] = cost[k].get(t, 0.0)
        row["total_cost"] = sum(row[f"{k}_cost"] for k in KINDS)
        rows.append(row)
    return pd.DataFrame(rows)


def _per_team(per_server: dict[str, dict[str, float]], keep: Callable[[str], bool]
              ) -> defaultdict[str, float]:
    """Σ over the servers ``keep`` selects of each team's figure on that server."""
    out: defaultdict[str, float] = defaultdict(float)
    for sid, by_team in per_server.items():
        if keep(sid):
            for t, v in by_team.items():
                out[t] += v
    return out


def teams_table(result: PlanResult, wf: WorkloadFile, catalog: Catalog) -> pd.DataFrame:
    """``team_costs`` for every option, stacked (an ``option`` column tells them apart); the
    owned-server columns only when some option runs on owned servers."""
    frames = [team_costs(opt, wf, catalog) for opt in result.options]
    if not frames:
        return pd.DataFrame()
    df = pd.concat(frames, ignore_index=True)
    if not any(s.owned for opt in result.options for s in opt.servers):
        df = df.drop(columns=["owned_gpu_equivalents", "owned_host_ram_gb"])
    return df


def catalog_table(catalog: Catalog) -> pd.DataFrame:
    """Every SKU of the catalog with its kind, description, key figures and unit price."""
    rows = []
    for g in catalog.gpus:
        spec = (
            f"{g.vram_gb:g} GB, {g.mem_bw_gbps:g} GB/s, {g.form_factor}, NVLink {g.nvlink_gbps:g}"
        )
        rows.append(("gpu", g.sku, g.name, spec, g.price))
    for p in catalog.platforms:
        spec = (
            f"{p.gpu_slots} GPU slots, {p.memory_type} x {p.memory_channels} ch, "
            f"{p.dimm_slots} DIMM slots, {p.drive_bays} bays"
        )
        rows.append(("platform", p.sku, p.name, spec, p.price))
    for m in catalog.memory:
        rows.append(("memory", m.sku, m.name, f"{m.size_gb:g} GB {m.type}-{m.speed_mts}", m.price))
    for s in catalog.storage:
        rows.append(("storage", s.sku, s.name, f"{s.size_tb:g} TB, {s.read_gbps:g} GB/s", s.price))
    return pd.DataFrame(rows, columns=["kind", "sku", "description", "spec", "unit_price"])


def run_table(
    result: PlanResult, wf: WorkloadFile, catalog: Catalog, now: dt.datetime
) -> pd.DataFrame:
    """Facts of the run: tool version, time, workload file, currency, price date, solver."""
    items = [
        ("Tool", f"plan-buy {__version__}"),
        ("Run at (UTC)", now.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S")),
        ("Mix name (the file's name field)", wf.name),
        ("Currency", catalog.currency),
        ("Prices as of", catalog.prices_as_of.isoformat()),
        ("Price note", catalog.price_note or "catalog prices; replace with vendor quotes"),
        ("Solver", result.solver or "(not recorded)"),
        ("Solver status", result.status),
        ("Relative gap of option 1", "" if result.gap is None else f"{result.gap:.4%}"),
    ]
    items += [("Note", n) for n in result.notes]
    items += [("Warning", w) for w in result.warnings]
    return pd.DataFrame(items, columns=["item", "value"])


def policy_table(wf: WorkloadFile) -> pd.DataFrame:
    """The planning policy, one row per field, with its documented meaning, written as a
    person reads it: a nested setting (``tco``) one row per field (``tco.kwh_price``), lists
    joined by commas, nothing set as "(none)", descriptions on one line without markup."""
    return pd.DataFrame(_setting_rows(wf.policy), columns=["field", "value", "meaning"])


def _setting_rows(model: BaseModel, prefix: str = "") -> list[tuple[str, Any, str]]:
    fields = type(model).model_fields
    rows: list[tuple[str, Any, str]] = []
    for name, field in fields.items():
        value, desc = getattr(model, name), plain_text(field.description or "")
        if isinstance(value, BaseModel):
            rows.append((prefix + name, "(set: the rows below)", desc))
            rows += _setting_rows(value, f"{prefix}{name}.")
        else:
            rows.append((prefix + name, _setting_value(value), desc))
    return rows


def _setting_value(value: Any) -> Any:
    """A setting's value for a cell: numbers and words as they are, a list as its items
    joined by commas, nothing as "(none)"."""
    if value is None or (isinstance(value, (list, tuple, set, frozenset, dict)) and not value):
        return "(none)"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple, set, frozenset)):
        return ", ".join(str(_setting_value(v)) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_setting_value(v)}" for k, v in value.items())
    if isinstance(value, Enum):
        return value.value
    return value


def plain_text(text: str) -> str:
    """A docstring as a cell reads it: one line, without reStructuredText backticks."""
    return " ".join(text.replace("``", "").replace("`", "").split())


def rules_table() -> pd.DataFrame:
    """The seed's R-rules this plan applies."""
    return pd.DataFrame(RULES, columns=["rule", "what plan-buy does"])


def sources_table(sources: dict[str, Path]) -> pd.DataFrame:
    """Input files: label, file name, size and SHA-256 of the content the run read."""
    rows: list[tuple[str, str, int | None, str]] = []
    for label, path in sources.items():
        path = Path(path)
        if path.is_file():
            rows.append((label, path.name, path.stat().st_size, sha256_of(path)))
        else:
            rows.append((label, path.name, None, "(file not found)"))
    return pd.DataFrame(rows, columns=["input", "file", "bytes", "sha256"])


def includes_table(option: PlanOption, catalog: Catalog) -> pd.DataFrame:
    """What the price of each platform the option buys covers (O2), one row per platform.

    Data drives, GPUs and DIMMs are separate lines of the bill of materials; a platform
    whose catalog entry says nothing is listed as "(not stated in the catalog)".
    """
    rows = []
    for sku in sorted({s.platform for s in option.servers}):
        p = catalog.platform(sku)
        rows.append({
            "platform": sku,
            "servers": sum(1 for s in option.servers if s.platform == sku),
            "cpu_cores": p.cpu_cores,
            "rack_units": p.rack_units,
            "includes": "; ".join(p.includes) or "(not stated in the catalog)",
        })
    return pd.DataFrame(rows, columns=["platform", "servers", "cpu_cores", "rack_units", "includes"])


def workload_costs(opt: PlanOption, wf: WorkloadFile, catalog: Catalog) -> dict[str, float]:
    """One option's cost charged to each workload, by the same rule as ``team_costs``
    (every workload its own team); idle capacity is charged to the idle row."""
    own = wf.model_copy(update={"workloads": [w.model_copy(update={"team": w.name})
                                              for w in wf.workloads]})
    df = team_costs(opt, own, catalog)
    return dict(zip(df["team"], df["total_cost"], strict=True)) if not df.empty else {}


def demand_table(result: PlanResult, wf: WorkloadFile, catalog: Catalog) -> pd.DataFrame:
    """Every workload as asked and as option 1 plans it: replicas asked and planned after
    growth (⌈replicas × growth⌉), replicas option 1 places (more where a throughput target
    needs them, none when a budget leaves the workload out), priority, team, where it
    runs, memory per replica (GB) and the cost charged to it."""
    opt = result.options[0] if result.options else None
    costs = workload_costs(opt, wf, catalog) if opt is not None else {}
    rows = []
    for w in wf.workloads:
        mine = [p for p in opt.placements if p.workload == w.name] if opt else []
        first = mine[0] if mine else None
        rows.append({
            "workload": w.name,
            "team": w.team,
            "kind": w.kind,
            "model": w.arch.name if w.kind != "preprocess" else "",
            "priority": w.priority,
            "replicas_asked": w.replicas,
            "replicas_planned": wf.planned_replicas(w),
            "replicas_placed": len(mine),
            "served": "yes" if mine else "no (left out under the budget)",
            "gpu": (first.gpu or "CPU only") if first else "",
            "gpus_per_replica": first.gpus if first else None,
            "vram_per_replica_gb": (first.vram_gb_per_gpu * first.gpus) if first else None,
            "host_ram_per_replica_gb": first.host_ram_gb if first else None,
            "charged_cost": costs.get(w.name, 0.0) if opt else None,
        })
    return pd.DataFrame(rows)
