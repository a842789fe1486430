"""The advisory data file, its schema, the version comparator and the trigger evaluation."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from ctxlint.advisories import DATA, SCHEMA, load_advisories
from ctxlint.engine import Settings, lint_text
from ctxlint.versions import in_range, parse_version


def test_advisories_file_matches_its_schema():
    schema = json.loads(Path(SCHEMA).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(json.loads(Path(DATA).read_text(encoding="utf-8")), schema)


def test_advisories_are_consistent():
    advisories = load_advisories()
    assert len({a.id for a in advisories}) == len(advisories)
    for a in advisories:
        for low, high in a.affected:
            for bound in (low, high):
                assert bound is None or parse_version(bound) is not None
            assert low is None or high is None or parse_version(low) < parse_version(high)
        if a.fixed_in is not None:  # the fix is the end of an affected range and not itself affected
            assert a.fixed_in in [high for _, high in a.affected]
            assert not a.affects(parse_version(a.fixed_in))


@pytest.mark.parametrize("smaller,larger", [
    ("0.5.21", "0.5.22"), ("0.5.9", "0.5.10"), ("v0.5.21", "0.5.22"), ("0.19.1rc1.dev301+g60995c05b", "0.19.1rc1"),
    ("0.19.1.dev1", "0.19.1a1"), ("0.19.1rc1", "0.19.1"), ("0.19.1", "0.19.1.post1"), ("0.4.5.post2", "0.4.6"),
    ("3.3.6-dev0", "3.3.6"), ("1.0rc2", "1.0.0"),
])
def test_version_order(smaller, larger):
    assert parse_version(smaller) < parse_version(larger)


def test_version_operators_agree():
    """<, <=, >, >= and == are each written out (no functools.total_ordering): they agree on every pair."""
    texts = ["0.19.1rc1.dev301+g60995c05b", "0.19.1rc1", "0.19.1.dev1", "0.19.1a1", "0.19.1", "v0.19.1.0",
             "0.19.1.post1", "0.4.5.post2", "0.4.6", "3.3.6-dev0", "3.3.6", "1.0rc2", "1.0", "1"]
    versions = [parse_version(t) for t in texts]
    for a in versions:
        for b in versions:
            lt, eq = a < b, a == b
            assert (a <= b, a > b, a >= b) == (lt or eq, not lt and not eq, not lt)
            assert (b < a) == (not lt and not eq)
    assert parse_version(" 0.8.5 ") == parse_version("0.8.5") and parse_version(0.9) == parse_version("0.9")


def test_version_equality_and_junk():
    assert parse_version("1.0") == parse_version("v1.0.0")
    for junk in ("latest", "nightly", "main", "", "0.5.x", "sha-abc123", None, True):
        assert parse_version(junk) is None
    assert in_range(parse_version("0.5.21"), None, "0.5.22")
    assert not in_range(parse_version("0.5.22"), None, "0.5.22")
    assert in_range(parse_version("0.8.0"), "0.8.0", None) and not in_range(parse_version("0.7.3"), "0.8.0", None)


PD = """
apiVersion: ctxlint/v1
kind: ModelDeployment
metadata: {{name: pd}}
spec:
  advertised: {{context_window: 1048576}}
  gateway: {{max_prompt_tokens: {cap}}}
  engine: {{name: {engine}{version}}}
  serving:
    disaggregation: prefill-decode
    roles:
      - {{role: prefill, context_length: 1048576, kv_pool_tokens: 681280}}
      - {{role: decode, context_length: 1048576, kv_pool_tokens: 2040000}}
"""


def _rules(text, select=("CTX401", "CTX402")):
    return [(f.rule, f.line) for f in lint_text(text, "pd.yaml", Settings(select=select)).findings]


@pytest.mark.parametrize("version,cap,expected", [
    (', version: "0.5.21"', 1048576, [("CTX401", 8)]),
    (', version: "0.5.22"', 1048576, []),                 # the fixed release
    (', version: "0.5.21"', 681274, [("CTX401", 8)]),     # SGLang aborts at pool - 6 already
    (', version: "0.5.21"', 681273, []),
    ("", 1048576, [("CTX402", 8)]),                      # no version: info at the engine name
    (', version: latest', 1048576, [("CTX402", 8)]),
    ("", 600000, []),                                    # the trigger does not hold: nothing to say
])
def test_sglang_pd_advisory(version, cap, expected):
    assert _rules(PD.format(engine="sglang", version=version, cap=cap)) == expected


def test_advisories_only_for_their_engine():
    assert _rules(PD.format(engine="lmdeploy", version=', version: "0.5.21"', cap=1048576)) == []
    # vLLM's advisory is about a pool below the reachable prompt, disaggregated or not, when the engine starts: a
    # context above the whole pool is refused at startup (CTX201), so no request of it ever waits
    assert _rules(PD.format(engine="vllm", version=', version: "0.11.0"', cap=1048576)) == []
    starts = PD.replace("context_length: 1048576", "context_length: 681280")  # within vLLM's null block of the pool
    assert _rules(starts.format(engine="vllm", version=', version: "0.11.0"', cap=1048576)) == [("CTX401", 8)]
    assert _rules(starts.format(engine="vllm", version=', version: "0.7.3"', cap=1048576)) == []


def test_finding_names_range_fix_and_references():
    (finding,) = lint_text(PD.format(engine="sglang", version=', version: "0.5.21"', cap=1048576), "pd.yaml",
                           Settings(select=("CTX401",))).findings
    assert "(< 0.5.22; fixed in 0.5.22, not confirmed upstream)" in finding.message
    assert "1,048,576 >= 681,280 - 6: the advertised window 1,048,576 reaches the prefill pool 681,280" in finding.message
    assert "https://github.com/sgl-project/sglang/pull/36988" in finding.message


def test_an_overridden_vllm_pool_still_hangs_above_it():
    # review: vLLM's startup check compares the profiled memory, not --num-gpu-blocks-override (before vllm#41069),
    # so a context above an overridden pool starts and hangs (vllm#35541): the advisory stands there
    text = """
apiVersion: ctxlint/v1
kind: ModelDeployment
metadata: {name: o}
spec:
  engine: {name: vllm, version: "0.10.1"}
  serving:
    roles:
      - {role: unified, context_length: 8192, kv_pool_tokens: 1600, engine_args: {num_gpu_blocks_override: 100}}
"""
    assert _rules(text) == [("CTX401", 6)]
    assert _rules(text.replace(", engine_args: {num_gpu_blocks_override: 100}", "")) == []
