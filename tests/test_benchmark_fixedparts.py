"""benchmarks/fixedparts.py: its hooked runs are ctxlint's own command line (the same output), what they gather is
what the run did, and a seed's first-seen work is its first copy less its second."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from benchmarks.fixedparts import _HOOK, first_seen_by_seed, hooked, two_copies

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
K8S = SAMPLES / "kubernetes" / "vllm-window-too-long"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300)


def test_each_hooked_run_prints_what_ctxlint_prints(tmp_path):
    check = ["check", "--isolated", "--fail-on", "never", "--jobs", "1", str(K8S)]
    plain = _run("-m", "ctxlint", *check)
    assert plain.returncode == 0 and plain.stdout
    for hook in ("patterns", "seeds"):
        out = tmp_path / f"{hook}.pickle"
        measured = _run("-c", _HOOK, hook, str(out), *check)
        assert measured.returncode == plain.returncode, measured.stderr[-2000:]
        assert measured.stdout == plain.stdout
        assert out.exists()


def test_the_patterns_are_those_the_run_compiles(tmp_path):
    patterns = hooked("patterns", K8S / "deployment.yaml", tmp_path)
    assert patterns and all(isinstance(p, (str, bytes)) and isinstance(f, int) for p, f in patterns)
    # a Kubernetes Deployment's node labels are read: the instance-family alternation is among them
    assert any(isinstance(p, str) and "g4dn" in p for p, _ in patterns)


def test_the_seed_counts_are_per_file_of_the_tree(tmp_path):
    seeds = tmp_path / "seeds"
    for name in ("a", "b"):
        (seeds / name).mkdir(parents=True)
    (seeds / "a" / "deployment.yaml").write_bytes((K8S / "deployment.yaml").read_bytes())
    (seeds / "b" / "other.yaml").write_text("kind: ConfigMap\napiVersion: v1\nmetadata: {name: x}\n")
    tree, n = two_copies(seeds, tmp_path / "work")
    files = sorted(p for p in tree.rglob("*") if p.is_file())
    assert n == 2 and [p.name for p in files] == [f"f{i:06d}.yaml" for i in range(4)]
    assert files[0].read_bytes() == files[2].read_bytes() != files[1].read_bytes() == files[3].read_bytes()
    counts = hooked("seeds", tree, tmp_path)
    # a file's scopes, and a group's (suppressions applied over the directory's files: their paths joined)
    assert all(set(key.split(", ")) <= {str(p) for p in files} for key in counts)
    assert all(c >= 0 for c in counts.values())
    # the Deployment's first copy pays for what its second reuses (imports, patterns, the capacity memo)
    assert counts[str(files[0])] > counts[str(files[2])] > 0


def test_a_seeds_first_seen_work_is_its_first_copy_less_its_second():
    per_file = {"t/d0000/f000000.yaml": 900, "t/d0000/f000001.yaml": 50, "t/d0000/f000002.yaml": 100,
                "t/d0000/f000003.yaml": 40, "elsewhere.yaml": 7}
    assert first_seen_by_seed(per_file, 2) == [(800, 0, 900, 100), (10, 1, 50, 40)]
