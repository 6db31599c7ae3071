"""The tests' side of :mod:`tests.fork_server`: one server per test process, started on first use."""

from __future__ import annotations

import atexit
import json
import locale
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


class ForkServer:
    """Runs ``aggregate ARGV`` in a child of the fork server and returns what ``subprocess.run`` would
    (``capture_output=True, text=True``): the exit status (negative: the signal that ended it), and
    the streams decoded in the locale's encoding with universal newlines. A child that outlives
    ``timeout`` is killed and :class:`subprocess.TimeoutExpired` raised, as ``subprocess.run`` does."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._server: subprocess.Popen[bytes] | None = None
        self._unread = b""
        atexit.register(self.close)

    def _started(self) -> subprocess.Popen[bytes]:
        if self._server is None or self._server.poll() is not None:
            self._server = subprocess.Popen([sys.executable, "-m", "tests.fork_server"], stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, cwd=Path(__file__).resolve().parent.parent)
            self._unread = b""
        return self._server

    def close(self) -> None:
        """End the server (it ends at the end of its input) and wait for it."""
        if self._server is not None and self._server.stdin is not None:
            self._server.stdin.close()
            self._server.wait(timeout=self.timeout)

    def _answer(self, server: subprocess.Popen[bytes], timeout: float | None) -> dict[str, Any]:
        """The server's next answer line, waiting at most ``timeout`` seconds for it. Its output is read
        with ``os.read`` into a buffer of our own: a buffered reader could take both answers of a quick
        child in one read, and ``select`` would then wait for the second one in vain."""
        assert server.stdout is not None
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._unread:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([server.stdout], [], [], left)
            if not ready:
                raise TimeoutError
            chunk = os.read(server.stdout.fileno(), 1 << 16)
            if not chunk:
                raise RuntimeError(f"the fork server ended (status {server.wait()})")
            self._unread += chunk
        line, _, self._unread = self._unread.partition(b"\n")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def run(self, argv: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        server = self._started()
        assert server.stdin is not None
        with tempfile.TemporaryDirectory(prefix="aggregate-streams-") as streams:
            out, err = Path(streams, "stdout"), Path(streams, "stderr")
            out.touch()
            err.touch()
            request = {"argv": argv, "cwd": str(cwd or Path.cwd()), "env": dict(os.environ), "stdout": str(out),
                       "stderr": str(err)}
            server.stdin.write(json.dumps(request).encode() + b"\n")
            server.stdin.flush()
            pid = self._answer(server, None)["pid"]
            try:
                status = self._answer(server, self.timeout)["status"]
            except TimeoutError:
                os.kill(pid, signal.SIGKILL)
                self._answer(server, None)
                raise subprocess.TimeoutExpired(["aggregate", *argv], self.timeout) from None
            stdout, stderr = (_text(path.read_bytes()) for path in (out, err))
        return subprocess.CompletedProcess(["aggregate", *argv], status, stdout, stderr)


def _text(data: bytes) -> str:
    """Bytes as ``subprocess.run(text=True)`` decodes them."""
    return data.decode(locale.getpreferredencoding(False)).replace("\r\n", "\n").replace("\r", "\n")
