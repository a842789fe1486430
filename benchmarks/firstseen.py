"""A run's first-seen work F and the parts of it the capacity physics does, by instruction counts.

    python -m benchmarks.firstseen ONE_OF_EACH ROUND_ROBIN [--runs 3]

ONE_OF_EACH holds one copy of each distinct file (the 270-file tree), ROUND_ROBIN the same files copied
round-robin (the 1,000-file tree). Each count is `ctxlint check --isolated --fail-on never -q --jobs 1` under
`valgrind --tool=cachegrind --cache-sim=no`, `setarch -R`, `PYTHONHASHSEED=0`, the least of `--runs` runs:
two runs of one build differ by up to ~50 million instructions on 270 files, always upward from a floor
(issue 15's twentieth pass), so one run cannot judge a step under ~1.5%.
F = t_one - n_one x steady, steady = (t_rr - t_one) / (n_rr - n_one). The parts are the same runs with a
part of the physics answered by a constant (the output then differs, so they are measurements only):
  search    CTX208's memory-need search of device-less roles (needs._search)
  spanned   the same, for vLLM roles of unknown release only (the fold over releases)
  compute   the search and the whole estimates of roles with a device (capacity's memo function)
  fresh     nothing reused within the run by adapters/split_seen.py (every exec-form list and command string
            split, every engine's arguments parsed and its engines detected anew): the part of F that is a copy's
            reuse of its command, which a tree of distinct files never gets (the output is the same)
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

# Run in the measured process (python -c): stub one part, then run ctxlint's command line.
_STUB = """
import runpy, sys
part = sys.argv.pop(1)
if part == "fresh":
    import ctxlint.adapters.split_seen as split_seen
    split_seen.current = lambda: None  # no run to keep tables in: split_seen's four calls compute afresh
elif part != "none":
    import ctxlint.physics.needs as needs
    search = needs._search
    def stub(dep, role, arch, weights, context, devices=needs.COMMON):
        if part == "spanned" and not needs.spanned_releases(
                needs.CapacityInput(**needs._fields(dep, role, arch, weights, context))):
            return search(dep, role, arch, weights, context, devices)
        return needs.MemoryNeed(context, 1.0, 1.0, 1.0, "stub"), ()
    needs._search = stub
    if part == "compute":
        import ctxlint.physics.capacity as capacity
        capacity._MEMO.fn = lambda inp: capacity._empty(inp, "vllm", ["stub"])
sys.argv = ["ctxlint"] + sys.argv[1:]
runpy.run_module("ctxlint", run_name="__main__")
"""


def instructions(part: str, tree: Path, runs: int) -> int:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONHASHSEED"] = "0"
    # one process (--jobs 1): the default starts a second one from 800 files, whose instructions are not the run's
    args = [sys.executable, "-c", _STUB, part, "check", "--isolated", "--fail-on", "never", "-q", "--jobs", "1",
            str(tree)]
    subprocess.run(args, env=env, capture_output=True, check=False)  # writes the .pyc files first
    counts = []
    for _ in range(runs):
        out = subprocess.run(["setarch", "-R", "valgrind", "--tool=cachegrind", "--cache-sim=no",
                              "--cachegrind-out-file=/dev/null", *args], env=env, capture_output=True, text=True)
        found = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
        if found is None:
            raise SystemExit(f"no instruction count from valgrind:\n{out.stderr[-2000:]}")
        counts.append(int(found.group(1).replace(",", "")))
    return min(counts)


def _files(tree: Path) -> int:
    return sum(1 for p in tree.rglob("*") if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("one_of_each", type=Path)
    parser.add_argument("round_robin", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--parts", default="none,search,spanned,compute")
    opts = parser.parse_args()
    n_one, n_rr = _files(opts.one_of_each), _files(opts.round_robin)
    for part in opts.parts.split(","):
        one = instructions(part, opts.one_of_each, opts.runs)
        rr = instructions(part, opts.round_robin, opts.runs)
        steady = (rr - one) / (n_rr - n_one)
        first = one - n_one * steady
        print(f"{part:8} {n_one} files {one / 1e6:,.1f} M  {n_rr} files {rr / 1e6:,.1f} M  "
              f"steady {steady / 1e6:.3f} M a file  F {first / 1e6:,.1f} M", flush=True)


if __name__ == "__main__":
    main()
