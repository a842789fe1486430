"""What a run's first-seen work F is made of: its fixed parts in instructions, its files' first copies in bytecodes.

    python -m benchmarks.fixedparts ONE_OF_EACH [--file FILE] [--top 15] [--parts startup,imports,patterns,catalog,seeds]

F (benchmarks/firstseen.py) is what a run of ONE_OF_EACH (one copy of each distinct file) costs above as many copies
of files the run has seen. Its parts here, each for the run of ONE_OF_EACH and of the one file FILE
(`ctxlint check --isolated --fail-on never -q --jobs 1`):
  startup   `python -c pass` (the interpreter and site)
  imports   every module the run imports (its `-X importtime` list), imported alone in that order, less startup
  patterns  every regular expression the run compiles (recorded in the run), compiled alone, less the same process
            compiling none; and those of them that importing the run's modules alone compiles (module-level
            patterns), which `imports` holds too
  catalog   the model catalog's JSON read (`ctxlint.resolution.catalog.data()`), less importing the module
These are instructions under `valgrind --tool=cachegrind --cache-sim=no`, `setarch -R`, `PYTHONHASHSEED=0`, `.pyc`
present: deterministic to well under 1 M. A part measured alone is close to, not exactly, what it costs inside the
run (a module imported alone may find its own imports done or not yet).
  seeds     ONE_OF_EACH copied twice into a temporary tree (as benchmarks.run.build_tree lays it out: the second copy
            of file i is file i + n); one in-process run of it counts the bytecodes each file's adapting, capacity and
            rules execute (an opcode trace around the engine's per-file scopes, engine_guards.blame), and a seed's
            first-seen work is its first copy's count less its second's. Loading, the reporters and the imports and
            patterns outside those scopes are not in it; a bytecode is not an instruction (the physics' run ~85
            each: CTX208's searches are 7.4 M bytecodes and 624 M instructions of F on the 273 seeds), so these rank
            the seeds and give each its share.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Tuple

REPO = Path(__file__).resolve().parent.parent
DEFAULT_FILE = REPO / "samples" / "kubernetes" / "vllm-window-too-long" / "deployment.yaml"
CHECK = ("check", "--isolated", "--fail-on", "never", "-q", "--jobs", "1")

# Run in the measured process (python -c HOOK OUT ARGS...): ctxlint's own command line, with one hook. ctxlint ends a
# run with os._exit (cli_check._exit_now), so what the hook gathered is written out there.
_HOOK = """
import os, pickle, runpy, sys
hook, out = sys.argv[1], sys.argv[2]
del sys.argv[1:3]
gathered = []
if hook == "patterns":
    import re._compiler as _compiler
    _compile = _compiler.compile
    def compile(pattern, flags=0):
        gathered.append((pattern, int(flags)))
        return _compile(pattern, flags)
    _compiler.compile = compile
elif hook == "seeds":
    import collections, contextlib
    import ctxlint.engine as engine
    count, per, open_scopes = [0], collections.Counter(), []
    def step(frame, event, arg):
        if event == "opcode":
            count[0] += 1
        return step
    def trace(frame, event, arg):
        frame.f_trace_opcodes, frame.f_trace_lines = True, False
        return step
    @contextlib.contextmanager
    def blame(path):
        start = count[0]
        open_scopes.append(path)
        try:
            yield
        finally:
            open_scopes.pop()
            spent = count[0] - start
            per[path] += spent
            if open_scopes:  # a scope inside another: counted once, in the inner one
                per[open_scopes[-1]] -= spent
    engine._blame = blame
    gathered = per
_exit = os._exit
def finish(code):
    sys.settrace(None)
    sys.stdout.flush()
    with open(out, "wb") as handle:
        pickle.dump(dict(gathered) if hook == "seeds" else gathered, handle)
    _exit(code)
os._exit = finish
sys.argv = ["ctxlint", *sys.argv[1:]]
if hook == "seeds":
    sys.settrace(trace)
try:
    runpy.run_module("ctxlint", run_name="__main__")
finally:
    finish(0)
"""

_IMPORT_ALL = """
import importlib, sys
if len(sys.argv) > 2:  # record the patterns the imports compile (pickle imported only then: not counted)
    import pickle, re._compiler as _compiler
    _compile, compiled = _compiler.compile, []
    def compile(pattern, flags=0):
        compiled.append((pattern, int(flags)))
        return _compile(pattern, flags)
    _compiler.compile = compile
for name in open(sys.argv[1]).read().split():
    try:
        importlib.import_module(name)
    except Exception:  # a module that needs its importer's state: measured inside the run only
        pass
if len(sys.argv) > 2:
    pickle.dump(compiled, open(sys.argv[2], "wb"))
"""

_COMPILE_ALL = """
import pickle, sys, re._compiler as _compiler
patterns = pickle.load(open(sys.argv[1], "rb"))
if sys.argv[2] == "1":
    for pattern, flags in patterns:
        try:
            _compiler.compile(pattern, flags)
        except Exception:
            pass
"""


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONHASHSEED"] = "0"
    return env


def instructions(*args: str) -> int:
    """Instructions of `python ARGS` (its .pyc files written by an uncounted run first)."""
    subprocess.run([sys.executable, *args], env=_env(), capture_output=True, check=False)
    out = subprocess.run(["setarch", "-R", "valgrind", "--tool=cachegrind", "--cache-sim=no",
                          "--cachegrind-out-file=/dev/null", sys.executable, *args],
                         env=_env(), capture_output=True, text=True)
    found = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if found is None:
        raise SystemExit(f"no instruction count from valgrind:\n{out.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def hooked(hook: str, target: Path, work: Path):
    """What `hook` gathered in one run of ctxlint over `target` (the run's own output is not kept)."""
    import pickle

    out = work / f"{hook}.pickle"
    done = subprocess.run([sys.executable, "-c", _HOOK, hook, str(out), *CHECK, str(target)], env=_env(),
                          capture_output=True, text=True)
    if not out.exists():
        raise SystemExit(f"the {hook} run of {target} ended without its counts:\n{done.stderr[-2000:]}")
    with open(out, "rb") as handle:
        return pickle.load(handle)


def imported(target: Path) -> List[str]:
    """The modules a run over `target` imports, in the order `-X importtime` lists them."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "ctxlint", *CHECK, str(target)], env=_env(),
                          capture_output=True, text=True)
    return [line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
            if line.startswith("import time:") and "imported package" not in line]


def two_copies(one_of_each: Path, root: Path) -> Tuple[Path, int]:
    """ONE_OF_EACH's files twice over, laid out as build_tree lays out its copies (100 a directory)."""
    seeds = sorted(p for p in one_of_each.rglob("*") if p.is_file())
    tree = root / f"tree-{2 * len(seeds)}"
    for i in range(2 * len(seeds)):
        folder = tree / f"d{i // 100:04d}"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(seeds[i % len(seeds)], folder / f"f{i:06d}.yaml")
    return tree, len(seeds)


def first_seen_by_seed(per_file: Dict[str, int], seeds: int) -> List[Tuple[int, int, int, int]]:
    """(first copy less second, seed, first copy, second copy) for each seed, the largest first."""
    by_index: Dict[int, int] = {}
    for path, count in per_file.items():
        found = re.search(r"f(\d{6})\.yaml$", path)
        if found:
            by_index[int(found.group(1))] = by_index.get(int(found.group(1)), 0) + count
    rows = [(by_index.get(s, 0) - by_index.get(s + seeds, 0), s, by_index.get(s, 0), by_index.get(s + seeds, 0))
            for s in range(seeds)]
    return sorted(rows, reverse=True)


def _compiling(patterns: list, work: Path, label: str) -> int:
    """Instructions of compiling `patterns` alone, less the same process compiling none."""
    import pickle

    listed = work / f"patterns-{label}.pickle"
    with open(listed, "wb") as handle:
        pickle.dump(patterns, handle)
    return instructions("-c", _COMPILE_ALL, str(listed), "1") - instructions("-c", _COMPILE_ALL, str(listed), "0")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("one_of_each", type=Path)
    parser.add_argument("--file", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--parts", default="startup,imports,patterns,catalog,seeds")
    opts = parser.parse_args()
    parts = opts.parts.split(",")
    targets = (("tree", opts.one_of_each), ("file", opts.file))
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        startup = instructions("-c", "pass")
        if "startup" in parts:
            print(f"startup   {startup / 1e6:9.1f} M", flush=True)
        for label, target in targets:
            listed = work / f"modules-{label}.txt"
            names = imported(target)
            listed.write_text("\n".join(names))
            if "imports" in parts:
                own = sum(1 for n in names if n == "ctxlint" or n.startswith("ctxlint."))
                spent = instructions("-c", _IMPORT_ALL, str(listed)) - startup
                print(f"imports   {label:4} {spent / 1e6:9.1f} M  {len(names)} modules ({own} of ctxlint)", flush=True)
            if "patterns" in parts:
                import pickle

                patterns = hooked("patterns", target, work)
                at_import = work / f"at-import-{label}.pickle"
                subprocess.run([sys.executable, "-c", _IMPORT_ALL, str(listed), str(at_import)], env=_env(),
                               capture_output=True, check=False)
                with open(at_import, "rb") as handle:
                    early = pickle.load(handle)
                print(f"patterns  {label:4} {_compiling(patterns, work, label) / 1e6:9.1f} M  {len(patterns)} "
                      f"compiled; at import (in `imports`): {_compiling(early, work, label + '-early') / 1e6:.1f} M, "
                      f"{len(early)} of them", flush=True)
        if "catalog" in parts:
            module = "from ctxlint.resolution import catalog"
            spent = instructions("-c", f"{module}; catalog.data()") - instructions("-c", module)
            print(f"catalog   {spent / 1e6:9.1f} M  (models.json read)", flush=True)
        if "seeds" in parts:
            tree, seeds = two_copies(opts.one_of_each, work)
            rows = first_seen_by_seed(hooked("seeds", tree, work), seeds)
            total = sum(r[0] for r in rows)
            print(f"seeds     first copies less second copies: {total:,} bytecodes over {seeds} seeds", flush=True)
            for extra, seed, first, second in rows[:opts.top]:
                share = extra / total if total else 0.0
                print(f"  seed {seed:4}  {extra:>10,}  ({share:5.1%})  first {first:>10,}  second {second:>9,}")


if __name__ == "__main__":
    main()
