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


VLLM_POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  template:
    spec:
      nodeSelector: {{nvidia.com/gpu.product: NVIDIA-L4}}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [{args}]
{env}          resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


def context_errors(tmp_path, rule: str, model: str, context, extra: str = "", env: str = "", name: str = "pod") -> list:
    """The messages of `rule`'s errors for a vLLM 0.11.0 Deployment on one L4 serving `model` at `--max-model-len
    context` (`extra`: more args items, `", ..."`; `env`: an `env:` line of the container)."""
    args = f'"--model", "{model}", "--max-model-len", "{context}"{extra}'
    path = tmp_path / "deploy.yaml"
    path.write_text(VLLM_POD.format(name=name, args=args, env=env))
    out = run(["check", "--isolated", str(path)]).out
    return [line.split(f"{rule} [error] ", 1)[1] for line in out.splitlines() if f" {rule} " in line]
