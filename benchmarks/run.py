"""Latency, throughput, scaling, --jobs and memory of `ctxlint check`, each as a ratio
against a reference measured in the same run (see benchmarks/README.md).

    python -m benchmarks [--quick] [--runs N] [--tree-rounds N] [--corpus DIR]

Every tool is run as its user runs it: the console script installed beside this
interpreter (never a version-manager shim, which adds its own start-up), the tools of a
comparison interleaved round by round so that load changes hit both alike, and every
run's exit code and output checked, so that a tool failing fast is never timed as fast.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus" / "real"
SCHEMA = REPO / "lint" / "data" / "manifest.schema.json"
NATIVE = REPO / "samples" / "incident" / "deployment.yaml"
PY = sys.executable  # the venv's path, not its target: resolving it would leave the venv


class BenchmarkError(RuntimeError):
    """A run that exited with an unexpected code or printed different output each round."""


def is_shim(path: Path) -> bool:
    """A pyenv/asdf-style shim: a shell script that re-dispatches to the real executable."""
    try:
        head = path.resolve().read_bytes()[:512]
    except OSError:
        return False
    return head.startswith(b"#!") and b"python" not in head.splitlines()[0] and \
        any(word in head for word in (b"pyenv", b"asdf", b"shim"))


def tool(name: str) -> Optional[str]:
    """A peer tool's real executable: the console script beside this interpreter (the same
    install as ctxlint), else the first one on PATH that is no shim; symlinks resolved."""
    beside = Path(PY).parent / name
    candidates = [beside] if beside.exists() else []
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        found = shutil.which(name, path=folder) if folder else None
        if found:
            candidates.append(Path(found))
    for path in candidates:
        if not is_shim(path):
            return str(path.resolve())
    return None


def ctxlint(*args: str) -> List[str]:
    script = tool("ctxlint")  # the console script, as pre-commit runs it
    return [script, *args] if script else [PY, "-m", "ctxlint", *args]


PEAK_RSS: Dict[str, float] = {}  # command line -> peak RSS (MiB) of its largest process, the most over its runs


def run_once(cmd: Sequence[str], ok: Tuple[int, ...]) -> Tuple[float, int, str]:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        # wait4 gives this run's own rusage: its peak RSS is the largest of its processes (a --jobs worker's too)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    key = " ".join(cmd)
    PEAK_RSS[key] = max(PEAK_RSS.get(key, 0.0), usage.ru_maxrss / 1024)  # KiB on Linux
    if code not in ok:
        raise BenchmarkError(f"{' '.join(cmd)} exited {code} (expected {ok}):\n"
                             f"{stderr.decode(errors='replace')[-2000:]}")
    return seconds, code, hashlib.sha256(stdout).hexdigest()[:12]


def interleaved(cmds: Dict[str, Tuple[Sequence[str], Tuple[int, ...]]], rounds: int,
                warm: bool = True) -> Dict[str, Tuple[float, int, str]]:
    """Median seconds, exit code and output digest of each command, run round by round in a
    rotating order; a warm-up round first (page cache, .pyc files) that is not counted."""
    names = list(cmds)
    times: Dict[str, List[float]] = {name: [] for name in names}
    seen: Dict[str, Tuple[int, str]] = {}
    for number in range(rounds + (1 if warm else 0)):
        order = names[number % len(names):] + names[:number % len(names)]
        for name in order:
            cmd, ok = cmds[name]
            seconds, code, digest = run_once(cmd, ok)
            if seen.setdefault(name, (code, digest)) != (code, digest):
                raise BenchmarkError(f"{name}: exit code/output changed between rounds "
                                     f"({seen[name]} then {(code, digest)})")
            if number or not warm:
                times[name].append(seconds)
    return {name: (statistics.median(times[name]), *seen[name]) for name in names}


def seeds(corpus: Path) -> List[Path]:
    files = sorted(p for p in (REPO / "samples").rglob("*.yaml"))
    if corpus.is_dir():
        files += sorted(p for p in corpus.rglob("*") if p.suffix in (".yaml", ".yml"))
    return files


def build_tree(root: Path, count: int, sources: List[Path]) -> Path:
    """`count` files copied round-robin from the seeds, 100 per directory."""
    tree = root / f"tree-{count}"
    if tree.exists():
        return tree
    blobs = [p.read_bytes() for p in sources]
    for i in range(count):
        folder = tree / f"d{i // 100:04d}"
        if i % 100 == 0:
            folder.mkdir(parents=True)
        (folder / f"f{i:06d}.yaml").write_bytes(blobs[i % len(blobs)])
    return tree


PARSE_FLOOR = """
import os, sys, yaml
loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
for dirpath, _, names in os.walk(sys.argv[1]):
    for name in names:
        with open(os.path.join(dirpath, name), "rb") as handle:
            text = handle.read().decode("utf-8")
        try:
            for _ in yaml.compose_all(text, Loader=loader):
                pass
        except yaml.YAMLError:
            pass
"""
LINT_EXITS = (0, 1)  # clean or findings; 2 (usage/config error) and crashes abort the benchmark


def children_maxrss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux


def row(label: str, result: Tuple[float, int, str], extra: str = "") -> str:
    seconds, code, digest = result
    return f"  {label:<48} {seconds * 1000:9.1f} ms  exit {code} out {digest}{extra}"


def ratio(label: str, value: float, target: str = "") -> str:
    return f"  {label:<48} {value:9.2f}x{('      target ' + target) if target else ''}"


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        return measure(argv)
    except BenchmarkError as error:
        print(f"benchmark aborted: {error}", file=sys.stderr)
        return 2


def measure(argv: Optional[Sequence[str]]) -> int:
    parser = argparse.ArgumentParser(description="ctxlint benchmarks")
    parser.add_argument("--quick", action="store_true", help="skip the 50,000-file scaling step")
    parser.add_argument("--runs", type=int, default=21, help="interleaved rounds for single-file medians")
    parser.add_argument("--tree-rounds", type=int, default=3, help="interleaved rounds for the 10,000-file tree")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--workdir", type=Path, default=None, help="where the generated trees go (default: tmp)")
    args = parser.parse_args(argv)
    yamllint, check_jsonschema = tool("yamllint"), tool("check-jsonschema")
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor()) if os.path.exists("/proc/cpuinfo") else platform.processor()
    print(f"machine: {os.cpu_count()} CPUs, {cpu}; Python {platform.python_version()}; "
          f"PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '(unset)')}")
    print(f"ctxlint: {' '.join(ctxlint())}\nyamllint: {yamllint or '-'}\ncheck-jsonschema: {check_jsonschema or '-'}")
    notes = []
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        notes.append("PYTHONDONTWRITEBYTECODE is set: every run compiles ctxlint from source, unlike an install")
    kube = next((p for p in seeds(args.corpus) if "corpus" in str(p)), None)

    print(f"\nsingle file (interleaved, median of {args.runs} rounds)")
    for label, path in (("Kubernetes file", kube), ("native manifest", NATIVE)):
        if path is None:
            notes.append(f"no {label} found (is the corpus at {args.corpus}?)")
            continue
        cmds = {"python -c pass": ([PY, "-c", "pass"], (0,)),
                f"ctxlint check ({label})": (ctxlint("check", str(path)), LINT_EXITS)}
        if yamllint:
            cmds[f"yamllint -d relaxed ({label})"] = ([yamllint, "-d", "relaxed", str(path)], LINT_EXITS)
        result = interleaved(cmds, args.runs)
        for name, measured in result.items():
            print(row(name, measured))
        if yamllint:
            ours, theirs = result[f"ctxlint check ({label})"][0], result[f"yamllint -d relaxed ({label})"][0]
            print(ratio("ctxlint / yamllint", ours / theirs, "<= 1.00"))
    if not yamllint:
        notes.append("yamllint not installed: pip install 'ctxlint[bench]'")

    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="ctxlint-bench-"))
    sources = seeds(args.corpus)
    sizes = [1_000, 10_000] + ([] if args.quick else [50_000])
    print(f"\nthroughput (10,000 files: the default (--jobs auto: {os.cpu_count()} CPUs here) and --jobs 1, "
          f"interleaved with the parse floor, median of {args.tree_rounds} rounds)")
    tree = build_tree(workdir, 10_000, sources)
    default_cmd = ctxlint("check", str(tree), "--fail-on", "never")
    serial_cmd = ctxlint("check", str(tree), "--fail-on", "never", "--jobs", "1")
    floor = "parse floor (CSafeLoader compose, 1 process)"
    cmds = {floor: ([PY, "-c", PARSE_FLOOR, str(tree)], (0,)),
            "ctxlint check, 10,000 files": (default_cmd, (0,)),
            "ctxlint check --jobs 1, 10,000 files": (serial_cmd, (0,))}
    result = interleaved(cmds, args.tree_rounds, warm=False)  # a tree run is long: no uncounted round
    ours, serial, parse = result["ctxlint check, 10,000 files"], result["ctxlint check --jobs 1, 10,000 files"], \
        result[floor]
    for name, measured in result.items():
        print(row(name, measured))
    if ours[1:] != serial[1:]:
        raise BenchmarkError(f"the default run and --jobs 1 differ: {ours[1:]} against {serial[1:]}")
    print(ratio("ctxlint / parse floor", ours[0] / parse[0], "<= 4"))
    print(ratio("ctxlint --jobs 1 / parse floor (one process)", serial[0] / parse[0]))
    print(ratio("speed-up of the default over --jobs 1", serial[0] / ours[0]))
    if yamllint:
        theirs = run_once([yamllint, str(tree)], LINT_EXITS)
        print(row("yamllint, 10,000 files (one run)", theirs))
        print(ratio("yamllint / ctxlint", theirs[0] / ours[0], ">= 5"))
    if check_jsonschema:
        files = [str(p) for p in sorted(tree.rglob("*.yaml"))]
        start = time.perf_counter()
        for i in range(0, len(files), 2000):  # stay under the argument-length limit
            run_once([check_jsonschema, "--schemafile", str(SCHEMA), *files[i:i + 2000]], LINT_EXITS)
        elapsed = time.perf_counter() - start
        print(row("check-jsonschema (shipped schema), 10,000 files", (elapsed, 1, "-")))
        print(ratio("check-jsonschema / ctxlint", elapsed / ours[0]))
    else:
        notes.append("check-jsonschema not installed: pip install 'ctxlint[bench]'")

    print("\nscaling (one process: per-file time against 10,000 files with --jobs 1, one run each)")
    for count in sizes:
        if count == 10_000:
            continue
        measured = run_once(ctxlint("check", str(build_tree(workdir, count, sources)), "--fail-on", "never",
                                    "--jobs", "1"), (0,))
        print(row(f"ctxlint check --jobs 1, {count:,} files", measured, f"   {count / measured[0]:,.0f} files/s"))
        print(ratio(f"per-file time {count:,} / 10,000", (measured[0] / count) / (serial[0] / 10_000), "within 1.10"))

    print("\nparallelism (interleaved, one round)")
    help_text = subprocess.run(ctxlint("check", "--help"), capture_output=True, text=True).stdout
    if "--jobs" in help_text:
        result = interleaved({f"--jobs {n}, 10,000 files": (ctxlint("check", str(tree), "--fail-on", "never",
                                                                         "--jobs", str(n)), (0,))
                              for n in (1, 2)}, 1, warm=False)
        for name, measured in result.items():
            print(row(name, measured))
        one, two = result["--jobs 1, 10,000 files"][0], result["--jobs 2, 10,000 files"][0]
        print(ratio("speed-up --jobs 2 over --jobs 1", one / two, ">= 1.6"))
    else:
        print("  skipped: this ctxlint has no --jobs option")
        notes.append("--jobs not available in this build")

    print("\nmemory")
    print(f"  peak RSS of the largest child process (the runs above, up to {max(sizes):,} files; "
          f"yamllint's too): {children_maxrss_mib():,.0f} MiB")
    # a run's largest process: the default runs up to one a CPU (the parent and its workers), --jobs 1 one
    for label, cmd in (("default", default_cmd), ("--jobs 1", serial_cmd)):
        print(f"  peak RSS of the largest process, 10,000 files, {label}: {PEAK_RSS[' '.join(cmd)]:,.0f} MiB")
    if notes:
        print("\nnotes:\n" + "\n".join(f"  - {note}" for note in notes))
    if args.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0
