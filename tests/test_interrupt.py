"""Ctrl-C and SIGTERM: exit 130, one line on stderr, no solver or worker left, no temp file.

Each test runs the real CLI on a generated mix that keeps CBC busy for tens of seconds,
waits until a ``cbc`` of this run is working, signals plan-buy and then looks at what is
left: processes (through /proc) and files in the TMPDIR the run was given. Nothing here
depends on timing beyond generous timeouts.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.generate import generate_data, write_yaml
from solver.interrupt import EXIT_CODE

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads processes from /proc"
)


def _processes_mentioning(text: str) -> list[int]:
    """Live (not zombie) processes whose command line contains ``text``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text in cmdline and state != "Z" and int(pid) != os.getpid():
            found.append(int(pid))
    return found


def _wait_for(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


@pytest.fixture(scope="module")
def slow_mix(tmp_path_factory) -> Path:
    """100 generated workloads: CBC needs far longer than these tests wait."""
    folder = tmp_path_factory.mktemp("mix")
    return write_yaml(generate_data(100, 1), folder / "slow.yaml")


def _interrupt(
    args: list[str], sig: int, tmp_path: Path
) -> tuple[subprocess.CompletedProcess, Path]:
    """Run ``cli.py ARGS`` with TMPDIR in ``tmp_path``, send ``sig`` once CBC works."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    proc = subprocess.Popen(
        [sys.executable, "cli.py", *args],
        cwd=ROOT,
        env=env,
        text=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        # A shell may start background jobs with Ctrl-C ignored; a user's terminal does not.
        # (The test process has no threads of its own that a forked child could wait on.)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509
    )
    try:
        started = _wait_for(lambda: _processes_mentioning(f"{tmpdir}/"), timeout=120)
        assert started, "cbc never started"
        proc.send_signal(sig)
        _, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return subprocess.CompletedProcess(proc.args, proc.returncode, None, stderr), tmpdir


def _assert_clean(res: subprocess.CompletedProcess, tmp_path: Path, tmpdir: Path) -> None:
    assert res.returncode == EXIT_CODE, res.stderr
    assert res.stderr.strip().startswith("plan-buy: interrupted"), res.stderr
    assert "Traceback" not in res.stderr and "Aborted" not in res.stderr
    # cbc's command line names its files in tmpdir; a sweep worker's names the mix's folder
    assert _wait_for(lambda: not _processes_mentioning(str(tmp_path)), timeout=10), (
        _processes_mentioning(str(tmp_path))
    )
    assert list(tmpdir.iterdir()) == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_plan_with_cbc(slow_mix, tmp_path, sig):
    out = tmp_path / "out"
    res, tmpdir = _interrupt(
        ["plan", str(slow_mix), "--solver", "cbc", "--out", str(out)], sig, tmp_path
    )
    _assert_clean(res, tmp_path, tmpdir)
    assert not out.exists() or list(out.iterdir()) == []
    assert res.stderr.strip().count("\n") == 0  # one line


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_sweep_workers_and_their_cbc(slow_mix, tmp_path, sig):
    out = tmp_path / "out"
    args = [
        "sweep",
        str(slow_mix),
        "--solver",
        "cbc",
        "--jobs",
        "2",
        "--growth",
        "1,1.5",
        "--out",
        str(out),
    ]
    res, tmpdir = _interrupt(args, sig, tmp_path)
    _assert_clean(res, tmp_path, tmpdir)
    # the finished scenarios (none yet) are written whole; no temp file beside them
    assert sorted(p.name for p in out.iterdir()) == ["bench-n100-s1-sweep.csv"]


# Marks, in the file PLAN_BUY_TEST_SOLVING names, that a HiGHS solve has begun, then runs
# the CLI: the test signals once the file is there, not after a guessed sleep.
_MARK_SOLVING = """
import os
import sys

import highspy

run = highspy.Highs.run

def marked_run(self):
    open(os.environ["PLAN_BUY_TEST_SOLVING"], "w").close()
    return run(self)

highspy.Highs.run = marked_run
from cli import main
main(sys.argv[1:])
"""


def test_plan_with_highs_stops_inside_the_solve(tmp_path):
    """HiGHS runs in-process: Ctrl-C reaches it through its search callbacks, so the run
    ends within seconds instead of when the solve would (minutes on this mix; before this
    path, a 1,000-workload run was still running 90 s after the signal)."""
    mix = write_yaml(generate_data(300, 1), tmp_path / "slow300.yaml")
    solving = tmp_path / "solving"
    proc = subprocess.Popen(
        [sys.executable, "-c", _MARK_SOLVING, "plan", str(mix), "--solver", "highs",
         "--no-workbook", "--top", "1"],
        cwd=ROOT, text=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env={**os.environ, "PLAN_BUY_TEST_SOLVING": str(solving)},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509
    )
    try:
        assert _wait_for(solving.exists, timeout=120), "HiGHS never started"
        time.sleep(0.5)  # so the signal lands inside run(), not on the way to it
        assert proc.poll() is None, "the solve finished before it could be interrupted"
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == EXIT_CODE, stderr
    assert stderr.strip() == "plan-buy: interrupted"


# A Ctrl-C that lands while highspy is imported, simulated: running its module raises it
# (finding it does not: PuLP looks it up first, outside its bare except).
_INTERRUPTED_IMPORT = """
import importlib.machinery
import sys

class Loader:
    def __init__(self, real):
        self.real = real

    def create_module(self, spec):
        return self.real.create_module(spec)

    def exec_module(self, module):
        raise KeyboardInterrupt

class Interrupting:
    def find_spec(self, name, path=None, target=None):
        if name != "highspy":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None:
            spec.loader = Loader(spec.loader)
        return spec

sys.meta_path.insert(0, Interrupting())
"""


def test_ctrl_c_during_the_highspy_import_is_not_swallowed():
    """PuLP imports highspy under a bare ``except:``: the interrupt was lost and HiGHS
    marked unavailable, so the run went on with CBC (3 of 12 early Ctrl-Cs exited 0)."""
    script = _INTERRUPTED_IMPORT + """
try:
    import solver.optimize.solve
except KeyboardInterrupt:
    print("interrupted")
else:
    import pulp
    print("went on, HiGHS available:", pulp.HiGHS().available())
"""
    done = subprocess.run([sys.executable, "-c", script], check=False, cwd=ROOT, text=True,
                          capture_output=True, timeout=120)
    assert done.stdout.strip() == "interrupted", done.stdout + done.stderr


def test_ctrl_c_during_the_highspy_import_ends_plan_with_130(tmp_path):
    script = _INTERRUPTED_IMPORT + f"""
from cli import main
main(["plan", {str(ROOT / "workloads" / "small.yaml")!r}, "--no-workbook"])
"""
    done = subprocess.run([sys.executable, "-c", script], check=False, cwd=ROOT, text=True,
                          capture_output=True, timeout=120, env={**os.environ,
                                                                 "TMPDIR": str(tmp_path)})
    assert done.returncode == EXIT_CODE, done.stdout + done.stderr
    assert done.stderr.strip() == "plan-buy: interrupted"
    assert "CBC" not in done.stdout and list(tmp_path.iterdir()) == []


def test_the_solve_folder_is_made_only_once_its_removal_is_held(tmp_path, monkeypatch):
    """An interrupt between making the CBC folder and holding its removal left it behind."""
    import contextlib
    import tempfile

    from solver.optimize import children

    @contextlib.contextmanager
    def interrupted(undo):
        raise KeyboardInterrupt
        yield

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(children.interrupt, "on_exit", interrupted)
    engine = type("Cbc", (), {"tmpDir": ""})()
    with pytest.raises(KeyboardInterrupt), children.contained(engine):
        pass
    assert list(tmp_path.iterdir()) == []


def test_pulp_is_imported_only_through_lp():
    """Any module importing PuLP itself would let PuLP import highspy first again."""
    offenders = [p.name for p in (ROOT / "solver" / "optimize").glob("*.py")
                 if p.name != "lp.py" and any(
                     line.startswith(("import pulp", "from pulp"))
                     for line in p.read_text(encoding="utf-8").splitlines())]
    assert offenders == []
