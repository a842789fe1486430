"""Property tests over generated input: the loader keeps values and positions, the CLI
always exits 0/1/2, and findings do not depend on document or file order."""
from __future__ import annotations

import os
import re
from typing import Any, Dict, List, Tuple

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxlint.engine import lint_paths, lint_text
from ctxlint.loader import parse_text
from ctxlint.nodes import MAP, SCALAR, Node
from helpers import run

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --- plain YAML data: the loader must give PyYAML's values at the scalars' own text ---

keys = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=8)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10**12, 10**12),
    st.floats(allow_nan=False, allow_infinity=True, width=64),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=12))
data = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                     st.dictionaries(keys, inner, max_size=4)), max_leaves=20)


def _scalars(node: Node):
    for item in node.walk():
        if item.kind == SCALAR:
            yield item
        if item.kind == MAP:
            yield from item.keys.values()


def _offset(text: str, line: int, col: int) -> int:
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    return starts[line - 1] + col - 1


@FAST
@given(data, st.booleans(), st.booleans())
def test_loader_round_trips_values_and_positions(value, flow, sort_keys):
    text = yaml.safe_dump(value, default_flow_style=flow, sort_keys=sort_keys, allow_unicode=True, width=60)
    loaded = parse_text(text, "doc.yaml")
    assert not loaded.diagnostics
    assert len(loaded.documents) == 1
    root = loaded.documents[0].root
    assert root.plain() == yaml.safe_load(text)
    for node in _scalars(root):
        assert _offset(text, node.line, node.col) == node.start_index
        if node.end_line == node.line and node.style in (None, "'", '"') and node.start_index < node.end_index:
            assert yaml.safe_load(text[node.start_index:node.end_index]) == node.value, (node, text)


# --- native manifests, valid and invalid ---

token_counts = st.one_of(
    st.integers(1, 4_000_000), st.sampled_from(["128Ki", "1Mi", "200k", "1M", "128K", "0", "-5", "1.5Ki", "lots"]),
    st.floats(1, 1e7).map(lambda f: round(f, 1)))
roles = st.fixed_dictionaries(
    {"role": st.sampled_from(["unified", "prefill", "decode", "router"])},
    optional={"context_length": token_counts, "kv_pool_tokens": token_counts, "replicas": st.integers(0, 8),
              "kv_cache_dtype": st.sampled_from(["auto", "fp8", "bf16"]),
              "accelerators": st.fixed_dictionaries({"type": st.sampled_from(["H100", "H200", "L4", "TPU-x"]),
                                                     "count": st.integers(1, 8)}),
              "parallelism": st.fixed_dictionaries({"tensor": st.sampled_from([1, 2, 4, 8, 3])}),
              "engine_args": st.fixed_dictionaries({}, optional={"gpu_memory_utilization": st.floats(0, 1.2),
                                                                 "max_num_batched_tokens": st.integers(1, 65536)}),
              "unknown_knob": st.integers()})
manifests = st.builds(
    lambda name, window, out, prompt, model, engine, mode, role_list: {
        "apiVersion": "ctxlint/v1", "kind": "ModelDeployment", "metadata": {"name": name},
        "spec": {k: v for k, v in {
            "model": {"id": model} if model else None,
            "advertised": {"context_window": window, **({"max_output_tokens": out} if out else {})},
            "gateway": {"max_prompt_tokens": prompt} if prompt else None,
            "engine": {"name": engine} if engine else None,
            "serving": {"disaggregation": mode, "roles": role_list} if mode else {"roles": role_list},
        }.items() if v is not None}},
    st.text("abcdefgh-", min_size=1, max_size=8), token_counts, st.none() | token_counts,
    st.none() | token_counts,
    st.none() | st.sampled_from(["meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-70B-Instruct",
                                 "deepseek-ai/DeepSeek-V3", "unknown/model"]),
    st.none() | st.sampled_from(["vllm", "sglang", "tgi", "vllm-turbo"]),
    st.none() | st.sampled_from(["none", "prefill-decode"]),
    st.lists(roles, min_size=1, max_size=3))
HAZARDS = ["\t", "'", "[", "&a ", "*a", "<<: *a", "0755", "1:20", "yes", "\x00", "\xff", "---\n", ": ", "- "]


def render(manifest: Dict[str, Any], flow: bool) -> str:
    return yaml.safe_dump(manifest, default_flow_style=flow, sort_keys=False, width=80)


@st.composite
def manifest_texts(draw) -> str:
    text = render(draw(manifests), draw(st.booleans()))
    for _ in range(draw(st.integers(0, 2))):  # sometimes break it
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(HAZARDS)) + text[at:]
    return text


@FAST
@given(manifest_texts(), st.sampled_from(["deploy.yaml", "deploy.json"]))
def test_cli_exits_0_1_2_and_never_raises(text, name):
    result = run(["check", "-", "--stdin-filename", name], stdin=text.encode("utf-8", "surrogatepass"))
    assert result.code in (0, 1, 2)
    assert "Traceback" not in result.out + result.err
    for line in result.out.splitlines():
        assert re.match(rf"^{re.escape(name)}:\d+:\d+: CTX\d{{3}} ", line), line


def _by_document(report, starts: List[int]) -> List[Tuple]:
    """Findings keyed by (deployment, line within its document): independent of where it sits."""
    out = []
    for f in report.findings:
        doc = max(i for i, start in enumerate(starts) if start <= f.line)
        # Messages may cite another line of the same document ("(line 45)"): make it relative too.
        message = re.sub(r"\bline (\d+)", lambda m: f"line +{int(m.group(1)) - starts[doc]}", f.message)
        out.append((f.deployment, f.rule, f.line - starts[doc], f.column, message))
    return sorted(out, key=repr)


def _join(docs: List[str]) -> Tuple[str, List[int]]:
    text, starts, line = "", [], 1
    for doc in docs:
        text += "---\n"
        starts.append(line + 1)
        line += 1 + doc.count("\n")
        text += doc
    return text, starts


@FAST
@given(st.lists(manifests, min_size=2, max_size=4), st.randoms(use_true_random=False))
def test_findings_do_not_depend_on_document_order(items, rnd):
    docs = [render(dict(m, metadata={"name": f"d{i}"}), False) for i, m in enumerate(items)]
    forward, forward_starts = _join(docs)
    order = list(range(len(docs)))
    rnd.shuffle(order)
    shuffled, shuffled_starts = _join([docs[i] for i in order])
    assert _by_document(lint_text(forward, "a.yaml"), forward_starts) == \
        _by_document(lint_text(shuffled, "a.yaml"), shuffled_starts)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(manifests, min_size=2, max_size=4), st.randoms(use_true_random=False))
def test_findings_do_not_depend_on_file_order(tmp_path, items, rnd):
    paths = []
    for i, manifest in enumerate(items):
        path = tmp_path / f"f{i}.yaml"
        path.write_text(render(dict(manifest, metadata={"name": f"d{i}"}), bool(i % 2)))
        paths.append(str(path))
    shuffled = list(paths)
    rnd.shuffle(shuffled)
    forward, backward = lint_paths(paths), lint_paths(shuffled)
    assert forward.findings == backward.findings
    assert sorted(forward.files) == sorted(backward.files) == sorted(paths)
    for path in paths:
        os.unlink(path)
