"""Recalculate workbooks in LibreOffice and list the formula cells whose stored value differs.

plan-buy stores each formula's computed value next to the formula (XlsxWriter), so a
previewer, pandas or ``soffice --convert-to pdf`` shows the stored number without
recalculating. These helpers check that number is the one the formula computes:

- ``recalculate`` converts many .xlsx files to .xlsx in ONE headless LibreOffice run (its
  start-up is most of the cost), with a throw-away user profile whose settings force
  LibreOffice to recalculate every formula on load (by default it trusts the stored values
  of a file written by another program, and would compare the file with itself);
- ``stored_vs_recalculated`` compares every formula cell of the original with the same cell
  of the recalculated copy.

Used by tests/test_recalc.py; ``python tests/recalc.py FILE.xlsx...`` prints the same
comparison for files at hand.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import openpyxl

RECALC_ON_LOAD = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry"
 xmlns:xs="http://www.w3.org/2001/XMLSchema"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""
"""LibreOffice user settings: recalculate .xlsx and .ods files on load (0 = always)."""

TIMEOUT_S = 600
"""Longest one LibreOffice run may take: a stuck soffice must not hang the test run."""

REL_TOL = 1e-6
"""Relative tolerance of a numeric comparison (floating point, not rounding: a formula
stored rounded to cents where it computes more digits is a difference)."""


def soffice() -> str | None:
    """The LibreOffice command (``soffice`` or ``libreoffice``), None when not installed."""
    return shutil.which("soffice") or shutil.which("libreoffice")


def recalculate(paths: list[Path], out_dir: Path) -> dict[Path, Path]:
    """Recalculate every workbook in one LibreOffice run; return original -> recalculated.

    Args:
        paths: .xlsx files; their file names must differ (the copies keep them).
        out_dir: empty folder for the recalculated copies.

    Raises:
        FileNotFoundError: LibreOffice is not installed.
        ValueError: two files have the same name.
        RuntimeError: LibreOffice failed or left a copy out (its output is in the message).
    """
    exe = soffice()
    if exe is None:
        raise FileNotFoundError("LibreOffice (soffice) is not installed")
    names = [p.name for p in paths]
    if len(set(names)) != len(names):
        raise ValueError(f"workbooks with the same file name: {sorted(names)}")
    with tempfile.TemporaryDirectory(prefix="plan-buy-lo-") as profile:
        settings = Path(profile) / "user" / "registrymodifications.xcu"
        settings.parent.mkdir(parents=True)
        settings.write_text(RECALC_ON_LOAD, encoding="utf-8")
        cmd = [exe, f"-env:UserInstallation={Path(profile).as_uri()}", "--headless",
               "--norestore", "--convert-to", "xlsx:Calc MS Excel 2007 XML",
               "--outdir", str(out_dir), *map(str, paths)]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S,
                              check=False)
    copies = {p: Path(out_dir) / p.name for p in paths}
    missing = [p.name for p, c in copies.items() if not c.exists()]
    if done.returncode != 0 or missing:
        raise RuntimeError(f"soffice exited {done.returncode}, no copy of {missing}:\n"
                           f"{done.stdout}\n{done.stderr}")
    return copies


@dataclass(frozen=True)
class Difference:
    """One formula cell whose stored value is not what LibreOffice computes."""

    sheet: str
    cell: str
    formula: str
    stored: object
    recalculated: object

    def __str__(self) -> str:
        return (f"{self.sheet}!{self.cell} {self.formula[:70]}: stored {self.stored!r}, "
                f"computes {self.recalculated!r}")


def _same(stored: object, computed: object) -> bool:
    if isinstance(stored, bool) or isinstance(computed, bool):
        return stored == computed
    if isinstance(stored, (int, float)) and isinstance(computed, (int, float)):
        return abs(stored - computed) <= REL_TOL * max(1.0, abs(computed))
    empty = (None, "")
    return stored == computed or (stored in empty and computed in empty)


def stored_vs_recalculated(original: Path, recalculated: Path) -> tuple[int, list[Difference]]:
    """Compare every formula cell's stored value with its recalculated value.

    Returns:
        The number of formula cells, and the cells that differ.
    """
    formulas = openpyxl.load_workbook(original)
    stored = openpyxl.load_workbook(original, data_only=True)
    computed = openpyxl.load_workbook(recalculated, data_only=True)
    count, diffs = 0, []
    for ws in formulas.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if not (isinstance(c.value, str) and c.value.startswith("=")):
                    continue
                count += 1
                s = stored[ws.title][c.coordinate].value
                r = computed[ws.title][c.coordinate].value
                if not _same(s, r):
                    diffs.append(Difference(ws.title, c.coordinate, c.value, s, r))
    return count, diffs


def report(name: str, count: int, diffs: list[Difference], show: int = 15) -> str:
    """``q3.xlsx: 3 of 181 formula cells store another value than they compute`` and the
    first ``show`` of them, one a line."""
    head = f"{name}: {len(diffs)} of {count} formula cells store another value than they compute"
    return "\n".join([head, *(f"  {d}" for d in diffs[:show])])


if __name__ == "__main__":
    files = [Path(a) for a in sys.argv[1:]]
    with tempfile.TemporaryDirectory() as out:
        for src, copy in recalculate(files, Path(out)).items():
            n, bad = stored_vs_recalculated(src, copy)
            print(report(str(src), n, bad, int(os.environ.get("SHOW", "15"))))
