"""The tests' fork-server client reads both answers of a child that ends at once (they can arrive in one read)."""

from __future__ import annotations

import subprocess
import sys
import time

from tests.fork_client import ForkServer

QUICK_SERVER = r"""
import json, os, sys
for line in sys.stdin.buffer:
    json.loads(line)
    os.write(1, json.dumps({"pid": os.getpid()}).encode() + b"\n" + json.dumps({"status": 3}).encode() + b"\n")
"""


def test_both_answers_in_one_read_are_both_used() -> None:
    client = ForkServer(timeout=20)
    client._server = subprocess.Popen([sys.executable, "-c", QUICK_SERVER], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE)
    try:
        started = time.monotonic()
        for _ in range(3):
            assert client.run(["--help"]).returncode == 3
        assert time.monotonic() - started < 10
        assert client._server.poll() is None  # never killed as a child that outlived the timeout
    finally:
        client.close()
