"""The command line's single BLAS thread (aggregator/stats/blas.py): set before NumPy loads, unless the user
chose the threads, and the outputs are those of a run with OpenBLAS's own thread count."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from aggregator.stats import blas
from tests.conftest import RUNS

RUN = RUNS / "cr_n50_m0_v2__seed42"

SPY = """
import os, sys
from aggregator.commands import main
leave = os._exit
def spy(code):
    from threadpoolctl import threadpool_info
    pools = [p["num_threads"] for p in threadpool_info() if p["internal_api"] == "openblas"]
    print("numpy loaded:", "numpy" in sys.modules, "openblas threads:", pools,
          "setting:", os.environ.get("OPENBLAS_NUM_THREADS"), flush=True)
    leave(code)
os._exit = spy
sys.argv = ["aggregate", *sys.argv[1:]]
main.main()
"""


def spied(outdir: Path, **settings: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in blas.USER_SETTINGS} | settings
    done = subprocess.run([sys.executable, "-c", SPY, str(RUN), "--outdir", str(outdir), "--quiet"],
                          capture_output=True, text=True, check=False, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="OpenBLAS starts one thread on one core anyway")
def test_the_command_runs_openblas_on_one_thread_and_writes_the_same_files(tmp_path: Path) -> None:
    assert "numpy loaded: True openblas threads: [1] setting: 1" in spied(tmp_path / "one")
    chosen = spied(tmp_path / "user", OPENBLAS_NUM_THREADS="2")
    assert "numpy loaded: True openblas threads: [2] setting: 2" in chosen
    names = sorted(p.name for p in (tmp_path / "one").iterdir() if p.name != "run_metadata.json")
    assert names == sorted(p.name for p in (tmp_path / "user").iterdir() if p.name != "run_metadata.json")
    for name in names:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "user" / name).read_bytes(), name


@pytest.fixture
def unset(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No BLAS setting in the environment; whatever a test sets is undone after it."""
    for name in blas.USER_SETTINGS:
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    monkeypatch.setattr(blas, "_started_on_one", [False])
    return monkeypatch


def test_a_value_the_user_set_wins(unset: pytest.MonkeyPatch) -> None:
    monkeypatch = unset
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    blas.one_thread()
    assert blas.SETTING not in os.environ
    monkeypatch.delenv("OMP_NUM_THREADS")
    blas.one_thread()
    assert os.environ[blas.SETTING] == "1"


SINGLE = """
import sys
from aggregator.stats import blas
blas.one_thread()
import numpy
import threadpoolctl  # what the limit would use, imported here so that its import is not the test
from threadpoolctl import threadpool_info
with blas.single_thread() as limit:
    pools = [p["num_threads"] for p in threadpool_info() if p["internal_api"] == "openblas"]
print("limit:", type(limit).__name__, "openblas threads:", pools, flush=True)
"""


@pytest.mark.parametrize(("settings", "limit"), [({}, "NoneType"), ({"OMP_NUM_THREADS": "2"}, "threadpool_limits")])
def test_products_run_on_one_thread_with_or_without_a_limit(settings: dict[str, str], limit: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in blas.USER_SETTINGS} | settings
    done = subprocess.run([sys.executable, "-c", SINGLE], capture_output=True, text=True, check=False, env=env)
    assert done.returncode == 0, done.stderr
    assert f"limit: {limit} openblas threads: [1]" in done.stdout


def test_a_process_that_loaded_numpy_first_keeps_the_limit(unset: pytest.MonkeyPatch) -> None:
    import numpy  # noqa: F401  (loaded before the setting: OpenBLAS may already run on several threads)

    blas.one_thread()
    assert os.environ[blas.SETTING] == "1"
    with blas.single_thread() as limit:
        assert limit is not None


@pytest.mark.parametrize(("name", "openblas"), [("scipy-openblas", True), ("openblas", True), ("mkl-sdl", False),
                                                ("accelerate", False), (None, False)])
def test_another_blas_keeps_the_limit(unset: pytest.MonkeyPatch, name: str | None, openblas: bool) -> None:
    """The setting is OpenBLAS's: a NumPy built with another BLAS (or whose build is unknown) keeps threadpoolctl's limit."""
    import numpy as np

    config = {} if name is None else {"Build Dependencies": {"blas": {"name": name}}}
    unset.setattr(np.__config__, "CONFIG", config)
    unset.setattr(blas, "_started_on_one", [True])
    assert blas.numpy_blas_is_openblas() is openblas
    with blas.single_thread() as limit:
        assert (limit is None) is openblas
