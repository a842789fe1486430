"""Run the CLI in-process and capture stdout, stderr and the exit code."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from click.testing import CliRunner

from ctxlint.cli import main


@dataclass
class Run:
    code: int
    out: str
    err: str


def run(args: Sequence[str], stdin: Optional[bytes] = None) -> Run:
    runner = CliRunner()
    result = runner.invoke(main, list(args), input=stdin, catch_exceptions=False)
    return Run(result.exit_code, result.stdout, result.stderr)


# One engine service of a compose file, its image and command line filled in (the flag-by-release tests).
COMPOSE = """services:
  engine:
    image: {image}
    command: >-
      {command}
"""


def compose_refusals(tmp_path, image: str, command: str) -> list:
    """The CTX301 messages `check` gives the compose service running `command` in `image`."""
    path = tmp_path / "compose.yaml"
    path.write_text(COMPOSE.format(image=image, command=command))
    return [line.split(": ", 1)[1] for line in run(["check", "--isolated", str(path)]).out.splitlines()
            if "CTX301" in line]
