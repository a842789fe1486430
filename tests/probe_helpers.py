"""The probe tests' server: tests/probe_server.py run as a real process on loopback, and how
tests drive it (switch modes, read its request log) and run `ctxlint probe` against it."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request
from contextlib import contextmanager
from typing import Iterator

from conftest import REPO
from helpers import run

DEFAULTS = {"mode": "correct", "fault_on": "pool", "window": 2048, "pool": 4096, "hang_seconds": 5.0,
            "strict_limit": 0, "prompt_cap": 0, "usage": True, "tokens_per_word": 1}
MARKER = re.compile(r"canary-[0-9a-f]{12}")


class Server:
    def __init__(self, proc: subprocess.Popen, port: int) -> None:
        self.proc, self.port = proc, port
        self.url = f"http://127.0.0.1:{port}"

    def set(self, **state) -> None:
        self._call("POST", {**DEFAULTS, **state, "reset": True})

    def requests(self) -> int:
        return self._call("GET")["requests"]

    def log(self) -> list:
        return self._call("GET")["log"]

    def _call(self, method: str, data=None) -> dict:
        body = json.dumps(data).encode() if data is not None else None
        request = urllib.request.Request(f"{self.url}/_control", data=body, method=method)
        with urllib.request.urlopen(request, timeout=5) as response:
            return json.loads(response.read())


@contextmanager
def running_server() -> Iterator[Server]:
    proc = subprocess.Popen([sys.executable, str(REPO / "tests" / "probe_server.py")],
                            stdout=subprocess.PIPE, text=True)
    try:
        port = int(proc.stdout.readline().split()[1])
        yield Server(proc, port)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def probe(server: Server, *args: str):
    result = run(["probe", server.url, "--model", "m", *args])
    clean = lambda text: MARKER.sub("canary-X", text.replace(str(server.port), "PORT"))  # noqa: E731
    return result.code, clean(result.out), clean(result.err)


def last_line(err: str) -> str:
    return err.strip().splitlines()[-1]


URL = "http://127.0.0.1:PORT/v1/chat/completions"
