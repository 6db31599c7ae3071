"""Environment errors: exit 2 with one line that says what to do; previous outputs untouched.

Missing run directory, a directory in place of the file, an unreadable or failing input, a read-only
or full output directory, a dying decoding process. Root can read and write anything: the real
permission tests run the command as root without its file-mode capabilities (``setpriv``), and the
OSErrors are also raised in-process (monkeypatch); a full
disk is also made real, with RLIMIT_FSIZE in a subprocess and with a tiny tmpfs where one can be mounted.
"""

from __future__ import annotations

import errno
import functools
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import scorecards.chunks
import scorecards.compressed
import scorecards.inputs
import scorecards.lines
import scorecards.reader
from aggregator import aggregate_run
from aggregator.commands.main import cli
from scorecards.errors import InputError
from tests.conftest import RUNS, run_cli
from tests.outcomes import CutShort, check_cli, parse_outputs, snapshot
from tests.strategies import jsonl, to_line

RUN = RUNS / "cr_n50_m1_v2__seed42"
ROOT = os.geteuid() == 0


def permissions_enforced() -> bool:
    """Whether this process is refused a file of mode 000 (not as root, unless it dropped its capabilities)."""
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe"
        probe.write_bytes(b"x")
        probe.chmod(0)
        try:
            probe.read_bytes()
        except PermissionError:
            return True
        return False


ENFORCED = permissions_enforced()
WITHOUT_OVERRIDE = ["setpriv", "--bounding-set=-dac_override,-dac_read_search",
                    "--inh-caps=-dac_override,-dac_read_search", "--"]
"""Root without the capabilities that let it ignore file modes (util-linux ``setpriv``): modes are then enforced
for root too, and root can still run this interpreter wherever it is installed."""


@functools.cache
def unprivileged_prefix() -> list[str] | None:
    """How to run a command for which file modes are enforced: as it is, or as root through
    :data:`WITHOUT_OVERRIDE`; None when neither works (then the tests that need it are skipped, named)."""
    if ENFORCED:
        return []
    if not ROOT or shutil.which("setpriv") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe"
        probe.write_bytes(b"x")
        probe.chmod(0)
        done = subprocess.run([*WITHOUT_OVERRIDE, sys.executable, "-c", f"open({str(probe)!r}).read()"],
                              capture_output=True, text=True)
    return WITHOUT_OVERRIDE if "PermissionError" in done.stderr else None


def run_unprivileged(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``aggregate ARGS`` in a fresh process for which file modes are enforced, even when the suite runs as root."""
    prefix = unprivileged_prefix()
    if prefix is None:
        pytest.skip("file modes cannot be enforced here: not root and not enforced, or no working setpriv")
    return subprocess.run([*prefix, sys.executable, "-m", "aggregator", *map(str, args)], capture_output=True,
                          text=True, timeout=300)


def invoke(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The CLI in this process (so monkeypatches apply), as a CompletedProcess for :func:`check_cli`."""
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)


def error_line(
    done: subprocess.CompletedProcess[str], outdir: Path, *hints: str, before: dict[str, bytes] | None = None
) -> str:
    """The one error line of a failed run (outputs as ``before``), which must contain every hint."""
    assert done.returncode == 2, (done.returncode, done.stderr)
    message = check_cli(done, outdir, before)
    for hint in hints:
        assert hint in message, message
    return message


@pytest.fixture
def run_copy(tmp_path: Path) -> Path:
    """A writable copy of a real run directory."""
    return Path(shutil.copytree(RUN, tmp_path / "run"))


@pytest.fixture
def previous(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    """An output directory holding a complete earlier aggregation, and its bytes."""
    outdir = tmp_path / "out"
    assert invoke(RUN, "--outdir", outdir, "--quiet").returncode == 0
    return outdir, snapshot(outdir)


def test_missing_run_directory(tmp_path: Path) -> None:
    message = error_line(run_cli(tmp_path / "nope", "--outdir", tmp_path / "out"), tmp_path / "out", "check the path")
    assert message.startswith(f"{tmp_path / 'nope'}: no such file or run directory")
    with pytest.raises(InputError, match="no such file"):
        aggregate_run(tmp_path / "nope")


def test_run_directory_without_scorecards(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "scorecards.json").write_text("{}")
    error_line(invoke(tmp_path / "run", "--outdir", tmp_path / "out"), tmp_path / "out", "has no scorecards.jsonl",
               "give the file's path")


def test_a_directory_in_place_of_the_file(tmp_path: Path) -> None:
    (tmp_path / "run" / "scorecards.jsonl").mkdir(parents=True)
    error_line(invoke(tmp_path / "run", "--outdir", tmp_path / "out"), tmp_path / "out", "is a directory",
               "expected a scorecards .jsonl file")
    error_line(invoke(tmp_path / "run" / "scorecards.jsonl", "--outdir", tmp_path / "out"), tmp_path / "out",
               "has no scorecards.jsonl")


def test_unreadable_file_for_real(run_copy: Path, tmp_path: Path) -> None:
    (run_copy / "scorecards.jsonl").chmod(0)
    error_line(run_unprivileged(run_copy, "--outdir", tmp_path / "out"), tmp_path / "out", "not readable", "permissions")


def test_unreadable_file(run_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: False)
    done = invoke(run_copy, "--outdir", tmp_path / "out")
    error_line(done, tmp_path / "out", "not readable", "check its permissions")


class FailingRead:
    """A binary file whose reads fail with ``error`` (an I/O error, or permission lost after the check)."""

    def __init__(self, path: object, error: OSError) -> None:
        self.error = error

    def __enter__(self) -> FailingRead:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        def fail(*args: object) -> None:
            raise self.error

        return fail


def cannot_open(path: object, mode: str = "r") -> None:
    raise PermissionError(errno.EACCES, "Permission denied", str(path))


def fails_reading(path: object, mode: str = "r") -> FailingRead:
    return FailingRead(path, OSError(errno.EIO, "Input/output error"))


@pytest.mark.parametrize(("opener", "start", "hint"), [(cannot_open, "{file}: cannot read", "Permission denied"),
                                                       (fails_reading, "the input: cannot read", "Input/output error")])
def test_an_input_that_fails_once_checked(run_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           opener: Any, start: str, hint: str) -> None:
    """Permission lost, or an I/O error, after the input was found readable."""
    monkeypatch.setattr(scorecards.chunks, "open", opener, raising=False)
    monkeypatch.setattr(scorecards.lines, "open", opener, raising=False)
    monkeypatch.setattr(scorecards.compressed, "open", opener, raising=False)
    message = error_line(invoke(run_copy, "--outdir", tmp_path / "out", "--workers", "1"), tmp_path / "out", hint,
                         "check the path and its permissions")
    assert message.startswith(start.format(file=run_copy / "scorecards.jsonl")), message


def stage_fails(monkeypatch: pytest.MonkeyPatch, error: OSError, after: int) -> None:
    """Staging output files fails with ``error`` once ``after`` files are staged."""
    real = tempfile.mkstemp
    calls: list[object] = []

    def mkstemp(*args: Any, **kwargs: Any) -> tuple[int, str]:
        calls.append(args)
        if len(calls) > after:
            raise error
        return real(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)


@pytest.mark.parametrize("after", [0, 3])
@pytest.mark.parametrize(
    ("error", "hint"),
    [(OSError(errno.EROFS, "Read-only file system"), "choose a writable directory with --outdir"),
     (PermissionError(errno.EACCES, "Permission denied"), "choose a writable directory with --outdir"),
     (OSError(errno.ENOSPC, "No space left on device"), "free some space"),
     (OSError(errno.EDQUOT, "Disk quota exceeded"), "free some space")],
)
def test_an_output_directory_that_cannot_be_written(previous: tuple[Path, dict[str, bytes]],
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    error: OSError, hint: str, after: int) -> None:
    outdir, before = previous
    stage_fails(monkeypatch, error, after)
    message = error_line(invoke(RUN, "--outdir", outdir), outdir, hint, error.strerror, before=before)
    assert message.startswith(f"{outdir}: cannot write outputs")


def test_a_disk_that_fills_up_while_writing(
    previous: tuple[Path, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    outdir, before = previous
    real = os.fdopen
    opened: list[int] = []

    def disk_full() -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    def fdopen(fd: int, *args: Any, **kwargs: Any) -> Any:
        opened.append(fd)
        handle = real(fd, *args, **kwargs)
        return CutShort(handle, disk_full) if len(opened) == 4 else handle

    monkeypatch.setattr(os, "fdopen", fdopen)
    error_line(invoke(RUN, "--outdir", outdir), outdir, "No space left on device", "free some space", before=before)


def test_read_only_output_directory_for_real(previous: tuple[Path, dict[str, bytes]]) -> None:
    outdir, before = previous
    outdir.chmod(0o555)
    try:
        error_line(run_unprivileged(RUN, "--outdir", outdir), outdir, "choose a writable directory", before=before)
    finally:
        outdir.chmod(0o755)


def test_output_path_below_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    for outdir, reason in ((tmp_path / "file", "is a file, not a directory"),
                           (tmp_path / "file" / "out", "the path lies below a file")):
        error_line(invoke(RUN, "--outdir", outdir), tmp_path / "nothing", f"{outdir}: {reason}: choose another directory "
                   "with --outdir")
    assert (tmp_path / "file").read_text() == "x"


def limit_file_size() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 10, 64 << 10))


def test_a_real_file_size_limit_is_a_full_disk(previous: tuple[Path, dict[str, bytes]]) -> None:
    """RLIMIT_FSIZE makes the kernel refuse writes past 64 KiB (EFBIG), as a full disk would."""
    outdir, before = previous
    done = subprocess.run([sys.executable, "-m", "aggregator", str(RUN), "--outdir", str(outdir)], capture_output=True,
                          text=True, timeout=300, preexec_fn=limit_file_size)
    error_line(done, outdir, "File too large", "free some space", before=before)


@contextmanager
def tmpfs(mount: Path, size: int) -> Iterator[Path]:
    """A tmpfs of ``size`` bytes at ``mount`` (root only, where mounting is allowed); skips elsewhere."""
    mount.mkdir()
    if not ROOT or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_real_full_file_system(tmp_path: Path) -> None:
    """Earlier small outputs fit on a tmpfs that has no room for the new ones beside them."""
    small = tmp_path / "small" / "scorecards.jsonl"
    small.parent.mkdir()
    small.write_bytes(jsonl([to_line({"meta": {"text_id": "a"}, "gold_tuples": [{"aspect_ref": "a#b"}]})]))
    assert invoke(small, "--outdir", tmp_path / "measure", "--quiet").returncode == 0
    room = sum(map(len, snapshot(tmp_path / "measure").values())) + (256 << 10)
    with tmpfs(tmp_path / "tiny", room) as mount:
        outdir = mount / "out"
        assert invoke(small, "--outdir", outdir, "--quiet").returncode == 0
        before = snapshot(outdir)
        parse_outputs(outdir)
        error_line(invoke(RUN, "--outdir", outdir), outdir, "No space left on device", "free some space", before=before)


def die_in_worker(*args: object, **kwargs: object) -> None:
    os._exit(9)


def test_a_dying_decoding_process(run_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A forked decoder killed (e.g. by the out-of-memory killer) is an error line, not a traceback."""
    monkeypatch.setattr(scorecards.inputs, "MIN_PART_BYTES", 1 << 16)
    monkeypatch.setattr(scorecards.reader, "read_range", die_in_worker)
    error_line(invoke(run_copy, "--outdir", tmp_path / "out", "--workers", "2"), tmp_path / "out",
               "a decoding process died", "--workers 1")
