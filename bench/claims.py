"""Do the alternatives' notes claim only what is true? Checked against witnesses.

``plan(..., alternatives="kinds")`` caps each alternative's search at a share of rank 1's
work, and its notes make claims that the search's bound proves (``wording.note_alternatives``):

    proven    "<labels>: no plan within 5% of the cheapest does better in that direction
              (proven by its search's bound) ..."   no plan within the slack has a lower
              f = ``Direction.measure`` (lower is better; spare VRAM negated) than the option
    within    "<label> (within <amount> of the best possible), ...": none has an f lower than
              the option's by more than <amount> (rounded for display: 0.5 of its unit allowed)
    as good   "... left out: <labels> (none does better than the cheapest plan, proven by its
              search's bound)": none has an f lower than the cheapest plan's
    optimal   an alternative shown with no note: its search ended at its gap, so it is the best
              within the slack in its direction, up to that gap on the search's objective
              f / step + (cost - L) / S (``alternatives.direction_value``)

The mixes: workloads/*.yaml (one ranked by TCO is also run ranked by capex, where "lowest
TCO" is a direction) and generated ones (``bench/generate.py``, ``--sizes`` x ``--seeds``).
The claims are those of the runs as shipped, ``--top`` each of ``--tops``, no time limit.
Each is checked against WITNESSES: every option of every run of the mix (the capped runs and,
for each direction claimed, an uncapped search of that direction alone: work cap 1e6 x rank
1's, its gap the run's (1e-4), ended only by the clock of ``--time-limit``), each passing
``check_plan``, whose value (capex, or TCO under ``objective: tco``) is within the slack of
the claiming run's cheapest plan (and its budget). Verdicts:

    OK        no witness has an f below the claimed floor minus the tolerance: 1e-6 x
              max(1, |f|), or 0.5 of a unit for a "within" amount in W, GB or currency
    TRADED    "as good"/"optimal" only: a witness is lower in f, but its search objective
              is not below the claim's by more than the search's gap (1e-3 of max(1, |value|),
              for "as good" of f / step + 1, the most the search's plan can be worth): it
              costs more, and within a step the objective trades f for cost, so the note
              says more than the search proves
    REFUTED   a witness beats the claim (a bug)

Unrecognised notes are printed, never skipped. Run from the repository root (about 10 minutes
on 2 cores with the defaults; one solve at a time):

    .venv/bin/python bench/claims.py
    .venv/bin/python bench/claims.py --no-shipped --sizes 5,8,10 --seeds 7-12 --time-limit 30
    .venv/bin/python bench/claims.py --no-shipped --sizes 8 --seeds 6     # one generated mix
"""

from __future__ import annotations

import argparse
import contextlib
import re
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from bench.generate import generate
from solver.check import check_plan
from solver.inputs.catalog import Catalog
from solver.inputs.loading import DEFAULT_CATALOG, load_catalog, load_workloads
from solver.inputs.workload import WorkloadFile
from solver.optimize import near_optimal, pipeline, tuning, wording
from solver.optimize.alternatives import (
    DEFAULT_SLACK,
    Direction,
    direction_value,
    directions,
    label_of,
    server_key,
)
from solver.optimize.solve import DEFAULT_GAP
from solver.plan_types import PlanOption
from solver.result import PlanResult

SEARCH_GAP = max(DEFAULT_GAP, tuning.ALTERNATIVE_GAP)
"""The relative gap an alternative's search stops at (``near_optimal.Within.gap``)."""
EPS = 1e-6
"""Solver tolerance, relative to max(1, |value|)."""
COUNT_TOL = 1e-6
"""Tolerance of a claim on a count or proven by a bound: f is measured exactly on both sides."""
ROUNDED_TOL = 0.5 + 1e-6
"""Tolerance of a "within" amount in W, GB or currency: the note rounds it to a unit."""

AS_GOOD, NOT_FOUND = wording.AS_GOOD, wording.NOT_FOUND
AS_GOODS = (AS_GOOD, wording.AS_GOOD_TCO)
"""The "as good" reason under objective capex and under tco (option 1 is the lowest TCO)."""
SLACK = rf"{DEFAULT_SLACK:.0%} of (?:the cheapest|option 1's TCO)"
CAPPED = r"\(each alternative's search is capped at a share of rank 1's work\)"
PROVEN_NOTE = re.compile(
    rf"(?P<labels>.+): no plan within {SLACK} does better in that direction "
    rf"\(proven by its search's bound\); (?:a cheaper plan|a plan of lower TCO) as good in "
    rf"it may exist {CAPPED}")
WITHIN_NOTE = re.compile(
    rf"(?P<items>.+): the best plan found in that direction within its share of the search "
    rf"{CAPPED}; how far the best possible within {SLACK} can be is proven by "
    r"its search's bound")
WITHIN_ITEM = re.compile(r"(?P<label>[^,()]+) \(within (?P<amount>[^()]+) of the best "
                         r"possible\)(?:, |$)")
UNPROVEN_NOTE = re.compile(
    rf"(?P<labels>.+): the best plan found in that direction within its share of the search "
    rf"{CAPPED}; a better one in that direction may exist")
LEFT_OUT_NOTE = re.compile(rf"alternatives within {SLACK} left out: (?P<body>.+)")
LEFT_OUT_ITEM = re.compile(r"(?P<labels>[^;()]+) \((?P<why>[^()]+)\)(?:; |$)")
OTHER_REASONS = tuple(re.compile(r) for r in (
    re.escape(NOT_FOUND),
    re.escape(NOT_FOUND) + r"; the .+ plan is better in that direction",
    r"the .+ plan is better in that direction than its own search's plan",
    r"the same servers as the .+ plan",
    rf"its servers, once packed, cost more than {DEFAULT_SLACK:.0%} over the cheapest",
    rf"its servers, once packed, have a TCO more than {DEFAULT_SLACK:.0%} over option 1's",
    r"its servers, once packed, broke the budget",
    r"the time limit ran out",
    r"(?:the cheapest plan|option 1) has none",
    r"(?:the cheapest plan|option 1) has no GPU",
))
"""Why a direction was left out, where no claim is made."""
OTHER_NOTES = tuple(re.compile(r) for r in (
    r"\d+ of \d+ options: ",
    r"the catalog gives no cpu_cores for ",
    r"option 1 is not proven optimal because of data drives",
    r"the wall clock, not the work budget, ended ",
    r"no R20 reference configuration priced",
    r"written without activation checkpointing, ",
))
"""Notes that make no claim about the alternatives."""


# --- runs -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Slack:
    """What a run's claims are relative to: its cheapest plan and the slack around it."""

    objective: str
    cheapest: PlanOption
    lower: float
    """L of the search's objective: the cheapest plan's proven bound (its value without one)."""
    budget: float | None

    @property
    def best(self) -> float:
        return self.cheapest.objective_value(self.objective)

    def admits(self, option: PlanOption) -> bool:
        """A plan the claims speak of: within the slack (and the budget), serving as much."""
        return (option.objective_value(self.objective)
                <= (1 + DEFAULT_SLACK) * self.best + 0.01
                and (self.budget is None or option.total_cost <= self.budget + 0.01)
                and set(option.unserved) == set(self.cheapest.unserved))

    def search_value(self, d: Direction, option: PlanOption, catalog: Catalog) -> float:
        """f / step + (cost - L) / S, the objective of ``d``'s search, on a packed plan."""
        return direction_value(d, option, catalog, option.objective_value(self.objective),
                               self.best, self.lower, DEFAULT_SLACK)


@dataclass(frozen=True)
class Run:
    """One ``pipeline.plan`` run and what its claims are relative to."""

    name: str
    result: PlanResult
    slack: Slack
    seconds: float


def plan_run(name: str, wf: WorkloadFile, catalog: Catalog, **kw) -> Run:
    """``pipeline.plan`` without the reference configuration; every option checked."""
    start = time.perf_counter()
    result = pipeline.plan(wf, catalog, with_baseline=False, **kw)
    seconds = time.perf_counter() - start
    for option in result.options:
        problems = check_plan(option, wf, catalog)
        assert problems == [], f"{name}: option {option.rank} fails the checker: {problems}"
    cheapest = next(o for o in result.options if direction_of(o, wf, catalog) is None)
    lower = cheapest.lower_bound
    best = cheapest.objective_value(wf.policy.objective)
    slack = Slack(wf.policy.objective, cheapest, best if lower is None else min(lower, best),
                  wf.policy.budget)
    return Run(name, result, slack, seconds)


@contextlib.contextmanager
def uncapped(d: Direction) -> Iterator[None]:
    """Alternatives' searches uncapped (1e6 x rank 1's work, ALTERNATIVE_GAP 1e-6: the run's
    gap then applies), and direction ``d`` the only one tried. A time limit's work budget is
    calibrated to end solves well before its clock (``tuning.TICKS_PER_SECOND_AT_1000_ROWS``):
    made a million times larger, only the clock ends them."""
    saved = (tuning.ALTERNATIVE_WORK, tuning.ALTERNATIVE_GAP, near_optimal.directions,
             tuning.TICKS_PER_SECOND_AT_1000_ROWS)
    tuning.ALTERNATIVE_WORK, tuning.ALTERNATIVE_GAP = 1e6, 1e-6
    near_optimal.directions = lambda policy=None: (d,)
    tuning.TICKS_PER_SECOND_AT_1000_ROWS *= 1e6
    try:
        yield
    finally:
        (tuning.ALTERNATIVE_WORK, tuning.ALTERNATIVE_GAP, near_optimal.directions,
         tuning.TICKS_PER_SECOND_AT_1000_ROWS) = saved


def direction_of(option: PlanOption, wf: WorkloadFile, catalog: Catalog) -> Direction | None:
    """The direction an option's label names (``label_of``); None for the cheapest plan."""
    return next((d for d in directions(wf.policy)
                 if label_of(d, option, catalog) == option.label), None)


# --- claims ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """No plan within the run's slack has an f in ``direction`` below ``floor`` - ``tol``."""

    kind: str
    """"proven", "within", "as good" or "optimal" (module docstring)."""
    direction: Direction
    label: str
    """The option claimed of (for "as good": the direction left out, the cheapest measured)."""
    measure: float
    """f of the option claimed of (for "as good": of the cheapest plan)."""
    floor: float
    tol: float
    run: Run
    short: float | None = None
    """"within": the distance to the best possible that the note gives."""
    search_floor: float | None = None
    """"as good"/"optimal": the least objective (``Slack.search_value``) a plan within the
    slack can have by the search's gap; a witness lower in f but not below it is TRADED."""
    tops: tuple[int, ...] = ()

    def key(self) -> tuple:
        return (self.kind, self.direction.key, round(self.measure, 6), round(self.floor, 6))


def claims_of(run: Run, wf: WorkloadFile, catalog: Catalog) -> tuple[list[Claim], list[str]]:
    """The claims a run's notes make, and its notes that were not recognised. An alternative
    no note speaks of makes the "optimal" claim."""
    claims: list[Claim] = []
    unrecognised: list[str] = []
    noted: set[str] = set()
    for note in run.result.notes:
        parsed = parse_note(note, run, wf, catalog)
        if parsed is None:
            unrecognised.append(note)
            continue
        claims += parsed[0]
        noted |= parsed[1]
    claims += [optimal_claim(run, o, wf, catalog) for o in run.result.options
               if o.label not in noted and direction_of(o, wf, catalog) is not None]
    return claims, unrecognised


def parse_note(note: str, run: Run, wf: WorkloadFile,
               catalog: Catalog) -> tuple[list[Claim], set[str]] | None:
    """The claims one note makes and the options it speaks of (None: not recognised)."""
    options = {o.label: o for o in run.result.options}
    if m := PROVEN_NOTE.fullmatch(note):
        labels = m["labels"].split(", ")
        if not set(labels) <= options.keys():
            return None
        return [proven_claim(run, options[lb], wf, catalog) for lb in labels], set(labels)
    if m := WITHIN_NOTE.fullmatch(note):
        items = list(WITHIN_ITEM.finditer(m["items"]))
        labels = [i["label"] for i in items]
        if "".join(i[0] for i in items) != m["items"] or not set(labels) <= options.keys():
            return None
        return ([within_claim(run, options[i["label"]], i["amount"], wf, catalog)
                 for i in items], set(labels))
    if m := UNPROVEN_NOTE.fullmatch(note):
        return [], set(m["labels"].split(", "))
    if m := LEFT_OUT_NOTE.fullmatch(note):
        return left_out_claims(m["body"], run, wf, catalog)
    if any(r.match(note) for r in OTHER_NOTES):
        return [], set()
    return None


def left_out_claims(body: str, run: Run, wf: WorkloadFile,
                    catalog: Catalog) -> tuple[list[Claim], set[str]] | None:
    """"as good" claims of "<labels> (why); ..." (None: a reason or label not recognised)."""
    by_label = {d.label: d for d in directions(wf.policy)}
    items = [(i["labels"].split(", "), i["why"]) for i in LEFT_OUT_ITEM.finditer(body)]
    if "; ".join(f"{', '.join(labels)} ({why})" for labels, why in items) != body:
        return None
    if not all(set(labels) <= by_label.keys()
               and (why in AS_GOODS or any(r.fullmatch(why) for r in OTHER_REASONS))
               for labels, why in items):
        return None
    return [as_good_claim(run, by_label[lb], catalog)
            for labels, why in items if why in AS_GOODS for lb in labels], set()


def _measured(run: Run, option: PlanOption, wf: WorkloadFile,
              catalog: Catalog) -> tuple[Direction, float]:
    d = direction_of(option, wf, catalog)
    assert d is not None, f"{run.name}: no direction is labelled {option.label!r}"
    return d, d.measure(option, catalog)


def proven_claim(run: Run, option: PlanOption, wf: WorkloadFile, catalog: Catalog) -> Claim:
    d, f = _measured(run, option, wf, catalog)
    return Claim("proven", d, option.label, f, f, COUNT_TOL * max(1.0, abs(f)), run)


def within_claim(run: Run, option: PlanOption, amount: str, wf: WorkloadFile,
                 catalog: Catalog) -> Claim:
    d, f = _measured(run, option, wf, catalog)
    short = float(re.sub(r"[^\d.]", "", amount))  # "7,032 W", "1 server", "USD 1,200"
    tol = COUNT_TOL if d.counted else ROUNDED_TOL
    return Claim("within", d, option.label, f, f - short, tol, run, short=short)


def as_good_claim(run: Run, d: Direction, catalog: Catalog) -> Claim:
    """The search, proven to its gap, ended on a plan no better than the cheapest (f ≥ the
    cheapest's, cost term ≥ 0), or its bound proved that none is: any plan's objective is at
    least f* / step minus the gap of the search's value (at most f* / step + 1)."""
    f = d.measure(run.slack.cheapest, catalog)
    value = f / d.step
    search_floor = value - SEARCH_GAP * max(1.0, abs(value) + 1) - EPS * max(1.0, abs(value))
    return Claim("as good", d, d.label, f, f, COUNT_TOL * max(1.0, abs(f)), run,
                 search_floor=search_floor)


def optimal_claim(run: Run, option: PlanOption, wf: WorkloadFile, catalog: Catalog) -> Claim:
    """The option's search ended within its gap: no plan's objective is below the option's
    by more than the gap."""
    d, f = _measured(run, option, wf, catalog)
    value = run.slack.search_value(d, option, catalog)
    search_floor = value - (SEARCH_GAP + EPS) * max(1.0, abs(value))
    return Claim("optimal", d, option.label, f, f, COUNT_TOL * max(1.0, abs(f)), run,
                 search_floor=search_floor)


def merged(claims: list[Claim]) -> list[Claim]:
    """One claim per (kind, direction, figures): the runs of each --top make many alike."""
    out: dict[tuple, Claim] = {}
    for c in claims:
        first = out.get(c.key())
        out[c.key()] = c if first is None else replace(first, tops=first.tops + c.tops)
    return list(out.values())


# --- verdicts -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Witness:
    """A checked, packed plan one of the mix's runs returned."""

    source: str
    """The run and the option's label ("uncapped power/lowest power")."""
    option: PlanOption


@dataclass(frozen=True)
class Verdict:
    mix: str
    claim: Claim
    verdict: str
    """OK, TRADED or REFUTED (module docstring)."""
    best: Witness
    """The witness lowest in f among those the claim speaks of."""
    best_f: float
    against: Witness | None
    """The witness below the floor lowest on the search's objective (None: OK)."""

    @property
    def actual_short(self) -> float:
        """How far the option is from the best witness in its direction (≥ 0: the option
        is a witness too)."""
        return self.claim.measure - self.best_f


def witnesses(runs: list[Run]) -> list[Witness]:
    """Every option of every run, each distinct plan once (its first source)."""
    out: dict[tuple, Witness] = {}
    for run in runs:
        for o in run.result.options:
            out.setdefault((server_key(o), round(o.total_cost, 2)),
                           Witness(f"{run.name}/{o.label}", o))
    return list(out.values())


def judge(mix: str, claim: Claim, pool: list[Witness], catalog: Catalog) -> Verdict:
    d, slack = claim.direction, claim.run.slack
    admitted = [w for w in pool if slack.admits(w.option)]
    best = min(admitted, key=lambda w: d.measure(w.option, catalog))
    below = [w for w in admitted if d.measure(w.option, catalog) < claim.floor - claim.tol]
    if not below:
        return Verdict(mix, claim, "OK", best, d.measure(best.option, catalog), None)
    against = min(below, key=lambda w: slack.search_value(d, w.option, catalog))
    traded = (claim.search_floor is not None
              and slack.search_value(d, against.option, catalog) >= claim.search_floor)
    return Verdict(mix, claim, "TRADED" if traded else "REFUTED", best,
                   d.measure(best.option, catalog), against)


def row(v: Verdict, catalog: Catalog) -> str:
    """One verdict on a line: the claim, the best witness, and what beat the claim."""
    c, d = v.claim, v.claim.direction

    def shown(w: Witness) -> str:
        value = w.option.objective_value(c.run.slack.objective)
        return f"f={d.measure(w.option, catalog):,.1f} value={value:,.0f} ({w.source})"

    line = (f"{v.verdict:<7} {v.mix} top={','.join(map(str, c.tops))} {c.kind} {d.key} "
            f"[{c.label}]: f={c.measure:,.1f}, floor={c.floor:,.1f} (tol {c.tol:.2g}), "
            f"cheapest's value {c.run.slack.best:,.0f}; best witness {shown(v.best)}")
    if c.short:
        line += (f"; within {c.short:,.0f} claimed, {v.actual_short:,.1f} found "
                 f"({v.actual_short / c.short:.0%})")
    if v.against is not None:
        search = c.run.slack.search_value(d, v.against.option, catalog)
        line += f"; beaten by {shown(v.against)}"
        if c.search_floor is not None:
            line += f", search objective {search:.4f} vs floor {c.search_floor:.4f}"
    return line


# --- one mix --------------------------------------------------------------------------------


@dataclass
class Report:
    verdicts: list[Verdict] = field(default_factory=list)
    unrecognised: list[str] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)
    unproven: list[str] = field(default_factory=list)
    """Uncapped searches that ended short of their gap (their direction's best is not known)."""


def attempt(report: Report, what: str, name: str, wf: WorkloadFile, catalog: Catalog,
            **kw) -> Run | None:
    """``plan_run``, or None with the error recorded: one crash does not end the benchmark."""
    try:
        return plan_run(name, wf, catalog, **kw)
    except Exception as exc:  # noqa: BLE001 - reported, and the next run goes on
        message = f"{what}: {type(exc).__name__}: {exc}"
        report.crashes.append(message)
        print(f"  CRASH {message}", flush=True)
        return None


def capped_runs(mix: str, wf: WorkloadFile, catalog: Catalog, tops: list[int],
                report: Report) -> tuple[list[Run], list[Claim]]:
    """The runs as shipped (``--top`` each of ``tops``, no time limit) and their claims."""
    runs: list[Run] = []
    claims: list[Claim] = []
    for top in tops:
        run = attempt(report, f"{mix} top={top}", f"top{top}", wf, catalog, top=top)
        if run is None:
            continue
        runs.append(run)
        found, unknown = claims_of(run, wf, catalog)
        claims += [replace(c, tops=(top,)) for c in found]
        print(f"  top={top}: {run.seconds:.1f} s, {len(run.result.options)} options, "
              f"{len(found)} claims", flush=True)
        for note in unknown:
            report.unrecognised.append(f"{mix} top={top}: {note}")
            print(f"  UNRECOGNISED NOTE: {note}", flush=True)
    return runs, merged(claims)


def uncapped_runs(mix: str, wf: WorkloadFile, catalog: Catalog, claimed: set[str],
                  time_limit: float, report: Report) -> list[Run]:
    """One uncapped search of each direction claimed, with the time limit."""
    runs = []
    for d in directions(wf.policy):
        if d.key not in claimed:
            continue
        with uncapped(d):
            run = attempt(report, f"{mix} uncapped {d.key}", f"uncapped {d.key}", wf, catalog,
                          top=2, time_limit=time_limit)
        if run is not None:
            runs.append(run)
            found = ", ".join(f"{o.label} f={d.measure(o, catalog):,.1f}"
                              for o in run.result.options)
            kinds = [f"{c.kind} [{c.label}]" for c in claims_of(run, wf, catalog)[0]]
            print(f"  uncapped {d.key}: {run.seconds:.1f} s, {found}; its notes claim: "
                  f"{', '.join(kinds) or 'nothing'}", flush=True)
            if not any(k.startswith(("optimal", "as good")) for k in kinds):
                report.unproven.append(f"{mix} {d.key}: {' | '.join(run.result.notes)}")
    return runs


def check_mix(mix: str, wf: WorkloadFile, catalog: Catalog, args: argparse.Namespace,
              report: Report) -> None:
    """The capped runs' claims judged against every run's options."""
    runs, claims = capped_runs(mix, wf, catalog, args.tops, report)
    runs += uncapped_runs(mix, wf, catalog, {c.direction.key for c in claims},
                          args.time_limit, report)
    pool = witnesses(runs)
    for c in claims:
        v = judge(mix, c, pool, catalog)
        report.verdicts.append(v)
        print("  " + row(v, catalog), flush=True)


# --- the benchmark --------------------------------------------------------------------------


def mixes(args: argparse.Namespace) -> Iterator[tuple[str, WorkloadFile]]:
    """The shipped workload files, then the generated mixes (size x seed)."""
    if args.shipped:
        for path in sorted((ROOT / "workloads").glob("*.yaml")):
            wf = load_workloads(path)
            yield path.stem, wf
            if wf.policy.tco is not None and wf.policy.objective == "tco":
                # The same mix ranked by capex: "lowest TCO" is then a direction too.
                capex = wf.policy.model_copy(update={"objective": "capex"})
                yield f"{path.stem} (objective: capex)", wf.model_copy(update={"policy": capex})
    for n in args.sizes:
        for seed in args.seeds:
            yield f"generated n={n} seed={seed}", generate(n, seed)


def summary(report: Report, catalog: Catalog, seconds: float) -> list[str]:
    """Claims by kind and verdict, the tightness of "within" claims, and what went wrong."""
    lines = [f"{'kind':<8} {'claims':>6} {'OK':>4} {'TRADED':>6} {'REFUTED':>7}"]
    for kind in ("proven", "within", "as good", "optimal", "all"):
        vs = [v for v in report.verdicts if kind in ("all", v.claim.kind)]
        counts = [sum(v.verdict == s for v in vs) for s in ("OK", "TRADED", "REFUTED")]
        lines.append(f"{kind:<8} {len(vs):>6} {counts[0]:>4} {counts[1]:>6} {counts[2]:>7}")
    within = [v for v in report.verdicts if v.claim.short]
    if within:
        ratios = [v.actual_short / v.claim.short for v in within if v.claim.short]
        lines += ["", ("'within' claims (distance found to the best witness / distance "
                       f"claimed): median {statistics.median(ratios):.0%}, min "
                       f"{min(ratios):.0%}, max {max(ratios):.0%}; "
                       f"{sum(r <= 0 for r in ratios)} of {len(ratios)} with no better witness")]
        lines += [f"  {v.mix} {v.claim.direction.key}: claimed {v.claim.short:,.0f}, found "
                  f"{v.actual_short:,.1f}" for v in within]
    for title, items in (
            ("TRADED", [row(v, catalog) for v in report.verdicts if v.verdict == "TRADED"]),
            ("REFUTED", [row(v, catalog) for v in report.verdicts if v.verdict == "REFUTED"]),
            ("unrecognised notes", report.unrecognised), ("crashed runs", report.crashes),
            ("uncapped searches not proven (their notes)", report.unproven)):
        lines += ["", f"{title}: {len(items)}", *(f"  {i}" for i in items)]
    return lines + ["", f"{seconds:.0f} s"]


def numbers(text: str) -> list[int]:
    """"1-3,8" -> [1, 2, 3, 8]."""
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=numbers, default=[5, 8, 10],
                    help="generated mixes' sizes (default 5,8,10)")
    ap.add_argument("--seeds", type=numbers, default=list(range(1, 7)),
                    help="generated mixes' seeds, e.g. 1-4 (default 1-6)")
    ap.add_argument("--tops", type=numbers, default=[3, 6],
                    help="--top of the capped runs whose claims are checked (default 3,6)")
    ap.add_argument("--time-limit", type=float, default=20.0,
                    help="seconds per uncapped run (default 20)")
    ap.add_argument("--no-shipped", dest="shipped", action="store_false",
                    help="skip the workloads/*.yaml files")
    args = ap.parse_args()
    catalog = load_catalog(DEFAULT_CATALOG)
    report = Report()
    start = time.perf_counter()
    for mix, wf in mixes(args):
        print(f"{mix} ({time.perf_counter() - start:.0f} s)", flush=True)
        check_mix(mix, wf, catalog, args, report)
    print("\n" + "\n".join(summary(report, catalog, time.perf_counter() - start)))


if __name__ == "__main__":
    main()
