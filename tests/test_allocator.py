"""The allocator setting the command chooses before Polars is loaded (aggregator/commands/allocator.py)."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aggregator.commands import allocator
from tests.conftest import RUNS


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv(allocator.SETTING, raising=False)
    monkeypatch.setattr(allocator, "_chosen_here", [False])
    monkeypatch.setattr(allocator, "keep_glibc_blocks", lambda: True)  # not in the tests' own process
    return monkeypatch


def lines(path: Path, count: int, width: int) -> Path:
    path.write_bytes(b"".join(b'{"k": "' + b"x" * width + b'"}\n' for _ in range(count)))
    return path


def test_rows_are_estimated_from_the_start_of_a_plain_input(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    assert allocator.estimated_rows(lines(tmp_path / "small.jsonl", 30, 10)) == pytest.approx(30)
    monkeypatch.setattr(allocator, "SAMPLE_BYTES", 1000)
    assert allocator.estimated_rows(lines(tmp_path / "many.jsonl", 5000, 40)) == pytest.approx(5000, rel=0.03)
    (tmp_path / "empty.jsonl").write_bytes(b"")
    assert allocator.estimated_rows(tmp_path / "empty.jsonl") == 0
    (tmp_path / "one.jsonl").write_bytes(b'{"k": 1}')
    assert allocator.estimated_rows(tmp_path / "one.jsonl") == 1


def test_a_compressed_missing_or_unreadable_input_counts_as_large(tmp_path: Path) -> None:
    packed = tmp_path / "scorecards.jsonl.gz"
    packed.write_bytes(gzip.compress(b'{"k": 1}\n'))
    assert allocator.estimated_rows(packed) == float("inf")
    assert allocator.estimated_rows(tmp_path / "nothing.jsonl") == float("inf")
    assert allocator.estimated_rows(tmp_path) == float("inf")  # a directory without scorecards


def test_small_runs_keep_freed_pages_large_ones_give_them_back(tmp_path: Path, environment: pytest.MonkeyPatch) -> None:
    allocator.default()
    assert os.environ[allocator.SETTING] == allocator.RETURN_FREED_MEMORY
    big = lines(tmp_path / "big.jsonl", 150, 2)
    environment.setattr(allocator, "LARGE_ROWS", 100)  # the real run: 50 rows
    allocator.for_runs([RUNS / "cr_n50_m0_v2__seed42", big])
    assert os.environ[allocator.SETTING] == allocator.RETURN_FREED_MEMORY
    allocator.for_runs([RUNS / "cr_n50_m0_v2__seed42", lines(tmp_path / "small.jsonl", 10, 2)])
    assert os.environ[allocator.SETTING] == allocator.KEEP_FREED_PAGES


def test_a_value_the_user_set_wins(environment: pytest.MonkeyPatch) -> None:
    environment.setenv(allocator.SETTING, "dirty_decay_ms:5000")
    allocator.default()
    allocator.for_runs([RUNS / "cr_n50_m0_v2__seed42"])
    assert os.environ[allocator.SETTING] == "dirty_decay_ms:5000"


SPY = """
import sys
from aggregator.commands import allocator, main
chosen, kept = allocator.for_runs, allocator.keep_glibc_blocks
def spy(runs, **how):
    chosen(runs, **how)
    loaded = sorted(m for m in sys.modules if m.startswith(("polars.", "_polars")))
    print("polars loaded:", loaded, "setting:", allocator.os.environ[allocator.SETTING], flush=True)
def spy_glibc():
    print("glibc blocks kept:", kept(), flush=True)
allocator.for_runs, allocator.keep_glibc_blocks = spy, spy_glibc
sys.argv = ["aggregate", *sys.argv[1:]]
main.main()
"""


@pytest.mark.parametrize("command", [[], ["compare"]], ids=["run", "compare"])
def test_the_command_chooses_before_polars_is_loaded(tmp_path: Path, command: list[str]) -> None:
    runs = [str(RUNS / "cr_n50_m0_v2__seed42")] + ([str(RUNS / "cr_n50_m1_v2__seed42")] if command else [])
    done = subprocess.run([sys.executable, "-c", SPY, *command, *runs, "--outdir", str(tmp_path), "--quiet"],
                          capture_output=True, text=True, check=False,
                          env={k: v for k, v in os.environ.items() if k != allocator.SETTING})
    assert done.returncode == 0, done.stderr
    assert f"polars loaded: [] setting: {allocator.KEEP_FREED_PAGES}" in done.stdout
    if command:  # a comparison holds its runs at once: glibc's blocks are given back (allocator.py)
        assert "glibc blocks kept" not in done.stdout
    else:
        assert done.stdout.index("glibc blocks kept: True") < done.stdout.index("polars loaded: []")


def test_a_comparison_counts_its_runs_together(tmp_path: Path, environment: pytest.MonkeyPatch) -> None:
    allocator.default()
    environment.setattr(allocator, "LARGE_ROWS", 100)
    runs = [lines(tmp_path / f"run{i}.jsonl", 60, 2) for i in range(2)]  # 60 rows each, 120 together
    allocator.for_runs(runs, together=True)
    assert os.environ[allocator.SETTING] == allocator.RETURN_FREED_MEMORY
    allocator.for_runs(runs)
    assert os.environ[allocator.SETTING] == allocator.KEEP_FREED_PAGES


REUSE = """
import resource, sys
from aggregator.commands import allocator
print(allocator.keep_glibc_blocks() if sys.argv[1] == "keep" else None)
faults = []
for _ in range(3):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    block = b"x" * (40 << 20)  # written whole; over glibc's largest dynamic threshold (32 MiB): a fresh mapping each time by default
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    del block
print(faults[-1])
"""


def freed_block_faults(how: str, **env: str) -> tuple[str, int]:
    done = subprocess.run([sys.executable, "-c", REUSE, how], capture_output=True, text=True, check=True,
                          env={**{k: v for k, v in os.environ.items() if not k.startswith(("MALLOC_", "GLIBC_"))}, **env})
    kept, faults = done.stdout.split()
    return kept, int(faults)


@pytest.mark.skipif(not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"), reason="glibc's malloc")
def test_glibc_reuses_a_freed_block_once_told_to_keep_them() -> None:
    """A 40 MiB block freed and allocated again: 10,240 fresh pages each time by default, none once kept."""
    assert freed_block_faults("default") == ("None", pytest.approx(10_240, rel=0.1))
    kept, faults = freed_block_faults("keep")
    assert kept == "True" and faults < 100


@pytest.mark.parametrize("env", [{"MALLOC_TRIM_THRESHOLD_": "131072"}, {"MALLOC_MMAP_THRESHOLD_": "131072"},
                                 {"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=131072"}])
def test_a_glibc_threshold_the_user_set_wins(env: dict[str, str]) -> None:
    kept, faults = freed_block_faults("keep", **env)
    assert kept == "False" and faults > 5_000
