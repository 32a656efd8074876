"""The Throughput sheet (T5): tokens/s per option and workload against its target,
with live totals, days to finish and GPU-hours."""

from __future__ import annotations

from xlsxwriter.utility import xl_rowcol_to_cell

from .base import BookBase
from .sheet import HEADER_ROW, Sheet


class ThroughputSheet(BookBase):
    """Throughput sheet(s) of the workbook."""

    # -- Throughput (T5) ------------------------------------------------------------------
    THROUGHPUT_COLUMNS = (
        "Option", "Workload", "GPU", "Degree", "Replicas", "GPUs", "Tokens/s per replica",
        "Tokens/s", "Efficiency", "Delivered tokens/s", "Target tokens/s", "Tokens",
        "Days to finish", "GPU-hours", "TPOT ms", "TTFT ms",
    )

    def _throughput(self, sh: Sheet) -> None:
        """One row per (option, workload, GPU, degree) with its per-replica tokens/s, then a
        total row per workload: delivered = efficiency × Σ tokens/s, days = tokens ÷
        (delivered × 86,400), GPU-hours = GPUs × days × 24, all live formulas."""
        f = self.fmt
        cols = self.THROUGHPUT_COLUMNS
        c = {name: i for i, name in enumerate(cols)}
        sh.header(HEADER_ROW, list(cols), numeric=set(range(3, len(cols))))
        cell = xl_rowcol_to_cell
        r = HEADER_ROW + 1
        for opt in self.result.options:
            for fig in opt.throughput:
                groups: dict[tuple[str | None, int], list] = {}
                for p in opt.placements:
                    if p.workload == fig.workload:
                        groups.setdefault((p.gpu, p.gpus), []).append(p)
                first = r
                for (gpu, degree), reps in sorted(groups.items(), key=lambda kv: str(kv[0])):
                    per = reps[0].tokens_per_s or 0.0
                    sh.put(r, c["Option"], f"Option {opt.rank}")
                    sh.put(r, c["Workload"], fig.workload)
                    sh.put(r, c["GPU"], gpu)
                    sh.put(r, c["Degree"], degree, f.int)
                    sh.put(r, c["Replicas"], len(reps), f.int)
                    sh.formula(r, c["GPUs"], f"={cell(r, c['Degree'])}*{cell(r, c['Replicas'])}",
                               float(degree * len(reps)), f.int)
                    sh.put(r, c["Tokens/s per replica"], per, f.num)
                    sh.formula(r, c["Tokens/s"],
                               f"={cell(r, c['Replicas'])}*{cell(r, c['Tokens/s per replica'])}",
                               per * len(reps), f.num)
                    sh.put(r, c["TPOT ms"], reps[0].tpot_ms, f.num2)
                    sh.put(r, c["TTFT ms"], reps[0].ttft_ms, f.num)
                    r += 1
                last = r - 1
                total = sum((p.tokens_per_s or 0.0) for ps in groups.values() for p in ps)
                sh.put(r, c["Option"], f"Option {opt.rank}", f.bold)
                sh.put(r, c["Workload"], f"{fig.workload} total", f.bold)

                def col_sum(name: str, first: int = first, last: int = last) -> str:
                    return f"=SUM({cell(first, c[name])}:{cell(last, c[name])})"
                sh.formula(r, c["Replicas"], col_sum("Replicas"), float(fig.replicas), f.int)
                sh.formula(r, c["GPUs"], col_sum("GPUs"), float(fig.gpus), f.int)
                sh.formula(r, c["Tokens/s"], col_sum("Tokens/s"), total, f.num)
                sh.put(r, c["Efficiency"], fig.fraction, f.pct)
                sh.formula(r, c["Delivered tokens/s"],
                           f"={cell(r, c['Efficiency'])}*{cell(r, c['Tokens/s'])}",
                           fig.tokens_per_s, f.num)
                sh.put(r, c["Target tokens/s"], fig.target_tokens_per_s, f.num)
                if fig.tokens is not None and fig.days_to_finish is not None:
                    sh.put(r, c["Tokens"], fig.tokens, f.int)
                    sh.formula(r, c["Days to finish"],
                               f"={cell(r, c['Tokens'])}/"
                               f"({cell(r, c['Delivered tokens/s'])}*86400)",
                               fig.days_to_finish, f.num2)
                    sh.formula(r, c["GPU-hours"],
                               f"={cell(r, c['GPUs'])}*{cell(r, c['Days to finish'])}*24",
                               fig.gpu_hours or 0.0, f.num)
                sh.put(r, c["TPOT ms"], fig.tpot_ms, f.num2)
                sh.put(r, c["TTFT ms"], fig.ttft_ms, f.num)
                r += 2
        sh.finish(freeze_col=2)

    # -- Sweep ----------------------------------------------------------------------------
