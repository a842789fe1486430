"""Latency, throughput, scaling, --jobs and memory of `ctxlint check`, each as a ratio
against a reference measured in the same run (see benchmarks/README.md).

    python -m benchmarks [--quick] [--runs N] [--corpus DIR]
"""
from __future__ import annotations

import argparse
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
from typing import List, Optional, Sequence

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus" / "real"
SCHEMA = REPO / "lint" / "data" / "manifest.schema.json"
NATIVE = REPO / "samples" / "incident" / "deployment.yaml"
PY = sys.executable


def tool(name: str) -> Optional[str]:
    """A benchmark-only peer tool, from PATH or next to this interpreter."""
    found = shutil.which(name)
    beside = Path(PY).parent / name
    return found or (str(beside) if beside.exists() else None)


def timed(cmd: Sequence[str], cwd: Optional[Path] = None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def median(cmd: Sequence[str], runs: int, cwd: Optional[Path] = None) -> float:
    timed(cmd, cwd)  # warm the page cache and .pyc files
    return statistics.median(timed(cmd, cwd) for _ in range(runs))


def ctxlint(*args: str) -> List[str]:
    return [PY, "-m", "ctxlint", *args]


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


def children_maxrss_mib() -> float:
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
    return rss / 1024


def row(label: str, seconds: float, ref: Optional[float] = None, ref_label: str = "", target: str = "") -> str:
    ratio = f"  x{seconds / ref:5.2f} of {ref_label}" if ref else ""
    return f"  {label:<46} {seconds * 1000:9.1f} ms{ratio}{('   target ' + target) if target else ''}"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="ctxlint benchmarks")
    parser.add_argument("--quick", action="store_true", help="skip the 100,000-file scaling step")
    parser.add_argument("--runs", type=int, default=15, help="repetitions for single-file medians")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--workdir", type=Path, default=None, help="where the generated trees go (default: tmp)")
    args = parser.parse_args(argv)
    yamllint, check_jsonschema = tool("yamllint"), tool("check-jsonschema")
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor()) if os.path.exists("/proc/cpuinfo") else platform.processor()
    print(f"machine: {os.cpu_count()} CPUs, {cpu}; Python {platform.python_version()}")
    notes = []
    kube = next((p for p in seeds(args.corpus) if "corpus" in str(p)), None)

    print("\nsingle file (median of %d runs)" % args.runs)
    floor = median([PY, "-c", "pass"], args.runs)
    print(row("python -c pass", floor))
    for label, path in (("Kubernetes file", kube), ("native manifest", NATIVE)):
        if path is None:
            notes.append(f"no {label} found (is the corpus at {args.corpus}?)")
            continue
        ours = median(ctxlint("check", str(path)), args.runs)
        print(row(f"ctxlint check ({label})", ours, floor, "python -c pass"))
        if yamllint:
            theirs = median([yamllint, str(path)], args.runs)
            print(row(f"yamllint ({label})", theirs))
            print(f"  {'ctxlint / yamllint':<46} {ours / theirs:9.2f}x      target <= 1.00")
    if not yamllint:
        notes.append("yamllint not installed: pip install 'ctxlint[bench]'")

    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="ctxlint-bench-"))
    sources = seeds(args.corpus)
    sizes = [1_000, 10_000] + ([] if args.quick else [100_000])
    results = {}
    print("\nthroughput and scaling (wall time over a generated tree)")
    for count in sizes:
        tree = build_tree(workdir, count, sources)
        results[count] = timed(ctxlint("check", str(tree), "--fail-on", "never"))
        print(row(f"ctxlint check, {count:,} files", results[count]) + f"   {count / results[count]:,.0f} files/s")
    for small, large in zip(sizes, sizes[1:]):
        per_small, per_large = results[small] / small, results[large] / large
        print(f"  {'per-file time ' + f'{large:,} vs {small:,}':<46} {per_large / per_small:9.2f}x      "
              "target within 1.15x")
    tree = build_tree(workdir, 10_000, sources)
    ours = results[10_000]
    parse = timed([PY, "-c", PARSE_FLOOR, str(tree)])
    print(row("parse floor (CSafeLoader compose, 1 process)", parse))
    print(f"  {'ctxlint / parse floor':<46} {ours / parse:9.2f}x      target <= 4")
    if yamllint:
        theirs = timed([yamllint, str(tree)])
        print(row("yamllint, 10,000 files", theirs))
        print(f"  {'yamllint / ctxlint':<46} {theirs / ours:9.2f}x      target >= 5")
    if check_jsonschema:
        files = [str(p) for p in sorted(tree.rglob("*.yaml"))]
        start = time.perf_counter()
        for i in range(0, len(files), 2000):  # stay under the argument-length limit
            subprocess.run([check_jsonschema, "--schemafile", str(SCHEMA), *files[i:i + 2000]],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        theirs = time.perf_counter() - start
        print(row("check-jsonschema (shipped schema), 10,000 files", theirs))
        print(f"  {'check-jsonschema / ctxlint':<46} {theirs / ours:9.2f}x")
    else:
        notes.append("check-jsonschema not installed: pip install 'ctxlint[bench]'")

    print("\nparallelism")
    help_text = subprocess.run(ctxlint("check", "--help"), capture_output=True, text=True).stdout
    if "--jobs" in help_text:
        one = timed(ctxlint("check", str(tree), "--fail-on", "never", "--jobs", "1"))
        two = timed(ctxlint("check", str(tree), "--fail-on", "never", "--jobs", "2"))
        print(row("--jobs 1, 10,000 files", one))
        print(row("--jobs 2, 10,000 files", two))
        print(f"  {'speed-up --jobs 2 over --jobs 1':<46} {one / two:9.2f}x      target >= 1.6")
    else:
        print("  skipped: this ctxlint has no --jobs option")
        notes.append("--jobs not available in this build")

    print("\nmemory")
    largest = max(sizes)
    peak_before = children_maxrss_mib()
    subprocess.run(ctxlint("check", str(build_tree(workdir, largest, sources)), "--fail-on", "never"),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(f"  peak RSS of any child so far (largest run: {largest:,} files): {children_maxrss_mib():,.0f} MiB"
          f"{'' if children_maxrss_mib() > peak_before else ' (an earlier child peaked higher)'}")
    if notes:
        print("\nnotes:\n" + "\n".join(f"  - {note}" for note in notes))
    if args.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0
