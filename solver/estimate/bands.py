"""The error band of an estimate's regime, from the published validation cases (E3).

``solver/data/error_bands.yaml`` is written by ``bench/error_bands.py`` from the validation
sets (``tests/data/memory_cases.yaml``, ``tests/data/throughput_cases.yaml``) and shipped
with the package; a test fails when it no longer matches them. One entry per regime:

    quantity  peak_memory | tokens_per_s | tpot_ms | ttft_ms
    kind      train | lora | qlora | inference
    gpus      one (1 GPU per replica) | several (2 or more) | any (all the cases of the kind)
    cases     published measurements counted (formula checks and informational cases not)
    within_pct   the largest |estimate - measured| / measured over them, rounded up, %
    median_pct   their median |error|, %; low_pct / high_pct the signed extremes, %

An estimate of a replica on ``degree`` GPUs reads the entry of its gpus class, else the
kind's ``any`` entry (then its text says no case was measured at that degree), else none:
"no published case", the error is unknown. Pure lookups; the file is read once.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import yaml

BANDS_PATH = Path(__file__).resolve().parent.parent / "data" / "error_bands.yaml"
"""The shipped table (package data)."""
QUANTITIES = {
    "peak_memory": "peak memory",
    "tokens_per_s": "tokens/s",
    "tpot_ms": "time per output token",
    "ttft_ms": "time to first token",
}
"""Each quantity a band is kept for, as a report words it."""
KIND_LABELS = {"train": "Training", "lora": "LoRA", "qlora": "QLoRA", "inference": "Inference"}
GPUS_LABELS = {"one": "1 GPU", "several": "2+ GPUs", "any": "any GPUs"}


def gpus_class(degree: int) -> str:
    """``one`` for a replica on one GPU, ``several`` for 2 or more."""
    return "one" if degree <= 1 else "several"


def quantities_for(kind: str) -> tuple[str, ...]:
    """The quantities an estimate row of ``kind`` shows a band for (preprocess: none)."""
    if kind == "inference":
        return ("peak_memory", "tokens_per_s", "tpot_ms", "ttft_ms")
    if kind in KIND_LABELS:
        return ("peak_memory", "tokens_per_s")
    return ()


@dataclass(frozen=True)
class Band:
    """How far the estimate of one regime fell from the published cases of it."""

    quantity: str
    kind: str
    gpus: str
    cases: int
    within_pct: int
    median_pct: float
    low_pct: float
    high_pct: float

    @property
    def regime(self) -> str:
        """``QLoRA peak memory, 1 GPU``."""
        return f"{KIND_LABELS[self.kind]} {QUANTITIES[self.quantity]}, {GPUS_LABELS[self.gpus]}"

    def text(self, degree: int | None = None) -> str:
        """``QLoRA peak memory, 1 GPU: within ±10% on 2 published cases (median 7.6%)``;
        given the row's ``degree`` and an ``any`` band, says no case ran at it."""
        cases = f"{self.cases} published case{'s' if self.cases != 1 else ''}"
        out = (f"{self.regime}: within ±{self.within_pct}% on {cases} "
               f"(median {self.median_pct:.1f}%)")
        if self.gpus == "any" and degree is not None:
            out += f"; none measured at {GPUS_LABELS[gpus_class(degree)]}"
        return out

    def short(self) -> str:
        """``peak memory ±6% on 4 cases (median 2.3%)`` (the terminal's form)."""
        cases = f"{self.cases} case{'s' if self.cases != 1 else ''}"
        out = f"{QUANTITIES[self.quantity]} ±{self.within_pct}% on {cases}"
        if self.gpus == "any":
            out += " at other degrees"
        return out + f" (median {self.median_pct:.1f}%)"

    def to_json(self, degree: int | None = None) -> dict:
        """The ``band`` entry of an estimate row (docs/json.md)."""
        return {"regime": self.regime, "cases": self.cases, "within_pct": self.within_pct,
                "median_pct": self.median_pct, "low_pct": self.low_pct,
                "high_pct": self.high_pct, "text": self.text(degree)}


@functools.lru_cache(maxsize=4)
def load_bands(path: Path = BANDS_PATH) -> dict[tuple[str, str, str], Band]:
    """The shipped table by (quantity, kind, gpus)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    out = {}
    for entry in data.get("bands") or []:
        b = Band(**entry)
        out[(b.quantity, b.kind, b.gpus)] = b
    return out


def band_for(quantity: str, kind: str, degree: int,
             path: Path = BANDS_PATH) -> Band | None:
    """The band of the regime (quantity, kind, degree's gpus class), else the kind's
    ``any`` band, else None (no published case)."""
    table = load_bands(path)
    return table.get((quantity, kind, gpus_class(degree))) or table.get((quantity, kind, "any"))


def row_bands(kind: str, degree: int) -> dict[str, Band | None]:
    """Every quantity a row of ``kind`` shows, with its band (None: no published case)."""
    return {q: band_for(q, kind, degree) for q in quantities_for(kind)}


def bands_json(kind: str, degree: int) -> dict:
    """``{"band": {quantity: entry | null}}`` for an estimate row; ``{}`` for preprocess."""
    bands = row_bands(kind, degree)
    if not bands:
        return {}
    shown = degree if degree >= 1 else None
    return {"band": {q: None if b is None else b.to_json(shown) for q, b in bands.items()}}


def short_text(b: Band | None, quantity: str) -> str:
    """:meth:`Band.short`, or ``time per output token: no published case``."""
    return b.short() if b is not None else f"{QUANTITIES[quantity]}: no published case"


def band_text(b: Band | None, quantity: str, kind: str, degree: int) -> str:
    """A band in words, or what it is when no published case covers the regime."""
    if b is not None:
        return b.text(degree)
    gpus = GPUS_LABELS[gpus_class(degree)]
    return (f"{KIND_LABELS.get(kind, kind)} {QUANTITIES[quantity]}, {gpus}: no published "
            "case; the error is unknown")
