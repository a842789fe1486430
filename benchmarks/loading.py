"""The loader's warm cost a file, by part, in instructions.

    python -m benchmarks.loading TREE [--parts floor,compose,build,read] [--runs 2]

Each part runs over every file of TREE (texts read into memory first, so the disk is not measured) in a process
under `valgrind --tool=cachegrind --cache-sim=no`, `setarch -R`, `PYTHONHASHSEED=0`, once with one pass over
the files and once with three; a file's warm cost is the difference over 2 x the files (imports, the first pass's
memos and compiled patterns cancel out), the least of `--runs`. The parts:
  floor    PyYAML's CSafeLoader composing each text (the parse floor of benchmarks/run.py)
  compose  ctxlint's composer (ctxlint.yaml_loaders.composer) composing each text
  build    the same, and ctxlint.node_builder.Builder building each document's Nodes (build less compose: the builder)
  read     ctxlint.file_reader.read_path on each file, all of it (build plus reading, decoding and the file's checks)
Unlike `python -m benchmarks.firstseen`, whose whole-run counts differ by up to ~55 M between two runs of one build
(issue 15's twentieth pass), two runs of one part agree within a few hundred instructions a file, so a step of the
loader of ~0.5% shows; the parts do not say what a change elsewhere in a run costs.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

# Run in the measured process (python -c PART PASSES TREE).
_PASSES = """
import gc, os, sys
gc.set_threshold(200_000, 50, 100)  # as ctxlint.cli_check runs
import yaml
from ctxlint.file_reader import read_path
from ctxlint.node_builder import Builder
from ctxlint.yaml_loaders import composer
part, passes, tree = sys.argv[1], int(sys.argv[2]), sys.argv[3]
files = sorted(os.path.join(d, f) for d, _, names in os.walk(tree) for f in names)
texts = []
for path in files:  # only texts every part composes: a file PyYAML refuses would measure its error path
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        list(yaml.compose_all(text, Loader=yaml.CSafeLoader))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        continue
    texts.append((path, text))
for _ in range(passes):
    for path, text in texts:
        if part == "floor":
            for _doc in yaml.compose_all(text, Loader=yaml.CSafeLoader):
                pass
        elif part == "compose":
            for _doc in yaml.compose_all(text, Loader=composer()):
                pass
        elif part == "build":
            builder = Builder(path.endswith(".json"), lambda *_: None)
            for doc in yaml.compose_all(text, Loader=composer()):
                if doc is not None:
                    builder.build_document(doc, "*" in text and "&" in text)
        elif part == "read":
            read_path(path)
        else:
            raise SystemExit(f"unknown part {part}")
print(len(texts))
"""
PARTS = ("floor", "compose", "build", "read")


def _command(part: str, passes: int, tree: Path) -> list:
    return [sys.executable, "-c", _PASSES, part, str(passes), str(tree)]


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONHASHSEED"] = "0"
    return env


def instructions(part: str, passes: int, tree: Path) -> int:
    out = subprocess.run(["setarch", "-R", "valgrind", "--tool=cachegrind", "--cache-sim=no",
                          "--cachegrind-out-file=/dev/null", *_command(part, passes, tree)],
                         env=_env(), capture_output=True, text=True)
    found = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if out.returncode != 0 or found is None:
        raise SystemExit(f"no instruction count from valgrind (exit {out.returncode}):\n{out.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def per_file(part: str, tree: Path, runs: int) -> tuple:
    """(files measured, the warm instructions a file): the least of `runs` of (3 passes - 1 pass) / 2 / files."""
    first = subprocess.run(_command(part, 1, tree), env=_env(), capture_output=True, text=True)  # writes .pyc files
    if first.returncode != 0:
        raise SystemExit(f"{part} failed:\n{first.stderr[-2000:]}")
    files = int(first.stdout.split()[-1])
    costs = [(instructions(part, 3, tree) - instructions(part, 1, tree)) / 2 / max(files, 1) for _ in range(runs)]
    return files, min(costs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--parts", default=",".join(PARTS))
    parser.add_argument("--runs", type=int, default=2)
    opts = parser.parse_args()
    for part in opts.parts.split(","):
        files, cost = per_file(part, opts.tree, opts.runs)
        print(f"{part:8} {files} files  {cost / 1e6:.3f} M a file", flush=True)


if __name__ == "__main__":
    main()
