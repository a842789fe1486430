"""Mutation fuzzing of the lint engine, in-process.

    python tests/fuzz/fuzz.py --cases 5000 --seed 1 [--corpus DIR] [--crashes DIR]

Seeds are the real deploy configs of the shared corpus and the repository's samples.
Each case applies one to three mutations (byte flips, truncation, line shuffles, token
swaps, dropped indentation, duplicated lines, inserted YAML hazards) and runs the engine
as `ctxlint check -` would, then renders the report in every output format. A crash is
an InternalError or any exception out of the engine or a reporter, a case over the time
bound, or a finding without a location; each is saved (input + reason) to --crashes.
Exit 1 if anything was saved.
"""
from __future__ import annotations

import argparse
import io
import random
import signal
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Tuple

REPO = Path(__file__).resolve().parents[2]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus" / "real"  # tests/conftest.py SHARED
HAZARDS = [b"&a ", b"*a", b"<<: *a", b"---", b"...", b"\t", b"0755", b"1:20", b"yes", b"on", b"~", b"[", b"{",
           b"]", b"}", b"'", b'"', b"\xff", b"\x00", b"\xef\xbb\xbf", b"!!binary", b"!Ref", b"? ", b"- ",
           b"1e6", b"1_048_576", b"-1", b"1048576", b"128K", b"1Mi", b".inf", b"|", b">-", b"#", b": ",
           b"kind: ModelDeployment", b"apiVersion: ctxlint/v1", b"$(MODEL)", b"${X:-1}", b"\\", b"\r",
           # line breaks libyaml counts and editors do not (lines.py), and a lone "\r" line end
           "\u2028".encode(), "\x85".encode(), b"\r# ctxlint: ignore[CTX101] -- fuzz\r"]


class CaseTimeout(Exception):
    pass


@dataclass
class Summary:
    cases: int = 0
    seconds: float = 0.0
    findings: Counter = field(default_factory=Counter)
    crashes: List[str] = field(default_factory=list)
    slowest: float = 0.0

    def lines(self) -> List[str]:
        rate = self.cases / self.seconds if self.seconds else 0.0
        out = [f"cases: {self.cases:,} in {self.seconds:.1f} s ({rate:,.0f}/s), slowest case {self.slowest:.2f} s",
               f"tracebacks: {len(self.crashes)}",
               "findings by rule: " + (", ".join(f"{rule} {n:,}" for rule, n in sorted(self.findings.items()))
                                       or "none")]
        out += [f"  crash saved: {path}" for path in self.crashes]
        return out


def seeds(root: Optional[Path]) -> List[Tuple[str, bytes]]:
    if root is None or not root.is_dir():
        return []
    return [(path.name, path.read_bytes()) for path in sorted(root.rglob("*"))
            if path.is_file() and path.suffix in (".yaml", ".yml", ".json")]


# --- mutations: each takes (rng, data) and returns new bytes ---

def flip_bytes(rng: random.Random, data: bytes) -> bytes:
    buf = bytearray(data or b" ")
    for _ in range(rng.randint(1, 4)):
        buf[rng.randrange(len(buf))] = rng.randrange(256)
    return bytes(buf)


def truncate(rng: random.Random, data: bytes) -> bytes:
    return data[:rng.randint(0, len(data))]


def shuffle_lines(rng: random.Random, data: bytes) -> bytes:
    lines = data.split(b"\n")
    if len(lines) > 2:
        i = rng.randrange(len(lines))
        j = min(len(lines), i + rng.randint(2, 8))
        part = lines[i:j]
        rng.shuffle(part)
        lines[i:j] = part
    return b"\n".join(lines)


def swap_tokens(rng: random.Random, data: bytes) -> bytes:
    tokens = data.split(b" ")
    if len(tokens) > 1:
        i, j = rng.randrange(len(tokens)), rng.randrange(len(tokens))
        tokens[i], tokens[j] = tokens[j], tokens[i]
    return b" ".join(tokens)


def replace_token(rng: random.Random, data: bytes) -> bytes:
    tokens = data.split(b" ")
    tokens[rng.randrange(len(tokens))] = rng.choice(HAZARDS)
    return b" ".join(tokens)


def insert_hazard(rng: random.Random, data: bytes) -> bytes:
    at = rng.randint(0, len(data))
    return data[:at] + rng.choice(HAZARDS) + data[at:]


def drop_indentation(rng: random.Random, data: bytes) -> bytes:
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    lines[i] = lines[i].lstrip(b" ") if rng.random() < 0.5 else lines[i][1:]
    return b"\n".join(lines)


def duplicate_line(rng: random.Random, data: bytes) -> bytes:
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    lines.insert(i, lines[i])
    return b"\n".join(lines)


def splice(rng: random.Random, data: bytes, other: bytes = b"") -> bytes:
    a, b = rng.randint(0, len(data)), rng.randint(0, len(other))
    return data[:a] + other[b:]


MUTATIONS: Sequence[Callable[[random.Random, bytes], bytes]] = (
    flip_bytes, truncate, shuffle_lines, swap_tokens, replace_token, insert_hazard, drop_indentation,
    duplicate_line)


def mutate(rng: random.Random, data: bytes, pool: Sequence[Tuple[str, bytes]]) -> Tuple[bytes, List[str]]:
    names = []
    for _ in range(rng.randint(1, 3)):
        if rng.random() < 0.05:
            data, name = splice(rng, data, rng.choice(pool)[1]), "splice"
        else:
            op = rng.choice(MUTATIONS)
            data, name = op(rng, data), op.__name__
        names.append(name)
    return data, names


def _alarm(signum, frame):
    raise CaseTimeout()


def run(cases: int, seed: int, corpus: Optional[Path] = DEFAULT_CORPUS, crashes: Path = Path("fuzz-crashes"),
        time_limit: float = 5.0, formats: Sequence[str] = ("text", "concise", "json", "sarif", "full", "github",
                                                             "junit", "gitlab", "markdown"),
        log: Callable[[str], None] = print) -> Summary:
    from ctxlint.engine import InternalError, Settings, lint_paths
    from ctxlint.reporters import REPORTERS, ReportContext

    samples, real = seeds(REPO / "samples"), seeds(corpus)
    pool = samples + real
    if not pool:
        raise SystemExit("no seed files found")
    rng = random.Random(seed)
    summary = Summary()
    settings = Settings()
    use_alarm = hasattr(signal, "setitimer")
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, _alarm)
    start = time.monotonic()
    try:
        for number in range(cases):
            # Half the cases start from native manifests, which reach every rule.
            name, original = rng.choice(samples if samples and (not real or rng.random() < 0.5) else real)
            data, ops = mutate(rng, original, pool)
            reason = None
            case_start = time.monotonic()
            if use_alarm:
                signal.setitimer(signal.ITIMER_REAL, time_limit)
            try:
                report = lint_paths(["-"], settings, stdin=data, stdin_filename=name)
                ctx = ReportContext(sources={name: data.decode("utf-8", "replace")})
                for fmt in formats:
                    REPORTERS[fmt](report, io.StringIO(), ctx)
                bad = [f for f in report.findings if f.file != name or f.line < 1 or f.column < 1]
                if bad:
                    reason = f"finding without a valid location: {bad[0]}"
                for finding in report.findings:
                    summary.findings[finding.rule] += 1
            except CaseTimeout:
                reason = f"over the {time_limit} s time bound"
            except InternalError as exc:
                reason = "InternalError: " + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            except Exception as exc:  # anything out of the engine or a reporter is a bug
                reason = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            finally:
                if use_alarm:
                    signal.setitimer(signal.ITIMER_REAL, 0)
            elapsed = time.monotonic() - case_start
            summary.slowest = max(summary.slowest, elapsed)
            summary.cases += 1
            if reason:
                crashes.mkdir(parents=True, exist_ok=True)
                stem = crashes / f"seed{seed}-case{number}-{Path(name).stem}"
                saved = stem.with_suffix(Path(name).suffix)
                saved.write_bytes(data)
                stem.with_suffix(".txt").write_text(f"seed file: {name}\nmutations: {', '.join(ops)}\n{reason}\n")
                summary.crashes.append(str(saved))
                log(f"CRASH case {number} ({name}; {', '.join(ops)}): {reason.strip().splitlines()[-1]}")
    finally:
        if use_alarm:
            signal.signal(signal.SIGALRM, previous)
    summary.seconds = time.monotonic() - start
    return summary


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS,
                        help="directory of extra seed files (default: the shared corpus, if present)")
    parser.add_argument("--crashes", type=Path, default=Path("fuzz-crashes"), help="where crashing inputs go")
    parser.add_argument("--time-limit", type=float, default=5.0, help="seconds per case")
    args = parser.parse_args(argv)
    summary = run(args.cases, args.seed, args.corpus, args.crashes, args.time_limit)
    print("\n".join(summary.lines()))
    return 1 if summary.crashes else 0


if __name__ == "__main__":
    sys.exit(main())
