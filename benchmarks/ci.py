"""The benchmark's ratios, in short, for CI logs.

The test suite prints this after its summary when the whole suite ran (tests/conftest.py), so
every CI log shows the same ratios `python -m benchmarks` measures, with fewer rounds and a
1,000-file tree: one file against yamllint, and a tree against the parse floor. Nothing here is
asserted (CI machines are noisy 2-core VMs); the targets are in benchmarks/README.md.
"""
from __future__ import annotations

import os
import platform
import tempfile
from pathlib import Path
from typing import List

from benchmarks.run import (DEFAULT_CORPUS, LINT_EXITS, NATIVE, PARSE_FLOOR, PY, REPO, build_tree, ctxlint,
                            interleaved, ratio, row, seeds, tool)

KUBERNETES_SAMPLE = REPO / "samples" / "kubernetes" / "vllm-window-fixed" / "deployment.yaml"


def report(rounds: int = 7, files: int = 1_000) -> List[str]:
    """The lines to print: each measurement with its reference, and the ratio."""
    lines = [f"machine: {os.cpu_count()} CPUs; Python {platform.python_version()}; {rounds} interleaved rounds; "
             f"PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '(unset)')} (set: every run "
             f"compiles ctxlint from source); ctxlint: {' '.join(ctxlint())}"]
    yamllint = tool("yamllint")
    for label, path in (("Kubernetes file", KUBERNETES_SAMPLE), ("native manifest", NATIVE)):
        cmds = {f"ctxlint check ({label})": (ctxlint("check", str(path)), LINT_EXITS)}
        if yamllint:
            cmds[f"yamllint -d relaxed ({label})"] = ([yamllint, "-d", "relaxed", str(path)], LINT_EXITS)
        result = interleaved(cmds, rounds)
        lines += [row(name, measured) for name, measured in result.items()]
        if yamllint:
            ours, theirs = result[f"ctxlint check ({label})"][0], result[f"yamllint -d relaxed ({label})"][0]
            lines.append(ratio("ctxlint / yamllint", ours / theirs, "<= 1.00"))
    if not yamllint:
        lines.append("  yamllint not installed: no single-file ratio")
    with tempfile.TemporaryDirectory(prefix="ctxlint-ci-bench-") as work:
        tree = build_tree(Path(work), files, seeds(DEFAULT_CORPUS))
        # one process, as the floor: the default (--jobs auto) would use a second process on a 2-core runner from
        # 800 files, and this row has compared one process with the floor in every CI log since issue 15
        result = interleaved({f"ctxlint check --jobs 1, {files:,} files": (ctxlint("check", str(tree), "--fail-on",
                                                                                  "never", "--jobs", "1"), (0,)),
                              "parse floor (CSafeLoader compose)": ([PY, "-c", PARSE_FLOOR, str(tree)], (0,))},
                             1, warm=False)
        lines += [row(name, measured) for name, measured in result.items()]
        ours, floor = (measured[0] for measured in result.values())
        lines.append(ratio("ctxlint / parse floor", ours / floor, "<= 4 (at 10,000 files)"))
    return lines
